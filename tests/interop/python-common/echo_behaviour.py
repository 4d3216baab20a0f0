"""What the interop echo agents on the official Python SDK do with a message, by its text.

The v1.0 agent (crates/a2a-client/tests/interop/python/echo_agent.py, SDK 1.3.0) and the
v0.3 one (tests/interop/python03/serve_agent.py, SDK 0.3.26) behave alike but name their
helpers differently, so each passes its SDK's own in:

* `slow N`: a task that goes working, adds N artifacts `chunk 0` ... `chunk N-1` 150 ms
  apart, then completes; for streaming and subscribe/resubscribe;
* `wait`: a task that goes working and waits until it is canceled; for cancel;
* anything else: a task with one artifact `echo: <text>`, completed at once.
"""

from __future__ import annotations

import asyncio

STEP_SECONDS = 0.15


async def execute(context, event_queue, *, new_task, text_part, task_updater) -> None:
    """Echoes, streams slowly, or waits to be canceled, by message text; `new_task` makes a
    task of the user's message, `text_part` a text part, `task_updater` is the SDK's
    `TaskUpdater`."""
    text = context.get_user_input().strip()
    task = context.current_task
    if task is None:
        task = new_task(context.message)
        await event_queue.enqueue_event(task)
    updater = task_updater(event_queue, task.id, task.context_id)
    if text.startswith('slow'):
        steps = int(text.split()[1]) if len(text.split()) > 1 else 5
        await updater.start_work()
        for step in range(steps):
            await asyncio.sleep(STEP_SECONDS)
            await updater.add_artifact([text_part(f'chunk {step}')], artifact_id=f'chunk-{step}')
        await updater.complete()
    elif text == 'wait':
        await updater.start_work()
        await asyncio.Event().wait()
    else:
        await updater.add_artifact([text_part(f'echo: {text}')], artifact_id='echo')
        await updater.complete()


async def cancel(context, event_queue, *, task_updater) -> None:
    """Cancels the context's task."""
    await task_updater(event_queue, context.task_id, context.context_id).cancel()

"""Drive an A2A agent with the official Python SDK v0.3 client (`a2a-sdk` 0.3.26).

Usage: python drive_agent.py BASE_URL {jsonrpc|rest}

BASE_URL is where the agent card is served (`BASE_URL/.well-known/agent-card.json`), e.g.
the URL `a2a serve --agent conformance --push-notifications --allow-local-webhooks`
prints. The agent must behave like the conformance agent (messageId prefixes
`tck-complete-task`, `tck-stream-001`, `tck-input-required`).

Only the SDK's public v0.3 client API is used: `A2ACardResolver` reads the card (the
v0.3 members the agent serves beside `supportedInterfaces`), `ClientFactory` picks the
transport from `preferredTransport` / `additionalInterfaces`, and the resulting `Client`
sends, streams, gets, resubscribes, cancels, sets and reads a push config; a webhook on
127.0.0.1 checks the delivery is the v0.3 Task with the v0.3 token header. The API key
(`A2A_API_KEY`) rides on every request.

Prints one line per check and exits 0 when all pass, 1 on the first failure, 2 on bad
usage.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import traceback
import uuid

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    GetTaskPushNotificationConfigParams,
    Message,
    Part,
    PushNotificationConfig,
    Role,
    Task,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
    TransportProtocol,
)

BINDINGS = {'jsonrpc': TransportProtocol.jsonrpc, 'rest': TransportProtocol.http_json}
GREETING = 'Hello from TCK'
STEP_TIMEOUT = 30.0


class CheckFailed(Exception):
    """A check did not hold."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def ok(line: str) -> None:
    print(f'ok: {line}', flush=True)


def message(prefix: str, text: str, task: Task | None = None) -> Message:
    return Message(
        message_id=f'{prefix}-{uuid.uuid4()}',
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
    )


def text_of(msg: Message | None) -> str:
    if msg is None:
        return ''
    return ''.join(p.root.text for p in msg.parts if isinstance(p.root, TextPart))


class Webhook:
    """A webhook on 127.0.0.1 that records each POST's JSON body and headers."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get('Content-Length', '0'))
                body = self.rfile.read(length)
                hits.append((json.loads(body or b'null'), dict(self.headers)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}/hook'

    def close(self) -> None:
        self.server.shutdown()


async def last_task(client, msg: Message) -> Task:
    """Sends `msg` and returns the task of the last event."""
    task = None
    async for event in client.send_message(msg):
        check(isinstance(event, tuple), f'expected a task event, got {event!r}')
        task = event[0]
    check(task is not None, 'no event')
    return task


async def run(base_url: str, binding: str) -> None:
    api_key = os.environ.get('A2A_API_KEY', '')
    headers = {'X-API-Key': api_key} if api_key else None
    async with httpx.AsyncClient(headers=headers, timeout=STEP_TIMEOUT) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        check(card.url.startswith('http'), f'card url {card.url!r}')
        ok(f'card read as v0.3: {card.protocol_version} {card.preferred_transport} {card.url}')
        protocol = BINDINGS[binding]

        def client(streaming: bool):
            config = ClientConfig(
                streaming=streaming,
                httpx_client=http,
                supported_transports=[protocol],
            )
            return ClientFactory(config).create(card)

        plain = client(False)
        streaming = client(True)
        check(
            type(plain._transport).__name__.lower().startswith(binding),
            f'transport {type(plain._transport).__name__}',
        )

        task = await last_task(plain, message('tck-complete-task', 'hi'))
        check(task.status.state == TaskState.completed, f'send: {task.status.state}')
        check(text_of(task.status.message) == GREETING, f'send: {task.status.message}')
        ok('message/send completed the task with the greeting')

        events = []
        async for event in streaming.send_message(message('tck-stream-001', 'stream')):
            events.append(event)
        states = [event[0].status.state for event in events]
        check(states[-1] == TaskState.completed, f'stream states {states}')
        updates = [event[1] for event in events if event[1] is not None]
        finals = [u for u in updates if isinstance(u, TaskStatusUpdateEvent) and u.final]
        check(len(finals) == 1, f'stream: final updates {finals}')
        ok(f'message/stream: {len(events)} events, ending completed with final')

        got = await plain.get_task(TaskQueryParams(id=task.id))
        check(got.id == task.id and got.status.state == TaskState.completed, f'get: {got}')
        ok('tasks/get')

        waiting = await last_task(plain, message('tck-input-required', 'ask'))
        check(waiting.status.state == TaskState.input_required, f'{waiting.status.state}')
        ok('a task waiting for input')

        hook = Webhook()
        try:
            config = TaskPushNotificationConfig(
                task_id=waiting.id,
                push_notification_config=PushNotificationConfig(
                    id='py03', url=hook.url, token='tok-03'
                ),
            )
            set_ = await plain.set_task_callback(config)
            check(set_.push_notification_config.url == hook.url, f'set: {set_}')
            read = await plain.get_task_callback(
                GetTaskPushNotificationConfigParams(
                    id=waiting.id, push_notification_config_id='py03'
                )
            )
            check(read.push_notification_config.url == hook.url, f'get: {read}')
            check(read.push_notification_config.token == 'tok-03', f'get: {read}')
            ok('tasks/pushNotificationConfig/set and get')

            done = await last_task(plain, message('tck-complete-task', 'go on', waiting))
            check(done.status.state == TaskState.completed, f'follow-up {done.status.state}')
            for _ in range(200):
                if any(
                    body.get('status', {}).get('state') == 'completed'
                    for body, _ in hook.hits
                ):
                    break
                await asyncio.sleep(0.05)
            check(hook.hits, 'no push delivery')
            for body, hit_headers in hook.hits:
                check(body.get('kind') == 'task', f'push body {body}')
                check(body.get('id') == waiting.id, f'push body {body}')
                token = {k.lower(): v for k, v in hit_headers.items()}.get(
                    'x-a2a-notification-token'
                )
                check(token == 'tok-03', f'push token {token!r}')
            Task.model_validate(hook.hits[-1][0])
            ok(f'push: {len(hook.hits)} v0.3 Task deliveries with the token header')
        finally:
            hook.close()

        second = await last_task(plain, message('tck-input-required', 'ask again'))
        received = []

        async def follow():
            async for event in streaming.resubscribe(TaskIdParams(id=second.id)):
                received.append(event)
                update = event[1]
                if isinstance(update, TaskStatusUpdateEvent) and update.final:
                    return

        follower = asyncio.create_task(follow())
        await asyncio.sleep(0.5)
        canceled = await plain.cancel_task(TaskIdParams(id=second.id))
        check(canceled.status.state == TaskState.canceled, f'cancel: {canceled.status.state}')
        ok('tasks/cancel')
        await asyncio.wait_for(follower, STEP_TIMEOUT)
        check(received, 'resubscribe: no events')
        check(
            received[-1][0].status.state == TaskState.canceled,
            f'resubscribe ended at {received[-1][0].status.state}',
        )
        ok(f'tasks/resubscribe followed the task to canceled ({len(received)} events)')

        for what, call in [
            ('cancel of a canceled task', plain.cancel_task(TaskIdParams(id=second.id))),
            ('get of an unknown task', plain.get_task(TaskQueryParams(id='no-such-task'))),
        ]:
            try:
                await call
            except Exception as error:  # noqa: BLE001
                ok(f'{what} refused: {type(error).__name__}: {str(error)[:120]}')
            else:
                raise CheckFailed(f'{what} succeeded')

        extended = await plain.get_card()
        check(extended.name == card.name, f'extended card {extended}')
        ok(f'the extended card ({"/v1/card" if binding == "rest" else "agent/getAuthenticatedExtendedCard"})')

    print(f'all checks passed [{binding}]', flush=True)


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[2] not in BINDINGS:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        asyncio.run(run(sys.argv[1], sys.argv[2]))
    except CheckFailed as failure:
        print(f'FAILED: {failure}', flush=True)
        return 1
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""Drive an A2A agent with the official Python SDK client (`a2a-sdk` 1.3.0).

Usage: python drive_agent.py BASE_URL {jsonrpc|rest|grpc}

BASE_URL is where the agent card is served (`BASE_URL/.well-known/agent-card.json`),
e.g. the URL `a2a serve --agent conformance` prints. The agent must behave like the
conformance agent (messageId prefixes `tck-complete-task`, `tck-message-response`,
`tck-stream-001`, `tck-input-required`).

Only the SDK's public client API is used: `A2ACardResolver` resolves the card,
`ClientFactory` + `ClientConfig` pick the transport from it, and the resulting
`Client` sends, streams, gets, lists, subscribes and cancels; then it checks the errors
the SDK raises (task not found, not cancelable, push not supported) and fetches the
extended card. Over gRPC the SDK's `GrpcTransport` runs on a `grpc.aio` channel to the
card's GRPC interface, with the API key as call metadata.

Prints one line per check and exits 0 when all pass, 1 on the first failure (after
printing the recent HTTP exchanges), 2 on bad usage.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
import uuid

from collections.abc import AsyncIterator

import httpx

from google.protobuf.json_format import MessageToDict

from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.constants import TransportProtocol
from a2a.utils.errors import (
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
)


BINDINGS = {
    'jsonrpc': TransportProtocol.JSONRPC,
    'rest': TransportProtocol.HTTP_JSON,
    'grpc': TransportProtocol.GRPC,
}
GREETING = 'Hello from TCK'
STEP_TIMEOUT = 30.0  # seconds, for any single call or stream event
OPEN_GRACE = 0.5  # seconds within which a subscription to a task waiting for input ends
TRACE_LIMIT = 40  # HTTP exchanges kept for the failure report


class CheckFailed(Exception):
    """A check did not hold."""


class Trace:
    """Records the recent HTTP exchanges (httpx event hooks) for failure reports."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _add(self, line: str) -> None:
        self.lines.append(line)
        del self.lines[:-TRACE_LIMIT]

    async def on_request(self, request: httpx.Request) -> None:
        body = request.content.decode('utf-8', 'replace') if request.content else ''
        self._add(f'> {request.method} {request.url} {_clip(body)}')

    async def on_response(self, response: httpx.Response) -> None:
        ctype = response.headers.get('content-type', '')
        if 'text/event-stream' in ctype:
            self._add(f'< {response.status_code} {ctype} (SSE stream)')
            return
        await response.aread()
        self._add(f'< {response.status_code} {ctype} {_clip(response.text)}')

    def note(self, line: str) -> None:
        self._add(line)


def _clip(text: str, limit: int = 1500) -> str:
    text = text.replace('\n', ' ')
    return text if len(text) <= limit else text[:limit] + '...'


def state_name(state: int) -> str:
    return TaskState.Name(state)


def text_of(parts) -> str:
    return ''.join(p.text for p in parts if p.WhichOneof('content') == 'text')


def user_message(prefix: str, text: str, task: Task | None = None) -> Message:
    message = Message(
        message_id=f'{prefix}-{uuid.uuid4()}',
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
    )
    if task is not None:
        message.task_id = task.id
        message.context_id = task.context_id
    return message


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def check_state(task: Task, expected: int, what: str) -> None:
    check(
        task.status.state == expected,
        f'{what}: expected {state_name(expected)}, got {state_name(task.status.state)}',
    )


def check_greeting(task: Task, what: str) -> str:
    """The task's status message, checked to be the agent's greeting."""
    greeting = text_of(task.status.message.parts)
    check(
        greeting == GREETING,
        f'{what}: status message should be {GREETING!r}, got {greeting!r}',
    )
    return greeting


def describe(event: StreamResponse) -> str:
    kind = event.WhichOneof('payload')
    if kind == 'task':
        return f'task({state_name(event.task.status.state)})'
    if kind == 'status_update':
        return f'status_update({state_name(event.status_update.status.state)})'
    if kind == 'artifact_update':
        return 'artifact_update'
    if kind == 'message':
        return 'message'
    return f'<empty StreamResponse: {MessageToDict(event)}>'


class ApiKeyInterceptor:
    """Adds `x-api-key` to the metadata of every gRPC call (unary and server-streaming)."""

    def __init__(self, key: str) -> None:
        self.key = key

    def _with_key(self, details):
        metadata = list(details.metadata or []) + [('x-api-key', self.key)]
        return details._replace(metadata=metadata)


def _grpc_interceptors():
    import grpc

    class Unary(ApiKeyInterceptor, grpc.aio.UnaryUnaryClientInterceptor):
        async def intercept_unary_unary(self, continuation, details, request):
            return await continuation(self._with_key(details), request)

    class Streaming(ApiKeyInterceptor, grpc.aio.UnaryStreamClientInterceptor):
        async def intercept_unary_stream(self, continuation, details, request):
            return await continuation(self._with_key(details), request)

    return Unary, Streaming


class Driver:
    def __init__(self, base_url: str, binding: str) -> None:
        self.base_url = base_url
        self.binding = binding
        self.protocol = BINDINGS[binding]
        self.trace = Trace()
        # The agent authenticates callers: the key from A2A_API_KEY rides on every request
        # the SDK makes, in the header the agent's card names.
        api_key = os.environ.get('A2A_API_KEY', '')
        self.api_key = api_key
        self.http = httpx.AsyncClient(
            headers={'X-API-Key': api_key} if api_key else None,
            timeout=httpx.Timeout(STEP_TIMEOUT),
            event_hooks={
                'request': [self.trace.on_request],
                'response': [self.trace.on_response],
            },
        )
        self.card: AgentCard | None = None
        self.client: Client | None = None  # non-streaming: message:send / SendMessage
        self.streaming: Client | None = None  # message:stream, subscribe

    def ok(self, what: str) -> None:
        print(f'ok   [{self.binding}] {what}', flush=True)

    async def close(self) -> None:
        for client in (self.client, self.streaming):
            if client is not None:
                await client.close()
        await self.http.aclose()

    # -- helpers -----------------------------------------------------------------

    async def send(self, message: Message) -> StreamResponse:
        """Non-streaming send; the SDK hands back exactly one StreamResponse."""
        assert self.client is not None
        responses = [
            r
            async for r in self.client.send_message(
                SendMessageRequest(message=message)
            )
        ]
        check(
            len(responses) == 1,
            f'non-streaming send yielded {len(responses)} responses, expected 1',
        )
        return responses[0]

    async def send_for_task(self, message: Message) -> Task:
        response = await self.send(message)
        check(
            response.HasField('task'),
            f'send {message.message_id}: expected a Task, got '
            f'{MessageToDict(response)}',
        )
        return response.task

    async def next_event(
        self, stream: AsyncIterator[StreamResponse], what: str
    ) -> StreamResponse | None:
        try:
            event = await asyncio.wait_for(anext(stream), STEP_TIMEOUT)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            raise CheckFailed(
                f'{what}: no event within {STEP_TIMEOUT:.0f}s'
            ) from None
        self.trace.note(f'  SSE event: {_clip(str(MessageToDict(event)))}')
        return event

    async def rest_of(
        self, stream: AsyncIterator[StreamResponse], what: str
    ) -> list[StreamResponse]:
        """Reads a stream to its end."""
        events = []
        while (event := await self.next_event(stream, what)) is not None:
            events.append(event)
        return events

    # -- checks ------------------------------------------------------------------

    async def resolve_card(self) -> None:
        resolver = A2ACardResolver(self.http, self.base_url)
        card = await resolver.get_agent_card()
        bindings = [i.protocol_binding for i in card.supported_interfaces]
        check(
            TransportProtocol.JSONRPC in bindings
            and TransportProtocol.HTTP_JSON in bindings,
            f'card must declare JSONRPC and HTTP+JSON interfaces, has {bindings}',
        )
        check(
            card.capabilities.streaming,
            'card must declare capabilities.streaming = true',
        )
        self.card = card
        chosen = next(
            i for i in card.supported_interfaces if i.protocol_binding == self.protocol
        )
        self.ok(
            f'card {card.name!r} resolved: interfaces {bindings}, streaming; '
            f'{self.protocol.value} at {chosen.url} '
            f'(protocolVersion {chosen.protocol_version or "unset"})'
        )

    def create_clients(self) -> None:
        assert self.card is not None
        for streaming in (False, True):
            factory = ClientFactory(
                ClientConfig(
                    streaming=streaming,
                    supported_protocol_bindings=[self.protocol],
                    httpx_client=self.http,
                    grpc_channel_factory=self.grpc_channel,
                )
            )
            client = factory.create(self.card)
            if streaming:
                self.streaming = client
            else:
                self.client = client
        self.ok(f'clients created for {self.protocol.value}')

    def grpc_channel(self, url: str):
        """A plain-text channel to the card's GRPC interface (`host:port`, or an
        `http://` URL), presenting the API key as call metadata."""
        import grpc

        target = url.removeprefix('http://').rstrip('/')
        key = self.api_key
        unary, streaming = _grpc_interceptors()
        interceptors = [unary(key), streaming(key)] if key else []
        return grpc.aio.insecure_channel(target, interceptors=interceptors)

    async def send_complete_task(self) -> Task:
        message = user_message('tck-complete-task', 'hello')
        task = await self.send_for_task(message)
        check_state(task, TaskState.TASK_STATE_COMPLETED, 'tck-complete-task')
        greeting = check_greeting(task, 'tck-complete-task')
        check(bool(task.id), 'tck-complete-task: task has no id')
        check(bool(task.context_id), 'tck-complete-task: task has no contextId')
        self.ok(f'send tck-complete-task -> COMPLETED {greeting!r} (task {task.id})')
        return task

    async def send_message_response(self) -> None:
        message = user_message('tck-message-response', 'hello')
        response = await self.send(message)
        check(
            response.HasField('message'),
            f'tck-message-response: expected a Message, got '
            f'{MessageToDict(response)}',
        )
        reply = response.message
        check(
            reply.role == Role.ROLE_AGENT,
            f'tck-message-response: reply role should be ROLE_AGENT, got '
            f'{Role.Name(reply.role)}',
        )
        check(bool(reply.message_id), 'tck-message-response: reply has no messageId')
        self.ok(f'send tck-message-response -> Message {text_of(reply.parts)!r}')

    async def stream(self) -> tuple[str, str]:
        """Streams tck-stream-001; returns (task id, artifact text)."""
        assert self.streaming is not None
        message = user_message('tck-stream-001', 'stream please')
        stream = self.streaming.send_message(SendMessageRequest(message=message))
        events = await self.rest_of(stream, 'stream tck-stream-001')
        seen = ', '.join(describe(e) for e in events) or 'nothing'
        check(events, 'stream tck-stream-001: no events')

        first = events[0]
        check(
            first.HasField('task'),
            f'stream tck-stream-001: first event must be the Task, got [{seen}]',
        )
        task_id = first.task.id

        working = artifact = completed = None
        for index, event in enumerate(events):
            kind = event.WhichOneof('payload')
            check(
                kind != 'message',
                f'stream tck-stream-001: unexpected Message event in [{seen}]',
            )
            event_task_id = {
                'task': lambda e: e.task.id,
                'status_update': lambda e: e.status_update.task_id,
                'artifact_update': lambda e: e.artifact_update.task_id,
            }[kind](event)
            check(
                event_task_id == task_id,
                f'stream tck-stream-001: event {index} ({describe(event)}) is for '
                f'task {event_task_id!r}, not {task_id!r}',
            )
            state = None
            if kind == 'task':
                state = event.task.status.state
            elif kind == 'status_update':
                state = event.status_update.status.state
            else:
                if artifact is None:
                    artifact = index
            if state == TaskState.TASK_STATE_WORKING and working is None:
                working = index
            if state == TaskState.TASK_STATE_COMPLETED and completed is None:
                completed = index

        check(
            working is not None,
            f'stream tck-stream-001: no WORKING state in [{seen}]',
        )
        check(
            artifact is not None,
            f'stream tck-stream-001: no artifact_update in [{seen}]',
        )
        check(
            completed is not None,
            f'stream tck-stream-001: no COMPLETED state in [{seen}]',
        )
        check(
            working < artifact < completed,
            f'stream tck-stream-001: expected WORKING, then the artifact, then '
            f'COMPLETED, got [{seen}]',
        )
        check(
            completed == len(events) - 1
            and events[-1].HasField('status_update'),
            f'stream tck-stream-001: the stream must end with the COMPLETED '
            f'status_update, got [{seen}]',
        )
        artifact_text = text_of(events[artifact].artifact_update.artifact.parts)
        check(
            bool(artifact_text),
            'stream tck-stream-001: the artifact has no text part: '
            f'{MessageToDict(events[artifact].artifact_update)}',
        )
        self.ok(f'stream tck-stream-001 -> [{seen}] (artifact {artifact_text!r})')
        return task_id, artifact_text

    async def get(self, completed: Task, streamed_id: str, artifact_text: str) -> None:
        assert self.client is not None
        task = await self.client.get_task(GetTaskRequest(id=completed.id))
        check(
            task.id == completed.id,
            f'get task {completed.id}: got task {task.id!r}',
        )
        check_state(task, TaskState.TASK_STATE_COMPLETED, f'get task {completed.id}')
        check_greeting(task, f'get task {completed.id}')
        self.ok(f'get task {task.id} -> COMPLETED {GREETING!r}')

        streamed = await self.client.get_task(GetTaskRequest(id=streamed_id))
        check_state(
            streamed, TaskState.TASK_STATE_COMPLETED, f'get streamed task {streamed_id}'
        )
        texts = [text_of(a.parts) for a in streamed.artifacts]
        check(
            artifact_text in texts,
            f'get streamed task {streamed_id}: artifacts {texts} lack the streamed '
            f'artifact {artifact_text!r}',
        )
        self.ok(f'get streamed task {streamed_id} -> COMPLETED with its artifact')

    async def list_tasks(self, expected: list[Task]) -> None:
        assert self.client is not None
        listed = await self.client.list_tasks(ListTasksRequest())
        ids = [t.id for t in listed.tasks]
        for task in expected:
            check(
                task.id in ids,
                f'list tasks: task {task.id} missing from {ids}',
            )
        by_context = await self.client.list_tasks(
            ListTasksRequest(context_id=expected[0].context_id)
        )
        ctx_ids = [t.id for t in by_context.tasks]
        check(
            expected[0].id in ctx_ids,
            f'list tasks contextId={expected[0].context_id}: task {expected[0].id} '
            f'missing from {ctx_ids}',
        )
        check(
            all(t.context_id == expected[0].context_id for t in by_context.tasks),
            f'list tasks contextId={expected[0].context_id}: returned tasks of other '
            f'contexts: {[t.context_id for t in by_context.tasks]}',
        )
        self.ok(
            f'list tasks -> {len(ids)} tasks, contains ours; filtered by contextId '
            f'-> {len(ctx_ids)}'
        )

    async def input_required(self) -> Task:
        task = await self.send_for_task(user_message('tck-input-required', 'ask me'))
        check_state(task, TaskState.TASK_STATE_INPUT_REQUIRED, 'tck-input-required')
        self.ok(f'send tck-input-required -> INPUT_REQUIRED (task {task.id})')
        return task

    async def subscribe_and_cancel(self, task: Task) -> None:
        assert self.client is not None and self.streaming is not None
        stream = self.streaming.subscribe(SubscribeToTaskRequest(id=task.id))
        pending: asyncio.Future[StreamResponse | None] | None = None
        try:
            first = await self.next_event(stream, f'subscribe {task.id}')
            check(first is not None, f'subscribe {task.id}: stream ended at once')
            check(
                first.HasField('task'),
                f'subscribe {task.id}: first event must be the Task snapshot, got '
                f'{describe(first)}',
            )
            check(
                first.task.id == task.id
                and first.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
                f'subscribe {task.id}: snapshot should be task {task.id} in '
                f'INPUT_REQUIRED, got {first.task.id} in '
                f'{state_name(first.task.status.state)}',
            )
            self.ok(f'subscribe {task.id} -> snapshot task(INPUT_REQUIRED)')

            # A subscription stays open until the task is terminal, across INPUT_REQUIRED
            # (what the official SDKs' servers do): nothing more arrives while the task
            # waits for input...
            pending = asyncio.ensure_future(
                self.next_event(stream, f'subscribe {task.id}')
            )
            await asyncio.wait({pending}, timeout=OPEN_GRACE)
            check(
                not pending.done(),
                f'subscribe {task.id}: a task waiting for input should keep its '
                'subscription open until it is terminal, but the stream ended or sent more',
            )
            self.ok(f'subscribe {task.id} -> stream stays open while INPUT_REQUIRED')

            # ...and a cancel from another request ends it with the terminal status.
            canceled = await self.client.cancel_task(CancelTaskRequest(id=task.id))
            check(
                canceled.id == task.id
                and canceled.status.state == TaskState.TASK_STATE_CANCELED,
                f'cancel {task.id}: expected task {task.id} in TASK_STATE_CANCELED, '
                f'got {canceled.id} in {state_name(canceled.status.state)}',
            )
            self.ok(f'cancel {task.id} -> CANCELED')
            last = await pending
            check(
                last is not None
                and last.HasField('status_update')
                and last.status_update.status.state == TaskState.TASK_STATE_CANCELED,
                f'subscribe {task.id}: expected the CANCELED status event, got '
                f'{describe(last) if last is not None else "the end of the stream"}',
            )
            ended = await self.next_event(stream, f'subscribe {task.id}')
            check(
                ended is None,
                f'subscribe {task.id}: the stream should end after the terminal status, '
                f'got {describe(ended) if ended is not None else ""}',
            )
            self.ok(f'subscribe {task.id} -> status(CANCELED), then the end')
        finally:
            if pending is not None and not pending.done():
                pending.cancel()
                await asyncio.gather(pending, return_exceptions=True)
            await stream.aclose()

        fetched = await self.client.get_task(GetTaskRequest(id=task.id))
        check_state(
            fetched, TaskState.TASK_STATE_CANCELED, f'get task {task.id} after cancel'
        )
        self.ok(f'get task {task.id} -> CANCELED')

    async def follow_up(self) -> None:
        task = await self.input_required()
        reply = user_message('tck-complete-task', 'here is more', task=task)
        done = await self.send_for_task(reply)
        check(
            done.id == task.id,
            f'follow-up to {task.id}: answered for task {done.id!r}',
        )
        check_state(done, TaskState.TASK_STATE_COMPLETED, f'follow-up to {task.id}')
        greeting = check_greeting(done, f'follow-up to {task.id}')
        self.ok(f'follow-up tck-complete-task to {task.id} -> COMPLETED {greeting!r}')

    async def errors_and_extras(self, completed: Task) -> None:
        """The errors the SDK raises from the agent's answers, and the extended card."""
        assert self.client is not None
        try:
            await self.client.get_task(GetTaskRequest(id=f'no-such-task-{uuid.uuid4()}'))
            raise CheckFailed('get of an unknown task should fail with TaskNotFoundError')
        except TaskNotFoundError:
            self.ok('get of an unknown task -> TaskNotFoundError')
        try:
            await self.client.cancel_task(CancelTaskRequest(id=completed.id))
            raise CheckFailed('cancel of a completed task should fail')
        except TaskNotCancelableError:
            self.ok(f'cancel of completed task {completed.id} -> TaskNotCancelableError')
        try:
            await self.client.create_task_push_notification_config(
                TaskPushNotificationConfig(
                    task_id=completed.id, url='https://hooks.example.com/a2a'
                )
            )
            raise CheckFailed('a push config on an agent without push should fail')
        except PushNotificationNotSupportedError:
            self.ok('create push config -> PushNotificationNotSupportedError')
        extended = await self.client.get_extended_agent_card(GetExtendedAgentCardRequest())
        skills = [skill.id for skill in extended.skills]
        check(
            'tck-extended' in skills,
            f'extended card: expected the skill tck-extended, got {skills}',
        )
        self.ok(f'extended card -> skills {skills}')

    async def run(self) -> None:
        await self.resolve_card()
        self.create_clients()
        completed = await self.send_complete_task()
        await self.send_message_response()
        streamed_id, artifact_text = await self.stream()
        await self.get(completed, streamed_id, artifact_text)
        waiting = await self.input_required()
        await self.list_tasks([completed, waiting])
        await self.subscribe_and_cancel(waiting)
        await self.follow_up()
        await self.errors_and_extras(completed)


async def main(base_url: str, binding: str) -> int:
    driver = Driver(base_url, binding)
    try:
        await driver.run()
    except Exception as error:  # noqa: BLE001 - report anything, then fail
        if isinstance(error, CheckFailed):
            print(f'FAIL [{binding}] {error}', flush=True)
        else:
            print(
                f'FAIL [{binding}] {type(error).__name__}: {error}\n'
                + ''.join(traceback.format_exception(error)),
                flush=True,
            )
        print(f'recent HTTP exchanges ({binding}):', flush=True)
        for line in driver.trace.lines:
            print(f'  {line}', flush=True)
        return 1
    finally:
        await driver.close()
    print(f'all checks passed [{binding}]', flush=True)
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[2] not in BINDINGS:
        print(
            f'usage: {sys.argv[0]} BASE_URL {{{"|".join(BINDINGS)}}}',
            file=sys.stderr,
        )
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1].rstrip('/'), sys.argv[2])))

"""An A2A v0.3 agent on the official Python SDK 0.3.26, for our client's v0.3 interop tests.

Usage: python serve_agent.py PORT [PREFERRED]

Serves, on 127.0.0.1:PORT (0 picks a free port), with the SDK's own v0.3 server apps and
its `DefaultRequestHandler` (in-memory task and push config stores):

* JSON-RPC at /jsonrpc (`A2AStarletteApplication`'s routes);
* REST at /rest (`A2ARESTFastAPIApplication`: /rest/v1/message:send, …);
* a v0.3 agent card at /.well-known/agent-card.json: `protocolVersion` 0.3.0, `url` and
  `preferredTransport` for PREFERRED (`JSONRPC`, the default, or `HTTP+JSON`), both
  interfaces in `additionalInterfaces`, streaming and push notifications on, and an
  authenticated extended card (named "Python v0.3 agent (extended)").

Then prints `ready http://127.0.0.1:PORT` on one line.

What the agent does depends on the message text:

* `slow N`: a task that goes working, adds N artifacts `chunk 0` ... `chunk N-1` 150 ms
  apart, then completes; for streaming and resubscribe;
* `wait`: a task that goes working and waits until it is canceled; for cancel;
* anything else: a task with one artifact `echo: <text>`, completed at once.

The `http-server` extra brings Starlette and FastAPI but no ASGI server, so the small
HTTP/1.1 server of crates/a2a-client/tests/interop/python/echo_agent.py is repeated below
(that script needs SDK 1.x and cannot be imported here).
"""

from __future__ import annotations

import asyncio
import sys
import urllib.parse

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryPushNotificationConfigStore, InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TextPart,
)
from a2a.utils import new_task


STEP_SECONDS = 0.15


def text_part(text: str) -> Part:
    return Part(root=TextPart(text=text))


class EchoExecutor(AgentExecutor):
    """Echoes, streams slowly, or waits to be canceled, by message text."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        task = context.current_task
        if task is None:
            task = new_task(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
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

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def build_app(port: int, preferred: str):
    base = f'http://127.0.0.1:{port}'
    urls = {'JSONRPC': f'{base}/jsonrpc', 'HTTP+JSON': f'{base}/rest'}
    card = AgentCard(
        name='Python v0.3 agent',
        description='Echoes messages; streams slowly; waits to be canceled.',
        url=urls[preferred],
        preferred_transport=preferred,
        additional_interfaces=[
            AgentInterface(url=urls['JSONRPC'], transport='JSONRPC'),
            AgentInterface(url=urls['HTTP+JSON'], transport='HTTP+JSON'),
        ],
        protocol_version='0.3.0',
        version='1.0.0',
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='echo', name='Echo', description='Echoes the message', tags=['echo'])],
        supports_authenticated_extended_card=True,
    )
    extended = card.model_copy(update={'name': 'Python v0.3 agent (extended)'})
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(),
        task_store=InMemoryTaskStore(),
        push_config_store=InMemoryPushNotificationConfigStore(),
    )
    app = A2ARESTFastAPIApplication(
        agent_card=card, http_handler=handler, extended_agent_card=extended
    ).build(rpc_url='/rest')
    A2AStarletteApplication(
        agent_card=card, http_handler=handler, extended_agent_card=extended
    ).add_routes_to_app(app, rpc_url='/jsonrpc')
    return app


# ---- A minimal HTTP/1.1 server for one ASGI app ----


class Connection:
    """One client connection: requests in turn, each answered by the app."""

    def __init__(self, app, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.app = app
        self.reader = reader
        self.writer = writer
        self.stash = b''
        self.closed = False

    async def read_exactly(self, count: int) -> bytes:
        data, self.stash = self.stash[:count], self.stash[count:]
        if len(data) < count:
            data += await self.reader.readexactly(count - len(data))
        return data

    async def read_head(self) -> bytes | None:
        while b'\r\n\r\n' not in self.stash:
            chunk = await self.reader.read(65536)
            if not chunk:
                return None
            self.stash += chunk
        head, self.stash = self.stash.split(b'\r\n\r\n', 1)
        return head

    async def serve(self) -> None:
        try:
            while not self.closed:
                head = await self.read_head()
                if head is None:
                    return
                keep_alive = await self.handle(head)
                if not keep_alive:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        except Exception as error:  # noqa: BLE001 - report and drop the connection
            print(f'connection error: {error!r}', file=sys.stderr, flush=True)
        finally:
            self.writer.close()

    async def handle(self, head: bytes) -> bool:
        lines = head.decode('latin-1').split('\r\n')
        method, target, _version = lines[0].split(' ', 2)
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(':')
            headers.append((name.strip().lower().encode('latin-1'), value.strip().encode('latin-1')))
        length = int(next((v for n, v in headers if n == b'content-length'), b'0') or 0)
        body = await self.read_exactly(length) if length else b''
        raw_path, _, query = target.partition('?')
        scope = {
            'type': 'http',
            'asgi': {'version': '3.0', 'spec_version': '2.3'},
            'http_version': '1.1',
            'method': method,
            'scheme': 'http',
            'path': urllib.parse.unquote(raw_path),
            'raw_path': raw_path.encode('latin-1'),
            'query_string': query.encode('latin-1'),
            'root_path': '',
            'headers': headers,
            'client': self.writer.get_extra_info('peername'),
            'server': self.writer.get_extra_info('sockname'),
        }
        disconnected = asyncio.Event()
        request_sent = False
        response = {'started': False, 'chunked': False, 'done': False}

        async def watch() -> None:
            # Nothing more arrives while a response is being written, except the end.
            chunk = await self.reader.read(65536)
            if chunk:
                self.stash += chunk
            else:
                disconnected.set()

        watcher = asyncio.ensure_future(watch())

        async def receive():
            nonlocal request_sent
            if not request_sent:
                request_sent = True
                return {'type': 'http.request', 'body': body, 'more_body': False}
            await disconnected.wait()
            return {'type': 'http.disconnect'}

        async def send(message) -> None:
            if disconnected.is_set():
                raise ConnectionResetError('client went away')
            try:
                if message['type'] == 'http.response.start':
                    out_headers = list(message.get('headers', []))
                    names = {name.lower() for name, _ in out_headers}
                    if b'content-length' not in names:
                        out_headers.append((b'transfer-encoding', b'chunked'))
                        response['chunked'] = True
                    status = message['status']
                    text = f'HTTP/1.1 {status} X\r\n'.encode('latin-1')
                    text += b''.join(name + b': ' + value + b'\r\n' for name, value in out_headers)
                    self.writer.write(text + b'\r\n')
                    response['started'] = True
                elif message['type'] == 'http.response.body':
                    data = message.get('body', b'')
                    more = message.get('more_body', False)
                    if response['chunked']:
                        if data:
                            self.writer.write(f'{len(data):x}\r\n'.encode() + data + b'\r\n')
                        if not more:
                            self.writer.write(b'0\r\n\r\n')
                    else:
                        self.writer.write(data)
                    if not more:
                        response['done'] = True
                await self.writer.drain()
            except ConnectionError:
                disconnected.set()
                raise

        try:
            await self.app(scope, receive, send)
        except Exception as error:  # noqa: BLE001 - report and drop the connection
            print(f'app error: {error!r}', file=sys.stderr, flush=True)
        finally:
            # Wait until the watcher has really stopped reading, or the next read of this
            # connection would find the reader still busy.
            watcher.cancel()
            try:
                await watcher
            except asyncio.CancelledError:
                pass
        return response['done'] and not disconnected.is_set()


async def main() -> None:
    if len(sys.argv) not in (2, 3):
        print('usage: serve_agent.py PORT [JSONRPC|HTTP+JSON]', file=sys.stderr)
        sys.exit(2)
    requested = int(sys.argv[1])
    preferred = sys.argv[2] if len(sys.argv) == 3 else 'JSONRPC'
    app_holder = {}

    async def on_connect(reader, writer):
        await Connection(app_holder['app'], reader, writer).serve()

    server = await asyncio.start_server(on_connect, '127.0.0.1', requested)
    port = server.sockets[0].getsockname()[1]
    app_holder['app'] = build_app(port, preferred)
    print(f'ready http://127.0.0.1:{port}', flush=True)
    async with server:
        await server.serve_forever()


if __name__ == '__main__':
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass

"""An echo agent on the official Python SDK (`a2a-sdk` 1.3.0), for the a2a-client interop tests.

Usage: python echo_agent.py PORT [GRPC_PORT]

Serves, on 127.0.0.1:PORT (0 picks a free port):

* the agent card at /.well-known/agent-card.json, naming a JSONRPC interface at /a2a/jsonrpc
  and an HTTP+JSON interface at /a2a/rest, streaming on;
* both interfaces, through the SDK's own routes (`create_jsonrpc_routes`,
  `create_rest_routes`) and its `DefaultRequestHandler` with an in-memory task store;
* with GRPC_PORT (0 picks a free port), the gRPC binding too, through the SDK's
  `GrpcHandler` on a `grpc.aio` server at 127.0.0.1:GRPC_PORT, named last in the card as a
  GRPC interface `127.0.0.1:GRPC_PORT`.

Then prints `ready http://127.0.0.1:PORT` on one line.

What the agent does depends on the message text:

* `slow N`: a task that goes WORKING, adds N artifacts `chunk 0` … `chunk N-1` 150 ms apart,
  then COMPLETES; for streaming and SubscribeToTask;
* `wait`: a task that goes WORKING and waits until it is canceled; for CancelTask;
* anything else: a task with one artifact `echo: <text>`, COMPLETED at once.

The `http-server` extra brings Starlette but no ASGI server, and CI installs nothing else,
so a small HTTP/1.1 server for ASGI apps is below: keep-alive, Content-Length request bodies,
chunked streaming responses, and `http.disconnect` when the client goes away.
"""

from __future__ import annotations

import asyncio
import sys
import urllib.parse

from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette


STEP_SECONDS = 0.15


class EchoExecutor(AgentExecutor):
    """Echoes, streams slowly, or waits to be canceled, by message text."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if text.startswith('slow'):
            steps = int(text.split()[1]) if len(text.split()) > 1 else 5
            await updater.start_work()
            for step in range(steps):
                await asyncio.sleep(STEP_SECONDS)
                await updater.add_artifact(
                    [new_text_part(f'chunk {step}')], artifact_id=f'chunk-{step}'
                )
            await updater.complete()
        elif text == 'wait':
            await updater.start_work()
            await asyncio.Event().wait()
        else:
            await updater.add_artifact([new_text_part(f'echo: {text}')], artifact_id='echo')
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def build_app(port: int, grpc_port: int | None) -> tuple[Starlette, DefaultRequestHandler]:
    base = f'http://127.0.0.1:{port}'
    interfaces = [
        AgentInterface(url=f'{base}/a2a/jsonrpc', protocol_binding='JSONRPC', protocol_version='1.0'),
        AgentInterface(url=f'{base}/a2a/rest', protocol_binding='HTTP+JSON', protocol_version='1.0'),
    ]
    if grpc_port is not None:
        interfaces.append(
            AgentInterface(url=f'127.0.0.1:{grpc_port}', protocol_binding='GRPC', protocol_version='1.0')
        )
    card = AgentCard(
        name='Python echo agent',
        description='Echoes messages; streams slowly; waits to be canceled.',
        version='1.0.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='echo', name='Echo', description='Echoes the message', tags=['echo'])],
    )
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
    )
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, '/a2a/jsonrpc'),
        *create_rest_routes(handler, path_prefix='/a2a/rest'),
    ]
    return Starlette(routes=routes), handler


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
        print('usage: echo_agent.py PORT [GRPC_PORT]', file=sys.stderr)
        sys.exit(2)
    requested = int(sys.argv[1])
    app_holder = {}

    async def on_connect(reader, writer):
        await Connection(app_holder['app'], reader, writer).serve()

    server = await asyncio.start_server(on_connect, '127.0.0.1', requested)
    port = server.sockets[0].getsockname()[1]
    grpc_server = None
    grpc_port = None
    if len(sys.argv) == 3:
        import grpc

        from a2a.server.request_handlers.grpc_handler import GrpcHandler
        from a2a.types import a2a_pb2_grpc

        grpc_server = grpc.aio.server()
        grpc_port = grpc_server.add_insecure_port(f'127.0.0.1:{int(sys.argv[2])}')
    app_holder['app'], handler = build_app(port, grpc_port)
    if grpc_server is not None:
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
        await grpc_server.start()
    print(f'ready http://127.0.0.1:{port}', flush=True)
    async with server:
        await server.serve_forever()


if __name__ == '__main__':
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass

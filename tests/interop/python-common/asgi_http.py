"""A minimal HTTP/1.1 server for one ASGI app, for the interop agents on the official Python SDK.

The SDK's `http-server` extra brings Starlette (and FastAPI) but no ASGI server, and CI
installs nothing else, so this is enough of one: keep-alive, Content-Length request bodies,
chunked streaming responses, and `http.disconnect` when the client goes away. It imports
nothing from the SDK, so the v1.0 agent (crates/a2a-client/tests/interop/python/echo_agent.py)
and the v0.3 one (tests/interop/python03/serve_agent.py), each on its own SDK version, share it:
each puts this folder on `sys.path` and calls `start_server`.
"""

from __future__ import annotations

import asyncio
import sys
import urllib.parse


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


async def start_server(requested: int, app_holder: dict) -> tuple[asyncio.Server, int]:
    """Listens on 127.0.0.1:`requested` (0: any free port), serving `app_holder['app']`,
    which may be set once the port is known; returns the server and its port."""

    async def on_connect(reader, writer):
        await Connection(app_holder['app'], reader, writer).serve()

    server = await asyncio.start_server(on_connect, '127.0.0.1', requested)
    return server, server.sockets[0].getsockname()[1]

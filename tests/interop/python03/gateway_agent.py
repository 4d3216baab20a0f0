"""A v0.3-only A2A agent on the official Python SDK 0.3.26, for the gateway's translation
tests (crates/a2a-cli/tests/gateway_versions.rs): a v1.0 caller reaches it through
`a2a gateway`, which translates.

Usage: python gateway_agent.py PORT

Serves on 127.0.0.1:PORT (0: any free port) the SDK's v0.3 JSON-RPC app at `/` and its
v0.3 card (`protocolVersion` 0.3.0, `url`, `preferredTransport` JSONRPC, no
`supportedInterfaces`) at /.well-known/agent-card.json, then prints `ready URL`.

The agent answers every message with a completed task holding one artifact `echo: TEXT`;
a message `steps N` streams N artifact updates `step 0` … `step N-1`, 100 ms apart, before
completing. Unknown task ids get the SDK's own v0.3 errors.

The `http-server` extra brings Starlette but no ASGI server: a small one on h11 (an
httpx dependency, so always in the virtualenv) serves the app below.
"""

from __future__ import annotations

import asyncio
import sys

import h11

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, Part, TextPart
from a2a.utils import new_task


class StepsExecutor(AgentExecutor):
    """Echoes the text, or streams `steps N` as N artifact updates."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        task = context.current_task or new_task(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        words = text.split()
        if len(words) == 2 and words[0] == 'steps' and words[1].isdigit():
            await updater.start_work()
            for step in range(int(words[1])):
                await asyncio.sleep(0.1)
                await updater.add_artifact(
                    [Part(root=TextPart(text=f'step {step}'))], artifact_id=f'step-{step}'
                )
        else:
            await updater.add_artifact([Part(root=TextPart(text=f'echo: {text}'))])
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def app_for(url: str):
    card = AgentCard(
        name='Python v0.3 gateway agent',
        description='Echoes messages, or streams steps.',
        url=url,
        preferred_transport='JSONRPC',
        protocol_version='0.3.0',
        version='1.0.0',
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='echo', name='Echo', description='Echoes', tags=['echo'])],
    )
    handler = DefaultRequestHandler(agent_executor=StepsExecutor(), task_store=InMemoryTaskStore())
    return A2AStarletteApplication(agent_card=card, http_handler=handler).build(rpc_url='/')


async def serve_connection(app, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
    """Requests of one connection in turn, each run through the ASGI app."""
    conn = h11.Connection(h11.SERVER)

    async def next_event():
        while True:
            event = conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            conn.receive_data(await reader.read(65536))

    try:
        while True:
            request = await next_event()
            if not isinstance(request, h11.Request):
                return
            body = b''
            while True:
                event = await next_event()
                if isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    break
                else:
                    return
            path, _, query = request.target.decode('latin-1').partition('?')
            scope = {
                'type': 'http', 'asgi': {'version': '3.0'}, 'http_version': '1.1',
                'method': request.method.decode(), 'scheme': 'http', 'path': path,
                'raw_path': path.encode(), 'query_string': query.encode(), 'root_path': '',
                'headers': [(name.lower(), value) for name, value in request.headers],
                'client': writer.get_extra_info('peername'),
                'server': writer.get_extra_info('sockname'),
            }
            delivered = False
            gone = asyncio.Event()

            async def receive():
                nonlocal delivered
                if not delivered:
                    delivered = True
                    return {'type': 'http.request', 'body': body, 'more_body': False}
                await gone.wait()
                return {'type': 'http.disconnect'}

            async def send(message):
                if message['type'] == 'http.response.start':
                    headers = list(message.get('headers', []))
                    if not any(name.lower() == b'content-length' for name, _ in headers):
                        headers.append((b'transfer-encoding', b'chunked'))
                    out = conn.send(h11.Response(status_code=message['status'], headers=headers))
                elif message['type'] == 'http.response.body':
                    out = conn.send(h11.Data(data=message.get('body', b''))) if message.get('body') else b''
                    if not message.get('more_body', False):
                        out += conn.send(h11.EndOfMessage())
                else:
                    return
                try:
                    writer.write(out)
                    await writer.drain()
                except ConnectionError:
                    gone.set()
                    raise

            await app(scope, receive, send)
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return
            conn.start_next_cycle()
    except (ConnectionError, h11.ProtocolError):
        return
    finally:
        writer.close()


async def main() -> None:
    if len(sys.argv) != 2:
        print('usage: gateway_agent.py PORT', file=sys.stderr)
        sys.exit(2)
    holder = {}
    server = await asyncio.start_server(
        lambda reader, writer: serve_connection(holder['app'], reader, writer),
        '127.0.0.1',
        int(sys.argv[1]),
    )
    url = f'http://127.0.0.1:{server.sockets[0].getsockname()[1]}/'
    holder['app'] = app_for(url)
    print(f'ready {url}', flush=True)
    async with server:
        await server.serve_forever()


if __name__ == '__main__':
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass

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
so the app is served by the small HTTP/1.1 server in tests/interop/python-common/asgi_http.py,
which the v0.3 agent shares; what the agent does is in echo_behaviour.py beside it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

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

# The SDK-free helpers both Python SDK agents share, in tests/interop/python-common.
sys.path.insert(0, str(Path(__file__).resolve().parents[5] / 'tests/interop/python-common'))
import asgi_http  # noqa: E402
import echo_behaviour  # noqa: E402


class EchoExecutor(AgentExecutor):
    """Echoes, streams slowly, or waits to be canceled, by message text."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await echo_behaviour.execute(
            context,
            event_queue,
            new_task=new_task_from_user_message,
            text_part=new_text_part,
            task_updater=TaskUpdater,
        )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await echo_behaviour.cancel(context, event_queue, task_updater=TaskUpdater)


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


async def main() -> None:
    if len(sys.argv) not in (2, 3):
        print('usage: echo_agent.py PORT [GRPC_PORT]', file=sys.stderr)
        sys.exit(2)
    requested = int(sys.argv[1])
    app_holder = {}
    server, port = await asgi_http.start_server(requested, app_holder)
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

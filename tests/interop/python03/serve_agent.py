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

The `http-server` extra brings Starlette and FastAPI but no ASGI server, so the app is served
by the small HTTP/1.1 server in tests/interop/python-common/asgi_http.py, which imports no SDK
and so serves the v1.0 echo agent too; what the agent does is in echo_behaviour.py beside it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

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

# The SDK-free helpers both Python SDK agents share, in tests/interop/python-common.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'python-common'))
import asgi_http  # noqa: E402
import echo_behaviour  # noqa: E402


def text_part(text: str) -> Part:
    return Part(root=TextPart(text=text))


class EchoExecutor(AgentExecutor):
    """Echoes, streams slowly, or waits to be canceled, by message text."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await echo_behaviour.execute(
            context, event_queue, new_task=new_task, text_part=text_part, task_updater=TaskUpdater
        )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await echo_behaviour.cancel(context, event_queue, task_updater=TaskUpdater)


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


async def main() -> None:
    if len(sys.argv) not in (2, 3):
        print('usage: serve_agent.py PORT [JSONRPC|HTTP+JSON]', file=sys.stderr)
        sys.exit(2)
    requested = int(sys.argv[1])
    preferred = sys.argv[2] if len(sys.argv) == 3 else 'JSONRPC'
    app_holder = {}
    server, port = await asgi_http.start_server(requested, app_holder)
    app_holder['app'] = build_app(port, preferred)
    print(f'ready http://127.0.0.1:{port}', flush=True)
    async with server:
        await server.serve_forever()


if __name__ == '__main__':
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass

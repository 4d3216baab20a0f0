"""An MCP host made with the official MCP Python SDK, driving `a2a mcp`.

    host.py stdio A2A_BIN TCK_URL ECHO_URL     # starts `a2a mcp` itself, over stdio
    host.py http MCP_URL                       # an `a2a mcp --listen` already serving
    host.py gateway A2A_BIN GATEWAY_URL        # `a2a mcp --gateway`; an agent comes and goes

The agents are `a2a serve --agent conformance --name Tck` and `--agent echo --name Echo`;
`a2a mcp` also offers an unreachable agent (http://127.0.0.1:1) and waits 2 s at most per call.
Each check prints `ok NAME`; a failed one raises, and the exit code is 1.
"""

import signal
import subprocess
import sys
import uuid

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

SECRET = "s3cr3t-python-bearer"


def fresh(prefix):
    """A new message id that keeps the conformance agent's behaviour prefix: every run's sends
    are new sends (an agent answers a repeated message id with the first send's task)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"{name}: {detail}")
    print(f"ok {name}", flush=True)


def text(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def tool_names(session):
    return sorted(tool.name for tool in (await session.list_tools()).tools)


async def scenarios(session, unreachable):
    names = await tool_names(session)
    expected = {"send_to_tck", "send_to_echo", "list_agents", "get_task", "cancel_task"}
    if unreachable:
        expected.add("send_to_127_0_0_1_1")
    check("tools listed", set(names) == expected, names)

    answer = await session.call_tool("send_to_echo", {"message": "hello from python"})
    check("plain send answered", "hello from python" in text(answer) and not answer.is_error, answer)
    check("state in structured content", answer.structured_content["state"] == "completed", answer)

    progress = []

    async def on_progress(value, total, message):
        progress.append(message)

    streamed = await session.call_tool(
        "send_to_tck",
        {"message": "stream", "message_id": fresh("tck-stream-001-python")},
        progress_callback=on_progress,
    )
    check("streamed send answered", "Stream hello from TCK" in text(streamed), streamed)
    check("progress notifications", len(progress) >= 2, progress)

    asked = await session.call_tool(
        "send_to_tck", {"message": "start", "message_id": fresh("tck-input-required-python")}
    )
    check("input required", asked.structured_content["state"] == "input_required", asked)
    task_id = asked.structured_content["task_id"]
    continued = await session.call_tool("send_to_tck", {"message": "python says 7", "task_id": task_id})
    check("continued with task_id", continued.structured_content["state"] == "completed", continued)
    check("the answer reached the agent", "python says 7" in text(continued), continued)

    slow = await session.call_tool(
        "send_to_tck", {"message": "slow", "message_id": fresh("test-resubscribe-message-id-python")}
    )
    check("a long run comes back working", slow.structured_content["state"] == "working", slow)
    canceled = await session.call_tool(
        "cancel_task", {"agent": "tck", "task_id": slow.structured_content["task_id"]}
    )
    check("canceled", canceled.structured_content["state"] == "canceled", canceled)

    if unreachable:
        failed = await session.call_tool("send_to_127_0_0_1_1", {"message": "anyone?"})
        check("unreachable agent is a tool error", failed.is_error and "Cannot reach" in text(failed), failed)
        check("the server keeps running", len(await tool_names(session)) == len(expected))

    for result in (answer, streamed, asked, continued, slow, canceled):
        check("no secret in results", SECRET not in result.model_dump_json())


async def elicited(session):
    answer = await session.call_tool(
        "send_to_tck", {"message": "start", "message_id": fresh("tck-input-required-python-elicit")}
    )
    check("elicitation answered the question", answer.structured_content["state"] == "completed", answer)
    check("the user's answer reached the agent", "green" in text(answer), answer)


async def answer_green(context, params):
    return types.ElicitResult(action="accept", content={"answer": "green"})


def stdio_parameters(a2a, args):
    return StdioServerParameters(command=a2a, args=["mcp", *args], env={"RUST_LOG": "debug"})


async def run_stdio(a2a, tck, echo):
    args = [tck, echo, "http://127.0.0.1:1", "--max-wait", "2s", "--bearer", SECRET]
    async with stdio_client(stdio_parameters(a2a, args)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            check("no secret in descriptions", all(SECRET not in tool.model_dump_json() for tool in tools))
            await scenarios(session, unreachable=True)
    async with stdio_client(stdio_parameters(a2a, [tck])) as (read, write):
        async with ClientSession(read, write, elicitation_callback=answer_green) as session:
            await session.initialize()
            await elicited(session)


async def run_http(url):
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            await scenarios(session, unreachable=False)
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1], elicitation_callback=answer_green) as session:
            await session.initialize()
            await elicited(session)


async def run_gateway(a2a, gateway):
    changed, left = anyio.Event(), anyio.Event()
    changes = []

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification) or (
            getattr(message, "method", "") == "notifications/tools/list_changed"
        ):
            changes.append(message)
            (left if len(changes) > 1 else changed).set()

    args = ["--gateway", gateway, "--gateway-poll", "200ms"]
    async with stdio_client(stdio_parameters(a2a, args)) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            check("no agent yet", await tool_names(session) == ["cancel_task", "get_task", "list_agents"])
            agent = subprocess.Popen(
                [a2a, "serve", "--agent", "echo", "--name", "PyEcho", "--no-auth", "--store", "memory",
                 "--bind", "127.0.0.1:0", "--register", gateway, "--agent-id", "py-echo-01",
                 "--heartbeat-interval", "250ms"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            try:
                with anyio.fail_after(20):
                    await changed.wait()
                check("list changed when the agent registered", "send_to_pyecho" in await tool_names(session))
                answer = await session.call_tool("send_to_pyecho", {"message": "via the gateway"})
                check("sent through the gateway", "via the gateway" in text(answer), answer)
            finally:
                agent.send_signal(signal.SIGTERM)
                agent.wait(timeout=10)
            with anyio.fail_after(20):
                await left.wait()
            check("list changed when the agent left", "send_to_pyecho" not in await tool_names(session))


def main():
    mode = sys.argv[1]
    if mode == "stdio":
        anyio.run(run_stdio, *sys.argv[2:5])
    elif mode == "http":
        anyio.run(run_http, sys.argv[2])
    elif mode == "gateway":
        anyio.run(run_gateway, *sys.argv[2:4])
    else:
        raise SystemExit(f"unknown mode {mode}")
    print("done", flush=True)


if __name__ == "__main__":
    main()

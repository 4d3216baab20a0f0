// An echo agent on the official JS SDK (`@a2a-js/sdk` 1.3.0), for `a2a test` against the SDK
// (crates/a2a-cli/tests/sdk_agents.rs).
//
// Usage: node echo_agent.mjs [PORT]   (0 or none: a free port)
//
// Serves on 127.0.0.1:PORT the agent card at /.well-known/agent-card.json, naming one JSONRPC
// interface at /a2a/jsonrpc (protocol 1.0, streaming on), answered by the SDK's own
// `JsonRpcTransportHandler` over its `DefaultRequestHandler` with an in-memory task store.
// The SDK's HTTP adapters need Express, which is not installed; node:http carries the
// requests to the transport handler instead, doing what the SDK's Express JSON-RPC adapter
// does (parse errors, version validation, errors before a stream's first event). Prints `ready http://127.0.0.1:PORT` on one line.
//
// Every message gets a task: WORKING, one artifact `echo: <text>`, COMPLETED.

import http from "node:http";

import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from "@a2a-js/sdk/server";

class Echo {
  async execute(context, bus) {
    const { taskId, contextId } = context;
    const text = (context.userMessage.parts ?? [])
      .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
      .join("");
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({ id: taskId, contextId, status: { state: "TASK_STATE_WORKING" } }),
      ),
    );
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId,
          artifact: { artifactId: `echo-${taskId}`, parts: [{ text: `echo: ${text}` }] },
          lastChunk: true,
        }),
      ),
    );
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId,
          status: { state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() },
        }),
      ),
    );
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId, status: { state: "TASK_STATE_CANCELED" } }),
      ),
    );
    bus.finished();
  }
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

let transport;
let cardJson;
let cardObject;

const server = http.createServer(async (request, response) => {
  try {
    if (request.method === "GET" && request.url === "/.well-known/agent-card.json") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(cardJson));
      return;
    }
    if (request.method !== "POST" || request.url !== "/a2a/jsonrpc") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: "not found" }));
      return;
    }
    // What the SDK's Express adapter (`jsonRpcHandler`) does, step by step: a body that is
    // not JSON is a parse error; the version is validated against the card; a stream's first
    // event is awaited before the headers, so an early error is a plain JSON-RPC error.
    let body;
    try {
      body = JSON.parse(await readBody(request));
    } catch {
      const error = { code: -32700, message: "Invalid JSON payload." };
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error }));
      return;
    }
    const fail = (error) => {
      const mapped = JsonRpcTransportHandler.mapToJSONRPCError(error);
      response.writeHead(mapped.code === -32603 ? 500 : 200, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: body?.id ?? null, error: mapped }));
    };
    const version = request.headers["a2a-version"];
    const context = new ServerCallContext(version ? { requestedVersion: String(version) } : {});
    let result;
    try {
      validateVersion(context.requestedVersion, cardObject, "JSONRPC");
      result = await transport.handle(body, context);
    } catch (error) {
      fail(error);
      return;
    }
    if (result && typeof result[Symbol.asyncIterator] === "function") {
      const iterator = result[Symbol.asyncIterator]();
      let first;
      try {
        first = await iterator.next();
      } catch (error) {
        fail(error);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (!first.done) {
        response.write(`data: ${JSON.stringify(first.value)}\n\n`);
      }
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        response.write(`data: ${JSON.stringify(next.value)}\n\n`);
      }
      response.end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(result));
  } catch (error) {
    console.error(`request failed: ${error?.stack ?? error}`);
    if (response.headersSent) {
      // Mid-stream: the error as the stream's last event.
      const data = { jsonrpc: "2.0", id: null, error: { code: -32603, message: String(error) } };
      response.end(`event: error\ndata: ${JSON.stringify(data)}\n\n`);
    } else {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: String(error) }));
    }
  }
});

server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = AgentCard.fromJSON({
    name: "JS SDK echo agent",
    description: "Echoes every message as an artifact (official JS SDK 1.3.0).",
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ],
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes the message", tags: ["echo"] }],
  });
  cardObject = card;
  cardJson = AgentCard.toJSON(card);
  transport = new JsonRpcTransportHandler(
    new DefaultRequestHandler(card, new InMemoryTaskStore(), new Echo()),
  );
  console.log(`ready ${base}`);
});

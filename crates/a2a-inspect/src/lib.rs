//! `a2a inspect`: a local web page for looking at A2A 1.0 agents and gateways.
//!
//! The page talks only to this process; this process calls agents through `a2a-client`, so
//! an agent needs no CORS settings and credentials never reach the browser.
//!
//! ```
//! use a2a_inspect::Inspector;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let inspector = Inspector::builder().build()?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! println!("inspector listening on http://{}", listener.local_addr()?);
//! // The page at `/`, its API under `/api/`, the push webhook at `/webhook`.
//! let app: axum::Router = inspector.router();
//! # let _ = app;
//! # Ok(()) }
//! ```
//!
//! Run it with [`Inspector::serve`]; `a2a inspect [URL]` does that and prints the address.
//!
//! # The API the page uses
//!
//! Every `/api/...` answer is JSON (or `text/event-stream`), with `Cache-Control:
//! no-store`. Every answer carries `Content-Security-Policy: default-src 'self'; img-src
//! 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'` and
//! `X-Content-Type-Options: nosniff`. API calls that change something (`POST`, `DELETE`)
//! must carry `X-Inspector: 1`, or are refused with 403 `bad_request`: the process holds
//! credentials, and a page of another origin cannot add that header. The push webhook is
//! exempt.
//!
//! Errors are `{"error": {"kind", "message", "detail"?, "code"?, "reason"?}}`: `message` is
//! one sentence for a person ("Could not reach http://127.0.0.1:9: connection refused."),
//! `detail` the technical text or the agent's A2A error JSON. Kinds and statuses:
//! `unreachable` 502, `unauthorized` 401, `forbidden` 403, `not_found` 404, `invalid_card`
//! 502, `timeout` 504, `a2a` 502 (the agent's A2A error: `detail` is its JSON-RPC error,
//! `code` and `reason` its code and `ErrorInfo` reason), `bad_request` 400, `too_large` 413,
//! `unknown_connection` 404.
//!
//! | call | answer |
//! |---|---|
//! | `GET /` , `GET /assets/{file}` | the page's files ([`assets::ASSETS`]) |
//! | `GET /api/info` | `{"version", "webhook": "<base>/webhook", "bind"}` |
//! | `POST /api/connect` | see below |
//! | `GET /api/connections` | `{"connections": [...]}`: each connection's connect answer (below) with `"cardName"` |
//! | `DELETE /api/connections/{c}` | `{"deleted": c}` |
//! | `POST /api/connections/{c}/send` | `text/event-stream`, see below |
//! | `GET /api/connections/{c}/tasks?status=&contextId=&pageSize=&pageToken=&historyLength=` | the agent's ListTasksResponse (ProtoJSON) |
//! | `GET /api/connections/{c}/tasks/{id}?historyLength=` | the Task |
//! | `POST /api/connections/{c}/tasks/{id}/cancel` | the Task |
//! | `GET /api/connections/{c}/tasks/{id}/events?after=N` | `text/event-stream` for `EventSource`, see below |
//! | `GET /api/connections/{c}/agents` | a gateway's agents (those whose heartbeat is within the registry's time to live): `{"agents": [{"id", "name", "description", "url", "lastSeen", "registeredAt", "skills"}]}`; `url` is the gateway's `/a2a/{id}`, to open with `POST /api/connect` |
//! | `GET /api/connections/{c}/agents/{id}/liveness` | whether the agent answers through the gateway: `{"status": "live"\|"unreachable"\|"timeout"\|"busy"\|"gone"\|"refused"\|"unknown", "message", "ms"}`, from its card through the gateway and a `GetTask` for an unknown task |
//! | `GET /api/wire?after=N` | `{"calls": [...]}`, the last 500 calls with an id above N |
//! | `GET /api/wire/events` | `text/event-stream`: `event: call`, first each call kept, then a call as it starts and each time it changes (same `id`), nothing missed in between |
//! | `GET /api/push` | `{"deliveries": [...]}` |
//! | `GET /api/push/events` | `text/event-stream`: `event: delivery`, first each delivery kept, then each new one |
//! | `POST /webhook`, `POST /webhook/{c}` | the push receiver: 200 for a good delivery, 401 for a bad token or signature (listed all the same) |
//!
//! ## Connect
//!
//! `POST /api/connect` with `{"url": "<agent base URL or card URL>", "auth": {"kind":
//! "none"|"api_key"|"bearer"|"oauth2", "header", "value", "tokenUrl", "clientId",
//! "clientSecret", "scopes"}, "binding": "JSONRPC"|"HTTP+JSON"|"GRPC"|null}` answers
//! `{"connection": "c1", "url", "cardUrl", "card": <the card JSON as served>, "bindings":
//! [the card's usable bindings], "binding": <chosen>, "findings": [{"level", "path",
//! "message"}], "signature": {"status": "verified"|"unsigned"|"invalid"|"no_key", "keyId",
//! "detail"}, "gateway": bool, "extendedCard": bool, "credentials": {"status":
//! "not_needed"|"accepted"|"refused"|"unchecked", "operation", "error", "extendedCard"}}`.
//! When credentials are given or the card asks for some, connect checks them with one call
//! that changes nothing (`GetExtendedAgentCard` when the card offers an extended card,
//! else `ListTasks` for one task); a refusal still connects, so the card can be read, and
//! `credentials.error` says what was refused. An API key goes in `header`, else
//! the card's API-key scheme's header, else `X-API-Key`. Credentials stay in this process:
//! never echoed, never logged. `gateway` is true when the URL has no usable card and
//! `GET {url}/agents` answers a gateway's agent list; such a gateway connects with
//! `card: null`.
//! Credentials given to [`InspectorBuilder::credentials_for`] apply when the page connects
//! to that URL without its own.
//!
//! ## Send
//!
//! `POST /api/connections/{c}/send` with `{"parts": [{"text"} | {"file": {"name",
//! "mediaType", "bytes": "<base64>"}} | {"data": <JSON>}], "taskId", "contextId",
//! "messageId" (optional; a fresh one when absent), "stream": bool, "binding": null|"...",
//! "push": bool, "returnImmediately": bool}` (at most [`DEFAULT_MAX_MESSAGE_BYTES`], or
//! [`InspectorBuilder::max_message_bytes`]; larger is a 413 `too_large` error) answers
//! `text/event-stream` frames: `event: call` `{"wire": <wire id>}` first; `event: a2a` with
//! one StreamResponse (`{"task"}`, `{"message"}`, `{"statusUpdate"}`, `{"artifactUpdate"}`)
//! per event as it arrives (a non-streaming send: one frame with the task or message);
//! `event: error` with the error object; `event: end` `{}` last. `push: true` registers a
//! push config pointing at `<base>/webhook/{c}` with the connection's token. Answers to an
//! agent run's pending actions (its `{"actions": [...]}` data part) are a plain send with
//! the data part `a2a-run` reads: `{"data": {"approvalResponses": [{"approvalId",
//! "approved", "token"?, "reason"?}], "clientToolResults": [{"toolCallId", "output",
//! "isError"?}]}}`.
//!
//! ## Task events
//!
//! `GET …/tasks/{id}/events` subscribes to the task (`SubscribeToTask`), resumed after
//! `after`, or after the request's own `Last-Event-ID` (a reconnecting `EventSource`), and
//! relays each event as `id: <the agent's event id>`, `event: a2a`, data `{"seq": <id as a
//! number or null>, "time": "<RFC 3339 received>", "event": <StreamResponse>}`; then `error`
//! and `end` as for a send. `after=0` replays a task's events from the start, where the
//! agent keeps them. A finished task subscribed without `after` is an `error` frame saying
//! the task is finished.
//!
//! ## Wire log
//!
//! Every call to an agent (card and key fetches included) is recorded: `{"id",
//! "connection", "time", "operation", "binding", "method", "url", "requestHeaders":
//! [[name, value]], "requestBody", "status", "responseHeaders", "responseBody", "sse":
//! [{"time", "frame"}], "durationMs", "error", "curl", "a2a"}`. `Authorization`, cookies,
//! API-key headers and any header or query parameter the card's security schemes name are
//! `<redacted>` from the moment of recording; `curl` shows them as `$A2A_TOKEN`,
//! `$A2A_API_KEY`… gRPC calls are recorded at the call level (operation, request and
//! answer JSON).
//!
//! # Feature flags
//!
//! None: everything is always built.
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod app;
pub mod assets;
mod chat;
mod connection;
mod credentials;
pub mod error;
mod gateway;
pub mod push;
mod tasks;
pub mod validate;
pub mod wire;

pub use self::app::{
    CONTENT_SECURITY_POLICY, DEFAULT_MAX_MESSAGE_BYTES, INSPECTOR_HEADER, Inspector,
    InspectorBuilder,
};
pub use self::connection::Auth;

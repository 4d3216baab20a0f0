// Calls to the inspector's own API. Every call carries `X-Inspector: 1`; errors arrive as
// `{"error": {kind, message, detail}}` and are thrown as ApiError.

export class ApiError extends Error {
  constructor(error, status) {
    super(error.message || `The inspector answered HTTP ${status}.`);
    this.kind = error.kind || "unknown";
    this.detail = error.detail;
    this.status = status;
    this.error = error;
  }
}

function failure(status, body) {
  if (body && typeof body === "object" && body.error && typeof body.error === "object") {
    return new ApiError(body.error, status);
  }
  return new ApiError({ kind: "unknown", message: `The inspector answered HTTP ${status}.` }, status);
}

async function send(method, path, body) {
  const init = { method, headers: { "X-Inspector": "1", Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (cause) {
    throw new ApiError({
      kind: "inspector_down",
      message: "The inspector itself does not answer: is `a2a inspect` still running?",
      detail: String(cause),
    }, 0);
  }
  return response;
}

/** Calls `method path` with an optional JSON body and returns the JSON answer. */
export async function api(method, path, body) {
  const response = await send(method, path, body);
  const text = await response.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!response.ok) throw failure(response.status, json);
  return json;
}

/** Parses a block of SSE text (one frame) into {event, data, id}. */
export function parseFrame(frame) {
  let event = "message";
  let id = null;
  const data = [];
  for (const line of frame.split(/\r?\n/)) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  return { event, id, data: data.join("\n") };
}

/**
 * POSTs `body` to `path` and calls `onFrame({event, data})` for each SSE frame of the
 * answer, `data` parsed as JSON. Resolves when the stream ends.
 */
export async function postEvents(path, body, onFrame, signal) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "X-Inspector": "1", "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  });
  const type = response.headers.get("Content-Type") || "";
  if (!response.ok || !type.startsWith("text/event-stream")) {
    let json = null;
    try {
      json = await response.json();
    } catch {
      json = null;
    }
    throw failure(response.status, json);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let boundary;
    while ((boundary = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
      const parsed = parseFrame(frame);
      if (!parsed.data && parsed.event === "message") continue;
      let data = null;
      try {
        data = parsed.data ? JSON.parse(parsed.data) : null;
      } catch {
        data = parsed.data;
      }
      onFrame({ event: parsed.event, id: parsed.id, data });
    }
  }
}

/** Path segment escaping for ids chosen by agents. */
export function seg(value) {
  return encodeURIComponent(value);
}

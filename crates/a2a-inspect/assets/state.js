// What the views share: the connections this page knows and which one is current.
// Credentials are kept only in page memory (for opening a gateway's agents with the same
// ones), never in browser storage.

const listeners = new Set();

export const state = {
  /** id → the `POST /api/connect` answer (or the short form from `GET /api/connections`). */
  connections: new Map(),
  current: null,
  /** The auth object last used to connect (in memory only). */
  auth: { kind: "none" },
};

export function onChange(listener) {
  listeners.add(listener);
}

function changed(reason) {
  if (state.current) sessionStorage.setItem("a2a-inspect:connection", state.current);
  else sessionStorage.removeItem("a2a-inspect:connection");
  for (const listener of listeners) listener(reason);
}

export function current() {
  return state.current ? state.connections.get(state.current) ?? null : null;
}

export function addConnection(info) {
  state.connections.set(info.connection, info);
  state.current = info.connection;
  changed("connected");
}

export function select(id) {
  state.current = state.connections.has(id) ? id : null;
  changed("selected");
}

export function remove(id) {
  state.connections.delete(id);
  if (state.current === id) state.current = state.connections.keys().next().value ?? null;
  changed("removed");
}

/** The connection remembered for this tab (survives a reload). */
export function remembered() {
  return sessionStorage.getItem("a2a-inspect:connection");
}

/** A display name for a connection. */
export function nameOf(info) {
  const name = info.card?.name || info.cardName;
  if (name) return name;
  return info.gateway ? `Gateway ${info.url}` : info.url || info.connection;
}

// Small helpers for building the page without innerHTML: text always goes in as text.

/** `el("div", {class: "x", dataset: {testid: "y"}}, child, "text", …)`. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

export const $ = (id) => document.getElementById(id);

/** JSON pretty-printed; strings that hold JSON are re-indented, others shown as is. */
export function pretty(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

/** `TASK_STATE_INPUT_REQUIRED` → `input required`. */
export function stateName(state) {
  if (!state) return "unknown";
  return String(state).replace(/^TASK_STATE_/, "").replace(/_/g, " ").toLowerCase();
}

/** A badge for a task state; its class gives its colour. */
export function stateBadge(state) {
  const name = stateName(state);
  return el("span", { class: `badge state-${name.replace(/ /g, "-")}`, dataset: { state: String(state || "") } }, name);
}

export function badge(text, tone) {
  return el("span", { class: `badge tone-${tone}` }, text);
}

export function time(value) {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleTimeString([], { hour12: false }) + "." + String(date.getMilliseconds()).padStart(3, "0");
}

/** Fills an error panel from an ApiError (or any error), or hides it for `null`. */
export function showError(panel, error) {
  clear(panel);
  if (!error) {
    panel.hidden = true;
    return;
  }
  const kind = error.kind || "unknown";
  panel.dataset.kind = kind;
  panel.append(el("p", { class: "error-title" }, titleOf(kind)));
  panel.append(el("p", { class: "error-message", dataset: { testid: "error-message" } }, error.message || String(error)));
  if (error.detail) {
    const detail = typeof error.detail === "string" ? error.detail : pretty(error.detail);
    panel.append(el("details", {}, el("summary", {}, "Technical detail"), el("pre", {}, detail)));
  }
  panel.hidden = false;
}

function titleOf(kind) {
  switch (kind) {
    case "unreachable": return "Agent unreachable";
    case "unauthorized": return "Not authorized";
    case "forbidden": return "Forbidden";
    case "not_found": return "Not found";
    case "invalid_card": return "Invalid agent card";
    case "timeout": return "Timed out";
    case "a2a": return "The agent returned an error";
    case "bad_request": return "Bad request";
    case "too_large": return "Too large";
    case "unknown_connection": return "Connection gone";
    case "inspector_down": return "Inspector not answering";
    default: return "Something went wrong";
  }
}

/** Copies `text`; resolves to true when the clipboard took it. */
export async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el("textarea", { class: "visually-hidden" });
    area.value = text;
    document.body.append(area);
    area.select();
    let done = false;
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
    area.remove();
    return done;
  }
}

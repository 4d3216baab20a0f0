// Wire view: every call the inspector made to an agent, newest first, live; a call's
// headers (secrets redacted by the inspector), pretty bodies and SSE frames in order.

import { $, clear, el, badge, copy, pretty, time } from "./dom.js";

const calls = new Map();
const rows = new Map();
let selected = null;
let source = null;

export function init() {
  document.addEventListener("inspect:wire", (event) => pick(event.detail));
  start();
}

function start() {
  // The stream starts with every call kept, then each change: nothing made while the page
  // loads is missed. A reconnect starts over, and `upsert` keeps the newest of each call.
  source = new EventSource("/api/wire/events");
  source.addEventListener("call", (message) => {
    try {
      upsert(JSON.parse(message.data));
    } catch {
      // Not a call: ignore.
    }
  });
}

function upsert(call) {
  if (call?.id === undefined) return;
  calls.set(call.id, call);
  const row = rowOf(call);
  const old = rows.get(call.id);
  if (old) old.replaceWith(row);
  else insertNewestFirst(row, call.id);
  rows.set(call.id, row);
  $("wire-empty").hidden = true;
  if (selected === call.id) detail(call);
}

function insertNewestFirst(row, id) {
  const body = $("wire-body");
  for (const existing of body.children) {
    if (Number(existing.dataset.id) < id) {
      existing.before(row);
      return;
    }
  }
  body.append(row);
}

function statusBadge(call) {
  if (call.error) return badge("failed", "bad");
  if (call.status === null || call.status === undefined) return badge("…", "neutral");
  return badge(String(call.status), call.status < 300 ? "ok" : call.status < 500 ? "warn" : "bad");
}

function rowOf(call) {
  const button = el("button", { type: "button", class: "link", dataset: { testid: "wire-call" } }, call.operation || call.method || "call");
  button.addEventListener("click", () => pick(call.id));
  return el("tr", { dataset: { id: call.id, operation: call.operation ?? "" }, class: selected === call.id ? "selected" : null },
    el("td", { class: "muted" }, String(call.id)),
    el("td", { class: "muted" }, time(call.time)),
    el("td", {}, button, call.connection ? el("span", { class: "muted" }, ` ${call.connection}`) : null),
    el("td", {}, statusBadge(call)),
    el("td", { class: "muted num" }, call.durationMs ?? ""));
}

function pick(id) {
  selected = Number(id);
  for (const [key, row] of rows) row.classList.toggle("selected", key === selected);
  const call = calls.get(selected);
  if (call) detail(call);
}

function headers(list) {
  if (!list?.length) return el("p", { class: "muted" }, "None.");
  return el("table", { class: "headers" }, el("tbody", {}, list.map(([name, value]) =>
    el("tr", {}, el("th", {}, name), el("td", { class: value === "<redacted>" ? "redacted" : null }, value)))));
}

function copyButton(label, text, testid) {
  const button = el("button", { type: "button", dataset: { testid }, disabled: !text }, label);
  button.addEventListener("click", async () => {
    const done = await copy(text);
    button.textContent = done ? "Copied" : "Copy failed";
    setTimeout(() => { button.textContent = label; }, 1500);
  });
  return button;
}

function detail(call) {
  const panel = clear($("wire-detail"));
  panel.append(el("div", { class: "wire-call", dataset: { id: call.id } },
    el("div", { class: "wire-head" },
      el("h2", {}, `#${call.id} ${call.operation ?? ""}`), statusBadge(call),
      el("span", { class: "muted" }, ` ${call.binding ?? ""} · ${call.durationMs ?? "?"} ms · ${time(call.time)}`)),
    el("p", {}, el("code", { class: "url" }, `${call.method ?? ""} ${call.url ?? ""}`)),
    el("div", { class: "actions" },
      copyButton("Copy as curl", call.curl, "copy-curl"),
      copyButton("Copy as a2a", call.a2a, "copy-a2a")),
    call.error ? el("p", { class: "error-text" }, call.error) : null,
    el("h3", {}, "Request headers"), headers(call.requestHeaders),
    el("h3", {}, "Request body"), el("pre", { class: "code" }, pretty(call.requestBody) || "(empty)"),
    el("h3", {}, "Response headers"), headers(call.responseHeaders),
    call.responseBody !== null && call.responseBody !== undefined
      ? [el("h3", {}, "Response body"), el("pre", { class: "code" }, pretty(call.responseBody) || "(empty)")]
      : null,
    call.sse?.length
      ? [el("h3", {}, `SSE frames (${call.sse.length})`), el("ol", { class: "frames", dataset: { testid: "sse-frames" } },
        call.sse.map((frame) => el("li", {}, el("span", { class: "muted" }, time(frame.time)), el("pre", { class: "code small" }, frame.frame))))]
      : null,
    call.curl ? [el("h3", {}, "curl"), el("pre", { class: "code small" }, call.curl)] : null,
    call.a2a ? [el("h3", {}, "a2a"), el("pre", { class: "code small" }, call.a2a)] : null));
}

export function stop() {
  source?.close();
}

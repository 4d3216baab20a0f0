// The page's entry point: tabs, the connection picker, and each view's module.

import { api } from "./api.js";
import { $, clear, el } from "./dom.js";
import { state, onChange, select, remove, current, remembered, nameOf } from "./state.js";
import * as connect from "./connect.js";
import { connectTo } from "./connect.js";
import * as chat from "./chat.js";
import * as tasks from "./tasks.js";
import * as wire from "./wire.js";
import * as push from "./push.js";
import * as agents from "./agents.js";

const views = { connect, chat, tasks, wire, push, agents };

function tabs() {
  return [...document.querySelectorAll('#tabs [role="tab"]')].filter((tab) => !tab.hidden);
}

/** Shows `name`'s view; `focus` (arrow keys) keeps keyboard focus on its tab. */
export function show(name, focus = false) {
  const tab = $(`tab-${name}`);
  if (!tab || tab.hidden) name = "connect";
  for (const each of document.querySelectorAll('#tabs [role="tab"]')) {
    const selected = each.dataset.view === name;
    each.setAttribute("aria-selected", String(selected));
    each.tabIndex = selected ? 0 : -1;
    $(`view-${each.dataset.view}`).hidden = !selected;
    if (selected && focus) each.focus();
  }
  document.body.dataset.view = name;
  if (location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
  views[name].shown?.({ keepFocus: focus });
}

function wireTabs() {
  const list = $("tabs");
  list.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) show(tab.dataset.view);
  });
  list.addEventListener("keydown", (event) => {
    const all = tabs();
    const at = all.indexOf(document.activeElement);
    if (at < 0) return;
    let next = null;
    if (event.key === "ArrowRight") next = all[(at + 1) % all.length];
    else if (event.key === "ArrowLeft") next = all[(at - 1 + all.length) % all.length];
    else if (event.key === "Home") next = all[0];
    else if (event.key === "End") next = all[all.length - 1];
    if (next) {
      event.preventDefault();
      show(next.dataset.view, true);
    }
  });
}

function renderPicker() {
  const picker = $("connection-select");
  clear(picker);
  if (state.connections.size === 0) picker.append(el("option", { value: "" }, "Not connected"));
  for (const [id, info] of state.connections) {
    picker.append(el("option", { value: id, selected: id === state.current }, `${nameOf(info)} (${id})`));
  }
  picker.disabled = state.connections.size === 0;
  $("disconnect").disabled = !state.current;
  const info = current();
  document.body.classList.toggle("connected", Boolean(info));
  $("tab-agents").hidden = !info?.gateway;
}

async function restore() {
  try {
    const answer = await api("GET", "/api/connections");
    for (const info of answer?.connections ?? []) {
      if (!state.connections.has(info.connection)) state.connections.set(info.connection, info);
    }
  } catch {
    // An inspector that cannot list its connections still lets the person connect anew.
  }
  const wanted = remembered();
  if (wanted && state.connections.has(wanted)) select(wanted);
  else if (state.connections.size > 0) select(state.connections.keys().next().value);
  else renderPicker();
}

function start() {
  wireTabs();
  onChange((reason) => {
    renderPicker();
    for (const view of Object.values(views)) view.connectionChanged?.(reason);
  });
  $("connection-select").addEventListener("change", (event) => select(event.target.value));
  $("disconnect").addEventListener("click", async () => {
    const id = state.current;
    if (!id) return;
    try {
      await api("DELETE", `/api/connections/${encodeURIComponent(id)}`);
    } catch {
      // Gone already: forget it here too.
    }
    remove(id);
  });
  for (const view of Object.values(views)) view.init?.({ show });
  show((location.hash || "#connect").slice(1));
  restore().then(openFromAddress);
}

/**
 * `a2a inspect URL` opens the page at `/?url=URL[&binding=B]`: connect to it once (the
 * inspector holds the credentials given on its command line), then drop the query so a
 * reload does not connect again.
 */
function openFromAddress() {
  const query = new URLSearchParams(location.search);
  const url = query.get("url");
  if (!url) return;
  history.replaceState(null, "", `/${location.hash}`);
  const known = [...state.connections.values()].some((info) => info.url === url);
  if (known) return;
  $("connect-url").value = url;
  const binding = query.get("binding");
  if (binding) $("connect-binding").value = binding;
  show("connect");
  connectTo(url, { kind: "none" }, binding || null);
}

start();

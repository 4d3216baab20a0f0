// Tasks view: the agent's task list (filters, paging) and one task's timeline, live over
// EventSource and resumed after a reload from the last sequence id kept in sessionStorage.

import { api, seg } from "./api.js";
import { $, clear, el, pretty, showError, stateBadge, stateName, time } from "./dom.js";
import { current } from "./state.js";

const OPEN_KEY = "a2a-inspect:open-task";
const KEPT_EVENTS = 500;
const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

let pageToken = "";
let nextToken = "";
/** The open timeline: {connection, taskId, seq, events, source, lastState}. */
let open = null;

export function init() {
  $("tasks-form").addEventListener("submit", (event) => {
    event.preventDefault();
    pageToken = "";
    load();
  });
  $("tasks-next").addEventListener("click", () => {
    pageToken = nextToken;
    load();
  });
  $("tasks-first").addEventListener("click", () => {
    pageToken = "";
    load();
  });
  $("timeline-subscribe").addEventListener("click", () => subscribe());
  $("timeline-cancel").addEventListener("click", cancel);
}

export function shown() {
  if (current() && !$("tasks-body").children.length) load();
}

export function connectionChanged() {
  const info = current();
  clear($("tasks-body"));
  $("tasks-count").textContent = "";
  $("tasks-next").hidden = true;
  $("tasks-first").hidden = true;
  showError($("tasks-error"), null);
  pageToken = "";
  if (open && open.connection !== info?.connection) closeTimeline();
  const remembered = readJson(sessionStorage.getItem(OPEN_KEY));
  if (!open && info && remembered?.connection === info.connection) openTask(remembered.taskId);
  if (info && document.body.dataset.view === "tasks") load();
}

function readJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

async function load() {
  const info = current();
  if (!info) return;
  const query = new URLSearchParams();
  const status = $("tasks-status").value;
  const context = $("tasks-context").value.trim();
  if (status) query.set("status", status);
  if (context) query.set("contextId", context);
  query.set("pageSize", "20");
  if (pageToken) query.set("pageToken", pageToken);
  showError($("tasks-error"), null);
  $("tasks-count").textContent = "Loading…";
  try {
    const answer = await api("GET", `/api/connections/${seg(info.connection)}/tasks?${query}`);
    // Another connection was picked meanwhile: its own load shows its tasks.
    if (current()?.connection !== info.connection) return;
    render(answer ?? {});
  } catch (error) {
    if (current()?.connection !== info.connection) return;
    $("tasks-count").textContent = "";
    showError($("tasks-error"), error);
  }
}

function render(answer) {
  const body = clear($("tasks-body"));
  const tasks = answer.tasks ?? [];
  for (const task of tasks) {
    const button = el("button", { type: "button", class: "link", title: task.id, dataset: { testid: "task-link", taskId: task.id } }, short(task.id));
    button.addEventListener("click", () => openTask(task.id));
    body.append(el("tr", { dataset: { taskId: task.id } },
      el("td", { class: "id" }, button),
      el("td", {}, stateBadge(task.status?.state)),
      el("td", { class: "id muted col-context", title: task.contextId ?? "" }, short(task.contextId ?? "")),
      el("td", { class: "muted" }, time(task.status?.timestamp))));
  }
  const total = answer.totalSize !== undefined ? ` of ${answer.totalSize}` : "";
  $("tasks-count").textContent = tasks.length ? `${tasks.length}${total} tasks` : "No tasks match.";
  nextToken = answer.nextPageToken || "";
  $("tasks-next").hidden = !nextToken;
  $("tasks-first").hidden = !pageToken;
}

/** The first part of a long id (the whole id is in the title). */
/**
 * A long id by its last eight characters: time-ordered ids (UUID v7, as `a2a serve` makes)
 * begin with their creation time, so ids made within a minute share their first eight.
 */
function short(id) {
  return id.length > 13 ? `…${id.slice(-8)}` : id;
}

function storageKey(connection, taskId) {
  return `a2a-inspect:timeline:${connection}:${taskId}`;
}

function closeTimeline() {
  open?.source?.close();
  open = null;
  $("timeline-body").hidden = true;
  $("timeline-empty").hidden = false;
}

/** Opens `taskId`'s timeline: the events kept from before, then the rest, live. */
export async function openTask(taskId) {
  const info = current();
  if (!info) return;
  closeTimeline();
  const kept = readJson(sessionStorage.getItem(storageKey(info.connection, taskId))) ?? { seq: null, events: [] };
  open = { connection: info.connection, taskId, seq: kept.seq, events: kept.events, source: null, lastState: null };
  sessionStorage.setItem(OPEN_KEY, JSON.stringify({ connection: info.connection, taskId }));
  $("timeline-empty").hidden = true;
  $("timeline-body").hidden = false;
  if (window.matchMedia("(max-width: 760px)").matches) $("timeline").scrollIntoView({ block: "start" });
  $("timeline-title").textContent = `Task ${taskId}`;
  clear($("timeline-state"));
  showError($("timeline-error"), null);
  const list = clear($("timeline-events"));
  for (const entry of open.events) list.append(eventItem(entry));
  try {
    const task = await api("GET", `/api/connections/${seg(info.connection)}/tasks/${seg(taskId)}`);
    if (open?.taskId === taskId) setState(task?.status?.state);
  } catch (error) {
    if (open?.taskId === taskId) showError($("timeline-error"), error);
  }
  if (open?.taskId === taskId) subscribe();
}

function setState(taskState) {
  const holder = clear($("timeline-state"));
  if (taskState) holder.append(stateBadge(taskState));
  $("timeline-cancel").disabled = TERMINAL.has(taskState);
}

/** Follows the open task's events after the last one seen (from the start when none). */
function subscribe() {
  if (!open) return;
  open.source?.close();
  const timeline = open;
  const after = timeline.seq ?? 0;
  const url = `/api/connections/${seg(timeline.connection)}/tasks/${seg(timeline.taskId)}/events?after=${after}`;
  const source = new EventSource(url);
  timeline.source = source;
  $("timeline-live").textContent = "Following…";
  $("timeline-subscribe").disabled = true;
  source.addEventListener("a2a", (message) => {
    const frame = readJson(message.data);
    if (!frame || open !== timeline) return;
    const seq = frame.seq ?? (message.lastEventId ? Number(message.lastEventId) : null);
    const entry = { seq, time: frame.time, event: frame.event };
    if (seq !== null && timeline.seq !== null && seq <= timeline.seq) return;
    if (seq !== null) timeline.seq = seq;
    timeline.events.push(entry);
    if (timeline.events.length > KEPT_EVENTS) timeline.events.splice(0, timeline.events.length - KEPT_EVENTS);
    persist(timeline);
    $("timeline-events").append(eventItem(entry));
  });
  source.addEventListener("error", (message) => {
    // An `error` frame from the inspector carries data; a dropped connection does not, and
    // EventSource reconnects by itself with Last-Event-ID.
    if (!message.data) {
      $("timeline-live").textContent = source.readyState === EventSource.CLOSED ? "Stopped." : "Reconnecting…";
      return;
    }
    const error = readJson(message.data);
    showError($("timeline-error"), error?.error ?? error);
    stop(source, "Stopped.");
  });
  source.addEventListener("end", () => stop(source, "The stream ended."));
}

function stop(source, why) {
  source.close();
  if (open?.source === source) {
    $("timeline-live").textContent = why;
    $("timeline-subscribe").disabled = false;
  }
}

function persist(timeline) {
  sessionStorage.setItem(storageKey(timeline.connection, timeline.taskId), JSON.stringify({ seq: timeline.seq, events: timeline.events }));
}

function eventItem(entry) {
  const event = entry.event ?? {};
  let kind = "event";
  let summary = [];
  let detail = event;
  if (event.task) {
    kind = "snapshot";
    const taskState = event.task.status?.state;
    summary = ["task snapshot: ", stateBadge(taskState)];
    transition(taskState, event.task.status?.timestamp);
  } else if (event.statusUpdate) {
    kind = "status";
    const taskState = event.statusUpdate.status?.state;
    const before = open?.lastState;
    summary = before && before !== taskState
      ? [stateBadge(before), " → ", stateBadge(taskState)]
      : ["status ", stateBadge(taskState)];
    transition(taskState, event.statusUpdate.status?.timestamp);
    const text = (event.statusUpdate.status?.message?.parts ?? []).map((part) => part.text).filter(Boolean).join(" ");
    if (text) summary.push(el("span", { class: "muted" }, ` “${text}”`));
  } else if (event.artifactUpdate) {
    kind = "artifact";
    const update = event.artifactUpdate;
    const artifact = update.artifact ?? {};
    const text = (artifact.parts ?? []).map((part) => part.text ?? (part.data !== undefined ? JSON.stringify(part.data) : part.filename ?? "")).join("");
    summary = [`artifact ${artifact.name || artifact.artifactId || ""} `, el("span", { class: "muted" }, update.append ? "chunk" : "new"),
      update.lastChunk ? el("span", { class: "muted" }, " (last)") : null, " ", el("code", { class: "chunk" }, text)];
  } else if (event.message) {
    kind = "message";
    summary = ["message ", el("span", { class: "muted" }, (event.message.parts ?? []).map((part) => part.text).filter(Boolean).join(" "))];
  } else {
    detail = entry.event;
  }
  return el("li", { class: `event kind-${kind}`, dataset: { testid: "timeline-event", seq: entry.seq ?? "", kind } },
    el("span", { class: "seq" }, entry.seq !== null && entry.seq !== undefined ? `#${entry.seq}` : "#–"),
    when(entry),
    el("details", {}, el("summary", {}, summary), el("pre", { class: "code small" }, pretty(detail))));
}

/**
 * When the event happened: the agent's own timestamp for a task or a status update (so a
 * timeline replayed later keeps its times), else when the inspector received it.
 */
function when(entry) {
  const event = entry.event ?? {};
  const stamped = event.statusUpdate?.status?.timestamp ?? event.task?.status?.timestamp;
  const node = el("span", { class: "when muted" }, time(stamped ?? entry.time));
  node.title = stamped ? `agent's timestamp; received ${time(entry.time)}` : "received";
  return node;
}

function transition(taskState, timestamp) {
  if (!taskState) return;
  if (open) open.lastState = taskState;
  setState(taskState);
  // The list row of the open task follows its timeline: its state and when it changed.
  const row = open && [...$("tasks-body").children].find((item) => item.dataset.taskId === open.taskId);
  if (row) {
    clear(row.children[1]).append(stateBadge(taskState));
    if (timestamp) row.children[3].textContent = time(timestamp);
  }
  if (open && TERMINAL.has(taskState)) $("timeline-live").textContent = `The task is ${stateName(taskState)}.`;
}

async function cancel() {
  if (!open) return;
  const timeline = open;
  showError($("timeline-error"), null);
  try {
    const task = await api("POST", `/api/connections/${seg(timeline.connection)}/tasks/${seg(timeline.taskId)}/cancel`);
    if (open === timeline) setState(task?.status?.state);
  } catch (error) {
    if (open === timeline) showError($("timeline-error"), error);
  }
}

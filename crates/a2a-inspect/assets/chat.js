// Chat view: send text, files and JSON data; answers stream into the log as they arrive.

import { postEvents, seg } from "./api.js";
import { $, clear, el, badge, pretty, showError, stateBadge, stateName } from "./dom.js";
import { current } from "./state.js";

/** The task and context the next message continues (null: a new task). */
let target = { taskId: null, contextId: null };
let sending = false;
let showView = () => {};

const INTERRUPTED = new Set(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"]);
const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

export function init({ show }) {
  showView = show;
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendFromComposer();
  });
  $("chat-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      sendFromComposer();
    }
  });
  $("chat-new-task").addEventListener("click", () => {
    setTarget(null, null);
    $("chat-input").focus();
  });
}

export function shown({ keepFocus = false } = {}) {
  if (current() && !keepFocus) $("chat-input").focus();
}

export function connectionChanged() {
  const info = current();
  clear($("chat-log"));
  showError($("chat-error"), null);
  setTarget(null, null);
  const picker = clear($("chat-binding"));
  const bindings = info?.bindings?.length ? info.bindings : info?.binding ? [info.binding] : [];
  for (const binding of bindings) picker.append(el("option", { value: binding, selected: binding === info.binding }, binding));
  picker.disabled = bindings.length < 2;
  const canStream = info?.card?.capabilities?.streaming !== false;
  $("chat-stream").checked = canStream;
}

function setTarget(taskId, contextId, why = "") {
  target = { taskId, contextId };
  const box = $("chat-target");
  if (!taskId && !contextId) {
    box.hidden = true;
    box.dataset.state = "";
    return;
  }
  box.hidden = false;
  box.dataset.state = why;
  $("chat-target-text").textContent = taskId
    ? `${why ? `${why}: ` : ""}replying to task ${taskId}`
    : `New task in context ${contextId}`;
}

async function fileParts(files) {
  const parts = [];
  for (const file of files) {
    const bytes = await new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    });
    parts.push({ file: { name: file.name, mediaType: file.type || "application/octet-stream", bytes } });
  }
  return parts;
}

async function sendFromComposer() {
  if (sending) return;
  const info = current();
  if (!info) {
    showError($("chat-error"), { kind: "bad_request", message: "Connect to an agent first." });
    return;
  }
  showError($("chat-error"), null);
  const text = $("chat-input").value;
  const parts = [];
  if (text.trim()) parts.push({ text });
  const dataText = $("chat-data").value.trim();
  if (dataText) {
    try {
      parts.push({ data: JSON.parse(dataText) });
    } catch (error) {
      showError($("chat-error"), { kind: "bad_request", message: "The JSON data part is not valid JSON.", detail: String(error) });
      $("chat-data").focus();
      return;
    }
  }
  try {
    parts.push(...await fileParts($("chat-file").files));
  } catch (error) {
    showError($("chat-error"), { kind: "bad_request", message: "A file could not be read.", detail: String(error) });
    return;
  }
  if (!parts.length) {
    $("chat-input").focus();
    return;
  }
  const messageId = $("chat-message-id").value.trim() || null;
  $("chat-input").value = "";
  $("chat-data").value = "";
  $("chat-file").value = "";
  $("chat-message-id").value = "";
  await send(parts, { messageId });
}

/** Sends `parts` on the current connection and renders the answer as it streams. */
async function send(parts, { messageId = null, taskId = target.taskId, contextId = target.contextId } = {}) {
  const info = current();
  if (!info) return;
  sending = true;
  $("chat-send").disabled = true;
  const log = $("chat-log");
  log.append(el("li", { class: "bubble user", dataset: { testid: "user-message" } }, renderParts(parts.map(outgoingPart))));
  const turn = new Turn(Boolean(taskId));
  log.append(turn.node);
  turn.node.scrollIntoView({ block: "end" });
  const body = {
    parts,
    taskId,
    contextId,
    messageId,
    stream: $("chat-stream").checked,
    binding: $("chat-binding").value || null,
    push: $("chat-push").checked,
    returnImmediately: false,
  };
  try {
    await postEvents(`/api/connections/${seg(info.connection)}/send`, body, (frame) => turn.frame(frame));
  } catch (error) {
    turn.fail(error);
  } finally {
    turn.finish();
    sending = false;
    $("chat-send").disabled = false;
    if (!document.activeElement || document.activeElement === document.body || document.activeElement === $("chat-send")) {
      $("chat-input").focus();
    }
  }
}

/** The page's outgoing part shapes, shown as the agent's part shapes. */
function outgoingPart(part) {
  if (part.file) return { raw: part.file.bytes, filename: part.file.name, mediaType: part.file.mediaType };
  return part;
}

/** One answer in the log: status, messages and artifacts of one send. */
class Turn {
  /** `continuing`: the message continues an interrupted task. */
  constructor(continuing) {
    this.continuing = continuing;
    this.events = 0;
    this.state = el("span", { class: "turn-state" }, badge("sending", "neutral"));
    this.meta = el("span", { class: "turn-meta muted" });
    this.body = el("div", { class: "turn-body" });
    this.artifacts = el("div", { class: "artifacts" });
    this.error = el("div", { class: "error-panel", role: "alert", hidden: true });
    this.node = el("li", { class: "bubble agent", dataset: { testid: "turn" } },
      el("div", { class: "turn-head" }, this.state, this.meta), this.body, this.artifacts, this.error);
    this.artifactNodes = new Map();
    this.taskId = null;
    this.contextId = null;
    this.lastState = null;
  }

  frame({ event, data }) {
    if (event === "call") {
      this.wire = data?.wire;
      this.renderMeta();
    } else if (event === "a2a") {
      this.event(data ?? {});
    } else if (event === "error") {
      this.fail(data?.error ?? data ?? {});
    }
  }

  renderMeta() {
    clear(this.meta);
    if (this.taskId) this.meta.append(`task ${this.taskId}`);
    if (this.wire !== undefined && this.wire !== null) {
      const link = el("button", { type: "button", class: "link", dataset: { wire: this.wire } }, `wire #${this.wire}`);
      link.addEventListener("click", () => {
        showView("wire", true);
        document.dispatchEvent(new CustomEvent("inspect:wire", { detail: this.wire }));
      });
      this.meta.append(this.taskId ? " · " : "", link);
    }
  }

  event(response) {
    this.events += 1;
    if (response.message) {
      this.setState(null);
      this.body.append(el("div", { class: "agent-message", dataset: { testid: "agent-message" } }, renderParts(response.message.parts ?? [])));
      if (response.message.contextId) setTarget(null, response.message.contextId);
    } else if (response.task) {
      const task = response.task;
      this.ids(task.id, task.contextId);
      for (const artifact of task.artifacts ?? []) this.artifact(artifact, false);
      // A reply to an interrupted task first sees the task as it was: still waiting, with
      // the question the previous answer already showed.
      const stale = this.continuing && this.events === 1 && INTERRUPTED.has(task.status?.state);
      if (!stale) this.status(task.status ?? {});
    } else if (response.statusUpdate) {
      const update = response.statusUpdate;
      this.ids(update.taskId, update.contextId);
      this.status(update.status ?? {});
    } else if (response.artifactUpdate) {
      const update = response.artifactUpdate;
      this.ids(update.taskId, update.contextId);
      this.artifact(update.artifact ?? {}, Boolean(update.append), Boolean(update.lastChunk));
    }
  }

  ids(taskId, contextId) {
    if (taskId && taskId !== this.taskId) {
      this.taskId = taskId;
      this.node.dataset.taskId = taskId;
      this.renderMeta();
    }
    if (contextId) this.contextId = contextId;
  }

  setState(taskState) {
    clear(this.state);
    if (taskState) {
      this.state.append(stateBadge(taskState));
      this.node.dataset.state = taskState;
    } else {
      this.state.append(badge("message", "info"));
      this.node.dataset.state = "message";
    }
  }

  status(status) {
    const taskState = status.state;
    if (taskState && taskState !== this.lastState) {
      this.lastState = taskState;
      this.setState(taskState);
    }
    const message = status.message;
    if (message?.parts?.length && message.messageId !== this.lastStatusMessage) {
      this.lastStatusMessage = message.messageId;
      const actions = (message.parts ?? []).find((part) => part.data && Array.isArray(part.data.actions));
      const shown = (message.parts ?? []).filter((part) => part !== actions);
      if (shown.length) this.body.append(el("div", { class: "agent-message status-message" }, renderParts(shown)));
      if (actions && taskState === "TASK_STATE_INPUT_REQUIRED") {
        this.body.append(approvals(actions.data.actions, this.taskId, this.contextId));
        this.asksForActions = true;
      }
    }
    if (taskState && !INTERRUPTED.has(taskState)) this.node.querySelector(".interrupt")?.remove();
    if (INTERRUPTED.has(taskState)) {
      const why = taskState === "TASK_STATE_AUTH_REQUIRED" ? "Authorization required" : "Input required";
      if (!this.node.querySelector(".interrupt") && !this.asksForActions) {
        this.body.append(el("p", { class: `interrupt ${taskState === "TASK_STATE_AUTH_REQUIRED" ? "auth" : "input"}`, dataset: { testid: "interrupt" } },
          taskState === "TASK_STATE_AUTH_REQUIRED"
            ? "The agent needs authorization before it goes on. Reply below once it is given; the reply continues this task."
            : "The agent is waiting for your answer. Reply below; the reply continues this task."));
      }
      setTarget(this.taskId, this.contextId, why);
      // Pending actions are answered with their buttons; any other question in the box.
      const first = this.asksForActions ? this.node.querySelector(".approvals button:not(:disabled), .approvals textarea") : null;
      (first ?? $("chat-input")).focus();
    } else if (TERMINAL.has(taskState)) {
      setTarget(null, this.contextId);
    } else if (this.taskId && target.taskId === this.taskId) {
      setTarget(this.taskId, this.contextId, stateName(taskState));
    }
  }

  artifact(artifact, appendChunk, lastChunk = false) {
    const id = artifact.artifactId || `artifact-${this.artifactNodes.size}`;
    let entry = this.artifactNodes.get(id);
    if (!entry) {
      const parts = el("div", { class: "artifact-parts" });
      const node = el("div", { class: "artifact", dataset: { testid: "artifact", artifactId: id } },
        el("div", { class: "artifact-head" }, el("strong", {}, artifact.name || "Artifact"), " ", el("code", { class: "muted" }, id)),
        artifact.description ? el("p", { class: "muted" }, artifact.description) : null, parts);
      entry = { node, parts, chunks: 0 };
      this.artifactNodes.set(id, entry);
      this.artifacts.append(node);
    }
    if (!appendChunk) clear(entry.parts);
    // Text appended to text is one flowing text (an agent streaming tokens); any other
    // part, and every part after the first of one chunk, is a part of its own.
    (artifact.parts ?? []).forEach((part, index) => {
      const last = entry.parts.lastElementChild;
      const joins = appendChunk && index === 0 && part.text !== undefined && last?.dataset.kind === "text";
      if (joins) last.textContent += part.text;
      else entry.parts.append(renderPart(part));
    });
    entry.chunks += 1;
    entry.node.dataset.chunks = String(entry.chunks);
    if (lastChunk) entry.node.dataset.complete = "true";
  }

  fail(error) {
    showError(this.error, error);
    this.setState(null);
    clear(this.state).append(badge("error", "bad"));
    this.node.dataset.state = "error";
  }

  finish() {
    this.node.classList.add("done");
    if (this.state.textContent === "sending") {
      clear(this.state).append(badge("no answer", "warn"));
    }
  }
}

/** Approve/Deny buttons (approvals) and result boxes (client tools) for a run's pending actions. */
function approvals(actions, taskId, contextId) {
  const decisions = new Map();
  const box = el("div", { class: "approvals", dataset: { testid: "approvals" } }, el("p", { class: "approvals-title" }, "The run waits for your decision:"));
  const status = el("p", { class: "muted", role: "status" });
  const complete = () => actions.every((action) => decisions.has(action.kind === "approval" ? action.approvalId : action.toolCallId));
  const submit = () => {
    if (!complete()) {
      status.textContent = `${decisions.size} of ${actions.length} answered; answer every action to send.`;
      return;
    }
    const approvalResponses = [];
    const clientToolResults = [];
    for (const action of actions) {
      if (action.kind === "approval") {
        const answer = { approvalId: action.approvalId, approved: decisions.get(action.approvalId) };
        if (action.token) answer.token = action.token;
        approvalResponses.push(answer);
      } else {
        clientToolResults.push({ toolCallId: action.toolCallId, output: decisions.get(action.toolCallId) });
      }
    }
    const data = {};
    if (approvalResponses.length) data.approvalResponses = approvalResponses;
    if (clientToolResults.length) data.clientToolResults = clientToolResults;
    for (const button of box.querySelectorAll("button, textarea")) button.disabled = true;
    status.textContent = "Answer sent.";
    send([{ data }], { taskId, contextId });
  };
  for (const action of actions) {
    const input = el("pre", { class: "code small" }, pretty(action.input ?? {}));
    if (action.kind === "approval") {
      const approve = el("button", { type: "button", class: "primary", dataset: { testid: "approve" } }, "Approve");
      const deny = el("button", { type: "button", class: "danger", dataset: { testid: "deny" } }, "Deny");
      const decide = (approved) => {
        decisions.set(action.approvalId, approved);
        approve.setAttribute("aria-pressed", String(approved));
        deny.setAttribute("aria-pressed", String(!approved));
        submit();
      };
      approve.addEventListener("click", () => decide(true));
      deny.addEventListener("click", () => decide(false));
      box.append(el("div", { class: "action" }, el("p", {}, el("strong", {}, action.toolName || "tool"), " wants to run with:"), input,
        el("div", { class: "actions" }, approve, deny)));
    } else {
      const output = el("textarea", { rows: 2, "aria-label": `Result of ${action.toolName || "the tool"}` });
      const done = el("button", { type: "button" }, "Send result");
      done.addEventListener("click", () => {
        let value = output.value;
        try {
          value = JSON.parse(value);
        } catch {
          // Plain text is a valid tool output too.
        }
        decisions.set(action.toolCallId, value);
        submit();
      });
      box.append(el("div", { class: "action" }, el("p", {}, el("strong", {}, action.toolName || "tool"), " is yours to run, with:"), input, output,
        el("div", { class: "actions" }, done)));
    }
  }
  box.append(status);
  return box;
}

function renderParts(parts) {
  return parts.map(renderPart);
}

/** One part: text, data, inline bytes or URL. */
export function renderPart(part) {
  if (part.text !== undefined) return el("p", { class: "part text", dataset: { kind: "text" } }, part.text);
  if (part.data !== undefined) return el("pre", { class: "part code", dataset: { kind: "data" } }, pretty(part.data));
  if (part.raw !== undefined) {
    const name = part.filename || "file";
    const link = el("a", { href: "#", download: name }, `${name}`);
    link.addEventListener("click", () => {
      const bytes = Uint8Array.from(atob(part.raw), (char) => char.charCodeAt(0));
      link.href = URL.createObjectURL(new Blob([bytes], { type: part.mediaType || "application/octet-stream" }));
    }, { once: true });
    return el("p", { class: "part file", dataset: { kind: "file" } }, "📎 ", link, el("span", { class: "muted" }, ` ${part.mediaType || ""} · ${Math.floor((part.raw.length * 3) / 4)} bytes`));
  }
  if (part.url !== undefined) {
    return el("p", { class: "part file", dataset: { kind: "url" } }, "🔗 ", el("a", { href: part.url, target: "_blank", rel: "noreferrer" }, part.filename || part.url),
      el("span", { class: "muted" }, ` ${part.mediaType || ""}`));
  }
  return el("pre", { class: "part code", dataset: { kind: "other" } }, pretty(part));
}


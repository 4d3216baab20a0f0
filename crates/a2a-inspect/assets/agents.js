// Agents view: a gateway's registered agents, each probed through the gateway for whether it
// answers; Open connects to one with the credentials used for the gateway.

import { api, seg } from "./api.js";
import { $, clear, el, badge, showError, time } from "./dom.js";
import { current, state } from "./state.js";
import { connectTo } from "./connect.js";

/** Bumped at each render and connection change: probes of an older round are dropped. */
let generation = 0;

export function init() {
  $("agents-refresh").addEventListener("click", load);
}

export function shown() {
  load();
}

export function connectionChanged() {
  generation += 1;
  clear($("agents-body"));
  showError($("agents-error"), null);
  $("agents-status").textContent = "";
  if (current()?.gateway && document.body.dataset.view === "agents") load();
}

async function load() {
  const info = current();
  if (!info?.gateway) return;
  showError($("agents-error"), null);
  $("agents-status").textContent = "Loading…";
  try {
    const answer = await api("GET", `/api/connections/${seg(info.connection)}/agents`);
    // Another connection was picked meanwhile: its own load shows its agents.
    if (current()?.connection !== info.connection) return;
    render(info.connection, answer?.agents ?? []);
  } catch (error) {
    $("agents-status").textContent = "";
    showError($("agents-error"), error);
  }
}

function render(connection, agents) {
  const body = clear($("agents-body"));
  const round = ++generation;
  $("agents-status").textContent = agents.length ? `${agents.length} registered` : "No agents are registered with this gateway.";
  const auth = state.auth;
  for (const agent of agents) {
    const open = el("button", { type: "button", class: "primary", dataset: { testid: "open-agent", agentId: agent.id } }, "Open");
    open.addEventListener("click", () => connectTo(agent.url, auth));
    const status = el("td", { dataset: { testid: "liveness", status: "checking" } }, badge("checking…", "neutral"));
    body.append(el("tr", { dataset: { testid: "agent-row", agentId: agent.id } },
      el("td", {}, el("strong", {}, agent.name || agent.id), " ", el("code", { class: "muted" }, agent.id),
        agent.description ? el("p", { class: "muted small" }, agent.description) : null),
      status,
      el("td", { class: "num col-skills" }, String(agent.skills ?? "")),
      el("td", { class: "muted col-seen", title: agent.registeredAt ? `registered ${time(agent.registeredAt)}` : "" }, time(agent.lastSeen)),
      el("td", {}, open)));
    probe(connection, agent.id, status, round);
  }
}

const TONES = { live: "ok", unreachable: "bad", gone: "bad", timeout: "warn", busy: "warn", refused: "warn", unknown: "neutral" };

/** Asks whether `agentId` answers through the gateway, and shows it in `cell`. */
async function probe(connection, agentId, cell, round) {
  let answer;
  try {
    answer = await api("GET", `/api/connections/${seg(connection)}/agents/${seg(agentId)}/liveness`);
  } catch (error) {
    answer = { status: "unknown", message: error.message || String(error) };
  }
  if (round !== generation) return;
  clear(cell);
  cell.dataset.status = answer.status;
  cell.append(badge(answer.status, TONES[answer.status] ?? "neutral"));
  if (answer.ms !== undefined) cell.append(" ", el("span", { class: "muted small" }, `${answer.ms} ms`));
  cell.title = answer.message ?? "";
  if (answer.status !== "live" && answer.message) cell.append(el("p", { class: "muted small" }, answer.message));
}

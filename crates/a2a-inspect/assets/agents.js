// Agents view: a gateway's registered agents with their liveness; Open connects to one with
// the credentials used for the gateway.

import { api, seg } from "./api.js";
import { $, clear, el, badge, showError, time } from "./dom.js";
import { current, state } from "./state.js";
import { connectTo } from "./connect.js";

export function init() {
  $("agents-refresh").addEventListener("click", load);
}

export function shown() {
  load();
}

export function connectionChanged() {
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
    render(answer?.agents ?? []);
  } catch (error) {
    $("agents-status").textContent = "";
    showError($("agents-error"), error);
  }
}

function render(agents) {
  const body = clear($("agents-body"));
  $("agents-status").textContent = agents.length ? `${agents.length} registered` : "No agents are registered with this gateway.";
  const auth = state.auth;
  for (const agent of agents) {
    const open = el("button", { type: "button", class: "primary", dataset: { testid: "open-agent", agentId: agent.id } }, "Open");
    open.addEventListener("click", () => connectTo(agent.url, auth));
    body.append(el("tr", { dataset: { testid: "agent-row", agentId: agent.id } },
      el("td", {}, el("strong", {}, agent.name || agent.id), " ", el("code", { class: "muted" }, agent.id),
        agent.description ? el("p", { class: "muted small" }, agent.description) : null),
      el("td", {}, agent.live ? badge("live", "ok") : badge("stale", "warn")),
      el("td", { class: "num" }, String(agent.skills ?? "")),
      el("td", { class: "muted" }, time(agent.lastSeen)),
      el("td", {}, open)));
  }
}

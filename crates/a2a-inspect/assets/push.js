// Push view: the deliveries the inspector's own webhook received, live, with the token and
// signature checks it made.

import { api } from "./api.js";
import { $, el, badge, pretty, stateBadge, time } from "./dom.js";

const seen = new Set();

export async function init() {
  try {
    const info = await api("GET", "/api/info");
    $("push-webhook").textContent = info?.webhook ?? "";
  } catch {
    $("push-webhook").textContent = "(unknown)";
  }
  // The stream starts with every delivery kept, then each new one; `add` skips any it has.
  const source = new EventSource("/api/push/events");
  source.addEventListener("delivery", (message) => {
    try {
      add(JSON.parse(message.data));
    } catch {
      // Not a delivery: ignore.
    }
  });
}

function tokenBadge(check) {
  const tone = { ok: "ok", mismatch: "bad", absent: "neutral" }[check] ?? "neutral";
  const label = { ok: "token ok", mismatch: "token mismatch", absent: "no token" }[check] ?? `token ${check}`;
  return badge(label, tone);
}

function signatureBadge(check) {
  const tone = { verified: "ok", invalid: "bad", unsigned: "neutral", no_key: "warn" }[check] ?? "neutral";
  const label = { verified: "signature verified", invalid: "signature invalid", unsigned: "unsigned", no_key: "no key to verify" }[check] ?? `signature ${check}`;
  return badge(label, tone);
}

function add(delivery) {
  if (delivery?.id === undefined || seen.has(delivery.id)) return;
  seen.add(delivery.id);
  $("push-empty").hidden = true;
  const checks = delivery.checks ?? {};
  const item = el("li", { class: "delivery", dataset: { testid: "delivery", taskId: delivery.taskId ?? "", accepted: String(Boolean(delivery.accepted)) } },
    el("div", { class: "delivery-head" },
      el("span", { class: "muted" }, `#${delivery.id} ${time(delivery.time)}`),
      delivery.accepted ? badge("accepted", "ok") : badge("refused", "bad"),
      tokenBadge(checks.token), signatureBadge(checks.signature),
      delivery.state ? stateBadge(delivery.state) : null,
      !delivery.state && delivery.body?.artifactUpdate ? badge("artifact", "info") : null,
      delivery.taskId ? el("code", { class: "muted" }, `task ${delivery.taskId}`) : null,
      delivery.connection ? el("span", { class: "muted" }, delivery.connection) : null),
    el("details", {}, el("summary", {}, "Headers and body"),
      el("table", { class: "headers" }, el("tbody", {}, (delivery.headers ?? []).map(([name, value]) =>
        el("tr", {}, el("th", {}, name), el("td", {}, value))))),
      el("pre", { class: "code small" }, pretty(delivery.body))));
  $("push-list").prepend(item);
}

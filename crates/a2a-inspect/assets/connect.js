// Connect view: the URL, credentials and binding form, and the connected agent's card.

import { api } from "./api.js";
import { $, clear, el, badge, pretty, showError } from "./dom.js";
import { state, addConnection, current } from "./state.js";

let showView = () => {};

export function init({ show }) {
  showView = show;
  $("auth-kind").addEventListener("change", authFields);
  authFields();
  $("connect-form").addEventListener("submit", (event) => {
    event.preventDefault();
    connectTo($("connect-url").value.trim(), readAuth(), $("connect-binding").value || null);
  });
}

function authFields() {
  const kind = $("auth-kind").value;
  for (const field of document.querySelectorAll(".auth-field")) {
    field.hidden = !field.dataset.auth.split(" ").includes(kind);
  }
}

function readAuth() {
  const kind = $("auth-kind").value;
  switch (kind) {
    case "api_key": {
      const auth = { kind, value: $("auth-value").value };
      const header = $("auth-header").value.trim();
      if (header) auth.header = header;
      return auth;
    }
    case "bearer":
      return { kind, value: $("auth-value").value };
    case "oauth2":
      return {
        kind,
        tokenUrl: $("auth-token-url").value.trim(),
        clientId: $("auth-client-id").value.trim(),
        clientSecret: $("auth-client-secret").value,
        scopes: $("auth-scopes").value.split(/\s+/).filter(Boolean),
      };
    default:
      return { kind: "none" };
  }
}

/** Connects to `url` with `auth`; shows the card or a clear error. */
export async function connectTo(url, auth, binding = null) {
  const status = $("connect-status");
  const button = $("connect-button");
  showError($("connect-error"), null);
  if (!url) {
    showError($("connect-error"), { kind: "bad_request", message: "Enter the agent's URL (or its card's URL) first." });
    $("connect-url").focus();
    return;
  }
  $("connect-url").value = url;
  button.disabled = true;
  status.textContent = "Connecting…";
  try {
    const info = await api("POST", "/api/connect", { url, auth, binding });
    state.auth = auth;
    addConnection(info);
    status.textContent = "";
    showView("connect");
    // Connected, so the card can be read, but the agent refused the credentials: say so now
    // rather than on the first message.
    if (info.credentials?.status === "refused") showError($("connect-error"), info.credentials.error);
  } catch (error) {
    status.textContent = "";
    $("card-view").hidden = true;
    showError($("connect-error"), error);
  } finally {
    button.disabled = false;
  }
}

export function connectionChanged() {
  renderCard(current());
}

function section(title, ...body) {
  return el("section", { class: "card-section" }, el("h3", {}, title), ...body);
}

function definitions(rows) {
  return el("dl", { class: "facts" }, rows.filter(([, value]) => value !== undefined && value !== null && value !== "")
    .map(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]));
}

function signatureBadge(signature) {
  if (!signature) return null;
  const tone = { verified: "ok", unsigned: "neutral", invalid: "bad", no_key: "warn" }[signature.status] ?? "neutral";
  const label = { verified: "signature verified", unsigned: "unsigned", invalid: "signature invalid", no_key: "no key to verify" }[signature.status] ?? signature.status;
  const node = badge(label, tone);
  node.dataset.testid = "signature";
  node.title = [signature.keyId && `key ${signature.keyId}`, signature.detail].filter(Boolean).join(" — ");
  return node;
}

function renderCard(info) {
  const view = $("card-view");
  clear(view);
  if (!info) {
    view.hidden = true;
    return;
  }
  view.hidden = false;
  const card = info.card;
  const head = el("div", { class: "card-head" },
    el("h2", { dataset: { testid: "card-name" } }, card?.name || info.cardName || (info.gateway ? "Gateway" : info.url)),
    card?.version ? el("span", { class: "muted" }, `version ${card.version}`) : null,
    info.gateway ? badge("gateway", "info") : null,
    card ? signatureBadge(info.signature) : null);
  view.append(el("div", { class: "panel" }, head,
    card?.description ? el("p", { class: "description" }, card.description) : null,
    definitions([
      ["Connection", info.connection],
      ["URL", info.url],
      ["Card URL", info.cardUrl],
      ["Binding", info.binding],
      ["Credentials", credentialsFact(info.credentials)],
      ["Extended card", extendedFact(info)],
    ])));
  if (!card) {
    view.append(el("div", { class: "panel" }, el("p", { class: "muted" },
      info.gateway ? "This gateway has no card of its own: its registered agents are in the Agents view." : "The agent's card could not be read.")));
    return;
  }
  const grid = el("div", { class: "card-grid" });
  grid.append(el("div", { class: "panel" }, findings(info.findings ?? [])));
  grid.append(el("div", { class: "panel" }, section("Interfaces", interfaces(card.supportedInterfaces ?? [], info.bindings ?? []))));
  grid.append(el("div", { class: "panel" }, section("Capabilities", capabilities(card.capabilities ?? {}))));
  grid.append(el("div", { class: "panel" }, section("Security", security(card.securitySchemes ?? {}, card.securityRequirements ?? card.security ?? []))));
  grid.append(el("div", { class: "panel wide" }, section("Skills", skills(card.skills ?? []))));
  grid.append(el("div", { class: "panel wide" }, el("details", {}, el("summary", {}, "The card as served"), el("pre", { class: "code" }, pretty(card)))));
  const extended = info.credentials?.extendedCard;
  if (extended) {
    grid.append(el("div", { class: "panel wide" }, el("details", { dataset: { testid: "extended-card" } },
      el("summary", {}, `The extended card (${(extended.skills ?? []).length} skills)`), el("pre", { class: "code" }, pretty(extended)))));
  }
  view.append(grid);
}

/** What the connect's credentials check found, as a badge and a few words. */
function credentialsFact(check) {
  if (!check || check.status === "not_needed") return "none needed";
  const node = (label, tone, words) => {
    const holder = el("span", { dataset: { testid: "credentials", status: check.status } }, badge(label, tone), " ", el("span", { class: "muted" }, words));
    if (check.error?.message) holder.title = check.error.message;
    return holder;
  };
  switch (check.status) {
    case "accepted": return node("accepted", "ok", `by ${check.operation}`);
    // The refusal itself is in the error panel above the card right after connecting, and in
    // this badge's title.
    case "refused": return node("refused", "bad", `by ${check.operation}`);
    default: return node("not checked", "warn", `${check.operation} failed: ${check.error?.message ?? ""}`);
  }
}

function extendedFact(info) {
  if (info.credentials?.extendedCard) return "fetched with the credentials (below)";
  if (info.extendedCard) return "offered; not fetched";
  return info.extendedCard === undefined ? null : "no";
}

function findings(list) {
  const title = el("h3", {}, "Findings ", el("span", { class: "muted" }, list.length ? `(${list.length})` : ""));
  if (!list.length) return el("section", { class: "card-section" }, title, el("p", { class: "ok-text" }, "No problems found in the card."));
  const order = { error: 0, warning: 1, info: 2 };
  const sorted = [...list].sort((a, b) => (order[a.level] ?? 3) - (order[b.level] ?? 3));
  return el("section", { class: "card-section" }, title,
    el("ul", { class: "findings", dataset: { testid: "findings" } }, sorted.map((finding) =>
      el("li", { class: `finding level-${finding.level}` },
        badge(finding.level, { error: "bad", warning: "warn", info: "info" }[finding.level] ?? "neutral"),
        el("code", {}, finding.path || "card"), " ", finding.message))));
}

function interfaces(list, usable) {
  if (!list.length) return el("p", { class: "muted" }, "No interfaces listed.");
  return el("ul", { class: "plain" }, list.map((face) => el("li", {},
    el("strong", {}, face.protocolBinding || "?"), " ",
    el("span", { class: "muted" }, face.protocolVersion ? `v${face.protocolVersion}` : ""), " ",
    el("code", { class: "url" }, face.url || ""),
    usable.includes(face.protocolBinding) ? null : el("span", { class: "muted" }, " (not usable from here)"))));
}

function capabilities(caps) {
  const known = [["streaming", "Streaming"], ["pushNotifications", "Push notifications"], ["extendedAgentCard", "Extended card"], ["stateTransitionHistory", "State history"]];
  const rows = known.filter(([key]) => key in caps || key !== "stateTransitionHistory")
    .map(([key, label]) => el("li", {}, badge(caps[key] ? "yes" : "no", caps[key] ? "ok" : "neutral"), " ", label));
  const extensions = (caps.extensions ?? []).map((ext) => el("li", {}, badge("ext", "info"), " ", el("code", {}, ext.uri || "")));
  return el("ul", { class: "plain" }, rows, extensions);
}

function security(schemes, requirements) {
  const names = Object.keys(schemes);
  if (!names.length) return el("p", { class: "muted" }, "No security schemes: anyone may call.");
  return el("ul", { class: "plain" }, names.map((name) => {
    const scheme = schemes[name] ?? {};
    const kind = Object.keys(scheme)[0] ?? "";
    const body = scheme[kind] ?? {};
    const facts = Object.entries(body).filter(([, value]) => typeof value !== "object").map(([key, value]) => `${key}: ${value}`).join(", ");
    return el("li", {}, el("strong", {}, name), " ", badge(kind.replace(/SecurityScheme$/, "") || "scheme", "info"), " ",
      el("span", { class: "muted" }, facts));
  }), requirements.length ? el("li", { class: "muted" }, `Required: ${requirements.map((req) => Object.keys(req.schemes ?? req).join(" + ")).join(" or ")}`) : null);
}

function skills(list) {
  if (!list.length) return el("p", { class: "muted" }, "No skills listed.");
  return el("ul", { class: "skills" }, list.map((skill) => el("li", {},
    el("strong", {}, skill.name || skill.id), " ", el("code", { class: "muted" }, skill.id || ""),
    skill.description ? el("p", {}, skill.description) : null,
    (skill.tags ?? []).length ? el("p", { class: "tags" }, skill.tags.map((tag) => el("span", { class: "tag" }, tag))) : null,
    (skill.examples ?? []).length ? el("p", { class: "muted" }, `e.g. “${skill.examples[0]}”`) : null)));
}

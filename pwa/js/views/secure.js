// Field readiness: a banner when the app runs without a secure context (plain http on a LAN
// address: no offline shell, no install, no wake lock, no camera, no clipboard), and, on the
// organizer's screens, a warning when the invites would point where phones cannot go well.
import { h } from "../dom.js";
import { t } from "../i18n.js";

export function isLoopback(hostname) {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1";
}

export function insecureBanner() {
  if (window.isSecureContext) return null;
  return h("div", { class: "secure-warning no-print", role: "alert", testid: "insecure-banner" },
    h("strong", {}, t("secure.insecure_title")),
    h("span", {}, t("secure.insecure_lost")),
    h("span", {}, t("secure.insecure_do")));
}

// The origin the server gives join links (GET /api/join-origin), asked once per page load
// (again after a failure, but not on every render of an offline console).
const RETRY_MS = 30000;
let joinOrigin = null;
let asked = false;
let failedAt = -Infinity;

function ask(render) {
  if (performance.now() - failedAt < RETRY_MS) return;
  asked = true;
  fetch("/api/join-origin", { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : null))
    .then((answer) => {
      if (answer?.join_origin) joinOrigin = answer.join_origin;
      render();
    })
    .catch(() => { // no signal: ask again on a later render, a while from now
      asked = false;
      failedAt = performance.now();
    });
}

export function inviteAddressWarning(app) {
  if (!asked) ask(app.render);
  if (!joinOrigin) return null;
  let url;
  try {
    url = new URL(joinOrigin);
  } catch {
    return null;
  }
  const problem = isLoopback(url.hostname) ? "loopback" : url.protocol === "http:" ? "insecure" : null;
  if (!problem) return null;
  return h("div", {
    class: "secure-warning no-print", role: "alert", testid: "invite-address-warning", "data-problem": problem,
  },
  h("strong", {}, t(`secure.invites_${problem}_title`)),
  h("span", {}, t(`secure.invites_${problem}`, { origin: joinOrigin })),
  h("span", {}, t("secure.invites_do")));
}

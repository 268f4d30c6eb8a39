// Field readiness: a banner when the app runs without a secure context (plain http on a LAN
// address: no offline shell, no install, no wake lock, no camera, no clipboard), and, on the
// organizer's screens, the route the invites take to the phones (GET /api/join-origin): one short
// line when they are fine (a trusted certificate; the laptop's own CA, whose page each phone opens
// first), a warning when they would point where phones cannot go well (loopback, plain http).
import { h } from "../dom.js";
import { t } from "../i18n.js";

export function insecureBanner() {
  if (window.isSecureContext) return null;
  return h("div", { class: "secure-warning no-print", role: "alert", testid: "insecure-banner" },
    h("strong", {}, t("secure.insecure_title")),
    h("span", {}, t("secure.insecure_lost")),
    h("span", {}, t("secure.insecure_do")));
}

// What the server says of the join links (GET /api/join-origin: join_origin, route, ca_page),
// asked once per page load (again after a failure, but not on every render of an offline console).
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
      if (answer?.join_origin) joinOrigin = answer;
      render();
    })
    .catch(() => { // no signal: ask again on a later render, a while from now
      asked = false;
      failedAt = performance.now();
    });
}

const ROUTES = ["trusted", "field-ca", "loopback", "insecure"];

// The route line (testid field-route, data-route): a compact line for a trusted certificate or the
// field's own CA; for loopback and plain http it is the title of the warning
// (invite-address-warning, data-problem) that says what phones will lack and what to do.
export function fieldRoute(app) {
  if (!asked) ask(app.render);
  const { join_origin: origin, route, ca_page: page } = joinOrigin ?? {};
  if (!ROUTES.includes(route)) return null;
  const line = { testid: "field-route", "data-route": route };
  if (route === "trusted" || route === "field-ca") {
    return h("p", { class: `field-route route-${route} no-print`, ...line },
      h("strong", {}, t("secure.route_label")), " ",
      route === "trusted" ? t("secure.route_trusted", { origin }) : t("secure.route_field_ca", { page }));
  }
  return h("div", {
    class: "secure-warning no-print", role: "alert", testid: "invite-address-warning", "data-problem": route,
  },
  h("strong", line, t(`secure.invites_${route}_title`)),
  h("span", {}, t(`secure.invites_${route}`, { origin })),
  h("span", {}, t("secure.invites_do")));
}

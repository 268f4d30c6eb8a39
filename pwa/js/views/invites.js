// The printable sheet of QR invites (the server draws the QR codes), headed by the field CA's page
// when phones must trust the laptop's own certificate authority first.
import { h, svgNode } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { api } from "../api.js";

export function invitesScreen(app, game) {
  const ui = app.ui;
  if (ui.invitesFor !== game.token) load(app, game);
  const invites = ui.invites;
  return h("main", { class: "invites-page" },
    h("div", { class: "toolbar no-print" },
      h("a", { class: "button secondary", href: "#/", testid: "back-to-console" }, t("back")),
      h("button", { class: "secondary", testid: "reload-invites", onclick: () => { load(app, game); app.render(); } }, t("invites.reload")),
      h("button", { class: "primary", testid: "print-invites", onclick: () => window.print() }, t("invites.print"))),
    h("h1", { class: "no-print" }, t("invites.title", { count: invites?.length ?? 0 })),
    ui.invitesError && h("div", { class: "error", testid: "notice" }, ui.invitesError),
    !invites && !ui.invitesError && h("p", {}, t("loading")),
    invites && caStep(ui.invitesCaPage),
    invites && h("div", { class: "invite-sheet", testid: "invites" }, invites.map((inv) => h("div", {
      class: "invite", testid: `invite-${inv.player_id}`,
    },
    h("div", { class: "invite-game" }, game.view?.game?.name ?? "Bij se"),
    h("div", { class: "invite-name" }, inv.name),
    inv.role !== "player" && h("div", { class: "invite-role" }, t(`role.${inv.role}`)),
    inv.team && h("div", { class: "invite-team", testid: "invite-team" }, t("invite.team", { team: teamName(game.view, inv.team) })),
    h("div", { class: "invite-qr" }, svgNode(inv.qr_svg)),
    h("div", { class: "invite-code" }, t("invite.code"), " ", h("strong", {}, inv.code)),
    h("div", { class: "invite-hint" }, t("invite.hint")),
    h("div", { class: "invite-url", testid: "invite-url" }, inv.join_url)))));
}

async function load(app, game) {
  Object.assign(app.ui, { invitesFor: game.token, invites: null, invitesCaPage: null, invitesError: null });
  try {
    const answer = await api.invites(game.gameId, game.token);
    app.set({ invites: answer.invites, invitesCaPage: answer.ca_page ?? null });
  } catch (err) {
    app.set({ invitesError: errorText(err.code, err.message) });
  }
}

// On the field's own certificate authority (bijse serve --field-ca-page), the sheet starts with its
// page: every phone trusts the CA there before its invite opens over https. Printed with the sheet.
function caStep(page) {
  if (!page?.url) return null;
  return h("div", { class: "invite-ca-step", testid: "invite-ca-step" },
    h("div", { class: "invite-qr" }, svgNode(page.qr_svg)),
    h("div", { class: "invite-ca-words" },
      h("p", { class: "invite-ca-do" }, t("invites.ca_step")),
      h("p", { class: "invite-ca-url", testid: "invite-ca-url" }, page.url)));
}

// A team's name from the game's config (a ruleset with teams lists them there), else its id.
function teamName(view, teamId) {
  return (view.game?.config?.teams || []).find((team) => team.team_id === teamId)?.name ?? teamId;
}

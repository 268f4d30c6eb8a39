// The public part: the game and its players (from the directory). Also the fallback for a
// ruleset this app cannot play yet.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { playersList } from "./common.js";

export function spectatorScreen(app, game, { unsupported = false } = {}) {
  const { game: info, me } = game.view;
  return h("main", { class: "spectator", testid: "spectator" },
    h("h1", {}, info?.name ?? ""),
    h("span", { class: `chip status-${info?.status}`, testid: "game-status", "data-status": info?.status }, t(`status.${info?.status}`)),
    unsupported && h("p", { class: "banner info", testid: "unsupported" }, t("ruleset.unsupported", { ruleset: info?.ruleset })),
    me?.code && h("section", { class: "me" },
      h("div", { class: "me-name" }, me.name),
      h("div", { class: "code", testid: "my-code" }, me.code)),
    playersList(app, game));
}

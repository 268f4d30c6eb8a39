// coin-toss (a test ruleset): a player's phone tosses its coins, the organizer's console adds
// players and shows the tally. What a phone may do comes from the view's `may` alone.
import { h } from "../../dom.js";
import { errorText, t } from "../../i18n.js";
import { gameHead, gameOver, memberForm, sending } from "../../views/common.js";

export function screen(app, game) {
  const me = game.view.me;
  return me?.role === "organizer" ? console_(app, game) : phone(app, game);
}

export function awake() {
  return false;
}

function phone(app, game) {
  const view = game.view;
  const me = view.me;
  const toss = view.may?.toss;
  const ended = view.game.status === "ended";
  return h("main", { class: "coin-toss", testid: "coin-phone" },
    h("h1", {}, me.name),
    me.code && h("div", { class: "code", testid: "my-code" }, me.code),
    ended ? gameOver(game, { mine: t("ct.mine", { count: heads(view, me.player_id) }), result: winners(view) })
      : me.role === "player" && h("section", {},
        h("button", {
          class: "primary wide", testid: "coin-toss", disabled: toss !== true || sending(game, "toss"),
          onclick: () => game.send({ type: "toss" }),
        }, t("ct.toss")),
        toss !== true && toss && h("p", { class: "hint", testid: "coin-refused" }, errorText(toss.code, "", "coin-toss")),
        h("p", { testid: "coin-left" }, t("ct.left", { count: me.left ?? 0 }))),
    h("ol", { class: "plain", testid: "coin-tosses" }, (me.tosses || []).map((side) => h("li", { class: "ct-side" }, t(`ct.side.${side}`)))),
    tallyList(view));
}

function console_(app, game) {
  return h("main", { class: "organizer", testid: "coin-console" },
    gameHead(app, game, { chips: [t("ct.per_player", { count: game.view.game.config?.tosses ?? 3 })] }),
    tallyList(game.view),
    memberForm(app, game, { roles: ["player", "organizer", "spectator"] }));
}

function heads(view, playerId) {
  return view.tally?.[playerId]?.heads ?? 0;
}

function winners(view) {
  const rows = Object.values(view.tally || {});
  const best = Math.max(0, ...rows.map((r) => r.heads));
  const names = rows.filter((r) => r.heads === best && best > 0).map((r) => r.name);
  return h("p", { testid: "coin-winners" }, names.length ? t("ct.won", { names: names.join(", "), count: best }) : t("ct.no_winner"));
}

function tallyList(view) {
  return h("section", { testid: "coin-tally" },
    h("h2", {}, t("ct.tally")),
    h("ul", { class: "plain" }, Object.entries(view.tally || {}).map(([pid, row]) => h("li", { testid: `coin-row-${pid}` },
      row.name, " · ", t("ct.heads", { count: row.heads }), " · ", t("ct.tails", { count: row.tails })))));
}

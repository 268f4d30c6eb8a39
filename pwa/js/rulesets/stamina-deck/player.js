// A player's phone in a stamina-deck game: their character's lives and wound, the counts of its
// piles, its hand drawn big, what it must answer now, its bouts (the opponent's card down, never
// which), the actions of its turn, the mat around it, the others and the public feed.
// A spectator (and a member with no character) sees the public part.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { alarm } from "../../alerts.js";
import { boutsIn, boutsOf, charactersOf, duty, mine as mineOf } from "./stamina.js";
import { count } from "../../keyed.js";
import { actorPanel, deckUi } from "./actions.js";
import {
  actionDots, boutBox, cardFace, countsLine, feedList, livesBar, livesText, loadedChip, orderList, roundLine, statsGrid,
  waitingLine, woundChip,
} from "./common.js";
import { matView } from "./mat.js";
import { gameOver } from "../../views/common.js";

// The phone stays awake while one of its characters is in a running fight.
export function deckNeedsAwake(view) {
  return Boolean(view?.me?.role === "player" && view.game?.status === "running" && view.round > 0 && view.me.characters?.length);
}

let rang = null; // the duty the phone last buzzed for

export function deckPlayerScreen(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  const { me, game: info } = view;
  const mine = mineOf(view);
  const own = charactersOf(view).filter((c) => mine.has(c.character_id));
  const active = own.find((c) => c.character_id === ui.tab) ?? own[0];
  // Something to answer (a shot, owed cards, the initiative, the turn): buzz once.
  const tasks = own.map((c) => [c.character_id, duty(view, c.character_id)]).filter(([, d]) => d);
  const key = tasks.length ? tasks.map(([id, d]) => `${id}:${d.kind}:${view.round}:${d.shot?.shot_id ?? d.bout?.bout_id ?? ""}`).join("|") : null;
  if (key && key !== rang) alarm();
  rang = key;
  return h("main", { class: "deck-player", testid: "deck-player" },
    info.status === "lobby" && h("div", { class: "banner info", testid: "lobby-banner" }, t("game.lobby")),
    info.status === "ended" && gameOver(game, { mine: own.length ? outcome(own) : null, result: standings(view) }),
    !own.length && !me && h("h1", { class: "me-name", testid: "watch-title" }, info.name),
    !own.length && me && h("section", { class: "me", testid: "no-character" },
      h("h1", { class: "me-name", testid: "my-name" }, me.name),
      h("div", { class: "code", testid: "my-code" }, me.code),
      h("p", { class: "hint" }, t("sd.player.no_character"))),
    own.length > 1 && h("div", { class: "seg tabs", role: "tablist" }, own.map((c) => h("button", {
      type: "button", class: `secondary ${c === active ? "on" : ""}`, role: "tab", testid: `deck-tab-${c.character_id}`, "aria-selected": String(c === active),
      onclick: () => { ui.tab = c.character_id; app.render(); },
    }, c.name, tasks.some(([id]) => id === c.character_id) ? " •" : ""))),
    waitingLine(view, { mine, skip: mine }),
    active && myCharacter(view, active),
    active && info.status !== "ended" && actorPanel(app, game, active, { mine }),
    view.round > 0 && h("section", { class: "turns" }, roundLine(view), orderList(view, { mine })),
    count(view.characters) > 0 && matView(app, game, { scroll: true }),
    others(view, mine, active),
    feedList(view, { mine }));
}

function myCharacter(view, c) {
  const turn = view.phase === "actions" && view.turn === c.character_id;
  return h("section", { class: `my-character wound-${c.wound ?? "none"} ${turn ? "on-turn" : ""}`, testid: `deck-me-${c.character_id}` },
    h("div", { class: "my-head" },
      h("div", {}, h("h1", { class: "me-name" }, c.name), h("div", { class: "muted" }, c.side)),
      woundChip(c, `deck-wound-${c.character_id}`)),
    c.wound === "heavy" && h("div", { class: "banner dead", testid: "deck-heavy-banner" }, h("strong", {}, t("sd.player.heavy"))),
    c.wound === "medium" && h("div", { class: "banner wound", testid: "deck-medium-banner" }, h("strong", {}, t("sd.player.medium"))),
    h("div", { class: "big-lives" },
      h("span", { class: "heart", "aria-hidden": "true" }, "♥"),
      h("span", { testid: `deck-lives-${c.character_id}`, "data-lives": String(c.lives_left) }, livesText(c)),
      livesBar(c)),
    countsLine(c, `deck-counts-${c.character_id}`),
    h("div", { class: "my-row" },
      c.initiative && h("span", { class: "init-line" }, h("span", { class: "muted" }, t("sd.initiative")), cardFace(c.initiative, { size: "mini" })),
      view.phase === "actions" && actionDots(c),
      loadedChip(c),
      c.cover > 0 && h("span", { class: "chip" }, t("sd.cover_n", { n: c.cover }))),
    h("details", { class: "older" }, h("summary", {}, t("sd.player.numbers")), statsGrid(c)));
}

// Everybody else at the table: lives, wounds, counts and fights (never their cards).
function others(view, mine, active) {
  const list = charactersOf(view).filter((c) => !mine.has(c.character_id));
  if (!list.length) return null;
  const foreignBouts = boutsIn(view).filter((b) => !mine.has(b.attacker) && !mine.has(b.defender));
  return h("section", { class: "others", testid: "deck-others" },
    h("h2", {}, t("sd.player.others", { count: list.length })),
    h("ul", { class: "plain" }, list.map((c) => h("li", { class: `other-row wound-${c.wound ?? "none"}`, testid: `deck-other-${c.character_id}` },
      h("div", { class: "other-head" },
        h("strong", {}, c.name), h("span", { class: "muted" }, c.side),
        h("span", { class: "dc-lives" }, h("span", { class: "heart" }, "♥"), h("b", { testid: `deck-lives-${c.character_id}`, "data-lives": String(c.lives_left) }, livesText(c))),
        woundChip(c, `deck-wound-${c.character_id}`),
        c.in_melee && h("span", { class: "chip duel" }, active && boutsOf(view, c.character_id).some((b) => [b.attacker, b.defender].includes(active.character_id)) ? t("sd.player.fights_you") : t("sd.in_melee")),
        c.initiative && cardFace(c.initiative, { size: "mini" })),
      countsLine(c, `deck-counts-${c.character_id}`)))),
    foreignBouts.length > 0 && h("details", { class: "older" },
      h("summary", {}, t("sd.bouts.others", { count: foreignBouts.length })),
      foreignBouts.map((b) => boutBox(view, b, { mine, hooks: false }))));
}

// Once the game has ended: how each of the player's characters came out of it.
function outcome(own) {
  return own.map((c) => h("span", { class: "sd-outcome", testid: `deck-outcome-${c.character_id}`, "data-wound": c.wound ?? "none" },
    t("sd.over.mine", { name: c.name, left: c.lives_left, lives: c.lives, wound: t(`sd.wound.${c.wound ?? "none"}`), state: t(`sd.over.${standing(c)}`) })));
}

// The game's result: every character, side by side, with its lives, its wound, standing or out.
function standings(view) {
  const list = charactersOf(view);
  if (!list.length) return null;
  return h("ul", { class: "plain sd-standings", testid: "deck-standings" }, list.map((c) => h("li", {
    class: `wound-${c.wound ?? "none"}`, testid: `deck-standing-${c.character_id}`, "data-state": standing(c),
  },
  h("strong", {}, c.name), " ", h("span", { class: "muted" }, c.side), " ",
  h("span", { class: "dc-lives" }, h("span", { class: "heart", "aria-hidden": "true" }, "♥"), livesText(c)), " ",
  woundChip(c), " ", t(`sd.over.${standing(c)}`))));
}

// Standing (unhurt or lightly wounded), out of the fight (medium) or down where they fell (heavy).
const standing = (c) => (c.wound === "heavy" ? "down" : c.wound === "medium" ? "out" : "standing");

// stamina-deck pieces both the GM's table and a player's phone draw: playing cards (face up and
// face down), lives and wound severity, pile counts, the initiative order, the fights and the feed.
import { h } from "../../dom.js";
import { errorText, t } from "../../i18n.js";
import { ACTIONS, EXCHANGES, LIMPING_MOVES, SUITS, cardLabel, characterOf, charactersOf, isRed, nameOf } from "./stamina.js";
import { sending } from "../../views/common.js";


// Why the server would refuse (or did refuse) something, in this ruleset's words.
export function refusalText(code) {
  return errorText(code, "", "stamina-deck");
}

// The suit's word agrees with the rank's: "sd.suit.<suit>" (a dvojka, a dáma), ".m" (kluk, král),
// ".n" (eso) — the genders of the Czech rank words.
const RANK_GENDER = { J: ".m", K: ".m", A: ".n" };

function cardName(card) {
  const suit = t(`sd.suit.${card.suit}${RANK_GENDER[card.rank] ?? ""}`);
  return t("sd.card.name", { rank: t(`sd.rank.${card.rank}`), suit, value: card.value });
}

// A playing card, face up: rank, suit symbol, red or black, value. A button when it can be tapped.
export function cardFace(card, { testid = null, onclick = null, selected = false, size = "", disabled = false, note = null } = {}) {
  const attrs = {
    class: `pcard ${isRed(card) ? "red" : "black"} ${size} ${selected ? "selected" : ""}`,
    testid, "data-card": card.card_id, title: cardName(card),
  };
  // The card's name is read out as text, the face is drawn for the eye (a button's label must
  // hold its visible text, axe's label-content-name-mismatch: so no aria-label).
  const face = [
    h("span", { class: "sr-only" }, cardName(card)),
    h("span", { class: "pc-rank", "aria-hidden": "true" }, card.rank),
    h("span", { class: "pc-suit", "aria-hidden": "true" }, SUITS[card.suit]),
    h("span", { class: "pc-value", "aria-hidden": "true" }, String(card.value)),
    note && h("span", { class: "pc-note" }, note),
  ];
  if (!onclick) return h("span", attrs, face);
  return h("button", { ...attrs, type: "button", onclick, disabled, "aria-pressed": String(selected) }, face);
}

// A card lying face down: whose it is may be known, which never.
export function cardBack({ testid = null, label = t("sd.card.down"), size = "" } = {}) {
  return h("span", { class: `pcard back ${size}`, testid, role: "img", "aria-label": label, title: label },
    h("span", { class: "pc-back-label" }, label));
}

// An empty place for a card that is not down yet.
export function cardSlot(label) {
  return h("span", { class: "pcard slot" }, h("span", { class: "pc-back-label" }, label));
}

// A short list of cards as text chips (the feed, the GM's piles).
export function cardChips(cards, { empty = "–" } = {}) {
  if (!cards?.length) return h("span", { class: "muted" }, empty);
  return h("span", { class: "pc-chips" }, cards.map((card) => h("span", { class: `pc-chip ${isRed(card) ? "red" : "black"}`, title: cardName(card) }, cardLabel(card))));
}

export function woundChip(c, testid = null) {
  const level = c.wound ?? "none";
  return h("span", { class: `chip wound-chip wound-${level}`, testid, "data-wound": level }, t(`sd.wound.${level}`));
}

export function livesText(c) {
  return `${c.lives_left} / ${c.lives}`;
}

export function livesBar(c) {
  const share = Math.max(0, Math.min(1, c.lives_left / Math.max(1, c.lives)));
  return h("span", { class: `lives-bar sd-lives wound-${c.wound ?? "none"}`, "aria-hidden": "true" },
    h("span", { style: `width: ${Math.round(share * 100)}%` }));
}

// Deck, hand, threat and discard as counts (what everybody may know).
export function countsLine(c, testid = null) {
  const n = c.counts;
  const item = (key, value) => h("span", { class: `count count-${key}`, "data-count": String(value), title: t(`sd.pile.${key}`) },
    h("span", { class: "count-label" }, t(`sd.pile.${key}`)), " ", h("b", {}, String(value)));
  return h("span", { class: "counts", testid, "data-deck": String(n.deck), "data-hand": String(n.hand), "data-threat": String(n.threat), "data-discard": String(n.discard) },
    item("deck", n.deck), item("hand", n.hand), item("threat", n.threat), item("discard", n.discard));
}

// The three actions of a round as dots (used ones hollow).
export function actionDots(c) {
  const left = Math.max(0, c.actions_left);
  const total = Math.max(left, c.wound === "medium" ? LIMPING_MOVES : ACTIONS);
  return h("span", { class: "action-dots", role: "img", title: t("sd.actions_left", { count: left }), "aria-label": t("sd.actions_left", { count: left }) },
    Array.from({ length: total }, (_, i) => h("span", { class: `dot ${i < left ? "on" : ""}` })));
}

export function weaponText(c) {
  const w = c.weapon;
  if (!w) return t("sd.no_weapon");
  const bits = [w.name];
  if (w.ranged) bits.push(t("sd.weapon.sz", { n: w.sz }));
  if (w.melee) bits.push(t("sd.weapon.melee_cards", { n: w.melee_cards }));
  if (w.ranged && w.reload_speed) bits.push(t("sd.weapon.reload", { n: w.reload_speed }));
  return bits.join(" · ");
}

export function loadedChip(c) {
  if (!c.weapon?.ranged) return null;
  return c.loaded ? h("span", { class: "chip ok" }, t("sd.loaded"))
    : h("span", { class: "chip wait" }, t("sd.unloaded", { progress: c.reload.progress, needed: c.reload.needed }));
}

// Numbers of a character: attack and defence numbers, skills, weapon, armour, cover.
export function statsGrid(c) {
  const cell = (label, value, title) => h("div", { class: "stat", title }, h("span", { class: "stat-label" }, label), h("b", {}, String(value)));
  return h("div", { class: "stats" },
    cell(t("sd.un_short"), c.attack_number, t("sd.attack_number")),
    cell(t("sd.oc_short"), c.defence_number, t("sd.defence_number")),
    cell(t("sd.field.agi"), c.agi),
    cell(t("sd.field.shooting"), c.shooting),
    cell(t("sd.field.melee"), c.melee),
    cell(t("sd.field.unarmed"), c.unarmed),
    cell(t("sd.melee_hand"), c.melee_hand),
    cell(t("sd.field.armour"), c.armour),
    cell(t("sd.cover"), c.cover),
    h("div", { class: "stat wide-stat" }, h("span", { class: "stat-label" }, t("sd.field.weapon")), h("b", {}, weaponText(c))));
}

// The round and whose turn it is.
export function roundLine(view) {
  const phase = view.phase;
  const turn = view.turn;
  return h("div", { class: `turn-now ${turn && new Set(view.me?.characters ?? []).has(turn) ? "mine" : ""}`, testid: "deck-round", "data-round": String(view.round), "data-phase": phase, "data-turn": turn ?? "" },
    h("span", { class: "turn-round" }, view.round ? t("sd.round", { round: view.round }) : t("sd.before_rounds")),
    h("strong", {}, phase === "initiative" ? t("sd.phase.initiative")
      : phase === "actions" ? (turn ? t("sd.turn_of", { name: nameOf(view, turn) }) : t("sd.turns_done"))
        : t("sd.phase.setup")));
}

// The order of the round with each one's initiative card; the turn highlighted.
export function orderList(view, { onPick = null, mine = new Set() } = {}) {
  const seats = view.order.length ? view.order
    : view.phase === "initiative" ? charactersOf(view).filter((c) => c.initiative || c.counts.choice > 0).map((c) => c.character_id) : [];
  if (!seats.length) return null;
  const turnIndex = view.order.indexOf(view.turn);
  return h("ol", { class: "order", testid: "deck-order" }, seats.map((id, i) => {
    const c = characterOf(view, id);
    if (!c) return null;
    const current = view.phase === "actions" && id === view.turn;
    const choosing = view.phase === "initiative" && c.counts.choice > 0;
    const name = h("span", { class: "order-name" }, c.name, mine.has(id) && h("span", { class: "chip ok" }, t("sd.you")));
    return h("li", {
      class: `order-row ${current ? "current" : ""} ${turnIndex >= 0 && i < turnIndex ? "done" : ""} ${mine.has(id) ? "mine" : ""} wound-${c.wound ?? "none"}`,
      testid: `deck-order-${id}`, "aria-current": current ? "true" : null,
    },
    h("span", { class: "order-pos" }, view.order.length ? String(i + 1) : "·"),
    onPick ? h("button", { type: "button", class: "linkish", onclick: () => onPick(id) }, name) : name,
    c.initiative ? cardFace(c.initiative, { size: "mini" }) : view.order.length && h("span", { class: "muted tiny" }, t("sd.no_initiative")),
    h("span", { class: "chips" },
      current && h("span", { class: "chip ok" }, t("sd.on_turn")),
      choosing && h("span", { class: "chip wait" }, t("sd.choosing")),
      c.wound && woundChip(c),
      view.phase === "actions" && actionDots(c)));
  }));
}

// The last revealed exchange of a bout, from the public feed.
export function lastExchange(view, boutId) {
  const feed = view.feed || [];
  for (let i = feed.length - 1; i >= 0; i -= 1) {
    if (feed[i].kind === "exchange" && feed[i].bout_id === boutId) return feed[i];
  }
  return null;
}

// Both cards of a revealed exchange, side by side, and who won it.
// A character's name; the viewer's own ones marked "(you)".
export function whoName(view, id, mine = new Set()) {
  return mine.has(id) ? t("sd.you_named", { name: nameOf(view, id) }) : nameOf(view, id);
}

export function exchangeView(view, entry, { testid = null, mine = new Set() } = {}) {
  const who = (id) => whoName(view, id, mine);
  const side = (id) => {
    const card = entry.cards[id];
    const won = (entry.result === "attacker" && id === entry.attacker) || (entry.result === "defender" && id === entry.defender);
    return h("div", { class: `ex-side ${won ? "won" : ""}`, "data-character": id },
      h("span", { class: "ex-who" }, who(id)),
      card ? cardFace(card, { size: "small" }) : cardSlot(t("sd.card.none")),
      h("b", { class: "ex-value" }, String(entry.values[id])));
  };
  const verdict = entry.result === "tie" ? t("sd.exchange.tie")
    : entry.result === "attacker" ? t("sd.exchange.attacker_won", { name: who(entry.attacker), loser: who(entry.defender), count: entry.difference })
      : t("sd.exchange.defender_won", { name: who(entry.defender), count: entry.difference });
  return h("div", { class: `exchange result-${entry.result}`, testid, "data-exchange": String(entry.exchange), "data-result": entry.result },
    h("div", { class: "ex-title" }, entry.opportunity ? t("sd.exchange.opportunity") : t("sd.exchange.n", { n: entry.exchange })),
    h("div", { class: "ex-cards" }, side(entry.attacker), h("span", { class: "vs" }, "⚔"), side(entry.defender)),
    h("div", { class: "ex-verdict" }, verdict));
}

// A bout: the two fighters, who holds its initiative, the exchange count, the cards down (only
// their owner and the GM see which), and the last exchange. `play` adds the viewer's button.
export function boutBox(view, bout, { mine = new Set(), play = null, extra = null, hooks = true } = {}) {
  const hook = (name) => (hooks ? name : null);
  const slot = (id) => {
    const down = bout.down[id];
    const shown = bout.plays?.[id];
    const label = h("div", { class: "bout-who" },
      h("strong", {}, mine.has(id) ? t("sd.you_named", { name: nameOf(view, id) }) : nameOf(view, id)),
      id === bout.attacker && h("span", { class: "chip ok", title: t("sd.bout.initiative_hint") }, t("sd.bout.initiative")));
    let card;
    if (!down) card = cardSlot(t("sd.card.not_yet"));
    else if (shown?.card) card = cardFace(shown.card, { size: "small", note: t(shown.source === "deck" ? "sd.card.down_deck" : "sd.card.down_mine") });
    else if (shown) card = cardSlot(t("sd.card.none"));
    else card = cardBack();
    return h("div", { class: `bout-side ${down ? "is-down" : ""}`, testid: down ? hook(`deck-down-${id}`) : null, "data-down": String(Boolean(down)) }, label, card);
  };
  const last = lastExchange(view, bout.bout_id);
  return h("div", { class: `bout ${bout.opportunity ? "opportunity" : ""}`, testid: hook(`deck-bout-${bout.bout_id}`), "data-exchanges": String(bout.exchanges), "data-attacker": bout.attacker },
    h("div", { class: "bout-head" },
      h("span", { class: "bout-count" }, bout.opportunity ? t("sd.exchange.opportunity") : t("sd.bout.exchanges", { n: bout.exchanges, of: EXCHANGES }))),
    h("div", { class: "bout-sides" }, slot(bout.attacker), h("span", { class: "vs" }, "⚔"), slot(bout.defender)),
    play,
    last && exchangeView(view, last, { testid: hook(`deck-exchange-${bout.bout_id}`), mine }),
    extra);
}

// What the table waits for, in words.
// `skip`: characters whose own prompt already says it (a phone's).
export function waitingLine(view, { mine = new Set(), skip = new Set() } = {}) {
  const w = view.waiting || {};
  const who = (id) => whoName(view, id, mine);
  const lines = [];
  if (w.shot && !skip.has(w.shot.target)) lines.push(t("sd.wait.shot", { target: who(w.shot.target), shooter: who(w.shot.shooter), attack: w.shot.attack }));
  for (const d of w.debts || []) if (!skip.has(d.character_id)) lines.push(t(`sd.wait.debt_${d.to}`, { name: who(d.character_id), count: d.count }));
  if (w.leaving) lines.push(t("sd.wait.leaving", { name: who(w.leaving.character_id) }));
  if (!lines.length) return null;
  return h("div", { class: "banner wound sd-waiting", testid: "deck-waiting" }, lines.map((line) => h("div", {}, line)));
}

// The public results, newest first.
export function feedList(view, { mine = new Set(), limit = 20 } = {}) {
  const entries = (view.feed || []).map((e, i) => [e, i]).reverse().slice(0, limit);
  return h("section", { class: "sd-feed", testid: "deck-feed" },
    h("h2", {}, t("sd.feed.title")),
    !entries.length && h("p", { class: "hint" }, t("sd.feed.empty")),
    h("ol", { class: "feed-lines", reversed: true }, entries.map(([e, i]) => h("li", { class: `feed-${e.kind}`, "data-kind": e.kind, testid: `deck-feed-${i}` }, feedLine(view, e, mine)))));
}

export function feedLine(view, e, mine = new Set()) {
  const who = (id) => whoName(view, id, mine);
  const card = (c) => (c ? cardChips([c]) : h("span", { class: "muted" }, t("sd.card.none")));
  switch (e.kind) {
    case "initiative": return [h("strong", {}, t("sd.feed.initiative", { round: e.round })), " ",
      e.order.map((id, i) => [i ? ", " : "", who(id), " ", e.cards[id] ? card(e.cards[id]) : h("span", { class: "muted" }, "–"),
        e.tiebreaks?.[id]?.length ? [" ", h("span", { class: "muted tiny" }, t("sd.feed.tiebreak")), " ", cardChips(e.tiebreaks[id])] : ""])];
    case "shot": return [t(e.aimed ? "sd.feed.aimed" : "sd.feed.shot", { shooter: who(e.shooter), target: who(e.aimed_at), attack: e.attack }), " ", cardChips(e.cards),
      e.into_melee ? [" · ", t("sd.feed.into_melee")] : "",
      e.check ? [" · ", t("sd.feed.check"), " ", card(e.check)] : "",
      e.deflected ? [" · ", h("strong", {}, t("sd.feed.deflected", { name: who(e.target) }))] : ""];
    case "defence": return [t("sd.feed.defence", { target: who(e.target), defence: e.defence }), " ", card(e.card),
      e.source === "deck" ? [" ", h("span", { class: "muted tiny" }, t("sd.feed.from_deck"))] : "", " → ",
      h("strong", {}, e.hit ? t("sd.feed.hit", { count: e.damage }) : t("sd.feed.miss"))];
    case "exchange": return [t(e.opportunity ? "sd.feed.opportunity" : "sd.feed.exchange", { n: e.exchange }), " ",
      who(e.attacker), " ", card(e.cards[e.attacker]), " ⚔ ", who(e.defender), " ", card(e.cards[e.defender]), " → ",
      h("strong", {}, e.result === "tie" ? t("sd.exchange.tie") : e.result === "attacker"
        ? t("sd.exchange.attacker_won", { name: who(e.attacker), loser: who(e.defender), count: e.difference })
        : t("sd.exchange.defender_won", { name: who(e.defender), count: e.difference }))];
    case "wound": return h("strong", {}, t("sd.feed.wound", { name: who(e.character_id), count: e.lives_lost, left: e.lives_left, severity: t(`sd.wound.${e.severity}`) }));
    default: return e.kind;
  }
}

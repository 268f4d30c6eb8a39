// Acting for one stamina-deck character (a player's phone for their own, the GM's table for any):
// what it must answer now (initiative, a shot, owed cards), its hand (tap cards to pick them), its
// bouts with the face-down play, and the actions of its turn. Each button is offered, greyed and
// explained from the view's `may` alone (the server's guards); cards still to pick grey it too.
import { sending } from "../../views/common.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { aidsOf, boutsOf, cardLabel, charactersOf, debtOf, duty, fighting, nameOf, offered, opponent, refusalOf } from "./stamina.js";
import { boutBox, cardChips, cardFace, refusalText } from "./common.js";

export function deckUi(app) {
  app.ui.deck ??= { sel: {}, target: {}, aidName: "" };
  return app.ui.deck;
}

// The hand cards picked for an action (stale picks dropped).
export function picked(app, c) {
  const ui = deckUi(app);
  const hand = c.hand || [];
  const ids = (ui.sel[c.character_id] || []).filter((id) => hand.some((card) => card.card_id === id));
  ui.sel[c.character_id] = ids;
  return ids.map((id) => hand.find((card) => card.card_id === id));
}

function clear(app, c) {
  deckUi(app).sel[c.character_id] = [];
}

function send(app, game, c, command) {
  clear(app, c);
  game.send({ character_id: c.character_id, ...command });
  app.render();
}

// A button that names why it is greyed (the server's refusal, in words) under its label.
function actButton(label, why, { testid, onclick, cls = "secondary", busy = false, quiet = false }) {
  return h("button", {
    type: "button", class: `${cls} act-button`, testid, disabled: Boolean(why) || busy, title: why ? refusalText(why) : "",
    onclick,
  }, h("span", {}, label), why && !quiet && why !== "pick_cards" && h("span", { class: "act-why" }, refusalText(why)));
}

export function actorPanel(app, game, c, { mine = new Set(), hooks = true } = {}) {
  const view = game.view;
  const task = duty(view, c.character_id);
  return h("div", { class: "actor", testid: "deck-actor", "data-character": c.character_id },
    task?.kind === "choose" && choosePrompt(app, game, c),
    task?.kind === "defend" && defendPrompt(app, game, c, task.shot),
    task?.kind === "give" && givePrompt(app, game, c, task.debt),
    handView(app, game, c),
    boutsOf(view, c.character_id).map((bout) => boutBox(view, bout, { mine, hooks, play: playButton(app, game, c, bout) })),
    turnActions(app, game, c),
    renew(app, game, c),
    ownPiles(c));
}

function choosePrompt(app, game, c) {
  const why = refusalOf(game.view, `choose_initiative:${c.character_id}`);
  const choosing = why !== null || sending(game, "choose_initiative", { character_id: c.character_id });
  return h("section", { class: "prompt", testid: "deck-choose" },
    h("div", { class: "prompt-title" }, t("sd.choose.title")),
    h("p", { class: "hint" }, why ? refusalText(why) : t("sd.choose.hint")),
    h("div", { class: "pc-row" }, (c.choice || []).map((card) => cardFace(card, {
      testid: `deck-choose-${card.card_id}`, size: "big", disabled: choosing,
      onclick: () => send(app, game, c, { type: "choose_initiative", card_id: card.card_id }),
    }))));
}

function defendPrompt(app, game, c, shot) {
  const view = game.view;
  const [card] = picked(app, c);
  const base = c.defence_number + c.cover + shot.bonus;
  const why = refusalOf(view, `defend:${c.character_id}`) ?? null;
  const busy = sending(game, "defend", { character_id: c.character_id });
  return h("section", { class: "prompt", testid: "deck-defend-prompt" },
    h("div", { class: "prompt-title" }, t("sd.defend.title", { shooter: nameOf(view, shot.shooter), attack: shot.attack })),
    h("p", {}, t("sd.defend.numbers", { number: c.defence_number, cover: c.cover, bonus: shot.bonus ? t("sd.defend.bonus", { n: shot.bonus }) : "" })),
    h("div", { class: "actions" },
      actButton(card ? t("sd.defend.with", { card: cardLabel(card), total: base + card.value }) : t("sd.defend.pick"), why ?? (card ? null : "pick_cards"), {
        testid: "deck-defend", cls: "primary", busy,
        onclick: () => send(app, game, c, { type: "defend", card_id: card.card_id }),
      }),
      actButton(t("sd.defend.deck"), why, {
        testid: "deck-defend-deck", busy,
        onclick: () => send(app, game, c, { type: "defend", card_id: null }),
      })));
}

function givePrompt(app, game, c, debt) {
  const cards = picked(app, c);
  // Returned to the deck top: exactly the count, all picked from the hand.
  const why = refusalOf(game.view, `give_cards:${c.character_id}`) ?? (debt.to === "deck" && cards.length !== debt.count ? "pick_cards" : null);
  const fromDeck = Math.max(0, debt.count - cards.length);
  const label = debt.to === "deck" ? t("sd.give.back", { picked: cards.length, count: debt.count })
    : t("sd.give.submit", { picked: cards.length, deck: fromDeck });
  return h("section", { class: "prompt", testid: "deck-give-prompt", "data-count": String(debt.count), "data-to": debt.to },
    h("div", { class: "prompt-title" }, t(`sd.give.title_${debt.to}`, { count: debt.count })),
    h("p", { class: "hint" }, t(debt.to === "deck" ? "sd.give.hint_deck" : "sd.give.hint", { count: debt.count, deck: c.counts.deck })),
    actButton(label, why, {
      testid: "deck-give", cls: "primary wide", busy: sending(game, "give_cards", { character_id: c.character_id }),
      onclick: () => send(app, game, c, { type: "give_cards", card_ids: cards.map((card) => card.card_id) }),
    }));
}

function handView(app, game, c) {
  const ui = deckUi(app);
  const hand = c.hand || [];
  const chosen = picked(app, c).map((card) => card.card_id);
  const debt = debtOf(game.view, c.character_id);
  const most = Math.max(2, debt?.count ?? 0);
  const toggle = (id) => {
    const now = chosen.includes(id) ? chosen.filter((x) => x !== id) : [...chosen, id].slice(-most);
    ui.sel[c.character_id] = now;
    app.render();
  };
  return h("section", { class: "hand", testid: "deck-hand", "data-count": String(hand.length) },
    h("h2", {}, t("sd.hand.title", { count: hand.length })),
    !hand.length && h("p", { class: "hint" }, game.view.phase !== "actions" ? t("sd.hand.after_initiative")
      : c.counts.deck ? t("sd.hand.empty") : t("sd.hand.nothing")),
    hand.length > 0 && h("div", { class: "pc-row" }, hand.map((card) => cardFace(card, {
      testid: `deck-card-${card.card_id}`, size: "big", selected: chosen.includes(card.card_id), onclick: () => toggle(card.card_id),
    }))),
    hand.length > 0 && h("p", { class: "hint" }, chosen.length ? t("sd.hand.picked", { cards: chosen.map((id) => cardLabel(hand.find((x) => x.card_id === id))).join(" + ") }) : t("sd.hand.hint")));
}

// A card down in a bout: a picked hand card (`play`), or the deck top (`play_deck`: with an
// empty hand, or a defender out of actions); the view says which of them is allowed now.
function playButton(app, game, c, bout) {
  const view = game.view;
  const key = `${c.character_id}:${bout.bout_id}`;
  const hand = refusalOf(view, `play:${key}`);
  const deck = refusalOf(view, `play_deck:${key}`);
  const fromDeck = deck === null && hand !== null;
  const [card] = picked(app, c).slice(0, 1);
  // Neither allowed: the hand's refusal explains it (the deck's says "pick a hand card").
  const why = fromDeck || hand === null ? null : hand ?? deck ?? "not_in_bout";
  const done = Boolean(bout.down[c.character_id]);
  const label = done ? t("sd.play.done")
    : why === "exchanges_done" ? t("sd.play.exchanges_done")
      : why ? t("sd.play.generic")
        : fromDeck ? t("sd.play.deck")
          : card ? t("sd.play.card", { card: cardLabel(card) }) : t("sd.play.pick");
  const busy = sending(game, "play", { bout_id: bout.bout_id, character_id: c.character_id });
  return h("div", { class: "play-row" },
    actButton(label, why ?? (fromDeck || card ? null : "pick_cards"), {
      testid: "deck-play", cls: "primary wide", busy, quiet: done || why === "exchanges_done",
      onclick: () => send(app, game, c, { type: "play", bout_id: bout.bout_id, card_id: fromDeck ? null : card.card_id }),
    }),
    !done && !why && h("p", { class: "hint" }, t(bout.attacker === c.character_id ? "sd.play.attack_hint" : "sd.play.defend_hint", { name: nameOf(view, opponent(bout, c.character_id)) })));
}

function turnActions(app, game, c) {
  const view = game.view;
  const ui = deckUi(app);
  if (view.phase !== "actions" || view.turn !== c.character_id) {
    if (view.phase !== "actions" || c.wound === "heavy") return null;
    return h("p", { class: "hint", testid: "deck-not-turn" }, t(boutsOf(view, c.character_id).length ? "sd.turn.not_yours_melee" : "sd.turn.not_yours", { name: nameOf(view, view.turn) || "–" }));
  }
  const cards = picked(app, c);
  const id = c.character_id;
  // The view offers a shot at every other character; its refusal says who may not be shot.
  const targets = charactersOf(view).filter((x) => offered(view, `shoot:${id}:${x.character_id}`));
  const allowed = (x) => refusalOf(view, `shoot:${id}:${x.character_id}`) === null;
  const target = targets.find((x) => x.character_id === ui.target[id])
    ?? targets.find((x) => x.side !== c.side && allowed(x)) ?? targets.find((x) => x.side !== c.side) ?? targets[0];
  // The server's refusal of the action, or "pick_cards" while fewer cards are picked than it takes.
  const why = (name, need = 0) => {
    const code = refusalOf(view, name);
    if (code === undefined) return "not_found";
    return code ?? (cards.length < need ? "pick_cards" : null);
  };
  const busy = (type) => sending(game, type, { character_id: id });
  const aids = aidsOf(view).filter((aid) => offered(view, `use_aid:${id}:${aid.aid_id}`));
  const empty = !c.counts.hand;
  const aidWhy = why(`put_aid:${id}`, 1);
  return h("section", { class: "turn-actions", testid: "deck-actions" },
    h("h2", {}, t("sd.turn.title", { name: c.name })),
    h("p", { class: "hint" }, fighting(c) ? t("sd.turn.hint", { count: c.actions_left }) : t("sd.turn.limping", { count: c.actions_left })),
    h("p", { class: "move-hint", testid: "deck-move-hint" }, t(!fighting(c) ? "sd.turn.move_free" : empty ? "sd.turn.no_cards" : "sd.turn.move")),
    refusalOf(view, `move:${id}`) && h("p", { class: "hint", testid: "deck-move-why" }, refusalText(refusalOf(view, `move:${id}`))),
    c.weapon?.ranged && h("div", { class: "shoot-row" },
      h("label", { class: "inline" }, t("sd.shoot.target"),
        h("select", {
          testid: "deck-target", onchange: (e) => { ui.target[id] = e.target.value; app.render(); },
        }, targets.map((x) => h("option", { value: x.character_id, selected: x === target }, `${x.name} (${x.side})`)))),
      h("div", { class: "act-grid" },
        actButton(t("sd.shoot.plain", { attack: cards.length === 1 ? c.attack_number + cards[0].value : "?" }), target ? why(`shoot:${id}:${target.character_id}`, 1) : "not_found", {
          testid: "deck-shoot", cls: "primary", busy: busy("shoot"),
          onclick: () => send(app, game, c, { type: "shoot", target_id: target.character_id, card_id: cards[0].card_id }),
        }),
        actButton(t("sd.shoot.aimed", { attack: cards.length === 2 ? c.attack_number + cards[0].value + cards[1].value : "?" }), target ? why(`aimed_shot:${id}:${target.character_id}`, 2) : "not_found", {
          testid: "deck-aimed", busy: busy("aimed_shot"),
          onclick: () => send(app, game, c, { type: "aimed_shot", target_id: target.character_id, card_ids: cards.slice(0, 2).map((x) => x.card_id) }),
        }),
        actButton(c.loaded ? t("sd.reload_plain") : t("sd.reload", { progress: c.reload.progress, needed: c.reload.needed }), why(`reload:${id}`, 1), {
          testid: "deck-reload", busy: busy("reload"),
          onclick: () => send(app, game, c, { type: "reload", card_id: cards[0].card_id }),
        }))),
    offered(view, `put_aid:${id}`) && h("form", {
      class: "aid-row",
      onsubmit: (event) => {
        event.preventDefault();
        const name = (ui.aidName || "").trim();
        if (!name) return app.notify(t("sd.aid.need_name"));
        ui.aidName = "";
        return send(app, game, c, { type: "put_aid", card_id: cards[0].card_id, name });
      },
    },
    h("input", {
      testid: "deck-aid-name", value: ui.aidName || "", maxlength: "40", autocomplete: "off", placeholder: t("sd.aid.placeholder"), "aria-label": t("sd.aid.name"),
      oninput: (e) => { ui.aidName = e.target.value; },
    }),
    h("button", { type: "submit", class: "secondary", testid: "deck-aid", disabled: Boolean(aidWhy) || busy("put_aid"), title: aidWhy ? refusalText(aidWhy) : "" }, t("sd.aid.put"))),
    aids.length > 0 && h("div", { class: "actions" }, aids.map((aid) => {
      const aidUse = why(`use_aid:${id}:${aid.aid_id}`);
      return h("button", {
        type: "button", class: "secondary", testid: `deck-use-aid-${aid.aid_id}`, disabled: Boolean(aidUse) || busy("use_aid"), title: aidUse ? refusalText(aidUse) : "",
        onclick: () => send(app, game, c, { type: "use_aid", aid_id: aid.aid_id }),
      }, t("sd.aid.use", { name: aid.name }), aid.card ? [" ", cardChips([aid.card])] : "");
    })),
    actButton(t("sd.turn.end"), why(`end_turn:${id}`), {
      testid: "deck-end-turn", cls: "primary wide", busy: busy("end_turn"),
      onclick: () => send(app, game, c, { type: "end_turn" }),
    }));
}

function renew(app, game, c) {
  if (!offered(game.view, `renew_deck:${c.character_id}`)) return null;
  return h("section", { class: "prompt" },
    h("p", {}, t("sd.renew.hint", { count: c.counts.discard })),
    actButton(t("sd.renew.submit"), refusalOf(game.view, `renew_deck:${c.character_id}`), {
      testid: "deck-renew", cls: "primary wide", busy: sending(game, "renew_deck", { character_id: c.character_id }),
      onclick: () => send(app, game, c, { type: "renew_deck" }),
    }));
}

// The piles only the owner (and the GM) see: threat and discard; the GM also the deck order.
function ownPiles(c) {
  if (!c.threat && !c.discard) return null;
  return h("details", { class: "older piles" },
    h("summary", {}, t("sd.piles.title", { threat: c.counts.threat, discard: c.counts.discard })),
    h("div", { class: "pile-line", testid: "deck-threat" }, h("span", { class: "muted" }, t("sd.pile.threat")), " ", cardChips(c.threat)),
    h("div", { class: "pile-line", testid: "deck-discard" }, h("span", { class: "muted" }, t("sd.pile.discard")), " ", cardChips(c.discard)),
    c.deck && h("div", { class: "pile-line" }, h("span", { class: "muted" }, t("sd.pile.deck_order")), " ", cardChips(c.deck)));
}

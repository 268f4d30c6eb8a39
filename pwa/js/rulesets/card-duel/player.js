// The player's phone: code, cards, challenge, the duel, the reveal and what follows.
import { buzz } from "../../alerts.js";
import { h, svgNode } from "../../dom.js";
import { errorText, getLang, t } from "../../i18n.js";
import { inForce } from "../../clock.js";
import { countdown } from "../../countdown.js";
import { qrSvg } from "../../qr.js";
import { markRevealSeen, seenReveal } from "../../session.js";
import { cardFace, cardView, codeForm, gameOver, playersList, sendCode, sending } from "../../views/common.js";
import { scanner, stopScan } from "../../views/scanner.js";
import { offlineDispute, offlineScreen, offlineSection } from "./offline.js";
import { offlineStun, reconcile, watch } from "./records.js";
import { prepare } from "./ready.js";

// What the player's phone asks the wake lock for: a duel or a countdown on screen.
export function playerNeedsAwake(view) {
  const me = view?.me;
  if (!me) return false;
  return Boolean(activeDuel(view)) || inForce(me.stunned_until) || inForce(me.immune_until);
}

// A special card's effect the player suffers (`me.effect`, or an organizer's row's), while it
// holds: until its end by server time, or, untimed, until the view drops it.
export function suffering(effect) {
  return Boolean(effect) && (!effect.until || inForce(effect.until));
}

// The duel in progress, unless its pick deadline has passed (then it ended with no outcome).
export function activeDuel(view) {
  const duel = view.duel;
  return duel && (!duel.deadline || inForce(duel.deadline)) ? duel : null;
}

// What the view offers: `true`, or a refusal that lapses at its `until` (a stun running out).
// A challenge is never `true`: it needs the opponent's code, which the view cannot hold, and the
// server answers `code_required` when nothing else stands in the way (docs/protocol.md).
function offered(entry) {
  if (entry === true || entry?.code === "code_required") return true;
  return Boolean(entry?.until) && !inForce(entry.until);
}

// A refused action's words, with a countdown when the refusal ends by time alone.
function refusal(entry, testid) {
  if (!entry || offered(entry)) return null;
  return h("div", { class: "hint refused", testid, "data-code": entry.code },
    errorText(entry.code, "", "card-duel"),
    entry.until ? [" ", countdown(entry.until, { testid: `${testid}-countdown` })] : null);
}

// Buzz once for each new duel on this phone (the challenger's too: the duel has begun).
const buzzed = new Set();

export function playerScreen(app, game) {
  const view = game.view;
  const ui = app.ui;
  const duel = activeDuel(view);
  const reveal = view.last_duel && (ui.revealOpen === view.last_duel.duel_id || !seenReveal(view.last_duel.duel_id));
  // Once the game has ended a stun binds nobody: the last screen tells the story instead.
  watch(app, game);
  reconcile(game);
  prepare(app, game); // ready for a dead spot from the first load with signal, lobby too
  // A stun from an offline duel binds before the server knows of it.
  const stunnedUntil = [view.me.stunned_until, offlineStun(game)].filter(inForce).sort().at(-1);
  const stunned = Boolean(stunnedUntil) && view.game.status !== "ended";
  // An offline duel on screen (QR shown or read) stays there until its player closes it.
  const offline = offlineScreen(app, game);
  if (offline || duel || reveal || stunned || !view.me.alive) ui.scanning = false;
  if (!ui.scanning) stopScan();
  if (duel && !buzzed.has(duel.duel_id)) {
    buzzed.add(duel.duel_id);
    buzz();
  }
  if (offline) return offline;
  if (duel) return duelScreen(app, game);
  if (reveal) return revealScreen(app, game);
  if (stunned) return stunScreen(view, stunnedUntil);
  if (ui.scanning) return scanner(app, (code) => submitChallenge(app, game, code));
  return mainScreen(app, game);
}

function mainScreen(app, game) {
  const { me, game: info } = game.view;
  const ended = info.status === "ended";
  const may = game.view.may || {};
  const hasCrossbow = (me.items || []).includes("crossbow");
  // The phone knows it has no signal: offline, or a reconnect that got no answer (socket.js).
  const noSignal = !navigator.onLine || game.connection === "closed";
  return h("main", { class: "player" },
    info.status === "lobby" && h("div", { class: "banner info", testid: "lobby-banner" }, t("game.lobby")),
    ended && gameOver(game, {
      mine: t(`end.mine.${!me.alive ? "dead" : me.wounded ? "wounded" : "alive"}`),
      duels: t("end.duels", { won: me.duels_won ?? 0, lost: me.duels_lost ?? 0 }),
      result: result(game.view),
    }),
    // After the end nobody goes to Death or to a healer: the game-over section tells the story.
    !ended && !me.alive && h("div", { class: "banner dead", testid: "dead-banner" },
      h("strong", {}, t("dead.title")), h("span", {}, t("dead.hint"))),
    !ended && me.alive && me.wounded && h("div", { class: "banner wound", testid: "wound-banner" },
      h("strong", {}, t("wound.title")), h("span", {}, t("wound.hint"))),
    offlineDispute(game),
    // What a special card did to this player, big: shown to whoever asks, as a stun is.
    me.alive && !ended && suffering(me.effect) && h("div", { class: "banner effect", testid: "effect-banner" },
      h("strong", {}, t("effect.title")),
      h("div", { class: "effect-words", testid: "effect-text" }, me.effect.text),
      me.effect.until
        ? countdown(me.effect.until, { testid: "effect-countdown", alarm: true, cls: "banner-count" })
        : h("span", {}, t("effect.untimed"))),
    me.alive && inForce(me.immune_until) && h("div", { class: "banner immune", testid: "immune-banner" },
      h("strong", {}, t("immune.title")),
      countdown(me.immune_until, { testid: "immune-countdown", alarm: true, cls: "banner-count" }),
      h("span", {}, t("immune.hint"))),
    // With no signal the offline duel's two buttons take the place of the main action, first
    // on the screen (a 320 × 568 phone shows them without scrolling); the code and the challenge
    // form, whose challenge would wait for a signal, follow.
    !ended && noSignal && offlineSection(app, game, { first: true }),
    h("section", { class: "me" },
      h("h1", { class: "me-name", testid: "my-name" }, me.name),
      h("div", { class: "code", testid: "my-code" }, me.code),
      h("div", { class: "hint" }, t("me.code_hint")),
      h("button", { class: "secondary", testid: "show-qr", onclick: () => app.set({ showQr: !app.ui.showQr }) },
        app.ui.showQr ? t("me.hide_qr") : t("me.show_qr")),
      app.ui.showQr && h("div", { class: "my-qr", testid: "my-qr" }, svgNode(qrSvg(me.code)))),
    !ended && (offered(may.challenge) ? challengeForm(app, game, me.cards, offered(may["challenge:ranged"])) : me.alive && info.status === "running" && refusal(may.challenge, "challenge-refused")),
    !ended && !noSignal && offlineSection(app, game),
    h("section", { class: "cards-section" },
      h("h2", {}, t("cards.title", { count: me.cards.length })),
      h("div", { class: "card-list" }, me.cards.map((card) => cardView(card, { testid: `card-${card.card_id}` }))),
      hasCrossbow && h("div", { class: "chip", testid: "item-crossbow" }, t("item.crossbow"))),
    game.view.last_duel && h("button", {
      class: "secondary", testid: "show-last-duel",
      onclick: () => app.set({ revealOpen: game.view.last_duel.duel_id }),
    }, t("reveal.show_last")),
    playersList(app, game));
}

// How the fighters ended, as the view tells every player after the end.
function result(view) {
  const r = view.result;
  return r ? t("end.result", { standing: r.standing, wounded: r.wounded, dead: r.dead }) : null;
}

// The opponent's name is not known before the server opens the duel (players do not get each
// other's codes): the duel screen names them.
function challengeForm(app, game, cards, ranged) {
  const ui = app.ui;
  return codeForm(app, game, {
    name: "challenge", field: "challengeCode", label: t("challenge.label"), submit: t("challenge.submit"),
    hint: null,
    extra: [h("div", { class: "hint", testid: "challenge-how" }, t("challenge.hint")), ranged && h("label", { class: "check" },
      h("input", { type: "checkbox", testid: "challenge-ranged", checked: Boolean(ui.ranged), onchange: (e) => { ui.ranged = e.target.checked; } }),
      t("challenge.ranged")), challengeCards(app, cards)],
    pending: sending(game, "challenge"),
    onCode: (code) => submitChallenge(app, game, code),
  });
}

// The first round's card, picked with the challenge if the player likes (as an offline duel's
// QR carries it): the duel opens with it picked, one wait less. A second tap puts it back.
function challengeCards(app, cards) {
  if (!cards.length) return null;
  const chosen = app.ui.challengeCard;
  return h("div", { class: "challenge-cards", role: "group", "aria-label": t("challenge.with_card") },
    h("div", { class: "hint" }, t("challenge.with_card")),
    h("div", { class: "challenge-card-row" }, cards.map((card) => h("button", {
      type: "button", class: `card-chip kind-${card.kind}${card.card_id === chosen ? " chosen" : ""}`,
      testid: `challenge-card-${card.card_id}`, "aria-pressed": String(card.card_id === chosen),
      onclick: () => app.set({ challengeCard: card.card_id === chosen ? null : card.card_id }),
    }, h("span", { class: "card-chip-title" }, card.title), h("span", { class: "card-chip-nums" }, `${card.big}/${card.small}`)))));
}

function submitChallenge(app, game, raw) {
  const ranged = Boolean(app.ui.ranged) && offered(game.view.may?.["challenge:ranged"]);
  // Only a card still in hand: one granted away meanwhile is left out, not refused with the rest.
  const card = game.view.me.cards.find((c) => c.card_id === app.ui.challengeCard);
  return sendCode(app, game, raw, "challengeCode", (code) => {
    app.ui.challengeCard = null;
    return { type: "challenge", target: code, ranged, ...(card && { card_id: card.card_id }) };
  });
}

function duelScreen(app, game) {
  const { duel, me } = game.view;
  const pending = game.inFlight().find((c) => c.type === "pick" && c.duel_id === duel.duel_id);
  const pickId = duel.my_pick ?? pending?.card_id ?? null;
  const picked = me.cards.find((c) => c.card_id === pickId);
  const unsent = game.queued.some((e) => e.command.type === "pick" && e.command.duel_id === duel.duel_id);
  return h("main", { class: "duel", testid: "duel" },
    // Whether the opponent has picked stands beside the title: a row less above the cards.
    h("div", { class: "duel-head" },
      h("h1", { class: "duel-title" }, t("duel.title")),
      duel.opponent_picked
        ? h("div", { class: "chip ok big-chip", testid: "opponent-picked" }, t("duel.opponent_picked"))
        : h("div", { class: "chip wait big-chip", testid: "opponent-picking" }, t("duel.opponent_picking"))),
    h("div", { class: "duel-opponent" }, t("duel.against"), " ", h("strong", { testid: "duel-opponent" }, duel.opponent.name)),
    h("div", { class: "duel-meta" },
      duel.round > 1 && h("span", { class: "chip", testid: "duel-round" }, t("duel.round_again", { round: duel.round })),
      duel.ranged && h("span", { class: "chip" }, t("duel.ranged")),
      duel.deadline && inForce(duel.deadline) && h("span", { class: "chip" }, t("duel.deadline"), " ", countdown(duel.deadline, { testid: "pick-deadline" }))),
    previousRounds(game.view),
    picked
      ? h("section", { class: "my-pick", testid: "my-pick" },
        h("div", { class: "hint" }, t("duel.your_pick")),
        cardView(picked),
        h("div", { class: unsent ? "chip wait" : "chip ok" },
          unsent ? t("duel.pick_unsent") : duel.opponent_picked ? t("duel.revealing") : t("duel.wait_opponent")))
      : pickSection(app, game, duel, me.cards, game.view.may || {}),
    // Below the cards, away from the thumb that picks: leaving is rare, and not to be hit by a slip.
    leaveDuel(game, duel, game.view.may?.leave));
}

// An opponent who does not pick (gone, or out of signal) cannot hold a player: the view offers
// `leave`, refused `too_soon` until a time (a countdown says when, and redraws at its end).
function leaveDuel(game, duel, may) {
  if (!may) return null;
  if (!offered(may)) {
    if (may.code !== "too_soon") return null; // the opponent has picked, or the duel is over
    return h("div", { class: "hint leave-wait" }, t("duel.leave_in"), " ", countdown(may.until, { testid: "leave-countdown" }));
  }
  return h("button", {
    class: "danger wide leave-duel", testid: "leave-duel",
    disabled: sending(game, "leave_duel", { duel_id: duel.duel_id }),
    onclick: () => {
      markRevealSeen(duel.duel_id); // the one who leaves needs no screen saying the duel is off
      game.send({ type: "leave_duel", duel_id: duel.duel_id });
    },
  }, t("duel.leave"));
}

// A tap selects a card (another tap on another card changes it); only the confirm button sends
// it: the server keeps the first pick, so one glove slip must not decide a duel.
function pickSection(app, game, duel, cards, may) {
  const ui = app.ui;
  const round = `${duel.duel_id}:${duel.round}`;
  // `pick` is any card of the hand: each is picked, or not, for the same reason.
  const pickable = offered(may.pick);
  const chosen = pickable && ui.pickChoice?.round === round ? cards.find((c) => c.card_id === ui.pickChoice.card_id) : null;
  const refused = may.pick && !pickable ? may.pick : null;
  return h("section", { class: "pick" },
    h("p", { class: "pick-hint" }, chosen ? t("duel.pick_confirm_hint") : t("duel.pick_hint")),
    refusal(refused, "pick-refused"),
    // The confirm button stands right under the chosen card, where the thumb already is.
    h("div", { class: "pick-grid" }, cards.map((card) => [h("button", {
      class: `card pick kind-${card.kind}${card === chosen ? " chosen" : ""}`, testid: `card-${card.card_id}`,
      "aria-pressed": String(card === chosen), disabled: !pickable,
      onclick: () => app.set({ pickChoice: { round, card_id: card.card_id } }),
    }, cardFace(card)),
    card === chosen && h("button", {
      class: "primary wide pick-confirm", testid: "pick-confirm",
      onclick: () => {
        // A second tap before the pick is in the outbox (and the buttons gone) is ignored.
        if (ui.picking) return;
        ui.picking = true;
        game.send({ type: "pick", duel_id: duel.duel_id, card_id: chosen.card_id })
          .finally(() => { ui.picking = false; });
      },
    }, t("duel.pick_confirm", { title: chosen.title }))])));
}

// In a duel past a draw: what both played in the earlier rounds.
function previousRounds(view) {
  const { duel, me } = view;
  if (!duel.rounds?.length) return null;
  const text = (card) => (card ? `${card.title} ${card.big}/${card.small}` : "–");
  return h("section", { class: "previous", testid: "previous-rounds" }, duel.rounds.map((round) => h("div", {},
    h("strong", {}, t("reveal.round", { round: round.round }), ": "),
    text(round.cards[me.player_id]), " × ", text(round.cards[duel.opponent.player_id]), " – ", t("reveal.draw_short"))));
}

// The verdict, what it did and the dismiss button come first (a 320 × 568 phone in gloves reads
// them without scrolling); the cards and why they won follow below.
function revealScreen(app, game) {
  const { me, last_duel: duel } = game.view;
  const opponentId = duel.opponent.player_id;
  const nameOf = (pid) => (pid === me.player_id ? t("reveal.you") : duel.opponent.name);
  const close = () => {
    markRevealSeen(duel.duel_id);
    app.set({ revealOpen: null });
  };
  const verdictOf = (round) => {
    const iWon = round.winners.includes(me.player_id);
    const theyWon = round.winners.includes(opponentId);
    const text = iWon && theyWon ? t("reveal.both") : iWon ? t("reveal.you_won") : theyWon ? t("reveal.they_won") : t("reveal.draw");
    return { iWon, theyWon, text, cls: `verdict ${iWon && !theyWon ? "good" : theyWon && !iWon ? "bad" : ""}` };
  };
  const last = duel.rounds.at(-1);
  const final = last?.winners.length ? verdictOf(last) : null;
  return h("main", { class: "reveal", testid: "reveal", lang: getLang() },
    h("h1", {}, t("reveal.title"), " ", h("span", { class: "reveal-against" }, t("duel.against"), " ", h("strong", { class: "name" }, duel.opponent.name))),
    final && h("div", { class: final.cls, testid: "reveal-verdict" }, final.text),
    h("section", { class: "outcomes", testid: "reveal-outcomes" },
      // A cancelled duel is cancelled for both: say it once.
      duel.outcomes.filter((o) => o.effect !== "cancelled" || o.player_id === me.player_id).map((o) => {
        const mine = o.player_id === me.player_id;
        // The player's own stun / free leave / effect already counts down here, with the same hooks.
        const testid = mine ? { stun: "stun-countdown", escape: "immune-countdown", special: "effect-countdown" }[o.effect] : null;
        return h("div", { class: `outcome effect-${o.effect}`, testid: o.effect === "special" ? `reveal-effect-${mine ? "mine" : "other"}` : null },
          t(`outcome.${mine ? "me" : "other"}.${o.effect}`, { name: nameOf(o.player_id) }),
          // A special card's words, as the view gives them: what the loser must now do.
          o.effect === "special" ? h("span", { class: "effect-words" }, o.text) : null,
          o.until && inForce(o.until) ? [" ", countdown(o.until, { testid, alarm: mine })] : null);
      })),
    h("button", { class: "primary wide", testid: "reveal-ok", onclick: close }, t("reveal.ok")),
    duel.rounds.map((round) => {
      const mine = round.cards[me.player_id];
      const theirs = round.cards[opponentId];
      const { iWon, theyWon, text, cls } = verdictOf(round);
      const why = [];
      if (mine && theirs && iWon) why.push(whyText(mine, theirs, round.why?.[me.player_id]));
      if (mine && theirs && theyWon) why.push(whyText(theirs, mine, round.why?.[opponentId]));
      return h("section", { class: "round", testid: `reveal-round-${round.round}` },
        duel.rounds.length > 1 && h("h2", {}, t("reveal.round", { round: round.round }), " – ", h("span", { class: cls }, text)),
        h("div", { class: "versus" },
          h("div", { class: iWon ? "side won" : "side" }, h("div", { class: "who" }, t("reveal.you")), mine ? cardView(mine) : "–"),
          h("div", { class: "vs" }, "×"),
          h("div", { class: theyWon ? "side won" : "side" }, h("div", { class: "who name" }, duel.opponent.name), theirs ? cardView(theirs) : "–")),
        why.filter(Boolean).map((line) => h("div", { class: "why", testid: "reveal-why" }, line)));
    }));
}

// Why a card won, as the server says (`round.why`: "big" or "small", the number that decided).
function whyText(winner, loser, number) {
  if (number !== "big" && number !== "small") return null;
  return `${winner.title}: ${t(`why.${number}`, { a: winner[number], b: loser[number] })}`;
}

function stunScreen(view, until) {
  return h("main", { class: "full stun", testid: "stun-screen" },
    h("div", { class: "stun-word" }, t("stun.title")),
    // The other language's word too: the phone is shown to whoever comes to rob the stunned.
    h("div", { class: "stun-other", lang: getLang() === "cs" ? "en" : "cs" }, t("stun.other")),
    countdown(until, { testid: "stun-countdown", alarm: true, cls: "huge" }),
    h("p", { class: "stun-hint" }, t("stun.hint")),
    h("div", { class: "stun-code" }, view.me.name, " · ", view.me.code));
}

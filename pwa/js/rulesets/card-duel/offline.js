// An offline duel, phone to phone by QR (docs/rules/card-duel.md, "Offline duels"): A shows its
// challenge (a commitment to its card), B reads it and shows its signed pick, A reads that and
// shows the signed reveal, B reads it. Each phone checks every signature and the commitment and
// settles the round with the server's rules (outcome.js); a round with no winner goes again. Each
// keeps the record (every text so far) and sends it as `offline_duel` once it has signal.
import { h, svgNode } from "../../dom.js";
import { errorText, t } from "../../i18n.js";
import { serverNow } from "../../clock.js";
import { qrMatrix, qrSvg } from "../../qr.js";
import { countdown } from "../../countdown.js";
import { cardFace, cardView } from "../../views/common.js";
import { storedKey } from "./keys.js";
import { ensureKey, keyReady, register, stateOf } from "./ready.js";
import { settle } from "./outcome.js";
import { commitment, faceData, fromQr, keyIdOf, keyShown, parse, prevOf, randomB64, seal, signedBy, unb64url } from "./qrtext.js";
import { claimDue, gameDuels, keptDuel, postCommand, save, sync } from "./records.js";
import { reader, stopReading } from "./reader.js";

// A card's face: one of mine, or the one the other phone showed with the text that played it.
function faceOf(view, cardId, shown) {
  const mine = view.me.cards.find((c) => c.card_id === cardId);
  return mine ?? { ...(shown ?? { title: cardId, big: 0, small: 0, kind: "unknown", ranged: false }), card_id: cardId };
}

// -- the main screen's part --------------------------------------------------------------------------

// Offline duel buttons on the player's main screen, or why there are none. The key is made and
// registered by itself on the first load with signal (ready.js). With no signal (`first`) the
// section stands where the challenge form stood, its two buttons first.
export function offlineSection(app, game, { first = false } = {}) {
  const { me, game: info } = game.view;
  if (info.status !== "running" || !me.alive) return null;
  const key = ensureKey(app, game);
  const ready = keyReady(game, key);
  const hint = h("div", { class: "hint" }, t("offline.hint"));
  const actions = h("div", { class: "offline-actions" },
    h("button", { class: "primary", testid: "offline-challenge", onclick: () => app.set({ offline: { step: "choose" } }) }, t("offline.challenge")),
    h("button", { class: "secondary", testid: "offline-answer", onclick: () => app.set({ offline: { step: "read-challenge" }, readerError: null }) }, t("offline.answer")));
  return h("section", { class: `offline-duel${first ? " first" : ""}`, testid: "offline-section" },
    h("h2", {}, t("offline.title")),
    ready ? (first ? [actions, hint] : [hint, actions]) : keyProblem(app, game, key),
    unfinished(app, game),
    syncList(game));
}

// Why this phone cannot duel offline now; the button that prepares it (with signal) only when
// preparing by itself failed, or when another phone's key counts.
function keyProblem(app, game, key) {
  const me = game.view.me;
  const state = stateOf(game);
  const other = key && me.key_id && key.key_id !== me.key_id; // another phone's key counts
  const code = key === undefined ? "key_loading" : state?.registering ? "key_registering" : other ? "key_other" : "no_key";
  return h("div", { class: "hint refused", testid: "offline-no-key", "data-code": code },
    t(`offline.${code}`),
    state?.failed && h("div", { class: "chip bad" }, state.failed === "network" ? t("offline.no_signal") : errorText(state.failed, "", "card-duel")),
    key !== undefined && !state?.registering && navigator.onLine && (state?.failed || other) && h("button", { class: "secondary", testid: "offline-register", onclick: () => register(app, game) }, t("offline.prepare")));
}

// The player's latest offline duel as the server took it, when the organizer is to decide a
// dispute about it (or has): who it was against, and the ruling once given.
export function offlineDispute(game) {
  const taken = game.view.offline;
  const dispute = taken?.dispute;
  if (dispute == null) return null;
  return h("div", { class: "banner dispute", testid: "offline-dispute", "data-ruling": dispute.ruling ?? "" },
    h("strong", {}, t("offline.dispute.about", { name: taken.opponent?.name ?? "" })),
    h("span", { testid: "offline-dispute-state" },
      dispute.ruling == null ? t("offline.dispute.deciding") : t(`offline.dispute.told.${dispute.ruling}`)));
}

// Duels begun and not finished (the screen closed, the page reloaded): back to their QR. And the
// challenger's last reveal a little while: "Rozumím" may be tapped before the other phone read it.
const REVEAL_AGAIN_MS = 15 * 60 * 1000;
function unfinished(app, game) {
  const open = gameDuels(game.gameId).filter((e) => !e.sync && e.record.length > 0);
  const revealed = gameDuels(game.gameId).filter((e) => e.sync && e.role === "a" && parse(e.record.at(-1))?.body.t === "r"
    && serverNow() - (parse(e.record.at(-1))?.body.at ?? 0) < REVEAL_AGAIN_MS).slice(-1);
  return [...open.map((e) => h("button", {
    class: "secondary wide", testid: "offline-resume",
    // B who read a challenge and has not picked goes back to the cards.
    onclick: () => app.set({ offline: { step: e.role === "b" && e.record.length % 3 === 1 ? "choose" : "show", d: e.d }, readerError: null }),
  }, e.opponentName ? t("offline.resume", { name: e.opponentName }) : t("offline.resume_challenge"))),
  ...revealed.map((e) => h("button", {
    class: "secondary wide", testid: "offline-reveal-again",
    onclick: () => app.set({ offline: { step: "show", d: e.d }, readerError: null }),
  }, t("offline.reveal_again", { name: e.opponentName ?? "" })))];
}

// What the latest kept duels' sync came to: against whom, how it ended, where the record stands.
function syncList(game) {
  const kept = gameDuels(game.gameId).filter((e) => e.sync).slice(-3);
  if (!kept.length) return null;
  return h("ul", { class: "offline-sync", testid: "offline-sync" }, kept.map((e) => h("li", { "data-sync": e.sync, testid: `offline-sync-${e.sync}` },
    h("strong", {}, e.opponentName ?? ""), " · ", h("span", { testid: "offline-sync-result" }, t(`offline.result.${resultOf(e)}`)), " · ",
    syncWords(e), e.error ? [" ", errorText(e.error, "", "card-duel")] : null)));
}

// How a kept duel ended for this phone: a forfeit claim (a record that stops at B's pick) is
// B's win; otherwise the last round's winners.
function resultOf(entry) {
  if (parse(entry.record.at(-1))?.body.t === "p") return "forfeit";
  const winners = entry.rounds.at(-1)?.winners ?? [];
  const mine = winners.includes(entry.me);
  const theirs = winners.includes(entry.opponent);
  return mine && theirs ? "both" : mine ? "win" : theirs ? "loss" : "open";
}

// Where a kept record stands; one that waits though the phone has signal says why (a duellist
// is in a duel now: it goes again after it).
function syncWords(entry) {
  return entry.sync === "pending" && entry.held ? t(`offline.held.${entry.held}`) : t(`offline.sync.${entry.sync}`, { name: entry.opponentName ?? "" });
}

// -- the duel's screens ------------------------------------------------------------------------------

// The offline duel's screen, while app.ui.offline says one is open; null otherwise.
export function offlineScreen(app, game) {
  const ui = app.ui;
  const step = ui.offline?.step;
  if (!step) return null;
  const entry = ui.offline.d ? keptDuel(ui.offline.d) : null;
  const close = () => {
    stopReading();
    app.set({ offline: null, readerError: null });
  };
  if (step === "choose") return chooseScreen(app, game, entry, close);
  if (step === "read-challenge") {
    return reader(app, { title: t("offline.read_challenge"), onText: (text) => takeChallenge(app, game, text, entry), onCancel: close });
  }
  if (step === "read-pick") return reader(app, { title: t("offline.read_pick"), onText: (text) => takePick(app, game, entry, text), onCancel: () => app.set({ offline: { step: "show", d: entry.d } }) });
  if (step === "read-reveal") return reader(app, { title: t("offline.read_reveal"), onText: (text) => takeReveal(app, game, entry, text), onCancel: () => app.set({ offline: { step: "show", d: entry.d } }) });
  if (step === "show") return showScreen(app, game, entry, close);
  return null;
}

// A picks the card to commit to (and, with a crossbow, whether it shoots); B picks its answer.
function chooseScreen(app, game, entry, close) {
  const ui = app.ui;
  const { me } = game.view;
  const chosen = me.cards.find((c) => c.card_id === ui.offlineCard);
  const challenger = !entry || entry.role === "a";
  const ranged = challenger && !entry && (me.items || []).includes("crossbow");
  return h("main", { class: "duel offline", testid: "offline-choose" },
    h("h1", { class: "duel-title" }, t(challenger ? "offline.choose_title" : "offline.answer_title")),
    entry && h("div", { class: "duel-opponent" }, t("duel.against"), " ", h("strong", { testid: "duel-opponent" }, entry.opponentName)),
    entry && entry.rounds.length > 0 && h("span", { class: "chip", testid: "duel-round" }, t("duel.round_again", { round: entry.rounds.length + 1 })),
    ranged && h("label", { class: "check" },
      h("input", { type: "checkbox", testid: "offline-ranged", checked: Boolean(ui.offlineRanged), onchange: (e) => { ui.offlineRanged = e.target.checked; } }),
      t("challenge.ranged")),
    h("p", { class: "pick-hint" }, t("duel.pick_hint")),
    h("div", { class: "pick-grid" }, me.cards.map((card) => [h("button", {
      class: `card pick kind-${card.kind}${card === chosen ? " chosen" : ""}`, testid: `offline-card-${card.card_id}`,
      "aria-pressed": String(card === chosen),
      onclick: () => app.set({ offlineCard: card.card_id }),
    }, cardFace(card)),
    card === chosen && h("button", {
      class: "primary wide pick-confirm", testid: "offline-confirm",
      onclick: async () => {
        if (ui.offlineBusy) return;
        ui.offlineBusy = true;
        try {
          const next = challenger ? await commit(game, entry, card, Boolean(ui.offlineRanged)) : await answer(game, entry, card);
          app.set({ offline: { step: "show", d: next.d }, offlineCard: null, offlineRanged: false });
        } finally {
          ui.offlineBusy = false;
        }
      },
    }, t("duel.pick_confirm", { title: chosen.title }))])),
    h("button", { class: "secondary wide", testid: "offline-close", onclick: close }, t("cancel")));
}

async function myKey(game) {
  return storedKey(game.gameId, game.view.me.player_id);
}

// A's challenge of round n (a new duel when `entry` is null): a commitment to `card`.
async function commit(game, entry, card, ranged) {
  const { me } = game.view;
  const nonce = randomB64(16);
  const h_ = await commitment(card.card_id, nonce);
  const key = await myKey(game);
  const at = Math.round(serverNow());
  const next = entry ?? { d: randomB64(8), game_id: game.gameId, me: me.player_id, role: "a", ranged, record: [], rounds: [] };
  const n = next.rounds.length + 1;
  const body = n === 1
    ? { t: "c", g: game.gameId, d: next.d, a: me.player_id, v: me.revision ?? 0, r: ranged ? 1 : 0, i: key.key_id, n: 1, at, h: h_ }
    : { t: "c", p: await prevOf(next.record.at(-1)), n, at, h: h_ };
  next.record = [...next.record, await seal(body, key.privateKey)];
  next.alt = null;
  next.secret = { card_id: card.card_id, nonce };
  await save(next);
  return next;
}

// B's pick, bound to the challenge it read.
async function answer(game, entry, card) {
  const { me } = game.view;
  const key = await myKey(game);
  const prev = await prevOf(entry.record.at(-1));
  const at = Math.round(serverNow());
  const body = entry.rounds.length === 0
    ? { t: "p", p: prev, b: me.player_id, v: me.revision ?? 0, i: key.key_id, c: card.card_id, f: faceData(card), at }
    : { t: "p", p: prev, c: card.card_id, f: faceData(card), at };
  entry.record = [...entry.record, await seal(body, key.privateKey)];
  entry.alt = null;
  entry.myCard = card.card_id;
  await save(entry);
  return entry;
}

// Round 1 names each phone's key by its id (a smaller QR); the reading phone has it from the
// directory, fetched while it had signal. The key the id names, or null when this phone lacks it.
async function keyFor(game, playerId, id) {
  const key = game.directory?.players?.[playerId]?.key;
  if (key && id && (await keyIdOf(unb64url(key))) === id) return key;
  if (navigator.onLine) game.directory?.load?.(); // registered since: the next read may have it
  return null;
}

// "This phone lacks the key": the showing phone then offers its long code, with the key.
function unknownKey(game, playerId) {
  return { code: "unknown_key", words: { name: nameOf(game, playerId) } };
}

// The showing phone's round 1 text again, with its whole key `K` in place of its id: for a
// reading phone that lacks the key. The short one stays at hand (`alt`): the answer names
// whichever the other phone read.
async function lengthen(game, entry) {
  const last = parse(entry.record.at(-1));
  const key = await myKey(game);
  const body = Object.fromEntries(Object.entries(last.body).map(([k, v]) => (k === "i" ? ["K", key.public_key] : [k, v])));
  const long = await seal(body, key.privateKey);
  const next = { ...entry, record: [...entry.record.slice(0, -1), long], alt: entry.record.at(-1) };
  await save(next);
  return next;
}

// The record up to the text an answer names (`p`): the one shown, or its other form; null when
// the answer is to neither.
async function answering(entry, p) {
  for (const text of [entry.record.at(-1), entry.alt].filter(Boolean)) {
    if (p === (await prevOf(text))) return [...entry.record.slice(0, -1), text];
  }
  return null;
}

// B reads a challenge: round 1 opens a duel; a later round goes on with the one B is in.
async function takeChallenge(app, game, content, entry) {
  const { text } = fromQr(content);
  const parsed = parse(text);
  if (!parsed || parsed.body.t !== "c") return "not_challenge";
  const body = parsed.body;
  const { me } = game.view;
  let next;
  if (body.n === 1) {
    if (body.g !== game.gameId) return "other_game";
    if (body.a === me.player_id) return "own";
    if (!keyShown(body)) return "no_key"; // exactly one of K and i, as the server reads it
    const opponentKey = body.K ?? (await keyFor(game, body.a, body.i));
    if (!opponentKey) return unknownKey(game, body.a);
    next = { d: body.d, game_id: game.gameId, me: me.player_id, role: "b", opponent: body.a, opponentKey, ranged: body.r === 1, record: [text], rounds: [] };
  } else {
    if (!entry || body.p !== (await prevOf(entry.record.at(-1)))) return "not_this_duel";
    next = { ...entry, record: [...entry.record, text] };
  }
  // The key the challenger showed in round 1: the server checks it is the registered one.
  if (!(await signedBy(parsed, next.opponentKey))) return "bad_signature";
  next.opponentName = nameOf(game, next.opponent);
  await save(next);
  stopReading();
  app.set({ offline: { step: "choose", d: next.d }, readerError: null });
  return null;
}

// A reads B's pick, checks it, and reveals at once: the reveal's QR and the round's outcome.
async function takePick(app, game, entry, content) {
  const { text, face } = fromQr(content);
  const parsed = parse(text);
  if (!parsed || parsed.body.t !== "p") return "not_pick";
  const record = await answering(entry, parsed.body.p);
  if (!record) return "not_this_duel";
  const opponent = entry.opponent ?? parsed.body.b;
  if (!entry.opponentKey && !keyShown(parsed.body)) return "no_key"; // round 1: exactly one of K and i
  const opponentKey = entry.opponentKey ?? parsed.body.K ?? (await keyFor(game, opponent, parsed.body.i));
  if (!opponentKey) return unknownKey(game, opponent);
  if (!(await signedBy(parsed, opponentKey))) return "bad_signature";
  const key = await myKey(game);
  const mine = game.view.me.cards.find((c) => c.card_id === entry.secret.card_id);
  const reveal = { t: "r", p: await prevOf(text), c: entry.secret.card_id, k: entry.secret.nonce, f: faceData(mine ?? {}), at: Math.round(serverNow()) };
  const next = { ...entry, opponent, opponentKey, opponentName: nameOf(game, opponent), record: [...record, text], alt: null };
  next.record = [...next.record, await seal(reveal, key.privateKey)];
  next.rounds = [...entry.rounds, roundOf(game, { [next.me]: entry.secret.card_id, [opponent]: parsed.body.c }, face, reveal.at)];
  next.secret = null;
  return played(app, game, next);
}

// B reads A's reveal: it must open the commitment of this round's challenge.
async function takeReveal(app, game, entry, content) {
  const { text, face } = fromQr(content);
  const parsed = parse(text);
  if (!parsed || parsed.body.t !== "r") return "not_reveal";
  const record = await answering(entry, parsed.body.p);
  if (!record) return "not_this_duel";
  if (!(await signedBy(parsed, entry.opponentKey))) return "bad_signature";
  const challenge = parse(entry.record.at(-2)).body;
  if ((await commitment(parsed.body.c, parsed.body.k)) !== challenge.h) return "bad_commitment";
  const next = { ...entry, record: [...record, text], alt: null };
  next.rounds = [...entry.rounds, roundOf(game, { [entry.opponent]: parsed.body.c, [entry.me]: entry.myCard }, face, parsed.body.at)];
  return played(app, game, next);
}

// A round read and settled: kept, shown, and (with a winner) sent once there is signal.
async function played(app, game, next) {
  finish(next);
  await save(next);
  stopReading();
  app.set({ offline: { step: "show", d: next.d }, readerError: null });
  sync(game);
  return null;
}

// A round played: both cards' faces, who won, and (with a winner) what it did from `at`.
// `shown`: the face the other phone showed of its card.
function roundOf(game, ids, shown, at) {
  const cards = Object.fromEntries(Object.entries(ids).map(([pid, id]) => [pid, faceOf(game.view, id, shown)]));
  const settled = settle(cards, game.view.game.config, at);
  return { cards, at, ...settled };
}

// A round with a winner ends the duel: its record goes to the server.
function finish(entry) {
  if (entry.rounds.at(-1)?.winners.length) entry.sync = "pending";
}

function nameOf(game, playerId) {
  return game.directory?.name?.(playerId) ?? game.directory?.players?.[playerId]?.name ?? playerId;
}

// How the sync's word looks: done, waiting, or not counted (the outcome above binds nobody).
const SYNC_CHIP = { recorded: "ok", already: "ok", pending: "wait", sent: "wait", void: "bad", refused: "bad" };

// The QR to show, in one screen at 320 × 568: the round's verdict first (with "Rozumím" right
// under it once the duel is over), then the QR, then the one action that reads the other
// phone's answer; what the round did and both cards below.
function showScreen(app, game, entry, close) {
  const { me } = game.view;
  const last = parse(entry.record.at(-1)).body;
  const round = entry.rounds.at(-1);
  const over = Boolean(round?.winners.length) && last.t === "r";
  const claimed = last.t === "p" && Boolean(entry.sync); // B brings the pick as a forfeit claim
  const text = entry.record.at(-1);
  const mine = entry.role === "a" ? last.t !== "p" : last.t === "p";
  const settled = last.t === "r" && round;
  const go = (step) => app.set({ offline: { step, d: entry.d }, readerError: null });
  // What the phone does next, right under the QR (or under the verdict when there is none).
  const next = entry.role === "a" && last.t === "c"
    ? h("button", { class: "primary wide", testid: "offline-read-pick", onclick: () => go("read-pick") }, t("offline.read_answer"))
    : entry.role === "b" && last.t === "p" && !claimed
      ? h("button", { class: "primary wide", testid: "offline-read-reveal", onclick: () => go("read-reveal") }, t("offline.read_reveal"))
      : !over && last.t === "r" && entry.role === "a"
        ? h("button", { class: "primary wide", testid: "offline-next-round", onclick: () => go("choose") }, t("offline.next_round"))
        : !over && last.t === "r" && entry.role === "b"
          ? h("button", { class: "primary wide", testid: "offline-read-next", onclick: () => go("read-challenge") }, t("offline.read_next"))
          : null;
  // A round 1 text names its key by id; a reading phone that lacks the key asks for this one.
  const long = mine && last.i && h("button", {
    class: "secondary wide", testid: "offline-long-code",
    onclick: async () => app.set({ offline: { step: "show", d: (await lengthen(game, entry)).d } }),
  }, t("offline.long_code"));
  return h("main", { class: "duel offline", testid: "offline-show", "data-step": last.t },
    h("div", { class: `offline-head${entry.opponentName ? " named" : ""}` },
      h("h1", { class: "duel-title" }, t("offline.title")),
      entry.opponentName && h("div", { class: "duel-opponent" }, t("duel.against"), " ", h("strong", {}, entry.opponentName)),
      settled && verdictOf(me, entry, round)),
    over && h("button", { class: "primary wide", testid: "offline-close", onclick: close }, t("reveal.ok")),
    mine && qrBlock(text, t(`offline.show.${last.t}`)),
    next,
    long,
    entry.role === "b" && last.t === "p" && forfeitClaim(app, game, entry),
    (over || claimed) && h("div", { class: `chip ${SYNC_CHIP[entry.sync] ?? ""}`, testid: "offline-sync-state", "data-sync": entry.sync }, syncWords(entry),
      entry.error ? [" ", errorText(entry.error, "", "card-duel")] : null,
      entry.reason ? [" ", t(`offline.void.${entry.reason}`)] : null),
    settled && roundBlock(me, entry, round),
    !over && h("button", { class: "secondary wide", testid: "offline-close", onclick: close }, t("offline.later")));
}

// A challenger who saw B's pick and does not reveal loses the round to B's card: B may bring
// the record without the reveal once the challenger's time to reveal is over (REVEAL_MS).
function forfeitClaim(app, game, entry) {
  if (entry.sync) return null;
  const until = new Date(claimDue(entry.record)).toISOString();
  if (Date.parse(until) > serverNow()) {
    return h("div", { class: "hint", testid: "offline-claim-wait" }, t("offline.claim_in"), " ", countdown(until, { testid: "offline-claim-countdown" }));
  }
  return h("button", {
    class: "danger wide", testid: "offline-claim",
    onclick: async () => {
      await save({ ...entry, sync: "pending" });
      app.render();
      sync(game);
    },
  }, t("offline.claim"));
}

// The QR of a text at error correction L with a quiet zone of 2 modules (on its white card):
// its modules as big as the screen's width allows. Its size stays off the screen (data-*).
function qrBlock(content, caption) {
  const bytes = new TextEncoder().encode(content).length;
  const version = (qrMatrix(content, { level: "L" }).length - 17) / 4;
  return h("div", { class: "offline-qr", testid: "offline-qr", "data-bytes": bytes, "data-version": version },
    h("div", { class: "hint" }, caption),
    h("div", { class: "my-qr offline-code", testid: "offline-qr-image" }, svgNode(qrSvg(content, { level: "L", quiet: 2 }))));
}

// The round's verdict, as the online reveal words it.
function verdictOf(me, entry, round) {
  const iWon = round.winners.includes(me.player_id);
  const theyWon = round.winners.includes(entry.opponent);
  const verdict = iWon && theyWon ? "reveal.both" : iWon ? "reveal.you_won" : theyWon ? "reveal.they_won" : "reveal.draw";
  return h("div", { class: `verdict ${iWon && !theyWon ? "good" : theyWon && !iWon ? "bad" : ""}`, testid: "reveal-verdict" }, t(verdict));
}

// The round as an online reveal shows it (its verdict above the QR): what it did, the
// countdown, both cards.
function roundBlock(me, entry, round) {
  const iWon = round.winners.includes(me.player_id);
  const theyWon = round.winners.includes(entry.opponent);
  return h("section", { class: "reveal", testid: "offline-reveal" },
    round.outcomes.length > 0 && h("section", { class: "outcomes", testid: "reveal-outcomes" }, round.outcomes.map((o) => {
      const mineO = o.player_id === me.player_id;
      const testid = mineO ? { stun: "stun-countdown", escape: "immune-countdown", special: "effect-countdown" }[o.effect] : null;
      return h("div", { class: `outcome effect-${o.effect}`, "data-effect": o.effect },
        t(`outcome.${mineO ? "me" : "other"}.${o.effect}`, { name: mineO ? t("reveal.you") : entry.opponentName }),
        o.effect === "special" ? h("span", { class: "effect-words" }, o.text) : null,
        o.until && Date.parse(o.until) > serverNow() ? [" ", countdown(o.until, { testid, alarm: mineO })] : null);
    })),
    h("div", { class: "versus" },
      h("div", { class: iWon ? "side won" : "side" }, h("div", { class: "who" }, t("reveal.you")), cardView(round.cards[me.player_id])),
      h("div", { class: "vs" }, "×"),
      h("div", { class: theyWon ? "side won" : "side" }, h("div", { class: "who name" }, entry.opponentName), cardView(round.cards[entry.opponent]))));
}

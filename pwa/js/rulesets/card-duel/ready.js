// Ready before the forest, by itself: on the first load with signal (the lobby too) a player's
// phone registers its offline-duel key, and has the service worker keep the QR decoder and both
// languages' words, so that a dead spot finds everything the offline duel needs. No button: the
// "prepare" button stays only for when the registration failed, and a failed one is tried again
// when the signal comes back.
// A key is registered by itself when the server counts none for the player, or when this phone
// has none yet (its first load): never to take the key back from a phone prepared later, so two
// phones of one player do not take turns replacing each other's key.
import { keepFiles } from "../../rulesets.js";
import { wordFiles } from "../../i18n.js";
import { makeKey, storedKey } from "./keys.js";
import { postCommand } from "./records.js";
import { every } from "../../tick.js";

const RETRY_MS = 10000; // a failed registration is tried again this often while the phone has signal
// The files wait for an idle moment after the first view (not to slow it, nor to block a first
// tap), but no longer than this.
const IDLE_WAIT_MS = 3000;

const AGAIN = new Set(["network", "unavailable", "rate_limited"]); // failures tried again by themselves
const keyState = new Map(); // game:player -> {key, registering, failed, auto}

export function stateOf(game) {
  return keyState.get(`${game.gameId}:${game.view.me.player_id}`) ?? null;
}

// This phone's key, once read from IndexedDB (undefined until then, null when it has none).
export function ensureKey(app, game) {
  const me = game.view.me;
  const id = `${game.gameId}:${me.player_id}`;
  let state = keyState.get(id);
  if (!state) {
    state = { key: undefined, registering: false, failed: null, auto: false };
    keyState.set(id, state);
    storedKey(game.gameId, me.player_id).then((key) => {
      state.key = key;
      app.render();
    });
  }
  return state.key;
}

// The phone may duel offline: its stored key is the one the server counts.
export function keyReady(game, key) {
  return Boolean(key && game.view.me.key_id && key.key_id === game.view.me.key_id);
}

// Sent over HTTP beside the outbox (which holds what the player did, in order): the phone's
// stored key when the server counts none, else a new one (this phone lost its key, or another
// phone's counts). The view, pushed by the socket, then holds its key_id. `quiet` (by itself, no
// tap): the screen is drawn again only if it failed, the new view redraws it otherwise.
export async function register(app, game, { quiet = false } = {}) {
  const me = game.view.me;
  const state = keyState.get(`${game.gameId}:${me.player_id}`);
  if (!state || state.registering) return;
  state.registering = true;
  if (!quiet) app.render();
  try {
    const key = state.key && !me.key_id ? state.key : await makeKey(game.gameId, me.player_id);
    state.key = key;
    const answer = await postCommand(game, { type: "register_key", public_key: key.public_key });
    state.failed = answer?.ok ? null : (answer?.data?.error?.code ?? "network");
  } catch {
    state.failed = "network";
  } finally {
    state.registering = false;
    if (!quiet || state.failed) app.render();
  }
}

// Whether this phone registers its key by itself now (see the head of this file).
function wantsKey(game, state) {
  if (state.key === undefined || state.registering || state.auto) return false;
  const me = game.view.me;
  if (!me?.player_id || !Array.isArray(me.cards) || game.view.game?.status === "ended") return false;
  return !me.key_id || !state.key;
}

const prepared = new WeakSet();

// Once per game, from the player's screen: the key, then the files, and again on signal.
export function prepare(app, game) {
  const key = ensureKey(app, game);
  const state = stateOf(game);
  if (state && wantsKey(game, state) && navigator.onLine) {
    state.auto = true; // once by itself; a failure is retried below
    register(app, game, { quiet: true });
  }
  if (key !== undefined && !prepared.has(game)) {
    prepared.add(game);
    whenIdle(keepForOffline);
    // Failed for want of signal (or a busy server): again, by itself. A refusal is final.
    const again = () => {
      const now = stateOf(game);
      if (navigator.onLine && AGAIN.has(now?.failed) && !now.registering && game.view?.game?.status !== "ended" && !keyReady(game, now.key)) register(app, game, { quiet: true });
    };
    window.addEventListener("online", () => {
      keepForOffline();
      again();
    });
    every(RETRY_MS, again); // on the page's shared tick
  }
}

// fn() once the page has a moment with nothing to do (requestIdleCallback; Safari has none).
function whenIdle(fn) {
  if (window.requestIdleCallback) requestIdleCallback(() => fn(), { timeout: IDLE_WAIT_MS });
  else setTimeout(fn, IDLE_WAIT_MS);
}

// The QR decoder (kept on every phone: a BarcodeDetector may still fail to read) and the words
// in both languages, the shell's and those of every ruleset part in use, in the worker's cache.
// Where the browser has no BarcodeDetector the decoder is also loaded now, while there is signal.
let decoderLoaded = false;

function keepForOffline() {
  if (!navigator.onLine) return;
  const decoder = new URL("../../vendor/jsQR.js", import.meta.url).href;
  keepFiles([decoder, ...wordFiles()]);
  if (!decoderLoaded && !("BarcodeDetector" in window)) {
    decoderLoaded = true;
    // Its compile is a task of its own, in another idle moment.
    whenIdle(() => import("../../vendor/jsQR.js").catch(() => { decoderLoaded = false; }));
  }
}

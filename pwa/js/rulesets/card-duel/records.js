// The offline duels this phone keeps (IndexedDB, store `duels` of keys.js's database): each
// with its record, every QR text so far, until the server has it. A finished record is sent as
// `offline_duel` whenever the phone has signal; the view then tells whether it was recorded.
import { serverNow } from "../../clock.js";
import { markRevealSeen, seenReveal } from "../../session.js";
import { DUELS, run } from "./keys.js";
import { parse, randomB64 } from "./qrtext.js";
import { every } from "../../tick.js";

// The challenger's time to reveal once it has seen the pick: a forfeit claim waits it out.
export const REVEAL_MS = 10 * 60 * 1000;
const AGAIN_MS = 60 * 1000; // a record refused for now (too early, a duellist busy) waits this long

// When a forfeit claim (a record ending with a challenge and a pick) may be brought: REVEAL_MS
// after the last round's challenge or its pick, whichever is later (as the server counts it).
export function claimDue(record) {
  const times = record.slice(-2).map((text) => parse(text)?.body.at).filter(Number.isFinite);
  return Math.max(...times, 0) + REVEAL_MS;
}

const duels = new Map(); // d -> the entry, as last stored (the page's copy)

export async function save(entry) {
  duels.set(entry.d, entry);
  try {
    await run(DUELS, "readwrite", (s) => s.put(entry));
  } catch { /* no IndexedDB: the duel lives as long as the page */ }
}

export async function loadDuels(gameId) {
  try {
    for (const entry of await run(DUELS, "readonly", (s) => s.index("game").getAll(gameId))) duels.set(entry.d, entry);
  } catch { /* none kept */ }
}

export function keptDuel(d) {
  return duels.get(d) ?? null;
}

export function gameDuels(gameId) {
  return [...duels.values()].filter((e) => e.game_id === gameId);
}

// What the view says of a duel the server has taken (answered at `entry.seq`, or already before
// the view held at the answer): its `offline` is the player's latest offline duel as taken,
// recorded or void and why (matched by opponent and the challenge's time).
// Seen here already, the online reveal screen does not tell it again.
export function reconcile(game) {
  const taken = game.view.offline;
  const last = game.view.last_duel;
  for (const entry of gameDuels(game.gameId)) {
    if (!["sent", "already"].includes(entry.sync) || entry.judged) continue;
    if (entry.sync === "sent" ? game.seq < entry.seq : game.serverTime === entry.viewBefore) continue;
    const at = new Date(parse(entry.record[0])?.body.at ?? 0).toISOString();
    if (!taken || taken.opponent?.player_id !== entry.opponent || taken.at !== at) continue; // a later one
    // A forfeit claim's outcome was never shown here: the online reveal screen tells it.
    const shown = parse(entry.record.at(-1))?.body.t === "r";
    if (!taken.void && shown && last?.offline && !seenReveal(last.duel_id)) markRevealSeen(last.duel_id);
    const sync = taken.void ? "void" : entry.sync === "sent" ? "recorded" : "already";
    save({ ...entry, judged: true, sync, reason: taken.void })
      .then(() => game.changed());
  }
}

// The latest stun an offline duel put on this player (ISO), before the server has it (none from
// a duel the server did not count).
export function offlineStun(game) {
  const me = game.view.me.player_id;
  return gameDuels(game.gameId).filter((e) => !["void", "refused"].includes(e.sync)).flatMap((e) => e.rounds.at(-1)?.outcomes ?? [])
    .filter((o) => o.player_id === me && o.effect === "stun" && o.until).map((o) => o.until).sort().at(-1) ?? null;
}

// -- sync ---------------------------------------------------------------------------------------------

let syncing = false;

// Sends each finished record not yet taken: 200 recorded (or void), 409 already_recorded (the
// other phone was first: done), 409 reveal_pending (again after `until`), 409 busy (a duellist
// is in a duel now: again a minute later), other refusals (too_many_void…) shown, final.
export async function sync(game) {
  if (syncing || !navigator.onLine) return;
  syncing = true;
  try {
    for (const entry of gameDuels(game.gameId)) {
      if (entry.sync !== "pending" || (entry.until && Date.parse(entry.until) > serverNow())) continue;
      if (Date.now() < (entry.again ?? 0)) continue;
      const answer = await postCommand(game, { type: "offline_duel", record: entry.record });
      if (!answer) break; // no signal after all
      const code = answer.data?.error?.code;
      // Recorded or void: the view at the answer's seq tells which (reconcile).
      entry.held = code === "busy" ? "busy" : null; // why a record waits with signal, if it does
      if (answer.ok) {
        Object.assign(entry, { sync: "sent", seq: answer.data?.seq ?? game.seq });
      } else if (code === "already_recorded") {
        // Recorded before this answer: the next view (asked for now) tells how.
        Object.assign(entry, { sync: "already", viewBefore: game.serverTime });
        game.refresh();
      } else if (code === "reveal_pending") {
        // A forfeit claim before the challenger's time to reveal is over: again after it, and not
        // within a minute by this phone's own clock (its idea of the server's time may be off).
        entry.until = new Date(claimDue(entry.record)).toISOString();
        entry.again = Date.now() + AGAIN_MS;
      } else if (code === "busy") {
        // A duellist is in a duel begun since: the record is taken once that duel is over.
        entry.again = Date.now() + AGAIN_MS;
      } else if (answer.status >= 500 || answer.status === 429) {
        break;
      } else {
        Object.assign(entry, { sync: "refused", error: code });
      }
      await save(entry);
      game.changed();
    }
  } finally {
    syncing = false;
  }
}

// One POST of a command: {ok, status, data}, or null when the network failed. (The app's outbox
// drops a command on its first refusal; a record must wait out `reveal_pending`, so it is sent
// from here.)
export async function postCommand(game, command) {
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(game.gameId)}/commands`, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${game.token}` },
      body: JSON.stringify({ command_id: crypto.randomUUID?.() ?? randomB64(16), ...command }),
      cache: "no-store",
    });
    let data = null;
    try {
      data = await response.json();
    } catch { /* empty */ }
    return { ok: response.ok, status: response.status, data };
  } catch {
    return null;
  }
}

const watched = new WeakSet();

const KEYS_MS = 5 * 60 * 1000; // how often a phone with signal asks whether a key was registered

// Once per game: load the kept duels, and send them whenever the phone has signal. Keep the
// directory fresh while online (an ETag's 304 when nothing changed): it holds every player's
// key, which a round 1 text names by id only.
export function watch(app, game) {
  if (watched.has(game)) return;
  watched.add(game);
  loadDuels(game.gameId).then(() => {
    app.render();
    sync(game);
  });
  const keys = () => navigator.onLine && game.directory?.load();
  keys();
  let status = game.view?.game?.status;
  window.addEventListener("online", () => {
    sync(game);
    keys();
  });
  every(8000, () => sync(game)); // on the page's shared tick (tick.js)
  every(KEYS_MS, keys);
  game.addEventListener("change", () => {
    if (navigator.onLine) sync(game);
    // The game starts: the keys registered in the lobby are all in now.
    if (game.view?.game?.status !== status && (status = game.view?.game?.status) === "running") keys();
  });
}

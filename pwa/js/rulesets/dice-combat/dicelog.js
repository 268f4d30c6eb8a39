// The GM's copy of the game's recent events (GET /events is the organizer's): bleeding,
// initiative, flights, chases, first aid and corrections are events, not parts of the view.
import { api } from "../../api.js";

const KEEP = 300;
const logs = new Map(); // token -> {seq, events, loading, failed}

export function eventsOf(game) {
  return logs.get(game.token)?.events ?? [];
}

// Fetch what is new since the last fetch whenever the view is ahead of it; `changed` redraws.
export function syncLog(game, changed) {
  let log = logs.get(game.token);
  if (!log) {
    // A long game: begin a few hundred events back rather than at seq 1.
    log = { seq: Math.max(0, game.seq - KEEP), events: [], loading: false, failures: 0 };
    logs.set(game.token, log);
  }
  if (log.loading || game.seq <= log.seq) return;
  log.loading = true;
  let delay = 200;
  api.events(game.gameId, game.token, log.seq)
    .then((answer) => {
      const fresh = answer.events.filter((e) => e.seq > log.seq);
      if (!fresh.length) throw new Error("no new events");
      log.events = [...log.events, ...fresh].slice(-KEEP);
      log.seq = fresh[fresh.length - 1].seq;
      log.failures = 0;
      changed();
    })
    .catch(() => {
      // Offline: try again a little later, a few times; after that the next view does.
      log.failures = (log.failures ?? 0) + 1;
      delay = 5000;
    })
    .finally(() => {
      log.loading = false;
      if (game.seq > log.seq && log.failures < 3) setTimeout(() => syncLog(game, changed), delay);
    });
}

// The events since the current round of the current fight started (its bleeding, its initiative).
export function thisRound(events, fight) {
  if (!fight) return [];
  let start = -1;
  events.forEach((e, i) => {
    if (e.type === "round_started" && e.data.fight_id === fight.fight_id && e.data.round === fight.round) start = i;
  });
  return start < 0 ? [] : events.slice(start);
}

// The last event of a type that matches, or null.
export function lastOf(events, type, match = () => true) {
  for (let i = events.length - 1; i >= 0; i -= 1) if (events[i].type === type && match(events[i].data)) return events[i];
  return null;
}

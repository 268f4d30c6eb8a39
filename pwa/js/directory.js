// The game's directory (GET /api/games/{gid}/players): every member's name, role and team, and
// codes for the organizer only (a player gets its own: a code proves a touch, so a phone learns
// another's code by reading it off that phone). Views carry no roster, so names come from here. Kept in memory
// and in localStorage (offline use) with its ETag; a name or code it does not know (a player who
// joined since) makes it revalidate with If-None-Match, which answers 304 when nobody joined.
import { api } from "./api.js";

const KEY = (gid) => `bijse.directory.${gid}`;
// At most one request this often: a mistyped code must not ask the server at every keystroke.
const RECHECK_MS = 5000;

export class Directory {
  constructor(gameId, token, onChange) {
    Object.assign(this, { gameId, token, onChange });
    let stored = null;
    try {
      stored = JSON.parse(localStorage.getItem(KEY(gameId)));
    } catch { /* unreadable: fetch it again */ }
    this.keep(stored?.players ?? null, stored?.etag ?? null);
    this.checkedAt = -Infinity;
    this.loading = null;
  }

  keep(players, etag) {
    this.players = players; // {player_id: {name, code, role, team_id}}, null until fetched
    this.etag = etag;
    this.codes = new Map(Object.entries(players || {}).map(([id, m]) => [m.code, id]));
  }

  // Every member, keyed by player_id ({} until the first answer).
  all() {
    if (!this.players) this.load();
    return this.players || {};
  }

  // A member {player_id, name, code, role, team_id}, or null (then it asks the server again).
  member(playerId) {
    const found = this.players?.[playerId];
    if (!found) this.load();
    return found ? { ...found, player_id: playerId } : null;
  }

  name(playerId) {
    return this.member(playerId)?.name ?? null;
  }

  // The member with this 4-character code (any case), or null.
  byCode(code) {
    const typed = String(code || "").trim().toUpperCase();
    const id = this.codes.get(typed);
    if (!id) {
      if (typed.length === 4) this.load();
      return null;
    }
    return this.member(id);
  }

  // Fetch the directory, or revalidate the kept one; onChange() when it changed.
  load() {
    if (this.loading) return this.loading;
    const wait = this.checkedAt + RECHECK_MS - Date.now();
    if (wait > 0) {
      // Asked again too soon: ask the screen again once it may (it then looks the name up anew).
      this.later ??= setTimeout(() => {
        this.later = null;
        this.onChange();
      }, wait);
      return null;
    }
    this.checkedAt = Date.now();
    this.loading = api.directory(this.gameId, this.token, this.players ? this.etag : null)
      .then((answer) => {
        if (answer.notModified) return;
        this.keep(answer.players, answer.etag);
        try {
          localStorage.setItem(KEY(this.gameId), JSON.stringify({ etag: answer.etag, players: answer.players }));
        } catch { /* storage full: memory only */ }
        this.onChange();
      })
      .catch(() => { /* offline: what is kept stays; asked again when needed */ })
      .finally(() => { this.loading = null; });
    return this.loading;
  }
}

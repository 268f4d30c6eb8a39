// The replay's index of a game's log, built once as the events stream in (in the Web Worker, or
// on the main thread in small slices): who is who, where the jump points are, statistics per
// row, and whatever the ruleset keeps for its words and charts. No DOM here.
//
// A ruleset's part of the index is rulesets/<id>/replay_index.js (DOM-free, no words: the worker
// imports it), loaded by the id the log's game_created names (or the id the page already knows):
//   jumps            {kind: [event types]}: the jump buttons (duel, stun, raid …)
//   columns          [counter]: the statistics table's columns
//   rowsAreFighters  true: the rows are the fighters (combatants, characters), not the players
//   start(indexer, config)        on game_created: set up `indexer.own` (its own data)
//   index(indexer, event, t)      each event: indexer.bump(id, counter), indexer.fighter(id, …),
//                                 its own data in indexer.own
//   snapshot(own)                 optional: `own` as plain data for the screen (default: as is)
// Its screen side is rulesets/<id>/replay.js: `describe(event, index, d, who)` (text or null),
// `summary(view, at, members)` (parts of the replayed view), and optionally `charts(index,
// {cursorAt, seekTime})`, `rowMark(index, id)` (beside a stats row's name) and
// `viewers(index, me, mark)` (more viewers to pick: [{value, label}]). See replay/part.js.

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/; // an id becomes a path: nothing else may

// A ruleset's index part, or null (an id this app does not know: the common index only).
export async function indexPart(id) {
  if (!ID.test(id ?? "")) return null;
  try {
    return await import(`../rulesets/${id}/replay_index.js`);
  } catch {
    return null;
  }
}

export class Indexer {
  constructor() {
    this.count = 0;
    this.last = 0;
    this.ruleset = null;
    this.part = null;    // the ruleset's replay_index.js
    this.name = "";
    this.config = {};
    this.firstAt = null;
    this.startedAt = null;
    this.lastAt = null;
    this.members = {};   // player_id -> {name, role, team, code}
    this.order = [];     // player_ids in join order
    this.fighters = {};  // combatants, characters: id -> {name, side}
    this.jumps = {};     // kind -> [seq]
    this.rows = {};      // stats: id -> {counters}
    this.totals = {};    // kind -> count
    this.own = {};       // the ruleset's own data
    this.ended = false;
  }

  // Loads the ruleset's part before its first events are indexed (awaited between batches).
  async prepare(events, ruleset = null) {
    if (this.part || this.ruleset) return;
    const id = ruleset ?? events.find((event) => event.type === "game_created")?.data?.ruleset;
    if (id) this.part = await indexPart(id);
  }

  add(events) {
    for (const event of events) this.one(event);
  }

  row(id) {
    this.rows[id] ??= {};
    return this.rows[id];
  }

  bump(id, key, by = 1) {
    if (id === null || id === undefined) return;
    const row = this.row(id);
    row[key] = (row[key] ?? 0) + by;
  }

  // A fighter named in the log (a row of its own where the rows are fighters).
  fighter(id, name, side) {
    this.fighters[id] = { name, side };
    if (this.part?.rowsAreFighters) this.row(id);
  }

  one(event) {
    const { type, data = {}, seq } = event;
    this.count += 1;
    this.last = seq;
    const t = Date.parse(event.at);
    this.firstAt ??= t;
    this.lastAt = t;
    const part = this.part;
    if (type === "game_created") {
      this.ruleset = data.ruleset;
      this.name = data.name;
      this.config = data.config || {};
      part?.start?.(this, this.config);
    }
    for (const [kind, types] of Object.entries(part?.jumps || {})) {
      if (types.includes(type)) {
        (this.jumps[kind] ??= []).push(seq);
        this.totals[kind] = (this.totals[kind] ?? 0) + 1;
      }
    }
    switch (type) {
      case "player_joined":
        this.members[data.player_id] = { name: data.name, role: data.role, team: data.team ?? null, code: data.code };
        this.order.push(data.player_id);
        if (data.role === "player" && part?.columns && !part.rowsAreFighters) this.row(data.player_id);
        break;
      case "game_started":
        this.startedAt ??= t;
        break;
      case "game_ended":
        this.ended = true;
        break;
      default:
        break;
    }
    part?.index?.(this, event, t);
  }

  // What the screen needs (plain data: it crosses from the worker by structured clone).
  snapshot() {
    const part = this.part;
    const columns = part?.columns || [];
    const ids = part?.rowsAreFighters ? Object.keys(this.fighters) : this.order.filter((pid) => this.rows[pid]);
    const stats = ids.map((id) => {
      const values = Object.fromEntries(columns.map((key) => [key, this.rows[id]?.[key] ?? 0]));
      return { id, values };
    });
    const kinds = {}; // event type -> jump kind
    for (const [kind, types] of Object.entries(part?.jumps || {})) for (const type of types) kinds[type] ??= kind;
    return {
      count: this.count,
      last: this.last,
      ruleset: this.ruleset,
      name: this.name,
      config: this.config,
      firstAt: this.firstAt,
      startedAt: this.startedAt,
      lastAt: this.lastAt,
      ended: this.ended,
      members: this.members,
      order: this.order,
      fighters: this.fighters,
      jumps: this.jumps,
      kinds: Object.keys(part?.jumps || {}),
      kindOf: kinds,
      totals: this.totals,
      columns,
      stats,
      own: part?.snapshot ? part.snapshot(this.own) : this.own,
    };
  }
}

// The first seq in a sorted list after `seq` (null when none), and the last one before it.
export function nextIn(list, seq) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length ? list[lo] : null;
}

export function prevIn(list, seq) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? list[lo - 1] : null;
}

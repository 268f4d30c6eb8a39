// The replay's index of a game's log, built once as the events stream in (in the Web Worker, or
// on the main thread in small slices): who is who, where the duels, raids, stuns and deaths are
// (for the jump buttons), statistics per player, and rank-bases scores over time. No DOM here.

// Jump points: kind -> the event types that mark one, per ruleset.
export const JUMPS = {
  "card-duel": { duel: ["round_revealed"], stun: ["player_stunned"], wound: ["player_wounded"], death: ["player_killed"] },
  "rank-bases": { duel: ["duel_fought"], raid: ["raid_started"], delivery: ["delivered"] },
  "dice-combat": { fight: ["fight_started"], attack: ["attack_resolved"], stun: ["combatant_fainted"], death: ["combatant_died"] },
  "stamina-deck": { round: ["round_started"], duel: ["exchange_revealed"], shot: ["shot_defended"], wound: ["character_wounded"] },
};

// Statistics columns per ruleset (each a counter on a row of the stats table).
export const COLUMNS = {
  "card-duel": ["duels", "won", "stuns", "stunned", "deaths"],
  "rank-bases": ["duels", "won", "raids", "parts", "points"],
  "dice-combat": ["attacks", "hits", "damage", "fainted", "died"],
  "stamina-deck": ["shots", "hits", "exchanges", "lives_lost"],
};

export class Indexer {
  constructor() {
    this.count = 0;
    this.last = 0;
    this.ruleset = null;
    this.name = "";
    this.config = {};
    this.firstAt = null;
    this.startedAt = null;
    this.lastAt = null;
    this.members = {};   // player_id -> {name, role, team, code}
    this.order = [];     // player_ids in join order
    this.cards = {};     // card-duel: card_id -> card
    this.fighters = {};  // dice-combat combatants, stamina-deck characters: id -> {name, side}
    this.raids = {};     // rank-bases: raid_id -> {attacker, team_id}
    this.duels = {};     // duel_id -> {players: [a, b], reveals, winners}
    this.jumps = {};     // kind -> [seq]
    this.rows = {};      // stats: id -> {counters}
    this.totals = {};    // kind -> count
    this.scores = null;  // rank-bases: {teams, points: [{seq, t, scores}]}
    this.current = {};   // rank-bases: running scores
    this.ended = false;
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

  one(event) {
    const { type, data = {}, seq } = event;
    this.count += 1;
    this.last = seq;
    const t = Date.parse(event.at);
    this.firstAt ??= t;
    this.lastAt = t;
    if (type === "game_created") {
      this.ruleset = data.ruleset;
      this.name = data.name;
      this.config = data.config || {};
      if (this.ruleset === "rank-bases") {
        const teams = (this.config.teams || []).map((team) => team.team_id);
        this.current = Object.fromEntries(teams.map((id) => [id, 0]));
        this.scores = { teams, points: [] };
      }
    }
    const kinds = JUMPS[this.ruleset] || {};
    for (const [kind, types] of Object.entries(kinds)) {
      if (types.includes(type)) {
        (this.jumps[kind] ??= []).push(seq);
        this.totals[kind] = (this.totals[kind] ?? 0) + 1;
      }
    }
    switch (type) {
      case "player_joined":
        this.members[data.player_id] = { name: data.name, role: data.role, team: data.team ?? null, code: data.code };
        this.order.push(data.player_id);
        for (const card of data.cards || []) this.cards[card.card_id] = card;
        if (data.role === "player" && COLUMNS[this.ruleset]) this.row(data.player_id);
        break;
      case "game_started":
        this.startedAt ??= t;
        if (this.scores && !this.scores.points.length) this.scores.points.push({ seq, t, scores: { ...this.current } });
        break;
      case "game_ended":
        this.ended = true;
        break;
      case "card_granted":
        if (data.card) this.cards[data.card.card_id] = data.card;
        break;
      case "player_revived":
        for (const card of data.cards || []) this.cards[card.card_id] = card;
        break;
      default:
        break;
    }
    if (this.ruleset === "card-duel") this.cardDuel(type, data);
    else if (this.ruleset === "rank-bases") this.rankBases(type, data, seq, t);
    else if (this.ruleset === "dice-combat") this.diceCombat(type, data);
    else if (this.ruleset === "stamina-deck") this.staminaDeck(type, data);
  }

  cardDuel(type, data) {
    const duel = this.duels[data.duel_id];
    switch (type) {
      case "duel_started":
        this.duels[data.duel_id] = { players: [data.challenger, data.target], reveals: 0, winners: [] };
        break;
      case "round_revealed":
        if (!duel) break;
        if (!duel.reveals) duel.players.forEach((pid) => this.bump(pid, "duels"));
        duel.reveals += 1;
        duel.winners = data.winners || [];
        for (const pid of duel.winners) this.bump(pid, "won");
        break;
      case "player_stunned":
        this.bump(data.player_id, "stunned");
        if (duel) duel.players.filter((pid) => pid !== data.player_id).forEach((pid) => this.bump(pid, "stuns"));
        break;
      case "player_killed":
        this.bump(data.player_id, "deaths");
        break;
      case "duel_ended":
      case "duel_cancelled":
        if (duel) duel.done = true;
        break;
      default:
        break;
    }
  }

  rankBases(type, data, seq, t) {
    switch (type) {
      case "duel_fought": {
        const [a, b] = data.players || [];
        this.bump(a, "duels");
        this.bump(b, "duels");
        if (data.winner) this.bump(data.winner, "won");
        break;
      }
      case "raid_started":
        this.raids[data.raid_id] = { attacker: data.attacker, team_id: data.team_id };
        this.bump(data.attacker, "raids");
        break;
      case "part_taken":
        this.bump(data.player_id, "parts");
        break;
      case "delivered":
        this.bump(data.player_id, "points", data.points ?? 0);
        this.current[data.team_id] = (this.current[data.team_id] ?? 0) + (data.points ?? 0);
        if (this.scores) {
          if (!this.scores.points.length) this.scores.points.push({ seq: seq - 1, t, scores: { ...this.current, [data.team_id]: 0 } });
          this.scores.points.push({ seq, t, scores: { ...this.current } });
        }
        break;
      default:
        break;
    }
  }

  diceCombat(type, data) {
    switch (type) {
      case "combatant_added":
        this.fighters[data.combatant_id] = { name: data.name, side: data.side };
        this.row(data.combatant_id);
        break;
      case "attack_resolved":
        this.bump(data.attacker_id, "attacks");
        if (data.hit) {
          this.bump(data.attacker_id, "hits");
          this.bump(data.attacker_id, "damage", Math.max(0, data.damage ?? 0));
        }
        break;
      case "combatant_fainted":
        this.bump(data.combatant_id, "fainted");
        break;
      case "combatant_died":
        this.bump(data.combatant_id, "died");
        break;
      default:
        break;
    }
  }

  staminaDeck(type, data) {
    switch (type) {
      case "character_added":
        this.fighters[data.character_id] = { name: data.name, side: data.side };
        this.row(data.character_id);
        break;
      case "shot_fired":
        this.bump(data.shooter, "shots");
        break;
      case "shot_defended":
        if (data.hit) this.bump(data.shooter, "hits");
        break;
      case "exchange_revealed":
        if (data.result === "attacker") this.bump(data.attacker, "exchanges");
        if (data.result === "defender") this.bump(data.defender, "exchanges");
        break;
      case "character_wounded":
        this.bump(data.character_id, "lives_lost", data.lives_lost ?? 0);
        break;
      default:
        break;
    }
  }

  // What the screen needs (plain data: it crosses from the worker by structured clone).
  snapshot() {
    const columns = COLUMNS[this.ruleset] || [];
    const fighterRuleset = this.ruleset === "dice-combat" || this.ruleset === "stamina-deck";
    const ids = fighterRuleset ? Object.keys(this.fighters) : this.order.filter((pid) => this.rows[pid]);
    const stats = ids.map((id) => {
      const values = Object.fromEntries(columns.map((key) => [key, this.rows[id]?.[key] ?? 0]));
      return { id, values };
    });
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
      cards: this.cards,
      fighters: this.fighters,
      raids: this.raids,
      duels: Object.fromEntries(Object.entries(this.duels).map(([id, d]) => [id, d.players])),
      jumps: this.jumps,
      totals: this.totals,
      columns,
      stats,
      scores: this.scores,
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

// card-duel's part of the replay's index (replay/indexer.js): duels, stuns, wounds, deaths and
// special effects, the cards named in the log. DOM-free: the replay's Web Worker imports it.

export const jumps = {
  duel: ["round_revealed"], stun: ["player_stunned"], wound: ["player_wounded"], death: ["player_killed"],
  special: ["effect_suffered"], offline: ["offline_duel_recorded", "offline_duel_void"],
};
export const columns = ["duels", "won", "stuns", "stunned", "deaths"];
export const rowsAreFighters = false;

export function start(indexer) {
  // card_id -> card; duel_id -> {players, reveals, winners, seq (its last reveal), at, offline}
  indexer.own = { cards: {}, duels: {}, offline: {} };
}

function keep(own, cards) {
  for (const card of cards || []) own.cards[card.card_id] = card;
}

export function index(indexer, { type, data = {}, seq, at }) {
  const own = indexer.own;
  if (!own.duels) return;
  const duel = own.duels[data.duel_id];
  switch (type) {
    case "player_joined":
    case "player_revived":
      keep(own, data.cards);
      break;
    case "card_granted":
      keep(own, data.card ? [data.card] : []);
      break;
    case "offline_duel_recorded": // its duel's events follow
      own.offline[data.duel_id] = true;
      break;
    case "duel_started":
      own.duels[data.duel_id] = {
        players: [data.challenger, data.target], reveals: 0, winners: [], offline: Boolean(own.offline?.[data.duel_id]),
      };
      break;
    case "round_revealed":
      if (!duel) break;
      if (!duel.reveals) duel.players.forEach((pid) => indexer.bump(pid, "duels"));
      duel.reveals += 1;
      duel.winners = data.winners || [];
      duel.seq = seq;
      duel.at = at;
      for (const pid of duel.winners) indexer.bump(pid, "won");
      break;
    case "player_stunned":
      indexer.bump(data.player_id, "stunned");
      if (duel) duel.players.filter((pid) => pid !== data.player_id).forEach((pid) => indexer.bump(pid, "stuns"));
      break;
    case "player_killed":
      indexer.bump(data.player_id, "deaths");
      break;
    default:
      break;
  }
}

// The screen needs each duel's pair, and the duels fought (a round revealed) for a player's own.
export function snapshot(own) {
  const entries = Object.entries(own.duels || {});
  return {
    cards: own.cards || {},
    duels: Object.fromEntries(entries.map(([id, duel]) => [id, duel.players])),
    fought: entries.filter(([, duel]) => duel.reveals).map(([id, duel]) => ({
      duel_id: id, players: duel.players, winners: duel.winners, seq: duel.seq, at: duel.at, offline: duel.offline,
    })),
  };
}

// coin-toss's part of the replay's index (replay/indexer.js): a jump to every toss, heads and
// tails by player. DOM-free: the replay's Web Worker imports it.

export const jumps = { toss: ["coin_tossed"] };
export const columns = ["heads", "tails"];
export const rowsAreFighters = false;

export function start(indexer) {
  indexer.own = {};
}

export function index(indexer, { type, data = {} }) {
  if (type === "coin_tossed") indexer.bump(data.player_id, data.side);
}

// stamina-deck's part of the replay's index (replay/indexer.js): rounds, melee exchanges, shots
// and wounds; the rows are the characters. DOM-free: the replay's Web Worker imports it.

export const jumps = { round: ["round_started"], duel: ["exchange_revealed"], shot: ["shot_defended"], wound: ["character_wounded"] };
export const columns = ["shots", "hits", "exchanges", "lives_lost"];
export const rowsAreFighters = true;

export function index(indexer, { type, data = {} }) {
  switch (type) {
    case "character_added":
      indexer.fighter(data.character_id, data.name, data.side);
      break;
    case "shot_fired":
      indexer.bump(data.shooter, "shots");
      break;
    case "shot_defended":
      if (data.hit) indexer.bump(data.shooter, "hits");
      break;
    case "exchange_revealed":
      if (data.result === "attacker") indexer.bump(data.attacker, "exchanges");
      if (data.result === "defender") indexer.bump(data.defender, "exchanges");
      break;
    case "character_wounded":
      indexer.bump(data.character_id, "lives_lost", data.lives_lost ?? 0);
      break;
    default:
      break;
  }
}

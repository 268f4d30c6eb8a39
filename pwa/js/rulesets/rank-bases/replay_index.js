// rank-bases' part of the replay's index (replay/indexer.js): duels, raids, deliveries, and the
// teams' scores over time for the chart. DOM-free: the replay's Web Worker imports it.

export const jumps = { duel: ["duel_fought"], raid: ["raid_started"], delivery: ["delivered"] };
export const columns = ["duels", "won", "raids", "parts", "points"];
export const rowsAreFighters = false;

export function start(indexer, config) {
  const teams = (config.teams || []).map((team) => team.team_id);
  indexer.own = {
    raids: {}, // raid_id -> {attacker, team_id}
    current: Object.fromEntries(teams.map((id) => [id, 0])), // running scores
    scores: { teams, points: [] }, // [{seq, t, scores}]: a point at the start and at each delivery
  };
}

export function index(indexer, { type, data = {}, seq }, t) {
  const own = indexer.own;
  if (!own.scores) return;
  const points = own.scores.points;
  switch (type) {
    case "game_started":
      if (!points.length) points.push({ seq, t, scores: { ...own.current } });
      break;
    case "duel_fought": {
      const [a, b] = data.players || [];
      indexer.bump(a, "duels");
      indexer.bump(b, "duels");
      if (data.winner) indexer.bump(data.winner, "won");
      break;
    }
    case "raid_started":
      own.raids[data.raid_id] = { attacker: data.attacker, team_id: data.team_id };
      indexer.bump(data.attacker, "raids");
      break;
    case "part_taken":
      indexer.bump(data.player_id, "parts");
      break;
    case "delivered":
      indexer.bump(data.player_id, "points", data.points ?? 0);
      own.current[data.team_id] = (own.current[data.team_id] ?? 0) + (data.points ?? 0);
      if (!points.length) points.push({ seq: seq - 1, t, scores: { ...own.current, [data.team_id]: 0 } });
      points.push({ seq, t, scores: { ...own.current } });
      break;
    default:
      break;
  }
}

export function snapshot(own) {
  return { raids: own.raids || {}, scores: own.scores || null };
}

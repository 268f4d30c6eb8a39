// rank-bases without the DOM: names of ranks and teams, team colours, the duel rule, what a
// delivery scores, whether a team is ready to start. The server decides; these only explain.

export const RANKS = [1, 2, 3, 4, 5];
// The config's defaults (the create form starts from them).
export const DEFAULT_RANKS = [
  { rank: 1, name: "Bulac Chabtan", lives: 3 },
  { rank: 2, name: "Gukumatz", lives: 3 },
  { rank: 3, name: "Kinich Ahau", lives: 3 },
  { rank: 4, name: "Hum Cimil", lives: 3 },
  { rank: 5, name: "Ix Chel", lives: 3 },
];

export function config(view) {
  return view?.game?.config || {};
}

export function teams(view) {
  return config(view).teams || [];
}

export function teamName(view, teamId) {
  return teams(view).find((team) => team.team_id === teamId)?.name ?? teamId ?? "";
}

export function rankName(view, rank) {
  return (config(view).ranks || DEFAULT_RANKS).find((r) => r.rank === rank)?.name ?? String(rank);
}

// When ranks start with different lives, the lives left would give a rank away.
export function livesTellRank(view) {
  return new Set((config(view).ranks || DEFAULT_RANKS).map((r) => r.lives)).size > 1;
}

// A team's colour: its id or name when that is a colour word, otherwise by its place in the list.
const NAMED = [
  [/^(red|rud|červ|cerv)/i, "#ef4444"],
  [/^(blue|modř|modr)/i, "#3b82f6"],
  [/^(green|zelen)/i, "#22c55e"],
  [/^(yellow|žlut|zlut)/i, "#eab308"],
  [/^(orange|oranž|oranz)/i, "#f97316"],
  [/^(purple|violet|fial)/i, "#a855f7"],
  [/^(black|čern|cern)/i, "#9ca3af"],
  [/^(white|bíl|bil)/i, "#e5e7eb"],
  [/^(pink|růž|ruz)/i, "#ec4899"],
];
const PALETTE = ["#ef4444", "#3b82f6", "#eab308", "#22c55e", "#a855f7", "#f97316", "#06b6d4", "#ec4899"];

export function teamColor(view, teamId) {
  const list = teams(view);
  const team = list.find((t) => t.team_id === teamId);
  for (const word of [teamId, team?.name]) {
    const named = NAMED.find(([pattern]) => pattern.test(word || ""));
    if (named) return named[1];
  }
  const index = Math.max(0, list.indexOf(team));
  return PALETTE[index % PALETTE.length];
}

// 1 when rank a takes rank b's paper, -1 when b takes a's, 0 on equal ranks (they swap papers).
// Higher takes lower, except that rank 1 takes rank 5.
export function duelOutcome(a, b) {
  if (a === b) return 0;
  if (a === 1 && b === 5) return 1;
  if (a === 5 && b === 1) return -1;
  return a > b ? 1 : -1;
}

// What delivering `carrying` at the base of `homeTeam` scores, and where each part goes: each
// paper 1; a foreign part 2 × its value, the most valuable first part of a team not yet in the
// stash goes to the stash, every other part (and a home part, 0 points) to the home tree.
export function deliveryPreview(carrying, homeTeam, stash) {
  const inStash = new Set(Object.values(stash || {}).map((part) => part.team_id));
  const parts = [...(carrying?.parts || [])].sort((a, b) => b.value - a.value).map((part) => {
    if (part.team_id === homeTeam) return { part, points: 0, to: "tree" };
    const to = inStash.has(part.team_id) ? "tree" : "stash";
    inStash.add(part.team_id);
    return { part, points: 2 * part.value, to };
  });
  const papers = carrying?.papers || 0;
  return { papers, parts, points: papers + parts.reduce((sum, p) => sum + p.points, 0) };
}

export function carriesAnything(carrying) {
  return Boolean(carrying && (carrying.papers > 0 || carrying.parts?.length));
}

// Out of the game: no own paper and no lives left for a new one.
export function isOut(player) {
  return !player.has_paper && !(player.lives > 0);
}

// Why a team cannot start yet, as [key, params] pairs for t(): 5 or 6 players, every one ranked,
// ranks 1–5 once each (and a second 2 in a team of six), at least one leader.
export function setupProblems(players, leaders) {
  const problems = [];
  const count = players.length;
  if (count < 5 || count > 6) problems.push(["setup.count", { count }]);
  const unranked = players.filter((p) => p.rank == null).length;
  if (unranked) problems.push(["setup.unranked", { count: unranked }]);
  if (count >= 5 && count <= 6 && !unranked) {
    const ranks = players.map((p) => p.rank).sort().join(",");
    if (ranks !== (count === 6 ? "1,2,2,3,4,5" : "1,2,3,4,5")) problems.push([count === 6 ? "setup.ranks6" : "setup.ranks5", {}]);
  }
  if (!leaders) problems.push(["setup.no_leader", {}]);
  return problems;
}

// A team id from a team's name: ASCII letters, digits and _, at most 24 characters, never a
// letter followed by digits only (the shape of the server's own ids), unique in `taken`.
export function teamIdFor(name, taken) {
  let id = name.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 20);
  if (!id || /^[a-z][0-9]+$/.test(id)) id = `team_${id || taken.size + 1}`.slice(0, 20);
  let unique = id;
  for (let n = 2; taken.has(unique); n += 1) unique = `${id}_${n}`;
  taken.add(unique);
  return unique;
}

// rank-bases without the DOM: names of ranks and teams, team colours, and what the view's `may`
// and `setup` say. The server decides and explains; nothing here restates a rule.
import { errorText } from "../../i18n.js";

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

// Whether an action is offered now: the view's `may` says, with the server's own rules.
export function allowed(view, action) {
  return view.may?.[action] === true;
}

// Why an action is refused now, in the reader's words (null when it is offered or not shown).
export function refusal(view, action) {
  const entry = view.may?.[action];
  return entry && entry !== true ? errorText(entry.code, "", "rank-bases") : null;
}

// A setup problem from the server's view (`setup`), as [key, params] for t().
export function problemWords(problem) {
  switch (problem.problem) {
    case "teams": return ["setup.teams", { count: problem.needed }];
    case "players": return ["setup.count", { count: problem.players }];
    case "unranked": return ["setup.unranked", { count: problem.unranked.length }];
    case "ranks": return [problem.ranks.length === 6 ? "setup.ranks6" : "setup.ranks5", {}];
    default: return ["setup.no_leader", {}];
  }
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

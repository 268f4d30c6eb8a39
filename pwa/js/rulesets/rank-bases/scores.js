// Scores over time for the scoreboard's chart. Each view carries seq, server_time and scores: a
// point is kept whenever the scores change (per game, on this device). A viewer who may read the
// log (the organizer; everyone once the game has ended) rebuilds the whole line from the
// `delivered` events instead; anyone else starts from the scores seen first.
import { api } from "../../api.js";

const KEY = (gid) => `bijse.scores.${gid}`;
const MAX_POINTS = 1000;

// {points: [{seq, t (ms), scores: {team_id: n}}], complete: bool (from the game's start)}
export function scoreHistory(gid) {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY(gid)));
    if (stored && Array.isArray(stored.points)) return stored;
  } catch { /* unreadable: start again */ }
  return { points: [], complete: false };
}

function save(gid, history) {
  const points = history.points.slice(-MAX_POINTS);
  localStorage.setItem(KEY(gid), JSON.stringify({ ...history, points }));
}

function same(a, b) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a[key] ?? 0) === (b[key] ?? 0));
}

// A view arrived: keep a point when its scores differ from the last one kept.
export function observe(gid, seq, serverTime, scores) {
  const history = scoreHistory(gid);
  const last = history.points.at(-1);
  const t = Date.parse(serverTime);
  if (!scores || Number.isNaN(t) || (last && seq <= last.seq)) return history;
  if (last && same(last.scores, scores)) return history;
  // Nothing scored yet: the line is complete from here on (nothing happened before).
  if (!last && Object.values(scores).every((n) => n === 0)) history.complete = true;
  history.points.push({ seq, t, scores: { ...scores } });
  save(gid, history);
  return history;
}

// Rebuild from the log: zeros at the start, then one point per delivery.
export async function rebuild(gid, token, teamIds) {
  const { events } = await api.events(gid, token);
  const scores = Object.fromEntries(teamIds.map((id) => [id, 0]));
  const points = [];
  for (const event of events) {
    const t = Date.parse(event.at);
    if (event.type === "game_started") points.push({ seq: event.seq, t, scores: { ...scores } });
    if (event.type === "delivered") {
      scores[event.data.team_id] = (scores[event.data.team_id] ?? 0) + event.data.points;
      if (!points.length) points.push({ seq: event.seq - 1, t, scores: { ...scores, [event.data.team_id]: 0 } });
      points.push({ seq: event.seq, t, scores: { ...scores } });
    }
  }
  const history = scoreHistory(gid);
  const lastLogged = points.at(-1)?.seq ?? 0;
  // Keep what the views brought after the log was read.
  const later = history.points.filter((p) => p.seq > lastLogged && !same(p.scores, scores));
  const rebuilt = { points: [...points, ...later], complete: true };
  save(gid, rebuilt);
  return rebuilt;
}

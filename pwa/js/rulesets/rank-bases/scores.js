// Scores over time for the scoreboard's chart. Each view carries seq, server_time and scores: a
// point is kept whenever the scores change (per game, on this device). A viewer who may read the
// log (the organizer; everyone once the game has ended) rebuilds the whole line from the
// `delivered` events instead; anyone else starts from the scores seen first. The step chart of
// such points is drawn here too, for the scoreboard and for the replay.
import { api } from "../../api.js";
import { h } from "../../dom.js";
import { getLang } from "../../i18n.js";
import { teamColor, teams } from "./ranks.js";

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

// ---- the step chart (inline SVG): each team's line is flat between deliveries and jumps at each

const W = 640;
const PAD = { left: 46, right: 18, top: 14 };

function niceStep(max) {
  for (const step of [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000]) if (max / step <= 5) return step;
  return Math.ceil(max / 5);
}

export function clockTime(ms) {
  return new Date(ms).toLocaleTimeString(getLang(), { hour: "2-digit", minute: "2-digit" });
}

// `points` [{t, scores}] (at least one) up to `t1` (ms, the right edge); `top`: a score the y axis
// must reach; `label`: the chart's words; `end`: the right edge's words (its time by default);
// `dots`: a dot at each line's end; `cursorAt` (ms): a vertical line there; `seek(ms)`: a tap
// on the chart asks for that time.
export function stepChart(view, points, {
  t1, top = 0, height = 280, bottom = 36, testid, lineTestid, label, end = null,
  dots = false, cursorAt = null, seek = null,
}) {
  const H = height;
  const ids = teams(view).map((team) => team.team_id);
  const t0 = points[0].t;
  const most = Math.max(4, top, ...points.flatMap((p) => Object.values(p.scores)));
  const step = niceStep(most);
  const yMax = Math.ceil(most / step) * step;
  const x = (ms) => PAD.left + ((ms - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (score) => H - bottom - (score / yMax) * (H - PAD.top - bottom);
  const grid = [];
  for (let s = 0; s <= yMax; s += step) {
    grid.push(h("line", { class: "grid", x1: PAD.left, x2: W - PAD.right, y1: y(s), y2: y(s) }),
      h("text", { class: "axis", x: PAD.left - 6, y: y(s) + 5, "text-anchor": "end" }, s));
  }
  const lines = ids.map((id, i) => {
    // Equal scores would hide each other: nudge each line a little.
    const nudge = (i - (ids.length - 1) / 2) * 2.5;
    const at = (p) => y(p.scores[id] ?? 0) + nudge;
    let d = `M${x(points[0].t).toFixed(1)},${at(points[0]).toFixed(1)}`;
    for (const p of points.slice(1)) d += `H${x(p.t).toFixed(1)}V${at(p).toFixed(1)}`;
    d += `H${x(t1).toFixed(1)}`;
    const color = teamColor(view, id);
    return h("g", { testid: lineTestid(id) },
      h("path", { d, fill: "none", stroke: color, "stroke-width": 4, "stroke-linejoin": "round", "stroke-linecap": "round" }),
      dots && h("circle", { cx: x(t1), cy: at(points.at(-1)), r: 6, fill: color }));
  });
  const cx = Number.isFinite(cursorAt) ? Math.min(Math.max(x(cursorAt), PAD.left), W - PAD.right) : null;
  return h("svg", {
    class: "score-chart", testid, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, "data-points": points.length,
    onclick: seek && ((event) => {
      const box = event.currentTarget.getBoundingClientRect();
      const vx = ((event.clientX - box.left) / box.width) * W;
      const ms = t0 + ((vx - PAD.left) / (W - PAD.left - PAD.right)) * (t1 - t0);
      seek(Math.min(Math.max(ms, t0), t1));
    }),
  },
  h("title", {}, label),
  grid,
  h("line", { class: "axis-line", x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0) }),
  h("text", { class: "axis", x: PAD.left, y: H - 8, "text-anchor": "start" }, clockTime(t0)),
  h("text", { class: "axis", x: W - PAD.right, y: H - 8, "text-anchor": "end" }, end ?? clockTime(t1)),
  lines,
  cx !== null && h("line", { class: "cursor-line", x1: cx, x2: cx, y1: PAD.top - 6, y2: H - bottom + 4 }));
}

// The teams' colours under a chart.
export function legend(view) {
  return h("div", { class: "legend" }, teams(view).map((team) => h("span", { class: "legend-item" },
    h("span", { class: "legend-line", style: `background: ${teamColor(view, team.team_id)}` }), team.name)));
}

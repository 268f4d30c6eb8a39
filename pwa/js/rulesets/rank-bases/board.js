// The public scoreboard for a big screen: every team's score (live over the socket), what hangs
// on each tree, and the scores over time as a step chart drawn in inline SVG.
import { h } from "../../dom.js";
import { getLang, t } from "../../i18n.js";
import { serverNow } from "../../clock.js";
import { observe, rebuild, scoreHistory } from "./scores.js";
import { teamColor, teamName, teams } from "./ranks.js";
import { rows } from "../../keyed.js";
import { statusBanners } from "./common.js";

const W = 640;
const H = 280;
const PAD = { left: 46, right: 18, top: 14, bottom: 36 };
let ticker = null;

export function boardScreen(app, game) {
  const view = game.view;
  const status = view.game.status;
  const teamIds = teams(view).map((team) => team.team_id);
  if (status !== "lobby") observe(game.gameId, game.seq, game.serverTime, view.scores);
  // The organizer may read the log at any time, everyone once the game has ended.
  const canRebuild = view.me?.role === "organizer" || status === "ended";
  const rebuildKey = `${game.gameId}:${status}`;
  if (canRebuild && status !== "lobby" && app.ui.boardRebuilt !== rebuildKey) {
    app.ui.boardRebuilt = rebuildKey;
    rebuild(game.gameId, game.token, teamIds).then(() => app.render()).catch(() => {});
  }
  // The chart's right edge is "now": redraw now and then while the board is up.
  ticker ??= setInterval(() => {
    if (document.querySelector('[data-testid="board"]')) app.render();
  }, 15000);
  const ranked = [...teams(view)].sort((a, b) => (view.scores?.[b.team_id] ?? 0) - (view.scores?.[a.team_id] ?? 0));
  const history = scoreHistory(game.gameId);
  return h("main", { class: "board", testid: "board" },
    h("div", { class: "board-head" },
      h("h1", {}, view.game.name),
      h("span", { class: `chip status-${status}`, testid: "game-status", "data-status": status }, t(`status.${status}`)),
      view.me?.role && view.me.role !== "spectator" && h("a", { class: "button secondary", href: "#/", testid: "board-back" }, t("back"))),
    statusBanners(view),
    h("div", { class: "board-grid" },
      h("div", { class: "board-scores" }, ranked.map((team, i) => scoreTile(view, team, i))),
      h("section", { class: "board-chart" },
        h("h2", {}, t("board.chart")),
        chart(view, history, status),
        legend(view),
        !history.complete && history.points.length > 0 && h("p", { class: "hint", testid: "chart-since" },
          t("board.since", { time: clockTime(history.points[0].t) })))));
}

function scoreTile(view, team, place) {
  const id = team.team_id;
  const tree = rows(view.trees?.[id], "part_id");
  const winner = (view.winners || []).includes(id);
  return h("div", { class: `score-tile ${winner ? "winner" : ""}`, testid: `team-tile-${id}`, style: `--team: ${teamColor(view, id)}` },
    h("span", { class: "place" }, place + 1),
    h("span", { class: "tile-name" }, team.name),
    h("span", { class: "tile-score", testid: `score-${id}` }, view.scores?.[id] ?? 0),
    h("span", { class: "tile-tree", title: t("board.tree") }, t("board.tree"), " ",
      tree.length ? tree.map((part) => h("span", { class: "mini-part", style: `--team: ${teamColor(view, part.team_id)}` }, part.value)) : "–"));
}

function legend(view) {
  return h("div", { class: "legend" }, teams(view).map((team) => h("span", { class: "legend-item" },
    h("span", { class: "legend-line", style: `background: ${teamColor(view, team.team_id)}` }), team.name)));
}

function clockTime(ms) {
  return new Date(ms).toLocaleTimeString(getLang(), { hour: "2-digit", minute: "2-digit" });
}

function niceStep(max) {
  for (const step of [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000]) if (max / step <= 5) return step;
  return Math.ceil(max / 5);
}

// Scores are whole steps: each team's line is flat between deliveries and jumps at each one.
function chart(view, history, status) {
  const ids = teams(view).map((team) => team.team_id);
  const points = history.points.length
    ? history.points
    : [{ t: serverNow(), scores: { ...view.scores } }];
  const t0 = points[0].t;
  const last = points.at(-1).t;
  const t1 = Math.max(last, status === "ended" ? last : serverNow(), t0 + 60000);
  const top = Math.max(4, ...ids.map((id) => view.scores?.[id] ?? 0), ...points.flatMap((p) => Object.values(p.scores)));
  const step = niceStep(top);
  const yMax = Math.ceil(top / step) * step;
  const x = (ms) => PAD.left + ((ms - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (score) => H - PAD.bottom - (score / yMax) * (H - PAD.top - PAD.bottom);
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
    return h("g", { testid: `chart-line-${id}` },
      h("path", { d, fill: "none", stroke: color, "stroke-width": 4, "stroke-linejoin": "round", "stroke-linecap": "round" }),
      h("circle", { cx: x(t1), cy: at(points.at(-1)), r: 6, fill: color }));
  });
  const label = ids.map((id) => `${teamName(view, id)} ${view.scores?.[id] ?? 0}`).join(", ");
  return h("svg", {
    class: "score-chart", testid: "score-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": t("board.chart_label", { scores: label }), "data-points": points.length,
  },
  h("title", {}, t("board.chart_label", { scores: label })),
  grid,
  h("line", { class: "axis-line", x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0) }),
  h("text", { class: "axis", x: PAD.left, y: H - 8, "text-anchor": "start" }, clockTime(t0)),
  h("text", { class: "axis", x: W - PAD.right, y: H - 8, "text-anchor": "end" }, status === "ended" ? clockTime(t1) : t("board.now")),
  lines);
}

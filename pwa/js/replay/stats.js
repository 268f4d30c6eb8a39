// The replay's statistics, computed from the whole log in the index: a table per player (duels
// fought and won, stuns dealt, deaths …, by ruleset), totals, and for rank-bases the scores over
// time as an inline SVG step chart with the replay's cursor on it (a tap on the chart seeks).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { teamColor, teams } from "../rulesets/rank-bases/ranks.js";
import { clock, memberName } from "./describe.js";

export function statsPanel(index, ui, { cursorAt, seekTime }) {
  if (!index) return null;
  const columns = index.columns || [];
  const sortKey = columns.includes(ui.statsSort) ? ui.statsSort : null;
  const rows = sortKey ? [...index.stats].sort((a, b) => b.values[sortKey] - a.values[sortKey]) : index.stats;
  const totals = Object.entries(index.totals || {}).map(([kind, count]) => t(`replay.total.${kind}`, { count }));
  const view = { game: { config: index.config } };
  return h("section", { class: "replay-stats", testid: "replay-stats", "data-events": index.count },
    h("h2", {}, t("replay.stats")),
    h("p", { class: "hint" }, [t("replay.total.events", { count: index.count }), ...totals].join(" · ")),
    index.scores && index.scores.points.length > 0 && scoreChart(view, index, cursorAt, seekTime),
    rows.length > 0 && h("div", { class: "replay-table-wrap" },
      h("table", { class: "replay-table" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("replay.col.name")),
          columns.map((key) => h("th", { scope: "col" },
            h("button", {
              class: `icon sort ${sortKey === key ? "on" : ""}`, title: t(`replay.col_title.${key}`),
              "aria-pressed": String(sortKey === key),
              onclick: () => { ui.statsSort = sortKey === key ? null : key; ui.render(); },
            }, t(`replay.col.${key}`)))))),
        h("tbody", {}, rows.map((row) => h("tr", {
          testid: `replay-stat-${row.id}`,
          ...Object.fromEntries(columns.map((key) => [`data-${key.replace(/_/g, "-")}`, String(row.values[key])])),
        },
        h("th", { scope: "row" },
          index.ruleset === "rank-bases" && index.members[row.id]?.team
            ? h("span", { class: "team-dot", style: `--team: ${teamColor(view, index.members[row.id].team)}`, "aria-hidden": "true" }) : null,
          memberName(index, row.id)),
        columns.map((key) => h("td", {}, row.values[key]))))))));
}

const W = 640;
const H = 240;
const PAD = { left: 46, right: 18, top: 14, bottom: 34 };

function niceStep(max) {
  for (const step of [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000]) if (max / step <= 5) return step;
  return Math.ceil(max / 5);
}

function scoreChart(view, index, cursorAt, seekTime) {
  const ids = teams(view).map((team) => team.team_id);
  const points = index.scores.points;
  const t0 = points[0].t;
  const t1 = Math.max(index.lastAt ?? t0, t0 + 60000);
  const top = Math.max(4, ...points.flatMap((p) => Object.values(p.scores)));
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
    const nudge = (i - (ids.length - 1) / 2) * 2.5;
    const at = (p) => y(p.scores[id] ?? 0) + nudge;
    let d = `M${x(points[0].t).toFixed(1)},${at(points[0]).toFixed(1)}`;
    for (const p of points.slice(1)) d += `H${x(p.t).toFixed(1)}V${at(p).toFixed(1)}`;
    d += `H${x(t1).toFixed(1)}`;
    return h("path", { testid: `replay-chart-line-${id}`, d, fill: "none", stroke: teamColor(view, id), "stroke-width": 4, "stroke-linejoin": "round" });
  });
  const cx = Number.isFinite(cursorAt) ? Math.min(Math.max(x(cursorAt), PAD.left), W - PAD.right) : null;
  return h("div", { class: "replay-chart" },
    h("h3", {}, t("board.chart")),
    h("svg", {
      class: "score-chart", testid: "replay-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": t("replay.chart_label"), "data-points": points.length,
      onclick: (event) => {
        const box = event.currentTarget.getBoundingClientRect();
        const vx = ((event.clientX - box.left) / box.width) * W;
        const ms = t0 + ((vx - PAD.left) / (W - PAD.left - PAD.right)) * (t1 - t0);
        seekTime(Math.min(Math.max(ms, t0), t1));
      },
    },
    h("title", {}, t("replay.chart_label")),
    grid,
    h("line", { class: "axis-line", x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0) }),
    h("text", { class: "axis", x: PAD.left, y: H - 8, "text-anchor": "start" }, clock(t0, false)),
    h("text", { class: "axis", x: W - PAD.right, y: H - 8, "text-anchor": "end" }, clock(t1, false)),
    lines,
    cx !== null && h("line", { class: "cursor-line", x1: cx, x2: cx, y1: PAD.top - 6, y2: H - PAD.bottom + 4 })),
    h("div", { class: "legend" }, teams(view).map((team) => h("span", { class: "legend-item" },
      h("span", { class: "legend-line", style: `background: ${teamColor(view, team.team_id)}` }), team.name))));
}

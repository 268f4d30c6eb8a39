// The public scoreboard for a big screen: every team's score (live over the socket), what hangs
// on each tree, and the scores over time as a step chart drawn in inline SVG.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { serverNow } from "../../clock.js";
import { clockTime, legend, observe, rebuild, scoreHistory, stepChart } from "./scores.js";
import { teamColor, teamName, teams } from "./ranks.js";
import { rows } from "../../keyed.js";
import { statusBanners } from "./common.js";

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

// Scores are whole steps: each team's line is flat between deliveries and jumps at each one.
function chart(view, history, status) {
  const ids = teams(view).map((team) => team.team_id);
  const points = history.points.length
    ? history.points
    : [{ t: serverNow(), scores: { ...view.scores } }];
  const t0 = points[0].t;
  const last = points.at(-1).t;
  const t1 = Math.max(last, status === "ended" ? last : serverNow(), t0 + 60000);
  const label = t("board.chart_label", { scores: ids.map((id) => `${teamName(view, id)} ${view.scores?.[id] ?? 0}`).join(", ") });
  return stepChart(view, points, {
    t1, top: Math.max(0, ...ids.map((id) => view.scores?.[id] ?? 0)), testid: "score-chart",
    lineTestid: (id) => `chart-line-${id}`, label, end: status === "ended" ? null : t("board.now"), dots: true,
  });
}

// The rank-bases part of "create a game": teams (one a line; the id comes from the name) and
// the five ranks with their lives (the defaults, editable).
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { DEFAULT_RANKS, teamIdFor } from "./ranks.js";

export function defaults() {
  return {
    teams: "",
    ranks: DEFAULT_RANKS.map((r) => ({ name: r.name, lives: String(r.lives) })),
  };
}

function teamLines(f) {
  const taken = new Set();
  return f.teams.split("\n").map((line) => line.trim()).filter(Boolean)
    .map((name) => ({ team_id: teamIdFor(name, taken), name: name.slice(0, 40) }));
}

export function config(f) {
  return {
    teams: teamLines(f),
    ranks: f.ranks.map((r, i) => ({ rank: i + 1, name: r.name.trim(), lives: Number.parseInt(r.lives, 10) })),
  };
}

export function fields(app, f) {
  const lines = teamLines(f);
  return [
    h("label", { for: "config-teams" }, t("create.teams"),
      h("textarea", {
        id: "config-teams", testid: "config-teams", rows: "4", placeholder: t("create.teams_placeholder"),
        oninput: (e) => {
          f.teams = e.target.value;
          app.render();
        },
      }, f.teams)),
    h("div", { class: "hint", testid: "config-team-ids" },
      lines.length ? lines.map((team) => `${team.name} → ${team.team_id}`).join(" · ") : t("create.teams_hint")),
    h("details", { class: "rank-config", open: app.ui.rankConfigOpen !== false, ontoggle: (e) => { app.ui.rankConfigOpen = e.target.open; } },
      h("summary", {}, t("create.ranks")),
      h("p", { class: "hint" }, t("create.ranks_hint")),
      f.ranks.map((r, i) => h("div", { class: "rank-config-row" },
        h("span", { class: "rank-num small" }, i + 1),
        h("input", {
          testid: `rank-name-${i + 1}`, value: r.name, "aria-label": t("create.rank_name", { rank: i + 1 }), maxlength: "40",
          oninput: (e) => { r.name = e.target.value; },
        }),
        h("input", {
          testid: `rank-lives-${i + 1}`, value: r.lives, type: "number", min: "0", max: "99", inputmode: "numeric",
          "aria-label": t("create.rank_lives", { rank: i + 1 }), oninput: (e) => { r.lives = e.target.value; },
        })))),
  ];
}

export function defaultName() {
  return t("ruleset.rank-bases");
}

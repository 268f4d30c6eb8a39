// The replay's statistics, computed from the whole log in the index: a table per row (duels
// fought and won, stuns dealt, deaths …: the ruleset's columns), totals, and the ruleset's charts
// (such as the scores over time, with the replay's cursor on it: a tap on the chart seeks).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { memberName } from "./describe.js";

// `part`: the ruleset's replay part (its charts, a mark beside a row's name), null while it loads.
export function statsPanel(index, ui, { cursorAt, seekTime, part = null }) {
  if (!index) return null;
  const columns = index.columns || [];
  const sortKey = columns.includes(ui.statsSort) ? ui.statsSort : null;
  const rows = sortKey ? [...index.stats].sort((a, b) => b.values[sortKey] - a.values[sortKey]) : index.stats;
  const totals = Object.entries(index.totals || {}).map(([kind, count]) => t(`replay.total.${kind}`, { count }));
  return h("section", { class: "replay-stats", testid: "replay-stats", "data-events": index.count },
    h("h2", {}, t("replay.stats")),
    h("p", { class: "hint" }, [t("replay.total.events", { count: index.count }), ...totals].join(" · ")),
    part?.charts?.(index, { cursorAt, seekTime }) ?? null,
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
        h("th", { scope: "row" }, part?.rowMark?.(index, row.id) ?? null, memberName(index, row.id)),
        columns.map((key) => h("td", {}, row.values[key]))))))));
}

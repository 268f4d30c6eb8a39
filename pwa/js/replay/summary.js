// A replayed view in words: what one viewer's screen held right after one event. The live
// screens depend on the phone's clock and on sending commands, so the replay draws its own
// summary: the ruleset's replay part (rulesets/<id>/replay.js `summary`) draws the players, duels,
// scores or combatants at that moment; here the game's status and the whole view as JSON on
// request. Views carry no roster: other players' names come from the log's members (the index).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { clock } from "./describe.js";

// A time ("until") in force at the replayed moment: "do 15:19:06 (ještě 2:00)".
export function until(iso, at) {
  const end = Date.parse(iso);
  if (!Number.isFinite(end) || end <= at) return null;
  const left = Math.ceil((end - at) / 1000);
  return t("replay.until", { time: clock(end), left: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` });
}

// `members`: {player_id: {name, role, team, code}} of the log; `part`: the ruleset's replay part
// (null while it loads).
export function viewSummary(view, at, ui, members = {}, part = null) {
  if (!view) return null;
  return [
    h("div", { class: "replay-status" },
      h("span", { class: `chip status-${view.game?.status}` }, t("replay.status", { status: t(`status.${view.game?.status}`) }))),
    part?.summary?.(view, at, members || {}) ?? null,
    h("details", {
      class: "replay-json", open: Boolean(ui.jsonOpen),
      ontoggle: (e) => { ui.jsonOpen = e.target.open; },
    },
    h("summary", {}, t("replay.json")),
    ui.jsonOpen && h("pre", {}, JSON.stringify(view, null, 1))),
  ];
}

// The game's players (from the log), but `except`.
export function playersOf(members, except = null) {
  return Object.entries(members).filter(([id, m]) => id !== except && m.role === "player")
    .map(([id, m]) => ({ ...m, player_id: id }));
}

export function publicPlayers(members, except = null) {
  const list = playersOf(members, except);
  if (!list.length) return null;
  return h("section", { class: "replay-players" },
    h("h3", {}, t("players.title", { count: list.length })),
    h("ul", { class: "plain" }, list.map((p) => h("li", {}, h("span", { class: "code-small" }, p.code), " ", p.name))));
}

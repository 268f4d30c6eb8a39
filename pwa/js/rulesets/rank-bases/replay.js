// rank-bases' part of the replay (see replay/indexer.js): its events in words, a replayed view
// (scores, trees, raids, the player's or leader's or organizer's side), the scores chart, a team
// dot beside each stats row and a viewer per team (its leader).
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { count, rows } from "../../keyed.js";
import { names, teamName } from "../../replay/describe.js";
import { playersOf } from "../../replay/summary.js";
import { carryingText, partsList, scoresStrip, teamBadge } from "./common.js";
import { rankName, teamColor, teams } from "./ranks.js";
import { legend, stepChart } from "./scores.js";

// A rank as the log's config names it: "3 Kapitán".
function rankOf(index, rank) {
  const found = (index?.config?.ranks || []).find((r) => r.rank === rank);
  return found ? `${rank} ${found.name}` : String(rank ?? "?");
}

export function describe(event, index, d, who) {
  const raid = index?.own?.raids?.[d.raid_id];
  const raidText = raid ? t("replay.ev.raid_of", { name: who(raid.attacker), team: teamName(index, raid.team_id) }) : (d.raid_id ?? "");
  switch (event.type) {
    case "rank_assigned": return t("replay.ev.rank_assigned", { name: who(d.player_id), rank: rankOf(index, d.rank) });
    case "paper_issued": return t("replay.ev.paper_issued", { name: who(d.player_id), count: d.lives ?? 0 });
    case "duel_started": return t("replay.ev.duel_started", { a: who(d.challenger), b: who(d.target) });
    case "duel_fought": {
      const [a, b] = d.players || [];
      const fight = `${who(a)} (${rankOf(index, d.ranks?.[a])}) × ${who(b)} (${rankOf(index, d.ranks?.[b])})`;
      const result = d.winner ? t("replay.ev.winner", { name: who(d.winner) }) : t("replay.ev.swap");
      return t(d.raid_id ? "replay.ev.duel_fought_raid" : "replay.ev.duel_fought", { fight, result });
    }
    case "duel_cancelled": return t("replay.ev.duel_cancelled", { pair: d.duel_id, reason: t(`replay.reason.${d.reason}`) });
    case "raid_started": return t("replay.ev.raid_started", { name: who(d.attacker), team: teamName(index, d.team_id) });
    case "raid_defended": return d.order?.length
      ? t("replay.ev.raid_defended", { names: names(index, d.order) })
      : t("replay.ev.raid_undefended");
    case "raid_won": return t("replay.ev.raid_won", { raid: raidText });
    case "raid_lost": return t("replay.ev.raid_lost", { raid: raidText });
    case "part_taken": return t("replay.ev.part_taken", {
      name: who(d.player_id), value: d.part?.value, owner: teamName(index, d.part?.team_id), tree: teamName(index, d.tree),
    });
    case "raid_ended": return t("replay.ev.raid_ended", { raid: raidText, reason: t(`replay.reason.${d.reason}`) });
    case "raid_cancelled": return t("replay.ev.raid_cancelled", { raid: raidText, reason: t(`replay.reason.${d.reason}`) });
    case "delivered": return t("replay.ev.delivered", {
      name: who(d.player_id), team: teamName(index, d.team_id), count: d.points ?? 0,
      papers: (d.papers || []).length, parts: (d.parts || []).map((p) => p.value).join("+") || "0",
    });
    default: return null;
  }
}

export function summary(view, at, members) {
  const role = view.me?.role;
  return [
    scoresStrip(view),
    (view.winners || []).length > 0 && h("div", { class: "banner info" },
      t("board.winners", { count: view.winners.length, names: view.winners.map((id) => teams(view).find((x) => x.team_id === id)?.name ?? id).join(", ") })),
    role === "player" && rankPlayer(view),
    role === "leader" && rankLeader(view),
    role === "organizer" && rankOrganizer(view),
    trees(view),
    role !== "organizer" && role !== "leader" && rankPublic(view, members),
  ];
}

function trees(view) {
  const list = teams(view);
  if (!list.length) return null;
  return h("section", { class: "replay-trees" },
    h("h3", {}, t("replay.trees")),
    list.map((team) => h("div", { class: "replay-tree" },
      h("div", { class: "replay-tree-line" }, teamBadge(view, team.team_id), partsList(view, view.trees?.[team.team_id], team.team_id, "–")),
      count(view.stashes?.[team.team_id]) > 0 && h("div", { class: "replay-tree-line hint" },
        t("replay.stash"), partsList(view, view.stashes[team.team_id], team.team_id, "–")),
      count(view.piles?.[team.team_id]) > 0 && h("div", { class: "replay-tree-line hint" },
        t("replay.pile", { count: count(view.piles[team.team_id]) })))));
}

function paperChip(has) {
  return h("span", { class: has ? "chip ok" : "chip bad" }, has ? t("status.paper_yes") : t("status.paper_no"));
}

function rankPlayer(view) {
  const { me, duel, last_duel: last, raid } = view;
  const name = (pid) => (pid === me.player_id ? me.name : last?.opponent?.player_id === pid ? last.opponent.name : pid);
  return [
    h("section", { class: "replay-me" },
      h("div", { class: "replay-name" }, h("strong", {}, me.name), " ", teamBadge(view, me.team_id)),
      h("div", { class: "chips" },
        me.rank && h("span", { class: "chip rank-chip" }, `${me.rank} · ${rankName(view, me.rank)}`),
        paperChip(me.has_paper),
        h("span", { class: "chip" }, t("status.lives", { count: me.lives ?? 0 })),
        h("span", { class: "chip carry" }, t("carry.chip", { what: carryingText(view, me.carrying) })))),
    duel && h("section", { class: "replay-duel" },
      h("h3", {}, t("replay.duel_with", { name: duel.opponent.name })),
      h("p", {}, t("replay.duel_waiting"))),
    last && h("section", { class: "replay-duel", testid: "replay-last-duel" },
      h("h3", {}, t(last.raid_id ? "replay.last_duel_raid" : "replay.last_duel", { name: last.opponent.name })),
      h("div", { class: "chips" }, Object.entries(last.ranks || {}).map(([pid, rank]) => h("span", { class: last.winner === pid ? "chip ok" : "chip" },
        `${name(pid)}: ${rank} · ${rankName(view, rank)}`))),
      h("p", {}, last.winner ? t("replay.ev.winner", { name: name(last.winner) }) : t("replay.ev.swap"))),
    raid && h("section", { class: "replay-raid" },
      h("h3", {}, t("replay.raid_on", { team: teams(view).find((x) => x.team_id === raid.team_id)?.name ?? raid.team_id })),
      h("span", { class: "chip" }, t(`replay.raid_state.${raid.state}`)),
      raid.part && [" ", partsList(view, [raid.part], null, "")]),
    incoming(view),
  ];
}

function incoming(view) {
  const list = rows(view.incoming_raids, "raid_id");
  if (!list.length) return null;
  return h("section", { class: "replay-raid" },
    h("h3", {}, t("replay.incoming")),
    h("ul", { class: "plain" }, list.map((r) => h("li", {}, r.attacker?.name ?? "", " ", h("span", { class: "chip" }, t(`replay.raid_state.${r.state}`))))));
}

function rankLeader(view) {
  return [
    h("section", { class: "replay-me" },
      h("div", { class: "replay-name" }, h("strong", {}, view.me.name), " ", teamBadge(view, view.me.team_id)),
      h("div", {}, t("replay.stash"), " ", partsList(view, view.stash, view.me.team_id, "–"))),
    h("section", { class: "replay-players" },
      h("h3", {}, t("replay.team")),
      rows(view.team, "player_id").map((p) => rankRow(view, p))),
    incoming(view),
  ];
}

function rankRow(view, p) {
  return h("div", { class: "replay-prow" },
    h("div", { class: "replay-name" }, h("strong", {}, p.name), p.team_id ? [" ", teamBadge(view, p.team_id)] : null),
    h("div", { class: "chips" },
      p.rank && h("span", { class: "chip rank-chip" }, `${p.rank} · ${rankName(view, p.rank)}`),
      paperChip(p.has_paper),
      h("span", { class: "chip" }, t("status.lives", { count: p.lives ?? 0 })),
      (p.carrying?.papers || p.carrying?.parts?.length) ? h("span", { class: "chip carry" }, t("carry.chip", { what: carryingText(view, p.carrying) })) : null,
      p.duel_id && h("span", { class: "chip duel" }, t("replay.in_duel"))));
}

function rankOrganizer(view) {
  const players = rows(view.players, "player_id");
  const byTeam = teams(view).map((team) => [team, players.filter((p) => p.team_id === team.team_id)]);
  const name = (pid) => view.players?.[pid]?.name ?? pid;
  const duels = rows(view.duels, "duel_id");
  const raids = rows(view.raids, "raid_id");
  return [
    duels.length > 0 && h("section", {},
      h("h3", {}, t("duels.title", { count: duels.length })),
      h("ul", { class: "plain" }, duels.map((d) => h("li", {}, name(d.challenger), " × ", name(d.target))))),
    raids.length > 0 && h("section", {},
      h("h3", {}, t("replay.raids")),
      h("ul", { class: "plain" }, raids.slice(-8).map((r) => h("li", {},
        name(r.attacker), " → ", teamBadge(view, r.team_id), " ", h("span", { class: "chip" }, t(`replay.raid_state.${r.state}`)),
        r.part ? [" ", partsList(view, [r.part], null, "")] : null)))),
    byTeam.map(([team, players]) => h("section", { class: "replay-players", style: `--team: ${teamColor(view, team.team_id)}` },
      h("h3", {}, teamBadge(view, team.team_id)),
      players.map((p) => rankRow(view, { ...p, team_id: null })))),
  ];
}

function rankPublic(view, members) {
  const players = playersOf(members);
  return h("section", { class: "replay-players" },
    h("h3", {}, t("players.title", { count: players.length })),
    teams(view).map((team) => h("div", { class: "replay-tree" },
      h("div", { class: "replay-tree-line" }, teamBadge(view, team.team_id)),
      h("div", {}, players.filter((p) => p.team === team.team_id).map((p) => p.name).join(", ")))));
}

// ---- the statistics: the scores over time (a tap seeks), a team dot, a viewer per team ----

export function charts(index, { cursorAt, seekTime }) {
  const points = index.own?.scores?.points || [];
  if (!points.length) return null;
  const view = { game: { config: index.config } };
  const t0 = points[0].t;
  return h("div", { class: "replay-chart" },
    h("h3", {}, t("board.chart")),
    stepChart(view, points, {
      t1: Math.max(index.lastAt ?? t0, t0 + 60000), height: 240, bottom: 34, testid: "replay-chart",
      lineTestid: (id) => `replay-chart-line-${id}`, label: t("replay.chart_label"), cursorAt, seek: seekTime,
    }),
    legend(view));
}

export function rowMark(index, id) {
  const team = index.members?.[id]?.team;
  if (!team) return null;
  return h("span", { class: "team-dot", style: `--team: ${teamColor({ game: { config: index.config } }, team)}`, "aria-hidden": "true" });
}

// Each team's board as its leader saw it (this phone's own leader first).
export function viewers(index, me, mark) {
  const role = (id) => index.members[id]?.role;
  const options = [];
  for (const team of index.config?.teams || []) {
    const leader = (me && role(me) === "leader" && index.members[me].team === team.team_id) ? me
      : index.order.find((id) => role(id) === "leader" && index.members[id].team === team.team_id);
    if (leader) options.push({ value: leader, label: mark(leader, t("replay.viewer.team", { team: team.name })) });
  }
  return options;
}

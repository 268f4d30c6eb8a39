// The rank-bases organizer's console: the game and its config, every team (players with ranks,
// papers, lives, what they carry; the tree, the stash and the pile), open duels and raids (with
// cancel), adding players and leaders to teams, ranks, start and end, and a scoreboard link.
import { h, keyed } from "../../dom.js";
import { errorText, getLang, t } from "../../i18n.js";
import { api } from "../../api.js";
import { count, rows } from "../../keyed.js";
import { problemWords, rankName, teamColor, teamName, teams } from "./ranks.js";
import { presenceLine, presenceMarks } from "../../presence.js";
import { gameHead, matchesFilter, memberForm, membersList, nameOf, playerFilter, playerRowHead, seedSection, sending } from "../../views/common.js";
import { carryingText, partsList, rankSelect, teamBadge } from "./common.js";

const ROLES = ["player", "leader", "organizer", "spectator"];
const RAID_OPEN = ["awaiting_defenders", "won"];

export function rankOrganizerScreen(app, game) {
  const view = game.view;
  // A refused start is old news once the game runs.
  if (view.game.status !== "lobby" && game.errors.some((e) => e.code === "invalid_setup")) {
    game.errors = game.errors.filter((e) => e.code !== "invalid_setup");
  }
  return h("main", { class: "organizer rank-org" },
    head(app, game),
    setupError(game),
    duels(game),
    raids(game),
    count(view.players) > 0 && presenceLine(game, rows(view.players, "player_id")),
    count(view.players) > 0 && playerFilter(app, { count: count(view.players), shown: shownPlayers(app, view).length }),
    teams(view).map((team) => teamSection(app, game, team)),
    addPlayers(app, game),
    boardLink(app, game),
    membersList(view, (m) => m.role === "organizer" || m.role === "spectator"),
    seedSection(view));
}

// The players the search box lets through, in the order they joined.
function shownPlayers(app, view) {
  return rows(view.players, "player_id").filter((p) => matchesFilter(app.ui.playerFilter, p.name, p.code));
}

// A team's leaders, from the members.
function leadersOf(view, teamId) {
  return rows(view.members, "player_id").filter((m) => m.role === "leader" && m.team === teamId);
}

// Raids are keyed "r<seq>": in the order they were opened.
function raidList(view) {
  return rows(view.raids, "raid_id");
}

function head(app, game) {
  const view = game.view;
  const ranks = view.game.config?.ranks || [];
  return gameHead(app, game, {
    chips: [t("org.teams_count", { count: teams(view).length })],
    extra: h("details", { class: "config-ranks", testid: "config-ranks" },
      h("summary", {}, t("org.ranks_config")),
      h("ol", { class: "rank-list" }, ranks.map((r) => h("li", {}, h("b", {}, r.name), " · ", t("status.lives", { count: r.lives })))),
      h("p", { class: "hint" }, t("org.ranks_fixed"))),
    links: h("a", { class: "button secondary", href: "#/board", testid: "open-board" }, t("board.open")),
  });
}


// A start refused with invalid_setup: what each team still lacks (the server's reasons, in the
// reader's words), one problem a line.
function setupError(game) {
  const refused = [...game.errors].reverse().find((e) => e.code === "invalid_setup");
  const view = game.view;
  if (!refused || view.game.status !== "lobby") return null;
  const lines = (view.setup || []).map((problem) => {
    const words = t(...problemWords(problem));
    return problem.team_id ? `${teamName(view, problem.team_id)}: ${words}` : words;
  });
  return h("section", { class: "banner setup-error", testid: "setup-error", role: "alert" },
    h("strong", {}, t("org.start_refused")),
    h("ul", {}, lines.map((line) => h("li", {}, line))),
    h("button", { class: "secondary", onclick: () => game.dismissError(refused.id) }, t("close")));
}

function duels(game) {
  const view = game.view;
  const list = rows(view.duels, "duel_id");
  if (!list.length) return null;
  return h("section", { class: "duels" },
    h("h2", {}, t("duels.title", { count: list.length })),
    list.map((duel) => h("div", { class: "duel-row", testid: `duel-row-${duel.duel_id}` },
      h("div", { class: "duel-names" },
        h("strong", {}, nameOf(view, duel.challenger)), " × ", h("strong", {}, nameOf(view, duel.target)),
        " ", h("span", { class: "muted" }, t("org.duel_waits", { name: nameOf(view, duel.target) }))),
      h("button", {
        class: "secondary", testid: `cancel-duel-${duel.duel_id}`,
        disabled: sending(game, "cancel_duel", { duel_id: duel.duel_id }),
        onclick: () => game.send({ type: "cancel_duel", duel_id: duel.duel_id }),
      }, t("duels.cancel")))));
}

function raids(game) {
  const view = game.view;
  const list = [...raidList(view)].reverse();
  if (!list.length) return null;
  const open = list.filter((r) => RAID_OPEN.includes(r.state)).length;
  return h("section", { class: "raids" },
    h("h2", {}, t("org.raids", { count: list.length, open })),
    list.map((raid) => h("div", { class: "duel-row", testid: `raid-row-${raid.raid_id}`, "data-state": raid.state },
      h("div", { class: "duel-names" },
        h("strong", {}, nameOf(view, raid.attacker)), " → ", teamBadge(view, raid.team_id), " ",
        h("span", { class: `chip raid-${raid.state}` }, t(`raidstate.${raid.state}`)),
        raid.order?.length > 0 && h("div", { class: "hint" }, t("org.defenders"), " ", raid.order.map((pid, i) => `${i + 1}. ${nameOf(view, pid)}`).join(", ")),
        raid.part && h("div", { class: "hint" }, t("org.part_taken", { value: raid.part.value, team: teamName(view, raid.part.team_id) }))),
      RAID_OPEN.includes(raid.state) && h("button", {
        class: "secondary", testid: `cancel-raid-${raid.raid_id}`,
        disabled: sending(game, "cancel_raid", { raid_id: raid.raid_id }),
        onclick: () => game.send({ type: "cancel_raid", raid_id: raid.raid_id }),
      }, t("org.cancel_raid")))));
}

// A team's setup problems, from the server's `setup`.
function teamProblems(view, id) {
  return (view.setup || []).filter((problem) => problem.team_id === id).map(problemWords);
}

function teamSection(app, game, team) {
  const view = game.view;
  const id = team.team_id;
  const lobby = view.game.status === "lobby";
  const all = rows(view.players, "player_id").filter((p) => p.team_id === id);
  const pending = new Map(); // player_id -> ranks on the way to them
  for (const c of game.inFlight()) if (c.type === "assign_rank") pending.set(c.player_id, [...(pending.get(c.player_id) || []), c.rank]);
  const players = all.filter((p) => matchesFilter(app.ui.playerFilter, p.name, p.code));
  const leaders = leadersOf(view, id);
  const problems = teamProblems(view, id);
  return h("section", { class: "team-section", testid: `team-${id}`, style: `--team: ${teamColor(view, id)}` },
    h("div", { class: "section-head" },
      h("h2", {}, teamBadge(view, id), " ", h("span", { class: "muted code-small" }, id)),
      h("span", { class: "team-score" }, t("leader.score"), " ", h("b", { testid: `org-score-${id}` }, view.scores?.[id] ?? 0))),
    lobby && (problems.length
      ? h("ul", { class: "problems", testid: `team-check-${id}` }, problems.map(([key, params]) => h("li", {}, t(key, params))))
      : h("div", { class: "chip ok", testid: `team-check-${id}` }, t("setup.ready"))),
    h("div", { class: "leaders" }, t("org.leaders"), " ",
      leaders.length ? leaders.map((m, i) => [i ? ", " : "", h("b", {}, m.name), " ", h("span", { class: "code-small muted" }, m.code)]) : h("span", { class: "muted" }, t("org.no_leader"))),
    keyed("div", { class: "players-table", testid: `player-rows-${id}` }, players.map((p) => {
      const raid = view.raids?.[p.raid_id];
      const row = {
        p, lang: getLang(), lobby, open: app.ui.openRow === p.player_id,
        raid: raid && RAID_OPEN.includes(raid.state) ? raid.team_id : null,
        pending: pending.get(p.player_id) ?? [],
        seen: game.presence && (game.presence[p.player_id] ?? "absent"), // (redrawn when it changes)
      };
      return { key: p.player_id, data: row, render: () => playerRow(app, game, row) };
    })),
    !all.length && h("p", { class: "hint" }, t("players.none")),
    h("div", { class: "team-parts" },
      h("div", {}, h("span", { class: "status-label" }, t("leader.tree")), " ", partsList(view, view.trees?.[id], id, "–")),
      h("div", {}, h("span", { class: "status-label" }, t("leader.stash")), " ", h("span", { testid: `stash-${id}` }, partsList(view, view.stashes?.[id], id, "–"))),
      h("div", {}, h("span", { class: "status-label" }, t("org.pile")), " ",
        h("span", { testid: `pile-${id}` }, t("carry.papers", { count: count(view.piles?.[id]) })))));
}

function playerRow(app, game, { p, lobby, open, raid }) {
  const view = game.view;
  const rank = p.rank == null ? t("rank.none") : `${p.rank} · ${rankName(view, p.rank)}`;
  return h("div", { class: `prow ${p.out && !lobby ? "is-dead" : ""}`, testid: `player-row-${p.player_id}` },
    playerRowHead(app, p, open,
      ...presenceMarks(game, p),
      h("span", { class: "chip rank-chip", testid: `org-rank-${p.player_id}` }, rank),
      !lobby && (p.out
        ? h("span", { class: "chip dead" }, t("status.out"))
        : h("span", { class: p.has_paper ? "chip ok" : "chip bad" }, p.has_paper ? t("status.paper_yes") : t("status.paper_no"))),
      h("span", { class: "chip" }, t("status.lives", { count: p.lives ?? 0 })),
      (p.carrying?.papers > 0 || p.carrying?.parts?.length > 0) && h("span", { class: "chip carry", testid: `org-carrying-${p.player_id}` }, t("carry.chip", { what: carryingText(view, p.carrying) })),
      p.duel_id && h("span", { class: "chip duel", testid: `org-duel-${p.player_id}` }, t("org.in_duel")),
      raid && h("span", { class: "chip duel" }, t("org.in_raid", { team: teamName(view, raid) }))),
    lobby && h("div", { class: "prow-detail" }, rankSelect(game, p)),
    !lobby && open && h("div", { class: "prow-detail" },
      h("label", {}, t("org.correct_rank"), rankSelect(game, p)),
      h("p", { class: "hint" }, t("org.correct_rank_hint"))));
}

function addPlayers(app, game) {
  const view = game.view;
  return memberForm(app, game, {
    roles: ROLES, teams: teams(view), teamRoles: ["player", "leader"], title: t("org.add_title"),
    pasteLabel: (team) => t("org.paste", { team: teamName(view, team) }),
    note: view.game.status !== "lobby" && h("p", { class: "hint" }, t("org.add_after_start")),
  });
}


// A screen for the scoreboard: a spectator whose link opens straight on the board.
function boardLink(app, game) {
  const ui = app.ui;
  return h("section", { class: "board-link" },
    h("h2", {}, t("board.title")),
    h("p", { class: "hint" }, t("org.board_hint")),
    ui.boardUrl
      ? h("div", {},
        h("a", { class: "invite-url board-url", href: ui.boardUrl, testid: "board-link", target: "_blank", rel: "noopener" }, ui.boardUrl))
      : h("button", {
        class: "secondary", testid: "add-board", disabled: Boolean(ui.addingBoard),
        onclick: async () => {
          app.set({ addingBoard: true });
          try {
            const answer = await api.addPlayer(game.gameId, game.token, { name: t("board.member_name"), role: "spectator", team: null });
            const url = answer.join_url.replace("/#/join/", "/#/board/");
            app.set({ boardUrl: url });
          } catch (err) {
            app.notify(errorText(err.code, err.message));
          } finally {
            app.set({ addingBoard: false });
            game.refresh();
          }
        },
      }, t("org.add_board")));
}

// A rank-bases leader's phone (the base): incoming raids and their defenders in order,
// deliveries, new rank papers, the team (ranks behind a switch), the tree and the stash.
import { gameOver, sending } from "../../views/common.js";
import { buzz } from "../../alerts.js";
import { rows } from "../../keyed.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { allowed, problemWords, rankName, refusal, teamName } from "./ranks.js";
import { gameResult } from "./player.js";
import {
  carryingText, partChip, partsList, rankSelect, scoresStrip, statusBanners, teamBadge,
} from "./common.js";

const SHOW_RANKS_MS = 15000;
const buzzed = new Set();

export function rankLeaderScreen(app, game) {
  const view = game.view;
  const home = view.me.team_id;
  const lobby = view.game.status === "lobby";
  const running = view.game.status === "running";
  const team = rows(view.team, "player_id");
  for (const raid of rows(view.incoming_raids, "raid_id")) {
    if (raid.state === "awaiting_defenders" && !buzzed.has(raid.raid_id)) {
      buzzed.add(raid.raid_id);
      buzz();
    }
  }
  return h("main", { class: "leader", testid: "leader" },
    statusBanners(view),
    view.game.status === "ended" && gameOver(game, { mine: baseOutcome(view), result: gameResult(view) }),
    running && rows(view.incoming_raids, "raid_id").map((raid) => incomingRaid(app, game, raid, team)),
    h("section", { class: "base-head" },
      h("div", { class: "hint" }, t("leader.base")),
      h("h1", {}, teamBadge(view, home, { testid: "base-team" })),
      h("div", { class: "base-score" }, t("leader.score"), " ", h("b", { testid: "base-score" }, view.scores?.[home] ?? 0)),
      h("div", { class: "hint" }, view.me.name, " · ", t("role.leader"))),
    lobby && setupSection(game, team, view.setup || []),
    teamSection(app, game, team),
    h("section", { class: "base-parts" },
      h("h2", {}, t("leader.tree")),
      h("div", { testid: "base-tree" }, partsList(view, view.trees?.[home], home, t("leader.tree_empty"))),
      h("h2", { class: "spaced" }, t("leader.stash")),
      h("div", { testid: "base-stash" }, partsList(view, view.stash, home, t("leader.stash_empty"))),
      h("p", { class: "hint" }, t("leader.stash_hint"))),
    scoresStrip(view));
}

// A raid on this base: tap the defenders in their fighting order, then send.
function incomingRaid(app, game, raid, team) {
  const view = game.view;
  const ui = app.ui;
  if (raid.state === "won") {
    return h("div", { class: "banner info", testid: `incoming-raid-${raid.raid_id}`, "data-state": raid.state },
      h("strong", {}, t("raid.incoming_won_title")), h("span", {}, t("raid.incoming_won", { name: raid.attacker.name })));
  }
  ui.defend ??= {};
  const order = (ui.defend[raid.raid_id] ||= []);
  const sent = sending(game, "defend", { raid_id: raid.raid_id });
  const offered = allowed(view, `defend:${raid.raid_id}`);
  const toggle = (pid) => {
    const at = order.indexOf(pid);
    if (at >= 0) order.splice(at, 1);
    else order.push(pid);
    app.render();
  };
  const nameOf = (pid) => view.team[pid]?.name ?? pid;
  return h("section", { class: "raid-alert", testid: `incoming-raid-${raid.raid_id}`, "data-state": raid.state },
    h("h2", {}, t("raid.incoming_title")),
    h("p", { class: "big-q" }, t("raid.incoming_leader", { name: raid.attacker.name })),
    h("p", { class: "hint" }, t("defend.hint")),
    h("div", { class: "defender-grid" }, team.map((p) => {
      const at = order.indexOf(p.player_id);
      const ready = p.has_paper;
      return h("button", {
        class: at >= 0 ? "defender picked" : "defender", testid: `defender-${p.player_id}`,
        disabled: sent || (!ready && at < 0), "aria-pressed": String(at >= 0),
        onclick: () => toggle(p.player_id),
      },
      h("span", { class: "order-num" }, at >= 0 ? at + 1 : ""),
      h("span", { class: "defender-name" }, p.name),
      !ready && h("span", { class: "muted" }, t("status.paper_no")));
    })),
    h("div", { class: "defend-order", testid: "defend-order" },
      order.length ? order.map((pid, i) => `${i + 1}. ${nameOf(pid)}`).join(" → ") : t("defend.nobody_yet")),
    h("div", { class: "actions" },
      h("button", {
        class: order.length ? "primary" : "danger", testid: "defend-submit", disabled: sent || !offered,
        "data-count": order.length,
        onclick: () => {
          // The order stays on screen: a refusal (a defender just went busy) can be corrected.
          game.send({ type: "defend", raid_id: raid.raid_id, order: [...order] });
        },
      }, sent ? t("defend.sending") : order.length ? t("defend.submit", { count: order.length }) : t("defend.nobody")),
      order.length > 0 && !sent && h("button", {
        class: "secondary", testid: "defend-clear", onclick: () => { order.length = 0; app.render(); },
      }, t("defend.clear"))));
}

// Before the start the leader may hand out the ranks in secret.
function setupSection(game, team, problems) {
  return h("section", { class: "team-setup", testid: "team-setup" },
    h("h2", {}, t("leader.setup")),
    h("p", { class: "hint" }, t("leader.setup_hint")),
    team.map((p) => h("div", { class: "setup-row" }, h("span", { class: "pname" }, p.name), rankSelect(game, p))),
    problems.length
      ? h("ul", { class: "problems", testid: "setup-problems" }, problems.map((problem) => h("li", {}, t(...problemWords(problem)))))
      : h("div", { class: "chip ok", testid: "setup-ready" }, t("setup.ready")));
}

function teamSection(app, game, team) {
  const view = game.view;
  const ui = app.ui;
  const running = view.game.status === "running";
  const lobby = view.game.status === "lobby";
  const showRanks = Boolean(ui.showRanks);
  return h("section", { class: "team", testid: "team" },
    h("div", { class: "section-head" },
      h("h2", {}, t("leader.team", { count: team.length })),
      h("button", {
        class: "secondary", testid: "show-team-ranks", "aria-pressed": String(showRanks),
        onclick: () => {
          clearTimeout(ui.ranksTimer);
          ui.showRanks = !showRanks;
          if (ui.showRanks) ui.ranksTimer = setTimeout(() => app.set({ showRanks: false }), SHOW_RANKS_MS);
          app.render();
        },
      }, showRanks ? t("leader.hide_ranks") : t("leader.show_ranks"))),
    team.map((p) => {
      const carrying = Boolean(view.deliveries?.[p.player_id]);
      const delivering = sending(game, "deliver", { player_id: p.player_id });
      const issuing = sending(game, "issue_paper", { player_id: p.player_id });
      return h("div", { class: `trow ${ui.deliverFor === p.player_id ? "selected" : ""}`, testid: `team-row-${p.player_id}` },
        h("div", { class: "trow-head" },
          h("span", { class: "pname" }, p.name),
          showRanks && h("span", { class: "chip rank-chip", testid: `team-rank-${p.player_id}` },
            p.rank == null ? t("rank.none") : `${p.rank} · ${rankName(view, p.rank)}`)),
        !lobby && h("div", { class: "chips" },
          p.out
            ? h("span", { class: "chip dead", testid: `team-out-${p.player_id}` }, t("status.out"))
            : h("span", { class: p.has_paper ? "chip ok" : "chip bad", testid: `team-paper-${p.player_id}` },
              p.has_paper ? t("status.paper_yes") : t("status.paper_no")),
          h("span", { class: "chip", testid: `team-lives-${p.player_id}` }, t("status.lives", { count: p.lives ?? 0 })),
          h("span", { class: carrying ? "chip carry" : "chip", testid: `team-carrying-${p.player_id}` },
            t("carry.chip", { what: carryingText(view, p.carrying) }))),
        running && h("div", { class: "actions" },
          (carrying || delivering) && h("button", {
            class: "primary", testid: `deliver-${p.player_id}`,
            disabled: delivering || !allowed(view, `deliver:${p.player_id}`),
            title: refusal(view, `deliver:${p.player_id}`) ?? "",
            onclick: () => app.set({ deliverFor: ui.deliverFor === p.player_id ? null : p.player_id }),
          }, delivering ? t("deliver.sending") : t("deliver.open")),
          !p.has_paper && h("button", {
            class: "secondary", testid: `issue-paper-${p.player_id}`,
            disabled: !allowed(view, `issue_paper:${p.player_id}`) || issuing,
            title: refusal(view, `issue_paper:${p.player_id}`) ?? "",
            onclick: () => game.send({ type: "issue_paper", player_id: p.player_id }),
          }, issuing ? t("paper.issuing") : p.lives > 0
            ? t("paper.issue", { count: p.lives, after: p.lives - 1 })
            : t("paper.no_lives"))),
        running && ui.deliverFor === p.player_id && deliverPanel(app, game, p));
    }));
}

// The delivery of one player: what they carry, what it scores (the server's own reckoning of
// this delivery, `deliveries` in the view), one confirm.
function deliverPanel(app, game, player) {
  const view = game.view;
  const home = view.me.team_id;
  const preview = view.deliveries?.[player.player_id] || { papers: 0, paper_points: 0, parts: [], points: 0 };
  const why = refusal(view, `deliver:${player.player_id}`);
  return h("section", { class: "deliver-panel", testid: "deliver-panel" },
    h("h2", {}, t("deliver.title", { name: player.name })),
    why && h("p", { testid: "deliver-refused" }, why),
    preview.papers > 0 && h("div", { class: "deliver-line", testid: "deliver-papers" },
      h("span", {}, t("deliver.papers", { count: preview.papers })),
      h("b", {}, t("deliver.points", { count: preview.paper_points }))),
    preview.parts.map((part) => h("div", { class: "deliver-line", testid: `deliver-part-${part.part_id}` },
      h("span", {}, partChip(view, part, { home }), " ", t(`deliver.to_${part.to}`)),
      h("b", {}, part.team_id === home ? t("deliver.home_part") : t("deliver.points", { count: part.points })))),
    h("div", { class: "deliver-total" }, t("deliver.total"), " ", h("b", { testid: "deliver-total" }, preview.points)),
    h("div", { class: "actions" },
      h("button", {
        class: "primary", testid: "deliver-confirm", disabled: !allowed(view, `deliver:${player.player_id}`),
        onclick: () => {
          game.send({ type: "deliver", player_id: player.player_id });
          app.set({ deliverFor: null });
        },
      }, t("deliver.confirm", { count: preview.points })),
      h("button", { class: "secondary", testid: "deliver-cancel", onclick: () => app.set({ deliverFor: null }) }, t("cancel"))),
    h("p", { class: "hint" }, t("deliver.hint", { team: teamName(view, home) })));
}

// The base's own outcome at the end: its place and points, and what its leader keeps.
function baseOutcome(view) {
  const home = view.me.team_id;
  const mine = view.scores?.[home] ?? 0;
  const place = 1 + Object.values(view.scores || {}).filter((score) => score > mine).length;
  return t("end.team", { team: teamName(view, home), place, count: mine });
}

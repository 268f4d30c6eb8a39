// Pieces the rank-bases screens share: team badges, book parts, the scores strip, the rank
// picker, banners, and "already seen" marks for results.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { rows } from "../../keyed.js";
import { markRevealSeen, seenReveal } from "../../session.js";
import { RANKS, rankName, teamColor, teamName, teams } from "./ranks.js";


export function teamBadge(view, teamId, attrs = {}) {
  return h("span", { class: "team-badge", style: `--team: ${teamColor(view, teamId)}`, ...attrs },
    h("span", { class: "team-dot", "aria-hidden": "true" }), teamName(view, teamId));
}

// A book part: its value, and its owner when it is not the team it hangs at.
export function partChip(view, part, { home = null, attrs = {} } = {}) {
  return h("span", { class: "part-chip", style: `--team: ${teamColor(view, part.team_id)}`, ...attrs },
    h("b", {}, part.value),
    part.team_id !== home && h("span", { class: "part-owner" }, teamName(view, part.team_id)));
}

// `parts`: keyed by part_id (a tree, a stash) or an array (what a player carries).
export function partsList(view, parts, home, empty) {
  const list = rows(parts, "part_id");
  if (!list.length) return h("span", { class: "muted" }, empty);
  return h("span", { class: "parts" }, list.map((part) => partChip(view, part, { home })));
}

// What a player carries, in words: "2 papíry, díl 3 (Modří)".
export function carryingText(view, carrying) {
  const bits = [];
  if (carrying?.papers) bits.push(t("carry.papers", { count: carrying.papers }));
  for (const part of carrying?.parts || []) bits.push(t("carry.part", { value: part.value, team: teamName(view, part.team_id) }));
  return bits.length ? bits.join(", ") : t("carry.nothing");
}

// Every team's score on one line (a phone's glance at the scoreboard).
export function scoresStrip(view) {
  const list = teams(view);
  if (!list.length) return null;
  return h("section", { class: "scores-strip", testid: "scores-strip" },
    h("h2", {}, t("board.scores")),
    h("div", { class: "strip" }, list.map((team) => h("span", { class: "strip-team", style: `--team: ${teamColor(view, team.team_id)}` },
      h("span", { class: "team-dot", "aria-hidden": "true" }), team.name, " ",
      h("b", { testid: `strip-score-${team.team_id}` }, view.scores?.[team.team_id] ?? 0)))));
}

export function statusBanners(view) {
  const status = view.game.status;
  const winners = view.winners || [];
  return [
    status === "lobby" && h("div", { class: "banner info", testid: "lobby-banner" }, t("game.lobby")),
    status === "ended" && h("div", { class: "banner info", testid: "ended-banner" },
      t("game.ended"),
      winners.length > 0 && h("strong", { testid: "winners" },
        t("board.winners", { count: winners.length, names: winners.map((id) => teamName(view, id)).join(", ") }))),
  ];
}

// The rank picker of assign_rank; a pick waiting in the outbox already shows as picked.
export function rankSelect(game, player, { testid = `assign-rank-${player.player_id}`, label = null } = {}) {
  const view = game.view;
  const pending = [...game.inFlight()].reverse().find((c) => c.type === "assign_rank" && c.player_id === player.player_id);
  const value = pending?.rank ?? player.rank ?? null; // a rank not given is null, or missing once patched
  return h("select", {
    class: "rank-select", testid, "aria-label": label ?? t("rank.assign_for", { name: player.name }),
    onchange: (event) => {
      const rank = Number.parseInt(event.target.value, 10);
      if (RANKS.includes(rank)) game.send({ type: "assign_rank", player_id: player.player_id, rank });
    },
  },
  h("option", { value: "", disabled: true, selected: value == null }, t("rank.none")),
  RANKS.map((rank) => h("option", { value: String(rank), selected: value === rank }, `${rank} · ${rankName(view, rank)}`)));
}

// "Seen" marks for result screens, per game (ids repeat across games).
export function seen(game, kind, id) {
  return seenReveal(`${game.gameId}:${kind}:${id}`);
}

export function markSeen(game, kind, id) {
  markRevealSeen(`${game.gameId}:${kind}:${id}`);
}

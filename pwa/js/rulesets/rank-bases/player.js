// A rank-bases player's phone: the code, the rank behind a tap, duels by code and the target's
// reveal, the duel's result, raids (enter a base, wait for its defenders, take a part), and what
// the player carries, their paper and lives.
import { buzz } from "../../alerts.js";
import { h, svgNode } from "../../dom.js";
import { t } from "../../i18n.js";
import { qrSvg } from "../../qr.js";
import { allowed, livesTellRank, rankName, refusal, teamColor, teamName, teams } from "./ranks.js";
import { rows } from "../../keyed.js";
import { codeForm, gameOver, playersList, sendCode, sending } from "../../views/common.js";
import { scanner, stopScan } from "../../views/scanner.js";
import { carryingText, markSeen, partChip, scoresStrip, seen, statusBanners, teamBadge } from "./common.js";

const TAP_MS = 700;        // a press shorter than this is a tap: the rank stays a few seconds
const SHOW_AFTER_TAP_MS = 3000;

// The rank is on screen only while held, or for a few seconds after a tap.
const rankPeek = { shown: false, downAt: null, timer: null, render: null };

function showRank(render) {
  clearTimeout(rankPeek.timer);
  rankPeek.shown = true;
  rankPeek.render = render;
  render();
}

function hideRank() {
  clearTimeout(rankPeek.timer);
  rankPeek.downAt = null;
  if (!rankPeek.shown) return;
  rankPeek.shown = false;
  rankPeek.render?.();
}

function hideRankLater() {
  clearTimeout(rankPeek.timer);
  rankPeek.timer = setTimeout(hideRank, SHOW_AFTER_TAP_MS);
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") hideRank();
});

// Buzz once for each new duel aimed at this phone.
const buzzed = new Set();

export function rankPlayerScreen(app, game) {
  const view = game.view;
  const ui = app.ui;
  trackRaidBaseline(game);
  const duel = view.duel;
  const raid = raidOnScreen(app, game);
  const last = view.last_duel;
  const result = last && !raidDuel(view) && (ui.resultOpen === last.duel_id || !seen(game, "duel", last.duel_id));
  if (duel || raid || result) ui.scanning = false;
  if (!ui.scanning) stopScan();
  if (duel || raid || result) {
    clearTimeout(rankPeek.timer);
    rankPeek.shown = false;
  }
  if (duel) {
    if (!duel.revealed_by_me && !buzzed.has(duel.duel_id)) {
      buzzed.add(duel.duel_id);
      buzz();
    }
    return duel.revealed_by_me ? waitingScreen(view) : incomingScreen(game);
  }
  if (raid) return raidScreen(app, game);
  if (result) return resultScreen(app, game);
  if (ui.scanning) return scanner(app, (code) => submitDuel(app, game, code));
  return mainScreen(app, game);
}

// The last duel was a fight of the raid this player made: the raid screen shows it.
function raidDuel(view) {
  const last = view.last_duel;
  return Boolean(last?.raid_id && view.raid?.raid_id === last.raid_id);
}

function mainScreen(app, game) {
  const view = game.view;
  const { me } = view;
  const ui = app.ui;
  const running = view.game.status === "running";
  const out = view.game.status !== "lobby" && me.rank != null && me.out;
  const incoming = rows(view.incoming_raids, "raid_id").filter((r) => r.state === "awaiting_defenders");
  const wonRaid = view.raid?.state === "won" ? view.raid : null;
  return h("main", { class: "rank-player", testid: "rank-player" },
    statusBanners(view),
    view.game.status === "ended" && gameOver(game, { mine: myOutcome(view), result: gameResult(view) }),
    out && h("div", { class: "banner dead", testid: "out-banner" }, h("strong", {}, t("out.title")), h("span", {}, t("out.hint"))),
    !out && running && !me.has_paper && h("div", { class: "banner wound", testid: "no-paper-banner" },
      h("strong", {}, t("paper.none_title")), h("span", {}, t("paper.none_hint"))),
    incoming.map((r) => h("div", { class: "banner raid", testid: `incoming-raid-${r.raid_id}` },
      h("strong", {}, t("raid.incoming_title")), h("span", {}, t("raid.incoming_player", { name: r.attacker.name })))),
    wonRaid && h("button", {
      class: "primary wide", testid: "raid-open",
      onclick: () => { app.ui.raidLeft = null; app.render(); },
    }, t("raid.back_to_tree", { team: teamName(view, wonRaid.team_id) })),
    h("section", { class: "me" },
      h("h1", { class: "me-name", testid: "my-name" }, me.name),
      teamBadge(view, me.team_id, { testid: "my-team" }),
      h("div", { class: "code", testid: "my-code" }, me.code),
      h("div", { class: "hint" }, t("rank.code_hint")),
      h("button", { class: "secondary", testid: "show-qr", onclick: () => app.set({ showQr: !ui.showQr }) },
        ui.showQr ? t("me.hide_qr") : t("me.show_qr")),
      ui.showQr && h("div", { class: "my-qr", testid: "my-qr" }, svgNode(qrSvg(me.code)))),
    rankCard(app, view),
    view.game.status !== "lobby" && statusSection(view),
    running && duelForm(app, game),
    running && raidSection(app, game),
    view.last_duel && h("button", {
      class: "secondary", testid: "show-last-duel",
      onclick: () => app.set({ resultOpen: view.last_duel.duel_id }),
    }, t("reveal.show_last")),
    scoresStrip(view),
    playersList(app, game, { extra: (m) => h("span", { class: "muted" }, ` · ${teamName(view, m.team_id)}`) }));
}

// The rank card: a big button; the rank is drawn only while it is shown.
function rankCard(app, view) {
  const { me } = view;
  const render = () => app.render();
  const livesHere = livesTellRank(view);
  return h("section", { class: "rank-card" },
    h("button", {
      class: rankPeek.shown ? "rank-reveal shown" : "rank-reveal", testid: "rank-reveal",
      "aria-pressed": String(rankPeek.shown),
      onpointerdown: (event) => {
        if (event.button > 0) return;
        rankPeek.downAt = performance.now();
        showRank(render);
      },
      onpointerup: () => {
        if (rankPeek.downAt === null) return;
        const held = performance.now() - rankPeek.downAt;
        rankPeek.downAt = null;
        if (held < TAP_MS) hideRankLater();
        else hideRank();
      },
      onpointercancel: () => hideRank(),
      onpointerleave: () => {
        if (rankPeek.downAt !== null && performance.now() - rankPeek.downAt >= TAP_MS) hideRank();
      },
      oncontextmenu: (event) => event.preventDefault(),
      onclick: (event) => {
        // Enter or Space (no pointer): show for a few seconds.
        if (event.detail === 0) {
          showRank(render);
          hideRankLater();
        }
      },
    },
    rankPeek.shown
      ? h("span", { class: "rank-shown", testid: "my-rank", "data-rank": me.rank ?? "" },
        me.rank == null
          ? h("span", { class: "rank-name" }, t("rank.unassigned"))
          : [h("span", { class: "rank-num" }, me.rank), h("span", { class: "rank-name" }, rankName(view, me.rank))],
        livesHere && h("span", { class: "rank-lives" }, t("status.lives", { count: me.lives ?? 0 })))
      : h("span", { class: "rank-hidden" },
        eyeIcon(),
        h("span", {}, t("rank.reveal")),
        h("span", { class: "hint" }, t("rank.reveal_hint")))));
}

// A closed eye (drawn, so it needs no emoji font).
function eyeIcon() {
  return h("svg", { class: "rank-eye", viewBox: "0 0 24 24", "aria-hidden": "true" },
    h("path", { d: "M2 12c3-5 17-5 20 0c-3 5-17 5-20 0z", fill: "none", stroke: "currentColor", "stroke-width": 2 }),
    h("circle", { cx: 12, cy: 12, r: 3, fill: "currentColor" }),
    h("line", { x1: 4, y1: 20, x2: 20, y2: 4, stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round" }));
}

function statusSection(view) {
  const { me } = view;
  const parts = me.carrying?.parts || [];
  return h("section", { class: "my-status", testid: "my-status" },
    h("div", { class: "status-row" },
      h("span", { class: "status-label" }, t("status.paper")),
      h("span", { class: me.has_paper ? "chip ok" : "chip bad", testid: "my-paper", "data-has-paper": String(Boolean(me.has_paper)) },
        me.has_paper ? t("status.paper_yes") : t("status.paper_no"))),
    !livesTellRank(view) && h("div", { class: "status-row" },
      h("span", { class: "status-label" }, t("status.lives_label")),
      h("span", { class: "lives", testid: "my-lives" }, "♥".repeat(Math.min(me.lives ?? 0, 10)) || "0", " ",
        h("span", { class: "muted" }, `(${me.lives ?? 0})`))),
    h("div", { class: "status-row" },
      h("span", { class: "status-label" }, t("status.carrying")),
      h("span", { class: "carrying", testid: "my-carrying", "data-papers": me.carrying?.papers ?? 0, "data-parts": parts.length },
        carryingText(view, me.carrying))),
    parts.length > 0 && h("div", { class: "parts" }, parts.map((part) => partChip(view, part))),
    (me.carrying?.papers > 0 || parts.length > 0) && h("div", { class: "hint" }, t("status.carry_hint")));
}

// The code form. Players do not know each other's codes: the server names the opponent once the
// duel is open. Offered or greyed (with the reason) by the view's `may`.
function duelForm(app, game) {
  const view = game.view;
  const waiting = sending(game, "duel");
  const why = refusal(view, "duel");
  if (why && !waiting) {
    return h("section", { class: "challenge", testid: "duel-form" },
      h("div", { class: "chip bad", testid: "duel-refused", "data-code": view.may.duel.code }, why));
  }
  return codeForm(app, game, {
    name: "duel", field: "duelCode", label: t("duel.code_label"), submit: t("duel.submit"), hint: "",
    busy: waiting, pending: waiting, onCode: (code) => submitDuel(app, game, code),
  });
}

function submitDuel(app, game, raw) {
  return sendCode(app, game, raw, "duelCode", (code) => ({ type: "duel", target: code }));
}

function raidSection(app, game) {
  const view = game.view;
  const ui = app.ui;
  const foreign = teams(view).filter((team) => `raid:${team.team_id}` in (view.may || {}));
  if (!foreign.length) return null;
  const pending = sending(game, "raid");
  const armed = foreign.find((team) => team.team_id === ui.raidArmed);
  return h("section", { class: "raid-start", testid: "raid-section" },
    h("h2", {}, t("raid.title")),
    armed
      ? h("div", { class: "raid-confirm-box" },
        h("p", { class: "big-q" }, t("raid.confirm_q", { team: armed.name })),
        h("button", {
          class: "primary wide", testid: "raid-confirm", disabled: pending,
          onclick: () => {
            rememberRaidStart(game);
            ui.raidArmed = null;
            ui.raidLeft = null;
            game.send({ type: "raid", team_id: armed.team_id });
            app.render();
          },
        }, t("raid.confirm", { team: armed.name })),
        h("button", { class: "secondary wide", testid: "raid-cancel", onclick: () => app.set({ raidArmed: null }) }, t("back")))
      : [h("p", { class: "hint" }, t("raid.hint")),
        h("div", { class: "raid-teams" }, foreign.map((team) => h("button", {
          class: "raid-team", testid: `raid-team-${team.team_id}`, style: `--team: ${teamColor(view, team.team_id)}`,
          disabled: pending || !allowed(view, `raid:${team.team_id}`), onclick: () => app.set({ raidArmed: team.team_id }),
        }, h("span", { class: "team-dot", "aria-hidden": "true" }), team.name))),
        !pending && refusal(view, `raid:${foreign[0].team_id}`) && h("div", { class: "hint", testid: "raid-refused" },
          refusal(view, `raid:${foreign[0].team_id}`))],
    pending && h("div", { class: "chip wait", testid: "raid-pending" }, t("raid.sending")));
}

// The target of a duel: reveal, big.
function incomingScreen(game) {
  const { duel } = game.view;
  const revealing = sending(game, "reveal", { duel_id: duel.duel_id });
  return h("main", { class: "duel rank-duel", testid: "duel-incoming" },
    h("h1", { class: "duel-title" }, t("duel.title")),
    h("p", { class: "duel-opponent" }, t("rduel.incoming"), " ", h("strong", { testid: "duel-opponent" }, duel.opponent.name)),
    h("p", { class: "pick-hint" }, t("rduel.reveal_hint")),
    h("button", {
      class: "primary huge-button", testid: "reveal-duel",
      disabled: revealing || !allowed(game.view, `reveal:${duel.duel_id}`),
      onclick: () => game.send({ type: "reveal", duel_id: duel.duel_id }),
    }, revealing ? t("duel.revealing") : t("rduel.reveal")));
}

// The challenger: the duel is open, the target has to reveal.
function waitingScreen(view) {
  const { duel } = view;
  return h("main", { class: "duel rank-duel", testid: "duel-waiting" },
    h("h1", { class: "duel-title" }, t("duel.title")),
    h("p", { class: "duel-opponent" }, t("duel.against"), " ", h("strong", { testid: "duel-opponent" }, duel.opponent.name)),
    h("div", { class: "chip wait big-chip" }, t("rduel.waiting", { name: duel.opponent.name })),
    h("p", { class: "hint" }, t("rduel.waiting_hint")));
}

// Both ranks, who won, and what moved.
function fightView(view, duel, { testid = null } = {}) {
  const { me } = view;
  const opponentId = duel.opponent.player_id;
  const mine = duel.ranks?.[me.player_id];
  const theirs = duel.ranks?.[opponentId];
  const outcome = duel.winner == null ? "swap" : duel.winner === me.player_id ? "won" : "lost";
  const side = (who, rank, won) => h("div", { class: won ? "side won" : "side" },
    h("div", { class: "who" }, who),
    h("div", { class: "rank-num" }, rank ?? "?"),
    h("div", { class: "rank-name" }, rank ? rankName(view, rank) : ""));
  // Why it went so: the server says (`why`); the winner's rank took the other's.
  let why = "";
  if (duel.winner != null && mine && theirs && duel.why !== "equal") {
    const [hi, lo] = duel.winner === me.player_id ? [mine, theirs] : [theirs, mine];
    why = t(duel.why === "one_takes_five" ? "rduel.why_one" : "rduel.why_higher", { a: `${hi} ${rankName(view, hi)}`, b: `${lo} ${rankName(view, lo)}` });
  }
  return h("section", { class: "round", testid },
    h("div", { class: "versus" },
      side(t("reveal.you"), mine, outcome === "won"),
      h("div", { class: "vs" }, "×"),
      side(duel.opponent.name, theirs, outcome === "lost")),
    h("div", { class: `verdict ${outcome === "won" ? "good" : outcome === "lost" ? "bad" : ""}`, testid: "duel-verdict", "data-outcome": outcome },
      t(`rduel.${outcome}`)),
    why && h("div", { class: "why" }, why),
    h("div", { class: "why" }, t(`rduel.${outcome}_hint`)));
}

function resultScreen(app, game) {
  const view = game.view;
  const duel = view.last_duel;
  const close = () => {
    markSeen(game, "duel", duel.duel_id);
    app.set({ resultOpen: null });
  };
  return h("main", { class: "reveal", testid: "duel-result" },
    h("h1", {}, duel.raid_id ? t("rduel.title_raid") : t("rduel.title")),
    h("div", { class: "duel-opponent" }, t("duel.against"), " ", h("strong", {}, duel.opponent.name)),
    fightView(view, duel),
    h("button", { class: "primary wide", testid: "duel-result-ok", onclick: close }, t("reveal.ok")));
}

// ---- Raids -------------------------------------------------------------------------------

// The papers carried when a raid started, to count its fights afterwards (the view tells only
// the last fight). Kept per game on this device.
function baselines(game) {
  try {
    return JSON.parse(localStorage.getItem(`bijse.raidbase.${game.gameId}`)) || {};
  } catch {
    return {};
  }
}

function saveBaselines(game, map) {
  const keys = Object.keys(map).filter((k) => k !== "next").slice(-20);
  const kept = Object.fromEntries(keys.map((k) => [k, map[k]]));
  if (map.next) kept.next = map.next;
  localStorage.setItem(`bijse.raidbase.${game.gameId}`, JSON.stringify(kept));
}

function rememberRaidStart(game) {
  const map = baselines(game);
  map.next = { papers: game.view.me.carrying?.papers ?? 0, after: game.view.raid?.raid_id ?? null };
  saveBaselines(game, map);
}

function trackRaidBaseline(game) {
  const raid = game.view.raid;
  if (!raid) return;
  const map = baselines(game);
  if (map[raid.raid_id] !== undefined) return;
  if (raid.state === "awaiting_defenders") map[raid.raid_id] = game.view.me.carrying?.papers ?? 0;
  else if (map.next && map.next.after !== raid.raid_id) map[raid.raid_id] = map.next.papers;
  else return;
  delete map.next;
  saveBaselines(game, map);
}

// The raid screen is up while waiting, while a won raid may take a part (unless the player
// walked away), and until a lost raid or a taken part has been seen.
function raidOnScreen(app, game) {
  const raid = game.view.raid;
  if (!raid) return null;
  if (raid.state === "awaiting_defenders") return raid;
  if (raid.state === "won") return app.ui.raidLeft === raid.raid_id ? null : raid;
  if (raid.state === "lost" || (raid.state === "done" && raid.part)) return seen(game, "raid", raid.raid_id) ? null : raid;
  return null;
}

// The raid's fights: all won but (when lost) the last; the last one with both ranks.
function raidFights(game, raid) {
  const view = game.view;
  const last = view.last_duel?.raid_id === raid.raid_id ? view.last_duel : null;
  if (raid.state === "awaiting_defenders") return null;
  if (!last) return h("p", { class: "why", testid: "raid-fights", "data-fights": "0" }, t("raid.nobody_defended"));
  const base = baselines(game)[raid.raid_id];
  const gained = base === undefined ? null : (view.me.carrying?.papers ?? 0) - base;
  const lastWon = last.winner === view.me.player_id;
  let earlier = null; // fights won before the last one
  if (gained !== null && gained >= 0) earlier = Math.max(0, gained - (last.winner == null ? 1 : lastWon ? 1 : 0));
  const count = earlier === null ? null : earlier + 1;
  return h("section", { class: "raid-fights", testid: "raid-fights", "data-fights": count ?? "" },
    h("h2", {}, count === null ? t("raid.fights_last") : t("raid.fights", { count })),
    earlier !== null && Array.from({ length: earlier }, (_, i) => h("div", { class: "fight-line", testid: `raid-fight-${i + 1}` },
      t("raid.fight_won", { n: i + 1 }))),
    h("div", { class: "fight-line", testid: count === null ? "raid-fight-last" : `raid-fight-${count}` },
      count === null ? t("raid.fight_last", { name: last.opponent.name }) : t("raid.fight_n", { n: count, name: last.opponent.name })),
    fightView(view, last));
}

function raidScreen(app, game) {
  const view = game.view;
  const raid = raidOnScreen(app, game);
  const team = teamName(view, raid.team_id);
  const ok = () => {
    markSeen(game, "raid", raid.raid_id);
    if (view.last_duel?.raid_id === raid.raid_id) markSeen(game, "duel", view.last_duel.duel_id);
    app.render();
  };
  const head = (title, cls = "") => [
    h("div", { class: "raid-where" }, t("raid.in_base"), " ", teamBadge(view, raid.team_id)),
    h("h1", { class: `raid-title ${cls}` }, title),
  ];
  if (raid.state === "awaiting_defenders") {
    return h("main", { class: "raid-screen", testid: "raid-state", "data-state": raid.state },
      head(t("raid.waiting_title")),
      h("div", { class: "chip wait big-chip" }, t("raid.waiting")),
      h("p", { class: "pick-hint" }, t("raid.waiting_hint", { team })));
  }
  if (raid.state === "won") {
    const tree = rows(view.trees?.[raid.team_id], "part_id");
    const taking = game.inFlight().find((c) => c.type === "take_part" && c.raid_id === raid.raid_id);
    return h("main", { class: "raid-screen", testid: "raid-state", "data-state": raid.state },
      head(t("raid.won_title"), "good"),
      h("section", { class: "take" },
        h("h2", {}, tree.length ? t("raid.take_title", { team }) : t("raid.tree_empty")),
        h("div", { class: "take-grid" }, tree.map((part) => h("button", {
          class: "take-part", testid: `take-part-${part.part_id}`, style: `--team: ${teamColor(view, part.team_id)}`,
          disabled: Boolean(taking) || !allowed(view, `take_part:${part.part_id}`), "aria-pressed": String(taking?.part_id === part.part_id),
          onclick: () => game.send({ type: "take_part", raid_id: raid.raid_id, part_id: part.part_id }),
        },
        h("span", { class: "take-value" }, part.value),
        h("span", { class: "take-label" }, t("part.points", { count: 2 * part.value })),
        part.team_id !== raid.team_id && h("span", { class: "take-owner" }, teamName(view, part.team_id)))))),
      raidFights(game, raid),
      h("button", {
        class: "secondary wide", testid: "raid-leave",
        onclick: () => {
          if (view.last_duel?.raid_id === raid.raid_id) markSeen(game, "duel", view.last_duel.duel_id);
          app.set({ raidLeft: raid.raid_id });
        },
      }, t("raid.leave")));
  }
  if (raid.state === "lost") {
    return h("main", { class: "raid-screen", testid: "raid-state", "data-state": raid.state },
      head(t("raid.lost_title"), "bad"),
      raidFights(game, raid),
      !view.me.has_paper && h("p", { class: "pick-hint" }, t("paper.none_hint")),
      h("button", { class: "primary wide", testid: "raid-ok", onclick: ok }, t("reveal.ok")));
  }
  return h("main", { class: "raid-screen", testid: "raid-state", "data-state": raid.state },
    head(t("raid.done_title"), "good"),
    h("div", { class: "taken" }, partChip(view, raid.part, { attrs: { testid: "raid-part" } })),
    h("p", { class: "pick-hint" }, t("raid.done_hint", { value: raid.part.value })),
    h("button", { class: "primary wide", testid: "raid-ok", onclick: ok }, t("reveal.ok")));
}

// ---- The end ------------------------------------------------------------------------------

// The player's own outcome: their team's place and points, their rank, what they still carried.
export function myOutcome(view) {
  const { me } = view;
  const place = teamPlace(view, me.team_id);
  return [
    t("end.team", { team: teamName(view, me.team_id), place, count: view.scores?.[me.team_id] ?? 0 }),
    me.rank != null ? ` ${t("end.rank", { rank: `${me.rank} · ${rankName(view, me.rank)}` })}` : "",
    me.carrying && (me.carrying.papers || me.carrying.parts?.length)
      ? ` ${t("end.carried", { what: carryingText(view, me.carrying) })}` : "",
  ].join("");
}

// 1 for the best score; teams with equal scores share a place.
function teamPlace(view, teamId) {
  const mine = view.scores?.[teamId] ?? 0;
  return 1 + Object.values(view.scores || {}).filter((score) => score > mine).length;
}

// The game's result: the winners, and every team's final score, best first.
export function gameResult(view) {
  const winners = view.winners || [];
  const ranked = teams(view).map((team) => [team, view.scores?.[team.team_id] ?? 0]).sort((a, b) => b[1] - a[1]);
  return [
    winners.length > 0 && h("p", { testid: "game-over-winners" },
      t("board.winners", { count: winners.length, names: winners.map((id) => teamName(view, id)).join(", ") })),
    h("ol", { class: "final-scores" }, ranked.map(([team, score]) => h("li", { testid: `final-score-${team.team_id}` },
      team.name, " ", h("b", {}, score)))),
  ];
}

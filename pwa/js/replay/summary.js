// A replayed view in words: what one viewer's screen held right after one event. The live
// screens depend on the phone's clock and on sending commands, so the replay draws its own
// summary: players with their state at that moment, duels with both revealed cards, scores,
// trees, raids; for other rulesets the combatants, and the whole view as JSON on request.
// Views carry no roster: other players' names come from the log's members (the index).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { cardView } from "../views/common.js";
import { carryingText, partsList, scoresStrip, teamBadge } from "../rulesets/rank-bases/common.js";
import { count, rows } from "../keyed.js";
import { rankName, teamColor, teams } from "../rulesets/rank-bases/ranks.js";
import { clock } from "./describe.js";

// A time ("until") in force at the replayed moment: "do 15:19:06 (ještě 2:00)".
function until(iso, at) {
  const end = Date.parse(iso);
  if (!Number.isFinite(end) || end <= at) return null;
  const left = Math.ceil((end - at) / 1000);
  return t("replay.until", { time: clock(end), left: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` });
}

// `members`: {player_id: {name, role, team, code}} of the log.
export function viewSummary(view, at, ui, members = {}) {
  if (!view) return null;
  const ruleset = view.game?.ruleset;
  const parts = ruleset === "card-duel" ? cardDuel(view, at, members || {})
    : ruleset === "rank-bases" ? rankBases(view, members || {})
    : ruleset === "dice-combat" ? diceCombat(view)
    : ruleset === "stamina-deck" ? staminaDeck(view)
    : [];
  return [
    h("div", { class: "replay-status" },
      h("span", { class: `chip status-${view.game?.status}` }, t("replay.status", { status: t(`status.${view.game?.status}`) }))),
    parts,
    h("details", {
      class: "replay-json", open: Boolean(ui.jsonOpen),
      ontoggle: (e) => { ui.jsonOpen = e.target.open; },
    },
    h("summary", {}, t("replay.json")),
    ui.jsonOpen && h("pre", {}, JSON.stringify(view, null, 1))),
  ];
}

// ---- card-duel ----

function stateChips(p, at) {
  const stun = until(p.stunned_until, at);
  const immune = until(p.immune_until, at);
  return h("span", { class: "chips" },
    p.alive === false && h("span", { class: "chip dead" }, t("state.dead")),
    p.wounded && h("span", { class: "chip wound" }, t("state.wounded")),
    stun && h("span", { class: "chip stun" }, t("state.stunned"), " ", stun),
    immune && h("span", { class: "chip immune" }, t("state.immune"), " ", immune),
    (p.items || []).includes("crossbow") && h("span", { class: "chip" }, t("item.crossbow")),
    p.alive !== false && !p.wounded && !stun && !immune && h("span", { class: "chip ok" }, t("state.ok")));
}

function nameIn(view, pid) {
  if (pid === view.me?.player_id) return view.me.name;
  return view.players?.[pid]?.name
    ?? (view.duel?.opponent?.player_id === pid ? view.duel.opponent.name : null)
    ?? (view.last_duel?.opponent?.player_id === pid ? view.last_duel.opponent.name : null)
    ?? pid;
}

// A revealed round: both cards side by side, the winner marked.
function roundBlock(view, round, order) {
  const ids = order.length ? order : Object.keys(round.cards || {});
  const winners = round.winners || [];
  const verdict = winners.length ? t("replay.ev.winners", { names: winners.map((pid) => nameIn(view, pid)).join(", ") }) : t("replay.ev.draw");
  return h("div", { class: "round replay-round", testid: `replay-round-${round.round}` },
    h("div", { class: "hint" }, t("reveal.round", { round: round.round })),
    h("div", { class: "versus" }, ids.map((pid, i) => [
      i ? h("div", { class: "vs" }, "×") : null,
      h("div", { class: winners.includes(pid) ? "side won" : "side" },
        h("div", { class: "who" }, nameIn(view, pid)),
        round.cards?.[pid] ? cardView(round.cards[pid]) : "–"),
    ])),
    h("div", { class: "verdict" }, verdict));
}

function cardDuel(view, at, members) {
  const me = view.me;
  if (me && Array.isArray(me.cards)) return cardDuelPlayer(view, at, members);
  if (me?.role === "organizer") return cardDuelOrganizer(view, at);
  return [publicPlayers(members)];
}

function cardDuelPlayer(view, at, members) {
  const { me, duel, last_duel: last } = view;
  const picked = duel?.my_pick ? me.cards.find((c) => c.card_id === duel.my_pick) : null;
  const open = duel && !(duel.rounds || []).some((r) => r.winners?.length);
  return [
    h("section", { class: "replay-me" },
      h("div", { class: "replay-name" }, h("strong", {}, me.name), " ", h("span", { class: "code-small" }, me.code)),
      stateChips(me, at)),
    duel && h("section", { class: "replay-duel", testid: "replay-duel" },
      h("h3", {}, t("replay.duel_with", { name: duel.opponent.name })),
      h("div", { class: "chips" },
        open && h("span", { class: "chip" }, t("reveal.round", { round: duel.round })),
        duel.ranged && h("span", { class: "chip" }, t("duel.ranged")),
        open && h("span", { class: duel.opponent_picked ? "chip ok" : "chip wait" },
          duel.opponent_picked ? t("duel.opponent_picked") : t("duel.opponent_picking"))),
      (duel.rounds || []).map((round) => roundBlock(view, round, [me.player_id, duel.opponent.player_id])),
      open && h("div", { class: "replay-pick" },
        h("div", { class: "hint" }, t("duel.your_pick")),
        picked ? cardView(picked) : h("span", { class: "muted" }, t("replay.no_pick")))),
    last && h("section", { class: "replay-duel", testid: "replay-last-duel" },
      h("h3", {}, t("replay.last_duel", { name: last.opponent.name })),
      (last.rounds || []).map((round) => roundBlock(view, round, [me.player_id, last.opponent.player_id])),
      h("ul", { class: "plain" }, (last.outcomes || []).map((o) => h("li", {}, t(`replay.outcome.${o.effect}`, {
        name: nameIn(view, o.player_id), time: o.until ? clock(Date.parse(o.until)) : "",
      }))))),
    h("section", {},
      h("h3", {}, t("cards.title", { count: me.cards.length })),
      h("div", { class: "card-list replay-cards" }, me.cards.map((card) => cardView(card)))),
    publicPlayers(members, me.player_id),
  ];
}

function cardTitle(p, cardId) {
  const card = (p?.cards || []).find((c) => c.card_id === cardId);
  return card ? `${card.title} ${card.big}/${card.small}` : cardId;
}

function cardDuelOrganizer(view, at) {
  const byId = view.players || {};
  const duels = rows(view.duels, "duel_id");
  const players = rows(view.players, "player_id");
  return [
    duels.length > 0 && h("section", { class: "replay-duels" },
      h("h3", {}, t("duels.title", { count: duels.length })),
      h("ul", { class: "plain" }, duels.map((duel) => h("li", {},
        duel.players.map((pid, i) => [i ? " × " : "", h("strong", {}, byId[pid]?.name ?? pid), " ",
          duel.picks?.[pid] ? h("span", { class: "chip ok" }, cardTitle(byId[pid], duel.picks[pid])) : h("span", { class: "chip wait" }, "…")]),
        " ", h("span", { class: "chip" }, t("reveal.round", { round: duel.round })))))),
    h("section", { class: "replay-players" },
      h("h3", {}, t("players.title", { count: players.length })),
      players.map((p) => h("div", { class: `replay-prow ${p.alive === false ? "is-dead" : ""}` },
        h("div", { class: "replay-name" }, h("strong", {}, p.name), " ", h("span", { class: "code-small" }, p.code)),
        stateChips(p, at),
        h("div", { class: "card-chips" }, (p.cards || []).map((c) => h("span", { class: `card-chip kind-${c.kind}` },
          `${c.title} ${c.big}/${c.small}${c.ranged ? "★" : ""}`)))))),
  ];
}

// The game's players (from the log), but `except`.
function playersOf(members, except = null) {
  return Object.entries(members).filter(([id, m]) => id !== except && m.role === "player")
    .map(([id, m]) => ({ ...m, player_id: id }));
}

function publicPlayers(members, except = null) {
  const list = playersOf(members, except);
  if (!list.length) return null;
  return h("section", { class: "replay-players" },
    h("h3", {}, t("players.title", { count: list.length })),
    h("ul", { class: "plain" }, list.map((p) => h("li", {}, h("span", { class: "code-small" }, p.code), " ", p.name))));
}

// ---- rank-bases ----

function rankBases(view, members) {
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

// ---- dice-combat and stamina-deck: the combatants, the round ----

function diceCombat(view) {
  const list = rows(view.combatants, "combatant_id");
  const names = Object.fromEntries(list.map((c) => [c.combatant_id, c.name]));
  const fight = view.fight;
  return [
    fight && h("section", {},
      h("h3", {}, t("dc.round", { round: fight.round })),
      fight.turn && h("p", {}, t("dc.log.turn", { name: names[fight.turn] ?? fight.turn })),
      h("p", { class: "hint" }, (fight.order || []).map((id) => names[id] ?? id).join(" → "))),
    h("section", { class: "replay-players" },
      h("h3", {}, t("replay.combatants", { count: list.length })),
      list.map((c) => h("div", { class: "replay-prow" },
        h("div", { class: "replay-name" }, h("strong", {}, c.name), " ", h("span", { class: "muted" }, c.side)),
        h("div", { class: "chips" },
          h("span", { class: c.condition === "up" ? "chip ok" : c.condition === "dead" ? "chip dead" : "chip wound" }, t(`replay.condition.${c.condition}`)),
          c.lives !== undefined && h("span", { class: "chip" }, `${c.lives} / ${c.max_lives}`),
          c.in_fight && h("span", { class: "chip duel" }, t("replay.in_fight")))))),
    (view.recent || []).length > 0 && h("section", {},
      h("h3", {}, t("replay.recent")),
      h("ul", { class: "plain" }, view.recent.slice(-5).reverse().map((a) => h("li", {},
        a.result ? t(a.result.hit ? "dc.log.hit" : "dc.log.miss", {
          attacker: names[a.attacker_id] ?? a.attacker_id, target: names[a.target_id] ?? a.target_id,
          attack: a.result.attack, defence: a.result.defence, damage: a.result.damage,
        }) : `${names[a.attacker_id] ?? a.attacker_id} → ${names[a.target_id] ?? a.target_id}`)))),
  ];
}

function staminaDeck(view) {
  const list = rows(view.characters, "character_id");
  return [
    h("section", {},
      h("h3", {}, t("replay.round_phase", { round: view.round ?? 0, phase: view.phase ? t(`replay.phase.${view.phase}`) : "" })),
      view.turn && h("p", {}, t("dc.log.turn", { name: view.characters?.[view.turn]?.name ?? view.turn }))),
    h("section", { class: "replay-players" },
      h("h3", {}, t("replay.combatants", { count: list.length })),
      list.map((c) => h("div", { class: "replay-prow" },
        h("div", { class: "replay-name" }, h("strong", {}, c.name), " ", h("span", { class: "muted" }, c.side)),
        h("div", { class: "chips" },
          h("span", { class: "chip" }, t("replay.lives_left", { count: c.lives_left ?? 0 })),
          c.wound && h("span", { class: "chip wound" }, c.wound),
          c.in_melee && h("span", { class: "chip duel" }, t("replay.in_fight")),
          c.counts && h("span", { class: "chip" }, t("replay.deck", { count: c.counts.deck ?? 0 })))))),
  ];
}

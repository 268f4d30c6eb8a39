// One event of the log in words (Czech or English), for the replay's event list. Names come from
// the index (members, cards, combatants, raids); before the index has them, the ids show.
import { getLang, hasWords, shownName, t } from "../i18n.js";
import { JUMPS } from "./indexer.js";

// One formatter per language (making one per call would cost more than the whole row).
const formats = new Map();
export function clock(ms, seconds = true) {
  if (!Number.isFinite(ms)) return "";
  const key = `${getLang()}:${seconds}`;
  if (!formats.has(key)) {
    formats.set(key, new Intl.DateTimeFormat(getLang(), { hour: "2-digit", minute: "2-digit", second: seconds ? "2-digit" : undefined }));
  }
  return formats.get(key).format(ms);
}

// "+1:02:03" since the game started (or since the log's first event).
export function sinceStart(ms, index) {
  const start = index?.startedAt ?? index?.firstAt;
  if (!Number.isFinite(ms) || !Number.isFinite(start)) return "";
  const total = Math.round((ms - start) / 1000);
  const sign = total < 0 ? "−" : "+";
  const s = Math.abs(total);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${sign}${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${sign}${mm}:${ss}`;
}

// The jump kind of an event type in this ruleset (duel, stun, death, raid …), or null.
export function kindOf(type, ruleset) {
  for (const [kind, types] of Object.entries(JUMPS[ruleset] || {})) if (types.includes(type)) return kind;
  return null;
}

export function memberName(index, id) {
  if (id === null || id === undefined) return "–";
  const member = index?.members?.[id];
  return member ? shownName(member.name, member.role) : index?.fighters?.[id]?.name ?? id;
}

function teamName(index, teamId) {
  return (index?.config?.teams || []).find((team) => team.team_id === teamId)?.name ?? teamId ?? "";
}

function rankName(index, rank) {
  const found = (index?.config?.ranks || []).find((r) => r.rank === rank);
  return found ? `${rank} ${found.name}` : String(rank ?? "?");
}

function cardText(card) {
  if (!card) return "–";
  return `${card.title} ${card.big}/${card.small}${card.ranged ? "★" : ""}`;
}

function when(iso) {
  return clock(Date.parse(iso));
}

function names(index, ids) {
  return (ids || []).map((id) => memberName(index, id)).join(", ");
}

export function describe(event, index) {
  const d = event.data || {};
  const who = (id) => memberName(index, id);
  const common = commonEvent(event, index, d);
  if (common !== null) return common;
  const ruleset = index?.ruleset;
  const text = ruleset === "card-duel" ? cardDuelEvent(event, index, d, who)
    : ruleset === "rank-bases" ? rankEvent(event, index, d, who)
    : ruleset === "dice-combat" ? diceEvent(event, index, d, who)
    : ruleset === "stamina-deck" ? staminaEvent(event, d, who)
    : null;
  return text ?? generic(event, index);
}

function commonEvent(event, index, d) {
  switch (event.type) {
    case "game_created": {
      const ruleset = t(`ruleset.${d.ruleset}`);
      return t("replay.ev.game_created", { name: d.name, ruleset: ruleset === `ruleset.${d.ruleset}` ? d.ruleset : ruleset });
    }
    case "player_joined": return t("replay.ev.player_joined", {
      name: shownName(d.name, d.role), role: t(`role.${d.role}`), team: d.team ? ` · ${teamName(index, d.team)}` : "",
    });
    case "game_started": return t("replay.ev.game_started");
    case "game_ended": return t("replay.ev.game_ended");
    default: return null;
  }
}

function cardDuelEvent(event, index, d, who) {
  const duel = index?.duels?.[d.duel_id];
  const pair = duel ? `${who(duel[0])} × ${who(duel[1])}` : d.duel_id;
  switch (event.type) {
    case "duel_started": return t(d.ranged ? "replay.ev.duel_started_ranged" : "replay.ev.duel_started", { a: who(d.challenger), b: who(d.target) });
    case "card_picked": return t("replay.ev.card_picked", { name: who(d.player_id), card: cardText(index?.cards?.[d.card_id]), round: d.round });
    case "round_revealed": {
      const cards = Object.entries(d.cards || {}).map(([pid, card]) => `${who(pid)}: ${cardText(card)}`).join(" × ");
      const result = d.winners?.length ? t("replay.ev.winners", { names: names(index, d.winners) }) : t("replay.ev.draw");
      return t("replay.ev.round_revealed", { round: d.round, cards, result });
    }
    case "player_escaped": return t("replay.ev.player_escaped", { name: who(d.player_id), time: when(d.until) });
    case "player_stunned": return t("replay.ev.player_stunned", { name: who(d.player_id), time: when(d.until) });
    case "player_wounded": return t("replay.ev.player_wounded", { name: who(d.player_id) });
    case "player_killed": return t("replay.ev.player_killed", { name: who(d.player_id) });
    case "duel_ended": return t("replay.ev.duel_ended", { pair });
    case "duel_cancelled": return d.reason === "left"
      ? t("replay.ev.duel_left", { pair, name: who(d.by) })
      : t("replay.ev.duel_cancelled", { pair, reason: t(`replay.reason.${d.reason}`) });
    case "card_granted": return t("replay.ev.card_granted", { name: who(d.player_id), card: cardText(d.card) });
    case "item_granted": return t("replay.ev.item_granted", { name: who(d.player_id) });
    case "player_healed": return t("replay.ev.player_healed", { name: who(d.player_id) });
    case "player_revived": return t("replay.ev.player_revived", { name: who(d.player_id) });
    default: return null;
  }
}

function rankEvent(event, index, d, who) {
  const raid = index?.raids?.[d.raid_id];
  const raidText = raid ? t("replay.ev.raid_of", { name: who(raid.attacker), team: teamName(index, raid.team_id) }) : (d.raid_id ?? "");
  switch (event.type) {
    case "rank_assigned": return t("replay.ev.rank_assigned", { name: who(d.player_id), rank: rankName(index, d.rank) });
    case "paper_issued": return t("replay.ev.paper_issued", { name: who(d.player_id), count: d.lives ?? 0 });
    case "duel_started": return t("replay.ev.duel_started", { a: who(d.challenger), b: who(d.target) });
    case "duel_fought": {
      const [a, b] = d.players || [];
      const fight = `${who(a)} (${rankName(index, d.ranks?.[a])}) × ${who(b)} (${rankName(index, d.ranks?.[b])})`;
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

// dice-combat: the GM console's log lines (dc.log.*), as plain text.
function diceEvent(event, index, d, who) {
  switch (event.type) {
    case "combatant_linked": return t("replay.ev.dc_linked", { name: who(d.combatant_id), player: d.player_id ? who(d.player_id) : t("dc.link.gm") });
    case "attack_declared": return t("replay.ev.dc_declared", { attacker: who(d.attacker_id), target: who(d.target_id), attack: d.attack_number, defence: d.defence_number });
    case "attack_rolled":
    case "defence_rolled": return t("replay.ev.dc_rolled", { name: who(d.combatant_id), dice: (d.dice || []).join("+"), total: d.total });
    case "wound_opened": return t("replay.ev.dc_wound", { name: who(d.combatant_id) });
    case "combatant_added": return t("dc.log.added", { name: d.name, side: d.side });
    case "fight_started": return t("dc.log.fight_started", { count: (d.combatants || []).length });
    case "fight_ended": return t("dc.log.fight_ended");
    case "combatant_joined_fight": return t("dc.log.joined", { name: who(d.combatant_id) });
    case "round_started": return t("dc.round", { round: d.round });
    case "initiative_rolled": return `${t("dc.log.initiative")} ${(d.order || []).map((id) => `${who(id)} ${d.initiative?.[id]?.total ?? ""}`.trim()).join(", ")}`;
    case "turn_started": return t("dc.log.turn", { name: who(d.combatant_id) });
    case "action_taken": return t("dc.log.action", { name: who(d.combatant_id), action: t(`dc.act.${d.action}`), length: t(`dc.len.${d.length}`) }) + (d.note ? ` – ${d.note}` : "");
    case "sprint_started": return t("dc.log.sprint", { name: who(d.combatant_id), rounds: d.rounds });
    case "flight_rolled": return d.escaped ? t("dc.flee.escaped", { name: who(d.combatant_id) }) : t("dc.flee.caught", { names: (d.attacks_first || []).map(who).join(", ") });
    case "attack_resolved": return t(d.hit ? "dc.log.hit" : "dc.log.miss", { attacker: who(d.attacker_id), target: who(d.target_id), attack: d.attack, defence: d.defence, damage: d.damage });
    case "attack_cancelled": return t("dc.log.cancelled");
    case "combatant_hurt": return t("dc.log.hurt", { name: who(d.combatant_id), count: d.lost, lives: d.lives });
    case "wound_bled": return t("dc.log.bled", { name: who(d.combatant_id), count: d.lost, lives: d.lives });
    case "combatant_fainted": return t("dc.log.fainted", { name: who(d.combatant_id) });
    case "combatant_died": return t("dc.log.died", { name: who(d.combatant_id) });
    case "first_aid_rolled": return `${t("dc.log.aid", { healer: who(d.healer_id), patient: who(d.patient_id), total: d.total })} – ${d.success ? t("dc.aid.success") : t("dc.aid.failed", { needed: d.needed })}`;
    case "bleeding_stopped": return t("dc.log.stopped", { name: who(d.combatant_id), reason: d.reason ?? t("dc.aid.title") });
    case "combatant_rested": return t("dc.log.rested", { name: who(d.combatant_id) });
    case "chase_started": return t("dc.log.chase_started", { fleeing: who(d.fleeing_id), chaser: who(d.chaser_id), lead: d.lead });
    case "chase_rolled": return t("dc.chase.lead_change", { before: d.lead_before, after: d.lead });
    case "chase_ended": return t("dc.log.chase_ended", { reason: t(`dc.chase.reason_${d.reason}`) });
    default: return null;
  }
}

// stamina-deck: the main moments (cards as rank and suit); the rest in generic words.
const SUITS = { clubs: "♣", diamonds: "♦", hearts: "♥", spades: "♠" };
function playingCard(card) {
  return card ? `${card.rank}${SUITS[card.suit] ?? ""}` : "–";
}

function staminaEvent(event, d, who) {
  switch (event.type) {
    case "round_started": return t("dc.round", { round: d.round });
    case "initiative_chosen": return t("replay.ev.sd_initiative", { name: who(d.character_id), card: playingCard(d.card) });
    case "initiative_ordered": return t("replay.ev.sd_order", { names: (d.order || []).map(who).join(", ") });
    case "turn_ended": return d.next ? t("dc.log.turn", { name: who(d.next) }) : null;
    case "character_moved": return t("replay.ev.sd_moved", { name: who(d.character_id), x: d.to?.x, y: d.to?.y });
    case "shot_fired": return t("replay.ev.sd_shot", { shooter: who(d.shooter), target: who(d.target), attack: d.attack });
    case "shot_defended": return t("replay.ev.sd_defended", {
      target: who(d.target), defence: d.defence, attack: d.attack,
      result: d.hit ? t("replay.ev.sd_hit", { damage: d.damage }) : t("replay.ev.sd_miss"),
    });
    case "bout_started": return t("replay.ev.sd_bout", { attacker: who(d.attacker), defender: who(d.defender) });
    case "exchange_revealed": return t("replay.ev.sd_exchange", {
      attacker: who(d.attacker), defender: who(d.defender),
      a: d.values?.[d.attacker] ?? playingCard(d.cards?.[d.attacker]), b: d.values?.[d.defender] ?? playingCard(d.cards?.[d.defender]),
      result: t(`replay.ev.sd_${d.result}`),
    });
    case "character_wounded": return t("replay.ev.sd_wounded", { name: who(d.character_id), lost: d.lives_lost, severity: d.severity, left: d.lives_left });
    default: return null;
  }
}

// Any other event: its type in words (replay.type.<type>) and the names it mentions.
const NAMED = ["player_id", "combatant_id", "character_id", "attacker", "defender", "shooter", "target", "challenger", "attacker_id", "target_id"];

export function generic(event, index) {
  const d = event.data || {};
  const people = [...new Set(NAMED.map((key) => d[key]).filter((id) => typeof id === "string"))].map((id) => memberName(index, id));
  const key = `replay.type.${event.type}`;
  const type = hasWords(key) ? t(key) : event.type.replace(/_/g, " ");
  return people.length ? `${type}: ${people.join(", ")}` : type;
}

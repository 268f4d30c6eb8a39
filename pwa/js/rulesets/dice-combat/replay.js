// dice-combat's part of the replay (see replay/indexer.js): its events in the GM console's words
// (dc.log.*), and a replayed view (the round, the combatants, the last attacks).
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { rows } from "../../keyed.js";
import { actionLine, boostText, checkLine, fightStartedLine, itemLine } from "./common.js";

// dice-combat: the GM console's log lines (dc.log.*), as plain text.
export function describe(event, index, d, who) {
  switch (event.type) {
    case "combatant_linked": return t("replay.ev.dc_linked", { name: who(d.combatant_id), player: d.player_id ? who(d.player_id) : t("dc.link.gm") });
    case "attack_declared": return [
      t("replay.ev.dc_declared", { attacker: who(d.attacker_id), target: who(d.target_id), attack: d.attack_number, defence: d.defence_number }),
      d.weapon === "second" && t("dc.with_second_weapon"),
      d.defence_weapon === "second" && t("dc.parry_second_weapon"),
    ].filter(Boolean).join(" – ");
    case "attack_rolled":
    case "defence_rolled": return t("replay.ev.dc_rolled", { name: who(d.combatant_id), dice: (d.dice || []).join("+"), total: d.total });
    case "wound_opened": return t("replay.ev.dc_wound", { name: who(d.combatant_id) });
    case "combatant_added": return t("dc.log.added", { name: d.name, side: d.side });
    case "fight_started": return fightStartedLine(d);
    case "fight_ended": return t("dc.log.fight_ended");
    case "combatant_joined_fight": return t("dc.log.joined", { name: who(d.combatant_id) });
    case "round_started": return t("dc.round", { round: d.round });
    case "initiative_rolled": return `${t("dc.log.initiative")} ${(d.order || []).map((id) => `${who(id)} ${d.initiative?.[id]?.total ?? ""}`.trim()).join(", ")}`;
    case "turn_started": return t("dc.log.turn", { name: who(d.combatant_id) });
    case "action_taken": return actionLine(d, who);
    case "item_took_effect":
    case "item_wore_off": return itemLine(event.type, d, who);
    case "check_rolled": return checkLine(d, who);
    case "sprint_started": return t("dc.log.sprint", { name: who(d.combatant_id), rounds: d.rounds, count: d.rounds });
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
    case "chase_rolled": return t("dc.chase.lead_change", { before: d.lead_before, after: d.lead, count: d.lead });
    case "chase_ended": return t("dc.log.chase_ended", { reason: t(`dc.chase.reason_${d.reason}`) });
    default: return null;
  }
}

export function summary(view) {
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
          c.in_fight && h("span", { class: "chip duel" }, t("replay.in_fight")),
          (c.boosts || []).map((b) => h("span", { class: "chip" }, boostText(b))))))),
    (view.checks || []).length > 0 && h("section", {},
      h("h3", {}, t("replay.last_check")),
      h("p", {}, checkLine(view.checks[view.checks.length - 1], (id) => names[id] ?? id))),
    (view.recent || []).length > 0 && h("section", {},
      h("h3", {}, t("replay.recent")),
      h("ul", { class: "plain" }, view.recent.slice(-5).reverse().map((a) => h("li", {},
        a.result ? t(a.result.hit ? "dc.log.hit" : "dc.log.miss", {
          attacker: names[a.attacker_id] ?? a.attacker_id, target: names[a.target_id] ?? a.target_id,
          attack: a.result.attack, defence: a.result.defence, damage: a.result.damage,
        }) : `${names[a.attacker_id] ?? a.attacker_id} → ${names[a.target_id] ?? a.target_id}`)))),
  ];
}

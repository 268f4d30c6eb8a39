// stamina-deck's part of the replay (see replay/indexer.js): its main moments in words (cards
// as rank and suit; the rest in the generic words), and a replayed view (the round, the
// characters).
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { rows } from "../../keyed.js";

// stamina-deck: the main moments (cards as rank and suit); the rest in generic words.
const SUITS = { clubs: "♣", diamonds: "♦", hearts: "♥", spades: "♠" };
function playingCard(card) {
  return card ? `${card.rank}${SUITS[card.suit] ?? ""}` : "–";
}

export function describe(event, index, d, who) {
  switch (event.type) {
    case "round_started": return t("replay.sd.round", { round: d.round });
    case "initiative_chosen": return t("replay.ev.sd_initiative", { name: who(d.character_id), card: playingCard(d.card) });
    case "initiative_ordered": return t("replay.ev.sd_order", { names: (d.order || []).map(who).join(", ") });
    case "turn_ended": return d.next ? t("replay.sd.turn", { name: who(d.next) }) : null;
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

export function summary(view) {
  const list = rows(view.characters, "character_id");
  return [
    h("section", {},
      h("h3", {}, t("replay.round_phase", { round: view.round ?? 0, phase: view.phase ? t(`replay.phase.${view.phase}`) : "" })),
      view.turn && h("p", {}, t("replay.sd.turn", { name: view.characters?.[view.turn]?.name ?? view.turn }))),
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

// card-duel's part of the replay (see replay/indexer.js): its events in words and a replayed
// view (the duellist's cards and rounds, the organizer's players and duels).
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { cardView } from "../../views/common.js";
import { rows } from "../../keyed.js";
import { clock, memberName, names, when } from "../../replay/describe.js";
import { publicPlayers, until } from "../../replay/summary.js";

function cardText(card) {
  if (!card) return "–";
  return `${card.title} ${card.big}/${card.small}${card.ranged ? "★" : ""}${card.effect ? ` (${card.effect})` : ""}`;
}

export function describe(event, index, d, who) {
  const duel = index?.own?.duels?.[d.duel_id];
  const pair = duel ? `${who(duel[0])} × ${who(duel[1])}` : d.duel_id;
  switch (event.type) {
    case "duel_started": return t(d.ranged ? "replay.ev.duel_started_ranged" : "replay.ev.duel_started", { a: who(d.challenger), b: who(d.target) });
    case "card_picked": return t("replay.ev.card_picked", { name: who(d.player_id), card: cardText(index?.own?.cards?.[d.card_id]), round: d.round });
    case "round_revealed": {
      const cards = Object.entries(d.cards || {}).map(([pid, card]) => `${who(pid)}: ${cardText(card)}`).join(" × ");
      const result = d.winners?.length ? t("replay.ev.winners", { names: names(index, d.winners) }) : t("replay.ev.draw");
      return t("replay.ev.round_revealed", { round: d.round, cards, result });
    }
    case "player_escaped": return t("replay.ev.player_escaped", { name: who(d.player_id), time: when(d.until) });
    case "player_stunned": return t("replay.ev.player_stunned", { name: who(d.player_id), time: when(d.until) });
    case "player_wounded": return t("replay.ev.player_wounded", { name: who(d.player_id) });
    case "player_killed": return t("replay.ev.player_killed", { name: who(d.player_id) });
    case "effect_suffered": return d.until
      ? t("replay.ev.effect_suffered_until", { name: who(d.player_id), effect: d.effect, time: when(d.until) })
      : t("replay.ev.effect_suffered", { name: who(d.player_id), effect: d.effect });
    case "duel_ended": return t("replay.ev.duel_ended", { pair });
    case "duel_cancelled": return d.reason === "left"
      ? t("replay.ev.duel_left", { pair, name: who(d.by) })
      : t("replay.ev.duel_cancelled", { pair, reason: t(`replay.reason.${d.reason}`) });
    case "card_granted": return t("replay.ev.card_granted", { name: who(d.player_id), card: cardText(d.card) });
    case "item_granted": return t("replay.ev.item_granted", { name: who(d.player_id) });
    case "player_healed": return t("replay.ev.player_healed", { name: who(d.player_id) });
    case "player_revived": return t("replay.ev.player_revived", { name: who(d.player_id) });
    case "key_registered": return t("replay.ev.key_registered", { name: who(d.player_id) });
    case "offline_duel_recorded": return d.forfeit
      ? t("replay.ev.offline_duel_forfeit", { a: who(d.challenger), b: who(d.target), time: when(d.at), name: who(d.forfeit) })
      : t("replay.ev.offline_duel_recorded", { a: who(d.challenger), b: who(d.target), time: when(d.at) });
    case "offline_duel_void": return t("replay.ev.offline_duel_void", { a: who(d.challenger), b: who(d.target), time: when(d.at), reason: t(`replay.void.${d.reason}`) });
    case "offline_duel_disputed": return t(`replay.ev.offline_duel_disputed.${d.reason}`, { a: who(d.challenger), b: who(d.target), duels: (d.duels || []).join(", ") });
    case "dispute_settled": return t(`replay.ev.dispute_settled.${d.ruling}`, { a: who(d.challenger), b: who(d.target) });
    default: return null;
  }
}

function stateChips(p, at) {
  const stun = until(p.stunned_until, at);
  const immune = until(p.immune_until, at);
  // A special effect holds until its end, or (untimed) while the view keeps it.
  const effectEnd = p.effect?.until ? until(p.effect.until, at) : null;
  const suffers = Boolean(p.effect) && (!p.effect.until || Boolean(effectEnd));
  return h("span", { class: "chips" },
    p.alive === false && h("span", { class: "chip dead" }, t("state.dead")),
    p.wounded && h("span", { class: "chip wound" }, t("state.wounded")),
    stun && h("span", { class: "chip stun" }, t("state.stunned"), " ", stun),
    immune && h("span", { class: "chip immune" }, t("state.immune"), " ", immune),
    suffers && h("span", { class: "chip effect" }, t("state.effect"), " ", p.effect.text, effectEnd && [" ", effectEnd]),
    (p.items || []).includes("crossbow") && h("span", { class: "chip" }, t("item.crossbow")),
    p.alive !== false && !p.wounded && !stun && !immune && !suffers && h("span", { class: "chip ok" }, t("state.ok")));
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

export function summary(view, at, members) {
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
      h("ul", { class: "plain" }, (last.outcomes || []).map((o) => h("li", {}, t(`replay.outcome.${o.effect === "special" && o.until ? "special_until" : o.effect}`, {
        name: nameIn(view, o.player_id), time: o.until ? clock(Date.parse(o.until)) : "", text: o.text,
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

// A player's own duels, first on the replay's screen (a phone opens on them, not on the
// controls): each with its opponent and result; a tap takes the replay to its last reveal.
export function mine(index, me, { jump, at }) {
  if (index?.members?.[me]?.role !== "player") return null;
  const fought = (index.own?.fought || []).filter((duel) => duel.players.includes(me));
  const result = (winners) => {
    const iWon = winners.includes(me);
    const theyWon = winners.some((pid) => pid !== me);
    return iWon && theyWon ? "both" : iWon ? "won" : theyWon ? "lost" : "none";
  };
  return h("section", { class: "replay-mine", testid: "replay-mine" },
    h("h2", {}, t("replay.mine.title"), " ", h("span", { class: "muted" }, String(fought.length))),
    fought.length
      ? h("div", { class: "replay-mine-list" }, fought.map((duel) => {
        const other = duel.players.find((pid) => pid !== me);
        const shown = result(duel.winners);
        return h("button", {
          class: `replay-mine-row result-${shown}${duel.seq === at ? " at" : ""}`, testid: `replay-mine-${duel.duel_id}`,
          "data-seq": String(duel.seq), "aria-current": duel.seq === at ? "true" : null, onclick: () => jump(duel.seq),
        },
        h("span", { class: "replay-mine-line" },
          h("strong", { class: "replay-mine-result" }, t(`replay.mine.${shown}`)), " · ", memberName(index, other)),
        h("span", { class: "replay-mine-meta" }, clock(Date.parse(duel.at), false), duel.offline ? ` · ${t("replay.mine.offline")}` : ""));
      }))
      : h("p", { class: "hint" }, t("replay.mine.empty")));
}

// A duel round's winners and what the winning cards do: the server's rules (server/rules/card_duel:
// cards.beats, decide.resolve and hit), for an offline duel that each phone settles by itself.
// tests/vectors/card_duel.json holds both to the same cases.

// A wins on a bigger big number, or on a small number bigger by at least two.
export function beats(a, b) {
  return a.big > b.big || a.small >= b.small + 2;
}

// Which number made the winning card `a` beat `b` (the big one when both did).
export function why(a, b) {
  return a.big > b.big ? "big" : "small";
}

// cards: {a: card, b: card} (any two keys) -> the keys whose card beat the other's, in key order.
export function winnersOf(cards) {
  const [a, b] = Object.keys(cards);
  return [[a, b], [b, a]].filter(([p, q]) => beats(cards[p], cards[q])).map(([p]) => p);
}

// What the winners' cards do: [{player, effect, for_s}], for_s the seconds it lasts (null: untimed).
// Both win: the one exception is an escape against another kind, where the escaper gets away,
// unless the other card is ranged (a shot catches the one running away).
export function outcomesOf(cards, winners, config) {
  const other = (p) => Object.keys(cards).find((q) => q !== p);
  if (winners.length === 2) {
    const kinds = new Set(winners.map((p) => cards[p].kind));
    if (kinds.has("escape") && kinds.size === 2) {
      const escaper = winners.find((p) => cards[p].kind === "escape");
      const chaser = other(escaper);
      if (cards[chaser].ranged) return [hit(cards[chaser], chaser, escaper, config), { player: escaper, effect: "escape_failed", for_s: null }];
      return [hit(cards[escaper], escaper, chaser, config)];
    }
  }
  return winners.map((p) => hit(cards[p], p, other(p), config));
}

// What `card` does when it wins: an escape frees its own player, the rest strike the loser.
function hit(card, winner, loser, config) {
  if (card.kind === "escape") return { player: winner, effect: "escape", for_s: config.escape_immunity_s };
  if (card.kind === "stun") return { player: loser, effect: "stun", for_s: config.stun_s };
  if (card.kind === "special") return { player: loser, effect: "special", for_s: card.effect_s ?? null };
  return { player: loser, effect: card.kind, for_s: null };
}

// A settled round as the reveal screen shows it (the view's `last_duel` shape): outcomes carry
// `until` (ISO) counted from `atMs`, the reveal's time; a special card's words come with it.
export function settle(cards, config, atMs) {
  const winners = winnersOf(cards);
  const outcomes = outcomesOf(cards, winners, config).map((o) => ({
    player_id: o.player,
    effect: o.effect,
    until: o.for_s == null ? null : new Date(atMs + o.for_s * 1000).toISOString(),
    ...(o.effect === "special" ? { text: cards[Object.keys(cards).find((q) => q !== o.player)].effect } : {}),
  }));
  const whyOf = Object.fromEntries(winners.map((p) => [p, why(cards[p], cards[Object.keys(cards).find((q) => q !== p)])]));
  return { winners, outcomes, why: whyOf };
}

// coin-toss: its words in English.
export default {
  "ruleset.coin-toss": "Coin toss (test)",
  "ct.toss": "Toss a coin",
  "ct.left": { one: "{count} toss left", other: "{count} tosses left" },
  "ct.side.heads": "Heads",
  "ct.side.tails": "Tails",
  "ct.tally": "Results",
  "ct.heads": { one: "{count} heads", other: "{count} heads" },
  "ct.tails": { one: "{count} tails", other: "{count} tails" },
  "ct.mine": { one: "You tossed {count} heads.", other: "You tossed {count} heads." },
  "ct.won": "{names} wins ({count})",
  "ct.no_winner": "Nobody tossed heads.",
  "ct.per_player": { one: "{count} toss a player", other: "{count} tosses a player" },
  "ct.per_player_label": "Tosses a player",
  "error.coin-toss.no_tosses_left": "You have tossed every coin you had.",
};

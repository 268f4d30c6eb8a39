// coin-toss: its words in Czech.
export default {
  "ruleset.coin-toss": "Hod mincí (zkušební)",
  "ct.toss": "Hodit mincí",
  "ct.left": { one: "Zbývá {count} hod", few: "Zbývají {count} hody", many: "Zbývá {count} hodu", other: "Zbývá {count} hodů" },
  "ct.side.heads": "Panna",
  "ct.side.tails": "Orel",
  "ct.tally": "Výsledky",
  "ct.heads": { one: "{count} panna", few: "{count} panny", many: "{count} panny", other: "{count} pannen" },
  "ct.tails": { one: "{count} orel", few: "{count} orli", many: "{count} orla", other: "{count} orlů" },
  "ct.mine": { one: "Hodil jsi {count} pannu.", few: "Hodil jsi {count} panny.", many: "Hodil jsi {count} panny.", other: "Hodil jsi {count} pannen." },
  "ct.won": "Vyhrává {names} ({count})",
  "ct.no_winner": "Nikdo nehodil pannu.",
  "ct.per_player": { one: "{count} hod na hráče", few: "{count} hody na hráče", many: "{count} hodu na hráče", other: "{count} hodů na hráče" },
  "ct.per_player_label": "Hodů na hráče",
  "error.coin-toss.no_tosses_left": "Už jsi hodil všemi mincemi.",
};

// coin-toss: the replay's words (English).
export default {
  "replay.ct.tossed": "{name} tosses: {side}",
  "replay.kind.toss": "toss",
  "replay.total.toss": "tosses: {count}",
  "replay.kinds.toss": "Tosses",
  "replay.col.heads": "Heads",
  "replay.col.tails": "Tails",
  "replay.col_title.heads": "Heads tossed (sort)",
  "replay.col_title.tails": "Tails tossed (sort)",
};

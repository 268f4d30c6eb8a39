// coin-toss: the replay's words (Czech).
export default {
  "replay.ct.tossed": "{name} hází: {side}",
  "replay.kind.toss": "hod",
  "replay.total.toss": "hody: {count}",
  "replay.kinds.toss": "Hody",
  "replay.col.heads": "Panny",
  "replay.col.tails": "Orli",
  "replay.col_title.heads": "Hozené panny (seřadit)",
  "replay.col_title.tails": "Hození orli (seřadit)",
};

// coin-toss's part of the replay (see replay/indexer.js): a toss in words, and the tally.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

export function describe(event, index, d, who) {
  return event.type === "coin_tossed" ? t("replay.ct.tossed", { name: who(d.player_id), side: t(`ct.side.${d.side}`) }) : null;
}

export function summary(view) {
  return [h("ul", { class: "plain", testid: "replay-coin-tally" }, Object.values(view.tally || {}).map((row) =>
    h("li", {}, row.name, " · ", t("ct.heads", { count: row.heads }), " · ", t("ct.tails", { count: row.tails }))))];
}

// coin-toss's part of the new-game form: how many coins each player tosses.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

export function defaults() {
  return { ct_tosses: "3" };
}

export function config(f) {
  return { tosses: Number.parseInt(f.ct_tosses, 10) };
}

export function fields(app, f) {
  return h("label", {}, t("ct.per_player_label"),
    h("input", {
      testid: "config-tosses", type: "number", min: "1", max: "20", inputmode: "numeric", value: f.ct_tosses,
      oninput: (e) => { f.ct_tosses = e.target.value; },
    }));
}

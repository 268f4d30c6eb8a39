// card-duel's part of the new-game form: the stun, the immunity after an escape, the pick's time.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

export function defaults() {
  return { stun_s: "300", escape_immunity_s: "10", pick_timeout_s: "" };
}

export function config(f) {
  return {
    stun_s: Number.parseInt(f.stun_s, 10),
    escape_immunity_s: Number.parseInt(f.escape_immunity_s, 10),
    pick_timeout_s: f.pick_timeout_s.trim() === "" ? null : Number.parseInt(f.pick_timeout_s, 10),
  };
}

export function fields(app, f) {
  const field = (key, testid, label, attrs = {}) => h("label", {}, label,
    h("input", { testid, value: f[key], oninput: (e) => { f[key] = e.target.value; }, ...attrs }));
  return h("div", { class: "num-row" },
    field("stun_s", "config-stun-s", t("create.stun_s"), { type: "number", min: "0", inputmode: "numeric" }),
    field("escape_immunity_s", "config-immunity-s", t("create.immunity_s"), { type: "number", min: "0", inputmode: "numeric" }),
    field("pick_timeout_s", "config-pick-timeout-s", t("create.pick_timeout_s"), {
      type: "number", min: "1", inputmode: "numeric", placeholder: t("create.none"),
    }));
}

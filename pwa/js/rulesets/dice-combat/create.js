// The dice-combat part of "create a game": one switch, initiative rolled once for the whole fight.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

export function config(f) {
  return { initiative_once: Boolean(f.initiative_once) };
}

export function fields(app, f) {
  return [
    h("label", { class: "check" },
      h("input", {
        type: "checkbox", testid: "config-initiative-once", checked: Boolean(f.initiative_once),
        onchange: (e) => { f.initiative_once = e.target.checked; },
      }),
      t("dc.create.initiative_once")),
    h("p", { class: "hint" }, t("dc.create.hint")),
  ];
}

export function defaults() {
  return {};
}

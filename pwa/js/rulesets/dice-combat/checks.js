// The GM's checks: a perception roll (Postřeh) or any skill check for the combatants picked,
// in or out of a fight (before naming the surprised, say), and what each of them rolled.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { sending } from "../../views/common.js";
import { CHECK_FIELDS } from "./dice.js";
import { checkCard, combatantsOf, refusalOf, refusalText } from "./common.js";

function fresh() {
  return { kind: "perception", name: "", field: "", value: "0", difficulty: "10", who: {} };
}

export function checks(app, game) {
  const view = game.view;
  const ui = app.ui.dice;
  ui.check ??= fresh();
  const f = ui.check;
  const up = combatantsOf(view).filter((c) => c.condition === "up");
  const picked = up.filter((c) => f.who[c.combatant_id]).map((c) => c.combatant_id);
  const why = refusalOf(view, "check");
  const number = (key, least, most, label) => h("label", { class: "num" }, label, h("input", {
    type: "number", min: String(least), max: String(most), inputmode: "numeric", testid: `check-${key}`, value: f[key],
    oninput: (e) => { f[key] = e.target.value; },
  }));
  const list = [...(view.checks || [])].reverse();
  return h("section", { class: "dc-checks", testid: "checks" },
    h("h2", {}, t("dc.check.title")),
    !up.length && h("p", { class: "hint" }, t("dc.check.nobody")),
    up.length > 0 && h("form", {
      class: "check-form", testid: "check-form",
      onsubmit: (event) => {
        event.preventDefault();
        const value = Number(f.value || "0");
        const difficulty = Number(f.difficulty);
        if (!Number.isInteger(value) || value < -20 || value > 30 || !Number.isInteger(difficulty) || difficulty < 0 || difficulty > 99) {
          return app.notify(t("dc.check.bad_number"));
        }
        game.send({
          type: "check", combatants: picked, kind: f.kind, name: f.name.trim(), field: f.field || null, value, difficulty,
        });
        // The same people often roll again (another skill): only the numbers start clean.
        Object.assign(f, { name: "", value: "0" });
        return app.render();
      },
    },
    h("div", { class: "checks" }, up.map((c) => h("label", { class: `check mod ${f.who[c.combatant_id] ? "on" : ""}` },
      h("input", {
        type: "checkbox", testid: `check-who-${c.combatant_id}`, checked: Boolean(f.who[c.combatant_id]),
        onchange: (e) => { f.who[c.combatant_id] = e.target.checked; app.render(); },
      }),
      c.name))),
    h("div", { class: "num-row" },
      h("label", {}, t("dc.check.kind"), h("select", { testid: "check-kind", onchange: (e) => { f.kind = e.target.value; app.render(); } },
        ["perception", "skill"].map((kind) => h("option", { value: kind, selected: f.kind === kind }, t(`dc.check.${kind}`))))),
      h("label", {}, t(f.kind === "skill" ? "dc.check.name_skill" : "dc.check.name"), h("input", {
        testid: "check-name", value: f.name, maxlength: "40", autocomplete: "off", placeholder: t(f.kind === "skill" ? "dc.check.name_skill_hint" : "dc.check.name_hint"),
        oninput: (e) => { f.name = e.target.value; },
      })),
      h("label", {}, t("dc.check.field"), h("select", { testid: "check-field", onchange: (e) => { f.field = e.target.value; } },
        h("option", { value: "", selected: !f.field }, t("dc.check.no_field")),
        CHECK_FIELDS.map((field) => h("option", { value: field, selected: f.field === field }, t(`dc.field.${field}`))))),
      number("value", -20, 30, t("dc.check.value_label")),
      number("difficulty", 0, 99, t("dc.check.difficulty_label"))),
    h("p", { class: "hint" }, t("dc.check.hint")),
    h("button", {
      type: "submit", class: "primary wide", testid: "check-submit",
      disabled: !picked.length || why !== null || sending(game, "check"),
      title: why ? refusalText(why) : "",
    }, t("dc.check.submit", { count: picked.length })),
    why && h("p", { class: "hint", testid: "check-blocked" }, refusalText(why))),
    list.length > 0 && checkCard(view, list[0], { testid: "check-result" }),
    list.length > 1 && h("details", { class: "older" },
      h("summary", {}, t("dc.check.older", { count: list.length - 1 })),
      list.slice(1).map((check) => checkCard(view, check))));
}

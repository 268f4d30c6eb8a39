// The GM's action picker in a fight: the actions the server offers a combatant (within the
// round's budget), and the forms some of them open first: a change of weapons (which hand,
// stowed or dropped), an item with an effect (a potion), a flight and whom it runs from.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { EFFECT_FIELDS, SheetError, blankWeapon, toWeapon } from "./dice.js";
import { actionsOf, combatantOf, combatantsOf, refusalOf, refusalText, weaponFields, weaponText } from "./common.js";

// What is left of the actor's round, as the server's offers say: a long action, a short one,
// its attacks and its active defence.
function budgetSummary(view, done, c) {
  const fight = view.fight;
  const surprised = fight.round === 1 && fight.surprised.includes(c.combatant_id);
  const id = c.combatant_id;
  const long = refusalOf(view, `act:${id}:other:long`); // offered on its turn only
  const short = refusalOf(view, `act:${id}:other:short`);
  return h("div", { class: "budget", testid: "budget" },
    surprised && h("span", { class: "chip wait" }, t("dc.surprised_no_action")),
    long !== undefined && h("span", { class: `chip ${long === null ? "ok" : ""}` }, t(long === null ? "dc.budget.long_free" : "dc.budget.long_used")),
    short !== undefined && h("span", { class: `chip ${short === null ? "ok" : ""}` }, t(short === null ? "dc.budget.short_free" : "dc.budget.short_used")),
    h("span", { class: "chip" }, t("dc.budget.attacks", { done: done?.attacks ?? 0, of: c.attacks_per_round })),
    h("span", { class: `chip ${done?.active_defence ? "ok" : "wait"}` }, t(done?.active_defence ? "dc.budget.parry_yes" : "dc.budget.parry_no")));
}

// The actions that open a form before they are sent.
const FORMS = {
  change_weapon: (actor, length) => ({ weaponFor: { length, hand: "first", drop: false, weapon: { ...actor.weapon } }, itemFor: null }),
  use_item: (actor, length) => ({
    itemFor: { length, target: actor.combatant_id, heal: "0", treat: false, field: "", by: "1", rounds: "3" }, weaponFor: null,
  }),
};

// The actions the server offers the chosen combatant (all of them on its turn, else speaking),
// each greyed with the server's reason when refused.
export function actionPicker(app, game) {
  const view = game.view;
  const fight = view.fight;
  const ui = app.ui.dice;
  const participants = fight.participants.map((id) => combatantOf(view, id)).filter((c) => c && c.condition === "up");
  const actor = participants.find((c) => c.combatant_id === ui.actor) ?? combatantOf(view, fight.turn) ?? participants[0];
  if (!actor) return h("section", { class: "action-picker" }, h("p", { class: "hint" }, t("dc.act.nobody")));
  const id = actor.combatant_id;
  const done = fight.actions[id];
  const seen = new Set();
  const button = ([action, length, why]) => {
    const first = !seen.has(action);
    seen.add(action);
    return h("button", {
      type: "button", class: `action-button len-${length}`, testid: first ? `action-${action}` : `action-${action}-${length}`,
      disabled: why !== null, title: why ? refusalText(why) : t(`dc.len.${length}`),
      onclick: () => {
        if (FORMS[action]) {
          Object.assign(ui, FORMS[action](actor, length));
          return app.render();
        }
        const command = { type: "act", combatant_id: id, action, length, note: (ui.note || "").trim() };
        ui.note = "";
        return game.send(command);
      },
    }, t(`dc.act.${action}`), h("span", { class: "len" }, t(`dc.len.${length}`)));
  };
  const fleeWhy = refusalOf(view, `flee:${id}`);
  return h("section", { class: "action-picker", testid: "action-picker" },
    h("div", { class: "picker-head" },
      h("h3", {}, t("dc.act.title")),
      h("label", { class: "inline" }, t("dc.act.who"),
        h("select", { testid: "act-actor", onchange: (e) => { ui.actor = e.target.value; app.render(); } },
          participants.map((c) => h("option", { value: c.combatant_id, selected: c.combatant_id === id }, c.name))))),
    budgetSummary(view, done, actor),
    h("div", { class: "action-grid" },
      actionsOf(view, id).map(button),
      fleeWhy !== undefined && h("button", {
        type: "button", class: "action-button len-long", testid: "action-flee", disabled: fleeWhy !== null,
        title: fleeWhy ? refusalText(fleeWhy) : t("dc.act.flee_hint"),
        onclick: () => { ui.fleeOpen = !ui.fleeOpen; app.render(); },
      }, t("dc.act.flee"), h("span", { class: "len" }, t("dc.len.long")))),
    h("label", {}, t("dc.act.note"),
      h("input", { testid: "action-note", value: ui.note || "", maxlength: "200", autocomplete: "off", oninput: (e) => { ui.note = e.target.value; } })),
    ui.weaponFor && weaponForm(app, game, actor),
    ui.itemFor && itemForm(app, game, actor),
    ui.fleeOpen && fleeWhy === null && fleeForm(app, game, actor));
}

// Sends an act from one of the forms, with the note typed above them, and closes the form.
function sendAct(app, game, actor, fields) {
  const ui = app.ui.dice;
  game.send({ type: "act", combatant_id: actor.combatant_id, ...fields, note: (ui.note || "").trim() });
  Object.assign(ui, { weaponFor: null, itemFor: null, note: "" });
  app.render();
}

function cancelButton(app) {
  return h("button", {
    type: "button", class: "secondary", onclick: () => { Object.assign(app.ui.dice, { weaponFor: null, itemFor: null }); app.render(); },
  }, t("cancel"));
}

// A new weapon in one hand: the old one stowed (the round's active defence is spent) or
// dropped (the active defence stays); the second hand may take up a weapon it did not hold.
function weaponForm(app, game, actor) {
  const f = app.ui.dice.weaponFor;
  const held = f.hand === "first" ? actor.weapon : actor.second_weapon;
  const hands = [
    ["first", t("dc.weapon.hand_first", { weapon: weaponText(actor.weapon, { full: false }) })],
    ["second", actor.second_weapon ? t("dc.weapon.hand_second", { weapon: weaponText(actor.second_weapon, { full: false }) }) : t("dc.weapon.take_second")],
  ];
  return h("form", {
    class: "sub-form", testid: "weapon-form",
    onsubmit: (event) => {
      event.preventDefault();
      let weapon;
      try {
        weapon = toWeapon(f.weapon);
      } catch (err) {
        if (!(err instanceof SheetError)) throw err;
        return app.notify(t("dc.weapon.invalid"));
      }
      return sendAct(app, game, actor, { action: "change_weapon", length: f.length, weapon, hand: f.hand, drop: Boolean(held && f.drop) });
    },
  },
  h("h3", {}, t("dc.weapon.title", { name: actor.name })),
  h("label", {}, t("dc.weapon.hand"), h("select", {
    testid: "weapon-hand",
    onchange: (e) => {
      f.hand = e.target.value;
      f.weapon = { ...((f.hand === "first" ? actor.weapon : actor.second_weapon) ?? blankWeapon()) };
      app.render();
    },
  }, hands.map(([hand, label]) => h("option", { value: hand, selected: f.hand === hand }, label)))),
  weaponFields(f.weapon, (field) => `new-weapon-${field}`),
  held && h("label", { class: "check" },
    h("input", { type: "checkbox", testid: "weapon-drop", checked: f.drop, onchange: (e) => { f.drop = e.target.checked; app.render(); } }),
    t("dc.weapon.drop", { weapon: held.name || t("dc.fists") })),
  held && h("p", { class: "hint", testid: "weapon-drop-hint" }, t(f.drop ? "dc.weapon.drop_hint" : "dc.weapon.stow_hint")),
  h("div", { class: "actions" },
    h("button", { type: "submit", class: "primary", testid: "weapon-submit" }, t("dc.weapon.submit")),
    cancelButton(app)));
}

// Whole numbers of the item form within their bounds, or null.
function whole(value, least, most) {
  const n = Number(value);
  return Number.isInteger(n) && n >= least && n <= most ? n : null;
}

// Using an item; it may carry an effect that works when the next round starts: lives restored,
// bleeding treated, a number changed for some rounds. Without one it is a plain action.
function itemForm(app, game, actor) {
  const view = game.view;
  const f = app.ui.dice.itemFor;
  const targets = combatantsOf(view).filter((c) => c.condition !== "dead");
  const number = (key, least, most, label) => h("label", { class: "num" }, label, h("input", {
    type: "number", min: String(least), max: String(most), inputmode: "numeric", testid: `item-${key}`, value: f[key],
    oninput: (e) => { f[key] = e.target.value; },
  }));
  return h("form", {
    class: "sub-form", testid: "item-form",
    onsubmit: (event) => {
      event.preventDefault();
      const heal = whole(f.heal || "0", 0, 999);
      const by = f.field ? whole(f.by, -30, 30) : 0;
      const rounds = f.field ? whole(f.rounds, 1, 20) : 1;
      if (heal === null || by === null || rounds === null) return app.notify(t("dc.item.invalid"));
      const effect = heal > 0 || f.treat || f.field
        ? { target_id: f.target === actor.combatant_id ? null : f.target, heal, treat: Boolean(f.treat), field: f.field || null, by, rounds }
        : null;
      return sendAct(app, game, actor, { action: "use_item", length: f.length, effect });
    },
  },
  h("h3", {}, t("dc.item.title", { name: actor.name })),
  h("p", { class: "hint" }, t("dc.item.hint")),
  h("div", { class: "num-row" },
    h("label", {}, t("dc.item.target"), h("select", { testid: "item-target", onchange: (e) => { f.target = e.target.value; } },
      targets.map((c) => h("option", { value: c.combatant_id, selected: c.combatant_id === f.target }, c.name)))),
    number("heal", 0, 999, t("dc.item.heal"))),
  h("label", { class: "check" },
    h("input", { type: "checkbox", testid: "item-treat", checked: f.treat, onchange: (e) => { f.treat = e.target.checked; } }),
    t("dc.item.treat")),
  h("div", { class: "num-row" },
    h("label", {}, t("dc.item.field"), h("select", { testid: "item-field", onchange: (e) => { f.field = e.target.value; app.render(); } },
      h("option", { value: "", selected: !f.field }, t("dc.item.no_field")),
      EFFECT_FIELDS.map((field) => h("option", { value: field, selected: f.field === field }, t(`dc.field.${field}`))))),
    f.field && number("by", -30, 30, t("dc.item.by")),
    f.field && number("rounds", 1, 20, t("dc.item.rounds"))),
  h("div", { class: "actions" },
    h("button", { type: "submit", class: "primary", testid: "item-submit" }, t("dc.item.submit")),
    cancelButton(app)));
}

function fleeForm(app, game, actor) {
  const view = game.view;
  const ui = app.ui.dice;
  const others = view.fight.participants.map((id) => combatantOf(view, id)).filter((c) => c && c.combatant_id !== actor.combatant_id && c.condition === "up");
  ui.fleeFrom ??= {};
  const from = (c) => ui.fleeFrom[c.combatant_id] ?? c.side !== actor.side;
  const chosen = others.filter(from).map((c) => c.combatant_id);
  return h("div", { class: "sub-form", testid: "flee-form" },
    h("h3", {}, t("dc.flee.title", { name: actor.name })),
    h("p", { class: "hint" }, t("dc.flee.hint")),
    h("div", { class: "checks" }, others.map((c) => h("label", { class: "check" },
      h("input", { type: "checkbox", testid: `flee-opponent-${c.combatant_id}`, checked: from(c), onchange: (e) => { ui.fleeFrom[c.combatant_id] = e.target.checked; app.render(); } }),
      c.name))),
    h("button", {
      type: "button", class: "primary", testid: "flee-submit", disabled: !chosen.length,
      onclick: () => {
        game.send({ type: "flee", combatant_id: actor.combatant_id, opponents: chosen });
        ui.fleeOpen = false;
        ui.fleeFrom = {};
        app.render();
      },
    }, t("dc.flee.submit")));
}

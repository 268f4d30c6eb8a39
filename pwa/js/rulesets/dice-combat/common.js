// dice-combat pieces both the GM's console and a player's phone draw: dice, an attack with its
// rolls and result, the turn order. Every die shown comes from the server's view or events.
import { h } from "../../dom.js";
import { errorText, t } from "../../i18n.js";
import { rows } from "../../keyed.js";
import { WEAPON_NUMBERS } from "./dice.js";

// The view keys combatants, waiting attacks, chases and wounds by id; screens list them as rows
// that carry their id again, in the order they were made.
export const combatantsOf = (view) => rows(view.combatants, "combatant_id");
export const attacksOf = (view) => rows(view.attacks, "attack_id");
export const chasesOf = (view) => rows(view.chases, "chase_id");
export const woundsOf = (c) => rows(c.wounds, "wound_id");

export function combatantOf(view, id) {
  const c = id == null ? null : view.combatants?.[id];
  return c ? { ...c, combatant_id: id } : null;
}

// A member in the GM's `members` (keyed by player id); nobody else's view has them.
export function memberOf(view, playerId) {
  return playerId == null ? null : view.members?.[playerId] ?? null;
}

export function nameOf(view, id) {
  return combatantOf(view, id)?.name ?? id;
}

// Why the server would refuse (or did refuse) something, in this ruleset's words.
export function refusalText(code) {
  return errorText(code, "", "dice-combat");
}

// What the view says its viewer may do (`may`): undefined when the action is not offered now,
// null when it is allowed, else the code of its refusal.
export function refusalOf(view, name) {
  const entry = view.may?.[name];
  if (entry === undefined) return undefined;
  return entry === true ? null : entry.code;
}

// The actions offered to one combatant, in the server's order (each action's usual length
// first): [action, length, refusal code or null].
export function actionsOf(view, id) {
  const prefix = `act:${id}:`;
  return Object.keys(view.may || {}).filter((name) => name.startsWith(prefix)).map((name) => {
    const [action, length] = name.slice(prefix.length).split(":");
    return [action, length, refusalOf(view, name)];
  });
}

export const signed = (n) => (n < 0 ? `−${-n}` : `+${n}`);

// The faces of one exploding d6 (a six rolls again and adds) or of any dice: [6]→[6]→[3].
export function diceFaces(faces, { sides = 6, explode = true } = {}) {
  return h("span", { class: "dice", "aria-label": faces.join(" + ") }, faces.map((face, i) => [
    i > 0 && h("span", { class: "dice-join", "aria-hidden": "true" }, explode && faces[i - 1] === sides ? "➜" : "+"),
    h("span", { class: `die ${face === sides ? "die-max" : ""} ${sides !== 6 ? "die-d10" : ""}` }, String(face)),
  ]));
}

export function livesText(c) {
  return `${c.lives} / ${c.max_lives}`;
}

export function livesBar(c) {
  const share = Math.max(0, Math.min(1, c.lives / Math.max(1, c.max_lives)));
  const level = share > 0.5 ? "ok" : share > 0.25 ? "low" : "bad";
  return h("span", { class: `lives-bar lives-${level}`, "aria-hidden": "true" },
    h("span", { style: `width: ${Math.round(share * 100)}%` }));
}

export function conditionChip(c) {
  if (c.condition === "dead") return h("span", { class: "chip dead" }, t("dc.condition.dead"));
  if (c.condition === "fainted") return h("span", { class: "chip wound" }, t("dc.condition.fainted"));
  return null;
}

export function woundText(w) {
  return w.fixed ? t("dc.wound.fixed", { count: w.fixed }) : t("dc.wound.dice", { count: w.dice });
}

function bonusChip(b) {
  const parts = [];
  if (b.attack) parts.push(t("dc.bonus.attack", { n: signed(b.attack) }));
  if (b.defence) parts.push(t("dc.bonus.defence", { n: signed(b.defence) }));
  return h("span", { class: "chip" }, t(`dc.mod.${b.name}`), " ", parts.join(", "));
}

// One attack: who strikes whom, the numbers, the dice rolled so far, and the result once there.
// `mine` (a set of combatant ids) turns "the attacker" into "you" on a phone.
export function attackCard(view, attack, { testid, mine = new Set(), extra = null } = {}) {
  const who = (id) => (mine.has(id) ? t("dc.you") : nameOf(view, id));
  const rolls = attack.rolls || {};
  const result = attack.result;
  const attackTotal = rolls.attack ? attack.attack_number + rolls.attack.total : null;
  const defenceTotal = attack.defence !== "active" ? attack.defence_number
    : rolls.defence ? attack.defence_number + rolls.defence.total : null;
  const waiting = (part) => h("span", { class: "chip wait" }, t("dc.roll.waiting", { name: who(part === "attack" ? attack.attacker_id : attack.target_id) }));
  return h("div", { class: `attack-card ${result ? (result.hit ? "is-hit" : "is-miss") : "is-pending"}`, testid, "data-attack-id": attack.attack_id },
    h("div", { class: "attack-who" },
      h("strong", {}, who(attack.attacker_id)), h("span", { class: "vs-mark" }, attack.ranged ? " ➶ " : " ⚔ "), h("strong", {}, who(attack.target_id)),
      h("span", { class: "chips" },
        h("span", { class: "chip" }, t(attack.ranged ? "dc.ranged" : "dc.melee")),
        attack.flat && h("span", { class: "chip" }, t("dc.flat")),
        attack.weapon === "second" && h("span", { class: "chip", testid: testid && "attack-second-weapon" }, t("dc.with_second_weapon")),
        attack.defence_weapon === "second" && h("span", { class: "chip" }, t("dc.parry_second_weapon")),
        attack.free && h("span", { class: "chip" }, t("dc.free_attack")))),
    rollLine("attack", t("dc.roll.attack"), t("dc.un", { n: attack.attack_number }), rolls.attack, attackTotal,
      (attack.awaiting || []).includes("attack") && waiting("attack")),
    rollLine("defence", t(`dc.defence.${attack.defence}`), String(attack.defence_number),
      attack.defence === "active" ? rolls.defence : null, defenceTotal,
      (attack.awaiting || []).includes("defence") && waiting("defence")),
    attack.bonuses?.length > 0 && h("div", { class: "chips bonuses" }, attack.bonuses.map(bonusChip)),
    result && resultLine(attack, result, who, mine, Boolean(testid)),
    extra);
}

// "Attack  ÚČ 9 + [6]➜[4]  = 19": the base, the dice (when rolled), the total (when known).
function rollLine(part, label, base, roll, total, wait) {
  return h("div", { class: "roll-line", "data-part": part },
    h("span", { class: "roll-label" }, label),
    h("span", { class: "roll-expr" }, h("span", { class: "roll-base" }, base), roll && ["+", diceFaces(roll.dice)], wait),
    total !== null && h("span", { class: "roll-sum" }, "= ", h("b", { class: "roll-total" }, total)));
}

// The hooks inside (verdict, damage, critical) only on a card that has its own.
function resultLine(attack, result, who, mine, hooks) {
  const hook = (name) => (hooks ? name : null);
  const damage = result.damage;
  const weapon = attack.flat ? 0 : attack.weapon_damage;
  return h("div", { class: "attack-result-line" },
    h("div", { class: `verdict ${result.hit ? "hit" : "miss"}`, testid: hook("attack-verdict") },
      result.hit ? t("dc.hit") : t("dc.miss"),
      " ", h("span", { class: "muted tiny" }, `${result.attack} ${result.hit ? ">" : "≤"} ${result.defence}`)),
    result.hit && h("div", { class: "damage", testid: hook("attack-damage"), "data-damage": String(damage) },
      damage <= 0 ? t("dc.no_damage")
        : mine.has(attack.target_id) ? t("dc.damage_me", { count: damage })
          : t("dc.damage", { name: who(attack.target_id), count: damage }),
      h("span", { class: "muted tiny" }, ` (${result.attack} − ${result.defence} ${signed(weapon)})`)),
    result.critical && h("div", { class: "critical", testid: hook("attack-critical") },
      t(`dc.critical.${result.critical}`)));
}

// The order of the round, the current turn highlighted; `row(id)` adds what the viewer may see.
export function turnOrder(view, { mine = new Set(), row = () => null } = {}) {
  const fight = view.fight;
  const waiting = fight.participants.filter((id) => !fight.order.includes(id));
  const turnIndex = fight.order.indexOf(fight.turn);
  return h("div", { class: "order-box" },
    h("ol", { class: "order", testid: "initiative-order" }, fight.order.map((id, i) => {
      const c = combatantOf(view, id);
      const current = id === fight.turn;
      const surprised = fight.round === 1 && fight.surprised.includes(id);
      const init = fight.initiative[id];
      return h("li", {
        class: `order-row ${current ? "current" : ""} ${i < turnIndex ? "done" : ""} ${mine.has(id) ? "mine" : ""} cond-${c?.condition ?? "up"}`,
        testid: `order-${id}`, "aria-current": current ? "true" : null,
      },
      h("span", { class: "order-pos" }, String(i + 1)),
      h("span", { class: "order-name" }, c?.name ?? id, mine.has(id) ? h("span", { class: "chip ok" }, t("dc.you")) : null),
      h("span", { class: "order-side muted" }, c?.side ?? ""),
      init && h("span", { class: "order-init", title: t("dc.initiative") },
        `${init.total}`, h("span", { class: "muted tiny" }, ` (${init.die}${signed(init.agi)}${init.bonus ? signed(init.bonus) : ""}${init.tiebreak.length ? ` · ${init.tiebreak.join(",")}` : ""})`)),
      h("span", { class: "chips" },
        current && h("span", { class: "chip ok" }, t("dc.on_turn")),
        surprised && h("span", { class: "chip wait" }, t("dc.surprised")),
        c && conditionChip(c)),
      row(id));
    })),
    waiting.length > 0 && h("p", { class: "hint" }, t("dc.joins_next_round", { names: waiting.map((id) => nameOf(view, id)).join(", ") })));
}

export function currentTurn(view, { mine = new Set() } = {}) {
  const fight = view.fight;
  const id = fight.turn;
  return h("div", { class: `turn-now ${mine.has(id) ? "mine" : ""}`, testid: "current-turn", "data-combatant": id ?? "" },
    h("span", { class: "turn-round" }, t("dc.round", { round: fight.round })),
    h("strong", {}, id ? (mine.has(id) ? t("dc.your_turn", { name: nameOf(view, id) }) : t("dc.turn_of", { name: nameOf(view, id) })) : t("dc.no_turn")));
}

// A combatant's numbers: the fight's three and the sheet's main fields, with the GM's console
// showing every field (`full`), and the weapon.
export function numbersGrid(c, { full = false } = {}) {
  const cell = (label, value, title) => h("div", { class: "stat", title }, h("span", { class: "stat-label" }, label), h("b", {}, String(value)));
  const w = c.weapon;
  return h("div", { class: "stats" },
    cell(t("dc.un_short"), c.attack_number, t("dc.attack_number")),
    cell(t("dc.oc_short"), c.defence_number, t("dc.defence_number")),
    cell(t("dc.zo_short"), c.base_defence, t("dc.base_defence")),
    cell(t("dc.field.str"), signed(c.str)),
    cell(t("dc.field.agi"), signed(c.agi)),
    cell(t("dc.field.armour"), c.armour),
    cell(t("dc.field.shield"), c.shield),
    cell(t("dc.field.movement"), c.movement),
    full && [
      cell(t("dc.field.athletics"), c.athletics),
      cell(t("dc.field.endurance"), signed(c.endurance)),
      cell(t("dc.field.stamina"), c.stamina),
      cell(t("dc.field.first_aid"), c.first_aid),
      cell(t("dc.field.attacks_per_round"), c.attacks_per_round),
      cell(t("dc.field.initiative_bonus"), signed(c.initiative_bonus)),
      cell(t("dc.field.size"), c.size),
    ],
    h("div", { class: "stat wide-stat" }, h("span", { class: "stat-label" }, t("dc.field.weapon")),
      h("b", {}, weaponText(w, { full }))),
    c.second_weapon && h("div", { class: "stat wide-stat", testid: `second-weapon-${c.combatant_id}` },
      h("span", { class: "stat-label" }, t("dc.field.second_weapon")),
      h("b", {}, weaponText(c.second_weapon, { full }))));
}

// "Dýka +1 / +2 / +0 · na dálku": a weapon's name and its attack, damage and defence.
export function weaponText(w, { full = true } = {}) {
  return `${w.name || t("dc.fists")} ${signed(w.attack)} / ${signed(w.damage)} / ${signed(w.defence)}`
    + `${full && w.ranged ? ` · ${t("dc.ranged")}` : ""}${full && w.flat_allowed ? ` · ${t("dc.flat")}` : ""}`;
}

// A weapon's inputs (name, numbers, ranged, flat), editing `w` in place: the sheet's two
// weapons and a change of weapons in a fight. `testid(field)` names each input.
export function weaponFields(w, testid) {
  return [
    h("div", { class: "num-row" },
      h("label", {}, t("dc.field.weapon_name"), h("input", {
        testid: testid("name"), value: w.name, maxlength: "40", autocomplete: "off", oninput: (e) => { w.name = e.target.value; },
      })),
      WEAPON_NUMBERS.map(([field, least, most]) => h("label", { class: "num" }, t(`dc.field.weapon_${field}`), h("input", {
        type: "number", min: String(least), max: String(most), inputmode: "numeric", testid: testid(field),
        value: String(w[field]), oninput: (e) => { w[field] = e.target.value; },
      })))),
    h("div", { class: "checks" }, ["ranged", "flat_allowed"].map((field) => h("label", { class: "check" },
      h("input", { type: "checkbox", testid: testid(field), checked: Boolean(w[field]), onchange: (e) => { w[field] = e.target.checked; } }),
      t(`dc.field.${field}`)))),
  ];
}

// What an item does (use_item's effect): "+5 životů, krvácení ošetřeno, SIL +2 na 3 kola".
export function effectText(effect) {
  const parts = [];
  if (effect.heal > 0) parts.push(t("dc.effect.heal", { count: effect.heal }));
  if (effect.treat) parts.push(t("dc.effect.treat"));
  if (effect.field) parts.push(t("dc.effect.change", { field: t(`dc.field.${effect.field}`), by: signed(effect.by), count: effect.rounds }));
  return parts.join(", ");
}

// An action as the log and the replay tell it: the weapon taken up (into which hand, the old one
// dropped), the item's effect and on whom, the GM's note.
export function actionLine(d, who) {
  const parts = [t("dc.log.action", { name: who(d.combatant_id), action: t(`dc.act.${d.action}`), length: t(`dc.len.${d.length}`) })];
  if (d.weapon) parts.push(t(d.hand === "second" ? "dc.log.weapon_second" : "dc.log.weapon", { weapon: weaponText(d.weapon, { full: false }) }));
  if (d.dropped) parts.push(t("dc.log.dropped"));
  if (d.effect) parts.push(t("dc.log.effect", { name: who(d.effect.target_id ?? d.combatant_id), what: effectText(d.effect) }));
  if (d.note) parts.push(d.note);
  return parts.join(" – ");
}

// An item working (item_took_effect) or wearing off (item_wore_off), in words.
export function itemLine(type, d, who) {
  if (type === "item_wore_off") {
    return t("dc.log.item_wore_off", { name: who(d.combatant_id), field: t(`dc.field.${d.field}`), by: signed(d.by) });
  }
  const parts = [];
  if (d.healed > 0) parts.push(t("dc.item.healed", { count: d.healed, lives: d.lives }));
  if (d.wound_ids?.length) parts.push(t("dc.item.treated"));
  if (d.field) parts.push(t("dc.item.changed", { field: t(`dc.field.${d.field}`), by: signed(d.by), round: d.until_round }));
  const what = parts.join(", ") || t("dc.item.no_change");
  return d.target_id === d.combatant_id
    ? t("dc.log.item_took_effect", { name: who(d.target_id), what })
    : t("dc.log.item_took_effect_from", { name: who(d.target_id), user: who(d.combatant_id), what });
}

// "SIL +2 (do kola 5)": a number an item changed, until the start of that round.
export function boostText(b) {
  return t("dc.boost", { field: t(`dc.field.${b.field}`), by: signed(b.by), round: b.until_round });
}

// A combatant's numbers changed by items (already in the numbers shown), and the items that take
// effect on it when the next round starts.
export function itemChips(view, c) {
  const waiting = (view.fight?.used || []).filter((u) => (u.effect.target_id ?? u.combatant_id) === c.combatant_id);
  return [
    ...(c.boosts || []).map((b) => h("span", { class: "chip ok", testid: `boost-${c.combatant_id}-${b.field}` }, boostText(b))),
    ...waiting.map((e) => h("span", { class: "chip wait", testid: `effect-waiting-${c.combatant_id}` },
      t("dc.effect.waiting", { what: effectText(e.effect) }))),
  ];
}

// "Postřeh", "Zkouška dovednosti: Plavání": what a check was of.
function checkTitle(check) {
  const kind = t(`dc.check.${check.kind}`);
  return check.name ? `${kind}: ${check.name}` : kind;
}

// A check in one line: what, how hard, and each total (✓ success, ✗ failure).
export function checkLine(d, who) {
  const rolls = (d.rolls || []).map((r) => `${who(r.combatant_id)} ${r.total} ${r.success ? "✓" : "✗"}`).join(", ");
  return t("dc.log.check", { what: checkTitle(d), difficulty: d.difficulty, rolls });
}

export function fightStartedLine(d) {
  const line = t("dc.log.fight_started", { count: (d.combatants || []).length });
  return d.everyone_surprised ? `${line} – ${t("dc.log.everyone_surprised")}` : line;
}

// One check (perception or a skill): what was checked, and each combatant's dice, total and
// success. `mine` turns a name into "you" on a phone.
export function checkCard(view, check, { mine = new Set(), testid = null } = {}) {
  const sum = (r) => [r.number ? ` ${signed(r.number)}` : "", check.value ? ` ${signed(check.value)}` : "", " = "];
  return h("div", { class: "check-card", testid, "data-check-id": check.check_id },
    h("div", { class: "check-head" },
      h("strong", {}, checkTitle(check)),
      h("span", { class: "chips" },
        check.field && h("span", { class: "chip" }, t(`dc.field.${check.field}`)),
        check.value !== 0 && h("span", { class: "chip" }, t("dc.check.value", { n: signed(check.value) })),
        h("span", { class: "chip" }, t("dc.check.difficulty", { n: check.difficulty })))),
    h("ul", { class: "plain check-rows" }, check.rolls.map((r) => h("li", {
      class: `check-row ${r.success ? "is-success" : "is-failure"}`, testid: `check-row-${r.combatant_id}`,
      "data-total": String(r.total), "data-success": String(r.success),
    },
    h("strong", { class: "check-who" }, mine.has(r.combatant_id) ? t("dc.you") : nameOf(view, r.combatant_id)),
    h("span", { class: "roll-expr" }, diceFaces(r.dice), sum(r), h("b", { class: "roll-total" }, String(r.total))),
    h("span", { class: `chip ${r.success ? "ok" : "wound"}` }, t(r.success ? "dc.check.success" : "dc.check.failure"))))));
}

// The GM's fight: beginning one, the initiative order and the current turn, declaring an attack
// with every modifier and weapon, the dice waiting and rolled, bleeding, items taking effect,
// flight and chases. The action picker is actions.js.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { COVERS, MODIFIERS } from "./dice.js";
import { eventsOf, lastOf, thisRound } from "./dicelog.js";
import {
  attackCard, attacksOf, chasesOf, combatantOf, combatantsOf, currentTurn, diceFaces, itemChips, itemLine, livesText, memberOf, nameOf, refusalOf, refusalText,
  signed, turnOrder, woundsOf,
} from "./common.js";
import { actionPicker } from "./actions.js";
import { sending } from "../../views/common.js";


export function beginFight(app, game) {
  const view = game.view;
  const ui = app.ui.dice;
  const able = combatantsOf(view).filter((c) => c.condition !== "dead");
  ui.picked ??= {};
  ui.surprised ??= {};
  const picked = (id) => ui.picked[id] ?? true;
  const chosen = able.filter((c) => picked(c.combatant_id)).map((c) => c.combatant_id);
  const why = refusalOf(view, "begin_fight");
  return h("section", { class: "begin-fight", testid: "begin-fight-form" },
    h("h2", {}, t("dc.begin.title")),
    !able.length && h("p", { class: "hint" }, t("dc.begin.none")),
    able.length > 0 && h("table", { class: "pick-table" },
      h("thead", {}, h("tr", {}, h("th", {}, t("dc.begin.who")), h("th", {}, t("dc.begin.takes_part")), h("th", {}, t("dc.begin.surprised")))),
      h("tbody", {}, able.map((c) => h("tr", {},
        h("td", {}, h("strong", {}, c.name), " ", h("span", { class: "muted" }, c.side)),
        h("td", {}, h("input", {
          type: "checkbox", class: "big-check", testid: `fight-pick-${c.combatant_id}`, checked: picked(c.combatant_id), "aria-label": t("dc.begin.takes_part"),
          onchange: (e) => { ui.picked[c.combatant_id] = e.target.checked; app.render(); },
        })),
        h("td", {}, h("input", {
          type: "checkbox", class: "big-check", testid: `fight-surprised-${c.combatant_id}`, checked: Boolean(ui.surprised[c.combatant_id]),
          disabled: !picked(c.combatant_id), "aria-label": t("dc.begin.surprised"),
          onchange: (e) => { ui.surprised[c.combatant_id] = e.target.checked; app.render(); },
        })))))),
    h("button", {
      class: "primary wide", testid: "begin-fight", disabled: !chosen.length || why !== null || sending(game, "begin_fight"),
      onclick: () => {
        const surprised = chosen.filter((id) => ui.surprised[id]);
        game.send({ type: "begin_fight", combatants: chosen, surprised });
        ui.surprised = {};
      },
    }, t("dc.begin.submit", { count: chosen.length })),
    why && h("p", { class: "hint", testid: "begin-fight-blocked" },
      view.game.status === "lobby" ? t("dc.begin.start_first") : refusalText(why)));
}

// Form values that belong to one turn are forgotten when the turn moves on.
function turnKey(fight) {
  return `${fight.fight_id}:${fight.round}:${fight.turn}`;
}

export function fightPanel(app, game) {
  const view = game.view;
  const fight = view.fight;
  const ui = app.ui.dice;
  if (ui.turnKey !== turnKey(fight)) {
    Object.assign(ui, { turnKey: turnKey(fight), actor: fight.turn, attacker: fight.turn, target: null, fleeOpen: false, weaponFor: null, itemFor: null, note: "" });
  }
  const nextWhy = refusalOf(view, "next_turn");
  return h("section", { class: "fight", testid: "fight" },
    h("div", { class: "fight-head" },
      h("h2", { testid: "fight-round", "data-round": String(fight.round) }, t("dc.fight.title", { round: fight.round })),
      h("div", { class: "actions" },
        h("button", {
          class: "primary", testid: "next-turn", disabled: nextWhy !== null || sending(game, "next_turn"),
          title: nextWhy ? refusalText(nextWhy) : "",
          onclick: () => game.send({ type: "next_turn" }),
        }, fight.last_turn ? t("dc.fight.next_round") : t("dc.fight.next_turn")),
        ui.confirmEndFight
          ? h("button", {
            class: "danger", testid: "end-fight-confirm", disabled: sending(game, "end_fight"),
            onclick: () => { ui.confirmEndFight = false; game.send({ type: "end_fight" }); },
          }, t("dc.fight.end_confirm"))
          : h("button", {
            class: "secondary", testid: "end-fight", disabled: refusalOf(view, "end_fight") !== null,
            onclick: () => {
              ui.confirmEndFight = true;
              app.render();
              setTimeout(() => { ui.confirmEndFight = false; app.render(); }, 5000);
            },
          }, t("dc.fight.end")))),
    nextWhy && h("p", { class: "hint", testid: "next-turn-blocked" }, refusalText(nextWhy)),
    fight.everyone_surprised && fight.round === 1 && h("div", { class: "banner info", testid: "everyone-surprised" }, t("dc.fight.everyone_surprised")),
    currentTurn(view),
    turnOrder(view, { row: (id) => orderExtra(view, id) }),
    roundBleeding(game),
    roundItems(game),
    flightResult(game),
    freeAttacks(app, view),
    attackForm(app, game),
    pendingAttacks(app, game),
    results(view),
    actionPicker(app, game));
}

function orderExtra(view, id) {
  const c = combatantOf(view, id);
  if (!c || c.lives === undefined) return null;
  const done = view.fight.actions[id];
  return h("span", { class: "order-extra" },
    h("span", { class: "order-lives" }, h("span", { class: "heart" }, "♥"), " ", livesText(c)),
    woundsOf(c).length > 0 && h("span", { class: "chip wound" }, t("dc.bleeding")),
    itemChips(view, c),
    done && budgetText(done, c));
}

function budgetText(done, c) {
  const parts = [];
  if (done.attacks) parts.push(t("dc.budget.attacked", { count: done.attacks, of: c.attacks_per_round }));
  if (done.long && done.long !== "attack") parts.push(t(`dc.act.${done.long}`));
  for (const a of done.shorts) parts.push(t(`dc.act.${a}`));
  for (const a of done.instants) parts.push(t(`dc.act.${a}`));
  if (done.defences) parts.push(t("dc.budget.defended", { count: done.defences }));
  return parts.length ? h("span", { class: "muted tiny" }, parts.join(" · ")) : null;
}

// Bleeding of this round: the wound_bled events since the round started.
function roundBleeding(game) {
  const view = game.view;
  const bled = thisRound(eventsOf(game), view.fight).filter((e) => e.type === "wound_bled");
  const bleeding = combatantsOf(view).filter((c) => woundsOf(c).length);
  if (!bled.length && !bleeding.length) return null;
  return h("div", { class: "round-bleeding", testid: "round-bleeding" },
    h("h3", {}, t("dc.bleed.title", { round: view.fight.round })),
    !bled.length && h("p", { class: "hint" }, t("dc.bleed.none_yet")),
    bled.map((e) => h("div", { class: "bleed-row", testid: `bleed-${e.data.wound_id}` },
      h("strong", {}, nameOf(view, e.data.combatant_id)), " ",
      e.data.dice.length ? diceFaces(e.data.dice, { explode: false }) : null, " ",
      t("dc.bleed.lost", { count: e.data.lost, lives: e.data.lives }))));
}

// Items that took effect or wore off when this round started.
function roundItems(game) {
  const view = game.view;
  const lines = thisRound(eventsOf(game), view.fight).filter((e) => e.type === "item_took_effect" || e.type === "item_wore_off");
  if (!lines.length) return null;
  return h("div", { class: "round-items", testid: "round-items" },
    h("h3", {}, t("dc.item.round_title", { round: view.fight.round })),
    lines.map((e) => h("div", { testid: `${e.type}-${e.data.target_id ?? e.data.combatant_id}` }, itemLine(e.type, e.data, (id) => nameOf(view, id)))));
}

function flightResult(game) {
  const view = game.view;
  const e = lastOf(eventsOf(game), "flight_rolled", (d) => d.fight_id === view.fight.fight_id && d.round === view.fight.round);
  if (!e) return null;
  return h("div", { class: "flight-result", testid: "flight-result" },
    h("h3", {}, t("dc.flee.result", { name: nameOf(view, e.data.combatant_id) })),
    e.data.rolls.map((r) => h("div", {}, h("strong", {}, nameOf(view, r.combatant_id)), " ", diceFaces([r.die], { explode: false }), ` ${signed(r.agi)} = ${r.total}`)),
    h("div", { class: "verdict" }, e.data.escaped ? t("dc.flee.escaped", { name: nameOf(view, e.data.combatant_id) })
      : t("dc.flee.caught", { names: e.data.attacks_first.map((id) => nameOf(view, id)).join(", ") })));
}

// Those who may strike a fleeing combatant now, out of turn.
function freeAttacks(app, view) {
  const entries = Object.entries(view.fight.free_attacks || {}).flatMap(([fleeing, attackers]) => attackers.map((a) => [fleeing, a]));
  if (!entries.length) return null;
  const ui = app.ui.dice;
  return h("div", { class: "free-attacks", testid: "free-attacks" },
    h("h3", {}, t("dc.free.title")),
    entries.map(([fleeing, attacker]) => h("button", {
      type: "button", class: "secondary", testid: `free-attack-${attacker}-${fleeing}`,
      onclick: () => { Object.assign(ui, { attacker, target: fleeing }); app.render(); },
    }, t("dc.free.attack", { attacker: nameOf(view, attacker), fleeing: nameOf(view, fleeing) }))));
}

// An attack's situation as the form starts it: the GM's defaults, both weapons the first.
function freshAttack() {
  return {
    defence: "auto", ranged: "weapon", flat: false, cover: "none", attackers: "1", attack_bonus: "0", defence_bonus: "0",
    weapon: "first", defence_weapon: "first",
  };
}

function attackForm(app, game) {
  const view = game.view;
  const fight = view.fight;
  const ui = app.ui.dice;
  ui.mods ??= {};
  ui.atk ??= freshAttack();
  const a = ui.atk;
  const inFight = fight.participants.map((id) => combatantOf(view, id)).filter(Boolean);
  const attackers = inFight.filter((c) => c.condition === "up");
  const attacker = combatantOf(view, ui.attacker) ?? combatantOf(view, fight.turn) ?? attackers[0];
  if (!attacker) return null;
  const targets = inFight.filter((c) => c.condition !== "dead" && c.combatant_id !== attacker.combatant_id);
  const target = targets.find((c) => c.combatant_id === ui.target)
    ?? targets.find((c) => c.side !== attacker.side && c.condition === "up") ?? targets[0];
  // Each blow and each parry names the weapon it uses, when its combatant holds two.
  const hand = attacker.second_weapon ? a.weapon : "first";
  const parryHand = target?.second_weapon ? a.defence_weapon : "first";
  const weapon = (hand === "second" ? attacker.second_weapon : attacker.weapon) ?? {};
  const ranged = a.ranged === "weapon" ? Boolean(weapon.ranged) : a.ranged === "ranged";
  const free = target && (fight.free_attacks?.[target.combatant_id] || []).includes(attacker.combatant_id);
  const why = refusalOf(view, free ? `free_attack:${attacker.combatant_id}:${target.combatant_id}` : `attack:${attacker.combatant_id}`);
  const targetDone = target && fight.actions[target.combatant_id];
  const check = (name, label, attrs = {}) => h("label", { class: `check mod ${ui.mods[name] ? "on" : ""}` },
    h("input", { type: "checkbox", testid: `modifier-${name}`, checked: Boolean(ui.mods[name]), onchange: (e) => { ui.mods[name] = e.target.checked; app.render(); }, ...attrs }),
    label);
  const select = (key, testid, options, label) => h("label", {}, label,
    h("select", { testid, onchange: (e) => { a[key] = e.target.value; app.render(); } },
      options.map(([value, text]) => h("option", { value, selected: a[key] === value }, text))));
  const number = (key, testid, label) => h("label", { class: "num" }, label,
    h("input", { type: "number", min: "-30", max: "30", inputmode: "numeric", testid, value: a[key], oninput: (e) => { a[key] = e.target.value; } }));
  const base = (ranged ? attacker.agi : attacker.str) + (weapon.attack ?? 0);
  // The view's OČ is with the first weapon: a parry with the second swaps the weapon's defence.
  const parry = target && (parryHand === "second" ? target.defence_number - target.weapon.defence + target.second_weapon.defence : target.defence_number);
  const weaponChoice = (key, testid, c, label) => c?.second_weapon && h("label", {}, label,
    h("select", { testid, onchange: (e) => { a[key] = e.target.value; app.render(); } },
      [["first", c.weapon], ["second", c.second_weapon]].map(([value, w]) => h("option", { value, selected: a[key] === value }, w.name || t("dc.fists")))));
  return h("section", { class: "attack-form", testid: "attack-form" },
    h("h3", {}, t("dc.attack.title")),
    h("div", { class: "num-row" },
      h("label", {}, t("dc.attack.attacker"),
        h("select", { testid: "attack-attacker", onchange: (e) => { ui.attacker = e.target.value; app.render(); } },
          attackers.map((c) => h("option", { value: c.combatant_id, selected: c.combatant_id === attacker.combatant_id }, c.name)))),
      h("label", {}, t("dc.attack.target"),
        h("select", { testid: "attack-target", onchange: (e) => { ui.target = e.target.value; app.render(); } },
          targets.map((c) => h("option", { value: c.combatant_id, selected: c.combatant_id === target?.combatant_id }, `${c.name} (${c.side})`)))),
      select("ranged", "attack-ranged", [["weapon", t("dc.attack.as_weapon")], ["melee", t("dc.melee")], ["ranged", t("dc.ranged")]], t("dc.attack.kind")),
      select("defence", "attack-defence", ["auto", "active", "passive"].map((d) => [d, t(`dc.attack.defence_${d}`)]), t("dc.attack.defence")),
      weaponChoice("weapon", "attack-weapon", attacker, t("dc.attack.weapon")),
      weaponChoice("defence_weapon", "attack-defence-weapon", target, t("dc.attack.defence_weapon"))),
    h("p", { class: "hint attack-numbers" },
      t("dc.attack.numbers", {
        un: base, weapon: weapon.name || t("dc.fists"),
        zo: target?.base_defence ?? "?", oc: target ? (ranged ? target.base_defence + target.shield : parry) : "?",
      }),
      target && targetDone && " · ", target && targetDone && t(targetDone.active_defence ? "dc.attack.can_parry" : "dc.attack.cannot_parry", { name: target.name })),
    h("div", { class: "mod-grid" },
      MODIFIERS.map(([name, atk, def]) => check(name, [t(`dc.mod.${name}`), h("span", { class: "muted tiny" }, atk || def ? ` ${atk ? signed(atk) : signed(def)}` : "")], {
        disabled: name === "close_range" && !ranged,
      })),
      h("label", { class: `check mod ${a.flat ? "on" : ""}` },
        h("input", { type: "checkbox", testid: "modifier-flat", checked: Boolean(a.flat), disabled: !weapon.flat_allowed, onchange: (e) => { a.flat = e.target.checked; app.render(); } }),
        t("dc.flat"))),
    h("div", { class: "num-row" },
      select("cover", "modifier-cover", COVERS.map((c) => [c, t(`dc.cover.${c}`)]), t("dc.attack.cover")),
      select("attackers", "modifier-outnumbered", [["1", t("dc.attack.alone")], ["2", "2 (−2)"], ["3", "3 (−3)"]], t("dc.attack.outnumbered")),
      number("attack_bonus", "modifier-attack-bonus", t("dc.attack.gm_attack")),
      number("defence_bonus", "modifier-defence-bonus", t("dc.attack.gm_defence"))),
    free && h("p", { class: "chip ok" }, t("dc.free_attack")),
    why && h("p", { class: "hint", testid: "attack-blocked" }, refusalText(why)),
    h("button", {
      class: "primary wide", testid: "attack-declare", disabled: why !== null || !target || sending(game, "attack"),
      onclick: () => {
        const bonus = (v) => Math.max(-30, Math.min(30, Number.parseInt(v, 10) || 0));
        const command = {
          type: "attack", attacker_id: attacker.combatant_id, target_id: target.combatant_id,
          flat: Boolean(a.flat), defence: a.defence, weapon: hand, defence_weapon: parryHand,
          modifiers: MODIFIERS.map(([name]) => name).filter((name) => ui.mods[name] && (name !== "close_range" || ranged)),
          cover: a.cover, attackers: Number(a.attackers), attack_bonus: bonus(a.attack_bonus), defence_bonus: bonus(a.defence_bonus),
        };
        if (a.ranged !== "weapon") command.ranged = ranged;
        game.send(command);
        // The situation is this attack's: the next one starts clean.
        ui.mods = {};
        ui.atk = freshAttack();
        app.render();
      },
    }, t("dc.attack.declare")));
}

function pendingAttacks(app, game) {
  const view = game.view;
  const pending = attacksOf(view);
  if (!pending.length) return null;
  return h("section", { class: "pending-attacks", testid: "pending-attacks" },
    h("h3", {}, t("dc.pending.title", { count: pending.length })),
    pending.map((attack) => attackCard(view, attack, {
      testid: `attack-${attack.attack_id}`,
      extra: h("div", { class: "actions" },
        attack.awaiting.map((part) => {
          const roller = combatantOf(view, part === "attack" ? attack.attacker_id : attack.target_id);
          const player = memberOf(view, roller?.player_id);
          const why = refusalOf(view, `roll:${attack.attack_id}:${part}`);
          return h("button", {
            class: "secondary", testid: `gm-roll-${part}-${attack.attack_id}`,
            disabled: why !== null || sending(game, "roll", { attack_id: attack.attack_id, part: part }),
            title: why ? refusalText(why) : t("dc.pending.gm_roll_hint"),
            onclick: () => game.send({ type: "roll", attack_id: attack.attack_id, part }),
          }, t(`dc.pending.gm_roll_${part}`), player ? h("span", { class: "muted tiny" }, ` (${t("dc.pending.for", { name: player.name })})`) : null);
        }),
        h("button", {
          class: "secondary", testid: `cancel-attack-${attack.attack_id}`,
          disabled: refusalOf(view, `cancel_attack:${attack.attack_id}`) !== null || sending(game, "cancel_attack", { attack_id: attack.attack_id }),
          onclick: () => game.send({ type: "cancel_attack", attack_id: attack.attack_id }),
        }, t("dc.pending.cancel"))),
    })));
}

function results(view) {
  if (!view.recent.length) return null;
  const [newest, ...older] = [...view.recent].reverse();
  return h("section", { class: "results" },
    h("h3", {}, t("dc.results.last")),
    attackCard(view, newest, { testid: "attack-result" }),
    older.length > 0 && h("details", { class: "older" },
      h("summary", {}, t("dc.results.older", { count: older.length })),
      older.map((attack) => attackCard(view, attack))));
}

export function chases(app, game) {
  const view = game.view;
  const ui = app.ui.dice;
  const up = combatantsOf(view).filter((c) => c.condition === "up");
  ui.chase ??= { fleeing: "", chaser: "", lead: "5" };
  const f = ui.chase;
  const fleeing = up.find((c) => c.combatant_id === f.fleeing) ?? up[0];
  const chaser = up.find((c) => c.combatant_id === f.chaser && c !== fleeing) ?? up.find((c) => c !== fleeing && c.side !== fleeing?.side) ?? up.find((c) => c !== fleeing);
  const events = eventsOf(game);
  return h("section", { class: "chases", testid: "chases" },
    h("h2", {}, t("dc.chase.title")),
    chasesOf(view).map((chase) => {
      const rolled = lastOf(events, "chase_rolled", (d) => d.chase_id === chase.chase_id);
      const runWhy = refusalOf(view, `chase_round:${chase.chase_id}`);
      const run = (r) => [h("strong", {}, nameOf(view, r.combatant_id)), " ", diceFaces([r.die], { sides: 10, explode: false }), ` ${signed(r.movement)} ${signed(r.athletics)} = ${r.total}`];
      return h("div", { class: "chase-row", testid: `chase-${chase.chase_id}` },
        h("div", {}, t("dc.chase.who", { fleeing: nameOf(view, chase.fleeing_id), chaser: nameOf(view, chase.chaser_id) })),
        h("div", { class: "chase-lead" }, t("dc.chase.lead"), " ", h("b", { testid: "chase-lead", "data-lead": String(chase.lead) }, String(chase.lead)), " ", t("dc.chase.unit", { count: chase.lead }),
          " · ", t("dc.chase.round", { round: chase.round })),
        rolled && h("div", { class: "chase-roll" },
          h("div", {}, run(rolled.data.fleeing)), h("div", {}, run(rolled.data.chaser)),
          h("div", { class: "muted" }, t("dc.chase.lead_change", { before: rolled.data.lead_before, after: rolled.data.lead, count: rolled.data.lead }))),
        h("div", { class: "actions" },
          h("button", {
            class: "primary", testid: "chase-round", title: runWhy ? refusalText(runWhy) : "",
            disabled: runWhy !== null || sending(game, "chase_round", { chase_id: chase.chase_id }),
            onclick: () => game.send({ type: "chase_round", chase_id: chase.chase_id }),
          }, t("dc.chase.run")),
          h("button", {
            class: "secondary", testid: "chase-end", disabled: refusalOf(view, `end_chase:${chase.chase_id}`) !== null,
            onclick: () => game.send({ type: "end_chase", chase_id: chase.chase_id }),
          }, t("dc.chase.end"))));
    }),
    chaseEnded(view, events),
    up.length >= 2 && h("h3", { class: "chase-new" }, t("dc.chase.new")),
    up.length >= 2 && h("div", { class: "num-row chase-start" },
      h("label", {}, t("dc.chase.fleeing"), h("select", { testid: "chase-fleeing", onchange: (e) => { f.fleeing = e.target.value; app.render(); } },
        up.map((c) => h("option", { value: c.combatant_id, selected: c === fleeing }, c.name)))),
      h("label", {}, t("dc.chase.chaser"), h("select", { testid: "chase-chaser", onchange: (e) => { f.chaser = e.target.value; app.render(); } },
        up.filter((c) => c !== fleeing).map((c) => h("option", { value: c.combatant_id, selected: c === chaser }, c.name)))),
      h("label", { class: "num" }, t("dc.chase.lead_start"), h("input", {
        type: "number", min: "0", max: "1000", inputmode: "numeric", testid: "chase-lead-input", value: f.lead, oninput: (e) => { f.lead = e.target.value; },
      })),
      h("button", {
        class: "secondary", testid: "start-chase", disabled: !fleeing || !chaser || refusalOf(view, "start_chase") !== null,
        onclick: () => {
          const lead = Math.max(0, Math.min(1000, Number.parseInt(f.lead, 10) || 0));
          game.send({ type: "start_chase", fleeing_id: fleeing.combatant_id, chaser_id: chaser.combatant_id, lead });
        },
      }, t("dc.chase.start"))));
}

function chaseEnded(view, events) {
  const ended = lastOf(events, "chase_ended");
  if (!ended || view.chases?.[ended.data.chase_id]) return null;
  const started = lastOf(events, "chase_started", (d) => d.chase_id === ended.data.chase_id);
  if (!started) return null;
  return h("p", { class: "hint", testid: "chase-ended" }, t(`dc.chase.ended_${ended.data.reason}`, {
    fleeing: nameOf(view, started.data.fleeing_id), chaser: nameOf(view, started.data.chaser_id),
  }));
}

// A player's phone in a dice-combat game: their own character (numbers, both weapons, lives,
// wounds, items in force), the turn order, their checks, and a big button to roll their own
// attack or defence when the GM has declared one.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { alarm } from "../../alerts.js";
import {
  attackCard, attacksOf, checkCard, combatantsOf, conditionChip, currentTurn, itemChips, livesBar, livesText, nameOf, numbersGrid, refusalOf, refusalText,
  turnOrder, woundText, woundsOf,
} from "./common.js";
import { gameOver } from "../../views/common.js";

// The phone stays awake while one of its combatants takes part in a fight.
export function diceNeedsAwake(view) {
  return Boolean(view?.me?.role === "player" && view.fight && Object.values(view.combatants || {}).some((c) => c.mine && c.in_fight));
}

// The first roll the view offers this phone: [attack, part, refusal] (`may`: roll:<attack>:<part>).
export function myRoll(view) {
  for (const name of Object.keys(view.may || {})) {
    const [kind, attackId, part] = name.split(":");
    const attack = kind === "roll" && attacksOf(view).find((a) => a.attack_id === attackId);
    if (attack) return [attack, part, refusalOf(view, name)];
  }
  return null;
}

let rang = null; // the roll the phone last buzzed for

export function dicePlayerScreen(app, game) {
  const view = game.view;
  const { me, game: info } = view;
  const own = combatantsOf(view).filter((c) => c.mine);
  const mine = new Set(own.map((c) => c.combatant_id));
  const owed = myRoll(view);
  const key = owed ? `${owed[0].attack_id}:${owed[1]}` : null;
  if (key && key !== rang) alarm(); // the GM declared: buzz the phone in the pocket
  rang = key;
  // The newest result goes on top until the player has seen it (OK, or the next roll).
  const results = [...(view.recent || [])].reverse().filter((a) => mine.has(a.attacker_id) || mine.has(a.target_id));
  // Not on opening the app (only results that come while it is open), and not once a new roll is due.
  if (owed || !("seenResult" in app.ui)) app.ui.seenResult = results[0]?.attack_id ?? null;
  const fresh = results[0] && results[0].attack_id !== app.ui.seenResult ? results[0] : null;
  return h("main", { class: "dice-player", testid: "dice-player" },
    h("h1", { class: "dc-title" }, info.name || t("dc.ruleset")),
    info.status === "lobby" && h("div", { class: "banner info", testid: "lobby-banner" }, t("game.lobby")),
    info.status === "ended" && gameOver(game, { mine: own.length ? own.map(outcome) : null, result: standing(view) }),
    owed && rollPrompt(app, game, owed, mine),
    !owed && waitingFor(view, mine),
    !owed && fresh && freshResult(app, view, fresh, mine),
    !own.length && me && h("section", { class: "me", testid: "no-combatant" },
      h("div", { class: "me-name", testid: "my-name" }, me.name),
      h("div", { class: "code", testid: "my-code" }, me.code),
      h("p", { class: "hint" }, t("dc.player.no_combatant"))),
    own.map((c) => myCombatant(view, c, Boolean(owed))),
    myChecks(view, mine),
    view.fight && h("section", { class: "turns" },
      currentTurn(view, { mine }),
      turnOrder(view, { mine })),
    lastResults(results, fresh, view, mine),
    others(view, mine));
}

// The end of the story for one of mine: standing (with its lives), unconscious or dead.
function outcome(c) {
  const words = { up: "dc.over.up", fainted: "dc.over.fainted", dead: "dc.over.dead" };
  return h("span", { class: `dc-outcome cond-${c.condition}`, testid: `outcome-${c.combatant_id}` },
    t(words[c.condition] ?? "dc.over.up", { name: c.name, lives: c.lives, max: c.max_lives }));
}

// The game's result: who is still standing, with their sides.
function standing(view) {
  const up = combatantsOf(view).filter((c) => c.condition === "up");
  if (!up.length) return t("dc.over.nobody");
  return t("dc.over.standing", { names: up.map((c) => `${c.name} (${c.side})`).join(", ") });
}

function rollPrompt(app, game, [attack, part, why], mine) {
  const view = game.view;
  const rolling = game.inFlight().some((c) => c.type === "roll" && c.attack_id === attack.attack_id && c.part === part);
  const unsent = game.queued.some((e) => e.command.type === "roll" && e.command.attack_id === attack.attack_id);
  const other = part === "attack" ? attack.target_id : attack.attacker_id;
  return h("section", { class: `roll-prompt part-${part}`, testid: "roll-prompt" },
    h("div", { class: "roll-title" }, t(part === "attack" ? "dc.player.you_attack" : "dc.player.you_defend", { name: nameOf(view, other) })),
    h("button", {
      class: "primary roll-button", testid: part === "attack" ? "roll-attack" : "roll-defence", disabled: rolling || why !== null,
      title: why ? refusalText(why) : "",
      onclick: () => {
        if (app.ui.rolling) return; // a second tap before the command is in the outbox
        app.ui.rolling = true;
        game.send({ type: "roll", attack_id: attack.attack_id, part }).finally(() => { app.ui.rolling = false; });
      },
    }, rolling ? t("dc.player.rolling") : t(part === "attack" ? "dc.player.roll_attack" : "dc.player.roll_defence")),
    unsent && h("div", { class: "chip wait" }, t("duel.pick_unsent")),
    attackCard(view, attack, { mine, testid: "my-attack" }));
}

// An attack involving me that waits for someone else's dice.
function waitingFor(view, mine) {
  const attack = attacksOf(view).find((a) => mine.has(a.attacker_id) || mine.has(a.target_id));
  if (!attack) return null;
  return h("section", { class: "roll-wait", testid: "roll-wait" },
    h("div", { class: "chip wait big-chip" }, t("dc.player.waiting_other")),
    attackCard(view, attack, { mine, testid: "my-attack" }));
}

function myCombatant(view, c, owes) {
  const turn = view.fight?.turn === c.combatant_id;
  const items = itemChips(view, c);
  return h("section", { class: `my-combatant cond-${c.condition} ${turn ? "on-turn" : ""}`, testid: `my-combatant-${c.combatant_id}` },
    h("div", { class: "my-head" },
      h("div", {}, h("div", { class: "me-name" }, c.name), h("div", { class: "muted" }, c.side)),
      conditionChip(c)),
    c.condition === "dead" && h("div", { class: "banner dead", testid: "dead-banner" }, h("strong", {}, t("dc.player.dead"))),
    c.condition === "fainted" && h("div", { class: "banner wound", testid: "fainted-banner" }, h("strong", {}, t("dc.player.fainted"))),
    h("div", { class: "big-lives" },
      h("span", { class: "heart", "aria-hidden": "true" }, "♥"),
      h("span", { testid: `combatant-lives-${c.combatant_id}`, "data-lives": String(c.lives) }, livesText(c)),
      livesBar(c)),
    woundsOf(c).length > 0 && h("div", { class: "banner wound", testid: "my-wounds" },
      h("strong", {}, t("dc.bleeding_caps")),
      woundsOf(c).map((wound) => h("span", {}, woundText(wound)))),
    numbersGrid(c),
    items.length > 0 && h("div", { class: "chips" }, items),
    c.sprint && h("p", { class: "hint" }, t("dc.sprint", { used: c.sprint.used, rounds: c.sprint.rounds, count: c.sprint.rounds })),
    view.fight && c.in_fight && view.fight.actions[c.combatant_id] && !owes && h("p", { class: "hint" },
      t(view.fight.actions[c.combatant_id].active_defence ? "dc.budget.parry_yes" : "dc.budget.parry_no")));
}

// The checks my combatants rolled (the view holds only their rows), the newest first.
function myChecks(view, mine) {
  const [newest, ...older] = [...(view.checks || [])].reverse();
  if (!newest) return null;
  return h("section", { class: "results", testid: "my-checks" },
    h("h2", {}, t("dc.check.mine")),
    checkCard(view, newest, { mine, testid: "my-check" }),
    older.length > 0 && h("details", { class: "older" },
      h("summary", {}, t("dc.check.older", { count: older.length })),
      older.map((check) => checkCard(view, check, { mine }))));
}

function freshResult(app, view, attack, mine) {
  return h("section", { class: "results fresh-result" },
    attackCard(view, attack, { mine, testid: "attack-result" }),
    h("button", { class: "primary wide", testid: "result-ok", onclick: () => app.set({ seenResult: attack.attack_id }) }, t("reveal.ok")));
}

function lastResults(results, fresh, view, mine) {
  const [newest, ...older] = fresh ? results.slice(1) : results;
  if (!newest && !older.length) return null;
  return h("section", { class: "results" },
    h("h2", {}, fresh ? t("dc.results.earlier") : t("dc.results.last")),
    newest && attackCard(view, newest, { mine, testid: fresh ? null : "attack-result" }),
    older.length > 0 && h("details", { class: "older" },
      h("summary", {}, t("dc.results.older", { count: older.length })),
      older.map((attack) => attackCard(view, attack, { mine }))));
}

// Everybody else at the table: names, sides and whether they are up.
function others(view, mine) {
  const list = combatantsOf(view).filter((c) => !mine.has(c.combatant_id));
  if (!list.length) return null;
  return h("details", { class: "players-list" },
    h("summary", {}, t("dc.player.others", { count: list.length })),
    h("ul", {}, list.map((c) => h("li", {}, h("strong", {}, c.name), " ", h("span", { class: "muted" }, c.side), " ", conditionChip(c),
      c.in_fight ? h("span", { class: "chip" }, t("dc.in_fight")) : null))));
}

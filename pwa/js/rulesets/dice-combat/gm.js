// The GM's console of a dice-combat game (the organizer): players and their QR invites,
// combatants from character sheets, checks, the fight, chases, care, corrections and the log.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { COMBATANT_FIELDS, SheetError, download, fieldValue, fileName, remember, sheetsJson, toSheet } from "./dice.js";
import { eventsOf, syncLog } from "./dicelog.js";
import {
  actionLine, chasesOf, checkLine, combatantOf, combatantsOf, conditionChip, diceFaces, fightStartedLine, itemChips, itemLine, livesBar, livesText,
  memberOf, nameOf, numbersGrid, refusalOf, refusalText, signed, woundText, woundsOf,
} from "./common.js";
import { checks } from "./checks.js";
import { gameHead, gmPlayers, seedSection, sending } from "../../views/common.js";
import { beginFight, chases, fightPanel } from "./fight.js";
import { playerChoices, sheetEditor } from "./sheets.js";

export function diceGmScreen(app, game) {
  app.ui.dice ??= {};
  syncLog(game, app.render);
  const view = game.view;
  return h("main", { class: "dice-gm", testid: "dice-gm" },
    head(app, game),
    h("div", { class: "gm-columns" },
      h("div", { class: "gm-main" },
        view.fight ? fightPanel(app, game) : view.game.status !== "ended" && beginFight(app, game),
        checks(app, game),
        chases(app, game),
        log(game)),
      h("div", { class: "gm-side" },
        roster(app, game),
        sheetEditor(app, game),
        correction(app, game),
        players(app, game),
        seedSection(view))));
}

function head(app, game) {
  return gameHead(app, game, {
    ui: app.ui.dice,
    chips: [t("dc.ruleset"), game.view.game.config?.initiative_once && t("dc.initiative_once")],
  });
}


function roster(app, game) {
  const view = game.view;
  const ui = app.ui.dice;
  const list = combatantsOf(view);
  return h("section", { class: "roster", testid: "combatants" },
    h("h2", {}, t("dc.roster.title", { count: list.length })),
    !list.length && h("p", { class: "hint" }, t("dc.roster.none")),
    list.map((c) => {
      const open = ui.openCombatant === c.combatant_id;
      const player = memberOf(view, c.player_id);
      return h("div", { class: `prow cond-${c.condition}`, testid: `combatant-${c.combatant_id}` },
        h("button", {
          class: "prow-head", testid: `combatant-open-${c.combatant_id}`, "aria-expanded": String(open),
          onclick: () => { ui.openCombatant = open ? null : c.combatant_id; app.render(); },
        },
        h("span", { class: "pname" }, c.name),
        h("span", { class: "muted" }, c.side),
        h("span", { class: "dc-lives" }, h("span", { class: "heart" }, "♥"), h("b", { testid: `combatant-lives-${c.combatant_id}`, "data-lives": String(c.lives) }, livesText(c)), livesBar(c)),
        h("span", { class: "chips" },
          conditionChip(c),
          woundsOf(c).length > 0 && h("span", { class: "chip wound" }, t("dc.bleeding")),
          c.in_fight && h("span", { class: "chip ok" }, t("dc.in_fight")),
          itemChips(view, c),
          player && h("span", { class: "chip" }, t("dc.played_by", { name: player.name })))),
        open && combatantDetail(app, game, c));
    }));
}


function combatantDetail(app, game, c) {
  const view = game.view;
  const ui = app.ui.dice;
  const id = c.combatant_id;
  const fight = view.fight;
  ui.stopReason ??= {};
  ui.healer ??= {};
  const healers = combatantsOf(view).filter((x) => x.condition === "up");
  const healer = healers.find((x) => x.combatant_id === ui.healer[id]) ?? healers.find((x) => x.combatant_id === fight?.turn) ?? healers[0];
  const healerBusy = healer && refusalOf(view, `first_aid:${healer.combatant_id}`);
  return h("div", { class: "prow-detail" },
    numbersGrid(c, { full: true }),
    woundsOf(c).length > 0 && h("ul", { class: "wounds" }, woundsOf(c).map((w) => h("li", {}, t("dc.wound.label"), " ", woundText(w), w.cannot_kill ? ` · ${t("dc.wound.cannot_kill")}` : ""))),
    c.sprint && h("p", { class: "hint" }, t("dc.sprint", { used: c.sprint.used, rounds: c.sprint.rounds, count: c.sprint.rounds })),
    h("div", { class: "actions" },
      h("label", { class: "inline" }, t("dc.link.label"), playerChoices(view, c.player_id, {
        testid: `link-${id}`,
        onchange: (e) => game.send({ type: "link_player", combatant_id: id, player_id: e.target.value || null }),
      })),
      refusalOf(view, `join_fight:${id}`) !== undefined && h("button", {
        class: "secondary", testid: `join-fight-${id}`, disabled: refusalOf(view, `join_fight:${id}`) !== null || sending(game, "join_fight", { combatant_id: id }),
        onclick: () => game.send({ type: "join_fight", combatant_id: id }),
      }, t("dc.join_fight")),
      refusalOf(view, `rest:${id}`) !== undefined && h("button", {
        class: "secondary", testid: `rest-${id}`, disabled: refusalOf(view, `rest:${id}`) !== null, onclick: () => game.send({ type: "rest", combatant_id: id }),
      }, t("dc.rest")),
      h("button", {
        class: "secondary", testid: `save-sheet-${id}`,
        onclick: () => {
          try {
            const sheet = toSheet(c);
            remember([sheet]);
            download(fileName(sheet.name), sheetsJson([sheet]));
            app.render();
          } catch (err) {
            if (!(err instanceof SheetError)) throw err;
            app.notify(t("dc.sheets.bad_sheet", { problem: err.message }));
          }
        },
      }, t("dc.sheets.save"))),
    woundsOf(c).length > 0 && c.condition !== "dead" && h("div", { class: "care" },
      h("div", { class: "care-row" },
        h("label", { class: "inline" }, t("dc.aid.healer"),
          h("select", { testid: `first-aid-healer-${id}`, onchange: (e) => { ui.healer[id] = e.target.value; app.render(); } },
            healers.map((x) => h("option", { value: x.combatant_id, selected: x === healer }, x.name)))),
        h("button", {
          class: "primary", testid: `first-aid-${id}`, disabled: !healer || healerBusy !== null,
          title: healerBusy ? refusalText(healerBusy) : t("dc.aid.hint"),
          onclick: () => game.send({ type: "first_aid", healer_id: healer.combatant_id, patient_id: id }),
        }, t("dc.aid.submit"))),
      h("div", { class: "care-row" },
        h("input", {
          testid: `stop-reason-${id}`, value: ui.stopReason[id] ?? "", maxlength: "200", placeholder: t("dc.stop.reason"), "aria-label": t("dc.stop.reason"),
          oninput: (e) => { ui.stopReason[id] = e.target.value; },
        }),
        h("button", {
          class: "secondary", testid: `stop-bleeding-${id}`, disabled: refusalOf(view, `stop_bleeding:${id}`) !== null,
          onclick: () => {
            const reason = (ui.stopReason[id] ?? "").trim();
            if (!reason) return app.notify(t("dc.stop.need_reason"));
            ui.stopReason[id] = "";
            return game.send({ type: "stop_bleeding", combatant_id: id, reason });
          },
        }, t("dc.stop.submit")))),
    // Outside the care block: a successful first aid stops the bleeding, and with it the block.
    firstAidResult(game, id));
}

function firstAidResult(game, patientId) {
  const events = eventsOf(game);
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i];
    if (e.type !== "first_aid_rolled" || e.data.patient_id !== patientId) continue;
    const d = e.data;
    return h("div", { class: "aid-result", testid: `first-aid-result-${patientId}` },
      nameOf(game.view, d.healer_id), ": ", diceFaces(d.dice), ` ${signed(d.agi)} ${signed(d.skill)} = ${d.total} `,
      h("b", {}, d.success ? t("dc.aid.success") : t("dc.aid.failed", { needed: d.needed })));
  }
  return null;
}

function correction(app, game) {
  const view = game.view;
  const ui = app.ui.dice;
  ui.fix ??= { target: "", field: "lives", value: "", reason: "" };
  const f = ui.fix;
  const targets = [
    ...combatantsOf(view).map((c) => [c.combatant_id, c.name]),
    ...chasesOf(view).map((ch) => [ch.chase_id, t("dc.chase.name", { fleeing: nameOf(view, ch.fleeing_id), chaser: nameOf(view, ch.chaser_id) })]),
  ];
  if (!targets.length) return null;
  if (!targets.some(([id]) => id === f.target)) f.target = targets[0][0];
  const chase = view.chases?.[f.target];
  const fields = chase ? ["lead"] : COMBATANT_FIELDS;
  if (!fields.includes(f.field)) f.field = fields[0];
  const current = chase ? chase.lead : fieldValue(view, combatantOf(view, f.target), f.field);
  const refill = () => { f.value = ""; app.render(); };
  return h("section", { class: "correction" },
    h("h2", {}, t("dc.fix.title")),
    h("form", {
      class: "num-row", testid: "correct-form",
      onsubmit: (event) => {
        event.preventDefault();
        const value = Number.parseInt(f.value === "" ? current : f.value, 10);
        const reason = f.reason.trim();
        if (!Number.isInteger(value) || value < -999 || value > 999) return app.notify(t("dc.fix.bad_value"));
        if (!reason) return app.notify(t("dc.fix.need_reason"));
        game.send({ type: "correct", [chase ? "chase_id" : "combatant_id"]: f.target, field: f.field, value, reason });
        Object.assign(f, { value: "", reason: "" });
        return app.render();
      },
    },
    h("label", {}, t("dc.fix.target"), h("select", { testid: "correct-target", onchange: (e) => { f.target = e.target.value; refill(); } },
      targets.map(([id, name]) => h("option", { value: id, selected: id === f.target }, name)))),
    h("label", {}, t("dc.fix.field"), h("select", { testid: "correct-field", onchange: (e) => { f.field = e.target.value; refill(); } },
      fields.map((field) => h("option", { value: field, selected: field === f.field }, t(`dc.field.${field}`))))),
    h("label", { class: "num" }, t("dc.fix.value", { now: current ?? "–" }), h("input", {
      type: "number", min: "-999", max: "999", inputmode: "numeric", testid: "correct-value", value: f.value, placeholder: current === null ? "" : String(current),
      oninput: (e) => { f.value = e.target.value; },
    })),
    h("label", {}, t("dc.fix.reason"), h("input", {
      testid: "correct-reason", value: f.reason, maxlength: "200", autocomplete: "off", placeholder: t("dc.fix.reason_hint"),
      oninput: (e) => { f.reason = e.target.value; },
    })),
    h("button", { type: "submit", class: "primary", testid: "correct-submit", disabled: refusalOf(view, "correct") !== null || sending(game, "correct") }, t("dc.fix.submit"))));
}

function players(app, game) {
  return gmPlayers(app, game, app.ui.dice, {
    linked: (m) => combatantsOf(game.view).filter((c) => c.player_id === m.player_id).map((c) => c.name),
    hint: t("dc.players.add_hint"),
  });
}

// The log: what happened, newest first, in words (bleeding, initiative, chases, corrections …).
function log(game) {
  const view = game.view;
  const lines = eventsOf(game).map((e) => [e, eventLine(view, e)]).filter(([, line]) => line).slice(-40).reverse();
  return h("section", { class: "dice-log", testid: "dice-log" },
    h("h2", {}, t("dc.log.title")),
    !lines.length && h("p", { class: "hint" }, t("dc.log.empty")),
    h("ol", { class: "log-lines", reversed: true }, lines.map(([e, line]) => h("li", { class: `log-${e.type}`, "data-seq": String(e.seq) }, line))));
}

function eventLine(view, e) {
  const d = e.data;
  const name = (id) => nameOf(view, id);
  switch (e.type) {
    case "combatant_added": return t("dc.log.added", { name: d.name, side: d.side });
    case "combatant_linked": return t("dc.log.linked", { name: name(d.combatant_id), player: memberOf(view, d.player_id)?.name ?? t("dc.link.gm") });
    case "fight_started": return fightStartedLine(d);
    case "fight_ended": return t("dc.log.fight_ended");
    case "combatant_joined_fight": return t("dc.log.joined", { name: name(d.combatant_id) });
    case "round_started": return h("strong", {}, t("dc.round", { round: d.round }));
    case "initiative_rolled": return [t("dc.log.initiative"), " ", d.order.map((id, i) => {
      const init = d.initiative[id];
      return [i ? ", " : "", name(id), " ", init ? diceFaces([init.die], { explode: false }) : "", init ? ` = ${init.total}` : ""];
    })];
    case "turn_started": return t("dc.log.turn", { name: name(d.combatant_id) });
    case "action_taken": return actionLine(d, name);
    case "item_took_effect":
    case "item_wore_off": return itemLine(e.type, d, name);
    case "check_rolled": return checkLine(d, name);
    case "sprint_started": return [t("dc.log.sprint", { name: name(d.combatant_id), rounds: d.rounds, count: d.rounds }), " ", diceFaces([d.die], { sides: 10, explode: false })];
    case "flight_rolled": return d.escaped ? t("dc.flee.escaped", { name: name(d.combatant_id) }) : t("dc.flee.caught", { names: d.attacks_first.map(name).join(", ") });
    case "attack_resolved": return t(d.hit ? "dc.log.hit" : "dc.log.miss", { attacker: name(d.attacker_id), target: name(d.target_id), attack: d.attack, defence: d.defence, damage: d.damage });
    case "attack_cancelled": return t("dc.log.cancelled");
    case "combatant_hurt": return t("dc.log.hurt", { name: name(d.combatant_id), count: d.lost, lives: d.lives });
    case "wound_opened": return t("dc.log.wound", { name: name(d.combatant_id), wound: woundText(d) });
    case "wound_bled": return [t("dc.log.bled", { name: name(d.combatant_id), count: d.lost, lives: d.lives }), " ", d.dice.length ? diceFaces(d.dice, { explode: false }) : ""];
    case "combatant_fainted": return h("strong", {}, t("dc.log.fainted", { name: name(d.combatant_id) }));
    case "combatant_died": return h("strong", {}, t("dc.log.died", { name: name(d.combatant_id) }));
    case "first_aid_rolled": return [t("dc.log.aid", { healer: name(d.healer_id), patient: name(d.patient_id), total: d.total }), " ", diceFaces(d.dice), " ", d.success ? t("dc.aid.success") : t("dc.aid.failed", { needed: d.needed })];
    case "bleeding_stopped": return t("dc.log.stopped", { name: name(d.combatant_id), reason: d.reason ?? t("dc.aid.title") });
    case "combatant_rested": return t("dc.log.rested", { name: name(d.combatant_id) });
    case "chase_started": return t("dc.log.chase_started", { fleeing: name(d.fleeing_id), chaser: name(d.chaser_id), lead: d.lead });
    case "chase_rolled": return t("dc.chase.lead_change", { before: d.lead_before, after: d.lead, count: d.lead });
    case "chase_ended": return t("dc.log.chase_ended", { reason: t(`dc.chase.reason_${d.reason}`) });
    case "number_corrected": return t("dc.log.corrected", {
      name: d.chase_id ? t("dc.chase.title") : name(d.combatant_id), field: t(`dc.field.${d.field}`), before: d.before ?? "–", after: d.after, reason: d.reason,
    });
    case "game_started": return t("dc.log.game_started");
    case "game_ended": return t("dc.log.game_ended");
    default: return null;
  }
}

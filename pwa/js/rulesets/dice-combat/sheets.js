// The GM's character sheets: a form, the same sheet as JSON (download, file picker, paste), the
// recently used sheets kept in this browser, and adding a combatant from a sheet.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { rows } from "../../keyed.js";
import {
  SHEET_NUMBERS, SIZES, SheetError, blankSheet, blankWeapon, download, fileName, forgetSheet,
  library, parseSheets, remember, sheetsJson, toSheet,
} from "./dice.js";
import { weaponFields } from "./common.js";

export function sheetState(app) {
  const dice = app.ui.dice;
  dice.sheet ??= blankSheet();
  dice.sheetJson ??= "";
  dice.sheetPlayer ??= "";
  return dice;
}

// A line under the form or under the JSON box (where the GM just acted): news or a problem.
function say(app, text, { problem = false, at = "form" } = {}) {
  app.ui.dice.sheetMsg = text ? { text, problem, at } : null;
  app.render();
}

function message(ui, at) {
  const msg = ui.sheetMsg;
  if (!msg || msg.at !== at) return null;
  return msg.problem
    ? h("div", { class: "banner wound", testid: "sheet-problem" }, msg.text)
    : h("div", { class: "hint", testid: "sheet-status" }, msg.text);
}

// Loaded sheets: the first goes into the form, all into the recent list.
function loadSheets(app, sheets) {
  const ui = sheetState(app);
  remember(sheets);
  ui.sheet = structuredClone(sheets[0]);
  say(app, t("dc.sheets.loaded", { count: sheets.length }), { at: "json" });
}

function loadText(app, source) {
  try {
    loadSheets(app, parseSheets(source));
  } catch (err) {
    if (!(err instanceof SheetError)) throw err;
    say(app, t("dc.sheets.bad_json", { problem: err.message }), { problem: true, at: "json" });
  }
}

function addCombatant(app, game, raw, playerId) {
  let sheet;
  try {
    sheet = toSheet(raw);
  } catch (err) {
    if (!(err instanceof SheetError)) throw err;
    say(app, t("dc.sheets.bad_sheet", { problem: err.message }), { problem: true });
    return;
  }
  remember([sheet]);
  game.send({ type: "add_combatant", ...sheet, player_id: playerId || null });
  say(app, t("dc.sheets.adding", { name: sheet.name }));
}

export function playerChoices(view, selected, attrs) {
  const players = rows(view.members, "player_id").filter((m) => m.role === "player");
  return h("select", attrs,
    h("option", { value: "", selected: !selected }, t("dc.link.gm")),
    players.map((p) => h("option", { value: p.player_id, selected: selected === p.player_id }, `${p.name} (${p.code})`)));
}

export function sheetEditor(app, game) {
  const ui = sheetState(app);
  const s = ui.sheet;
  const number = ([field, least, most]) => h("label", { class: "num" }, t(`dc.field.${field}`),
    h("input", {
      type: "number", min: String(least), max: String(most), inputmode: "numeric", testid: `sheet-${field}`,
      value: String(s[field]), oninput: (e) => { s[field] = e.target.value; },
    }));
  const check = (holder, field, label, testid) => h("label", { class: "check" },
    h("input", { type: "checkbox", testid, checked: Boolean(holder[field]), onchange: (e) => { holder[field] = e.target.checked; } }), label);
  return h("section", { class: "sheet-editor", testid: "sheet-editor" },
    h("h2", {}, t("dc.sheets.title")),
    h("form", {
      class: "sheet-form",
      onsubmit: (event) => {
        event.preventDefault();
        addCombatant(app, game, s, ui.sheetPlayer);
      },
    },
    h("div", { class: "num-row" },
      h("label", {}, t("dc.field.name"), h("input", { testid: "sheet-name", value: s.name, maxlength: "40", autocomplete: "off", oninput: (e) => { s.name = e.target.value; } })),
      h("label", {}, t("dc.field.side"), h("input", { testid: "sheet-side", value: s.side, maxlength: "40", autocomplete: "off", oninput: (e) => { s.side = e.target.value; } }))),
    h("div", { class: "num-row sheet-numbers" }, SHEET_NUMBERS.map((spec) => number(spec))),
    h("fieldset", { class: "weapon-fields" },
      h("legend", {}, t("dc.field.weapon")),
      weaponFields(s.weapon, (field) => `sheet-weapon_${field}`)),
    // A second weapon is optional: the box shows its fields.
    h("label", { class: "check" },
      h("input", {
        type: "checkbox", testid: "sheet-second-weapon", checked: Boolean(s.second_weapon),
        onchange: (e) => { s.second_weapon = e.target.checked ? blankWeapon() : null; app.render(); },
      }),
      t("dc.sheets.second_weapon")),
    s.second_weapon && h("fieldset", { class: "weapon-fields" },
      h("legend", {}, t("dc.field.second_weapon")),
      weaponFields(s.second_weapon, (field) => `sheet-second_weapon_${field}`)),
    h("div", { class: "num-row" },
      h("label", {}, t("dc.field.size"),
        h("select", { testid: "sheet-size", onchange: (e) => { s.size = e.target.value; } },
          SIZES.map((size) => h("option", { value: size, selected: s.size === size }, t(`dc.size.${size}`))))),
      h("label", {}, t("dc.link.label"), playerChoices(game.view, ui.sheetPlayer, {
        testid: "sheet-player", onchange: (e) => { ui.sheetPlayer = e.target.value; },
      }))),
    check(s, "bleeds", t("dc.field.bleeds"), "sheet-bleeds"),
    message(ui, "form"),
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "primary", testid: "add-combatant", disabled: game.view.may?.add_combatant !== true }, t("dc.sheets.add")),
      h("button", {
        type: "button", class: "secondary", testid: "sheet-download",
        onclick: () => {
          try {
            const sheet = toSheet(s);
            download(fileName(sheet.name), sheetsJson([sheet]));
          } catch (err) {
            if (!(err instanceof SheetError)) throw err;
            say(app, t("dc.sheets.bad_sheet", { problem: err.message }), { problem: true });
          }
        },
      }, t("dc.sheets.download")),
      h("button", { type: "button", class: "secondary", testid: "sheet-clear", onclick: () => { ui.sheet = blankSheet(); say(app, null); } },
        t("dc.sheets.clear")))),
    jsonBox(app),
    recentSheets(app, game));
}

function jsonBox(app) {
  const ui = sheetState(app);
  return h("details", { class: "json-box", open: ui.jsonOpen, ontoggle: (e) => { ui.jsonOpen = e.target.open; } },
    h("summary", { testid: "sheet-json-open" }, t("dc.sheets.json_title")),
    h("p", { class: "hint" }, t("dc.sheets.json_hint")),
    h("textarea", {
      testid: "sheet-json", rows: "8", spellcheck: "false", class: "mono", placeholder: '{"name": "Skřet", "side": "Skřeti", "str": 1, …}',
      oninput: (e) => { ui.sheetJson = e.target.value; },
    }, ui.sheetJson),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "primary", testid: "sheet-json-load", onclick: () => loadText(app, ui.sheetJson) }, t("dc.sheets.from_json")),
      h("button", {
        type: "button", class: "secondary", testid: "sheet-json-show",
        onclick: () => {
          try {
            ui.sheetJson = sheetsJson([toSheet(ui.sheet)]);
            say(app, null);
          } catch (err) {
            if (!(err instanceof SheetError)) throw err;
            say(app, t("dc.sheets.bad_sheet", { problem: err.message }), { problem: true, at: "json" });
          }
        },
      }, t("dc.sheets.to_json")),
      h("label", { class: "button secondary file-button" }, t("dc.sheets.file"),
        h("input", {
          type: "file", accept: ".json,application/json", testid: "sheet-file", class: "visually-hidden",
          onchange: async (e) => {
            const file = e.target.files?.[0];
            e.target.value = "";
            if (file) loadText(app, await file.text());
          },
        }))),
    message(ui, "json"));
}

function recentSheets(app, game) {
  const list = library();
  const ui = sheetState(app);
  return h("div", { class: "recent-sheets", testid: "recent-sheets" },
    h("h3", {}, t("dc.sheets.recent", { count: list.length })),
    !list.length && h("p", { class: "hint" }, t("dc.sheets.recent_none")),
    list.length > 0 && h("ul", { class: "plain" }, list.map((sheet, i) => h("li", { class: "recent-row" },
      h("button", {
        type: "button", class: "secondary recent-open", testid: `recent-sheet-${i}`, title: t("dc.sheets.edit"),
        onclick: () => { ui.sheet = structuredClone(sheet); say(app, null); },
      }, h("strong", {}, sheet.name), h("span", { class: "muted" }, ` · ${sheet.side} · ${t("dc.lives_short", { n: sheet.lives })}`)),
      h("button", { type: "button", class: "secondary", testid: `recent-add-${i}`, onclick: () => addCombatant(app, game, sheet, "") }, t("dc.sheets.add_short")),
      h("button", {
        type: "button", class: "icon", testid: `recent-forget-${i}`, "aria-label": t("dc.sheets.forget"), title: t("dc.sheets.forget"),
        onclick: () => { forgetSheet(i); app.render(); },
      }, "✕")))),
    list.length > 0 && h("button", {
      type: "button", class: "secondary", testid: "sheets-download", onclick: () => download("bijse-sheets.json", sheetsJson(list)),
    }, t("dc.sheets.download_all", { count: list.length })));
}

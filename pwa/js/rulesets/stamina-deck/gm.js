// The GM's table of a stamina-deck game (the organizer, on a laptop or a tablet): players and
// their QR invites, characters from their sheets, the battle mat, rounds and the initiative order,
// the fights, acting for any character, cover, and the public feed. The GM sees every card.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { rows } from "../../keyed.js";
import {
  FormError, SHEET_NUMBERS, WEAPON_NUMBERS, blankCharacter, boutsIn, characterCommand, characterOf, charactersOf, engageOffers,
  freeSquare, nameOf, refusalOf, waitedFor,
} from "./stamina.js";
import { gameHead, gmPlayers, seedSection, sending } from "../../views/common.js";
import { actorPanel, deckUi } from "./actions.js";
import {
  boutBox, cardChips, cardFace, countsLine, feedList, livesBar, livesText, loadedChip, orderList, refusalText, roundLine,
  statsGrid, waitingLine, woundChip,
} from "./common.js";
import { matView } from "./mat.js";

export function deckGmScreen(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  follow(ui, view);
  return h("main", { class: "deck-gm", testid: "deck-gm" },
    head(app, game),
    h("div", { class: "gm-columns" },
      h("div", { class: "gm-main" },
        roundBar(app, game),
        matView(app, game),
        actorBox(app, game)),
      h("div", { class: "gm-side" },
        fights(app, game),
        feedList(view),
        roster(app, game),
        addForm(app, game),
        players(app, game),
        seedSection(view))));
}

// The GM acts for whoever the table waits for (or whose turn it is) unless they pick another.
function follow(ui, view) {
  const key = `${view.round}:${view.phase}:${view.turn}:${waitedFor(view)}:${(view.waiting?.debts || []).length}`;
  if (ui.followKey !== key) {
    ui.followKey = key;
    ui.actor = waitedFor(view) ?? ui.actor;
  }
  if (!characterOf(view, ui.actor)) ui.actor = charactersOf(view)[0]?.character_id ?? null;
}

function head(app, game) {
  const config = game.view.game.config || {};
  return gameHead(app, game, {
    ui: deckUi(app),
    chips: [t("sd.ruleset"), t("sd.config.summary", { deck: config.stamina_deck_size ?? 20, light: config.wound_light ?? 2, medium: config.wound_medium ?? 5 })],
  });
}


// The round: start the next one, the order with the turn, what the table waits for.
function roundBar(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  const why = refusalOf(view, "start_round") ?? null;
  const unfinished = view.phase === "actions" && view.turn;
  const start = () => { ui.confirmRound = false; game.send({ type: "start_round" }); };
  return h("section", { class: "round-bar", testid: "deck-round-bar" },
    h("div", { class: "fight-head" },
      roundLine(view),
      ui.confirmRound && unfinished
        ? h("button", { class: "danger", testid: "deck-start-round-confirm", onclick: start }, t("sd.round.confirm", { name: nameOf(view, view.turn) }))
        : h("button", {
          class: "primary", testid: "deck-start-round", disabled: Boolean(why) || sending(game, "start_round"), title: why ? refusalText(why) : "",
          onclick: () => {
            if (!unfinished) return start();
            ui.confirmRound = true;
            app.render();
            return setTimeout(() => { ui.confirmRound = false; app.render(); }, 5000);
          },
        }, view.round ? t("sd.round.next", { round: view.round + 1 }) : t("sd.round.first"))),
    view.game.status === "lobby" && h("p", { class: "hint" }, t("sd.round.start_game_first")),
    why && view.game.status === "running" && h("p", { class: "hint" }, refusalText(why)),
    waitingLine(view),
    orderList(view, { onPick: (id) => { ui.actor = id; app.render(); } }));
}

function actorBox(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  const actor = characterOf(view, ui.actor);
  if (!actor) return h("section", { class: "actor-box" }, h("h2", {}, t("sd.act.title")), h("p", { class: "hint" }, t("sd.roster.none")));
  return h("section", { class: "actor-box", testid: "deck-act" },
    h("div", { class: "picker-head" },
      h("h2", {}, t("sd.act.title")),
      h("label", { class: "inline" }, t("sd.act.as"),
        h("select", { testid: "deck-act-as", onchange: (e) => { ui.actor = e.target.value; app.render(); } },
          charactersOf(view).map((c) => h("option", { value: c.character_id, selected: c.character_id === actor.character_id }, `${c.name} (${c.side})`))))),
    h("div", { class: "actor-head" },
      h("strong", {}, actor.name), " ", h("span", { class: "muted" }, actor.side), " ",
      h("span", { class: "dc-lives" }, h("span", { class: "heart" }, "♥"), livesText(actor)), " ",
      woundChip(actor), loadedChip(actor),
      actor.initiative && cardFace(actor.initiative, { size: "mini" })),
    actorPanel(app, game, actor, { hooks: false }));
}

// Every bout: who holds its initiative, exchanges, the cards down (the GM sees which). The bouts
// the GM may start: the pairs in contact the view offers; the server picks who attacks.
function fights(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  ui.engage ??= {};
  const pairs = engageOffers(view);
  const chosen = pairs.find(([a, b]) => `${a}:${b}` === ui.engage.pair) ?? pairs[0];
  const why = chosen ? chosen[2] : null;
  const bouts = boutsIn(view);
  return h("section", { class: "fights", testid: "deck-fights" },
    h("h2", {}, t("sd.bouts.title", { count: bouts.length })),
    !bouts.length && h("p", { class: "hint" }, t("sd.bouts.none")),
    bouts.map((b) => {
      const end = refusalOf(view, `disengage:${b.bout_id}`) ?? null;
      return boutBox(view, b, {
        extra: h("div", { class: "actions" },
          [b.attacker, b.defender].map((id) => h("button", {
            type: "button", class: "secondary small-button", onclick: () => { ui.actor = id; app.render(); },
          }, t("sd.act.for", { name: nameOf(view, id) }))),
          h("button", {
            type: "button", class: "secondary small-button", testid: `deck-disengage-${b.bout_id}`,
            disabled: Boolean(end) || sending(game, "disengage", { bout_id: b.bout_id }), title: end ? refusalText(end) : "",
            onclick: () => game.send({ type: "disengage", bout_id: b.bout_id }),
          }, t("sd.bouts.disengage"))),
      });
    }),
    h("div", { class: "engage-form" },
      h("h3", {}, t("sd.engage.title")),
      !pairs.length && h("p", { class: "hint", testid: "deck-engage-none" }, t("sd.engage.none")),
      pairs.length > 0 && h("div", { class: "num-row" },
        h("label", {}, t("sd.engage.pair"),
          h("select", { testid: "deck-engage-pair", onchange: (e) => { ui.engage = { pair: e.target.value }; app.render(); } },
            pairs.map(([a, b]) => h("option", { value: `${a}:${b}`, selected: chosen[0] === a && chosen[1] === b }, `${nameOf(view, a)} – ${nameOf(view, b)}`))))),
      chosen && h("button", {
        type: "button", class: "primary", testid: "deck-engage", disabled: Boolean(why) || sending(game, "engage"), title: why ? refusalText(why) : "",
        onclick: () => {
          game.send({ type: "engage", fighters: [chosen[0], chosen[1]] });
          ui.engage = {}; // back to the first pair offered
        },
      }, t("sd.engage.submit")),
      why && why !== "game_not_running" && h("p", { class: "hint" }, refusalText(why)),
      h("p", { class: "hint", testid: "deck-engage-hint" }, t("sd.engage.hint"))));
}

function roster(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  const list = charactersOf(view);
  return h("section", { class: "roster", testid: "deck-characters" },
    h("h2", {}, t("sd.roster.title", { count: list.length })),
    !list.length && h("p", { class: "hint" }, t("sd.roster.none")),
    list.map((c) => {
      const id = c.character_id;
      const open = ui.openCharacter === id;
      const player = c.player_id ? view.members?.[c.player_id] : null;
      return h("div", { class: `prow wound-${c.wound ?? "none"}`, testid: `deck-char-${id}` },
        h("button", {
          class: "prow-head", testid: `deck-char-open-${id}`, "aria-expanded": String(open),
          onclick: () => { ui.openCharacter = open ? null : id; app.render(); },
        },
        h("span", { class: "pname" }, c.name),
        h("span", { class: "muted" }, c.side),
        h("span", { class: "dc-lives" }, h("span", { class: "heart" }, "♥"), h("b", { testid: `deck-lives-${id}`, "data-lives": String(c.lives_left) }, livesText(c)), livesBar(c)),
        woundChip(c, `deck-wound-${id}`),
        countsLine(c, `deck-counts-${id}`),
        h("span", { class: "chips" },
          c.in_melee && h("span", { class: "chip duel" }, t("sd.in_melee")),
          c.cover > 0 && h("span", { class: "chip" }, t("sd.cover_n", { n: c.cover })),
          h("span", { class: "chip" }, player ? t("sd.played_by", { name: player.name }) : t("sd.link.gm")))),
        open && characterDetail(app, game, c));
    }));
}

function characterDetail(app, game, c) {
  const view = game.view;
  const ui = deckUi(app);
  const id = c.character_id;
  ui.cover ??= {};
  const pile = (key, cards) => h("div", { class: "pile-line", testid: `deck-pile-${key}-${id}` },
    h("span", { class: "muted" }, t(key === "deck" ? "sd.pile.deck_order" : `sd.pile.${key}`)), " ", cardChips(cards));
  return h("div", { class: "prow-detail" },
    statsGrid(c),
    h("div", { class: "actions" },
      loadedChip(c),
      h("span", { class: "muted" }, t("sd.square", { x: c.x, y: c.y })),
      h("button", { type: "button", class: "secondary", testid: `deck-act-${id}`, onclick: () => { ui.actor = id; app.render(); } }, t("sd.act.for", { name: c.name }))),
    h("div", { class: "actions" },
      h("label", { class: "inline" }, t("sd.link.label"), playerChoices(view, c.player_id, {
        testid: `deck-link-${id}`,
        onchange: (e) => game.send({ type: "link_character", character_id: id, player_id: e.target.value || null }),
      })),
      h("form", {
        class: "cover-form",
        onsubmit: (event) => {
          event.preventDefault();
          const cover = Number(ui.cover[id] ?? c.cover);
          if (!Number.isInteger(cover) || cover < 0 || cover > 30) return app.notify(t("sd.cover.invalid"));
          ui.cover[id] = undefined;
          return game.send({ type: "set_cover", character_id: id, cover });
        },
      },
      h("label", { class: "inline" }, t("sd.cover"),
        h("input", {
          type: "number", min: "0", max: "30", inputmode: "numeric", testid: `deck-cover-${id}`, value: String(ui.cover[id] ?? c.cover),
          oninput: (e) => { ui.cover[id] = e.target.value; },
        })),
      h("button", { type: "submit", class: "secondary", testid: `deck-cover-set-${id}` }, t("sd.cover.set")))),
    h("div", { class: "piles-gm" },
      pile("hand", c.hand),
      c.choice?.length > 0 && pile("choice", c.choice),
      pile("threat", c.threat),
      pile("discard", c.discard),
      pile("deck", c.deck)));
}

function playerChoices(view, selected, attrs) {
  const players = rows(view.members, "player_id").filter((m) => m.role === "player");
  return h("select", attrs,
    h("option", { value: "", selected: !selected }, t("sd.link.gm")),
    players.map((p) => h("option", { value: p.player_id, selected: selected === p.player_id }, `${p.name} (${p.code})`)));
}

function addForm(app, game) {
  const view = game.view;
  const ui = deckUi(app);
  ui.form ??= blankCharacter();
  const f = ui.form;
  const spot = freeSquare(view);
  const number = ([field, least, most], holder = f, prefix = "") => h("label", { class: "num" }, t(`sd.field.${prefix}${field}`),
    h("input", {
      type: "number", min: String(least), max: String(most), inputmode: "numeric", testid: `deck-field-${prefix}${field}`,
      value: String(holder[field]), oninput: (e) => { holder[field] = e.target.value; },
    }));
  const check = (holder, field, label, testid) => h("label", { class: "check" },
    h("input", { type: "checkbox", testid, checked: Boolean(holder[field]), onchange: (e) => { holder[field] = e.target.checked; } }), label);
  const text = (field, testid, label, holder = f) => h("label", {}, label,
    h("input", { testid, value: holder[field], maxlength: "40", autocomplete: "off", oninput: (e) => { holder[field] = e.target.value; } }));
  return h("section", { class: "sheet-editor", testid: "deck-add-form" },
    h("h2", {}, t("sd.add.title")),
    h("form", {
      class: "sheet-form",
      onsubmit: (event) => {
        event.preventDefault();
        let command;
        try {
          command = characterCommand(f, view);
        } catch (err) {
          if (!(err instanceof FormError)) throw err;
          ui.addProblem = t("sd.add.bad_field", { field: t(`sd.field.${err.field}`), problem: err.message });
          return app.render();
        }
        ui.addProblem = null;
        ui.spot = null;
        game.send(command);
        // The next character: same numbers, a new name and a new square.
        Object.assign(f, { name: "", x: "", y: "" });
        return app.render();
      },
    },
    h("div", { class: "num-row" }, text("name", "deck-field-name", t("sd.field.name")), text("side", "deck-field-side", t("sd.field.side"))),
    h("div", { class: "num-row sheet-numbers" }, SHEET_NUMBERS.map((spec) => number(spec))),
    h("fieldset", { class: "weapon-fields" },
      h("legend", {}, t("sd.field.weapon")),
      h("div", { class: "num-row" },
        text("name", "deck-field-weapon_name", t("sd.field.weapon_name"), f.weapon),
        WEAPON_NUMBERS.map((spec) => number(spec, f.weapon, "weapon_"))),
      h("div", { class: "checks" },
        check(f.weapon, "ranged", t("sd.field.weapon_ranged"), "deck-field-weapon_ranged"),
        check(f.weapon, "melee", t("sd.field.weapon_melee"), "deck-field-weapon_melee"),
        check(f, "loaded", t("sd.field.loaded"), "deck-field-loaded")),
      h("p", { class: "hint" }, t("sd.add.weapon_hint"))),
    h("div", { class: "num-row" },
      h("label", { class: "num" }, t("sd.field.x"), h("input", {
        type: "number", min: "0", max: String(view.mat.size - 1), inputmode: "numeric", testid: "deck-field-x", value: String(f.x), placeholder: spot ? String(spot.x) : "",
        oninput: (e) => { f.x = e.target.value; },
      })),
      h("label", { class: "num" }, t("sd.field.y"), h("input", {
        type: "number", min: "0", max: String(view.mat.size - 1), inputmode: "numeric", testid: "deck-field-y", value: String(f.y), placeholder: spot ? String(spot.y) : "",
        oninput: (e) => { f.y = e.target.value; },
      })),
      h("label", {}, t("sd.link.label"), playerChoices(view, f.player_id, {
        testid: "deck-field-player", onchange: (e) => { f.player_id = e.target.value; },
      }))),
    h("p", { class: "hint" }, t("sd.add.square_hint")),
    ui.addProblem && h("div", { class: "banner wound", testid: "deck-add-problem" }, ui.addProblem),
    h("button", { type: "submit", class: "primary", testid: "deck-add-character", disabled: view.game.status === "ended" }, t("sd.add.submit"))));
}

function players(app, game) {
  return gmPlayers(app, game, deckUi(app), {
    linked: (m) => charactersOf(game.view).filter((c) => c.player_id === m.player_id).map((c) => c.name),
    hint: t("sd.players.add_hint"),
  });
}

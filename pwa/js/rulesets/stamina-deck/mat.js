// The battle mat of a stamina-deck fight: an SVG grid of mat_size squares with a token per
// character, lines between fighters in a bout, and the aids on the field. Tap a token, then a
// square: the GM places it (free) or moves it with a card; a player moves their own character
// with the card picked in the hand (up to 5 squares; the server refuses a longer move).
// On a phone the whole mat is drawn at 48 px a square in a box that scrolls, centred on its
// character; on the GM's screen it fits the column.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { MOVE, aidsOf, boutsIn, cardLabel, characterOf, charactersOf, controls, distance, fighting, initials, isGm, mine as mineOf, nameOf, occupant, sideColour } from "./stamina.js";
import { deckUi, picked } from "./actions.js";

const CELL = 10; // SVG units a square
const PHONE_PX = 4.8; // CSS px per SVG unit on a phone: 48 px a square, a big enough target
const PAD = 4.5; // room for the coordinates along the top and the left

// "place" (the GM puts a token anywhere, no card) or "move" (a card from the hand).
export function matMode(app, view) {
  const ui = deckUi(app);
  if (!isGm(view)) return "move";
  return ui.mode ?? (view.round === 0 ? "place" : "move");
}

function onSquare(app, game, x, y) {
  const view = game.view;
  const ui = deckUi(app);
  const c = characterOf(view, ui.picked);
  if (!c || !controls(view, c.character_id)) {
    if (isGm(view) && !occupant(view, x, y)) {
      ui.spot = { x, y }; // where the next character goes
      ui.form && Object.assign(ui.form, { x: String(x), y: String(y) });
      app.render();
    }
    return;
  }
  if (c.x === x && c.y === y) return;
  if (matMode(app, view) === "place") {
    game.send({ type: "place_character", character_id: c.character_id, x, y });
    ui.picked = null;
    app.render();
    return;
  }
  const [card] = picked(app, c);
  if (fighting(c) && !card) {
    app.notify(t("sd.mat.pick_card", { name: c.name }));
    return;
  }
  ui.sel[c.character_id] = [];
  ui.picked = null;
  game.send({ type: "move", character_id: c.character_id, x, y, card_id: fighting(c) ? card.card_id : null });
  app.render();
}

function onToken(app, game, id) {
  const view = game.view;
  const ui = deckUi(app);
  if (!controls(view, id)) return;
  ui.picked = ui.picked === id ? null : id;
  if (isGm(view)) ui.actor = id;
  app.render();
}

// After a render: a scrolling mat whose focus square changed is scrolled to centre it (once per
// change, so the player may pan away).
function centreLater() {
  requestAnimationFrame(() => {
    for (const box of document.querySelectorAll(".mat-scroll[data-focus]")) {
      if (box.centredOn === box.dataset.focus) continue;
      box.centredOn = box.dataset.focus;
      const [x, y] = box.dataset.focus.split(",").map(Number);
      const px = CELL * PHONE_PX;
      box.scrollLeft = PAD * PHONE_PX + x * px + px / 2 - box.clientWidth / 2;
      box.scrollTop = PAD * PHONE_PX + y * px + px / 2 - box.clientHeight / 2;
    }
  });
}

export function matView(app, game, { scroll = false } = {}) {
  const view = game.view;
  const ui = deckUi(app);
  const size = view.mat.size;
  const mine = mineOf(view);
  const gm = isGm(view);
  if (ui.picked && !characterOf(view, ui.picked)) ui.picked = null;
  const chosen = characterOf(view, ui.picked);
  const mode = matMode(app, view);
  const focus = chosen ?? charactersOf(view).find((c) => mine.has(c.character_id));
  const reach = chosen && mode === "move" && chosen.wound !== "heavy";
  const squares = [];
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const near = reach && distance(chosen, { x, y }) <= MOVE && !occupant(view, x, y);
      const spot = gm && !chosen && ui.spot?.x === x && ui.spot?.y === y;
      squares.push(h("rect", {
        class: `sq ${(x + y) % 2 ? "odd" : "even"} ${near ? "reach" : ""} ${spot ? "spot" : ""}`,
        x: x * CELL, y: y * CELL, width: CELL, height: CELL, testid: `deck-square-${x}-${y}`,
        "data-x": String(x), "data-y": String(y),
        onclick: () => onSquare(app, game, x, y),
      }));
    }
  }
  const centre = (c) => [c.x * CELL + CELL / 2, c.y * CELL + CELL / 2];
  const lines = boutsIn(view).map((b) => {
    const a = characterOf(view, b.attacker);
    const d = characterOf(view, b.defender);
    if (!a || !d) return null;
    const [x1, y1] = centre(a);
    const [x2, y2] = centre(d);
    return h("line", { class: "bout-line", x1, y1, x2, y2 });
  });
  const aids = aidsOf(view).map((aid) => h("g", { class: "aid", testid: `deck-aid-${aid.aid_id}` },
    h("rect", { x: aid.x * CELL + 6.2, y: aid.y * CELL + 0.6, width: 3.2, height: 3.2, rx: 0.6 }),
    h("title", {}, aid.card ? `${aid.name} (${cardLabel(aid.card)})` : aid.name)));
  const tokens = charactersOf(view).map((c) => {
    const [cx, cy] = centre(c);
    const classes = ["token", `wound-${c.wound ?? "none"}`,
      mine.has(c.character_id) && "mine", view.turn === c.character_id && view.phase === "actions" && "on-turn",
      ui.picked === c.character_id && "picked", controls(view, c.character_id) && "can-pick"].filter(Boolean).join(" ");
    return h("g", {
      class: classes, testid: `deck-token-${c.character_id}`, "data-x": String(c.x), "data-y": String(c.y), "data-wound": c.wound ?? "none",
      onclick: () => onToken(app, game, c.character_id),
    },
    h("title", {}, `${c.name} (${c.side}) ${c.x},${c.y}`),
    h("circle", { class: "token-ring", cx, cy, r: 4.7 }),
    h("circle", { class: "token-body", cx, cy, r: 3.9, style: `fill: ${sideColour(view, c.side)}` }),
    h("text", { class: "token-text", x: cx, y: cy + 1.3, "text-anchor": "middle" }, initials(c.name)),
    c.wound === "heavy" && h("path", { class: "token-down", d: `M${cx - 3} ${cy - 3}L${cx + 3} ${cy + 3}M${cx + 3} ${cy - 3}L${cx - 3} ${cy + 3}` }));
  });
  const edge = [];
  for (let i = 0; i < size; i += 1) {
    edge.push(h("text", { class: "mat-axis", x: i * CELL + CELL / 2, y: -1.2, "text-anchor": "middle" }, String(i)));
    edge.push(h("text", { class: "mat-axis", x: -1.2, y: i * CELL + CELL / 2 + 1.1, "text-anchor": "end" }, String(i)));
  }
  const side = size * CELL + PAD;
  const svg = h("svg", {
    class: "mat", testid: "deck-mat", "data-size": String(size),
    viewBox: `${-PAD} ${-PAD} ${side} ${side}`, role: "img", "aria-label": t("sd.mat.title", { size }),
    style: scroll ? `width: ${side * PHONE_PX}px; max-width: none` : null,
  },
  h("g", {}, squares), edge, h("g", {}, lines), h("g", {}, aids), h("g", {}, tokens));
  if (scroll) centreLater();
  return h("section", { class: `mat-box ${scroll ? "scrolling" : ""}` },
    h("div", { class: "mat-head" },
      h("h2", {}, t("sd.mat.title", { size })),
      gm && h("div", { class: "seg", role: "group", "aria-label": t("sd.mat.mode") },
        ["place", "move"].map((m) => h("button", {
          type: "button", class: `secondary ${mode === m ? "on" : ""}`, testid: `deck-mode-${m}`, "aria-pressed": String(mode === m),
          onclick: () => { ui.mode = m; app.render(); },
        }, t(`sd.mat.mode_${m}`))))),
    // Focusable, so that a keyboard scrolls it too (axe's scrollable-region-focusable).
    scroll ? h("div", { class: "mat-scroll", tabindex: "0", "data-focus": focus ? `${focus.x},${focus.y}` : null }, svg) : svg,
    h("p", { class: "hint", testid: "deck-mat-hint" }, matHint(view, chosen, mode, gm, ui)));
}

function matHint(view, chosen, mode, gm, ui) {
  if (!chosen) {
    if (gm && ui.spot) return t("sd.mat.spot", { x: ui.spot.x, y: ui.spot.y });
    return gm ? t("sd.mat.hint_gm") : mineOf(view).size ? t("sd.mat.hint_player") : t("sd.mat.hint_watch");
  }
  if (mode === "place") return t("sd.mat.placing", { name: chosen.name });
  return fighting(chosen) ? t("sd.mat.moving", { name: chosen.name, count: MOVE }) : t("sd.mat.moving_free", { name: nameOf(view, chosen.character_id) });
}

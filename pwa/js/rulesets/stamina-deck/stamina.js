// stamina-deck without the DOM: cards (suits, colours, labels), characters and their bouts, what
// a character has to answer now, and what the view says its viewer may do (`may`: the server's
// own guards; no rule is restated here). Distances on the mat. No card is ever drawn here.
import { rows } from "../../keyed.js";

export const SUITS = { clubs: "♣", diamonds: "♦", hearts: "♥", spades: "♠" };
export const MOVE = 5; // squares a move card carries a character
export const EXCHANGES = 3; // exchanges of a bout in a round
export const ACTIONS = 3; // cards a character may play as actions in a round
export const LIMPING_MOVES = 2; // moves a round of a character out of the fight with a medium wound

export const isRed = (card) => card?.suit === "hearts" || card?.suit === "diamonds";
export const cardLabel = (card) => (card ? `${card.rank}${SUITS[card.suit] ?? "?"}` : "–");

// The view keys characters, bouts, tokens and aids by id; screens list them as rows that carry
// their id again, in the order they were made.
export const charactersOf = (view) => rows(view.characters, "character_id");
export const boutsIn = (view) => rows(view.bouts, "bout_id");
export const aidsOf = (view) => rows(view.mat?.aids, "aid_id");

export function characterOf(view, id) {
  const c = id == null ? null : view.characters?.[id];
  return c ? { ...c, character_id: id } : null;
}

// What the view says of an action ("<action>:<character_id>[:<thing_id>]", docs/protocol.md):
// undefined when it is not offered, null when allowed, else the server's refusal code.
export function refusalOf(view, name) {
  const entry = view.may?.[name];
  if (entry === undefined) return undefined;
  return entry === true ? null : entry.code;
}

export const offered = (view, name) => view.may?.[name] !== undefined;

// The GM's engage offers: pairs of fighters in contact, [a, b, refusal code|null], once a pair.
export function engageOffers(view) {
  return Object.keys(view.may || {}).filter((name) => name.startsWith("engage:"))
    .map((name) => [...name.split(":").slice(1), refusalOf(view, name)]);
}

export function nameOf(view, id) {
  return characterOf(view, id)?.name ?? id ?? "";
}

// The characters this viewer plays (a player's linked ones); the GM may act for every one.
export function mine(view) {
  return new Set(view.me?.characters ?? []);
}

export function isGm(view) {
  return view.me?.role === "organizer";
}

export function controls(view, id) {
  return isGm(view) || mine(view).has(id);
}

// In the fight: no wound, or a light one. Medium and heavy wounds put a character out.
export const fighting = (c) => c.wound === null || c.wound === undefined || c.wound === "light";
export const canShoot = (c) => Boolean(c.weapon && c.weapon.ranged);

export function boutsOf(view, id) {
  return boutsIn(view).filter((b) => b.attacker === id || b.defender === id);
}

export const opponent = (bout, id) => (bout.attacker === id ? bout.defender : bout.attacker);

export function debtOf(view, id) {
  return (view.waiting?.debts || []).find((d) => d.character_id === id) ?? null;
}

// Something the whole table waits for (a defence, owed cards, attacks on a leaver).
export function waitingOn(view) {
  const w = view.waiting || {};
  return Boolean(w.shot || w.debts?.length || w.leaving);
}

// What this character has to answer before anything else, or null.
export function duty(view, id) {
  const w = view.waiting || {};
  if (w.shot?.target === id) return { kind: "defend", shot: w.shot };
  const debt = debtOf(view, id);
  if (debt) return { kind: "give", debt };
  if (w.leaving) {
    const bout = boutsOf(view, id).find((b) => w.leaving.bouts.includes(b.bout_id) && !b.down[id]);
    if (bout) return { kind: "opportunity", bout };
  }
  const c = characterOf(view, id);
  if (view.phase === "initiative" && c?.counts?.choice > 0) return { kind: "choose" };
  if (!waitingOn(view) && view.phase === "actions" && view.turn === id) return { kind: "turn" };
  return null;
}

// Who the table waits for now (the first of them), for the GM's actor and the banners.
export function waitedFor(view) {
  const w = view.waiting || {};
  if (w.shot) return w.shot.target;
  if (w.debts?.length) return w.debts[0].character_id;
  if (w.leaving) {
    for (const bout of boutsIn(view)) {
      if (!w.leaving.bouts.includes(bout.bout_id)) continue;
      const late = [bout.attacker, bout.defender].find((id) => !bout.down[id]);
      if (late) return late;
    }
  }
  if (view.phase === "initiative") return charactersOf(view).find((c) => c.counts.choice > 0)?.character_id ?? null;
  return view.phase === "actions" ? view.turn : null;
}

export function distance(a, b) {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));
}

export function occupant(view, x, y) {
  return rows(view.mat?.tokens, "character_id").find((tk) => tk.x === x && tk.y === y) ?? null;
}

// The free square nearest the middle of the mat (where a new character is put by default).
export function freeSquare(view, size = view.mat?.size ?? 20) {
  const middle = { x: Math.floor((size - 1) / 2), y: Math.floor((size - 1) / 2) };
  let best = null;
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      if (occupant(view, x, y)) continue;
      const d = distance(middle, { x, y }) * 1000 + y * size + x;
      if (!best || d < best.d) best = { x, y, d };
    }
  }
  return best && { x: best.x, y: best.y };
}

// A colour per side (the tokens on the mat), stable across renders and devices.
const SIDE_COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

export function sideColour(view, side) {
  const sides = [...new Set(charactersOf(view).map((c) => c.side))];
  const i = sides.indexOf(side);
  return SIDE_COLOURS[(i < 0 ? 0 : i) % SIDE_COLOURS.length];
}

export function initials(name) {
  const words = String(name || "?").trim().split(/\s+/);
  return (words.length > 1 ? words[0][0] + words[1][0] : words[0].slice(0, 2)).toUpperCase();
}

// The add_character form: [field, least, most, default].
export const SHEET_NUMBERS = [
  ["lives", 1, 99, 10],
  ["agi", -5, 10, 0],
  ["shooting", 0, 5, 2],
  ["melee", 0, 5, 2],
  ["unarmed", 0, 5, 1],
  ["armour", 0, 30, 0],
];
export const WEAPON_NUMBERS = [
  ["sz", 0, 30, 0],
  ["melee_cards", 0, 10, 0],
  ["reload_speed", 0, 20, 0],
];

export function blankCharacter() {
  const sheet = { name: "", side: "", x: "", y: "", loaded: true, player_id: "" };
  for (const [field, , , fallback] of SHEET_NUMBERS) sheet[field] = String(fallback);
  sheet.weapon = { name: "", melee: false, ranged: true };
  for (const [field, , , fallback] of WEAPON_NUMBERS) sheet.weapon[field] = String(fallback);
  return sheet;
}

export class FormError extends Error {
  constructor(field, least, most) {
    super(`${field}: ${least}…${most}`);
    this.field = field;
  }
}

function whole(value, field, least, most) {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (!Number.isInteger(n) || n < least || n > most) throw new FormError(field, least, most);
  return n;
}

// The add_character command from the form (numbers as typed); throws FormError.
export function characterCommand(sheet, view) {
  const name = String(sheet.name || "").trim();
  const side = String(sheet.side || "").trim();
  if (!name || name.length > 40) throw new FormError("name", 1, 40);
  if (!side || side.length > 40) throw new FormError("side", 1, 40);
  const command = { type: "add_character", name, side };
  for (const [field, least, most] of SHEET_NUMBERS) command[field] = whole(sheet[field], field, least, most);
  const size = view.mat?.size ?? 20;
  const spot = freeSquare(view, size) ?? { x: 0, y: 0 };
  command.x = String(sheet.x).trim() === "" ? spot.x : whole(sheet.x, "x", 0, size - 1);
  command.y = String(sheet.y).trim() === "" ? spot.y : whole(sheet.y, "y", 0, size - 1);
  command.loaded = Boolean(sheet.loaded);
  const weaponName = String(sheet.weapon.name || "").trim();
  if (weaponName) {
    if (weaponName.length > 40) throw new FormError("weapon_name", 1, 40);
    command.weapon = { name: weaponName, melee: Boolean(sheet.weapon.melee), ranged: Boolean(sheet.weapon.ranged) };
    for (const [field, least, most] of WEAPON_NUMBERS) command.weapon[field] = whole(sheet.weapon[field], `weapon_${field}`, least, most);
  }
  if (sheet.player_id) command.player_id = sheet.player_id;
  return command;
}

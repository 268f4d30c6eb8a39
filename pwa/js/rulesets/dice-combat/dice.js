// dice-combat without the DOM: character sheets (JSON, the recent ones in localStorage) and the
// modifiers of an attack. No dice and no refusals here: the server rolls them all, and its view
// says what may be done (`may`).

// A sheet's numbers: [field, least, most, default] (the bounds of add_combatant).
export const SHEET_NUMBERS = [
  ["str", -10, 20, 0],
  ["agi", -10, 20, 0],
  ["lives", 1, 999, 10],
  ["armour", 0, 30, 0],
  ["shield", 0, 30, 0],
  ["movement", 0, 200, 0],
  ["athletics", 0, 20, 0],
  ["endurance", -10, 20, 0],
  ["stamina", 0, 20, 0],
  ["first_aid", 0, 20, 0],
  ["attacks_per_round", 1, 10, 1],
  ["initiative_bonus", -20, 30, 0],
];
export const WEAPON_NUMBERS = [["attack", -20, 30, 0], ["damage", -20, 30, 0], ["defence", -20, 30, 0]];
export const SIZES = ["A", "B", "C", "D", "E"];

export function blankWeapon() {
  return { name: "", attack: 0, damage: 0, defence: 0, ranged: false, flat_allowed: false };
}

export function blankSheet() {
  const sheet = { name: "", side: "" };
  for (const [field, , , fallback] of SHEET_NUMBERS) sheet[field] = fallback;
  sheet.weapon = blankWeapon();
  sheet.second_weapon = null; // a weapon in the other hand, when the sheet has one
  sheet.size = "B";
  sheet.bleeds = true;
  return sheet;
}

export class SheetError extends Error {}

function whole(value, field, least, most) {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (!Number.isInteger(number) || number < least || number > most) {
    throw new SheetError(`${field}: ${least}…${most}`);
  }
  return number;
}

function text(value, field, { required = true, max = 40 } = {}) {
  const trimmed = typeof value === "string" ? value.trim() : "";
  if ((required && !trimmed) || trimmed.length > max) throw new SheetError(`${field}: 1…${max}`);
  return trimmed;
}

// A sheet from anything that looks like one: a saved sheet, a combatant of a view (its
// max_lives is the sheet's lives), a form being edited (numbers as strings). Throws SheetError.
export function toSheet(raw) {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new SheetError("{…}");
  const sheet = { name: text(raw.name, "name"), side: text(raw.side, "side") };
  for (const [field, least, most, fallback] of SHEET_NUMBERS) {
    const value = field === "lives" ? raw.max_lives ?? raw.lives : raw[field];
    sheet[field] = value === undefined || value === null || value === "" ? fallback : whole(value, field, least, most);
  }
  sheet.weapon = toWeapon(raw.weapon ?? {}, "weapon");
  // Only a sheet with two weapons says so: a one-weapon sheet reads as it always has.
  if (raw.second_weapon) sheet.second_weapon = toWeapon(raw.second_weapon, "second_weapon");
  sheet.size = raw.size === undefined ? "B" : String(raw.size).toUpperCase();
  if (!SIZES.includes(sheet.size)) throw new SheetError(`size: ${SIZES.join(", ")}`);
  sheet.bleeds = raw.bleeds === undefined ? true : Boolean(raw.bleeds);
  return sheet;
}

// A weapon from a sheet, a view or a form (numbers as strings). Throws SheetError.
export function toWeapon(raw, where = "weapon") {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new SheetError(`${where}: {…}`);
  const weapon = { name: text(raw.name ?? "", `${where}.name`, { required: false }) };
  for (const [field, least, most, fallback] of WEAPON_NUMBERS) {
    const value = raw[field];
    weapon[field] = value === undefined || value === "" ? fallback : whole(value, `${where}.${field}`, least, most);
  }
  weapon.ranged = Boolean(raw.ranged);
  weapon.flat_allowed = Boolean(raw.flat_allowed);
  return weapon;
}

// The sheets in a pasted or loaded JSON text: one sheet, a list, or {"sheets": [...]}.
export function parseSheets(source) {
  let data;
  try {
    data = JSON.parse(source);
  } catch (err) {
    throw new SheetError(`JSON: ${err.message}`);
  }
  const list = Array.isArray(data) ? data : Array.isArray(data?.sheets) ? data.sheets : [data];
  if (!list.length) throw new SheetError("[]");
  return list.map((raw, i) => {
    try {
      return toSheet(raw);
    } catch (err) {
      throw new SheetError(list.length > 1 ? `#${i + 1} ${err.message}` : err.message);
    }
  });
}

export function sheetsJson(sheets) {
  return JSON.stringify(sheets.length === 1 ? sheets[0] : { sheets }, null, 2);
}

// The recently used sheets, newest first; one per name and side.
const LIBRARY = "bijse.dice.sheets";
const KEEP = 40;

export function library() {
  try {
    const list = JSON.parse(localStorage.getItem(LIBRARY));
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

const sameSheet = (a, b) => a.name.toLowerCase() === b.name.toLowerCase() && a.side.toLowerCase() === b.side.toLowerCase();

export function remember(sheets) {
  const kept = library().filter((old) => !sheets.some((s) => sameSheet(s, old)));
  localStorage.setItem(LIBRARY, JSON.stringify([...sheets, ...kept].slice(0, KEEP)));
}

export function forgetSheet(index) {
  const list = library();
  list.splice(index, 1);
  localStorage.setItem(LIBRARY, JSON.stringify(list));
}

// A file for the browser to save.
export function download(filename, content) {
  const url = URL.createObjectURL(new Blob([content], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function fileName(name) {
  const slug = name.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return `${slug || "sheet"}.json`;
}

// The modifiers of `attack`, with what each adds (attack, defence): the GM's toggles.
export const MODIFIERS = [
  ["advantage", 5, 0],
  ["disadvantage", -5, 0],
  ["defender_advantage", 0, 5],
  ["defender_disadvantage", 0, -5],
  ["attacker_invisible", 5, 0],
  ["target_invisible", 0, 5],
  ["ambush", 5, 0],
  ["prone_target", 5, 0],
  ["helpless", 0, 0],
  ["close_range", -5, 0],
];
export const COVERS = ["none", "half", "three_quarter", "full"];

// The numbers the GM may correct, on a combatant and on a chase.
export const COMBATANT_FIELDS = [
  "lives", "max_lives", "str", "agi", "armour", "shield", "weapon_attack", "weapon_damage",
  "weapon_defence", "movement", "athletics", "endurance", "stamina", "first_aid",
  "attacks_per_round", "initiative_bonus", "initiative", "sprint_rounds", "sprint_used",
];

// The sheet numbers a check may add (`check`'s field), and those an item may change for a few
// rounds (`use_item`'s effect).
export const CHECK_FIELDS = ["str", "agi", "movement", "athletics", "endurance", "stamina", "first_aid"];
export const EFFECT_FIELDS = [
  "str", "agi", "armour", "shield", "movement", "athletics", "endurance", "attacks_per_round",
  "initiative_bonus", "weapon_attack", "weapon_damage", "weapon_defence",
];

// The current value of a correctable field (null when there is none yet).
export function fieldValue(view, combatant, field) {
  if (field.startsWith("weapon_")) return combatant.weapon?.[field.slice(7)] ?? null;
  if (field.startsWith("sprint_")) return combatant.sprint?.[field.slice(7)] ?? null;
  if (field === "initiative") return view.fight?.initiative?.[combatant.combatant_id]?.total ?? null;
  return combatant[field] ?? null;
}

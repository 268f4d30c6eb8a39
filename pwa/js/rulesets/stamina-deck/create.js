// The stamina-deck part of "create a game": the mat, the stamina deck and the wound thresholds.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

// [form key, config field, testid, least, most, default]
const FIELDS = [
  ["mat_size", "mat_size", "config-mat-size", 4, 60, 20],
  ["stamina_deck_size", "stamina_deck_size", "config-deck-size", 1, 52, 20],
  ["wound_light", "wound_light", "config-wound-light", 0, 99, 2],
  ["wound_medium", "wound_medium", "config-wound-medium", 0, 99, 5],
];

export function defaults() {
  return Object.fromEntries(FIELDS.map(([key, , , , , fallback]) => [`sd_${key}`, String(fallback)]));
}

// Empty or out of range: the server's default (it checks the bounds again).
export function config(f) {
  const config = {};
  for (const [key, field, , least, most] of FIELDS) {
    const n = Number.parseInt(f[`sd_${key}`], 10);
    if (Number.isInteger(n) && n >= least && n <= most) config[field] = n;
  }
  if (config.wound_medium !== undefined && config.wound_light !== undefined && config.wound_medium < config.wound_light) {
    config.wound_medium = config.wound_light;
  }
  return config;
}

export function fields(app, f) {
  return [
    h("div", { class: "num-row" }, FIELDS.map(([key, , testid, least, most]) => h("label", {}, t(`sd.create.${key}`),
      h("input", {
        type: "number", min: String(least), max: String(most), inputmode: "numeric", testid,
        value: f[`sd_${key}`] ?? "", oninput: (e) => { f[`sd_${key}`] = e.target.value; },
      })))),
    h("p", { class: "hint" }, t("sd.create.hint")),
  ];
}

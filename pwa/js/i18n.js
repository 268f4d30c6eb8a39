// Strings come from one catalogue per language; Czech is the default.
import cs from "../i18n/cs.js";
import en from "../i18n/en.js";

const catalogues = { cs, en };
const KEY = "bijse.lang";
let lang = catalogues[localStorage.getItem(KEY)] ? localStorage.getItem(KEY) : "cs";
document.documentElement.lang = lang;

export function getLang() {
  return lang;
}

export function setLang(next) {
  lang = catalogues[next] ? next : "cs";
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}

// t("key", {count: 3, name: "Bob"}): plural entries are {one, few, many, other} picked by Intl.PluralRules.
export function t(key, params = {}) {
  let entry = catalogues[lang][key] ?? catalogues.cs[key] ?? key;
  if (typeof entry === "object") {
    entry = entry[new Intl.PluralRules(lang).select(params.count ?? 0)] ?? entry.other;
  }
  if (typeof entry === "function") return entry(params);
  return entry.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    return typeof value === "number" ? value.toLocaleString(lang) : String(value ?? "");
  });
}

// An error code from the server or the network, in words ({message}: the server's own words).
// A ruleset's own words for a code (`error.<ruleset>.<code>`) come before the common ones.
export function errorText(code, message, ruleset = null) {
  for (const key of [ruleset && `error.${ruleset}.${code}`, `error.${code}`]) {
    const text = key ? t(key, { message: message || "" }) : key;
    if (key && text !== key) return text;
  }
  return message || code;
}

// The server names a game's first organizer "Organizer" (the log keeps that name): in words,
// the reader's language.
export function shownName(name, role) {
  return role === "organizer" && name === "Organizer" ? t("name.organizer") : name;
}

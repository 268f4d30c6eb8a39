// Words: the common catalogue of the reader's language (i18n/<lang>.json) and the words of each
// ruleset part in use (rulesets/<id>/<lang>.json, loaded with its screens). Each ruleset's words
// are its own: a key is looked up in the common words, then in the words of the ruleset on
// screen (inFront), then in the other rulesets' loaded, so no ruleset shadows the common words
// or another ruleset's on that one's screens. Words are data
// (JSON: keys to texts, or to {one, few, many, other} for Intl.PluralRules). Czech is the
// default and the fallback; the other language is downloaded only when a reader chooses it.
// boot.js asks for the reader's words early (a preload this fetch then takes).

// A word file by its address relative to this module.
async function load(path) {
  const response = await fetch(new URL(path, import.meta.url));
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

const cs = await load("../i18n/cs.json");

const LANGS = ["cs", "en"];
const KEY = "bijse.lang";
const stored = localStorage.getItem(KEY);
let lang = "cs";
// language -> {common: the shell's words, rulesets: {id: that ruleset's words}}
const catalogues = { cs: { common: cs, rulesets: {} } };
const sources = new Set(); // prefixes of the word files in use: "./rulesets/<id>/", "…/replay."
let front = null; // the id of the ruleset on screen
// Keys asked for that no catalogue holds: the browser tests read it after every screen.
const missing = (globalThis.bijseMissingWords ??= new Set());

function fileOf(prefix, next) {
  return `${prefix}${next}.json`;
}

// The ruleset a word file prefix belongs to.
function rulesetOf(prefix) {
  return prefix.match(/rulesets\/([^/]+)\//)[1];
}

function add(words, prefix, part) {
  Object.assign(words.rulesets[rulesetOf(prefix)] ??= {}, part);
}

async function catalogue(next) {
  const common = next === "cs" ? cs : await load(`../i18n/${next}.json`);
  const parts = await Promise.all([...sources].map((prefix) => load(fileOf(prefix, next))));
  const words = { common, rulesets: {} };
  [...sources].forEach((prefix, i) => add(words, prefix, parts[i]));
  return words;
}

// The ruleset whose screen is shown: its words come before other rulesets' (never before the
// common words).
export function inFront(id) {
  front = id;
}

function lookup(words, key) {
  if (Object.hasOwn(words.common, key)) return words.common[key];
  const mine = words.rulesets[front];
  if (mine && Object.hasOwn(mine, key)) return mine[key];
  return Object.values(words.rulesets).find((each) => Object.hasOwn(each, key))?.[key];
}

export function getLang() {
  return lang;
}

// Switch language: its words load first (a promise; render when it settles).
export async function setLang(next) {
  next = LANGS.includes(next) ? next : "cs";
  catalogues[next] ??= await catalogue(next);
  lang = next;
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}

// The words of a ruleset part (`./rulesets/<id>/` for rulesets/<id>/cs.json and en.json), in
// the reader's language and in Czech, the fallback.
export async function useWords(prefix) {
  if (sources.has(prefix)) return;
  sources.add(prefix);
  const langs = Object.keys(catalogues); // Czech, and any language read before (a switch back)
  const parts = await Promise.all(langs.map((each) => load(fileOf(prefix, each))));
  langs.forEach((each, i) => add(catalogues[each], prefix, parts[i]));
}

// The addresses of every word file in use, in every language: the shell's and each ruleset
// part's (a phone keeps them all for a switch of language with no signal).
export function wordFiles() {
  const prefixes = ["../i18n/", ...sources];
  return LANGS.flatMap((each) => prefixes.map((prefix) => new URL(fileOf(prefix, each), import.meta.url).href));
}

// t("key", {count: 3, name: "Bob"}): plural entries are {one, few, many, other} picked by Intl.PluralRules.
export function t(key, params = {}) {
  let entry = lookup(catalogues[lang], key) ?? lookup(catalogues.cs, key);
  if (entry === undefined) {
    missing.add(key);
    return key;
  }
  if (typeof entry === "object") {
    entry = entry[new Intl.PluralRules(lang).select(params.count ?? 0)] ?? entry.other;
  }
  if (typeof entry === "function") return entry(params);
  return entry.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    return typeof value === "number" ? value.toLocaleString(lang) : String(value ?? "");
  });
}

// Whether a key has words (for a code the server may send that has no text of its own).
export function hasWords(key) {
  return lookup(catalogues[lang], key) !== undefined || lookup(catalogues.cs, key) !== undefined;
}

// An error code from the server or the network, in words ({message}: the server's own words).
// A ruleset's own words for a code (`error.<ruleset>.<code>`) come before the common ones.
export function errorText(code, message, ruleset = null) {
  for (const key of [ruleset && `error.${ruleset}.${code}`, `error.${code}`]) {
    if (key && hasWords(key)) return t(key, { message: message || "" });
  }
  return message || code;
}

// The server names a game's first organizer "Organizer" (the log keeps that name): in words,
// the reader's language.
export function shownName(name, role) {
  return role === "organizer" && name === "Organizer" ? t("name.organizer") : name;
}

if (LANGS.includes(stored) && stored !== "cs") await setLang(stored);
document.documentElement.lang = lang;

// The rulesets this server plays. Each is one folder, rulesets/<id>/, that nothing outside it
// names: screens.js (`screen(app, game, page)`, `awake(view, page)`, `expiring`: the commands
// that expire in the outbox, with the banner code that says so), create.js (`defaults()`,
// `fields(app, form)`, `config(form)`, optionally `defaultName()`: its part of the new-game form), replay.js and
// replay_index.js (its part of the replay, with replay.cs.json and replay.en.json: see
// replay/indexer.js), cs.json and en.json (its words), and optionally styles.css (its looks,
// linked when its first part loads). Which ids exist comes from the server (GET /api/rulesets),
// kept for a start with no signal.
import { api } from "./api.js";
import { useWords } from "./i18n.js";
import { loadingScreen } from "./views/common.js";

const KNOWN = "bijse.rulesets";
const ID = /^[a-z0-9][a-z0-9-]{0,63}$/; // an id becomes a path: nothing else may
// The rulesets whose folder has a styles.css: written in by the server at start (web/shell.py).
const STYLED = [];

// A ruleset's own stylesheet, a file of this origin (the CSP allows no inline style), once.
function useStyles(id) {
  if (!STYLED.includes(id) || document.querySelector(`link[data-ruleset="${id}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL(`./rulesets/${id}/styles.css`, import.meta.url).href;
  link.dataset.ruleset = id;
  document.head.append(link);
}

// A part of a ruleset's folder with the ruleset's words in the reader's language (the caller
// asks the worker to keep it: keepOffline).
export async function part(id, name) {
  if (!ID.test(id ?? "")) throw new Error(`no ruleset ${id}`);
  useStyles(id);
  const [module] = await Promise.all([import(`./rulesets/${id}/${name}.js`), useWords(`./rulesets/${id}/`)]);
  return module;
}

// The first visit loads files before the service worker runs, and a module loaded with import()
// is not in the shell: ask the worker to keep what this page loaded, for a start with no signal.
export function keepOffline() {
  navigator.serviceWorker?.ready.then((registration) => registration.active?.postMessage(
    { keep: performance.getEntriesByType("resource").map((entry) => entry.name) }));
}

// Files a ruleset needs with no signal that this page has not loaded (a QR decoder, the other
// language's words): the worker fetches and keeps them now.
export function keepFiles(urls) {
  navigator.serviceWorker?.ready.then((registration) => registration.active?.postMessage({ keep: urls }));
}

// [{id, title, config_schema}] from the server (or as last heard when there is no signal).
export async function known() {
  try {
    const list = (await api.rulesets()).filter((r) => ID.test(r.id));
    localStorage.setItem(KNOWN, JSON.stringify(list));
    return list;
  } catch {
    return JSON.parse(localStorage.getItem(KNOWN) || "[]");
  }
}

// A module loaded when first needed (a game's screens; an organizer's console, which a player
// never downloads): the module once it has arrived, else null; `done()` runs when it comes (no
// signal and not kept yet: the next call asks again). `key` names it where the loader is made
// anew at each call.
const later = new Map(); // key -> module (null while on the way)
export function lazily(loader, done, key = loader) {
  if (!later.has(key)) {
    later.set(key, null);
    loader().then((module) => {
      later.set(key, module);
      keepOffline();
      done();
    }, () => later.delete(key));
  }
  return later.get(key);
}

const INVITES = () => import("./views/invites.js");

// An organizer's screen: the invite sheet (#/invites) or the ruleset's console, the function
// `name` of the module `console` loads. Both load for an organizer only; a loading screen
// shows until they come.
export function consoleScreen(app, game, page, console, name) {
  const screen = page === "invites" ? lazily(INVITES, app.render)?.invitesScreen : lazily(console, app.render)?.[name];
  return screen ? screen(app, game) : loadingScreen();
}

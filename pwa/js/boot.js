// The first thing the page runs, before the shell's modules have arrived: it asks for the open
// game's view at once (game.js's first refresh takes the answer: earlyView), then for every
// module of the shell at once (asked for earlier, on a slow line they would share the bandwidth
// with this file and hold the view back), and as soon as the ruleset is known (the view, or the
// last one this phone kept) for that ruleset's screens with their static imports and words: not
// one import level a round trip. No imports: nothing must wait for it. PRELOAD is written by the
// server at start (server/web/shell.py): {shell: [module], words: {lang: file}, rulesets: {id:
// {modules, words: {lang: file}}}}, addresses under the version prefix.
const PRELOAD = { shell: [], words: {}, rulesets: {} };

function session() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if ((parts[0] === "join" || parts[0] === "board") && parts[1] && parts[2]) {
    return { game_id: parts[1], token: parts[2] };
  }
  if (parts[0] === "games" || parts[0] === "replay" || parts[0] === "admin" || parts[0] === "invites") return null;
  try {
    const token = localStorage.getItem("bijse.current");
    return JSON.parse(localStorage.getItem("bijse.sessions") || "[]").find((s) => s.token === token) || null;
  } catch {
    return null;
  }
}

function preload(modules) {
  for (const href of modules) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.append(link);
  }
}

// Word files are JSON that i18n.js fetches: preloaded as a fetch (crossorigin, as fetch() asks).
function preloadWords(files) {
  for (const href of files) {
    const link = document.createElement("link");
    link.rel = "preload";
    link.as = "fetch";
    link.crossOrigin = "anonymous";
    link.href = href;
    document.head.append(link);
  }
}

const langs = localStorage.getItem("bijse.lang") === "en" ? ["cs", "en"] : ["cs"];

const preloaded = new Set();
function preloadRuleset(ruleset) {
  const chain = PRELOAD.rulesets[ruleset];
  if (!chain || preloaded.has(ruleset)) return;
  preloaded.add(ruleset);
  preload(chain.modules);
  preloadWords(langs.map((lang) => chain.words[lang]).filter(Boolean));
}

const open = session();
if (open?.game_id && open.token) {
  const sent = Date.now();
  const abort = new AbortController();
  // As api.js: a dead spot can hold a request for minutes.
  const timer = setTimeout(() => abort.abort(), 15000);
  const answer = fetch(`/api/games/${encodeURIComponent(open.game_id)}/view`, {
    headers: { Accept: "application/json", Authorization: `Bearer ${open.token}` },
    cache: "no-store",
    signal: abort.signal,
  }).then(async (response) => {
    const received = Date.now();
    const data = await response.json().catch(() => null);
    clearTimeout(timer); // answered: no need to wake the page later
    if (response.ok) preloadRuleset(data?.view?.game?.ruleset);
    return { sent, received, status: response.status, data };
  });
  answer.catch(() => { /* no signal: game.js asks again */ });
  globalThis.bijseEarlyView = { game_id: open.game_id, token: open.token, answer };
  try { // a phone back in its game knows the ruleset from the view it kept
    preloadRuleset(JSON.parse(localStorage.getItem(`bijse.view.${open.token}`))?.view?.game?.ruleset);
  } catch { /* no view kept */ }
}
preloadWords(langs.map((lang) => PRELOAD.words?.[lang]).filter(Boolean));
preload(PRELOAD.shell);

// Boot: routes (#/join/<game>/<token>, #/board[/<game>/<token>], #/games, #/invites,
// #/replay/<game>[/<seq>], #/), the open game, rendering.
import { h, mount } from "./dom.js";
import { inFront, t } from "./i18n.js";
import { Game } from "./game.js";
import { current, saveAdminKey, saveSession, setCurrent } from "./session.js";
import { keepAwake, unlockSoundOnFirstTap } from "./alerts.js";
import { startTicker } from "./countdown.js";
import { onChange as onClockChange } from "./clock.js";
import { alertsPrompt, errorList, loadingScreen, topbar } from "./views/common.js";
import { homeScreen } from "./views/home.js";
import { spectatorScreen } from "./views/spectator.js";
import { keepOffline, lazily, part } from "./rulesets.js";
import { scanSupport } from "./views/scanner.js";
import { fieldRoute, insecureBanner } from "./views/secure.js";

// A game's screens load with its first view (rulesets/<id>/screens.js), so a phone downloads only
// the game it plays.
const REPLAY = () => import("./views/replay.js");

const root = document.getElementById("app");
let game = null;
let page = "games";
let noticeId = 0;

const app = {
  ui: {},
  notices: [],
  render,
  route,
  set(patch) {
    Object.assign(this.ui, patch);
    render();
  },
  notify(text, kind = "") {
    const notice = { id: (noticeId += 1), text, kind };
    this.notices.push(notice);
    setTimeout(() => {
      this.notices = this.notices.filter((n) => n !== notice);
      render();
    }, 6000);
    render();
  },
};

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if ((parts[0] === "join" || parts[0] === "board") && parts[1] && parts[2]) {
    saveSession({ game_id: parts[1], token: parts[2] });
    setCurrent(parts[2]);
    // Keep the token out of the address bar and the history.
    const next = parts[0] === "board" ? "#/board" : "#/";
    history.replaceState(null, "", `${location.pathname}${location.search}${next}`);
    page = parts[0] === "board" ? "board" : "game";
  } else if (parts[0] === "admin" && parts[1]) {
    // #/admin/<key>: this server creates games for its admin key only; keep it out of history.
    saveAdminKey(parts[1]);
    history.replaceState(null, "", `${location.pathname}${location.search}#/games`);
    page = "games";
  } else if (parts[0] === "board") {
    page = "board";
  } else if (parts[0] === "replay") {
    // #/replay/<game>[/<seq>][?seq=N&viewer=V]: with this phone's token for that game.
    const replay = lazily(REPLAY, route);
    page = !replay || replay.openReplay(app) ? "replay" : "games";
    if (page === "games") app.notify(t("replay.not_joined"));
  } else if (parts[0] === "games") {
    page = "games";
  } else if (parts[0] === "invites") {
    page = "invites";
    app.ui.invitesFor = null;
  } else {
    page = "game";
  }
  const session = current();
  if (!session && page !== "games") page = "games";
  if (game && game.token !== session?.token) {
    game.stop();
    game = null;
    app.ui = {};
  }
  if (session && !game) {
    game = new Game(session);
    game.addEventListener("change", render);
    game.start();
  }
  render();
}

// The screens of a game's ruleset, or null while they load (or when this app has none).
function rulesOf(view) {
  const id = view?.game?.ruleset;
  if (!id) return null;
  inFront(id);
  const rules = lazily(() => part(id, "screens").catch((err) => {
    unsupported.add(id);
    throw err;
  }), render, `screens:${id}`);
  if (rules && game) game.rules = rules;
  return rules;
}
const unsupported = new Set(); // rulesets whose screens this app could not load

function screen() {
  if (page === "games" || !game) return homeScreen(app);
  if (game.fatal) return fatalScreen();
  if (page === "replay") return lazily(REPLAY, route)?.replayScreen(app, game) ?? loadingScreen();
  if (!game.view) return loadingScreen();
  if (unsupported.has(game.view.game?.ruleset)) return spectatorScreen(app, game, { unsupported: true });
  return rulesOf(game.view)?.screen(app, game, page) ?? loadingScreen();
}

function fatalScreen() {
  return h("main", { class: "fatal", testid: "fatal" },
    h("h1", {}, t("fatal.title")),
    h("p", {}, t("fatal.hint")),
    h("p", { class: "muted" }, game.fatal.code),
    h("a", { class: "button secondary", href: "#/games" }, t("nav.games")));
}

function render() {
  const onGame = page !== "games" && game;
  const main = screen();
  if (onGame) game.keepErrorsOn(`${page} ${main?.dataset?.testid ?? ""} ${main?.className ?? ""}`);
  const view = onGame && page !== "replay" ? game.view : null;
  const awake = Boolean(view && rulesOf(view)?.awake(view, page));
  mount(root, h("div", { class: `app page-${page}` },
    topbar(app, onGame ? game : null),
    insecureBanner(),
    onGame && page !== "replay" && game.view?.me?.role === "organizer" && fieldRoute(app),
    // A duel or a countdown on screen has no room for it (and its first tap unlocks sound anyway).
    !awake && alertsPrompt(app, onGame ? game : null),
    errorList(onGame ? game : null, app.notices),
    main));
  keepAwake(awake);
}

window.addEventListener("hashchange", route);
unlockSoundOnFirstTap();
startTicker(render);
onClockChange(render);
scanSupport.then(render);
route();

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("./sw.js").catch(() => { /* plain http on a LAN address: no offline shell */ });
  keepOffline();
}

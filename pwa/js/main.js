// Boot: routes (#/join/<game>/<token>, #/board[/<game>/<token>], #/games, #/invites,
// #/replay/<game>[/<seq>], #/), the open game, rendering.
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { Game } from "./game.js";
import { current, saveSession, setCurrent } from "./session.js";
import { keepAwake, unlockSoundOnFirstTap } from "./alerts.js";
import { startTicker } from "./countdown.js";
import { onChange as onClockChange } from "./clock.js";
import { alertsPrompt, errorList, topbar } from "./views/common.js";
import { homeScreen } from "./views/home.js";
import { organizerScreen } from "./views/organizer.js";
import { invitesScreen } from "./views/invites.js";
import { playerNeedsAwake, playerScreen } from "./views/player.js";
import { spectatorScreen } from "./views/spectator.js";
import { scanSupport } from "./views/scanner.js";
import { rankNeedsAwake, rankScreen } from "./views/rank_bases.js";
import { diceNeedsAwake, diceScreen } from "./views/dice_combat.js";
import { deckNeedsAwake, deckScreen } from "./views/deck_game.js";
import { openReplay, replayScreen } from "./views/replay.js";

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
  } else if (parts[0] === "board") {
    page = "board";
  } else if (parts[0] === "replay") {
    // #/replay/<game>[/<seq>][?seq=N&viewer=V]: with this phone's token for that game.
    page = openReplay(app) ? "replay" : "games";
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

function screen() {
  if (page === "games" || !game) return homeScreen(app);
  if (game.fatal) return fatalScreen();
  if (page === "replay") return replayScreen(app, game);
  if (!game.view) {
    return h("main", { class: "loading", testid: "loading" },
      h("p", {}, navigator.onLine ? t("loading") : t("loading.offline")));
  }
  const { me, game: info } = game.view;
  if (info?.ruleset === "rank-bases") return rankScreen(app, game, page);
  if (info?.ruleset === "dice-combat") return diceScreen(app, game, page);
  if (info?.ruleset === "stamina-deck") return deckScreen(app, game, page);
  if (info?.ruleset !== "card-duel") return spectatorScreen(app, game);
  if (me?.role === "organizer") return page === "invites" ? invitesScreen(app, game) : organizerScreen(app, game);
  if (!Array.isArray(me?.cards)) return spectatorScreen(app, game); // a spectator, or a member who does not fight
  return playerScreen(app, game);
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
  mount(root, h("div", { class: `app page-${page}` },
    topbar(app, onGame ? game : null),
    alertsPrompt(app, onGame ? game : null),
    errorList(onGame ? game : null, app.notices),
    main));
  const view = onGame && page !== "replay" ? game.view : null;
  const awake = view?.game?.ruleset === "rank-bases"
    ? rankNeedsAwake(view, page)
    : view?.game?.ruleset === "dice-combat" ? diceNeedsAwake(view)
    : view?.game?.ruleset === "stamina-deck" ? deckNeedsAwake(view)
    : view?.me && view.me.role !== "organizer" && playerNeedsAwake(view);
  keepAwake(Boolean(awake));
}

window.addEventListener("hashchange", route);
unlockSoundOnFirstTap();
startTicker(render);
onClockChange(render);
scanSupport.then(render);
route();

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("./sw.js").catch(() => { /* plain http on a LAN address: no offline shell */ });
}

// Pieces every screen uses: the top bar, refused-command notices, a card.
import { h } from "../dom.js";
import { errorText, getLang, setLang, t } from "../i18n.js";

export const prefs = {
  sun: localStorage.getItem("bijse.sun") === "1",
};
document.documentElement.classList.toggle("sun", prefs.sun);

export function topbar(app, game) {
  const queued = game ? game.queued.length : 0;
  const connection = game ? (game.fatal ? "fatal" : game.connection) : null;
  return h("header", { class: "topbar" },
    h("a", { class: "brand", href: "#/games", "aria-label": t("nav.games") }, "Bij se"),
    h("span", { class: "title" }, game?.view?.game?.name ?? ""),
    connection && h("span", { class: `conn conn-${connection}`, testid: "connection", title: t(`conn.${connection}`) },
      t(`conn.${connection}`)),
    h("span", { class: queued ? "badge" : "badge empty", title: t("outbox.title", { count: queued }) },
      "⇅ ", h("span", { testid: "outbox-count" }, String(queued))),
    h("button", {
      class: "icon", testid: "sun-switch", "aria-pressed": String(prefs.sun), title: t("sun.title"),
      onclick: () => {
        prefs.sun = !prefs.sun;
        localStorage.setItem("bijse.sun", prefs.sun ? "1" : "0");
        document.documentElement.classList.toggle("sun", prefs.sun);
        app.render();
      },
    }, "☀"),
    h("button", {
      class: "icon", testid: "lang-switch", title: t("lang.title"),
      onclick: () => {
        setLang(getLang() === "cs" ? "en" : "cs");
        app.render();
      },
    }, t("lang.other")),
  );
}

export function errorList(game, notices = []) {
  const errors = game ? game.errors.slice(-3) : [];
  if (!errors.length && !notices.length) return null;
  return h("div", { class: "errors", role: "alert" },
    errors.map((e) => h("div", { class: "error", testid: "error", "data-code": e.code },
      h("span", {}, errorText(e.code, e.message, game.view?.game?.ruleset)),
      h("button", { class: "icon", "aria-label": t("close"), onclick: () => game.dismissError(e.id) }, "✕"))),
    notices.map((n) => h("div", { class: `error ${n.kind ?? ""}`, testid: "notice" }, n.text)));
}

export function cardFace(card) {
  return [
    h("span", { class: "card-title" }, card.title),
    h("span", { class: "card-nums" },
      h("b", { class: "big" }, card.big), "/", h("span", { class: "small" }, card.small),
      card.ranged ? h("span", { class: "star", title: t("card.ranged") }, " ★") : null),
    h("span", { class: "card-kind" }, t(`kind.${card.kind}`)),
  ];
}

export function cardView(card, attrs = {}) {
  return h("div", { class: `card kind-${card.kind}`, ...attrs }, cardFace(card));
}

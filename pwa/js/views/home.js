// The start screen: the games this phone has joined, and creating a new game (organizer).
import { h } from "../dom.js";
import { errorText, inFront, t } from "../i18n.js";
import { api } from "../api.js";
import { adminKey, forget, saveAdminKey, saveSession, sessions, setCurrent } from "../session.js";
import { keepOffline, known, part } from "../rulesets.js";

// The rulesets the server plays and their parts of the form ({id: module}), once loaded.
let forms = null;
function loadForms(app) {
  addEventListener("online", () => { if (!Object.keys(forms).length) loadForms(app); }, { once: true });
  forms = {};
  known().then((list) => Promise.all(list.map((r) => part(r.id, "create").then((m) => [r.id, m], () => null))))
    .then((pairs) => {
      forms = Object.fromEntries(pairs.filter(Boolean));
      keepOffline();
      app.render();
    });
}

export function homeScreen(app) {
  const list = sessions();
  return h("main", { class: "home" },
    h("h1", { class: "home-title" }, "Bij se!"),
    h("p", { class: "lead" }, t("home.lead")),
    list.length > 0 && h("section", { class: "sessions" },
      h("h2", {}, t("home.my_games")),
      list.map((s, i) => h("div", { class: "session-row" },
        h("button", {
          class: "secondary session-open", testid: `open-game-${i}`,
          onclick: () => {
            setCurrent(s.token);
            location.hash = "#/";
            app.route();
          },
        },
        h("strong", {}, s.game_name || s.game_id), " ",
        h("span", {}, [s.player_name, s.role && t(`role.${s.role}`)].filter(Boolean).join(" · "))),
        h("button", {
          class: "icon", testid: `forget-game-${i}`, "aria-label": t("home.forget"), title: t("home.forget"),
          onclick: () => {
            if (app.ui.confirmForget !== s.token) return app.set({ confirmForget: s.token });
            forget(s.token);
            app.set({ confirmForget: null });
            return null;
          },
        }, app.ui.confirmForget === s.token ? t("home.forget_confirm") : "✕")))),
    createForm(app),
    h("p", { class: "hint" }, t("home.join_hint")));
}

function createForm(app) {
  if (forms === null) loadForms(app);
  const ids = Object.keys(forms);
  if (!ids.length) return navigator.onLine ? null : h("p", { class: "hint", testid: "create-offline" }, t("home.create_offline"));
  const ui = app.ui;
  ui.create ??= { name: "", ruleset: ids[0], ...Object.assign({}, ...Object.values(forms).map((m) => m.defaults())) };
  const f = ui.create;
  const form = forms[f.ruleset] ?? forms[ids[0]];
  inFront(forms[f.ruleset] ? f.ruleset : ids[0]); // its part of the form, in its own words
  const field = (key, testid, label, attrs = {}) => h("label", {}, label,
    h("input", { testid, value: f[key], oninput: (e) => { f[key] = e.target.value; }, ...attrs }));
  return h("form", {
    class: "create", testid: "create-form",
    onsubmit: async (event) => {
      event.preventDefault();
      const config = form.config(f);
      const name = f.name.trim() || (form.defaultName?.() ?? t("home.default_name"));
      app.set({ creating: true });
      try {
        const key = f.admin_key?.trim() || adminKey();
        const answer = await api.createGame({ ruleset: f.ruleset, name, config }, key);
        if (f.admin_key?.trim()) saveAdminKey(f.admin_key.trim());
        saveSession({ game_id: answer.game_id, token: answer.organizer_token, game_name: name, role: "organizer" });
        setCurrent(answer.organizer_token);
        ui.create = null;
        location.hash = "#/";
        app.route();
      } catch (err) {
        if (err.code === "unauthorized") {
          ui.needsAdmin = true; // this server creates games for its admin key only
          saveAdminKey(null);
          app.notify(t("create.admin_needed"));
        } else {
          app.notify(errorText(err.code, err.message));
        }
      } finally {
        app.set({ creating: false });
      }
    },
  },
  h("h2", {}, t("home.new_game")),
  field("name", "game-name", t("create.name"), { placeholder: t("home.default_name"), autocomplete: "off" }),
  h("label", {}, t("create.ruleset"),
    h("select", { testid: "config-ruleset", onchange: (e) => { f.ruleset = e.target.value; app.render(); } },
      ids.map((id) => h("option", { value: id, selected: f.ruleset === id }, t(`ruleset.${id}`))))),
  form.fields(app, f),
  ui.needsAdmin ? field("admin_key", "admin-key", t("create.admin_key"), { type: "password", autocomplete: "off" }) : null,
  h("button", { type: "submit", class: "primary wide", testid: "create-game", disabled: Boolean(ui.creating) }, t("create.submit")));
}

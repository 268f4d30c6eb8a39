// The start screen: the games this phone has joined, and creating a new game (organizer).
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { api } from "../api.js";
import { adminKey, forget, saveAdminKey, saveSession, sessions, setCurrent } from "../session.js";
import { rankConfig, rankDefaults, rankFields } from "./rank_create.js";
import { diceConfig, diceFields } from "./dice_create.js";
import { deckConfig, deckDefaults, deckFields } from "./deck_create.js";

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
  const ui = app.ui;
  ui.create ??= { name: "", ruleset: "card-duel", stun_s: "300", escape_immunity_s: "10", pick_timeout_s: "", ...rankDefaults(), ...deckDefaults() };
  const f = ui.create;
  const field = (key, testid, label, attrs = {}) => h("label", {}, label,
    h("input", { testid, value: f[key], oninput: (e) => { f[key] = e.target.value; }, ...attrs }));
  return h("form", {
    class: "create", testid: "create-form",
    onsubmit: async (event) => {
      event.preventDefault();
      const config = f.ruleset === "rank-bases" ? rankConfig(f) : f.ruleset === "dice-combat" ? diceConfig(f) : f.ruleset === "stamina-deck" ? deckConfig(f) : {
        stun_s: Number.parseInt(f.stun_s, 10),
        escape_immunity_s: Number.parseInt(f.escape_immunity_s, 10),
        pick_timeout_s: f.pick_timeout_s.trim() === "" ? null : Number.parseInt(f.pick_timeout_s, 10),
      };
      const name = f.name.trim() || (f.ruleset === "rank-bases" ? t("ruleset.rank-bases") : t("home.default_name"));
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
      ["card-duel", "rank-bases", "dice-combat", "stamina-deck"].map((id) => h("option", { value: id, selected: f.ruleset === id }, t(`ruleset.${id}`))))),
  f.ruleset === "rank-bases" ? rankFields(app, f) : f.ruleset === "dice-combat" ? diceFields(app, f) : f.ruleset === "stamina-deck" ? deckFields(app, f) : h("div", { class: "num-row" },
    field("stun_s", "config-stun-s", t("create.stun_s"), { type: "number", min: "0", inputmode: "numeric" }),
    field("escape_immunity_s", "config-immunity-s", t("create.immunity_s"), { type: "number", min: "0", inputmode: "numeric" }),
    field("pick_timeout_s", "config-pick-timeout-s", t("create.pick_timeout_s"), {
      type: "number", min: "1", inputmode: "numeric", placeholder: t("create.none"),
    })),
  ui.needsAdmin ? field("admin_key", "admin-key", t("create.admin_key"), { type: "password", autocomplete: "off" }) : null,
  h("button", { type: "submit", class: "primary wide", testid: "create-game", disabled: Boolean(ui.creating) }, t("create.submit")));
}

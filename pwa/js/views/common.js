// Pieces every screen uses: the top bar, refused-command notices, a card; and pieces several
// rulesets share: a console's game actions and seed, an opponent's code form, the GM's players.
import { h } from "../dom.js";
import { api } from "../api.js";
import { alertsTapped, confirmAlerts } from "../alerts.js";
import { newCommandId } from "../outbox.js";
import { errorText, getLang, setLang, shownName, t } from "../i18n.js";
import { rows } from "../keyed.js";
import { presenceLine, presenceMarks } from "../presence.js";
import { canScan } from "./scanner.js";

export const prefs = {
  sun: localStorage.getItem("bijse.sun") === "1",
};
document.documentElement.classList.toggle("sun", prefs.sun);

export function topbar(app, game) {
  const queued = game ? game.queued.length : 0;
  // Offline, a socket still trying to connect is no signal either (it would flicker "connecting").
  const status = game?.connection === "open" || navigator.onLine ? game?.connection : "closed";
  const connection = game ? (game.fatal ? "fatal" : status) : null;
  return h("header", { class: "topbar" },
    // The accessible name starts with the visible text (WCAG 2.5.3: say what you see).
    h("a", { class: "brand", href: "#/games", "aria-label": `Bij se – ${t("nav.games")}` }, "Bij se"),
    h("span", { class: "title" }, game?.view?.game?.name ?? ""),
    // No signal (or a refused link) is news: a full-width bar of the header, not a small chip.
    connection && h("span", {
      class: `conn conn-${connection}${connection === "closed" || connection === "fatal" ? " conn-bar" : ""}`,
      testid: "connection", title: t(`conn.${connection}`), role: "status",
    }, t(`conn.${connection}`)),
    h("span", { class: queued ? "badge" : "badge empty", title: t("outbox.title", { count: queued }) },
      "⇅ ", h("span", { testid: "outbox-count" }, String(queued))),
    // Sun mode is a switch with its name on it: a glove finds it, a reader knows what it does.
    h("button", {
      class: `icon sun-switch${prefs.sun ? " on" : ""}`, testid: "sun-switch", role: "switch",
      "aria-checked": String(prefs.sun), title: t("sun.title"),
      onclick: () => {
        prefs.sun = !prefs.sun;
        localStorage.setItem("bijse.sun", prefs.sun ? "1" : "0");
        document.documentElement.classList.toggle("sun", prefs.sun);
        app.render();
      },
    }, h("span", { "aria-hidden": "true" }, "☀"), h("span", { class: "switch-label" }, t("sun.label"))),
    h("button", {
      class: "icon", testid: "lang-switch", title: t("lang.title"),
      onclick: () => setLang(getLang() === "cs" ? "en" : "cs").then(() => app.render()),
    }, t("lang.other")),
  );
}

// Until the player has tapped it once on this phone: the tap browsers need before a phone may buzz
// and beep. A console does not ring, so it does not ask.
export function alertsPrompt(app, game) {
  // Not on the home screen either: who opens it with no game is most often an organizer.
  if (alertsTapped() || !game?.view?.me || game.view.me.role === "organizer") return null;
  if (game.view.game?.status === "ended") return null; // nothing rings any more
  return h("button", {
    class: "primary wide alerts-prompt no-print", testid: "unlock-alerts",
    onclick: () => {
      confirmAlerts();
      app.render();
    },
  }, t("alerts.unlock"));
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
    // A special card (card-duel) says what it does.
    card.effect ? h("span", { class: "card-effect" }, card.effect) : null,
  ];
}

export function cardView(card, attrs = {}) {
  return h("div", { class: `card kind-${card.kind}`, ...attrs }, cardFace(card));
}

// A command of this type, with these fields, is queued or not yet in the view: its button waits.
export function sending(game, type, fields = {}) {
  return game.inFlight().some((c) => c.type === type && Object.entries(fields).every(([k, v]) => c[k] === v));
}

// The refusal of an action the view offers ({code, until?}), or null: offered, or not in `may`
// (a view that says nothing of an action leaves it to the server).
export function refused(view, action) {
  const entry = view?.may?.[action];
  return entry && entry !== true ? entry : null;
}

// A console's actions: start, end (a second tap within 5 s confirms; `ui.confirmEnd` holds the
// first), the invite sheet, any `links` of the ruleset's own, and the replay once the game ended.
export function gameControls(app, game, ui, { links = null } = {}) {
  const info = game.view.game;
  const startRefused = refused(game.view, "start_game");
  return h("div", { class: "actions" },
    info.status === "lobby" && h("button", {
      class: "primary", testid: "start-game", disabled: Boolean(startRefused) || sending(game, "start_game"),
      onclick: () => game.send({ type: "start_game" }),
    }, t("game.start")),
    info.status === "lobby" && startRefused && h("p", { class: "hint", testid: "start-refused" },
      errorText(startRefused.code, "", info.ruleset)),
    info.status === "running" && (ui.confirmEnd
      ? h("button", {
        class: "danger", testid: "end-game-confirm", disabled: sending(game, "end_game"),
        onclick: () => { ui.confirmEnd = false; game.send({ type: "end_game" }); },
      }, t("game.end_confirm"))
      : h("button", {
        class: "secondary", testid: "end-game",
        onclick: () => {
          ui.confirmEnd = true;
          app.render();
          setTimeout(() => { ui.confirmEnd = false; app.render(); }, 5000);
        },
      }, t("game.end"))),
    h("a", { class: "button secondary", href: "#/invites", testid: "show-invites" }, t("invites.show")),
    links,
    info.status === "ended" && h("a", {
      class: "button secondary", href: `#/replay/${encodeURIComponent(game.gameId)}`, testid: "open-replay",
    }, t("replay.open")));
}

// What a screen shows while its module or the view is on the way.
export function loadingScreen() {
  return h("main", { class: "loading", testid: "loading" },
    h("p", {}, navigator.onLine ? t("loading") : t("loading.offline")));
}

// A console's head: the game's name, its status, the ruleset's chips (`chips`, `extra` below
// them) and the console's actions (gameControls with `links`).
export function gameHead(app, game, { ui = app.ui, chips = [], extra = null, links = null } = {}) {
  const info = game.view.game;
  return h("section", { class: "game-head" },
    h("h1", { testid: "game-name" }, info.name),
    h("div", { class: "game-meta" },
      h("span", { class: `chip status-${info.status}`, testid: "game-status", "data-status": info.status }, t(`status.${info.status}`)),
      chips.filter(Boolean).map((chip) => h("span", { class: "chip" }, chip))),
    extra,
    gameControls(app, game, ui, { links }));
}

// A member's name from the view's members or players (the organizer's "Organizer" in words).
export function nameOf(view, id) {
  const member = view.members?.[id] ?? view.players?.[id];
  return member ? shownName(member.name, member.role) : id;
}

// The organizer's form to add members: one with a role (of `roles`) and, where the ruleset has
// teams, a team (`teams`: [{team_id, name}], for the roles in `teamRoles`); or a pasted list of
// players. `title` and `pasteLabel(team)` are the ruleset's words where its own differ.
export function memberForm(app, game, { roles, teams = null, teamRoles = [], title = t("add.title"), pasteLabel = () => t("add.paste"), note = null }) {
  const ui = app.ui;
  const busy = Boolean(ui.adding);
  const role = ui.newRole || roles[0];
  if (teams) ui.newTeam ??= teams[0]?.team_id ?? "";
  const needsTeam = Boolean(teams) && teamRoles.includes(role);
  const teamPicker = (testid) => h("select", {
    testid, "aria-label": t("add.team"), onchange: (e) => { ui.newTeam = e.target.value; app.render(); },
  }, teams.map((team) => h("option", { value: team.team_id, selected: ui.newTeam === team.team_id }, team.name)));
  return h("section", { class: "add-players" },
    h("h2", {}, title),
    note,
    h("form", {
      class: "add-one",
      onsubmit: (event) => {
        event.preventDefault();
        const name = (ui.newName || "").trim();
        // Cleared once added, unless the organizer has typed the next name meanwhile.
        if (name) addMembers(app, game, [name], { role, team: needsTeam ? ui.newTeam : null, done: () => { if ((ui.newName || "").trim() === name) ui.newName = ""; } });
      },
    },
    h("input", {
      id: "player-name", testid: "player-name", value: ui.newName || "", placeholder: t("add.name"),
      autocomplete: "off", "aria-label": t("add.name"), oninput: (e) => { ui.newName = e.target.value; },
    }),
    h("select", {
      testid: "player-role", "aria-label": t("add.role"), onchange: (e) => { ui.newRole = e.target.value; app.render(); },
    }, roles.map((r) => h("option", { value: r, selected: role === r }, t(`role.${r}`)))),
    needsTeam && teamPicker("player-team"),
    h("button", { type: "submit", class: "primary", testid: "add-player", disabled: busy }, t("add.one"))),
    h("form", {
      class: "add-many",
      onsubmit: (event) => {
        event.preventDefault();
        const names = (ui.nameList || "").split("\n").map((n) => n.trim()).filter(Boolean);
        if (names.length) addMembers(app, game, names, { role: "player", team: teams ? ui.newTeam : null, done: (added) => {
          ui.nameList = names.slice(added).join("\n");
        } });
      },
    },
    h("label", { for: "player-list-input" }, pasteLabel(ui.newTeam)),
    teams && teamPicker("list-team"),
    h("textarea", {
      id: "player-list-input", testid: "player-list-input", rows: "5", placeholder: t("add.paste_placeholder"),
      oninput: (e) => { ui.nameList = e.target.value; },
    }, ui.nameList || ""),
    h("button", { type: "submit", class: "primary", testid: "add-players", disabled: busy }, t("add.many"))),
    addStatus(ui));
}

// A player's last screen once the game has ended: its own outcome (`mine`), its own duels won and
// lost (`duels`), the game's result (`result`, an element or text) and the way to the replay.
export function gameOver(game, { mine = null, duels = null, result = null } = {}) {
  return h("section", { class: "game-over", testid: "game-over" },
    h("h2", {}, t("game.over")),
    mine && h("p", { class: "game-over-mine", testid: "game-over-mine" }, mine),
    duels && h("p", { class: "game-over-duels", testid: "game-over-duels" }, duels),
    result && h("div", { class: "game-over-result", testid: "game-over-result" }, result),
    h("a", {
      class: "button primary wide", href: `#/replay/${encodeURIComponent(game.gameId)}`, testid: "game-over-replay",
    }, t("replay.open")));
}

// The seed's hash from the start, the seed itself after the end.
export function seedSection(view) {
  return h("section", { class: "seed" },
    h("div", {}, t("game.seed_sha256"), " ", h("code", {}, view.game.seed_sha256 ?? "")),
    view.game.seed && h("div", {}, t("game.seed"), " ", h("code", { testid: "seed" }, view.game.seed)));
}

export const CODE_PATTERN = /^[A-Z0-9]{4}$/;

// The member whose code has been typed (or none), from the game's directory.
export function typedPlayer(game, raw) {
  return game.directory.byCode(raw);
}

// The other players, from the game's directory; listed only while open (a game may have 1,000).
export function playersList(app, game, { extra = () => null } = {}) {
  const me = game.view.me?.player_id;
  const others = Object.entries(game.directory.all()).filter(([id, m]) => id !== me && m.role === "player");
  if (!others.length) return null;
  const open = Boolean(app.ui.playersOpen);
  return h("details", {
    class: "players-list", testid: "players-list", open,
    ontoggle: (e) => { if (e.target.open !== open) app.set({ playersOpen: e.target.open }); },
  },
  h("summary", {}, t("players.title", { count: others.length })),
  open && h("ul", {}, others.map(([, m]) => h("li", {}, h("span", { class: "code-small" }, m.code), " ", m.name, extra(m)))));
}

// A console's search over a long list of players: by name (any case, with or without accents)
// or by code. `ui.playerFilter` keeps what is typed.
const folded = (text) => String(text ?? "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();

export function matchesFilter(filter, name, code) {
  const wanted = folded(filter).trim();
  return !wanted || folded(name).includes(wanted) || folded(code).startsWith(wanted);
}

export function playerFilter(app, { count, shown }) {
  const filter = app.ui.playerFilter || "";
  return h("div", { class: "player-filter" },
    h("input", {
      type: "search", testid: "player-filter", value: filter, placeholder: t("players.filter"),
      "aria-label": t("players.filter"), autocomplete: "off", spellcheck: "false",
      oninput: (e) => app.set({ playerFilter: e.target.value }),
    }),
    filter.trim() && h("span", { class: "hint", testid: "player-filter-count" },
      shown ? t("players.filter_shown", { shown, count }) : t("players.filter_none", { filter: filter.trim() })));
}

// Naming an opponent by their 4-character code, typed or scanned from their QR (card-duel's
// challenge, rank-bases' duel). `name` prefixes the ids and hooks (`<name>-form`, `-code`,
// `-submit`, `-target`, `-pending`), app.ui[`field`] keeps what is typed, `hint` says whose code it
// is, `extra` stands under the hint, and `onCode` gets the code on submit.
export function codeForm(app, game, { name, field, label, submit, hint, busy = false, pending, extra = null, onCode }) {
  const ui = app.ui;
  return h("form", {
    class: "challenge", testid: `${name}-form`,
    onsubmit: (event) => {
      event.preventDefault();
      onCode(ui[field]);
    },
  },
  h("label", { for: `${name}-code` }, label),
  h("div", { class: "challenge-row" },
    h("input", {
      id: `${name}-code`, testid: `${name}-code`, value: ui[field] || "", maxlength: "4",
      autocomplete: "off", autocapitalize: "characters", spellcheck: "false", enterkeyhint: "go",
      placeholder: "ABCD", "aria-describedby": `${name}-target`,
      oninput: (event) => {
        ui[field] = event.target.value.toUpperCase();
        app.render();
      },
    }),
    h("button", { type: "submit", class: "primary", testid: `${name}-submit`, disabled: busy }, submit)),
  hint && h("div", { class: "hint", id: `${name}-target`, testid: `${name}-target` }, hint),
  extra,
  pending && h("div", { class: "chip wait", testid: `${name}-pending` }, game.queued.length ? t("challenge.queued") : t("challenge.sent")),
  canScan() && h("button", { type: "button", class: "secondary", testid: "scan-qr", onclick: () => app.set({ scanning: true }) },
    t("challenge.scan")));
}

// A code typed or scanned: checked, then sent as `command(code)`; app.ui[`field`] is emptied.
export function sendCode(app, game, raw, field, command) {
  const code = (raw || "").trim().toUpperCase();
  app.ui.scanning = false;
  if (!CODE_PATTERN.test(code)) return app.notify(t("challenge.bad_code"));
  if (code === game.view.me.code) return app.notify(t("challenge.self"));
  app.ui[field] = "";
  game.send(command(code));
  app.render();
  return null;
}

// A GM's players (dice-combat, stamina-deck): each with the names it plays (`linked(member)`, or
// none), and a box to paste new names into (`hint`); `ui` keeps the names and the progress.
export function gmPlayers(app, game, ui, { linked, hint }) {
  const list = rows(game.view.members, "player_id").filter((m) => m.role === "player");
  return h("section", { class: "dc-players" },
    h("h2", {}, t("players.title", { count: list.length })),
    list.length > 0 && presenceLine(game, list),
    list.length > 0 && h("ul", { class: "plain" }, list.map((m) => {
      const names = linked(m);
      return h("li", { testid: `member-${m.player_id}` }, ...presenceMarks(game, m), " ", h("span", { class: "code-small" }, m.code), " ", m.name,
        names.length ? h("span", { class: "muted" }, ` → ${names.join(", ")}`) : h("span", { class: "muted" }, ` · ${t("players.no_character")}`));
    })),
    h("form", {
      class: "add-one",
      onsubmit: (event) => {
        event.preventDefault();
        const names = (ui.newPlayers || "").split("\n").map((n) => n.trim()).filter(Boolean);
        if (names.length) addMembers(app, game, names, { role: "player", ui, done: (added) => {
          ui.newPlayers = names.slice(added).join("\n");
        } });
      },
    },
    h("label", { for: "player-list-input" }, hint),
    h("textarea", {
      id: "player-list-input", testid: "player-list-input", rows: "3", placeholder: t("add.paste_placeholder"),
      oninput: (e) => { ui.newPlayers = e.target.value; },
    }, ui.newPlayers || ""),
    h("button", { type: "submit", class: "primary", testid: "add-players", disabled: Boolean(ui.adding) }, t("add.many"))),
    addStatus(ui));
}

// The add forms' progress or result (`ui.addStatus`: a function that makes it in the language now).
function addStatus(ui) {
  const words = typeof ui.addStatus === "function" ? ui.addStatus() : ui.addStatus;
  return words ? h("div", { class: "hint", testid: "add-status" }, words) : null;
}

// Members are added over HTTP in as few requests as the server takes (500 names each, all or
// none, each with a command_id: a retried request adds nobody twice), the progress and the result
// in `ui.addStatus` (app.ui unless a ruleset keeps its own); the socket then brings the new table.
// `done(added)` runs at the end, also after a failure.
const NAMES_PER_REQUEST = 500;

export async function addMembers(app, game, names, { role, team = null, ui = app.ui, done }) {
  let added = 0;
  // Kept as words to make, not made: a switch of language redraws them in the new one.
  const status = (words) => {
    ui.addStatus = words;
    app.render();
  };
  ui.adding = true;
  try {
    while (added < names.length) {
      const batch = names.slice(added, added + NAMES_PER_REQUEST);
      const done = added;
      status(() => t("add.progress", { done, total: names.length }));
      await api.addPlayers(game.gameId, game.token, batch.map((name) => ({ name, role, team })), newCommandId());
      added += batch.length;
    }
    const count = added;
    status(() => t("add.done", { count }));
  } catch (err) {
    const at = added;
    const left = names.length - at;
    status(() => `${left === 1
      ? t("add.failed", { name: names[at] })
      : t("add.failed_list", { count: Math.min(NAMES_PER_REQUEST, left) })} ${errorText(err.code, err.message)}`);
  } finally {
    done(added);
    ui.adding = false;
    app.ui.invitesFor = null;
    app.render();
    game.refresh();
  }
}

// The members a console lists apart from its players (`which` picks them), with their roles.
export function membersList(view, which) {
  const others = rows(view.members, "player_id").filter(which);
  if (!others.length) return null;
  return h("section", { class: "members" },
    h("h2", {}, t("members.title")),
    h("ul", {}, others.map((m) => h("li", {}, h("span", { class: "code-small" }, m.code ?? ""), " ", shownName(m.name, m.role), " · ", t(`role.${m.role}`)))));
}

// The head of a console's player row: name, code and the ruleset's chips; a tap opens the row.
export function playerRowHead(app, p, open, ...chips) {
  return h("button", {
    class: "prow-head", testid: `player-open-${p.player_id}`, "aria-expanded": String(open),
    onclick: () => app.set({ openRow: open ? null : p.player_id }),
  },
  h("span", { class: "pname" }, p.name),
  h("span", { class: "code-small" }, p.code),
  h("span", { class: "chips" }, ...chips));
}

// The organizer's console: the game, adding players, active duels and the live table of players.
import { h, keyed } from "../../dom.js";
import { getLang, t } from "../../i18n.js";
import { formatLeft, inForce } from "../../clock.js";
import { countdown } from "../../countdown.js";
import { count, rows } from "../../keyed.js";
import { suffering } from "./player.js";
import { parse } from "./qrtext.js";
import { presenceLine, presenceMarks } from "../../presence.js";
import { gameHead, matchesFilter, memberForm, nameOf, sending, membersList, playerFilter, playerRowHead, seedSection } from "../../views/common.js";

const KINDS = ["stun", "wound", "escape", "death", "special"];
const ROLES = ["player", "organizer", "spectator"];


export function organizerScreen(app, game) {
  const view = game.view;
  return h("main", { class: "organizer" },
    head(app, game),
    duels(app, game),
    offlineDuels(game),
    playersTable(app, game),
    memberForm(app, game, { roles: ROLES }),
    membersList(view, (m) => m.role !== "player"),
    seedSection(view));
}

function head(app, game) {
  const config = game.view.game.config || {};
  return gameHead(app, game, {
    chips: [
      t("config.stun_short", { time: formatLeft((config.stun_s ?? 0) * 1000) }),
      t("config.immunity_short", { count: config.escape_immunity_s ?? 0 }),
      config.pick_timeout_s ? t("config.pick_timeout_short", { count: config.pick_timeout_s }) : t("config.no_pick_timeout"),
    ],
  });
}


// Active duels; one whose pick deadline has passed has ended by itself.
function activeDuels(view) {
  return rows(view.duels, "duel_id").filter((d) => !d.deadline || inForce(d.deadline));
}

function duels(app, game) {
  const list = activeDuels(game.view);
  const view = game.view;
  if (!list.length) return null;
  return h("section", { class: "duels" },
    h("h2", {}, t("duels.title", { count: list.length })),
    keyed("div", { class: "duel-list" }, list.map((duel) => ({
      key: duel.duel_id,
      data: [duel, duel.players.map((pid) => nameOf(view, pid)), getLang(),
        game.inFlight().some((c) => c.type === "cancel_duel" && c.duel_id === duel.duel_id)],
      render: () => duelRow(game, duel),
    }))));
}

function duelRow(game, duel) {
  const view = game.view;
  return h("div", { class: "duel-row", testid: `duel-row-${duel.duel_id}` },
    h("div", { class: "duel-names" },
      duel.players.map((pid, i) => [i ? " × " : "", h("strong", {}, nameOf(view, pid)),
        h("span", { class: duel.picks?.[pid] ? "pickmark done" : "pickmark" }, duel.picks?.[pid] ? " ✓" : " …")])),
    h("div", { class: "duel-info" },
      h("span", { class: "chip" }, t("duels.round", { round: duel.round })),
      duel.ranged && h("span", { class: "chip" }, t("duel.ranged")),
      duel.deadline && inForce(duel.deadline) && h("span", { class: "chip" }, countdown(duel.deadline))),
    h("button", {
      class: "secondary", testid: `cancel-duel-${duel.duel_id}`,
      disabled: game.inFlight().some((c) => c.type === "cancel_duel" && c.duel_id === duel.duel_id),
      onclick: () => game.send({ type: "cancel_duel", duel_id: duel.duel_id }),
    }, t("duels.cancel")));
}

// Duels settled phone to phone with no signal, as they came in: disputes still to rule first
// (however old), then the newest, ten rows in all (more while more disputes wait).
function offlineDuels(game) {
  const view = game.view;
  const all = rows(view.offline || {}, "duel_id").reverse();
  const open = all.filter((duel) => duel.dispute && duel.dispute.ruling == null);
  const list = [...open, ...all.filter((duel) => !open.includes(duel)).slice(0, Math.max(0, 10 - open.length))];
  if (!list.length) return null;
  return h("section", { class: "offline-duels", testid: "offline-duels" },
    h("h2", {}, t("offline.console.title", { count: count(view.offline) })),
    keyed("div", { class: "duel-list" }, list.map((duel) => ({
      key: duel.duel_id,
      data: [duel, duel.players.map((pid) => nameOf(view, pid)), getLang(),
        sending(game, "settle_dispute", { duel_id: duel.duel_id })],
      render: () => offlineRow(game, duel),
    }))));
}

function offlineRow(game, duel) {
  const view = game.view;
  const dispute = duel.dispute;
  return h("div", {
    class: `duel-row offline-row${dispute ? " disputed" : ""}${dispute && dispute.ruling == null ? " open" : ""}`,
    testid: `offline-row-${duel.duel_id}`,
    "data-void": duel.void || "", "data-dispute": dispute?.reason ?? "", "data-ruling": dispute?.ruling ?? "",
  },
  h("div", { class: "duel-names" },
    duel.players.map((pid, i) => [i ? " × " : "", h("strong", {}, nameOf(view, pid))])),
  h("div", { class: "duel-info" },
    dispute && h("span", { class: `chip dispute${dispute.ruling == null ? " open" : ""}`, testid: `dispute-chip-${duel.duel_id}` },
      t(dispute.ruling == null ? "offline.dispute.chip" : "offline.dispute.chip_ruled")),
    h("span", { class: "chip" }, new Date(duel.at).toLocaleTimeString(getLang(), { hour: "2-digit", minute: "2-digit" })),
    duel.void
      ? h("span", { class: "chip bad" }, t("offline.console.void"), " – ", t(`offline.void.${duel.void}`))
      : h("span", { class: "chip ok" }, t("offline.console.recorded")),
    duel.forfeit && h("span", { class: "chip" }, t("offline.console.forfeit", { name: nameOf(view, duel.forfeit) }))),
  dispute && disputeBlock(game, duel));
}

// What the phones' record and the log disagree on, in words, and the organizer's two rulings
// (then the ruling given, and a reminder that the server changes nothing else).
function disputeBlock(game, duel) {
  const { dispute, duel_id: id } = duel;
  const busy = sending(game, "settle_dispute", { duel_id: id });
  const rule = (ruling) => h("button", {
    class: `secondary dispute-rule rule-${ruling}`, testid: `rule-${ruling}-${id}`, disabled: busy,
    onclick: () => game.send({ type: "settle_dispute", duel_id: id, ruling }),
  }, t(`offline.dispute.rule.${ruling}`));
  return h("div", { class: "dispute", testid: `dispute-${id}` },
    h("p", { class: "dispute-what", testid: `dispute-what-${id}` }, disputeWords(game, duel)),
    dispute.ruling == null
      ? h("div", { class: "dispute-actions" }, rule("record"), rule("log"))
      : [h("p", { class: "dispute-ruling", testid: `dispute-ruling-${id}` }, t(`offline.dispute.ruled.${dispute.ruling}`)),
        h("p", { class: "hint", testid: `dispute-apply-${id}` }, t("offline.dispute.apply"))]);
}

function disputeWords(game, duel) {
  const view = game.view;
  const { dispute } = duel;
  const [challenger, target] = duel.players.map((pid) => nameOf(view, pid));
  if (dispute.reason === "revealed") {
    // The challenger's whole record: its last round's pick and reveal show both cards.
    const bodies = (dispute.record || []).map((text) => parse(text)?.body).filter(Boolean).reverse();
    const mine = bodies.find((body) => body.t === "r")?.f;
    const theirs = bodies.find((body) => body.t === "p")?.f;
    const words = { challenger, target };
    return mine && theirs
      ? t("offline.dispute.revealed_cards", { ...words, mine: faceWords(mine), theirs: faceWords(theirs) })
      : t("offline.dispute.revealed", words);
  }
  const duels = (dispute.duels || []).join(", ");
  const count = dispute.duels?.length ?? 0;
  return t(`offline.dispute.acted.${dispute.effect}`, { name: nameOf(view, dispute.loser), duels, count });
}

function faceWords(face) {
  return `${face.title} ${face.big}/${face.small}`;
}

// The live table: one row per player, each drawn again only when what it shows changed (a game
// of 1,000 players redraws one row per change, not the table); a search by name or code.
function playersTable(app, game) {
  const view = game.view;
  const ui = app.ui;
  const duelOf = new Map();
  for (const duel of activeDuels(view)) {
    for (const pid of duel.players) duelOf.set(pid, duel.players.find((other) => other !== pid));
  }
  const all = rows(view.players, "player_id");
  const shown = all.filter((p) => matchesFilter(ui.playerFilter, p.name, p.code));
  const pending = new Map(); // player_id -> the types of commands for them still on the way
  for (const c of game.inFlight()) if (c.player_id) pending.set(c.player_id, [...(pending.get(c.player_id) || []), c.type]);
  return h("section", { class: "players-table" },
    h("h2", {}, t("players.title", { count: count(view.players) })),
    all.length > 0 && presenceLine(game, all, { ready: isReady, readyKey: "presence.ready" }),
    !all.length && h("p", { class: "hint" }, t("players.none")),
    all.length > 0 && playerFilter(app, { count: all.length, shown: shown.length }),
    keyed("div", { class: "player-rows", testid: "player-rows" }, shown.map((p) => {
      const opponent = duelOf.get(p.player_id);
      const row = {
        p, lang: getLang(),
        open: ui.openRow === p.player_id,
        grant: ui.grantFor === p.player_id,
        kind: ui.grantFor === p.player_id ? ui.grant?.kind : null, // the grant form's fields turn on it
        opponent: opponent && nameOf(view, opponent),
        stunned: inForce(p.stunned_until),
        immune: inForce(p.immune_until),
        suffers: suffering(p.effect),
        sending: pending.get(p.player_id) ?? [],
        seen: game.presence && (game.presence[p.player_id] ?? "absent"), // (redrawn when it changes)
      };
      return { key: p.player_id, data: row, render: () => playerRow(app, game, row) };
    })));
}

// Ready for duels with no signal: the phone's key is registered.
const isReady = (p) => p.key_id != null;

function playerRow(app, game, { p, open, opponent, stunned, immune, suffers }) {
  return h("div", { class: `prow ${p.alive ? "" : "is-dead"}`, testid: `player-row-${p.player_id}` },
    playerRowHead(app, p, open,
      ...presenceMarks(game, p, { isReady: isReady(p), readyWords: t("presence.row.ready") }),
      p.alive ? null : h("span", { class: "chip dead", testid: `org-dead-${p.player_id}` }, t("state.dead")),
      p.wounded ? h("span", { class: "chip wound", testid: `org-wounded-${p.player_id}` }, t("state.wounded")) : null,
      stunned && h("span", { class: "chip stun" }, t("state.stunned"), " ",
        countdown(p.stunned_until, { testid: `org-stun-${p.player_id}` })),
      immune && h("span", { class: "chip immune" }, t("state.immune"), " ",
        countdown(p.immune_until, { testid: `org-immune-${p.player_id}` })),
      opponent && h("span", { class: "chip duel", testid: `org-duel-${p.player_id}` }, t("state.in_duel", { name: opponent })),
      suffers && h("span", { class: "chip effect", testid: `org-effect-${p.player_id}` },
        t("state.effect"), " ", h("span", { class: "effect-words" }, p.effect.text),
        p.effect.until ? [" ", countdown(p.effect.until, { testid: `org-effect-countdown-${p.player_id}` })] : null),
      (p.items || []).includes("crossbow") && h("span", { class: "chip" }, t("item.crossbow")),
      p.alive && !p.wounded && !opponent && !stunned && !immune && !suffers && h("span", { class: "chip ok" }, t("state.ok"))),
    open && playerDetail(app, game, p));
}

function playerDetail(app, game, p) {
  const ui = app.ui;
  const send = (command) => game.send({ ...command, player_id: p.player_id });
  return h("div", { class: "prow-detail" },
    h("div", { class: "card-chips" }, (p.cards || []).map((c) => h("span", { class: `card-chip kind-${c.kind}` },
      `${c.title} ${c.big}/${c.small}${c.ranged ? "★" : ""} · ${t(`kind.${c.kind}`)}${c.effect ? `: ${c.effect}` : ""}`))),
    h("div", { class: "actions" },
      h("button", {
        class: "secondary", testid: `grant-card-${p.player_id}`,
        onclick: () => app.set({ grantFor: ui.grantFor === p.player_id ? null : p.player_id }),
      }, t("grant.card")),
      !(p.items || []).includes("crossbow") && h("button", {
        class: "secondary", testid: `grant-crossbow-${p.player_id}`, disabled: sending(game, "grant_item", { player_id: p.player_id }), onclick: () => send({ type: "grant_item", item: "crossbow" }),
      }, t("grant.crossbow")),
      p.alive && p.wounded && h("button", {
        class: "secondary", testid: `heal-${p.player_id}`, disabled: sending(game, "heal", { player_id: p.player_id }), onclick: () => send({ type: "heal" }),
      }, t("action.heal")),
      !p.alive && h("button", {
        class: "secondary", testid: `revive-${p.player_id}`, disabled: sending(game, "revive", { player_id: p.player_id }), onclick: () => send({ type: "revive" }),
      }, t("action.revive"))),
    ui.grantFor === p.player_id && grantForm(app, game, p));
}

function grantForm(app, game, p) {
  const ui = app.ui;
  ui.grant ??= { title: "", big: 3, small: 2, kind: "stun", ranged: false, effect: "", effect_s: "" };
  const g = ui.grant;
  const number = (key, label) => h("label", { class: "num" }, label,
    h("input", {
      type: "number", min: "0", max: "99", inputmode: "numeric", testid: `card-${key}`, value: String(g[key]),
      oninput: (e) => { g[key] = e.target.value; },
    }));
  return h("form", {
    class: "grant-form", testid: "grant-form",
    onsubmit: (event) => {
      event.preventDefault();
      const big = Number.parseInt(g.big, 10);
      const small = Number.parseInt(g.small, 10);
      if (!g.title.trim() || !(big >= 0) || !(small >= 0)) return app.notify(t("grant.invalid"));
      const card = { title: g.title.trim(), big, small, kind: g.kind, ranged: Boolean(g.ranged) };
      if (g.kind === "special") {
        // Only a special card carries an effect (the server refuses it on any other).
        if (!g.effect.trim()) return app.notify(t("grant.effect_missing"));
        const seconds = Number.parseInt(g.effect_s, 10);
        Object.assign(card, { effect: g.effect.trim(), effect_s: seconds > 0 ? seconds : null });
      }
      game.send({ type: "grant_card", player_id: p.player_id, card });
      ui.grant = null;
      app.set({ grantFor: null });
      return null;
    },
  },
  h("label", {}, t("grant.title"),
    h("input", { testid: "card-title", value: g.title, autocomplete: "off", oninput: (e) => { g.title = e.target.value; } })),
  h("div", { class: "num-row" }, number("big", t("grant.big")), number("small", t("grant.small"))),
  h("label", {}, t("grant.kind"),
    // A special card asks for its effect: the form is drawn again with the kind changed.
    h("select", { testid: "card-kind", onchange: (e) => { g.kind = e.target.value; app.set({}); } },
      KINDS.map((kind) => h("option", { value: kind, selected: g.kind === kind }, t(`kind.${kind}`))))),
  g.kind === "special" && [
    h("label", {}, t("grant.effect"),
      h("textarea", {
        testid: "card-effect", maxlength: "200", rows: "2", placeholder: t("grant.effect_example"),
        value: g.effect, oninput: (e) => { g.effect = e.target.value; },
      })),
    h("label", { class: "num" }, t("grant.effect_s"),
      h("input", {
        type: "number", min: "1", max: "86400", inputmode: "numeric", testid: "card-effect-s",
        value: String(g.effect_s), placeholder: t("create.none"),
        oninput: (e) => { g.effect_s = e.target.value; },
      })),
  ],
  h("label", { class: "check" },
    h("input", { type: "checkbox", testid: "card-ranged", checked: Boolean(g.ranged), onchange: (e) => { g.ranged = e.target.checked; } }),
    t("card.ranged")),
  h("button", { type: "submit", class: "primary", testid: "grant-card-submit" }, t("grant.submit")));
}

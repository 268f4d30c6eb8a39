// Post-game replay (#/replay/<game>[/<seq>][?seq=N&viewer=V]): a timeline over every event of
// the log, the view any member (or the public) had right after any event, fetched from the
// server (GET /replay, debounced while scrubbing, a small cache), play and pause at several
// speeds, jumps to the next or previous duel, stun, death, raid …, statistics and the scores
// the ruleset's charts from the log, and a link to the current moment. What a ruleset adds (its
// events in words, its jumps, columns, summary and charts) is its replay part
// (rulesets/<id>/replay.js and replay_index.js, see replay/indexer.js), loaded by the game's id.
//
// A 50,000-event log: the Web Worker reads it (streamed NDJSON, resumable with after=) and
// indexes it once; the event list draws only the rows in sight (fixed row height, windowing).
import { h } from "../dom.js";
import { errorText, getLang, inFront, t } from "../i18n.js";
import { ApiError } from "../api.js";
import { current, sessions, setCurrent } from "../session.js";
import { ReplayLog } from "../replay/log.js";
import { clock, describe, kindOf, memberName, sinceStart } from "../replay/describe.js";
import { nextIn, prevIn } from "../replay/indexer.js";
import { replayPart } from "../replay/part.js";
import { viewSummary } from "../replay/summary.js";
import { statsPanel } from "../replay/stats.js";

const ROW = 60;          // px, one row of the event list (CSS: .replay-row)
const OVERSCAN = 6;      // rows drawn beyond the visible ones, above and below
const DEBOUNCE_MS = 120; // a scrubbing thumb asks for a view once it rests this long
const CACHE = 120;       // views kept (viewer + seq)
export const SPEEDS = [1, 4, 16, 64, 256]; // events per second

let R = null; // the open replay: {gid, token, log, cursor, viewer, ...}
let app = null;

// Redraws are coalesced: once a frame while scrubbing, at most every 100 ms while playing (fast
// playback moves the cursor many events a frame; drawing each would keep the page busy).
let frame = 0;
let lastDraw = 0;
function redraw() {
  if (frame) return;
  const wait = R?.playing ? Math.max(0, 100 - (performance.now() - lastDraw)) : 0;
  frame = setTimeout(() => requestAnimationFrame(() => {
    frame = 0;
    lastDraw = performance.now();
    app.render();
  }), wait);
}

// #/replay/<gid>[/<seq>][?seq=N&viewer=V]: opens the replay with this phone's token for that
// game. false when this phone has not joined the game.
export function openReplay(theApp) {
  app = theApp;
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = path.split("/").map(decodeURIComponent);
  const params = new URLSearchParams(query);
  const gid = parts[1];
  const seq = Number.parseInt(parts[2] ?? params.get("seq") ?? "", 10);
  const viewer = params.get("viewer");
  const mine = current();
  const session = mine?.game_id === gid ? mine : sessions().find((s) => s.game_id === gid);
  if (!gid || !session) return false;
  setCurrent(session.token);
  if (!R || R.gid !== gid || R.token !== session.token) {
    R?.log.stop();
    pause();
    R = {
      gid, token: session.token, cursor: null, viewer: null, me: null,
      views: new Map(), shown: null, inflight: null, error: null, errorKey: null,
      playing: false, speed: 4, scrollTop: 0, listHeight: 6 * ROW, follow: true,
      seqDraft: null, jsonOpen: false, statsSort: null, linkText: null, part: null, partOf: null,
      render: () => redraw(),
    };
    R.log = new ReplayLog(gid, session.token, onLog);
    R.log.load();
  }
  // The address is the state: a seq moves the cursor; no viewer means this phone's own member.
  if (Number.isFinite(seq) && seq >= 1) R.cursor = seq;
  R.viewer = viewer || null;
  R.errorKey = null;
  R.follow = true;
  want();
  return true;
}

// The log grew (a batch from the worker): redraw, at most every 150 ms while it loads.
let logTimer = 0;
function onLog() {
  if (logTimer) return;
  logTimer = setTimeout(() => {
    logTimer = 0;
    const last = R.log.last;
    if (R.log.done && R.cursor !== null && last && R.cursor > last) R.cursor = last;
    app.render();
  }, R.log.loading ? 150 : 0);
}

function viewerId() {
  return R.viewer ?? R.me;
}

function cursor() {
  return R.cursor ?? R.shown?.seq ?? (R.log.last || 1);
}

function last() {
  return Math.max(R.log.last, R.log.done ? 0 : (R.cursor ?? 0), 1);
}

// ---- views from the server: one request at a time, the newest wish wins ----

const keyOf = (seq, viewer) => `${viewer ?? ""}@${seq ?? ""}`;

async function fetchView(seq, viewer) {
  const params = new URLSearchParams();
  if (seq) params.set("seq", String(seq));
  if (viewer) params.set("viewer", viewer);
  let response;
  try {
    response = await fetch(`/api/games/${encodeURIComponent(R.gid)}/replay?${params}`, {
      headers: { Accept: "application/json", Authorization: `Bearer ${R.token}` }, cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch { /* not JSON */ }
  if (!response.ok) throw new ApiError(response.status, data?.error?.code ?? `http_${response.status}`, data?.error?.message ?? "");
  return data;
}

function remember(answer) {
  const key = keyOf(answer.seq, answer.viewer);
  R.views.delete(key);
  R.views.set(key, answer);
  if (R.views.size > CACHE) R.views.delete(R.views.keys().next().value);
}

function want() {
  const key = keyOf(R.cursor, viewerId());
  const cached = R.cursor !== null && viewerId() ? R.views.get(key) : null;
  if (cached) {
    R.shown = cached;
    return;
  }
  clearTimeout(R.debounce);
  R.debounce = setTimeout(pump, R.playing || !R.shown ? 0 : DEBOUNCE_MS);
}

async function pump() {
  if (R.inflight) return; // asked again when the request in flight comes back
  const gid = R.gid;
  const seq = R.cursor;
  const viewer = viewerId();
  const key = keyOf(seq, viewer);
  if (R.errorKey === key) return;
  const cached = seq !== null && viewer ? R.views.get(key) : null;
  if (cached) {
    R.shown = cached;
    redraw();
    return;
  }
  R.inflight = key;
  redraw();
  try {
    const answer = await fetchView(seq, viewer);
    if (R?.gid !== gid) return;
    remember(answer);
    if (!viewer && !R.me) R.me = answer.viewer;
    if (R.cursor === null) R.cursor = answer.seq;
    if (answer.viewer === viewerId()) R.shown = answer;
    R.error = null;
    R.errorKey = null;
  } catch (err) {
    if (R?.gid !== gid) return;
    R.error = err;
    R.errorKey = key;
    pause();
  } finally {
    if (R?.gid === gid) {
      R.inflight = null;
      if (keyOf(R.cursor, viewerId()) !== key) pump();
      redraw();
    }
  }
}

// ---- moving the cursor ----

function setCursor(seq, { follow = true } = {}) {
  const next = Math.min(Math.max(1, Math.round(seq)), last());
  if (next === R.cursor) return;
  R.cursor = next;
  R.seqDraft = null;
  if (follow) R.follow = true;
  if (R.playing) rebase();
  want();
  syncAddress();
  redraw();
}

function setViewer(id) {
  R.viewer = id || null;
  R.errorKey = null;
  want();
  syncAddress();
  redraw();
}

// The address follows the cursor (a reload reopens the same moment), once it rests.
function syncAddress() {
  clearTimeout(R.addressTimer);
  R.addressTimer = setTimeout(() => {
    if (!location.hash.startsWith("#/replay/") || !R) return;
    const next = replayHash(cursor());
    if (location.hash !== next) history.replaceState(null, "", `${location.pathname}${location.search}${next}`);
  }, 400);
}

function replayHash(seq) {
  const viewer = R.viewer && R.viewer !== R.me ? `?viewer=${encodeURIComponent(R.viewer)}` : "";
  return `#/replay/${encodeURIComponent(R.gid)}/${seq}${viewer}`;
}

// ---- play ----

function rebase() {
  R.playFrom = performance.now();
  R.playBase = cursor();
}

function play() {
  if (R.playing) return;
  if (cursor() >= last()) R.cursor = 1;
  R.playing = true;
  rebase();
  R.playTimer = setInterval(tick, 50);
  want();
  app.render();
}

function pause() {
  if (!R?.playing) return;
  R.playing = false;
  clearInterval(R.playTimer);
  app?.render();
}

function tick() {
  if (!R?.playing) return;
  if (!document.querySelector('[data-testid="replay"]')) {
    pause(); // the page was left
    return;
  }
  const at = R.playBase + Math.floor(((performance.now() - R.playFrom) / 1000) * R.speed);
  const end = last();
  if (at >= end) {
    R.playing = false;
    clearInterval(R.playTimer);
    R.cursor = end;
    R.follow = true;
    want();
    syncAddress();
    redraw();
    return;
  }
  if (at !== R.cursor) {
    R.cursor = at;
    R.follow = true;
    want();
    syncAddress();
    redraw();
  }
}

function jump(kind, direction) {
  const list = R.log.index?.jumps?.[kind] || [];
  const target = direction > 0 ? nextIn(list, cursor()) : prevIn(list, cursor());
  if (target !== null) setCursor(target);
}

// The last event at or before a time (the chart's tap).
function seekTime(ms) {
  const events = R.log.events;
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Date.parse(events[mid].at) <= ms) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0) setCursor(events[lo - 1].seq);
}

// Keys: ← → one event (with Shift ten), Home / End, space plays or pauses.
let keysBound = false;
function bindKeys() {
  if (keysBound) return;
  keysBound = true;
  document.addEventListener("keydown", (event) => {
    if (!R || !document.querySelector('[data-testid="replay"]')) return;
    if (event.target.closest?.("input, select, textarea")) return;
    if (event.key === " " && event.target.closest?.("button, summary, a")) return;
    const step = event.shiftKey ? 10 : 1;
    if (event.key === "ArrowRight") setCursor(cursor() + step);
    else if (event.key === "ArrowLeft") setCursor(cursor() - step);
    else if (event.key === "Home") setCursor(1);
    else if (event.key === "End") setCursor(last());
    else if (event.key === " ") (R.playing ? pause : play)();
    else return;
    event.preventDefault();
  });
}

// ---- the screen ----

export function replayScreen(theApp, game) {
  app = theApp;
  bindKeys();
  if (!R) return null;
  if (!R.me && game?.token === R.token && game.view) {
    R.me = game.view.me?.player_id ?? "public";
    if (!R.viewer) want();
  }
  const index = R.log.index;
  const seq = cursor();
  loadPart(index?.ruleset ?? R.shown?.view?.game?.ruleset ?? (game?.token === R.token ? game.view?.game?.ruleset : null));
  queueMicrotask(afterRender);
  return h("main", { class: "replay", testid: "replay", "data-seq": String(seq), "data-last": String(R.log.last) },
    h("div", { class: "replay-head" },
      h("h1", {}, t("replay.title")),
      h("a", { class: "button secondary", href: "#/", testid: "replay-back" }, t("replay.back"))),
    // A player's own duels before the controls: what a player opens the replay for.
    (index && R.part?.mine?.(index, R.me, { jump: (target) => setCursor(target), at: seq })) || null,
    // Every block is always there (empty when it has nothing), so a patch never shifts the
    // list box to another element and loses its scroll.
    h("div", { class: "replay-notes" }, loading()),
    controls(seq),
    jumps(index, seq),
    eventList(index, seq),
    viewerSection(index, seq),
    statsPanel(index, R, { cursorAt: eventAt(seq), seekTime, part: R.part }),
    linkSection(seq));
}

// The ruleset's replay part (with its words): the screen redraws once it has come.
function loadPart(id) {
  if (id) inFront(id);
  if (!id || R.partOf === id) return;
  R.partOf = id;
  const open = R;
  replayPart(id).then((module) => {
    if (R !== open || R.partOf !== id) return;
    if (!module) R.partOf = null; // not loaded (no signal): the next render asks again
    R.part = module;
    redraw();
  });
}

function eventAt(seq) {
  const event = R.log.events[seq - 1];
  return event ? Date.parse(event.at) : Date.parse(R.shown?.at);
}

function loading() {
  const log = R.log;
  if (log.error) {
    const refused = log.error.status === 403;
    return h("div", { class: "banner info", testid: "replay-error" },
      refused ? t("replay.not_yet") : errorText(log.error.code, log.error.message),
      !refused && h("button", { class: "secondary", onclick: () => { log.load(); app.render(); } }, t("replay.retry")));
  }
  if (log.loading) {
    return h("div", { class: "replay-loading", testid: "replay-loading", role: "status" },
      t("replay.loading", { count: log.events.length }));
  }
  if (log.done && log.index?.ruleset && !log.index.ended) {
    return h("div", { class: "replay-loading" },
      t("replay.running"), " ",
      h("button", { class: "secondary", testid: "replay-refresh", onclick: () => { log.load(); app.render(); } }, t("replay.refresh")));
  }
  return null;
}

function controls(seq) {
  const end = last();
  return h("section", { class: "replay-bar" },
    h("input", {
      type: "range", class: "replay-scrubber", testid: "replay-scrubber", min: "1", max: String(end), step: "1",
      value: String(Math.min(seq, end)), "aria-label": t("replay.scrubber"),
      "aria-valuetext": t("replay.event_n", { seq, last: end }),
      oninput: (e) => setCursor(Number(e.target.value)),
    }),
    h("div", { class: "replay-row-controls" },
      h("button", { class: "icon", testid: "replay-prev", "aria-label": t("replay.prev"), title: t("replay.prev"), disabled: seq <= 1, onclick: () => setCursor(seq - 1) }, "◀"),
      h("label", { class: "replay-seq-label" },
        h("span", { class: "sr-only" }, t("replay.seq")),
        h("input", {
          type: "number", class: "replay-seq", testid: "replay-seq", inputmode: "numeric", min: "1", max: String(end),
          value: R.seqDraft ?? String(seq),
          oninput: (e) => { R.seqDraft = e.target.value; },
          onchange: (e) => {
            const n = Number.parseInt(e.target.value, 10);
            R.seqDraft = null;
            if (Number.isFinite(n)) setCursor(n);
            else app.render();
          },
        })),
      h("span", { class: "replay-of", testid: "replay-last" }, `/ ${end.toLocaleString(getLang())}`),
      h("button", { class: "icon", testid: "replay-next", "aria-label": t("replay.next"), title: t("replay.next"), disabled: seq >= end, onclick: () => setCursor(seq + 1) }, "▶"),
      h("button", {
        class: R.playing ? "primary replay-play" : "secondary replay-play", testid: "replay-play", "aria-pressed": String(R.playing),
        onclick: () => (R.playing ? pause : play)(),
      }, R.playing ? t("replay.pause") : t("replay.play")),
      h("select", {
        class: "replay-speed", testid: "replay-speed", "aria-label": t("replay.speed"), title: t("replay.speed"),
        onchange: (e) => {
          R.speed = Number(e.target.value) || 1;
          if (R.playing) rebase();
          app.render();
        },
      }, SPEEDS.map((speed) => h("option", { value: String(speed), selected: speed === R.speed }, t("replay.speed_n", { speed }))))));
}

function jumps(index, seq) {
  // The kinds this ruleset has; those with no event yet only when they are the duels.
  const kinds = (index?.kinds || []).filter((kind) => kind === "duel" || index.jumps?.[kind]?.length);
  return h("section", { class: "replay-jumps", hidden: !kinds.length },
    kinds.map((kind) => {
      const list = index.jumps?.[kind] || [];
      const prev = prevIn(list, seq);
      const next = nextIn(list, seq);
      return h("div", { class: `replay-jump kind-${kind}` },
        h("button", {
          class: "icon", testid: `replay-prev-${kind}`, disabled: prev === null, onclick: () => jump(kind, -1),
          "aria-label": t("replay.prev_kind", { kind: t(`replay.kind.${kind}`) }), title: t("replay.prev_kind", { kind: t(`replay.kind.${kind}`) }),
        }, "«"),
        h("span", { class: "replay-jump-label" }, t(`replay.kinds.${kind}`), " ", h("span", { class: "muted" }, list.length.toLocaleString(getLang()))),
        h("button", {
          class: "icon", testid: `replay-next-${kind}`, disabled: next === null, onclick: () => jump(kind, 1),
          "aria-label": t("replay.next_kind", { kind: t(`replay.kind.${kind}`) }), title: t("replay.next_kind", { kind: t(`replay.kind.${kind}`) }),
        }, "»"));
    }));
}

// The event list: a scrolling box as tall as all rows, with only the rows in sight drawn.
function eventList(index, seq) {
  const events = R.log.events;
  const total = events.length;
  const height = R.listHeight;
  // Follow the cursor once its row is loaded (a deep link may point beyond what has come yet).
  const follow = R.follow && seq >= 1 && seq <= total;
  const target = follow ? Math.max(0, (seq - 1) * ROW - (height - ROW) / 2) : R.scrollTop;
  R.wantScroll = follow ? target : null;
  const first = Math.max(0, Math.floor(target / ROW) - OVERSCAN);
  const end = Math.min(total, Math.ceil((target + height) / ROW) + OVERSCAN);
  R.drawn = [first, end];
  const rows = [];
  for (let i = first; i < end; i += 1) rows.push(eventRow(events[i], index, seq));
  return h("section", { class: "replay-events" },
    h("h2", {}, t("replay.events"), " ", h("span", { class: "muted" }, total.toLocaleString(getLang()))),
    h("div", { class: "replay-list", testid: "replay-events", tabindex: "0", role: "region", "aria-label": t("replay.events") },
      h("div", { class: "replay-spacer", style: `height: ${total * ROW}px` }, rows)));
}

function eventRow(event, index, seq) {
  const kind = kindOf(event.type, index);
  const at = event.seq === seq;
  return h("button", {
    class: `replay-row ${at ? "at" : ""} ${event.seq > seq ? "later" : ""} ${kind ? `kind-${kind}` : ""}`,
    testid: `replay-event-${event.seq}`, style: `top: ${(event.seq - 1) * ROW}px`,
    "aria-current": at ? "true" : null, "data-type": event.type,
    onclick: () => setCursor(event.seq, { follow: false }),
  },
  h("span", { class: "replay-row-meta" }, h("b", {}, event.seq), " ", clock(Date.parse(event.at))),
  h("span", { class: "replay-row-text" }, describe(event, index, R.part)));
}

// After the page is patched: scroll the list to the cursor, and watch its scrolling and size
// (read through a ResizeObserver: reading the height here would lay the page out every time).
let sized = null;
const resizes = typeof ResizeObserver === "undefined" ? null : new ResizeObserver((entries) => {
  const height = Math.round(entries[0]?.contentRect.height ?? 0);
  if (R && height && height !== R.listHeight) {
    R.listHeight = height;
    R.follow = true;
    app.render();
  }
});

function afterRender() {
  const list = document.querySelector('[data-testid="replay-events"]');
  if (!list || !R) return;
  if (list.onscroll !== onListScroll) list.onscroll = onListScroll;
  if (sized !== list) {
    if (sized) resizes?.unobserve(sized);
    sized = list;
    resizes?.observe(list);
  }
  if (R.wantScroll !== null && R.wantScroll !== undefined) {
    const top = Math.round(Math.min(R.wantScroll, Math.max(0, R.log.events.length * ROW - R.listHeight)));
    if (R.scrollTop !== top || list.scrollTop !== top) list.scrollTop = top;
    R.scrollTop = top;
    R.follow = false;
    R.wantScroll = null;
  }
}

let scrollFrame = 0;
function onListScroll(event) {
  const list = event.currentTarget;
  if (scrollFrame) return;
  scrollFrame = requestAnimationFrame(() => {
    scrollFrame = 0;
    if (!R) return;
    R.scrollTop = list.scrollTop;
    const first = Math.max(0, Math.floor(R.scrollTop / ROW) - OVERSCAN);
    const end = Math.min(R.log.events.length, Math.ceil((R.scrollTop + R.listHeight) / ROW) + OVERSCAN);
    if (!R.drawn || first !== R.drawn[0] || end !== R.drawn[1]) redraw();
  });
}

function viewerOptions(index) {
  const me = R.me;
  const options = [];
  const mark = (id, label) => (id === me ? t("replay.viewer.mine", { label }) : label);
  if (!index) return me ? [{ value: me, label: t("replay.viewer.me") }] : [];
  const order = index.order || [];
  const role = (id) => index.members[id]?.role;
  const organizer = role(me) === "organizer" ? me : order.find((id) => role(id) === "organizer");
  if (organizer) options.push({ value: organizer, label: mark(organizer, t("replay.viewer.organizer")) });
  options.push({ value: "public", label: t("replay.viewer.public") });
  options.push(...(R.part?.viewers?.(index, me, mark) || []));
  for (const id of order) {
    if (role(id) !== "player") continue;
    const team = index.members[id].team;
    const teamName = team ? (index.config?.teams || []).find((x) => x.team_id === team)?.name ?? team : null;
    options.push({ value: id, label: mark(id, teamName ? `${index.members[id].name} (${teamName})` : index.members[id].name) });
  }
  if (me && !options.some((o) => o.value === me)) options.push({ value: me, label: mark(me, memberName(index, me)) });
  const chosen = viewerId();
  if (chosen && !options.some((o) => o.value === chosen)) options.push({ value: chosen, label: memberName(index, chosen) });
  return options;
}

function viewerSection(index, seq) {
  const chosen = viewerId();
  const shown = R.shown;
  const stale = !shown || shown.seq !== seq || shown.viewer !== chosen;
  const event = R.log.events[seq - 1];
  const at = Date.parse(shown?.at);
  return h("section", { class: "replay-viewer-section" },
    h("label", { class: "replay-viewer-label" }, t("replay.viewer"),
      h("select", {
        testid: "replay-viewer", onchange: (e) => setViewer(e.target.value),
      }, viewerOptions(index).map((o) => h("option", { value: o.value, selected: o.value === chosen }, o.label)))),
    event && h("div", { class: "replay-current", testid: "replay-current" },
      h("div", { class: "replay-row-meta" },
        h("b", {}, t("replay.event_n", { seq, last: last() })), " · ", clock(Date.parse(event.at)), " · ", sinceStart(Date.parse(event.at), index)),
      h("div", { class: "replay-current-text" }, describe(event, index, R.part))),
    R.error && R.errorKey === keyOf(R.cursor, chosen) && R.log.error?.status !== 403 && h("div", { class: "error", testid: "replay-view-error" },
      errorText(R.error.code, R.error.message)),
    h("div", {
      class: `replay-view ${stale ? "stale" : ""}`, testid: "replay-view", "aria-busy": String(Boolean(R.inflight)),
      "data-seq": shown ? String(shown.seq) : "", "data-viewer": shown?.viewer ?? "",
    },
    shown && h("p", { class: "hint" }, t("replay.as_seen", {
      who: viewerLabel(index, shown.viewer), time: clock(at), seq: shown.seq,
    })),
    shown ? viewSummary(shown.view, at, R, index?.members, R.part) : h("p", { class: "hint" }, t("loading"))));
}

function viewerLabel(index, id) {
  if (id === "public") return t("replay.viewer.public");
  if (index?.members?.[id]?.role === "organizer") return t("replay.viewer.organizer");
  return memberName(index, id);
}

function linkSection(seq) {
  const url = `${location.origin}${location.pathname}${replayHash(seq)}`;
  return h("section", { class: "replay-link-section" },
    h("button", {
      class: "secondary wide", testid: "replay-link", "data-url": url,
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(url);
          R.linkText = null;
          app.notify(t("replay.link_copied"), "ok");
        } catch {
          R.linkText = url; // no clipboard (plain http on a LAN address): show it to copy by hand
          app.render();
        }
      },
    }, t("replay.copy_link", { seq })),
    R.linkText && h("input", { class: "replay-link-url", testid: "replay-link-url", readonly: true, value: R.linkText, onclick: (e) => e.target.select() }),
    h("p", { class: "hint" }, t("replay.link_hint")));
}

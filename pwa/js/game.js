// The live state of one joined game: its last view, the socket, and the outbox drained into it.
import { api, ApiError } from "./api.js";
import * as clock from "./clock.js";
import { Directory } from "./directory.js";
import * as outbox from "./outbox.js";
import { mergePatch } from "./patch.js";
import { cachedView, cacheView, saveSession } from "./session.js";
import { GameSocket } from "./socket.js";
import { every, onTick } from "./tick.js";

const RETRY_LATER = new Set(["rate_limited", "unavailable"]);

const RETRY_DRAIN_MS = 8000;
// Commands that pull another player into something expire in the outbox (the ruleset's screens
// name them: `expiring`, command type -> banner code) after this long, unless the game's config
// says `challenge_expiry_s`.
const EXPIRY_S = 60; // unless the game's config says `challenge_expiry_s`
// A command on a socket silent this long after it was sent may expire before its answer comes.
const SILENT_SEND_MS = 1500;
// A refused command's banner: long enough to read, gone before it reads as a lasting state.
const ERROR_SHOW_MS = 8000;

export class Game extends EventTarget {
  constructor(session) {
    super();
    this.session = session;
    this.seq = 0;
    this.view = null;
    this.queued = [];          // outbox entries of this session, oldest first
    this.answered = new Map(); // command_id -> {command, seq} acked but not yet seen in a view
    this.errors = [];          // [{id, code, message, command, screen}] refused commands, newest last
    this.fatal = null;         // {code, message} when the token or game is refused
    this.connection = "closed";
    this.draining = false;
    this.rules = null;         // the ruleset's screens module, once loaded (rulesets.js)
    this.presence = null;      // organizers: by member, {joined, connected} (null: not heard yet)
    this.directory = new Directory(session.game_id, session.token, () => this.changed());
  }

  get gameId() {
    return this.session.game_id;
  }

  get token() {
    return this.session.token;
  }

  start() {
    const cached = cachedView(this.token);
    if (cached) this.applyView(cached, { store: false });
    this.socket = new GameSocket({
      gameId: this.gameId,
      token: this.token,
      after: () => this.seq,
      onView: (message) => {
        clock.seen(message.server_time);
        if (!clock.hasSamples()) clock.sample(Date.now(), Date.now(), message.server_time, { rough: true });
        if (message.type === "patch") this.applyPatch(message);
        else this.applyView(message);
      },
      // The organizers' roll call (who joined, who is connected): beside the view, not in it.
      onPresence: (message) => {
        this.presence = message.whole ? message.members : { ...this.presence, ...message.members };
        this.changed();
      },
      onStatus: (status) => {
        this.connection = status;
        this.changed();
      },
      onOpen: () => this.drain(),
      onFatal: (code, reason) => this.refuse({ code: `ws_${code}`, message: reason }),
    });
    this.socket.start();
    this.refresh();
    this.loadQueue().then(() => this.drain());
    this.onOnline = () => {
      this.socket.retryNow();
      this.drain();
    };
    this.onVisible = () => {
      if (document.visibilityState !== "visible") return;
      this.socket.retryNow();
      this.refresh();
      this.drain();
    };
    // The browser knows at once that the signal is gone; the socket would take 40 s of silence
    // to notice. Drop it now: the chip says so and commands wait in the outbox, not on a dead line.
    this.onOffline = () => this.socket.lost();
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    document.addEventListener("visibilitychange", this.onVisible);
    // On the shared tick: the queue is sent again now and then, and a queued command whose time
    // has passed says so at once (within a tick), signal or not.
    this.untick = [
      every(RETRY_DRAIN_MS, () => this.queued.length && this.drain()),
      onTick(() => this.queued.length && this.expireQueued()),
    ];
  }

  stop() {
    this.socket?.stop();
    this.untick?.forEach((unsubscribe) => unsubscribe());
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    document.removeEventListener("visibilitychange", this.onVisible);
  }

  changed() {
    this.dispatchEvent(new Event("change"));
  }

  // A patch turns the view at `base` into the one at `seq`. One that does not start from the held
  // view (a message was lost, or GET /view moved ahead) cannot be applied: the socket starts over
  // with after=<held seq> and gets a whole view. One already covered by the held view is dropped.
  applyPatch(message) {
    if (message.seq <= this.seq) return;
    if (message.base !== this.seq || !this.view) {
      this.socket.resync();
      return;
    }
    this.applyView({ ...message, view: mergePatch(this.view, message.patch) });
  }

  // A whole view (from the socket, GET /view or the cache) replaces the held one.
  applyView(message, { store = true } = {}) {
    if (!message?.view || message.seq < this.seq) return;
    this.seq = message.seq;
    this.view = message.view;
    this.serverTime = message.server_time;
    for (const [id, done] of this.answered) if (done.seq <= this.seq) this.answered.delete(id);
    if (store) {
      cacheView(this.token, { seq: message.seq, server_time: message.server_time, view: message.view });
      const me = message.view.me || {};
      saveSession({ game_id: this.gameId, token: this.token, game_name: message.view.game?.name, player_name: me.name, role: me.role });
    }
    this.changed();
  }

  // GET the view over HTTP: a first paint before the socket is up, a resync, a clock sample.
  async refresh() {
    const early = earlyView(this.gameId, this.token);
    const sent = Date.now();
    try {
      const answer = early ? await early : { message: await api.view(this.gameId, this.token), sent };
      clock.sample(answer.sent, answer.received ?? Date.now(), answer.message.server_time);
      this.applyView(answer.message);
    } catch (err) {
      if (err instanceof ApiError && !err.transient) this.refuse(err);
    }
  }

  refuse(err) {
    this.fatal = { code: err.code, message: err.message };
    this.socket?.stop();
    this.changed();
  }

  async loadQueue() {
    this.queued = await outbox.list(this.token);
    this.changed();
  }

  // Every command goes through the outbox first.
  async send(command) {
    // The age of an entry is counted on the server clock: unlike the phone's monotonic time
    // (performance.now restarts at every page load) it survives a reload, as the outbox does, and
    // a phone clock set wrong is corrected by the measured offset.
    const entry = await outbox.add({ game_id: this.gameId, token: this.token, command, queued_at: clock.serverNow() });
    await this.loadQueue();
    this.drain();
    return entry;
  }

  // Commands queued or answered but not yet visible in the view (to show a pick as made).
  inFlight() {
    return [...this.queued.map((e) => e.command), ...[...this.answered.values()].map((a) => a.command)];
  }

  // Send the queue in order, one command at a time; stop at the first that cannot get an answer.
  async drain() {
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = true;
    try {
      do {
        this.drainAgain = false;
        for (const entry of await outbox.list(this.token)) {
          if (!(await this.deliver(entry))) return;
        }
      } while (this.drainAgain);
    } finally {
      this.draining = false;
      await this.loadQueue();
    }
  }

  // true when the server answered (ack or refusal), false to try again later.
  async deliver(entry) {
    const expired = this.expiry(entry);
    if (expired) {
      await this.expire(entry, expired);
      return true;
    }
    let answer;
    this.onTheWay = entry.command_id; // sent: its answer decides, not its age
    this.onTheWaySince = Date.now();
    try {
      answer = await this.answerTo(entry);
    } finally {
      this.onTheWay = null;
    }
    if (answer === null) return false;
    await outbox.remove(entry.command_id);
    if (answer.error) {
      this.addError(entry, answer.error);
    } else if (answer.seq > this.seq) {
      this.answered.set(entry.command_id, { command: entry.command, seq: answer.seq });
      // The socket pushes the new view; if none comes soon (or no socket), fetch it.
      if (!this.socket.isOpen) this.refresh();
      else setTimeout(() => this.answered.has(entry.command_id) && this.refresh(), 3000);
    }
    await this.loadQueue();
    return true;
  }

  // One entry over the socket, or over HTTP when it is closed: the answer (ack or refusal), or
  // null when none came and it must be sent again later.
  async answerTo(entry) {
    let answer;
    if (this.socket.isOpen) {
      try {
        answer = await this.socket.send(entry);
      } catch {
        return null;
      }
      // Over a rate limit, or the game could not be saved: not a refusal, send it again later.
      if (answer.error && RETRY_LATER.has(answer.error.code)) return null;
    } else {
      try {
        answer = await api.command(this.gameId, this.token, entry.command_id, entry.command);
      } catch (err) {
        if (!(err instanceof ApiError) || err.transient) return null;
        answer = { error: { code: err.code, message: err.message } };
      }
    }
    return answer;
  }

  // Take every queued entry whose time has passed out of the outbox, with its banner. One sent
  // on a socket that has not said a word since (a silent dead spot) expires as a queued one does:
  // the socket is dropped as dead (the server may still have taken it: a view then shows it).
  async expireQueued() {
    for (const entry of this.queued) {
      const expired = this.expiry(entry);
      if (!expired) continue;
      if (entry.command_id === this.onTheWay) {
        if (!this.silentOnTheWay()) continue;
        this.socket.lost();
      }
      await this.expire(entry, expired);
    }
  }

  // The command on the way went on the socket, SILENT_SEND_MS ago or more, and nothing came since.
  silentOnTheWay() {
    const since = this.onTheWaySince ?? Date.now();
    return this.socket.isOpen && Date.now() - since >= SILENT_SEND_MS && (this.socket.lastHeard ?? 0) < since;
  }

  async expire(entry, code) {
    await outbox.remove(entry.command_id);
    this.addError(entry, { code });
    await this.loadQueue();
  }

  // The banner code when this entry has waited too long to be sent, else null.
  expiry(entry) {
    const code = this.rules?.expiring?.[entry.command.type];
    const limitS = this.view?.game?.config?.challenge_expiry_s ?? EXPIRY_S;
    return code && entry.queued_at && clock.serverNow() - entry.queued_at > limitS * 1000 ? code : null;
  }

  addError(entry, error) {
    if (this.errors.some((e) => e.id === entry.command_id)) return;
    this.errors = [...this.errors, { id: entry.command_id, ...error, command: entry.command }];
    setTimeout(() => this.dismissError(entry.command_id), ERROR_SHOW_MS);
  }

  // A banner belongs to the screen it was first shown on: on another screen it is old news.
  keepErrorsOn(screen) {
    this.errors = this.errors.filter((e) => (e.screen ??= screen) === screen);
  }

  dismissError(id) {
    if (!this.errors.some((e) => e.id === id)) return;
    this.errors = this.errors.filter((e) => e.id !== id);
    this.changed();
  }
}

// The view boot.js asked for before the modules arrived, taken once by the first refresh of that
// game: {message, sent, received}, or the ApiError api.view would throw.
function earlyView(gameId, token) {
  const early = globalThis.bijseEarlyView;
  if (!early || early.game_id !== gameId || early.token !== token) return null;
  globalThis.bijseEarlyView = null;
  return early.answer.then(({ sent, received, status, data }) => {
    if (status >= 200 && status < 300) return { message: data, sent, received };
    throw new ApiError(status, data?.error?.code ?? `http_${status}`, data?.error?.message ?? "");
  }, (err) => {
    throw new ApiError(0, "network", String(err));
  });
}

// One WebSocket to a game: reconnects with exponential backoff and jitter, resumes with
// after=<last seq>, pings for the clock offset and to notice a dead connection. Views and
// patches go to onView; resync() starts over with after=<held seq> for a whole view.
// A dead spot can keep a socket open with nothing arriving: after QUIET_MS of silence the phone
// pings (the server answers every ping with a pong), and a ping unanswered for PONG_WAIT_MS
// drops the socket, so the chip stops saying "connected" within 15 s of the last word. A socket
// counts as open ("connected") from the first word heard on it, not from the handshake: a proxy or
// a dead spot can complete the handshake while nothing comes through.
// Once the phone knows it has no signal (the browser went offline, a ping went unanswered, a
// reconnect closed with no word heard) the status stays "closed" ("no signal") through the
// reconnects that follow, until a word is heard: not "connecting" for the rest of a dead spot.
// The token goes in the first message (hello), never in the URL: URLs end up in logs.
// The checks ride the page's shared tick (tick.js), once a second.
import * as clock from "./clock.js";
import { onTick } from "./tick.js";

const QUIET_MS = 5000;
const PONG_WAIT_MS = 5000;
const ANSWER_TIMEOUT_MS = 15000;
const OPEN_WAIT_MS = 10000; // a handshake a dead spot holds this long is no answer either
const MAX_BACKOFF_MS = 30000;

export class GameSocket {
  constructor({ gameId, token, after, onView, onPresence, onStatus, onFatal, onOpen }) {
    Object.assign(this, { gameId, token, after, onView, onPresence, onStatus, onFatal, onOpen });
    this.ws = null;
    this.status = "closed";
    this.attempts = 0;
    this.pending = new Map();
    this.pingSentAt = null;
    this.helloSent = false;
    this.stopped = true;
    this.silent = false; // no signal known, until a word is heard
  }

  start() {
    this.stopped = false;
    this.unsubscribe = onTick(() => this.checkAlive());
    this.connect();
  }

  stop() {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.retryTimer);
    this.drop();
  }

  // Commands and pings may go as soon as the hello went; the status waits for an answer.
  get isOpen() {
    return this.helloSent;
  }

  connect() {
    clearTimeout(this.retryTimer);
    if (this.stopped || this.ws) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const path = `/ws/games/${encodeURIComponent(this.gameId)}?after=${this.after()}`;
    const ws = new WebSocket(`${scheme}://${location.host}${path}`);
    this.ws = ws;
    this.heard = false;
    this.openedAt = Date.now();
    this.setStatus(this.silent ? "closed" : "connecting");
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token }));
      this.helloSent = true;
      this.lastHeard = Date.now();
      this.ping();
      this.onOpen?.();
    };
    ws.onmessage = (event) => {
      this.lastHeard = Date.now();
      this.heard = true;
      this.silent = false;
      this.attempts = 0;
      this.setStatus("open");
      this.receive(JSON.parse(event.data));
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      if (!this.heard) this.silent = true; // a reconnect that got no answer
      this.closed();
      // 4xxx: the server refused this token or game; retrying will not help. But a 4401 on a
      // socket that heard nothing, not even the refusal before it, is a hello lost in a dead
      // spot ("no hello within 10 s"): try again, as after any silence.
      const lostHello = event.code === 4401 && !this.heard;
      if (event.code >= 4000 && event.code < 5000 && !lostHello) this.onFatal?.(event.code, event.reason);
      else this.scheduleRetry();
    };
  }

  // Forget the current socket at once (a dead TCP connection may take minutes to close).
  drop() {
    const ws = this.ws;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try {
      ws.close();
    } catch { /* already closing */ }
    this.closed();
  }

  closed() {
    this.ws = null;
    this.helloSent = false;
    this.pingSentAt = null;
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error("socket closed"));
    }
    this.pending.clear();
    this.setStatus("closed");
  }

  // The connection is known to be gone (the browser went offline): drop it and try again later.
  lost() {
    if (this.stopped) return;
    this.silent = true;
    this.drop();
    this.scheduleRetry();
  }

  scheduleRetry() {
    if (this.stopped) return;
    const cap = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempts);
    this.attempts += 1;
    const delay = cap / 2 + Math.random() * (cap / 2);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  // The network came back or the page came to the foreground: try now, not after the backoff.
  retryNow() {
    if (this.stopped) return;
    if (this.ws) {
      this.checkAlive();
      return;
    }
    this.attempts = 0;
    this.connect();
  }

  checkAlive() {
    const now = Date.now();
    if (this.ws && !this.isOpen && now - this.openedAt > OPEN_WAIT_MS) this.lost();
    if (!this.isOpen) return;
    if (this.pingSentAt !== null && now - this.pingSentAt > PONG_WAIT_MS) this.lost();
    else if (now - this.lastHeard > QUIET_MS) this.ping();
  }

  ping() {
    if (!this.isOpen || this.pingSentAt !== null) return;
    this.pingSentAt = Date.now();
    this.ws.send(JSON.stringify({ type: "ping" }));
  }

  // Send one outbox entry; resolves with {seq, duplicate} or {error: {code, message}},
  // rejects when the answer cannot come (socket closed, timeout): the entry stays queued.
  send(entry) {
    if (!this.isOpen) return Promise.reject(new Error("socket not open"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(entry.command_id);
        reject(new Error("no answer"));
      }, ANSWER_TIMEOUT_MS);
      this.pending.set(entry.command_id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ type: "command", command_id: entry.command_id, command: entry.command }));
    });
  }

  // A patch that does not fit the held view: reconnect at once, asking for a whole view.
  resync() {
    if (this.stopped) return;
    this.drop();
    this.attempts = 0;
    this.connect();
  }

  receive(message) {
    if (message.type === "view" || message.type === "patch") {
      this.onView(message);
    } else if (message.type === "presence") {
      this.onPresence?.(message);
    } else if (message.type === "pong") {
      if (this.pingSentAt !== null) clock.sample(this.pingSentAt, Date.now(), message.server_time);
      this.pingSentAt = null;
    } else if (message.type === "ack" || message.type === "error") {
      const waiting = this.pending.get(message.command_id);
      if (!waiting) return;
      clearTimeout(waiting.timer);
      this.pending.delete(message.command_id);
      waiting.resolve(message.type === "ack"
        ? { seq: message.seq, duplicate: message.duplicate }
        : { error: { code: message.code, message: message.message } });
    }
  }

  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.onStatus?.(status);
  }
}

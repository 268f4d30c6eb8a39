// The log of one game on the main thread: the events (in seq order, events[seq - 1]) and the
// index, filled by the Web Worker; where no module worker can start, the same reader and indexer
// run here in batches, yielding to the page between them.
import { Indexer } from "./indexer.js";
import { streamLog } from "./loader.js";

export class ReplayLog {
  constructor(gid, token, onChange, ruleset = null) {
    this.gid = gid;
    this.ruleset = ruleset; // when the page knows it: the index part loads before the first batch
    this.token = token;
    this.onChange = onChange;
    this.events = [];
    this.index = null;
    this.loading = false;
    this.done = false;
    this.error = null;
    this.worker = null;
    this.inWorker = false;
  }

  get last() {
    return this.events.length ? this.events[this.events.length - 1].seq : 0;
  }

  // Reads the log from the start, or what is new since the last read (a running game).
  load() {
    if (this.loading) return;
    this.loading = true;
    this.done = false;
    this.error = null;
    this.startedAt = performance.now();
    if (this.startWorker()) return;
    this.loadHere();
  }

  startWorker() {
    try {
      if (!this.worker) {
        if (typeof Worker === "undefined") return false;
        this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
        this.worker.onmessage = ({ data }) => this.fromWorker(data);
        this.worker.onerror = (event) => {
          // A browser without module workers fails at once: read the log here instead.
          event.preventDefault?.();
          this.worker?.terminate();
          this.worker = null;
          if (this.loading && !this.inWorker) this.loadHere();
        };
      }
      this.worker.postMessage({ type: "load", gid: this.gid, token: this.token, after: this.last, ruleset: this.ruleset });
      return true;
    } catch {
      this.worker = null;
      return false;
    }
  }

  fromWorker(message) {
    this.inWorker = true;
    if (message.type === "events") {
      for (const event of message.events) if (event.seq === this.last + 1) this.events.push(event);
    } else if (message.type === "index") {
      this.index = message.index;
    } else if (message.type === "done") {
      this.finish();
    } else if (message.type === "error") {
      this.fail(message);
    }
    this.onChange();
  }

  async loadHere() {
    this.indexer ??= new Indexer();
    let shown = 0;
    try {
      await streamLog({
        gid: this.gid,
        token: this.token,
        after: this.last,
        batchSize: 500,
        onBatch: async (events) => {
          await this.indexer.prepare(events, this.ruleset);
          this.indexer.add(events);
          for (const event of events) if (event.seq === this.last + 1) this.events.push(event);
          if (!shown || performance.now() - shown > 400) {
            shown = performance.now();
            this.index = this.indexer.snapshot();
            this.onChange();
          }
          await new Promise((resolve) => { setTimeout(resolve, 0); });
        },
      });
      this.index = this.indexer.snapshot();
      this.finish();
    } catch (err) {
      this.index = this.indexer.snapshot();
      this.fail(err);
    }
    this.onChange();
  }

  finish() {
    this.loading = false;
    this.done = true;
    this.loadMs = Math.round(performance.now() - this.startedAt);
  }

  fail(err) {
    this.loading = false;
    this.error = { status: err.status ?? 0, code: err.code ?? "network", message: err.message ?? "" };
  }

  stop() {
    this.worker?.terminate();
    this.worker = null;
    this.loading = false;
  }
}

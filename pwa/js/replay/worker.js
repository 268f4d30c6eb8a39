// The replay's Web Worker: reads the log (streamed, resumable) and indexes it off the main thread.
// In: {type: "load", gid, token, after, ruleset?} (the ruleset's index part loads by that id, or
// by the id the log's game_created names). Out: {type: "events", events} per batch, {type: "index",
// index} now and then and at the end, {type: "done", last}, {type: "error", status, code, message}.
import { Indexer } from "./indexer.js";
import { streamLog } from "./loader.js";

const indexer = new Indexer();
const INDEX_EVERY_MS = 400;

self.onmessage = async ({ data: message }) => {
  if (message?.type !== "load") return;
  let posted = 0;
  try {
    const last = await streamLog({
      gid: message.gid,
      token: message.token,
      after: message.after ?? 0,
      onBatch: async (events) => {
        await indexer.prepare(events, message.ruleset);
        indexer.add(events);
        self.postMessage({ type: "events", events });
        // The first batch names everybody; later ones refresh the jumps and stats now and then.
        if (!posted || Date.now() - posted > INDEX_EVERY_MS) {
          posted = Date.now();
          self.postMessage({ type: "index", index: indexer.snapshot() });
        }
      },
    });
    self.postMessage({ type: "index", index: indexer.snapshot() });
    self.postMessage({ type: "done", last });
  } catch (err) {
    self.postMessage({ type: "index", index: indexer.snapshot() });
    self.postMessage({ type: "error", status: err.status ?? 0, code: err.code ?? "network", message: String(err.message ?? err) });
  }
};

// A ruleset's screen part of the replay (rulesets/<id>/replay.js, see replay/indexer.js for what
// it exports) with its words: the ruleset's own (cs.json, en.json) and the replay's
// (replay.cs.json, replay.en.json). Loaded once per id; null for an id this app cannot load.
import { keepOffline, part } from "../rulesets.js";
import { useWords } from "../i18n.js";

const parts = new Map(); // id -> promise of the module (or null)

export function replayPart(id) {
  if (!parts.has(id)) {
    parts.set(id, Promise.all([part(id, "replay"), useWords(`./rulesets/${id}/replay.`)])
      .then(([module]) => {
        keepOffline();
        return module;
      }, () => {
        parts.delete(id); // no signal: the next render tries again
        return null;
      }));
  }
  return parts.get(id);
}

// The organizer's roll call: who has opened the invite and who has the game open now (the
// server's `presence` messages, beside the view: game.presence), and, where the ruleset says so,
// who is ready (`ready(p)`). The head counts them; each row shows its member's marks.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const MARK = { connected: "●", joined: "○", absent: "✉", ready: "⚷" };

function stateOf(game, playerId) {
  const seen = game.presence?.[playerId];
  return seen?.connected ? "connected" : seen?.joined ? "joined" : "absent";
}

// "3 z 5 připojeno / 4 z 5 otevřelo pozvánku / 2 z 5 připraveno na souboj bez signálu", a line each
export function presenceLine(game, members, { ready = null, readyKey = "" } = {}) {
  const all = members.length;
  const counted = (state) => members.filter((p) => stateOf(game, p.player_id) === state).length;
  const connected = counted("connected");
  const joined = connected + counted("joined");
  const part = (mark, words, testid, number) => h("span", { class: "presence-part", testid, "data-count": String(number) },
    h("span", { class: "presence-mark", "aria-hidden": "true" }, mark), " ", words);
  const parts = game.presence == null ? [] : [ // (not heard yet: no guess)
    part(MARK.connected, t("presence.connected", { count: connected, all }), "presence-connected", connected),
    part(MARK.joined, t("presence.joined", { count: joined, all }), "presence-joined", joined),
  ];
  if (ready) {
    const number = members.filter(ready).length;
    parts.push(part(MARK.ready, t(readyKey, { count: number, all }), "presence-ready", number));
  }
  if (!parts.length) return null;
  return h("p", { class: "presence-line", testid: "presence-line" }, parts);
}

// A row's marks: connected / opened the invite / not yet, and ready when `isReady`.
export function presenceMarks(game, p, { isReady = false, readyWords = "" } = {}) {
  const state = stateOf(game, p.player_id);
  const words = t(`presence.row.${state}`);
  return [
    game.presence != null && h("span", { class: `chip presence ${state}`, testid: `presence-${p.player_id}`, "data-presence": state,
      role: "img", title: words, "aria-label": words }, MARK[state]),
    isReady && h("span", { class: "chip presence ready", testid: `ready-${p.player_id}`,
      role: "img", title: readyWords, "aria-label": readyWords }, MARK.ready),
  ];
}

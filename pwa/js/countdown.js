// Countdowns are elements carrying their absolute end time (data-until); the shared tick redraws
// them from the server clock, so a frozen or throttled page is right again on its next frame.
import { h } from "./dom.js";
import { formatLeft, msUntil } from "./clock.js";
import { alarm } from "./alerts.js";
import { onTick, tickWithin } from "./tick.js";

const TURN_MARGIN_MS = 5; // a tick just past the second, not a hair before it

// countdown(until, {testid, alarm: true}) -> <span>m:ss</span>
export function countdown(until, { testid, alarm: ring = false, cls = "" } = {}) {
  return h("span", { class: `countdown ${cls}`, testid, "data-until": until, "data-alarm": ring ? "1" : null }, formatLeft(msUntil(until)));
}

// On the shared tick: each countdown's text, and the next tick when the soonest of them turns its
// second (so a countdown on screen changes on time; with none the tick stays at once a second).
export function startTicker(onExpired) {
  onTick(() => {
    let expired = false;
    let ring = false;
    let next = Infinity;
    for (const el of document.querySelectorAll("[data-until]")) {
      const left = msUntil(el.dataset.until);
      const text = formatLeft(left);
      if (el.textContent !== text) el.textContent = text;
      if (left > 0) next = Math.min(next, left - (Math.ceil(left / 1000) - 1) * 1000);
      // Remembered on the element (a re-render keeps it), so an end fires once.
      if (left <= 0 && el.endedFor !== el.dataset.until) {
        el.endedFor = el.dataset.until;
        expired = true;
        ring ||= el.dataset.alarm === "1";
      }
    }
    if (next < Infinity) tickWithin(next + TURN_MARGIN_MS);
    if (ring) alarm();
    if (expired) onExpired();
  });
}

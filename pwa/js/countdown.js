// Countdowns are elements carrying their absolute end time (data-until); one ticker redraws them
// from the server clock, so a frozen or throttled page is right again on its next frame.
import { h } from "./dom.js";
import { formatLeft, msUntil } from "./clock.js";
import { alarm } from "./alerts.js";

// countdown(until, {testid, alarm: true}) -> <span>m:ss</span>
export function countdown(until, { testid, alarm: ring = false, cls = "" } = {}) {
  return h("span", { class: `countdown ${cls}`, testid, "data-until": until, "data-alarm": ring ? "1" : null }, formatLeft(msUntil(until)));
}

export function startTicker(onExpired) {
  setInterval(() => {
    let expired = false;
    let ring = false;
    for (const el of document.querySelectorAll("[data-until]")) {
      const left = msUntil(el.dataset.until);
      const text = formatLeft(left);
      if (el.textContent !== text) el.textContent = text;
      // Remembered on the element (a re-render keeps it), so an end fires once.
      if (left <= 0 && el.endedFor !== el.dataset.until) {
        el.endedFor = el.dataset.until;
        expired = true;
        ring ||= el.dataset.alarm === "1";
      }
    }
    if (ring) alarm();
    if (expired) onExpired();
  }, 250);
}

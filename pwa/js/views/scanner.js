// Challenge by scanning the opponent's QR (their code), where the browser has BarcodeDetector.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { watch } from "../camera.js";

let supported = false;
let active = null; // {status, app, camera} while the camera is on

// Resolves once we know whether this browser can read QR codes from the camera.
export const scanSupport = ("BarcodeDetector" in window && navigator.mediaDevices?.getUserMedia
  ? Promise.resolve(window.BarcodeDetector.getSupportedFormats?.() ?? [])
  : Promise.resolve([]))
  .then((formats) => {
    supported = formats.includes("qr_code");
  })
  .catch(() => {});

export function canScan() {
  return supported;
}

// The code in a scanned text: the bare code, or a link carrying it (#/c/ABCD, ?code=ABCD).
export function codeFromQr(text) {
  const s = String(text).trim().toUpperCase();
  if (/^[A-Z0-9]{4}$/.test(s)) return s;
  const match = /[#?&/](?:C|CODE)[=/]([A-Z0-9]{4})(?![A-Z0-9])/.exec(s);
  return match ? match[1] : null;
}

// The scanner screen.
export function scanner(app, onCode) {
  const video = h("video", { playsinline: true, muted: true, autoplay: true, class: "scan-video" });
  if (!active) {
    const mine = { status: "scan.starting", app };
    const detector = new window.BarcodeDetector({ formats: ["qr_code"] });
    active = mine;
    mine.camera = watch(video, '[data-testid="scanner"] video', async (live) => {
      if (mine.status === "scan.starting") say(mine, "scan.aim");
      const found = await detector.detect(live);
      for (const { rawValue } of found) {
        const code = codeFromQr(rawValue);
        if (code) {
          stopScan();
          onCode(code);
          return;
        }
        say(mine, rawValue.includes("/join/") ? "scan.invite" : "scan.no_code");
      }
    }, () => say(mine, "scan.failed"));
  }
  return h("main", { class: "scanner", testid: "scanner" },
    h("h1", {}, t("scan.title")),
    video,
    h("div", { class: "hint", testid: "scan-status" }, t(active.status)),
    h("button", {
      class: "secondary wide", testid: "scan-cancel",
      onclick: () => {
        stopScan();
        app.set({ scanning: false });
      },
    }, t("cancel")));
}

function say(mine, status) {
  if (active !== mine || mine.status === status) return;
  mine.status = status;
  mine.app.render();
}

export function stopScan() {
  active?.camera.stop();
  active = null;
}

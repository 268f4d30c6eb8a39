// Challenge by scanning the opponent's QR (their code), where the browser has BarcodeDetector.
import { h } from "../dom.js";
import { t } from "../i18n.js";

let supported = false;
let active = null; // {status, app, stream, timer} while the camera is on

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

// The scanner screen. The page is patched, not replaced, on re-render: the <video> first shown
// stays in the page and keeps the camera stream.
export function scanner(app, onCode) {
  const video = h("video", { playsinline: true, muted: true, autoplay: true, class: "scan-video" });
  if (!active) {
    active = { status: "scan.starting", app };
    run(active, video, onCode);
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

async function run(mine, video, onCode) {
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
    if (active !== mine) {
      stream.getTracks().forEach((track) => track.stop());
      return;
    }
    mine.stream = stream;
    const live = document.querySelector('[data-testid="scanner"] video') || video;
    live.srcObject = stream;
    await live.play();
    const detector = new window.BarcodeDetector({ formats: ["qr_code"] });
    say(mine, "scan.aim");
    const look = async () => {
      if (active !== mine) return;
      try {
        for (const found of await detector.detect(live)) {
          const code = codeFromQr(found.rawValue);
          if (code) {
            stopScan();
            onCode(code);
            return;
          }
          say(mine, found.rawValue.includes("/join/") ? "scan.invite" : "scan.no_code");
        }
      } catch { /* a frame that could not be read */ }
      mine.timer = setTimeout(look, 250);
    };
    look();
  } catch {
    say(mine, "scan.failed");
  }
}

export function stopScan() {
  if (!active) return;
  clearTimeout(active.timer);
  active.stream?.getTracks().forEach((track) => track.stop());
  active = null;
}

// Reading an offline duel's QR text: from the camera, or from a photo of the other phone.
// BarcodeDetector where the browser has it; else jsQR (pwa/js/vendor/jsQR.js, Apache-2.0),
// plain JavaScript, which the page's policy (script-src 'self', no wasm) lets run.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { watch } from "../../camera.js";

let detector;

async function barcodeDetector() {
  if (detector !== undefined) return detector;
  detector = null;
  try {
    if ("BarcodeDetector" in window && (await window.BarcodeDetector.getSupportedFormats()).includes("qr_code")) {
      detector = new window.BarcodeDetector({ formats: ["qr_code"] });
    }
  } catch { /* no detector: jsQR reads */ }
  return detector;
}

// Loaded while the phone has signal (the worker keeps what it fetched), used when it has none.
export function loadDecoder() {
  return import("../../vendor/jsQR.js").then(() => globalThis.jsQR);
}

// The text of the QR code in a picture (ImageData), or null.
export async function readPixels(image) {
  const found = await barcodeDetector();
  if (found) {
    try {
      const codes = await found.detect(image);
      if (codes.length) return codes[0].rawValue;
    } catch { /* jsQR tries */ }
  }
  const jsQR = await loadDecoder();
  const code = jsQR(image.data, image.width, image.height, { inversionAttempts: "dontInvert" });
  return code ? code.data : null;
}

function pixelsOf(source, width, height) {
  // A big photo is shrunk: jsQR's time grows with the pixels, a screen-sized QR needs few.
  const scale = Math.min(1, 1200 / Math.max(width, height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return context.getImageData(0, 0, canvas.width, canvas.height);
}

export async function readFile(file) {
  const bitmap = await createImageBitmap(file);
  return readPixels(pixelsOf(bitmap, bitmap.width, bitmap.height));
}

let camera = null; // the watch while the camera is on
let cameraProblem = null; // why the camera did not start: the reader says so until "try again"

// A camera that did not start, in a word the reader explains: refused, none, held by another app.
function problemOf(error) {
  const name = error?.name;
  if (name === "NotAllowedError" || name === "SecurityError") return "denied";
  if (name === "NotFoundError" || name === "OverconstrainedError" || name === "TypeError") return "none";
  if (name === "NotReadableError" || name === "AbortError") return "busy";
  return "failed";
}

export function stopReading() {
  camera?.stop();
  camera = null;
  cameraProblem = null;
}

// The reader: the camera's picture, read four times a second, and a photo as the other way in.
// onText(text) gets each text read; it answers an error code to show (or {code, words} for
// words the message names), or null when it took it.
export function reader(app, { title, onText, onCancel }) {
  const ui = app.ui;
  const take = async (text) => {
    if (!text) return;
    const problem = await onText(text);
    if (problem) app.set({ readerError: problem.code ?? problem, readerWords: problem.words ?? null });
  };
  const video = h("video", { playsinline: true, muted: true, autoplay: true, class: "scan-video" });
  if (!navigator.mediaDevices?.getUserMedia) cameraProblem ??= "none";
  if (!camera && !cameraProblem) {
    let last = null;
    // No camera, or refused: the reader says so, and the photo still reads.
    camera = watch(video, '[data-testid="offline-reader"] video', async (live, watching) => {
      if (!live.videoWidth) return;
      const text = await readPixels(pixelsOf(live, live.videoWidth, live.videoHeight));
      if (text && text !== last && !watching.stopped) {
        last = text; // the same code held in view is taken once
        await take(text);
      }
    }, (error) => {
      camera = null;
      cameraProblem = problemOf(error);
      app.render();
    });
  }
  const again = () => {
    cameraProblem = null;
    app.render();
  };
  return h("main", { class: "scanner", testid: "offline-reader" },
    h("h1", {}, title),
    cameraProblem
      ? h("div", { class: "banner camera-problem", role: "alert", testid: "camera-problem", "data-code": cameraProblem },
        h("strong", {}, t(`offline.camera.${cameraProblem}`)), " ", t("offline.camera.photo"),
        h("button", { class: "secondary wide", testid: "camera-again", onclick: again }, t("offline.camera.again")))
      : video,
    ui.readerError && h("div", { class: "chip bad big-chip", testid: "reader-error", "data-code": ui.readerError },
      t(`offline.bad.${ui.readerError}`, ui.readerWords ?? {})),
    h("label", { class: "secondary wide button", testid: "reader-photo-label" }, t("offline.read_photo"),
      h("input", {
        type: "file", accept: "image/*", capture: "environment", class: "visually-hidden", testid: "reader-photo",
        onchange: async (e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (!file) return;
          const text = await readFile(file).catch(() => null);
          if (!text) app.set({ readerError: "unreadable" });
          else await take(text);
        },
      })),
    h("button", {
      class: "secondary wide", testid: "reader-cancel",
      onclick: () => {
        stopReading();
        app.set({ readerError: null });
        onCancel();
      },
    }, t("cancel")));
}

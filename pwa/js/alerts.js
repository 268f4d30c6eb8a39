// What the phone does besides drawing: keep the screen on, buzz and beep.
let audio = null;
let wakeLock = null;
let wantAwake = false;

// Browsers allow sound only after a user gesture: create the AudioContext on the first tap.
export function unlockSoundOnFirstTap() {
  const unlock = () => {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    audio?.resume?.();
  };
  window.addEventListener("pointerdown", unlock, { capture: true });
  window.addEventListener("keydown", unlock, { capture: true });
}

export function beep(times = 3) {
  if (!audio || audio.state !== "running") return;
  const start = audio.currentTime + 0.05;
  for (let i = 0; i < times; i += 1) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, start + i * 0.4);
    gain.gain.exponentialRampToValueAtTime(0.6, start + i * 0.4 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + i * 0.4 + 0.3);
    osc.connect(gain).connect(audio.destination);
    osc.start(start + i * 0.4);
    osc.stop(start + i * 0.4 + 0.32);
  }
}

// A countdown has ended.
export function alarm() {
  navigator.vibrate?.([300, 150, 300, 150, 300]);
  beep();
}

// Vibrate and beep for something new (a duel, a raid); browsers allow both only after a first tap.
export function buzz() {
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  alarm();
}

// Whether the player has given the tap that unlocks sound and vibration on this phone (the
// prompt asks for it once; after a reload any tap unlocks them again).
const TAPPED_KEY = "bijse.alerts_tapped";

export function alertsTapped() {
  return localStorage.getItem(TAPPED_KEY) === "1";
}

// The prompt's tap (the first-tap listener has just made the AudioContext): remember it, and
// answer with a short buzz and beep, so the player knows both work.
export function confirmAlerts() {
  localStorage.setItem(TAPPED_KEY, "1");
  navigator.vibrate?.(200);
  audio?.resume?.().then(() => beep(1), () => {});
}

// Hold a screen wake lock while `on` (a duel or a countdown), release it otherwise.
export async function keepAwake(on) {
  wantAwake = on;
  if (!("wakeLock" in navigator)) return;
  if (on && !wakeLock && document.visibilityState === "visible") {
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => {
        wakeLock = null;
      });
      if (!wantAwake) releaseLock();
    } catch { /* denied (battery saver) or not allowed: nothing to do */ }
  } else if (!on) {
    releaseLock();
  }
}

function releaseLock() {
  const lock = wakeLock;
  wakeLock = null;
  lock?.release().catch(() => {});
}

export function isAwake() {
  return wakeLock !== null;
}

// The browser drops the lock when the page is hidden: take it again on return.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && wantAwake) keepAwake(true);
});

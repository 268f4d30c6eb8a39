// Server time on this phone: Date.now() + offset, with offset measured by ping/pong as
// server_time - midpoint(send, receive). The sample with the shortest round trip wins.
let offset = 0;
let samples = [];
// The latest server time the server has told us of: server time is never earlier than that.
// It keeps a sampling error of a few milliseconds from showing a fresh 5:00 stun as 5:01.
let floor = -Infinity;
const listeners = new Set();

// A rough sample (a pushed view's server_time, trip unknown) counts only until a real one comes.
export function sample(sentMs, receivedMs, serverIso, { rough = false } = {}) {
  const server = Date.parse(serverIso);
  if (Number.isNaN(server)) return;
  seen(serverIso);
  const rtt = rough ? 60000 : Math.max(0, receivedMs - sentMs);
  const fresh = { rtt, offset: server - (sentMs + receivedMs) / 2 };
  // A sample puts the true offset within rtt/2 of its own. One that no earlier sample can agree
  // with means this phone's clock was set meanwhile: those earlier samples measured another clock.
  // (Half a second more for the drift of both clocks between samples.)
  const agrees = (s) => Math.abs(s.offset - fresh.offset) <= (s.rtt + fresh.rtt) / 2 + 500;
  samples = [...samples.filter(agrees), fresh].slice(-8);
  const next = samples.reduce((best, s) => (s.rtt < best.rtt ? s : best)).offset;
  const moved = Math.abs(next - offset) > 250;
  offset = next;
  if (moved) listeners.forEach((listener) => listener());
}

// A message's server_time: the server's clock had reached it when it was sent.
export function seen(serverIso) {
  const server = Date.parse(serverIso);
  if (!Number.isNaN(server)) floor = Math.max(floor, server);
}

export function hasSamples() {
  return samples.length > 0;
}

// Called when the offset moves enough to change what a countdown shows.
export function onChange(listener) {
  listeners.add(listener);
}

export function serverNow() {
  return Math.max(Date.now() + offset, floor);
}

export function getOffset() {
  return offset;
}

// Milliseconds left until an absolute server time (ISO string); negative when it has passed.
export function msUntil(iso) {
  return iso ? Date.parse(iso) - serverNow() : -Infinity;
}

export function inForce(iso) {
  return msUntil(iso) > 0;
}

// "m:ss", counting whole seconds up (4:59.2 left shows 5:00, the last second shows 0:01).
export function formatLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

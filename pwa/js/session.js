// The games this phone has joined (game id + token), which one is open, and each one's last view.
const SESSIONS = "bijse.sessions";
const CURRENT = "bijse.current";

function read(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

export function sessions() {
  return read(SESSIONS, []);
}

export function saveSession(session) {
  const others = sessions().filter((s) => s.token !== session.token);
  const old = sessions().find((s) => s.token === session.token) || {};
  localStorage.setItem(SESSIONS, JSON.stringify([{ ...old, ...session }, ...others]));
}

export function current() {
  const token = localStorage.getItem(CURRENT);
  return sessions().find((s) => s.token === token) || null;
}

export function setCurrent(token) {
  if (token) localStorage.setItem(CURRENT, token);
  else localStorage.removeItem(CURRENT);
}

export function forget(token) {
  localStorage.setItem(SESSIONS, JSON.stringify(sessions().filter((s) => s.token !== token)));
  localStorage.removeItem(`bijse.view.${token}`);
  if (localStorage.getItem(CURRENT) === token) setCurrent(null);
}

export function cachedView(token) {
  return read(`bijse.view.${token}`, null);
}

export function cacheView(token, message) {
  localStorage.setItem(`bijse.view.${token}`, JSON.stringify(message));
}

// Reveals the player has already dismissed (by duel id).
export function seenReveal(duelId) {
  return read("bijse.seen", []).includes(duelId);
}

export function markRevealSeen(duelId) {
  localStorage.setItem("bijse.seen", JSON.stringify([duelId, ...read("bijse.seen", [])].slice(0, 50)));
}

// The server's admin key, where it creates games for that key only (#/admin/<key> or typed in).
const ADMIN = "bijse.admin";
export const adminKey = () => localStorage.getItem(ADMIN);
export function saveAdminKey(key) {
  if (key) localStorage.setItem(ADMIN, key);
  else localStorage.removeItem(ADMIN);
}

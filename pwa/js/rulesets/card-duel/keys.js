// The player's offline-duel key: an ECDSA P-256 pair made on this phone, the private half
// non-extractable, kept in IndexedDB per game and player. Its public half is registered with
// `register_key`; the view's `me.key_id` says which key the server counts.
import { b64url, keyIdOf } from "./qrtext.js";

const DB_NAME = "bijse-offline";
export const KEYS = "keys";
export const DUELS = "duels";
let opening = null;

export function db() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(KEYS, { keyPath: "id" });
      request.result.createObjectStore(DUELS, { keyPath: "d" }).createIndex("game", "game_id");
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opening;
}

// One request on a store: its result.
export async function run(storeName, mode, action) {
  const store = (await db()).transaction(storeName, mode).objectStore(storeName);
  return new Promise((resolve, reject) => {
    const request = action(store);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

const idOf = (gameId, playerId) => `${gameId}:${playerId}`;

// {key_id, public_key, privateKey} of this player in this game, or null.
export async function storedKey(gameId, playerId) {
  try {
    return (await run(KEYS, "readonly", (s) => s.get(idOf(gameId, playerId)))) ?? null;
  } catch {
    return null; // no IndexedDB (a private mode): no key, and the screen says why
  }
}

// A new pair, stored (replacing any older one): the old key stops counting once this registers.
export async function makeKey(gameId, playerId) {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const record = { id: idOf(gameId, playerId), key_id: await keyIdOf(raw), public_key: b64url(raw), privateKey: pair.privateKey };
  await run(KEYS, "readwrite", (s) => s.put(record));
  return record;
}

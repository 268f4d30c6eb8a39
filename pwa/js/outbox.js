// Commands waiting to be sent, in IndexedDB, keyed by command_id: they survive a reload, a
// crash and a dead spot in the forest. An entry leaves only when the server has answered it.
const DB_NAME = "bijse";
const STORE = "outbox";
let opening = null;
let counter = 0;
let memory = null; // where IndexedDB cannot be opened (some private modes): a queue in memory

function db() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE, { keyPath: "command_id" }).createIndex("token", "token");
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opening;
}

async function run(mode, action) {
  let database;
  try {
    database = await db();
  } catch {
    memory ??= new Map();
    return null;
  }
  const store = database.transaction(STORE, mode).objectStore(STORE);
  return new Promise((resolve, reject) => {
    const request = action(store);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export function newCommandId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  // Plain http on a LAN address is not a secure context: build a v4 UUID by hand.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// entry: {game_id, token, command: {type, ...fields}} -> stored with command_id and order.
export async function add(entry) {
  const stored = { ...entry, command_id: entry.command_id ?? newCommandId(), order: Date.now() * 1000 + (counter++ % 1000) };
  await run("readwrite", (store) => store.put(stored));
  memory?.set(stored.command_id, stored);
  return stored;
}

export async function list(token) {
  const entries = (await run("readonly", (store) => store.index("token").getAll(token)))
    ?? [...memory.values()].filter((e) => e.token === token);
  return entries.sort((a, b) => a.order - b.order);
}

export async function remove(commandId) {
  await run("readwrite", (store) => store.delete(commandId));
  memory?.delete(commandId);
}

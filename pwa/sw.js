// Service worker: keeps the app shell so the app opens with no signal after the first visit.
// Shell files are answered from the cache at once and refreshed in the background; the API
// and the socket always go to the network. Bump VERSION when the list of files changes.
const VERSION = "bijse-shell-v8";
const SHELL = [
  "./",
  "./manifest.webmanifest",
  "./css/app.css",
  "./icons/icon-192.png",
  "./icons/icon-512.png",
  "./icons/icon-maskable-512.png",
  "./i18n/cs.js",
  "./i18n/en.js",
  "./js/alerts.js",
  "./js/api.js",
  "./js/clock.js",
  "./js/countdown.js",
  "./js/dice.js",
  "./js/dicelog.js",
  "./js/dom.js",
  "./js/duel.js",
  "./js/game.js",
  "./js/i18n.js",
  "./js/main.js",
  "./js/outbox.js",
  "./js/qr.js",
  "./js/ranks.js",
  "./js/replay/describe.js",
  "./js/replay/indexer.js",
  "./js/replay/loader.js",
  "./js/replay/log.js",
  "./js/replay/stats.js",
  "./js/replay/summary.js",
  "./js/replay/worker.js",
  "./js/scores.js",
  "./js/session.js",
  "./js/socket.js",
  "./js/stamina.js",
  "./js/views/board.js",
  "./js/views/common.js",
  "./js/views/deck_actions.js",
  "./js/views/deck_common.js",
  "./js/views/deck_create.js",
  "./js/views/deck_game.js",
  "./js/views/deck_gm.js",
  "./js/views/deck_mat.js",
  "./js/views/deck_player.js",
  "./js/views/dice_combat.js",
  "./js/views/dice_common.js",
  "./js/views/dice_create.js",
  "./js/views/dice_fight.js",
  "./js/views/dice_gm.js",
  "./js/views/dice_player.js",
  "./js/views/dice_sheets.js",
  "./js/views/home.js",
  "./js/views/invites.js",
  "./js/views/organizer.js",
  "./js/views/player.js",
  "./js/views/rank_bases.js",
  "./js/views/rank_common.js",
  "./js/views/rank_create.js",
  "./js/views/rank_leader.js",
  "./js/views/rank_organizer.js",
  "./js/views/rank_player.js",
  "./js/views/replay.js",
  "./js/views/scanner.js",
  "./js/views/secure.js",
  "./js/views/spectator.js",
];
const SCOPE = new URL("./", self.location).pathname;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(VERSION).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const path = url.pathname.slice(SCOPE.length - 1);
  if (path.startsWith("/api/") || path.startsWith("/ws/") || path === "/healthz") return;
  if (request.mode === "navigate") {
    if (path === "/" || path === "/index.html") event.respondWith(fromCache(event, request, SCOPE));
    return;
  }
  event.respondWith(fromCache(event, request, request));
});

// Answer from the cache when we can and refresh the copy in the background.
async function fromCache(event, request, key) {
  const cache = await caches.open(VERSION);
  const cached = await cache.match(key, { ignoreSearch: true });
  const fresh = fetch(request).then((response) => {
    if (response.ok && response.type === "basic") cache.put(key, response.clone());
    return response;
  });
  if (!cached) return fresh;
  event.waitUntil(fresh.catch(() => {}));
  return cached;
}

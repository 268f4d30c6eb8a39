// Service worker: keeps the app shell so the app opens with no signal after the first visit.
// BUILD is written by the server at start (server/shell.py): the version (a hash of the PWA's
// files) and the shell, what index.html links and imports statically. Files under the version
// prefix never change, so they are answered from the cache; a ruleset's screens, loaded with
// import(), are kept when first fetched (or when the page says it loaded them before this
// worker ran). A new version comes as a new worker, which installs its own shell and drops the
// old one. The API and the socket always go to the network.
const BUILD = { version: "source", shell: ["./"] };
const VERSION = `bijse-shell-${BUILD.version}`;
const SCOPE = new URL("./", self.location).pathname;
const FILES = `${SCOPE}v/${BUILD.version}/`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(VERSION).then((cache) => cache.addAll(BUILD.shell)).then(() => self.skipWaiting()));
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
    if (path === "/" || path === "/index.html") event.respondWith(fromCache(request, SCOPE));
    return;
  }
  event.respondWith(fromCache(request, request));
});

// The page lists the files it loaded before this worker controlled it: keep this version's.
self.addEventListener("message", (event) => {
  const files = Array.isArray(event.data?.keep) ? event.data.keep : [];
  event.waitUntil(caches.open(VERSION).then((cache) => Promise.all(files
    .filter((url) => new URL(url, self.location).pathname.startsWith(FILES))
    .map(async (url) => (await cache.match(url)) || cache.add(url).catch(() => {})))));
});

// The cached copy belongs to this worker's version; a file missing from it is kept when fetched.
async function fromCache(request, key) {
  const cache = await caches.open(VERSION);
  const cached = await cache.match(key, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  const mine = new URL(request.url).pathname.startsWith(FILES);
  if (mine && response.ok && response.type === "basic") await cache.put(key, response.clone());
  return response;
}

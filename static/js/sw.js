// The service worker (served as /sw.js by app/web/pwa.py, which writes VERSION and SHELL above
// this line). It keeps the static shell in one cache per VERSION, and:
// - a page (a navigation) always comes from the network; when the server cannot be reached,
//   the cached offline page is shown instead. Pages are never stored: a table page is game state.
// - a file under /static/ comes from the network, and is stored for the offline page; the
//   stored copy is used only when the network fails.
// - everything else (/api/, the sockets, the manifest, records...) is left to the browser:
//   never answered from, nor written to, the cache.
// A push (app/web/push.py) shows its title and line, and a click opens its table.
/* global VERSION, SHELL */
const CACHE = `atout-shell-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("atout-shell-") && key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

async function page(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const offline = await caches.match("/offline", { cacheName: CACHE });
    if (offline) return offline;
    throw error;
  }
}

async function shell(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const stored = await cache.match(request);
    if (stored) return stored;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(shell(request));
  }
  // anything else: not handled here, so never cached
});

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "Atout", {
      body: data.body || "",
      tag: data.tag,
      icon: "/static/icons/icon-192.png",
      badge: "/static/icons/icon-192.png",
      data: { url: data.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => w.url === url);
      return open ? open.focus() : self.clients.openWindow(url);
    }),
  );
});

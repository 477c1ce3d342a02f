// Tercio's service worker (issue 43, item 9), registered by the pages only in a secure context
// (https, or localhost). It keeps the static files (their names carry their content's hash, so a
// kept copy is never stale) and each seat's page as last fetched; the game page's script adds
// its live part as it last drew it (`/s/<token>?part=main`). Offline, a seat's page is answered
// from that copy, marked `x-tercio-offline: 1`, and the page says it is the last known state,
// read-only. A link answered 404 (withdrawn) has its copy dropped at once; the page drops it
// too when its stream learns the link was withdrawn. The API is never answered from a copy.
"use strict";
const CACHE = "tercio-v1";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys().then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n)))).then(() => self.clients.claim()));
});

// A copy answered offline says so: in a header, and a page in its body (`data-offline`), so
// that its script shows the live part as last drawn and says it is read-only.
async function offline(cached, page) {
  const headers = new Headers(cached.headers);
  headers.set("x-tercio-offline", "1");
  let body = await cached.text();
  if (page) body = body.replace("<body>", "<body data-offline=\"1\">");
  return new Response(body, { status: 200, headers });
}

async function seatPage(request) {
  const cache = await caches.open(CACHE);
  const url = new URL(request.url);
  const key = url.pathname + (url.searchParams.get("part") === "main" ? "?part=main" : "");
  try {
    const r = await fetch(request);
    if (r.status === 404) {
      await cache.delete(url.pathname);
      await cache.delete(`${url.pathname}?part=main`);
    } else if (r.ok && !url.searchParams.has("part")) {
      await cache.put(key, r.clone());
    }
    return r;
  } catch (err) {
    const cached = await cache.match(key);
    if (cached) return offline(cached, key === url.pathname);
    throw err;
  }
}

async function staticFile(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const r = await fetch(request);
  if (r.ok) await cache.put(request, r.clone());
  return r;
}

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) { e.respondWith(staticFile(req)); return; }
  if (/^\/s\/[^/]+$/.test(url.pathname)) e.respondWith(seatPage(req));
});

// Parley's service worker, served at /sw.js so that its scope is the whole site. It keeps the conversation pages
// (/c/{id}) opened recently, network first with the saved copy when the network fails, and the fingerprinted static
// files they need. It keeps nothing else: no other page, no other origin, no request but GET, no error or redirect.
// offline.js deletes these caches when the user signs out.
"use strict";

const PAGES = "parley-pages";
const STATIC = "parley-static";
const LIMIT = 30;
const conversationPage = /^\/c\/\d+$/;
const fingerprinted = /^\/static\/[^/]+\.[0-9a-f]{10}\.[a-z0-9]+$/;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** Stores a response under `key`, newest last, keeping at most LIMIT entries in that cache. */
async function keep(cacheName, key, response) {
  const cache = await caches.open(cacheName);
  await cache.delete(key);
  await cache.put(key, response);
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - LIMIT)).map((old) => cache.delete(old)));
}

/** Whether a response is one of the user's own pages, fit to be kept. */
function isKeepablePage(response) {
  return response.ok && response.type === "basic" && !response.redirected &&
    (response.headers.get("Content-Type") || "").startsWith("text/html");
}

/** The network's answer (kept when it is a page), else the copy kept from an earlier visit. */
async function networkFirst(request) {
  const key = new URL(request.url).pathname;
  try {
    const response = await fetch(request);
    if (isKeepablePage(response)) await keep(PAGES, key, response.clone());
    else if (response.status === 404 || response.status === 401) await caches.open(PAGES).then((cache) => cache.delete(key));
    return response;
  } catch (error) {
    const saved = await caches.open(PAGES).then((cache) => cache.match(key));
    if (saved) return saved;
    throw error;
  }
}

/** A fingerprinted file never changes: the kept copy, else the network's (then kept). */
async function cacheFirst(request) {
  const saved = await caches.open(STATIC).then((cache) => cache.match(request.url));
  if (saved) return saved;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await keep(STATIC, request.url, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && conversationPage.test(url.pathname)) event.respondWith(networkFirst(request));
  else if (fingerprinted.test(url.pathname)) event.respondWith(cacheFirst(request));
});

// A page opened before this worker took control asks for itself and its files to be kept.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "keep" || !conversationPage.test(data.page || "")) return;
  const assets = (data.assets || []).filter((href) => {
    const url = new URL(href, self.location.origin);
    return url.origin === self.location.origin && fingerprinted.test(url.pathname);
  });
  event.waitUntil(Promise.all([
    networkFirst(new Request(data.page, { credentials: "same-origin" })),
    ...assets.map((href) => cacheFirst(new Request(href))),
  ]).catch(() => null));
});

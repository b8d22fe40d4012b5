// Parley's offline reading: registers the service worker (/sw.js), which keeps the conversation pages opened
// recently so that they can be read without a connection, and empties its caches when the user signs out, so
// that no one who signs in next on this browser can read them.
"use strict";

(function () {
  if (!("serviceWorker" in navigator) || !window.caches) return;

  /** Deletes every cache of Parley's service worker. */
  function forgetSavedPages() {
    return caches.keys().then((names) => Promise.all(names.filter((name) => name.startsWith("parley-")).map((name) => caches.delete(name))));
  }

  const signOutForms = document.querySelectorAll('form[action="/logout"], form[action="/logout/everywhere"]');
  if (signOutForms.length === 0) {
    // Signed out (or signed out elsewhere, or the session expired): nothing saved may outlive the session.
    forgetSavedPages();
    return;
  }
  for (const form of signOutForms) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      forgetSavedPages().catch(() => null).finally(() => form.submit());
    });
  }

  navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then((registration) => {
    // A page loaded before the worker took control was not saved by it: ask it to save this one now.
    if (navigator.serviceWorker.controller || !document.getElementById("chat")) return;
    const assets = [...document.querySelectorAll('link[rel=stylesheet], link[rel=icon], script[src]')].map((element) => element.href || element.src);
    registration.active?.postMessage({ type: "keep", page: location.pathname, assets });
  }).catch(() => null);
})();

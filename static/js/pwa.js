// The installable app: register the service worker (/sw.js, static/js/sw.js) on every page;
// where the page has a notifications switch, push.js wires it.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    /* no worker (a private window, a browser that refuses): the site works without it */
  });
}

if (document.querySelector("input[data-push-switch]")) import("./push.js");

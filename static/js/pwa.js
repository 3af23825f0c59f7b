// The installable app: register the service worker (/sw.js, static/js/sw.js) on every page.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    /* no worker (a private window, a browser that refuses): the site works without it */
  });
}

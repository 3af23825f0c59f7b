// Notifications (Web Push, app/web/push.py): the switch in the table's settings and on the
// profile page (`input[data-push-switch]`), loaded by pwa.js where there is one. Turning it on
// asks the browser's permission, subscribes with the server's VAPID key and gives the
// subscription to the server; turning it off unsubscribes and tells the server to forget it.
// Per browser: another browser of the same player has its own switch.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const switches = [...document.querySelectorAll("input[data-push-switch]")];
const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;

function key(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function show(on, note) {
  for (const input of switches) {
    input.checked = on;
    input.disabled = !supported;
  }
  if (note) for (const help of document.querySelectorAll("[data-push-help]")) help.textContent = note;
}

async function current() {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

async function send(path, subscription) {
  const json = subscription.toJSON();
  const body = path.endsWith("/subscribe") ? { endpoint: json.endpoint, keys: json.keys, lang: document.documentElement.lang } : { endpoint: json.endpoint };
  return api(path, { method: "POST", body });
}

async function turnOn() {
  if ((await Notification.requestPermission()) !== "granted") throw new Error(t("push.denied"));
  await api("/api/me", { method: "POST" });
  const { public_key: publicKey } = await api("/api/push/key");
  const registration = await navigator.serviceWorker.ready;
  const subscription =
    (await registration.pushManager.getSubscription()) ||
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(publicKey) }));
  await send("/api/push/subscribe", subscription);
}

async function turnOff() {
  const subscription = await current();
  if (!subscription) return;
  await send("/api/push/unsubscribe", subscription).catch(() => {});
  await subscription.unsubscribe();
}

async function changed(input) {
  const wanted = input.checked;
  for (const other of switches) other.disabled = true;
  try {
    await (wanted ? turnOn() : turnOff());
    show(wanted);
    toast(t(wanted ? "push.on" : "push.off"));
  } catch (error) {
    show(!wanted);
    toast(t("push.failed", { message: error.message || String(error) }));
  } finally {
    for (const other of switches) other.disabled = !supported;
  }
}

async function start() {
  if (!supported) {
    show(false, t("push.unsupported"));
    return;
  }
  for (const input of switches) input.addEventListener("change", () => changed(input));
  try {
    const subscription = await current();
    // on when this browser is subscribed and the server still has it for this player
    const known = subscription ? (await send("/api/push/status", subscription)).subscribed : false;
    show(Boolean(subscription && known && Notification.permission === "granted"));
  } catch {
    show(false);
  }
}

start();

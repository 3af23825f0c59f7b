// Shared by every page: the language switcher (remembered in a cookie), toasts, copy and share.
import { t } from "./i18n.js";

const LANG_COOKIE = "atout_lang";

for (const select of document.querySelectorAll("[data-lang-switch]")) {
  select.addEventListener("change", () => {
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = `${LANG_COOKIE}=${encodeURIComponent(select.value)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
    location.reload();
  });
}

let toastTimer = null;

/** A short message at the bottom of the screen. Over a modal dialog it is drawn inside that
 * dialog (the top layer): outside, the dialog and its backdrop would hide it. */
export function toast(message) {
  const el = document.getElementById("toast");
  if (!el) return;
  const modal = [...document.querySelectorAll("dialog[open]")].filter((d) => d.matches(":modal")).pop();
  const home = modal || document.body;
  if (el.parentElement !== home) home.append(el);
  el.textContent = message;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 2600);
}

const NEXT_TOAST = "atout.nextToast";

/** A toast for the page this one is about to open (a message that a navigation would cut). */
export function toastNextPage(message) {
  try {
    sessionStorage.setItem(NEXT_TOAST, message);
  } catch {
    /* storage blocked: the message is lost with the page */
  }
}

function showPendingToast() {
  let message = null;
  try {
    message = sessionStorage.getItem(NEXT_TOAST);
    sessionStorage.removeItem(NEXT_TOAST);
  } catch {
    return;
  }
  if (message) toast(message);
}

/** Copy text to the clipboard (with a fallback for non-secure contexts); toast the result. */
export async function copyText(text) {
  let ok = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch {
    ok = false;
  }
  if (!ok) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
  }
  toast(ok ? t("invite.copied") : t("invite.copy_failed"));
  return ok;
}

/** Whether the system share sheet is available. */
export const canShare = () => typeof navigator.share === "function";

export async function shareLink(url) {
  try {
    await navigator.share({ title: "Atout", text: t("invite.share_text"), url });
  } catch {
    /* the player closed the sheet */
  }
}

/** JSON fetch with the cookie; throws an Error carrying the server's message, its HTTP status
 * and its error code (`error.code`, null when the answer had none). */
/** @param {string} path @param {{method?: string, body?: any}} [init] */
export async function api(path, { method = "GET", body } = {}) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = (data && data.error && data.error.message) || (data && data.detail && JSON.stringify(data.detail)) || `HTTP ${response.status}`;
    const error = new Error(message);
    error.status = response.status;
    error.code = (data && data.error && data.error.code) || null;
    error.data = (data && data.error) || null; // the error's own data, beside code and message
    throw error;
  }
  return data;
}

export function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** Progress bars (`.xp-bar[aria-valuenow] > span`) take their width from their value: through
 * the CSSOM, since the pages' Content-Security-Policy refuses inline style attributes. */
/** @param {ParentNode} [root] */
export function fillBars(root = document) {
  for (const bar of root.querySelectorAll(".xp-bar[aria-valuenow]")) {
    const span = bar.querySelector("span");
    const percent = Math.max(0, Math.min(100, Number(bar.getAttribute("aria-valuenow")) || 0));
    if (span) span.style.width = `${percent}%`;
  }
}

fillBars();
showPendingToast();

// Keyboard play: one key per action, shown in each control's tooltip (title) and announced to
// assistive technology (aria-keyshortcuts); and, when it becomes the player's turn, the focus
// moves to the hand or to the bid buttons.
//
// A control's key is read back from its aria-keyshortcuts when a key is pressed, so what the
// tooltip says and what the key does cannot drift apart.

const SUIT_KEYS = { C: "C", D: "D", H: "H", S: "S", NT: "N", AT: "A" };

/** Keys of the controls of the action row, by their data-action. */
function actionKey(name) {
  if (name.startsWith("bid-")) return SUIT_KEYS[name.split("-").pop()] || null;
  // the waiting room: seat n is 1..4 as people count
  if (name.startsWith("seat-bot-")) return `Shift+${Number(name.slice(9)) + 1}`;
  if (name.startsWith("take-seat-")) return String(Number(name.slice(10)) + 1); // guests
  if (name.startsWith("free-seat-")) return String(Number(name.slice(10)) + 1); // the host
  if (name.startsWith("stand-in-")) return "M"; // let the computer (machine) play for an away seat
  return (
    {
      pass: "P",
      double: "X",
      redouble: "X",
      exchange: "E",
      discard: "D",
      call: "C",
      "skip-declare": "N",
      "call-belote": "B",
      claim: "R",
      "play-plain": "P",
      next_deal: "N",
      rematch: "R",
      continue: "Enter",
      sheet: "T",
      "copy-invite": "Shift+I",
      back: "Shift+B",
      "share-invite": "Shift+S",
    }[name] || null
  );
}

/** Keys of the fixed controls of the page, by CSS selector (an id, mostly). Inside a dialog a
 * key works only while that dialog is open, so dialogs may reuse the table's letters. */
const FIXED = {
  "#btn-last-trick": "L",
  "#btn-bids": "V",
  "#scoreboard": "T",
  "#btn-hint": "I",
  "#btn-help": "?",
  "#btn-settings": ",",
  "#btn-invite": "Shift+I",
  "#btn-leave": "Shift+Q",
  "#btn-chat": "Shift+C",
  "#four-colour": "F",
  "#pass-ready": "Enter",
  "#setting-sound": "S",
  "#setting-confirm": "T",
  "#setting-auto": "A",
  "#leave-go": "L",
  "#help-full": "R",
  "#sheet-replay": "R",
  '#match-actions a[href="/"]': "H",
};

const NAMES = { ArrowUp: "↑", ArrowDown: "↓", Escape: "Esc", " ": "Space" };

/** "Shift+X" as shown to the player. */
export function keyLabel(shortcut) {
  return shortcut
    .split("+")
    .map((part) => NAMES[part] || part)
    .join("+");
}

/** Give `el` the key `shortcut`: aria-keyshortcuts, and the key in its tooltip. */
export function setKey(el, shortcut, label = null) {
  if (!el) return;
  if (!shortcut) {
    el.removeAttribute("aria-keyshortcuts");
    return;
  }
  el.setAttribute("aria-keyshortcuts", shortcut);
  const base = label || el.dataset.titleBase || el.getAttribute("title") || el.getAttribute("aria-label") || el.textContent.trim();
  el.dataset.titleBase = base;
  el.title = `${base} (${keyLabel(shortcut)})`;
}

/**
 * Put keys on what the page shows now: the action row, the dialogs' buttons, the cards the
 * player may use (1..9, 0 for the tenth) and the fixed controls of the bar.
 */
export function decorateKeys() {
  for (const [selector, key] of Object.entries(FIXED)) {
    const el = document.querySelector(selector);
    if (!el) continue;
    const target = el.matches("input") ? el.closest("label") || el : el;
    if (!el.hasAttribute("aria-keyshortcuts")) setKey(el, key, el.matches("input") ? target.textContent.trim() : null);
    if (target !== el) target.title = el.title;
  }
  for (const el of document.querySelectorAll("[data-action]")) {
    const name = el.dataset.action;
    if (name.startsWith("value-")) continue;
    const key = actionKey(name);
    if (key && el.getAttribute("aria-keyshortcuts") !== key) setKey(el, key);
  }
  // coinche values: ↑ chooses the next higher value, ↓ the next lower one
  const chips = [...document.querySelectorAll("#controls [data-action^=value-]")];
  const on = chips.findIndex((c) => c.getAttribute("aria-checked") === "true");
  chips.forEach((chip, i) => setKey(chip, i === on + 1 ? "ArrowUp" : i === on - 1 ? "ArrowDown" : null, chip.textContent.trim()));
  // declaration suggestions: Shift+1, Shift+2...
  [...document.querySelectorAll("#controls [data-action=suggest]")].forEach((chip, i) => setKey(chip, `Shift+${i + 1}`, chip.textContent.trim()));
  // cards: their place in the hand (duel: the player's face-up piles)
  const cards = [...document.querySelectorAll("#hand button.card, #piles-bottom button.card")];
  cards.forEach((card, i) => {
    const digit = i < 9 ? String(i + 1) : i === 9 ? "0" : null;
    if (card.getAttribute("aria-keyshortcuts") !== digit) setKey(card, digit, card.getAttribute("aria-label"));
  });
  // the dialogs' close buttons: Escape closes a dialog (the browser's own key)
  for (const b of document.querySelectorAll("dialog form[method=dialog] button")) if (!b.hasAttribute("aria-keyshortcuts")) setKey(b, "Escape");
}

function parse(shortcut) {
  const parts = shortcut.split("+");
  const key = parts.pop();
  return { key, shift: parts.includes("Shift") };
}

function matches(event, shortcut) {
  const { key, shift } = parse(shortcut);
  if (/^[0-9]$/.test(key)) {
    // digits: by the key's place, so Shift+1 works on every keyboard layout
    return event.code === `Digit${key}` && event.shiftKey === shift;
  }
  if (/^[A-Za-z]$/.test(key)) return event.key.toLowerCase() === key.toLowerCase() && event.shiftKey === shift;
  return event.key === key; // "?", ",", Enter, arrows: whatever modifier produced them
}

const isVisible = (el) => el.getClientRects().length > 0 && !el.closest("[hidden]");
const TYPING = "input:not([type=checkbox]):not([type=radio]), select, textarea, [contenteditable]";

/** The key handler of the table page: presses the visible control whose key was pressed. */
export function installShortcuts() {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    if (event.key === "Escape" || event.key === "Tab") return; // the browser's own keys
    const target = event.target instanceof Element ? event.target : null;
    if (target && target.closest(TYPING)) return;
    // Enter and Space on a focused button or card already press it
    if ((event.key === "Enter" || event.key === " ") && target && target.closest("button, a, input, [role=button]")) return;
    const modal = [...document.querySelectorAll("dialog[open]")].pop();
    const scope = modal || document;
    const candidates = [...scope.querySelectorAll("[aria-keyshortcuts]")].filter((el) => !el.disabled && isVisible(el));
    for (const el of candidates) {
      const keys = el.getAttribute("aria-keyshortcuts").split(" ");
      if (!keys.some((k) => matches(event, k))) continue;
      if (!modal && el.closest("dialog")) continue;
      event.preventDefault();
      if (el.matches("input[type=checkbox]")) el.click();
      else {
        el.click();
        if (el.isConnected && el.matches("#hand .card, #piles-bottom .card")) el.focus();
      }
      return;
    }
  });
}

let turnKey = null;

/**
 * When a new decision is asked of the player (`key` names it: phase and prompt), move the focus
 * to where it is made: the first card that may be played or the first bid button. While a
 * dialog is open or the player types, the focus is left alone and the decision stays pending:
 * the next call with the same key (a redraw, a dialog closing) moves it then.
 */
export function focusTurn(key) {
  if (key === turnKey) return;
  if (!key) {
    turnKey = null;
    return;
  }
  if (document.querySelector("dialog[open]")) return;
  const active = document.activeElement;
  if (active && active.closest && active.closest(TYPING)) return;
  turnKey = key;
  // never a call that commits much (a coinche, a surcoinche) where a stray Enter lands: in the
  // auction the safe call, Pass, has the focus
  const target =
    document.querySelector("#controls [data-action=suggest]") ||
    document.querySelector("#hand button.card[aria-disabled=false], #piles-bottom button.card[aria-disabled=false]") ||
    document.querySelector("#controls button[data-action=pass]:not([disabled])") ||
    document.querySelector("#controls button.primary:not([disabled])") ||
    document.querySelector("#controls button[data-action^=bid-]:not([disabled])") ||
    document.querySelector("#controls button:not([disabled])");
  if (!target) return;
  if (target.matches(".card")) {
    for (const c of document.querySelectorAll("#hand .card, #piles-bottom .card")) c.tabIndex = -1;
    target.tabIndex = 0;
  }
  target.focus({ preventScroll: true });
}

/**
 * A dialog has closed. The browser hands the focus back to the element that had it before the
 * dialog opened; when a redraw replaced that element meanwhile, the focus stays in the closed
 * dialog (at its close event) and then falls to the page. The player's pending decision,
 * focused once already, then takes it again at the next focusTurn (which otherwise leaves a
 * decision it has focused alone).
 */
export function dialogClosed() {
  const active = document.activeElement;
  const lost = !active || active === document.body || !active.isConnected || active.closest("dialog:not([open])");
  if (lost) turnKey = null;
}

/**
 * Where the focus is among the cards and controls that a redraw rebuilds, as a selector for
 * the same card or action after it (null when the focus is elsewhere).
 */
export function focusedPlace() {
  const el = document.activeElement;
  if (!el || !el.closest) return null;
  if (el.dataset.card && el.closest("#hand, #piles-bottom")) {
    return `#hand .card[data-card="${el.dataset.card}"], #piles-bottom .card[data-card="${el.dataset.card}"]`;
  }
  if (el.dataset.action && el.closest("#controls")) return `#controls [data-action="${el.dataset.action}"]`;
  return null;
}

/** After a redraw: the focus goes back to the card or action it was on, if it is still there. */
export function restoreFocus(place) {
  if (!place) return;
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  const el = document.querySelector(place);
  if (!el || el.disabled) return;
  if (el.matches(".card")) {
    for (const c of document.querySelectorAll("#hand .card, #piles-bottom .card")) c.tabIndex = -1;
    el.tabIndex = 0;
  }
  el.focus({ preventScroll: true });
}

// The player's table settings, remembered in this browser (localStorage), and the dialog that
// changes them. Every setting has a default; a stored value wins over it.

const PREFIX = "atout.";

/** name -> default value (a function when it depends on the device). */
const DEFAULTS = {
  // sound effects (sound.js): off until the player turns them on
  sound: () => false,
  // misclick protection: the first tap raises a card, the second plays it. On by default on
  // touch screens, where a finger easily lands on the wrong card.
  confirmCard: () => isTouchScreen(),
  // forced cards: when the player has one card only, the server plays it for them (told
  // through the `settings` message, table-live.js)
  autoPlay: () => true,
};

const listeners = new Set();

export function isTouchScreen() {
  return typeof window.matchMedia === "function" && window.matchMedia("(pointer: coarse)").matches;
}

function read(name) {
  try {
    return localStorage.getItem(PREFIX + name);
  } catch {
    return null; // storage blocked: the defaults apply
  }
}

/** The value of a boolean setting. */
export function setting(name) {
  const stored = read(name);
  if (stored === "1") return true;
  if (stored === "0") return false;
  return Boolean(DEFAULTS[name]());
}

export function setSetting(name, value) {
  try {
    localStorage.setItem(PREFIX + name, value ? "1" : "0");
  } catch {
    /* not remembered, still applied for this page */
  }
  for (const fn of listeners) fn(name, Boolean(value));
}

/** Call `fn(name, value)` whenever a setting changes. */
export function onSettingChange(fn) {
  listeners.add(fn);
}

/** Wire the checkboxes of a settings dialog: each `input[data-setting=name]` shows and changes
 * its setting. */
export function bindSettings(root) {
  for (const input of root.querySelectorAll("input[data-setting]")) {
    const name = input.dataset.setting;
    input.checked = setting(name);
    input.addEventListener("change", () => setSetting(name, input.checked));
  }
}

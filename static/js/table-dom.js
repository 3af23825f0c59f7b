// @ts-check
// The table page's few DOM helpers: its root, lookups by id, buttons, dialogs, the announcer.
export const app = document.getElementById("table-app");
/** An element of the page by id: a dialog, an input, a button... (not typed further).
 * @param {string} id
 * @returns {any} */
export const $ = (id) => document.getElementById(id);

/** A button; `name` becomes its data-action (the browser tests and hints find it by that). */
export function button(label, onClick, { cls = "btn", html = false, disabled = false, name = null } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  if (html) b.innerHTML = label;
  else b.textContent = label;
  if (name) b.dataset.action = name;
  b.disabled = disabled;
  b.addEventListener("click", onClick);
  return b;
}

/** A variant's traits before the first view has come (the view carries the game's own): its
 * default players and options, as templates/table_help.html gives them.
 * @param {string} variant
 * @returns {import("./protocol-types.js").TraitsModel} */
export function pageTraits(variant) {
  return JSON.parse(document.getElementById("variant-traits").textContent)[variant];
}

export function openDialog(id) {
  const dlg = $(id);
  if (!dlg.open) dlg.showModal();
}

/** Say something to screen readers (aria-live). */
export function announce(text) {
  $("announcer").textContent = text;
}

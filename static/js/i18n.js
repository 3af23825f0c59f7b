// The page's catalog (embedded by the server as JSON) and t(key, params).
const node = document.getElementById("i18n");
const catalog = node ? JSON.parse(node.textContent) : {};

export const lang = document.documentElement.lang || "en";

/** The text of `key` with {placeholders} filled from `params`. */
export function t(key, params = {}) {
  let text = catalog[key];
  if (text === undefined) {
    console.error(`i18n: missing key ${key}`);
    text = key;
  }
  for (const [name, value] of Object.entries(params)) {
    text = text.split(`{${name}}`).join(String(value));
  }
  return text;
}

/** Whether the catalog has `key` (for optional texts). */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(catalog, key);
}

/** "label:" as the page's language writes it before what it introduces ("Partie :" in French,
 * with a non-breaking space). */
export function colon(label) {
  return t("punct.colon", { label });
}

const plurals = new Intl.PluralRules(lang);

/** A text that counts: `key.<category>` for the page language's plural category of `n`
 * (Intl.PluralRules: one, few, many, other, ...), else `key.other`; {n} is filled in. */
export function tn(key, n, params = {}) {
  const exact = `${key}.${plurals.select(n)}`;
  return t(has(exact) ? exact : `${key}.other`, { n, ...params });
}

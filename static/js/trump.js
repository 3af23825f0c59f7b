// The trump on the felt itself, large enough to read on a phone: the suit (or no / all trumps),
// the contract's value, who took it, and any coinche / contra (double) or surcoinche / recontra.
import { denomText, suitIcon } from "./cards.js";
import { escapeHTML } from "./common.js";
import { colon, t } from "./i18n.js";
import { about } from "./words.js";

const SUITS = new Set(["C", "D", "H", "S"]);

// the markup each badge last got
const drawn = new WeakMap();

/**
 * Draw the trump badge into `el` for the view `v`; hidden while no contract is made.
 * `seatWho(seat)` says who the taker is ({ person, name }, words.js).
 */
export function renderTrumpBadge(el, v, seatWho) {
  if (!el) return;
  const contract = v && v.contract;
  if (!contract) {
    el.hidden = true;
    el.replaceChildren();
    delete el.dataset.denom;
    drawn.delete(el);
    return;
  }
  const denom = contract.denom;
  const suit = SUITS.has(denom)
    ? suitIcon(denom, "suit-icon trump-suit")
    : `<span class="trump-word">${escapeHTML(t(`denom.${denom}`))}</span>`;
  const value = contract.value === undefined ? "" : contract.value === "capot" ? t("bid.capot") : String(contract.value);
  let mult = "";
  if (contract.multiplier > 1) {
    const word = contract.multiplier === 2 ? t(`bid.double.${v.variant}`) : t(`bid.redouble.${v.variant}`);
    mult = `${word} ×${contract.multiplier}`;
  }
  const taker = about("table.by", seatWho(contract.taker));
  el.hidden = false;
  el.dataset.denom = denom;
  el.dataset.multiplier = String(contract.multiplier || 1);
  const spoken = [`${colon(t("trump.label"))} ${denomText(denom)}`, value, taker, mult].filter(Boolean).join(", ");
  el.setAttribute("aria-label", spoken);
  el.title = spoken;
  const html =
    `<span class="trump-mark" aria-hidden="true">${suit}</span>` +
    `<span class="trump-lines" aria-hidden="true">` +
    `<span class="trump-title">${escapeHTML(t("trump.label"))}${value ? ` <b class="trump-value">${escapeHTML(value)}</b>` : ""}</span>` +
    `<span class="trump-taker">${escapeHTML(taker)}</span>` +
    (mult ? `<span class="trump-mult">${escapeHTML(mult)}</span>` : "") +
    `</span>`;
  // every view renders the table; the badge is rebuilt only when it changes
  if (drawn.get(el) !== html) {
    el.innerHTML = html;
    drawn.set(el, html);
  }
}

// Cards drawn as inline SVG (no image files): faces, backs, suit symbols, sorting, names.
import { has, t } from "./i18n.js";

export const SUITS = ["C", "D", "H", "S"];
export const RANKS = ["7", "8", "9", "T", "J", "Q", "K", "A"];
const PLAIN_ORDER = ["A", "T", "K", "Q", "J", "9", "8", "7"];
const TRUMP_ORDER = ["J", "9", "A", "T", "K", "Q", "8", "7"];
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAME = { 7: "seven", 8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];

/** A suit symbol as SVG markup (drawn from the page's sprite). */
export function suitIcon(suit, cls = "suit-icon") {
  return `<svg class="${cls} s-${suit}" viewBox="0 0 100 100" aria-hidden="true"><use href="#suit-${suit}"/></svg>`;
}

/** The index letter of a rank in the player's language (V/D/R in French, В/Д/К in Bulgarian...). */
export function rankLabel(rank) {
  return rank === "T" ? "10" : t(`rank.short.${rank}`);
}

/** "jack of hearts" in the player's language. A language whose suit word agrees with the rank
 * (Czech "kárový kluk", "kárová dáma", "kárové eso") gives `suit.<suit>.of.<rank>` for the ranks
 * whose form differs from `suit.<suit>.of`. */
export function cardName(card) {
  const rank = RANK_NAME[rankOf(card)];
  const suit = `suit.${SUIT_NAME[suitOf(card)]}.of`;
  return t("card.name", { rank: t(`rank.${rank}`), suit: t(has(`${suit}.${rank}`) ? `${suit}.${rank}` : suit) });
}

export function suitName(suit) {
  return t(`suit.${SUIT_NAME[suit]}`);
}

const COURT = new Set(["J", "Q", "K"]);

/** The SVG of a card face, 100 x 140 units, scaled by CSS. */
export function faceSVG(card) {
  const rank = rankOf(card);
  const suit = suitOf(card);
  const label = rankLabel(rank);
  const size = label.length > 1 ? 30 : 36;
  const corner =
    `<text x="${label.length > 1 ? 5 : 9}" y="36" font-size="${size}" class="idx">${label}</text>` +
    `<use href="#suit-${suit}" x="8" y="42" width="24" height="24"/>`;
  let middle;
  if (COURT.has(rank)) {
    middle =
      `<rect x="34" y="30" width="58" height="98" rx="6" class="court"/>` +
      `<text x="63" y="90" font-size="50" text-anchor="middle" class="idx">${label}</text>` +
      `<use href="#suit-${suit}" x="51" y="98" width="24" height="24"/>`;
  } else {
    const big = rank === "A" ? 56 : 46;
    middle = `<use href="#suit-${suit}" x="${63 - big / 2}" y="${80 - big / 2}" width="${big}" height="${big}"/>`;
  }
  const bottom =
    `<g transform="rotate(180 50 70)"><text x="${label.length > 1 ? 5 : 9}" y="36" font-size="${size}" class="idx">${label}</text></g>`;
  return (
    `<svg class="face s-${suit}" viewBox="0 0 100 140" aria-hidden="true">` +
    `<rect x="1" y="1" width="98" height="138" rx="9" class="paper"/>` +
    corner +
    middle +
    (COURT.has(rank) ? "" : bottom) +
    `</svg>`
  );
}

/** The SVG of a card back. */
export function backSVG() {
  return (
    `<svg class="back" viewBox="0 0 100 140" aria-hidden="true">` +
    `<rect x="1" y="1" width="98" height="138" rx="9" class="back-edge"/>` +
    `<rect x="8" y="8" width="84" height="124" rx="5" fill="url(#card-back)"/>` +
    `</svg>`
  );
}

/** A card element: a <button> when it can be chosen, a <div> otherwise. */
export function cardElement(card, { button = false, playable = false, label = null, cls = "" } = {}) {
  const el = document.createElement(button ? "button" : "div");
  el.className = `card ${cls}`.trim();
  el.dataset.card = card;
  if (button) el.type = "button";
  el.innerHTML = faceSVG(card);
  const name = cardName(card);
  el.setAttribute("aria-label", label || (button ? t(playable ? "card.playable" : "card.not_playable", { card: name }) : name));
  if (!button) el.setAttribute("role", "img");
  return el;
}

export function backElement(cls = "") {
  const el = document.createElement("div");
  el.className = `card back-card ${cls}`.trim();
  el.innerHTML = backSVG();
  el.setAttribute("aria-hidden", "true");
  return el;
}

/**
 * Sort a hand: by suit, trump first, the other suits alternating colours; inside a suit by the
 * order that decides tricks (trump order for trumps and in all-trumps).
 */
export function sortHand(cards, denom = null) {
  const trump = SUITS.includes(denom) ? denom : null;
  const present = SUITS.filter((s) => cards.some((c) => suitOf(c) === s));
  let order = ["S", "H", "C", "D"].filter((s) => present.includes(s));
  if (trump && present.includes(trump)) {
    const red = (s) => s === "H" || s === "D";
    const rest = order.filter((s) => s !== trump);
    // alternate colours after the trump where possible
    const out = [trump];
    while (rest.length) {
      const last = out[out.length - 1];
      const i = rest.findIndex((s) => red(s) !== red(last));
      out.push(rest.splice(i >= 0 ? i : 0, 1)[0]);
    }
    order = out;
  }
  const rankIndex = (card) => {
    const useTrump = denom === "AT" || suitOf(card) === trump;
    return (useTrump ? TRUMP_ORDER : PLAIN_ORDER).indexOf(rankOf(card));
  };
  return [...cards].sort((a, b) => order.indexOf(suitOf(a)) - order.indexOf(suitOf(b)) || rankIndex(a) - rankIndex(b));
}

/** A contract's denomination as HTML: a suit symbol, or the words for no/all trumps. */
export function denomHTML(denom) {
  if (SUITS.includes(denom)) return suitIcon(denom);
  return `<span class="denom-word">${t(`denom.${denom}`)}</span>`;
}

export function denomText(denom) {
  return SUITS.includes(denom) ? suitName(denom) : t(`denom.${denom}`);
}

// Why a card may not be played, as a sentence in the page's language ("You must follow ♥",
// "You must overtrump: you hold the J♠"), from the engine's own explanation.
//
// The server's `error` for an illegal action carries the engine's reason as `reason`:
// {"code": "must_follow", "suit": "H", "card": "7S", "legal": ["8H", "KH"]}, ... (codes:
// must_follow, must_overtake, must_trump, must_overtrump, must_undertrump). `suit` is the led
// suit (follow, overtake) or the trump; `card` the refused card; `legal` the cards that may be
// played, which the sentence names ("you hold the J♠"). Without `reason`, the engine's one-line
// message ("must overtrump: holds JS 9S") is read instead; failing both, a generic sentence.
import { rankLabel, rankOf, suitOf } from "./cards.js";
import { has, lang, t } from "./i18n.js";

export const REASON_CODES = ["must_follow", "must_overtake", "must_trump", "must_overtrump", "must_undertrump"];
const SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
// the rules that name the suit led
const NAMES_SUIT = new Set(["must_follow", "must_overtake"]);

/** The engine's message ("seat 1: must follow suit: holds 7S 8S") as a reason, or null. */
export function reasonFromMessage(message) {
  const text = String(message || "");
  const holds = /holds ((?:[2-9TJQKA][CDHS]\s*)+)\s*$/.exec(text);
  const cards = holds ? holds[1].trim().split(/\s+/) : [];
  let code = null;
  if (/must follow suit/.test(text)) code = "must_follow";
  else if (/must overtake in the led suit|must beat the highest card of the led suit/.test(text)) code = "must_overtake";
  else if (/must overtrump/.test(text)) code = "must_overtrump";
  else if (/must undertrump/.test(text)) code = "must_undertrump";
  else if (/must trump/.test(text)) code = "must_trump";
  if (!code) return null;
  const reason = { code };
  if (cards.length) reason.legal = cards;
  return reason;
}

/** "J♠" in the page's language (V♠ in French, В♠ in Bulgarian). */
export const cardLabel = (card) => `${rankLabel(rankOf(card))}${SYMBOL[suitOf(card)] || ""}`;

function listOf(items) {
  try {
    return new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

/**
 * The sentence for an illegal card. `error` is the server's `error` message (its `reason`, else
 * its `message`); `ledSuit` the suit led in the trick (used when the reason does not name it);
 * `refused` the card that was tapped.
 */
export function illegalText(error, { ledSuit = null, refused = null } = {}) {
  const given = error && error.reason && typeof error.reason === "object" ? error.reason : null;
  // a reason this page does not know yet: the engine's message may still say it
  const reason = given && REASON_CODES.includes(given.code) ? given : reasonFromMessage(error && error.message) || given;
  if (!reason || !REASON_CODES.includes(reason.code) || !has(`illegal.${reason.code}`)) return t("illegal.generic");
  const suit = NAMES_SUIT.has(reason.code) ? reason.suit || ledSuit : null;
  if (NAMES_SUIT.has(reason.code) && !SYMBOL[suit]) return t("illegal.generic");
  const rule = t(`illegal.${reason.code}`, { suit: SYMBOL[suit] || "" });
  // the cards the player holds and may play (a reason's `card` is the refused one)
  const held = Array.isArray(reason.legal) ? reason.legal : [];
  const cards = held.filter((c) => /^[2-9TJQKA][CDHS]$/.test(c) && c !== refused);
  if (reason.code === "must_follow" || !cards.length) return rule;
  return t("illegal.you_hold", { rule, cards: listOf(cards.map(cardLabel)) });
}

// @ts-check
// Region: the player's cards: the hand (overlapped to fit, usable cards lit) and, in the duel,
// the two rows of piles. Taps, keys and drags on these cards are handled in table-input.js.
import { backElement, cardElement, sortHand } from "./cards.js";
import { decorateKeys } from "./keys.js";
import { $ } from "./table-dom.js";
import { about, seatWho } from "./table-names.js";
import { S, bottomSeat, exchangeCard, legalPlays, view } from "./table-state.js";
import { U, handMode } from "./table-ui.js";

/** A card the player may tap: focusable by the roving tabindex, usable or not. */
function markCard(el, canUse) {
  el.setAttribute("aria-disabled", canUse ? "false" : "true");
  el.tabIndex = -1;
}

export function renderHand() {
  const v = view();
  const hand = $("hand");
  hand.replaceChildren();
  if (v.traits.hand_in_piles || !v.hand) {
    hand.hidden = true;
    return;
  }
  hand.hidden = false;
  const denom = v.contract ? v.contract.denom : null;
  const cards = sortHand(v.hand, denom);
  const { playable } = legalPlays();
  const mode = handMode();
  cards.forEach((card) => {
    let canUse = false;
    if (mode === "play") canUse = playable.has(card);
    else if (mode === "raise" || mode === "discard") canUse = true;
    const el = cardElement(card, { button: true, playable: canUse });
    // the auction is when the hand is read: it stays in full colour then
    if (!canUse && v.phase !== "bidding") el.classList.add("dimmed");
    if (U.raised.has(card)) el.classList.add("raised");
    if (exchangeCard() === card) el.classList.add("exchangeable"); // drag it onto the deck
    markCard(el, canUse);
    hand.append(el);
  });
  layoutHand();
  hand.dataset.mode = mode;
  decorateKeys();
}

/** The duel's piles: the opponent's above, the player's below (their face-up cards playable). */
export function renderPiles(events) {
  const v = view();
  const top = $("piles-top");
  const bottom = $("piles-bottom");
  if (!v.traits.hand_in_piles || !v.piles) {
    top.hidden = bottom.hidden = true;
    return;
  }
  top.hidden = bottom.hidden = false;
  const me = bottomSeat();
  const other = 1 - me;
  const revealed = new Set(events.filter((e) => e.type === "revealed").flatMap((e) => (e.cards || []).concat(e.card ? [e.card] : [])));
  const acts = legalPlays();
  const proposalCard = v.phase === "bidding" ? v.upcard : null;
  const draw = (box, seat, interactive) => {
    box.replaceChildren();
    box.setAttribute("aria-label", about("table.piles_of", seatWho(seat)));
    box.setAttribute("role", "group");
    v.piles[seat].forEach((pile, i) => {
      const el = document.createElement("div");
      el.className = "pile";
      el.dataset.pile = String(i);
      if (pile.down) el.append(backElement("pile-down"));
      if (pile.up) {
        const canPlay = interactive && acts.playable.has(pile.up);
        const card = cardElement(pile.up, { button: interactive, playable: canPlay, cls: "pile-up" });
        if (interactive) {
          markCard(card, canPlay);
          // as in the hand: a face-up card that may not be played now is dimmed
          if (!canPlay && v.phase !== "bidding") card.classList.add("dimmed");
          if (U.raised.has(pile.up)) card.classList.add("raised");
        }
        if (revealed.has(pile.up)) card.classList.add("flip-in");
        if (pile.up === proposalCard) card.classList.add("proposal");
        el.append(card);
      } else if (!pile.down) {
        el.classList.add("empty");
      }
      box.append(el);
    });
  };
  draw(top, other, false);
  draw(bottom, me, S.held.includes(me));
}

/** Cards of the hand overlap so that every card keeps a tap target of at least 40 px. */
export function layoutHand() {
  const hand = $("hand");
  const cards = [...hand.querySelectorAll(".card:not(.small)")];
  if (!cards.length) return;
  const width = hand.clientWidth - 8;
  const minSlice = 42;
  const fit = (cw) => {
    let perRow = cards.length;
    while (perRow > 1 && (perRow - 1) * minSlice + cw > width) perRow -= 1;
    const rows = Math.ceil(cards.length / perRow);
    return { rows, inRow: Math.ceil(cards.length / rows) };
  };
  // a hand that needs two rows at the full card size gets smaller cards (app.css,
  // .hand[data-crowded]); the overlap is computed for the size the cards then have
  delete hand.dataset.crowded;
  let cw = cards[0].getBoundingClientRect().width || 70;
  // (or whose cards, overlapped, would leave less than half of each one uncovered)
  const crowded = (w) => fit(w).rows > 1 || (cards.length > 1 && (width - w) / (cards.length - 1) < w / 2 + 4);
  if (crowded(cw)) {
    hand.dataset.crowded = "yes";
    cw = cards[0].getBoundingClientRect().width || cw;
  }
  const { rows, inRow } = fit(cw);
  const slice = inRow > 1 ? Math.min(cw + 6, (width - cw) / (inRow - 1)) : cw;
  hand.style.setProperty("--overlap", `${Math.min(0, slice - cw)}px`);
  hand.style.setProperty("--rows", rows);
  hand.style.setProperty("--per-row", inRow);
  cards.forEach((c, i) => {
    c.classList.toggle("row-start", i % inRow === 0);
    c.classList.toggle("later-row", i >= inRow);
  });
  // roving tabindex: the first usable card (or the first card) takes the focus stop
  const first = cards.find((c) => c.getAttribute("aria-disabled") === "false") || cards[0];
  if (!cards.some((c) => c.tabIndex === 0)) first.tabIndex = 0;
}

/** The player's tappable cards, in screen order (hand or duel piles). */
export const tappableCards = () => [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#hand button.card, #piles-bottom button.card"))];

export function focusCard(card) {
  const el = /** @type {HTMLElement | null} */ (document.querySelector(`#hand .card[data-card="${card}"], #piles-bottom .card[data-card="${card}"]`));
  if (el) {
    el.tabIndex = 0;
    el.focus();
  }
}

// @ts-check
// How the table names seats and sides: the room's names, "You", "Partner"/"Opponent", "Us"/"Them";
// and the shared wording of words.js bound to this table's variant and names.
import { cardName, rankLabel, rankOf, suitIcon, suitOf } from "./cards.js";
import { escapeHTML } from "./common.js";
import { t } from "./i18n.js";
import { S, bottomSeat, isMine, roomSeat, view } from "./table-state.js";
import * as words from "./words.js";

export function seatName(seat) {
  const info = roomSeat(seat);
  if (info && info.name) return info.name;
  if (isMine(seat) && S.held.length === 1) return t("seat.you");
  if (info && info.kind === "bot") return t("seat.bot", { n: seat + 1 });
  return t("seat.player", { n: seat + 1 });
}

export function seatRole(seat) {
  const v = view();
  if (!v || v.players !== 4 || S.role === "spectator") return "";
  const me = bottomSeat();
  if (seat === me) return "";
  return v.sides[seat] === v.sides[me] ? t("seat.partner") : t("seat.opponent");
}

/** Who a seat is, for a sentence about it: "you" when it is this browser's one seat. */
export function seatWho(seat) {
  return { person: isMine(seat) && S.held.length === 1 ? "you" : "player", name: seatName(seat) };
}

/** Who a side is: "us" and "them" at a four-player table, a named team for spectators, and
 * the seat itself when each player plays for themselves. */
export function sideWho(side) {
  const v = view();
  if (v.players !== 4) return seatWho(side);
  if (S.role !== "spectator") return { person: side === v.sides[bottomSeat()] ? "us" : "them", name: sideName(side) };
  return { person: "team", name: sideName(side) };
}

export function sideName(side) {
  const v = view();
  if (v.players === 4) {
    if (S.role !== "spectator") return side === v.sides[bottomSeat()] ? t("side.us") : t("side.them");
    const seats = [0, 1, 2, 3].filter((s) => v.sides[s] === side);
    return seats.map(seatName).join(" & ");
  }
  return seatName(side);
}

export const variantTerm = (kind) => words.term(kind, view().variant);
export const bidText = (bid) => words.bidText(bid, view().variant);
export const bidsTable = (bids) => words.bidsTable(bids, view().variant, seatName);
export const contractHTML = (contract, options) => words.contractHTML(contract, view().variant, seatWho, options);
export const roundingText = (note) => words.roundingText(note, sideName);
export const outcomeText = (result) => words.outcomeText(result, view().variant);
export { about, comboText, points } from "./words.js";

/** The face-up card a seat took this deal (classic turn-up, bela 2p exchange): public. */
export function takenHTML(taken, taker) {
  if (!taken) return "";
  const c = taken.card;
  const label = taken.seat === taker ? t("table.taken") : words.about("table.taken_by", seatWho(taken.seat));
  return ` · <span class="contract-took">${escapeHTML(label)} <b>${escapeHTML(rankLabel(rankOf(c)))}</b>${suitIcon(suitOf(c))}<span class="visually-hidden">${escapeHTML(cardName(c))}</span></span>`;
}

// The wording of the game, shared by the table (table.js) and the replay viewer (replay.js):
// bids, contracts, combinations, outcomes, a deal's result table and its rounding note, in the
// page's language. Nothing here knows about a page; names of seats and sides come in as
// functions, so each page names them its own way.
//
// Person and number are part of a message. A sentence about someone takes a "who":
// `{ person, name }` where person is "you" (the player), "player" (a named player), "us" (the
// player's team), "them" (the other team) or "team" (a team named by its players), and picks
// the message `<key>.<person>`. Messages about a seat have the persons you/player; messages
// about a side have all five. Counts go through tn() (Intl.PluralRules).
import { denomHTML } from "./cards.js";
import { escapeHTML } from "./common.js";
import { t, tn } from "./i18n.js";

export const SEAT_PERSONS = ["you", "player"];
export const SIDE_PERSONS = ["you", "player", "us", "them", "team"];

/** The message `key` said about `who` ({ person, name }). */
export function about(key, who, params = {}) {
  return t(`${key}.${who.person}`, { name: who.name, ...params });
}

/** "1 point", "12 points", in the page's language. */
export const points = (n) => tn("count.points", n);

/** A variant's own word for a thing ("litige", "belote", "capot"). */
export function term(kind, variant) {
  return t(`term.${kind}.${variant}`);
}

/** A bid or call as HTML: "Pass", "Contre", "110 ♥". */
export function bidText(bid, variant) {
  if (bid.type === "pass") return escapeHTML(t(`bid.pass.${variant}`));
  if (bid.type === "double") return escapeHTML(t(`bid.double.${variant}`));
  if (bid.type === "redouble") return escapeHTML(t(`bid.redouble.${variant}`));
  const value = bid.value === undefined ? "" : `${bid.value === "capot" ? escapeHTML(t("bid.capot")) : bid.value} `;
  return `${value}${denomHTML(bid.contract)}`;
}

/** The bid history of a deal as an ordered list. */
export function bidsTable(bids, variant, seatName) {
  if (!bids.length) return `<p class="muted">${escapeHTML(t("table.no_bids"))}</p>`;
  return `<ol class="bid-list">${bids
    .map((b) => `<li><span class="bid-seat">${escapeHTML(seatName(b.seat))}</span> <span class="bid-what">${bidText(b, variant)}</span></li>`)
    .join("")}</ol>`;
}

/** A contract as HTML: value, denomination, multiplier and (unless told not to) its taker;
 * `seatWho(seat)` says who a seat is. */
export function contractHTML(contract, variant, seatWho, { withTaker = true } = {}) {
  if (!contract) return "";
  let html = `<span class="contract-denom">${denomHTML(contract.denom)}</span>`;
  if (contract.value !== undefined) {
    html = `<span class="contract-value">${contract.value === "capot" ? escapeHTML(t("bid.capot")) : contract.value}</span> ` + html;
  }
  if (contract.multiplier > 1) {
    const word = contract.multiplier === 2 ? t(`bid.double.${variant}`) : t(`bid.redouble.${variant}`);
    html += ` <span class="contract-mult">${escapeHTML(word)} ×${contract.multiplier}</span>`;
  }
  if (withTaker) html += ` <span class="contract-taker">${escapeHTML(about("table.by", seatWho(contract.taker)))}</span>`;
  return html;
}

/** A declared combination: "Carré of jacks", "Tierce to the king". */
export function comboText(combo) {
  if (combo.kind === "carre") return t("decl.carre", { rank: t(`rank.plural.${combo.rank || combo.top}`) });
  const len = Math.min(combo.length, 5);
  return t(`decl.seq${len}`, { top: combo.top === "T" ? "10" : t(`rank.short.${combo.top}`) });
}

/** Made, failed, or the variant's word for a hung deal. */
export function outcomeText(result, variant) {
  if (result.outcome === "made") return t("outcome.made");
  if (result.outcome === "failed") return t("outcome.failed");
  return term("litige", variant);
}

/** A deal's points as a table, one column per side. */
export function resultTable(result, { sides, sideName, variant }) {
  const row = (label, values, cls = "") =>
    `<tr class="${cls}"><th scope="row">${escapeHTML(label)}</th>${sides.map((s) => `<td>${values[s]}</td>`).join("")}</tr>`;
  let html = `<div class="result-scroll"><table class="result-table"><thead><tr><th></th>${sides.map((s) => `<th scope="col">${escapeHTML(sideName(s))}</th>`).join("")}</tr></thead><tbody>`;
  html += row(t("result.card_points"), result.card_points);
  if (result.declaration_points.some((x) => x)) html += row(t("result.declarations"), result.declaration_points);
  if (result.belote_points.some((x) => x)) html += row(term("belote", variant), result.belote_points);
  html += row(t("result.total"), result.totals, "total");
  html += row(t("result.recorded"), result.recorded, "recorded");
  return `${html}</tbody></table></div>`;
}

/** A deal's rounding note from the engine (`result.rounding`, null or one of the kinds below)
 * as a sentence in the page's language; `sideName(side)` names sides 0 and 1. Anything else
 * (an unknown kind, an old text note) gives "" rather than raw engine text.
 *   {kind: "round10", raw: [s0, s1], rounded: [s0, s1]}                      coinche
 *   {kind: "bg_whole", raw: [s0, s1], total, rounded_total, multiplier}      bulgarian
 *   {kind: "bg_split", raw: [s0, s1], split: [s0, s1], problem_case}         bulgarian */
export function roundingText(note, sideName) {
  if (!note || typeof note !== "object" || !Array.isArray(note.raw)) return "";
  const sides = (after) =>
    [0, 1].map((s) => t("result.rounding.side", { side: sideName(s), raw: note.raw[s], rounded: after[s] })).join(", ");
  if (note.kind === "round10" && Array.isArray(note.rounded)) return t("result.rounding.round10", { sides: sides(note.rounded) });
  if (note.kind === "bg_split" && Array.isArray(note.split)) {
    return t(note.problem_case ? "result.rounding.bg_split_problem" : "result.rounding.bg_split", { sides: sides(note.split) });
  }
  if (note.kind === "bg_whole") {
    const params = { a: note.raw[0], b: note.raw[1], total: note.total, rounded: note.rounded_total, m: note.multiplier };
    return t(note.multiplier > 1 ? "result.rounding.bg_whole_x" : "result.rounding.bg_whole", params);
  }
  return "";
}

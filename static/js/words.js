// The wording of the game, shared by the table (table.js) and the replay viewer (replay.js):
// bids, contracts, combinations, outcomes, a deal's result table and its rounding note, in the
// page's language. Nothing here knows about a page; names of seats and sides come in as
// functions, so each page names them its own way.
import { denomHTML } from "./cards.js";
import { escapeHTML } from "./common.js";
import { t } from "./i18n.js";

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

/** A contract as HTML: value, denomination, multiplier and (unless told not to) its taker. */
export function contractHTML(contract, variant, seatName, { withTaker = true } = {}) {
  if (!contract) return "";
  let html = `<span class="contract-denom">${denomHTML(contract.denom)}</span>`;
  if (contract.value !== undefined) {
    html = `<span class="contract-value">${contract.value === "capot" ? escapeHTML(t("bid.capot")) : contract.value}</span> ` + html;
  }
  if (contract.multiplier > 1) {
    const word = contract.multiplier === 2 ? t(`bid.double.${variant}`) : t(`bid.redouble.${variant}`);
    html += ` <span class="contract-mult">${escapeHTML(word)} ×${contract.multiplier}</span>`;
  }
  if (withTaker) html += ` <span class="contract-taker">${escapeHTML(t("table.by", { name: seatName(contract.taker) }))}</span>`;
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
  let html = `<table class="result-table"><thead><tr><th></th>${sides.map((s) => `<th scope="col">${escapeHTML(sideName(s))}</th>`).join("")}</tr></thead><tbody>`;
  html += row(t("result.card_points"), result.card_points);
  if (result.declaration_points.some((x) => x)) html += row(t("result.declarations"), result.declaration_points);
  if (result.belote_points.some((x) => x)) html += row(term("belote", variant), result.belote_points);
  html += row(t("result.total"), result.totals, "total");
  html += row(t("result.recorded"), result.recorded, "recorded");
  return `${html}</tbody></table>`;
}

/** A deal's rounding note from the engine (coinche: "round10: 226 -> 230, 36 -> 40") in the
 * page's language; any other note as it is. */
export function roundingText(note) {
  const m = /^round10: (\d+) -> (\d+), (\d+) -> (\d+)$/.exec(note || "");
  return m ? t("result.rounding", { a: m[1], b: m[2], c: m[3], d: m[4] }) : note;
}

// @ts-check
// Region: the seats around the table (name, presence, role, badges, tricks, cards left,
// declarations, belote, the last bid's bubble).
import { cardElement, cardName, denomHTML } from "./cards.js";
import { escapeHTML, toast } from "./common.js";
import { t } from "./i18n.js";
import { $ } from "./table-dom.js";
import { bidBy, byTag, decorateSeat } from "./table-live.js";
import { bidText, comboText, seatName, seatRole } from "./table-names.js";
import { isOver, position, roomSeat, view } from "./table-state.js";

export function renderSeats() {
  const v = view();
  const box = $("seats");
  box.replaceChildren();
  const lastBid = {};
  if (v.phase === "bidding") for (const b of v.bids) lastBid[b.seat] = b;
  for (let seat = 0; seat < v.players; seat++) {
    const pos = position(seat);
    const info = roomSeat(seat);
    const el = document.createElement("div");
    el.className = `seat pos-${pos}`;
    el.dataset.seat = String(seat);
    const acting = v.to_act === seat && !isOver(v);
    if (acting) el.classList.add("to-act");
    const connected = !info || info.kind === "bot" || info.connected;
    const presence = info
      ? `<span class="presence ${connected ? "on" : "off"}" title="${escapeHTML(connected ? t("seat.connected") : t("seat.disconnected"))}"><span class="visually-hidden">${escapeHTML(connected ? t("seat.connected") : t("seat.disconnected"))}</span></span>`
      : "";
    const role = seatRole(seat);
    const badges = [];
    if (v.dealer === seat) badges.push(`<span class="badge dealer" title="${escapeHTML(t("seat.dealer"))}">${escapeHTML(t("seat.dealer_short"))}</span>`);
    if (v.contract && v.contract.taker === seat) badges.push(`<span class="badge taker">${denomHTML(v.contract.denom)}</span>`);
    const tricks = v.tricks_won ? v.tricks_won[seat] : 0;
    let extra = "";
    if (!v.traits.hand_in_piles) {
      // others: their hand and talon as backs; you: your talon not yet picked up
      const talon = (v.talon_counts && v.talon_counts[seat]) || 0;
      const count = pos === "bottom" ? talon : v.hand_counts[seat] + talon;
      if (count) extra = `<div class="mini-hand${pos === "bottom" ? " talon" : ""}" aria-hidden="true">${'<span class="mini-back"></span>'.repeat(Math.min(count, 12))}</div>`;
    }
    const decl = (v.declarations[seat] || []).map((c) => `<span class="chip decl">${escapeHTML(comboText(c))}</span>`).join("");
    const bel = (v.belote || [])
      .filter((b) => b.seat === seat)
      .map((b) => `<span class="chip belote">${escapeHTML(t(`belote.${b.stage}.${v.variant}`))}</span>`)
      .join("");
    const bubble = lastBid[seat] ? `<div class="bubble">${bidText(lastBid[seat])}</div>` : "";
    el.innerHTML =
      `<div class="seat-plate"><span class="seat-name">${presence}${escapeHTML(seatName(seat))}</span>${levelBadge(info)}` +
      (role ? `<span class="seat-role">${escapeHTML(role)}</span>` : "") +
      `<span class="seat-badges">${badges.join("")}</span>` +
      (v.phase === "play" || tricks ? `<span class="seat-tricks" title="${escapeHTML(t("seat.tricks"))}">${escapeHTML(t("seat.tricks_n", { n: tricks }))}</span>` : "") +
      `</div>${extra}<div class="seat-chips">${decl}${bel}</div>${bubble}`;
    if (acting) el.setAttribute("aria-current", "true");
    if (lastBid[seat] && bidBy(seat)) el.querySelector(".bubble").append(" ", byTag(bidBy(seat)));
    decorateSeat(el, seat);
    box.append(el);
  }
  // shown declarations: the cards are revealed at the end of trick 1 and the table shows them
  // while trick 2 is played, as players show them at a real table; afterwards the chip keeps
  // them in its tooltip
  const tricksDone = (v.tricks_won || []).reduce((a, b) => a + b, 0);
  for (const shown of v.shown_declarations || []) {
    const seatEl = box.querySelector(`.seat[data-seat="${shown.seat}"] .seat-chips`);
    if (!seatEl) continue;
    const names = shown.combos.map((combo) => combo.map(cardName).join(", ")).join("; ");
    for (const chip of seatEl.querySelectorAll(".chip.decl")) chip.title = names;
    if (tricksDone > 1 && !isOver(v)) continue;
    const strip = document.createElement("div");
    strip.className = "shown-cards";
    for (const combo of shown.combos) for (const card of combo) strip.append(cardElement(card, { cls: "tiny" }));
    seatEl.append(strip);
  }
  // a claim being played out: the claimer's cards, shown to the table (RULES.md §15)
  if (v.claim && position(v.claim.seat) !== "bottom") {
    const seatEl = box.querySelector(`.seat[data-seat="${v.claim.seat}"] .seat-chips`);
    if (seatEl) {
      const strip = document.createElement("div");
      strip.className = "shown-cards claim-cards";
      strip.dataset.claim = String(v.claim.seat);
      strip.setAttribute("aria-label", t("claim.made", { name: seatName(v.claim.seat) }));
      for (const card of v.claim.cards) strip.append(cardElement(card, { cls: "tiny" }));
      seatEl.append(strip);
    }
  }
}

/** The player's level (docs/players.md) next to the name: human seats whose browser is known.
 * Hovering it says what a level is; a tap (no hover on a touch screen) says it in a toast. */
function levelBadge(info) {
  if (!info || !info.xp_level) return "";
  const title = escapeHTML(t("level.explain", { n: info.xp_level }));
  return `<span class="lvl-badge" role="button" tabindex="0" title="${title}" aria-label="${title}">${info.xp_level}</span>`;
}

function explainBadge(event) {
  const badge = event.target instanceof Element ? event.target.closest(".seat .lvl-badge") : null;
  if (!badge || (event.type === "keydown" && event.key !== "Enter" && event.key !== " ")) return;
  event.preventDefault();
  toast(badge.getAttribute("title"));
}
document.addEventListener("click", explainBadge);
document.addEventListener("keydown", explainBadge);

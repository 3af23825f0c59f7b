// @ts-check
// Region: the centre of the table: the trick being played, the finished trick flying to its
// winner, the deck spot (turn-up card, bela's proposal or middle) and the bid history.
import { backElement, cardElement, cardName } from "./cards.js";
import { t } from "./i18n.js";
import { $ } from "./table-dom.js";
import { byTag, playedBy } from "./table-live.js";
import { about, bidsTable, seatName, seatWho } from "./table-names.js";
import { exchangeCard, position, view } from "./table-state.js";

const COLLECT_HOLD_MS = 650;
const COLLECT_MS = 380;

export function renderCentre(events) {
  const v = view();
  const trick = $("trick");
  trick.replaceChildren();
  const played = new Set(events.filter((e) => e.type === "card_played").map((e) => `${e.seat}:${e.card}`));
  for (const play of v.trick) {
    const pos = position(play.seat);
    const slot = document.createElement("div");
    slot.className = `slot pos-${pos}`;
    if (play.seat === v.leader) slot.classList.add("lead");
    const card = cardElement(play.card, { label: about("trick.played_by", seatWho(play.seat), { card: cardName(play.card) }) });
    if (played.has(`${play.seat}:${play.card}`)) card.classList.add("just-played", `from-${pos}`);
    slot.append(card);
    const tag = document.createElement("span");
    tag.className = "slot-name";
    // the name whole (on two lines if need be); the lead's label is gold, and says so in words
    // to a screen reader; a move made for the seat gets its tag under the name
    tag.textContent = seatName(play.seat);
    if (play.seat === v.leader) {
      const lead = document.createElement("span");
      lead.className = "visually-hidden";
      lead.textContent = ` · ${t("trick.lead_tag")}`;
      tag.append(lead);
      tag.title = `${seatName(play.seat)} · ${t("trick.lead_tag")}`;
    }
    const by = playedBy(play.seat, play.card);
    if (by) {
      slot.dataset.by = by;
      tag.append(" ", byTag(by));
    }
    slot.append(tag);
    trick.append(slot);
  }
  if (!v.trick.length && v.phase === "play" && v.to_act !== null) {
    const hint = document.createElement("div");
    hint.className = "trick-hint";
    hint.textContent = about("trick.leads_next", seatWho(v.to_act));
    trick.append(hint);
  }
  renderDeckSpot(v);
  // bidding panel in the centre: the history of this deal
  const bidding = $("bidding");
  if (v.phase === "bidding" && v.bids.length) {
    bidding.hidden = false;
    bidding.innerHTML = bidsTable(v.bids);
  } else {
    bidding.hidden = true;
  }
}

/** The deck / turn-up / proposal. */
function renderDeckSpot(v) {
  const spot = $("deck-spot");
  spot.replaceChildren();
  spot.className = "deck-spot";
  // a turn-up shows during the bidding; a proposal lies on the rest of the deck all deal long
  // (in the duel it lies among the piles: table-hand.js)
  const proposal = v.traits.upcard === "proposal";
  const showUp = v.upcard && !v.traits.hand_in_piles && (v.phase === "bidding" || proposal);
  if (showUp) {
    const stack = document.createElement("div");
    stack.className = "deck-stack";
    if (proposal) stack.append(backElement("deck-under"));
    const up = cardElement(v.upcard, { label: t(proposal ? "table.proposal_card" : "table.turn_up_card", { card: cardName(v.upcard) }) });
    up.classList.add("upcard");
    stack.append(up);
    spot.append(stack);
    const label = document.createElement("span");
    label.className = "deck-label";
    label.textContent = t(proposal ? "table.proposal" : "table.turn_up");
    spot.append(label);
    spot.dataset.drop = exchangeCard() ? "exchange" : "";
  } else if (v.middle_count) {
    const stack = document.createElement("div");
    stack.className = "deck-stack middle";
    for (let i = 0; i < v.middle_count; i++) stack.append(backElement());
    spot.append(stack);
    const label = document.createElement("span");
    label.className = "deck-label";
    label.textContent = t("table.middle");
    spot.append(label);
  }
}

let holdTimer = null;
let flyTimer = null;

/** The trick just won stays in view a moment (`holdMs`), then flies to its winner; input is
 * never blocked. */
export function collectTrick(winner, last = view().last_trick, holdMs = COLLECT_HOLD_MS) {
  const done = $("trick-done");
  if (!last) return;
  done.replaceChildren();
  done.className = "trick trick-done";
  for (const play of last.plays) {
    const slot = document.createElement("div");
    slot.className = `slot pos-${position(play.seat)}`;
    if (play.seat === last.winner) slot.classList.add("winner");
    slot.append(cardElement(play.card));
    done.append(slot);
  }
  clearTimeout(holdTimer);
  clearTimeout(flyTimer);
  holdTimer = setTimeout(() => {
    done.classList.add("collect", `to-${position(winner)}`);
    flyTimer = setTimeout(() => {
      done.replaceChildren();
      done.className = "trick trick-done";
    }, COLLECT_MS);
  }, holdMs);
}

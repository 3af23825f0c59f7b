// @ts-check
// Region: the controls under the table: whose turn it is, and the buttons of the phase
// (bids, exchange, discard, declarations, belote call, next deal, rematch).
import { cardName, denomHTML, denomText, rankOf, suitOf } from "./cards.js";
import { escapeHTML } from "./common.js";
import { colon, t, tn } from "./i18n.js";
import { decorateKeys } from "./keys.js";
import { cardLabel } from "./reasons.js";
import { setting } from "./settings.js";
import { $, app, button } from "./table-dom.js";
import { renderHand } from "./table-hand.js";
import { seatName } from "./table-names.js";
import { playCard, sendAction, sendClaim, sendConsent } from "./table-send.js";
import { S, canClaim, exchangeCard, isPaused, legal, legalPlays, nextDeal, outOfTurn, serverNow, view } from "./table-state.js";
import { U, promptKey } from "./table-ui.js";

export function renderControls() {
  const v = view();
  const box = $("controls");
  box.replaceChildren();
  const acts = legal();
  const turn = document.createElement("p");
  turn.className = "turn-line";
  const actor = v.to_act;
  if (v.phase === "match_over") turn.textContent = t("table.match_over");
  else if (v.phase === "deal_over") turn.textContent = t("table.deal_over");
  else if (isPaused()) turn.textContent = t("table.paused");
  else if (v.claim) turn.textContent = t("claim.made", { name: seatName(v.claim.seat) });
  else if (acts.length && !outOfTurn()) turn.innerHTML = `<strong>${escapeHTML(t(`prompt.${promptKey()}`))}</strong>`;
  else if (actor !== null && actor !== undefined) turn.textContent = t("table.waiting_for", { name: seatName(actor) });
  box.append(turn);
  const row = document.createElement("div");
  row.className = "action-row";
  box.append(row);

  // a claim of every remaining trick, offered only when the seat's view proves it (RULES.md §15)
  if (v.phase === "play" && canClaim()) {
    const claim = button(t("claim.do"), () => sendClaim(), { cls: "btn primary claim-btn", name: "claim" });
    claim.title = t("claim.title");
    row.append(claim);
  }
  if (v.phase === "bidding" && acts.length) renderBidding(row, acts);
  else if (v.phase === "discard" && acts.length) {
    const pair = [...U.raised];
    const ok = pair.length === 2 && acts.some((a) => a.type === "discard" && a.cards.every((c) => U.raised.has(c)));
    row.append(
      button(t("discard.do", { n: pair.length }), () => sendAction({ type: "discard", cards: pair }), { cls: "btn primary", disabled: !ok, name: "discard" }),
    );
  } else if (v.phase === "play" && acts.length) {
    renderPlayControls(row, acts);
  }
  // consent for a new deal (duel) or a rematch
  const consent = S.room && S.room.consent;
  // while the deal's final trick is on show its summary has not opened yet: the summary comes
  // first, then the one way on (no "New deal" that would deal under the coming summary)
  if (S.role !== "spectator" && !U.holding && (v.phase === "deal_over" || v.phase === "match_over")) {
    const kind = v.phase === "match_over" ? "rematch" : "next_deal";
    if (v.phase === "match_over" || v.traits.deal_is_game) row.append(consentButton(kind, consent));
    else if (nextDeal()) row.append(nextDealButton());
  }
  if (v.phase === "deal_over" && nextDeal()) box.append(nextDealLine());
  decorateKeys();
}

// ----------------------------------------------------------------------------- the next deal

/** Whether the server waits for this browser's "Continue" before the next deal. */
export const awaitsMyContinue = () => {
  const nd = nextDeal();
  return Boolean(nd && S.role !== "spectator" && S.held.some((s) => nd.waiting_for.includes(s)));
};

/** "Continue" after a deal, when the server holds the next deal for the players. */
function nextDealButton() {
  const mine = awaitsMyContinue();
  const nd = nextDeal();
  const others = nd.waiting_for.filter((s) => !S.held.includes(s)).map(seatName);
  const label = mine ? t("common.continue") : t("consent.waiting", { names: others.join(", ") || "…" });
  return button(label, () => sendConsent("next_deal"), { cls: "btn primary", disabled: !mine, name: "next_deal" });
}

/** A line that says how long until the next deal (friends games count down), or whom it waits for. */
export function nextDealLine() {
  const p = document.createElement("p");
  p.className = "next-deal-line";
  p.setAttribute("aria-live", "polite");
  fillNextDealLine(p);
  tickNextDeal();
  return p;
}

function fillNextDealLine(p) {
  const nd = nextDeal();
  if (!nd) {
    p.textContent = "";
    return;
  }
  const parts = [];
  if (nd.deadline) parts.push(tn("next_deal.in", Math.max(0, Math.ceil((nd.deadline - serverNow()) / 1000))));
  const others = nd.waiting_for.filter((s) => !S.held.includes(s)).map(seatName);
  if (!awaitsMyContinue() && others.length) parts.push(t("consent.waiting", { names: others.join(", ") }));
  p.textContent = parts.join(" · ");
}

/** Bring every next-deal line up to date (the room's wait changed). */
export function refreshNextDealLines() {
  document.querySelectorAll(".next-deal-line").forEach(fillNextDealLine);
}

let ticker = null;

/** While a countdown runs, refresh every next-deal line once a second. */
function tickNextDeal() {
  if (ticker) return;
  ticker = setInterval(() => {
    const lines = document.querySelectorAll(".next-deal-line");
    const nd = nextDeal();
    if (!nd || !nd.deadline || !lines.length) {
      clearInterval(ticker);
      ticker = null;
      return;
    }
    lines.forEach(fillNextDealLine);
  }, 1000);
}

/** "Next deal" / "Rematch", or who is still awaited once this browser agreed. */
export function consentButton(kind, consent) {
  const rematch = kind === "rematch" && S.room && S.room.rematch;
  if (rematch) {
    // the rematch exists already (a finished match reopened): the way on is to go there
    const link = document.createElement("a");
    link.className = "btn primary";
    link.href = rematch.url;
    link.dataset.action = "rematch";
    link.textContent = t("match.to_rematch");
    return link;
  }
  const agreed = consent && consent.kind === kind && S.held.some((s) => consent.agreed.includes(s));
  const label = agreed ? t("consent.waiting", { names: waitingNames(consent) }) : t(`consent.${kind}`);
  return button(label, () => sendConsent(kind), { cls: "btn primary", disabled: agreed, name: kind });
}

function waitingNames(consent) {
  if (!consent) return "";
  return consent.needed.filter((s) => !consent.agreed.includes(s)).map(seatName).join(", ");
}

function renderBidding(row, acts) {
  const v = view();
  const bids = acts.filter((a) => a.type === "bid");
  const valued = bids.filter((a) => a.value !== undefined);
  if (valued.length) {
    // coinche: choose a value, then a suit
    const values = [...new Set(valued.map((a) => a.value))];
    if (!values.includes(U.coincheValue)) U.coincheValue = values[0];
    const chips = document.createElement("div");
    chips.className = "value-chips";
    chips.setAttribute("role", "radiogroup");
    chips.setAttribute("aria-label", t("bid.value"));
    for (const value of values) {
      const b = button(value === "capot" ? t("bid.capot") : String(value), () => {
        U.coincheValue = value;
        renderControls();
      }, { cls: `chip-btn ${value === U.coincheValue ? "on" : ""}`, name: `value-${value}` });
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", value === U.coincheValue ? "true" : "false");
      chips.append(b);
    }
    row.append(chips);
    const suits = document.createElement("div");
    suits.className = "suit-buttons";
    for (const a of valued.filter((x) => x.value === U.coincheValue)) {
      suits.append(
        button(`${denomHTML(a.contract)}<span class="visually-hidden">${escapeHTML(denomText(a.contract))}</span>`, () => sendAction(a), {
          cls: "btn suit-btn",
          html: true,
          name: `bid-${a.value}-${a.contract}`,
        }),
      );
    }
    row.append(suits);
  } else if (bids.length) {
    const suits = document.createElement("div");
    suits.className = "suit-buttons";
    const upSuit = v.upcard ? suitOf(v.upcard) : null;
    for (const a of bids) {
      const take = upSuit && a.contract === upSuit && bids.length === 1;
      const label = take
        ? `${escapeHTML(t("bid.take"))} ${denomHTML(a.contract)}`
        : `${denomHTML(a.contract)}<span class="${["NT", "AT"].includes(a.contract) ? "" : "visually-hidden"}">${escapeHTML(["NT", "AT"].includes(a.contract) ? "" : denomText(a.contract))}</span>`;
      suits.append(button(label, () => sendAction(a), { cls: `btn suit-btn ${take ? "primary" : ""}`, html: true, name: `bid-${a.contract}` }));
    }
    row.append(suits);
  }
  const extras = document.createElement("div");
  extras.className = "bid-extras";
  for (const a of acts) {
    if (a.type === "double" || a.type === "redouble") extras.append(button(t(`bid.${a.type}.${v.variant}`), () => sendAction(a), { cls: "btn warn", name: a.type }));
  }
  if (acts.some((a) => a.type === "pass")) extras.append(button(t(`bid.pass.${v.variant}`), () => sendAction({ type: "pass" }), { cls: "btn", name: "pass" }));
  else if (bids.length) {
    const note = document.createElement("span");
    note.className = "forced-note";
    note.textContent = t("bid.forced");
    extras.append(note);
  }
  row.append(extras);
}

function renderPlayControls(row, acts) {
  const v = view();
  const seven = exchangeCard();
  if (seven) {
    // bela, two players: the seven exchange, offered until the first card or call of either
    // player, to the holder on his turn or while the leader thinks; declining writes nothing:
    // the player simply goes on, or lets the leader play (RULES.md §12, §14)
    row.append(button(t("exchange.do"), () => sendAction({ type: "exchange", card: seven }), { cls: "btn primary", name: "exchange" }));
    const hint = document.createElement("p");
    hint.className = "hint exchange-hint";
    hint.textContent = outOfTurn() ? t("exchange.early_hint", { name: seatName(v.to_act) }) : t("exchange.keep_hint");
    row.append(hint);
    if (outOfTurn()) return;
  }
  const declares = acts.filter((a) => a.type === "declare");
  if (declares.length && U.declStep) {
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = t("declare.hint");
    row.append(hint);
    const chips = document.createElement("div");
    chips.className = "decl-chips";
    for (const d of declares) {
      const label = d.combos.map((cards) => comboLabel(cards)).join(" + ");
      chips.append(
        button(label, () => {
          U.raised = new Set(d.combos.flat());
          renderHand();
          renderControls();
        }, { cls: "chip-btn", name: "suggest" }),
      );
    }
    row.append(chips);
    const match = matchingDeclare(declares);
    row.append(button(t("declare.call"), () => sendAction(match), { cls: "btn primary", disabled: !match, name: "call" }));
    row.append(
      button(t("declare.skip"), () => {
        U.declStep = false;
        U.raised.clear();
        renderHand();
        renderControls();
        app.dataset.myTurn = "yes";
      }, { cls: "btn", name: "skip-declare" }),
    );
    return;
  }
  const { belote, playable } = legalPlays();
  const raised = [...U.raised].find((c) => belote.has(c));
  const armed = [...U.raised].find((c) => playable.has(c));
  if (armed && setting("confirmCard")) {
    // tap twice to play: the first tap raised this card
    const note = document.createElement("p");
    note.className = "confirm-note";
    note.textContent = t("confirm.again", { card: cardLabel(armed) });
    row.append(note);
  }
  if (raised) {
    row.append(
      button(`${colon(escapeHTML(t("declare.call")))} ${escapeHTML(t(`belote.belote.${v.variant}`))}`, () => playCard(raised, true), {
        cls: "btn primary",
        html: true,
        name: "call-belote",
      }),
    );
    row.append(button(t("play.without_call", { card: cardName(raised) }), () => playCard(raised, false), { name: "play-plain" }));
  }
}

function comboLabel(cards) {
  const suits = new Set(cards.map(suitOf));
  if (cards.length === 4 && suits.size === 4) return t("decl.carre", { rank: t(`rank.plural.${rankOf(cards[0])}`) });
  const ranks = cards.map((c) => (rankOf(c) === "T" ? "10" : t(`rank.short.${rankOf(c)}`)));
  return `${ranks.join("-")} ${denomText(suitOf(cards[0]))}`;
}

function matchingDeclare(declares) {
  if (!U.raised.size) return null;
  const key = [...U.raised].sort().join(",");
  return declares.find((d) => d.combos.flat().sort().join(",") === key) || null;
}

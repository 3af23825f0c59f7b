// The table: draws the views the server sends (app/engine/views.py) and sends the player's actions.
import { backElement, cardElement, cardName, denomHTML, denomText, rankLabel, rankOf, sortHand, suitIcon, suitOf } from "./cards.js";
import { api, canShare, copyText, escapeHTML, roundingText, shareLink, toast } from "./common.js";
import { t } from "./i18n.js";
import { Connection } from "./net.js";

const app = document.getElementById("table-app");
const $ = (id) => document.getElementById(id);
const BID_TYPES = new Set(["pass", "bid", "double", "redouble"]);
const COLLECT_HOLD_MS = 650;
const COLLECT_MS = 380;

const S = {
  version: null,
  role: null,
  held: [],
  view: null,
  views: {},
  room: null,
  shown: null, // local games: the seat whose hand is on screen
  revealed: null, // local games: the seat that said "show my cards"
  raised: new Set(),
  declStep: true, // manual declarations: the "raise and call" step is open
  coincheValue: null,
  pending: false,
  dealSeen: null, // number of results already summarised
  matchDismissed: false,
  prevPiles: null,
  status: "connecting",
};

// ----------------------------------------------------------------------------- helpers

const view = () => S.view;
const nPlayers = () => (S.view ? S.view.players : 4);
/** The seat drawn at the bottom. */
const bottomSeat = () => {
  if (S.shown !== null && S.shown !== undefined) return S.shown;
  if (S.held.length) return S.held[0];
  return 0;
};
/** 0 bottom, then counter-clockwise: the next seat in turn order sits on the right. */
function position(seat) {
  const n = nPlayers();
  const r = (seat - bottomSeat() + n) % n;
  if (n === 4) return ["bottom", "right", "top", "left"][r];
  if (n === 3) return ["bottom", "right", "left"][r];
  return ["bottom", "top"][r];
}
const isMine = (seat) => S.held.includes(seat);
const roomSeat = (seat) => (S.room && S.room.seats ? S.room.seats.find((s) => s.seat === seat) : null);

function seatName(seat) {
  const info = roomSeat(seat);
  if (info && info.name) return info.name;
  if (isMine(seat) && S.held.length === 1) return t("seat.you");
  if (info && info.kind === "bot") return t("seat.bot", { n: seat + 1 });
  return t("seat.player", { n: seat + 1 });
}

function seatRole(seat) {
  const v = view();
  if (!v || v.players !== 4 || S.role === "spectator") return "";
  const me = bottomSeat();
  if (seat === me) return "";
  return v.sides[seat] === v.sides[me] ? t("seat.partner") : t("seat.opponent");
}

function sideName(side) {
  const v = view();
  if (v.players === 4) {
    if (S.role !== "spectator") return side === v.sides[bottomSeat()] ? t("side.us") : t("side.them");
    const seats = [0, 1, 2, 3].filter((s) => v.sides[s] === side);
    return seats.map(seatName).join(" & ");
  }
  return seatName(side);
}

function variantTerm(kind) {
  return t(`term.${kind}.${view().variant}`);
}

function contractHTML(contract, { withTaker = true } = {}) {
  if (!contract) return "";
  const v = view();
  let html = `<span class="contract-denom">${denomHTML(contract.denom)}</span>`;
  if (contract.value !== undefined) {
    html = `<span class="contract-value">${contract.value === "capot" ? escapeHTML(t("bid.capot")) : contract.value}</span> ` + html;
  }
  if (contract.multiplier > 1) {
    const word = contract.multiplier === 2 ? t(`bid.double.${v.variant}`) : t(`bid.redouble.${v.variant}`);
    html += ` <span class="contract-mult">${escapeHTML(word)} ×${contract.multiplier}</span>`;
  }
  if (withTaker) html += ` <span class="contract-taker">${escapeHTML(t("table.by", { name: seatName(contract.taker) }))}</span>`;
  return html;
}

function bidText(bid) {
  const v = view();
  if (bid.type === "pass") return escapeHTML(t(`bid.pass.${v.variant}`));
  if (bid.type === "double") return escapeHTML(t(`bid.double.${v.variant}`));
  if (bid.type === "redouble") return escapeHTML(t(`bid.redouble.${v.variant}`));
  const value = bid.value === undefined ? "" : `${bid.value === "capot" ? escapeHTML(t("bid.capot")) : bid.value} `;
  return `${value}${denomHTML(bid.contract)}`;
}

function announce(text) {
  const el = $("announcer");
  el.textContent = text;
}

function actorSeat() {
  const v = view();
  return v ? v.to_act : null;
}

/** The legal actions of the seat on screen (empty when it is not that seat's turn). */
function legal() {
  const v = view();
  return (v && v.legal) || [];
}

// ----------------------------------------------------------------------------- sending

function sendAction(action) {
  if (S.pending) return;
  const seat = bottomSeat();
  const msg = { type: "action", id: conn.nextId("a"), version: S.version, action };
  if (S.held.length > 1) msg.seat = seat;
  if (conn.send(msg)) {
    S.pending = true;
    app.classList.add("pending");
    S.raised.clear();
  } else {
    toast(t("net.offline"));
  }
}

function sendConsent(kind) {
  conn.send({ type: "consent", id: conn.nextId("k"), kind });
}

// ----------------------------------------------------------------------------- messages

function onMessage(msg) {
  switch (msg.type) {
    case "state":
      S.version = msg.version;
      S.role = msg.role;
      S.held = msg.seats_you_hold || [];
      if (msg.room) S.room = msg.room;
      setViews(msg.view, msg.views);
      clearPending();
      render([]);
      break;
    case "update":
      if (S.version !== null && msg.version !== S.version + 1) {
        if (msg.version > S.version + 1) conn.send({ type: "resume", version: S.version });
        return;
      }
      S.version = msg.version;
      setViews(msg.view, msg.views, true);
      clearPending();
      render(msg.events || []);
      break;
    case "room":
      S.room = msg.room;
      render([]);
      break;
    case "ack":
      // the update that carries the move follows the ack: stay pending until it is drawn
      if (S.version !== null && msg.version <= S.version) clearPending();
      break;
    case "rematch":
      location.assign(msg.url);
      break;
    case "hint":
      showHint(msg.action);
      break;
    case "error":
      clearPending();
      if (FATAL.has(msg.code)) {
        conn.close();
        showFatal(msg.code);
        return;
      }
      if (msg.code !== "stale_version") toast(t(`error.${msg.code}`, {}) || msg.message);
      render([]);
      break;
    default:
      break;
  }
}

const FATAL = new Set(["not_found", "table_full", "no_identity"]);

function showFatal(code) {
  if (code === "no_identity") {
    location.reload();
    return;
  }
  app.dataset.state = "fatal";
  const banner = $("banner");
  banner.hidden = false;
  banner.dataset.kind = "net";
  banner.textContent = t(`error.${code}`);
}

function clearPending() {
  S.pending = false;
  app.classList.remove("pending");
}

function setViews(v, views, changes = false) {
  // A state carries whole views; an update carries only the fields that changed since the
  // previous version (docs/protocol.md): merge them into the views we hold.
  if (changes) {
    const before = S.views || {};
    const mine = S.held.length > 1 ? before[String(S.held[0])] || S.view : S.view;
    v = v && mine ? { ...mine, ...v } : v;
    const merged = {};
    for (const [seat, sv] of Object.entries(views || {})) merged[seat] = before[seat] ? { ...before[seat], ...sv } : sv;
    views = merged;
  }
  S.views = views || {};
  const local = S.held.length > 1;
  if (local && v) {
    const actor = v.to_act;
    if (actor !== null && actor !== undefined && S.views[String(actor)]) {
      S.shown = actor;
    } else if (S.shown === null) {
      S.shown = S.held[0];
    }
    S.view = S.views[String(S.shown)] || v;
  } else {
    S.shown = null;
    S.view = v;
  }
}

// ----------------------------------------------------------------------------- rendering

function render(events) {
  const v = view();
  renderWaiting();
  if (!v) {
    renderBanner();
    return;
  }
  app.dataset.state = "ready";
  app.dataset.phase = v.phase;
  app.dataset.variant = v.variant;
  app.dataset.players = v.players;
  app.classList.toggle("spectating", S.role === "spectator");
  const turnSeat = actorSeat();
  app.dataset.myTurn = turnSeat !== null && turnSeat === bottomSeat() && legal().length > 0 ? "yes" : "no";
  if (!legal().some((a) => a.type === "declare")) S.declStep = true;
  renderBar();
  renderBanner();
  renderSeats(events);
  renderCentre(events);
  renderPiles(events);
  renderHand();
  renderControls();
  renderPassScreen();
  handleEvents(events);
  renderDialogsLive();
}

/** The face-up card a seat took this deal (classic turn-up, bela 2p exchange): public. */
function takenHTML(taken, taker) {
  if (!taken) return "";
  const c = taken.card;
  const label = taken.seat === taker ? t("table.taken") : t("table.taken_by", { name: seatName(taken.seat) });
  return ` · <span class="contract-took">${escapeHTML(label)} <b>${escapeHTML(rankLabel(rankOf(c)))}</b>${suitIcon(suitOf(c))}<span class="visually-hidden">${escapeHTML(cardName(c))}</span></span>`;
}

function renderBar() {
  const v = view();
  $("bar-variant").textContent = t(`variant.${v.variant}`) + (v.variant === "bela" ? ` · ${t("home.players_n", { n: v.players })}` : "");
  $("bar-contract").innerHTML = v.contract ? contractHTML(v.contract) + takenHTML(v.taken, v.contract.taker) : "";
  // scores
  const sides = v.players === 3 ? [0, 1, 2] : [0, 1];
  const parts = sides.map(
    (side) => `<span class="score-side"><span class="score-name">${escapeHTML(sideName(side))}</span> <b>${v.scores[side]}</b></span>`,
  );
  let target = "";
  if (v.variant === "duel") target = `<span class="score-target">${escapeHTML(t("score.games_won"))}</span>`;
  else if (v.target) target = `<span class="score-target">${escapeHTML(t("score.target", { n: v.target }))}</span>`;
  else target = `<span class="score-target">${escapeHTML(t("opt.target.one_deal"))}</span>`;
  const reserve = v.reserve ? `<span class="score-reserve">${escapeHTML(t("score.reserve", { n: v.reserve, word: variantTerm("litige") }))}</span>` : "";
  $("scoreboard").innerHTML = `${parts.join('<span class="score-sep">·</span>')}${target}${reserve}`;
  $("scoreboard").setAttribute("aria-label", `${t("table.score_sheet")}: ${sides.map((s) => `${sideName(s)} ${v.scores[s]}`).join(", ")}`);
  $("btn-last-trick").disabled = !v.last_trick;
  const room = S.room || {};
  $("btn-invite").hidden = room.mode !== "friends";
  $("level-switch").hidden = room.mode !== "computer";
  // a hint (the hard bot's choice) in games against the computer, on the player's turn
  $("btn-hint").hidden = room.mode !== "computer" || S.role !== "seat";
  $("btn-hint").disabled = !legal().length;
  $("btn-leave").hidden = !(room.mode === "friends" && room.status === "playing" && S.role === "seat");
  if (room.level) $("level-select").value = room.level;
}

function renderBanner() {
  const banner = $("banner");
  const room = S.room || {};
  let text = "";
  if (S.status !== "open") text = t("net.reconnecting");
  else if (room.paused) {
    const away = (room.seats || []).filter((s) => s.kind === "human" && !s.connected).map((s) => seatName(s.seat));
    text = t("room.paused", { names: away.join(", ") || "…" });
  } else if (S.role === "spectator") {
    text = t("room.spectating");
  }
  banner.hidden = !text;
  banner.textContent = text;
  banner.dataset.kind = S.status !== "open" ? "net" : room.paused ? "paused" : "info";
}

function renderSeats(events) {
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
    el.dataset.seat = seat;
    if (v.to_act === seat && v.phase !== "deal_over" && v.phase !== "match_over") el.classList.add("to-act");
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
    if (v.variant !== "duel") {
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
    if (v.to_act === seat && v.phase !== "deal_over" && v.phase !== "match_over") {
      el.setAttribute("aria-current", "true");
    }
    box.append(el);
  }
  // shown declarations (cards revealed after trick 1)
  for (const shown of v.shown_declarations || []) {
    const seatEl = box.querySelector(`.seat[data-seat="${shown.seat}"] .seat-chips`);
    if (!seatEl) continue;
    const strip = document.createElement("div");
    strip.className = "shown-cards";
    for (const combo of shown.combos) for (const card of combo) strip.append(cardElement(card, { cls: "tiny" }));
    seatEl.append(strip);
  }
}

/** The player's level (docs/players.md) next to the name: human seats whose browser is known. */
function levelBadge(info) {
  if (!info || !info.xp_level) return "";
  const title = escapeHTML(t("level.badge", { n: info.xp_level }));
  return `<span class="lvl-badge" title="${title}" aria-label="${title}">${info.xp_level}</span>`;
}

function comboText(combo) {
  if (combo.kind === "carre") return t("decl.carre", { rank: t(`rank.plural.${combo.rank || combo.top}`) });
  const len = Math.min(combo.length, 5);
  return t(`decl.seq${len}`, { top: combo.top === "T" ? "10" : t(`rank.short.${combo.top}`) });
}

function renderCentre(events) {
  const v = view();
  const trick = $("trick");
  trick.replaceChildren();
  const played = new Set(events.filter((e) => e.type === "card_played").map((e) => `${e.seat}:${e.card}`));
  for (const play of v.trick) {
    const pos = position(play.seat);
    const slot = document.createElement("div");
    slot.className = `slot pos-${pos}`;
    if (play.seat === v.leader) slot.classList.add("lead");
    const card = cardElement(play.card, { label: t("trick.played_by", { card: cardName(play.card), name: seatName(play.seat) }) });
    if (played.has(`${play.seat}:${play.card}`)) card.classList.add("just-played", `from-${pos}`);
    slot.append(card);
    const tag = document.createElement("span");
    tag.className = "slot-name";
    tag.textContent = seatName(play.seat) + (play.seat === v.leader ? ` · ${t("trick.leads")}` : "");
    slot.append(tag);
    trick.append(slot);
  }
  if (!v.trick.length && v.phase === "play" && v.to_act !== null) {
    const hint = document.createElement("div");
    hint.className = "trick-hint";
    hint.textContent = t("trick.leads_next", { name: seatName(v.to_act) });
    trick.append(hint);
  }
  // the deck / turn-up / proposal
  const spot = $("deck-spot");
  spot.replaceChildren();
  spot.className = "deck-spot";
  const showUp = v.upcard && v.variant !== "duel" && (v.phase === "bidding" || v.phase === "exchange" || (v.variant === "bela" && v.players === 2));
  if (showUp) {
    const stack = document.createElement("div");
    stack.className = "deck-stack";
    if (v.variant === "bela") stack.append(backElement("deck-under"));
    const up = cardElement(v.upcard, { label: t(v.variant === "bela" ? "table.proposal_card" : "table.turn_up_card", { card: cardName(v.upcard) }) });
    up.classList.add("upcard");
    stack.append(up);
    spot.append(stack);
    const label = document.createElement("span");
    label.className = "deck-label";
    label.textContent = t(v.variant === "bela" ? "table.proposal" : "table.turn_up");
    spot.append(label);
    spot.dataset.drop = v.phase === "exchange" ? "exchange" : "";
  } else if (v.variant === "bela" && v.players === 3 && v.middle_count) {
    const stack = document.createElement("div");
    stack.className = "deck-stack middle";
    for (let i = 0; i < v.middle_count; i++) stack.append(backElement());
    spot.append(stack);
    const label = document.createElement("span");
    label.className = "deck-label";
    label.textContent = t("table.middle");
    spot.append(label);
  }
  // bidding panel in the centre: the history of this deal
  const bidding = $("bidding");
  if (v.phase === "bidding" && v.bids.length) {
    bidding.hidden = false;
    bidding.innerHTML = bidsTable(v.bids);
  } else {
    bidding.hidden = true;
  }
}

function bidsTable(bids) {
  if (!bids.length) return `<p class="muted">${escapeHTML(t("table.no_bids"))}</p>`;
  return `<ol class="bid-list">${bids
    .map((b) => `<li><span class="bid-seat">${escapeHTML(seatName(b.seat))}</span> <span class="bid-what">${bidText(b)}</span></li>`)
    .join("")}</ol>`;
}

function renderPiles(events) {
  const v = view();
  const top = $("piles-top");
  const bottom = $("piles-bottom");
  if (v.variant !== "duel" || !v.piles) {
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
    box.setAttribute("aria-label", t("table.piles_of", { name: seatName(seat) }));
    box.setAttribute("role", "group");
    v.piles[seat].forEach((pile, i) => {
      const el = document.createElement("div");
      el.className = "pile";
      el.dataset.pile = i;
      if (pile.down) el.append(backElement("pile-down"));
      if (pile.up) {
        const canPlay = interactive && acts.playable.has(pile.up);
        const card = cardElement(pile.up, { button: interactive, playable: canPlay, cls: "pile-up" });
        if (interactive) wireCard(card, pile.up, canPlay);
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

function legalPlays() {
  const plays = legal().filter((a) => a.type === "play");
  return {
    playable: new Set(plays.map((a) => a.card)),
    belote: new Set(plays.filter((a) => a.belote).map((a) => a.card)),
  };
}

function renderHand() {
  const v = view();
  const hand = $("hand");
  hand.replaceChildren();
  if (v.variant === "duel" || !v.hand) {
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
    else if (mode === "exchange") canUse = exchangeCard() === card;
    const el = cardElement(card, { button: true, playable: canUse });
    if (!canUse) el.classList.add("dimmed");
    if (S.raised.has(card)) el.classList.add("raised");
    if (mode === "exchange" && canUse) el.classList.add("exchangeable");
    wireCard(el, card, canUse);
    hand.append(el);
  });
  layoutHand();
  hand.dataset.mode = mode;
}

/** What tapping a card in the hand does now. */
function handMode() {
  const acts = legal();
  if (!acts.length) return "idle";
  const types = new Set(acts.map((a) => a.type));
  if (types.has("discard")) return "discard";
  if (types.has("exchange")) return "exchange";
  if (types.has("declare") && S.declStep) return "raise";
  if (types.has("play")) return "play";
  return "idle";
}

const exchangeCard = () => {
  const a = legal().find((x) => x.type === "exchange");
  return a ? a.card : null;
};

function wireCard(el, card, canUse) {
  el.setAttribute("aria-disabled", canUse ? "false" : "true");
  el.tabIndex = -1;
  el.addEventListener("click", () => onCardTap(card, canUse));
  el.addEventListener("contextmenu", (event) => {
    event.preventDefault();
    if (canUse) toggleRaise(card);
  });
  el.addEventListener("keydown", (event) => onCardKey(event, card, canUse));
  if (handMode() === "exchange" && card === exchangeCard()) enableDrag(el, card);
}

function onCardTap(card, canUse) {
  if (!canUse || S.pending) return;
  const mode = handMode();
  if (mode === "raise" || mode === "discard") {
    toggleRaise(card);
    return;
  }
  if (mode === "exchange") {
    sendAction({ type: "exchange", card });
    return;
  }
  if (mode === "play") {
    const { belote } = legalPlays();
    if (belote.has(card) && !S.raised.has(card)) {
      // the K or Q of a belote pair: raise it; the controls offer "Call" or a plain play
      S.raised = new Set([card]);
      renderHand();
      renderControls();
      focusCard(card);
      return;
    }
    playCard(card, false);
  }
}

function playCard(card, beloteCall) {
  const action = { type: "play", card };
  if (beloteCall) action.belote = true;
  sendAction(action);
}

function toggleRaise(card) {
  const mode = handMode();
  if (S.raised.has(card)) S.raised.delete(card);
  else {
    if (mode === "discard" && S.raised.size >= 2) {
      const first = S.raised.values().next().value;
      S.raised.delete(first);
    }
    if (mode === "play") S.raised = new Set();
    S.raised.add(card);
  }
  renderHand();
  renderControls();
  focusCard(card);
}

function focusCard(card) {
  const el = document.querySelector(`#hand .card[data-card="${card}"], #piles-bottom .card[data-card="${card}"]`);
  if (el) {
    el.tabIndex = 0;
    el.focus();
  }
}

function onCardKey(event, card, canUse) {
  const cards = [...document.querySelectorAll("#hand button.card, #piles-bottom button.card")];
  const i = cards.findIndex((c) => c.dataset.card === card);
  let next = null;
  if (event.key === "ArrowRight") next = cards[(i + 1) % cards.length];
  else if (event.key === "ArrowLeft") next = cards[(i - 1 + cards.length) % cards.length];
  else if (event.key === "Home") next = cards[0];
  else if (event.key === "End") next = cards[cards.length - 1];
  else if (event.key === "ArrowUp") {
    event.preventDefault();
    if (canUse && !S.raised.has(card)) toggleRaise(card);
    return;
  } else if (event.key === "ArrowDown") {
    event.preventDefault();
    if (S.raised.has(card)) toggleRaise(card);
    return;
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const { belote } = legalPlays();
    if (handMode() === "play" && S.raised.has(card) && belote.has(card)) playCard(card, true);
    else onCardTap(card, canUse);
    return;
  }
  if (next) {
    event.preventDefault();
    for (const c of cards) c.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }
}

/** Cards of the hand overlap so that every card keeps a tap target of at least 40 px. */
function layoutHand() {
  const hand = $("hand");
  const cards = [...hand.querySelectorAll(".card:not(.small)")];
  if (!cards.length) return;
  const width = hand.clientWidth - 8;
  const cw = cards[0].getBoundingClientRect().width || 70;
  const minSlice = 42;
  let perRow = cards.length;
  while (perRow > 1 && (perRow - 1) * minSlice + cw > width) perRow -= 1;
  const rows = Math.ceil(cards.length / perRow);
  const inRow = Math.ceil(cards.length / rows);
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

window.addEventListener("resize", () => layoutHand());

// drag the trump seven onto the deck (bela, two players)
function enableDrag(el, card) {
  el.addEventListener("pointerdown", (down) => {
    if (down.button !== 0) return;
    const startX = down.clientX;
    const startY = down.clientY;
    let dragging = false;
    const move = (e) => {
      const dx = e.clientX - startX;
      const dy = e.clientY - startY;
      if (!dragging && Math.hypot(dx, dy) > 8) {
        dragging = true;
        el.classList.add("dragging");
      }
      if (dragging) el.style.transform = `translate(${dx}px, ${dy}px)`;
    };
    const up = (e) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      if (!dragging) return;
      el.classList.remove("dragging");
      el.style.transform = "";
      const spot = $("deck-spot").getBoundingClientRect();
      const inside = e.clientX >= spot.left && e.clientX <= spot.right && e.clientY >= spot.top && e.clientY <= spot.bottom;
      // swallow the click that follows the drag
      el.addEventListener("click", (c) => c.stopImmediatePropagation(), { capture: true, once: true });
      if (inside) sendAction({ type: "exchange", card });
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  });
}

// ----------------------------------------------------------------------------- controls

function button(label, onClick, { cls = "btn", html = false, disabled = false, name = null } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  if (html) b.innerHTML = label;
  else b.textContent = label;
  if (name) b.dataset.action = name;
  b.disabled = disabled;
  b.addEventListener("click", onClick);
  return b;
}

function renderControls() {
  const v = view();
  const box = $("controls");
  box.replaceChildren();
  const acts = legal();
  const turn = document.createElement("p");
  turn.className = "turn-line";
  const actor = v.to_act;
  if (v.phase === "match_over") turn.textContent = t("table.match_over");
  else if (v.phase === "deal_over") turn.textContent = t("table.deal_over");
  else if (acts.length) turn.innerHTML = `<strong>${escapeHTML(t(`prompt.${promptKey()}`))}</strong>`;
  else if (actor !== null && actor !== undefined) turn.textContent = t("table.waiting_for", { name: seatName(actor) });
  box.append(turn);
  const row = document.createElement("div");
  row.className = "action-row";
  box.append(row);

  if (v.phase === "bidding" && acts.length) renderBidding(row, acts);
  else if (v.phase === "exchange" && acts.length) {
    row.append(button(t("exchange.do", {}), () => sendAction({ type: "exchange", card: exchangeCard() }), { cls: "btn primary", name: "exchange" }));
    row.append(button(t("exchange.keep"), () => sendAction({ type: "pass" }), { name: "pass" }));
  } else if (v.phase === "discard" && acts.length) {
    const pair = [...S.raised];
    const ok = pair.length === 2 && acts.some((a) => a.type === "discard" && a.cards.every((c) => S.raised.has(c)));
    row.append(
      button(t("discard.do", { n: pair.length }), () => sendAction({ type: "discard", cards: pair }), { cls: "btn primary", disabled: !ok, name: "discard" }),
    );
  } else if (v.phase === "play" && acts.length) {
    renderPlayControls(row, acts);
  }
  // consent for a new deal (duel) or a rematch
  const consent = S.room && S.room.consent;
  if (S.role !== "spectator" && (v.phase === "deal_over" || v.phase === "match_over")) {
    const kind = v.phase === "match_over" ? "rematch" : "next_deal";
    if (v.phase === "match_over" || v.variant === "duel") row.append(consentButton(kind, consent));
  }
}

function consentButton(kind, consent) {
  const agreed = consent && consent.kind === kind && S.held.some((s) => consent.agreed.includes(s));
  const label = agreed ? t("consent.waiting", { names: waitingNames(consent) }) : t(`consent.${kind}`);
  return button(label, () => sendConsent(kind), { cls: "btn primary", disabled: agreed, name: kind });
}

function waitingNames(consent) {
  if (!consent) return "";
  return consent.needed.filter((s) => !consent.agreed.includes(s)).map(seatName).join(", ");
}

function promptKey() {
  const v = view();
  const types = new Set(legal().map((a) => a.type));
  if (v.phase === "bidding") return "bid";
  if (types.has("discard")) return "discard";
  if (types.has("exchange")) return "exchange";
  if (types.has("declare") && S.declStep) return "declare";
  return "play";
}

function renderBidding(row, acts) {
  const v = view();
  const bids = acts.filter((a) => a.type === "bid");
  const valued = bids.filter((a) => a.value !== undefined);
  if (valued.length) {
    // coinche: choose a value, then a suit
    const values = [...new Set(valued.map((a) => a.value))];
    if (!values.includes(S.coincheValue)) S.coincheValue = values[0];
    const chips = document.createElement("div");
    chips.className = "value-chips";
    chips.setAttribute("role", "radiogroup");
    chips.setAttribute("aria-label", t("bid.value"));
    for (const value of values) {
      const b = button(value === "capot" ? t("bid.capot") : String(value), () => {
        S.coincheValue = value;
        renderControls();
      }, { cls: `chip-btn ${value === S.coincheValue ? "on" : ""}`, name: `value-${value}` });
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", value === S.coincheValue ? "true" : "false");
      chips.append(b);
    }
    row.append(chips);
    const suits = document.createElement("div");
    suits.className = "suit-buttons";
    for (const a of valued.filter((x) => x.value === S.coincheValue)) {
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
  const declares = acts.filter((a) => a.type === "declare");
  if (declares.length && S.declStep) {
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
          S.raised = new Set(d.combos.flat());
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
        S.declStep = false;
        S.raised.clear();
        renderHand();
        renderControls();
        app.dataset.myTurn = "yes";
      }, { cls: "btn", name: "skip-declare" }),
    );
    return;
  }
  const { belote } = legalPlays();
  const raised = [...S.raised].find((c) => belote.has(c));
  if (raised) {
    row.append(
      button(`${escapeHTML(t("declare.call"))}: ${escapeHTML(t(`belote.belote.${v.variant}`))}`, () => playCard(raised, true), {
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
  if (!S.raised.size) return null;
  const key = [...S.raised].sort().join(",");
  return declares.find((d) => d.combos.flat().sort().join(",") === key) || null;
}

// ----------------------------------------------------------------------------- waiting room

function renderWaiting() {
  const box = $("waiting");
  const room = S.room;
  if (S.view || !room) {
    box.hidden = true;
    app.dataset.waiting = "no";
    return;
  }
  app.dataset.state = "ready";
  app.dataset.waiting = "yes";
  app.dataset.variant = room.variant;
  box.hidden = false;
  const seats = (room.seats || [])
    .map((s) => {
      const name = s.name || (s.kind === "bot" ? t("seat.bot", { n: s.seat + 1 }) : s.taken ? t("seat.player", { n: s.seat + 1 }) : t("seat.free"));
      const state = s.taken ? (s.connected ? t("seat.connected") : t("seat.disconnected")) : t("seat.free_note");
      return `<li class="${s.taken ? "taken" : "free"}"><span class="presence ${s.taken && s.connected ? "on" : "off"}"></span> ${escapeHTML(name)}${s.you ? ` (${escapeHTML(t("seat.you"))})` : ""} <span class="muted small">${escapeHTML(state)}</span></li>`;
    })
    .join("");
  const url = new URL(room.url || location.pathname, location.href).href;
  box.innerHTML =
    `<h2>${escapeHTML(t(`variant.${room.variant}`))}</h2><p>${escapeHTML(t("room.waiting_players"))}</p><ul class="waiting-seats">${seats}</ul>` +
    `<div class="invite-row"><input type="text" readonly value="${escapeHTML(url)}" aria-label="${escapeHTML(t("invite.link"))}" id="waiting-link"></div>`;
  const row = document.createElement("div");
  row.className = "action-row";
  row.append(button(t("invite.copy"), () => copyText(url), { cls: "btn primary", name: "copy-invite" }));
  if (canShare()) row.append(button(t("invite.share"), () => shareLink(url), { name: "share-invite" }));
  box.append(row);
  $("hand").hidden = true;
  $("controls").replaceChildren();
  $("btn-invite").hidden = room.mode !== "friends";
}

// ----------------------------------------------------------------------------- local games

function renderPassScreen() {
  const screen = $("pass-screen");
  const v = view();
  const hidden = S.held.length > 1 && v.variant !== "duel";
  if (!hidden || S.shown === null || S.shown === S.revealed || v.phase === "deal_over" || v.phase === "match_over") {
    screen.hidden = true;
    app.classList.remove("covered");
    return;
  }
  screen.hidden = false;
  app.classList.add("covered");
  $("pass-title").textContent = t("local.pass_to", { name: seatName(S.shown) });
  $("pass-ready").textContent = t("local.ready", { name: seatName(S.shown) });
}

$("pass-ready").addEventListener("click", () => {
  S.revealed = S.shown;
  render([]);
});

// ----------------------------------------------------------------------------- events

function handleEvents(events) {
  const v = view();
  for (const e of events) {
    switch (e.type) {
      case "card_played":
        announce(t("log.played", { name: seatName(e.seat), card: cardName(e.card) }));
        break;
      case "trick_won":
        collectTrick(e.seat);
        announce(t("log.trick_won", { name: seatName(e.seat), n: e.points }));
        break;
      case "bid":
        break;
      case "contract":
        toast(t("log.contract", { name: seatName(e.contract.taker), contract: denomText(e.contract.denom) }));
        break;
      case "declared":
        toast(t("log.declared", { name: seatName(e.seat), what: e.combos.map(comboText).join(", ") }));
        break;
      case "belote":
        toast(t("log.belote", { name: seatName(e.seat), word: t(`belote.${e.stage}.${v.variant}`) }));
        break;
      case "exchanged":
        toast(t("log.exchanged", { name: seatName(e.seat) }));
        break;
      case "discarded":
        announce(t("log.discarded", { name: seatName(e.seat) }));
        break;
      case "deal_thrown_in":
        toast(t("log.thrown_in"));
        break;
      case "deal_scored":
        showDealSummary(e.result);
        break;
      default:
        break;
    }
  }
}

function collectTrick(winner) {
  const v = view();
  const done = $("trick-done");
  const last = v.last_trick;
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
  clearTimeout(collectTrick.timer);
  clearTimeout(collectTrick.timer2);
  // the finished trick stays in view a moment, then flies to its winner; input is never blocked
  collectTrick.timer = setTimeout(() => {
    done.classList.add("collect", `to-${position(winner)}`);
    collectTrick.timer2 = setTimeout(() => {
      done.replaceChildren();
      done.className = "trick trick-done";
    }, COLLECT_MS);
  }, COLLECT_HOLD_MS);
}

// ----------------------------------------------------------------------------- dialogs

function openDialog(id) {
  const dlg = $(id);
  if (!dlg.open) dlg.showModal();
}

function resultRows(result) {
  const v = view();
  const sides = v.players === 3 ? [0, 1, 2] : [0, 1];
  const row = (label, values, cls = "") =>
    `<tr class="${cls}"><th scope="row">${escapeHTML(label)}</th>${sides.map((s) => `<td>${values[s]}</td>`).join("")}</tr>`;
  let html = `<table class="result-table"><thead><tr><th></th>${sides.map((s) => `<th scope="col">${escapeHTML(sideName(s))}</th>`).join("")}</tr></thead><tbody>`;
  html += row(t("result.card_points"), result.card_points);
  if (result.declaration_points.some((x) => x)) html += row(t("result.declarations"), result.declaration_points);
  if (result.belote_points.some((x) => x)) html += row(variantTerm("belote"), result.belote_points);
  html += row(t("result.total"), result.totals, "total");
  html += row(t("result.recorded"), result.recorded, "recorded");
  html += `</tbody></table>`;
  return html;
}

function outcomeText(result) {
  if (result.outcome === "made") return t("outcome.made");
  if (result.outcome === "failed") return t("outcome.failed");
  return variantTerm("litige");
}

function dealHeadline(result) {
  const v = view();
  if (result.thrown_in) return t("result.thrown_in");
  const taker = result.contract.taker;
  const parts = [`${contractHTML(result.contract)}`, `<span class="outcome ${result.outcome}">${escapeHTML(outcomeText(result))}</span>`];
  if (result.capot_side !== null && result.capot_side !== undefined) {
    parts.push(`<span class="chip capot">${escapeHTML(variantTerm("capot"))}: ${escapeHTML(sideName(result.capot_side))}</span>`);
  }
  if (result.reserve) parts.push(`<span class="chip">${escapeHTML(t("score.reserve", { n: result.reserve, word: variantTerm("litige") }))}</span>`);
  if (result.reserve_paid) parts.push(`<span class="chip">${escapeHTML(t("result.reserve_paid", { n: result.reserve_paid, name: sideName(result.reserve_paid_to) }))}</span>`);
  void taker;
  void v;
  return parts.join(" ");
}

function showDealSummary(result) {
  const v = view();
  if (!result || result.thrown_in) return;
  S.dealSeen = result.number;
  $("dlg-deal-title").textContent = t("result.deal_n", { n: result.number + 1 });
  const decl = (result.declarations || [])
    .map((combos, seat) => (combos.length ? `<li>${escapeHTML(seatName(seat))}: ${combos.map((c) => escapeHTML(comboText(c))).join(", ")}</li>` : ""))
    .join("");
  let html = `<p class="deal-headline">${dealHeadline(result)}</p>${resultRows(result)}`;
  if (decl) html += `<h3>${escapeHTML(t("result.declarations"))}</h3><ul class="decl-list">${decl}</ul>`;
  if (result.rounding) html += `<p class="muted small">${escapeHTML(roundingText(result.rounding))}</p>`;
  const sides = v.players === 3 ? [0, 1, 2] : [0, 1];
  html += `<p class="match-line">${escapeHTML(t("result.match_total"))}: ${sides.map((s) => `${escapeHTML(sideName(s))} <b>${result.totals_after[s]}</b>`).join(" · ")}${v.target ? ` <span class="muted">(${escapeHTML(t("score.target", { n: v.target }))})</span>` : ""}</p>`;
  if (v.variant === "duel") {
    const w = result.winner_side;
    html += `<p class="winner-line">${escapeHTML(t("result.game_won_by", { name: sideName(w) }))}</p>`;
  }
  $("deal-summary").innerHTML = html;
  if (v.variant === "duel") showAwards($("deal-summary"), result.number); // each duel deal is a game
  const actions = $("deal-actions");
  actions.replaceChildren();
  const close = button(t("common.continue"), () => $("dlg-deal").close(), { cls: "btn primary", name: "continue" });
  if (v.variant === "duel" && S.role !== "spectator" && v.phase === "deal_over") {
    actions.append(button(t("consent.next_deal"), () => {
      sendConsent("next_deal");
      $("dlg-deal").close();
    }, { cls: "btn primary", name: "next_deal" }));
    close.className = "btn";
    close.textContent = t("common.close");
  }
  actions.append(close);
  if (v.phase !== "match_over") openDialog("dlg-deal");
}

function renderDialogsLive() {
  const v = view();
  if (v.phase === "match_over" && !S.matchDismissed) showMatchOver();
  if (v.phase !== "match_over") {
    S.matchDismissed = false;
    if ($("dlg-match").open) $("dlg-match").close();
  }
  if ($("dlg-scores").open) fillScoreSheet();
  if ($("dlg-match").open) fillMatchActions();
}

function showMatchOver() {
  const v = view();
  const sides = v.players === 3 ? [0, 1, 2] : [0, 1];
  const winner = v.winner;
  const mine = S.role !== "spectator" && winner === v.sides[bottomSeat()];
  $("dlg-match-title").textContent = winner === null || winner === undefined ? t("match.over") : mine && S.held.length === 1 ? t("match.you_win") : t("match.winner", { name: sideName(winner) });
  const last = v.results[v.results.length - 1];
  let html = "";
  if (last && !last.thrown_in && last.totals) html += `<p class="deal-headline">${dealHeadline(last)}</p>${resultRows(last)}`;
  html += `<p class="match-line">${escapeHTML(t("result.match_total"))}: ${sides.map((s) => `${escapeHTML(sideName(s))} <b>${v.scores[s]}</b>`).join(" · ")}</p>`;
  $("match-summary").innerHTML = html;
  showAwards($("match-summary"), 0);
  fillMatchActions();
  if ($("dlg-deal").open) $("dlg-deal").close();
  openDialog("dlg-match");
}

// ----------------------------------------------------------------------------- experience

const AWARDS = { data: null, pending: null };

/** What this browser earned for a finished match (part 0) or duel game (part = deal), and how
 * far the next level is: fetched once the game ends, drawn into `box`. */
async function showAwards(box, part) {
  if (S.role === "spectator") return;
  let entry = AWARDS.data && AWARDS.data.results.find((r) => r.part === part);
  if (!entry) {
    for (let attempt = 0; attempt < 3 && !entry; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 400 * attempt));
      AWARDS.pending ||= api(`/api/games/${encodeURIComponent(app.dataset.gameId)}/awards`).finally(() => {
        AWARDS.pending = null;
      });
      try {
        AWARDS.data = await AWARDS.pending;
      } catch {
        return;
      }
      entry = AWARDS.data.results.find((r) => r.part === part);
    }
    if (!entry) return;
  }
  if (!box.isConnected) return;
  box.querySelector(".xp-box")?.remove();
  box.append(awardsBox(entry, AWARDS.data.progress));
}

function awardsBox(entry, progress) {
  const el = document.createElement("div");
  el.className = "xp-box";
  el.id = "xp-box";
  el.dataset.xp = entry.xp.total;
  el.dataset.level = progress.level;
  el.dataset.totalXp = progress.xp;
  const levelBefore = entry.level_before || progress.level;
  let html = `<h3>${escapeHTML(t("xp.earned_title"))}</h3>`;
  if (entry.left) {
    html += `<p>${escapeHTML(t("xp.left"))}</p>`;
  } else {
    const lines = [[t("xp.finish"), entry.xp.finish]];
    if (entry.xp.win) lines.push([t("xp.win"), entry.xp.win]);
    if (entry.xp.deals) lines.push([t("xp.deals_n", { n: entry.deals_won }), entry.xp.deals]);
    if (entry.xp.tricks) lines.push([t("xp.tricks_n", { n: entry.tricks_won }), entry.xp.tricks]);
    html += `<ul>${lines.map(([label, xp]) => `<li>${escapeHTML(label)}: <b>+${xp}</b></li>`).join("")}</ul>`;
    html += `<p class="xp-total"><b>${escapeHTML(t("xp.total", { n: entry.xp.total }))}</b></p>`;
  }
  const up = progress.level > levelBefore ? ` <span class="level-up">${escapeHTML(t("xp.level_up", { n: progress.level }))}</span>` : "";
  html +=
    `<p class="level-line"><span class="lvl-badge">${progress.level}</span> ${escapeHTML(t("profile.level", { n: progress.level }))} · ${escapeHTML(t("profile.xp", { n: progress.xp }))}${up}</p>` +
    `<div class="xp-bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${progress.percent}"><span style="width: ${progress.percent}%"></span></div>` +
    `<p class="muted small">${escapeHTML(t("profile.to_next", { n: progress.to_next, level: progress.level + 1 }))}</p>`;
  if (entry.rating_after !== null && entry.rating_after !== undefined) {
    html += `<p class="small">${escapeHTML(t("xp.rating", { family: t(`family.${entry.family}`), before: entry.rating_before, after: entry.rating_after }))}</p>`;
  }
  html += `<p class="small"><a href="/profile">${escapeHTML(t("nav.profile"))}</a> · <a href="/replay/${encodeURIComponent(app.dataset.gameId)}">${escapeHTML(t("history.replay"))}</a></p>`;
  el.innerHTML = html;
  return el;
}

function fillMatchActions() {
  const actions = $("match-actions");
  actions.replaceChildren();
  if (S.role !== "spectator") actions.append(consentButton("rematch", S.room && S.room.consent));
  actions.append(button(t("match.scores"), () => {
    fillScoreSheet();
    openDialog("dlg-scores");
  }, { name: "sheet" }));
  const home = document.createElement("a");
  home.className = "btn";
  home.href = "/";
  home.textContent = t("common.home");
  actions.append(home);
}

$("dlg-match").addEventListener("cancel", () => {
  S.matchDismissed = true;
});

function fillScoreSheet() {
  const v = view();
  const sides = v.players === 3 ? [0, 1, 2] : [0, 1];
  const played = v.results.filter((r) => !r.thrown_in || r.eight_card_belot);
  if (!v.results.length) {
    $("score-sheet").innerHTML = `<p class="muted">${escapeHTML(t("sheet.empty"))}</p>`;
    return;
  }
  let html = `<table class="score-sheet"><thead><tr><th scope="col">#</th><th scope="col">${escapeHTML(t("sheet.contract"))}</th>${sides
    .map((s) => `<th scope="col">${escapeHTML(sideName(s))}</th>`)
    .join("")}</tr></thead><tbody>`;
  for (const r of v.results) {
    if (r.thrown_in) {
      html += `<tr class="thrown"><td>${r.number + 1}</td><td colspan="${sides.length + 1}">${escapeHTML(t("result.thrown_in"))}</td></tr>`;
      continue;
    }
    const notes = [];
    notes.push(`<span class="outcome ${r.outcome}">${escapeHTML(outcomeText(r))}</span>`);
    if (r.capot_side !== null && r.capot_side !== undefined) notes.push(`${escapeHTML(variantTerm("capot"))}`);
    if (r.reserve) notes.push(escapeHTML(t("score.reserve", { n: r.reserve, word: variantTerm("litige") })));
    const cell = (s) => {
      const detail = [`${t("sheet.cards_short")} ${r.card_points[s]}`];
      if (r.declaration_points[s]) detail.push(`${t("sheet.decl_short")} ${r.declaration_points[s]}`);
      if (r.belote_points[s]) detail.push(`${variantTerm("belote")} ${r.belote_points[s]}`);
      return `<td><b>${r.recorded[s]}</b><span class="cell-detail">${escapeHTML(detail.join(" · "))}</span></td>`;
    };
    html += `<tr><td>${r.number + 1}</td><td class="sheet-contract">${contractHTML(r.contract)}<span class="cell-detail">${notes.join(" · ")}</span></td>${sides.map(cell).join("")}</tr>`;
  }
  html += `</tbody><tfoot><tr><th scope="row" colspan="2">${escapeHTML(v.variant === "duel" ? t("score.games_won") : t("result.match_total"))}${v.target ? ` · ${escapeHTML(t("score.target", { n: v.target }))}` : ""}</th>${sides
    .map((s) => `<td><b>${v.scores[s]}</b></td>`)
    .join("")}</tr></tfoot></table>`;
  if (v.reserve) html += `<p>${escapeHTML(t("score.reserve", { n: v.reserve, word: variantTerm("litige") }))}</p>`;
  void played;
  $("score-sheet").innerHTML = html;
}

$("scoreboard").addEventListener("click", () => {
  if (!view()) return;
  fillScoreSheet();
  openDialog("dlg-scores");
});

$("btn-last-trick").addEventListener("click", () => {
  const v = view();
  if (!v || !v.last_trick) return;
  const box = $("last-trick");
  box.replaceChildren();
  const list = document.createElement("div");
  list.className = "last-trick-cards";
  for (const play of v.last_trick.plays) {
    const item = document.createElement("figure");
    item.className = play.seat === v.last_trick.winner ? "winner" : "";
    item.append(cardElement(play.card));
    const cap = document.createElement("figcaption");
    cap.textContent = seatName(play.seat) + (play.seat === v.last_trick.leader ? ` · ${t("trick.leads")}` : "");
    item.append(cap);
    list.append(item);
  }
  box.append(list);
  const p = document.createElement("p");
  p.textContent = t("trick.won_by", { name: seatName(v.last_trick.winner), n: v.last_trick.points });
  box.append(p);
  openDialog("dlg-last");
});

$("btn-bids").addEventListener("click", () => {
  const v = view();
  if (!v) return;
  $("bids-history").innerHTML = bidsTable(v.bids) + (v.contract ? `<p class="contract-line">${escapeHTML(t("table.contract"))}: ${contractHTML(v.contract)}${takenHTML(v.taken, v.contract.taker)}</p>` : "");
  openDialog("dlg-bids");
});

$("btn-invite").addEventListener("click", async () => {
  const url = new URL((S.room && S.room.url) || location.pathname, location.href).href;
  if (canShare()) await shareLink(url);
  else await copyText(url);
});

$("btn-leave").addEventListener("click", async () => {
  if (!window.confirm(t("leave.confirm"))) return;
  try {
    await api(`/api/games/${encodeURIComponent(app.dataset.gameId)}/leave`, { method: "POST" });
    toast(t("leave.done"));
    location.assign("/");
  } catch (error) {
    toast(error.message);
  }
});

$("btn-hint").addEventListener("click", () => {
  conn.send({ type: "hint", id: conn.nextId("h") });
});

// Highlight the suggested card or bid; the choice stays the player's.
function showHint(action) {
  if (!action) return;
  document.querySelectorAll(".hinted").forEach((el) => el.classList.remove("hinted"));
  let target = null;
  if (action.type === "play") {
    target = document.querySelector(`#hand button.card[data-card="${action.card}"], #piles-bottom button.card[data-card="${action.card}"]`);
  } else if (action.type === "bid") {
    const name = action.value !== undefined ? `bid-${action.value}-${action.contract}` : `bid-${action.contract}`;
    target = document.querySelector(`#controls [data-action="${name}"]`);
  } else {
    target = document.querySelector(`#controls [data-action="${action.type}"]`);
  }
  if (target) {
    target.classList.add("hinted");
    target.focus();
  }
  toast(t("hint.shown"));
}

$("level-select").addEventListener("change", (e) => {
  conn.send({ type: "set_level", level: e.target.value });
});

// four-colour deck, remembered in this browser
const fourColour = $("four-colour");
fourColour.checked = localStorage.getItem("atout.fourColour") === "1";
document.body.classList.toggle("four-colour", fourColour.checked);
fourColour.addEventListener("change", () => {
  localStorage.setItem("atout.fourColour", fourColour.checked ? "1" : "0");
  document.body.classList.toggle("four-colour", fourColour.checked);
});

// ----------------------------------------------------------------------------- start

const conn = new Connection(app.dataset.gameId, {
  onMessage,
  onStatus(status) {
    S.status = status === "open" ? "open" : status;
    app.dataset.net = status;
    renderBanner();
  },
  version: () => S.version,
});
conn.connect();

// for tests and debugging: the current state, read-only
window.atoutTable = { get state() { return S; } };

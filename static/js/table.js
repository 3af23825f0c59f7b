// @ts-check
// The table: draws the views the server sends (app/engine/views.py) and sends the player's
// actions. This module is the entry point: it reads the server's messages, keeps the state
// (table-state.js) and redraws the regions; each region is its own module:
//   table-state.js     server state, its merge, and the questions asked of it
//   table-ui.js        the page's own state (raised cards, pending move, ...) and hand modes
//   table-names.js     names of seats and sides; words.js bound to this table
//   table-bar.js       bar and banner          table-seats.js     the seats
//   table-trick.js     trick, deck, bid list   table-hand.js      hand and duel piles
//   table-controls.js  turn line and buttons   table-dialogs.js   summaries and sheets
//   table-waiting.js   waiting room, local pass screen
//   table-input.js     cards, bar buttons, settings          table-send.js  what is sent
//   table-live.js      the clock, the computer standing in, leaving, who played a move
// and the table's features in their own modules: trump.js (trump on the felt), reasons.js (why
// a card may not be played), keys.js (keyboard), sound.js, settings.js, help.js, seating.js,
// chat.js (the table chat of friends games).
import { cardName, denomText } from "./cards.js";
import { chatAck, chatError, chatFromState, chatLine, chatYieldsToTurn, installChat, isChatId, renderChat } from "./chat.js";
import { toast } from "./common.js";
import { has, t } from "./i18n.js";
import { Connection } from "./net.js";
import { renderBanner, renderBar } from "./table-bar.js";
import { renderControls } from "./table-controls.js";
import { renderDialogsLive, showDealSummary } from "./table-dialogs.js";
import { $, announce, app } from "./table-dom.js";
import { renderHand, renderPiles } from "./table-hand.js";
import { answer, byWords, installLeave, learnBy, moves, noteBy, playedBy, redrawClocks, sendSettings, updateTurnClock } from "./table-live.js";
import { decorateKeys, dialogClosed, focusTurn, focusedPlace, installShortcuts, restoreFocus } from "./keys.js";
import { play as playSound } from "./sound.js";
import { installInput, markHint, showHint, showRefusal } from "./table-input.js";
import { about, comboText, points, seatName, seatWho } from "./table-names.js";
import { renderSeats } from "./table-seats.js";
import { renderBoardLink } from "./table-board.js";
import { clearPending, send, useConnection } from "./table-send.js";
import { S, actorSeat, applyRoom, applyState, applyStatus, applyUpdate, bottomSeat, legal, roomSeat, view } from "./table-state.js";
import { renderCentre, collectTrick } from "./table-trick.js";
import { U, promptKey } from "./table-ui.js";
import { renderPassScreen, renderWaiting } from "./table-waiting.js";
import { renderTrumpBadge } from "./trump.js";

// ----------------------------------------------------------------------------- messages

const FATAL = new Set(["not_found", "table_full", "no_identity", "banned", "room_closed", "removed"]);

function onMessage(msg) {
  switch (msg.type) {
    case "state":
      applyState(msg);
      learnBy(msg.moves_by);
      clearPending();
      draw([]);
      chatFromState(msg);
      break;
    case "update": {
      const how = applyUpdate(msg);
      if (how === "gap") send({ type: "resume", version: S.version });
      if (how !== "applied") return;
      clearPending();
      draw(msg.events || []);
      break;
    }
    case "room":
      applyRoom(msg.room);
      draw([]);
      renderChat();
      break;
    case "chat":
      chatLine(msg.message);
      break;
    case "ack":
      if (isChatId(msg.id)) {
        chatAck(msg);
        break;
      }
      if (answer(msg)) break;
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
      if (chatError(msg)) break;
      if (answer(msg)) break;
      clearPending();
      if (FATAL.has(msg.code)) {
        conn.close();
        showFatal(msg.code);
        return;
      }
      if (msg.code === "illegal_action" && U.refused) showRefusal(msg);
      // a code the catalog does not know shows the server's words, never a raw key
      else if (msg.code !== "stale_version") toast(has(`error.${msg.code}`) ? t(`error.${msg.code}`) : msg.message);
      U.refused = null;
      draw([]);
      break;
    default:
      break;
  }
}

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

// ----------------------------------------------------------------------------- drawing

// While a deal's final trick is on show, what comes next (a next deal dealt at once) is held
// back and drawn when the summary opens: the player never acts on a table the summary is about
// to cover.
let deferred = null;

function draw(events) {
  if (U.holding) {
    deferred = (deferred || []).concat(events);
    return;
  }
  render(events);
}

function render(events) {
  const v = view();
  noteBy(events);
  renderWaiting();
  if (!v) {
    renderBanner();
    decorateKeys();
    return;
  }
  app.dataset.state = "ready";
  app.dataset.phase = v.phase;
  app.dataset.variant = v.variant;
  app.dataset.piles = v.traits.hand_in_piles ? "yes" : "no"; // the layout of static/css/app.css
  app.dataset.players = String(v.players);
  app.classList.toggle("spectating", S.role === "spectator");
  const turnSeat = actorSeat();
  app.dataset.myTurn = turnSeat !== null && turnSeat === bottomSeat() && legal().length > 0 ? "yes" : "no";
  if (!legal().some((a) => a.type === "declare")) U.declStep = true;
  const place = focusedPlace();
  renderBar();
  renderBanner();
  renderBoardLink();
  renderSeats();
  renderCentre(events);
  renderPiles(events);
  renderHand();
  renderControls();
  markHint();
  renderTrumpBadge($("trump-badge"), v, seatWho);
  renderPassScreen();
  handleEvents(events);
  renderDialogsLive();
  restoreFocus(place);
  renderTurn();
  updateTurnClock();
}

/** Keys on every control; on a new decision for the player, the focus and a sound. */
function renderTurn() {
  decorateKeys();
  const v = view();
  const mine = app.dataset.myTurn === "yes" && v.phase !== "deal_over" && v.phase !== "match_over";
  const turn = mine ? `${S.version}:${S.shown}:${promptKey()}` : null;
  if (turn && !U.turn) playSound("turn");
  // a decision of the player's that comes with news from the server (not a card raised): the
  // chat sheet makes way for it
  if (turn && (!U.turn || U.turn.split(":")[0] !== String(S.version))) chatYieldsToTurn();
  U.turn = turn;
  if (!$("pass-screen").hidden) {
    // local games: the device passes to the next player first
    focusTurn(`pass:${S.shown}`);
    if (document.activeElement !== $("pass-ready") && !document.querySelector("dialog[open]")) $("pass-ready").focus();
    return;
  }
  focusTurn(turn);
}

/** A move the computer made because its player's clock ran out: the stand-in played for a
 * seat that it does not hold (a seat away or left has its badge and says so itself). */
function timedOut(e) {
  if (e.by !== "stand_in") return false;
  const seat = roomSeat(e.seat);
  return Boolean(seat) && !seat.stand_in;
}

// The final trick of a deal stays on the table this long before the deal's summary opens.
const FINAL_TRICK_MS = 1500;
let finalTimer = null;

/** What the events of an update show beyond the new view: animations, toasts, summaries. */
function handleEvents(events) {
  const v = view();
  const afterHold = [];
  const scored = events.some((e) => e.type === "deal_scored");
  let held = false;
  for (const e of events) {
    switch (e.type) {
      case "card_played":
        announce(about("log.played", seatWho(e.seat), { card: cardName(e.card) }) + byWords(e.by || playedBy(e.seat, e.card)));
        playSound("card");
        // the card is public once played: the player and the table are told what the clock did
        if (timedOut(e)) toast(about("timeout.card", seatWho(e.seat), { card: cardName(e.card) }));
        break;
      case "bid":
        if (timedOut(e)) toast(about("timeout.bid", seatWho(e.seat)));
        break;
      case "trick_won":
        playSound("trick");
        if (scored && v.last_trick) {
          // the deal's last trick: keep it on the table and under "Last trick" a moment
          U.finalTrick = v.last_trick;
          U.holding = held = true;
          collectTrick(e.seat, v.last_trick, FINAL_TRICK_MS);
        } else {
          collectTrick(e.seat);
        }
        announce(about("log.trick_won", seatWho(e.seat), { points: points(e.points) }));
        break;
      case "claimed":
        // a valid claim (RULES.md §15): its cards are shown at the seat, the rest is played out
        toast(t("claim.made", { name: seatName(e.seat) }));
        break;
      case "contract":
        toast(about("log.contract", seatWho(e.contract.taker), { contract: denomText(e.contract.denom) }));
        break;
      case "declared":
        toast(about("log.declared", seatWho(e.seat), { what: e.combos.map(comboText).join(", ") }));
        break;
      case "belote":
        toast(about("log.belote", seatWho(e.seat), { word: t(`belote.${e.stage}.${v.variant}`) }));
        break;
      case "exchanged":
        toast(about("log.exchanged", seatWho(e.seat)));
        break;
      case "discarded":
        announce(about("log.discarded", seatWho(e.seat)));
        break;
      case "deal_thrown_in":
        toast(t("log.thrown_in"));
        break;
      case "deal_scored":
        playSound("deal_end");
        if (U.holding) afterHold.push(() => showDealSummary(e.result));
        else showDealSummary(e.result);
        break;
      default:
        break;
    }
  }
  if (held) {
    renderControls(); // without the way on while the final trick is on show
    clearTimeout(finalTimer);
    finalTimer = setTimeout(() => {
      U.holding = false;
      if (deferred) {
        const events = deferred;
        deferred = null;
        render(events);
      }
      for (const show of afterHold) show();
      if (view()) renderDialogsLive(); // the match's end, held back with the summary
      renderBar();
      if (view()) renderControls(); // the way on, now that the summary is open
      decorateKeys();
    }, FINAL_TRICK_MS);
  }
}

// ----------------------------------------------------------------------------- start

installInput({ render });
installChat();
installLeave();

const conn = new Connection(app.dataset.gameId, {
  onMessage,
  onStatus(status) {
    applyStatus(status);
    redrawClocks();
    app.dataset.net = status;
    // the server learns this connection's settings first (forced cards played for the player)
    if (status === "open") sendSettings();
    renderBanner();
  },
  version: () => S.version,
});
useConnection(conn);
conn.connect();
installShortcuts();
decorateKeys();
// a decision that came while a dialog was open takes the focus when the dialog closes, and so
// does one whose focused card or button a redraw replaced while it was open
for (const dialog of document.querySelectorAll("dialog")) {
  dialog.addEventListener("close", () => {
    dialogClosed();
    if (view()) renderTurn();
  });
}

// for tests and debugging: the server state and the page's own, read-only
/** @type {any} */ (window).atoutTable = {
  get state() {
    return S;
  },
  get ui() {
    return U;
  },
  get moves() {
    return moves;
  },
};

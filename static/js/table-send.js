// @ts-check
// What the table sends: actions (with the version they answer), consents, and any other frame.
import { toast } from "./common.js";
import { t } from "./i18n.js";
import { $ } from "./table-dom.js";
import { S, bottomSeat } from "./table-state.js";
import { U } from "./table-ui.js";

let conn = null;

/** The page's Connection (net.js), set once at start. */
export function useConnection(connection) {
  conn = connection;
}

export const connection = () => conn;
export const nextId = (prefix) => conn.nextId(prefix);
export const send = (msg) => conn.send(msg);

/** Send one action for the seat on screen; one at a time (the page is "pending" until drawn). */
export function sendAction(action) {
  if (U.pending) return;
  const seat = bottomSeat();
  const msg = { type: "action", id: conn.nextId("a"), version: S.version, action };
  if (S.held.length > 1) msg.seat = seat;
  if (conn.send(msg)) {
    U.pending = true;
    $("table-app").classList.add("pending");
    U.raised.clear();
  } else {
    toast(t("net.offline"));
  }
}

/** Claim every remaining trick for the seat on screen (RULES.md §15): pending like an action. */
export function sendClaim() {
  if (U.pending) return;
  const msg = { type: "claim", id: conn.nextId("c"), version: S.version };
  if (S.held.length > 1) msg.seat = bottomSeat();
  if (conn.send(msg)) {
    U.pending = true;
    $("table-app").classList.add("pending");
    U.raised.clear();
  } else {
    toast(t("net.offline"));
  }
}

export function sendConsent(kind) {
  conn.send({ type: "consent", id: conn.nextId("k"), kind });
}

export function playCard(card, beloteCall) {
  const action = { type: "play", card };
  if (beloteCall) action.belote = true;
  sendAction(action);
}

export function clearPending() {
  U.pending = false;
  $("table-app").classList.remove("pending");
}

// @ts-check
// The table's UI state: what this page alone knows (raised cards, the open declaration step,
// the chosen coinche value, a move in flight, which summaries were seen), and what tapping a
// card does now. The server never sees any of it.
import { S, legal } from "./table-state.js";

export const U = {
  revealed: null, // local games: the seat that said "show my cards"
  raised: new Set(),
  declStep: true, // manual declarations: the "raise and call" step is open
  coincheValue: null,
  pending: false, // an action was sent and its update is not drawn yet
  dealSeen: null, // number of results already summarised
  matchDismissed: false,
  refused: null, // a card sent though it may not be played: the engine's answer says why
  turn: null, // the decision asked of the player now: focus and sound follow its changes
  finalTrick: null, // the last trick of the deal just scored ("Last trick" shows it until the next one)
  holding: false, // the deal's final trick is on show: its summary (or the match's end) waits
};

/** The last trick "Last trick" shows: this deal's, else the final one of the deal before. */
export const lastTrick = () => (S.view && S.view.last_trick) || U.finalTrick;

/** What tapping a card in the hand does now: "play", "raise", "discard" or "idle". (The bela
 * seven exchange is a button, or the seven dragged onto the deck: a tap plays the card.) */
export function handMode() {
  const acts = legal();
  if (!acts.length) return "idle";
  const types = new Set(acts.map((a) => a.type));
  if (types.has("discard")) return "discard";
  if (types.has("declare") && U.declStep) return "raise";
  if (types.has("play")) return "play";
  return "idle";
}

/** The prompt's key (prompt.<key>) for the seat on screen. */
export function promptKey() {
  const types = new Set(legal().map((a) => a.type));
  if (S.view.phase === "bidding") return "bid";
  if (types.has("discard")) return "discard";
  if (types.has("exchange")) return "exchange";
  if (types.has("declare") && U.declStep) return "declare";
  return "play";
}

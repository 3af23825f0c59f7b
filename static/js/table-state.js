// @ts-check
// The table's server state: what the server last said (docs/protocol.md), merged from `state`
// and `update` messages, and the questions the rest of the page asks of it. Nothing here
// touches the DOM. The views are typed from the published schema (protocol-types.js), so
// `tsc -p static/js` refuses a field no view has.

/** @typedef {import("./protocol-types.js").TableView} TableView */
/** @typedef {import("./protocol-types.js").RoomModel} RoomModel */

/**
 * @typedef {Object} TableState
 * @property {number | null} version
 * @property {"seat" | "spectator" | null} role
 * @property {Array<number>} held
 * @property {TableView | null} view
 * @property {Object<string, TableView>} views
 * @property {RoomModel | null} room
 * @property {number | null} shown
 * @property {string} status
 * @property {number} skew
 * @property {number | null} pausedAt
 */

/** @type {TableState} */
export const S = {
  version: null,
  role: null,
  held: [], // the seats this browser holds (several in a local game)
  view: null, // the view on screen
  views: {}, // local games: every held seat's view, by seat
  room: null,
  shown: null, // local games: the seat whose view is on screen
  status: "connecting", // the connection: "connecting", "open", ...
  skew: 0, // the server's clock minus this browser's (ms), from the room's `now`
  pausedAt: null, // this browser's clock when its connection went down (the clocks freeze)
};

/** The time on the server's clock (epoch ms), which the room's deadlines are on: a browser
 * whose own clock is wrong still shows the right time left. */
export function serverNow() {
  return Date.now() + S.skew;
}

function learnSkew(room) {
  if (room && typeof room.now === "number") S.skew = room.now - Date.now();
  if (S.status === "open") S.pausedAt = null; // the true deadlines are in: the clocks run again
}

/** A whole `state` message: version, role, seats, room and views. */
export function applyState(msg) {
  S.version = msg.version;
  S.role = msg.role;
  S.held = msg.seats_you_hold || [];
  if (msg.room) {
    S.room = msg.room;
    learnSkew(msg.room);
  }
  setViews(msg.view, msg.views);
}

/** A `room` message: seats, presence, consent, mode. */
export function applyRoom(room) {
  S.room = room;
  learnSkew(room);
}

/** The connection's status from net.js. */
export function applyStatus(status) {
  S.status = status === "open" ? "open" : status;
  // While the server cannot be reached its clocks stop for us: the ring shows the time left
  // when the connection went down, until the room after the reconnection gives the true one.
  if (S.status !== "open" && S.pausedAt === null) S.pausedAt = Date.now();
}

/** The time the clocks are drawn at: the server's now, frozen while the connection is down. */
export function clockNow() {
  return (S.pausedAt ?? Date.now()) + S.skew;
}

/** An `update`: "applied", "gap" (a version was missed: ask to resume) or "old" (ignore it). */
export function applyUpdate(msg) {
  if (S.version !== null && msg.version !== S.version + 1) return msg.version > S.version + 1 ? "gap" : "old";
  S.version = msg.version;
  setViews(msg.view, msg.views, true);
  return "applied";
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
    // a claim being played out: the device stays with the claimer (no other hand is shown
    // before its cards are played, RULES.md §15), else it goes to the seat to act
    const actor = v.claim ? v.claim.seat : v.to_act;
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

// ----------------------------------------------------------------------------- questions

/** @returns {TableView} the view on screen (null before the first one) */
export const view = () => S.view;
export const nPlayers = () => (S.view ? S.view.players : 4);
export const isLocal = () => S.held.length > 1;
export const isSpectator = () => S.role === "spectator";
export const isMine = (seat) => S.held.includes(seat);
export const roomSeat = (seat) => (S.room && S.room.seats ? S.room.seats.find((s) => s.seat === seat) : null);

/** The seat drawn at the bottom. */
export function bottomSeat() {
  if (S.shown !== null && S.shown !== undefined) return S.shown;
  if (S.held.length) return S.held[0];
  return 0;
}

/** 0 bottom, then counter-clockwise: the next seat in turn order sits on the right. */
export function position(seat) {
  const n = nPlayers();
  const r = (seat - bottomSeat() + n) % n;
  if (n === 4) return ["bottom", "right", "top", "left"][r];
  if (n === 3) return ["bottom", "right", "left"][r];
  return ["bottom", "top"][r];
}

/** The sides that score: three players each for themselves, otherwise two. */
export const scoringSides = () => [...Array(S.view ? S.view.traits.scoring_sides : 2).keys()];

export function actorSeat() {
  const v = view();
  return v ? v.to_act : null;
}

/** Whether the room is paused (friends games wait for a human to reconnect): nothing can be played. */
export const isPaused = () => Boolean(S.room && S.room.paused);

/** The legal actions of the seat on screen (empty when it is not that seat's turn, and while
 * the room is paused or a claim is played out: the server refuses actions then). */
export function legal() {
  const v = view();
  if (isPaused() || (v && v.claim)) return [];
  return (v && v.legal) || [];
}

/** Whether the seat on screen may claim every remaining trick now (RULES.md §15). */
export const canClaim = () => {
  const v = view();
  return Boolean(v && v.can_claim && !isPaused() && S.role !== "spectator");
};

/** The cards the seat on screen may play now, and those that may be played with a belote call.
 * The second card of an announced pair may carry the call too (RULES.md §14), but it changes
 * nothing: the page plays it without asking, and the rebelote is announced all the same. */
export function legalPlays() {
  const v = view();
  const plays = legal().filter((a) => a.type === "play");
  const open = new Set(/** @type {Array<string>} */ (((v && v.belote) || []).filter((b) => b.seat === v.seat && b.stage === "belote").map((b) => b.suit)));
  return {
    playable: new Set(plays.map((a) => a.card)),
    belote: new Set(plays.filter((a) => a.belote && !open.has(a.card[1])).map((a) => a.card)),
  };
}

/** Whether the seat on screen may act although another seat is to act: bela for two, the
 * seven's holder may exchange it while the leader thinks, before the first card (RULES.md §14).
 * The view's `legal` then holds only that exchange. */
export function outOfTurn() {
  const v = view();
  return Boolean(v && legal().length && v.to_act !== v.seat);
}

/** The card an exchange would give (bela: the trump seven), or null. */
export function exchangeCard() {
  const a = legal().find((x) => x.type === "exchange");
  return a ? a.card : null;
}

/** The wait before the next deal, when the server holds it for the players' "Continue":
 * `{ waiting_for: [seat, ...], deadline: epoch-ms | null }`, or null (the next deal comes at
 * once, or the duel's consent in `room.consent` is used). */
export function nextDeal() {
  const nd = (S.room && S.room.next_deal) || null;
  return nd && Array.isArray(nd.waiting_for) ? nd : null;
}

/** Whether the match or deal is over (no one is to act). */
export const isOver = (v = view()) => v.phase === "deal_over" || v.phase === "match_over";

// @ts-check
// A live table (docs/protocol.md, "Live tables"): the decision clock around the seat whose
// decision it is, the computer standing in for a player (its badge, the others' "Let the
// computer play for X", the player's "I'm back"), leaving the table, the per-browser
// settings the server needs (forced cards), and who played a move that its player did not
// (`by`: "stand_in" or "auto").
import { toast, toastNextPage } from "./common.js";
import { has, t } from "./i18n.js";
import { setting, setSetting, onSettingChange } from "./settings.js";
import { play as playSound } from "./sound.js";
import { $, button, openDialog } from "./table-dom.js";
import { seatName } from "./table-names.js";
import { connection, nextId, send } from "./table-send.js";
import { S, clockNow, isSpectator, roomSeat, serverNow } from "./table-state.js";

// The clock turns red (and sounds once for its player) in its last seconds.
const LOW_MS = 5000;
const TICK_MS = 200;

// ----------------------------------------------------------------------------- settings

/** Tell the server this connection's settings: on every connect, and when one changes. */
export function sendSettings() {
  // hidden: while the page is hidden, the server may send a "your turn" notification (push.js)
  send({ type: "settings", auto_play: setting("autoPlay"), hidden: document.visibilityState === "hidden" });
}

document.addEventListener("visibilitychange", sendSettings);

onSettingChange((name) => {
  if (name === "autoPlay") sendSettings();
});

// ----------------------------------------------------------------------------- acknowledgements

const waiting = new Map(); // message id -> { ok, fail }

/** Send `msg` with an id; `ok()` runs on its ack, `fail(error)` on its error. */
function request(msg, prefix, ok, fail) {
  const id = nextId(prefix);
  if (!connection().send({ ...msg, id })) {
    toast(t("net.offline"));
    return;
  }
  waiting.set(id, { ok, fail });
}

/** The table's `ack` and `error` messages: true when one answered a request of this module. */
export function answer(msg) {
  const entry = msg.id ? waiting.get(msg.id) : null;
  if (!entry) return false;
  waiting.delete(msg.id);
  if (msg.type === "ack") entry.ok?.();
  else entry.fail?.(msg);
  return true;
}

function errorText(msg) {
  return has(`error.${msg.code}`) ? t(`error.${msg.code}`) : msg.message;
}

// ----------------------------------------------------------------------------- who holds a seat

/** The room's live fields of a seat (all absent on a server or table without them). */
function live(seat) {
  const info = roomSeat(seat) || /** @type {Partial<import("./protocol-types.js").SeatModel>} */ ({});
  return {
    human: info.kind === "human",
    connected: Boolean(info.connected),
    deadline: typeof info.deadline === "number" ? info.deadline : null,
    standIn: info.stand_in || null,
    awaySince: typeof info.away_since === "number" ? info.away_since : null,
    votes: Array.isArray(info.stand_in_votes) ? info.stand_in_votes : [],
  };
}

const settings = () => (S.room && S.room.settings) || /** @type {Partial<import("./protocol-types.js").TableSettingsModel>} */ ({});

/** The seats this browser holds that the computer is playing for. */
export const mineStoodIn = () => S.held.filter((seat) => live(seat).standIn);

/** Whether `seat` has been away long enough that the others may hand it to the computer. */
function awayLongEnough(seat, now = serverNow()) {
  const s = live(seat);
  if (!s.human || s.connected || s.standIn || s.awaySince === null) return false;
  const away = Number(settings().away_seconds || 120) * 1000;
  return now - s.awaySince >= away;
}

/** The seats this browser may vote on now: away long enough, not its own. */
function votable(now = serverNow()) {
  const room = S.room;
  if (!room || room.mode !== "friends" || room.status !== "playing" || isSpectator() || !S.held.length) return [];
  return (room.seats || []).map((s) => s.seat).filter((seat) => !S.held.includes(seat) && awayLongEnough(seat, now));
}

// ----------------------------------------------------------------------------- the seats

/** A seat's plate gains the clock's ring and the stand-in's badge. */
export function decorateSeat(el, seat) {
  const s = live(seat);
  const plate = el.querySelector(".seat-plate");
  if (!plate) return;
  if (s.standIn) {
    el.dataset.standIn = s.standIn;
    const badge = document.createElement("span");
    badge.className = "badge stand-in";
    badge.textContent = t("live.stand_in.badge");
    badge.title = t(s.standIn === "left" ? "live.stand_in.left" : "live.stand_in.badge");
    (plate.querySelector(".seat-badges") || plate).append(badge);
  }
  if (s.deadline !== null) {
    el.dataset.clock = "running";
    plate.classList.add("clocked");
    const ring = document.createElement("span");
    ring.className = "clock-ring";
    ring.setAttribute("aria-hidden", "true");
    plate.append(ring);
    const secs = document.createElement("span");
    secs.className = "clock-secs";
    plate.querySelector(".seat-name")?.after(secs);
    drawClock(el, s.deadline);
  }
  ensureTicking();
}

/** The clock's length, in ms: the room's, or what was left when this deadline was first seen
 * (after a restart a clock may run longer than its length: the grace). */
const firstSeen = new Map(); // deadline -> ms left when first drawn
function clockLength(deadline, left) {
  if (!firstSeen.has(deadline)) {
    firstSeen.set(deadline, left);
    if (firstSeen.size > 64) firstSeen.delete(firstSeen.keys().next().value);
  }
  const seconds = Number((S.room && S.room.clock_seconds) || 0);
  return Math.max(seconds * 1000, firstSeen.get(deadline), 1);
}

function drawClock(el, deadline, now = clockNow()) {
  const left = Math.max(0, deadline - now);
  const frac = Math.min(1, left / clockLength(deadline, left));
  const low = left <= LOW_MS;
  el.classList.toggle("clock-low", low);
  const plate = el.querySelector(".seat-plate");
  plate.style.setProperty("--clock", frac.toFixed(4));
  const secs = el.querySelector(".clock-secs");
  const n = Math.ceil(left / 1000);
  if (secs && secs.textContent !== String(n)) {
    secs.textContent = String(n);
    secs.title = t("live.clock.left", { n });
  }
  return left;
}

// ----------------------------------------------------------------------------- ticking

let ticker = null;
let alarmed = null; // the deadline whose 5-second alarm sounded
let lastVotable = "";

function ensureTicking() {
  if (ticker) return;
  ticker = setInterval(tick, TICK_MS);
}

/** Draw every running clock now: when the connection goes down the clocks stop at once, and
 * the seconds shown are those of that moment, not of the last tick before it. */
export function redrawClocks() {
  if (document.querySelector("#seats .seat[data-clock=running]")) tick();
}

function tick() {
  const now = clockNow();
  let running = false;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#seats .seat[data-clock=running]"))) {
    const seat = Number(el.dataset.seat);
    const { deadline } = live(seat);
    if (deadline === null) continue;
    running = true;
    const left = drawClock(el, deadline, now);
    if (S.held.includes(seat) && left <= LOW_MS && left > 0 && alarmed !== deadline) {
      alarmed = deadline;
      playSound("alarm");
    }
  }
  updateTurnClock(now);
  // someone's away time ran out: offer the vote
  const key = votable().join(",");
  if (key !== lastVotable) {
    lastVotable = key;
    renderLiveBanner();
  }
  const away = (S.room && S.room.seats ? S.room.seats : []).some((s) => s.away_since && !s.stand_in);
  if (!running && !away) {
    clearInterval(ticker);
    ticker = null;
  }
}

/** The seconds left for the player's own decision, in the turn line. */
export function updateTurnClock(now = clockNow()) {
  const line = document.querySelector("#controls .turn-line");
  if (!line) return;
  const mine = S.held.map((seat) => live(seat).deadline).find((d) => d !== null);
  let el = line.querySelector(".turn-clock");
  if (mine === undefined || mine === null) {
    el?.remove();
    return;
  }
  if (!el) {
    el = document.createElement("span");
    el.className = "turn-clock";
    line.append(" ", el);
  }
  const left = Math.max(0, mine - now);
  el.classList.toggle("low", left <= LOW_MS);
  el.textContent = t("live.clock.left", { n: Math.ceil(left / 1000) });
  ensureTicking();
}

// ----------------------------------------------------------------------------- the banner

/**
 * What the banner says about the computer standing in, with its buttons; false when it has
 * nothing to say (the banner then says what it said before).
 */
export function renderLiveBanner() {
  const box = $("live-notice");
  if (!box) return false;
  box.replaceChildren();
  const room = S.room;
  if (!room || S.status !== "open") {
    box.hidden = true;
    return false;
  }
  const mine = mineStoodIn();
  if (mine.length && !isSpectator()) {
    // the player is back: the computer plays for them until they act or say so
    box.dataset.kind = "stood-in";
    const p = document.createElement("span");
    p.className = "live-text";
    p.textContent = t("live.back.text");
    box.append(p, button(t("live.back.button"), sendBack, { cls: "btn primary", name: "back" }));
    box.hidden = false;
    return true;
  }
  const seats = votable();
  if (seats.length) {
    box.dataset.kind = "vote";
    for (const seat of seats) {
      const row = document.createElement("span");
      row.className = "live-vote";
      row.dataset.seat = String(seat);
      const { votes } = live(seat);
      const agreed = S.held.some((s) => votes.includes(s));
      const text = document.createElement("span");
      text.className = "live-text";
      text.textContent = t("live.away.text", { name: seatName(seat) });
      row.append(text);
      const b = button(t("live.vote.button", { name: seatName(seat) }), () => sendVote(seat), {
        cls: "btn primary",
        name: `stand-in-${seat}`,
        disabled: agreed,
      });
      row.append(b);
      if (votes.length) {
        const who = document.createElement("span");
        who.className = "live-votes muted small";
        who.textContent = t("live.vote.agreed", { names: votes.map(seatName).join(", ") });
        row.append(who);
      }
      box.append(row);
    }
    box.hidden = false;
    return true;
  }
  box.hidden = true;
  return false;
}

function sendVote(seat) {
  request({ type: "stand_in", seat }, "v", null, (msg) => toast(errorText(msg)));
}

function sendBack() {
  request({ type: "back" }, "b", () => toast(t("live.back.done")), (msg) => toast(errorText(msg)));
}

// ----------------------------------------------------------------------------- leaving

/** "Leave the table": a dialog says what it means; leaving sends `leave`. */
export function installLeave() {
  $("btn-leave").addEventListener("click", () => openDialog("dlg-leave"));
  $("leave-go").addEventListener("click", () => {
    request(
      { type: "leave" },
      "l",
      () => {
        $("dlg-leave").close();
        toastNextPage(t("leave.done")); // said on the home page, where the player lands
        connection().close();
        location.assign("/");
      },
      (msg) => {
        $("dlg-leave").close();
        toast(errorText(msg));
      },
    );
  });
}

// ----------------------------------------------------------------------------- who played

// The moves of this deal that their player did not make: "seat:card" -> by, and per seat its
// last bid's by. Learnt from the events (a page opened later knows only what it saw).
const byPlays = new Map();
const byBids = new Map();
/** The moves this page saw, with who made them: `{type, seat, card, by}` (`by` null when the
 * seat's player did; for tests and debugging: read-only). */
export const moves = [];
const MOVES = new Set(["bid", "card_played", "exchanged", "exchange_declined", "discarded", "declared"]);

// "Play forced cards for me" is on by default (the last trick plays itself, a single legal
// card goes at once): the first time it plays a card for this browser, a notice says so and
// offers to turn it off in one tap, so that no card leaves the hand unexplained.
const AUTO_EXPLAINED = "atout.autoPlayExplained";

function autoExplained() {
  try {
    return localStorage.getItem(AUTO_EXPLAINED) === "1";
  } catch {
    return true; // storage blocked: nothing to remember the notice by, so none
  }
}

function closeAutoNotice(turnOff) {
  try {
    localStorage.setItem(AUTO_EXPLAINED, "1");
  } catch {
    /* shown again on the next page */
  }
  $("auto-notice")?.remove();
  if (turnOff) {
    setSetting("autoPlay", false);
    toast(t("auto.turned_off"));
  }
}

function explainAutoPlay() {
  if ($("auto-notice") || autoExplained() || !setting("autoPlay")) return;
  const box = document.createElement("div");
  box.className = "banner live-notice auto-notice";
  box.id = "auto-notice";
  box.setAttribute("role", "status");
  const text = document.createElement("span");
  text.className = "live-text";
  text.textContent = t("auto.explain");
  box.append(
    text,
    button(t("auto.turn_off"), () => closeAutoNotice(true), { cls: "btn", name: "auto-off" }),
    button(t("auto.keep"), () => closeAutoNotice(false), { cls: "btn primary", name: "auto-keep" }),
  );
  const banners = document.querySelector(".banners");
  if (banners) banners.append(box);
}

/** Learn from an update's events who played what. */
export function noteBy(events) {
  for (const e of events) {
    if (e.type === "card_played" && e.by === "auto" && S.held.includes(e.seat)) explainAutoPlay();
    if (MOVES.has(e.type) && moves.length < 2000) moves.push({ type: e.type, seat: e.seat, card: e.card || null, by: e.by || null });
    if (e.type === "deal_started") {
      byPlays.clear();
      byBids.clear();
    } else if (e.type === "card_played") {
      if (e.by) byPlays.set(`${e.seat}:${e.card}`, e.by);
    } else if (e.type === "bid") {
      if (e.by) byBids.set(e.seat, e.by);
      else byBids.delete(e.seat);
    }
  }
}

/** Learn who played what in this deal from a `state` message's `moves_by` (a page opened or
 * reloaded mid-deal saw none of its events). */
export function learnBy(movesBy) {
  byPlays.clear();
  byBids.clear();
  for (const e of movesBy || []) {
    if (e.type === "card_played") byPlays.set(`${e.seat}:${e.card}`, e.by);
    else if (e.type === "bid") byBids.set(e.seat, e.by);
  }
}

/** Who played a card for its seat ("stand_in", "auto", "claim") or null. */
export const playedBy = (seat, card) => byPlays.get(`${seat}:${card}`) || null;
export const bidBy = (seat) => byBids.get(seat) || null;

/** A small tag that says who played a move: "computer" or "auto". */
export function byTag(by) {
  const tag = document.createElement("span");
  tag.className = `by-tag by-${by}`;
  tag.dataset.by = by;
  tag.textContent = t(`live.by.${by}`);
  tag.title = t(`live.by.${by}.long`);
  return tag;
}

/** The words for an announcement of a move played for its seat. */
export const byWords = (by) => (by ? ` (${t(`live.by.${by}.long`)})` : "");

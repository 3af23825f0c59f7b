// Friends tables, in the waiting room: the host puts a computer player of a chosen level on a
// free seat (or changes its level, or takes it off again), and a guest or a spectator moves to a
// free seat.
//
// What goes over the socket (one function per message, so the wire shape lives in one place):
//   {"type": "seat_bot", "seat": n, "level": "easy" | "medium" | "hard"}   host only
//   {"type": "free_seat", "seat": n}                                        host only
//   {"type": "take_seat", "seat": n}                                        anyone else
// What is read: room.status ("waiting"), room.mode ("friends"), room.host, room.level, and per
// seat of room.seats: seat, kind ("human" | "bot"), taken, level. The server answers with a
// `room` message (the new seats; a `state` for a player who moved) or an `error`, which the
// table shows as for any other message.
import { escapeHTML } from "./common.js";
import { t } from "./i18n.js";

export const LEVELS = ["easy", "medium", "hard"];

export function sendSeatBot(conn, seat, level) {
  return conn.send({ type: "seat_bot", seat, level });
}

export function sendFreeSeat(conn, seat) {
  return conn.send({ type: "free_seat", seat });
}

export function sendTakeSeat(conn, seat) {
  return conn.send({ type: "take_seat", seat });
}

/** The level the host picked for a free seat, kept across re-renders: a `room` message that
 * arrives while the host is choosing (a guest sat down) must not reset the choice. */
const picked = new Map();

/** A free seat of a waiting friends table: nobody holds it and no computer plays it. */
const isFree = (s) => s.kind === "human" && !s.taken;

function levelSelect(seat, level, onChange = null) {
  const id = `seat-level-${seat}`;
  const wrap = document.createElement("span");
  wrap.innerHTML =
    `<label class="visually-hidden" for="${id}">${escapeHTML(t("seat.bot_level"))}</label>` +
    `<select id="${id}" class="seat-level" data-seat="${seat}">${LEVELS.map(
      (lv) => `<option value="${lv}"${lv === level ? " selected" : ""}>${escapeHTML(t(`level.${lv}`))}</option>`,
    ).join("")}</select>`;
  if (onChange) wrap.querySelector("select").addEventListener("change", (e) => onChange(e.target.value));
  return wrap;
}

function smallButton(label, action, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "btn small-btn";
  b.dataset.action = action;
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

/**
 * The controls of one seat in the waiting room (an element, or null when there is nothing to
 * do there). The host: on a free seat, a level and "Add a computer player"; on a computer
 * player's seat, its level and "Remove". Anyone else: "Sit here" on a free seat.
 * `conn` is the table's connection; `onSend(sent)` runs after a message was handed to it.
 */
export function seatControls(room, seat, { conn, onSend = () => {} }) {
  if (!room || room.status !== "waiting" || room.mode !== "friends") return null;
  const box = document.createElement("span");
  box.className = "seat-controls";
  box.dataset.seat = seat.seat;
  if (room.host && isFree(seat)) {
    const level = picked.get(seat.seat) || (LEVELS.includes(room.level) ? room.level : "medium");
    const select = levelSelect(seat.seat, level, (lv) => picked.set(seat.seat, lv));
    box.append(select);
    box.append(
      smallButton(t("seat.add_bot"), `seat-bot-${seat.seat}`, () => onSend(sendSeatBot(conn, seat.seat, select.querySelector("select").value))),
    );
    return box;
  }
  if (room.host && seat.kind === "bot") {
    box.append(levelSelect(seat.seat, LEVELS.includes(seat.level) ? seat.level : "medium", (level) => onSend(sendSeatBot(conn, seat.seat, level))));
    box.append(smallButton(t("seat.remove_bot"), `free-seat-${seat.seat}`, () => onSend(sendFreeSeat(conn, seat.seat))));
    return box;
  }
  if (!room.host && isFree(seat)) {
    box.append(smallButton(t("seat.take"), `take-seat-${seat.seat}`, () => onSend(sendTakeSeat(conn, seat.seat))));
    return box;
  }
  return null;
}

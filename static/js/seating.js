// Friends tables, in the waiting room: the host fills an empty seat with a computer player of a
// chosen level, and a guest moves to another free seat.
//
// What goes over the socket (one function per message, so the wire shape lives in one place):
//   {"type": "seat_bot", "seat": n, "level": "easy" | "medium" | "hard"}   host only
//   {"type": "take_seat", "seat": n}                                        a seated guest
// What is read: room.status ("waiting"), room.host, room.level, and per seat of room.seats:
// seat, kind ("human" | "bot"), taken, you. The server answers with a `room` message (the new
// seats) or an `error`, which the table shows as for any other message.
import { escapeHTML } from "./common.js";
import { t } from "./i18n.js";

export const LEVELS = ["easy", "medium", "hard"];

export function sendSeatBot(conn, seat, level) {
  return conn.send({ type: "seat_bot", seat, level });
}

export function sendTakeSeat(conn, seat) {
  return conn.send({ type: "take_seat", seat });
}

/** A free seat of a waiting friends table: nobody holds it and no computer plays it. */
const isFree = (s) => s.kind === "human" && !s.taken;

/**
 * The controls of one seat in the waiting room (an element, or null when there is nothing to
 * do there): for the host, "Add a computer player" with its level; for a guest, "Sit here".
 * `conn` is the table's connection; `onSend(ok)` runs after a message was handed to it.
 */
export function seatControls(room, seat, { conn, onSend = () => {} }) {
  if (!room || room.status !== "waiting" || room.mode !== "friends" || !isFree(seat)) return null;
  const mine = (room.seats || []).filter((s) => s.you);
  const box = document.createElement("span");
  box.className = "seat-controls";
  box.dataset.seat = seat.seat;
  if (room.host) {
    const id = `seat-level-${seat.seat}`;
    const level = LEVELS.includes(room.level) ? room.level : "medium";
    box.innerHTML =
      `<label class="visually-hidden" for="${id}">${escapeHTML(t("seat.bot_level"))}</label>` +
      `<select id="${id}" class="seat-level" data-seat="${seat.seat}">${LEVELS.map(
        (lv) => `<option value="${lv}"${lv === level ? " selected" : ""}>${escapeHTML(t(`level.${lv}`))}</option>`,
      ).join("")}</select>`;
    const add = document.createElement("button");
    add.type = "button";
    add.className = "btn small-btn";
    add.dataset.action = `seat-bot-${seat.seat}`;
    add.textContent = t("seat.add_bot");
    add.addEventListener("click", () => {
      const chosen = box.querySelector("select").value;
      onSend(sendSeatBot(conn, seat.seat, chosen));
    });
    box.append(add);
    return box;
  }
  if (mine.length === 1) {
    const take = document.createElement("button");
    take.type = "button";
    take.className = "btn small-btn";
    take.dataset.action = `take-seat-${seat.seat}`;
    take.textContent = t("seat.take");
    take.addEventListener("click", () => onSend(sendTakeSeat(conn, seat.seat)));
    box.append(take);
    return box;
  }
  return null;
}

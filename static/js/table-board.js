// @ts-check
// A tournament board's table (docs/tournaments.md): the game is one deal. A line in the
// banners' row names the board and links back to the event; once the deal is over it says so
// and offers the entrant's next board, when the event has one for them. At a live event's
// table (a Swiss for pairs) the next board is dealt when every table has finished this one:
// the line says so, and the page follows the player to the next board's table by itself
// (the event's socket, /ws/tournaments/{id}, says when it is dealt).
import { api } from "./common.js";
import { t } from "./i18n.js";
import { S, view } from "./table-state.js";
import { watchEvent } from "./tournament-socket.js";

const NEXT = { asked: false, board: null, live: "", url: "" };
const FOLLOW_SECONDS = 5; // a live event's next board: the page goes there after this long

/** A live event: wait on its socket for this player's next board, and go to its table. */
function followLive(eventId) {
  const here = S.room && S.room.game_id;
  const watch = watchEvent(eventId, (data) => {
    const you = data.you;
    if (you && you.game_id && you.game_id !== here && !you.board_over) {
      if (!NEXT.url) {
        NEXT.url = you.url;
        NEXT.board = you.board;
        NEXT.live = "dealt";
        renderBoardLink();
        watch.stop();
        setTimeout(() => window.location.assign(NEXT.url), FOLLOW_SECONDS * 1000);
      }
      return;
    }
    const round = data.round;
    NEXT.live = data.event.phase === "finished" || (round && round.finished) ? "round_over" : "waiting";
    renderBoardLink();
  });
}

export function renderBoardLink() {
  const board = S.room && S.room.settings && S.room.settings.board;
  let line = document.getElementById("board-link");
  if (!board) {
    if (line) line.remove();
    return;
  }
  const app = document.getElementById("table-app");
  app.dataset.board = String(board.board);
  if (!line) {
    line = document.createElement("p");
    line.id = "board-link";
    line.className = "board-link";
    // in the banners' row of the table's grid, above the banners
    app.querySelector(".banners").prepend(line);
  }
  const v = view();
  const over = !!v && (v.phase === "deal_over" || v.phase === "match_over");
  line.dataset.over = over ? "yes" : "no";
  let text = over ? t("tour.board_over", { n: board.board }) : t("tour.board_line", { n: board.board });
  if (over && NEXT.live === "waiting") text += ` ${t("swiss.wait_tables")}`;
  const event = encodeURIComponent(board.event);
  line.replaceChildren(document.createTextNode(`${text} `));
  const back = document.createElement("a");
  back.href = `/t/${event}`;
  back.className = over && !NEXT.board ? "btn primary small-btn" : "";
  back.textContent = t("tour.back");
  line.append(back);
  if (over && NEXT.board) {
    const next = document.createElement("button");
    next.type = "button";
    next.id = "next-board";
    next.className = "btn primary small-btn";
    next.textContent = t("tour.play_board", { n: NEXT.board });
    next.addEventListener("click", async () => {
      next.disabled = true;
      if (NEXT.url) {
        window.location.assign(NEXT.url); // a live event's next board, already dealt
        return;
      }
      try {
        const data = await api(`/api/tournaments/${event}/boards/${NEXT.board}/play`, { method: "POST" });
        window.location.assign(data.url);
      } catch {
        window.location.assign(`/t/${event}`);
      }
    });
    line.append(" ", next);
  }
  if (over && !NEXT.asked && S.role === "seat") {
    NEXT.asked = true; // once: the event says whether this entrant has a board to play next
    api(`/api/tournaments/${event}`)
      .then((data) => {
        const you = data.you;
        if (data.event.kind === "swiss") {
          NEXT.live = "waiting";
          renderBoardLink();
          followLive(event);
          return;
        }
        if (data.event.phase === "running" && you && you.next_board) {
          NEXT.board = you.next_board;
          renderBoardLink();
        }
      })
      .catch(() => {});
  }
}

// @ts-check
// A tournament board's table (docs/tournaments.md): the game is one deal. A line in the
// banners' row names the board and links back to the event; once the deal is over it says so
// and offers the entrant's next board, when the event has one for them.
import { api } from "./common.js";
import { t } from "./i18n.js";
import { S, view } from "./table-state.js";

const NEXT = { asked: false, board: null };

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
  const text = over ? t("tour.board_over", { n: board.board }) : t("tour.board_line", { n: board.board });
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
        if (data.event.phase === "running" && you && you.next_board) {
          NEXT.board = you.next_board;
          renderBoardLink();
        }
      })
      .catch(() => {});
  }
}

// A tournament board's table (docs/tournaments.md): the game is one deal. A line in the
// banners' row names the board and links back to the event, and once the deal is over it says so.
import { t } from "./i18n.js";
import { S, view } from "./table-state.js";

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
  const href = `/t/${encodeURIComponent(board.event)}`;
  line.replaceChildren(document.createTextNode(`${text} `));
  const a = document.createElement("a");
  a.href = href;
  a.className = over ? "btn primary small-btn" : "";
  a.textContent = t("tour.back");
  line.append(a);
}

// @ts-check
// A live duplicate Swiss event's page (templates/tournament_live.html, docs/tournaments.md):
// registration (alone, as a pair with a partner link, joining through one), the start
// countdown, the current round and its tables, the standings and the pairs, drawn from the
// event's data and drawn again whenever the event's socket (/ws/tournaments/{id}) sends it.
// When the player's next board is dealt, the page takes them to its table.
import { api, toast } from "./common.js";
import { colon, t } from "./i18n.js";
import { watchEvent } from "./tournament-socket.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-page=tournament-live]"));
const page = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("live-data")).textContent || "{}");
const eventId = root.dataset.event || "";
const base = `/api/tournaments/${encodeURIComponent(eventId)}`;
let data = page.data;
const code = page.code;

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} tag @param {string} [cls] @param {string} [text] */
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A pair's names: "Ann & Bob", the house player as "Computer". @param {Array<string|null>} names */
function pairNames(names, pair) {
  if (pair === 0) return t("swiss.house_pair");
  const shown = (names || []).map((n, i) => (n === null ? t("swiss.computer") : n || t("tour.anonymous", { n: `${pair}.${i + 1}` })));
  return `${colon(t("swiss.pair_n", { n: pair }))} ${shown.join(" & ")}`;
}

/** The message of a refused request, in the page's language. @param {any} error */
function refusal(error) {
  const key = `swiss.error.${error.code}`;
  const text = t(key);
  return text === key ? t("tour.action_failed", { message: error.message }) : text;
}

/** @param {HTMLButtonElement} button @param {() => Promise<void>} action */
async function run(button, action) {
  button.disabled = true;
  try {
    await action();
  } catch (error) {
    toast(refusal(error));
  } finally {
    button.disabled = false;
  }
}

/** @param {string} text @param {() => Promise<void>} action @param {string} [cls] */
function actionButton(text, action, cls = "btn primary") {
  const button = /** @type {HTMLButtonElement} */ (el("button", cls, text));
  button.type = "button";
  button.addEventListener("click", () => run(button, action));
  return button;
}

/** After registering (which may have given this browser its identity): the data again, and
 * the socket again, so that it speaks to this player. */
async function refresh() {
  data = await api(base);
  render();
  if (watch) watch.renew();
}

function renderYou() {
  const box = $("live-you");
  box.replaceChildren();
  const e = data.event;
  const you = data.you;
  if (!you) {
    const open = (e.phase === "open" || e.phase === "running") && e.registration;
    if (code && e.phase === "open") {
      box.append(el("p", "", t("swiss.join_title")));
      box.append(
        actionButton(t("swiss.join"), async () => {
          await api(`${base}/join/${encodeURIComponent(code)}`, { method: "POST" });
          history.replaceState(null, "", `/t/${encodeURIComponent(eventId)}`);
          await refresh();
        }),
      );
    } else if (open) {
      const row = el("p", "live-register");
      row.append(
        actionButton(t("swiss.register_link"), async () => {
          await api(`${base}/register`, { method: "POST", body: { partner: "link" } });
          await refresh();
        }),
        " ",
        actionButton(
          t("swiss.register_house"),
          async () => {
            await api(`${base}/register`, { method: "POST", body: { partner: "house" } });
            await refresh();
          },
          "btn",
        ),
      );
      box.append(row);
    } else if (e.phase === "open" || e.phase === "running") {
      box.append(el("p", "muted", t("swiss.registration_closed")));
    }
    renderOrganiser(box);
    return;
  }
  box.append(el("p", "", t("swiss.registered", { n: you.pair })));
  if (you.link) {
    const link = new URL(you.link, window.location.href).href;
    const p = el("p", "partner-link");
    p.append(el("b", "", t("swiss.link_title")), " ");
    const input = /** @type {HTMLInputElement} */ (el("input", "link-input"));
    input.readOnly = true;
    input.value = link;
    input.id = "partner-link";
    input.setAttribute("aria-label", t("swiss.link_title"));
    p.append(input, " ");
    p.append(
      actionButton(
        t("swiss.copy"),
        async () => {
          await navigator.clipboard.writeText(link);
          toast(t("swiss.copied"));
        },
        "btn small-btn",
      ),
    );
    box.append(p, el("p", "muted small", t("swiss.link_note")));
  }
  if (you.table) {
    box.append(el("p", "", t("swiss.your_table", { n: you.table, dir: t(`swiss.dir.${you.direction}`) })));
  }
  if (you.url && !you.board_over) {
    const go = /** @type {HTMLAnchorElement} */ (el("a", "btn primary", t("swiss.go_table")));
    go.href = you.url;
    go.id = "go-table";
    box.append(go);
  } else if (you.url && you.board_over && data.round && !data.round.finished) {
    box.append(el("p", "muted", t("swiss.wait_tables")));
  }
  renderOrganiser(box);
  if (e.phase === "open") {
    const leave = actionButton(
      t("swiss.leave"),
      async () => {
        await api(`${base}/leave`, { method: "POST" });
        await refresh();
      },
      "btn small-btn",
    );
    leave.id = "btn-leave";
    box.append(el("p"), leave);
  }
}

/** The event's creator opens or closes the registration. @param {HTMLElement} box */
function renderOrganiser(box) {
  const e = data.event;
  if (!data.organiser || (e.phase !== "open" && e.phase !== "running")) return;
  const open = !!e.registration;
  const button = actionButton(
    t(open ? "swiss.close_registration" : "swiss.open_registration"),
    async () => {
      await api(`${base}/registration`, { method: "POST", body: { open: !open } });
      await refresh();
    },
    "btn small-btn",
  );
  button.id = "btn-registration";
  box.append(el("p"), button);
}

function renderRound() {
  const panel = $("live-round-panel");
  const r = data.round;
  panel.hidden = !r;
  if (!r) return;
  const e = data.event;
  $("round-title").textContent = r.finished ? t("swiss.round_over", { n: r.round }) : t("swiss.round", { n: r.round, total: e.rounds });
  const index = r.board ? r.boards.indexOf(r.board) + 1 : 0;
  $("round-board").textContent = r.board && !r.finished ? t("swiss.board", { n: index, total: r.boards.length }) : "";
  const list = $("live-tables");
  list.replaceChildren(
    ...r.tables.map((table) => {
      const li = el("li", "live-table");
      li.dataset.table = String(table.table);
      const mine = data.you && (data.you.pair === table.ns || data.you.pair === table.ew);
      if (mine) li.classList.add("you");
      li.append(el("b", "", t("swiss.table", { n: table.table })), " ");
      li.append(el("span", "", t("swiss.vs", { ns: pairNames(table.ns_names, table.ns), ew: pairNames(table.ew_names, table.ew) })), " ");
      li.append(el("span", "muted small", t("swiss.boards_done", { n: table.boards_done, total: r.boards.length })));
      return li;
    }),
  );
}

function renderStandings() {
  const box = $("live-standings");
  box.replaceChildren();
  if (!data.standings.length) {
    box.append(el("p", "muted", t("swiss.standings_later")));
  } else {
    const wrap = el("div", "table-scroll");
    const table = el("table", "stats-table standings-table");
    table.id = "standings";
    const head = el("tr");
    for (const key of ["tour.col.rank", "swiss.col.pair", "swiss.col.vp", "swiss.col.mp"]) {
      const th = el("th", "", t(key));
      th.setAttribute("scope", "col");
      head.append(th);
    }
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    for (const row of data.standings) {
      const tr = el("tr", row.you ? "you" : "");
      tr.dataset.pair = String(row.pair);
      tr.dataset.rank = String(row.rank);
      const name = el("td", "", pairNames(row.names, row.pair));
      if (row.house_partner) name.append(" ", el("span", "chip-tag small", t("swiss.house_partner")));
      if (row.withdrawn) name.append(" ", el("span", "chip-tag small", t("swiss.withdrawn")));
      tr.append(el("td", "", String(row.rank)), name, el("td", "", String(row.vp)), el("td", "", String(row.mp)));
      body.append(tr);
    }
    table.append(thead, body);
    wrap.append(table);
    box.append(wrap);
  }
  const exports = $("live-exports");
  exports.replaceChildren();
  if (data.exports) {
    const csv = /** @type {HTMLAnchorElement} */ (el("a", "", t("tour.export_csv")));
    csv.href = data.exports.csv;
    const zip = /** @type {HTMLAnchorElement} */ (el("a", "", t("tour.export_zip")));
    zip.href = data.exports.archive;
    exports.append(csv, " · ", zip);
  }
}

function renderPairs() {
  $("pairs-count").textContent = `(${data.pairs.length})`;
  $("live-pairs").replaceChildren(
    ...data.pairs.map((p) => {
      const li = el("li", p.you ? "you" : "", pairNames(p.names, p.pair));
      li.dataset.pair = String(p.pair);
      if (p.house_partner) li.append(" ", el("span", "chip-tag small", t("swiss.house_partner")));
      else if (!p.complete) li.append(" ", el("span", "muted small", t("swiss.waiting_partner")));
      if (p.withdrawn_round) li.append(" ", el("span", "chip-tag small", t("swiss.withdrawn")));
      if (p.joined_round > 1) li.append(" ", el("span", "muted small", t("swiss.late", { n: p.joined_round })));
      return li;
    }),
  );
}

function renderBoards() {
  const shown = data.boards.filter((/** @type {any} */ b) => b.revealed);
  $("live-boards-panel").hidden = !shown.length;
  $("live-boards").replaceChildren(
    ...shown.map((/** @type {any} */ b) => {
      const li = el("li");
      const a = /** @type {HTMLAnchorElement} */ (el("a", "traveller-link", t("tour.board_n", { n: b.board })));
      a.href = b.traveller_url;
      li.append(a);
      return li;
    }),
  );
}

function countdown() {
  const node = $("countdown");
  const e = data.event;
  if (e.phase !== "open") {
    node.textContent = "";
    return;
  }
  const left = Math.max(0, Math.round((Date.parse(e.starts_at) - Date.now()) / 1000));
  if (left <= 0) {
    node.textContent = t("swiss.starting");
    return;
  }
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  const time = h ? `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}` : `${m}:${String(s).padStart(2, "0")}`;
  node.textContent = t("swiss.starts_in", { time });
}

/** Take the player to the table of a board just dealt for them (once per board). */
function follow() {
  const you = data.you;
  if (!you || !you.game_id || you.board_over) return;
  const key = `atout.live.followed.${you.game_id}`;
  try {
    if (sessionStorage.getItem(key)) return;
    sessionStorage.setItem(key, "1");
  } catch {
    return;
  }
  window.location.assign(you.url);
}

function render() {
  const phase = data.event.phase;
  root.dataset.phase = phase;
  const chip = $("event-phase");
  chip.textContent = t(`tour.${phase}`);
  chip.className = `chip-tag phase-${phase}`;
  renderYou();
  renderRound();
  renderStandings();
  renderPairs();
  renderBoards();
  countdown();
  /** @type {any} */ (window).atoutLive = data; // for the browser tests
}

/** @type {{ stop: () => void, renew: () => void } | null} */
let watch = null;

/** @param {any} next the event's data, from its socket */
function received(next) {
  const seen = data.you && data.you.game_id;
  data = next;
  render();
  if (data.you && data.you.game_id && data.you.game_id !== seen) follow();
}

render();
setInterval(countdown, 1000);
if (data.event.phase !== "finished" && data.event.phase !== "cancelled") watch = watchEvent(eventId, received);

// The lobby on the home page: public tables with a free seat, live over /ws/lobby
// (docs/protocol.md "The lobby"), "Sit here", "Watch", and quick play ("Play with people").
// Names are always set as text, never as HTML.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const box = document.getElementById("lobby");
const list = document.getElementById("lobby-tables");
const empty = document.getElementById("lobby-empty");
const counts = document.getElementById("lobby-counts");
const quickButton = document.getElementById("quick-play");
const quickVariant = document.getElementById("quick-variant");
const tables = new Map(); // game_id -> LobbyTable
// the home page's variants (app/web/pages.py option_schema): the player counts each is played by
const variants = JSON.parse((document.getElementById("schema") || {}).textContent || "{}");
let socket = null;
let retry = 1000;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function seatLabel(seat) {
  if (seat.kind === "human") return seat.name || t("seat.player", { n: seat.seat + 1 });
  if (seat.kind === "computer") return t("lobby.computer", { level: t(`level.${seat.level}`) });
  return t("lobby.free");
}

function tableNode(table) {
  const li = el("li", "lobby-table");
  li.dataset.game = table.game_id;
  const head = el("div", "lobby-head");
  head.append(el("strong", "", t(`variant.${table.variant}`)));
  const facts = [];
  if ((variants[table.variant] || { players: [] }).players.length > 1) facts.push(t("home.players_n", { n: table.players }));
  if (typeof table.target === "number") facts.push(t("lobby.target", { n: table.target }));
  facts.push(t("lobby.clock", { n: table.clock }));
  facts.push(t(table.rated ? "lobby.rated" : "lobby.unrated"));
  facts.push(t(table.status === "waiting" ? "lobby.waiting" : "lobby.in_play"));
  head.append(el("span", "muted small", " " + facts.join(" · ")));
  li.append(head);
  const seats = el("ul", "lobby-seats");
  for (const seat of table.seats) {
    const item = el("li", `lobby-seat lobby-seat-${seat.kind}`);
    item.append(el("span", "lobby-seat-name", seatLabel(seat)));
    if (seat.xp_level) {
      // the player's level, drawn as at the table (table-seats.js)
      const badge = el("span", "lvl-badge", String(seat.xp_level));
      badge.title = t("level.explain", { n: seat.xp_level });
      badge.setAttribute("aria-label", badge.title);
      item.append(badge);
    }
    if (seat.free) {
      const sit = el("button", "btn small", t("lobby.sit"));
      sit.type = "button";
      sit.dataset.seat = String(seat.seat);
      sit.addEventListener("click", () => sitAt(table, seat.seat, sit));
      item.append(sit);
    }
    seats.append(item);
  }
  li.append(seats);
  if (table.spectators && table.status === "playing") {
    const watch = el("a", "btn small lobby-watch", t("lobby.watch"));
    watch.href = table.url;
    li.append(watch);
  }
  return li;
}

function render() {
  const sorted = [...tables.values()].sort((a, b) => (a.created_at || "").localeCompare(b.created_at || ""));
  list.replaceChildren(...sorted.map(tableNode));
  empty.hidden = sorted.length > 0;
}

function showCounts(online, playing) {
  counts.textContent = `${t("lobby.online", { n: online })} · ${t("lobby.playing", { n: playing })}`;
}

function received(msg) {
  if (msg.type === "lobby") {
    tables.clear();
    for (const table of msg.tables) tables.set(table.game_id, table);
    showCounts(msg.online, msg.playing);
  } else if (msg.type === "lobby_table") {
    tables.set(msg.table.game_id, msg.table);
  } else if (msg.type === "lobby_remove") {
    tables.delete(msg.game_id);
  } else if (msg.type === "lobby_counts") {
    showCounts(msg.online, msg.playing);
    return;
  } else {
    return;
  }
  render();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws/lobby`);
  socket.addEventListener("open", () => {
    retry = 1000;
    box.dataset.live = "true";
  });
  socket.addEventListener("message", (event) => {
    try {
      received(JSON.parse(event.data));
    } catch {
      /* a frame we do not know: ignored */
    }
  });
  socket.addEventListener("close", () => {
    box.dataset.live = "false";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 15000);
  });
}

setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
}, 20000);

async function sitAt(table, seat, button) {
  if (button) button.disabled = true;
  try {
    await api("/api/me", { method: "POST" });
    const out = await api(`/api/games/${encodeURIComponent(table.game_id)}/sit`, { method: "POST", body: { seat } });
    if (out.role === "heir") toast(t("lobby.heir"));
    location.assign(out.url);
  } catch (error) {
    toast(error.code === "seat_taken" ? t("lobby.seat_taken") : t("home.create_failed", { message: error.message }));
    if (button) button.disabled = false;
  }
}

/** "Play with people": the best table with a free seat, else a new public table. */
async function quickPlay() {
  quickButton.disabled = true;
  const variant = quickVariant.value;
  try {
    await api("/api/me", { method: "POST" });
    const found = await api("/api/quickplay", { method: "POST", body: { variant } });
    for (const candidate of found.candidates || []) {
      try {
        const out = await api(`/api/games/${encodeURIComponent(candidate.game_id)}/sit`, { method: "POST", body: {} });
        location.assign(out.url);
        return;
      } catch (error) {
        if (error.code !== "seat_taken") throw error;
      }
    }
    const made = found.created || (await api("/api/quickplay", { method: "POST", body: { variant, create: true } })).created;
    location.assign(made.url);
  } catch (error) {
    toast(t("home.create_failed", { message: error.message }));
    quickButton.disabled = false;
  }
}

if (box) {
  quickButton.addEventListener("click", quickPlay);
  connect();
}

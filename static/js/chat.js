// The table chat of friends games (docs/protocol.md "Table chat"): the panel (a side panel on
// a wide screen, a sheet on a phone), quick phrases and emotes, the unread badge, muting a seat
// (per browser, localStorage) and the host's switches.
//
// Everything a player wrote is put on the page with textContent, never as HTML.
import { has, t } from "./i18n.js";
import { $, app } from "./table-dom.js";
import { S } from "./table-state.js";
import { connection } from "./table-send.js";

/** Emote keys (the wire) and what they show. */
export const EMOTES = { smile: "😊", laugh: "😂", wow: "😮", sad: "😢", heart: "❤️", thumbs_up: "👍" };

const ID_PREFIX = "m";
const NOTE_MS = 4000;
const MUTE_KEY = `atout.chat.muted.${app.dataset.gameId}`;

const C = {
  lines: [], // ChatLine, oldest first (the server keeps the last 100)
  open: false,
  unread: 0,
  noteTimer: null,
  note: null, // a passing note (an error), over the standing one
  sending: null, // {id, text}: the text line on its way; the input is emptied once it is stored
};

/** Whether a message id is one of the chat's (their acks and errors are the chat's own). */
export const isChatId = (id) => typeof id === "string" && id.startsWith(`${ID_PREFIX}-`);

// ----------------------------------------------------------------------------- mute

function mutedSet() {
  try {
    const value = JSON.parse(localStorage.getItem(MUTE_KEY) || "[]");
    return new Set(Array.isArray(value) ? value.map(String) : []);
  } catch {
    return new Set();
  }
}

function setMuted(key, muted) {
  const set = mutedSet();
  if (muted) set.add(key);
  else set.delete(key);
  try {
    localStorage.setItem(MUTE_KEY, JSON.stringify([...set]));
  } catch {
    /* storage blocked: not remembered */
  }
}

const whoKey = (line) => (line.seat === null || line.seat === undefined ? "spectators" : String(line.seat));
const isMuted = (line) => mutedSet().has(whoKey(line));
const isOwn = (line) => line.seat !== null && S.held.includes(line.seat);

// ----------------------------------------------------------------------------- from the server

// a friends table's chat; a live tournament's table (settings.board) has none
const chatRoom = () => (S.room && S.room.mode === "friends" && !(S.room.settings && S.room.settings.board) ? S.room : null);
const settings = () => (S.room && S.room.settings) || { chat: false, spectator_chat: false };

/** A `state`: its `chat` is the whole history. */
export function chatFromState(msg) {
  C.lines = Array.isArray(msg.chat) ? msg.chat.slice() : [];
  renderChat(true);
}

/** A `chat` message: one new line. */
export function chatLine(line) {
  if (C.lines.some((l) => l.id === line.id)) return;
  C.lines.push(line);
  if (C.lines.length > 100) C.lines.splice(0, C.lines.length - 100);
  if (!C.open && !isOwn(line) && !isMuted(line)) C.unread += 1;
  renderChat(false);
}

/** An `ack` of a chat frame: a text line is stored, the input may be emptied. */
export function chatAck(msg) {
  const sending = C.sending;
  if (!sending || sending.id !== msg.id) return;
  C.sending = null;
  const input = $("chat-input");
  if (input.value.trim() === sending.text) input.value = "";
}

/** An `error` answering a chat frame: said in the panel. True when it was the chat's. */
export function chatError(msg) {
  if (!isChatId(msg.id)) return false;
  if (C.sending && C.sending.id === msg.id) C.sending = null; // the text stays in the input
  const text = {
    rate_limited: t("chat.rate_limited"),
    chat_off: t("error.chat_off"),
    spectator: t("chat.read_only"),
  }[msg.code];
  showNote(text || (has(`error.${msg.code}`) ? t(`error.${msg.code}`) : msg.message));
  return true;
}

function showNote(text) {
  C.note = text;
  clearTimeout(C.noteTimer);
  C.noteTimer = setTimeout(() => {
    C.note = null;
    renderChat(false);
  }, NOTE_MS);
  renderChat(false);
}

// ----------------------------------------------------------------------------- drawing

function lineName(line) {
  if (isOwn(line)) return t("chat.you");
  if (line.name) return line.name;
  if (line.seat === null || line.seat === undefined) return t("chat.spectator");
  return t("seat.player", { n: line.seat + 1 });
}

function lineElement(line) {
  const li = document.createElement("li");
  li.className = "chat-line";
  li.dataset.id = String(line.id);
  li.dataset.kind = line.kind;
  li.dataset.seat = whoKey(line);
  if (isOwn(line)) li.classList.add("own");
  li.title = new Date(line.at).toLocaleTimeString();
  const who = document.createElement("span");
  who.className = "chat-who";
  who.textContent = lineName(line);
  const text = document.createElement("span");
  text.className = "chat-text";
  if (line.kind === "phrase") {
    text.textContent = has(`chat.phrase.${line.text}`) ? t(`chat.phrase.${line.text}`) : line.text;
  } else if (line.kind === "emote") {
    text.textContent = EMOTES[line.text] || line.text;
    text.setAttribute("role", "img");
    text.setAttribute("aria-label", has(`chat.emote.${line.text}`) ? t(`chat.emote.${line.text}`) : line.text);
  } else {
    text.textContent = line.text;
  }
  li.append(who, document.createTextNode(" "), text);
  return li;
}

function renderLog(scroll) {
  const log = $("chat-log");
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const shown = C.lines.filter((line) => !isMuted(line));
  log.replaceChildren(...shown.map(lineElement));
  if (!shown.length) {
    const empty = document.createElement("li");
    empty.className = "chat-empty";
    empty.textContent = t("chat.empty");
    log.append(empty);
  }
  if (scroll || atEnd) log.scrollTop = log.scrollHeight;
}

function renderMute() {
  const room = chatRoom();
  const list = $("chat-mute-list");
  const rows = [];
  for (const seat of (room && room.seats) || []) {
    if (seat.kind !== "human" || S.held.includes(seat.seat)) continue;
    rows.push({ key: String(seat.seat), label: seat.name || t("seat.player", { n: seat.seat + 1 }) });
  }
  if (room && room.spectators_allowed) rows.push({ key: "spectators", label: t("chat.spectators") });
  const muted = mutedSet();
  const keys = rows.map((r) => `${r.key}:${r.label}:${muted.has(r.key)}`).join("|");
  $("chat-mute").hidden = !rows.length;
  if (list.dataset.keys === keys) return;
  list.dataset.keys = keys;
  list.replaceChildren(
    ...rows.map((row) => {
      const label = document.createElement("label");
      label.className = "check";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.dataset.mute = row.key;
      box.checked = muted.has(row.key);
      box.addEventListener("change", () => {
        setMuted(row.key, box.checked);
        renderChat(false);
      });
      const span = document.createElement("span");
      span.textContent = row.label;
      label.append(box, " ", span);
      return label;
    }),
  );
}

/** Draw the chat from the room and the lines held; `scroll`: go to the newest line. */
export function renderChat(scroll = false) {
  const room = chatRoom();
  const button = $("btn-chat");
  button.hidden = !room;
  if (!room) {
    setOpen(false);
    return;
  }
  const on = Boolean(settings().chat);
  const mayWrite = on && (S.role === "seat" || Boolean(settings().spectator_chat));
  if (!on) C.lines = [];
  const badge = $("chat-badge");
  badge.hidden = C.unread === 0;
  badge.textContent = C.unread > 9 ? "9+" : String(C.unread);
  button.setAttribute("aria-label", C.unread ? `${t("chat.button")} (${t("chat.unread", { n: C.unread })})` : t("chat.button"));
  const host = $("chat-host");
  host.hidden = !room.host;
  $("chat-on").checked = on;
  $("chat-spectators").checked = Boolean(settings().spectator_chat);
  $("chat-spectators").disabled = !on;
  renderMute();
  renderLog(scroll);
  $("chat-log").hidden = !on;
  $("chat-write").hidden = !mayWrite;
  const standing = !on ? t("chat.off") : !mayWrite ? t("chat.read_only") : null;
  const note = C.note || standing;
  $("chat-note").hidden = !note;
  $("chat-note").textContent = note || "";
}

function setOpen(open) {
  C.open = open;
  $("chat-panel").hidden = !open;
  $("btn-chat").setAttribute("aria-expanded", String(open));
  document.body.classList.toggle("chat-open", open);
  if (open) C.unread = 0;
}

/** The player's turn starts: where the panel covers the table (a phone, a tablet; not the
 * column beside a wide table), the chat closes, so that the turn, its clock and the hand are in
 * view. What was typed stays in the input; the chat button opens it again. */
export function chatYieldsToTurn() {
  if (!C.open || window.matchMedia("(min-width: 1000px) and (min-height: 561px)").matches) return;
  setOpen(false);
  renderChat(false);
}

// ----------------------------------------------------------------------------- sending

function sendChat(kind, text) {
  const conn = connection();
  if (!conn) return null;
  const id = conn.nextId(ID_PREFIX);
  return conn.send({ type: "chat", id, kind, text }) ? id : null;
}

function sendSettings() {
  const conn = connection();
  if (!conn) return;
  conn.send({
    type: "chat_settings",
    id: conn.nextId(ID_PREFIX),
    chat: $("chat-on").checked,
    spectator_chat: $("chat-spectators").checked,
  });
}

/** Wire the panel once, at start. */
export function installChat() {
  const emotes = $("chat-emotes");
  for (const [key, emoji] of Object.entries(EMOTES)) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip-btn chat-emote";
    b.dataset.emote = key;
    b.textContent = emoji;
    b.setAttribute("aria-label", t(`chat.emote.${key}`));
    b.title = t(`chat.emote.${key}`);
    emotes.append(b);
  }
  $("btn-chat").addEventListener("click", () => {
    setOpen(!C.open);
    renderChat(true);
    if (C.open && !window.matchMedia("(pointer: coarse)").matches) $("chat-input").focus();
  });
  $("chat-close").addEventListener("click", () => {
    setOpen(false);
    renderChat(false);
    $("btn-chat").focus();
  });
  $("chat-panel").addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    setOpen(false);
    renderChat(false);
    $("btn-chat").focus();
  });
  $("chat-panel").addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target.closest("button[data-phrase], button[data-emote]") : null;
    if (!target) return;
    if (target.dataset.phrase) sendChat("phrase", target.dataset.phrase);
    else sendChat("emote", target.dataset.emote);
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("chat-input");
    const text = input.value.trim();
    if (!text) return;
    const id = sendChat("text", text);
    if (id) C.sending = { id, text };
  });
  $("chat-on").addEventListener("change", sendSettings);
  $("chat-spectators").addEventListener("change", sendSettings);
}

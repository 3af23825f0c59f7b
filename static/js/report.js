// Reporting and blocking from the table (docs/protocol.md, "Reports and blocks"): a player
// picks someone at the table, a reason, optionally some of their chat lines and a note; the
// server keeps the lines as it sent them. Blocking keeps quick play from seating them together.

import { has, t } from "./i18n.js";
import { $, app } from "./table-dom.js";
import { S } from "./table-state.js";

const REASONS = ["abuse", "cheating", "spam", "name", "other"];
const box = $("chat-report");

function players() {
  const seats = (S.room && S.room.seats) || [];
  return seats.filter((seat) => seat.kind === "human" && !S.held.includes(seat.seat));
}

function option(value, label) {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = label;
  return el;
}

function say(text, ok) {
  const note = $("report-note");
  note.hidden = false;
  note.textContent = text;
  note.dataset.ok = ok ? "1" : "0";
}

function linesOf(seat) {
  const out = [];
  for (const li of $("chat-log").querySelectorAll("li.chat-line")) {
    if (li.dataset.seat === String(seat) && li.dataset.kind === "text") {
      out.push({ id: Number(li.dataset.id), text: li.querySelector(".chat-text")?.textContent || "" });
    }
  }
  return out.slice(-8);
}

function renderLines() {
  const seat = $("report-who").value;
  const list = $("report-lines");
  const lines = seat === "" ? [] : linesOf(seat);
  list.replaceChildren(
    ...lines.map((line) => {
      const label = document.createElement("label");
      label.className = "check";
      const input = document.createElement("input");
      input.type = "checkbox";
      input.value = String(line.id);
      const span = document.createElement("span");
      span.textContent = line.text;
      label.append(input, " ", span);
      return label;
    }),
  );
  $("report-lines-box").hidden = !lines.length;
}

function render() {
  const who = $("report-who");
  const chosen = who.value;
  who.replaceChildren(...players().map((seat) => option(String(seat.seat), seat.name || t("seat.player", { n: seat.seat + 1 }))));
  if (chosen) who.value = chosen;
  const reason = $("report-reason");
  if (!reason.options.length) reason.replaceChildren(...REASONS.map((r) => option(r, t(`report.reason.${r}`))));
  $("report-form").hidden = !who.options.length;
  $("report-nobody").hidden = Boolean(who.options.length);
  renderLines();
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  let data = {};
  try {
    data = await response.json();
  } catch {
    /* an empty answer */
  }
  return { ok: response.ok, data };
}

function errorText(data) {
  const error = (data && data.error) || {};
  return has(`report.error.${error.code}`) ? t(`report.error.${error.code}`) : error.message || t("report.error.other");
}

if (box) {
  box.addEventListener("toggle", () => box.open && render());
  $("report-who").addEventListener("change", renderLines);
  $("report-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const lines = [...$("report-lines").querySelectorAll("input:checked")].map((i) => Number(i.value));
    const body = { reason: $("report-reason").value, seat: Number($("report-who").value), lines };
    const note = $("report-text").value.trim();
    if (note) body.note = note;
    const { ok, data } = await post(`/api/games/${app.dataset.gameId}/reports`, body);
    if (ok) {
      $("report-text").value = "";
      say(t("report.sent"), true);
    } else say(errorText(data), false);
  });
  $("report-block").addEventListener("click", async () => {
    const { ok, data } = await post(`/api/games/${app.dataset.gameId}/blocks`, { seat: Number($("report-who").value), blocked: true });
    say(ok ? t("report.blocked") : errorText(data), ok);
  });
}

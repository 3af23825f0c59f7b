// @ts-check
// Region: what covers the table: the friends' waiting room before the game, and the screen of a
// local game that hides one player's cards while the device passes to the next.
import { api, canShare, copyText, escapeHTML, shareLink, toast } from "./common.js";
import { t, tn } from "./i18n.js";
import { seatControls } from "./seating.js";
import { $, app, button, pageTraits } from "./table-dom.js";
import { seatName } from "./table-names.js";
import { connection } from "./table-send.js";
import { S, isOver, view } from "./table-state.js";
import { U } from "./table-ui.js";

export function renderWaiting() {
  const box = $("waiting");
  const room = S.room;
  if (S.view || !room) {
    box.hidden = true;
    app.dataset.waiting = "no";
    return;
  }
  app.dataset.state = "ready";
  app.dataset.waiting = "yes";
  app.dataset.variant = room.variant;
  app.dataset.piles = pageTraits(room.variant).hand_in_piles ? "yes" : "no";
  box.hidden = false;
  // the seats around the table as they will play (this browser's seat at the bottom), each
  // with its team at a four-player table; who partners whom and the table's settings under it
  const n = room.players || (room.seats || []).length;
  const mine = (room.seats || []).find((s) => s.you);
  const bottom = mine ? mine.seat : 0;
  const posOf = (seat) => {
    const r = (seat - bottom + n) % n;
    return n === 4 ? ["bottom", "right", "top", "left"][r] : n === 3 ? ["bottom", "right", "left"][r] : ["bottom", "top"][r];
  };
  const nameOf = (s) => s.name || (s.kind === "bot" ? t("seat.bot", { n: s.seat + 1 }) : s.taken ? t("seat.player", { n: s.seat + 1 }) : t("seat.free"));
  const seats = (room.seats || [])
    .map((s) => {
      const state = s.taken ? (s.connected ? t("seat.connected") : t("seat.disconnected")) : t("seat.free_note");
      const team = n === 4 ? `<span class="team-badge team-${(s.seat % 2) + 1}" title="${escapeHTML(t("waiting.team", { n: (s.seat % 2) + 1 }))}">${(s.seat % 2) + 1}</span>` : "";
      return `<li class="${s.taken ? "taken" : "free"} pos-${posOf(s.seat)}" data-seat="${s.seat}"><span class="waiting-who">${team}<span class="presence ${s.taken && s.connected ? "on" : "off"}"></span> <span class="waiting-name">${escapeHTML(nameOf(s))}${s.you ? ` (${escapeHTML(t("seat.you"))})` : ""}</span></span> <span class="muted small">${escapeHTML(state)}</span></li>`;
    })
    .join("");
  const bySeat = (k) => (room.seats || []).find((s) => s.seat === k);
  const partners =
    n === 4
      ? [0, 1].map((k) => `<li class="team-${k + 1}">${escapeHTML(t("waiting.partners", { a: nameOf(bySeat(k) || { seat: k }), b: nameOf(bySeat(k + 2) || { seat: k + 2 }) }))}</li>`).join("")
      : `<li>${escapeHTML(t("waiting.alone"))}</li>`;
  const set = room.settings || /** @type {Partial<import("./protocol-types.js").TableSettingsModel>} */ ({});
  const target = (room.options || {}).target;
  const rows = [
    [t("live.clock.label"), set.clock && set.clock !== "none" ? t("live.clock.seconds", { n: set.clock }) : t("live.clock.none")],
    [t("live.stand_in.label"), t(`level.${set.stand_in || "medium"}`)],
    [t("chat.title"), t(set.chat === false ? "help.off" : "help.on")],
    [t("opt.target.label"), target === undefined || target === "one_deal" ? t("opt.target.one_deal") : tn("count.points", target)],
  ];
  const settingsHTML =
    `<h3 class="waiting-settings-title">${escapeHTML(t("waiting.settings"))}</h3><dl class="waiting-settings">` +
    rows.map(([k, v]) => `<div><dt>${escapeHTML(k)}</dt><dd>${escapeHTML(v)}</dd></div>`).join("") +
    `</dl>`;
  const url = new URL(room.url || location.pathname, location.href).href;
  // a redraw (a `room` message) keeps the focus where the player had it
  const active = box.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement) : null;
  const refocus = active ? active.id || active.dataset.action : null;
  box.innerHTML =
    `<h2>${escapeHTML(t(`variant.${room.variant}`))}</h2><p>${escapeHTML(t("room.waiting_players"))}</p><ul class="waiting-seats" data-players="${n}">${seats}</ul><ul class="waiting-partners">${partners}</ul>${settingsHTML}` +
    `<div class="invite-row"><input type="text" readonly value="${escapeHTML(url)}" aria-label="${escapeHTML(t("invite.link"))}" id="waiting-link"></div>`;
  const row = document.createElement("div");
  row.className = "action-row";
  row.append(button(t("invite.copy"), () => copyText(url), { cls: "btn primary", name: "copy-invite" }));
  if (canShare()) row.append(button(t("invite.share"), () => shareLink(url), { name: "share-invite" }));
  box.append(row);
  if (room.mode === "friends") box.append(publicSwitch(room));
  // friends tables: the host seats computer players, a guest picks a free seat (seating.js)
  for (const s of room.seats || []) {
    const controls = seatControls(room, s, { conn: connection(), onSend: (sent) => sent || toast(t("net.offline")) });
    if (controls) box.querySelector(`.waiting-seats li[data-seat="${s.seat}"]`).append(controls);
  }
  if (refocus) (document.getElementById(refocus) || box.querySelector(`[data-action="${refocus}"]`))?.focus();
  $("hand").hidden = true;
  $("controls").replaceChildren();
  $("btn-invite").hidden = room.mode !== "friends";
}

/** The host lists the waiting table in the lobby or takes it off (POST /api/games/{id}/public);
 * the others see whether it is listed. The `room` message that follows redraws the switch. */
function publicSwitch(room) {
  const row = document.createElement("div");
  row.className = "public-row";
  if (!room.host) {
    if (room.public) row.append(Object.assign(document.createElement("p"), { className: "muted small", textContent: t("lobby.public_note") }));
    return row;
  }
  const label = document.createElement("label");
  label.className = "check";
  const input = Object.assign(document.createElement("input"), { type: "checkbox", id: "waiting-public", checked: !!room.public });
  label.append(input, " ", Object.assign(document.createElement("span"), { textContent: t("lobby.public") }));
  input.addEventListener("change", async () => {
    const wanted = input.checked;
    input.disabled = true;
    try {
      await api(`/api/games/${encodeURIComponent(app.dataset.gameId)}/public`, { method: "POST", body: { public: wanted } });
    } catch (error) {
      input.checked = !wanted;
      toast(t("lobby.switch_failed", { message: error.message }));
    } finally {
      input.disabled = false;
    }
  });
  row.append(label, Object.assign(document.createElement("p"), { className: "muted small", textContent: t("lobby.public_help") }));
  return row;
}

export function renderPassScreen() {
  const screen = $("pass-screen");
  const v = view();
  // one device, several seats: cover the hand between players (piles lie face up for all)
  const hidden = S.held.length > 1 && !v.traits.hand_in_piles;
  if (!hidden || S.shown === null || S.shown === U.revealed || isOver(v)) {
    screen.hidden = true;
    app.classList.remove("covered");
    return;
  }
  screen.hidden = false;
  app.classList.add("covered");
  $("pass-title").textContent = t("local.pass_to", { name: seatName(S.shown) });
  $("pass-ready").textContent = t("local.ready", { name: seatName(S.shown) });
}

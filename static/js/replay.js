// The replay viewer: steps through the frames the server replayed with the engine
// (app/players/frames.py): every deal, bid and trick, forward and back. Also imports a
// belote-record/1 file and shows it the same way.
import { cardElement, cardName, denomHTML, sortHand, suitName } from "./cards.js";
import { api, escapeHTML } from "./common.js";
import { colon, has, t } from "./i18n.js";
import { replayAnalysis } from "./replay-analysis.js";
import * as words from "./words.js";

const $ = (id) => document.getElementById(id);
const app = $("replay-app");
const config = JSON.parse($("replay-config").textContent || "{}");

const V = { data: null, deal: 0, step: 0 };

// what each decision of a finished deal cost (a game of this server only, not an import)
const analysis = replayAnalysis({
  gameId: config.game_id || null,
  seatName: (seat) => seatName(seat),
  variant: () => V.data.variant,
  current: () => ({ deal: V.deal, step: V.step, finished: Boolean(V.data && V.data.game && deal().finished) }),
  go: (dealIndex, step) => go(dealIndex, step),
});

// ----------------------------------------------------------------------------- names

const n = () => V.data.players;
const deal = () => V.data.deals[V.deal];
const frame = () => deal().frames[V.step];

function seatName(seat) {
  const name = (V.data.names || [])[seat];
  if (name) return name;
  const info = V.data.game && V.data.game.seats ? V.data.game.seats[seat] : null;
  if (info && info.kind === "bot") return t("seat.bot", { n: seat + 1 });
  return t("seat.player", { n: seat + 1 });
}

function sidesList() {
  return [...Array(V.data.traits.scoring_sides).keys()];
}

function sideName(side) {
  if (n() !== 4) return seatName(side);
  return [0, 1, 2, 3].filter((s) => V.data.sides[s] === side).map(seatName).join(" & ");
}

/** 0 bottom, then counter-clockwise like the table: the next seat in turn order on the right. */
function position(seat) {
  if (n() === 4) return ["bottom", "right", "top", "left"][seat];
  if (n() === 3) return ["bottom", "right", "left"][seat];
  return ["bottom", "top"][seat];
}

const variant = () => V.data.variant;
const term = (kind) => words.term(kind, variant());
const bidText = (bid) => words.bidText(bid, variant());
// the replay names every seat (no "you"), and teams by their players
const seatWho = (seat) => ({ person: "player", name: seatName(seat) });
const sideWho = (side) => ({ person: n() === 4 ? "team" : "player", name: sideName(side) });
const contractHTML = (contract) => words.contractHTML(contract, variant(), seatWho);
const outcomeText = (result) => words.outcomeText(result, variant());
const resultTable = (result) => words.resultTable(result, { sides: sidesList(), sideName, variant: variant() });
const roundingText = (note) => words.roundingText(note, sideName);
const { about, comboText, points } = words;

// ----------------------------------------------------------------------------- who played

// An action its player did not make carries `by` (RULES.md §12): "stand_in" (the computer
// played for the seat), "auto" (the seat's only card, played for it) or "claim" (played out
// by the server after a claim, RULES.md §15).
const BY = new Set(["stand_in", "auto", "claim"]);
function byTag(by) {
  return `<span class="by-tag by-${escapeHTML(by)}" data-by="${escapeHTML(by)}" title="${escapeHTML(t(`live.by.${by}.long`))}">${escapeHTML(t(`live.by.${by}`))}</span>`;
}

/** "seat:card" -> by for the cards of this deal played for their seat. */
function playsBy() {
  const out = new Map();
  for (const f of deal().frames) {
    if (f.action && f.action.type === "play" && f.action.by) out.set(`${f.seat}:${f.action.card}`, f.action.by);
  }
  return out;
}

// ----------------------------------------------------------------------------- what happened

function says(f) {
  const said = saysText(f);
  const by = f.action && f.action.by;
  if (BY.has(by)) said.html += ` ${byTag(by)}`;
  return said;
}

function saysText(f) {
  const parts = [];
  if (f.seat === undefined) {
    parts.push(t("replay.deal_start", { n: V.deal + 1, name: seatName(deal().dealer) }));
  } else {
    const a = f.action;
    const name = seatName(f.seat);
    const who = seatWho(f.seat);
    if (a.type === "play") {
      parts.push(about("log.played", who, { card: cardName(a.card) }));
    } else if (a.type === "declare") {
      const combos = (f.declarations[f.seat] || []).map(comboText).join(", ");
      parts.push(combos ? about("log.declared", who, { what: combos }) : t("replay.no_declaration", { name }));
    } else if (a.type === "exchange") {
      parts.push(about("log.exchanged", who));
    } else if (a.type === "discard") {
      parts.push(about("log.discarded", who));
    } else {
      return { html: `${colon(escapeHTML(name))} ${bidText(a)}`, more: extra(f) };
    }
  }
  return { html: escapeHTML(parts.join(" ")), more: extra(f) };
}

function extra(f) {
  const out = [];
  if (f.trick_winner !== undefined) out.push(about("log.trick_won", seatWho(f.trick_winner), { points: points(f.trick_won_points) }));
  if (f.thrown_in) out.push(t("log.thrown_in"));
  if (f.result) out.push(t("replay.deal_end", { n: V.deal + 1 }));
  if (f.match_over) {
    const w = f.match_over.winner;
    out.push(w === null || w === undefined ? t("match.over") : about("match.winner", sideWho(w)));
  }
  return out.join(" ");
}

// ----------------------------------------------------------------------------- drawing

function seatBox(f, seat) {
  const el = document.createElement("div");
  el.className = `v-seat pos-${position(seat)}`;
  el.dataset.seat = seat;
  if (f.to_act === seat && f.phase !== "deal_over" && f.phase !== "match_over") el.classList.add("to-act");
  const badges = [];
  const yours = (V.data.game && V.data.game.yours) || [];
  if (yours.includes(seat)) badges.push(`<span class="badge you">${escapeHTML(t("seat.you"))}</span>`);
  if (deal().dealer === seat) badges.push(`<span class="badge dealer" title="${escapeHTML(t("seat.dealer"))}">${escapeHTML(t("seat.dealer_short"))}</span>`);
  if (f.contract && f.contract.taker === seat) badges.push(`<span class="badge taker">${denomHTML(f.contract.denom)}</span>`);
  const tricks = f.tricks_won ? f.tricks_won[seat] : 0;
  el.innerHTML =
    `<div class="seat-plate"><span class="seat-name">${escapeHTML(seatName(seat))}</span>${badges.join("")}` +
    `<span class="seat-tricks">${escapeHTML(t("seat.tricks_n", { n: tricks }))}</span></div>`;
  const hand = document.createElement("div");
  hand.className = "v-hand";
  const denom = f.contract ? f.contract.denom : null;
  for (const card of sortHand(f.hands[seat] || [], denom)) hand.append(cardElement(card, { cls: "small" }));
  if (f.down && f.down[seat] && f.down[seat].length) {
    for (const card of sortHand(f.down[seat], denom)) hand.append(cardElement(card, { cls: "small face-down", label: t("replay.face_down", { card: cardName(card) }) }));
  }
  if (f.talons && f.talons[seat] && f.talons[seat].length) {
    for (const card of f.talons[seat]) hand.append(cardElement(card, { cls: "small face-down", label: t("replay.talon", { card: cardName(card) }) }));
  }
  el.append(hand);
  const chips = (f.declarations[seat] || []).map((c) => `<span class="chip decl">${escapeHTML(comboText(c))}</span>`);
  for (const b of f.belote || []) if (b.seat === seat) chips.push(`<span class="chip belote">${escapeHTML(t(`belote.${b.stage}.${V.data.variant}`))}</span>`);
  if (chips.length) {
    const box = document.createElement("div");
    box.className = "seat-chips";
    box.innerHTML = chips.join("");
    el.append(box);
  }
  return el;
}

function centre(f) {
  const el = document.createElement("div");
  el.className = "v-centre";
  const trick = document.createElement("div");
  trick.className = "v-trick";
  trick.setAttribute("role", "group");
  trick.setAttribute("aria-label", t("table.trick"));
  const by = playsBy();
  for (const play of f.trick || []) {
    const slot = document.createElement("div");
    slot.className = `slot pos-${position(play.seat)}`;
    const winner = f.trick_winner !== undefined && play.seat === f.trick_winner;
    if (winner) {
      slot.classList.add("winner");
      slot.dataset.winner = "yes";
    }
    slot.append(cardElement(play.card, { label: about("trick.played_by", seatWho(play.seat), { card: cardName(play.card) }) }));
    const who = by.get(`${play.seat}:${play.card}`);
    if (BY.has(who)) {
      slot.dataset.by = who;
      slot.insertAdjacentHTML("beforeend", byTag(who));
    }
    trick.append(slot);
  }
  el.append(trick);
  if (f.upcard && f.phase === "bidding") {
    const up = document.createElement("div");
    up.className = "v-upcard";
    up.append(cardElement(f.upcard, { cls: "small", label: t("table.turn_up_card", { card: cardName(f.upcard) }) }));
    el.append(up);
  }
  if (f.trick_winner !== undefined) {
    const cap = document.createElement("p");
    cap.className = "v-trick-winner";
    cap.id = "trick-winner";
    cap.textContent = t("replay.trick_won", { n: f.trick_number, name: seatName(f.trick_winner), points: points(f.trick_won_points) });
    el.append(cap);
  }
  return el;
}

function render() {
  const f = frame();
  const d = deal();
  const viewer = $("viewer");
  viewer.dataset.deal = V.deal;
  viewer.dataset.step = V.step;
  viewer.dataset.steps = d.frames.length;
  $("viewer-title").textContent = t("result.deal_n", { n: V.deal + 1 }) + (d.finished ? "" : ` (${t("replay.unfinished")})`);
  $("viewer-step").textContent = t("replay.step", { deal: V.deal + 1, deals: V.data.deals.length, step: V.step, steps: d.frames.length - 1 });
  const said = says(f);
  $("viewer-says").innerHTML = said.html + (said.more ? ` <strong>${escapeHTML(said.more)}</strong>` : "");

  const table = $("viewer-table");
  table.replaceChildren();
  table.dataset.players = n();
  for (let seat = 0; seat < n(); seat++) table.append(seatBox(f, seat));
  table.append(centre(f));

  $("viewer-bids").innerHTML = words.bidsTable(f.bids, variant(), seatName);
  $("viewer-contract").innerHTML = f.contract ? `${colon(escapeHTML(t("table.contract")))} ${contractHTML(f.contract)}` : "";
  $("viewer-scores").innerHTML =
    `<p class="match-line">${sidesList().map((s) => `${escapeHTML(sideName(s))} <b>${f.scores[s]}</b>`).join(" · ")}</p>` +
    (f.reserve ? `<p class="muted small">${escapeHTML(t("score.reserve", { n: f.reserve, word: term("litige") }))}</p>` : "");
  const box = $("viewer-result");
  if (f.result) {
    const r = f.result;
    let html = `<h3>${escapeHTML(t("replay.score_lines"))}</h3>`;
    if (r.thrown_in) html += `<p>${escapeHTML(t("result.thrown_in"))}</p>`;
    else {
      html += `<p class="deal-headline">${contractHTML(r.contract)} <span class="outcome ${r.outcome}">${escapeHTML(outcomeText(r))}</span></p>${resultTable(r)}`;
      const rounding = roundingText(r.rounding);
      if (rounding) html += `<p class="muted small rounding-note">${escapeHTML(rounding)}</p>`;
    }
    box.innerHTML = html;
    box.hidden = false;
  } else {
    box.replaceChildren();
    box.hidden = true;
  }
  const first = V.deal === 0 && V.step === 0;
  const last = V.deal === V.data.deals.length - 1 && V.step === d.frames.length - 1;
  for (const b of viewer.querySelectorAll("[data-action=back], [data-action=prev-deal]")) b.disabled = first;
  for (const b of viewer.querySelectorAll("[data-action=forward], [data-action=next-trick], [data-action=next-deal]")) b.disabled = last;
  if (V.deal === V.data.deals.length - 1) viewer.querySelector("[data-action=next-deal]").disabled = true;
  analysis.render();
}

// ----------------------------------------------------------------------------- moving

function go(dealIndex, step) {
  V.deal = Math.max(0, Math.min(dealIndex, V.data.deals.length - 1));
  const frames = deal().frames.length;
  V.step = step < 0 ? frames - 1 : Math.min(step, frames - 1);
  render();
}

function forward() {
  if (V.step < deal().frames.length - 1) go(V.deal, V.step + 1);
  else if (V.deal < V.data.deals.length - 1) go(V.deal + 1, 0);
}

function back() {
  if (V.step > 0) go(V.deal, V.step - 1);
  else if (V.deal > 0) go(V.deal - 1, -1);
}

function nextTrick() {
  const frames = deal().frames;
  for (let i = V.step + 1; i < frames.length; i++) {
    if (frames[i].trick_winner !== undefined || frames[i].result || frames[i].thrown_in) return go(V.deal, i);
  }
  forward();
}

const ACTIONS = {
  back,
  forward,
  "next-trick": nextTrick,
  "prev-deal": () => go(V.step > 0 ? V.deal : V.deal - 1, 0),
  "next-deal": () => go(V.deal + 1, 0),
};

$("viewer").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (button && ACTIONS[button.dataset.action]) ACTIONS[button.dataset.action]();
});

document.addEventListener("keydown", (event) => {
  if (!V.data || event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowRight") forward();
  else if (event.key === "ArrowLeft") back();
  else return;
  event.preventDefault();
});

// ----------------------------------------------------------------------------- loading

/** An error in the page's language; `detail` (the server's own words, for a bug report) goes on
 * a second line after `label` ("Details:"). */
function showError(text, detail = "", label = t("replay.details")) {
  const box = $("replay-error");
  box.replaceChildren(text);
  if (detail) {
    const more = document.createElement("span");
    more.className = "error-detail muted small";
    more.textContent = `${colon(label)} ${detail}`;
    box.append(document.createElement("br"), more);
  }
  box.hidden = false;
  app.dataset.state = "error";
}

/** Where an imported record breaks a rule and which (the engine's RecordRuleError as data:
 * deal and action counted from 0, a code and its parameters), in the page's words, the deals
 * and moves counted from 1 as the viewer counts them. */
function showFault(fault) {
  const player = (seat) => t("seat.player", { n: Number(seat) + 1 });
  const reason = fault.reason || null;
  const params = {
    name: fault.seat !== undefined ? player(fault.seat) : "",
    dealer: fault.expected !== undefined ? player(fault.expected) : "",
    other: fault.to_act !== undefined ? player(fault.to_act) : "",
    card: reason && reason.card ? cardName(reason.card) : "",
    suit: reason && reason.suit ? suitName(reason.suit) : "",
  };
  let key = `replay.fault.${fault.code}`;
  if (fault.code === "illegal" && reason && has(`replay.fault.${reason.code}`) && reason.code !== "illegal") key = `replay.fault.${reason.code}`;
  if (!has(key)) key = "replay.fault.illegal";
  const where = t("replay.fault.where", { deal: fault.deal + 1, action: fault.action + 1 });
  showError(t("replay.invalid_record"));
  const line = document.createElement("span");
  line.className = "error-detail";
  line.dataset.fault = fault.code;
  line.textContent = `${colon(where)} ${t(key, params)}`;
  $("replay-error").append(document.createElement("br"), line);
}

function show(data) {
  V.data = data;
  $("replay-error").hidden = true;
  $("replay-variant").textContent =
    t(`variant.${data.variant}`) + (data.traits.player_counts.length > 1 ? ` · ${t("home.players_n", { n: data.players })}` : "");
  if (!data.deals.length) {
    $("replay-empty").hidden = false;
    $("viewer").hidden = true;
    app.dataset.state = "empty";
    return;
  }
  $("replay-empty").hidden = true;
  $("viewer").hidden = false;
  app.dataset.state = "ready";
  // /replay/{id}?deal=N#analysis (the table's deal summary links here): that deal, analysed
  const asked = Number.parseInt(new URLSearchParams(window.location.search).get("deal") || "", 10);
  const start = Number.isInteger(asked) && asked >= 0 && asked < data.deals.length ? asked : 0;
  if (data.game && window.location.hash === "#analysis" && data.deals[start].finished) analysis.ask(start);
  go(start, 0);
  // a phone: the table and its buttons (sticky, app.css) take the screen, not the page's head
  if (window.matchMedia("(max-width: 600px), (max-height: 560px) and (orientation: landscape)").matches && window.location.hash !== "#analysis") {
    requestAnimationFrame(() => window.scrollTo(0, $("viewer").getBoundingClientRect().top + window.scrollY));
  }
}

async function loadGame(gameId) {
  try {
    const data = await api(`/api/games/${encodeURIComponent(gameId)}/replay`);
    const links = $("replay-links");
    $("replay-download").href = data.game.record_url;
    $("replay-download").setAttribute("download", `atout-${gameId}.json`);
    $("replay-table").href = `/g/${encodeURIComponent(gameId)}`;
    links.hidden = false;
    show(data);
  } catch (error) {
    if (error.status === 403) showError(t("replay.not_allowed"));
    else if (error.status === 404) showError(t("error.not_found"));
    else showError(t("error.server_error"), error.message);
  }
}

const form = $("import-form");
if (form) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = $("import-file").files[0];
    if (!file) return;
    let record;
    try {
      record = JSON.parse(await file.text());
    } catch {
      showError(t("replay.not_json"));
      return;
    }
    try {
      show(await api("/api/replay", { method: "POST", body: record }));
    } catch (error) {
      if (error.code === "invalid_record" && error.data && error.data.record) showFault(error.data.record);
      else if (error.code === "invalid_record") showError(t("replay.invalid_record"), error.message, t("replay.fault.technical"));
      else showError(t("replay.invalid", { reason: error.status ? `HTTP ${error.status}` : "—" }), error.message);
    }
  });
}

if (config.game_id) loadGame(config.game_id);

// for tests: the viewer's position, read-only
window.atoutReplay = { get state() { return { deal: V.deal, step: V.step, data: V.data }; } };

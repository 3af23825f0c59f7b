// Home: choose a game (variant, players, options), start it three ways, list saved games, name.
import { api, canShare, copyText, escapeHTML, shareLink, toast } from "./common.js";
import { t, tn } from "./i18n.js";
import "./lobby.js";

const schema = JSON.parse(document.getElementById("schema").textContent);
const form = document.getElementById("new-game");
const optionsBox = document.getElementById("options");
const playersField = document.getElementById("players-field");
const errorBox = document.getElementById("form-error");
const values = {}; // option name -> chosen value, per variant+players key

const variant = () => form.elements.variant.value;
const players = () => {
  const info = schema[variant()];
  if (info.players.length === 1) return info.players[0];
  return Number(form.elements.players.value);
};
const optionList = () => schema[variant()].by_players[String(players())];
const key = () => `${variant()}:${players()}`;

function currentValues() {
  values[key()] ||= {};
  const chosen = values[key()];
  const out = {};
  for (const opt of optionList()) out[opt.name] = opt.name in chosen ? chosen[opt.name] : opt.default;
  return out;
}

function visible(opt, vals) {
  return !opt.when || Object.entries(opt.when).every(([name, value]) => vals[name] === value);
}

function valueLabel(opt, value) {
  if (opt.name === "target") return value === "one_deal" ? t("opt.target.one_deal") : tn("count.points", value);
  return t(`opt.${opt.name}.${value}`);
}

function renderOptions() {
  const vals = currentValues();
  optionsBox.replaceChildren();
  let changed = 0;
  for (const opt of optionList()) {
    if (!visible(opt, vals)) continue;
    const row = document.createElement("div");
    row.className = "option";
    row.dataset.option = opt.name;
    const id = `opt-${opt.name}`;
    const help = `<span class="option-help" id="${id}-help">${escapeHTML(t(`opt.${opt.name}.help`))}</span>`;
    if (opt.type === "bool") {
      row.innerHTML =
        `<label class="switch"><input type="checkbox" id="${id}" name="${opt.name}" aria-describedby="${id}-help" ${vals[opt.name] ? "checked" : ""}>` +
        `<span class="option-label">${escapeHTML(t(`opt.${opt.name}.label`))}</span></label>${help}`;
      row.querySelector("input").addEventListener("change", (e) => setOption(opt.name, e.target.checked));
    } else {
      const choices = opt.choices
        .map((c) => `<option value="${escapeHTML(String(c))}" ${c === vals[opt.name] ? "selected" : ""}>${escapeHTML(valueLabel(opt, c))}</option>`)
        .join("");
      row.innerHTML =
        `<label class="option-label" for="${id}">${escapeHTML(t(`opt.${opt.name}.label`))}</label>` +
        `<select id="${id}" name="${opt.name}" aria-describedby="${id}-help">${choices}</select>${help}`;
      row.querySelector("select").addEventListener("change", (e) => {
        const raw = e.target.value;
        const value = opt.choices.find((c) => String(c) === raw);
        setOption(opt.name, value);
      });
    }
    if (vals[opt.name] !== opt.default) changed += 1;
    optionsBox.append(row);
  }
  const summary = document.getElementById("options-summary");
  summary.textContent = changed ? t("home.options_changed", { n: changed }) : t("home.options_default");
}

function setOption(name, value) {
  values[key()] ||= {};
  values[key()][name] = value;
  renderOptions();
}

function onVariantChange() {
  const info = schema[variant()];
  playersField.hidden = info.players.length < 2;
  // a local game names as many players as it seats
  for (const label of document.querySelectorAll(".local-name")) label.hidden = Number(label.dataset.seat) >= players();
  renderOptions();
}

/** The names typed for a local game, by seat (null: the seat keeps the default name). */
function localNames() {
  const names = [];
  for (let seat = 0; seat < players(); seat++) {
    const input = form.elements[`local_name_${seat}`];
    names.push(input && input.value.trim() ? input.value.trim() : null);
  }
  return names.some(Boolean) ? names : null;
}

form.addEventListener("change", (e) => {
  if (e.target.name === "variant" || e.target.name === "players") onVariantChange();
});

/** The options that differ from the defaults, among those shown. */
function chosenOptions() {
  const vals = currentValues();
  const out = {};
  for (const opt of optionList()) {
    if (visible(opt, vals) && vals[opt.name] !== opt.default) out[opt.name] = vals[opt.name];
  }
  return out;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const mode = event.submitter?.dataset.mode || "computer";
  const body = { variant: variant(), players: players(), options: chosenOptions(), mode };
  if (mode === "computer") body.level = form.elements.level.value;
  if (mode === "local" && localNames()) body.names = localNames();
  if (mode === "friends") {
    body.spectators = form.elements.spectators.checked;
    if (form.elements.public.checked) body.public = true;
    Object.assign(body, tableSettings());
  }
  await createGame(body);
});

// ----------------------------------------------------------------------------- table settings

// A friends table's own settings (docs/protocol.md, POST /api/games): the clock, the computer's
// level when it stands in for a player, how long a player may be away before the others may
// hand the seat to it. Only the values that differ from the defaults are sent.
const TABLE_DEFAULTS = { clock: "none", stand_in: "medium", away_seconds: 120 };
const TABLE_CHOICES = {
  clock: ["none", 15, 30, 60, 120],
  stand_in: ["easy", "medium", "hard"],
  away_seconds: [30, 60, 120, 300, 600],
};

function tableSettings() {
  const out = {};
  for (const [name, fallback] of Object.entries(TABLE_DEFAULTS)) {
    const raw = form.elements[name].value;
    const value = TABLE_CHOICES[name].find((c) => String(c) === raw) ?? fallback;
    if (value !== fallback) out[name] = value;
  }
  return out;
}

/** Show the table settings of a remembered game on the form. */
function showTableSettings(body) {
  for (const [name, fallback] of Object.entries(TABLE_DEFAULTS)) {
    form.elements[name].value = String(name in body ? body[name] : fallback);
  }
}

/** Create the game `body` describes (POST /api/games), remember it for "Play again", go there. */
async function createGame(body) {
  const buttons = [...form.querySelectorAll("button[type=submit]"), playAgainButton];
  errorBox.hidden = true;
  for (const b of buttons) b.disabled = true;
  try {
    const game = await api("/api/games", { method: "POST", body });
    rememberGame(body);
    if (body.mode === "friends") {
      showInvite(game.url);
      loadMe(); // the new table joins "Your games"
    } else location.assign(game.url);
  } catch (error) {
    errorBox.textContent = t("home.create_failed", { message: error.message });
    errorBox.hidden = false;
    if (errorBox.getBoundingClientRect().top > innerHeight) errorBox.scrollIntoView({ block: "center" });
  } finally {
    for (const b of buttons) b.disabled = false;
  }
}

// ----------------------------------------------------------------------------- play again

// The settings of the last game started from this page, remembered in this browser.
const LAST_GAME = "atout.lastGame";
const playAgainBox = document.getElementById("play-again");
const playAgainButton = document.getElementById("play-again-btn");

function rememberGame(body) {
  try {
    localStorage.setItem(LAST_GAME, JSON.stringify(body));
  } catch {
    /* storage blocked: no "Play again" */
  }
  showPlayAgain();
}

/** The remembered game, checked against what this server offers today (or null). */
function lastGame() {
  let body;
  try {
    body = JSON.parse(localStorage.getItem(LAST_GAME) || "null");
  } catch {
    return null;
  }
  if (!body || typeof body !== "object" || !schema[body.variant]) return null;
  const info = schema[body.variant];
  if (!info.players.includes(body.players)) return null;
  if (!["computer", "friends", "local"].includes(body.mode)) return null;
  // keep only the options this server still knows, with a value it accepts
  const known = info.by_players[String(body.players)];
  const options = {};
  for (const [name, value] of Object.entries(body.options || {})) {
    const opt = known.find((o) => o.name === name);
    if (!opt) continue;
    if (opt.type === "bool" ? typeof value === "boolean" : opt.choices.includes(value)) options[name] = value;
  }
  const out = { variant: body.variant, players: body.players, options, mode: body.mode };
  if (body.mode === "computer") out.level = ["easy", "medium", "hard"].includes(body.level) ? body.level : "medium";
  if (body.mode === "friends") {
    out.spectators = body.spectators !== false;
    for (const name of Object.keys(TABLE_DEFAULTS)) if (TABLE_CHOICES[name].includes(body[name])) out[name] = body[name];
  }
  return out;
}

function showPlayAgain() {
  const body = lastGame();
  playAgainBox.hidden = !body;
  if (!body) return;
  const parts = [t(`variant.${body.variant}`)];
  if (schema[body.variant].players.length > 1) parts.push(t("home.players_n", { n: body.players }));
  parts.push(t(`mode.${body.mode}`) + (body.mode === "computer" ? ` (${t(`level.${body.level}`)})` : ""));
  const changed = Object.keys(body.options).length;
  if (changed) parts.push(t("home.options") + " " + t("home.options_changed", { n: changed }));
  const desc = document.getElementById("play-again-desc");
  desc.textContent = parts.join(" · ");
  playAgainButton.setAttribute("aria-describedby", "play-again-desc");
}

playAgainButton.addEventListener("click", () => {
  const body = lastGame();
  if (!body) return;
  if (body.mode === "friends") showTableSettings(body);
  createGame(body);
});

function absolute(url) {
  return new URL(url, location.href).href;
}

function showInvite(url) {
  const box = document.getElementById("invite");
  const link = absolute(url);
  document.getElementById("invite-link").value = link;
  document.getElementById("invite-go").href = url;
  const share = document.getElementById("invite-share");
  share.hidden = !canShare();
  box.hidden = false;
  box.scrollIntoView({ behavior: "smooth", block: "center" });
  document.getElementById("invite-copy").focus();
}

document.getElementById("invite-copy").addEventListener("click", () => copyText(document.getElementById("invite-link").value));
document.getElementById("invite-share").addEventListener("click", () => shareLink(document.getElementById("invite-link").value));

// ----------------------------------------------------------------------------- your games

const GROUPS = ["computer", "local", "friends"];

function gameLine(game) {
  const when = game.updated_at ? new Date(game.updated_at) : null;
  const names = (game.seats || [])
    .filter((s) => !s.you)
    .map((s) => (s.kind === "bot" ? t("seat.computer") : s.name || t("seat.player", { n: s.seat + 1 })))
    .join(", ");
  const scores = Array.isArray(game.scores) && game.scores.length ? game.scores.join(" – ") : "";
  const li = document.createElement("li");
  li.className = "game-line";
  li.dataset.gameId = game.game_id;
  li.innerHTML =
    `<div class="game-info"><strong>${escapeHTML(t(`variant.${game.variant}`))}</strong>` +
    (schema[game.variant] && schema[game.variant].players.length > 1 ? ` <span class="muted">${escapeHTML(t("home.players_n", { n: game.players }))}</span>` : "") +
    `<span class="muted small">${escapeHTML(t(`status.${game.status}`))}${scores ? " · " + escapeHTML(scores) : ""}${names ? " · " + escapeHTML(names) : ""}${when ? " · " + escapeHTML(when.toLocaleString()) : ""}</span></div>` +
    `<div class="game-actions"><a class="btn" href="${escapeHTML(game.url)}">${escapeHTML(t("home.continue"))}</a></div>`;
  if (game.mode === "computer" || game.mode === "local") {
    // a game nobody else plays can be given up (a friends table is left at the table)
    const drop = document.createElement("button");
    drop.type = "button";
    drop.className = "btn quiet";
    drop.dataset.action = "abandon";
    drop.textContent = t("home.abandon");
    drop.addEventListener("click", () => abandon(game));
    li.querySelector(".game-actions").append(drop);
  }
  return li;
}

async function abandon(game) {
  if (!window.confirm(t("home.abandon_confirm"))) return;
  try {
    await api(`/api/games/${encodeURIComponent(game.game_id)}/abandon`, { method: "POST" });
    toast(t("home.abandoned"));
  } catch (error) {
    toast(t("home.create_failed", { message: error.message }));
  }
  loadMe();
}

/** The most recent unfinished game, one tap away at the top of the page (a phone shows
 * "Your games" only far below). */
function showResume(games) {
  const box = document.getElementById("resume");
  if (!box) return;
  const latest = [...games].sort((a, b) => String(b.updated_at || "").localeCompare(String(a.updated_at || "")))[0];
  box.hidden = !latest;
  if (!latest) return;
  document.getElementById("resume-go").href = latest.url;
  const parts = [t(`variant.${latest.variant}`), t(`mode.${latest.mode}`)];
  if (Array.isArray(latest.scores) && latest.scores.length) parts.push(latest.scores.join(" – "));
  document.getElementById("resume-desc").textContent = parts.join(" · ");
}

async function loadMe() {
  let me;
  try {
    me = await api("/api/me");
  } catch {
    return;
  }
  if (me.name) document.getElementById("name-input").value = me.name;
  const games = me.games || [];
  showResume(games);
  const box = document.getElementById("games");
  box.replaceChildren();
  document.getElementById("games-empty").hidden = games.length > 0;
  for (const mode of GROUPS) {
    const mine = games.filter((g) => g.mode === mode);
    if (!mine.length) continue;
    const group = document.createElement("div");
    group.className = "game-group";
    group.dataset.mode = mode;
    group.innerHTML = `<h3>${escapeHTML(t(`games.group.${mode}`))}</h3>`;
    const list = document.createElement("ul");
    for (const g of mine) list.append(gameLine(g));
    group.append(list);
    box.append(group);
  }
}

document.getElementById("name-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("name-input");
  try {
    const out = await api("/api/me/name", { method: "POST", body: { name: input.value.trim() } });
    input.value = out.name;
    toast(t("home.name_saved"));
  } catch {
    toast(t("home.name_invalid"));
  }
});

onVariantChange();
showPlayAgain();
loadMe();
// The page's forms are sent by this script: their buttons stay disabled until it has wired
// them (home.html), since a tap before that would reload the page instead of starting a game.
for (const b of document.querySelectorAll("#new-game button[type=submit], #name-form button[type=submit]")) b.disabled = false;

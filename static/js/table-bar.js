// @ts-check
// Region: the bar above the table (variant, contract, scores, buttons) and the banner under it.
import { escapeHTML } from "./common.js";
import { colon, t } from "./i18n.js";
import { $ } from "./table-dom.js";
import { renderLiveBanner } from "./table-live.js";
import { contractHTML, seatName, sideName, takenHTML, variantTerm } from "./table-names.js";
import { S, legal, outOfTurn, scoringSides, view } from "./table-state.js";
import { lastTrick } from "./table-ui.js";

export function renderBar() {
  const v = view();
  $("bar-variant").textContent = t(`variant.${v.variant}`) + (v.traits.player_counts.length > 1 ? ` · ${t("home.players_n", { n: v.players })}` : "");
  $("bar-contract").innerHTML = v.contract ? contractHTML(v.contract) + takenHTML(v.taken, v.contract.taker) : "";
  // scores
  const sides = scoringSides();
  const parts = sides.map(
    (side) => `<span class="score-side"><span class="score-name">${escapeHTML(sideName(side))}</span> <b>${v.scores[side]}</b></span>`,
  );
  let target = "";
  if (v.traits.deal_is_game) target = `<span class="score-target">${escapeHTML(t("score.games_won"))}</span>`;
  else if (v.target) target = `<span class="score-target">${escapeHTML(t("score.target", { n: v.target }))}</span>`;
  else target = `<span class="score-target">${escapeHTML(t("opt.target.one_deal"))}</span>`;
  const reserve = v.reserve ? `<span class="score-reserve">${escapeHTML(t("score.reserve", { n: v.reserve, word: variantTerm("litige") }))}</span>` : "";
  $("scoreboard").innerHTML = `${parts.join('<span class="score-sep">·</span>')}${target}${reserve}`;
  $("scoreboard").setAttribute("aria-label", `${colon(t("table.score_sheet"))} ${sides.map((s) => `${sideName(s)} ${v.scores[s]}`).join(", ")}`);
  $("btn-last-trick").disabled = !lastTrick();
  const room = S.room || /** @type {Partial<import("./protocol-types.js").RoomModel>} */ ({});
  // a live tournament's table is dealt with its players seated: nobody to invite
  $("btn-invite").hidden = room.mode !== "friends" || !!(room.settings && room.settings.board);
  // a tournament board: the house players' level is the event's, and there are no hints
  const board = !!(room.settings && room.settings.board);
  $("level-switch").hidden = room.mode !== "computer" || board;
  // a hint (the hard bot's choice) in games against the computer, on the player's turn
  $("btn-hint").hidden = room.mode !== "computer" || S.role !== "seat" || board;
  $("btn-hint").disabled = !legal().length || outOfTurn();
  $("btn-leave").hidden = !(room.mode === "friends" && room.status === "playing" && S.role === "seat");
  if (room.level) $("level-select").value = room.level;
}

export function renderBanner() {
  const banner = $("banner");
  const room = S.room || /** @type {Partial<import("./protocol-types.js").RoomModel>} */ ({});
  let text = "";
  if (S.status !== "open") text = t("net.reconnecting");
  else if (room.paused) {
    const away = (room.seats || []).filter((s) => s.kind === "human" && !s.connected).map((s) => seatName(s.seat));
    text = t("room.paused", { names: away.join(", ") || "…" });
  } else if (S.role === "spectator") {
    text = t("room.spectating");
  }
  banner.hidden = !text;
  banner.textContent = text;
  banner.dataset.kind = S.status !== "open" ? "net" : room.paused ? "paused" : "info";
  renderLiveBanner();
}

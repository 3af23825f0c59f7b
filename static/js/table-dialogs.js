// @ts-check
// Region: the dialogs over the table: the deal summary, the match's end (with what this browser
// earned), the score sheet, the last trick and the bid history.
import { cardElement } from "./cards.js";
import { api, escapeHTML, fillBars } from "./common.js";
import { colon, t } from "./i18n.js";
import { $, app, button, openDialog } from "./table-dom.js";
import { awaitsMyContinue, consentButton, nextDealLine, refreshNextDealLines } from "./table-controls.js";
import {
  about,
  bidsTable,
  comboText,
  contractHTML,
  outcomeText,
  points,
  roundingText,
  seatName,
  seatWho,
  sideName,
  sideWho,
  takenHTML,
  variantTerm,
} from "./table-names.js";
import { byTag, playedBy } from "./table-live.js";
import { sendConsent } from "./table-send.js";
import { S, nextDeal, scoringSides, view } from "./table-state.js";
import { U, lastTrick } from "./table-ui.js";
import { resultTable } from "./words.js";

const resultRows = (result) => resultTable(result, { sides: scoringSides(), sideName, variant: view().variant });

function dealHeadline(result) {
  if (result.thrown_in) return t("result.thrown_in");
  const parts = [`${contractHTML(result.contract)}`, `<span class="outcome ${result.outcome}">${escapeHTML(outcomeText(result))}</span>`];
  if (result.capot_side !== null && result.capot_side !== undefined) {
    parts.push(`<span class="chip capot">${colon(escapeHTML(variantTerm("capot")))} ${escapeHTML(sideName(result.capot_side))}</span>`);
  }
  if (result.reserve) parts.push(`<span class="chip">${escapeHTML(t("score.reserve", { n: result.reserve, word: variantTerm("litige") }))}</span>`);
  if (result.reserve_paid) parts.push(`<span class="chip">${escapeHTML(about("result.reserve_paid", sideWho(result.reserve_paid_to), { points: points(result.reserve_paid) }))}</span>`);
  return parts.join(" ");
}

/** What each card cost: the replay's analysis of deal `number`, in a new tab (the table goes on). */
function analysisLink(number) {
  const href = `/replay/${encodeURIComponent(app.dataset.gameId)}?deal=${number}#analysis`;
  return `<p class="small analysis-link"><a class="deal-analysis" target="_blank" rel="noopener" href="${escapeHTML(href)}">${escapeHTML(t("analysis.link"))}</a></p>`;
}

export function showDealSummary(result) {
  const v = view();
  if (!result || result.thrown_in) return;
  U.dealSeen = result.number;
  $("dlg-deal-title").textContent = t("result.deal_n", { n: result.number + 1 });
  const decl = (result.declarations || [])
    .map((combos, seat) => (combos.length ? `<li>${colon(escapeHTML(seatName(seat)))} ${combos.map((c) => escapeHTML(comboText(c))).join(", ")}</li>` : ""))
    .join("");
  let html = `<p class="deal-headline">${dealHeadline(result)}</p>${resultRows(result)}`;
  if (decl) html += `<h3>${escapeHTML(t("result.declarations"))}</h3><ul class="decl-list">${decl}</ul>`;
  const rounding = roundingText(result.rounding);
  if (rounding) html += `<p class="muted small rounding-note">${escapeHTML(rounding)}</p>`;
  const sides = scoringSides();
  // where each deal is a game (the duel) the running score counts games won, not points
  const won = t("score.games_won");
  const total = v.traits.deal_is_game ? won.charAt(0).toLocaleUpperCase() + won.slice(1) : t("result.match_total");
  html += `<p class="match-line">${colon(escapeHTML(total))} ${sides.map((s) => `${escapeHTML(sideName(s))} <b>${result.totals_after[s]}</b>`).join(" · ")}${v.target ? ` <span class="muted">(${escapeHTML(t("score.target", { n: v.target }))})</span>` : ""}</p>`;
  if (v.traits.deal_is_game) {
    const w = result.winner_side;
    html += `<p class="winner-line">${escapeHTML(about("result.game_won_by", sideWho(w)))}</p>`;
  }
  html += analysisLink(result.number);
  $("deal-summary").innerHTML = html;
  if (v.traits.deal_is_game) showAwards($("deal-summary"), result.number); // each deal is a game
  const actions = $("deal-actions");
  actions.replaceChildren();
  // "Continue" closes the summary; when the server holds the next deal for the players, it is
  // also this browser's agreement to deal on (friends games deal on anyway when time runs out)
  const close = button(
    t("common.continue"),
    () => {
      if (!v.traits.deal_is_game && awaitsMyContinue()) sendConsent("next_deal");
      $("dlg-deal").close();
    },
    { cls: "btn primary", name: "continue" },
  );
  if (!v.traits.deal_is_game && nextDeal()) $("deal-summary").append(nextDealLine());
  if (v.traits.deal_is_game && S.role !== "spectator" && v.phase === "deal_over") {
    actions.append(
      button(
        t("consent.next_deal"),
        () => {
          sendConsent("next_deal");
          $("dlg-deal").close();
        },
        { cls: "btn primary", name: "next_deal" },
      ),
    );
    close.className = "btn";
    close.textContent = t("common.close");
  }
  actions.append(close);
  if (v.phase !== "match_over") openDialog("dlg-deal");
}

/** Keep the open dialogs in step with the state: the match's end opens, sheets refresh. */
export function renderDialogsLive() {
  const v = view();
  if (v.phase === "match_over" && !U.matchDismissed && !U.holding) showMatchOver();
  if (v.phase !== "match_over") {
    U.matchDismissed = false;
    if ($("dlg-match").open) $("dlg-match").close();
  }
  if ($("dlg-scores").open) fillScoreSheet();
  if ($("dlg-deal").open) refreshNextDealLines();
  if ($("dlg-match").open) fillMatchActions();
}

function showMatchOver() {
  const v = view();
  const sides = scoringSides();
  const winner = v.winner;
  $("dlg-match-title").textContent = winner === null || winner === undefined ? t("match.over") : about("match.winner", sideWho(winner));
  const last = v.results[v.results.length - 1];
  let html = "";
  if (last && !last.thrown_in && last.totals) html += `<p class="deal-headline">${dealHeadline(last)}</p>${resultRows(last)}${analysisLink(last.number)}`;
  html += `<p class="match-line">${colon(escapeHTML(t("result.match_total")))} ${sides.map((s) => `${escapeHTML(sideName(s))} <b>${v.scores[s]}</b>`).join(" · ")}</p>`;
  html += reserveDiscardedLine(v);
  $("match-summary").innerHTML = html;
  showAwards($("match-summary"), 0);
  fillMatchActions();
  if ($("dlg-deal").open) $("dlg-deal").close();
  openDialog("dlg-match");
}

// ----------------------------------------------------------------------------- experience

const AWARDS = { data: null, pending: null };

/** What this browser earned for a finished match (part 0) or duel game (part = deal), and how
 * far the next level is: fetched once the game ends, drawn into `box`. */
async function showAwards(box, part) {
  if (S.role === "spectator") return;
  let entry = AWARDS.data && AWARDS.data.results.find((r) => r.part === part);
  if (!entry) {
    for (let attempt = 0; attempt < 3 && !entry; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 400 * attempt));
      AWARDS.pending ||= api(`/api/games/${encodeURIComponent(app.dataset.gameId)}/awards`).finally(() => {
        AWARDS.pending = null;
      });
      try {
        AWARDS.data = await AWARDS.pending;
      } catch {
        return;
      }
      entry = AWARDS.data.results.find((r) => r.part === part);
    }
    if (!entry) return;
  }
  if (!box.isConnected) return;
  box.querySelector(".xp-box")?.remove();
  // the level as this match left it (a match reopened later: not today's level)
  box.append(awardsBox(entry, entry.progress || AWARDS.data.progress));
}

function awardsBox(entry, progress) {
  const el = document.createElement("div");
  el.className = "xp-box";
  el.id = "xp-box";
  el.dataset.xp = entry.xp.total;
  el.dataset.level = progress.level;
  el.dataset.totalXp = progress.xp;
  const levelBefore = entry.level_before || progress.level;
  let html = `<h3>${escapeHTML(t("xp.earned_title"))}</h3>`;
  if (entry.left) {
    html += `<p>${escapeHTML(t("xp.left"))}</p>`;
  } else {
    const lines = [[t("xp.finish"), entry.xp.finish]];
    if (entry.xp.win) lines.push([t("xp.win"), entry.xp.win]);
    if (entry.xp.deals) lines.push([t("xp.deals_n", { n: entry.deals_won }), entry.xp.deals]);
    if (entry.xp.tricks) lines.push([t("xp.tricks_n", { n: entry.tricks_won }), entry.xp.tricks]);
    html += `<ul>${lines.map(([label, xp]) => `<li><span>${escapeHTML(label)}</span> <b>+${xp}</b></li>`).join("")}</ul>`;
    html += `<p class="xp-total"><b>${escapeHTML(t("xp.total", { n: entry.xp.total }))}</b></p>`;
  }
  const up = progress.level > levelBefore ? ` <span class="level-up">${escapeHTML(t("xp.level_up", { n: progress.level }))}</span>` : "";
  html +=
    `<p class="level-line"><span class="lvl-badge">${progress.level}</span> ${escapeHTML(t("profile.level", { n: progress.level }))} · ${escapeHTML(t("profile.xp", { n: progress.xp }))}${up}</p>` +
    `<div class="xp-bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${progress.percent}"><span></span></div>` +
    `<p class="muted small">${escapeHTML(t("profile.to_next", { n: progress.to_next, level: progress.level + 1 }))}</p>`;
  if (entry.rating_after !== null && entry.rating_after !== undefined) {
    html += `<p class="small">${escapeHTML(t("xp.rating", { family: t(`family.${entry.family}`), before: entry.rating_before, after: entry.rating_after }))}</p>`;
  }
  html += `<p class="small"><a href="/profile">${escapeHTML(t("nav.profile"))}</a> · <a href="/replay/${encodeURIComponent(app.dataset.gameId)}">${escapeHTML(t("history.replay"))}</a></p>`;
  el.innerHTML = html;
  fillBars(el);
  return el;
}

function fillMatchActions() {
  const actions = $("match-actions");
  actions.replaceChildren();
  if (S.role !== "spectator") actions.append(consentButton("rematch", S.room && S.room.consent));
  actions.append(
    button(
      t("match.scores"),
      () => {
        fillScoreSheet();
        openDialog("dlg-scores");
      },
      { name: "sheet" },
    ),
  );
  const home = document.createElement("a");
  home.className = "btn";
  home.href = "/";
  home.textContent = t("common.home");
  actions.append(home);
}

export function fillScoreSheet() {
  const v = view();
  const sides = scoringSides();
  if (!v.results.length) {
    $("score-sheet").innerHTML = `<p class="muted">${escapeHTML(t("sheet.empty"))}</p>`;
    return;
  }
  let html = `<table class="score-sheet"><thead><tr><th scope="col">#</th><th scope="col">${escapeHTML(t("sheet.contract"))}</th>${sides
    .map((s) => `<th scope="col">${escapeHTML(sideName(s))}</th>`)
    .join("")}</tr></thead><tbody>`;
  for (const r of v.results) {
    if (r.thrown_in) {
      html += `<tr class="thrown"><td>${r.number + 1}</td><td colspan="${sides.length + 1}">${escapeHTML(t("result.thrown_in"))}</td></tr>`;
      continue;
    }
    const notes = [];
    notes.push(`<span class="outcome ${r.outcome}">${escapeHTML(outcomeText(r))}</span>`);
    if (r.capot_side !== null && r.capot_side !== undefined) notes.push(`${escapeHTML(variantTerm("capot"))}`);
    if (r.reserve) notes.push(escapeHTML(t("score.reserve", { n: r.reserve, word: variantTerm("litige") })));
    const cell = (s) => {
      const detail = [`${t("sheet.cards_short")} ${r.card_points[s]}`];
      if (r.declaration_points[s]) detail.push(`${t("sheet.decl_short")} ${r.declaration_points[s]}`);
      if (r.belote_points[s]) detail.push(`${variantTerm("belote")} ${r.belote_points[s]}`);
      return `<td><b>${r.recorded[s]}</b><span class="cell-detail">${escapeHTML(detail.join(" · "))}</span></td>`;
    };
    html += `<tr><td>${r.number + 1}</td><td class="sheet-contract">${contractHTML(r.contract)}<span class="cell-detail">${notes.join(" · ")}</span></td>${sides.map(cell).join("")}</tr>`;
  }
  html += `</tbody><tfoot><tr><th scope="row" colspan="2">${escapeHTML(v.traits.deal_is_game ? t("score.games_won") : t("result.match_total"))}${v.target ? ` · ${escapeHTML(t("score.target", { n: v.target }))}` : ""}</th>${sides
    .map((s) => `<td><b>${v.scores[s]}</b></td>`)
    .join("")}</tr></tfoot></table>`;
  if (v.reserve) html += `<p>${escapeHTML(t("score.reserve", { n: v.reserve, word: variantTerm("litige") }))}</p>`;
  html += reserveDiscardedLine(v);
  $("score-sheet").innerHTML = html;
}

/** The reserve still waiting when the match ended: discarded (RULES.md D-8). */
function reserveDiscardedLine(v) {
  if (!v.reserve_discarded) return "";
  const text = t("score.reserve_discarded", { n: v.reserve_discarded, word: variantTerm("litige") });
  return `<p class="reserve-discarded">${escapeHTML(text)}</p>`;
}

export function showScoreSheet() {
  if (!view()) return;
  fillScoreSheet();
  openDialog("dlg-scores");
}

export function showLastTrick() {
  const v = view();
  const last = v && lastTrick();
  if (!last) return;
  const box = $("last-trick");
  box.replaceChildren();
  const list = document.createElement("div");
  list.className = "last-trick-cards";
  for (const play of last.plays) {
    const item = document.createElement("figure");
    item.className = play.seat === last.winner ? "winner" : "";
    item.append(cardElement(play.card));
    const cap = document.createElement("figcaption");
    cap.textContent = seatName(play.seat) + (play.seat === last.leader ? ` · ${t("trick.lead_tag")}` : "");
    const by = playedBy(play.seat, play.card);
    if (by) cap.append(" ", byTag(by));
    item.append(cap);
    list.append(item);
  }
  box.append(list);
  const p = document.createElement("p");
  p.textContent = about("trick.won_by", seatWho(last.winner), { points: points(last.points) });
  box.append(p);
  openDialog("dlg-last");
}

export function showBidsHistory() {
  const v = view();
  if (!v) return;
  $("bids-history").innerHTML =
    bidsTable(v.bids) + (v.contract ? `<p class="contract-line">${colon(escapeHTML(t("table.contract")))} ${contractHTML(v.contract)}${takenHTML(v.taken, v.contract.taker)}</p>` : "");
  openDialog("dlg-bids");
}

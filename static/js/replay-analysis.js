// The replay's analysis of a finished deal (GET /api/games/{id}/analysis?deal=N, docs/protocol.md
// "Players"): asked for with a button (or at once when the page's address ends in
// #analysis), polled while the server computes it, then each decision of the analysed seats
// marked with what it cost, and a summary per seat. Every text goes in with textContent.
import { denomText, rankLabel, suitOf } from "./cards.js";
import { api } from "./common.js";
import { lang, t, tn } from "./i18n.js";
import { points } from "./words.js";

const POLL_MS = 1000;
const SUIT_SIGN = { C: "♣", D: "♦", H: "♥", S: "♠" };
const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });
const signed = new Intl.NumberFormat(lang, { maximumFractionDigits: 1, signDisplay: "exceptZero" });

/** Costs below this show as no cost (the analysis rounds to hundredths). */
const NOTHING = 0.05;

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** "J♠": the rank's letter in the page's language and the suit's sign. */
export const shortCard = (card) => `${rankLabel(card[0])}${SUIT_SIGN[suitOf(card)]}`;

/** `n` points, rounded to a tenth, in the page's language: the plural is chosen on the
 * number shown ("1 point" for 0.96, never "1 points"). */
export function pointsText(n) {
  const shown = Math.round(n * 10) / 10;
  return tn("count.points", shown, { n: number.format(shown) });
}

/** A seat's summary (`s`: the analysis's summary of that seat; `w`: {person, name}): its
 * costly cards and their points, then what its bidding cost when the list shows a bid that
 * cost something (bids are decisions too, not cards: said apart). */
export function seatSummary(s, w) {
  const cards = t(`analysis.summary.${w.person}`, {
    name: w.name,
    cards: tn("analysis.costly_cards", s.costly_cards, { n: number.format(s.costly_cards) }),
    points: pointsText(s.cost),
  });
  if (!(s.bid_cost >= NOTHING)) return cards;
  return `${cards} ${t(`analysis.bid_cost.${w.person}`, { name: w.name, points: pointsText(s.bid_cost) })}`;
}

/**
 * The analysis part of the replay viewer. `hooks`: gameId, seatName(seat), variant(),
 * current() -> {deal, step, finished}, go(deal, step).
 */
export function replayAnalysis(hooks) {
  const panel = $("analysis");
  const note = $("viewer-analysis");
  const byDeal = new Map(); // deal -> {state: "asking"|"waiting"|"done"|"error", body, error}
  const timers = new Map();

  const bidPlain = (a) => {
    const v = hooks.variant();
    if (a.type === "pass") return t(`bid.pass.${v}`);
    if (a.type === "double") return t(`bid.double.${v}`);
    if (a.type === "redouble") return t(`bid.redouble.${v}`);
    if (a.type !== "bid") return String(a.type);
    const value = a.value === undefined ? "" : `${a.value === "capot" ? t("bid.capot") : a.value} `;
    return `${value}${denomText(a.contract)}`;
  };

  /** The person the analysis speaks of: "you" when this browser held that seat alone. */
  const who = (body, seat) =>
    body.yours.length === 1 && body.yours[0] === seat ? { person: "you", name: "" } : { person: "player", name: hooks.seatName(seat) };

  async function ask(deal) {
    clearTimeout(timers.get(deal));
    const entry = byDeal.get(deal) || { state: "asking" };
    byDeal.set(deal, entry);
    try {
      const body = await api(`/api/games/${encodeURIComponent(hooks.gameId)}/analysis?deal=${deal}`);
      entry.body = body;
      entry.state = body.status === "done" ? "done" : "waiting";
      if (entry.state === "waiting") timers.set(deal, setTimeout(() => ask(deal), POLL_MS));
    } catch (error) {
      entry.state = "error";
      if (error.status === 403) entry.error = t("analysis.not_allowed");
      else if (error.status === 409) entry.error = t("analysis.not_finished");
      else entry.error = t("analysis.failed");
    }
    if (hooks.current().deal === deal) render();
  }

  /** "... cost {points}; {best} was best", or "were best" when several tie. */
  const costText = (key, cost, best, name) =>
    t(best.length > 1 ? `${key}_tie` : key, { points: pointsText(cost), best: best.map(name).join(", ") });

  /** What decision `x` cost: [the sentence on the mean, the details]. */
  function decisionText(x) {
    if (x.kind === "card") {
      const e = x.expected;
      const main = e.cost >= NOTHING ? costText("analysis.card.cost", e.cost, e.best, shortCard) : t("analysis.card.best");
      const real = x.real.cost >= NOTHING ? costText("analysis.card.real_cost", x.real.cost, x.real.best, shortCard) : t("analysis.card.real_best");
      return [main, `${tn("analysis.worlds", e.worlds)} ${real}`];
    }
    const main = x.cost >= NOTHING ? costText("analysis.bid.cost", x.cost, x.best, bidPlain) : t("analysis.bid.best");
    return [main, tn("analysis.worlds", x.worlds)];
  }

  function summary(body) {
    const box = el("div", "analysis-summary");
    box.id = "analysis-summary";
    for (const seat of body.seats) {
      const s = body.deal.summary[String(seat)];
      if (!s) continue;
      const w = who(body, seat);
      const line = el("p", "analysis-seat", seatSummary(s, w));
      line.dataset.seat = seat;
      line.dataset.costly = s.costly_cards;
      box.append(line);
      if (s.contract_worth !== undefined) {
        const worth = el("p", "analysis-contract", t(`analysis.contract.${w.person}`, { name: w.name, value: signed.format(s.contract_worth) }));
        worth.dataset.seat = seat;
        box.append(worth);
      }
    }
    // what "costly" counts, and that the list shows more
    box.append(el("p", "analysis-note muted small", t("analysis.costly_note", { points: pointsText(body.costly) })));
    return box;
  }

  function list(body, deal) {
    const ol = el("ol", "analysis-list");
    ol.id = "analysis-list";
    for (const x of body.deal.decisions) {
      const li = el("li", "analysis-item");
      const cost = x.kind === "card" ? x.expected.cost : x.cost;
      li.dataset.index = x.index;
      li.dataset.seat = x.seat;
      li.dataset.cost = cost;
      if (cost >= body.costly) li.classList.add("costly");
      const go = el("button", "link-btn");
      go.type = "button";
      const what = x.kind === "card" ? `${t("analysis.trick_n", { n: x.trick })} · ${shortCard(x.played)}` : `${t("analysis.bidding")} · ${bidPlain(x.action)}`;
      const w = who(body, x.seat);
      go.textContent = `${w.person === "you" ? t("seat.you") : w.name} · ${what}`;
      go.addEventListener("click", () => hooks.go(deal, x.index + 1));
      li.append(go, el("span", "analysis-cost", cost >= NOTHING ? t("analysis.item_cost", { points: pointsText(cost) }) : t("analysis.item_ok")));
      ol.append(li);
    }
    return ol;
  }

  function render() {
    const { deal, step, finished } = hooks.current();
    note.hidden = true;
    note.replaceChildren();
    if (!hooks.gameId || !finished) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const entry = byDeal.get(deal);
    const body = $("analysis-body");
    body.replaceChildren();
    const start = $("analysis-start");
    start.hidden = Boolean(entry) && entry.state !== "error";
    panel.dataset.state = entry ? entry.state : "idle";
    if (!entry) return;
    if (entry.state === "asking") body.append(el("p", "muted", t("analysis.queued")));
    else if (entry.state === "error") body.append(el("p", "form-error", entry.error));
    else if (entry.state === "waiting") {
      const p = entry.body;
      const text = p.status === "running" && p.total ? tn("analysis.progress", p.total, { done: p.done }) : t("analysis.queued");
      const status = el("p", "analysis-status", text);
      status.id = "analysis-status";
      body.append(status);
      if (p.total) {
        const bar = el("progress");
        bar.max = p.total;
        bar.value = p.done;
        bar.setAttribute("aria-label", text);
        body.append(bar);
      }
    } else {
      const data = entry.body;
      if (!data.deal.decisions.length) body.append(el("p", "muted", t("analysis.none")));
      else body.append(summary(data), list(data, deal));
      const x = data.deal.decisions.find((d) => d.index === step - 1);
      if (x) {
        const cost = x.kind === "card" ? x.expected.cost : x.cost;
        const [main, more] = decisionText(x);
        note.append(el("strong", "analysis-main", main), " ", el("span", "analysis-more small", more));
        note.dataset.cost = cost;
        note.classList.toggle("costly", cost >= data.costly);
        note.hidden = false;
      }
    }
  }

  $("analysis-start").addEventListener("click", () => {
    const { deal } = hooks.current();
    byDeal.set(deal, { state: "asking" });
    render();
    ask(deal);
  });

  return {
    render,
    /** Ask for the analysis of `deal` at once (the page was opened on #analysis). */
    ask(deal) {
      if (!byDeal.has(deal)) {
        byDeal.set(deal, { state: "asking" });
        ask(deal);
      }
    },
  };
}

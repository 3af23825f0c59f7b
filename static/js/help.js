// The rules at the table: a panel with the current variant's rules in brief (the rules page's
// texts, rendered by the server into templates/table_help.html), the options of this game, and
// the card orders with their points for the contract being played.
import { denomText, rankLabel, suitIcon } from "./cards.js";
import { escapeHTML } from "./common.js";
import { t, tn } from "./i18n.js";
import { pageTraits } from "./table-dom.js";

// The form's order of the options (app/web/pages.py OPTION_ORDER), and when one means nothing.
const OPTION_ORDER = [
  "target",
  "bidding_mode",
  "allow_sa_ta",
  "declarations",
  "auto_declare",
  "auto_belote",
  "undertrump_required",
  "tie_rule",
  "eight_card_belot",
  "seven_exchange",
  "valat_can_end_without_bonus",
];
// An option means something only while these others, when the game has them, have these values
// (app/web/pages.py OPTION_CONDITIONS: SA/TA belong to the free bidding of the modes that have one).
const WHEN = {
  allow_sa_ta: { bidding_mode: "free" },
  auto_declare: { declarations: true },
  eight_card_belot: { declarations: true },
};
const ONLY_PLAYERS = { seven_exchange: [2] };

// Card orders (RULES.md §0.2), highest first, and point scales (§0.3).
const TRUMP_ORDER = ["J", "9", "A", "T", "K", "Q", "8", "7"];
const PLAIN_ORDER = ["A", "T", "K", "Q", "J", "9", "8", "7"];
const SCALES = {
  trump: { J: 20, 9: 14, A: 11, T: 10, K: 4, Q: 3, 8: 0, 7: 0 },
  plain: { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0, 8: 0, 7: 0 },
  fr_sa: { A: 19, T: 10, K: 4, Q: 3, J: 2, 9: 0, 8: 0, 7: 0 },
  fr_ta: { J: 14, 9: 9, A: 6, T: 5, K: 3, Q: 1, 8: 0, 7: 0 },
};

/** The view's traits, or before the first view the variant's (templates/table_help.html). */
const traitsOf = (v) => v.traits || pageTraits(v.variant);

function shownOptions(v) {
  const options = v.options || {};
  return OPTION_ORDER.filter((name) => {
    if (!(name in options)) return false;
    if (ONLY_PLAYERS[name] && !ONLY_PLAYERS[name].includes(v.players)) return false;
    const cond = WHEN[name];
    return !cond || Object.entries(cond).every(([other, value]) => !(other in options) || options[other] === value);
  });
}

function optionValue(name, value) {
  if (name === "target") return value === "one_deal" ? t("opt.target.one_deal") : tn("count.points", value);
  if (typeof value === "boolean") return t(value ? "help.on" : "help.off");
  return t(`opt.${name}.${value}`);
}

function optionsHTML(v) {
  const names = shownOptions(v);
  const rows = names.map(
    (name) => `<tr data-option="${name}"><th scope="row">${escapeHTML(t(`opt.${name}.label`))}</th><td>${escapeHTML(optionValue(name, v.options[name]))}</td></tr>`,
  );
  if (!("target" in (v.options || {})) && traitsOf(v).deal_is_game) {
    rows.unshift(`<tr data-option="target"><th scope="row">${escapeHTML(t("opt.target.label"))}</th><td>${escapeHTML(t("opt.target.one_deal"))}</td></tr>`);
  }
  if (!rows.length) return "";
  return `<h3>${escapeHTML(t("help.options"))}</h3><table class="help-options">${rows.join("")}</table>`;
}

/** Whether no-trump and all-trump contracts can be played in this game. Before the first
 * view, the variant's default traits, or a room whose options turn them on. */
function hasNoTrumps(v) {
  if (traitsOf(v).denominations.includes("NT")) return true;
  return !v.traits && Boolean((v.options || {}).allow_sa_ta) && (v.options.bidding_mode || "free") === "free";
}

function orderRow(kind, label, order, scale, current) {
  const cells = order
    .map((r) => `<td><span class="help-rank">${escapeHTML(rankLabel(r))}</span><span class="help-points">${scale[r]}</span></td>`)
    .join("");
  return `<tr data-order="${kind}"${current ? ' class="current"' : ""}><th scope="row">${label}</th>${cells}</tr>`;
}

function ordersHTML(v) {
  const denom = v.contract ? v.contract.denom : null;
  const traits = traitsOf(v);
  const french = traits.points_scale === "french";
  const rows = [];
  const suit = ["C", "D", "H", "S"].includes(denom) ? denom : null;
  if (!denom || suit) {
    const trumpLabel = escapeHTML(t("help.order.trump")) + (suit ? ` ${suitIcon(suit)}<span class="visually-hidden">${escapeHTML(denomText(suit))}</span>` : "");
    rows.push(orderRow("trump", trumpLabel, TRUMP_ORDER, SCALES.trump, Boolean(suit)));
    rows.push(orderRow("plain", escapeHTML(t("help.order.plain")), PLAIN_ORDER, SCALES.plain, Boolean(suit)));
  }
  if (denom === "NT" || (!denom && hasNoTrumps(v))) {
    rows.push(orderRow("NT", escapeHTML(t("help.order.nt")), PLAIN_ORDER, french ? SCALES.fr_sa : SCALES.plain, denom === "NT"));
  }
  if (denom === "AT" || (!denom && hasNoTrumps(v))) {
    rows.push(orderRow("AT", escapeHTML(t("help.order.at")), TRUMP_ORDER, french ? SCALES.fr_ta : SCALES.trump, denom === "AT"));
  }
  let html = `<h3>${escapeHTML(t("help.orders"))}</h3><p class="small">${escapeHTML(t("help.orders_note"))}</p>`;
  html += `<table class="help-orders">${rows.join("")}</table>`;
  if (traits.no_trumps_doubled && (denom === "NT" || !denom)) html += `<p class="small muted">${escapeHTML(t("help.nt_doubled"))}</p>`;
  if (denom) html += `<p class="small help-current">${escapeHTML(t("help.current", { contract: denomText(denom) }))}</p>`;
  return html;
}

/** Fill the help dialog for the view `v` (variant, players, options, contract). */
export function fillHelp(v) {
  const tpl = document.getElementById(`help-rules-${v.variant}`);
  document.getElementById("dlg-help-title").textContent = tpl ? tpl.dataset.title : t(`variant.${v.variant}`);
  const full = document.getElementById("help-full");
  if (full) full.href = `/rules/${encodeURIComponent(v.variant)}`;
  const body = document.getElementById("help-body");
  body.innerHTML = ordersHTML(v) + optionsHTML(v);
  if (tpl) {
    const rules = document.createElement("section");
    rules.className = "help-rules";
    rules.innerHTML = `<h3>${escapeHTML(t("help.summary"))}</h3>`;
    rules.append(tpl.content.cloneNode(true));
    body.append(rules);
  }
  const keys = document.createElement("section");
  keys.className = "help-keys";
  keys.innerHTML = `<h3>${escapeHTML(t("help.keys"))}</h3><p class="small">${escapeHTML(t("help.keys_text"))}</p>`;
  body.append(keys);
}

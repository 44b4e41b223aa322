// A player's profile: the rating history as a chart (the rating cards, per game and pool, with
// the place and the provisional mark, come rendered by the server).
import { getAll, pageData } from "./api.js";
import { lineChart } from "./chart.js";
import { flash, h, rerender } from "./dom.js";
import { formatNumber, gettext, interpolate } from "./i18n.js";

const player = pageData("player-data");
const historyRoot = document.getElementById("history");
const gameSelect = document.getElementById("history-game");
const poolSelect = document.getElementById("history-pool");

/** The history shown first: the game and pool with the most rated games (the cards are server-rendered). */
function chooseHistory() {
  if (!player.rated.length) return;
  const most = player.rated.reduce((a, b) => (b.games > a.games ? b : a));
  gameSelect.value = most.game;
  poolSelect.value = most.pool;
}

async function loadHistory() {
  const game = gameSelect.value;
  const pool = poolSelect.value;
  let rows;
  try {
    rows = await getAll(`ratings/${game}/players/${encodeURIComponent(player.username)}/history`, { pool }, { most: 500 });
  } catch (err) {
    flash(interpolate(gettext("The rating history could not be loaded: %(error)s"), { error: err.message }), "error");
    return;
  }
  if (!rows.length) {
    rerender(historyRoot, () => h("p", { class: "muted" }, gettext("No rated matches in this game on this board yet.")));
    return;
  }
  // A match whose result its tournament changed is rated again: a row takes the old rating back
  // (left out of the line), the next rates the new result (marked).
  const rated = rows.filter((row) => !row.reversal);
  const changed = (row) => (row.revision ? ` ${gettext("(result changed by the organiser)")}` : "");
  const fixed = (value, digits) => formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  // The rating as the cards show it after each match (ratings.selectors.shown_rating): μ with a "?"
  // until the rating settles, then μ − 3σ, never below 0.
  const shown = (row, digits) => (rated.indexOf(row) + 1 < player.provisional_games
    ? `${fixed(row.mu_after, digits)}?` : fixed(Math.max(row.rating_after, 0), digits));
  // The line is μ, the band from the rating up to μ + 3σ: the band narrows as the games settle it,
  // and no point is drawn below 0 (a new player's μ − 3σ often is).
  const points = rated.map((row, i) => ({
    y: row.mu_after,
    low: Math.max(row.rating_after, 0),
    high: row.mu_after + 3 * row.sigma_after,
    label: interpolate(gettext("Match %(number)s (table %(table)s): rating %(rating)s, μ %(mu)s, rank %(rank)s"), {
      number: i + 1, table: row.match, rating: shown(row, 1), mu: fixed(row.mu_after, 1), rank: row.rank,
    }) + changed(row),
  }));
  const title = interpolate(gettext("%(game)s rating (%(board)s)"),
    { game: gameSelect.selectedOptions[0].textContent, board: poolSelect.selectedOptions[0].textContent });
  rerender(historyRoot, () => [
    h("figure", { class: "chart-figure" }, lineChart(points, { title, yLabel: "μ" }),
      h("figcaption", { class: "muted small" }, gettext("The line is the skill estimate μ; the band runs from the rating (μ − 3σ, from 0 up) to μ + 3σ and narrows as games settle it."))),
    h("details", {}, h("summary", {}, gettext("The history as a table")),
      h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": gettext("The history as a table") }, h("table", { class: "data" },
        h("thead", {}, h("tr", {}, ["#", gettext("Table"), gettext("Rank"), "μ", "σ", gettext("Rating")].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows.map((row) => h("tr", {},
          h("td", {}, row.reversal ? "" : String(rated.indexOf(row) + 1)),
          h("td", {}, h("a", { href: `/tables/${row.match}/replay` }, `#${row.match}`)),
          h("td", {}, row.reversal ? interpolate(gettext("rank %(rank)s taken back"), { rank: row.rank }) : `${row.rank}${changed(row)}`),
          h("td", { class: "num" }, fixed(row.mu_after, 2)),
          h("td", { class: "num" }, fixed(row.sigma_after, 2)), h("td", { class: "num" }, row.reversal ? fixed(Math.max(row.rating_after, 0), 2) : shown(row, 2)))))))),
  ]);
}

gameSelect.addEventListener("change", loadHistory);
poolSelect.addEventListener("change", loadHistory);
chooseHistory();
loadHistory();

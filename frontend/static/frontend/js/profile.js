// A player's profile: the rating history as a chart (the rating cards, per game and pool, with
// the place and the provisional mark, come rendered by the server).
import { getAll, pageData } from "./api.js";
import { lineChart } from "./chart.js";
import { flash, h, rerender } from "./dom.js";

const player = pageData("player-data");
const POOLS = { people: "People", bots: "Against bots" };
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
    flash(`The rating history could not be loaded: ${err.message}`, "error");
    return;
  }
  if (!rows.length) {
    rerender(historyRoot, () => h("p", { class: "muted" }, "No rated matches in this game on this board yet."));
    return;
  }
  // A match whose result its tournament changed is rated again: a row takes the old rating back
  // (left out of the line), the next rates the new result (marked).
  const rated = rows.filter((row) => !row.reversal);
  const changed = (row) => (row.revision ? " (result changed by the organiser)" : "");
  const points = rated.map((row, i) => ({
    y: row.rating_after,
    low: row.mu_after - row.sigma_after,
    high: row.mu_after + row.sigma_after,
    label: `Match ${i + 1} (table ${row.match}): rating ${row.rating_after.toFixed(1)}, μ ${row.mu_after.toFixed(1)}, rank ${row.rank}${changed(row)}`,
  }));
  const title = `${gameSelect.selectedOptions[0].textContent} rating (${POOLS[pool].toLowerCase()})`;
  rerender(historyRoot, () => [
    h("figure", { class: "chart-figure" }, lineChart(points, { title, yLabel: "μ − 3σ" }),
      h("figcaption", { class: "muted small" }, "The line is the rating (μ − 3σ); the band spans μ ± σ.")),
    h("details", {}, h("summary", {}, "The history as a table"),
      h("div", { class: "table-scroll" }, h("table", { class: "data" },
        h("thead", {}, h("tr", {}, ["#", "Table", "Rank", "μ", "σ", "Rating"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows.map((row) => h("tr", {},
          h("td", {}, row.reversal ? "" : String(rated.indexOf(row) + 1)),
          h("td", {}, h("a", { href: `/tables/${row.match}/replay` }, `#${row.match}`)),
          h("td", {}, row.reversal ? `rank ${row.rank} taken back` : `${row.rank}${changed(row)}`),
          h("td", { class: "num" }, row.mu_after.toFixed(2)),
          h("td", { class: "num" }, row.sigma_after.toFixed(2)), h("td", { class: "num" }, row.rating_after.toFixed(2)))))))),
  ]);
}

gameSelect.addEventListener("change", loadHistory);
poolSelect.addEventListener("change", loadHistory);
chooseHistory();
loadHistory();

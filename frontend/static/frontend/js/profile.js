// A player's profile: a rating per game and board, and the rating history as a chart.
import { get, getAll, pageData } from "./api.js";
import { lineChart } from "./chart.js";
import { flash, h, plural, rerender } from "./dom.js";

const player = pageData("player-data");
const games = pageData("games-data");
const POOLS = { people: "People", bots: "With bots" };
const ratingsRoot = document.getElementById("ratings");
const historyRoot = document.getElementById("history");
const gameSelect = document.getElementById("history-game");
const poolSelect = document.getElementById("history-pool");

async function ratingRow(game, pool) {
  const board = await get(`ratings/${game.slug}/leaderboard`, { player: player.username, pool, limit: 1 });
  return { game, pool, row: board.player };
}

function ratingCard({ game, pool, row }) {
  const board = pool === "bots" ? `/bots/${game.slug}` : `/leaderboards/${game.slug}`;
  return h("div", { class: "rating-card", "data-game": game.slug, "data-pool": pool },
    h("h3", {}, game.title, " ", h("span", { class: "muted small" }, POOLS[pool])),
    h("p", { class: "big" }, row.rating.toFixed(1)),
    h("p", { class: "small" }, `μ ${row.mu.toFixed(1)} · σ ${row.sigma.toFixed(2)}`),
    h("p", { class: "small" }, `${plural(row.games, "game")}, ${plural(row.wins, "win")}`,
      row.position ? [" · ", h("a", { href: board }, `#${row.position} on the board`)] : " · not on the board yet"));
}

async function loadRatings() {
  const rows = await Promise.all(games.flatMap((game) => Object.keys(POOLS).map((pool) => ratingRow(game, pool))));
  const rated = rows.filter((r) => r.row);
  rerender(ratingsRoot, () => (rated.length ? rated.map(ratingCard)
    : h("p", { class: "muted" }, "No rated games yet. Rated tables count once they finish.")));
  ratingsRoot.setAttribute("aria-busy", "false");
  if (rated.length) {
    const best = rated.reduce((a, b) => (b.row.games > a.row.games ? b : a));
    gameSelect.value = best.game.slug;
    poolSelect.value = best.pool;
  }
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
  const points = rows.map((row, i) => ({
    y: row.rating_after,
    low: row.mu_after - row.sigma_after,
    high: row.mu_after + row.sigma_after,
    label: `Match ${i + 1} (table ${row.match}): rating ${row.rating_after.toFixed(1)}, μ ${row.mu_after.toFixed(1)}, rank ${row.rank}`,
  }));
  const title = `${gameSelect.selectedOptions[0].textContent} rating (${POOLS[pool].toLowerCase()})`;
  rerender(historyRoot, () => [
    h("figure", { class: "chart-figure" }, lineChart(points, { title, yLabel: "μ − 3σ" }),
      h("figcaption", { class: "muted small" }, "The line is the rating (μ − 3σ); the band spans μ ± σ.")),
    h("details", {}, h("summary", {}, "The history as a table"),
      h("div", { class: "table-scroll" }, h("table", { class: "data" },
        h("thead", {}, h("tr", {}, ["#", "Table", "Rank", "μ", "σ", "Rating"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows.map((row, i) => h("tr", {},
          h("td", {}, String(i + 1)), h("td", {}, h("a", { href: `/tables/${row.match}/replay` }, `#${row.match}`)),
          h("td", {}, String(row.rank)), h("td", { class: "num" }, row.mu_after.toFixed(2)),
          h("td", { class: "num" }, row.sigma_after.toFixed(2)), h("td", { class: "num" }, row.rating_after.toFixed(2)))))))),
  ]);
}

gameSelect.addEventListener("change", loadHistory);
poolSelect.addEventListener("change", loadHistory);
loadRatings()
  .catch((err) => flash(`Ratings could not be loaded: ${err.message}`, "error"))
  .finally(loadHistory);

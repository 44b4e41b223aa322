// A leaderboard (the people's board, or the bots' pool's board of people and bots): pages, a
// search that jumps to a player's page, the viewer's own place, and the marks: provisional
// players (fewer than `provisional_games` rated games) and bots.
import { get, pageData } from "./api.js";
import { flash, h, plural, rerender, timeAgo } from "./dom.js";

const data = pageData("board-data");
const games = pageData("games-data");
const game = games.find((g) => g.slug === data.game);
const bots = data.pool === "bots";
const PAGE = 25;
const PROVISIONAL = data.provisional_games;
const params = new URLSearchParams(location.search);

const el = {
  table: document.getElementById("board-table"),
  tableBox: document.querySelector("#board-page .table-scroll"),
  empty: document.getElementById("board-empty"),
  body: document.querySelector("#board-table tbody"),
  me: document.getElementById("me"),
  info: document.getElementById("page-info"),
  prev: document.getElementById("prev-page"),
  next: document.getElementById("next-page"),
  search: document.getElementById("search"),
  suggestions: document.getElementById("search-suggestions"),
  minGames: document.getElementById("min-games"),
  kind: document.getElementById("kind"), // the bots' pool only
  form: document.getElementById("search-form"),
};

const state = {
  offset: Number(params.get("offset")) || 0,
  minGames: chosenMinimum(params.get("min_games")),
  kind: bots && ["user", "bot"].includes(params.get("kind")) ? params.get("kind") : "",
  highlight: params.get("highlight") || null, // competitor to mark
  count: 0,
};

/** The minimum of games from the address, as one of the select's options (a new one if need be). */
function chosenMinimum(asked) {
  const games = Number(asked);
  if (!asked || !Number.isInteger(games) || games <= 1) return "1"; // 0 and 1 list the same: everyone rated
  if (![...el.minGames.options].some((o) => o.value === String(games))) el.minGames.append(h("option", { value: games }, plural(games, "game")));
  return String(games);
}

function provisionalMark(row) {
  return h("span", { class: "badge badge-provisional", title: `Provisional: ${plural(row.games, "rated game")} so far, fewer than ${PROVISIONAL}. The rating can still move a lot.` }, "provisional");
}

function rowNode(row) {
  const href = row.user ? `/players/by-id/${row.user}` : null;
  const mine = data.user && row.user === data.user.id;
  return h("tr", { class: [(mine || row.competitor === state.highlight) && "is-me", row.provisional && "is-provisional"],
    "data-competitor": row.competitor, "data-kind": row.kind },
    h("td", { class: "num" }, row.position ? String(row.position) : "–"),
    h("th", { scope: "row" }, href ? h("a", { href }, row.name) : row.name, mine ? " (you)" : "",
      row.kind === "bot" ? [" ", h("span", { class: "badge badge-bot", title: "A computer player" }, "bot")] : null,
      row.provisional ? [" ", provisionalMark(row)] : null),
    h("td", { class: "num" }, row.rating.toFixed(1)),
    h("td", { class: "num" }, row.mu.toFixed(1)),
    h("td", { class: "num" }, row.sigma.toFixed(2)),
    h("td", { class: "num" }, String(row.games)),
    h("td", { class: "num" }, String(row.wins)),
    h("td", {}, row.last_played_at ? timeAgo(row.last_played_at) : "—"));
}

async function load() {
  el.table.setAttribute("aria-busy", "true");
  const query = { pool: data.pool, kind: state.kind, limit: PAGE, offset: state.offset, min_games: state.minGames };
  let page;
  try {
    page = await get(`ratings/${data.game}/leaderboard`, query);
  } catch (err) {
    flash(`The board could not be loaded: ${err.message}`, "error");
    return;
  }
  state.count = page.count;
  // An empty board says so below the table, not in a row as wide as the table's columns
  // (which a phone would scroll sideways to read).
  rerender(el.body, () => page.results.map(rowNode));
  el.tableBox.hidden = !page.results.length;
  el.empty.hidden = Boolean(page.results.length);
  rerender(el.empty, () => (page.results.length ? null : emptyBoard()));
  el.table.setAttribute("aria-busy", "false");
  const pages = Math.max(1, Math.ceil(page.count / PAGE));
  const current = Math.floor(state.offset / PAGE) + 1;
  const listed = { user: ["player", "players"], bot: ["bot", "bots"] }[state.kind]
    || (bots ? ["player or bot", "players and bots"] : ["player", "players"]);
  el.info.textContent = `Page ${current} of ${pages} · ${plural(page.count, ...listed)}`;
  el.prev.disabled = state.offset === 0;
  el.next.disabled = state.offset + PAGE >= page.count;
  renderMe(page.player);
  const url = new URL(location.href);
  url.searchParams.set("offset", state.offset);
  url.searchParams.set("min_games", state.minGames);
  if (state.kind) url.searchParams.set("kind", state.kind); else url.searchParams.delete("kind");
  if (state.highlight) url.searchParams.set("highlight", state.highlight); else url.searchParams.delete("highlight");
  history.replaceState(null, "", url);
}

const PLAY_LINK = "/#create-title"; // the lobby's "Open a table" form (bots start at once)
const OTHER_BOARD = bots ? { href: `/leaderboards/${data.game}`, text: "the people's board" }
  : { href: `/bots/${data.game}`, text: "the People and bots board" };
const link = (href, text) => h("a", { href }, text);

/** Where the signed-in viewer stands on this board, or why they are not on it and how to get on it;
 * for an anonymous visitor, what the board lists and how to get on it. */
function renderMe(row) {
  rerender(el.me, () => h("div", { class: "standing", id: "standing" }, data.user ? standing(row) : howToGetOn()));
}

function howToGetOn() {
  const next = encodeURIComponent(location.pathname);
  const lists = bots ? h("p", {}, `This board lists everyone rated at ${data.title} tables with a bot: people and the bots themselves.`)
    : h("p", {}, `This board lists people rated at ${data.title} tables among people only; games with a bot count on `,
      link(OTHER_BOARD.href, OTHER_BOARD.text), ".");
  return [lists,
  h("p", {}, "To get on it, ", link(`/signup?next=${next}`, "sign up"), " or ", link(`/login?next=${next}`, "log in"),
    `, then finish a rated game of ${data.title} ${bots ? "against a bot" : "against other people"}.`)];
}

function standing(row) {
  const other = data.other_board_games;
  if (!row) {
    if (bots) {
      return [h("p", {}, `You have not played a rated game of ${data.title} against a bot yet: `, link(PLAY_LINK, "play one against a bot"), "."),
        other ? h("p", { class: "muted" }, `Your ${plural(other, "rated game")} against people count on `, link(OTHER_BOARD.href, OTHER_BOARD.text), ".") : null];
    }
    if (other) {
      return [h("p", {}, "This board lists people only; your games against bots are on ", link(OTHER_BOARD.href, OTHER_BOARD.text), "."),
        h("p", { class: "muted" }, "To get on this one, ", link(PLAY_LINK, "open a rated table"), " for people and finish a game there.")];
    }
    return [h("p", {}, `You have not played a rated game of ${data.title} yet: `, link(PLAY_LINK, "play one against a bot"),
      " (it counts on ", link(OTHER_BOARD.href, OTHER_BOARD.text), "), or open a rated table for people to get on this board.")];
  }
  const settling = row.provisional
    ? h("p", {}, provisionalMark(row), ` ${plural(PROVISIONAL - row.games, "more rated game")} until your rating settles (${plural(row.games, "game")} so far).`)
    : null;
  if (!row.position) {
    return [h("p", {}, `Your rating is ${row.rating.toFixed(1)} after ${plural(row.games, "game")}; `,
      state.kind === "bot" ? "the board shows bots only." : `the board lists players with at least ${plural(Number(state.minGames), "game")}.`), settling];
  }
  return [h("p", { class: "banner" }, `You are #${row.position} of ${state.count} with a rating of ${row.rating.toFixed(1)}. `,
    h("button", { type: "button", class: "btn btn-small", onclick: () => jumpTo(row) }, "Show my place")), settling];
}

/** An empty board says why it is empty and what fills it. */
function emptyBoard() {
  if (state.offset) return "No more rows.";
  if (Number(state.minGames) > 1) {
    return `Nobody on this board has at least ${plural(Number(state.minGames), "game")} yet. Lower "At least" to see everyone.`;
  }
  return [`Nobody is on this board yet: it fills as people finish rated games of ${data.title} ${bots ? "with a bot at the table" : "among people"}. `,
    link(PLAY_LINK, bots ? "Play one against a bot" : "Open a table")];
}

function jumpTo(row) {
  state.highlight = row.competitor;
  state.offset = Math.floor((row.position - 1) / PAGE) * PAGE;
  load();
}

async function find(event) {
  event.preventDefault();
  const text = el.search.value.trim();
  if (!text) return;
  let ref = null;
  if (bots) {
    const bot = game.bots.find((b) => b.toLowerCase() === text.toLowerCase());
    if (bot) ref = `bot:${bot}`;
  }
  if (!ref) {
    const found = await get("/players/search", { q: text });
    const exact = found.results.find((r) => r.username.toLowerCase() === text.toLowerCase()) || (found.results.length === 1 ? found.results[0] : null);
    if (exact) ref = exact.username;
  }
  if (!ref) {
    flash(`No ${bots ? "player or bot" : "player"} called “${text}”.`, "error");
    return;
  }
  const board = await get(`ratings/${data.game}/leaderboard`, { pool: data.pool, kind: state.kind, limit: 1, player: ref, min_games: state.minGames });
  const row = board.player;
  if (!row) {
    flash(`${text} has no rating on this board yet.`);
    return;
  }
  if (!row.position) {
    flash(row.games < Number(state.minGames)
      ? `${row.name} has ${plural(row.games, "game")}: fewer than this board's minimum. Lower "At least" to list them.`
      : `${row.name} is not shown: choose "People and bots" to list them.`);
    return;
  }
  flash(`${row.name} is #${row.position}.`);
  jumpTo(row);
}

let suggestTimer = null;
async function suggest() {
  const text = el.search.value.trim();
  const botOptions = bots ? game.bots.map((b) => h("option", { value: b }, "bot")) : [];
  if (text.length < 1) {
    el.suggestions.replaceChildren(...botOptions);
    return;
  }
  const found = await get("/players/search", { q: text });
  el.suggestions.replaceChildren(...botOptions, ...found.results.map((r) => h("option", { value: r.username }, r.name)));
}

el.search.addEventListener("input", () => {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(() => suggest().catch(() => {}), 200);
});
el.form.addEventListener("submit", (event) => find(event).catch((err) => flash(err.message, "error")));
el.minGames.value = state.minGames;
el.minGames.addEventListener("change", () => { state.minGames = el.minGames.value; state.offset = 0; load(); });
if (el.kind) {
  el.kind.value = state.kind;
  el.kind.addEventListener("change", () => { state.kind = el.kind.value; state.offset = 0; load(); });
}
el.prev.addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); load(); });
el.next.addEventListener("click", () => { state.offset += PAGE; load(); });
if (bots) suggest();
load();

const best = document.getElementById("best-results");
if (best) {
  get(`ratings/${data.game}/best-results`, { pool: "people", limit: 10 }).then((page) => {
    rerender(best, () => (page.results.length ? h("table", { class: "data" },
      h("thead", {}, h("tr", {}, ["Cards left", "Players", "Team", "Table"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, page.results.map((r) => h("tr", {},
        h("td", {}, r.won ? "0 (won)" : String(r.cards_left)), h("td", {}, String(r.players)),
        h("td", {}, r.team.map((m) => m.name).join(", ")),
        h("td", {}, h("a", { href: `/tables/${r.match}/replay` }, `#${r.match}`))))))
      : h("p", { class: "muted" }, "No rated results yet.")));
  }).catch((err) => flash(err.message, "error"));
}

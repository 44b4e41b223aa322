// A leaderboard (the people's board, or the bots' pool's board of people and bots): pages, a
// search that jumps to a player's page, the viewer's own place, and the marks: provisional
// players (fewer than `provisional_games` rated games) and bots.
import { get, pageData } from "./api.js";
import { flash, h, rerender } from "./dom.js";
import { countText, formatDateTime, formatFixed, formatNumber, gettext, interpolate, ngettext } from "./i18n.js";

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

const gamesText = (count) => countText(ngettext("%(count)s game", "%(count)s games", count), count);
const ratedGamesText = (count) => countText(ngettext("%(count)s rated game", "%(count)s rated games", count), count);

/** The minimum of games from the address, as one of the select's options (a new one if need be). */
function chosenMinimum(asked) {
  const games = Number(asked);
  if (!asked || !Number.isInteger(games) || games <= 1) return "1"; // 0 and 1 list the same: everyone rated
  if (![...el.minGames.options].some((o) => o.value === String(games))) el.minGames.append(h("option", { value: games }, gamesText(games)));
  return String(games);
}

function provisionalMark(row) {
  const title = interpolate(gettext("Provisional: %(games)s so far, fewer than %(needed)s. The rating can still move a lot."),
    { games: ratedGamesText(row.games), needed: formatNumber(PROVISIONAL) });
  return h("span", { class: "badge badge-provisional", title }, gettext("provisional"));
}

/** The rating as written beside a name: μ with a "?" while provisional, then μ − 3σ from 0 up
 * (the API's shown_rating); the board's order is μ − 3σ all the same. */
const ratingText = (row) => formatFixed(row.shown_rating, 1) + (row.provisional ? "?" : "");

function rowNode(row) {
  const href = row.user ? `/players/by-id/${row.user}` : null;
  const mine = data.user && row.user === data.user.id;
  return h("tr", { class: [(mine || row.competitor === state.highlight) && "is-me", row.provisional && "is-provisional"],
    "data-competitor": row.competitor, "data-kind": row.kind },
    h("td", { class: "num" }, row.position ? formatNumber(row.position) : "–"),
    h("th", { scope: "row" }, href ? h("a", { href }, row.name) : row.name, mine ? ` (${gettext("you")})` : "",
      row.kind === "bot" ? [" ", h("span", { class: "badge badge-bot", title: gettext("A computer player") }, gettext("bot"))] : null,
      row.provisional ? [" ", provisionalMark(row)] : null),
    h("td", { class: "num" }, ratingText(row)),
    h("td", { class: "num" }, formatFixed(row.mu, 1)),
    h("td", { class: "num" }, formatFixed(row.sigma, 2)),
    h("td", { class: "num" }, formatNumber(row.games)),
    h("td", { class: "num" }, formatNumber(row.wins)),
    h("td", {}, row.last_played_at ? formatDateTime(row.last_played_at, { dateStyle: "medium" }) : "—"));
}

async function load() {
  el.table.setAttribute("aria-busy", "true");
  const query = { pool: data.pool, kind: state.kind, limit: PAGE, offset: state.offset, min_games: state.minGames };
  let page;
  try {
    page = await get(`ratings/${data.game}/leaderboard`, query);
  } catch (err) {
    flash(interpolate(gettext("The board could not be loaded: %(error)s"), { error: err.message }), "error");
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
  const n = page.count;
  const listed = state.kind === "bot" ? ngettext("%(count)s bot", "%(count)s bots", n)
    : bots && !state.kind ? ngettext("%(count)s player or bot", "%(count)s players and bots", n)
      : ngettext("%(count)s player", "%(count)s players", n);
  el.info.textContent = `${interpolate(gettext("Page %(page)s of %(pages)s"), { page: formatNumber(current), pages: formatNumber(pages) })}`
    + ` · ${countText(listed, n)}`;
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
const OTHER_BOARD = bots ? { href: `/leaderboards/${data.game}`, text: gettext("the people's board") }
  : { href: `/bots/${data.game}`, text: gettext("the People and bots board") };
const link = (href, text) => h("a", { href }, text);
const otherBoard = () => link(OTHER_BOARD.href, OTHER_BOARD.text);

// A translated sentence with links in it: each %(name)s becomes values[name], a node or a text,
// so the translation decides where the links go.
function sentence(format, values) {
  return format.split(/%\((\w+)\)s/).map((part, i) => (i % 2 ? values[part] : part));
}

/** Where the signed-in viewer stands on this board, or why they are not on it and how to get on it;
 * for an anonymous visitor, what the board lists and how to get on it. */
function renderMe(row) {
  rerender(el.me, () => h("div", { class: "standing", id: "standing" }, data.user ? standing(row) : howToGetOn()));
}

function howToGetOn() {
  const next = encodeURIComponent(location.pathname);
  const game = data.title;
  const lists = bots
    ? h("p", {}, interpolate(gettext("This board lists everyone rated at %(game)s tables with a bot: people and the bots themselves."), { game }))
    : h("p", {}, sentence(gettext("This board lists people rated at %(game)s tables among people only; games with a bot count on %(board)s."),
      { game, board: otherBoard() }));
  const signup = link(`/signup?next=${next}`, gettext("sign up"));
  const login = link(`/login?next=${next}`, gettext("log in"));
  return [lists, h("p", {}, sentence(bots
    ? gettext("To get on it, %(signup)s or %(login)s, then finish a rated game of %(game)s against a bot.")
    : gettext("To get on it, %(signup)s or %(login)s, then finish a rated game of %(game)s against other people."),
  { signup, login, game }))];
}

function standing(row) {
  const other = data.other_board_games;
  const game = data.title;
  const play = () => link(PLAY_LINK, gettext("play one against a bot"));
  if (!row) {
    if (bots) {
      return [h("p", {}, sentence(gettext("You have not played a rated game of %(game)s against a bot yet: %(play)s."), { game, play: play() })),
        other ? h("p", { class: "muted" }, sentence(gettext("Your %(games)s against people count on %(board)s."),
          { games: ratedGamesText(other), board: otherBoard() })) : null];
    }
    if (other) {
      return [h("p", {}, sentence(gettext("This board lists people only; your games against bots are on %(board)s."), { board: otherBoard() })),
        h("p", { class: "muted" }, sentence(gettext("To get on this one, %(open)s for people and finish a game there."),
          { open: link(PLAY_LINK, gettext("open a rated table")) }))];
    }
    return [h("p", {}, sentence(gettext("You have not played a rated game of %(game)s yet: %(play)s (it counts on %(board)s), or open a rated table for people to get on this board."),
      { game, play: play(), board: otherBoard() }))];
  }
  const settling = row.provisional
    ? h("p", {}, provisionalMark(row), " ", interpolate(ngettext(
      "%(count)s more rated game until your rating settles (%(games)s so far).",
      "%(count)s more rated games until your rating settles (%(games)s so far).", PROVISIONAL - row.games),
    { count: formatNumber(PROVISIONAL - row.games), games: gamesText(row.games) }))
    : null;
  if (!row.position) {
    const shown = state.kind === "bot" ? gettext("the board shows bots only.")
      : interpolate(gettext("the board lists players with at least %(games)s."), { games: gamesText(Number(state.minGames)) });
    return [h("p", {}, interpolate(gettext("Your rating is %(rating)s after %(games)s; %(shown)s"),
      { rating: ratingText(row), games: gamesText(row.games), shown })), settling];
  }
  return [h("p", { class: "banner" }, interpolate(gettext("You are #%(position)s of %(count)s with a rating of %(rating)s."),
    { position: formatNumber(row.position), count: formatNumber(state.count), rating: ratingText(row) }), " ",
  h("button", { type: "button", class: "btn btn-small", onclick: () => jumpTo(row) }, gettext("Show my place"))), settling];
}

/** An empty board says why it is empty and what fills it. */
function emptyBoard() {
  if (state.offset) return gettext("No more rows.");
  if (Number(state.minGames) > 1) {
    return interpolate(gettext("Nobody on this board has at least %(games)s yet. Lower “At least” to see everyone."),
      { games: gamesText(Number(state.minGames)) });
  }
  const game = data.title;
  return [interpolate(bots
    ? gettext("Nobody is on this board yet: it fills as people finish rated games of %(game)s with a bot at the table.")
    : gettext("Nobody is on this board yet: it fills as people finish rated games of %(game)s among people."), { game }), " ",
  link(PLAY_LINK, bots ? gettext("Play one against a bot") : gettext("Open a table"))];
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
    flash(interpolate(bots ? gettext("No player or bot called “%(name)s”.") : gettext("No player called “%(name)s”."),
      { name: text }), "error");
    return;
  }
  const board = await get(`ratings/${data.game}/leaderboard`, { pool: data.pool, kind: state.kind, limit: 1, player: ref, min_games: state.minGames });
  const row = board.player;
  if (!row) {
    flash(interpolate(gettext("%(name)s has no rating on this board yet."), { name: text }));
    return;
  }
  if (!row.position) {
    flash(row.games < Number(state.minGames)
      ? interpolate(gettext("%(name)s has %(games)s: fewer than this board’s minimum. Lower “At least” to list them."),
        { name: row.name, games: gamesText(row.games) })
      : interpolate(gettext("%(name)s is not shown: choose “People and bots” to list them."), { name: row.name }));
    return;
  }
  flash(interpolate(gettext("%(name)s is #%(position)s."), { name: row.name, position: formatNumber(row.position) }));
  jumpTo(row);
}

let suggestTimer = null;
async function suggest() {
  const text = el.search.value.trim();
  const botOptions = bots ? game.bots.map((b) => h("option", { value: b }, gettext("bot"))) : [];
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
      h("thead", {}, h("tr", {}, [gettext("Cards left"), gettext("Players"), gettext("Team"), gettext("Table")]
        .map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, page.results.map((r) => h("tr", {},
        h("td", {}, r.won ? interpolate(gettext("%(count)s (won)"), { count: formatNumber(0) }) : formatNumber(r.cards_left)),
        h("td", {}, formatNumber(r.players)),
        h("td", {}, r.team.map((m) => m.name).join(", ")),
        h("td", {}, h("a", { href: `/tables/${r.match}/replay` }, `#${r.match}`))))))
      : h("p", { class: "muted" }, gettext("No rated results yet."))));
  }).catch((err) => flash(err.message, "error"));
}

// The lobby: open and running tables per game (refreshed every few seconds), and the form
// that opens a table, seats bots in the other seats and starts it.
import { ApiError, get, pageData, post } from "./api.js";
import { clockPerMove, flash, h, rerender, timeAgo } from "./dom.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { contributionKey, DECK_CHOSEN_TEXT, ratingText, shuffleContribution, spectatorText } from "./matches.js";

const games = pageData("games-data");
const user = pageData("user-data");
const tablesRoot = document.getElementById("lobby-tables");
const REFRESH_MS = 5000;

// --- the create form ----------------------------------------------------------------------------

const form = document.getElementById("create-form");

function gameOf(slug) {
  return games.find((g) => g.slug === slug);
}

// The delay's field is shown (and checked) only for a delayed table.
function syncSpectators() {
  const delayed = form.spectators.value === "delayed";
  document.getElementById("create-delay-field").hidden = !delayed;
  form.spectator_delay.disabled = !delayed;
}

function syncForm() {
  syncSpectators();
  const game = gameOf(form.game.value);
  const seats = form.players;
  const previous = Number(seats.value) || 2;
  seats.replaceChildren(...Array.from({ length: game.max_players - game.min_players + 1 }, (_, i) => {
    const count = game.min_players + i;
    return h("option", { value: count, selected: count === Math.min(Math.max(previous, game.min_players), game.max_players) },
      count === 1 ? gettext("1 (solo)") : interpolate(ngettext("%(count)s player", "%(count)s players", count), { count }));
  }));
  form.bot.replaceChildren(...game.bots.map((bot) => h("option", { value: bot, selected: bot === game.strong_bot },
    bot === game.strong_bot ? interpolate(gettext("%(bot)s (strongest)"), { bot }) : bot)));
  const options = document.getElementById("create-options");
  options.replaceChildren(...game.options.map((option) => h("div", { class: "field" },
    h("label", { for: `option-${option.key}` }, option.label, " ", h("span", { class: "muted" }, gettext("(optional)"))),
    h("input", { type: "number", id: `option-${option.key}`, name: `option-${option.key}`, min: option.min, max: option.max,
      inputmode: "numeric" }))));
}

async function create(event) {
  event.preventDefault();
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const game = gameOf(form.game.value);
  const options = {};
  for (const option of game.options) {
    const value = form[`option-${option.key}`].value;
    if (value !== "") options[option.key] = Number(value);
  }
  const body = {
    game: game.slug,
    players: Number(form.players.value),
    rated: form.rated.value === "1" && !form.private.checked, // a private table is casual (422 private_table_rated)
    clock_seconds: form.clock.value ? Number(form.clock.value) : null,
    contributed_shuffle: form.contributed.checked,
    private: form.private.checked,
    spectator_policy: form.spectators.value,
    options,
  };
  if (body.spectator_policy === "delayed") body.spectator_delay_moves = Number(form.spectator_delay.value);
  try {
    const match = await post("matches", body);
    if (body.contributed_shuffle) {
      const value = shuffleContribution();
      await post(`matches/${match.id}/shuffle`, { value });
      localStorage.setItem(contributionKey(match.id), value);
    }
    if (form.others.value === "bots") {
      for (let seat = 1; seat < match.players; seat += 1) {
        await post(`matches/${match.id}/bots`, { seat, bot: form.bot.value });
      }
      await post(`matches/${match.id}/start`);
    }
    location.assign(`/tables/${match.id}`);
  } catch (err) {
    button.disabled = false;
    const fields = err instanceof ApiError && err.extra && err.extra.fields ? ` ${JSON.stringify(err.extra.fields)}` : "";
    flash(interpolate(gettext("The table could not be opened: %(error)s"), { error: err.message + fields }), "error");
  }
}

if (form) {
  form.game.addEventListener("change", syncForm);
  form.spectators.addEventListener("change", syncSpectators);
  form.addEventListener("submit", create);
  syncForm();
}

// --- the tables -------------------------------------------------------------------------------------

// Tournament tables by match id (GET /api/tournaments/tables): a match's tournament never changes,
// so each match is asked about once.
const tournamentTables = new Map();

async function learnTournamentTables(matches) {
  const unknown = matches.map((m) => m.id).filter((id) => !tournamentTables.has(id));
  for (let i = 0; i < unknown.length; i += 100) {
    const chunk = unknown.slice(i, i + 100);
    const found = await get("tournaments/tables", { matches: chunk.join(",") });
    for (const id of chunk) tournamentTables.set(id, null);
    for (const table of found) tournamentTables.set(table.match, table);
  }
}

function seatsText(match) {
  // At a tournament's table a bot's seat knows only its kind ("random"): the entrants' names tell them apart.
  const names = (tournamentTables.get(match.id) || {}).names || [];
  return match.seats.map((s, i) => {
    const name = names[i] || s.name;
    return name ? (s.bot ? interpolate(gettext("%(name)s (bot)"), { name }) : name) : gettext("empty");
  }).join(", ");
}

function mine(match) {
  return user !== null && match.seats.some((s) => s.user === user.id);
}

function tableRow(match) {
  const free = match.seats.filter((s) => !s.name).length;
  let action;
  if (match.status === "open") {
    action = mine(match) ? h("a", { class: "btn btn-small btn-primary", href: `/tables/${match.id}` }, gettext("Your table"))
      : h("a", { class: "btn btn-small btn-primary", href: `/tables/${match.id}` }, user ? gettext("Join") : gettext("Look"));
  } else if (match.status === "running") {
    action = h("a", { class: ["btn", "btn-small", mine(match) && "btn-primary"], href: `/tables/${match.id}` },
      mine(match) ? gettext("Play") : gettext("Watch"));
  } else {
    action = h("a", { class: "btn btn-small", href: `/tables/${match.id}/replay` }, gettext("Replay"));
  }
  const tour = tournamentTables.get(match.id);
  return h("li", { class: ["table-row", tour && "is-tournament-table"], "data-match": String(match.id),
    "data-tournament": tour ? String(tour.tournament) : null },
  h("span", { class: "table-id" }, `#${match.id}`),
  h("span", { class: "table-seats" }, seatsText(match),
    tour ? h("a", { class: "badge badge-tournament", href: `/tournaments/${tour.tournament}`,
      title: interpolate(gettext("Round %(round)s, table %(table)s of the tournament %(name)s"),
        { round: tour.round, table: tour.table, name: tour.tournament_name }) },
    interpolate(gettext("Tournament: %(name)s · round %(round)s"), { name: tour.tournament_name, round: tour.round })) : null),
    h("span", { class: "table-meta muted" }, [
      match.status === "open" ? interpolate(ngettext("%(count)s free seat", "%(count)s free seats", free), { count: free }) : null,
      ratingText(match),
      match.deck_chosen ? DECK_CHOSEN_TEXT : null,
      spectatorText(match),
      match.clock_seconds ? clockPerMove(match.clock_seconds) : null,
      match.status === "finished" ? timeAgo(match.finished_at) : null,
    ].filter(Boolean).join(" · ")),
    action);
}

function list(title, matches, empty) {
  return h("div", { class: "table-list" }, h("h3", {}, title),
    matches.length ? h("ul", {}, matches.map(tableRow)) : h("p", { class: "muted small" }, empty));
}

function renderTables(open, running, finished) {
  rerender(tablesRoot, () => games.map((game) => {
    const of = (matches) => matches.filter((m) => m.game === game.slug);
    return h("section", { class: "panel game-tables", "aria-labelledby": `tables-${game.slug}`, "data-game": game.slug },
      h("h2", { id: `tables-${game.slug}` }, game.title,
        h("span", { class: "muted small" }, " · ", game.min_players === game.max_players
          ? interpolate(ngettext("%(count)s player", "%(count)s players", game.min_players), { count: game.min_players })
          : interpolate(gettext("%(least)s–%(most)s players"), { least: game.min_players, most: game.max_players }))),
      list(gettext("Open tables"), of(open), gettext("No table is waiting for players.")),
      list(gettext("Playing now"), of(running).slice(0, 8), gettext("Nobody is playing right now.")),
      list(gettext("Just finished"), of(finished).slice(0, 3), gettext("No finished tables yet.")));
  }));
  tablesRoot.setAttribute("aria-busy", "false");
}

async function refresh() {
  try {
    const [open, running, finished] = await Promise.all([
      get("matches", { status: "open", limit: 100 }),
      get("matches", { status: "running", attended: "true", limit: 100 }),
      get("matches", { status: "finished", limit: 30 }),
    ]);
    await learnTournamentTables([...open.results, ...running.results, ...finished.results]);
    renderTables(open.results, running.results, finished.results);
  } catch (err) {
    flash(interpolate(gettext("The tables could not be loaded: %(error)s"), { error: err.message }), "error");
  }
}

function loop() {
  if (document.visibilityState === "visible") refresh();
  setTimeout(loop, REFRESH_MS);
}

refresh();
setTimeout(loop, REFRESH_MS);
document.title = user ? interpolate(gettext("Play · %(name)s · Card League"), { name: user.name }) : document.title;

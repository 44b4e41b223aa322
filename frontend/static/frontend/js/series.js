// One series: its points table in words, the tournaments it counts, and the standings with each
// result marked counting, dropped or void; re-read every 15 s while a counted tournament is still
// being played. Its organiser (or staff) adds tournaments, moves them between tiers, removes them.
import { api, get, pageData, post } from "./api.js";
import { flash, h, rerender } from "./dom.js";
import { countText, formatList, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { gameTitles, pointsText, seasonText } from "./series-text.js";

const data = pageData("series-data");
const root = document.getElementById("series");
const el = {
  summary: document.getElementById("s-summary"), live: document.getElementById("s-live"),
  standings: document.getElementById("standings"), points: document.getElementById("points"),
  events: document.getElementById("events"), form: document.getElementById("event-form"),
};
const POLL_MS = 15000;
const STATUS = {
  registration: gettext("Open for registration"), running: pgettext("tournament", "Running"),
  finished: pgettext("tournament", "Finished"), cancelled: pgettext("tournament", "Cancelled"),
};
// Each mark says itself in words as well as in its look (not by colour alone).
const MARK = { counting: gettext("counting"), dropped: gettext("dropped"), void: gettext("void") };
const MARK_HELP = {
  counting: gettext("counts in the total"),
  dropped: gettext("not counted: beyond the best results"),
  void: gettext("scores nothing: disqualified, or no game played"),
};

let shown = null;
let eventsShown = "";

const tierText = (tier) => interpolate(gettext("tier %(tier)s"), { tier: formatNumber(tier) });

// --- the points table, in words -------------------------------------------------------------------

function pointsPanel(series) {
  const rules = series.rules;
  const tiers = Object.keys(rules.points).map(Number).sort((a, b) => a - b);
  const places = Math.max(0, ...tiers.map((tier) => rules.points[tier].length));
  const table = h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "points-title" },
    h("table", { class: "data points-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, gettext("Place")),
        tiers.map((tier) => h("th", { scope: "col", class: "num" }, interpolate(gettext("Tier %(tier)s"), { tier: formatNumber(tier) }))))),
      h("tbody", {}, Array.from({ length: places }, (_, index) => h("tr", {},
        h("th", { scope: "row" }, formatNumber(index + 1)),
        tiers.map((tier) => h("td", { class: "num" }, formatNumber(rules.points[tier][index] || 0))))))));
  const lines = [
    gettext("Each tournament gives points for the place a player finishes in, by its tier; later places score nothing, and players sharing a place share its points."),
    rules.best
      ? countText(ngettext("Only each player's best result counts; the others are dropped.",
        "Each player's best %(count)s results count; the others are dropped.", rules.best), rules.best)
      : gettext("Every result counts."),
    rules.field_scaling
      ? countText(ngettext("Smaller tournaments score less: with fewer than %(count)s player, a place scores a share of its points, by how many rounds it takes to win.",
        "Smaller tournaments score less: with fewer than %(count)s players, a place scores a share of its points, by how many rounds it takes to win.",
        rules.field_scaling), rules.field_scaling)
      : gettext("A place scores the same however many played."),
    gettext("A player disqualified, or who played no game, scores nothing there (void)."),
    gettext("Ties: more counting points first, then the better results one by one, then who finished ahead of whom."),
  ];
  return [table, h("ul", { class: "rule-lines small" }, lines.map((line) => h("li", {}, line)))];
}

// --- the tournaments it counts ----------------------------------------------------------------------

function tierSelect(series, chosen, attrs) {
  return h("select", attrs, Object.keys(series.rules.points).map(Number).sort((a, b) => a - b)
    .map((tier) => h("option", { value: String(tier), selected: tier === chosen }, tierText(tier))));
}

function eventRow(series, event) {
  const name = h("a", { href: `/tournaments/${event.tournament}` }, event.name);
  const row = h("li", { class: "series-event", "data-tournament": String(event.tournament) },
    h("div", {}, name, " ", h("span", { class: "muted small event-meta" }, `#${event.tournament} · ${tierText(event.tier)}`), " ",
      h("span", { class: `status-pill status-${event.status}` }, STATUS[event.status] || event.status)));
  if (data.can_edit) {
    const select = tierSelect(series, event.tier, { "aria-label": interpolate(gettext("Tier of %(name)s"), { name: event.name }),
      "data-key": `tier-${event.tournament}` });
    const base = `series/${series.id}/events/${event.tournament}`;
    row.append(h("div", { class: "series-event-edit" }, select,
      h("button", { type: "button", class: "btn btn-small", "data-key": `change-${event.tournament}`,
        onclick: () => change(() => api(base, { method: "PATCH", body: { tier: Number(select.value) } })) }, gettext("Change the tier")),
      h("button", { type: "button", class: "btn btn-small", "data-key": `remove-${event.tournament}`,
        onclick: () => change(() => api(base, { method: "DELETE" })) }, gettext("Remove"))));
  }
  return row;
}

// --- the standings ------------------------------------------------------------------------------------

function playerCell(standing) {
  const [kind, id] = [standing.player.slice(0, standing.player.indexOf(":")), standing.player.slice(standing.player.indexOf(":") + 1)];
  if (kind === "user") return h("a", { href: `/players/by-id/${id}` }, standing.name || standing.player);
  return [standing.name || id, " ", h("span", { class: "badge" }, gettext("bot"))];
}

function resultItem(result, names) {
  const place = result.shared > 1
    ? interpolate(gettext("shared place %(place)s"), { place: formatNumber(result.place) })
    : interpolate(gettext("place %(place)s"), { place: formatNumber(result.place) });
  return h("li", { class: `result mark-${result.mark}`, "data-mark": result.mark, "data-event": String(result.event),
    title: MARK_HELP[result.mark] },
  h("span", { class: "result-event" }, names[result.event] || `#${result.event}`),
  " ", h("span", { class: "muted" }, `${place} · ${interpolate(gettext("%(points)s pts"), { points: pointsText(result.points) })}`),
  " ", h("span", { class: "mark" }, MARK[result.mark] || result.mark));
}

// The roles repeat the table's own: on a phone each row is laid out as a grid (its results under the
// player, the width of the screen), and a table whose rows are grids loses its semantics without them.
function standingsTable(series) {
  if (!series.standings.length) return h("p", { class: "muted" }, gettext("No results yet: points come when a counted tournament finishes."));
  const names = Object.fromEntries(series.events.map((e) => [e.tournament, e.name]));
  const head = (text, cls) => h("th", { scope: "col", role: "columnheader", class: cls }, text);
  return h("table", { class: "data series-standings", role: "table" },
    h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, head(gettext("Rank"), "num"), head(gettext("Player")),
      head(gettext("Total"), "num"), head(gettext("Results"), "results-head"))),
    h("tbody", { role: "rowgroup" }, series.standings.map((standing) => h("tr", { role: "row", "data-player": standing.player },
      h("td", { role: "cell", class: "num" }, formatNumber(standing.rank)),
      h("th", { scope: "row", role: "rowheader" }, playerCell(standing)),
      h("td", { role: "cell", class: "num total" }, pointsText(standing.total)),
      h("td", { role: "cell", class: "results-cell" }, h("ul", { class: "results" }, standing.results.map((result) => resultItem(result, names))))))));
}

// --- the page -------------------------------------------------------------------------------------------

const playing = (series) => series.events.some((e) => e.status === "running" || e.status === "registration");

function render(series) {
  shown = series;
  el.summary.textContent = [formatList(gameTitles(series.games)), seasonText(series),
    countText(ngettext("%(count)s tournament", "%(count)s tournaments", series.events.length), series.events.length)].join(" · ");
  rerender(el.points, () => pointsPanel(series));
  // Drawn again only when they change, so a poll never resets a tier the organiser is choosing.
  const events = JSON.stringify([series.events, series.rules]);
  if (events !== eventsShown) {
    eventsShown = events;
    rerender(el.events, () => (series.events.length
      ? h("ul", { class: "series-events" }, series.events.map((event) => eventRow(series, event)))
      : h("p", { class: "muted" }, gettext("No tournaments yet."))));
  }
  rerender(el.standings, () => standingsTable(series));
  el.live.textContent = playing(series) ? gettext("A tournament is still being played: the standings update by themselves.") : "";
  if (el.form) {
    const tier = el.form.tier.value;
    el.form.tier.replaceChildren(...tierSelect(series, null, {}).children);
    el.form.tier.value = tier in series.rules.points ? tier : el.form.tier.options[0].value;
  }
  root.dataset.seq = String(series.seq + series.events.reduce((sum, e) => sum + e.tournament_seq, 0));
  root.dataset.status = playing(series) ? "live" : "settled";
}

async function refresh() {
  try {
    render(await get(`series/${data.id}`));
  } catch (err) {
    flash(interpolate(gettext("The series could not be loaded: %(error)s"), { error: err.message }), "error");
  }
}

// A change answers with the series as it now is; an error (a coded one from the API) is said, not thrown.
async function change(request) {
  try {
    render(await request());
    return true;
  } catch (err) {
    flash(interpolate(gettext("The series was not changed: %(error)s"), { error: err.message }), "error");
    return false;
  }
}

if (el.form) {
  el.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = el.form.querySelector("button[type=submit]");
    button.disabled = true;
    const done = await change(() => post(`series/${data.id}/events`,
      { tournament: Number(el.form.tournament.value), tier: Number(el.form.tier.value) }));
    button.disabled = false;
    if (done) el.form.tournament.value = "";
  });
}

refresh();
setInterval(() => { if (shown && playing(shown) && document.visibilityState === "visible") refresh(); }, POLL_MS);
document.addEventListener("visibilitychange", () => { if (shown && playing(shown) && document.visibilityState === "visible") refresh(); });

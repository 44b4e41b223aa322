// The tournaments list (filtered by status, refreshed) and the organiser's form.
import { ApiError, get, pageData, post } from "./api.js";
import { flash, h, rerender } from "./dom.js";
import { countText, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { spectatorText } from "./matches.js";

const data = pageData("tournaments-data");
const games = pageData("games-data");
const gameTitle = Object.fromEntries(games.map((g) => [g.slug, g.title]));
const formatTitle = Object.fromEntries(data.formats.map((f) => [f.slug, f.title]));
const listRoot = document.getElementById("tournament-list");
const params = new URLSearchParams(location.search);
const statusFilter = params.get("status") || "";
const STATUS = {
  registration: gettext("open for registration"), running: pgettext("tournament", "running"),
  finished: pgettext("tournament", "finished"), cancelled: pgettext("tournament", "cancelled"),
};

// --- the list ---------------------------------------------------------------------------------------

for (const link of document.querySelectorAll("#status-tabs a")) {
  if (link.dataset.status === statusFilter) link.setAttribute("aria-current", "page");
}

function item(t) {
  const rounds = t.current_round
    ? interpolate(t.total_rounds ? gettext("round %(round)s of %(total)s") : gettext("round %(round)s"),
      { round: formatNumber(t.current_round), total: formatNumber(t.total_rounds || 0) })
    : null;
  return h("li", { class: "table-row", "data-tournament": String(t.id) },
    h("span", { class: "table-id" }, `#${t.id}`),
    h("span", { class: "table-seats" }, h("a", { href: `/tournaments/${t.id}` }, t.name)),
    h("span", { class: "table-meta muted" }, [gameTitle[t.game] || t.game, formatTitle[t.format] || t.format,
      countText(ngettext("%(count)s entrant", "%(count)s entrants", t.entrants), t.entrants),
      rounds, t.rated ? gettext("rated") : gettext("casual"), spectatorText(t)].filter(Boolean).join(" · ")),
    h("span", { class: `status-pill status-${t.status}` }, STATUS[t.status] || t.status));
}

async function refresh() {
  try {
    const page = await get("tournaments", { status: statusFilter, limit: 50 });
    rerender(listRoot, () => (page.results.length ? h("ul", { class: "table-list" }, page.results.map(item))
      : h("p", { class: "muted" }, gettext("No tournaments here yet."))));
    listRoot.setAttribute("aria-busy", "false");
  } catch (err) {
    flash(interpolate(gettext("Tournaments could not be loaded: %(error)s"), { error: err.message }), "error");
  }
}

// --- the form -----------------------------------------------------------------------------------------

const form = document.getElementById("tournament-form");

const FIELDS = {
  rounds: () => numberField("rounds", gettext("Rounds"), { min: 1, max: 50, help: gettext("Empty: enough rounds for a clear winner.") }),
  table_size: () => numberField("table_size", gettext("Players a table"), { min: 2, max: 6 }),
  advance: () => numberField("advance", gettext("Go through from each table"), { min: 1, max: 5 }),
  double: () => checkField("double", gettext("Play everyone twice")),
  third_place: () => checkField("third_place", gettext("Play a match for third place")),
  grand_final_reset: () => checkField("grand_final_reset", gettext("Replay the grand final if the losers' bracket wins it"), true),
  format: () => h("div", { class: "field" }, h("label", { for: "opt-format" }, gettext("Each matchday is a round of")),
    h("select", { id: "opt-format", name: "opt-format" },
      data.formats.filter((f) => allowedOf(form.game.value).league_formats.includes(f.slug))
        .map((f) => h("option", { value: f.slug }, f.title)))),
  start: () => h("div", { class: "field" }, h("label", { for: "opt-start" }, `${gettext("First matchday")} `,
    h("span", { class: "muted" }, gettext("(optional)"))),
  h("input", { type: "date", id: "opt-start", name: "opt-start" }),
  h("p", { class: "help" }, gettext("Empty: the first matchday is the day the league starts."))),
  every_days: () => numberField("every_days", gettext("Days between matchdays"), { min: 1, max: 60, value: 7 }),
};

function numberField(key, label, { min, max, help, value } = {}) {
  return h("div", { class: "field" }, h("label", { for: `opt-${key}` }, label),
    h("input", { type: "number", id: `opt-${key}`, name: `opt-${key}`, min, max, value, inputmode: "numeric" }),
    help ? h("p", { class: "help" }, help) : null);
}

function checkField(key, label, checked = false) {
  return h("label", { class: "check" }, h("input", { type: "checkbox", id: `opt-${key}`, name: `opt-${key}`, checked }), label);
}

function formatOf() {
  return data.formats.find((f) => f.slug === form.format.value);
}

// What the server accepts for the game (GET /api/tournaments/formats): only those are offered.
function allowedOf(game) {
  return data.game_formats.find((g) => g.game === game);
}

function syncFormats() {
  const allowed = allowedOf(form.game.value).formats;
  const previous = form.format.value;
  form.format.replaceChildren(...data.formats.filter((f) => allowed.includes(f.slug))
    .map((f) => h("option", { value: f.slug, selected: f.slug === previous }, f.title)));
}

// A league's fields: its inner format's own (rounds, table size...) between the choice of it and the calendar.
function fieldsOf(innerSlug) {
  const format = formatOf();
  if (format.slug !== "league") return format.fields;
  const inner = data.formats.find((f) => f.slug === innerSlug) || { fields: [] };
  const [choice, ...calendar] = format.fields; // views.FORMAT_INFO: the inner format first, then the calendar
  return [choice, ...inner.fields, ...calendar];
}

function syncFields() {
  const innerSelect = form.querySelector("[name='opt-format']");
  const allowedInner = allowedOf(form.game.value).league_formats;
  const inner = innerSelect && allowedInner.includes(innerSelect.value) ? innerSelect.value : allowedInner[0];
  const kept = {};
  for (const input of document.querySelectorAll("#format-options [name]")) kept[input.name] = input.type === "checkbox" ? input.checked : input.value;
  document.getElementById("format-options").replaceChildren(...fieldsOf(inner).map((key) => FIELDS[key]()));
  for (const input of document.querySelectorAll("#format-options [name]")) {
    if (!(input.name in kept) || (input.name === "opt-format" && !allowedInner.includes(kept[input.name]))) continue;
    if (input.type === "checkbox") input.checked = kept[input.name]; else input.value = kept[input.name];
  }
  const select = form.querySelector("[name='opt-format']");
  if (select) select.addEventListener("change", syncFields);
}

function syncForm() {
  syncFormats();
  syncFields();
  document.getElementById("turn-limit-field").hidden = form.game.value !== "sequence-stacks";
  // Late entry and re-entry need a format that pairs every round anew (tournaments/field_rules.py).
  document.getElementById("fr-swiss").hidden = !["swiss", "swiss-tables"].includes(form.format.value);
  const delayed = form.spectators.value === "delayed"; // the delay is shown (and checked) only then
  document.getElementById("t-delay-field").hidden = !delayed;
  form.spectator_delay.disabled = !delayed;
}

// The organiser's field rules: only what was filled in (the server's defaults change nothing).
function readFieldRules() {
  const rules = {};
  for (const key of ["check_in_minutes", "waitlist", "late_entry_until_round", "no_show_seconds", "no_show_drop_after"]) {
    const input = form.elements[`fr_${key}`];
    if (input.value !== "" && !input.closest("[hidden]")) rules[key] = Number(input.value);
  }
  if (!document.getElementById("fr-swiss").hidden) {
    if (form.fr_late_entry.checked) {
      rules.late_entry = true;
      rules.late_entry_award = form.fr_late_entry_award.value;
    } else delete rules.late_entry_until_round;
    if (form.fr_reentry.checked) rules.reentry = true;
  }
  return rules;
}

function readOptions() {
  const options = {};
  const innerSelect = form.querySelector("[name='opt-format']");
  for (const key of fieldsOf(innerSelect ? innerSelect.value : null)) {
    const input = form.querySelector(`[name="opt-${key}"]`);
    if (!input) continue;
    if (input.type === "checkbox") options[key] = input.checked;
    else if (input.type === "number") { if (input.value !== "") options[key] = Number(input.value); }
    else if (input.value !== "") options[key] = input.value;
  }
  if (form.seeding.value !== "order") options.seeding = form.seeding.value;
  return options;
}

async function create(event) {
  event.preventDefault();
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const body = {
    name: form.elements["name"].value.trim(),
    game: form.game.value,
    format: form.format.value,
    options: readOptions(),
    match_options: form.game.value === "sequence-stacks" && form.turn_limit.value ? { turn_limit: Number(form.turn_limit.value) } : {},
    clock_seconds: Number(form.clock_seconds.value),
    rated: form.rated.checked,
    contributed_shuffle: form.contributed_shuffle.checked,
    max_entrants: form.max_entrants.value ? Number(form.max_entrants.value) : null,
    starts_at: form.starts_at.value ? new Date(form.starts_at.value).toISOString() : null,
    field_rules: readFieldRules(),
    spectator_policy: form.spectators.value,
  };
  if (body.spectator_policy === "delayed") body.spectator_delay_moves = Number(form.spectator_delay.value);
  try {
    const created = await post("tournaments", body);
    location.assign(`/tournaments/${created.id}`);
  } catch (err) {
    button.disabled = false;
    const fields = err instanceof ApiError && err.extra && err.extra.fields ? ` ${JSON.stringify(err.extra.fields)}` : "";
    flash(interpolate(gettext("The tournament could not be created: %(error)s"), { error: err.message }) + fields, "error");
  }
}

if (form) {
  form.format.addEventListener("change", syncForm);
  form.game.addEventListener("change", syncForm);
  form.spectators.addEventListener("change", syncForm);
  form.addEventListener("submit", create);
  syncForm();
}
refresh();
setInterval(() => { if (document.visibilityState === "visible") refresh(); }, 10000);

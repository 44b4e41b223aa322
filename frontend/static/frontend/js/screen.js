// The venue screen (issue #46): a tournament's current round for a projector or a TV, read across
// a room. The round's clock in large type (its deadline's countdown, or the time played when it
// has none), its tables (those still playing highlighted), the last results, live from the same
// feed the tournament page follows (tournament-live.js). Tables that do not fit scroll slowly, or
// page every few seconds for a reader who asks for reduced motion; either pauses under a pointer
// or the keyboard's focus. A bell when the round's time runs out, if the screen's sound is on.
import { get, getAll, pageData } from "./api.js";
import { h, rerender } from "./dom.js";
import { countText, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { clockText } from "./games/common.js";
import { soundSwitch } from "./sound.js";
import { minutesText } from "./judge-call.js";
import { followTournament, resultText } from "./tournament-live.js";

const data = pageData("screen-data");
const games = pageData("games-data");
const root = document.getElementById("screen");
const id = data.id;
const RESULTS_SHOWN = 6;
const PAGE_MS = 8000; // reduced motion: a page of tables stays this long
const SCROLL_PX_PER_S = 40; // slow enough to read a name as it passes
const REST_MS = 4000; // the scroll rests this long at the top and at the bottom

const el = {
  summary: document.getElementById("screen-summary"),
  clockLabel: document.getElementById("clock-label"),
  clock: document.getElementById("clock"),
  clockNote: document.getElementById("clock-note"),
  window: document.getElementById("tables-window"),
  tables: document.getElementById("tables"),
  tablesTitle: document.getElementById("tables-title"),
  tablesPage: document.getElementById("tables-page"),
  results: document.getElementById("results"),
};

const state = { summary: null, entrants: [], rounds: [], standings: [], results: [], timeUp: new Set(), lastLeft: null };
const sound = soundSwitch({ volume: data.sound_volume });
document.getElementById("screen-sound").append(sound.button);

function nameOf(entrantId) {
  const entrant = state.entrants.find((e) => e.id === entrantId);
  return entrant ? entrant.name : interpolate(gettext("entrant %(id)s"), { id: entrantId });
}

function gameTitle(slug) {
  const game = games.find((g) => g.slug === slug);
  return game ? game.title : slug;
}

function roundName(number) {
  return interpolate(gettext("Round %(round)s"), { round: formatNumber(number) });
}

function currentRound() {
  return state.rounds.length ? state.rounds[state.rounds.length - 1] : null;
}

// --- loading ------------------------------------------------------------------------------------

async function load() {
  const summary = await get(`tournaments/${id}`);
  const [entrants, rounds] = await Promise.all([getAll(`tournaments/${id}/entrants`), get(`tournaments/${id}/rounds`)]);
  const standings = summary.status === "finished" ? await getAll(`tournaments/${id}/standings`) : [];
  Object.assign(state, { summary, entrants, rounds, standings });
}

const RESULT_EVENTS = new Set(["TableResult", "ForfeitAwarded", "ResultCorrected"]);

// The newest results first, each said as the tournament page's log says it.
function noteResults(events) {
  for (const event of events) {
    if (!RESULT_EVENTS.has(event.type)) continue;
    const d = event.data;
    const rnd = state.rounds.find((r) => r.round === d.round);
    const table = rnd ? rnd.tables.find((t) => t.table === d.table) : null;
    const result = (table ? resultText({ ...table, result: d }, { nameOf }) : null) || gettext("result recorded");
    const where = interpolate(gettext("Round %(round)s, table %(table)s"), { round: formatNumber(d.round), table: formatNumber(d.table) });
    state.results.unshift({ seq: event.seq, text: interpolate(gettext("%(where)s: %(result)s."), { where, result }) });
  }
  state.results = state.results.slice(0, RESULTS_SHOWN);
}

// --- drawing ------------------------------------------------------------------------------------

function render() {
  const t = state.summary;
  const rnd = currentRound();
  root.dataset.seq = String(t.seq);
  root.dataset.status = t.status;
  root.dataset.round = String(rnd ? rnd.round : 0);
  root.dataset.roundStatus = rnd ? rnd.status : "";
  const rounds = t.current_round
    ? interpolate(t.total_rounds ? gettext("round %(round)s of %(total)s") : gettext("round %(round)s"),
      { round: formatNumber(t.current_round), total: formatNumber(t.total_rounds || 0) })
    : null;
  el.summary.textContent = [gameTitle(t.game), countText(ngettext("%(count)s entrant", "%(count)s entrants", t.entrants), t.entrants), rounds]
    .filter(Boolean).join(" · ");
  renderTables(rnd);
  renderResults();
  tick();
}

function tableState(table) {
  if (table.result) return { key: "finished", text: resultText(table, { nameOf }) };
  if (table.match_status === "running") {
    return { key: "playing", text: table.extra_seconds
      ? interpolate(gettext("playing… (%(time)s added)"), { time: minutesText(table.extra_seconds) }) : gettext("playing…") };
  }
  if (table.match_status === "finished") return { key: "finished", text: gettext("result recorded") };
  return { key: "waiting", text: gettext("waiting to start") };
}

const STANDINGS_SHOWN = 8;

// A finished tournament's screen shows its final standings where the round's tables were.
function renderStandings() {
  const t = state.summary;
  el.tablesTitle.textContent = gettext("Final standings");
  rerender(el.tables, () => state.standings.slice(0, STANDINGS_SHOWN).map((row) => h("li", {
    class: ["screen-table", "is-standing", row.rank === 1 && "is-first"], "data-rank": String(row.rank),
  },
  h("span", { class: "screen-table-number" }, formatNumber(row.rank)),
  h("span", { class: "screen-table-players" }, row.entrant.name),
  h("span", { class: "screen-table-state" }, t.cooperative ? ""
    : interpolate(gettext("Points: %(points)s"), { points: formatNumber(row.points, { maximumFractionDigits: 2 }) })))));
  scroller.measure();
}

function renderTables(rnd) {
  if (state.summary.status === "finished" && state.standings.length) {
    renderStandings();
    return;
  }
  el.tablesTitle.textContent = gettext("Tables");
  if (!rnd) {
    rerender(el.tables, () => h("li", { class: "screen-table-empty" },
      state.summary.status === "registration" ? gettext("The tables are shown here when the round is paired.") : gettext("No tables.")));
    return;
  }
  rerender(el.tables, () => [
    ...rnd.tables.map((table) => {
      const shown = tableState(table);
      return h("li", { class: ["screen-table", `is-${shown.key}`], "data-table": String(table.table), "data-state": shown.key },
        h("span", { class: "screen-table-number" }, h("span", { class: "visually-hidden" }, `${gettext("Table")} `), formatNumber(table.table)),
        // Each name kept whole: a line breaks between names, never inside one.
        h("span", { class: "screen-table-players" }, table.seats.flatMap((seat, i) => [
          i ? " – " : null, h("span", { class: "screen-player" }, seat.name)])),
        h("span", { class: "screen-table-state" }, shown.text));
    }),
    rnd.byes.length ? h("li", { class: "screen-table is-bye" },
      h("span", { class: "screen-table-number" }, "–"),
      h("span", { class: "screen-table-players" }, interpolate(gettext("Bye: %(names)s"), { names: rnd.byes.map((b) => b.name).join(", ") })),
      h("span", { class: "screen-table-state" }, "")) : null,
  ]);
  scroller.measure();
}

function renderResults() {
  if (!state.results.length) return;
  rerender(el.results, () => state.results.map((r) => h("li", { "data-seq": String(r.seq) }, r.text)));
}

// --- the clock ----------------------------------------------------------------------------------

function showClock(label, time, note = "", mode = "") {
  el.clockLabel.textContent = label;
  el.clock.textContent = time;
  el.clockNote.textContent = note;
  root.dataset.clock = mode;
}

// Runs each second: the clock is read from the round's times, not counted, so a slow tab is never behind.
function tick() {
  const t = state.summary;
  if (!t) return;
  const rnd = currentRound();
  const now = Date.now();
  if (t.status === "finished") {
    showClock(gettext("The tournament is over."), pgettext("tournament", "Finished"), championText(), "over");
    return;
  }
  if (t.status === "cancelled") {
    showClock(gettext("The tournament was cancelled."), pgettext("tournament", "Cancelled"), "", "over");
    return;
  }
  if (!rnd) {
    const starts = t.starts_at ? new Date(t.starts_at).getTime() : null;
    if (starts && starts > now) showClock(gettext("Round 1 starts in"), clockText(starts - now), "", "waiting");
    else showClock(gettext("Waiting for the first round"), "–", "", "waiting");
    return;
  }
  const name = roundName(rnd.round);
  if (rnd.status === "complete") {
    showClock(interpolate(gettext("%(round)s is complete."), { round: name }), "0:00", gettext("The next round is being paired."), "complete");
    return;
  }
  if (!rnd.started_at) {
    const starts = rnd.starts_at ? new Date(rnd.starts_at).getTime() : null;
    showClock(interpolate(gettext("%(round)s starts in"), { round: name }), starts && starts > now ? clockText(starts - now) : "–",
      gettext("Find your table."), "waiting");
    return;
  }
  if (!rnd.deadline) {
    showClock(interpolate(gettext("%(round)s: time played"), { round: name }), clockText(now - new Date(rnd.started_at).getTime()),
      "", "elapsed");
    return;
  }
  const left = new Date(rnd.deadline).getTime() - now;
  if (left > 0) {
    showClock(interpolate(gettext("%(round)s: time left"), { round: name }), clockText(left), "", left < 5 * 60_000 ? "ending" : "running");
  } else {
    showClock(interpolate(gettext("%(round)s: time is up"), { round: name }), "0:00",
      gettext("Time is up: the tables still playing finish their game."), "up");
  }
  // The bell rings as the clock reaches zero in front of the room, not for a screen opened after.
  const key = rnd.round;
  if (left <= 0 && state.lastLeft !== null && state.lastLeft.round === key && state.lastLeft.left > 0 && !state.timeUp.has(key)) {
    state.timeUp.add(key);
    sound.ring("time");
  }
  state.lastLeft = { round: key, left };
}

function championText() {
  const t = state.summary;
  const team = t.cooperative ? state.standings.filter((r) => r.rank === 1).map((r) => r.entrant.name) : [];
  if (team.length > 1) return interpolate(gettext("Champions: %(names)s won the tournament."), { names: team.join(", ") });
  if (t.champion === null || t.champion === undefined) return "";
  return interpolate(gettext("Champion: %(name)s won the tournament."), { name: nameOf(t.champion) });
}

// --- tables that do not fit ---------------------------------------------------------------------

const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

// Scrolls the tables slowly when they overflow their window (resting at each end), or, for a
// reader who asks for reduced motion, shows them a window's height at a time.
const scroller = (() => {
  let paused = false;
  let timer = null;
  let frame = null;
  let restUntil = 0;
  let last = 0;
  let position = 0; // fractional: scrollTop keeps whole pixels on some screens

  const overflow = () => el.window.scrollHeight - el.window.clientHeight;

  function stop() {
    clearTimeout(timer);
    cancelAnimationFrame(frame);
    timer = null;
    frame = null;
  }

  function measure() {
    const over = overflow() > 2;
    root.dataset.scrolling = over ? (reduceMotion.matches ? "pages" : "scroll") : "no";
    if (!over) {
      stop();
      el.window.scrollTop = 0;
      el.tablesPage.textContent = "";
      return;
    }
    if (reduceMotion.matches) {
      showPage();
      if (!timer) timer = setTimeout(nextPage, PAGE_MS);
    } else if (!frame) {
      restUntil = performance.now() + REST_MS;
      last = performance.now();
      position = el.window.scrollTop;
      frame = requestAnimationFrame(step);
    }
  }

  // Where each page starts: at the first table the page before did not show whole, so no
  // table is cut in two across pages; the last page ends with the last table.
  function pageStarts() {
    const height = el.window.clientHeight;
    const rows = [...el.tables.children];
    const starts = [0];
    while (starts[starts.length - 1] < overflow() - 2 && starts.length < 100) {
      const start = starts[starts.length - 1];
      const cut = rows.find((row) => row.offsetTop + row.offsetHeight > start + height + 1);
      const next = cut && cut.offsetTop > start ? cut.offsetTop : start + height;
      starts.push(Math.min(next, overflow()));
    }
    return starts;
  }

  function showPage() {
    const starts = pageStarts();
    const page = starts.filter((start) => start <= el.window.scrollTop + 2).length;
    el.tablesPage.textContent = interpolate(gettext("Page %(page)s of %(pages)s"),
      { page: formatNumber(page), pages: formatNumber(starts.length) });
  }

  function nextPage() {
    timer = null;
    if (!paused) {
      const later = pageStarts().filter((start) => start > el.window.scrollTop + 2);
      el.window.scrollTop = later.length ? later[0] : 0;
      showPage();
    }
    if (overflow() > 2) timer = setTimeout(nextPage, PAGE_MS);
  }

  function step(now) {
    frame = null;
    if (overflow() <= 2 || reduceMotion.matches) return;
    const elapsed = Math.min(now - last, 100);
    last = now;
    if (!paused && now >= restUntil) {
      position += (SCROLL_PX_PER_S * elapsed) / 1000;
      if (position >= overflow()) {
        position = overflow();
        // Rest at the bottom, go back to the top, rest there, scroll again.
        restUntil = now + 2 * REST_MS;
        setTimeout(() => { position = 0; el.window.scrollTop = 0; }, REST_MS);
      }
      el.window.scrollTop = position;
    }
    frame = requestAnimationFrame(step);
  }

  const pause = (on) => () => { paused = on; };
  el.window.addEventListener("pointerenter", pause(true));
  el.window.addEventListener("pointerleave", pause(false));
  el.window.addEventListener("focusin", pause(true));
  el.window.addEventListener("focusout", pause(false));
  reduceMotion.addEventListener("change", () => { stop(); measure(); });
  window.addEventListener("resize", () => measure());
  return { measure };
})();

// --- following ----------------------------------------------------------------------------------

followTournament({
  id,
  status: () => state.summary && state.summary.status,
  async onEvents(fresh, opening) {
    if (!fresh.length && !opening) return;
    await load();
    noteResults(fresh);
    render();
  },
  onError(err) {
    el.clockNote.textContent = interpolate(gettext("The tournament could not be loaded: %(error)s"), { error: err.message });
  },
});
setInterval(tick, 1000);

// One tournament, live: registration, the bracket (elimination) or the pairings and standings
// with tie-breaks (Swiss, round robin), a league's calendar, and what happened, as it happens.
// The page follows the tournament's event feed and reloads what an event changes.
import { ApiError, get, getAll, pageData, post } from "./api.js";
import { bracketLabel, drawBracket } from "./bracket.js";
import { clockText, flash, h, plural, rerender, timeAgo } from "./dom.js";
import { contributionKey, shuffleContribution } from "./matches.js";

const data = pageData("tournament-data");
const games = pageData("games-data");
const root = document.getElementById("tournament");
const id = data.id;
const user = data.user;
const formatTitle = Object.fromEntries(data.formats.map((f) => [f.slug, f.title]));
const BRACKET_FORMATS = new Set(["single-elimination", "double-elimination"]);
const STATUS = { registration: "Open for registration", running: "Running", finished: "Finished", cancelled: "Cancelled" };
const POLL_MS = { registration: 3000, running: 1000 };

const el = {
  summary: document.getElementById("t-summary"),
  status: document.getElementById("t-status"),
  champion: document.getElementById("champion"),
  bracketPanel: document.getElementById("bracket-panel"),
  bracket: document.getElementById("bracket"),
  calendarPanel: document.getElementById("calendar-panel"),
  calendar: document.getElementById("calendar"),
  standings: document.getElementById("standings"),
  tiebreakHelp: document.getElementById("tiebreak-help"),
  rounds: document.getElementById("rounds"),
  entry: document.getElementById("entry"),
  entrants: document.getElementById("entrants"),
  activity: document.getElementById("activity"),
};

const state = { summary: null, entrants: [], rounds: [], standings: [], bracket: null, calendar: null, feed: 0, busy: false };

function gameOf(slug) {
  return games.find((g) => g.slug === slug) || { title: slug, bots: [] };
}

function nameOf(entrantId) {
  const entrant = state.entrants.find((e) => e.id === entrantId);
  return entrant ? entrant.name : `entrant ${entrantId}`;
}

function hasBracket(summary) {
  const format = summary.format === "league" ? summary.options.format : summary.format;
  return BRACKET_FORMATS.has(format);
}

// Points and tie-breaks are written one way everywhere on the page: decimals, at most two places
// (1, 1.5, 0.75, 0.67); the exact fraction is the points cell's tooltip.
function decimal(value) {
  return String(Number(value.toFixed(2)));
}

// Elimination formats order by how far each player got: Swiss tie-breaks mean nothing there.
function isElimination(summary) {
  const format = summary.format === "league" ? summary.options.format : summary.format;
  return Boolean(format) && format.endsWith("elimination");
}

const TIEBREAK_HELP = {
  swiss: "Points: a win is 1, a draw 0.5 (at bigger tables, each opponent you beat counts). Ties are broken by Buchholz (your opponents' points), then Sonneborn–Berger (the points of the opponents you beat), then rating.",
  elimination: "Place: how far each player got (the champion first; players knocked out in the same round share a place). Points: a win is 1, a draw 0.5.",
  cooperative: "Every table plays as one team against the deck. Players rank by the mean number of cards their tables left (fewer is better), then rating.",
};

// --- loading ------------------------------------------------------------------------------------

async function load() {
  const summary = await get(`tournaments/${id}`);
  const [entrants, rounds, standings] = await Promise.all([
    getAll(`tournaments/${id}/entrants`), get(`tournaments/${id}/rounds`), getAll(`tournaments/${id}/standings`),
  ]);
  Object.assign(state, { summary, entrants, rounds, standings });
  state.bracket = hasBracket(summary) && summary.status !== "registration" && state.entrants.length >= 2
    ? await get(`tournaments/${id}/bracket`) : null;
  state.calendar = summary.format === "league" ? await get(`tournaments/${id}/calendar`) : null;
  render();
  contributeToShuffles();
}

// In a tournament with contributed shuffles, the page adds 32 random bytes to the shuffle of the
// player's table in a round paired and not yet started, once, and hands what it sent on to the
// table's own page (keyed by its match) so that it can check the deal used it.
async function contributeToShuffles() {
  if (!state.summary.contributed_shuffle || !user) return;
  for (const round of state.rounds) {
    for (const table of round.tables) {
      if (!table.seats.some((seat) => seat.user === user.id)) continue;
      const key = `card-league:shuffle:tournament:${id}:${round.round}:${table.table}`;
      const sent = localStorage.getItem(key);
      if (sent && table.match) localStorage.setItem(contributionKey(table.match), sent);
      if (sent || round.started_at || state.contributing) continue;
      state.contributing = true;
      const value = shuffleContribution();
      try {
        await post(`tournaments/${id}/rounds/${round.round}/tables/${table.table}/shuffle`, { value });
        localStorage.setItem(key, value);
        flash(`Your contribution to the shuffle of round ${round.round}, table ${table.table}, is in.`);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 409)) flash(err.message, "error");
      } finally {
        state.contributing = false;
      }
    }
  }
}

async function follow() {
  try {
    let fresh = [];
    for (;;) {
      const feed = await get(`tournaments/${id}/events`, { after: state.feed, limit: 500 });
      fresh = fresh.concat(feed.events);
      state.feed = feed.next;
      if (feed.next >= feed.head || !feed.events.length) break;
    }
    const opening = !state.summary;
    if (fresh.length || opening) await load();
    appendActivity(fresh);
    if (!opening) tellMe(fresh);
  } catch (err) {
    flash(`The tournament could not be loaded: ${err.message}`, "error");
  }
  const wait = POLL_MS[state.summary ? state.summary.status : "running"];
  if (wait) setTimeout(follow, document.visibilityState === "visible" ? wait : wait * 5);
}

// --- drawing --------------------------------------------------------------------------------------

function render() {
  const t = state.summary;
  root.dataset.seq = String(t.seq);
  root.dataset.status = t.status;
  root.dataset.round = String(t.current_round || 0);
  el.status.textContent = STATUS[t.status] || t.status;
  el.status.className = `status-pill status-${t.status}`;
  const rounds = t.current_round ? `round ${t.current_round}${t.total_rounds ? ` of ${t.total_rounds}` : ""}`
    : t.total_rounds ? `${plural(t.total_rounds, "round")}` : null;
  const size = t.options.table_size ? ` (tables of ${t.options.table_size})` : "";
  el.summary.textContent = [gameOf(t.game).title, (formatTitle[t.format] || t.format) + size, plural(t.entrants, "entrant"), rounds,
    `${clockText(t.clock_seconds)} a move`, t.rated ? "rated" : "casual",
    t.contributed_shuffle ? "players add to each shuffle" : null,
    t.starts_at && t.status === "registration" ? `starts ${new Date(t.starts_at).toLocaleString()}` : null]
    .filter(Boolean).join(" · ");
  el.champion.hidden = t.champion === null;
  if (t.champion !== null) el.champion.textContent = `${championText(t.champion)} the tournament.`;
  el.tiebreakHelp.textContent = TIEBREAK_HELP[t.cooperative ? "cooperative" : isElimination(t) ? "elimination" : "swiss"];
  renderEntry();
  renderEntrants();
  renderStandings();
  renderRounds();
  renderBracket();
  renderCalendar();
}

// "Champion: X won", or for a cooperative game every player of the best team ("Champions: X, Y won"):
// the team played as one, and naming one of them would crown a player the table did not pick out.
function championText(champion) {
  const team = state.summary.cooperative ? state.standings.filter((r) => r.rank === 1).map((r) => r.entrant.name) : [];
  return team.length > 1 ? `Champions: ${team.join(", ")} won` : `Champion: ${nameOf(champion)} won`;
}

// The field's rules as a line a player reads before entering (tournaments.field_rules).
function rulesText(t) {
  const r = t.field_rules || {};
  const parts = [];
  if (r.check_in_minutes) parts.push(`check in ${plural(r.check_in_minutes, "minute")} before the start, or be dropped`);
  if (r.waitlist) parts.push(`a waitlist of ${r.waitlist} once full`);
  if (r.late_entry) parts.push(`late entry until ${r.late_entry_until_round ? `round ${r.late_entry_until_round}` : "half the rounds have started"} (${r.late_entry_award === "zero" ? "missed rounds score zero" : "one bye for missed rounds"})`);
  if (r.reentry) parts.push("players who drop may come back");
  if (r.no_show_seconds) parts.push(`absent ${plural(r.no_show_seconds, "second")} from a table: forfeit${r.no_show_drop_after ? `; dropped after ${plural(r.no_show_drop_after, "forfeit")}` : ""}`);
  return parts.length ? `Rules: ${parts.join("; ")}.` : null;
}

function renderEntry() {
  const t = state.summary;
  const rules = t.field_rules || {};
  const mineAny = user ? state.entrants.find((e) => e.user === user.id) : null;
  const mine = mineAny && mineAny.status === "active" ? mineAny : null;
  const waiting = mineAny && mineAny.status === "waitlisted" ? mineAny : null;
  const organiser = user && t.organiser === user.id;
  const open = t.status === "registration";
  const running = t.status === "running";
  const full = t.max_entrants && t.entrants >= t.max_entrants;
  const checkInOpen = open && rules.check_in_minutes && (!t.check_in_opens_at || new Date(t.check_in_opens_at) <= new Date());
  const checkIn = (entrant) => {
    if (!open || !rules.check_in_minutes) return null;
    if (entrant.checked_in) return h("p", { class: "small", "data-key": "checked-in" }, "You have checked in.");
    if (!checkInOpen) return h("p", { class: "small muted" }, `Check-in opens ${new Date(t.check_in_opens_at).toLocaleString()}.`);
    return h("button", { type: "button", class: "btn btn-primary", "data-key": "check-in", disabled: state.busy,
      onclick: () => act(`tournaments/${id}/check-in`, undefined, "You checked in.") }, "Check in");
  };
  rerender(el.entry, () => {
    const items = [];
    const line = rulesText(t);
    if (line) items.push(h("p", { class: "small muted", id: "field-rules" }, line));
    if (!user) {
      items.push(h("p", {}, h("a", { href: `/login?next=${encodeURIComponent(location.pathname)}` }, "Log in"),
        open ? " to register." : " to take part in tournaments."));
    } else if (waiting) {
      items.push(h("p", {}, `You are number ${waiting.waitlist_position} on the waitlist: a freed seat goes to the first in line.`),
        checkIn(waiting),
        h("button", { type: "button", class: "btn", "data-key": "withdraw", disabled: state.busy,
          onclick: () => act(`tournaments/${id}/withdraw`, {}, "You left the waitlist.") }, "Leave the waitlist"));
    } else if (mineAny && running && mineAny.status === "withdrawn" && mineAny.seed) {
      items.push(h("p", {}, "You dropped from this tournament."));
      if (rules.reentry) {
        items.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "reenter", disabled: state.busy,
          onclick: () => act(`tournaments/${id}/reenter`, {}, "You are back in: paired from the next round.") }, "Come back"));
      }
    } else if (mine) {
      items.push(h("p", {}, open ? "You are registered." : "You are playing in this tournament."), checkIn(mine));
      if (open || t.status === "running") {
        items.push(h("button", { type: "button", class: "btn", "data-key": "withdraw", disabled: state.busy,
          onclick: () => act(`tournaments/${id}/withdraw`, {}, "You withdrew.") },
        open ? "Withdraw" : "Withdraw from the next rounds"));
      }
    } else if (open) {
      const line = full && rules.waitlist && t.waitlisted < rules.waitlist;
      items.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "register", disabled: state.busy || (full && !line),
        onclick: () => act(`tournaments/${id}/register`, undefined, line ? "You joined the waitlist." : "You are registered.") },
      line ? "Join the waitlist" : full ? "Full" : "Register"));
    } else if (running && rules.late_entry && !(mineAny && mineAny.status === "disqualified")) {
      items.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "late-entry", disabled: state.busy || full,
        onclick: () => act(`tournaments/${id}/register`, undefined, "You joined: paired from the next round.") }, "Join late"));
    } else {
      items.push(h("p", { class: "muted" }, "Registration is closed."));
    }
    if (organiser && open) {
      const bots = gameOf(t.game).bots;
      const select = h("select", { id: "bot-choice", "aria-label": "Bot" },
        bots.map((bot) => h("option", { value: bot, selected: bot === gameOf(t.game).strong_bot }, bot)));
      items.push(h("h3", {}, "Organiser"),
        h("div", { class: "action-bar" }, select, h("button", { type: "button", class: "btn", "data-key": "add-bot",
          disabled: state.busy || full, onclick: () => act(`tournaments/${id}/bots`, { bot: select.value }, "A bot entered.") },
        "Add a bot")),
        h("div", { class: "action-bar" }, h("button", { type: "button", class: "btn btn-primary", "data-key": "start",
          disabled: state.busy || t.entrants < 2, onclick: () => act(`tournaments/${id}/start`, undefined, "The tournament starts.") },
        "Start now")));
    }
    return items;
  });
}

async function act(path, body, done) {
  state.busy = true;
  renderEntry();
  try {
    await post(path, body);
    flash(done);
  } catch (err) {
    flash(err instanceof ApiError ? err.message : String(err), "error");
  }
  state.busy = false;
  await load().catch((err) => flash(err.message, "error"));
}

function renderEntrants() {
  rerender(el.entrants, () => (state.entrants.length ? h("ol", { class: "players" }, state.entrants.map((e) =>
    h("li", { class: "player", "data-entrant": String(e.id) },
      h("span", { class: "player-name" }, e.user ? h("a", { href: `/players/by-id/${e.user}` }, e.name) : e.name),
      e.bot ? h("span", { class: "badge" }, "bot") : null,
      e.seed ? h("span", { class: "muted small" }, `seed ${e.seed}`) : null,
      e.rating !== null && e.rating !== undefined ? h("span", { class: "muted small" }, `rating ${e.rating.toFixed(1)}`) : null,
      e.status === "waitlisted" ? h("span", { class: "badge" }, `waitlist #${e.waitlist_position}`)
        : e.status !== "active" ? h("span", { class: "badge" }, e.status.replace("_", " ")) : null,
      state.summary.status === "registration" && (state.summary.field_rules || {}).check_in_minutes && e.checked_in
        ? h("span", { class: "badge", "data-key": "checked-in" }, "checked in") : null,
      readmitButton(e))))
    : h("p", { class: "muted" }, "Nobody yet.")));
}

// The organiser may take back any player who dropped, whatever the re-entry rule.
function readmitButton(entrant) {
  const t = state.summary;
  if (!user || t.organiser !== user.id || t.status !== "running" || entrant.status !== "withdrawn" || !entrant.seed) return null;
  if (!["swiss", "swiss-tables"].includes(t.format)) return null;
  return h("button", { type: "button", class: "btn btn-small", "data-key": "readmit", disabled: state.busy,
    onclick: () => act(`tournaments/${id}/reenter`, { entrant: entrant.id }, `${entrant.name} is back in.`) }, "Re-admit");
}

function renderStandings() {
  const rows = state.standings;
  if (!rows.length) {
    rerender(el.standings, () => h("p", { class: "muted" }, "No results yet."));
    return;
  }
  const cooperative = state.summary.cooperative;
  const placed = rows.some((r) => r.place !== null);
  const swiss = !isElimination(state.summary) && !cooperative;
  // At tables of three or more, W/D/L would call a 2nd place a loss: say what is counted.
  const multiplayer = state.rounds.some((rnd) => rnd.tables.some((table) => table.seats.length > 2));
  const outcomes = multiplayer
    ? [["1st", "Tables won outright"], ["Shared 1st", "Tables where first place was shared"],
      ["Below 1st", "Tables finished below first place (points still count each place)"]]
    : [["W", "Won"], ["D", "Drawn"], ["L", "Lost"]];
  const titles = Object.fromEntries(outcomes);
  const scored = !cooperative;  // a team's table has no winner, loser or points of its own
  const headers = ["#", "Player", ...(placed ? ["Place"] : []), ...(scored ? ["Points"] : []), "Played",
    ...(scored ? outcomes.map(([text]) => text) : []), "Byes",
    ...(swiss ? ["Buchholz", "S-B"] : []), ...(cooperative ? ["Mean cards left"] : []), "Rating"];
  rerender(el.standings, () => h("table", { class: "data", id: "standings-table" },
    h("caption", { class: "visually-hidden" }, "Standings with tie-breaks"),
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", {
      scope: "col", class: text === "Player" ? "" : "num", title: titles[text] || null,
    }, text)))),
    h("tbody", {}, rows.map((r) => h("tr", {
      class: [user && r.entrant.user === user.id && "is-me", r.disqualified && "muted"], "data-entrant": String(r.entrant.id),
    },
    h("td", { class: "num" }, String(r.rank)),
    h("th", { scope: "row" }, r.entrant.name, r.withdrawn ? " (withdrew)" : "", r.disqualified ? " (disqualified)" : ""),
    placed ? h("td", { class: "num" }, r.place ? String(r.place) : "–") : null,
    scored ? h("td", { class: "num", title: r.points_exact, "data-points": r.points_exact }, decimal(r.points)) : null,
    h("td", { class: "num" }, String(r.played)),
    ...(scored ? [r.wins, r.draws, r.losses].map((count) => h("td", { class: "num" }, String(count))) : []),
    h("td", { class: "num" }, String(r.byes)),
    swiss ? h("td", { class: "num" }, decimal(r.buchholz)) : null,
    swiss ? h("td", { class: "num" }, decimal(r.sonneborn_berger)) : null,
    cooperative ? h("td", { class: "num" }, r.mean_team_score === null ? "–" : r.mean_team_score.toFixed(1)) : null,
    h("td", { class: "num" }, r.rating === null ? "–" : r.rating.toFixed(1)))))));
}

function resultText(table) {
  const result = table.result;
  if (!result) return null;
  const gone = result.forfeited && result.forfeited.length
    ? ` (${result.forfeited.map((entrant) => nameOf(entrant)).join(", ")} forfeited)` : "";
  if (result.team_score !== null && result.team_score !== undefined) return `${plural(result.team_score, "card")} left${gone}`;
  const ranks = result.ranks || [];
  const seats = table.seats;
  if (seats.length === 2) {
    if (ranks[0] === ranks[1]) {
      // A drawn bracket match still sends one player on: the higher seed (single_elimination.py).
      const match = table.bracket && state.bracket ? state.bracket.matches.find((m) => m.id === table.bracket) : null;
      const through = match && typeof match.winner === "number" ? nameOf(match.winner) : null;
      return through ? `Draw: ${through} advances (higher seed)${gone}` : `Draw${gone}`;
    }
    return `${seats[ranks[0] < ranks[1] ? 0 : 1].name} won${gone}`;
  }
  return seats.map((seat, i) => ({ seat, rank: ranks[i] })).sort((a, b) => a.rank - b.rank)
    .map(({ seat, rank }) => `${rank}. ${seat.name}`).join(", ") + gone;
}

function tableLink(table) {
  if (!table.match) return null;
  if (table.match_status === "finished") return h("a", { href: `/tables/${table.match}/replay`, class: "small" }, "Replay");
  const mine = user && table.seats.some((seat) => seat.user === user.id);
  return h("a", { href: `/tables/${table.match}`, class: mine ? "btn btn-small btn-primary" : "small" },
    mine ? "Play your match" : "Watch live");
}

function renderRounds() {
  if (!state.rounds.length) return;
  const labels = { paired: "paired", playing: "playing now", complete: "complete" };
  rerender(el.rounds, () => [...state.rounds].reverse().map((rnd) => h("section", {
    class: "round", "data-round": String(rnd.round), "data-status": rnd.status, "aria-label": `Round ${rnd.round}`,
  },
  h("h3", {}, `Round ${rnd.round} `, h("span", { class: `status-pill status-${rnd.status}` }, labels[rnd.status] || rnd.status),
    rnd.date ? h("span", { class: "muted small" }, ` ${dayText(rnd.date)}`) : null,
    rnd.deadline && rnd.status !== "complete" ? h("span", { class: "muted small" }, ` · deadline ${deadlineText(rnd.deadline)}`) : null),
  h("div", { class: "table-scroll" }, h("table", { class: "data" }, h("thead", {}, h("tr", {}, ["Table", "Players", "Result", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rnd.tables.map((table) => h("tr", { "data-table": String(table.table), "data-result": table.result ? "yes" : "no" },
      h("td", { title: table.bracket ? `Table ${table.table} (${table.bracket})` : null, class: table.bracket ? null : "table-number" },
        table.bracket ? bracketLabel(state.bracket, table.bracket) : String(table.table)),
      h("td", {}, table.seats.map((seat) => seat.name).join(" – ")),
      h("td", {}, resultText(table) || (table.match_status === "running" ? "playing…" : "—")),
      h("td", {}, tableLink(table))))))),
  rnd.byes.length ? h("p", { class: "small" }, `Bye: ${rnd.byes.map((b) => b.name).join(", ")}`) : null,
  rnd.quality_summary ? h("p", { class: "small muted pairing-quality" }, rnd.quality_summary) : null)));
}

function renderBracket() {
  el.bracketPanel.hidden = !state.bracket;
  if (!state.bracket) return;
  rerender(el.bracket, () => drawBracket(state.bracket));
}

// A matchday's date (noon: the same day in every time zone) and a deadline, written one way on the page.
function dayText(date) {
  return new Date(`${date}T12:00:00`).toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric" });
}

function deadlineText(iso) {
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return at.toDateString() === new Date().toDateString() ? time
    : `${at.toLocaleDateString(undefined, { day: "numeric", month: "short" })}, ${time}`;
}

function renderCalendar() {
  el.calendarPanel.hidden = !state.calendar;
  if (!state.calendar) return;
  const today = new Date().toISOString().slice(0, 10);
  const labels = { scheduled: "scheduled", paired: "paired", playing: "playing", complete: "played" };
  rerender(el.calendar, () => state.calendar.matchdays.map((day) => h("li", {
    class: day.date === today ? "is-today" : "", "data-round": String(day.round), "data-date": day.date || "",
  },
  h("strong", {}, `Matchday ${day.round}`), h("br"),
  day.date ? dayText(day.date)
    : h("span", { class: "muted" }, day.round === 1 ? "the day the league starts" : "dated when the league starts"),
  " ", h("span", { class: `status-pill status-${day.status}` }, labels[day.status] || day.status))));
}

// --- what happened -----------------------------------------------------------------------------------

function tableOf(roundNumber, tableNumber) {
  const rnd = state.rounds.find((r) => r.round === roundNumber);
  return rnd ? rnd.tables.find((t) => t.table === tableNumber) : null;
}

function describe(event) {
  const d = event.data;
  switch (event.type) {
    case "TournamentCreated": return `Created: ${formatTitle[d.format] || d.format} of ${gameOf(d.game).title}.`;
    case "PlayerRegistered": return `${d.name} entered.`;
    case "PlayerWithdrawn": return `${nameOf(d.entrant)} withdrew.`;
    case "TournamentStarted": return `The tournament started with ${plural(d.field.length, "entrant")}.`;
    case "RoundPaired": return `Round ${d.round} is paired: ${plural(d.tables.length, "table")}${d.byes.length ? `, ${plural(d.byes.length, "bye")}` : ""}.`;
    case "RoundUnpaired": return `Round ${d.round} is paired again (${d.reason}).`;
    case "RoundStarted": return `Round ${d.round} started.`;
    case "TableResult":
    case "ForfeitAwarded":
    case "ResultCorrected": {
      const table = tableOf(d.round, d.table);
      const text = table ? resultText({ ...table, result: d }) : null;
      const what = event.type === "TableResult" ? "" : event.type === "ForfeitAwarded" ? " (forfeit)" : " (corrected)";
      // A bracket table is named by the bracket ("Losers round 2, table 1", "Grand final").
      const where = table && table.bracket ? bracketLabel(state.bracket, table.bracket) : `Round ${d.round}, table ${d.table}`;
      return `${where}${what}: ${text || "result recorded"}.`;
    }
    case "PlayerDisqualified": return `${nameOf(d.entrant)} was disqualified${d.reason ? ` (${d.reason})` : ""}.`;
    case "RoundDeadlinePassed": return `Round ${d.round}'s deadline passed.`;
    case "RoundCompleted": return `Round ${d.round} is complete.`;
    case "TournamentFinished": return d.champion !== null && d.champion !== undefined
      ? `The tournament is over. ${championText(d.champion)}.` : "The tournament is over.";
    case "TournamentCancelled": return `The tournament was cancelled${d.reason ? ` (${d.reason})` : ""}.`;
    case "PlayerWaitlisted": return `${d.name} joined the waitlist.`;
    case "PlayerCheckedIn": return `${nameOf(d.entrant)} checked in.`;
    case "PlayerPromoted": return `${nameOf(d.entrant)} took a seat from the waitlist.`;
    case "CheckInMissed": return `${nameOf(d.entrant)} was dropped: not checked in.`;
    case "WaitlistClosed": return `Not admitted from the waitlist: ${d.entrants.map(nameOf).join(", ")}.`;
    case "PlayerLateEntered": return `${d.name} joined late, from round ${d.first_round}.`;
    case "PlayerReentered": return `${nameOf(d.entrant)} came back, from round ${d.from_round}.`;
    case "PlayerDropped": return `${nameOf(d.entrant)} was dropped from round ${d.from_round}.`;
    case "NoShowsForfeited": return d.tables.length
      ? `Round ${d.round}: ${d.tables.map((t) => `${t.forfeited.map(nameOf).join(", ")} forfeited table ${t.table}`).join("; ")} (absent).`
      : `Round ${d.round}: everyone was at their table.`;
    default: return event.type;
  }
}

// A decision names the rule that made it (tournaments.field_rules): the log says why, beneath.
function whyOf(event) {
  const d = event.data;
  if (!d.rule) return null;
  return h("span", { class: "small muted log-why", "data-rule": d.rule }, ` Why: ${d.why || d.rule} (rule ${d.rule})`);
}

// A decision about the reader's own entry is told at once, not only written in the log.
function tellMe(events) {
  if (!user) return;
  const mine = state.entrants.find((e) => e.user === user.id);
  if (!mine) return;
  for (const event of events) {
    if (event.data.entrant !== mine.id) continue;
    if (event.type === "PlayerPromoted") flash("A seat was freed: you are in the tournament now.");
    if (event.type === "CheckInMissed" || event.type === "PlayerDropped") flash(`You were dropped. ${event.data.why}`, "error");
  }
}

function appendActivity(events) {
  if (!events.length) return;
  const list = el.activity;
  const opening = !list.children.length;
  // Follow new lines only for a reader already at the bottom (not one reading back).
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
  for (const event of events) {
    list.append(h("li", { "data-seq": String(event.seq), "data-type": event.type, title: timeAgo(event.created) },
      describe(event), whyOf(event)));
  }
  // A tournament that is over opens at its first line, to be read as a story; a live one at its newest.
  const over = state.summary && ["finished", "cancelled"].includes(state.summary.status);
  if (opening ? !over : atBottom) list.scrollTop = list.scrollHeight;
}

follow();

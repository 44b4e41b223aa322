// One tournament, live: registration, the bracket (elimination) or the pairings and standings
// with tie-breaks (Swiss, round robin), a league's calendar, and what happened, as it happens.
// The page follows the tournament's event feed and reloads what an event changes.
import { ApiError, get, getAll, pageData, post } from "./api.js";
import { bracketLabel, drawBracket } from "./bracket.js";
import { flash, h, rerender } from "./dom.js";
import { countText, formatDateTime, formatFixed, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { contributionKey, shuffleContribution, spectatorText } from "./matches.js";
import { minutesText } from "./judge-call.js";
import { followTournament, resultText as sharedResultText } from "./tournament-live.js";

const data = pageData("tournament-data");
const games = pageData("games-data");
const root = document.getElementById("tournament");
const id = data.id;
const user = data.user;
const formatTitle = Object.fromEntries(data.formats.map((f) => [f.slug, f.title]));
const BRACKET_FORMATS = new Set(["single-elimination", "double-elimination"]);
const STATUS = {
  registration: gettext("Open for registration"), running: pgettext("tournament", "Running"),
  finished: pgettext("tournament", "Finished"), cancelled: pgettext("tournament", "Cancelled"),
};

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

const state = {
  summary: null, entrants: [], rounds: [], standings: [], bracket: null, calendar: null, busy: false,
  missedCheckIn: new Set(), // entrants out because they had not checked in (their status says only "withdrawn")
};

function gameOf(slug) {
  return games.find((g) => g.slug === slug) || { title: slug, bots: [] };
}

function nameOf(entrantId) {
  const entrant = state.entrants.find((e) => e.id === entrantId);
  return entrant ? entrant.name : interpolate(gettext("entrant %(id)s"), { id: entrantId });
}

// The server's own reasons name a person "entrant N" (no person's name is written in an event):
// shown with the name they have now.
function withNames(text) {
  return text ? text.replace(/\bentrant (\d+)\b/g, (_, id) => nameOf(Number(id))) : text;
}

function hasBracket(summary) {
  const format = summary.format === "league" ? summary.options.format : summary.format;
  return BRACKET_FORMATS.has(format);
}

// Points and tie-breaks are written one way everywhere on the page: decimals, at most two places
// (1, 1.5, 0.75, 0.67); the exact fraction is the points cell's tooltip.
function decimal(value) {
  return formatNumber(value, { maximumFractionDigits: 2 });
}

// A seed's rating is the cautious μ − 3σ, below 0 for a newcomer: shown from 0, as on the boards
// (ratings.selectors.shown_rating), since a negative rating only discourages.
function ratingText(value) {
  return value === null || value === undefined ? "–" : formatFixed(Math.max(0, value), 1);
}

function roundName(number) {
  return interpolate(gettext("Round %(round)s"), { round: formatNumber(number) });
}

// A move's clock in words: "30 seconds", "2 minutes", "1 day".
function clockText(seconds) {
  if (seconds < 60) return countText(ngettext("%(count)s second", "%(count)s seconds", seconds), seconds);
  if (seconds < 3600) {
    const minutes = Math.round(seconds / 60);
    return countText(ngettext("%(count)s minute", "%(count)s minutes", minutes), minutes);
  }
  if (seconds < 86400) {
    const hours = Math.round(seconds / 3600);
    return countText(ngettext("%(count)s hour", "%(count)s hours", hours), hours);
  }
  const days = Math.round(seconds / 86400);
  return countText(ngettext("%(count)s day", "%(count)s days", days), days);
}

function entrantsText(count) {
  return countText(ngettext("%(count)s entrant", "%(count)s entrants", count), count);
}

// Elimination formats order by how far each player got: Swiss tie-breaks mean nothing there.
function isElimination(summary) {
  const format = summary.format === "league" ? summary.options.format : summary.format;
  return Boolean(format) && format.endsWith("elimination");
}

const TIEBREAK_HELP = {
  swiss: gettext("Points: a win is 1, a draw 0.5 (at bigger tables, each opponent you beat counts). Ties are broken by Buchholz (your opponents' points), then Sonneborn–Berger (the points of the opponents you beat), then rating."),
  elimination: gettext("Place: how far each player got (the champion first; players knocked out in the same round share a place). Points: a win is 1, a draw 0.5."),
  cooperative: gettext("Every table plays as one team against the deck. Players rank by the mean number of cards their tables left (fewer is better), then rating."),
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
        flash(interpolate(gettext("Your contribution to the shuffle of round %(round)s, table %(table)s, is in."),
          { round: round.round, table: table.table }));
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 409)) flash(err.message, "error");
      } finally {
        state.contributing = false;
      }
    }
  }
}

// The feed is read by the module shared with the venue screen (tournament-live.js).
function follow() {
  followTournament({
    id,
    status: () => state.summary && state.summary.status,
    async onEvents(fresh, opening) {
      noteCheckIns(fresh);
      if (fresh.length || opening) await load();
      appendActivity(fresh);
      if (!opening) tellMe(fresh);
    },
    onError(err) {
      flash(interpolate(gettext("The tournament could not be loaded: %(error)s"), { error: err.message }), "error");
    },
  });
}

// --- drawing --------------------------------------------------------------------------------------

function render() {
  const t = state.summary;
  root.dataset.seq = String(t.seq);
  root.dataset.status = t.status;
  root.dataset.round = String(t.current_round || 0);
  el.status.textContent = STATUS[t.status] || t.status;
  el.status.className = `status-pill status-${t.status}`;
  const rounds = t.current_round
    ? interpolate(t.total_rounds ? gettext("round %(round)s of %(total)s") : gettext("round %(round)s"),
      { round: formatNumber(t.current_round), total: formatNumber(t.total_rounds || 0) })
    : t.total_rounds ? countText(ngettext("%(count)s round", "%(count)s rounds", t.total_rounds), t.total_rounds) : null;
  const format = formatTitle[t.format] || t.format;
  el.summary.textContent = [gameOf(t.game).title,
    t.options.table_size ? interpolate(gettext("%(format)s (tables of %(size)s)"), { format, size: formatNumber(t.options.table_size) }) : format,
    entrantsText(t.entrants), rounds,
    interpolate(gettext("%(clock)s a move"), { clock: clockText(t.clock_seconds) }), t.rated ? gettext("rated") : gettext("casual"),
    t.contributed_shuffle ? gettext("players add to each shuffle") : null,
    spectatorText(t),
    t.starts_at && t.status === "registration" ? interpolate(gettext("starts %(when)s"), { when: formatDateTime(t.starts_at) }) : null]
    .filter(Boolean).join(" · ");
  el.champion.hidden = t.champion === null;
  if (t.champion !== null) el.champion.textContent = championText(t.champion, true);
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
// `banner`: the sentence above the page ("... won the tournament."), else the log's words.
function championText(champion, banner = false) {
  const team = state.summary.cooperative ? state.standings.filter((r) => r.rank === 1).map((r) => r.entrant.name) : [];
  if (team.length > 1) {
    const names = team.join(", ");
    return interpolate(banner ? gettext("Champions: %(names)s won the tournament.") : gettext("Champions: %(names)s won"), { names });
  }
  const name = nameOf(champion);
  return interpolate(banner ? gettext("Champion: %(name)s won the tournament.") : gettext("Champion: %(name)s won"), { name });
}

// The field's rules as a line a player reads before entering (tournaments.field_rules).
function rulesText(t) {
  const r = t.field_rules || {};
  const parts = [];
  if (r.check_in_minutes) {
    parts.push(countText(ngettext("check in %(count)s minute before the start, or be dropped",
      "check in %(count)s minutes before the start, or be dropped", r.check_in_minutes), r.check_in_minutes));
  }
  if (r.waitlist) parts.push(interpolate(gettext("a waitlist of %(size)s once full"), { size: formatNumber(r.waitlist) }));
  if (r.late_entry) {
    const award = r.late_entry_award === "zero" ? gettext("missed rounds score zero") : gettext("one bye for missed rounds");
    parts.push(r.late_entry_until_round
      ? interpolate(gettext("late entry until round %(round)s (%(award)s)"), { round: formatNumber(r.late_entry_until_round), award })
      : interpolate(gettext("late entry until half the rounds have started (%(award)s)"), { award }));
  }
  if (r.reentry) parts.push(gettext("players who drop may come back"));
  if (r.no_show_seconds) {
    parts.push(countText(ngettext("absent %(count)s second from a table: forfeit", "absent %(count)s seconds from a table: forfeit",
      r.no_show_seconds), r.no_show_seconds));
  }
  if (r.no_show_drop_after) {
    parts.push(countText(ngettext("dropped after %(count)s forfeit", "dropped after %(count)s forfeits", r.no_show_drop_after),
      r.no_show_drop_after));
  }
  return parts.length ? interpolate(gettext("Rules: %(rules)s."), { rules: parts.join("; ") }) : null;
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
    if (entrant.checked_in) return h("p", { class: "small", "data-key": "checked-in" }, gettext("You have checked in."));
    if (!checkInOpen) {
      return h("p", { class: "small muted" }, interpolate(gettext("Check-in opens %(when)s."), { when: formatDateTime(t.check_in_opens_at) }));
    }
    return h("button", { type: "button", class: "btn btn-primary", "data-key": "check-in", disabled: state.busy,
      onclick: () => act(`tournaments/${id}/check-in`, undefined, gettext("You checked in.")) }, gettext("Check in"));
  };
  rerender(el.entry, () => {
    const items = [];
    const line = rulesText(t);
    if (line) items.push(h("p", { class: "small muted", id: "field-rules" }, line));
    if (!user) {
      const login = `/login?next=${encodeURIComponent(location.pathname)}`;
      items.push(h("p", {}, h("a", { href: login }, open ? gettext("Log in to register.") : gettext("Log in to take part in tournaments."))));
    } else if (waiting) {
      items.push(h("p", {}, interpolate(gettext("You are number %(position)s on the waitlist: a freed seat goes to the first in line."),
        { position: formatNumber(waiting.waitlist_position) })),
      checkIn(waiting),
      h("button", { type: "button", class: "btn", "data-key": "withdraw", disabled: state.busy,
        onclick: () => act(`tournaments/${id}/withdraw`, {}, gettext("You left the waitlist.")) }, gettext("Leave the waitlist")));
    } else if (mineAny && running && mineAny.status === "withdrawn" && mineAny.seed) {
      items.push(h("p", {}, gettext("You dropped from this tournament.")));
      if (rules.reentry) {
        items.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "reenter", disabled: state.busy,
          onclick: () => act(`tournaments/${id}/reenter`, {}, gettext("You are back in: paired from the next round.")) },
        gettext("Come back")));
      }
    } else if (mine) {
      items.push(h("p", {}, open ? gettext("You are registered.") : gettext("You are playing in this tournament.")), checkIn(mine));
      if (open || t.status === "running") {
        items.push(h("button", { type: "button", class: "btn", "data-key": "withdraw", disabled: state.busy,
          onclick: () => act(`tournaments/${id}/withdraw`, {}, gettext("You withdrew.")) },
        open ? gettext("Withdraw") : gettext("Withdraw from the next rounds")));
      }
    } else if (open) {
      const line = full && rules.waitlist && t.waitlisted < rules.waitlist;
      items.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "register", disabled: state.busy || (full && !line),
        onclick: () => act(`tournaments/${id}/register`, undefined, line ? gettext("You joined the waitlist.") : gettext("You are registered.")) },
      line ? gettext("Join the waitlist") : full ? gettext("Full") : gettext("Register")));
    } else if (running && rules.late_entry && !(mineAny && mineAny.status === "disqualified")) {
      items.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "late-entry", disabled: state.busy || full,
        onclick: () => act(`tournaments/${id}/register`, undefined, gettext("You joined: paired from the next round.")) },
      gettext("Join late")));
    } else {
      items.push(h("p", { class: "muted" }, gettext("Registration is closed.")));
    }
    if (organiser && open) {
      const bots = gameOf(t.game).bots;
      const select = h("select", { id: "bot-choice", "aria-label": gettext("Bot") },
        bots.map((bot) => h("option", { value: bot, selected: bot === gameOf(t.game).strong_bot }, bot)));
      items.push(h("h3", {}, gettext("Organiser")),
        h("div", { class: "action-bar" }, select, h("button", { type: "button", class: "btn", "data-key": "add-bot",
          disabled: state.busy || full, onclick: () => act(`tournaments/${id}/bots`, { bot: select.value }, gettext("A bot entered.")) },
        gettext("Add a bot"))),
        h("div", { class: "action-bar" }, h("button", { type: "button", class: "btn btn-primary", "data-key": "start",
          disabled: state.busy || t.entrants < 2, onclick: () => act(`tournaments/${id}/start`, undefined, gettext("The tournament starts.")) },
        gettext("Start now"))));
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
      e.bot ? h("span", { class: "badge" }, gettext("bot")) : null,
      e.seed ? h("span", { class: "muted small" }, interpolate(gettext("seed %(seed)s"), { seed: formatNumber(e.seed) })) : null,
      e.rating !== null && e.rating !== undefined
        ? h("span", { class: "muted small" }, interpolate(gettext("rating %(rating)s"), { rating: ratingText(e.rating) })) : null,
      e.status === "waitlisted"
        ? h("span", { class: "badge" }, interpolate(gettext("waitlist #%(position)s"), { position: formatNumber(e.waitlist_position) }))
        : e.status === "withdrawn" && state.missedCheckIn.has(e.id) ? h("span", { class: "badge" }, gettext("did not check in"))
          : e.status !== "active" ? h("span", { class: "badge" }, ENTRANT_STATUS[e.status] || e.status) : null,
      state.summary.status === "registration" && (state.summary.field_rules || {}).check_in_minutes && e.checked_in
        ? h("span", { class: "badge", "data-key": "checked-in" }, gettext("checked in")) : null,
      readmitButton(e))))
    : h("p", { class: "muted" }, gettext("Nobody yet."))));
}

const ENTRANT_STATUS = {
  withdrawn: pgettext("entrant", "withdrawn"), waitlisted: pgettext("entrant", "waitlisted"),
  disqualified: pgettext("entrant", "disqualified"), not_admitted: pgettext("entrant", "not admitted"),
};

// The organiser may take back any player who dropped, whatever the re-entry rule.
function readmitButton(entrant) {
  const t = state.summary;
  if (!user || t.organiser !== user.id || t.status !== "running" || entrant.status !== "withdrawn" || !entrant.seed) return null;
  if (!["swiss", "swiss-tables"].includes(t.format)) return null;
  return h("button", { type: "button", class: "btn btn-small", "data-key": "readmit", disabled: state.busy,
    onclick: () => act(`tournaments/${id}/reenter`, { entrant: entrant.id }, interpolate(gettext("%(name)s is back in."), { name: entrant.name })) },
  gettext("Re-admit"));
}

function renderStandings() {
  const rows = state.standings;
  if (!rows.length) {
    rerender(el.standings, () => h("p", { class: "muted" }, gettext("No results yet.")));
    return;
  }
  const cooperative = state.summary.cooperative;
  const placed = rows.some((r) => r.place !== null);
  const swiss = !isElimination(state.summary) && !cooperative;
  // At tables of three or more, W/D/L would call a 2nd place a loss: say what is counted.
  const multiplayer = state.rounds.some((rnd) => rnd.tables.some((table) => table.seats.length > 2));
  const outcomes = multiplayer
    ? [[pgettext("standings", "1st"), gettext("Tables won outright")],
      [pgettext("standings", "Shared 1st"), gettext("Tables where first place was shared")],
      [pgettext("standings", "Below 1st"), gettext("Tables finished below first place (points still count each place)")]]
    : [[pgettext("standings: won", "W"), gettext("Won")], [pgettext("standings: drawn", "D"), gettext("Drawn")],
      [pgettext("standings: lost", "L"), gettext("Lost")]];
  const titles = Object.fromEntries(outcomes);
  const scored = !cooperative;  // a team's table has no winner, loser or points of its own
  const player = gettext("Player");
  const headers = ["#", player, ...(placed ? [gettext("Place")] : []), ...(scored ? [gettext("Points")] : []), gettext("Played"),
    ...(scored ? outcomes.map(([text]) => text) : []), gettext("Byes"),
    ...(swiss ? [gettext("Buchholz"), pgettext("Sonneborn–Berger, short", "S-B")] : []),
    ...(cooperative ? [gettext("Mean cards left")] : []), gettext("Rating")];
  rerender(el.standings, () => h("table", { class: "data", id: "standings-table" },
    h("caption", { class: "visually-hidden" }, gettext("Standings with tie-breaks")),
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", {
      scope: "col", class: text === player ? "" : "num", title: titles[text] || null,
    }, text)))),
    h("tbody", {}, rows.map((r) => h("tr", {
      class: [user && r.entrant.user === user.id && "is-me", r.disqualified && "muted"], "data-entrant": String(r.entrant.id),
    },
    h("td", { class: "num" }, formatNumber(r.rank)),
    h("th", { scope: "row" }, r.entrant.name, r.withdrawn ? ` (${gettext("withdrew")})` : "",
      r.disqualified ? ` (${pgettext("entrant", "disqualified")})` : ""),
    placed ? h("td", { class: "num" }, r.place ? formatNumber(r.place) : "–") : null,
    scored ? h("td", { class: "num", title: r.points_exact, "data-points": r.points_exact }, decimal(r.points)) : null,
    h("td", { class: "num" }, formatNumber(r.played)),
    ...(scored ? [r.wins, r.draws, r.losses].map((count) => h("td", { class: "num" }, formatNumber(count))) : []),
    h("td", { class: "num" }, formatNumber(r.byes)),
    swiss ? h("td", { class: "num" }, decimal(r.buchholz)) : null,
    swiss ? h("td", { class: "num" }, decimal(r.sonneborn_berger)) : null,
    cooperative ? h("td", { class: "num" }, ratingText(r.mean_team_score)) : null,
    h("td", { class: "num" }, ratingText(r.rating)))))));
}

function resultText(table) {
  return sharedResultText(table, {
    nameOf,
    advancing: () => {
      const match = table.bracket && state.bracket ? state.bracket.matches.find((m) => m.id === table.bracket) : null;
      return match && typeof match.winner === "number" ? nameOf(match.winner) : null;
    },
  });
}

function tableLink(table) {
  if (!table.match) return null;
  if (table.match_status === "finished") return h("a", { href: `/tables/${table.match}/replay`, class: "small" }, gettext("Replay"));
  const mine = user && table.seats.some((seat) => seat.user === user.id);
  return h("a", { href: `/tables/${table.match}`, class: mine ? "btn btn-small btn-primary" : "small" },
    mine ? gettext("Play your match") : gettext("Watch live"));
}

function renderRounds() {
  if (!state.rounds.length) return;
  const labels = { paired: pgettext("round", "paired"), playing: gettext("playing now"), complete: pgettext("round", "complete") };
  const columns = [gettext("Table"), gettext("Players"), gettext("Result"), ""];
  rerender(el.rounds, () => [...state.rounds].reverse().map((rnd) => h("section", {
    class: "round", "data-round": String(rnd.round), "data-status": rnd.status, "aria-label": roundName(rnd.round),
  },
  h("h3", {}, `${roundName(rnd.round)} `, h("span", { class: `status-pill status-${rnd.status}` }, labels[rnd.status] || rnd.status),
    rnd.date ? h("span", { class: "muted small" }, ` ${dayText(rnd.date)}`) : null,
    rnd.deadline && rnd.status !== "complete"
      ? h("span", { class: "muted small" }, ` · ${interpolate(gettext("deadline %(when)s"), { when: deadlineText(rnd.deadline) })}`) : null),
  h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": roundName(rnd.round) },
    h("table", { class: "data" }, h("thead", {}, h("tr", {}, columns.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rnd.tables.map((table) => h("tr", { "data-table": String(table.table), "data-result": table.result ? "yes" : "no" },
      h("td", {
        title: table.bracket ? interpolate(gettext("Table %(table)s (%(id)s)"), { table: formatNumber(table.table), id: table.bracket }) : null,
        class: table.bracket ? null : "table-number",
        "data-label": table.bracket ? null : gettext("Table"),  // the phone layout's prefix, in the page's language
      }, table.bracket ? bracketLabel(state.bracket, table.bracket) : formatNumber(table.table)),
      h("td", {}, table.seats.map((seat) => seat.name).join(" – ")),
      h("td", {}, resultText(table) || (table.match_status === "running" ? (table.extra_seconds
        ? interpolate(gettext("playing… (%(time)s added)"), { time: minutesText(table.extra_seconds) }) : gettext("playing…")) : "—")),
      h("td", {}, tableLink(table))))))),
  rnd.byes.length
    ? h("p", { class: "small" }, interpolate(gettext("Bye: %(names)s"), { names: rnd.byes.map((b) => b.name).join(", ") })) : null,
  // The pairing checker's report: its line, and what it measured sentence by sentence when opened.
  rnd.quality_summary ? h("details", { class: "small pairing-quality" }, h("summary", {}, rnd.quality_summary),
    h("ul", {}, (rnd.quality_details || []).map((sentence) => h("li", {}, sentence)))) : null)));
}

function renderBracket() {
  el.bracketPanel.hidden = !state.bracket;
  if (!state.bracket) return;
  rerender(el.bracket, () => drawBracket(state.bracket));
}

// A matchday's date (noon: the same day in every time zone) and a deadline, written one way on the page.
function dayText(date) {
  return formatDateTime(`${date}T12:00:00`, { weekday: "short", day: "numeric", month: "short", year: "numeric" });
}

function deadlineText(iso) {
  const at = new Date(iso);
  return at.toDateString() === new Date().toDateString() ? formatDateTime(at, { hour: "2-digit", minute: "2-digit" })
    : formatDateTime(at, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

function renderCalendar() {
  el.calendarPanel.hidden = !state.calendar;
  if (!state.calendar) return;
  const today = new Date().toISOString().slice(0, 10);
  const labels = {
    scheduled: pgettext("matchday", "scheduled"), paired: pgettext("matchday", "paired"),
    playing: pgettext("matchday", "playing"), complete: pgettext("matchday", "played"),
  };
  rerender(el.calendar, () => state.calendar.matchdays.map((day) => h("li", {
    class: day.date === today ? "is-today" : "", "data-round": String(day.round), "data-date": day.date || "",
  },
  h("strong", {}, interpolate(gettext("Matchday %(round)s"), { round: formatNumber(day.round) })), h("br"),
  day.date ? dayText(day.date)
    : h("span", { class: "muted" }, day.round === 1 ? gettext("the day the league starts") : gettext("dated when the league starts")),
  " ", h("span", { class: `status-pill status-${day.status}` }, labels[day.status] || day.status))));
}

// --- what happened -----------------------------------------------------------------------------------

function tableOf(roundNumber, tableNumber) {
  const rnd = state.rounds.find((r) => r.round === roundNumber);
  return rnd ? rnd.tables.find((t) => t.table === tableNumber) : null;
}

function describe(event) {
  const d = event.data;
  const round = d.round === undefined ? undefined : formatNumber(d.round);
  switch (event.type) {
    case "TournamentCreated":
      return interpolate(gettext("Created: %(format)s of %(game)s."), { format: formatTitle[d.format] || d.format, game: gameOf(d.game).title });
    case "PlayerRegistered": return interpolate(gettext("%(name)s entered."), { name: nameOf(d.entrant) });
    case "PlayerWithdrawn": return interpolate(gettext("%(name)s withdrew."), { name: nameOf(d.entrant) });
    case "TournamentStarted":
      return countText(ngettext("The tournament started with %(count)s entrant.", "The tournament started with %(count)s entrants.",
        d.field.length), d.field.length);
    case "RoundPaired": {
      const tables = countText(ngettext("%(count)s table", "%(count)s tables", d.tables.length), d.tables.length);
      return d.byes.length
        ? interpolate(gettext("Round %(round)s is paired: %(tables)s, %(byes)s."), {
          round, tables, byes: countText(ngettext("%(count)s bye", "%(count)s byes", d.byes.length), d.byes.length),
        })
        : interpolate(gettext("Round %(round)s is paired: %(tables)s."), { round, tables });
    }
    case "RoundUnpaired": return interpolate(gettext("Round %(round)s is paired again (%(reason)s)."), { round, reason: withNames(d.reason) });
    case "TablesStarted": return interpolate(ngettext("Round %(round)s: %(count)s table started.",
      "Round %(round)s: %(count)s tables started.", d.tables.length), { round, count: formatNumber(d.tables.length) });
    case "RoundStarted": return interpolate(gettext("Round %(round)s started."), { round });
    case "TableResult":
    case "ForfeitAwarded":
    case "ResultCorrected": {
      const table = tableOf(d.round, d.table);
      const result = (table ? resultText({ ...table, result: d }) : null) || gettext("result recorded");
      // A bracket table is named by the bracket ("Losers round 2, table 1", "Grand final").
      const where = table && table.bracket ? bracketLabel(state.bracket, table.bracket)
        : interpolate(gettext("Round %(round)s, table %(table)s"), { round, table: formatNumber(d.table) });
      if (event.type === "ForfeitAwarded") return interpolate(gettext("%(where)s (forfeit): %(result)s."), { where, result });
      if (event.type === "ResultCorrected") return interpolate(gettext("%(where)s (corrected): %(result)s."), { where, result });
      return interpolate(gettext("%(where)s: %(result)s."), { where, result });
    }
    case "PlayerDisqualified": return d.reason
      ? interpolate(gettext("%(name)s was disqualified (%(reason)s)."), { name: nameOf(d.entrant), reason: d.reason })
      : interpolate(gettext("%(name)s was disqualified."), { name: nameOf(d.entrant) });
    case "RoundDeadlinePassed": return interpolate(gettext("Round %(round)s's deadline passed."), { round });
    case "TableTimeExtended": return interpolate(gettext("Round %(round)s, table %(table)s: a judge added %(time)s (%(total)s in all)."),
      { round, table: formatNumber(d.table), time: minutesText(d.seconds), total: minutesText(d.extra_seconds) });
    case "RoundCompleted": return interpolate(gettext("Round %(round)s is complete."), { round });
    case "TournamentFinished": return d.champion !== null && d.champion !== undefined
      ? interpolate(gettext("The tournament is over. %(champion)s."), { champion: championText(d.champion) }) : gettext("The tournament is over.");
    case "TournamentCancelled": return d.reason
      ? interpolate(gettext("The tournament was cancelled (%(reason)s)."), { reason: d.reason }) : gettext("The tournament was cancelled.");
    case "PlayerWaitlisted": return interpolate(gettext("%(name)s joined the waitlist."), { name: nameOf(d.entrant) });
    case "PlayerCheckedIn": return interpolate(gettext("%(name)s checked in."), { name: nameOf(d.entrant) });
    case "PlayerPromoted": return interpolate(gettext("%(name)s took a seat from the waitlist."), { name: nameOf(d.entrant) });
    case "CheckInMissed": return interpolate(gettext("%(name)s was dropped: not checked in."), { name: nameOf(d.entrant) });
    case "WaitlistClosed": return interpolate(gettext("Not admitted from the waitlist: %(names)s."), { names: d.entrants.map(nameOf).join(", ") });
    case "PlayerLateEntered":
      return interpolate(gettext("%(name)s joined late, from round %(round)s."), { name: nameOf(d.entrant), round: formatNumber(d.first_round) });
    case "PlayerReentered":
      return interpolate(gettext("%(name)s came back, from round %(round)s."), { name: nameOf(d.entrant), round: formatNumber(d.from_round) });
    case "PlayerDropped":
      return interpolate(gettext("%(name)s was dropped from round %(round)s."), { name: nameOf(d.entrant), round: formatNumber(d.from_round) });
    case "NoShowsForfeited": return d.tables.length
      ? interpolate(gettext("Round %(round)s: %(forfeits)s (absent)."), {
        round,
        forfeits: d.tables.map((t) => interpolate(gettext("%(names)s forfeited table %(table)s"),
          { names: t.forfeited.map(nameOf).join(", "), table: formatNumber(t.table) })).join("; "),
      })
      : interpolate(gettext("Round %(round)s: everyone was at their table."), { round });
    default: return event.type;
  }
}

// A decision names the rule that made it (tournaments.field_rules): the log says why, beneath.
/** A decision's reason as this reader reads it: the stored English, or its rule's sentence in theirs. */
function reasonOf(d) {
  return data.rule_sentences[d.rule] || withNames(d.why) || d.rule;
}

function whyOf(event) {
  const d = event.data;
  if (!d.rule) return null;
  // The stored reason is English: other readers get its rule's sentence in their language (the
  // rule's id, which was shown too, stays in data-rule and the API).
  const why = reasonOf(d);
  return h("span", { class: "small muted log-why", "data-rule": d.rule },
    ` ${interpolate(gettext("Why: %(why)s"), { why })}`);
}

function noteCheckIns(events) {
  for (const event of events) {
    if (event.type === "CheckInMissed") state.missedCheckIn.add(event.data.entrant);
    if (event.type === "PlayerReentered" || event.type === "PlayerLateEntered") state.missedCheckIn.delete(event.data.entrant);
  }
}

// A decision about the reader's own entry is told at once, not only written in the log.
function tellMe(events) {
  if (!user) return;
  const mine = state.entrants.find((e) => e.user === user.id);
  if (!mine) return;
  for (const event of events) {
    if (event.data.entrant !== mine.id) continue;
    if (event.type === "PlayerPromoted") flash(gettext("A seat was freed: you are in the tournament now."));
    if (event.type === "CheckInMissed" || event.type === "PlayerDropped") {
      flash(interpolate(gettext("You were dropped. %(why)s"), { why: reasonOf(event.data) }), "error");
    }
  }
}

function appendActivity(events) {
  if (!events.length) return;
  const list = el.activity;
  const opening = !list.children.length;
  // Follow new lines only for a reader already at the bottom (not one reading back).
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
  for (const event of events) {
    list.append(h("li", { "data-seq": String(event.seq), "data-type": event.type, title: formatDateTime(event.created) },
      describe(event), whyOf(event)));
  }
  // A tournament that is over opens at its first line, to be read as a story; a live one at its newest.
  const over = state.summary && ["finished", "cancelled"].includes(state.summary.status);
  if (opening ? !over : atBottom) list.scrollTop = list.scrollHeight;
}

follow();

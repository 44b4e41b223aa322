// The table page: the live game drawn from the seat's view, moves offered only from legal_moves,
// the turn, the clock, presence, the log, the result and the table's chat (chat.js); the seats
// before the start, the shuffle and every change of seat are table-setup.js's.
import { api, ApiError, get, pageData, post } from "./api.js";
import { clockPerMove, flash, h, rerender } from "./dom.js";
import { rendererFor } from "./games/index.js";
import { formatList, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import {
  changedResultText, countedRanks, countedWinners, DECK_CHOSEN_TEXT, placeText, playerName, ratingText, spectatorText,
} from "./matches.js";
import { clockText, endMotion, seatName } from "./games/common.js";
import { tableChat } from "./chat.js";
import { tableJudging } from "./judge-call.js";
import { tableSound } from "./sound.js";
import { MatchSocket } from "./socket.js";
import { measure as measureCards, motionControl, play as playMotion } from "./motion.js";
import { tableSetup } from "./table-setup.js";
import { screenReaderMode } from "./screen-reader.js";
import { concedeControl } from "./concede.js";
import { handOrder } from "./hand-order.js";
import { confirmControl, confirmedSend } from "./move-confirm.js";

const data = pageData("table-data");
const root = document.getElementById("table");
const renderer = rendererFor(data.match.game);
const matchId = data.match.id;
const user = data.user;

const state = {
  match: data.match,
  seat: data.seat,
  status: data.match.status,
  seq: 0,
  view: null,
  legal: [],
  deadline: data.match.deadline,
  log: [],
  presence: null,
  busy: null, // the seq a sent move was made at, until the table moves on or the move is refused
  lastRefusal: null, // the last move refused, kept after its flash has gone (a failing test's report reads it)
  ui: {},
  autoPass: data.auto_pass,
  deckConfirmed: false, // the joiner ticked that they know the creator chose the deck
  connection: "connecting",
  botHintsArrive: false, // set once a bot's move was pushed to this page without being asked for
};

const el = {
  status: document.getElementById("table-status"),
  connection: document.getElementById("connection"),
  setup: document.getElementById("setup"),
  board: document.getElementById("board"),
  turn: document.getElementById("turn"),
  clock: document.getElementById("clock"),
  players: document.getElementById("players"),
  autoPass: document.getElementById("auto-pass"),
  result: document.getElementById("result"),
  log: document.getElementById("log-list"),
  allMoves: document.getElementById("all-moves"),
  shuffle: document.getElementById("shuffle-note"),
  delay: document.getElementById("spectator-delay"),
};

// --- names and helpers ------------------------------------------------------------------------

function seatInfo(seat) {
  return state.match.seats[seat] || { seat, name: null, bot: "" };
}

function name(seat) {
  if (seat === null || seat === undefined) return gettext("nobody");
  return playerName(state.match, seat);
}

function seatNumber(seat) {
  return interpolate(gettext("Seat %(number)s"), { number: seat + 1 });
}

/** The seat's name, marked when it is the reader's. */
function nameOrYou(seat) {
  return seat === state.seat ? interpolate(gettext("%(name)s (you)"), { name: name(seat) }) : name(seat);
}

function isCreator() {
  return user !== null && state.match.created_by === user.id;
}

function errorText(err) {
  if (err instanceof ApiError || err.code) return err.message || String(err.code);
  return String(err);
}

function newKey() {
  return window.crypto && crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

// --- the socket -------------------------------------------------------------------------------

const socket = new MatchSocket(matchId, {
  since: 0,
  onFrame: receive,
  onStatus: (status) => {
    state.connection = status;
    renderConnection();
  },
});

const chat = tableChat({
  root: document.getElementById("chat"),
  matchId,
  user,
  seated: () => state.seat !== null && state.seat !== undefined,
  moderator: data.chat.moderator,
  closed: data.chat.closed,
  socket,
  newKey,
});

tableJudging({
  root: document.getElementById("judging"), matchId, user, judging: data.judging, running: () => state.status === "running", errorText,
});

const { act, contributeToShuffle, loadInvitations, pollWhileOpen, renderSetup, renderShuffle } = tableSetup({
  state, el, data, matchId, user, socket, render, seatNumber, nameOrYou, isCreator, startsWhen, errorText,
});

const sound = tableSound({ volume: data.sound_volume, seated: () => state.seat !== null && state.seat !== undefined });
document.querySelector(".table-links").prepend(sound.button);

function receive(frame) {
  if (chat.receive(frame)) return;
  switch (frame.type) {
    case "snapshot":
    case "update":
      applyView(frame);
      break;
    case "presence":
      state.presence = frame;
      renderPlayers();
      // Someone sat down since this page last read the table: fetch the names.
      if ((frame.seats || []).some((entry) => !seatInfo(entry.seat).name)) refreshMatch();
      break;
    case "auto_pass":
      autoPassChanged(frame.enabled);
      break;
    case "error":
      // A closed table that was open for seats has started without this reader: its page says why.
      if (frame.code === "table_closed_to_spectators") {
        location.reload();
        return;
      }
      flash(frame.message || frame.code, "error");
      break;
    default:
      break;
  }
}

function waitingOnBots() {
  return Boolean(state.status === "running" && state.view && state.view.to_act.length
    && state.view.to_act.every((seat) => seatInfo(seat).bot));
}

function applyView(frame) {
  const before = state.status;
  if (frame.pushed && waitingOnBots()) state.botHintsArrive = true; // the worker's hints reach us
  if (typeof frame.seq === "number") state.seq = Math.max(state.seq, frame.seq);
  if (frame.status) state.status = frame.status;
  if ("deadline" in frame) state.deadline = frame.deadline;
  if (frame.view !== undefined) state.view = frame.view;
  if (frame.legal_moves !== undefined) state.legal = frame.legal_moves || [];
  if (state.view && state.view.finished) state.status = "finished";
  const lastLogged = state.log.length ? state.log[state.log.length - 1].seq : 0;
  const fresh = (frame.events || []).filter((entry) => entry.seq > lastLogged);
  state.log.push(...fresh);
  if (fresh.length) confirming.cancel(); // a move offered for confirming was made at an earlier position
  if (state.busy !== null && state.seq > state.busy) state.busy = null;
  // A table fact (a seat resigned or claimed) moves the head with no event of the game: re-read the seats.
  if (before !== state.status || (frame.type === "update" && !fresh.length)) refreshMatch();
  // Read before the board is drawn again, while the page's layout is still the last frame's: read
  // after, it would be laid out once more for this alone.
  const logFollowed = logNearBottom();
  render();
  appendLog(fresh, logFollowed);
  sound.heard(fresh, { seat: state.seat, status: state.status, view: state.view, match: state.match, myTurn: myTurn() });
}

async function refreshMatch() {
  try {
    state.match = await get(`matches/${matchId}`);
    if (state.match.status === "finished" && state.status !== "finished") state.status = "finished";
    render();
  } catch (err) {
    flash(errorText(err), "error");
  }
}

// --- moves ------------------------------------------------------------------------------------

async function send(move) {
  if (state.busy !== null) return;
  const from = state.seq;
  state.busy = from;
  renderBoard();
  try {
    if (socket.open) {
      await socket.move(move, from);
    } else {
      const result = await api(`matches/${matchId}/moves`, {
        method: "POST", body: { move, expected_seq: from }, headers: { "Idempotency-Key": newKey() },
      });
      applyView({ type: "update", seq: result.seq, view: result.view, legal_moves: result.legal_moves, events: result.events });
    }
  } catch (err) {
    state.busy = null;
    state.lastRefusal = { seq: from, code: err.code || null, message: err.message };
    flash(interpolate(gettext("That move was refused: %(reason)s"), { reason: errorText(err) }), "error");
    socket.resync();
    render();
  }
}

function autoPassChanged(enabled) {
  state.autoPass = enabled;
  renderAutoPass();
  flash(enabled ? gettext("You now pass automatically in Block windows.")
    : gettext("You answer Block windows yourself again."));
}

function setAutoPass(enabled) {
  state.autoPass = enabled;
  // Before the socket opens (a page just loaded), the same answer comes by HTTP, with the same words.
  if (!socket.setAutoPass(enabled)) {
    post(`matches/${matchId}/auto-pass`, { enabled })
      .then((answer) => autoPassChanged(answer.enabled))
      .catch((err) => flash(errorText(err), "error"));
  }
}

// --- rendering --------------------------------------------------------------------------------

function context() {
  const outcome = state.status === "finished" && state.view ? (state.view.outcome || state.match.outcome) : null;
  return {
    seat: state.seat,
    name,
    seatInfo: (seat) => state.match.seats[seat] || null,
    // The seat's time left while it is to move (the table's clock is the one running).
    clock: () => (state.deadline && state.status === "running" ? clockText(Date.parse(state.deadline) - Date.now()) : null),
    // A cooperative game's one team score is the result's, not each seat's.
    finalScores: outcome && !outcome.cooperative && (state.endShown === "fresh" || state.endShown === "done") ? outcome.scores : null,
    // Every hand face up once the game is over (the replay's view of every seat at its end).
    hands: state.status === "finished" && state.endHands ? state.endHands : undefined,
    freshEnd: state.endShown === "fresh",
    send: confirming.send,
    busy: state.busy !== null,
    interactive: state.status === "running" && playing(),
    ui: state.ui,
    // The order the reader keeps their hand in, while they play (hand-order.js).
    handOrder: playing() && state.status === "running" ? handArrangement : null,
    refresh: (focusKey) => {
      renderBoard();
      renderAllMoves();
      if (focusKey) {
        const target = el.board.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
        if (target && !target.disabled) target.focus();
      }
    },
  };
}

const handArrangement = handOrder(matchId, (focusKey) => context().refresh(focusKey));
const confirming = confirmedSend({
  bar: document.querySelector(".turn-bar").appendChild(h("div", {
    class: "move-confirm", role: "group", "aria-label": gettext("Confirm your move"), hidden: true })),
  send,
  describe: (move) => renderer.describeMove(move, context()),
  timed: () => Boolean(state.match.clock_seconds),
});

/** Whether this reader holds a seat they still play (not given up to the bot). */
function playing() {
  return state.seat !== null && state.seat !== undefined && !seatInfo(state.seat).abandoned;
}

function myTurn() {
  return Boolean(state.view && playing() && state.view.to_act.includes(state.seat) && state.legal.length);
}

function render() {
  if (state.status === "finished" && state.view && !state.endShown) showTheEnd();
  root.dataset.seq = String(state.seq);
  root.dataset.status = state.status;
  root.dataset.myTurn = myTurn() ? "true" : "false";
  socket.setWaiting(waitingOnBots() && !state.botHintsArrive);
  renderStatus();
  renderDelay();
  renderConnection();
  renderSetup();
  renderBoard();
  renderTurn();
  renderPlayers();
  renderShuffle();
  renderAutoPass();
  renderResult();
  renderAllMoves();
  const title = interpolate(gettext("%(game)s · table %(number)s · Card League"), { game: renderer.title, number: matchId });
  document.title = myTurn() ? interpolate(gettext("● Your turn · %(title)s"), { title }) : title;
}

function renderStatus() {
  const texts = { open: gettext("Waiting for players"), running: gettext("Playing"), finished: gettext("Finished") };
  const bits = [texts[state.status] || state.status, ratingText(state.match)];
  if (state.match.deck_chosen) bits.push(DECK_CHOSEN_TEXT);
  if (state.status !== "finished") bits.push(spectatorText(state.match));
  if (state.match.clock_seconds) {
    bits.push(clockPerMove(state.match.clock_seconds));
  }
  if (state.seat === null || state.seat === undefined) bits.push(state.status === "finished" ? "" : gettext("you are watching"));
  el.status.textContent = bits.filter(Boolean).join(" · ");
}

// A delayed table's spectator (no seat; the server says how far behind this reader is shown it:
// the page data's delay_moves, null for its players, organiser and staff) is told so while it runs.
function renderDelay() {
  const count = data.delay_moves;
  const behind = Boolean(count) && (state.seat === null || state.seat === undefined) && state.status === "running";
  el.delay.hidden = !behind;
  if (!behind) return;
  el.delay.textContent = interpolate(ngettext(
    "You are watching %(count)s move behind the players: every spectator sees this table as it was %(count)s move ago, so nobody watching can tell a player what is happening now.",
    "You are watching %(count)s moves behind the players: every spectator sees this table as it was %(count)s moves ago, so nobody watching can tell a player what is happening now.",
    count), { count: formatNumber(count) });
}

function renderConnection() {
  const texts = { connecting: gettext("Connecting…"), live: gettext("Live"), reconnecting: gettext("Reconnecting…"),
    closed: gettext("Disconnected") };
  el.connection.textContent = texts[state.connection] || state.connection;
  el.connection.className = `connection connection-${state.connection}`;
  // A finished table has nothing live to show: the badge would claim play that is over.
  el.connection.hidden = state.status === "finished";
}

/** What starts an open table: its creator, or for a rematch the last acceptance. */
function startsWhen() {
  return state.match.rematch_of ? gettext("The rematch starts as soon as every player has accepted it.")
    : gettext("The game starts when every seat is taken and the table's creator starts it.");
}

// --- the end of a game: every hand face up, the scores counted up (issue #42 item 6) ------------

// A finished table's view still hides the other hands: the replay of its end shows every seat's
// (the same that the replay page shows once a match is over). Asked once; until it answers, and
// if it is refused (a sealed deal), the table shows what its view holds.
async function showTheEnd() {
  state.endShown = "asking";
  try {
    const position = await get(`matches/${matchId}/replay`, { seat: "all" });
    if (position.views) state.endHands = position.views.map((view) => view.hand);
  } catch {
    // nothing more to show than the view holds
  }
  state.endShown = "fresh";
  render();
  countUp([...el.board.querySelectorAll(".seat-score"), ...el.result.querySelectorAll(".score-count")]);
  state.endShown = "done";
}

/** A score as shown while it counts up: the figure, a picture of the count, and the final
 * value as words for a screen reader (the live result panel must not read every step). */
function countedScore(score) {
  const counting = state.endShown !== "done" && endMotion();
  return [h("span", { class: "score-count", "aria-hidden": "true", "data-score": String(score) }, formatNumber(counting ? 0 : score)),
    h("span", { class: "visually-hidden" }, formatNumber(score))];
}

// The final scores count up from 0 together, in about a second (half at the fast motion setting).
function countUp(nodes) {
  const finish = () => {
    for (const node of nodes) node.textContent = formatNumber(Number(node.dataset.score));
    root.dataset.scoresCounted = "true";
  };
  if (!endMotion() || !nodes.length) {
    finish();
    return;
  }
  const duration = document.getElementById("motion-setting")?.value === "fast" ? 500 : 1000;
  const start = performance.now();
  const step = (now) => {
    const done = Math.min(1, (now - start) / duration);
    const eased = 1 - (1 - done) ** 3;
    for (const node of nodes) node.textContent = formatNumber(Math.round(Number(node.dataset.score) * eased));
    if (done < 1) requestAnimationFrame(step);
    else finish();
  };
  for (const node of nodes) node.textContent = formatNumber(0);
  requestAnimationFrame(step);
}

function renderBoard() {
  const wasInside = el.board.contains(document.activeElement);
  if (!state.view) {
    el.board.replaceChildren(h("p", { class: "placeholder" },
      state.status === "open" ? startsWhen()
        : gettext("Loading the table…")));
    return;
  }
  const first = measureCards(el.board);
  rerender(el.board, () => renderer.render(state.view, state.legal, context()));
  playMotion(first, el.board, { seq: state.seq, log: state.log, seat: state.seat });
  if (wasInside && !el.board.contains(document.activeElement)) {
    const next = el.board.querySelector("button:not([disabled]), select:not([disabled])");
    if (next) next.focus({ preventScroll: true });
  }
}

function formatClock(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${formatNumber(Math.floor(seconds / 60))}:${String(seconds % 60).padStart(2, "0")}`;
}

function renderTurn() {
  const view = state.view;
  let text = "";
  if (state.status === "open") text = gettext("Waiting for the table to fill.");
  else if (!view) text = "";
  else if (view.finished) text = gettext("The game is over.");
  else if (myTurn()) {
    const detail = renderer.turnText ? renderer.turnText(view) : null;
    text = view.to_act.length > 1
      ? interpolate(gettext("Your answer: %(what)s."), { what: detail || gettext("decide") })
      : interpolate(gettext("Your turn: %(what)s."), { what: detail || gettext("make a move") });
  } else {
    const detail = renderer.turnText ? renderer.turnText(view) : null;
    const who = view.to_act.map(name).join(", ");
    text = detail ? interpolate(gettext("Waiting for %(names)s (%(what)s)."), { names: who, what: detail })
      : interpolate(gettext("Waiting for %(names)s."), { names: who });
  }
  if (el.turn.textContent !== text) el.turn.textContent = text;
  el.turn.classList.toggle("is-mine", myTurn());
  tickClock();
}

function tickClock() {
  if (!state.deadline || state.status !== "running") {
    el.clock.hidden = true;
    return;
  }
  const left = Date.parse(state.deadline) - Date.now();
  el.clock.hidden = false;
  el.clock.textContent = interpolate(gettext("%(time)s left to move"), { time: formatClock(left) });
  for (const pod of el.board.querySelectorAll(".seat-pod.is-current")) {
    const shown = pod.querySelector(".seat-clock");
    if (shown) shown.textContent = ` · ${formatClock(left)}`;
    pod.setAttribute("aria-label", seatName(pod.dataset.label, formatClock(left)));
  }
  el.clock.classList.toggle("clock-low", left < 10000);
  if (left < -2000 && state.connection === "live") socket.resync(); // the clock's move should have come
}

function renderPlayers() {
  const online = new Set((state.presence ? state.presence.seats : []).map((entry) => entry.seat));
  const toAct = state.view ? state.view.to_act : [];
  const items = state.match.seats.map((info) => {
    const here = info.bot ? "bot" : online.has(info.seat) ? "online" : info.name ? "away" : "empty";
    const hereText = presenceText(here);
    // A person who left while the table waits on them: another player may hand their seat to the bot.
    const claimable = here === "away" && !info.abandoned && toAct.includes(info.seat) && state.status === "running"
      && playing() && info.seat !== state.seat;
    return h("li", { class: ["player", toAct.includes(info.seat) && "is-current"] },
      h("span", { class: `presence presence-${here}`, role: "img", title: hereText, "aria-label": hereText }),
      h("span", { class: "player-name" }, nameOrYou(info.seat)),
      toAct.includes(info.seat) ? h("span", { class: "badge badge-turn" }, gettext("to play")) : null,
      info.abandoned ? h("span", { class: "badge", "data-key": `given-up:${info.seat}` }, gettext("the bot plays this seat")) : null,
      !info.bot && info.user ? h("a", { href: `/players/by-id/${info.user}`, class: "small" }, gettext("profile")) : null,
      claimable ? h("button", {
        type: "button", class: "btn btn-small", "data-key": `claim:${info.seat}`,
        onclick: () => act(`matches/${matchId}/claim`, { seat: info.seat },
          interpolate(gettext("The bot plays %(name)s's seat from now on."), { name: name(info.seat) })),
      }, gettext("Let the bot play this seat")) : null);
  });
  // null: a sealed table, whose players are told no count (it could carry a signal).
  const watching = state.presence ? state.presence.spectators : 0;
  rerender(el.players, () => [h("ul", { class: "players" }, items),
    watching === null ? null : h("p", { class: "muted small" }, interpolate(
      ngettext("%(count)s spectator watching", "%(count)s spectators watching", watching), { count: formatNumber(watching) })),
    resignControl(), concedeControl({ state, matchId, cooperative: Boolean(renderer.cooperative), playing: playing(), name: nameOrYou,
      redraw: renderPlayers, refresh: refreshMatch, focus: focusKey, errorText })]);
}

// Resigning asks twice: the seat goes to the bot for good, and it ranks last.
function resignControl() {
  if (state.status !== "running" || !playing()) return null;
  if (!state.ui.confirmResign) {
    return h("p", {}, h("button", { type: "button", class: "btn btn-small", "data-key": "resign",
      onclick: () => { state.ui.confirmResign = true; renderPlayers(); focusKey("resign-confirm"); } }, gettext("Resign")));
  }
  return h("div", { class: "banner", role: "alert" },
    h("p", {}, gettext("Resign? The bot plays your seat to the end and you rank after every player who plays on.")),
    h("p", {}, h("button", { type: "button", class: "btn btn-small btn-danger", "data-key": "resign-confirm",
      onclick: () => { state.ui.confirmResign = false; act(`matches/${matchId}/resign`, undefined, gettext("You resigned: the bot plays your seat.")); } },
    gettext("Yes, resign")), " ",
    h("button", { type: "button", class: "btn btn-small", "data-key": "resign-cancel",
      onclick: () => { state.ui.confirmResign = false; renderPlayers(); focusKey("resign"); } }, gettext("Keep playing"))));
}

function focusKey(key) {
  const target = el.players.querySelector(`[data-key="${key}"]`);
  if (target) target.focus();
}

function presenceText(here) {
  return { bot: gettext("bot"), online: gettext("online"), away: gettext("away"), empty: pgettext("seat", "empty") }[here];
}

function renderAutoPass() {
  const show = renderer.interrupts && state.seat !== null && state.seat !== undefined && state.status !== "finished";
  el.autoPass.hidden = !show;
  if (!show) return;
  const box = el.autoPass.querySelector("input");
  box.checked = Boolean(state.autoPass);
}

function renderResult() {
  const view = state.view;
  const outcome = (view && view.outcome) || state.match.outcome;
  if (state.status !== "finished" || !outcome) {
    el.result.hidden = true;
    return;
  }
  el.result.hidden = false;
  const ranks = countedRanks(state.match, outcome);
  const winners = countedWinners(state.match, outcome);
  const order = [...state.match.seats].sort((a, b) => ranks[a.seat] - ranks[b.seat] || a.seat - b.seat);
  // A cooperative game's seats share one result: places ("1st Ana, 1st tight") under "The team
  // lost" read as a win, so its table lists the team without them.
  const team = outcome.cooperative;
  const parts = renderer.scoreParts ? order.map((info) => renderer.scoreParts(outcome, info.seat, context())) : [];
  const rows = order.map((info, index) => h("tr", { class: winners.includes(info.seat) ? "winner" : "", "data-seat": String(info.seat) },
    team ? null : h("td", { class: "place" }, placeText(ranks[info.seat])),
    // What the score is made of (Ten's runs, Split's pad) under the name: the side column has no room for a column more.
    h("th", { scope: "row" }, name(info.seat), parts[index] ? h("span", { class: "score-parts" }, parts[index]) : null,
      // A seat given up (resigned, or left and handed to the bot) ranks after the seats that played
      // on, whatever the bot scored for it: say why its score sits below a lower one.
      info.abandoned && !team ? h("span", { class: "left-note", "data-key": `left:${info.seat}` },
        gettext("left the table: placed after those who played on")) : null),
    h("td", { class: "num" }, countedScore(outcome.scores[info.seat]))));
  const headline = outcome.cooperative ? (outcome.won ? gettext("The team won!") : gettext("The team lost."))
    : winners.length ? interpolate(gettext("%(names)s won."), { names: formatList(winners.map(name)) }) : gettext("Nobody won.");
  rerender(el.result, () => [
    h("h2", {}, gettext("Result")),
    h("p", { class: "result-headline" }, headline),
    h("p", {}, renderer.resultText(outcome, context())),
    data.changed_result ? h("p", { class: "banner", id: "changed-result" }, changedResultText(state.match, data.changed_result)) : null,
    state.match.rating && !state.match.rating.rated && state.match.rating.reason === "seat_never_moved"
      ? h("p", { class: "banner", id: "not-rated" }, interpolate(gettext("%(rating)s, so the match counts for nobody's rating."),
        { rating: ratingText(state.match) }))
      : null,
    h("table", { class: "data" }, h("thead", {}, h("tr", {}, team ? null : h("th", { scope: "col" }, gettext("Place")),
      h("th", { scope: "col" }, team ? gettext("The team") : gettext("Player")), h("th", { scope: "col" }, gettext("Score")))),
    h("tbody", {}, rows)),
    h("p", {}, h("a", { class: "btn", href: `/tables/${matchId}/replay` }, gettext("Watch the replay")), " ",
      h("a", { class: "btn", href: "/" }, gettext("Back to the lobby"))),
    rematchOffer(),
  ]);
}

// A player of a finished match offers a rematch (or, once someone has, goes to it).
function rematchOffer() {
  if (state.match.rematch) {
    return h("p", {}, h("a", { class: "btn btn-primary", id: "rematch-link", href: `/tables/${state.match.rematch}` },
      gettext("Go to the rematch")));
  }
  if (!user || state.seat === null || state.seat === undefined) return null;
  return h("p", {}, h("button", { type: "button", class: "btn btn-primary", "data-key": "rematch", onclick: async () => {
    try {
      const rematch = await post(`matches/${matchId}/rematch`);
      location.assign(`/tables/${rematch.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.code === "rematch_exists") location.assign(`/tables/${err.extra.rematch}`);
      else flash(errorText(err), "error");
    }
  } }, gettext("Offer a rematch")));
}

let shownMoves = ""; // what the list of legal moves shows (renderAllMoves)

function renderAllMoves() {
  const show = context().interactive && state.legal.length > 0;
  el.allMoves.hidden = !show;
  if (!show) return;
  const ctx = context();
  el.allMoves.querySelector("summary").textContent = interpolate(gettext("Every legal move as a list (%(count)s)"),
    { count: formatNumber(state.legal.length) });
  const list = el.allMoves.querySelector("ul");
  const described = state.legal.map((move) => renderer.describeMove(move, ctx));
  // Rebuilt only when the moves change: a frame that changes nothing here (presence, a resync's
  // answer) would otherwise replace the button under a press, which then clicks nothing, and take
  // a keyboard or screen-reader user's focus away.
  const shown = JSON.stringify([state.legal, described.map((text) => (typeof text === "string" ? text : text.textContent))]);
  if (shown !== shownMoves) {
    shownMoves = shown;
    list.replaceChildren(...state.legal.map((move, index) => h("li", {}, h("button", {
      type: "button", class: "btn btn-small", "data-list-move": JSON.stringify(move), onclick: () => confirming.send(move),
    }, described[index]))));
  }
  for (const button of list.querySelectorAll("button")) button.disabled = ctx.busy;
}

function logNearBottom() {
  return el.log.scrollHeight - el.log.scrollTop - el.log.clientHeight < 40;
}

function appendLog(entries, nearBottom) {
  if (!entries.length) return;
  const ctx = context();
  const opening = !el.log.children.length;
  const first = state.log.length - entries.length + 1; // the entries are already in state.log
  entries.forEach((entry, index) => {
    // `value`: the number stays the entry's own once the oldest lines are dropped below.
    el.log.append(h("li", { value: String(first + index), "data-seq": String(entry.seq), "data-type": entry.event.type },
      renderer.describe(entry.event, ctx)));
  });
  while (el.log.children.length > 400) el.log.firstElementChild.remove();
  // A finished table's log opens at its first line (the story from the deal); a running one follows the newest.
  if (opening && state.status === "finished") el.log.scrollTop = 0;
  else if (nearBottom || entries.length > 5) el.log.scrollTop = el.log.scrollHeight;
}

// --- start ------------------------------------------------------------------------------------

el.autoPass.querySelector("input").addEventListener("change", (event) => setAutoPass(event.target.checked));
el.autoPass.after(motionControl(), confirmControl());
document.addEventListener("keydown", (event) => {
  if (renderer.onKey && el.board.contains(document.activeElement) && renderer.onKey(event, context())) {
    event.preventDefault();
  }
});
setInterval(tickClock, 1000);
window.cardLeagueTable = { socket, state };
screenReaderMode({ state, renderer, context, send: confirming.send });
render();
renderConnection();
socket.connect();
setTimeout(pollWhileOpen, 2500);
contributeToShuffle();
loadInvitations();

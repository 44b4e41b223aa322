// The replay viewer: a finished match at any position (after each move), with everyone's cards
// or as one seat (or a spectator) saw it, stepped, sought, played, and linked to; the table's
// chat beside it (chat.js), and the search bot's review of each seat's decisions (review.js).
import { get, pageData, post } from "./api.js";
import { chatTranscript } from "./chat.js";
import { flash, h, rerender } from "./dom.js";
import { rendererFor } from "./games/index.js";
import { formatDateTime, formatList, formatNumber, gettext, interpolate, pgettext } from "./i18n.js";
import { startReview } from "./review.js";
import { changedResultText, countedWinners, DECK_CHOSEN_TEXT, playerName, ratingText } from "./matches.js";

const data = pageData("replay-data");
const match = data.match;
const renderer = rendererFor(match.game);
const root = document.getElementById("replay");
const params = new URLSearchParams(location.search);
const PLAY_STEP_MS = 900;

const el = {
  status: document.getElementById("replay-status"),
  controls: document.getElementById("controls"),
  board: document.getElementById("board"),
  result: document.getElementById("result"),
  decisions: document.getElementById("decisions"),
  log: document.getElementById("log-list"),
  seek: document.getElementById("seek"),
  position: document.getElementById("position"),
  seat: document.getElementById("seat"),
  play: document.getElementById("play"),
  copied: document.getElementById("copied"),
  practice: document.getElementById("practice"), // signed-in viewers only
  practiceSeat: document.getElementById("practice-seat"),
  practiceLogin: document.getElementById("practice-login"), // anonymous viewers only
  practiceWhy: document.getElementById("practice-why"), // signed-in viewers only
};

const state = {
  seat: params.get("seat") || "all",
  positions: [], // the seqs one can step to: the start, then the position after each move
  decisions: [],
  index: 0,
  shown: null,
  cache: new Map(),
  playing: false,
  playTimer: null,
  token: 0,
  review: null, // review.js, once the replay is served
};

function name(seat) {
  return playerName(match, seat);
}

function seatParam(seat) {
  return seat === "all" || seat === "spectator" ? seat : String(Number(seat));
}

async function fetchPosition(seq, seat) {
  const key = `${seq}|${seat}`;
  if (!state.cache.has(key)) {
    const request = get(`matches/${match.id}/replay`, { seq, seat: seatParam(seat) });
    state.cache.set(key, request);
    request.catch(() => state.cache.delete(key));
  }
  return state.cache.get(key);
}

function buildPositions(position) {
  state.decisions = position.decisions;
  const seqs = new Set(position.decisions.map((d) => d.after));
  if (position.decisions.length) seqs.add(position.decisions[0].seq);
  seqs.add(position.last_seq);
  state.positions = [...seqs].filter((seq) => seq >= 1).sort((a, b) => a - b);
}

function indexFor(seq) {
  let best = 0;
  state.positions.forEach((candidate, index) => { if (candidate <= seq) best = index; });
  return best;
}

// --- drawing ------------------------------------------------------------------------------------

function context(seat) {
  const viewer = seat === "all" || seat === "spectator" ? null : Number(seat);
  return {
    seat: viewer,
    name,
    seatInfo: (seat) => match.seats[seat] || null,
    send: () => {},
    busy: false,
    interactive: false,
    replay: true,
    ui: {},
    refresh: () => {},
    handTitle: viewer === null ? null : interpolate(gettext("%(name)s's hand"), { name: name(viewer) }),
  };
}

function show(position) {
  state.shown = position;
  const seq = position.seq;
  const ctx = context(state.seat);
  if (state.seat === "all" && position.views) ctx.hands = position.views.map((view) => view.hand);
  const view = position.view;
  rerender(el.board, () => (view ? renderer.render(view, [], ctx)
    : h("p", { class: "placeholder" }, gettext("The table is set; the cards are not dealt yet."))));
  root.dataset.seq = String(seq);
  root.dataset.index = String(state.index);
  el.seek.max = String(Math.max(0, state.positions.length - 1));
  el.seek.value = String(state.index);
  const total = state.positions.length - 1;
  const decision = state.decisions.find((d) => d.after === seq);
  const values = { index: formatNumber(state.index), total: formatNumber(total), seq: formatNumber(seq) };
  el.position.textContent = state.index === 0 ? interpolate(gettext("Start · event %(seq)s"), values)
    : decision ? interpolate(gettext("Move %(index)s of %(total)s (%(name)s) · event %(seq)s"), { ...values, name: name(decision.seat) })
      : interpolate(gettext("Move %(index)s of %(total)s · event %(seq)s"), values);
  el.seek.setAttribute("aria-valuetext", el.position.textContent);
  renderLog(position, ctx);
  markDecision(seq);
  renderResult(view, ctx);
  history.replaceState(null, "", `?seq=${seq}&seat=${seatParam(state.seat)}`);
  showPractice(view);
  if (state.review) state.review.at(seq);
  const seen = state.seat === "all" ? gettext("Everyone's cards") : state.seat === "spectator" ? gettext("As a spectator saw it")
    : interpolate(gettext("As %(name)s saw it"), { name: name(Number(state.seat)) });
  el.status.textContent = [seen, ratingText(match), match.deck_chosen ? DECK_CHOSEN_TEXT : null,
    interpolate(gettext("finished %(time)s"), { time: formatDateTime(match.finished_at) })].filter(Boolean).join(" · ");
}

function renderLog(position, ctx) {
  const entries = position.log.slice(-300);
  el.log.replaceChildren(...entries.map((entry) => h("li", { "data-seq": String(entry.seq) },
    renderer.describe(entry.event, ctx))));
  el.log.scrollTop = el.log.scrollHeight;
}

function renderDecisions() {
  const ctx = context("all");
  el.decisions.replaceChildren(...state.decisions.map((decision) => h("li", { "data-after": String(decision.after) },
    h("button", { type: "button", class: "linkish", onclick: () => goTo(indexFor(decision.after)) },
      interpolate(decision.actor === "clock" ? gettext("%(name)s: %(move)s (timed out)") : gettext("%(name)s: %(move)s"),
        { name: name(decision.seat), move: renderer.describeMove(decision.move, ctx) })))));
}

/** The moves the review marks as mistakes, in the list of moves (reviews: after -> its review). */
function markMistakes(reviews) {
  for (const item of el.decisions.children) {
    const review = reviews.get(Number(item.dataset.after));
    if (!review || !review.mistake || item.classList.contains("is-mistake")) continue;
    item.classList.add("is-mistake");
    item.append(" ", h("span", { class: "review-badge" }, gettext("Mistake")));
  }
}

function markDecision(seq) {
  let current = null;
  for (const item of el.decisions.children) {
    const here = Number(item.dataset.after) === seq;
    item.classList.toggle("is-here", here);
    if (here) current = item;
  }
  if (current) {
    const list = el.decisions;
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 30) list.scrollTop = top - list.clientHeight / 2;
  }
}

function renderResult(view, ctx) {
  const outcome = view && view.finished ? view.outcome : null;
  el.result.hidden = !outcome;
  if (!outcome) return;
  const winners = countedWinners(match, outcome);
  const headline = outcome.cooperative ? (outcome.won ? gettext("The team won.") : gettext("The team lost."))
    : winners.length ? interpolate(gettext("%(names)s won."), { names: formatList(winners.map(name)) })
      : gettext("Nobody won.");
  rerender(el.result, () => [h("h2", {}, gettext("Result")), h("p", { class: "result-headline" }, headline),
    h("p", {}, renderer.resultText(outcome, ctx)),
    data.changed_result ? h("p", { class: "banner", id: "changed-result" }, changedResultText(match, data.changed_result)) : null]);
}

// --- practice from the position shown ---------------------------------------------------------

/** The seat a practice table gives the viewer: the one being shown, else their own, else the first. */
function practiceSeat() {
  if (state.seat !== "all" && state.seat !== "spectator") return Number(state.seat);
  const own = data.user ? match.seats.find((info) => info.user === data.user.id) : null;
  return own ? own.seat : 0;
}

function showPractice(view) {
  if (el.practiceLogin) {
    el.practiceLogin.href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
    return;
  }
  // The server practises only from a dealt position before the end (position_not_playable).
  const playable = Boolean(view) && !view.finished;
  el.practice.disabled = !playable;
  // Said beside the button, not only in a tooltip that a touch screen never shows.
  el.practiceWhy.hidden = playable;
  el.practiceSeat.textContent = name(practiceSeat());
}

async function startPractice() {
  el.practice.disabled = true;
  try {
    const table = await post(`matches/${match.id}/practice`, { seq: state.shown.seq, seat: practiceSeat() });
    location.assign(`/tables/${table.id}`);
  } catch (err) {
    el.practice.disabled = false;
    flash(interpolate(gettext("The practice table could not be started: %(reason)s"), { reason: err.message }), "error");
  }
}

// --- moving through the match ---------------------------------------------------------------------

async function goTo(index, { keepPlaying = false } = {}) {
  if (!keepPlaying) stop();
  const bounded = Math.max(0, Math.min(index, state.positions.length - 1));
  const token = ++state.token;
  state.index = bounded;
  el.seek.value = String(bounded);
  try {
    const position = await fetchPosition(state.positions[bounded], state.seat);
    if (token !== state.token) return;
    show(position);
    const next = state.positions[bounded + 1];
    if (next !== undefined) fetchPosition(next, state.seat).catch(() => {});
  } catch (err) {
    flash(interpolate(gettext("That position could not be loaded: %(reason)s"), { reason: err.message }), "error");
  }
}

function play() {
  if (state.index >= state.positions.length - 1) goTo(0, { keepPlaying: true });
  state.playing = true;
  el.play.textContent = gettext("Pause");
  el.play.setAttribute("aria-pressed", "true");
  const step = async () => {
    if (!state.playing) return;
    if (state.index >= state.positions.length - 1) {
      stop();
      return;
    }
    await goTo(state.index + 1, { keepPlaying: true });
    if (state.playing) state.playTimer = setTimeout(step, PLAY_STEP_MS);
  };
  state.playTimer = setTimeout(step, PLAY_STEP_MS / 2);
}

function stop() {
  state.playing = false;
  clearTimeout(state.playTimer);
  el.play.textContent = pgettext("replay", "Play");
  el.play.setAttribute("aria-pressed", "false");
}

async function copyLink() {
  const url = location.href;
  try {
    await navigator.clipboard.writeText(url);
    el.copied.textContent = gettext("Link copied.");
  } catch (err) {
    el.copied.replaceChildren(gettext("Copy this link:"), " ", h("input", { type: "text", value: url, readonly: true, size: 40,
      "aria-label": gettext("Link to this position"), onfocus: (event) => event.target.select() }));
  }
  root.dataset.link = url;
}

function setUpSeatChoice() {
  const options = [["all", gettext("Everyone's cards")], ["spectator", gettext("A spectator's view")],
    ...match.seats.map((info) => [String(info.seat), interpolate(gettext("%(name)s's view"), { name: name(info.seat) })])];
  el.seat.replaceChildren(...options.map(([value, label]) => h("option", { value, selected: value === seatParam(state.seat) }, label)));
  el.seat.addEventListener("change", () => {
    state.seat = el.seat.value;
    goTo(state.index);
  });
}

async function start() {
  if (match.status !== "finished") {
    el.status.textContent = "";
    el.board.replaceChildren(h("p", { class: "placeholder" }, gettext("The replay opens when the match has ended."), " ",
      h("a", { href: `/tables/${match.id}` }, gettext("Watch it live"))));
    return;
  }
  setUpSeatChoice();
  const wanted = params.get("seq") ? Number(params.get("seq")) : null;
  let first;
  try {
    first = await fetchPosition(wanted || match.seq, state.seat);
  } catch (err) {
    flash(interpolate(gettext("The replay could not be loaded: %(reason)s"), { reason: err.message }), "error");

    return;
  }
  buildPositions(first);
  if (wanted && !state.positions.includes(first.seq)) {
    state.positions.push(first.seq);
    state.positions.sort((a, b) => a - b);
  }
  renderDecisions();
  el.controls.hidden = false;
  // Once the replay is served (a match not yet revealed is staff-only); the chat API decides what
  // this reader may read of the chat.
  chatTranscript({ root: document.getElementById("chat"), matchId: match.id });
  state.index = state.positions.indexOf(first.seq);
  const own = data.user ? match.seats.find((info) => info.user === data.user.id) : null;
  state.review = startReview({
    root: document.getElementById("review"), matchId: match.id, seats: match.seats, name,
    describeMove: (move) => renderer.describeMove(move, context("all")),
    goToSeq: (seq) => goTo(indexFor(seq)),
    seatWanted: () => (own ? own.seat : state.seat !== "all" && state.seat !== "spectator" ? Number(state.seat) : 0),
    signedIn: Boolean(data.user), markDecisions: markMistakes, ownSeat: own ? own.seat : null,
  });
  show(first);

  document.getElementById("first").addEventListener("click", () => goTo(0));
  document.getElementById("prev").addEventListener("click", () => goTo(state.index - 1));
  document.getElementById("next").addEventListener("click", () => goTo(state.index + 1));
  document.getElementById("last").addEventListener("click", () => goTo(state.positions.length - 1));
  el.play.addEventListener("click", () => (state.playing ? stop() : play()));
  document.getElementById("copy").addEventListener("click", copyLink);
  if (el.practice) el.practice.addEventListener("click", startPractice);
  let seekTimer = null;
  el.seek.addEventListener("input", () => {
    clearTimeout(seekTimer);
    seekTimer = setTimeout(() => goTo(Number(el.seek.value)), 120);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") goTo(state.index + 1);
    else if (event.key === "ArrowLeft") goTo(state.index - 1);
    else return;
    event.preventDefault();
  });
}

start();

// The review beside a replay (issue #44 item 5): the search bot's opinion of each decision of a
// seat, read from GET /api/matches/<id>/review (202 while it is computed: asked again shortly),
// as a graph of the win chance (The Game: the team's expected cards left) over the seat's
// decisions, the moves it marks as mistakes, and at the position shown, the move that led there
// beside the best one, with "what if": a practice table from just before it. The table's players
// may review it together (issue #44 item 6): over the table's socket, one leads (each position
// they step to is sent as a `review_position` frame) and the others follow.
import { get, post } from "./api.js";
import { lineChart } from "./chart.js";
import { flash, h, rerender } from "./dom.js";
import { formatFixed, formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { MatchSocket } from "./socket.js";

const POLL_MS = 2500;

/**
 * root: the review's <section>; name(seat); describeMove(move); goToSeq(seq): show the position
 * after a move; seatWanted(): the seat to review first (the reader's, or the one shown); signedIn;
 * ownSeat: the reader's seat at this table (null: not a player, so no shared review).
 */
export function startReview({ root, matchId, seats, name, describeMove, goToSeq, seatWanted, signedIn, markDecisions,
  ownSeat = null }) {
  const el = {
    seat: root.querySelector("#review-seat"),
    status: root.querySelector("#review-status"),
    chart: root.querySelector("#review-chart"),
    here: root.querySelector("#review-here"),
    mistakes: root.querySelector("#review-mistakes"),
    noMistakes: root.querySelector("#review-no-mistakes"),
    threshold: root.querySelector("#review-threshold"),
    body: root.querySelector("#review-body"),
  };
  const state = { analysis: null, seat: seatWanted(), seq: null };
  root.hidden = false;

  el.seat.replaceChildren(...seats.map((info) => h("option", { value: String(info.seat), selected: info.seat === state.seat },
    name(info.seat))));
  el.seat.addEventListener("change", () => {
    state.seat = Number(el.seat.value);
    draw();
  });

  const cards = () => state.analysis.metric === "cards_left";
  const valueText = (value) => (cards() ? formatFixed(value, 1) : formatNumber(value, { style: "percent", maximumFractionDigits: 0 }));
  const estimateText = (estimate) => interpolate(gettext("%(value)s (range %(low)s to %(high)s)"), {
    value: valueText(estimate.value), low: valueText(estimate.low), high: valueText(estimate.high) });
  const lossText = (loss) => (cards()
    ? interpolate(gettext("%(cards)s more cards left"), { cards: formatFixed(loss, 1) })
    : interpolate(gettext("%(points)s points of win chance"), { points: formatNumber(Math.round(loss * 100)) }));
  const mine = () => state.analysis.decisions.filter((d) => d.seat === state.seat);

  function draw() {
    if (!state.analysis) return;
    const decisions = mine();
    const mistakes = decisions.filter((d) => d.mistake);
    markDecisions(new Map(state.analysis.decisions.map((d) => [d.after, d])));
    el.body.hidden = false;
    el.status.textContent = decisions.length
      ? interpolate(ngettext("%(name)s: %(count)s decision reviewed, %(mistakes)s marked as a mistake.",
        "%(name)s: %(count)s decisions reviewed, %(mistakes)s marked as mistakes.", decisions.length),
      { name: name(state.seat), count: formatNumber(decisions.length), mistakes: formatNumber(mistakes.length) })
      : interpolate(gettext("%(name)s had no choice to make: no decision to review."), { name: name(state.seat) });
    el.threshold.textContent = interpolate(gettext("A mistake loses at least %(loss)s against the best move found, beyond the noise of %(playouts)s playouts a move."),
      { loss: lossText(state.analysis.threshold), playouts: formatNumber(state.analysis.playouts) });
    const title = cards() ? gettext("Expected cards left") : gettext("Win chance");
    rerender(el.chart, () => (decisions.length ? [
      h("h3", { class: "review-chart-title" }, interpolate(gettext("%(title)s after each decision of %(name)s"),
        { title, name: name(state.seat) })),
      lineChart(decisions.map((d, index) => ({
        y: cards() ? d.played.value : d.played.value * 100,
        low: cards() ? d.played.low : d.played.low * 100,
        high: cards() ? d.played.high : d.played.high * 100,
        className: d.after === state.seq ? "is-here" : d.mistake ? "is-mistake" : null,
        label: interpolate(gettext("Decision %(number)s: %(move)s, %(value)s"),
          { number: formatNumber(index + 1), move: describeMove(d.move), value: valueText(d.played.value) }),
      })), {
        title,
        yRange: cards() ? [0, 0] : [0, 100],
        summary: interpolate(gettext("%(title)s over %(count)s decisions of %(name)s: from %(first)s to %(last)s; %(mistakes)s marked as mistakes."), {
          title, count: formatNumber(decisions.length), name: name(state.seat),
          first: valueText(decisions[0].played.value), last: valueText(decisions[decisions.length - 1].played.value),
          mistakes: formatNumber(mistakes.length) }),
      })] : null));
    el.mistakes.replaceChildren(...mistakes.map((d) => h("li", {},
      h("button", { type: "button", class: "linkish", onclick: () => goToSeq(d.after) },
        interpolate(gettext("%(move)s (best: %(best)s; lost %(loss)s)"),
          { move: describeMove(d.move), best: describeMove(d.best), loss: lossText(d.loss) })))));
    el.mistakes.hidden = !mistakes.length;
    el.noMistakes.hidden = Boolean(mistakes.length);
    drawHere();
  }

  function drawHere() {
    const decision = state.analysis.decisions.find((d) => d.after === state.seq);
    rerender(el.here, () => {
      if (!decision) return h("p", { class: "muted" }, gettext("Step to a move with a choice to see its review."));
      const better = JSON.stringify(decision.best) !== JSON.stringify(decision.move);
      const metric = cards() ? gettext("expected cards left") : gettext("win chance");
      return [
        h("p", { class: "review-move" + (decision.mistake ? " is-mistake" : "") },
          h("strong", {}, interpolate(gettext("%(name)s played %(move)s"), { name: name(decision.seat), move: describeMove(decision.move) })),
          decision.mistake ? h("span", { class: "review-badge" }, gettext("Mistake")) : null),
        h("dl", { class: "review-numbers" },
          h("dt", {}, interpolate(gettext("Move played, %(metric)s"), { metric })),
          h("dd", {}, estimateText(decision.played)),
          h("dt", {}, gettext("Best move")),
          h("dd", { class: "review-best" }, better ? describeMove(decision.best) : gettext("the move played")),
          better ? h("dt", {}, interpolate(gettext("Best move, %(metric)s"), { metric })) : null,
          better ? h("dd", {}, estimateText(decision.best_value)) : null,
          better ? h("dt", {}, gettext("Loss")) : null,
          better ? h("dd", {}, lossText(decision.loss)) : null),
        h("p", { class: "muted small" }, interpolate(ngettext(
          "Out of %(options)s legal move, seen from %(name)s's cards only.",
          "Out of %(options)s legal moves, seen from %(name)s's cards only.", decision.options),
        { options: formatNumber(decision.options), name: name(decision.seat) })),
        signedIn ? h("button", { type: "button", class: "btn", id: "review-what-if", onclick: () => whatIf(decision) },
          interpolate(gettext("What if? Play on from before this move as %(name)s"), { name: name(decision.seat) }))
          : null,
      ];
    });
  }

  async function whatIf(decision) {
    const button = root.querySelector("#review-what-if");
    button.disabled = true;
    try {
      const table = await post(`matches/${matchId}/practice`, { seq: decision.seq, seat: decision.seat });
      location.assign(`/tables/${table.id}`);
    } catch (err) {
      button.disabled = false;
      flash(interpolate(gettext("The practice table could not be started: %(reason)s"), { reason: err.message }), "error");
    }
  }

  async function load() {
    let answer;
    try {
      answer = await get(`matches/${matchId}/review`);
    } catch (err) {
      el.status.textContent = interpolate(gettext("The review could not be loaded: %(reason)s"), { reason: err.message });
      return;
    }
    if (answer.status === "none") {
      el.status.textContent = gettext("This match has no review yet: its players can ask for one by opening this page.");
      return;
    }
    if (answer.status !== "done") {
      el.status.textContent = gettext("The search bot is reviewing this match; its review appears here when it is ready.");
      setTimeout(load, POLL_MS);
      return;
    }
    state.analysis = answer;
    root.dataset.ready = "true";
    draw();
  }

  load();
  const together = ownSeat === null ? null : reviewTogether({ root, matchId, name, goToSeq, current: () => state.seq });
  return {
    at(seq) {
      state.seq = seq;
      if (state.analysis) draw();
      if (together) together.shown(seq);
    },
  };
}

/** The shared review: the players' sockets at this table, one leading, the others following. */
function reviewTogether({ root, matchId, name, goToSeq, current }) {
  const box = root.querySelector("#review-together");
  const lead = root.querySelector("#review-lead");
  const follow = root.querySelector("#review-follow");
  const status = root.querySelector("#review-together-status");
  const state = { leading: false, following: follow.checked };
  box.hidden = false;
  const socket = new MatchSocket(matchId, {
    onFrame: (frame) => {
      if (frame.type === "review_position") {
        if (state.leading || !state.following) return;
        status.textContent = interpolate(gettext("%(name)s leads; you follow."), { name: name(frame.seat) });
        root.dataset.followed = String(frame.seq);
        goToSeq(frame.seq);
      } else if (frame.type === "error") {
        status.textContent = interpolate(gettext("The shared review refused that: %(reason)s"), { reason: frame.message });
      }
    },
  });
  socket.connect();
  const send = (seq) => { if (seq !== null) socket.send({ type: "review_position", seq }); };
  lead.addEventListener("click", () => {
    state.leading = !state.leading;
    lead.setAttribute("aria-pressed", String(state.leading));
    status.textContent = state.leading ? gettext("You lead: the other players here follow the positions you step to.") : "";
    if (state.leading) send(current());
  });
  follow.addEventListener("change", () => { state.following = follow.checked; });
  return { shown: (seq) => { if (state.leading) send(seq); } };
}

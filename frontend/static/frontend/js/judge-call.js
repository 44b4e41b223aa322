// Judging at a tournament table (issue #46): a seated player calls a judge with a reason, and
// follows the call (waiting, a judge on the way, the ruling); everyone reads when the table must
// end and the time judges added to it. The judges' own queue is judging.js; the words of a call
// and its ruling come from the API, and are put on the page as text.
import { get, post } from "./api.js";
import { flash, h, rerender } from "./dom.js";
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { clockText } from "./games/common.js";

// While a call at the table waits for its ruling the table's page asks every few seconds, else
// twice a minute (time added, a new call): a hidden tab asks five times less often.
const POLL_MS = 4000;
const QUIET_POLL_MS = 30000;

const REASONS = [
  ["rules", gettext("A rules question")],
  ["dispute", gettext("We disagree about what happened")],
  ["technical", gettext("A technical problem")],
  ["conduct", gettext("A player's conduct")],
  ["other", gettext("Something else")],
];
const REASON_TEXT = Object.fromEntries(REASONS);

export const reasonText = (reason) => REASON_TEXT[reason] || reason;

export function minutesText(seconds) {
  const minutes = Math.round(seconds / 60);
  return interpolate(ngettext("%(count)s minute", "%(count)s minutes", minutes), { count: formatNumber(minutes) });
}

/** A ruling in words for the players: what it does, then the judge's note. */
export function rulingText(ruling, seats) {
  const nameOf = (entrant) => (seats.find((seat) => seat.id === entrant) || { name: "?" }).name;
  let done;
  switch (ruling.kind) {
    case "extension":
      done = interpolate(gettext("%(time)s added to the table's time."), { time: minutesText(ruling.seconds) });
      break;
    case "penalty":
      done = interpolate(gettext("A warning to %(name)s."), { name: nameOf(ruling.entrant) });
      break;
    case "correction":
      done = gettext("The table's result was corrected.");
      break;
    default:
      done = null;
  }
  return [done, ruling.note].filter(Boolean).join(" ");
}

/** Where a call stands, in words: waiting, who is on the way, who resolved it. */
export function callStatusText(call) {
  if (call.status === "open") return gettext("Waiting for a judge.");
  if (call.status === "claimed") return interpolate(gettext("%(name)s is on the way."), { name: call.claimed_by.name });
  return interpolate(gettext("Resolved by %(name)s."), { name: call.resolved_by.name });
}

/**
 * The table page's judging panel, drawn into `root` (hidden for a table of no tournament).
 * `judging`: the table's judging as the page was served (`tournaments.selectors.table_judging`);
 * `running()`: whether the table's match is still being played (its time is shown till then);
 * `user`: the reader ({id}, or null).
 */
export function tableJudging({ root, matchId, user, judging, running, errorText }) {
  if (!judging) return;
  const state = { judging, asking: false, sending: false, timer: null };
  const time = h("p", { class: "judging-time", "data-key": "table-time" });
  const body = h("div");
  root.replaceChildren(h("h2", { class: "panel-title", id: "judging-title" }, gettext("Judge")), time, body);
  root.hidden = false;

  function render() {
    const j = state.judging;
    // One call of one's own at a time: the next once a judge has ruled on it.
    const waiting = j.calls.some((call) => user !== null && call.caller.id === user.id && call.status !== "resolved");
    rerender(body, () => [
      j.calls.length ? h("ol", { class: "judge-calls" }, j.calls.map(callItem)) : null,
      j.can_call && !waiting ? (state.asking ? callForm() : h("p", {}, h("button", {
        type: "button", class: "btn btn-small", "data-key": "call-judge",
        onclick: () => { state.asking = true; render(); body.querySelector("select").focus(); },
      }, gettext("Call a judge")))) : null,
      j.judges ? h("p", { class: "small" }, h("a", { href: `/tournaments/${j.tournament}/judging` }, gettext("The judges' queue"))) : null,
    ]);
    tick();
  }

  function callItem(call) {
    const mine = user !== null && call.caller.id === user.id;
    return h("li", { class: ["judge-call", `is-${call.status}`], "data-call": String(call.number), "data-status": call.status },
      h("p", {}, h("strong", {}, mine ? gettext("Your call") : interpolate(gettext("%(name)s called a judge"), { name: call.caller.name })),
        ` · ${reasonText(call.reason)}`),
      call.details ? h("p", { class: "muted small" }, call.details) : null,
      h("p", { class: "judge-call-status" }, callStatusText(call)),
      call.ruling ? h("p", { class: "judge-ruling", "data-ruling": call.ruling.kind }, rulingText(call.ruling, call.seats)) : null);
  }

  function callForm() {
    const reason = h("select", { id: "judge-reason", required: true },
      REASONS.map(([value, label]) => h("option", { value }, label)));
    const details = h("textarea", { id: "judge-details", rows: "2", maxlength: "500" });
    return h("form", { class: "judge-call-form", onsubmit: (event) => { event.preventDefault(); send(reason.value, details.value); } },
      h("label", { for: "judge-reason" }, gettext("Why?")), reason,
      h("label", { for: "judge-details" }, gettext("Anything the judge should know (optional)")), details,
      h("p", { class: "actions" },
        h("button", { type: "submit", class: "btn btn-small btn-primary", "data-key": "send-call", disabled: state.sending }, gettext("Call")), " ",
        h("button", { type: "button", class: "btn btn-small", onclick: () => { state.asking = false; render(); } }, gettext("Cancel"))));
  }

  async function send(reason, details) {
    state.sending = true;
    try {
      await post(`tournaments/${state.judging.tournament}/judge-calls`, { match: matchId, reason, details });
      state.asking = false;
      flash(gettext("A judge has been called to your table."));
      await refresh();
      clearTimeout(state.timer);
      state.timer = setTimeout(poll, POLL_MS); // follow the call closely from now
    } catch (err) {
      flash(errorText(err), "error");
    } finally {
      state.sending = false;
      render();
    }
  }

  // The table's time: the round's deadline and what judges added, counted down each second.
  function tick() {
    const j = state.judging;
    if (!j.deadline || !running()) {
      time.hidden = true;
      return;
    }
    time.hidden = false;
    const left = Date.parse(j.deadline) - Date.now();
    const added = j.extra_seconds ? ` (${interpolate(gettext("%(time)s added by a judge"), { time: minutesText(j.extra_seconds) })})` : "";
    time.textContent = interpolate(gettext("Round %(round)s, table %(table)s: %(time)s left to play"),
      { round: formatNumber(j.round), table: formatNumber(j.table), time: clockText(left) }) + added;
    time.dataset.extraSeconds = String(j.extra_seconds);
  }

  async function refresh() {
    state.judging = await get(`tournaments/tables/${matchId}/judging`);
    if (!state.asking) render();
  }

  // Players and judges follow the calls; everyone follows the time added.
  async function poll() {
    try {
      await refresh();
    } catch {
      // the next read tries again
    }
    if (running() || state.judging.can_call) {
      const waiting = state.judging.calls.some((call) => call.status !== "resolved");
      const wait = waiting ? POLL_MS : QUIET_POLL_MS;
      clearTimeout(state.timer); // one chain of reads, whatever a call started meanwhile
      state.timer = setTimeout(poll, document.visibilityState === "visible" ? wait : wait * 5);
    }
  }
  render();
  setInterval(tick, 1000);
  state.timer = setTimeout(poll, POLL_MS);
}

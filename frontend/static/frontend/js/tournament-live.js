// A tournament followed live, shared by the tournament page (tournament.js) and the venue screen
// (screen.js): its event feed read at the pace its status calls for, and a table's result in words.
import { get } from "./api.js";
import { countText, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";

// How often the feed is read: a running tournament each second, one open for registration every
// three; a finished or cancelled one no more. A hidden tab reads five times less often.
const POLL_MS = { registration: 3000, running: 1000 };

/**
 * Reads the tournament's events after the last one seen, hands them to `onEvents(events, opening)`
 * (awaited; `opening` on the first read, even with no event), and reads again after the wait
 * that `status()` (the tournament's status as last loaded) calls for. `onError(err)` hears a
 * failed read; the next one is tried all the same.
 */
export function followTournament({ id, status, onEvents, onError }) {
  let after = 0;
  let opening = true;
  async function step() {
    try {
      let fresh = [];
      for (;;) {
        const feed = await get(`tournaments/${id}/events`, { after, limit: 500 });
        fresh = fresh.concat(feed.events);
        after = feed.next;
        if (feed.next >= feed.head || !feed.events.length) break;
      }
      await onEvents(fresh, opening);
      opening = false;
    } catch (err) {
      onError(err);
    }
    const wait = POLL_MS[status() || "running"];
    if (wait) setTimeout(step, document.visibilityState === "visible" ? wait : wait * 5);
  }
  step();
}

/**
 * A table's result in words ("Ann won", "Draw", "1. Ann, 2. Bob", "3 cards left"), or null with
 * none yet. `nameOf(entrantId)` names a forfeiting entrant; `advancing(table)` names whoever a
 * drawn bracket match sends on (or null).
 */
export function resultText(table, { nameOf, advancing = () => null }) {
  const result = table.result;
  if (!result) return null;
  const gone = result.forfeited && result.forfeited.length
    ? ` (${interpolate(gettext("%(names)s forfeited"), { names: result.forfeited.map((entrant) => nameOf(entrant)).join(", ") })})` : "";
  if (result.team_score !== null && result.team_score !== undefined) {
    return countText(ngettext("%(count)s card left", "%(count)s cards left", result.team_score), result.team_score) + gone;
  }
  const ranks = result.ranks || [];
  const seats = table.seats;
  if (seats.length === 2) {
    if (ranks[0] === ranks[1]) {
      // A drawn bracket match still sends one player on: the higher seed (single_elimination.py).
      const through = advancing(table);
      return (through ? interpolate(gettext("Draw: %(name)s advances (higher seed)"), { name: through })
        : pgettext("result", "Draw")) + gone;
    }
    return interpolate(gettext("%(name)s won"), { name: seats[ranks[0] < ranks[1] ? 0 : 1].name }) + gone;
  }
  return seats.map((seat, i) => ({ seat, rank: ranks[i] })).sort((a, b) => a.rank - b.rank)
    .map(({ seat, rank }) => `${formatNumber(rank)}. ${seat.name}`).join(", ") + gone;
}

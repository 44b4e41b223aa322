// How every page words four facts of a table's summary (the API's match): a deck its creator
// chose, a finished match that does not count for ratings, who won it, and a result its
// tournament's organiser changed.
import { formatList, formatNumber, gettext, interpolate, language, ngettext, pgettext } from "./i18n.js";

/** A table whose creator fixed the deck: they may know every hand. */
export const DECK_CHOSEN_TEXT = gettext("deck chosen by the creator");

/** A table's (or a tournament's) spectator policy as a short label: "closed to spectators",
 * "spectators 5 moves behind", or null for an open one (the API's `spectator_policy`). */
export function spectatorText(subject) {
  if (subject.spectator_policy === "closed") return gettext("closed to spectators");
  if (subject.spectator_policy === "delayed") {
    const count = subject.spectator_delay_moves;
    return interpolate(ngettext("spectators %(count)s move behind", "spectators %(count)s moves behind", count),
      { count: formatNumber(count) });
  }
  return null;
}

function seatName(match, seat) {
  const info = match.seats[seat];
  return (info && info.name) || interpolate(gettext("Seat %(number)s"), { number: seat + 1 });
}

/** A seat's name at its table: a person's, or a bot's kind, numbered when two bots at the table
 * share a kind ("tight 1 (bot)", "tight 2 (bot)"); "Seat 3" while it is empty. */
export function playerName(match, seat) {
  const info = match.seats[seat];
  if (!info || !info.name) return interpolate(gettext("Seat %(number)s"), { number: seat + 1 });
  if (!info.bot) return info.name;
  const alike = match.seats.filter((other) => other.bot && other.name === info.name);
  if (alike.length < 2) return interpolate(gettext("%(name)s (bot)"), { name: info.name });
  return interpolate(gettext("%(name)s %(number)s (bot)"),
    { name: info.name, number: formatNumber(alike.findIndex((other) => other.seat === seat) + 1) });
}

function seatNames(match, seats) {
  return formatList(seats.map((seat) => seatName(match, seat)));
}

/** "rated", "casual", or for a finished match that did not count: "Not rated: Bob never made a move". */
export function ratingText(match) {
  const rating = match.rating;
  if (rating && !rating.rated && rating.reason === "seat_never_moved") {
    return interpolate(gettext("Not rated: %(names)s never made a move"), { names: seatNames(match, rating.seats) });
  }
  return match.rated ? gettext("rated") : gettext("casual");
}

/** The rank per seat the finished match counts at (the API's `ranks`: abandoned seats after the
 * seats that played on), so the table, its tournament and ratings always name the same winner. */
export function countedRanks(match, outcome) {
  if (match.ranks) return match.ranks;
  // The end's frame can come before the finished match's summary: rank the seats given up after
  // those that played on here too (games.selectors.result_ranks), or a seat the bot played to a
  // win reads "1st" until the summary comes.
  const left = new Set(match.seats.filter((info) => info.abandoned).map((info) => info.seat));
  const keys = outcome.ranks.map((rank, seat) => [left.has(seat) ? 1 : 0, rank]);
  const before = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  return keys.map((mine) => 1 + keys.filter((other) => before(other, mine)).length);
}

/** A place as people say it: 1st, 2nd, 3rd, 4th … (a bare number or W/L reads as a score or a loss).
 * The language's ordinal category (Intl.PluralRules) picks the ending: 1af, 2il, 3ydd, 5ed, 7fed in Welsh. */
export function placeText(rank) {
  const values = { rank: formatNumber(rank) };
  switch (new Intl.PluralRules(language(), { type: "ordinal" }).select(rank)) {
    case "zero": return interpolate(pgettext("ordinal zero", "%(rank)sth"), values);
    case "one": return interpolate(pgettext("ordinal one", "%(rank)sst"), values);
    case "two": return interpolate(pgettext("ordinal two", "%(rank)snd"), values);
    case "few": return interpolate(pgettext("ordinal few", "%(rank)srd"), values);
    case "many": return interpolate(pgettext("ordinal many", "%(rank)sth"), values);
    default: return interpolate(pgettext("ordinal other", "%(rank)sth"), values);
  }
}

/** The seats that won: those ranked first by `countedRanks`; none when the game had no winner. */
export function countedWinners(match, outcome) {
  if (!outcome.winners.length) return [];
  const ranks = countedRanks(match, outcome);
  return ranks.map((rank, seat) => (rank === 1 ? seat : null)).filter((seat) => seat !== null);
}

/** A tournament table's result changed by its organiser (the page data's `changed_result`), in
 * words: what the tournament and ratings count instead of the result played. */
export function changedResultText(match, changed) {
  const why = changed.reason ? ` (${changed.reason})` : "";
  let result;
  if (changed.ranks) {
    const order = changed.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank || a.seat - b.seat);
    result = order.map(({ rank, seat }) => `${formatNumber(rank)}. ${seatName(match, seat)}`).join(", ");
  } else {
    result = interpolate(ngettext("the team left %(count)s card", "the team left %(count)s cards", changed.team_score),
      { count: formatNumber(changed.team_score) });
  }
  const how = changed.source === "ForfeitAwarded"
    ? interpolate(gettext("The organiser awarded this table by forfeit%(why)s: %(names)s forfeited"),
      { why, names: seatNames(match, changed.forfeited_seats) })
    : interpolate(gettext("The organiser corrected this table's result%(why)s"), { why });
  return interpolate(match.rated ? gettext("%(how)s. The tournament and ratings count %(result)s.")
    : gettext("%(how)s. The tournament counts %(result)s."), { how, result });
}

// A contribution to a contributed shuffle (games/shuffle.py): 32 random bytes as 64 hex digits.
export function shuffleContribution() {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Where a page keeps what it sent for a match, to check once dealt that the server used it.
export function contributionKey(matchId) {
  return `card-league:shuffle:${matchId}`;
}

// How every page words four facts of a table's summary (the API's match): a deck its creator
// chose, a finished match that does not count for ratings, who won it, and a result its
// tournament's organiser changed.
import { gettext, interpolate, language, ngettext } from "./i18n.js";

/** A table whose creator fixed the deck: they may know every hand. */
export const DECK_CHOSEN_TEXT = gettext("deck chosen by the creator");

function seatName(match, seat) {
  const info = match.seats[seat];
  return (info && info.name) || interpolate(gettext("Seat %(number)s"), { number: seat + 1 });
}

/** "Ann", "Ann and Bob", "Ann, Bob and Cai": a list of names in the reader's language. */
export function namesText(names) {
  return new Intl.ListFormat(language(), { type: "conjunction" }).format(names);
}

/** "rated", "casual", or for a finished match that did not count: "Not rated: Bob never made a move". */
export function ratingText(match) {
  const rating = match.rating;
  if (rating && !rating.rated && rating.reason === "seat_never_moved") {
    return interpolate(gettext("Not rated: %(names)s never made a move"),
      { names: namesText(rating.seats.map((seat) => seatName(match, seat))) });
  }
  return match.rated ? gettext("rated") : gettext("casual");
}

/** The rank per seat the finished match counts at (the API's `ranks`: abandoned seats after the
 * seats that played on), so the table, its tournament and ratings always name the same winner. */
export function countedRanks(match, outcome) {
  return match.ranks || outcome.ranks;
}

// Ordinal endings by the language's ordinal plural category (Intl.PluralRules): 1st 2nd 3rd
// 4th; 1af 2il 3ydd 4ydd 5ed 6ed 7fed 10fed 11eg.
const ORDINAL_SUFFIXES = {
  en: { one: "st", two: "nd", few: "rd", other: "th" },
  cy: { zero: "fed", one: "af", two: "il", few: "ydd", many: "ed", other: "fed" },
};

/** A place as people say it: 1st, 2nd, 3rd, 4th … (a bare number or W/L reads as a score or a loss). */
export function placeText(rank) {
  const lang = language().slice(0, 2);
  const suffixes = ORDINAL_SUFFIXES[lang] || ORDINAL_SUFFIXES.en;
  const category = new Intl.PluralRules(lang, { type: "ordinal" }).select(rank);
  const suffix = lang === "cy" && rank === 11 ? "eg" : suffixes[category] || suffixes.other;
  return `${rank}${suffix}`;
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
  const gone = namesText(changed.forfeited_seats.map((seat) => seatName(match, seat)));
  let result;
  if (changed.ranks) {
    const order = changed.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank || a.seat - b.seat);
    result = order.map(({ rank, seat }) => `${rank}. ${seatName(match, seat)}`).join(", ");
  } else {
    result = interpolate(ngettext("the team left %(count)s card", "the team left %(count)s cards", changed.team_score),
      { count: changed.team_score });
  }
  const reason = changed.reason;
  let how;
  if (changed.source === "ForfeitAwarded") {
    how = reason
      ? interpolate(gettext("The organiser awarded this table by forfeit (%(reason)s): %(names)s forfeited."), { reason, names: gone })
      : interpolate(gettext("The organiser awarded this table by forfeit: %(names)s forfeited."), { names: gone });
  } else {
    how = reason ? interpolate(gettext("The organiser corrected this table's result (%(reason)s)."), { reason })
      : gettext("The organiser corrected this table's result.");
  }
  const counts = match.rated ? gettext("The tournament and ratings count %(result)s.") : gettext("The tournament counts %(result)s.");
  return `${how} ${interpolate(counts, { result })}`;
}

// A contribution to a contributed shuffle (games/shuffle.py): 32 random bytes as 64 hex digits.
export function shuffleContribution() {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Where a page keeps what it sent for a match, to check once dealt that the server used it.
export function contributionKey(matchId) {
  return `card-league:shuffle:${matchId}`;
}

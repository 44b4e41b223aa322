// How every page words four facts of a table's summary (the API's match): a deck its creator
// chose, a finished match that does not count for ratings, who won it, and a result its
// tournament's organiser changed.

/** A table whose creator fixed the deck: they may know every hand. */
export const DECK_CHOSEN_TEXT = "deck chosen by the creator";

function seatName(match, seat) {
  const info = match.seats[seat];
  return (info && info.name) || `Seat ${seat + 1}`;
}

/** "rated", "casual", or for a finished match that did not count: "Not rated: Bob never made a move". */
export function ratingText(match) {
  const rating = match.rating;
  if (rating && !rating.rated && rating.reason === "seat_never_moved") {
    return `Not rated: ${rating.seats.map((seat) => seatName(match, seat)).join(" and ")} never made a move`;
  }
  return match.rated ? "rated" : "casual";
}

/** The rank per seat the finished match counts at (the API's `ranks`: abandoned seats after the
 * seats that played on), so the table, its tournament and ratings always name the same winner. */
export function countedRanks(match, outcome) {
  return match.ranks || outcome.ranks;
}

/** A place as people say it: 1st, 2nd, 3rd, 4th … (a bare number or W/L reads as a score or a loss). */
export function placeText(rank) {
  const tens = rank % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[rank % 10] || "th";
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
  const gone = changed.forfeited_seats.map((seat) => seatName(match, seat));
  const why = changed.reason ? ` (${changed.reason})` : "";
  let result;
  if (changed.ranks) {
    const order = changed.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank || a.seat - b.seat);
    result = order.map(({ rank, seat }) => `${rank}. ${seatName(match, seat)}`).join(", ");
  } else {
    result = `the team left ${changed.team_score} cards`;
  }
  const how = changed.source === "ForfeitAwarded"
    ? `The organiser awarded this table by forfeit${why}: ${gone.join(" and ")} forfeited`
    : `The organiser corrected this table's result${why}`;
  return `${how}. ${match.rated ? "The tournament and ratings count" : "The tournament counts"} ${result}.`;
}

// A contribution to a contributed shuffle (games/shuffle.py): 32 random bytes as 64 hex digits.
export function shuffleContribution() {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Where a page keeps what it sent for a match, to check once dealt that the server used it.
export function contributionKey(matchId) {
  return `card-league:shuffle:${matchId}`;
}

// How every page words two facts of a table's summary (the API's match): a deck its creator
// chose, and a finished match that does not count for ratings.

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

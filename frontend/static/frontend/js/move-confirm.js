// Moves confirmed before they are sent, for people who misclick (issue #42 item 5, as lichess's
// "confirm moves"): never (the default), at tables without a clock (where a second look costs
// nothing), or always. Kept in this browser, like the card motion.
import { h } from "./dom.js";
import { gettext, interpolate } from "./i18n.js";

const STORAGE_KEY = "cardLeague.confirmMoves";
const CHOICES = ["never", "untimed", "always"];

function chosen() {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return CHOICES.includes(value) ? value : "never";
  } catch {
    return "never";
  }
}

/** The setting, for the table's side panel. */
export function confirmControl() {
  const select = h("select", { id: "confirm-setting" },
    h("option", { value: "never" }, gettext("Never")),
    h("option", { value: "untimed" }, gettext("At tables without a clock")),
    h("option", { value: "always" }, gettext("Always")));
  select.value = chosen();
  select.addEventListener("change", () => {
    try {
      localStorage.setItem(STORAGE_KEY, select.value);
    } catch {
      // storage refused: the page keeps asking as before
    }
  });
  return h("p", { class: "confirm-control" }, h("label", { for: "confirm-setting" }, gettext("Confirm moves")), " ", select);
}

/**
 * Wraps `send(move)`: where the reader asked for it, a move is first offered in `bar` with
 * Confirm and Cancel (Enter and Esc), in the words `describe(move)` gives. `cancel()` takes back
 * an offer the table has moved past.
 */
export function confirmedSend({ bar, send, describe, timed }) {
  let waiting = null;

  function close() {
    waiting = null;
    bar.hidden = true;
    bar.replaceChildren();
  }

  function sendAfterConfirming(move) {
    const setting = chosen();
    if (setting === "never" || (setting === "untimed" && timed())) {
      close();
      return send(move);
    }
    waiting = move;
    const confirm = h("button", { type: "button", class: "btn btn-primary", onclick: () => {
      const chosenMove = waiting;
      close();
      if (chosenMove) send(chosenMove);
    } }, gettext("Confirm"));
    bar.replaceChildren(
      h("span", { class: "confirm-question" }, interpolate(gettext("%(move)s?"), { move: describe(move) })),
      confirm,
      h("button", { type: "button", class: "btn", onclick: close }, gettext("Cancel")));
    bar.hidden = false;
    bar.onkeydown = (event) => {
      if (event.key === "Escape") close();
    };
    confirm.focus();
    return undefined;
  }

  return { send: sendAfterConfirming, cancel: () => { if (waiting) close(); } };
}

// The screen-reader play mode (issue #43 item 4; lichess's blind mode is the model): a setting
// kept in this browser that gives the table a command area. Single letters read the table (hand,
// piles, market, last moves, turn, clock, scores), a typed command plays the legal move whose own
// words (the renderer's describeMove, already in the reader's language) it matches, and one live
// region tells each event once: the turn and the log stop speaking for themselves meanwhile.
import { gettext, interpolate, ngettext, formatNumber } from "./i18n.js";

const STORAGE_KEY = "cardleague.screenReaderMode";
const SHOWN_CLOSEST = 4;
const LAST_MOVES = 5;

export function screenReaderModeOn() {
  try {
    return localStorage.getItem(STORAGE_KEY) === "on";
  } catch {
    return false; // storage refused (a private window's policy): the mode is simply off
  }
}

function setScreenReaderMode(on) {
  try {
    if (on) localStorage.setItem(STORAGE_KEY, "on");
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept: the checkbox still turns the mode on for this page
  }
}

/** A checkbox that turns the mode on or off (the account page's and the table page's). */
export function bindSetting(checkbox, onChange) {
  checkbox.checked = screenReaderModeOn();
  checkbox.addEventListener("change", () => {
    setScreenReaderMode(checkbox.checked);
    if (onChange) onChange(checkbox.checked);
  });
}

/** What a screen reader says for `node`: its text, an element's aria-label in place of its
 * content, nothing for what is hidden or aria-hidden. */
function spoken(node) {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE || node.hidden || node.getAttribute("aria-hidden") === "true") return "";
  // A section's label is its heading, read with its content; any other label (a pile's, a
  // button's) says in one phrase what the content shows piece by piece.
  const label = node.tagName === "SECTION" ? null : node.getAttribute("aria-label");
  return label || [...node.childNodes].map(spoken).join(" ");
}

// The symbols drawn beside the words ("● 5 currency", "↑ Up 1") are read as their names
// ("black circle"): only the words are told.
const tidy = (text) => text.replace(/[●◆↑↓→←▶]/g, " ").replace(/\s+/g, " ").replace(/\s+([,.:;)])/g, "$1").trim();

// Split names its cards "2♥ top": a suit is typed by its name ("2 hearts top", "2 h top").
const SUIT_WORDS = () => ({ "♠": gettext("spades"), "♥": gettext("hearts"), "♦": gettext("diamonds"), "♣": gettext("clubs") });

/** A command or a move's words, compared without case, accents or punctuation. */
function normal(text) {
  const suits = SUIT_WORDS();
  return text.replace(/[♠♥♦♣]/gu, (suit) => ` ${suits[suit]} `).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

// A typed word stands for a move's word it begins ("up" for "Up"), a number only for itself
// (9 is not 94).
function wordMatches(typed, word) {
  return /^\p{N}+$/u.test(typed) ? typed === word : word.startsWith(typed);
}

function matchedWords(typedWords, text) {
  const words = normal(text).split(" ");
  return typedWords.filter((typed) => words.some((word) => wordMatches(typed, word))).length;
}

/** The legal moves a command names: its exact words, else the moves it begins, else those that
 * hold all its words; `closest` ranks the rest for an answer when nothing matches. */
export function matchCommand(command, options) {
  const typed = normal(command);
  const typedWords = typed.split(" ").filter(Boolean);
  const texts = options.map((option) => normal(option.text));
  const tiers = [
    (text) => text === typed,
    (text) => text.startsWith(typed),
    (text, index) => matchedWords(typedWords, options[index].text) === typedWords.length,
  ];
  for (const tier of tiers) {
    const found = options.filter((option, index) => tier(texts[index], index));
    if (found.length) return { found, closest: [] };
  }
  const closest = options.map((option) => ({ option, score: matchedWords(typedWords, option.text) }))
    .filter(({ score }) => score > 0).sort((a, b) => b.score - a.score).map(({ option }) => option);
  return { found: [], closest: closest.length ? closest : options };
}

export function screenReaderMode({ state, renderer, context, send }) {
  const panel = document.getElementById("sr-panel");
  const live = document.getElementById("sr-live");
  const form = document.getElementById("sr-form");
  const input = document.getElementById("sr-command");
  const toggle = document.getElementById("sr-mode-toggle");
  const table = document.getElementById("table");
  const turn = document.getElementById("turn");
  const clock = document.getElementById("clock");
  const log = document.getElementById("log-list");
  const board = document.getElementById("board");
  const result = document.getElementById("result");
  const allMoves = document.getElementById("all-moves");
  // The regions that speak by themselves when the mode is off.
  const selfSpeaking = [turn, log, result];
  let on = false;
  let pending = [];
  let flushing = null;
  let primed = state.status !== "running"; // a running table's first log lines are its history

  // One voice, in order: an answer is spoken at once with any event still waiting before it, so
  // neither replaces the other.
  function flush() {
    clearTimeout(flushing);
    flushing = null;
    const text = pending.join(" ");
    pending = [];
    // The same words twice in a row would not be read again: the region is emptied first.
    live.textContent = "";
    requestAnimationFrame(() => { live.textContent = text; });
  }

  function say(text) {
    pending.push(text);
    flush();
  }

  function queue(text) {
    if (!text) return;
    pending.push(text);
    if (flushing === null) flushing = setTimeout(flush, 150);
  }

  function boardParts(selector) {
    return [...board.querySelectorAll(selector)].map((node) => tidy(spoken(node))).filter(Boolean);
  }

  // A seat's group is named in short ("Ana, 5 cards, to play"); read, it tells all it shows.
  function seatWords(seat) {
    return tidy([...seat.childNodes].map(spoken).join(" "));
  }

  function readHand() {
    const hand = board.querySelector(".hand-panel .hand");
    if (hand) {
      const cards = [...hand.children].map((card) => tidy(spoken(card)).replace(/:.*$/, ""));
      return cards.length ? interpolate(gettext("Your hand: %(cards)s."), { cards: cards.join(", ") }) : gettext("Your hand is empty.");
    }
    const mine = board.querySelector(".seat-box.is-me");
    if (mine) return interpolate(gettext("Your cards: %(cards)s."), { cards: seatWords(mine) });
    return gettext("You hold no cards at this table.");
  }

  function readPiles() {
    const skip = ".hand-panel, .ten-market, .controls, .seat-strip, .action-bar, .hint, .felt";
    // Around the felt (common.js feltTable), what lies in its middle; then the board's other parts.
    const centre = board.querySelector(".felt-centre");
    const nodes = [...(centre ? centre.children : []), ...board.children];
    const parts = nodes.filter((node) => !node.matches(skip)).map((node) => tidy(spoken(node))).filter(Boolean);
    return parts.length ? parts.join(". ") : gettext("Nothing is on the table yet.");
  }

  function readMarket() {
    const market = boardParts(".ten-market");
    return market.length ? market.join(". ") : gettext("This game has no market.");
  }

  function readLastMoves() {
    const lines = [...log.children].slice(-LAST_MOVES).map((line) => tidy(line.textContent));
    return lines.length ? interpolate(gettext("Last moves: %(moves)s"), { moves: lines.join(" ") }) : gettext("No moves yet.");
  }

  function readTurn() {
    return tidy(turn.textContent) || gettext("The game has not started.");
  }

  function readClock() {
    return !clock.hidden && clock.textContent ? clock.textContent : gettext("No clock runs at this table.");
  }

  function readScores() {
    const seats = [...board.querySelectorAll(".seat-box")].map(seatWords).filter(Boolean);
    const parts = [];
    if (!result.hidden) parts.push(tidy([...result.querySelectorAll(".result-headline, p:not([class]), tbody tr")]
      .map(spoken).join(". ")));
    if (seats.length) parts.push(seats.join("; "));
    return parts.length ? parts.join(". ") : gettext("No scores yet.");
  }

  const READERS = { h: readHand, p: readPiles, m: readMarket, l: readLastMoves, t: readTurn, c: readClock, s: readScores };

  function helpText() {
    return gettext("Keys in the command area: h your hand, p the piles and table, m the market, l the last moves, t whose turn, c the clock, s the scores. Type a move (for example “play 94 on up 1”, “draw”, “end turn”, “bid 3”) and press Enter, or choose it from the list of legal moves.");
  }

  function moveOptions() {
    const ctx = context();
    return state.legal.map((move) => ({ move, text: renderer.describeMove(move, ctx) }));
  }

  function answer(command) {
    const text = command.trim();
    if (!text) return;
    const key = text.toLowerCase();
    if (READERS[key]) { say(READERS[key]()); return; }
    if (key === "?" || normal(text) === normal(gettext("help"))) { say(helpText()); return; }
    const ctx = context();
    if (!ctx.interactive || !state.legal.length) { say(gettext("You have no move to make now.")); return; }
    if (ctx.busy) { say(gettext("Your last move is still on its way.")); return; }
    const { found, closest } = matchCommand(text, moveOptions());
    if (found.length && found.every((option) => option.text === found[0].text)) {
      input.value = "";
      send(found[0].move);
      return;
    }
    const shown = (found.length ? found : closest).slice(0, SHOWN_CLOSEST).map((option) => option.text).join("; ");
    const more = (found.length ? found : closest).length - SHOWN_CLOSEST;
    const moreText = more > 0 ? ` ${interpolate(ngettext("(and %(count)s more)", "(and %(count)s more)", more), { count: formatNumber(more) })}` : "";
    say(found.length
      ? interpolate(gettext("“%(command)s” could be: %(moves)s%(more)s. Say more of the move."), { command: text, moves: shown, more: moreText })
      : interpolate(gettext("No legal move matches “%(command)s”. Closest: %(moves)s%(more)s."), { command: text, moves: shown, more: moreText }));
  }

  function apply(enabled) {
    on = enabled;
    panel.hidden = !on;
    table.classList.toggle("sr-mode", on);
    for (const region of selfSpeaking) region.setAttribute("aria-live", on ? "off" : "polite");
    if (on) allMoves.open = true;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    answer(input.value);
  });
  // A bare letter reads at once anywhere in the command area but the text box, where it is typed.
  panel.addEventListener("keydown", (event) => {
    if (event.target === input || event.ctrlKey || event.metaKey || event.altKey) return;
    const reader = READERS[event.key.toLowerCase()];
    if (reader) {
      event.preventDefault();
      say(reader());
    }
  });

  new MutationObserver((records) => {
    const lines = records.flatMap((record) => [...record.addedNodes]).map((node) => tidy(node.textContent));
    if (!primed) {
      primed = true; // the history a page opens on is read with l, not announced
      return;
    }
    if (on) lines.forEach(queue);
  }).observe(log, { childList: true });

  let wasMine = table.dataset.myTurn === "true";
  let wasStatus = table.dataset.status;
  new MutationObserver(() => {
    const mine = table.dataset.myTurn === "true";
    const status = table.dataset.status;
    if (on && mine && !wasMine) queue(readTurn());
    if (on && status === "finished" && wasStatus !== "finished") {
      const headline = result.querySelector(".result-headline");
      if (headline) queue(headline.textContent);
    }
    wasMine = mine;
    wasStatus = status;
  }).observe(table, { attributes: true, attributeFilter: ["data-my-turn", "data-status"] });

  bindSetting(toggle, apply);
  apply(screenReaderModeOn());
}

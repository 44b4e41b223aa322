// Cards that move on the table page (issue #42 item 3), by FLIP on the Web Animations API: the
// board's cards are measured before a re-render (First), again after it (Last), and each card that
// came from somewhere else is drawn from its old box (Invert) back to its new one (Play). A card
// is known by its drawn face (faces.js draws the same SVG for the same card wherever it lies) and
// its data-key: a face that left the hand for a pile slid there; a face that no box held before
// came from the mover's seat, or from the draw pile when it was drawn. An opponent's draw flies a
// card back from the pile to their seat. Only transform and opacity are animated, all boxes are
// read before any is written, and a control a person may be about to click never moves: a copy of
// it flies in a layer that takes no clicks while the control itself fades in where it stands.
// The cards of the last move keep a highlight until the next move.
import { h } from "./dom.js";
import { gettext, pgettext } from "./i18n.js";

const STORAGE_KEY = "cardLeague.motion";
const DURATIONS = { normal: 260, fast: 140 };
// More cards than this arriving at once is a deal or a whole new round: they simply appear.
const MOST_ARRIVALS = 12;
const MOST_ANIMATIONS = 40;

const reducedMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

// What the tests and a curious reader can see: every animation started, newest last.
const record = { log: [], setting: effectiveSetting };
window.cardLeagueMotion = record;

let lastSeq = null;
let highlight = { cards: [], seat: null };
let layer = null;
let chosenHere = null; // the choice made on this page, for a browser that refuses storage

function chosenSetting() {
  if (chosenHere) return chosenHere;
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "off" || Object.hasOwn(DURATIONS, value ?? "") ? value : "normal";
  } catch {
    return "normal"; // storage refused (private mode): the default
  }
}

/** "normal", "fast" or "off": the reader's choice, off whenever the system asks for less motion. */
export function effectiveSetting() {
  return reducedMotion && reducedMotion.matches ? "off" : chosenSetting();
}

// A face's markup, without the ids a face numbers afresh each time it is drawn (Split's clip paths).
// Kept per card: the cards read after one render are the cards read before the next.
const signatures = new WeakMap();
function signature(card) {
  if (!signatures.has(card)) {
    const face = card.querySelector("svg");
    signatures.set(card, face ? face.outerHTML.replace(/(\bid="|url\(#)[^")]*/g, "$1") : card.textContent);
  }
  return signatures.get(card);
}

// A key without its trailing position ("card:R3:2" → "card:R3", "row:4" → "row"): a card that
// only moved along its row keeps its place, and one that went elsewhere changes it.
function place(key) {
  return key.replace(/:\d+$/, "");
}

function cards(root) {
  const found = [];
  for (const card of root.querySelectorAll(".card:not(.card-back)")) {
    const box = card.getBoundingClientRect();
    if (box.width && box.height) found.push({ card, box, sig: signature(card), key: place(card.dataset.key || "") });
  }
  return found;
}

// The seats in seat order: the board's seat boxes (by their data-seat: around the felt they sit
// from the reader's left, not in seat order), else the players list beside it.
function seatElements(root) {
  const boxes = [...root.querySelectorAll(".seat-box")];
  if (!boxes.length) return [...document.querySelectorAll("#players .player")];
  if (!boxes.every((box) => box.dataset.seat)) return boxes;
  const bySeat = [];
  for (const box of boxes) bySeat[Number(box.dataset.seat)] = box;
  return bySeat;
}

function boxOf(element) {
  if (!element) return null;
  const box = element.getBoundingClientRect();
  return box.width && box.height ? box : null;
}

/** First: the boxes of the board's cards, seats and draw pile, read before it is drawn again. */
export function measure(root) {
  return {
    cards: cards(root),
    seats: seatElements(root).map(boxOf),
    pile: boxOf(drawPileBack(root)),
  };
}

// The card back drawn on the draw pile: where a drawn card leaves from.
function drawPileBack(root) {
  return root.querySelector(".draw-pile .card-back");
}

function near(a, b) {
  return Math.abs(a.left - b.left) < 2 && Math.abs(a.top - b.top) < 2;
}

// Each card drawn now is paired with a card of the same face drawn before: first the ones that
// did not move, then the rest in order; a face with no partner arrived.
function pair(before, after) {
  const bySig = new Map();
  for (const item of before) {
    if (!bySig.has(item.sig)) bySig.set(item.sig, []);
    bySig.get(item.sig).push(item);
  }
  const pending = [];
  for (const item of after) {
    const olds = bySig.get(item.sig) || [];
    const index = olds.findIndex((old) => near(old.box, item.box));
    if (index >= 0) olds.splice(index, 1);
    else pending.push(item);
  }
  const moved = [];
  const arrived = [];
  for (const item of pending) {
    const olds = bySig.get(item.sig) || [];
    const index = Math.max(0, olds.findIndex((old) => old.key === item.key));
    if (olds.length) moved.push({ ...item, from: olds.splice(index, 1)[0] });
    else arrived.push(item);
  }
  return { moved, arrived };
}

function seatOf(event) {
  return typeof event.seat === "number" ? event.seat : null;
}

function isDraw(event) {
  return /Drawn$/.test(event.type);
}

// A start box the size of `to`, centred on `box` (a seat or the draw pile is no card's size).
function centredOn(box, to) {
  const width = to.width * 0.7;
  const height = to.height * 0.7;
  return { left: box.left + box.width / 2 - width / 2, top: box.top + box.height / 2 - height / 2, width, height };
}

function inverted(from, to) {
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const clamp = (value) => Math.min(3, Math.max(0.3, value || 1));
  return `translate(${dx}px, ${dy}px) scale(${clamp(from.width / to.width)}, ${clamp(from.height / to.height)})`;
}

function clickable(element) {
  const control = element.matches("button, select, input") ? element : element.querySelector("button, select, input");
  return Boolean(control && !control.disabled);
}

function motionLayer() {
  if (!layer || !layer.isConnected) {
    layer = h("div", { class: "motion-layer", "aria-hidden": "true" });
    document.body.append(layer);
  }
  return layer;
}

// A copy of a card's face that takes no clicks, no focus and no name: only a picture in flight.
function ghost(card, box) {
  const copy = h("span", { class: ["card", "motion-ghost", card.classList.contains("split-card") && "split-card",
    card.classList.contains("card-back") && "card-back"] });
  const face = card.querySelector("svg");
  if (face) copy.append(face.cloneNode(true));
  Object.assign(copy.style, { left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px`, height: `${box.height}px` });
  return copy;
}

/** Last, Invert, Play: after the board is drawn, moves each card that came from elsewhere from
 * where it was, and marks the last move. `log` is the table's events, `seq` its head. */
export function play(first, root, { seq, log, seat }) {
  const advanced = lastSeq !== null && seq > lastSeq;
  const events = advanced ? log.filter((entry) => entry.seq > lastSeq).map((entry) => entry.event) : [];
  lastSeq = seq;
  // Read everything first.
  const after = cards(root);
  const seats = seatElements(root);
  const seatBoxes = seats.map(boxOf);
  const back = drawPileBack(root);
  const backBox = boxOf(back);
  const scroll = { x: window.scrollX, y: window.scrollY };
  const onPage = (box) => ({ left: box.left + scroll.x, top: box.top + scroll.y });
  const { moved, arrived } = advanced ? pair(first.cards, after) : { moved: [], arrived: [] };

  // Then write.
  if (advanced) {
    const mover = events.map(seatOf).find((seat) => seat !== null) ?? null;
    const moves = moved.filter((item) => item.from.key !== item.key);
    const marked = [...moves, ...arrived].map((item) => ({ sig: item.sig, box: onPage(item.box) }));
    // A step that moved no card (a bot ending its turn) keeps the cards its mover just played marked.
    highlight = { cards: marked.length || mover !== highlight.seat ? marked : highlight.cards, seat: mover };
    const setting = effectiveSetting();
    if (setting !== "off") {
      animate(setting, { moved, arrived, events, mover, first, seatBoxes, back, backBox, seq, seat });
    }
  }
  markLastMove(after, seats, onPage);
}

function animate(setting, { moved, arrived, events, mover, first, seatBoxes, back, backBox, seq, seat: mine }) {
  const duration = DURATIONS[setting];
  const flights = moved.map((item) => ({ item, from: item.from.box, kind: item.from.key === item.key ? "shift" : "move" }));
  if (arrived.length <= MOST_ARRIVALS) {
    const drew = events.some(isDraw);
    for (const item of arrived) {
      const fromPile = item.card.closest(".hand") || drew;
      const source = fromPile ? first.pile || backBox : (mover !== null ? first.seats[mover] || seatBoxes[mover] : null);
      if (source) flights.push({ item, from: centredOn(source, item.box), kind: fromPile ? "draw" : "play" });
    }
  }
  let started = 0;
  for (const { item, from, kind } of flights) {
    if (started >= MOST_ANIMATIONS) break;
    const canClick = clickable(item.card);
    // A control that only shifted in its row stays put: it is the same card, where a person expects it.
    if (canClick && kind === "shift") continue;
    started += 1;
    const options = { duration, easing: "cubic-bezier(.2, .7, .3, 1)" };
    const transform = inverted(from, item.box);
    if (canClick) {
      const copy = ghost(item.card, item.box);
      motionLayer().append(copy);
      copy.animate([{ transform }, { transform: "none" }], options).finished.then(() => copy.remove(), () => copy.remove());
      item.card.animate([{ opacity: 0 }, { opacity: 0, offset: 0.8 }, { opacity: 1 }], options);
    } else {
      item.card.animate([{ transform }, { transform: "none" }], options);
    }
    record.log.push({ seq, kind, key: item.key, at: Date.now() });
  }
  // An opponent's draw, face down: a card back from the pile to their seat (the reader's own
  // draws arrive face up in the hand, above).
  for (const event of events) {
    const seat = seatOf(event);
    const to = seat === null ? null : seatBoxes[seat];
    if (!isDraw(event) || seat === mine || !backBox || !to) continue;
    const target = centredOn(to, { width: backBox.width * 2, height: backBox.height * 2 });
    const copy = ghost(back, target);
    motionLayer().append(copy);
    copy.animate([{ transform: inverted(backBox, target), opacity: 1 }, { transform: "none", opacity: 0.9 }],
      { duration, easing: "ease-out" }).finished.then(() => copy.remove(), () => copy.remove());
    record.log.push({ seq, kind: "draw-hidden", key: `seat:${seat}`, at: Date.now() });
  }
  if (record.log.length > 200) record.log.splice(0, record.log.length - 200);
}

function markLastMove(after, seats, onPage) {
  // By face and place on the page: two cards of the same face (two piles started at 1) are told apart.
  for (const item of after) {
    const box = onPage(item.box);
    if (highlight.cards.some((entry) => entry.sig === item.sig && near(entry.box, box))) item.card.classList.add("motion-last");
  }
  const seat = highlight.seat === null ? null : seats[highlight.seat];
  if (seat) seat.classList.add("motion-last-seat");
}

/** The table's control: card motion normal, fast or off, kept in this browser. */
export function motionControl() {
  const hint = h("span", { class: "muted small" });
  const select = h("select", { id: "motion-setting" },
    h("option", { value: "normal" }, pgettext("card motion", "Normal")),
    h("option", { value: "fast" }, pgettext("card motion", "Fast")),
    h("option", { value: "off" }, pgettext("card motion", "Off")));
  const show = () => {
    const reduced = Boolean(reducedMotion && reducedMotion.matches);
    select.value = reduced ? "off" : chosenSetting();
    select.disabled = reduced;
    hint.textContent = reduced ? gettext("Off: this device asks for less motion.") : "";
  };
  select.addEventListener("change", () => {
    chosenHere = select.value;
    try {
      localStorage.setItem(STORAGE_KEY, select.value);
    } catch {
      // storage refused: the choice holds until the page is left
    }
    show();
  });
  if (reducedMotion && reducedMotion.addEventListener) reducedMotion.addEventListener("change", show);
  show();
  return h("p", { class: "motion-control" },
    h("label", { for: "motion-setting" }, gettext("Card motion")), " ", select, " ", hint);
}

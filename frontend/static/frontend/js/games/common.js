// Pieces every game renderer shares: seat names, buttons that send one legal move,
// selectable cards, and small lists.
import { h, s } from "../dom.js";
import { formatNumber, gettext, interpolate, ngettext } from "../i18n.js";
import { effectiveSetting } from "../motion.js";
import { backFace } from "./faces.js";

/** A button that plays exactly `move` (one of legal_moves). */
export function moveButton(ctx, move, label, { key, className = "", ariaLabel, title } = {}) {
  return h("button", {
    type: "button",
    class: ["btn", className],
    "data-move": JSON.stringify(move),
    "data-key": key || `move:${JSON.stringify(move)}`,
    "aria-label": ariaLabel,
    title,
    disabled: ctx.busy || !ctx.interactive,
    onclick: () => ctx.send(move),
  }, label);
}

/** A card drawn as `face` (faces.js) and named `name`, as text: a button that can be picked
 * (aria-pressed) when `onPick` is given, else a plain card. */
export function cardFace(face, name, { className = "", key, onPick, selected = false, disabled = false, dataset = {}, title } = {}) {
  if (!onPick) {
    return h("span", { class: ["card", className], title, dataset }, face, h("span", { class: "visually-hidden" }, name));
  }
  return h("button", {
    type: "button",
    class: ["card", "card-pick", className, selected && "selected"],
    "aria-pressed": selected ? "true" : "false",
    "data-key": key,
    title,
    dataset,
    disabled,
    onclick: onPick,
  }, ...spokenAs(face, name));
}

/** Cards face down, as a small fan of backs (at most `most`): how many an opponent holds. The
 * count is told in words beside it; the fan is a picture. */
export function backs(count, most = 5) {
  return count ? h("span", { class: "card-fan", "aria-hidden": "true" },
    Array.from({ length: Math.min(count, most) }, () => h("span", { class: "card card-xs card-back" }, backFace()))) : null;
}

/** The draw pile's words ("Draw pile: 40") beside a card back. */
export function drawPile(words) {
  return h("span", { class: "draw-pile" }, h("span", { class: "card card-xs card-back", "aria-hidden": "true" }, backFace()), words);
}

/** A control's content read as `name`: the short face is hidden from speech and the name is
 * text of its own. An aria-label would hide the face from speech control ("press Q♣"), and
 * axe-core counts a name that leaves out the visible text as a serious violation. */
export function spokenAs(content, name) {
  if (!name) return [content];
  return [h("span", { "aria-hidden": "true" }, content), h("span", { class: "visually-hidden" }, name)];
}

export function section(title, className, ...children) {
  return h("section", { class: ["panel", className], "aria-label": title },
    h("h3", { class: "panel-title" }, title), ...children);
}

export function seatLabel(ctx, seat) {
  const name = ctx.name(seat);
  if (seat !== ctx.seat) return name;
  return interpolate(ctx.replay ? gettext("%(name)s (this view)") : gettext("%(name)s (you)"), { name });
}

/** A seat's name with a line break allowed after each underscore ("stack_finisher 1" in a narrow
 * seat breaks as "stack_ / finisher 1", not inside a word). */
function seatNameParts(name) {
  return name.split(/(?<=_)/).flatMap((part, index) => (index ? [h("wbr"), part] : [part]));
}

export function sameMove(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keeps a selection only while some legal move still uses it. */
export function keepSelection(ui, key, stillValid) {
  if (ui[key] !== undefined && ui[key] !== null && !stillValid(ui[key])) ui[key] = null;
  return ui[key];
}

export function actionBar(...buttons) {
  const items = buttons.flat().filter(Boolean);
  return items.length ? h("div", { class: "action-bar", role: "group", "aria-label": gettext("Your moves") }, ...items) : null;
}

export function hint(text) {
  return text ? h("p", { class: "hint" }, text) : null;
}

/** The log's note on a deal's seed, after a game's first line. */
export function shuffledWith(seed) {
  return interpolate(gettext("(Shuffled with seed %(seed)s.)"), { seed });
}

/** "3 cards", in the reader's language and numerals. */
export function cardCount(count) {
  return interpolate(ngettext("%(count)s card", "%(count)s cards", count), { count: formatNumber(count) });
}

// --- seats around the felt (issue #42 item 2) -------------------------------------------------

// A hue of the bot's own, from its kind's name: two bots of one kind look alike, as they play alike.
function hueOf(text) {
  let hue = 0;
  for (const char of text || "") hue = (hue * 31 + char.charCodeAt(0)) % 360;
  return hue;
}

/** A bot's face, drawn here (a bot has no account, so no avatar of its own). */
function botFace(kind) {
  const hue = hueOf(kind);
  return s("svg", { class: "face", viewBox: "0 0 40 40", "aria-hidden": "true", focusable: "false" },
    s("rect", { width: 40, height: 40, rx: 8, fill: `hsl(${hue} 45% 32%)` }),
    s("path", { d: "M20 5 V10", stroke: "#e0a526", "stroke-width": 2, "stroke-linecap": "round" }),
    s("circle", { cx: 20, cy: 5, r: 2.2, fill: "#e0a526" }),
    s("rect", { x: 8, y: 10, width: 24, height: 21, rx: 5, fill: `hsl(${hue} 55% 86%)` }),
    s("circle", { cx: 15, cy: 19, r: 3, fill: "#1d2421" }),
    s("circle", { cx: 25, cy: 19, r: 3, fill: "#1d2421" }),
    s("rect", { x: 14, y: 25, width: 12, height: 2.4, rx: 1.2, fill: "#1d2421" }));
}

/** A seat's picture: the person's avatar (the site draws one for every account), else a bot's
 * face; a picture only, the seat's name is beside it. */
export function seatAvatar(info) {
  if (info && info.user) {
    return h("img", { class: "seat-avatar", src: `/avatars/${info.user}.svg`, alt: "", width: 40, height: 40 });
  }
  return h("span", { class: "seat-avatar seat-avatar-bot", "aria-hidden": "true" }, botFace(info ? info.bot || info.name : ""));
}

/** "2:05", or "1:02:05" from an hour: a clock's time left (a seat's, a round's on the venue screen). */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${formatNumber(hours)}:${String(minutes).padStart(2, "0")}:${seconds}` : `${formatNumber(minutes)}:${seconds}`;
}

/** What a seat's group is called: "Ana, 5 cards, to play, 1:20 left" (the clock part is the
 * table's to keep current: table.js ticks it). */
export function seatName(base, clock) {
  return clock ? `${base}, ${interpolate(gettext("%(time)s left"), { time: clock })}` : base;
}

/**
 * One seat at the table: its avatar and name, its hidden cards as backs with their count, whose
 * turn it is and their clock, the game's own counters (`extras`), the hand shown face up at the
 * end (`hand`: faces) and the final score. `count`: the hidden cards (null: the game has none).
 */
export function seatPod(ctx, seat, { count = null, current = false, note = "", extras = null, hand = null } = {}) {
  const mine = seat === ctx.seat;
  const info = ctx.seatInfo ? ctx.seatInfo(seat) : null;
  const clock = current && ctx.clock ? ctx.clock(seat) : null;
  const score = ctx.finalScores ? ctx.finalScores[seat] : undefined;
  const words = [seatLabel(ctx, seat)];
  if (count !== null) words.push(cardCount(count));
  if (current) words.push(gettext("to play"));
  if (score !== undefined && score !== null) words.push(interpolate(gettext("score %(score)s"), { score: formatNumber(score) }));
  const base = words.join(", ");
  const showBacks = count !== null && !hand && !mine;
  return h("div", {
    class: ["seat-box", "seat-pod", current && "is-current", mine && "is-me"],
    role: "group", "aria-label": seatName(base, clock), "data-seat": String(seat), "data-label": base,
  },
  h("div", { class: "seat-head" }, seatAvatar(info),
    h("span", { class: "seat-who" },
      h("span", { class: "seat-name" }, ...seatNameParts(seatLabel(ctx, seat)), note),
      current ? h("span", { class: "seat-turn" }, gettext("to play"),
        clock ? h("span", { class: "seat-clock" }, " · ", clock) : null) : null),
    score !== undefined && score !== null ? h("span", { class: "seat-score-box" },
      h("span", { class: "seat-score", "aria-hidden": "true", "data-score": String(score) }, formatNumber(score)),
      h("span", { class: "visually-hidden" }, interpolate(gettext("score %(score)s"), { score: formatNumber(score) }))) : null),
  showBacks || (count !== null && !hand) ? h("span", { class: "seat-hand" }, showBacks ? backs(count) : null,
    h("span", { class: "seat-count" }, cardCount(count))) : null,
  extras,
  hand ? h("span", { class: "mini-hand", role: "group",
    "aria-label": interpolate(gettext("%(name)s's cards"), { name: ctx.name(seat) }) }, hand) : null);
}

/**
 * The felt: the other seats around its top and sides, clockwise from the reader's left (the seat
 * after theirs first), what lies in the middle (`centre`), and the reader's own seat with the
 * hand along the bottom. `pods` are seatPod's, by seat. A spectator sees every seat around.
 */
export function feltTable(ctx, pods, centre, hand, className = "") {
  const count = pods.length;
  const me = ctx.seat !== null && ctx.seat !== undefined && pods[ctx.seat] ? ctx.seat : null;
  const others = [];
  for (let i = 0; i < count; i += 1) {
    const seat = ((me === null ? 0 : me + 1) + i) % count;
    if (seat !== me) others.push(pods[seat]);
  }
  // Four or more around: the first sits at the left side and the last at the right.
  const sides = others.length >= 4;
  const top = sides ? others.slice(1, -1) : others;
  if (sides) {
    others[0].classList.add("seat-left");
    others[others.length - 1].classList.add("seat-right");
  }
  return h("div", { class: ["felt", `felt-around-${others.length}`, sides && "felt-sides", className] },
    h("div", { class: "felt-ring" }, sides ? others[0] : null,
      h("div", { class: "felt-top" }, top), sides ? others[others.length - 1] : null),
    h("div", { class: "felt-centre" }, centre),
    me !== null || hand ? h("div", { class: "felt-mine" }, me === null ? null : pods[me], hand) : null);
}

/** A hand held as a fan: each card turned a little about a point below the hand. */
export function fannedHand(cards, label = gettext("Your cards")) {
  const last = cards.length - 1;
  cards.forEach((card, index) => card.style.setProperty("--fan", last > 0 ? ((index - last / 2) / (last / 2)).toFixed(3) : "0"));
  return h("div", { class: ["hand", "hand-fan", cards.length > 8 && "hand-long"], role: "group", "aria-label": label }, cards);
}

/** The reader's hand fanned in the order they chose (`ctx.handOrder`, hand-order.js), with the
 * game's `sorts` as buttons: `cards` are `hand`'s cards drawn, one each. Where nobody arranges
 * (the replay), as dealt. */
export function arrangedHand(ctx, hand, cards, sorts) {
  if (!ctx.handOrder) return fannedHand(cards);
  const shown = ctx.handOrder.order(hand, sorts);
  const ids = ctx.handOrder.identities(hand);
  const fan = fannedHand(shown.map((index) => cards[index]));
  ctx.handOrder.draggable(fan, shown.map((index) => ids[index]));
  return h("div", { class: "hand-arranged" }, fan, hand.length > 1 ? ctx.handOrder.controls(sorts) : null);
}

/** Whether the end of a game may be shown moving (the reader's motion setting, or the system's). */
export function endMotion() {
  return effectiveSetting() !== "off";
}

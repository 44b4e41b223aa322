// The cards' drawn faces and backs, as SVG made for this site. A face is a picture only
// (aria-hidden): the card around it carries its name as text (common.js cardFace), so a reader
// hears "red 5" where the eye sees a red 5 with its triangle, in either language.
import { s } from "../dom.js";
import { pgettext } from "../i18n.js";

const W = 50; // a whole card is 50 × 70, the 5:7 of a playing card
const H = 70;
const INK = "#1d2421";

function svg(viewBox, ...children) {
  return s("svg", { class: "face", viewBox, "aria-hidden": "true", focusable: "false" }, ...children);
}

function text(content, x, y, size, fill, extra = {}) {
  return s("text", { x, y, "font-size": size, fill, "font-weight": 800, "text-anchor": "middle", "dominant-baseline": "central",
    ...extra, text: content });
}

/** A card's index, in its top-left corner and again upside down in the bottom-right one: the
 * corners are small, so `.card-sm` hides them and keeps the large centre. */
function corners(...marks) {
  const corner = (transform) => s("g", { class: "face-corner", transform }, ...marks.map((make) => make()));
  return [corner(""), corner(`rotate(180 ${W / 2} ${H / 2})`)];
}

// --- Ten: four colours, each with a shape of its own for those who cannot tell the colours apart.

export const TEN_COLOURS = {
  R: { ink: "#c0392b", tint: "#fdecea" },
  B: { ink: "#1f5fae", tint: "#e8f0fb" },
  O: { ink: "#b35c10", tint: "#fdf0e2" },
  G: { ink: "#277a4d", tint: "#e5f4eb" },
};

/** A colour's shape at (x, y), r its half width: red a triangle, blue a square, orange a sun,
 * green a leaf (a circle and a diamond are Ten's currency and bust tokens already). */
export function colourShape(letter, x, y, r, fill) {
  const at = `translate(${x} ${y}) scale(${r})`;
  switch (letter) {
    case "R": return s("path", { transform: at, fill, d: "M0 -1 L1 .78 L-1 .78Z" });
    case "B": return s("rect", { transform: at, fill, x: -0.8, y: -0.8, width: 1.6, height: 1.6, rx: 0.12 });
    case "O": {
      const rays = Array.from({ length: 8 }, (_, i) => {
        const a = (i * Math.PI) / 4;
        return `M${(0.66 * Math.cos(a)).toFixed(3)} ${(0.66 * Math.sin(a)).toFixed(3)}L${Math.cos(a).toFixed(3)} ${Math.sin(a).toFixed(3)}`;
      }).join("");
      return s("g", { transform: at, fill, stroke: fill },
        s("circle", { r: 0.5, stroke: "none" }), s("path", { d: rays, "stroke-width": 0.2, "stroke-linecap": "round" }));
    }
    case "G": return s("path", { transform: `${at} rotate(35)`, fill,
      d: "M0 -1 C.8 -.45 .8 .45 0 1 C-.8 .45 -.8 -.45 0 -1Z" });
    default: return null;
  }
}

function tenNumber(letter, digit) {
  const { ink, tint } = TEN_COLOURS[letter];
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: tint }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: ink, "stroke-width": 1, opacity: 0.45 }),
    ...corners(() => text(digit, 8, 10, 10, ink), () => colourShape(letter, 8, 19, 3.2, ink)),
    text(digit, 25, 31, 30, ink),
    colourShape(letter, 25, 53, 7, ink));
}

function tenColourWild(letter) {
  const { ink } = TEN_COLOURS[letter];
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: ink }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: "#fff", "stroke-width": 1, opacity: 0.6 }),
    ...corners(() => colourShape(letter, 8, 9, 3.2, "#fff")),
    colourShape(letter, 25, 30, 13, "#fff"),
    text("1–9", 25, 54, 11, "#fff"));
}

const QUADRANTS = [["R", 0, 0], ["B", 1, 0], ["O", 0, 1], ["G", 1, 1]];

function tenNumberWild(digit) {
  return svg(`0 0 ${W} ${H}`,
    ...QUADRANTS.map(([letter, col, row]) => s("rect", { x: col * 25, y: row * 35, width: 25, height: 35, fill: TEN_COLOURS[letter].tint })),
    ...QUADRANTS.map(([letter, col, row]) => colourShape(letter, 8 + col * 34, 9 + row * 52, 3.6, TEN_COLOURS[letter].ink)),
    s("circle", { cx: 25, cy: 35, r: 15, fill: "#fff", stroke: "#4a2a7a", "stroke-width": 1.5 }),
    text(digit, 25, 36, 24, "#4a2a7a"));
}

// The colours lightened, to stand out on the full wild's dark ground.
const BRIGHT = { R: "#f07a6a", B: "#7eaaf0", O: "#f3a552", G: "#5cc08a" };

function tenFullWild() {
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: "#2f2a4a" }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: "#e0a526", "stroke-width": 1 }),
    ...QUADRANTS.map(([letter, col, row]) => colourShape(letter, 16 + col * 18, 20 + row * 18, 6.5, BRIGHT[letter])),
    text("1–9", 25, 57, 11, "#fff"));
}

function coin(x, y, r) {
  return s("g", {}, s("circle", { cx: x, cy: y, r, fill: "#e9b730", stroke: "#9a6f0c", "stroke-width": r / 8 }),
    s("circle", { cx: x, cy: y, r: r * 0.72, fill: "none", stroke: "#9a6f0c", "stroke-width": r / 14, "stroke-dasharray": `${r / 6} ${r / 9}` }));
}

function tenCurrency(value) {
  const count = Number(value);
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: "#fff6d6" }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: "#c9a23e", "stroke-width": 1 }),
    ...corners(() => text(value, 8, 10, 10, "#6b4d00")),
    coin(25, 31, 15),
    text(value, 25, 32, 18, "#5a3d00"),
    // as many small coins as the card is worth: its value at a glance, without a currency sign
    ...Array.from({ length: count }, (_, i) => coin(25 + (i - (count - 1) / 2) * 7, 57, 3)));
}

/** Ten: R5 (a colour and a number), R# (a colour wild), W5 (a number wild), W# and $3. */
export function tenFace(card) {
  if (card === "W#") return tenFullWild();
  if (card[0] === "$") return tenCurrency(card.slice(1));
  if (card[0] === "W") return tenNumberWild(card[1]);
  if (card[1] === "#") return tenColourWild(card[0]);
  return tenNumber(card[0], card[1]);
}

// --- The Game: 1 to 100, each number a hue of its own from blue (low) to red (high).

/** The Game: a number, 1 to 100 (1 and 100 are the piles' starting cards). */
export function theGameFace(card) {
  const value = Number(card);
  const start = value === 1 || value === 100;
  const hue = Math.round(215 - ((value - 2) / 97) * 215);
  const ink = start ? "#3b4240" : `hsl(${hue} 60% 34%)`;
  const disc = start ? "#3b4240" : `hsl(${hue} 62% 44%)`;
  const tint = start ? "#eef0ee" : `hsl(${hue} 70% 94%)`;
  const digits = String(card);
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: tint }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: disc, "stroke-width": 1, opacity: 0.5 }),
    ...corners(() => text(digits, digits.length > 2 ? 10 : 8, 9, digits.length > 2 ? 8 : 10, ink)),
    s("circle", { cx: 25, cy: 35, r: 18, fill: disc }),
    s("circle", { cx: 25, cy: 35, r: 15.5, fill: "none", stroke: "#fff", "stroke-width": 0.8, opacity: 0.7 }),
    text(digits, 25, 36, digits.length > 2 ? 15 : 21, "#fff"));
}

// --- Sequence Stacks: blue and red numbers 1-5 (as many shapes as the number), wilds, actions.

const SS_COLOURS = { B: TEN_COLOURS.B, R: TEN_COLOURS.R };

function star(x, y, r, fill) {
  const points = Array.from({ length: 10 }, (_, i) => {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const d = i % 2 ? r * 0.45 : r;
    return `${(x + d * Math.cos(a)).toFixed(2)},${(y + d * Math.sin(a)).toFixed(2)}`;
  });
  return s("polygon", { points: points.join(" "), fill });
}

function ssNumber(letter, digit) {
  const { ink, tint } = SS_COLOURS[letter];
  const count = Number(digit);
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: tint }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: ink, "stroke-width": 1.2 }),
    ...corners(() => text(digit, 8, 10, 10, ink)),
    text(digit, 25, 30, 30, ink),
    ...Array.from({ length: count }, (_, i) => colourShape(letter, 25 + (i - (count - 1) / 2) * 8, 55, 3.2, ink)));
}

function ssWild(letter) {
  const { ink } = SS_COLOURS[letter];
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: ink }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: "#fff", "stroke-width": 1, opacity: 0.6 }),
    ...corners(() => colourShape(letter, 8, 9, 3.2, "#fff")),
    star(25, 33, 15, "#fff"),
    colourShape(letter, 25, 58, 4, "#fff"));
}

// The action cards' icons, drawn in a 40 × 40 box around (0, 0) with one stroke.
const ACTION_ICONS = {
  // a no-entry sign: the next player's turn is passed over
  skip: () => [s("circle", { r: 13 }), s("path", { d: "M-9 9 L9 -9" })],
  // two arrows chasing each other round: the turn order turns
  reverse: () => [s("path", { d: "M-12 -2 A12 12 0 0 1 10 -7" }), s("path", { d: "M12 2 A12 12 0 0 1 -10 7" }),
    s("path", { d: "M4 -10 L10.5 -7 L11 -14", "stroke-linejoin": "round" }),
    s("path", { d: "M-4 10 L-10.5 7 L-11 14", "stroke-linejoin": "round" })],
  // a shield with a bar across: a finished stack stopped
  block: () => [s("path", { d: "M0 -14 L12 -9.5 V0 C12 7 6.5 11.5 0 14.5 C-6.5 11.5 -12 7 -12 0 V-9.5Z" }),
    s("path", { d: "M-7 0 H7" })],
  // a card taken from another player's pile, towards you
  steal_card: () => [s("rect", { x: -1, y: -16, width: 14, height: 19, rx: 2.5, fill: "#fff" }),
    s("path", { d: "M3 -9.5 L6 -6.5 L3 -3.5 L0 -6.5Z", "stroke-width": 1.5 }),
    s("path", { d: "M-1 6 L-11 14 M-11 14 V6.5 M-11 14 H-3.5", "stroke-linejoin": "round" })],
  // a chip taken the same way
  steal_chip: () => [s("circle", { cx: 5, cy: -6, r: 9.5, fill: "#fff" }), s("circle", { cx: 5, cy: -6, r: 4.5, "stroke-width": 2 }),
    s("path", { d: "M-2 6 L-11 14 M-11 14 V6.5 M-11 14 H-3.5", "stroke-linejoin": "round" })],
};

function ssAction(card) {
  const ink = "#3d3454";
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: "#efeaf6" }),
    s("rect", { x: 3, y: 3, width: W - 6, height: H - 6, rx: 3, fill: "none", stroke: ink, "stroke-width": 1, opacity: 0.5 }),
    s("path", { d: "M3 3 L15 3 L3 15Z M47 67 L35 67 L47 55Z", fill: ink, opacity: 0.18 }),
    s("g", { transform: "translate(25 35)", fill: "none", stroke: ink, "stroke-width": 3, "stroke-linecap": "round" },
      ...ACTION_ICONS[card]()));
}

/** Sequence Stacks: B3 or R5 (a colour and a number), BW or RW (a colour wild), or an action. */
export function ssFace(card) {
  if (ACTION_ICONS[card]) return ssAction(card);
  return card[1] === "W" ? ssWild(card[0]) : ssNumber(card[0], card[1]);
}

// --- Split: half-cards, drawn as the upper or the lower half of a card, cut straight across.

const SUIT_PATHS = {
  H: "M0 .95 C-1.15 .05 -1.05 -.9 -.5 -.9 C-.2 -.9 0 -.68 0 -.45 C0 -.68 .2 -.9 .5 -.9 C1.05 -.9 1.15 .05 0 .95Z",
  D: "M0 -1 L.72 0 L0 1 L-.72 0Z",
  S: "M0 -1 C1.15 -.05 1.05 .62 .5 .62 C.25 .62 .1 .5 .06 .36 L.28 .98 H-.28 L-.06 .36 C-.1 .5 -.25 .62 -.5 .62 "
    + "C-1.05 .62 -1.15 -.05 0 -1Z",
  C: "M.1 .3 L.28 .98 H-.28 L-.1 .3 A.38 .38 0 1 1 -.28 -.22 A.38 .38 0 1 1 .28 -.22 A.38 .38 0 1 1 .1 .3Z",
};
const SUIT_INK = { H: "#c0392b", D: "#c0392b", S: INK, C: INK };

function suit(letter, x, y, r) {
  return s("path", { transform: `translate(${x} ${y}) scale(${r})`, fill: SUIT_INK[letter], d: SUIT_PATHS[letter] });
}

/** A rank as its corner index in the reader's language (A, J, Q, K are initials). */
function rankIndex(rank) {
  return { A: pgettext("card index: ace", "A"), T: "10", J: pgettext("card index: jack", "J"),
    Q: pgettext("card index: queen", "Q"), K: pgettext("card index: king", "K") }[rank] || rank;
}

export const HALF_HEIGHT = 40;
let clips = 0;

/** Split: "JHt" (the top half of the jack of hearts) or "JHb" (its bottom half). The top half
 * has the card's rounded top, its index in the top-left corner and the cut along the bottom;
 * the bottom half is the same card turned over: rounded bottom, index bottom-right, cut on top. */
export function splitFace(card) {
  const [rank, suitLetter, half] = card;
  const top = half === "t";
  const h = HALF_HEIGHT;
  const teeth = Array.from({ length: 9 }, (_, i) => `L${(49 - i * 6).toFixed(1)} ${i % 2 ? h - 5 : h - 1}`).join(" ");
  // drawn as a top half; the bottom half is the same outline turned upside down
  const outline = `M1 ${h - 1} V6 Q1 1 6 1 H44 Q49 1 49 6 V${h - 1} ${teeth}Z`;
  const flip = top ? "" : `rotate(180 25 ${h / 2})`;
  const id = `half-clip-${++clips}`;
  const index = rankIndex(rank);
  const rankSize = index.length > 1 ? 13 : 16;
  const [ix, iy, sy] = top ? [9, 11.5, 24] : [41, h - 22.5, h - 10];
  return svg(`0 0 ${W} ${h}`,
    s("defs", {}, s("clipPath", { id }, s("path", { d: outline, transform: flip }))),
    s("path", { d: outline, transform: flip, fill: "#fff", stroke: "#9aa6a0", "stroke-width": 1 }),
    // the big middle pip, cut where the card was cut
    s("g", { "clip-path": `url(#${id})` }, suit(suitLetter, top ? 30 : 20, top ? h + 1 : -1, 14)),
    text(index, ix, iy, rankSize, SUIT_INK[suitLetter], { "letter-spacing": index.length > 1 ? -1 : 0 }),
    suit(suitLetter, ix, sy, 5));
}

// --- Backs, for the cards nobody at the table may see.

/** A card's back: the site's green with a lattice and a gold diamond. */
export function backFace() {
  const lattice = [];
  for (let i = -60; i <= 60; i += 8) lattice.push(`M${6 + i} 6 L${66 + i} 66`, `M${44 - i} 6 L${-16 - i} 66`);
  return svg(`0 0 ${W} ${H}`,
    s("rect", { width: W, height: H, fill: "#1f6f5c" }),
    s("svg", { x: 5, y: 5, width: 40, height: 60, viewBox: "6 6 40 60" },
      s("path", { d: lattice.join(""), stroke: "#fff", "stroke-width": 1, opacity: 0.16 })),
    s("rect", { x: 5, y: 5, width: 40, height: 60, rx: 3, fill: "none", stroke: "#e7f2ec", "stroke-width": 1.2, opacity: 0.75 }),
    s("path", { d: "M25 24 L36 35 L25 46 L14 35Z", fill: "#e0a526", stroke: "#fff", "stroke-width": 1.2 }),
    s("circle", { cx: 25, cy: 35, r: 3, fill: "#15503f" }));
}

// Pieces every game renderer shares: seat names, buttons that send one legal move,
// selectable cards, and small lists.
import { h } from "../dom.js";
import { formatNumber, gettext, interpolate, ngettext } from "../i18n.js";
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

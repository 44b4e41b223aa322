// Sequence Stacks: build blue and red stacks 1-5, take chips, block an opponent's stack.
import { h } from "../dom.js";
import { formatNumber, gettext, interpolate, ngettext, pgettext } from "../i18n.js";
import {
  actionBar, arrangedHand, cardCount, cardFace, drawPile, feltTable, hint, moveButton, seatPod, section, shuffledWith,
} from "./common.js";
import { ssFace } from "./faces.js";

const ACTION_CARDS = new Set(["skip", "reverse", "block", "steal_card", "steal_chip"]);
const ACTION_MOVES = new Set(["skip", "reverse", "steal_card", "steal_chip"]);
const COLOUR = { B: "blue", R: "red" }; // the cards' CSS classes

function actionName(card) {
  return { skip: pgettext("card", "Skip"), reverse: pgettext("card", "Reverse"), block: pgettext("card", "Block"),
    steal_card: pgettext("card", "Steal a card"), steal_chip: pgettext("card", "Steal a chip") }[card];
}

function colourName(letter) {
  return { B: pgettext("colour", "blue"), R: pgettext("colour", "red") }[letter];
}

export function cardName(card) {
  if (ACTION_CARDS.has(card)) return actionName(card);
  return card[1] === "W" ? interpolate(gettext("%(colour)s wild"), { colour: colourName(card[0]) })
    : interpolate(gettext("%(colour)s %(number)s"), { colour: colourName(card[0]), number: card[1] });
}

/** "a red chip", "a blue chip". */
function aChip(colour) {
  return colour === "R" ? gettext("a red chip") : gettext("a blue chip");
}

// The hand's natural orders (hand-order.js): by number (wilds after nine), or by colour; the
// action cards last either way.
function handSorts() {
  const action = (card) => [...ACTION_CARDS].indexOf(card);
  const number = (card) => (card[1] === "W" ? 10 : Number(card[1]));
  const colour = (card) => (card[0] === "B" ? 0 : 1);
  return [
    { name: "number", label: gettext("By number"),
      key: (card) => (action(card) >= 0 ? [1, action(card)] : [0, number(card), colour(card)]) },
    { name: "colour", label: gettext("By colour"),
      key: (card) => (action(card) >= 0 ? [1, action(card)] : [0, colour(card), number(card)]) },
  ];
}

function ssCard(card, { name, ...options } = {}) {
  return cardFace(ssFace(card), name || cardName(card), { title: cardName(card), ...options });
}

function movesFor(pick, legal) {
  if (!pick) return [];
  return legal.filter((m) => {
    if (m.action === "play") return m.card === pick.card && m.source === pick.source;
    if (m.action === "discard") return pick.source === "hand" && m.card === pick.card;
    if (ACTION_MOVES.has(m.action)) return m.action === pick.card && m.source === pick.source;
    return false;
  });
}

function pileLabel(index) {
  return interpolate(index < 2 ? gettext("Blue pile %(number)s") : gettext("Red pile %(number)s"), { number: index % 2 + 1 });
}

function actionText(move, ctx) {
  switch (move.action) {
    case "skip": return gettext("Play Skip (the next player misses a turn)");
    case "reverse": return gettext("Play Reverse (turn order flips)");
    case "steal_card": return interpolate(gettext("Steal the top of %(name)s's discard pile"), { name: ctx.name(move.target) });
    case "steal_chip": return interpolate(gettext("Steal %(chip)s from %(name)s"), { chip: aChip(move.color), name: ctx.name(move.target) });
    case "discard": return interpolate(gettext("Discard %(card)s and end your turn"), { card: cardName(move.card) });
    default: return describeMove(move, ctx);
  }
}

function render(view, legal, ctx) {
  const ui = ctx.ui;
  if (ui.pick && !movesFor(ui.pick, legal).length) ui.pick = null;
  const pick = ui.pick;
  const pickMoves = movesFor(pick, legal);
  const pickKey = (p) => `${p.source}:${p.card}`;
  const choose = (candidate, focusKey) => {
    ui.pick = pick && pickKey(pick) === pickKey(candidate) ? null : candidate;
    const first = ui.pick ? movesFor(ui.pick, legal)[0] : null;
    ctx.refresh(ui.pick && first ? (first.action === "play" ? `pile:${first.pile}` : `ss:${JSON.stringify(first)}`) : focusKey);
  };

  const piles = h("div", { class: "ss-piles" }, view.piles.map((pile, index) => {
    const move = pickMoves.find((m) => m.action === "play" && m.pile === index);
    const needs = pile.cards.length < 5 ? interpolate(gettext("next: %(number)s"), { number: formatNumber(pile.cards.length + 1) })
      : gettext("complete");
    const completing = view.completion && view.completion.pile === index;
    const body = [
      h("span", { class: "pile-name" }, pileLabel(index)),
      h("span", { class: "ss-stack" }, pile.cards.length
        ? pile.cards.map((c) => ssCard(c, { className: "card-sm" })) : h("span", { class: "muted" }, pgettext("pile", "empty"))),
      h("span", { class: "pile-meta" }, completing ? gettext("finished: waiting for blocks") : needs),
    ];
    const label = `${pileLabel(index)}, ${cardCount(pile.cards.length)}, ${needs}`;
    if (move) {
      return h("button", {
        type: "button", class: ["pile", `ss-pile-${COLOUR[pile.color]}`, "pile-target"],
        "data-move": JSON.stringify(move), "data-key": `pile:${index}`, disabled: ctx.busy,
        "aria-label": interpolate(gettext("Play %(card)s on the %(pile)s"), { card: cardName(move.card), pile: label }),
        onclick: () => { ui.pick = null; ctx.send(move); },
      }, ...body, h("span", { class: "pile-cta" }, interpolate(gettext("play %(card)s"), { card: cardName(move.card) })));
    }
    return h("div", { class: ["pile", `ss-pile-${COLOUR[pile.color]}`, completing && "pile-completing"],
      role: "group", "aria-label": label }, ...body);
  }));

  const facts = h("p", { class: "table-facts" },
    h("span", {}, interpolate(gettext("Turn %(turn)s of at most %(limit)s"),
      { turn: formatNumber(view.turn), limit: formatNumber(view.turn_limit) })),
    h("span", {}, view.direction === 1 ? gettext("Direction → left") : gettext("Direction ← right")),
    view.skips ? h("span", {}, interpolate(ngettext("%(count)s skip pending", "%(count)s skips pending", view.skips),
      { count: formatNumber(view.skips) })) : null,
    drawPile(interpolate(gettext("Draw pile %(count)s"), { count: formatNumber(view.draw_pile) })),
    h("span", {}, interpolate(gettext("Set aside %(count)s"), { count: formatNumber(view.set_aside) })),
    h("span", {}, interpolate(gettext("Supply: %(red)s red, %(blue)s blue chips"),
      { red: formatNumber(view.supply.R), blue: formatNumber(view.supply.B) })),
    view.action_discard.length ? h("span", {}, interpolate(gettext("Actions played: %(cards)s"),
      { cards: view.action_discard.slice(-4).map(cardName).join(", ") })) : null);

  const banner = view.completion ? h("p", { class: "banner", role: "status" },
    interpolate(view.completion.color === "R" ? gettext("%(name)s finished a red stack. Opponents may block it: %(names)s.")
      : gettext("%(name)s finished a blue stack. Opponents may block it: %(names)s."),
    { name: ctx.name(view.completion.seat), names: view.to_act.map((s) => ctx.name(s)).join(", ") })) : null;

  const pods = view.seats.map((seat) => {
    const mine = seat.seat === ctx.seat;
    const top = seat.discard.length ? seat.discard[seat.discard.length - 1] : null;
    const topPick = mine && top ? { source: "discard", card: top } : null;
    const topUsable = topPick && ctx.interactive && movesFor(topPick, legal).length > 0;
    const hand = ctx.hands ? ctx.hands[seat.seat] : null;
    const active = view.active === seat.seat && !view.finished; // a finished game has no turn
    return seatPod(ctx, seat.seat, {
      count: seat.hand_size, current: active || (view.phase === "block" && view.to_act.includes(seat.seat)),
      note: active ? ` · ${gettext("active")}` : "",
      hand: hand && !mine ? hand.map((c) => ssCard(c, { className: "card-sm" })) : null,
      extras: [h("span", { class: "seat-meta" },
        h("span", { class: "chip chip-red", title: gettext("red chips") }, `● ${formatNumber(seat.chips.R)}`,
          h("span", { class: "token-label" }, " ", pgettext("colour", "red"))),
        h("span", { class: "chip chip-blue", title: gettext("blue chips") }, `● ${formatNumber(seat.chips.B)}`,
          h("span", { class: "token-label" }, " ", pgettext("colour", "blue")))),
      h("span", { class: "ss-discard" }, gettext("Discard:"), " ",
        top === null ? h("span", { class: "muted" }, pgettext("pile", "empty")) : topUsable
          ? ssCard(top, { key: "discard-top", dataset: { card: top, source: "discard" },
            selected: pick && pick.source === "discard", disabled: ctx.busy,
            name: interpolate(gettext("Top of your discard pile: %(card)s"), { card: cardName(top) }),
            onPick: () => choose(topPick, "discard-top") })
          : ssCard(top, { className: "card-sm" }),
        seat.discard.length > 1 ? h("span", { class: "muted" }, " ",
          interpolate(gettext("+%(count)s below"), { count: formatNumber(seat.discard.length - 1) })) : null)],
    });
  });

  let handPanel = null;
  // A finished table's empty hand (the player went out) is no panel: an empty box reads as a fault.
  if (view.hand !== null && view.hand !== undefined && !(view.finished && !view.hand.length)) {
    const cards = view.hand.map((card, index) => {
      const candidate = { source: "hand", card };
      const usable = ctx.interactive && view.phase === "play" && movesFor(candidate, legal).length > 0;
      const first = view.hand.indexOf(card) === index;
      return ssCard(card, {
        key: `card:${card}:${index}`,
        dataset: { card, source: "hand" },
        selected: first && pick && pick.source === "hand" && pick.card === card,
        disabled: !usable || ctx.busy,
        onPick: () => choose(candidate, `card:${card}:${index}`),
      });
    });
    const windowMoves = legal.filter((m) => m.action === "block" || m.action === "pass");
    const endTurn = legal.find((m) => m.action === "end_turn");
    const others = pickMoves.filter((m) => m.action !== "play");
    handPanel = section(ctx.handTitle || gettext("Your hand"), legal.length ? "hand-panel" : "hand-panel waiting",
      arrangedHand(ctx, view.hand, cards, handSorts()),
      ctx.interactive && view.phase === "play" && legal.length
        ? hint(pick ? interpolate(gettext("%(card)s: pick a pile or an action below (Esc to cancel)."), { card: cardName(pick.card) })
          : gettext("Pick a card (or the top of your discard pile), then where it goes. A discard ends your turn."))
        : null,
      others.length ? actionBar(others.map((m) => moveButton(ctx, m, actionText(m, ctx),
        { key: `ss:${JSON.stringify(m)}`, className: m.action === "discard" ? "" : "btn-primary" }))) : null,
      windowMoves.length ? actionBar(windowMoves.map((m) => moveButton(ctx, m,
        m.action === "block" ? gettext("Block the stack") : gettext("Let it score (pass)"),
        { key: `ss:${m.action}`, className: m.action === "block" ? "btn-danger" : "" }))) : null,
      endTurn ? actionBar(moveButton(ctx, endTurn, gettext("End turn"), { key: "ss:end_turn", className: "btn-primary" })) : null);
  }
  return feltTable(ctx, pods, [banner, piles, facts], handPanel, "ss-seats");
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  const name = who(event.seat);
  // A card played from the seat's discard pile says so: the same sentence, with the source.
  const fromDiscard = event.source === "discard";
  switch (event.type) {
    case "GameStarted": {
      const started = interpolate(ngettext("The game starts with %(count)s player.", "The game starts with %(count)s players.",
        event.players), { count: formatNumber(event.players) });
      return event.seed === undefined ? started : `${started} ${shuffledWith(event.seed)}`;
    }
    case "TurnStarted": return interpolate(gettext("Turn %(turn)s: %(name)s."), { turn: formatNumber(event.turn), name });
    case "CardsDrawn": return interpolate(gettext("%(name)s drew %(cards)s."),
      { name, cards: event.cards ? event.cards.map(cardName).join(", ") : cardCount(event.count) });
    case "CardPlayed": return interpolate(fromDiscard ? gettext("%(name)s played %(card)s from the discard pile on %(pile)s.")
      : gettext("%(name)s played %(card)s on %(pile)s."), { name, card: cardName(event.card), pile: pileLabel(event.pile) });
    case "CardDiscarded": return interpolate(gettext("%(name)s discarded %(card)s."), { name, card: cardName(event.card) });
    case "TurnEnded": return interpolate(event.automatic ? gettext("%(name)s ended the turn (nothing to do).")
      : gettext("%(name)s ended the turn."), { name });
    case "SkipPlayed": return interpolate(fromDiscard ? gettext("%(name)s played Skip from the discard pile.")
      : gettext("%(name)s played Skip."), { name });
    case "ReversePlayed": return interpolate(fromDiscard ? gettext("%(name)s played Reverse from the discard pile.")
      : gettext("%(name)s played Reverse."), { name });
    case "CardStolen": return interpolate(gettext("%(name)s stole %(card)s from %(other)s's discard pile."),
      { name, card: cardName(event.card), other: who(event.target) });
    case "ChipStolen": return interpolate(gettext("%(name)s stole %(chip)s from %(other)s."),
      { name, chip: aChip(event.color), other: who(event.target) });
    case "SequenceCompleted": return interpolate(event.color === "R" ? gettext("%(name)s finished a red stack on %(pile)s.")
      : gettext("%(name)s finished a blue stack on %(pile)s."), { name, pile: pileLabel(event.pile) });
    case "BlockPassed": return interpolate(event.automatic ? gettext("%(name)s did not block (could not).")
      : gettext("%(name)s did not block."), { name });
    case "SequenceBlocked": return interpolate(event.color === "R" ? gettext("%(name)s blocked the red stack!")
      : gettext("%(name)s blocked the blue stack!"), { name });
    case "SequenceScored": return event.chip ? interpolate(gettext("%(name)s takes %(chip)s."), { name, chip: aChip(event.color) })
      : interpolate(event.color === "R" ? gettext("%(name)s's stack scores, but no red chip is left.")
        : gettext("%(name)s's stack scores, but no blue chip is left."), { name });
    case "DrawPileReshuffled": return interpolate(gettext("The set-aside cards are shuffled into a new draw pile of %(count)s."),
      { count: formatNumber(event.count) });
    case "GameEnded": return event.reason === "five_chips"
      ? interpolate(gettext("%(name)s wins with five chips!"), { name: who(event.winners[0]) })
      : event.reason === "stalemate" ? gettext("The game ends (stalemate) without a winner.")
        : gettext("The game ends (turn limit) without a winner.");
    default: return event.type;
  }
}

function describeMove(move, ctx) {
  const fromDiscard = move.source === "discard";
  const name = move.target === undefined ? null : ctx.name(move.target);
  switch (move.action) {
    case "play": return interpolate(fromDiscard ? gettext("Play %(card)s from your discard pile on %(pile)s")
      : gettext("Play %(card)s on %(pile)s"), { card: cardName(move.card), pile: pileLabel(move.pile) });
    case "discard": return interpolate(gettext("Discard %(card)s (ends turn)"), { card: cardName(move.card) });
    case "end_turn": return gettext("End turn");
    case "skip": return fromDiscard ? gettext("Play Skip from your discard pile") : gettext("Play Skip");
    case "reverse": return fromDiscard ? gettext("Play Reverse from your discard pile") : gettext("Play Reverse");
    case "steal_card": return interpolate(fromDiscard ? gettext("Steal a card from %(name)s, from your discard pile")
      : gettext("Steal a card from %(name)s"), { name });
    case "steal_chip": return interpolate(fromDiscard ? gettext("Steal %(chip)s from %(name)s, from your discard pile")
      : gettext("Steal %(chip)s from %(name)s"), { chip: aChip(move.color), name });
    case "pass": return gettext("Pass (do not block)");
    case "block": return pgettext("verb", "Block");
    default: return JSON.stringify(move);
  }
}

function turnText(view) {
  if (view.phase === "block") return gettext("a stack is finished: block it or let it score");
  if (view.phase === "play") return gettext("play cards, then discard one to end the turn");
  return null;
}

function resultText(outcome, ctx) {
  const detail = outcome.detail || {};
  const chips = (detail.chips || []).map((c, seat) => interpolate(gettext("%(name)s %(red)s red + %(blue)s blue"),
    { name: ctx.name(seat), red: formatNumber(c.R), blue: formatNumber(c.B) }));
  const values = { name: ctx.name(outcome.winners[0]), turns: formatNumber(detail.turns), chips: chips.join("; ") };
  if (detail.reason === "five_chips") return interpolate(gettext("%(name)s won with five chips after %(turns)s turns. Chips: %(chips)s."), values);
  return interpolate(detail.reason === "stalemate" ? gettext("No winner (stalemate) after %(turns)s turns. Chips: %(chips)s.")
    : gettext("No winner (turn limit) after %(turns)s turns. Chips: %(chips)s."), values);
}

/** A seat's chips at the end, as chips: five of one colour wins. */
function scoreParts(outcome, seat) {
  const chips = ((outcome.detail || {}).chips || [])[seat];
  if (!chips) return null;
  return h("span", { class: "ss-chips" },
    h("span", { class: "chip chip-red" }, `● ${formatNumber(chips.R)}`, h("span", { class: "token-label" }, " ", pgettext("colour", "red"))),
    " ",
    h("span", { class: "chip chip-blue" }, `● ${formatNumber(chips.B)}`, h("span", { class: "token-label" }, " ", pgettext("colour", "blue"))));
}

function onKey(event, ctx) {
  if (event.key === "Escape" && ctx.ui.pick) {
    ctx.ui.pick = null;
    ctx.refresh(null);
    return true;
  }
  return false;
}

export default {
  slug: "sequence-stacks", get title() { return pgettext("game title", "Sequence Stacks"); }, render, describe, describeMove,
  turnText, resultText, onKey, scoreParts,

  interrupts: true,
};

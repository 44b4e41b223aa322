// The Game: four piles (two up from 1, two down from 100), a hand, and "play at least two".
import { h } from "../dom.js";
import { formatNumber, gettext, interpolate, ngettext, pgettext } from "../i18n.js";
import {
  actionBar, arrangedHand, cardCount, cardFace, drawPile, feltTable, hint, keepSelection, moveButton, seatPod, section, shuffledWith,
} from "./common.js";
import { theGameFace } from "./faces.js";

// The hand's natural orders (hand-order.js): the engine deals it low to high. (A function: the
// words are looked up once the page's catalogue has loaded.)
function handSorts() {
  return [
    { name: "up", label: gettext("Low to high"), key: (card) => [Number(card)] },
    { name: "down", label: gettext("High to low"), key: (card) => [-Number(card)] },
  ];
}

function pileName(pile) {
  return pileNameFor(pile.pile);
}

// Piles 0 and 1 go up from 1, piles 2 and 3 down from 100.
function pileNameFor(index) {
  return index < 2 ? interpolate(pgettext("the-game pile", "Up %(number)s"), { number: index + 1 })
    : interpolate(pgettext("the-game pile", "Down %(number)s"), { number: index - 1 });
}

function isBackwards(pile, card) {
  const top = Number(pile.top);
  const value = Number(card);
  return pile.direction === "up" ? value === top - 10 : value === top + 10;
}

function renderPile(pile, ctx, selected, plays) {
  const move = selected ? plays.find((m) => m.card === selected && m.pile === pile.pile) : null;
  const arrow = pile.direction === "up" ? "↑" : "↓";
  const recent = pile.cards.slice(-6, -1);
  const body = [
    h("span", { class: "pile-name" }, `${arrow} ${pileName(pile)}`),
    h("span", { class: "card card-lg pile-card", "aria-hidden": "true" }, theGameFace(pile.top)),
    h("span", { class: "pile-meta" }, pile.cards.length ? cardCount(pile.cards.length)
      : interpolate(gettext("empty (starts at %(base)s)"), { base: pile.base })),
    recent.length ? h("span", { class: "pile-history" }, interpolate(gettext("before: %(cards)s"), { cards: recent.join(", ") }))
      : null,
  ];
  const description = interpolate(pile.direction === "up" ? gettext("%(pile)s pile, going up, top card %(top)s")
    : gettext("%(pile)s pile, going down, top card %(top)s"), { pile: pileName(pile), top: pile.top });
  if (move) {
    const backwards = isBackwards(pile, selected);
    return h("button", {
      type: "button",
      class: ["pile", `pile-${pile.direction}`, "pile-target", backwards && "pile-backwards"],
      "data-move": JSON.stringify(move),
      "data-key": `pile:${pile.pile}`,
      "aria-label": interpolate(backwards ? gettext("Play %(card)s on the %(pile)s (backwards trick)")
        : gettext("Play %(card)s on the %(pile)s"), { card: selected, pile: description }),
      disabled: ctx.busy,
      onclick: () => { ctx.ui.card = null; ctx.send(move); },
    }, ...body, h("span", { class: "pile-cta" }, interpolate(backwards ? gettext("play %(card)s (back 10)")
      : gettext("play %(card)s"), { card: selected })));
  }
  return h("div", { class: ["pile", `pile-${pile.direction}`], role: "group", "aria-label": description }, ...body);
}

function render(view, legal, ctx) {
  const ui = ctx.ui;
  const plays = legal.filter((m) => m.action === "play");
  const playable = new Set(plays.map((m) => m.card));
  const selected = keepSelection(ui, "card", (card) => playable.has(card));
  const endTurn = legal.find((m) => m.action === "end_turn");

  const piles = h("div", { class: "tg-piles" }, view.piles.map((p) => renderPile(p, ctx, selected, plays)));

  const info = h("p", { class: "table-facts" },
    drawPile(interpolate(gettext("Draw pile: %(count)s"), { count: formatNumber(view.draw_pile) })),
    h("span", {}, interpolate(gettext("Cards left: %(count)s"), { count: formatNumber(view.cards_left) })),
    view.current !== null
      ? h("span", {}, interpolate(gettext("This turn: %(played)s played, at least %(required)s"),
        { played: formatNumber(view.played_this_turn), required: formatNumber(view.required) }))
      : null);

  const pods = view.seats.map((seat) => {
    const hand = ctx.hands ? ctx.hands[seat.seat] : null;
    return seatPod(ctx, seat.seat, {
      count: seat.hand_count, current: view.current === seat.seat,
      hand: hand && seat.seat !== ctx.seat ? hand.map((c) => cardFace(theGameFace(c), c, { className: "card-sm" })) : null,
    });
  });

  let handPanel = null;
  if (view.hand !== null && view.hand !== undefined) {
    const faces = view.hand.map((card) => {
      const canPlay = ctx.interactive && playable.has(card);
      return cardFace(theGameFace(card), interpolate(canPlay ? gettext("Card %(card)s: choose a pile for it")
        : gettext("Card %(card)s"), { card }), {
        key: `card:${card}`,
        dataset: { card },
        selected: selected === card,
        disabled: !canPlay || ctx.busy,
        onPick: () => {
          ui.card = ui.card === card ? null : card;
          ctx.refresh(ui.card ? `pile:${plays.find((m) => m.card === card).pile}` : `card:${card}`);
        },
      });
    });
    handPanel = section(ctx.handTitle || gettext("Your hand"), legal.length ? "hand-panel" : "hand-panel waiting",
      arrangedHand(ctx, view.hand, faces, handSorts()),
      ctx.interactive && plays.length
        ? hint(selected ? interpolate(gettext("Now pick a pile for %(card)s (Esc to cancel)."), { card: selected })
          : gettext("Pick a card, then a pile."))
        : null,
      actionBar(endTurn ? moveButton(ctx, endTurn, view.played_this_turn >= view.required
        ? gettext("End turn and draw") : gettext("End turn"), { key: "end_turn", className: "btn-primary" }) : null));
  }
  return feltTable(ctx, pods, [piles, info], handPanel);
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  switch (event.type) {
    case "GameStarted": {
      const started = interpolate(gettext("The game starts: %(players)s players, %(hand)s cards each, %(pile)s in the draw pile."), {
        players: formatNumber(event.players), hand: formatNumber(event.hand_size),
        pile: formatNumber(event.draw_pile ?? event.deck.length - event.players * event.hand_size) });
      return event.seed === undefined ? started : `${started} ${shuffledWith(event.seed)}`;
    }
    case "TurnStarted":
      return interpolate(gettext("%(name)s's turn: play at least %(count)s."), { name: who(event.seat), count: formatNumber(event.minimum) });
    case "CardPlayed":
      return interpolate(event.backwards ? gettext("%(name)s played %(card)s on %(pile)s (backwards trick).")
        : gettext("%(name)s played %(card)s on %(pile)s."), { name: who(event.seat), card: event.card, pile: pileNameFor(event.pile) });
    case "TurnEnded":
      return interpolate(gettext("%(name)s ended the turn."), { name: who(event.seat) });
    case "CardsDrawn":
      return event.cards
        ? interpolate(gettext("%(name)s drew %(cards)s."), { name: who(event.seat), cards: event.cards.join(", ") })
        : interpolate(gettext("%(name)s drew %(cards)s."), { name: who(event.seat), cards: cardCount(event.count) });
    case "GameEnded":
      return event.won ? gettext("All 98 cards are played: the team wins!")
        : interpolate(ngettext("The game is lost: %(name)s cannot play. %(count)s card was never played.",
          "The game is lost: %(name)s cannot play. %(count)s cards were never played.", event.cards_left),
        { name: who(event.stuck_seat), count: formatNumber(event.cards_left) });
    case "TeamConceded":
      return interpolate(ngettext("The team conceded: %(count)s card was never played.",
        "The team conceded: %(count)s cards were never played.", event.cards_left), { count: formatNumber(event.cards_left) });
    default:
      return event.type;
  }
}

function describeMove(move) {
  if (move.action === "play") {
    return interpolate(gettext("Play %(card)s on %(pile)s"), { card: move.card, pile: pileNameFor(move.pile) });
  }
  if (move.action === "end_turn") return gettext("End turn");
  return JSON.stringify(move);
}

function turnText(view) {
  if (view.finished || view.current === null) return null;
  const left = Math.max(0, view.required - view.played_this_turn);
  return left > 0 ? interpolate(ngettext("play %(count)s more card", "play %(count)s more cards", left), { count: formatNumber(left) })
    : gettext("play more cards or end the turn");
}

function resultText(outcome) {
  const detail = outcome.detail || {};
  if (outcome.won) return gettext("The team won: every card was played.");
  if (detail.reason === "conceded") {
    return interpolate(ngettext(
      "The team conceded with %(count)s card left (%(hands)s in hands, %(pile)s in the draw pile).",
      "The team conceded with %(count)s cards left (%(hands)s in hands, %(pile)s in the draw pile).", detail.cards_left), {
      count: formatNumber(detail.cards_left), hands: formatNumber(detail.in_hands), pile: formatNumber(detail.in_draw_pile) });
  }
  return interpolate(ngettext(
    "The team lost with %(count)s card left (%(hands)s in hands, %(pile)s in the draw pile).",
    "The team lost with %(count)s cards left (%(hands)s in hands, %(pile)s in the draw pile).", detail.cards_left), {
    count: formatNumber(detail.cards_left), hands: formatNumber(detail.in_hands), pile: formatNumber(detail.in_draw_pile) });
}

function onKey(event, ctx) {
  if (event.key === "Escape" && ctx.ui.card) {
    const card = ctx.ui.card;
    ctx.ui.card = null;
    ctx.refresh(`card:${card}`);
    return true;
  }
  return false;
}

export default {
  slug: "the-game", get title() { return pgettext("game title", "The Game"); }, render, describe, describeMove, turnText,
  resultText, onKey, cooperative: true,
};


// The Game: four piles (two up from 1, two down from 100), a hand, and "play at least two".
import { h, plural } from "../dom.js";
import { actionBar, cardFace, hint, keepSelection, moveButton, section, seatLabel } from "./common.js";

function pileName(pile) {
  return pile.direction === "up" ? `Up ${pile.pile + 1}` : `Down ${pile.pile - 1}`;
}

function pileNameFor(index) {
  return index < 2 ? `Up ${index + 1}` : `Down ${index - 1}`;
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
    h("span", { class: "pile-top", "aria-hidden": "true" }, pile.top),
    h("span", { class: "pile-meta" },
      pile.cards.length ? `${plural(pile.cards.length, "card")}` : `empty (starts at ${pile.base})`),
    recent.length ? h("span", { class: "pile-history" }, `before: ${recent.join(", ")}`) : null,
  ];
  const description = `${pileName(pile)} pile, going ${pile.direction}, top card ${pile.top}`;
  if (move) {
    const backwards = isBackwards(pile, selected);
    return h("button", {
      type: "button",
      class: ["pile", `pile-${pile.direction}`, "pile-target", backwards && "pile-backwards"],
      "data-move": JSON.stringify(move),
      "data-key": `pile:${pile.pile}`,
      "aria-label": `Play ${selected} on the ${description}${backwards ? " (backwards trick)" : ""}`,
      disabled: ctx.busy,
      onclick: () => { ctx.ui.card = null; ctx.send(move); },
    }, ...body, h("span", { class: "pile-cta" }, backwards ? `play ${selected} (back 10)` : `play ${selected}`));
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
    h("span", {}, `Draw pile: ${view.draw_pile}`),
    h("span", {}, `Cards left: ${view.cards_left}`),
    view.current !== null
      ? h("span", {}, `This turn: ${view.played_this_turn} played, at least ${view.required}`)
      : null);

  const seats = h("ul", { class: "seat-strip" }, view.seats.map((seat) => {
    const hand = ctx.hands ? ctx.hands[seat.seat] : null;
    return h("li", { class: ["seat-box", view.current === seat.seat && "is-current", seat.seat === ctx.seat && "is-me"] },
      h("span", { class: "seat-name" }, seatLabel(ctx, seat.seat)),
      h("span", { class: "seat-meta" }, plural(seat.hand_count, "card")),
      hand ? h("span", { class: "mini-hand" }, hand.map((c) => cardFace(c, { className: "card-sm tg-card" }))) : null);
  }));

  let handPanel = null;
  if (view.hand !== null && view.hand !== undefined) {
    const cards = view.hand.map((card) => {
      const canPlay = ctx.interactive && playable.has(card);
      return cardFace(card, {
        className: "tg-card",
        key: `card:${card}`,
        dataset: { card },
        selected: selected === card,
        disabled: !canPlay || ctx.busy,
        ariaLabel: canPlay ? `Card ${card}: choose a pile for it` : `Card ${card}`,
        onPick: () => {
          ui.card = ui.card === card ? null : card;
          ctx.refresh(ui.card ? `pile:${plays.find((m) => m.card === card).pile}` : `card:${card}`);
        },
      });
    });
    handPanel = section(ctx.handTitle || "Your hand", legal.length ? "hand-panel" : "hand-panel waiting",
      h("div", { class: "hand", role: "group", "aria-label": "Your cards" }, cards),
      ctx.interactive && plays.length
        ? hint(selected ? `Now pick a pile for ${selected} (Esc to cancel).` : "Pick a card, then a pile.")
        : null,
      actionBar(endTurn ? moveButton(ctx, endTurn, view.played_this_turn >= view.required
        ? "End turn and draw" : "End turn", { key: "end_turn", className: "btn-primary" }) : null));
  }
  return [piles, info, seats, handPanel];
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  switch (event.type) {
    case "GameStarted":
      return `The game starts: ${event.players} players, ${event.hand_size} cards each, ${event.draw_pile ??
        event.deck.length - event.players * event.hand_size} in the draw pile.${event.seed !== undefined ? ` (Shuffled with seed ${event.seed}.)` : ""}`;
    case "TurnStarted":
      return `${who(event.seat)}'s turn: play at least ${event.minimum}.`;
    case "CardPlayed":
      return `${who(event.seat)} played ${event.card} on ${pileNameFor(event.pile)}${event.backwards ? " (backwards trick)" : ""}.`;
    case "TurnEnded":
      return `${who(event.seat)} ended the turn.`;
    case "CardsDrawn":
      return event.cards
        ? `${who(event.seat)} drew ${event.cards.join(", ")}.`
        : `${who(event.seat)} drew ${plural(event.count, "card")}.`;
    case "GameEnded":
      return event.won ? "All 98 cards are played: the team wins!"
        : `The game is lost: ${who(event.stuck_seat)} cannot play. ${event.cards_left} cards were never played.`;
    default:
      return event.type;
  }
}

function describeMove(move) {
  if (move.action === "play") return `Play ${move.card} on ${pileNameFor(move.pile)}`;
  if (move.action === "end_turn") return "End turn";
  return JSON.stringify(move);
}

function turnText(view) {
  if (view.finished || view.current === null) return null;
  const left = Math.max(0, view.required - view.played_this_turn);
  return left > 0 ? `play ${plural(left, "more card")}` : "play more cards or end the turn";
}

function resultText(outcome) {
  const detail = outcome.detail || {};
  if (outcome.won) return "The team won: every card was played.";
  return `The team lost with ${detail.cards_left} cards left (${detail.in_hands} in hands, ${detail.in_draw_pile} in the draw pile).`;
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

export default { slug: "the-game", title: "The Game", render, describe, describeMove, turnText, resultText, onKey };

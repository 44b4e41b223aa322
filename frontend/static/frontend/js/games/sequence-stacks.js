// Sequence Stacks: build blue and red stacks 1-5, take chips, block an opponent's stack.
import { h, plural } from "../dom.js";
import { actionBar, cardFace, hint, moveButton, section, seatLabel } from "./common.js";

const ACTIONS = { skip: "Skip", reverse: "Reverse", block: "Block", steal_card: "Steal a card", steal_chip: "Steal a chip" };
const ACTION_MOVES = new Set(["skip", "reverse", "steal_card", "steal_chip"]);
const COLOUR = { B: "blue", R: "red" };

export function cardName(card) {
  if (ACTIONS[card]) return ACTIONS[card];
  return `${COLOUR[card[0]]} ${card[1] === "W" ? "wild" : card[1]}`;
}

function cardLabel(card) {
  if (ACTIONS[card]) return ACTIONS[card];
  return card[1] === "W" ? "★" : card[1];
}

function ssCard(card, options = {}) {
  const kind = ACTIONS[card] ? "action" : COLOUR[card[0]];
  return cardFace(cardLabel(card), { ariaLabel: cardName(card), title: cardName(card), ...options,
    className: `ss-card ss-${kind} ${options.className || ""}` });
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
  return `${index < 2 ? "Blue" : "Red"} pile ${index % 2 + 1}`;
}

function actionText(move, ctx) {
  switch (move.action) {
    case "skip": return "Play Skip (the next player misses a turn)";
    case "reverse": return "Play Reverse (turn order flips)";
    case "steal_card": return `Steal the top of ${ctx.name(move.target)}'s discard pile`;
    case "steal_chip": return `Steal a ${COLOUR[move.color]} chip from ${ctx.name(move.target)}`;
    case "discard": return `Discard ${cardName(move.card)} and end your turn`;
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
    const needs = pile.cards.length < 5 ? `next: ${pile.cards.length + 1}` : "complete";
    const completing = view.completion && view.completion.pile === index;
    const body = [
      h("span", { class: "pile-name" }, pileLabel(index)),
      h("span", { class: "ss-stack" }, pile.cards.length
        ? pile.cards.map((c) => ssCard(c, { className: "card-sm" })) : h("span", { class: "muted" }, "empty")),
      h("span", { class: "pile-meta" }, completing ? "finished: waiting for blocks" : needs),
    ];
    const label = `${pileLabel(index)}, ${plural(pile.cards.length, "card")}, ${needs}`;
    if (move) {
      return h("button", {
        type: "button", class: ["pile", `ss-pile-${COLOUR[pile.color]}`, "pile-target"],
        "data-move": JSON.stringify(move), "data-key": `pile:${index}`, disabled: ctx.busy,
        "aria-label": `Play ${cardName(move.card)} on the ${label}`,
        onclick: () => { ui.pick = null; ctx.send(move); },
      }, ...body, h("span", { class: "pile-cta" }, `play ${cardName(move.card)}`));
    }
    return h("div", { class: ["pile", `ss-pile-${COLOUR[pile.color]}`, completing && "pile-completing"],
      role: "group", "aria-label": label }, ...body);
  }));

  const facts = h("p", { class: "table-facts" },
    h("span", {}, `Turn ${view.turn} of at most ${view.turn_limit}`),
    h("span", {}, `Direction ${view.direction === 1 ? "→ left" : "← right"}`),
    view.skips ? h("span", {}, `${plural(view.skips, "skip")} pending`) : null,
    h("span", {}, `Draw pile ${view.draw_pile}`),
    h("span", {}, `Set aside ${view.set_aside}`),
    h("span", {}, `Supply: ${view.supply.R} red, ${view.supply.B} blue chips`),
    view.action_discard.length ? h("span", {}, `Actions played: ${view.action_discard.slice(-4).map(cardName).join(", ")}`) : null);

  const banner = view.completion ? h("p", { class: "banner", role: "status" },
    `${ctx.name(view.completion.seat)} finished a ${COLOUR[view.completion.color]} stack. ` +
    `Opponents may block it: ${view.to_act.map((s) => ctx.name(s)).join(", ")}.`) : null;

  const seats = h("ul", { class: "seat-strip ss-seats" }, view.seats.map((seat) => {
    const mine = seat.seat === ctx.seat;
    const top = seat.discard.length ? seat.discard[seat.discard.length - 1] : null;
    const topPick = mine && top ? { source: "discard", card: top } : null;
    const topUsable = topPick && ctx.interactive && movesFor(topPick, legal).length > 0;
    const hand = ctx.hands ? ctx.hands[seat.seat] : null;
    const active = view.active === seat.seat && !view.finished; // a finished game has no turn
    return h("li", { class: ["seat-box", active && "is-current", mine && "is-me"] },
      h("span", { class: "seat-name" }, seatLabel(ctx, seat.seat), active ? " · active" : ""),
      h("span", { class: "seat-meta" },
        h("span", {}, plural(seat.hand_size, "card")),
        h("span", { class: "chip chip-red", title: "red chips" }, `● ${seat.chips.R}`, h("span", { class: "token-label" }, " red")),
        h("span", { class: "chip chip-blue", title: "blue chips" }, `● ${seat.chips.B}`, h("span", { class: "token-label" }, " blue"))),
      h("span", { class: "ss-discard" }, "Discard: ",
        top === null ? h("span", { class: "muted" }, "empty") : topUsable
          ? ssCard(top, { key: "discard-top", dataset: { card: top, source: "discard" },
            selected: pick && pick.source === "discard", disabled: ctx.busy,
            ariaLabel: `Top of your discard pile: ${cardName(top)}`, onPick: () => choose(topPick, "discard-top") })
          : ssCard(top, { className: "card-sm" }),
        seat.discard.length > 1 ? h("span", { class: "muted" }, ` +${seat.discard.length - 1} below`) : null),
      hand ? h("span", { class: "mini-hand" }, hand.map((c) => ssCard(c, { className: "card-sm" }))) : null);
  }));

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
    handPanel = section(ctx.handTitle || "Your hand", legal.length ? "hand-panel" : "hand-panel waiting",
      h("div", { class: "hand", role: "group", "aria-label": "Your cards" }, cards),
      ctx.interactive && view.phase === "play" && legal.length
        ? hint(pick ? `${cardName(pick.card)}: pick a pile or an action below (Esc to cancel).`
          : "Pick a card (or the top of your discard pile), then where it goes. A discard ends your turn.")
        : null,
      others.length ? actionBar(others.map((m) => moveButton(ctx, m, actionText(m, ctx),
        { key: `ss:${JSON.stringify(m)}`, className: m.action === "discard" ? "" : "btn-primary" }))) : null,
      windowMoves.length ? actionBar(windowMoves.map((m) => moveButton(ctx, m,
        m.action === "block" ? "Block the stack" : "Let it score (pass)",
        { key: `ss:${m.action}`, className: m.action === "block" ? "btn-danger" : "" }))) : null,
      endTurn ? actionBar(moveButton(ctx, endTurn, "End turn", { key: "ss:end_turn", className: "btn-primary" })) : null);
  }
  return [banner, piles, facts, seats, handPanel];
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  const from = (source) => (source === "discard" ? " from the discard pile" : "");
  switch (event.type) {
    case "GameStarted": return `The game starts with ${event.players} players.` +
      (event.seed !== undefined ? ` (Shuffled with seed ${event.seed}.)` : "");
    case "TurnStarted": return `Turn ${event.turn}: ${who(event.seat)}.`;
    case "CardsDrawn": return event.cards ? `${who(event.seat)} drew ${event.cards.map(cardName).join(", ")}.`
      : `${who(event.seat)} drew ${plural(event.count, "card")}.`;
    case "CardPlayed": return `${who(event.seat)} played ${cardName(event.card)}${from(event.source)} on ${pileLabel(event.pile)}.`;
    case "CardDiscarded": return `${who(event.seat)} discarded ${cardName(event.card)}.`;
    case "TurnEnded": return `${who(event.seat)} ended the turn${event.automatic ? " (nothing to do)" : ""}.`;
    case "SkipPlayed": return `${who(event.seat)} played Skip${from(event.source)}.`;
    case "ReversePlayed": return `${who(event.seat)} played Reverse${from(event.source)}.`;
    case "CardStolen": return `${who(event.seat)} stole ${cardName(event.card)} from ${who(event.target)}'s discard pile.`;
    case "ChipStolen": return `${who(event.seat)} stole a ${COLOUR[event.color]} chip from ${who(event.target)}.`;
    case "SequenceCompleted": return `${who(event.seat)} finished a ${COLOUR[event.color]} stack on ${pileLabel(event.pile)}.`;
    case "BlockPassed": return `${who(event.seat)} did not block${event.automatic ? " (could not)" : ""}.`;
    case "SequenceBlocked": return `${who(event.seat)} blocked the ${COLOUR[event.color]} stack!`;
    case "SequenceScored": return event.chip ? `${who(event.seat)} takes a ${COLOUR[event.color]} chip.`
      : `${who(event.seat)}'s stack scores, but no ${COLOUR[event.color]} chip is left.`;
    case "DrawPileReshuffled": return `The set-aside cards are shuffled into a new draw pile of ${event.count}.`;
    case "GameEnded": return event.reason === "five_chips" ? `${who(event.winners[0])} wins with five chips!`
      : `The game ends (${event.reason === "stalemate" ? "stalemate" : "turn limit"}) without a winner.`;
    default: return event.type;
  }
}

function describeMove(move, ctx) {
  const from = move.source === "discard" ? " from your discard pile" : "";
  switch (move.action) {
    case "play": return `Play ${cardName(move.card)}${from} on ${pileLabel(move.pile)}`;
    case "discard": return `Discard ${cardName(move.card)} (ends turn)`;
    case "end_turn": return "End turn";
    case "skip": return `Play Skip${from}`;
    case "reverse": return `Play Reverse${from}`;
    case "steal_card": return `Steal a card from ${ctx.name(move.target)}${from}`;
    case "steal_chip": return `Steal a ${COLOUR[move.color]} chip from ${ctx.name(move.target)}${from}`;
    case "pass": return "Pass (do not block)";
    case "block": return "Block";
    default: return JSON.stringify(move);
  }
}

function turnText(view) {
  if (view.phase === "block") return "a stack is finished: block it or let it score";
  if (view.phase === "play") return "play cards, then discard one to end the turn";
  return null;
}

function resultText(outcome, ctx) {
  const detail = outcome.detail || {};
  const chips = (detail.chips || []).map((c, seat) => `${ctx.name(seat)} ${c.R} red + ${c.B} blue`);
  const how = detail.reason === "five_chips" ? `${ctx.name(outcome.winners[0])} won with five chips`
    : `No winner (${detail.reason === "stalemate" ? "stalemate" : "turn limit"})`;
  return `${how} after ${detail.turns} turns. Chips: ${chips.join("; ")}.`;
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
  slug: "sequence-stacks", title: "Sequence Stacks", render, describe, describeMove, turnText, resultText, onKey,
  interrupts: true,
};

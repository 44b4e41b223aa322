// Ten: draw from one shared pile, stop before 11, auctions for wild cards, a market to buy from.
import { h, plural } from "../dom.js";
import { actionBar, cardFace, hint, keepSelection, moveButton, section, seatLabel } from "./common.js";

const COLOURS = { R: "red", B: "blue", O: "orange", G: "green" };

export function cardName(card) {
  if (card === "W#") return "full wild";
  if (card[0] === "$") return `${card.slice(1)} currency`;
  if (card[0] === "W") return `wild ${card[1]}`;
  if (card[1] === "#") return `${COLOURS[card[0]]} wild`;
  return `${COLOURS[card[0]]} ${card[1]}`;
}

function tenCard(card, options = {}) {
  const kind = card[0] === "$" ? "money" : card[0] === "W" ? "wild" : (COLOURS[card[0]] || "");
  return cardFace(card, { ariaLabel: cardName(card), title: cardName(card), ...options,
    className: `ten-card ten-${kind} ${options.className || ""}` });
}

function payment(move) {
  const parts = [];
  if (move.currency) parts.push(plural(move.currency, "currency", "currency"));
  if (move.bust) parts.push(plural(move.bust, "bust token"));
  if (move.cards && move.cards.length) parts.push(move.cards.join(" "));
  return parts.length ? parts.join(" + ") : "nothing";
}

function bidAmount(move) {
  return (move.currency || 0) + 3 * (move.bust || 0);
}

function renderAuction(view, ctx) {
  const auction = view.auction;
  if (!auction) return null;
  const bids = auction.bids.map((bid) => h("li", {},
    `${ctx.name(bid.seat)}: ${bid.amount === null ? "pass" : `${bid.amount} (${payment(bid)})`}`));
  return section("Auction", "ten-auction",
    h("div", { class: "auction-card" }, tenCard(auction.card, { className: "card-lg" }),
      h("p", {}, auction.high_bidder === null ? "No bid yet." :
        `Highest bid ${auction.high_bid} by ${ctx.name(auction.high_bidder)}.`),
      h("p", {}, `Next to bid: ${ctx.name(auction.next)}.`)),
    bids.length ? h("ol", { class: "bids" }, bids) : null);
}

function renderControls(view, legal, ctx) {
  const ui = ctx.ui;
  if (!legal.length) return null;
  const phase = view.phase;
  if (phase === "draw") {
    const labels = { draw: "Draw a card", numbers: "Stop: keep the numbers", currency: "Stop: keep the currency" };
    return actionBar(legal.map((m) => moveButton(ctx, m, labels[m.action === "take" ? m.reward : m.action] || m.action,
      { key: `ten:${m.action}:${m.reward || ""}`, className: m.action === "draw" ? "btn-primary" : "" })));
  }
  if (phase === "auction") {
    const bids = legal.filter((m) => m.action === "bid").sort((a, b) => bidAmount(a) - bidAmount(b) || a.bust - b.bust);
    const pass = legal.find((m) => m.action === "pass");
    const chosen = keepSelection(ui, "bid", (text) => bids.some((m) => JSON.stringify(m) === text)) ||
      (bids[0] ? JSON.stringify(bids[0]) : null);
    const select = bids.length ? h("select", {
      id: "ten-bid", "data-key": "ten:bid-select", disabled: ctx.busy,
      onchange: (event) => { ui.bid = event.target.value; ctx.refresh("ten:bid-select"); },
    }, bids.map((m) => h("option", { value: JSON.stringify(m), selected: JSON.stringify(m) === chosen },
      `${bidAmount(m)}: ${payment(m)}`))) : null;
    return h("div", { class: "ten-bid" },
      select ? h("label", { for: "ten-bid" }, "Your bid") : null, select,
      actionBar(chosen ? moveButton(ctx, JSON.parse(chosen), "Bid", { key: "ten:bid", className: "btn-primary" }) : null,
        pass ? moveButton(ctx, pass, "Pass", { key: "ten:pass" }) : null));
  }
  if (phase === "buy" || phase === "final_buy") {
    const buys = legal.filter((m) => m.action === "buy");
    const pass = legal.find((m) => m.action === "pass");
    const chosen = keepSelection(ui, "market", (card) => buys.some((m) => m.card === card));
    const options = chosen ? buys.filter((m) => m.card === chosen) : [];
    return h("div", { class: "ten-buy" },
      hint(buys.length ? (chosen ? `Pay for ${cardName(chosen)}:` : "Pick a card in the market to buy it, or pass.")
        : "Nothing in the market is within reach: pass."),
      options.length ? actionBar(options.map((m, i) => moveButton(ctx, m, `Pay ${payment(m)}`,
        { key: `ten:pay:${i}`, className: i === 0 ? "btn-primary" : "" }))) : null,
      actionBar(pass ? moveButton(ctx, pass, "Pass (buy nothing)", { key: "ten:pass" }) : null));
  }
  return actionBar(legal.map((m) => moveButton(ctx, m, describeMove(m))));
}

function render(view, legal, ctx) {
  const ui = ctx.ui;
  const buyable = new Set(legal.filter((m) => m.action === "buy").map((m) => m.card));
  const picked = ui.market && buyable.has(ui.market) ? ui.market : null;

  const totals = h("p", { class: "table-facts" },
    h("span", {}, `Draw pile: ${view.deck_count}`),
    // The running total belongs to a turn: a finished game has none.
    view.finished ? null : h("span", {}, `Numbers ${view.tableau_numbers} − currency ${view.tableau_currency} = ${view.running_total}`),
    view.finished ? null : h("span", { class: view.running_total >= 8 ? "warn" : "" }, `bust at 11`),
    view.final_round ? h("span", {}, `Final round: ${view.final_round.done} of ${view.final_round.order.length} done`) : null);

  // A finished game has no turn: its last draws (if any) are in the log.
  const tableau = view.finished ? null : section(`${ctx.name(view.active)}'s draws this turn`, "ten-tableau",
    h("div", { class: "card-row" }, view.tableau.length ? view.tableau.map((c) => tenCard(c))
      : h("span", { class: "muted" }, "No cards yet.")));

  const market = section("Market", "ten-market",
    h("div", { class: "card-row" }, view.market.length ? view.market.map((card, index) => buyable.has(card) && ctx.interactive
      ? tenCard(card, {
        key: `market:${card}`, dataset: { card }, selected: picked === card, disabled: ctx.busy,
        ariaLabel: `Buy ${cardName(card)}`,
        onPick: () => { ui.market = ui.market === card ? null : card; ctx.refresh(ui.market ? "ten:pay:0" : `market:${card}`); },
      })
      : tenCard(card, { key: `market-plain:${index}` })) : h("span", { class: "muted" }, "Empty.")));

  const discard = h("p", { class: "muted ten-discard" }, `Discard pile: ${view.discard.length}` +
    (view.discard.length ? ` (last: ${view.discard.slice(-5).join(" ")})` : ""));

  const seats = h("ul", { class: "seat-strip ten-seats" }, view.seats.map((seat) => h("li", {
    class: ["seat-box", view.to_act.includes(seat.seat) && "is-current", seat.seat === ctx.seat && "is-me"],
  },
  h("span", { class: "seat-name" }, seatLabel(ctx, seat.seat), seat.seat === view.active && !view.finished ? " · active" : ""),
  h("span", { class: "seat-meta" },
    // The symbols alone mean nothing to a newcomer: each counter says what it counts.
    h("span", { class: "token token-currency", title: "currency tokens: they pay for market cards" },
      `● ${seat.currency}`, h("span", { class: "token-label" }, " currency")),
    h("span", { class: "token token-bust", title: "bust tokens: each is worth 3 at the end" },
      `◆ ${seat.bust}`, h("span", { class: "token-label" }, " bust")),
    h("span", {}, plural(seat.cards, "card"))),
  h("span", { class: "mini-hand" }, seat.collection.map((c) => tenCard(c, { className: "card-sm" }))))));

  return [totals, renderAuction(view, ctx), tableau, market, discard, seats,
    ctx.interactive && legal.length ? section("Your move", "controls", renderControls(view, legal, ctx)) : null];
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  switch (event.type) {
    case "GameStarted": return `The game starts with ${event.deck_count ?? event.deck.length} cards in the draw pile.` +
      (event.seed !== undefined ? ` (Shuffled with seed ${event.seed}.)` : "");
    case "CardDrawn": return `${who(event.seat)} drew ${cardName(event.card)}.`;
    case "Busted": return `${who(event.seat)} busted on ${event.cause}.`;
    case "RewardTaken": return event.reward === "numbers"
      ? `${who(event.seat)} kept the numbers${event.cards.length ? ` (${event.cards.join(" ")})` : ""}.`
      : `${who(event.seat)} kept the currency.`;
    case "BidPlaced": return `${who(event.seat)} bid ${event.amount}.`;
    case "BidPassed": return `${who(event.seat)} passed${event.auto ? " (cannot bid)" : ""}.`;
    case "AuctionWon": return `${who(event.seat)} won ${cardName(event.card)} for ${event.amount}.`;
    case "AuctionUnsold": return `Nobody bid: ${cardName(event.card)} is discarded.`;
    case "CardBought": return `${who(event.seat)} bought ${cardName(event.card)} for ${payment(event)}.`;
    case "BuyPassed": return `${who(event.seat)} bought nothing${event.auto ? " (nothing affordable)" : ""}.`;
    case "TurnEnded": return `${who(event.seat)}'s turn ends.`;
    case "GameEnded": return "The draw pile is empty: the game is over.";
    default: return event.type;
  }
}

function describeMove(move) {
  switch (move.action) {
    case "draw": return "Draw a card";
    case "take": return move.reward === "numbers" ? "Stop: keep the numbers" : "Stop: keep the currency";
    case "bid": return `Bid ${bidAmount(move)} (${payment(move)})`;
    case "pass": return "Pass";
    case "buy": return `Buy ${cardName(move.card)} for ${payment(move)}`;
    default: return JSON.stringify(move);
  }
}

function turnText(view) {
  const texts = { draw: "draw or stop", auction: "bid or pass", buy: "buy from the market or pass",
    final_buy: "final round: buy or pass" };
  return texts[view.phase] || null;
}

function resultText(outcome, ctx) {
  const detail = outcome.detail || {};
  const lines = outcome.scores.map((score, seat) =>
    `${ctx.name(seat)} ${score} (runs ${(detail.runs || [])[seat]?.join("/") || "?"})`);
  return `Scores: ${lines.join("; ")}.`;
}

function onKey(event, ctx) {
  if (event.key === "Escape" && ctx.ui.market) {
    const card = ctx.ui.market;
    ctx.ui.market = null;
    ctx.refresh(`market:${card}`);
    return true;
  }
  return false;
}

export default { slug: "ten", title: "Ten", render, describe, describeMove, turnText, resultText, onKey };

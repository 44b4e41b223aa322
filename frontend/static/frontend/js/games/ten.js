// Ten: draw from one shared pile, stop before 11, auctions for wild cards, a market to buy from.
import { h, s } from "../dom.js";
import { formatNumber, gettext, interpolate, ngettext, pgettext } from "../i18n.js";
import {
  actionBar, cardCount, cardFace, drawPile, feltTable, hint, keepSelection, moveButton, seatPod, section, shuffledWith,
} from "./common.js";
import { colourShape, TEN_COLOURS, tenFace } from "./faces.js";
import { bestTotal, cheapestCards } from "./ten-score.js";

function colourName(letter) {
  return { R: pgettext("colour", "red"), B: pgettext("colour", "blue"), O: pgettext("colour", "orange"),
    G: pgettext("colour", "green") }[letter];
}

export function cardName(card) {
  if (card === "W#") return gettext("full wild");
  if (card[0] === "$") return interpolate(gettext("%(value)s currency"), { value: card.slice(1) });
  if (card[0] === "W") return interpolate(gettext("wild %(number)s"), { number: card[1] });
  if (card[1] === "#") return interpolate(gettext("%(colour)s wild"), { colour: colourName(card[0]) });
  return interpolate(gettext("%(colour)s %(number)s"), { colour: colourName(card[0]), number: card[1] });
}

function tenCard(card, { name, ...options } = {}) {
  return cardFace(tenFace(card), name || cardName(card), { title: cardName(card), ...options });
}

function payment(move) {
  const parts = [];
  if (move.currency) {
    parts.push(interpolate(ngettext("%(count)s currency", "%(count)s currency", move.currency), { count: formatNumber(move.currency) }));
  }
  if (move.bust) {
    parts.push(interpolate(ngettext("%(count)s bust token", "%(count)s bust tokens", move.bust), { count: formatNumber(move.bust) }));
  }
  if (move.cards && move.cards.length) parts.push(move.cards.map(cardName).join(", "));
  return parts.length ? parts.join(" + ") : gettext("nothing");
}

/** The legal payments for one card, each with the collection cards that cost the fewest points
 * (or those the player picked), cheapest first: points lost, then the tokens' value spent, then
 * currency (it breaks ties at the end; bust tokens count for nothing there). */
export function payments(buys, collection, payWith) {
  const cheapest = new Map();
  const options = [];
  for (const move of buys) {
    const count = move.cards.length;
    let cards = [];
    let loss = 0;
    if (payWith.length) {
      if (count !== payWith.length) continue;
      cards = payWith.map((index) => collection[index]);
      loss = bestTotal(collection) - bestTotal(collection.filter((_, index) => !payWith.includes(index)));
    } else if (count) {
      if (!cheapest.has(count)) cheapest.set(count, cheapestCards(collection, count));
      ({ cards, loss } = cheapest.get(count));
    }
    options.push({ move: { ...move, cards }, loss, key: [loss, move.currency + 3 * move.bust, move.currency, count] });
  }
  return options.sort((a, b) => {
    const i = a.key.findIndex((value, index) => value !== b.key[index]);
    return i < 0 ? 0 : a.key[i] - b.key[i];
  });
}

/** The player's collection as toggles, to pay with cards of their own choosing. */
function payWithPicker(collection, payWith, ui, ctx) {
  return h("div", { class: "ten-pay-with" },
    hint(gettext("Or pick the cards of your collection to pay with:")),
    h("div", { class: "card-row", role: "group", "aria-label": gettext("Cards to pay with") },
      collection.map((card, index) => tenCard(card, {
        key: `pay-with:${index}`, className: "card-sm", selected: payWith.includes(index), disabled: ctx.busy,
        dataset: { payWith: card },
        onPick: () => {
          const picked = payWith.includes(index) ? payWith.filter((i) => i !== index) : [...payWith, index].sort((a, b) => a - b);
          ui.payWith = picked;
          ctx.refresh(`pay-with:${index}`);
        },
      }))));
}

function bidAmount(move) {
  return (move.currency || 0) + 3 * (move.bust || 0);
}

function renderAuction(view, ctx) {
  const auction = view.auction;
  if (!auction) return null;
  const bids = auction.bids.map((bid) => h("li", {}, bid.amount === null
    ? interpolate(gettext("%(name)s: pass"), { name: ctx.name(bid.seat) })
    : interpolate(gettext("%(name)s: %(amount)s (%(payment)s)"),
      { name: ctx.name(bid.seat), amount: formatNumber(bid.amount), payment: payment(bid) })));
  return section(gettext("Auction"), "ten-auction",
    h("div", { class: "auction-card" }, tenCard(auction.card, { className: "card-lg" }),
      h("p", {}, auction.high_bidder === null ? gettext("No bid yet.") :
        interpolate(gettext("Highest bid %(amount)s by %(name)s."),
          { amount: formatNumber(auction.high_bid), name: ctx.name(auction.high_bidder) })),
      h("p", {}, interpolate(gettext("Next to bid: %(name)s."), { name: ctx.name(auction.next) }))),
    bids.length ? h("ol", { class: "bids" }, bids) : null);
}

function renderControls(view, legal, ctx) {
  const ui = ctx.ui;
  if (!legal.length) return null;
  const phase = view.phase;
  if (phase === "draw") {
    const labels = { draw: gettext("Draw a card"), numbers: gettext("Stop: keep the numbers"),
      currency: gettext("Stop: keep the currency") };
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
      `${formatNumber(bidAmount(m))}: ${payment(m)}`))) : null;
    return h("div", { class: "ten-bid" },
      select ? h("label", { for: "ten-bid" }, gettext("Your bid")) : null, select,
      actionBar(chosen ? moveButton(ctx, JSON.parse(chosen), pgettext("verb", "Bid"), { key: "ten:bid", className: "btn-primary" })
        : null,
      pass ? moveButton(ctx, pass, pgettext("verb", "Pass"), { key: "ten:pass" }) : null));
  }
  if (phase === "buy" || phase === "final_buy") {
    const buys = legal.filter((m) => m.action === "buy");
    const pass = legal.find((m) => m.action === "pass");
    const chosen = keepSelection(ui, "market", (card) => buys.some((m) => m.card === card));
    const collection = view.seats[ctx.seat].collection;
    const payWith = chosen ? (ui.payWith || []).filter((index) => index < collection.length) : [];
    const options = chosen ? payments(buys.filter((m) => m.card === chosen), collection, payWith) : [];
    const usesCards = chosen && buys.some((m) => m.card === chosen && m.cards.length);
    return h("div", { class: "ten-buy" },
      hint(buys.length ? (chosen ? interpolate(gettext("Pay for %(card)s (the payment that costs you the fewest points first):"),
        { card: cardName(chosen) })
        : gettext("Pick a card in the market to buy it, or pass."))
        : gettext("Nothing in the market is within reach: pass.")),
      options.length ? actionBar(options.map(({ move, loss }, i) => {
        const button = moveButton(ctx, move, loss
          ? interpolate(ngettext("Pay %(payment)s (−%(points)s point)", "Pay %(payment)s (−%(points)s points)", loss),
            { payment: payment(move), points: formatNumber(loss) })
          : interpolate(gettext("Pay %(payment)s"), { payment: payment(move) }),
        { key: `ten:pay:${i}`, className: i === 0 ? "btn-primary" : "" });
        button.dataset.payment = `${move.bust}:${move.currency}:${move.cards.length}`;
        return button;
      })) : chosen && payWith.length ? hint(gettext("No payment uses exactly these cards: pick more or fewer.")) : null,
      usesCards ? payWithPicker(collection, payWith, ui, ctx) : null,
      actionBar(pass ? moveButton(ctx, pass, gettext("Pass (buy nothing)"), { key: "ten:pass" }) : null));
  }
  return actionBar(legal.map((m) => moveButton(ctx, m, describeMove(m))));
}

function render(view, legal, ctx) {
  const ui = ctx.ui;
  const buyable = new Set(legal.filter((m) => m.action === "buy").map((m) => m.card));
  const picked = ui.market && buyable.has(ui.market) ? ui.market : null;

  const totals = h("p", { class: "table-facts" },
    drawPile(interpolate(gettext("Draw pile: %(count)s"), { count: formatNumber(view.deck_count) })),
    // The running total belongs to a turn: a finished game has none.
    view.finished ? null : h("span", {}, interpolate(gettext("Numbers %(numbers)s − currency %(currency)s = %(total)s"), {
      numbers: formatNumber(view.tableau_numbers), currency: formatNumber(view.tableau_currency),
      total: formatNumber(view.running_total) })),
    view.finished ? null : h("span", { class: view.running_total >= 8 ? "warn" : "" },
      interpolate(gettext("bust at %(limit)s"), { limit: formatNumber(11) })),
    view.final_round ? h("span", {}, interpolate(gettext("Final round: %(done)s of %(count)s done"),
      { done: formatNumber(view.final_round.done), count: formatNumber(view.final_round.order.length) })) : null);

  // A finished game has no turn: its last draws (if any) are in the log.
  const tableau = view.finished ? null : section(interpolate(gettext("%(name)s's draws this turn"), { name: ctx.name(view.active) }),
    "ten-tableau", h("div", { class: "card-row" }, view.tableau.length ? view.tableau.map((c) => tenCard(c))
      : h("span", { class: "muted" }, gettext("No cards yet."))));

  const market = section(gettext("Market"), "ten-market",
    h("div", { class: "card-row" }, view.market.length ? view.market.map((card, index) => buyable.has(card) && ctx.interactive
      ? tenCard(card, {
        key: `market:${card}`, dataset: { card }, selected: picked === card, disabled: ctx.busy,
        name: interpolate(gettext("Buy %(card)s"), { card: cardName(card) }),
        onPick: () => { ui.market = ui.market === card ? null : card; ui.payWith = []; ctx.refresh(ui.market ? "ten:pay:0" : `market:${card}`); },
      })
      : tenCard(card, { key: `market-plain:${index}` })) : h("span", { class: "muted" }, gettext("Empty."))));

  const discard = h("p", { class: "muted ten-discard" },
    interpolate(gettext("Discard pile: %(count)s"), { count: formatNumber(view.discard.length) }),
    // the last five, the newest last
    view.discard.length ? h("span", { class: "card-row" }, view.discard.slice(-5).map((c) => tenCard(c, { className: "card-sm" })))
      : null);

  const pods = view.seats.map((seat) => seatPod(ctx, seat.seat, {
    current: view.to_act.includes(seat.seat),
    note: seat.seat === view.active && !view.finished ? ` · ${gettext("active")}` : "",
    extras: [h("span", { class: "seat-meta" },
      // The symbols alone mean nothing to a newcomer: each counter says what it counts.
      h("span", { class: "token token-currency", title: gettext("currency tokens: they pay for market cards") },
        `● ${formatNumber(seat.currency)}`, h("span", { class: "token-label" }, " ", gettext("currency"))),
      h("span", { class: "token token-bust", title: gettext("bust tokens: each pays 3 in a bid or a purchase") },
        `◆ ${formatNumber(seat.bust)}`, h("span", { class: "token-label" }, " ", gettext("bust"))),
      h("span", {}, cardCount(seat.cards))),
    seat.collection.length ? h("span", { class: "mini-hand ten-collection", role: "group",
      "aria-label": interpolate(gettext("%(name)s's collection"), { name: ctx.name(seat.seat) }) },
    seat.collection.map((c) => tenCard(c, { className: "card-sm" }))) : null],
  }));

  // The decision sits beside what it is about, above the fold at 1280 px: a bid right under the
  // auction, a draw or a purchase under the tableau and the market (it was below every seat).
  const controls = ctx.interactive && legal.length ? section(gettext("Your move"), "controls", renderControls(view, legal, ctx)) : null;
  const centre = view.phase === "auction" ? [totals, renderAuction(view, ctx), controls, market, tableau, discard]
    : [totals, renderAuction(view, ctx), tableau, market, controls, discard];
  return feltTable(ctx, pods, centre, null, "ten-seats");
}

function describe(event, ctx) {
  const name = ctx.name(event.seat);
  switch (event.type) {
    case "GameStarted": {
      const count = event.deck_count ?? event.deck.length;
      const started = interpolate(ngettext("The game starts with %(count)s card in the draw pile.",
        "The game starts with %(count)s cards in the draw pile.", count), { count: formatNumber(count) });
      return event.seed === undefined ? started : `${started} ${shuffledWith(event.seed)}`;
    }
    case "CardDrawn": return interpolate(gettext("%(name)s drew %(card)s."), { name, card: cardName(event.card) });
    case "Busted": return interpolate(event.cause === "numbers" ? gettext("%(name)s busted on numbers.")
      : gettext("%(name)s busted on currency."), { name });
    case "RewardTaken": return event.reward === "numbers"
      ? (event.cards.length ? interpolate(gettext("%(name)s kept the numbers (%(cards)s)."),
        { name, cards: event.cards.map(cardName).join(", ") })
        : interpolate(gettext("%(name)s kept the numbers."), { name }))
      : interpolate(gettext("%(name)s kept the currency."), { name });
    case "BidPlaced": return interpolate(gettext("%(name)s bid %(amount)s."), { name, amount: formatNumber(event.amount) });
    case "BidPassed": return interpolate(event.auto ? gettext("%(name)s passed (cannot bid).") : gettext("%(name)s passed."),
      { name });
    case "AuctionWon": return interpolate(gettext("%(name)s won %(card)s for %(amount)s."),
      { name, card: cardName(event.card), amount: formatNumber(event.amount) });
    case "AuctionUnsold": return interpolate(gettext("Nobody bid: %(card)s is discarded."), { card: cardName(event.card) });
    case "CardBought": return interpolate(gettext("%(name)s bought %(card)s for %(payment)s."),
      { name, card: cardName(event.card), payment: payment(event) });
    case "BuyPassed": return interpolate(event.auto ? gettext("%(name)s bought nothing (nothing affordable).")
      : gettext("%(name)s bought nothing."), { name });
    case "TurnEnded": return interpolate(gettext("%(name)s's turn ends."), { name });
    case "GameEnded": return gettext("The draw pile is empty: the game is over.");
    default: return event.type;
  }
}

function describeMove(move) {
  switch (move.action) {
    case "draw": return gettext("Draw a card");
    case "take": return move.reward === "numbers" ? gettext("Stop: keep the numbers") : gettext("Stop: keep the currency");
    case "bid": return interpolate(gettext("Bid %(amount)s (%(payment)s)"), { amount: formatNumber(bidAmount(move)), payment: payment(move) });
    case "pass": return pgettext("verb", "Pass");
    case "buy": return interpolate(gettext("Buy %(card)s for %(payment)s"), { card: cardName(move.card), payment: payment(move) });
    default: return JSON.stringify(move);
  }
}

function turnText(view) {
  const texts = { draw: gettext("draw or stop"), auction: gettext("bid or pass"), buy: gettext("buy from the market or pass"),
    final_buy: gettext("final round: buy or pass") };
  return texts[view.phase] || null;
}

function resultText(outcome, ctx) {
  const detail = outcome.detail || {};
  const lines = outcome.scores.map((score, seat) => interpolate(gettext("%(name)s %(score)s (runs %(runs)s)"), {
    name: ctx.name(seat), score: formatNumber(score), runs: (detail.runs || [])[seat]?.join("/") || "?" }));
  return interpolate(gettext("Scores: %(scores)s."), { scores: lines.join("; ") });
}

/** A seat's score drawn as its four runs (R13): a bar of its colour's shape per card of the run,
 * in colour order red, blue, orange, green; a complete run scores 10. */
function scoreParts(outcome, seat) {
  const runs = ((outcome.detail || {}).runs || [])[seat];
  if (!runs) return null;
  const letters = ["R", "B", "O", "G"];
  const words = runs.map((length, i) => interpolate(gettext("%(colour)s run %(length)s"),
    { colour: colourName(letters[i]), length: formatNumber(length) })).join(", ");
  return h("span", { class: "ten-runs" }, runs.map((length, i) => h("span", { class: "ten-run", "aria-hidden": "true" },
    s("svg", { class: "run-bar", viewBox: `0 0 ${9 * 8} 8`, width: 9 * 8, height: 8, "aria-hidden": "true", focusable: "false" },
      Array.from({ length: 9 }, (_, n) => n < length ? colourShape(letters[i], n * 8 + 4, 4, 3.2, TEN_COLOURS[letters[i]].ink)
        : s("circle", { cx: n * 8 + 4, cy: 4, r: 1, fill: "#b8c2bd" }))),
    h("span", { class: "run-length" }, length >= 9 ? formatNumber(10) : formatNumber(length)))),
  h("span", { class: "visually-hidden" }, words));
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

export default {
  slug: "ten", get title() { return pgettext("game title", "Ten"); }, render, describe, describeMove, turnText, resultText, onKey,
  scoreParts,
};


// Split: half-cards, matches of a top and a bottom half, upgrades, bonuses, three rounds.
import { h } from "../dom.js";
import { formatNumber, gettext, interpolate, pgettext } from "../i18n.js";
import {
  actionBar, arrangedHand, cardFace, drawPile, endMotion, feltTable, hint, keepSelection, moveButton, seatPod, section, shuffledWith,
  spokenAs,
} from "./common.js";
import { splitFace } from "./faces.js";

// The suit's symbol and colour (two suits of one colour make a strong match); its name comes from suitName.
const SUITS = { S: ["♠", "black"], H: ["♥", "red"], D: ["♦", "red"], C: ["♣", "black"] };

function suitName(suit) {
  return { S: gettext("spades"), H: gettext("hearts"), D: gettext("diamonds"), C: gettext("clubs") }[suit];
}

function rankName(rank) {
  return { A: gettext("ace"), T: "10", J: gettext("jack"), Q: gettext("queen"), K: gettext("king") }[rank] || rank;
}

function rankText(rank) {
  return rank === "T" ? "10" : rank;
}

/** perfect, strong, weak: a match's kind in words. */
function kindName(kind) {
  return { perfect: pgettext("match kind", "perfect"), strong: pgettext("match kind", "strong"),
    weak: pgettext("match kind", "weak") }[kind] || kind;
}

// The hand's natural orders (hand-order.js): by rank, or by suit; a top half before its bottom.
const RANKS = "A23456789TJQK";
const SUIT_ORDER = "SHDC";

function handSorts() {
  const rank = (card) => RANKS.indexOf(card[0]);
  const suit = (card) => SUIT_ORDER.indexOf(card[1]);
  const half = (card) => (card[2] === "t" ? 0 : 1);
  return [
    { name: "rank", label: gettext("By rank"), key: (card) => [rank(card), suit(card), half(card)] },
    { name: "suit", label: gettext("By suit"), key: (card) => [suit(card), rank(card), half(card)] },
  ];
}

export function cardName(card) {
  const [rank, suit, half] = card;
  return interpolate(half === "t" ? gettext("top half of the %(rank)s of %(suit)s") : gettext("bottom half of the %(rank)s of %(suit)s"),
    { rank: rankName(rank), suit: suitName(suit) });
}

function shortName(card) {
  const face = `${rankText(card[0])}${SUITS[card[1]][0]}`;
  return interpolate(card[2] === "t" ? pgettext("half card", "%(card)s top") : pgettext("half card", "%(card)s bottom"), { card: face });
}

function splitCard(card, options = {}) {
  return cardFace(splitFace(card), cardName(card), { title: cardName(card), ...options,
    className: `split-card split-${card[2] === "t" ? "top" : "bottom"} ${options.className || ""}` });
}

function kindOf(a, b) {
  if (a[1] === b[1]) return "perfect";
  return SUITS[a[1]][1] === SUITS[b[1]][1] ? "strong" : "weak";
}

function movesFor(card, legal) {
  return legal.filter((m) => (m.action === "match" && m.cards.includes(card))
    || (m.action === "upgrade" && m.card === card) || (m.action === "discard" && m.card === card));
}

function matchBox(match, ctx, upgrade) {
  const body = [
    h("span", { class: "match-cards" }, splitCard(match.top, { className: "card-sm" }), splitCard(match.bottom, { className: "card-sm" })),
    // The kind and what it covers wrap as one note when a narrow seat has no room beside the cards.
    h("span", { class: "match-note" }, h("span", { class: `kind kind-${match.kind}` }, kindName(match.kind)),
      match.covered.length ? h("span", { class: "covered" },
        interpolate(gettext("+%(count)s covered"), { count: formatNumber(match.covered.length) })) : null),
  ];
  const values = { id: match.id, top: shortName(match.top), bottom: shortName(match.bottom), kind: kindName(match.kind) };
  if (upgrade) {
    return h("button", {
      type: "button", class: "match match-target", "data-move": JSON.stringify(upgrade), "data-key": `match:${match.id}`,
      "aria-label": interpolate(gettext("Upgrade match %(id)s (%(top)s and %(bottom)s, %(kind)s) with %(card)s"),
        { ...values, card: shortName(upgrade.card) }),
      disabled: ctx.busy, onclick: () => { ctx.ui.card = null; ctx.send(upgrade); },
    }, ...body, h("span", { class: "pile-cta" }, gettext("upgrade")));
  }
  return h("span", { class: "match", "aria-label": interpolate(gettext("match %(id)s: %(top)s and %(bottom)s, %(kind)s"), values) },
    ...body);
}

// The score pads: open at the end of the game, when they are the result, and filled box by box
// before the reader's eyes (not when the reader asked for less motion).
function padTable(view, ctx) {
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const negative = (round) => h("th", { scope: "col" }, interpolate(gettext("−R%(round)s"), { round }));
  const filling = view.finished && ctx.freshEnd && endMotion();
  let order = 0;
  const box = (content) => {
    const cell = h("td", { class: content ? "pad-filled" : "" }, content);
    if (filling && content) cell.style.setProperty("--pad-order", String(order++));
    return cell;
  };
  return h("details", { class: ["pad", view.finished && "pad-final", filling && "pad-filling"], open: view.finished },
    h("summary", {}, view.finished ? gettext("Final score pads") : gettext("Score pads")),
    // A region that scrolls sideways on a phone: reachable and scrolled by the keyboard too.
    h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": gettext("Score pads") }, h("table", { class: "data" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, gettext("Player")), ranks.map((r) => h("th", { scope: "col" }, rankText(r))),
        negative(1), negative(2), negative(3), h("th", { scope: "col" }, gettext("Total")))),
      h("tbody", {}, view.seats.map((seat) => h("tr", {}, h("th", { scope: "row" }, ctx.name(seat.seat)),
        ranks.map((r) => box(seat.match_rows[r] || "")),
        seat.negative_rows.map((n) => box(n ? formatNumber(n) : "")),
        h("td", { class: "pad-total" }, formatNumber(seat.score))))))));
}

function render(view, legal, ctx) {
  const ui = ctx.ui;
  const selected = keepSelection(ui, "card", (card) => movesFor(card, legal).length > 0);
  const cardMoves = selected ? movesFor(selected, legal) : [];
  const upgrades = new Map(cardMoves.filter((m) => m.action === "upgrade").map((m) => [m.match, m]));
  const takes = new Map(legal.filter((m) => m.action === "take").map((m) => [m.card, m]));

  const facts = h("p", { class: "table-facts" },
    h("span", {}, interpolate(gettext("Round %(round)s of %(count)s"), { round: formatNumber(view.round), count: formatNumber(3) })),
    h("span", {}, interpolate(gettext("Dealer %(name)s"), { name: ctx.name(view.dealer) })),
    drawPile(interpolate(gettext("Draw pile %(count)s"), { count: formatNumber(view.draw_pile) })),
    view.must_use ? h("span", { class: "warn" }, interpolate(gettext("Must use %(card)s"), { card: shortName(view.must_use) })) : null);

  const row = section(gettext("Discard row (oldest first)"), "split-row",
    h("div", { class: "card-row" }, view.discard_row.length ? view.discard_row.map((card, index) => {
      const take = takes.get(card);
      if (take && ctx.interactive) {
        return h("button", {
          type: "button", class: "btn btn-card", "data-move": JSON.stringify(take), "data-key": `take:${card}`,
          disabled: ctx.busy, onclick: () => ctx.send(take),
        }, ...spokenAs([splitCard(card, { className: "card-sm" }), " ", gettext("take")],
          interpolate(gettext("Take %(card)s and every card after it"), { card: cardName(card) })));
      }
      return splitCard(card, { key: `row:${index}` });
    }) : h("span", { class: "muted" }, pgettext("pile", "empty"))));

  const pods = view.seats.map((seat) => {
    const hand = ctx.hands ? ctx.hands[seat.seat] : null;
    const owned = view.matches.filter((m) => m.owner === seat.seat);
    return seatPod(ctx, seat.seat, {
      count: seat.hand_size, current: view.to_act.includes(seat.seat) && !view.finished,
      note: seat.seat === view.dealer ? ` · ${gettext("dealer")}` : "",
      hand: hand && seat.seat !== ctx.seat ? hand.map((c) => splitCard(c, { className: "card-sm" })) : null,
      extras: [h("span", { class: "seat-meta" },
        h("span", { title: gettext("match points minus negative points") }, interpolate(gettext("score %(score)s (%(plus)s − %(minus)s)"),
          { score: formatNumber(seat.score), plus: formatNumber(seat.match_points), minus: formatNumber(seat.negative_points) }))),
      owned.length ? h("span", { class: "matches" }, owned.map((m) => matchBox(m, ctx, upgrades.get(m.id)))) : null],
    });
  });

  let handPanel = null;
  // A finished table's empty hand (the player went out) is no panel: an empty box reads as a fault.
  if (view.hand !== null && view.hand !== undefined && !(view.finished && !view.hand.length)) {
    const cards = view.hand.map((card) => {
      const usable = ctx.interactive && movesFor(card, legal).length > 0;
      return splitCard(card, {
        key: `card:${card}`, dataset: { card }, selected: selected === card,
        className: view.must_use === card ? "must-use" : "",
        disabled: !usable || ctx.busy,
        onPick: () => {
          ui.card = ui.card === card ? null : card;
          const first = ui.card ? movesFor(card, legal)[0] : null;
          ctx.refresh(first ? `split:${JSON.stringify(first)}` : `card:${card}`);
        },
      });
    });
    const partnerButtons = cardMoves.filter((m) => m.action === "match").map((m) => {
      const other = m.cards[0] === selected ? m.cards[1] : m.cards[0];
      return moveButton(ctx, m, interpolate(gettext("Match with %(card)s (%(kind)s)"),
        { card: shortName(other), kind: kindName(kindOf(m.cards[0], m.cards[1])) }),
        { key: `split:${JSON.stringify(m)}`, className: "btn-primary" });
    });
    const discard = cardMoves.find((m) => m.action === "discard");
    const general = [];
    for (const m of legal) {
      if (m.action === "draw") general.push(moveButton(ctx, m, gettext("Draw from the pile"), { key: "split:draw", className: "btn-primary" }));
      if (m.action === "penalize") {
        general.push(moveButton(ctx, m, interpolate(gettext("Penalize %(name)s"), { name: ctx.name(m.seat) }), { key: `split:pen:${m.seat}` }));
      }
      if (m.action === "bonus_draw") general.push(moveButton(ctx, m, gettext("Draw a bonus card"), { key: "split:bonus", className: "btn-primary" }));
      if (m.action === "trade") {
        const give = view.matches.find((x) => x.id === m.give);
        const take = view.matches.find((x) => x.id === m.take);
        general.push(moveButton(ctx, m, interpolate(gettext("Trade your %(give)ss for %(name)s's %(take)ss"),
          { give: rankText(give.top[0]), name: ctx.name(take.owner), take: rankText(take.top[0]) }),
        { key: `split:trade:${m.give}:${m.take}` }));
      }
      if (m.action === "skip") general.push(moveButton(ctx, m, gettext("Skip the bonus"), { key: "split:skip" }));
      if (m.action === "done") general.push(moveButton(ctx, m, gettext("Done"), { key: "split:done" }));
    }
    const phaseHints = {
      draw: gettext("Draw from the pile, or take a playable card from the discard row."),
      play: view.must_use ? interpolate(gettext("Use %(card)s first: pick it to match or upgrade."), { card: shortName(view.must_use) })
        : gettext("Pick a card to match, upgrade a match on the table, or discard it (ends your turn)."),
      perfect_bonus: gettext("Perfect match! Give another player a penalty box."),
      strong_bonus: gettext("Strong match: you may draw a bonus card."),
      weak_bonus: gettext("Weak match: you may trade one of your matches for another player's of the same kind."),
      last_matches: gettext("Someone went out on their first turn: lay any matches you can, then say done."),
    };
    handPanel = section(ctx.handTitle || gettext("Your hand"), legal.length ? "hand-panel" : "hand-panel waiting",
      arrangedHand(ctx, view.hand, cards, handSorts()),
      ctx.interactive && legal.length ? hint(selected
        ? interpolate(gettext("%(card)s: choose what to do with it (Esc to cancel)."), { card: shortName(selected) })
        : phaseHints[view.phase]) : null,
      partnerButtons.length || discard ? actionBar(partnerButtons,
        discard ? moveButton(ctx, discard, interpolate(gettext("Discard %(card)s and end your turn"), { card: shortName(selected) }),
          { key: `split:${JSON.stringify(discard)}` }) : null) : null,
      upgrades.size ? hint(gettext("Or pick a highlighted match above to upgrade it.")) : null,
      general.length ? actionBar(general) : null);
  }
  return [feltTable(ctx, pods, [facts, row], handPanel, "split-seats"), padTable(view, ctx)];
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  const name = who(event.seat);
  switch (event.type) {
    case "GameStarted": {
      const started = interpolate(gettext("Round 1 starts; %(name)s deals."), { name: who(event.dealer ?? event.players - 1) });
      return event.seed === undefined ? started : `${started} ${shuffledWith(event.seed)}`;
    }
    case "RoundStarted": return interpolate(gettext("Round %(round)s starts; %(name)s deals."),
      { round: formatNumber(event.round), name: who(event.dealer) });
    case "CardDrawn": return event.card ? interpolate(gettext("%(name)s drew %(card)s."), { name, card: shortName(event.card) })
      : interpolate(gettext("%(name)s drew a card."), { name });
    case "BonusCardDrawn": return event.card
      ? interpolate(gettext("%(name)s drew a bonus card: %(card)s."), { name, card: shortName(event.card) })
      : interpolate(gettext("%(name)s drew a bonus card."), { name });
    case "CardsTaken": return interpolate(gettext("%(name)s took %(cards)s from the row."),
      { name, cards: event.cards.map(shortName).join(", ") });
    case "MatchMade": return interpolate(gettext("%(name)s made a %(kind)s match of %(rank)ss."),
      { name, kind: kindName(event.kind), rank: rankText(event.top[0]) });
    case "MatchUpgraded": return interpolate(event.previous_owner === event.seat
      ? gettext("%(name)s upgraded their %(rank)ss to %(kind)s.") : gettext("%(name)s upgraded %(owner)s's %(rank)ss to %(kind)s."),
    { name, owner: who(event.previous_owner), rank: rankText(event.card[0]), kind: kindName(event.kind) });
    case "MatchesTraded": return interpolate(gettext("%(name)s traded matches with %(other)s."), { name, other: who(event.other) });
    case "PlayerPenalized": return interpolate(gettext("%(name)s penalized %(other)s."), { name, other: who(event.target) });
    case "BonusSkipped": return interpolate(event.automatic ? gettext("%(name)s skipped the %(kind)s bonus (no trade possible).")
      : gettext("%(name)s skipped the %(kind)s bonus."), { name, kind: kindName(event.bonus) });
    case "CardDiscarded": return interpolate(gettext("%(name)s discarded %(card)s."), { name, card: shortName(event.card) });
    case "LastMatchesDone": return interpolate(event.automatic ? gettext("%(name)s is done (no match).") : gettext("%(name)s is done."),
      { name });
    case "RoundEnded": return interpolate(event.reason === "went_out" ? gettext("Round %(round)s ends: %(name)s went out.")
      : gettext("Round %(round)s ends: %(name)s drew the last card."), { round: formatNumber(event.round), name: who(event.ender) });
    case "GameEnded": return interpolate(gettext("The game is over. Scores: %(scores)s."),
      { scores: event.scores.map((s, seat) => `${who(seat)} ${formatNumber(s)}`).join(", ") });
    default: return event.type;
  }
}

function describeMove(move, ctx) {
  switch (move.action) {
    case "draw": return gettext("Draw from the pile");
    case "take": return interpolate(gettext("Take %(card)s from the row"), { card: shortName(move.card) });
    case "match": return interpolate(gettext("Match %(card)s with %(other)s"),
      { card: shortName(move.cards[0]), other: shortName(move.cards[1]) });
    case "upgrade": return interpolate(gettext("Upgrade match %(id)s with %(card)s"), { id: move.match, card: shortName(move.card) });
    case "discard": return interpolate(gettext("Discard %(card)s"), { card: shortName(move.card) });
    case "penalize": return interpolate(gettext("Penalize %(name)s"), { name: ctx.name(move.seat) });
    case "bonus_draw": return gettext("Draw a bonus card");
    case "trade": return interpolate(gettext("Trade match %(give)s for match %(take)s"), { give: move.give, take: move.take });
    case "skip": return gettext("Skip the bonus");
    case "done": return gettext("Done");
    default: return JSON.stringify(move);
  }
}

function turnText(view) {
  const texts = { draw: gettext("draw or take from the row"), play: gettext("match, upgrade, then discard"),
    perfect_bonus: gettext("penalize a player"), strong_bonus: gettext("draw a bonus card or skip"),
    weak_bonus: gettext("trade a match or skip"), last_matches: gettext("lay last matches") };
  return texts[view.phase] || null;
}

function resultText(outcome, ctx) {
  const detail = outcome.detail || {};
  return interpolate(gettext("Final pads: %(scores)s."), { scores: outcome.scores.map((score, seat) =>
    `${ctx.name(seat)} ${formatNumber(score)} (${formatNumber((detail.match_points || [])[seat])} − ${
      formatNumber((detail.negative_points || [])[seat])})`).join("; ") });
}

/** A seat's pad total as its two parts: the match points less the negative boxes. */
function scoreParts(outcome, seat) {
  const detail = outcome.detail || {};
  if (!detail.match_points) return null;
  const values = { plus: formatNumber(detail.match_points[seat]), minus: formatNumber(detail.negative_points[seat]) };
  return h("span", { class: "split-parts" }, h("span", { "aria-hidden": "true" }, `${values.plus} − ${values.minus}`),
    h("span", { class: "visually-hidden" }, interpolate(gettext("%(plus)s match points − %(minus)s negative"), values)));
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
  slug: "split", get title() { return pgettext("game title", "Split"); }, render, describe, describeMove, turnText, resultText,
  onKey, scoreParts,
};


// Split: half-cards, matches of a top and a bottom half, upgrades, bonuses, three rounds.
import { h, plural } from "../dom.js";
import { actionBar, cardFace, hint, keepSelection, moveButton, section, seatLabel } from "./common.js";

const SUITS = { S: ["♠", "spades", "black"], H: ["♥", "hearts", "red"], D: ["♦", "diamonds", "red"], C: ["♣", "clubs", "black"] };
const RANKS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

function rankText(rank) {
  return rank === "T" ? "10" : rank;
}

export function cardName(card) {
  const [rank, suit, half] = card;
  return `${half === "t" ? "top" : "bottom"} half of the ${RANKS[rank] || rank} of ${SUITS[suit][1]}`;
}

function shortName(card) {
  return `${rankText(card[0])}${SUITS[card[1]][0]} ${card[2] === "t" ? "top" : "bottom"}`;
}

function splitCard(card, options = {}) {
  const [rank, suit, half] = card;
  const label = [h("span", { class: "half-mark", "aria-hidden": "true" }, half === "t" ? "▀" : "▄"),
    `${rankText(rank)}${SUITS[suit][0]}`];
  return cardFace(label, { ariaLabel: cardName(card), title: cardName(card), ...options,
    className: `split-card split-${SUITS[suit][2]} split-${half === "t" ? "top" : "bottom"} ${options.className || ""}` });
}

function kindOf(a, b) {
  if (a[1] === b[1]) return "perfect";
  return SUITS[a[1]][2] === SUITS[b[1]][2] ? "strong" : "weak";
}

function movesFor(card, legal) {
  return legal.filter((m) => (m.action === "match" && m.cards.includes(card))
    || (m.action === "upgrade" && m.card === card) || (m.action === "discard" && m.card === card));
}

function matchBox(match, ctx, upgrade) {
  const body = [
    h("span", { class: "match-cards" }, splitCard(match.top, { className: "card-sm" }), splitCard(match.bottom, { className: "card-sm" })),
    // The kind and what it covers wrap as one note when a narrow seat has no room beside the cards.
    h("span", { class: "match-note" }, h("span", { class: `kind kind-${match.kind}` }, match.kind),
      match.covered.length ? h("span", { class: "covered" }, `+${match.covered.length} covered`) : null),
  ];
  if (upgrade) {
    return h("button", {
      type: "button", class: "match match-target", "data-move": JSON.stringify(upgrade), "data-key": `match:${match.id}`,
      "aria-label": `Upgrade match ${match.id} (${shortName(match.top)} and ${shortName(match.bottom)}, ${match.kind}) with ${shortName(upgrade.card)}`,
      disabled: ctx.busy, onclick: () => { ctx.ui.card = null; ctx.send(upgrade); },
    }, ...body, h("span", { class: "pile-cta" }, "upgrade"));
  }
  return h("span", { class: "match", "aria-label": `match ${match.id}: ${shortName(match.top)} and ${shortName(match.bottom)}, ${match.kind}` }, ...body);
}

function padTable(seats, ctx) {
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  return h("details", { class: "pad" }, h("summary", {}, "Score pads"),
    h("div", { class: "table-scroll" }, h("table", { class: "data" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), ranks.map((r) => h("th", { scope: "col" }, rankText(r))),
        h("th", { scope: "col" }, "−R1"), h("th", { scope: "col" }, "−R2"), h("th", { scope: "col" }, "−R3"), h("th", { scope: "col" }, "Total"))),
      h("tbody", {}, seats.map((seat) => h("tr", {}, h("th", { scope: "row" }, ctx.name(seat.seat)),
        ranks.map((r) => h("td", {}, seat.match_rows[r] || "")),
        seat.negative_rows.map((n) => h("td", {}, n || "")), h("td", {}, String(seat.score))))))));
}

function render(view, legal, ctx) {
  const ui = ctx.ui;
  const selected = keepSelection(ui, "card", (card) => movesFor(card, legal).length > 0);
  const cardMoves = selected ? movesFor(selected, legal) : [];
  const upgrades = new Map(cardMoves.filter((m) => m.action === "upgrade").map((m) => [m.match, m]));
  const takes = new Map(legal.filter((m) => m.action === "take").map((m) => [m.card, m]));

  const facts = h("p", { class: "table-facts" },
    h("span", {}, `Round ${view.round} of 3`),
    h("span", {}, `Dealer ${ctx.name(view.dealer)}`),
    h("span", {}, `Draw pile ${view.draw_pile}`),
    view.must_use ? h("span", { class: "warn" }, `Must use ${shortName(view.must_use)}`) : null);

  const row = section("Discard row (oldest first)", "split-row",
    h("div", { class: "card-row" }, view.discard_row.length ? view.discard_row.map((card, index) => {
      const take = takes.get(card);
      if (take && ctx.interactive) {
        return h("button", {
          type: "button", class: "btn btn-card", "data-move": JSON.stringify(take), "data-key": `take:${card}`,
          disabled: ctx.busy, "aria-label": `Take ${cardName(card)} and every card after it`,
          onclick: () => ctx.send(take),
        }, splitCard(card, { className: "card-sm" }), " take");
      }
      return splitCard(card, { key: `row:${index}` });
    }) : h("span", { class: "muted" }, "empty")));

  const seats = h("ul", { class: "seat-strip split-seats" }, view.seats.map((seat) => {
    const hand = ctx.hands ? ctx.hands[seat.seat] : null;
    const owned = view.matches.filter((m) => m.owner === seat.seat);
    return h("li", { class: ["seat-box", view.current === seat.seat && "is-current", seat.seat === ctx.seat && "is-me"] },
      h("span", { class: "seat-name" }, seatLabel(ctx, seat.seat), seat.seat === view.dealer ? " · dealer" : ""),
      h("span", { class: "seat-meta" }, h("span", {}, plural(seat.hand_size, "card")),
        h("span", { title: "match points minus negative points" }, `score ${seat.score} (${seat.match_points} − ${seat.negative_points})`)),
      owned.length ? h("span", { class: "matches" }, owned.map((m) => matchBox(m, ctx, upgrades.get(m.id)))) : null,
      hand ? h("span", { class: "mini-hand" }, hand.map((c) => splitCard(c, { className: "card-sm" }))) : null);
  }));

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
      return moveButton(ctx, m, `Match with ${shortName(other)} (${kindOf(m.cards[0], m.cards[1])})`,
        { key: `split:${JSON.stringify(m)}`, className: "btn-primary" });
    });
    const discard = cardMoves.find((m) => m.action === "discard");
    const general = [];
    for (const m of legal) {
      if (m.action === "draw") general.push(moveButton(ctx, m, "Draw from the pile", { key: "split:draw", className: "btn-primary" }));
      if (m.action === "penalize") general.push(moveButton(ctx, m, `Penalize ${ctx.name(m.seat)}`, { key: `split:pen:${m.seat}` }));
      if (m.action === "bonus_draw") general.push(moveButton(ctx, m, "Draw a bonus card", { key: "split:bonus", className: "btn-primary" }));
      if (m.action === "trade") {
        const give = view.matches.find((x) => x.id === m.give);
        const take = view.matches.find((x) => x.id === m.take);
        general.push(moveButton(ctx, m, `Trade your ${rankText(give.top[0])}s for ${ctx.name(take.owner)}'s ${rankText(take.top[0])}s`,
          { key: `split:trade:${m.give}:${m.take}` }));
      }
      if (m.action === "skip") general.push(moveButton(ctx, m, "Skip the bonus", { key: "split:skip" }));
      if (m.action === "done") general.push(moveButton(ctx, m, "Done", { key: "split:done" }));
    }
    const phaseHints = {
      draw: "Draw from the pile, or take a playable card from the discard row.",
      play: view.must_use ? `Use ${shortName(view.must_use)} first: pick it to match or upgrade.`
        : "Pick a card to match, upgrade a match on the table, or discard it (ends your turn).",
      perfect_bonus: "Perfect match! Give another player a penalty box.",
      strong_bonus: "Strong match: you may draw a bonus card.",
      weak_bonus: "Weak match: you may trade one of your matches for another player's of the same kind.",
      last_matches: "Someone went out on their first turn: lay any matches you can, then say done.",
    };
    handPanel = section(ctx.handTitle || "Your hand", legal.length ? "hand-panel" : "hand-panel waiting",
      h("div", { class: "hand", role: "group", "aria-label": "Your cards" }, cards),
      ctx.interactive && legal.length ? hint(selected ? `${shortName(selected)}: choose what to do with it (Esc to cancel).`
        : phaseHints[view.phase]) : null,
      partnerButtons.length || discard ? actionBar(partnerButtons,
        discard ? moveButton(ctx, discard, `Discard ${shortName(selected)} and end your turn`, { key: `split:${JSON.stringify(discard)}` }) : null) : null,
      upgrades.size ? hint("Or pick a highlighted match above to upgrade it.") : null,
      general.length ? actionBar(general) : null);
  }
  return [facts, row, seats, handPanel, padTable(view.seats, ctx)];
}

function describe(event, ctx) {
  const who = (seat) => ctx.name(seat);
  switch (event.type) {
    case "GameStarted": return `Round 1 starts; ${who(event.dealer ?? event.players - 1)} deals.` +
      (event.seed !== undefined ? ` (Shuffled with seed ${event.seed}.)` : "");
    case "RoundStarted": return `Round ${event.round} starts; ${who(event.dealer)} deals.`;
    case "CardDrawn": return event.card ? `${who(event.seat)} drew ${shortName(event.card)}.` : `${who(event.seat)} drew a card.`;
    case "BonusCardDrawn": return event.card ? `${who(event.seat)} drew a bonus card: ${shortName(event.card)}.` : `${who(event.seat)} drew a bonus card.`;
    case "CardsTaken": return `${who(event.seat)} took ${event.cards.map(shortName).join(", ")} from the row.`;
    case "MatchMade": return `${who(event.seat)} made a ${event.kind} match of ${rankText(event.top[0])}s.`;
    case "MatchUpgraded": return `${who(event.seat)} upgraded ${event.previous_owner === event.seat ? "their" : `${who(event.previous_owner)}'s`} ${rankText(event.card[0])}s to ${event.kind}.`;
    case "MatchesTraded": return `${who(event.seat)} traded matches with ${who(event.other)}.`;
    case "PlayerPenalized": return `${who(event.seat)} penalized ${who(event.target)}.`;
    case "BonusSkipped": return `${who(event.seat)} skipped the ${event.bonus} bonus${event.automatic ? " (no trade possible)" : ""}.`;
    case "CardDiscarded": return `${who(event.seat)} discarded ${shortName(event.card)}.`;
    case "LastMatchesDone": return `${who(event.seat)} is done${event.automatic ? " (no match)" : ""}.`;
    case "RoundEnded": return `Round ${event.round} ends: ${who(event.ender)} ${event.reason === "went_out" ? "went out" : "drew the last card"}.`;
    case "GameEnded": return `The game is over. Scores: ${event.scores.map((s, seat) => `${who(seat)} ${s}`).join(", ")}.`;
    default: return event.type;
  }
}

function describeMove(move, ctx) {
  switch (move.action) {
    case "draw": return "Draw from the pile";
    case "take": return `Take ${shortName(move.card)} from the row`;
    case "match": return `Match ${shortName(move.cards[0])} with ${shortName(move.cards[1])}`;
    case "upgrade": return `Upgrade match ${move.match} with ${shortName(move.card)}`;
    case "discard": return `Discard ${shortName(move.card)}`;
    case "penalize": return `Penalize ${ctx.name(move.seat)}`;
    case "bonus_draw": return "Draw a bonus card";
    case "trade": return `Trade match ${move.give} for match ${move.take}`;
    case "skip": return "Skip the bonus";
    case "done": return "Done";
    default: return JSON.stringify(move);
  }
}

function turnText(view) {
  const texts = { draw: "draw or take from the row", play: "match, upgrade, then discard", perfect_bonus: "penalize a player",
    strong_bonus: "draw a bonus card or skip", weak_bonus: "trade a match or skip", last_matches: "lay last matches" };
  return texts[view.phase] || null;
}

function resultText(outcome, ctx) {
  const detail = outcome.detail || {};
  return `Final pads: ${outcome.scores.map((score, seat) =>
    `${ctx.name(seat)} ${score} (${(detail.match_points || [])[seat]} − ${(detail.negative_points || [])[seat]})`).join("; ")}.`;
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

export default { slug: "split", title: "Split", render, describe, describeMove, turnText, resultText, onKey };

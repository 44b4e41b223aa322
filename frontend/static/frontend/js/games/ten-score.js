// Ten's scoring (rules R13), as the engine computes it (games/engines/ten.py best_runs): each
// colour scores its longest run of consecutive numbers, wild cards placed for the best total.
// The table uses it to offer the payments that cost the fewest points first.

const COLOURS = "RBOG";
const COMPLETE_RUN = 9;
const COMPLETE_RUN_SCORE = 10;

// LONGEST[mask][fillers]: the longest run in 1-9 with the numbers of `mask` (bit n-1) and up to
// `fillers` (0-3) colour wilds free to fill its gaps.
const LONGEST = (() => {
  const table = [];
  for (let mask = 0; mask < 512; mask += 1) {
    const best = [0, 0, 0, 0];
    for (let start = 0; start < 9; start += 1) {
      let missing = 0;
      for (let end = start; end < 9; end += 1) {
        if (!((mask >> end) & 1)) {
          missing += 1;
          if (missing > 3) break;
        }
        const length = end - start + 1;
        for (let fillers = missing; fillers < 4; fillers += 1) best[fillers] = Math.max(best[fillers], length);
      }
    }
    table.push(best);
  }
  return table;
})();

const runScore = (length) => (length >= COMPLETE_RUN ? COMPLETE_RUN_SCORE : length);

// The ways to help one colour: [number wilds used, full wild used, run length], none wasted.
function colourOptions(mask, own, numberWilds, fullWild) {
  const useful = numberWilds & ~mask;
  const options = [];
  let subset = useful;
  for (;;) {
    for (const full of fullWild ? [0, 1] : [0]) {
      const length = LONGEST[mask | subset][Math.min(3, own + full)];
      if (full && LONGEST[mask | subset][Math.min(3, own)] === length) continue;
      let rest = subset;
      let wasted = false;
      while (rest && !wasted) {
        const bit = rest & -rest;
        rest ^= bit;
        wasted = LONGEST[(mask | subset) ^ bit][Math.min(3, own + full)] === length;
      }
      if (!wasted) options.push([subset, full, length]);
    }
    if (!subset) return options;
    subset = (subset - 1) & useful;
  }
}

/** R13: a collection's best total, its wild cards placed optimally. */
export function bestTotal(collection) {
  const present = [0, 0, 0, 0];
  const colourWilds = [0, 0, 0, 0];
  let numberWilds = 0;
  let fullWild = 0;
  for (const card of collection) {
    const [suit, rank] = card;
    if (suit === "W") {
      if (rank === "#") fullWild = 1;
      else numberWilds |= 1 << (Number(rank) - 1);
    } else if (COLOURS.includes(suit)) {
      const colour = COLOURS.indexOf(suit);
      if (rank === "#") colourWilds[colour] += 1;
      else present[colour] |= 1 << (Number(rank) - 1);
    }
  }
  let states = new Map([[0, 0]]); // (number wilds used << 1 | full wild used) -> best total so far
  for (let colour = 0; colour < 4; colour += 1) {
    const options = colourOptions(present[colour], colourWilds[colour], numberWilds, fullWild);
    const following = new Map();
    for (const [key, total] of states) {
      const used = key >> 1;
      const fullUsed = key & 1;
      for (const [subset, full, length] of options) {
        if ((subset & used) || (full & fullUsed)) continue;
        const next = ((used | subset) << 1) | fullUsed | full;
        const value = total + runScore(length);
        if (!following.has(next) || value > following.get(next)) following.set(next, value);
      }
    }
    states = following;
  }
  return Math.max(...states.values());
}

function* combinations(items, count, start = 0, chosen = []) {
  if (chosen.length === count) {
    yield chosen;
    return;
  }
  for (let index = start; index <= items.length - (count - chosen.length); index += 1) {
    yield* combinations(items, count, index + 1, [...chosen, index]);
  }
}

function binomial(n, k) {
  let result = 1;
  for (let i = 1; i <= k; i += 1) result = (result * (n - k + i)) / i;
  return result;
}

/** The `count` cards of `collection` whose loss costs the fewest points, and that loss. Every
 * choice is tried when there are few (at most 3,000); otherwise cards go one at a time, each the
 * cheapest to lose then. Among equal losses the earlier cards in canonical order go first. */
export function cheapestCards(collection, count) {
  const whole = bestTotal(collection);
  const without = (drop) => collection.filter((_, index) => !drop.has(index));
  if (binomial(collection.length, count) <= 3000) {
    let best = null;
    for (const chosen of combinations(collection, count)) {
      const loss = whole - bestTotal(without(new Set(chosen)));
      if (best === null || loss < best.loss) best = { loss, chosen };
      if (loss === 0) break;
    }
    return { cards: best.chosen.map((index) => collection[index]), loss: best.loss };
  }
  const dropped = new Set();
  for (let step = 0; step < count; step += 1) {
    let pick = null;
    for (let index = 0; index < collection.length; index += 1) {
      if (dropped.has(index)) continue;
      const total = bestTotal(without(new Set([...dropped, index])));
      if (pick === null || total > pick.total) pick = { index, total };
    }
    dropped.add(pick.index);
  }
  const cards = [...dropped].sort((a, b) => a - b).map((index) => collection[index]);
  return { cards, loss: whole - bestTotal(without(dropped)) };
}

// An elimination bracket as SVG, from the format's `bracket(...).as_dict()` (as the tournament
// API serves it: every match with its side, round, position, sources, players and names).
// Winners' bracket on top, losers' bracket below it, the finals to the right; lines join each
// match to the one its winner goes to. A played or running match links to its table.
// Matches are named in words ("Winners round 1, table 2", "Grand final reset"); the format's
// ids (W1.2, GF2) appear only in tooltips.
import { s } from "./dom.js";
import { countText, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";

const BOX_W = 190;
const SLOT_H = 24;
const BOX_H = SLOT_H * 2;
const COL_W = 222;
const ROW_GAP = 26;
const TOP = 34;
const LEFT = 12;
const BAND_GAP = 56;
const SLOT_CHARS = 34;
const MIN_SCALE = 0.8; // what fits a slot at the placeholder's 10.5px

const MATCH_STATUS = { waiting: pgettext("bracket match", "waiting"), bye: pgettext("bracket", "bye") };

/** A match's name in words; `hasLosers`: the bracket is a double elimination. */
export function matchLabel(match, hasLosers) {
  const values = { round: formatNumber(match.round), table: formatNumber(match.position + 1) };
  if (match.side === "losers") return interpolate(gettext("Losers round %(round)s, table %(table)s"), values);
  if (match.side === "third-place") return gettext("Third place");
  if (match.side === "final") return hasLosers ? (match.round === 1 ? gettext("Grand final") : gettext("Grand final reset")) : gettext("Final");
  return interpolate(hasLosers ? gettext("Winners round %(round)s, table %(table)s") : gettext("Round %(round)s, table %(table)s"), values);
}

/** `matchLabel` of a bracket match id (as a round's table names it), or the id if it is unknown. */
export function bracketLabel(bracket, id) {
  const matches = bracket ? bracket.matches : [];
  const match = matches.find((m) => m.id === id);
  return match ? matchLabel(match, matches.some((m) => m.side === "losers")) : id;
}

function truncate(text, length = 22) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function columnTitle(match, hasLosers) {
  const values = { round: formatNumber(match.round) };
  if (match.side === "losers") return interpolate(gettext("Losers round %(round)s"), values);
  if (match.side === "third-place") return gettext("Third place");
  if (match.side === "final") return matchLabel(match, hasLosers);
  return interpolate(hasLosers ? gettext("Winners round %(round)s") : gettext("Round %(round)s"), values);
}

/** Lays out the matches: each gets {x, y, col}. */
function layout(matches) {
  const hasLosers = matches.some((m) => m.side === "losers");
  const maxWinnersRound = Math.max(0, ...matches.filter((m) => m.side === "winners").map((m) => m.round));
  const maxLosersRound = Math.max(0, ...matches.filter((m) => m.side === "losers").map((m) => m.round));
  const lastCol = Math.max(maxWinnersRound, maxLosersRound);
  const col = (m) => {
    if (m.side === "winners" || m.side === "losers") return m.round - 1;
    if (m.side === "final") return hasLosers ? lastCol + m.round - 1 : m.round - 1;
    return null; // third place: beside the final
  };
  const spacing = BOX_H + ROW_GAP;
  const place = new Map();
  const bandTop = { winners: TOP, losers: TOP };
  const firstRound = (side) => matches.filter((m) => m.side === side && m.round === 1).length;
  const bandHeight = (side) => Math.max(1, ...[...new Set(matches.filter((m) => m.side === side).map((m) => m.round))]
    .map((r) => matches.filter((m) => m.side === side && m.round === r).length)) * spacing;
  bandTop.losers = TOP + bandHeight("winners") + BAND_GAP;
  const order = [...matches].sort((a, b) => (col(a) ?? 99) - (col(b) ?? 99) || a.position - b.position);
  for (const m of order) {
    if (m.side === "third-place") continue;
    const feeders = m.sources.filter((src) => src.kind === "winner" && place.has(src.ref)).map((src) => place.get(src.ref));
    const band = m.side === "losers" ? "losers" : "winners";
    let y;
    if (feeders.length && m.round > 1 || (m.side === "final" && feeders.length)) {
      y = feeders.reduce((sum, f) => sum + f.y, 0) / feeders.length;
    } else {
      const inRound = matches.filter((o) => o.side === m.side && o.round === m.round).length || 1;
      const scale = Math.max(1, firstRound(band) / inRound);
      y = bandTop[band] + (m.position * scale + (scale - 1) / 2) * spacing;
    }
    place.set(m.id, { x: LEFT + col(m) * COL_W, y, col: col(m) });
  }
  for (const m of matches.filter((x) => x.side === "third-place")) {
    const final = matches.find((x) => x.side === "final");
    const at = final ? place.get(final.id) : { x: LEFT, y: TOP, col: 0 };
    place.set(m.id, { x: at.x, y: at.y + BOX_H + ROW_GAP * 2, col: at.col });
  }
  return { place, hasLosers, bandTop };
}

export function drawBracket(bracket, { tableHref = (id) => `/tables/${id}` } = {}) {
  const matches = bracket.matches;
  const { place, hasLosers, bandTop } = layout(matches);
  const byId = new Map(matches.map((m) => [m.id, m]));
  const sourceLabel = (source) => {
    if (source.kind === "seed") return interpolate(gettext("seed %(seed)s"), { seed: source.ref });
    const from = byId.get(source.ref);
    const what = from ? matchLabel(from, hasLosers) : source.ref;
    const match = `${what.charAt(0).toLowerCase()}${what.slice(1)}`;
    return interpolate(source.kind === "winner" ? gettext("Winner of %(match)s") : gettext("Loser of %(match)s"), { match });
  };
  const width = LEFT + (Math.max(...[...place.values()].map((p) => p.col)) + 1) * COL_W;
  const height = Math.max(...[...place.values()].map((p) => p.y)) + BOX_H + 20;
  const names = new Map((bracket.entrants || []).map((e) => [e.id, e.name]));

  const titles = new Map();
  for (const m of matches) {
    const p = place.get(m.id);
    const band = m.side === "losers" ? "losers" : "winners";
    const key = `${band}:${p.col}:${m.side === "third-place" ? "3" : ""}`;
    if (!titles.has(key) && m.side !== "third-place") {
      titles.set(key, s("text", { class: "side-title", x: p.x, y: (m.side === "losers" ? bandTop.losers : TOP) - 12,
        text: columnTitle(m, hasLosers) }));
    }
  }

  const wires = [];
  for (const m of matches) {
    const to = place.get(m.id);
    m.sources.forEach((src, slot) => {
      if (src.kind !== "winner" || !place.has(src.ref)) return;
      const from = place.get(src.ref);
      const x1 = from.x + BOX_W;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x;
      const y2 = to.y + slot * SLOT_H + SLOT_H / 2;
      const mid = x1 + (x2 - x1) / 2;
      wires.push(s("path", { class: "wire", d: `M${x1},${y1} H${mid} V${y2} H${x2}` }));
    });
  }

  const boxes = matches.map((m) => {
    const p = place.get(m.id);
    const slots = m.players.map((player, slot) => {
      const bye = player && typeof player === "object" && player.bye;
      const known = typeof player === "number";
      // A void match (a grand final reset the winners' side made unnecessary) is never played.
      const label = bye ? pgettext("bracket", "bye") : known ? (m.names && m.names[slot]) || names.get(player) || `#${player}`
        : m.status === "void" ? gettext("not needed") : sourceLabel(m.sources[slot]);
      const won = known && m.winner === player;
      return s("g", {},
        s("rect", { class: ["slot", won ? "slot-winner" : "", bye || m.status === "void" ? "slot-bye" : ""].join(" "), x: p.x, y: p.y + slot * SLOT_H,
          width: BOX_W, height: SLOT_H, rx: 4 }),
        s("text", { x: p.x + 8, y: p.y + slot * SLOT_H + 16, "font-weight": won ? "700" : "400",
          "font-style": known ? "normal" : "italic", "font-size": known ? null : "10.5", fill: known ? "#1d2421" : "#5d6863",
          text: truncate(label, known ? 26 : SLOT_CHARS) }));
    });
    const status = m.status === "played" ? (m.winner !== null && typeof m.winner === "number"
      ? interpolate(gettext("%(name)s won"), { name: names.get(m.winner) || (m.names || [])[m.players.indexOf(m.winner)] || "?" })
      : pgettext("bracket match", "played"))
      : m.status === "ready" ? (m.match ? pgettext("bracket match", "playing") : pgettext("bracket match", "ready"))
        : m.status === "void" ? gettext("not needed") : MATCH_STATUS[m.status] || m.status;
    const vs = m.players.map((player, slot) => (typeof player === "number" ? (m.names && m.names[slot]) || names.get(player)
      : player && player.bye ? gettext("a bye") : sourceLabel(m.sources[slot]))).join(` ${gettext("against")} `);
    const label = matchLabel(m, hasLosers);
    const numbered = m.side === "winners" || m.side === "losers"; // a final is named by its column
    const group = s("g", { class: "bracket-match", "data-bracket-match": m.id, "data-status": m.status, "data-label": label },
      s("title", { text: interpolate(gettext("%(match)s (%(id)s): %(players)s; %(status)s"), { match: label, id: m.id, players: vs, status }) }),
      ...slots,
      numbered ? s("text", { class: "match-label", x: p.x + BOX_W - 4, y: p.y - 5, "text-anchor": "end",
        text: interpolate(gettext("Table %(table)s"), { table: formatNumber(m.position + 1) }) }) : null,
      m.side === "third-place" ? s("text", { class: "side-title", x: p.x, y: p.y - 6, text: gettext("Third place") }) : null);
    if (m.match) {
      // Named by what it shows (its players and table), described by the group's title: a label
      // of its own would hide the visible names from speech control ("click alice").
      return s("a", { href: tableHref(m.match, m) }, group);
    }
    return group;
  });

  // Shrinks to fit its panel down to MIN_SCALE (an eight-player double elimination's reset column
  // fits at 1280 px), then scrolls sideways (a phone) instead of getting unreadable.
  return s("svg", { class: "bracket", viewBox: `0 0 ${width} ${height}`, role: "group",
    style: `width: 100%; max-width: ${width}px; min-width: ${Math.round(width * MIN_SCALE)}px; height: auto`,
    "aria-label": countText(ngettext("Bracket of %(count)s match", "Bracket of %(count)s matches", matches.length), matches.length) },
  ...titles.values(), hasLosers ? s("text", { class: "side-title", x: LEFT, y: bandTop.losers - 30, text: gettext("Losers' bracket") }) : null,
  ...wires, ...boxes);
}

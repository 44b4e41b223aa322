// A small SVG line chart (no library needed for one line and a band): x is the match number,
// y the rating (or, in a review, the move and the win chance); each point has a tooltip and the
// chart a text summary for screen readers.
import { s } from "./dom.js";
import { formatFixed, formatNumber, gettext, interpolate, ngettext } from "./i18n.js";

const oneDecimal = (value) => formatFixed(value, 1);

const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 44, right: 14, top: 14, bottom: 30 };

function niceTicks(min, max, count = 5) {
  const span = max - min || 1;
  const step = 10 ** Math.floor(Math.log10(span / count));
  const unit = [1, 2, 5, 10].map((m) => m * step).find((m) => span / m <= count) || step * 10;
  const ticks = [];
  for (let v = Math.floor(min / unit) * unit; v <= max + 1e-9; v += unit) ticks.push(Number(v.toFixed(6)));
  return ticks;
}

/**
 * points: [{y, low, high, label, className}] in order. Draws y as a line, low..high as a band;
 * a point's className marks its dot (a review's mistakes). `summary` replaces the text summary
 * (which counts matches), `yRange` widens the axis to at least [min, max].
 */
export function lineChart(points, { title = gettext("Chart"), yLabel = "", summary: told = null, yRange = null } = {}) {
  const ys = [...points.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y]), ...(yRange || [])];
  const minY = Math.min(...ys);
  const maxY = Math.max(...ys);
  const ticks = niceTicks(minY, maxY);
  const lo = Math.min(minY, ticks[0]);
  const hi = Math.max(maxY, ticks[ticks.length - 1]);
  const x = (i) => PAD.left + (points.length === 1 ? (WIDTH - PAD.left - PAD.right) / 2
    : (i * (WIDTH - PAD.left - PAD.right)) / (points.length - 1));
  const y = (v) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - (v - lo) / (hi - lo || 1));
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.y).toFixed(1)}`).join(" ");
  const band = points.some((p) => p.low !== undefined)
    ? points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.high).toFixed(1)}`).join(" ") + " " +
      points.slice().reverse().map((p, j) => `L${x(points.length - 1 - j).toFixed(1)},${y(p.low).toFixed(1)}`).join(" ") + " Z"
    : null;
  const first = points[0];
  const last = points[points.length - 1];
  const summary = told || interpolate(ngettext(
    "%(title)s: %(count)s match, from %(first)s to %(last)s (lowest %(lowest)s, highest %(highest)s).",
    "%(title)s: %(count)s matches, from %(first)s to %(last)s (lowest %(lowest)s, highest %(highest)s).", points.length), {
    title, count: formatNumber(points.length), first: oneDecimal(first.y), last: oneDecimal(last.y),
    lowest: oneDecimal(Math.min(...points.map((p) => p.y))), highest: oneDecimal(Math.max(...points.map((p) => p.y))),
  });
  const xTicks = points.length <= 10 ? points.map((_, i) => i)
    : [0, Math.round((points.length - 1) / 2), points.length - 1];
  return s("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "img", "aria-label": summary },
    s("title", { text: summary }),
    ticks.map((t) => s("g", {},
      s("line", { class: "grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(t), y2: y(t) }),
      s("text", { x: PAD.left - 6, y: y(t) + 4, "text-anchor": "end", text: formatNumber(t) }))),
    s("line", { class: "axis", x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: HEIGHT - PAD.bottom }),
    s("line", { class: "axis", x1: PAD.left, x2: WIDTH - PAD.right, y1: HEIGHT - PAD.bottom, y2: HEIGHT - PAD.bottom }),
    xTicks.map((i) => s("text", { x: x(i), y: HEIGHT - PAD.bottom + 16, "text-anchor": "middle", text: formatNumber(i + 1) })),
    yLabel ? s("text", { x: 12, y: PAD.top + 4, text: yLabel }) : null,
    band ? s("path", { class: "band", d: band }) : null,
    s("path", { class: "line", d: line }),
    points.map((p, i) => s("circle", { class: p.className ? `dot ${p.className}` : "dot", cx: x(i), cy: y(p.y),
      r: p.className ? 4.5 : points.length > 60 ? 1.8 : 3.5 },
      s("title", { text: p.label || oneDecimal(p.y) }))));
}

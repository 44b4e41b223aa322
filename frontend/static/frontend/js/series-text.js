// What the series pages say of a series: its games, its season and its points, in the reader's language.
import { pageData } from "./api.js";
import { formatDateTime, formatNumber, gettext, interpolate } from "./i18n.js";

const titles = Object.fromEntries((pageData("games-data") || []).map((g) => [g.slug, g.title]));

export const gameTitles = (slugs) => slugs.map((slug) => titles[slug] || slug);

// A season's days ("2026-12-07") as local dates: read as UTC they would move a day west of Greenwich.
function day(text) {
  const [year, month, date] = text.split("-").map(Number);
  return formatDateTime(new Date(year, month - 1, date), { dateStyle: "medium" });
}

export function seasonText(series) {
  return interpolate(gettext("%(start)s to %(end)s"), { start: day(series.starts_on), end: day(series.ends_on) });
}

/** Exact points ("500", "1400/3") as a number to read, to one decimal place at most. */
export function pointsText(exact) {
  const [top, bottom] = String(exact).split("/").map(Number);
  return formatNumber(bottom ? top / bottom : top, { maximumFractionDigits: 1 });
}

// The reader's language for the pages' scripts. Django's JavaScript catalogue (/jsi18n/, loaded
// by base.html before any module) defines the globals; makemessages finds the calls by name, so
// a message is always a literal: gettext("Your turn"), never gettext(variable).
export const gettext = (message) => globalThis.gettext(message);
export const ngettext = (singular, plural, count) => globalThis.ngettext(singular, plural, count);
export const pgettext = (context, message) => globalThis.pgettext(context, message);
// interpolate(gettext("%(name)s played %(card)s"), {name, card}): named placeholders only,
// because word order differs between languages.
export const interpolate = (format, values) => globalThis.interpolate(format, values, true);
export const language = () => document.documentElement.lang || "en-GB";
// Numbers, dates and times in the reader's language and the browser's time zone.
// One formatter per language and options: making one is dear (a table's board formats hundreds of
// numbers a move, and making their formatters took 1.3 s of a 40-move match's main thread in bench/motion.py's profile at ×4 throttling).
const numberFormats = new Map();
export const formatNumber = (value, options) => {
  const key = `${language()} ${options ? JSON.stringify(options) : ""}`;
  if (!numberFormats.has(key)) numberFormats.set(key, new Intl.NumberFormat(language(), options));
  return numberFormats.get(key).format(value);
};
// "Ann, Bob and Ceri", "Ann, Bob a Ceri": names joined as the language joins them (the
// browser's Intl.ListFormat writes Welsh's "a"/"ac" as "a(c)", which no reader writes).
export const formatList = (items) => (items.length < 2 ? items.join("")
  : interpolate(gettext("%(names)s and %(last)s"), { names: items.slice(0, -1).join(", "), last: items[items.length - 1] }));
// value.toFixed(places) in the reader's language.
export const formatFixed = (value, places) => formatNumber(value, { minimumFractionDigits: places, maximumFractionDigits: places });
// countText(ngettext("%(count)s round", "%(count)s rounds", n), n): the count in the reader's digits.
export const countText = (format, count) => interpolate(format, { count: formatNumber(count) });
export const formatDateTime = (value, options = { dateStyle: "medium", timeStyle: "short" }) => {
  const date = value instanceof Date ? value : new Date(value);
  if (Intl.DateTimeFormat.supportedLocalesOf([language()]).length) return new Intl.DateTimeFormat(language(), options).format(date);
  // Browsers ship trimmed locale data (Chromium has no Welsh): then the date is written in British
  // order on a 24-hour clock, with the month and day names from the catalogue.
  const english = (part) => new Intl.DateTimeFormat("en-GB", { [part]: "long", timeZone: options.timeZone }).format(date);
  const [month, weekday] = [date.getMonth(), date.getDay()];
  return new Intl.DateTimeFormat("en-GB", { ...options, hourCycle: "h23" }).formatToParts(date).map(({ type, value: text }) => {
    if (type === "month" && Number.isNaN(Number(text))) return (text === english("month") ? monthNames() : monthAbbreviations())[month];
    if (type === "weekday") return (text === english("weekday") ? dayNames() : dayAbbreviations())[weekday];
    return text;
  }).join("");
};

const monthNames = () => [
  pgettext("month", "January"), pgettext("month", "February"), pgettext("month", "March"), pgettext("month", "April"),
  pgettext("month", "May"), pgettext("month", "June"), pgettext("month", "July"), pgettext("month", "August"),
  pgettext("month", "September"), pgettext("month", "October"), pgettext("month", "November"), pgettext("month", "December"),
];
const monthAbbreviations = () => [
  pgettext("abbreviated month", "Jan"), pgettext("abbreviated month", "Feb"), pgettext("abbreviated month", "Mar"),
  pgettext("abbreviated month", "Apr"), pgettext("abbreviated month", "May"), pgettext("abbreviated month", "Jun"),
  pgettext("abbreviated month", "Jul"), pgettext("abbreviated month", "Aug"), pgettext("abbreviated month", "Sep"),
  pgettext("abbreviated month", "Oct"), pgettext("abbreviated month", "Nov"), pgettext("abbreviated month", "Dec"),
];
const dayNames = () => [
  pgettext("weekday", "Sunday"), pgettext("weekday", "Monday"), pgettext("weekday", "Tuesday"), pgettext("weekday", "Wednesday"),
  pgettext("weekday", "Thursday"), pgettext("weekday", "Friday"), pgettext("weekday", "Saturday"),
];
const dayAbbreviations = () => [
  pgettext("abbreviated weekday", "Sun"), pgettext("abbreviated weekday", "Mon"), pgettext("abbreviated weekday", "Tue"),
  pgettext("abbreviated weekday", "Wed"), pgettext("abbreviated weekday", "Thu"), pgettext("abbreviated weekday", "Fri"),
  pgettext("abbreviated weekday", "Sat"),
];

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
export const formatNumber = (value, options) => new Intl.NumberFormat(language(), options).format(value);
// "Ann, Bob and Ceri", "Ann, Bob a Ceri": names joined as the language joins them (the
// browser's Intl.ListFormat writes Welsh's "a"/"ac" as "a(c)", which no reader writes).
export const formatList = (items) => (items.length < 2 ? items.join("")
  : interpolate(gettext("%(names)s and %(last)s"), { names: items.slice(0, -1).join(", "), last: items[items.length - 1] }));
export const formatDateTime = (value, options = { dateStyle: "medium", timeStyle: "short" }) =>
  new Intl.DateTimeFormat(language(), options).format(value instanceof Date ? value : new Date(value));

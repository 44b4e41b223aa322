// The list of series and the form that starts one (POST /api/series, then its page).
import { get, post } from "./api.js";
import { flash, h, rerender } from "./dom.js";
import { countText, formatList, gettext, interpolate, ngettext } from "./i18n.js";
import { gameTitles, seasonText } from "./series-text.js";

const listRoot = document.getElementById("series-list");

function item(s) {
  return h("li", { class: "table-row", "data-series": String(s.id) },
    h("span", { class: "table-id" }, `#${s.id}`),
    h("span", { class: "table-seats" }, h("a", { href: `/series/${s.id}` }, s.name)),
    h("span", { class: "table-meta muted" }, [formatList(gameTitles(s.games)), seasonText(s),
      countText(ngettext("%(count)s tournament", "%(count)s tournaments", s.events.length), s.events.length)].join(" · ")));
}

async function refresh() {
  try {
    const page = await get("series", { limit: 50 });
    rerender(listRoot, () => (page.results.length ? h("ul", { class: "table-list" }, page.results.map(item))
      : h("p", { class: "muted" }, gettext("No series yet."))));
    listRoot.setAttribute("aria-busy", "false");
  } catch (err) {
    flash(interpolate(gettext("The series could not be loaded: %(error)s"), { error: err.message }), "error");
  }
}

const form = document.getElementById("series-form");

async function create(event) {
  event.preventDefault();
  const games = [...form.querySelectorAll("input[name=games]:checked")].map((input) => input.value);
  if (!games.length) {
    flash(gettext("Choose at least one game."), "error");
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const body = { name: form.elements["name"].value.trim(), games, starts_on: form.starts_on.value, ends_on: form.ends_on.value };
  if (form.best.value) body.rules = { best: Number(form.best.value) };
  try {
    const created = await post("series", body);
    location.assign(`/series/${created.id}`);
  } catch (err) {
    button.disabled = false;
    flash(interpolate(gettext("The series could not be created: %(error)s"), { error: err.message }), "error");
  }
}

if (form) {
  // A season from today to the year's end, as a start the organiser may change.
  const today = new Date();
  const iso = (date) => `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  form.starts_on.value = iso(today);
  form.ends_on.value = iso(new Date(today.getFullYear(), 11, 31));
  form.addEventListener("submit", create);
}
refresh();
setInterval(() => { if (document.visibilityState === "visible") refresh(); }, 30000);

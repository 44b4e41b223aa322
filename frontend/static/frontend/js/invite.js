// An invitation link's page: what table it offers, and a button that sits the holder there
// (after logging in or signing up, which come back here).
import { ApiError, get, pageData, post } from "./api.js";
import { h, rerender } from "./dom.js";
import { formatDateTime, gettext, interpolate, ngettext } from "./i18n.js";

const data = pageData("invite-data");
const root = document.getElementById("invite");
const here = encodeURIComponent(location.pathname);

function show(...nodes) {
  rerender(root, () => nodes);
}

async function sitDown() {
  try {
    const match = await post(`invitations/${encodeURIComponent(data.token)}/accept`, {});
    location.assign(`/tables/${match.id}`);
  } catch (err) {
    show(h("p", { class: "error", role: "alert" }, err.message));
  }
}

async function load() {
  let invitation;
  try {
    invitation = await get(`invitations/${encodeURIComponent(data.token)}`);
  } catch (err) {
    show(h("p", { class: "error", role: "alert" }, err instanceof ApiError ? err.message : gettext("The invitation could not be read.")));
    return;
  }
  const match = invitation.match;
  const creator = match.seats.find((s) => s.user === match.created_by);
  const seat = invitation.seat === null ? gettext("any free seat")
    : interpolate(gettext("seat %(number)s"), { number: invitation.seat + 1 });
  const game = data.titles[match.game] || match.game;
  const invites = creator ? interpolate(gettext("%(name)s invites you to a table of %(game)s:"), { name: creator.name, game })
    : interpolate(gettext("You are invited to a table of %(game)s:"), { game });
  const players = interpolate(ngettext("%(count)s player", "%(count)s players", match.players), { count: match.players });
  const lines = [
    h("p", {}, invites, " ", [seat, match.rated ? gettext("rated") : gettext("casual"), players].join(", "), "."),
    h("p", { class: "muted" }, interpolate(gettext("The link works until %(time)s."), { time: formatDateTime(invitation.expires_at) })),
  ];
  if (data.user) {
    lines.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "accept", onclick: sitDown }, gettext("Sit down")));
  } else {
    lines.push(h("p", {}, gettext("Log in or sign up to sit down:"), " ", h("a", { href: `/login?next=${here}` }, gettext("Log in")),
      " · ", h("a", { href: `/signup?next=${here}` }, gettext("Sign up"))));
  }
  show(...lines);
}

load();

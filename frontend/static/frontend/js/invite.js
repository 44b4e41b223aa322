// An invitation link's page: what table it offers, and a button that sits the holder there
// (after logging in or signing up, which come back here).
import { ApiError, get, pageData, post } from "./api.js";
import { h, rerender } from "./dom.js";

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
    show(h("p", { class: "error", role: "alert" }, err instanceof ApiError ? err.message : "The invitation could not be read."));
    return;
  }
  const match = invitation.match;
  const creator = match.seats.find((s) => s.user === match.created_by);
  const seat = invitation.seat === null ? "any free seat" : `seat ${invitation.seat + 1}`;
  const lines = [
    h("p", {}, `${creator ? creator.name : "Someone"} invites you to a table of ${data.titles[match.game] || match.game}: `,
      `${seat}, ${match.rated ? "rated" : "casual"}, ${match.players} players.`),
    h("p", { class: "muted" }, `The link works until ${new Date(invitation.expires_at).toLocaleString()}.`),
  ];
  if (data.user) {
    lines.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "accept", onclick: sitDown }, "Sit down"));
  } else {
    lines.push(h("p", {}, h("a", { href: `/login?next=${here}` }, "Log in"), " or ",
      h("a", { href: `/signup?next=${here}` }, "sign up"), " to sit down."));
  }
  show(...lines);
}

load();

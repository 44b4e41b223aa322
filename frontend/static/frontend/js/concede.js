// A cooperative game's team concedes together (issue #43): a player proposes, every other person
// still playing agrees, and the game ends at once as the team's loss. The table's summary carries
// the pending proposal (`match.concession`: who agreed, who is still to), and every page at the
// table re-reads it when the proposal's table fact moves the head, so all seats see it live.
import { api, post } from "./api.js";
import { flash, h } from "./dom.js";
import { formatList, gettext, interpolate } from "./i18n.js";

/**
 * The table's concession panel, or null (a game without a team, a table not running).
 * `table`: { state, matchId, cooperative, playing, name, redraw, refresh, focus, errorText }:
 * `playing` whether the reader still plays a seat, `name(seat)` a seat's name as the page
 * shows it, `redraw()` draws the players' panel again, `refresh()` re-reads the table.
 */
export function concedeControl(table) {
  const { state } = table;
  if (!table.cooperative || state.status !== "running") return null;
  const pending = state.match.concession;
  const asked = Boolean(pending && table.playing && pending.waiting.includes(state.seat));
  const names = (seats) => formatList(seats.map(table.name));
  // The panel sits below the board (far down on a phone): a player newly asked is told where to look.
  if (asked && !state.ui.concessionAsked) {
    flash(interpolate(gettext("%(names)s proposed to concede for the team: answer under Players."), { names: names(pending.agreed) }));
  }
  state.ui.concessionAsked = asked;
  if (!pending) return table.playing ? proposal(table) : null;
  const mine = table.playing && pending.agreed.includes(state.seat);
  return h("div", { class: "banner concession", role: "status", "data-concession": "pending" },
    h("p", {}, h("strong", {}, asked ? gettext("Concede for the team?") : gettext("A proposal to concede for the team.")), " ",
      gettext("The game ends at once as the team's loss when every player still playing agrees.")),
    h("p", { "data-concession-agreed": pending.agreed.join(",") },
      interpolate(gettext("Agreed: %(names)s."), { names: names(pending.agreed) })),
    h("p", { "data-concession-waiting": pending.waiting.join(",") },
      interpolate(gettext("Still to agree: %(names)s."), { names: names(pending.waiting) })),
    asked || mine ? h("p", { class: "actions" },
      asked ? h("button", { type: "button", class: "btn btn-small btn-danger", "data-key": "concede-agree",
        onclick: () => send(table, "POST", gettext("You agreed to concede.")) }, gettext("Agree to concede")) : null,
      asked ? " " : null,
      h("button", { type: "button", class: "btn btn-small", "data-key": "concede-withdraw",
        onclick: () => send(table, "DELETE", mine ? gettext("You withdrew the proposal to concede.")
          : gettext("You chose to play on: the proposal to concede is withdrawn.")) },
      mine ? gettext("Withdraw the proposal") : gettext("Play on"))) : null);
}

// Proposing asks twice, as resigning does: with nobody else to ask, the game ends at once.
function proposal(table) {
  const { state } = table;
  if (!state.ui.confirmConcede) {
    return h("p", {}, h("button", { type: "button", class: "btn btn-small", "data-key": "concede",
      onclick: () => { state.ui.confirmConcede = true; table.redraw(); table.focus("concede-confirm"); } },
    gettext("Concede for the team")));
  }
  const alone = state.match.seats.filter((info) => info.user && !info.abandoned).length <= 1;
  return h("div", { class: "banner", role: "alert" },
    h("p", {}, alone ? gettext("Concede? The game ends at once as the team's loss.")
      : gettext("Propose to concede? The game ends as the team's loss once every other player still playing agrees; until then the game goes on.")),
    h("p", {}, h("button", { type: "button", class: "btn btn-small btn-danger", "data-key": "concede-confirm",
      onclick: () => { state.ui.confirmConcede = false; send(table, "POST", alone ? null : gettext("You proposed to concede.")); } },
    alone ? gettext("Yes, concede") : gettext("Yes, propose to concede")), " ",
    h("button", { type: "button", class: "btn btn-small", "data-key": "concede-cancel",
      onclick: () => { state.ui.confirmConcede = false; table.redraw(); table.focus("concede"); } }, gettext("Keep playing"))));
}

async function send(table, method, done) {
  const path = `matches/${table.matchId}/concede`;
  try {
    table.state.match = method === "POST" ? await post(path) : await api(path, { method });
    if (done && table.state.match.status === "running") flash(done);
  } catch (err) {
    flash(table.errorText(err), "error");
  }
  await table.refresh();
}

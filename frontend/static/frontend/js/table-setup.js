// The table page before and around its start (table.js composes it with the live game): the
// seats, sitting down, bots, the creator's start and invitation links, the players' own part
// in the shuffle, and re-reading the table after any seat changes (joined, left, a rematch
// accepted, a seat resigned or handed to the bot).
import { api, ApiError, get, post } from "./api.js";
import { flash, h, rerender } from "./dom.js";
import { formatDateTime, formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { contributionKey, shuffleContribution } from "./matches.js";

/**
 * `page`: the table page's `state`, elements (`el`), page `data`, `matchId`, `user` and `socket`,
 * and its `render`, `seatNumber`, `nameOrYou`, `isCreator`, `startsWhen` and `errorText`.
 */
export function tableSetup(page) {
  const { state, el, data, matchId, user, socket } = page;
  const { render, seatNumber, nameOrYou, isCreator, startsWhen, errorText } = page;

  // --- a contributed shuffle -------------------------------------------------------------------

  // A seated player's page adds 32 random bytes to the shuffle by itself, once, and keeps them so
  // that it can check, once the cards are dealt, that the server used them.
  async function contributeToShuffle() {
    const shuffle = state.match.shuffle;
    const seated = state.seat !== null && state.seat !== undefined;
    if (!shuffle || state.status !== "open" || !seated || shuffle.contributed_seats.includes(state.seat)) return;
    if (state.contributing) return;
    state.contributing = true;
    const value = shuffleContribution();
    try {
      state.match = await post(`matches/${matchId}/shuffle`, { value });
      localStorage.setItem(contributionKey(matchId), value);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) flash(errorText(err), "error");
    } finally {
      state.contributing = false;
    }
    render();
  }

  function renderShuffle() {
    const shuffle = state.match.shuffle;
    el.shuffle.hidden = !shuffle;
    if (!shuffle) return;
    const commitment = `${state.match.seed_sha256.slice(0, 12)}…`;
    const seated = state.seat !== null && state.seat !== undefined;
    const lines = [];
    if (state.status === "open") {
      const count = shuffle.contributed_seats.length;
      lines.push(interpolate(ngettext(
        "The players add to the shuffle: the server committed to its seed (SHA-256 %(commitment)s); %(count)s player has sent theirs so far.",
        "The players add to the shuffle: the server committed to its seed (SHA-256 %(commitment)s); %(count)s players have sent theirs so far.",
        count), { commitment, count: formatNumber(count) }));
      if (seated) lines.push(shuffle.contributed_seats.includes(state.seat) ? gettext("Yours is in.") : gettext("Sending yours…"));
    } else {
      const contributions = shuffle.contributions || [];
      lines.push(interpolate(ngettext(
        "Dealt from the server's committed seed (SHA-256 %(commitment)s) and %(count)s player's contribution.",
        "Dealt from the server's committed seed (SHA-256 %(commitment)s) and %(count)s players' contributions.",
        contributions.length), { commitment, count: formatNumber(contributions.length) }));
      const sent = localStorage.getItem(contributionKey(matchId));
      if (seated && sent) {
        const used = contributions.some((c) => c.seat === state.seat && c.value === sent);
        lines.push(used ? gettext("Yours is among them.")
          : gettext("Yours is NOT among them: the server did not deal with what you sent."));
      }
      if (state.match.seed !== null) {
        lines.push(interpolate(gettext("The server's seed, %(seed)s, is revealed: anyone can re-derive the deal."),
          { seed: state.match.seed }));
      }
    }
    el.shuffle.textContent = lines.join(" ");
  }

  // --- seats before the start -----------------------------------------------------------------

  function renderSetup() {
    if (state.status !== "open") {
      el.setup.hidden = true;
      return;
    }
    el.setup.hidden = false;
    const seated = state.seat !== null && state.seat !== undefined;
    const free = state.match.seats.filter((info) => !info.name).length;
    const bots = data.bots;
    // Sitting down at a table whose creator chose the deck takes the joiner's word that they know.
    const mustConfirm = Boolean(state.match.deck_chosen && user && !seated && !isCreator());
    const rows = state.match.seats.map((info) => {
      const seat = info.seat;
      if (info.name) {
        return h("li", { class: "setup-seat" }, h("span", { class: "seat-no" }, seatNumber(seat)),
          h("span", {}, nameOrYou(seat)),
          state.match.rematch_of && !info.bot ? h("span", { class: "muted small" },
            " ", info.ready ? gettext("accepted the rematch") : gettext("has not accepted the rematch yet")) : null,
          seat === state.seat && !info.ready ? h("button", { type: "button", class: "btn btn-small btn-primary",
            "data-key": "accept-rematch", onclick: () => act(`matches/${matchId}/accept`, {}, gettext("You accepted the rematch.")) },
          gettext("Accept the rematch")) : null,
          seat === state.seat && !isCreator() ? h("button", { type: "button", class: "btn btn-small", "data-key": "leave",
            onclick: () => act(`matches/${matchId}/leave`, {}, gettext("You left the table.")) }, gettext("Leave")) : null);
      }
      const botSelect = h("select", { id: `bot-${seat}`,
        "aria-label": interpolate(gettext("Bot for seat %(number)s"), { number: seat + 1 }) },
      bots.map((bot) => h("option", { value: bot, selected: bot === data.strong_bot }, bot)));
      return h("li", { class: "setup-seat" }, h("span", { class: "seat-no" }, seatNumber(seat)),
        h("span", { class: "muted" }, pgettext("seat", "empty")),
        user && !seated ? h("button", { type: "button", class: "btn btn-small btn-primary", "data-key": `sit:${seat}`,
          disabled: mustConfirm && !state.deckConfirmed,
          onclick: () => act(`matches/${matchId}/join`, mustConfirm ? { seat, confirm_chosen_deck: true } : { seat },
            gettext("You sat down.")) }, gettext("Sit here")) : null,
        isCreator() ? h("span", { class: "add-bot" }, botSelect, h("button", {
          type: "button", class: "btn btn-small", "data-key": `bot:${seat}`,
          onclick: () => act(`matches/${matchId}/bots`, { seat, bot: botSelect.value }, gettext("A bot sat down.")),
        }, gettext("Add bot"))) : null);
    });
    const footer = [];
    if (!user) {
      footer.push(h("p", {}, h("a", { href: `/login?next=${encodeURIComponent(location.pathname)}` },
        gettext("Log in to sit down."))));
    }
    if (isCreator()) {
      if (free > 0) {
        footer.push(h("button", { type: "button", class: "btn", "data-key": "fill-bots", onclick: fillWithBots },
          interpolate(ngettext("Fill the empty seat with a %(bot)s bot", "Fill %(count)s empty seats with %(bot)s bots", free),
            { count: formatNumber(free), bot: data.strong_bot })));
      }
      const unaccepted = state.match.seats.some((info) => info.name && !info.ready);
      footer.push(h("button", { type: "button", class: "btn btn-primary", "data-key": "start", disabled: free > 0 || unaccepted,
        onclick: () => act(`matches/${matchId}/start`, undefined, gettext("The game starts.")) }, gettext("Start the game")));
    } else if (free === 0) {
      footer.push(h("p", { class: "muted" }, state.match.rematch_of ? startsWhen()
        : gettext("Every seat is taken: the table's creator starts the game.")));
    }
    const deckNotice = state.match.deck_chosen ? h("div", { class: "banner", id: "deck-chosen" },
      h("p", {}, isCreator() ? gettext("You chose this table's deck: whoever sits down is asked to agree to it.")
        : gettext("The table's creator chose the deck, so they may know every hand.")),
      mustConfirm ? h("label", { class: "check" }, h("input", {
        type: "checkbox", "data-key": "confirm-deck", checked: state.deckConfirmed,
        onchange: (event) => { state.deckConfirmed = event.target.checked; renderSetup(); },
      }), " ", gettext("I understand, and want to sit down anyway")) : null) : null;
    rerender(el.setup, () => [h("h2", {}, gettext("Seats")), deckNotice, h("ol", { class: "setup-seats" }, rows),
      h("div", { class: "action-bar" }, footer), isCreator() && free > 0 ? invitationsPanel() : null]);
  }

  // --- invitation links (the creator's, while the table is open) ------------------------------

  function invitationsPanel() {
    const live = (state.invitations || []).filter((i) => !i.revoked_at && new Date(i.expires_at) > new Date());
    return h("div", { class: "invitations", id: "invitations" },
      h("h3", {}, gettext("Invite by link")),
      h("p", { class: "muted small" }, state.match.private
        ? gettext("This table is private: only people with a link can sit down.")
        : gettext("Anyone can sit down from the lobby; a link takes a friend straight here.")),
      h("button", { type: "button", class: "btn btn-small", "data-key": "invite", onclick: invite }, gettext("Make a link")),
      state.newLink ? h("p", {}, h("input", { type: "text", readonly: true, value: state.newLink, id: "invite-link",
        "aria-label": gettext("Invitation link"), onfocus: (event) => event.target.select() }),
      h("button", { type: "button", class: "btn btn-small", "data-key": "copy-link",
        onclick: () => navigator.clipboard.writeText(state.newLink).then(() => flash(gettext("Link copied.")))
      }, gettext("Copy"))) : null,
      live.length ? h("ul", { class: "invitation-list" }, live.map((i) => h("li", {},
        interpolate(gettext("%(seat)s, until %(time)s"), {
          seat: i.seat === null ? gettext("Any free seat") : seatNumber(i.seat), time: formatDateTime(i.expires_at) }), " ",
        h("button", { type: "button", class: "btn btn-small", "data-key": `revoke:${i.id}`,
          onclick: () => revokeInvitation(i.id) }, gettext("Revoke"))))) : null);
  }

  async function loadInvitations() {
    if (!isCreator() || state.status !== "open") return;
    try {
      state.invitations = await get(`matches/${matchId}/invitations`);
    } catch (err) {
      flash(errorText(err), "error");
    }
    renderSetup();
  }

  async function invite() {
    try {
      const made = await post(`matches/${matchId}/invitations`, {});
      state.newLink = `${location.origin}${made.url}`;
    } catch (err) {
      flash(errorText(err), "error");
    }
    await loadInvitations();
  }

  async function revokeInvitation(id) {
    try {
      await api(`matches/${matchId}/invitations/${id}`, { method: "DELETE" });
      flash(gettext("The link no longer works."));
    } catch (err) {
      flash(errorText(err), "error");
    }
    await loadInvitations();
  }

  async function act(path, body, done) {
    try {
      const answer = await post(path, body);
      if (answer && answer.seats) state.match = answer;
      await afterSeatChange();
      if (done) flash(done);
    } catch (err) {
      flash(errorText(err), "error");
      await afterSeatChange();
    }
  }

  async function fillWithBots() {
    try {
      for (const info of state.match.seats) {
        if (!info.name) state.match = await post(`matches/${matchId}/bots`, { seat: info.seat, bot: data.strong_bot });
      }
    } catch (err) {
      flash(errorText(err), "error");
    }
    await afterSeatChange();
  }

  async function afterSeatChange() {
    try {
      state.match = await get(`matches/${matchId}`);
    } catch (err) {
      flash(errorText(err), "error");
    }
    const mine = user ? state.match.seats.find((info) => info.user === user.id) : null;
    const seat = mine ? mine.seat : null;
    if (seat !== state.seat) {
      state.seat = seat;
      socket.restart(); // the table's presence shows the new seat at once
    }
    if (state.match.status !== "open" && state.status === "open") state.status = state.match.status;
    render();
    contributeToShuffle();
  }

  function pollWhileOpen() {
    // An open table's seats change by others' hands; a finished one may be offered a rematch.
    const waitingForRematch = state.status === "finished" && state.seat !== null && state.seat !== undefined
      && !state.match.rematch;
    if ((state.status === "open" || waitingForRematch) && document.visibilityState === "visible") afterSeatChange();
    setTimeout(pollWhileOpen, 2500);
  }

  return { act, contributeToShuffle, loadInvitations, pollWhileOpen, renderSetup, renderShuffle };
}

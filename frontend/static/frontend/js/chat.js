// The table's chat panel: a Players tab and a Spectators tab, a box to write in, a mute button
// per author, a hide button for the organiser and staff; and a finished table's chat, read only,
// beside its replay (chatTranscript). Everything said is put on the page as text (h() makes text
// nodes), never as HTML: a message is whatever its author typed.
import { api, get, post } from "./api.js";
import { flash, h } from "./dom.js";
import { formatDateTime, gettext, interpolate } from "./i18n.js";

const CHANNELS = [["players", gettext("Players")], ["spectators", gettext("Spectators")]];
const CHANNEL_LABELS = Object.fromEntries(CHANNELS);
const HIDDEN_TEXT = gettext("hidden by a moderator"); // the organiser of the match's tournament, or staff

/**
 * options: { root, matchId, user, seated, moderator, closed, socket, newKey }
 * seated(): whether the reader holds a seat now (people sit down at an open table).
 * closed: the table's spectators' channel is closed to its players (a duplicate-deal table).
 * Returns { receive(frame) -> bool }: true for the chat frames it handled.
 */
export function tableChat({ root, matchId, user, seated, moderator, closed, socket, newKey }) {
  const preference = `chat-spectators-${matchId}`;
  const state = {
    messages: new Map(), // message seq -> message, as this reader may see it
    tab: seated() ? "players" : "spectators",
    spectatorsShown: localStorage.getItem(preference) !== "hidden",
    muted: new Map(), // user id -> name
  };
  const list = h("ol", { class: "chat-list", "aria-live": "polite", tabindex: "0" });
  const tabs = h("div", { class: "chat-tabs", role: "tablist" });
  const note = h("p", { class: "muted small chat-note" });
  const mutedLine = h("p", { class: "muted small chat-muted" });
  const box = h("textarea", { rows: "2", maxlength: "500", "aria-label": gettext("Your message"),
    placeholder: gettext("Say something…") });
  const form = h("form", { class: "chat-form", onsubmit: (event) => { event.preventDefault(); send(); } },
    box, h("button", { type: "submit", class: "btn btn-small" }, gettext("Send")));
  const toggle = h("label", { class: "check small" },
    h("input", { type: "checkbox", checked: state.spectatorsShown, disabled: closed,
      onchange: (event) => showSpectators(event.target.checked) }),
    " ", gettext("Show the spectators' chat"));
  root.replaceChildren(h("h2", { class: "panel-title", id: "chat-title" }, gettext("Chat")), tabs, toggle, note, list, mutedLine,
    user ? form : h("p", { class: "muted small" }, gettext("Log in to chat.")));

  function ownChannel() {
    return seated() ? "players" : "spectators";
  }

  function render() {
    tabs.replaceChildren(...CHANNELS.map(([channel, label]) => h("button", {
      type: "button", role: "tab", class: ["chat-tab", state.tab === channel && "active"],
      "aria-selected": state.tab === channel ? "true" : "false",
      onclick: () => { state.tab = channel; render(); },
    }, label)));
    toggle.hidden = !seated(); // a players' choice
    const spectatorsOff = state.tab === "spectators" && seated() && (closed || !state.spectatorsShown);
    note.textContent = spectatorsOff ? (closed
      ? gettext("The spectators' chat is closed to players while this duplicate-deal round runs: it could carry the deal.")
      : gettext("You chose not to see the spectators' chat.")) : "";
    const shown = [...state.messages.values()]
      .filter((message) => message.channel === state.tab && !state.muted.has(message.author.id) && !spectatorsOff)
      .sort((a, b) => a.seq - b.seq);
    list.replaceChildren(...shown.map(renderMessage));
    list.scrollTop = list.scrollHeight;
    form.hidden = state.tab !== ownChannel();
    mutedLine.replaceChildren(...(state.muted.size ? [gettext("Muted:"), " ", ...[...state.muted].map(([id, name]) =>
      h("button", { type: "button", class: "linkish small", title: gettext("Hear them again"), onclick: () => unmute(id) },
        `${name} ×`))] : []));
  }

  function renderMessage(message) {
    const mine = user && message.author.id === user.id;
    const text = message.text === null ? h("span", { class: "muted" }, `(${HIDDEN_TEXT})`)
      : h("span", { class: ["chat-text", message.hidden && "chat-hidden"] }, message.text);
    return h("li", { class: "chat-message", dataset: { seq: String(message.seq) } },
      h("strong", { class: "chat-author" }, message.author.name), " ", text,
      message.hidden_by ? h("span", { class: "muted small" }, " ",
        interpolate(gettext("(hidden by %(name)s)"), { name: message.hidden_by.name })) : null,
      user && !mine ? h("button", { type: "button", class: "linkish small", title: gettext("Stop seeing their messages"),
        onclick: () => mute(message.author) }, gettext("mute")) : null,
      moderator && !message.hidden ? h("button", { type: "button", class: "linkish small", onclick: () => hide(message.seq) },
        gettext("hide")) : null);
  }

  function apply(items) {
    for (const item of items) state.messages.set(item.message.seq, item.message);
    render();
  }

  async function send() {
    const text = box.value.trim();
    if (!text) return;
    const frame = { type: "chat", text, id: newKey() };
    box.value = "";
    if (socket.send(frame)) return; // chat_ack, or an error frame naming the id
    try {
      apply([await post(`matches/${matchId}/chat`, { text, id: frame.id })]);
    } catch (err) {
      box.value = text;
      flash(err.message, "error");
    }
  }

  async function hide(seq) {
    try {
      apply([await post(`matches/${matchId}/chat/${seq}/hide`)]);
    } catch (err) {
      flash(err.message, "error");
    }
  }

  async function mute(author) {
    try {
      await post(`chat/mutes/${author.id}`);
      state.muted.set(author.id, author.name);
      render();
    } catch (err) {
      flash(err.message, "error");
    }
  }

  async function unmute(id) {
    try {
      await api(`chat/mutes/${id}`, { method: "DELETE" });
      state.muted.delete(id);
      render();
      socket.send({ type: "chat_since", since: 0 }); // what they said meanwhile was not sent here
    } catch (err) {
      flash(err.message, "error");
    }
  }

  function showSpectators(shown) {
    state.spectatorsShown = shown;
    localStorage.setItem(preference, shown ? "shown" : "hidden");
    socket.send({ type: "chat_channels", spectators: shown });
    render();
  }

  async function loadMutes() {
    if (!user) return;
    try {
      for (const person of await get("chat/mutes")) state.muted.set(person.id, person.name);
      render();
    } catch (err) {
      // The chat still works; mutes the server already applies.
    }
  }

  render();
  loadMutes();

  return {
    receive(frame) {
      switch (frame.type) {
        case "snapshot":
          // A new connection sends every channel until told otherwise.
          if (seated() && !state.spectatorsShown) socket.send({ type: "chat_channels", spectators: false });
          return false;
        case "chat_history":
          apply(frame.items);
          return true;
        case "chat":
          apply([{ seq: frame.chat_seq, type: frame.event, message: frame.message }]);
          return true;
        case "chat_ack":
        case "chat_channels":
          return true;
        default:
          return false;
      }
    },
  };
}

/**
 * A table's chat, read only, beside its replay: every message the reader may read (the chat API
 * decides: channels, hides, their own mutes), oldest first, each labelled with its channel.
 * The replay gives no time for its positions, so the whole chat is shown, not the part said by
 * the position on the board. Resolves once the chat is on the page (or said not to load).
 */
export async function chatTranscript({ root, matchId }) {
  const note = h("p", { class: "muted small chat-note", role: "status" }, gettext("Loading the table's chat…"));
  const list = h("ol", { class: "chat-list chat-transcript", tabindex: "0", "aria-labelledby": "chat-title" });
  root.replaceChildren(h("h2", { class: "panel-title", id: "chat-title" }, gettext("Table chat")), note, list);
  root.hidden = false;
  const messages = new Map(); // message seq -> message: a hide brings its message again, hidden
  try {
    let since = 0;
    for (;;) {
      const page = await get(`matches/${matchId}/chat`, { since });
      for (const item of page.items) messages.set(item.message.seq, item.message);
      if (!page.more || page.head <= since) break;
      since = page.head;
    }
  } catch (err) {
    note.textContent = interpolate(gettext("The table's chat could not be loaded: %(reason)s"), { reason: err.message });
    root.dataset.loaded = "error";
    return;
  }
  const shown = [...messages.values()].sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || a.seq - b.seq);
  note.textContent = shown.length ? gettext("Everything said at the table, oldest first.")
    : gettext("Nobody wrote in this table's chat.");
  list.replaceChildren(...shown.map(transcriptLine));
  list.hidden = !shown.length;
  root.dataset.loaded = "true";
}

function transcriptLine(message) {
  const when = new Date(message.created);
  return h("li", { class: ["chat-message", `chat-channel-${message.channel}`], dataset: { seq: String(message.seq), channel: message.channel } },
    h("span", { class: "chat-channel" }, CHANNEL_LABELS[message.channel] || message.channel), " ",
    h("time", { class: "muted small", datetime: message.created, title: formatDateTime(when) },
      formatDateTime(when, { hour: "2-digit", minute: "2-digit" })), " ",

    h("strong", { class: "chat-author" }, message.author.name), " ",
    message.hidden ? h("span", { class: "muted chat-hidden-note" }, `(${HIDDEN_TEXT}${message.hidden_by ? `: ${message.hidden_by.name}` : ""})`) : null,
    message.text === null ? null : [message.hidden ? " " : null, h("span", { class: ["chat-text", message.hidden && "chat-hidden"] }, message.text)]);
}

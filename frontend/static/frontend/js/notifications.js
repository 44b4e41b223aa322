// A logged-in person's notifications on every page: the nav badge with the unread count, kept
// live by /ws/notifications/ (polling GET /api/notifications/unread-count while the socket
// cannot open), the browser's own notifications for ones that arrive while the tab is hidden
// (only once the person allowed them with the button: never asked on load), the list on
// /notifications (an invitation's sender may be muted from it) and the per-kind choices on /account. Text goes in with textContent only.

import { api, get, post } from "./api.js";
import { formatDateTime, formatNumber, gettext, interpolate, ngettext } from "./i18n.js";

const POLL_MS = 30000;
const RECONNECT_MS = [1000, 3000, 10000, 30000];

const badge = document.getElementById("notification-badge");
const allowButton = document.getElementById("notification-allow");

function showUnread(count) {
  if (!badge) return;
  badge.textContent = formatNumber(count);
  badge.hidden = count === 0;
  badge.setAttribute("aria-label", interpolate(ngettext("%(count)s unread notification", "%(count)s unread notifications", count), { count }));
}

function desktopNotice(notification) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState !== "hidden") return;
  const shown = new Notification(notification.title, { body: notification.body, tag: `card-league-${notification.id}` });
  shown.addEventListener("click", () => {
    window.focus();
    location.assign(notification.url);
  });
}

function offerDesktopNotices() {
  if (!allowButton || !("Notification" in window) || Notification.permission !== "default") return;
  allowButton.hidden = false;
  allowButton.addEventListener("click", async () => {
    await Notification.requestPermission();
    allowButton.hidden = true;
  });
}

class NotificationSocket {
  constructor({ onFrame }) {
    this.onFrame = onFrame;
    this.attempt = 0;
    this.pollTimer = null;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/notifications/`);
    ws.addEventListener("open", () => {
      this.attempt = 0;
      this.stopPolling();
    });
    ws.addEventListener("message", (event) => {
      try {
        this.onFrame(JSON.parse(event.data));
      } catch (err) {
        /* a frame that is not JSON is ignored */
      }
    });
    ws.addEventListener("close", (event) => {
      if (event.code === 4401) return; // logged out: nothing more to show
      this.startPolling();
      const wait = RECONNECT_MS[Math.min(this.attempt, RECONNECT_MS.length - 1)];
      this.attempt += 1;
      setTimeout(() => this.connect(), wait);
    });
  }

  startPolling() {
    if (this.pollTimer !== null) return;
    const poll = async () => {
      try {
        showUnread((await get("notifications/unread-count")).unread);
      } catch (err) {
        /* the server is away: the next poll or the socket tells */
      }
    };
    poll();
    this.pollTimer = setInterval(poll, POLL_MS);
  }

  stopPolling() {
    clearInterval(this.pollTimer);
    this.pollTimer = null;
  }
}

// --- /notifications ----------------------------------------------------------------------------

const list = document.getElementById("notification-list");

function listItem(notification) {
  const item = document.createElement("li");
  item.className = notification.read_at ? "notification" : "notification notification-unread";
  const link = document.createElement("a");
  link.href = notification.url;
  link.textContent = notification.title;
  const body = document.createElement("p");
  body.textContent = notification.body;
  const when = document.createElement("time");
  when.dateTime = notification.created_at;
  when.textContent = formatDateTime(notification.created_at);
  when.className = "muted";
  link.addEventListener("click", () => {
    if (!notification.read_at) post("notifications/read", { ids: [notification.id] }).catch(() => {});
  });
  item.append(link, body, when);
  if (notification.sender) item.append(" ", muteButton(notification.sender));
  return item;
}

// An invitation's sender may be muted from it: their invitations then never reach this person.
function muteButton(sender) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-small notification-mute";
  button.textContent = gettext("Mute sender");
  button.setAttribute("aria-label", interpolate(gettext("Mute %(username)s: their invitations will not reach you"), { username: sender }));
  button.addEventListener("click", async () => {
    const status = document.createElement("p");
    status.className = "muted";
    status.setAttribute("role", "status");
    try {
      await post(`auth/muted/${encodeURIComponent(sender)}`);
      status.textContent = interpolate(gettext("%(username)s is muted: their invitations will not reach you."), { username: sender });
    } catch (err) {
      status.textContent = err.message;
    }
    button.replaceWith(status);
  });
  return button;
}

async function showList() {
  const page = await get("notifications", { limit: 50 });
  list.replaceChildren(...page.results.map(listItem));
  document.getElementById("notification-empty").hidden = page.results.length > 0;
}

function wireList() {
  if (!list) return;
  showList();
  document.getElementById("notification-read-all").addEventListener("click", async () => {
    const answer = await post("notifications/read", { all: true });
    showUnread(answer.unread);
    showList();
  });
}

// --- /account: where each kind reaches the person -------------------------------------------------

function wirePreferences() {
  const form = document.getElementById("notification-preferences");
  if (!form) return;
  const status = document.getElementById("notification-preferences-status");
  form.addEventListener("change", async (event) => {
    const box = event.target;
    try {
      await api("notifications/preferences", {
        method: "PUT", body: { [box.dataset.kind]: { [box.dataset.channel]: box.checked } },
      });
      status.textContent = gettext("Saved.");
    } catch (err) {
      box.checked = !box.checked;
      status.textContent = err.message;
    }
  });
}

if (badge) {
  offerDesktopNotices();
  new NotificationSocket({
    onFrame(frame) {
      if (frame.type === "unread" || frame.type === "pong") showUnread(frame.unread);
      if (frame.type === "notification") {
        showUnread(frame.unread);
        desktopNotice(frame.notification);
        if (list) list.prepend(listItem(frame.notification));
      }
    },
  }).connect();
  wireList();
  wirePreferences();
}

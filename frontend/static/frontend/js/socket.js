// The live table socket: /ws/matches/<id>/?since=<seq>.
//
// Every frame carries `seq`. View frames (snapshot, update) move the client's seq forward;
// any other frame whose seq is ahead of ours means we missed an update (the channel layer's
// hints are at most once), so we ask for it with {"type": "resync", "since": seq}. A dropped
// connection reconnects with ?since=<seq>, and the snapshot brings what was missed. Moves
// carry an id; a move still unanswered when the connection drops is sent again with the same
// id, which the server's idempotency keys turn into the first answer rather than a second move.
// The table's chat has a cursor of its own, `chat_seq`: a reconnection sends ?chat_since= too.
// The socket asks for patches (&patches=1): an update carries the changes to the last view it was
// sent (`view_patch`, from the view at `base`), which it applies and hands on as `view`; one it
// cannot apply makes it ask for the whole view again ({"type": "resync", "full": true}).
import { gettext } from "./i18n.js";

const VIEW_FRAMES = new Set(["snapshot", "update"]);
// How long a socket stays quiet before it asks whether it missed something. While the page
// waits for a bot it asks often: on the embedded default the worker that plays bots shares no
// channel layer with the web server, so no hint comes (with Redis the hints do come, and the
// page stops asking once it has seen one arrive unasked).
const IDLE_RESYNC_MS = 15000;
const WAITING_RESYNC_MS = 1000;
const ACK_GRACE_MS = 1200;
const MOVE_TIMEOUT_MS = 15000;

/** The view `operations` (["set", path, value], ["del", path], ["add", path, items]) make of `view`,
 * a new object (the page compares the view before a frame with the one after it), or null if they
 * do not fit it. */
export function viewPatched(view, operations) {
  const holder = { view: structuredClone(view) };
  for (const [operation, path, value] of operations) {
    const keys = ["view", ...path];
    let parent = holder;
    for (const key of keys.slice(0, -1)) {
      parent = parent[key];
      if (parent === null || typeof parent !== "object") return null;
    }
    const last = keys[keys.length - 1];
    if (operation === "set") parent[last] = value;
    else if (operation === "del") delete parent[last];
    else if (operation === "add" && Array.isArray(parent[last])) parent[last].push(...value);
    else return null;
  }
  return holder.view;
}

function newId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

export class MatchSocket {
  /**
   * onFrame(frame): every view frame (snapshot/update), presence, auto_pass, chat and error frame.
   * onStatus(status): "connecting" | "live" | "reconnecting" | "closed".
   */
  constructor(matchId, { since = 0, onFrame = () => {}, onStatus = () => {} } = {}) {
    this.matchId = matchId;
    this.seq = since;
    this.chatSeq = 0;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.pending = new Map();
    this.attempt = 0;
    this.stopped = false;
    this.ws = null;
    this.view = null; // the last view frame's view: what a patch applies to
    this.idleTimer = null;
    this.reconnectTimer = null;
    this.idleMs = IDLE_RESYNC_MS;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/matches/${this.matchId}/?since=${this.seq}&chat_since=${this.chatSeq}&patches=1`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.reconnectTimer);
    this.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.onStatus("live");
      this.armIdleResync();
      for (const [id, entry] of this.pending) ws.send(JSON.stringify({ type: "move", id, ...entry.frame }));
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      this.receive(frame);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      clearTimeout(this.idleTimer);
      if (this.stopped || event.code === 4404 || event.code === 4403) {
        this.onStatus("closed");
        return;
      }
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    this.attempt += 1;
    this.onStatus("reconnecting");
    const delay = Math.min(10000, 400 * 2 ** Math.min(this.attempt - 1, 5)) * (0.75 + Math.random() / 2);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.stopped || this.open) return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) return;
    this.attempt = Math.max(this.attempt, 1);
    this.connect();
  }

  /** Connects again at once, e.g. after taking a seat (the server picks the seat at connect). */
  restart() {
    const old = this.ws;
    this.ws = null;
    // Closing a socket that is still connecting makes the browser log an error: let it open first.
    if (old && old.readyState === WebSocket.CONNECTING) old.addEventListener("open", () => old.close(1000, "restart"));
    else if (old) old.close(1000, "restart");
    this.attempt = 0;
    this.connect();
  }

  /** Drops the connection as a network failure would (used to test resuming). */
  drop() {
    if (this.ws) this.ws.close(4000, "dropped");
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.idleTimer);
    if (this.ws) this.ws.close(1000, "done");
  }

  send(frame) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  resync() {
    if (this.send({ type: "resync", since: this.seq })) this.resyncPending = true;
  }

  /** True while the page waits on other players: then it checks for missed frames often. */
  setWaiting(waiting) {
    const idleMs = waiting ? WAITING_RESYNC_MS : IDLE_RESYNC_MS;
    if (idleMs === this.idleMs) return;
    this.idleMs = idleMs;
    if (this.open) this.armIdleResync();
  }

  armIdleResync() {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.resync();
      this.armIdleResync();
    }, this.idleMs);
  }

  receive(frame) {
    if (typeof frame.chat_seq === "number") this.chatSeq = Math.max(this.chatSeq, frame.chat_seq);
    const seq = typeof frame.seq === "number" ? frame.seq : null;
    if (VIEW_FRAMES.has(frame.type)) {
      if (seq !== null && seq < this.seq && frame.type === "update") return; // older than what we show
      if (frame.view_patch !== undefined) {
        const view = frame.base === this.seq && this.view ? viewPatched(this.view, frame.view_patch) : null;
        if (view === null) { // not made from the view we hold: ask for the whole view
          this.send({ type: "resync", since: this.seq, full: true });
          return;
        }
        frame.view = view;
        delete frame.view_patch;
        delete frame.base;
      }
      if (frame.view !== undefined) this.view = frame.view;
      if (seq !== null) this.seq = seq;
      this.armIdleResync();
      // An update while no resync of ours is outstanding was pushed: the hints reach this socket.
      // (An update after an unanswered resync counts as an answer: wrongly so at worst, and then
      // the page merely keeps asking.)
      frame.pushed = frame.type === "update" && !this.resyncPending;
      this.resyncPending = false;
      this.onFrame(frame);
      return;
    }
    if (frame.type === "ack") {
      const entry = this.pending.get(frame.id);
      if (entry) {
        this.pending.delete(frame.id);
        clearTimeout(entry.timer);
        entry.resolve(frame);
      }
      // The update for our own move is sent separately; if it does not come, ask for it.
      if (seq !== null && seq > this.seq) {
        setTimeout(() => { if (seq > this.seq) this.resync(); }, ACK_GRACE_MS);
      }
      return;
    }
    if (seq !== null && seq > this.seq) this.resync(); // a gap: the server is ahead of us
    if (frame.type === "error" && frame.id && this.pending.has(frame.id)) {
      const entry = this.pending.get(frame.id);
      this.pending.delete(frame.id);
      clearTimeout(entry.timer);
      const error = new Error(frame.message);
      error.code = frame.code;
      entry.reject(error);
      if (frame.code === "stale_seq") this.resync();
      return;
    }
    this.onFrame(frame);
  }

  /** Sends a move; resolves with the ack, rejects with the server's error (err.code). */
  move(move, expectedSeq) {
    const id = newId();
    const frame = { move };
    if (typeof expectedSeq === "number") frame.expected_seq = expectedSeq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        const error = new Error(gettext("The server did not answer the move in time."));
        error.code = "timeout";
        reject(error);
        this.resync();
      }, MOVE_TIMEOUT_MS);
      this.pending.set(id, { frame, resolve, reject, timer });
      this.send({ type: "move", id, ...frame }); // if closed, sent on reconnect
    });
  }

  setAutoPass(enabled) {
    return this.send({ type: "auto_pass", enabled });
  }
}

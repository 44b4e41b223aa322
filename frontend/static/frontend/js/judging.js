// The judges' queue (issue #46): calls from the tables live, oldest first. A judge takes a call
// nobody has taken, goes to the table, and resolves it with a ruling: a note, time added to the
// table, a warning to a player, or (the organiser) the table's result corrected by forfeit. The
// organiser names and removes judges here. Read again every two seconds from the position last
// read, so a call another judge takes leaves "Waiting" on every judge's screen at once.
import { api, get, pageData, post } from "./api.js";
import { flash, h, rerender, timeAgo } from "./dom.js";
import { formatNumber, gettext, interpolate } from "./i18n.js";
import { callStatusText, minutesText, reasonText, rulingText } from "./judge-call.js";

const data = pageData("judging-data");
const root = document.getElementById("judging");
const id = data.id;
const POLL_MS = 2000;
const RESOLVED_SHOWN = 20;
const EXTENSIONS = [60, 120, 180, 300, 600, 900];

const el = {
  status: document.getElementById("judging-status"),
  open: document.getElementById("calls-open"),
  claimed: document.getElementById("calls-claimed"),
  resolved: document.getElementById("calls-resolved"),
  judges: document.getElementById("judges"),
};

const state = { head: 0, calls: new Map(), judges: [], organiser: null, drafts: new Map(), busy: false };
const baseTitle = document.title;

function errorText(err) {
  return err.message || String(err.code || err);
}

async function act(promise, done) {
  state.busy = true;
  try {
    await promise;
    if (done) flash(done);
  } catch (err) {
    flash(errorText(err), "error");
  } finally {
    state.busy = false;
  }
  await read();
}

// --- reading ------------------------------------------------------------------------------------

async function read() {
  const queue = await get(`tournaments/${id}/judge-calls`, { after: state.head });
  const changed = !state.organiser || queue.head !== state.head;
  for (const call of queue.calls) state.calls.set(call.number, call);
  state.head = queue.head;
  state.judges = queue.judges;
  state.organiser = queue.organiser;
  if (changed) render();
}

async function follow() {
  try {
    await read();
    el.status.textContent = "";
  } catch (err) {
    el.status.textContent = interpolate(gettext("The calls could not be read: %(error)s"), { error: errorText(err) });
  }
  setTimeout(follow, document.visibilityState === "visible" ? POLL_MS : POLL_MS * 5);
}

// --- drawing ------------------------------------------------------------------------------------

function render() {
  const calls = [...state.calls.values()].sort((a, b) => a.number - b.number);
  const open = calls.filter((c) => c.status === "open");
  root.dataset.head = String(state.head);
  document.title = open.length ? `(${formatNumber(open.length)}) ${baseTitle}` : baseTitle;
  // A form being filled in keeps its focus and its words: it is drawn again only when its call changes.
  rerender(el.open, () => (open.length ? open.map(callCard) : h("li", { class: "muted" }, gettext("No call is waiting."))));
  const claimed = calls.filter((c) => c.status === "claimed");
  if (!el.claimed.contains(document.activeElement) || claimed.length !== el.claimed.querySelectorAll("[data-call]").length) {
    rerender(el.claimed, () => (claimed.length ? claimed.map(callCard) : h("li", { class: "muted" }, gettext("Nobody is at a table."))));
  }
  const resolved = calls.filter((c) => c.status === "resolved").reverse().slice(0, RESOLVED_SHOWN);
  rerender(el.resolved, () => (resolved.length ? resolved.map(callCard) : h("li", { class: "muted" }, gettext("None yet."))));
  renderJudges();
}

function where(call) {
  return interpolate(gettext("Round %(round)s, table %(table)s"), { round: formatNumber(call.round), table: formatNumber(call.table) });
}

function callCard(call) {
  return h("li", { class: ["judge-call", `is-${call.status}`], "data-call": String(call.number), "data-status": call.status },
    h("p", { class: "judge-call-where" }, h("strong", {}, call.match_url ? h("a", { href: call.match_url }, where(call)) : where(call)),
      ` · ${call.seats.map((seat) => seat.name).join(" – ")}`),
    h("p", {}, interpolate(gettext("%(name)s: %(reason)s"), { name: call.caller.name, reason: reasonText(call.reason) }),
      h("span", { class: "muted small" }, ` · ${timeAgo(call.called_at)} · `,
        interpolate(gettext("called at position %(seq)s of the table's log"), { seq: formatNumber(call.match_seq) }))),
    call.details ? h("blockquote", { class: "judge-call-details" }, call.details) : null,
    h("p", { class: "judge-call-status muted small" }, callStatusText(call)),
    call.ruling ? h("p", { class: "judge-ruling", "data-ruling": call.ruling.kind }, rulingText(call.ruling, call.seats)) : null,
    call.status === "open" ? h("p", {}, h("button", {
      type: "button", class: "btn btn-small btn-primary", "data-key": `take-${call.number}`,
      onclick: () => act(post(`tournaments/${id}/judge-calls/${call.number}/claim`),
        interpolate(gettext("You took the call from %(where)s."), { where: where(call) })),
    }, gettext("Take this call"))) : null,
    call.status === "claimed" && (call.claimed_by.id === data.user.id || data.head) ? rulingForm(call) : null);
}

function rulingForm(call) {
  const key = `ruling-${call.number}`;
  const draft = state.drafts.get(call.number) || { kind: "note", note: "", seconds: 300, entrant: call.seats[0] && call.seats[0].id };
  state.drafts.set(call.number, draft);
  const kinds = [["note", gettext("A note only")], ["extension", gettext("Add time to the table")],
    ["penalty", gettext("A warning to a player")]];
  if (data.corrects) kinds.push(["correction", gettext("The table is forfeited by a player")]);
  const field = (label, input) => h("p", { class: "field" }, h("label", { for: input.id }, label), input);
  const kind = h("select", { id: `${key}-kind`, onchange: (e) => { draft.kind = e.target.value; rerenderForm(); } },
    kinds.map(([value, label]) => h("option", { value, selected: value === draft.kind }, label)));
  const note = h("textarea", { id: `${key}-note`, rows: "2", maxlength: "1000", required: true,
    oninput: (e) => { draft.note = e.target.value; } });
  note.value = draft.note;
  const seats = (id2) => h("select", { id: id2, onchange: (e) => { draft.entrant = Number(e.target.value); } },
    call.seats.map((seat) => h("option", { value: String(seat.id), selected: seat.id === draft.entrant }, seat.name)));
  const extra = {
    extension: () => field(gettext("Time to add"), h("select", { id: `${key}-seconds`, onchange: (e) => { draft.seconds = Number(e.target.value); } },
      EXTENSIONS.map((s) => h("option", { value: String(s), selected: s === draft.seconds }, minutesText(s))))),
    penalty: () => field(gettext("Player warned"), seats(`${key}-entrant`)),
    correction: () => field(gettext("Player who forfeits"), seats(`${key}-entrant`)),
  }[draft.kind];
  const form = h("form", { class: "ruling-form", "data-key": key, onsubmit: (e) => { e.preventDefault(); resolve(call, draft); } },
    field(gettext("Ruling"), kind),
    extra ? extra() : null,
    field(gettext("What you ruled, for the players"), note),
    h("p", {}, h("button", { type: "submit", class: "btn btn-small btn-primary", "data-key": `resolve-${call.number}` }, gettext("Resolve"))));
  function rerenderForm() {
    form.replaceWith(rulingForm(call));
    document.getElementById(`${key}-kind`).focus();
  }
  return form;
}

function resolve(call, draft) {
  const body = { kind: draft.kind, note: draft.note };
  if (draft.kind === "extension") body.seconds = draft.seconds;
  if (draft.kind === "penalty") Object.assign(body, { entrant: draft.entrant, penalty: "warning" });
  if (draft.kind === "correction") body.forfeited = [draft.entrant];
  state.drafts.delete(call.number);
  act(post(`tournaments/${id}/judge-calls/${call.number}/resolve`, body),
    interpolate(gettext("The call from %(where)s is resolved."), { where: where(call) }));
}

function renderJudges() {
  if (el.judges.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
  const remove = (judge) => act(api(`tournaments/${id}/judges/${judge.id}`, { method: "DELETE" }),
    interpolate(gettext("%(name)s no longer judges this tournament."), { name: judge.name }));
  rerender(el.judges, () => [
    state.organiser ? h("li", {}, state.organiser.name, h("span", { class: "muted small" }, ` · ${gettext("organiser")}`)) : null,
    ...state.judges.map((judge) => h("li", { "data-judge": String(judge.id) }, judge.name,
      data.head ? [" ", h("button", { type: "button", class: "btn btn-small", onclick: () => remove(judge),
        "aria-label": interpolate(gettext("Remove %(name)s"), { name: judge.name }) }, gettext("Remove"))] : null)),
    data.head ? h("li", {}, nameJudgeForm()) : null,
  ]);
}

function nameJudgeForm() {
  const input = h("input", { id: "judge-username", type: "text", autocomplete: "off", required: true });
  return h("form", { class: "inline-form", onsubmit: (e) => {
    e.preventDefault();
    act(post(`tournaments/${id}/judges`, { username: input.value.trim() }),
      interpolate(gettext("%(name)s judges this tournament now."), { name: input.value.trim() }));
  } },
  h("label", { for: "judge-username" }, gettext("Name a judge (their username)")), " ", input, " ",
  h("button", { type: "submit", class: "btn btn-small" }, gettext("Add")));
}

follow();
setInterval(() => { if (!state.busy) render(); }, 30000); // "3 minutes ago" stays true

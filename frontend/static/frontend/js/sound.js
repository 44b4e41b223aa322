// The table's sound cues (issue #42 item 4), made here at run time with the Web Audio API:
// oscillators shaped by gain envelopes, no audio files. Your turn, a card played (anyone's), a
// stack finished or a round's end, and a win or a loss at the end. The volume is the account's
// (`sound_volume`, 0 muted; an anonymous reader's in this browser), and the table's mute button
// changes it at once. A spectator's page stays silent until they unmute it.
//
// Browsers start audio only after a gesture on the page: the first click or key press makes the
// AudioContext, which then plays in a background tab too, so "your turn" reaches a hidden tab.
// Under automation (navigator.webdriver) nothing is heard unless the test sets
// window.cardLeagueSoundAudible; every cue let through is logged in window.cardLeagueSound.log.
import { api } from "./api.js";
import { flash, h, s } from "./dom.js";
import { gettext } from "./i18n.js";
import { countedWinners } from "./matches.js";

export const DEFAULT_VOLUME = 70;
const VOLUME_KEY = "cardLeague.soundVolume"; // an anonymous reader's volume
export const BEFORE_MUTE_KEY = "cardLeague.soundVolumeBeforeMute"; // what unmuting goes back to

// Each cue is notes [start s, frequency Hz, length s, wave, peak gain, frequency glided to].
const CUES = {
  // A soft tick: a 50 ms triangle blip falling an octave, like a card set down.
  card: [[0, 1400, 0.05, "triangle", 0.3, 700]],
  // Your turn: a two-note bell rising a fifth (E5, B5), clear without being an alarm.
  turn: [[0, 659.25, 0.4, "sine", 0.5], [0.13, 987.77, 0.55, "sine", 0.45]],
  // A stack finished: a quick rising run C5 E5 G5.
  stack: [[0, 523.25, 0.16, "triangle", 0.35], [0.08, 659.25, 0.16, "triangle", 0.35], [0.16, 783.99, 0.4, "triangle", 0.35]],
  // A round's end: a soft open chord (G4 and C5) and a G5 above it, fading slowly.
  round: [[0, 392, 0.7, "sine", 0.35], [0, 523.25, 0.7, "sine", 0.25], [0.2, 783.99, 0.8, "sine", 0.25]],
  // A win: a C major arpeggio up to C6, held.
  win: [[0, 523.25, 0.2, "triangle", 0.4], [0.12, 659.25, 0.2, "triangle", 0.4], [0.24, 783.99, 0.2, "triangle", 0.4],
    [0.36, 1046.5, 0.9, "triangle", 0.45]],
  // A loss: three falling notes, A4 F4 D4, slower and softer.
  loss: [[0, 440, 0.35, "sine", 0.35], [0.26, 349.23, 0.35, "sine", 0.32], [0.52, 293.66, 0.9, "sine", 0.3]],
  // A round's time is up (the venue screen): three strikes of a bell, A5 A5 E5, heard across a room.
  time: [[0, 880, 0.6, "triangle", 0.5], [0.5, 880, 0.6, "triangle", 0.5], [1, 659.25, 1.4, "triangle", 0.5]],
};
// The events that put a card down, take one or turn one up, in any of the games.
const CARD_EVENTS = new Set([
  "CardPlayed", "CardDiscarded", "CardDrawn", "CardBought", "CardsTaken", "CardStolen", "SkipPlayed", "ReversePlayed",
  "MatchMade", "MatchUpgraded", "BonusCardDrawn", "AuctionWon",
]);
const CARD_TICKS_MAX = 3; // a bot's quick plays tick a few times, not a rattle
const CARD_GAP = 0.09; // seconds between ticks of one frame

const heardLog = { log: [] };
window.cardLeagueSound = heardLog;

let audioContext = null;

function audible() {
  return !navigator.webdriver || window.cardLeagueSoundAudible === true;
}

// Made on a gesture, never before: a context made earlier starts suspended and warns.
function unlock() {
  if (!audible() || !(window.AudioContext || window.webkitAudioContext)) return;
  if (!audioContext) audioContext = new (window.AudioContext || window.webkitAudioContext)();
  if (audioContext.state === "suspended") audioContext.resume();
}

function play(names, volume) {
  if (!audioContext || audioContext.state !== "running") return false;
  const master = audioContext.createGain();
  master.gain.value = (volume / 100) ** 2 * 0.8; // the slider feels even to the ear
  master.connect(audioContext.destination);
  let at = audioContext.currentTime + 0.01;
  for (const name of names) {
    for (const [start, frequency, length, wave, peak, glide] of CUES[name]) note(master, at + start, frequency, length, wave, peak, glide);
    at += name === "card" ? CARD_GAP : 0.12;
  }
  return true;
}

function note(master, at, frequency, length, wave, peak, glide) {
  const oscillator = audioContext.createOscillator();
  const envelope = audioContext.createGain();
  oscillator.type = wave;
  oscillator.frequency.setValueAtTime(frequency, at);
  if (glide) oscillator.frequency.exponentialRampToValueAtTime(glide, at + length);
  envelope.gain.setValueAtTime(0.0001, at);
  envelope.gain.exponentialRampToValueAtTime(peak, at + 0.008);
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(envelope).connect(master);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

function stored(key) {
  const value = Number.parseInt(localStorage.getItem(key), 10);
  return Number.isInteger(value) && value >= 0 && value <= 100 ? value : null;
}

/** The cues a frame's news makes: cards, a stack or round, then the end or the turn. */
function cuesFor(events, table, before) {
  const cues = [];
  const cards = events.filter((entry) => CARD_EVENTS.has(entry.event.type)).length;
  for (let i = 0; i < Math.min(cards, CARD_TICKS_MAX); i += 1) cues.push("card");
  const types = new Set(events.map((entry) => entry.event.type));
  const finished = table.status === "finished";
  if (types.has("SequenceCompleted")) cues.push("stack");
  // Split's rounds end with an event; Ten's drawing ends when the final round of buys begins (R12).
  const finalRound = table.view && table.view.phase === "final_buy" && before.phase !== "final_buy";
  if (!finished && (types.has("RoundEnded") || finalRound)) cues.push("round");
  if (finished && !before.finished) cues.push(endCue(table));
  else if (table.myTurn && !before.myTurn) cues.push("turn");
  return cues;
}

function endCue(table) {
  const outcome = (table.view && table.view.outcome) || table.match.outcome;
  const seated = table.seat !== null && table.seat !== undefined;
  if (!seated || !outcome) return "round";
  if (outcome.cooperative) return outcome.won ? "win" : "loss";
  return countedWinners(table.match, outcome).includes(table.seat) ? "win" : "loss";
}

/**
 * The table page's sound: `heard(events, table)` after each frame is applied (`table`: seat,
 * status, view, match, myTurn), and `button`, the mute button for the table's head.
 * `volume`: the account's sound_volume, or null for an anonymous reader.
 */
export function tableSound({ volume, seated }) {
  const signedIn = volume !== null && volume !== undefined;
  let current = signedIn ? volume : stored(VOLUME_KEY) ?? DEFAULT_VOLUME;
  let spectatorUnmuted = false;
  let before = null; // what the last frame left: the first one only sets the scene

  const muted = () => current === 0 || (!seated() && !spectatorUnmuted);
  const button = h("button", {
    type: "button", class: "btn btn-small sound-toggle", id: "sound-toggle",
    "aria-label": gettext("Mute sounds"), title: gettext("Mute sounds"), onclick: toggle,
  });

  function show() {
    const off = muted();
    button.setAttribute("aria-pressed", off ? "true" : "false");
    button.replaceChildren(speaker(off));
    heardLog.volume = off ? 0 : current;
  }

  async function toggle() {
    const wasSpectatorUnmuted = spectatorUnmuted;
    const previous = current;
    if (muted()) {
      spectatorUnmuted = !seated();
      if (current === 0) current = stored(BEFORE_MUTE_KEY) || DEFAULT_VOLUME;
    } else if (!seated()) {
      spectatorUnmuted = false; // a spectator's own page only: their account's volume is for play
    } else {
      localStorage.setItem(BEFORE_MUTE_KEY, String(current));
      current = 0;
    }
    show();
    if (current === previous) return;
    try {
      if (signedIn) await api("auth/me", { method: "PATCH", body: { sound_volume: current } });
      else localStorage.setItem(VOLUME_KEY, String(current));
    } catch (err) {
      current = previous;
      spectatorUnmuted = wasSpectatorUnmuted;
      show();
      flash(err.message || String(err), "error");
    }
  }

  function heard(events, table) {
    show(); // the reader may have sat down since
    const now = { finished: table.status === "finished", myTurn: table.myTurn, phase: table.view && table.view.phase };
    if (!table.view) {
      if (!before && table.status === "open") before = now; // a table that starts while watched: its first turn sounds
      return;
    }
    const cues = before ? cuesFor(events, table, before) : [];
    before = now;
    if (!cues.length || muted()) return;
    const played = play(cues, current);
    for (const cue of cues) heardLog.log.push({ cue, audible: played });
  }

  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, unlock, { capture: true });
  show();
  return { button, heard };
}

/**
 * A page's sound switch for one cue (the venue screen's "time is up"): off until someone presses
 * it, which is also the gesture browsers ask for before they play. `volume`: the account's
 * sound_volume, or null for an anonymous reader (this browser's volume). `ring(cue)` plays the cue
 * if the switch is on and logs it in window.cardLeagueSound.log either way, as the table's do.
 */
export function soundSwitch({ volume }) {
  const level = volume !== null && volume !== undefined ? volume : stored(VOLUME_KEY) ?? DEFAULT_VOLUME;
  let on = false;
  const button = h("button", { type: "button", class: "btn sound-toggle", id: "sound-switch", "data-key": "sound", onclick: toggle });

  function show() {
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.replaceChildren(speaker(!on), " ", on ? gettext("Sound on") : gettext("Sound off"));
    heardLog.volume = on ? level || DEFAULT_VOLUME : 0;
  }

  function toggle() {
    on = !on;
    if (on) unlock();
    show();
  }

  function ring(cue) {
    const played = on && play([cue], level || DEFAULT_VOLUME);
    heardLog.log.push({ cue, audible: played, on });
  }

  show();
  return { button, ring };
}

// A loudspeaker, with sound waves or, muted, a cross.
function speaker(off) {
  return s("svg", { viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true", focusable: "false", class: "sound-icon" },
    s("path", { d: "M4 9h4l5-4v14l-5-4H4z", fill: "currentColor" }),
    off ? s("path", { d: "M16 9l5 6M21 9l-5 6", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", fill: "none" })
      : s("path", { d: "M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12", stroke: "currentColor", "stroke-width": "2",
        "stroke-linecap": "round", fill: "none" }));
}

// The account page's volume for the table's sound cues (sound.js): saved on the account as the
// slider is let go; 0 is muted, as the table's mute button makes it.
import { api } from "./api.js";
import { gettext } from "./i18n.js";
import { BEFORE_MUTE_KEY } from "./sound.js";

const slider = document.getElementById("sound-volume");
const shown = document.getElementById("sound-volume-value");
const status = document.getElementById("sound-volume-status");
let saved = Number(slider.value);

slider.addEventListener("input", () => { shown.textContent = slider.value; });
slider.addEventListener("change", async () => {
  const wanted = Number(slider.value);
  try {
    await api("auth/me", { method: "PATCH", body: { sound_volume: wanted } });
    saved = wanted;
    if (wanted > 0) localStorage.setItem(BEFORE_MUTE_KEY, String(wanted)); // what the table's unmute goes back to
    status.textContent = gettext("Saved.");
  } catch (err) {
    slider.value = String(saved);
    shown.textContent = slider.value;
    status.textContent = err.message;
  }
});

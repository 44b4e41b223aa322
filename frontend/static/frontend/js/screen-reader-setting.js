// The account page's switch for the screen-reader play mode (screen-reader.js), kept in this browser.
import { bindSetting } from "./screen-reader.js";

bindSetting(document.getElementById("sr-mode-toggle"));

// A tiny element builder, so renderers read like the markup they make.
import { formatDateTime, gettext, interpolate, ngettext } from "./i18n.js";

export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    // Through the CSSOM: a style attribute is inline style, which the Content-Security-Policy refuses.
    else if (key === "style") typeof value === "object" ? Object.assign(node.style, value) : (node.style.cssText = value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const svgNS = "http://www.w3.org/2000/svg";

export function s(tag, attrs, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "style") node.style.cssText = value;  // through the CSSOM, as h()
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
}

/** Re-renders `root` with `build()` and puts the keyboard focus back on the same control. */
export function rerender(root, build) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.key : null;
  root.replaceChildren(...[build()].flat().filter(Boolean));
  if (key) {
    const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

/** English only (it adds an "s"): a page translated for Welsh uses ngettext instead. */
export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many || one + "s"}`;
}

/** "just now", "5 minutes ago", "2 hours ago", then the date: in the reader's language. */
export function timeAgo(iso) {
  if (!iso) return "";
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return gettext("just now");
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60);
    return interpolate(ngettext("%(count)s minute ago", "%(count)s minutes ago", minutes), { count: minutes });
  }
  if (seconds < 86400) {
    const hours = Math.floor(seconds / 3600);
    return interpolate(ngettext("%(count)s hour ago", "%(count)s hours ago", hours), { count: hours });
  }
  return formatDateTime(iso, { dateStyle: "medium" });
}

export function flash(message, kind = "info") {
  const region = document.getElementById("flash");
  if (!region) return;
  const item = h("p", { class: `flash flash-${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  region.replaceChildren(item);
  setTimeout(() => { if (item.isConnected) item.remove(); }, 8000);
}

/** "30 seconds", "2 minutes", "1 hour", "1 day": a clock's time per move. */
export function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "";
  let count;
  let text;
  if (seconds < 60) {
    count = seconds;
    text = ngettext("%(count)s second", "%(count)s seconds", count);
  } else if (seconds < 3600) {
    count = Math.round(seconds / 60);
    text = ngettext("%(count)s minute", "%(count)s minutes", count);
  } else if (seconds < 86400) {
    count = Math.round(seconds / 3600);
    text = ngettext("%(count)s hour", "%(count)s hours", count);
  } else {
    count = Math.round(seconds / 86400);
    text = ngettext("%(count)s day", "%(count)s days", count);
  }
  return interpolate(text, { count });
}

/** "30 seconds a move": the time a table's clock gives each move. */
export function clockPerMove(seconds) {
  return interpolate(gettext("%(time)s a move"), { time: clockText(seconds) });
}

// A hand its player arranges (issue #42 item 5): sorted by one of the game's natural orders with
// one click, or dragged (mouse, touch or pen) into an order of their own, or moved with Alt+Left
// and Alt+Right on a card that has the focus. Kept for the match in this browser (localStorage);
// cards drawn later join at the right, as in a hand held in the air.
import { h } from "./dom.js";
import { gettext } from "./i18n.js";

const DRAG_FROM_PX = 8; // a press that moves less is a click (picking the card)
let dragEndedAt = -Infinity;

// The click that ends a drag picks nothing.
window.addEventListener("click", (event) => {
  if (performance.now() - dragEndedAt < 400 && event.target.closest && event.target.closest(".hand-arranged")) {
    event.stopPropagation();
    event.preventDefault();
  }
}, { capture: true });

/** Each card's identity in a hand: the card and which of its copies it is ("B5#2"). */
function identities(hand) {
  const seen = {};
  return hand.map((card) => {
    seen[card] = (seen[card] || 0) + 1;
    return `${card}#${seen[card]}`;
  });
}

function compareKeys(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  }
  return 0;
}

/**
 * The order of one match's hand. `refresh(focusKey)` draws the table again.
 * A renderer's sorts are [{ name, label, key(card) -> [numbers] }].
 */
export function handOrder(matchId, refresh) {
  const storageKey = `cardLeague.hand.${matchId}`;
  let chosen = {};
  try {
    chosen = JSON.parse(localStorage.getItem(storageKey) || "{}") || {};
  } catch (err) {
    chosen = {};
  }

  function choose(next, focusKey = null) {
    chosen = next;
    try {
      localStorage.setItem(storageKey, JSON.stringify(chosen));
    } catch (err) {
      // Storage refused (a private window's quota): the order lasts as long as the page.
    }
    refresh(focusKey);
  }

  /** The indices of `hand` in the order its player sees them. */
  function order(hand, sorts) {
    const ids = identities(hand);
    const indices = hand.map((_, index) => index);
    const sort = sorts.find((s) => s.name === chosen.sort);
    if (sort) return indices.sort((a, b) => compareKeys(sort.key(hand[a]), sort.key(hand[b])) || a - b);
    if (Array.isArray(chosen.own)) {
      const place = new Map(chosen.own.map((id, index) => [id, index]));
      const at = (index) => (place.has(ids[index]) ? place.get(ids[index]) : chosen.own.length + index);
      return indices.sort((a, b) => at(a) - at(b));
    }
    return indices;
  }

  function controls(sorts) {
    return h("div", { class: "hand-sorts", role: "group", "aria-label": gettext("Arrange your hand") },
      h("span", { class: "muted" }, gettext("Sort:")),
      sorts.map((sort) => h("button", {
        type: "button", class: "btn btn-small", "aria-pressed": String(chosen.sort === sort.name),
        onclick: () => choose({ sort: sort.name }),
      }, sort.label)),
      h("span", { class: "muted hand-drag-hint" }, gettext("or drag a card (Alt+← and Alt+→ move the one in focus).")));
  }

  /** Lets the player drag the fan's cards, shown in the order `ids`. */
  function draggable(fan, ids) {
    const cards = [...fan.children];
    const moveTo = (from, to, focusKey) => {
      if (to < 0 || to >= ids.length || to === from) return;
      const own = ids.slice();
      own.splice(to, 0, own.splice(from, 1)[0]);
      choose({ own }, focusKey);
    };
    cards.forEach((card, index) => {
      card.addEventListener("keydown", (event) => {
        if (!event.altKey || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
        event.preventDefault();
        event.stopPropagation();
        moveTo(index, index + (event.key === "ArrowLeft" ? -1 : 1), card.dataset.key || null);
      });
    });
    // On the fan, not the cards: a card that cannot be played now is a disabled button, and a
    // disabled button's own listeners hear nothing, yet its hand may be arranged while others play.
    fan.addEventListener("pointerdown", (down) => {
      const card = down.target.closest(".card");
      const from = cards.indexOf(card);
      if (from < 0 || down.button !== 0) return;
      let dragging = false;
      const follow = (event) => {
        if (!dragging && Math.abs(event.clientX - down.clientX) < DRAG_FROM_PX) return;
        if (!dragging) {
          dragging = true;
          fan.setPointerCapture(down.pointerId);
          card.classList.add("dragging");
        }
        card.style.translate = `${event.clientX - down.clientX}px 0`;
      };
      const end = (event) => {
        fan.removeEventListener("pointermove", follow);
        fan.removeEventListener("pointerup", end);
        fan.removeEventListener("pointercancel", end);
        if (!dragging) return;
        dragEndedAt = performance.now();
        card.classList.remove("dragging");
        card.style.translate = "";
        if (event.type === "pointercancel") return;
        const to = cards.filter((other, index) => {
          const box = other.getBoundingClientRect();
          return index !== from && box.left + box.width / 2 < event.clientX;
        }).length;
        moveTo(from, to, null);
      };
      fan.addEventListener("pointermove", follow);
      fan.addEventListener("pointerup", end);
      fan.addEventListener("pointercancel", end);
    });
  }

  return { order, controls, draggable, identities };
}

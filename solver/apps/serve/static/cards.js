// Cards as the API writes them ("Ah", "Td", "7s", jokers "Jk1"/"Jk2"), drawn as CSS cards
// with a four-colour deck (♠ black, ♥ red, ♦ blue, ♣ green), and a keyboard-usable grid.

export const SUITS = {
  s: { symbol: "♠", name: "spades" },
  h: { symbol: "♥", name: "hearts" },
  d: { symbol: "♦", name: "diamonds" },
  c: { symbol: "♣", name: "clubs" },
};
const RANK_NAMES = {
  A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", 9: "nine", 8: "eight", 7: "seven",
  6: "six", 5: "five", 4: "four", 3: "three", 2: "two",
};
const RANK_ORDER = "AKQJT98765432";

/** The parts of a card code: {rank, suit} ({joker: true} for jokers). */
export function parseCard(code) {
  if (code.startsWith("Jk")) return { joker: true, rank: "Jk", suit: "" };
  return { rank: code[0], suit: code[1] };
}

/** A card's name for screen readers: "ace of hearts". */
export function cardName(code) {
  const c = parseCard(code);
  if (c.joker) return "joker";
  return `${RANK_NAMES[c.rank]} of ${SUITS[c.suit].name}`;
}

/** Sort key: higher rank first, then spades, hearts, diamonds, clubs. */
export function cardOrder(code) {
  const c = parseCard(code);
  if (c.joker) return -1;
  return RANK_ORDER.indexOf(c.rank) * 4 + "shdc".indexOf(c.suit);
}

export function sortCards(codes) {
  return [...codes].sort((a, b) => cardOrder(a) - cardOrder(b));
}

/** Fill ``el`` with a card's face (rank above suit). */
export function drawFace(el, code) {
  const c = parseCard(code);
  el.classList.add("card", c.joker ? "joker" : `suit-${c.suit}`);
  el.dataset.card = code;
  el.replaceChildren();
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = c.joker ? "🃏" : c.rank === "T" ? "10" : c.rank;
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = c.joker ? "" : SUITS[c.suit].symbol;
  el.append(rank, suit);
  return el;
}

/** A card (not interactive). ``size``: "" or "small". */
export function cardEl(code, size = "") {
  const el = drawFace(document.createElement("span"), code);
  if (size) el.classList.add(size);
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(code));
  el.title = cardName(code);
  return el;
}

/** Cards in a row (one packet). */
export function packetEl(codes, size = "") {
  const el = document.createElement("span");
  el.className = "packet-cards";
  for (const code of codes) el.append(cardEl(code, size));
  return el;
}

/** Read typed cards into codes: accepts "10h", "A♥", commas; returns {cards, bad}. */
export function readCards(text) {
  const symbols = { "♠": "s", "♥": "h", "♦": "d", "♣": "c" };
  const cards = [];
  const bad = [];
  for (let token of text.split(/[\s,;]+/).filter(Boolean)) {
    token = token.replace(/[♠♥♦♣]/g, (m) => symbols[m]);
    const m = /^(10|[2-9TJQKA])([shdc])$/i.exec(token);
    const joker = /^(jk|joker)([12]?)$/i.exec(token);
    if (m) cards.push((m[1] === "10" ? "T" : m[1].toUpperCase()) + m[2].toLowerCase());
    else if (joker) cards.push(`Jk${joker[2] || ""}`);
    else bad.push(token);
  }
  return { cards, bad };
}

/**
 * A grid of card buttons (rows × columns) with one tab stop: arrow keys move, Home/End go
 * to the row's ends, Space or Enter presses.  ``onPress(code)`` is called on click/press.
 */
export class CardGrid {
  constructor(container, rows, onPress) {
    this.container = container;
    this.onPress = onPress;
    this.buttons = [];
    this.rows = rows;
    container.replaceChildren();
    rows.forEach((row, r) => {
      const rowEl = document.createElement("div");
      rowEl.className = "grid-row";
      rowEl.setAttribute("role", "row");
      row.forEach((code, c) => {
        const b = document.createElement("button");
        b.type = "button";
        drawFace(b, code);
        b.setAttribute("role", "gridcell");
        b.setAttribute("aria-label", cardName(code));
        b.setAttribute("aria-pressed", "false");
        b.tabIndex = r === 0 && c === 0 ? 0 : -1;
        b.dataset.row = r;
        b.dataset.col = c;
        b.addEventListener("click", () => {
          this.focus(b);
          if (b.getAttribute("aria-disabled") !== "true") onPress(code);
        });
        b.addEventListener("keydown", (e) => this.key(e, r, c));
        rowEl.append(b);
        this.buttons.push(b);
      });
      container.append(rowEl);
    });
  }

  button(code) {
    return this.buttons.find((b) => b.dataset.card === code);
  }

  focus(b) {
    for (const other of this.buttons) other.tabIndex = -1;
    b.tabIndex = 0;
    b.focus();
  }

  key(e, r, c) {
    const moves = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };
    let target = null;
    if (moves[e.key]) {
      const [dr, dc] = moves[e.key];
      const nr = Math.max(0, Math.min(this.rows.length - 1, r + dr));
      const nc = Math.max(0, Math.min(this.rows[nr].length - 1, c + dc));
      target = this.container.querySelector(`[data-row="${nr}"][data-col="${nc}"]`);
    } else if (e.key === "Home") {
      target = this.container.querySelector(`[data-row="${r}"][data-col="0"]`);
    } else if (e.key === "End") {
      target = this.container.querySelector(`[data-row="${r}"][data-col="${this.rows[r].length - 1}"]`);
    }
    if (target) {
      e.preventDefault();
      this.focus(target);
    }
  }

  /** Mark cards: ``state(code)`` → {pressed, disabled}.  Disabled cards stay focusable
   * (aria-disabled) so the arrow keys still walk the whole grid. */
  update(state) {
    for (const b of this.buttons) {
      const s = state(b.dataset.card);
      b.setAttribute("aria-pressed", s.pressed ? "true" : "false");
      b.setAttribute("aria-disabled", s.disabled ? "true" : "false");
      b.classList.toggle("picked", !!s.pressed);
    }
  }
}

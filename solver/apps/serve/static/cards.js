// @ts-check
// Cards as the API writes them ("Ah", "Td", "7s", jokers "Jk", "Jk1"/"Jk2"), drawn as inline
// SVG generated here (suits and the joker are paths, never font or emoji glyphs) with a
// four-colour deck (♠ black, ♥ red, ♦ blue, ♣ green: the colour comes from CSS), the text
// the user types read against a rule set's deck, and a keyboard-usable grid of cards.

const SVG_NS = "http://www.w3.org/2000/svg";

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
/** Every rank, highest first. */
export const RANK_ORDER = "AKQJT98765432";
/** The suits in the order the page lays them out: SUITS's. */
export const SUIT_ORDER = Object.keys(SUITS).join("");

// Suit shapes in a 100 × 100 box (filled with the card's colour).
const SUIT_PATHS = {
  h: "M50 92C22 68 2 50 2 29 2 13 14 3 28 3 38 3 46 9 50 19 54 9 62 3 72 3 86 3 98 13 98 29 98 50 78 68 50 92Z",
  d: "M50 2 88 50 50 98 12 50Z",
  s: "M50 2C64 24 98 40 98 63 98 78 87 88 73 88 64 88 57 84 53 77 54 87 59 94 68 98H32C41 94 46 87 47 77 "
    + "43 84 36 88 27 88 13 88 2 78 2 63 2 40 36 24 50 2Z",
  c: "M50 4A21 21 0 0 1 68.5 35 21 21 0 1 1 57 70C58 83 62 92 70 98H30C38 92 42 83 43 70A21 21 0 1 1 "
    + "31.5 35 21 21 0 0 1 50 4Z",
};

/** The points of a five-pointed star centred on (cx, cy). */
function starPoints(cx, cy, outer, inner) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? inner : outer;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(2)},${(cy + r * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

/** The parts of a card code: {rank, suit} ({joker: true, index} for jokers). */
export function parseCard(code) {
  if (code.startsWith("Jk")) return { joker: true, rank: "Jk", suit: "", index: code.slice(2) };
  return { rank: code[0], suit: code[1] };
}

/** A card's name for screen readers: "ace of hearts", "joker 2". */
export function cardName(code) {
  const c = parseCard(code);
  if (c.joker) return c.index ? `joker ${c.index}` : "joker";
  return `${RANK_NAMES[c.rank]} of ${SUITS[c.suit].name}`;
}

/** A rank as the page writes it: "10" for T. */
export function rankText(rank) {
  return rank === "T" ? "10" : rank;
}

/** Sort key: jokers first, then higher rank first, then spades, hearts, diamonds, clubs. */
export function cardOrder(code) {
  const c = parseCard(code);
  if (c.joker) return -10 + Number(c.index || 0);
  return RANK_ORDER.indexOf(c.rank) * 4 + SUIT_ORDER.indexOf(c.suit);
}

export function sortCards(codes) {
  return [...codes].sort((a, b) => cardOrder(a) - cardOrder(b));
}

/** A deck (``without`` some cards) as the grids lay it out: a row a suit (spades, hearts,
 * diamonds, clubs), highest first, then the jokers'. */
export function deckRows(deck, without = []) {
  const left = deck.filter((c) => !without.includes(c));
  const rows = [...SUIT_ORDER].map((suit) => sortCards(left.filter((c) => parseCard(c).suit === suit)));
  rows.push(left.filter((c) => parseCard(c).joker));
  return rows.filter((r) => r.length);
}

function svgEl(tag, attrs = {}) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** A suit shape as an SVG element (``size`` px box at x, y of the parent's coordinates). */
function suitShape(suit, x, y, size) {
  return svgEl("path", { d: SUIT_PATHS[suit], class: "pip",
    transform: `translate(${x} ${y}) scale(${size / 100})` });
}

/** A card's face: an SVG of 40 × 56 units, rank above suit (a star and JOKER for jokers). */
export function faceSvg(code) {
  const c = parseCard(code);
  const svg = svgEl("svg", { viewBox: "0 0 40 56", class: "face", "aria-hidden": "true", focusable: "false" });
  if (c.joker) {
    svg.append(svgEl("polygon", { points: starPoints(20, 24, 13, 5.4), class: "pip" }));
    const word = svgEl("text", { x: 20, y: 49, "text-anchor": "middle", "font-size": 8.5, "font-weight": 700,
      textLength: 31, lengthAdjust: "spacingAndGlyphs", class: "joker-word" });
    word.textContent = "JOKER";
    svg.append(word);
    if (c.index) {
      const n = svgEl("text", { x: 4, y: 11, "font-size": 10, "font-weight": 700, class: "joker-index" });
      n.textContent = c.index;
      svg.append(n);
    }
    return svg;
  }
  const rank = rankText(c.rank);
  const attrs = { x: 20, y: 23, "text-anchor": "middle", "font-size": 20, "font-weight": 700, class: "rank" };
  if (rank.length > 1) Object.assign(attrs, { textLength: 25, lengthAdjust: "spacingAndGlyphs" });
  const text = svgEl("text", attrs);
  text.textContent = rank;
  svg.append(text, suitShape(c.suit, 9, 28, 22));
  return svg;
}

/** Fill ``el`` with a card's face. */
export function drawFace(el, code) {
  const c = parseCard(code);
  el.classList.add("card", c.joker ? "joker" : `suit-${c.suit}`);
  if (c.joker && c.index) el.classList.add(`joker-${c.index}`);
  el.dataset.card = code;
  el.replaceChildren(faceSvg(code));
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

/**
 * A card inside a sentence, written as the cards are drawn: "10" and the suit's shape in the
 * suit's colour ("10♣"); the suit symbol is there as hidden text for copying.
 */
export function cardTextEl(code) {
  const c = parseCard(code);
  const span = document.createElement("span");
  span.className = `card-text ${c.joker ? "joker" : `suit-${c.suit}`}`;
  span.dataset.card = code;
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardName(code));
  span.title = cardName(code);
  if (c.joker) {
    const svg = svgEl("svg", { viewBox: "0 0 40 40", class: "inline-pip", "aria-hidden": "true", focusable: "false" });
    svg.append(svgEl("polygon", { points: starPoints(20, 21, 19, 8), class: "pip" }));
    span.append(svg, `joker${c.index ? " " + c.index : ""}`);
    return span;
  }
  const svg = svgEl("svg", { viewBox: "0 0 100 100", class: "inline-pip", "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("path", { d: SUIT_PATHS[c.suit], class: "pip" }));
  const hidden = document.createElement("span");
  hidden.className = "sr-only";
  hidden.textContent = SUITS[c.suit].symbol;
  span.append(rankText(c.rank), svg, hidden);
  return span;
}

/** Cards in a sentence, separated by spaces. */
export function cardsTextEl(codes) {
  const span = document.createElement("span");
  span.className = "cards-text";
  codes.forEach((code, i) => {
    if (i) span.append(" ");
    span.append(cardTextEl(code));
  });
  return span;
}

// ---------------------------------------------------------------- reading typed cards

/** A deck (a list of card codes, as ``GET /api/rules`` gives it) described in words. */
export function deckWords(deck) {
  const ranks = [...new Set(deck.filter((c) => !c.startsWith("Jk")).map((c) => c[0]))]
    .sort((a, b) => RANK_ORDER.indexOf(a) - RANK_ORDER.indexOf(b));
  const low = ranks[ranks.length - 1];
  return `the ${deck.length}-card deck (ranks ${rankText(low)} to A`
    + `${deck.some((c) => c.startsWith("Jk")) ? ", jokers" : ""})`;
}

const SYMBOLS = { "♠": "s", "♥": "h", "♦": "d", "♣": "c", "♤": "s", "♡": "h", "♢": "d", "♧": "c" };

/** The text of every card of ``deck`` as one might type it, for "is this an unfinished card?". */
function typedForms(deck) {
  const forms = [];
  for (const code of deck) {
    const c = parseCard(code);
    if (c.joker) forms.push("jk", "joker", "jk1", "jk2");
    else forms.push(`${c.rank}${c.suit}`.toLowerCase(), `${rankText(c.rank)}${c.suit}`.toLowerCase());
  }
  return forms;
}

/**
 * Read typed cards against ``deck``: accepts "Ah", "10h", "A♥", "ah", commas; jokers as "Jk",
 * "Jk1", "joker" (a bare "Jk" is the deck's first joker not yet taken).  ``taken``: cards that
 * count as already used (for duplicates across boxes; ``takenWhere`` says where they are, e.g. "in
 * your hand"), ``what``: the cards' name in messages.
 * ``partial``: a last token that is the start of a card ("A", "1", "Jk" on a two-joker deck
 * being typed) is not an error yet.  Returns {cards, error} (error: one line, or "").
 */
export function readCards(text, deck, { taken = [], takenWhere = "", partial = false } = {}) {
  const cards = [];
  let error = "";
  const used = new Set(taken);
  const elsewhere = new Set(taken);
  const tokens = text.replace(/[♠♥♦♣♤♡♢♧]/g, (m) => SYMBOLS[m]).split(/[\s,;]+/).filter(Boolean);
  const jokers = deck.filter((c) => c.startsWith("Jk"));
  const fail = (message) => {
    if (!error) error = message;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const last = i === tokens.length - 1;
    const m = /^(10|[2-9TJQKA])([shdc])$/i.exec(token);
    const joker = /^(?:jk|joker)([12]?)$/i.exec(token);
    let code;
    if (m) {
      code = (m[1] === "10" ? "T" : m[1].toUpperCase()) + m[2].toLowerCase();
      if (!deck.includes(code)) {
        fail(`${token} is not in ${deckWords(deck)}`);
        continue;
      }
    } else if (joker) {
      if (!jokers.length) {
        fail(`${token}: ${deckWords(deck)} has no joker`);
        continue;
      }
      code = joker[1] ? jokers.find((j) => j === `Jk${joker[1]}`) || (jokers.length === 1 ? jokers[0] : null)
        : jokers.find((j) => !used.has(j));
      if (!code) {
        fail(joker[1] ? `${token}: the deck's jokers are ${jokers.join(" and ")}`
          : `${token}: all ${jokers.length} joker${jokers.length > 1 ? "s are" : " is"} taken already`);
        continue;
      }
    } else if (partial && last && typedForms(deck).some((f) => f.startsWith(token.toLowerCase()))) {
      continue;
    } else {
      fail(`not a card: ${token}`);
      continue;
    }
    if (used.has(code)) {
      fail(elsewhere.has(code) && takenWhere ? `${token}: the ${cardName(code)} is ${takenWhere}`
        : `${token}: ${cardName(code)} is there twice`);
      continue;
    }
    used.add(code);
    cards.push(code);
  }
  return { cards, error };
}

// ---------------------------------------------------------------- the grid

/**
 * A grid of card buttons (``rows`` of codes) with one tab stop: the arrow keys move to the
 * neighbouring card as the grid is laid out on the screen (rows may wrap on a phone), Home
 * and End go to the row's ends, Space or Enter presses.  ``onPress(code)`` on click/press.
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
        b.addEventListener("keydown", (e) => this.key(e, b));
        rowEl.append(b);
        this.buttons.push(b);
      });
      container.append(rowEl);
    });
  }

  button(code) {
    return this.buttons.find((b) => b.dataset.card === code);
  }

  /** Make ``b`` the grid's tab stop; focus it unless ``quiet``. */
  focus(b, quiet = false) {
    for (const other of this.buttons) other.tabIndex = -1;
    b.tabIndex = 0;
    if (!quiet) b.focus();
  }

  /** The card next to ``b`` on the screen in direction ``dy`` (+1 down, -1 up). */
  vertical(b, dy) {
    const from = b.getBoundingClientRect();
    const x = from.left + from.width / 2;
    let best = null;
    let bestKey = null;
    for (const other of this.buttons) {
      if (other === b) continue;
      const r = other.getBoundingClientRect();
      const dist = (r.top - from.top) * dy;
      if (dist < from.height / 2) continue;
      const key = [Math.round(dist), Math.abs(r.left + r.width / 2 - x)];
      if (!bestKey || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = other;
        bestKey = key;
      }
    }
    return best;
  }

  key(e, b) {
    const i = this.buttons.indexOf(b);
    const row = this.buttons.filter((o) => o.dataset.row === b.dataset.row);
    const target = {
      ArrowRight: () => this.buttons[i + 1],
      ArrowLeft: () => this.buttons[i - 1],
      ArrowDown: () => this.vertical(b, 1),
      ArrowUp: () => this.vertical(b, -1),
      Home: () => row[0],
      End: () => row[row.length - 1],
    }[e.key];
    if (!target) return;
    e.preventDefault();
    const t = target();
    if (t) this.focus(t);
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

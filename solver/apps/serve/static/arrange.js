// @ts-check
// An arrangement being built: a rule set's slots filled by clicking cards of the pool (or typing
// the packets into a text box), with undo.  The advisor's "My arrangement", the Play tab's board
// and the puzzles' answer are each one of these.  The deck, the slots' points, the hand size and
// the exposed cards are the rule set's (GET /api/rules: rules.js).  Each full packet is named as it
// is built ("full house, tens over sevens": POST /api/hand, the terminal's words).

import { call } from "./api.js";
import { CardGrid, cardEl, deckRows, readCards } from "./cards.js";
import { el } from "./format.js";
import { rulesNamed } from "./rules.js";

/** @typedef {import("./rules.js").RuleSet} RuleSet */

/** @type {Map<string, Promise<{description: string, category: string} | null>>} a packet's hand, by rule set and cards */
const handNames = new Map();

/** The hand ``cards`` make under ``rules`` (null when the server cannot say), asked once.
 * @param {string[]} cards @param {RuleSet} rules */
function handOf(cards, rules) {
  const key = `${rules.name} ${[...cards].sort().join(" ")}`;
  if (!handNames.has(key)) {
    handNames.set(key, call("POST", "/api/hand", { hand: cards.join(" "), rules: { name: rules.name } })
      .then(({ data }) => data, () => null));
  }
  return /** @type {Promise<{description: string, category: string} | null>} */ (handNames.get(key));
}

/** @param {RuleSet} rules @returns {string[][]} an empty packet a slot */
const empty = (rules) => rules.weights.map(() => []);

/** The arrangement as text: packets separated by "|" (empty trailing slots left out). */
export function arrangementText(packets) {
  const parts = packets.map((p) => p.join(" "));
  while (parts.length && !parts[parts.length - 1]) parts.pop();
  return parts.join(" | ");
}

/** Read a typed arrangement against the exposed cards under ``rules``: {packets (one a slot, some
 * maybe short), error}.
 * @param {string} text @param {string[]} exposed @param {boolean} partial @param {RuleSet} rules */
export function readArrangement(text, exposed, partial, rules) {
  const packets = empty(rules);
  if (!text.trim()) return { packets, error: "" };
  const parts = text.split(/[|/]/);
  const slots = rules.weights.length;
  if (parts.length > slots) return { packets, error: `${parts.length} packets: an arrangement has ${slots}` };
  const taken = [];
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const { cards, error } = readCards(parts[i], rules.deck, { taken, partial: partial && last });
    if (error) return { packets, error: `slot ${i + 1}: ${error}` };
    const out = cards.find((c) => exposed.includes(c));
    if (out) return { packets, error: `slot ${i + 1}: ${out} is exposed, not one of your cards` };
    if (cards.length > rules.hand_size) {
      return { packets, error: `slot ${i + 1}: ${cards.length} cards (a packet is ${rules.hand_size})` };
    }
    packets[i] = cards;
    taken.push(...cards);
  }
  return { packets, error: "" };
}

/**
 * The slots, the pool and the text box of one arrangement.  ``els``: {slots, text, textMsg,
 * pool, undo, clear} (elements); ``onChange()`` after every change (rendered already).  Its rule
 * set is classic until a deal of another one (``setDeal``).
 */
export class ArrangementEditor {
  constructor(els, { onChange = () => {}, poolHint = "Your cards appear here once the exposed cards are picked." } = {}) {
    this.els = els;
    this.onChange = onChange;
    this.poolHint = poolHint;
    /** @type {RuleSet} */
    this.rules = rulesNamed("classic");
    /** @type {string[]} */
    this.exposed = [];
    /** @type {string[][]} */
    this.mine = empty(this.rules);
    /** @type {string[][][]} */
    this.history = [];
    this.typing = false; // editing the text: one undo step for the whole edit
    this.activeSlot = 0;
    this.swap = null; // {slots: {index: card}}: cards a grade's best swap would move (outlined)
    this.error = "";
    this.locked = false; // confirmed: shown, not editable
    this.poolGrid = null;
    els.text.addEventListener("input", () => this.typed());
    els.text.addEventListener("focus", () => {
      this.typing = false;
    });
    els.text.addEventListener("change", () => this.textDone());
    if (els.undo) els.undo.addEventListener("click", () => this.undo());
    if (els.clear) els.clear.addEventListener("click", () => this.clearAll());
  }

  get ready() {
    return this.exposed.length === this.rules.n_exposed && !this.locked;
  }

  get placed() {
    return new Set(this.mine.flat());
  }

  get full() {
    return this.mine.every((p) => p.length === this.rules.hand_size);
  }

  text() {
    return arrangementText(this.mine);
  }

  /** A new deal (the exposed cards) of ``rules``: a changed deal empties the slots.
   * @param {string[]} exposed @param {RuleSet} rules */
  setDeal(exposed, rules = this.rules) {
    const same = rules === this.rules && exposed.length === this.exposed.length
      && exposed.every((c) => this.exposed.includes(c));
    this.exposed = [...exposed];
    this.rules = rules;
    if (!same) {
      this.mine = empty(rules);
      this.history = [];
      this.activeSlot = 0;
      this.swap = null;
      this.error = "";
      this.buildPool();
    }
    this.render();
    return !same;
  }

  buildPool() {
    const container = this.els.pool;
    if (this.exposed.length !== this.rules.n_exposed) {
      container.replaceChildren(el("p", "hint", this.poolHint));
      this.poolGrid = null;
      return;
    }
    this.poolGrid = new CardGrid(container, deckRows(this.rules.deck, this.exposed), (code) => this.place(code));
  }

  snapshot() {
    this.history.push(this.mine.map((p) => [...p]));
  }

  nextActive(from = 0) {
    const size = this.rules.hand_size;
    const next = this.mine.findIndex((p, i) => i >= from && p.length < size);
    const any = this.mine.findIndex((p) => p.length < size);
    return next >= 0 ? next : any >= 0 ? any : Math.min(from, this.mine.length - 1);
  }

  place(code) {
    if (this.locked || this.placed.has(code)) return;
    const size = this.rules.hand_size;
    let slot = this.activeSlot;
    if (this.mine[slot].length >= size) {
      slot = this.mine.findIndex((p) => p.length < size);
      if (slot < 0) return;
    }
    this.snapshot();
    this.mine[slot].push(code);
    this.activeSlot = this.mine[slot].length === size ? this.nextActive(slot + 1) : slot;
    this.swap = null;
    this.render();
  }

  remove(slot, code) {
    if (this.locked) return;
    this.snapshot();
    this.mine[slot] = this.mine[slot].filter((c) => c !== code);
    this.activeSlot = slot;
    this.swap = null;
    this.render();
    // the card is back in the pool: focus stays on the card grid, on that card
    if (this.poolGrid && this.poolGrid.button(code)) this.poolGrid.focus(this.poolGrid.button(code));
  }

  undo() {
    if (this.locked || !this.history.length) return;
    this.mine = this.history.pop();
    this.swap = null;
    this.render();
  }

  clearAll() {
    if (this.locked || !this.mine.some((p) => p.length)) return;
    this.snapshot();
    this.mine = empty(this.rules);
    this.activeSlot = 0;
    this.swap = null;
    this.render();
  }

  /** Put ``packets`` in the slots (one undo step), ready to change. */
  set(packets, { undoable = true } = {}) {
    if (undoable) this.snapshot();
    this.mine = packets.map((p) => [...p]);
    this.activeSlot = this.nextActive(0);
    this.swap = null;
    this.render();
  }

  typed() {
    const { packets, error } = readArrangement(this.els.text.value, this.exposed, true, this.rules);
    this.error = error;
    if (!error && packets.some((p, i) => p.join(" ") !== this.mine[i].join(" "))) {
      if (!this.typing) this.snapshot();
      this.typing = true;
      this.mine = packets;
      this.activeSlot = this.nextActive(0);
      this.swap = null;
    }
    this.render({ text: false });
  }

  textDone() {
    const { packets, error } = readArrangement(this.els.text.value, this.exposed, false, this.rules);
    this.typing = false;
    if (error) {
      this.error = error;
      this.render({ text: false });
    } else {
      this.mine = packets;
      this.render();
    }
  }

  /** A full packet's name, filled in when the server has said it. @param {string[]} packet */
  handName(packet) {
    const name = el("span", "slot-hand");
    name.setAttribute("aria-live", "polite");
    handOf(packet, this.rules).then((hand) => {
      if (!hand) return;
      name.textContent = hand.description;
      name.dataset.category = hand.category;
    });
    return name;
  }

  render({ text = true } = {}) {
    const container = this.els.slots;
    container.replaceChildren();
    const ready = this.ready;
    this.mine.forEach((packet, i) => {
      const row = el("div", "mine-slot");
      row.dataset.slot = i + 1;
      row.classList.toggle("active", ready && i === this.activeSlot);
      const head = el("button", "slot-head");
      head.type = "button";
      const points = this.rules.weights[i];
      head.append(`Slot ${i + 1}`, el("small", "", `${points} pts`));
      head.setAttribute("aria-pressed", ready && i === this.activeSlot ? "true" : "false");
      head.setAttribute("aria-label", `slot ${i + 1}, ${points} points: ${packet.length} of ${this.rules.hand_size} cards`
        + (ready && i === this.activeSlot ? " (cards go here)" : ""));
      head.disabled = !ready;
      head.addEventListener("click", () => {
        this.activeSlot = i;
        this.render();
        container.querySelector(`[data-slot="${i + 1}"] .slot-head`).focus();
      });
      row.append(head);
      const cards = el("div", "slot-cards");
      for (let k = 0; k < this.rules.hand_size; k++) {
        const code = packet[k];
        if (code) {
          const b = document.createElement("button");
          const face = cardEl(code);
          b.type = "button";
          b.append(face);
          b.className = "placed";
          b.dataset.card = code;
          b.disabled = this.locked;
          b.setAttribute("aria-label", `${face.getAttribute("aria-label")}${this.locked ? "" : ": take back"}`);
          if (this.swap && this.swap.slots[i] === code) face.classList.add("swap");
          b.addEventListener("click", () => this.remove(i, code));
          cards.append(b);
        } else {
          cards.append(el("span", "empty-card"));
        }
      }
      row.append(cards);
      if (packet.length === this.rules.hand_size) row.append(this.handName(packet));
      container.append(row);
    });
    if (this.poolGrid) {
      const used = this.placed;
      this.poolGrid.update((code) => ({ pressed: false, disabled: this.locked || used.has(code) }));
      for (const b of this.poolGrid.buttons) b.classList.toggle("used", used.has(b.dataset.card));
    }
    const box = this.els.text;
    if (text) {
      this.error = "";
      box.value = this.text();
    }
    box.disabled = !ready;
    const msg = this.els.textMsg;
    msg.textContent = this.error;
    msg.hidden = !this.error;
    box.setAttribute("aria-invalid", this.error ? "true" : "false");
    if (this.els.undo) this.els.undo.disabled = this.locked || !this.history.length;
    if (this.els.clear) this.els.clear.disabled = this.locked || !this.mine.some((p) => p.length);
    this.onChange();
  }
}

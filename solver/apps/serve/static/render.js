// @ts-check
// The answers' parts every tab draws the same way: packets with their hands and odds per slot,
// totals, a search's proof line, per-slot hand bars, a mix, its plans and a K-mix's entries.
// The arrangement advisor, the Play tab's advice and the Review tab's puzzles all use them.

import { cardEl, cardOrder, cardTextEl, parseCard } from "./cards.js";
import { CATEGORIES, categoryColour, categoryWords } from "./categories.js";
import { el, pct, seconds, signed } from "./format.js";

/** A mix's arrangements shown, the most likely first. */
export const MIX_SHOWN = 10;
const PLANS_SHOWN = 8;

function wtlBar(s) {
  const wrap = el("div", "wtl");
  const bar = el("div", "wtl-bar");
  bar.setAttribute("aria-hidden", "true");
  for (const [cls, p] of [["win", s.p_win], ["tie", s.p_tie], ["loss", s.p_loss]]) {
    const seg = el("span", cls);
    seg.style.width = `${100 * p}%`;
    bar.append(seg);
  }
  const text = el("span", "wtl-text");
  text.append(el("b", "p-win", `W ${pct(s.p_win)}`), " ", el("span", "p-tie", `T ${pct(s.p_tie)}`), " ",
    el("span", "p-loss", `L ${pct(s.p_loss)}`));
  wrap.append(bar, text);
  return wrap;
}

/** A packet's cards as a hand reads — the largest rank group first (``9s 9h 9c Td Tc``), jokers
 * before them: the terminal's order (quintet.cards ``order_cards(…, "group")``). */
function groupCards(codes) {
  const count = {};
  for (const c of codes) count[parseCard(c).rank] = (count[parseCard(c).rank] || 0) + 1;
  const size = (c) => (parseCard(c).joker ? Infinity : count[parseCard(c).rank]);
  return [...codes].sort((a, b) => size(b) - size(a) || cardOrder(a) - cardOrder(b));
}

/** A grade's best two-card swap in words: the cards, their slots, the value after it and the gain
 * over ``given`` (the graded arrangement's value), signed to ``digits`` — every tab's one way, the
 * terminal's too (solver.advisor.advice ``Swap.change``): "Tc (slot 2) ↔ Qs (slot 4) → +23.40 (+0.02)".
 * @returns {(string | HTMLElement)[]} */
export function swapWords(sw, given, digits = 2) {
  return [cardTextEl(sw.card_a), ` (slot ${sw.slot_a}) ↔ `, cardTextEl(sw.card_b),
    ` (slot ${sw.slot_b}) → ${signed(sw.value, digits)} (${signed(sw.value - given, digits)})`];
}

/** Five packets with hands, P(win/tie/loss) and expected margin per slot. */
export function packetsEl(sol, { swap = null, fixed = new Set() } = {}) {
  const list = el("ol", "packets");
  sol.per_slot.forEach((s, i) => {
    const li = el("li", "packet");
    li.dataset.slot = s.slot;
    const label = el("div", "slot-label", `Slot ${s.slot}`);
    label.append(el("small", "", `${s.points} pts`));
    if (fixed.has(s.slot)) label.append(el("small", "yours", "yours"));
    const cards = el("div", "packet-cards");
    for (const code of groupCards(sol.arrangement[i])) {
      const c = cardEl(code);
      if (swap && swap.slots[s.slot - 1] === code) c.classList.add("swap");
      cards.append(c);
    }
    const hand = el("div", "hand", s.hand);
    hand.dataset.category = s.category;
    const margin = el("div", "slot-margin", signed(s.expected_margin));
    margin.title = `expected margin in this slot (expected points ${s.expected_points.toFixed(3)})`;
    li.append(label, cards, hand, wtlBar(s), margin);
    list.append(li);
  });
  return list;
}

/** ``nodes`` in a row. */
export function rowOf(...nodes) {
  const row = el("div", "row");
  row.append(...nodes);
  return row;
}

export function proofText(sol) {
  if (sol.engine === "given") return "";
  const proof = sol.optimal ? "proven optimal"
    : `not proven optimal: bound ${sol.bound.toFixed(4)} (gap ${sol.gap.toFixed(4)})`;
  return `${proof}${sol.interrupted ? ", interrupted" : ""} · ${sol.engine} · ${seconds(sol.seconds)}`;
}

export function totalsEl(sol) {
  const p = el("p", "totals");
  p.append("Expected margin ", el("b", "total-margin", signed(sol.expected_margin, 4)),
    ` · expected points ${sol.expected_points.toFixed(4)}`);
  return p;
}

function legendItem(category, text) {
  const item = el("span", "legend-item");
  const dot = el("span", "legend-dot");
  dot.style.background = categoryColour(category);
  item.append(dot, text);
  return item;
}

/** Per-slot hands as bars coloured by hand category, with the categories' legend. */
export function marginalsEl(slotMarginals) {
  const box = el("div", "marginals");
  const present = new Set();
  slotMarginals.forEach((slot, i) => {
    const row = el("div", "marginal-row");
    row.append(el("div", "slot-label", `Slot ${i + 1}`));
    const bar = el("div", "marginal-bar");
    bar.setAttribute("role", "img");
    bar.setAttribute("aria-label", `slot ${i + 1}: `
      + slot.slice(0, 4).map((m) => `${m.hand} ${pct(m.probability)}`).join(", "));
    for (const m of slot) {
      const { category } = m;
      present.add(category);
      const seg = el("span");
      seg.dataset.category = category;
      seg.dataset.hand = m.hand;
      seg.style.width = `${100 * m.probability}%`;
      seg.style.background = categoryColour(category);
      seg.title = `${m.hand} (${categoryWords(category)}): ${pct(m.probability)}`;
      bar.append(seg);
    }
    const legend = el("div", "marginal-legend");
    for (const m of slot.slice(0, 3)) legend.append(legendItem(m.category, `${m.hand} ${pct(m.probability)}`));
    if (slot.length > 3) legend.append(el("span", "legend-item", `${slot.length - 3} more`));
    row.append(bar, legend);
    box.append(row);
  });
  const key = el("div", "category-legend");
  key.setAttribute("aria-label", "colours: hand categories");
  key.append(el("span", "legend-title", "Colours:"));
  for (const category of [...CATEGORIES, "other"]) {
    if (!present.has(category)) continue;
    const item = legendItem(category, categoryWords(category));
    item.dataset.category = category;
    key.append(item);
  }
  return [key, box];
}

/** A mix: its most likely arrangements, each with its share. */
export function mixEl(mix) {
  const table = el("table", "mix");
  const head = el("tr");
  head.append(el("th", "", "p"), el("th", "", `arrangement (slot 1 → ${mix[0].arrangement.length})`));
  table.append(head);
  for (const m of mix.slice(0, MIX_SHOWN)) {
    const tr = el("tr");
    const p = el("td", "mix-p");
    const bar = el("span", "mix-bar");
    bar.style.width = `${Math.max(2, 100 * m.probability / mix[0].probability)}%`;
    p.append(el("span", "", pct(m.probability, 2)), bar);
    const cells = el("td", "mix-arrangement");
    m.arrangement.forEach((packet, i) => {
      const group = el("span", "mini-packet");
      group.title = `slot ${i + 1}: ${m.hands[i]}`;
      group.append(el("span", "mini-slot", String(i + 1)));
      for (const code of packet) group.append(cardEl(code, "small"));
      cells.append(group);
    });
    tr.append(p, cells);
    table.append(tr);
  }
  return table;
}

/** A mix's plans (hand category per slot): the most likely few, with their total probability
 * and how many of the mix's arrangements follow each. */
export function plansEl(plans, arrangements) {
  const box = el("div", "plans-box");
  const shown = plans.slice(0, PLANS_SHOWN);
  box.append(el("h4", "", `Plans: ${arrangements} arrangement${arrangements > 1 ? "s" : ""} in ${plans.length} `
    + `plan${plans.length > 1 ? "s" : ""} (hand category per slot)`
    + (plans.length > shown.length ? `, the ${shown.length} most likely` : "")));
  const table = el("table", "plans");
  const head = el("tr");
  head.append(el("th", "", "p"), ...shown[0].hands.map((_, i) => el("th", "", `Slot ${i + 1}`)), el("th", "plan-n", "n"));
  table.append(head);
  for (const plan of shown) {
    const tr = el("tr", "plan");
    const cells = plan.hands.map((hand, i) => {
      const td = el("td", "plan-hand");
      td.dataset.slot = String(i + 1);
      const dot = el("span", "legend-dot");
      dot.style.background = categoryColour(plan.categories[i]);
      td.dataset.category = plan.categories[i];
      td.append(dot, hand);
      return td;
    });
    const n = el("td", "plan-n", String(plan.arrangements));
    n.title = `${plan.arrangements} of the mix's arrangements follow this plan`;
    tr.append(el("td", "plan-p", pct(plan.probability)), ...cells, n);
    table.append(tr);
  }
  box.append(table);
  return box;
}

/** One arrangement of a K-mix: its share, then its five packets (cards and hands). */
export function kmixEntryEl(entry, index, picked) {
  const box = el("li", "kmix-entry");
  box.dataset.picked = picked ? "true" : "false";
  const head = el("div", "kmix-head");
  head.append(el("b", "", `Arrangement ${index + 1}`), el("span", "kmix-p", pct(entry.probability, 2)));
  if (picked) head.append(el("span", "kmix-picked", "picked by the die roll"));
  const list = el("ol", "packets kmix-packets");
  entry.arrangement.forEach((packet, i) => {
    const li = el("li", "packet");
    li.dataset.slot = String(i + 1);
    const label = el("div", "slot-label", `Slot ${i + 1}`);
    const cards = el("div", "packet-cards");
    for (const code of packet) cards.append(cardEl(code));
    const hand = el("div", "hand", entry.hands[i]);
    hand.dataset.category = entry.categories[i];
    li.append(label, cards, hand);
    list.append(li);
  });
  box.append(head, list);
  return box;
}

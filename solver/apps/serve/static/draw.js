// The draw-poker tab: a hand and a rule set → the 32 exchanges ranked (quintet draw).

import { call } from "./api.js";
import { CardGrid, cardEl, parseCard, readCards, sortCards } from "./cards.js";
import { el, pct } from "./format.js";

const $ = (id) => document.getElementById(id);
const HAND_SIZE = 5;

let ruleSets = [];
let grid = null;
const state = { hand: [] };

function currentRules() {
  return ruleSets.find((r) => r.name === $("draw-rules").value);
}

function buildGrid() {
  const rules = currentRules();
  const rows = [];
  for (const suit of "shdc") {
    const row = sortCards(rules.deck.filter((c) => !parseCard(c).joker && parseCard(c).suit === suit));
    if (row.length) rows.push(row);
  }
  const jokers = rules.deck.filter((c) => parseCard(c).joker);
  if (jokers.length) rows.push(jokers);
  grid = new CardGrid($("draw-grid"), rows, toggle);
  $("draw-grid").classList.toggle("wide", rows[0].length > 8);
  const target = $("draw-target");
  const keep = target.value;
  target.replaceChildren(...[...rules.categories].reverse().map((c) => {
    const o = el("option", "", c);
    o.value = c;
    return o;
  }));
  if (rules.categories.includes(keep)) target.value = keep;
  state.hand = state.hand.filter((c) => rules.deck.includes(c));
  changed();
}

function toggle(code) {
  if (state.hand.includes(code)) state.hand = state.hand.filter((c) => c !== code);
  else if (state.hand.length < HAND_SIZE) state.hand = [...state.hand, code];
  changed();
}

function changed() {
  const full = state.hand.length === HAND_SIZE;
  grid.update((code) => ({ pressed: state.hand.includes(code), disabled: full && !state.hand.includes(code) }));
  $("draw-hand").value = state.hand.join(" ");
  $("draw-count").textContent = `${state.hand.length} of ${HAND_SIZE}`;
  $("draw-count").classList.toggle("done", full);
  $("draw-advise").disabled = !full;
  for (const e of document.querySelectorAll(".target-only")) e.hidden = $("draw-objective").value !== "at-least";
}

function objective() {
  const kind = $("draw-objective").value;
  return kind === "at-least" ? `at-least:${$("draw-target").value}` : kind;
}

function showError(message) {
  $("draw-error").hidden = !message;
  $("draw-error").textContent = message || "";
}

function keepEl(option) {
  const box = el("span", "packet-cards");
  if (!option.keep.length) box.append(el("span", "hint", "nothing"));
  for (const code of option.keep) box.append(cardEl(code, "small"));
  return box;
}

function render(advice) {
  const out = [];
  const rec = el("ul", "recommended");
  for (const [name, o] of Object.entries(advice.recommended)) {
    const li = el("li");
    li.append(el("b", "", `${name}: `), el("span", "", "keep "), keepEl(o), el("span", "", ` draw ${o.draw}`));
    rec.append(li);
  }
  out.push(el("h3", "", "Recommended"), rec);
  // The objective's own measure comes first, then the others.
  const target = advice.objective.startsWith("at-least:") ? advice.objective.slice(9) : null;
  const columns = [
    ["E[pct]", (o) => o.expected_percentile, "expected"],
    ["equity", (o) => o.equity, "beat-random"],
    ["P(win)", (o) => o.p_win, ""],
    ["P(tie)", (o) => o.p_tie, ""],
  ];
  if (target) columns.unshift([`P(≥ ${target})`, (o) => o.p_at_least, advice.objective]);
  columns.sort((a, b) => (b[2] === advice.objective) - (a[2] === advice.objective));
  const wrap = el("div", "table-wrap");
  const table = el("table", "draw-table");
  const head = el("tr");
  for (const h of ["#", "keep", "draw", ...columns.map((c) => c[0])]) head.append(el("th", "", h));
  table.append(head);
  const best = Object.values(advice.recommended).map((o) => o.keep.join(" "));
  advice.options.forEach((o, i) => {
    const tr = el("tr");
    if (best.includes(o.keep.join(" "))) tr.classList.add("best");
    const keep = el("td");
    keep.append(keepEl(o));
    tr.append(el("td", "", String(i + 1)), keep, el("td", "", String(o.draw)));
    columns.forEach(([, value], k) => tr.append(el("td", k === 0 ? "measure" : "", pct(value(o), 2))));
    table.append(tr);
  });
  wrap.append(table);
  out.push(el("h3", "", `All 32 exchanges, best first (${advice.objective})`), wrap);
  out.push(el("p", "proof", `${advice.unseen} unseen cards; opponent: ${advice.opponent_model}; `
    + `percentiles among ${advice.percentile_of}; ${advice.seconds} s`));
  $("draw-answer").replaceChildren(...out);
}

async function advise() {
  showError("");
  $("draw-advise").disabled = true;
  try {
    const body = { hand: state.hand.join(" "), rules: { name: $("draw-rules").value }, objective: objective() };
    const known = $("draw-known").value.trim();
    if (known) body.known = known;
    const { data } = await call("POST", "/api/draw", body);
    render(data);
  } catch (e) {
    showError(e.message);
  } finally {
    changed();
  }
}

export async function setupDraw() {
  const { data } = await call("GET", "/api/rules");
  ruleSets = data;
  $("draw-rules").replaceChildren(...ruleSets.map((r) => {
    const o = el("option", "", `${r.name} — ${r.deck.length} cards`);
    o.value = r.name;
    return o;
  }));
  $("draw-rules").value = ruleSets.some((r) => r.name === "draw52") ? "draw52" : ruleSets[0].name;
  $("draw-rules").addEventListener("change", buildGrid);
  $("draw-objective").addEventListener("change", changed);
  $("draw-hand").addEventListener("change", () => {
    const { cards, bad } = readCards($("draw-hand").value);
    if (bad.length) showError(`not a card: ${bad[0]}`);
    else {
      showError("");
      state.hand = cards.slice(0, HAND_SIZE);
      changed();
    }
  });
  $("draw-clear").addEventListener("click", () => {
    state.hand = [];
    changed();
  });
  $("draw-advise").addEventListener("click", advise);
  buildGrid();
}

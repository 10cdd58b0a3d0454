// @ts-check
// The draw-poker tab: a hand and a rule set → the 32 exchanges ranked (quintet draw).
// Rule sets are named in words from what GET /api/rules says of them (deck, category table).

import { call } from "./api.js";
import { CardGrid, cardEl, cardName, cardsTextEl, deckRows, parseCard, RANK_ORDER, rankText, readCards,
  sortCards, SUIT_ORDER } from "./cards.js";
import { $, errorBox, fieldMessage } from "./form.js";
import { all, el, pct, signed } from "./format.js";
import { ruleSets, rulesNamed } from "./rules.js";

const RANK_PLURALS = {
  A: "aces", K: "kings", Q: "queens", J: "jacks", T: "tens", 9: "nines", 8: "eights", 7: "sevens",
  6: "sixes", 5: "fives", 4: "fours", 3: "threes", 2: "twos",
};
const NO_ARTICLE = ["two pair", "three of a kind", "four of a kind", "five of a kind"];

let grid = null;
const state = { hand: [], handError: "", knownError: "", asked: null }; // asked: the question answered

const isJoker = (code) => parseCard(code).joker;

function deckParts(deck) {
  const plain = deck.filter((c) => !isJoker(c));
  const ranks = [...new Set(plain.map((c) => c[0]))].sort((a, b) => RANK_ORDER.indexOf(a) - RANK_ORDER.indexOf(b));
  const missing = ranks.flatMap((r) => [...SUIT_ORDER].map((s) => r + s)).filter((c) => !plain.includes(c));
  return { plain, ranks, missing, jokers: deck.length - plain.length };
}

const COUNT_WORDS = ["no", "one", "two", "three"];

/** "32 cards, sevens to aces", "54 cards, twos to aces, two jokers", "36 cards, sixes to aces,
 * one joker (in place of the six of spades)". */
export function deckLabel(deck) {
  const { ranks, missing, jokers } = deckParts(deck);
  let label = `${deck.length} cards, ${RANK_PLURALS[ranks[ranks.length - 1]]} to aces`;
  if (jokers) label += `, ${COUNT_WORDS[jokers] || jokers} joker${jokers > 1 ? "s" : ""}`;
  if (missing.length) label += ` (in place of the ${missing.map(cardName).join(", ")})`;
  return label;
}

/** The deck in a few words, for its menu: "52 cards", "54 cards: 52 and two jokers". */
export function deckShort(deck) {
  const { plain, missing, jokers } = deckParts(deck);
  if (!jokers) return `${deck.length} cards (${rankText(deckParts(deck).ranks.slice(-1)[0])} to ace)`;
  const some = jokers === 1 ? "a joker" : `${COUNT_WORDS[jokers] || jokers} jokers`;
  return `${deck.length} cards: ${plain.length} and ${some}${missing.length ? ` for the ${missing.map(cardName).join(", ")}` : ""}`;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A category table in a few words, from its order (lowest first): what sets it apart. */
export function tableLabel(categories) {
  const classic = rulesNamed("classic").categories;
  if (same(categories, classic)) return "Quintet's (no five of a kind)";
  if (same(categories, [...classic, "five of a kind"])) return "standard, five of a kind on top";
  const at = (c) => categories.indexOf(c);
  const has = (c) => categories.includes(c);
  if (renamedStraight(categories)) return "no flush; a straight is a straight flush";
  const notes = [];
  if (has("colour")) notes.push("with colour");
  if (!has("flush")) notes.push("no flush");
  if (has("straight") && has("full house") && at("full house") > at("straight") && !has("flush")) {
    notes.push("full house above straight");
  }
  if (at("four of a kind") > at("straight flush")) notes.push("quads above straight flush");
  return notes.join("; ") || categories.join(" < ");
}

/** A table whose only straight is the straight flush, named "straight" (the 7-category tables:
 * no flush, colour or straight flush, and the straight above the full house). */
export function renamedStraight(categories) {
  return categories.includes("straight") && !categories.includes("flush") && !categories.includes("straight flush")
    && categories.indexOf("straight") > categories.indexOf("full house");
}

/** The categories, highest first, in words: the renamed straight says what it is. */
export function categoryList(categories) {
  const renamed = renamedStraight(categories);
  return [...categories].reverse()
    .map((c) => (c === "straight" && renamed ? "straight (five in sequence of one suit: a straight flush)" : c))
    .join(" > ");
}

/** "highest mean percentile", "at least a flush", "best chance to beat one random hand". */
export function objectiveWords(objective) {
  if (objective === "expected") return "highest mean percentile";
  if (objective === "beat-random") return "best chance to beat one random hand";
  if (objective.startsWith("at-least:")) {
    const category = objective.slice("at-least:".length);
    return `at least ${NO_ARTICLE.includes(category) ? "" : "a "}${category}`;
  }
  return objective;
}

function currentRules() {
  return rulesNamed($("draw-rules").value);
}

/** Cards in a hand of the rule set chosen (5). */
const handSize = () => currentRules().hand_size;

/** The rule sets of GET /api/rules by deck: a deck menu, and a menu of the deck's hand tables. */
const decks = [];

function fillDecks() {
  for (const r of ruleSets) {
    const key = r.deck.join(" ");
    let deck = decks.find((d) => d.key === key);
    if (!deck) decks.push(deck = { key, deck: r.deck, sets: [] });
    deck.sets.push(r);
  }
  $("draw-deck").replaceChildren(...decks.map((d, i) => {
    const o = el("option", "", deckShort(d.deck));
    o.value = String(i);
    o.title = deckLabel(d.deck);
    o.dataset.rules = d.sets.map((r) => r.name).join(" ");
    return o;
  }));
}

/** The hand tables of the deck chosen; ``keep``: the table to keep if the deck has it. */
function fillTables(keep) {
  const deck = decks[Number($("draw-deck").value)];
  $("draw-rules").replaceChildren(...deck.sets.map((r) => {
    const o = el("option", "", tableLabel(r.categories));
    o.value = r.name;
    o.title = `${r.name}: ${categoryList(r.categories)}`;
    return o;
  }));
  const match = keep && deck.sets.find((r) => same(r.categories, keep.categories));
  $("draw-rules").value = (match || deck.sets.find((r) => r.name !== "classic") || deck.sets[0]).name;
}

function chooseRules(name) {
  const i = decks.findIndex((d) => d.sets.some((r) => r.name === name));
  $("draw-deck").value = String(i);
  fillTables(null);
  $("draw-rules").value = name;
}

function buildGrid() {
  const rules = currentRules();
  const rows = deckRows(rules.deck);
  grid = new CardGrid($("draw-grid"), rows, toggle);
  $("draw-grid").classList.toggle("wide", rows[0].length > 8);
  const target = $("draw-target");
  const keep = target.value;
  target.replaceChildren(...[...rules.categories].reverse().filter((c) => c !== "high card").map((c) => {
    const o = el("option", "", c);
    o.value = c;
    return o;
  }));
  if (rules.categories.includes(keep)) target.value = keep;
  $("draw-rules-help").textContent = `${deckLabel(rules.deck)}. Hands, highest first: `
    + `${categoryList(rules.categories)}. (quintet draw --rules ${rules.name})`;
  const dropped = state.hand.filter((c) => !rules.deck.includes(c));
  state.hand = state.hand.filter((c) => rules.deck.includes(c));
  state.handError = "";
  changed();
  if (dropped.length) {  // said, not done silently
    fieldMessage("draw-hand", `${dropped.map(cardName).join(" and ")} ${dropped.length > 1 ? "are" : "is"} not in `
      + `this deck (${deckLabel(rules.deck)}): taken out of your hand`);
  }
  checkKnown();
}

function toggle(code) {
  if (state.hand.includes(code)) state.hand = state.hand.filter((c) => c !== code);
  else if (state.hand.length < handSize()) state.hand = [...state.hand, code];
  state.handError = "";
  changed();
}

/** What the form asks now, as text (for "is the answer shown still this question?"). */
function question() {
  const known = readKnown(false);
  return JSON.stringify([sortCards(state.hand).join(" "), currentRules().name, objective(),
    known.error ? null : sortCards(known.cards).join(" ")]);
}

function refreshStale() {
  const note = $("draw-stale-note");
  if (!state.asked || !note) return;
  const stale = question() !== state.asked;
  $("draw-answer").dataset.stale = stale ? "true" : "false";
  note.hidden = !stale;
}

function changed({ text = true } = {}) {
  const full = state.hand.length === handSize();
  grid.update((code) => ({ pressed: state.hand.includes(code), disabled: full && !state.hand.includes(code) }));
  if (text) $("draw-hand").value = state.hand.join(" ");
  fieldMessage("draw-hand", state.handError);
  $("draw-count").textContent = `${state.hand.length} of ${handSize()}`;
  $("draw-count").classList.toggle("done", full && !state.handError);
  for (const e of all(".target-only")) e.hidden = $("draw-objective").value !== "at-least";
  refreshStale();
}

function readHand(partial) {
  const { cards, error } = readCards($("draw-hand").value, currentRules().deck, { partial });
  if (error) return { cards, error };
  if (cards.length > handSize()) return { cards, error: `${cards.length} cards: a hand is ${handSize()}` };
  return { cards, error: "" };
}

function readKnown(partial) {
  return readCards($("draw-known").value, currentRules().deck, { taken: state.hand, takenWhere: "in your hand, not out",
    partial });
}

function checkKnown(partial = true) {
  state.knownError = readKnown(partial).error;
  fieldMessage("draw-known", state.knownError);
  refreshStale();
}

function objective() {
  const kind = $("draw-objective").value;
  return kind === "at-least" ? `at-least:${$("draw-target").value}` : kind;
}

const showError = errorBox("draw-error");

function keepEl(option) {
  const box = el("span", "packet-cards");
  if (!option.keep.length) box.append(el("span", "hint", "nothing"));
  for (const code of option.keep) box.append(cardEl(code, "small"));
  return box;
}

/** "keep A♥ K♥ and draw 3", "stand pat (keep all five)", "draw five new cards". */
export function keepWords(option) {
  if (option.draw === 0) return [el("span", "", "stand pat (keep all five)")];
  if (!option.keep.length) return [el("span", "", `draw ${handSize()} new cards`)];
  return [el("span", "", "keep "), keepEl(option), el("span", "", ` and draw ${option.draw}`)];
}

function render(advice, asked) {
  const out = [];
  const heading = el("h3", "answer-heading", "Recommended");
  heading.tabIndex = -1;
  const label = el("p", "answer-for");
  label.id = "draw-answer-for";
  label.append("For the hand ", cardsTextEl(advice.hand));
  if (advice.known && advice.known.length) label.append(" (out: ", cardsTextEl(advice.known), ")");
  label.append(` · ${deckLabel(currentRules().deck)} · hands: ${tableLabel(currentRules().categories)}`);
  const note = el("p", "stale-note", "Out of date: the hand, the rules, the objective or the cards known to be "
    + "out changed since this answer. Ask again for an answer to what the form shows now.");
  note.id = "draw-stale-note";
  note.hidden = true;
  out.push(label, note);
  const rec = el("ul", "recommended");
  for (const [name, o] of Object.entries(advice.recommended)) {
    const li = el("li");
    li.dataset.objective = name;
    li.append(el("b", "", `${objectiveWords(name)}: `), ...keepWords(o));
    rec.append(li);
  }
  out.push(rec);
  // The objective's own measure comes first, then the others.
  const target = advice.objective.startsWith("at-least:") ? advice.objective.slice(9) : null;
  /** @type {[string, (o: any) => number, string][]} the columns: heading, value, the objective it measures */
  const columns = [
    ["mean percentile", (o) => o.expected_percentile, "expected"],
    ["equity", (o) => o.equity, "beat-random"],
    ["P(win)", (o) => o.p_win, ""],
    ["P(tie)", (o) => o.p_tie, ""],
  ];
  if (target) columns.unshift([`P(${objectiveWords(advice.objective)})`, (o) => o.p_at_least, advice.objective]);
  columns.sort((a, b) => Number(b[2] === advice.objective) - Number(a[2] === advice.objective));
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
    tr.append(el("td", "", String(i + 1)), keep, el("td", "", o.draw === 0 ? "stand pat" : String(o.draw)));
    columns.forEach(([, value], k) => tr.append(el("td", k === 0 ? "measure" : "", pct(value(o), 2))));
    table.append(tr);
  });
  wrap.append(table);
  out.push(el("h3", "", `All 32 exchanges, best first by ${objectiveWords(advice.objective)}`), wrap);
  out.push(el("p", "proof", `${advice.unseen} unseen cards; opponent: ${advice.opponent_model}; `
    + `percentiles among ${advice.percentile_of}; ${advice.seconds} s`));
  $("draw-answer").replaceChildren(heading, ...out);
  state.asked = asked;
  refreshStale();
  return heading;
}

let busy = false;

async function advise() {
  if (busy) return;
  const hand = readHand(false);
  const known = readKnown(false);
  const problem = hand.error ? ["draw-hand", hand.error]
    : hand.cards.length !== handSize() ? ["draw-hand", `${hand.cards.length} of ${handSize()} cards: pick `
      + `${handSize() - hand.cards.length} more`]
      : known.error ? ["draw-known", known.error] : null;
  if (problem) {
    fieldMessage(problem[0], problem[1]);
    showError(problem[1]);
    $(problem[0]).focus();
    return;
  }
  showError("");
  busy = true;
  $("draw-advise").setAttribute("aria-disabled", "true");
  let focus = null;
  try {
    const body = { hand: hand.cards.join(" "), rules: { name: currentRules().name }, objective: objective() };
    if (known.cards.length) body.known = known.cards.join(" ");
    const asked = question();
    const { data } = await call("POST", "/api/draw", body);
    focus = render(data, asked);
  } catch (e) {
    showError(e.message);
    focus = $("draw-error");
  } finally {
    busy = false;
    $("draw-advise").setAttribute("aria-disabled", "false");
    const active = document.activeElement;
    if (focus && (!active || active === document.body || active.id === "draw-advise")) focus.focus();
  }
}

export function setupDraw() {
  fillDecks();
  // the first rule set with a shipped heads-up strategy: the coach answers on the deck the tab opens on
  const coached = ruleSets.filter((r) => r.heads_up);
  chooseRules((coached[0] || ruleSets.find((r) => r.name === "draw52") || ruleSets[0]).name);
  const rulesChanged = () => {
    buildGrid();
    const here = currentRules();
    $("draw-strategy-note").textContent = here.heads_up ? `A strategy ships for these rules (${here.name}).`
      : `No heads-up strategy ships for ${here.name}: ${coached.length ? `one does for ${coached.map((r) => `${r.name} `
        + `(${deckLabel(r.deck)}; ${tableLabel(r.categories)})`).join(", ")}` : "none ships"}; quintet poker --players 2 `
        + "--bots cfr solves and stores one.";
  };
  $("draw-deck").addEventListener("change", () => {
    fillTables(currentRules());
    rulesChanged();
  });
  $("draw-rules").addEventListener("change", rulesChanged);
  $("draw-objective").addEventListener("change", () => changed());
  $("draw-target").addEventListener("change", refreshStale);
  const typed = (partial) => {
    const { cards, error } = readHand(partial);
    state.handError = error;
    state.hand = cards.slice(0, handSize());
    changed({ text: false });
    checkKnown(true);
  };
  $("draw-hand").addEventListener("input", () => typed(true));
  $("draw-hand").addEventListener("change", () => {
    typed(false);
    if (!state.handError) $("draw-hand").value = state.hand.join(" ");
  });
  $("draw-known").addEventListener("input", () => checkKnown(true));
  $("draw-known").addEventListener("change", () => checkKnown(false));
  $("draw-clear").addEventListener("click", () => {
    state.hand = [];
    state.handError = "";
    changed();
  });
  $("draw-advise").addEventListener("click", advise);
  $("draw-strategy").addEventListener("click", strategyAdvice);
  rulesChanged();
}

// ---- Heads-up: the equilibrium strategy at a position (POST /api/draw/strategy; quintet poker's hint) ----

/** "call, raise 3; draw 2" → ["call", "raise 3", "draw 2"]: moves separated by commas, semicolons or lines. */
export function parseMoves(text) {
  return text.split(/[,;\n]+/).map((m) => m.trim().replace(/\s+/g, " ")).filter((m) => m);
}

const showStrategyError = errorBox("draw-strategy-error");
let strategyBusy = false;

function strategyTable(head, rows) {
  const wrap = el("div", "table-wrap");
  const table = el("table", "draw-table strategy-table");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", "", h));
  table.append(tr, ...rows);
  wrap.append(table);
  return wrap;
}

function renderStrategy(a) {
  const heading = el("h3", "answer-heading", `The strategy: ${a.best}`);
  heading.tabIndex = -1;
  const who = a.player === "first" ? "first to act (on the dealer's left)" : "the dealer (second to act)";
  const facts = el("p", "answer-for", `You are ${who}; ${a.phase}; your hand's ${a.class_name}.`);
  const rows = [...a.actions].sort((x, y) => y.probability - x.probability).map((m) => {
    const tr = el("tr");
    if (m.action === a.best) tr.classList.add("best");
    const bar = el("span", "prob-bar");
    bar.style.width = `${Math.round(100 * m.probability)}%`;
    const p = el("td", "measure");
    p.append(el("span", "", pct(m.probability, 0)), bar);
    tr.append(el("td", "", m.action), p, el("td", "", m.chips === undefined ? "" : `${signed(m.chips, 2)} chips`));
    return tr;
  });
  const out = [heading, facts, strategyTable(["move", "probability", "chips"], rows)];
  if (a.actions.some((m) => m.chips !== undefined)) {
    out.push(el("p", "hint", "chips: your result from now on, on average (what is in the pot already not "
      + "counted, so folding is 0), both players then following the strategy."));
  }
  const odds = el("p", "", `Pot ${a.pot}; staying in costs ${a.to_call} now and the stake of every later turn; `
    + `your equity against his range (as the strategy's play implies): ${pct(a.equity, 0)}.`);
  out.push(odds);
  if (a.exchanges.length) {
    const draws = a.exchanges.map((x) => {
      const tr = el("tr");
      const keep = el("td");
      keep.append(keepEl(x));
      const move = a.actions.find((m) => m.action === (x.draw ? `draw ${x.draw}` : "stand pat"));
      const likely = Object.entries(x.likeliest).map(([c, p]) => `${c} ${pct(p, 0)}`).join(", ");
      tr.append(el("td", "", x.draw ? `draw ${x.draw}` : "stand pat"), keep,
        el("td", "measure", pct(move ? move.probability : 0, 0)), el("td", "", pct(x.expected_percentile)),
        el("td", "", likely));
      return tr;
    });
    out.push(el("h3", "", "Each exchange"), strategyTable(["exchange", "keep", "strategy", "mean percentile",
      "likeliest"], draws));
  }
  out.push(el("p", "why", `Why: ${a.why}`));
  out.push(el("p", "proof", `${a.strategy.algorithm}, ${a.strategy.iterations} iterations: ${a.strategy.summary} `
    + "(docs: draw poker, the CFR strategy)."));
  $("draw-strategy-answer").replaceChildren(...out);
  return heading;
}

async function strategyAdvice() {
  if (strategyBusy) return;
  const hand = readHand(false);
  const problem = hand.error || (hand.cards.length !== handSize() ? `${hand.cards.length} of ${handSize()} cards: `
    + `pick ${handSize() - hand.cards.length} more` : "");
  if (problem) {
    fieldMessage("draw-hand", problem);
    showStrategyError(problem);
    $("draw-hand").focus();
    return;
  }
  showStrategyError("");
  strategyBusy = true;
  $("draw-strategy").setAttribute("aria-disabled", "true");
  let focus = null;
  try {
    const body = { hand: hand.cards.join(" "), rules: { name: currentRules().name }, player: $("draw-player").value,
      actions: parseMoves($("draw-moves").value) };
    const { data } = await call("POST", "/api/draw/strategy", body);
    focus = renderStrategy(data);
  } catch (e) {
    showStrategyError(e.message);
    focus = $("draw-strategy-error");
  } finally {
    strategyBusy = false;
    $("draw-strategy").setAttribute("aria-disabled", "false");
    const active = document.activeElement;
    if (focus && (!active || active === document.body || active.id === "draw-strategy")) focus.focus();
  }
}

// @ts-check
// The arrangement advisor tab: pick (or type) the exposed cards, ask for the best arrangement
// (or the equilibrium, with live progress), build "my arrangement" (click or type it, or take
// an answer's) and grade or complete it.  Against the equilibrium, a K box asks for the least
// exploitable mix of at most K arrangements instead (a K-mix: a job, its die roll seeded by the
// seed box), and an equilibrium's answer shows its plans (hand category per slot).
//
// Every button asks through one function, ``buildRequest``: it reads the form as it is shown
// and sends exactly the fields that apply, or refuses with a message naming what to fix.
// Every answer says which deal and opponent it belongs to, and is marked out of date as soon
// as the form no longer asks that question.

import { call, followJob } from "./api.js";
import { ArrangementEditor, arrangementText, readArrangement } from "./arrange.js";
import { CardGrid, cardsTextEl, deckRows, readCards, sortCards } from "./cards.js";
import {
  $, errorBox, fieldMessage, fillOpponents, limits, opponentModel, opponents, randomSeed, readInRange,
} from "./form.js";
import { all, el, seconds, signed } from "./format.js";
import { kmixEntryEl, marginalsEl, MIX_SHOWN, mixEl, packetsEl, plansEl, proofText, rowOf, swapWords, totalsEl } from "./render.js";
import { rulesNamed } from "./rules.js";

const TICK_MS = 200;

const OBJECTIVE_WORDS = { margin: "expected margin", points: "expected points" };


const state = {
  exposed: [], // the valid cards of the deal box, as shown
  exposedError: "",
  dealSeed: null, // the seed of the deal shown, when it came from one
  job: null, // the equilibrium job being followed
  busy: false,
  answer: null, // what the answer shown was asked for: {deal, opponent, objective, epsilon, mine}
  linkSeed: null, // a link's equilibrium draw: the seed of the answer it reopens (used once)
};

/** @type {import("./rules.js").RuleSet} */
let ruleSet; // the advisor's rule set: classic (the Rules box sets its options)
let deckGrid;
let mine; // "my arrangement": an ArrangementEditor (arrange.js)

/** A problem with the form: ``message`` (one line) and the element to fix. */
class FormError extends Error {
  constructor(message, field) {
    super(message);
    this.field = field;
  }
}

// ---------------------------------------------------------------- the deal

function sameCards(a, b) {
  return a.length === b.length && sortCards(a).join(" ") === sortCards(b).join(" ");
}

/** Read the deal box: {cards, error}. */
function readDealText(partial) {
  const { cards, error } = readCards($("exposed-text").value, ruleSet.deck, { partial });
  if (error) return { cards, error };
  const n = ruleSet.n_exposed;
  if (cards.length > n) return { cards, error: `${cards.length} cards: the exposed cards are ${n}` };
  return { cards, error: "" };
}

/** Show the deal ``cards``; ``text``: also write them into the box (not while it is typed in). */
function setExposed(cards, { text = true, seed = null } = {}) {
  const changed = !sameCards(cards, state.exposed);
  state.exposed = [...cards];
  if (seed !== null || changed) state.dealSeed = seed;
  if (seed === null && changed) $("seed").value = "";
  if (text) {
    state.exposedError = "";
    $("exposed-text").value = sortCards(state.exposed).join(" ");
  }
  dealChanged();
}

function toggleExposed(code) {
  const cards = state.exposed.includes(code) ? state.exposed.filter((c) => c !== code)
    : state.exposed.length < ruleSet.n_exposed ? [...state.exposed, code] : state.exposed;
  setExposed(cards);
}

function dealChanged() {
  const full = state.exposed.length === ruleSet.n_exposed;
  deckGrid.update((code) => ({
    pressed: state.exposed.includes(code),
    disabled: full && !state.exposed.includes(code),
  }));
  fieldMessage("exposed-text", state.exposedError);
  $("exposed-count").textContent = `${state.exposed.length} of ${ruleSet.n_exposed}`;
  $("exposed-count").classList.toggle("done", full && !state.exposedError);
  mine.setDeal(state.exposed); // a changed deal empties "my arrangement"
}

async function dealFromSeed(seed) {
  try {
    const { data } = await call("GET", `/api/deal?seed=${seed}`);
    showError("");
    setExposed(data.exposed, { seed: data.seed });
    $("seed").value = String(data.seed); // this deal's own seed
    fieldMessage("seed", "");
  } catch (e) {
    showError(e.message);
  }
}

function readSeed() {
  const text = $("seed").value.trim();
  if (!text) throw new FormError("seed: type a whole number (or ask for a random deal)", "seed");
  const { value, error } = readInRange(text, "seed");
  if (error) throw new FormError(error, "seed");
  return value;
}

// ---------------------------------------------------------------- my arrangement

/** Put an answer's arrangement into "my arrangement" (one undo step), ready to change. */
function takeArrangement(arrangement) {
  mine.set(arrangement);
  $("mine-title").scrollIntoView({ block: "start" });
  $("mine-text").focus({ preventScroll: true });
}

function buttonsChanged() {
  for (const id of ["solve", "grade", "complete"]) $(id).setAttribute("aria-disabled", state.busy ? "true" : "false");
  for (const b of all("#answer .answer-action")) {
    b.setAttribute("aria-disabled", state.busy || b.dataset.needsDeal === "stale" ? "true" : "false");
  }
}

// ---------------------------------------------------------------- the question

function opponentText() {
  const choice = $("opponent").value;
  return choice === "mixture" ? $("mixture").value.trim() : choice;
}

/** The model names of an opponent ("uniform:0.3,equilibrium:0.7" → uniform, equilibrium). */
function opponentNames(text) {
  return text.split(",").map((part) => part.split(":")[0].trim()).filter(Boolean);
}

function opponentWords(text) {
  return opponentModel(text)?.label ?? `the mixture ${text}`;
}

/** A number field in the server's range ``range`` (GET /api/limits): its value, or a FormError
 * naming the problem (never a silent default). */
function readNumber(id, what, range) {
  const { value, error } = readInRange($(id).value, range, what);
  if (error) throw new FormError(error, id);
  return value;
}

/** The K box: null when blank (the full equilibrium), else a whole number in the server's range
 * (GET /api/limits: max_support), or a FormError saying so. */
function readK() {
  const text = $("max-support").value.trim();
  if (!text) return null;
  const { value, error } = readInRange(text, "max_support", "K");
  if (error) throw new FormError(`${error} (blank: the full equilibrium)`, "max-support");
  return value;
}

/** The rule options shown (the Rules box): {} for classic, else the options set. */
function readRules() {
  const rules = {};
  if ($("rule-tie").value !== "0") rules.tie_points = Number($("rule-tie").value);
  if ($("rule-tiebreak").value !== "kickers") rules.tiebreak = $("rule-tiebreak").value;
  if ($("rule-ace-low").checked) rules.ace_low_straight = true;
  if ($("rule-flush").checked) rules.flush_over_full_house = true;
  return rules;
}

/** The rule options in words ("classic", "classic; ties score half; ace-low straight"). */
function rulesWords(rules) {
  const words = [ruleSet.name];
  if (rules.tie_points) words.push(`a tie scores ${rules.tie_points} each`);
  if (rules.tiebreak) words.push(rules.tiebreak === "group-only" ? "only the groups decide" : "no kickers");
  if (rules.ace_low_straight) words.push("ace-low straight");
  if (rules.flush_over_full_house) words.push("flush above full house");
  return words.join("; ");
}

function readDeal() {
  const { cards, error } = readDealText(false);
  if (error) throw new FormError(error, "exposed-text");
  const n = ruleSet.n_exposed;
  if (cards.length !== n) {
    throw new FormError(`${cards.length} of ${n} exposed cards: pick ${n - cards.length} more`,
      "exposed-text");
  }
  return sortCards(cards);
}

function readOpponent() {
  const text = opponentText();
  if (!text) throw new FormError("mixture: type the models and weights, e.g. uniform:0.5,greedy:0.5", "mixture");
  return text;
}

function readMine(kind) {
  if (mine.error) throw new FormError(`my arrangement: ${mine.error}`, "mine-text");
  const sizes = mine.mine.map((p) => p.length);
  const size = ruleSet.hand_size;
  const slots = ruleSet.weights.length;
  if (kind === "grade") {
    const short = sizes.findIndex((n) => n < size);
    if (short >= 0) {
      throw new FormError(`slot ${short + 1} holds ${sizes[short]} of ${size} cards: Grade needs all ${slots} `
        + "packets full", "mine-text");
    }
    return mine.text();
  }
  const partial = sizes.findIndex((n) => n > 0 && n < size);
  if (partial >= 0) {
    throw new FormError(`slot ${partial + 1} holds ${sizes[partial]} of ${size} cards: Complete keeps full `
      + `packets where you put them; fill slot ${partial + 1} or take its cards back`, "mine-text");
  }
  const full = sizes.filter((n) => n === size).length;
  if (full === 0) throw new FormError("Complete needs at least one full packet (or ask for the best arrangement)", "mine-text");
  if (full === slots) throw new FormError(`all ${slots} packets are full: Grade the arrangement instead`, "mine-text");
  const fix = {};
  mine.mine.forEach((p, i) => {
    if (p.length === size) fix[String(i + 1)] = p.join(" ");
  });
  return fix;
}

/**
 * The request body of a button, from the form as it is shown: ``kind`` is "solve" (Best
 * arrangement / Solve the equilibrium / Draw another), "grade" or "complete".  Sends exactly
 * the fields that apply: ``objective`` for best responses, completions and grades (not the
 * equilibrium itself); ``epsilon`` and ``time_limit`` when the opponent involves the
 * equilibrium; ``seed`` (fresh, random) only for the equilibrium's arrangement to play;
 * ``max_support`` (the K box, when not blank) for the equilibrium itself, with the seed box's
 * seed for its die roll (blank: a random one); never CP-SAT's threads.  Throws FormError naming
 * the field to fix.
 */
export function buildRequest(kind) {
  const exposed = readDeal();
  const opponent = readOpponent();
  const body = { exposed: exposed.join(" "), opponent };
  const equilibriumItself = opponent === "equilibrium" && kind === "solve";
  if (!equilibriumItself) body.objective = $("objective").value;
  if (opponentNames(opponent).includes("equilibrium")) {
    body.epsilon = readNumber("epsilon", "target ε", "epsilon");
    body.time_limit = readNumber("time-limit", "time limit", "time_limit");
  }
  const k = equilibriumItself ? readK() : null;
  if (k !== null) {
    body.max_support = k;
    body.seed = $("seed").value.trim() ? readSeed() : randomSeed();
  } else if (equilibriumItself) body.seed = state.linkSeed ?? randomSeed(); // a link's answer: its own draw
  state.linkSeed = null;
  const rules = readRules();
  if (Object.keys(rules).length) body.rules = { name: ruleSet.name, ...rules };
  if (kind === "grade") body.grade = readMine("grade");
  if (kind === "complete") body.fix = readMine("complete");
  return body;
}

/** What the form asks now (for "is the answer shown still this question?"). */
function question() {
  const deal = readDealText(false);
  let epsilon = null;
  try {
    epsilon = readNumber("epsilon", "ε", "epsilon");
  } catch {
    epsilon = NaN;
  }
  return {
    deal: deal.error ? null : sortCards(deal.cards).join(" "),
    opponent: opponentText(),
    objective: $("objective").value,
    epsilon,
    k: $("max-support").value.trim(),
    rules: JSON.stringify(readRules()),
    mine: arrangementText(mine.mine),
  };
}

/** Field messages for the option fields, as they are typed. */
function checkOptions() {
  for (const [id, what, range] of [["epsilon", "target ε", "epsilon"], ["time-limit", "time limit", "time_limit"]]) {
    let message = "";
    try {
      readNumber(id, what, range);
    } catch (e) {
      message = e.message;
    }
    fieldMessage(id, $(id).hidden ? "" : message);
  }
  fieldMessage("mixture", $("opponent").value === "mixture" && !opponentText() ? "type the models and weights" : "");
  let kMessage = "";
  try {
    readK();
  } catch (e) {
    kMessage = e.message;
  }
  fieldMessage("max-support", $("max-support").hidden ? "" : kMessage);
}

// ---------------------------------------------------------------- asking

const showError = errorBox("error");

function setBusy(busy) {
  state.busy = busy;
  buttonsChanged();
}

function formProblem(e) {
  fieldMessage(e.field, e.message);
  showError(e.message);
  const field = $(e.field);
  field.focus();
}

/** Ask what a button asks (``kind``): the request from the form, then the answer shown. */
async function run(kind) {
  if (state.busy) return;
  let body;
  try {
    body = buildRequest(kind);
  } catch (e) {
    if (e instanceof FormError) {
      formProblem(e);
      return;
    }
    throw e;
  }
  const asked = { ...question(), kind, body, dealSeed: state.dealSeed };
  showError("");
  setBusy(true);
  state.answer = null;
  $("answer").replaceChildren();
  let failed = false;
  try {
    const queue = watchQueue();
    let response;
    try {
      response = await call("POST", "/api/solve", body);
    } finally {
      queue.stop();
    }
    const { status, data } = response;
    let result = data;
    let cancelled = false;
    if (status === 202) {
      const job = await follow(data);
      if (job.status === "failed") throw new Error(job.error);
      cancelled = job.status === "cancelled";
      result = job.result;
    }
    if (result) render(result, cancelled, asked);
    else $("answer").replaceChildren(focusable(el("h3", "", "Cancelled")), el("p", "hint", "Cancelled before any answer."));
  } catch (e) {
    failed = true;
    showError(e.message);
  } finally {
    stopProgress();
    state.job = null;
    setBusy(false);
    focusAnswer(failed ? $("error") : document.querySelector("#answer h3"));
  }
}

function focusable(e) {
  e.tabIndex = -1;
  return e;
}

/** After an answer (or an error): focus it, unless the user has moved on to another control. */
function focusAnswer(target) {
  const active = document.activeElement;
  const idle = !active || active === document.body || active.closest("#answer, #progress")
    || ["solve", "grade", "complete"].includes(active.id);
  reveal();
  if (idle && target) target.focus({ preventScroll: true });
}

/** While a quick answer is awaited: after 0.4 s the progress box says where the question is —
 * computed, or queued behind busy workers (GET /api/health) — until ``stop()``. */
function watchQueue() {
  let stopped = false;
  let timer = null;
  const started = performance.now();
  const poll = async () => {
    let text = `Waiting for the answer… ${((performance.now() - started) / 1000).toFixed(1)} s`;
    try {
      const { data } = await call("GET", "/api/health");
      text = queueWords(data, performance.now() - started);
    } catch {
      // the answer's own error, if any, says what is wrong
    }
    if (stopped) return;
    $("progress").hidden = false;
    $("cancel").hidden = true; // a quick answer is not a job: nothing to cancel
    $("progress-text").textContent = text;
    timer = setTimeout(poll, 500);
  };
  timer = setTimeout(poll, 400);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      $("cancel").hidden = false;
    },
  };
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Where a quick question is, from the server's health: "Queued: 1 of 1 worker busy with a
 * long solve (…); yours is next · 2.1 s", or "Computing… 0.8 s". */
export function queueWords(health, ms) {
  const time = ` · ${(ms / 1000).toFixed(1)} s`;
  if (health.workers_busy < health.workers || !health.waiting.quick) return `Computing…${time}`;
  const long = health.running.long;
  const busy = `${health.workers_busy} of ${plural(health.workers, "worker")} busy`
    + (long ? ` with ${long === 1 ? "a long solve" : `${long} long solves`} (an equilibrium, a K-mix or a safe mix)`
      : "");
  const line = health.waiting.quick <= 1 ? "yours is next"
    : `yours is one of ${health.waiting.quick} quick questions waiting`;
  return `Queued: ${busy}; ${line}${time}`;
}

let ticker = null;

function stopProgress() {
  if (ticker) clearInterval(ticker);
  ticker = null;
  $("progress").hidden = true;
  $("progress-text").textContent = "Solving…";
  $("progress-chart").replaceChildren();
  $("progress-chart").toggleAttribute("hidden", true);
}

async function follow(job) {
  state.job = job;
  const history = [];
  $("progress").hidden = false;
  $("cancel").disabled = false;
  reveal();
  const target = job.request.epsilon ?? limits.defaults.SOLVE_EPSILON.value;
  let last = job;
  let lastAt = performance.now();
  let shown = 0;
  let certified = { count: 0, at: 0 }; // the K-mix's last certification: how many, and when (page seconds)
  const draw = () => {
    const j = last;
    const p = j.progress;
    const k = j.request.max_support;
    // the clock runs between the server's events (every ~0.2 s)
    shown = Math.max(shown, j.elapsed + (performance.now() - lastAt) / 1000);
    if (p && p.kind === "kmix" && p.certified !== certified.count) certified = { count: p.certified, at: shown };
    let text = j.status === "queued" ? "Waiting for a free worker…"
      : k === undefined ? "Solving the equilibrium…" : `Solving the equilibrium, then the best mix of at most ${k}…`;
    if (j.status === "cancelling") text = "Cancelling…";
    if (p && p.kind === "kmix") {
      text = `${j.status === "cancelling" ? "Cancelling… " : ""}The equilibrium is solved; mixes of at most ${k}: `
        + `${p.certified} ${p.certified === 1 ? "mix" : "mixes"} certified (each by an exact best response), the least exploitable so far `
        + `${p.exploitability.toFixed(4)} · the next mix being checked for `
        + `${Math.max(0, shown - certified.at).toFixed(0)} s`;
    } else if (p) {
      text += ` iteration ${p.iteration} · certified ε ≤ ${p.exploitability.toFixed(4)} (target ${target})`
        + ` · ${p.support} arrangements in the mix`;
    }
    text += ` · ${shown.toFixed(1)} s`;
    $("progress-text").textContent = text;
  };
  const update = (j) => {
    last = j;
    lastAt = performance.now();
    const p = j.progress && j.progress.kind !== "kmix" ? j.progress : null; // the sparkline: the equilibrium's
    if (p && (!history.length || history[history.length - 1].iteration !== p.iteration)) history.push(p);
    draw();
    drawSparkline(history, target);
  };
  ticker = setInterval(draw, TICK_MS);
  return followJob(job, update);
}

function drawSparkline(history, target) {
  const svg = $("progress-chart");
  svg.replaceChildren();
  svg.toggleAttribute("hidden", history.length < 2); // no box before there is a line to draw in it
  if (history.length < 2) return;
  const floor = Math.max(target, 1e-6) / 10;
  const ys = history.map((p) => Math.log10(Math.max(p.exploitability, floor)));
  const lo = Math.min(Math.log10(Math.max(target, floor)), ...ys);
  const hi = Math.max(...ys) + 1e-9;
  const pts = ys.map((y, i) => `${(200 * i) / (ys.length - 1)},${36 - (32 * (y - lo)) / (hi - lo)}`);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", pts.join(" "));
  svg.append(line);
}

async function cancelJob() {
  if (!state.job) return;
  $("cancel").disabled = true;
  try {
    await call("DELETE", `api/jobs/${state.job.job}`, undefined, { token: state.job.secret });
  } catch (e) {
    showError(e.message);
  }
}

// ---------------------------------------------------------------- rendering answers

/** A button under an answer: put ``arrangement`` into "my arrangement". */
function takeButton(arrangement, label = "Use as my arrangement") {
  const b = el("button", "answer-action take quiet", label);
  b.type = "button";
  b.dataset.needsDeal = "fresh";
  b.addEventListener("click", () => {
    if (b.getAttribute("aria-disabled") === "true") return;
    takeArrangement(arrangement);
  });
  return b;
}

/** "For the deal 8♥ 7♥ … (seed 5) · against uniform random · expected margin". */
function answerFor(deal, asked) {
  const p = el("p", "answer-for");
  p.id = "answer-for";
  p.append("For the deal ", cardsTextEl(deal));
  if (asked.dealSeed !== null) p.append(` (seed ${asked.dealSeed})`);
  let against = ` · against ${opponentWords(asked.body.opponent)}`;
  if (asked.body.objective) against += ` · ${OBJECTIVE_WORDS[asked.body.objective]}`;
  if (asked.body.epsilon !== undefined) against += ` · target ε ${asked.body.epsilon}`;
  if (asked.body.rules) against += ` · rules: ${rulesWords(asked.body.rules)}`;
  p.append(against);
  return p;
}

/** Show an answer: heading, what it is for, its out-of-date note, then ``content``. */
function showAnswer(title, deal, asked, content) {
  const heading = el("h3", "answer-heading", title);
  heading.id = "answer-heading";
  heading.tabIndex = -1;
  const note = el("p", "stale-note");
  note.id = "stale-note";
  note.hidden = true;
  $("answer").replaceChildren(heading, answerFor(deal, asked), note, ...content);
  state.answer = { ...asked, deal: sortCards(deal).join(" ") };
  buttonsChanged();
  refreshStale();
}

/** Mark the answer out of date when the form asks something else than it answers. */
function refreshStale() {
  const box = $("answer");
  const note = $("stale-note");
  if (!state.answer || !note) {
    box.dataset.stale = "false";
    updateLink(null);
    return;
  }
  const now = question();
  const a = state.answer;
  const changed = [];
  if (now.deal !== a.deal) changed.push("the deal");
  if (now.rules !== a.rules) changed.push("the rules");
  if (now.opponent !== a.body.opponent) changed.push("the opponent");
  else {
    if (a.body.objective && now.objective !== a.body.objective) changed.push("the objective");
    if (a.body.epsilon !== undefined && now.epsilon !== a.body.epsilon) changed.push("the target ε");
    if (a.kind === "solve" && a.body.opponent === "equilibrium" && now.k !== a.k) changed.push("K");
  }
  if (a.kind !== "solve" && now.mine !== a.mine) changed.push("your arrangement");
  const stale = changed.length > 0;
  box.dataset.stale = stale ? "true" : "false";
  note.hidden = !stale;
  note.textContent = stale ? `Out of date: ${changed.join(", ")} changed since this answer. Ask again for `
    + "an answer to what the form shows now." : "";
  for (const b of all(".answer-action", box)) {
    b.dataset.needsDeal = now.deal === a.deal && (b.classList.contains("take") || !stale) ? "fresh" : "stale";
    b.setAttribute("aria-disabled", state.busy || b.dataset.needsDeal === "stale" ? "true" : "false");
  }
  updateLink(stale ? null : a);
}

function renderSolution(sol, cancelled, asked) {
  const fixed = new Set(Object.keys(asked.body.fix || {}).map(Number));
  const title = fixed.size ? "Best completion" : "Best arrangement";
  showAnswer(title, sol.exposed, asked, [
    packetsEl(sol, { fixed }),
    totalsEl(sol),
    el("p", "proof", proofText(sol) + (cancelled ? " · cancelled" : "")),
    rowOf(takeButton(sol.arrangement)),
  ]);
}

function swapOf(grade) {
  const sw = grade.best_swap;
  if (!sw) return null;
  const slots = {};
  slots[sw.slot_a - 1] = sw.card_a;
  slots[sw.slot_b - 1] = sw.card_b;
  return { ...sw, slots };
}

function renderGrade(grade, asked) {
  const swap = swapOf(grade);
  const summary = el("dl", "grade-summary");
  const add = (term, value, id) => {
    summary.append(el("dt", "", term));
    const dd = el("dd");
    dd.append(...(Array.isArray(value) ? value : [value]));
    dd.id = id;
    summary.append(dd);
  };
  add("Value", signed(grade.value, 4), "grade-value");
  add("Optimum", signed(grade.optimum, 4) + (grade.optimum_proven ? "" : ` (bound ${grade.bound.toFixed(4)})`),
    "grade-optimum");
  add("Regret", grade.regret.toFixed(4), "grade-regret");
  add("Best swap", swap ? swapWords(swap, grade.value, 4) : "none: no swap of two cards improves it", "grade-swap");
  const actions = rowOf(...(swap ? [takeButton(swap.arrangement, "Make this swap in my arrangement")] : []));
  const best = rowOf(takeButton(grade.best.arrangement));
  showAnswer("Your arrangement", grade.given.exposed, asked, [
    summary, packetsEl(grade.given, { swap }), totalsEl(grade.given), actions,
    el("h3", "", "Optimal arrangement"), packetsEl(grade.best), totalsEl(grade.best),
    el("p", "proof", proofText(grade.best)), best,
  ]);
  mine.swap = swap;
  mine.render();
}

/** A K-mix (``max_support``): the certificate beside the full equilibrium's, the die roll and
 * the arrangement it picks, the K arrangements as packets, their plans. */
function renderSparse(sp, cancelled, asked) {
  const k = sp.max_support;
  const cert = el("p", "certificate");
  cert.id = "kmix-certificate";
  const own = el("b", "", sp.exploitability.toFixed(4));
  own.id = "kmix-exploitability";
  const full = el("b", "", sp.equilibrium_exploitability.toFixed(4));
  full.id = "kmix-equilibrium";
  cert.append("Exploitability ", own, ": no arrangement gains more than that against this mix (certified: "
    + `${sp.exploitability_proven ? "exact best response" : "proven bound"}) — the full equilibrium: `, full,
    ` with ${sp.equilibrium_support} arrangements.`);
  let claim = sp.optimal ? `Proven the least exploitable mix of at most ${k}` : "Best found (not proven the best)";
  if (!sp.optimal && sp.lower_bound > 0) claim += `: no mix of at most ${k} is exploitable by less than `
    + sp.lower_bound.toFixed(4);
  if (sp.method === "equilibrium") claim += ` — the full equilibrium fits in ${k}`;
  claim += `${sp.interrupted || cancelled ? " — interrupted" : ""} · ${sp.best_responses} exact best responses, `
    + `${seconds(sp.seconds)}.`;
  const status = el("p", "proof", claim);
  status.id = "kmix-status";
  const roll = sp.roll;
  const die = el("h4", "play-title", `Die roll (seed ${roll.seed}): ${roll.value.toFixed(4)} falls in `
    + `[${roll.low.toFixed(4)}, ${roll.high.toFixed(4)}) → play arrangement ${roll.pick}`);
  die.id = "kmix-roll";
  const list = el("ol", "kmix");
  sp.mix.forEach((entry, i) => list.append(kmixEntryEl(entry, i, i === roll.pick - 1)));
  const replay = el("p", "hint", "The same answer and roll: ");
  replay.append(el("code", "", `quintet-solve ${sortCards(sp.exposed).join(" ")} --epsilon ${asked.body.epsilon}`
    + ` --max-support ${k} --seed ${roll.seed}`));
  showAnswer(`A mix of at most ${k} arrangement${k > 1 ? "s" : ""}`, sp.exposed, asked, [
    cert, status, die, rowOf(takeButton(sp.arrangement, `Use arrangement ${roll.pick} as my arrangement`)), list,
    replay, plansEl(sp.plans, sp.mix.length),
  ]);
}

function renderEquilibrium(eq, cancelled, asked) {
  const status = eq.converged ? "converged" : `target ε ${eq.epsilon} not reached`;
  const source = eq.from_store ? "answered from the store" : `${eq.iterations} iterations, ${seconds(eq.seconds)}`;
  const cert = el("p", "certificate");
  cert.append("Exploitability ", el("b", "", eq.exploitability.toFixed(4)), ": no arrangement gains more than"
    + ` that against this mix (certified: ${eq.exploitability_proven ? "exact best response" : "proven bound"};`
    + ` ${status})${eq.interrupted || cancelled ? " — interrupted" : ""}; ${source}.`);
  const play = el("h4", "play-title", "Play this: drawn from the mix with seed ");
  const seed = el("span", "", String(asked.body.seed));
  seed.id = "answer-seed";
  play.append(seed);
  const again = el("button", "answer-action quiet", "Draw another");
  again.type = "button";
  again.id = "draw-another";
  again.dataset.needsDeal = "fresh";
  again.addEventListener("click", () => {
    if (again.getAttribute("aria-disabled") !== "true") run("solve");
  });
  const actions = rowOf(again, takeButton(eq.arrangement));
  const replay = el("p", "hint", "The seed is drawn at random for every answer, so an opponent cannot predict "
    + "it. The same arrangement again: ");
  replay.append(el("code", "", `quintet-solve ${sortCards(eq.exposed).join(" ")} --epsilon ${asked.body.epsilon}`
    + ` --seed ${asked.body.seed}`));
  const mixTitle = el("h4", "", `The mix: ${eq.mix.length} arrangement${eq.mix.length > 1 ? "s" : ""}`
    + (eq.mix.length > MIX_SHOWN ? ` (the ${MIX_SHOWN} most likely)` : ""));
  const rest = [plansEl(eq.plans, eq.mix.length), mixTitle, mixEl(eq.mix),
    el("h4", "", "Per-slot hands (marginals)"), ...marginalsEl(eq.slot_marginals)];
  if ((cancelled || eq.interrupted) && !eq.converged) { // stopped short of ε: shown, not offered to play
    const note = el("p", "stale-note stopped-note", `Stopped before the target ε ${eq.epsilon}: this is the best mix `
      + `found so far, not an equilibrium to play. Ask again to go on from it (${eq.iterations} iterations so far).`);
    showAnswer(`${cancelled ? "Cancelled" : "Interrupted"}: the best mix found so far`, eq.exposed, asked,
      [cert, note, ...rest]);
    return;
  }
  showAnswer("Equilibrium: a certified mixed strategy", eq.exposed, asked, [
    cert, play, packetsEl(eq), totalsEl(eq), actions, replay, ...rest,
  ]);
}

/** An answer, by its ``kind``. */
function render(data, cancelled, asked) {
  const renderers = {
    grade: () => renderGrade(data, asked),
    kmix: () => renderSparse(data, cancelled, asked),
    equilibrium: () => renderEquilibrium(data, cancelled, asked),
    solution: () => renderSolution(data, cancelled, asked),
  };
  if (!renderers[data.kind]) throw new Error(`the server sent an answer of an unknown kind (${data.kind})`);
  renderers[data.kind]();
}

function optionsChanged() {
  const choice = $("opponent").value;
  const eq = opponentNames(opponentText()).includes("equilibrium");
  for (const e of all(".mixture-only")) e.hidden = choice !== "mixture";
  for (const e of all(".eq-only")) e.hidden = !eq;
  for (const e of all(".kmix-only")) e.hidden = choice !== "equilibrium";
  const k = $("max-support").value.trim();
  $("solve").textContent = choice !== "equilibrium" ? "Best arrangement"
    : /^\d+$/.test(k) ? `Solve a mix of at most ${k}` : "Solve the equilibrium";
  const model = opponentModel(choice);
  $("opponent-help").textContent = model ? `${model.label[0].toUpperCase()}${model.label.slice(1)}: ${model.help}.`
    : `A mixture: ${opponents.mixture}.`;
  $("rules-summary").textContent = `Rules: ${rulesWords(readRules())}`;
  checkOptions();
  refreshStale();
}

// ---------------------------------------------------------------- a position as a link

const LINK = "#advise?";

const linkValue = (v) => encodeURIComponent(v).replace(/%2F/g, "/").replace(/%3A/g, ":").replace(/%2C/g, ",");

/**
 * The form as a link's fragment: ``#advise?deal=…&opponent=…`` — the deal (and its seed), the
 * opponent, the objective, ε and the time limit (when they apply), K, the rule options, my
 * arrangement (packets separated by "/", cards by "."); ``ask``: the question of the answer
 * shown ({kind, body}) and its equilibrium draw's seed, so the link reopens to that answer.
 */
export function positionFragment(ask = null) {
  const q = [];
  const add = (key, value) => {
    if (value !== "" && value !== null && value !== undefined) q.push(`${key}=${linkValue(String(value))}`);
  };
  add("deal", sortCards(state.exposed).join("."));
  add("seed", $("seed").value.trim());
  add("opponent", opponentText());
  if ($("objective").value !== "margin") add("objective", $("objective").value);
  if (opponentNames(opponentText()).includes("equilibrium")) {
    if ($("epsilon").value.trim() !== String(limits.defaults.SOLVE_EPSILON.value)) add("epsilon", $("epsilon").value.trim());
    if ($("time-limit").value.trim() !== String(limits.defaults.SOLVE_TIME_LIMIT.value)) {
      add("time", $("time-limit").value.trim());
    }
    add("k", $("max-support").value.trim());
  }
  const rules = readRules();
  add("tie", rules.tie_points);
  add("tiebreak", rules.tiebreak);
  if (rules.ace_low_straight) add("acelow", 1);
  if (rules.flush_over_full_house) add("flush", 1);
  const packets = mine.mine.map((p) => p.join("."));
  while (packets.length && !packets[packets.length - 1]) packets.pop();
  add("mine", packets.join("/"));
  if (ask) {
    add("ask", ask.kind);
    if (ask.kind === "solve" && ask.body.seed !== undefined && ask.body.max_support === undefined) {
      add("draw", ask.body.seed);
    }
  }
  return LINK + q.join("&");
}

/** Keep the address bar's fragment the form's position (and the answer's question while the
 * answer shown is still the form's) — unless it names another tab's place (#play/…, #review/…). */
function updateLink(ask) {
  if (state.holdLink || $("panel-advisor").hidden) return;
  if (location.hash && location.hash !== "#advise" && !location.hash.startsWith(LINK)) return;
  const fragment = positionFragment(ask);
  if (location.hash !== fragment) history.replaceState(null, "", fragment);
}

/** Open ``#advise?…``: fill the form from it (any part it names) and, when it names the question
 * answered, ask it again — the same answer (an equilibrium drawn with the link's seed). */
function openLink(hash) {
  if (!hash.startsWith(LINK)) return;
  const p = new URLSearchParams(hash.slice(LINK.length).replace(/\+/g, "%2B"));
  const problems = [];
  const deal = p.get("deal");
  if (deal !== null) {
    const { cards, error } = readCards(deal.replace(/\./g, " "), ruleSet.deck);
    if (error || cards.length !== ruleSet.n_exposed) problems.push(`the deal: ${error || `${cards.length} cards, not ${ruleSet.n_exposed}`}`);
    else setExposed(cards);
  }
  if (p.get("seed") !== null) {
    $("seed").value = p.get("seed");
    if (deal !== null) state.dealSeed = readInRange(p.get("seed"), "seed").value ?? null;
  }
  const opponent = p.get("opponent");
  if (opponent !== null) {
    const listed = [...$("opponent").options].some((o) => o.value === opponent && o.value !== "mixture");
    $("opponent").value = listed ? opponent : "mixture";
    if (!listed) $("mixture").value = opponent;
  }
  const objective = p.get("objective") || "margin";
  if (["margin", "points"].includes(objective)) $("objective").value = objective;
  else problems.push(`objective ${objective}`);
  $("epsilon").value = p.get("epsilon") ?? String(limits.defaults.SOLVE_EPSILON.value);
  $("time-limit").value = p.get("time") ?? String(limits.defaults.SOLVE_TIME_LIMIT.value);
  $("max-support").value = p.get("k") ?? "";
  $("rule-tie").value = p.get("tie") === "0.5" ? "0.5" : "0";
  $("rule-tiebreak").value = ["group-only", "no-kickers"].includes(p.get("tiebreak")) ? p.get("tiebreak") : "kickers";
  $("rule-ace-low").checked = p.get("acelow") === "1";
  $("rule-flush").checked = p.get("flush") === "1";
  if (p.get("mine")) {
    const text = p.get("mine").replace(/\./g, " ").replace(/\//g, " | ");
    const { packets, error } = readArrangement(text, state.exposed, false, ruleSet);
    if (error) problems.push(`my arrangement: ${error}`);
    else mine.set(packets, { undoable: false });
  }
  optionsChanged();
  if (problems.length) {
    showError(`This link could not be read whole: ${problems.join("; ")}.`);
    return;
  }
  const ask = p.get("ask");
  if (["solve", "grade", "complete"].includes(ask)) {
    const draw = p.get("draw");
    state.linkSeed = draw === null ? null : readInRange(draw, "seed").value ?? null;
    run(ask);
  }
}

async function copyLink() {
  const link = `${location.origin}${location.pathname}${positionFragment(state.answer && $("answer").dataset.stale
    !== "true" ? state.answer : null)}`;
  let message = "Copied: this position";
  try {
    await navigator.clipboard.writeText(link);
    if (state.answer) message += " and the question answered";
  } catch {
    message = `The link: ${link}`; // no clipboard (an insecure page): shown to copy by hand
  }
  const msg = $("copy-link-msg");
  msg.textContent = message;
  msg.hidden = false;
  setTimeout(() => {
    msg.hidden = true;
  }, 4000);
}

/** On a narrow screen the answer sits below the controls: bring it into view when its top
 * is in the lower half of the screen or out of sight. */
function reveal() {
  const box = $("answer").closest(".box");
  const rect = box.getBoundingClientRect();
  if (rect.top > window.innerHeight / 2 || rect.bottom < 0) box.scrollIntoView({ behavior: "smooth", block: "start" });
}

// ---------------------------------------------------------------- setup

export function setupAdvisor() {
  const link = location.hash; // read before the form, being set up, writes its own position there
  state.holdLink = true;
  // the models that need no data (population and style take theirs from a file or a request's field)
  fillOpponents("opponent", opponents.models.filter((m) => m.data === null), (m) => m.label);
  ruleSet = rulesNamed("classic");
  const deck = ruleSet.deck.length;
  $("exposed-grid").setAttribute("aria-label", `${deck}-card deck: pick ${ruleSet.n_exposed} exposed cards`);
  $("exposed-rest").textContent = `The other ${deck - ruleSet.n_exposed} are yours to arrange.`;
  $("epsilon").value = String(limits.defaults.SOLVE_EPSILON.value);
  $("time-limit").value = String(limits.defaults.SOLVE_TIME_LIMIT.value);
  mine = new ArrangementEditor({ slots: $("mine-slots"), text: $("mine-text"), textMsg: $("mine-text-msg"),
    pool: $("pool"), undo: $("undo"), clear: $("clear-mine") }, {
    onChange: () => {
      buttonsChanged();
      refreshStale();
    },
  });
  deckGrid = new CardGrid($("exposed-grid"), deckRows(ruleSet.deck), toggleExposed);
  const typed = (partial) => {
    const { cards, error } = readDealText(partial);
    state.exposedError = error;
    setExposed(cards.slice(0, ruleSet.n_exposed), { text: false });
  };
  $("exposed-text").addEventListener("input", () => typed(true));
  $("exposed-text").addEventListener("change", () => {
    typed(false);
    if (!state.exposedError) $("exposed-text").value = sortCards(state.exposed).join(" ");
  });
  $("random-deal").addEventListener("click", () => dealFromSeed(randomSeed()));
  const dealSeed = () => {
    try {
      dealFromSeed(readSeed());
    } catch (e) {
      if (e instanceof FormError) formProblem(e);
      else throw e;
    }
  };
  $("deal-seed").addEventListener("click", dealSeed);
  $("seed").addEventListener("keydown", (e) => {
    if (e.key === "Enter") dealSeed();
  });
  $("seed").addEventListener("input", () => fieldMessage("seed", ""));
  $("clear-deal").addEventListener("click", () => setExposed([]));
  for (const id of ["opponent", "objective", "rule-tie", "rule-tiebreak", "rule-ace-low", "rule-flush"]) {
    $(id).addEventListener("change", optionsChanged);
  }
  for (const id of ["mixture", "epsilon", "time-limit", "max-support"]) $(id).addEventListener("input", optionsChanged);
  optionsChanged();
  $("solve").addEventListener("click", () => run("solve"));
  $("grade").addEventListener("click", () => run("grade"));
  $("complete").addEventListener("click", () => run("complete"));
  $("cancel").addEventListener("click", cancelJob);
  $("copy-link").addEventListener("click", copyLink);
  dealChanged();
  state.holdLink = false;
  openLink(link);
  window.addEventListener("hashchange", () => openLink(location.hash)); // a link pasted into this tab
}

// The arrangement advisor tab: pick the exposed cards, ask for the best arrangement (or the
// equilibrium, with live progress), build "my arrangement" and grade or complete it.

import { call, followJob } from "./api.js";
import { CardGrid, cardEl, readCards, sortCards } from "./cards.js";
import { el, pct, seconds, signed } from "./format.js";

const RANKS = "AKQJT987";
const SUITS = "shdc";
const N_EXPOSED = 7;
const N_SLOTS = 5;
const HAND_SIZE = 5;
const WEIGHTS = [3, 4, 5, 6, 7];
const MIX_SHOWN = 10;
const CATEGORY_COLOURS = {
  "high card": "#bbb", "one pair": "#9ecae1", "two pair": "#6baed6", "three of a kind": "#4292c6",
  "straight": "#74c476", "flush": "#fd8d3c", "full house": "#e6550d", "four of a kind": "#a63603",
  "straight flush": "#756bb1",
};

const OPPONENT_HELP = {
  equilibrium: "The right advice against an unknown opponent: a mix of arrangements that no arrangement "
    + "beats by more than ε points. New deals take seconds to minutes; solved deals come from the store.",
  uniform: "An opponent who arranges the 25 cards at random.",
  greedy: "An opponent who takes the strongest hand first, then the next, and lays them weakest first.",
  mixture: "Weights are relative, e.g. uniform:0.3,greedy:0.7 or equilibrium:0.5,greedy:0.5.",
};

const $ = (id) => document.getElementById(id);

const state = {
  exposed: new Set(),
  mine: Array.from({ length: N_SLOTS }, () => []),
  history: [],
  activeSlot: 0,
  swap: null, // the best swap of the last grade, shown on "my arrangement"
  job: null, // the equilibrium job being followed
  busy: false,
};

let deckGrid;
let poolGrid;

// ---------------------------------------------------------------- the deal

function liveCards() {
  const live = [];
  for (const s of SUITS) for (const r of RANKS) if (!state.exposed.has(r + s)) live.push(r + s);
  return live;
}

function placed() {
  return new Set(state.mine.flat());
}

function setExposed(cards) {
  state.exposed = new Set(cards);
  state.mine = Array.from({ length: N_SLOTS }, () => []);
  state.history = [];
  state.activeSlot = 0;
  state.swap = null;
  dealChanged();
}

function toggleExposed(code) {
  if (state.exposed.has(code)) state.exposed.delete(code);
  else if (state.exposed.size < N_EXPOSED) state.exposed.add(code);
  setExposed([...state.exposed]);
}

function dealChanged() {
  const full = state.exposed.size === N_EXPOSED;
  deckGrid.update((code) => ({
    pressed: state.exposed.has(code),
    disabled: full && !state.exposed.has(code),
  }));
  $("exposed-text").value = sortCards([...state.exposed]).join(" ");
  $("exposed-count").textContent = `${state.exposed.size} of ${N_EXPOSED}`;
  $("exposed-count").classList.toggle("done", full);
  buildPool();
  mineChanged();
  buttonsChanged();
}

function buildPool() {
  const container = $("pool");
  if (state.exposed.size !== N_EXPOSED) {
    container.replaceChildren(el("p", "hint", "Your cards appear here once the seven exposed cards are picked."));
    poolGrid = null;
    return;
  }
  const rows = [...SUITS].map((s) => [...RANKS].map((r) => r + s).filter((c) => !state.exposed.has(c)));
  poolGrid = new CardGrid(container, rows.filter((r) => r.length), placeCard);
}

// ---------------------------------------------------------------- my arrangement

function snapshot() {
  state.history.push(state.mine.map((p) => [...p]));
}

function placeCard(code) {
  if (placed().has(code)) return;
  let slot = state.activeSlot;
  if (state.mine[slot].length >= HAND_SIZE) {
    slot = state.mine.findIndex((p) => p.length < HAND_SIZE);
    if (slot < 0) return;
  }
  snapshot();
  state.mine[slot].push(code);
  if (state.mine[slot].length === HAND_SIZE) {
    const next = state.mine.findIndex((p, i) => i > slot && p.length < HAND_SIZE);
    const any = state.mine.findIndex((p) => p.length < HAND_SIZE);
    state.activeSlot = next >= 0 ? next : any >= 0 ? any : slot;
  } else {
    state.activeSlot = slot;
  }
  state.swap = null;
  mineChanged();
}

function removeCard(slot, code) {
  snapshot();
  state.mine[slot] = state.mine[slot].filter((c) => c !== code);
  state.activeSlot = slot;
  state.swap = null;
  mineChanged();
}

function undo() {
  if (!state.history.length) return;
  state.mine = state.history.pop();
  state.swap = null;
  mineChanged();
}

function clearMine() {
  if (!state.mine.some((p) => p.length)) return;
  snapshot();
  state.mine = Array.from({ length: N_SLOTS }, () => []);
  state.activeSlot = 0;
  state.swap = null;
  mineChanged();
}

function mineChanged() {
  const container = $("mine-slots");
  container.replaceChildren();
  const ready = state.exposed.size === N_EXPOSED;
  state.mine.forEach((packet, i) => {
    const row = el("div", "mine-slot");
    row.dataset.slot = i + 1;
    row.classList.toggle("active", ready && i === state.activeSlot);
    const head = el("button", "slot-head");
    head.type = "button";
    head.innerHTML = `Slot ${i + 1}<small>${WEIGHTS[i]} pts</small>`;
    head.setAttribute("aria-pressed", ready && i === state.activeSlot ? "true" : "false");
    head.setAttribute("aria-label", `slot ${i + 1}, ${WEIGHTS[i]} points: ${packet.length} of 5 cards`
      + (i === state.activeSlot ? " (cards go here)" : ""));
    head.disabled = !ready;
    head.addEventListener("click", () => {
      state.activeSlot = i;
      mineChanged();
      container.querySelector(`[data-slot="${i + 1}"] .slot-head`).focus();
    });
    row.append(head);
    const cards = el("div", "slot-cards");
    for (let k = 0; k < HAND_SIZE; k++) {
      const code = packet[k];
      if (code) {
        const b = document.createElement("button");
        b.type = "button";
        b.append(cardEl(code));
        b.className = "placed";
        b.dataset.card = code;
        b.setAttribute("aria-label", `${b.firstChild.getAttribute("aria-label")}: take back`);
        if (state.swap && state.swap.slots[i] === code) b.firstChild.classList.add("swap");
        b.addEventListener("click", () => removeCard(i, code));
        cards.append(b);
      } else {
        cards.append(el("span", "empty-card"));
      }
    }
    row.append(cards);
    container.append(row);
  });
  if (poolGrid) {
    const used = placed();
    poolGrid.update((code) => ({ pressed: false, disabled: used.has(code) }));
    for (const b of poolGrid.buttons) b.classList.toggle("used", used.has(b.dataset.card));
  }
  buttonsChanged();
}

function buttonsChanged() {
  const ready = state.exposed.size === N_EXPOSED;
  const full = state.mine.filter((p) => p.length === HAND_SIZE).length;
  const any = state.mine.some((p) => p.length);
  $("solve").disabled = !ready || state.busy;
  $("undo").disabled = !state.history.length;
  $("clear-mine").disabled = !any;
  $("grade").disabled = !ready || state.busy || full < N_SLOTS;
  $("complete").disabled = !ready || state.busy || full === 0 || full === N_SLOTS;
}

// ---------------------------------------------------------------- asking

function opponent() {
  const choice = $("opponent").value;
  return choice === "mixture" ? $("mixture").value.trim() : choice;
}

function baseRequest() {
  const body = {
    exposed: sortCards([...state.exposed]).join(" "),
    opponent: opponent(),
    objective: $("objective").value,
  };
  if (body.opponent.includes("equilibrium")) {
    const epsilon = parseFloat($("epsilon").value);
    const limit = parseFloat($("time-limit").value);
    if (epsilon > 0) body.epsilon = epsilon;
    if (limit > 0) body.time_limit = limit;
  }
  return body;
}

function showError(message) {
  const box = $("error");
  box.hidden = !message;
  box.textContent = message || "";
}

function setBusy(busy) {
  state.busy = busy;
  buttonsChanged();
}

async function ask(body, render) {
  showError("");
  setBusy(true);
  $("answer").classList.add("stale");
  try {
    const { status, data } = await call("POST", "/api/solve", body);
    if (status === 202) {
      const job = await follow(data);
      if (job.status === "failed") throw new Error(job.error);
      if (!job.result) {
        $("answer").replaceChildren(el("p", "hint", "Cancelled before any answer."));
        return;
      }
      render(job.result, job.status === "cancelled");
    } else {
      render(data, false);
    }
    reveal();
  } catch (e) {
    showError(e.message);
  } finally {
    $("progress").hidden = true;
    $("progress-text").textContent = "Solving…";
    $("answer").classList.remove("stale");
    state.job = null;
    setBusy(false);
  }
}

async function follow(job) {
  state.job = job;
  const history = [];
  $("progress").hidden = false;
  $("cancel").disabled = false;
  reveal();
  const target = job.request.epsilon ?? 0.01;
  const update = (j) => {
    const p = j.progress;
    let text = j.status === "queued" ? "Waiting for a free worker…" : "Solving the equilibrium…";
    if (j.status === "cancelling") text = "Cancelling…";
    if (p) {
      if (!history.length || history[history.length - 1].iteration !== p.iteration) history.push(p);
      text += ` iteration ${p.iteration} · certified ε ≤ ${p.exploitability.toFixed(4)} (target ${target})`
        + ` · ${p.support} arrangements in the mix`;
    }
    text += ` · ${seconds(j.elapsed)}`;
    $("progress-text").textContent = text;
    drawSparkline(history, target);
  };
  update(job);
  return followJob(job, update);
}

function drawSparkline(history, target) {
  const svg = $("progress-chart");
  svg.replaceChildren();
  if (history.length < 2) return;
  const ys = history.map((p) => Math.log10(Math.max(p.exploitability, target / 10)));
  const lo = Math.min(Math.log10(target), ...ys);
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
    await call("DELETE", `/api/jobs/${state.job.job}`);
  } catch (e) {
    showError(e.message);
  }
}

// ---------------------------------------------------------------- rendering answers

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
  text.innerHTML = `<b class="p-win">W ${pct(s.p_win)}</b> <span class="p-tie">T ${pct(s.p_tie)}</span> `
    + `<span class="p-loss">L ${pct(s.p_loss)}</span>`;
  wrap.append(bar, text);
  return wrap;
}

/** Five packets with hands, P(win/tie/loss) and expected margin per slot. */
function packetsEl(sol, { swap = null, fixed = new Set() } = {}) {
  const list = el("ol", "packets");
  sol.per_slot.forEach((s, i) => {
    const li = el("li", "packet");
    li.dataset.slot = s.slot;
    const label = el("div", "slot-label", `Slot ${s.slot}`);
    label.append(el("small", "", `${s.points} pts`));
    if (fixed.has(s.slot)) label.append(el("small", "yours", "yours"));
    const cards = el("div", "packet-cards");
    for (const code of sol.arrangement[i]) {
      const c = cardEl(code);
      if (swap && swap.slots[s.slot - 1] === code) c.classList.add("swap");
      cards.append(c);
    }
    const hand = el("div", "hand", s.hand);
    const margin = el("div", "slot-margin", signed(s.expected_margin));
    margin.title = `expected margin in this slot (expected points ${s.expected_points.toFixed(3)})`;
    li.append(label, cards, hand, wtlBar(s), margin);
    list.append(li);
  });
  return list;
}

function proofText(sol) {
  if (sol.engine === "given") return "";
  const proof = sol.optimal ? "proven optimal"
    : `not proven optimal: bound ${sol.bound.toFixed(4)} (gap ${sol.gap.toFixed(4)})`;
  return `${proof}${sol.interrupted ? ", interrupted" : ""} · ${sol.engine} · ${seconds(sol.seconds)}`;
}

function totalsEl(sol) {
  const p = el("p", "totals");
  p.innerHTML = `Expected margin <b class="total-margin">${signed(sol.expected_margin, 4)}</b>`
    + ` · expected points ${sol.expected_points.toFixed(4)}`;
  return p;
}

function renderSolution(sol, cancelled, { fixed = new Set() } = {}) {
  const out = [];
  const title = fixed.size ? "Best completion" : "Best arrangement";
  out.push(el("h3", "", `${title} against ${sol.opponent} (${sol.objective})`));
  out.push(packetsEl(sol, { fixed }));
  out.push(totalsEl(sol));
  out.push(el("p", "proof", proofText(sol) + (cancelled ? " · cancelled" : "")));
  $("answer").replaceChildren(...out);
}

function swapOf(grade) {
  const sw = grade.best_swap;
  if (!sw) return null;
  const slots = {};
  slots[sw.slot_a - 1] = sw.card_a;
  slots[sw.slot_b - 1] = sw.card_b;
  return { ...sw, slots };
}

function renderGrade(grade) {
  const swap = swapOf(grade);
  state.swap = swap;
  mineChanged();
  const out = [el("h3", "", `Your arrangement against ${grade.given.opponent} (${grade.given.objective})`)];
  const summary = el("dl", "grade-summary");
  const add = (term, value, id) => {
    summary.append(el("dt", "", term));
    const dd = el("dd", "", value);
    dd.id = id;
    summary.append(dd);
  };
  add("Value", signed(grade.value, 4), "grade-value");
  add("Optimum", signed(grade.optimum, 4) + (grade.optimum_proven ? "" : ` (bound ${grade.bound.toFixed(4)})`),
    "grade-optimum");
  add("Regret", grade.regret.toFixed(4), "grade-regret");
  add("Best swap", swap
    ? `${swap.card_a} (slot ${swap.slot_a}) ↔ ${swap.card_b} (slot ${swap.slot_b}): ${signed(swap.value, 4)}`
      + ` (${signed(swap.value - grade.value, 4)})`
    : "none: no swap of two cards improves it", "grade-swap");
  out.push(summary, packetsEl(grade.given, { swap }), totalsEl(grade.given));
  out.push(el("h3", "", "Optimal arrangement"), packetsEl(grade.best), totalsEl(grade.best));
  out.push(el("p", "proof", proofText(grade.best)));
  $("answer").replaceChildren(...out);
}

function marginalsEl(slotMarginals) {
  const box = el("div", "marginals");
  slotMarginals.forEach((slot, i) => {
    const row = el("div", "marginal-row");
    row.append(el("div", "slot-label", `Slot ${i + 1}`));
    const bar = el("div", "marginal-bar");
    bar.setAttribute("role", "img");
    bar.setAttribute("aria-label", `slot ${i + 1}: `
      + slot.slice(0, 4).map((m) => `${m.hand} ${pct(m.probability)}`).join(", "));
    for (const m of slot) {
      const seg = el("span");
      seg.style.width = `${100 * m.probability}%`;
      seg.style.background = CATEGORY_COLOURS[m.hand.split(",")[0]] || "#999";
      seg.title = `${m.hand}: ${pct(m.probability)}`;
      bar.append(seg);
    }
    const legend = el("div", "marginal-legend");
    for (const m of slot.slice(0, 3)) {
      const item = el("span", "legend-item");
      const dot = el("span", "legend-dot");
      dot.style.background = CATEGORY_COLOURS[m.hand.split(",")[0]] || "#999";
      item.append(dot, `${m.hand} ${pct(m.probability)}`);
      legend.append(item);
    }
    if (slot.length > 3) legend.append(el("span", "legend-item", `${slot.length - 3} more`));
    row.append(bar, legend);
    box.append(row);
  });
  return box;
}

function mixEl(mix) {
  const table = el("table", "mix");
  const head = el("tr");
  head.append(el("th", "", "p"), el("th", "", "arrangement (slot 1 → 5)"));
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
      group.title = m.hands[i];
      for (const code of packet) group.append(cardEl(code, "small"));
      cells.append(group);
    });
    tr.append(p, cells);
    table.append(tr);
  }
  return table;
}

function renderEquilibrium(eq, cancelled) {
  const out = [el("h3", "", "Equilibrium: a certified mixed strategy")];
  const status = eq.converged ? "converged" : `target ε ${eq.epsilon} not reached`;
  const source = eq.from_store ? "answered from the store" : `${eq.iterations} iterations, ${seconds(eq.seconds)}`;
  const cert = el("p", "certificate");
  cert.innerHTML = `Exploitability <b>${eq.exploitability.toFixed(4)}</b>: no arrangement gains more than that`
    + ` against this mix (certified: ${eq.exploitability_proven ? "exact best response" : "proven bound"}; ${status})`
    + `${eq.interrupted || cancelled ? " — interrupted" : ""}; ${source}.`;
  out.push(cert);
  out.push(el("h4", "", "Play this (drawn from the mix, seed 0)"));
  out.push(packetsEl(eq), totalsEl(eq));
  out.push(el("h4", "", `The mix: ${eq.mix.length} arrangement${eq.mix.length > 1 ? "s" : ""}`
    + (eq.mix.length > MIX_SHOWN ? ` (the ${MIX_SHOWN} most likely)` : "")));
  out.push(mixEl(eq.mix));
  out.push(el("h4", "", "Per-slot hands (marginals)"));
  out.push(marginalsEl(eq.slot_marginals));
  $("answer").replaceChildren(...out);
}

/** On a narrow screen the answer sits below the controls: bring it into view when its top
 * is in the lower half of the screen or out of sight. */
function reveal() {
  const box = $("answer").closest(".box");
  const rect = box.getBoundingClientRect();
  if (rect.top > window.innerHeight / 2 || rect.bottom < 0) box.scrollIntoView({ behavior: "smooth", block: "start" });
}

function renderAnswer(data, cancelled) {
  if (data.mix) renderEquilibrium(data, cancelled);
  else renderSolution(data, cancelled);
}

// ---------------------------------------------------------------- setup

export function setupAdvisor() {
  deckGrid = new CardGrid($("exposed-grid"), [...SUITS].map((s) => [...RANKS].map((r) => r + s)), toggleExposed);
  $("exposed-text").addEventListener("change", () => {
    const { cards, bad } = readCards($("exposed-text").value);
    if (bad.length) showError(`not a card: ${bad[0]}`);
    else if (cards.length > N_EXPOSED) showError(`${cards.length} cards: the exposed cards are ${N_EXPOSED}`);
    else {
      showError("");
      setExposed(cards);
    }
  });
  $("random-deal").addEventListener("click", async () => {
    const seed = parseInt($("seed").value, 10) || 0;
    try {
      const { data } = await call("GET", `/api/deal?seed=${seed}`);
      showError("");
      setExposed(data.exposed);
      $("seed").value = seed + 1;
    } catch (e) {
      showError(e.message);
    }
  });
  $("clear-deal").addEventListener("click", () => setExposed([]));
  const optionsChanged = () => {
    const choice = $("opponent").value;
    const eq = opponent().includes("equilibrium");
    for (const e of document.querySelectorAll(".mixture-only")) e.hidden = choice !== "mixture";
    for (const e of document.querySelectorAll(".eq-only")) e.hidden = !eq;
    $("objective").disabled = choice === "equilibrium";
    $("solve").textContent = choice === "equilibrium" ? "Solve the equilibrium" : "Best arrangement";
    $("opponent-help").textContent = OPPONENT_HELP[choice];
  };
  $("opponent").addEventListener("change", optionsChanged);
  $("mixture").addEventListener("input", optionsChanged);
  optionsChanged();
  $("solve").addEventListener("click", () => ask(baseRequest(), renderAnswer));
  $("grade").addEventListener("click", () => {
    const body = { ...baseRequest(), grade: state.mine.map((p) => [...p]) };
    ask(body, (data) => renderGrade(data));
  });
  $("complete").addEventListener("click", () => {
    const fix = {};
    state.mine.forEach((p, i) => {
      if (p.length === HAND_SIZE) fix[String(i + 1)] = [...p];
    });
    const fixed = new Set(Object.keys(fix).map(Number));
    ask({ ...baseRequest(), fix }, (data, cancelled) => renderSolution(data, cancelled, { fixed }));
  });
  $("undo").addEventListener("click", undo);
  $("clear-mine").addEventListener("click", clearMine);
  $("cancel").addEventListener("click", cancelJob);
  dealChanged();
}

// @ts-check
// The Review tab: your games (records loaded from a file — the Play tab's download or
// quintet-play's records — or opened with one click from the Play tab's finished games, and kept
// in this browser), a game reviewed (POST /api/review) at its own address (#review/RECORD), the
// statistics of your games (POST /api/stats), and training puzzles (GET /api/puzzles, POST
// /api/puzzles/grade: rated, a retry after a miss, the progress kept in this browser).  The
// numbers are the server's (solver.play.review, statistics, puzzle):
// this module only shows them.

import { apiUrl, call, followJob } from "./api.js";
import { ArrangementEditor } from "./arrange.js";
import { cardEl, cardsTextEl } from "./cards.js";
import { categoryColour, categoryWords } from "./categories.js";
import { $, errorBox, fieldMessage, fillOpponents, limits, opponentModel, opponents, randomSeed } from "./form.js";
import { el, seconds, signed } from "./format.js";
import { SEAT_ADDRESS } from "./play.js";
import { packetsEl, proofText, swapWords } from "./render.js";

const KEPT = "quintet-records"; // localStorage: the records loaded, oldest first
const showError = errorBox("review-error");

const ADDRESS = "#review/"; // a reviewed game's address: #review/ and its record (base64url of its JSON)

const review = { records: [], busy: false, puzzle: null, editor: null, tally: { puzzles: 0, solved: 0, stars: 0 },
  progress: null, tries: 0, last: null, select: () => {} };

// ---------------------------------------------------------------- the records kept

/** A record's identity: the same game loaded twice is kept once. */
function recordKey(r) {
  return JSON.stringify([r.time, r.seed, r.exposed, r.player]);
}

function loadKept() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

function saveKept(records) {
  try {
    localStorage.setItem(KEPT, JSON.stringify(records));
    return "";
  } catch (e) {
    return `cannot keep them in this browser (${e.message})`;
  }
}

/** Read a records file (JSON lines): {records, error} (error names the line); resigned games are skipped. */
export function parseRecords(text, name) {
  const records = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    let entry;
    try {
      entry = JSON.parse(lines[i]);
    } catch {
      return { records, error: `${name}: line ${i + 1} is not JSON (a records file holds one JSON object a line)` };
    }
    if (entry && entry.resigned) continue; // resigned before its show-down: nothing to review (docs/rules.md)
    if (!entry || typeof entry !== "object" || Array.isArray(entry) || !entry.player || !entry.computer) {
      return { records, error: `${name}: line ${i + 1} is not a game record (no 'player' and 'computer')` };
    }
    records.push(entry);
  }
  if (!records.length) return { records, error: `${name}: no game records` };
  return { records, error: "" };
}

async function loadFiles(files) {
  fieldMessage("records-file", "");
  const added = [];
  for (const file of files) {
    const { records, error } = parseRecords(await file.text(), file.name);
    if (error) {
      fieldMessage("records-file", error);
      return;
    }
    try { // the server reads them as it will for the statistics: a record it refuses is refused here
      await call("POST", "/api/stats", { records: records.slice(-limits.ranges.records.high) });
    } catch (e) {
      fieldMessage("records-file", `${file.name}: ${e.message}`);
      return;
    }
    added.push(...records);
  }
  const { fresh, dropped, problem } = keep(added);
  const most = limits.ranges.records.high;
  const message = `${fresh.length} game${fresh.length === 1 ? "" : "s"} added`
    + (added.length > fresh.length ? ` (${added.length - fresh.length} already here)` : "")
    + (dropped ? `; the oldest ${dropped} left out (the statistics keep the last ${most})` : "")
    + (problem ? `; ${problem}` : ".");
  fieldMessage("records-file", message);
  $("records-file-msg").classList.add("ok");
  showGames();
  showStats();
}

/** Add ``records`` to the ones kept (each game once, oldest first, the last ``records.high``):
 * {fresh: the new ones, dropped: how many old ones fell out, problem: why they are not kept}. */
function keep(records) {
  const known = new Set(review.records.map(recordKey));
  const fresh = records.filter((r) => !known.has(recordKey(r)));
  const all = [...review.records, ...fresh].sort((a, b) => String(a.time).localeCompare(String(b.time)));
  const dropped = Math.max(0, all.length - limits.ranges.records.high);
  review.records = all.slice(dropped);
  return { fresh, dropped, problem: saveKept(review.records) };
}

/** Keep ``record``, list it and review it (the Review tab shown). */
function open(record) {
  keep([record]);
  showGames();
  showStats();
  review.select();
  reviewGame(review.records.findIndex((r) => recordKey(r) === recordKey(record)));
}

// ---------------------------------------------------------------- a game's address

/** ``record``'s address: its JSON, the show-down's slots left out (the server plays them again). */
export function reviewAddress(record) {
  const { slots, ...kept } = record;
  const bytes = new TextEncoder().encode(JSON.stringify(kept));
  const text = btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
  return ADDRESS + text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The record an address names; throws when it is not one. */
function recordOfAddress(hash) {
  const binary = atob(hash.slice(ADDRESS.length).replace(/-/g, "+").replace(/_/g, "/"));
  const record = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  if (!record || typeof record !== "object" || !record.player || !record.computer) throw new Error("not a game record");
  return record;
}

function openAddress(hash) {
  if (!hash.startsWith(ADDRESS)) return;
  const shown = $("review").dataset.address;
  if (shown === hash) return;
  let record;
  try {
    record = recordOfAddress(hash);
  } catch (e) {
    review.select();
    showError(`This review's link could not be read: ${e.message}.`);
    return;
  }
  open(record);
}

// ---------------------------------------------------------------- from the Play tab

/** Game ``game`` of the match at the seat this page is at: its record fetched, kept and reviewed. */
async function reviewFromTable(game, button) {
  const seat = SEAT_ADDRESS.exec(location.hash); // #play/TABLE/SEAT/TOKEN
  if (!seat || !seat[3]) return;
  button.disabled = true;
  try {
    const response = await fetch(apiUrl(`api/tables/${seat[1]}/records`), {
      headers: { Authorization: `Bearer ${seat[3]}` }, cache: "no-store" });
    if (!response.ok) throw new Error((await response.json()).error);
    const { records, error } = parseRecords(await response.text(), "the table's records");
    const record = records.filter((r) => r.game === game).pop();
    if (error || !record) throw new Error(error || `game ${game} has no record yet`);
    open(record);
  } catch (e) {
    review.select();
    showError(`Game ${game} could not be opened for review: ${e.message}`);
  } finally {
    button.disabled = false;
  }
}

/** A Review button on each finished game of the Play tab's match table (rebuilt by play.js at
 * every view: the buttons are put back each time). */
function offerReviews() {
  const table = $("play-match");
  const add = () => {
    if (document.body.dataset.playOnly) return; // no Review tab on a play-only server
    for (const tr of table.querySelectorAll("tr")) {
      if (tr.querySelector(".review-cell")) continue;
      const game = tr.dataset.game ? Number(tr.dataset.game) : null;
      const cell = el(tr.querySelector("th") ? "th" : "td", "review-cell");
      if (game !== null && !tr.dataset.resigned) { // a resigned game has no show-down to review
        const b = el("button", "quiet small review-game", "Review");
        b.type = "button";
        b.setAttribute("aria-label", `Review game ${game}`);
        b.addEventListener("click", () => reviewFromTable(game, b));
        cell.append(b);
      }
      tr.append(cell);
    }
  };
  new MutationObserver(add).observe(table, { childList: true });
  add();
}

function forget() {
  review.records = [];
  saveKept([]);
  if (location.hash.startsWith(ADDRESS)) history.replaceState(null, "", "#review"); // the game forgotten, its address too
  $("review").dataset.address = "";
  $("review").replaceChildren(el("p", "hint", "Pick a game to review."));
  fieldMessage("records-file", "Forgotten: this browser keeps no game.");
  showGames();
  showStats();
}

// ---------------------------------------------------------------- the games

function showGames() {
  const table = $("games");
  table.replaceChildren();
  $("records-forget").disabled = !review.records.length;
  if (!review.records.length) return;
  const head = el("tr");
  for (const [h, cls] of [["", ""], ["#", "n"], ["when", "when"], ["against", "against"], ["score", "score"],
    ["regret", "num"]]) head.append(el("th", cls, h));
  table.append(head);
  [...review.records].reverse().forEach((r, j) => {
    const i = review.records.length - 1 - j;
    const tr = el("tr");
    tr.dataset.index = String(i);
    const b = el("button", "quiet small review-game", "Review");
    b.type = "button";
    b.setAttribute("aria-label", `Review game ${i + 1}`);
    b.addEventListener("click", () => reviewGame(i));
    const cell = el("td");
    cell.append(b);
    const when = el("td", "when", String(r.time || "").slice(5, 16).replace("T", " "));
    when.title = String(r.time || "");
    const against = el("td", "against", String(r.opponent));
    against.title = String(r.opponent);
    tr.append(cell, el("td", "n", String(i + 1)), when, against,
      el("td", "score", `${r.points?.player ?? ""} : ${r.points?.computer ?? ""}`),
      el("td", "num", r.regret === null || r.regret === undefined ? "–" : Number(r.regret).toFixed(2)));
    table.append(tr);
  });
}

// ---------------------------------------------------------------- a review

function verdictEl(slot, other) {
  if (slot.winner === "player") return el("b", "verdict win", `you win ${slot.player_points}`);
  if (slot.winner === "computer") return el("b", "verdict loss", `${other} wins ${slot.computer_points}`);
  return el("b", "verdict tie", "tie");
}

function handRow(who, hand) {
  const row = el("div", "review-hand");
  const cards = el("span", "packet-cards");
  for (const code of hand.cards) cards.append(cardEl(code, "small"));
  const name = el("span", "hand", hand.hand);
  name.dataset.category = hand.category;
  name.style.borderColor = categoryColour(hand.category);
  row.append(el("span", "who", who), cards, name);
  return row;
}

function swapEl(grade) {
  const sw = grade.best_swap;
  const p = el("p", "swap-line");
  if (!sw) {
    p.textContent = "No swap of two cards improves it.";
    return p;
  }
  p.append("Best two-card swap: ", ...swapWords(sw, grade.value), ".");
  return p;
}

/** Per slot: your expected margin beside the best arrangement's, the slot where the regret was made marked. */
function slotRegretEl(regret) {
  const table = el("table", "match regret-slots");
  const head = el("tr");
  for (const h of ["slot", "yours", "best", "lost", ""]) head.append(el("th", h === "slot" ? "" : "num", h));
  table.append(head);
  for (const s of regret.slots) {
    const tr = el("tr");
    tr.dataset.slot = String(s.slot);
    tr.append(el("td", "", String(s.slot)), el("td", "num", signed(s.yours, 2)), el("td", "num", signed(s.best, 2)),
      el("td", "num", signed(s.lost, 2)), el("td", "made-here", s.slot === regret.worst_slot ? "← the regret was made here" : ""));
    if (s.slot === regret.worst_slot) tr.classList.add("worst");
    table.append(tr);
  }
  const wrap = el("div", "table-wrap");
  wrap.append(table);
  return wrap;
}

/** Your plan (the hand category of each slot) beside the best arrangements of the best plans, each
 * with its expected margin and what it gives up against the best; a row opens to its packets. */
function plansEl(g) {
  const proof = (sol) => (sol.optimal ? "" : ` (best found, bound ${signed(sol.bound, 2)})`);
  const rows = [["yours", g.given, ""], ["1. best", g.best, proof(g.best)],
    ...(g.best.alternatives || []).map((a) => [`${a.rank}.`, a, proof(a)])];
  const table = el("table", "match review-plans");
  const head = el("tr");
  for (const h of ["", "plan: the hand in each slot", "expected margin", "vs the best"]) {
    head.append(el("th", h.startsWith("exp") || h.startsWith("vs") ? "num" : "", h));
  }
  table.append(head);
  for (const [label, sol, proof] of rows) {
    const tr = el("tr");
    tr.dataset.plan = label === "yours" ? "yours" : String(sol.rank || 1);
    const plan = el("td", "plan");
    sol.categories.forEach((c, i) => {
      const chip = el("span", "plan-slot", categoryWords(c));
      chip.dataset.category = c;
      chip.style.borderColor = categoryColour(c);
      plan.append(...(i ? [" · ", chip] : [chip]));
    });
    if (sol !== g.given && sol !== g.best) {
      const more = el("details", "plan-packets");
      more.append(el("summary", "", "packets"), packetsEl(sol));
      plan.append(more);
    }
    tr.append(el("th", "", label), plan, el("td", "num", signed(sol.expected_margin, 2) + proof),
      el("td", "num", sol === g.best ? "" : signed(sol.expected_margin - g.best.expected_margin, 2)));
    table.append(tr);
  }
  const wrap = el("div", "table-wrap");
  wrap.append(table);
  return wrap;
}

function regretEl(regret, title) {
  const box = el("section", "regret");
  box.dataset.against = regret.against;
  const g = regret.grade;
  box.append(el("h4", "", title));
  const line = el("p", "regret-line");
  const value = el("b", regret.regret < 0.005 ? "regret zero" : "regret", regret.regret.toFixed(2));
  line.append(`Your expected margin ${signed(g.value, 2)}, the best ${signed(g.optimum, 2)} `
    + `(${g.optimum_proven ? "proven optimal" : `bound ${g.bound.toFixed(2)}`}) — regret `, value, ".");
  const luck = el("p", "luck-line");
  luck.append(`Skill and luck apart: the result ${signed(regret.result, 2)} = your expected margin `
    + `${signed(regret.expected, 2)} + luck `, el("b", "luck", signed(regret.luck, 2)), ".");
  box.append(line, luck, el("p", "hint small", "Per slot, your expected margin beside the best arrangement's:"),
    slotRegretEl(regret), swapEl(g));
  if (g.best.alternatives) {
    box.append(el("p", "hint small", "Your plan beside the best plans: each the best arrangement whose plan is none "
      + "of those above it (proven unless said):"), plansEl(g));
  }
  if (regret.regret >= 0.005) {
    const best = el("details", "best-arrangement");
    best.append(el("summary", "", "The best arrangement"), packetsEl(g.best), el("p", "proof", proofText(g.best)));
    box.append(best);
  }
  return box;
}

export function renderReview(r) {
  const other = r.opponent === "friend" ? "they" : "the computer";
  const out = [];
  const heading = el("h3", "answer-heading", `Game ${r.game} (seed ${r.seed}) against ${r.opponent}: you `
    + `${r.points.player}, ${other === "they" ? "your friend" : "the computer"} ${r.points.computer}`);
  heading.id = "review-heading";
  heading.tabIndex = -1;
  const dealP = el("p", "answer-for");
  dealP.append("Exposed ", cardsTextEl(r.exposed), ` · ${r.time.slice(0, 16).replace("T", " ")} · advice asked: `
    + `${r.hints.length ? r.hints.join(", ") : "none"}`);
  out.push(heading, dealP);
  const list = el("ol", "review-slots");
  const worst = (r.model || r.equilibrium)?.worst_slot; // where the regret was made
  for (const s of r.slots) {
    const li = el("li", "review-slot");
    li.dataset.slot = String(s.slot);
    li.dataset.winner = s.winner || "tie";
    const head = el("div", "review-slot-head");
    head.append(el("span", "slot-label", `Slot ${s.slot} · ${s.points} pts`), verdictEl(s, other),
      el("span", "reason", s.reason));
    if (s.slot === worst) {
      li.classList.add("regret-made");
      head.append(el("span", "made-here", "the regret was made here"));
    }
    li.append(head, handRow("you", s.player), handRow(other === "they" ? "they" : "computer", s.computer));
    list.append(li);
  }
  out.push(list);
  if (r.model) out.push(regretEl(r.model, `Against the computer's model (${r.model.model})`));
  if (r.equilibrium) {
    const title = `Against the equilibrium (certified exploitability ${r.equilibrium.exploitability.toFixed(4)})`;
    if (r.model && r.opponent === "equilibrium") out.push(el("p", "hint", `${title}: the same — the computer played it.`));
    else out.push(regretEl(r.equilibrium, title));
  }
  for (const note of r.notes) out.push(el("p", "hint small", note));
  $("review").replaceChildren(...out);
  return heading;
}

async function reviewGame(index) {
  if (review.busy) return;
  review.busy = true;
  showError("");
  const record = review.records[index];
  $("review-progress").hidden = false;
  $("review-progress-text").textContent = `Reviewing game ${index + 1}…`;
  let focus = $("review-error");
  try {
    const { status, data } = await call("POST", "/api/review", { record });
    let result = data;
    if (status === 202) {
      const job = await followJob(data, (j) => {
        const p = j.progress;
        $("review-progress-text").textContent = j.status === "queued" ? "Waiting for a free worker…"
          : `Solving the deal's equilibrium for the review…${p ? ` iteration ${p.iteration}, certified ε ≤ `
            + `${p.exploitability.toFixed(4)}` : ""} · ${seconds(j.elapsed)}`;
      });
      if (job.status !== "done") throw new Error(job.error || `the review was ${job.status}`);
      result = job.result;
    }
    focus = renderReview(result);
    const address = reviewAddress(record);
    $("review").dataset.address = address;
    if (!$("panel-review").hidden) history.replaceState(null, "", address);
  } catch (e) {
    showError(e.message);
  } finally {
    $("review-progress").hidden = true;
    review.busy = false;
    focus.focus({ preventScroll: false });
  }
}

// ---------------------------------------------------------------- statistics

function trendWords(t, what) {
  if (t.mean === null) return `no ${what} yet`;
  let text = `mean ${what} ${t.mean.toFixed(2)}`;
  if (t.recent !== null) {
    const arrow = { up: "getting worse", down: "improving", steady: "steady" }[t.direction];
    text += `; the last ${t.window} games ${t.recent.toFixed(2)}, the ${t.count - t.window} before `
      + `${t.earlier.toFixed(2)} (${arrow})`;
  }
  return text;
}

/** Bars of the trend's blocks (one per ``window`` games), their means written under them. */
function blocksEl(t) {
  const box = el("div", "blocks");
  box.setAttribute("role", "img");
  box.setAttribute("aria-label", `mean regret by ${t.window} games: ${t.blocks.map((b) => b.toFixed(2)).join(", ")}`);
  const top = Math.max(...t.blocks, 0.01);
  t.blocks.forEach((b, i) => {
    const col = el("div", "block");
    const bar = el("span", "block-bar");
    bar.style.height = `${Math.max(2, (100 * b) / top)}%`;
    col.title = `games ${i * t.window + 1}–${Math.min((i + 1) * t.window, t.count)}: ${b.toFixed(2)}`;
    col.append(bar, el("small", "", b.toFixed(2)));
    box.append(col);
  });
  return box;
}

export function renderStats(s) {
  if (!s.games) return [el("p", "hint", "No games yet: load your records above.")];
  const out = [];
  const summary = el("p", "stats-summary");
  summary.id = "stats-summary";
  summary.append(el("b", "", `${s.games} game${s.games === 1 ? "" : "s"}`), ` since ${s.first.slice(0, 10)} — won `
    + `${s.won}, lost ${s.lost}, drawn ${s.drawn}; points ${s.points_player} : ${s.points_computer} `
    + `(${signed(s.margin.mean, 2)} a game).`);
  const regret = el("p", "stats-regret");
  regret.id = "stats-regret";
  regret.textContent = `Regret (the best reply to the computer's model minus yours): ${trendWords(s.regret, "regret")}.`;
  out.push(summary, regret);
  if (s.regret.blocks.length > 1) out.push(el("p", "hint small", `Mean regret by ${s.regret.window} games:`), blocksEl(s.regret));
  const table = el("table", "match slot-stats");
  table.id = "slot-stats";
  const head = el("tr");
  for (const h of ["slot", "pts", "won", "lost", "tied", "points won", "points lost"]) head.append(el("th", "", h));
  table.append(head);
  const worst = s.slots.filter((x) => x.points_lost > 0).sort((a, b) => b.points_lost - a.points_lost)[0];
  for (const x of s.slots) {
    const tr = el("tr");
    if (worst && x.slot === worst.slot) tr.classList.add("worst");
    for (const v of [x.slot, x.points, x.won, x.lost, x.tied, x.points_won, x.points_lost]) tr.append(el("td", "", String(v)));
    table.append(tr);
  }
  const wrap = el("div", "table-wrap");
  wrap.append(table);
  out.push(el("h4", "", "Per slot: where the points go"), wrap);
  if (worst) out.push(el("p", "hint", `Most points lost in slot ${worst.slot} (${worst.points} pts): ${worst.points_lost}.`));
  out.push(el("p", "hint small", `Opponents: ${Object.entries(s.opponents).map(([k, v]) => `${k} ${v}`).join(", ")}.`));
  return out;
}

async function showStats() {
  if (!review.records.length) {
    $("stats").replaceChildren(...renderStats({ games: 0 }));
    return;
  }
  try {
    const { data } = await call("POST", "/api/stats", { records: review.records });
    $("stats").replaceChildren(...renderStats(data));
  } catch (e) {
    $("stats").replaceChildren(el("p", "error", `The statistics: ${e.message}`));
  }
}

// ---------------------------------------------------------------- puzzles
// The shipped set's puzzles come near the player's rating; a rated puzzle's first answer (or giving
// up before any) sends the rating, and the server moves it (solver.play.puzzle_set.rate, the
// terminal's formula).  A miss may be retried: the answer is shown only on "Show the answer".  The
// progress — PuzzleProgressOut's fields — is kept in this browser.

const PROGRESS = "quintet-puzzle-progress"; // localStorage: {kind, rating, games, solved, missed}

const STARS = (n) => "★".repeat(n) + "☆".repeat(3 - n);

function loadProgress() {
  const fresh = { kind: "puzzle-progress", rating: limits.defaults.START_RATING.value, games: 0, solved: [],
    missed: [] };
  try {
    const kept = JSON.parse(localStorage.getItem(PROGRESS) || "null");
    return kept && typeof kept.rating === "number" && Array.isArray(kept.solved) && Array.isArray(kept.missed)
      ? { ...fresh, ...kept } : fresh;
  } catch {
    return fresh;
  }
}

function saveProgress() {
  try {
    localStorage.setItem(PROGRESS, JSON.stringify(review.progress));
  } catch {
    // a browser that keeps nothing: the rating lives as long as the page
  }
}

function showRating() {
  const p = review.progress;
  $("puzzle-rating").textContent = `Your rating ${Math.round(p.rating)} · ${p.games} rated puzzle${p.games === 1 ? "" : "s"}, `
    + `${p.solved.length} solved at the first answer`;
}

/** The progress after a rated puzzle's first answer (the server's RatingChangeOut). */
function rated(number, change) {
  const p = review.progress;
  const won = change.score >= 1;
  const solved = new Set(p.solved);
  const missed = new Set(p.missed);
  (won ? solved : missed).add(number);
  (won ? missed : solved).delete(number);
  review.progress = { ...p, rating: change.after, games: change.games, solved: [...solved].sort((a, b) => a - b),
    missed: [...missed].sort((a, b) => a - b) };
  saveProgress();
  showRating();
}

async function newPuzzle() {
  if (review.busy) return;
  showError("");
  const opponent = $("puzzle-opponent").value;
  const source = /** @type {HTMLInputElement} */ ($("puzzle-store")).checked ? "store" : "set";
  const p0 = review.progress;
  const query = new URLSearchParams({ seed: String(randomSeed()), opponent, source, rating: String(p0.rating),
    exclude: p0.solved.join(",") });
  try {
    const { data } = await call("GET", `/api/puzzles?${query}`);
    review.puzzle = data;
  } catch (e) {
    $("puzzle").hidden = true;
    $("puzzle-result").replaceChildren(el("p", "error", e.message));
    return;
  }
  review.tries = 0;
  review.last = null;
  const p = review.puzzle;
  const deal = $("puzzle-deal");
  const against = p.opponent === "equilibrium"
    ? `the deal's equilibrium (exploitability ${p.exploitability?.toFixed(4)})` : opponentModel(p.opponent).label;
  const where = p.source === "set" ? `puzzle ${p.number} of ${p.count} shipped` : `solved deal ${p.number} of ${p.count}`;
  const rating = p.rating === null ? "unrated" : `rated ${p.rating}`;
  deal.replaceChildren("Exposed ", cardsTextEl(p.exposed), ` · ${where} · `, el("b", "puzzle-rated", rating),
    ` · against ${against}`);
  $("puzzle").hidden = false;
  $("puzzle-result").replaceChildren();
  review.editor.setDeal(p.exposed);
  $("puzzle-title").focus();
}

async function answerPuzzle(giveUp) {
  if (review.busy || !review.puzzle) return;
  if (giveUp && review.last) { // after a miss: its grade holds the answer
    showAnswer(review.last);
    return;
  }
  const ed = review.editor;
  if (!giveUp) {
    if (ed.error) {
      fieldMessage("puzzle-text", ed.error);
      return;
    }
    const size = ed.rules.hand_size;
    const short = ed.mine.findIndex((p) => p.length < size);
    if (short >= 0) {
      fieldMessage("puzzle-text", `slot ${short + 1} holds ${ed.mine[short].length} of ${size} cards: an answer `
        + `is ${ed.mine.length} full packets`);
      return;
    }
  }
  review.busy = true;
  const pz = review.puzzle;
  const first = review.tries === 0;
  const body = { exposed: pz.exposed.join(" "), opponent: pz.opponent, source: pz.source,
    arrangement: giveUp ? null : ed.text() };
  if (first && pz.rating !== null) body.player = { rating: review.progress.rating, games: review.progress.games };
  $("puzzle-result").replaceChildren(el("p", "hint", giveUp ? "Solving…" : "Grading your answer…"));
  try {
    const { data } = await call("POST", "/api/puzzles/grade", body);
    if (first) {
      review.tally.puzzles += 1;
      review.tally.solved += data.solved ? 1 : 0;
      review.tally.stars += data.stars;
      if (data.rating) rated(pz.number, data.rating);
    }
    review.tries += 1;
    if (data.given_up) showAnswer(data);
    else renderPuzzleResult(data);
  } catch (e) {
    $("puzzle-result").replaceChildren(el("p", "error", e.message));
  } finally {
    review.busy = false;
  }
}

function ratingEl(change) {
  if (!change) return null;
  return el("p", "puzzle-rating-change", `Rating ${Math.round(change.before)} → ${Math.round(change.after)} `
    + `(${change.change >= 0 ? "+" : "−"}${Math.abs(Math.round(change.change))}; the puzzle ${change.puzzle}, expected score `
    + `${change.expected.toFixed(2)}).`);
}

/** The answer's themes, each with what it means (shown with the answer only). */
function themesEl(r) {
  if (!r.themes.length) return null;
  const p = el("p", "puzzle-themes", "Themes: ");
  r.themes.forEach((t, i) => p.append(i ? "; " : "", el("b", "", t.name), ` — ${t.about}`));
  p.append(".");
  return p;
}

function tallyText() {
  const t = review.tally;
  $("puzzle-score").textContent = `This session: ${t.puzzles} puzzle${t.puzzles === 1 ? "" : "s"}, ${t.solved} `
    + `solved, ${t.stars} of ${3 * t.puzzles} stars.`;
}

/** An answer graded: solved (with the themes), or a miss — its regret and a retry, not the answer. */
export function renderPuzzleResult(r) {
  const g = r.grade;
  const out = [];
  const head = el("h3", "answer-heading puzzle-verdict");
  head.id = "puzzle-verdict";
  head.tabIndex = -1;
  if (r.solved) head.append(el("span", "stars", STARS(3)), " Solved: no arrangement does better");
  else head.append(el("span", "stars", STARS(r.stars)), ` Regret ${r.regret.toFixed(2)}`);
  out.push(head);
  out.push(el("p", "", `Your expected margin ${signed(g.value, 2)}; the best ${signed(g.optimum, 2)} `
    + `(${g.optimum_proven ? "proven optimal" : `bound ${g.bound.toFixed(2)}`}).`));
  const change = ratingEl(r.rating);
  if (change) out.push(change);
  if (r.solved) {
    const themes = themesEl(r);
    if (themes) out.push(themes);
    review.last = null;
  } else {
    review.last = r;
    out.push(el("p", "puzzle-retry", "Try again: change your packets and Answer — or Show the answer."));
  }
  tallyText();
  $("puzzle-result").replaceChildren(...out);
  head.focus();
  return head;
}

/** The answer shown: given up, or after a miss (with the last answer's best swap). */
function showAnswer(r) {
  const g = r.grade;
  const head = el("h3", "answer-heading puzzle-verdict", "The answer");
  head.id = "puzzle-verdict";
  head.tabIndex = -1;
  const out = [head];
  const change = r.given_up ? ratingEl(r.rating) : null;
  if (change) out.push(change);
  if (!r.given_up) out.push(swapEl(g));
  out.push(el("h4", "", "The best arrangement"), packetsEl(g.best), el("p", "proof", proofText(g.best)));
  const themes = themesEl(r);
  if (themes) out.push(themes);
  review.last = null;
  review.tries = Infinity; // shown: no answer of this puzzle counts any more
  tallyText();
  $("puzzle-result").replaceChildren(...out);
  head.focus();
}

// ---------------------------------------------------------------- setup

export function setupReview({ select = () => {} } = {}) {
  review.select = select;
  review.records = loadKept();
  review.progress = loadProgress();
  showRating();
  fillOpponents("puzzle-opponent", opponents.models.filter((m) => m.puzzle), (m) => m.label);
  review.editor = new ArrangementEditor({ slots: $("puzzle-slots"), text: $("puzzle-text"),
    textMsg: $("puzzle-text-msg"), pool: $("puzzle-pool"), undo: $("puzzle-undo"), clear: $("puzzle-clear") },
  { poolHint: "The puzzle's cards appear here." });
  const file = $("records-file");
  file.addEventListener("change", async () => {
    await loadFiles([...file.files]);
    file.value = "";
  });
  $("records-forget").addEventListener("click", forget);
  $("puzzle-new").addEventListener("click", newPuzzle);
  $("puzzle-answer").addEventListener("click", () => answerPuzzle(false));
  $("puzzle-give-up").addEventListener("click", () => answerPuzzle(true));
  offerReviews();
  showGames();
  showStats();
  window.addEventListener("hashchange", () => openAddress(location.hash)); // a review's link pasted
  openAddress(location.hash);
}

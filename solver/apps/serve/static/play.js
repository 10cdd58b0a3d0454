// The Play tab: a match against the computer or a friend, on a table of the server
// (/api/tables).  A seat is its link, /#play/TABLE/SEAT/TOKEN: the token is read from the
// fragment (which never reaches the server), kept in sessionStorage and sent as
// "Authorization: Bearer"; the address bar keeps /#play/TABLE/SEAT.  Reloading, or opening
// the link on another device, resumes the seat.
//
// The page holds only what the server sends this seat: before both sides have confirmed,
// never the other side's cards.  The other side's commitment is remembered when first seen
// and checked against the arrangement and salt revealed at the show-down.

import { kmixEntryEl, marginalsEl, packetsEl, plansEl, proofText, totalsEl } from "./advisor.js";
import { ApiError, call, readEvents } from "./api.js";
import { ArrangementEditor, HAND_SIZE, N_SLOTS } from "./arrange.js";
import { cardEl, cardsTextEl, cardTextEl } from "./cards.js";
import { errorBox, fieldMessage, limits, readInRange } from "./form.js";
import { el, seconds, signed } from "./format.js";
import { checkCommitment, commitmentText } from "./sha256.js";

const $ = (id) => document.getElementById(id);
const STORE = "quintet-play-seat";
const REVEAL_MS = 650; // between two slots of the show-down
const OPPONENT_HELP = {
  equilibrium: "The computer plays a sample of the deal's certified equilibrium: nothing does much better "
    + "against it. A new deal's equilibrium is solved first (seconds to a couple of minutes).",
  greedy: "The computer takes the strongest hand left, again and again, weakest in slot 1.",
  uniform: "The computer lays its 25 cards at random.",
  friend: "You get a link for your friend's seat. Hints, if on, are against the deal's equilibrium, and both "
    + "of you are told.",
};

const play = {
  seat: null, // {table, seat, token, friendUrl}
  view: null,
  game: null, // the game the board shows
  revealed: {}, // game → slots shown so far
  timer: null,
  stream: null, // AbortController of the event stream
  busy: false,
  hintsTouched: false,
};
let board; // the ArrangementEditor of the current game
let showTab = () => {};

// ---------------------------------------------------------------- the seat

function seatLink(seat) {
  return `${location.origin}${location.pathname}#play/${seat.table}/${seat.seat}/${seat.token}`;
}

function saveSeat(seat) {
  sessionStorage.setItem(STORE, JSON.stringify(seat));
}

function storedSeat(table, seat) {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE) || "null");
    return s && s.table === table && s.seat === seat ? s : null;
  } catch {
    return null;
  }
}

/** The seat named by the address: #play/TABLE/SEAT/TOKEN (the token then leaves the address
 * bar), or #play/TABLE/SEAT with the token kept from before. */
function seatFromAddress() {
  const m = /^#play\/([A-Za-z0-9_-]+)\/([12])(?:\/([A-Za-z0-9_-]+))?$/.exec(location.hash);
  if (!m) return null;
  const [, table, seatText, token] = m;
  const seat = Number(seatText);
  const kept = storedSeat(table, seat);
  const found = token ? { table, seat, token, friendUrl: kept && kept.token === token ? kept.friendUrl : null } : kept;
  if (!found) return { table, seat, token: null };
  saveSeat(found);
  if (token) history.replaceState(null, "", `#play/${table}/${seat}`);
  return found;
}

function commitments() {
  try {
    return JSON.parse(sessionStorage.getItem(`quintet-commitments-${play.seat.table}-${play.seat.seat}`) || "{}");
  } catch {
    return {};
  }
}

/** Remember the other side's commitment of ``game`` the first time it is shown. */
function rememberCommitment(game, commitment) {
  const seen = commitments();
  if (!seen[game]) {
    seen[game] = commitment;
    sessionStorage.setItem(`quintet-commitments-${play.seat.table}-${play.seat.seat}`, JSON.stringify(seen));
  }
}

// ---------------------------------------------------------------- talking to the table

const showError = errorBox("play-error");

function ask(method, path, body) {
  return call(method, `/api/tables/${play.seat.table}${path}`, body, { token: play.seat.token });
}

async function sit(seat) {
  stopStream();
  play.seat = seat;
  play.view = null;
  play.game = null;
  play.revealed = {};
  $("play-setup").hidden = true;
  $("play-table").hidden = false;
  showTab();
  if (!seat.token) {
    leave("This seat's token is not known here: open the seat's full link (…/#play/TABLE/SEAT/TOKEN).");
    return;
  }
  try {
    const { data } = await ask("GET", "");
    render(data, "view");
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      leave(`${e.message}. The table may have expired (tables are kept a day after their last move).`);
      return;
    }
    showError(e.message);
  }
  follow();
}

function stopStream() {
  if (play.stream) play.stream.abort();
  play.stream = null;
}

/** Follow the table's events; reconnect (with a growing pause) when the stream ends. */
async function follow() {
  const controller = new AbortController();
  play.stream = controller;
  let pause = 500;
  while (play.stream === controller) {
    try {
      await readEvents(`/api/tables/${play.seat.table}/events`, play.seat.token, (kind, event) => {
        pause = 500;
        if (kind === "shutdown") setStatusNote("The server is restarting: reconnecting…");
        else if (kind === "expired") leave("This table has expired.");
        else if (event.view) render(event.view, kind);
      }, controller.signal);
    } catch (e) {
      if (controller.signal.aborted) return;
      if (e instanceof ApiError && e.status === 404) {
        leave(e.message);
        return;
      }
      setStatusNote("Lost the connection to the server: reconnecting…");
    }
    if (play.stream !== controller) return;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 8000);
    try { // the state may have moved while the stream was down
      render((await ask("GET", "")).data, "view");
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        leave(e.message);
        return;
      }
    }
  }
}

function leave(message = "") {
  stopStream();
  if (play.timer) clearTimeout(play.timer);
  play.seat = null;
  play.view = null;
  sessionStorage.removeItem(STORE);
  if (location.hash.startsWith("#play")) history.replaceState(null, "", location.pathname);
  $("play-table").hidden = true;
  for (const id of ["play-showdown-box", "play-advice-box", "play-match-box"]) $(id).hidden = true;
  $("play-setup").hidden = false;
  showError(message);
}

// ---------------------------------------------------------------- starting a match

/** The new table's request from the form (or a message naming the field to fix). */
export function buildTable() {
  const opponent = $("play-opponent").value;
  const games = readInRange($("play-games").value, "games");
  if (games.error) return { error: ["play-games", games.error] };
  const body = { opponent, games: games.value, hints: $("play-hints").checked };
  const seedText = $("play-seed").value.trim();
  if (seedText) {
    const seed = readInRange(seedText, "seed");
    if (seed.error) return { error: ["play-seed", `${seed.error} (or empty: a random one)`] };
    body.seed = seed.value;
  }
  return { body };
}

async function start() {
  fieldMessage("play-games", "");
  fieldMessage("play-seed", "");
  const { body, error } = buildTable();
  if (error) {
    fieldMessage(...error);
    $(error[0]).focus();
    return;
  }
  showError("");
  $("play-start").setAttribute("aria-disabled", "true");
  try {
    const { data } = await call("POST", "/api/tables", body);
    const mine = data.seats[0];
    const seat = { table: data.table, seat: 1, token: mine.token, friendUrl: data.seats[1] ? data.seats[1].url : null };
    saveSeat(seat);
    history.replaceState(null, "", `#play/${seat.table}/1`);
    await sit(seat);
    $("play-title").focus();
  } catch (e) {
    showError(e.message);
  } finally {
    $("play-start").setAttribute("aria-disabled", "false");
  }
}

// ---------------------------------------------------------------- the view

function otherName(view, capital = false) {
  const name = view.opponent === "friend" ? "your friend" : "the computer";
  return capital ? name[0].toUpperCase() + name.slice(1) : name;
}

function short(hash) {
  return `${hash.slice(0, 12)}…${hash.slice(-6)}`;
}

function setStatusNote(text) {
  $("play-status").dataset.note = text;
  $("play-status").textContent = text;
}

function statusText(view) {
  const other = otherName(view);
  switch (view.status) {
    case "preparing": {
      const p = view.preparing;
      return "The computer is preparing this game" + (p ? ` (solving the deal's equilibrium: iteration ${p.iteration}, `
        + `certified ε ≤ ${p.exploitability.toFixed(4)}, ${p.seconds.toFixed(1)} s)` : "") + ". You can arrange already.";
    }
    case "failed":
      return `This game could not be prepared: ${view.error}`;
    case "placing":
      return view.other.confirmed && view.opponent === "friend"
        ? "Your friend has confirmed. Arrange your 25 cards and confirm."
        : "Arrange your 25 cards into five hands and confirm.";
    case "waiting":
      return view.opponent === "friend" && view.other_game !== null && view.other_game < view.game
        ? `You have confirmed. ${other[0].toUpperCase() + other.slice(1)} is still looking at game ${view.other_game}'s show-down.`
        : `You have confirmed. Waiting for ${other}…`;
    default:
      return view.over ? "The match is over." : "Both have confirmed: the show-down.";
  }
}

function render(view, kind) {
  if (!play.seat || view.table !== play.seat.table) return;
  // a response can arrive after a newer event (the record of a game written meanwhile): keep the newest
  if (play.view && play.view.table === view.table && view.revision < play.view.revision) return;
  play.view = view;
  const panel = $("panel-play");
  panel.dataset.status = view.status;
  panel.dataset.game = String(view.game);
  const friend = view.opponent === "friend";
  $("play-title").textContent = `Game ${view.game} of ${view.games}`;
  $("play-against").textContent = friend
    ? `Seat ${view.seat} against a friend · hints ${view.advice.on ? "on (against the deal's equilibrium) for both of you"
      : "off for both of you"}`
    : `Against the computer: ${view.description}`;
  const share = friend && view.seat === 1 && play.seat.friendUrl;
  $("play-share").hidden = !share;
  if (share) $("play-share-link").value = play.seat.friendUrl;
  $("play-status").textContent = statusText(view);
  delete $("play-status").dataset.note;
  const commitment = $("play-commitment");
  if (view.other.commitment && !view.showdown) rememberCommitment(view.game, view.other.commitment);
  commitment.hidden = !view.other.commitment;
  if (view.other.commitment) {
    commitment.textContent = `${otherName(view, true)}'s arrangement is committed: SHA-256 ${short(view.other.commitment)}`
      + (view.showdown ? "" : " (checked when it is revealed).");
    commitment.title = view.other.commitment;
  }
  const deal = $("play-deal");
  deal.replaceChildren("Exposed (out of play): ", cardsTextEl(view.deal.exposed), ` · seed ${view.deal.seed}`);
  // the board: a new game empties it; a confirmed arrangement is shown, locked
  if (play.game !== view.game) {
    play.game = view.game;
    board.exposed = [];
    board.locked = false;
    board.setDeal(view.deal.exposed);
    $("play-advice-box").hidden = true;
  }
  if (view.you.confirmed && !board.locked) {
    board.set(view.you.arrangement, { undoable: false });
    board.locked = true;
    board.render();
  }
  $("play-advice-buttons").hidden = !view.advice.on;
  buttons();
  renderShowdown(view, kind);
  renderMatch(view);
}

function buttons() {
  const view = play.view;
  if (!view) return;
  const placing = view.status === "placing" || view.status === "preparing";
  $("play-confirm").setAttribute("aria-disabled",
    play.busy || view.status !== "placing" || !board.full || board.error ? "true" : "false");
  $("play-confirm").hidden = view.you.confirmed;
  for (const id of ["play-hint", "play-grade", "play-odds", "play-mix"]) {
    $(id).setAttribute("aria-disabled", play.busy || !placing || !view.advice.ready ? "true" : "false");
  }
  $("play-mix-box").hidden = !view.advice.mixes;
  for (const id of ["play-undo", "play-clear", "play-text", "play-pool"]) $(id).hidden = view.you.confirmed;
  $("play-text-help").hidden = view.you.confirmed;
}

// ---------------------------------------------------------------- the show-down

function handCell(hand, who, name) {
  const cell = el("div", `sd-hand sd-${who}`);
  const cards = el("span", "packet-cards");
  for (const code of hand.cards) cards.append(cardEl(code, "small"));
  const line = el("span", "hand");
  line.dataset.category = hand.category;
  line.append(el("span", "sd-who", `${name}: `), hand.hand);
  cell.append(cards, line);
  return cell;
}

/** A seat's show-down (as quintet showdown --json: A is you, B the other side), slot by slot
 * from the seat's side with the running score. */
export function seatSlots(showdown) {
  let you = 0;
  let other = 0;
  return showdown.slots.map((s) => {
    you += s.points_a;
    other += s.points_b;
    return { slot: s.slot, points: s.points, you: s.a, other: s.b, winner: { A: "you", B: "other" }[s.winner] || null,
      youPoints: s.points_a, otherPoints: s.points_b, youTotal: you, otherTotal: other };
  });
}

function renderShowdown(view, kind) {
  const box = $("play-showdown-box");
  const sd = view.showdown;
  box.hidden = !sd;
  if (!sd) return;
  const game = view.game;
  if (play.revealed[game] === undefined) play.revealed[game] = kind === "reveal" ? 0 : N_SLOTS;
  const list = $("play-showdown");
  const other = otherName(view, true);
  const draw = () => {
    const shown = play.revealed[game];
    list.replaceChildren();
    const slots = seatSlots(sd);
    slots.forEach((s, i) => {
      const li = el("li", "sd-slot");
      li.dataset.slot = String(s.slot);
      const label = el("div", "slot-label", `Slot ${s.slot}`);
      label.append(el("small", "", `${s.points} pts`));
      li.append(label);
      if (i < shown) {
        li.dataset.winner = s.winner || "tie";
        li.append(handCell(s.you, "you", "you"), handCell(s.other, "other", other.toLowerCase()));
        const result = s.winner === "you" ? `you +${s.youPoints}` : s.winner === "other"
          ? `${other.toLowerCase()} +${s.otherPoints}` : s.youPoints ? `tie, +${s.youPoints} each` : "tie";
        const res = el("div", `sd-result ${s.winner || "tie"}`, result);
        res.append(el("small", "", `${s.youTotal} : ${s.otherTotal}`));
        li.append(res);
      } else {
        li.classList.add("face-down");
        li.append(el("div", "sd-hidden", "…"));
      }
      list.append(li);
    });
    const done = shown >= N_SLOTS;
    $("panel-play").dataset.revealed = String(shown);
    $("play-score").textContent = done
      ? `Game ${game}: you ${sd.points_a}, ${other.toLowerCase()} ${sd.points_b} — `
        + `${verdict(sd.points_a, sd.points_b, view)}.`
      : `You ${shown ? slots[shown - 1].youTotal : 0} : ${shown ? slots[shown - 1].otherTotal : 0} `
        + `${other.toLowerCase()}…`;
    $("play-check").hidden = !done;
    if (done) renderCheck(view);
    const next = $("play-next");
    next.hidden = !done || !view.can_next;
    if (done && view.over) {
      $("play-score").textContent += ` Match: you ${view.score.you}, ${other.toLowerCase()} ${view.score.other} — `
        + `${verdict(view.score.you, view.score.other, view, "the match")}.`;
    }
  };
  if (play.timer) clearTimeout(play.timer);
  const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const step = () => {
    draw();
    if (play.revealed[game] < N_SLOTS && play.view && play.view.game === game) {
      play.timer = setTimeout(() => {
        play.revealed[game] += 1;
        step();
      }, reduce ? 0 : REVEAL_MS);
    } else if (play.revealed[game] >= N_SLOTS && kind === "reveal") {
      $("play-showdown-title").focus({ preventScroll: true });
    }
  };
  step();
  if (kind === "reveal") box.scrollIntoView({ block: "nearest" });
}

function verdict(you, other, view, what = "") {
  if (you === other) return what ? `${what} is drawn` : "a draw";
  const name = view.opponent === "friend" ? "your friend wins" : "the computer wins";
  return `${you > other ? "you win" : name}${what ? ` ${what}` : ""} by ${Math.abs(you - other)}`;
}

/** The other side's commitment, as first shown, against the revealed salt and arrangement. */
export function commitmentCheck(view, firstSeen) {
  const revealed = view.other;
  const shown = firstSeen || revealed.commitment;
  const ok = checkCommitment(shown, revealed.salt, revealed.arrangement) && shown === revealed.commitment;
  return { ok, shown, text: commitmentText(revealed.salt, revealed.arrangement), seenBefore: Boolean(firstSeen) };
}

function renderCheck(view) {
  const box = $("play-check");
  const c = commitmentCheck(view, commitments()[view.game]);
  box.dataset.ok = c.ok ? "true" : "false";
  const who = `${otherName(view, true)}'s`;
  const head = el("p", `check-line ${c.ok ? "ok" : "bad"}`, !c.ok
    ? `✗ ${who} commitment does NOT match the arrangement revealed: it was changed after it was committed.`
    : c.seenBefore ? `✓ ${who} commitment checks out: the SHA-256 of its salt and the arrangement revealed is `
      + `${short(c.shown)}, the value shown before you confirmed.`
      : `✓ ${who} commitment matches the arrangement revealed (${short(c.shown)}); it confirmed last, so its `
        + "packets were shown as soon as it committed.");
  const details = el("details", "check-details");
  details.append(el("summary", "", "Check it yourself"));
  const code = el("code", "", `printf '%s' '${c.text}' | sha256sum`);
  details.append(el("p", "hint small", "The commitment is the SHA-256 of these bytes (no newline):"), code,
    el("p", "hint small", `Expected: ${c.shown}`));
  box.replaceChildren(head, details);
}

// ---------------------------------------------------------------- the match table

function renderMatch(view) {
  const box = $("play-match-box");
  box.hidden = !view.finished.length;
  const table = $("play-match");
  const head = el("tr");
  const other = view.opponent === "friend" ? "Friend" : "Computer";
  for (const h of ["Game", "Seed", "You", other, "Margin", "Regret"]) head.append(el("th", "", h));
  table.replaceChildren(head);
  for (const g of view.finished) {
    const tr = el("tr");
    tr.dataset.game = String(g.game);
    const regret = view.opponent === "friend" ? "—" : g.regret === null ? "computing…" : g.regret.toFixed(2);
    for (const cell of [g.game, g.seed, g.you, g.other, signed(g.you - g.other, 0), regret]) {
      tr.append(el("td", "", String(cell)));
    }
    table.append(tr);
  }
  const total = el("tr", "total");
  for (const cell of ["Match", "", view.score.you, view.score.other, signed(view.score.you - view.score.other, 0), ""]) {
    total.append(el("td", "", String(cell)));
  }
  table.append(total);
}

async function downloadRecords() {
  try {
    const response = await fetch(`/api/tables/${play.seat.table}/records`, {
      headers: { Authorization: `Bearer ${play.seat.token}` }, cache: "no-store",
    });
    if (!response.ok) throw new Error((await response.json()).error);
    const url = URL.createObjectURL(new Blob([await response.text()], { type: "application/x-ndjson" }));
    const a = el("a");
    a.href = url;
    a.download = `quintet-${play.seat.table.slice(0, 8)}.jsonl`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (e) {
    showError(e.message);
  }
}

// ---------------------------------------------------------------- moves and advice

async function act(work) {
  if (play.busy) return;
  play.busy = true;
  buttons();
  showError("");
  try {
    await work();
  } catch (e) {
    showError(e.message);
    $("play-error").focus({ preventScroll: true });
  } finally {
    play.busy = false;
    buttons();
  }
}

function confirmArrangement() {
  if ($("play-confirm").getAttribute("aria-disabled") === "true") {
    if (!board.full && play.view && play.view.status === "placing") {
      const short = board.mine.findIndex((p) => p.length < HAND_SIZE);
      showError(`slot ${short + 1} holds ${board.mine[short].length} of ${HAND_SIZE} cards: fill all five slots to confirm`);
    }
    return;
  }
  act(async () => {
    const { data } = await ask("POST", "/arrangement", { arrangement: board.text() });
    render(data, data.showdown ? "reveal" : "view");
  });
}

function nextGame() {
  act(async () => {
    const { data } = await ask("POST", "/next");
    render(data, "view");
    $("play-title").focus();
  });
}

function showAdvice(title, ...content) {
  const heading = el("h3", "answer-heading", title);
  heading.tabIndex = -1;
  $("play-advice").replaceChildren(heading, ...content);
  $("play-advice-box").hidden = false;
  heading.focus({ preventScroll: true });
  $("play-advice-box").scrollIntoView({ block: "nearest" });
}

function useButton(arrangement, label = "Use as my arrangement") {
  const b = el("button", "quiet", label);
  b.type = "button";
  b.addEventListener("click", () => {
    if (board.locked) return;
    board.set(arrangement);
    $("play-text").focus({ preventScroll: true });
  });
  return b;
}

function hint() {
  if ($("play-hint").getAttribute("aria-disabled") === "true") return;
  const partial = board.mine.findIndex((p) => p.length > 0 && p.length < HAND_SIZE);
  if (partial >= 0) {
    showError(`slot ${partial + 1} holds ${board.mine[partial].length} of ${HAND_SIZE} cards: a hint keeps your full `
      + `packets where they are; fill slot ${partial + 1} or take its cards back`);
    return;
  }
  if (board.full) {
    showError("all five slots are filled: Grade rates them (or take cards back for a hint)");
    return;
  }
  const slots = {};
  board.mine.forEach((p, i) => {
    if (p.length === HAND_SIZE) slots[String(i + 1)] = p.join(" ");
  });
  act(async () => {
    const { data } = await ask("POST", "/hint", { slots });
    const fixed = new Set(Object.keys(slots).map(Number));
    showAdvice(fixed.size ? "Hint: the best completion of your slots" : "Hint: the best arrangement",
      el("p", "answer-for", `Against ${play.view.advice.against}`),
      packetsEl(data, { fixed }), totalsEl(data), el("p", "proof", proofText(data)),
      rowOf(useButton(data.arrangement)));
  });
}

function rowOf(...nodes) {
  const row = el("div", "row");
  row.append(...nodes);
  return row;
}

function grade() {
  if ($("play-grade").getAttribute("aria-disabled") === "true") return;
  if (!board.full || board.error) {
    showError(board.error || "Grade rates five full slots: fill them first");
    return;
  }
  act(async () => {
    const { data } = await ask("POST", "/grade", { arrangement: board.text() });
    const sw = data.best_swap;
    const swap = sw ? { slots: { [sw.slot_a - 1]: sw.card_a, [sw.slot_b - 1]: sw.card_b } } : null;
    board.swap = swap;
    board.render();
    const summary = el("dl", "grade-summary");
    const add = (term, ...value) => {
      const dd = el("dd");
      dd.append(...value);
      summary.append(el("dt", "", term), dd);
    };
    add("Value", signed(data.value, 4));
    add("Best", signed(data.optimum, 4));
    const regret = el("span", "", data.regret.toFixed(4));
    regret.id = "play-grade-regret";
    add("Regret", regret);
    add("Best swap", ...(sw ? [cardTextEl(sw.card_a), ` (slot ${sw.slot_a}) ↔ `, cardTextEl(sw.card_b),
      ` (slot ${sw.slot_b}): ${signed(sw.value, 4)}`] : ["none: no swap of two cards improves it"]));
    showAdvice("Your arrangement, graded", el("p", "answer-for", `Against ${play.view.advice.against}`), summary,
      packetsEl(data.given, { swap }), rowOf(...(sw ? [useButton(sw.arrangement, "Make this swap")] : []),
        useButton(data.best.arrangement, "Use the best arrangement")));
  });
}

/** quintet-play's 'hint K': the least exploitable mix of at most K arrangements of the deal's
 * equilibrium found, certified, and the game's die roll picking one (the server rolls it). */
function mixHint() {
  if ($("play-mix").getAttribute("aria-disabled") === "true") return;
  const { value: k, error } = readInRange($("play-k").value, "max_support", "K");
  fieldMessage("play-k", error || "");
  if (error) {
    $("play-k").focus();
    return;
  }
  act(async () => {
    const { data } = await ask("POST", "/hint", { max_support: k });
    const roll = data.roll;
    const claim = data.optimal ? `proven the least exploitable mix of at most ${k}` : "best found (not proven the best)";
    const cert = el("p", "certificate", `Exploitability ${data.exploitability.toFixed(4)}: no arrangement gains `
      + `more than that against this mix (certified; ${claim}) — the full equilibrium: `
      + `${data.equilibrium_exploitability.toFixed(4)} with ${data.equilibrium_support} arrangements · `
      + `${seconds(data.seconds)}.`);
    cert.id = "play-mix-certificate";
    const die = el("h4", "play-title", `Die roll (the game's seed ${roll.seed}): ${roll.value.toFixed(4)} falls in `
      + `[${roll.low.toFixed(4)}, ${roll.high.toFixed(4)}) → play arrangement ${roll.pick}`);
    die.id = "play-mix-roll";
    const list = el("ol", "kmix");
    data.mix.forEach((entry, i) => list.append(kmixEntryEl(entry, i, i === roll.pick - 1)));
    showAdvice(`A mix of at most ${k} arrangement${k > 1 ? "s" : ""}`,
      el("p", "answer-for", "Of the deal's equilibrium, which the computer plays from"), cert, die,
      rowOf(useButton(data.arrangement, `Use arrangement ${roll.pick} as my arrangement`)), list,
      plansEl(data.plans, data.mix.length));
  });
}

function odds() {
  if ($("play-odds").getAttribute("aria-disabled") === "true") return;
  act(async () => {
    const { data } = await ask("POST", "/odds");
    showAdvice("Odds: the hands the model plays in each slot", el("p", "answer-for", `Its model: ${data.model}`),
      ...marginalsEl(data.slots));
  });
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch {
    button.textContent = "Select and copy";
  }
  setTimeout(() => {
    button.textContent = button.dataset.label;
  }, 1500);
}

// ---------------------------------------------------------------- setup

export function setupPlay({ select = () => {} } = {}) {
  showTab = select;
  board = new ArrangementEditor({ slots: $("play-slots"), text: $("play-text"), textMsg: $("play-text-msg"),
    pool: $("play-pool"), undo: $("play-undo"), clear: $("play-clear") }, { onChange: buttons, poolHint: "" });
  const helpChanged = () => {
    const opponent = $("play-opponent").value;
    $("play-opponent-help").textContent = OPPONENT_HELP[opponent];
    if (!play.hintsTouched) $("play-hints").checked = opponent !== "friend";
  };
  $("play-opponent").addEventListener("change", helpChanged);
  $("play-hints").addEventListener("change", () => {
    play.hintsTouched = true;
  });
  helpChanged();
  $("play-start").addEventListener("click", start);
  for (const id of ["play-games", "play-seed"]) {
    $(id).addEventListener("keydown", (e) => {
      if (e.key === "Enter") start();
    });
  }
  $("play-confirm").addEventListener("click", confirmArrangement);
  $("play-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      board.textDone();
      confirmArrangement();
    }
  });
  $("play-next").addEventListener("click", nextGame);
  $("play-hint").addEventListener("click", hint);
  $("play-grade").addEventListener("click", grade);
  $("play-odds").addEventListener("click", odds);
  $("play-mix").addEventListener("click", mixHint);
  $("play-k").addEventListener("keydown", (e) => {
    if (e.key === "Enter") mixHint();
  });
  $("play-records").addEventListener("click", downloadRecords);
  $("play-leave").addEventListener("click", () => leave());
  for (const [id, text] of [["play-share-copy", () => play.seat.friendUrl], ["play-my-link", () => seatLink(play.seat)]]) {
    $(id).dataset.label = $(id).textContent;
    $(id).addEventListener("click", () => copy(text(), $(id)));
  }
  const fromAddress = () => {
    const seat = seatFromAddress();
    if (seat && (!play.seat || seat.table !== play.seat.table || seat.seat !== play.seat.seat)) sit(seat);
  };
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
}


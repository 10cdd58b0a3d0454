// @ts-check
// The Play tab: a match against the computer or a friend, on a table of the server
// (api/tables).  A seat is its link, #play/TABLE/SEAT/TOKEN, and that link is the page's
// address while the seat is open: a bookmark, a reload, a new tab or another device resume
// it.  The token rides in the fragment (never sent to the server) and goes to the server as
// "Authorization: Bearer".  A friend is invited by #join/TABLE/CODE: the friend's page shows
// the match (api/tables/TABLE/invited, which takes nothing) with Accept and Decline, and on
// Accept exchanges the code for seat 2's own token once (api/tables/TABLE/join) and moves to
// its seat link.  The seats this browser holds are kept here ("Your tables", never sent to
// anyone): the host's own page recognises its own invitation by them.
//
// The page holds only what the server sends this seat: before both sides have confirmed,
// never the other side's cards.  The other side's commitment is remembered when first seen
// and checked against the arrangement and salt revealed at the show-down.  The arrangement
// being laid is kept on this device (localStorage) until it is confirmed.

import { ApiError, call, readEvents } from "./api.js";
import { ArrangementEditor } from "./arrange.js";
import { cardEl, cardsTextEl } from "./cards.js";
import { $, errorBox, fieldMessage, fillOpponents, limits, opponentModel, opponents, readInRange } from "./form.js";
import { el, seconds, signed } from "./format.js";
import { kmixEntryEl, marginalsEl, packetsEl, plansEl, proofText, rowOf, swapWords, totalsEl } from "./render.js";
import { pointsWords, rulesNamed } from "./rules.js";
import { checkCommitment, commitmentText } from "./sha256.js";

const REVEAL_MS = 650; // between two slots of the show-down
const KEEP_MS = 3 * 24 * 3600 * 1000; // what this device keeps of a table (its drafts, commitments seen)
export const SEAT_ADDRESS = /^#play\/([A-Za-z0-9_-]+)\/([12])(?:\/([A-Za-z0-9_-]+))?$/;
const JOIN_ADDRESS = /^#join\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/;
const MINE_SHOWN = 10; // "Your tables": the most recently used seats listed
const FRIEND_HELP = "You get an invitation link for your friend's seat. Hints, if on, are against the deal's "
  + "equilibrium, and both of you are told.";

const play = {
  seat: null, // {table, seat, token}
  view: null,
  key: null, // the game the board shows (gameKey)
  revealed: {}, // gameKey → slots of its show-down turned over so far
  timer: null,
  stream: null, // AbortController of the event stream
  busy: null, // AbortController of the move or advice under way
  hintsTouched: false,
  invitation: null, // {table, link, warning}: seat 2's invitation, shown to seat 1 until the friend joins
  asking: false, // the invitation is being fetched
  draftKey: null, // where the board's arrangement is kept (null: not kept)
  invited: null, // {table, code}: the invitation shown, before it is accepted
  resignScope: "match", // what the resign confirm shown gives up: "game" or "match"
  focusResult: null, // the gameKey whose result gets the focus once its show-down is turned over
  pending: false, // a Confirm the server did not take (down, or a proxy's 5xx): offered again once it is back
};
let board; // the ArrangementEditor of the current game
let showTab = () => {};

// ---------------------------------------------------------------- what this device keeps

/** Entries in one localStorage item, each dropped KEEP_MS after it was saved. */
class Kept {
  constructor(name) {
    this.name = name;
  }

  all() {
    try {
      const all = JSON.parse(localStorage.getItem(this.name) || "{}");
      return all && typeof all === "object" ? all : {};
    } catch {
      return {};
    }
  }

  get(key) {
    const entry = this.all()[key];
    return entry && Date.now() - entry.saved < KEEP_MS ? entry.value : undefined;
  }

  set(key, value) {
    const all = this.all();
    const now = Date.now();
    for (const k of Object.keys(all)) if (!(now - all[k].saved < KEEP_MS)) delete all[k];
    if (value === undefined) delete all[key];
    else all[key] = { value, saved: now };
    try {
      localStorage.setItem(this.name, JSON.stringify(all));
    } catch {
      // storage full or turned off: the page works without it
    }
  }
}

const drafts = new Kept("quintet-play-drafts"); // TABLE/SEAT/GAME → the packets being laid
const seen = new Kept("quintet-play-commitments"); // TABLE/SEAT/GAME → the other side's commitment, first seen
const joined = new Kept("quintet-play-joined"); // TABLE/CODE → seat 2's token (this device exchanged the code)
const mine = new Kept("quintet-play-seats"); // TABLE/SEAT → {token}: the seats this browser holds ("Your tables")

/** The game a view is of: a rematch starts the games again, under a new match number. */
function gameKey(view) {
  return `${view.match}.${view.game}`;
}

function seatKey() {
  return `${play.seat.table}/${play.seat.seat}/${play.key}`;
}

function saveDraft() {
  if (!play.draftKey || board.locked) return;
  drafts.set(play.draftKey, board.mine.some((p) => p.length) ? board.mine : undefined);
}

/** The kept packets of this game, if they are still a partial arrangement of its cards. */
function keptDraft(view) {
  const packets = drafts.get(seatKey());
  const live = new Set(view.deal.live);
  const { weights, hand_size: size } = board.rules;
  const cards = Array.isArray(packets) && packets.length === weights.length ? packets.flat() : [];
  const fits = cards.length && packets.every((p) => Array.isArray(p) && p.length <= size)
    && cards.every((c) => live.has(c)) && new Set(cards).size === cards.length;
  return fits ? packets : null;
}

// ---------------------------------------------------------------- errors and progress

const setError = errorBox("play-error");

/** Show ``message`` (empty: hide it) next to ``near``, the control it is about. */
function showError(message, near = null) {
  const box = $("play-error");
  if (near) {
    const anchor = near.closest(".row, .share") || near;
    if (anchor.nextElementSibling !== box) anchor.after(box);
  }
  setError(message);
}

/** A search under way: its name, the seconds so far and a Cancel, beside the buttons. */
function startProgress(label, controller) {
  const box = $("play-progress");
  const started = performance.now();
  const limit = ` (it stops within ${limits.defaults.TABLE_SEARCH_TIME_LIMIT.value} s)`;
  const tick = () => {
    $("play-progress-text").textContent = `${label}… ${Math.floor((performance.now() - started) / 1000)} s${limit}`;
  };
  tick();
  box.hidden = false;
  const timer = setInterval(tick, 1000);
  $("play-cancel").onclick = () => controller.abort();
  return () => {
    clearInterval(timer);
    box.hidden = true;
  };
}

// ---------------------------------------------------------------- the seat

function seatLink(seat) {
  return `${location.origin}${location.pathname}#play/${seat.table}/${seat.seat}/${seat.token}`;
}

/** Open ``seat``: its link becomes the address (replacing the one that led here). */
function goToSeat(seat) {
  location.replace(`#play/${seat.table}/${seat.seat}/${seat.token}`);
  sit(seat);
}

function ask(method, path, body, signal) {
  return call(method, `api/tables/${play.seat.table}${path}`, body, { token: play.seat.token, signal });
}

async function sit(seat) {
  stopStream();
  if (play.timer) clearTimeout(play.timer);
  play.seat = seat;
  play.view = null;
  play.key = null;
  play.draftKey = null;
  play.revealed = {};
  play.pending = false;
  $("play-setup").hidden = true;
  $("play-invite").hidden = true;
  $("play-table").hidden = false;
  for (const id of ["play-showdown-box", "play-advice-box", "play-match-box", "play-leave-confirm",
    "play-resign-confirm"]) $(id).hidden = true;
  showError("", $("play-confirm"));
  showTab();
  if (!seat.token) {
    leave("This address names a seat without its token: open the seat's full link (…/#play/TABLE/SEAT/TOKEN).");
    return;
  }
  mine.set(`${seat.table}/${seat.seat}`, { token: seat.token }); // "Your tables"
  try {
    const { data } = await ask("GET", "");
    render(data, "view");
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      mine.set(`${seat.table}/${seat.seat}`, undefined);
      leave(`${e.message}. The table may have expired (tables are kept ${await keptFor()} after their last move).`);
      return;
    }
    showError(e.message);
  }
  follow();
}

/** The friend's page: the match the invitation is to, with Accept and Decline (nothing is
 * taken before Accept).  On the host's own browser (it holds seat 1 of the table): says so. */
async function join(table, code) {
  showTab();
  stopStream();
  play.seat = null;
  $("play-table").hidden = true;
  const token = joined.get(`${table}/${code}`);
  if (token) { // this device took the seat already: back to it
    goToSeat({ table, seat: 2, token });
    return;
  }
  play.invited = { table, code };
  $("play-setup").hidden = true;
  $("play-invite").hidden = false;
  showError("", $("play-accept"));
  const own = mine.get(`${table}/1`);
  $("play-accept").hidden = $("play-decline").hidden = Boolean(own);
  $("play-own-seat").hidden = $("play-accept-anyway").hidden = !own;
  if (own) {
    $("play-invite-title").textContent = "Your own invitation";
    $("play-invite-text").textContent = "This is the invitation to the table you opened on this browser (it holds "
      + "seat 1). Send it to your friend: it opens their seat, once. Opening it here has taken nothing.";
    $("play-own-seat").focus();
    return;
  }
  $("play-invite-title").textContent = "An invitation to a match";
  $("play-invite-text").textContent = "Opening the invitation…";
  for (const id of ["play-accept", "play-decline"]) $(id).setAttribute("aria-disabled", "true");
  try {
    const { data } = await call("POST", `api/tables/${table}/invited`, { invitation: code });
    if (!play.invited || play.invited.code !== code) return;
    $("play-invite-text").textContent = `Your friend invites you to a match of ${data.games} game`
      + `${data.games > 1 ? "s" : ""}${data.match > 1 ? ` (match ${data.match} at their table)` : ""} with `
      + `${data.rules} rules; hints, grades and odds ${data.hints ? "on for both of you (against the deal's "
        + "equilibrium)" : "off"}. Accept to take your seat: nothing is taken before you do.`;
    for (const id of ["play-accept", "play-decline"]) $(id).setAttribute("aria-disabled", "false");
    $("play-accept").focus();
  } catch (e) {
    inviteFailed(e);
  }
}

/** How long the server keeps a table after its last move, in words ("a day", "2 hours"):
 * quintet-serve --table-ttl, as GET /api/health tells it. */
async function keptFor() {
  try {
    const { data } = await call("GET", "api/health");
    /** @type {[string, number][]} the largest unit the TTL is a whole number of */
    const units = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
    const ttl = Math.round(data.table_ttl);
    const [unit, size] = units.find(([, n]) => ttl >= n && ttl % n === 0) || units[3];
    const n = ttl / size;
    return n === 1 ? `${unit === "hour" ? "an" : "a"} ${unit}` : `${n} ${unit}s`;
  } catch {
    return "for a while";
  }
}

/** The invitation cannot be used (used already, not valid): back to the form, saying why. */
async function inviteFailed(e) {
  const kept = e instanceof ApiError && e.status === 404 ? await keptFor() : "";
  play.invited = null;
  history.replaceState(null, "", location.pathname + location.search);
  $("play-invite").hidden = true;
  $("play-setup").hidden = false;
  showError(e instanceof ApiError && e.status === 409
    ? "This invitation has been used already: it opens your friend's seat once, and someone opened it before. "
      + "If that was you, go back to the page it opened: its address is your seat's link. If not, ask your "
      + "friend for a new match (they have been told)."
    : e instanceof ApiError && e.status === 404
      ? "This invitation is not valid: the link may be cut short, or the table has expired (tables are kept "
        + `${kept} after their last move). Ask your friend for a new one.`
      : `Could not open the invitation: ${e.message}`, $("play-start"));
  renderMine();
}

/** Accept: exchange the invitation for seat 2's own token, once, and sit there. */
async function accept(button) {
  if (!play.invited || button.getAttribute("aria-disabled") === "true") return;
  const { table, code } = play.invited;
  button.setAttribute("aria-disabled", "true");
  try {
    const { data } = await call("POST", `api/tables/${table}/join`, { invitation: code });
    joined.set(`${table}/${code}`, data.token);
    play.invited = null;
    goToSeat({ table: data.table, seat: data.seat, token: data.token });
    $("play-title").focus();
  } catch (e) {
    inviteFailed(e);
  } finally {
    button.setAttribute("aria-disabled", "false");
  }
}

/** Decline: your friend is told; the invitation stays valid (Accept still works). */
async function decline() {
  if (!play.invited || $("play-decline").getAttribute("aria-disabled") === "true") return;
  const { table, code } = play.invited;
  try {
    await call("POST", `api/tables/${table}/decline`, { invitation: code });
    $("play-decline").hidden = true;
    $("play-invite-text").textContent = "You declined: your friend has been told. The invitation stays valid "
      + "until it is used: you may still accept.";
    $("play-invite-title").focus();
  } catch (e) {
    inviteFailed(e);
  }
}

// ---------------------------------------------------------------- your tables

/** The seat's table in a few words, for "Your tables". */
function mineText(view) {
  const against = view.opponent === "friend" ? `Your friend (seat ${view.seat})` : `The computer (${view.opponent})`;
  const match = view.match > 1 ? `match ${view.match}, ` : "";
  const waiting = view.opponent === "friend" && view.seat === 1 && !view.presence.joined;
  const where = waiting ? "waiting for your friend to join" : view.over ? "the match is over"
    : { preparing: "the game is being prepared", placing: "your move", waiting: `waiting for ${otherName(view)}`,
      showdown: "shown down", failed: "the game failed" }[view.status];
  return `${against}: ${match}game ${view.game} of ${view.games}, ${where}`;
}

/** "Your tables": the seats this browser holds whose tables the server still has, each a link
 * back to its seat (the others are forgotten). */
async function renderMine() {
  const now = Date.now();
  const kept = Object.entries(mine.all()).filter(([, e]) => e && now - e.saved < KEEP_MS && e.value && e.value.token)
    .sort((a, b) => b[1].saved - a[1].saved).slice(0, MINE_SHOWN);
  const items = await Promise.all(kept.map(async ([key, entry]) => {
    const [table, seat] = key.split("/");
    try {
      const { data } = await call("GET", `api/tables/${table}`, undefined, { token: entry.value.token });
      const link = el("a", "", mineText(data));
      link.href = `#play/${table}/${seat}/${entry.value.token}`;
      const li = el("li");
      li.dataset.table = table;
      li.append(link);
      return li;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) mine.set(key, undefined); // expired
      return null;
    }
  }));
  const shown = items.filter((li) => li !== null);
  $("play-mine-list").replaceChildren(...shown);
  $("play-mine").hidden = !shown.length;
}

function stopStream() {
  if (play.stream) play.stream.abort();
  play.stream = null;
}

/** Follow the table's events; reconnect (with a growing pause, or at once when the browser is
 * back online) when the stream ends or goes silent.  The server sends a heartbeat every few
 * seconds and the page answers each (api/tables/TABLE/alive: the other seat sees this one as
 * present); a page that hears nothing for the server's ``silence`` (in its events), or whose
 * answer cannot reach the server, says the connection is lost, drops the stream and reconnects;
 * the new stream's first event is the table as it is now. */
async function follow() {
  const controller = new AbortController();
  play.stream = controller;
  let pause = 500;
  let silence = 0; // ms: the server's bound, from its first event (0: not known yet)
  while (play.stream === controller) {
    const attempt = new AbortController(); // this stream only
    const stop = () => attempt.abort();
    controller.signal.addEventListener("abort", stop);
    let watchdog = 0;
    const lost = () => {
      if (attempt.signal.aborted) return;
      connectionLost();
      attempt.abort();
    };
    const heard = () => {
      clearTimeout(watchdog);
      if (silence) watchdog = window.setTimeout(lost, silence);
    };
    const { table, token } = play.seat;
    heard(); // a connection that hangs is lost too
    try {
      await readEvents(`api/tables/${table}/events`, token, (kind, event) => {
        pause = 500;
        if (event.silence) silence = event.silence * 1000;
        heard();
        if (kind === "heartbeat") {
          call("POST", `api/tables/${table}/alive`, undefined, { token, signal: attempt.signal }).catch((e) => {
            if (e instanceof ApiError && e.status === 0) lost(); // the server cannot hear this page
          });
        } else if (kind === "shutdown") setStatusNote("The server is restarting: reconnecting…");
        else if (kind === "expired") leave("This table has expired.");
        else if (event.view) {
          if (kind === "view") $("panel-play").dataset.connection = "open";
          render(event.view, kind);
          if (kind === "view") serverBack();
        }
      }, attempt.signal);
    } catch (e) {
      if (controller.signal.aborted) return;
      if (e instanceof ApiError && e.status === 404) {
        leave(e.message);
        return;
      }
      if (!attempt.signal.aborted) connectionLost();
    } finally {
      clearTimeout(watchdog);
      controller.signal.removeEventListener("abort", stop);
    }
    if (play.stream !== controller) return;
    await pauseOrOnline(pause);
    pause = Math.min(pause * 2, 8000);
    if (play.stream !== controller) return;
    try { // the state may have moved while the stream was down
      render((await ask("GET", "")).data, "view");
      serverBack();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        leave(e.message);
        return;
      }
    }
  }
}

/** The page cannot hear the server (or be heard): said in the status line until a view comes. */
function connectionLost() {
  $("panel-play").dataset.connection = "lost";
  setStatusNote("Connection lost — reconnecting…");
}

/** Wait ``ms``, or less if the browser comes back online meanwhile. */
function pauseOrOnline(ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      resolve(undefined);
    };
    const timer = window.setTimeout(done, ms);
    window.addEventListener("online", done);
  });
}

/** The server answers again: a Confirm it did not take is offered again, in words. */
function serverBack() {
  if (!play.pending || !play.view) return;
  play.pending = false;
  showError(play.view.you.confirmed ? "The server is back: your arrangement was confirmed after all."
    : "The server is back: confirm again.", $("play-confirm"));
}

function leave(message = "") {
  stopStream();
  if (play.timer) clearTimeout(play.timer);
  if (play.busy) play.busy.abort();
  play.seat = null;
  play.view = null;
  play.draftKey = null;
  if (location.hash.startsWith("#play") || location.hash.startsWith("#join")) {
    history.replaceState(null, "", location.pathname + location.search);
  }
  document.title = document.querySelector("h1").textContent; // the site's name (a play-only server's: Quintet)
  $("play-table").hidden = true;
  $("play-invite").hidden = true;
  play.invited = null;
  for (const id of ["play-showdown-box", "play-advice-box", "play-match-box"]) $(id).hidden = true;
  $("play-setup").hidden = false;
  showError(message, $("play-start"));
  renderMine();
}

/** "New match": while the match is on, ask first (the seat's link brings it back). */
function askLeave() {
  if (!play.view || play.view.over) {
    leave();
    return;
  }
  $("play-leave-link").value = seatLink(play.seat);
  $("play-leave-confirm").hidden = false;
  $("play-leave-yes").focus();
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
  if ($("play-start").getAttribute("aria-disabled") === "true") return;
  fieldMessage("play-games", "");
  fieldMessage("play-seed", "");
  const { body, error } = buildTable();
  if (error) {
    fieldMessage(...error);
    $(error[0]).focus();
    return;
  }
  showError("", $("play-start"));
  $("play-start").setAttribute("aria-disabled", "true");
  try {
    const { data } = await call("POST", "api/tables", body);
    play.invitation = data.invitation ? { table: data.table, ...data.invitation } : null;
    goToSeat({ table: data.table, seat: 1, token: data.token });
    $("play-title").focus();
  } catch (e) {
    showError(e.message, $("play-start"));
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

/** "25 cards into 5 hands": what each side arranges under ``rules``. */
function toArrange(rules) {
  return `${rules.weights.length * rules.hand_size} cards into ${rules.weights.length} hands`;
}

/** Whether the view's show-down has been turned over to the last slot on this page. */
function shownDown(view) {
  return Boolean(view.showdown) && (play.revealed[gameKey(view)] || 0) >= view.showdown.slots.length;
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
    case "ended":
      return endedText(view);
    case "resigned":
      return view.ended ? endedText(view) : `${resignedText(view)}${view.over ? " The match is over." : ""}`;
    case "placing":
      return view.other.confirmed && view.opponent === "friend"
        ? `Your friend has confirmed. Arrange your ${toArrange(rulesNamed(view.deal.rules))} and confirm.`
        : `Arrange your ${toArrange(rulesNamed(view.deal.rules))} and confirm.`;
    case "waiting":
      return view.opponent === "friend" && view.other_game !== null && view.other_game < view.game
        ? `You have confirmed. ${other[0].toUpperCase() + other.slice(1)} is still looking at game ${view.other_game}'s show-down.`
        : `You have confirmed. Waiting for ${other}…`;
    default:
      if (shownDown(view) && view.ended) return endedText(view);
      return shownDown(view) && view.over ? "The match is over." : "Both have confirmed: the show-down.";
  }
}

/** How a match that ended early ended, in a sentence (view.ended: resigned or aborted, by whom). */
function endedText(view) {
  const { how, by } = view.ended;
  const who = by === "you" ? "You" : otherName(view, true);
  return how === "aborted" ? `${who} aborted the match before its first show-down: no result.`
    : `${who} resigned the match: ${by === "you" ? `${otherName(view)} wins` : "you win"} it.`;
}

/** A game resigned before its show-down, in a sentence with its points (lost in every slot):
 * "Your friend resigned game 2: you win it 25–0." */
function resignedText(view) {
  const g = view.finished.find((f) => f.game === view.game);
  const [mine, theirs] = g ? [g.you, g.other] : [0, 0];
  return view.resigned === "you"
    ? `You resigned game ${view.game}: ${otherName(view)} wins it ${theirs}–${mine}.`
    : `${otherName(view, true)} resigned game ${view.game}: you win it ${mine}–${theirs}.`;
}

/** The tab's title: where this seat's game stands, in a few words. */
function titleText(view) {
  const other = otherName(view);
  const p = view.presence;
  let head;
  if (view.opponent === "friend" && view.seat === 1 && p && !p.joined) head = "Waiting for your friend to join";
  else if (view.status === "preparing") head = "Preparing the game";
  else if (view.status === "failed") head = "The game failed";
  else if (view.ended && !view.showdown) head = `Match over: ${view.ended.how}`;
  else if (view.status === "resigned") head = view.over ? `Match over: ${verdict(view.score.you, view.score.other, view)}`
    : `Game ${view.game} resigned`;
  else if (view.status === "placing") head = view.other.confirmed && view.opponent === "friend" ? "Your friend has confirmed" : "Your move";
  else if (view.status === "waiting") head = `Waiting for ${other}`;
  else if (!shownDown(view)) head = "Show-down…";
  else if (view.over) head = `Match over: ${verdict(view.score.you, view.score.other, view)}`;
  else head = `Game ${view.game}: ${verdict(view.showdown.points_a, view.showdown.points_b, view)}`;
  if (view.rematch && view.rematch.other && !view.rematch.you) head = "Your friend asks for a rematch";
  else if (view.opponent === "friend" && p && p.joined && !p.connected && !view.showdown) {
    head += p.lost ? " (your friend's connection is lost)" : " (your friend is away)";
  }
  return `${head} · game ${view.game} of ${view.games} · Quintet`;
}

function updateTitle(view) {
  const text = titleText(view);
  if (document.hidden && text !== document.title.replace(/^● /, "")) document.title = `● ${text}`;
  else if (!document.title.startsWith("● ") || !document.hidden) document.title = text;
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
  renderPresence(view);
  renderShare(view);
  $("play-status").textContent = statusText(view);
  delete $("play-status").dataset.note;
  const commitment = $("play-commitment");
  // the board: a new game empties it (or brings back what was being laid); a confirmed arrangement is shown, locked
  if (play.key !== gameKey(view)) {
    play.key = gameKey(view);
    play.draftKey = null;
    board.exposed = [];
    board.locked = false;
    board.setDeal(view.deal.exposed, rulesNamed(view.deal.rules));
    const draft = view.you.confirmed ? null : keptDraft(view);
    if (draft) board.set(draft, { undoable: false });
    play.draftKey = seatKey();
    $("play-advice-box").hidden = true;
  }
  if (view.other.commitment && !view.showdown && seen.get(seatKey()) === undefined) seen.set(seatKey(), view.other.commitment);
  commitment.hidden = !view.other.commitment;
  if (view.other.commitment) {
    commitment.textContent = `${otherName(view, true)}'s arrangement is committed: SHA-256 ${short(view.other.commitment)}`
      + (view.showdown ? "" : " (checked when it is revealed).");
    commitment.title = view.other.commitment;
  }
  const deal = $("play-deal");
  deal.replaceChildren("Exposed (out of play): ", cardsTextEl(view.deal.exposed), ` · seed ${view.deal.seed}`);
  if (view.you.confirmed && !board.locked) {
    drafts.set(seatKey(), undefined);
    play.draftKey = null;
    board.set(view.you.arrangement, { undoable: false });
    board.locked = true;
    board.render();
  }
  if (view.status === "resigned" && !board.locked) { // a resigned game is over: its board stays as it was
    board.locked = true;
    board.render();
  }
  $("play-advice-buttons").hidden = !view.advice.on || gameDone(view); // advice is for placing
  if (gameDone(view)) $("play-advice-box").hidden = true; // its "use" buttons would change nothing now
  buttons();
  renderShowdown(view, kind);
  renderMatch(view);
  updateTitle(view);
}

/** The other seat: has it opened the invitation, is a page of it open, has it confirmed;
 * and a warning when this seat is open in more than one place. */
function renderPresence(view) {
  const p = view.presence;
  const list = $("play-presence");
  list.hidden = view.opponent !== "friend" || !p;
  const reused = view.invitation_reused;
  $("play-reused").hidden = !reused;
  $("play-reused").textContent = `Your invitation was opened again after your friend had joined (${reused} time`
    + `${reused > 1 ? "s" : ""}; refused): someone besides your friend has its link.`;
  const here = p ? p.here : 1;
  $("play-devices").hidden = here < 2;
  $("play-devices").textContent = `This seat is open in ${here} places (tabs or devices): a move made in one shows in `
    + "all. Close the ones you are not using.";
  if (list.hidden) return;
  const items = [];
  if (view.seat === 1) {
    items.push(["joined", p.joined, p.joined ? "has joined"
      : view.declined ? "declined your invitation (it stays valid)" : "has not accepted your invitation yet"]);
  }
  if (p.left) items.push(["left", false, "has left the table"]);
  else if (p.joined) {
    items.push(["connected", p.connected, p.connected ? "has the table open"
      : p.lost ? "connection lost: waiting for it to come back" : "does not have the table open now"]);
    if (!view.showdown) items.push(["confirmed", p.confirmed, p.confirmed ? "has confirmed" : "has not confirmed yet"]);
  }
  list.replaceChildren(el("li", "presence-who", "Your friend"), ...items.map(([name, on, text]) => {
    const li = el("li", `presence-${on ? "on" : "off"}`, text);
    li.dataset.presence = name;
    li.dataset.on = String(on);
    return li;
  }));
}

/** Seat 1 at a friend's table: seat 2's invitation until the friend has opened it. */
function renderShare(view) {
  const waiting = view.opponent === "friend" && view.seat === 1 && view.presence && !view.presence.joined;
  $("play-share").hidden = !waiting;
  if (!waiting) return;
  if (play.invitation && play.invitation.table === view.table) showInvitation(play.invitation);
  else if (!play.asking) fetchInvitation();
}

/** The invitation's link, and the server's warning when it names this machine's own address. */
function showInvitation({ link, warning }) {
  $("play-share-link").value = link;
  $("play-share-warning").hidden = !warning;
  $("play-share-warning").textContent = warning || "";
}

/** The invitation again (a reload, another device): GET …/invitation, until the friend joins. */
async function fetchInvitation() {
  play.asking = true;
  const table = play.seat.table;
  try {
    const { data } = await ask("GET", "/invitation");
    play.invitation = { table, ...data };
    if (play.view && play.view.table === table) showInvitation(play.invitation);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 409)) showError(e.message, $("play-share"));
    // 409: the friend has joined meanwhile; the presence event says so
  } finally {
    play.asking = false;
  }
}

/** This seat is done with its game: confirmed, or the game (or the match) ended without it. */
function gameDone(view) {
  return view.you.confirmed || view.status === "resigned" || view.status === "ended";
}

function buttons() {
  const view = play.view;
  if (!view) return;
  const placing = view.status === "placing" || view.status === "preparing";
  $("play-confirm").setAttribute("aria-disabled",
    play.busy || view.status !== "placing" || !board.full || board.error ? "true" : "false");
  $("play-confirm").hidden = gameDone(view);
  for (const id of ["play-hint", "play-grade", "play-odds", "play-mix"]) {
    $(id).setAttribute("aria-disabled", play.busy || !placing || !view.advice.ready ? "true" : "false");
  }
  $("play-mix-box").hidden = !view.advice.mixes;
  for (const id of ["play-undo", "play-clear", "play-text", "play-pool"]) $(id).hidden = gameDone(view);
  $("play-text-help").hidden = gameDone(view);
  $("play-resign").hidden = view.over;
  $("play-resign").textContent = abortable(view) ? "Abort the match" : "Resign the match";
  $("play-resign-game").hidden = !resignable(view);
  if (view.over || (play.resignScope === "game" && !resignable(view))) $("play-resign-confirm").hidden = true;
}

/** A game may be resigned before its show-down, once it is prepared (POST …/resign, scope game). */
function resignable(view) {
  return !view.over && (view.status === "placing" || view.status === "waiting");
}

/** Before the match's first show-down a match is aborted (no result), after it resigned. */
function abortable(view) {
  return !view.finished.length && !view.showdown;
}

/** The confirm of "Resign the match" (``scope`` "match") or "Resign this game" ("game"). */
function askResign(scope) {
  const view = play.view;
  if (!view || view.over || (scope === "game" && !resignable(view))) return;
  play.resignScope = scope;
  const other = otherName(view);
  const points = rulesNamed(view.deal.rules).weights.reduce((a, b) => a + b, 0);
  $("play-resign-title").textContent = scope === "game"
    ? `Resign game ${view.game}? It is lost in every slot: ${other} scores all ${points} points, you none. `
      + (view.game < view.games ? "The match goes on with the next game." : "It is the match's last game.")
    : abortable(view) ? "Abort the match? No game has been shown down: it ends with no result."
      : `Resign the match? ${other[0].toUpperCase() + other.slice(1)} wins it.`;
  $("play-resign-yes").textContent = scope === "match" && abortable(view) ? "Abort" : "Resign";
  $("play-resign-leave").hidden = view.opponent !== "friend" || scope === "game";
  $("play-resign-leave").textContent = `${abortable(view) ? "Abort" : "Resign"} and leave the table`;
  $("play-resign-confirm").hidden = false;
  $("play-resign-yes").focus();
}

/** Resign the game or the match, or abort the match (``leave``: and leave the table: your friend is told). */
function resign(leaveTable) {
  $("play-resign-confirm").hidden = true;
  const scope = play.resignScope;
  act($(scope === "game" ? "play-resign-game" : "play-resign"), async (signal) => {
    const { data } = await ask("POST", "/resign", { scope, leave: leaveTable }, signal);
    if (leaveTable) {
      mine.set(`${play.seat.table}/${play.seat.seat}`, undefined); // not one of "Your tables" any more
      leave(`${endedText(data)} You left the table.`);
      return;
    }
    render(data, "view");
    $("play-showdown-title").focus();
  });
}

// ---------------------------------------------------------------- the show-down

function handCell(hand, who, name) {
  const cell = el("div", `sd-hand sd-${who}`);
  const cards = el("span", "packet-cards");
  for (const code of hand.cards) {
    const card = cardEl(code, "small");
    if (code === hand.decider) card.classList.add("decider");
    cards.append(card);
  }
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
      decidedBy: s.decided_by || null, youPoints: s.points_a, otherPoints: s.points_b, youTotal: you, otherTotal: other };
  });
}

function renderShowdown(view, kind) {
  const box = $("play-showdown-box");
  const sd = view.showdown;
  box.hidden = !sd && !view.ended && !view.resigned;
  $("play-showdown-title").textContent = sd ? "Show-down" : view.ended ? "The match has ended"
    : `Game ${view.game} resigned`;
  if (!sd) {
    delete $("panel-play").dataset.revealed;
    if (view.resigned && !view.ended) { // lost in every slot, no show-down: the points, the next game
      $("play-showdown").replaceChildren();
      $("play-score").textContent = resignedText(view) + (view.over ? ` Match: you ${view.score.you}, `
        + `${otherName(view)} ${view.score.other} — ${verdict(view.score.you, view.score.other, view, "the match")}.`
        : "");
      $("play-check").hidden = true;
      $("play-next").hidden = !view.can_next;
      renderRematch(view);
    } else if (view.ended) { // the match ended before this game's show-down: how, and the rematch
      $("play-showdown").replaceChildren();
      $("play-score").textContent = `${endedText(view)} ${tallyText(view)}`;
      $("play-check").hidden = true;
      $("play-next").hidden = true;
      renderRematch(view);
    }
    return;
  }
  const key = gameKey(view);
  const n = sd.slots.length;
  if (play.revealed[key] === undefined) play.revealed[key] = kind === "reveal" ? 0 : n;
  const list = $("play-showdown");
  const other = otherName(view);
  const slots = seatSlots(sd);
  const draw = () => {
    const shown = play.revealed[key];
    list.replaceChildren();
    slots.forEach((s, i) => {
      const li = el("li", "sd-slot");
      li.dataset.slot = String(s.slot);
      const label = el("div", "slot-label", `Slot ${s.slot}`);
      label.append(el("small", "", `${s.points} pts`));
      li.append(label);
      if (i < shown) {
        li.dataset.winner = s.winner || "tie";
        li.append(handCell(s.you, "you", "you"), handCell(s.other, "other", other));
        const [who, points] = s.winner === "you" ? ["you", `+${s.youPoints}`] : s.winner === "other"
          ? [other, `+${s.otherPoints}`] : ["tie", s.youPoints ? `+${s.youPoints} each` : ""];
        const res = el("div", `sd-result ${s.winner || "tie"}`);
        res.append(el("span", "sd-winner", who), ` ${points}`, el("small", "", `${s.youTotal} : ${s.otherTotal}`));
        li.append(res);
        if (s.decidedBy) { // two hands of one name: what decides ("highest kicker: ace over queen")
          const [what, ranks] = s.decidedBy.split(": ");
          li.append(el("p", "sd-why", `Both ${s.you.hand}: the ${what} decides, ${ranks}.`));
        }
      } else {
        li.classList.add("face-down");
        li.append(el("div", "sd-hidden", "…"));
      }
      list.append(li);
    });
    const done = shown >= n;
    $("panel-play").dataset.revealed = String(shown);
    $("play-score").textContent = done
      ? `Game ${view.game}: you ${sd.points_a}, ${other} ${sd.points_b} — ${verdict(sd.points_a, sd.points_b, view)}.`
      : `You ${shown ? slots[shown - 1].youTotal : 0} : ${shown ? slots[shown - 1].otherTotal : 0} ${other}…`;
    $("play-check").hidden = !done;
    $("play-next").hidden = !done || !view.can_next;
    if (done) {
      renderCheck(view);
      $("play-status").textContent = statusText(view);
      if (view.ended) $("play-score").textContent += ` ${endedText(view)}`;
      else if (view.over) {
        $("play-score").textContent += ` Match: you ${view.score.you}, ${other} ${view.score.other} — `
          + `${verdict(view.score.you, view.score.other, view, "the match")}.`;
      }
      renderMatch(view);
      updateTitle(view);
    }
    renderRematch(view);
  };
  if (play.timer) clearTimeout(play.timer);
  if (kind === "reveal" && play.revealed[key] < n) play.focusResult = key; // a later event may go on turning
  const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const step = () => {
    draw();
    if (play.revealed[key] < n && play.view && gameKey(play.view) === key) {
      play.timer = setTimeout(() => {
        play.revealed[key] += 1;
        step();
      }, reduce ? 0 : REVEAL_MS);
    } else if (play.revealed[key] >= n && play.focusResult === key) { // the result: in view, and the focus
      play.focusResult = null;
      $("play-score").focus({ preventScroll: true });
      $("play-score").scrollIntoView({ block: "center" });
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
  const c = commitmentCheck(view, seen.get(seatKey()));
  const who = `${otherName(view, true)}'s`;
  const its = view.opponent === "friend" ? "their" : "its"; // your friend is a person
  box.dataset.ok = c.ok ? "true" : "false";
  let text;
  if (!c.ok) {
    text = `✗ ${who} commitment does NOT match the arrangement revealed: it was changed after it was committed.`;
  } else if (view.confirmed_first === "you") {
    text = `✓ ${who} commitment matches the arrangement revealed (${short(c.shown)}). ${otherName(view, true)} `
      + `confirmed after you, so ${its} commitment was shown with the show-down: the check shows the two agree, not `
      + "that it was fixed before you confirmed.";
  } else if (c.seenBefore) {
    text = `✓ ${who} commitment checks out: the SHA-256 of ${its} salt and the arrangement revealed is `
      + `${short(c.shown)}, the value this page showed before you confirmed.`;
  } else {
    text = `✓ ${who} commitment matches the arrangement revealed (${short(c.shown)}). It was shown before you `
      + "confirmed, though not on this device: compare it with the value you saw then.";
  }
  const head = el("p", `check-line ${c.ok ? "ok" : "bad"}`, text);
  const proves = el("p", "hint small check-proves", view.commitments.proves); // the server's sentence
  const details = el("details", "check-details");
  details.append(el("summary", "", "Check it yourself"));
  const code = el("code", "", `printf '%s' '${c.text}' | sha256sum`);
  details.append(el("p", "hint small", "The commitment is the SHA-256 of these bytes (no newline):"), code,
    el("p", "hint small", `Expected: ${c.shown}`));
  box.replaceChildren(head, proves, details);
}

/** Rematch, once the match is over and its last show-down turned: one press a seat. */
function renderRematch(view) {
  const ready = view.over && (shownDown(view) || !view.showdown);
  const rematch = view.rematch || { you: false, other: false };
  const left = view.presence && view.presence.left;
  $("play-rematch-row").hidden = !ready;
  if (!ready) return;
  $("play-rematch").hidden = rematch.you || left;
  const note = $("play-rematch-note");
  note.textContent = left ? "Your friend has left the table: no rematch here." : rematch.you
    ? "You asked for a rematch: it starts when your friend asks too."
    : rematch.other ? "Your friend asks for a rematch: ask too and it starts." : "";
  note.hidden = !note.textContent;
}

// ---------------------------------------------------------------- the match table

function renderMatch(view) {
  const box = $("play-match-box");
  // the current game's row waits for its show-down to be turned over
  const games = view.finished.filter((g) => g.game !== view.game || shownDown(view) || g.resigned);
  // the tally across rematches: not while the show-down that decides a match is being turned over
  const tally = !view.showdown || shownDown(view) ? tallyText(view) : "";
  $("play-tally").textContent = tally;
  $("play-tally").hidden = !tally;
  box.hidden = !games.length;
  const table = $("play-match");
  const head = el("tr");
  const friend = view.opponent === "friend"; // a friend's play has no regret: no such column
  $("play-regret-help").hidden = friend;
  for (const h of ["Game", "Seed", "You", friend ? "Friend" : "Computer", "Margin", ...(friend ? [] : ["Regret"])]) {
    head.append(el("th", "", h));
  }
  table.replaceChildren(head);
  const total = [0, 0];
  for (const g of games) {
    const tr = el("tr");
    tr.dataset.game = String(g.game);
    if (g.resigned) tr.dataset.resigned = g.resigned;
    const regret = friend ? [] : [g.resigned ? "—" : g.regret === null ? "computing…" : g.regret.toFixed(2)];
    const game = g.resigned ? `${g.game} (resigned by ${g.resigned === "you" ? "you" : otherName(view)})` : g.game;
    for (const cell of [game, g.seed, g.you, g.other, signed(g.you - g.other, 0), ...regret]) {
      tr.append(el("td", "", String(cell)));
    }
    table.append(tr);
    total[0] += g.you;
    total[1] += g.other;
  }
  const row = el("tr", "total");
  for (const cell of ["Match", "", total[0], total[1], signed(total[0] - total[1], 0), ...(friend ? [] : [""])]) {
    row.append(el("td", "", String(cell)));
  }
  table.append(row);
}

/** The matches at this table that have ended (a score across rematches), or "" before the first. */
function tallyText(view) {
  const t = view.tally;
  if (!t || !(t.you + t.other + t.drawn + t.aborted)) return "";
  return `Match ${view.match} at this table. Matches won: you ${t.you}, ${otherName(view)} ${t.other}`
    + `${t.drawn ? `, drawn ${t.drawn}` : ""}${t.aborted ? ` (${t.aborted} aborted)` : ""}.`;
}

async function downloadRecords() {
  try {
    const response = await fetch(`api/tables/${play.seat.table}/records`, {
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
    showError(e.message, $("play-records"));
  }
}

// ---------------------------------------------------------------- moves and advice

/** One move or piece of advice at a time: ``work(signal)``; its error shown beside ``button``;
 * ``progress``: the search's name, shown with its seconds and a Cancel while it runs. */
async function act(button, work, progress = "") {
  if (play.busy) return;
  const controller = new AbortController();
  play.busy = controller;
  buttons();
  showError("", button);
  const done = progress ? startProgress(progress, controller) : () => {};
  try {
    await work(controller.signal);
  } catch (e) {
    if (controller.signal.aborted) showError("Cancelled.", button);
    else {
      showError(e.message, button);
      $("play-error").focus({ preventScroll: true });
    }
  } finally {
    done();
    play.busy = null;
    buttons();
  }
}

function confirmArrangement() {
  const button = $("play-confirm");
  if (button.getAttribute("aria-disabled") === "true") {
    if (!board.full && play.view && play.view.status === "placing") {
      const size = board.rules.hand_size;
      const slot = board.mine.findIndex((p) => p.length < size);
      showError(`slot ${slot + 1} holds ${board.mine[slot].length} of ${size} cards: fill all ${board.mine.length} slots `
        + "to confirm",
        button);
    }
    return;
  }
  act(button, async (signal) => {
    let data;
    try {
      ({ data } = await ask("POST", "/arrangement", { arrangement: board.text() }, signal));
    } catch (e) {
      if (!(e instanceof ApiError && (e.status === 0 || e.status >= 500))) throw e;
      play.pending = true; // the server (or the way to it) is down: said again once it is back
      throw new ApiError(`Your arrangement is not confirmed: the server did not take it (${e.message}). It stays `
        + "on the board: this page says when the server is back, and you confirm again.", e.status);
    }
    play.pending = false;
    render(data, data.showdown ? "reveal" : "view");
    if (!data.showdown) $("play-status").focus(); // Confirm is gone: the focus goes to what happens next
  });
}

function nextGame() {
  act($("play-next"), async (signal) => {
    const { data } = await ask("POST", "/next", undefined, signal);
    render(data, "view");
    $("play-title").focus();
  });
}

function rematch() {
  act($("play-rematch"), async (signal) => {
    const { data } = await ask("POST", "/rematch", undefined, signal);
    render(data, "view");
    if (!data.over) $("play-title").focus();
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
  const button = $("play-hint");
  if (button.getAttribute("aria-disabled") === "true") return;
  const size = board.rules.hand_size;
  const partial = board.mine.findIndex((p) => p.length > 0 && p.length < size);
  if (partial >= 0) {
    showError(`slot ${partial + 1} holds ${board.mine[partial].length} of ${size} cards: a hint keeps your full `
      + `packets where they are; fill slot ${partial + 1} or take its cards back`, button);
    return;
  }
  const slots = {}; // all filled: none kept, the hint is the best arrangement (as quintet-play's)
  if (!board.full) {
    board.mine.forEach((p, i) => {
      if (p.length === size) slots[String(i + 1)] = p.join(" ");
    });
  }
  const fixed = new Set(Object.keys(slots).map(Number));
  act(button, async (signal) => {
    const { data } = await ask("POST", "/hint", { slots }, signal);
    showAdvice(fixed.size ? "Hint: the best completion of your slots" : "Hint: the best arrangement",
      el("p", "answer-for", `Against ${play.view.advice.against}`),
      packetsEl(data, { fixed }), totalsEl(data), el("p", "proof", proofText(data)),
      rowOf(useButton(data.arrangement)));
  }, fixed.size ? "Searching for the best completion of your slots" : "Searching for the best arrangement");
}

function grade() {
  const button = $("play-grade");
  if (button.getAttribute("aria-disabled") === "true") return;
  if (!board.full || board.error) {
    showError(board.error || `Grade rates ${board.mine.length} full slots: fill them first`, button);
    return;
  }
  act(button, async (signal) => {
    const { data } = await ask("POST", "/grade", { arrangement: board.text() }, signal);
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
    add("Best swap", ...(sw ? swapWords(sw, data.value, 4) : ["none: no swap of two cards improves it"]));
    showAdvice("Your arrangement, graded", el("p", "answer-for", `Against ${play.view.advice.against}`), summary,
      packetsEl(data.given, { swap }), rowOf(...(sw ? [useButton(sw.arrangement, "Make this swap")] : []),
        useButton(data.best.arrangement, "Use the best arrangement")));
  }, "Grading your arrangement");
}

/** quintet-play's 'hint K': the least exploitable mix of at most K arrangements of the deal's
 * equilibrium found, certified, and the game's die roll picking one (the server rolls it). */
function mixHint() {
  const button = $("play-mix");
  if (button.getAttribute("aria-disabled") === "true") return;
  const { value: k, error } = readInRange($("play-k").value, "max_support", "K");
  fieldMessage("play-k", error || "");
  if (error) {
    $("play-k").focus();
    return;
  }
  act(button, async (signal) => {
    const { data } = await ask("POST", "/hint", { max_support: k }, signal);
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
  }, `Searching for the least exploitable mix of at most ${k} arrangement${k > 1 ? "s" : ""}`);
}

function odds() {
  const button = $("play-odds");
  if (button.getAttribute("aria-disabled") === "true") return;
  act(button, async (signal) => {
    const { data } = await ask("POST", "/odds", undefined, signal);
    const drawn = marginalsEl(data.slots);
    for (const bar of drawn[1].querySelectorAll(".marginal-bar")) { // every hand is drawn: the thin ones unframed
      for (const seg of bar.children) seg.classList.toggle("thin", parseFloat(seg.style.width) < 1.5);
    }
    showAdvice("Odds: the hands the model plays in each slot", el("p", "answer-for", `Its model: ${data.model}`),
      ...drawn);
  }, "Computing the odds");
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
  const classic = rulesNamed("classic"); // the rule set of the matches started here
  $("play-rules").textContent = `Both sides arrange the same ${toArrange(classic)}; the hands meet slot by slot `
    + `for ${pointsWords(classic)} points.`;
  board = new ArrangementEditor({ slots: $("play-slots"), text: $("play-text"), textMsg: $("play-text-msg"),
    pool: $("play-pool"), undo: $("play-undo"), clear: $("play-clear") }, {
    onChange: () => {
      buttons();
      saveDraft();
    },
    poolHint: "",
  });
  fillOpponents("play-opponent", opponents.models.filter((m) => m.plays !== null), (m) => `The computer: ${m.label}`);
  const helpChanged = () => {
    const opponent = $("play-opponent").value;
    const model = opponentModel(opponent);
    $("play-opponent-help").textContent = model ? `The computer plays ${model.name}: ${model.plays}.` : FRIEND_HELP;
    if (!play.hintsTouched) $("play-hints").checked = opponent !== "friend";
  };
  $("play-opponent").addEventListener("change", helpChanged);
  $("play-hints").addEventListener("change", () => {
    play.hintsTouched = true;
  });
  helpChanged();
  $("play-start").addEventListener("click", start);
  $("play-accept").addEventListener("click", () => accept($("play-accept")));
  $("play-accept-anyway").addEventListener("click", () => accept($("play-accept-anyway")));
  $("play-decline").addEventListener("click", decline);
  $("play-own-seat").addEventListener("click", () => {
    const own = play.invited && mine.get(`${play.invited.table}/1`);
    if (own) goToSeat({ table: play.invited.table, seat: 1, token: own.token });
  });
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
  $("play-rematch").addEventListener("click", rematch);
  $("play-hint").addEventListener("click", hint);
  $("play-grade").addEventListener("click", grade);
  $("play-odds").addEventListener("click", odds);
  $("play-mix").addEventListener("click", mixHint);
  $("play-k").addEventListener("keydown", (e) => {
    if (e.key === "Enter") mixHint();
  });
  $("play-records").addEventListener("click", downloadRecords);
  $("play-leave").addEventListener("click", askLeave);
  $("play-resign").addEventListener("click", () => askResign("match"));
  $("play-resign-game").addEventListener("click", () => askResign("game"));
  $("play-resign-yes").addEventListener("click", () => resign(false));
  $("play-resign-leave").addEventListener("click", () => resign(true));
  $("play-resign-no").addEventListener("click", () => {
    $("play-resign-confirm").hidden = true;
    $(play.resignScope === "game" ? "play-resign-game" : "play-resign").focus();
  });
  $("play-leave-yes").addEventListener("click", () => leave());
  $("play-leave-no").addEventListener("click", () => {
    $("play-leave-confirm").hidden = true;
    $("play-leave").focus();
  });
  /** @type {[string, () => string][]} a copy button and the text it copies */
  const copies = [["play-share-copy", () => $("play-share-link").value], ["play-my-link", () => seatLink(play.seat)]];
  for (const [id, text] of copies) {
    $(id).dataset.label = $(id).textContent;
    $(id).addEventListener("click", () => copy(text(), $(id)));
  }
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && document.title.startsWith("● ")) document.title = document.title.slice(2);
  });
  const fromAddress = () => {
    const invited = JOIN_ADDRESS.exec(location.hash);
    if (invited) {
      join(invited[1], invited[2]);
      return;
    }
    const m = SEAT_ADDRESS.exec(location.hash);
    if (!m) {
      if (!play.seat) renderMine();
      return;
    }
    const seat = { table: m[1], seat: Number(m[2]), token: m[3] || null };
    const here = play.seat;
    if (!here || here.table !== seat.table || here.seat !== seat.seat || here.token !== seat.token) sit(seat);
  };
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
}

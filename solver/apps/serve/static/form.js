// @ts-check
// The form helpers every tab shares: a field's message, a tab's error box, numbers read
// against the server's ranges (GET /api/limits: ``limits``) and the opponent models' menus
// (GET /api/opponents: ``opponents``), both loaded once before the tabs start.

import { call } from "./api.js";

/** The page's element ``id``, typed as a form's field (an input's and a select's properties: most
 * elements the tabs look up are one; the others use only what every element has).
 * @param {string} id
 * @returns {HTMLInputElement & HTMLSelectElement} */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));

/** The server's ranges and defaults (solver.advisor.limits), as GET /api/limits sends them:
 * ``limits.ranges.seed.high``, ``limits.defaults.SOLVE_EPSILON.value``. */
export const limits = { ranges: {}, defaults: {} };

export async function loadLimits() {
  const { data } = await call("GET", "/api/limits");
  limits.ranges = data.ranges;
  limits.defaults = data.defaults;
  return limits;
}

/** The server's opponent models (solver.problem.opponent_spec), as GET /api/opponents sends them:
 * ``opponents.models`` (name, label, help, data, plays, puzzle, tournament), ``opponents.mixture``. */
export const opponents = { models: [], mixture: "" };

export async function loadOpponents() {
  const { data } = await call("GET", "/api/opponents");
  Object.assign(opponents, data);
  return opponents;
}

/** The model called ``name`` (undefined for another text: a mixture, ``friend``). */
export const opponentModel = (name) => opponents.models.find((m) => m.name === name);

/** Put an option per model ``models`` into the menu ``id``, before the options it already has
 * (``mixture``, ``friend``), ``text(model)`` its words; the first is selected. */
export function fillOpponents(id, models, text) {
  const select = $(id);
  select.prepend(...models.map((m) => new Option(text(m), m.name)));
  select.selectedIndex = 0;
}

/** Show ``message`` under the field ``id`` (its ``id-msg`` element) and mark the field
 * invalid; an empty message clears both. */
export function fieldMessage(id, message) {
  const msg = $(`${id}-msg`);
  msg.textContent = message;
  msg.hidden = !message;
  $(id).setAttribute("aria-invalid", message ? "true" : "false");
}

/** The function that shows a message in the error box ``id`` (an empty message hides it). */
export function errorBox(id) {
  return (message) => {
    const box = $(id);
    box.hidden = !message;
    box.textContent = message || "";
  };
}

/** ``text`` as a number in the server's range ``name`` (limits.ranges), or the message naming
 * the problem as the server words it (``what`` names the field): {value} or {error}. */
export function readInRange(text, name, what = null) {
  const range = limits.ranges[name];
  const label = what || range.name;
  const t = text.trim();
  if (!t) return { error: `${label}: type ${range.integer ? "a whole number" : "a number"}` };
  const shown = t.length > 20 ? `${t.slice(0, 20)}…` : t;
  const x = Number(t);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) || !Number.isFinite(x)) {
    return { error: `${label} must be ${range.integer ? range.text : "a number"}, got ${shown}` };
  }
  const inside = (range.low_open ? x > range.low : x >= range.low) && x <= range.high;
  if (!inside || (range.integer && !Number.isInteger(x))) return { error: `${label} must be ${range.text}, got ${shown}` };
  return { value: x };
}

/** A fresh random seed in the server's seed range (the browser's cryptographic generator). */
export function randomSeed() {
  return crypto.getRandomValues(new Uint32Array(1))[0] % (limits.ranges.seed.high + 1);
}

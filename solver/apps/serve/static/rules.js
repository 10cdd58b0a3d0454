// @ts-check
// The rule sets the server offers (GET /api/rules, from quintet.rules): each one's deck, jokers,
// slot points, hand size, exposed cards and hand categories.  Loaded once before the tabs start;
// the page writes no rule of its own.

import { call } from "./api.js";

/**
 * A rule set as GET /api/rules sends it.
 * @typedef {object} RuleSet
 * @property {string} name
 * @property {string} description
 * @property {string[]} deck every card, the jokers first
 * @property {string[]} jokers
 * @property {number[]} weights points for winning each slot, slot 1 first (one per slot)
 * @property {number} hand_size cards in each slot's hand
 * @property {number} n_exposed cards exposed in a deal
 * @property {string[]} categories hand categories, lowest first
 * @property {boolean} heads_up a heads-up draw-poker strategy ships for it (the default terms)
 */

/** @type {RuleSet[]} every rule set, classic first */
export const ruleSets = [];

export async function loadRules() {
  const { data } = await call("GET", "/api/rules");
  ruleSets.splice(0, ruleSets.length, ...data);
}

/** The rule set called ``name`` (an error naming it when the server offers none of that name). */
export function rulesNamed(name = "classic") {
  const rules = ruleSets.find((r) => r.name === name);
  if (!rules) throw new Error(`the server offers no rule set called ${name}`);
  return rules;
}

/** "3, 4, 5, 6 and 7": a rule set's slot points in words. */
export function pointsWords(rules) {
  const w = rules.weights.map(String);
  return w.length > 1 ? `${w.slice(0, -1).join(", ")} and ${w[w.length - 1]}` : w.join("");
}

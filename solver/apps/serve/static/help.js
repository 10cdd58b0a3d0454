// @ts-check
// The rules and the hand ranking, one click away (the header's Rules button): written from the
// rule set the server sends (GET /api/rules: rules.js) — its deck, slots and points, and its
// own hand ranking (in classic Quintet a flush ranks below a full house).

import { $ } from "./form.js";
import { el } from "./format.js";
import { pointsWords, ruleSets, rulesNamed } from "./rules.js";

/** The rules of ``rules`` as elements: the deal, arranging, the show-down, the hands (strongest first).
 * @param {import("./rules.js").RuleSet} rules */
export function rulesEls(rules) {
  const slots = rules.weights.length;
  const live = rules.deck.length - rules.n_exposed;
  const list = el("dl", "rules-list");
  for (const [term, text] of [
    ["The deal", `${rules.n_exposed} of the ${rules.deck.length} cards are dealt face up and are out of play; both `
      + `players hold the same other ${live} cards.`],
    ["Arranging", `each player splits them into ${slots} packets of ${rules.hand_size}, laid face down in slots `
      + `1–${slots} worth ${pointsWords(rules)} points.`],
    ["Show-down", "slot by slot the two packets meet as poker hands: the better hand scores the slot's points "
      + "(equal hands: nobody scores, unless the rules share the slot); the higher total wins the game."],
  ]) list.append(el("dt", "", term), el("dd", "", text));
  const ranking = el("ol", "hand-ranking");
  ranking.id = "hand-ranking";
  for (const c of [...rules.categories].reverse()) ranking.append(el("li", "", c));
  return [el("p", "hint", `Rule set: ${rules.description}.`), list,
    el("h3", "", "The hands, strongest first (this rule set's order)"), ranking];
}

export function setupHelp() {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById("rules-dialog"));
  const pick = $("rules-set");
  pick.replaceChildren(...ruleSets.map((r) => {
    const o = el("option", "", r.name);
    o.value = r.name;
    return o;
  }));
  const show = () => $("rules-body").replaceChildren(...rulesEls(rulesNamed(pick.value)));
  pick.addEventListener("change", show);
  $("rules-open").addEventListener("click", () => {
    show();
    dialog.showModal();
  });
  $("rules-close").addEventListener("click", () => dialog.close());
}

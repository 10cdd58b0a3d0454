// @ts-check
// Hand categories: each hand of the API names its ``category`` by a machine name
// ("full_house", "straight_flush": the same in every rule set); the colours the charts give
// each category (with a legend), and the category in words.

// Lowest first, the classic nine and the draw-poker variants.
export const CATEGORIES = [
  "high_card", "pair", "two_pair", "three_of_a_kind", "straight", "colour", "flush", "full_house",
  "four_of_a_kind", "straight_colour", "straight_flush", "five_of_a_kind",
];

export const CATEGORY_COLOURS = {
  high_card: "#c4c4c4",
  pair: "#a6cee3",
  two_pair: "#1f78b4",
  three_of_a_kind: "#b2df8a",
  straight: "#33a02c",
  colour: "#f7e07e",
  flush: "#fdbf6f",
  full_house: "#ff7f00",
  four_of_a_kind: "#e31a1c",
  straight_colour: "#cab2d6",
  straight_flush: "#6a3d9a",
  five_of_a_kind: "#3b2314",
  other: "#7f7f7f",
};

/** The category in words: "full_house" → "full house". */
export function categoryWords(category) {
  return String(category).replaceAll("_", " ");
}

export function categoryColour(category) {
  return CATEGORY_COLOURS[category] || CATEGORY_COLOURS.other;
}

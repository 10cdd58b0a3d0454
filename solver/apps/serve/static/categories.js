// Hand categories: a hand's name as the API writes it ("pair of kings", "four aces", "full
// house, tens over sevens", "straight flush, ace high") → its category, and the colours the
// charts give each category (with a legend).

// Lowest first, the classic nine and the draw-poker variants; the patterns are tried in
// this order of specificity (straight flush before straight, …).
export const CATEGORIES = [
  "high card", "pair", "two pair", "three of a kind", "straight", "colour", "flush", "full house",
  "four of a kind", "straight colour", "straight flush", "five of a kind",
];

const PATTERNS = [
  ["five of a kind", /^five of a kind\b/],
  ["straight colour", /^straight colou?r\b/],
  ["straight flush", /^straight flush\b/],
  ["straight", /^straight\b/],
  ["flush", /^flush\b/],
  ["colour", /^colou?r\b/],
  ["full house", /^full house\b/],
  ["four of a kind", /^(four of a kind\b|four [a-z]+s$|quads\b)/],
  ["three of a kind", /^(three of a kind\b|three [a-z]+s$|trips\b)/],
  ["two pair", /^two pairs?\b/],
  ["pair", /^(one pair\b|pair\b|a pair\b)/],
  ["high card", /^(high card\b|[a-z]+ high$|nothing\b)/],
];

export const CATEGORY_COLOURS = {
  "high card": "#c4c4c4",
  "pair": "#a6cee3",
  "two pair": "#1f78b4",
  "three of a kind": "#b2df8a",
  "straight": "#33a02c",
  "colour": "#f7e07e",
  "flush": "#fdbf6f",
  "full house": "#ff7f00",
  "four of a kind": "#e31a1c",
  "straight colour": "#cab2d6",
  "straight flush": "#6a3d9a",
  "five of a kind": "#3b2314",
  "other": "#7f7f7f",
};

/** The category of a hand's name ("other" for a name no pattern knows). */
export function categoryOf(name) {
  const text = String(name).trim().toLowerCase();
  for (const [category, pattern] of PATTERNS) if (pattern.test(text)) return category;
  return "other";
}

export function categoryColour(category) {
  return CATEGORY_COLOURS[category] || CATEGORY_COLOURS.other;
}

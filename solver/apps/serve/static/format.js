// @ts-check
// Numbers as the page shows them.

/** 0.9944 → "99.4%" (``digits`` decimals). */
export function pct(x, digits = 1) {
  return `${(100 * x).toFixed(digits)}%`;
}

/** 2.9667 → "+2.967". */
export function signed(x, digits = 3) {
  const s = Math.abs(x).toFixed(digits);
  if (Number(s) === 0) return s;
  return x > 0 ? `+${s}` : `−${s}`;
}

/** Seconds: "0.036 s", "28.0 s", "2 min 5 s". */
export function seconds(x) {
  if (x < 1) return `${x.toFixed(3)} s`;
  if (x < 120) return `${x.toFixed(1)} s`;
  return `${Math.floor(x / 60)} min ${Math.round(x % 60)} s`;
}

/** An element with class and text. */
export function el(tag, cls = "", text = "") {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
}

/** The elements matching ``selector`` under ``root`` (the page: all of them).
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]} */
export function all(selector, root = document) {
  return [...root.querySelectorAll(selector)].map((e) => /** @type {HTMLElement} */ (e));
}

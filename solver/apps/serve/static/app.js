// @ts-check
// The page: four tabs (arrangement advisor, draw advisor, play, review and training) and the
// server's health line.  (A script error anywhere is shown at the top of the page: errors.js.)

import { setupAdvisor } from "./advisor.js";
import { call } from "./api.js";
import { setupDraw } from "./draw.js";
import { loadLimits, loadOpponents } from "./form.js";
import { all } from "./format.js";
import { setupHelp } from "./help.js";
import { setupPlay } from "./play.js";
import { setupReview } from "./review.js";
import { loadRules } from "./rules.js";

/** Each tab's address (``#advise``, ``#draw``, ``#review``, ``#play``): a fragment that begins
 * with it opens that tab (an invitation, ``#join/…``, the Play tab). */
const ADDRESSES = { advise: "tab-advisor", draw: "tab-draw", review: "tab-review", play: "tab-play", join: "tab-play" };

/** The tab ``hash`` names (null: none). */
function tabOf(hash) {
  const m = /^#([a-z]+)/.exec(hash);
  return m && Object.hasOwn(ADDRESSES, m[1]) ? ADDRESSES[m[1]] : null;
}

/** The tabs; returns select(tab, focus).  A tab selected takes its address back: the place it
 * was left at (``#play/TABLE/…``, ``#review/GAME``, ``#advise?…``), else its bare name. */
function setupTabs() {
  const tabs = all('[role="tab"]');
  /** @type {Record<string, string>} tab id → the last address of it */
  const left = {};
  const select = (tab, focus = true) => {
    const was = tabOf(location.hash);
    if (was && was !== tab.id) left[was] = location.hash;
    if (tabOf(location.hash) !== tab.id) {
      const name = Object.keys(ADDRESSES).find((k) => ADDRESSES[k] === tab.id);
      history.replaceState(null, "", left[tab.id] || `#${name}`);
    }
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    }
    if (focus) tab.focus();
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (step) {
        e.preventDefault();
        select(tabs[(i + step + tabs.length) % tabs.length]);
      }
    });
  });
  const fromAddress = () => {
    const id = tabOf(location.hash);
    if (id) select(document.getElementById(id), false);
  };
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
  return select;
}

/** The health line; on a play-only server, the Play tab alone (``select``: the tabs' select). */
async function showHealth(select) {
  try {
    const { data } = await call("GET", "/api/health");
    document.getElementById("health").textContent =
      `v${data.version} · ${data.workers_ready} of ${data.workers} workers ready${data.solver ? "" : " · play only"}`;
    if (!data.solver && !document.body.dataset.playOnly) {
      document.body.dataset.playOnly = "true";
      document.querySelector("h1").textContent = "Quintet"; // the site's name: no advisor here
      if (!location.hash.startsWith("#play")) document.title = "Quintet";
      // a play-only server (quintet-serve --play-only): the solver's tabs (a review solves) would answer 403
      for (const id of ["tab-advisor", "tab-draw", "tab-review"]) document.getElementById(id).hidden = true;
      select(document.getElementById("tab-play"), false);
    }
    if (data.workers_ready < data.workers) setTimeout(() => showHealth(select), 1000);
  } catch (e) {
    document.getElementById("health").textContent = e.message;
  }
}

async function start() {
  const select = setupTabs();
  try {
    await Promise.all([loadLimits(), loadOpponents(), loadRules()]); // the server's ranges, models and rules, before any tab reads them
  } catch (e) {
    document.getElementById("health").textContent = `cannot start: ${e.message}`;
    return;
  }
  setupHelp();
  setupAdvisor();
  try {
    setupDraw();
  } catch (e) {
    document.getElementById("draw-error").hidden = false;
    document.getElementById("draw-error").textContent = e.message;
  }
  setupPlay({ select: () => select(document.getElementById("tab-play"), false) });
  setupReview({ select: () => select(document.getElementById("tab-review"), false) });
  showHealth(select);
  document.body.dataset.ready = "true";
}

start();

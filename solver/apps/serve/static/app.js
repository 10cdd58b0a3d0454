// @ts-check
// The page: four tabs (arrangement advisor, draw advisor, play, review and training) and the
// server's health line.  (A script error anywhere is shown at the top of the page: errors.js.)

import { setupAdvisor } from "./advisor.js";
import { call } from "./api.js";
import { setupDraw } from "./draw.js";
import { loadLimits, loadOpponents } from "./form.js";
import { all } from "./format.js";
import { setupPlay } from "./play.js";
import { setupReview } from "./review.js";
import { loadRules } from "./rules.js";

/** The tabs; returns select(tab). */
function setupTabs() {
  const tabs = all('[role="tab"]');
  const select = (tab, focus = true) => {
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
  setupAdvisor();
  try {
    setupDraw();
  } catch (e) {
    document.getElementById("draw-error").hidden = false;
    document.getElementById("draw-error").textContent = e.message;
  }
  setupPlay({ select: () => select(document.getElementById("tab-play"), false) });
  setupReview();
  showHealth(select);
  document.body.dataset.ready = "true";
}

start();

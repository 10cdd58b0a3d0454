// The page: two tabs (arrangement advisor, draw advisor) and the server's health line.

import { setupAdvisor } from "./advisor.js";
import { call } from "./api.js";
import { setupDraw } from "./draw.js";

function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const select = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    }
    tab.focus();
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
}

async function showHealth() {
  try {
    const { data } = await call("GET", "/api/health");
    document.getElementById("health").textContent =
      `v${data.version} · ${data.workers_ready} of ${data.workers} workers ready`;
    if (data.workers_ready < data.workers) setTimeout(showHealth, 1000);
  } catch (e) {
    document.getElementById("health").textContent = e.message;
  }
}

setupTabs();
setupAdvisor();
setupDraw().catch((e) => {
  document.getElementById("draw-error").hidden = false;
  document.getElementById("draw-error").textContent = e.message;
});
showHealth();
document.body.dataset.ready = "true";

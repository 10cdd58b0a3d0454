// @ts-check
// A script error the page did not handle — in any module, or a module that failed to load — is
// said at the top of the page, never swallowed.  A classic script, loaded before the modules,
// so that it is listening even when they fail.
"use strict";

(() => {
  const show = (error) => {
    let box = document.getElementById("page-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "page-error";
      box.className = "error page-error";
      box.setAttribute("role", "alert");
      document.body.prepend(box);
    }
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    box.textContent = `Something went wrong on this page (${text}). Reload it; if this happens again, please `
      + "report it with what you did.";
    box.hidden = false;
  };
  window.addEventListener("error", (event) => show(event.error || event.message));
  window.addEventListener("unhandledrejection", (event) => show(event.reason));
})();

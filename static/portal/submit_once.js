// A form posted once: a second press of its button while the first post is on its way is
// ignored (a double click on "Create evaluation" 50 ms apart created two evaluations; on
// "Create token" two tokens). Forms that send by script (the questionnaire, the upload page,
// htmx) cancel the browser's submission themselves and are left alone. The guard lifts when
// the page is shown again from the history (the back button) and after a while, for a post
// that answers with a download instead of a new page.
(function () {
  "use strict";

  var RELEASE_MS = 15000;

  function release(form) {
    delete form.dataset.submitting;
    form.removeAttribute("aria-busy");
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement)) return;
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    if (form.dataset.submitting) {
      event.preventDefault();
      return;
    }
    form.dataset.submitting = "1";
    form.setAttribute("aria-busy", "true");
    window.setTimeout(function () { release(form); }, RELEASE_MS);
  });

  window.addEventListener("pageshow", function () {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-submitting]"), release);
  });
})();

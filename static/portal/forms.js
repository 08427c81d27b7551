// The portal's page forms, two guards.
//
// Posted once: a second press of a form's button while the first post is on its way is ignored
// (a double click on "Create evaluation" 50 ms apart created two evaluations; on "Create token"
// two tokens). Forms that send by script (the questionnaire, the upload page, htmx) cancel the
// browser's submission themselves and are left alone. The guard lifts when the page is shown
// again from the history (the back button) and after a while, for a post that answers with a
// download instead of a new page.
//
// Nothing typed is left without a word: leaving a page whose form holds input not yet posted
// (a link, the language switcher, closing the tab) asks first, as the questionnaire does. A form
// the server gave back with errors holds input not saved either. Forms marked
// data-unsaved-guard="off" (the language switcher, the pages with their own guard) are left out.
(function () {
  "use strict";

  var RELEASE_MS = 15000;

  function isPost(form) {
    return (form.getAttribute("method") || "get").toLowerCase() === "post";
  }

  function guarded(form) {
    return form instanceof HTMLFormElement && isPost(form) && form.dataset.unsavedGuard !== "off";
  }

  function release(form) {
    delete form.dataset.submitting;
    form.removeAttribute("aria-busy");
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || !isPost(form)) return;
    if (form.dataset.submitting) {
      event.preventDefault();
      return;
    }
    form.dataset.submitting = "1";
    form.setAttribute("aria-busy", "true");
    delete form.dataset.unsaved;
    window.setTimeout(function () { release(form); }, RELEASE_MS);
  });

  function edited(event) {
    var form = event.target && event.target.form;
    if (form && guarded(form) && event.target.type !== "hidden") form.dataset.unsaved = "1";
  }
  document.addEventListener("input", edited);
  document.addEventListener("change", edited);

  function markRefused() {
    Array.prototype.forEach.call(document.querySelectorAll("form"), function (form) {
      if (guarded(form) && form.querySelector(".errorlist, .field-error, .has-error")) {
        form.dataset.unsaved = "1";
      }
    });
  }
  // A page that creates a row carries a key (forms.sent_once_field), put in its input from
  // here: a browser that fetches the page again on the way back puts back what the page changed
  // in its inputs, so the key that goes with the typed input comes back with it, and the server
  // answers a second press with what the first one made. An input already holding a key (put
  // back) keeps it.
  function keepSentOnceKeys() {
    Array.prototype.forEach.call(document.querySelectorAll("input[data-sent-once]"), function (input) {
      if (!input.value) input.value = input.dataset.sentOnce;
    });
  }

  function loaded() {
    markRefused();
    keepSentOnceKeys();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", loaded);
  else loaded();

  window.addEventListener("beforeunload", function (event) {
    var pending = Array.prototype.some.call(document.querySelectorAll("form[data-unsaved]"), function (form) {
      return !form.dataset.submitting;
    });
    if (!pending) return;
    event.preventDefault();
    event.returnValue = "";
  });

  window.addEventListener("pageshow", function () {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-submitting]"), release);
  });
})();

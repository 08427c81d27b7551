/* Polls a queued or rendering report PDF until it is ready or failed, replacing the status;
   once it has settled, the "being made" message (.pdf-pending) goes. */
(function () {
  "use strict";
  function settle() {
    document.querySelectorAll(".messages .pdf-pending").forEach(function (note) {
      var list = note.parentElement;
      note.remove();
      if (list && !list.children.length) list.remove();
    });
  }
  function poll(el) {
    var url = el.getAttribute("data-poll");
    if (!url) {
      settle();
      return;
    }
    window.setTimeout(function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          var box = document.createElement("div");
          box.innerHTML = html.trim();
          var next = box.firstElementChild;
          if (!next) return;
          el.replaceWith(next);
          poll(next);
        })
        .catch(function () { poll(el); });
    }, 1000);
  }
  document.addEventListener("DOMContentLoaded", function () {
    // A PDF already settled when the page loaded (a fast worker) is not polled: settle now.
    document.querySelectorAll(".pdf-status").forEach(poll);
  });
})();

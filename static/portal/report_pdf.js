/* Polls a queued or rendering report PDF until it is ready or failed, replacing the status. */
(function () {
  "use strict";
  function poll(el) {
    var url = el.getAttribute("data-poll");
    if (!url) return;
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
    document.querySelectorAll(".pdf-status[data-poll]").forEach(poll);
  });
})();

// Questionnaire: the ten items are one form. Edits are autosaved as drafts (without files) a
// moment after typing stops; "Save all" sends everything with the attachments and reloads the
// page; leaving with unsaved input asks first. The n/10 count follows the inputs as they change.
(function () {
  "use strict";

  var AUTOSAVE_DELAY_MS = 1500;
  var gettext = window.gettext || function (s) { return s; };
  var interpolate = window.interpolate || function (s) { return s; };

  function start() {
    var form = document.getElementById("questionnaire");
    if (!form) return;
    var progress = document.getElementById("progress");
    var state = document.getElementById("save-state");
    var saveAll = document.getElementById("save-all");
    var edits = 0; // edits made since the last successful save
    var timer = null;
    var sending = false;

    function pendingFiles() {
      return Array.prototype.some.call(form.querySelectorAll("input[type=file]"), function (input) {
        return input.files && input.files.length > 0;
      });
    }

    function dirty() { return edits > 0 || pendingFiles(); }

    function setState(text, kind) {
      state.textContent = text;
      state.className = "save-state" + (kind ? " " + kind : "");
    }

    function showProgress(answered, total) {
      progress.textContent = interpolate(gettext("%(answered)s/%(total)s answered"), { answered: answered, total: total }, true);
    }

    function countAnswered() {
      var answered = 0;
      Array.prototype.forEach.call(form.querySelectorAll("[data-claim]"), function (input) {
        if (input.value && input.value.trim() !== "") answered += 1;
      });
      showProgress(answered, progress.dataset.total);
    }

    function clearErrors() {
      Array.prototype.forEach.call(form.querySelectorAll("[data-errors-for]"), function (box) {
        box.textContent = "";
        if (box.classList.contains("item-errors")) box.hidden = true;
      });
    }

    function showErrors(errors) {
      clearErrors();
      Object.keys(errors).forEach(function (name) {
        var box = form.querySelector('[data-errors-for="' + name + '"]');
        if (!box) box = form.querySelector('[data-errors-for="' + name.replace(/-[a-z]+$/, "") + '"]');
        if (!box) return;
        box.hidden = false;
        errors[name].forEach(function (message) {
          var span = document.createElement("span");
          span.className = "field-error";
          span.setAttribute("role", "alert");
          span.textContent = message;
          box.appendChild(span);
        });
      });
      var first = form.querySelector(".field-error");
      if (first) first.scrollIntoView({ block: "center" });
    }

    function send(withFiles) {
      var data = new FormData(form);
      if (!withFiles) {
        Array.prototype.forEach.call(form.querySelectorAll("input[type=file]"), function (input) {
          data.delete(input.name);
        });
        data.append("autosave", "1");
      }
      var sentEdits = edits;
      sending = true;
      setState(gettext("Saving…"), "busy");
      return fetch(form.action, {
        method: "POST",
        body: data,
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      }).then(function (response) {
        return response.json().then(function (body) {
          sending = false;
          if (response.ok && body.saved) {
            edits -= sentEdits;
            clearErrors();
            showProgress(body.answered, body.total);
            var time = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
            setState(interpolate(gettext("Draft saved at %s"), [time]), "ok");
            return true;
          }
          showErrors(body.errors || {});
          setState(gettext("Not saved: correct the marked fields."), "bad");
          return false;
        });
      }).catch(function () {
        sending = false;
        setState(gettext("Not saved: the connection failed. Your input is still here."), "bad");
        return false;
      });
    }

    function schedule() {
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        if (sending) { schedule(); return; }
        if (edits > 0) send(false);
      }, AUTOSAVE_DELAY_MS);
    }

    function edited(event) {
      if (event.target.type === "file") {
        setState(gettext("Attachment chosen: press “Save all” to keep it."), "busy");
        return;
      }
      edits += 1;
      countAnswered();
      setState(gettext("Unsaved changes"), "busy");
      schedule();
    }

    form.addEventListener("input", edited);
    form.addEventListener("change", function (event) {
      if (event.target.type === "file" || event.target.tagName === "SELECT") edited(event);
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!form.reportValidity()) return;
      window.clearTimeout(timer);
      saveAll.disabled = true;
      send(true).then(function (ok) {
        saveAll.disabled = false;
        if (!ok) return;
        edits = 0;
        Array.prototype.forEach.call(form.querySelectorAll("input[type=file]"), function (input) {
          input.value = "";
        });
        window.location.assign(form.action);
      });
    });

    window.addEventListener("beforeunload", function (event) {
      if (!dirty()) return;
      event.preventDefault();
      event.returnValue = "";
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

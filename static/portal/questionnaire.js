// Questionnaire: the ten items are one form. Edits are autosaved as drafts (without files) a
// moment after typing stops, every item that passes its checks even when another is refused;
// "Save all" sends everything with the attachments and reloads the page; leaving with unsaved
// input asks first. The n/10 count follows the inputs as they change;
// an item contradicted by the evidence or a review is counted apart, never as answered.
//
// Nothing typed is lost: every unsaved edit is also kept in this browser's localStorage (per
// user and candidate) until a save succeeds, and offered back on the next visit. A save whose
// session ended gets the server's JSON 401/403 and says so; the CSRF token is read from the
// cookie at each send, so signing in again in another tab is enough. Each item carries the
// version it was loaded at: an item someone else changed meanwhile is not saved and shows both
// sides until the user keeps theirs or takes the other.
(function () {
  "use strict";

  var AUTOSAVE_DELAY_MS = 1500;
  var gettext = window.gettext || function (s) { return s; };
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (s) { return s; };

  function cookie(name) {
    var found = null;
    document.cookie.split(";").forEach(function (part) {
      var pair = part.trim().split("=");
      if (pair[0] === name) found = decodeURIComponent(pair.slice(1).join("="));
    });
    return found;
  }

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }

  // Times are written in the page's language (<html lang>), not the browser's: a Chinese
  // page read in an English browser showed "01:45 PM".
  function pageLocale() {
    var lang = document.documentElement.lang;
    try {
      return lang ? [Intl.DateTimeFormat.supportedLocalesOf([lang])[0] || lang] : [];
    } catch (e) {
      return [];
    }
  }

  // The time of a save as the server writes times (questionnaire.html's data-time-zone, the
  // portal's zone, named): a conflict beside it says when the other save was made in that
  // zone, and the browser's own clock read 19:28 beside "11:28 UTC".
  // A 24-hour clock in every language, as the server writes its times: "01:36 PM UTC" stood
  // beside a conflict written "13:36 UTC" for the same save.
  function clock(date, zone) {
    var options = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    try {
      if (!zone) return date.toLocaleTimeString(pageLocale(), options);
      options.timeZone = zone;
      var time = date.toLocaleTimeString(pageLocale(), options);
      // The zone after the time, as the pages write it ("11:28 UTC"; Chinese put it first).
      var named = new Intl.DateTimeFormat(pageLocale(), { timeZone: zone, timeZoneName: "short" })
        .formatToParts(date)
        .filter(function (part) { return part.type === "timeZoneName"; });
      return named.length ? time + " " + named[0].value : time;
    } catch (e) {
      return date.toLocaleTimeString(pageLocale(), { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    }
  }

  function start() {
    var form = document.getElementById("questionnaire");
    if (!form) return;
    var progress = document.getElementById("progress");
    var state = document.getElementById("save-state");
    var saveAll = document.getElementById("save-all");
    var draftKey = form.dataset.draftKey;
    var csrfCookie = form.dataset.csrfCookie || "csrftoken";
    var edits = 0; // edits made since the last successful save
    var conflicted = {}; // item prefix -> true while the user has not chosen a side
    var timer = null;
    var sending = false;

    function fields() {
      return Array.prototype.filter.call(form.elements, function (el) {
        return el.name && el.name.indexOf("item-") === 0 && el.type !== "file";
      });
    }

    function values() {
      var out = {};
      fields().forEach(function (el) { out[el.name] = el.value; });
      return out;
    }

    function setValue(name, value) {
      var el = form.elements.namedItem(name);
      if (el && el.type !== "file") el.value = value;
    }

    var loaded = values(); // the page as the server rendered it

    function pendingFiles() {
      return Array.prototype.some.call(form.querySelectorAll("input[type=file]"), function (input) {
        return input.files && input.files.length > 0;
      });
    }

    function conflicts() { return Object.keys(conflicted).length; }

    function dirty() { return edits > 0 || conflicts() > 0 || pendingFiles(); }

    function keep() {
      var store = storage();
      if (!store || !draftKey) return;
      try {
        if (edits > 0 || conflicts() > 0) {
          store.setItem(draftKey, JSON.stringify({ at: Date.now(), inputs: values() }));
        } else {
          store.removeItem(draftKey);
        }
      } catch (e) { /* full or disabled storage: the page still holds the input */ }
    }

    function setState(text, kind) {
      state.textContent = text;
      state.className = "save-state" + (kind ? " " + kind : "");
    }

    // The count the server gives (selectors.questionnaire_progress): an item contradicted by
    // the evidence or a review is not done, whatever its claim says; it is counted apart.
    function showProgress(answered, total, contradicted) {
      progress.textContent = interpolate(gettext("%(answered)s/%(total)s answered"), { answered: answered, total: total }, true);
      if (contradicted > 0) {
        progress.appendChild(document.createTextNode(" · "));
        progress.appendChild(element("span", "progress-contradicted", interpolate(ngettext(
          "%(n)s contradicted by the evidence or a review: take it up with the vendor",
          "%(n)s contradicted by the evidence or a review: take them up with the vendor",
          contradicted), { n: contradicted }, true)));
      }
    }

    function countAnswered() {
      var answered = 0;
      var contradicted = 0;
      Array.prototype.forEach.call(form.querySelectorAll("fieldset[data-item]"), function (entry) {
        var input = entry.querySelector("[data-claim]");
        if (entry.dataset.status === "contradicted") contradicted += 1;
        else if (input && input.value && input.value.trim() !== "") answered += 1;
      });
      showProgress(answered, progress.dataset.total, contradicted);
    }

    // Statuses after a save (a review stops applying once its answer changes): the badges and
    // the count follow them.
    function showStatuses(statuses) {
      Object.keys(statuses || {}).forEach(function (prefix) {
        var entry = form.querySelector("#entry-" + prefix.replace("item-", ""));
        if (!entry) return;
        var status = statuses[prefix];
        entry.dataset.status = status.status;
        var badge = entry.querySelector(".answer-status");
        if (badge) {
          badge.className = "cell answer-status status-" + status.status;
          badge.textContent = status.label;
        }
      });
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

    function element(tag, className, text) {
      var el = document.createElement(tag);
      if (className) el.className = className;
      if (text !== undefined) el.textContent = text;
      return el;
    }

    function removeConflictBox(prefix) {
      var box = form.querySelector('[data-conflict-for="' + prefix + '"]');
      if (box) box.parentNode.removeChild(box);
    }

    function showConflict(prefix, conflict) {
      conflicted[prefix] = true;
      removeConflictBox(prefix);
      var entry = form.querySelector("#entry-" + prefix.replace("item-", ""));
      if (!entry) return;
      var box = element("div", "conflict");
      box.setAttribute("role", "alert");
      box.dataset.conflictFor = prefix;
      box.appendChild(element("p", "", conflict.message));
      var theirs = element("p", "");
      theirs.appendChild(document.createTextNode(gettext("Stored now:") + " "));
      theirs.appendChild(element("q", "theirs-claim", conflict.claim || "—"));
      if (conflict.notes) {
        theirs.appendChild(document.createTextNode(" · " + gettext("Notes:") + " "));
        theirs.appendChild(element("q", "theirs-notes", conflict.notes));
      }
      box.appendChild(theirs);
      box.appendChild(element("p", "hint", gettext("Yours is still in the fields below.")));
      var mine = element("button", "keep-mine", gettext("Keep mine"));
      mine.type = "button";
      mine.addEventListener("click", function () {
        // The user has seen the stored answer: saving on its version replaces it.
        setValue(prefix + "-version", conflict.version);
        resolved(prefix);
        edits += 1;
        keep();
        schedule();
      });
      var other = element("button", "take-theirs", gettext("Take theirs"));
      other.type = "button";
      other.addEventListener("click", function () {
        Object.keys(conflict.inputs).forEach(function (name) {
          setValue(name, conflict.inputs[name]);
          loaded[name] = conflict.inputs[name];
        });
        resolved(prefix);
        countAnswered();
        keep();
        if (!dirty()) setState(gettext("Stored answer taken."), "ok");
      });
      var actions = element("p", "actions");
      actions.appendChild(mine);
      actions.appendChild(document.createTextNode(" "));
      actions.appendChild(other);
      box.appendChild(actions);
      var legend = entry.querySelector("legend");
      entry.insertBefore(box, legend ? legend.nextSibling : entry.firstChild);
    }

    function resolved(prefix) {
      delete conflicted[prefix];
      removeConflictBox(prefix);
    }

    // The server's word on each item after a save: versions of what it stored, inputs of
    // items someone else changed that this page had left as loaded.
    function applyOutcome(body, sent) {
      var refreshed = body.refreshed || {};
      Object.keys(body.versions || {}).forEach(function (prefix) {
        var inputs = refreshed[prefix];
        if (inputs) {
          var untouched = Object.keys(inputs).every(function (name) {
            return !(name in sent) || values()[name] === sent[name];
          });
          // Typed into meanwhile: keep the old version, so that the next save asks.
          if (!untouched) return;
          Object.keys(inputs).forEach(function (name) {
            setValue(name, inputs[name]);
            loaded[name] = inputs[name];
          });
        }
        setValue(prefix + "-version", body.versions[prefix]);
        resolved(prefix);
      });
      Object.keys(body.conflicts || {}).forEach(function (prefix) {
        showConflict(prefix, body.conflicts[prefix]);
      });
      countAnswered();
    }

    function readJson(response) {
      var type = response.headers.get("Content-Type") || "";
      if (type.indexOf("application/json") === -1) return Promise.resolve(null);
      return response.json().catch(function () { return null; });
    }

    function send(withFiles) {
      var data = new FormData(form);
      if (!withFiles) {
        Array.prototype.forEach.call(form.querySelectorAll("input[type=file]"), function (input) {
          data.delete(input.name);
        });
        data.append("autosave", "1");
      }
      // The token of the page may be stale (a sign-in in another tab rotates it): the cookie's
      // is the current one, and Django reads the form field first.
      data.delete("csrfmiddlewaretoken");
      var sent = values();
      var sentEdits = edits;
      sending = true;
      setState(gettext("Saving…"), "busy");
      return fetch(form.action, {
        method: "POST",
        body: data,
        headers: { Accept: "application/json", "X-CSRFToken": cookie(csrfCookie) || "" },
        credentials: "same-origin",
      }).then(function (response) {
        return readJson(response).then(function (body) {
          sending = false;
          if (!body && response.status === 413) {
            setState(gettext("Not saved: the chosen files are too large to send in one save. Save them in turns; your input is still here."), "bad");
            return false;
          }
          if (!body) {
            setState(gettext("Not saved: the server did not answer as expected. Your input is kept in this browser; press Save again."), "bad");
            return false;
          }
          if (response.status === 401 || response.status === 403) {
            setState(body.detail || gettext("Your session ended: sign in in another tab, then press Save again."), "bad");
            return false;
          }
          // A draft save whose marked items were refused saved the others (body.partial): their
          // versions are taken, the refused ones stay unsaved here and in the kept copy.
          var partial = response.status === 422 && body.partial;
          if (response.status === 200 || response.status === 409 || partial) {
            if (!partial) edits = Math.max(0, edits - sentEdits);
            clearErrors();
            showStatuses(body.statuses);
            applyOutcome(body, sent);
            showProgress(body.answered, body.total, body.contradicted || 0);
            keep();
          }
          if (partial) {
            showErrors(body.errors || {});
            setState(gettext("Saved, except the marked fields: correct them to save them too."), "bad");
            return false;
          }
          if (response.ok && body.saved) {
            var time = clock(new Date(), form.dataset.timeZone);
            setState(interpolate(gettext("Draft saved at %s"), [time]), "ok");
            return true;
          }
          if (response.status === 409 && conflicts() > 0) {
            setState(gettext("Saved, except the items someone else changed meanwhile: choose for each."), "bad");
            var first = form.querySelector(".conflict");
            if (first) first.scrollIntoView({ block: "center" });
            return false;
          }
          showErrors(body.errors || {});
          setState(body.detail || gettext("Not saved: correct the marked fields."), "bad");
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
      keep();
      countAnswered();
      setState(gettext("Unsaved changes"), "busy");
      schedule();
    }

    // Input kept by an earlier visit whose save never arrived: put it back, say so, and let
    // the user discard it. Its versions come back too, so a save over a newer answer asks.
    function restore() {
      var store = storage();
      if (!store || !draftKey) return;
      var kept;
      try { kept = JSON.parse(store.getItem(draftKey) || "null"); } catch (e) { kept = null; }
      if (!kept || !kept.inputs) return;
      var changed = Object.keys(kept.inputs).filter(function (name) {
        return !/-version$/.test(name) && name in loaded && loaded[name] !== kept.inputs[name];
      });
      if (changed.length === 0) {
        store.removeItem(draftKey);
        return;
      }
      Object.keys(kept.inputs).forEach(function (name) {
        if (name in loaded) setValue(name, kept.inputs[name]);
      });
      edits = changed.length;
      countAnswered();
      var notice = element("div", "notice restored");
      notice.id = "restored-notice";
      notice.setAttribute("role", "status");
      var time = new Date(kept.at).toLocaleString(pageLocale(), {
        dateStyle: "short",
        timeStyle: "short",
      });
      notice.appendChild(element("span", "", interpolate(
        gettext("Unsaved input from %(time)s was kept in this browser and is back in the form: press “Save all” to save it."),
        { time: time }, true)));
      notice.appendChild(document.createTextNode(" "));
      var discard = element("button", "discard", gettext("Discard it"));
      discard.type = "button";
      discard.addEventListener("click", function () {
        window.clearTimeout(timer);
        Object.keys(loaded).forEach(function (name) { setValue(name, loaded[name]); });
        edits = 0;
        Object.keys(conflicted).forEach(resolved);
        store.removeItem(draftKey);
        countAnswered();
        notice.parentNode.removeChild(notice);
        setState(gettext("Kept input discarded."), "ok");
      });
      notice.appendChild(discard);
      form.parentNode.insertBefore(notice, form);
      setState(gettext("Unsaved changes"), "busy");
    }

    form.addEventListener("input", edited);
    form.addEventListener("change", function (event) {
      if (event.target.type === "file" || event.target.tagName === "SELECT") edited(event);
    });

    function mib(bytes) { return (bytes / 1048576).toFixed(1); }

    // A file whose name is not of a type the portal keeps (the input's accept list, which a
    // file chooser's "All files" passes by) is refused here, as the server would refuse it
    // after sending it; the server still checks the content.
    function typeRefused(input, file) {
      var accepted = (input.getAttribute("accept") || "").split(",").filter(Boolean);
      if (accepted.length === 0) return false;
      var dot = file.name.lastIndexOf(".");
      var extension = dot >= 0 ? file.name.slice(dot).toLowerCase() : "";
      return accepted.indexOf(extension) < 0;
    }

    // Files refused here, before minutes of sending: one of a type the portal does not keep,
    // one above the limit of an attachment, or several that together pass what one save may
    // send (the server, or the proxy in front of it with its own 413, would refuse the whole
    // save after the upload).
    function filesRefused() {
      var max = parseInt(form.dataset.maxAttachmentBytes || "0", 10);
      var errors = {};
      var total = 0;
      var wrongType = false;
      Array.prototype.forEach.call(form.querySelectorAll("input[type=file]"), function (input) {
        Array.prototype.forEach.call(input.files || [], function (file) {
          total += file.size;
          if (typeRefused(input, file)) {
            wrongType = true;
            errors[input.name] = [interpolate(
              gettext("“%(name)s” cannot be attached: the portal keeps %(types)s."),
              { name: file.name, types: form.dataset.attachmentTypes || "" }, true)];
          } else if (max && file.size > max) {
            errors[input.name] = [interpolate(
              gettext("This file is %(size)s MiB; an attachment may be at most %(max)s MiB."),
              { size: mib(file.size), max: mib(max) }, true)];
          }
        });
      });
      if (Object.keys(errors).length > 0) {
        showErrors(errors);
        setState(wrongType
          ? gettext("Not saved: a chosen file is of a type the portal does not keep. Your input is still here.")
          : gettext("Not saved: a chosen file is too large. Your input is still here."), "bad");
        return true;
      }
      if (max && total > max) {
        clearErrors();
        setState(interpolate(
          gettext("Not saved: the chosen files come to %(size)s MiB together, and one save sends at most %(max)s MiB. Save them in turns; your input is still here."),
          { size: mib(total), max: mib(max) }, true), "bad");
        return true;
      }
      return false;
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!form.reportValidity()) return;
      if (filesRefused()) return;
      window.clearTimeout(timer);
      saveAll.disabled = true;
      send(true).then(function (ok) {
        saveAll.disabled = false;
        if (!ok) return;
        edits = 0;
        keep();
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

    restore();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

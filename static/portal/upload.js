// Evidence upload page: drag and drop, one XHR per file with a progress bar, then the upload
// list (polled by htmx while imports run) is refreshed. Works as a plain form without JS.
(function () {
  "use strict";

  // The cookie's token first: signing in again in another tab (after the session ended)
  // rotates it, and the page's copy would then be refused.
  function csrfToken(form) {
    var name = form.dataset.csrfCookie || "csrftoken";
    var found = null;
    document.cookie.split(";").forEach(function (part) {
      var pair = part.trim().split("=");
      if (pair[0] === name) found = decodeURIComponent(pair.slice(1).join("="));
    });
    if (found) return found;
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function refreshList(form) {
    if (window.htmx) {
      window.htmx.ajax("GET", form.dataset.listUrl, { target: "#upload-list", swap: "outerHTML" });
    }
  }

  var gettext = window.gettext || function (s) { return s; };
  var interpolate = window.interpolate || function (s) { return s; };
  var POLL_MS = 1500;
  var POLL_LIMIT = 400; // ten minutes: after that the list below keeps following it

  function isFinal(status) { return status === "done" || status === "failed"; }

  function describeErrors(body) {
    return Object.keys(body).map(function (key) {
      var value = body[key];
      return Array.isArray(value) ? value.join(" ") : String(value);
    }).join(" ");
  }

  // Names in a sentence as the page's language lists them, as the server's join_list "names":
  // "nccl-tests, ibstat" in English, "nccl-tests、ibstat" in Chinese (", " read as English
  // on a Chinese page). Intl.ListFormat's narrow conjunction is exactly that; without it (or
  // for a language it does not know), the separator of the page's catalogue.
  function listNames(names) {
    var lang = document.documentElement.lang || "en";
    if (window.Intl && Intl.ListFormat) {
      try {
        return new Intl.ListFormat(lang, { type: "conjunction", style: "narrow" }).format(names);
      } catch (e) {
        // a RangeError for a language tag it cannot read: the catalogue's separator below
      }
    }
    var pgettext = window.pgettext || function (context, s) { return s; };
    return names.join(pgettext("between names in a sentence", ", "));
  }

  function kinds(body) {
    if (body.kinds_display) return listNames(body.kinds_display);
    var seen = [];
    (body.report || []).forEach(function (r) {
      if (r.ok && r.kind && seen.indexOf(r.kind) < 0) seen.push(r.kind);
    });
    return listNames(seen);
  }

  // One line per file, in the same words as the table below: queued, importing, done with the
  // kinds found, failed with the reason. Never green before the import succeeded.
  function show(item, message, body) {
    var text;
    var kind = "pending";
    if (body.status === "done") {
      kind = "ok";
      text = interpolate(gettext("imported: %(kinds)s"), { kinds: kinds(body) || "—" }, true);
    } else if (body.status === "failed") {
      kind = "bad";
      text = interpolate(gettext("failed: %(reason)s"), { reason: body.error_display || body.error || "" }, true);
    } else if (body.status === "processing") {
      text = gettext("importing…");
    } else {
      text = gettext("queued: waiting for the importer");
    }
    if (body.duplicate) {
      if (body.status === "failed") {
        text = interpolate(
          gettext("already received, and its import failed: %(reason)s Retract it in the list below to upload it again."),
          { reason: body.error_display || body.error || "" }, true);
      } else if (body.node_name && body.node_name !== item.dataset.node) {
        // Received before under another node's name than the one sent now (or sent for no
        // node): a bundle, which names its node itself, or a file sent now for no node. The
        // same plain file sent for another node is that node's own upload, never answered so.
        text = interpolate(
          gettext("already received earlier for node %(first)s, as upload %(id)s (%(status)s)"),
          { first: body.node_name, id: body.id, status: text }, true);
      } else {
        text = interpolate(gettext("already received earlier (%(status)s)"), { status: text }, true);
      }
    }
    item.className = kind;
    item.dataset.status = body.status || "";
    message.textContent = " " + text;
  }

  function follow(form, item, message, body, resolve) {
    var polls = 0;
    function poll() {
      polls += 1;
      fetch(body.status_url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (current) {
          if (current) show(item, message, current);
          if (current && isFinal(current.status)) { refreshList(form); resolve(); return; }
          if (polls === 1) resolve(); // the next file need not wait for this import
          if (polls < POLL_LIMIT) window.setTimeout(poll, POLL_MS);
        })
        .catch(function () { if (polls < POLL_LIMIT) window.setTimeout(poll, POLL_MS); });
    }
    window.setTimeout(poll, POLL_MS);
  }

  function uploadOne(form, file) {
    var list = document.getElementById("upload-progress");
    var item = document.createElement("li");
    var label = document.createElement("span");
    var bar = document.createElement("progress");
    var message = document.createElement("span");
    label.textContent = file.name + " ";
    bar.max = 100;
    bar.value = 0;
    message.className = "message";
    item.append(label, bar, message);
    list.appendChild(item);

    var data = new FormData();
    data.append("file", file);
    data.append("candidate", form.dataset.candidate);
    var node = form.querySelector("input[name=node_name]");
    if (node && node.value) data.append("node_name", node.value);
    item.dataset.node = node ? node.value.trim() : "";

    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.dataset.endpoint);
      xhr.setRequestHeader("X-CSRFToken", csrfToken(form));
      xhr.upload.addEventListener("progress", function (event) {
        if (event.lengthComputable) bar.value = Math.round((event.loaded / event.total) * 100);
      });
      xhr.addEventListener("load", function () {
        var body = {};
        try { body = JSON.parse(xhr.responseText); } catch (e) { body = {}; }
        bar.value = 100;
        if (xhr.status === 202 || xhr.status === 200) {
          show(item, message, body);
          if (body.duplicate || isFinal(body.status)) { resolve(); return; }
          follow(form, item, message, body, resolve);
        } else if (xhr.status === 401) {
          // Said as the questionnaire says it, not as the API's "send an upload token".
          item.className = "bad";
          message.textContent = " " + gettext("not sent: your session ended. Sign in again in another tab, then upload this file again here.");
          resolve();
        } else {
          item.className = "bad";
          var detail = body.detail || describeErrors(body);
          message.textContent = " " + interpolate(gettext("refused (%(code)s): %(detail)s"), { code: xhr.status, detail: detail }, true);
          resolve();
        }
      });
      xhr.addEventListener("error", function () {
        item.className = "bad";
        message.textContent = " " + gettext("network error: the file was not sent");
        resolve();
      });
      xhr.send(data);
    });
  }

  function uploadAll(form, files) {
    var chain = Promise.resolve();
    Array.prototype.forEach.call(files, function (file) {
      chain = chain.then(function () { return uploadOne(form, file); });
    });
    chain.then(function () { refreshList(form); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("upload-form");
    if (!form) return;
    var input = form.querySelector("input[type=file]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (input.files.length) uploadAll(form, input.files);
      input.value = "";
    });
    ["dragenter", "dragover"].forEach(function (name) {
      form.addEventListener(name, function (event) {
        event.preventDefault();
        form.classList.add("dragging");
      });
    });
    ["dragleave", "drop"].forEach(function (name) {
      form.addEventListener(name, function () { form.classList.remove("dragging"); });
    });
    form.addEventListener("drop", function (event) {
      event.preventDefault();
      if (event.dataTransfer && event.dataTransfer.files.length) uploadAll(form, event.dataTransfer.files);
    });
  });
})();

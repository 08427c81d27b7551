// Evidence upload page: drag and drop, one XHR per file with a progress bar, then the upload
// list (polled by htmx while imports run) is refreshed. Works as a plain form without JS.
(function () {
  "use strict";

  function csrfToken(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function refreshList(form) {
    if (window.htmx) {
      window.htmx.ajax("GET", form.dataset.listUrl, { target: "#upload-list", swap: "outerHTML" });
    }
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
          item.className = "ok";
          message.textContent = " " + (body.duplicate ? form.dataset.duplicateText || "already received" : body.status);
        } else {
          item.className = "bad";
          var detail = body.detail || JSON.stringify(body);
          message.textContent = " " + xhr.status + ": " + detail;
        }
        resolve();
      });
      xhr.addEventListener("error", function () {
        item.className = "bad";
        message.textContent = " network error";
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

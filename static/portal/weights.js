// Weights page: the sum of the direct weights and each one's share of it, live. The weights
// must make 100 to be saved (or be scaled to 100 on request).
(function () {
  "use strict";

  var gettext = window.gettext || function (s) { return s; };
  var interpolate = window.interpolate || function (s) { return s; };

  function start() {
    var form = document.getElementById("weights-form");
    if (!form) return;
    var inputs = form.querySelectorAll("input.weight-number[name^=w_]");
    var sum = document.getElementById("weights-sum");
    var value = document.getElementById("weights-sum-value");
    var scale = document.getElementById("id_scale");

    function update() {
      var total = 0;
      Array.prototype.forEach.call(inputs, function (input) {
        var n = parseFloat(input.value);
        if (!isNaN(n)) total += n;
      });
      value.textContent = total.toFixed(1);
      var off = Math.abs(total - 100) > 0.05;
      sum.classList.toggle("bad", off);
      Array.prototype.forEach.call(inputs, function (input) {
        var share = form.querySelector('[data-share-for="' + input.name + '"]');
        if (!share) return;
        var n = parseFloat(input.value) || 0;
        share.textContent = off && total > 0
          ? interpolate(gettext("→ %(share)s percent when scaled to 100"), { share: (100 * n / total).toFixed(1) }, true)
          : "";
      });
      var hint = document.getElementById("weights-sum-hint");
      if (!hint) {
        hint = document.createElement("span");
        hint.id = "weights-sum-hint";
        sum.appendChild(hint);
      }
      hint.textContent = off
        ? " " + (scale ? gettext("They must make 100: adjust them, or tick “Scale them to 100”.") : gettext("They do not make 100: the what-if scales them in proportion."))
        : "";
    }

    form.addEventListener("input", update);
    update();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

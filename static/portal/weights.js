// Weights page: the sum of the direct weights and each one's share of it, live. The weights
// must make 100 to be saved (or be scaled to 100 on request).
//
// A weight counts as the server reads it (portal/numbers.py, forms.weight_percent_field): ASCII
// digits with an optional sign, point and exponent, from 0 to 100 with at most three decimals
// as typed. parseFloat counted "30,5" as 30 and "30abc" as 30, and "３０" as nothing, where the
// server refuses all three: such a field is marked, and the sum is not given until it is fixed.
(function () {
  "use strict";

  var gettext = window.gettext || function (s) { return s; };
  var interpolate = window.interpolate || function (s) { return s; };

  var NUMBER = /^[+-]?(?:[0-9]+(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?$/;
  var MAX_DECIMALS = 3;

  // The weight ``text`` stands for, or null when the server would refuse it. ``blankIsZero``:
  // the what-if counts a blank weight as 0; a save refuses it.
  function weight(text, blankIsZero) {
    var typed = text.trim();
    if (!typed) return blankIsZero ? 0 : null;
    var match = NUMBER.exec(typed);
    if (!match) return null;
    // Decimals as the server counts them: "30.10" has two, "1e-4" four.
    var decimals = (match[1] || match[2] || "").length - parseInt(match[3] || "0", 10);
    var value = Number(typed);
    return value >= 0 && value <= 100 && decimals <= MAX_DECIMALS ? value : null;
  }

  function start() {
    var form = document.getElementById("weights-form");
    if (!form) return;
    var inputs = form.querySelectorAll("input.weight-number[name^=w_]");
    var sum = document.getElementById("weights-sum");
    var value = document.getElementById("weights-sum-value");
    var scale = document.getElementById("id_scale");

    function update() {
      // In thousandths, exact (a weight has at most three decimals): the server's tolerance
      // of 0.05 and its rounding of the sum to one decimal (half up), where a float sum of
      // three 33.35 is 100.05000000000001.
      var thousandths = 0;
      var refused = 0;
      var weights = {};
      Array.prototype.forEach.call(inputs, function (input) {
        var n = weight(input.value, !scale);
        weights[input.name] = n;
        if (n === null) refused += 1;
        else thousandths += Math.round(n * 1000);
        // The server's refusal of this field stands while the field holds what it refused;
        // once changed, the page's own mark speaks for it.
        var own = input.value !== input.defaultValue;
        Array.prototype.forEach.call(input.parentNode.querySelectorAll(".field-error"), function (error) {
          error.hidden = own;
        });
        if (n === null) input.setAttribute("aria-invalid", "true");
        else input.removeAttribute("aria-invalid");
      });
      var total = thousandths / 1000;
      value.textContent = refused ? "—" : (Math.floor((thousandths + 50) / 100) / 10).toFixed(1);
      var off = refused > 0 || Math.abs(thousandths - 100000) > 50;
      sum.classList.toggle("bad", off);
      Array.prototype.forEach.call(inputs, function (input) {
        var share = form.querySelector('[data-share-for="' + input.name + '"]');
        if (!share) return;
        var n = weights[input.name];
        var serverSaid = input.value === input.defaultValue && input.parentNode.querySelector(".field-error");
        if (n === null) share.textContent = serverSaid ? "" : gettext("not a number from 0 to 100 with at most three decimals");
        else share.textContent = off && !refused && total > 0
          ? interpolate(gettext("→ %(share)s percent when scaled to 100"), { share: (100 * n / total).toFixed(1) }, true)
          : "";
      });
      var hint = document.getElementById("weights-sum-hint");
      if (!hint) {
        hint = document.createElement("span");
        hint.id = "weights-sum-hint";
        sum.appendChild(hint);
      }
      if (refused) {
        hint.textContent = " " + gettext("Type each weight from 0 to 100 in digits 0-9, with a point for decimals (at most three), for example 30.5.");
      } else {
        hint.textContent = off
          ? " " + (scale ? gettext("They must make 100: adjust them, or tick “Scale them to 100”.") : gettext("They do not make 100: the what-if scales them in proportion."))
          : "";
      }
    }

    form.addEventListener("input", update);
    update();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

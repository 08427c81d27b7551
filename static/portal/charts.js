/* Draws the portal's Plotly figures: every element with data-chart="<id>" gets the figure held in
   the <script type="application/json" id="<id>"> that Django's json_script wrote. Runs on page
   load and after every htmx swap; a chart whose JSON has not changed is not redrawn. */
(function () {
  "use strict";

  var CONFIG = { responsive: true, displaylogo: false };
  var drawn = new WeakMap(); // chart element -> the JSON text it was last drawn from

  function drawChart(el) {
    var id = (el.getAttribute("data-chart") || "").replace(/^#/, "");
    var script = id ? document.getElementById(id) : null;
    if (!script) {
      console.warn("charts.js: no figure script #" + id + " for", el);
      return;
    }
    var text = script.textContent;
    if (drawn.get(el) === text) {
      return;
    }
    try {
      var fig = JSON.parse(text);
      var layout = fig.layout || {};
      // Plotly's autosize (on a window resize, and when printing) takes the height of the
      // element: without this a figure drawn at its own height (a tall TCO chart, the two
      // robustness panels) was squeezed to the CSS min-height, and its labels ran into its titles.
      el.style.height = layout.height ? layout.height + "px" : "";
      el.style.minHeight = layout.height ? "0" : "";
      window.Plotly.react(el, fig.data || [], layout, CONFIG);
      drawn.set(el, text);
    } catch (err) {
      console.error("charts.js: cannot draw #" + id, err);
    }
  }

  function drawCharts() {
    if (!window.Plotly) {
      console.error("charts.js: Plotly is not loaded; include plotly.min.js before charts.js");
      return;
    }
    document.querySelectorAll("[data-chart]").forEach(drawChart);
  }

  // A swap may replace the figure's script without touching its chart element (or the other way
  // round), so every chart is checked; unchanged ones cost a string comparison.
  document.addEventListener("DOMContentLoaded", drawCharts);
  document.addEventListener("htmx:afterSettle", drawCharts);

  // Free Plotly's resize listeners of a chart that htmx is about to remove.
  document.addEventListener("htmx:beforeCleanupElement", function (event) {
    var el = event.target;
    if (window.Plotly && el instanceof Element && el.hasAttribute("data-chart")) {
      window.Plotly.purge(el);
      drawn.delete(el);
    }
  });

  // Printing: the charts take the page's width (the print stylesheet lays them out one per
  // row), so each is redrawn at its container's new size, and again after printing.
  function resizeCharts() {
    if (!window.Plotly) return;
    document.querySelectorAll("[data-chart].js-plotly-plot").forEach(function (el) {
      window.Plotly.Plots.resize(el);
    });
  }
  window.addEventListener("beforeprint", resizeCharts);
  window.addEventListener("afterprint", resizeCharts);
  if (window.matchMedia) {
    var printing = window.matchMedia("print");
    if (printing.addEventListener) printing.addEventListener("change", resizeCharts);
  }

  if (document.readyState !== "loading") {
    drawCharts();
  }
})();

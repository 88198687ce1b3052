// Draws an exported tour or view (headdiv/dashboard/standalone/): everything it shows is in the JSON of
// #headdiv-content, and it loads nothing. Texts are set with textContent (never parsed as markup); the
// explanations are HTML rendered at export time from headdiv's own Markdown, formulas as MathML.
// The step and the theme live in the URL fragment (#step=3&theme=projector), so a link to the file opens
// where it was; previous/next, the arrow keys and a presenter's clicker (PageUp/PageDown) move between steps.
(function () {
  "use strict";
  var content = JSON.parse(document.getElementById("headdiv-content").textContent);
  var app = document.getElementById("app");
  var steps = content.steps;
  var answered = {}; // step -> the choice picked
  var drawn = [];
  window.headdivExport = {content: content};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function place() {
    var q = new URLSearchParams(location.hash.replace(/^#/, ""));
    var k = parseInt(q.get("step") || "1", 10);
    if (!(k >= 1)) k = 1;
    return {step: Math.min(k, steps.length), theme: q.get("theme") === "projector" ? "projector" : "light"};
  }
  function go(step, theme) {
    var here = place();
    var q = new URLSearchParams();
    if (steps.length > 1) q.set("step", String(step === undefined ? here.step : step));
    if ((theme || here.theme) === "projector") q.set("theme", "projector");
    var hash = "#" + q.toString();
    if (hash !== location.hash) location.hash = hash; else render();
  }
  function purge() {
    drawn.forEach(function (gd) { if (window.Plotly) window.Plotly.purge(gd); });
    drawn = [];
  }
  function charts(step, box, theme) {
    step.charts.forEach(function (chart) {
      // a figure of its own, so that the chart's description and data table (chart_text.js) sit under it
      var figure = el("figure", "chart-box");
      var gd = el("div", "chart");
      gd.setAttribute("data-chart", chart.name);
      figure.appendChild(gd);
      box.appendChild(figure);
      var layout = JSON.parse(JSON.stringify(chart.figure.layout || {}));
      layout.autosize = true;
      delete layout.width;
      var config = {responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"],
        toImageButtonOptions: {format: "png", filename: "headdiv-" + chart.name, scale: 2}};
      window.Plotly.newPlot(gd, chart.figure.data, layout, config).then(function () {
        if (theme === "projector") return window.Plotly.relayout(gd, content.largeFonts);
      });
      drawn.push(gd);
    });
  }
  function question(step, k, box) {
    var q = step.question, picked = answered[k];
    var part = el("section", "question");
    part.appendChild(el("p", "prompt", q.prompt));
    var choices = el("div", "choices");
    q.choices.forEach(function (c) {
      var b = el("button", "choice", c.label);
      b.type = "button";
      b.setAttribute("data-choice", c.id);
      if (picked) {
        b.disabled = true;
        if (c.id === q.answer) b.classList.add("right");
        if (c.id === picked) b.classList.add("picked");
      }
      b.addEventListener("click", function () { answered[k] = c.id; render(); });
      choices.appendChild(b);
    });
    part.appendChild(choices);
    if (picked) {
      var right = picked === q.answer;
      var answer = q.choices.filter(function (c) { return c.id === q.answer; })[0];
      var reveal = el("div", "reveal " + (right ? "is-right" : "is-wrong"));
      reveal.setAttribute("role", "status");
      reveal.appendChild(el("strong", null, right ? "Right: " + answer.label + ". " : "Not quite: " + answer.label + ". "));
      reveal.appendChild(document.createTextNode(q.why));
      part.appendChild(reveal);
    }
    box.appendChild(part);
  }
  function render() {
    var here = place(), k = here.step, step = steps[k - 1];
    document.body.className = "theme-" + here.theme;
    purge();
    app.textContent = "";
    var head = el("header", "head");
    head.appendChild(el("p", "kind", content.kind === "tour" ? "headdiv tour" : "headdiv view"));
    head.appendChild(el("h1", null, content.title));
    if (content.summary) head.appendChild(el("p", "summary", content.summary));
    var theme = el("button", "theme", here.theme === "projector" ? "Light theme" : "Projector theme");
    theme.type = "button";
    theme.setAttribute("aria-pressed", String(here.theme === "projector"));
    theme.addEventListener("click", function () { go(k, here.theme === "projector" ? "light" : "projector"); });
    head.appendChild(theme);
    var slides = el("button", "slides", "PNG for slides");
    slides.type = "button";
    slides.title = "Each chart of this step as a 1920×1080 PNG with a projector's type sizes";
    slides.addEventListener("click", function () {
      window.headdivSlides(drawn.map(function (gd) { return {gd: gd, name: gd.getAttribute("data-chart")}; }))
        .then(function (urls) { window.headdivExport.slides = urls.length; });
    });
    head.appendChild(slides);
    app.appendChild(head);

    var body = el("article", "step");
    if (content.kind === "tour") {
      body.appendChild(el("p", "count", "Step " + k + " of " + steps.length + " · " + step.viewLabel));
      body.appendChild(el("h2", null, step.title));
    }
    if (step.narrative) body.appendChild(el("p", "narrative", step.narrative));
    var hidden = step.question && !answered[k];
    if (step.question) question(step, k, body);
    var box = el("div", "charts" + (hidden ? " concealed" : ""));
    if (hidden) box.appendChild(el("p", "wait", "Choose an answer to see the charts."));
    body.appendChild(box);

    if (steps.length > 1) {
      var nav = el("nav", "nav");
      [["← previous", k - 1, "prev"], ["next →", k + 1, "next"]].forEach(function (b) {
        var button = el("button", b[2], b[0]);
        button.type = "button";
        button.disabled = b[1] < 1 || b[1] > steps.length;
        button.addEventListener("click", function () { go(b[1]); });
        nav.appendChild(button);
      });
      body.appendChild(nav);
    }
    var scenario = el("details", "scenario");
    scenario.appendChild(el("summary", null, "Scenario and how to compute it again"));
    var table = el("table");
    step.scenario.forEach(function (row) {
      var tr = el("tr");
      tr.appendChild(el("th", null, row[0]));
      tr.appendChild(el("td", null, row[1]));
      table.appendChild(tr);
    });
    scenario.appendChild(table);
    if (step.reproduce.length) scenario.appendChild(el("pre", "reproduce", step.reproduce.join("\n")));
    body.appendChild(scenario);
    var math = content.explanations[step.view];
    if (math) {
      var explain = el("details", "explain");
      explain.appendChild(el("summary", null, "The math behind " + step.viewLabel));
      var text = el("div", "explain-text");
      text.innerHTML = math; // rendered at export time from headdiv's own Markdown (raw HTML escaped)
      explain.appendChild(text);
      body.appendChild(explain);
    }
    app.appendChild(body);
    app.appendChild(el("footer", "made", "Made with " + content.made + ". This file works offline."));
    if (!hidden) charts(step, box, here.theme); // once on the page: Plotly sizes a chart by its place
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || steps.length < 2) return;
    var k = place().step;
    var to = {ArrowRight: k + 1, PageDown: k + 1, ArrowLeft: k - 1, PageUp: k - 1, Home: 1, End: steps.length}[ev.key];
    if (to === undefined || to < 1 || to > steps.length || to === k) return;
    ev.preventDefault();
    go(to);
  });
  window.addEventListener("hashchange", render);
  if (steps.length > 1 && !/step=/.test(location.hash)) { // the step in the address from the start (no new entry)
    var first = place();
    history.replaceState(null, "", "#step=" + first.step + (first.theme === "projector" ? "&theme=projector" : ""));
  }
  render();
})();

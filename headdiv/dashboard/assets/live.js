// Charts that follow the hand (headdiv/dashboard/live.py). While a slider of the page's scenario moves
// (dragged, touched, arrow keys, or ▶ play), the shown view's charts are fetched for the thumb's value
// in ONE request, `<prefix>_live?<the URL's query with that value>`, and applied with Plotly.react, with
// the header's numbers. The URL is not touched: the release goes through the URL-sync callback once (one
// history entry), whose own drawing then shows the same figures.
//
// Throttled, never queued: one request at a time; a movement meanwhile replaces the one waiting. The latest
// position wins: while the button is down every answer is drawn in the order asked (each a value the thumb
// passed); once it is up (or after a key press) only the answer for the final value is drawn, so an answer
// for an older position never lands after a newer one. Recent answers are kept in the tab (a small memory),
// so going back over a value costs no request. A value the API refuses (e.g. past a work budget) keeps the
// last charts and shows its one-line reason beside the slider.
(function () {
  var meta = document.querySelector('meta[name="headdiv-live"]');
  if (!meta || !window.fetch) return;
  var conf = JSON.parse(meta.getAttribute("content"));
  var MEMORY = 48;
  var memory = new Map(); // query -> answer
  var busy = null; // the query being fetched
  var waiting = null; // the query to fetch next
  var target = null; // the query of the latest position
  var down = false; // a pointer holds a slider
  var drawnAt = 0, asked = 0; // order of the answer drawn last, of the last request
  var stats = {requests: 0, drawn: 0, refused: 0, trail: []}; // trail: the queries drawn, oldest first
  window.headdivLive = stats;

  function slider(el) {
    var box = el && el.closest && el.closest(".dash-slider-container");
    if (!box || !box.id || !conf.controls[box.id]) return null;
    return box;
  }
  function valueOf(box, thumb) {
    var v = Number(thumb.getAttribute("aria-valuenow"));
    var scaled = box.closest(".log-slider");
    return scaled ? Math.pow(Number(scaled.getAttribute("data-scale")), v) : v;
  }
  function queryWith(name, value) {
    var q = new URLSearchParams(location.search);
    if (conf.tabs.indexOf(q.get("tab") || conf.first) < 0) return null;
    if (q.get(name) === String(value)) return null; // the state on screen already
    q.set(name, String(value));
    return q.toString();
  }
  function chart(name) {
    return document.querySelector("[id*='\"name\":\"" + name + "\"'] .js-plotly-plot");
  }
  function say(box, text) {
    var why = box && box.closest(".control") && box.closest(".control").querySelector(".live-refusal");
    if (!why && box && text) {
      why = document.createElement("div");
      why.className = "live-refusal";
      why.setAttribute("role", "status");
      box.closest(".control").appendChild(why);
    }
    if (why) why.textContent = text || "";
  }
  function draw(query, answer) {
    Object.keys(answer.charts || {}).forEach(function (name) {
      var gd = chart(name);
      var fig = answer.charts[name];
      if (gd && window.Plotly) window.Plotly.react(gd, fig.data, fig.layout); // the chart keeps its config
    });
    var ids = ["hl-mse", "hl-hdi", "hl-heff", "hl-corr"];
    (answer.headline || []).forEach(function (text, i) {
      var el = document.getElementById(ids[i]);
      if (el) el.textContent = text;
    });
    stats.drawn += 1;
    stats.trail.push(query);
    if (stats.trail.length > 200) stats.trail.shift();
  }
  function remember(query, answer) {
    memory.delete(query);
    memory.set(query, answer);
    if (memory.size > MEMORY) memory.delete(memory.keys().next().value);
  }
  function land(query, order, answer, box) {
    if (order <= drawnAt || (!down && query !== target)) return; // an older position, or passed over
    drawnAt = order;
    say(box, "");
    draw(query, answer);
  }
  function next() {
    if (busy || !waiting) return;
    var job = waiting;
    waiting = null;
    busy = job.query;
    var order = ++asked;
    stats.requests += 1;
    fetch(conf.url + "?" + job.query, {credentials: "same-origin"})
      .then(function (resp) {
        if (resp.status === 200) return resp.json().then(function (answer) {
          remember(job.query, answer);
          land(job.query, order, answer, job.box);
        });
        if (resp.status === 422 || resp.status === 429) return resp.json().then(function (body) {
          stats.refused += 1;
          if (job.query === target) say(job.box, body.message || "this value cannot be computed");
        });
        // 202 (still computing) or 204 (nothing to draw live): the release's own drawing follows
      })
      .catch(function () {})
      .then(function () {
        busy = null;
        next();
      });
  }
  function moved(box, thumb) {
    var query = queryWith(conf.controls[box.id], valueOf(box, thumb));
    if (query === null) return;
    target = query;
    var known = memory.get(query);
    if (known) {
      remember(query, known);
      drawnAt = ++asked;
      say(box, "");
      draw(query, known);
      return;
    }
    waiting = {query: query, box: box};
    next();
  }
  // Which slider the person holds or steers: only their own movements are fetched (a value the URL-sync
  // writes after a link, a preset or the back button is drawn by the usual path).
  var steering = null, until = 0;
  function steer(ev) {
    var box = slider(ev.target);
    if (!box) return;
    steering = box;
    until = Date.now() + 1500;
    if (ev.type === "pointerdown") down = true;
  }
  document.addEventListener("pointerdown", steer, true);
  document.addEventListener("keydown", steer, true);
  document.addEventListener("pointerup", function () { down = false; }, true);
  document.addEventListener("pointercancel", function () { down = false; }, true);
  document.addEventListener("click", function (ev) {
    var play = ev.target && ev.target.closest && ev.target.closest(".play-btn");
    var row = play && play.closest(".play-row");
    var box = row && row.querySelector(".dash-slider-container");
    if (box && slider(box)) {
      steering = box;
      until = Date.now() + 3600 * 1000; // while it plays; any other movement takes over
    }
  }, true);
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      var box = slider(r.target);
      if (!box || box !== steering || (!down && Date.now() > until)) return;
      if (!down) until = Math.max(until, Date.now() + 1500);
      moved(box, r.target);
    });
  }).observe(document.documentElement, {attributes: true, attributeFilter: ["aria-valuenow"], subtree: true});
})();

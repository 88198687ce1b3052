// Charts that follow the hand (headdiv/dashboard/drawing/live.py). While a slider of the page's scenario moves
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
//
// A drawn chart belongs to the newest state asked for (`latest`): the thumb's latest position, or the URL
// once something else writes it (a preset, a link, the back button; the URL-sync's own echo of a position
// the hand passed is not news). An answer for any other state is never drawn once the button is up, by this
// path or by the views' own drawing (`current`, read by clientside.js `liveDraw`), whatever order answers
// arrive in; so when the hand stops the charts converge on what the controls show.
//
// Anticipation: once a value is drawn (or a slider is focused or hovered), the values one step either side
// are asked for ahead (`x-headdiv-ahead: 1`: computed at the lowest priority, small jobs only), one at a
// time and only while no movement waits (a movement drops the one on the way), and kept in the tab's
// memory: the next key press is then drawn without computing. Moving elsewhere drops what was still to be
// asked ahead.
(function () {
  var meta = document.querySelector('meta[name="headdiv-live"]');
  if (!meta || !window.fetch) return;
  var conf = JSON.parse(meta.getAttribute("content"));
  var MEMORY = 48;
  var memory = new Map(); // query -> answer
  var busy = null; // the query being fetched
  var waiting = null; // the query to fetch next
  var target = null, targetAt = 0; // the query of the latest position, and when it was set
  var down = false; // a pointer holds a slider
  var drawnAt = 0, asked = 0; // order of the answer drawn last, of the last request
  var ahead = []; // {query, tries, at}: neighbours still to ask for ahead (`at`: the movement they follow)
  var aheadTimer = null;
  // trail: the queries drawn, oldest first; shared: answers the views' own drawing took from a movement's request
  var stats = {requests: 0, ahead: 0, remembered: 0, drawn: 0, refused: 0, stale: 0, shared: 0, trail: []};
  window.headdivLive = stats;
  var latest = location.search.replace(/^\?/, ""); // the newest state asked for (a query)
  var passed = new Map(); // key -> 1: the positions the hand asked for since the URL last caught up with it
  // The memory's key for a query: its parameters sorted, those at their defaults left out, as the URL-sync
  // writes it (the same state has one key however it was written)
  function key(query) {
    var q = new URLSearchParams(query);
    Object.keys(conf.defaults).forEach(function (name) {
      if (q.get(name) === conf.defaults[name]) q.delete(name);
    });
    q.sort();
    return q.toString();
  }
  // `base` with each of `values` (URL parameter -> value) set
  function withValues(base, values) {
    var q = new URLSearchParams(base);
    Object.keys(values || {}).forEach(function (name) { q.set(name, String(values[name])); });
    return q.toString();
  }
  // Whether an answer for `query` may be drawn now: it is the newest state asked for, `values` apart (a
  // view's drawing callback sets its own inputs, which the URL may not hold yet)
  stats.current = function (query, values) { return key(query) === key(withValues(latest, values)); };
  stats.settled = function () { return !busy && !waiting; }; // nothing asked for that is still to land
  stats.remembers = function (values) { return !!recall(stats.query(values)); }; // in the tab's memory
  function askedFor(query) {
    latest = query;
    passed.set(key(query), 1);
    if (passed.size > 256) passed.delete(passed.keys().next().value);
  }
  // The URL changed: news unless it is the URL-sync writing a position the hand asked for already (soon
  // after the hand moved: a link or a preset that happens to name a state passed long ago is news)
  var ECHO_MS = 5000;
  function urlChanged(external) {
    var now = location.search.replace(/^\?/, ""), k = key(now);
    if (!external && passed.has(k) && Date.now() - targetAt < ECHO_MS) {
      if (k === key(latest)) passed.clear(); // the URL has caught up with the hand
      return;
    }
    latest = now;
    passed.clear();
    target = null;
    waiting = null; // a movement older than this URL: never fetched, never drawn
    ahead = [];
  }
  // For the views' own drawing callbacks (clientside.js `liveDraw`): the answer for the URL's state with
  // `values` (URL parameter -> value) set, from the tab's memory or one request, waiting while it computes;
  // null when there is none. The same objects the live path drew, so Plotly finds nothing to redraw.
  // A state asked for while its answer is on the way shares that request.
  stats.query = function (values) { return withValues(location.search, values); };
  var asking = new Map(); // key -> the promise of an answer on the way
  var viewOf = new Map(); // key -> the view of a state with nothing to draw live (the server says which)
  // The movement's request on the way ({key, answer: the promise of its answer, null if it brings none}): the
  // view's own drawing of that state waits for it rather than asking again, and gets the very objects drawn
  var moving = null;
  stats.answer = function (values) { return answerFor(stats.query(values)); };
  // `still()`, when given, says whether the state is still wanted: a computation's answer is not waited for
  // past that (a room's follower moved on: its polls would only hold the server's threads)
  function answerFor(query, still) {
    var k = key(query);
    var known = recall(query);
    if (known) return Promise.resolve(known);
    if (moving && moving.key === k) {
      stats.shared += 1;
      return moving.answer.then(function (answer) { return answer || answerFor(query); });
    }
    if (asking.has(k)) return asking.get(k);
    var tries = 0;
    function ask() {
      return fetch(conf.url + "?" + query, {credentials: "same-origin"}).then(function (resp) {
        if (resp.status === 200) return resp.json().then(function (answer) { remember(query, answer); return answer; });
        if (resp.status === 204) { // nothing to draw live
          viewOf.set(k, resp.headers.get("x-headdiv-view"));
          if (viewOf.size > 256) viewOf.delete(viewOf.keys().next().value);
        }
        if (resp.status === 202 && tries++ < 60 && (!still || still())) {
          return new Promise(function (ok) { setTimeout(ok, 500); }).then(ask);
        }
        return null;
      });
    }
    var p = ask().catch(function () { return null; }).then(function (answer) { asking.delete(k); return answer; });
    asking.set(k, p);
    return p;
  }
  stats.params = conf.params;
  // The opening state's answer, asked for with the page's scripts (while Dash fetches its layout and answers
  // its first callbacks) on a view whose own drawing ends on it (`conf.opening`): a chart's first drawing
  // then shows it rather than an empty "computing…" frame (plotly_bundles.js), while that state is still
  // the newest asked for. A state the server has drawn before (a shared link, a lecture's slide) opens on
  // its charts; one still computing opens on the empty frame, as before. A room's follower opens each state
  // the lecturer sends this way (`follow`): the tab it mounts draws that state's charts first, not the ones
  // it showed when last seen.
  var opening = null; // {key, answer}
  var openingKey = null, openingDue = false; // the opening state, and whether its answer is still to come
  function openOn(query, still) { // the promise of its answer
    var k = key(query), known = recall(query);
    openingKey = k;
    openingDue = !known;
    if (known) {
      opening = {key: k, answer: known};
      return Promise.resolve(known);
    }
    return answerFor(query, still).then(function (answer) {
      if (openingKey !== k) return answer; // a newer state opens meanwhile
      openingDue = false;
      if (answer) {
        opening = {key: k, answer: answer};
        document.dispatchEvent(new Event("headdiv:opening")); // for charts that mounted before it came
      }
      return answer;
    });
  }
  if (conf.opening.indexOf(new URLSearchParams(latest).get("tab") || conf.first) >= 0) openOn(latest);
  stats.openedOn = function () { return opening && opening.key; }; // the opening state, once its answer is here
  stats.openingDue = function () { return openingDue && key(latest) === openingKey; }; // and still the newest
  stats.opening = function (gd) { // the figure for the chart `gd`'s first drawing, or null
    if (!opening || key(latest) !== opening.key) return null;
    var hit = partOf(opening.answer, nameOf(gd));
    return hit && hit.fig;
  };
  function nameOf(gd) { // a chart's name, from its dcc.Graph id ({"type": ..., "name": ...})
    var box = gd.closest && gd.closest("[id*='\"name\"']");
    try { return (box && JSON.parse(box.id).name) || null; } catch (e) { return null; }
  }
  function partOf(answer, name) { // {key, fig}: the part of `answer` that draws chart `name`, or null
    var parts = (answer && answer.parts) || [];
    for (var i = 0; i < parts.length; i++) {
      if (name && parts[i].charts[name]) return {key: parts[i].key, fig: parts[i].charts[name]};
    }
    return null;
  }

  function slider(el) {
    var box = el && el.closest && el.closest(".dash-slider-container");
    if (!box || !box.id || !conf.controls[box.id]) return null;
    return box;
  }
  function scaled(box, v) {
    var log = box.closest(".log-slider");
    var value = log ? Math.pow(Number(log.getAttribute("data-scale")), v) : v;
    return String(Number(value.toFixed(6))); // 0.1 + 0.2 is written 0.3, as the registry writes it
  }
  // `base` with `name` set to `value`; null on a tab whose charts do not follow (a value equal to the URL's
  // is still drawn: a thumb dragged away and back must end on the charts of the value it shows)
  function withValue(base, name, value) {
    var q = new URLSearchParams(base);
    if (conf.tabs.indexOf(q.get("tab") || conf.first) < 0) return null;
    q.set(name, value);
    return q.toString();
  }
  function queryWith(box, v) {
    return withValue(location.search, conf.controls[box.id][0], scaled(box, v));
  }
  function chartSel(name) { return "[id*='\"name\":\"" + name + "\"'] .js-plotly-plot"; }
  function chart(name) { return document.querySelector(chartSel(name)); }
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
  // A chart is redrawn unless it shows that part's figure already (the same key, and the very data this
  // script gave it: a chart Dash has redrawn since is redrawn again). Only the lesson whose slider moved
  // changes on Foundations; the others' charts are left alone.
  // The eye sees the charts on screen first: a state is drawn at the next frame, the newest only (a held key or
  // a drag queues no drawing the screen cannot show), those charts in that frame and in one paint; the others
  // after it (each redraw is 15-35 ms of the page's one thread), or at once when scrolled into view. Meanwhile
  // such a chart carries `data-stale` and `aria-busy` (style.css dims it, should that last). While a thumb is
  // held the charts off screen wait for the release (`up`): the hand sees more positions.
  var shown = {}; // chart name -> {key, data}
  stats.shown = function (name) { return shown[name] ? shown[name].key : null; }; // the part a chart shows
  var due = null, frame = 0; // the newest state to draw ({query, answer}), and the frame asked for it
  // chart div -> {name, key, fig, query, from}: left for after the frame (`from`: the data it showed then)
  var later = new Map();
  var hooked = new WeakSet(); // charts whose drawings by others this script hears of
  var inView = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) { if (entry.isIntersecting) drawLater(entry.target); });
  }) : null;
  // on screen: some of its plot area (what a state changes; a chart whose margin alone shows, its title, is
  // drawn right after the frame: the observer below sees it at once)
  function onScreen(gd) {
    var r = gd.getBoundingClientRect(), size = gd._fullLayout && gd._fullLayout._size;
    var top = size ? r.top + size.t : r.top, bottom = size ? top + size.h : r.bottom;
    return bottom > 0 && r.right > 0 && top < window.innerHeight && r.left < window.innerWidth;
  }
  function mark(gd, stale) {
    var box = gd.closest(".dash-graph") || gd.parentNode;
    if (stale) {
      box.setAttribute("data-stale", "");
      box.setAttribute("aria-busy", "true");
      if (!hooked.has(gd) && gd.on) { // drawn by another hand meanwhile (a link, a preset): not left marked
        hooked.add(gd);
        gd.on("plotly_afterplot", function () {
          var job = later.get(gd);
          if (job && gd.data !== job.from) drawLater(gd);
        });
      }
    } else if (!held.has(gd) && !computing(gd)) { // a followed state's chart stays marked until it shows that
      // state, and a computing view's until its job ends
      box.removeAttribute("data-stale");
      box.removeAttribute("aria-busy");
    }
  }
  // A view whose job is still computing (drawing/view_jobs.py gives its body the class `busy`: dimmed, with a
  // progress bar) shows the job's partial result as it grows, or the charts it had: each of its charts is
  // marked as updating too, for the eye and for a screen reader, until the job ends.
  function computing(gd) {
    var body = gd.closest(".view-body");
    return !!body && body.classList.contains("busy");
  }
  function bodyChanged(body) {
    var busyNow = body.classList.contains("busy");
    body.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (busyNow) mark(gd, true);
      else if (!later.has(gd)) mark(gd, false);
    });
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.target.classList && r.target.classList.contains("view-body")) bodyChanged(r.target);
    });
  }).observe(document.documentElement, {attributes: true, attributeFilter: ["class"], subtree: true});
  // For plotly_bundles.js: whether this script is about to draw `data` on the chart `gd` (at the next frame, or
  // after it): the view's own drawing of that very figure is left to this schedule
  stats.drawing = function (gd, data) {
    var job = later.get(gd);
    if (job) return job.fig.data === data;
    return !!due && (due.answer.parts || []).some(function (part) {
      return Object.keys(part.charts).some(function (name) { return part.charts[name].data === data; });
    });
  };
  function put(gd, name, key, fig) {
    if (later.delete(gd)) {
      mark(gd, false);
      if (inView) inView.unobserve(gd);
    }
    var was = shown[name];
    if (!(was && was.key === key && gd.data === was.data)) {
      if (gd.data !== fig.data) window.Plotly.react(gd, fig.data, fig.layout); // the chart keeps its config
      // (the very figure, as the view's own drawing may have drawn it first; a chart whose earlier drawing
      // still waits is drawn after it, so what it shows until then is not this part)
      shown[name] = {key: key, data: fig.data};
    }
    followed(gd);
  }
  function draw(query, answer) {
    due = {query: query, answer: answer};
    if (!frame) frame = requestAnimationFrame(paint);
  }
  function paint() {
    frame = 0;
    var job = due, ids = ["hl-mse", "hl-hdi", "hl-heff", "hl-corr"], P = window.Plotly;
    due = null;
    if (!job || !P) return;
    // where each chart is, read before any is drawn (one layout of the page, not one after each drawing)
    var charts = [], parts = job.answer.parts || [];
    parts.forEach(function (part) {
      Object.keys(part.charts).forEach(function (name) {
        var gd = chart(name), was = shown[name];
        if (!gd) return;
        var now = onScreen(gd) || (was && was.key === part.key && gd.data === was.data);
        charts.push({gd: gd, name: name, key: part.key, fig: part.charts[name], now: now});
      });
    });
    parts.forEach(function (part) {
      (part.headline || []).forEach(function (text, i) {
        var el = document.getElementById(ids[i]);
        if (el) el.textContent = text;
      });
    });
    // the state's charts on screen change together: in one task and one paint (plotly_bundles.js)
    (P.together || function (fn) { fn(); })(function () {
      charts.forEach(function (c) {
        if (c.now) {
          put(c.gd, c.name, c.key, c.fig);
          return;
        }
        var had = later.get(c.gd);
        later.set(c.gd, {name: c.name, key: c.key, fig: c.fig, query: job.query, from: c.gd.data});
        if (!had) {
          mark(c.gd, true);
          if (inView) inView.observe(c.gd);
        }
      });
    });
    stats.drawn += 1;
    stats.trail.push(job.query);
    if (stats.trail.length > 200) stats.trail.shift();
    finish();
  }
  // The charts left for later, one per task once the frame is painted, before the rest of the key press's work
  // (the view's own, Dash's; user-blocking tasks where the browser has them): an input between two of them is
  // still handled first. None while a thumb is held, nor while a newer state waits for its frame or is on its
  // way: its own drawing takes their place.
  var post = window.scheduler && window.scheduler.postTask
    ? function (fn) { window.scheduler.postTask(fn, {priority: "user-blocking"}); }
    : function (fn) { setTimeout(fn, 0); };
  var soon = false;
  function finish() {
    if (soon || !later.size || down) return;
    soon = true;
    post(function () {
      soon = false;
      if (frame || down) return;
      var next = null, quiet = !busy && !waiting;
      later.forEach(function (job, gd) {
        if (!next && (quiet || key(job.query) === key(latest))) next = gd;
      });
      if (!next) return;
      drawLater(next);
      finish();
    });
  }
  function drawLater(gd) {
    var job = later.get(gd);
    if (!job) return;
    // drawn by the view's own drawing since (a newer state, or this one), or gone with its tab: not redrawn
    if (!gd.isConnected || gd.data !== job.from) {
      later.delete(gd);
      mark(gd, false);
      if (inView) inView.unobserve(gd);
      if (gd.data !== job.fig.data) return;
    }
    var P = window.Plotly;
    (P.together || function (fn) { fn(); })(function () { put(gd, job.name, job.key, job.fig); });
  }
  // A room's follower (assets/room.js) applies each state the lecturer sends through this path as well as
  // through the URL: `follow(query)` right after the URL is written asks for that state's answer (the tab's
  // memory, or one request: the lecturer's page drew it, so the server has it) and draws it as a movement's
  // answer is drawn, the charts on screen in one frame; a tab about to mount draws it first (`openOn`). The
  // views' own drawing, one callback wave later, finds those very figures and draws nothing. From the moment
  // the state is applied, every chart that does not show it yet is marked (`held`: `data-stale`,
  // `aria-busy`), so a phone never shows one state's charts under another's URL unmarked; a chart is let go
  // once it shows the state, or, one this path does not draw, once its view is the state's (a view on its
  // way out stays marked until it goes).
  var want = null; // {key, tab, answer}: the state followed (answer: undefined while on the way, null: none)
  var held = new Map(); // chart div -> true: marked until it shows `want`
  function followed(gd) { // `gd` shows the followed state (or this path has none for it): let go
    if (!held.has(gd)) return;
    var ok = !gd.isConnected || !want || key(latest) !== want.key;
    if (!ok && want.answer !== undefined) {
      var name = nameOf(gd), hit = partOf(want.answer, name), was = shown[name];
      if (hit) ok = gd.data === hit.fig.data || (!!was && was.key === hit.key && was.data === gd.data);
      else ok = ofTheState(gd);
    }
    if (!ok) return;
    held.delete(gd);
    if (!later.has(gd)) mark(gd, false);
  }
  function ofTheState(gd) { // whether the view of a chart the answer does not draw is the followed state's
    var view = gd.closest(".view");
    if (!view || !view.id) return true;
    if (want.tab) return view.id === "view-" + want.tab;
    if (!want.answer) return true; // a tour's step that draws nothing live: its view is not known here
    return (want.answer.parts || []).some(function (part) {
      return Object.keys(part.charts).some(function (name) { return !!view.querySelector(chartSel(name)); });
    });
  }
  function hold(gd) {
    held.set(gd, true);
    mark(gd, true);
  }
  stats.hold = function (gd) { if (want && want.answer === undefined) hold(gd); }; // for plotly_bundles.js
  stats.drew = function (gd) { // every drawing of a chart (plotly_bundles.js)
    if (computing(gd)) mark(gd, true); // a partial result, or a chart mounted in a view still computing
    followed(gd);
  };
  // For plotly_bundles.js: whether `data` is an answer's figure of another state than the one followed, once
  // that state's answer is here: a view's drawing of an earlier state that lands late (its callback answered
  // before the state changed, Dash hands the figure over after) is not drawn over it
  var stateOf = new WeakMap(); // a figure's data (array) -> the key of the state whose answer holds it
  stats.outdated = function (data) {
    if (!want || !want.answer || key(latest) !== want.key) return false;
    var k = stateOf.get(data);
    return k !== undefined && k !== want.key;
  };
  stats.follow = function (query) {
    query = String(query || "").replace(/^\?/, "");
    var q = new URLSearchParams(query), k = key(query);
    // a tour's step names its view in the tour (the server's answer says whether it draws live)
    var tab = q.get("tab") || (q.get("tour") ? null : conf.first);
    var live = tab === null || conf.tabs.indexOf(tab) >= 0;
    var mine = {key: k, tab: tab, answer: live ? undefined : null};
    want = mine;
    held.forEach(function (_, gd) { if (!gd.isConnected) held.delete(gd); });
    document.querySelectorAll(".js-plotly-plot").forEach(hold);
    if (!live) { // drawn by the views alone: a chart of the state's view is not marked (nothing here lets it go)
      held.forEach(function (_, gd) { followed(gd); });
      return;
    }
    openOn(query, function () { return want === mine; }).then(function (answer) {
      if (want !== mine) return;
      mine.answer = answer || null;
      if (!mine.tab) mine.tab = viewOf.get(k) || null; // a tour's step: its view, as the server named it
      if (answer && key(latest) === k) draw(query, answer);
      held.forEach(function (_, gd) { followed(gd); }); // those this answer does not draw
    });
  };
  stats.unfollow = function () { // the phone explores on its own: its states are its own again
    want = null;
    held.forEach(function (_, gd) { followed(gd); });
  };
  function recall(query) { return memory.get(key(query)); }
  function remember(query, answer) {
    memory.delete(key(query));
    memory.set(key(query), answer);
    if (memory.size > MEMORY) memory.delete(memory.keys().next().value);
    (answer.parts || []).forEach(function (part) {
      Object.keys(part.charts).forEach(function (name) { stateOf.set(part.charts[name].data, key(query)); });
    });
  }
  function land(query, order, answer, box) {
    // an older position, or (the button up) any state but the newest asked for
    if (order <= drawnAt || (!down && key(query) !== key(latest))) { stats.stale += 1; return; }
    drawnAt = order;
    say(box, "");
    draw(query, answer);
    if (query === target) anticipate(query, box);
  }
  // The values one step either side of `base`'s value of the slider in `box`, asked for ahead.
  function anticipate(base, box) {
    clearTimeout(aheadTimer);
    aheadTimer = setTimeout(function () {
      var thumb = box.querySelector("[role=slider]");
      if (!thumb || (Date.now() - targetAt < 2000 && base !== target)) return;
      var spec = conf.controls[box.id], step = spec[1];
      var v = Number(thumb.getAttribute("aria-valuenow"));
      var lo = Number(thumb.getAttribute("aria-valuemin")), hi = Number(thumb.getAttribute("aria-valuemax"));
      ahead = [];
      [v - step, v + step].forEach(function (u) {
        if (u < lo - 1e-9 || u > hi + 1e-9) return;
        var query = withValue(base, spec[0], scaled(box, u));
        if (query !== null && !recall(query)) ahead.push({query: query, tries: 0, at: targetAt});
      });
      next();
    }, 150);
  }
  // The request asked ahead, while it is on the way: a movement does not wait behind it (it is dropped, and
  // the server stops a job computed ahead once no one asks for it)
  var aheadFlight = null;
  function askAhead(job) {
    busy = job.query;
    stats.ahead += 1;
    var again = false, ctl = window.AbortController ? new AbortController() : null;
    aheadFlight = ctl;
    fetch(conf.url + "?" + job.query, {
      credentials: "same-origin", headers: {"x-headdiv-ahead": "1"}, priority: "low", signal: ctl && ctl.signal,
    })
      .then(function (resp) {
        if (resp.status === 200) return resp.json().then(function (answer) { remember(job.query, answer); });
        again = resp.status === 202 && job.tries < 10; // still computing at the lowest priority: ask again soon
      })
      .catch(function () {})
      .then(function () {
        if (aheadFlight === ctl) aheadFlight = null;
        busy = null;
        finish();
        if (again) {
          job.tries += 1;
          setTimeout(function () {
            if (job.at === targetAt) { ahead.push(job); next(); } // unless the person moved meanwhile
          }, 300);
        }
        next();
      });
  }
  function next() {
    if (busy) return;
    if (!waiting) {
      if (ahead.length) askAhead(ahead.shift());
      return;
    }
    var job = waiting;
    waiting = null;
    busy = job.query;
    var order = ++asked, released = false;
    // a position waiting is asked for before this answer is drawn (the server computes it while Plotly
    // draws); what is asked ahead waits for the drawing (it would take the cores from it)
    function release() {
      if (released) return;
      released = true;
      busy = null;
      next();
    }
    stats.requests += 1;
    var settle, flight = {key: key(job.query), answer: new Promise(function (ok) { settle = ok; })};
    moving = flight;
    function landed(answer) { // the answer, or null: to the view's drawing that waits for it
      if (moving === flight) moving = null;
      settle(answer);
    }
    fetch(conf.url + "?" + job.query, {credentials: "same-origin", headers: {"x-headdiv-move": "1"}})
      .then(function (resp) {
        if (resp.status === 200) return resp.json().then(function (answer) {
          remember(job.query, answer);
          if (waiting) release();
          land(job.query, order, answer, job.box); // first: the view's own drawing then leaves it to `drawing`
          landed(answer);
        });
        if (resp.status === 422 || resp.status === 429) return resp.json().then(function (body) {
          stats.refused += 1;
          if (job.query === target) say(job.box, body.message || "this value cannot be computed");
        });
        // 202 (still computing) or 204 (nothing to draw live): the release's own drawing follows
      })
      .catch(function () {})
      .then(function () {
        landed(null);
        release();
        finish(); // a state that never came (refused, still computing): what was left is drawn
      });
  }
  function moved(box, v) {
    var query = queryWith(box, v);
    if (query === null || query === target) return; // the latest position already
    target = query;
    targetAt = Date.now();
    askedFor(query);
    ahead = []; // moving elsewhere: what was still to be asked ahead is not
    var known = recall(query);
    if (known) {
      waiting = null; // a position passed on the way here is not fetched after it
      stats.remembered += 1;
      remember(query, known);
      drawnAt = ++asked;
      say(box, "");
      draw(query, known);
      anticipate(query, box);
      return;
    }
    waiting = {query: query, box: box};
    if (aheadFlight) aheadFlight.abort(); // its end asks for this position
    next();
  }
  // A burst of arrow-key presses on a slider (a held key, or quick taps) is one movement, as a drag is: the
  // URL writes after the burst's first replace the history entry that one made, so Back returns to the
  // value before the burst. A press more than KEY_BURST_MS after the last one starts a new entry. A drag
  // is a burst too, while the button is down and KEY_BURST_MS after: a slider that reports while it moves
  // (`updatemode="drag"`, whose values need no computation) writes one entry per drag.
  var KEY_BURST_MS = 1200, keyBurstUntil = 0, burstPushed = false;
  stats.inKeyBurst = function () { return Date.now() < keyBurstUntil; };
  var push = window.history.pushState, replace = window.history.replaceState;
  window.history.pushState = function () {
    var out;
    if (Date.now() < keyBurstUntil && burstPushed) {
      out = replace.apply(window.history, arguments);
    } else {
      if (Date.now() < keyBurstUntil) burstPushed = true;
      out = push.apply(window.history, arguments);
    }
    urlChanged(false);
    return out;
  };
  window.history.replaceState = function () {
    var out = replace.apply(window.history, arguments);
    urlChanged(false);
    return out;
  };
  window.addEventListener("popstate", function () { urlChanged(true); });
  // Which slider the person holds or steers: only their own movements are fetched (a value the URL-sync
  // writes after a link, a preset or the back button is drawn by the usual path).
  var steering = null, until = 0;
  function steer(ev) {
    var any = ev.target && ev.target.closest && ev.target.closest(".dash-slider-container");
    if (any && ev.type === "pointerdown") {
      down = true;
      if (Date.now() >= keyBurstUntil) burstPushed = false;
      keyBurstUntil = Infinity; // until the button is up
    }
    var box = slider(ev.target);
    if (!box) return;
    steering = box;
    until = Date.now() + 1500;
    // an arrow key's value is known before the slider has re-rendered: drawn at the next frame (its own change of
    // aria-valuenow then finds that position drawn already)
    var sign = {ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1}[ev.key];
    var thumb = box.querySelector("[role=slider]");
    var off = box.querySelector("[aria-disabled='true'], [data-disabled]");
    if (sign && thumb && !off && !ev.shiftKey && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      if (Date.now() >= keyBurstUntil) burstPushed = false;
      keyBurstUntil = Date.now() + KEY_BURST_MS;
      var v = Number(thumb.getAttribute("aria-valuenow")) + sign * conf.controls[box.id][1];
      var lo = Number(thumb.getAttribute("aria-valuemin")), hi = Number(thumb.getAttribute("aria-valuemax"));
      if (v >= lo - 1e-9 && v <= hi + 1e-9) moved(box, v);
    }
  }
  // a slider about to be used: its neighbours are asked for ahead from the state on screen
  function near(ev) {
    var box = slider(ev.target);
    if (!box || down || waiting) return;
    // the latest position while keys are being pressed; otherwise the URL's state (a link, a preset)
    var base = target !== null && Date.now() - targetAt < 2000 ? target : location.search.replace(/^\?/, "");
    anticipate(base, box);
  }
  document.addEventListener("focusin", near, true);
  document.addEventListener("pointerover", near, true);
  document.addEventListener("pointerdown", steer, true);
  document.addEventListener("keydown", steer, true);
  function up() {
    // a drag that wrote the URL while moving: its last write (after the release) still replaces that entry;
    // one that did not (a live slider writes on release): the release's write is a new entry, and so is any after
    if (down) keyBurstUntil = burstPushed ? Date.now() + KEY_BURST_MS : 0;
    down = false;
    finish(); // the charts left off screen while held
  }
  document.addEventListener("pointerup", up, true);
  document.addEventListener("pointercancel", up, true);
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
      moved(box, Number(r.target.getAttribute("aria-valuenow")));
    });
  }).observe(document.documentElement, {attributes: true, attributeFilter: ["aria-valuenow"], subtree: true});
})();

// plotly.js in two bundles (headdiv/dashboard/page/vendored.py): a 2-D one that evaluates in a sixth of the time,
// fetched at once, and the full one, fetched the first time a figure holds a trace type the 2-D one lacks
// (the Surfaces view's 3-D surface). dcc.Graph draws with `window.Plotly` when it is set rather than
// fetching the full bundle itself, so this object stands in for it: each chart is drawn by one bundle and
// its later calls go to that bundle (a chart moves to the full one, with its event listeners, when it
// first needs it); the calls on one chart keep their order.
//
// A chart's first drawing gets a task of its own: a view's figures arrive together, and drawing them all
// in one task (0.1-0.3 s on two cores) would show none until the last is done; this way the browser paints
// each chart as it is drawn and handles input in between. A chart that shows data already is redrawn at
// once, in the task that asked (as are the draws inside `Plotly.together`, assets/live.js): a new state's
// charts change together, in one paint, since a paint between each two of them costs as much as drawing
// one and shows charts of two states at once (the old ones stay on screen meanwhile).
(function () {
  var tag = document.getElementById("plotly-bundles");
  if (!tag || window.Plotly) return;
  var urls = {small: tag.getAttribute("href"), full: tag.getAttribute("data-full")};
  var facade = {};
  var ready = {}; // name -> loaded bundle
  var loading = {};
  var drawnBy = new WeakMap(); // chart div -> the name of the bundle that drew it
  var drewWith = new WeakMap(); // chart div -> the data (array) it was last drawn with
  var byGraph = new WeakSet(); // charts dcc.Graph has drawn (with its config) at least once
  var withData = new WeakSet(); // charts drawn with data at least once
  var emptyFirst = []; // [chart div, its drawing's arguments]: drawn empty before the opening figure came
  var pending = new WeakMap(); // chart div -> the promise of its last call that had to wait
  var DRAWS = {react: true, newPlot: true};
  var turns = []; // draws waiting for a task of their own
  var busy = false; // a chart was drawn in this task
  var drewData = false; // a chart with data has been drawn, and not yet announced
  var together = false; // the draws asked for now are one change of the page: drawn at once, in this task

  function load(name) {
    if (!loading[name]) {
      loading[name] = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = urls[name];
        s.onload = function () {
          ready[name] = window.Plotly; // each bundle sets window.Plotly: keep it here, put the facade back
          window.Plotly = facade;
          resolve(ready[name]);
        };
        s.onerror = function () {
          delete loading[name];
          reject(new Error("plotly.js (" + name + ") did not load"));
        };
        document.head.appendChild(s);
      });
    }
    return loading[name];
  }
  function base() { // the 2-D bundle; should it fail to load, the full one does its work
    return load("small").catch(function () { return load("full"); });
  }

  function nextTurn() {
    var draw = turns.shift();
    if (draw) {
      draw();
      setTimeout(nextTurn, 0);
      return;
    }
    busy = false;
    if (drewData) { // what typeset_later.js waits for: the charts are on screen, the CPU is free
      drewData = false;
      document.dispatchEvent(new Event("headdiv:charts-drawn"));
    }
  }
  function startTurn() {
    busy = true;
    setTimeout(nextTurn, 0);
  }
  function inTurn(draw) { // draw() in a task where no other chart was drawn; a promise of its result
    return new Promise(function (resolve, reject) {
      var go = function () {
        try { resolve(draw()); } catch (e) { reject(e); }
      };
      if (busy) {
        turns.push(go);
      } else {
        startTurn();
        go();
      }
    });
  }

  function traces(args) { // of react/newPlot: (gd, data, layout, config) or (gd, {data, layout, ...})
    var a = args[1];
    return (Array.isArray(a) ? a : a && a.data) || [];
  }
  // A chart's first drawing (the view's "computing…" frame, or the figure its tab showed when last seen: a
  // room's follower returning to a tab) shows the opening state's figure instead when the page has it
  // already (assets/live.js `opening`): the view's own drawing would end on that very figure, one request
  // and one drawing later.
  // A chart that mounted before that figure came is drawn as asked (one with another state's data is marked
  // meanwhile: live.js `hold`), and drawn again with it when it comes ("headdiv:opening", assets/live.js)
  // unless it has been drawn with other data since.
  function opening(args) {
    var gd = args[0], live = window.headdivLive, a = args[1];
    if (!(gd instanceof Element) || withData.has(gd) || !live || !live.opening) return args;
    if (!a || Array.isArray(a)) return args; // dcc.Graph draws with (gd, {data, layout, config, frames})
    var fig = live.opening(gd);
    if (!fig) {
      if (live.openingDue && live.openingDue()) {
        emptyFirst.push([gd, args]);
        if (traces(args).length && live.hold) live.hold(gd);
      }
      return args;
    }
    if (fig.data === traces(args)) return args;
    return [gd, Object.assign({}, a, {data: fig.data, layout: fig.layout})].concat(args.slice(2));
  }
  // The view's own drawing (dcc.Graph, after the opening figure or a live drawing, assets/live.js) then
  // hands the chart the very figure it shows: the same objects, from the tab's memory. Nothing to redraw:
  // plotly.js would still spend 15-35 ms a chart on defaults and diffing (a θ key press drew the view's five
  // charts twice, the second time to the same picture). Data that is the same array is the same answer.
  function showsAlready(args) {
    var gd = args[0], a = args[1];
    return gd instanceof Element && a && !Array.isArray(a) && a.data && byGraph.has(gd) && !pending.get(gd) &&
      drewWith.get(gd) === a.data && gd.data === a.data;
  }
  // A figure the live path is about to draw on that chart (assets/live.js `drawing`: the charts on screen at the
  // next frame, the others after it) is left to it: the same objects, drawn once, on its schedule.
  function leftToLive(args) {
    var gd = args[0], a = args[1], live = window.headdivLive;
    return gd instanceof Element && a && !Array.isArray(a) && a.data && byGraph.has(gd) && !pending.get(gd) &&
      !!live && !!live.drawing && live.drawing(gd, a.data);
  }
  // A figure of another state than the one a room's follower shows (assets/live.js `outdated`): not drawn.
  function outdated(args) {
    var live = window.headdivLive;
    return args[0] instanceof Element && !!live && !!live.outdated && live.outdated(traces(args));
  }
  function needsFull(gd, data) {
    if (!ready.small || drawnBy.get(gd) === "full") return true;
    var held = ready.small.bundledTraces || [];
    return data.some(function (t) { return held.indexOf((t && t.type) || "scatter") < 0; });
  }
  function run(which, path, args) {
    var gd = args[0], P = ready[which], owner = drawnBy.get(gd), kept = null;
    if (owner && owner !== which) { // 2-D so far, now 3-D: the full bundle draws it from scratch
      kept = gd._ev && gd._ev._events; // dcc.Graph's listeners (hover, click, relayout) move with it
      ready[owner].purge(gd);
    }
    var self = path.length === 2 ? P[path[0]] : P;
    var out = self[path[path.length - 1]].apply(self, args);
    if (DRAWS[path[0]] && gd instanceof Element) {
      drawnBy.set(gd, which);
      drewWith.set(gd, traces(args));
      if (!Array.isArray(args[1])) byGraph.add(gd);
      if (traces(args).length) {
        drewData = true;
        withData.add(gd);
      }
    }
    if (path[0] === "purge") drawnBy.delete(gd);
    if (DRAWS[path[0]] && gd instanceof Element && window.headdivLive && window.headdivLive.drew) {
      window.headdivLive.drew(gd); // what it shows now (a room's follower marks a chart until it shows the state)
    }
    if (kept && gd.on) {
      Object.keys(kept).forEach(function (ev) {
        [].concat(kept[ev]).forEach(function (f) { gd.on(ev, f); });
      });
    }
    return out;
  }
  function call(name) {
    var path = name.split(".");
    var draws = !!DRAWS[path[0]];
    return function () {
      var args = Array.prototype.slice.call(arguments);
      if (typeof args[0] === "string") args[0] = document.getElementById(args[0]);
      var asked = args;
      if (draws) args = opening(args); // a chart's first drawing
      if (draws && (showsAlready(args) || leftToLive(args) || outdated(args))) return Promise.resolve(args[0]);
      var gd = args[0], data = draws ? traces(args) : [];
      // the opening figures are drawn in the task that mounts their charts, as one change of the page:
      // dealt one task each, the page's first callbacks (0.1-0.2 s) ran between them, the charts later
      var now = together || args !== asked;
      var redraw = draws && data.length && gd && gd.data && gd.data.length;
      if (ready.small && !pending.get(gd) && !(draws && busy && !now && !redraw)) { // at once, as plotly.js would
        var which = needsFull(gd, data) ? "full" : "small";
        if (ready[which]) {
          if (draws && !busy) startTurn(); // a redraw while a turn runs joins it: one chain of turns at a time
          return run(which, path, args);
        }
      }
      var before = pending.get(gd) || Promise.resolve();
      var p = before.catch(function () {}).then(base).then(function () {
        var which = needsFull(gd, data) ? "full" : "small";
        return load(which).then(function () {
          var go = function () { return run(which, path, args); };
          return draws ? inTurn(go) : go();
        });
      });
      if (gd instanceof Element) {
        pending.set(gd, p);
        var done = function () { if (pending.get(gd) === p) pending.delete(gd); };
        p.then(done, done);
      }
      return p;
    };
  }

  ["react", "newPlot", "relayout", "restyle", "update", "redraw", "purge", "extendTraces", "prependTraces",
    "addTraces", "deleteTraces", "moveTraces", "animate", "addFrames", "deleteFrames", "toImage",
    "downloadImage"].forEach(function (name) { facade[name] = call(name); });
  facade.Plots = {resize: call("Plots.resize")};
  // fn's draws in this task, one after the other (those of a chart with a call still waiting keep their turn)
  facade.together = function (fn) {
    together = true;
    try { fn(); } finally { together = false; }
  };
  // The page's own adjustments of a chart's layout (large fonts, room for a legend: assets/large_fonts.js,
  // assets/fit_charts.js) are made on the chart's layout and drawn with react, not relayout: dcc.Graph copies
  // a relayout's keys from the chart into its figure when the event comes, so an event that came after the
  // next state's figure was handed over wrote the old figure's title into the new one (and every relayout
  // cost a second drawing, Dash's, of the figure it had written). An adjustment is measured on what the
  // chart shows: while a drawing of the chart still waits, it is dropped (the next one is measured anew).
  facade.adjust = function (gd, update) {
    var layout = gd && gd.layout;
    if (!layout || pending.get(gd)) return Promise.resolve(gd);
    Object.keys(update).forEach(function (path) {
      var keys = path.split("."), at = layout;
      keys.slice(0, -1).forEach(function (k) {
        if (!at[k] || typeof at[k] !== "object") at[k] = {};
        at = at[k];
      });
      at[keys[keys.length - 1]] = update[path];
    });
    return facade.react(gd, gd.data, layout);
  };
  // anything else (Plotly.version, a console session) is read from the 2-D bundle once it is there
  facade = new Proxy(facade, {
    get: function (target, key) { return key in target ? target[key] : (ready.small || {})[key]; },
  });
  window.Plotly = facade;
  document.addEventListener("headdiv:opening", function () {
    var charts = emptyFirst, live = window.headdivLive;
    emptyFirst = [];
    facade.together(function () {
      charts.forEach(function (c) {
        var gd = c[0], fig = live.opening(gd);
        if (!gd.isConnected || !fig || (withData.has(gd) && drewWith.get(gd) !== traces(c[1]))) return;
        var figure = Object.assign({}, c[1][1], {data: fig.data, layout: fig.layout});
        facade.react.apply(null, [gd, figure].concat(c[1].slice(2)));
      });
    });
  });
  base().catch(function () {}); // now, while Dash fetches the layout and answers the first callbacks
})();

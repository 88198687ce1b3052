// The page's clientside callbacks (what needs no Python runs in the browser; Python registers them with
// ClientsideFunction("headdiv", name)). What they need from the server is in the store `client-config`,
// built once with the layout (dashboard/client_config.py), always passed as their last argument.
(function () {
  var C = function () { return window.dash_clientside; };
  var skip = function (n) { var out = []; for (var i = 0; i < n; i++) out.push(C().no_update); return out; };
  var norm = function (v) {
    if (v === undefined || v === null || (Array.isArray(v) && !v.length)) return null;
    return JSON.stringify(v);
  };

  // the preset that page state `d` matches, as `tour_story.active_preset` decides (or null)
  function matchingPreset(d, presets) {
    for (var id in presets.targets) {
      var t = presets.targets[id], ok = !presets.views[id] || d.tab === presets.views[id];
      for (var i = 0; i < presets.keys.length && ok; i++) ok = norm(d[presets.keys[i]]) === norm(t[presets.keys[i]]);
      if (ok) return id;
    }
    return null;
  }

  // The preset button last clicked, and whether the page has shown its state since: a preset that sets only its
  // view's defaults (`plain`) matches whoever opens that tab, so its story is told only once its button chose it
  // (tour_story.active_preset, which cannot see a click, never tells it). Leaving its state forgets the click.
  var chosen = {id: null, shown: false};
  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest("button.preset") : null;
    var id = null;
    try { id = b ? JSON.parse(b.id).name : null; } catch (err) { id = null; }
    if (id) chosen = {id: id, shown: false};
  }, true);

  var drawing = {}; // a drawing callback's outputs -> how many times it was called (the newest call draws)
  var playing = {}; // slider id -> true while its ▶ plays (set by playTick, cleared by it and by stopPlay)

  var headdiv = {
    // the header's numbers, formatted by the server with the page's one number rule (figures.theme.fmt)
    headline: function (data) {
      return data && data.headline ? data.headline : skip(4);
    },

    shareLink: function (href) { return href || ""; },

    // A live view's charts once its result is in its store (headdiv/dashboard/drawing/live.py): the figures the live
    // path draws for the URL's state (with the callback's other inputs, such as Ensemble's matrix, set), so
    // a state is drawn by the server once and the charts the live path drew already are not redrawn. An
    // output `children` is the result's notes, as a list.
    // An answer that arrives once a newer state was asked for (the hand moved on, a preset, or this callback
    // ran again) is not drawn: a chart never shows another state than its controls.
    liveDraw: function (data) {
      var context = C().callback_context, outs = context.outputs_list;
      var live = window.headdivLive;
      if (!data || !data.result || !live) return skip(outs.length);
      var values = {};
      context.inputs_list.slice(1).forEach(function (input) {
        var name = live.params[input.id];
        if (name && input.value !== undefined && input.value !== null) values[name] = input.value;
      });
      var which = JSON.stringify(outs.map(function (o) { return o.id; }));
      var asked = (drawing[which] || 0) + 1, query = live.query(values);
      drawing[which] = asked;
      return live.answer(values).then(function (answer) {
        if (answer && (drawing[which] !== asked || !live.current(query, values))) {
          live.stale += 1;
          answer = null;
        }
        if (!answer) return skip(outs.length);
        var charts = {};
        answer.parts.forEach(function (part) { Object.assign(charts, part.charts); });
        return outs.map(function (out) {
          if (out.property === "children") {
            return (data.result.notes || []).map(function (note) {
              return {type: "Li", namespace: "dash_html_components", props: {children: note}};
            });
          }
          var fig = out.id && out.id.name ? charts[out.id.name] : null;
          return fig || C().no_update;
        });
      });
    },

    // each tab's state, only while it is shown and only when it changed
    gateViews: function (data) {
      var rest = Array.prototype.slice.call(arguments, 1), config = rest.pop(), last = rest;
      var out = last.map(function () { return C().no_update; });
      if (!data) return out;
      var i = config.tabs.indexOf(data.tab);
      if (i >= 0 && JSON.stringify(data) !== JSON.stringify(last[i])) out[i] = data;
      return out;
    },

    // the simulation's result, to the shown tab if it draws it, only when it is a new one
    gateSimulation: function (result) {
      var rest = Array.prototype.slice.call(arguments, 1), config = rest.pop();
      var n = config.drawing.length, state = rest[n], last = rest.slice(n + 1);
      var out = last.map(function () { return C().no_update; });
      var j = state ? config.drawing.indexOf(state.tab) : -1;
      if (j >= 0 && result && !(last[j] && last[j].key === result.key)) out[j] = result;
      return out;
    },

    // the tour panel hears the page state only when the tour, its step or the page flags change
    gateTour: function (data, last, config) {
      if (!data) return C().no_update;
      var sig = function (d) { return JSON.stringify(config.watched.map(function (k) { return d[k]; })); };
      return sig(data) === sig(last || config.plain) ? C().no_update : data;
    },

    // without a tour, the story of the preset the page matches (the same answer `tour_panel._render` gives)
    presetStory: function (data, style, cls, title, config) {
      var p = config.presets, none = skip(5);
      if (!data || data.tour) return none;
      var hiding = p.hiding.some(function (k) { return (data.hide || []).indexOf(k) >= 0; });
      var id = hiding ? null : matchingPreset(data, p);
      if (id && p.plain[id] && id !== chosen.id) id = null;
      if (chosen.id && id === chosen.id) chosen.shown = true;
      else if (chosen.id && chosen.shown) chosen = {id: null, shown: false};
      var hidden = !!(style && style.display === "none");
      if (id) {
        var s = p.stories[id];
        return (!hidden && cls === "tour-panel preset-story" && title === s[0])
          ? none : [{}, "tour-panel preset-story", p.word, s[0], s[1]];
      }
      return hidden ? none : [{display: "none"}, "tour-panel", "", "", ""];
    },

    // ▶ steps a slider through its range as a user's drag would (set_props); ⏸ stops it
    playTick: function (clicks, ticks, disabled, config) {
      var c = C(), ctx = c.callback_context, play = config.play;
      var trig = (ctx.triggered && ctx.triggered[0]) || {}, pid = trig.prop_id || "";
      if (!pid || pid === ".") return [c.no_update, c.no_update];
      var id = JSON.parse(pid.slice(0, pid.lastIndexOf(".")));
      var box = document.getElementById(id.slider);
      var handle = box && box.querySelector("[role=slider]");
      // a slider the shown view ignores is disabled: playing it would change nothing on screen
      if (!handle || handle.getAttribute("aria-disabled") === "true") return [true, play.play];
      var now = parseFloat(handle.getAttribute("aria-valuenow"));
      var lo = parseFloat(handle.getAttribute("aria-valuemin")), hi = parseFloat(handle.getAttribute("aria-valuemax"));
      var step = Math.max(1, Math.round((hi - lo) / play.steps));
      if (pid.endsWith(".n_clicks")) {
        if (!disabled) {
          delete playing[id.slider];
          return [true, play.play];
        }
        playing[id.slider] = true;
        c.set_props(id.slider, {value: lo});  // a play goes through the whole range, from its start
        return [false, play.pause];
      }
      if (disabled) return [c.no_update, c.no_update];
      // a tick taken before a preset stopped the play and run after it reads `disabled` from before the stop:
      // the stop itself is known here at once, so the preset's state is never stepped on
      if (!playing[id.slider]) return [true, play.play];
      var next = Math.min(hi, (isNaN(now) ? lo : now) + step);
      c.set_props(id.slider, {value: next});
      if (next < hi) return [c.no_update, c.no_update];
      delete playing[id.slider];
      return [true, play.play];
    },

    // a preset (or anything else that sets the whole state) stops every ▶ that is playing
    stopPlay: function (clicks, config) {
      playing = {};
      var outs = C().callback_context.outputs_list, n = outs && outs[0] ? outs[0].length : 0;
      var off = [], label = [];
      for (var i = 0; i < n; i++) { off.push(true); label.push(config.play.play); }
      return [off, label];
    },

    showWhenChecked: function (on) { return (on && on.length) ? {} : {display: "none"}; }
  };

  window.dash_clientside = Object.assign({}, window.dash_clientside, {headdiv: headdiv});
})();

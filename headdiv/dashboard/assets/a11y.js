// What assistive technology needs from Dash's own components, which do not take these as props: every
// control named by its visible label, log-scale sliders speaking their value, choice lists as the groups of
// native checkboxes and radios they are, and dropdowns reachable by Tab on their own button. One observer
// keeps it true as Dash mounts and re-renders controls (WCAG 2.2: 1.3.1, 4.1.2, 2.1.1).
(function () {
  function text(x) {
    if (x >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3)) return x.toExponential(2);
    return String(Number(x.toPrecision(6)));
  }
  function set(el, name, value) {
    if (value && el.getAttribute(name) !== value) el.setAttribute(name, value);
  }
  // A control's name is its label's text without the value badge (the slider says its value itself); the
  // unit in the label's parentheses becomes the spoken unit of its value ("45 degrees").
  function labelOf(el) {
    var box = el.closest("[data-a11y-name]");
    if (box) return box.getAttribute("data-a11y-name");
    var ctl = el.closest(".control");
    var label = ctl && ctl.querySelector(":scope > label");
    if (!label) return el.getAttribute("title") || "";
    var copy = label.cloneNode(true);
    copy.querySelectorAll(".value-badge").forEach(function (b) { b.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }
  var UNITS = {"°": "degrees"};
  function spoken(el, now) {
    var wrap = el.closest("[data-scale]");
    var value = now;
    if (wrap) {
      var base = Number(wrap.getAttribute("data-scale"));
      if (isFinite(base)) value = Math.pow(base, now);
    }
    var unit = (labelOf(el).match(/\(([^)]+)\)\s*$/) || [])[1];
    return text(value) + (unit ? " " + (UNITS[unit] || unit) : "");
  }
  function slider(handle) {
    set(handle, "aria-label", labelOf(handle).replace(/\s*\([^)]*\)\s*$/, ""));
    var now = Number(handle.getAttribute("aria-valuenow"));
    if (isFinite(now)) set(handle, "aria-valuetext", spoken(handle, now));
  }
  function input(el) {
    if (el.labels && el.labels.length) return;
    if (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")) return;
    set(el, "aria-label", labelOf(el) || el.getAttribute("placeholder") || el.getAttribute("name") || "");
  }
  // dcc.Checklist and dcc.RadioItems say listbox > option around native inputs: interactive inside
  // interactive, and a list with no name. The native inputs carry the semantics; the wrapper is their group.
  function choices(list) {
    var radios = list.classList.contains("dash-radioitems");
    set(list, "role", radios ? "radiogroup" : "group");
    var name = labelOf(list);
    if (!name) {
      var only = list.querySelectorAll("label");
      if (only.length === 1) name = only[0].textContent.trim();
    }
    set(list, "aria-label", name);
    list.querySelectorAll(":scope > [role=option]").forEach(function (o) {
      o.removeAttribute("role");
      o.removeAttribute("aria-selected");
    });
  }
  // dcc.Dropdown puts an aria-hidden input in the Tab order that hands focus to its button: the button
  // itself takes Tab, and is named by the control's label and then its value.
  function dropdown(button) {
    var dummy = button.previousElementSibling;
    // only what differs is written: each write is a mutation this script's observer hears, and writing the
    // same value again re-queued the dropdown for the next frame, every frame, for as long as the page was open
    if (dummy && dummy.classList.contains("dash-dropdown-focus-target")) {
      if (dummy.tabIndex !== -1) dummy.tabIndex = -1;
      if (!dummy.hasAttribute("disabled")) dummy.setAttribute("disabled", "");
    }
    if (!button.disabled && button.tabIndex !== 0) button.tabIndex = 0;
    var ctl = button.closest(".control");
    var label = ctl && ctl.querySelector(":scope > label");
    if (label) {
      if (!label.id) label.id = "label-" + button.id;
      var by = button.getAttribute("aria-labelledby") || "";
      if (by.split(" ").indexOf(label.id) < 0) button.setAttribute("aria-labelledby", (label.id + " " + by).trim());
    }
  }
  // dcc.Tabs draws its tabs as plain divs: no role, no tab stop, no keys. They become a WAI-ARIA tablist
  // with a roving tab stop (Tab reaches the selected tab, then the view under it); arrows, Home and End move
  // among the tabs and Enter or Space opens one. Manual activation, as the ARIA practices advise where a
  // panel takes a moment to draw: passing over a view on the way to another does not compute its charts.
  function tabs(list) {
    set(list, "role", "tablist");
    set(list, "aria-label", "Views");
    var panel = list.parentElement && list.parentElement.querySelector(":scope > .tab-content");
    if (panel) {
      if (!panel.id) panel.id = "tab-panel";
      set(panel, "role", "tabpanel");
    }
    list.querySelectorAll(":scope > .tab").forEach(function (tab, i) {
      var selected = tab.classList.contains("tab--selected");
      if (!tab.id) tab.id = "view-tab-" + i;
      set(tab, "role", "tab");
      set(tab, "aria-selected", selected ? "true" : "false");
      // the attribute, not the property: a div without one reads tabIndex -1 and still takes no focus
      set(tab, "tabindex", selected ? "0" : "-1");
      if (panel) set(tab, "aria-controls", panel.id);
      if (selected && panel) set(panel, "aria-labelledby", tab.id);
    });
    if (list.__a11yTabs) return;
    list.__a11yTabs = true;
    // the selected tab changes by its class alone (React's render): heard here, not by the page's observer
    new MutationObserver(function () { tabs(list); })
      .observe(list, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
    list.addEventListener("keydown", function (e) {
      var tab = e.target.closest && e.target.closest("[role=tab]");
      if (!tab || e.altKey || e.ctrlKey || e.metaKey) return;
      var all = Array.prototype.slice.call(list.querySelectorAll(":scope > [role=tab]"));
      var i = all.indexOf(tab), to = null;
      if (e.key === "ArrowRight" || e.key === "ArrowDown") to = all[(i + 1) % all.length];
      else if (e.key === "ArrowLeft" || e.key === "ArrowUp") to = all[(i - 1 + all.length) % all.length];
      else if (e.key === "Home") to = all[0];
      else if (e.key === "End") to = all[all.length - 1];
      else if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        tab.click();
        return;
      }
      if (!to) return;
      e.preventDefault();
      to.focus();
    });
  }
  // each element of `root`'s subtree matching `selector`, `root` itself included
  function each(root, selector, fn) {
    if (root.matches && root.matches(selector)) fn(root);
    root.querySelectorAll(selector).forEach(fn);
  }
  function all(root) {
    each(root, ".tab-container", tabs);
    each(root, "[role=slider]", slider);
    each(root, ".dash-options-list[role=listbox]", choices);
    each(root, "button.dash-dropdown", dropdown);
    each(root, "input:not([type=hidden]):not(.dash-dropdown-focus-target), textarea", input);
  }
  // What was added is mended once per frame, and only there (with the control around it, whose label may
  // have come after its input): a chart's redraw or a re-rendered slider costs its own few nodes, not a walk
  // over every control of the page at every frame of a drag.
  var pending = false, added = [];
  function soon(el) {
    var root = el.closest(".control") || el;
    if (added.indexOf(root) < 0) added.push(root);
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      var roots = added;
      pending = false;
      added = [];
      roots.forEach(function (r) { if (r.isConnected) all(r); });
    });
  }
  // Plotly's redraws are most of the page's mutations, all inside SVG: skipped first, so a drag pays little here
  var SVG = "http://www.w3.org/2000/svg";
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.target.namespaceURI === SVG) return;
      if (r.type === "attributes" && r.target.getAttribute("role") === "slider") slider(r.target);
      else if (r.type === "attributes" && r.target.classList.contains("dash-dropdown-focus-target")) {
        soon(r.target.parentElement || r.target); // its dropdown button is a sibling
      }
      else if (r.type === "attributes" && r.target.hasAttribute("aria-selected") &&
               r.target.classList.contains("dash-options-list-option")) r.target.removeAttribute("aria-selected");
      else if (r.type === "childList") {
        r.addedNodes.forEach(function (n) { if (n.nodeType === 1 && n.namespaceURI !== SVG) soon(n); });
      }
    });
  }).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow", "tabindex", "aria-selected"],
  });
  document.addEventListener("DOMContentLoaded", function () { all(document); });
  // Verdicts and job progress are spoken once the page rests, not at every redraw of a drag: their own
  // regions are kept quiet (aria-live off) and one polite announcer says those that changed, together,
  // after QUIET_MS without a change. A message equal to the last one spoken is not repeated.
  var QUIET_MS = 1200;
  var SPOKEN = ".view .verdict, .view .job-status";
  var timer = null, lastSaid = "";
  function announcer() {
    var a = document.getElementById("announcer");
    if (a) return a;
    a = document.createElement("div");
    a.id = "announcer";
    a.className = "sr-only";
    a.setAttribute("role", "status");
    a.setAttribute("aria-live", "polite");
    document.body.appendChild(a);
    return a;
  }
  var changed = [];
  function speakSoon(el) {
    if (changed.indexOf(el) < 0) changed.push(el);
    clearTimeout(timer);
    timer = setTimeout(function () {
      var text = changed.filter(function (e) { return e.isConnected && e.offsetParent; })
        .map(function (e) { return e.innerText.replace(/\s+/g, " ").trim(); }).filter(Boolean).join(" ");
      changed = [];
      if (!text || text === lastSaid) return;
      lastSaid = text;
      announcer().textContent = text;
    }, QUIET_MS);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      var node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!node || node.namespaceURI === SVG) return;
      var region = node && node.closest && node.closest(SPOKEN);
      if (region) {
        if (region.getAttribute("aria-live") !== "off") region.setAttribute("aria-live", "off");
        speakSoon(region);
      }
    });
  }).observe(document.documentElement, {subtree: true, childList: true, characterData: true});
  // "Skip to the charts" moves focus itself: following its #main would change the address Dash watches.
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest(".skip-link");
    var main = link && document.getElementById("main");
    if (!main) return;
    e.preventDefault();
    main.focus({preventScroll: true});
    main.scrollIntoView({block: "start"});
  });
})();

// Present to the room (headdiv/server/rooms.py): the lecturer's page sends what it shows to a room, and every
// phone that opened /r/<code> shows the same, live.
//
// Lecturer: "Present to the room" in the header (or ?present=1) makes a room (POST /api/v1/rooms); its code,
// link and QR code are shown with how many phones follow. The token that lets this page change the room is
// kept in this tab's session storage, never in a link. Each change of the page's URL (view, every parameter,
// tour step, large fonts) is sent (PUT .../state), the newest only: one request in flight, the latest state
// after it. A prediction step's class poll opens by itself and is sent while it is open (before the reveal).
//
// Follower (/r/<code>): a server-sent-event stream; each state is applied as the page's own history entry
// (the URL-sync and the views draw it from the same cached answers as everyone's), and its charts are drawn
// from its live answer at once (assets/live.js `follow`), marked until they show it. While following, the
// page's controls are hidden (style.css, body.room-follower): any of them would take the phone off the
// lecturer's page, so that is one deliberate tap, "Explore on my own"; states keep arriving but are not
// applied until "Back to the lecturer". An open poll is the phone's one place to answer: a panel on the
// page, one tap; the reveal closes it. A dropped stream reconnects (the browser's EventSource) and is sent
// the current state again.
(function () {
  var ROOM = /^\/r\/([A-HJ-NP-Z2-9]{6})\/?$/;
  var KEY = "headdiv-room";
  var PRESENT = /(^|[?&])present=(1|true|on|yes)(&|$)/;

  // the page's words in its language (assets/words.js), and a poll's page in it too: each phone its own
  function say(key, fields) { return window.headdivWords.say(key, fields); }
  function voteUrl(poll) { return "/vote/" + poll + "?lang=" + encodeURIComponent(document.documentElement.lang || "en"); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function bar() {
    var b = document.getElementById("room-bar");
    if (!b) {
      b = el("div", "room-bar");
      b.id = "room-bar";
      b.setAttribute("role", "region");
      b.setAttribute("aria-label", say("room.bar"));
      document.body.insertBefore(b, document.body.firstChild);
      // a follower's line is fixed at the foot and wraps on a narrow phone: the page's foot room and the
      // question's panel above it follow its height (style.css, --room-bar-h)
      if (window.ResizeObserver) {
        new ResizeObserver(function () {
          document.body.style.setProperty("--room-bar-h", b.offsetHeight + "px");
        }).observe(b);
      }
    }
    b.textContent = "";
    return b;
  }
  // a query without what is only one page's own: present=1 (the lecturer's), lang= (each phone reads the room
  // in its own language: docs/languages.md)
  function roomQuery(search) {
    var q = String(search || "").replace(/^\?/, "").split("&").filter(function (p) {
      return p && !/^(present|lang)=/.test(p);
    }).join("&");
    return q ? "?" + q : "";
  }
  function shownQuery() { return roomQuery(window.location.search); }
  // this phone's own language, as its link named it (none: its browser's), kept in every state it follows
  var ownLang = new URLSearchParams(window.location.search).get("lang");
  function ownQuery(query) {
    var q = roomQuery(query);
    if (!ownLang) return q;
    return (q ? q + "&" : "?") + "lang=" + encodeURIComponent(ownLang);
  }
  // whether the tour step's figure is hidden behind its question (the gate's "conceal"); null with no gate
  function concealed() {
    var gate = document.getElementById("tour-gate");
    return gate ? /\bconceal\b/.test(gate.className) : null;
  }
  // the poll a prediction step has open on the lecturer's page, until its answer is revealed
  function openPoll() {
    var link = document.getElementById("tour-poll-link");
    if (!link || concealed() !== true) return null;
    var m = /\/vote\/([A-Za-z0-9_-]{16})/.exec(link.getAttribute("href") || "");
    return m ? m[1] : null;
  }

  // the step a page shows ("tour/step"), the key a step's answer and vote are kept under
  function stepShown() {
    var q = new URLSearchParams(window.location.search);
    return q.get("tour") ? q.get("tour") + "/" + q.get("step") : null;
  }
  // the choice id a tour choice button stands for (its Dash id is {"type": "tour-choice", "choice": id})
  function choiceOf(button) {
    try { return JSON.parse(button.id).choice || null; } catch (e) { return null; }
  }
  function choiceButton(choice) {
    var found = null;
    document.querySelectorAll(".tour-choices button").forEach(function (b) { if (choiceOf(b) === choice) found = b; });
    return found;
  }

  // ---- lecturer ------------------------------------------------------------------------------------
  var room = null, sending = false, pending = false, lastSent = null;
  // the answer the shown step's question is revealed with here (its figure shown), else null: the reveal
  // names the choice it was made with (headdiv/dashboard/teaching/tour_panel.py), however it was chosen
  function revealed() {
    if (!stepShown() || concealed() !== false) return null;
    var answer = document.querySelector("#tour-reveal .tour-answer");
    return (answer && answer.getAttribute("data-choice")) || null;
  }

  function saved() {
    try { return JSON.parse(window.sessionStorage.getItem(KEY) || "null"); } catch (e) { return null; }
  }
  function present() {
    var known = saved();
    if (known && known.code && known.token) { room = known; showPresenting(); send(true); return; }
    fetch("/api/v1/rooms", { method: "POST", credentials: "same-origin" })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (a) {
        if (!a.ok) { showProblem(a.body.message || a.body.detail || "the room could not be made"); return; }
        room = a.body;
        window.sessionStorage.setItem(KEY, JSON.stringify(room));
        showPresenting();
        send(true);
      })
      .catch(function () { showProblem("the server could not be reached"); });
  }
  function showProblem(text) {
    var b = bar();
    b.appendChild(el("span", "room-problem", say("room.problem", {text: text})));
  }
  function showPresenting() {
    var b = bar();
    b.classList.add("presenting");
    var img = el("img", "room-qr");
    img.src = room.qr;
    img.alt = say("room.qr", {url: room.follow_url});
    var words = el("div", "room-words");
    words.appendChild(el("strong", "room-code", say("room.code", {code: room.code})));
    var link = el("a", "room-link", room.follow_url);
    link.href = room.follow_url;
    link.target = "_blank";
    words.appendChild(el("span", "", " " + say("room.follow_at") + " "));
    words.appendChild(link);
    var count = el("span", "room-count", "");
    count.id = "room-count";
    count.setAttribute("aria-live", "polite");
    words.appendChild(count);
    var end = el("button", "btn btn-small", say("room.end"));
    end.type = "button";
    end.addEventListener("click", stopPresenting);
    b.appendChild(img);
    b.appendChild(words);
    b.appendChild(end);
    // the server's sentence when the link is this computer's own address (as the poll's box says it)
    if (room.unreachable) {
      var note = el("p", "room-unreachable", room.unreachable);
      note.setAttribute("role", "note");
      b.appendChild(note);
    }
  }
  function followers(n) {
    var c = document.getElementById("room-count");
    if (c) c.textContent = " · " + say(n === 1 ? "room.one_follows" : "room.many_follow", {n: n});
  }
  // A prediction step asks the room by itself: its class poll is opened once per step while presenting (the
  // page's own "Ask the class"), so every phone gets the question without the lecturer reaching for it.
  var asked = {};
  function askTheRoom() {
    var button = document.getElementById("tour-poll-open");
    if (!button || concealed() !== true || button.offsetParent === null) return;
    if (document.getElementById("tour-poll-link")) return;
    var step = stepShown();
    if (asked[step]) return; // once: a refusal (too many polls) is shown on the page, not asked again
    asked[step] = true;
    button.click();
  }
  // the newest state, one request at a time; `force` re-sends the same (keeps the room alive)
  function send(force) {
    if (!room) return;
    askTheRoom();
    var state = { query: shownQuery(), poll: openPoll(), reveal: revealed() };
    var text = JSON.stringify(state);
    if (!force && text === lastSent) return;
    if (sending) { pending = true; return; }
    sending = true;
    lastSent = text;
    fetch("/api/v1/rooms/" + room.code + "/state", {
      method: "PUT",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-headdiv-lecturer": room.token },
      body: text
    }).then(function (r) {
      if (r.status === 404 || r.status === 403) { ended("the room has ended"); return null; }
      return r.json();
    }).then(function (body) { if (body) followers(body.followers); })
      .catch(function () { /* the next change or keep-alive tries again */ })
      .then(function () {
        sending = false;
        if (pending) { pending = false; send(false); }
      });
  }
  function ended(text) {
    window.sessionStorage.removeItem(KEY);
    room = null;
    var b = bar();
    b.appendChild(el("span", "room-problem", text));
  }
  function stopPresenting() {
    if (!room) return;
    fetch("/api/v1/rooms/" + room.code, {
      method: "DELETE", credentials: "same-origin", headers: { "x-headdiv-lecturer": room.token }
    }).catch(function () { /* it ends by itself when idle */ });
    ended(say("room.presenting_ended"));
  }

  // ---- follower ------------------------------------------------------------------------------------
  var code = null, latest = null, away = false, applying = false, source = null;

  var voted = {}; // step -> this phone's answer to its class poll
  var revealTimer = null;
  // The lecturer revealed the step's answer: this phone's figure is shown too, with its own vote as its
  // answer (so it reads "Not quite: you chose …" when it voted otherwise), or the lecturer's when it did not
  // vote. The step's choice buttons may not be drawn yet when the state arrives: looked for a while.
  function reveal(state) {
    clearTimeout(revealTimer);
    if (!state.reveal || away) return;
    var tries = 0;
    (function look() {
      if (latest !== state || away) return;
      var hidden = concealed(), step = stepShown();
      var button = step && choiceButton(voted[step] || state.reveal);
      if (hidden === true && button) {
        applying = true;
        button.click();
        applying = false;
        return;
      }
      if (hidden === false && document.querySelector("#tour-reveal .tour-answer")) return;
      if (++tries < 50) revealTimer = setTimeout(look, 200);
    })();
  }
  function apply(state) {
    latest = state;
    window.headdivRoom.latest = state;
    votePanel(state.poll);
    if (away) return;
    setTimeout(function () { reveal(state); }, 0);
    var query = ownQuery(state.query), target = "/r/" + code + query;
    if (window.location.pathname + window.location.search === target) return;
    applying = true;
    window.history.pushState(null, "", target);
    // the charts from the state's one cached answer, at once; the URL-sync's waves then find them drawn
    if (window.headdivLive && window.headdivLive.follow) window.headdivLive.follow(query);
    window.dispatchEvent(new PopStateEvent("popstate", { state: null }));
    applying = false;
    window.headdivRoom.applied += 1;
  }
  function showFollowing() {
    var b = bar();
    b.classList.add("follower");
    document.body.classList.add("room-follower");
    document.body.classList.remove("room-away");
    b.classList.remove("away");
    b.appendChild(el("span", "room-words", say("room.following", {code: code}) + " "));
    // the one way off the lecturer's page: the controls that would take it there are hidden meanwhile
    var explore = el("button", "btn btn-small", say("room.explore"));
    explore.type = "button";
    explore.id = "room-explore";
    explore.addEventListener("click", stepAway);
    b.appendChild(explore);
  }
  function stepAway() {
    if (away || !latest) return;
    away = true;
    if (window.headdivLive && window.headdivLive.unfollow) window.headdivLive.unfollow();
    document.body.classList.add("room-away");
    var b = bar();
    b.classList.add("follower");
    b.classList.add("away");
    b.appendChild(el("span", "room-words", say("room.exploring", {code: code}) + " "));
    var back = el("button", "btn btn-small", say("room.back"));
    back.type = "button";
    back.id = "room-back";
    back.addEventListener("click", function () {
      away = false;
      showFollowing();
      if (latest) apply(latest);
    });
    b.appendChild(back);
  }
  // The lecturer's question, answered here: the vote page's own form (headdiv/dashboard/teaching/vote_page.py, which
  // issues this phone's voter token in its cookie and counts one answer per phone) brought into this page,
  // its answer posted in the background; the reveal on the projector closes it. Its own page stays a link
  // for a phone whose request here fails.
  function votePanel(poll) {
    var panel = document.getElementById("room-vote");
    if (!poll) { if (panel) panel.remove(); return; }
    if (panel && panel.getAttribute("data-poll") === poll) return;
    if (panel) panel.remove();
    panel = el("div", "room-vote");
    panel.id = "room-vote";
    panel.setAttribute("data-poll", poll);
    panel.setAttribute("role", "region");
    panel.setAttribute("aria-label", say("room.question"));
    var said = el("p", "room-vote-said", say("room.asks"));
    said.id = "room-vote-said";
    said.setAttribute("role", "status");
    panel.appendChild(said);
    document.body.appendChild(panel);
    votePage(poll, "GET", null);
  }
  function fallback(panel, poll, text) {
    if (text) panel.querySelector(".room-vote-said").textContent = text;
    if (panel.querySelector("#room-vote-link")) return;
    var link = el("a", "btn", say("room.own_page"));
    link.href = voteUrl(poll);
    link.target = "_blank";
    link.id = "room-vote-link";
    panel.appendChild(link);
  }
  // the vote page asked (GET) or answered (POST); what it says is shown in the panel
  function votePage(poll, method, choice) {
    var init = { method: method, credentials: "same-origin" };
    if (choice !== null) {
      init.headers = { "content-type": "application/x-www-form-urlencoded" };
      init.body = "choice=" + encodeURIComponent(choice);
    }
    fetch(voteUrl(poll), init)
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var panel = document.getElementById("room-vote");
        if (!panel || panel.getAttribute("data-poll") !== poll) return;  // closed or replaced meanwhile
        var doc = new DOMParser().parseFromString(html, "text/html");
        var said = panel.querySelector(".room-vote-said");
        var old = panel.querySelector(".room-vote-choices");
        if (old) old.remove();
        var note = doc.querySelector(".note");
        var prompt = doc.querySelector("h1");
        var buttons = doc.querySelectorAll("form button[name=choice]");
        if (note && !buttons.length) { said.textContent = note.textContent; return; }
        if (!buttons.length) { fallback(panel, poll, prompt ? prompt.textContent : ""); return; }
        said.textContent = (note ? note.textContent + " " : "") + (prompt ? prompt.textContent : "");
        var choices = el("div", "room-vote-choices");
        choices.setAttribute("role", "group");
        choices.setAttribute("aria-label", say("room.answers"));
        Array.prototype.forEach.call(buttons, function (b) {
          var button = el("button", "btn", b.textContent);
          button.type = "button";
          button.setAttribute("data-choice", b.value);
          button.addEventListener("click", function () {
            if (stepShown()) voted[stepShown()] = b.value;
            Array.prototype.forEach.call(choices.querySelectorAll("button"), function (x) { x.disabled = true; });
            said.textContent = say("room.sending");
            votePage(poll, "POST", b.value);
          });
          choices.appendChild(button);
        });
        panel.appendChild(choices);
      })
      .catch(function () {
        var panel = document.getElementById("room-vote");
        if (panel && panel.getAttribute("data-poll") === poll) fallback(panel, poll, say("room.unloaded"));
      });
  }
  function follow() {
    window.headdivRoom = { code: code, applied: 0, latest: null, received: 0 };
    showFollowing();
    source = new EventSource("/api/v1/rooms/" + code + "/events");
    source.addEventListener("state", function (e) {
      window.headdivRoom.received += 1;
      try { apply(JSON.parse(e.data)); } catch (err) { /* a malformed event: wait for the next */ }
    });
    source.addEventListener("end", function () {
      source.close();
      votePanel(null);
      var b = bar();
      b.appendChild(el("span", "room-words", say("room.ended", {code: code})));
    });
    source.onerror = function () {
      if (source.readyState === EventSource.CLOSED) {
        var b = bar();
        b.appendChild(el("span", "room-problem", say("room.none", {code: code})));
      }
    };
    // a person's own touch on a control (not a state applied here) is exploring: a net under the hidden
    // controls (style.css), for any a view shows that they miss. Not the tour panel's text: a thumb that
    // scrolls from it has not left the lecturer. (After the event has done its work: the bar changing
    // under a finger must not move what it presses.)
    ["pointerdown", "keydown"].forEach(function (type) {
      document.addEventListener(type, function (e) {
        if (!e.isTrusted || applying) return;
        var t = e.target;
        if (!t || !t.closest || t.closest("#room-bar, #room-vote, .modebar")) return;  // a chart's own tools stay
        var control = "#tabs, .sidebar, .view-controls, #tour-nav, .tour-end, .presets, " +
          "input, select, button, [role=slider], [role=tab]";
        if (t.closest(control)) setTimeout(stepAway, 0);
      }, true);
    });
    // a clicker's or keyboard's next/previous (assets/tour_keys.js) would move this page alone: while
    // following, the lecturer's page moves it
    window.addEventListener("keydown", function (e) {
      if (away || !/^(PageDown|PageUp|ArrowLeft|ArrowRight)$/.test(e.key)) return;
      var t = e.target;
      if (t && t.closest && t.closest("input, textarea, select, [contenteditable=true], [role=slider]")) return;
      e.stopPropagation();
    }, true);
  }

  function start() {
    var m = ROOM.exec(window.location.pathname);
    if (m) { code = m[1]; follow(); return; }
    document.addEventListener("click", function (e) {
      if (!e.target || !e.target.closest) return;
      if (e.target.closest("#present-btn")) present();
    });
    var wrap = function (name) {
      var original = window.history[name];
      window.history[name] = function () {
        var out = original.apply(window.history, arguments);
        if (room) setTimeout(function () { send(false); }, 0);
        return out;
      };
    };
    wrap("pushState");
    wrap("replaceState");
    window.addEventListener("popstate", function () { if (room) send(false); });
    // a poll opened or revealed changes the page, not its URL: looked at twice a second while presenting
    setInterval(function () { if (room) send(false); }, 500);
    setInterval(function () { if (room) send(true); }, 60000);
    // how many phones follow, for the lecturer's bar
    setInterval(function () {
      if (!room) return;
      fetch("/api/v1/rooms/" + room.code, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (body) { if (body) followers(body.followers); })
        .catch(function () { /* asked again shortly */ });
    }, 3000);
    if (PRESENT.test(window.location.search) || saved()) present();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

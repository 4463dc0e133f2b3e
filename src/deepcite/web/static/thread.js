// A report's thread, in place: a follow-up is asked without leaving the page, its
// progress is shown live under the earlier answers (the run's own Server-Sent Events,
// as on the run page), and its answer replaces the progress when it is ready. The page
// works without this file: the form posts, the server sends the browser back to the
// thread at the new turn, and the page reloads itself while a turn is running.
(function () {
  "use strict";
  if (!window.fetch || !window.DOMParser) { return; }
  var labels = {};
  try { labels = JSON.parse(document.getElementById("thread").dataset.phases); } catch (ignored) { labels = {}; }
  var label = function (phase) { return labels[phase] || phase; };
  var announce = function (message) {
    var status = document.getElementById("thread-status");
    if (status) { status.textContent = message; }
  };
  var streams = {};

  // The thread as the server renders it now, swapped in for the one shown; focus goes
  // to turnId's turn when it was inside the part replaced (or asked for).
  var refresh = function (turnId, focus) {
    var current = document.getElementById("thread");
    if (!current) { return Promise.resolve(); }
    var url = window.location.pathname;
    return window.fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (reply) { return reply.ok ? reply.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("thread");
        if (!fresh) { return; }
        var old = document.getElementById("thread");
        var lost = focus || (document.activeElement && old.contains(document.activeElement));
        var typed = document.getElementById("follow-up-question");
        var draft = typed ? typed.value : "";
        var adopted = document.importNode(fresh, true);
        old.parentNode.replaceChild(adopted, old);
        var box = document.getElementById("follow-up-question");
        if (box && draft && !focus) { box.value = draft; }
        if (window.deepciteCitations) { window.deepciteCitations(adopted); }
        follow();
        var turn = turnId && document.getElementById("turn-" + turnId);
        if (turn && lost) {
          turn.setAttribute("tabindex", "-1");
          turn.focus();
        }
      });
  };

  // What a running turn shows, looked up at each event: the thread may have been
  // swapped for a fresh copy since its stream was opened.
  var part = function (id, selector) {
    var turn = document.getElementById("turn-" + id);
    return turn ? turn.querySelector(selector) : null;
  };
  var put = function (id, selector, value) {
    var el = part(id, selector);
    if (el) { el.textContent = String(value); }
  };
  // One live stream per running turn, folded as the run page folds it (fewer fields).
  var watch = function (turn) {
    var id = turn.dataset.run;
    if (streams[id] || !window.EventSource) { return; }
    var st = { searches: 0, sources: 0, calls: 0 };
    var source = new EventSource(turn.dataset.events);
    streams[id] = source;
    var bar = function (value) {
      var el = part(id, "progress");
      if (el) { el.value = value; el.textContent = value + "%"; }
    };
    source.addEventListener("phase_started", function (message) {
      var e = JSON.parse(message.data);
      put(id, ".turn-phase", label(e.phase));
      if (e.step && e.total) { bar(Math.round(100 * (Math.min(e.step, e.total) - 1) / e.total)); }
    });
    source.addEventListener("search_done", function () { st.searches += 1; put(id, ".turn-searches", st.searches); });
    source.addEventListener("sources_added", function (message) {
      st.sources = JSON.parse(message.data).total; put(id, ".turn-sources", st.sources);
    });
    source.addEventListener("model_call", function () { st.calls += 1; put(id, ".turn-calls", st.calls); });
    source.addEventListener("finished", function () { put(id, ".turn-phase", label("saving")); bar(100); });
    source.addEventListener("end", function () {
      source.close();
      delete streams[id];
      refresh(id, false).then(function () { announce("The follow-up is answered."); });
    });
  };
  var follow = function () {
    document.querySelectorAll("#thread .turn[data-active='1']").forEach(watch);
  };

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.id !== "follow-up") { return; }
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    var status = document.getElementById("follow-up-status");
    if (button) { button.disabled = true; }
    if (status) { status.textContent = "Asking…"; }
    window.fetch(form.action, { method: "POST", body: new FormData(form),
                                credentials: "same-origin",
                                headers: { Accept: "application/json" } })
      .then(function (reply) {
        return reply.json().then(function (data) { return { ok: reply.ok, data: data }; },
                                 function () { return { ok: false, data: {} }; });
      })
      .then(function (answer) {
        if (!answer.ok || !answer.data.id) {
          if (button) { button.disabled = false; }
          if (status) { status.textContent = answer.data.error || "The follow-up could not be asked - try again."; }
          return;
        }
        var box = document.getElementById("follow-up-question");
        if (box) { box.value = ""; }
        if (window.history && window.history.replaceState) {
          window.history.replaceState(null, "", answer.data.url);
        }
        announce("Asked: the answer appears below as it is researched.");
        return refresh(answer.data.id, true);
      })
      .catch(function () {
        if (button) { button.disabled = false; }
        if (status) { status.textContent = "The server could not be reached - try again."; }
      });
  });

  // Opened at a turn of its own (its own link, or the address after asking): shown.
  var asked = document.querySelector("#thread .turn.asked");
  if (asked && !window.location.hash) { asked.scrollIntoView(); }
  follow();
})();

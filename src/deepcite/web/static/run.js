// Live progress of a run: folds the SSE events into the page deepcite served, the same
// way as deepcite.web.pages._progress (phase names come from the page's #phase-labels).
// The page works without it: it reloads itself every few seconds in a <noscript>.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || live.dataset.active !== "1" || !window.EventSource) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var labels = {};
  try { labels = JSON.parse($("phase-labels").textContent); } catch (ignored) { labels = {}; }
  var label = function (phase) { return labels[phase] || phase; };
  var detailed = live.dataset.mode === "detailed";
  // a document check's step is the claim it is at (its "check" phase, once per claim)
  var checking = live.dataset.mode === "check";
  var started = parseInt(live.dataset.started, 10) || Date.now();
  var MAX_QUERIES = 50, MAX_LOG = 300;
  var st = { searches: 0, sources: 0, calls: 0, tokens: 0, log: 0, part: 0, parts: 0,
             fraction: null, queries: [], found: Object.create(null) };
  var text = function (id, value) { $(id).textContent = value; };
  var number = function (value) { return value.toLocaleString("en-US"); };
  var setPhase = function (phase) { $("phase").dataset.phase = phase; text("phase", label(phase)); };

  // The served page already shows the events so far: the stream replays them from the
  // start, so everything folded is reset first.
  ["queries", "warnings", "log-items"].forEach(function (id) { text(id, ""); });

  var elapsed = function () {
    var s = Math.max(0, Math.floor((Date.now() - started) / 1000));
    if (s < 60) { return s + " s"; }
    var m = Math.floor(s / 60); s = s % 60;
    if (m < 60) { return m + " min " + (s < 10 ? "0" : "") + s + " s"; }
    var h = Math.floor(m / 60); m = m % 60;
    return h + " h " + (m < 10 ? "0" : "") + m + " min";
  };
  var ticker = window.setInterval(function () { text("elapsed", elapsed()); }, 1000);

  var bar = function () {
    var value = null;
    if (!detailed) {
      if (st.fraction !== null) { value = Math.round(100 * st.fraction); }
    } else if (st.parts) {
      value = Math.min(99, Math.round(100 * (st.part + (st.fraction || 0)) / (st.parts + 1)));
    }
    var el = $("bar");
    if (value === null) { el.removeAttribute("value"); el.textContent = "working"; }
    else { el.value = value; el.textContent = value + "%"; }
  };
  var logLine = function (at, line) {
    var li = document.createElement("li"), time = document.createElement("span");
    time.className = "log-at";
    time.textContent = Math.max(0, (at * 1000 - started) / 1000).toFixed(1) + " s";
    li.appendChild(time); li.appendChild(document.createTextNode(" " + line));
    var list = $("log-items");
    list.appendChild(li);
    while (list.children.length > MAX_LOG) { list.removeChild(list.firstChild); }
    st.log += 1; text("log-count", String(st.log));
  };
  var item = function (id, value) {
    var li = document.createElement("li"); li.textContent = value; $(id).appendChild(li); return li;
  };
  var drawQueries = function () {
    text("queries", "");
    st.queries.forEach(function (row) {
      var li = document.createElement("li"), q = document.createElement("span");
      q.className = "query"; q.textContent = row.text; li.appendChild(q);
      if (row.searches.length) {
        var hint = document.createElement("span"); hint.className = "hint";
        hint.textContent = "(" + row.searches.join(", ") + " results)";
        li.appendChild(document.createTextNode(" ")); li.appendChild(hint);
      }
      $("queries").appendChild(li);
    });
  };
  var describe = function (kind, e) {
    switch (kind) {
      case "phase_started":
        var line = label(e.phase);
        if (e.iteration !== null && e.iteration !== undefined) {
          line += " (iteration " + e.iteration + (e.iterations ? " of " + e.iterations + ")" : ")");
        }
        if (e.step && e.total) { line += " - step " + e.step + " of " + e.total; }
        return line;
      case "questions_generated": return "Queries for iteration " + e.iteration + ": " + e.questions.join("; ");
      case "search_done":
        return "Searched " + e.engine + " for \u201c" + e.query + "\u201d: " +
          (e.error ? "failed (" + e.error + ")" : e.results + (e.results === 1 ? " result" : " results"));
      case "sources_added": return e.numbers.length + " new source(s), " + e.total + " in all";
      case "model_call":
        return "Model call (" + e.purpose + "): " + number(e.prompt_tokens + e.completion_tokens) +
          " tokens in " + e.seconds.toFixed(1) + " s";
      case "warning": return "Warning: " + e.message;
      case "outline_ready": return "Outline ready: " + e.entries.length + " headings" + (e.fallback ? " (built from the question and the evidence)" : "");
      case "section_started": return "Part " + e.index + " of " + e.total + ": " + e.title;
      case "finished": return e.cancelled ? "Research cancelled" : (e.error ? "Research stopped: " + e.error : "Research step done");
    }
    return kind;
  };

  var OUTLINE_STEP = "one model call, then the parts";
  var handlers = {
    phase_started: function (e) {
      setPhase(e.phase);
      text("iteration", e.iteration ? (e.iterations ? e.iteration + " of " + e.iterations : String(e.iteration)) : "-");
      if (checking && e.phase !== "check") {
        // a claim's own searching: the step stays the claim's number
      } else if (e.step && e.total) {
        // in a detailed report a step is the current part's, and says so
        text("step", e.step + " of " + e.total + (st.parts ? " (part " + st.part + " of " + st.parts + ")" : ""));
        st.fraction = (Math.min(e.step, e.total) - 1) / e.total;
      } else if (e.phase === "index" || e.phase === "materials") { text("step", "-"); st.fraction = 0; }
      else if (e.phase === "outline") { text("step", OUTLINE_STEP); st.fraction = null; }
      if ($("state").textContent.indexOf("queued") === 0 || $("state").textContent === "starting") {
        text("state", "running");
      }
    },
    questions_generated: function (e) {
      // a report's part announces its queries when it begins, searched ahead while
      // earlier parts were written: what they found was said then
      st.queries = e.questions.slice(0, MAX_QUERIES).map(function (q) {
        return { text: q, searches: (st.found[q] || []).slice() };
      });
      drawQueries();
    },
    search_done: function (e) {
      st.searches += 1; text("searches", String(st.searches));
      var found = e.engine + ": " + (e.error ? "failed" : e.results);
      (st.found[e.query] = st.found[e.query] || []).push(found);
      for (var i = 0; i < st.queries.length; i += 1) {
        if (st.queries[i].text === e.query) { st.queries[i].searches.push(found); drawQueries(); break; }
      }
    },
    sources_added: function (e) { st.sources = e.total; text("sources", String(e.total)); },
    model_call: function (e) {
      st.calls += 1; st.tokens += e.prompt_tokens + e.completion_tokens;
      text("calls", String(st.calls)); text("tokens", number(st.tokens));
      if (e.purpose === "verify") { setPhase("verify"); }
    },
    warning: function (e) { item("warnings", e.message); },
    section_started: function (e) {
      $("section-line").hidden = false;
      text("section", e.index + " of " + e.total + ": " + e.title);
      st.part = e.index; st.parts = e.total; st.fraction = 0; text("step", "starting part " + e.index);
      st.queries = []; drawQueries();  // a part's queries are its own (none: it searches none)
    },
    finished: function () {
      // one per research: the run itself has ended only when the stream says "end"
      if (!detailed) { setPhase("saving"); st.fraction = 1; }
      else if (st.parts && st.part >= st.parts) { setPhase("assembling"); st.fraction = 1; }
      else { st.fraction = 1; }
    }
  };
  ["searches", "sources", "calls", "tokens"].forEach(function (id) { text(id, "0"); });
  text("log-count", "0");
  var hint = $("reload-hint");
  if (hint) { hint.textContent = "Live: this page updates as the run goes on."; }
  var source = new EventSource(live.dataset.events);
  Object.keys(handlers).forEach(function (kind) {
    source.addEventListener(kind, function (message) {
      var e = JSON.parse(message.data);
      logLine(e.at, describe(kind, e));
      handlers[kind](e);
      bar();
    });
  });
  source.addEventListener("end", function () {
    source.close(); window.clearInterval(ticker); window.location.reload();
  });
})();

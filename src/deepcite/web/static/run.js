// Live progress of a run: folds the SSE events into the page deepcite served
// (the same fields as deepcite.web.pages_progress). The page works without it.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || live.dataset.active !== "1" || !window.EventSource) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var n = function (id, add) { $(id).textContent = String((parseInt($(id).textContent, 10) || 0) + add); };
  var item = function (id, text) { var li = document.createElement("li"); li.textContent = text; $(id).appendChild(li); };
  ["queries", "warnings"].forEach(function (id) { $(id).textContent = ""; });
  ["searches", "sources", "calls", "tokens"].forEach(function (id) { $(id).textContent = "0"; });
  var hint = $("reload-hint");
  if (hint) { hint.textContent = "Live: this page updates as the run goes on."; }
  var source = new EventSource(live.dataset.events);
  var on = function (kind, handle) {
    source.addEventListener(kind, function (message) { handle(JSON.parse(message.data)); });
  };
  on("phase_started", function (e) {
    $("phase").textContent = e.phase; $("state").textContent = "running";
    if (e.iteration) { $("iteration").textContent = e.iterations ? e.iteration + " of " + e.iterations : String(e.iteration); }
  });
  on("questions_generated", function (e) { e.questions.forEach(function (q) { item("queries", q); }); });
  on("search_done", function () { n("searches", 1); });
  on("sources_added", function (e) { $("sources").textContent = String(e.total); });
  on("model_call", function (e) { n("calls", 1); n("tokens", e.prompt_tokens + e.completion_tokens); });
  on("warning", function (e) { item("warnings", e.message); });
  on("section_started", function (e) { $("section").textContent = e.index + " of " + e.total + ": " + e.title; });
  on("finished", function (e) { $("phase").textContent = e.cancelled ? "cancelled" : (e.error ? "failed" : "finished"); });
  on("end", function () { source.close(); window.location.reload(); });
})();

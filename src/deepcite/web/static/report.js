// Hovering a citation opens its evidence popover; clicking works without this file
// (the popover is the link's :target).
(function () {
  "use strict";
  // The server only writes links the exports' allow-list takes; this is the second
  // line: a link in the popovers or the report whose scheme is not one of these loses
  // its href, so a javascript:/data:/vbscript: URL can never be followed from here.
  var SAFE = { "http:": true, "https:": true, "mailto:": true, "file:": true };
  var safeHref = function (link) {
    var raw = link.getAttribute("href") || "";
    if (raw.charAt(0) === "#") { return true; }
    var parsed;
    try { parsed = new URL(raw, window.location.href); } catch (e) { return false; }
    return SAFE[parsed.protocol] === true && (parsed.protocol !== "file:" || parsed.host === "" || parsed.host === "localhost");
  };
  document.querySelectorAll(".evidence a[href], .report-body a[href]").forEach(function (link) {
    if (!safeHref(link)) { link.removeAttribute("href"); }
  });
  var timer = null;
  var close = function () { document.querySelectorAll(".evidence.open").forEach(function (el) { el.classList.remove("open"); }); };
  document.querySelectorAll("a.cite[data-evidence]").forEach(function (link) {
    var box = document.getElementById("evidence-" + link.dataset.evidence);
    if (!box) { return; }
    link.addEventListener("mouseenter", function () { clearTimeout(timer); close(); box.classList.add("open"); });
    link.addEventListener("mouseleave", function () { timer = setTimeout(close, 400); });
    box.addEventListener("mouseenter", function () { clearTimeout(timer); });
    box.addEventListener("mouseleave", function () { timer = setTimeout(close, 400); });
  });
})();

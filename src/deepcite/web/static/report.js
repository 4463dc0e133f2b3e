// Citations link to the source viewer, which works without this file. Here, hovering
// or clicking a citation opens its evidence popover instead: one at a time, closed by
// its button, Esc or a click elsewhere, without moving the page or adding history.
(function () {
  "use strict";
  // The server only writes links the exports' allow-list takes; this is the second
  // line: a link in the popovers or the report whose scheme is not one of these loses
  // its href, so a javascript:/data:/vbscript: URL can never be followed from here.
  var SAFE = { "http:": true, "https:": true, "mailto:": true };
  var safeHref = function (link) {
    var raw = link.getAttribute("href") || "";
    if (raw.charAt(0) === "#" || raw.charAt(0) === "/" && raw.charAt(1) !== "/") { return true; }
    var parsed;
    try { parsed = new URL(raw, window.location.href); } catch (e) { return false; }
    return SAFE[parsed.protocol] === true;
  };
  var timer = null;
  var pinned = null;
  // The citation whose popover was opened from the keyboard: focus moves into the
  // popover (named by its title) so a keyboard or screen-reader user lands on what
  // opened, and Esc or its close button puts focus back on this citation. Nothing is
  // trapped: Tab goes on from the popover to the rest of the page.
  var opener = null;
  var close = function (restore) {
    var back = opener;
    var box = pinned;
    pinned = null;
    opener = null;
    document.querySelectorAll(".evidence.open").forEach(function (el) { el.classList.remove("open"); });
    var active = document.activeElement;
    var lost = !active || active === document.body || (box && box.contains(active));
    if (restore && back && lost) { back.focus(); }
  };
  var open = function (box) { clearTimeout(timer); close(); box.classList.add("open"); };
  var later = function () { if (!pinned) { timer = setTimeout(function () { close(false); }, 400); } };
  // Binds the citations and popovers under root: the page's at load, and a thread's
  // follow-up answers when thread.js puts them in place.
  var bind = function (root) {
    root.querySelectorAll(".evidence a[href], .report-body a[href]").forEach(function (link) {
      if (!safeHref(link)) { link.removeAttribute("href"); }
    });
    root.querySelectorAll("a.cite[data-evidence]").forEach(function (link) {
      var box = document.getElementById("evidence-" + link.dataset.evidence);
      if (!box) { return; }
      link.addEventListener("mouseenter", function () { if (!pinned) { open(box); } });
      link.addEventListener("mouseleave", later);
      link.addEventListener("click", function (event) {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) { return; }
        event.preventDefault();
        if (pinned === box) { close(true); return; }
        open(box);
        pinned = box;
        // A click from Enter (or Space on some browsers) has no pointer: detail is 0.
        if (event.detail === 0) { opener = link; box.focus(); }
      });
      box.addEventListener("mouseenter", function () { clearTimeout(timer); });
      box.addEventListener("mouseleave", later);
    });
    root.querySelectorAll(".evidence .close").forEach(function (button) {
      button.addEventListener("click", function (event) { event.preventDefault(); close(true); });
    });
  };
  bind(document);
  window.deepciteCitations = bind;
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { close(true); }
  });
  document.addEventListener("click", function (event) {
    if (pinned && !pinned.contains(event.target) && !event.target.closest("a.cite")) { close(false); }
  });
})();

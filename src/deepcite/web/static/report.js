// Hovering a citation opens its evidence popover; clicking works without this file
// (the popover is the link's :target).
(function () {
  "use strict";
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

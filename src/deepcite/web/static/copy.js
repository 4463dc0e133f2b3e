// Copy buttons: a button with data-copy="ID" copies that element's text (an input's value)
// to the clipboard and says so. Without JavaScript the buttons stay hidden and the text can
// be selected as before.
"use strict";
(function () {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const target = document.getElementById(button.dataset.copy);
    const status = document.getElementById(button.dataset.copy + "-copied");
    if (!target || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      const text = "value" in target ? target.value : target.innerText;
      try {
        await navigator.clipboard.writeText(text.trim());
        if (status) status.textContent = "Copied";
      } catch (error) {
        if (status) status.textContent = "Could not copy: select the text and press Ctrl+C";
      }
    });
  }
})();

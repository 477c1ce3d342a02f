// What every page does in the browser, kept out of the HTML so that the Content-Security-Policy
// can forbid inline script: a form with `data-confirm` asks first; a link field selects itself
// when tapped; a scenario file chosen on the new-game form fills its text box; a run of
// simulated battles shows its progress as it goes, and what it found when it is over.
"use strict";
document.addEventListener("submit", (e) => {
  const f = e.target;
  if (f instanceof HTMLFormElement && f.dataset.confirm && !window.confirm(f.dataset.confirm)) {
    e.preventDefault();
  }
});
document.addEventListener("click", (e) => {
  const t = e.target;
  if (t instanceof HTMLInputElement && t.classList.contains("url")) t.select();
});
document.addEventListener("change", (e) => {
  const t = e.target;
  if (t instanceof HTMLInputElement && t.id === "scenario-file" && t.files && t.files[0]) {
    t.files[0].text().then((text) => {
      const box = document.getElementById("scenario-text");
      if (box) box.value = text;
    });
  }
});
const simProgress = document.getElementById("sim-progress");
if (simProgress && simProgress.dataset.events && window.EventSource) {
  const events = new EventSource(simProgress.dataset.events);
  events.addEventListener("progress", (e) => {
    simProgress.value = Number(e.data);
    const count = document.getElementById("sim-count");
    if (count) count.textContent = e.data;
  });
  events.addEventListener("done", () => {
    events.close();
    location.reload();
  });
}

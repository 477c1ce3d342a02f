// What every page does in the browser, kept out of the HTML so that the Content-Security-Policy
// can forbid inline script: a form with `data-confirm` asks first, in the page (no browser
// dialog: its question and two buttons, `data-confirm-yes` and `data-confirm-no`, under it); a
// link field selects itself
// when tapped; a scenario file chosen on the new-game form fills its text box; a run of
// simulated battles shows its progress as it goes, and what it found when it is over.
"use strict";
document.addEventListener("submit", (e) => {
  const f = e.target;
  if (!(f instanceof HTMLFormElement) || !f.dataset.confirm || f.dataset.confirmed === "1") return;
  e.preventDefault();
  if (f.querySelector(".confirm-at")) return;
  const box = document.createElement("span");
  box.className = "confirm-at";
  box.setAttribute("role", "group");
  const q = document.createElement("span");
  q.textContent = f.dataset.confirm;
  box.appendChild(q);
  const button = (text, cls, yes) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = text;
    b.addEventListener("click", () => {
      box.remove();
      if (yes) { f.dataset.confirmed = "1"; f.submit(); }
    });
    box.appendChild(b);
  };
  button(f.dataset.confirmYes || "OK", "small danger confirm-yes", true);
  button(f.dataset.confirmNo || "×", "small confirm-no", false);
  f.appendChild(box);
});
// The service worker (offline copies of the pages, an installable app) only in a secure
// context; over plain http on a LAN address nothing offers to install.
if (window.isSecureContext && "serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
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

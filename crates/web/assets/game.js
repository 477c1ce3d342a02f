// Tercio seat page: builds each action from the forms the rule set describes, shows the exact
// odds as fields change, asks the rule texts' questions in the form (two buttons, and a way to
// cancel that rolls nothing), confirms undo and the game master's other lasting steps in the
// page (no alert, confirm or prompt anywhere), says at the button when a tap cannot reach the
// server and sends it again once the connection is back, and keeps the page live: every change
// to the game, by any seat, reaches the page within a second as a patch of the elements that
// changed (the newest result among them: the server draws it, `#last`). Its words come
// from the page (`#tercio-i18n`: the catalogue's `web.js.*` texts in the page's language), never
// from this file.
(function () {
  "use strict";
  const I18N = (() => {
    try { return JSON.parse(document.getElementById("tercio-i18n").textContent); } catch (e) { return { lang: "en", strings: {} }; }
  })();
  // A catalogue text with its {placeholders} filled.
  const tr = (key, args) => (I18N.strings[key] ?? key).replace(/\{(\w+)\}/g, (m, n) => (args && n in args ? String(args[n]) : m));
  // A number with the page language's decimal separator.
  const fmt = (x, places) => x.toLocaleString(I18N.lang, { minimumFractionDigits: places, maximumFractionDigits: places, useGrouping: false });
  // An error's message where the form shows no field it names: without the field's id ("action:"),
  // which no player reads.
  const fieldMessage = (e) => {
    const m = e.message || tr("failed");
    return e.field && m.startsWith(e.field + ":") ? m.slice(e.field.length + 1).trim() : m;
  };
  // The seat's token, from the page's data (no inline script: the CSP forbids it).
  // `by`: how this seat signs what it records, to tell its own results from others'.
  const SEAT = JSON.parse(document.getElementById("tercio-seat").textContent);
  const T = SEAT.seat;
  window.TERCIO_SEAT = T;
  const $ = (id) => document.getElementById(id);
  let answers = {};
  // The number of log entries the view on screen was drawn from (sent as If-Match), and the last
  // entry the live stream delivered.
  let seq = parseInt($("main").dataset.seq, 10) || 0;
  // The version of the view on screen: live patches apply to one version and make the next.
  let etag = $("main").dataset.etag || "";
  let lastEvent = seq;
  // For the curious and for tests: what the live stream delivered and where the view stands.
  // `patches`: live patches carried out; `refreshes`: times #main was fetched whole (none while
  // the stream is up and the patches fit); `mismatches`: patches that did not fit.
  // `recorded`: this page's own actions recorded; `largest`: the largest live update received, in
  // bytes of UTF-8.
  // `forms`: folded actions' forms fetched. `autos`: steps the page took by itself (`autoStep`),
  // `autoSeq` the view it last tried one on, `autoBusy` while one is on its way.
  const live = { received: [], state: "connecting", refreshes: 0, patches: 0, mismatches: 0, seq, etag, busy: false, recorded: 0, largest: 0, forms: 0, autos: 0, autoSeq: -1, autoBusy: false };
  window.TERCIO_LIVE = live;
  const bytes = (text) => new TextEncoder().encode(text).length;

  // `base`: the view the user decided on; an action started on one view stays on it through its
  // questions and dice, so a change by another seat meanwhile makes it stale, not silently rebased.
  // A request that cannot reach the server answers status 0 (`unreachable`), never throws.
  async function call(method, path, body, base) {
    const view = base === undefined ? seq : base;
    let r;
    try {
      r = await fetch(`/api/s/${T}${path}`, { method, headers: { "content-type": "application/json", "if-match": `"${view}"` }, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { status: 0, data: { error: { message: tr("unreachable"), kind: "unreachable" } } };
    }
    let data = null;
    try { data = await r.json(); } catch (e) { data = { error: { message: tr("http", { status: r.status }) } }; }
    return { status: r.status, data };
  }

  // A notice (the view was out of date) stays on screen wherever the user is, until the next
  // action or a tap on it.
  function notice(text) {
    const n = $("notice");
    n.textContent = text || "";
    n.hidden = !text;
  }
  $("notice").addEventListener("click", () => notice(""));

  // A field's label as the page shows it (its own text, without the control's).
  const labelOf = (el) => {
    const l = el && el.closest("label");
    if (!l) return "";
    return [...l.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(" ").trim();
  };

  // A refusal beside what it is about: the field it names, under its label; else under the form's
  // button. Cleared by the form's next change or submission.
  function clearErrors(form) {
    if (form) form.querySelectorAll(".field-error").forEach((x) => x.remove());
  }
  const fieldOf = (form, e) => (form && e.field ? form.querySelector(`[name="${CSS.escape(e.field)}"]`) : null);
  // An error's text naming its field by the label the form shows, never by its id (a message
  // that starts with the id has it replaced); the id only when the form has no such field.
  function errorText(form, e) {
    const m = e.message || tr("failed");
    if (!e.field) return m;
    const label = labelOf(fieldOf(form, e));
    if (!label) return fieldMessage(e);
    const text = m.startsWith(e.field + ":") ? m.slice(e.field.length + 1).trim() : m;
    return `${label}: ${text}`;
  }
  // Where a form's answer goes: after its button, or after its choice drawn as buttons.
  const goOf = (form) => form.querySelector(".picks") || form.querySelector("button[type=submit]");
  function refuse(form, e) {
    if (!form) { notice(errorText(null, e)); return; }
    clearErrors(form);
    const p = document.createElement("p");
    p.className = "error field-error";
    p.setAttribute("role", "alert");
    p.textContent = errorText(form, e);
    const el = fieldOf(form, e);
    const at = el && el.closest("label") ? el.closest("label") : goOf(form);
    // A correction one tap away is opened to show what is wrong with it.
    const more = at.closest("details");
    if (more) more.open = true;
    at.insertAdjacentElement("afterend", p);
    p.scrollIntoView({ block: "nearest" });
  }

  function setLive(state) {
    live.state = state;
    const el = $("live");
    el.className = `live ${state}`;
    el.textContent = { live: tr("live"), lost: tr("lost"), revoked: tr("revoked"), connecting: tr("connecting") }[state] || state;
    if (state === "live") { setOffline(false); resumeWaiting(); autoStep(); }
    if (state === "revoked") dropCopy();
  }

  // A described form's action: `{"action": …, field: value…}`. A choice gives its option's value
  // (an empty one leaves the field out), a choice of several the list of its values chosen (none
  // leaves it out), a tick box `true` when ticked (left out otherwise), a
  // number an integer (left out when empty, so the answer names the missing field), a text its
  // trimmed value (left out when empty).
  function formAction(form, by) {
    let fixed = {};
    try { fixed = JSON.parse(form.dataset.fixed || "{}"); } catch (e) { fixed = {}; }
    const a = Object.assign({ action: form.dataset.action }, fixed);
    form.querySelectorAll("select[name], input[name]").forEach((el) => {
      // A field hidden for this unit is not this unit's: left out.
      if (el.closest("label[hidden]")) return;
      if (el.type === "checkbox") { if (el.checked) a[el.name] = true; return; }
      if (el.type === "text") { const v = el.value.trim(); if (v) a[el.name] = v; return; }
      // A choice of several: the values chosen (none: left out).
      if (el.multiple) { const v = [...el.selectedOptions].map((o) => o.value); if (v.length) a[el.name] = v; return; }
      if (el.value === "") return;
      if (el.type === "number") {
        const n = Number(el.value);
        a[el.name] = Number.isInteger(n) ? n : el.value;
        return;
      }
      a[el.name] = el.value;
    });
    // A choice drawn as buttons: the one tapped (its none, `value=""`: left out).
    if (by && by.name && by.value !== "") a[by.name] = by.value;
    return a;
  }

  // Show the exact odds of the action `body` in `box`, shortly after the last change (each box
  // keeps its own timer; an answer that arrives after a newer request started is dropped).
  function refreshOdds(body, box) {
    if (!box) return;
    clearTimeout(box.oddsTimer);
    box.oddsTimer = setTimeout(async () => {
      const ticket = (box.oddsTicket || 0) + 1;
      box.oddsTicket = ticket;
      // The server renders the odds (`?view=html`): the final outcome as a bar with numbers,
      // every step one tap away; the page only inserts it. Questions not yet answered are
      // assumed answered OK (yes) for the odds, and said so.
      const path = `/odds?view=html&lang=${encodeURIComponent(I18N.lang)}`;
      const assumed = [];
      let res = await call("POST", path, body);
      for (let i = 0; i < 3 && res.status === 409 && res.data.error && res.data.error.kind === "question"; i++) {
        assumed.push(res.data.error.message.replace(/ Answer with .*$/, ""));
        body = Object.assign({}, body, { [res.data.error.field]: true });
        res = await call("POST", path, body);
      }
      if (box.oddsTicket !== ticket) return;
      const { status, data } = res;
      box.innerHTML = "";
      // Drawn for the form as it stands (tests wait for it).
      box.dataset.drawn = "1";
      if (status !== 200) {
        const e = data.error || {};
        const p = document.createElement("p");
        // A field still to fill (a target, a range the table measures) is a hint, not a
        // refusal: no red before any input.
        const missing = /^missing-/.test(e.code || "") && e.field;
        p.className = missing ? "hint" : "error";
        const form = box.closest("form");
        p.textContent = missing ? tr("choose_field", { field: labelOf(fieldOf(form, e)) || e.field }) : errorText(form, e);
        box.appendChild(p);
        return;
      }
      if (assumed.length) { const n = document.createElement("p"); n.className = "question"; n.textContent = assumed.map((q) => tr("assuming", { question: q })).join(" "); box.appendChild(n); }
      box.insertAdjacentHTML("beforeend", data.html || "");
      // Every step stays open once opened.
      const all = box.querySelector("details.all-odds");
      if (all) {
        all.open = Boolean(box.oddsOpen);
        all.addEventListener("toggle", () => { box.oddsOpen = all.open; });
      }
    }, 120);
  }

  const physical = () => Boolean($("physical"));

  // Ask for the faces of the dice in `needed`, thrown on the table, in a sheet at the foot of
  // the screen (no dialog). Resolves to the faces, or null when cancelled.
  function askDice(needed, sofar) {
    return new Promise((resolve) => {
      const box = $("dice-box");
      $("dice-so-far").textContent = sofar.length ? tr("thrown_so_far", { faces: sofar.join(", ") }) : "";
      $("dice-error").textContent = "";
      const inputs = $("dice-inputs");
      inputs.innerHTML = "";
      needed.forEach((d, i) => {
        const label = document.createElement("label");
        label.textContent = `${d.label} (d${d.sides}) `;
        const inp = document.createElement("input");
        Object.assign(inp, { type: "number", min: 1, max: d.sides, required: true, className: "face", id: `face-${i}` });
        label.appendChild(inp);
        inputs.appendChild(label);
      });
      const done = (v) => { $("dice-form").onsubmit = null; $("dice-cancel").onclick = null; box.hidden = true; resolve(v); };
      $("dice-form").onsubmit = (e) => { e.preventDefault(); done([...inputs.querySelectorAll("input.face")].map((x) => parseInt(x.value, 10))); };
      $("dice-cancel").onclick = () => done(null);
      box.hidden = false;
      const first = inputs.querySelector("input");
      if (first) first.focus();
    });
  }

  // A rules question in the form, at its button (issue 43, item 4): the question and two
  // buttons, yes and no, and a third that cancels (nothing is sent, nothing rolled). Resolves to
  // true, false, or null when cancelled (or when the form is redrawn away).
  function askInForm(form, question, field) {
    return new Promise((resolve) => {
      const at = (form && goOf(form)) || null;
      const box = document.createElement("div");
      box.className = "ask";
      box.dataset.field = field;
      box.setAttribute("role", "group");
      const p = document.createElement("p");
      p.className = "ask-q";
      p.textContent = question;
      box.appendChild(p);
      const done = (v) => { box.remove(); resolve(v); };
      const button = (text, cls, v) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = cls;
        b.textContent = text;
        b.addEventListener("click", () => done(v));
        box.appendChild(b);
      };
      button(tr("yes"), "primary ask-yes", true);
      button(tr("no"), "ask-no", false);
      button(tr("cancel"), "ask-cancel", null);
      if (at) at.insertAdjacentElement("afterend", box);
      else $("main").prepend(box);
      box.scrollIntoView({ block: "nearest" });
    });
  }

  // A lasting step confirmed in the page, beside the button that asks for it: the question
  // and two buttons (do it, keep things as they are). Resolves to true or false.
  function confirmAt(button, question, yes) {
    return new Promise((resolve) => {
      const old = document.querySelector(".confirm-at");
      if (old) old.remove();
      const box = document.createElement("div");
      box.className = "confirm-at";
      box.setAttribute("role", "group");
      const p = document.createElement("p");
      p.textContent = question;
      box.appendChild(p);
      const done = (v) => { box.remove(); resolve(v); };
      for (const [text, cls, v] of [[yes, "primary danger confirm-yes", true], [tr("keep"), "confirm-no", false]]) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = cls;
        b.textContent = text;
        b.addEventListener("click", () => done(v));
        box.appendChild(b);
      }
      // The header's undo confirms under the header, in view wherever the page is scrolled.
      if (button.closest("header")) document.body.appendChild(box), box.classList.add("floating");
      else button.insertAdjacentElement("afterend", box);
      box.querySelector("button").focus({ preventScroll: true });
    });
  }

  // A tap that could not reach the server, said at its button (issue 43, item 7); sent again
  // once the connection is back. `waiting`: the form's id → what to send again.
  const waiting = new Map();
  function sayAtButton(form, text, cls) {
    if (!form) { notice(text); return; }
    clearErrors(form);
    const p = document.createElement("p");
    p.className = `${cls} field-error`;
    p.setAttribute("role", "status");
    p.textContent = text;
    goOf(form).insertAdjacentElement("afterend", p);
  }
  function resumeWaiting() {
    for (const [id, w] of [...waiting]) {
      waiting.delete(id);
      const form = $(id);
      if (form) sayAtButton(form, tr("retrying"), "hint");
      send(w.body, form, w.base, true).then((ok) => {
        const now = $(id);
        if (ok && now) { clearErrors(now); now.reset(); now.dispatchEvent(new Event("change")); }
      });
    }
  }
  window.addEventListener("online", () => { if (waiting.size) refresh(); });

  // Whether the newest entries after `base` hold this seat's own `body`, recorded though its
  // answer was lost (a retry then refused as stale).
  async function recordedBefore(body, base) {
    try {
      const r = await fetch(`/api/s/${T}/log?after=${base}`, { cache: "no-store" });
      if (!r.ok) return false;
      const { entries } = await r.json();
      return (entries || []).some((e) => e.entry === "event" && e.seq === base + 1 && e.event && e.event.by === SEAT.by && e.event.action && e.event.action.action === body.action);
    } catch (e) {
      return false;
    }
  }

  // Resolve and record an action, through its questions and table dice; true once recorded.
  // `base`: the view it was decided on (a retry keeps the first try's); `retry`: sent again
  // after a try that got no answer (which may have been recorded all the same).
  async function send(body, form, base, retry, auto) {
    notice("");
    clearErrors(form);
    if (base === undefined) base = seq;
    for (;;) {
      let res;
      if (physical()) {
        const faces = [];
        for (;;) {
          const need = await call("POST", "/dice-needed", { action: body, faces }, base);
          if (need.status !== 200) break;
          if (need.data.complete) break;
          const got = await askDice(need.data.needed, faces);
          if (!got) return false;
          faces.push(...got);
        }
        // A question comes before any die: it is answered below, then the dice are asked again.
        res = await call("POST", "/actions/entered", { action: body, faces }, base);
      } else {
        res = await call("POST", "/actions", body, base);
      }
      const { status, data } = res;
      if (status === 200) { if (!auto) live.recorded += 1; afterOwnChange(); return true; }
      const e = data.error || {};
      if (status === 0) {
        // Kept as entered; sent again when the connection is back.
        sayAtButton(form, tr("unreachable"), "error");
        if (form && form.id) waiting.set(form.id, { body, base });
        setLive("lost");
        if (!retrying) retryLater();
        return false;
      }
      if (status === 409 && e.kind === "question" && e.field) {
        const answer = await askInForm(form, e.message.replace(/ Answer with .*$/, ""), e.field);
        if (answer === null) return false;
        answers[e.field] = answer;
        body = Object.assign({}, body, { [e.field]: answer });
        continue;
      }
      if (status === 412) {
        if (retry && await recordedBefore(body, base)) {
          sayAtButton(form, tr("sent_before"), "hint");
          live.recorded += 1;
          afterOwnChange();
          return true;
        }
        if (!auto) notice(e.message);
        afterOwnChange();
        return false;
      }
      refuse(form, e);
      return false;
    }
  }

  // While a tap waits for the connection: the stream's own reconnection brings the page back
  // live (and the wait ends there); this asks again meanwhile, in case the stream is not trying.
  let retrying = null;
  function retryLater() {
    retrying = setTimeout(async () => {
      retrying = null;
      if (!waiting.size) return;
      try {
        const r = await fetch(`/api/s/${T}/log?after=${seq}`, { cache: "no-store" });
        if (r.ok) { connect(); return; }
      } catch (e) { /* still cut off */ }
      retryLater();
    }, 2000);
  }

  // ---- Live updates ----
  //
  // The live stream sends each new log entry and, with the last of them (or alone, as `changed`),
  // a patch: the changes from the `#main` this page has (its etag, `base`) to the new one, as ops
  // on elements by id. The page carries them out; it fetches its `#main` whole only when it
  // cannot (a patch for another version, an element missing) or when the stream is down.

  function fragment(html) {
    const t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  // What the user was choosing in #main (not the server's own settings), by id; the open state
  // of the panels the user opens and closes; the focused element.
  function userState() {
    const inputs = {};
    // Only what the user changed: a field left as the page drew it takes the new page's value,
    // which may differ (the next unit's, the state's).
    document.querySelectorAll("#main input[id], #main select[id], #main textarea[id]").forEach((el) => {
      if (el.dataset.server !== undefined || !changed(el)) return;
      inputs[el.id] = el.type === "checkbox" ? el.checked : el.multiple ? [...el.selectedOptions].map((o) => o.value) : el.value;
    });
    // The panels the user opens and closes (an action's fields, its corrections, the notes).
    const open = {};
    document.querySelectorAll("#main details[id]").forEach((d) => { open[d.id] = d.open; });
    const focused = document.activeElement && document.activeElement.id;
    return { inputs, open, focused };
  }

  // Whether a field differs from where the page drew it.
  function changed(el) {
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    if (el.tagName === "SELECT") {
      // A list drawn with nothing selected shows its first choice; a choice of several, none.
      const drawn = el.multiple || [...el.options].some((o) => o.defaultSelected) ? [...el.options].map((o) => o.defaultSelected) : [...el.options].map((o, i) => i === 0);
      return [...el.options].some((o, i) => o.selected !== drawn[i]);
    }
    return el.value !== el.defaultValue;
  }

  // Show each field that applies to what acts now, hide the others (`data-only-for`).
  function applies(form) {
    const what = form.querySelector("select[data-resets]");
    // A field for some values of another field (`data-only-with`: a defender's) follows that one,
    // as shown for what acts (the game master's forms have a list of targets per side): those
    // that follow what acts are drawn first.
    const labels = [...form.querySelectorAll("label[data-only-for]")];
    const shown = (name) => [...form.querySelectorAll(`[name="${CSS.escape(name)}"]`)].find((el) => !el.closest("label[hidden]"));
    for (const pass of [false, true]) {
      labels.filter((l) => Boolean(l.dataset.onlyWith) === pass).forEach((l) => {
        const by = pass ? shown(l.dataset.onlyWith) : what;
        // `*`: for any value chosen.
        l.hidden = !by || !(l.dataset.onlyFor === "*" ? by.value !== "" : l.dataset.onlyFor.split(" ").includes(by.value));
      });
    }
    // A tick box the state ticks for some units starts ticked for them (`data-checked-for`):
    // its default follows what acts, and a tick the user changed for the same unit stays.
    form.querySelectorAll("input[data-checked-for]").forEach((el) => {
      const on = Boolean(what) && el.dataset.checkedFor.split(" ").includes(what.value);
      if (el.defaultChecked !== on) { el.defaultChecked = on; el.checked = on; }
    });
  }

  // Put a form's fields after `keep` back where the page drew them (those before it, a leader
  // picked from the action's tile, were chosen first and stay).
  function resetFields(form, keep) {
    form.querySelectorAll("input[name], select[name]").forEach((el) => {
      if (el === keep || (keep.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING)) return;
      if (el.type === "checkbox") el.checked = el.defaultChecked;
      else if (el.tagName === "SELECT") {
        const any = el.multiple || [...el.options].some((o) => o.defaultSelected);
        [...el.options].forEach((o, i) => { o.selected = any ? o.defaultSelected : i === 0; });
      } else el.value = el.defaultValue;
    });
  }

  function restoreUserState(u) {
    for (const [id, v] of Object.entries(u.inputs)) {
      const el = $(id);
      if (!el || el.dataset.server !== undefined) continue;
      if (el.type === "checkbox") { if (el.checked !== v) el.checked = v; }
      else if (el.multiple) [...el.options].forEach((o) => { if (o.selected !== v.includes(o.value)) o.selected = v.includes(o.value); });
      else if (el.value !== v && (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === v))) el.value = v;
    }
    for (const [id, o] of Object.entries(u.open)) {
      const d = $(id);
      if (d && d.tagName === "DETAILS" && d.open !== o) d.open = o;
    }
    if (u.focused && document.activeElement !== $(u.focused) && $(u.focused) && $("main").contains($(u.focused))) $(u.focused).focus({ preventScroll: true });
  }

  // After #main changed: what the page draws itself (the odds of each form as the game now
  // stands, what the rules would refuse of each choice). A secret on a shared device is drawn
  // closed again.
  function drawn() {
    answers = {};
    const undo = $("undo");
    if (undo) undo.hidden = !($("last") && $("last").dataset.undo === "1");
    keepCopy();
    document.querySelectorAll("#main details.reveal").forEach((d) => { d.open = false; });
    document.querySelectorAll("#main form.action-form").forEach((form) => {
      applies(form);
      if (form.dataset.odds === "1") refreshOdds(formAction(form), form.querySelector(".odds"));
    });
    // A folded action's form (or a form's corrections) fetched for an older page: fetched again
    // if it is open, else dropped until it is.
    document.querySelectorAll("#main details[data-form]").forEach((d) => {
      const f = d.querySelector(":scope > :not(summary)");
      if (!f || d.dataset.loaded === d.dataset.form) return;
      if (d.open) loadForm(d);
      else { f.remove(); delete d.dataset.loaded; }
    });
    refreshChoices();
    // Once the view is set (a redraw comes before it).
    setTimeout(autoStep, 0);
  }

  // A step the rules leave alone with nothing to tell (`data-auto`: a card drawn, a turn
  // started, a phase ended with nothing left): the page takes it itself, once on each view, as
  // if tapped. It shows in the turn line and the log, and undo takes it back (the server then
  // draws it without `data-auto` until an action is taken by hand). Should another page take it
  // first, this one's try is stale: nothing to say then.
  function autoStep() {
    const form = document.querySelector("#main form.action-form[data-auto]");
    if (!form || live.state !== "live" || live.autoSeq === seq || document.body.classList.contains("offline")) return;
    // The page is being fetched or patched: once it is done.
    if (live.busy) { setTimeout(autoStep, 100); return; }
    live.autoSeq = seq;
    live.autoBusy = true;
    send(formAction(form), form, undefined, false, true)
      .then((ok) => { if (ok) live.autos += 1; })
      .finally(() => { live.autoBusy = false; });
  }

  // A folded action's form (`details.act[data-form]`: its title, and the list it is picked
  // from), or the corrections of a form on the page (`details.more[data-form]`), fetched when
  // it is opened (`GET /form`) and put in with the fields the user had set in it; what was put
  // in, or null (unreachable, or the action is gone: the next patch says so). One fetch at a
  // time for each. Until a form's corrections are in, its action goes without them: the same
  // action as with them untouched.
  const loading = new Map();
  function loadForm(d) {
    const have = d.querySelector(":scope > :not(summary)");
    if (have && d.dataset.loaded === d.dataset.form) return Promise.resolve(have);
    if (loading.has(d.id)) return loading.get(d.id);
    const p = (async () => {
      try {
        const r = await fetch(`/api/s/${T}/form?id=${encodeURIComponent(d.id)}&lang=${encodeURIComponent(I18N.lang)}`, { cache: "no-store" });
        if (!r.ok) return null;
        const data = await r.json();
        const now = $(d.id);
        if (!now) return null;
        const old = now.querySelector(":scope > :not(summary)");
        const kept = old ? [...old.querySelectorAll("input[id], select[id]")].filter(changed).map((el) => [el.id, el.type === "checkbox" ? el.checked : el.value]) : [];
        const fresh = fragment(data.html).firstElementChild;
        if (!fresh) return null;
        if (old) old.replaceWith(fresh); else now.append(fresh);
        now.dataset.loaded = data.form;
        fillLists();
        for (const [id, v] of kept) {
          const el = $(id);
          if (!el || !fresh.contains(el)) continue;
          if (el.type === "checkbox") el.checked = v;
          else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === v)) el.value = v;
        }
        const form = fresh.matches("form.action-form") ? fresh : now.closest("form.action-form");
        if (form) {
          applies(form);
          if (form.dataset.odds === "1") refreshOdds(formAction(form), form.querySelector(".odds"));
        }
        live.forms += 1;
        refreshChoices();
        return fresh;
      } catch (e) {
        return null;
      } finally {
        loading.delete(d.id);
      }
    })();
    loading.set(d.id, p);
    return p;
  }
  // What never changes once drawn, fetched the first time it is opened: a log entry's steps and
  // modifiers (`data-entry`: its number), the scenario's notes (`data-notes`).
  async function loadOnce(d) {
    if (d.dataset.loaded || loading.has(d)) return;
    const path = d.dataset.entry ? `/entry?seq=${encodeURIComponent(d.dataset.entry)}&` : "/notes?";
    const p = (async () => {
      try {
        const r = await fetch(`/api/s/${T}${path}lang=${encodeURIComponent(I18N.lang)}`);
        if (!r.ok) return;
        const { html } = await r.json();
        if (d.dataset.loaded) return;
        d.append(fragment(html));
        d.dataset.loaded = "1";
        live.details = (live.details || 0) + 1;
      } catch (e) { /* unreachable: opened again, it asks again */ } finally { loading.delete(d); }
    })();
    loading.set(d, p);
    await p;
  }
  document.addEventListener("toggle", (e) => {
    const d = e.target;
    if (!(d instanceof HTMLDetailsElement) || !d.open || !inMain(d)) return;
    if (d.matches("details[data-form]")) loadForm(d);
    else if (d.matches("details[data-entry], details[data-notes]")) loadOnce(d);
  }, true);

  // An action drawn as the list of its first field (`select.pick`, closed: what acts, a leader),
  // its form folded: picking one opens the action with it chosen.
  const pickOf = (pick) => { const form = $(pick.dataset.form); return form && [...form.querySelectorAll("select[name]")].find((s) => s.name === pick.dataset.field); };
  // What the rules refuse of what acts, drawn into such a list as into the form's own (its
  // `data-marks`): those whose turn is to come left out, the refused after the others, with
  // their reason.
  function markPick(pick, marks) {
    const opts = [...pick.options].slice(1);
    for (const o of opts) {
      if (o.dataset.text === undefined) o.dataset.text = o.textContent;
      const m = marks[o.value];
      const text = m && m.why ? `${o.dataset.text} — ${m.why}` : o.dataset.text;
      if (o.textContent !== text) o.textContent = text;
      o.hidden = o.disabled = Boolean(m && m.later);
    }
    const rank = (o) => (!marks[o.value] ? 0 : marks[o.value].later ? 2 : 1);
    const order = opts.slice().sort((a, b) => rank(a) - rank(b));
    if (order.some((o, i) => o !== opts[i])) pick.append(...order);
    pick.selectedIndex = 0;
  }

  // What the rules would refuse of each choice of what acts (`GET /choices`: by list id and
  // value, `why` and `later`), drawn into the lists: the page and its live patches list every
  // choice plainly in the rules' order, since what is refused changes for nearly every unit as
  // a turn goes on. An answer for another version of the page than the one on screen is dropped
  // (the page's next drawing asks again).
  let choicesTicket = 0;
  async function refreshChoices() {
    if (!document.querySelector("#main form.action-form select[data-resets], #main select.pick[data-marks]")) { live.choices = seq; live.choicesForms = live.forms; return; }
    const ticket = ++choicesTicket;
    const forms = live.forms;
    let data;
    try {
      const r = await fetch(`/api/s/${T}/choices?brief=1&lang=${encodeURIComponent(I18N.lang)}`, { cache: "no-store" });
      if (!r.ok) return;
      data = await r.json();
    } catch (e) { return; }
    if (ticket !== choicesTicket || data.etag !== etag) return;
    // (A list marked as an earlier one names it.)
    const all = data.choices || {};
    const marksOf = (id) => (typeof all[id] === "string" ? all[all[id]] : all[id]) || {};
    document.querySelectorAll("#main form.action-form select[data-resets]").forEach((sel) => markChoices(sel, marksOf(sel.id)));
    document.querySelectorAll("#main select.pick[data-marks]").forEach((pick) => markPick(pick, marksOf(pick.dataset.marks)));
    live.choices = seq;
    live.choicesForms = forms;
  }

  // Each choice's own words, before its reason was added.
  const labels = new WeakMap();
  // What the user chose by hand in each list of what acts (by the list's id): kept through the
  // lists' redrawing and reordering, until its turn is to come.
  const chosen = new Map();

  // Draw one list's choices as `marks` says: the legal ones first, then those refused (with the
  // reason after the name: still open to choose, as another field may lift it), then those whose
  // turn will come, hidden while another may act. A list starts at its first choice, the first
  // that may act, unless the user chose in it one that is not waiting for its turn.
  function markChoices(sel, marks) {
    const want = chosen.get(sel.id);
    const keep = want !== undefined && [...sel.options].some((o) => o.value === want) && !(marks[want] && marks[want].later);
    if (want !== undefined && !keep) chosen.delete(sel.id);
    const opts = [...sel.options];
    for (const o of opts) {
      if (!labels.has(o)) labels.set(o, o.textContent);
      const m = marks[o.value];
      const text = m && m.why ? `${labels.get(o)} — ${m.why}` : labels.get(o);
      if (o.textContent !== text) o.textContent = text;
      o.classList.toggle("refused", Boolean(m));
      o.hidden = o.disabled = Boolean(m && m.later);
    }
    const rank = (o) => (!marks[o.value] ? 0 : marks[o.value].later ? 2 : 1);
    const order = opts.slice().sort((a, b) => rank(a) - rank(b));
    // Moving the options moves the selection (the browser selects another while one is out of
    // the list): it is put back below.
    const was = sel.value;
    if (order.some((o, i) => o !== opts[i])) sel.append(...order);
    const to = keep ? order.find((o) => o.value === want) : order[0];
    if (!to) return;
    if (sel.value !== to.value) to.selected = true;
    if (was === to.value) return;
    const form = sel.closest("form");
    applies(form);
    if (form.dataset.odds === "1") refreshOdds(formAction(form), form.querySelector(".odds"));
  }

  // A list sent empty because an earlier list on the page has the same options
  // (`data-options="ID:HASH"`, lists.rs) takes a copy of them, as drawn by the server.
  function fillLists() {
    document.querySelectorAll("#main select[data-options]").forEach((sel) => {
      if (sel.options.length) return;
      const from = $(sel.dataset.options.split(":")[0]);
      if (!from) return;
      sel.replaceChildren(...[...from.options].map((o) => o.cloneNode(true)));
      // As drawn: the options' own `selected`, else (a single choice) the first.
      const picked = [...sel.options].findIndex((o) => o.defaultSelected);
      if (!sel.multiple) sel.selectedIndex = picked < 0 ? 0 : picked;
      else [...sel.options].forEach((o) => { o.selected = o.defaultSelected; });
    });
  }

  // Change #main by `change`, keeping what the user was doing.
  function redraw(change) {
    const u = userState();
    try {
      change();
    } finally {
      fillLists();
      restoreUserState(u);
      drawn();
    }
  }

  function setView(s, e) {
    seq = s;
    etag = e;
    live.seq = seq;
    live.etag = etag;
    if (seq > lastEvent) lastEvent = seq;
  }

  // An element's children by id (the first with each id: while a patch moves an element from
  // one list to another, its id is briefly on two).
  const kidsById = (el) => {
    const m = new Map();
    for (const c of el.children) if (c.id && !m.has(c.id)) m.set(c.id, c);
    return m;
  };

  // One op of a patch on this document (see patch.rs); throws when the page does not have what
  // it needs.
  function applyOp(op) {
    const el = $(op.id);
    if (!el) throw new Error(`#${op.id} missing`);
    if (op.op === "replace") {
      el.replaceWith(fragment(op.html));
    } else if (op.op === "attrs") {
      const t = fragment(op.tag).firstElementChild;
      if (!t || t.tagName !== el.tagName) throw new Error(`#${op.id}: not a ${el.tagName}`);
      for (const a of [...el.attributes]) if (!t.hasAttribute(a.name)) el.removeAttribute(a.name);
      for (const a of t.attributes) if (el.getAttribute(a.name) !== a.value) el.setAttribute(a.name, a.value);
    } else if (op.op === "remove") {
      const have = kidsById(el);
      for (const id of op.ids) {
        if (!have.has(id)) throw new Error(`#${op.id}: no child #${id}`);
        have.get(id).remove();
      }
    } else if (op.op === "insert") {
      const before = op.before == null ? null : kidsById(el).get(op.before);
      if (before === undefined) throw new Error(`#${op.id}: no child #${op.before}`);
      el.insertBefore(fragment(op.html), before);
    } else if (op.op === "children") {
      const have = kidsById(el);
      const kids = op.order.map((id) => {
        const c = op.add && Object.prototype.hasOwnProperty.call(op.add, id) ? fragment(op.add[id]).firstElementChild : have.get(id);
        if (!c) throw new Error(`#${op.id}: no child #${id}`);
        return c;
      });
      el.replaceChildren(...kids);
    } else {
      throw new Error(`unknown op ${op.op}`);
    }
  }

  // Carry out a patch from the live stream; false when it is not for the page on screen or
  // could not be carried out (the caller then fetches #main).
  function applyPatch(p) {
    if (p.base !== etag || !Array.isArray(p.ops)) return false;
    let ok = true;
    if (p.ops.length) {
      redraw(() => {
        try { p.ops.forEach(applyOp); } catch (e) { ok = false; live.error = String(e); }
      });
    }
    if (!ok) return false;
    setView(Number(p.seq) || 0, p.etag);
    live.patches += 1;
    // A patch with nothing to change (a card that changes nothing drawn) draws nothing: the
    // view's own step is still the page's to take.
    autoStep();
    return true;
  }

  // A patch too big for one live message names the parts of the new page it is made of
  // (`fetch`: ids) instead of carrying them: fetched for the version the patch makes and put in
  // its ops (as patch.rs's `Op::fill`). False when they could not be had (the page has moved on).
  async function withParts(p) {
    const ops = Array.isArray(p.ops) ? p.ops : [];
    const ids = [...new Set(ops.flatMap((o) => o.fetch || []))];
    if (!ids.length || p.base !== etag) return true;
    live.busy = true;
    try {
      // No answer within 10 s: the page fetches its #main whole instead.
      const r = await fetch(`/api/s/${T}/parts?etag=${encodeURIComponent(p.etag)}&lang=${encodeURIComponent(I18N.lang)}&ids=${ids.map(encodeURIComponent).join(",")}`, { cache: "no-store", signal: AbortSignal.timeout(10000) });
      if (!r.ok) return false;
      const { parts } = await r.json();
      if (!ids.every((id) => typeof parts[id] === "string")) return false;
      for (const o of ops) {
        if (!o.fetch) continue;
        if (o.op === "children") { o.add = o.add || {}; for (const id of o.fetch) o.add[id] = parts[id]; }
        else o.html = o.fetch.map((id) => parts[id]).join("");
        delete o.fetch;
      }
      live.parts = (live.parts || 0) + 1;
      return true;
    } catch (e) {
      return false;
    } finally {
      live.busy = refreshing;
    }
  }

  async function patched(p) {
    if (await withParts(p) && applyPatch(p)) return;
    live.mismatches += 1;
    if (p.base !== etag) live.error = `patch for ${p.base}, page at ${etag}`;
    refresh();
  }

  // The stream's messages are carried out one after the other: a patch waiting for its parts
  // holds back the next.
  let pending = Promise.resolve();
  const inTurn = (f) => { pending = pending.then(f).catch((e) => { live.error = String(e); }); };

  function swap(html) {
    const fresh = fragment(html).firstElementChild;
    if (!fresh || fresh.id !== "main") return;
    redraw(() => $("main").replaceWith(fresh));
    setView(parseInt(fresh.dataset.seq, 10) || 0, fresh.dataset.etag || "");
  }

  // Fetch #main whole: when the stream is down, or a patch did not fit. The stream is then
  // reopened from the page as it now is, so its next patch is for this page.
  let refreshing = false;
  let again = false;
  async function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    live.busy = true;
    try {
      do {
        again = false;
        const r = await fetch(`/s/${T}?part=main`, { cache: "no-store" });
        if (r.status === 404) { setLive("revoked"); break; }
        if (!r.ok) break;
        // The service worker's copy: the server cannot be reached.
        if (r.headers.get("x-tercio-offline") === "1") {
          const html = await r.text();
          const kept = fragment(html).firstElementChild;
          if (kept && (parseInt(kept.dataset.seq, 10) || 0) > seq) swap(html);
          setLive("lost");
          setOffline(true);
          break;
        }
        swap(await r.text());
        live.refreshes += 1;
      } while (again);
      if (live.state === "live") connect();
    } catch (e) {
      setLive("lost");
    } finally {
      refreshing = false;
      live.busy = false;
    }
  }

  // The stream, opened from the page's last entry and its version. When it fails the page
  // opens it again itself (the browser's own retry would resend the first address, with the
  // version the page had then); a stream the server refuses is checked for a withdrawn link.
  let source = null;
  let retry = null;
  let delay = 500;
  function connect() {
    clearTimeout(retry);
    if (source) source.close();
    const es = new EventSource(`/api/s/${T}/events?after=${lastEvent}&etag=${encodeURIComponent(etag)}&lang=${encodeURIComponent(I18N.lang)}&brief=1`);
    source = es;
    live.source = es;
    es.onopen = () => { delay = 500; setLive("live"); };
    es.onerror = async () => {
      if (source !== es || live.state === "revoked") return;
      const refused = es.readyState === EventSource.CLOSED;
      es.close();
      setLive("lost");
      if (refused) {
        try {
          const r = await fetch(`/api/s/${T}/log?after=${lastEvent}`, { cache: "no-store" });
          if (r.status === 404) { setLive("revoked"); return; }
        } catch (e) { /* still cut off: try again below */ }
      }
      if (source !== es) return;
      retry = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 4000);
    };
    es.addEventListener("entry", (e) => {
      live.largest = Math.max(live.largest, bytes(e.data));
      const d = JSON.parse(e.data);
      const fresh = d.seq > lastEvent;
      if (fresh) {
        lastEvent = d.seq;
        live.received.push(d.seq);
      }
      inTurn(async () => {
        if (d.patch) await patched(d.patch);
      });
    });
    es.addEventListener("changed", (e) => {
      live.largest = Math.max(live.largest, bytes(e.data || ""));
      const d = JSON.parse(e.data || "{}");
      if (d.patch) inTurn(() => patched(d.patch));
    });
    es.addEventListener("revoked", () => { es.close(); setLive("revoked"); });
  }

  // A page left for another (kept by the browser for its back button) closes its stream: open,
  // it held one of the six connections a browser gives a server, and a game master going from
  // seat to seat in one tab found the seventh page waiting for ever. Back on it, the page opens
  // its stream again and catches up.
  window.addEventListener("pagehide", () => {
    clearTimeout(retry);
    if (source) { source.close(); source = null; }
  });
  window.addEventListener("pageshow", (e) => { if (e.persisted) connect(); });

  // After this page's own change, the stream brings it; without the stream, fetch it.
  function afterOwnChange() {
    if (live.state !== "live") refresh();
  }

  // ---- The controls in #main ----
  //
  // Listened to on the document (capturing, so a `change` that does not bubble is seen too):
  // a patch may replace any element, and a new one works without being bound again.

  const inMain = (el) => el instanceof Element && $("main") && $("main").contains(el);

  const setting = async (body) => {
    const { status, data } = await call("POST", "/settings", body);
    if (status !== 200) { notice(data.error ? data.error.message : tr("failed")); refresh(); return; }
    afterOwnChange();
  };

  document.addEventListener("change", (e) => {
    const el = e.target;
    if (!inMain(el)) return;
    if (el.id === "side-rights") { setting({ side_rights: el.value }); return; }
    if (el.id === "physical-dice") { setting({ physical_dice: el.checked }); return; }
    // A choice picked from an action's tile: the action opens with it chosen, as if chosen there.
    if (el.matches("select.pick")) {
      const v = el.value;
      el.selectedIndex = 0;
      const d = el.parentElement.querySelector("details.act");
      if (!v || !d) return;
      (async () => {
        d.open = true;
        if (!(await loadForm(d))) return;
        const to = pickOf(el);
        if (to && to.value !== v) { to.value = v; to.dispatchEvent(new Event("change", { bubbles: true })); }
        requestAnimationFrame(() => { if (d.open) d.scrollIntoView({ block: "start" }); });
      })();
      return;
    }
    const form = el.closest("form.action-form");
    if (!form) return;
    clearErrors(form);
    // Another unit: nothing set for the last one carries over.
    if (el.matches("select[data-resets]")) { chosen.set(el.id, el.value); resetFields(form, el); }
    applies(form);
    if (form.dataset.odds === "1") refreshOdds(formAction(form), form.querySelector(".odds"));
  }, true);

  document.addEventListener("input", (e) => {
    const form = inMain(e.target) && e.target.closest("form.action-form");
    if (form && form.dataset.odds === "1") refreshOdds(formAction(form), form.querySelector(".odds"));
  }, true);

  // The forms of a rule set that describes its actions as data. Once recorded, the form goes
  // back to its defaults (a tick meant for one unit must not carry over to the next); by id, as
  // the live patch may already have replaced it.
  document.addEventListener("submit", async (e) => {
    const form = inMain(e.target) && e.target.closest("form.action-form");
    if (!form) return;
    e.preventDefault();
    // Offline, the page is the last known state, read-only.
    if (document.body.classList.contains("offline")) { sayAtButton(form, tr("offline"), "error"); return; }
    if (!(await send(formAction(form, e.submitter), form))) return;
    const now = $(form.getAttribute("id"));
    if (now) { now.reset(); now.dispatchEvent(new Event("change")); }
    // Its step done, an action opened from its tile closes again: the next step comes first.
    const tile = now && now.closest("details.act");
    if (tile) { tile.open = false; window.scrollTo({ top: 0 }); }
  }, true);

  document.addEventListener("click", async (e) => {
    if (e.target instanceof Element && e.target.closest("#undo")) { await undoLast(e.target.closest("#undo")); return; }
    if (!inMain(e.target)) return;
    const on = (sel) => e.target.closest(sel);
    // The game master's panel.
    const reissue = on("button.reissue");
    if (reissue) {
      if (!(await confirmAt(reissue, tr("reissue_confirm"), tr("reissue_yes")))) return;
      const body = { role: reissue.dataset.role };
      if (reissue.dataset.side) body.side = reissue.dataset.side;
      const { status, data } = await call("POST", "/seats/reissue", body);
      if (status !== 200) { notice(data.error ? data.error.message : tr("failed")); return; }
      if (reissue.dataset.role === "game-master") { location.href = data.url; return; }
      afterOwnChange();
      return;
    }
    const conclude = on("#conclude");
    if (conclude) {
      if (!(await confirmAt(conclude, tr("conclude_confirm"), tr("conclude_yes")))) return;
      const { status, data } = await call("POST", "/conclude");
      if (status !== 200) { notice(data.error ? data.error.message : tr("failed")); refresh(); return; }
      afterOwnChange();
    }
  }, true);

  // A secret on a shared device (the hand of the player whose turn it is) hides again with its
  // button. Delegated, as live redraws replace the buttons; a redraw draws it closed anyway.
  document.addEventListener("click", (e) => {
    const b = e.target instanceof Element && e.target.closest("details.reveal button.hide-reveal");
    if (!b) return;
    const d = b.closest("details.reveal");
    d.open = false;
    d.querySelector("summary").scrollIntoView({ block: "nearest" });
  });

  // Undo the newest entry, after asking in the page.
  async function undoLast(button) {
    if (!(await confirmAt(button, tr("undo_confirm"), tr("undo_yes")))) return;
    notice("");
    const { status, data } = await call("POST", "/undo");
    if (status === 200) afterOwnChange();
    else if (status === 412) { notice(data.error.message); afterOwnChange(); } else notice(data.error ? data.error.message : tr("failed"));
  }

  // The tabs: one panel of #main at a time (`body[data-tab]`, outside #main, so live patches
  // keep it), the same one again after a reload of this seat's page.
  const TAB_KEY = `tercio-tab:${T}`;
  function showTab(tab) {
    if (!document.querySelector(`#tabs [data-tab="${CSS.escape(tab)}"]`)) tab = "play";
    document.body.dataset.tab = tab;
    try { sessionStorage.setItem(TAB_KEY, tab); } catch (e) { /* private mode: not remembered */ }
  }
  document.addEventListener("click", (e) => {
    const b = e.target instanceof Element && e.target.closest("#tabs button[data-tab]");
    if (!b) return;
    showTab(b.dataset.tab);
    window.scrollTo({ top: 0 });
  });
  // An action opened from its title comes up to the top of the screen, under the header: its
  // fields and its button in view without a scroll.
  document.addEventListener("click", (e) => {
    const sum = e.target instanceof Element && e.target.closest("#forms details.act > summary");
    if (!sum) return;
    const d = sum.parentElement;
    requestAnimationFrame(() => { if (d.open) d.scrollIntoView({ block: "start" }); });
  });
  // The turn's notes, a line each on a phone, open whole with a tap (and close with another).
  document.addEventListener("click", (e) => {
    if (e.target instanceof Element && e.target.closest("#notes")) document.body.classList.toggle("notes-open");
  });
  // The newest result's line leads to its entry in the log, opened.
  document.addEventListener("click", (e) => {
    const a = e.target instanceof Element && e.target.closest("#last a.to-log");
    if (!a) return;
    e.preventDefault();
    showTab("log");
    const li = $(a.getAttribute("href").slice(1));
    const d = li && li.querySelector("details");
    if (d) d.open = true;
    if (li) li.scrollIntoView({ block: "start" });
  });
  let savedTab = null;
  try { savedTab = sessionStorage.getItem(TAB_KEY); } catch (e) { savedTab = null; }
  showTab(savedTab || "play");

  // ---- Offline (issue 43, item 9) ----
  //
  // In a secure context the service worker (`/sw.js`) keeps the shell, the assets and this
  // seat's page; the page keeps its live part as last drawn, so that offline the last known
  // state shows, read-only, and says so. The copy goes as soon as the link is withdrawn.
  const COPY = `/s/${T}?part=main`;
  const canKeep = () => window.isSecureContext && "caches" in window && "serviceWorker" in navigator;
  function keepCopy() {
    if (!canKeep() || document.body.classList.contains("offline")) return;
    const main = $("main");
    if (!main) return;
    // Without what the script drew in it by style (the odds' bars): read back, a style
    // attribute is inline style, which the Content-Security-Policy forbids.
    const copy = main.cloneNode(true);
    copy.querySelectorAll("[style]").forEach((e) => e.removeAttribute("style"));
    const html = copy.outerHTML;
    caches.open("tercio-v1").then((c) => c.put(COPY, new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }))).catch(() => {});
  }
  function dropCopy() {
    if (!canKeep()) return;
    caches.open("tercio-v1").then((c) => Promise.all([c.delete(COPY), c.delete(`/s/${T}`)])).catch(() => {});
  }
  function setOffline(on) {
    if (document.body.classList.contains("offline") === on) return;
    document.body.classList.toggle("offline", on);
    notice(on ? tr("offline") : "");
  }

  fillLists();
  drawn();
  // A page the service worker answered from its copy: the live part as last drawn, read-only.
  if (document.body.dataset.offline === "1") { setOffline(true); refresh(); }
  connect();
})();

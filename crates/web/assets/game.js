// Tercio seat page: builds each action from the forms the rule set describes, shows the exact odds as fields change, asks the rule texts' questions (OK = yes,
// Cancel = no), shows each result, and keeps the page live: every change to the game, by any
// seat, reaches the page within a second as a patch of the elements that changed. Its words come
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
  // An error as "field: message", not naming the field twice when the message already does.
  const fieldMessage = (e) => {
    const m = e.message || tr("failed");
    return e.field && !m.startsWith(e.field + ":") ? `${e.field}: ${m}` : m;
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
  const live = { received: [], state: "connecting", refreshes: 0, patches: 0, mismatches: 0, seq, etag, busy: false };
  window.TERCIO_LIVE = live;

  // `base`: the view the user decided on; an action started on one view stays on it through its
  // questions and dice, so a change by another seat meanwhile makes it stale, not silently rebased.
  async function call(method, path, body, base) {
    const view = base === undefined ? seq : base;
    const r = await fetch(`/api/s/${T}${path}`, { method, headers: { "content-type": "application/json", "if-match": `"${view}"` }, body: body === undefined ? undefined : JSON.stringify(body) });
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
  function refuse(form, e) {
    if (!form) { notice(errorText(null, e)); return; }
    clearErrors(form);
    const p = document.createElement("p");
    p.className = "error field-error";
    p.setAttribute("role", "alert");
    p.textContent = errorText(form, e);
    const el = fieldOf(form, e);
    const at = el && el.closest("label") ? el.closest("label") : form.querySelector("button[type=submit]");
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
  }

  // A catalogue text with a plural: its `.one` form for 1, `.other` for any other count.
  const plural = (key, n, args) => tr(`${key}.${n === 1 ? "one" : "other"}`, args);

  // A step's dice, one line per unit (or purpose) rather than per die: consecutive dice with
  // the same label, less a die's number ("Swiss 2"), and the same sides together ("Swiss: 3 dice
  // → 3, 5, 6"), as the log's entries say them (pages/seat.rs, `dice_lines`).
  function diceGroups(dice) {
    const groups = [];
    for (const d of dice) {
      const stem = (d.label || "").replace(/ \d+$/, "");
      const g = groups[groups.length - 1];
      if (g && g.stem === stem && g.sides === d.sides) g.faces.push(d.face);
      else groups.push({ stem, sides: d.sides, faces: [d.face] });
    }
    return groups;
  }

  // A result's title: the action's name, never its id ("end_turn" is looked up as "end-turn").
  const TITLES = SEAT.titles || {};
  const titleOf = (a) => TITLES[a] || TITLES[String(a).replace(/_/g, "-")] || a;

  // A resolution's steps as the log's entry shows them under its line (pages/seat.rs,
  // `render_resolution`, writes the same text for the page): each step with its dice, its
  // modifiers as their rules say them with their values (as `modifier_text`: "Leader with unit
  // (+1)"), its totals and its result. Another seat's result is read from its log entry, so what
  // every seat's box shows is this text; the browser tests compare the two.
  function stepsText(res) {
    return (res.steps || []).map((st) => {
      let s = `${st.title}\n`;
      for (const g of diceGroups(st.dice || [])) {
        s += `    ${plural("dice_group", g.faces.length, { label: g.stem || st.title, count: g.faces.length, sides: g.sides === 6 ? "" : ` (d${g.sides})`, faces: g.faces.join(", ") })}\n`;
      }
      for (const m of st.modifiers || []) s += `    ${`${m.side}:`.padEnd(9)} ${m.name}${m.value ? ` (${m.value > 0 ? "+" : ""}${m.value})` : ""}\n`;
      if (st.totals && st.totals.length) s += `    ${tr("totals").padEnd(10)} ${st.totals.map((t) => `${t[0]} ${t[1]}`).join(", ")}\n`;
      return s + `    ${tr("result").padEnd(10)} ${st.result}\n`;
    }).join("\n");
  }

  // A result for its box: the action, its steps (`steps`: their text), its outcome.
  const boxText = (action, steps, summary) => `${titleOf(action)}\n\n${steps}\n${tr("outcome", { summary })}`;

  // A result in the box to dismiss (already open: its text replaced).
  // The game master can undo it from there (a result and its undo sit together) while it is the
  // newest entry.
  function openResult(text, newest) {
    $("result-text").textContent = text;
    const undo = $("result-undo");
    if (undo) undo.hidden = !newest || !$("undo");
    if (!$("result-box").open) $("result-box").showModal();
  }

  // A result as one line at the foot of the page.
  const resultLine = (res) => notice(tr("outcome", { summary: res.summary }));

  // Another seat's result shows on this page too, as this page's own do (those come with their
  // answer); only the newest, so a page catching up after a cut is not shown every one it missed.
  // The stream sends the entry brief (its action, summary and whether it rolled dice): the
  // result's text is its log entry's, once the page shows it (`pendingResult` until then).
  let pendingResult = null;
  function othersResult(d) {
    const ev = d.entry && d.entry.event;
    if (!ev || !ev.resolution || ev.by === SEAT.by || d.seq !== d.events) return;
    pendingResult = d;
    showPendingResult();
  }
  // `settled`: the page is drawn whole (no later chance for the entry to appear).
  function showPendingResult(settled) {
    const d = pendingResult;
    if (!d) return;
    const res = d.entry.event.resolution;
    // What rolled no die (a card drawn, a turn's step) is a line at the foot, not a box.
    if (!res.rolled) { pendingResult = null; resultLine(res); return; }
    const pre = document.querySelector(`#e-${d.seq} pre`);
    if (!pre && !settled) return;
    pendingResult = null;
    if (!pre) { resultLine(res); return; }
    openResult(boxText(res.action, pre.textContent, res.summary), true);
  }

  // A described form's action: `{"action": …, field: value…}`. A choice gives its option's value
  // (an empty one leaves the field out), a choice of several the list of its values chosen (none
  // leaves it out), a tick box `true` when ticked (left out otherwise), a
  // number an integer (left out when empty, so the answer names the missing field), a text its
  // trimmed value (left out when empty).
  function formAction(form) {
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

  // Ask for the faces of the dice in `needed`, thrown on the table. Resolves to the faces, or
  // null when cancelled.
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
      const done = (v) => { $("dice-form").onsubmit = null; $("dice-cancel").onclick = null; box.close(); resolve(v); };
      $("dice-form").onsubmit = (e) => { e.preventDefault(); done([...inputs.querySelectorAll("input.face")].map((x) => parseInt(x.value, 10))); };
      $("dice-cancel").onclick = () => done(null);
      box.showModal();
      const first = inputs.querySelector("input");
      if (first) first.focus();
    });
  }

  // Handle an answer to an action of `form` (none for the page's own buttons); the body to send
  // again when a question was answered, else null.
  function outcome(status, data, body, form) {
    if (status === 200) {
      // A quiet action (a card drawn): its outcome as a line at the foot of the page.
      if (form && form.dataset.quiet !== undefined) resultLine(data.resolution);
      else openResult(boxText(data.resolution.action, stepsText(data.resolution), data.resolution.summary), true);
      afterOwnChange();
      return null;
    }
    const e = data.error || {};
    if (status === 409 && e.kind === "question" && e.field) {
      answers[e.field] = window.confirm(e.message.replace(/ Answer with .*$/, ""));
      return Object.assign({}, body, { [e.field]: answers[e.field] });
    }
    if (status === 412) { notice(e.message); afterOwnChange(); return null; }
    refuse(form, e);
    return null;
  }

  // Resolve and record an action, through its questions and table dice; true once recorded.
  async function send(body, form) {
    notice("");
    clearErrors(form);
    const base = seq;
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
      const next = outcome(res.status, res.data, body, form);
      if (!next) return res.status === 200;
      body = next;
    }
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
        l.hidden = !by || !l.dataset.onlyFor.split(" ").includes(by.value);
      });
    }
    // A tick box the state ticks for some units starts ticked for them (`data-checked-for`):
    // its default follows what acts, and a tick the user changed for the same unit stays.
    form.querySelectorAll("input[data-checked-for]").forEach((el) => {
      const on = Boolean(what) && el.dataset.checkedFor.split(" ").includes(what.value);
      if (el.defaultChecked !== on) { el.defaultChecked = on; el.checked = on; }
    });
  }

  // Put a form's fields back where the page drew them, all but `keep`.
  function resetFields(form, keep) {
    form.querySelectorAll("input[name], select[name]").forEach((el) => {
      if (el === keep) return;
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
    lastLine();
    document.querySelectorAll("#main details.reveal").forEach((d) => { d.open = false; });
    document.querySelectorAll("#main form.action-form").forEach((form) => {
      applies(form);
      if (form.dataset.odds === "1") refreshOdds(formAction(form), form.querySelector(".odds"));
    });
    refreshChoices();
  }

  // What the rules would refuse of each choice of what acts (`GET /choices`: by list id and
  // value, `why` and `later`), drawn into the lists: the page and its live patches list every
  // choice plainly in the rules' order, since what is refused changes for nearly every unit as
  // a turn goes on. An answer for another version of the page than the one on screen is dropped
  // (the page's next drawing asks again).
  let choicesTicket = 0;
  async function refreshChoices() {
    if (!document.querySelector("#main form.action-form select[data-resets]")) return;
    const ticket = ++choicesTicket;
    let data;
    try {
      const r = await fetch(`/api/s/${T}/choices?lang=${encodeURIComponent(I18N.lang)}`, { cache: "no-store" });
      if (!r.ok) return;
      data = await r.json();
    } catch (e) { return; }
    if (ticket !== choicesTicket || data.etag !== etag) return;
    document.querySelectorAll("#main form.action-form select[data-resets]").forEach((sel) => markChoices(sel, (data.choices || {})[sel.id] || {}));
    live.choices = seq;
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
      const text = m ? `${labels.get(o)} — ${m.why}` : labels.get(o);
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

  // Change #main by `change`, keeping what the user was doing.
  function redraw(change) {
    const u = userState();
    try {
      change();
    } finally {
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
    showPendingResult(true);
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
      const d = JSON.parse(e.data);
      const fresh = d.seq > lastEvent;
      if (fresh) {
        lastEvent = d.seq;
        live.received.push(d.seq);
      }
      inTurn(async () => {
        if (d.patch) await patched(d.patch);
        if (fresh) othersResult(d);
      });
    });
    es.addEventListener("changed", (e) => {
      const d = JSON.parse(e.data || "{}");
      if (d.patch) inTurn(() => patched(d.patch));
    });
    es.addEventListener("revoked", () => { es.close(); setLive("revoked"); });
  }

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
    if (!(await send(formAction(form), form))) return;
    const now = $(form.getAttribute("id"));
    if (now) { now.reset(); now.dispatchEvent(new Event("change")); }
  }, true);

  document.addEventListener("click", async (e) => {
    if (!inMain(e.target)) return;
    const on = (sel) => e.target.closest(sel);
    if (on("#undo")) { await undoLast(); return; }
    // The game master's panel.
    const reissue = on("button.reissue");
    if (reissue) {
      if (!window.confirm(tr("reissue_confirm"))) return;
      const body = { role: reissue.dataset.role };
      if (reissue.dataset.side) body.side = reissue.dataset.side;
      const { status, data } = await call("POST", "/seats/reissue", body);
      if (status !== 200) { notice(data.error ? data.error.message : tr("failed")); return; }
      if (reissue.dataset.role === "game-master") { location.href = data.url; return; }
      afterOwnChange();
      return;
    }
    if (on("#conclude")) {
      if (!window.confirm(tr("conclude_confirm"))) return;
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

  // Undo the newest entry, after asking.
  async function undoLast() {
    if (!window.confirm(tr("undo_confirm"))) return;
    notice("");
    const { status, data } = await call("POST", "/undo");
    if (status === 200) afterOwnChange();
    else if (status === 412) { notice(data.error.message); afterOwnChange(); } else notice(data.error ? data.error.message : tr("failed"));
  }
  // The result box's undo: the box closes, then the same undo as the page's.
  const resultUndo = $("result-undo");
  if (resultUndo) resultUndo.addEventListener("click", () => { $("result-box").close(); undoLast(); });

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
  // The turn's notes, a line each on a phone, open whole with a tap (and close with another).
  document.addEventListener("click", (e) => {
    if (e.target instanceof Element && e.target.closest("#notes")) document.body.classList.toggle("notes-open");
  });
  // The newest entry's line above the actions, copied from the log (the server draws it empty,
  // so a live event does not carry the entry twice); a tap leads to the entry in the log.
  function lastLine() {
    const p = $("last-line");
    const li = document.querySelector("#log-list > li");
    if (!p || !li) return;
    const from = li.querySelector("summary") || li;
    const a = document.createElement("a");
    a.href = `#${li.id}`;
    a.className = "to-log";
    if (li.classList.contains("voided")) a.classList.add("voided");
    a.innerHTML = from.innerHTML;
    p.replaceChildren(a);
  }
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

  drawn();
  connect();
})();

// Tercio seat page: builds the action from the app's fields (or from the forms a rule set
// describes), shows the exact odds as fields change, asks the rule texts' questions (OK = yes,
// Cancel = no), shows each result, and keeps the page live: every change to the game, by any
// seat, is redrawn within a second. Its words come from the page (`#tercio-i18n`: the
// catalogue's `web.js.*` texts in the page's language), never from this file.
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
  const T = window.TERCIO_SEAT;
  const $ = (id) => document.getElementById(id);
  let answers = {};
  // The number of log entries the view on screen was drawn from (sent as If-Match), and the last
  // entry the live stream delivered.
  let seq = parseInt($("main").dataset.seq, 10) || 0;
  let lastEvent = seq;
  // For the curious and for tests: what the live stream delivered and where the view stands.
  const live = { received: [], state: "connecting", refreshes: 0, seq, busy: false };
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

  function notice(text) {
    const n = $("notice");
    n.textContent = text || "";
    n.hidden = !text;
  }

  function setLive(state) {
    live.state = state;
    const el = $("live");
    el.className = `live ${state}`;
    el.textContent = { live: tr("live"), lost: tr("lost"), revoked: tr("revoked"), connecting: tr("connecting") }[state] || state;
  }

  function render(res) {
    let s = `${res.action}\n`;
    for (const st of res.steps) {
      s += `\n${st.title}\n`;
      if (st.dice && st.dice.length) s += `  ${tr("dice")} ${st.dice.map((d) => `${d.label} d${d.sides} = ${d.face}`).join(", ")}\n`;
      for (const m of st.modifiers || []) s += `  ${m.side}: ${m.value >= 0 ? "+" : ""}${m.value} ${m.name}\n`;
      if (st.totals && st.totals.length) s += `  ${tr("totals")} ${st.totals.map((t) => `${t[0]} ${t[1]}`).join(", ")}\n`;
      s += `  → ${st.result}\n`;
    }
    return s + `\n${tr("outcome", { summary: res.summary })}`;
  }

  function showResult(text) {
    $("result-text").textContent = text;
    $("result-box").showModal();
    refresh();
  }

  function action() {
    const kind = $("f-action").value;
    const a = { action: kind, actor: $("f-actor").value };
    const uses = (f) => { const el = $(f); const label = el && el.closest("[data-for]"); return el && (!label || label.dataset.for.split(" ").includes(kind)); };
    if (uses("f-target") && $("f-target").value) a.target = $("f-target").value;
    if (uses("f-ground") && (kind !== "regroup" || a.target)) a.ground = $("f-ground").value;
    if (uses("f-force") && $("f-force").value) a.force = $("f-force").value;
    if (uses("f-astatus") && $("f-astatus").value) a.actor_status = $("f-astatus").value;
    if (uses("f-tstatus") && $("f-tstatus").value && a.target) a.target_status = $("f-tstatus").value;
    if (uses("f-leader") && $("f-leader").value) a.leader_with_actor = $("f-leader").value;
    const n = (id) => parseInt($(id).value || "0", 10) || 0;
    if (uses("f-sup-a") && n("f-sup-a") > 0) a.supporting_actor_bases = n("f-sup-a");
    if (uses("f-sup-t") && n("f-sup-t") > 0) a.supporting_target_bases = n("f-sup-t");
    if (uses("f-charging") && $("f-charging").checked) a.actor_charging = true;
    if (uses("f-aflank") && $("f-aflank").checked) a.actor_in_flank = true;
    if (uses("f-tflank") && $("f-tflank").checked) a.target_in_flank = true;
    if (uses("f-flankcharge") && $("f-flankcharge").checked) a.frontal = false;
    if (uses("f-ferocious") && $("f-ferocious").checked) a.ferocious = true;
    if (uses("f-stakes") && $("f-stakes").checked) a.plant_stakes = true;
    if (kind === "regroup" && !a.target) { delete a.ground; }
    return Object.assign(a, answers);
  }

  // A described form's action: `{"action": …, field: value…}`. A choice gives its option's value
  // (an empty one leaves the field out), a tick box `true` when ticked (left out otherwise), a
  // number an integer (left out when empty, so the answer names the missing field), a text its
  // trimmed value (left out when empty).
  function formAction(form) {
    const a = { action: form.dataset.action };
    form.querySelectorAll("select[name], input[name]").forEach((el) => {
      if (el.type === "checkbox") { if (el.checked) a[el.name] = true; return; }
      if (el.type === "text") { const v = el.value.trim(); if (v) a[el.name] = v; return; }
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

  function showFields() {
    const opt = $("f-actor").selectedOptions[0];
    const unavailable = opt ? JSON.parse(opt.dataset.unavailable || "{}") : {};
    const lines = [];
    for (const o of $("f-action").options) {
      o.disabled = Boolean(unavailable[o.value]);
      if (o.disabled) lines.push(`${o.textContent}: ${unavailable[o.value]}`);
    }
    if ($("f-action").selectedOptions[0].disabled) {
      const first = [...$("f-action").options].find((o) => !o.disabled);
      if (first) $("f-action").value = first.value;
    }
    $("unavailable").textContent = lines.length ? tr("unavailable", { reasons: lines.join(" · ") }) : "";
    $("f-astatus").options[0].textContent = tr("as_tracked_status", { status: opt ? opt.dataset.status : "?" });
    const tgt = $("f-target").selectedOptions[0];
    $("f-tstatus").options[0].textContent = tgt && tgt.value ? tr("as_tracked_status", { status: tgt.dataset.status }) : tr("as_tracked");
    const mine = (opt ? parseInt(opt.dataset.bases, 10) : 0) + (parseInt($("f-sup-a").value, 10) || 0);
    const theirs = (tgt && tgt.value ? parseInt(tgt.dataset.bases, 10) : 0) + (parseInt($("f-sup-t").value, 10) || 0);
    let ratio = "";
    if (theirs > 0) {
      ratio = tr(mine === theirs ? "force_even" : mine > theirs ? (mine >= 2 * theirs ? "force_badly_outnumbers" : "force_outnumbers") : (theirs >= 2 * mine ? "force_badly_outnumbered" : "force_outnumbered"));
    }
    $("f-force").options[0].textContent = ratio ? tr("force_from_bases", { ratio, mine, theirs }) : tr("force_auto");
    const kind = $("f-action").value;
    document.querySelectorAll("[data-for]").forEach((el) => { el.hidden = !el.dataset.for.split(" ").includes(kind); });
    const side = $("f-actor").selectedOptions[0] && $("f-actor").selectedOptions[0].dataset.side;
    for (const o of $("f-target").options) if (o.value) o.hidden = o.dataset.side === side;
    for (const o of $("f-leader").options) if (o.value) o.hidden = o.dataset.side !== side;
    const t = $("f-target").selectedOptions[0];
    if (t && t.value && t.hidden) $("f-target").value = "";
  }

  // Show the exact odds of the action `body` in `box`, shortly after the last change (each box
  // keeps its own timer; an answer that arrives after a newer request started is dropped).
  function refreshOdds(body, box) {
    if (!box) return;
    clearTimeout(box.oddsTimer);
    box.oddsTimer = setTimeout(async () => {
      const ticket = (box.oddsTicket || 0) + 1;
      box.oddsTicket = ticket;
      // Questions not yet answered are assumed answered OK (yes) for the odds, and said so.
      const assumed = [];
      let res = await call("POST", "/odds", body);
      for (let i = 0; i < 3 && res.status === 409 && res.data.error && res.data.error.code === "question"; i++) {
        assumed.push(res.data.error.message.replace(/ Answer with .*$/, ""));
        body = Object.assign({}, body, { [res.data.error.field]: true });
        res = await call("POST", "/odds", body);
      }
      if (box.oddsTicket !== ticket) return;
      const { status, data } = res;
      box.innerHTML = "";
      if (status !== 200) {
        const e = data.error || {};
        const p = document.createElement("p");
        p.className = e.code === "missing-field" ? "hint" : "error";
        p.textContent = e.code === "missing-field" ? tr("choose_field", { field: e.field }) : fieldMessage(e);
        box.appendChild(p);
        return;
      }
      const t = document.createElement("table");
      for (const f of data.facets) {
        if (f.values.length < 2) continue;
        const r = t.insertRow();
        const th = document.createElement("th");
        th.textContent = f.facet;
        r.appendChild(th);
        const td = r.insertCell();
        for (const [v, p] of f.values) {
          const line = document.createElement("div");
          const bar = document.createElement("span");
          bar.className = "bar";
          bar.style.width = `${Math.round(p * 80)}px`;
          line.appendChild(bar);
          line.appendChild(document.createTextNode(`${v}: ${fmt(p * 100, 1)}%`));
          td.appendChild(line);
        }
        if (typeof f.mean === "number") {
          const m = document.createElement("div");
          m.className = "mean";
          m.textContent = tr("expected", { mean: fmt(f.mean, 2) });
          td.appendChild(m);
        }
      }
      const head = document.createElement("strong");
      head.textContent = tr("exact_odds");
      box.appendChild(head);
      for (const q of assumed) { const n = document.createElement("p"); n.className = "question"; n.textContent = tr("assuming", { question: q }); box.appendChild(n); }
      if (data.note) { const n = document.createElement("p"); n.className = "question"; n.textContent = tr("not_yet", { note: data.note }); box.appendChild(n); }
      box.appendChild(t);
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

  // Handle an answer to an action; true when the caller should retry with `body` changed.
  function outcome(status, data, body) {
    if (status === 200) { showResult(render(data.resolution)); return null; }
    const e = data.error || {};
    if (status === 409 && e.code === "question" && e.field) {
      answers[e.field] = window.confirm(e.message.replace(/ Answer with .*$/, ""));
      return Object.assign({}, body, { [e.field]: answers[e.field] });
    }
    if (status === 412) { notice(e.message); refresh(); return null; }
    alert(fieldMessage(e));
    return null;
  }

  // Resolve and record an action, through its questions and table dice; true once recorded.
  async function send(body) {
    notice("");
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
      const next = outcome(res.status, res.data, body);
      if (!next) return res.status === 200;
      body = next;
    }
  }

  // ---- Live updates ----

  function swap(html) {
    const tmp = document.createElement("div");
    tmp.innerHTML = html;
    const fresh = tmp.querySelector("#main");
    if (!fresh) return;
    // Keep what the user was choosing; the server's own settings and links are redrawn as they are.
    const keep = {};
    document.querySelectorAll("#main input[id], #main select[id], #main textarea[id]").forEach((el) => {
      if (el.dataset.server !== undefined) return;
      keep[el.id] = el.type === "checkbox" ? el.checked : el.multiple ? [...el.selectedOptions].map((o) => o.value) : el.value;
    });
    const seatsOpen = document.querySelector("#seats details") && document.querySelector("#seats details").open;
    const notesOpen = document.querySelector("#scenario-notes details") && document.querySelector("#scenario-notes details").open;
    $("main").replaceWith(fresh);
    for (const [id, v] of Object.entries(keep)) {
      const el = $(id);
      if (!el || el.dataset.server !== undefined) continue;
      if (el.type === "checkbox") el.checked = v;
      else if (el.multiple) [...el.options].forEach((o) => { o.selected = v.includes(o.value); });
      else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === v)) el.value = v;
    }
    const d = document.querySelector("#seats details");
    if (d && seatsOpen !== null && seatsOpen !== undefined) d.open = seatsOpen;
    const n = document.querySelector("#scenario-notes details");
    if (n && notesOpen) n.open = true;
    seq = parseInt(fresh.dataset.seq, 10) || 0;
    live.seq = seq;
    if (seq > lastEvent) lastEvent = seq;
    bind();
  }

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
    } catch (e) {
      setLive("lost");
    } finally {
      refreshing = false;
      live.busy = false;
    }
  }

  let wasLost = false;
  function connect() {
    const es = new EventSource(`/api/s/${T}/events?after=${lastEvent}`);
    live.source = es;
    es.onopen = () => {
      setLive("live");
      // Anything that changed while the page was cut off and added no entry.
      if (wasLost) refresh();
      wasLost = false;
    };
    es.onerror = async () => {
      if (live.state === "revoked") return;
      wasLost = true;
      setLive("lost");
      if (es.readyState !== EventSource.CLOSED) return;
      // The server refused the stream (the browser gives up by itself): a withdrawn link shows
      // as such through the redraw; anything else is retried.
      await refresh();
      if (live.state !== "revoked") { setLive("lost"); setTimeout(connect, 1000); }
    };
    es.addEventListener("entry", (e) => {
      const d = JSON.parse(e.data);
      if (d.seq <= lastEvent) return;
      lastEvent = d.seq;
      live.received.push(d.seq);
      refresh();
    });
    es.addEventListener("changed", () => refresh());
    es.addEventListener("revoked", () => { es.close(); setLive("revoked"); });
  }

  // ---- The controls in the redrawn part ----

  function bind() {
    answers = {};
    if ($("app")) {
      ["f-actor", "f-action", "f-target", "f-ground", "f-force", "f-astatus", "f-tstatus", "f-leader", "f-sup-a", "f-sup-t", "f-charging", "f-aflank", "f-tflank", "f-flankcharge", "f-ferocious", "f-stakes"].forEach((id) => {
        const el = $(id);
        if (el) el.addEventListener("change", () => { answers = {}; showFields(); refreshOdds(action(), $("odds")); });
      });
      $("result").addEventListener("click", () => send(action()));
      showFields();
      refreshOdds(action(), $("odds"));
    }
    // The forms of a rule set that describes its actions as data.
    document.querySelectorAll("#main form.action-form").forEach((form) => {
      // Once recorded, the form goes back to its defaults (a tick meant for one unit must not
      // carry over to the next); by id, as the live redraw may already have replaced it.
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        if (!(await send(formAction(form)))) return;
        const now = $(form.id);
        if (now) { now.reset(); now.dispatchEvent(new Event("change")); }
      });
      if (form.dataset.odds !== "1") return;
      const box = form.querySelector(".odds");
      const update = () => refreshOdds(formAction(form), box);
      form.addEventListener("change", update);
      form.addEventListener("input", update);
      update();
    });
    document.querySelectorAll("#main [data-turn]").forEach((b) => b.addEventListener("click", () => send(JSON.parse(b.dataset.turn))));
    if ($("command")) $("command").addEventListener("click", () => send({ action: "command", leader: $("command-leader").value }));
    if ($("end-fire")) $("end-fire").addEventListener("click", () => {
      const fires = [];
      document.querySelectorAll(".fire-row").forEach((row) => {
        const target = row.querySelector(".fire-target").value;
        if (target) fires.push({ action: "fire", actor: row.dataset.actor, target, ground: row.querySelector(".fire-ground").value });
      });
      const body = { action: "end-fire", fires };
      const none = [...document.querySelectorAll(".no-target:checked")].map((c) => c.value);
      if (none.length) body.swiss_without_targets = none;
      send(body);
    });
    if ($("end-turn")) $("end-turn").addEventListener("click", () => {
      const camps_sacked = [...document.querySelectorAll(".camp:checked")].map((c) => ({ side: c.value, by: [...document.querySelector(`.looters[data-side="${c.value}"]`).selectedOptions].map((o) => o.value) }));
      send({ action: "end-turn", camps_sacked });
    });
    document.querySelectorAll("select.attach").forEach((sel) => sel.addEventListener("change", () => {
      const body = { action: "attach", leader: sel.dataset.leader };
      if (sel.value) body.unit = sel.value;
      send(body);
    }));
    document.querySelectorAll("select.assign").forEach((sel) => sel.addEventListener("change", () => {
      if (sel.value) send({ action: "assign-command", leader: sel.dataset.leader, to: sel.value });
    }));
    if ($("undo")) $("undo").addEventListener("click", async () => {
      if (!window.confirm(tr("undo_confirm"))) return;
      const { status, data } = await call("POST", "/undo");
      if (status === 200) refresh();
      else if (status === 412) { notice(data.error.message); refresh(); } else alert(data.error ? data.error.message : tr("failed"));
    });
    // The game master's panel.
    document.querySelectorAll("button.reissue").forEach((b) => b.addEventListener("click", async () => {
      if (!window.confirm(tr("reissue_confirm"))) return;
      const body = { role: b.dataset.role };
      if (b.dataset.side) body.side = b.dataset.side;
      const { status, data } = await call("POST", "/seats/reissue", body);
      if (status !== 200) { alert(data.error ? data.error.message : tr("failed")); return; }
      if (b.dataset.role === "game-master") { location.href = data.url; return; }
      refresh();
    }));
    const setting = async (body) => {
      const { status, data } = await call("POST", "/settings", body);
      if (status !== 200) alert(data.error ? data.error.message : tr("failed"));
      refresh();
    };
    if ($("side-rights")) $("side-rights").addEventListener("change", () => setting({ side_rights: $("side-rights").value }));
    if ($("physical-dice")) $("physical-dice").addEventListener("change", () => setting({ physical_dice: $("physical-dice").checked }));
    if ($("conclude")) $("conclude").addEventListener("click", async () => {
      if (!window.confirm(tr("conclude_confirm"))) return;
      const { status, data } = await call("POST", "/conclude");
      if (status !== 200) alert(data.error ? data.error.message : tr("failed"));
      refresh();
    });
  }

  // A secret on a shared device (the hand of the player whose turn it is) hides again with its
  // button. Delegated, as live redraws replace the buttons; a redraw draws it closed anyway.
  document.addEventListener("click", (e) => {
    const b = e.target instanceof Element && e.target.closest("details.reveal button.hide-reveal");
    if (!b) return;
    const d = b.closest("details.reveal");
    d.open = false;
    d.querySelector("summary").scrollIntoView({ block: "nearest" });
  });

  bind();
  connect();
})();

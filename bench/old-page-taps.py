#!/usr/bin/env python3
"""The issue 43 comparison: each example game played through taps on the game page of a build from
before the issue (commit 72170b3), counted as the tap test counts the page now
(`example_games_are_played_by_taps_on_an_italian_phone_in_chromium`): a field set that differs
from where the page drew it, a tap opening a closed disclosure, the action's button; and what
only that page asked: each OK of its result box and each answer to a browser confirm().

    git worktree add /tmp/oldpage 72170b3
    (cd /tmp/oldpage && cargo build --release -p tercio)
    bench/old-page-taps.py /tmp/oldpage/target/release/tercio /tmp/oldpage el-gran-capitan ...

It needs chromedriver and chromium (Debian's packages), and plays at 360x740 in Italian. The
figures are in docs/performance.md."""
import json, os, subprocess, sys, time, urllib.request, urllib.error, re, pathlib, signal

WD_PORT = 9777


def http(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class B:
    def __init__(self):
        self.drv = subprocess.Popen(["chromedriver", f"--port={WD_PORT}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "unhandledPromptBehavior": "ignore", "goog:chromeOptions": {
            "binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox", "--window-size=360,740", "--lang=it-IT"],
            "prefs": {"intl.accept_languages": "it-IT,it"}}}}}
        st, v = http("POST", f"http://127.0.0.1:{WD_PORT}/session", caps)
        assert st == 200, v
        self.sid = v["value"]["sessionId"]

    def cmd(self, method, path, body=None):
        st, v = http(method, f"http://127.0.0.1:{WD_PORT}/session/{self.sid}{path}", body if method != "GET" else None)
        return st, (v or {}).get("value")

    def js(self, script, *args):
        st, v = self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})
        return v

    def alert(self):
        st, v = self.cmd("GET", "/alert/text")
        return v if st == 200 else None

    def quit(self):
        self.cmd("DELETE", "")
        self.drv.send_signal(signal.SIGTERM)


def form_fields(action, fixed):
    out = []
    for k, v in action.items():
        if k == "action" or fixed.get(k, object()) == v:
            continue
        if k == "camps_sacked":
            for camp in v:
                for n, by in enumerate(camp.get("by", [])):
                    out.append((f"sack.{camp['side']}.{n + 1}", by))
            continue
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for act in v:
                actor = act.get("actor", "")
                for ak, av in act.items():
                    if ak in ("action", "actor"):
                        continue
                    out.append((f"{'fire' if ak == 'target' else ak}.{actor}", av))
            continue
        out.append((k, v))
    return out


FIND = """
const want = arguments[0]; if (want.action === 'rest') want.action = 'regroup';
const f = [...document.querySelectorAll('#forms form.action-form')].find(f => f.dataset.action.replace(/_/g, '-') === want.action.replace(/_/g, '-') && Object.entries(JSON.parse(f.dataset.fixed || '{}')).every(([k, v]) => JSON.stringify(want[k]) === JSON.stringify(v)) && ['actor', 'unit', 'attacker'].every(k => { const e = f.querySelector(`select[name="${k}"]`); return typeof want[k] !== 'string' || !e || [...e.options].some(o => o.value === want[k]); }));
return f ? [f.id, JSON.parse(f.dataset.fixed || '{}'), (f.querySelector('select[data-resets]') || {}).name || null] : null;
"""

HOOK = """
window.__act = arguments[0];
if (!window.__hooked) {
  window.__hooked = true; window.__confirms = 0;
  const of = window.fetch.bind(window);
  window.fetch = async (...a) => { const r = await of(...a); if (r.status === 409) { try { const d = await r.clone().json(); window.__q = d.error && d.error.field; } catch (e) {} } return r; };
  window.confirm = () => { window.__confirms += 1; return window.__act[window.__q] === true; };
}
"""

SET = """
const [formId, name, value] = arguments;
const form = document.getElementById(formId);
const el = [...form.querySelectorAll('[name]')].find(e => e.name === name && !e.closest('label[hidden]'));
if (!el) return null;
const want = Array.isArray(value) ? value.map(String) : typeof value === 'boolean' ? value : String(value);
const now = el.type === 'checkbox' ? el.checked : el.multiple ? [...el.selectedOptions].map(o => o.value) : el.value;
if (JSON.stringify(now) === JSON.stringify(want)) return 0;
let n = 0;
for (let d = el.closest('details:not([open])'); d; d = el.closest('details:not([open])')) { d.open = true; n += 1; }
if (el.type === 'checkbox') { el.checked = want; n += 1; }
else if (el.multiple) { [...el.options].forEach(o => { o.selected = want.includes(o.value); }); n += Math.max(1, want.length); }
else { el.value = want; n += 1; }
el.dispatchEvent(new Event('change', { bubbles: true }));
return n;
"""


def main():
    binary, repo = sys.argv[1], pathlib.Path(sys.argv[2])
    rules_list = sys.argv[3:]
    db = "/tmp/oldtaps.db"
    for p in [db, db + "-wal", db + "-shm"]:
        if os.path.exists(p):
            os.remove(p)
    srv = subprocess.Popen([binary, "serve", "--db", db, "--addr", "127.0.0.1:18777"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = srv.stdout.readline()
    key = re.search(r"key=([0-9a-f]+)", line).group(1)
    base = "http://127.0.0.1:18777"
    b = B()
    try:
        for rules in rules_list:
            expect = json.loads((repo / f"examples/{rules}/game.expect.json").read_text())
            scenario = expect["scenario"].removeprefix("scenarios/").removesuffix(".toml")
            files = sorted(p for p in (repo / f"examples/{rules}/game").iterdir() if p.name[0].isdigit() and p.suffix == ".json")
            steps = [(p.stem, json.loads(p.read_text())) for p in files]
            for _, a in steps:
                if a.get("action") == "deal":
                    a["hands"] = "single-device"
            st, g = http("POST", f"{base}/api/games", {"scenario": scenario, "seed": expect["seed"]}, {"authorization": f"Bearer {key}"})
            assert st in (200, 201), g
            gm = g["links"][0]["url"].rsplit("/", 1)[1]
            b.cmd("POST", "/url", {"url": f"{base}/s/{gm}"})
            time.sleep(1.0)
            inter = budget = boxes = confirms = 0
            for i, (name, action) in enumerate(steps):
                budget += len(action)
                st, v = http("GET", f"{base}/api/s/{gm}")
                seq = v["events"]
                found = None
                for _ in range(50):
                    found = b.js(FIND, action)
                    if found:
                        break
                    time.sleep(0.1)
                if not found:
                    nxt = steps[i + 1][1] if i + 1 < len(steps) else None
                    if len(action) == 1 and nxt and b.js("return [...document.querySelectorAll('#forms form.action-form')].some(f => f.dataset.action === arguments[0].action);", nxt):
                        budget -= 1
                        continue
                    raise SystemExit(f"{rules} {name}: no form for {action}")
                fid, fixed, resets = found
                fields = form_fields(action, fixed)
                fields.sort(key=lambda fv: fv[0] != resets)
                for fname, fval in fields:
                    n = b.js(SET, fid, fname, fval)
                    time.sleep(0.05)
                    inter += n or 0
                opened = b.js("const f = document.getElementById(arguments[0]); let n = 0; for (let d = f.closest('details:not([open])'); d; d = f.closest('details:not([open])')) { d.open = true; n += 1; } return n;", fid)
                inter += opened or 0
                # The page's confirm() answered as the action file says, and counted.
                b.js(HOOK, action)
                b.js("const f = document.getElementById(arguments[0]); setTimeout(() => f.querySelector('button[type=submit]').click(), 0);", fid)
                inter += 1
                deadline = time.time() + 60
                done = False
                while time.time() < deadline and not done:
                    st, v = http("GET", f"{base}/api/s/{gm}")
                    if v["events"] > seq:
                        # The result box, when it opens, is dismissed with its OK.
                        for _ in range(20):
                            if b.js("const d = document.getElementById('result-box'); return Boolean(d && d.open);"):
                                b.js("document.querySelector('#result-box button.primary').click();")
                                inter += 1
                                boxes += 1
                                break
                            time.sleep(0.1)
                        done = True
                    else:
                        time.sleep(0.1)
                asked = b.js("const n = window.__confirms; window.__confirms = 0; return n;") or 0
                inter += asked
                confirms += asked
                if not done:
                    raise SystemExit(f"{rules} {name}: not recorded")
                time.sleep(0.3)
            print(f"OLD {rules}: {inter} interactions ({boxes} result boxes dismissed, {confirms} confirm() answered), budget {budget}", flush=True)
    finally:
        b.quit()
        srv.terminate()


main()

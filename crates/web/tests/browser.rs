//! End-to-end in real headless Chromium (Debian's `chromium` and `chromium-driver`), driven over
//! the WebDriver protocol with the crate's tiny HTTP client. Without Chromium these tests say so
//! loudly and pass; with `TERCIO_REQUIRE_BROWSER=1` (set by `.ci/run`) a missing browser fails.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tercio_web::client::request;

const CHROMIUM: &str = "/usr/bin/chromium";
/// How long a test waits for a page to get where it should: long, as a loaded machine (two
/// cores shared with builds) can be slow, and the wait ends as soon as the page is there.
const PATIENCE: Duration = Duration::from_secs(60);
const DRIVER: &str = "/usr/bin/chromedriver";

fn browser_available() -> bool {
    let ok = std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(DRIVER).exists();
    if !ok {
        if std::env::var("TERCIO_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!("Chromium and chromedriver are required ({CHROMIUM}, {DRIVER}): apt-get install chromium chromium-driver");
        }
        eprintln!("\n!!! SKIPPING BROWSER TESTS: {CHROMIUM} or {DRIVER} is missing (apt-get install chromium chromium-driver) !!!\n");
    }
    ok
}

mod common;

use common::{example_game, server, Server};

/// A chromedriver process and one browser session.
struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    /// A test fails on any script error its pages logged (issue 43, item 7), a failed load of a
    /// resource (a refusal the page shows, a connection a test cut) aside.
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let errors: Vec<String> = self
                .script_errors()
                .into_iter()
                .filter(|e| !e.contains("Failed to load resource"))
                .collect();
            if !errors.is_empty() {
                let _ = self.driver.kill();
                panic!("script errors on the page: {errors:?}");
            }
        }
        let _ = request(
            &self.addr,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port")
}

impl Browser {
    /// A browser whose language is English, whatever the machine's (the pages' words are
    /// checked in English).
    fn start(width: u32) -> Browser {
        Browser::start_in(width, "en-US,en")
    }

    /// A browser that asks for pages in `accept_languages` (its `Accept-Language`).
    fn start_in(width: u32, accept_languages: &str) -> Browser {
        Browser::start_sized(width, 800, accept_languages)
    }

    /// A browser whose viewport is `width` x `height`.
    fn start_sized(width: u32, height: u32, accept_languages: &str) -> Browser {
        let port = free_port();
        let driver = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver");
        let addr = format!("127.0.0.1:{port}");
        let t = Instant::now();
        while request(&addr, "GET", "/status", None)
            .map(|r| r.json()["value"]["ready"] != true)
            .unwrap_or(true)
        {
            assert!(t.elapsed() < PATIENCE, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().expect("profile");
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", format!("--user-data-dir={}", profile.path().display()),
                     format!("--window-size={width},1400")],
            // A phone's viewport, not the desktop minimum window width.
            "mobileEmulation": {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0}},
            "prefs": {"intl": {"accept_languages": accept_languages}}
        }, "goog:loggingPrefs": {"browser": "ALL"}}}});
        let r = request(&addr, "POST", "/session", Some(&caps.to_string())).expect("session");
        let session = r.json()["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {}", r.body))
            .to_string();
        Browser {
            driver,
            addr,
            session,
            _profile: profile,
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let b = body.to_string();
        let r = request(
            &self.addr,
            method,
            &format!("/session/{}{path}", self.session),
            if method == "GET" { None } else { Some(&b) },
        )
        .expect("webdriver");
        r.json()["value"].clone()
    }

    fn go(&self, url: &str) {
        self.cmd("POST", "/url", json!({"url": url}));
    }

    fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": []}),
        )
    }

    /// Wait until `script` returns a truthy value.
    fn wait(&self, script: &str, what: &str) -> Value {
        let t = Instant::now();
        loop {
            let v = self.js(script);
            if !(v.is_null() || v == false || v == "" || v.get("error").is_some()) {
                return v;
            }
            if t.elapsed() > PATIENCE {
                panic!(
                    "timed out waiting for {what}: {v}; alert: {:?}; the page's live state: {}",
                    self.alert_text(),
                    self.js("const l = window.TERCIO_LIVE; return l ? JSON.stringify(Object.assign({}, l, { received: l.received.length, source: undefined })) + ' open: ' + [...document.querySelectorAll('#main details[open]')].map(d => d.id || d.className).join(',') + ' forms: ' + [...document.querySelectorAll('#main form.action-form')].map(f => f.id).join(',') : null;")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Open the folded action `f-<action>` (issue 43, item 10: its form is not in the page) as a
    /// tap on its title does, and wait for its form, with what the rules refuse of its choices
    /// drawn. An action drawn open already is left as it is.
    fn open_action(&self, action: &str) {
        self.js(&format!(
            "const d = document.getElementById('act-f-{action}'); if (d && !d.open) d.querySelector('summary').click();"
        ));
        self.wait(
            &format!("const l = window.TERCIO_LIVE; const d = document.getElementById('act-f-{action}'); return (!d || d.dataset.loaded === d.dataset.form) && document.getElementById('form-f-{action}') !== null && !l.busy && l.choicesForms === l.forms;"),
            &format!("the form of {action}"),
        );
    }

    fn alert_text(&self) -> Option<String> {
        let v = self.cmd("GET", "/alert/text", json!(null));
        v.as_str().map(str::to_string)
    }

    fn click(&self, css: &str) {
        let v = self.js(&format!("const e = document.querySelector({css:?}); if (!e) return 'missing'; setTimeout(() => e.click(), 0); return 'ok';"));
        assert_eq!(v, "ok", "click {css}");
    }

    /// Wait until this page's action is recorded and the page shows the game as the server has
    /// it, and read the newest result at the top of the page (issue 43, item 5: no box to
    /// dismiss, no dialog open): its action, steps and outcome, as
    /// "ACTION\n\nSTEPS\nOutcome: OUTCOME".
    fn result(&self) -> String {
        if let Some(a) = self.alert_text() {
            panic!("unexpected alert instead of a result: {a}");
        }
        self.wait(
            "const l = window.TERCIO_LIVE; if (l.recorded > (window.__recorded || 0)) { window.__recorded = l.recorded; return true; } return false;",
            "the action recorded",
        );
        self.caught_up();
        assert_eq!(
            self.js("return document.querySelectorAll('dialog[open]').length;"),
            json!(0),
            "a box to dismiss"
        );
        // The steps read as a tap on them shows them, then closed again as they were.
        let was_open = self
            .js("const d = document.getElementById('last-steps'); return Boolean(d && d.open);");
        self.steps_opened();
        let text = self
            .js(LAST_RESULT)
            .as_str()
            .unwrap_or_default()
            .to_string();
        if was_open == json!(false) {
            self.js("const d = document.getElementById('last-steps'); if (d) d.open = false;");
        }
        text
    }

    /// Confirm the lasting step the page asks about (undo, a new link, the end of the game) in
    /// the page: no browser dialog.
    fn confirm_in_page(&self) {
        assert!(self.alert_text().is_none(), "a browser dialog");
        self.wait(
            "const b = document.querySelector('.confirm-at .confirm-yes'); if (!b) return false; b.click(); return true;",
            "the confirmation in the page",
        );
    }

    /// Wait until the page's view is drawn from as many log entries as the server has.
    /// Open the newest result's steps, one tap away (fetched when opened), and wait for them.
    fn steps_opened(&self) {
        self.wait(
            "const d = document.getElementById('last-steps'); if (!d) return true; if (!d.open) d.querySelector('summary').click(); return Boolean(d.querySelector('pre'));",
            "the newest result's steps",
        );
    }

    fn caught_up(&self) {
        // A step the page takes by itself (`data-auto`) is part of the new state: waited for
        // until none is left to take on the view shown, and the server asked again (not from
        // the browser's cache) until the page shows what it has.
        self.js("window.__srv = undefined; window.__srvMark = undefined; window.__asking = false;");
        self.wait(
            "const l = window.TERCIO_LIVE; const mark = `${l.autos}:${l.recorded}:${l.autoBusy}`;
             if (!window.__asking) { window.__asking = true; const at = mark; fetch(`/api/s/${window.TERCIO_SEAT}`, { cache: 'no-store' }).then(r => r.json()).then(v => { window.__srv = v.events; window.__srvMark = at; l.server = v.events; }).catch(e => { l.server = String(e); }).finally(() => { window.__asking = false; }); }
             const a = document.querySelector('#main form.action-form[data-auto]');
             return window.__srv === l.seq && window.__srvMark === mark && !l.busy && !l.autoBusy && (!a || l.autoSeq === l.seq);",
            "the page to show the new state, its own steps taken",
        );
    }

    /// The page was kept live by patches alone: it never fetched its main part whole, and every
    /// patch fitted.
    fn patched_only(&self) {
        let v = self.js(
            "const l = window.TERCIO_LIVE; return [l.refreshes, l.mismatches, l.error || null];",
        );
        assert_eq!(
            v,
            json!([0, 0, null]),
            "refreshes, patches that did not fit, the error"
        );
    }

    /// The page's console errors and uncaught script errors since the last call.
    fn script_errors(&self) -> Vec<String> {
        let v = self.cmd("POST", "/se/log", json!({"type": "browser"}));
        v.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    fn screenshot(&self, path: &std::path::Path) {
        let v = self.cmd("GET", "/screenshot", json!(null));
        let data = decode_base64(v.as_str().unwrap_or_default());
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        std::fs::write(path, data).expect("write screenshot");
    }
}

fn decode_base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .map(val)
        .collect();
    bytes
        .chunks(4)
        .flat_map(|c| {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &x)| n | (u32::from(x) << (18 - 6 * i)));
            let out = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            out[..c.len().saturating_sub(1)].to_vec()
        })
        .collect()
}

/// The newest result at the top of a seat's page, as [`Browser::result`] reads it.
const LAST_RESULT: &str = "const l = document.getElementById('last'); if (!l) return ''; const what = l.querySelector('.what'); const pre = l.querySelector('pre'); return `${what ? what.textContent : ''}\n\n${pre ? pre.textContent : ''}\nOutcome: ${l.querySelector('.outcome').textContent}`;";

/// Set a field of one of the page's forms (its id: `f-<action>-<field>`), as a user would.
/// A field set by its id; of two fields of one name (the game master's list of targets per
/// side), the one shown for what acts.
const SET: &str = "const set = (id, v) => { let e = document.getElementById(id); if (e.closest('label[hidden]')) e = [...e.form.elements].find(x => x.name === e.name && !x.closest('label[hidden]')) || e; if (e.type === 'checkbox') e.checked = v; else e.value = v; e.dispatchEvent(new Event('change', { bubbles: true })); };";

/// A unit's row in the board's tables, by the unit's name (its first cell).
const ROW: &str = "const row = name => [...document.querySelectorAll('#board tr')].find(r => r.cells[0] && r.cells[0].textContent === name);";

/// The submit button of the form of `action`.
fn submit(action: &str) -> String {
    format!("#form-f-{action} button[type=submit]")
}

/// What the rules would refuse of each choice of the list `list` (what acts), as the page draws
/// it once `/choices` has answered for the version on screen (issue 14: neither the page nor its
/// live patches carry it): checked against the server's answer, and returned (value → `why`,
/// `later`). The legal choices come first, plain; each refused one after them, marked, with its
/// reason after its name; one whose turn will come hidden; a list left untouched starts at its
/// first choice.
fn choices_drawn(s: &Server, b: &Browser, list: &str, untouched: bool) -> Value {
    let token = b.js("return window.TERCIO_SEAT;");
    let r = s.request(
        "GET",
        &format!("/api/s/{}/choices", token.as_str().expect("token")),
        &[],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    // The page at the game's version, and what it drew for that version.
    b.wait(
        &format!(
            "const l = window.TERCIO_LIVE; return l.seq === {0} && l.choices === {0} && l.choicesForms === l.forms && !l.busy && document.getElementById({1:?}) !== null;",
            v["seq"], list
        ),
        "the choices drawn",
    );
    let marks = v["choices"][list].clone();
    let options = b.js(&format!(
        "return [...document.getElementById('{list}').options].map(o => [o.value, o.textContent, o.classList.contains('refused'), o.hidden, o.selected]);"
    ));
    let options = options.as_array().expect("options");
    assert!(!options.is_empty(), "{list}: no choice");
    let rank = |o: &Value| {
        let m = &marks[o[0].as_str().unwrap_or_default()];
        match (m.is_null(), m["later"] == json!(true)) {
            (true, _) => 0,
            (false, false) => 1,
            (false, true) => 2,
        }
    };
    assert!(
        options.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])),
        "{list}: not the legal first: {options:?} {marks}"
    );
    for o in options {
        let m = &marks[o[0].as_str().unwrap_or_default()];
        let text = o[1].as_str().unwrap_or_default();
        if m.is_null() {
            assert!(
                o[2] == json!(false) && o[3] == json!(false) && !text.contains(" — "),
                "{o}"
            );
        } else if m["later"] == json!(true) {
            // Hidden until its turn comes: its reason is not sent to the page (`brief`).
            assert!(o[2] == json!(true) && o[3] == json!(true), "{o}: {m}");
        } else {
            let why = m["why"].as_str().expect("why");
            assert!(
                o[2] == json!(true) && o[3] == json!(false) && text.ends_with(&format!(" — {why}")),
                "{o}: {m}"
            );
        }
    }
    if untouched {
        assert_eq!(
            options[0][4],
            json!(true),
            "{list}: starts elsewhere: {options:?}"
        );
    }
    marks
}

#[test]
fn charge_questions_result_status_and_undo_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let b = Browser::start(1000);
    // The host opens the address `tercio serve` prints, and creates an El Gran Capitán game from
    // a shipped scenario on the home page.
    b.go(&format!("http://{}/?key={}", s.addr, s.key));
    b.wait(
        "return document.querySelector('select[name=scenario]')",
        "the home page",
    );
    b.js("document.querySelector('select[name=scenario]').value = 'el-gran-capitan/cerignola-1503'; document.querySelector('form[action=\"/games\"]').submit();");
    b.wait(
        "return location.pathname.startsWith('/s/') && document.getElementById('form-f-initiative')",
        "the game page",
    );
    // Initiative, then the army commander of the side that has it takes the command; the odds
    // of both show before anyone rolls (issue 17, item 9).
    b.wait(
        "const o = document.querySelector('#form-f-initiative .odds'); return o && o.textContent.includes('Exact odds') && o.textContent.includes('%') && o.textContent;",
        "the initiative's odds",
    );
    b.click(&submit("initiative"));
    let text = b.result();
    assert!(text.contains("has the initiative"), "{text}");
    let side_is_french = text.contains("Outcome: French");
    let commander = if side_is_french { "nemours" } else { "gonzalo" };
    b.js(&format!("{SET} set('f-command-leader', '{commander}');"));
    b.wait(
        "const o = document.querySelector('#form-f-command .odds'); return o && o.textContent.includes('activations') && o.textContent;",
        "the command's odds",
    );
    b.click(&submit("command"));
    let text = b.result();
    assert!(text.contains("activation"), "{text}");
    // The other side's units are not under this command: their turn will come, so they are not
    // offered while the commander's may charge.
    b.open_action("charge");
    let marks = choices_drawn(&s, &b, "f-charge-actor", true);
    assert!(
        marks
            .as_object()
            .is_some_and(|m| m.values().any(|x| x["later"] == json!(true))),
        "{marks}"
    );
    // Gendarmes charge missile troops: the rules ask whether the charge crosses their arc of fire.
    let ((actor, actor_name), (target, target_name)) = if side_is_french {
        (
            ("nemours-company", "Nemours's own company of gendarmes"),
            (
                "spanish-arquebusiers-centre",
                "Arquebusiers lining the works before the Germans",
            ),
        )
    } else {
        (
            ("colonna-men-at-arms", "Italian men-at-arms of the Colonna"),
            ("gascon-crossbowmen", "Gascon crossbowmen"),
        )
    };
    b.js(&format!(
        "{SET} set('f-charge-actor', '{actor}'); set('f-charge-target', '{target}'); set('f-charge-ground', 'open');"
    ));
    b.wait("const o = document.querySelector('#form-f-charge .odds').textContent; return o.includes('Assuming OK to') && o.includes('Exact odds') && o;", "the question announced beside the charge");
    // No Ferocious Charge box in the command phase (issue 43: the rules refuse it there, and
    // the end of the turn's charge says it itself): the form asks nothing the game knows.
    assert_eq!(
        b.js("return document.getElementById('f-charge-ferocious') === null && !('ferocious' in JSON.parse(document.getElementById('form-f-charge').dataset.fixed || '{}'));"),
        json!(true)
    );
    b.js(&format!(
        "{SET} set('f-charge-target', '{target}'); set('f-charge-ground', 'open');"
    ));
    // The rules' question is asked in the form, at its button (issue 43, item 4): "Cancel"
    // cancels, and nothing is recorded or rolled.
    b.click(&submit("charge"));
    let question = b.wait(
        "const q = document.querySelector('#form-f-charge .ask'); return q && q.querySelector('.ask-q').textContent;",
        "the question in the form",
    );
    assert!(
        question.as_str().is_some_and(|q| q.contains("arc of fire")),
        "{question}"
    );
    assert!(b.alert_text().is_none(), "the question in a browser dialog");
    b.js("document.querySelector('#form-f-charge .ask-cancel').click();");
    b.wait(
        "return !document.querySelector('#form-f-charge .ask');",
        "the question gone",
    );
    assert_eq!(
        b.js("return document.querySelectorAll('#log li[data-seq]').length;"),
        json!(2),
        "a cancelled question recorded something"
    );
    b.click(&submit("charge"));
    b.wait(
        "const y = document.querySelector('#form-f-charge .ask-yes'); if (!y) return false; y.click(); return true;",
        "the question again, answered yes",
    );
    let text = b.result();
    // The result and its undo, in the header, together (issue 17, item 4).
    assert_eq!(
        b.js("return document.getElementById('undo').checkVisibility();"),
        json!(true)
    );
    assert!(text.contains("Defensive fire"), "{text}");
    // The charger has acted: the live patch of its list left it as it was, and the page drew
    // its refusal again from `/choices` (the charge, closed once it was recorded, opened again).
    b.open_action("charge");
    let marks = choices_drawn(&s, &b, "f-charge-actor", false);
    let listed = b.js(&format!(
        "return [...document.getElementById('f-charge-actor').options].some(o => o.value === '{actor}');"
    ));
    assert!(
        listed == json!(false) || !marks[actor].is_null(),
        "{actor}: {marks}"
    );
    // The state panel shows the change: the charger has acted, and someone is no longer OK.
    let rows = b.js(&format!(
        "{ROW} return [row(\"{actor_name}\").textContent, row(\"{actor_name}\").cells[2].textContent, row(\"{target_name}\").cells[2].textContent];"
    ));
    assert!(
        rows[0]
            .as_str()
            .is_some_and(|x| x.contains("acted") || x.contains("destroyed")),
        "{rows}"
    );
    assert!(
        rows[1] != "OK" || rows[2] != "OK",
        "no status changed: {rows}"
    );
    b.screenshot(
        &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/screenshots/game-page.png"),
    );
    if std::env::var("TERCIO_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        b.screenshot(
            &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../docs/screenshots/game-page.png"),
        );
    }
    // Undo: the charge is voided and struck through in the log; the unit may act again.
    b.click("#undo");
    b.confirm_in_page();
    b.wait(
        "return document.querySelector('.log li.voided')",
        "a voided log entry",
    );
    let acted = b.js(&format!(
        "{ROW} return row(\"{actor_name}\").textContent.includes('acted');"
    ));
    assert_eq!(acted, false);
    assert!(b.alert_text().is_none());
    b.patched_only();
}

#[test]
fn phone_width_and_inert_names_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let evil = "<script>alert(1)</script>";
    let toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/el-gran-capitan/cerignola-1503.toml"
    ))
    .expect("read")
    .replace(
        "name = { en = \"Swiss pikes (first block)\", it = \"Picche svizzere (primo quadrato)\" }",
        &format!("name = \"{evil}\""),
    );
    assert!(toml.contains(evil));
    let links = s.links(&toml);
    let b = Browser::start(360);
    b.go(&format!("http://{}/s/{}", s.addr, links[0]));
    b.wait(
        "return document.readyState === 'complete' && document.getElementById('board')",
        "the game page",
    );
    assert!(b.alert_text().is_none(), "a name ran as script");
    let shown = b.js(&format!(
        "return [...document.querySelectorAll('#board tr')].find(r => r.cells[0] && r.cells[0].textContent.includes({evil:?})).cells[0].textContent;"
    ));
    assert!(shown.as_str().is_some_and(|t| t.contains(evil)), "{shown}");
    let width = b.js("return [document.documentElement.scrollWidth, window.innerWidth, Math.max(...[...document.querySelectorAll('main *')].map(e => e.getBoundingClientRect().right))];");
    assert_eq!(width[1], 360, "the viewport is a phone's: {width}");
    assert!(
        width[0].as_u64().is_some_and(|w| w <= 360),
        "the page scrolls sideways at 360 px: {width}"
    );
    assert!(
        width[2].as_f64().is_some_and(|r| r <= 360.5),
        "something sticks out past 360 px: {width}"
    );
    // No word of the armies' tables is broken across two lines (issue 17, item 15).
    let broken = b.js(
        "const out = []; const w = document.createTreeWalker(document.getElementById('board'), NodeFilter.SHOW_TEXT);
         for (let n = w.nextNode(); n; n = w.nextNode()) {
           for (const m of n.textContent.matchAll(/\\S+/g)) {
             const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
             const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
             if (lines.size > 1) out.push(m[0]);
           }
         }
         return out;",
    );
    assert_eq!(broken, json!([]), "words broken at 360 px");
    assert!(
        b.js("return document.querySelectorAll('#board td').length;")
            .as_u64()
            .is_some_and(|n| n > 20),
        "the armies' tables"
    );
    // (Opened: other actions are tiles until tapped.)
    b.open_action("charge");
    let button = b.js(&format!(
        "const r = document.querySelector('{}').getBoundingClientRect(); return [r.width, r.height];",
        submit("charge")
    ));
    assert!(
        button[0].as_f64().unwrap_or(0.0) >= 280.0 && button[1].as_f64().unwrap_or(0.0) >= 44.0,
        "the charge's button too small: {button}"
    );
}

/// A TCP relay in front of the server that can cut every connection through it and refuse new
/// ones, then let them through again: a player's line going down and coming back.
struct Relay {
    addr: String,
    cut: Arc<std::sync::atomic::AtomicBool>,
    open: Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Relay {
    fn start(target: &str) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("relay");
        let addr = listener.local_addr().expect("addr").to_string();
        let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let open: Arc<std::sync::Mutex<Vec<std::net::TcpStream>>> = Arc::default();
        let (c, o, target) = (cut.clone(), open.clone(), target.to_string());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if c.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = std::net::TcpStream::connect(&target) else {
                    continue;
                };
                let pipes = [
                    (client.try_clone(), server.try_clone()),
                    (server.try_clone(), client.try_clone()),
                ];
                if let Ok(mut list) = o.lock() {
                    list.extend(client.try_clone());
                    list.extend(server.try_clone());
                }
                for (from, to) in pipes {
                    if let (Ok(mut from), Ok(mut to)) = (from, to) {
                        std::thread::spawn(move || {
                            let _ = std::io::copy(&mut from, &mut to);
                            let _ = to.shutdown(std::net::Shutdown::Both);
                        });
                    }
                }
            }
        });
        Relay { addr, cut, open }
    }

    fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Ok(mut list) = self.open.lock() {
            for s in list.drain(..) {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    fn restore(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The log entries a page shows, newest first.
const LOG_SEQS: &str =
    "return [...document.querySelectorAll('#log li[data-seq]')].map(li => Number(li.dataset.seq));";

#[test]
fn live_updates_reach_another_seat_and_catch_up_after_a_cut_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let relay = Relay::start(&s.addr);
    // Two browsers, each with its own profile: the game master's, and a side's behind a line
    // that will go down.
    let gm = Browser::start(1000);
    let side = Browser::start(400);
    gm.go(&format!("http://{}/s/{}", s.addr, links[0]));
    side.go(&format!("http://{}/s/{}", relay.addr, links[1]));
    for b in [&gm, &side] {
        b.wait(
            "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
            "the live connection",
        );
    }
    // The side's page has no controls: it watches.
    assert_eq!(side.js("return !document.querySelector('form.action-form') && !document.getElementById('undo') && !document.getElementById('seats');"), true);
    // The game master's page shows the players' links with their QR codes, drawn once the
    // Links tab is open (fetched then, not sent with the page); not a code for the game
    // master's own link, which a player could scan off the screen.
    gm.js("document.querySelector('#tabs [data-tab=\"links\"]').click();");
    gm.wait(
        &format!("return [...document.querySelectorAll('#seats .link .qr img')].filter(i => i.complete && i.naturalWidth > 100).length === {};", links.len() - 1),
        "the links' codes drawn",
    );
    assert_eq!(
        gm.js("const own = document.querySelector('#seats .link[data-role=\"game-master\"]'); return [own.querySelector('img, svg') === null, own.querySelector('input').value.endsWith(window.TERCIO_SEAT)];"),
        json!([true, true])
    );
    gm.js("document.querySelector('#tabs [data-tab=\"play\"]').click();");
    // An action by the game master appears on the side's page without reloading.
    side.js("window.__same_page = true;");
    let t = Instant::now();
    gm.click(&submit("initiative"));
    side.wait(
        "return document.querySelector('#log li[data-seq=\"1\"]');",
        "the initiative on the side's page",
    );
    eprintln!(
        "live: the game master's action was on the other seat's page {:?} after the click",
        t.elapsed()
    );
    gm.result();
    assert_eq!(
        side.js("return window.__same_page === true;"),
        true,
        "the side's page did not reload"
    );
    // The line goes down: the side's page says so.
    relay.cut();
    side.wait("return window.TERCIO_LIVE.state === 'lost' && document.getElementById('live').textContent.includes('lost');", "the page to say the connection is lost");
    // Meanwhile the game master acts twice.
    let initiative_side = gm.js("return document.getElementById('turn').textContent;");
    let commander = if initiative_side
        .as_str()
        .is_some_and(|t| t.contains("French"))
    {
        "nemours"
    } else {
        "gonzalo"
    };
    gm.js(&format!("{SET} set('f-command-leader', '{commander}');"));
    gm.click(&submit("command"));
    gm.result();
    gm.click("#undo");
    gm.confirm_in_page();
    gm.caught_up();
    let want = gm.js(LOG_SEQS);
    assert_eq!(want, json!([3, 2, 1]));
    assert_eq!(
        side.js(LOG_SEQS),
        json!([1]),
        "nothing reached the side while cut"
    );
    // The line comes back: the side catches up exactly, by itself.
    relay.restore();
    side.wait(
        "return window.TERCIO_LIVE.state === 'live';",
        "the page to reconnect",
    );
    side.caught_up();
    assert_eq!(side.js(LOG_SEQS), want, "the same entries, once each");
    assert_eq!(
        side.js("return window.TERCIO_LIVE.received;"),
        json!([1, 2, 3]),
        "each entry delivered once, none missed"
    );
    assert_eq!(side.js("return window.__same_page === true;"), true);
    assert_eq!(
        side.js("return document.querySelector('#log li.voided[data-seq=\"2\"]') !== null;"),
        true
    );
    // Neither page fetched its main part: the side's caught up through its stream (the page it
    // had was sent whole once, as the first patch), the game master's took its own actions from
    // its stream too.
    assert_eq!(side.js("return window.TERCIO_LIVE.refreshes;"), json!(0));
    assert_eq!(gm.js("return window.TERCIO_LIVE.refreshes;"), json!(0));
}

/// The status of a unit in the armies' tables, the log entries, and how the page has been kept
/// live (patches carried out, fetches of the whole main part).
const SEEN: &str = "const r = [...document.querySelectorAll('#board tr')].find(r => r.cells[0] && r.cells[0].textContent === 'Spanish pikes of the left wing'); return [r && r.cells[2].textContent, [...document.querySelectorAll('#log li[data-seq]')].map(li => Number(li.dataset.seq)), window.TERCIO_LIVE.refreshes];";

#[test]
fn an_action_is_patched_into_another_seats_open_page_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    // The example turn of El Gran Capitán at Cerignola (seed 5): the French have the initiative,
    // Chandieu commands and joins the first block of Swiss pikes.
    let v = s.create(&json!({"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}));
    let links: Vec<String> = v["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| common::token(&l["url"]))
        .collect();
    for a in [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"}),
    ] {
        let r = request(
            &s.addr,
            "POST",
            &format!("/api/s/{}/actions", links[0]),
            Some(&a.to_string()),
        )
        .expect("act");
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // The game master at a desktop's width; the Spanish player on a phone.
    let gm = Browser::start(1000);
    let side = Browser::start_sized(360, 740, "en-US,en");
    gm.go(&format!("http://{}/s/{}", s.addr, links[0]));
    side.go(&format!("http://{}/s/{}", s.addr, links[1]));
    for b in [&gm, &side] {
        b.wait(
            "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
            "the live connection",
        );
        b.js("window.__same_page = true;");
    }
    assert_eq!(side.js(SEEN), json!(["OK", [3, 2, 1], 0]));
    // The game master charges the Spanish pikes with the Swiss, through the page's form.
    // The game master has already chosen the unit to advance next: the second block of Swiss.
    gm.open_action("advance");
    gm.js(&format!(
        "{SET} set('f-advance-actor', 'swiss-second-block');"
    ));
    gm.open_action("charge");
    gm.js(&format!(
        "{SET} set('f-charge-actor', 'swiss-first-block'); set('f-charge-target', 'spanish-pike-left'); set('f-charge-ground', 'obstacle');"
    ));
    gm.click(&submit("charge"));
    // The side's page shows it: the new log entry, the pikes disordered; nothing fetched whole.
    side.wait(
        &format!("{ROW} const st = row('Spanish pikes of the left wing').cells[2]; const li = document.querySelector('#log li[data-seq=\"4\"]'); return li && st.textContent === 'Disordered';"),
        "the charge on the side's page",
    );
    // Each where its tab shows it, inside the phone's width.
    let seen = |tab: &str, what: &str| {
        side.js(&format!(
            "document.querySelector('#tabs [data-tab=\"{tab}\"]').click(); {ROW} const e = {what}; return e.checkVisibility() && e.getBoundingClientRect().right <= 360.5 && document.documentElement.scrollWidth <= 360;"
        ))
    };
    assert_eq!(
        seen("armies", "row('Spanish pikes of the left wing')"),
        json!(true)
    );
    assert_eq!(
        seen("log", "document.querySelector('#log li[data-seq=\"4\"]')"),
        json!(true)
    );
    side.js("document.querySelector('#tabs [data-tab=\"play\"]').click();");
    let text = gm.result();
    assert!(text.contains("Disordered"), "{text}");
    // One renderer of a result, the server's (issue 43, item 5): every page shows the same
    // text, dice, modifiers and all.
    assert!(
        text.contains("Leader with unit (+1)") && text.contains("Actor die: 1 die → "),
        "{text}"
    );
    // The side sees the result itself, not only its line in the log (issue 17, item 8), with
    // no box to dismiss.
    side.wait(
        "return document.getElementById('last') && document.getElementById('last').dataset.seq === '4';",
        "the charge's result on the side's page",
    );
    side.steps_opened();
    let shown = side.js(LAST_RESULT);
    assert_eq!(shown, json!(text));
    assert_eq!(
        side.js("return document.querySelectorAll('dialog[open]').length;"),
        json!(0)
    );
    assert_eq!(
        side.js(SEEN),
        json!(["Disordered", [4, 3, 2, 1], 0]),
        "{}",
        side.js(
            "const l = window.TERCIO_LIVE; return [l.mismatches, l.error, l.patches, l.state];"
        )
    );
    assert_eq!(
        gm.js(SEEN),
        json!(["Disordered", [4, 3, 2, 1], 0]),
        "the acting page took the change from its stream: {}",
        gm.js("const l = window.TERCIO_LIVE; return [l.mismatches, l.error, l.patches, l.state];")
    );
    // The first block has acted: it goes to the end of the lists, and the unit chosen to advance
    // next stays chosen, though the lists were drawn again and reordered (its form fetched
    // again when it is opened again).
    gm.open_action("advance");
    let marks = choices_drawn(&s, &gm, "f-advance-actor", false);
    assert_eq!(marks["swiss-first-block"]["later"], true, "{marks}");
    assert!(marks["swiss-second-block"].is_null(), "{marks}");
    assert_eq!(
        gm.js("return document.getElementById('f-advance-actor').value;"),
        "swiss-second-block"
    );
    // The charger's status and the turn's banner on the game master's page, patched too; its
    // action form keeps working: the odds of the next action show.
    assert_eq!(
        gm.js(&format!(
            "{ROW} return row('Swiss pikes (first block)').cells[2].textContent;"
        )),
        "Disordered"
    );
    gm.js(&format!(
        "document.querySelector('#form-f-advance .odds').textContent = ''; {SET} set('f-advance-actor', 'swiss-second-block');"
    ));
    // A certain outcome is shown too (issue 17, item 9): the advance's distance, at 100%.
    gm.wait(
        "const o = document.querySelector('#form-f-advance .odds').textContent; return o.includes('Exact odds') && o.includes('100.0%');",
        "the odds of the next action",
    );
    // The undo, the same way.
    gm.click("#undo");
    gm.confirm_in_page();
    side.wait(
        &format!("{ROW} const li = document.querySelector('#log li[data-seq=\"5\"]'); return li && document.querySelector('#log li.voided[data-seq=\"4\"]') && row('Spanish pikes of the left wing').cells[2].textContent === 'OK';"),
        "the undo on the side's page",
    );
    gm.caught_up();
    // The unit the game master chose for the advance stays chosen while the lists are drawn
    // again and reordered (the charger is back among those that may act).
    let marks = choices_drawn(&s, &gm, "f-advance-actor", false);
    assert!(marks["swiss-second-block"].is_null(), "{marks}");
    assert_eq!(
        gm.js("const l = document.getElementById('f-advance-actor'); return [l.value, l.options[0].value !== 'swiss-second-block'];"),
        json!(["swiss-second-block", true])
    );
    for (who, b) in [("side", &side), ("game master", &gm)] {
        assert_eq!(b.js(SEEN), json!(["OK", [5, 4, 3, 2, 1], 0]), "{who}");
        assert_eq!(b.js("return window.__same_page === true && window.TERCIO_LIVE.patches >= 2 && window.TERCIO_LIVE.mismatches === 0;"), true, "{who}");
    }
    // The initiatives end: the turn's end brings its forms, more than one live message carries
    // (issue 14: at most 4 KB). The message names the parts of the page they are; the game
    // master's page fetches them for the version the patch makes and is patched, not reloaded.
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{}/actions", links[0]),
        Some(&json!({"action": "end-initiatives"}).to_string()),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    gm.wait(
        "const l = window.TERCIO_LIVE; return l.seq === 6 && !l.busy && l.parts >= 1 && document.getElementById('form-f-end-fire') !== null;",
        "the turn's end, its parts fetched",
    );
    side.wait(
        "const l = window.TERCIO_LIVE; return l.seq === 6 && !l.busy;",
        "the turn's end on the side's page",
    );
    for (who, b) in [("side", &side), ("game master", &gm)] {
        assert_eq!(
            b.js("const l = window.TERCIO_LIVE; return [window.__same_page === true, l.mismatches, l.error || null];"),
            json!([true, 0, null]),
            "{who}"
        );
    }
    assert!(gm.alert_text().is_none() && side.alert_text().is_none());
}

#[test]
fn a_side_resolves_its_own_units_and_table_dice_are_typed_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let gm = Browser::start(1000);
    let side = Browser::start(400);
    gm.go(&format!("http://{}/s/{}", s.addr, links[0]));
    // links[1] is the first side of the scenario: the Spanish.
    side.go(&format!("http://{}/s/{}", s.addr, links[1]));
    for b in [&gm, &side] {
        b.wait(
            "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
            "the live connection",
        );
    }
    assert_eq!(
        side.js("return document.querySelector('form.action-form') === null;"),
        true,
        "watch only at first"
    );
    // The game master lets the sides resolve their own units: the side's page grows an action
    // form, live, listing only its own units.
    gm.js("const e = document.getElementById('side-rights'); e.value = 'own-units'; e.dispatchEvent(new Event('change'));");
    side.wait(
        "return document.getElementById('act-f-charge');",
        "the action form on the side's page",
    );
    side.open_action("charge");
    let sides = side
        .js("return [...document.querySelectorAll('#f-charge-actor option')].map(o => o.value);");
    let spanish_units: Vec<String> = sides
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    assert!(!spanish_units.is_empty());
    let unit_sides = side.js(&format!("{ROW} return [...new Set([...document.querySelectorAll('#f-charge-actor option')].map(o => row(o.textContent).closest('.scroll').previousElementSibling.textContent))];"));
    assert_eq!(unit_sides.as_array().map(Vec::len), Some(1), "{unit_sides}");
    assert!(
        unit_sides[0]
            .as_str()
            .is_some_and(|t| t.contains("Spanish")),
        "{unit_sides}"
    );
    // Dice thrown at the table: the game master switches them on, and the initiative asks for
    // the two dice, which the result then shows.
    gm.js("const e = document.getElementById('physical-dice'); e.checked = true; e.dispatchEvent(new Event('change'));");
    gm.wait(
        "return document.getElementById('physical');",
        "the table-dice mode",
    );
    gm.click(&submit("initiative"));
    gm.wait("const d = document.getElementById('dice-box'); return !d.hidden && document.querySelectorAll('dialog').length === 0 && document.querySelectorAll('#dice-inputs input').length === 2;", "the dice to type in");
    phone_screenshot(&gm, "table-dice.png");
    gm.js("const i = document.querySelectorAll('#dice-inputs input'); i[0].value = '2'; i[1].value = '6'; document.getElementById('dice-ok').click();");
    let text = gm.result();
    // One line per die's owner, its faces after the arrow (issue 17, item 14).
    assert!(
        text.lines().any(|l| l.trim().ends_with(": 1 die → 2"))
            && text.lines().any(|l| l.trim().ends_with(": 1 die → 6")),
        "{text}"
    );
    assert!(
        text.contains("Spanish army"),
        "the die of 6 was the Spanish: {text}"
    );
    side.wait("return document.querySelector('#log li[data-seq=\"1\"]') && document.querySelector('#log li[data-seq=\"1\"]').textContent.includes('thrown at the table');", "the entered dice marked on the side's page");
    // The game master starts the command and is asked for its die; meanwhile the side acts. The
    // game master's page redraws, but the command was decided on the old view: it is refused as
    // stale, nothing is recorded, and the page says so.
    gm.js(&format!("{SET} set('f-command-leader', 'gonzalo');"));
    gm.click(&submit("command"));
    gm.wait("const d = document.getElementById('dice-box'); return !d.hidden && document.querySelectorAll('dialog').length === 0 && document.querySelectorAll('#dice-inputs input').length === 1;", "the command die to type in");
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{}/actions", links[1]),
        Some(
            &json!({"action": "attach", "leader": "pedro-navarro", "unit": "spanish-pike-left"})
                .to_string(),
        ),
    )
    .expect("side acts");
    assert_eq!(r.status, 200, "{}", r.body);
    gm.wait(
        "return window.TERCIO_LIVE.seq === 2;",
        "the game master's page to redraw",
    );
    // (The side's attach, which rolled no die, showed on the game master's page as a line at
    // its foot; the stale notice takes its place.)
    gm.js("document.querySelector('#dice-inputs input').value = '4'; document.getElementById('dice-ok').click();");
    let notice = gm.wait(
        "const n = document.getElementById('notice'); return !n.hidden && n.textContent.includes('moved on') && n.textContent;",
        "the stale notice",
    );
    assert!(
        notice.as_str().is_some_and(|n| n.contains("moved on")),
        "{notice}"
    );
    let events = request(&s.addr, "GET", &format!("/api/s/{}", links[0]), None)
        .expect("view")
        .json()["events"]
        .clone();
    assert_eq!(events, 2, "the stale command was not recorded");
    gm.patched_only();
    side.patched_only();
}

const HEADLINE: &str = "return document.getElementById('headline').textContent;";

#[test]
fn a_described_board_and_its_forms_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links(&common::tsatf_skirmish("Gendarmes"));
    let b = Browser::start(1000);
    b.go(&format!("http://{}/s/{}", s.addr, links[0]));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    b.js("window.__same_page = true;");
    // Starting the turn and drawing its first card leave the table nothing to tell: the page
    // takes both by itself (issue 43), logged as any other action.
    b.caught_up();
    assert_eq!(b.js("return window.TERCIO_LIVE.autos;"), json!(2));
    let log = request(
        &s.addr,
        "GET",
        &format!("/api/s/{}/log?after=0&lang=en", links[0]),
        None,
    )
    .expect("log")
    .json();
    let taken: Vec<&Value> = log["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| &e["event"]["action"]["action"])
        .collect();
    assert_eq!(taken, [&json!("start-turn"), &json!("draw")], "{log}");
    let started = b.js(HEADLINE);
    // Undone, the draw is back as the turn's next step and the page does not take it again:
    // the undo would have nothing to do. Tapped, it draws, the card a line at the foot of the
    // page (issue 17, item 5): no box to dismiss.
    b.click("#undo");
    b.confirm_in_page();
    b.wait(
        "const f = document.querySelector('form.action-form.primary'); return f && f.dataset.action === 'draw' && !f.hasAttribute('data-auto');",
        "the undone draw offered again, for a tap",
    );
    b.caught_up();
    assert_eq!(b.js("return window.TERCIO_LIVE.autos;"), json!(2));
    let first = b.js(HEADLINE);
    b.click("form.action-form[data-action=\"draw\"] button[type=submit]");
    let line = b.result();
    assert!(line.contains("Outcome: "), "{line}");
    // Nothing rolled: the line alone, no dice and no steps.
    assert_eq!(
        b.js("return [document.querySelectorAll('#last .die').length, document.querySelectorAll('#last details').length];"),
        json!([0, 0])
    );
    let drawn = b.js(HEADLINE);
    assert_ne!(drawn, first, "the headline did not change after the draw");
    assert_ne!(started, first, "the headline did not change after the undo");
    assert_eq!(b.js("return window.__same_page === true;"), true);
    // Choose a unit in a form with odds: the exact odds appear in that form.
    let chosen = b.js(
        "const f = [...document.querySelectorAll('form.action-form[data-odds=\"1\"]')].find(f => f.querySelector('select[name=unit]'));
         if (!f) return null;
         const sel = f.querySelector('select[name=unit]');
         f.querySelector('.odds').textContent = '';
         sel.value = sel.options[sel.options.length - 1].value;
         sel.dispatchEvent(new Event('change', { bubbles: true }));
         return [f.id, sel.value];",
    );
    let form_id = chosen[0]
        .as_str()
        .unwrap_or_else(|| panic!("no form with odds and a unit: {chosen}"))
        .to_string();
    let odds = b.wait(
        &format!("const o = document.querySelector('#{form_id} .odds').textContent; return o.includes('Exact odds') && o;"),
        "the exact odds in the form",
    );
    assert!(odds.as_str().is_some_and(|o| o.contains('%')), "{odds}");
    assert!(b.alert_text().is_none());
    b.patched_only();
}

#[test]
fn one_device_for_two_players_hides_the_hand_behind_a_tap_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("commands-colors-ecw/tibbermore-1644");
    let gm = &links[0];
    // The game master deals for one shared device.
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{gm}/actions"),
        Some(&json!({"action": "deal", "hands": "single-device"}).to_string()),
    )
    .expect("deal");
    assert_eq!(r.status, 200, "{}", r.body);
    let b = Browser::start(420);
    b.go(&format!("http://{}/s/{gm}", s.addr));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    b.caught_up();
    // Hidden: a closed details whose prompt names the side to play; the play form inside it is
    // not rendered until tapped.
    let hidden = b.js(
        "const d = document.querySelector('details.reveal');
         const f = document.querySelector('form[data-action=\"play\"]');
         return d && [d.open, d.querySelector('summary').textContent, !!(f && d.contains(f)), f ? f.checkVisibility() : 'no form'];",
    );
    assert_eq!(hidden[0], false, "{hidden}");
    assert!(
        hidden[1]
            .as_str()
            .is_some_and(|t| t.contains("Montrose") && t.contains("tap to reveal")),
        "{hidden}"
    );
    assert_eq!(
        hidden[2], true,
        "the play form is inside the reveal: {hidden}"
    );
    assert_eq!(
        hidden[3], false,
        "the play form is not drawn before the tap: {hidden}"
    );
    // Tap: the hand and the form show.
    b.click("details.reveal > summary");
    b.wait(
        "const f = document.querySelector('form[data-action=\"play\"]'); return f && f.checkVisibility();",
        "the hand after the tap",
    );
    // Play the first card the form offers; after the result the hand is hidden again.
    // (Evade is never offered on one's own turn; Hazzard a Chaunce would ask present or order.)
    let offered = b.js(
        "const sel = document.querySelector('form[data-action=\"play\"] select[name=card]');
         const opts = [...sel.options].map(o => o.value);
         const pick = opts.find(v => v !== 'hazzard-a-chaunce');
         sel.value = pick;
         return [opts.includes('evade'), pick];",
    );
    assert_eq!(offered[0], false, "{offered}");
    b.click("form[data-action=\"play\"] button[type=submit]");
    let result = b.result();
    assert!(result.contains("play"), "{result}");
    let again = b
        .js("const d = document.querySelector('details.reveal'); return d ? d.open : 'no reveal';");
    assert_eq!(again, false, "the hand hides again after a card is played");
    // "Hide" closes it too.
    b.click("details.reveal > summary");
    b.wait(
        "return document.querySelector('details.reveal').open;",
        "the reveal open",
    );
    b.click("details.reveal button.hide-reveal");
    b.wait(
        "return !document.querySelector('details.reveal').open;",
        "the reveal closed by Hide",
    );
    assert!(b.alert_text().is_none());
    b.patched_only();
}

#[test]
fn the_language_follows_the_browser_and_the_switch_is_remembered_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let b = Browser::start_in(1000, "it-IT,it");
    let base = format!("http://{}", s.addr);
    // An Italian browser gets the game page in Italian, its script's words too.
    b.go(&format!("{base}/s/{}", links[0]));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    assert_eq!(b.js("return document.documentElement.lang;"), "it");
    assert_eq!(
        b.js("return document.getElementById('live').textContent;"),
        "● in diretta"
    );
    b.open_action("charge");
    let odds = b.wait(
        "return document.querySelector('#form-f-charge .odds').textContent;",
        "the odds box",
    );
    assert!(
        odds.as_str()
            .is_some_and(|o| o.contains("Probabilità esatte") || o.starts_with("Scegli ")),
        "{odds}"
    );
    // The switch: the same page in English, and the choice is remembered.
    b.click("a.lang-switch[data-lang='en']");
    b.wait(
        "return document.documentElement.lang === 'en' && window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the English page",
    );
    assert_eq!(
        b.js("return location.pathname + location.search;"),
        json!(format!("/s/{}?lang=en", links[0]))
    );
    assert_eq!(
        b.js("return document.getElementById('live').textContent;"),
        "● live"
    );
    b.go(&format!("{base}/rules/egc"));
    b.wait("return document.documentElement.lang;", "the rules page");
    assert_eq!(b.js("return document.documentElement.lang;"), "en");
    // A live redraw of the game page (another seat acts) stays in the chosen language.
    b.go(&format!("{base}/s/{}", links[0]));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    let before = b.js("return window.TERCIO_LIVE.patches;");
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{}/actions", links[0]),
        Some(r#"{"action": "initiative"}"#),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    b.wait(
        &format!("return window.TERCIO_LIVE.patches > {before} && !window.TERCIO_LIVE.busy;"),
        "the live patch",
    );
    assert_eq!(
        b.js("return document.querySelector('#board th').textContent;"),
        "Unit"
    );
    // And back to Italian with the switch.
    b.click("a.lang-switch[data-lang='it']");
    b.wait(
        "return document.documentElement.lang === 'it' && document.querySelector('#board th');",
        "the Italian page",
    );
    assert_eq!(
        b.js("return document.querySelector('#board th').textContent;"),
        "Unità"
    );
}

#[test]
fn an_italian_game_master_draws_a_card_and_fires_with_the_odds_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    // The opening of Pavia of docs/cli.md (seed 151): its first card is the French fire card.
    let v = s.create(&json!({"scenario": "callan-renaissance/pavia-1525", "seed": 151}));
    let gm = common::token(&v["links"][0]["url"]);
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{gm}/actions"),
        Some(r#"{"action": "start"}"#),
    )
    .expect("start");
    assert_eq!(r.status, 200, "{}", r.body);
    // A phone whose language is Italian opens the game master's page.
    let b = Browser::start_in(420, "it-IT,it");
    b.go(&format!("http://{}/s/{gm}", s.addr));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    assert_eq!(b.js("return document.documentElement.lang;"), "it");
    // The turn's next step, a card to draw, leaves the table nothing to tell: the page draws
    // it by itself (issue 43), and the headline says the card.
    b.caught_up();
    assert_eq!(b.js("return window.TERCIO_LIVE.autos;"), json!(1));
    let drawn = b.js(LAST_RESULT);
    let drawn = drawn.as_str().unwrap_or_default();
    assert!(
        drawn.contains("Tiro") && drawn.contains("Francesco I"),
        "{drawn}"
    );
    let headline = b.js(HEADLINE);
    assert!(
        headline.as_str().is_some_and(|h| h.contains("Tiro")),
        "{headline}"
    );
    // The French heavy gun at Frundsberg's Landsknechts, a dense block, the nearest enemy: the
    // exact odds show in the form, in Italian, before anything is rolled.
    b.open_action("fire");
    b.js(
        "const set = (id, v) => { const e = document.getElementById(id); if (e.type === 'checkbox') e.checked = v; else e.value = v; e.dispatchEvent(new Event('change', { bubbles: true })); };
         document.querySelector('#form-f-fire .odds').textContent = '';
         set('f-fire-unit', 'artiglieria-pesante'); set('f-fire-target', 'lanzi-frundsberg');
         set('f-fire-short_bases', '0'); set('f-fire-long_bases', '1');
         set('f-fire-dense', true); set('f-fire-nearest', true);",
    );
    // Three dice hitting on 5 or 6: no hit 8/27 = 29,6%, one hit 4/9 = 44,4%.
    let odds = b.wait(
        "const o = document.querySelector('#form-f-fire .odds').textContent; return o.includes('Probabilità esatte') && o.includes('44,4%') && o;",
        "the exact odds in the fire form",
    );
    let odds = odds.as_str().unwrap_or_default().to_string();
    assert!(
        odds.contains("colpi") && odds.contains("0: 29,6%"),
        "{odds}"
    );
    assert!(
        !odds.contains("(not reached)") && !odds.contains('⟦'),
        "English or a marker in the Italian odds: {odds}"
    );
    assert_eq!(
        b.js("return document.querySelectorAll('#log li[data-seq]').length;"),
        json!(2),
        "nothing was recorded by asking the odds"
    );
    // A refusal shows beside the field it is about, named by its label, not in an alert: more
    // bases at short range than the gun has (issue 17, item 7).
    b.js("const e = document.getElementById('f-fire-short_bases'); e.value = '5'; e.dispatchEvent(new Event('input', { bubbles: true }));");
    b.click("#form-f-fire button[type=submit]");
    let refusal = b.wait(
        "const p = document.querySelector('#form-f-fire .field-error'); return p && [p.textContent, p.previousElementSibling && p.previousElementSibling.contains(document.getElementById('f-fire-short_bases'))];",
        "the refusal beside its field",
    );
    assert!(b.alert_text().is_none(), "a refusal in an alert");
    let text = refusal[0].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Basi a corto raggio (meno di 4 BW): ") && !text.contains("short_bases"),
        "{refusal}"
    );
    assert_eq!(refusal[1], true, "not beside its field: {refusal}");
    // Changing the field clears it.
    b.js("const e = document.getElementById('f-fire-short_bases'); e.value = '0'; e.dispatchEvent(new Event('change', { bubbles: true }));");
    b.wait(
        "return !document.querySelector('#form-f-fire .field-error');",
        "the refusal cleared",
    );
    // Another firer starts the form afresh: nothing ticked for the gun carries over (item 1).
    let other = b.js("const o = [...document.getElementById('f-fire-unit').options].find(o => o.value !== 'artiglieria-pesante'); return o && o.value;");
    let other = other
        .as_str()
        .expect("a second firer on the French fire card");
    b.js(&format!("{SET} set('f-fire-unit', '{other}');"));
    // (A volley's bases start at the unit's own: the count shown for it, at its start.)
    assert_eq!(
        b.js("const l = [...document.querySelectorAll('#form-f-fire [name=long_bases]')].find(e => !e.closest('label[hidden]')); return [document.getElementById('f-fire-dense').checked, document.getElementById('f-fire-nearest').checked, l.value === l.defaultValue];"),
        json!([false, false, true]),
        "fields kept from another unit"
    );
    b.js(&format!(
        "{SET} set('f-fire-unit', 'artiglieria-pesante'); set('f-fire-target', 'lanzi-frundsberg');
         set('f-fire-short_bases', '0'); set('f-fire-long_bases', '1');
         set('f-fire-dense', true); set('f-fire-nearest', true);"
    ));
    // Fire: the result in Italian, and the log shows it.
    b.click("#form-f-fire button[type=submit]");
    let result = b.result();
    assert!(
        result.contains("Artiglieria pesante (Genouillac)")
            && result.contains("Lanzichenecchi di Frundsberg")
            && result.contains("lungo raggio")
            && result.contains("colpi"),
        "{result}"
    );
    assert!(!result.contains('⟦'), "{result}");
    // The gun's three dice on one line, in Italian (issue 17, item 14).
    assert!(
        result.lines().any(|l| l.contains(": 3 dadi → ")),
        "{result}"
    );
    // Its modifier reads as a sentence, its value after it, in the box and in the log (item 14);
    // no line starts its modifier with a value ("tiratore: +3 basi: 1, dadi per base: 3").
    let sentence = "tiratore: 1 base a 3 dadi ciascuna (+3)";
    let value_first = |t: &str| {
        t.lines().any(|l| {
            l.split_once(": ").is_some_and(|(_, r)| {
                r.starts_with(['+', '-']) && r[1..].starts_with(|c: char| c.is_ascii_digit())
            })
        })
    };
    assert!(
        result.contains(sentence) && !value_first(&result),
        "{result}"
    );
    // The log's entry, opened: its steps fetched then.
    let logged = b.wait(
        "const li = document.querySelector('#log li[data-seq=\"3\"]'); if (!li) return false; const d = li.querySelector('details'); if (!d.open) d.open = true; return d.querySelector('pre') && li.textContent;",
        "the volley in the log",
    );
    assert!(
        logged.as_str().is_some_and(|t| t.contains("Tiro")
            && t.contains("Lanzichenecchi di Frundsberg")
            && t.contains(sentence)
            && !value_first(t)),
        "{logged}"
    );
    assert!(b.alert_text().is_none());
    b.patched_only();
}

/// The most a step's form may take on a 360×740 phone, from the top of its first field to the
/// bottom of its button, its odds summary included (issue 17, item 4): one screen, or a screen
/// and a half for the rule sets' largest forms (Callan's close combat, Sword and Flame's melee).
/// The app-driven rule sets' unit actions and Callan's attack may take a little more than a
/// screen (their button stays at the thumb while the form is on screen): each of their lists of long names takes the
/// whole width under its label, so that a name is read whole (issue 43, item 2).
fn phone_budget(rules: &str, action: &str) -> f64 {
    match (rules, action) {
        ("callan-renaissance", "resolve-combat") => 1100.0,
        ("sword-and-flame-renaissance", "melee" | "charge") => 1100.0,
        ("el-gran-capitan" | "bloody-dismal-fight", "charge" | "melee" | "retire" | "regroup")
        | ("callan-renaissance", "attack") => 860.0,
        _ => 740.0,
    }
}

/// The page as it stands, in `target/screenshots/NAME` and, with
/// `TERCIO_UPDATE_SCREENSHOTS=1`, in `docs/screenshots/NAME`.
fn phone_screenshot(b: &Browser, name: &str) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    b.screenshot(&root.join("target/screenshots").join(name));
    if std::env::var("TERCIO_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        b.screenshot(&root.join("docs/screenshots").join(name));
    }
}

/// Every rule set's example game, played on the game master's page of an Italian phone
/// (360×740): at every step the actions start on the first screen, below the tabs, and every
/// action's form, opened and filled, fits its budget ([`phone_budget`]) with its odds; no
/// citation or internal note shows in the page's text; the page stays live by patches.
#[test]
fn every_rule_set_fits_a_phone_in_italian_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let b = Browser::start_sized(360, 740, "it-IT,it");
    // How often each form is measured, per rule set: enough to see it in several states.
    const TIMES: usize = 3;
    for rules in common::RULE_SETS {
        let (scenario, seed, mut steps) = example_game(rules);
        // ECW's hands behind their prompts, so that one page plays every card.
        common::on_one_device(&mut steps);
        let v = s.create(&json!({"scenario": scenario, "seed": seed}));
        let gm = common::token(&v["links"][0]["url"]);
        b.go(&format!("http://{}/s/{gm}", s.addr));
        b.wait(
            "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
            "the live connection",
        );
        assert_eq!(
            b.js("return [document.documentElement.lang, document.body.dataset.tab];"),
            json!(["it", "play"])
        );
        // The steps the page takes by itself (issue 43: a card drawn, a turn started), not
        // posted again: the log's entries after `seen` that this test did not post.
        b.caught_up();
        let mut seen = 0;
        let mut own: Vec<Value> = Vec::new();
        let taken_since = |seen: &mut u64, own: &mut Vec<Value>, posted: Option<u64>| {
            let log = request(
                &s.addr,
                "GET",
                &format!("/api/s/{gm}/log?after={seen}"),
                None,
            )
            .expect("log")
            .json();
            for e in log["entries"].as_array().into_iter().flatten() {
                let seq = e["seq"].as_u64().unwrap_or(0);
                *seen = (*seen).max(seq);
                if Some(seq) != posted && e["entry"] == "event" {
                    own.push(e["event"]["action"].clone());
                }
            }
        };
        taken_since(&mut seen, &mut own, None);
        let mut measured: std::collections::HashMap<String, usize> = Default::default();
        // The phone flow halfway through the example, for docs/screenshots.
        let shot_at = steps.len() / 2;
        let mut widest = (0.0, String::new());
        for (i, (name, action)) in steps.iter().enumerate() {
            let at = format!("{rules} before {name}");
            b.js("window.scrollTo(0, 0);");
            if i == shot_at {
                phone_screenshot(&b, &format!("phone-{rules}.png"));
            }
            // The first action (a form, or an action's title) starts on the first screen.
            let first = b.js("const a = document.querySelector('#forms form.action-form, #forms details'); return a ? a.getBoundingClientRect().top : null;");
            if let Some(top) = first.as_f64().filter(|top| *top >= 740.0 - 44.0) {
                let shot = std::env::temp_dir().join(format!("tercio-phone-{rules}-{name}.png"));
                b.screenshot(&shot);
                panic!(
                    "{at}: the first action starts at {top} px (see {})",
                    shot.display()
                );
            }
            // The newest entry's line above the actions, with the game master's undo beside it;
            // a tap on it opens the entry in the log.
            if i > 0 {
                assert_eq!(
                    b.js("const li = document.querySelector('#log-list > li'); const l = document.getElementById('last'); return [l && l.dataset.seq === li.dataset.seq, document.getElementById('undo').checkVisibility()];"),
                    json!([true, true]),
                    "{at}: the newest entry and its undo above the actions"
                );
            }
            if i == 1 {
                b.js("document.querySelector('#last a.to-log').click();");
                assert_eq!(
                    b.js("const li = document.querySelector('#log-list > li'); return [document.body.dataset.tab, li.querySelector('details') ? li.querySelector('details').open : true, li.checkVisibility()];"),
                    json!(["log", true, true]),
                    "{at}: the newest entry, opened in the log"
                );
                b.js("document.querySelector('#tabs [data-tab=\"play\"]').click();");
            }
            // No citation, decision number or internal note in what the page shows.
            let text = b.js("return document.body.innerText;");
            let text = text.as_str().unwrap_or_default();
            for bad in ["[project design]", "docs/rules/", "[decision ", "[design "] {
                assert!(!text.contains(bad), "{at}: the page shows {bad:?}: {text}");
            }
            let ids = b.js("return [...document.querySelectorAll('#forms form.action-form')].filter(f => f.querySelector('select, input')).map(f => [f.getAttribute('id'), f.dataset.action]);");
            for pair in ids.as_array().cloned().unwrap_or_default() {
                let (id, act) = (
                    pair[0].as_str().unwrap_or(""),
                    pair[1].as_str().unwrap_or(""),
                );
                let n = measured.entry(act.to_string()).or_default();
                if *n >= TIMES {
                    continue;
                }
                *n += 1;
                // Opened, each empty choice given its first option, and its odds drawn.
                b.js(&format!(
                    "const f = document.getElementById({id:?}); const d = f.closest('details.act'); if (d) d.open = true; const r = f.closest('details.reveal'); if (r) r.open = true;
                     f.querySelectorAll('select').forEach(s => {{ if (s.value === '' && s.options.length > 1 && !s.closest('details.more')) s.selectedIndex = 1; }});
                     const box = f.querySelector('.odds'); if (box) delete box.dataset.drawn;
                     f.dispatchEvent(new Event('change', {{ bubbles: true }}));"
                ));
                b.wait(
                    &format!("const box = document.querySelector('#{id} .odds'); return !box || box.dataset.drawn === '1';"),
                    &format!("{at}: the odds of {act}"),
                );
                let span = b.js(&format!(
                    "const f = document.getElementById({id:?}); const first = [...f.querySelectorAll('select, input')].find(e => e.offsetParent !== null);
                     return f.querySelector('button[type=submit]').getBoundingClientRect().bottom - first.getBoundingClientRect().top;"
                ));
                let span = span.as_f64().unwrap_or(f64::MAX);
                // A list of long names takes the whole width (a name read whole, not cut at half
                // the screen: issue 43, item 2).
                let narrow = b.js(&format!(
                    "const f = document.getElementById({id:?}); return [...f.querySelectorAll('select')].filter(s => s.checkVisibility() && [...s.options].some(o => o.text.length > 15) && s.getBoundingClientRect().width < 280).map(s => s.name);"
                ));
                assert_eq!(
                    narrow,
                    json!([]),
                    "{at}: {act}'s lists of long names cut short"
                );
                let budget = phone_budget(rules, act);
                if span > budget {
                    // What it looked like, for whoever mends it.
                    b.js(&format!(
                        "document.getElementById({id:?}).scrollIntoView();"
                    ));
                    let shot = std::env::temp_dir().join(format!("tercio-phone-{rules}-{act}.png"));
                    b.screenshot(&shot);
                    panic!(
                        "{at}: {act}'s form takes {span} px, more than {budget} (see {})",
                        shot.display()
                    );
                }
                if span > widest.0 {
                    widest = (span, act.to_string());
                }
                b.js(&format!(
                    "const f = document.getElementById({id:?}); f.reset(); const d = f.closest('details.act'); if (d) d.open = false; const r = f.closest('details.reveal'); if (r) r.open = false;"
                ));
            }
            if let Some(i) = own.iter().position(|a| same_action(a, action)) {
                own.remove(i);
                continue;
            }
            let r = request(
                &s.addr,
                "POST",
                &format!("/api/s/{gm}/actions"),
                Some(&action.to_string()),
            )
            .expect("act");
            assert_eq!(r.status, 200, "{at}: {}", r.body);
            b.caught_up();
            let posted = seen + 1;
            taken_since(&mut seen, &mut own, Some(posted));
        }
        eprintln!("{rules}: largest form {} ({} px)", widest.1, widest.0);
        b.patched_only();
    }
}

/// A tick box the state ticks for some units (`data-checked-for`): the Callan light horse that
/// has just made its charge move attacks as a charge, the others do not, and the box follows the
/// attacker chosen (issue 17, item 1); a field for some defenders follows the defender.
#[test]
fn a_charge_move_ticks_the_charge_of_its_attack_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let (scenario, seed, steps) = example_game("callan-renaissance");
    let v = s.create(&json!({"scenario": scenario, "seed": seed}));
    let gm = common::token(&v["links"][0]["url"]);
    let post = |a: &Value| {
        let r = request(
            &s.addr,
            "POST",
            &format!("/api/s/{gm}/actions"),
            Some(&a.to_string()),
        )
        .expect("act");
        assert_eq!(r.status, 200, "{a}: {}", r.body);
    };
    // Up to the card of the light horse's move (step 15), which charges instead.
    for (_, a) in steps.iter().take_while(|(n, _)| !n.starts_with("15-")) {
        post(a);
    }
    post(&json!({"action": "move", "unit": "cavalleria-leggera", "kind": "charge"}));
    let b = Browser::start_sized(360, 740, "it-IT,it");
    b.go(&format!("http://{}/s/{gm}", s.addr));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live' && document.getElementById('act-f-attack');",
        "the attack form",
    );
    b.open_action("attack");
    assert_eq!(
        b.js("return document.getElementById('f-attack-charge') !== null;"),
        json!(true),
        "the attack form's charge box"
    );
    let ticked = |unit: &str| {
        b.js(&format!(
            "const sel = document.getElementById('f-attack-attacker'); sel.value = {unit:?}; sel.dispatchEvent(new Event('change', {{ bubbles: true }})); return document.getElementById('f-attack-charge').checked;"
        ))
    };
    let others = b.js("return [...document.getElementById('f-attack-attacker').options].map(o => o.value).filter(v => v !== 'cavalleria-leggera');");
    let other = others[0].as_str().expect("another attacker").to_string();
    assert_eq!(ticked("cavalleria-leggera"), json!(true));
    assert_eq!(ticked(&other), json!(false));
    assert_eq!(ticked("cavalleria-leggera"), json!(true));
    // The next card is the French cavalry's: "of which tercio arquebusiers" shows only for a
    // defender with shot, the Spanish colunella (issue 17, item 6).
    let (_, draw) = steps
        .iter()
        .find(|(n, _)| n.starts_with("16-"))
        .expect("step 16");
    post(draw);
    b.wait(
        "return document.getElementById('f-attack-defender_shot');",
        "the French attack form with the defender's shot",
    );
    let shown = b.js(
        "const l = document.getElementById('f-attack-defender_shot').closest('label');
         const sel = document.getElementById('f-attack-defender');
         const d = sel.closest('details'); if (d) d.open = true;
         const list = l.dataset.onlyFor.split(' ');
         const pick = (v) => { sel.value = v; sel.dispatchEvent(new Event('change', { bubbles: true })); return l.checkVisibility(); };
         const without = [...sel.options].map(o => o.value).find(v => v && !list.includes(v));
         return [l.dataset.onlyWith, pick(list[0]), without ? pick(without) : 'none without shot'];",
    );
    assert_eq!(shown, json!(["defender", true, false]));
}

/// The Balance page on a phone and on a desktop: both heatmaps drawn, the page never scrolls
/// sideways (a map scrolls in its own box), a tap on a cell opens its pair in detail; and the
/// report `tercio matchup --report` writes renders from disk. No script error anywhere.
#[test]
fn the_balance_page_and_report_render_on_a_phone_and_a_desktop_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    for width in [360, 1280] {
        let b = Browser::start_sized(width, 740, "it-IT,it");
        b.go(&format!("http://{}/rules/egc/balance", s.addr));
        b.wait(
            "return document.readyState === 'complete' && document.getElementById('balance-finish');",
            "the balance page",
        );
        phone_screenshot(&b, &format!("balance-{width}.png"));
        let v = b.js("const r = id => document.getElementById(id).getBoundingClientRect(); return [document.documentElement.scrollWidth, window.innerWidth, r('balance-ahead').width, r('balance-finish').height, document.querySelectorAll('#balance-ahead a').length];");
        assert!(
            v[0].as_u64() <= v[1].as_u64(),
            "{width}: the page scrolls sideways: {v}"
        );
        assert!(v[2].as_f64().is_some_and(|w| w > 300.0), "{width}: {v}");
        assert!(v[3].as_f64().is_some_and(|h| h > 300.0), "{width}: {v}");
        // Cells of the pairs the rules allow are links (cannon never charge: not all 256).
        assert!(
            v[4].as_u64().is_some_and(|n| n > 100 && n < 256),
            "{width}: {v}"
        );
        b.js("document.querySelector('#balance-finish a').dispatchEvent(new MouseEvent('click', {bubbles: true}));");
        let text = b.wait(
            "const p = document.getElementById('pair'); return p && p.checkVisibility() && p.innerText;",
            "the pair in detail",
        );
        assert!(
            text.as_str().is_some_and(
                |t| t.contains("Gendarmi contro Gendarmi") && t.contains("round attesi")
            ),
            "{text}"
        );
        assert_eq!(b.script_errors(), Vec::<String>::new(), "{width}");
    }
    // The report, opened from disk.
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("balance.html");
    let sheet = tercio_rules::interface::balance::sheet(
        "bloody-dismal-fight",
        &*tercio_rules::lookup("abdf")
            .expect("abdf")
            .balance()
            .expect("balance"),
        "fire",
        4,
    )
    .expect("sheet");
    let html = tercio_web::balance_report(
        tercio_i18n::Lang::En,
        tercio_rules::lookup("abdf").expect("abdf"),
        &sheet,
    );
    std::fs::write(&file, html).expect("write");
    let b = Browser::start(360);
    b.go(&format!("file://{}", file.display()));
    let v = b.wait(
        "const m = document.getElementById('balance-ahead'); return m && document.readyState === 'complete' && [m.getBBox().width, document.title];",
        "the report",
    );
    assert!(v[0].as_f64().is_some_and(|w| w > 300.0), "{v}");
    assert!(v[1].as_str().is_some_and(|t| t.contains("balance")), "{v}");
    assert_eq!(b.script_errors(), Vec::<String>::new());
    // The report of simulated battles (`tercio simulate --report`), on the same phone.
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/el-gran-capitan/cerignola-1503.toml"
    ))
    .expect("read");
    let sc = tercio_rules::scenario::parse("cerignola-1503.toml", &src).expect("scenario");
    let r = tercio_rules::lookup("egc").expect("egc");
    let sim = r.simulator().expect("simulator");
    let sides: Vec<String> = sc.sides.iter().map(|s| s.id.clone()).collect();
    let battles: Vec<_> = (0..30)
        .map(|i| {
            sim.play(
                &sc,
                tercio_rules::interface::simulate::battle_seed(1, i),
                &[],
                20,
                false,
            )
            .expect("battle")
        })
        .collect();
    let summary = tercio_rules::interface::simulate::Summary::of(&sides, &battles);
    let html = tercio_web::simulation_report(
        tercio_i18n::Lang::It,
        r,
        &tercio_web::SimulationRun {
            title: sc.title.get(tercio_i18n::Lang::It).to_string(),
            sides: sc
                .sides
                .iter()
                .map(|s| (s.id.clone(), s.name.get(tercio_i18n::Lang::It).to_string()))
                .collect(),
            policies: vec!["cautious".into(), "aggressive".into()],
            seed: 1,
            turns: 20,
            gap: 24,
        },
        &summary,
    );
    let file = dir.path().join("simulation.html");
    std::fs::write(&file, html).expect("write");
    b.go(&format!("file://{}", file.display()));
    let v = b.wait(
        "const p = id => document.getElementById(id); return document.readyState === 'complete' && p('sim-losses') && [p('sim-over-n').getBBox().width, p('sim-losses').querySelectorAll('polyline').length, document.querySelectorAll('#sim-troops tbody tr').length, document.documentElement.scrollWidth, window.innerWidth];",
        "the simulation report",
    );
    assert!(v[0].as_f64().is_some_and(|w| w > 300.0), "{v}");
    assert_eq!(v[1], 2, "one loss curve per side: {v}");
    assert!(v[2].as_u64().is_some_and(|n| n >= 10), "{v}");
    assert!(
        v[3].as_u64() <= v[4].as_u64(),
        "the report scrolls sideways: {v}"
    );
    phone_screenshot(&b, "simulation-360.png");
    assert_eq!(b.script_errors(), Vec::<String>::new());
}

/// The host simulates a scenario from the games page, on a phone: the run's page follows its
/// progress live and shows what it found when it is over, with no script error.
#[test]
fn the_host_simulates_a_battle_on_a_phone_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let b = Browser::start(360);
    b.go(&format!("http://{}/?key={}", s.addr, s.key));
    b.wait(
        "return document.getElementById('simulate');",
        "the simulate form",
    );
    b.js("const f = document.getElementById('simulate'); f.querySelector('select').value = 'bloody-dismal-fight/agincourt-1415'; setTimeout(() => f.querySelector('button').click(), 0);");
    // The run's page: a progress bar while it plays (it may already be over on a fast machine),
    // then, by itself, what the battles found.
    b.wait(
        "return location.pathname.startsWith('/simulations/') && (document.getElementById('sim-progress') || document.getElementById('sim-results'));",
        "the run's page",
    );
    let v = b.wait(
        "const t = document.getElementById('sim-results'); return t && [t.querySelectorAll('tbody tr').length, document.documentElement.scrollWidth, window.innerWidth];",
        "the results, without a reload by hand",
    );
    assert_eq!(v[0], 4, "two sides, draws, the turn limit: {v}");
    assert!(
        v[1].as_u64() <= v[2].as_u64(),
        "the page scrolls sideways: {v}"
    );
    phone_screenshot(&b, "simulate-360.png");
    assert_eq!(b.script_errors(), Vec::<String>::new());
}

/// The supporting units of a charge, on the game master's page (item 1 of "The last rules the
/// seeds describe"): the list shown is the acting unit's side's, any number may be picked, the
/// page sends them as a list, and the result names them; the unit named has acted.
#[test]
fn a_charge_names_its_supporting_units_on_the_page_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let v = s.create(&json!({"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}));
    let gm = common::token(&v["links"][0]["url"]);
    let post = |a: &Value| {
        let r = request(
            &s.addr,
            "POST",
            &format!("/api/s/{gm}/actions"),
            Some(&a.to_string()),
        )
        .expect("act");
        assert_eq!(r.status, 200, "{a}: {}", r.body);
        r.json()
    };
    // Seed 5: the French have the first initiative (examples/el-gran-capitan/game), and their
    // army commander commands every French unit.
    post(&json!({"action": "initiative"}));
    post(&json!({"action": "command", "leader": "nemours"}));
    let b = Browser::start(1000);
    b.go(&format!("http://{}/s/{gm}", s.addr));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live' && document.getElementById('act-f-charge');",
        "the charge form",
    );
    b.open_action("charge");
    // Nemours's gendarmes charge the Spanish pikes of the left, the first squadron of the
    // compagnies beside them: only the French list is shown, and it holds no Spanish unit.
    let shown = b.js(&format!(
        "{SET} set('f-charge-actor', 'nemours-company'); set('f-charge-target', 'spanish-pike-left');
         const lists = [...document.querySelectorAll('#form-f-charge select[name=supporting_actor_units]')];
         const seen = lists.filter(l => !l.closest('label').hidden);
         if (seen.length !== 1 || !seen[0].multiple) return 'lists: ' + lists.length + ', shown: ' + seen.length;
         // Choosing what acts put the list back as drawn: nothing chosen.
         if (seen[0].selectedOptions.length) return 'chosen at first: ' + seen[0].value;
         const values = [...seen[0].options].map(o => o.value);
         seen[0].querySelector('option[value=gendarmes-first-squadron]').selected = true;
         seen[0].dispatchEvent(new Event('change', {{ bubbles: true }}));
         return values;"
    ));
    let values = shown.as_array().unwrap_or_else(|| panic!("{shown}"));
    assert!(
        values.contains(&json!("gendarmes-first-squadron")),
        "{shown}"
    );
    assert!(!values.contains(&json!("spanish-pike-left")), "{shown}");
    b.click(&submit("charge"));
    let text = b.result();
    assert!(
        text.contains(
            "Compagnies d'ordonnance (first squadron) support Nemours's own company of gendarmes"
        ),
        "{text}"
    );
    let acted = b.js(&format!(
        "{ROW} return row(\"Compagnies d'ordonnance (first squadron)\").textContent.includes('acted');"
    ));
    assert_eq!(acted, json!(true));
    // No script error (the odds of the form before its target was set answered 422, which the
    // browser logs as a failed load).
    let errors: Vec<String> = b
        .script_errors()
        .into_iter()
        .filter(|e| !(e.contains("/odds") && e.contains(" - Failed to load resource")))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// What playing an example game through taps took ([`play_by_taps`]).
#[derive(Debug, Default)]
struct Played {
    /// Taps, selects and typed numbers.
    interactions: usize,
    /// The issue's budget: over the recorded actions, 1 plus the number of fields each gives.
    budget: usize,
    /// Times a control to tap was off the screen (between the header and the tab bar).
    scrolls: usize,
    /// Taps on a title to open an action or a correction, or on a tab (navigation).
    opened: usize,
    actions: usize,
    /// Fields of the action files the page has no field for.
    unasked: Vec<String>,
    /// The sides' seats whose pages took an action.
    seats_used: std::collections::BTreeSet<String>,
    /// Steps of the example the page did not need: nothing to tell, the next one offered.
    not_needed: Vec<String>,
    /// Steps the page took by itself: the one step the rules left, nothing to tell.
    auto: Vec<String>,
    /// The largest live update a page received over the game, in bytes.
    largest_event: usize,
    /// The largest game master's page over the game, raw bytes.
    largest_page: usize,
    /// That page loaded afresh in the browser with what it fetches before a tap, raw bytes.
    largest_load: usize,
}

impl Played {
    /// Add what [`TAP_FIELD`] counted: `[taps, opened, scrolls]` (an opening is an interaction).
    fn count(&mut self, [taps, opened, scrolls]: [usize; 3]) {
        self.interactions += taps + opened;
        self.opened += opened;
        self.scrolls += scrolls;
    }
}

/// Set field `field` of form `id` to `value` as a thumb would ([`TAP_FIELD`]): what it took, or
/// `None` when the form has no such field; a field it could not reach fails the test at `at`.
fn tap_field(b: &Browser, at: &str, id: &str, field: &str, value: &Value) -> Option<[usize; 3]> {
    let r = b.cmd(
        "POST",
        "/execute/async",
        json!({"script": TAP_FIELD, "args": [id, field, value]}),
    );
    if let Some(why) = r.as_str() {
        panic!("{at}: {why}");
    }
    let r = r.as_array()?;
    let n = |i: usize| r.get(i).and_then(Value::as_u64).unwrap_or(0) as usize;
    Some([n(0), n(1), n(2)])
}

/// One field to set in a form, from an action file: the form's field name and its value.
fn form_fields(action: &Value, fixed: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (k, v) in action.as_object().into_iter().flatten() {
        if k == "action" || fixed.get(k) == Some(v) {
            continue;
        }
        // A list of acts (the simultaneous fire) is the form's fields per unit: `fire.<unit>`
        // for its target, `<field>.<unit>` for the others.
        // The sacked camps are the page's `sack.<side>.<n>` fields, one per looter.
        if k == "camps_sacked" {
            for camp in v.as_array().into_iter().flatten() {
                let side = camp["side"].as_str().unwrap_or_default();
                for (n, by) in camp["by"].as_array().into_iter().flatten().enumerate() {
                    out.push((format!("sack.{side}.{}", n + 1), by.clone()));
                }
            }
            continue;
        }
        if let Some(list) = v.as_array().filter(|l| l.iter().all(Value::is_object)) {
            if !list.is_empty() {
                for act in list {
                    let actor = act["actor"].as_str().unwrap_or_default();
                    for (ak, av) in act.as_object().into_iter().flatten() {
                        if ak == "action" || ak == "actor" {
                            continue;
                        }
                        let name = if ak == "target" { "fire" } else { ak.as_str() };
                        out.push((format!("{name}.{actor}"), av.clone()));
                    }
                }
                continue;
            }
        }
        out.push((k.clone(), v.clone()));
    }
    out
}

/// Set one field of form `form` to `value` as a thumb would, counting: the taps that open what
/// hides it, the scrolls that bring it between the header and the tab bar, and the set itself
/// (none when it already holds the value: a default is not corrected). Returns
/// `[taps, opened, scrolls]`, or `null` when the form has no such field. (Asynchronous: an
/// action opened from its title is measured once the page has drawn it.)
const TAP_FIELD: &str = r#"
const [formId, name, value, done] = arguments;
const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
(async () => {
const form = document.getElementById(formId);
const want = Array.isArray(value) ? value.map(String) : typeof value === 'boolean' ? value : String(value);
const within = () => {
  const bar = document.getElementById('tabs');
  const bottom = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
  return [document.querySelector('header.top').getBoundingClientRect().bottom, bottom];
};
// A folded action, its form not fetched yet: its list picked (what acts, a leader), one tap
// that opens the action with it and fetches its form.
if (!form) {
  const pick = document.getElementById('pick-' + formId.slice(5));
  if (!pick || pick.dataset.field !== name || ![...pick.options].some(o => o.value === want)) return null;
  let scrolls = 0;
  const r = pick.getBoundingClientRect();
  const [top, bottom] = within();
  if (r.top < top || r.bottom > bottom) { pick.scrollIntoView({ block: 'center' }); scrolls += 1; }
  const c = pick.getBoundingClientRect();
  if (document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2) !== pick) return `the list of ${formId} is not under a tap on its tile`;
  pick.value = want;
  pick.dispatchEvent(new Event('change', { bubbles: true }));
  for (let i = 0; i < 600 && !document.getElementById(formId); i++) await frame();
  if (!document.getElementById(formId)) return `the form of ${formId} was not fetched`;
  await frame();
  return [1, 0, scrolls];
}
const named = () => [...form.querySelectorAll('[name]')].filter(e => e.name === name && !e.closest('label[hidden]'));
let taps = 0, opened = 0, scrolls = 0;
// A correction: the form's corrections opened (a tap, counted), their fields fetched then.
const more = form.querySelector('details.more[data-form]');
if (!named().length && more && more.dataset.loaded !== more.dataset.form) {
  // Left as it starts, a correction is not opened: its fields as the page would fetch them
  // say where it starts.
  const r = await fetch(`/api/s/${window.TERCIO_SEAT}/form?id=${more.id}&lang=en`);
  const t = document.createElement('template');
  t.innerHTML = r.ok ? (await r.json()).html : '';
  const d = [...t.content.querySelectorAll('[name]')].find(e => e.name === name);
  const list = d && d.dataset.options ? t.content.getElementById(d.dataset.options.split(':')[0]) : d;
  const start = !d ? null : d.type === 'checkbox' ? d.hasAttribute('checked') : d.tagName === 'SELECT' ? (list.querySelector('option[selected]') || list.querySelector('option') || {}).value : d.getAttribute('value');
  if (d && JSON.stringify(start) === JSON.stringify(want)) return [0, 0, 0];
  if (!more.open) { more.querySelector('summary').click(); opened += 1; }
  for (let i = 0; i < 600 && more.dataset.loaded !== more.dataset.form; i++) await frame();
  await frame();
}
const el = named()[0];
if (!el) return null;
const now = el.type === 'checkbox' ? el.checked : el.multiple ? [...el.selectedOptions].map(o => o.value) : el.value;
if (JSON.stringify(now) === JSON.stringify(want)) return [0, opened, 0];
// The first field of an action drawn closed as its list (`select.pick`): picked there, one tap
// that opens the action with it.
const tile = el.closest('details.act:not([open])') && el.closest('.tile');
let pick = tile && tile.querySelector(':scope > select.pick');
if (pick && pick.dataset.field !== name) pick = null;
if (pick && [...pick.options].some(o => o.value === want)) {
  const r = pick.getBoundingClientRect();
  const bar = document.getElementById('tabs');
  const bottom = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
  if (r.top < document.querySelector('header.top').getBoundingClientRect().bottom || r.bottom > bottom) { pick.scrollIntoView({ block: 'center' }); scrolls += 1; }
  // The list lies over its tile, unseen: a tap on the tile's middle reaches it.
  const c = pick.getBoundingClientRect();
  if (document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2) !== pick) return `the list of ${formId} is not under a tap on its tile`;
  pick.value = want;
  pick.dispatchEvent(new Event('change', { bubbles: true }));
  await frame();
  return [1, 0, scrolls];
}
for (let d = el.closest('details:not([open])'); d && opened < 4; d = el.closest('details:not([open])')) { d.querySelector('summary').click(); opened += 1; await frame(); }
const bar = document.getElementById('tabs');
const bottom = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
const top = document.querySelector('header.top').getBoundingClientRect().bottom;
const r = el.getBoundingClientRect();
if (r.top < top || r.bottom > bottom) { el.scrollIntoView({ block: 'center' }); scrolls += 1; }
if (el.type === 'checkbox') { el.checked = want; taps += 1; }
else if (el.multiple) { [...el.options].forEach(o => { o.selected = want.includes(o.value); }); taps += Math.max(1, want.length); }
else { el.value = want; taps += 1; }
el.dispatchEvent(new Event('change', { bubbles: true }));
return [taps, opened, scrolls];
})().then(done);
"#;

/// What the page shows on its first screen, checked after every action (issue 43, "How it is
/// measured"): `[primary's bottom, bottom of the free screen, dialogs open, bad words, small
/// targets, small inputs]`.
const FIRST_SCREEN: &str = r#"
window.scrollTo(0, 0);
const bar = document.getElementById('tabs');
const bottom = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
const p = document.querySelector('#forms form.action-form.primary button[type=submit]');
const primary = p && p.checkVisibility() ? p.getBoundingClientRect().bottom : null;
const text = document.body.innerText;
const bad = ['⟦', 'undefined', 'NaN', '[project design]', 'docs/rules/'].filter(w => text.includes(w));
const visible = e => e.checkVisibility() && e.getBoundingClientRect().width > 0;
const targets = [...document.querySelectorAll('header button, header a, #main button, #main a, #main select, #main summary, #main input:not([type=checkbox]), #main label.check')].filter(visible);
const small = targets.filter(e => { const r = e.getBoundingClientRect(); return r.height < 43.5 || (r.width < 43.5 && e.tagName !== 'A'); }).map(e => `${e.tagName}#${e.id || ''}.${e.className} ${Math.round(e.getBoundingClientRect().width)}x${Math.round(e.getBoundingClientRect().height)} ${e.textContent.trim().slice(0, 30)}`);
const inputs = [...document.querySelectorAll('#main input, #main select, #main textarea')].filter(visible).filter(e => parseFloat(getComputedStyle(e).fontSize) < 16).map(e => e.id);
return [primary, bottom, document.querySelectorAll('dialog[open]').length, bad, small, inputs];
"#;

/// Whether two actions are the same, the action's name read with `-` for `_` (an example's
/// `end_turn` is the form's `end-turn`): a step of an example and a log entry the page made.
fn same_action(a: &Value, b: &Value) -> bool {
    let norm = |v: &Value| {
        let mut v = v.clone();
        if let Some(n) = v["action"].as_str().map(|n| n.replace('_', "-")) {
            v["action"] = json!(n);
        }
        v
    };
    norm(a) == norm(b)
}

/// Play rule set `rules`' example game on the game master's page through taps only (no API
/// call for the play), in a browser `b` already sized and in its language, asserting after
/// every action what [`FIRST_SCREEN`] measures; the faces rolled are the example's (the same
/// game was played). Screenshots of the first screen after the first action with dice and at
/// the end go to `phone-<rules>-<lang>-*.png` ([`phone_screenshot`]).
fn play_by_taps(s: &Server, b: &Browser, rules: &str, tag: &str, by_seat: bool) -> Played {
    let (scenario, seed, mut steps) = example_game(rules);
    let recorded = steps.clone();
    if !by_seat {
        common::on_one_device(&mut steps);
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(format!("examples/{rules}/game.expect.json")))
            .expect("expect"),
    )
    .expect("json");
    let v = s.create(&json!({"scenario": scenario, "seed": seed}));
    let gm = common::token(&v["links"][0]["url"]);
    // The seats that may act: the game master's, then each side's (`by_seat`: each action is
    // taken on the page of the seat that is offered it, each player on a phone of their own).
    let seats: Vec<String> = v["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| by_seat && l["role"] == "side")
        .map(|l| common::token(&l["url"]))
        .collect();
    let open = |token: &str| {
        b.go(&format!("http://{}/s/{token}", s.addr));
        b.wait(
            "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
            "the live connection",
        );
        b.js("window.__recorded = 0;");
        b.caught_up();
    };
    if by_seat {
        // Each side resolves its own units' actions (Commands & Colors' sides do already).
        let r = request(
            &s.addr,
            "POST",
            &format!("/api/s/{gm}/settings"),
            Some(&json!({"side_rights": "own-units"}).to_string()),
        )
        .expect("settings");
        assert_eq!(r.status, 200, "{}", r.body);
    }
    open(&gm);
    let mut here = gm.clone();
    let mut played = Played::default();
    let mut shot = false;
    // The log's entries matched to a step of the example so far.
    let mut matched = std::collections::BTreeSet::new();
    // The whole log, in English.
    let whole_log = || {
        request(
            &s.addr,
            "GET",
            &format!("/api/s/{gm}/log?after=0&lang=en"),
            None,
        )
        .expect("log")
        .json()["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let find = |action: &Value| {
        b.js(&format!(
            "const want = {action}; if (want.action === 'rest') want.action = 'regroup'; const list = (f, k) => f.tagName === 'FORM' ? f.querySelector(`select[name=\"${{k}}\"]`) : [...f.parentElement.querySelectorAll(':scope > select.pick')].find(p => p.dataset.field === k); const f = [...document.querySelectorAll('#forms form.action-form, #forms details.act[data-form]:not([data-loaded])')].find(f => f.dataset.action.replace(/_/g, '-') === want.action.replace(/_/g, '-') && Object.entries(JSON.parse(f.dataset.fixed || '{{}}')).every(([k, v]) => JSON.stringify(want[k]) === JSON.stringify(v)) && ['actor', 'unit', 'attacker'].every(k => {{ const e = list(f, k); return typeof want[k] !== 'string' || !e || [...e.options].some(o => o.value === want[k]); }})); return f ? [f.id.replace(/^act-/, 'form-'), JSON.parse(f.dataset.fixed || '{{}}')] : null;"
        ))
    };
    for (i, (name, action)) in steps.iter().enumerate() {
        let at = format!("{rules} ({tag}) {name}");
        played.actions += 1;
        played.budget += action.as_object().map_or(1, |o| o.len());
        b.js("window.scrollTo(0, 0);");
        if b.js("return document.body.dataset.tab;") != json!("play") {
            b.js("document.querySelector('#tabs [data-tab=\"play\"]').click();");
            played.opened += 1;
        }
        // (`TERCIO_STEP_SHOTS=<dir>`: the first screen before each step, to look at.)
        if let Ok(dir) = std::env::var("TERCIO_STEP_SHOTS") {
            b.screenshot(&std::path::Path::new(&dir).join(format!("{rules}-{tag}-{name}.png")));
        }
        let mut form = find(action);
        // By seat: a side's page takes what it is offered (a player's own phone: going to it is
        // no interaction of this one's), the one on screen first; the game master's page what no
        // side's is.
        if by_seat {
            if here == gm || form[0].is_null() {
                let order: Vec<String> = seats
                    .iter()
                    .filter(|t| **t != here)
                    .cloned()
                    .chain(std::iter::once(gm.clone()))
                    .collect();
                for token in order {
                    if token != here {
                        open(&token);
                        here = token;
                    }
                    form = find(action);
                    if !form[0].is_null() {
                        break;
                    }
                }
            }
            if here != gm {
                played.seats_used.insert(here.clone());
            }
        }
        // A step that tells nothing (a Sword and Flame draw once one side alone has units to
        // act: "no card needed") is not asked when the rules already go on to the next one,
        // whose form is offered: it costs nothing (the issue's budget counts it 0).
        let next_offered = |want: &Value| {
            b.js(&format!(
                "const want = {want}; return [...document.querySelectorAll('#forms form.action-form, #forms details.act[data-form]')].some(f => f.dataset.action === want.action);"
            )) == json!(true)
        };
        // A step the page took by itself (the one step the rules left, nothing to tell: issue
        // 43): in the log, not matched to an earlier step, and no interaction; the issue's
        // budget counts it 0. Its outcome is the example's. (Its form may be offered again:
        // Callan's next card.)
        {
            let taken = whole_log().into_iter().find(|e| {
                let seq = e["seq"].as_u64().unwrap_or(0);
                !matched.contains(&seq)
                    && e["voided"] != json!(true)
                    && same_action(&e["event"]["action"], action)
            });
            if let Some(e) = taken {
                matched.insert(e["seq"].as_u64().unwrap_or(0));
                played.budget -= action.as_object().map_or(1, |o| o.len());
                played.auto.push(name.clone());
                let same = recorded.iter().any(|(n, a)| n == name && a == action);
                if let Some(want) = expect["steps"][name]["summary"].as_str().filter(|_| same) {
                    assert_eq!(
                        e["event"]["resolution"]["summary"],
                        json!(want),
                        "{at}: the page's own step gave another outcome than the example's"
                    );
                }
                continue;
            }
        }
        if form[0].is_null()
            && action.as_object().is_some_and(|o| o.len() == 1)
            && steps.get(i + 1).is_some_and(|(_, a)| next_offered(a))
        {
            played.budget -= 1;
            played.not_needed.push(name.clone());
            continue;
        }
        let Some(id) = form[0].as_str().map(str::to_string) else {
            let log = whole_log();
            let latest: Vec<&Value> = log
                .iter()
                .rev()
                .take(3)
                .map(|e| &e["event"]["resolution"]["summary"])
                .collect();
            panic!(
                "{at}: no form for {action}; the page's: {}; the latest entries: {latest:?}",
                b.js("return [...document.querySelectorAll('#forms form.action-form, #forms details.act[data-form]:not([data-loaded])')].map(f => f.dataset.action + (f.dataset.fixed || '')).join(' ');")
            );
        };
        // What the rules refuse of each choice is drawn first (the lists as a user sees them).
        b.wait(
            "const l = window.TERCIO_LIVE; return !document.querySelector('#main form.action-form select[data-resets]') || l.choices === l.seq;",
            &format!("{at}: the choices drawn"),
        );
        // A folded action: its form fetched when it is opened, by picking from its list (when
        // the action gives that field) or by a tap on its title (navigation, counted).
        if b.js(&format!("return document.getElementById({id:?}) === null;")) == json!(true) {
            let pick = b.js(&format!(
                "const p = document.getElementById('pick-' + {id:?}.slice(5)); return p ? p.dataset.field : null;"
            ));
            let first = form_fields(action, &form[1])
                .into_iter()
                .find(|(f, _)| Some(f.as_str()) == pick.as_str());
            match first {
                Some((field, value)) => {
                    if let Some(counts) = tap_field(b, &at, &id, &field, &value) {
                        played.count(counts);
                    }
                }
                None => {
                    b.js(&format!(
                        "document.getElementById('act-' + {id:?}.slice(5)).querySelector('summary').click();"
                    ));
                    played.opened += 1;
                    played.interactions += 1;
                }
            }
            b.wait(
                &format!("const l = window.TERCIO_LIVE; return document.getElementById({id:?}) !== null && l.choices === l.seq && l.choicesForms === l.forms;"),
                &format!("{at}: the folded action's form"),
            );
        }
        // What acts first: choosing it puts the form's other fields back.
        let resets = b.js(&format!(
            "const e = document.getElementById({id:?}).querySelector('select[data-resets]'); return e ? e.name : null;"
        ));
        // The field its tile picks first (an action drawn closed as that list), then what acts.
        let picked = b.js(&format!(
            "const f = document.getElementById({id:?}); const t = f.closest('details.act:not([open])') && f.closest('.tile'); const p = t && t.querySelector(':scope > select.pick'); return p ? p.dataset.field : null;"
        ));
        // A choice drawn as buttons (the unit a leader joins) is the tap that acts.
        let picks = b.js(&format!(
            "const p = document.getElementById({id:?}).querySelector('.picks button'); return p ? p.name : null;"
        ));
        let go = match picks.as_str() {
            Some(field) => format!(
                "#{id} .picks button[name=\"{field}\"][value=\"{}\"]",
                action[field].as_str().unwrap_or_default()
            ),
            None => format!("#{id} button[type=submit]"),
        };
        let mut fields = form_fields(action, &form[1]);
        fields.retain(|(f, _)| Some(f.as_str()) != picks.as_str());
        fields.sort_by_key(|(f, _)| {
            (
                Some(f.as_str()) != picked.as_str(),
                Some(f.as_str()) != resets.as_str(),
            )
        });
        for (field, value) in fields {
            let hidden = b.js(&format!(
                "const e = [...document.getElementById({id:?}).querySelectorAll('select')].find(e => e.name === {field:?}); const o = e && [...e.options].find(o => o.value === {value}); return Boolean(o && (o.hidden || o.disabled));",
                value = serde_json::to_string(&value.as_str().unwrap_or_default()).unwrap_or_default()
            ));
            if hidden == json!(true) {
                played
                    .unasked
                    .push(format!("{name}: {field} = {value} not offered"));
            }
            // A field the page does not ask (the game knows it, or the form cannot say it) is
            // noted: the example's dice, checked below, tell whether the same game went on.
            match tap_field(b, &at, &id, &field, &value) {
                Some(counts) => played.count(counts),
                None => played.unasked.push(format!("{name}: {field}")),
            }
        }
        // The button: brought into view if it is not, then tapped.
        let scrolled = b.js(&format!(
            "const f = document.getElementById({id:?}); let opened = 0; for (let d = f.closest('details:not([open])'); d; d = d.parentElement && d.parentElement.closest('details:not([open])')) {{ d.open = true; opened += 1; }}
             const bar = document.getElementById('tabs'); const bottom = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
             const btn = document.querySelector({go:?}); const r = btn.getBoundingClientRect(); const top = document.querySelector('header.top').getBoundingClientRect().bottom;
             if (r.top < top || r.bottom > bottom) {{ btn.scrollIntoView({{ block: 'center' }}); return [1, opened]; }} return [0, opened];"
        ));
        // A title tapped to open the action (a tile, a hidden hand): navigation, counted.
        let opened = scrolled[1].as_u64().unwrap_or(0) as usize;
        played.opened += opened;
        played.interactions += opened;
        played.scrolls += scrolled[0].as_u64().unwrap_or(0) as usize;
        let before = b.js("return window.TERCIO_LIVE.seq;").as_u64().unwrap_or(0);
        b.click(&go);
        played.interactions += 1;
        // The rules' questions, in the form, answered as the action file says (no: left out).
        loop {
            let state = b.wait(
                &format!("const l = window.TERCIO_LIVE; if (l.recorded > (window.__recorded || 0)) return 'done'; const q = document.querySelector('.ask'); if (q) return ['ask', q.dataset.field]; const e = document.querySelector('#{id} .field-error'); return e ? ['error', e.textContent] : false;"),
                &format!("{at}: the answer"),
            );
            if state == "done" {
                break;
            }
            assert_eq!(
                state[0],
                "ask",
                "{at}: refused: {state}; the form: {}",
                b.js(&format!("return [...document.getElementById({id:?}).querySelectorAll('[name]')].map(e => [e.name, e.value, e.options ? [...e.options].map(o => o.value + (o.disabled ? '(off)' : '')).join(',') : '']);"))
            );
            let field = state[1].as_str().unwrap_or_default();
            let yes = action[field] == json!(true);
            b.js(&format!(
                "document.querySelector('.ask .{}').click();",
                if yes { "ask-yes" } else { "ask-no" }
            ));
            played.interactions += 1;
        }
        b.result();
        eprintln!(
            "  {at}: {} interactions, {} opened, {} scrolls so far",
            played.interactions, played.opened, played.scrolls
        );
        // The same game: the example's outcome (read in English from the log): the entry this
        // action made, the first after the view it was taken on (steps the page then took by
        // itself come after it).
        let log_now = whole_log();
        let entry = log_now
            .iter()
            .find(|e| e["seq"].as_u64() == Some(before + 1))
            .cloned()
            .unwrap_or_default();
        matched.insert(before + 1);
        // A step the page then took by itself that rolled nothing (a card drawn) keeps this
        // action's outcome in view under it (issue 43, item 5).
        let rolled = |e: &Value| {
            e["event"]["resolution"]["steps"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|st| st["dice"].as_array().is_some_and(|d| !d.is_empty()))
        };
        if let Some(after) = log_now
            .iter()
            .find(|e| e["seq"].as_u64() == Some(before + 2))
            .filter(|a| here == gm && !rolled(a) && rolled(&entry))
            .filter(|_| log_now.len() as u64 == before + 2)
        {
            let shown = b.js("const e = document.getElementById('last-before'); return e ? e.textContent : null;");
            assert!(
                shown.as_str().is_some_and(|t| !t.is_empty()),
                "{at}: the action's outcome hidden by the page's own step {}",
                after["event"]["action"]
            );
        }
        let page = request(&s.addr, "GET", &format!("/s/{gm}"), None).expect("page");
        if page.body.len() > played.largest_page {
            if let Ok(dir) = std::env::var("TERCIO_DUMP_PAGES") {
                let _ = std::fs::write(format!("{dir}/{rules}-{tag}.html"), &page.body);
            }
        }
        played.largest_page = played.largest_page.max(page.body.len());
        played.largest_event = played.largest_event.max(
            b.js("return window.TERCIO_LIVE.largest;")
                .as_u64()
                .unwrap_or(0) as usize,
        );
        // The largest page so far, loaded afresh on the game master's phone: the page and
        // everything it fetches before a tap (what the rules refuse of each choice, the next
        // step's odds), in raw bytes (issue 43, item 10).
        if page.body.len() >= played.largest_page && here == gm {
            b.js("location.reload();");
            b.wait(
                "const l = window.TERCIO_LIVE; return l && l.state === 'live' && !l.busy && l.choices === l.seq && [...document.querySelectorAll('#forms form.action-form .odds')].every(o => o.textContent !== '');",
                &format!("{at}: the page loaded afresh"),
            );
            b.js("window.__recorded = 0;");
            let loaded = b.js("return performance.getEntriesByType('navigation')[0].decodedBodySize + performance.getEntriesByType('resource').filter(e => e.initiatorType === 'fetch').reduce((n, e) => n + e.decodedBodySize, 0);");
            played.largest_load = played
                .largest_load
                .max(loaded.as_u64().unwrap_or(0) as usize);
        }
        let same = recorded.iter().any(|(n, a)| n == name && a == action);
        if let Some(want) = expect["steps"][name]["summary"].as_str().filter(|_| same) {
            assert_eq!(
                entry["event"]["resolution"]["summary"],
                json!(want),
                "{at}: another outcome than the example's"
            );
        }
        // Every die the newest result draws is seen whole, in at most three rows (a row of symbol
        // dice once lost its fourth die under the row's edge, each die with a label of its own).
        let row = b.js("const row = document.querySelector('#last .dice-row'); if (!row) return [0, 0]; const r = row.getBoundingClientRect(); return [[...row.querySelectorAll('.die')].filter(d => d.getBoundingClientRect().bottom > r.bottom + 0.5 || !d.checkVisibility()).length, r.height];");
        assert_eq!(row[0], json!(0), "{at}: dice cut off in the newest result");
        assert!(
            row[1].as_f64().unwrap_or(0.0) <= 150.0,
            "{at}: the newest result's dice take {} px",
            row[1]
        );
        let faces = b.js("const l = document.getElementById('last'); return l ? [...l.querySelectorAll('.die')].map(d => Number(d.firstChild.textContent)) : [];");
        if !shot && faces.as_array().is_some_and(|f| !f.is_empty()) {
            shot = true;
            b.js("window.scrollTo(0, 0);");
            phone_screenshot(b, &format!("phone-{rules}-{tag}-result.png"));
        }
        let seen = b.js(FIRST_SCREEN);
        if let Some(p) = seen[0].as_f64() {
            let bottom = seen[1].as_f64().unwrap_or(0.0);
            if p > bottom {
                let shot =
                    std::env::temp_dir().join(format!("tercio-taps-{rules}-{tag}-{name}.png"));
                b.screenshot(&shot);
                panic!(
                    "{at}: the next step's button ends at {p} px, below {bottom} (see {})",
                    shot.display()
                );
            }
        }
        assert_eq!(seen[2], json!(0), "{at}: a dialog open");
        assert!(b.alert_text().is_none(), "{at}: a browser dialog");
        assert_eq!(seen[3], json!([]), "{at}: in the page's text");
        assert_eq!(seen[4], json!([]), "{at}: tap targets under 44 px");
        assert_eq!(seen[5], json!([]), "{at}: inputs under 16 px");
        // (A refusal the page shows, an odds request answered 422 among them, is logged by the
        // browser as a failed load: not a script error.)
        let errors: Vec<String> = b
            .script_errors()
            .into_iter()
            .filter(|e| !e.contains("Failed to load resource"))
            .collect();
        assert!(errors.is_empty(), "{at}: script errors {errors:?}");
    }
    b.js("window.scrollTo(0, 0);");
    phone_screenshot(b, &format!("phone-{rules}-{tag}-end.png"));
    played
}

/// The issue's measurement (issue 43, "How it is measured"): every rule set's example game
/// (Cerignola, Agincourt, Bicocca, Pavia, Tibbermore) played on an Italian phone (360×740)
/// through taps only, and each again in English on a laptop (1280×800); after every action the next
/// step's button is on the first screen, no dialog, no script error, no marker, `undefined` or
/// `NaN`, every tap target at least 44 px, every input at least 16 px, and the outcome is the
/// example's; at the end a side's and a spectator's page say what they may do and show the
/// newest result. The interactions, scrolls and budget are printed (and written into
/// `docs/performance.md`). It fails on the page before issue 43: its result box is a dialog.
#[test]
fn example_games_are_played_by_taps_on_an_italian_phone_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let mut gm_only = std::collections::HashMap::new();
    // The example games in the issue's order, on an Italian phone, then in English on a laptop.
    let examples = [
        "el-gran-capitan",
        "bloody-dismal-fight",
        "sword-and-flame-renaissance",
        "callan-renaissance",
        "commands-colors-ecw",
    ];
    let screens = [
        (360, 740, "it-IT,it", "it-360"),
        (1280, 800, "en-US,en", "en-1280"),
    ];
    for ((w, h, lang, tag), rules) in screens
        .into_iter()
        .flat_map(|screen| examples.map(|rules| (screen, rules)))
    {
        // (`TERCIO_TAPS=<rule set>` plays that one alone, to look at it.)
        if std::env::var("TERCIO_TAPS").is_ok_and(|t| t != rules) {
            continue;
        }
        let b = Browser::start_sized(w, h, lang);
        let p = play_by_taps(&s, &b, rules, tag, false);
        eprintln!(
            "TAPS {rules} {tag}: {} interactions ({} to open) against a budget of {} over {} actions, {} scrolls; largest page {} bytes ({} with what it fetches before a tap), largest live update {}; not asked: {:?}; not needed: {:?}; taken by the page itself: {:?}",
            p.interactions, p.opened, p.budget, p.actions, p.scrolls, p.largest_page, p.largest_load, p.largest_event, p.unasked, p.not_needed, p.auto
        );
        assert!(p.actions > 0);
        // Every interaction tells the game something only the table knows (issue 43): at most
        // 1 plus the fields of each recorded action. Over before an action's tile was its list
        // of units (a tap to open, then one to choose).
        assert!(
            p.interactions <= p.budget,
            "{rules} {tag}: {} interactions against a budget of {}",
            p.interactions,
            p.budget
        );
        // The largest game master's page, with what it fetches before a tap, at most 40 KB raw
        // (issue 43, item 10): 97–107 KB before the actions other than the next step, their
        // corrections, the log's steps and the notes were fetched when opened.
        assert!(
            p.largest_load <= 40_000 && p.largest_page <= 40_000,
            "{rules} {tag}: {} bytes, {} with what it fetches",
            p.largest_page,
            p.largest_load
        );
        // Every live update at most 4 KB (issue 43, item 10).
        assert!(
            p.largest_event <= 4096,
            "{rules} {tag}: {} bytes",
            p.largest_event
        );
        // At most 60% of the interactions the same script took on the page before issue 43
        // (commit 72170b3, measured by `bench/old-page-taps.py`, Italian phone: its figures are
        // in docs/performance.md); Tibbermore stopped there at its ninth step.
        let before = match rules {
            "el-gran-capitan" => Some(51),
            "bloody-dismal-fight" => Some(46),
            "sword-and-flame-renaissance" => Some(154),
            "callan-renaissance" => Some(104),
            _ => None,
        };
        if let Some(before) = before {
            assert!(
                p.interactions * 10 <= before * 6,
                "{rules} {tag}: {} interactions, more than 60% of the {before} the page took before",
                p.interactions
            );
        }
        gm_only.insert((rules, tag), p.interactions);
        // A side's page and a spectator's, at the end: what each may do, and the newest result
        // without a box (issue 43, item 8).
        let links: Vec<String> = request(
            &s.addr,
            "GET",
            &format!(
                "/api/s/{}/seats",
                b.js("return window.TERCIO_SEAT;")
                    .as_str()
                    .unwrap_or_default()
            ),
            None,
        )
        .expect("seats")
        .json()
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| {
            x["url"]
                .as_str()
                .map(|u| u.rsplit('/').next().unwrap_or_default().to_string())
        })
        .collect();
        let newest = b.js("return document.getElementById('last').dataset.seq;");
        for token in links.iter().skip(1) {
            b.go(&format!("http://{}/s/{token}", s.addr));
            b.wait(
                "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
                "the seat's page",
            );
            let seen = b.js("return [document.getElementById('part').textContent, document.getElementById('last').dataset.seq, document.querySelectorAll('dialog[open]').length, document.querySelectorAll('#forms form.action-form').length];");
            assert_eq!(seen[1], newest, "{rules} {tag}: {seen}");
            assert_eq!(seen[2], json!(0), "{rules} {tag}: {seen}");
            // A seat watches, and has nothing to act on, or (Commands & Colors, whose hands
            // are each side's own) resolves its own units' actions.
            let part = seen[0].as_str().unwrap_or_default();
            let watches = ["Guardi", "You watch"].iter().any(|w| part.starts_with(w));
            let acts = ["Risolvi", "You resolve"]
                .iter()
                .any(|w| part.starts_with(w));
            assert!(watches || acts, "{rules} {tag}: {part}");
            if watches {
                assert_eq!(seen[3], json!(0), "a watching seat acts: {seen}");
            }
        }
    }
    // A side acting where it may needs no more interactions than the game master (issue 43,
    // "How it is measured"): each action taken on the page of the seat offered it, a phone per
    // player (Commands & Colors' sides play their own cards and units; El Gran Capitán's
    // resolve their own units' actions). Going from seat to seat in one tab is what stalled the
    // seventh page here, before a page left closed its live stream.
    for rules in ["el-gran-capitan", "commands-colors-ecw"] {
        let Some(&gm) = gm_only.get(&(rules, "it-360")) else {
            continue;
        };
        let b = Browser::start_sized(360, 740, "it-IT,it");
        let p = play_by_taps(&s, &b, rules, "it-360-seats", true);
        eprintln!(
            "TAPS {rules} it-360, each seat on its own page: {} interactions ({} to open) against {} on the game master's page alone, over {} actions; {} seats of the sides acted; largest live update {}",
            p.interactions, p.opened, gm, p.actions, p.seats_used.len(), p.largest_event
        );
        assert!(
            !p.seats_used.is_empty(),
            "{rules}: no side acted on its own page"
        );
        assert!(
            p.largest_event <= 4096,
            "{rules}: {} bytes",
            p.largest_event
        );
        assert!(
            p.interactions <= gm,
            "{rules}: the sides' pages took {} interactions, the game master's alone {gm}",
            p.interactions
        );
    }
}

/// A tap that cannot reach the server (issue 43, item 7): the page says so at the button, keeps
/// what was entered, and sends it again by itself once the line is back; recorded once. Then an
/// action whose answer is lost on the way (recorded, but the page never hears so): the retry is
/// refused as stale, and the page finds its own entry in the log and shows it as done, not
/// recorded twice.
#[test]
fn a_tap_while_the_line_is_down_is_said_at_the_button_and_sent_once_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let relay = Relay::start(&s.addr);
    let b = Browser::start_sized(360, 740, "en-US,en");
    b.go(&format!("http://{}/s/{}", relay.addr, links[0]));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    b.js("window.__recorded = 0;");
    relay.cut();
    b.wait(
        "return window.TERCIO_LIVE.state === 'lost';",
        "the connection lost",
    );
    b.click(&submit("initiative"));
    let said = b.wait(
        "const p = document.querySelector('#form-f-initiative .field-error'); return p && p.textContent;",
        "the failure at the button",
    );
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("cannot be reached")),
        "{said}"
    );
    assert!(b.alert_text().is_none());
    relay.restore();
    // Sent again by itself (what the page shows, should it not be).
    let t = Instant::now();
    while b.js("return window.TERCIO_LIVE.recorded;") == json!(0) {
        if t.elapsed() > PATIENCE {
            panic!("not sent again: {}", b.js("const l = window.TERCIO_LIVE; const p = document.querySelector('#form-f-initiative .field-error'); const n = document.getElementById('notice'); return [l.state, l.seq, l.error || null, p && p.textContent, n.hidden, n.textContent, !!navigator.serviceWorker.controller];"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let text = b.result();
    assert!(text.contains("has the initiative"), "{text}");
    let events = |token: &str| {
        request(&s.addr, "GET", &format!("/api/s/{token}"), None)
            .expect("view")
            .json()["events"]
            .clone()
    };
    assert_eq!(events(&links[0]), json!(1), "recorded once");
    // The next action's answer is lost on the way: the server records it, the page's request
    // fails.
    b.js("const f = window.fetch; let once = true; window.fetch = async (...a) => { const r = await f(...a); if (once && String(a[0]).endsWith('/actions')) { once = false; throw new TypeError('Failed to fetch'); } return r; };");
    let side_is_french = text.contains("Outcome: French");
    let commander = if side_is_french { "nemours" } else { "gonzalo" };
    b.js(&format!("{SET} set('f-command-leader', '{commander}');"));
    b.click(&submit("command"));
    let t = Instant::now();
    while b.js("return window.TERCIO_LIVE.recorded;") == json!(1) {
        if t.elapsed() > PATIENCE {
            panic!("not found as done: {}", b.js("const l = window.TERCIO_LIVE; const p = document.querySelector('#main .field-error'); const n = document.getElementById('notice'); return [l.state, l.seq, l.error || null, p && p.textContent, n.hidden, n.textContent];"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let said = b.result();
    assert!(said.contains("activation"), "{said}");
    let hint = b.wait(
        "const p = document.querySelector('#main .hint.field-error'); const n = document.getElementById('notice'); return (p && p.textContent) || (!n.hidden && n.textContent);",
        "the entry found, said at the button",
    );
    assert!(
        hint.as_str()
            .is_some_and(|t| t.contains("first answer was lost")),
        "{hint}"
    );
    assert_eq!(events(&links[0]), json!(2), "recorded once, not twice");
}

/// Offline (issue 43, item 9): on localhost (a secure context) the page registers its service
/// worker; with the line down, the seat's page opens from its copy, shows the last known state
/// (the live part as last drawn, the newest result in it), says it is offline and read-only, and
/// refuses a tap at its button; once its link is withdrawn the copy is dropped.
#[test]
fn offline_the_page_shows_the_last_known_state_read_only_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let relay = Relay::start(&s.addr);
    let b = Browser::start_sized(360, 740, "en-US,en");
    let url = format!("http://{}/s/{}", relay.addr, links[0]);
    b.go(&url);
    b.wait(
        "return window.isSecureContext && navigator.serviceWorker.controller !== null;",
        "the service worker in control",
    );
    // Opened again through the worker, which keeps the page.
    b.go(&url);
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{}/actions", links[0]),
        Some(&json!({"action": "initiative"}).to_string()),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    let copy = |b: &Browser| {
        b.js(&format!(
            "window.__copy = undefined; caches.open('tercio-v1').then(c => c.match('/s/{}?part=main')).then(r => r ? r.text() : '').then(t => {{ window.__copy = t; }});",
            links[0]
        ));
        b.wait(
            "return window.__copy !== undefined && [window.__copy];",
            "the copy read",
        )[0]
        .as_str()
        .unwrap_or_default()
        .to_string()
    };
    let t = Instant::now();
    while !copy(&b).contains("data-seq=\"1\"") {
        assert!(t.elapsed() < PATIENCE, "the live part was not kept");
        std::thread::sleep(Duration::from_millis(100));
    }
    relay.cut();
    b.go(&url);
    b.wait(
        "return document.body.classList.contains('offline') && document.getElementById('last') && document.getElementById('last').dataset.seq === '1';",
        "the last known state, offline",
    );
    let notice = b.js("return document.getElementById('notice').textContent;");
    assert!(
        notice.as_str().is_some_and(|n| n.contains("read-only")),
        "{notice}"
    );
    b.click(&submit("command"));
    b.wait(
        "const p = document.querySelector('#form-f-command .field-error'); return p && p.textContent.includes('read-only');",
        "the tap refused at its button",
    );
    // The line back, the link withdrawn: the page learns it, and the copy goes.
    relay.restore();
    let r = request(
        &s.addr,
        "POST",
        &format!("/api/s/{}/seats/reissue", links[0]),
        Some(&json!({"role": "game-master"}).to_string()),
    )
    .expect("reissue");
    assert_eq!(r.status, 200, "{}", r.body);
    b.wait(
        "return window.TERCIO_LIVE.state === 'revoked';",
        "the link withdrawn",
    );
    let t = Instant::now();
    while !copy(&b).is_empty() {
        assert!(t.elapsed() < PATIENCE, "the copy was kept");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The system's dark mode (issue 43, item 9): the game page follows it, dark ground and light
/// ink; and the host's delete is confirmed in the page (no browser dialog): "Keep" keeps the
/// game, the delete button then deletes it.
#[test]
fn dark_mode_and_the_hosts_delete_confirmed_in_the_page_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let b = Browser::start_sized(360, 740, "it-IT,it");
    b.cmd(
        "POST",
        "/goog/cdp/execute",
        json!({"cmd": "Emulation.setEmulatedMedia", "params": {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}}),
    );
    b.go(&format!("http://{}/s/{}", s.addr, links[0]));
    b.wait(
        "return window.TERCIO_LIVE && window.TERCIO_LIVE.state === 'live';",
        "the live connection",
    );
    // The ground's and the ink's lightness (the mean of their channels, 0-255).
    let light = b.js(
        "const l = c => { const m = c.match(/\\d+/g).slice(0, 3).map(Number); return (m[0] + m[1] + m[2]) / 3; };
         const bs = getComputedStyle(document.body); const form = getComputedStyle(document.querySelector('form.action-form'));
         return [l(bs.backgroundColor), l(bs.color), l(form.backgroundColor)];",
    );
    let l = |i: usize| light[i].as_f64().unwrap_or(-1.0);
    assert!(
        l(0) < 60.0 && l(1) > 180.0 && l(2) < 60.0,
        "not dark: {light}"
    );
    phone_screenshot(&b, "phone-dark.png");
    // The host's list: delete asks in the page.
    b.go(&format!("http://{}/?key={}", s.addr, s.key));
    b.wait(
        "return document.querySelector('form[data-confirm] button');",
        "the games list",
    );
    b.click("form[data-confirm] button");
    b.wait(
        "const k = document.querySelector('form[data-confirm] .confirm-no'); if (!k) return false; k.click(); return true;",
        "the delete's confirmation, kept",
    );
    assert!(b.alert_text().is_none(), "a browser dialog");
    assert_eq!(
        b.js("return document.querySelectorAll('form[data-confirm]').length;"),
        json!(1)
    );
    b.click("form[data-confirm] button");
    b.wait(
        "const y = document.querySelector('form[data-confirm] .confirm-yes'); if (!y) return false; y.click(); return true;",
        "the delete's confirmation",
    );
    b.wait(
        "return document.readyState === 'complete' && document.querySelectorAll('form[data-confirm]').length === 0;",
        "the game deleted",
    );
}

//! End-to-end in real headless Chromium (Debian's `chromium` and `chromium-driver`), driven over
//! the WebDriver protocol with the crate's tiny HTTP client. Without Chromium these tests say so
//! loudly and pass; with `TERCIO_REQUIRE_BROWSER=1` (set by `.ci/run`) a missing browser fails.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tercio_web::client::request;

const CHROMIUM: &str = "/usr/bin/chromium";
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

struct Server {
    addr: String,
    _running: tercio_web::Running,
    _dir: tempfile::TempDir,
}

fn server() -> Server {
    let dir = tempfile::tempdir().expect("tmp");
    let store = tercio_store::SqliteStore::open(&dir.path().join("t.db")).expect("db");
    let running = tercio_web::spawn(tercio_web::AppState::new(Arc::new(store))).expect("server");
    Server {
        addr: running.addr.clone(),
        _running: running,
        _dir: dir,
    }
}

/// A chromedriver process and one browser session.
struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
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
    fn start(width: u32) -> Browser {
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
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().expect("profile");
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", format!("--user-data-dir={}", profile.path().display()),
                     format!("--window-size={width},1400")],
            // A phone's viewport, not the desktop minimum window width.
            "mobileEmulation": {"deviceMetrics": {"width": width, "height": 800, "pixelRatio": 2.0}}
        }}}});
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
            if t.elapsed() > Duration::from_secs(20) {
                panic!(
                    "timed out waiting for {what}: {v}; alert: {:?}",
                    self.alert_text()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn alert_text(&self) -> Option<String> {
        let v = self.cmd("GET", "/alert/text", json!(null));
        v.as_str().map(str::to_string)
    }

    fn click(&self, css: &str) {
        let v = self.js(&format!("const e = document.querySelector({css:?}); if (!e) return 'missing'; setTimeout(() => e.click(), 0); return 'ok';"));
        assert_eq!(v, "ok", "click {css}");
    }

    /// Click OK in the result box and wait for the page to reload.
    fn dismiss_result(&self) -> String {
        if let Some(a) = self.alert_text() {
            panic!("unexpected alert instead of a result: {a}");
        }
        let text = self.wait("const d = document.getElementById('result-box'); return d && d.open && document.getElementById('result-text').textContent;", "the result box");
        self.js(
            "window.__before_reload = true; document.querySelector('#result-box button').click();",
        );
        self.wait(
            "return window.__before_reload === undefined && document.readyState === 'complete';",
            "the page to reload",
        );
        text.as_str().unwrap_or_default().to_string()
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

#[test]
fn charge_questions_result_status_and_undo_in_chromium() {
    if !browser_available() {
        return;
    }
    let s = server();
    let b = Browser::start(1000);
    // Create an El Gran Capitán game from a shipped scenario on the home page.
    b.go(&format!("http://{}/", s.addr));
    b.wait(
        "return document.querySelector('select[name=scenario]')",
        "the home page",
    );
    b.js("document.querySelector('select[name=scenario]').value = 'el-gran-capitan/cerignola-1503'; document.querySelector('form[action=\"/games\"]').submit();");
    b.wait(
        "return location.pathname.startsWith('/games/') && document.getElementById('app')",
        "the game page",
    );
    // Initiative, then the army commander of the side that has it takes the command.
    b.click("[data-turn*=initiative]");
    let text = b.dismiss_result();
    assert!(text.contains("has the initiative"), "{text}");
    let side_is_french = text.contains("Outcome: French");
    let commander = if side_is_french { "nemours" } else { "gonzalo" };
    b.js(&format!(
        "document.getElementById('command-leader').value = '{commander}';"
    ));
    b.click("#command");
    let text = b.dismiss_result();
    assert!(text.contains("activation"), "{text}");
    // Gendarmes charge missile troops: the rules ask whether the charge crosses their arc of fire.
    let (actor, target) = if side_is_french {
        ("nemours-company", "spanish-arquebusiers-centre")
    } else {
        ("colonna-men-at-arms", "gascon-crossbowmen")
    };
    b.js(&format!(
        "const set = (id, v) => {{ const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('change')); }};
         set('f-actor', '{actor}'); set('f-action', 'charge'); set('f-target', '{target}'); set('f-ground', 'open');"
    ));
    b.wait("const o = document.getElementById('odds').textContent; return o.includes('Assuming OK to') && o.includes('Exact odds') && o;", "the question announced beside Result");
    b.click("#result");
    let t = Instant::now();
    let question = loop {
        if let Some(q) = b.alert_text() {
            break q;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "no question asked");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(question.contains("arc of fire"), "{question}");
    b.cmd("POST", "/alert/accept", json!({}));
    let text = b.dismiss_result();
    assert!(text.contains("Defensive fire"), "{text}");
    // The state panel shows the change: the charger has acted, and someone is no longer OK.
    let rows = b.js(&format!(
        "const r = id => document.querySelector(`tr[data-unit=\"${{id}}\"]`); return [r('{actor}').textContent, r('{actor}').querySelector('.status').textContent, r('{target}').querySelector('.status').textContent];"
    ));
    assert!(
        rows[0]
            .as_str()
            .is_some_and(|x| x.contains("acted") || x.contains("destroyed")),
        "{rows}"
    );
    assert!(
        rows[1] != "ok" || rows[2] != "ok",
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
    let t = Instant::now();
    while b.alert_text().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "undo asked no confirmation"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    b.cmd("POST", "/alert/accept", json!({}));
    b.wait(
        "return document.querySelector('.log li.voided')",
        "a voided log entry",
    );
    let acted = b.js(&format!(
        "return document.querySelector('tr[data-unit=\"{actor}\"]').textContent.includes('acted');"
    ));
    assert_eq!(acted, false);
    assert!(b.alert_text().is_none());
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
        "name = \"Swiss pikes (first block)\"",
        &format!("name = \"{evil}\""),
    );
    let r = request(
        &s.addr,
        "POST",
        "/api/games",
        Some(&json!({"scenario": toml}).to_string()),
    )
    .expect("create");
    let id = r.json()["id"].as_str().expect("id").to_string();
    let b = Browser::start(360);
    b.go(&format!("http://{}/games/{id}", s.addr));
    b.wait(
        "return document.readyState === 'complete' && document.getElementById('state')",
        "the game page",
    );
    assert!(b.alert_text().is_none(), "a name ran as script");
    let shown = b
        .js("return document.querySelector('tr[data-unit=\"swiss-first-block\"] td').textContent;");
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
    let button = b.js("const r = document.getElementById('result').getBoundingClientRect(); return [r.width, r.height];");
    assert!(
        button[0].as_f64().unwrap_or(0.0) >= 280.0 && button[1].as_f64().unwrap_or(0.0) >= 44.0,
        "Result button too small: {button}"
    );
}

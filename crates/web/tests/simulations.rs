//! The host's "simulate 1,000 battles", against the real server on port 0: a run starts from the
//! host's page, plays at the lowest priority and one at a time, streams its progress, can be
//! cancelled (keeping what it played), and shows what it found; bad input is a 4xx naming the
//! field.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tercio_store::{SqliteStore, Store};
use tercio_web::client::{request_with, Reply};
use tercio_web::simulations::Status;
use tercio_web::AppState;

struct Host {
    st: Arc<AppState>,
    addr: String,
    auth: String,
    _running: tercio_web::Running,
    _dir: tempfile::TempDir,
}

fn host() -> Host {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).expect("db"));
    let key = store.host_key().expect("key");
    let st = AppState::new(store);
    let running = tercio_web::spawn(st.clone()).expect("server");
    Host {
        st,
        addr: running.addr.clone(),
        auth: format!("Bearer {key}"),
        _running: running,
        _dir: dir,
    }
}

impl Host {
    fn send(&self, method: &str, path: &str, body: Option<&str>) -> Reply {
        let headers = [
            ("Authorization", self.auth.as_str()),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ];
        let r = request_with(&self.addr, method, path, &headers, body).expect("request");
        assert!(r.status < 500, "{method} {path} -> {} {}", r.status, r.body);
        r
    }

    /// Start a run of a shipped scenario; its id.
    fn start(&self, scenario: &str) -> String {
        let r = self.send(
            "POST",
            "/simulations",
            Some(&format!("scenario={}", scenario.replace('/', "%2F"))),
        );
        assert_eq!(r.status, 303, "{}", r.body);
        let to = r.headers("location")[0].to_string();
        let id = to
            .strip_prefix("/simulations/")
            .and_then(|t| t.split('?').next())
            .expect("the run's page")
            .to_string();
        assert!(to.ends_with("?lang=en"), "{to}");
        id
    }
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let t = Instant::now();
    while !ok() {
        assert!(
            t.elapsed() < Duration::from_secs(300),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_run_streams_its_progress_and_shows_what_it_found() {
    let h = host();
    let home = h.send("GET", "/", None);
    assert!(home.body.contains("id=\"simulate\""), "{}", home.body);
    assert!(
        home.body
            .contains("<option value=\"bloody-dismal-fight/agincourt-1415\">Agincourt</option>"),
        "{}",
        home.body
    );
    // Every rule set plays itself: the card games' scenarios are offered too.
    assert!(home
        .body
        .contains("<option value=\"commands-colors-ecw/edgehill-1642\">Edgehill</option>"));
    let id = h.start("bloody-dismal-fight/agincourt-1415");
    let job = h.st.simulations.get(&id).expect("the run");
    // The stream: progress as battles are played, then done (it ends with the run).
    let events = h.send("GET", &format!("/simulations/{id}/events"), None);
    assert_eq!(events.status, 200);
    assert!(
        events.body.contains("event: done\ndata: 1000"),
        "{}",
        events.body
    );
    assert_eq!(job.status(), Status::Done);
    // It ran at the lowest priority there is: Linux's SCHED_IDLE (policy 5).
    let priority = *job.priority.lock().expect("priority");
    assert!(
        matches!(priority, Some((5, _)) | Some((_, 19))),
        "{priority:?}"
    );
    let page = h.send("GET", &format!("/simulations/{id}"), None);
    assert_eq!(page.status, 200);
    for part in [
        "id=\"sim-results\"",
        "id=\"sim-losses\"",
        "id=\"sim-troops\"",
    ] {
        assert!(page.body.contains(part), "{part}: {}", page.body);
    }
    assert!(!page.body.contains("sim-progress"), "over: no progress bar");
    assert!(
        page.body.contains("1000 battles of A Bloody Dismal Fight"),
        "{}",
        page.body
    );
}

#[test]
fn runs_go_one_at_a_time_and_a_cancelled_one_keeps_its_battles() {
    let h = host();
    let first = h.start("el-gran-capitan/cerignola-1503");
    let second = h.start("el-gran-capitan/pavia-1525");
    let (a, b) = (
        h.st.simulations.get(&first).expect("first"),
        h.st.simulations.get(&second).expect("second"),
    );
    wait_for("the first run's battles", || a.done() >= 5);
    // While the first plays, the second waits: at most one core.
    assert!(a.done() < a.total, "the first ended too soon to tell");
    assert_eq!(b.status(), Status::Waiting);
    assert_eq!(b.done(), 0);
    let page = h.send("GET", &format!("/simulations/{second}"), None);
    assert!(
        page.body.contains("Waiting for the run before it"),
        "{}",
        page.body
    );
    // Cancel the first while it plays: what it played is kept and shown.
    let page = h.send("GET", &format!("/simulations/{first}"), None);
    assert!(page.body.contains("id=\"sim-progress\""), "{}", page.body);
    assert!(page
        .body
        .contains(&format!("data-events=\"/simulations/{first}/events\"")));
    let r = h.send("POST", &format!("/simulations/{first}/cancel"), None);
    assert_eq!(r.status, 303);
    wait_for("the first to stop", || {
        matches!(a.status(), Status::Cancelled(_))
    });
    let Status::Cancelled(n) = a.status() else {
        unreachable!()
    };
    assert!((5..1000).contains(&n), "{n}");
    let page = h.send("GET", &format!("/simulations/{first}"), None);
    assert!(
        page.body.contains(&format!("Cancelled after {n} battles")),
        "{}",
        page.body
    );
    assert!(page.body.contains("id=\"sim-results\""));
    // Then the second plays; cancel it too.
    wait_for("the second to start", || b.done() >= 1);
    h.send("POST", &format!("/simulations/{second}/cancel"), None);
    wait_for("the second to stop", || {
        matches!(b.status(), Status::Cancelled(_))
    });
}

#[test]
fn bad_runs_are_refused_by_name() {
    let h = host();
    let r = h.send("POST", "/simulations", Some("scenario=no%2Fsuch"));
    assert_eq!(r.status, 400);
    assert!(
        r.body.contains("scenario: no shipped scenario"),
        "{}",
        r.body
    );
    let r = h.send("POST", "/simulations", Some("scenario="));
    assert_eq!(r.status, 400);
    assert!(r.body.contains("scenario"), "{}", r.body);
    assert_eq!(h.send("GET", "/simulations/nope", None).status, 404);
    assert_eq!(h.send("GET", "/simulations/nope/events", None).status, 404);
    // Not the host: no runs.
    let r = request_with(
        &h.addr,
        "POST",
        "/simulations",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some("scenario=bloody-dismal-fight%2Fagincourt-1415"),
    )
    .expect("request");
    assert!(
        r.status == 401 || r.status == 403,
        "{} {}",
        r.status,
        r.body
    );
}

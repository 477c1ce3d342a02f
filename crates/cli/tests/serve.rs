//! `tercio serve` as a separate process: every acknowledged action survives SIGKILL, and
//! connections that send nothing, or send slowly, neither starve it nor stay open.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::json;
use tercio_web::client::request;

/// Start `tercio serve` on a database file.
fn start(db: &std::path::Path, new_db: bool) -> (Child, String, String, Option<String>) {
    let db = db.display().to_string();
    common::serve(&["--db", &db], &[], new_db)
}

/// The army commander of the side holding the initiative in the demo game (Cerignola).
fn commander(state: &serde_json::Value) -> &'static str {
    match state["initiative_side"].as_str().expect("side") {
        "french" => "nemours",
        _ => "gonzalo",
    }
}

#[test]
fn acknowledged_actions_survive_a_kill() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("data/tercio.db");
    let (mut child, addr, _, demo) = start(&db, true);
    let id = demo.expect("a demo game on a new database");
    assert_eq!(
        request(&addr, "GET", "/healthz", None)
            .expect("health")
            .status,
        200
    );
    let mut acknowledged = Vec::new();
    let r = request(
        &addr,
        "POST",
        &format!("/api/s/{id}/actions"),
        Some(&json!({"action": "initiative"}).to_string()),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    acknowledged.push(r.json()["seq"].as_u64().expect("seq"));
    // The answer carries what changed; the whole state is the seat's view.
    let state = |addr: &str| {
        request(addr, "GET", &format!("/api/s/{id}"), None)
            .expect("view")
            .json()["state"]
            .clone()
    };
    let side = state(&addr)["initiative_side"]
        .as_str()
        .expect("side")
        .to_string();
    let leader = commander(&state(&addr));
    let r = request(
        &addr,
        "POST",
        &format!("/api/s/{id}/actions"),
        Some(&json!({"action": "command", "leader": leader}).to_string()),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    acknowledged.push(r.json()["seq"].as_u64().expect("seq"));
    let units: Vec<String> = state(&addr)["units"]
        .as_object()
        .expect("units")
        .values()
        .filter(|u| u["side"] == side.as_str())
        .map(|u| u["id"].as_str().unwrap_or_default().to_string())
        .collect();
    for u in units.iter().take(2) {
        let r = request(
            &addr,
            "POST",
            &format!("/api/s/{id}/actions"),
            Some(&json!({"action": "regroup", "actor": u}).to_string()),
        )
        .expect("act");
        if r.status == 200 {
            acknowledged.push(r.json()["seq"].as_u64().expect("seq"));
        }
    }
    let r = request(&addr, "POST", &format!("/api/s/{id}/undo"), Some("")).expect("undo");
    assert_eq!(r.status, 200, "{}", r.body);
    // SIGKILL right after the last acknowledgement.
    child.kill().expect("kill");
    child.wait().expect("wait");

    let (mut child, addr, key, _) = start(&db, false);
    let games = common::games(&addr, &key);
    assert_eq!(
        games.as_array().map(Vec::len),
        Some(1),
        "no second demo game on an existing database"
    );
    let log = request(&addr, "GET", &format!("/api/s/{id}/log"), None)
        .expect("log")
        .json();
    let seqs: Vec<u64> = log["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .collect();
    for s in &acknowledged {
        assert!(seqs.contains(s), "acknowledged event {s} lost: {seqs:?}");
    }
    assert_eq!(
        seqs.len(),
        acknowledged.len() + 1,
        "the undo's void is there too"
    );
    assert_eq!(
        log["entries"]
            .as_array()
            .map(|e| e.iter().filter(|x| x["voided"] == true).count()),
        Some(1)
    );
    child.kill().expect("kill");
    child.wait().expect("wait");
}

fn tercio(args: &[&str]) -> std::process::Output {
    // The output's language is pinned: the machine's own LANG must not change what is read.
    Command::new(env!("CARGO_BIN_EXE_tercio"))
        .env("TERCIO_LANG", "en")
        .args(args)
        .output()
        .expect("run tercio")
}

/// A game played through the app, exported from a player's link, checked with `tercio verify`:
/// before the end the seed is not there; after, every roll verifies; one altered face is caught.
#[test]
fn an_exported_game_verifies_and_an_altered_roll_is_caught() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("tercio.db");
    let (mut child, addr, _, demo) = start(&db, true);
    let gm = demo.expect("demo game");
    let post = |path: &str, body: &str| {
        let r = request(&addr, "POST", &format!("/api/s/{gm}/{path}"), Some(body)).expect("post");
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        r.json()
    };
    post("actions", r#"{"action":"initiative"}"#);
    let view = request(&addr, "GET", &format!("/api/s/{gm}"), None).expect("view");
    let leader = commander(&view.json()["state"]);
    let r = request(
        &addr,
        "POST",
        &format!("/api/s/{gm}/actions"),
        Some(&format!(r#"{{"action":"command","leader":"{leader}"}}"#)),
    )
    .expect("post");
    assert!(r.status == 200 || r.status == 422, "{}", r.body);
    post("undo", "");
    let seats = request(&addr, "GET", &format!("/api/s/{gm}/seats"), None)
        .expect("seats")
        .json();
    let spectator = seats
        .as_array()
        .and_then(|s| s.last())
        .and_then(|s| s["url"].as_str())
        .and_then(|u| u.rsplit('/').next())
        .expect("spectator")
        .to_string();
    let export = |name: &str| {
        let r = request(&addr, "GET", &format!("/api/s/{spectator}/export"), None).expect("export");
        assert_eq!(r.status, 200);
        let p = dir.path().join(name);
        std::fs::write(&p, &r.body).expect("write");
        p
    };
    let early = export("early.json");
    let o = tercio(&["verify", early.to_str().unwrap_or_default()]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("not revealed yet"));
    // A report needs no seed: made before the end, it says the seed comes later.
    let o = tercio(&["report", early.to_str().unwrap_or_default()]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("The seed is revealed when the game ends."));
    // A fingerprint the pages showed mid-game, noted by a player.
    let view = request(&addr, "GET", &format!("/api/s/{spectator}"), None)
        .expect("view")
        .json();
    let noted = view["chain"]
        .as_str()
        .expect("every seat sees the keyed fingerprint")
        .to_string();
    let shown_commitment = view["dice"]["commitment"]
        .as_str()
        .expect("commitment")
        .to_string();
    post("conclude", "");
    let done = export("done.json");
    let o = tercio(&["verify", done.to_str().unwrap_or_default()]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("commitment ok") && out.contains("verified"),
        "{out}"
    );
    // One altered face.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&done).expect("read")).expect("json");
    let f = v["log"][0]["event"]["draws"][0]["face"]
        .as_u64()
        .expect("face");
    v["log"][0]["event"]["draws"][0]["face"] = json!(f % 6 + 1);
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, v.to_string()).expect("write");
    let o = tercio(&["verify", bad.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("FAILED: event 1"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A seed that does not match the published commitment.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&done).expect("read")).expect("json");
    let seed = v["dice"]["seed"].as_u64().expect("seed");
    v["dice"]["seed"] = json!(seed ^ 1);
    std::fs::write(&bad, v.to_string()).expect("write");
    let o = tercio(&["verify", bad.to_str().unwrap_or_default()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not the published commitment"));
    // Who acted, changed: the dice still verify, the log's fingerprint does not.
    let read = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&done).expect("read")).expect("json")
    };
    let fails_the_chain = |v: &serde_json::Value| {
        std::fs::write(&bad, v.to_string()).expect("write");
        let o = tercio(&["verify", bad.to_str().unwrap_or_default()]);
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(e.contains("FAILED: the log's fingerprint is"), "{e}");
    };
    let mut v = read();
    assert_eq!(v["format"], "tercio-export/3");
    assert_eq!(v["chain_version"], 2);
    assert_eq!(
        v["chain"], v["dice"]["chain"],
        "the head is published with the seed"
    );
    v["log"][0]["event"]["by"] = json!("side:someone-else");
    fails_the_chain(&v);
    // An undo removed with the event it voided, the rest renumbered.
    let mut v = read();
    let log = v["log"].as_array().cloned().expect("log");
    let void = log.iter().find(|e| e["entry"] == "void").expect("the undo");
    let voided = void["voids"].clone();
    let mut kept: Vec<serde_json::Value> = log
        .iter()
        .filter(|e| e["entry"] != "void" && e["seq"] != voided)
        .cloned()
        .collect();
    for (i, e) in kept.iter_mut().enumerate() {
        e["seq"] = json!(i + 1);
    }
    v["log"] = json!(kept);
    fails_the_chain(&v);
    // An export made before the chain was exported verifies only when asked to, and says what
    // it could not check.
    let mut v = read();
    v["format"] = json!("tercio-export/1");
    v.as_object_mut().expect("object").remove("chain");
    v.as_object_mut().expect("object").remove("chain_version");
    std::fs::write(&bad, v.to_string()).expect("write");
    let o = tercio(&["verify", bad.to_str().unwrap_or_default()]);
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("tercio-export/1") && e.contains("--without-fingerprint"),
        "{e}"
    );
    // A downgraded export of a game sealed with chain version 2 fails at its commitment even
    // then: version 1 does not bind its identity, and this commitment does.
    let o = tercio(&[
        "verify",
        "--without-fingerprint",
        bad.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    // The whole verification, held to what a player noted.
    let done_path = done.to_str().unwrap_or_default();
    let o = tercio(&[
        "verify",
        "--commitment",
        &shown_commitment,
        "--fingerprint",
        &noted,
        done_path,
    ]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("it is the one you gave"), "{out}");
    assert!(out.contains("fingerprint ok: the one you gave"), "{out}");
    assert!(
        out.contains("not checked: who the export was downloaded by"),
        "{out}"
    );
    assert!(!out.contains("not checked: that this is the log"), "{out}");
    let o = tercio(&["verify", done_path]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.contains("not checked: that this commitment is the one published")
            && out.contains("not checked: that this is the log the game's pages showed"),
        "{out}"
    );
    // Each edit of a concluded export fails, naming what is wrong.
    let fails = |v: &serde_json::Value, args: &[&str], says: &str| {
        std::fs::write(&bad, v.to_string()).expect("write");
        let mut all = vec!["verify"];
        all.extend_from_slice(args);
        all.push(bad.to_str().unwrap_or_default());
        let o = tercio(&all);
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(1), "{says}: {e}");
        assert!(e.contains(says), "{says}: {e}");
    };
    let edited = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = read();
        f(&mut v);
        v
    };
    fails(
        &edited(&|v| v["rules_version"] = json!(999)),
        &[],
        "rules_version: 999 is not a version",
    );
    fails(
        &edited(&|v| v["rules_version"] = json!(0)),
        &[],
        "rules_version: 0 is not a version",
    );
    fails(
        &edited(&|v| v["rule_set"] = json!("bloody-dismal-fight")),
        &[],
        "but the scenario is for",
    );
    fails(
        &edited(&|v| v["game_id"] = json!("0123456789abcdef")),
        &[],
        "not the published commitment",
    );
    fails(
        &edited(&|v| {
            v.as_object_mut().expect("object").remove("game_id");
        }),
        &[],
        "game_id: missing",
    );
    fails(
        &edited(&|v| v["scenario"]["title"] = json!("Another battle")),
        &[],
        "not the published commitment",
    );
    fails(
        &edited(&|v| v["dice"]["chain"] = json!("00")),
        &[],
        "published with the seed (dice.chain)",
    );
    fails(
        &edited(&|v| v["chain_version"] = json!(7)),
        &[],
        "chain version 7",
    );
    fails(
        &edited(&|v| v["format"] = json!("tercio-export/9")),
        &[],
        "not an export format",
    );
    let first_event = |v: &serde_json::Value| {
        v["log"]
            .as_array()
            .and_then(|l| l.iter().position(|e| e["entry"] == "event"))
            .expect("an event")
    };
    fails(
        &edited(&|v| {
            let i = first_event(v);
            let flag = v["log"][i]["voided"] == true;
            v["log"][i]["voided"] = json!(!flag);
        }),
        &[],
        ".voided is",
    );
    // A new nonce with its commitment recomputed passes the export's own commitment, but not
    // the one the player saw.
    let v = edited(&|v| {
        v["dice"]["nonce"] = json!("00000000000000000000000000000000");
        v["dice"]["commitment"] = json!("f".repeat(64));
    });
    fails(
        &v,
        &["--commitment", &shown_commitment],
        "not the published commitment",
    );
    fails(
        &read(),
        &["--commitment", &"e".repeat(64)],
        "the commitment you gave",
    );
    fails(
        &read(),
        &["--fingerprint", &"d".repeat(64)],
        "the fingerprint you gave",
    );
    // Who the export was made for binds nothing, and verify says so rather than fail.
    let v = edited(&|v| v["exported_for"] = json!("game-master"));
    std::fs::write(&bad, v.to_string()).expect("write");
    let o = tercio(&["verify", bad.to_str().unwrap_or_default()]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success());
    assert!(
        out.contains("not checked: who the export was downloaded by (exported_for: game-master)"),
        "{out}"
    );
    // The battle report of the same export.
    let o = tercio(&["report", done.to_str().unwrap_or_default()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("## Break points, turn by turn"));
    child.kill().expect("kill");
    child.wait().expect("wait");
}

/// Raise this process's soft open-files limit to `need` if it is lower and the hard limit
/// allows (no unsafe code: `rustix`), and check it is enough: the test holds that many sockets.
#[cfg(unix)]
fn enough_descriptors(need: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let l = getrlimit(Resource::Nofile);
    if l.current.is_some_and(|c| c < need) {
        let current = Some(l.maximum.map_or(need, |m| m.min(need)));
        let _ = setrlimit(
            Resource::Nofile,
            Rlimit {
                current,
                maximum: l.maximum,
            },
        );
    }
    let now = getrlimit(Resource::Nofile).current;
    assert!(
        now.is_none_or(|c| c >= need),
        "this test holds {need} sockets; its open-files limit is {now:?} (hard limit {:?})",
        l.maximum
    );
}

/// `GET /healthz` on a connection of its own: its status, or `None` if no answer came within
/// `wait`.
fn health(addr: &str, wait: Duration) -> Option<u16> {
    let to = addr.parse().ok()?;
    let mut s = TcpStream::connect_timeout(&to, wait).ok()?;
    s.set_read_timeout(Some(wait)).ok()?;
    write!(
        s,
        "GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(2).any(|w| w == b"\r\n") {
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&head)
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
}

/// A connection of the attack, as the client sees it.
struct Held {
    s: TcpStream,
    /// What it is, for the messages.
    kind: &'static str,
    /// When its first byte went out (a slow one), and the timeout that should close it: never
    /// before that much time has passed since.
    slow: Option<(Instant, Duration)>,
    /// When the client saw the server close it.
    closed: Option<Instant>,
}

impl Held {
    /// Whether the server has closed it (end of stream or reset); trickles one more byte of a
    /// slow one when `trickle`.
    fn check(&mut self, trickle: bool) {
        if self.closed.is_some() {
            return;
        }
        let mut buf = [0u8; 512];
        let gone = loop {
            match self.s.read(&mut buf) {
                Ok(0) => break true,
                // Whatever the server sends before closing is read and passed over.
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break false,
                Err(_) => break true,
            }
        };
        let gone = gone
            || (trickle
                && self.slow.is_some()
                && matches!(self.s.write(b"a"), Err(e) if e.kind() != std::io::ErrorKind::WouldBlock));
        if gone {
            self.closed = Some(Instant::now());
        }
    }
}

/// The issue "No timeouts on connections": under systemd's default open-files limit (1,024),
/// 1,100 idle connections and 100 slow ones (headers trickled a byte at a time, bodies shorter
/// than their Content-Length, trickled too) from anyone on the network, with no key. The server
/// still answers `/healthz` within a second, and closes every one of those connections itself;
/// the slow ones not before their timeout. Before the server bounded its connections, the
/// accepted ones used up its descriptors and `/healthz` waited, unanswered, in the listen queue.
#[cfg(unix)]
#[test]
fn idle_and_slow_connections_neither_starve_the_server_nor_stay_open() {
    const IDLE: usize = 1_100;
    const SLOW: usize = 100;
    // Short timeouts, so the test runs fast (the defaults are 10 s, 30 s, 75 s).
    const HEADERS: Duration = Duration::from_secs(3);
    const BODY: Duration = Duration::from_secs(3);
    enough_descriptors((IDLE + SLOW + 100) as u64);
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("tercio.db").display().to_string();
    let (child, addr, _, _) = common::serve_with_nofile(
        1024,
        &["--db", &db],
        &[
            ("TERCIO_HEADER_TIMEOUT", "3"),
            ("TERCIO_BODY_TIMEOUT", "3"),
            ("TERCIO_IDLE_TIMEOUT", "3"),
        ],
        true,
    );
    let _server = Killed(child);
    assert_eq!(health(&addr, Duration::from_secs(10)), Some(200));

    // A connection the server's listen queue has no room for is counted, not waited for.
    let sockaddr: std::net::SocketAddr = addr.parse().expect("address");
    let connect = || TcpStream::connect_timeout(&sockaddr, Duration::from_secs(2)).ok();
    let mut unqueued = 0;
    let mut held: Vec<Held> = Vec::with_capacity(IDLE + SLOW);
    for _ in 0..IDLE {
        let Some(s) = connect() else {
            unqueued += 1;
            continue;
        };
        held.push(Held {
            s,
            kind: "idle",
            slow: None,
            closed: None,
        });
    }
    for i in 0..SLOW {
        let Some(mut s) = connect() else {
            unqueued += 1;
            continue;
        };
        let start = Instant::now();
        let (kind, timeout) = if i % 2 == 0 {
            // Headers, never finished: one more byte of a header's value at each check.
            let head = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ");
            s.write_all(head.as_bytes()).expect("write");
            ("partial headers", HEADERS)
        } else {
            // A body shorter than its length, read by the handler's extractor.
            let head = format!(
                "POST /api/s/no-such-link/actions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"action\": \""
            );
            s.write_all(head.as_bytes()).expect("write");
            ("short body", BODY)
        };
        held.push(Held {
            s,
            kind,
            slow: Some((start, timeout)),
            closed: None,
        });
    }

    let asked = Instant::now();
    let answer = health(&addr, Duration::from_secs(10));
    let took = asked.elapsed();
    eprintln!(
        "GET /healthz with {IDLE} idle and {SLOW} slow connections opened ({unqueued} of them never connected): {answer:?} after {took:?}"
    );
    assert!(
        answer == Some(200) && took < Duration::from_secs(1),
        "/healthz under the attack: {answer:?} after {took:?} ({unqueued} connections of the attack never connected)"
    );
    assert_eq!(unqueued, 0, "connections of the attack never connected");

    // Every connection of the attack is closed by the server; the slow ones are trickled on
    // until then. Checked every 50 ms, for at most a minute.
    for h in &mut held {
        h.s.set_nonblocking(true).expect("nonblocking");
        h.check(false);
    }
    eprintln!(
        "closed by the server when /healthz had answered: {} (the bound under `ulimit -n 1024` is {})",
        held.iter().filter(|h| h.closed.is_some()).count(),
        tercio_web::conn::connections_for(Some(1024))
    );
    let waited = Instant::now();
    let mut last_trickle = Instant::now();
    loop {
        let trickle = last_trickle.elapsed() >= Duration::from_millis(250);
        if trickle {
            last_trickle = Instant::now();
        }
        for h in &mut held {
            h.check(trickle);
        }
        let open = held.iter().filter(|h| h.closed.is_none()).count();
        if open == 0 {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "{open} connections still open a minute after the attack, of which {} slow",
            held.iter()
                .filter(|h| h.closed.is_none() && h.slow.is_some())
                .count()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!(
        "every connection of the attack closed by the server {:?} after /healthz answered",
        waited.elapsed()
    );
    for h in &held {
        if let (Some((start, timeout)), Some(closed)) = (h.slow, h.closed) {
            let after = closed.duration_since(start);
            assert!(
                after >= timeout,
                "a connection with {} was closed {after:?} after its first byte, before its timeout ({timeout:?})",
                h.kind
            );
        }
    }
    assert_eq!(health(&addr, Duration::from_secs(10)), Some(200));
}

/// A server process, killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

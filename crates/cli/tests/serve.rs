//! `tercio serve` as a separate process: every acknowledged action survives SIGKILL.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::json;
use tercio_web::client::request;

fn start(db: &std::path::Path, new_db: bool) -> (Child, String, Option<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tercio"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tercio serve");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let first = lines.next().and_then(Result::ok).expect("serving line");
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|x| x.split('/').next())
        .expect("address")
        .to_string();
    // The demo line is printed only for a new database.
    let demo = if new_db {
        lines
            .next()
            .and_then(Result::ok)
            .and_then(|l| l.split("/games/").nth(1).map(str::to_string))
    } else {
        None
    };
    (child, addr, demo)
}

#[test]
fn acknowledged_actions_survive_a_kill() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("data/tercio.db");
    let (mut child, addr, demo) = start(&db, true);
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
        &format!("/api/games/{id}/actions"),
        Some(&json!({"action": "initiative"}).to_string()),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    acknowledged.push(r.json()["seq"].as_u64().expect("seq"));
    let side = r.json()["state"]["initiative_side"]
        .as_str()
        .expect("side")
        .to_string();
    let leader = if side == "french" {
        "nemours"
    } else {
        "gonzalo"
    };
    let r = request(
        &addr,
        "POST",
        &format!("/api/games/{id}/actions"),
        Some(&json!({"action": "command", "leader": leader}).to_string()),
    )
    .expect("act");
    assert_eq!(r.status, 200, "{}", r.body);
    acknowledged.push(r.json()["seq"].as_u64().expect("seq"));
    let units: Vec<String> = r.json()["state"]["units"]
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
            &format!("/api/games/{id}/actions"),
            Some(&json!({"action": "regroup", "actor": u}).to_string()),
        )
        .expect("act");
        if r.status == 200 {
            acknowledged.push(r.json()["seq"].as_u64().expect("seq"));
        }
    }
    let r = request(&addr, "POST", &format!("/api/games/{id}/undo"), Some("")).expect("undo");
    assert_eq!(r.status, 200, "{}", r.body);
    // SIGKILL right after the last acknowledgement.
    child.kill().expect("kill");
    child.wait().expect("wait");

    let (mut child, addr, _) = start(&db, false);
    let games = request(&addr, "GET", "/api/games", None)
        .expect("games")
        .json();
    assert_eq!(
        games.as_array().map(Vec::len),
        Some(1),
        "no second demo game on an existing database"
    );
    let log = request(&addr, "GET", &format!("/api/games/{id}/log"), None)
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
    assert_eq!(log["voided"].as_array().map(Vec::len), Some(1));
    child.kill().expect("kill");
    child.wait().expect("wait");
}

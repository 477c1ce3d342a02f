//! Events, not documents: an action's answer carries its entry and what changed in the seat's
//! view (small, and enough to bring the old view up to date), the seat's view answers 304 while
//! nothing it shows has changed, a change written to the database by another server is seen, and
//! games evicted from memory come back from the store as they were.

mod common;

/// A state as a view gives it: its messages rendered in the answer's language (English here), the
/// scenario's names among them, which a shipped scenario gives in both languages.
fn rendered(state: &serde_json::Value) -> serde_json::Value {
    let mut v = state.clone();
    tercio_i18n::localize_json(tercio_i18n::Lang::En, &mut v);
    v
}

use std::sync::Arc;

use serde_json::{json, Value};
use tercio_rules::game::Head;
use tercio_store::{Row, SqliteStore, Store};
use tercio_web::client::request_with;

const CHARGE: &str = r#"{"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"}"#;

fn setup(s: &common::Server) -> String {
    let g = s.create(&json!({"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}));
    let gm = common::token(&g["links"][0]["url"]);
    for a in [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"}),
    ] {
        let r = s.request(
            "POST",
            &format!("/api/s/{gm}/actions"),
            &[],
            Some(&a.to_string()),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    gm
}

fn view(s: &common::Server, token: &str) -> (Value, String) {
    let r = s.request("GET", &format!("/api/s/{token}"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    let etag = r.headers("etag").first().expect("an etag").to_string();
    (r.json(), etag)
}

/// A second server on the same database (here: a second store on the same file) charges in
/// the game of the game master's link `gm`: the game's id, that store, and its head after.
fn charge_elsewhere(s: &common::Server, gm: &str) -> (String, SqliteStore, Head) {
    let (v, _) = view(s, gm);
    let game_id = v["game_id"].as_str().expect("game id").to_string();
    let other = SqliteStore::open(&s.path).expect("second store");
    let mut head: Head = other.live(&game_id).expect("live").expect("game").head;
    let engine = head.engine().expect("engine");
    let a = head
        .act(
            engine.as_ref(),
            serde_json::from_str(CHARGE).expect("json"),
            None,
            Some("game-master".into()),
            false,
        )
        .expect("charge");
    other
        .append(&game_id, Row::of(&a, &head).expect("row"))
        .expect("append");
    (game_id, other, head)
}

/// `changed` applied to the view the action was taken on gives the view after it.
fn brings_up_to_date(before: &Value, answer: &Value, after: &Value) {
    let mut state = before["state"].clone();
    tercio_rules::effects::apply(&mut state, &answer["changed"]).expect("apply");
    assert_eq!(&state, &after["state"], "changed: {}", answer["changed"]);
    assert_eq!(answer["events"], after["events"]);
    assert_eq!(answer["chain"], after["chain"]);
}

#[test]
fn answers_carry_what_changed_and_views_answer_304() {
    let s = common::server();
    let gm = setup(&s);
    let links = s.create(&json!({"scenario": "el-gran-capitan/cerignola-1503"}));
    assert!(links["events"] == 0);
    let (before, etag) = view(&s, &gm);
    // Nothing changed: 304, no body.
    let r = s.request(
        "GET",
        &format!("/api/s/{gm}"),
        &[("If-None-Match", &etag)],
        None,
    );
    assert_eq!((r.status, r.body.as_str()), (304, ""));
    // A charge: the answer is its entry and what changed, at most 2 KB, never the state.
    let r = s.request("POST", &format!("/api/s/{gm}/actions"), &[], Some(CHARGE));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body.len() <= 2048,
        "a charge's answer is {} bytes: {}",
        r.body.len(),
        r.body
    );
    let answer = r.json();
    assert!(answer.get("state").is_none());
    assert!(!answer["draws"].as_array().expect("draws").is_empty());
    assert_eq!(answer["seq"], 4);
    assert_eq!(answer["by"], "game-master");
    let (after, etag2) = view(&s, &gm);
    assert_ne!(etag, etag2);
    brings_up_to_date(&before, &answer, &after);
    let r = s.request(
        "GET",
        &format!("/api/s/{gm}"),
        &[("If-None-Match", &etag)],
        None,
    );
    assert_eq!(r.status, 200, "an old etag gets the new view");
    // The undo's answer the same way.
    let r = s.request("POST", &format!("/api/s/{gm}/undo"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    let undo = r.json();
    assert_eq!(undo["voided"], 4);
    let (undone, _) = view(&s, &gm);
    brings_up_to_date(&after, &undo, &undone);
    assert_eq!(
        undone["state"], before["state"],
        "the undo restores the state"
    );
    // A settings change moves the etag on though the log did not grow.
    let (_, etag3) = view(&s, &gm);
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/settings"),
        &[],
        Some(r#"{"physical_dice": true}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = s.request(
        "GET",
        &format!("/api/s/{gm}"),
        &[("If-None-Match", &etag3)],
        None,
    );
    assert_eq!(r.status, 200, "settings are part of the version");
    assert_eq!(r.json()["settings"]["physical_dice"], true);
}

/// A second server on the same database (here: a second store on the same file) appends an
/// entry; the first server's next answer shows it, and its next action follows it.
#[test]
fn a_change_made_by_another_process_is_seen() {
    let s = common::server();
    let gm = setup(&s);
    let (game_id, other, head) = charge_elsewhere(&s, &gm);
    let (v, _) = view(&s, &gm);
    assert_eq!(v["events"], 4);
    assert_eq!(v["state"], rendered(&head.state));
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/undo"),
        &[("If-Match", "\"4\"")],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["voided"], 4);
    let g = other.load(&game_id).expect("load").expect("game");
    assert_eq!(g.log.entries().len(), 5);
    assert_eq!(g.replay(), Ok(4));
}

/// An undo made on the game in memory, on the async thread, while another process has appended
/// an entry this server has not seen: the store refuses the append (its number is taken), and
/// the undo runs again on the game as stored, voiding the other process's entry.
#[test]
fn a_change_in_memory_behind_the_store_is_refused_at_its_append_and_made_again() {
    let s = common::server();
    let gm = setup(&s);
    let (game_id, other, _) = charge_elsewhere(&s, &gm);
    // No read between: the server's copy still ends at entry 3, and would undo that.
    let r = s.request("POST", &format!("/api/s/{gm}/undo"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["voided"], 4, "{}", r.body);
    let g = other.load(&game_id).expect("load").expect("game");
    assert_eq!(g.log.entries().len(), 5);
    assert_eq!(g.replay(), Ok(4));
    let (v, _) = view(&s, &gm);
    assert_eq!(v["events"], 5);
    assert_eq!(v["state"], rendered(&g.state));
}

/// An action runs first on the game in memory. If another process's write makes it legal
/// again, the server's copy, which has not seen that write, refuses it. The refusal is asked
/// again against the store before it is final, so the action is taken. Here the charge was
/// undone elsewhere, so the unit may charge again.
#[test]
fn a_refusal_on_a_copy_behind_the_store_is_asked_again_against_it() {
    let s = common::server();
    let gm = setup(&s);
    let charge =
        |s: &common::Server| s.request("POST", &format!("/api/s/{gm}/actions"), &[], Some(CHARGE));
    let r = charge(&s);
    assert_eq!(r.status, 200, "{}", r.body);
    let r = charge(&s);
    assert_eq!(r.status, 422, "the unit has acted: {}", r.body);
    // Another process undoes the charge; this server's copy does not know.
    let (v, _) = view(&s, &gm);
    let game_id = v["game_id"].as_str().expect("game id").to_string();
    let other = SqliteStore::open(&s.path).expect("second store");
    let mut head: Head = other.live(&game_id).expect("live").expect("game").head;
    let engine = head.engine().expect("engine");
    let target = head.undo_target().expect("the charge");
    let base = other
        .fold_base(&game_id, target, head.checkpoint)
        .expect("base");
    let a = head
        .undo(engine.as_ref(), base.checkpoint, &base.effects)
        .expect("undo")
        .expect("voided");
    other
        .append(&game_id, Row::of(&a, &head).expect("row"))
        .expect("append");
    let r = charge(&s);
    assert_eq!(r.status, 200, "taken on the game as stored: {}", r.body);
    assert_eq!(r.json()["seq"], 6);
    let g = other.load(&game_id).expect("load").expect("game");
    assert_eq!(g.log.entries().len(), 6);
    assert_eq!(g.replay(), Ok(5));
}

/// With room for two games in memory, three games played in turn keep coming back from the
/// store exactly as they were.
#[test]
fn evicted_games_come_back_from_the_store() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).expect("db"));
    let key = store.host_key().expect("key");
    let st = tercio_web::AppState::with_cache(store.clone(), None, 2);
    let running = tercio_web::spawn(st.clone()).expect("server");
    let auth = format!("Bearer {key}");
    let post = |path: &str, body: &str| {
        let r = request_with(
            &running.addr,
            "POST",
            path,
            &[("Authorization", &auth)],
            Some(body),
        )
        .expect("request");
        assert!(r.status < 300, "{path} -> {} {}", r.status, r.body);
        r.json()
    };
    let gms: Vec<String> = (0..3)
        .map(|_| {
            let g = post(
                "/api/games",
                r#"{"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}"#,
            );
            common::token(&g["links"][0]["url"])
        })
        .collect();
    for round in 0..3 {
        for gm in &gms {
            let a = if round == 0 {
                json!({"action": "initiative"})
            } else if round == 1 {
                json!({"action": "command", "leader": "chandieu"})
            } else {
                json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"})
            };
            let r = post(&format!("/api/s/{gm}/actions"), &a.to_string());
            assert_eq!(r["seq"], round + 1);
            assert!(st.live_games() <= 2, "{} games in memory", st.live_games());
        }
    }
    for gm in &gms {
        let r =
            request_with(&running.addr, "GET", &format!("/api/s/{gm}"), &[], None).expect("view");
        let v = r.json();
        let g = store
            .load(v["game_id"].as_str().expect("id"))
            .expect("load")
            .expect("game");
        assert_eq!(v["state"], rendered(&g.state));
        assert_eq!(v["chain"], g.log_digest());
        assert_eq!(g.replay(), Ok(3));
    }
}

/// A game the host has just made is kept in memory as its creation read it, so its first
/// action does not read it from the store again; and it plays on as stored.
#[test]
fn a_game_just_made_is_kept_in_memory_for_its_first_action() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).expect("db"));
    let key = store.host_key().expect("key");
    let st = tercio_web::AppState::new(store.clone());
    let running = tercio_web::spawn(st.clone()).expect("server");
    let auth = format!("Bearer {key}");
    let r = request_with(
        &running.addr,
        "POST",
        "/api/games",
        &[("Authorization", &auth)],
        Some(r#"{"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}"#),
    )
    .expect("create");
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().expect("id").to_string();
    assert_eq!(st.live_games(), 1, "kept when made");
    let kept = st.cached(&id).expect("in memory");
    let stored = store.live(&id).expect("live").expect("game");
    assert_eq!(kept.try_read().expect("free").head, stored.head);
    let gm = common::token(&r.json()["links"][0]["url"]);
    let a = request_with(
        &running.addr,
        "POST",
        &format!("/api/s/{gm}/actions"),
        &[],
        Some(r#"{"action": "initiative"}"#),
    )
    .expect("act");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(store.live(&id).expect("live").expect("game").head.seq, 1);
}

//! A database written by release 0.1's store (schema 2, whole documents per save) opens with
//! today's store, migrates to the event-shaped schema, and keeps every game: its log byte for
//! byte, its state, settings, seats, end and archive; and the migrated games play on.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tercio_rules::game::{Game, Head};
use tercio_store::{PgStore, Role, Row, SqliteStore, Store};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/release-0.1");

/// The fingerprint release 0.1 showed: SHA-256 over every entry's JSON and a newline.
fn release_01_digest(g: &Game) -> String {
    let mut h = Sha256::new();
    for e in g.log.entries() {
        h.update(serde_json::to_vec(e).expect("json"));
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn role(v: &Value) -> Role {
    match (v["role"].as_str(), v["side"].as_str()) {
        (Some("game-master"), _) => Role::GameMaster,
        (Some("side"), Some(s)) => Role::Side(s.to_string()),
        _ => Role::Spectator,
    }
}

/// What the fixture's games were in release 0.1, and a copy of its database in a temporary
/// folder (kept while the folder is).
fn fixture() -> (Value, tempfile::TempDir, std::path::PathBuf) {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURE}.json")).expect("fixture json"),
    )
    .expect("json");
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("tercio.db");
    std::fs::copy(format!("{FIXTURE}.db"), &path).expect("copy");
    (expected, dir, path)
}

#[test]
fn a_release_01_database_migrates_and_keeps_every_game() {
    let (expected, _dir, path) = fixture();
    let store = SqliteStore::open(&path).expect("open and migrate");
    assert_eq!(
        store.host_key().expect("key"),
        expected["host_key"].as_str().expect("key")
    );
    holds_every_game(&store, &expected);
    let games = expected["games"].as_object().expect("games");
    // A migrated game plays on: the next action appends after its log, an undo folds back.
    let id = games
        .iter()
        .find(|(_, g)| g["label"] == "egc-cerignola-undos")
        .map(|(id, _)| id.clone())
        .expect("cerignola");
    let mut head = store.live(&id).expect("live").expect("game").head;
    let engine = head.engine().expect("engine");
    let before = head.state.clone();
    let target = head.undo_target().expect("a live event");
    let base = store.fold_base(&id, target, head.checkpoint).expect("base");
    let a = head
        .undo(engine.as_ref(), base.checkpoint, &base.effects)
        .expect("undo")
        .expect("voided");
    store
        .append(&id, Row::of(&a, &head).expect("row"))
        .expect("append");
    let g = store.load(&id).expect("load").expect("game");
    assert_eq!(g.log.entries().len(), 44);
    assert_ne!(g.state, before, "the undo changed the state");
    assert_eq!(g.replay().map(|n| n > 0), Ok(true));
    assert_eq!(Head::of(&g), head);
    // Opening it again migrates nothing more.
    drop(store);
    let again = SqliteStore::open(&path).expect("reopen");
    assert_eq!(again.live(&id).expect("live").expect("game").head, head);
    // Schema 6: no voids' index; the voids are in their entries' rows.
    let conn = rusqlite::Connection::open(&path).expect("open");
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).expect("count") };
    assert_eq!(
        count("SELECT count(*) FROM pragma_index_list('log_entries') WHERE name = 'log_voids'"),
        0,
        "the voids' index is gone"
    );
    assert_eq!(
        count("SELECT count(*) FROM log_entries WHERE voids > 0"),
        count("SELECT count(*) FROM log_entries WHERE json_extract(entry, '$.entry') = 'void'"),
    );
    assert!(count("SELECT count(*) FROM log_entries WHERE voids > 0") > 1);
}

/// Every game of the fixture is in `store` as release 0.1 had it: its log byte for byte, its
/// state, head, settings, end, seats (and no withdrawn one), archive and games-list line.
fn holds_every_game(store: &dyn Store, expected: &Value) {
    let games = expected["games"].as_object().expect("games");
    assert_eq!(games.len(), 6);
    let listed: Vec<_> = store
        .list(false)
        .expect("list")
        .into_iter()
        .chain(store.list(true).expect("archived"))
        .collect();
    assert_eq!(listed.len(), games.len());
    for (id, want) in games {
        let label = want["label"].as_str().expect("label");
        let g = store.load(id).expect("load").expect(label);
        assert_eq!(g.ruleset, want["rule_set"], "{label}");
        assert_eq!(g.seed, want["seed"].as_u64().expect("seed"), "{label}");
        assert_eq!(g.nonce, want["nonce"], "{label}");
        assert_eq!(g.commitment(), want["commitment"], "{label}");
        // Its scenario goes through today's checks, and passes them.
        assert_eq!(g.scenario.warnings(), &[], "{label}");
        assert_eq!(
            g.log.entries().len() as u64,
            want["log_entries"].as_u64().expect("n")
        );
        // Every entry as it was: release 0.1's fingerprint of the log is unchanged.
        assert_eq!(release_01_digest(&g), want["log_digest"], "{label}");
        assert_eq!(
            serde_json::to_string(&g.state).expect("json"),
            want["state"].as_str().expect("state"),
            "{label}"
        );
        assert_eq!(
            g.replay().map(|n| n as u64),
            Ok(want["replay"].as_u64().expect("replay")),
            "{label}"
        );
        // The head kept with the game is the whole game's: state, sequence, dice position,
        // hash chain, live events and checkpoints.
        let live = store.live(id).expect("live").expect(label);
        assert_eq!(live.head, Head::of(&g), "{label}");
        assert_eq!(live.head.chain, g.log_digest(), "{label}");
        assert_eq!(
            serde_json::to_value(live.meta.settings).expect("json"),
            want["settings"],
            "{label}"
        );
        assert_eq!(live.meta.concluded, want["concluded"] == true, "{label}");
        let seats: Vec<(Role, String)> = live
            .seats
            .iter()
            .map(|s| (s.role.clone(), s.token.clone()))
            .collect();
        let want_seats: Vec<(Role, String)> = want["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| {
                (
                    role(&s["role"]),
                    s["token"].as_str().expect("t").to_string(),
                )
            })
            .collect();
        assert_eq!(seats, want_seats, "{label}");
        for t in want["withdrawn_tokens"].as_array().expect("withdrawn") {
            assert_eq!(store.seat(t.as_str().expect("t")).expect("seat"), None);
        }
        let line = listed.iter().find(|l| &l.id == id).expect("listed");
        assert_eq!(line.archived, want["archived"] == true, "{label}");
        assert_eq!(json!(line.events), want["list"]["events"], "{label}");
        assert_eq!(json!(line.turn), want["list"]["turn"], "{label}");
        assert_eq!(json!(line.over), want["list"]["over"], "{label}");
    }
}

/// The migrated database copied to PostgreSQL (`tercio migrate`'s path) holds every game the
/// same way, and the copy keeps its own host key.
#[test]
fn a_release_01_database_copies_to_postgres_whole() {
    let (expected, _dir, path) = fixture();
    let from = SqliteStore::open(&path).expect("open and migrate");
    let to = PgStore::connect(&tercio_store::testing::shared().database()).expect("connect");
    let mut n = 0;
    tercio_store::each_record(&from, |r| {
        assert!(to.import(&r)?, "{} is new there", r.id);
        n += 1;
        Ok(())
    })
    .expect("copy");
    assert_eq!(n, 6);
    holds_every_game(&to, &expected);
    assert_ne!(to.host_key().expect("key"), expected["host_key"]);
}

//! Tests of the SQLite store: appends and undos against whole games, concurrency, seats,
//! upgrades.

use super::*;
use serde_json::json;

fn game() -> Game {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/el-gran-capitan/cerignola-1503.toml"
    ))
    .expect("read");
    let sc = tercio_rules::scenario::parse("c.toml", &src).expect("valid");
    Game::new(sc, 5).expect("game")
}

/// Take `action` on the live head and append it, as the server does.
fn act(store: &SqliteStore, id: &str, head: &mut Head, action: Value) -> Appended {
    let engine = head.engine().expect("engine");
    let a = head
        .act(engine.as_ref(), action, None, None, false)
        .expect("accepted");
    store
        .append(id, Row::of(&a, head).expect("row"))
        .expect("append");
    a
}

fn undo(store: &SqliteStore, id: &str, head: &mut Head) -> (Appended, FoldBase) {
    let engine = head.engine().expect("engine");
    let target = head.undo_target().expect("something to undo");
    let base = store.fold_base(id, target, head.checkpoint).expect("base");
    let (from, state) = match &base.checkpoint {
        Some((c, s)) => (*c, s.clone()),
        None => (0, engine.initial_state().expect("initial")),
    };
    let a = head
        .undo(engine.as_ref(), from, state, &base.effects)
        .expect("undo")
        .expect("voided");
    store
        .append(id, Row::of(&a, head).expect("row"))
        .expect("append");
    (a, base)
}

/// The bench's loop: a Swiss charge and its undo, again and again, past several
/// checkpoints; the live head, the stored game and a whole `Game` doing the same agree.
#[test]
fn appends_and_undos_from_checkpoints_agree_with_the_whole_game() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = SqliteStore::open(&dir.path().join("t.db")).expect("open");
    let mut g = game();
    let id = store.create(&g, None).expect("create");
    let mut head = store.live(&id).expect("live").expect("game").head;
    assert_eq!(head, Head::of(&g));
    let setup = [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"}),
    ];
    let charge = json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"});
    for a in setup {
        act(&store, &id, &mut head, a.clone());
        g.act(a).expect("act");
    }
    let mut from_checkpoint = 0;
    for i in 0..40 {
        let a = act(&store, &id, &mut head, charge.clone());
        g.act(charge.clone()).expect("act");
        assert_eq!(Some(&a.entry), g.log.entries().last(), "charge {i}");
        let (_, base) = undo(&store, &id, &mut head);
        g.undo().expect("undo");
        if let Some((cp, _)) = base.checkpoint {
            from_checkpoint += 1;
            assert!(
                base.effects.len() < tercio_rules::game::CHECKPOINT_EVERY as usize,
                "folds only the tail after checkpoint {cp}"
            );
        }
        assert_eq!(head.state, g.state, "undo {i}");
    }
    assert!(
        from_checkpoint > 20,
        "undos fold from checkpoints: {from_checkpoint}"
    );
    assert_eq!(head, Head::of(&g));
    assert_eq!(head.chain, g.log_digest());
    let back = store.load(&id).expect("load").expect("game");
    assert_eq!(back, g);
    assert_eq!(
        back.replay(),
        Ok(43),
        "events checked: voids are not rolled"
    );
    let live = store.live(&id).expect("live").expect("game");
    assert_eq!(live.head, head, "the head is kept with the game");
    assert_eq!(store.list(false).expect("list")[0].events, 83);
    // The tail and the last entries come back by sequence number.
    let tail = store.entries(&id, 80, 10).expect("tail");
    assert_eq!(
        tail.iter().map(LogEntry::seq).collect::<Vec<_>>(),
        [81, 82, 83]
    );
    let last = store.last_entries(&id, 2).expect("last");
    assert_eq!(last.iter().map(LogEntry::seq).collect::<Vec<_>>(), [82, 83]);
}

/// The database judges the order: an entry whose number is taken is refused, nothing
/// written, and the game as it was.
#[test]
fn a_second_writer_with_the_same_sequence_is_refused() {
    let store = SqliteStore::in_memory().expect("open");
    let id = store.create(&game(), None).expect("create");
    let mut a = store.live(&id).expect("live").expect("game").head;
    let mut b = a.clone();
    act(&store, &id, &mut a, json!({"action": "initiative"}));
    let engine = b.engine().expect("engine");
    let late = b
        .act(
            engine.as_ref(),
            json!({"action": "initiative"}),
            None,
            None,
            false,
        )
        .expect("accepted");
    let rev = store.live(&id).expect("live").expect("game").rev;
    match store.append(&id, Row::of(&late, &b).expect("row")) {
        Err(StoreError::Conflict(m)) => assert!(m.contains("entry 1"), "{m}"),
        other => panic!("expected a conflict, got {other:?}"),
    }
    let now = store.live(&id).expect("live").expect("game");
    assert_eq!((now.head, now.rev), (a, rev), "nothing written");
}

/// Many games writing at once: every append is committed (in groups), every log whole and
/// in order, and one refused write in a group spoils no other.
#[test]
fn concurrent_games_commit_in_groups() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = std::sync::Arc::new(SqliteStore::open(&dir.path().join("t.db")).expect("open"));
    let ids: Vec<String> = (0..8)
        .map(|_| store.create(&game(), None).expect("create"))
        .collect();
    let threads: Vec<_> = ids
        .iter()
        .cloned()
        .map(|id| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut head = store.live(&id).expect("live").expect("game").head;
                act(&store, &id, &mut head, json!({"action": "initiative"}));
                for _ in 0..10 {
                    let stale = head.clone();
                    act(
                        &store,
                        &id,
                        &mut head,
                        json!({"action": "command", "leader": "chandieu"}),
                    );
                    undo(&store, &id, &mut head);
                    // A stale copy's write is refused, and nothing else is.
                    let mut stale = stale;
                    let engine = stale.engine().expect("engine");
                    if let Ok(a) = stale.act(
                        engine.as_ref(),
                        json!({"action": "command", "leader": "chandieu"}),
                        None,
                        None,
                        false,
                    ) {
                        assert!(matches!(
                            store.append(&id, Row::of(&a, &stale).expect("row")),
                            Err(StoreError::Conflict(_))
                        ));
                    }
                }
                head
            })
        })
        .collect();
    for (id, t) in ids.iter().zip(threads) {
        let head = t.join().expect("thread");
        let g = store.load(id).expect("load").expect("game");
        assert_eq!(g.log.entries().len(), 21);
        assert_eq!(Head::of(&g), head);
        assert_eq!(g.replay(), Ok(11));
    }
}

/// Many callers writing at once, more than any group: each is answered once its own write is
/// committed, whether it led a commit or waited for another's, and every write is kept. (The
/// narrowest case, a write queued just as a leader lets the connection go, is argued in
/// `SqliteStore::write`; load like this makes it happen now and then, not every run.)
#[test]
fn every_writer_is_answered_whoever_leads_the_commit() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = std::sync::Arc::new(SqliteStore::open(&dir.path().join("t.db")).expect("open"));
    let ids: Vec<String> = (0..24)
        .map(|_| store.create(&game(), None).expect("create"))
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    for id in ids.clone() {
        let (store, tx) = (store.clone(), tx.clone());
        std::thread::spawn(move || {
            for i in 0..40 {
                assert!(
                    matches!(store.set_archived(&id, i % 2 == 0), Ok(true)),
                    "{id} {i}"
                );
            }
            tx.send(id).expect("send");
        });
    }
    drop(tx);
    // A writer left waiting would hang: each must report within a minute.
    let mut done = Vec::new();
    while done.len() < ids.len() {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(id) => done.push(id),
            Err(e) => panic!("{} of {} writers answered: {e}", done.len(), ids.len()),
        }
    }
    // The last write of each (i = 39) unarchived it: every game is in the active list.
    let listed = store.list(false).expect("list");
    assert!(ids.iter().all(|id| listed.iter().any(|g| &g.id == id)));
    assert!(store.list(true).expect("archived").is_empty());
}

#[test]
fn games_round_trip_and_logs_only_grow() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("sub/tercio.db");
    let store = SqliteStore::open(&path).expect("open");
    let mut g = game();
    let id = store
        .create(&g, Some("el-gran-capitan/cerignola-1503"))
        .expect("create");
    g.act(json!({"action": "initiative"})).expect("act");
    g.act(json!({"action": "command", "leader": "chandieu"}))
        .expect("act");
    store.save(&id, &g).expect("save");
    g.undo().expect("undo");
    store.save(&id, &g).expect("save");
    drop(store);
    let store = SqliteStore::open(&path).expect("reopen");
    let back = store.load(&id).expect("load").expect("exists");
    assert_eq!(back, g);
    assert_eq!(back.replay(), Ok(2));
    let list = store.list(false).expect("list");
    assert_eq!(list.len(), 1);
    assert_eq!(
        (list[0].events, list[0].turn, list[0].rule_set.as_str()),
        (3, 1, "el-gran-capitan")
    );
    assert!(store.set_archived(&id, true).expect("archive"));
    assert!(store.list(false).expect("list").is_empty());
    assert_eq!(store.list(true).expect("list").len(), 1);
    assert!(store.delete(&id).expect("delete"));
    assert!(store.load(&id).expect("load").is_none());
    assert!(!store.delete(&id).expect("delete"));
}

#[test]
fn seats_are_issued_withdrawn_and_reissued() {
    let store = SqliteStore::in_memory().expect("open");
    let mut g = game();
    g.nonce = "abc".into();
    let id = store.create(&g, None).expect("create");
    assert_eq!(store.load(&id).expect("load").expect("game").nonce, "abc");
    let seats = store.seats(&id).expect("seats");
    let roles: Vec<Role> = seats.iter().map(|s| s.role.clone()).collect();
    let mut want = vec![Role::GameMaster];
    want.extend(g.scenario.sides.iter().map(|s| Role::Side(s.id.clone())));
    want.push(Role::Spectator);
    assert_eq!(roles, want);
    let tokens: std::collections::BTreeSet<&str> = seats.iter().map(|s| s.token.as_str()).collect();
    assert_eq!(tokens.len(), seats.len(), "tokens are distinct");
    assert!(seats.iter().all(|s| s.token.len() == 32));
    let side = seats[1].clone();
    assert_eq!(store.seat(&side.token).expect("seat"), Some(side.clone()));
    let new = store
        .reissue(&id, &side.role)
        .expect("reissue")
        .expect("seat");
    assert_ne!(new.token, side.token);
    assert_eq!(
        store.seat(&side.token).expect("seat"),
        None,
        "the old link is dead"
    );
    assert_eq!(store.seat(&new.token).expect("seat"), Some(new.clone()));
    assert_eq!(
        store.seats(&id).expect("seats")[1],
        new,
        "same place in the list"
    );
    assert_eq!(
        store
            .reissue(&id, &Role::Side("nobody".into()))
            .expect("ok"),
        None
    );
    // Settings and conclusion.
    let m = store.meta(&id).expect("meta").expect("game");
    assert_eq!(
        m,
        Meta {
            settings: Settings::default(),
            concluded: false
        }
    );
    let s = Settings {
        side_rights: SideRights::OwnUnits,
        physical_dice: true,
    };
    assert!(store.set_settings(&id, &s).expect("set"));
    assert!(!store.list(false).expect("list")[0].over);
    assert!(store.conclude(&id).expect("conclude"));
    assert!(
        store.list(false).expect("list")[0].over,
        "a concluded game is over"
    );
    assert_eq!(
        store.meta(&id).expect("meta"),
        Some(Meta {
            settings: s,
            concluded: true
        })
    );
    // The host key is made once and kept.
    let k = store.host_key().expect("key");
    assert_eq!(store.host_key().expect("key"), k);
    // Deleting the game deletes its seats.
    assert!(store.delete(&id).expect("delete"));
    assert_eq!(store.seat(&new.token).expect("seat"), None);
}

#[test]
fn games_from_before_seats_get_seats_on_upgrade() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("old.db");
    let g = game();
    {
        // A database at schema 1 with one game, as the first release wrote it.
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch(MIGRATIONS[0]).expect("schema 1");
        conn.pragma_update(None, "user_version", 1)
            .expect("version");
        conn.execute(
            "INSERT INTO games (id, title, rule_set, scenario, seed, state, created_at, updated_at) VALUES ('old', 't', 'el-gran-capitan', ?1, 5, ?2, 0, 0)",
            params![serde_json::to_string(&g.scenario).expect("json"), serde_json::to_string(&g.state).expect("json")],
        )
        .expect("insert");
    }
    let store = SqliteStore::open(&path).expect("upgrade");
    let seats = store.seats("old").expect("seats");
    assert_eq!(seats.len(), g.scenario.sides.len() + 2);
    assert_eq!(seats[0].role, Role::GameMaster);
    assert_eq!(seats[1].role, Role::Side(g.scenario.sides[0].id.clone()));
    assert_eq!(seats.last().map(|s| s.role.clone()), Some(Role::Spectator));
    assert!(seats.iter().all(|s| s.token.len() == 32));
    let nonce = store.load("old").expect("load").expect("game").nonce;
    assert_eq!(nonce.len(), 32, "an old game gets a nonce: {nonce:?}");
}

/// A game stored with a scenario that fails a check added since (a blank title) still loads
/// whole and live, replays, and says what it fails, where.
#[test]
fn a_stored_scenario_that_fails_a_check_loads_with_warnings() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("t.db");
    let store = SqliteStore::open(&path).expect("open");
    let mut g = game();
    let id = store.create(&g, None).expect("create");
    g.act_signed(json!({"action": "initiative"}), None, Some("game-master"))
        .expect("initiative");
    store.save(&id, &g).expect("save");
    let fine = store.live(&id).expect("live").expect("game");
    assert!(fine.head.scenario.warnings().is_empty());
    let mut v = serde_json::to_value(&g.scenario).expect("json");
    v["title"] = json!("");
    let text = serde_json::to_string(&v).expect("json");
    Connection::open(&path)
        .expect("open")
        .execute(
            "UPDATE games SET scenario = ?1 WHERE id = ?2",
            params![text, id],
        )
        .expect("update");
    let want = {
        let col = text.find("\"title\":\"\"").expect("title") + "\"title\":".len() + 1;
        format!("game {id}: scenario:1:{col}: title = \"\": must not be empty")
    };
    let live = store.live(&id).expect("live").expect("still loads");
    let w: Vec<String> = live
        .head
        .scenario
        .warnings()
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with(&want), "{w:?} / {want}");
    let back = store.load(&id).expect("load").expect("still loads");
    assert_eq!(back.scenario.warnings().len(), 1);
    assert_eq!(back.log, g.log);
    assert_eq!(back.replay(), Ok(1));
}

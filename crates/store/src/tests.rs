//! Tests of the stores: appends and undos against whole games, concurrency, seats, copies
//! between databases, on both backends (one shared suite, [`on_both`]); SQLite's upgrades.

use super::*;
use serde_json::json;
use std::sync::Arc;

/// A database for one test; `open` opens the same database again (another connection, or
/// another server's).
struct Backend {
    open: Box<dyn Fn() -> Arc<dyn Store>>,
    _dir: Option<tempfile::TempDir>,
}

fn sqlite() -> Backend {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("sub/t.db");
    Backend {
        open: Box::new(move || Arc::new(SqliteStore::open(&path).expect("open"))),
        _dir: Some(dir),
    }
}

/// A new database in this test binary's throw-away PostgreSQL cluster.
fn postgres() -> Backend {
    let url = testing::shared().database();
    Backend {
        open: Box::new(move || Arc::new(PgStore::connect(&url).expect("connect"))),
        _dir: None,
    }
}

/// Each test named runs on SQLite and on PostgreSQL, as `NAME::sqlite` and `NAME::postgres`.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        $(mod $name {
            #[test]
            fn sqlite() {
                super::$name(&super::sqlite());
            }
            #[test]
            fn postgres() {
                super::$name(&super::postgres());
            }
        })*
    };
}

on_both!(
    appends_and_undos_from_checkpoints_agree_with_the_whole_game,
    a_second_writer_with_the_same_sequence_is_refused,
    an_append_answers_the_revision_the_store_keeps,
    a_game_made_live_is_the_game_the_store_reads,
    a_first_game_is_made_once_however_many_ask_at_once,
    concurrent_games_commit_in_groups,
    every_writer_is_answered_whoever_leads_the_commit,
    appends_handed_over_are_answered_once_durable,
    games_round_trip_and_logs_only_grow,
    seats_are_issued_withdrawn_and_reissued,
    games_copy_whole_and_only_once,
);

fn game() -> Game {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/el-gran-capitan/cerignola-1503.toml"
    ))
    .expect("read");
    let sc = tercio_rules::scenario::parse("c.toml", &src).expect("valid");
    Game::new(sc, 5).expect("game")
}

/// `action` taken on `head`, not yet stored.
fn acted(head: &mut Head, action: Value) -> Appended {
    let engine = head.engine().expect("engine");
    head.act(engine.as_ref(), action, None, None, false)
        .expect("accepted")
}

/// Take `action` on the live head and append it, as the server does.
fn act(store: &dyn Store, id: &str, head: &mut Head, action: Value) -> Appended {
    let a = acted(head, action);
    store
        .append(id, Row::of(&a, head).expect("row"))
        .expect("append");
    a
}

fn undo(store: &dyn Store, id: &str, head: &mut Head) -> (Appended, FoldBase) {
    let engine = head.engine().expect("engine");
    let target = head.undo_target().expect("something to undo");
    let base = store.fold_base(id, target, head.checkpoint).expect("base");
    let a = head
        .undo(engine.as_ref(), base.checkpoint.clone(), &base.effects)
        .expect("undo")
        .expect("voided");
    store
        .append(id, Row::of(&a, head).expect("row"))
        .expect("append");
    (a, base)
}

/// The bench's loop: a Swiss charge and its undo, again and again, past several
/// checkpoints; the live head, the stored game and a whole `Game` doing the same agree.
fn appends_and_undos_from_checkpoints_agree_with_the_whole_game(db: &Backend) {
    let store = (db.open)();
    let store = store.as_ref();
    let mut g = game();
    let id = store.create(&g, None).expect("create");
    g.game_id = id.clone();
    let mut head = store.live(&id).expect("live").expect("game").head;
    assert_eq!(head, Head::of(&g));
    let setup = [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"}),
    ];
    let charge = json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"});
    for a in setup {
        act(store, &id, &mut head, a.clone());
        g.act(a).expect("act");
    }
    let mut from_checkpoint = 0;
    for i in 0..40 {
        let a = act(store, &id, &mut head, charge.clone());
        g.act(charge.clone()).expect("act");
        assert_eq!(Some(&a.entry), g.log.entries().last(), "charge {i}");
        let (_, base) = undo(store, &id, &mut head);
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
fn a_second_writer_with_the_same_sequence_is_refused(db: &Backend) {
    let store = (db.open)();
    let store = store.as_ref();
    let id = store.create(&game(), None).expect("create");
    let mut a = store.live(&id).expect("live").expect("game").head;
    let mut b = a.clone();
    act(store, &id, &mut a, json!({"action": "initiative"}));
    let late = acted(&mut b, json!({"action": "initiative"}));
    let rev = store.live(&id).expect("live").expect("game").rev;
    match store.append(&id, Row::of(&late, &b).expect("row")) {
        Err(StoreError::Conflict(m)) => assert!(m.contains("entry 1"), "{m}"),
        other => panic!("expected a conflict, got {other:?}"),
    }
    let now = store.live(&id).expect("live").expect("game");
    assert_eq!((now.head, now.rev), (a, rev), "nothing written");
}

/// A game made with [`Store::create_live`] is answered as [`Store::live`] reads it back, with and
/// without settings of its own, new or with a log of voids and checkpoints, from this
/// connection and another; its next action, written on the answered revision, is taken, and
/// one on the revision before is refused.
fn a_game_made_live_is_the_game_the_store_reads(db: &Backend) {
    let store = (db.open)();
    let other = (db.open)();
    let own = Settings {
        side_rights: SideRights::OwnUnits,
        ..Settings::default()
    };
    let charge = json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"});
    let mut played = game();
    for a in [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"}),
    ] {
        played.act(a).expect("act");
    }
    for _ in 0..20 {
        played.act(charge.clone()).expect("act");
        played.undo().expect("undo");
    }
    assert!(played.log.len() > tercio_rules::game::CHECKPOINT_EVERY as usize);
    let initiative = json!({"action": "initiative"});
    for (g, settings, next) in [
        (game(), None, &initiative),
        (game(), Some(&own), &initiative),
        (played, None, &charge),
    ] {
        let (id, made) = store
            .create_live(&g, Some("el-gran-capitan/cerignola-1503"), settings)
            .expect("made");
        for s in [&store, &other] {
            let read = s.live(&id).expect("live").expect("game");
            assert_eq!(made.head, read.head, "{settings:?}");
            assert_eq!(made.meta, read.meta, "{settings:?}");
            assert_eq!(made.seats, read.seats, "{settings:?}");
            assert_eq!(made.rev, read.rev, "{settings:?}");
        }
        assert_eq!(made.meta.settings, settings.cloned().unwrap_or_default());
        assert_eq!(made.seats.len(), g.scenario.sides.len() + 2);
        let mut head = made.head;
        let a = acted(&mut head, next.clone());
        let mut stale = Row::of(&a, &head).expect("row");
        stale.rev = Some(made.rev - 1);
        assert!(
            matches!(store.append(&id, stale), Err(StoreError::Conflict(_))),
            "a writer on the revision before the made one"
        );
        let mut row = Row::of(&a, &head).expect("row");
        row.rev = Some(made.rev);
        assert_eq!(store.append(&id, row).expect("append"), made.rev + 1);
    }
}

/// [`Store::create_live_if_empty`] makes a game only on a database with none (archived ones
/// aside): of several stores on one database asking at the same moment, one makes it, and the
/// others write nothing.
fn a_first_game_is_made_once_however_many_ask_at_once(db: &Backend) {
    let stores: Vec<_> = (0..4).map(|_| (db.open)()).collect();
    let start = Arc::new(std::sync::Barrier::new(stores.len()));
    let made: Vec<_> = stores
        .iter()
        .map(|s| {
            let (s, start) = (s.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                s.create_live_if_empty(&game(), Some("el-gran-capitan/cerignola-1503"), None)
                    .expect("asked")
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("thread"))
        .collect();
    let games = stores[0].list(false).expect("list");
    assert_eq!(games.len(), 1, "{games:?}");
    let ids: Vec<_> = made.iter().flatten().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, [games[0].id.clone()]);
    // The game made is the game stored.
    let (id, live) = made.into_iter().flatten().next().expect("made");
    assert_eq!(
        stores[1].live(&id).expect("live").expect("game").seats,
        live.seats
    );
    // With a game there, nothing more is made; with only archived games, one is.
    assert!(stores[1]
        .create_live_if_empty(&game(), None, None)
        .expect("asked")
        .is_none());
    assert!(stores[0].set_archived(&id, true).expect("archive"));
    assert!(stores[2]
        .create_live_if_empty(&game(), None, None)
        .expect("asked")
        .is_some());
    assert_eq!(stores[3].list(false).expect("list").len(), 1);
    assert_eq!(stores[3].list(true).expect("list").len(), 1);
}

/// An append answers the game's revision as the store keeps it, whether the writer said which
/// revision it acted on (then no other may have written since) or not; and an append on a
/// revision the store has left behind is refused, nothing written.
fn an_append_answers_the_revision_the_store_keeps(db: &Backend) {
    let store = (db.open)();
    let store = store.as_ref();
    let id = store.create(&game(), None).expect("create");
    let live = store.live(&id).expect("live").expect("game");
    let mut head = live.head;
    let engine = head.engine().expect("engine");
    let mut rev = live.rev;
    for (i, action) in [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-first-block"}),
    ]
    .into_iter()
    .enumerate()
    {
        let a = head
            .act(engine.as_ref(), action, None, None, false)
            .expect("accepted");
        let mut row = Row::of(&a, &head).expect("row");
        if i != 1 {
            row.rev = Some(rev);
        }
        let answered = store.append(&id, row).expect("append");
        let kept = store.live(&id).expect("live").expect("game").rev;
        assert_eq!(answered, kept, "action {i}");
        assert!(answered > rev, "action {i}: {answered} after {rev}");
        rev = answered;
    }
    // Settings move the revision on without an entry: a writer still on the old one is refused.
    store
        .set_settings(
            &id,
            &Settings {
                physical_dice: true,
                ..Settings::default()
            },
        )
        .expect("settings");
    let moved = store.live(&id).expect("live").expect("game").rev;
    assert!(moved > rev);
    let a = head
        .act(engine.as_ref(), json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"}), None, None, false)
        .expect("accepted");
    let mut row = Row::of(&a, &head).expect("row");
    row.rev = Some(rev);
    assert!(matches!(
        store.append(&id, row),
        Err(StoreError::Conflict(_))
    ));
    let now = store.live(&id).expect("live").expect("game");
    assert_eq!((now.rev, now.head.seq), (moved, 3), "nothing written");
}

/// Many games writing at once: every append is committed (in groups), every log whole and
/// in order, and one refused write in a group spoils no other.
fn concurrent_games_commit_in_groups(db: &Backend) {
    let store = (db.open)();
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
                let store = store.as_ref();
                act(store, &id, &mut head, json!({"action": "initiative"}));
                for _ in 0..10 {
                    let stale = head.clone();
                    act(
                        store,
                        &id,
                        &mut head,
                        json!({"action": "command", "leader": "chandieu"}),
                    );
                    undo(store, &id, &mut head);
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
fn every_writer_is_answered_whoever_leads_the_commit(db: &Backend) {
    let store = (db.open)();
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

/// Appends handed over ([`Store::append_then`]) from many games at once, beside callers that
/// wait for their own: each is answered once, with its revision, and a stale one with a
/// conflict; every answered append is in the database when it is opened again.
fn appends_handed_over_are_answered_once_durable(db: &Backend) {
    let store = (db.open)();
    let ids: Vec<String> = (0..6)
        .map(|_| store.create(&game(), None).expect("create"))
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let threads: Vec<_> = ids
        .iter()
        .cloned()
        .enumerate()
        .map(|(n, id)| {
            let (store, tx) = (store.clone(), tx.clone());
            std::thread::spawn(move || {
                let mut head = store.live(&id).expect("live").expect("game").head;
                let engine = head.engine().expect("engine");
                let mut rev = 1;
                for i in 0..12 {
                    let stale = head.clone();
                    let action = if i == 0 {
                        json!({"action": "initiative"})
                    } else {
                        json!({"action": "command", "leader": "chandieu"})
                    };
                    let a = head
                        .act(engine.as_ref(), action.clone(), None, None, false)
                        .expect("accepted");
                    let row = Row::of(&a, &head).expect("row");
                    if n % 2 == 0 {
                        let (one, answer) = std::sync::mpsc::channel();
                        store.append_then(&id, row, Box::new(move |r| one.send(r).expect("once")));
                        let r = answer
                            .recv_timeout(std::time::Duration::from_secs(60))
                            .expect("answered");
                        assert!(r.as_ref().is_ok_and(|r| *r > rev), "{id} {i}: {r:?}");
                        rev = r.expect("rev");
                        assert!(answer.recv().is_err(), "answered once");
                    } else {
                        rev = store.append(&id, row).expect("append");
                    }
                    if i > 0 {
                        undo(store.as_ref(), &id, &mut head);
                        let mut stale = stale;
                        let a = stale
                            .act(engine.as_ref(), action, None, None, false)
                            .expect("acts");
                        let (one, answer) = std::sync::mpsc::channel();
                        store.append_then(
                            &id,
                            Row::of(&a, &stale).expect("row"),
                            Box::new(move |r| one.send(r).expect("once")),
                        );
                        assert!(matches!(answer.recv(), Ok(Err(StoreError::Conflict(_)))));
                    }
                }
                tx.send(()).expect("send");
                head
            })
        })
        .collect();
    drop(tx);
    for _ in &ids {
        rx.recv_timeout(std::time::Duration::from_secs(120))
            .expect("every writer finishes");
    }
    let heads: Vec<Head> = threads
        .into_iter()
        .map(|t| t.join().expect("thread"))
        .collect();
    drop(store);
    let again = (db.open)();
    for (id, head) in ids.iter().zip(heads) {
        let g = again.load(id).expect("load").expect("game");
        assert_eq!(g.log.entries().len(), 23, "{id}");
        assert_eq!(Head::of(&g), head);
    }
}

fn games_round_trip_and_logs_only_grow(db: &Backend) {
    let store = (db.open)();
    let mut g = game();
    let id = store
        .create(&g, Some("el-gran-capitan/cerignola-1503"))
        .expect("create");
    g.game_id = id.clone();
    g.act(json!({"action": "initiative"})).expect("act");
    g.act(json!({"action": "command", "leader": "chandieu"}))
        .expect("act");
    store.save(&id, &g).expect("save");
    g.undo().expect("undo");
    store.save(&id, &g).expect("save");
    drop(store);
    let store = (db.open)();
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

fn seats_are_issued_withdrawn_and_reissued(db: &Backend) {
    let store = (db.open)();
    let mut g = game();
    g.nonce = "abc".into();
    let id = store.create(&g, None).expect("create");
    g.game_id = id.clone();
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

/// An undo's fold finds the live entries after its checkpoint, and the voids among them, by
/// the log's key: no step of it reads the game's entries before the checkpoint (schema 6 has
/// no voids' index: `tests/migrate.rs`).
#[test]
fn the_undo_reads_only_the_entries_after_its_checkpoint() {
    let db = sqlite();
    let store = (db.open)();
    let store = store.as_ref();
    let g = game();
    let id = store.create(&g, None).expect("create");
    let mut head = store.live(&id).expect("live").expect("game").head;
    act(store, &id, &mut head, json!({"action": "initiative"}));
    undo(store, &id, &mut head);
    act(store, &id, &mut head, json!({"action": "initiative"}));
    let path = db._dir.as_ref().expect("a file").path().join("sub/t.db");
    let conn = Connection::open(path).expect("open");
    let mut stmt = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {FOLD_EFFECTS}"))
        .expect("plan");
    let plan: Vec<String> = stmt
        .query_map(params![id, 0, 9], |r| r.get::<_, String>(3))
        .expect("plan")
        .collect::<Result<_, _>>()
        .expect("rows");
    let reads: Vec<&String> = plan.iter().filter(|l| l.contains("log_entries")).collect();
    assert_eq!(reads.len(), 2, "the entries and their voids: {plan:?}");
    for l in reads {
        assert!(
            l.starts_with("SEARCH") && l.contains("(game_id=? AND seq>?"),
            "{l}: {plan:?}"
        );
    }
    // And the fold is the one the log gives: the void's entry is not folded in.
    let live = store.live(&id).expect("live").expect("game").head;
    assert_eq!(live, head);
    let base = store
        .fold_base(&id, head.seq + 1, 0)
        .expect("the fold from the start");
    assert_eq!(base.effects.len(), head.live.len());
}

/// The live entries are those neither voids nor voided, in order, whatever order the rows came in.
#[test]
fn live_seqs_leave_out_voids_and_what_they_void() {
    let rows = vec![
        (5, Some(4)),
        (1, None),
        (3, Some(2)),
        (4, None),
        (2, None),
        (6, None),
    ];
    assert_eq!(live_seqs(rows), vec![1, 6]);
    assert_eq!(live_seqs(vec![]), Vec::<u64>::new());
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
    g.game_id = id.clone();
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
        // In characters, as a column is counted (the notes before it hold accented letters).
        let at = text.find("\"title\":\"\"").expect("title") + "\"title\":".len();
        let col = text[..at].chars().count() + 1;
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

/// Every game of one database copied to another (`tercio migrate`): its log byte for byte, its
/// seats' tokens, settings, end and archive; copying again copies nothing; and the copy plays
/// on from where it was.
fn games_copy_whole_and_only_once(db: &Backend) {
    let other = sqlite();
    let (from, to) = ((db.open)(), (other.open)());
    let mut g = game();
    let a = from
        .create(&g, Some("el-gran-capitan/cerignola-1503"))
        .expect("create");
    g.game_id = a.clone();
    g.act(json!({"action": "initiative"})).expect("act");
    g.act(json!({"action": "command", "leader": "chandieu"}))
        .expect("act");
    g.undo().expect("undo");
    from.save(&a, &g).expect("save");
    from.set_settings(
        &a,
        &Settings {
            side_rights: SideRights::OwnUnits,
            physical_dice: false,
        },
    )
    .expect("settings");
    let b = from.create(&game(), None).expect("create");
    from.conclude(&b).expect("conclude");
    from.set_archived(&b, true).expect("archive");
    let copy = |from: &dyn Store, to: &dyn Store| {
        let mut n = (0, 0);
        each_record(from, |r| {
            if to.import(&r)? {
                n.0 += 1;
            } else {
                n.1 += 1;
            }
            Ok(())
        })
        .expect("copy");
        n
    };
    // There and back again: each backend writes what the other reads.
    assert_eq!(copy(from.as_ref(), to.as_ref()), (2, 0));
    assert_eq!(copy(from.as_ref(), to.as_ref()), (0, 2), "copied once");
    let back = (db.open)();
    let back = back.as_ref();
    for id in [&a, &b] {
        back.delete(id).expect("delete");
    }
    assert_eq!(copy(to.as_ref(), back), (2, 0));
    for id in [&a, &b] {
        let (x, y) = (to.load(id).expect("load"), back.load(id).expect("load"));
        assert_eq!(x, y, "{id}");
        let x = x.expect("game");
        assert_eq!(
            x.log
                .entries()
                .iter()
                .map(tercio_rules::game::entry_text)
                .collect::<Vec<_>>(),
            g_entries(id == &a, &g, &x),
            "{id}: entries byte for byte"
        );
        assert_eq!(to.seats(id).expect("seats"), back.seats(id).expect("seats"));
        assert_eq!(to.meta(id).expect("meta"), back.meta(id).expect("meta"));
        let l = to.live(id).expect("live").expect("game");
        assert_eq!(l.head, back.live(id).expect("live").expect("game").head);
    }
    let listed = back.list(true).expect("archived");
    assert_eq!(listed.iter().map(|s| &s.id).collect::<Vec<_>>(), [&b]);
    assert!(listed[0].over, "concluded");
    assert_eq!(
        back.meta(&a)
            .expect("meta")
            .expect("game")
            .settings
            .side_rights,
        SideRights::OwnUnits
    );
    // The old links open the copies, and the copy plays on.
    let gm = from.seats(&a).expect("seats")[0].token.clone();
    assert_eq!(
        back.seat(&gm).expect("seat").map(|s| s.game_id),
        Some(a.clone())
    );
    let mut head = back.live(&a).expect("live").expect("game").head;
    act(
        back,
        &a,
        &mut head,
        json!({"action": "command", "leader": "chandieu"}),
    );
    g.act(json!({"action": "command", "leader": "chandieu"}))
        .expect("act");
    assert_eq!(back.load(&a).expect("load").expect("game"), g);
}

/// The texts of the entries a copied game should have: `g`'s for the played one, the copy's
/// own for the other (checked equal across databases above).
fn g_entries(played: bool, g: &Game, copy: &Game) -> Vec<String> {
    let src = if played { g } else { copy };
    src.log
        .entries()
        .iter()
        .map(tercio_rules::game::entry_text)
        .collect()
}

/// Two servers on one PostgreSQL database: each write to a game is heard by the other (the
/// game and its new revision), and of two appends of the same entry, racing from the two, the
/// database takes exactly one.
#[test]
fn servers_on_one_postgres_database_hear_each_other_and_never_both_append() {
    let db = postgres();
    let (a, b) = ((db.open)(), (db.open)());
    let (tx, rx) = std::sync::mpsc::channel::<Told>();
    let tx = Mutex::new(tx);
    b.watch(Box::new(move |h| {
        let _ = lock(&tx).send(Told::from(h));
    }))
    .expect("watch");
    let wait = || {
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("heard within 30 s")
    };
    let id = a.create(&game(), None).expect("create");
    // Listening for the game begins: writes before it may have been missed.
    b.attend(&id, true);
    assert_eq!(wait(), Told::Missed(id.clone()));
    let mut head = a.live(&id).expect("live").expect("game").head;
    act(a.as_ref(), &id, &mut head, json!({"action": "initiative"}));
    let rev = a.live(&id).expect("live").expect("game").rev;
    assert_eq!(wait(), Told::Wrote(id.clone(), rev), "the append");
    a.set_settings(&id, &Settings::default()).expect("settings");
    assert_eq!(wait(), Told::Wrote(id.clone(), rev + 1), "the settings");
    // The race: both servers hold the same head and append its next entry at once.
    for round in 0..10 {
        let base = a.live(&id).expect("live").expect("game").head;
        let barrier = Arc::new(std::sync::Barrier::new(2));
        let racers: Vec<_> = [a.clone(), b.clone()]
            .into_iter()
            .map(|s| {
                let (mut h, id, barrier) = (base.clone(), id.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let engine = h.engine().expect("engine");
                    let action = json!({"action": "command", "leader": "chandieu"});
                    let ap = h
                        .act(engine.as_ref(), action, None, None, false)
                        .expect("accepted");
                    let row = Row::of(&ap, &h).expect("row");
                    barrier.wait();
                    s.append(&id, row)
                })
            })
            .collect();
        let outs: Vec<_> = racers
            .into_iter()
            .map(|t| t.join().expect("racer"))
            .collect();
        let won = outs.iter().filter(|o| o.is_ok()).count();
        assert_eq!(won, 1, "round {round}: {outs:?}");
        assert!(
            outs.iter()
                .any(|o| matches!(o, Err(StoreError::Conflict(_)))),
            "round {round}: {outs:?}"
        );
        // Undone through `a`, so the next round's command is legal again.
        let mut h = a.live(&id).expect("live").expect("game").head;
        undo(a.as_ref(), &id, &mut h);
    }
    let g = b.load(&id).expect("load").expect("game");
    assert_eq!(g.log.entries().len(), 21);
    assert_eq!(g.replay(), Ok(11));
}

/// A PostgreSQL database as the first release of its schema left it (its games played with the
/// first `tercio_append`) is brought up to date by the next server to connect, and its games
/// go on: the log kept whole, appends and undos taken by the new function, a stale one refused.
#[test]
fn a_postgres_database_from_the_first_schema_migrates_and_keeps_its_games() {
    let url = testing::shared().database();
    let old = PgStore::connect_at(&url, 1).expect("the first schema");
    let mut g = game();
    // The first release made games with the plain chain, whose column it did not have.
    g.chain_version = tercio_rules::game::ChainVersion::V1;
    let id = old.create(&g, None).expect("create");
    g.game_id = id.clone();
    let mut head = old.live(&id).expect("live").expect("game").head;
    for action in [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
    ] {
        act(&old, &id, &mut head, action.clone());
        g.act(action).expect("act");
    }
    drop(old);
    let new = PgStore::connect(&url).expect("migrated");
    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).expect("client");
    let version: i64 = client
        .query_one("SELECT version FROM tercio_schema", &[])
        .expect("version")
        .get(0);
    assert_eq!(version, pg::SCHEMA.len() as i64);
    let options: Vec<String> = client
        .query_one(
            "SELECT reloptions FROM pg_class WHERE relname = 'heads'",
            &[],
        )
        .expect("options")
        .get(0);
    assert_eq!(options, ["fillfactor=50"]);
    assert_eq!(new.load(&id).expect("load").expect("game"), g);
    let live = new.live(&id).expect("live").expect("game");
    let mut head = live.head;
    undo(&new, &id, &mut head);
    g.undo().expect("undo");
    let stale = head.clone();
    let action = json!({"action": "command", "leader": "chandieu"});
    act(&new, &id, &mut head, action.clone());
    g.act(action.clone()).expect("act");
    assert_eq!(new.load(&id).expect("load").expect("game"), g);
    let mut stale = stale;
    let engine = stale.engine().expect("engine");
    let late = stale
        .act(engine.as_ref(), action, None, None, false)
        .expect("accepted");
    assert!(matches!(
        new.append(&id, Row::of(&late, &stale).expect("row")),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(
        new.load(&id).expect("load").expect("game"),
        g,
        "nothing written"
    );
}

/// What a watcher heard, owned ([`Heard`]).
#[derive(Debug, PartialEq)]
enum Told {
    Wrote(String, u64),
    Missed(String),
}

impl From<Heard<'_>> for Told {
    fn from(h: Heard<'_>) -> Told {
        match h {
            Heard::Wrote(g, r) => Told::Wrote(g.to_string(), r),
            Heard::Missed(g) => Told::Missed(g.to_string()),
        }
    }
}

/// A server listens for other servers' writes to a game only while a live page of it shows the
/// game: with none, it holds no listening connection; when listening for a game begins it says
/// so (writes before may have been missed), then hears that game's writes and no other's.
#[test]
fn a_server_hears_only_the_games_it_attends() {
    let url = testing::shared().database();
    let open = || PgStore::connect(&url).expect("connect");
    let (a, b) = (open(), open());
    let (tx, rx) = std::sync::mpsc::channel::<Told>();
    let tx = Mutex::new(tx);
    b.watch(Box::new(move |h| {
        let _ = lock(&tx).send(Told::from(h));
    }))
    .expect("watch");
    let until = |want: i64, what: &str| testing::shared().until_listening(&url, want, what);
    let wait = || {
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("heard within 30 s")
    };
    let (shown, other) = (
        a.create(&game(), None).expect("create"),
        a.create(&game(), None).expect("create"),
    );
    let mut head = a.live(&shown).expect("live").expect("game").head;
    let mut elsewhere = a.live(&other).expect("live").expect("game").head;
    act(&a, &shown, &mut head, json!({"action": "initiative"}));
    until(0, "no listener while nothing is attended");
    assert!(rx.try_recv().is_err(), "nothing heard");
    b.attend(&shown, true);
    assert_eq!(wait(), Told::Missed(shown.clone()), "listening began");
    until(1, "one listener while a game is attended");
    // The other game's write comes first: were it heard, it would be heard first.
    act(&a, &other, &mut elsewhere, json!({"action": "initiative"}));
    act(
        &a,
        &shown,
        &mut head,
        json!({"action": "command", "leader": "chandieu"}),
    );
    let rev = a.live(&shown).expect("live").expect("game").rev;
    assert_eq!(
        wait(),
        Told::Wrote(shown.clone(), rev),
        "only the game shown"
    );
    b.attend(&shown, false);
    until(0, "the listener gone once nothing is attended");
    b.attend(&shown, true);
    assert_eq!(wait(), Told::Missed(shown.clone()), "listening began again");
    undo(&a, &shown, &mut head);
    let rev = a.live(&shown).expect("live").expect("game").rev;
    assert_eq!(wait(), Told::Wrote(shown.clone(), rev), "the undo");
}

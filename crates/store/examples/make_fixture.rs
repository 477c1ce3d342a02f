//! Writes `tests/fixtures/release-0.1.db` and `tests/fixtures/release-0.1.json`: a database as
//! release 0.1's store writes it (schema `PRAGMA user_version` 2: `games`, `log_entries`,
//! `seats`, `host`), and what a later store must still read from it.
//!
//! **Run once, against release 0.1's store; do not run it again after the schema changes.** The
//! fixture is evidence of what the released code wrote: re-running this with a rewritten store
//! would write the new schema and prove nothing. The database's ids, tokens, host key and
//! timestamps are random or the clock's, so a second run would not reproduce the same files
//! anyway (the games themselves are deterministic: fixed seeds and nonces).
//!
//! ```text
//! cargo run -p tercio-store --example make_fixture
//! ```
//!
//! The games: one of each of the five rule sets, from the shipped scenarios and the scripted
//! actions of `examples/<ruleset>/game/`, each saved after every action as the server does.
//! - El Gran Capitán, Cerignola: the charge of `04-charge.json` taken and undone again and again
//!   (voids in the log, the dice stream moving on), then the rest of the turn.
//! - A Bloody Dismal Fight, Agincourt: settings changed (own units, physical dice); after the
//!   scripted turn, an initiative with faces entered at the table (`entered: true`), undone and
//!   entered again.
//! - The Sword and the Flame Renaissance, Bicocca: concluded by the game master.
//! - Commands & Colors ECW, Tibbermore: two player-turns, archived.
//! - Callan Renaissance, Pavia: a side's seat reissued (its old token withdrawn).
//! - El Gran Capitán, Ravenna: created and never played (no log entries).
//!
//! The JSON gives, per game id, the rule set, title, scenario id, seed, nonce, the number of log
//! entries, `Game::log_digest()`, `Game::replay()`'s count, the canonical JSON of the state
//! (`serde_json::to_string(&game.state)`), settings, concluded, archived, the list line (turn,
//! over, events, timestamps), each current seat's role and token, and withdrawn tokens; and the
//! host key. A test should copy the `.db` to a temporary directory before opening it: opening it
//! in WAL mode (as the release did) writes `-wal` and `-shm` files beside it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tercio_rules::game::Game;
use tercio_store::{Role, Settings, SideRights, SqliteStore, Store};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenario_game(id: &str, seed: u64, nonce: &str) -> Game {
    let path = root().join("scenarios").join(format!("{id}.toml"));
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let sc = tercio_rules::scenario::parse(&path.display().to_string(), &text)
        .unwrap_or_else(|d| panic!("{id}: {d:?}"));
    let mut g = Game::new(sc, seed).expect("game");
    g.nonce = nonce.to_string();
    g
}

/// The scripted actions of `examples/<ruleset>/game/` whose names start with a digit, in order.
fn script(rules: &str) -> Vec<(String, Value)> {
    let dir = root().join("examples").join(rules).join("game");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let v = serde_json::from_str(&std::fs::read_to_string(&p).expect("read"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, v)
        })
        .collect()
}

/// One action as the server records it: act, sign, save.
fn act(store: &SqliteStore, id: &str, g: &mut Game, name: &str, action: Value, by: &str) {
    let rules = g.ruleset.clone();
    if let Err(e) = g.act_signed(action, None, Some(by)) {
        panic!("{rules} {name}: {e}");
    }
    store.save(id, g).expect("save");
}

fn undo(store: &SqliteStore, id: &str, g: &mut Game) {
    g.undo().expect("undo").expect("something to undo");
    store.save(id, g).expect("save");
}

/// One action with faces "thrown at the table": whatever dice the plan asks for, answered from
/// a fixed list until it asks for no more.
fn act_entered(store: &SqliteStore, id: &str, g: &mut Game, action: Value, by: &str) {
    let pick = [5u8, 2, 4, 1, 6, 3];
    let mut faces: Vec<u8> = Vec::new();
    for _ in 0..20 {
        match g.needed(&action, &faces).expect("needed") {
            None => break,
            Some(dice) => {
                for d in dice {
                    let f = pick[faces.len() % pick.len()];
                    faces.push(if f > d.sides { 1 + f % d.sides } else { f });
                }
            }
        }
    }
    g.act_signed(action, Some(&faces), Some(by))
        .expect("entered");
    store.save(id, g).expect("save");
}

fn main() {
    let dir = root().join("crates/store/tests/fixtures");
    std::fs::create_dir_all(&dir).expect("fixtures dir");
    let db = dir.join("release-0.1.db");
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let p = PathBuf::from(format!("{}{suffix}", db.display()));
        if p.exists() {
            std::fs::remove_file(&p).expect("remove old fixture");
        }
    }

    let store = SqliteStore::open(&db).expect("open");
    let host_key = store.host_key().expect("host key");
    // Per game: (label, scenario id, the game as the generator last saved it).
    let mut made: Vec<(&str, &str, String, Game)> = Vec::new();
    let mut withdrawn: BTreeMap<String, Vec<String>> = BTreeMap::new();

    // El Gran Capitán, Cerignola: a charge taken and undone many times, then the turn.
    {
        let sid = "el-gran-capitan/cerignola-1503";
        let mut g = scenario_game(sid, 5, "0123456789abcdef0123456789abcdef");
        let id = store.create(&g, Some(sid)).expect("create");
        let steps = script("el-gran-capitan");
        for (name, a) in &steps[..3] {
            act(&store, &id, &mut g, name, a.clone(), "game-master");
        }
        let (charge_name, charge) = &steps[3];
        for _ in 0..17 {
            act(
                &store,
                &id,
                &mut g,
                charge_name,
                charge.clone(),
                "game-master",
            );
            undo(&store, &id, &mut g);
        }
        for (name, a) in &steps[3..] {
            act(&store, &id, &mut g, name, a.clone(), "game-master");
        }
        assert!(g.log.entries().len() >= 40);
        made.push(("egc-cerignola-undos", sid, id, g));
    }

    // A Bloody Dismal Fight, Agincourt: settings changed, one action with faces entered.
    {
        let sid = "bloody-dismal-fight/agincourt-1415";
        let mut g = scenario_game(sid, 1, "fedcba9876543210fedcba9876543210");
        let id = store.create(&g, Some(sid)).expect("create");
        let settings = Settings {
            side_rights: SideRights::OwnUnits,
            physical_dice: true,
        };
        assert!(store.set_settings(&id, &settings).expect("settings"));
        let steps = script("bloody-dismal-fight");
        for (i, (name, a)) in steps.iter().enumerate() {
            let by = if i % 2 == 0 {
                "game-master"
            } else {
                "side:english"
            };
            act(&store, &id, &mut g, name, a.clone(), by);
        }
        // Turn 2's first initiative thrown at the table, undone, and thrown again.
        let initiative = json!({"action": "initiative"});
        act_entered(&store, &id, &mut g, initiative.clone(), "game-master");
        undo(&store, &id, &mut g);
        act_entered(&store, &id, &mut g, initiative, "game-master");
        made.push(("bdf-agincourt-settings", sid, id, g));
    }

    // The Sword and the Flame Renaissance, Bicocca: part of a turn, then concluded.
    {
        let sid = "sword-and-flame-renaissance/bicocca-1522";
        let mut g = scenario_game(sid, 10, "00112233445566778899aabbccddeeff");
        let id = store.create(&g, Some(sid)).expect("create");
        for (name, a) in script("sword-and-flame-renaissance").iter().take(16) {
            act(&store, &id, &mut g, name, a.clone(), "game-master");
        }
        assert!(store.conclude(&id).expect("conclude"));
        made.push(("tsatf-bicocca-concluded", sid, id, g));
    }

    // Commands & Colors ECW, Tibbermore: two player-turns, then archived. A card game: the sides'
    // links act from the start, as the server sets it.
    {
        let sid = "commands-colors-ecw/tibbermore-1644";
        let mut g = scenario_game(sid, 3, "ffeeddccbbaa99887766554433221100");
        let id = store.create(&g, Some(sid)).expect("create");
        let settings = Settings {
            side_rights: SideRights::OwnUnits,
            physical_dice: false,
        };
        assert!(store.set_settings(&id, &settings).expect("settings"));
        for (name, a) in script("commands-colors-ecw") {
            act(&store, &id, &mut g, &name, a, "game-master");
        }
        assert!(store.set_archived(&id, true).expect("archive"));
        made.push(("ecw-tibbermore-archived", sid, id, g));
    }

    // Callan Renaissance, Pavia: the first turn's opening, and a side's seat reissued.
    {
        let sid = "callan-renaissance/pavia-1525";
        let mut g = scenario_game(sid, 151, "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5");
        let id = store.create(&g, Some(sid)).expect("create");
        let settings = Settings {
            side_rights: SideRights::OwnUnits,
            physical_dice: false,
        };
        assert!(store.set_settings(&id, &settings).expect("settings"));
        for (name, a) in script("callan-renaissance").iter().take(12) {
            act(&store, &id, &mut g, name, a.clone(), "game-master");
        }
        let side = store.seats(&id).expect("seats")[1].clone();
        assert!(matches!(side.role, Role::Side(_)));
        let new = store
            .reissue(&id, &side.role)
            .expect("reissue")
            .expect("seat");
        assert_ne!(new.token, side.token);
        withdrawn.insert(id.clone(), vec![side.token]);
        made.push(("callan-pavia-reissued", sid, id, g));
    }

    // El Gran Capitán, Ravenna: created, never played.
    {
        let sid = "el-gran-capitan/ravenna-1512";
        let g = scenario_game(sid, 42, "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f");
        let id = store.create(&g, Some(sid)).expect("create");
        made.push(("egc-ravenna-empty", sid, id, g));
    }
    drop(store);

    // One file: the WAL folded into the database, the free pages dropped.
    {
        let conn = rusqlite::Connection::open(&db).expect("reopen");
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .expect("checkpoint");
        conn.execute_batch("VACUUM").expect("vacuum");
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .expect("checkpoint");
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(version, 2, "release 0.1's schema");
    }
    for suffix in ["-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", db.display()));
        assert!(!p.exists(), "{} left behind", p.display());
    }

    // The expectations, read back through the store from the file just written (then the
    // generator's side files are removed again).
    let store = SqliteStore::open(&db).expect("reopen");
    let mut games = BTreeMap::new();
    let lists: Vec<_> = [false, true]
        .iter()
        .flat_map(|a| store.list(*a).expect("list"))
        .collect();
    for (label, sid, id, mine) in &made {
        let g = store.load(id).expect("load").expect("game");
        assert_eq!(&g, mine, "{label}: the store gives back what was saved");
        let replayed = g
            .replay()
            .unwrap_or_else(|e| panic!("{label}: replay: {e}"));
        let meta = store.meta(id).expect("meta").expect("game");
        let line = lists.iter().find(|l| &l.id == id).expect("listed");
        let seats: Vec<Value> = store
            .seats(id)
            .expect("seats")
            .iter()
            .map(|s| json!({"role": s.role, "token": s.token}))
            .collect();
        games.insert(
            id.clone(),
            json!({
                "label": label,
                "rule_set": g.ruleset,
                "title": g.scenario.title,
                "scenario_id": sid,
                "seed": g.seed,
                "nonce": g.nonce,
                "commitment": g.commitment(),
                "log_entries": g.log.entries().len(),
                "log_digest": g.log_digest(),
                "replay": replayed,
                "state": serde_json::to_string(&g.state).expect("state"),
                "settings": meta.settings,
                "concluded": meta.concluded,
                "archived": line.archived,
                "list": {
                    "turn": line.turn,
                    "over": line.over,
                    "events": line.events,
                    "created_at": line.created_at,
                    "updated_at": line.updated_at,
                },
                "seats": seats,
                "withdrawn_tokens": withdrawn.get(id).cloned().unwrap_or_default(),
            }),
        );
    }
    assert_eq!(store.host_key().expect("host key"), host_key);
    drop(store);
    for suffix in ["-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", db.display()));
        if p.exists() {
            std::fs::remove_file(&p).expect("remove");
        }
    }

    let out = json!({
        "about": "Written by crates/store/examples/make_fixture.rs with release 0.1's store (schema user_version 2), once. For each game id: what a later store must still read from release-0.1.db. `state` is serde_json::to_string(&game.state); `log_digest` is Game::log_digest(); `replay` is Game::replay()'s count; `seats` are the current seats in the store's order; `withdrawn_tokens` must no longer open a seat.",
        "schema_user_version": 2,
        "host_key": host_key,
        "games": games,
    });
    let text = serde_json::to_string_pretty(&out).expect("json") + "\n";
    std::fs::write(dir.join("release-0.1.json"), text).expect("write json");
    let size = std::fs::metadata(&db).expect("db").len();
    println!(
        "wrote {} ({size} bytes) and release-0.1.json: {} games",
        db.display(),
        made.len()
    );
}

//! Tercio's storage: games and their append-only logs.
//!
//! [`Store`] is the trait the server uses; [`SqliteStore`] is the embedded default. Every write is
//! one transaction with `synchronous = FULL`, so an action acknowledged to a player is on disk.
//! Log entries are only ever inserted, never updated or deleted (deleting a whole game aside).

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::{EventLog, LogEntry};
use tercio_rules::game::{Game, GameEvent, FORMAT};
use tercio_rules::scenario::Scenario;

#[derive(Debug)]
pub enum StoreError {
    Db(String),
    Corrupt(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Db(s) => write!(f, "database error: {s}"),
            StoreError::Corrupt(s) => write!(f, "stored game is unreadable: {s}"),
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Db(e.to_string())
    }
}

/// One line of the games list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameSummary {
    pub id: String,
    pub title: String,
    pub rule_set: String,
    pub scenario: Option<String>,
    pub turn: u64,
    pub over: bool,
    pub events: u64,
    pub created_at: i64,
    pub updated_at: i64,
    pub archived: bool,
}

/// Who holds a link: the game master, one side's player, or a spectator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", content = "side", rename_all = "kebab-case")]
pub enum Role {
    GameMaster,
    Side(String),
    Spectator,
}

/// A seat at a game: an unguessable token (the capability in the seat's link) and its role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Seat {
    pub token: String,
    pub game_id: String,
    pub role: Role,
}

/// What the game master allows the sides' seats to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SideRights {
    /// See the state, the log and the results; nothing else.
    #[default]
    Watch,
    /// Also ask the odds and resolve the actions of the side's own units and leaders.
    OwnUnits,
}

/// Per-game options the game master sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub side_rights: SideRights,
    /// Faces thrown on real dice are typed in (by the game master, or by a side for its own
    /// units when it may resolve them) instead of drawn from the seed.
    pub physical_dice: bool,
}

/// What the store keeps about a game besides the game itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub settings: Settings,
    /// The game master ended the game (the seed is then revealed and nothing more is recorded).
    pub concluded: bool,
}

pub trait Store: Send + Sync {
    /// Store a new game with its seats (game master, one per side, spectator); returns its id.
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError>;
    fn load(&self, id: &str) -> Result<Option<Game>, StoreError>;
    /// Persist the log entries the store does not have yet, and the state, in one transaction.
    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError>;
    fn list(&self, archived: bool) -> Result<Vec<GameSummary>, StoreError>;
    fn set_archived(&self, id: &str, archived: bool) -> Result<bool, StoreError>;
    fn delete(&self, id: &str) -> Result<bool, StoreError>;
    /// The seat a token opens, if the token is current.
    fn seat(&self, token: &str) -> Result<Option<Seat>, StoreError>;
    /// A game's current seats: game master first, then the sides in scenario order, spectator.
    fn seats(&self, game_id: &str) -> Result<Vec<Seat>, StoreError>;
    /// Withdraw a seat's current token and issue a new one. `None` if the game has no such seat.
    fn reissue(&self, game_id: &str, role: &Role) -> Result<Option<Seat>, StoreError>;
    fn meta(&self, game_id: &str) -> Result<Option<Meta>, StoreError>;
    fn set_settings(&self, game_id: &str, settings: &Settings) -> Result<bool, StoreError>;
    /// Mark the game concluded by the game master.
    fn conclude(&self, game_id: &str) -> Result<bool, StoreError>;
    /// The key that opens the host's pages (all games, new games), created on first use.
    fn host_key(&self) -> Result<String, StoreError>;
}

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        rule_set TEXT NOT NULL,
        scenario_id TEXT,
        scenario TEXT NOT NULL,
        seed INTEGER NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE log_entries (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );",
    "ALTER TABLE games ADD COLUMN nonce TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE games ADD COLUMN concluded_at INTEGER;
    CREATE TABLE seats (
        token TEXT PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        ord INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
    );
    CREATE INDEX seats_by_game ON seats(game_id);
    CREATE TABLE host (key TEXT NOT NULL);
    -- Games made before seats existed get theirs now, and a nonce, without which the seed could
    -- be found from its commitment by trying seeds (SQLite's randomblob is its CSPRNG).
    UPDATE games SET nonce = lower(hex(randomblob(16))) WHERE nonce = '';
    INSERT INTO seats (token, game_id, role, ord, created_at)
        SELECT lower(hex(randomblob(16))), id, 'game-master', 0, updated_at FROM games;
    INSERT INTO seats (token, game_id, role, ord, created_at)
        SELECT lower(hex(randomblob(16))), g.id, 'side:' || json_extract(s.value, '$.id'), s.key + 1, g.updated_at
        FROM games g, json_each(g.scenario, '$.sides') s;
    INSERT INTO seats (token, game_id, role, ord, created_at)
        SELECT lower(hex(randomblob(16))), g.id, 'spectator', 1 + json_array_length(g.scenario, '$.sides'), g.updated_at
        FROM games g;",
];

pub struct SqliteStore {
    conn: Mutex<Connection>,
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn new_id() -> String {
    let n = getrandom::u64().unwrap_or_else(|_| now() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    format!("{n:016x}")
}

/// 128 random bits, hex: a seat's token or the host key. Without the system's entropy there is
/// no unguessable token, so this fails rather than fall back on anything predictable.
fn new_token() -> Result<String, StoreError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| StoreError::Db(format!("no system randomness: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

fn role_text(r: &Role) -> String {
    match r {
        Role::GameMaster => "game-master".into(),
        Role::Side(s) => format!("side:{s}"),
        Role::Spectator => "spectator".into(),
    }
}

fn role_of(t: &str) -> Role {
    match t.strip_prefix("side:") {
        Some(s) => Role::Side(s.to_string()),
        None if t == "game-master" => Role::GameMaster,
        None => Role::Spectator,
    }
}

fn insert_seat(
    tx: &rusqlite::Transaction,
    game_id: &str,
    role: &Role,
    ord: i64,
) -> Result<Seat, StoreError> {
    let token = new_token()?;
    tx.execute(
        "INSERT INTO seats (token, game_id, role, ord, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token, game_id, role_text(role), ord, now()],
    )?;
    Ok(Seat {
        token,
        game_id: game_id.to_string(),
        role: role.clone(),
    })
}

impl SqliteStore {
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Db(format!("{}: {e}", dir.display())))?;
        }
        Self::init(Connection::open(path)?)
    }

    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<SqliteStore, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let mut conn = conn;
        for (i, m) in MIGRATIONS
            .iter()
            .enumerate()
            .skip(usize::try_from(version).unwrap_or(0))
        {
            let tx = conn.transaction()?;
            tx.execute_batch(m)?;
            tx.pragma_update(None, "user_version", i as i64 + 1)?;
            tx.commit()?;
        }
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn insert_entries(
    tx: &rusqlite::Transaction,
    id: &str,
    game: &Game,
    from_seq: u64,
) -> Result<(), StoreError> {
    let mut stmt =
        tx.prepare_cached("INSERT INTO log_entries (game_id, seq, entry) VALUES (?1, ?2, ?3)")?;
    for e in game.log.entries.iter().filter(|e| e.seq() > from_seq) {
        let text = serde_json::to_string(e).map_err(|x| StoreError::Corrupt(x.to_string()))?;
        stmt.execute(params![id, e.seq() as i64, text])?;
    }
    Ok(())
}

impl Store for SqliteStore {
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError> {
        let id = new_id();
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let scenario = serde_json::to_string(&game.scenario)
            .map_err(|x| StoreError::Corrupt(x.to_string()))?;
        let state =
            serde_json::to_string(&game.state).map_err(|x| StoreError::Corrupt(x.to_string()))?;
        let t = now();
        tx.execute(
            "INSERT INTO games (id, title, rule_set, scenario_id, scenario, seed, nonce, state, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
            params![id, game.scenario.title, game.ruleset, scenario_id, scenario, game.seed as i64, game.nonce, state, t],
        )?;
        insert_entries(&tx, &id, game, 0)?;
        let mut roles = vec![Role::GameMaster];
        roles.extend(game.scenario.sides.iter().map(|s| Role::Side(s.id.clone())));
        roles.push(Role::Spectator);
        for (i, r) in roles.iter().enumerate() {
            insert_seat(&tx, &id, r, i as i64)?;
        }
        tx.commit()?;
        Ok(id)
    }

    fn load(&self, id: &str) -> Result<Option<Game>, StoreError> {
        let conn = self.conn();
        let row: Option<(String, String, i64, String, String)> = conn
            .query_row(
                "SELECT rule_set, scenario, seed, state, nonce FROM games WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        let Some((rule_set, scenario, seed, state, nonce)) = row else {
            return Ok(None);
        };
        let scenario: Scenario =
            serde_json::from_str(&scenario).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let state: Value =
            serde_json::from_str(&state).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut stmt =
            conn.prepare_cached("SELECT entry FROM log_entries WHERE game_id = ?1 ORDER BY seq")?;
        let entries = stmt
            .query_map(params![id], |r| r.get::<_, String>(0))?
            .map(|t| {
                let t = t?;
                serde_json::from_str::<LogEntry<GameEvent>>(&t)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Some(Game {
            format: FORMAT.to_string(),
            ruleset: rule_set,
            seed: seed as u64,
            nonce,
            scenario,
            log: EventLog { entries },
            state,
        }))
    }

    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let stored: i64 = tx.query_row(
            "SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = ?1",
            params![id],
            |r| r.get(0),
        )?;
        insert_entries(&tx, id, game, stored as u64)?;
        let state =
            serde_json::to_string(&game.state).map_err(|x| StoreError::Corrupt(x.to_string()))?;
        let n = tx.execute(
            "UPDATE games SET state = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, state, now()],
        )?;
        if n != 1 {
            return Err(StoreError::Db(format!("no game {id}")));
        }
        tx.commit()?;
        Ok(())
    }

    fn list(&self, archived: bool) -> Result<Vec<GameSummary>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT g.id, g.title, g.rule_set, g.scenario_id, g.state, g.created_at, g.updated_at, g.archived,
                    (SELECT COUNT(*) FROM log_entries e WHERE e.game_id = g.id), g.concluded_at IS NOT NULL
             FROM games g WHERE g.archived = ?1 ORDER BY g.updated_at DESC, g.id",
        )?;
        let rows = stmt.query_map(params![archived as i64], |r| {
            let state: String = r.get(4)?;
            let v: Value = serde_json::from_str(&state).unwrap_or(Value::Null);
            Ok(GameSummary {
                id: r.get(0)?,
                title: r.get(1)?,
                rule_set: r.get(2)?,
                scenario: r.get(3)?,
                turn: v["turn"].as_u64().unwrap_or(0),
                over: v["phase"] == "over" || r.get::<_, bool>(9)?,
                created_at: r.get(5)?,
                updated_at: r.get(6)?,
                archived: r.get::<_, i64>(7)? != 0,
                events: r.get::<_, i64>(8)? as u64,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    fn set_archived(&self, id: &str, archived: bool) -> Result<bool, StoreError> {
        let n = self.conn().execute(
            "UPDATE games SET archived = ?2 WHERE id = ?1",
            params![id, archived as i64],
        )?;
        Ok(n == 1)
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .execute("DELETE FROM games WHERE id = ?1", params![id])?;
        Ok(n == 1)
    }

    fn seat(&self, token: &str) -> Result<Option<Seat>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT game_id, role FROM seats WHERE token = ?1 AND revoked_at IS NULL",
                params![token],
                |r| {
                    Ok(Seat {
                        token: token.to_string(),
                        game_id: r.get(0)?,
                        role: role_of(&r.get::<_, String>(1)?),
                    })
                },
            )
            .optional()?)
    }

    fn seats(&self, game_id: &str) -> Result<Vec<Seat>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT token, role FROM seats WHERE game_id = ?1 AND revoked_at IS NULL ORDER BY ord",
        )?;
        let rows = stmt.query_map(params![game_id], |r| {
            Ok(Seat {
                token: r.get(0)?,
                game_id: game_id.to_string(),
                role: role_of(&r.get::<_, String>(1)?),
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    fn reissue(&self, game_id: &str, role: &Role) -> Result<Option<Seat>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let ord: Option<i64> = tx
            .query_row(
                "SELECT ord FROM seats WHERE game_id = ?1 AND role = ?2 AND revoked_at IS NULL",
                params![game_id, role_text(role)],
                |r| r.get(0),
            )
            .optional()?;
        let Some(ord) = ord else {
            return Ok(None);
        };
        tx.execute(
            "UPDATE seats SET revoked_at = ?3 WHERE game_id = ?1 AND role = ?2 AND revoked_at IS NULL",
            params![game_id, role_text(role), now()],
        )?;
        let seat = insert_seat(&tx, game_id, role, ord)?;
        tx.commit()?;
        Ok(Some(seat))
    }

    fn meta(&self, game_id: &str) -> Result<Option<Meta>, StoreError> {
        let row: Option<(String, Option<i64>)> = self
            .conn()
            .query_row(
                "SELECT settings, concluded_at FROM games WHERE id = ?1",
                params![game_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        row.map(|(settings, concluded)| {
            Ok(Meta {
                settings: serde_json::from_str(&settings)
                    .map_err(|e| StoreError::Corrupt(format!("settings: {e}")))?,
                concluded: concluded.is_some(),
            })
        })
        .transpose()
    }

    fn set_settings(&self, game_id: &str, settings: &Settings) -> Result<bool, StoreError> {
        let text =
            serde_json::to_string(settings).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let n = self.conn().execute(
            "UPDATE games SET settings = ?2, updated_at = ?3 WHERE id = ?1",
            params![game_id, text, now()],
        )?;
        Ok(n == 1)
    }

    fn conclude(&self, game_id: &str) -> Result<bool, StoreError> {
        let n = self.conn().execute(
            "UPDATE games SET concluded_at = COALESCE(concluded_at, ?2), updated_at = ?2 WHERE id = ?1",
            params![game_id, now()],
        )?;
        Ok(n == 1)
    }

    fn host_key(&self) -> Result<String, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let key: Option<String> = tx
            .query_row("SELECT key FROM host LIMIT 1", [], |r| r.get(0))
            .optional()?;
        let key = match key {
            Some(k) => k,
            None => {
                let k = new_token()?;
                tx.execute("INSERT INTO host (key) VALUES (?1)", params![k])?;
                k
            }
        };
        tx.commit()?;
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
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
        let tokens: std::collections::BTreeSet<&str> =
            seats.iter().map(|s| s.token.as_str()).collect();
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
}

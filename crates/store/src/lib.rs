//! Tercio's storage: games and their append-only logs.
//!
//! [`Store`] is the trait the server uses; [`SqliteStore`] is the embedded default. Every write is
//! one transaction with `synchronous = FULL`, so an action acknowledged to a player is on disk.
//! Log entries are only ever inserted, never updated or deleted (deleting a whole game aside).

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
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

pub trait Store: Send + Sync {
    /// Store a new game; returns its id.
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError>;
    fn load(&self, id: &str) -> Result<Option<Game>, StoreError>;
    /// Persist the log entries the store does not have yet, and the state, in one transaction.
    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError>;
    fn list(&self, archived: bool) -> Result<Vec<GameSummary>, StoreError>;
    fn set_archived(&self, id: &str, archived: bool) -> Result<bool, StoreError>;
    fn delete(&self, id: &str) -> Result<bool, StoreError>;
}

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &["CREATE TABLE games (
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
    );"];

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
            "INSERT INTO games (id, title, rule_set, scenario_id, scenario, seed, state, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            params![id, game.scenario.title, game.ruleset, scenario_id, scenario, game.seed as i64, state, t],
        )?;
        insert_entries(&tx, &id, game, 0)?;
        tx.commit()?;
        Ok(id)
    }

    fn load(&self, id: &str) -> Result<Option<Game>, StoreError> {
        let conn = self.conn();
        let row: Option<(String, String, i64, String)> = conn
            .query_row(
                "SELECT rule_set, scenario, seed, state FROM games WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let Some((rule_set, scenario, seed, state)) = row else {
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
                    (SELECT COUNT(*) FROM log_entries e WHERE e.game_id = g.id)
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
                over: v["phase"] == "over",
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
}

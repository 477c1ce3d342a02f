//! Tercio's storage: games and their append-only logs.
//!
//! [`Store`] is the trait the server uses; [`SqliteStore`] is the embedded default. Every write is
//! one transaction with `synchronous = FULL`, so an action acknowledged to a player is on disk.
//! Log entries are only ever inserted, never updated or deleted (deleting a whole game aside).

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Condvar, Mutex};

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::{EventLog, LogEntry};
use tercio_rules::game::{
    chain_next, chain_start, entry_text, Appended, Game, GameEvent, Head, FORMAT,
};
use tercio_rules::scenario::{Scenario, ScenarioFile, Source};

#[derive(Debug)]
pub enum StoreError {
    Db(String),
    Corrupt(String),
    /// The write does not follow the stored game: another writer came first.
    Conflict(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Db(s) => write!(f, "database error: {s}"),
            StoreError::Corrupt(s) => write!(f, "stored game is unreadable: {s}"),
            StoreError::Conflict(s) => write!(f, "conflicting write: {s}"),
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

/// A game as a live server keeps it: its head (state, sequence, dice position, hash chain, live
/// events — no log bodies), its settings, its seats, and the store's revision of it.
#[derive(Debug, Clone)]
pub struct Live {
    pub head: Head,
    pub meta: Meta,
    /// Current seats: game master first, then the sides in scenario order, spectator.
    pub seats: Vec<Seat>,
    /// Bumped by every write to the game (an entry, settings, links, the end): a cached copy
    /// whose revision is behind the store's is reloaded.
    pub rev: u64,
}

/// What one action adds to the store: the entry, the head after it, and whether the state is
/// kept as a checkpoint. Serialised by the caller, so the writer only writes.
#[derive(Debug, Clone)]
pub struct Row {
    pub seq: u64,
    /// The entry's JSON, as hashed.
    pub entry: String,
    /// For a void: the event it voids (checkpoints from there on no longer hold).
    pub voids: Option<u64>,
    /// The hash chain after this entry.
    pub chain: String,
    /// The state after this entry, as JSON, when it is kept as a checkpoint.
    pub state: Option<String>,
    pub stream_pos: u64,
    /// What the games list shows: the turn, and whether the rules say the battle is over.
    pub turn: u64,
    pub over: bool,
}

impl Row {
    /// The row for an entry a [`Head`] has just appended.
    pub fn of(a: &Appended, head: &Head) -> Result<Row, StoreError> {
        Ok(Row {
            seq: a.entry.seq(),
            entry: a.text.clone(),
            voids: a.voids,
            chain: a.chain.clone(),
            state: if a.checkpoint {
                Some(json_text(&head.state)?)
            } else {
                None
            },
            stream_pos: head.stream_pos,
            turn: turn_of(&head.state),
            over: over_of(&head.state),
        })
    }
}

/// Where an undo's fold starts: the nearest checkpoint before the voided event (none: the
/// scenario's initial state) and the effects of the live events between it and that event.
#[derive(Debug, Clone, Default)]
pub struct FoldBase {
    pub checkpoint: Option<(u64, Value)>,
    pub effects: Vec<Value>,
}

pub trait Store: Send + Sync {
    /// Store a new game with its seats (game master, one per side, spectator); returns its id.
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError>;
    /// The whole game, every log entry parsed: for exports, reports and verification, never
    /// for an action.
    fn load(&self, id: &str) -> Result<Option<Game>, StoreError>;
    /// Persist a whole game's entries the store does not have yet, its state and checkpoints
    /// (tools and tests; the server appends with [`Store::append`]).
    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError>;
    /// A game as a live server keeps it, read without parsing any log entry.
    fn live(&self, id: &str) -> Result<Option<Live>, StoreError>;
    /// Append one entry and the head after it, in the group commit; durable when this returns.
    /// The database judges the order: an entry whose sequence number is taken, or that does not
    /// follow the stored head, is refused as [`StoreError::Conflict`] with nothing written.
    /// Returns the game's new revision.
    fn append(&self, id: &str, row: Row) -> Result<u64, StoreError>;
    /// The log entries after `after`, at most `limit`, in order.
    fn entries(
        &self,
        id: &str,
        after: u64,
        limit: u64,
    ) -> Result<Vec<LogEntry<GameEvent>>, StoreError>;
    /// The last `n` log entries, in order.
    fn last_entries(&self, id: &str, n: u64) -> Result<Vec<LogEntry<GameEvent>>, StoreError>;
    /// Where an undo of the event at `target` folds from; `latest` is the latest checkpoint
    /// the caller knows of ([`Head::checkpoint`]).
    fn fold_base(&self, id: &str, target: u64, latest: u64) -> Result<FoldBase, StoreError>;
    fn list(&self, archived: bool) -> Result<Vec<GameSummary>, StoreError>;
    fn set_archived(&self, id: &str, archived: bool) -> Result<bool, StoreError>;
    fn delete(&self, id: &str) -> Result<bool, StoreError>;
    /// The seat a token opens, if the token is current.
    fn seat(&self, token: &str) -> Result<Option<Seat>, StoreError>;
    /// The seat a token opens with its game's current revision: one read per request.
    fn seat_at(&self, token: &str) -> Result<Option<(Seat, u64)>, StoreError>;
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

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran. A migration
/// may also have a step in Rust ([`fixup`]) run in the same transaction.
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
    // Events, not documents. Each game's head (revision, entry count, dice position, updated
    // time, what the games list shows, hash chain) in a narrow table of its own: every request
    // reads the revision, and an action rewrites the head, neither touching the scenario's
    // overflow pages. The state is not rewritten with each entry: it is the fold of the log from
    // the latest checkpoint, and a live server keeps it in memory. Voids findable without
    // parsing entries, each entry's chain hash, and the checkpoints.
    "CREATE TABLE heads (
        game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        rev INTEGER NOT NULL DEFAULT 1,
        seq INTEGER NOT NULL DEFAULT 0,
        stream_pos INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        turn INTEGER NOT NULL DEFAULT 0,
        over INTEGER NOT NULL DEFAULT 0,
        chain TEXT NOT NULL DEFAULT ''
    );
    INSERT INTO heads (game_id, updated_at, turn, over)
        SELECT id, updated_at, COALESCE(json_extract(state, '$.turn'), 0),
               COALESCE(json_extract(state, '$.phase') = 'over', 0)
        FROM games;
    ALTER TABLE games DROP COLUMN state;
    ALTER TABLE games DROP COLUMN updated_at;
    ALTER TABLE log_entries ADD COLUMN voids INTEGER;
    ALTER TABLE log_entries ADD COLUMN hash TEXT NOT NULL DEFAULT '';
    CREATE TABLE checkpoints (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    UPDATE log_entries SET voids = json_extract(entry, '$.voids')
        WHERE json_extract(entry, '$.entry') = 'void';
    CREATE INDEX log_voids ON log_entries(game_id, voids);",
];

/// The Rust side of migration `version` (1-based), in its transaction: for the event-shaped
/// schema, every game's head, entry hashes and checkpoints, computed once from its whole log.
fn fixup(tx: &rusqlite::Transaction, version: usize) -> Result<(), StoreError> {
    if version != 3 {
        return Ok(());
    }
    let ids: Vec<String> = {
        let mut stmt = tx.prepare("SELECT id FROM games")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for id in ids {
        let Some(game) = load_game(tx, &id)? else {
            continue;
        };
        let mut h = chain_start();
        for e in game.log.entries() {
            let text = entry_text(e);
            h = chain_next(&h, &text);
            tx.execute(
                "UPDATE log_entries SET hash = ?3, entry = ?4 WHERE game_id = ?1 AND seq = ?2",
                params![id, e.seq() as i64, h, text],
            )?;
        }
        tx.execute(
            "UPDATE heads SET seq = ?2, stream_pos = ?3, chain = ?4 WHERE game_id = ?1",
            params![
                id,
                game.log.entries().len() as i64,
                game.stream_pos() as i64,
                h
            ],
        )?;
        // A game whose rule set this build cannot fold keeps no checkpoints: its undo folds
        // from the start, as before.
        if let Ok(cps) = game.checkpoints() {
            for (seq, state) in cps {
                tx.execute(
                    "INSERT OR REPLACE INTO checkpoints (game_id, seq, state) VALUES (?1, ?2, ?3)",
                    params![id, seq as i64, json_text(&state)?],
                )?;
            }
        }
    }
    Ok(())
}

/// The embedded SQLite store. Writes go through one connection in **group commits**: a caller
/// queues its write and either becomes the leader, which commits every queued write in one
/// transaction (each in its own savepoint, so one refused write spoils no other), or finds its
/// write committed by the leader before it. Each caller returns only after its own commit, with
/// `synchronous = FULL`. Reads use their own WAL connections and never wait for a commit.
pub struct SqliteStore {
    writer: Mutex<Connection>,
    queue: Mutex<Vec<Job>>,
    /// Read connections (a file database); `None` in memory, where reads share the writer's.
    readers: Option<Readers>,
}

type Done = Box<dyn Any + Send>;
type JobFn = Box<dyn FnOnce(&Connection) -> Result<Done, StoreError> + Send>;

struct Job {
    run: JobFn,
    done: mpsc::Sender<Result<Done, StoreError>>,
}

struct Readers {
    path: PathBuf,
    /// Idle connections, and how many are open in all.
    pool: Mutex<(Vec<Connection>, usize)>,
    freed: Condvar,
}

/// How many read connections are open at most. Every one is kept and reused (opening one costs
/// a parse of the schema and of every statement); a reader beyond them waits for one, which on
/// a machine of a few cores costs less than more connections would.
const READERS: usize = 16;

/// How many prepared statements each connection keeps: more than the store has.
const STATEMENTS_KEPT: usize = 64;

impl Readers {
    fn new(path: &Path) -> Readers {
        Readers {
            path: path.to_path_buf(),
            pool: Mutex::new((Vec::new(), 0)),
            freed: Condvar::new(),
        }
    }

    fn take(&self) -> Result<Connection, StoreError> {
        let mut pool = lock(&self.pool);
        loop {
            if let Some(c) = pool.0.pop() {
                return Ok(c);
            }
            if pool.1 < READERS {
                pool.1 += 1;
                break;
            }
            pool = self.freed.wait(pool).unwrap_or_else(|e| e.into_inner());
        }
        drop(pool);
        let opened = Self::open(&self.path);
        if opened.is_err() {
            lock(&self.pool).1 -= 1;
            self.freed.notify_one();
        }
        opened
    }

    fn open(path: &Path) -> Result<Connection, StoreError> {
        let c = Connection::open(path)?;
        c.busy_timeout(std::time::Duration::from_secs(5))?;
        c.pragma_update(None, "query_only", "ON")?;
        // A small page cache each: the hot pages are shared through the OS's cache.
        c.pragma_update(None, "cache_size", -1024)?;
        c.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
        Ok(c)
    }

    fn give(&self, c: Connection) {
        lock(&self.pool).0.push(c);
        self.freed.notify_one();
    }
}

/// A read connection lent out, given back however the reader ends.
struct Lent<'a> {
    readers: &'a Readers,
    conn: Option<Connection>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.conn.take() {
            self.readers.give(c);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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

/// The turn a state is in, for the games list (0 when it has none).
fn turn_of(state: &Value) -> u64 {
    state["turn"].as_u64().unwrap_or(0)
}

/// Whether the rules say the battle is over, for the games list.
fn over_of(state: &Value) -> bool {
    state["phase"] == "over"
}

fn json_text<T: Serialize>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|x| StoreError::Corrupt(x.to_string()))
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

fn insert_seat(tx: &Connection, game_id: &str, role: &Role, ord: i64) -> Result<Seat, StoreError> {
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

/// A write to a game besides its log: its revision moves on (so cached copies are read again)
/// and, when `touched`, its time in the games list.
fn bump(tx: &Connection, game_id: &str, touched: bool) -> Result<(), StoreError> {
    if touched {
        tx.prepare_cached("UPDATE heads SET rev = rev + 1, updated_at = ?2 WHERE game_id = ?1")?
            .execute(params![game_id, now()])?;
    } else {
        tx.prepare_cached("UPDATE heads SET rev = rev + 1 WHERE game_id = ?1")?
            .execute(params![game_id])?;
    }
    Ok(())
}

fn is_conflict(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::ConstraintViolation
    )
}

impl SqliteStore {
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Db(format!("{}: {e}", dir.display())))?;
        }
        let mut store = Self::init(Connection::open(path)?)?;
        store.readers = Some(Readers::new(path));
        Ok(store)
    }

    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<SqliteStore, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let mut conn = conn;
        for (i, m) in MIGRATIONS
            .iter()
            .enumerate()
            .skip(usize::try_from(version).unwrap_or(0))
        {
            let tx = conn.transaction()?;
            tx.execute_batch(m)?;
            fixup(&tx, i + 1)?;
            tx.pragma_update(None, "user_version", i as i64 + 1)?;
            tx.commit()?;
        }
        Ok(SqliteStore {
            writer: Mutex::new(conn),
            queue: Mutex::new(Vec::new()),
            readers: None,
        })
    }

    /// Run `f` on a read connection.
    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &self.readers {
            None => f(&lock(&self.writer)),
            Some(r) => {
                let lent = Lent {
                    readers: r,
                    conn: Some(r.take()?),
                };
                match &lent.conn {
                    Some(c) => f(c),
                    None => Err(StoreError::Db("no read connection".into())),
                }
            }
        }
    }

    /// Run `f` in the next group commit; returns once that commit is durable.
    fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = mpsc::channel();
        lock(&self.queue).push(Job {
            run: Box::new(move |t| f(t).map(|v| Box::new(v) as Done)),
            done: tx,
        });
        let done = loop {
            if let Ok(r) = rx.try_recv() {
                break r;
            }
            let mut conn = lock(&self.writer);
            // A leader that held the connection before us may have committed our write.
            if let Ok(r) = rx.try_recv() {
                break r;
            }
            let jobs = std::mem::take(&mut *lock(&self.queue));
            commit_group(&mut conn, jobs);
        };
        done.and_then(|b| {
            b.downcast::<T>()
                .map(|b| *b)
                .map_err(|_| StoreError::Db("write answered with the wrong type".into()))
        })
    }
}

/// Commit `jobs` in one transaction, each in a savepoint, and answer each: its own error, the
/// commit's, or its value once committed.
fn commit_group(conn: &mut Connection, jobs: Vec<Job>) {
    if jobs.is_empty() {
        return;
    }
    // The transaction's statements are prepared once and kept, like every other.
    let sql = |q: &str| {
        conn.prepare_cached(q)
            .and_then(|mut s| s.execute([]))
            .map(|_| ())
    };
    if let Err(e) = sql("BEGIN IMMEDIATE") {
        for j in jobs {
            let _ = j.done.send(Err(StoreError::Db(e.to_string())));
        }
        return;
    }
    let mut answers = Vec::with_capacity(jobs.len());
    for j in jobs {
        let out = sql("SAVEPOINT job")
            .map_err(StoreError::from)
            .and_then(|()| (j.run)(conn));
        let closed = match &out {
            Ok(_) => sql("RELEASE job"),
            Err(_) => sql("ROLLBACK TO job").and_then(|()| sql("RELEASE job")),
        };
        let out = match closed {
            Ok(()) => out,
            Err(e) => Err(e.into()),
        };
        answers.push((j.done, out));
    }
    match sql("COMMIT") {
        Ok(()) => {
            for (done, out) in answers {
                let _ = done.send(out);
            }
        }
        Err(e) => {
            // Nothing of the group is kept.
            let _ = conn.execute_batch("ROLLBACK");
            for (done, out) in answers {
                let _ = done.send(out.and(Err(StoreError::Db(e.to_string()))));
            }
        }
    }
}

fn load_game(conn: &Connection, id: &str) -> Result<Option<Game>, StoreError> {
    let row: Option<(String, String, i64, String)> = conn
        .query_row(
            "SELECT rule_set, scenario, seed, nonce FROM games WHERE id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((rule_set, scenario, seed, nonce)) = row else {
        return Ok(None);
    };
    let scenario = stored_scenario(id, &scenario)?;
    let entries = query_entries(conn, id, 0, u64::MAX)?;
    let mut game = Game {
        format: FORMAT.to_string(),
        ruleset: rule_set,
        seed: seed as u64,
        nonce,
        scenario,
        log: EventLog::from_entries(entries)
            .map_err(|e| StoreError::Corrupt(format!("game {id}: log.{e}")))?,
        state: Value::Null,
    };
    game.state = game
        .refold()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(Some(game))
}

/// A stored game's scenario (its JSON column), accepted as recorded: the game was played with it,
/// so a check it fails (one added since it was stored) does not stop the game loading; it is in
/// [`Scenario::warnings`], named as `game ID: scenario` with the line and column in that JSON.
fn stored_scenario(id: &str, json: &str) -> Result<Scenario, StoreError> {
    let file = format!("game {id}: scenario");
    let raw: ScenarioFile = serde_json::from_str(json)
        .map_err(|e| StoreError::Corrupt(format!("{file}:{}:{}: {e}", e.line(), e.column())))?;
    Ok(Scenario::recorded(
        raw,
        &Source {
            file: &file,
            text: json,
            path: "",
        },
    ))
}

/// The nearest checkpoint before `target` and the effects of the live events between it and
/// `target`.
fn fold_base_of(
    c: &Connection,
    id: &str,
    target: u64,
    latest: u64,
) -> Result<FoldBase, StoreError> {
    // The latest checkpoint is the one, unless the voided event is folded into it; then the
    // one before (read by listing them: rare, an undo reaching back past a checkpoint).
    let at = if latest < target {
        latest
    } else {
        let mut stmt =
            c.prepare_cached("SELECT seq FROM checkpoints WHERE game_id = ?1 AND seq < ?2")?;
        let rows = stmt.query_map(params![id, as_sql(target)], |r| r.get::<_, i64>(0))?;
        rows.collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .max()
            .map_or(0, |s| s as u64)
    };
    let cp: Option<String> = if at == 0 {
        None
    } else {
        c.prepare_cached("SELECT state FROM checkpoints WHERE game_id = ?1 AND seq = ?2")?
            .query_row(params![id, as_sql(at)], |r| r.get(0))
            .optional()?
    };
    let from = if cp.is_some() { at } else { 0 };
    let mut stmt = c.prepare_cached(
        "SELECT seq, json_extract(entry, '$.event.effects') FROM log_entries
         WHERE game_id = ?1 AND seq > ?2 AND seq < ?3 AND voids IS NULL
         AND seq NOT IN (SELECT voids FROM log_entries WHERE game_id = ?1 AND voids > ?2)",
    )?;
    let rows = stmt.query_map(params![id, as_sql(from), as_sql(target)], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    let mut rows = rows.collect::<Result<Vec<_>, _>>()?;
    rows.sort_unstable_by_key(|(s, _)| *s);
    let effects = rows
        .into_iter()
        .map(|(_, t)| {
            let t = t.unwrap_or_else(|| "null".into());
            serde_json::from_str::<Value>(&t).map_err(|e| StoreError::Corrupt(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let checkpoint = match cp {
        Some(text) => Some((
            from,
            serde_json::from_str(&text).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        )),
        None => None,
    };
    Ok(FoldBase {
        checkpoint,
        effects,
    })
}

/// The state at the end of a game's log: its latest checkpoint with the live events after it
/// folded in (fewer than [`tercio_rules::game::CHECKPOINT_EVERY`]), or the scenario's initial
/// state with all of them when it has no checkpoint yet.
fn fold_state(conn: &Connection, id: &str, head: &Head) -> Result<Value, StoreError> {
    let engine = head
        .engine()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let base = fold_base_of(conn, id, head.seq + 1, head.checkpoint)?;
    let mut state = match base.checkpoint {
        Some((_, s)) => s,
        None => engine.initial_state().map_err(StoreError::Corrupt)?,
    };
    for e in &base.effects {
        engine.apply(&mut state, e).map_err(StoreError::Corrupt)?;
    }
    Ok(state)
}

/// The entries of game `id` with `after < seq <= upto`, in order. (No `ORDER BY` in the
/// statement: with one, SQLite re-prepares it at every run; the rows are sorted here.)
fn query_entries(
    conn: &Connection,
    id: &str,
    after: u64,
    upto: u64,
) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, entry FROM log_entries WHERE game_id = ?1 AND seq > ?2 AND seq <= ?3",
    )?;
    let rows = stmt.query_map(params![id, as_sql(after), as_sql(upto)], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut rows = rows.collect::<Result<Vec<_>, _>>()?;
    rows.sort_unstable_by_key(|(s, _)| *s);
    rows.into_iter()
        .map(|(_, t)| {
            serde_json::from_str::<LogEntry<GameEvent>>(&t)
                .map_err(|e| StoreError::Corrupt(e.to_string()))
        })
        .collect()
}

/// A sequence number as SQLite's integer.
fn as_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn seats_of(conn: &Connection, game_id: &str) -> Result<Vec<Seat>, StoreError> {
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

fn meta_of(settings: &str, concluded: Option<i64>) -> Result<Meta, StoreError> {
    Ok(Meta {
        settings: serde_json::from_str(settings)
            .map_err(|e| StoreError::Corrupt(format!("settings: {e}")))?,
        concluded: concluded.is_some(),
    })
}

/// Write the entries of `game` after `from_seq`, with their chain hashes, and its head.
fn write_game(tx: &Connection, id: &str, game: &Game, from_seq: u64) -> Result<(), StoreError> {
    let mut h = chain_start();
    let mut stmt = tx.prepare_cached(
        "INSERT INTO log_entries (game_id, seq, entry, voids, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for e in game.log.entries() {
        let text = entry_text(e);
        h = chain_next(&h, &text);
        if e.seq() <= from_seq {
            continue;
        }
        let voids = match e {
            LogEntry::Void { voids, .. } => Some(*voids as i64),
            LogEntry::Event { .. } => None,
        };
        stmt.execute(params![id, e.seq() as i64, text, voids, h])
            .map_err(|x| {
                if is_conflict(&x) {
                    StoreError::Conflict(format!("entry {} of game {id} exists", e.seq()))
                } else {
                    x.into()
                }
            })?;
    }
    let n = tx.execute(
        "UPDATE heads SET turn = ?2, over = ?7, seq = ?3, stream_pos = ?4, chain = ?5, rev = rev + 1, updated_at = ?6 WHERE game_id = ?1",
        params![
            id,
            turn_of(&game.state) as i64,
            game.log.entries().len() as i64,
            game.stream_pos() as i64,
            h,
            now(),
            over_of(&game.state)
        ],
    )?;
    if n != 1 {
        return Err(StoreError::Db(format!("no game {id}")));
    }
    tx.execute("DELETE FROM checkpoints WHERE game_id = ?1", params![id])?;
    for (seq, state) in game
        .checkpoints()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?
    {
        tx.execute(
            "INSERT INTO checkpoints (game_id, seq, state) VALUES (?1, ?2, ?3)",
            params![id, seq as i64, json_text(&state)?],
        )?;
    }
    Ok(())
}

impl Store for SqliteStore {
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError> {
        let game = game.clone();
        let scenario_id = scenario_id.map(str::to_string);
        self.write(move |tx| {
            let id = new_id();
            let t = now();
            tx.execute(
                "INSERT INTO games (id, title, rule_set, scenario_id, scenario, seed, nonce, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![id, game.scenario.title, game.ruleset, scenario_id, json_text(&game.scenario)?, game.seed as i64, game.nonce, t],
            )?;
            tx.execute(
                "INSERT INTO heads (game_id, updated_at) VALUES (?1, ?2)",
                params![id, t],
            )?;
            write_game(tx, &id, &game, 0)?;
            let mut roles = vec![Role::GameMaster];
            roles.extend(game.scenario.sides.iter().map(|s| Role::Side(s.id.clone())));
            roles.push(Role::Spectator);
            for (i, r) in roles.iter().enumerate() {
                insert_seat(tx, &id, r, i as i64)?;
            }
            Ok(id)
        })
    }

    fn load(&self, id: &str) -> Result<Option<Game>, StoreError> {
        self.read(|c| load_game(c, id))
    }

    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError> {
        let (id, game) = (id.to_string(), game.clone());
        self.write(move |tx| {
            let stored: i64 = tx.query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = ?1",
                params![id],
                |r| r.get(0),
            )?;
            write_game(tx, &id, &game, stored as u64)
        })
    }

    fn live(&self, id: &str) -> Result<Option<Live>, StoreError> {
        self.read(|c| {
            type GameRow = (String, String, i64, String, i64, i64, String, i64, String, Option<i64>);
            let row: Option<GameRow> = c
                .prepare_cached(
                    "SELECT g.rule_set, g.scenario, g.seed, g.nonce, h.seq, h.stream_pos, h.chain, h.rev, g.settings, g.concluded_at
                     FROM games g JOIN heads h ON h.game_id = g.id WHERE g.id = ?1",
                )?
                .query_row(params![id], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                        r.get(9)?,
                    ))
                })
                .optional()?;
            let Some((ruleset, scenario, seed, nonce, seq, pos, chain, rev, settings, concluded)) =
                row
            else {
                return Ok(None);
            };
            let live: Vec<u64> = {
                let mut stmt = c.prepare_cached(
                    "SELECT seq FROM log_entries WHERE game_id = ?1 AND voids IS NULL
                     AND seq NOT IN (SELECT voids FROM log_entries WHERE game_id = ?1 AND voids IS NOT NULL)",
                )?;
                let rows = stmt.query_map(params![id], |r| r.get::<_, i64>(0))?;
                let mut live = rows
                    .map(|s| s.map(|s| s as u64))
                    .collect::<Result<Vec<_>, _>>()?;
                live.sort_unstable();
                live
            };
            let mut head = Head {
                ruleset,
                seed: seed as u64,
                nonce,
                scenario: stored_scenario(id, &scenario)?,
                state: Value::Null,
                seq: seq as u64,
                stream_pos: pos as u64,
                chain,
                live,
                checkpoint: c
                    .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM checkpoints WHERE game_id = ?1")?
                    .query_row(params![id], |r| r.get::<_, i64>(0))? as u64,
            };
            head.state = fold_state(c, id, &head)?;
            Ok(Some(Live {
                head,
                meta: meta_of(&settings, concluded)?,
                seats: seats_of(c, id)?,
                rev: rev as u64,
            }))
        })
    }

    fn append(&self, id: &str, row: Row) -> Result<u64, StoreError> {
        let id = id.to_string();
        self.write(move |tx| {
            let conflict = || {
                StoreError::Conflict(format!(
                    "game {id} has moved on: entry {} is taken",
                    row.seq
                ))
            };
            tx.prepare_cached(
                "INSERT INTO log_entries (game_id, seq, entry, voids, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![id, row.seq as i64, row.entry, row.voids.map(|v| v as i64), row.chain])
            .map_err(|e| if is_conflict(&e) { conflict() } else { e.into() })?;
            let n = tx
                .prepare_cached(
                    "UPDATE heads SET turn = ?3, over = ?7, seq = ?2, stream_pos = ?4, chain = ?5, rev = rev + 1, updated_at = ?6
                     WHERE game_id = ?1 AND seq = ?2 - 1",
                )?
                .execute(params![id, row.seq as i64, row.turn as i64, row.stream_pos as i64, row.chain, now(), row.over])?;
            if n != 1 {
                return Err(conflict());
            }
            if let Some(v) = row.voids {
                tx.prepare_cached("DELETE FROM checkpoints WHERE game_id = ?1 AND seq >= ?2")?
                    .execute(params![id, v as i64])?;
            }
            if let Some(state) = &row.state {
                tx.prepare_cached(
                    "INSERT OR REPLACE INTO checkpoints (game_id, seq, state) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![id, row.seq as i64, state])?;
            }
            let rev: i64 = tx
                .prepare_cached("SELECT rev FROM heads WHERE game_id = ?1")?
                .query_row(params![id], |r| r.get(0))?;
            Ok(rev as u64)
        })
    }

    fn entries(
        &self,
        id: &str,
        after: u64,
        limit: u64,
    ) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
        self.read(|c| query_entries(c, id, after, after.saturating_add(limit)))
    }

    fn last_entries(&self, id: &str, n: u64) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
        self.read(|c| {
            let seq: Option<i64> = c
                .prepare_cached("SELECT seq FROM heads WHERE game_id = ?1")?
                .query_row(params![id], |r| r.get(0))
                .optional()?;
            let seq = seq.map_or(0, |s| s.max(0) as u64);
            query_entries(c, id, seq.saturating_sub(n), seq)
        })
    }

    fn fold_base(&self, id: &str, target: u64, latest: u64) -> Result<FoldBase, StoreError> {
        self.read(|c| fold_base_of(c, id, target, latest))
    }

    fn list(&self, archived: bool) -> Result<Vec<GameSummary>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT g.id, g.title, g.rule_set, g.scenario_id, h.turn, h.over,
                        g.created_at, h.updated_at, g.archived, h.seq, g.concluded_at IS NOT NULL
                 FROM games g JOIN heads h ON h.game_id = g.id WHERE g.archived = ?1 ORDER BY h.updated_at DESC, g.id",
            )?;
            let rows = stmt.query_map(params![archived as i64], |r| {
                let turn: i64 = r.get(4)?;
                let over: bool = r.get(5)?;
                Ok(GameSummary {
                    id: r.get(0)?,
                    title: r.get(1)?,
                    rule_set: r.get(2)?,
                    scenario: r.get(3)?,
                    turn: turn.max(0) as u64,
                    over: over || r.get::<_, bool>(10)?,
                    created_at: r.get(6)?,
                    updated_at: r.get(7)?,
                    archived: r.get::<_, i64>(8)? != 0,
                    events: r.get::<_, i64>(9)? as u64,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
    }

    fn set_archived(&self, id: &str, archived: bool) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.write(move |tx| {
            let n = tx.execute(
                "UPDATE games SET archived = ?2 WHERE id = ?1",
                params![id, archived as i64],
            )?;
            bump(tx, &id, false)?;
            Ok(n == 1)
        })
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.write(move |tx| {
            let n = tx.execute("DELETE FROM games WHERE id = ?1", params![id])?;
            Ok(n == 1)
        })
    }

    fn seat(&self, token: &str) -> Result<Option<Seat>, StoreError> {
        Ok(self.seat_at(token)?.map(|(s, _)| s))
    }

    fn seat_at(&self, token: &str) -> Result<Option<(Seat, u64)>, StoreError> {
        // Two lookups by key: as one join, SQLite re-prepares the statement at every run.
        self.read(|c| {
            let seat = c
                .prepare_cached(
                    "SELECT game_id, role FROM seats WHERE token = ?1 AND revoked_at IS NULL",
                )?
                .query_row(params![token], |r| {
                    Ok(Seat {
                        token: token.to_string(),
                        game_id: r.get(0)?,
                        role: role_of(&r.get::<_, String>(1)?),
                    })
                })
                .optional()?;
            let Some(seat) = seat else {
                return Ok(None);
            };
            let rev: Option<i64> = c
                .prepare_cached("SELECT rev FROM heads WHERE game_id = ?1")?
                .query_row(params![seat.game_id], |r| r.get(0))
                .optional()?;
            Ok(rev.map(|rev| (seat, rev as u64)))
        })
    }

    fn seats(&self, game_id: &str) -> Result<Vec<Seat>, StoreError> {
        self.read(|c| seats_of(c, game_id))
    }

    fn reissue(&self, game_id: &str, role: &Role) -> Result<Option<Seat>, StoreError> {
        let (game_id, role) = (game_id.to_string(), role.clone());
        self.write(move |tx| {
            let ord: Option<i64> = tx
                .query_row(
                    "SELECT ord FROM seats WHERE game_id = ?1 AND role = ?2 AND revoked_at IS NULL",
                    params![game_id, role_text(&role)],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(ord) = ord else {
                return Ok(None);
            };
            tx.execute(
                "UPDATE seats SET revoked_at = ?3 WHERE game_id = ?1 AND role = ?2 AND revoked_at IS NULL",
                params![game_id, role_text(&role), now()],
            )?;
            bump(tx, &game_id, false)?;
            insert_seat(tx, &game_id, &role, ord).map(Some)
        })
    }

    fn meta(&self, game_id: &str) -> Result<Option<Meta>, StoreError> {
        self.read(|c| {
            let row: Option<(String, Option<i64>)> = c
                .query_row(
                    "SELECT settings, concluded_at FROM games WHERE id = ?1",
                    params![game_id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            row.map(|(s, c)| meta_of(&s, c)).transpose()
        })
    }

    fn set_settings(&self, game_id: &str, settings: &Settings) -> Result<bool, StoreError> {
        let text = json_text(settings)?;
        let game_id = game_id.to_string();
        self.write(move |tx| {
            let n = tx.execute(
                "UPDATE games SET settings = ?2 WHERE id = ?1",
                params![game_id, text],
            )?;
            bump(tx, &game_id, true)?;
            Ok(n == 1)
        })
    }

    fn conclude(&self, game_id: &str) -> Result<bool, StoreError> {
        let game_id = game_id.to_string();
        self.write(move |tx| {
            let n = tx.execute(
                "UPDATE games SET concluded_at = COALESCE(concluded_at, ?2) WHERE id = ?1",
                params![game_id, now()],
            )?;
            bump(tx, &game_id, true)?;
            Ok(n == 1)
        })
    }

    fn host_key(&self) -> Result<String, StoreError> {
        if let Some(k) = self.read(|c| {
            Ok(
                c.query_row("SELECT key FROM host LIMIT 1", [], |r| r.get(0))
                    .optional()?,
            )
        })? {
            return Ok(k);
        }
        self.write(|tx| {
            let key: Option<String> = tx
                .query_row("SELECT key FROM host LIMIT 1", [], |r| r.get(0))
                .optional()?;
            match key {
                Some(k) => Ok(k),
                None => {
                    let k = new_token()?;
                    tx.execute("INSERT INTO host (key) VALUES (?1)", params![k])?;
                    Ok(k)
                }
            }
        })
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
}

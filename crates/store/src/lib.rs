//! Tercio's storage: games and their append-only logs.
//!
//! [`Store`] is the trait the server uses; [`SqliteStore`] is the embedded default. Every write is
//! one transaction with `synchronous = FULL`, so an action acknowledged to a player is on disk.
//! Log entries are only ever inserted, never updated or deleted (deleting a whole game aside).

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Condvar, Mutex};

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::{EventLog, LogEntry};
use tercio_rules::game::{
    chain_next, chain_start, entry_text, Appended, ChainVersion, Game, GameEvent, Head, Identity,
    Seal, FORMAT,
};
use tercio_rules::scenario::{Scenario, ScenarioFile, Source};

mod common;
mod migrations;
mod pg;
pub use pg::PgStore;
mod sqlite;
pub mod testing;
use common::*;
use migrations::*;

pub use sqlite::*;

#[derive(Debug, Clone)]
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
    /// The game's revision the writer's copy reflects, when it acted on a copy without asking
    /// the store first: refused as a conflict if anything was written to the game since.
    pub rev: Option<u64>,
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
            over: a.over,
            rev: None,
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

/// A whole game as `tercio migrate` copies it between databases: its log, the scenario it came
/// from, its current seats (their links keep working), its settings and end, whether it is
/// archived and when it was made.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub id: String,
    pub game: Game,
    pub scenario_id: Option<String>,
    pub seats: Vec<Seat>,
    pub meta: Meta,
    pub archived: bool,
    pub created_at: i64,
}

/// Every game of a store, as [`GameRecord`]s, one at a time (a club's database need not fit in
/// memory): `each` is called with each in turn.
pub fn each_record(
    store: &dyn Store,
    mut each: impl FnMut(GameRecord) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut games = store.list(false)?;
    games.extend(store.list(true)?);
    for g in games {
        let (Some(game), Some(meta)) = (store.load(&g.id)?, store.meta(&g.id)?) else {
            continue;
        };
        each(GameRecord {
            seats: store.seats(&g.id)?,
            id: g.id,
            game,
            scenario_id: g.scenario,
            meta,
            archived: g.archived,
            created_at: g.created_at,
        })?;
    }
    Ok(())
}

/// A `--db` fit to show: a PostgreSQL address's password replaced by `***`, wherever it is
/// given (`user:password@`, `?password=`, or `password=` in the `key=value` form, quoted or
/// not).
pub fn redact(spec: &str) -> String {
    if let Some((scheme, rest)) = spec.split_once("://") {
        let rest = match rest.rsplit_once('@') {
            Some((auth, host)) => match auth.split_once(':') {
                Some((user, _)) => format!("{user}:***@{host}"),
                None => rest.to_string(),
            },
            None => rest.to_string(),
        };
        // Query parameters: `password=...` up to the next `&`.
        let rest = match rest.split_once('?') {
            Some((path, query)) => {
                let q: Vec<String> = query
                    .split('&')
                    .map(|kv| {
                        if kv.starts_with("password=") {
                            "password=***".to_string()
                        } else {
                            kv.to_string()
                        }
                    })
                    .collect();
                format!("{path}?{}", q.join("&"))
            }
            None => rest,
        };
        return format!("{scheme}://{rest}");
    }
    // key=value: the value of `password` runs to the next space, or to its closing quote.
    let mut out = String::new();
    let mut rest = spec;
    while let Some(at) = rest.find("password") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let Some(value) = from
            .strip_prefix("password")
            .map(str::trim_start)
            .and_then(|v| v.strip_prefix('='))
            .map(str::trim_start)
        else {
            out.push_str("password");
            rest = &from["password".len()..];
            continue;
        };
        out.push_str("password=***");
        rest = match value.strip_prefix('\'') {
            Some(q) => {
                let mut end = q.len();
                let mut escaped = false;
                for (i, ch) in q.char_indices() {
                    match ch {
                        '\\' if !escaped => escaped = true,
                        '\'' if !escaped => {
                            end = i + 1;
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                &q[end.min(q.len())..]
            }
            None => value.find(char::is_whitespace).map_or("", |i| &value[i..]),
        };
    }
    out.push_str(rest);
    out
}

/// What a store that shares its database hears of other processes' writes ([`Store::watch`]),
/// for the games this process attends ([`Store::attend`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard<'a> {
    /// The game was written to; its revision now.
    Wrote(&'a str, u64),
    /// Writes to the game may have been missed: listening for it has just begun (or begun again,
    /// the database lost and back). Whoever shows it reads it again.
    Missed(&'a str),
}

/// What [`Store::watch`] calls with what it hears.
pub type Watcher = Box<dyn Fn(Heard<'_>) + Send + Sync>;

/// Open the store a `--db` names: `postgres://…` or `postgresql://…` (or PostgreSQL's
/// `key=value` form with a `host=`) is PostgreSQL; `sqlite:PATH` or a plain path is SQLite.
pub fn open(spec: &str) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    if is_postgres(spec) {
        return Ok(std::sync::Arc::new(PgStore::connect(spec)?));
    }
    let path = spec.strip_prefix("sqlite:").unwrap_or(spec);
    if path.is_empty() {
        return Err(StoreError::Db("no database file named".into()));
    }
    Ok(std::sync::Arc::new(SqliteStore::open(Path::new(path))?))
}

/// Whether a `--db` names a PostgreSQL database: a `postgres://` or `postgresql://` address, or
/// PostgreSQL's `key=value` form (a file's name has no `=` followed by one of its keys).
pub fn is_postgres(spec: &str) -> bool {
    const KEYS: [&str; 7] = [
        "host", "hostaddr", "port", "dbname", "user", "password", "sslmode",
    ];
    spec.starts_with("postgres://")
        || spec.starts_with("postgresql://")
        || spec.split_whitespace().any(|kv| {
            kv.split_once('=')
                .is_some_and(|(k, _)| KEYS.contains(&k.trim()))
        })
}

/// Told the outcome of an append handed over ([`Store::append_then`]): the game's new revision.
pub type Committed = Box<dyn FnOnce(Result<u64, StoreError>) + Send>;

pub trait Store: Send + Sync {
    /// Store a new game with its seats (game master, one per side, spectator); returns its id.
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError>;
    /// [`Store::create`] with the game's first settings (`None`: the defaults), all in one
    /// transaction, answered with the game as a live server keeps it ([`Store::live`] would
    /// read the same): the head is the game's own, and its seats, settings and revision are
    /// read in the same transaction, so they are the ones committed. Its maker keeps it in
    /// memory without reading it back.
    fn create_live(
        &self,
        game: &Game,
        scenario_id: Option<&str>,
        settings: Option<&Settings>,
    ) -> Result<(String, Live), StoreError>;
    /// [`Store::create_live`] on a database that holds no game (archived ones aside), decided
    /// in the same transaction as the write, which the servers sharing the database take one
    /// at a time: however many try at once (servers started together, each making its demo
    /// game), one game is made. `None`, with nothing written, when there is a game already.
    fn create_live_if_empty(
        &self,
        game: &Game,
        scenario_id: Option<&str>,
        settings: Option<&Settings>,
    ) -> Result<Option<(String, Live)>, StoreError>;
    /// The whole game, every log entry parsed: for exports, reports and verification, never
    /// for an action.
    fn load(&self, id: &str) -> Result<Option<Game>, StoreError>;
    /// Persist a whole game's entries the store does not have yet, its state and checkpoints
    /// (tools and tests; the server appends with [`Store::append`]).
    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError>;
    /// A game as a live server keeps it, read without parsing any log entry.
    fn live(&self, id: &str) -> Result<Option<Live>, StoreError>;
    /// Append one entry and the head after it, in the group commit; durable when this returns.
    /// The database judges the order: an entry whose sequence number is taken, that does not
    /// follow the stored head, or (with [`Row::rev`]) written on a copy of the game older than
    /// the store's, is refused as [`StoreError::Conflict`] with nothing written.
    /// Returns the game's new revision.
    fn append(&self, id: &str, row: Row) -> Result<u64, StoreError>;
    /// [`Store::append`] without waiting: the append is handed to the store, and `done` is
    /// called with what `append` would return once it is durable (or refused), on a thread of
    /// the store's. Only for a store that [`commits_for_callers`](Store::commits_for_callers);
    /// the default appends here and now.
    fn append_then(&self, id: &str, row: Row, done: Committed) {
        done(self.append(id, row))
    }
    /// Whether [`Store::append_then`] returns at once, the store committing on a thread of its
    /// own: the server then need not wait on a thread of its blocking pool for the commit.
    fn commits_for_callers(&self) -> bool {
        false
    }
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
    /// Store a game copied from another database with its id and seats' tokens; `false`, with
    /// nothing written, when a game with its id is already here.
    fn import(&self, record: &GameRecord) -> Result<bool, StoreError>;
    /// Hear of writes by other processes sharing the database (see [`Watcher`]), from now on.
    /// The embedded SQLite store has no other process to hear from.
    fn watch(&self, on: Watcher) -> Result<(), StoreError> {
        drop(on);
        Ok(())
    }
    /// Whether a live page in this process shows `game` (`true` for the first, `false` once the
    /// last has gone): a store that hears of other processes' writes ([`Store::watch`]) listens
    /// for a game's only while so, and says [`Heard::Missed`] each time it begins. Nothing else
    /// needs to hear: the revision read with each request's seat keeps a copy in memory current.
    fn attend(&self, game: &str, wanted: bool) {
        let _ = (game, wanted);
    }
    /// Which database this is, for people (never with a password).
    fn describe(&self) -> String;
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod names {
    use super::*;

    #[test]
    fn a_password_is_never_shown_and_postgres_is_told_from_a_file() {
        for (spec, shown) in [
            (
                "postgres://tercio:s3cret@db/tercio",
                "postgres://tercio:***@db/tercio",
            ),
            (
                "postgresql://tercio@db/tercio?sslmode=require&password=s3cret",
                "postgresql://tercio@db/tercio?sslmode=require&password=***",
            ),
            (
                "host=db user=t password=s3cret dbname=x",
                "host=db user=t password=*** dbname=x",
            ),
            (
                "dbname=x password = 'a b\\' c' user=t",
                "dbname=x password=*** user=t",
            ),
            ("/srv/tercio/tercio.db", "/srv/tercio/tercio.db"),
        ] {
            assert_eq!(redact(spec), shown, "{spec}");
            assert!(!redact(spec).contains("s3cret") && !redact(spec).contains("a b"));
        }
        assert!(is_postgres("dbname=t user=u password=s"));
        assert!(is_postgres("postgres://u@h/d"));
        assert!(!is_postgres("/srv/tercio/club=1.db"));
        assert!(!is_postgres("sqlite:/srv/tercio.db"));
    }
}

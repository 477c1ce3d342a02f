//! PostgreSQL: several Tercio servers on one database.
//!
//! Each write is one transaction on a pooled connection, durable when it commits (PostgreSQL's
//! default `synchronous_commit = on`). Appends, the hot path, go in groups: those queued while
//! one group commits are the next group, one call of `tercio_append` (one statement, one round
//! trip, one flush of the log to disk). The database orders a game's entries: the head is locked
//! and must be where the writer saw it (the entry before, and the revision its copy reflects),
//! and the unique (game, sequence) key stands behind it; an entry another server appended first
//! is refused as [`StoreError::Conflict`], with nothing written. Every write to a game tells the
//! other servers with `NOTIFY` on the game's own channel ([`channel`]), carrying its revision
//! only; [`Store::watch`] hears those of the games a live page here shows ([`Store::attend`]).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ::postgres::error::SqlState;
use ::postgres::types::ToSql;
use ::postgres::{Client, Config, GenericClient, NoTls, Statement};
use fallible_iterator::FallibleIterator;

use super::*;

/// What each game's channel starts with ([`channel`]).
const CHANNEL_PREFIX: &str = "tercio_g_";

/// The channel a write to a game is announced on, `NOTIFY "tercio_g_GAME", 'REV'`: a server
/// listens on the channels of the games its live pages show, and is woken by no other. Game ids
/// are 16 hex digits (`new_id`, kept by `tercio migrate`), so the name stays well within
/// PostgreSQL's 63 bytes.
pub fn channel(game_id: &str) -> String {
    format!("{CHANNEL_PREFIX}{game_id}")
}

/// How long the listener waits for a notification before it looks at which games are wanted:
/// a page opened here is listened for within this time (and then caught up).
const LISTEN_WAIT: Duration = Duration::from_millis(100);

/// How many connections a server opens at most; a request beyond them waits for one.
const CONNECTIONS: usize = 16;

/// How long connecting may take before the database counts as down (the request answers 503).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a request waits for a free connection before it answers 503.
const POOL_WAIT: Duration = Duration::from_secs(30);

/// A connection whose network went silent (the database's machine lost) is found dead after
/// this long without an answer, rather than the system's two hours: by keepalive probes while
/// idle (the listener), and by the time a sent request may go unacknowledged.
const DEAD_AFTER: Duration = Duration::from_secs(30);

/// How often the listener looks at whether its store is gone, and how long it waits before
/// connecting again after losing the database.
const LISTEN_TICK: Duration = Duration::from_millis(500);

/// The schema, in order; `tercio_schema.version` records how many ran. Migrations run under an
/// advisory lock, so servers started together do not run one twice.
pub(crate) const SCHEMA: &[&str] = &[
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        rule_set TEXT NOT NULL,
        scenario_id TEXT,
        scenario TEXT NOT NULL,
        seed BIGINT NOT NULL,
        nonce TEXT NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}',
        concluded_at BIGINT,
        created_at BIGINT NOT NULL,
        archived BOOLEAN NOT NULL DEFAULT FALSE,
        rules_version BIGINT NOT NULL DEFAULT 1
    );
    CREATE TABLE heads (
        game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        rev BIGINT NOT NULL DEFAULT 1,
        seq BIGINT NOT NULL DEFAULT 0,
        stream_pos BIGINT NOT NULL DEFAULT 0,
        updated_at BIGINT NOT NULL,
        turn BIGINT NOT NULL DEFAULT 0,
        over BOOLEAN NOT NULL DEFAULT FALSE,
        chain TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE log_entries (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        entry TEXT NOT NULL,
        voids BIGINT,
        hash TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE INDEX log_voids ON log_entries(game_id, voids) WHERE voids IS NOT NULL;
    -- An entry (a few KB) and a checkpoint's state stay in their row, uncompressed, up to a
    -- page: compressing each as it is written cost more CPU than the rest of the append.
    ALTER TABLE log_entries SET (toast_tuple_target = 8160);
    CREATE TABLE checkpoints (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    ALTER TABLE checkpoints SET (toast_tuple_target = 8160);
    CREATE TABLE seats (
        token TEXT PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        ord BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
    );
    CREATE INDEX seats_by_game ON seats(game_id);
    CREATE TABLE host (
        one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
        key TEXT NOT NULL
    );
    -- Appends in one statement, so in one transaction and one round trip: for each (the
    -- arrays side by side, in the order given) the entry, the head after it, the checkpoints;
    -- only if the head is still where its writer saw it (the entry before, and the revision
    -- `seen` when given), else NULL for it with nothing of it written. Heads are locked as
    -- they come: of two servers appending to one game the second waits, then finds the head
    -- moved on. The new revisions back; the group announced in as few notifications as fit,
    -- a line `GAME REV` each.
    CREATE FUNCTION tercio_append(g TEXT[], n BIGINT[], body TEXT[], voided BIGINT[],
        link TEXT[], kept TEXT[], pos BIGINT[], turn_now BIGINT[], ended BOOLEAN[],
        seen BIGINT[], at_time BIGINT)
    RETURNS BIGINT[] LANGUAGE plpgsql AS $fn$
    DECLARE
        revs BIGINT[] := '{}';
        said TEXT := '';
        r BIGINT;
    BEGIN
        FOR i IN 1 .. coalesce(array_length(g, 1), 0) LOOP
            r := NULL;
            PERFORM 1 FROM heads
                WHERE game_id = g[i] AND seq = n[i] - 1 AND (seen[i] IS NULL OR rev = seen[i])
                FOR UPDATE;
            IF FOUND THEN
                INSERT INTO log_entries (game_id, seq, entry, voids, hash)
                    VALUES (g[i], n[i], body[i], voided[i], link[i]);
                UPDATE heads SET turn = turn_now[i], over = ended[i], seq = n[i],
                    stream_pos = pos[i], chain = link[i], rev = rev + 1, updated_at = at_time
                    WHERE game_id = g[i] RETURNING rev INTO r;
                IF voided[i] IS NOT NULL THEN
                    DELETE FROM checkpoints WHERE game_id = g[i] AND seq >= voided[i];
                END IF;
                IF kept[i] IS NOT NULL THEN
                    INSERT INTO checkpoints (game_id, seq, state) VALUES (g[i], n[i], kept[i])
                        ON CONFLICT (game_id, seq) DO UPDATE SET state = EXCLUDED.state;
                END IF;
                IF length(said) > 7000 THEN
                    PERFORM pg_notify('tercio_games', said);
                    said := '';
                END IF;
                said := said || CASE WHEN said = '' THEN '' ELSE E'\n' END || g[i] || ' ' || r;
            END IF;
            revs := array_append(revs, r);
        END LOOP;
        IF said <> '' THEN
            PERFORM pg_notify('tercio_games', said);
        END IF;
        RETURN revs;
    END
    $fn$;",
    // The head is checked and moved on in one statement: the UPDATE takes its row lock (a
    // second server's append to the game waits, then finds the head moved on and writes
    // nothing), so no separate `FOR UPDATE` lock, which wrote the row once more. Heads leave
    // half of each page free, so a head's new version finds room in the same page (a HOT
    // update: no new index entry). Each append is announced on its game's own channel, so a
    // server is woken only by the games it shows.
    "ALTER TABLE heads SET (fillfactor = 50);
    CREATE OR REPLACE FUNCTION tercio_append(g TEXT[], n BIGINT[], body TEXT[], voided BIGINT[],
        link TEXT[], kept TEXT[], pos BIGINT[], turn_now BIGINT[], ended BOOLEAN[],
        seen BIGINT[], at_time BIGINT)
    RETURNS BIGINT[] LANGUAGE plpgsql AS $fn$
    DECLARE
        revs BIGINT[] := '{}';
        r BIGINT;
    BEGIN
        FOR i IN 1 .. coalesce(array_length(g, 1), 0) LOOP
            r := NULL;
            UPDATE heads SET turn = turn_now[i], over = ended[i], seq = n[i],
                stream_pos = pos[i], chain = link[i], rev = rev + 1, updated_at = at_time
                WHERE game_id = g[i] AND seq = n[i] - 1 AND (seen[i] IS NULL OR rev = seen[i])
                RETURNING rev INTO r;
            IF FOUND THEN
                INSERT INTO log_entries (game_id, seq, entry, voids, hash)
                    VALUES (g[i], n[i], body[i], voided[i], link[i]);
                IF voided[i] IS NOT NULL THEN
                    DELETE FROM checkpoints WHERE game_id = g[i] AND seq >= voided[i];
                END IF;
                IF kept[i] IS NOT NULL THEN
                    INSERT INTO checkpoints (game_id, seq, state) VALUES (g[i], n[i], kept[i])
                        ON CONFLICT (game_id, seq) DO UPDATE SET state = EXCLUDED.state;
                END IF;
                PERFORM pg_notify('tercio_g_' || g[i], r::text);
            END IF;
            revs := array_append(revs, r);
        END LOOP;
        RETURN revs;
    END
    $fn$;",
    // How each game's commitment and log fingerprint are formed (`tercio_rules::seal`): games
    // recorded before keep version 1.
    "ALTER TABLE games ADD COLUMN chain_version BIGINT NOT NULL DEFAULT 1;",
];

/// Any number the advisory lock of the migrations is taken on, the same in every server.
const MIGRATION_LOCK: i64 = 0x7465_7263_696f;

/// The advisory lock [`Store::create_live_if_empty`] is decided under (another number).
const FIRST_GAME_LOCK: i64 = 0x7465_7263_696f_0001;

/// The PostgreSQL store: its connections and queues, and the committer thread that commits the
/// appends handed over ([`Store::append_then`]).
pub struct PgStore {
    pg: Arc<Pg>,
    committer: Option<std::thread::JoinHandle<()>>,
}

impl std::ops::Deref for PgStore {
    type Target = Pg;
    fn deref(&self) -> &Pg {
        &self.pg
    }
}

/// What the PostgreSQL store's callers and its committer thread share.
pub struct Pg {
    config: Config,
    /// Idle connections, and how many are open in all.
    pool: Mutex<(Vec<Conn>, usize)>,
    freed: Condvar,
    /// Set when the store is dropped: its listener, if any, stops.
    gone: Arc<AtomicBool>,
    /// The games this process wants to hear of now ([`Store::attend`]), and where the listener
    /// waits while there are none.
    wanted: Arc<(Mutex<Wanted>, Condvar)>,
    /// Appends waiting for the next group commit, and the token its leader holds.
    appends: Handoff<AppendJob>,
    leading: Mutex<()>,
}

/// The games whose writes this process wants to hear of, and whether that changed since the
/// listener last looked.
#[derive(Default)]
struct Wanted {
    games: HashSet<String>,
    moved: bool,
}

/// An append waiting for its group commit, and where its answer goes.
struct AppendJob {
    id: String,
    row: Row,
    done: Committed,
}

/// The call that appends entries ([`SCHEMA`]'s `tercio_append`).
const APPEND: &str = "SELECT tercio_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

/// A connection and the statements prepared on it.
struct Conn {
    client: Client,
    prepared: HashMap<&'static str, Statement>,
}

impl From<::postgres::Error> for StoreError {
    fn from(e: ::postgres::Error) -> Self {
        if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
            return StoreError::Conflict(e.to_string());
        }
        StoreError::Db(error_text(&e))
    }
}

/// An error with its causes (the driver's own text says only "error connecting to server").
fn error_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let t = c.to_string();
        if !text.contains(&t) {
            text = format!("{text}: {t}");
        }
        cause = c.source();
    }
    text
}

/// A connection inside a write's transaction or a read: statements are prepared once per
/// connection and kept.
struct Db<'a, C: GenericClient> {
    c: &'a mut C,
    prepared: &'a mut HashMap<&'static str, Statement>,
}

type Params<'p> = [&'p (dyn ToSql + Sync)];

impl<C: GenericClient> Db<'_, C> {
    fn statement(&mut self, sql: &'static str) -> Result<Statement, StoreError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.c.prepare(sql)?;
        self.prepared.insert(sql, s.clone());
        Ok(s)
    }

    fn exec(&mut self, sql: &'static str, p: &Params) -> Result<u64, StoreError> {
        let s = self.statement(sql)?;
        Ok(self.c.execute(&s, p)?)
    }

    fn rows(&mut self, sql: &'static str, p: &Params) -> Result<Vec<::postgres::Row>, StoreError> {
        let s = self.statement(sql)?;
        Ok(self.c.query(&s, p)?)
    }

    fn opt(
        &mut self,
        sql: &'static str,
        p: &Params,
    ) -> Result<Option<::postgres::Row>, StoreError> {
        let s = self.statement(sql)?;
        Ok(self.c.query_opt(&s, p)?)
    }

    /// Tell the other servers that the game is at revision `rev` (sent when the write commits).
    fn announce(&mut self, game_id: &str, rev: i64) -> Result<(), StoreError> {
        self.exec(
            "SELECT pg_notify($1, $2)::text",
            &[&channel(game_id), &rev.to_string()],
        )?;
        Ok(())
    }

    /// A write to a game besides its log: its revision moves on (so cached copies are read
    /// again, here and on the other servers) and, when `touched`, its time in the games list.
    fn bump(&mut self, game_id: &str, touched: bool) -> Result<(), StoreError> {
        let row = if touched {
            self.opt(
                "UPDATE heads SET rev = rev + 1, updated_at = $2 WHERE game_id = $1 RETURNING rev",
                &[&game_id, &now()],
            )?
        } else {
            self.opt(
                "UPDATE heads SET rev = rev + 1 WHERE game_id = $1 RETURNING rev",
                &[&game_id],
            )?
        };
        if let Some(r) = row {
            self.announce(game_id, r.get(0))?;
        }
        Ok(())
    }

    /// A game's row, its head and its log (no seats).
    fn insert_game(
        &mut self,
        id: &str,
        game: &Game,
        scenario_id: Option<&str>,
        created_at: i64,
    ) -> Result<(), StoreError> {
        // A game sealed with the plain chain leaves its column to the default, so a game copied
        // into a database of an older schema (or made by an older release) is written as it
        // would have been.
        let chain_version = i64::from(game.chain_version.number());
        // The games list's title: one language (the English, or the only one).
        let title = game.scenario.title.en();
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&id, &title, &game.ruleset, &scenario_id];
        let scenario = json_text(&game.scenario)?;
        let (seed, rules_version) = (game.seed as i64, i64::from(game.rules_version));
        params.extend_from_slice(&[&scenario, &seed, &game.nonce, &created_at, &rules_version]);
        let sql = if game.chain_version.is_v1() {
            "INSERT INTO games (id, title, rule_set, scenario_id, scenario, seed, nonce, created_at, rules_version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        } else {
            params.push(&chain_version);
            "INSERT INTO games (id, title, rule_set, scenario_id, scenario, seed, nonce, created_at, rules_version, chain_version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        };
        self.exec(sql, &params)?;
        self.exec(
            "INSERT INTO heads (game_id, updated_at) VALUES ($1, $2)",
            &[&id, &now()],
        )?;
        self.write_game(id, game, 0)
    }

    fn insert_seat(
        &mut self,
        game_id: &str,
        role: &Role,
        ord: i64,
        token: String,
    ) -> Result<Seat, StoreError> {
        self.exec(
            "INSERT INTO seats (token, game_id, role, ord, created_at) VALUES ($1, $2, $3, $4, $5)",
            &[&token, &game_id, &role_text(role), &ord, &now()],
        )?;
        Ok(Seat {
            token,
            game_id: game_id.to_string(),
            role: role.clone(),
        })
    }

    fn entries(
        &mut self,
        id: &str,
        after: u64,
        upto: u64,
    ) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
        let rows = self.rows(
            "SELECT seq, entry FROM log_entries WHERE game_id = $1 AND seq > $2 AND seq <= $3",
            &[&id, &as_sql(after), &as_sql(upto)],
        )?;
        entries_from(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn game_row(&mut self, id: &str) -> Result<Option<GameRow>, StoreError> {
        Ok(self
            .opt(
                // The chain version read through the row's JSON: a database an older release
                // left (before the column) reads as version 1 until it is migrated.
                "SELECT rule_set, scenario, seed, nonce, rules_version,
                        COALESCE((to_jsonb(g) ->> 'chain_version')::bigint, 1)
                 FROM games g WHERE id = $1",
                &[&id],
            )?
            .map(|r| GameRow {
                rule_set: r.get(0),
                scenario: r.get(1),
                seed: r.get(2),
                nonce: r.get(3),
                rules_version: r.get(4),
                chain_version: r.get(5),
            }))
    }

    fn fold_base(&mut self, id: &str, target: u64, latest: u64) -> Result<FoldBase, StoreError> {
        // As in SQLite: the latest checkpoint, unless the voided event is folded into it.
        let at = if latest < target {
            as_sql(latest)
        } else {
            self.opt(
                "SELECT MAX(seq) FROM checkpoints WHERE game_id = $1 AND seq < $2",
                &[&id, &as_sql(target)],
            )?
            .and_then(|r| r.get::<_, Option<i64>>(0))
            .unwrap_or(0)
        };
        let cp: Option<String> = if at == 0 {
            None
        } else {
            self.opt(
                "SELECT state FROM checkpoints WHERE game_id = $1 AND seq = $2",
                &[&id, &at],
            )?
            .map(|r| r.get(0))
        };
        let from = if cp.is_some() { at } else { 0 };
        // `json`, not `jsonb`: the effects come back as they were written.
        let rows = self.rows(
            "SELECT seq, ((entry::json) -> 'event' -> 'effects')::text FROM log_entries
             WHERE game_id = $1 AND seq > $2 AND seq < $3 AND voids IS NULL
             AND seq NOT IN (SELECT voids FROM log_entries WHERE game_id = $1 AND voids > $2)",
            &[&id, &from, &as_sql(target)],
        )?;
        fold_base_from(
            cp.map(|t| (from as u64, t)),
            rows.iter().map(|r| (r.get(0), r.get(1))).collect(),
        )
    }

    /// A new game under a new id, with its seats.
    fn insert_new(&mut self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError> {
        let id = new_id();
        self.insert_game(&id, game, scenario_id, now())?;
        for (i, r) in seat_roles(game).iter().enumerate() {
            self.insert_seat(&id, r, i as i64, new_token()?)?;
        }
        Ok(id)
    }

    fn seats(&mut self, game_id: &str) -> Result<Vec<Seat>, StoreError> {
        Ok(self
            .rows(
                "SELECT token, role FROM seats WHERE game_id = $1 AND revoked_at IS NULL ORDER BY ord",
                &[&game_id],
            )?
            .iter()
            .map(|r| Seat {
                token: r.get(0),
                game_id: game_id.to_string(),
                role: role_of(r.get(1)),
            })
            .collect())
    }

    fn write_game(&mut self, id: &str, game: &Game, from_seq: u64) -> Result<(), StoreError> {
        let rows = game_rows(id, game, from_seq)?;
        for e in &rows.entries {
            self.exec(
                "INSERT INTO log_entries (game_id, seq, entry, voids, hash) VALUES ($1, $2, $3, $4, $5)",
                &[&id, &e.seq, &e.text, &e.voids, &e.hash],
            )
            .map_err(|x| match x {
                StoreError::Conflict(_) => {
                    StoreError::Conflict(format!("entry {} of game {id} exists", e.seq))
                }
                x => x,
            })?;
        }
        let rev = self
            .opt(
                "UPDATE heads SET turn = $2, over = $7, seq = $3, stream_pos = $4, chain = $5, rev = rev + 1, updated_at = $6
                 WHERE game_id = $1 RETURNING rev",
                &[&id, &rows.turn, &rows.seq, &rows.stream_pos, &rows.chain, &now(), &rows.over],
            )?
            .ok_or_else(|| StoreError::Db(format!("no game {id}")))?;
        self.exec("DELETE FROM checkpoints WHERE game_id = $1", &[&id])?;
        for (seq, state) in &rows.checkpoints {
            self.exec(
                "INSERT INTO checkpoints (game_id, seq, state) VALUES ($1, $2, $3)",
                &[&id, seq, state],
            )?;
        }
        self.announce(id, rev.get(0))
    }
}

impl PgStore {
    /// Connect to the database at `url` (`postgres://user@host/db`, or PostgreSQL's
    /// `key=value` form) and bring its schema up to date.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        PgStore::connect_at(url, SCHEMA.len())
    }

    /// [`PgStore::connect`], the schema brought up to its first `upto` migrations only (a test
    /// makes a database as an earlier release left it).
    pub(crate) fn connect_at(url: &str, upto: usize) -> Result<PgStore, StoreError> {
        let mut config: Config = url
            .parse()
            .map_err(|e| StoreError::Db(format!("not a PostgreSQL address: {e}")))?;
        config
            .connect_timeout(CONNECT_TIMEOUT)
            .keepalives(true)
            .keepalives_idle(DEAD_AFTER / 3)
            .keepalives_interval(DEAD_AFTER / 6)
            .keepalives_retries(3)
            .tcp_user_timeout(DEAD_AFTER);
        let pg = Arc::new(Pg {
            config,
            pool: Mutex::new((Vec::new(), 0)),
            freed: Condvar::new(),
            gone: Arc::new(AtomicBool::new(false)),
            wanted: Arc::new((Mutex::new(Wanted::default()), Condvar::new())),
            appends: Handoff::new(),
            leading: Mutex::new(()),
        });
        pg.migrate(upto)?;
        let p = pg.clone();
        let committer = std::thread::Builder::new()
            .name("tercio-commit".into())
            .spawn(move || {
                p.appends
                    .commit_handed(&p.leading, |_, jobs| p.commit_appends(jobs))
            })
            .map_err(|e| StoreError::Db(format!("the committer thread did not start: {e}")))?;
        Ok(PgStore {
            pg,
            committer: Some(committer),
        })
    }
}

impl Pg {
    fn migrate(&self, upto: usize) -> Result<(), StoreError> {
        self.with(|c| {
            let mut tx = c.client.transaction()?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
            tx.batch_execute("CREATE TABLE IF NOT EXISTS tercio_schema (version BIGINT NOT NULL)")?;
            let version: i64 = match tx.query_opt("SELECT version FROM tercio_schema", &[])? {
                Some(r) => r.get(0),
                None => {
                    tx.execute("INSERT INTO tercio_schema (version) VALUES (0)", &[])?;
                    0
                }
            };
            for (i, m) in SCHEMA
                .iter()
                .enumerate()
                .take(upto)
                .skip(usize::try_from(version).unwrap_or(0))
            {
                tx.batch_execute(m)?;
                tx.execute("UPDATE tercio_schema SET version = $1", &[&(i as i64 + 1)])?;
            }
            tx.commit()?;
            Ok(())
        })
    }

    fn open_conn(&self) -> Result<Conn, StoreError> {
        let client = self.config.connect(NoTls).map_err(|e| {
            StoreError::Db(format!("the database is unavailable: {}", error_text(&e)))
        })?;
        Ok(Conn {
            client,
            prepared: HashMap::new(),
        })
    }

    fn take(&self) -> Result<Conn, StoreError> {
        let mut pool = lock(&self.pool);
        loop {
            // A connection the database closed (it restarted) is dropped, not lent.
            while let Some(c) = pool.0.pop() {
                if !c.client.is_closed() {
                    return Ok(c);
                }
                pool.1 -= 1;
            }
            if pool.1 < CONNECTIONS {
                pool.1 += 1;
                break;
            }
            let (p, waited) = self
                .freed
                .wait_timeout(pool, POOL_WAIT)
                .unwrap_or_else(|e| e.into_inner());
            pool = p;
            if waited.timed_out() && pool.0.is_empty() && pool.1 >= CONNECTIONS {
                return Err(StoreError::Db(format!(
                    "no connection to the database came free in {} s",
                    POOL_WAIT.as_secs()
                )));
            }
        }
        drop(pool);
        let opened = self.open_conn();
        if opened.is_err() {
            lock(&self.pool).1 -= 1;
            self.freed.notify_one();
        }
        opened
    }

    fn give(&self, c: Conn) {
        let mut pool = lock(&self.pool);
        if c.client.is_closed() {
            pool.1 -= 1;
        } else {
            pool.0.push(c);
        }
        drop(pool);
        self.freed.notify_one();
    }

    /// Run `f` on a pooled connection, given back however `f` ends (dropped if it panicked:
    /// it may be inside a transaction).
    fn with<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, StoreError>) -> Result<T, StoreError> {
        struct Lent<'a> {
            store: &'a Pg,
            conn: Option<Conn>,
        }
        impl Drop for Lent<'_> {
            fn drop(&mut self) {
                if let Some(c) = self.conn.take() {
                    if std::thread::panicking() {
                        lock(&self.store.pool).1 -= 1;
                        self.store.freed.notify_one();
                    } else {
                        self.store.give(c);
                    }
                }
            }
        }
        let mut lent = Lent {
            store: self,
            conn: Some(self.take()?),
        };
        match lent.conn.as_mut() {
            Some(c) => f(c),
            None => Err(StoreError::Db("no connection".into())),
        }
    }

    /// Run `f` outside a transaction: a read, which is tried once more on a new connection if
    /// the one it had was found closed (the database restarted since it was last used).
    fn read<T>(
        &self,
        f: impl Fn(&mut Db<'_, Client>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let (out, closed) = self.with(|c| {
            let out = f(&mut Db {
                c: &mut c.client,
                prepared: &mut c.prepared,
            });
            Ok((out, c.client.is_closed()))
        })?;
        match out {
            Err(_) if closed => self.once(f),
            out => out,
        }
    }

    /// Run `f` outside a transaction, once: one statement is its own transaction, and is never
    /// sent twice (it may have been committed with its answer lost).
    fn once<T>(
        &self,
        f: impl FnOnce(&mut Db<'_, Client>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with(|c| {
            f(&mut Db {
                c: &mut c.client,
                prepared: &mut c.prepared,
            })
        })
    }

    /// Run `f` in a transaction of its own; returns once it is committed.
    fn write<T>(
        &self,
        f: impl FnOnce(&mut Db<'_, ::postgres::Transaction<'_>>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.transaction(false, f)
    }

    /// Run `f` in a transaction, committed once `f` is done; as a snapshot, one read-only,
    /// repeatable-read transaction: for a read of several statements that must agree, however
    /// other servers write meanwhile.
    fn transaction<T>(
        &self,
        snapshot: bool,
        f: impl FnOnce(&mut Db<'_, ::postgres::Transaction<'_>>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with(|c| {
            let begin = c.client.build_transaction();
            let mut tx = if snapshot {
                begin
                    .isolation_level(::postgres::IsolationLevel::RepeatableRead)
                    .read_only(true)
                    .start()?
            } else {
                begin.start()?
            };
            let v = f(&mut Db {
                c: &mut tx,
                prepared: &mut c.prepared,
            })?;
            tx.commit()?;
            Ok(v)
        })
    }

    /// `sql` on a game's own row (`$1` its id, `$2` the value), its revision moved on and, when
    /// `touched`, its time in the games list: whether the game was there.
    fn update_game(
        &self,
        id: &str,
        sql: &'static str,
        value: &(dyn ToSql + Sync),
        touched: bool,
    ) -> Result<bool, StoreError> {
        self.write(|db| {
            let n = db.exec(sql, &[&id, value])?;
            db.bump(id, touched)?;
            Ok(n == 1)
        })
    }
}

impl Pg {
    /// Commit a group of appends (one statement: one round trip, one transaction, so the
    /// appends queued while the last commit was on its way share one flush of the log to disk)
    /// and answer each: its revision once committed, a conflict for one whose game has moved on
    /// (nothing of it written), or the group's error. Every server locks the games' heads in
    /// the order of their ids, so two groups never wait on each other in a circle.
    fn commit_appends(&self, mut jobs: Vec<AppendJob>) {
        jobs.sort_by(|a, b| a.id.cmp(&b.id));
        let col = |f: &dyn Fn(&AppendJob) -> i64| jobs.iter().map(f).collect::<Vec<i64>>();
        let ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
        let seqs = col(&|j| as_sql(j.row.seq));
        let bodies: Vec<&str> = jobs.iter().map(|j| j.row.entry.as_str()).collect();
        let voids: Vec<Option<i64>> = jobs.iter().map(|j| j.row.voids.map(as_sql)).collect();
        let chains: Vec<&str> = jobs.iter().map(|j| j.row.chain.as_str()).collect();
        let kept: Vec<Option<&str>> = jobs.iter().map(|j| j.row.state.as_deref()).collect();
        let pos = col(&|j| as_sql(j.row.stream_pos));
        let turns = col(&|j| as_sql(j.row.turn));
        let ended: Vec<bool> = jobs.iter().map(|j| j.row.over).collect();
        let seen: Vec<Option<i64>> = jobs.iter().map(|j| j.row.rev.map(as_sql)).collect();
        let out: Result<Vec<Option<i64>>, StoreError> = self.once(|db| {
            let revs = db
                .opt(
                    APPEND,
                    &[
                        &ids,
                        &seqs,
                        &bodies,
                        &voids,
                        &chains,
                        &kept,
                        &pos,
                        &turns,
                        &ended,
                        &seen,
                        &now(),
                    ],
                )?
                .map(|r| r.get::<_, Vec<Option<i64>>>(0))
                .unwrap_or_default();
            if revs.len() == jobs.len() {
                Ok(revs)
            } else {
                Err(StoreError::Db(format!(
                    "{} appends answered for {}",
                    revs.len(),
                    jobs.len()
                )))
            }
        });
        match out {
            Ok(revs) => {
                for (j, rev) in jobs.into_iter().zip(revs) {
                    (j.done)(rev.map(|r| r.max(0) as u64).ok_or_else(|| {
                        StoreError::Conflict(format!(
                            "game {} has moved on: entry {} is taken",
                            j.id, j.row.seq
                        ))
                    }));
                }
            }
            Err(e) => {
                for j in jobs {
                    (j.done)(Err(e.clone()));
                }
            }
        }
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.gone.store(true, Ordering::Relaxed);
        let committer = self.committer.take();
        self.pg.appends.close(committer);
    }
}

/// Listen on the channels of the games this process wants to hear of ([`Store::attend`]) until
/// the store is gone, connecting again whenever the database is lost. Each game is reported
/// [`Heard::Missed`] when listening for it begins (on a new connection, every game); with no game
/// wanted, the listener holds no connection.
fn listen(
    config: Config,
    gone: Arc<AtomicBool>,
    wanted: Arc<(Mutex<Wanted>, Condvar)>,
    on: Watcher,
) {
    let mut config = config;
    config.application_name("tercio-listen");
    let quoted = |game: &str| format!("\"{}\"", channel(game).replace('"', "\"\""));
    while !gone.load(Ordering::Relaxed) {
        {
            let mut w = lock(&wanted.0);
            while w.games.is_empty() && !gone.load(Ordering::Relaxed) {
                w = wanted
                    .1
                    .wait_timeout(w, LISTEN_TICK)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
        if gone.load(Ordering::Relaxed) {
            return;
        }
        let mut client = match config.connect(NoTls) {
            Ok(c) => c,
            Err(_) => {
                std::thread::sleep(LISTEN_TICK);
                continue;
            }
        };
        let mut listening: HashSet<String> = HashSet::new();
        let mut first = true;
        while !gone.load(Ordering::Relaxed) && !client.is_closed() {
            let want = {
                let mut w = lock(&wanted.0);
                if w.games.is_empty() {
                    break;
                }
                (w.moved || first).then(|| {
                    w.moved = false;
                    w.games.clone()
                })
            };
            first = false;
            if let Some(want) = want {
                let mut sql = String::new();
                for g in listening.difference(&want) {
                    sql.push_str(&format!("UNLISTEN {};", quoted(g)));
                }
                let added: Vec<&String> = want.difference(&listening).collect();
                for g in &added {
                    sql.push_str(&format!("LISTEN {};", quoted(g)));
                }
                if !sql.is_empty() && client.batch_execute(&sql).is_err() {
                    break;
                }
                for g in added {
                    on(Heard::Missed(g));
                }
                listening = want;
            }
            let mut heard = client.notifications();
            let mut it = heard.timeout_iter(LISTEN_WAIT);
            while let Ok(Some(n)) = it.next() {
                if let (Some(game), Ok(rev)) = (
                    n.channel().strip_prefix(CHANNEL_PREFIX),
                    n.payload().parse::<u64>(),
                ) {
                    on(Heard::Wrote(game, rev));
                }
                if lock(&wanted.0).moved {
                    break;
                }
            }
        }
    }
}

impl Pg {
    /// [`Store::create_live`], or with `if_empty` [`Store::create_live_if_empty`]: the check
    /// and the write in one transaction, under an advisory lock held until it ends, so the
    /// servers sharing the database take it one at a time and each sees what the one before
    /// committed (under READ COMMITTED each statement reads what is committed when it starts).
    fn make_live(
        &self,
        game: &Game,
        scenario_id: Option<&str>,
        settings: Option<&Settings>,
        if_empty: bool,
    ) -> Result<Option<(String, Live)>, StoreError> {
        let settings = settings.map(json_text).transpose()?;
        self.write(|db| {
            if if_empty {
                db.exec("SELECT pg_advisory_xact_lock($1)", &[&FIRST_GAME_LOCK])?;
                if db
                    .opt("SELECT 1 FROM games WHERE NOT archived LIMIT 1", &[])?
                    .is_some()
                {
                    return Ok(None);
                }
            }
            let id = db.insert_new(game, scenario_id)?;
            // The head as the store keeps it: sealed with the id it was given.
            let mut sealed = game.clone();
            sealed.game_id = id.clone();
            let head = Head::of(&sealed);
            if let Some(text) = &settings {
                db.exec("UPDATE games SET settings = $2 WHERE id = $1", &[&id, text])?;
                db.bump(&id, true)?;
            }
            let r = db
                .opt(
                    "SELECT g.settings, g.concluded_at, h.rev FROM games g JOIN heads h ON h.game_id = g.id WHERE g.id = $1",
                    &[&id],
                )?
                .ok_or_else(|| StoreError::Db(format!("game {id} was not written")))?;
            let rev: i64 = r.get(2);
            let live = Live {
                head,
                meta: meta_of(r.get(0), r.get(1))?,
                seats: db.seats(&id)?,
                rev: rev as u64,
            };
            Ok(Some((id, live)))
        })
    }
}

impl Store for PgStore {
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError> {
        self.write(|db| db.insert_new(game, scenario_id))
    }

    fn create_live(
        &self,
        game: &Game,
        scenario_id: Option<&str>,
        settings: Option<&Settings>,
    ) -> Result<(String, Live), StoreError> {
        self.make_live(game, scenario_id, settings, false)?
            .ok_or_else(|| StoreError::Db("the game was not written".into()))
    }

    fn create_live_if_empty(
        &self,
        game: &Game,
        scenario_id: Option<&str>,
        settings: Option<&Settings>,
    ) -> Result<Option<(String, Live)>, StoreError> {
        self.make_live(game, scenario_id, settings, true)
    }

    fn import(&self, r: &GameRecord) -> Result<bool, StoreError> {
        self.write(|db| {
            if db
                .opt("SELECT 1 FROM games WHERE id = $1", &[&r.id])?
                .is_some()
            {
                return Ok(false);
            }
            db.insert_game(&r.id, &r.game, r.scenario_id.as_deref(), r.created_at)?;
            db.exec(
                "UPDATE games SET settings = $2, archived = $3, concluded_at = $4 WHERE id = $1",
                &[
                    &r.id,
                    &json_text(&r.meta.settings)?,
                    &r.archived,
                    &r.meta.concluded.then(now),
                ],
            )?;
            for (i, s) in r.seats.iter().enumerate() {
                db.insert_seat(&r.id, &s.role, i as i64, s.token.clone())?;
            }
            Ok(true)
        })
    }

    fn load(&self, id: &str) -> Result<Option<Game>, StoreError> {
        self.read(|db| {
            let Some(row) = db.game_row(id)? else {
                return Ok(None);
            };
            let entries = db.entries(id, 0, u64::MAX)?;
            game_of(id, row, entries).map(Some)
        })
    }

    fn save(&self, id: &str, game: &Game) -> Result<(), StoreError> {
        self.write(|db| {
            let stored: i64 = db
                .opt(
                    "SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = $1",
                    &[&id],
                )?
                .map_or(0, |r| r.get(0));
            db.write_game(id, game, stored.max(0) as u64)
        })
    }

    fn live(&self, id: &str) -> Result<Option<Live>, StoreError> {
        // Its head, live events, checkpoint and seats as of one moment.
        self.transaction(true, |db| {
            let Some(r) = db.opt(
                "SELECT g.rule_set, g.scenario, g.seed, g.nonce, g.rules_version, h.seq, h.stream_pos, h.chain, h.rev, g.settings, g.concluded_at,
                        (SELECT COALESCE(MAX(seq), 0) FROM checkpoints WHERE game_id = g.id),
                        COALESCE((to_jsonb(g) ->> 'chain_version')::bigint, 1)
                 FROM games g JOIN heads h ON h.game_id = g.id WHERE g.id = $1",
                &[&id],
            )?
            else {
                return Ok(None);
            };
            let game = GameRow {
                rule_set: r.get(0),
                scenario: r.get(1),
                seed: r.get(2),
                nonce: r.get(3),
                rules_version: r.get(4),
                chain_version: r.get(12),
            };
            let mut live: Vec<u64> = db
                .rows(
                    "SELECT seq FROM log_entries WHERE game_id = $1 AND voids IS NULL
                     AND seq NOT IN (SELECT voids FROM log_entries WHERE game_id = $1 AND voids IS NOT NULL)",
                    &[&id],
                )?
                .iter()
                .map(|r| r.get::<_, i64>(0).max(0) as u64)
                .collect();
            live.sort_unstable();
            let mut head = head_of(id, game, r.get(5), r.get(6), r.get(7), live, r.get(11))?;
            let base = db.fold_base(id, head.seq + 1, head.checkpoint)?;
            head.state = state_from(&head, base)?;
            Ok(Some(Live {
                head,
                meta: meta_of(r.get(9), r.get(10))?,
                seats: db.seats(id)?,
                rev: r.get::<_, i64>(8).max(0) as u64,
            }))
        })
    }

    fn append(&self, id: &str, row: Row) -> Result<u64, StoreError> {
        let (tx, rx) = mpsc::channel();
        lock(&self.appends.queue).push(AppendJob {
            id: id.to_string(),
            row,
            done: Box::new(move |out| {
                let _ = tx.send(out);
            }),
        });
        lead_groups(&self.appends.queue, &self.leading, |_, jobs| {
            self.commit_appends(jobs)
        });
        rx.recv()
            .map_err(|_| StoreError::Db("the write was lost: its commit stopped".into()))?
    }

    fn commits_for_callers(&self) -> bool {
        true
    }

    fn append_then(&self, id: &str, row: Row, done: Committed) {
        self.appends.hand(AppendJob {
            id: id.to_string(),
            row,
            done,
        });
    }

    fn entries(
        &self,
        id: &str,
        after: u64,
        limit: u64,
    ) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
        self.read(|db| db.entries(id, after, after.saturating_add(limit)))
    }

    fn last_entries(&self, id: &str, n: u64) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
        self.read(|db| {
            let seq = db
                .opt("SELECT seq FROM heads WHERE game_id = $1", &[&id])?
                .map_or(0, |r| r.get::<_, i64>(0).max(0) as u64);
            db.entries(id, seq.saturating_sub(n), seq)
        })
    }

    fn fold_base(&self, id: &str, target: u64, latest: u64) -> Result<FoldBase, StoreError> {
        self.read(|db| db.fold_base(id, target, latest))
    }

    fn list(&self, archived: bool) -> Result<Vec<GameSummary>, StoreError> {
        self.read(|db| {
            Ok(db
                .rows(
                    "SELECT g.id, g.title, g.rule_set, g.scenario_id, h.turn, h.over OR g.concluded_at IS NOT NULL,
                            g.created_at, h.updated_at, g.archived, h.seq
                     FROM games g JOIN heads h ON h.game_id = g.id WHERE g.archived = $1
                     ORDER BY h.updated_at DESC, g.id",
                    &[&archived],
                )?
                .iter()
                .map(|r| GameSummary {
                    id: r.get(0),
                    title: r.get(1),
                    rule_set: r.get(2),
                    scenario: r.get(3),
                    turn: r.get::<_, i64>(4).max(0) as u64,
                    over: r.get(5),
                    created_at: r.get(6),
                    updated_at: r.get(7),
                    archived: r.get(8),
                    events: r.get::<_, i64>(9).max(0) as u64,
                })
                .collect())
        })
    }

    fn set_archived(&self, id: &str, archived: bool) -> Result<bool, StoreError> {
        self.update_game(
            id,
            "UPDATE games SET archived = $2 WHERE id = $1",
            &archived,
            false,
        )
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.write(|db| {
            // The head first, as an append locks it before the game's row: the two never wait
            // on each other in a circle.
            db.exec("SELECT 1 FROM heads WHERE game_id = $1 FOR UPDATE", &[&id])?;
            let n = db.exec("DELETE FROM games WHERE id = $1", &[&id])?;
            // Past any revision: every server reads it again, and finds it gone.
            db.announce(id, i64::MAX)?;
            Ok(n == 1)
        })
    }

    fn seat(&self, token: &str) -> Result<Option<Seat>, StoreError> {
        Ok(self.seat_at(token)?.map(|(s, _)| s))
    }

    fn seat_at(&self, token: &str) -> Result<Option<(Seat, u64)>, StoreError> {
        self.read(|db| {
            Ok(db
                .opt(
                    "SELECT s.game_id, s.role, h.rev FROM seats s JOIN heads h ON h.game_id = s.game_id
                     WHERE s.token = $1 AND s.revoked_at IS NULL",
                    &[&token],
                )?
                .map(|r| {
                    (
                        Seat {
                            token: token.to_string(),
                            game_id: r.get(0),
                            role: role_of(r.get(1)),
                        },
                        r.get::<_, i64>(2).max(0) as u64,
                    )
                }))
        })
    }

    fn seats(&self, game_id: &str) -> Result<Vec<Seat>, StoreError> {
        self.read(|db| db.seats(game_id))
    }

    fn reissue(&self, game_id: &str, role: &Role) -> Result<Option<Seat>, StoreError> {
        self.write(|db| {
            let role_t = role_text(role);
            let Some(ord) = db
                .opt(
                    "UPDATE seats SET revoked_at = $3 WHERE game_id = $1 AND role = $2 AND revoked_at IS NULL
                     RETURNING ord",
                    &[&game_id, &role_t, &now()],
                )?
                .map(|r| r.get::<_, i64>(0))
            else {
                return Ok(None);
            };
            db.bump(game_id, false)?;
            db.insert_seat(game_id, role, ord, new_token()?).map(Some)
        })
    }

    fn meta(&self, game_id: &str) -> Result<Option<Meta>, StoreError> {
        self.read(|db| {
            db.opt(
                "SELECT settings, concluded_at FROM games WHERE id = $1",
                &[&game_id],
            )?
            .map(|r| meta_of(r.get(0), r.get(1)))
            .transpose()
        })
    }

    fn set_settings(&self, game_id: &str, settings: &Settings) -> Result<bool, StoreError> {
        self.update_game(
            game_id,
            "UPDATE games SET settings = $2 WHERE id = $1",
            &json_text(settings)?,
            true,
        )
    }

    fn conclude(&self, game_id: &str) -> Result<bool, StoreError> {
        self.update_game(
            game_id,
            "UPDATE games SET concluded_at = COALESCE(concluded_at, $2) WHERE id = $1",
            &now(),
            true,
        )
    }

    fn host_key(&self) -> Result<String, StoreError> {
        // Servers started together agree: the first key inserted is everyone's.
        self.write(|db| {
            db.exec(
                "INSERT INTO host (key) VALUES ($1) ON CONFLICT (one) DO NOTHING",
                &[&new_token()?],
            )?;
            db.opt("SELECT key FROM host", &[])?
                .map(|r| r.get(0))
                .ok_or_else(|| StoreError::Db("no host key".into()))
        })
    }

    fn watch(&self, on: Watcher) -> Result<(), StoreError> {
        let (config, gone, wanted) = (self.config.clone(), self.gone.clone(), self.wanted.clone());
        std::thread::Builder::new()
            .name("tercio-listen".into())
            .spawn(move || listen(config, gone, wanted, on))
            .map_err(|e| StoreError::Db(format!("cannot start the listener: {e}")))?;
        Ok(())
    }

    fn attend(&self, game: &str, wanted: bool) {
        let mut w = lock(&self.wanted.0);
        let moved = if wanted {
            w.games.insert(game.to_string())
        } else {
            w.games.remove(game)
        };
        w.moved |= moved;
        drop(w);
        self.wanted.1.notify_all();
    }

    fn describe(&self) -> String {
        let c = &self.config;
        let host = c
            .get_hosts()
            .first()
            .map(|h| match h {
                ::postgres::config::Host::Tcp(h) => h.clone(),
                ::postgres::config::Host::Unix(p) => p.display().to_string(),
            })
            .unwrap_or_default();
        format!(
            "PostgreSQL database {} on {host} as {}",
            c.get_dbname().unwrap_or(""),
            c.get_user().unwrap_or("")
        )
    }
}

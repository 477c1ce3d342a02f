//! The embedded SQLite store: group commits on one writer, reads on their own WAL connections.

use super::*;

/// The embedded SQLite store. Writes go through one connection in **group commits**: a caller
/// queues its write and either becomes the leader, which commits every queued write in one
/// transaction (each in its own savepoint, so one refused write spoils no other), or finds its
/// write committed by the leader before it. Each caller returns only after its own commit, with
/// `synchronous = FULL`. An append handed over with [`Store::append_then`] is committed by the
/// store's own committer thread, in the same groups, and its caller told once it is durable.
/// Reads use their own WAL connections and never wait for a commit.
pub struct SqliteStore {
    writing: Arc<Writing>,
    /// The committer thread, which commits the appends handed over.
    committer: Option<std::thread::JoinHandle<()>>,
    /// Read connections (a file database); `None` in memory, where reads share the writer's.
    readers: Option<Readers>,
}

/// The write connection and the writes queued for it.
pub(super) struct Writing {
    conn: Mutex<Connection>,
    jobs: Handoff<Job>,
}

pub(super) type Done = Box<dyn Any + Send>;
pub(super) type JobFn = Box<dyn FnOnce(&Connection) -> Result<Done, StoreError> + Send>;
/// What a write's caller is told: its own error, the commit's, or its value once committed.
pub(super) type Answer = Box<dyn FnOnce(Result<Done, StoreError>) + Send>;

pub(super) struct Job {
    run: JobFn,
    done: Answer,
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.writing.jobs.close(self.committer.take());
    }
}

pub(super) struct Readers {
    path: PathBuf,
    /// Idle connections, and how many are open in all.
    pool: Mutex<(Vec<Connection>, usize)>,
    freed: Condvar,
}

/// How many read connections are open at most. Every one is kept and reused (opening one costs
/// a parse of the schema and of every statement); a reader beyond them waits for one, which on
/// a machine of a few cores costs less than more connections would.
pub(super) const READERS: usize = 16;

/// How many prepared statements each connection keeps: more than the store has.
pub(super) const STATEMENTS_KEPT: usize = 64;

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
pub(super) struct Lent<'a> {
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

pub(super) fn insert_seat(
    tx: &Connection,
    game_id: &str,
    role: &Role,
    ord: i64,
) -> Result<Seat, StoreError> {
    insert_seat_token(tx, game_id, role, ord, new_token()?)
}

fn insert_seat_token(
    tx: &Connection,
    game_id: &str,
    role: &Role,
    ord: i64,
    token: String,
) -> Result<Seat, StoreError> {
    tx.prepare_cached(
        "INSERT INTO seats (token, game_id, role, ord, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![token, game_id, role_text(role), ord, now()])?;
    Ok(Seat {
        token,
        game_id: game_id.to_string(),
        role: role.clone(),
    })
}

/// A write to a game besides its log: its revision moves on (so cached copies are read again)
/// and, when `touched`, its time in the games list.
pub(super) fn bump(tx: &Connection, game_id: &str, touched: bool) -> Result<(), StoreError> {
    if touched {
        tx.prepare_cached("UPDATE heads SET rev = rev + 1, updated_at = ?2 WHERE game_id = ?1")?
            .execute(params![game_id, now()])?;
    } else {
        tx.prepare_cached("UPDATE heads SET rev = rev + 1 WHERE game_id = ?1")?
            .execute(params![game_id])?;
    }
    Ok(())
}

pub(super) fn is_conflict(e: &rusqlite::Error) -> bool {
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
        let writing = Arc::new(Writing {
            conn: Mutex::new(conn),
            jobs: Handoff::new(),
        });
        let w = writing.clone();
        let committer = std::thread::Builder::new()
            .name("tercio-commit".into())
            .spawn(move || w.jobs.commit_handed(&w.conn, commit_group))
            .map_err(|e| StoreError::Db(format!("the committer thread did not start: {e}")))?;
        Ok(SqliteStore {
            writing,
            committer: Some(committer),
            readers: None,
        })
    }

    /// Run `f` on a read connection.
    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &self.readers {
            None => f(&lock(&self.writing.conn)),
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
    ///
    /// The caller queues its write, then leads if no one does: it commits what is queued, again
    /// while more arrives, and after letting the connection go looks at the queue once more (a
    /// write queued while it led, by a caller that found it leading, would otherwise wait for
    /// no one). A caller that finds another leading waits for its own answer alone: it is woken
    /// once, when its write is committed, not to queue behind the next commit for the
    /// connection.
    fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = mpsc::channel();
        lock(&self.writing.jobs.queue).push(Job::of(f, move |out| {
            let _ = tx.send(out);
        }));
        lead_groups(&self.writing.jobs.queue, &self.writing.conn, commit_group);
        rx.recv()
            .map_err(|_| StoreError::Db("the write was lost: its commit stopped".into()))?
    }
}

impl Job {
    /// The write `f`, whose caller is told `done` with its value once committed (or its error).
    fn of<T: Send + 'static>(
        f: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
        done: impl FnOnce(Result<T, StoreError>) + Send + 'static,
    ) -> Job {
        Job {
            run: Box::new(move |t| f(t).map(|v| Box::new(v) as Done)),
            done: Box::new(move |out| {
                done(out.and_then(|b| {
                    b.downcast::<T>()
                        .map(|b| *b)
                        .map_err(|_| StoreError::Db("write answered with the wrong type".into()))
                }))
            }),
        }
    }
}

/// Commit `jobs` in one transaction, each in a savepoint, and answer each: its own error, the
/// commit's, or its value once committed.
pub(super) fn commit_group(conn: &mut Connection, jobs: Vec<Job>) {
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
            (j.done)(Err(StoreError::Db(e.to_string())));
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
                done(out);
            }
        }
        Err(e) => {
            // Nothing of the group is kept.
            let _ = conn.execute_batch("ROLLBACK");
            for (done, out) in answers {
                done(out.and(Err(StoreError::Db(e.to_string()))));
            }
        }
    }
}

/// The write that appends `row` to game `id` ([`Store::append`]): refused as a conflict, with
/// nothing written, unless it follows the stored head.
fn append_row(
    id: String,
    row: Row,
) -> impl FnOnce(&Connection) -> Result<u64, StoreError> + Send + 'static {
    move |tx| {
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
        // The head moves on only from the entry before (and the revision the caller read): no
        // row changes otherwise, and the entry is refused.
        let n = tx
            .prepare_cached(
                "UPDATE heads SET turn = ?3, over = ?7, seq = ?2, stream_pos = ?4, chain = ?5, rev = rev + 1, updated_at = ?6
                 WHERE game_id = ?1 AND seq = ?2 - 1 AND (?8 IS NULL OR rev = ?8)",
            )?
            .execute(params![id, row.seq as i64, row.turn as i64, row.stream_pos as i64, row.chain, now(), row.over, row.rev.map(as_sql)])?;
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
        // An update on the writer's revision made it one more; any other is read back.
        if let Some(r) = row.rev {
            return Ok(r + 1);
        }
        let rev: i64 = tx
            .prepare_cached("SELECT rev FROM heads WHERE game_id = ?1")?
            .query_row(params![id], |r| r.get(0))?;
        Ok(rev as u64)
    }
}

/// The effects of game `?1`'s live entries with `?2 < seq < ?3`, for an undo to fold. A void
/// comes after the entry it voids, so the voids of entries after `?2` are among the entries
/// after `?2`: the log's key finds both, and no step reads the entries before the checkpoint.
pub(super) const FOLD_EFFECTS: &str =
    "SELECT seq, json_extract(entry, '$.event.effects') FROM log_entries
     WHERE game_id = ?1 AND seq > ?2 AND seq < ?3 AND voids IS NULL
     AND seq NOT IN (SELECT voids FROM log_entries WHERE game_id = ?1 AND seq > ?2 AND voids IS NOT NULL)";

/// Every entry of game `?1`: its sequence number and what it voids, if it is a void.
pub(super) const SEQS_AND_VOIDS: &str = "SELECT seq, voids FROM log_entries WHERE game_id = ?1";

pub(super) fn load_game(conn: &Connection, id: &str) -> Result<Option<Game>, StoreError> {
    load_game_with(conn, id, true)
}

/// A whole game; `versioned`: the games table has its `rules_version` column (a migration from
/// before it reads version 1).
pub(super) fn load_game_with(
    conn: &Connection,
    id: &str,
    versioned: bool,
) -> Result<Option<Game>, StoreError> {
    let sql = if versioned {
        "SELECT rule_set, scenario, seed, nonce, rules_version, chain_version FROM games WHERE id = ?1"
    } else {
        "SELECT rule_set, scenario, seed, nonce, 1, 1 FROM games WHERE id = ?1"
    };
    let row = conn
        .query_row(sql, params![id], |r| {
            Ok(GameRow {
                rule_set: r.get(0)?,
                scenario: r.get(1)?,
                seed: r.get(2)?,
                nonce: r.get(3)?,
                rules_version: r.get(4)?,
                chain_version: r.get(5)?,
            })
        })
        .optional()?;
    let Some(row) = row else {
        return Ok(None);
    };
    let entries = query_entries(conn, id, 0, u64::MAX)?;
    game_of(id, row, entries).map(Some)
}

/// The nearest checkpoint before `target` and the effects of the live events between it and
/// `target`.
pub(super) fn fold_base_of(
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
    let mut stmt = c.prepare_cached(FOLD_EFFECTS)?;
    let rows = stmt.query_map(params![id, as_sql(from), as_sql(target)], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    let rows = rows.collect::<Result<Vec<_>, _>>()?;
    fold_base_from(cp.map(|t| (from, t)), rows)
}

/// The state at the end of a game's log: its latest checkpoint with the live events after it
/// folded in (fewer than [`tercio_rules::game::CHECKPOINT_EVERY`]), or the scenario's initial
/// state with all of them when it has no checkpoint yet.
pub(super) fn fold_state(conn: &Connection, id: &str, head: &Head) -> Result<Value, StoreError> {
    state_from(head, fold_base_of(conn, id, head.seq + 1, head.checkpoint)?)
}

/// The entries of game `id` with `after < seq <= upto`, in order. (No `ORDER BY` in the
/// statement: with one, SQLite re-prepares it at every run; the rows are sorted here.)
pub(super) fn query_entries(
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
    entries_from(rows.collect::<Result<Vec<_>, _>>()?)
}

pub(super) fn seats_of(conn: &Connection, game_id: &str) -> Result<Vec<Seat>, StoreError> {
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

/// Write the entries of `game` after `from_seq`, with their chain hashes, and its head.
pub(super) fn write_game(
    tx: &Connection,
    id: &str,
    game: &Game,
    from_seq: u64,
) -> Result<(), StoreError> {
    let rows = game_rows(id, game, from_seq)?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO log_entries (game_id, seq, entry, voids, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for e in &rows.entries {
        stmt.execute(params![id, e.seq, e.text, e.voids, e.hash])
            .map_err(|x| {
                if is_conflict(&x) {
                    StoreError::Conflict(format!("entry {} of game {id} exists", e.seq))
                } else {
                    x.into()
                }
            })?;
    }
    let n = tx
        .prepare_cached(
            "UPDATE heads SET turn = ?2, over = ?7, seq = ?3, stream_pos = ?4, chain = ?5, rev = rev + 1, updated_at = ?6 WHERE game_id = ?1",
        )?
        .execute(params![id, rows.turn, rows.seq, rows.stream_pos, rows.chain, now(), rows.over])?;
    if n != 1 {
        return Err(StoreError::Db(format!("no game {id}")));
    }
    tx.prepare_cached("DELETE FROM checkpoints WHERE game_id = ?1")?
        .execute(params![id])?;
    let mut put =
        tx.prepare_cached("INSERT INTO checkpoints (game_id, seq, state) VALUES (?1, ?2, ?3)")?;
    for (seq, state) in &rows.checkpoints {
        put.execute(params![id, seq, state])?;
    }
    Ok(())
}

/// A new game under a new id, with its seats.
fn insert_new(
    tx: &Connection,
    game: &Game,
    scenario_id: Option<&str>,
) -> Result<String, StoreError> {
    let id = new_id();
    insert_game(tx, &id, game, scenario_id, now())?;
    for (i, r) in seat_roles(game).iter().enumerate() {
        insert_seat(tx, &id, r, i as i64)?;
    }
    Ok(id)
}

/// A game's row, its head and its log (no seats).
fn insert_game(
    tx: &Connection,
    id: &str,
    game: &Game,
    scenario_id: Option<&str>,
    created_at: i64,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO games (id, title, rule_set, scenario_id, scenario, seed, nonce, created_at, rules_version, chain_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![id, game.scenario.title.en(), game.ruleset, scenario_id, json_text(&game.scenario)?, game.seed as i64, game.nonce, created_at, i64::from(game.rules_version), i64::from(game.chain_version.number())])?;
    tx.prepare_cached("INSERT INTO heads (game_id, updated_at) VALUES (?1, ?2)")?
        .execute(params![id, now()])?;
    write_game(tx, id, game, 0)
}

impl SqliteStore {
    /// [`Store::create_live`], or with `if_empty` [`Store::create_live_if_empty`]: the check
    /// is in the write's own transaction, which holds the database's write lock
    /// (`BEGIN IMMEDIATE`) from its start, so no other writer, in this process or another,
    /// comes between it and the insert.
    fn make_live(
        &self,
        game: &Game,
        scenario_id: Option<&str>,
        settings: Option<&Settings>,
        if_empty: bool,
    ) -> Result<Option<(String, Live)>, StoreError> {
        let settings = settings.map(json_text).transpose()?;
        let mut game = game.clone();
        let scenario_id = scenario_id.map(str::to_string);
        self.write(move |tx| {
            if if_empty {
                let any: Option<i64> = tx
                    .query_row("SELECT 1 FROM games WHERE archived = 0 LIMIT 1", [], |r| {
                        r.get(0)
                    })
                    .optional()?;
                if any.is_some() {
                    return Ok(None);
                }
            }
            let id = insert_new(tx, &game, scenario_id.as_deref())?;
            // The head as the store keeps it: sealed with the id it was given.
            game.game_id = id.clone();
            let head = Head::of(&game);
            if let Some(text) = &settings {
                tx.execute(
                    "UPDATE games SET settings = ?2 WHERE id = ?1",
                    params![id, text],
                )?;
                bump(tx, &id, true)?;
            }
            let (settings, concluded, rev): (String, Option<i64>, i64) = tx
                .prepare_cached(
                    "SELECT g.settings, g.concluded_at, h.rev FROM games g JOIN heads h ON h.game_id = g.id WHERE g.id = ?1",
                )?
                .query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            let live = Live {
                head,
                meta: meta_of(&settings, concluded)?,
                seats: seats_of(tx, &id)?,
                rev: rev as u64,
            };
            Ok(Some((id, live)))
        })
    }
}

impl Store for SqliteStore {
    fn create(&self, game: &Game, scenario_id: Option<&str>) -> Result<String, StoreError> {
        let game = game.clone();
        let scenario_id = scenario_id.map(str::to_string);
        self.write(move |tx| insert_new(tx, &game, scenario_id.as_deref()))
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
        let r = r.clone();
        self.write(move |tx| {
            let there: Option<i64> = tx
                .query_row("SELECT 1 FROM games WHERE id = ?1", params![r.id], |x| {
                    x.get(0)
                })
                .optional()?;
            if there.is_some() {
                return Ok(false);
            }
            insert_game(tx, &r.id, &r.game, r.scenario_id.as_deref(), r.created_at)?;
            tx.execute(
                "UPDATE games SET settings = ?2, archived = ?3, concluded_at = ?4 WHERE id = ?1",
                params![
                    r.id,
                    json_text(&r.meta.settings)?,
                    r.archived as i64,
                    r.meta.concluded.then(now)
                ],
            )?;
            for (i, s) in r.seats.iter().enumerate() {
                insert_seat_token(tx, &r.id, &s.role, i as i64, s.token.clone())?;
            }
            Ok(true)
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
            type HeadCols = (i64, i64, String, i64, String, Option<i64>);
            let row: Option<(GameRow, HeadCols)> = c
                .prepare_cached(
                    "SELECT g.rule_set, g.scenario, g.seed, g.nonce, g.rules_version, h.seq, h.stream_pos, h.chain, h.rev, g.settings, g.concluded_at, g.chain_version
                     FROM games g JOIN heads h ON h.game_id = g.id WHERE g.id = ?1",
                )?
                .query_row(params![id], |r| {
                    Ok((
                        GameRow {
                            rule_set: r.get(0)?,
                            scenario: r.get(1)?,
                            seed: r.get(2)?,
                            nonce: r.get(3)?,
                            rules_version: r.get(4)?,
                            chain_version: r.get(11)?,
                        },
                        (r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?),
                    ))
                })
                .optional()?;
            let Some((game, (seq, pos, chain, rev, settings, concluded))) = row else {
                return Ok(None);
            };
            let live = {
                let mut stmt = c.prepare_cached(SEQS_AND_VOIDS)?;
                let rows = stmt.query_map(params![id], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
                })?;
                live_seqs(rows.collect::<Result<Vec<_>, _>>()?)
            };
            let checkpoint = c
                .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM checkpoints WHERE game_id = ?1")?
                .query_row(params![id], |r| r.get::<_, i64>(0))?;
            let mut head = head_of(id, game, seq, pos, chain, live, checkpoint)?;
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
        self.write(append_row(id.to_string(), row))
    }

    fn commits_for_callers(&self) -> bool {
        true
    }

    fn append_then(&self, id: &str, row: Row, done: Committed) {
        self.writing
            .jobs
            .hand(Job::of(append_row(id.to_string(), row), done));
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

    fn describe(&self) -> String {
        match &self.readers {
            Some(r) => format!("SQLite database {}", r.path.display()),
            None => "SQLite database in memory".into(),
        }
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

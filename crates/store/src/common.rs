//! What both backends share: ids and tokens, the text forms of roles and settings, and how a
//! game, its head and its state are put together from what a backend reads.

use super::*;

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

pub(super) fn new_id() -> String {
    let n = getrandom::u64().unwrap_or_else(|_| now() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    format!("{n:016x}")
}

/// 128 random bits, hex: a seat's token or the host key. Without the system's entropy there is
/// no unguessable token, so this fails rather than fall back on anything predictable.
pub(super) fn new_token() -> Result<String, StoreError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| StoreError::Db(format!("no system randomness: {e}")))?;
    Ok(tercio_core::hex(&b))
}

/// The turn a state is in, for the games list (0 when it has none).
pub(super) fn turn_of(state: &Value) -> u64 {
    state["turn"].as_u64().unwrap_or(0)
}

pub(super) fn json_text<T: Serialize>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|x| StoreError::Corrupt(x.to_string()))
}

pub(super) fn role_text(r: &Role) -> String {
    match r {
        Role::GameMaster => "game-master".into(),
        Role::Side(s) => format!("side:{s}"),
        Role::Spectator => "spectator".into(),
    }
}

pub(super) fn role_of(t: &str) -> Role {
    match t.strip_prefix("side:") {
        Some(s) => Role::Side(s.to_string()),
        None if t == "game-master" => Role::GameMaster,
        None => Role::Spectator,
    }
}

/// A stored game's scenario (its JSON column), accepted as recorded: the game was played with it,
/// so a check it fails (one added since it was stored) does not stop the game loading; it is in
/// [`Scenario::warnings`], named as `game ID: scenario` with the line and column in that JSON.
pub(super) fn stored_scenario(id: &str, json: &str) -> Result<Scenario, StoreError> {
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

/// A sequence number as the databases' 64-bit integer.
pub(super) fn as_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub(super) fn meta_of(settings: &str, concluded: Option<i64>) -> Result<Meta, StoreError> {
    Ok(Meta {
        settings: serde_json::from_str(settings)
            .map_err(|e| StoreError::Corrupt(format!("settings: {e}")))?,
        concluded: concluded.is_some(),
    })
}

/// A game's own row, as both backends store it.
pub(super) struct GameRow {
    pub rule_set: String,
    pub scenario: String,
    pub seed: i64,
    pub nonce: String,
    pub rules_version: i64,
    pub chain_version: i64,
}

impl GameRow {
    fn chain_version(&self, id: &str) -> Result<ChainVersion, StoreError> {
        u32::try_from(self.chain_version)
            .map_err(|_| format!("chain version {}", self.chain_version))
            .and_then(ChainVersion::try_from)
            .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))
    }
}

/// The seal of the game stored under `id` ([`Game::seal`], with the store's id).
pub(super) fn seal_of(id: &str, game: &Game) -> Seal {
    Seal::new(
        game.chain_version,
        game.seed,
        &game.nonce,
        Identity {
            game_id: id,
            ..game.identity()
        },
    )
}

/// A whole game from its row and every entry of its log, its state folded from the start.
pub(super) fn game_of(
    id: &str,
    row: GameRow,
    entries: Vec<LogEntry<GameEvent>>,
) -> Result<Game, StoreError> {
    let chain_version = row.chain_version(id)?;
    let mut game = Game {
        format: FORMAT.to_string(),
        ruleset: row.rule_set,
        seed: row.seed as u64,
        nonce: row.nonce,
        scenario: stored_scenario(id, &row.scenario)?,
        rules_version: u32::try_from(row.rules_version).unwrap_or(1),
        log: EventLog::from_entries(entries)
            .map_err(|e| StoreError::Corrupt(format!("game {id}: log.{e}")))?,
        state: Value::Null,
        game_id: id.to_string(),
        chain_version,
    };
    game.state = game
        .refold()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(game)
}

/// A game's head from its row and its head's columns, without its state yet (see
/// [`state_from`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn head_of(
    id: &str,
    row: GameRow,
    seq: i64,
    stream_pos: i64,
    chain: String,
    live: Vec<u64>,
    checkpoint: i64,
) -> Result<Head, StoreError> {
    let version = row.chain_version(id)?;
    let scenario = stored_scenario(id, &row.scenario)?;
    let rules_version = u32::try_from(row.rules_version).unwrap_or(1);
    let seal = Seal::new(
        version,
        row.seed as u64,
        &row.nonce,
        Identity {
            game_id: id,
            ruleset: &row.rule_set,
            rules_version,
            scenario: &scenario,
        },
    );
    Ok(Head {
        ruleset: row.rule_set,
        seed: row.seed as u64,
        nonce: row.nonce,
        seal,
        scenario,
        rules_version,
        state: Value::Null,
        seq: seq.max(0) as u64,
        stream_pos: stream_pos.max(0) as u64,
        chain,
        live,
        checkpoint: checkpoint.max(0) as u64,
        kept: Default::default(),
    })
}

/// The state a fold base leads to: its checkpoint (or the scenario's initial state) with its
/// events' effects applied.
pub(super) fn state_from(head: &Head, base: FoldBase) -> Result<Value, StoreError> {
    let engine = head
        .engine()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let mut state = match base.checkpoint {
        Some((_, s)) => s,
        None => engine.initial_state().map_err(StoreError::Corrupt)?,
    };
    for e in &base.effects {
        engine.apply(&mut state, e).map_err(StoreError::Corrupt)?;
    }
    Ok(state)
}

/// A fold base from what a backend read: the checkpoint's sequence number and JSON, if one
/// was found, and each live event's sequence number and effects' JSON (any order).
pub(super) fn fold_base_from(
    checkpoint: Option<(u64, String)>,
    mut effects: Vec<(i64, Option<String>)>,
) -> Result<FoldBase, StoreError> {
    effects.sort_unstable_by_key(|(s, _)| *s);
    let effects = effects
        .into_iter()
        .map(|(_, t)| {
            let t = t.unwrap_or_else(|| "null".into());
            serde_json::from_str::<Value>(&t).map_err(|e| StoreError::Corrupt(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let checkpoint = match checkpoint {
        Some((seq, text)) => Some((
            seq,
            serde_json::from_str(&text).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        )),
        None => None,
    };
    Ok(FoldBase {
        checkpoint,
        effects,
    })
}

/// The live entries' sequence numbers, in order, from every entry's sequence number and what it
/// voids (any order): the entries that are neither voids nor voided.
pub(super) fn live_seqs(rows: Vec<(i64, Option<i64>)>) -> Vec<u64> {
    let voided: std::collections::HashSet<i64> = rows.iter().filter_map(|(_, v)| *v).collect();
    let mut live: Vec<u64> = rows
        .into_iter()
        .filter(|(s, v)| v.is_none() && !voided.contains(s))
        .map(|(s, _)| s as u64)
        .collect();
    live.sort_unstable();
    live
}

/// Log entries from their stored rows (sequence number and text, any order), in order.
pub(super) fn entries_from(
    mut rows: Vec<(i64, String)>,
) -> Result<Vec<LogEntry<GameEvent>>, StoreError> {
    rows.sort_unstable_by_key(|(s, _)| *s);
    rows.into_iter()
        .map(|(_, t)| {
            serde_json::from_str::<LogEntry<GameEvent>>(&t)
                .map_err(|e| StoreError::Corrupt(e.to_string()))
        })
        .collect()
}

/// One log entry as stored: its sequence number, text, the event it voids, its chain hash.
pub(super) struct EntryRow {
    pub seq: i64,
    pub text: String,
    pub voids: Option<i64>,
    pub hash: String,
}

/// What a whole game writes: its entries after `from_seq` with their chain hashes, the chain
/// after the last, and its checkpoints.
pub(super) struct GameRows {
    pub entries: Vec<EntryRow>,
    pub chain: String,
    pub checkpoints: Vec<(i64, String)>,
    pub turn: i64,
    pub over: bool,
    pub seq: i64,
    pub stream_pos: i64,
}

pub(super) fn game_rows(id: &str, game: &Game, from_seq: u64) -> Result<GameRows, StoreError> {
    let seal = seal_of(id, game);
    let mut h = seal.start();
    let mut entries = Vec::new();
    for e in game.log.entries() {
        let text = entry_text(e);
        h = seal.next(&h, &text);
        if e.seq() <= from_seq {
            continue;
        }
        entries.push(EntryRow {
            seq: as_sql(e.seq()),
            text,
            voids: match e {
                LogEntry::Void { voids, .. } => Some(as_sql(*voids)),
                LogEntry::Event { .. } => None,
            },
            hash: h.clone(),
        });
    }
    let checkpoints = game
        .checkpoints()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?
        .into_iter()
        .map(|(seq, state)| Ok((as_sql(seq), json_text(&state)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(GameRows {
        entries,
        chain: h,
        checkpoints,
        turn: as_sql(turn_of(&game.state)),
        over: game
            .is_over()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        seq: game.log.entries().len() as i64,
        stream_pos: as_sql(game.stream_pos()),
    })
}

/// The roles of a new game's seats, in order: the game master, each side, the spectator.
pub(super) fn seat_roles(game: &Game) -> Vec<Role> {
    let mut roles = vec![Role::GameMaster];
    roles.extend(game.scenario.sides.iter().map(|s| Role::Side(s.id.clone())));
    roles.push(Role::Spectator);
    roles
}

/// Commit what is queued if no one else is: the caller has just queued its write in `queue`,
/// and leads if it can take `leader` (the writer's connection, or a token for it): it commits
/// every queued write as one group, again while more arrives, and after letting `leader` go
/// looks at the queue once more (a write queued while it led, by a caller that found it
/// leading, would otherwise wait for no one). A caller that finds another leading returns at
/// once, to wait for its own answer alone.
pub(super) fn lead_groups<L, J>(
    queue: &Mutex<Vec<J>>,
    leader: &Mutex<L>,
    mut commit: impl FnMut(&mut L, Vec<J>),
) {
    loop {
        let mut l = match leader.try_lock() {
            Ok(l) => l,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            // The leader looks at the queue after it lets go.
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        loop {
            let jobs = std::mem::take(&mut *lock(queue));
            if jobs.is_empty() {
                break;
            }
            commit(&mut l, jobs);
        }
        drop(l);
        if lock(queue).is_empty() {
            return;
        }
    }
}

/// The writes handed to a store's committer thread ([`Store::append_then`]), which shares the
/// queue with the callers that lead their own group commits ([`lead_groups`]).
pub(super) struct Handoff<J> {
    pub(super) queue: Mutex<Vec<J>>,
    /// Wakes the committer: a write was handed over, or the store is closing.
    wake: Condvar,
    /// The committer waits on `wake`: written and read under `queue`'s lock only, so a write
    /// handed over while the committer commits costs no wake (std's `notify_one` is a system
    /// call whether or not anyone waits).
    asleep: std::sync::atomic::AtomicBool,
    closing: std::sync::atomic::AtomicBool,
}

impl<J> Handoff<J> {
    pub(super) fn new() -> Self {
        Handoff {
            queue: Mutex::new(Vec::new()),
            wake: Condvar::new(),
            asleep: std::sync::atomic::AtomicBool::new(false),
            closing: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Queue `job` for the committer thread, and wake it if it waits. A committer at work
    /// looks at the queue again before it waits, under the same lock.
    pub(super) fn hand(&self, job: J) {
        use std::sync::atomic::Ordering;
        let mut queue = lock(&self.queue);
        queue.push(job);
        let asleep = self.asleep.load(Ordering::Relaxed);
        drop(queue);
        if asleep {
            self.wake.notify_one();
        }
    }

    /// The committer thread's loop: wait for a write handed over, take the leader's token
    /// (waiting for a caller that leads, which may commit the write first), commit what is
    /// queued, until the store closes with nothing queued.
    pub(super) fn commit_handed<L>(
        &self,
        leader: &Mutex<L>,
        mut commit: impl FnMut(&mut L, Vec<J>),
    ) {
        use std::sync::atomic::Ordering;
        loop {
            let mut queue = lock(&self.queue);
            while queue.is_empty() && !self.closing.load(Ordering::Acquire) {
                self.asleep.store(true, Ordering::Relaxed);
                queue = self.wake.wait(queue).unwrap_or_else(|e| e.into_inner());
                self.asleep.store(false, Ordering::Relaxed);
            }
            if queue.is_empty() {
                return;
            }
            drop(queue);
            let mut l = lock(leader);
            loop {
                let jobs = std::mem::take(&mut *lock(&self.queue));
                if jobs.is_empty() {
                    break;
                }
                commit(&mut l, jobs);
            }
        }
    }

    /// Have the committer thread commit what is queued and stop; wait for it.
    pub(super) fn close(&self, committer: Option<std::thread::JoinHandle<()>>) {
        let Some(t) = committer else {
            return;
        };
        self.closing
            .store(true, std::sync::atomic::Ordering::Release);
        // Under the queue's lock, so the committer is either waiting or will see the flag.
        drop(lock(&self.queue));
        self.wake.notify_all();
        let _ = t.join();
    }
}

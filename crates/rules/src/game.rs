//! A game on file: the scenario, the seed, the append-only event log, and the state that is the
//! fold of the log's live events. Works for any rule set through the [`Engine`] trait.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::{DiceStream, Die, Draw, EventLog, LogEntry, Resolution, Signed};

use crate::diag::{line_col, Diagnostic};
use crate::interface::{Engine, Kept, Rejection, RuleSet};
use crate::registry;
use crate::scenario::{Scenario, ScenarioFile, Source};
pub use crate::seal::{chain_next, chain_start, ChainVersion, Identity, Seal, CHAIN_VERSION};

pub const FORMAT: &str = "tercio-game/1";

/// One recorded event: the action as given, its explanation, the faces drawn, the effects, and
/// where the dice stream stood after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameEvent {
    pub action: Value,
    pub resolution: Resolution,
    pub draws: Vec<Draw>,
    pub effects: Value,
    /// 32-bit words of the ChaCha stream consumed after this event.
    pub stream_pos: u64,
    /// The faces were thrown on real dice at the table and typed in; the seed's stream did not
    /// move for this event.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entered: bool,
    /// Which seat recorded it (`game-master`, `side:ID`), when it came through the app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

impl Signed for GameEvent {
    fn sign(&mut self, by: &str) {
        self.by = Some(by.to_string());
    }
}

/// A game: serialised as a game file (`*.game.json`), read back with [`Game::from_json`], which
/// checks its scenario; not `Deserialize` itself, so no game is read without that.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Game {
    pub format: String,
    pub ruleset: String,
    pub seed: u64,
    /// Random salt of the seed commitment, so the published SHA-256 cannot be inverted by trying
    /// every seed. Revealed with the seed.
    #[serde(default)]
    pub nonce: String,
    pub scenario: Scenario,
    /// The version of the rule set's outcomes the game was played under
    /// ([`RuleSet::rules_version`]); 1 for a game recorded before versions were.
    #[serde(default = "first_rules")]
    pub rules_version: u32,
    pub log: EventLog<GameEvent>,
    /// The fold of the live events (kept for readers; `replay` checks it).
    pub state: Value,
    /// The store's id of the game, bound into a version-2 commitment; empty for a game file made
    /// on the command line.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub game_id: String,
    /// How the commitment and the log's fingerprint are formed ([`Seal`]); a game keeps the
    /// version it was made with.
    #[serde(default, skip_serializing_if = "ChainVersion::is_v1")]
    pub chain_version: ChainVersion,
}

/// The rules version of a game recorded before versions were.
pub fn first_rules() -> u32 {
    1
}

#[derive(Debug)]
pub enum GameError {
    Rules(String),
    Rejected(Rejection),
    Corrupt(String),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Rules(s) | GameError::Corrupt(s) => f.write_str(s),
            GameError::Rejected(r) => write!(f, "rejected: {r}"),
        }
    }
}

/// A game file as written, its scenario not yet checked.
#[derive(Deserialize)]
struct GameFile {
    format: String,
    ruleset: String,
    seed: u64,
    #[serde(default)]
    nonce: String,
    scenario: ScenarioFile,
    #[serde(default = "first_rules")]
    rules_version: u32,
    log: EventLog<GameEvent>,
    state: Value,
    #[serde(default)]
    game_id: String,
    #[serde(default)]
    chain_version: ChainVersion,
}

impl Game {
    /// Read a game file's JSON text (`file` names it in errors). The game was recorded with its
    /// scenario, so the scenario is accepted as recorded ([`Scenario::recorded`]): a check it
    /// fails (one added since, say) is in `game.scenario.warnings()` for the caller to show, and
    /// the game still loads, replays and verifies. Malformed JSON or a log out of order is an
    /// error at its line and column.
    pub fn from_json(file: &str, text: &str) -> Result<Game, Diagnostic> {
        let g: GameFile = serde_json::from_str(text).map_err(|e| {
            let msg = e.to_string();
            // serde_json appends " at line L column C"; the diagnostic says it first.
            let msg = msg
                .rfind(" at line ")
                .map_or(msg.as_str(), |i| &msg[..i])
                .to_string();
            let field = if msg.starts_with("entries[") {
                format!("log.{}", msg.split(':').next().unwrap_or_default())
            } else if let Some(rest) = msg.strip_prefix("missing field `") {
                rest.split('`').next().unwrap_or_default().to_string()
            } else {
                String::new()
            };
            Diagnostic {
                file: file.to_string(),
                line: e.line(),
                column: e.column(),
                field,
                value: None,
                message: format!("not a Tercio game file: {msg}"),
            }
        })?;
        let at = Source {
            file,
            text,
            path: "scenario",
        };
        if g.format != FORMAT {
            let (line, column) = line_col(text, crate::diag::json_offset(text, "format"));
            return Err(Diagnostic {
                file: file.to_string(),
                line,
                column,
                field: "format".into(),
                value: Some(crate::diag::clip_value(&format!("\"{}\"", g.format))),
                message: format!("allowed: \"{FORMAT}\""),
            });
        }
        Ok(Game {
            format: g.format,
            ruleset: g.ruleset,
            seed: g.seed,
            nonce: g.nonce,
            scenario: Scenario::recorded(g.scenario, &at),
            rules_version: g.rules_version,
            log: g.log,
            state: g.state,
            game_id: g.game_id,
            chain_version: g.chain_version,
        })
    }

    pub fn new(scenario: Scenario, seed: u64) -> Result<Game, GameError> {
        let rules = rules_of(&scenario.ruleset)?;
        let engine = engine_of(rules, &scenario)?;
        let state = engine.initial_state().map_err(GameError::Rules)?;
        Ok(Game {
            format: FORMAT.to_string(),
            ruleset: rules.id().to_string(),
            seed,
            nonce: String::new(),
            scenario,
            rules_version: rules.rules_version(),
            log: EventLog::new(),
            state,
            game_id: String::new(),
            chain_version: CHAIN_VERSION,
        })
    }

    pub fn engine(&self) -> Result<Box<dyn Engine>, GameError> {
        engine_of(rules_of(&self.ruleset)?, &self.scenario)
    }

    /// Whether the rules say the battle is over.
    pub fn is_over(&self) -> Result<bool, GameError> {
        Ok(self.engine()?.is_over(&self.state))
    }

    /// Where the dice stream stands: after the last event ever rolled, voided or not.
    pub fn stream_pos(&self) -> u64 {
        self.log
            .iter()
            .rev()
            .find_map(|e| match e {
                LogEntry::Event { event, .. } => Some(event.stream_pos),
                LogEntry::Void { .. } => None,
            })
            .unwrap_or(0)
    }

    /// Resolve an action against the current state, record it and fold it in. A rejected action
    /// changes nothing.
    pub fn act(&mut self, action: Value) -> Result<&GameEvent, GameError> {
        self.act_signed(action, None, None)
    }

    /// Resolve an action with faces thrown on real dice, checked against the dice the resolution
    /// declares. The seed's stream does not move. A rejected action or bad faces change nothing.
    pub fn act_entered(&mut self, action: Value, faces: &[u8]) -> Result<&GameEvent, GameError> {
        self.act_signed(action, Some(faces), None)
    }

    /// [`Game::act`] or, with `faces`, [`Game::act_entered`], the event signed by the seat that
    /// recorded it (`game-master`, `side:ID`) as it is appended.
    pub fn act_signed(
        &mut self,
        action: Value,
        faces: Option<&[u8]>,
        by: Option<&str>,
    ) -> Result<&GameEvent, GameError> {
        let engine = self.engine()?;
        let event = resolve(
            engine.as_ref(),
            &self.state,
            self.seed,
            self.stream_pos(),
            action,
            faces,
        )?;
        self.record(engine.as_ref(), event, by)
    }

    /// The dice still to throw for `action` after `faces` (physical dice): `None` when complete.
    pub fn needed(&self, action: &Value, faces: &[u8]) -> Result<Option<Vec<Die>>, GameError> {
        needed(self.engine()?.as_ref(), &self.state, action, faces)
    }

    fn record(
        &mut self,
        engine: &dyn Engine,
        event: GameEvent,
        by: Option<&str>,
    ) -> Result<&GameEvent, GameError> {
        let mut state = self.state.clone();
        engine
            .apply(&mut state, &event.effects)
            .map_err(GameError::Corrupt)?;
        self.state = state;
        self.log.append(event, by);
        match self.log.last() {
            Some(LogEntry::Event { event, .. }) => Ok(event),
            _ => Err(GameError::Corrupt("event not recorded".into())),
        }
    }

    /// What identifies the game, as its commitment binds it (version 2).
    pub fn identity(&self) -> Identity<'_> {
        Identity {
            game_id: &self.game_id,
            ruleset: &self.ruleset,
            rules_version: self.rules_version,
            scenario: &self.scenario,
        }
    }

    /// The game's seal: its commitment and the means to extend its log's chain.
    pub fn seal(&self) -> Seal {
        Seal::new(self.chain_version, self.seed, &self.nonce, self.identity())
    }

    /// The published commitment to this game's dice ([`Seal::commitment`]).
    pub fn commitment(&self) -> String {
        self.seal().commitment().to_string()
    }

    /// A fingerprint of the whole log, shown on every page: the head of the log's hash chain
    /// ([`Seal::next`] over every entry in order). A player who notes it can tell that an export
    /// is the whole game, unaltered; the server keeps the head with the game, so no page
    /// rehashes the log.
    pub fn log_digest(&self) -> String {
        let seal = self.seal();
        self.log
            .iter()
            .fold(seal.start(), |h, e| seal.next(&h, &entry_text(e)))
    }

    /// The chain's value after each entry, in order (`tercio verify --fingerprint` finds the one a
    /// player noted among them).
    pub fn log_links(&self) -> Vec<String> {
        let texts: Vec<String> = self.log.iter().map(entry_text).collect();
        self.seal().links(texts.iter().map(String::as_str))
    }

    /// Void the last live event. The voided event stays in the log; the dice do not rewind.
    pub fn undo(&mut self) -> Result<Option<u64>, GameError> {
        let voided = self.log.void_last("undo", |_| true);
        self.state = self.refold()?;
        Ok(voided)
    }

    /// The state as the fold of the live events over the scenario's initial state.
    pub fn refold(&self) -> Result<Value, GameError> {
        let engine = self.engine()?;
        let mut state = engine.initial_state().map_err(GameError::Rules)?;
        for (_, e) in self.log.live() {
            engine
                .apply(&mut state, &e.effects)
                .map_err(GameError::Corrupt)?;
        }
        Ok(state)
    }

    /// Re-run every action of the log from the seed, voided ones included (they drew dice too), and
    /// check each reproduces its recorded faces, explanation and effects, and that the stored
    /// state is the fold of the live events. Returns the number of events checked.
    pub fn replay(&self) -> Result<usize, String> {
        self.verify().map(|v| v.len())
    }

    /// [`Game::replay`], event by event: what was checked for each. Faces from the seed must be
    /// the stream's next faces; faces entered at the table must fit the dice the resolution
    /// declares, and give the recorded outcome.
    ///
    /// A game played under an older version of its rules ([`Game::rules_version`]) is held to
    /// the seed and the log, not to today's rules: its faces must still be the seed's next ones,
    /// each die drawn as recorded, and its state the fold of its recorded effects; an event that
    /// today's rules would refuse, roll differently or resolve differently is listed in its
    /// [`Checked::changed`] ("rules changed since"), not failed. A card drawn in such an event
    /// depends on the deck as the old rules kept it, so it is taken as recorded.
    pub fn verify(&self) -> Result<Vec<Checked>, String> {
        let older = rules_of(&self.ruleset)
            .map(|r| self.rules_version < r.rules_version())
            .unwrap_or(false);
        let mut checked = Vec::new();
        self.walk(|seq, event, _state, plan, pos| {
            let today = plan.map_err(|r| format!("event {seq}: the action is now rejected: {r}"));
            let replayed = today.and_then(|plan| {
                if event.entered {
                    let (o, d) = plan
                        .roll_with(&faces(&event.draws))
                        .map_err(|e| format!("event {seq}: entered faces do not fit: {e}"))?;
                    Ok((o, d, pos))
                } else {
                    let mut stream = DiceStream::at(self.seed, u128::from(pos));
                    let (o, d) = plan.roll(&mut stream);
                    Ok((o, d, u64::try_from(stream.word_pos()).unwrap_or(u64::MAX)))
                }
            });
            let same = |(outcome, draws, next): &(crate::interface::Outcome, Vec<Draw>, u64)| {
                if *draws != event.draws {
                    return Err(format!(
                        "event {seq}: dice differ: recorded {:?}, replayed {:?}",
                        faces(&event.draws),
                        faces(draws)
                    ));
                }
                if outcome.effects != event.effects || outcome.resolution != event.resolution {
                    return Err(format!(
                        "event {seq}: the same dice give a different outcome"
                    ));
                }
                if *next != event.stream_pos {
                    return Err(format!("event {seq}: stream position differs"));
                }
                Ok(())
            };
            let changed = match replayed.and_then(|r| same(&r).map(|()| r)) {
                Ok(_) => None,
                Err(e) if older => {
                    if !event.entered {
                        seeded_as_recorded(self.seed, pos, seq, event)?;
                    }
                    Some(e)
                }
                Err(e) => return Err(e),
            };
            checked.push(Checked {
                seq,
                action: event.resolution.action.clone(),
                faces: faces(&event.draws),
                entered: event.entered,
                voided: self.log.is_voided(seq),
                changed,
            });
            Ok(if event.entered { pos } else { event.stream_pos })
        })?;
        Ok(checked)
    }

    /// Walk the log in order, voided events included, giving each event with the state it was
    /// resolved against, its plan under today's rules (or why they refuse it), and the stream
    /// position before it; `visit` returns the position after it. Ends by checking the stored
    /// state is the fold of the live events' recorded effects.
    pub fn walk(
        &self,
        mut visit: impl FnMut(
            u64,
            &GameEvent,
            &Value,
            Result<tercio_core::Plan<crate::interface::Outcome>, Rejection>,
            u64,
        ) -> Result<u64, String>,
    ) -> Result<(), String> {
        let engine = self.engine().map_err(|e| e.to_string())?;
        let initial = engine.initial_state()?;
        let mut pos: u64 = 0;
        let mut applied: Vec<(u64, &Value)> = Vec::new();
        let mut voided = std::collections::BTreeSet::new();
        let mut state = initial.clone();
        // The state after every `WALK_SNAPSHOT`th event applied (its index in `applied`), so
        // that a void folds again from the nearest one before the event it voids rather than
        // from the start: a long game with many undos replayed in linear time, not quadratic.
        let mut snapshots: Vec<(usize, Value)> = Vec::new();
        for entry in &self.log {
            match entry {
                LogEntry::Event { seq, event } => {
                    let plan = engine.plan(Some(&state), &event.action);
                    pos = visit(*seq, event, &state, plan, pos)?;
                    engine.apply(&mut state, &event.effects)?;
                    applied.push((*seq, &event.effects));
                    if applied.len().is_multiple_of(WALK_SNAPSHOT) {
                        snapshots.push((applied.len() - 1, state.clone()));
                    }
                }
                LogEntry::Void { voids, .. } => {
                    voided.insert(*voids);
                    // Snapshots that folded the voided event in no longer hold.
                    let at = applied
                        .iter()
                        .position(|(s, _)| s == voids)
                        .unwrap_or(applied.len());
                    snapshots.retain(|(i, _)| *i < at);
                    let (from, base) = match snapshots.last() {
                        Some((i, st)) => (i + 1, st.clone()),
                        None => (0, initial.clone()),
                    };
                    state = base;
                    for (s, eff) in &applied[from..] {
                        if !voided.contains(s) {
                            engine.apply(&mut state, eff)?;
                        }
                    }
                }
            }
        }
        if state != self.state {
            return Err("the stored state is not the fold of the log".to_string());
        }
        Ok(())
    }
}

/// An event's recorded dice checked against the seed alone, die by die as recorded (for a game
/// played under older rules, whose plan today's rules no longer give): each face the stream's
/// next for a die of its sides, and the stream where the event says it ended. Cards depend on
/// the deck as the old rules kept it: an event that drew one is taken at its recorded position.
fn seeded_as_recorded(seed: u64, pos: u64, seq: u64, event: &GameEvent) -> Result<(), String> {
    if event.draws.iter().any(|d| d.card) {
        return Ok(());
    }
    let mut stream = DiceStream::at(seed, u128::from(pos));
    for (i, d) in event.draws.iter().enumerate() {
        let face = stream.face(d.sides);
        if face != d.face {
            return Err(format!(
                "event {seq}: die {} ({}) is {}, not the seed's {face}",
                i + 1,
                d.label,
                d.face
            ));
        }
    }
    if u64::try_from(stream.word_pos()).unwrap_or(u64::MAX) != event.stream_pos {
        return Err(format!("event {seq}: stream position differs"));
    }
    Ok(())
}

/// One event as [`Game::verify`] checked it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    pub seq: u64,
    pub action: String,
    pub faces: Vec<u8>,
    /// Thrown on real dice and typed in, not drawn from the seed.
    pub entered: bool,
    pub voided: bool,
    /// For a game played under older rules: how today's rules differ on this event ("rules
    /// changed since"); `None` when they agree.
    pub changed: Option<String>,
}

/// The version-1 commitment: SHA-256 over the seed and nonce, hex (what every seat saw at the
/// start of a game made before version 2; [`Seal`]).
pub fn commitment(seed: u64, nonce: &str) -> String {
    crate::seal::commitment_v1(seed, nonce)
}

fn bad_faces(e: tercio_core::plan::FaceError) -> GameError {
    GameError::Rejected(Rejection::new("bad-faces", Some("faces"), e.to_string()))
}

fn faces(d: &[Draw]) -> Vec<u8> {
    d.iter().map(|x| x.face).collect()
}

fn rules_of(id: &str) -> Result<&'static dyn RuleSet, GameError> {
    let r = registry::lookup(id).map_err(|e| GameError::Rules(e.to_string()))?;
    if !r.available() {
        return Err(GameError::Rules(registry::not_available(r)));
    }
    Ok(r)
}

/// A game's engine: bound to its scenario with every text a person wrote as message text
/// ([`Scenario::as_message_text`]), so that no name is ever read as a marker.
fn engine_of(rules: &dyn RuleSet, scenario: &Scenario) -> Result<Box<dyn Engine>, GameError> {
    rules
        .engine(Some(&scenario.as_message_text()))
        .map_err(GameError::Rules)
}

/// Resolve `action` against `state`: its plan rolled from the seed's stream at `stream_pos`, or
/// (`faces`) with faces thrown on real dice, checked against the dice the plan declares. Nothing
/// is recorded; a rejected action or bad faces change nothing. The one path by which a full
/// [`Game`] and a live [`Head`] resolve actions.
pub fn resolve(
    engine: &dyn Engine,
    state: &Value,
    seed: u64,
    stream_pos: u64,
    action: Value,
    faces: Option<&[u8]>,
) -> Result<GameEvent, GameError> {
    resolve_kept(engine, None, state, seed, stream_pos, action, faces)
}

/// [`resolve`], planned from the rule set's reading of `state` that `kept` holds for the
/// position given with it, when it holds that one ([`Kept`]).
fn resolve_kept(
    engine: &dyn Engine,
    kept: Option<(&Kept, u64)>,
    state: &Value,
    seed: u64,
    stream_pos: u64,
    action: Value,
    faces: Option<&[u8]>,
) -> Result<GameEvent, GameError> {
    let faces = match faces {
        Some(f) if engine.seeded_only(state, &action) => {
            if !f.is_empty() {
                return Err(GameError::Rejected(Rejection::new(
                    "seeded-only",
                    Some("faces"),
                    tercio_i18n::msg(tercio_i18n::keys::INPUT_SEEDED_ONLY, &[]),
                )));
            }
            None
        }
        other => other,
    };
    let plan = match kept {
        Some((kept, at)) => engine.plan_kept(kept, at, state, &action),
        None => engine.plan(Some(state), &action),
    }
    .map_err(GameError::Rejected)?;
    let (outcome, draws, pos, entered) = match faces {
        None => {
            let mut stream = DiceStream::at(seed, u128::from(stream_pos));
            let (o, d) = plan.roll(&mut stream);
            let pos = u64::try_from(stream.word_pos()).unwrap_or(u64::MAX);
            (o, d, pos, false)
        }
        Some(f) => {
            let (o, d) = plan.roll_with(f).map_err(bad_faces)?;
            (o, d, stream_pos, true)
        }
    };
    Ok(GameEvent {
        action,
        resolution: outcome.resolution,
        draws,
        effects: outcome.effects,
        stream_pos: pos,
        entered,
        by: None,
    })
}

/// The dice still to throw for `action` against `state` after `faces` (physical dice): `None`
/// when complete, or when the action's dice always come from the seed (cards, random picks).
pub fn needed(
    engine: &dyn Engine,
    state: &Value,
    action: &Value,
    faces: &[u8],
) -> Result<Option<Vec<Die>>, GameError> {
    let plan = engine
        .plan(Some(state), action)
        .map_err(GameError::Rejected)?;
    if engine.seeded_only(state, action) {
        return Ok(None);
    }
    plan.needed(faces).map_err(bad_faces)
}

/// A log entry as it is stored and hashed: its JSON text.
pub fn entry_text(e: &LogEntry<GameEvent>) -> String {
    serde_json::to_string(e).unwrap_or_default()
}

/// How often [`Game::walk`] keeps the state it has folded, to fold again from after a void.
const WALK_SNAPSHOT: usize = 32;

/// How often the store keeps the state beside the log: a checkpoint is written when this many
/// entries have passed since the latest one that still holds, so an undo folds fewer than this
/// many events, never the whole battle.
pub const CHECKPOINT_EVERY: u64 = 32;

/// A game without its log's bodies: what a live game needs to take its next action. The
/// scenario, the seed, the current state, how many entries the log has, where the dice stream
/// stands, the head of the hash chain, and which events are live (for undo and for marking
/// voided entries). Built from a [`Game`] or from the store's row, never by reading the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    pub ruleset: String,
    pub seed: u64,
    pub nonce: String,
    /// The game's commitment and chain ([`Game::seal`]), worked out once when the head is made.
    pub seal: Seal,
    pub scenario: Scenario,
    /// The rules version the game is played under ([`Game::rules_version`]).
    pub rules_version: u32,
    pub state: Value,
    /// The number of log entries (the last entry's sequence number).
    pub seq: u64,
    pub stream_pos: u64,
    /// The hash chain's value after the last entry ([`Game::log_digest`]).
    pub chain: String,
    /// The live events' sequence numbers, ascending. An event not here is voided.
    pub live: Vec<u64>,
    /// The latest checkpoint the store holds (0: none; the scenario's initial state).
    pub checkpoint: u64,
    /// The rule set's reading of `state` after the entry that made it ([`Head::act`] keeps it
    /// for the next action); not part of the head's value.
    pub kept: Kept,
}

/// An entry a [`Head`] has just appended, with what the store keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    pub entry: LogEntry<GameEvent>,
    /// The entry's JSON, as stored and hashed.
    pub text: String,
    /// The chain after it.
    pub chain: String,
    /// For a void: checkpoints at or after this entry no longer hold.
    pub voids: Option<u64>,
    /// What the entry changed in the state, as [`crate::effects::diff`] paths and new values, when
    /// it was worked out ([`Head::act`] asked to, and every undo): what a seat that sees the
    /// whole state is told changed.
    pub changes: Option<Value>,
    /// For an event whose changes were worked out: the values they replaced, at the same paths
    /// ([`crate::effects::reverse`]), so that undoing it is [`Head::undo_restoring`] these, not a fold.
    pub restore: Option<Value>,
    /// The state after it should be kept as a checkpoint.
    pub checkpoint: bool,
    /// Whether the rules say the battle is over after it ([`Engine::is_over`]), for the games
    /// list.
    pub over: bool,
}

impl Head {
    /// The head of a whole game.
    pub fn of(game: &Game) -> Head {
        Head {
            ruleset: game.ruleset.clone(),
            seed: game.seed,
            nonce: game.nonce.clone(),
            seal: game.seal(),
            scenario: game.scenario.clone(),
            rules_version: game.rules_version,
            state: game.state.clone(),
            seq: game.log.len() as u64,
            stream_pos: game.stream_pos(),
            chain: game.log_digest(),
            live: game.log.live().map(|(s, _)| s).collect(),
            checkpoint: game
                .checkpoints()
                .ok()
                .and_then(|c| c.last().map(|(s, _)| *s))
                .unwrap_or(0),
            kept: Kept::default(),
        }
    }

    pub fn engine(&self) -> Result<Box<dyn Engine>, GameError> {
        engine_of(rules_of(&self.ruleset)?, &self.scenario)
    }

    pub fn commitment(&self) -> String {
        self.seal.commitment().to_string()
    }

    /// Whether the event at `seq` has been voided (false for a void entry or a later seq).
    pub fn is_voided(&self, seq: u64, is_event: bool) -> bool {
        is_event && seq <= self.seq && self.live.binary_search(&seq).is_err()
    }

    /// Resolve an action (rolled from the seed, or with `faces` thrown at the table), signed by
    /// `by`, and fold it in, saying (`changes`) what it changed and what that replaced, for
    /// [`Appended::changes`] and [`Appended::restore`] ([`Engine::fold_changes`]). A rejected
    /// action changes nothing. Should the engine fail to fold its own effects (a bug, not bad input), the state
    /// may be half folded: the caller drops this head and reloads it from the store.
    pub fn act(
        &mut self,
        engine: &dyn Engine,
        action: Value,
        faces: Option<&[u8]>,
        by: Option<String>,
        changes: bool,
    ) -> Result<Appended, GameError> {
        let mut event = resolve_kept(
            engine,
            Some((&self.kept, self.seq)),
            &self.state,
            self.seed,
            self.stream_pos,
            action,
            faces,
        )?;
        event.by = by;
        let compared = if changes {
            Some(
                engine
                    .fold_changes_kept(&mut self.kept, self.seq, &mut self.state, &event.effects)
                    .map_err(GameError::Corrupt)?,
            )
        } else {
            self.kept.clear();
            engine
                .apply(&mut self.state, &event.effects)
                .map_err(GameError::Corrupt)?;
            None
        };
        self.stream_pos = event.stream_pos;
        let seq = self.seq + 1;
        self.live.push(seq);
        let mut a = self.push(LogEntry::Event { seq, event }, None);
        if let Some((changes, restore)) = compared {
            a.changes = Some(changes);
            a.restore = Some(restore);
        }
        a.over = engine.is_over(&self.state);
        Ok(a)
    }

    /// The event an undo would void: the latest live one.
    pub fn undo_target(&self) -> Option<u64> {
        self.live.last().copied()
    }

    /// Void the latest live event, whose state before it is `checkpoint` (the nearest one before
    /// it, its sequence number and state; none: the scenario's initial state) with `effects`
    /// (the live events between that checkpoint and it) folded in.
    pub fn undo(
        &mut self,
        engine: &dyn Engine,
        checkpoint: Option<(u64, Value)>,
        effects: &[Value],
    ) -> Result<Option<Appended>, GameError> {
        let Some(&target) = self.live.last() else {
            return Ok(None);
        };
        let (base_seq, base) = match checkpoint {
            Some(cp) => cp,
            None => (0, engine.initial_state().map_err(GameError::Rules)?),
        };
        if self.checkpoint >= target {
            // The store drops the checkpoints the voided event is folded into.
            self.checkpoint = base_seq;
        }
        let mut state = base;
        for e in effects {
            engine.apply(&mut state, e).map_err(GameError::Corrupt)?;
        }
        let before = std::mem::replace(&mut self.state, state);
        let changes = crate::effects::diff(&before, &self.state);
        Ok(Some(self.void_latest(engine, changes)))
    }

    /// Whether the latest live event can be undone by putting back what it replaced
    /// ([`Head::undo_restoring`]): it is `target`, and no checkpoint holds its effects (the store
    /// drops those, and only a fold from an earlier one tells which then holds).
    pub fn can_restore(&self, target: u64) -> bool {
        self.live.last() == Some(&target) && self.checkpoint < target
    }

    /// Void the latest live event by putting back, in place, the values its effects replaced
    /// (`restore`: its [`Appended::restore`], when [`Head::can_restore`] holds): the state it was
    /// made from, with nothing read from the store and nothing folded. Any other change since
    /// the event was appended (another entry, a reload) makes `restore` stale: the caller keeps
    /// it only for the entry it came with.
    pub fn undo_restoring(
        &mut self,
        engine: &dyn Engine,
        restore: Value,
    ) -> Result<Option<Appended>, GameError> {
        let Some(&target) = self.live.last() else {
            return Ok(None);
        };
        if !self.can_restore(target) {
            return Err(GameError::Corrupt(format!(
                "event {target} is folded into a checkpoint: undo folds from an earlier one"
            )));
        }
        // The reading kept before the event is the state's again, if the event is the latest
        // entry (nothing has been appended since).
        let latest = self.seq == target;
        if let Err(e) = crate::effects::apply(&mut self.state, &restore) {
            self.kept.clear();
            return Err(GameError::Corrupt(e));
        }
        let a = self.void_latest(engine, restore);
        if latest {
            self.kept.undone(target, self.seq);
        } else {
            self.kept.clear();
        }
        Ok(Some(a))
    }

    /// Append the void of the latest live event, whose state the caller has put back.
    fn void_latest(&mut self, engine: &dyn Engine, changes: Value) -> Appended {
        let target = self.live.pop().expect("a live event to void");
        let seq = self.seq + 1;
        let mut a = self.push(
            LogEntry::Void {
                seq,
                voids: target,
                reason: "undo".into(),
            },
            Some(target),
        );
        a.changes = Some(changes);
        a.over = engine.is_over(&self.state);
        a
    }

    fn push(&mut self, entry: LogEntry<GameEvent>, voids: Option<u64>) -> Appended {
        let text = entry_text(&entry);
        self.chain = self.seal.next(&self.chain, &text);
        self.seq = entry.seq();
        let checkpoint = self.seq - self.checkpoint >= CHECKPOINT_EVERY;
        if checkpoint {
            self.checkpoint = self.seq;
        }
        Appended {
            entry,
            text,
            chain: self.chain.clone(),
            voids,
            checkpoint,
            changes: None,
            restore: None,
            over: false,
        }
    }
}

impl Game {
    /// The checkpoints a store keeps for this log, as a live [`Head`] makes them: the state
    /// after an entry [`CHECKPOINT_EVERY`] entries past the latest checkpoint that holds; a void
    /// drops those at or after the event it voids.
    pub fn checkpoints(&self) -> Result<Vec<(u64, Value)>, GameError> {
        // A new game has none, and its initial state is not worked out again to find so.
        if self.log.entries().is_empty() {
            return Ok(Vec::new());
        }
        let engine = self.engine()?;
        let initial = engine.initial_state().map_err(GameError::Rules)?;
        let mut state = initial.clone();
        let mut applied: Vec<(u64, &Value)> = Vec::new();
        let mut voided = std::collections::BTreeSet::new();
        let mut out: Vec<(u64, Value)> = Vec::new();
        let mut last = 0;
        for entry in &self.log {
            match entry {
                LogEntry::Event { seq, event } => {
                    engine
                        .apply(&mut state, &event.effects)
                        .map_err(GameError::Corrupt)?;
                    applied.push((*seq, &event.effects));
                }
                LogEntry::Void { voids, .. } => {
                    voided.insert(*voids);
                    out.retain(|(c, _)| c < voids);
                    last = out.last().map_or(0, |(c, _)| *c);
                    state = initial.clone();
                    for (s, eff) in &applied {
                        if !voided.contains(s) {
                            engine.apply(&mut state, eff).map_err(GameError::Corrupt)?;
                        }
                    }
                }
            }
            if entry.seq() - last >= CHECKPOINT_EVERY {
                out.push((entry.seq(), state.clone()));
                last = entry.seq();
            }
        }
        Ok(out)
    }
}

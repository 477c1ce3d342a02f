//! A game on file: the scenario, the seed, the append-only event log, and the state that is the
//! fold of the log's live events. Works for any rule set through the [`Engine`] trait.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tercio_core::{DiceStream, Die, Draw, EventLog, LogEntry, Resolution};

use crate::registry::{self, Engine, Rejection, RuleSet};
use crate::scenario::Scenario;

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Game {
    pub format: String,
    pub ruleset: String,
    pub seed: u64,
    /// Random salt of the seed commitment, so the published SHA-256 cannot be inverted by trying
    /// every seed. Revealed with the seed.
    #[serde(default)]
    pub nonce: String,
    pub scenario: Scenario,
    pub log: EventLog<GameEvent>,
    /// The fold of the live events (kept for readers; `replay` checks it).
    pub state: Value,
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

impl Game {
    pub fn new(scenario: Scenario, seed: u64) -> Result<Game, GameError> {
        let rules = rules_of(&scenario.ruleset)?;
        let engine = rules.engine(Some(&scenario)).map_err(GameError::Rules)?;
        let state = engine.initial_state().map_err(GameError::Rules)?;
        Ok(Game {
            format: FORMAT.to_string(),
            ruleset: rules.id().to_string(),
            seed,
            nonce: String::new(),
            scenario,
            log: EventLog::new(),
            state,
        })
    }

    pub fn engine(&self) -> Result<Box<dyn Engine>, GameError> {
        rules_of(&self.ruleset)?
            .engine(Some(&self.scenario))
            .map_err(GameError::Rules)
    }

    /// Where the dice stream stands: after the last event ever rolled, voided or not.
    pub fn stream_pos(&self) -> u64 {
        self.log
            .entries
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
        let engine = self.engine()?;
        let plan = engine
            .plan(Some(&self.state), &action)
            .map_err(GameError::Rejected)?;
        let mut stream = DiceStream::at(self.seed, u128::from(self.stream_pos()));
        let (outcome, draws) = plan.roll(&mut stream);
        let pos = u64::try_from(stream.word_pos()).unwrap_or(u64::MAX);
        self.record(engine.as_ref(), action, outcome, draws, pos, false)
    }

    /// Resolve an action with faces thrown on real dice, checked against the dice the resolution
    /// declares. The seed's stream does not move. A rejected action or bad faces change nothing.
    pub fn act_entered(&mut self, action: Value, faces: &[u8]) -> Result<&GameEvent, GameError> {
        let engine = self.engine()?;
        if engine.seeded_only(&self.state, &action) {
            if !faces.is_empty() {
                return Err(GameError::Rejected(Rejection::new(
                    "seeded-only",
                    Some("faces"),
                    "faces: this action draws cards or picks at random: its dice always come from the game's seed, none are thrown at the table",
                )));
            }
            return self.act(action);
        }
        let plan = engine
            .plan(Some(&self.state), &action)
            .map_err(GameError::Rejected)?;
        let (outcome, draws) = plan.roll_with(faces).map_err(bad_faces)?;
        let pos = self.stream_pos();
        self.record(engine.as_ref(), action, outcome, draws, pos, true)
    }

    /// The dice still to throw for `action` after `faces` (physical dice): `None` when complete.
    pub fn needed(&self, action: &Value, faces: &[u8]) -> Result<Option<Vec<Die>>, GameError> {
        let engine = self.engine()?;
        let plan = engine
            .plan(Some(&self.state), action)
            .map_err(GameError::Rejected)?;
        if engine.seeded_only(&self.state, action) {
            // Rolled from the seed: nothing to throw at the table.
            return Ok(None);
        }
        plan.needed(faces).map_err(bad_faces)
    }

    fn record(
        &mut self,
        engine: &dyn Engine,
        action: Value,
        outcome: crate::registry::Outcome,
        draws: Vec<Draw>,
        stream_pos: u64,
        entered: bool,
    ) -> Result<&GameEvent, GameError> {
        let mut state = self.state.clone();
        engine
            .apply(&mut state, &outcome.effects)
            .map_err(GameError::Corrupt)?;
        let event = GameEvent {
            action,
            resolution: outcome.resolution,
            draws,
            effects: outcome.effects,
            stream_pos,
            entered,
            by: None,
        };
        self.state = state;
        self.log.append(event);
        match self.log.entries.last() {
            Some(LogEntry::Event { event, .. }) => Ok(event),
            _ => Err(GameError::Corrupt("event not recorded".into())),
        }
    }

    /// The published commitment to this game's dice: SHA-256 of the seed and the nonce.
    pub fn commitment(&self) -> String {
        commitment(self.seed, &self.nonce)
    }

    /// Note which seat recorded the last event.
    pub fn sign_last(&mut self, by: &str) {
        if let Some(LogEntry::Event { event, .. }) = self.log.entries.last_mut() {
            event.by = Some(by.to_string());
        }
    }

    /// A fingerprint of the whole log (SHA-256 over every entry in order), shown on every page:
    /// a player who notes it at the end can tell that an export is the whole game, unaltered.
    pub fn log_digest(&self) -> String {
        let mut h = Sha256::new();
        for e in &self.log.entries {
            h.update(serde_json::to_vec(e).unwrap_or_default());
            h.update(b"\n");
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
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
    pub fn verify(&self) -> Result<Vec<Checked>, String> {
        let mut checked = Vec::new();
        self.walk(|seq, event, _state, plan, pos| {
            let (outcome, draws, next) = if event.entered {
                let faces = faces(&event.draws);
                let (o, d) = plan
                    .roll_with(&faces)
                    .map_err(|e| format!("event {seq}: entered faces do not fit: {e}"))?;
                (o, d, pos)
            } else {
                let mut stream = DiceStream::at(self.seed, u128::from(pos));
                let (o, d) = plan.roll(&mut stream);
                (o, d, u64::try_from(stream.word_pos()).unwrap_or(u64::MAX))
            };
            if draws != event.draws {
                return Err(format!(
                    "event {seq}: dice differ: recorded {:?}, replayed {:?}",
                    faces(&event.draws),
                    faces(&draws)
                ));
            }
            if outcome.effects != event.effects || outcome.resolution != event.resolution {
                return Err(format!(
                    "event {seq}: the same dice give a different outcome"
                ));
            }
            if next != event.stream_pos {
                return Err(format!("event {seq}: stream position differs"));
            }
            checked.push(Checked {
                seq,
                action: event.resolution.action.clone(),
                faces: faces(&draws),
                entered: event.entered,
                voided: self.log.is_voided(seq),
            });
            Ok(next)
        })?;
        Ok(checked)
    }

    /// Walk the log in order, voided events included, giving each event with the state it was
    /// resolved against, its plan, and the stream position before it; `visit` returns the
    /// position after it. Ends by checking the stored state is the fold of the live events.
    pub fn walk(
        &self,
        mut visit: impl FnMut(
            u64,
            &GameEvent,
            &Value,
            tercio_core::Plan<crate::registry::Outcome>,
            u64,
        ) -> Result<u64, String>,
    ) -> Result<(), String> {
        let engine = self.engine().map_err(|e| e.to_string())?;
        let initial = engine.initial_state()?;
        let mut pos: u64 = 0;
        let mut applied: Vec<(u64, Value)> = Vec::new();
        let mut voided = std::collections::BTreeSet::new();
        let mut state = initial.clone();
        for entry in &self.log.entries {
            match entry {
                LogEntry::Event { seq, event } => {
                    let plan = engine
                        .plan(Some(&state), &event.action)
                        .map_err(|r| format!("event {seq}: the action is now rejected: {r}"))?;
                    pos = visit(*seq, event, &state, plan, pos)?;
                    engine.apply(&mut state, &event.effects)?;
                    applied.push((*seq, event.effects.clone()));
                }
                LogEntry::Void { voids, .. } => {
                    voided.insert(*voids);
                    state = initial.clone();
                    for (s, eff) in &applied {
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

/// One event as [`Game::verify`] checked it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    pub seq: u64,
    pub action: String,
    pub faces: Vec<u8>,
    /// Thrown on real dice and typed in, not drawn from the seed.
    pub entered: bool,
    pub voided: bool,
}

/// SHA-256 over the seed and nonce, hex: what every seat sees at the start of a game.
pub fn commitment(seed: u64, nonce: &str) -> String {
    let digest = Sha256::digest(format!("tercio-seed-commitment/1\n{seed}\n{nonce}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
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

//! A game on file: the scenario, the seed, the append-only event log, and the state that is the
//! fold of the log's live events. Works for any rule set through the [`Engine`] trait.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::{DiceStream, Draw, EventLog, LogEntry, Resolution};

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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Game {
    pub format: String,
    pub ruleset: String,
    pub seed: u64,
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
        let mut state = self.state.clone();
        engine
            .apply(&mut state, &outcome.effects)
            .map_err(GameError::Corrupt)?;
        let event = GameEvent {
            action,
            resolution: outcome.resolution,
            draws,
            effects: outcome.effects,
            stream_pos: u64::try_from(stream.word_pos()).unwrap_or(u64::MAX),
        };
        self.state = state;
        self.log.append(event);
        match self.log.entries.last() {
            Some(LogEntry::Event { event, .. }) => Ok(event),
            _ => Err(GameError::Corrupt("event not recorded".into())),
        }
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
        let engine = self.engine().map_err(|e| e.to_string())?;
        let initial = engine.initial_state()?;
        let mut pos: u64 = 0;
        let mut applied: Vec<(u64, Value)> = Vec::new();
        let mut voided = std::collections::BTreeSet::new();
        let mut state = initial.clone();
        let mut checked = 0;
        for entry in &self.log.entries {
            match entry {
                LogEntry::Event { seq, event } => {
                    let plan = engine
                        .plan(Some(&state), &event.action)
                        .map_err(|r| format!("event {seq}: the action is now rejected: {r}"))?;
                    let mut stream = DiceStream::at(self.seed, u128::from(pos));
                    let (outcome, draws) = plan.roll(&mut stream);
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
                    pos = u64::try_from(stream.word_pos()).unwrap_or(u64::MAX);
                    if pos != event.stream_pos {
                        return Err(format!("event {seq}: stream position differs"));
                    }
                    engine.apply(&mut state, &event.effects)?;
                    applied.push((*seq, event.effects.clone()));
                    checked += 1;
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
        Ok(checked)
    }
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

//! The Sword and the Flame, Renaissance adaptation (seed `001_165c2c49ebcfd77c.txt`).
//! Design and citations: `docs/rules/sword-and-flame-renaissance.md`.
//!
//! `tables`: the charts, each entry with its citation. `resolve`: the text's dice resolutions as
//! stand-alone plans with exact odds (fire with casualty cards, the morale tests, bouts and whole
//! close combats with breaking off, movement, the spirit of the army, a rout). `game`: the turn
//! as a fold of absolute effects (the activation deck, moves with brigades and Quicker Movement,
//! fires, fire morale, charges with evasion and reiters' volleys, field officers, the optional
//! rules, the end of the turn). `engine`: the `RuleSet` and `Engine` binding (scenarios, the
//! board and forms the app draws, the reference tables).

pub mod engine;
pub mod game;
pub mod resolve;
pub mod tables;

pub use engine::RULESET;

use serde_json::Value;
use tercio_core::Plan;

use crate::interface::{input, Outcome, Rejection};

/// Read a stand-alone action, naming the field at fault.
pub fn parse(action: &Value) -> Result<resolve::Request, Rejection> {
    input::read_action(action)
}

/// The plan of a stand-alone action with the morale thresholds of the text's design.
pub fn plan(action: &Value) -> Result<Plan<Outcome>, Rejection> {
    plan_with(action, &resolve::Thresholds::default())
}

/// The plan of a stand-alone action with a scenario's morale thresholds.
pub fn plan_with(action: &Value, th: &resolve::Thresholds) -> Result<Plan<Outcome>, Rejection> {
    resolve::plan(&parse(action)?, th)
}

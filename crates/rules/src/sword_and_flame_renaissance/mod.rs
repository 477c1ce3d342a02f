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
//!
//! Every text a person reads is a language-neutral message ([`msg`]): a catalogue key
//! (`sword_and_flame.*`, `crates/i18n/locales/*/sword_and_flame.toml`) with its arguments,
//! rendered in Italian or English where it is shown, so the event log reads in each viewer's
//! language. Names from the scenario (units, sides, officers) are plain-text arguments. The
//! citations of the seed (`001, FIRE, …`) stay as written: they point into the English text.

pub mod balance;
pub mod engine;
pub mod game;
pub mod play;
pub mod resolve;
pub mod tables;

pub use engine::RULESET;

/// A message: the catalogue key `sword_and_flame.<id>` with named arguments (an argument
/// starting with `@` is itself a key, rendered in the viewer's language: see [`term`]).
pub fn msg(id: &str, args: &[(&str, String)]) -> String {
    let a: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
    tercio_i18n::msg(&format!("sword_and_flame.{id}"), &a)
}

/// A message without arguments.
pub fn k(id: &str) -> String {
    msg(id, &[])
}

/// An argument naming a catalogue text (`@sword_and_flame.<id>`).
pub fn term(id: &str) -> String {
    format!("@sword_and_flame.{id}")
}

/// A facet's (or a step total's) name: `sword_and_flame.facet.<id>`.
pub fn facet(id: &str) -> String {
    k(&format!("facet.{id}"))
}

/// A facet's value "yes" or "no".
pub fn yes_no(b: bool) -> String {
    k(if b { "yes" } else { "no" })
}

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

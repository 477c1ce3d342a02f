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

use serde::de::DeserializeOwned;
use serde_json::Value;
use tercio_core::Plan;

use crate::interface::{Outcome, Rejection};

/// Read a stand-alone action, naming the field at fault.
pub fn parse(action: &Value) -> Result<resolve::Request, Rejection> {
    parse_as(action)
}

/// Read an action of any shape, naming the field at fault.
pub fn parse_as<T: DeserializeOwned>(action: &Value) -> Result<T, Rejection> {
    serde_path_to_error::deserialize(action).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().to_string();
        let mut r = Rejection::new("bad-action", None, message.clone());
        r.field = (path != ".")
            .then_some(path)
            .or_else(|| named_by_value(action, &message));
        r
    })
}

/// Inside a tagged action serde names no path: the field is the one an unknown or missing field
/// message quotes, or the one holding the value an unknown variant message quotes (`musket`), at
/// the top level or one level down.
fn named_by_value(action: &Value, message: &str) -> Option<String> {
    let quoted = message.split('`').nth(1)?;
    let obj = action.as_object()?;
    // The places to look: the action's own fields, then those of its fighters (`a`, `b`).
    let mut places: Vec<(String, &serde_json::Map<String, Value>)> = vec![(String::new(), obj)];
    for (k, v) in obj {
        if let Some(inner) = v.as_object() {
            places.push((format!("{k}."), inner));
        }
    }
    let field_message =
        message.starts_with("unknown field") || message.starts_with("missing field");
    for (prefix, map) in &places {
        let hit = if field_message {
            // An unknown field is where it was written; a missing one is named where the
            // message's expected list belongs (the top level unless a fighter lacks it).
            map.contains_key(quoted).then(|| quoted.to_string())
        } else {
            map.iter()
                .find(|(_, v)| {
                    v.as_str() == Some(quoted)
                        || (v.is_number() && v.to_string().as_str() == quoted)
                })
                .map(|(k, _)| k.clone())
        };
        if let Some(k) = hit {
            return Some(format!("{prefix}{k}"));
        }
    }
    field_message.then(|| quoted.to_string())
}

/// The plan of a stand-alone action with the morale thresholds of the text's design.
pub fn plan(action: &Value) -> Result<Plan<Outcome>, Rejection> {
    plan_with(action, &resolve::Thresholds::default())
}

/// The plan of a stand-alone action with a scenario's morale thresholds.
pub fn plan_with(action: &Value, th: &resolve::Thresholds) -> Result<Plan<Outcome>, Rejection> {
    resolve::plan(&parse(action)?, th)
}

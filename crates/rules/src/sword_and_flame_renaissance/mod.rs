//! The Sword and the Flame, Renaissance adaptation (seed `001_165c2c49ebcfd77c.txt`).
//! Design and citations: `docs/rules/sword-and-flame-renaissance.md`.
//!
//! Built so far: the charts (`tables`) and every dice resolution of the text as a plan with exact
//! odds (`resolve`). The game flow (the activation deck, the turn's ten steps, reload markers,
//! the spirit roll at the end of each turn) and the app's pages come next; until then the rule
//! set stays listed as not yet available.

pub mod resolve;
pub mod tables;

use serde_json::Value;
use tercio_core::Plan;

use crate::registry::{Outcome, Rejection};

/// Read a stand-alone action, naming the field at fault.
pub fn parse(action: &Value) -> Result<resolve::Request, Rejection> {
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
    if message.starts_with("unknown field") || message.starts_with("missing field") {
        return Some(quoted.to_string());
    }
    let obj = action.as_object()?;
    for (k, v) in obj {
        if v.as_str() == Some(quoted) {
            return Some(k.clone());
        }
        if let Some(inner) = v.as_object() {
            if let Some((ik, _)) = inner.iter().find(|(_, iv)| iv.as_str() == Some(quoted)) {
                return Some(format!("{k}.{ik}"));
            }
        }
    }
    None
}

/// The plan of a stand-alone action with the morale thresholds of the text's design.
pub fn plan(action: &Value) -> Result<Plan<Outcome>, Rejection> {
    resolve::plan(&parse(action)?, &resolve::Thresholds::default())
}

#![allow(dead_code)]
use std::path::PathBuf;

use serde_json::Value;
use tercio_core::Plan;
use tercio_rules::odds::{odds, OddsReport};
use tercio_rules::{lookup, Outcome, Rejection};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn plan(rules: &str, action: &Value) -> Result<Plan<Outcome>, Rejection> {
    let r = lookup(rules).expect("rule set");
    let e = r.engine(None).expect("engine");
    e.plan(None, action)
}

pub fn report(rules: &str, action: &Value) -> OddsReport {
    odds(&plan(rules, action).unwrap_or_else(|r| panic!("rejected: {r}")))
}

pub fn example(rules: &str, name: &str) -> Value {
    let p = root()
        .join("examples")
        .join(rules)
        .join(format!("{name}.json"));
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).expect("json")
}

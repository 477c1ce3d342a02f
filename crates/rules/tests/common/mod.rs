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

pub const RULE_SETS: [&str; 5] = [
    "bloody-dismal-fight",
    "el-gran-capitan",
    "sword-and-flame-renaissance",
    "callan-renaissance",
    "commands-colors-ecw",
];

pub fn read_json_file(p: &std::path::Path) -> Value {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The example game's scenario and seed, and its numbered steps in order.
pub fn example_game(rules: &str) -> (tercio_rules::game::Game, Vec<Value>) {
    let want = read_json_file(&root().join("examples").join(rules).join("game.expect.json"));
    let scenario = want["scenario"].as_str().expect("scenario");
    let src = std::fs::read_to_string(root().join(scenario)).expect("scenario file");
    let sc = tercio_rules::scenario::parse(scenario, &src).expect("valid scenario");
    let game =
        tercio_rules::game::Game::new(sc, want["seed"].as_u64().expect("seed")).expect("game");
    let dir = root().join("examples").join(rules).join("game");
    let mut steps: Vec<_> = std::fs::read_dir(&dir)
        .expect("game dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(|c: char| c.is_ascii_digit()) && n.ends_with(".json")
            })
        })
        .collect();
    steps.sort();
    (game, steps.iter().map(|p| read_json_file(p)).collect())
}

/// The values a form's choice field offers (empty when the form has no such choice).
pub fn choices(f: &tercio_rules::ActionForm, name: &str) -> Vec<String> {
    match f.fields.iter().find(|x| x.name == name).map(|x| &x.kind) {
        Some(tercio_rules::FieldKind::Choice { options, .. }) => {
            options.iter().map(|o| o.value.clone()).collect()
        }
        _ => Vec::new(),
    }
}

/// A text as an English reader sees it (messages rendered; plain text as it is).
pub fn en(text: &str) -> String {
    tercio_i18n::localize(tercio_i18n::Lang::En, text)
}

//! The rules fuzzer (`tercio_rules::fuzz`, `tercio fuzz`) in short: a few random games of every
//! shipped scenario of every rule set, each step checked (no panic, no dead end, no refusal of
//! what a form offers, undo, replay, views, odds), and the cases it has found played again from
//! their fixtures (`tests/fixtures/fuzz/*.json`, each the shortest list of moves that failed
//! before its fix, as `tercio fuzz --save` writes them). The long run (ten thousand games and
//! more) is `tercio fuzz` in release; `docs/fuzz.md` has its figures.

use std::path::PathBuf;

use serde_json::Value;
use tercio_rules::fuzz::{self, Check, Move};
use tercio_rules::interface::simulate::battle_seed;
use tercio_rules::scenario::Scenario;
use tercio_rules::{registry, scenario};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(id: &str) -> Scenario {
    let path = root().join("scenarios").join(format!("{id}.toml"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{id}: {e}"));
    scenario::parse(&path.display().to_string(), &src).unwrap_or_else(|d| panic!("{d:?}"))
}

/// Every shipped scenario's id (`<ruleset>/<file stem>`), of the rule sets that play themselves.
fn shipped() -> Vec<String> {
    let mut ids = Vec::new();
    for r in registry::all().iter().filter(|r| r.simulator().is_some()) {
        let dir = root().join("scenarios").join(r.id());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|f| f.extension().is_some_and(|e| e == "toml"));
        files.sort();
        for f in files {
            let stem = f.file_stem().map(|s| s.to_string_lossy().to_string());
            ids.push(format!("{}/{}", r.id(), stem.unwrap_or_default()));
        }
    }
    ids
}

/// A few games of each scenario, to a few turns each (the long run plays them to the
/// simulator's limit): every check holds. A failure is shrunk and printed as a fixture.
#[test]
fn a_few_games_of_every_shipped_scenario_break_nothing() {
    let ids = shipped();
    assert_eq!(ids.len(), 12, "{ids:?}");
    let mut failures = Vec::new();
    let mut games = 0;
    for id in &ids {
        let sc = load(id);
        // Commands & Colors' turn is one side's card: three times as many.
        let turns = if id.starts_with("commands-colors-ecw/") {
            6
        } else {
            2
        };
        for i in 0..2 {
            let seed = battle_seed(17, i);
            let p = fuzz::play(&sc, seed, turns);
            games += 1;
            assert!(p.steps > 0, "{id} seed {seed}: nothing was played");
            if let Some(f) = &p.failure {
                let mut all = p.moves.clone();
                all.extend(p.failing.clone());
                let moves = fuzz::shrink(&sc, seed, turns, &all, f.check, 60);
                failures.push(format!(
                    "{id} seed {seed}: {} at step {}, turn {}: {}\n{}",
                    f.check.name(),
                    f.step,
                    f.turn,
                    f.message,
                    serde_json::json!({
                        "scenario": id, "seed": seed, "turn_limit": turns,
                        "check": f.check.name(), "moves": moves,
                    })
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {games} games failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Each case the fuzzer found, played again: it no longer fails. Each fixture failed its check
/// (`check`, with the `message` it gave) before the fix its file names (`fixed`).
#[test]
fn every_case_the_fuzzer_found_is_fixed() {
    let dir = root().join("crates/rules/tests/fixtures/fuzz");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.extension().is_some_and(|e| e == "json"));
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a fixture");
        let case: Value = serde_json::from_str(&text).expect("JSON");
        let at = file.display().to_string();
        let id = case["scenario"].as_str().expect("scenario");
        let seed = case["seed"].as_u64().expect("seed");
        let turns = case["turn_limit"].as_u64().expect("turn_limit") as u32;
        let check: Check = serde_json::from_value(case["check"].clone()).expect("check");
        assert!(case["fixed"].is_string(), "{at}: say what fixed it");
        let moves: Vec<Move> = serde_json::from_value(case["moves"].clone()).expect("moves");
        let p = fuzz::replay(&load(id), seed, turns, &moves);
        if let Some(f) = &p.failure {
            panic!(
                "{at}: fails again ({} at step {}: {}; it failed {} before)",
                f.check.name(),
                f.step,
                f.message,
                check.name()
            );
        }
        // The moves are still played (the case still reaches the state that failed).
        assert!(
            p.moves.len() + 2 >= moves.len(),
            "{at}: only {} of its {} moves were made",
            p.moves.len(),
            moves.len()
        );
    }
}

/// A game played again from its moves ([`fuzz::replay`], as the shrinking and the fixtures do)
/// is the same game: the same moves made, the same actions and undos.
#[test]
fn a_game_played_again_from_its_moves_is_the_same_game() {
    let sc = load("el-gran-capitan/cerignola-1503");
    let seed = battle_seed(17, 0);
    let p = fuzz::play(&sc, seed, 2);
    assert!(p.failure.is_none(), "{:?}", p.failure);
    let again = fuzz::replay(&sc, seed, 2, &p.moves);
    assert!(again.failure.is_none(), "{:?}", again.failure);
    assert_eq!(again.moves, p.moves, "the same moves made");
    assert_eq!((again.actions, again.undos), (p.actions, p.undos));
}

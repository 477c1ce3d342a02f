//! `tercio fuzz`: random games of scenarios through every seat's forms, the rules' invariants
//! checked after every step ([`tercio_rules::fuzz`]); each failure with its seed and the
//! shortest list of moves found that still fails, and a χ² test of each action kind's outcomes
//! against their exact odds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tercio_rules::fuzz::{self, chi_square_tests, Played, Summary, Tally};
use tercio_rules::interface::simulate::battle_seed;
use tercio_rules::scenario::Scenario;

use crate::{fail, fresh_seed, print_json, read_scenario, Res};

/// The false-alarm rate of the whole run's χ² tests together.
pub const ALPHA: f64 = 0.001;

/// `tercio fuzz`'s arguments.
pub struct Args<'a> {
    pub scenarios: &'a [PathBuf],
    pub games: u32,
    pub seed: Option<u64>,
    pub turns: Option<u32>,
    pub threads: Option<usize>,
    pub shrink: u32,
    pub save: Option<&'a Path>,
    pub json: bool,
}

/// A scenario to play: its name as given, the scenario, and its turn limit.
struct Target {
    name: String,
    scenario: Scenario,
    turns: u32,
}

pub fn run(a: &Args) -> Res {
    use rayon::prelude::*;
    if a.games == 0 {
        return Err(fail("--games: 0: give at least 1"));
    }
    let names: Vec<PathBuf> = if a.scenarios.is_empty() {
        tercio_web::scenarios::SHIPPED
            .iter()
            .map(|s| PathBuf::from(s.id))
            .collect()
    } else {
        a.scenarios.to_vec()
    };
    let mut targets = Vec::new();
    for n in &names {
        let sc = read_scenario(n)?;
        let r = crate::rules(&sc.ruleset)?;
        let limit = r.simulator().map_or(20, |s| s.turn_limit());
        targets.push(Target {
            name: n.display().to_string(),
            scenario: sc,
            turns: a.turns.unwrap_or(limit),
        });
    }
    // The folder the failures go to, made before the games (a run of hours must not end
    // without its report for want of it: found so, a whole scenario's run lost).
    if let Some(dir) = a.save {
        std::fs::create_dir_all(dir)
            .map_err(|e| fail(format!("--save: {}: cannot make it: {e}", dir.display())))?;
    }
    let seed = a.seed.unwrap_or_else(fresh_seed);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| fail(format!("--threads: {e}")))?;
    let jobs: Vec<(usize, u32)> = (0..targets.len())
        .flat_map(|t| (0..a.games).map(move |i| (t, i)))
        .collect();
    let bar = indicatif::ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games, {per_sec}, about {eta} left",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let played: Vec<(usize, u32, Played)> = pool.install(|| {
        jobs.par_iter()
            .map(|&(t, i)| {
                let tg = &targets[t];
                let mut p = fuzz::play(&tg.scenario, battle_seed(seed, u64::from(i)), tg.turns);
                if let Some(text) = p.file.take() {
                    if let Err(e) = verify_file(&text, t, i) {
                        p.failure = Some(fuzz::Failure {
                            check: fuzz::Check::Export,
                            step: p.steps,
                            turn: p.turns,
                            message: e,
                        });
                        p.ending = fuzz::Ending::Failed;
                    }
                }
                bar.inc(1);
                (t, i, p)
            })
            .collect()
    });
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    let mut sums: Vec<Summary> = vec![Summary::default(); targets.len()];
    let mut tally = Tally::default();
    for (t, _, p) in &played {
        sums[*t].add(p);
        tally.add(&p.tally);
    }
    // Each failure, shrunk; one per scenario and check (the others are listed by seed).
    let mut failures = Vec::new();
    let mut unsaved: Vec<String> = Vec::new();
    let mut shrunk_for: BTreeMap<(usize, &'static str), ()> = BTreeMap::new();
    for (t, i, p) in &played {
        let Some(f) = &p.failure else { continue };
        let tg = &targets[*t];
        let mut all = p.moves.clone();
        all.extend(p.failing.clone());
        let first = shrunk_for.insert((*t, f.check.name()), ()).is_none();
        let moves = if first && a.shrink > 0 {
            fuzz::shrink(&tg.scenario, p.seed, tg.turns, &all, f.check, a.shrink)
        } else {
            all.clone()
        };
        let case = json!({
            "scenario": tg.name,
            "seed": p.seed,
            "game": i,
            "turn_limit": tg.turns,
            "check": f.check.name(),
            "step": f.step,
            "turn": f.turn,
            "message": f.message,
            "moves_played": all.len(),
            "moves": moves,
        });
        if let (Some(dir), true) = (a.save, first) {
            let file = dir.join(format!(
                "{}-{}-{}.json",
                tg.name.replace(['/', '.'], "-"),
                f.check.name(),
                p.seed
            ));
            let text = serde_json::to_string_pretty(&case).unwrap_or_default() + "\n";
            // Said after the report, which is not lost for it.
            if let Err(e) = std::fs::write(&file, text) {
                unsaved.push(format!("{}: cannot write: {e}", file.display()));
            }
        }
        failures.push(case);
    }
    // Games stopped at the step limit: the first of each scenario, with what was offered.
    let mut stuck = Vec::new();
    for (t, i, p) in &played {
        if let Some(what) = &p.stuck {
            if !stuck.iter().any(|(x, _, _, _)| x == t) {
                stuck.push((*t, *i, p.seed, what.clone()));
            }
        }
    }
    let tests = chi_square_tests(&tally, ALPHA);
    let total_games: u64 = sums.iter().map(|s| s.games).sum();
    let total_steps: u64 = sums.iter().map(|s| s.steps).sum();
    let failed_tests = tests.iter().filter(|t| !t.passed).count();
    if a.json {
        let per: Vec<Value> = targets
            .iter()
            .zip(&sums)
            .map(|(t, s)| json!({"scenario": t.name, "turn_limit": t.turns, "summary": s}))
            .collect();
        print_json(&json!({
            "seed": seed,
            "games": total_games,
            "steps": total_steps,
            "seconds": secs,
            "scenarios": per,
            "failures": failures,
            "chi_square": tests,
            "alpha": ALPHA,
        }));
    } else {
        say_text(&targets, &sums, &failures, &tests, seed, secs);
        for (t, i, game_seed, what) in &stuck {
            println!(
                "\nSTEP LIMIT {} game {i} (seed {game_seed}): offered at the end: {}",
                targets[*t].name,
                crate::loc(what)
            );
        }
    }
    for e in &unsaved {
        eprintln!("{e}");
    }
    if !failures.is_empty() || failed_tests > 0 {
        return Err(fail(format!(
            "{} of {total_games} games failed a check; {failed_tests} of {} χ² tests failed",
            failures.len(),
            tests.len()
        )));
    }
    Ok(())
}

/// `tercio verify` of a game that ended by the rules, run as a user runs it (this binary, in a
/// process of its own, on the game's file): `Err` with what it said when it does not accept it.
fn verify_file(text: &str, scenario: usize, game: u32) -> Result<(), String> {
    // This very binary, even when its file was replaced while the run went on (a long run
    // outlives a rebuild: `current_exe` then names a file deleted or of another build).
    let own = std::path::Path::new("/proc/self/exe");
    let exe = if own.exists() {
        own.to_path_buf()
    } else {
        std::env::current_exe().map_err(|e| format!("tercio verify: {e}"))?
    };
    let file = std::env::temp_dir().join(format!(
        "tercio-fuzz-{}-{scenario}-{game}.game.json",
        std::process::id()
    ));
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    let out = std::process::Command::new(exe)
        .arg("verify")
        .arg(&file)
        .env("TERCIO_LANG", "en")
        .output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("tercio verify: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "tercio verify does not accept the game file: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn say_text(
    targets: &[Target],
    sums: &[Summary],
    failures: &[Value],
    tests: &[fuzz::ChiTest],
    seed: u64,
    secs: f64,
) {
    println!("Seed {seed}");
    for (t, s) in targets.iter().zip(sums) {
        let endings: Vec<String> = s
            .endings
            .iter()
            .map(|(k, n)| format!("{k} {}", thousands(*n)))
            .collect();
        println!(
            "{}: {} games, {} steps ({} actions, {} undos; {} with dice typed at the table, {} questions answered, {} fillings refused); ended: {}",
            t.name,
            thousands(s.games),
            thousands(s.steps),
            thousands(s.actions),
            thousands(s.undos),
            thousands(s.table_dice),
            thousands(s.questions),
            thousands(s.refusals),
            endings.join(", ")
        );
        let kinds: Vec<String> = s
            .kinds
            .iter()
            .map(|(k, n)| format!("{k} {}", thousands(*n)))
            .collect();
        println!("  actions: {}", kinds.join(", "));
        for (k, n) in &s.failures {
            println!("  FAILED {k}: {n} games");
        }
    }
    for f in failures {
        println!(
            "\nFAIL {} game {} (seed {}): {} at step {}, turn {}: {}",
            f["scenario"].as_str().unwrap_or(""),
            f["game"],
            f["seed"],
            f["check"].as_str().unwrap_or(""),
            f["step"],
            f["turn"],
            crate::loc(f["message"].as_str().unwrap_or(""))
        );
        let moves = f["moves"].as_array().map_or(0, Vec::len);
        println!(
            "  shortest failing moves found ({moves} of {}):",
            f["moves_played"]
        );
        println!(
            "  {}",
            serde_json::to_string(&f["moves"]).unwrap_or_default()
        );
    }
    println!("\nOutcomes against their exact odds (χ², cells expected under 5 pooled; each test at {:.2e}, {ALPHA} over all {}):", ALPHA / tests.len().max(1) as f64, tests.len());
    for t in tests {
        println!(
            "  {:<24} {:>8} rolls {:>4} cells  χ² {:>10.2}  p {:.4}  {}",
            t.kind,
            thousands(t.rolls),
            t.cells,
            t.statistic,
            t.p,
            if t.passed { "ok" } else { "FAILED" }
        );
    }
    let games: u64 = sums.iter().map(|s| s.games).sum();
    let steps: u64 = sums.iter().map(|s| s.steps).sum();
    println!(
        "\n{} games, {} steps in {secs:.1} s",
        thousands(games),
        thousands(steps)
    );
}

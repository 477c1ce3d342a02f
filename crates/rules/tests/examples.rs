//! Data-driven tests over examples/: every example file of the five rule sets is checked against
//! the expected figures beside it (`X.expect.json` for `X.json`; `game.expect.json` for the
//! played game in `game/`). The format is in examples/README.md.
//!
//! `TERCIO_BLESS=1 cargo test -p tercio-rules --test examples` writes the expect files from what
//! the engines compute instead of comparing (keeping their hand-written `docs` figures and a
//! game's `scenario` and `seed`); read the diff before committing it.

mod common;
use common::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tercio_core::{DiceStream, Plan};
use tercio_rules::odds::{odds, OddsReport};
use tercio_rules::Outcome;

const RULE_SETS: [&str; 5] = [
    "bloody-dismal-fight",
    "el-gran-capitan",
    "sword-and-flame-renaissance",
    "callan-renaissance",
    "commands-colors-ecw",
];

/// The seed of the one roll an expect file pins.
const SEED: u64 = 11;

/// Odds compared to this.
const EPS: f64 = 1e-9;

fn bless() -> bool {
    std::env::var_os("TERCIO_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

fn read_json(p: &Path) -> Value {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The stand-alone examples of a rule set (`examples/<rules>/*.json`, not the expect files), by
/// name, sorted.
fn files(rules: &str) -> Vec<(String, PathBuf)> {
    let dir = root().join("examples").join(rules);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let stem = name.strip_suffix(".json")?;
            (!stem.ends_with(".expect")).then(|| (stem.to_string(), p.clone()))
        })
        .collect();
    out.sort();
    out
}

/// The expect files of a rule set's folder, by the name of what they describe.
fn expect_files(rules: &str) -> Vec<String> {
    let dir = root().join("examples").join(rules);
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .expect("examples dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_string();
            n.strip_suffix(".expect.json").map(str::to_string)
        })
        .collect();
    out.sort();
    out
}

fn expect_path(rules: &str, name: &str) -> PathBuf {
    root()
        .join("examples")
        .join(rules)
        .join(format!("{name}.expect.json"))
}

/// A number as JSON writes it: the shortest text that reads back to the same f64.
fn num(p: f64) -> String {
    json!(p).to_string()
}

fn text(s: &str) -> String {
    json!(s).to_string()
}

/// A flat object on one line, in the given order.
fn line(pairs: &[(String, String)]) -> String {
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}: {v}", text(k)))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

/// A docs entry on one line, its figure first and its source last.
fn ordered(v: &Value) -> String {
    let Some(o) = v.as_object() else {
        return v.to_string();
    };
    let rank = |k: &str| {
        ["p", "facet", "value", "source"]
            .iter()
            .position(|x| *x == k)
    };
    let mut pairs: Vec<(&String, &Value)> = o.iter().collect();
    pairs.sort_by_key(|(k, _)| rank(k).unwrap_or(usize::MAX));
    let pairs: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    line(&pairs)
}

/// A hand-written part of an expect file, kept as it is when blessing, one entry a line.
fn keep(out: &mut Vec<String>, key: &str, old: &Value) {
    match &old[key] {
        Value::Null => {}
        Value::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| format!("    {}", ordered(i)))
                .collect();
            out.push(format!("  {}: [\n{}\n  ]", text(key), items.join(",\n")));
        }
        v => out.push(format!("  {}: {v}", text(key))),
    }
}

/// What an action gives: the rejection, or the odds and the roll from [`SEED`].
enum Figures {
    Rejected {
        code: String,
        field: Option<String>,
    },
    Resolved {
        report: OddsReport,
        dice: Vec<u8>,
        facets: Vec<(String, String)>,
    },
}

fn figures(rules: &str, name: &str, action: &Value, problems: &mut Vec<String>) -> Figures {
    let plan = match plan(rules, action) {
        Err(r) => {
            if r.message.is_empty() {
                problems.push(format!("{rules}/{name}: rejected without a message"));
            }
            return Figures::Rejected {
                code: r.code,
                field: r.field,
            };
        }
        Ok(p) => p,
    };
    let report = odds(&plan);
    if (report.total - 1.0).abs() > EPS {
        problems.push(format!("{rules}/{name}: odds sum to {}", report.total));
    }
    // The same seed rolls the same.
    let (o1, d1) = plan.clone().roll(&mut DiceStream::from_seed(SEED));
    let (o2, d2) = plan.clone().roll(&mut DiceStream::from_seed(SEED));
    if d1 != d2 || o1.resolution != o2.resolution || o1.facets != o2.facets {
        problems.push(format!(
            "{rules}/{name}: seed {SEED} rolls differently twice"
        ));
    }
    if o1.resolution.steps.is_empty() {
        problems.push(format!("{rules}/{name}: the resolution has no step"));
    }
    monte_carlo(rules, name, &plan, problems);
    Figures::Resolved {
        report,
        dice: d1.iter().map(|d| d.face).collect(),
        facets: o1.facets,
    }
}

/// Rolls from a fixed seed: every joint outcome within five standard deviations of its exact
/// probability, and none the exact odds call impossible.
fn monte_carlo(rules: &str, name: &str, plan: &Plan<Outcome>, problems: &mut Vec<String>) {
    let n = 6_000u32;
    let exact = plan.exact(|o| o.facets.clone());
    let mut seen: BTreeMap<Vec<(String, String)>, u32> = BTreeMap::new();
    let mut s = DiceStream::from_seed(2024);
    for _ in 0..n {
        let (o, _) = plan.clone().roll(&mut s);
        *seen.entry(o.facets).or_default() += 1;
    }
    for (k, pr) in &exact.outcomes {
        let f = f64::from(*seen.get(k).unwrap_or(&0)) / f64::from(n);
        let sigma = (pr * (1.0 - pr) / f64::from(n)).sqrt();
        if (f - pr).abs() > 5.0 * sigma + 1e-3 {
            problems.push(format!(
                "{rules}/{name}: {k:?} exact {pr:.4}, rolled {f:.4} of {n}"
            ));
        }
    }
    if let Some(k) = seen.keys().find(|k| !exact.outcomes.contains_key(*k)) {
        problems.push(format!(
            "{rules}/{name}: rolled {k:?}, which the odds say is impossible"
        ));
    }
}

/// The expect file's text for these figures, keeping `old`'s hand-written `docs`.
fn render(fig: &Figures, old: &Value) -> String {
    let mut out = Vec::new();
    match fig {
        Figures::Rejected { code, field } => {
            let mut r = vec![("code".to_string(), text(code))];
            if let Some(f) = field {
                r.push(("field".to_string(), text(f)));
            }
            out.push(format!("  \"rejected\": {}", line(&r)));
        }
        Figures::Resolved {
            report,
            dice,
            facets,
        } => {
            let rows: Vec<String> = report
                .facets
                .iter()
                .map(|f| {
                    let values: Vec<(String, String)> =
                        f.values.iter().map(|(v, p)| (v.clone(), num(*p))).collect();
                    format!("    {}: {}", text(&f.facet), line(&values))
                })
                .collect();
            out.push(format!("  \"odds\": {{\n{}\n  }}", rows.join(",\n")));
            out.push(format!("  \"outcomes\": {}", report.outcomes));
            let facets: Vec<(String, String)> =
                facets.iter().map(|(k, v)| (k.clone(), text(v))).collect();
            out.push(format!(
                "  \"seed {SEED}\": {{\n    \"dice\": {},\n    \"facets\": {}\n  }}",
                json!(dice),
                line(&facets)
            ));
        }
    }
    keep(&mut out, "docs", old);
    format!("{{\n{}\n}}\n", out.join(",\n"))
}

/// Compare computed figures with an expect file.
fn compare(at: &str, fig: &Figures, want: &Value, problems: &mut Vec<String>) {
    let mut bad = |m: String| problems.push(format!("{at}: {m}"));
    match fig {
        Figures::Rejected { code, field } => {
            let w = &want["rejected"];
            if w.is_null() {
                return bad(format!(
                    "rejected ({code}), but the expect file has no \"rejected\""
                ));
            }
            if w["code"] != json!(code) {
                bad(format!("rejected with {code}, expected {}", w["code"]));
            }
            if w["field"] != json!(field) {
                bad(format!(
                    "rejected on field {field:?}, expected {}",
                    w["field"]
                ));
            }
        }
        Figures::Resolved {
            report,
            dice,
            facets,
        } => {
            let Some(w) = want["odds"].as_object() else {
                return bad(format!(
                    "resolves, but the expect file has no \"odds\" (it says {})",
                    want["rejected"]
                ));
            };
            let got: BTreeMap<&str, &Vec<(String, f64)>> = report
                .facets
                .iter()
                .map(|f| (f.facet.as_str(), &f.values))
                .collect();
            for k in w.keys().filter(|k| !got.contains_key(k.as_str())) {
                bad(format!("no facet {k:?}"));
            }
            for (facet, values) in &got {
                let Some(wv) = w.get(*facet).and_then(Value::as_object) else {
                    bad(format!("facet {facet:?} not expected"));
                    continue;
                };
                for k in wv.keys().filter(|k| !values.iter().any(|(v, _)| v == *k)) {
                    bad(format!("{facet}: no value {k:?}"));
                }
                for (v, p) in values.iter() {
                    match wv.get(v).and_then(Value::as_f64) {
                        None => bad(format!("{facet}: value {v:?} ({p}) not expected")),
                        Some(e) if (e - p).abs() > EPS => {
                            bad(format!("{facet} = {v}: {p}, expected {e}"))
                        }
                        Some(_) => {}
                    }
                }
            }
            if want["outcomes"] != json!(report.outcomes) {
                bad(format!(
                    "{} distinct outcomes, expected {}",
                    report.outcomes, want["outcomes"]
                ));
            }
            let roll = &want[format!("seed {SEED}").as_str()];
            if roll["dice"] != json!(dice) {
                bad(format!(
                    "seed {SEED} throws {dice:?}, expected {}",
                    roll["dice"]
                ));
            }
            let f: Map<String, Value> = facets.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            if roll["facets"] != Value::Object(f.clone()) {
                bad(format!(
                    "seed {SEED} gives {}, expected {}",
                    Value::Object(f),
                    roll["facets"]
                ));
            }
            docs(at, report, want, problems);
        }
    }
}

/// A figure as the design documents write it: a fraction `a/b` (compared to 1e-9) or a
/// percentage `x.yz%` (compared to its rounding).
fn figure(s: &str) -> Option<(f64, f64)> {
    if let Some(pc) = s.strip_suffix('%') {
        let x: f64 = pc.parse().ok()?;
        let decimals = pc.split('.').nth(1).map_or(0, str::len);
        let half = 0.5 * 10f64.powi(-i32::try_from(decimals).ok()?) / 100.0;
        return Some((x / 100.0, half + EPS));
    }
    let (a, b) = s.split_once('/')?;
    Some((
        a.trim().parse::<f64>().ok()? / b.trim().parse::<f64>().ok()?,
        EPS,
    ))
}

/// The figures an expect file quotes from the design documents: each found, as written, in the
/// document it names, and equal to the engine's odds (a list of values is their sum).
fn docs(at: &str, report: &OddsReport, want: &Value, problems: &mut Vec<String>) {
    for d in want["docs"].as_array().into_iter().flatten() {
        let mut bad = |m: String| problems.push(format!("{at}: docs {d}: {m}"));
        let (Some(p), Some(source), Some(facet)) =
            (d["p"].as_str(), d["source"].as_str(), d["facet"].as_str())
        else {
            bad("needs \"p\", \"source\" and \"facet\"".into());
            continue;
        };
        let Some((want_p, tol)) = figure(p) else {
            bad(format!("{p:?} is neither a/b nor x%"));
            continue;
        };
        let file = source.split_whitespace().next().unwrap_or_default();
        // "18.75%" may stand in a row as "… / 18.75%" or "31.25 / …": the number is enough.
        let written = p.trim_end_matches('%');
        match std::fs::read_to_string(root().join(file)) {
            Ok(doc) if doc.contains(written) => {}
            Ok(_) => bad(format!("{file} does not say {written}")),
            Err(e) => bad(format!("{file}: {e}")),
        }
        let values: Vec<&str> = match &d["value"] {
            Value::String(v) => vec![v.as_str()],
            Value::Array(vs) => vs.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if values.is_empty() {
            bad("needs a \"value\" or a list of them".into());
            continue;
        }
        let got: f64 = values.iter().map(|v| report.p(facet, v)).sum();
        if (got - want_p).abs() > tol {
            bad(format!("the engine gives {got}"));
        }
    }
}

/// Write the expect file when blessing; otherwise read it and compare.
fn check_or_bless(rules: &str, name: &str, fig: &Figures, problems: &mut Vec<String>) {
    let path = expect_path(rules, name);
    let at = format!("examples/{rules}/{name}.expect.json");
    if bless() {
        let old = if path.exists() {
            read_json(&path)
        } else {
            Value::Null
        };
        std::fs::write(&path, render(fig, &old)).unwrap_or_else(|e| panic!("{at}: {e}"));
        return;
    }
    if !path.exists() {
        problems.push(format!(
            "{at} is missing (TERCIO_BLESS=1 writes it; check it before committing)"
        ));
        return;
    }
    compare(&at, fig, &read_json(&path), problems);
}

#[test]
fn every_example_gives_the_figures_beside_it() {
    let mut problems = Vec::new();
    for rules in RULE_SETS {
        let all = files(rules);
        assert!(all.len() >= 3, "{rules}: too few examples");
        for (name, path) in &all {
            let action = read_json(path);
            let fig = figures(rules, name, &action, &mut problems);
            match (&fig, name.starts_with("rejected-")) {
                (Figures::Resolved { .. }, true) => {
                    problems.push(format!("{rules}/{name} should be rejected"));
                }
                (Figures::Rejected { code, .. }, false) => {
                    problems.push(format!("{rules}/{name} is rejected: {code}"));
                }
                _ => {}
            }
            check_or_bless(rules, name, &fig, &mut problems);
        }
        // An expect file describes an example or the game.
        for name in expect_files(rules) {
            if name != "game" && !all.iter().any(|(n, _)| *n == name) {
                problems.push(format!(
                    "examples/{rules}/{name}.expect.json has no {name}.json"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// A game's steps (`examples/<rules>/game/*.json`), by name, in order.
fn steps(rules: &str) -> Vec<(String, PathBuf)> {
    let dir = root().join("examples").join(rules).join("game");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("game dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter_map(|p| {
            let stem = p.file_name()?.to_str()?.strip_suffix(".json")?.to_string();
            Some((stem, p.clone()))
        })
        .collect();
    out.sort();
    out
}

/// What one step of a game gives: its dice and its summary in English, or its rejection's code.
fn step_line(ev: Result<&tercio_rules::game::GameEvent, tercio_rules::game::GameError>) -> String {
    match ev {
        Ok(ev) => {
            let dice: Vec<u8> = ev.draws.iter().map(|d| d.face).collect();
            let summary = tercio_i18n::localize(tercio_i18n::Lang::En, &ev.resolution.summary);
            line(&[
                ("dice".into(), json!(dice).to_string()),
                ("summary".into(), text(&summary)),
            ])
        }
        Err(tercio_rules::game::GameError::Rejected(r)) => {
            line(&[("rejected".into(), text(&r.code))])
        }
        Err(e) => line(&[("error".into(), text(&e.to_string()))]),
    }
}

/// The played game of each rule set, from the scenario and seed its expect file names: every
/// step gives the dice and summary (or the rejection) written there, and the game ends at the
/// turn and phase written there.
#[test]
fn every_example_game_plays_as_written_beside_it() {
    let mut problems = Vec::new();
    for rules in RULE_SETS {
        let path = expect_path(rules, "game");
        let at = format!("examples/{rules}/game.expect.json");
        let Ok(src) = std::fs::read_to_string(&path) else {
            problems.push(format!("{at} is missing"));
            continue;
        };
        let want: Value = serde_json::from_str(&src).unwrap_or_else(|e| panic!("{at}: {e}"));
        let (Some(scenario), Some(seed)) = (want["scenario"].as_str(), want["seed"].as_u64())
        else {
            problems.push(format!("{at}: needs \"scenario\" and \"seed\""));
            continue;
        };
        let sc_path = root().join(scenario);
        let sc = tercio_rules::scenario::parse(
            scenario,
            &std::fs::read_to_string(&sc_path).unwrap_or_else(|e| panic!("{scenario}: {e}")),
        )
        .unwrap_or_else(|d| panic!("{scenario}: {d:?}"));
        let mut g = tercio_rules::game::Game::new(sc, seed).expect("game");
        let steps = steps(rules);
        assert!(steps.len() >= 5, "{rules}: too few steps in game/");
        let mut got = Vec::new();
        for (name, p) in &steps {
            let r = g.act(read_json(p));
            let accepted = r.is_ok();
            let l = step_line(r);
            // The numbered steps are the game and must go through; others show a refusal.
            if name.starts_with(|c: char| c.is_ascii_digit()) && !accepted {
                problems.push(format!("{rules}/game/{name}: {l}"));
            }
            got.push((name.clone(), l));
        }
        let end = line(&[
            ("turn".into(), g.state["turn"].to_string()),
            ("phase".into(), g.state["phase"].to_string()),
            (
                "events".into(),
                g.replay()
                    .unwrap_or_else(|e| panic!("{rules}: {e}"))
                    .to_string(),
            ),
        ]);
        if bless() {
            let rows: Vec<String> = got
                .iter()
                .map(|(n, l)| format!("    {}: {l}", text(n)))
                .collect();
            let out = format!(
                "{{\n  \"scenario\": {},\n  \"seed\": {seed},\n  \"steps\": {{\n{}\n  }},\n  \"end\": {end}\n}}\n",
                text(scenario),
                rows.join(",\n")
            );
            std::fs::write(&path, out).unwrap_or_else(|e| panic!("{at}: {e}"));
            continue;
        }
        let names: Vec<&String> = got.iter().map(|(n, _)| n).collect();
        for k in want["steps"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            if !names.contains(&k) {
                problems.push(format!("{at}: no step {k}"));
            }
        }
        for (name, l) in &got {
            let l: Value = serde_json::from_str(l).expect("a line");
            if want["steps"][name.as_str()] != l {
                problems.push(format!(
                    "{at}: {name} gives {l}, expected {}",
                    want["steps"][name.as_str()]
                ));
            }
        }
        let end: Value = serde_json::from_str(&end).expect("a line");
        if want["end"] != end {
            problems.push(format!("{at}: ends {end}, expected {}", want["end"]));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_action_type_and_question_path_has_an_example() {
    let mut kinds = BTreeMap::new();
    for rules in ["bloody-dismal-fight", "el-gran-capitan"] {
        for (name, p) in files(rules) {
            if !name.starts_with("rejected-") {
                let a = read_json(&p);
                kinds.insert(
                    format!("{rules}:{}", a["action"].as_str().unwrap_or("")),
                    (),
                );
            }
        }
        for k in [
            "rest", "regroup", "advance", "march", "retire", "charge", "fire", "melee",
        ] {
            assert!(
                kinds.contains_key(&format!("{rules}:{k}")),
                "{rules}: no example of {k}"
            );
        }
    }
    let egc: Vec<String> = files("el-gran-capitan").into_iter().map(|f| f.0).collect();
    for path in [
        "charge-through-defensive-fire",
        "charge-outside-arc-of-fire",
        "charge-target-evades-escapes",
        "charge-target-evades-caught",
        "charge-target-stands",
    ] {
        assert!(
            egc.contains(&path.to_string()),
            "missing question path {path}"
        );
    }
}

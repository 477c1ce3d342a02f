//! The checked scenario: a scenario read as data (a game file, an export, the database) goes
//! through the same checks as a TOML file, each problem named by field, file, line and column;
//! a recorded one that fails a check still loads, with warnings; a game file is read only through
//! `Game::from_json`.

mod common;
use common::root;
use serde_json::{json, Value};
use tercio_rules::game::Game;
use tercio_rules::scenario::{parse, Scenario, ScenarioFile, Source};

fn shipped() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for rules in std::fs::read_dir(root().join("scenarios")).expect("scenarios") {
        for f in std::fs::read_dir(rules.expect("dir").path()).expect("dir") {
            let p = f.expect("file").path();
            if p.extension().is_some_and(|x| x == "toml") {
                out.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).expect("read"),
                ));
            }
        }
    }
    assert!(out.len() >= 12, "the shipped scenarios");
    out
}

fn scenario(rules: &str, name: &str) -> Scenario {
    let p = root().join("scenarios").join(rules).join(name);
    parse("s.toml", &std::fs::read_to_string(p).expect("read")).expect("valid")
}

/// A scenario written into a game-file-like JSON document, pretty-printed.
fn in_file(sc: &Value) -> String {
    serde_json::to_string_pretty(&json!({"format": "x", "scenario": sc})).expect("json")
}

fn at<'a>(text: &'a str) -> Source<'a> {
    Source {
        file: "g.json",
        text,
        path: "scenario",
    }
}

fn raw(v: &Value) -> ScenarioFile {
    serde_json::from_value(v.clone()).expect("a scenario's shape")
}

/// The line and column of the first occurrence of `needle` in `text`, 1-based.
fn where_is(text: &str, needle: &str) -> (usize, usize) {
    let i = text.find(needle).expect("in the text");
    let before = &text[..i];
    (
        before.matches('\n').count() + 1,
        before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
    )
}

#[test]
fn every_shipped_scenario_passes_its_checks_as_data_too() {
    for (name, src) in shipped() {
        let sc = parse(&name, &src).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let v = serde_json::to_value(&sc).expect("json");
        let text = in_file(&v);
        let again = Scenario::check(raw(&v), &at(&text))
            .unwrap_or_else(|d| panic!("{name}: as data: {:#?}", d));
        assert_eq!(again, sc, "{name}");
        assert!(again.warnings().is_empty());
        // Serialised exactly as the data it was made from.
        assert_eq!(serde_json::to_value(&again).expect("json"), v, "{name}");
    }
}

#[test]
fn problems_of_a_scenario_read_as_data_name_field_file_line_and_column() {
    let sc = scenario("el-gran-capitan", "cerignola-1503.toml");
    let mut v = serde_json::to_value(&sc).expect("json");
    v["title"] = json!("  ");
    v["units"][2]["leader"] = json!("nobody");
    v["units"][3]["type"] = json!("dragons");
    v["sides"][0]["colour"] = json!("not a colour");
    let text = in_file(&v);
    let problems = Scenario::check(raw(&v), &at(&text)).expect_err("four problems");
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 4, "{shown:#?}");
    let (l, c) = where_is(&text, "\"  \"");
    assert!(
        shown.contains(&format!(
            "g.json:{l}:{c}: scenario.title = \"  \": must not be empty: the battle's name, shown on every page"
        )),
        "{shown:#?}"
    );
    let (l, c) = where_is(&text, "\"nobody\"");
    let leader = problems
        .iter()
        .find(|d| d.field == "scenario.units[2].leader")
        .expect("the unknown leader");
    assert_eq!(
        (leader.file.as_str(), leader.line, leader.column),
        ("g.json", l, c)
    );
    assert!(leader.message.starts_with("no such leader; allowed:"));
    let (l, c) = where_is(&text, "\"dragons\"");
    let troop = problems
        .iter()
        .find(|d| d.field == "scenario.units[3].type")
        .expect("the unknown troop type");
    assert_eq!((troop.line, troop.column), (l, c));
    let (l, c) = where_is(&text, "\"not a colour\"");
    assert!(problems
        .iter()
        .any(|d| d.field == "scenario.sides[0].colour" && (d.line, d.column) == (l, c)));
    // In file order.
    let order: Vec<(usize, usize)> = problems.iter().map(|d| (d.line, d.column)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn a_unit_size_is_named_as_the_data_names_it() {
    // Sword and Flame counts figures: the TOML field is `figures`, the data's is `bases`.
    let sc = scenario("sword-and-flame-renaissance", "bicocca-1522.toml");
    let mut v = serde_json::to_value(&sc).expect("json");
    v["units"][1]["bases"] = json!(99);
    let text = in_file(&v);
    let problems = Scenario::check(raw(&v), &at(&text)).expect_err("too many figures");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let d = &problems[0];
    assert_eq!(d.field, "scenario.units[1].bases");
    assert_eq!(d.value.as_deref(), Some("99"));
    assert!(d.message.contains("from 1 to 40"), "{}", d.message);
    let (l, c) = where_is(&text, "99");
    assert_eq!((d.line, d.column), (l, c));
}

#[test]
fn a_house_rule_key_with_dots_is_found_and_checked() {
    let sc = scenario("el-gran-capitan", "cerignola-1503.toml");
    let mut v = serde_json::to_value(&sc).expect("json");
    v["house_rules"] = json!({"troops.no-such-troop.impact": 2});
    let text = in_file(&v);
    let problems = Scenario::check(raw(&v), &at(&text)).expect_err("no such entry");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(
        problems[0].field,
        "scenario.house_rules.troops.no-such-troop.impact"
    );
    let (l, c) = where_is(&text, "2\n");
    assert_eq!((problems[0].line, problems[0].column), (l, c));
}

#[test]
fn a_recorded_scenario_that_fails_a_check_loads_with_warnings() {
    let sc = scenario("el-gran-capitan", "cerignola-1503.toml");
    let mut v = serde_json::to_value(&sc).expect("json");
    v["title"] = json!("");
    let text = in_file(&v);
    assert!(Scenario::check(raw(&v), &at(&text)).is_err());
    let rec = Scenario::recorded(raw(&v), &at(&text));
    assert_eq!(rec.file(), &raw(&v), "kept as it was recorded");
    assert_eq!(rec.warnings().len(), 1);
    assert_eq!(rec.warnings()[0].field, "scenario.title");
    // A recorded scenario that passes has no warnings.
    let text = in_file(&serde_json::to_value(&sc).expect("json"));
    let fine = Scenario::recorded(raw(&serde_json::to_value(&sc).expect("json")), &at(&text));
    assert!(fine.warnings().is_empty());
}

#[test]
fn a_blank_title_is_refused_in_toml() {
    let src = std::fs::read_to_string(root().join("scenarios/el-gran-capitan/cerignola-1503.toml"))
        .expect("read");
    let line = src
        .lines()
        .position(|l| l.starts_with("title"))
        .expect("a title")
        + 1;
    let bad: String = src
        .lines()
        .map(|l| {
            if l.starts_with("title") {
                "title = \" \""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let d = parse("c.toml", &bad).expect_err("blank title");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        d[0].to_string(),
        format!("c.toml:{line}:9: title = \" \": must not be empty: the battle's name, shown on every page")
    );
}

fn game_text() -> (Game, String) {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    g.act(json!({"action": "initiative"})).expect("initiative");
    g.act_signed(json!({"action": "initiative"}), None, Some("side:spanish"))
        .ok();
    g.undo().expect("undo");
    let text = serde_json::to_string_pretty(&g).expect("json");
    (g, text)
}

#[test]
fn a_game_file_reads_back_as_written() {
    let (g, text) = game_text();
    let back = Game::from_json("g.json", &text).expect("reads");
    assert_eq!(back, g);
    assert!(back.scenario.warnings().is_empty());
    assert_eq!(serde_json::to_string_pretty(&back).expect("json"), text);
    assert_eq!(back.log_digest(), g.log_digest());
    assert!(back.replay().is_ok());
}

#[test]
fn a_game_file_with_a_bad_log_or_format_is_refused_at_its_line_and_column() {
    let (_, text) = game_text();
    // The second entry renumbered: a log must count 1, 2, 3...
    let bad = text.replacen("\"seq\": 2", "\"seq\": 5", 1);
    assert_ne!(bad, text);
    let d = Game::from_json("g.json", &bad).expect_err("out of order");
    assert_eq!(d.file, "g.json");
    assert_eq!(d.field, "log.entries[1].seq");
    assert!(d.line > 1 && d.column > 0, "{d}");
    assert!(d.message.contains("5 where 2 was expected"), "{d}");
    let bad = text.replacen("\"tercio-game/1\"", "\"tercio-game/9\"", 1);
    let d = Game::from_json("g.json", &bad).expect_err("unknown format");
    assert_eq!(d.field, "format");
    assert_eq!((d.line, d.column), where_is(&bad, "\"tercio-game/9\""));
    let mut v: Value = serde_json::from_str(&text).expect("json");
    v.as_object_mut().expect("object").remove("seed");
    let d = Game::from_json("g.json", &v.to_string()).expect_err("no seed");
    assert_eq!(d.field, "seed");
    assert!(d.to_string().starts_with("g.json:1:"), "{d}");
}

#[test]
fn a_game_file_whose_scenario_fails_a_check_loads_replays_and_warns() {
    let (g, text) = game_text();
    let mut v: Value = serde_json::from_str(&text).expect("json");
    v["scenario"]["title"] = json!("");
    let bad = serde_json::to_string_pretty(&v).expect("json");
    let back = Game::from_json("g.json", &bad).expect("still loads");
    assert_eq!(back.scenario.warnings().len(), 1);
    let w = &back.scenario.warnings()[0];
    assert_eq!(
        (w.file.as_str(), w.field.as_str(), w.line, w.column),
        (
            "g.json",
            "scenario.title",
            where_is(&bad, "\"title\": \"\"").0,
            where_is(&bad, "\"title\": \"\"").1 + 9
        )
    );
    assert_eq!(back.replay(), g.replay());
    assert_eq!(back.verify(), g.verify());
}

/// A value or a key of a scenario, however long, is quoted at most 60 characters long by the
/// problems found with it: each line of each shipped scenario given a 5,000-character value, or
/// a key of that length before it.
#[test]
fn a_problem_quotes_at_most_sixty_characters_of_a_value_or_key() {
    let long = "q".repeat(5_000);
    for (name, src) in shipped() {
        let lines: Vec<&str> = src.lines().collect();
        let mut tried = std::collections::HashSet::new();
        for (i, line) in lines.iter().enumerate() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            if key.starts_with('#') || key.starts_with('[') {
                continue;
            }
            let mut variants = vec![("key", format!("{long} = 1\n{line}"))];
            if value.starts_with('"') || value.starts_with(|c: char| c.is_ascii_digit()) {
                variants.push(("text", format!("{key} = \"{long}\"")));
            }
            if value.starts_with('[') {
                variants.push(("list", format!("{key} = [\"{long}\"]")));
            }
            for (what, changed) in variants {
                if !tried.insert(format!("{key} {what}")) {
                    continue;
                }
                let mut text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                text[i] = changed;
                let Err(found) = parse(&name, &text.join("\n")) else {
                    continue;
                };
                for d in found {
                    let shown = common::en(&d.to_string());
                    assert!(
                        !shown.contains(&"q".repeat(61)),
                        "{name}: {key} ({what}): {}",
                        &shown[..shown.len().min(300)]
                    );
                }
            }
        }
    }
}

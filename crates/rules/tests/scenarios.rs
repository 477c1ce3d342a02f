//! Shipped scenarios validate; bad scenarios report every problem at once, at file:line:col.

mod common;
use common::root;
use tercio_rules::scenario::parse;

#[test]
fn shipped_scenarios_are_valid_and_sourced() {
    for rules in ["bloody-dismal-fight", "el-gran-capitan"] {
        let dir = root().join("scenarios").join(rules);
        let files: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .collect();
        assert!(files.len() >= 2, "{rules}: at least two scenarios");
        for f in files {
            let src = std::fs::read_to_string(&f).expect("read");
            let sc = parse(&f.display().to_string(), &src).unwrap_or_else(|d| {
                panic!(
                    "{}",
                    d.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
            assert_eq!(sc.ruleset, rules);
            assert!(!sc.sources.is_empty(), "{}: no sources", f.display());
            assert_eq!(sc.sides.len(), 2);
        }
    }
}

const BAD: &str = r#"ruleset = "egc"
title = "Broken"
colour = "red"

[[sides]]
id = "a"
name = "A"
role = "attacker"

[[sides]]
id = "b"
name = "B"
role = "defender"

[[leaders]]
id = "la"
name = "Leader A"
side = "a"
rank = "army"
bonus = 3

[[leaders]]
id = "lb"
name = "Leader B"
side = "b"
rank = "army"

[[units]]
id = "u1"
name = "Pike"
side = "a"
type = "landsknechts"
bases = 4
leader = "la"

[[units]]
id = "u2"
name = "Gendarmes"
side = "a"
type = "gendarmes"
bases = 9
leader = "nobody"

[[units]]
id = "u3"
name = "LK"
side = "b"
type = "spanish-landsknecht-pike"
bases = 4
leader = "lb"
"#;

#[test]
fn every_problem_is_reported_with_its_position() {
    let d = parse("bad.toml", BAD).expect_err("invalid");
    let text: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    let has = |s: &str| text.iter().any(|t| t.contains(s));
    assert!(has("bad.toml:3:1: colour: unknown field"), "{text:#?}");
    assert!(
        has("bad.toml:20:9: leaders[0].bonus = 3: allowed: an integer from 0 to 2"),
        "{text:#?}"
    );
    assert!(has("units[0].type = \"landsknechts\": unknown troop type for el-gran-capitan; allowed: gendarmes"), "{text:#?}");
    assert!(
        has("units[1].bases = 9: allowed: an integer from 1 to 6"),
        "{text:#?}"
    );
    assert!(
        has("units[1].leader = \"nobody\": no such leader; allowed: \"la\", \"lb\""),
        "{text:#?}"
    );
    assert!(has("units[2].nationality: required for spanish-landsknecht-pike; allowed: spanish, landsknecht"), "{text:#?}");
    assert_eq!(d.len(), 6, "{text:#?}");
    let bases = d
        .iter()
        .find(|x| x.field == "units[1].bases")
        .expect("bases");
    assert_eq!((bases.line, bases.column), (41, 9));
}

#[test]
fn side_colours_are_colours() {
    let src = std::fs::read_to_string(root().join("scenarios/el-gran-capitan/cerignola-1503.toml"))
        .expect("read");
    let bad = src.replacen(
        "colour = \"darkred\"",
        "colour = \"red; background: url(x)\"",
        1,
    );
    assert_ne!(bad, src);
    let d = parse("c.toml", &bad).expect_err("not a colour");
    assert!(d.iter().any(|x| x.field.ends_with("colour")), "{d:?}");
}

#[test]
fn malformed_toml_is_located() {
    let d = parse("m.toml", "ruleset = \"abdf\"\ntitle = \"x\n").expect_err("malformed");
    assert!(
        d[0].line == 2 && d[0].message.contains("malformed TOML"),
        "{:?}",
        d
    );
}

#[test]
fn unknown_rule_sets() {
    let d = parse("x.toml", "ruleset = \"dba\"\ntitle = \"t\"\n").expect_err("unknown");
    assert!(d
        .iter()
        .any(|x| x.message.contains("allowed: bloody-dismal-fight (abdf)")));
}

#[test]
fn house_rules_are_checked_and_applied() {
    let ok = BAD
        .replace("bonus = 3", "bonus = 1")
        .replace("colour = \"red\"\n", "")
        .replace("\"landsknechts\"", "\"swiss-pike\"")
        .replace("bases = 9", "bases = 3")
        .replace("\"nobody\"", "\"la\"")
        .replace(
            "leader = \"lb\"",
            "leader = \"lb\"\nnationality = \"landsknecht\"",
        );
    let with =
        format!("{ok}\n[house_rules]\nfire_one = 8\n[house_rules.troops.gendarmes]\nimpact = 3\n");
    let sc = parse("h.toml", &with).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(sc.house_rules.get("fire_one"), Some(&8));
    assert_eq!(sc.house_rules.get("troops.gendarmes.impact"), Some(&3));
    let bad = format!(
        "{ok}\n[house_rules]\nfire_once = 8\n[house_rules.troops.gendarmes]\nimpact = \"big\"\n"
    );
    let d = parse("h.toml", &bad).expect_err("bad house rules");
    assert_eq!(d.len(), 2, "{d:?}");
}

#[test]
fn house_rules_change_the_charts_the_engine_uses() {
    let src = std::fs::read_to_string(root().join("scenarios/el-gran-capitan/cerignola-1503.toml"))
        .expect("read");
    let base = parse("c.toml", &src).expect("valid");
    let tougher = parse("c.toml", &format!("{src}\n[house_rules]\nfire_one = 9\n[house_rules.troops.arquebusiers]\nfire_factor = -1\n")).expect("valid");
    let fire = serde_json::json!({"action":"fire","actor":{"type":"arquebusiers","bases":4},"target":{"type":"swiss-pike","bases":4},"ground":"open"});
    let p = |sc: &tercio_rules::scenario::Scenario| {
        let e = tercio_rules::lookup("egc")
            .expect("rules")
            .engine(Some(sc))
            .expect("engine");
        let r = tercio_rules::odds::odds(&e.plan(None, &fire).expect("plan"));
        r.p("fire", "one level") + r.p("fire", "devastating")
    };
    assert!((p(&base) - 21.0 / 36.0).abs() < 1e-9);
    // 2D6 - 1 >= 9: 10 or more, 6 in 36.
    assert!((p(&tougher) - 6.0 / 36.0).abs() < 1e-9, "{}", p(&tougher));
}

/// A scenario's `[[obstacles]]`: each an id, a name in both languages and, when agreed, a
/// difficulty the rule set knows; refused at its line for a rule set that tracks no obstacle,
/// and a name in one language only is a warning, as any other name.
#[test]
fn obstacles_are_checked_where_they_are_written() {
    let src = std::fs::read_to_string(root().join("scenarios/callan-renaissance/pavia-1525.toml"))
        .expect("read");
    let sc = parse("p.toml", &src).expect("valid");
    assert_eq!(sc.obstacles.len(), 1);
    assert_eq!(sc.obstacles[0].id, "vernavola");
    assert_eq!(sc.obstacles[0].difficulty, None);
    let bad = format!(
        "{src}\n[[obstacles]]\nid = \"vernavola\"\nname = \"again\"\n\n[[obstacles]]\nid = \"fosso\"\nname = {{ en = \"the ditch\", it = \"il fosso\" }}\ndifficulty = \"hard\"\n"
    );
    let d = parse("p.toml", &bad).expect_err("invalid");
    let text: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    let has = |s: &str| text.iter().any(|t| t.contains(s));
    assert!(
        has("obstacles[1].id = \"vernavola\": duplicate obstacle id"),
        "{text:#?}"
    );
    assert!(
        has("obstacles[2].difficulty = \"hard\": allowed: facile, difficile, molto-difficile"),
        "{text:#?}"
    );
    // The same, its difficulty agreed: accepted; its name in one language is a warning.
    let agreed = format!(
        "{src}\n[[obstacles]]\nid = \"fosso\"\nname = \"il fosso\"\ndifficulty = \"difficile\"\n"
    );
    let sc = parse("p.toml", &agreed).expect("valid");
    assert_eq!(sc.obstacles[1].difficulty.as_deref(), Some("difficile"));
    let w = tercio_rules::scenario::translations("p.toml", &agreed);
    assert!(w.iter().any(|x| x.field == "obstacles[1].name"), "{w:?}");
    // A rule set that tracks none refuses them.
    let cerignola =
        std::fs::read_to_string(root().join("scenarios/el-gran-capitan/cerignola-1503.toml"))
            .expect("read");
    let d = parse(
        "c.toml",
        &format!("{cerignola}\n[[obstacles]]\nid = \"fosso\"\nname = \"il fosso\"\n"),
    )
    .expect_err("no obstacles in this rule set");
    assert!(
        d.iter()
            .any(|x| x.field == "obstacles[0]" && x.message.contains("tracks no obstacle")),
        "{d:?}"
    );
}

//! House rules as data: every rule set's table is sound and documented, the scenario check refuses
//! a value outside its range at its line and column, and a scenario recorded with one still loads,
//! with a warning, read the way its release read it.

mod common;
use common::root;
use tercio_rules::interface::house::value;
use tercio_rules::registry;
use tercio_rules::scenario::{parse, Scenario, ScenarioFile, Source};

/// A shipped scenario of the rule set, as text.
fn shipped(id: &str) -> String {
    let dir = root().join("scenarios").join(id);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    std::fs::read_to_string(&files[0]).expect("read")
}

/// The scenario with `line` added to its `[house_rules]`, and the line number it lands on.
fn with_house_rule(src: &str, line: &str) -> (String, usize) {
    // The scenario's own setting of the same key goes.
    let key = line.split(" = ").next().unwrap_or_default();
    let src: String = src
        .lines()
        .filter(|l| l.split(" = ").next() != Some(key))
        .map(|l| format!("{l}\n"))
        .collect();
    let text = if src.contains("\n[house_rules]\n") {
        src.replacen(
            "\n[house_rules]\n",
            &format!("\n[house_rules]\n{line}\n"),
            1,
        )
    } else {
        format!("{}\n[house_rules]\n{line}\n", src.trim_end())
    };
    let n = text
        .lines()
        .position(|l| l == line)
        .expect("the line is there")
        + 1;
    (text, n)
}

#[test]
fn every_table_is_sound_and_in_its_design_document() {
    for r in registry::all() {
        let rules = r.house_rules();
        assert!(!rules.is_empty(), "{}: no house rules", r.id());
        let doc = std::fs::read_to_string(root().join(format!("docs/rules/{}.md", r.id())))
            .expect("the design document");
        let mut seen = std::collections::BTreeSet::new();
        for h in &rules {
            assert!(
                seen.insert(h.key.to_string()),
                "{}: {} twice",
                r.id(),
                h.key
            );
            assert!(h.min <= h.max, "{}: {} has an empty range", r.id(), h.key);
            assert!(
                h.allows(h.default),
                "{}: {}'s default is outside its range",
                r.id(),
                h.key
            );
            assert!(!h.flag || (h.min, h.max) == (0, 1), "{}: {}", r.id(), h.key);
            assert!(!h.source.is_empty(), "{}: {} has no source", r.id(), h.key);
            let named = match h.key.strip_prefix("troops.") {
                Some(rest) => {
                    let entry = rest.split_once('.').map_or(rest, |(_, e)| e);
                    doc.contains(&format!("`{entry}`"))
                }
                None => doc.contains(&format!("`{}`", h.key)),
            };
            assert!(named, "{}: {} is not in its design document", r.id(), h.key);
        }
    }
}

#[test]
fn a_value_outside_its_range_is_refused_at_its_line_and_column() {
    for r in registry::all() {
        let src = shipped(r.id());
        let rules = r.house_rules();
        let number = rules.iter().find(|h| !h.flag);
        let flag = rules.iter().find(|h| h.flag);
        for h in number.into_iter().chain(flag) {
            // The largest value is accepted and used.
            let (ok, _) = with_house_rule(&src, &format!("{} = {}", h.key, h.max));
            let sc = parse("h.toml", &ok).unwrap_or_else(|d| panic!("{}: {d:?}", r.id()));
            assert_eq!(sc.house_rules.get(h.key.as_ref()), Some(&h.max));
            assert_eq!(value(&rules, &sc.house_rules, &h.key), h.max);
            // One more is refused, at the value.
            let line = format!("{} = {}", h.key, h.max + 1);
            let (bad, at) = with_house_rule(&src, &line);
            let d = parse("h.toml", &bad).expect_err("out of range");
            assert_eq!(d.len(), 1, "{}: {d:?}", r.id());
            assert_eq!(
                (d[0].line, d[0].column),
                (at, h.key.len() + 4),
                "{:?}",
                d[0]
            );
            assert_eq!(d[0].field, format!("house_rules.{}", h.key));
            let allowed = if h.flag {
                "allowed: 0 (off) or 1 (on)".to_string()
            } else {
                format!("allowed: an integer from {} to {}", h.min, h.max)
            };
            assert!(d[0].message.contains(&allowed), "{}", d[0].message);
        }
    }
}

#[test]
fn a_key_that_is_not_a_house_rule_is_refused_with_the_allowed_ones() {
    for r in registry::all() {
        let (bad, at) = with_house_rule(&shipped(r.id()), "no_such_rule = 1");
        let d = parse("h.toml", &bad).expect_err("unknown key");
        assert_eq!((d[0].line, d[0].column), (at, 1), "{:?}", d[0]);
        let first = &r.house_rules()[0].key;
        assert!(d[0].message.contains(first.as_ref()), "{}", d[0].message);
    }
}

#[test]
fn a_recorded_scenario_out_of_range_loads_with_a_warning_and_its_old_reading() {
    for r in registry::all() {
        let rules = r.house_rules();
        let h = rules.iter().find(|h| !h.flag).expect("a number");
        let sc = parse("h.toml", &shipped(r.id())).expect("valid");
        let mut file: ScenarioFile = sc.file().clone();
        file.house_rules.insert(h.key.to_string(), h.max + 5);
        let text = serde_json::to_string_pretty(&file).expect("json");
        let at = Source {
            file: "recorded.json",
            text: &text,
            path: "",
        };
        assert!(Scenario::check(file.clone(), &at).is_err(), "{}", r.id());
        let recorded = Scenario::recorded(file, &at);
        assert_eq!(recorded.warnings().len(), 1, "{}", r.id());
        assert!(recorded.warnings()[0].line > 1);
        // Read as its release read it: the nearest allowed value.
        assert_eq!(value(&rules, &recorded.house_rules, &h.key), h.max);
        r.engine(Some(&recorded))
            .unwrap_or_else(|e| panic!("{}: {e}", r.id()));
    }
}

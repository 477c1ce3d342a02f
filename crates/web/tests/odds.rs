//! The odds the game page shows (issue 43, item 3): each action's final outcome, told by the
//! facets that decide it (a charge by its melee, not by the defensive fire on the way in), every
//! target of a split fire its own, and the page's fragment rendered by the server in the page's
//! language.

mod common;

use common::{example_game, on_one_device, server, tokens, RULE_SETS};
use serde_json::{json, Value};

fn post(s: &common::Server, path: &str, body: &Value) -> tercio_web::client::Reply {
    s.request("POST", path, &[], Some(&body.to_string()))
}

/// Every example game, played through the API: before each action, its odds as JSON and as the
/// page's fragment, in both languages. The final outcome's probabilities sum to 1 with the
/// other outcomes; each headline value's probability is the facet's own (the same
/// enumeration); the fragment is small, and shows no message marker, `undefined` or `NaN`.
#[test]
fn every_example_action_has_a_final_outcome_and_a_small_fragment() {
    let s = server();
    let mut told = 0;
    for rules in RULE_SETS {
        let (scenario, seed, mut steps) = example_game(rules);
        on_one_device(&mut steps);
        let created = s.create(&json!({"scenario": scenario, "seed": seed}));
        let gm = tokens(&created)[0].clone();
        for (name, action) in &steps {
            let r = post(&s, &format!("/api/s/{gm}/odds"), action);
            if r.status == 200 {
                let v = r.json();
                let finals = v["final"].as_array().cloned().unwrap_or_default();
                assert!(!finals.is_empty(), "{rules} {name}: no final outcome: {v}");
                for f in &finals {
                    let groups = f["groups"].as_array().cloned().unwrap_or_default();
                    let sum: f64 = groups.iter().filter_map(|g| g["p"].as_f64()).sum::<f64>()
                        + f["other"].as_f64().unwrap_or(0.0);
                    assert!(
                        (sum - 1.0).abs() < 1e-9,
                        "{rules} {name}: sums to {sum}: {f}"
                    );
                    // Each group's headline values, told alone, are the facets' own marginals.
                    for g in &groups {
                        for pair in g["values"].as_array().into_iter().flatten() {
                            let facet = &v["facets"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .find(|x| x["facet"] == pair[0])
                                .cloned()
                                .unwrap_or(Value::Null);
                            assert!(facet.is_object(), "{rules} {name}: {pair} not a facet");
                        }
                    }
                }
                for lang in ["it", "en"] {
                    let h = post(
                        &s,
                        &format!("/api/s/{gm}/odds?view=html&lang={lang}"),
                        action,
                    );
                    assert_eq!(h.status, 200, "{rules} {name}: {}", h.body);
                    let html = h.json()["html"].as_str().unwrap_or_default().to_string();
                    assert!(html.starts_with("<div class=\"odds-final\">"), "{html}");
                    for bad in ['\u{27e6}', '\u{27e7}'] {
                        assert!(!html.contains(bad), "{rules} {name} {lang}: {html}");
                    }
                    for bad in ["undefined", "NaN", "inf%", "≈ inf"] {
                        assert!(!html.contains(bad), "{rules} {name} {lang}: {html}");
                    }
                    assert!(html.len() <= 5_000, "{rules} {name}: {} bytes", html.len());
                    told += 1;
                }
            }
            let done = post(&s, &format!("/api/s/{gm}/actions"), action);
            assert_eq!(done.status, 200, "{rules} {name}: {}", done.body);
        }
    }
    assert!(told > 40, "{told} fragments");
}

/// A value's probability in a final outcome: the sum of the groups telling it.
fn p_of(fin: &Value, facet_en: &str, value_en: &str) -> f64 {
    fin["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|g| {
            g["values"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p[0] == facet_en && p[1] == value_en)
        })
        .filter_map(|g| g["p"].as_f64())
        .sum()
}

/// Cerignola's charge (issue 43: "charge: contact 100.0%" while the melee decides it): its
/// final outcome is the melee's, ahead / tie / behind with the levels each side is expected
/// to lose, not the certain contact; in Italian, the fragment says it with a bar and numbers.
#[test]
fn a_charge_is_told_by_its_melee() {
    let s = server();
    let (scenario, seed, steps) = example_game("el-gran-capitan");
    let created = s.create(&json!({"scenario": scenario, "seed": seed}));
    let gm = tokens(&created)[0].clone();
    for (_, a) in &steps[..3] {
        assert_eq!(post(&s, &format!("/api/s/{gm}/actions"), a).status, 200);
    }
    let charge = &steps[3].1;
    assert_eq!(charge["action"], "charge");
    let v = post(&s, &format!("/api/s/{gm}/odds?lang=en"), charge).json();
    let fin = &v["final"][0];
    let groups = fin["groups"].as_array().cloned().unwrap_or_default();
    assert_eq!(groups.len(), 3, "{fin}");
    // The example's figures (examples/el-gran-capitan/game.expect.json): 58.33 / 13.89 / 27.78.
    for (value, p) in [
        ("actor ahead", 7.0 / 12.0),
        ("tie", 5.0 / 36.0),
        ("target ahead", 5.0 / 18.0),
    ] {
        let got = p_of(fin, "melee", value);
        assert!((got - p).abs() < 1e-9, "{value}: {got} against {p}: {fin}");
    }
    // Levels lost on each outcome: a tie costs both sides, ahead costs the target.
    let ahead = &groups[0];
    let expected = ahead["expected"].as_array().cloned().unwrap_or_default();
    assert!(
        expected
            .iter()
            .any(|e| e[0] == "target levels lost" && e[1].as_f64().unwrap_or(0.0) >= 1.0),
        "{ahead}"
    );
    let h = post(&s, &format!("/api/s/{gm}/odds?view=html&lang=it"), charge).json();
    let html = h["html"].as_str().unwrap_or_default();
    assert!(html.contains("aria-label=\"Esito\""), "{html}");
    assert!(html.contains("58,3%"), "{html}");
    assert!(html.contains("<svg class=\"odds-bar\""), "{html}");
    assert!(html.contains("<details class=\"all-odds\">"), "{html}");
    assert!(!html.contains("contact 100"), "{html}");
}

/// Agincourt's end-of-turn fire at two targets: each target its own final outcome.
#[test]
fn every_target_of_a_split_fire_has_its_outcome() {
    let s = server();
    let (scenario, seed, steps) = example_game("bloody-dismal-fight");
    let created = s.create(&json!({"scenario": scenario, "seed": seed}));
    let gm = tokens(&created)[0].clone();
    let at = steps
        .iter()
        .position(|(_, a)| a["action"] == "end-fire")
        .expect("an end-of-turn fire");
    for (_, a) in &steps[..at] {
        assert_eq!(post(&s, &format!("/api/s/{gm}/actions"), a).status, 200);
    }
    let v = post(&s, &format!("/api/s/{gm}/odds?lang=en"), &steps[at].1).json();
    let finals = v["final"].as_array().cloned().unwrap_or_default();
    assert_eq!(finals.len(), 2, "{v}");
    for (fin, target) in finals.iter().zip([
        "Archers with the King's battle",
        "Vanguard: the Constable's men-at-arms, on foot",
    ]) {
        let facet = format!("{target}: levels lost");
        let told = fin["groups"][0]["values"][0][0]
            .as_str()
            .unwrap_or_default();
        assert_eq!(told, facet, "{fin}");
    }
    let h = post(
        &s,
        &format!("/api/s/{gm}/odds?view=html&lang=en"),
        &steps[at].1,
    )
    .json();
    let html = h["html"].as_str().unwrap_or_default();
    assert_eq!(html.matches("<svg class=\"odds-bar\"").count(), 2, "{html}");
}

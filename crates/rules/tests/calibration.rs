//! The calibration targets of the charts, pinned with exact odds (docs/rules/*.md).

mod common;
use common::*;
use serde_json::json;

fn between(p: f64, lo: f64, hi: f64, what: &str) {
    assert!(
        p >= lo - 1e-12 && p <= hi + 1e-12,
        "{what}: {:.2}% not in [{:.0}%, {:.0}%]",
        p * 100.0,
        lo * 100.0,
        hi * 100.0
    );
}

#[test]
fn swiss_charging_french_italian_pike_come_out_ahead_55_to_70() {
    let r = report(
        "egc",
        &example("el-gran-capitan", "charge-swiss-vs-french-pike"),
    );
    between(r.p("melee", "actor ahead"), 0.55, 0.70, "Swiss ahead");
}

#[test]
fn gendarmes_charging_spanish_landsknecht_pike_ahead_at_most_35() {
    for nat in ["spanish", "landsknecht"] {
        let a = json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"spanish-landsknecht-pike","bases":4,"nationality":nat},"ground":"open"});
        between(
            report("egc", &a).p("melee", "actor ahead"),
            0.0,
            0.35,
            "gendarmes ahead",
        );
    }
}

#[test]
fn gendarmes_charging_arquebusiers_in_flank_ahead_at_least_80() {
    let r = report(
        "egc",
        &example("el-gran-capitan", "charge-gendarmes-flank-arquebusiers"),
    );
    between(r.p("melee", "actor ahead"), 0.80, 1.0, "gendarmes ahead");
    // The flank charge asks no defensive-fire question.
    assert_eq!(r.p("defensive fire", "no effect"), 0.0);
}

#[test]
fn gendarmes_against_gendarmes_is_close_with_real_ties() {
    let r = report(
        "egc",
        &example("el-gran-capitan", "charge-gendarmes-vs-gendarmes"),
    );
    assert!(r.p("melee", "actor ahead") <= 0.60);
    assert!(r.p("melee", "target ahead") <= 0.60);
    between(r.p("melee", "tie"), 0.10, 1.0, "tie");
}

#[test]
fn arquebusiers_firing_at_swiss_pike() {
    let r = report(
        "egc",
        &example("el-gran-capitan", "fire-arquebusiers-at-swiss"),
    );
    let one = r.p("fire", "one level");
    let dev = r.p("fire", "devastating");
    between(one + dev, 0.40, 0.65, "at least one level");
    between(dev, 0.05, 0.20, "devastating");
}

#[test]
fn leader_with_the_losing_side_is_lost_5_to_15() {
    // Even melee, gendarmes against gendarmes, leader with the target: P(lost | target loses).
    let a = json!({"action":"melee","actor":{"type":"gendarmes","bases":4,"in_combat":true},"target":{"type":"gendarmes","bases":4,"in_combat":true},"ground":"open","leader_with_target":true});
    let plan = plan("egc", &a).expect("plan");
    let joint = plan.exact(|o| {
        let get = |k: &str| {
            o.facets
                .iter()
                .find(|(f, _)| en(f) == k)
                .map(|(_, v)| en(v))
                .unwrap_or_default()
        };
        (get("melee"), get("leader Leader with target"))
    });
    let lost: f64 = joint.p(|(m, l)| m == "actor ahead" && (l == "killed" || l == "captured"));
    let losing: f64 = joint.p(|(m, _)| m == "actor ahead");
    between(lost / losing, 0.05, 0.15, "leader lost given the side lost");
    // And a leader with a winning or tied unit is never at risk.
    assert_eq!(joint.p(|(m, l)| m != "actor ahead" && !l.is_empty()), 0.0);
}

#[test]
fn knights_charging_archers_behind_stakes_ahead_at_most_40() {
    for name in [
        "charge-knights-vs-archers-with-stakes",
        "charge-knights-vs-archers-stakes-no-fire",
    ] {
        let r = report("abdf", &example("bloody-dismal-fight", name));
        between(r.p("melee", "actor ahead"), 0.0, 0.40, name);
    }
    // Without stakes, in the open, knights are favourites: the stakes do the work.
    let open = json!({"action":"charge","actor":{"type":"mounted-knights","bases":4},"target":{"type":"archers","bases":4,"acted":true},"ground":"open"});
    assert!(report("abdf", &open).p("melee", "actor ahead") > 0.5);
}

#[test]
fn the_seeds_worked_example_a_tie_disorders_both() {
    // "a unit of knights has made a Melee action after charging into an enemy group of knights...
    // the result is a tie, throwing both units into disorder and continuing the fight."
    let a = example("bloody-dismal-fight", "charge-knights-downhill-vs-knights");
    let plan = plan("abdf", &a).expect("plan");
    let leaves = plan.leaves();
    let tie = leaves
        .iter()
        .find(|(o, _)| {
            o.facets
                .iter()
                .any(|(k, v)| en(k) == "melee" && en(v) == "tie")
        })
        .expect("a tie is possible");
    let effects = tie.0.effects.as_array().expect("effects");
    let disordered = effects
        .iter()
        .filter(|e| e["effect"] == "unit" && e["status"] == "disordered")
        .count();
    assert_eq!(disordered, 2);
    assert!(
        effects.iter().any(|e| e["effect"] == "combat-joined"),
        "the fight goes on"
    );
}

/// Stakes combine with the ground: mounted knights do no better against staked archers uphill,
/// behind an obstacle or fortified than on the level (version 1 counted the stakes only on open
/// ground: 41.67% uphill against 27.78% on the level).
#[test]
fn stakes_combine_with_the_ground() {
    let ahead = |ground: &str, stakes: bool| {
        let a = json!({"action":"charge","actor":{"type":"mounted-knights","bases":4},"target":{"type":"archers","bases":4,"acted":true,"stakes_planted":stakes},"ground":ground});
        report("abdf", &a).p("melee", "actor ahead")
    };
    let level = ahead("open", true);
    assert!((level - 0.2778).abs() < 1e-4, "{level}");
    for ground in ["target-uphill", "obstacle", "fortified"] {
        let p = ahead(ground, true);
        assert!(p < level, "{ground}: {p} not below the level's {level}");
        assert!(
            p <= ahead(ground, false),
            "{ground}: the stakes helped the knights"
        );
    }
    // Charging downhill still helps the knights, stakes or not.
    assert!(ahead("actor-uphill", true) > level);
}

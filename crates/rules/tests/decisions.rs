//! Decisions where the texts are silent or ambiguous (docs/rules/*.md), each pinned by a test.

mod common;
use common::*;
use serde_json::json;

fn code(rules: &str, a: serde_json::Value) -> String {
    plan(rules, &a)
        .err()
        .map(|r| r.code)
        .unwrap_or_else(|| "accepted".into())
}

#[test]
fn stakes_count_for_the_charge_on_any_ground() {
    let melee = |stakes: bool, charging: bool, ground: &str| {
        let a = json!({"action":"melee","actor":{"type":"mounted-knights","bases":4,"in_combat":true},"target":{"type":"archers","bases":4,"in_combat":true,"stakes_planted":stakes,"flags":["stakes"]},"ground":ground,"actor_charging":charging});
        report("abdf", &a).p("melee", "actor ahead")
    };
    assert!(
        melee(true, true, "open") < melee(false, true, "open"),
        "stakes blunt the charge"
    );
    assert_eq!(
        melee(true, false, "open"),
        melee(false, false, "open"),
        "an ongoing melee ignores stakes"
    );
    // Version 2: the stakes combine with the ground (version 1 let it stand on any other ground).
    for ground in ["actor-uphill", "target-uphill", "obstacle", "fortified"] {
        assert!(
            melee(true, true, ground) < melee(false, true, ground),
            "stakes blunt the charge on {ground} too"
        );
    }
    // Very rough going stays very rough: the stakes add nothing to it.
    assert_eq!(
        melee(true, true, "very-rough"),
        melee(false, true, "very-rough"),
        "very rough ground is rougher than the stakes"
    );
    assert_eq!(
        code(
            "egc",
            json!({"action":"fire","actor":{"type":"arquebusiers","bases":2},"target":{"type":"gendarmes","bases":2,"stakes_planted":true}})
        ),
        "no-stakes"
    );
}

#[test]
fn only_evaders_evade_and_never_from_a_combat() {
    assert_eq!(
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"light-lancers","bases":2},"target_evades":true})
        ),
        "cannot-evade"
    );
    assert_eq!(
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"skirmishers","bases":2,"in_combat":true},"target_evades":true})
        ),
        "cannot-evade"
    );
    // Light Lancers are not among the evaders: no question is asked.
    assert_eq!(
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"light-lancers","bases":2}})
        ),
        "accepted"
    );
}

#[test]
fn ferocious_charges_only_at_the_listed_enemies() {
    let f = |t: &str| {
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"swiss-pike","bases":4},"target":{"type":t,"bases":2},"ferocious":true,"target_evades":false,"crosses_arc_of_fire":false}),
        )
    };
    assert_eq!(f("light-lancers"), "not-ferocious-target");
    assert_eq!(f("skirmishers"), "not-ferocious-target");
    assert_eq!(f("gendarmes"), "accepted");
    assert_eq!(f("heavy-cannon"), "accepted");
    assert_eq!(
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"footmen","bases":2},"ferocious":true})
        ),
        "not-ferocious"
    );
}

#[test]
fn retire_is_refused_only_when_contacted_on_several_faces() {
    let r = |several: bool| {
        code(
            "egc",
            json!({"action":"retire","actor":{"type":"footmen","bases":4,"in_combat":true},"target":{"type":"footmen","bases":4,"in_combat":true},"actor_in_flank":true,"contacted_on_several_faces":several}),
        )
    };
    assert_eq!(r(true), "contacted-on-several-faces");
    assert_eq!(r(false), "accepted");
}

#[test]
fn regroup_outcomes_are_named_consistently() {
    let rep = report("egc", &example("el-gran-capitan", "regroup-in-combat"));
    let values: Vec<String> = rep
        .facets
        .iter()
        .find(|f| en(&f.facet) == "regroup")
        .map(|f| f.values.iter().map(|v| en(&v.0)).collect())
        .unwrap_or_default();
    assert_eq!(values, vec!["0 levels", "1 level"]);
}

#[test]
fn defensive_fire_counts_the_front_rank_given() {
    let fire = |bases: Option<u8>| {
        let mut a = json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"arquebusiers","bases":4},"crosses_arc_of_fire":true});
        if let Some(b) = bases {
            a["defensive_firing_bases"] = json!(b);
        }
        report("egc", &a).p("charge", "stopped by fire")
    };
    assert!(fire(Some(2)) < fire(None));
    assert_eq!(fire(Some(4)), fire(None));
}

#[test]
fn an_actor_behind_an_obstacle_or_in_works_defends_it_in_melee() {
    // Issue 17, item 11: the Actor's own obstacle or works, as the target's are.
    let ahead = |ground: &str| {
        let a = json!({"action":"melee","actor":{"type":"footmen","bases":4,"in_combat":true},"target":{"type":"footmen","bases":4,"in_combat":true},"ground":ground});
        report("egc", &a).p("melee", "actor ahead")
    };
    let target_ahead = |ground: &str| {
        let a = json!({"action":"melee","actor":{"type":"footmen","bases":4,"in_combat":true},"target":{"type":"footmen","bases":4,"in_combat":true},"ground":ground});
        report("egc", &a).p("melee", "target ahead")
    };
    // The same advantage, to the other side: the chances mirror.
    for (own, theirs) in [
        ("actor-obstacle", "obstacle"),
        ("actor-fortified", "fortified"),
    ] {
        assert!(ahead(own) > ahead("open"), "{own} helps the actor");
        assert!(
            (ahead(own) - target_ahead(theirs)).abs() < 1e-12,
            "{own} mirrors {theirs}"
        );
    }
    assert!(ahead("actor-fortified") > ahead("actor-obstacle"));
    // A Forlorn Hope attacking works is good against them, as Target as well as Actor.
    let plain = |ground: &str| {
        let a = json!({"action":"melee","actor":{"type":"footmen","bases":4,"in_combat":true},"target":{"type":"skirmishers","bases":4,"in_combat":true},"ground":ground});
        report("egc", &a).p("melee", "target ahead")
    };
    let m = plan(
        "egc",
        &json!({"action":"melee","actor":{"type":"footmen","bases":4,"in_combat":true},"target":{"type":"forlorn-hope","bases":4,"in_combat":true},"ground":"actor-fortified"}),
    )
    .expect("plan");
    let (o, _) = m.roll(&mut tercio_core::DiceStream::from_seed(1));
    let text = en(&o.resolution.render());
    assert!(text.contains("Good against fixed positions"), "{text}");
    assert!(plain("actor-fortified") < plain("open"));
    // A charger leaves its position: a Charge from behind its own obstacle is refused.
    assert_eq!(
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"footmen","bases":4},"ground":"actor-obstacle"})
        ),
        "charger-leaves-position"
    );
}

/// 002 says a Charge initiates "a combat with an enemy unit which is not already engaged in a
/// melee" and also "It is possible to charge into an ongoing combat". Decided (both design
/// documents, section 1.1): the first sentence speaks of the charger, as 000 rewrote it ("used by
/// a unit which is not already engaged in a melee"), so a unit in a combat may not Charge while
/// its target may be fighting already; then the target neither evades nor fires, and fights
/// whether it has acted or not. Fails if either half of the reading changes.
#[test]
fn a_charge_may_go_into_an_ongoing_combat_but_not_out_of_one() {
    for rules in ["abdf", "egc"] {
        let (archers, knights) = if rules == "abdf" {
            ("archers", "mounted-knights")
        } else {
            ("arquebusiers", "gendarmes")
        };
        let charge = |charger_fighting: bool, target_fighting: bool, target_acted: bool| {
            code(
                rules,
                json!({"action":"charge",
                    "actor":{"type":knights,"bases":4,"in_combat":charger_fighting},
                    "target":{"type":archers,"bases":4,"in_combat":target_fighting,"acted":target_acted}}),
            )
        };
        // Out of a combat: refused, whatever the target.
        assert_eq!(charge(true, false, false), "in-ongoing-combat", "{rules}");
        assert_eq!(charge(true, true, false), "in-ongoing-combat", "{rules}");
        // A free target that may fire asks whether the charge crosses its arc of fire...
        assert_eq!(charge(false, false, false), "question", "{rules}");
        // ...one already fighting fires no defensive fire: no question, the melee follows, and
        // it engages whether it has acted or not.
        assert_eq!(charge(false, true, false), "accepted", "{rules}");
        assert_eq!(charge(false, true, true), "accepted", "{rules}");
        // Nor does it evade.
        let evader = if rules == "abdf" {
            "irregulars"
        } else {
            "skirmishers"
        };
        assert_eq!(
            code(
                rules,
                json!({"action":"charge","actor":{"type":knights,"bases":4},
                    "target":{"type":evader,"bases":2,"in_combat":true},"target_evades":true})
            ),
            "cannot-evade",
            "{rules}"
        );
    }
    // El Gran Capitán's missile troops may charge formed foot only in an ongoing combat (000,
    // "unless the Target of the Charge is already engaged in an ongoing combat").
    let shot = |fighting: bool| {
        code(
            "egc",
            json!({"action":"charge","actor":{"type":"arquebusiers","bases":3},
                "target":{"type":"french-italian-pike","bases":3,"in_combat":fighting}}),
        )
    };
    assert_eq!(shot(false), "missile-troops-charge");
    assert_eq!(shot(true), "accepted");
}

/// Both seeds: "If a Fire action has two Target units, then two calculations are performed with
/// the app to determine the results - one for each target unit". An activated Fire may name a
/// second target with the bases firing at it (the others fire at the first) and its cover: two
/// calculations, each as the Fire at that target alone with those bases, each shown by its
/// target in the odds. Fails on the code before, which refused a second target.
#[test]
fn a_fire_at_two_targets_is_two_calculations() {
    for (rules, firer, first, second) in [
        ("abdf", "archers", "mounted-knights", "dismounted-knights"),
        ("egc", "arquebusiers", "swiss-pike", "gendarmes"),
    ] {
        let two = json!({"action": "fire", "actor": {"type": firer, "bases": 4},
            "target": {"type": first, "bases": 4, "name": "First"}, "ground": "open",
            "second_target": {"type": second, "bases": 3, "name": "Second"},
            "second_firing_bases": 1, "second_ground": "rough-cover"});
        let alone = |target: &str, bases: u8, firing: u8, ground: &str| {
            report(
                rules,
                &json!({"action": "fire", "actor": {"type": firer, "bases": 4},
                    "target": {"type": target, "bases": bases}, "firing_bases": firing,
                    "ground": ground}),
            )
        };
        let both = report(rules, &two);
        let (a, b) = (
            alone(first, 4, 3, "open"),
            alone(second, 3, 1, "rough-cover"),
        );
        for value in ["no effect", "one level", "devastating"] {
            assert!(
                (both.p("First: fire", value) - a.p("fire", value)).abs() < 1e-12,
                "{rules} first {value}"
            );
            assert!(
                (both.p("Second: fire", value) - b.p("fire", value)).abs() < 1e-12,
                "{rules} second {value}"
            );
        }
        assert!(both.p("First: fire", "one level") > 0.0, "{rules}");
        assert_eq!(both.p("fire", "one level"), 0.0, "{rules}: named by target");
        // Without firing_bases the first target gets the bases not firing at the second; given,
        // the two may not use more bases than the unit has.
        let with = |extra: serde_json::Value| {
            let mut a = two.clone();
            for (k, v) in extra.as_object().expect("object") {
                a[k] = v.clone();
            }
            plan(rules, &a)
                .err()
                .map(|r| (r.code, r.field.unwrap_or_default()))
        };
        assert_eq!(with(json!({"firing_bases": 3})), None, "{rules}");
        assert_eq!(
            with(json!({"firing_bases": 4})),
            Some(("bad-firing-bases".into(), "second_firing_bases".into()))
        );
        assert_eq!(
            with(json!({"second_firing_bases": 4})),
            Some(("bad-firing-bases".into(), "second_firing_bases".into()))
        );
        assert_eq!(
            with(json!({"second_firing_bases": null})),
            Some(("missing-field".into(), "second_firing_bases".into()))
        );
        let mut lone = two.clone();
        lone.as_object_mut()
            .expect("object")
            .remove("second_target");
        assert_eq!(
            plan(rules, &lone).err().map(|r| (r.code, r.field)),
            Some(("field-not-used".into(), Some("second_firing_bases".into())))
        );
    }
}

//! The Sword and the Flame, Renaissance: every dice resolution against the figures worked out in
//! docs/rules/sword-and-flame-renaissance.md, rolling against the exact odds, and the refusals.

use serde_json::{json, Value};
use tercio_core::DiceStream;
use tercio_rules::odds::odds;
use tercio_rules::sword_and_flame_renaissance::{plan, resolve::spirit_target};

fn p(action: Value, facet: &str, pred: impl Fn(&str) -> bool) -> f64 {
    let r = odds(&plan(&action).unwrap_or_else(|e| panic!("{action}: {e}")));
    r.facets.iter().find(|f| f.facet == facet).map_or(0.0, |f| {
        f.values
            .iter()
            .filter(|(v, _)| pred(v))
            .map(|(_, p)| p)
            .sum()
    })
}

fn close(got: f64, want_percent: f64) {
    assert!(
        (got * 100.0 - want_percent).abs() < 0.006,
        "got {:.4}%, want {want_percent}%",
        got * 100.0
    );
}

fn at_least(n: u32) -> impl Fn(&str) -> bool {
    move |v| v.parse::<u32>().is_ok_and(|x| x >= n)
}

#[test]
fn fire_hits_follow_the_table_and_its_modifiers() {
    let arq = json!({"action": "fire", "weapon": "arquebus", "range": "short", "target_class": 1, "firers": 10});
    close(p(arq.clone(), "hits", at_least(1)), 98.65);
    close(p(arq.clone(), "hits", at_least(3)), 73.84);
    close(p(arq.clone(), "hits", at_least(5)), 24.85);
    let mut shaken = arq.clone();
    shaken["shaken"] = json!(true);
    close(p(shaken, "hits", at_least(3)), 61.72);
    let mut rain = arq.clone();
    rain["light_rain"] = json!(true);
    close(p(rain, "hits", at_least(3)), 47.44);
    let long = json!({"action": "fire", "weapon": "arquebus", "range": "long", "target_class": 2, "firers": 10});
    close(p(long, "hits", at_least(3)), 32.22);
    let gun = json!({"action": "fire", "weapon": "heavy-cannon", "range": "short", "target_class": 1, "firers": 4});
    close(p(gun, "hits", at_least(3)), 74.72);
    let reiters = json!({"action": "fire", "weapon": "pistol", "target_class": 2, "firers": 8, "double": true});
    close(p(reiters, "hits", at_least(5)), 36.98);
    // Decision 36: no automatic hits. A crossbow at Class IV in light rain cannot hit.
    let hopeless = json!({"action": "fire", "weapon": "crossbow", "target_class": 4, "firers": 10, "light_rain": true});
    close(p(hopeless, "hits", at_least(1)), 0.0);
}

#[test]
fn casualty_cards_put_an_ace_on_an_officer_one_time_in_thirteen() {
    // Given exactly 3 hits, at least one ace: 1 - C(48,3)/C(52,3) = 21.74%.
    let action = json!({"action": "fire", "weapon": "arquebus", "target_class": 1, "firers": 3});
    let joint = plan(&action).expect("plan").exact(|o| {
        let get = |k: &str| {
            o.facets
                .iter()
                .find(|(f, _)| f == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        (get("hits"), get("officers hit"))
    });
    let three = joint.p(|(h, _)| h == "3");
    let with_ace = joint.p(|(h, o)| h == "3" && o != "0");
    close(with_ace / three, 21.74);
    // A roll draws one card per hit, each named.
    let mut s = DiceStream::from_seed(12);
    for _ in 0..30 {
        let (o, draws) = plan(&action).expect("plan").roll(&mut s);
        let hits: usize = o
            .facets
            .iter()
            .find(|(f, _)| f == "hits")
            .and_then(|(_, v)| v.parse().ok())
            .expect("hits");
        assert_eq!(
            draws
                .iter()
                .filter(|d| d.label.starts_with("Casualty card")
                    && d.card
                    && (1..=52).contains(&d.face))
                .count(),
            hits
        );
        if hits > 0 {
            assert!(
                o.resolution.steps[1].result.starts_with("cards "),
                "{:?}",
                o.resolution
            );
        }
    }
}

#[test]
fn the_morale_table_passes_as_designed() {
    let m = |test: &str, extra: Value| {
        let mut a = json!({"action": "morale", "test": test});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            a[k] = v;
        }
        p(a, "passed", |v| v == "yes")
    };
    close(m("to-close", json!({})), 72.22);
    close(m("to-stand", json!({})), 83.33);
    close(m("stand-and-fight", json!({})), 58.33);
    close(m("stand-and-fight", json!({"shaken": true})), 41.67);
    // Decision 2: a spent unit at the start of a turn, Stand and Fight at −2.
    close(m("stand-and-fight", json!({"spent": true})), 27.78);
    // Decision 7: leaderless −2 on every test; an attached field officer stands in and adds +1.
    close(m("stand-and-fight", json!({"leaderless": true})), 27.78);
    close(
        m(
            "stand-and-fight",
            json!({"leaderless": true, "field_officer": true}),
        ),
        72.22,
    );
    close(
        m(
            "to-close",
            json!({"swiss_vs_pikes": true, "field_officer": true}),
        ),
        91.67,
    );
    // The to-close bonuses do not apply to other tests.
    close(m("to-stand", json!({"swiss_vs_pikes": true})), 83.33);
    close(
        m("stand-and-fight", json!({"attacked_in_rear": true})),
        27.78,
    );
    close(
        m(
            "stand-and-fight",
            json!({"infantry_breaking_off_from_cavalry": true}),
        ),
        27.78,
    );
    close(m("to-stand", json!({"artillerists": true})), 0.0);
}

fn bout(version: &str, a: Value, b: Value) -> Value {
    json!({"action": "bout", "version": version, "a": a, "b": b})
}

#[test]
fn close_combat_bouts_match_the_worked_odds() {
    // Without an order a fighter has its type's own: gendarmes open, pikes closed.
    let gendarmes = json!({"type": "gendarmes", "lance": true});
    let pike = json!({"type": "pikemen"});
    // Gendarmes (open order) with lances against closed pike to its front: +2 +1 −2 −1 = 0 with
    // win ties, against +2 with win ties; equal totals are thrown again.
    let b = bout("figure", gendarmes.clone(), pike.clone());
    close(p(b.clone(), "winner", |v| v == "A"), 18.75);
    let killed = |b: &Value, winner: &'static str| {
        let joint = plan(b).expect("plan").exact(|o| o.facets.clone());
        joint.p(|f| {
            f.iter().any(|(k, v)| k == "winner" && v == winner)
                && f.iter().any(|(k, v)| k == "loser killed" && v == "yes")
        })
    };
    close(killed(&b, "A"), 15.62);
    close(killed(&b, "B"), 37.50);
    let c = bout("company", gendarmes.clone(), pike.clone());
    let lost = |b: &Value, winner: &'static str, n: &'static str| {
        let joint = plan(b).expect("plan").exact(|o| o.facets.clone());
        joint.p(|f| {
            f.iter().any(|(k, v)| k == "winner" && v == winner)
                && f.iter().any(|(k, v)| k == "figures lost" && v == n)
        })
    };
    close(lost(&c, "A", "0"), 3.12);
    close(lost(&c, "A", "1"), 6.25);
    close(lost(&c, "A", "2"), 9.38);
    close(lost(&c, "B", "0"), 15.62);
    close(lost(&c, "B", "1"), 12.50);
    close(lost(&c, "B", "2"), 53.12);
    // Their lances spent: −1 with win ties against +2: 3 of the 33 decided throws.
    let spent = bout(
        "figure",
        json!({"type": "gendarmes", "order": "open"}),
        pike.clone(),
    );
    close(p(spent, "winner", |v| v == "A"), 9.09);
    // Swiss against Landsknecht pike, fronts: even.
    let swiss = bout(
        "company",
        json!({"type": "pikemen"}),
        json!({"type": "pikemen"}),
    );
    close(p(swiss.clone(), "winner", |v| v == "A"), 50.0);
    close(lost(&swiss, "A", "2"), 40.0);
    // Open-order arquebusiers against closed pike: never win a bout.
    let arq = bout(
        "company",
        json!({"type": "arquebusiers", "order": "open"}),
        pike.clone(),
    );
    close(p(arq.clone(), "winner", |v| v == "A"), 0.0);
    close(lost(&arq, "B", "2"), 50.0);
    // Halberdiers against pike in broken ground (decision 25): the pike has the bare die.
    let hal = bout(
        "figure",
        json!({"type": "halberdiers", "order": "open"}),
        json!({"type": "pikemen", "broken_ground": true}),
    );
    close(p(hal.clone(), "winner", |v| v == "A"), 72.22);
    close(killed(&hal, "A"), 33.33);
    close(killed(&hal, "B"), 19.44);
    // Gendarmes with lances against reiters (reiters' +1 does not count against gendarmes).
    close(
        p(
            bout(
                "figure",
                gendarmes,
                json!({"type": "reiters", "order": "open"}),
            ),
            "winner",
            |v| v == "A",
        ),
        91.67,
    );
}

#[test]
fn rolled_bouts_agree_with_their_exact_odds() {
    let b = bout(
        "figure",
        json!({"type": "gendarmes", "order": "open", "lance": true}),
        json!({"type": "pikemen"}),
    );
    let exact = p(b.clone(), "winner", |v| v == "A");
    let mut s = DiceStream::from_seed(77);
    let n = 20_000;
    let mut wins = 0;
    for _ in 0..n {
        let (o, draws) = plan(&b).expect("plan").roll(&mut s);
        // Both win ties (+2 and +2 with the open-order −1 and lance): every throw before the
        // last had equal totals, A's die two below B's... i.e. a + 0 == b + 2.
        let pairs: Vec<_> = draws.chunks(2).collect();
        let (last, before) = pairs.split_last().expect("a throw");
        assert!(
            before
                .iter()
                .all(|p| i32::from(p[0].face) == i32::from(p[1].face) + 2),
            "{draws:?}"
        );
        assert_ne!(i32::from(last[0].face), i32::from(last[1].face) + 2);
        if o.facets.iter().any(|(k, v)| k == "winner" && v == "A") {
            wins += 1;
        }
    }
    let f = f64::from(wins) / f64::from(n);
    let sigma = (exact * (1.0 - exact) / f64::from(n)).sqrt();
    assert!((f - exact).abs() < 5.0 * sigma, "rolled {f}, exact {exact}");
}

#[test]
fn the_spirit_of_the_army_follows_the_worked_example() {
    // 10 units and 6 guns. Turn 1: 6 fresh units, 4 worn, 6 fresh guns → 14 points → 9.
    assert_eq!(spirit_target(6 + 6, 4, 16), 9);
    // Turn 2: 5 fresh, 4 worn, 1 spent, 4 fresh guns, 2 worn guns → 12 points → 8.
    assert_eq!(spirit_target(5 + 4, 4 + 2, 16), 8);
    assert_eq!(spirit_target(16, 0, 16), 10);
    close(
        p(
            json!({"action": "spirit", "fresh": 12, "worn": 4, "start": 16}),
            "spirit",
            |v| v == "good",
        ),
        90.0,
    );
}

#[test]
fn movement_dice_lose_for_the_ground_but_never_below_one() {
    let dice = |a: Value| {
        let (_, draws) = plan(&a).expect("plan").roll(&mut DiceStream::from_seed(1));
        draws.len()
    };
    assert_eq!(
        dice(json!({"action": "move", "type": "pikemen", "order": "closed"})),
        2
    );
    assert_eq!(
        dice(
            json!({"action": "move", "type": "pikemen", "order": "closed", "uphill": true, "woods": true})
        ),
        1
    );
    assert_eq!(
        dice(json!({"action": "move", "type": "gendarmes", "order": "open", "woods": true})),
        3
    );
    assert_eq!(
        dice(
            json!({"action": "move", "type": "arquebusiers", "order": "skirmish", "uphill": true, "obstacle": true})
        ),
        3
    );
    assert_eq!(
        dice(
            json!({"action": "move", "type": "light-horse-spear", "order": "open", "uphill": true})
        ),
        5
    );
    // Loading arquebusiers on foot move half, rounded down.
    let (o, draws) =
        plan(&json!({"action": "move", "type": "arquebusiers", "order": "open", "loading": true}))
            .expect("plan")
            .roll(&mut DiceStream::from_seed(3));
    let rolled: u32 = draws.iter().map(|d| u32::from(d.face)).sum();
    assert!(o
        .facets
        .contains(&("inches".to_string(), (rolled / 2).to_string())));
}

#[test]
fn impossible_requests_are_refused_naming_the_field() {
    for (a, field) in [
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 5, "firers": 3}),
            "target_class",
        ),
        (
            json!({"action": "fire", "weapon": "crossbow", "target_class": 2, "firers": 3, "double": true}),
            "double",
        ),
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 2, "firers": 0}),
            "firers",
        ),
        (
            json!({"action": "fire", "weapon": "musket", "target_class": 2, "firers": 3}),
            "weapon",
        ),
        (
            bout(
                "figure",
                json!({"type": "arquebusiers", "order": "skirmish"}),
                json!({"type": "pikemen"}),
            ),
            "a.order",
        ),
        (
            bout(
                "figure",
                json!({"type": "gendarmes", "order": "closed"}),
                json!({"type": "pikemen"}),
            ),
            "a.order",
        ),
        (
            bout(
                "figure",
                json!({"type": "reiters", "lance": true}),
                json!({"type": "pikemen"}),
            ),
            "a.lance",
        ),
        (
            bout(
                "figure",
                json!({"type": "gendarmes"}),
                json!({"type": "pikemen", "square": true, "attacked_in_rear": true}),
            ),
            "b.attacked_in_rear",
        ),
        (
            bout(
                "figure",
                json!({"type": "gendarmes", "square": true}),
                json!({"type": "pikemen"}),
            ),
            "a.square",
        ),
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 2, "firers": 21}),
            "firers",
        ),
        (
            json!({"action": "fire", "weapon": "pistol", "range": "long", "target_class": 2, "firers": 4}),
            "range",
        ),
        (
            json!({"action": "move", "type": "gendarmes", "dismounting": true}),
            "dismounting",
        ),
        (
            bout(
                "figure",
                json!({"type": "pikemen"}),
                json!({"type": "heavy-gun"}),
            ),
            "b.type",
        ),
        (
            bout(
                "company",
                json!({"type": "pikemen", "missing": 5}),
                json!({"type": "pikemen"}),
            ),
            "a.missing",
        ),
        (json!({"action": "move", "type": "heavy-gun"}), "type"),
        (
            json!({"action": "move", "type": "light-gun", "woods": true}),
            "woods",
        ),
        (
            json!({"action": "spirit", "fresh": 10, "worn": 10, "start": 16}),
            "fresh",
        ),
        (
            json!({"action": "morale", "test": "to-close", "bogus": true}),
            "bogus",
        ),
    ] {
        match plan(&a) {
            Err(r) => assert_eq!(r.field.as_deref(), Some(field), "{a}: {r}"),
            Ok(_) => panic!("{a} should be refused"),
        }
    }
}

#[test]
fn whole_close_combats_come_out_as_the_design_computed() {
    let combat = |a: Value, b: Value| json!({"action": "close-combat", "version": "company", "a": a, "b": b});
    // Swiss pike (two leaders, each in one of the last companies) against Landsknecht pike (one).
    let swiss = combat(
        json!({"type": "pikemen", "figures": 20, "leaders": 2}),
        json!({"type": "pikemen", "figures": 20, "leaders": 1}),
    );
    close(p(swiss.clone(), "winner", |v| v == "A"), 60.11);
    // Open-order halberdiers against closed pike to its front.
    let hal = combat(
        json!({"type": "halberdiers", "order": "open", "figures": 20}),
        json!({"type": "pikemen", "figures": 20}),
    );
    close(p(hal, "winner", |v| v == "A"), 0.26);
    // Rolled: one side's queue is empty at the end, and the losses add up from the bouts.
    let mut s = DiceStream::from_seed(8);
    for _ in 0..20 {
        let (o, _) = plan_of(&swiss).roll(&mut s);
        let lost: u32 = o
            .resolution
            .steps
            .iter()
            .filter_map(|st| st.result.split("losing ").nth(1))
            .filter_map(|x| x.split(' ').next()?.parse::<u32>().ok())
            .sum();
        let total: u32 = ["A figures lost", "B figures lost"]
            .iter()
            .map(|k| {
                o.facets
                    .iter()
                    .find(|(f, _)| f == k)
                    .and_then(|(_, v)| v.parse::<u32>().ok())
                    .unwrap_or(0)
            })
            .sum();
        assert_eq!(lost, total, "{}", o.resolution.render());
    }
}

fn plan_of(a: &Value) -> tercio_core::Plan<tercio_rules::Outcome> {
    plan(a).expect("plan")
}

#[test]
fn refusals_inside_a_fighter_name_the_fighter() {
    for (a, field) in [
        (
            json!({"action": "bout", "a": {"type": "gendarmes", "lances": true}, "b": {"type": "pikemen"}}),
            "a.lances",
        ),
        (
            json!({"action": "bout", "a": {"type": "gendarmes"}, "b": {"type": "pikemen", "order": "diagonal"}}),
            "b.order",
        ),
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 2, "firers": 300}),
            "firers",
        ),
    ] {
        match plan(&a) {
            Err(r) => assert_eq!(r.field.as_deref(), Some(field), "{a}: {r}"),
            Ok(_) => panic!("{a} should be refused"),
        }
    }
}

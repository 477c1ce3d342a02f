//! Commands & Colors ECW: battle rolls against the worked figures of design 9.2
//! (`docs/rules/commands-colors-ecw.md`), computed there exactly with fractions.

use serde_json::{json, Value};
use tercio_core::DiceStream;
use tercio_i18n::{localize, Lang};
use tercio_rules::commands_colors_ecw::resolve::{plan, BattleRequest};
use tercio_rules::odds::{odds, OddsReport};

fn battle(v: Value) -> OddsReport {
    let req: BattleRequest = serde_json::from_value(v).expect("request");
    let p = plan(&req).unwrap_or_else(|r| panic!("{r}"));
    let o = english(odds(&p));
    assert!((o.total - 1.0).abs() < 1e-12);
    o
}

/// The report's facets and values rendered in English (the engine's are messages).
fn english(mut o: OddsReport) -> OddsReport {
    for f in &mut o.facets {
        f.facet = localize(Lang::En, &f.facet);
        for v in &mut f.values {
            v.0 = localize(Lang::En, &v.0);
        }
    }
    o
}

fn lost(o: &OddsReport, k: u32) -> f64 {
    o.p("blocks lost", &k.to_string())
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 5e-5, "{a} != {b}");
}

#[test]
fn foot_against_foot_in_melee_and_at_range() {
    // 1: trained FT with pikes, 4 blocks (4+1 dice) vs trained FT 4 blocks: 3/16 eliminated.
    let melee = json!({"kind": "melee",
        "roller": {"class": "foot", "blocks": 4, "training": "trained"},
        "target": {"class": "foot", "blocks": 4, "training": "trained"}});
    let o = battle(melee.clone());
    close(o.p("eliminated", "yes"), 3.0 / 16.0);
    close(lost(&o, 2), 0.3125);
    // 1b: the defender has a leader and its back to a river (room 0): 917/3888.
    let mut b = melee.clone();
    b["target"]["leader"] = json!(true);
    b["target"]["retreat_room"] = json!(0);
    close(battle(b).p("eliminated", "yes"), 917.0 / 3888.0);
    // 2: the same foot at range (4-1 dice): blocks lost 29.63 / 44.44 / 22.22 / 3.70%.
    let o = battle(json!({"kind": "ranged",
        "roller": {"class": "foot", "blocks": 4, "training": "trained"},
        "target": {"class": "foot", "blocks": 4, "training": "trained"}}));
    for (k, p) in [
        (0, 8.0 / 27.0),
        (1, 12.0 / 27.0),
        (2, 6.0 / 27.0),
        (3, 1.0 / 27.0),
    ] {
        close(lost(&o, k), p);
    }
}

#[test]
fn horse_sabres_and_cuirassiers() {
    // 3: veteran rash GA, 3 blocks, attacking (3+1+1+1) vs trained TR 3 blocks: 233/729.
    let ga = json!({"kind": "melee",
        "roller": {"class": "gallopers", "blocks": 3, "training": "veteran", "rash": true},
        "target": {"class": "trotters", "blocks": 3, "training": "trained"}});
    close(battle(ga.clone()).p("eliminated", "yes"), 233.0 / 729.0);
    // 4: the same against cuirassiers, whom sabres do not hit: 1453/23328.
    let mut cu = ga.clone();
    cu["target"]["class"] = json!("cuirassiers");
    close(battle(cu).p("eliminated", "yes"), 1453.0 / 23328.0);
    // 7: raw TR (no sabres) vs veteran FT 4 blocks (ignores a flag): never eliminated; it
    // retreats only on two or more flags of three dice: 2/27 = 7.41%.
    let o = battle(json!({"kind": "melee",
        "roller": {"class": "trotters", "blocks": 3, "training": "raw"},
        "target": {"class": "foot", "blocks": 4, "training": "veteran"}}));
    close(o.p("eliminated", "yes"), 0.0);
    let retreats: f64 = ["1", "2"].iter().map(|h| o.p("retreat hexes", h)).sum();
    close(retreats, 2.0 / 27.0);
}

#[test]
fn raw_and_militia_retreat_further_and_pay_for_blocked_hexes() {
    // 5: trained GA 3 blocks (3+1) vs raw FT 3 blocks, no pikes, room 2: 23/54.
    let o = battle(json!({"kind": "melee",
        "roller": {"class": "gallopers", "blocks": 3, "training": "trained"},
        "target": {"class": "foot", "blocks": 3, "training": "raw", "retreat_room": 2}}));
    close(o.p("eliminated", "yes"), 23.0 / 54.0);
    // 6: trained TR 3 blocks vs militia clubmen 3 blocks, room 3: 43/216.
    let o = battle(json!({"kind": "melee",
        "roller": {"class": "trotters", "blocks": 3, "training": "trained"},
        "target": {"class": "clubmen", "blocks": 3, "training": "militia", "retreat_room": 3}}));
    close(o.p("eliminated", "yes"), 43.0 / 216.0);
}

#[test]
fn dragoons_artillery_and_retire_and_reform() {
    // 11: dismounted dragoons, 3 blocks (2 dice) at horse: 69.44 / 27.78 / 2.78%.
    let o = battle(json!({"kind": "ranged",
        "roller": {"class": "dragoons", "blocks": 3, "training": "trained"},
        "target": {"class": "trotters", "blocks": 3, "training": "trained"}}));
    for (k, p) in [(0, 25.0 / 36.0), (1, 10.0 / 36.0), (2, 1.0 / 36.0)] {
        close(lost(&o, k), p);
    }
    // 10: 2-block artillery at foot: 44.44 / 44.44 / 11.11%.
    let o = battle(json!({"kind": "ranged",
        "roller": {"class": "artillery", "blocks": 2, "training": "trained"},
        "target": {"class": "foot", "blocks": 3, "training": "trained"}}));
    for (k, p) in [(0, 4.0 / 9.0), (1, 4.0 / 9.0), (2, 1.0 / 9.0)] {
        close(lost(&o, k), p);
    }
    // 12: trained FT with pikes, 4 blocks (5) vs 3-block horse that Retires and Reforms: 23/648.
    let o = battle(json!({"kind": "melee",
        "roller": {"class": "foot", "blocks": 4, "training": "trained"},
        "target": {"class": "trotters", "blocks": 3, "training": "trained", "retiring": true}}));
    close(o.p("eliminated", "yes"), 23.0 / 648.0);
    // It goes 2 hexes back unless eliminated (CCN tactics; decision 25), flags or not.
    close(o.p("retreat hexes", "2"), 1.0 - 23.0 / 648.0);
    close(o.p("retreat hexes", "0"), 23.0 / 648.0);
}

#[test]
fn refusals_name_the_field_and_rolls_record_every_die() {
    let bad = |v: Value| -> String {
        let req: BattleRequest = serde_json::from_value(v).expect("request");
        plan(&req).err().expect("refused").field.unwrap_or_default()
    };
    assert_eq!(
        bad(json!({"kind": "ranged",
            "roller": {"class": "trotters", "blocks": 3, "training": "trained"},
            "target": {"class": "foot", "blocks": 3, "training": "trained"}})),
        "roller.class"
    );
    assert_eq!(
        bad(json!({"kind": "ranged",
            "roller": {"class": "dragoons", "blocks": 3, "training": "trained", "mounted": true},
            "target": {"class": "foot", "blocks": 3, "training": "trained"}})),
        "roller.mounted"
    );
    assert_eq!(
        bad(json!({"kind": "battle-back",
            "roller": {"class": "foot", "blocks": 3, "training": "trained", "card_bonus": 1},
            "target": {"class": "foot", "blocks": 3, "training": "trained"}})),
        "roller.card_bonus"
    );
    let req: BattleRequest = serde_json::from_value(json!({"kind": "melee",
        "roller": {"class": "foot", "blocks": 4, "training": "veteran"},
        "target": {"class": "foot", "blocks": 4, "training": "trained"}}))
    .expect("request");
    let (o, draws) = plan(&req)
        .expect("plan")
        .roll(&mut DiceStream::from_seed(5));
    assert_eq!(draws.len(), 6, "4 blocks + pikes + veteran");
    assert_eq!(o.resolution.steps[0].dice.len(), 6);
}

fn melee_odds(v: Value) -> OddsReport {
    let req: tercio_rules::commands_colors_ecw::resolve::MeleeRequest =
        serde_json::from_value(v).expect("request");
    let p =
        tercio_rules::commands_colors_ecw::resolve::melee(&req).unwrap_or_else(|r| panic!("{r}"));
    let o = english(odds(&p));
    assert!((o.total - 1.0).abs() < 1e-12);
    o
}

#[test]
fn a_melee_and_its_battle_back() {
    // 1c: example 1 followed by the battle back when the defender holds (no flag): the attacker
    // loses at least one block 53/243; expected blocks lost 0.350.
    let o = melee_odds(json!({
        "attacker": {"class": "foot", "blocks": 4, "training": "trained"},
        "defender": {"class": "foot", "blocks": 4, "training": "trained"}}));
    let p = |k: u32| o.p("attacker blocks lost", &k.to_string());
    let at_least_one: f64 = (1..=4).map(p).sum();
    close(at_least_one, 53.0 / 243.0);
    let expected: f64 = (1..=4).map(|k| f64::from(k) * p(k)).sum();
    assert!((expected - 0.350).abs() < 0.0005, "{expected}");
}

#[test]
fn horse_against_a_stand_of_pikes() {
    let charge = |defender: Value| {
        melee_odds(json!({
            "attacker": {"class": "trotters", "blocks": 3, "training": "trained"},
            "defender": defender,
            "stand_of_pikes": true}))
    };
    // 8: one die; a block lost on a hit (3/6) or a flag it cannot take (1/6).
    let o = charge(json!({"class": "foot", "blocks": 3, "training": "trained"}));
    close(o.p("defender blocks lost", "1"), 4.0 / 6.0);
    close(o.p("defender retreat hexes", "0"), 1.0);
    // 8b: with a leader the flag is ignored: 50%.
    let o = charge(json!({"class": "foot", "blocks": 3, "training": "trained", "leader": true}));
    close(o.p("defender blocks lost", "1"), 0.5);
    // 8c: raw foot: a flag costs two blocks.
    let o = charge(json!({"class": "foot", "blocks": 3, "training": "raw"}));
    close(o.p("defender blocks lost", "2"), 1.0 / 6.0);
    // 9: the stand battles back with one die: the trotters lose a block on a cavalry symbol or
    // a sabre (1/3), whenever the stand still stands (always: it never retreats).
    let o = charge(json!({"class": "foot", "blocks": 3, "training": "trained"}));
    close(o.p("battle back", "yes"), 1.0);
    close(o.p("attacker blocks lost", "1"), 1.0 / 3.0);
    close(o.p("attacker retreat hexes", "1"), 1.0 / 6.0);
    // Only foot with pikes against horse forms it.
    let req: tercio_rules::commands_colors_ecw::resolve::MeleeRequest =
        serde_json::from_value(json!({
        "attacker": {"class": "foot", "blocks": 3, "training": "trained"},
        "defender": {"class": "foot", "blocks": 3, "training": "trained"},
        "stand_of_pikes": true}))
        .expect("request");
    let r = tercio_rules::commands_colors_ecw::resolve::melee(&req)
        .err()
        .expect("refused");
    assert_eq!(r.field.as_deref(), Some("stand_of_pikes"));
}

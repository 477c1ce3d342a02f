//! The Sword and the Flame, Renaissance, as a game bound to the engine: scenarios, forms, seats,
//! and the parts of the turn beyond the basic steps (evasion, field officers, Quicker Movement,
//! brigades, dismounting, weather, reiters' pistols as a charge closes).

use serde_json::{json, Value};
use tercio_i18n::{localize, Lang};
use tercio_rules::game::Game;
use tercio_rules::odds::OddsReport;
use tercio_rules::scenario::parse;
use tercio_rules::{lookup, Engine};

const BASE: &str = r#"
ruleset = "tsatf"
title = "Test"
[[sides]]
id = "french"
name = "French"
role = "attacker"
colour = "blue"
camp = false
[[sides]]
id = "imperial"
name = "Imperial"
role = "defender"
colour = "red"
camp = false
[[leaders]]
id = "gen-f"
name = "General F"
side = "french"
bonus = 0
rank = "army"
[[leaders]]
id = "gen-i"
name = "General I"
side = "imperial"
bonus = 0
rank = "army"
[[leaders]]
id = "col-i"
name = "Colonel I"
side = "imperial"
bonus = 0
rank = "battle"
[[units]]
id = "gd"
name = "Gendarmes"
side = "french"
type = "gendarmes"
figures = 12
leader = "gen-f"
[[units]]
id = "lh"
name = "Stradiots"
side = "french"
type = "light-horse-crossbow"
figures = 12
leader = "gen-f"
[[units]]
id = "arq"
name = "Arquebusiers"
side = "imperial"
type = "arquebusiers"
figures = 20
leader = "gen-i"
[[units]]
id = "pk"
name = "Swiss"
side = "imperial"
type = "pikemen"
figures = 20
flags = ["swiss", "with-arquebusiers", "brigade"]
leader = "col-i"
[[units]]
id = "pk2"
name = "Pikes"
side = "imperial"
type = "pikemen"
figures = 20
flags = ["brigade"]
leader = "col-i"
[[units]]
id = "rt"
name = "Reiters"
side = "imperial"
type = "reiters"
figures = 12
leader = "gen-i"
[[units]]
id = "hg"
name = "Great gun"
side = "imperial"
type = "heavy-gun"
figures = 4
leader = "gen-i"
"#;

/// A text of the engine (a language-neutral message) as an English reader sees it.
fn en(s: &str) -> String {
    localize(Lang::En, s)
}

/// The odds of a plan, its facets' names and values as an English reader sees them.
fn odds(plan: &tercio_core::Plan<tercio_rules::Outcome>) -> OddsReport {
    let mut o = tercio_rules::odds::odds(plan);
    for f in &mut o.facets {
        f.facet = en(&f.facet);
        for v in &mut f.values {
            v.0 = en(&v.0);
        }
    }
    o
}

fn game(house_rules: &str) -> Game {
    let src = format!("{BASE}\n[house_rules]\n{house_rules}\n");
    let sc = parse("test.toml", &src).unwrap_or_else(|d| panic!("{d:?}"));
    Game::new(sc, 7).expect("game")
}

fn engine(g: &Game) -> Box<dyn Engine> {
    g.engine().expect("engine")
}

/// The state with some fields changed.
fn with(g: &Game, f: impl FnOnce(&mut Value)) -> Value {
    let mut st = g.state.clone();
    f(&mut st);
    st
}

fn p(e: &dyn Engine, st: &Value, a: Value, facet: &str, value: &str) -> f64 {
    let plan = e.plan(Some(st), &a).unwrap_or_else(|r| panic!("{r}"));
    let o = odds(&plan);
    assert!((o.total - 1.0).abs() < 1e-9, "{}", o.total);
    o.p(facet, value)
}

fn rejected(e: &dyn Engine, st: &Value, a: Value) -> tercio_rules::Rejection {
    match e.plan(Some(st), &a) {
        Err(r) => r,
        Ok(_) => panic!("accepted: {a}"),
    }
}

#[test]
fn the_rule_set_is_available_and_scenarios_count_figures() {
    let r = lookup("tsatf").expect("listed");
    assert!(r.available());
    assert_eq!(r.unit_size().0, "figures");
    let g = game("");
    // A Swiss pike formation with an arquebus sub-unit: 25 figures, two leaders (decisions 6, 30).
    assert_eq!(g.state["units"]["pk"]["figures"], 25);
    assert_eq!(g.state["units"]["pk"]["leaders"], 2);
    assert_eq!(g.state["units"]["pk2"]["leaders"], 1);
    assert_eq!(g.state["units"]["hg"]["leaders"], 0);
    // Spirit count: every unit and gun (decision 39).
    assert_eq!(g.state["sides"][1]["start"], 5);
    // Field officers from the scenario's leaders.
    assert_eq!(g.state["officers"]["col-i"]["rank"], "colonel");
    // Brigade only when the flag names a colonel's unit.
    assert_eq!(g.state["units"]["pk"]["brigade"], "col-i");
    assert!(g.state["units"]["arq"]["brigade"].is_null());
    // Bad flags and sizes are named with their place.
    let bad = BASE.replace(
        "figures = 20\nleader = \"gen-i\"",
        "figures = 50\nleader = \"gen-i\"",
    );
    let d = parse("bad.toml", &bad).expect_err("size");
    assert!(format!("{d:?}").contains("figures"), "{d:?}");
    let bad = BASE.replace(r#"flags = ["brigade"]"#, r#"flags = ["with-gendarmes"]"#);
    let d = parse("bad.toml", &bad).expect_err("flag");
    assert!(format!("{d:?}").contains("with-arquebusiers"), "{d:?}");
}

#[test]
fn forms_follow_the_turn_and_the_seat() {
    let g = game("");
    let e = engine(&g);
    let gm: Vec<String> = e
        .forms(&g.state, None)
        .into_iter()
        .map(|f| f.action)
        .collect();
    assert_eq!(gm.first().map(String::as_str), Some("start-turn"));
    assert!(gm.contains(&"attach".to_string()));
    // A side has no turn steps, only its own officers.
    let side = e.forms(&g.state, Some("french"));
    assert!(side.iter().all(|f| f.action != "start-turn"));
    // With a black card drawn in the fire step, the imperial seat fires; the French seat has
    // nothing of it.
    let st = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
    });
    let imp = e.forms(&st, Some("imperial"));
    let fire = imp.iter().find(|f| f.action == "fire").expect("fire form");
    assert!(fire.primary);
    let units = serde_json::to_value(&fire.fields[0]).expect("json");
    let ids: Vec<&str> = units["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["value"].as_str())
        .collect();
    // Units able to fire: the arquebusiers, the pike with its shot, the reiters, the gun.
    assert_eq!(ids, ["arq", "hg", "pk", "rt"]);
    // The target class and the officer in the cone are the game master's to say.
    assert!(fire.fields.iter().all(|f| f.name != "target_class"));
    assert!(e
        .forms(&st, Some("french"))
        .iter()
        .all(|f| f.action != "fire"));
    // The acting side of an action is its unit's.
    let a = json!({"action": "fire", "unit": "arq", "target": "gd"});
    assert_eq!(e.acting_side(&st, &a).as_deref(), Some("imperial"));
    assert_eq!(e.acting_side(&st, &json!({"action": "draw"})), None);
    // The board says whose card it is.
    let board = e.board(&st).expect("board");
    let headline = tercio_i18n::localize(tercio_i18n::Lang::En, &board.headline);
    assert!(headline.contains("Imperial names a unit"), "{headline}");
}

#[test]
fn fire_defaults_come_from_the_units() {
    let g = game("");
    let e = engine(&g);
    let st = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
    });
    // The pike formation fires with its five arquebusiers (decision 30) at Class II horse:
    // P(no hit) = (15/20)^5.
    let none = p(
        e.as_ref(),
        &st,
        json!({"action": "fire", "unit": "pk", "target": "gd", "range": "short"}),
        "hits",
        "0",
    );
    assert!((none - 0.75f64.powi(5)).abs() < 1e-12, "{none}");
    // More firers than carry the weapon are refused, naming the field.
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "fire", "unit": "pk", "target": "gd", "firers": 6}),
    );
    assert_eq!(r.field.as_deref(), Some("firers"));
    // Light rain: +2 to each die; the arquebus hits Class II on 1-3 at short range.
    let rain = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
        s["light_rain"] = json!(true);
    });
    let none = p(
        e.as_ref(),
        &rain,
        json!({"action": "fire", "unit": "pk", "target": "gd", "range": "short"}),
        "hits",
        "0",
    );
    assert!((none - 0.85f64.powi(5)).abs() < 1e-12, "{none}");
}

#[test]
fn an_ace_takes_the_field_officer_named_in_the_cone_first() {
    let mut g = game("");
    g.state["phase"] = json!("fire");
    g.state["current"] = json!("imperial");
    // Roll until a fire draws an ace, on fresh copies of the game (the seed's stream moves on).
    for seed in 0..400u64 {
        let mut h = g.clone();
        h.seed = seed;
        let ev = h
            .act(json!({"action": "fire", "unit": "arq", "target": "gd", "range": "short", "firers": 20, "officer": "gen-f"}))
            .expect("fire")
            .clone();
        // The aces among the casualty cards drawn (the cards are named, "A♠"...).
        let aces = ev
            .resolution
            .steps
            .iter()
            .find(|s| en(&s.title).starts_with("Casualty cards"))
            .map_or(0, |s| en(&s.result).matches('A').count() as u8);
        if aces == 0 {
            continue;
        }
        let hits: u8 = ev
            .resolution
            .steps
            .iter()
            .flat_map(|s| s.totals.iter())
            .find(|(k, _)| en(k) == "hits")
            .map_or(0, |(_, v)| *v as u8);
        assert_eq!(h.state["officers"]["gen-f"]["down"], true);
        // The officer is not a figure of the unit: one hit fewer on it; further aces take its
        // leader.
        let figures = h.state["units"]["gd"]["figures"].as_u64().expect("n") as u8;
        assert_eq!(figures, 12 - (hits - 1), "hits {hits}");
        let leaders = h.state["units"]["gd"]["leaders"].as_u64().expect("n") as u8;
        assert_eq!(leaders, 1 - (aces - 1).min(1));
        return;
    }
    panic!("no ace in 400 fires");
}

#[test]
fn an_attached_officer_adds_one_to_morale_and_moves_once() {
    let mut g = game("");
    g.act(json!({"action": "attach", "officer": "col-i", "unit": "pk2"}))
        .expect("attach");
    assert_eq!(g.state["units"]["pk2"]["field_officer"], true);
    assert_eq!(g.state["officers"]["col-i"]["attached"], "pk2");
    // Moving him to another unit takes his +1 with him.
    g.act(json!({"action": "attach", "officer": "col-i", "unit": "arq"}))
        .expect("attach");
    assert_eq!(g.state["units"]["pk2"]["field_officer"], false);
    assert_eq!(g.state["units"]["arq"]["field_officer"], true);
    // His own move, 6D6, once in the movement step (decision 19).
    let e = engine(&g);
    let st = with(&g, |s| s["phase"] = json!("movement"));
    let at_least_6 = p(
        e.as_ref(),
        &st,
        json!({"action": "officer-move", "officer": "gen-f"}),
        "inches",
        "6",
    );
    assert!((at_least_6 - 1.0 / 6f64.powi(6)).abs() < 1e-15);
    let st = with(&g, |s| {
        s["phase"] = json!("movement");
        s["officers"]["gen-f"]["moved"] = json!(true);
    });
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "officer-move", "officer": "gen-f"}),
    );
    assert_eq!(r.code, "already-moved");
    // An officer of the other side is refused, naming the field.
    let r = rejected(
        e.as_ref(),
        &g.state,
        json!({"action": "attach", "officer": "gen-f", "unit": "arq"}),
    );
    assert_eq!(r.field.as_deref(), Some("unit"));
}

#[test]
fn quicker_movement_rolls_a_d4_capped_at_the_units_left() {
    let mut g = game("options.quicker_movement = 1");
    g.act(json!({"action": "start-turn"})).expect("start");
    let e = engine(&g);
    // Imperial has five units: the D4 stands; French has two: 3 and 4 become 2.
    let p_units = |v: &str| p(e.as_ref(), &g.state, json!({"action": "draw"}), "units", v);
    assert!((p_units("2") - (0.5 * 0.75 + 0.5 * 0.25)).abs() < 1e-12);
    assert!((p_units("4") - 0.5 * 0.25).abs() < 1e-12);
    // A card for three units lets three move, then the next card.
    let st = with(&g, |s| {
        s["current"] = json!("imperial");
        s["moves_left"] = json!(3);
    });
    let mut h = g.clone();
    h.state = st;
    for u in ["arq", "rt"] {
        h.act(json!({"action": "move", "unit": u})).expect("move");
        assert_eq!(h.state["current"], "imperial");
    }
    h.act(json!({"action": "move", "unit": "pk2"}))
        .expect("move");
    assert!(h.state["current"].is_null());
}

/// A game with Quicker Movement at the movement step, a black card drawn (the imperials') with a
/// D4 of `d4`, as thrown at the table.
fn quicker_card(d4: u8, house_rules: &str) -> Game {
    let mut g = game(&format!("options.quicker_movement = 1\n{house_rules}"));
    g.act(json!({"action": "start-turn"})).expect("start");
    // Cards 27-52 are black; then the D4.
    g.act_entered(json!({"action": "draw"}), &[30, d4])
        .expect("draw");
    assert_eq!(g.state["current"], "imperial");
    assert_eq!(g.state["moves_left"], d4);
    g
}

/// The values of a form's choice field.
fn choice_values(f: &tercio_rules::FormField) -> Vec<String> {
    match &f.kind {
        tercio_rules::FieldKind::Choice { options, .. } => {
            options.iter().map(|o| o.value.clone()).collect()
        }
        other => panic!("{} is not a choice: {other:?}", f.name),
    }
}

#[test]
fn one_move_names_every_unit_a_quicker_card_allows() {
    // Decision 67: a D4 of 3 moves three units on one form, in one event, each with its own dice.
    let mut g = quicker_card(3, "");
    let before = g.log.len();
    let ev = g
        .act(json!({"action": "move", "unit": "arq", "unit_2": "rt", "unit_3": "pk2", "uphill": true}))
        .expect("three units move")
        .clone();
    assert_eq!(g.log.len(), before + 1, "one logged event");
    for u in ["arq", "rt", "pk2"] {
        assert_eq!(g.state["units"][u]["moved"], true, "{u}");
        assert!(g.state["acted"]
            .as_array()
            .expect("acted")
            .contains(&json!(u)));
    }
    assert_eq!(g.state["units"]["pk"]["moved"], false);
    // The card is used up.
    assert!(g.state["current"].is_null());
    assert_eq!(g.state["moves_left"], 0);
    // Each unit rolled its own dice, uphill each: arquebusiers 3D6 - 1, reiters 6D6 - 2,
    // closed pike 2D6 - 1.
    assert_eq!(ev.draws.len(), 2 + 4 + 1);
    // The steps and the summary name every unit.
    let summary = en(&ev.resolution.summary);
    for name in ["Arquebusiers", "Reiters", "Pikes"] {
        assert!(
            summary.contains(&format!("{name}: moves up to")),
            "{summary}"
        );
        assert!(
            ev.resolution
                .steps
                .iter()
                .any(|s| en(&s.title).starts_with(&format!("{name}: "))),
            "{name}"
        );
    }
    // A second card's D4 of 2, one unit named: the card waits for the other.
    let mut g = quicker_card(2, "");
    g.act(json!({"action": "move", "unit": "arq"}))
        .expect("move");
    assert_eq!(g.state["current"], "imperial");
    assert_eq!(g.state["moves_left"], 1);
}

#[test]
fn a_move_of_several_units_refuses_naming_the_field() {
    let g = quicker_card(2, "options.brigade_movement = 1");
    let e = engine(&g);
    let refused = |a: Value, code: &str, field: &str| {
        let r = rejected(e.as_ref(), &g.state, a.clone());
        assert_eq!(r.code, code, "{a}: {}", en(&r.message));
        assert_eq!(r.field.as_deref(), Some(field), "{a}");
        // The page names the field by its label: the text does not start with its id.
        assert!(
            !en(&r.message).starts_with(&format!("{field}:")),
            "{}",
            en(&r.message)
        );
        r
    };
    // A unit named twice.
    let r = refused(
        json!({"action": "move", "unit": "arq", "unit_2": "arq"}),
        "named-twice",
        "unit_2",
    );
    assert_eq!(
        localize(Lang::It, &r.message),
        "Arquebusiers è già nominata in questo movimento"
    );
    // A unit of the other side; named first, the refusal reads as it always did.
    refused(
        json!({"action": "move", "unit": "arq", "unit_2": "gd"}),
        "not-your-card",
        "unit_2",
    );
    let r = refused(
        json!({"action": "move", "unit": "gd"}),
        "not-your-card",
        "unit",
    );
    assert_eq!(en(&r.message), "the card drawn is the other side's");
    assert_eq!(
        localize(Lang::It, &r.message),
        "la carta pescata è dell'altro esercito"
    );
    // More units than the card allows (2).
    let r = refused(
        json!({"action": "move", "unit": "arq", "unit_2": "rt", "unit_3": "pk2"}),
        "too-many-units",
        "unit_3",
    );
    assert!(
        en(&r.message).contains("moves 2 units"),
        "{}",
        en(&r.message)
    );
    // A unit already moving with the first unit's brigade.
    refused(
        json!({"action": "move", "unit": "pk", "unit_2": "pk2"}),
        "moves-with-brigade",
        "unit_2",
    );
    // A heavy gun without permission, and a gun in the woods ticked for every unit.
    refused(
        json!({"action": "move", "unit": "arq", "unit_2": "hg"}),
        "heavy-guns-do-not-move",
        "unit_2",
    );
    // Unknown, and (as the first unit already says) a unit that has had its chance.
    refused(
        json!({"action": "move", "unit": "arq", "unit_2": "nobody"}),
        "unknown-unit",
        "unit_2",
    );
    let acted = with(&g, |s| s["acted"] = json!(["rt"]));
    let r = rejected(
        e.as_ref(),
        &acted,
        json!({"action": "move", "unit": "arq", "unit_2": "rt"}),
    );
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("already-acted", Some("unit_2"))
    );
    // Without Quicker Movement a card moves one unit.
    let mut h = game("");
    h.act(json!({"action": "start-turn"})).expect("start");
    h.state["current"] = json!("imperial");
    let r = rejected(
        engine(&h).as_ref(),
        &h.state,
        json!({"action": "move", "unit": "arq", "unit_2": "rt"}),
    );
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("too-many-units", Some("unit_2"))
    );
    assert!(
        en(&r.message).contains("moves 1 unit "),
        "{}",
        en(&r.message)
    );
    // A refused move changes nothing.
    let mut h = g.clone();
    let len = h.log.len();
    assert!(h
        .act(json!({"action": "move", "unit": "arq", "unit_2": "arq"}))
        .is_err());
    assert_eq!(h.log.len(), len);
    assert_eq!(h.state, g.state);
}

#[test]
fn a_gun_named_after_the_first_unit_may_not_enter_the_woods_ticked() {
    // The ground ticked is every unit's (decision 67): a gun the game master permits to move
    // (decision 57), named second, is the unit at fault.
    let mut h = quicker_card(2, "");
    h.state["units"]["hg"]["may_move"] = json!(true);
    let e = engine(&h);
    let r = rejected(
        e.as_ref(),
        &h.state,
        json!({"action": "move", "unit": "arq", "unit_2": "hg", "woods": true}),
    );
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("no-woods", Some("unit_2"))
    );
    assert!(en(&r.message).contains("Great gun"), "{}", en(&r.message));
    // The gun first: the woods themselves are at fault, as for any move.
    let r = rejected(
        e.as_ref(),
        &h.state,
        json!({"action": "move", "unit": "hg", "unit_2": "arq", "woods": true}),
    );
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("no-woods", Some("woods"))
    );
}

#[test]
fn the_move_form_offers_the_units_a_quicker_card_still_allows() {
    let fields = |st: &Value| -> Vec<tercio_rules::FormField> {
        let e = engine(&game("options.quicker_movement = 1"));
        e.forms(st, Some("imperial"))
            .into_iter()
            .find(|f| f.action == "move")
            .expect("move form")
            .fields
    };
    // A D4 of 3: two more units, each listing the units that may move (the heavy gun may not).
    let g = quicker_card(3, "");
    let f = fields(&g.state);
    let names: Vec<&str> = f.iter().map(|x| x.name.as_str()).collect();
    assert!(
        names.contains(&"unit_2") && names.contains(&"unit_3"),
        "{names:?}"
    );
    assert!(!names.contains(&"unit_4"), "{names:?}");
    let extra = f.iter().find(|x| x.name == "unit_2").expect("unit_2");
    assert_eq!(choice_values(extra), ["arq", "pk", "pk2", "rt"]);
    assert!(matches!(
        extra.kind,
        tercio_rules::FieldKind::Choice { optional: true, .. }
    ));
    // Two units have had their chance and the card still allows four: one more, of the two left.
    let st = with(&g, |s| {
        s["acted"] = json!(["arq", "pk"]);
        s["moves_left"] = json!(4);
    });
    let f = fields(&st);
    let extras: Vec<&tercio_rules::FormField> =
        f.iter().filter(|x| x.name.starts_with("unit_")).collect();
    assert_eq!(extras.len(), 1);
    assert_eq!(choice_values(extras[0]), ["pk2", "rt"]);
    // A card for one unit (a D4 of 1, or no Quicker Movement): the form as it always was.
    let g1 = quicker_card(1, "");
    assert!(fields(&g1.state)
        .iter()
        .all(|x| !x.name.starts_with("unit_")));
    let mut h = game("");
    h.act(json!({"action": "start-turn"})).expect("start");
    h.state["current"] = json!("imperial");
    assert!(fields(&h.state)
        .iter()
        .all(|x| !x.name.starts_with("unit_")));
}

#[test]
fn the_odds_of_a_move_of_two_units_are_the_product_of_their_own() {
    let g = quicker_card(2, "");
    // The arquebusiers are shaken: they rally first (Stand and Fight, -1) or stay.
    let st = with(&g, |s| s["units"]["arq"]["status"] = json!("shaken"));
    let e = engine(&g);
    let single = |unit: &str, inches: &str| {
        p(
            e.as_ref(),
            &st,
            json!({"action": "move", "unit": unit}),
            "inches",
            inches,
        )
    };
    let both = json!({"action": "move", "unit": "arq", "unit_2": "rt"});
    let plan = e.plan(Some(&st), &both).expect("two units");
    let joint = plan.exact(|o| {
        o.facets
            .iter()
            .map(|(f, v)| (en(f), en(v)))
            .collect::<Vec<_>>()
    });
    let pair = |a: &str, b: &str| {
        joint.p(|f| {
            f.contains(&("Arquebusiers: inches".to_string(), a.to_string()))
                && f.contains(&("Reiters: inches".to_string(), b.to_string()))
        })
    };
    for (a, b) in [("10", "21"), ("3", "36"), ("18", "6"), ("11", "20")] {
        let want = single("arq", a) * single("rt", b);
        assert!(want > 0.0);
        assert!(
            (pair(a, b) - want).abs() < 1e-12,
            "{a} {b}: {} vs {want}",
            pair(a, b)
        );
    }
    // The arquebusiers fail to rally: they stay, and the reiters still move.
    let stays = 1.0 - (3..=18).map(|i| single("arq", &i.to_string())).sum::<f64>();
    assert!((stays - 21.0 / 36.0).abs() < 1e-12, "{stays}");
    let o = odds(&plan);
    assert!((o.p("Arquebusiers: inches", "(not reached)") - stays).abs() < 1e-12);
    assert!((o.p("Reiters: inches", "21") - single("rt", "21")).abs() < 1e-12);
    // Shown part by part, unit by unit, the same marginals under the same names.
    let parts = e.preview_parts(Some(&st), &both).expect("parts");
    assert_eq!(parts.len(), 2);
    let (arq, rt) = (odds(&parts[0]), odds(&parts[1]));
    assert!((arq.p("Arquebusiers: inches", "10") - single("arq", "10")).abs() < 1e-12);
    assert!((rt.p("Reiters: inches", "21") - single("rt", "21")).abs() < 1e-12);
    assert_eq!(arq.facets.len(), 1);
    assert_eq!(rt.facets.len(), 1);
}

#[test]
fn a_brigade_moves_on_one_card_until_its_colonel_falls() {
    let mut g = game("options.brigade_movement = 1");
    g.act(json!({"action": "start-turn"})).expect("start");
    g.state["current"] = json!("imperial");
    let mut h = g.clone();
    h.act(json!({"action": "move", "unit": "pk"}))
        .expect("move");
    assert_eq!(h.state["units"]["pk2"]["moved"], true);
    assert!(h.state["acted"]
        .as_array()
        .expect("acted")
        .contains(&json!("pk2")));
    // The colonel down: they move independently.
    let mut h = g.clone();
    h.act(json!({"action": "officer-down", "officer": "col-i"}))
        .expect("down");
    assert!(h.state["units"]["pk2"]["brigade"].is_null());
    h.act(json!({"action": "move", "unit": "pk"}))
        .expect("move");
    assert_eq!(h.state["units"]["pk2"]["moved"], false);
    // Without the option, no brigade.
    let mut h = game("");
    h.act(json!({"action": "start-turn"})).expect("start");
    h.state["current"] = json!("imperial");
    h.act(json!({"action": "move", "unit": "pk"}))
        .expect("move");
    assert_eq!(h.state["units"]["pk2"]["moved"], false);
}

#[test]
fn dismounting_costs_a_die_and_leaves_the_unit_on_foot() {
    let g = game("options.dismounting = 1");
    let e = engine(&g);
    let st = with(&g, |s| {
        s["phase"] = json!("movement");
        s["current"] = json!("french");
    });
    // Light horse: 6D6, one lost to dismount: 5D6, so at most 30".
    let max = p(
        e.as_ref(),
        &st,
        json!({"action": "move", "unit": "lh", "dismount": true}),
        "inches",
        "30",
    );
    assert!((max - 1.0 / 6f64.powi(5)).abs() < 1e-15);
    let mut h = g.clone();
    h.state = st.clone();
    h.act(json!({"action": "move", "unit": "lh", "dismount": true}))
        .expect("dismount");
    assert_eq!(h.state["units"]["lh"]["dismounted"], true);
    // Gendarmes never dismount; nor anyone without the option.
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "move", "unit": "gd", "dismount": true}),
    );
    assert_eq!(r.field.as_deref(), Some("dismount"));
    let g2 = game("");
    let st2 = with(&g2, |s| {
        s["phase"] = json!("movement");
        s["current"] = json!("french");
    });
    let r = rejected(
        engine(&g2).as_ref(),
        &st2,
        json!({"action": "move", "unit": "lh", "dismount": true}),
    );
    assert_eq!(r.code, "cannot-dismount");
}

#[test]
fn heavy_guns_do_not_move() {
    let g = game("");
    let st = with(&g, |s| {
        s["phase"] = json!("movement");
        s["current"] = json!("imperial");
    });
    let r = rejected(
        engine(&g).as_ref(),
        &st,
        json!({"action": "move", "unit": "hg"}),
    );
    assert_eq!(r.code, "heavy-guns-do-not-move");
}

fn melee(g: &Game) -> Value {
    with(g, |s| {
        s["phase"] = json!("melee");
        s["fire_morale_done"] = json!(true);
    })
}

#[test]
fn evasion_follows_the_text() {
    let g = game("");
    let e = engine(&g);
    let st = melee(&g);
    // Pike (2D6 closed) charge the light horse, which evade with 6D6; with 12" of room it is
    // dispersed unless the roll is 12 or less. The charge goes in on To Close first.
    let charge = json!({"action": "charge", "charger": "pk2", "target": "lh", "target_evades": true, "evade_room": 12});
    let plan = e.plan(Some(&st), &charge).expect("plan");
    let o = odds(&plan);
    let close = o.p("charge goes in", "yes");
    // 6D6 ≤ 12: 1/6^6 times the count of 6-dice sums of 6..=12.
    let mut ways = [0u64; 37];
    ways[0] = 1;
    for _ in 0..6 {
        let mut next = [0u64; 37];
        for (s, &w) in ways.iter().enumerate() {
            for f in 1..=6 {
                if s + f < 37 {
                    next[s + f] += w;
                }
            }
        }
        ways = next;
    }
    let fits: u64 = ways[..=12].iter().sum();
    let p_fit = fits as f64 / 6f64.powi(6);
    assert!((o.p("evasion", "evades") - close * p_fit).abs() < 1e-12);
    assert!((o.p("evasion", "dispersed") - close * (1.0 - p_fit)).abs() < 1e-12);
    // Infantry may not evade cavalry; mounted troops evade only slower mounted troops: gendarmes
    // (5D6) may not evade reiters (6D6) (decision 38).
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "charge", "charger": "gd", "target": "arq", "target_evades": true}),
    );
    assert_eq!(r.field.as_deref(), Some("target_evades"));
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "charge", "charger": "rt", "target": "gd", "target_evades": true}),
    );
    assert!(en(&r.message).contains("slower"), "{}", r.message);
    // An evader that has moved tests To Stand: fail, routed.
    let moved = with(&g, |s| {
        s["phase"] = json!("melee");
        s["fire_morale_done"] = json!(true);
        s["units"]["lh"]["moved"] = json!(true);
    });
    let o = odds(
        &e.plan(
            Some(&moved),
            &json!({"action": "charge", "charger": "pk2", "target": "lh", "target_evades": true}),
        )
        .expect("plan"),
    );
    // To Stand with no modifier: 2D6 ≥ 5 passes 30/36 (design 5.2).
    assert!((o.p("evasion", "routs") - o.p("charge goes in", "yes") * 6.0 / 36.0).abs() < 1e-12);
}

/// Decision 68: "Evading units do not fire" (001, EVASION). At the table a charge is moved, and
/// answered by an evasion, on the charger's movement card (step 2), before the fire cards (step
/// 3); Tercio records the charge at steps 5-7, after the fire. So a unit that fired this turn
/// has stood its ground: it may not evade this turn's charges. Fails on the old code, which let
/// the stradiots fire and then evade.
#[test]
fn decision_68_a_unit_that_fired_this_turn_may_not_evade() {
    let g = game("");
    let e = engine(&g);
    // The stradiots (light horse with crossbows) fire on their card in the fire step.
    let mut h = g.clone();
    h.state = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("french");
    });
    h.act(json!({"action": "fire", "unit": "lh", "target": "pk2"}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.state["units"]["lh"]["fired"], json!(true));
    // A unit that did not fire carries no mark: states recorded before it read the same.
    assert!(h.state["units"]["gd"].get("fired").is_none());
    // In the melee step the pikes charge them: they may not evade, naming the field...
    let mut st = h.state.clone();
    st["phase"] = json!("melee");
    st["fire_morale_done"] = json!(true);
    let evading =
        json!({"action": "charge", "charger": "pk2", "target": "lh", "target_evades": true});
    let r = rejected(e.as_ref(), &st, evading.clone());
    assert_eq!(r.code, "cannot-evade");
    assert_eq!(r.field.as_deref(), Some("target_evades"));
    assert!(en(&r.message).contains("fired this turn"), "{}", r.message);
    // ...but they may stand and fight it.
    e.plan(
        Some(&st),
        &json!({"action": "charge", "charger": "pk2", "target": "lh"}),
    )
    .unwrap_or_else(|r| panic!("{r}"));
    // Before they fired, the same evasion went through.
    e.plan(Some(&melee(&g)), &evading)
        .unwrap_or_else(|r| panic!("{r}"));
    // The game master's charge form asks about evading only for targets that have not fired.
    let forms = e.forms(&st, None);
    let charge = forms
        .iter()
        .find(|f| f.action == "charge")
        .expect("charge form");
    let evades = charge
        .fields
        .iter()
        .find(|f| f.name == "target_evades")
        .expect("target_evades");
    assert_eq!(evades.only_with.as_deref(), Some("target"));
    assert!(!evades.only_for.contains(&"lh".to_string()));
    assert!(evades.only_for.contains(&"gd".to_string()));
    // The mark lasts the turn: the end of the turn clears it, and next turn they may evade.
    let mut h2 = h.clone();
    h2.state = st.clone();
    h2.act(json!({"action": "end-turn"}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(h2.state["units"]["lh"].get("fired").is_none());
    let mut next = h2.state.clone();
    next["phase"] = json!("melee");
    next["fire_morale_done"] = json!(true);
    // (Nothing at the end of the turn touches steady, fresh horse: the spirit's failure takes
    // only the routed, the spent and the shaken.)
    assert_eq!(next["units"]["lh"]["status"], json!("steady"));
    e.plan(Some(&next), &evading)
        .unwrap_or_else(|r| panic!("{r}"));
}

#[test]
fn reiters_charged_by_cavalry_fire_a_d4_of_ranks_first() {
    let g = game("options.company_close_combat = 1");
    let e = engine(&g);
    let st = melee(&g);
    let plan = e
        .plan(
            Some(&st),
            &json!({"action": "charge", "charger": "gd", "target": "rt"}),
        )
        .expect("plan");
    let mut h = g.clone();
    h.state = st.clone();
    let ev = h
        .act(json!({"action": "charge", "charger": "gd", "target": "rt"}))
        .expect("charge")
        .clone();
    let o = odds(&plan);
    assert!((o.total - 1.0).abs() < 1e-9);
    let goes_in = ev
        .resolution
        .steps
        .iter()
        .any(|s| en(&s.title).starts_with("To Stand"));
    if goes_in {
        // After a To Stand passed, the D4 is rolled and its ranks of three fire.
        let d4 = ev
            .resolution
            .steps
            .iter()
            .find(|s| en(&s.title).starts_with("Reiters charged by cavalry"))
            .expect("the D4 step");
        let ranks = i32::from(d4.dice[0].face);
        assert_eq!(d4.totals[0].1, ranks * 3);
    }
    // With the pistols emptied by a double fire, no D4.
    let empty = with(&g, |s| {
        s["phase"] = json!("melee");
        s["fire_morale_done"] = json!(true);
        s["units"]["rt"]["pistols_empty"] = json!(true);
    });
    let mut h = g.clone();
    h.state = empty;
    let ev = h
        .act(json!({"action": "charge", "charger": "gd", "target": "rt"}))
        .expect("charge");
    assert!(ev
        .resolution
        .steps
        .iter()
        .all(|s| !en(&s.title).starts_with("Reiters charged")));
}

#[test]
fn the_weather_and_wounded_parties_are_recorded() {
    let mut g = game("options.wounded = 2");
    g.act(json!({"action": "weather", "light_rain": true}))
        .expect("rain");
    assert_eq!(g.state["light_rain"], true);
    let e = engine(&g);
    assert!(e
        .forms(&g.state, None)
        .iter()
        .any(|f| f.action == "wounded-parties"));
    // Nobody is marching yet: nothing can be saved.
    let r = rejected(
        e.as_ref(),
        &g.state,
        json!({"action": "wounded-parties", "side": "french", "saved": 1}),
    );
    assert_eq!(r.field.as_deref(), Some("saved"));
}

#[test]
fn the_reference_gives_the_light_gun_long_range_as_the_fire_table_does() {
    // Decision 1: the line carrying the hit numbers says 24", the ranges list 36".
    let r = lookup("tsatf").expect("listed").reference();
    let line = r["charts"]["fire"]
        .as_array()
        .expect("fire table")
        .iter()
        .find(|l| l["weapon"] == "light-cannon" && l["range"] == "long")
        .expect("light gun long");
    assert_eq!(line["inches"], 24);
    assert_eq!(line["hits_class_i_to_iv"], json!([4, 2, 2, 1]));
}

#[test]
fn the_rules_page_tables_show_the_morale_odds() {
    let t = lookup("tsatf").expect("listed").reference_tables();
    let morale = t
        .iter()
        .find(|x| en(&x.title).starts_with("Morale"))
        .expect("morale");
    let col = morale.columns.iter().position(|c| c == "0").expect("0");
    // 2D6 ≥ 6: 26/36; ≥ 5: 30/36; ≥ 7: 21/36 (design 5.2).
    let at = |row: usize| en(&morale.rows[row][col]);
    assert_eq!(
        [at(0), at(1), at(2)],
        ["72.2%", "83.3%", "58.3%"].map(String::from)
    );
    assert_eq!(t[0].rows.len(), 15, "every troop type");
}

#[test]
fn changing_order_is_part_of_the_move() {
    let g = game("");
    let e = engine(&g);
    let st = with(&g, |s| {
        s["phase"] = json!("movement");
        s["current"] = json!("imperial");
    });
    // Pikes opening their order roll 3D6 (open-order infantry) instead of 2D6 (decision 60).
    let eighteen = p(
        e.as_ref(),
        &st,
        json!({"action": "move", "unit": "pk2", "order": "open"}),
        "inches",
        "18",
    );
    assert!((eighteen - 1.0 / 216.0).abs() < 1e-15);
    let mut h = g.clone();
    h.state = st.clone();
    h.act(json!({"action": "move", "unit": "pk2", "order": "open"}))
        .expect("move");
    assert_eq!(h.state["units"]["pk2"]["order"], "open");
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "move", "unit": "arq", "order": "closed"}),
    );
    assert_eq!(r.field.as_deref(), Some("order"));
}

#[test]
fn a_unit_may_break_off_a_long_close_combat() {
    // Company version: the gendarmes (4 companies) against the pikes (4), the charger breaking
    // off after 3 bouts if still undecided (001, BREAKING OFF; decision 28).
    let g = game("options.company_close_combat = 1");
    let e = engine(&g);
    let st = melee(&g);
    let plain = json!({"action": "charge", "charger": "gd", "target": "pk2"});
    let mut breaking = plain.clone();
    breaking["break_off"] = json!("charger");
    let without = odds(&e.plan(Some(&st), &plain).expect("plan"));
    let with_ = odds(&e.plan(Some(&st), &breaking).expect("plan"));
    assert!((with_.total - 1.0).abs() < 1e-9);
    let broke = with_.p("winner", "broke off");
    assert!(broke > 0.0, "{broke}");
    // One winner per combat: the facet's values add up to the chance the combat is fought.
    let fought = without.p("winner", "charger") + without.p("winner", "target");
    assert!(fought <= 1.0 + 1e-12, "{fought}");
    // Whatever breaks off was a combat neither side had won yet: the target's wins can only fall.
    assert!(with_.p("winner", "target") <= without.p("winner", "target") + 1e-12);
    assert!(
        (with_.p("winner", "charger") + with_.p("winner", "target") + broke
            - without.p("winner", "charger")
            - without.p("winner", "target"))
        .abs()
            < 1e-9
    );
    // Rolled: a charger that broke off is shaken or routed, never the loser's test.
    for seed in 0..200u64 {
        let mut h = g.clone();
        h.state = st.clone();
        h.seed = seed;
        let ev = h.act(breaking.clone()).expect("charge").clone();
        if en(&ev.resolution.summary).contains("breaks off") {
            let status = h.state["units"]["gd"]["status"].as_str().expect("status");
            assert!(matches!(status, "shaken" | "routed"), "{status}");
            return;
        }
    }
    panic!("no break-off in 200 charges");
}

#[test]
fn wounded_and_dead_hearts_kill_and_other_suits_wound() {
    for variant in [1u8, 2] {
        let g = game(&format!("options.wounded = {variant}"));
        let e = engine(&g);
        let st = with(&g, |s| {
            s["phase"] = json!("fire");
            s["current"] = json!("imperial");
        });
        // One arquebusier at gendarmes (Class II, short: 1-5): one hit in four; its card wounds
        // unless it is a heart or an ace: 36 cards of 52 (design 8.3).
        let shot =
            json!({"action": "fire", "unit": "pk", "target": "gd", "range": "short", "firers": 1});
        let w = p(e.as_ref(), &st, shot.clone(), "wounded", "1");
        assert!((w - 0.25 * 36.0 / 52.0).abs() < 1e-12, "{w}");
        // Rolled until a wound: carried by the unit (1), or a party on its way (2).
        let mut found = false;
        for seed in 0..300u64 {
            let mut h = g.clone();
            h.state = st.clone();
            h.seed = seed;
            let ev = h.act(shot.clone()).expect("fire").clone();
            if !en(&ev.resolution.summary).contains("wounded, not killed") {
                continue;
            }
            assert_eq!(h.state["units"]["gd"]["figures"], 11);
            if variant == 1 {
                assert_eq!(h.state["units"]["gd"]["wounded"], 1);
            } else {
                assert_eq!(h.state["units"]["gd"]["wounded"], 0);
                assert_eq!(h.state["wounded"]["french"]["marching"], 1);
            }
            found = true;
            break;
        }
        assert!(found, "no wound in 300 shots");
    }
    // Without the option every card kills: no "wounded" facet.
    let g = game("");
    let st = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
    });
    let o = odds(
        &engine(&g)
            .plan(
                Some(&st),
                &json!({"action": "fire", "unit": "pk", "target": "gd", "range": "short", "firers": 1}),
            )
            .expect("plan"),
    );
    assert!(o.facets.iter().all(|f| f.facet != "wounded"));
}

#[test]
fn wounded_parties_move_three_dice_and_are_saved_or_captured() {
    let mut g = game("options.wounded = 2");
    g.state["phase"] = json!("movement");
    g.state["wounded"] = json!({"french": {"marching": 4, "saved": 0, "captured": 0}});
    let e = engine(&g);
    let three = p(
        e.as_ref(),
        &g.state,
        json!({"action": "wounded-move", "side": "french"}),
        "inches",
        "3",
    );
    assert!((three - 1.0 / 216.0).abs() < 1e-15);
    assert!(e
        .forms(&g.state, None)
        .iter()
        .any(|f| f.action == "wounded-move"));
    let r = rejected(
        e.as_ref(),
        &g.state,
        json!({"action": "wounded-move", "side": "imperial"}),
    );
    assert_eq!(r.code, "no-wounded");
    g.act(json!({"action": "wounded-parties", "side": "french", "saved": 3, "captured": 1}))
        .expect("recorded");
    assert_eq!(
        g.state["wounded"]["french"],
        json!({"marching": 0, "saved": 3, "captured": 1})
    );
}

#[test]
fn fire_morale_is_tested_every_turn() {
    let mut g = game("");
    g.state["phase"] = json!("melee");
    g.act(json!({"action": "fire-morale"})).expect("turn 1");
    g.act(json!({"action": "end-turn"})).expect("end");
    g.act(json!({"action": "start-turn"})).expect("turn 2");
    assert_eq!(g.state["fire_morale_done"], false);
    g.state["phase"] = json!("melee");
    g.act(json!({"action": "fire-morale"})).expect("turn 2");
}

#[test]
fn a_field_officer_falls_in_his_own_bout_not_as_a_figure() {
    let mut g = game("options.company_close_combat = 1");
    g.act(json!({"action": "attach", "officer": "gen-f", "unit": "gd"}))
        .expect("attach");
    let st = melee(&g);
    let charge = json!({"action": "charge", "charger": "gd", "target": "pk2"});
    let o = odds(&engine(&g).plan(Some(&st), &charge).expect("plan"));
    let down = o.p("charger field officer", "down");
    assert!(
        down > 0.0 && down < o.p("winner", "target") + 1e-12,
        "{down}"
    );
    for seed in 0..300u64 {
        let mut h = g.clone();
        h.state = st.clone();
        h.seed = seed;
        let ev = h.act(charge.clone()).expect("charge").clone();
        if h.state["officers"]["gen-f"]["down"] != true {
            continue;
        }
        assert!(
            en(&ev.resolution.summary).contains("General F is down"),
            "{}",
            ev.resolution.summary
        );
        assert!(h.state["officers"]["gen-f"]["attached"].is_null());
        assert_eq!(h.state["units"]["gd"]["field_officer"], false);
        // His loss is not one of the unit's twelve figures: the unit still has a figure per
        // company it lost with fewer than all its men.
        let lost: u64 = en(&ev.resolution.summary)
            .split("losses Gendarmes ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.trim().parse().ok())
            .expect("losses");
        let left = h.state["units"]["gd"]["figures"].as_u64().expect("n");
        // Routing after the combat may take a D4 more.
        assert!(left + lost <= 12, "{left} + {lost}");
        assert!(lost <= 12);
        return;
    }
    panic!("no field officer fell in 300 charges");
}

#[test]
fn horse_is_class_two_or_three_and_a_unit_charges_once_a_turn() {
    let g = game("");
    let e = engine(&g);
    let st = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
    });
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "fire", "unit": "arq", "target": "gd", "range": "short", "target_class": 4}),
    );
    assert_eq!(r.field.as_deref(), Some("target_class"));
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "fire", "unit": "hg", "target": "gd"}),
    );
    assert_eq!(r.field.as_deref(), Some("range"));
    let mut h = g.clone();
    h.state = melee(&g);
    h.act(json!({"action": "charge", "charger": "pk2", "target": "gd"}))
        .expect("charge");
    if h.state["units"]["pk2"]["status"] != "gone" {
        let r = rejected(
            e.as_ref(),
            &h.state,
            json!({"action": "charge", "charger": "pk2", "target": "lh"}),
        );
        assert_eq!(r.code, "already-charged");
        // Nor does the charge form offer it (found by `tercio fuzz`: offered, and refused).
        let forms = e.forms(&h.state, None);
        let charge = forms
            .iter()
            .find(|f| f.action == "charge")
            .expect("other units may still charge");
        let chargers: Vec<&str> = match &charge.fields[0].kind {
            tercio_rules::FieldKind::Choice { options, .. } => {
                options.iter().map(|o| o.value.as_str()).collect()
            }
            k => panic!("{k:?}"),
        };
        assert!(!chargers.is_empty());
        assert!(!chargers.contains(&"pk2"), "{chargers:?}");
    } else {
        panic!("the seeded charge leaves pk2 on the table");
    }
}

#[test]
fn falling_back_rolls_the_units_movement_dice() {
    // A closed pike unit that lost a quarter to fire and fails To Stand falls back 2D6 (decision
    // 46); the odds are not split by the distance.
    let mut g = game("");
    g.state["phase"] = json!("melee");
    g.state["units"]["pk2"]["figures"] = json!(15);
    g.state["units"]["pk2"]["fire_losses"] = json!(5);
    let o = odds(
        &engine(&g)
            .plan(Some(&g.state), &json!({"action": "fire-morale"}))
            .expect("plan"),
    );
    assert_eq!(o.outcomes, 2, "holds or shaken, whatever the distance");
    for seed in 0..100u64 {
        let mut h = g.clone();
        h.seed = seed;
        let ev = h
            .act(json!({"action": "fire-morale"}))
            .expect("test")
            .clone();
        if h.state["units"]["pk2"]["status"] != "shaken" {
            continue;
        }
        let step = ev
            .resolution
            .steps
            .iter()
            .find(|s| en(&s.title).contains("falls back"))
            .expect("the fall-back roll");
        assert_eq!(step.dice.len(), 2, "{}", step.title);
        return;
    }
    panic!("never shaken in 100 tests");
}

#[test]
fn gendarmes_seldom_break_pike_from_the_front() {
    // Design 6.6: gendarmes with lances (company version) against Spanish pike to its front.
    let e = lookup("tsatf")
        .expect("listed")
        .engine(None)
        .expect("engine");
    let plan = e
        .plan(
            None,
            &json!({"action": "close-combat", "version": "company",
                "a": {"type": "gendarmes", "figures": 12, "lance": true},
                "b": {"type": "pikemen", "figures": 20, "leaders": 2}}),
        )
        .expect("plan");
    let a = odds(&plan).p("winner", "A");
    assert!((a - 0.0177).abs() < 0.00005, "{a}");
}

// ---- Issue 16: fire morale, the texts of the log and the report, and the seed's contradictions ----

/// The state in step 4 with the Pikes (`pk2`, 20 figures) at `figures`, having lost `this_turn`
/// to fire this turn and `earlier` to fire in earlier turns.
fn pikes_under_fire(g: &Game, figures: u64, this_turn: u64, earlier: u64) -> Value {
    with(g, |s| {
        s["phase"] = json!("melee");
        s["units"]["pk2"]["figures"] = json!(figures);
        s["units"]["pk2"]["fire_losses"] = json!(this_turn);
        s["units"]["pk2"]["fire_losses_earlier"] = json!(earlier);
    })
}

#[test]
fn fire_morale_counts_only_losses_to_fire() {
    // 001, MORALE: "when the unit has lost 25% of it's strength by any fire and every time it
    // loses a figure by fire after that" (decision 8).
    let g = game("");
    let e = engine(&g);
    let tests = |st: &Value| {
        let o = odds(
            &e.plan(Some(st), &json!({"action": "fire-morale"}))
                .expect("plan"),
        );
        o.p("Pikes", "holds") + o.p("Pikes", "shaken")
    };
    // 10 of 20 lost, 9 of them in close combat: 1 to fire is not a quarter lost by fire.
    assert_eq!(tests(&pikes_under_fire(&g, 10, 1, 0)), 0.0);
    // 4 lost to fire in earlier turns and 1 now: a quarter by fire, so it tests.
    assert!((tests(&pikes_under_fire(&g, 15, 1, 4)) - 1.0).abs() < 1e-12);
    // Past the quarter, every further figure lost to fire brings a test...
    assert!((tests(&pikes_under_fire(&g, 14, 1, 5)) - 1.0).abs() < 1e-12);
    // ...but a turn without fire losses brings none.
    assert_eq!(tests(&pikes_under_fire(&g, 14, 0, 6)), 0.0);
    // The turn's fire losses join the earlier ones when the turn ends.
    let mut h = g.clone();
    h.state = pikes_under_fire(&g, 17, 3, 0);
    h.act(json!({"action": "fire-morale"})).expect("step 4");
    h.act(json!({"action": "end-turn"})).expect("end");
    assert_eq!(h.state["units"]["pk2"]["fire_losses"], 0);
    assert_eq!(h.state["units"]["pk2"]["fire_losses_earlier"], 3);
    let mut st = h.state.clone();
    st["phase"] = json!("melee");
    st["fire_morale_done"] = json!(false);
    st["units"]["pk2"]["figures"] = json!(15);
    st["units"]["pk2"]["fire_losses"] = json!(2);
    assert!(
        (tests(&st) - 1.0).abs() < 1e-12,
        "3 earlier + 2 now = 5 of 20"
    );
}

#[test]
fn one_fire_morale_test_a_turn_however_many_figures_fell() {
    // Decision 63: MORALE's "every time it loses a figure by fire" is read with step 4's "Test
    // morale for units which took fire casualties": one To Stand a unit a turn.
    let g = game("");
    let e = engine(&g);
    // 5 lost to fire before, 3 more this turn: one test, shaken on a failed To Stand (6 in 36).
    let st = pikes_under_fire(&g, 12, 3, 5);
    let plan = e
        .plan(Some(&st), &json!({"action": "fire-morale"}))
        .expect("plan");
    let tests = plan.exact(|o| {
        o.resolution
            .steps
            .iter()
            .filter(|s| en(&s.title).starts_with("Pikes ("))
            .count()
    });
    assert!((tests.p(|n| *n == 1) - 1.0).abs() < 1e-12);
    assert!((odds(&plan).p("Pikes", "shaken") - 6.0 / 36.0).abs() < 1e-12);
}

#[test]
fn a_rout_reports_only_the_figures_the_unit_had() {
    // Shaken arquebusiers down to 2 figures, all lost to fire this turn, fail To Stand and rout:
    // the rout's D4 can take only the 2 they have (decision 29).
    let g = game("");
    let e = engine(&g);
    let st = with(&g, |s| {
        s["phase"] = json!("melee");
        s["units"]["arq"]["figures"] = json!(2);
        s["units"]["arq"]["fire_losses"] = json!(18);
        s["units"]["arq"]["status"] = json!("shaken");
    });
    let plan = e
        .plan(Some(&st), &json!({"action": "fire-morale"}))
        .expect("plan");
    let rout = plan.exact(|o| {
        o.resolution
            .steps
            .iter()
            .find(|s| en(&s.title).starts_with("Rout"))
            .map(|s| (en(&s.result).clone(), o.resolution.summary.clone()))
    });
    let routs = rout.p(|r| r.is_some());
    assert!(routs > 0.0);
    assert_eq!(
        rout.p(|r| r.as_ref().is_some_and(|(step, summary)| {
            step.starts_with("3 ")
                || step.starts_with("4 ")
                || summary.contains("losing 3")
                || summary.contains("losing 4")
        })),
        0.0
    );
    // A D4 of 2, 3 or 4 takes both figures; a 1 takes one.
    let both = rout.p(|r| {
        r.as_ref()
            .is_some_and(|(step, _)| step.starts_with("2 figure(s) lost"))
    });
    assert!((both - routs * 0.75).abs() < 1e-12, "{both} of {routs}");
}

#[test]
fn a_heavy_gun_moves_only_with_the_game_masters_permission_and_keeps_its_name() {
    // Decision 57: FIRE, "Heavy guns may not move during the game", against MOVEMENT, "Heavy guns
    // do not move without special permission of game master".
    let mut g = game("");
    g.state["phase"] = json!("movement");
    g.state["current"] = json!("imperial");
    let r = rejected(
        engine(&g).as_ref(),
        &g.state,
        json!({"action": "move", "unit": "hg"}),
    );
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("heavy-guns-do-not-move", Some("unit"))
    );
    g.state["units"]["hg"]["may_move"] = json!(true);
    let ev = g
        .act(json!({"action": "move", "unit": "hg"}))
        .expect("permitted")
        .clone();
    assert_eq!(ev.draws.len(), 2, "2D6");
    let title = &en(&ev.resolution.steps[0].title);
    assert!(
        title.contains("Heavy Cannon") && !title.contains("Light Cannon"),
        "{title}"
    );
}

#[test]
fn a_weapon_with_one_range_band_takes_no_range() {
    // 001, FIRE, Weapon Ranges: "Crossbows 12" (No short range)", "Pistol 4" (No short range)".
    let g = game("");
    let e = engine(&g);
    let french = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("french");
    });
    for range in ["short", "long"] {
        let r = rejected(
            e.as_ref(),
            &french,
            json!({"action": "fire", "unit": "lh", "target": "arq", "range": range}),
        );
        assert_eq!(r.field.as_deref(), Some("range"), "{}", r.message);
    }
    e.plan(
        Some(&french),
        &json!({"action": "fire", "unit": "lh", "target": "arq"}),
    )
    .expect("the crossbow fires at its one band");
    let imperial = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
    });
    let r = rejected(
        e.as_ref(),
        &imperial,
        json!({"action": "fire", "unit": "rt", "target": "gd", "range": "short"}),
    );
    assert_eq!(r.field.as_deref(), Some("range"), "{}", r.message);
    // Stand-alone, the same.
    let r = tercio_rules::sword_and_flame_renaissance::plan(&json!({"action": "fire", "weapon": "crossbow", "range": "short", "target_class": 2, "firers": 5}))
        .err()
        .expect("refused");
    assert_eq!(r.field.as_deref(), Some("range"), "{}", r.message);
    // The fire form lets the range be left out.
    let forms = e.forms(&french, Some("french"));
    let fire = forms
        .iter()
        .find(|f| f.action == "fire")
        .expect("fire form");
    let range = fire
        .fields
        .iter()
        .find(|f| f.name == "range")
        .expect("range");
    assert!(matches!(
        range.kind,
        tercio_rules::FieldKind::Choice { optional: true, .. }
    ));
}

#[test]
fn the_battle_report_counts_figures_and_their_losses() {
    use tercio_i18n::Lang;
    use tercio_rules::report::{battle_report, scores_by_turn, Reveal};
    // A game played to the imperial arquebusiers' fire card, every other unit letting its chance
    // pass; they fire at the gendarmes.
    let played = |seed: u64| {
        let mut h = game("");
        h.seed = seed;
        h.act(json!({"action": "start-turn"})).expect("start");
        for _ in 0..100 {
            if h.state["current"].is_null() {
                h.act(json!({"action": "draw"})).expect("draw");
                continue;
            }
            let forms = engine(&h).forms(&h.state, None);
            let pass = forms.iter().find(|f| f.action == "pass").expect("pass");
            let waiting = serde_json::to_value(&pass.fields[0]).expect("json")["options"]
                .as_array()
                .expect("options")
                .iter()
                .filter_map(|o| o["value"].as_str().map(String::from))
                .collect::<Vec<_>>();
            if h.state["phase"] == "fire" && waiting.iter().any(|u| u == "arq") {
                h.act(json!({"action": "fire", "unit": "arq", "target": "gd", "range": "short", "firers": 20}))
                    .expect("fire");
                return h;
            }
            h.act(json!({"action": "pass", "unit": waiting[0]}))
                .expect("pass");
        }
        panic!("no fire card for the arquebusiers");
    };
    let hit = (0..50u64)
        .map(played)
        .find(|h| h.state["units"]["gd"]["figures"].as_u64() < Some(12))
        .expect("a fire that hits");
    let lost = 12 - hit.state["units"]["gd"]["figures"].as_u64().expect("n") as u32;
    // The chart counts figures lost against the army's figures: the French 12 + 12; the
    // imperial 20 + 25 (pike with its sub-unit) + 20 + 12 + 4.
    let rows = scores_by_turn(&hit).expect("rows");
    let now = &rows.last().expect("a row").1;
    let score = |side: &str| {
        let s = now.iter().find(|s| s.side == side).expect("side");
        (s.lost, s.threshold)
    };
    assert_eq!(score("french"), (lost, 24));
    assert_eq!(score("imperial"), (0, 81));
    let c = hit.commitment();
    let reveal = Reveal {
        commitment: &c,
        seed: None,
        concluded: false,
        fingerprint: None,
    };
    let md =
        battle_report(&hit, &tercio_rules::Viewer::GameMaster, &reveal, Lang::En).expect("report");
    assert!(md.contains("- **French**: 2 units, 24 figures"), "{md}");
    assert!(!md.contains(" bases"), "{md}");
    assert!(md.contains(&format!(" {lost}/24 |")), "{md}");
    let it =
        battle_report(&hit, &tercio_rules::Viewer::GameMaster, &reveal, Lang::It).expect("report");
    assert!(it.contains("2 unità, 24 figure"), "{it}");
}

#[test]
fn aces_on_leaders_are_counted_among_the_figures_removed() {
    // Decision 49: unit leaders are figures of the unit (decision 31), so an ace that takes one
    // removes a figure; the casualty step says what is removed.
    let mut g = game("");
    g.state["phase"] = json!("fire");
    g.state["current"] = json!("imperial");
    let mut seen = 0;
    for seed in 0..400u64 {
        let mut h = g.clone();
        h.seed = seed;
        // The Swiss have two leaders (decision 6) and 25 figures.
        h.state["current"] = json!("french");
        let ev = h
            .act(json!({"action": "fire", "unit": "lh", "target": "pk", "firers": 12}))
            .expect("fire")
            .clone();
        let Some(cards) = ev
            .resolution
            .steps
            .iter()
            .find(|s| en(&s.title).starts_with("Casualty cards"))
        else {
            continue;
        };
        let total = |k: &str| {
            cards
                .totals
                .iter()
                .find(|(n, _)| en(n) == k)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| panic!("no total {k}: {:?}", cards.totals))
        };
        let aces = en(&cards.result).matches('A').count() as i32;
        if aces == 0 {
            continue;
        }
        let figures = h.state["units"]["pk"]["figures"].as_i64().expect("n") as i32;
        let leaders = h.state["units"]["pk"]["leaders"].as_i64().expect("n") as i32;
        assert_eq!(total("figures removed"), 25 - figures, "{:?}", cards.totals);
        assert_eq!(
            total("leaders among them"),
            2 - leaders,
            "{:?}",
            cards.totals
        );
        assert_eq!(total("leaders among them"), aces.min(2));
        assert!(
            en(&ev.resolution.summary).contains(&format!("remove {} figure(s)", 25 - figures)),
            "{}",
            ev.resolution.summary
        );
        seen += 1;
        if seen == 3 {
            return;
        }
    }
    panic!("too few fires with an ace");
}

#[test]
fn reiters_shoot_four_ranks_deep() {
    // Decision 64: ORDER's "only 2 ranks may shoot" in open order yields to REITERS, "may shoot
    // 4 ranks deep" and "They may fire up to 4 ranks deep".
    let g = game("options.company_close_combat = 1");
    let e = engine(&g);
    // All twelve fire, four ranks of three: pistols hit Class II on 1-5.
    let st = with(&g, |s| {
        s["phase"] = json!("fire");
        s["current"] = json!("imperial");
    });
    let none = p(
        e.as_ref(),
        &st,
        json!({"action": "fire", "unit": "rt", "target": "gd"}),
        "hits",
        "0",
    );
    assert!((none - 0.75f64.powi(12)).abs() < 1e-12, "{none}");
    // Charged by cavalry, a D4 of 4 fires all four ranks: twelve pistols.
    for seed in 0..400u64 {
        let mut h = g.clone();
        h.seed = seed;
        h.state = melee(&g);
        let ev = h
            .act(json!({"action": "charge", "charger": "gd", "target": "rt"}))
            .expect("charge")
            .clone();
        let steps = &ev.resolution.steps;
        let Some(i) = steps
            .iter()
            .position(|s| en(&s.title).starts_with("Reiters charged by cavalry"))
        else {
            continue;
        };
        if steps[i].dice[0].face != 4 {
            continue;
        }
        assert_eq!(steps[i].totals[0].1, 12);
        assert_eq!(steps[i + 1].dice.len(), 12, "{}", steps[i + 1].title);
        return;
    }
    panic!("no D4 of 4 in 400 charges");
}

#[test]
fn skirmishers_never_fight_they_evade_or_are_destroyed() {
    // Decision 65: ORDER, "Skirmishers in close combat are destroyed.", with CLOSE COMBAT,
    // "Skirmishing infantry does not fight in close combat, is destroyed if cannot evade."
    let g = game("");
    let e = engine(&g);
    let st = with(&g, |s| {
        s["phase"] = json!("melee");
        s["fire_morale_done"] = json!(true);
        s["units"]["arq"]["order"] = json!("skirmish");
        s["units"]["lh"]["order"] = json!("skirmish");
    });
    let o = |a: Value| odds(&e.plan(Some(&st), &a).expect("plan"));
    // Gendarmes charge skirmishing arquebusiers, who may not evade cavalry: destroyed as soon as
    // the charge goes in, with no To Stand and no close combat.
    let r = rejected(
        e.as_ref(),
        &st,
        json!({"action": "charge", "charger": "gd", "target": "arq", "target_evades": true}),
    );
    assert_eq!(r.field.as_deref(), Some("target_evades"));
    let c = o(json!({"action": "charge", "charger": "gd", "target": "arq"}));
    let goes_in = c.p("charge goes in", "yes");
    assert!(goes_in > 0.0);
    assert!((c.p("target", "destroyed") - goes_in).abs() < 1e-12);
    assert_eq!(c.p("winner", "charger") + c.p("winner", "target"), 0.0);
    // Pikes charge skirmishing light horse: with room enough they evade, never fight...
    let c = o(json!({"action": "charge", "charger": "pk2", "target": "lh", "target_evades": true}));
    assert!((c.p("evasion", "evades") - c.p("charge goes in", "yes")).abs() < 1e-12);
    // ...and if they stay, they are destroyed (ORDER names all skirmishers, horse too).
    let c = o(json!({"action": "charge", "charger": "pk2", "target": "lh"}));
    assert!((c.p("target", "destroyed") - c.p("charge goes in", "yes")).abs() < 1e-12);
    // Gun crews never stand either: a charge that goes in takes the gun (decision 32).
    let st = melee(&g);
    let c = odds(
        &e.plan(
            Some(&st),
            &json!({"action": "charge", "charger": "gd", "target": "hg"}),
        )
        .expect("plan"),
    );
    assert!((c.p("target", "destroyed") - c.p("charge goes in", "yes")).abs() < 1e-12);
}

/// Every troop type and officer rank has its glossary name (design section 13) in both
/// languages, for the board and the forms.
#[test]
fn every_troop_type_has_its_name_in_both_languages() {
    for lang in [tercio_i18n::Lang::It, tercio_i18n::Lang::En] {
        for t in tercio_rules::sword_and_flame_renaissance::tables::TROOPS {
            let key = format!("sword_and_flame.troop.{}", t.id);
            assert!(tercio_i18n::has(lang, &key), "{key} in {lang:?}");
        }
        for r in ["general", "colonel"] {
            assert!(tercio_i18n::has(lang, &format!("sword_and_flame.rank.{r}")));
        }
    }
    let it = tercio_i18n::localize(
        tercio_i18n::Lang::It,
        &tercio_i18n::msg("sword_and_flame.troop.sword-and-buckler", &[]),
    );
    assert_eq!(it, "Rotellieri");
}

/// Every text an Italian reader sees of a played turn: the example game of Bicocca
/// (`examples/sword-and-flame-renaissance/game/`) step by step, with each step's odds before it
/// is played, its result, the board and every seat's forms after it, some refusals and the rules
/// page's tables, rendered in Italian, hold no English word of the engine once the scenario's own
/// names and notes and the seed's citations (`[001, …]`, `(001, …)`, a modifier's source) are
/// taken out (issue 17, item 3).
#[test]
fn a_played_turn_reads_in_italian() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = "scenarios/sword-and-flame-renaissance/bicocca-1522.toml";
    let src = std::fs::read_to_string(root.join(path)).expect("scenario");
    // The scenario's own texts: names and notes stay as written.
    fn strings(v: &toml::Value, out: &mut Vec<String>) {
        match v {
            toml::Value::String(s) => out.push(s.clone()),
            toml::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            toml::Value::Table(t) => t.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut own = Vec::new();
    strings(
        &toml::Value::Table(toml::from_str(&src).expect("toml")),
        &mut own,
    );
    own.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let sc = parse(path, &src).unwrap_or_else(|d| panic!("{d:?}"));
    let mut g = Game::new(sc, 10).expect("game");
    let e = engine(&g);

    let mut texts: Vec<String> = Vec::new();
    let seen = |texts: &mut Vec<String>, e: &dyn Engine, st: &Value| {
        let board = e.board(st).expect("a board");
        texts.push(board.headline);
        texts.extend(board.notes);
        for t in board.tables {
            texts.push(t.title);
            texts.extend(t.columns);
            texts.extend(t.rows.into_iter().flatten());
        }
        for seat in [None, Some("french"), Some("imperial")] {
            for f in e.forms(st, seat) {
                texts.push(f.label);
                texts.push(f.hint);
                for field in f.fields {
                    texts.push(field.label);
                    if let tercio_rules::FieldKind::Choice { options, .. } = field.kind {
                        texts.extend(options.into_iter().map(|c| c.label));
                    }
                }
            }
        }
    };
    let mut dir: Vec<_> = std::fs::read_dir(root.join("examples/sword-and-flame-renaissance/game"))
        .expect("the example game")
        .map(|x| x.expect("entry").path())
        .collect();
    dir.sort();
    let mut kinds = std::collections::BTreeSet::new();
    for p in dir {
        let action: Value =
            serde_json::from_str(&std::fs::read_to_string(&p).expect("step")).expect("json");
        kinds.insert(action["action"].as_str().unwrap_or_default().to_string());
        if let Ok(plan) = e.plan(Some(&g.state), &action) {
            for f in tercio_rules::odds::odds(&plan).facets {
                texts.push(f.facet);
                texts.extend(f.values.into_iter().map(|v| v.0));
            }
        }
        let ev = g.act(action).expect("the example game plays").clone();
        let r = ev.resolution;
        texts.push(r.summary);
        for st in r.steps {
            texts.push(st.title);
            texts.push(st.result);
            texts.extend(st.dice.into_iter().map(|d| d.label));
            for m in st.modifiers {
                texts.push(m.side);
                texts.push(m.name);
            }
            texts.extend(st.totals.into_iter().map(|t| t.0));
        }
        texts.extend(ev.draws.into_iter().map(|d| d.label));
        seen(&mut texts, e.as_ref(), &g.state);
    }
    for k in [
        "move",
        "fire",
        "pass",
        "draw",
        "charge",
        "fire-morale",
        "end-turn",
    ] {
        assert!(kinds.contains(k), "the example game has no {k}");
    }
    // Refusals: out of the turn's order, an unknown unit, a friendly target.
    for a in [
        json!({"action": "fire-morale"}),
        json!({"action": "charge", "charger": "nobody", "target": "nobody"}),
        json!({"action": "move", "unit": "nobody"}),
    ] {
        match e.plan(Some(&g.state), &a) {
            Err(r) => texts.push(r.message),
            Ok(_) => panic!("{a} is refused"),
        }
    }
    // And a stand-alone action's.
    let alone = lookup("tsatf")
        .expect("listed")
        .engine(None)
        .expect("an engine");
    for a in [
        json!({"action": "bout", "a": {"type": "wagon"}, "b": {"type": "pikemen"}}),
        json!({"action": "fire", "weapon": "pistol", "range": "short", "target_class": 2, "firers": 3}),
    ] {
        match alone.plan(None, &a) {
            Err(r) => texts.push(r.message),
            Ok(_) => panic!("{a} is refused"),
        }
    }
    for t in lookup("tsatf").expect("listed").reference_tables() {
        texts.push(t.title);
        texts.extend(t.columns);
        // The last column is the citation of the seed.
        texts.extend(t.rows.into_iter().flat_map(|mut r| {
            r.pop();
            r
        }));
    }
    let english = [
        "the", "of", "and", "card", "cards", "fire", "fires", "move", "moves", "unit", "units",
        "turn", "loses", "names", "draw", "charge", "melee", "roll", "rolls", "hit", "hits",
        "wins", "routs", "passed", "failed", "falls", "back", "stays", "leaves", "field", "lost",
        "with", "from", "each", "die", "dice", "shaken", "spent", "fresh", "worn", "step", "side",
        "up", "to", "not", "officer", "leader", "figures", "range", "class", "table", "order",
    ];
    let mut found = Vec::new();
    for raw in &texts {
        let mut t = localize(Lang::It, raw);
        assert!(!t.contains('⟦'), "a message left unrendered: {t}");
        for name in &own {
            t = t.replace(name.as_str(), " ");
        }
        // The seed's citations, in brackets or parentheses, quote its English text.
        let mut plain = String::new();
        let mut depth = 0usize;
        let cs: Vec<char> = t.chars().collect();
        for (i, &c) in cs.iter().enumerate() {
            let opens_citation =
                matches!(c, '[' | '(') && cs[i + 1..].iter().take(3).collect::<String>() == "001";
            if opens_citation || (depth > 0 && matches!(c, '[' | '(')) {
                depth += 1;
            } else if depth > 0 && matches!(c, ']' | ')') {
                depth -= 1;
            } else if depth == 0 {
                plain.push(c);
            }
        }
        let words: Vec<String> = plain
            .split(|c: char| !c.is_alphabetic() && c != '\'')
            .map(str::to_lowercase)
            .collect();
        if let Some(w) = words.iter().find(|w| english.contains(&w.as_str())) {
            found.push(format!("{w}: {plain}"));
        }
    }
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "English on an Italian page:\n{}",
        found.join("\n")
    );
    assert!(texts.len() > 500, "{}", texts.len());
}

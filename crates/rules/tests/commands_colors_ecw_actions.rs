//! Commands & Colors ECW's typed actions: every action refuses an unknown field by name, the
//! spellings games were recorded with still parse and resolve as before, form text ("3", "on",
//! "a, b") resolves as typed values do, and every card of the Chaunce pack reaches its own
//! effect.

use serde_json::{json, Value};
use tercio_core::LogEntry;
use tercio_i18n::Lang;
use tercio_rules::commands_colors_ecw::game::{chaunce_of, Action, Sent, ACTION_NAMES};
use tercio_rules::commands_colors_ecw::tables::{command_kind, Chaunce, CHAUNCE_CARDS};
use tercio_rules::game::{Game, GameError, GameEvent};
use tercio_rules::interface::input::read_action;
use tercio_rules::report::{battle_report, Reveal};
use tercio_rules::scenario::parse;
use tercio_rules::Viewer;

/// Royalists (first to play): foot, raw foot, gallopers, dragoons, a gun and a spare unit in
/// reserve, two leaders; Parliament: foot and trotters.
const SCENARIO: &str = r#"
ruleset = "commands-colors-ecw"
title = "Actions"

[[sides]]
id = "royal"
name = "Royalists"
role = "attacker"
colour = "crimson"

[[sides]]
id = "parl"
name = "Parliament"
role = "defender"
colour = "orange"

[[leaders]]
id = "king"
name = "The King"
side = "royal"
rank = "army"

[[leaders]]
id = "rupert"
name = "Rupert"
side = "royal"
rank = "battle"

[[leaders]]
id = "essex"
name = "Essex"
side = "parl"
rank = "army"

[[units]]
id = "c1"
name = "Foot c1"
side = "royal"
type = "foot"
blocks = 4
leader = "king"
flags = ["centre", "attached"]

[[units]]
id = "c2"
name = "Raw foot c2"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
flags = ["centre", "raw"]

[[units]]
id = "ga1"
name = "Gallopers ga1"
side = "royal"
type = "gallopers"
blocks = 3
leader = "rupert"
flags = ["right"]

[[units]]
id = "dr1"
name = "Dragoons dr1"
side = "royal"
type = "dragoons"
blocks = 3
leader = "rupert"
flags = ["left"]

[[units]]
id = "ar1"
name = "Gun ar1"
side = "royal"
type = "artillery"
blocks = 2
leader = "king"
flags = ["centre"]

[[units]]
id = "sp1"
name = "Spare foot sp1"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
flags = ["centre", "spare"]

[[units]]
id = "p1"
name = "Foot p1"
side = "parl"
type = "foot"
blocks = 4
leader = "essex"
flags = ["centre"]

[[units]]
id = "p2"
name = "Foot p2"
side = "parl"
type = "foot"
blocks = 3
leader = "essex"
flags = ["left"]

[[units]]
id = "p4"
name = "Trotters p4"
side = "parl"
type = "trotters"
blocks = 3
leader = "essex"
flags = ["right"]
"#;

fn new_game(seed: u64) -> Game {
    let sc = parse("actions.toml", SCENARIO).unwrap_or_else(|d| panic!("{d:?}"));
    Game::new(sc, seed).expect("game")
}

fn act(g: &mut Game, a: Value) -> GameEvent {
    match g.act(a.clone()) {
        Ok(e) => e.clone(),
        Err(e) => panic!("{a}: {e}"),
    }
}

fn refused(g: &mut Game, a: Value) -> (String, Option<String>) {
    match g.act(a.clone()) {
        Err(GameError::Rejected(r)) => (r.code, r.field),
        Err(e) => panic!("{a}: not a rejection: {e}"),
        Ok(_) => panic!("{a}: accepted, a refusal was expected"),
    }
}

/// A dealt game whose first hand holds `card` (a command card's id).
fn dealt_with(seed: u64, card: &str) -> Game {
    let mut g = new_game(seed);
    act(&mut g, json!({"action": "deal"}));
    let n = (0..72u8)
        .find(|&n| command_kind(n).id == card)
        .expect("a command card");
    g.state["sides"][0]["hand"][0] = json!(n);
    g
}

fn events(g: &Game) -> Vec<GameEvent> {
    g.log
        .entries()
        .iter()
        .filter_map(|e| match e {
            LogEntry::Event { event, .. } => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// Every action's name, canonical and as recorded before.
fn every_action() -> Vec<&'static str> {
    ACTION_NAMES
        .iter()
        .flat_map(|(c, old)| std::iter::once(*c).chain(*old))
        .collect()
}

#[test]
fn every_action_refuses_an_unknown_field_by_name() {
    let mut g = new_game(1);
    act(&mut g, json!({"action": "deal"}));
    let engine = g.engine().expect("engine");
    for name in every_action() {
        let a = json!({"action": name, "bogus": 1});
        // In a game (the state is the dealt one) and stand-alone alike.
        let (code, field) = refused(&mut g, a.clone());
        assert_eq!(
            (code.as_str(), field.as_deref()),
            ("unknown-field", Some("bogus")),
            "{a}"
        );
        let r = engine.plan(None, &a).err().expect("refused stand-alone");
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-field", Some("bogus")),
            "{a} stand-alone"
        );
    }
    // A stand-alone melee's fields are not a game's, and a game's not a stand-alone melee's.
    let (code, field) = refused(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1", "stand_of_pikes": true}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("unknown-field", Some("stand_of_pikes"))
    );
    let r = engine
        .plan(
            None,
            &json!({"action": "melee", "unit": "c1",
                "attacker": {"class": "foot", "blocks": 3, "training": "trained"},
                "defender": {"class": "foot", "blocks": 3, "training": "trained"}}),
        )
        .err()
        .expect("refused");
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("unknown-field", Some("unit"))
    );
    // An unknown action is named as such, with the canonical names allowed.
    let (code, field) = refused(&mut g, json!({"action": "fly"}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("unknown-action", Some("action"))
    );
}

#[test]
fn the_recorded_spellings_still_parse_and_their_resolution_repeats_them() {
    for (canonical, old) in ACTION_NAMES {
        let Some(old) = old else { continue };
        let new: Sent = read_action(&json!({"action": canonical})).expect(canonical);
        let was: Sent = read_action(&json!({"action": old})).expect(old);
        assert_eq!(new.action, was.action, "{old} is {canonical}");
        assert_eq!((new.name.as_str(), was.name.as_str()), (canonical, old));
        assert_eq!(new.action.name(), canonical);
    }
    // The same turn played with either spelling: the same states, and each resolution names
    // the action as it was sent (so a recorded game verifies unchanged).
    let mut a = new_game(5);
    let mut b = new_game(5);
    for (g, end) in [(&mut a, "end_turn"), (&mut b, "end-turn")] {
        act(g, json!({"action": "deal"}));
        // The first card of the hand the rules let the side play.
        let hand: Vec<u8> =
            serde_json::from_value(g.state["sides"][0]["hand"].clone()).expect("hand");
        assert!(hand.iter().any(|&c| g
            .act(json!({"action": "play", "card": command_kind(c).id, "mode": "order"}))
            .is_ok()));
        let e = act(g, json!({"action": end}));
        assert_eq!(e.resolution.action, end);
        g.verify().expect("the game verifies");
    }
    assert_eq!(a.state, b.state);
    // The forms offer the canonical names.
    let forms = a.engine().expect("engine").forms(&a.state, None);
    let names: Vec<&str> = forms.iter().map(|f| f.action.as_str()).collect();
    assert!(names.iter().all(|n| !n.contains('_')), "{names:?}");
}

#[test]
fn form_text_and_typed_values_resolve_the_same() {
    let typed = [
        json!({"action": "deal", "referee_sees_hands": false}),
        json!({"action": "play", "card": "probe-centre"}),
        json!({"action": "order", "unit": "c1", "adjacent_enemy": true}),
        json!({"action": "move", "unit": "c1", "hexes": 1, "leave_stand": false}),
        json!({"action": "melee", "unit": "c1", "target": "p1", "terrain": 1,
            "target_room": 0, "attacker_room": 2, "target_ignores": 0}),
        json!({"action": "respond", "response": "none"}),
    ];
    let text = [
        json!({"action": "deal", "referee_sees_hands": "off"}),
        json!({"action": "play", "card": " probe-centre "}),
        json!({"action": "order", "unit": "c1", "adjacent_enemy": "on"}),
        json!({"action": "move", "unit": "c1", "hexes": "1", "leave_stand": ""}),
        json!({"action": "melee", "unit": "c1", "target": "p1", "terrain": "1",
            "target_room": "0", "attacker_room": " 2", "target_ignores": ""}),
        json!({"action": "respond", "response": "none"}),
    ];
    let play = |actions: &[Value]| {
        let mut g = new_game(9);
        for (i, a) in actions.iter().enumerate() {
            if i == 1 {
                let n = (0..72u8)
                    .find(|&n| command_kind(n).id == "probe-centre")
                    .expect("card");
                g.state["sides"][0]["hand"][0] = json!(n);
            }
            act(&mut g, a.clone());
        }
        g
    };
    let (a, b) = (play(&typed), play(&text));
    assert_eq!(a.state, b.state);
    for (x, y) in events(&a).iter().zip(events(&b).iter()) {
        assert_eq!(x.resolution, y.resolution);
        assert_eq!(x.effects, y.effects);
        assert_eq!(x.draws, y.draws);
    }
    // Lists of ids: an array or one text separated by commas.
    let list: Sent =
        read_action(&json!({"action": "resolve-chaunce", "candidates": ["c1", "c2"]})).expect("");
    let line: Sent =
        read_action(&json!({"action": "resolve_chaunce", "candidates": "c1, c2,"})).expect("");
    assert_eq!(list.action, line.action);
    assert!(
        matches!(line.action, Action::ResolveChaunce { ref candidates, .. } if candidates.len() == 2)
    );
    // A value that is not a number at all is refused by the reading, naming its field.
    let mut g = dealt_with(9, "probe-centre");
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    let (code, field) = refused(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": "two"}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("bad-field", Some("hexes"))
    );
}

/// What each card's effect says (its summary, steps and chronicle), and the table's answers
/// for the cards that ask for them.
fn card_case(card: Chaunce) -> (&'static str, &'static [(&'static str, &'static str)]) {
    match card {
        // Trained or raw: one step up; a veteran, militia or gun: no effect by the rules (decision 37).
        Chaunce::PrinceAmongSarjeants => ("becomes|no effect (militia, veteran or artillery", &[]),
        Chaunce::StSwithun => ("no ranged combat for 2 complete turns", &[]),
        Chaunce::ArtilleryHorses => ("your artillery cannot move", &[]),
        Chaunce::BadPowder => ("may not fire this turn", &[]),
        Chaunce::Chickweed => ("your mounted units move 1 hex less", &[]),
        Chaunce::DamnedTurncotes => (
            "may move up to 3 hexes to join its new comrades",
            &[("candidates", "c2")],
        ),
        Chaunce::ExceedingNervose => ("retires 3 hexes", &[("candidates", "c1")]),
        // The rules' own no-op: the turn goes on.
        Chaunce::FalseAlarum => ("take your turn as normal", &[]),
        Chaunce::FriendlyFire => ("Friendly Fire", &[("candidates", "c1")]),
        Chaunce::Fumblethumbs => (
            "Fumblethumbs: Foot c1, the last foot to fire",
            &[("room", "1")],
        ),
        Chaunce::GoingForIt => (
            "charges Foot p1",
            &[("candidates", "ga1"), ("target", "p1")],
        ),
        Chaunce::GrimmeReaper => ("desert", &[]),
        Chaunce::HotForRevenge => ("+1 die in combat for the rest of the day", &[]),
        Chaunce::NeverTouchTheStuff => ("-1 die in all combat (I Shall Never Touch", &[]),
        Chaunce::LayDownYourArmes => ("prisoner guards", &[("candidates", "c2"), ("target", "p1")]),
        Chaunce::MyLordYouArePayle => ("My Lord, You Are Payle:", &[]),
        Chaunce::NoOrders => ("every attached leader detaches", &[]),
        Chaunce::OBuggerIt => ("O Bugger It", &[]),
        Chaunce::OldDavey => ("the ford becomes fordable", &[("candidates", "the ford")]),
        Chaunce::TwoInchesDepe => ("the ford becomes unfordable", &[("candidates", "the ford")]),
        Chaunce::Rabbits => ("loses a block and cannot move this turn", &[]),
        Chaunce::SoftGoing => ("all mounted troops move 1 hex less", &[]),
        Chaunce::CoronelsTrubble => ("takes no orders until a leader is attached", &[]),
        Chaunce::TheDizziness => ("pick one card of the hand, unseen", &[]),
        Chaunce::FoggeOfWar => ("command cards discarded and", &[]),
        Chaunce::InspiredWorde => ("+1 die in all combat (The Inspired Worde)", &[]),
        Chaunce::GoldInTheBaggage => ("+1 die in all combat (They Say There Is Gold", &[]),
        Chaunce::TwasButAMistake => ("Rupert returns on your baseline", &[]),
        Chaunce::BiterBit => (
            "must take a Chaunce card at the start of their next turn",
            &[],
        ),
        Chaunce::DevilsMatch => (
            "The Devil's Match: Gun ar1 rolls one die",
            &[("target", "p1")],
        ),
        Chaunce::VictoryeIsOurs => ("become rash gallopers", &[]),
        Chaunce::WeakBridge => (
            "Weak Bridge: the bridge collapses",
            &[("candidates", "the bridge"), ("target", "")],
        ),
        Chaunce::WereBack => ("We're Back: one battle die for the type", &[]),
        Chaunce::WhatWasInThatBarn => (
            "the barn burns for the rest of the day",
            &[("candidates", "the barn")],
        ),
        Chaunce::WhoDrewThisMappe => ("finds itself in a marsh", &[("candidates", "c1")]),
    }
}

/// Each card of the pack drawn in a game of seed 7, on top of the pack, by the Royalists (who
/// have a target for every card: a raw unit, horse, a gun, a spare unit, a leader lost, the
/// last foot to fire): its effect's own words come out, and it is never ignored as finding no
/// target.
#[test]
fn every_chaunce_card_reaches_its_own_effect() {
    let mut seen = Vec::new();
    for card in &CHAUNCE_CARDS {
        assert!(!seen.contains(&card.card), "{} twice", card.id);
        seen.push(card.card);
        let (marker, answers) = card_case(card.card);
        let mut g = new_game(7);
        act(&mut g, json!({"action": "deal"}));
        let n = (0..=45u8)
            .find(|&n| chaunce_of(n).id == card.id)
            .expect("in the pack");
        g.state["pack"] = json!([n]);
        g.state["pack_count"] = json!(1);
        g.state["phase"] = json!("chaunce");
        g.state["last_foot_fired"] = json!("c1");
        let rupert = g.state["leaders"]
            .as_array()
            .and_then(|l| l.iter().position(|x| x["id"] == "rupert"))
            .expect("rupert");
        g.state["leaders"][rupert]["gone"] = json!("lost at the start of the test");
        let mut said = Vec::new();
        let mut note = |e: &GameEvent| {
            said.push(e.resolution.summary.clone());
            for s in &e.resolution.steps {
                said.push(format!("{}: {}", s.title, s.result));
            }
        };
        note(&act(&mut g, json!({"action": "draw-chaunce"})));
        let mut answers = answers.iter();
        while g.state["phase"] == "chaunce-resolve" {
            let (field, answer) = answers.next().copied().unwrap_or(("target", ""));
            note(&act(
                &mut g,
                json!({"action": "resolve-chaunce", field: answer}),
            ));
        }
        if g.state["phase"] == "dizziness" {
            note(&act(&mut g, json!({"action": "dizzy-pick", "position": 1})));
        }
        let chronicle = g.state["chronicle"].to_string();
        let all = tercio_i18n::localize(
            tercio_i18n::Lang::En,
            &format!("{}\n{chronicle}", said.join("\n")),
        );
        assert!(
            marker.split('|').any(|m| all.contains(m)),
            "{}: {marker:?} not in\n{all}",
            card.id
        );
        assert!(
            !all.contains("it finds no target"),
            "{}: ignored\n{all}",
            card.id
        );
        assert!(g.state["chaunce"].is_null(), "{}: still waiting", card.id);
    }
    assert_eq!(seen.len(), CHAUNCE_CARDS.len());
}

/// The battle report's line for each army, in English.
fn forces_line(g: &Game, side: &str) -> String {
    let c = g.commitment();
    let md = battle_report(
        g,
        &Viewer::GameMaster,
        &Reveal {
            commitment: &c,
            seed: None,
            concluded: false,
            fingerprint: None,
        },
        Lang::En,
    )
    .expect("a report");
    md.lines()
        .find(|l| l.starts_with(&format!("- **{side}**")))
        .unwrap_or_else(|| panic!("no line for {side} in\n{md}"))
        .to_string()
}

/// Draw `card` from the top of the pack as the Royalists' Chaunce card.
fn royalists_draw(g: &mut Game, card: &str) -> GameEvent {
    let n = (0..=45u8)
        .find(|&n| chaunce_of(n).id == card)
        .expect("in the pack");
    let mut pack: Vec<u64> = g.state["pack"]
        .as_array()
        .expect("pack")
        .iter()
        .filter_map(Value::as_u64)
        .filter(|&c| c != u64::from(n))
        .collect();
    pack.push(u64::from(n));
    g.state["pack"] = json!(pack);
    g.state["phase"] = json!("chaunce");
    act(g, json!({"action": "draw-chaunce"}))
}

/// Decision 60: a unit held in reserve for We're Back is counted in the battle report only once
/// it has come onto the table, and is never a target while it waits.
#[test]
fn decision_60_the_battle_report_counts_only_the_units_that_took_the_field() {
    let mut g = new_game(7);
    act(&mut g, json!({"action": "deal"}));
    // Foot c1 4, raw foot c2 3, gallopers 3, dragoons 3, gun 2; the spare foot (3) waits.
    assert_eq!(
        forces_line(&g, "Royalists"),
        "- **Royalists**: 5 units, 15 blocks"
    );
    assert_eq!(
        forces_line(&g, "Parliament"),
        "- **Parliament**: 3 units, 10 blocks"
    );
    // Friendly Fire's gun cannot fire on a unit that is not on the table, nor on itself.
    royalists_draw(&mut g, "friendly-fire");
    assert_eq!(g.state["phase"], "chaunce-resolve");
    for not_there in ["sp1", "ar1"] {
        let (code, field) = refused(
            &mut g,
            json!({"action": "resolve-chaunce", "candidates": not_there}),
        );
        assert_eq!(
            (code.as_str(), field.as_deref()),
            ("bad-candidate", Some("candidates")),
            "{not_there}"
        );
    }
    // We're Back with an Infantry symbol: the spare foot comes on, and counts from then on.
    let seed = (1..60u64)
        .find(|&seed| {
            let mut g = new_game(seed);
            act(&mut g, json!({"action": "deal"}));
            royalists_draw(&mut g, "were-back");
            g.state["units"][5]["spare"] == false
        })
        .expect("a seed whose We're Back die shows Infantry");
    let mut g = new_game(seed);
    act(&mut g, json!({"action": "deal"}));
    royalists_draw(&mut g, "were-back");
    assert_eq!(g.state["units"][5]["id"], "sp1");
    assert_eq!(g.state["units"][5]["spare"], false);
    assert_eq!(
        forces_line(&g, "Royalists"),
        "- **Royalists**: 6 units, 18 blocks"
    );
}

//! Games: the fold over the log, undo as a void, the dice never rewinding, replay, and randomly
//! played games that always replay exactly.

mod common;
use common::{en, root};
use proptest::prelude::*;
use serde_json::{json, Value};
use tercio_rules::app_driven::model::{GameState, Phase};
use tercio_rules::game::Game;
use tercio_rules::scenario::parse;

fn scenario(rules: &str, name: &str) -> tercio_rules::scenario::Scenario {
    let p = root().join("scenarios").join(rules).join(name);
    parse(
        &p.display().to_string(),
        &std::fs::read_to_string(&p).expect("read"),
    )
    .expect("valid")
}

fn state(g: &Game) -> GameState {
    serde_json::from_value(g.state.clone()).expect("state")
}

/// Take an initiative and give it to the first eligible leader of the winning side.
fn take_initiative(g: &mut Game) -> Option<String> {
    g.act(json!({"action": "initiative"})).ok()?;
    let st = state(g);
    let side = st.initiative_side.clone()?;
    let leader = st
        .leaders
        .values()
        .find(|l| l.side == side && l.fate.is_none() && !l.had_initiative && !l.caught_up)?
        .id
        .clone();
    g.act(json!({"action": "command", "leader": leader}))
        .expect("command");
    Some(leader)
}

#[test]
fn undo_voids_and_the_dice_do_not_rewind() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 7).expect("game");
    let leader = take_initiative(&mut g).expect("initiative");
    let st = state(&g);
    let l = &st.leaders[leader.as_str()];
    let unit = st
        .units
        .values()
        .find(|u| tercio_rules::app_driven::game::commands(&st, l, u))
        .expect("a unit")
        .id
        .clone();
    let before = g.state.clone();
    let pos = g.stream_pos();
    g.act(json!({"action": "regroup", "actor": unit}))
        .expect("rest");
    g.act(json!({"action": "initiative"}))
        .expect("next initiative");
    let rolled_pos = g.stream_pos();
    assert!(rolled_pos > pos);
    let n = g.log.entries().len();
    g.undo().expect("undo");
    g.undo().expect("undo");
    assert_eq!(
        g.log.entries().len(),
        n + 2,
        "voids are appended, nothing removed"
    );
    assert_eq!(g.state, before, "state is the fold of the live events");
    assert_eq!(g.stream_pos(), rolled_pos, "undo never rewinds the dice");
    // The same initiative roll again draws new dice.
    g.act(json!({"action": "regroup", "actor": unit}))
        .expect("rest again");
    assert_eq!(g.replay(), Ok(5));
}

#[test]
fn rejected_actions_change_nothing() {
    let mut g = Game::new(scenario("bloody-dismal-fight", "agincourt-1415.toml"), 1).expect("game");
    let snapshot = g.clone();
    // No initiative yet: no unit may act.
    let unit = state(&g).units.keys().next().cloned().expect("unit");
    let err = g
        .act(json!({"action": "advance", "actor": unit}))
        .expect_err("rejected");
    assert!(err.to_string().contains("no-activation"), "{err}");
    assert!(g.act(json!({"action": "end-turn"})).is_err());
    assert!(g
        .act(json!({"action": "melee", "actor": unit, "target": "nobody"}))
        .is_err());
    assert_eq!(g, snapshot);
}

fn play(rules: &str, file: &str, seed: u64, choices: &[u8]) -> Game {
    let mut g = Game::new(scenario(rules, file), seed).expect("game");
    tercio_rules::autoplay::play(&mut g, choices, 40).expect("play");
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn random_games_replay_exactly(seed in any::<u64>(), choices in prop::collection::vec(any::<u8>(), 1..20), egc in any::<bool>()) {
        let (rules, file) = if egc { ("el-gran-capitan", "pavia-1525.toml") } else { ("bloody-dismal-fight", "brustem-1467.toml") };
        let g = play(rules, file, seed, &choices);
        // The game moved on: into its second turn, or to its end.
        let st = state(&g);
        prop_assert!(st.turn >= 2 || st.phase == Phase::Over, "turn {} {:?}, {} entries", st.turn, st.phase, g.log.entries().len());
        prop_assert_eq!(g.replay().map(|_| ()), Ok(()));
        prop_assert_eq!(g.refold().expect("fold"), g.state.clone());
        // Determinism: the same seed and the same choices give the same game, byte for byte.
        let again = play(rules, file, seed, &choices);
        prop_assert_eq!(serde_json::to_string(&g).unwrap_or_default(), serde_json::to_string(&again).unwrap_or_default());
    }
}

#[test]
fn tampered_logs_fail_replay() {
    let g = play("el-gran-capitan", "cerignola-1503.toml", 99, &[1, 2, 3]);
    assert!(g.replay().is_ok());
    let mut bad = g.clone();
    let mut entries = g.log.entries().to_vec();
    for e in entries.iter_mut() {
        if let tercio_core::LogEntry::Event { event, .. } = e {
            if let Some(d) = event.draws.first_mut() {
                d.face = if d.face == 6 { 1 } else { d.face + 1 };
                break;
            }
        }
    }
    bad.log = tercio_core::EventLog::from_entries(entries).expect("numbered");
    assert!(bad.replay().is_err());
    let mut bad = g.clone();
    bad.state["turn"] = json!(99);
    assert!(bad.replay().is_err());
}

#[test]
fn break_points_and_a_draw() {
    // Destroy units on both sides until both break in the same turn.
    let mut g = Game::new(scenario("bloody-dismal-fight", "agincourt-1415.toml"), 3).expect("game");
    let st = state(&g);
    let engine = g.engine().expect("engine");
    let mut effects = vec![];
    for u in st.units.values() {
        effects.push(json!({"effect": "unit", "unit": u.id, "status": "demoralized", "lost": u.bases, "destroyed": true}));
    }
    engine
        .apply(&mut g.state, &Value::Array(effects))
        .expect("apply");
    let st = state(&g);
    let ch = &*tercio_rules::bloody_dismal_fight::CHARTS;
    for s in &st.sides {
        let (lost, bp) = tercio_rules::app_driven::game::break_points(ch, &st, &s.id);
        let units = st.units.values().filter(|u| u.side == s.id).count() as u32;
        assert_eq!(bp, units + u32::from(s.camp));
        assert!(lost >= bp);
    }
    g.state["phase"] = json!("end-of-turn");
    assert!(
        g.act(json!({"action": "end-turn"})).is_err(),
        "the end-of-turn fire comes first"
    );
    g.state["end_fire_done"] = json!(true);
    let ev = g
        .act(json!({"action": "end-turn"}))
        .expect("end turn")
        .clone();
    assert!(
        en(&ev.resolution.summary).contains("draw"),
        "{}",
        ev.resolution.summary
    );
    assert_eq!(state(&g).phase, Phase::Over);
    assert!(g.act(json!({"action": "initiative"})).is_err());
}

#[test]
fn the_example_turn_plays_and_simultaneous_fire_adds_up() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let dir = root().join("examples/el-gran-capitan/game");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('0'))
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 9);
    for f in &files {
        let a: Value =
            serde_json::from_str(&std::fs::read_to_string(f).expect("read")).expect("json");
        let before = state(&g);
        let ev = g
            .act(a.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            .clone();
        if a["action"] == "end-fire" {
            // Each fire step reports the levels it took; together they are applied once.
            let target = "french-foot-pike";
            let mut levels = 0u8;
            for step in
                ev.resolution.steps.iter().filter(|s| {
                    en(&s.title).starts_with("Fire:") && s.title.contains("French foot")
                })
            {
                let result = en(&step.result);
                levels += if result.starts_with("Devastating") {
                    2
                } else if result.contains("loses a level") {
                    1
                } else {
                    0
                };
            }
            let b = &before.units[target];
            let expect =
                tercio_rules::app_driven::model::lose_levels(b.cond(), b.bases, levels, false);
            let after = &state(&g).units[target];
            assert_eq!(
                (after.status, after.lost),
                (expect.status, expect.lost),
                "levels {levels}"
            );
        }
    }
    assert_eq!(state(&g).turn, 2);
    assert!(g
        .act(
            serde_json::from_str(
                &std::fs::read_to_string(dir.join("assign-command.json")).expect("read")
            )
            .expect("json")
        )
        .is_err());
    assert_eq!(g.replay(), Ok(9));
}

#[test]
fn leaders_follow_the_texts_in_a_game() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let dir = root().join("examples/el-gran-capitan/game");
    for f in ["01-initiative.json", "02-command.json", "03-attach.json"] {
        g.act(
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).expect("read"))
                .expect("json"),
        )
        .expect("act");
    }
    let code = |g: &mut Game, a: Value| g.act(a).err().map(|e| e.to_string()).unwrap_or_default();
    // A leader with the unit cannot be left out of its melee by unticking the box.
    let e = code(
        &mut g,
        json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "leader_with_actor": false}),
    );
    assert!(e.contains("leader-attached"), "{e}");
    // The target's leader fights only if attached to it.
    let e = code(
        &mut g,
        json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "leader_with_target": "gonzalo"}),
    );
    assert!(e.contains("leader-not-with-unit"), "{e}");
    g.act(json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"})).expect("charge");
    // Once in a melee, the leader may not move this turn.
    let e = code(
        &mut g,
        json!({"action": "attach", "leader": "chandieu", "unit": "swiss-second-block"}),
    );
    assert!(e.contains("leader-fought"), "{e}");
    assert!(state(&g).leaders["chandieu"].fought);
}

#[test]
fn the_turn_sequence_cannot_be_skipped_or_rerolled() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    g.act(json!({"action": "initiative"})).expect("initiative");
    let e = g
        .act(json!({"action": "initiative"}))
        .expect_err("no re-roll before the command");
    assert!(e.to_string().contains("initiative-pending"), "{e}");
    g.act(json!({"action": "command", "leader": "chandieu"}))
        .expect("command");
    g.act(json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"})).expect("charge");
    g.act(json!({"action": "end-initiatives"}))
        .expect("end initiatives");
    let e = g
        .act(json!({"action": "end-turn"}))
        .expect_err("fire first");
    assert!(e.to_string().contains("end-fire-first"), "{e}");
    g.act(
        json!({"action": "end-fire", "fires": [], "swiss_without_targets": ["swiss-second-block"]}),
    )
    .expect("end fire");
    let e = g
        .act(json!({"action": "end-fire", "fires": []}))
        .expect_err("once");
    assert!(e.to_string().contains("end-fire-done"), "{e}");
    g.act(json!({"action": "end-turn"})).expect("end turn");
    // Turn 2: a melee of an ongoing combat needs no target when there is one enemy in contact.
    let st = state(&g);
    if st.units["swiss-first-block"]
        .in_combat_with
        .contains("spanish-pike-left")
    {
        g.act(json!({"action": "initiative"})).expect("initiative");
        let side = state(&g).initiative_side.expect("side");
        let leader = if side == "french" {
            "nemours"
        } else {
            "gonzalo"
        };
        g.act(json!({"action": "command", "leader": leader}))
            .expect("command");
        let actor = if side == "french" {
            "swiss-first-block"
        } else {
            "spanish-pike-left"
        };
        let ev = g
            .act(json!({"action": "melee", "actor": actor}))
            .expect("melee with its only enemy")
            .clone();
        assert!(
            en(&ev.resolution.steps[0].title).starts_with("Melee"),
            "{:?}",
            ev.resolution.steps[0].title
        );
    }
    assert!(g.replay().is_ok());
}

#[test]
fn end_of_turn_fire_uses_each_base_once_and_its_odds_add_up() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    g.act(json!({"action": "end-initiatives"}))
        .expect("end initiatives");
    let waive = json!(["swiss-first-block", "swiss-second-block"]);
    let twice = json!({"action": "end-fire", "swiss_without_targets": waive, "fires": [
        {"action": "fire", "actor": "spanish-arquebusiers-centre", "target": "swiss-first-block"},
        {"action": "fire", "actor": "spanish-arquebusiers-centre", "target": "swiss-second-block"}]});
    let e = g
        .act(twice)
        .expect_err("one unit, fired twice with all its bases");
    assert!(e.to_string().contains("bad-firing-bases"), "{e}");
    let split = json!({"action": "end-fire", "swiss_without_targets": waive, "fires": [
        {"action": "fire", "actor": "spanish-arquebusiers-centre", "target": "swiss-first-block", "firing_bases": 1},
        {"action": "fire", "actor": "spanish-arquebusiers-right", "target": "swiss-first-block"},
        {"action": "fire", "actor": "spanish-arquebusiers-centre", "target": "swiss-second-block", "firing_bases": 1}]});
    let engine = g.engine().expect("engine");
    let plan = engine
        .plan(Some(&g.state), &split)
        .expect("split fire is allowed");
    let rep = tercio_rules::odds::odds(&plan);
    assert!((rep.total - 1.0).abs() < 1e-9);
    for f in &rep.facets {
        let sum: f64 = f.values.iter().map(|(_, p)| p).sum();
        assert!((sum - 1.0).abs() < 1e-9, "{}: {sum}", f.facet);
    }
    g.act(split).expect("end fire");
    let e = g.act(json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ferocious": true})).expect_err("too late");
    assert!(e.to_string().contains("wrong-phase"), "{e}");
    let e = g.act(json!({"action": "end-turn", "camps_sacked": [{"side": "spanish", "by": ["gascon-skirmishers"]}, {"side": "spanish", "by": ["gascon-skirmishers"]}]})).expect_err("one camp, once");
    assert!(e.to_string().contains("duplicate-camp"), "{e}");
}

#[test]
fn command_passes_down_a_chain_of_fallen_leaders_and_the_initiative_dies_with_its_holder() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let engine = g.engine().expect("engine");
    g.act(json!({"action": "initiative"})).expect("initiative");
    g.act(json!({"action": "command", "leader": "chandieu"}))
        .expect("command");
    engine
        .apply(
            &mut g.state,
            &json!([{"effect": "leader-fate", "leader": "chandieu", "fate": "killed"}]),
        )
        .expect("apply");
    let st = state(&g);
    assert!(
        st.current.is_none() && st.initiative_side.is_none(),
        "the next initiative is rolled for"
    );
    // Chandieu's battle passes to d'Ars, who falls in turn; his command passes to d'Alegre.
    engine
        .apply(
            &mut g.state,
            &json!([
        {"effect": "command-assigned", "from": "chandieu", "to": "louis-d-ars"},
        {"effect": "leader-fate", "leader": "louis-d-ars", "fate": "captured"},
        {"effect": "command-assigned", "from": "louis-d-ars", "to": "yves-d-alegre"}]),
        )
        .expect("apply");
    let st = state(&g);
    let alegre = &st.leaders["yves-d-alegre"];
    assert!(
        tercio_rules::app_driven::game::commands(&st, alegre, &st.units["swiss-first-block"]),
        "Chandieu's Swiss are still commanded"
    );
    assert!(!tercio_rules::app_driven::game::commands(
        &st,
        &st.leaders["pedro-navarro"],
        &st.units["swiss-first-block"]
    ));
}

#[test]
fn a_melee_opens_a_combat_between_units_that_touch_without_a_charge() {
    // Issue 17, item 10: a second enemy in contact, or contact after an occupying move.
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    g.act(json!({"action": "initiative"})).expect("initiative");
    let side = state(&g).initiative_side.expect("side");
    let (leader, actor, target) = if side == "french" {
        ("chandieu", "swiss-first-block", "spanish-pike-left")
    } else {
        ("gonzalo", "landsknechts-first-block", "swiss-first-block")
    };
    g.act(json!({"action": "command", "leader": leader}))
        .expect("command");
    let melee = json!({"action": "melee", "actor": actor, "target": target});
    let e = g.act(melee.clone()).expect_err("no combat yet");
    assert!(e.to_string().contains("not-in-combat"), "{e}");
    // Refused at the tick that lifts it, which the page labels "In contact without a Charge".
    let tercio_rules::game::GameError::Rejected(r) = &e else {
        panic!("{e}")
    };
    assert_eq!(r.field.as_deref(), Some("in_contact"), "{e}");
    assert!(en(&r.message).contains("tick this"), "{e}");
    let mut touching = melee.clone();
    touching["in_contact"] = json!(true);
    let ev = g.act(touching).expect("they touch on the table").clone();
    assert!(en(&ev.resolution.steps[0].title).starts_with("Melee: "));
    let st = state(&g);
    let (a, t) = (&st.units[actor], &st.units[target]);
    if !a.destroyed && !t.destroyed {
        assert!(a.in_combat_with.contains(target), "the combat is recorded");
        assert!(t.in_combat_with.contains(actor));
    }
    assert!(a.acted, "the actor has acted");
}

#[test]
fn a_unit_leaves_the_table_uncounted_and_a_late_one_arrives_on_its_turn() {
    // Issue 17, item 12: Cerignola's Spanish guns leave at the start of turn 2, uncounted; the
    // French guns may not act, nor be a target, before turn 3; the game master may take any unit
    // off the table without counting it as lost.
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let bp = |g: &Game, side: &str| {
        let st = state(g);
        let engine = tercio_rules::el_gran_capitan::tables::charts();
        tercio_rules::app_driven::game::break_points(&engine, &st, side).0
    };
    let e = g
        .act(json!({"action": "fire", "actor": "french-guns", "target": "spanish-pike-left"}))
        .expect_err("not there yet");
    assert!(e.to_string().contains("not-arrived"), "{e}");
    assert!(en(&e.to_string()).contains("before turn 3"), "{e}");
    // Nor is it a target.
    let st = state(&g);
    assert!(!st.units["french-guns"].on_table(st.turn));
    // The game master removes a unit: gone, not counted.
    let before = bp(&g, "french");
    let ev = g
        .act(json!({"action": "remove", "unit": "gascon-skirmishers"}))
        .expect("remove")
        .clone();
    assert!(en(&ev.resolution.summary).contains("does not count"));
    let st = state(&g);
    assert!(st.units["gascon-skirmishers"].destroyed);
    assert_eq!(bp(&g, "french"), before, "an uncounted loss");
    let e = g
        .act(json!({"action": "remove", "unit": "gascon-skirmishers"}))
        .expect_err("already gone");
    assert!(e.to_string().contains("unknown-unit"), "{e}");
    // To the end of turn 1: the Spanish guns leave as turn 2 begins, uncounted.
    let spanish = bp(&g, "spanish");
    g.act(json!({"action": "end-initiatives"}))
        .expect("end initiatives");
    g.act(json!({"action": "end-fire", "fires": [], "swiss_without_targets": ["swiss-first-block", "swiss-second-block"]}))
        .expect("end fire");
    let ev = g
        .act(json!({"action": "end-turn"}))
        .expect("end turn")
        .clone();
    assert!(en(&ev.resolution.summary).contains("Spanish guns among the vines leaves the battle"));
    let st = state(&g);
    assert_eq!(st.turn, 2);
    assert!(st.units["spanish-guns"].destroyed);
    assert_eq!(bp(&g, "spanish"), spanish, "their loss does not count");
    assert!(
        !st.units["french-guns"].on_table(st.turn),
        "turn 2: not yet"
    );
}

/// Both seeds, 'Supporting' units: "All units involved in the combat will be considered to have
/// acted ... Any Leaders attached to any unit involved in the combat will also be considered to
/// have acted for the current turn, and may not be subsequently given an Initiative." A charge
/// names its supporting units; their bases count in the force ratio as the bases given alone
/// did, and they and their leaders have acted (a supporting leader was not in the Melee with the
/// Actor or the Target, so he may still move). Fails on the code before, which knew no named
/// supporting units, and on any change of what they mark or count.
#[test]
fn named_supporting_units_count_in_the_force_and_have_acted_with_their_leaders() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let dir = root().join("examples/el-gran-capitan/game");
    for f in ["01-initiative.json", "02-command.json", "03-attach.json"] {
        g.act(
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).expect("read"))
                .expect("json"),
        )
        .expect("act");
    }
    // A leader with each supporting unit: the French one stands with the second Swiss block,
    // the Spanish one with the sword-and-buckler men of the left.
    g.act(json!({"action": "attach", "leader": "louis-d-ars", "unit": "swiss-second-block"}))
        .expect("attach");
    g.act(json!({"action": "attach", "leader": "garcia-de-paredes", "unit": "rodeleros-left"}))
        .expect("attach");
    let refused = |g: &Game, a: Value| match g.clone().act(a) {
        Err(tercio_rules::game::GameError::Rejected(r)) => {
            (r.code.clone(), r.field.clone().unwrap_or_default())
        }
        other => panic!(
            "accepted: {:?}",
            other.map(|e| e.resolution.summary.clone())
        ),
    };
    let charge = |extra: Value| {
        let mut a = json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"});
        for (k, v) in extra.as_object().expect("object") {
            a[k] = v.clone();
        }
        a
    };
    for (extra, code, field) in [
        (
            json!({"supporting_actor_units": ["swiss-second-block"], "supporting_actor_bases": 5}),
            "supporting-units-and-bases",
            "supporting_actor_bases",
        ),
        (
            json!({"supporting_actor_units": ["no-such-unit"]}),
            "unknown-unit",
            "supporting_actor_units",
        ),
        (
            json!({"supporting_actor_units": ["swiss-first-block"]}),
            "same-unit",
            "supporting_actor_units",
        ),
        (
            json!({"supporting_target_units": ["spanish-pike-left"]}),
            "same-unit",
            "supporting_target_units",
        ),
        (
            json!({"supporting_actor_units": ["rodeleros-left"]}),
            "wrong-side",
            "supporting_actor_units",
        ),
        (
            json!({"supporting_target_units": ["swiss-second-block"]}),
            "wrong-side",
            "supporting_target_units",
        ),
        (
            json!({"supporting_actor_units": "swiss-second-block, swiss-second-block"}),
            "duplicate-unit",
            "supporting_actor_units",
        ),
        (
            json!({"supporting_actor_units": ["french-guns"]}),
            "not-arrived",
            "supporting_actor_units",
        ),
    ] {
        assert_eq!(
            refused(&g, charge(extra.clone())),
            (code.to_string(), field.to_string()),
            "{extra}"
        );
    }
    // A unit off the table supports no one.
    let mut gone = g.clone();
    gone.act(json!({"action": "remove", "unit": "gascon-skirmishers"}))
        .expect("remove");
    assert_eq!(
        refused(
            &gone,
            charge(json!({"supporting_actor_units": ["gascon-skirmishers"]}))
        ),
        ("unit-destroyed".into(), "supporting_actor_units".into())
    );
    // Stand-alone, supporting units are given as bases.
    let alone = tercio_rules::lookup("egc")
        .expect("egc")
        .engine(None)
        .expect("engine");
    let r = alone
        .plan(
            None,
            &json!({"action": "melee", "actor": {"type": "footmen", "bases": 3}, "target": {"type": "footmen", "bases": 3}, "supporting_actor_units": ["a"]}),
        )
        .err()
        .expect("no game");
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("unit-id-without-game", Some("supporting_actor_units"))
    );

    // The named units give the force the same bases given alone give (5 Swiss and 3 pikes
    // against 3 pikes and 2 sword-and-buckler men), and the same dice the same melee.
    let engine = g.engine().expect("engine");
    let rolled = |a: Value| {
        let plan = engine.plan(Some(&g.state), &a).expect("plan");
        let (o, _) = plan.roll(&mut tercio_core::DiceStream::from_seed(3));
        o
    };
    let named = rolled(charge(json!({
        "supporting_actor_units": ["swiss-second-block"],
        "supporting_target_units": ["rodeleros-left"]})));
    let counted = rolled(charge(
        json!({"supporting_actor_bases": 5, "supporting_target_bases": 2}),
    ));
    let melee = |o: &tercio_rules::Outcome| {
        let s = o
            .resolution
            .steps
            .iter()
            .find(|s| en(&s.title).starts_with("Melee"))
            .expect("a melee")
            .clone();
        (s.dice, s.modifiers, s.totals, s.result)
    };
    assert_eq!(melee(&named), melee(&counted));
    let text = en(&named.resolution.render());
    assert!(
        text.contains("Swiss pikes (second block) support Swiss pikes (first block)"),
        "{text}"
    );

    // Played: the supporting units and their leaders have acted.
    g.act(charge(json!({
        "supporting_actor_units": ["swiss-second-block"],
        "supporting_target_units": ["rodeleros-left"]})))
        .expect("charge");
    let st = state(&g);
    assert!(st.units["swiss-second-block"].acted);
    assert!(st.units["rodeleros-left"].acted);
    for l in ["louis-d-ars", "garcia-de-paredes"] {
        assert!(st.leaders[l].caught_up, "{l} has acted");
        assert!(!st.leaders[l].fought, "{l} was not in the Melee itself");
    }
    // Not in the combat the melee recorded, and no activation of theirs this turn.
    assert!(st.units["swiss-second-block"].in_combat_with.is_empty());
    assert_eq!(
        refused(
            &g,
            json!({"action": "advance", "actor": "swiss-second-block"})
        )
        .0,
        "already-acted"
    );
    // A supporting leader may still move; the one with the charger may not.
    let mut moved = g.clone();
    moved
        .act(json!({"action": "attach", "leader": "louis-d-ars"}))
        .expect("a supporting leader may still move");
    assert_eq!(
        refused(&g, json!({"action": "attach", "leader": "chandieu"})).0,
        "leader-fought"
    );
    // The attach form offers only the leaders who may move (found by `tercio fuzz`: its first
    // leader was one the rules refused, so the form as sent was refused).
    let engine = g.engine().expect("engine");
    let forms = engine.forms(&g.state, Some("french"));
    let attach = forms.iter().find(|f| f.action == "attach").expect("attach");
    let leaders: Vec<&str> = match &attach.fields[0].kind {
        tercio_rules::interface::FieldKind::Choice { options, .. } => {
            options.iter().map(|o| o.value.as_str()).collect()
        }
        k => panic!("{k:?}"),
    };
    assert!(leaders.contains(&"louis-d-ars"), "{leaders:?}");
    assert!(!leaders.contains(&"chandieu"), "{leaders:?}");
    // A unit that has acted may still support (both seeds, "Units in the Melee on both sides
    // which have already acted may influence it as Supporting units"): the French foot charge
    // into the ongoing combat, the first Swiss block beside them.
    assert!(!st.units["spanish-pike-left"].destroyed);
    g.act(
        json!({"action": "charge", "actor": "french-foot-pike", "target": "spanish-pike-left",
        "supporting_actor_units": ["swiss-first-block"]}),
    )
    .expect("an acted unit supports");
    assert_eq!(g.replay(), Ok(g.log.entries().len()));
}

/// A recorded charge that gives its supporting bases alone is accepted and comes out as before:
/// no unit is marked beyond the Actor and the Target.
#[test]
fn supporting_bases_given_alone_mark_no_other_unit() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let dir = root().join("examples/el-gran-capitan/game");
    for f in ["01-initiative.json", "02-command.json"] {
        g.act(
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).expect("read"))
                .expect("json"),
        )
        .expect("act");
    }
    let before = state(&g);
    g.act(json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle", "supporting_actor_bases": 5, "supporting_target_bases": 2}))
        .expect("charge");
    let st = state(&g);
    let acted: Vec<&str> = st
        .units
        .values()
        .filter(|u| u.acted && !before.units[u.id.as_str()].acted)
        .map(|u| u.id.as_str())
        .collect();
    assert_eq!(acted, vec!["spanish-pike-left", "swiss-first-block"]);
}

/// An activated Fire at two targets in a game (both seeds, "If a Fire action has two Target
/// units, then two calculations are performed"): both targets take their calculation's result,
/// the unit has acted once; the second target is another enemy unit; the end of the turn splits
/// a unit's fire as two fires of its list, not with a second target.
#[test]
fn an_activated_fire_at_two_targets_in_a_game() {
    let mut g = Game::new(scenario("el-gran-capitan", "cerignola-1503.toml"), 5).expect("game");
    let dir = root().join("examples/el-gran-capitan/game");
    for f in ["01-initiative.json", "02-command.json"] {
        g.act(
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).expect("read"))
                .expect("json"),
        )
        .expect("act");
    }
    let fire = |second: &str| {
        json!({"action": "fire", "actor": "gascon-crossbowmen", "target": "spanish-pike-left",
            "second_target": second, "second_firing_bases": 2, "second_ground": "obstacle"})
    };
    let refused = |a: Value| {
        let Err(tercio_rules::game::GameError::Rejected(r)) = g.clone().act(a) else {
            panic!("accepted");
        };
        (r.code, r.field.unwrap_or_default())
    };
    assert_eq!(
        refused(fire("spanish-pike-left")),
        ("duplicate-fire".into(), "second_target".into())
    );
    assert_eq!(
        refused(fire("swiss-first-block")),
        ("same-side".into(), "second_target".into())
    );
    assert_eq!(
        refused(fire("nobody")),
        ("unknown-unit".into(), "second_target".into())
    );
    let ev = g
        .act(fire("spanish-arquebusiers-centre"))
        .expect("two targets")
        .clone();
    let fires: Vec<String> = ev.resolution.steps.iter().map(|s| en(&s.title)).collect();
    assert_eq!(fires.len(), 2, "{fires:?}");
    assert!(
        fires[0].contains("Spanish pikes of the left wing"),
        "{fires:?}"
    );
    assert!(
        fires[1].contains("Arquebusiers lining the works"),
        "{fires:?}"
    );
    let effects = serde_json::to_value(&ev.effects).expect("json");
    let of = |kind: &str| -> Vec<String> {
        effects
            .as_array()
            .expect("effects")
            .iter()
            .filter(|e| e["effect"] == kind)
            .map(|e| e["unit"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(
        of("unit"),
        ["spanish-pike-left", "spanish-arquebusiers-centre"]
    );
    assert_eq!(of("acted"), ["gascon-crossbowmen"]);
    assert!(state(&g).units["gascon-crossbowmen"].acted);
    // The end of the turn: another fire of the list, not a second target.
    g.act(json!({"action": "end-initiatives"}))
        .expect("end initiatives");
    let Err(tercio_rules::game::GameError::Rejected(r)) = g.clone().act(json!({"action": "end-fire",
        "swiss_without_targets": ["swiss-first-block", "swiss-second-block"],
        "fires": [{"action": "fire", "actor": "spanish-arquebusiers-right", "target": "french-foot-pike",
            "second_target": "swiss-first-block", "second_firing_bases": 1}]}))
    else {
        panic!("accepted");
    };
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("field-not-used", Some("fires[0].second_target"))
    );
    assert_eq!(g.replay(), Ok(g.log.entries().len()));
}

//! An action folded in place says what it changed exactly as comparing the whole states does
//! ([`Engine::fold_changes`]), and undo by putting back what it replaced ([`Head::undo_restoring`],
//! the server's fast path) gives the very head an undo by folding from the start gives
//! ([`Head::undo`]), after every step of every rule set's example game.

mod common;
use common::{example_game, RULE_SETS};
use serde_json::Value;
use tercio_rules::game::Head;

#[test]
fn undo_by_restoring_agrees_with_undo_by_folding_in_every_rule_set() {
    for rules in RULE_SETS {
        let (game, steps) = example_game(rules);
        let mut head = Head::of(&game);
        let engine = head.engine().expect("engine");
        // The effects of the live events so far, for the fold.
        let mut effects: Vec<Value> = Vec::new();
        let mut restored = 0;
        for (i, step) in steps.into_iter().enumerate() {
            let before = head.state.clone();
            let Ok(a) = head.act(engine.as_ref(), step, None, None, true) else {
                continue;
            };
            let changes = a.changes.clone().expect("changes worked out");
            let restore = a.restore.clone().expect("what an undo puts back");
            let tercio_core::LogEntry::Event { seq, event } = &a.entry else {
                panic!("{rules} step {i}: an event");
            };
            // The state patched in place is the state written out whole, and the changes are
            // the diff of the two states, which bring the old state to the new one.
            let whole = engine.folded(&before, &event.effects).expect("folded");
            assert_eq!(head.state, whole, "{rules} step {i}: the state");
            assert_eq!(
                changes,
                tercio_rules::effects::diff(&before, &whole),
                "{rules} step {i}: changes"
            );
            let mut patched = before.clone();
            tercio_rules::effects::apply(&mut patched, &changes).expect("patch");
            assert_eq!(patched, head.state, "{rules} step {i}: changes");
            if head.can_restore(*seq) {
                let mut fast = head.clone();
                let by_restoring = fast
                    .undo_restoring(engine.as_ref(), restore)
                    .expect("restored")
                    .expect("voided");
                let mut slow = head.clone();
                let by_folding = slow
                    .undo(engine.as_ref(), None, &effects)
                    .expect("folded")
                    .expect("voided");
                assert_eq!(fast.state, before, "{rules} step {i}: the state before");
                assert_eq!(fast, slow, "{rules} step {i}: the heads");
                assert_eq!(by_restoring.entry, by_folding.entry, "{rules} step {i}");
                assert_eq!(by_restoring.text, by_folding.text, "{rules} step {i}");
                assert_eq!(by_restoring.changes, by_folding.changes, "{rules} step {i}");
                restored += 1;
            } else {
                let mut fast = head.clone();
                assert!(
                    fast.undo_restoring(engine.as_ref(), restore).is_err(),
                    "{rules} step {i}: an event folded into a checkpoint is not restored"
                );
            }
            effects.push(event.effects.clone());
        }
        assert!(restored >= 5, "{rules}: {restored} undos compared");
    }
}

/// A live head keeps the rule set's reading of its state between actions ([`tercio_rules::Kept`]):
/// every action it resolves and folds from that reading is the very entry (resolution, dice,
/// effects) and state that reading the recorded JSON gives, in every rule set's example game,
/// with undos between (after an undo the reading held is of another position, and unused).
#[test]
fn a_head_that_keeps_its_typed_state_acts_as_one_that_reads_the_json() {
    for rules in RULE_SETS {
        let (game, steps) = example_game(rules);
        let mut kept = Head::of(&game);
        let mut read = Head::of(&game);
        let engine = kept.engine().expect("engine");
        // Actions taken, actions compared (a refusal too: the same for both), and actions
        // planned from the kept state.
        let (mut acted, mut compared, mut from_kept) = (0, 0, 0);
        for (i, step) in steps.into_iter().enumerate() {
            for again in [false, true] {
                if kept.kept.at() == Some(kept.seq) {
                    from_kept += 1;
                }
                read.kept.clear();
                compared += 1;
                let a = kept.act(engine.as_ref(), step.clone(), None, None, true);
                let b = read.act(engine.as_ref(), step.clone(), None, None, true);
                let (a, b) = match (a, b) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(x), Err(y)) => {
                        assert_eq!(x.to_string(), y.to_string(), "{rules} step {i}");
                        break;
                    }
                    (a, b) => panic!("{rules} step {i}: {:?} against {:?}", a.err(), b.err()),
                };
                acted += 1;
                assert_eq!(a.text, b.text, "{rules} step {i}: the entry");
                assert_eq!(a.changes, b.changes, "{rules} step {i}: the changes");
                assert_eq!(kept, read, "{rules} step {i}: the heads");
                // Every fourth action is undone and taken again: the reading kept is then of a
                // position the head has left.
                if again || i % 4 != 0 || !kept.can_restore(a.entry.seq()) {
                    break;
                }
                kept.undo_restoring(engine.as_ref(), a.restore.expect("restore"))
                    .expect("undo");
                read.undo_restoring(engine.as_ref(), b.restore.expect("restore"))
                    .expect("undo");
                assert_eq!(kept, read, "{rules} step {i}: undone");
                // The reading before the event is the one kept now (a typed rule set's).
                assert_eq!(
                    kept.kept.at() == Some(kept.seq),
                    !matches!(rules, "callan-renaissance" | "commands-colors-ecw"),
                    "{rules} step {i}: the reading after the undo"
                );
            }
        }
        assert!(
            compared >= 8 && acted >= 2,
            "{rules}: {compared} actions compared, {acted} taken"
        );
        // The rule sets whose effects are patches of the JSON keep nothing; the others plan
        // most actions from what they kept.
        let patches = matches!(rules, "callan-renaissance" | "commands-colors-ecw");
        assert!(
            if patches {
                from_kept == 0
            } else {
                from_kept * 2 >= acted
            },
            "{rules}: {from_kept} of {acted} actions planned from the kept state"
        );
    }
}

/// A recorded state may not be what its typed reading writes back (recorded before a field with
/// a default existed). A head passes over the units an action left as they were only when it
/// knows the recorded state is its reading written out ([`tercio_rules::Same`]), so such a state
/// is written whole by the first action after it is read, and by the first after that action's
/// undo, exactly as the fold written out whole gives it.
#[test]
fn a_state_recorded_without_a_defaulted_field_is_written_whole_by_the_next_action() {
    let (game, steps) = example_game("el-gran-capitan");
    let mut head = Head::of(&game);
    let engine = head.engine().expect("engine");
    // Every unit's `stakes_used`, which reads as `false` when missing, is dropped.
    let strip = |state: &mut Value| {
        let units = state["units"].as_object_mut().expect("units");
        let mut stripped = 0;
        for u in units.values_mut() {
            stripped += usize::from(
                u.as_object_mut()
                    .expect("unit")
                    .remove("stakes_used")
                    .is_some(),
            );
        }
        stripped
    };
    assert!(strip(&mut head.state) >= 4, "units to strip");
    let mut checked = 0;
    for (i, step) in steps.into_iter().enumerate().take(6) {
        for undo_first in [true, false] {
            let before = head.state.clone();
            let Ok(a) = head.act(engine.as_ref(), step.clone(), None, None, true) else {
                break;
            };
            let tercio_core::LogEntry::Event { event, .. } = &a.entry else {
                panic!("step {i}: an event");
            };
            let whole = engine.folded(&before, &event.effects).expect("folded");
            assert_eq!(head.state, whole, "step {i}: the state written whole");
            assert!(
                head.state["units"]
                    .as_object()
                    .expect("units")
                    .values()
                    .all(|u| u.get("stakes_used").is_some()),
                "step {i}: every unit written"
            );
            checked += 1;
            if !undo_first || !head.can_restore(a.entry.seq()) {
                break;
            }
            // Undone, the recorded state is the stripped one again, and the reading kept is the
            // one read from it.
            head.undo_restoring(engine.as_ref(), a.restore.expect("restore"))
                .expect("undo");
            assert_eq!(head.state, before, "step {i}: undone");
        }
        // The next step acts on a state the last action wrote whole: strip it again.
        strip(&mut head.state);
        head.kept.clear();
    }
    assert!(checked >= 6, "{checked} actions checked");
}

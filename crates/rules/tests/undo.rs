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
        let initial = engine.initial_state().expect("initial state");
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
                    .undo(engine.as_ref(), 0, initial.clone(), &effects)
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

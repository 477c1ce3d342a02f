//! Choices that fit the table (issue 43, item 2), in all five rule sets, at every step of each
//! rule set's example game and for every seat: a target is one of the other side's units or
//! leaders, never the actor nor one of its side; a target the table must name is not chosen
//! for it (no default); a form with nothing to choose is not offered; the first order an ECW
//! order form offers is one the card allows, as the form sends it.

mod common;

use std::collections::BTreeMap;

use tercio_rules::game::{Game, GameError};
use tercio_rules::interface::RejectKind;
use tercio_rules::{ActionForm, FieldKind};

/// Each unit's and leader's side, by id.
fn sides_of(game: &Game) -> BTreeMap<String, String> {
    let sc = &game.scenario;
    sc.units
        .iter()
        .map(|u| (u.id.clone(), u.side.clone()))
        .chain(sc.leaders.iter().map(|l| (l.id.clone(), l.side.clone())))
        .collect()
}

/// The seats: the game master, then each side.
fn seats(game: &Game) -> Vec<Option<String>> {
    std::iter::once(None)
        .chain(game.scenario.sides.iter().map(|s| Some(s.id.clone())))
        .collect()
}

/// The fields that name what an action is aimed at.
const TARGETS: [&str; 3] = ["target", "defender", "second_target"];

/// Every target field of `f` shown for `actor` offers only units and leaders of another side.
fn targets_are_the_enemy(rules: &str, f: &ActionForm, sides: &BTreeMap<String, String>) -> usize {
    let Some(actor) = f.actor_field() else {
        return 0;
    };
    let FieldKind::Choice { options, .. } = &actor.kind else {
        return 0;
    };
    let mut checked = 0;
    for a in options {
        let Some(side) = sides.get(&a.value) else {
            continue;
        };
        for t in f
            .fields
            .iter()
            .filter(|x| TARGETS.contains(&x.name.as_str()))
        {
            let shown =
                t.only_with.is_none() && (t.only_for.is_empty() || t.only_for.contains(&a.value));
            if !shown {
                continue;
            }
            let FieldKind::Choice {
                options: targets, ..
            } = &t.kind
            else {
                continue;
            };
            for o in targets {
                assert_ne!(
                    o.value, a.value,
                    "{rules}: {} offers {} its own {}",
                    f.action, a.value, t.name
                );
                assert_ne!(
                    sides.get(&o.value),
                    Some(side),
                    "{rules}: {} offers {} ({side}) its own side's {} as {}",
                    f.action,
                    a.value,
                    o.value,
                    t.name
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn targets_are_the_other_sides_and_no_form_has_nothing_to_choose() {
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        let sides = sides_of(&game);
        let (mut checked, mut forms) = (0, 0);
        for step in steps {
            let engine = game.engine().expect("engine");
            for seat in seats(&game) {
                for f in engine.forms(&game.state, seat.as_deref()) {
                    forms += 1;
                    // A choice the action needs, always shown, with something to choose.
                    for x in &f.fields {
                        if let FieldKind::Choice {
                            options,
                            optional: false,
                        } = &x.kind
                        {
                            assert!(
                                !options.is_empty() || !x.only_for.is_empty(),
                                "{rules} {seat:?}: {} offers nothing to choose as {}",
                                f.action,
                                x.name
                            );
                        }
                    }
                    checked += targets_are_the_enemy(rules, &f, &sides);
                }
            }
            let _ = game.act(step);
        }
        assert!(forms > 20, "{rules}: {forms} forms");
        assert!(checked > 20, "{rules}: {checked} targets checked");
    }
}

/// A target the table names (which enemy a unit fires at, charges, attacks) starts with none
/// chosen, in every rule set: the page does not pick the first enemy for the game master, and
/// a form that opens asks for it rather than refusing (a field still to fill is named by the
/// refusal, so the page shows it as a hint, not a red refusal).
#[test]
fn no_target_is_chosen_for_the_table() {
    let mut seen = BTreeMap::new();
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        for step in steps {
            let engine = game.engine().expect("engine");
            for f in engine.forms(&game.state, None) {
                let targets: Vec<_> = f
                    .fields
                    .iter()
                    .filter(|x| TARGETS.contains(&x.name.as_str()))
                    .collect();
                if targets.is_empty() {
                    continue;
                }
                for t in &targets {
                    assert!(
                        matches!(t.kind, FieldKind::Choice { optional: true, .. }),
                        "{rules}: {} chooses its {} for the table",
                        f.action,
                        t.name
                    );
                }
                let sent = f.default_action(None);
                assert!(
                    sent.get("target").is_none() && sent.get("defender").is_none(),
                    "{sent}"
                );
                // Pressed as it opens: refused for the missing target, naming it (a hint).
                if f.refused.is_none() {
                    if let Err(GameError::Rejected(r)) = game.clone().act(sent.clone()) {
                        if r.kind != RejectKind::Question && r.code.starts_with("missing") {
                            assert!(r.field.is_some(), "{rules}: {sent}: {r}");
                        }
                    }
                }
                *seen.entry(rules).or_insert(0) += 1;
            }
            let _ = game.act(step);
        }
    }
    for rules in common::RULE_SETS {
        assert!(
            seen.get(rules).copied().unwrap_or(0) > 0,
            "{rules}: no form with a target"
        );
    }
}

/// ECW: the first unit an order form offers is one the card orders as the form sends it (no
/// section named, no enemy adjacent): a default the card allows; and once the card's orders
/// are spent there is no order form (it offered an empty list and a live button).
#[test]
fn ecw_orders_offer_a_legal_default_and_no_empty_form() {
    let (mut game, steps) = common::example_game("commands-colors-ecw");
    let mut orders = 0;
    for step in steps {
        let engine = game.engine().expect("engine");
        for seat in seats(&game) {
            for f in engine.forms(&game.state, seat.as_deref()) {
                if f.action != "order" {
                    continue;
                }
                let first = common::choices(&f, "unit");
                assert!(
                    !first.is_empty(),
                    "{seat:?}: an order form with no unit to order"
                );
                let sent = f.default_action(Some(&first[0]));
                let mut tried = game.clone();
                let r = tried.act(sent.clone()).err();
                assert!(r.is_none(), "{seat:?}: {sent} refused: {r:?}");
                orders += 1;
            }
        }
        let _ = game.act(step);
    }
    assert!(orders > 3, "{orders} order forms");
}

/// Whether some seat is offered a form that sends `step`: the same action (the app-driven rule
/// sets' one "Rest/Regroup" form sends both), with its fixed fields, and the unit or actor the
/// step names among its choices.
fn offered(game: &Game, step: &serde_json::Value) -> bool {
    let engine = game.engine().expect("engine");
    let action = step["action"]
        .as_str()
        .unwrap_or_default()
        .replace('_', "-");
    let action = if action == "rest" {
        "regroup".into()
    } else {
        action
    };
    seats(game).iter().any(|seat| {
        engine.forms(&game.state, seat.as_deref()).iter().any(|f| {
            f.action.replace('_', "-") == action
                && f.fixed.iter().all(|(k, v)| step.get(k) == Some(v))
                && ["actor", "unit"].iter().all(|k| {
                    step.get(*k).and_then(|v| v.as_str()).is_none_or(|id| {
                        let offered = common::choices(f, k);
                        offered.is_empty() || offered.iter().any(|o| o == id)
                    })
                })
        })
    })
}

/// Every step of each rule set's example game is offered by a form to some seat, so that the
/// page can play the whole game (issue 43, "How it is measured": played by taps only). A step
/// that tells nothing (its action alone) may be left out where the rules already go on to the
/// next one, whose form is offered: a Sword and Flame draw once one side alone has units to act
/// ("no card needed"). It failed on Commands & Colors at Tibbermore: once a first melee had
/// begun combat, no form offered the second ordered unit's melee.
#[test]
fn every_step_of_the_example_games_is_offered_by_a_form() {
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        let (mut asked, mut not_needed) = (0, 0);
        for (i, step) in steps.iter().enumerate() {
            if offered(&game, step) {
                asked += 1;
            } else {
                let lone = step.as_object().is_some_and(|o| o.len() == 1);
                assert!(
                    lone && steps.get(i + 1).is_some_and(|n| offered(&game, n)),
                    "{rules}: step {} ({step}) is offered by no form",
                    i + 1
                );
                not_needed += 1;
            }
            game.act(step.clone()).expect("the recorded step");
        }
        assert!(
            asked * 4 > steps.len() * 3,
            "{rules}: {asked} of {} offered, {not_needed} not needed",
            steps.len()
        );
    }
}

/// Whether the page shows `field` of `f` for the action `a` as filled so far
/// ([`tercio_rules::FormField::only_for`]).
fn shown(f: &ActionForm, field: &tercio_rules::FormField, a: &serde_json::Value) -> bool {
    if field.only_for.is_empty() {
        return true;
    }
    let by = match &field.only_with {
        Some(w) => a.get(w),
        None => f
            .fields
            .iter()
            .find(|x| x.resets)
            .and_then(|x| a.get(&x.name)),
    };
    by.and_then(|v| v.as_str())
        .is_some_and(|v| field.only_for.iter().any(|o| o == v))
}

/// The value a field starts at on the page, for the action `a` as filled so far: a required
/// choice its first option, a number its value, a tick box ticked when it starts ticked for what
/// acts; `None` when the page sends nothing for it (an optional choice or a choice of several
/// left empty, a tick box unticked, a field not shown for what `a` chose).
fn starting_value(
    f: &ActionForm,
    field: &tercio_rules::FormField,
    a: &serde_json::Value,
) -> Option<serde_json::Value> {
    if !shown(f, field, a) {
        return None;
    }
    let acting = f
        .fields
        .iter()
        .find(|x| x.resets)
        .and_then(|x| a.get(&x.name));
    match &field.kind {
        FieldKind::Choice {
            options,
            optional: false,
        } => options.first().map(|o| o.value.clone().into()),
        FieldKind::Number { value, .. } => Some((*value).into()),
        FieldKind::Flag => acting
            .and_then(|v| v.as_str())
            .filter(|v| field.checked_for.iter().any(|c| c == v))
            .map(|_| true.into()),
        _ => None,
    }
}

/// The page draws a form's corrections (`more`) folded and fetches them only when they are opened
/// (issue 43, item 10), so an action sent without them must be the action sent with them at the
/// values they start at: at every step of every example game, for every form of every seat, with
/// every optional choice filled (a unit's target, so that its corrections apply), the odds (or
/// the refusal) are the same with the corrections at their starting values and without them.
#[test]
fn an_action_without_its_corrections_is_the_action_with_them_untouched() {
    let mut compared = 0;
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        for step in &steps {
            let engine = game.engine().expect("engine");
            for seat in seats(&game) {
                for f in engine.forms(&game.state, seat.as_deref()) {
                    if !f.fields.iter().any(|x| x.more) {
                        continue;
                    }
                    let base = f.default_action(None);
                    // The action as drawn, then with each optional choice that is not a
                    // correction filled alone with its first option (one firer's target: the
                    // odds of a whole simultaneous fire are too many to enumerate here).
                    let mut variants = vec![base.clone()];
                    for field in f.fields.iter().filter(|x| !x.more) {
                        if let FieldKind::Choice {
                            options,
                            optional: true,
                        } = &field.kind
                        {
                            if let Some(o) = options.first().filter(|_| {
                                base.get(&field.name).is_none() && shown(&f, field, &base)
                            }) {
                                let mut a = base.clone();
                                a[&field.name] = o.value.clone().into();
                                variants.push(a);
                            }
                        }
                        if variants.len() > 3 {
                            break;
                        }
                    }
                    for a in variants {
                        let mut without = a.clone();
                        if let Some(o) = without.as_object_mut() {
                            for field in f.fields.iter().filter(|x| x.more) {
                                o.remove(&field.name);
                            }
                        }
                        let mut with = without.clone();
                        for field in f.fields.iter().filter(|x| x.more) {
                            if let Some(v) = starting_value(&f, field, &without) {
                                with[&field.name] = v;
                            }
                        }
                        let odds = |action: &serde_json::Value| match engine
                            .plan(Some(&game.state), action)
                        {
                            Ok(plan) => {
                                serde_json::to_value(tercio_rules::odds::odds(&plan)).expect("odds")
                            }
                            Err(r) => serde_json::json!({"refused": format!("{:?}", r.kind)}),
                        };
                        assert_eq!(
                            odds(&with),
                            odds(&without),
                            "{rules}, {seat:?}, {}: {with} against {without}",
                            f.action
                        );
                        compared += 1;
                    }
                }
            }
            game.act(step.clone()).expect("the recorded step");
        }
    }
    assert!(compared > 50, "{compared} actions compared");
}

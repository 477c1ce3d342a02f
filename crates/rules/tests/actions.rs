//! Every rule set's actions through the one typed interface (issue "One typed rules interface"):
//! an unknown action is refused at `action` with the list of actions, and every action, in a
//! game and stand-alone, refuses a field it does not know by its name (field-less actions
//! included, which serde's `deny_unknown_fields` alone lets through on unit variants).

mod common;
use common::root;
use serde_json::{json, Value};
use tercio_i18n::{localize, Lang};
use tercio_rules::{registry, scenario, Engine};

/// The actions an engine lists when refusing one it does not know.
fn actions(engine: &dyn Engine, state: Option<&Value>) -> Vec<String> {
    let r = engine
        .plan(state, &json!({"action": "no-such-action"}))
        .err()
        .expect("an unknown action is refused");
    assert_eq!(
        (r.code.as_str(), r.field.as_deref()),
        ("unknown-action", Some("action")),
        "{r}"
    );
    let text = localize(Lang::En, &r.message);
    let list = text
        .split_once("allowed: ")
        .unwrap_or_else(|| panic!("no list of actions in {text:?}"))
        .1;
    list.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn first_scenario(id: &str) -> scenario::Scenario {
    let dir = root().join("scenarios").join(id);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let p = &files[0];
    let text = std::fs::read_to_string(p).expect("read");
    scenario::parse(&p.display().to_string(), &text).expect("a shipped scenario is valid")
}

fn refuses_unknown_fields(id: &str, engine: &dyn Engine, state: Option<&Value>, what: &str) {
    let names = actions(engine, state);
    assert!(names.len() >= 2, "{id} {what}: too few actions: {names:?}");
    for name in names {
        let r = engine
            .plan(state, &json!({"action": name, "zzz_not_a_field": 1}))
            .err()
            .unwrap_or_else(|| panic!("{id} {what} {name}: an unknown field went through"));
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-field", Some("zzz_not_a_field")),
            "{id} {what} {name}: {r}"
        );
    }
}

#[test]
fn every_action_of_every_rule_set_refuses_an_unknown_field_by_name() {
    for rules in registry::all() {
        let id = rules.id();
        let sc = first_scenario(id);
        let engine = rules.engine(Some(&sc)).expect("engine");
        let state = engine.initial_state().expect("state");
        refuses_unknown_fields(id, engine.as_ref(), Some(&state), "in a game");
        let alone = rules.engine(None).expect("engine");
        refuses_unknown_fields(id, alone.as_ref(), None, "stand-alone");
    }
}

#[test]
fn an_action_that_is_not_an_object_with_a_name_is_refused_for_every_rule_set() {
    for rules in registry::all() {
        let engine = rules.engine(None).expect("engine");
        for bad in [json!("fire"), json!({"unit": "a"}), json!({"action": 3})] {
            let r = engine
                .plan(None, &bad)
                .err()
                .unwrap_or_else(|| panic!("{}: {bad} went through", rules.id()));
            assert_eq!(r.field.as_deref(), Some("action"), "{}: {r}", rules.id());
        }
    }
}

/// The adapter answers "is the battle over?" from the recorded `phase` for the rule sets that
/// declare it (it is asked after every action); it must agree with the rule set's own reading of
/// its typed state, before and at the end.
#[test]
fn the_recorded_phase_says_over_exactly_when_the_rules_do() {
    for r in registry::all() {
        let sc = first_scenario(r.id());
        let engine = r.engine(Some(&sc)).expect("engine");
        let start = engine.initial_state().expect("initial state");
        assert!(!engine.is_over(&start), "{}", r.id());
        assert_eq!(engine.is_over_typed(&start), Some(false), "{}", r.id());
        let mut end = start.clone();
        end["phase"] = json!("over");
        assert_eq!(
            engine.is_over_typed(&end),
            Some(engine.is_over(&end)),
            "{}: the phase and the typed state disagree",
            r.id()
        );
        assert!(engine.is_over(&end), "{}", r.id());
    }
}

/// A rule set that says no seat sees less of an event than was recorded
/// (`Engine::events_differ`, so the shell shows events unfiltered and uncopied) shows every seat
/// every event of its example game whole; one that says otherwise hides something from someone.
#[test]
fn events_are_shown_whole_exactly_where_the_rule_set_says_so() {
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        let engine = game.engine().expect("engine");
        for step in steps {
            if rules == "commands-colors-ecw" && step["action"] == "deal" {
                // One device for both sides: the game master plays the cards.
                let mut deal = step.clone();
                deal["hands"] = json!("single-device");
                let _ = game.act(deal);
            } else {
                let _ = game.act(step);
            }
        }
        let mut viewers = vec![
            tercio_rules::Viewer::GameMaster,
            tercio_rules::Viewer::Spectator,
        ];
        viewers.extend(
            game.scenario
                .sides
                .iter()
                .map(|s| tercio_rules::Viewer::Side(s.id.clone())),
        );
        let mut events = 0;
        let mut hidden = 0;
        for e in game.log.entries() {
            let tercio_core::LogEntry::Event { event, .. } = e else {
                continue;
            };
            events += 1;
            let ev = serde_json::to_value(event).expect("event");
            for v in &viewers {
                if engine.view_event(&ev, v).as_ref() != Some(&ev) {
                    hidden += 1;
                }
            }
        }
        assert!(events >= 5, "{rules}: {events} events");
        if engine.events_differ() {
            assert!(hidden > 0, "{rules}: says it hides, hid nothing");
        } else {
            assert_eq!(hidden, 0, "{rules}: hides from some seat, says it does not");
        }
    }
}

/// Every result of every rule set's example game names its action by a message or by an id the
/// rule set gives a name for in both languages (`Engine::action_titles`): no page has to show
/// "start-turn" or "end_turn".
#[test]
fn every_recorded_action_has_a_name_players_read() {
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        let engine = game.engine().expect("engine");
        let titles = engine.action_titles();
        for (id, title) in &titles {
            for lang in [tercio_i18n::Lang::It, tercio_i18n::Lang::En] {
                let t = tercio_i18n::localize(lang, title);
                assert!(
                    !t.is_empty() && t != *id,
                    "{rules}: {id} in {lang:?}: {t:?}"
                );
            }
        }
        let mut named = 0;
        for step in steps {
            let Ok(ev) = game.act(step) else { continue };
            let a = ev.resolution.action.clone();
            let dashed = a.replace('_', "-");
            assert!(
                tercio_i18n::needs_localize(&a)
                    || titles.iter().any(|(id, _)| *id == a || *id == dashed),
                "{rules}: the action {a:?} has no name"
            );
            named += 1;
        }
        assert!(named >= 5, "{rules}: {named} results");
    }
}

/// Issue 17, items 6 and 15: at every step of every rule set's example game, each choice of what
/// acts that a game master's form offers goes through when pressed as the form stands (or asks the
/// table a question, or waits on another field), each choice it marks is refused for that choice
/// when pressed (and not merely for the turn, while another choice is legal), and a form marked
/// refused as a whole is refused and not highlighted.
#[test]
fn forms_mark_what_the_rules_refuse_and_offer_the_rest() {
    use tercio_rules::game::GameError;
    use tercio_rules::interface::RejectKind;
    use tercio_rules::FieldKind;
    let mut total_marked = 0;
    for rules in common::RULE_SETS {
        let (mut game, steps) = common::example_game(rules);
        let (mut offered, mut marked, mut forms_refused) = (0, 0, 0);
        for step in steps {
            let engine = game.engine().expect("engine");
            for f in engine.forms(&game.state, None) {
                // How pressing `a` is refused for what acts (`actor`) or outright, if it is.
                let refusal = |a: Value, actor: Option<&str>| match game.clone().act(a) {
                    Err(GameError::Rejected(r))
                        if r.kind != RejectKind::Question
                            && (r.field.is_none()
                                || r.field.as_deref() == Some("action")
                                || r.field.as_deref() == actor) =>
                    {
                        Some(r.kind)
                    }
                    _ => None,
                };
                let refused_for = |a: Value, actor: Option<&str>| refusal(a, actor).is_some();
                if let Some(why) = &f.refused {
                    assert!(!f.primary, "{rules}: {} refused yet highlighted", f.action);
                    assert!(!why.is_empty());
                    forms_refused += 1;
                }
                let Some(field) = f.actor_field() else {
                    if f.refused.is_some() {
                        assert!(
                            refused_for(f.default_action(None), None),
                            "{rules}: {} marked refused but goes through",
                            f.action
                        );
                    }
                    continue;
                };
                let FieldKind::Choice { options, .. } = &field.kind else {
                    continue;
                };
                let legal = options.iter().filter(|o| o.refused.is_none()).count();
                for o in options {
                    let kind = refusal(f.default_action(Some(&o.value)), Some(&field.name));
                    let refused = kind.is_some();
                    // A choice whose turn will come is not offered while another may act, and
                    // only such a choice.
                    assert_eq!(
                        o.later,
                        legal > 0 && f.refused.is_none() && kind == Some(RejectKind::NotNow),
                        "{rules}: {} {}={} offered now or not against its turn ({:?})",
                        f.action,
                        field.name,
                        o.value,
                        o.refused.as_deref().map(common::en)
                    );
                    // One reason for every choice is the form's alone.
                    assert_eq!(
                        refused,
                        o.refused.is_some() || f.refused.is_some(),
                        "{rules}: {} {}={} marked {:?}",
                        f.action,
                        field.name,
                        o.value,
                        o.refused.as_deref().map(common::en)
                    );
                    if refused {
                        marked += 1;
                    } else {
                        offered += 1;
                    }
                }
            }
            let _ = game.act(step);
        }
        println!("{rules}: {offered} choices offered, {marked} marked refused, {forms_refused} forms refused");
        total_marked += marked + forms_refused;
    }
    assert!(total_marked > 0, "nothing was ever marked refused");
}

/// The names after `marker` in the English text of the refusal of `action`.
fn listed_after(
    engine: &dyn Engine,
    state: Option<&Value>,
    action: &Value,
    marker: &str,
) -> Vec<String> {
    let Err(r) = engine.plan(state, action) else {
        return Vec::new();
    };
    let text = localize(Lang::En, &r.message);
    text.split_once(marker).map_or_else(Vec::new, |(_, l)| {
        l.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty() && s != "none")
            .collect()
    })
}

/// Whatever value a request gives a field (an id, a number, a flag, a list, an object) and
/// whatever name it gives a field, a refusal quotes at most 60 characters of it, and its field
/// is at most that long: every action of every rule set, stand-alone and along its example game.
#[test]
fn a_refusal_quotes_at_most_sixty_characters_of_what_it_refused() {
    let long = "q".repeat(5_000);
    let digits = "9".repeat(4_000);
    let too_long = |m: &str| m.contains(&"q".repeat(61)) || m.contains(&"9".repeat(61));
    let values = [
        json!(long),
        json!([long]),
        json!({long.clone(): 1}),
        json!([{"actor": long, "target": long, "unit": long}]),
        json!(digits),
    ];
    for rules in common::RULE_SETS {
        let r = tercio_rules::lookup(rules).expect("rule set");
        let (mut game, steps) = common::example_game(rules);
        let engine = game.engine().expect("engine");
        let alone = r.engine(None).expect("engine");
        let mut states = vec![None, Some(game.state.clone())];
        for (i, step) in steps.iter().enumerate() {
            let _ = game.act(step.clone());
            if i % 3 == 0 {
                states.push(Some(game.state.clone()));
            }
        }
        for state in &states {
            let e = if state.is_some() {
                engine.as_ref()
            } else {
                alone.as_ref()
            };
            let state = state.as_ref();
            for name in actions(e, state) {
                let fields = listed_after(
                    e,
                    state,
                    &json!({"action": name, "zzz_not_a_field": 1}),
                    "its fields: ",
                );
                let mut tries = vec![json!({"action": name, long.clone(): 1})];
                for f in &fields {
                    for v in &values {
                        tries.push(json!({"action": name, f.clone(): v}));
                    }
                }
                for action in tries {
                    let Err(refusal) = e.plan(state, &action) else {
                        continue;
                    };
                    let m = localize(Lang::En, &refusal.message);
                    let field = refusal.field.as_deref().unwrap_or_default();
                    assert!(
                        !too_long(&m) && field.chars().count() <= 61,
                        "{rules} {name}: {} characters of field, and {}",
                        field.chars().count(),
                        &m[..m.len().min(300)]
                    );
                }
            }
        }
    }
}

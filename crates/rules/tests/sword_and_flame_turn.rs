//! The Sword and the Flame, Renaissance: the turn as a fold of absolute effects — spent units'
//! tests, the activation deck, moving, and the end of the turn.

use std::collections::{BTreeMap, BTreeSet};

use tercio_core::DiceStream;
use tercio_i18n::{localize, Lang};
use tercio_rules::sword_and_flame_renaissance::game::{
    apply, plan, Action, Deck, Effect, Phase, SideState, State, Status, UnitState,
};
use tercio_rules::sword_and_flame_renaissance::resolve::Thresholds;
use tercio_rules::sword_and_flame_renaissance::tables::Order;

/// A text of the engine (a language-neutral message) as an English reader sees it.
fn en(s: &str) -> String {
    localize(Lang::En, s)
}

/// An outcome's facets as an English reader sees them.
fn en_facets(f: &[(String, String)]) -> Vec<(String, String)> {
    f.iter().map(|(k, v)| (en(k), en(v))).collect()
}

fn unit(id: &str, side: &str, troop: &str, order: Order, figures: u8) -> UnitState {
    UnitState::fresh((id, id, side), troop, order, figures, 1)
}

fn state() -> State {
    let mut units = BTreeMap::new();
    for u in [
        unit("french-pike", "french", "pikemen", Order::Closed, 20),
        unit("french-arq", "french", "arquebusiers", Order::Open, 20),
        unit("spanish-pike", "spanish", "pikemen", Order::Closed, 20),
        unit("spanish-horse", "spanish", "gendarmes", Order::Open, 12),
    ] {
        units.insert(u.id.clone(), u);
    }
    State {
        turn: 1,
        phase: Phase::Start,
        sides: vec![
            SideState {
                id: "french".into(),
                name: "French".into(),
                red: true,
                start: 2,
            },
            SideState {
                id: "spanish".into(),
                name: "Spanish".into(),
                red: false,
                start: 2,
            },
        ],
        units,
        deck: Deck::FULL,
        acted: BTreeSet::new(),
        current: None,
        broken: Vec::new(),
        fire_morale_done: false,
        company_combat: false,
        options: Default::default(),
        light_rain: false,
        officers: BTreeMap::new(),
        moves_left: 0,
        wounded: BTreeMap::new(),
        roster: Vec::new(),
    }
}

fn action(v: serde_json::Value) -> Action {
    serde_json::from_value(v).expect("action")
}

/// Roll an action and fold its effects.
fn act(
    st: &mut State,
    v: serde_json::Value,
    s: &mut DiceStream,
) -> tercio_rules::Outcome<Vec<Effect>> {
    let (o, _) = plan(st, Thresholds::default(), &action(v))
        .expect("allowed")
        .roll(s);
    for e in &o.effects {
        apply(st, e);
    }
    o
}

/// A unit of `side` that has not had its chance in this step.
fn waiting_unit(st: &State, side: &str) -> Option<String> {
    st.units
        .values()
        .find(|u| u.side == side && !st.acted.contains(&u.id))
        .map(|u| u.id.clone())
}

fn p(st: &State, v: serde_json::Value, pred: impl Fn(&[Effect]) -> bool) -> f64 {
    plan(st, Thresholds::default(), &action(v))
        .expect("allowed")
        .exact(|o| pred(&o.effects))
        .p(|b| *b)
}

#[test]
fn spent_units_test_to_stay_at_the_start_of_the_turn() {
    let mut st = state();
    st.units.get_mut("french-arq").expect("unit").figures = 9; // 11 of 20 lost: spent
    let removed = |e: &[Effect]| {
        e.iter().any(
            |x| matches!(x, Effect::Unit(u) if u.id == "french-arq" && u.status == Status::Gone),
        )
    };
    // Stand and Fight at −2 (spent): stays 27.78% (design 5.2), so leaves 72.22%.
    let q = p(&st, serde_json::json!({"action": "start-turn"}), removed);
    assert!((q - 0.7222).abs() < 1e-4, "{q}");
    // Exactly half lost is worn, not spent: no test (decision 44).
    st.units.get_mut("french-arq").expect("unit").figures = 10;
    assert_eq!(
        p(&st, serde_json::json!({"action": "start-turn"}), removed),
        0.0
    );
    let mut s = DiceStream::from_seed(1);
    act(&mut st, serde_json::json!({"action": "start-turn"}), &mut s);
    assert_eq!(st.phase, Phase::Movement);
    assert_eq!(st.deck, Deck::FULL);
}

#[test]
fn the_activation_deck_gives_each_unit_its_chance() {
    let mut st = state();
    let mut s = DiceStream::from_seed(7);
    act(&mut st, serde_json::json!({"action": "start-turn"}), &mut s);
    // An even deck: red half the time.
    let red = p(&st, serde_json::json!({"action": "draw"}), |e| {
        e.iter()
            .any(|x| matches!(x, Effect::Current { side: Some(s) } if s == "french"))
    });
    assert!((red - 0.5).abs() < 1e-12);
    let mut moves = 0;
    for _ in 0..10 {
        let o = act(&mut st, serde_json::json!({"action": "draw"}), &mut s);
        if st.phase != Phase::Movement {
            assert!(en(&o.resolution.summary).contains("every unit has had its chance"));
            break;
        }
        let side = st.current.clone().expect("a side to name a unit");
        // The other side may not use this card.
        let other = st
            .units
            .values()
            .find(|u| u.side != side && !st.acted.contains(&u.id))
            .map(|u| u.id.clone());
        if let Some(o) = other {
            let r = plan(
                &st,
                Thresholds::default(),
                &action(serde_json::json!({"action": "move", "unit": o})),
            );
            assert_eq!(r.err().map(|r| r.code), Some("not-your-card".to_string()));
        }
        let mine = waiting_unit(&st, &side).expect("a unit");
        act(
            &mut st,
            serde_json::json!({"action": "move", "unit": mine}),
            &mut s,
        );
        moves += 1;
        assert!(st.units[&mine].moved);
    }
    assert_eq!(moves, 4, "every unit moved once");
    assert_eq!(st.phase, Phase::Fire);
    // The deck lost only the cards drawn while both sides had units waiting.
    assert!(st.deck.red + st.deck.black >= 49);
}

#[test]
fn shaken_units_rally_before_moving_and_routed_units_stay() {
    let mut st = state();
    let mut s = DiceStream::from_seed(3);
    act(&mut st, serde_json::json!({"action": "start-turn"}), &mut s);
    st.units.get_mut("french-pike").expect("unit").status = Status::Shaken;
    st.units.get_mut("french-arq").expect("unit").status = Status::Routed;
    st.current = Some("french".into());
    let rallied = |e: &[Effect]| {
        e.iter().any(|x| matches!(x, Effect::Unit(u) if u.id == "french-pike" && u.status == Status::Steady && u.moved))
    };
    let q = p(
        &st,
        serde_json::json!({"action": "move", "unit": "french-pike"}),
        rallied,
    );
    assert!((q - 0.4167).abs() < 1e-4, "rally at −1: {q}");
    let o = act(
        &mut st,
        serde_json::json!({"action": "move", "unit": "french-arq"}),
        &mut s,
    );
    assert!(en(&o.resolution.summary).contains("may not move"));
    assert!(!st.units["french-arq"].moved);
}

#[test]
fn the_end_of_the_turn_rallies_reloads_and_tests_each_army() {
    let mut st = state();
    st.phase = Phase::Melee;
    {
        let r = st.units.get_mut("french-arq").expect("unit");
        r.status = Status::Routed;
        r.routed_turn = Some(0);
        r.reload = 2;
    }
    let gone = |e: &[Effect]| {
        e.iter().any(
            |x| matches!(x, Effect::Unit(u) if u.id == "french-arq" && u.status == Status::Gone),
        )
    };
    // Rally from rout at −1: stays 41.67%, else leaves the field. The French spirit cannot fail
    // here: both units are at full strength (2 fresh of 2: roll 10 or less).
    let q = p(&st, serde_json::json!({"action": "end-turn"}), gone);
    assert!((q - (1.0 - 0.41667)).abs() < 1e-3, "{q}");
    let mut s = DiceStream::from_seed(11);
    act(&mut st, serde_json::json!({"action": "end-turn"}), &mut s);
    assert_eq!((st.turn, st.phase), (2, Phase::Start));
    let arq = &st.units["french-arq"];
    if arq.on_table() {
        assert_eq!(arq.reload, 1, "one marker comes off");
    }
}

#[test]
fn fire_in_the_game_takes_figures_and_leaders_and_places_reload_markers() {
    let mut st = state();
    st.phase = Phase::Fire;
    st.current = Some("french".into());
    let shot = serde_json::json!({"action": "fire", "unit": "french-arq", "target": "spanish-pike", "range": "short", "target_class": 1, "firers": 10});
    let mut s = DiceStream::from_seed(21);
    let o = act(&mut st, shot.clone(), &mut s);
    let hits: u8 = en_facets(&o.facets)
        .into_iter()
        .find(|(k, _)| k == "hits")
        .and_then(|(_, v)| v.parse().ok())
        .expect("hits");
    let pike = &st.units["spanish-pike"];
    assert_eq!(pike.figures, 20 - hits);
    assert_eq!(pike.fire_losses, hits);
    assert_eq!(
        st.units["french-arq"].reload, 2,
        "an arquebus misses a turn (decision 11)"
    );
    assert!(st.acted.contains("french-arq") && st.current.is_none());
    // Not again this phase, and not at a friend, and not with more figures than it has.
    st.current = Some("french".into());
    assert_eq!(
        plan(&st, Thresholds::default(), &action(shot))
            .err()
            .map(|r| r.code),
        Some("already-acted".to_string())
    );
    st.acted.clear();
    let friend = serde_json::json!({"action": "fire", "unit": "french-arq", "target": "french-pike", "range": "short", "target_class": 1, "firers": 10});
    st.units.get_mut("french-arq").expect("unit").reload = 0;
    assert_eq!(
        plan(&st, Thresholds::default(), &action(friend))
            .err()
            .map(|r| r.code),
        Some("own-side".to_string())
    );
    let many = serde_json::json!({"action": "fire", "unit": "french-arq", "target": "spanish-pike", "range": "short", "target_class": 1, "firers": 21});
    assert_eq!(
        plan(&st, Thresholds::default(), &action(many))
            .err()
            .and_then(|r| r.field),
        Some("firers".to_string())
    );
    // A unit holding a reload marker cannot fire; the end of the turn takes one off.
    st.units.get_mut("french-arq").expect("unit").reload = 2;
    let again = serde_json::json!({"action": "fire", "unit": "french-arq", "target": "spanish-pike", "range": "short", "target_class": 1, "firers": 10});
    assert_eq!(
        plan(&st, Thresholds::default(), &action(again))
            .err()
            .map(|r| r.code),
        Some("cannot-fire".to_string())
    );
}

fn facet_p(st: &State, v: serde_json::Value, facet: &str, value: &str) -> f64 {
    let plan = plan(st, Thresholds::default(), &action(v)).expect("allowed");
    let d = plan.exact(|o| en_facets(&o.facets));
    assert!(
        (d.total() - 1.0).abs() < 1e-9,
        "probabilities sum to 1: {}",
        d.total()
    );
    d.p(|f| f.iter().any(|(k, x)| k == facet && x == value))
}

#[test]
fn a_charge_chains_to_close_to_stand_the_combat_and_the_losers_test() {
    let mut st = state();
    st.phase = Phase::Melee;
    st.company_combat = true;
    // Fire morale first.
    let charge = serde_json::json!({"action": "charge", "charger": "spanish-horse", "target": "french-pike"});
    assert_eq!(
        plan(&st, Thresholds::default(), &action(charge.clone()))
            .err()
            .map(|r| r.code),
        Some("fire-morale-first".to_string())
    );
    let mut s = DiceStream::from_seed(5);
    act(
        &mut st,
        serde_json::json!({"action": "fire-morale"}),
        &mut s,
    );
    // The charge goes in on To Close: 72.22%.
    let goes_in = facet_p(&st, charge.clone(), "charge goes in", "yes");
    assert!((goes_in - 0.7222).abs() < 1e-4, "{goes_in}");
    // The charger wins = goes in × the pike stands (83.33%) × the gendarmes win the combat.
    let combat = serde_json::json!({"action": "close-combat", "version": "company",
        "a": {"type": "gendarmes", "figures": 12, "lance": true}, "b": {"type": "pikemen", "figures": 20}});
    let p_combat = tercio_rules::sword_and_flame_renaissance::plan(&combat)
        .expect("plan")
        .exact(|o| {
            en_facets(&o.facets)
                .iter()
                .any(|(k, v)| k == "winner" && v == "A")
        })
        .p(|a| *a);
    let wins = facet_p(&st, charge.clone(), "winner", "charger");
    assert!(
        (wins - goes_in * (5.0 / 6.0) * p_combat).abs() < 1e-9,
        "{wins} vs {}",
        goes_in * (5.0 / 6.0) * p_combat
    );
    // A routed target is simply destroyed when the charge goes in.
    st.units.get_mut("french-pike").expect("unit").status = Status::Routed;
    let destroyed = facet_p(&st, charge.clone(), "target", "destroyed");
    assert!((destroyed - goes_in).abs() < 1e-12);
    // Rolled: the effects fold; lances are spent after a combat.
    st.units.get_mut("french-pike").expect("unit").status = Status::Steady;
    let o = act(&mut st, charge.clone(), &mut s);
    if en_facets(&o.facets).iter().any(|(k, _)| k == "winner") {
        assert!(st.units["spanish-horse"].lance_used);
    }
    // Shaken units may not charge.
    st.units.get_mut("french-arq").expect("unit").status = Status::Shaken;
    let bad =
        serde_json::json!({"action": "charge", "charger": "french-arq", "target": "spanish-pike"});
    assert_eq!(
        plan(&st, Thresholds::default(), &action(bad))
            .err()
            .map(|r| r.code),
        Some("cannot-charge".to_string())
    );
}

#[test]
fn fire_morale_tests_units_past_a_quarter_lost() {
    let mut st = state();
    st.phase = Phase::Melee;
    {
        let u = st.units.get_mut("spanish-pike").expect("unit");
        u.figures = 16; // 4 of 20: not yet a quarter
        u.fire_losses = 4;
    }
    let shaken = |e: &[Effect]| {
        e.iter().any(|x| matches!(x, Effect::Unit(u) if u.id == "spanish-pike" && u.status == Status::Shaken))
    };
    assert_eq!(
        p(&st, serde_json::json!({"action": "fire-morale"}), shaken),
        0.0
    );
    {
        let u = st.units.get_mut("spanish-pike").expect("unit");
        u.figures = 15; // 5 of 20: a quarter
        u.fire_losses = 5;
    }
    // To Stand fails 16.67%: shaken.
    let q = p(&st, serde_json::json!({"action": "fire-morale"}), shaken);
    assert!((q - 0.1667).abs() < 1e-4, "{q}");
}

/// Once one side has no unit waiting, the other names its units without cards: no draw is asked
/// for between them (decision 16; issue 17, item 5), and the step's end is the one draw left,
/// named for what comes next.
#[test]
fn no_card_is_asked_for_when_one_side_is_done() {
    use tercio_rules::sword_and_flame_renaissance::engine::forms;
    use tercio_rules::sword_and_flame_renaissance::game::{step_done, to_act};
    let mut st = state();
    let mut s = DiceStream::from_seed(3);
    act(&mut st, serde_json::json!({"action": "start-turn"}), &mut s);
    let actions = |st: &State| -> Vec<(String, String)> {
        forms(st, None)
            .into_iter()
            .map(|f| (f.action, f.label))
            .collect()
    };
    // A card decides while both sides wait.
    assert_eq!(to_act(&st), None);
    assert!(actions(&st).iter().any(|(a, _)| a == "draw"));
    // Units pass, a card each, until one side has none waiting; then the other goes on without
    // cards.
    let waiting = |st: &State, side: &str| waiting_unit(st, side).is_some();
    let mut draws = 0;
    while waiting(&st, "french") && waiting(&st, "spanish") {
        act(&mut st, serde_json::json!({"action": "draw"}), &mut s);
        draws += 1;
        let side = st.current.clone().expect("a side");
        let u = waiting_unit(&st, &side).expect("a unit");
        act(
            &mut st,
            serde_json::json!({"action": "pass", "unit": u}),
            &mut s,
        );
    }
    assert!(draws >= 2);
    let (on, done) = if waiting(&st, "french") {
        ("french", "spanish")
    } else {
        ("spanish", "french")
    };
    let left: Vec<String> = st
        .units
        .values()
        .filter(|u| u.side == on && !st.acted.contains(&u.id))
        .map(|u| u.id.clone())
        .collect();
    assert!(!left.is_empty(), "{on} still wait");
    let other = st
        .units
        .values()
        .find(|u| u.side == done)
        .map(|u| u.id.clone())
        .expect("a unit");
    for u in &left {
        assert_eq!(st.current, None);
        assert_eq!(to_act(&st).as_deref(), Some(on));
        // No draw on offer: the waiting side's move is the step.
        let offered = actions(&st);
        assert!(offered.iter().all(|(a, _)| a != "draw"), "{offered:?}");
        assert!(offered.iter().any(|(a, _)| a == "move"), "{offered:?}");
        // The side that is done may not take the other's turn.
        let r = plan(
            &st,
            Thresholds::default(),
            &action(serde_json::json!({"action": "move", "unit": other})),
        );
        assert!(r.is_err());
        act(
            &mut st,
            serde_json::json!({"action": "move", "unit": u}),
            &mut s,
        );
        assert!(st.units[u].moved);
    }
    // Every unit has had its chance: the one action left ends the step, named for the next.
    assert!(step_done(&st));
    let offered = actions(&st);
    assert_eq!(
        offered
            .iter()
            .filter(|(a, _)| a == "draw")
            .collect::<Vec<_>>(),
        vec![&(
            "draw".to_string(),
            "⟦sword_and_flame.form.to-fire⟧".to_string()
        )]
    );
    assert!(
        offered.iter().all(|(a, _)| a != "move" && a != "pass"),
        "{offered:?}"
    );
    act(&mut st, serde_json::json!({"action": "draw"}), &mut s);
    assert_eq!(st.phase, Phase::Fire);
}

//! Odds that end where the action's consequences end (issue 43, item 3): a Sword and Flame
//! fire's odds tell its target's morale at the end of the fire step, composed from the same
//! morale test the `fire-morale` step rolls (decision 69 of
//! `docs/rules/sword-and-flame-renaissance.md`).

mod common;

use serde_json::json;

/// The example game's second fire at the first Swiss block: the odds of its target's morale are,
/// outcome by outcome of the fire, the odds the fire-morale step gives that block once the
/// fire's effects are folded in; and the final outcome is told by that morale.
#[test]
fn a_fires_odds_end_with_its_targets_morale() {
    let (mut game, steps) = common::example_game("sword-and-flame-renaissance");
    let at = steps
        .iter()
        .rposition(|a| a["action"] == "fire" && a["target"] == "stein-swiss-first")
        .expect("a fire at the Swiss");
    for a in &steps[..at] {
        game.act(a.clone()).expect("the example plays");
    }
    let fire = steps[at].clone();
    let engine = game.engine().expect("engine");
    let plan = engine.preview(Some(&game.state), &fire).expect("its odds");
    let (report, fin) =
        tercio_rules::odds::odds_and_final(&plan, engine.headline_facets(), engine.loss_facets());
    let facet = "the target's morale at the end of the fire step";
    let told: f64 = ["holds", "shaken", "routs", "no test"]
        .iter()
        .map(|v| report.p(facet, v))
        .sum();
    assert!((told - 1.0).abs() < 1e-9, "{}", report.render());
    // The same test the step rolls: outcome by outcome of the fire, folded, then tested.
    let name = game
        .scenario
        .units
        .iter()
        .find(|u| u.id == "stein-swiss-first")
        .expect("unit")
        .name
        .clone();
    let by_effects = plan.exact(|o| o.effects.to_string());
    let mut holds = 0.0;
    for (effects, p) in &by_effects.outcomes {
        let effects: serde_json::Value = serde_json::from_str(effects).expect("effects");
        let mut after = engine.folded(&game.state, &effects).expect("folds");
        after["phase"] = json!("melee");
        after["fire_morale_done"] = json!(false);
        let step = engine
            .plan(Some(&after), &json!({"action": "fire-morale"}))
            .expect("the fire-morale step");
        let odds = tercio_rules::odds::odds(&step);
        // The unit's facet, as the engine names it (in both languages since the scenario's
        // names are).
        let tested = odds
            .facets
            .iter()
            .find(|f| common::en(&f.facet) == name.en())
            .map(|f| f.facet.clone());
        holds += p * tested.map_or(0.0, |f| odds.p(&f, "holds"));
    }
    let got = report.p(facet, "holds");
    assert!(
        (got - holds).abs() < 1e-9,
        "holds {got} against the step's {holds}"
    );
    assert!(
        holds > 0.0 && holds < 1.0,
        "{holds}: the block tests after this fire"
    );
    // Told by that morale first.
    assert!(
        fin.groups
            .iter()
            .all(|g| common::en(&g.values[0].0) == facet),
        "{fin:?}"
    );
}

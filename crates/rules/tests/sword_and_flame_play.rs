//! The Sword and the Flame, Renaissance, played through its own forms: from the shipped scenarios,
//! a game master takes only the actions the forms offer, with their fields filled at random, for
//! several turns. Every action the forms describe must be accepted or refused with a reason, the
//! state must stay sound, and the log must replay.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tercio_rules::game::Game;
use tercio_rules::scenario::parse;
use tercio_rules::{ActionForm, FieldKind, FormField};

fn scenario(name: &str) -> Game {
    let path = format!(
        "{}/../../scenarios/sword-and-flame-renaissance/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).expect("scenario");
    let sc = parse(&path, &src).unwrap_or_else(|d| panic!("{d:?}"));
    Game::new(sc, 1).expect("game")
}

/// The action a form describes, its fields filled from `pick`, as the page does: a field shown
/// only for some units (`only_for`, of what acts or of the field it names, `only_with`) is left
/// out for the others.
fn fill(f: &ActionForm, pick: &mut impl FnMut(usize) -> usize) -> Value {
    let mut a = Map::new();
    a.insert("action".into(), json!(f.action));
    let acting = |a: &Map<String, Value>, with: Option<&str>| {
        f.fields
            .iter()
            .find(|x| match with {
                Some(name) => x.name == name,
                None => x.resets,
            })
            .and_then(|x| a.get(&x.name))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    for field in &f.fields {
        if !field.only_for.is_empty()
            && !acting(&a, field.only_with.as_deref()).is_some_and(|u| field.only_for.contains(&u))
        {
            continue;
        }
        match &field.kind {
            FieldKind::Choice { options, optional } => {
                let n = options.len() + usize::from(*optional);
                if n == 0 {
                    continue;
                }
                let i = pick(n);
                if let Some(o) = options.get(i) {
                    a.insert(field.name.clone(), json!(o.value));
                }
            }
            // Rarely: most flags describe the table (uphill, walls...).
            FieldKind::Flag => {
                if pick(6) == 0 {
                    a.insert(field.name.clone(), json!(true));
                }
            }
            FieldKind::Number { min, max, value } => {
                let v = if pick(4) == 0 {
                    *min + pick(usize::try_from(max - min + 1).unwrap_or(1)) as i64
                } else {
                    *value
                };
                a.insert(field.name.clone(), json!(v));
            }
            // Free text names things on the table: left empty.
            FieldKind::Text { .. } | FieldKind::Choices { .. } => {}
        }
    }
    Value::Object(a)
}

fn play(name: &str, seed: u64, choices: &[usize], turns: u64) {
    let mut g = scenario(name);
    g.seed = seed;
    let mut k = 0usize;
    let mut pick = |n: usize| {
        k += 1;
        choices[k % choices.len()] % n.max(1)
    };
    let mut steps = 0;
    // Actions of the units' own forms that went through (not the turn's next step).
    let mut units_acted = 0;
    while g.state["turn"].as_u64().unwrap_or(0) <= turns && g.state["phase"] != "over" {
        steps += 1;
        assert!(steps < 2000, "no progress: {}", g.state["phase"]);
        let engine = g.engine().expect("engine");
        let forms = engine.forms(&g.state, None);
        assert!(
            !forms.is_empty(),
            "the game master always has something to do"
        );
        // A field for some units only names units the form offers, and a reiter's second
        // pistol only units that carry pistols (issue 17, item 6).
        for f in &forms {
            assert!(
                f.fields
                    .iter()
                    .all(|x| x.name != "double" || !x.only_for.is_empty()),
                "both pistols offered to every unit"
            );
            for x in f.fields.iter().filter(|x| !x.only_for.is_empty()) {
                // The fields its values are of: those it names (`only_with`, the charge's
                // target: a list per side on the game master's form), or what acts.
                let acting: Vec<&FormField> = match &x.only_with {
                    Some(name) => f.fields.iter().filter(|y| &y.name == name).collect(),
                    None => f.fields.iter().filter(|y| y.resets).collect(),
                };
                assert!(!acting.is_empty(), "the field whose values it lists");
                let mut options = Vec::new();
                for a in acting {
                    let FieldKind::Choice { options: o, .. } = &a.kind else {
                        panic!("{}: what acts is a choice", f.action);
                    };
                    options.extend(o.iter().cloned());
                }
                for u in &x.only_for {
                    assert!(options.iter().any(|o| &o.value == u), "{}: {u}", x.name);
                    if x.name == "double" {
                        let troop = g.state["units"][u]["troop"].as_str().unwrap_or_default();
                        assert_eq!(troop, "reiters", "{u}: both pistols for a {troop}");
                    }
                }
            }
        }
        // Mostly a unit's action; the turn's next step when nothing else goes through.
        let others: Vec<&ActionForm> = forms
            .iter()
            .filter(|f| !f.primary || f.fields.len() > 1)
            .collect();
        let mut done = false;
        // Every third action is the turn's next step, so the game always moves on.
        if !others.is_empty() && steps % 3 != 0 {
            let f = others[pick(others.len())];
            let a = fill(f, &mut pick);
            match g.act(a.clone()) {
                Ok(_) => {
                    done = true;
                    units_acted += 1;
                }
                Err(e) => {
                    // Refused with a reason, never a panic; nothing recorded.
                    assert!(!e.to_string().is_empty(), "{a}");
                }
            }
        }
        if !done {
            // The turn's next step, or letting a waiting unit pass.
            let primary = forms.iter().find(|f| f.primary).expect("a primary form");
            let a = if primary.action == "move" || primary.action == "fire" {
                let pass = forms.iter().find(|f| f.action == "pass").expect("pass");
                fill(pass, &mut |_| 0)
            } else {
                fill(primary, &mut |_| 0)
            };
            g.act(a.clone()).unwrap_or_else(|e| panic!("{a}: {e}"));
        }
        // The state stays sound: no unit above its start, the deck within 52 cards.
        for u in g.state["units"].as_object().expect("units").values() {
            assert!(u["figures"].as_u64() <= u["figures_start"].as_u64(), "{u}");
            assert!(
                u["leaders"].as_u64() <= u["figures"].as_u64().map(|f| f.max(2)),
                "{u}"
            );
        }
        let deck = &g.state["deck"];
        assert!(
            deck["red"].as_u64().unwrap_or(99) <= 26 && deck["black"].as_u64().unwrap_or(99) <= 26
        );
    }
    // The turns moved on (the loop ends only past them, or at the end of the battle), and not
    // only by the turn's own steps: a run has the units act some sixty to a hundred times.
    assert!(
        units_acted >= 5,
        "{name} seed {seed}: {units_acted} units' actions went through in {steps} steps"
    );
    assert_eq!(g.replay().expect("the log replays"), g.log.live().count());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]
    #[test]
    fn bicocca_plays_through_its_forms(seed in 0u64..1000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("bicocca-1522.toml", seed, &choices, 2);
    }
    #[test]
    fn ravenna_plays_through_its_forms(seed in 0u64..1000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("ravenna-1512.toml", seed, &choices, 2);
    }
}

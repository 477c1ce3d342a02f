//! The Renaissance (Callan) played through its own forms at random: from each shipped scenario, a
//! game master takes only the actions `Engine::forms` offers, every field filled at random from
//! its choices, number ranges and flags, rolled with a seeded dice stream, for a few turns.
//!
//! At every step: nothing panics; a refused action is a rejection with a code and a field; every
//! unit keeps 0 ≤ bases ≤ bases_start and fewer hits than a base costs (unless lost); no side's
//! losses ever go down; the state reads back as the engine's state; every text (the resolution,
//! the board, the forms) renders in Italian and in English with no marker or raw key left. At the
//! end, folding the recorded effects over the initial state gives the same state.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tercio_core::DiceStream;
use tercio_i18n::{localize, localize_json, Lang};
use tercio_rules::callan_renaissance::game::State;
use tercio_rules::scenario::parse;
use tercio_rules::{lookup, ActionForm, Engine, FieldKind};

fn engine(name: &str) -> Box<dyn Engine> {
    let path = format!(
        "{}/../../scenarios/callan-renaissance/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).expect("scenario");
    let sc = parse(&path, &src).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    lookup("callan")
        .expect("listed")
        .engine(Some(&sc))
        .expect("engine")
}

/// The action a form describes, each field filled from `pick(n)` (a number below `n`).
fn fill(f: &ActionForm, state: &Value, pick: &mut impl FnMut(usize) -> usize) -> Value {
    let mut a = Map::new();
    a.insert("action".into(), json!(f.action));
    for field in &f.fields {
        match &field.kind {
            FieldKind::Choice { options, optional } => {
                let n = options.len() + usize::from(*optional);
                if n == 0 {
                    continue;
                }
                if let Some(o) = options.get(pick(n)) {
                    a.insert(field.name.clone(), json!(o.value));
                }
            }
            // No Callan form has one.
            FieldKind::Choices { .. } => {}
            FieldKind::Flag => {
                if pick(4) == 0 {
                    a.insert(field.name.clone(), json!(true));
                }
            }
            // The default, a small count, or anywhere in the range.
            FieldKind::Number { min, max, value } => {
                let span = usize::try_from(max - min + 1).unwrap_or(1);
                let v = match pick(3) {
                    0 => *value,
                    1 => *min + pick(span.min(6)) as i64,
                    _ => *min + pick(span) as i64,
                };
                a.insert(field.name.clone(), json!(v));
            }
            // Free text names something on the table: an obstacle, sometimes a unit's id.
            FieldKind::Text { placeholder } => {
                let units: Vec<&str> = state["units"]
                    .as_array()
                    .map(|u| u.iter().filter_map(|x| x["id"].as_str()).collect())
                    .unwrap_or_default();
                let v = match pick(4) {
                    0 => String::new(),
                    1 if !units.is_empty() => units[pick(units.len())].to_string(),
                    2 => "fosso".to_string(),
                    _ => placeholder.clone(),
                };
                if !v.is_empty() {
                    a.insert(field.name.clone(), json!(v));
                }
            }
        }
    }
    Value::Object(a)
}

/// Hits that cost a base (003, Tiro › Qual è il danno?; design §6.4).
fn hits_per_base(troop: &str) -> u64 {
    match troop {
        "gendarmi" | "cavalleria-pesante" | "picchieri" => 3,
        _ => 2,
    }
}

/// Every text renders in both languages: no marker and no raw catalogue key left.
fn renders(what: &str, text: &str) {
    for lang in Lang::ALL {
        let s = localize(lang, text);
        assert!(
            !s.contains('\u{27e6}') && !s.contains('\u{27e7}'),
            "{what} ({lang:?}): a marker left in {s}"
        );
        assert!(
            !s.contains("callan."),
            "{what} ({lang:?}): a raw key in {s}"
        );
    }
}

fn forms_render(engine: &dyn Engine, state: &Value) {
    let forms = serde_json::to_value(engine.forms(state, None)).expect("forms");
    for lang in Lang::ALL {
        let mut v = forms.clone();
        localize_json(lang, &mut v);
        let s = v.to_string();
        assert!(!s.contains('\u{27e6}'), "forms ({lang:?}): a marker in {s}");
        assert!(!s.contains("callan."), "forms ({lang:?}): a raw key in {s}");
    }
}

/// The invariants of one state; `lost` carries each side's losses from the step before.
fn sound(engine: &dyn Engine, state: &Value, lost: &mut Vec<(u64, u64)>) {
    let st: State = serde_json::from_value(state.clone())
        .unwrap_or_else(|e| panic!("the state does not read back: {e}"));
    assert_eq!(serde_json::to_value(&st).expect("state"), *state);
    for u in state["units"].as_array().expect("units") {
        let bases = u["bases"].as_i64().expect("bases");
        let start = u["bases_start"].as_i64().expect("bases_start");
        assert!((0..=start).contains(&bases), "bases out of range: {u}");
        let hits = u["hits"].as_u64().expect("hits");
        if u["status"] != "lost" {
            let per = hits_per_base(u["troop"].as_str().expect("troop"));
            assert!(hits < per, "{hits} hits carried by a unit on {per}: {u}");
        }
    }
    let now: Vec<(u64, u64)> = state["sides"]
        .as_array()
        .expect("sides")
        .iter()
        .map(|s| {
            (
                s["lost"].as_u64().expect("lost"),
                s["lost_points"].as_u64().expect("lost_points"),
            )
        })
        .collect();
    if !lost.is_empty() {
        for (i, (was, now)) in lost.iter().zip(&now).enumerate() {
            assert!(
                now.0 >= was.0 && now.1 >= was.1,
                "side {i}: losses went down from {was:?} to {now:?}"
            );
        }
    }
    *lost = now;
    renders("board", &engine.render_state(state));
    forms_render(engine, state);
}

fn play(name: &str, seed: u64, choices: &[usize], turns: u64) {
    let engine = engine(name);
    let initial = engine.initial_state().expect("initial state");
    let mut state = initial.clone();
    let mut stream = DiceStream::from_seed(seed);
    let mut effects: Vec<Value> = Vec::new();
    let mut lost = Vec::new();
    let mut k = 0usize;
    let mut pick = |n: usize| {
        k += 1;
        choices[k % choices.len()].wrapping_mul(k + 3) % n.max(1)
    };
    let mut kinds = std::collections::BTreeMap::new();
    let mut steps = 0;
    // Actions from the forms other than the turn's way on that were planned and rolled.
    let mut units_acted = 0;
    let mut at_card = 0;
    sound(engine.as_ref(), &state, &mut lost);
    while state["phase"] != "over" && state["turn"].as_u64().unwrap_or(0) <= turns {
        steps += 1;
        assert!(steps < 600, "no progress in {name}: {}", state["phase"]);
        let forms = engine.forms(&state, None);
        assert!(!forms.is_empty(), "the game master always has a form");
        let primary = forms.iter().find(|f| f.primary);
        // Mostly units' actions (the table's reports less often); one step in eight the turn's
        // way on (draw, end of turn, a continuing combat, an answer), and whenever a dozen tries
        // are all refused.
        let others: Vec<&ActionForm> = forms.iter().filter(|f| !f.primary).collect();
        let mut plan = None;
        // At most a handful of actions a card, so that the turn moves on.
        let busy = at_card >= 6 && primary.is_some();
        if !others.is_empty() && !busy && (primary.is_none() || pick(8) != 0) {
            let attack = others.iter().find(|f| f.action == "attack").copied();
            for _ in 0..12 {
                // Contact is what the battle is about: tried often when it is offered.
                let f = match attack {
                    Some(a) if pick(3) == 0 => a,
                    _ => others[pick(others.len())],
                };
                // The table's reports are rarer than the units' actions.
                let weight = match f.action.as_str() {
                    "off-table" => 1,
                    "obstacle" | "state" => 2,
                    "panic-test" | "commander" | "rally" => 3,
                    "move" => 6,
                    _ => 12,
                };
                if pick(12) >= weight {
                    continue;
                }
                let a = fill(f, &state, &mut pick);
                match engine.plan(Some(&state), &a) {
                    Ok(p) => {
                        plan = Some(p);
                        units_acted += 1;
                        break;
                    }
                    Err(r) => {
                        assert!(!r.code.is_empty(), "{a}: a refusal without a code");
                        assert!(r.field.is_some(), "{a}: {} without a field", r.code);
                        renders("refusal", &r.message);
                    }
                }
            }
        }
        let plan = plan.unwrap_or_else(|| {
            // The way on, with the form's own defaults, always goes through.
            let p = primary.expect("a primary form when every try is refused");
            let a = fill(p, &state, &mut |_| 0);
            engine
                .plan(Some(&state), &a)
                .unwrap_or_else(|r| panic!("{a} refused: {}", r.message))
        });
        let (out, _) = plan.roll(&mut stream);
        let kind = a_name(&out);
        at_card = if matches!(kind.as_str(), "draw" | "end_turn" | "start") {
            0
        } else {
            at_card + 1
        };
        *kinds.entry(kind).or_insert(0) += 1;
        engine
            .apply(&mut state, &out.effects)
            .expect("effects apply");
        effects.push(out.effects.clone());
        renders("resolution", &out.resolution.render());
        for (key, value) in &out.facets {
            renders("facet", &format!("{key}: {value}"));
        }
        sound(engine.as_ref(), &state, &mut lost);
    }
    // The battle moved on (the loop ends only past the turns, or at its end, within 600 steps),
    // and not only by draws and ends of turn: the units' actions and the table's reports went
    // through (some twenty to forty of them in a run).
    assert!(
        units_acted >= 3,
        "{name} seed {seed}: {units_acted} units' actions in {steps} steps: {kinds:?}"
    );
    // The log of effects replays to the same state, with no dice.
    let mut again = initial;
    for e in &effects {
        engine.apply(&mut again, e).expect("effects replay");
    }
    assert_eq!(again, state, "the effects replay to the same state");
    eprintln!(
        "{name} seed {seed}: turn {} phase {}; {kinds:?}",
        state["turn"], state["phase"]
    );
}

/// The action of an outcome, for the summary: its title's catalogue key.
fn a_name(out: &tercio_rules::Outcome) -> String {
    let t = &out.resolution.action;
    t.rsplit("@callan.action.")
        .next()
        .unwrap_or(t)
        .trim_end_matches('\u{27e7}')
        .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]
    #[test]
    fn fornovo_plays_through_its_forms(seed in 0u64..10_000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("fornovo-1495.toml", seed, &choices, 3);
    }
    #[test]
    fn pavia_plays_through_its_forms(seed in 0u64..10_000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("pavia-1525.toml", seed, &choices, 3);
    }
    #[test]
    fn marignano_plays_through_its_forms(seed in 0u64..10_000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("marignano-1515.toml", seed, &choices, 3);
    }
}

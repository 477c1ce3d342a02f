//! Commands & Colors ECW played through its own forms at random, as a table might: the game
//! master's view of every form, filled with arbitrary choices. Whatever is chosen, an action is
//! recorded or refused with a reason, and a refusal is followed by the turn's way on, which goes
//! through, so every step records something; the 72 command cards are all somewhere at every
//! step; no seat's view of an event carries another side's hand; the game moves on through its
//! turns with units ordered; the log replays.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tercio_rules::game::Game;
use tercio_rules::scenario::parse;
use tercio_rules::{ActionForm, FieldKind, Viewer};

fn scenario(name: &str) -> Game {
    let path = format!(
        "{}/../../scenarios/commands-colors-ecw/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).expect("scenario");
    let sc = parse(&path, &src).unwrap_or_else(|d| panic!("{d:?}"));
    Game::new(sc, 1).expect("game")
}

/// The action a form describes, its fields filled from `pick`; free text gets some of the
/// side's own unit ids (Chaunce candidates) or an enemy's (a second answer).
fn fill(f: &ActionForm, state: &Value, pick: &mut impl FnMut(usize) -> usize) -> Value {
    let mut a = Map::new();
    a.insert("action".into(), json!(f.action));
    let units: Vec<String> = state["units"]
        .as_array()
        .map(|u| {
            u.iter()
                .filter_map(|x| x["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    for field in &f.fields {
        match &field.kind {
            FieldKind::Choice { options, optional } => {
                let n = options.len() + usize::from(*optional);
                if n == 0 {
                    continue;
                }
                let i = pick(n);
                if let Some(o) = options.get(i) {
                    let v: Value = o
                        .value
                        .parse::<i64>()
                        .map_or_else(|_| json!(o.value), |n| json!(n));
                    a.insert(field.name.clone(), v);
                }
            }
            // No ECW form has one; any of the choices, or none.
            FieldKind::Choices { options } => {
                let chosen: Vec<&str> = options
                    .iter()
                    .filter(|_| pick(2) == 0)
                    .map(|o| o.value.as_str())
                    .collect();
                if !chosen.is_empty() {
                    a.insert(field.name.clone(), json!(chosen));
                }
            }
            FieldKind::Flag => {
                if pick(3) == 0 {
                    a.insert(field.name.clone(), json!(true));
                }
            }
            FieldKind::Number { min, max, value } => {
                let v = if pick(3) == 0 {
                    *min + pick(usize::try_from(max - min + 1).unwrap_or(1)) as i64
                } else {
                    *value
                };
                a.insert(field.name.clone(), json!(v));
            }
            FieldKind::Text { .. } => {
                if !units.is_empty() && pick(4) != 0 {
                    let k = 1 + pick(3);
                    let ids: Vec<String> =
                        (0..k).map(|_| units[pick(units.len())].clone()).collect();
                    a.insert(field.name.clone(), json!(ids.join(",")));
                }
            }
        }
    }
    Value::Object(a)
}

/// Every command card is in exactly one place (design 4.3's invariant).
fn cards_accounted(st: &Value) {
    let mut seen = vec![0u32; 72];
    let mut piles: Vec<&Value> = vec![&st["deck"], &st["discard"]];
    for s in st["sides"].as_array().expect("sides") {
        piles.push(&s["hand"]);
        piles.push(&s["scout"]);
    }
    for v in piles {
        for c in v.as_array().expect("a pile") {
            seen[c.as_u64().expect("a card") as usize] += 1;
        }
    }
    for s in st["sides"].as_array().expect("sides") {
        for t in s["track"].as_array().expect("track") {
            seen[t[0].as_u64().expect("a card") as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1), "cards: {seen:?}");
}

fn play(name: &str, seed: u64, choices: &[usize], steps_max: usize) {
    let mut g = scenario(name);
    g.seed = seed;
    let mut k = 0usize;
    let mut pick = |n: usize| {
        k += 1;
        choices[k % choices.len()].wrapping_mul(k + 7) % n.max(1)
    };
    g.act(json!({"action": "deal", "hands": "single-device"}))
        .expect("deal");
    let mut steps = 0;
    while g.state["phase"] != "over" && steps < steps_max {
        steps += 1;
        let engine = g.engine().expect("engine");
        let forms = engine.forms(&g.state, None);
        assert!(!forms.is_empty(), "no form in phase {}", g.state["phase"]);
        // Objectives are the table's own: left out, so that battles decide the game.
        let forms: Vec<ActionForm> = forms
            .into_iter()
            .filter(|f| f.action != "objective")
            .collect();
        let others: Vec<&ActionForm> = forms.iter().filter(|f| !f.primary).collect();
        let f = if steps % 8 == 0 || others.is_empty() {
            forms
                .iter()
                .find(|f| f.primary)
                .or_else(|| forms.iter().find(|f| f.action == "end-turn"))
                .unwrap_or(&forms[0])
        } else {
            others[pick(others.len())]
        };
        let a = fill(f, &g.state, &mut pick);
        let before = g.log.entries().len();
        match g.act(a.clone()) {
            Ok(_) => {}
            Err(e) => {
                assert!(!e.to_string().is_empty(), "{a}");
                assert_eq!(before, g.log.entries().len(), "a refusal records nothing");
                // The game must never be stuck: the primary form with defaults goes through, or
                // the turn ends.
                // (In the orders phase the turn's way on is ending it.)
                let p = forms
                    .iter()
                    .find(|f| f.primary)
                    .or_else(|| forms.iter().find(|f| f.action == "end-turn"))
                    // A rash unit out of control: its breakthrough ends first.
                    .or_else(|| forms.iter().find(|f| f.action == "stop"))
                    .expect("a way on");
                let mut q = |_: usize| 0;
                let a2 = fill(p, &g.state, &mut q);
                if g.act(a2.clone()).is_err() {
                    let stopped = g.act(json!({"action": "stop", "no_target": true})).is_ok();
                    let ended = g.act(json!({"action": "end-turn"})).is_ok();
                    assert!(
                        stopped || ended,
                        "stuck in phase {}: {a2}, stop and end-turn all refused",
                        g.state["phase"]
                    );
                }
            }
        }
        // Every step records something: an action, or the way on when it was refused.
        assert!(
            g.log.entries().len() > before,
            "step {steps} recorded nothing in phase {}",
            g.state["phase"]
        );
        cards_accounted(&g.state);
        // No event shows a side another side's hand.
        if let Some(tercio_core::LogEntry::Event { event, .. }) = g.log.entries().last() {
            let ev = serde_json::to_value(event).expect("event");
            for (i, s) in g.state["sides"]
                .as_array()
                .expect("sides")
                .iter()
                .enumerate()
            {
                let me = s["id"].as_str().expect("id").to_string();
                let v = engine
                    .view_event(&ev, &Viewer::Side(me.clone()))
                    .expect("shown");
                for op in v["effects"].as_array().into_iter().flatten() {
                    let p = op["p"].as_str().unwrap_or("");
                    assert!(
                        !(p == "/deck"
                            || p.starts_with("/deck/")
                            || p == "/salt"
                            || p == "/pack"
                            || p.starts_with("/pack/")),
                        "{p}"
                    );
                    let seg: Vec<&str> = p.split('/').collect();
                    if seg.len() >= 4 && seg[1] == "sides" && matches!(seg[3], "hand" | "scout") {
                        assert!(p.starts_with(&format!("/sides/{i}/")), "{me} sees {p}");
                    }
                }
            }
        }
    }
    let mut kinds = std::collections::BTreeMap::new();
    for e in g.log.entries() {
        if let tercio_core::LogEntry::Event { event, .. } = e {
            *kinds.entry(event.resolution.action.clone()).or_insert(0) += 1;
        }
    }
    eprintln!(
        "{name} seed {seed}: turn {} phase {} banners {} {}; {kinds:?}",
        g.state["turn"],
        g.state["phase"],
        g.state["sides"][0]["banners"],
        g.state["sides"][1]["banners"]
    );
    // The game moved on: turns were played (a few hundred steps play well over a hundred), and
    // units were ordered, not only cards played and turns ended.
    let turn = g.state["turn"].as_u64().unwrap_or(0);
    assert!(
        turn >= 20 || g.state["phase"] == "over",
        "{name} seed {seed}: only turn {turn} after {steps} steps"
    );
    assert!(
        kinds.get("order").copied().unwrap_or(0) > 0,
        "{name} seed {seed}: no unit was ever ordered: {kinds:?}"
    );
    assert_eq!(
        g.replay().expect("the log replays"),
        g.log
            .entries()
            .iter()
            .filter(|e| matches!(e, tercio_core::LogEntry::Event { .. }))
            .count()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
    #[test]
    fn edgehill_plays_through_its_forms(seed in 0u64..1000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("edgehill-1642.toml", seed, &choices, 400);
    }
    #[test]
    fn tibbermore_plays_through_its_forms(seed in 0u64..1000, choices in proptest::collection::vec(0usize..1000, 16..64)) {
        play("tibbermore-1644.toml", seed, &choices, 400);
    }
}

//! A sixth rule set that exists only in this test: a coin-flip duel. It implements the typed
//! [`Rules`] trait and no more, and plugs into the shell's interface with one line
//! (`Box::new(Typed(Duel))`): from there the same code that plays the five real rule sets
//! resolves its actions from a seed or from faces thrown at the table, folds its effects, gives
//! its exact odds, refuses bad input by field, and draws its board and forms
//! (docs/adding-a-rule-set.md walks through the same steps).

use serde::{Deserialize, Serialize};
use serde_json::json;
use tercio_core::{Die, Plan, Resolution, Step};
use tercio_rules::interface::input;
use tercio_rules::{
    game, odds, ActionForm, Board, BoardTable, Choice, Engine, FormField, Outcome, Rejection,
    Rules, SideScore, Typed,
};

const SIDES: [&str; 2] = ["red", "blue"];
const TO_WIN: u32 = 3;

/// The state: each side's points, whose call it is, and the winner once there is one.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Bout {
    points: [u32; 2],
    turn: usize,
    winner: Option<usize>,
}

/// The actions: the side whose turn it is calls the coin; either side may concede.
#[derive(Debug, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
enum Act {
    Flip {
        #[serde(deserialize_with = "input::text")]
        call: String,
        /// A called "double": the point counts twice, a miss gives the other side one.
        #[serde(default, deserialize_with = "input::flag")]
        double: bool,
    },
    Concede {
        #[serde(deserialize_with = "input::text")]
        side: String,
    },
}

/// What one outcome changes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Scored {
    /// Points won by each side.
    points: [u32; 2],
    winner: Option<usize>,
}

struct Duel;

fn side_of(id: &str) -> Result<usize, Rejection> {
    SIDES
        .iter()
        .position(|s| *s == id)
        .ok_or_else(|| Rejection::new("unknown-side", Some("side"), format!("side: {id}?")))
}

fn flip(
    turn: usize,
    call: &str,
    double: bool,
    st: Option<&Bout>,
) -> Result<Plan<Outcome<Scored>>, Rejection> {
    let heads = match call {
        "heads" => true,
        "tails" => false,
        _ => {
            return Err(Rejection::new(
                "bad-call",
                Some("call"),
                "call: heads or tails",
            ))
        }
    };
    let points = st.map_or([0, 0], |s| s.points);
    let call = call.to_string();
    Ok(Plan::die(Die::new(2, "Coin"), move |face| {
        let hit = (face == 1) == heads;
        let mut won = [0, 0];
        match (hit, double) {
            (true, d) => won[turn] = if d { 2 } else { 1 },
            (false, true) => won[1 - turn] = 1,
            (false, false) => {}
        }
        let winner = (0..2).find(|&i| points[i] + won[i] >= TO_WIN);
        Plan::done(Outcome {
            resolution: Resolution {
                action: format!("{} calls {call}", SIDES[turn]),
                summary: if hit { "called right" } else { "called wrong" }.into(),
                steps: vec![Step {
                    title: "The coin".into(),
                    dice: Vec::new(),
                    modifiers: Vec::new(),
                    totals: Vec::new(),
                    result: if face == 1 { "heads" } else { "tails" }.into(),
                }],
            },
            effects: Scored {
                points: won,
                winner,
            },
            facets: vec![("hit".into(), if hit { "yes" } else { "no" }.into())],
        })
    }))
}

impl Rules for Duel {
    type State = Bout;
    type Action = Act;
    type Effect = Scored;
    type Request = Act;

    fn initial_state(&self) -> Result<Bout, String> {
        Ok(Bout::default())
    }

    fn plan(&self, st: &Bout, action: &Act) -> Result<Plan<Outcome<Scored>>, Rejection> {
        if st.winner.is_some() {
            return Err(Rejection::new("over", None, "the duel is over"));
        }
        match action {
            Act::Flip { call, double } => flip(st.turn, call, *double, Some(st)),
            Act::Concede { side } => {
                let loser = side_of(side)?;
                Ok(Plan::done(Outcome {
                    resolution: Resolution {
                        action: format!("{side} concedes"),
                        summary: "conceded".into(),
                        steps: Vec::new(),
                    },
                    effects: Scored {
                        points: [0, 0],
                        winner: Some(1 - loser),
                    },
                    facets: Vec::new(),
                }))
            }
        }
    }

    fn standalone(&self, request: &Act) -> Result<Plan<Outcome<Scored>>, Rejection> {
        match request {
            Act::Flip { call, double } => flip(0, call, *double, None),
            Act::Concede { .. } => Err(Rejection::new(
                "no-game",
                Some("action"),
                "concede: only in a game",
            )),
        }
    }

    fn apply(&self, st: &mut Bout, e: &Scored) -> Result<(), String> {
        for i in 0..2 {
            st.points[i] += e.points[i];
        }
        st.winner = e.winner;
        st.turn = 1 - st.turn;
        Ok(())
    }

    fn is_over(&self, st: &Bout) -> bool {
        st.winner.is_some()
    }

    fn board(&self, st: &Bout) -> Option<Board> {
        Some(Board {
            headline: format!("{} to call", SIDES[st.turn]),
            notes: Vec::new(),
            tables: vec![BoardTable::new(
                "Points",
                &["Side", "Points"],
                (0..2)
                    .map(|i| vec![SIDES[i].to_string(), st.points[i].to_string()])
                    .collect(),
            )],
        })
    }

    fn forms(&self, st: &Bout, side: Option<&str>) -> Vec<ActionForm> {
        if side.is_some_and(|s| s != SIDES[st.turn]) {
            return Vec::new();
        }
        let calls = vec![Choice::new("heads", "Heads"), Choice::new("tails", "Tails")];
        vec![ActionForm::new(
            "flip",
            "Flip",
            "Call the coin",
            vec![
                FormField::choice("call", "Call", calls, false),
                FormField::flag("double", "Double"),
            ],
            true,
        )
        .primary()]
    }

    fn acting_side(&self, st: &Bout, action: &Act) -> Option<String> {
        match action {
            Act::Flip { .. } => Some(SIDES[st.turn].to_string()),
            Act::Concede { side } => Some(side.clone()),
        }
    }

    fn scores(&self, st: &Bout) -> Vec<SideScore> {
        (0..2)
            .map(|i| SideScore {
                side: SIDES[i].into(),
                lost: st.points[1 - i],
                threshold: TO_WIN,
            })
            .collect()
    }
}

/// The one line that plugs it in.
fn engine() -> Box<dyn Engine> {
    Box::new(Typed(Duel))
}

#[test]
fn the_odds_come_from_the_same_plan_that_rolls() {
    let e = engine();
    let plan = e
        .plan(None, &json!({"action": "flip", "call": "heads"}))
        .expect("plan");
    let r = odds::odds(&plan);
    assert!((r.total - 1.0).abs() < 1e-12);
    assert!((r.p("hit", "yes") - 0.5).abs() < 1e-12);
    // A stand-alone flip changes no game; its effects say what the call would score.
    let (o, draws) = plan.roll_with(&[1]).expect("faces");
    assert_eq!(o.effects["points"], json!([1, 0]));
    assert_eq!(draws.len(), 1);
    assert_eq!(o.resolution.summary, "called right");
}

#[test]
fn a_whole_duel_plays_from_a_seed_and_replays_the_same() {
    let play = |seed: u64| {
        let e = engine();
        let mut state = e.initial_state().expect("state");
        let mut pos = 0;
        let mut log = Vec::new();
        while !e.is_over(&state) {
            assert!(log.len() < 200, "the duel never ends");
            let side = e.board(&state).expect("board").headline;
            let call = if log.len() % 3 == 0 { "tails" } else { "heads" };
            // Form text: the double flag as a ticked box sends "on".
            let action = json!({"action": "flip", "call": call, "double": "on"});
            let forms = e.forms(&state, Some(side.split(' ').next().unwrap_or("")));
            assert_eq!(forms.len(), 1, "the side to call has its form");
            let ev = game::resolve(e.as_ref(), &state, seed, pos, action, None).expect("allowed");
            state = e.folded(&state, &ev.effects).expect("fold");
            pos = ev.stream_pos;
            log.push((ev.resolution.summary.clone(), ev.effects.clone()));
        }
        (log, state)
    };
    let (a, end) = play(7);
    let (b, _) = play(7);
    assert_eq!(a, b, "the same seed plays the same duel");
    let scores = engine().scores(&end);
    assert!(
        scores.iter().any(|s| s.lost >= TO_WIN),
        "someone reached {TO_WIN}: {scores:?}"
    );
    // Once over, nothing more is resolved.
    let r = engine()
        .plan(Some(&end), &json!({"action": "flip", "call": "heads"}))
        .err()
        .expect("over");
    assert_eq!(r.code, "over");
}

#[test]
fn faces_thrown_at_the_table_give_the_same_outcome_as_the_seed_would() {
    let e = engine();
    let st = e.initial_state().expect("state");
    let a = json!({"action": "flip", "call": "tails"});
    let ev = game::resolve(e.as_ref(), &st, 1, 0, a.clone(), Some(&[2])).expect("faces");
    assert!(ev.entered);
    assert_eq!(ev.resolution.summary, "called right");
    let bad = game::resolve(e.as_ref(), &st, 1, 0, a, Some(&[3]));
    assert!(bad.is_err(), "a coin has no third face");
}

#[test]
fn bad_input_is_refused_by_field_through_the_same_reader() {
    let e = engine();
    let st = e.initial_state().expect("state");
    for (action, code, field) in [
        (json!({"action": "flip"}), "missing-field", "call"),
        (
            json!({"action": "flip", "call": "edge"}),
            "bad-call",
            "call",
        ),
        (
            json!({"action": "flip", "call": "heads", "double": "perhaps"}),
            "bad-field",
            "double",
        ),
        (
            json!({"action": "flip", "call": "heads", "bet": 5}),
            "unknown-field",
            "bet",
        ),
        (json!({"action": "draw"}), "unknown-action", "action"),
        (
            json!({"action": "concede", "side": "green"}),
            "unknown-side",
            "side",
        ),
    ] {
        let r = e.plan(Some(&st), &action).err().expect("refused");
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            (code, Some(field)),
            "{action}: {r}"
        );
    }
    assert_eq!(
        e.acting_side(&st, &json!({"action": "concede", "side": "blue"})),
        Some("blue".to_string())
    );
}

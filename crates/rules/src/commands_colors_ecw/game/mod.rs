//! A game of the English Civil War variant as a fold over the event log (design 3-8, 10 and 13 of
//! `docs/rules/commands-colors-ecw.md`).
//!
//! Every action is resolved against the state into a new state: the plan's leaves carry the whole
//! next state, and the event's effects are the difference between the two, as absolute values at
//! JSON pointers ([`diff`]), so folding an event is setting values ([`apply`]). Secret values (the
//! hands, the Stand of Pikes tracks, a Scout's pair, the order of the decks) live at known paths,
//! which the per-seat views strip ([`secret_path`]).
//!
//! The decks: the `deal` draws a shuffle key from the seeded stream; every shuffle of the game
//! (the first one and each reshuffle) is a deterministic function of that key and the shuffle's
//! number, so voiding an action never buys a new order (decisions 11 and 12).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, FaceClasses, Modifier, Plan, Step};

use super::resolve::{self, Roller, Target};
use super::tables::{
    self, chaunce_card, command_card, command_kind, ChaunceCard, Class, CommandCard, Count, Kind,
    Section, Symbol, Training, Turn, CHAUNCE_CARDS,
};
use crate::effects::shuffled;
pub use crate::effects::{apply, diff};
use crate::interface::Rejection;
use crate::scenario::Scenario;

mod chaunce;
mod combat;
mod config;
mod decks;
mod fire;
mod melee;
mod moves;
mod orders;
mod pack;
mod state;
mod turn;

use chaunce::*;
use combat::*;
pub use config::*;
pub use decks::*;
use fire::*;
pub use melee::*;
use moves::*;
use orders::*;
pub use pack::*;
pub use state::*;
use turn::*;

// ------------------------------------------------------------------------------------------------
// The result of a resolution: the next state with its explanation.

/// The result of a resolution: the next state with its explanation (shared with Callan).
pub type Res = crate::effects::Res<State>;

pub(super) type P = Plan<Res>;

pub(super) fn done(r: Res) -> P {
    Plan::Done(r)
}

/// Battle dice as rolled, each labelled with its symbol: "Label 2 (Flag)", or "Label (Flag)"
/// for a single die.
pub(crate) fn symbol_dice(label: &str, faces: &[u8]) -> Vec<tercio_core::RolledDie> {
    faces
        .iter()
        .enumerate()
        .map(|(i, &f)| tercio_core::RolledDie {
            label: if faces.len() == 1 {
                format!("{label} ({:?})", tables::symbol(f))
            } else {
                format!("{label} {} ({:?})", i + 1, tables::symbol(f))
            },
            sides: 6,
            face: f,
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Reading an action.

pub(super) fn s_field<'a>(a: &'a Value, k: &str) -> Option<&'a str> {
    a.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

pub(super) fn need<'a>(a: &'a Value, k: &str) -> Result<&'a str, Rejection> {
    match a.get(k) {
        None | Some(Value::Null) => Err(reject("missing-field", Some(k), format!("{k}: required"))),
        Some(Value::String(s)) if s.trim().is_empty() => {
            Err(reject("missing-field", Some(k), format!("{k}: required")))
        }
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(_) => Err(reject("bad-field", Some(k), format!("{k}: an id as text"))),
    }
}

pub(super) fn flag(a: &Value, k: &str) -> bool {
    a.get(k).and_then(Value::as_bool).unwrap_or(false)
}

pub(super) fn num(a: &Value, k: &str, lo: i64, hi: i64) -> Result<Option<i64>, Rejection> {
    let bad = || {
        reject(
            "bad-number",
            Some(k),
            format!("{k}: a whole number from {lo} to {hi}"),
        )
    };
    let n = match a.get(k) {
        None | Some(Value::Null) => return Ok(None),
        // A form's choice arrives as text.
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(Value::String(s)) => s.trim().parse::<i64>().map_err(|_| bad())?,
        Some(v) => v.as_i64().ok_or_else(bad)?,
    };
    if (lo..=hi).contains(&n) {
        Ok(Some(n))
    } else {
        Err(bad())
    }
}

/// A list of ids: a JSON array of strings or one string separated by commas.
pub(super) fn list(a: &Value, k: &str) -> Vec<String> {
    match a.get(k) {
        Some(Value::Array(v)) => v
            .iter()
            .filter_map(|x| x.as_str().map(|s| s.trim().to_string()))
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) => s
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// The side an action belongs to (design 13.3): the game master's own steps give `None`.
pub fn acting_side(st: &State, a: &Value) -> Option<usize> {
    match a.get("action").and_then(Value::as_str)? {
        "deal" | "objective" => None,
        "respond" => st.window.as_ref().and_then(|w| target_side(st, &w.target)),
        "dizzy_pick" => Some(1 - st.active),
        _ => Some(st.active),
    }
}

pub(super) fn target_side(st: &State, id: &str) -> Option<usize> {
    st.unit(id)
        .map(|u| u.side)
        .or_else(|| st.leader(id).map(|l| l.side))
}

/// Every action's plan (design 13.3).
/// The fields each action takes (design 13.3); any other field is refused, so that a misspelt
/// answer is never taken as no answer.
pub(super) fn fields_of(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "deal" => &["hands", "referee_sees_hands"],
        "draw_chaunce" | "end_turn" => &[],
        "resolve_chaunce" => &["candidates", "target", "room"],
        "swap" | "keep" => &["card"],
        "play" => &["card", "mode"],
        "order" => &["unit", "section", "adjacent_enemy"],
        "rally" | "control" => &["unit"],
        "move" => &["unit", "hexes", "mount", "dismount", "leave_stand", "join"],
        "fire" => &[
            "unit",
            "target",
            "range",
            "terrain",
            "target_room",
            "target_ignores",
            "adjacent_enemy",
        ],
        "melee" => &[
            "unit",
            "target",
            "terrain",
            "battle_back_terrain",
            "target_room",
            "attacker_room",
            "target_ignores",
        ],
        "respond" => &["response"],
        "stop" => &["no_target"],
        "dizzy_pick" => &["position"],
        "objective" => &["side", "banners", "hex"],
        _ => return None,
    })
}

pub fn plan(st: &State, a: &Value) -> Result<P, Rejection> {
    let action = need(a, "action")?;
    if let (Some(allowed), Some(obj)) = (fields_of(action), a.as_object()) {
        if let Some(k) = obj
            .keys()
            .find(|k| *k != "action" && !allowed.contains(&k.as_str()))
        {
            return Err(reject(
                "unknown-field",
                Some(k),
                format!(
                    "{k}: not a field of {action}; allowed: {}",
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
            ));
        }
    }
    if st.phase == Phase::Over && action != "objective" {
        return Err(reject(
            "game-over",
            Some("action"),
            format!("the battle is over: {}", verdict(st)),
        ));
    }
    if st.phase == Phase::Deal && action != "deal" {
        return Err(reject(
            "not-dealt",
            Some("action"),
            "the cards are not dealt yet: the game master's first action is `deal`",
        ));
    }
    let phase_is = |ps: &[Phase], what: &str| -> Result<(), Rejection> {
        if ps.contains(&st.phase) {
            Ok(())
        } else {
            Err(reject(
                "out-of-phase",
                Some("action"),
                format!("{what} is not possible now: {}", waiting_for(st)),
            ))
        }
    };
    match action {
        "deal" => {
            phase_is(&[Phase::Deal], "dealing")?;
            deal(st, a)
        }
        "draw_chaunce" => {
            phase_is(&[Phase::Chaunce], "drawing a Chaunce card")?;
            draw_chaunce(st)
        }
        "resolve_chaunce" => {
            phase_is(&[Phase::ChaunceResolve], "resolving a Chaunce card")?;
            resolve_chaunce(st, a)
        }
        "swap" => {
            phase_is(&[Phase::Swap], "the swap of one command card")?;
            swap(st, a)
        }
        "play" => {
            phase_is(&[Phase::Command], "playing a command card")?;
            play(st, a)
        }
        "order" => {
            phase_is(&[Phase::Orders], "ordering")?;
            order(st, a)
        }
        "rally" => {
            phase_is(&[Phase::Orders], "rallying")?;
            rally(st, a)
        }
        "move" => {
            phase_is(&[Phase::Orders], "moving")?;
            move_unit(st, a)
        }
        "fire" => {
            phase_is(&[Phase::Orders], "ranged combat")?;
            fire(st, a)
        }
        "melee" => {
            phase_is(&[Phase::Orders], "a melee")?;
            melee(st, a)
        }
        "respond" => {
            phase_is(&[Phase::Window], "a response")?;
            respond(st, a)
        }
        "control" => {
            phase_is(&[Phase::Orders], "a control roll")?;
            control(st, a)
        }
        "stop" => {
            phase_is(&[Phase::Orders], "stopping a breakthrough")?;
            stop(st, a)
        }
        "end_turn" => {
            phase_is(&[Phase::Orders, Phase::Command], "ending the turn")?;
            end_turn_action(st)
        }
        "keep" => {
            phase_is(&[Phase::Scout], "keeping a scouted card")?;
            keep(st, a)
        }
        "dizzy_pick" => {
            phase_is(&[Phase::Dizziness], "picking a card")?;
            dizzy_pick(st, a)
        }
        "objective" => objective(st, a),
        other => Err(reject(
            "unknown-action",
            Some("action"),
            format!(
                "unknown action \"{other}\"; allowed: deal, draw_chaunce, resolve_chaunce, swap, play, order, rally, move, fire, melee, respond, control, stop, end_turn, keep, dizzy_pick, objective"
            ),
        )),
    }
}

/// What the game waits for, in a sentence.
pub fn waiting_for(st: &State) -> String {
    let a = st.side_name(st.active);
    match st.phase {
        Phase::Deal => "the game master deals the cards (`deal`)".into(),
        Phase::Chaunce => {
            format!("{a} must take the Chaunce card presented to them (`draw_chaunce`)")
        }
        Phase::ChaunceResolve => format!(
            "{a} resolve the Chaunce card {} (`resolve_chaunce`)",
            st.chaunce.map_or("", |c| chaunce_of(c).name)
        ),
        Phase::Swap => format!("{a} may discard one command card and draw another (`swap`)"),
        Phase::Command => format!("{a} play a command card (`play`)"),
        Phase::Orders => {
            if let Some(c) = st.chase.as_ref().filter(|c| c.compelled) {
                format!(
                    "{a}: the rash {} must break through and make a bonus melee if it can (`melee`), roll for control (`control`) or, with no enemy in reach, stop (`stop`)",
                    st.unit(&c.unit).map_or("", |u| u.name.as_str())
                )
            } else {
                format!("{a} order, move and battle with the card in play, then end the turn (`end_turn`)")
            }
        }
        Phase::Window => {
            let d = st
                .window
                .as_ref()
                .and_then(|w| target_side(st, &w.target))
                .map_or(String::new(), |s| st.side_name(s));
            format!("{d} answer the melee announced against them (`respond`)")
        }
        Phase::Scout => format!("{a} keep one of the two scouted cards (`keep`)"),
        Phase::Dizziness => format!(
            "{} pick one of {a}'s cards, unseen (`dizzy_pick`)",
            st.side_name(1 - st.active)
        ),
        Phase::Over => verdict(st),
    }
}

pub fn verdict(st: &State) -> String {
    match st.winner {
        Some(w) => format!(
            "{} win with {} of {} victory banners ({} has {})",
            st.side_name(w),
            st.sides[w].banners,
            st.sides[w].banners_to_win,
            st.side_name(1 - w),
            st.sides[1 - w].banners
        ),
        None => "the battle is over".into(),
    }
}

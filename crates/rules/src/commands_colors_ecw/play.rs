//! The automatic players' tactics and muster for Commands & Colors ECW, played through the
//! seats' forms ([`crate::interface::form_play`]). Project design: design document, section
//! "Simulated battles".

use serde::Deserialize;
use serde_json::Value;

use super::game::{State, UnitState};
use crate::interface::form_play::{all_but_winner, Muster, Tactics};

/// What a side's player does with the units its card orders (aggressive, cautious, random):
/// every player orders what the card allows, then moves the units ordered, then fights (the
/// turn's own sequence: a combat closes the moves); the aggressive one goes into melee, the
/// cautious one shoots. A card to play and an answer to a melee are taken as the forms ask.
static TACTICS: Tactics = Tactics {
    weights: &[
        ("order", 0, [1, 1, 1]),
        ("move", 1, [1, 1, 1]),
        ("melee", 2, [8, 2, 1]),
        ("fire", 2, [4, 8, 1]),
    ],
    // A chase that must go on is stopped or controlled before the turn can end.
    way_on: &["end-turn", "control", "stop"],
    per_step: 40,
    // A turn is one side's card: sixty are thirty cards each.
    turn_limit: 60,
};

pub struct EcwMuster;

impl Muster for EcwMuster {
    fn tactics(&self) -> &'static Tactics {
        &TACTICS
    }

    /// Blocks left; none once the unit is eliminated. Only the units are read (the chronicle
    /// grows with the battle).
    fn strengths(&self, state: &Value) -> Vec<(String, u32)> {
        let Ok(units) = Vec::<UnitState>::deserialize(&state["units"]) else {
            return Vec::new();
        };
        units
            .iter()
            .map(|u| {
                let left = if u.gone.is_some() { 0 } else { u.blocks };
                (u.id.clone(), u32::from(left))
            })
            .collect()
    }

    /// The side that did not take its victory banners first.
    fn losers(&self, state: &Value) -> Vec<String> {
        let Ok(st) = State::deserialize(state) else {
            return Vec::new();
        };
        all_but_winner(st.sides.iter().map(|s| s.id.as_str()), st.winner)
    }
}

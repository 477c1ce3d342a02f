//! The automatic players' tactics and muster for The Renaissance (Callan), played through the
//! seats' forms ([`crate::interface::form_play`]). Project design: design document, section
//! "Simulated battles".

use serde::Deserialize;
use serde_json::Value;

use super::game::{State, UnitState};
use crate::interface::form_play::{all_but_winner, Muster, Tactics};

/// What a side's player does of its own accord at a card (aggressive, cautious, random): the
/// aggressive player attacks, the cautious one shoots and rallies; the turn's steps (a card
/// drawn, a combat resolved, an answer) are taken as the forms ask.
static TACTICS: Tactics = Tactics {
    weights: &[
        ("attack", 0, [8, 2, 1]),
        ("fire", 0, [4, 8, 1]),
        ("move", 0, [2, 2, 1]),
        ("rally", 0, [1, 4, 1]),
    ],
    way_on: &["end-turn"],
    per_step: 8,
    turn_limit: 20,
};

pub struct CallanMuster;

impl Muster for CallanMuster {
    fn tactics(&self) -> &'static Tactics {
        &TACTICS
    }

    /// Bases left; none once the unit has left the table (lost, routed off). Only the units
    /// are read (the chronicle grows with the battle).
    fn strengths(&self, state: &Value) -> Vec<(String, u32)> {
        let Ok(units) = Vec::<UnitState>::deserialize(&state["units"]) else {
            return Vec::new();
        };
        units
            .iter()
            .map(|u| (u.id.clone(), if u.on_table() { u.bases } else { 0 }))
            .collect()
    }

    fn losers(&self, state: &Value) -> Vec<String> {
        let Ok(st) = State::deserialize(state) else {
            return Vec::new();
        };
        if st.draw {
            return st.sides.iter().map(|s| s.id.clone()).collect();
        }
        all_but_winner(st.sides.iter().map(|s| s.id.as_str()), st.winner)
    }
}

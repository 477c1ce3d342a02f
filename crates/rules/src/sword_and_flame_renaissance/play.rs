//! The automatic players' tactics and muster for The Sword and the Flame (Renaissance), played
//! through the seats' forms ([`crate::interface::form_play`]). Project design: design document,
//! section "Simulated battles".

use serde::Deserialize;
use serde_json::Value;

use std::collections::BTreeMap;

use super::game::{State, UnitState};
use crate::interface::form_play::{Muster, Tactics};

/// What a side's player does of its own accord (aggressive, cautious, random): in the melee
/// step the aggressive player charges, the cautious one seldom. A unit named on a drawn card
/// moves or shoots as the form asks.
static TACTICS: Tactics = Tactics {
    weights: &[("charge", 0, [8, 2, 1])],
    // A unit named on a card that cannot shoot passes.
    way_on: &["end-turn", "pass"],
    per_step: 6,
    turn_limit: 20,
};

pub struct SafMuster;

impl Muster for SafMuster {
    fn tactics(&self) -> &'static Tactics {
        &TACTICS
    }

    /// Figures left; none once the unit has left the field. Only the units are read.
    fn strengths(&self, state: &Value) -> Vec<(String, u32)> {
        let Ok(units) = BTreeMap::<String, UnitState>::deserialize(&state["units"]) else {
            return Vec::new();
        };
        units
            .values()
            .map(|u| {
                let left = if u.on_table() { u.figures } else { 0 };
                (u.id.clone(), u32::from(left))
            })
            .collect()
    }

    /// The sides whose army spirit failed, or that have nothing left on the table.
    fn losers(&self, state: &Value) -> Vec<String> {
        State::deserialize(state).map_or_else(|_| Vec::new(), |st| st.broken)
    }
}

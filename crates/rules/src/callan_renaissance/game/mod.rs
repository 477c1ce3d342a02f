//! The battle as a fold (design §14): every action resolves into the next state, and the event's
//! effects are the difference (absolute values at JSON pointers), so replay needs no dice.
//!
//! A module a section: `config` (house rules), `state`, `army` (the scenario's units), `plan`
//! (each action's fields and its plan), `turn` (start, cards, end of turn), `losses`,
//! `discipline` (panic tests, wound checks), `fire`, `movement`, `combat` (contact), `round` (the
//! duel, the dice and what follows), `reports` (the players' reports, what the game waits for).
//! Here: the result of a resolution and the memo of equal futures, shared by all.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, Modifier, Plan, Step};

use super::action::Action;
use super::resolve::{
    self, gun_throw, panic_modifiers, panics, pool_led, side_dice, volley_groups, Cover, HitOn,
    Pool, Role, SideIn, VolleyIn,
};
use super::tables::{
    self, card_colour, Quality, Troop, Weapon, COMMANDER_LOSS_HALVES, COMMANDER_POINTS, JOKER,
    WORKS_POINTS,
};
use super::{k, m, term};
use crate::effects::shuffled;
use crate::interface::input::{in_range, read_action};
use crate::interface::scenario::{Rank, Scenario};
use crate::interface::Rejection;

mod army;
mod combat;
mod config;
mod discipline;
mod fire;
mod losses;
mod movement;
mod plan;
mod reports;
mod round;
mod state;
mod turn;

pub use army::*;
pub use combat::*;
pub use config::*;
pub use discipline::*;
pub use fire::*;
use losses::*;
use movement::*;
pub use plan::*;
pub use reports::*;
use round::*;
pub use state::*;
pub use turn::*;

// ------------------------------------------------------------------------------------------------
// The result of a resolution.

/// The result of a resolution: the next state with its explanation.
pub type Res = crate::effects::Res<State>;

/// A lasting effect, written in the battle's chronicle.
trait Chronicle {
    fn note(&mut self, s: String);
}

impl Chronicle for Res {
    fn note(&mut self, s: String) {
        self.st.chronicle.push(s);
    }
}

type P = Plan<Res>;
type K = Rc<dyn Fn(Res) -> P>;

/// A key for the exact odds' memo: the call site (which names the continuation and everything it
/// captured, the state it started from included) and the outcome's facets so far. Within one
/// resolution every die that changes the state is recorded as a facet (hits, bases lost, a panic
/// test, a wound, the pursuit die), so equal keys have equal futures.
fn digest(site: &str, r: &Res) -> String {
    facet_digest(site, r, false)
}

/// [`digest`] with the whole state in it: for the start of a round, whose state may come from
/// dice that are not facets of the round (a duel, a raw unit's test).
fn state_digest(site: &str, r: &Res) -> String {
    facet_digest(site, r, true)
}

fn facet_digest(site: &str, r: &Res, state: bool) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    if state {
        h.update(serde_json::to_vec(&r.st).unwrap_or_default());
    }
    for (k, v) in &r.facets {
        h.update(k.as_bytes());
        h.update([0]);
        h.update(v.as_bytes());
        h.update([1]);
    }
    format!("{site}|{}", tercio_core::hex(&h.finalize()))
}

/// Continue with `then`, merging equal futures in the exact odds (a panic die's six faces lead to
/// two outcomes, not six): rolling simply continues.
fn merge(site: &str, r: Res, then: K) -> P {
    let key = digest(site, &r);
    Plan::memo(key, move || then(r.clone()))
}

fn yes_no(b: bool) -> String {
    k(if b { "callan.yes" } else { "callan.no" })
}

//! The dice of The Sword and the Flame, Renaissance adaptation, as plans: fire (a D20 per figure,
//! casualty cards with their aces), the three morale tests, a close-combat bout in both versions
//! and a whole close combat (breaking off included), movement, the spirit of the army and a
//! rout's casualties. Each is
//! rolled or enumerated exactly from the same plan. The game flow (card activation, the turn's
//! steps) builds on these.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, Modifier, Plan, Resolution, RolledDie, Step};

use super::tables::{self, Kind, Order, Range, Test, Troop, Weapon};
use super::{facet, k, msg, term, yes_no};
use crate::interface::{input, Outcome, Rejection};

mod bout;
mod combat;
mod fire;
mod morale;
mod movement;
pub use bout::*;
use combat::*;
pub use fire::*;
use morale::*;
pub use movement::*;

/// A stand-alone action: everything it needs is in the request.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    Fire(FireRequest),
    Morale(MoraleRequest),
    Bout(BoutRequest),
    CloseCombat(CombatRequest),
    Move(MoveRequest),
    Spirit(SpiritRequest),
    Rout {},
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireRequest {
    pub weapon: Weapon,
    /// Short or long; pistols and crossbows have one range only (001, FIRE, Weapon Ranges).
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub range: Option<Range>,
    /// Target class 1 to 4 (design 2.4).
    #[serde(deserialize_with = "input::number")]
    pub target_class: u8,
    /// Figures that may fire (in range, in the ranks that shoot), or gunners for a gun.
    #[serde(deserialize_with = "input::number")]
    pub firers: u8,
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub light_rain: bool,
    /// Reiters firing both pistols (001, FIRE, "Reiters may shoot twice per turn").
    #[serde(default, deserialize_with = "input::flag")]
    pub double: bool,
    /// Figures the target has: hits beyond them draw no card.
    #[serde(default, deserialize_with = "input::opt_number")]
    pub target_figures: Option<u8>,
    /// The optional rule Wounded and Dead: a heart kills, other suits wound (001, OPTIONAL RULES;
    /// design 8.3).
    #[serde(default, deserialize_with = "input::flag")]
    pub wounded: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleRequest {
    pub test: Test,
    #[serde(default, deserialize_with = "input::flag")]
    pub leaderless: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub spent: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub field_officer: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub gendarmes_vs_lighter_cavalry: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub swiss_vs_pikes: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub attacked_in_rear: bool,
    /// Shaken, or routed (decision 5): −1 on Stand and Fight.
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    /// The break-off test (Stand and Fight) of infantry leaving a melee with cavalry.
    #[serde(default, deserialize_with = "input::flag")]
    pub infantry_breaking_off_from_cavalry: bool,
    /// Gun crews charged: they "always fail the "to stand" test".
    #[serde(default, deserialize_with = "input::flag")]
    pub artillerists: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Version {
    /// Figure against figure (001, CLOSE COMBAT - Original Version).
    Figure,
    /// Company against company (001, CLOSE COMBAT - Modifed Version).
    Company,
}

/// One side of a bout: the fighting figure, or company, and its situation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fighter {
    #[serde(rename = "type", deserialize_with = "input::text")]
    pub troop: String,
    /// Default: the type's own order (pikes closed, every other type open).
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub order: Option<Order>,
    /// The unit officer (figure version), or the company containing him.
    #[serde(default, deserialize_with = "input::flag")]
    pub officer: bool,
    /// Shaken or falling back.
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    /// Lances in the unit's first close combat (gendarmes, spear-armed light horse).
    #[serde(default, deserialize_with = "input::flag")]
    pub lance: bool,
    /// Men missing from the company (company version).
    #[serde(default, deserialize_with = "input::number_or_default")]
    pub missing: u8,
    #[serde(default, deserialize_with = "input::flag")]
    pub climbing: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub across_wall: bool,
    /// Attacked in the rear: the enemy started its move behind it (decision 27).
    #[serde(default, deserialize_with = "input::flag")]
    pub attacked_in_rear: bool,
    /// A pike square: no rear or flank, its pikes to the front every way.
    #[serde(default, deserialize_with = "input::flag")]
    pub square: bool,
    /// Pikes in broken terrain or urban areas other than the streets: the bare die.
    #[serde(default, deserialize_with = "input::flag")]
    pub broken_ground: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoutRequest {
    #[serde(default = "figure")]
    pub version: Version,
    pub a: Fighter,
    pub b: Fighter,
}

fn figure() -> Version {
    Version::Figure
}

/// One side of a whole close combat: the unit and its situation; the engine forms the queue of
/// fighters (design 6.1): figures, or companies, the officers last, an attached field officer last
/// of all.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatSide {
    #[serde(rename = "type", deserialize_with = "input::text")]
    pub troop: String,
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub order: Option<Order>,
    /// Figure version: the figures that may fight (the ranks that fight, in contact). Company
    /// version: the unit's figures present.
    #[serde(deserialize_with = "input::number")]
    pub figures: u8,
    /// Unit leaders among those figures (001: one; Swiss and Spanish pike two).
    #[serde(default = "one", deserialize_with = "input::number")]
    pub leaders: u8,
    #[serde(default, deserialize_with = "input::flag")]
    pub field_officer: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub lance: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub climbing: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub across_wall: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub attacked_in_rear: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub square: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub broken_ground: bool,
    /// Spent (less than 50% strength): −2 on its Stand and Fight test if it breaks off (001,
    /// MORALE NOTES).
    #[serde(default, deserialize_with = "input::flag")]
    pub spent: bool,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatRequest {
    #[serde(default = "figure")]
    pub version: Version,
    pub a: CombatSide,
    pub b: CombatSide,
    /// A side that breaks off as soon as it may (001, BREAKING OFF; design 6.5).
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub break_off: Option<BreakOff>,
}

/// Which side of a close combat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BreakSide {
    A,
    B,
}

/// Breaking off a close combat: the side breaks off once it has fought `after` bouts in this
/// combat, if the combat is still undecided, and tests Stand and Fight.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakOff {
    pub side: BreakSide,
    /// Bouts fought before breaking off: by default and at least 6 in the figure version, 3 in
    /// the company version (001, BREAKING OFF).
    #[serde(default, deserialize_with = "input::opt_number")]
    pub after: Option<u8>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "type", deserialize_with = "input::text")]
    pub troop: String,
    /// Default: the type's own order.
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub order: Option<Order>,
    #[serde(default, deserialize_with = "input::flag")]
    pub uphill: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub downhill: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub obstacle: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub woods: bool,
    /// Foot arquebusiers holding a reload marker move half (001, FIRE).
    #[serde(default, deserialize_with = "input::flag")]
    pub loading: bool,
    /// Mounting or dismounting this move: one die fewer (001, OPTIONAL RULES, DISMOUNTING).
    #[serde(default, deserialize_with = "input::flag")]
    pub dismounting: bool,
    /// A heavy gun the game master permits to move (the game's scenario flag `may-move`,
    /// decision 57); not a field of the stand-alone action, which keeps heavy guns still.
    #[serde(skip)]
    pub permitted: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiritRequest {
    /// Fresh units and guns now, worn units and guns now, units and guns at the start.
    #[serde(deserialize_with = "input::number")]
    pub fresh: u32,
    #[serde(deserialize_with = "input::number")]
    pub worn: u32,
    #[serde(deserialize_with = "input::number")]
    pub start: u32,
}

/// The thresholds of the morale table (project design, overridable per scenario).
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    pub to_close: i32,
    pub to_stand: i32,
    pub stand_and_fight: i32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            to_close: Test::ToClose.threshold(),
            to_stand: Test::ToStand.threshold(),
            stand_and_fight: Test::StandAndFight.threshold(),
        }
    }
}

impl Thresholds {
    fn of(&self, t: Test) -> i32 {
        match t {
            Test::ToClose => self.to_close,
            Test::ToStand => self.to_stand,
            Test::StandAndFight => self.stand_and_fight,
        }
    }
}

fn reject(code: &str, field: &str, m: impl Into<String>) -> Rejection {
    Rejection::new(code, Some(field), m)
}

fn modifier(
    side: impl Into<String>,
    name: impl Into<String>,
    value: i32,
    source: &str,
) -> Modifier {
    Modifier {
        side: side.into(),
        name: name.into(),
        value,
        source: source.into(),
    }
}

/// The labels `plan::throw` gives its dice: the bare label for one die, numbered for several
/// (the label is a message; the number follows it in every language).
fn labelled(n: usize, sides: u8, label: &str) -> Vec<Die> {
    (1..=n)
        .map(|i| {
            Die::new(
                sides,
                if n == 1 {
                    label.to_string()
                } else {
                    format!("{label} {i}")
                },
            )
        })
        .collect()
}

fn rolled(dice: &[Die], faces: &[u8]) -> Vec<RolledDie> {
    dice.iter()
        .zip(faces)
        .map(|(d, &f)| RolledDie {
            label: d.label.clone(),
            sides: d.sides,
            face: f,
        })
        .collect()
}

fn outcome(
    action: &str,
    summary: String,
    steps: Vec<Step>,
    facets: Vec<(String, String)>,
) -> Outcome {
    Outcome {
        resolution: Resolution {
            action: action.into(),
            summary,
            steps,
        },
        effects: Value::Array(Vec::new()),
        facets,
    }
}

/// A facet of one side of a close combat (`A`, `B`, or the charger and the target in a game):
/// `sword_and_flame.facet.side-<what>` with the side.
pub fn side_facet(what: &str, side: &str) -> String {
    msg(&format!("facet.side-{what}"), &[("side", side.to_string())])
}

/// Whether a morale test's outcome says it passed.
pub fn passed_test<E>(o: &Outcome<E>) -> bool {
    o.facets
        .iter()
        .any(|(k, v)| *k == facet("passed") && *v == yes_no(true))
}

pub fn plan(req: &Request, th: &Thresholds) -> Result<Plan<Outcome>, Rejection> {
    match req {
        Request::Fire(f) => fire(f),
        Request::Morale(m) => Ok(morale(m, th)),
        Request::Bout(b) => bout(b),
        Request::CloseCombat(c) => close_combat(c, th),
        Request::Move(m) => movement(m),
        Request::Spirit(s) => spirit(s),
        Request::Rout {} => Ok(rout()),
    }
}

//! The binding (design §14): here the `RuleSet` and the scenario checks; `rules` the typed
//! `Rules` (views: the deck's order is secret), which the shell holds as `Typed<CallanEngine>`;
//! `standalone` one volley or one first round between inline units; `board`, `forms` and
//! `reference` what the shell draws.

use serde_json::{json, Value};
use tercio_core::{Plan, Resolution};

use super::action::{Action, InlineUnit, UnitRef};
// For the sections, which name `super::resolve` and `super::RULESET_ID`.
use super::game::{self, CardPhase, Phase, State, Status, UnitState};
use super::tables::{self, card_colour, Quality, Troop, TROOPS};
use super::{k, m, term};
use super::{resolve, RULESET_ID};
use crate::interface::input::in_range;
use crate::interface::scenario::{Leader, Rank, Role, Scenario, Side, Unit};
use crate::interface::{
    ActionForm, Board, BoardTable, Choice, Engine, FormField, HouseRule, Outcome, Rejection,
    RuleSet, Rules, SideScore, Typed, Viewer,
};

mod board;
mod forms;
mod reference;
mod rules;
mod standalone;

pub use board::*;
pub use forms::*;
use reference::*;
pub use rules::*;
use standalone::*;

pub struct CallanRenaissance;

pub static RULESET: CallanRenaissance = CallanRenaissance;

impl RuleSet for CallanRenaissance {
    fn id(&self) -> &'static str {
        super::RULESET_ID
    }
    /// An obstacle's difficulty agreed before the battle (003, Preparazione del gioco; D58).
    fn obstacle_difficulties(&self) -> &'static [&'static str] {
        &["facile", "difficile", "molto-difficile"]
    }
    fn alias(&self) -> &'static str {
        "callan"
    }
    fn name(&self) -> &'static str {
        "The Renaissance (Andy Callan), Italian Wars edition"
    }
    fn seed(&self) -> &'static str {
        "003_f05e8e49e76e1302.txt"
    }
    /// §14.9: version 2 fixes a fixed Swiss unit's targets, pike and fleeing friends, guns'
    /// moves, crossbows' range groups and the loser's fate; version 3 records a close combat's
    /// last bases and a unit's charge move, from which the forms start; version 4 enforces
    /// the last rules the seed describes: passing through friends, no reform after a base lost
    /// to fire, no charge up a low hill, the obstacles' crossings, field works in the points.
    fn rules_version(&self) -> u32 {
        4
    }
    fn available(&self) -> bool {
        true
    }
    fn troop_types(&self) -> Vec<&'static str> {
        TROOPS.iter().map(|t| t.id()).collect()
    }
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        Troop::from_id(troop)
            .map(game::flags_for)
            .unwrap_or_default()
    }
    fn unit_size(&self) -> (&'static str, i64, i64) {
        ("bases", 1, 16)
    }
    fn balance(&self) -> Option<Box<dyn crate::interface::balance::Balance>> {
        Some(Box::new(crate::callan_renaissance::balance::balance()))
    }
    fn simulator(&self) -> Option<Box<dyn crate::interface::simulate::Simulator>> {
        Some(Box::new(crate::interface::form_play::FormSimulator {
            rules: &RULESET,
            muster: crate::callan_renaissance::play::CallanMuster,
        }))
    }
    fn sides_act_by_default(&self) -> bool {
        false
    }
    fn house_rules(&self) -> Vec<HouseRule> {
        tables::HOUSE_RULES.to_vec()
    }
    fn check_units(&self, sc: &Scenario) -> Vec<(usize, String, String)> {
        check_units(sc)
    }
    fn reference(&self) -> Value {
        json!({
            "troops": TROOPS.iter().map(|t| json!({
                "type": t.id(),
                "hits_per_base": t.hits_per_base(),
                "melee_dice_vs_foot": f64::from(t.melee_half_dice(false)) / 2.0,
                "melee_dice_vs_cavalry": f64::from(t.melee_half_dice(true)) / 2.0,
                "move_bw": t.move_bw().0,
                "charge_bw": t.move_bw().1,
                "sizes": t.sizes(false),
            })).collect::<Vec<_>>(),
            "house_rules": tables::HOUSE_RULES,
        })
    }
    fn reference_tables(&self) -> Vec<BoardTable> {
        reference_tables()
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        Ok(Box::new(Typed(CallanEngine {
            scenario: scenario.cloned(),
        })))
    }
}

/// The text's unit sizes and classes (D2–D4), each at the unit's field.
pub fn check_units(sc: &Scenario) -> Vec<(usize, String, String)> {
    let free = game::house(sc, "callan.free_sizes") != 0;
    let mut out = Vec::new();
    for (i, u) in sc.units.iter().enumerate() {
        let Some(t) = Troop::from_id(&u.troop) else {
            continue;
        };
        let has = |f: &str| u.flags.iter().any(|x| x == f);
        let german = u.nationality.as_deref() == Some("tedeschi");
        let bases = u32::from(u.bases);
        let tercio = has("tercio") || has("colunella");
        let screen = u
            .flags
            .iter()
            .find_map(|f| {
                f.strip_prefix("schermo-")
                    .and_then(|n| n.parse::<u32>().ok())
            })
            .unwrap_or(0);
        let total = bases
            + screen
            + u32::from(has("doppelsoldner") || has("rodeleros"))
            + u32::from(has("alabardieri"));
        if !free {
            if tercio && has("tercio") && total < 12 {
                out.push((
                    i,
                    "bases".into(),
                    m("callan.check.tercio", &[("n", total.to_string())]),
                ));
            } else if !tercio && !t.sizes(german).contains(&bases) {
                out.push((
                    i,
                    "bases".into(),
                    m(
                        "callan.check.size",
                        &[
                            ("type", term(t.id())),
                            ("n", bases.to_string()),
                            (
                                "allowed",
                                t.sizes(german)
                                    .iter()
                                    .map(u32::to_string)
                                    .collect::<Vec<_>>()
                                    .join(", "),
                            ),
                        ],
                    ),
                ));
            }
        }
        if t.is_cavalry() && has("reclute") {
            out.push((i, "flags".into(), k("callan.check.raw-cavalry")));
        }
        if t == Troop::ContadiniArmati && has("veterani") {
            out.push((i, "flags".into(), k("callan.check.peasants")));
        }
        if t.is_gun() && (has("veterani") || has("reclute")) {
            out.push((i, "flags".into(), k("callan.check.gun-quality")));
        }
        if has("veterani") && has("reclute") {
            out.push((i, "flags".into(), k("callan.check.two-classes")));
        }
        if t == Troop::CavalleriaLeggera {
            let w = ["giavellotti", "balestre", "archibugi"]
                .iter()
                .filter(|f| has(f))
                .count();
            if w > 1 {
                out.push((i, "flags".into(), k("callan.check.one-weapon")));
            }
        }
        if t == Troop::Picchieri {
            if has("doppelsoldner") && has("rodeleros") {
                out.push((i, "flags".into(), k("callan.check.one-special")));
            }
            let width = if bases >= 16 { 4 } else { 3 };
            if !tercio && screen > width {
                out.push((
                    i,
                    "flags".into(),
                    m(
                        "callan.check.screen",
                        &[("n", screen.to_string()), ("max", width.to_string())],
                    ),
                ));
            }
        }
    }
    out
}

//! Commands & Colors: Napoleonics, English Civil War variant, bound to the [`RuleSet`] and
//! [`Rules`] traits: scenarios, the game's actions, each seat's view of the hands, and the board
//! and forms the app draws.

use serde_json::{json, Value};
use tercio_core::{Plan, Resolution};

use super::game::{self, Action, Phase, Res, Sent, State, UnitState, HOUSE_RULES};
use super::resolve::{self, MeleeRequest};
use super::tables::{self, command_kind, Class, Training, CHAUNCE_CARDS, COMMAND_CARDS};
use super::{k, m, term};
use crate::interface::scenario::Scenario;
use crate::interface::{
    ActionForm, Board, BoardTable, Choice, Engine, FormField, HouseRule, Outcome, Rejection,
    RuleSet, Rules, SideScore, Typed, Viewer,
};

mod board;
mod forms;
mod reference;
mod rules;

pub use board::*;
pub use forms::*;
use reference::*;
pub use rules::*;

pub struct CommandsColorsEcw;

pub static RULESET: CommandsColorsEcw = CommandsColorsEcw;

pub(super) const TYPES: [&str; 7] = [
    "foot",
    "clubmen",
    "cuirassiers",
    "trotters",
    "gallopers",
    "dragoons",
    "artillery",
];

impl RuleSet for CommandsColorsEcw {
    fn id(&self) -> &'static str {
        super::RULESET_ID
    }
    fn alias(&self) -> &'static str {
        "ecw"
    }
    fn name(&self) -> &'static str {
        "Commands & Colors: Napoleonics, English Civil War variant"
    }
    fn seed(&self) -> &'static str {
        "004_87c88ceb03e2b5f8.txt"
    }
    /// Section 13.5: version 2 holds a failed control roll for the rest of the turn and keeps
    /// reserves out of Friendly Fire and Lay Down Your Armes.
    fn rules_version(&self) -> u32 {
        4
    }
    fn available(&self) -> bool {
        true
    }
    fn troop_types(&self) -> Vec<&'static str> {
        TYPES.to_vec()
    }
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        let mut f = vec!["left", "centre", "right", "attached", "spare"];
        match troop {
            "foot" => f.extend(["veteran", "raw", "militia", "no-pikes", "no-fire"]),
            "clubmen" => f.push("militia"),
            "gallopers" => f.extend(["veteran", "raw", "militia", "rash"]),
            "cuirassiers" | "trotters" => f.extend(["veteran", "raw", "militia"]),
            "dragoons" => f.extend(["veteran", "raw", "militia", "dismounted"]),
            _ => {}
        }
        f
    }
    fn unit_size(&self) -> (&'static str, i64, i64) {
        // Blocks: foot and clubmen 2-5, horse and dragoons 2-4, artillery 1-2 (decision 42);
        // the exact range per type is checked by `check_units`.
        ("blocks", 1, 5)
    }
    fn balance(&self) -> Option<Box<dyn crate::interface::balance::Balance>> {
        Some(Box::new(crate::commands_colors_ecw::balance::balance()))
    }
    fn simulator(&self) -> Option<Box<dyn crate::interface::simulate::Simulator>> {
        Some(Box::new(crate::interface::form_play::FormSimulator {
            rules: &RULESET,
            muster: crate::commands_colors_ecw::play::EcwMuster,
        }))
    }
    fn sides_act_by_default(&self) -> bool {
        // Only a side may play its hand.
        true
    }
    fn house_rules(&self) -> Vec<HouseRule> {
        HOUSE_RULES.to_vec()
    }
    fn check_units(&self, sc: &Scenario) -> Vec<(usize, String, String)> {
        check_units(sc)
    }
    fn reference(&self) -> Value {
        json!({
            "ruleset": self.id(),
            "seed": self.seed(),
            "design": "docs/rules/commands-colors-ecw.md",
            "command_cards": COMMAND_CARDS.iter().map(|c| json!({"id": c.id, "name": c.title(), "count": c.count, "text": c.rules()})).collect::<Vec<_>>(),
            "chaunce_cards": CHAUNCE_CARDS.iter().map(|c| json!({"id": c.id, "name": c.title(), "count": c.count, "turn": format!("{:?}", c.turn), "text": c.rules()})).collect::<Vec<_>>(),
            "battle_die": ["infantry", "infantry", "cavalry", "artillery", "sabre", "flag"],
            "house_rules": HOUSE_RULES,
        })
    }
    fn reference_tables(&self) -> Vec<BoardTable> {
        reference_tables()
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        Ok(Box::new(Typed(EcwEngine {
            scenario: scenario.cloned(),
        })))
    }
}

/// The scenario limits of decision 42, each reported against its unit.
pub fn check_units(sc: &Scenario) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let range = |t: &str| match t {
        "foot" | "clubmen" => (2, 5),
        "cuirassiers" | "trotters" | "gallopers" | "dragoons" => (2, 4),
        _ => (1, 2),
    };
    for (i, u) in sc.units.iter().enumerate() {
        let (lo, hi) = range(&u.troop);
        if !(lo..=hi).contains(&u.bases) {
            out.push((
                i,
                "blocks".into(),
                m(
                    "ecw.check.blocks",
                    &[
                        ("type", u.troop.clone()),
                        ("lo", lo.to_string()),
                        ("hi", hi.to_string()),
                        ("found", u.bases.to_string()),
                    ],
                ),
            ));
        }
        let sections = u
            .flags
            .iter()
            .filter(|f| matches!(f.as_str(), "left" | "centre" | "right"))
            .count();
        if sections != 1 {
            out.push((
                i,
                "flags".into(),
                m("ecw.check.section", &[("found", sections.to_string())]),
            ));
        }
        let trainings = u
            .flags
            .iter()
            .filter(|f| matches!(f.as_str(), "veteran" | "raw" | "militia"))
            .count();
        if trainings > 1 {
            out.push((i, "flags".into(), k("ecw.check.training")));
        }
        if u.troop == "clubmen" && !u.flags.iter().any(|f| f == "militia") {
            out.push((i, "flags".into(), k("ecw.check.clubmen")));
        }
    }
    let pct = |k: &str| usize::try_from(game::house(sc, k)).unwrap_or_default();
    for (si, s) in sc.sides.iter().enumerate() {
        let on: Vec<(usize, &crate::interface::scenario::Unit)> = sc
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.side == s.id && !u.flags.iter().any(|f| f == "spare"))
            .collect();
        let foot = on.iter().filter(|(_, u)| u.troop == "foot").count();
        let vets: Vec<usize> = on
            .iter()
            .filter(|(_, u)| u.troop == "foot" && u.flags.iter().any(|f| f == "veteran"))
            .map(|(i, _)| *i)
            .collect();
        let cap = foot * pct("ecw.veteran_cap_pct") / 100;
        if vets.len() > cap {
            out.push((
                vets[cap],
                "flags".into(),
                m(
                    "ecw.check.veterans",
                    &[
                        ("side", tercio_i18n::clip(&s.id).into_owned()),
                        ("count", vets.len().to_string()),
                        ("foot", foot.to_string()),
                        ("cap", cap.to_string()),
                        ("pct", pct("ecw.veteran_cap_pct").to_string()),
                    ],
                ),
            ));
        }
        let horse = on
            .iter()
            .filter(|(_, u)| matches!(u.troop.as_str(), "cuirassiers" | "trotters" | "gallopers"))
            .count();
        let rash: Vec<usize> = on
            .iter()
            .filter(|(_, u)| u.flags.iter().any(|f| f == "rash"))
            .map(|(i, _)| *i)
            .collect();
        let rcap = horse * pct("ecw.rash_cap_pct") / 100;
        if rash.len() > rcap {
            out.push((
                rash[rcap],
                "flags".into(),
                m(
                    "ecw.check.rash",
                    &[
                        ("side", tercio_i18n::clip(&s.id).into_owned()),
                        ("count", rash.len().to_string()),
                        ("horse", horse.to_string()),
                        ("cap", rcap.to_string()),
                        ("pct", pct("ecw.rash_cap_pct").to_string()),
                    ],
                ),
            ));
        }
        if si > 1 {
            break;
        }
    }
    for l in &sc.leaders {
        let n = sc
            .units
            .iter()
            .filter(|u| u.leader == l.id && u.flags.iter().any(|f| f == "attached"))
            .count();
        if n > 1 {
            if let Some(i) = sc
                .units
                .iter()
                .rposition(|u| u.leader == l.id && u.flags.iter().any(|f| f == "attached"))
            {
                out.push((
                    i,
                    "flags".into(),
                    m(
                        "ecw.check.attached",
                        &[
                            ("leader", tercio_i18n::clip(&l.id).into_owned()),
                            ("count", n.to_string()),
                        ],
                    ),
                ));
            }
        }
    }
    out
}

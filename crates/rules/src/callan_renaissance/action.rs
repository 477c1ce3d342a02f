//! The actions, typed (design §14.2): one struct variant per action, its fields read with the
//! one reading of form fields ([`crate::interface::input`]), so `"3"` and `3`, `"on"` and `true`
//! mean the same from a page's form and from the API.
//!
//! Names are kebab-case (`end-turn`, `hold-fire`...); the spellings recorded before them
//! (`end_turn`...) are aliases, so recorded games and exports replay unchanged. Fields keep their
//! names. Any other field is refused at its name. Every action may name its side (§14.2): the
//! field is accepted and not read (the side is the unit's).
//!
//! Stand-alone resolutions (no game: §14.2, one volley or one first round) give their units
//! inline: `fire`'s `unit` and `target` and `attack`'s `attacker` and `defender` are a
//! [`UnitRef`], an id in a game or an [`InlineUnit`] object without one.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::interface::input::{flag, ids, opt_number, opt_text, text};

fn no(b: &bool) -> bool {
    !*b
}

/// A flag whose absence is told apart from `false` (a unit's state left as it is, an attack whose
/// defender has not answered yet): present, it is read as every flag is.
fn opt_flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    flag(d).map(Some)
}

/// An action of the rule set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// The shuffle key, the fog die, "Niente soldi" and the armies' strengths.
    Start {
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// The next card of the turn deck.
    Draw {
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// Victory check, smoke removed, the deck reshuffled.
    #[serde(alias = "end_turn")]
    EndTurn {
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A volley (§6); stand-alone with both units inline.
    Fire {
        unit: UnitRef,
        target: UnitRef,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        short_bases: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        long_bases: Option<u32>,
        /// `none`, `wall`, `fortification`, `wood_edge`.
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        cover: Option<String>,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        dense: bool,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        downhill: bool,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        over_friends: bool,
        /// Absent stand-alone, a gun fires at the nearest enemy.
        #[serde(
            default,
            deserialize_with = "opt_flag",
            skip_serializing_if = "Option::is_none"
        )]
        nearest: Option<bool>,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        moved: bool,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// Veteran arquebusiers hold their fire for a volley (D24).
    #[serde(alias = "hold_fire")]
    HoldFire {
        #[serde(deserialize_with = "text")]
        unit: String,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// The held fire, at short range, in the enemy's move (D24).
    Volley {
        #[serde(deserialize_with = "text")]
        unit: String,
        #[serde(deserialize_with = "text")]
        target: String,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        short_bases: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A move (§5).
    Move {
        #[serde(deserialize_with = "text")]
        unit: String,
        /// `move` (absent), `charge`, `reform`, `formation`, `retire`, `flee`.
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        kind: Option<String>,
        /// `line`, `riccio`, `open`, `close`.
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        formation: Option<String>,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        steep_hill: bool,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        difficult_terrain: bool,
        /// A charge up onto a low hill, or against a unit on one: refused (D73).
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        low_hill: bool,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        obstacle: Option<String>,
        /// At a difficult obstacle: wait, and cross it next turn as easy if it is undefended
        /// (D74).
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        cross_next_turn: bool,
        /// Finish crossing the obstacle the unit reached on an earlier turn (D74).
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        finish_crossing: bool,
        /// The difficult obstacle it waited at is defended: no easy crossing (D74).
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        defended: bool,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        pass_through: Option<String>,
        /// The distance moved, for the log only.
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        bw: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A commander moves, joins or leaves a unit.
    Commander {
        #[serde(deserialize_with = "text")]
        commander: String,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        join: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// Contact and the first round (§7); stand-alone with both units inline.
    Attack {
        attacker: UnitRef,
        defender: UnitRef,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        attacker_front: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        attacker_rear: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        defender_front: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        defender_rear: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        attacker_shot: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        defender_shot: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        support: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        support_front: Option<u32>,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        charge: bool,
        /// The defender stands on a low hill: no charge (D73).
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        low_hill: bool,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        flank: bool,
        /// The defender's answer; absent, a unit that may evade is asked (§5, Evasione).
        #[serde(
            default,
            deserialize_with = "opt_flag",
            skip_serializing_if = "Option::is_none"
        )]
        evade: Option<bool>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// The attacked unit's answer: `evade` or `stand`.
    Answer {
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        choice: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// The round of a continuing combat, at its card (D14).
    #[serde(alias = "resolve_combat")]
    ResolveCombat {
        /// `c<n>`.
        #[serde(deserialize_with = "text")]
        combat: String,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        attacker_front: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        attacker_rear: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        defender_front: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        defender_rear: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        attacker_shot: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        defender_shot: Option<u32>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        support: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_number",
            skip_serializing_if = "Option::is_none"
        )]
        support_front: Option<u32>,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        attacker_emerge: bool,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        defender_emerge: bool,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A panic test the players report.
    #[serde(alias = "panic_test")]
    PanicTest {
        #[serde(deserialize_with = "text")]
        unit: String,
        /// `friends_fleeing` (absent) or `rout_seen`.
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        reason: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A pursuer's move.
    Pursuit {
        #[serde(deserialize_with = "text")]
        unit: String,
        #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
        reached_edge: bool,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A commander merges an exhausted squadron into a damaged one.
    Rally {
        #[serde(deserialize_with = "text")]
        commander: String,
        #[serde(deserialize_with = "text")]
        from: String,
        #[serde(deserialize_with = "text")]
        to: String,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// A unit has left the table.
    #[serde(alias = "off_table")]
    OffTable {
        #[serde(deserialize_with = "text")]
        unit: String,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// An obstacle and its difficulty (D58).
    Obstacle {
        #[serde(deserialize_with = "text")]
        id: String,
        /// `facile`, `difficile`, `molto-difficile`.
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        difficulty: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
    /// The players' corrections of a unit's state; a flag left out is left as it is.
    #[serde(rename = "state")]
    SetState {
        #[serde(deserialize_with = "text")]
        unit: String,
        #[serde(
            default,
            deserialize_with = "opt_flag",
            skip_serializing_if = "Option::is_none"
        )]
        disordered: Option<bool>,
        #[serde(
            default,
            deserialize_with = "opt_flag",
            skip_serializing_if = "Option::is_none"
        )]
        open_order: Option<bool>,
        #[serde(
            default,
            deserialize_with = "opt_flag",
            skip_serializing_if = "Option::is_none"
        )]
        riccio: Option<bool>,
        /// `pike`, `screen`, `special`, `halberd`, `shot`.
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        loses_first: Option<String>,
        #[serde(
            default,
            deserialize_with = "opt_text",
            skip_serializing_if = "Option::is_none"
        )]
        side: Option<String>,
    },
}

impl Action {
    /// The action's canonical name (`end-turn`), which its title's catalogue key is built from.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Start { .. } => "start",
            Action::Draw { .. } => "draw",
            Action::EndTurn { .. } => "end-turn",
            Action::Fire { .. } => "fire",
            Action::HoldFire { .. } => "hold-fire",
            Action::Volley { .. } => "volley",
            Action::Move { .. } => "move",
            Action::Commander { .. } => "commander",
            Action::Attack { .. } => "attack",
            Action::Answer { .. } => "answer",
            Action::ResolveCombat { .. } => "resolve-combat",
            Action::PanicTest { .. } => "panic-test",
            Action::Pursuit { .. } => "pursuit",
            Action::Rally { .. } => "rally",
            Action::OffTable { .. } => "off-table",
            Action::Obstacle { .. } => "obstacle",
            Action::SetState { .. } => "state",
        }
    }
}

/// A unit named in an action: its id in a game; stand-alone, the unit itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum UnitRef {
    Id(String),
    Inline(Box<InlineUnit>),
}

impl<'de> Deserialize<'de> for UnitRef {
    /// An object is an inline unit; anything else an id, read as every text field is.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.is_object() {
            return InlineUnit::deserialize(v)
                .map(|u| UnitRef::Inline(Box::new(u)))
                .map_err(D::Error::custom);
        }
        text(v).map(UnitRef::Id).map_err(D::Error::custom)
    }
}

/// A unit given inline for a stand-alone resolution. Its type, size and flags are checked where
/// the unit is built, each refusal at its field (`unit.type`, `unit.bases`, `unit.flags`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InlineUnit {
    #[serde(
        rename = "type",
        default,
        deserialize_with = "opt_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub troop: Option<String>,
    #[serde(
        default,
        deserialize_with = "opt_number",
        skip_serializing_if = "Option::is_none"
    )]
    pub bases: Option<u32>,
    #[serde(
        default,
        deserialize_with = "opt_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<String>,
    #[serde(
        default,
        deserialize_with = "ids",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub flags: Vec<String>,
    #[serde(
        default,
        deserialize_with = "opt_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub nationality: Option<String>,
    /// Led by its side's commander.
    #[serde(default, deserialize_with = "flag", skip_serializing_if = "no")]
    pub commander: bool,
}

impl UnitRef {
    /// The id, when the unit is named by one.
    pub fn id(&self) -> Option<&str> {
        match self {
            UnitRef::Id(id) => Some(id),
            UnitRef::Inline(_) => None,
        }
    }
}

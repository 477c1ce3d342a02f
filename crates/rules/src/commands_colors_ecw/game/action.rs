//! The actions of a game (design 13.3), typed: one variant each, its fields read with the one
//! reading of [`crate::interface::input`] ("3" and 3, "on" and true mean the same), any other
//! field refused by name so that a misspelt answer is never taken as no answer.
//!
//! Canonical names are kebab-case (`end-turn`, `draw-chaunce`); the spellings games were recorded
//! with (`end_turn`, `draw_chaunce`) are aliases, and [`Sent`] keeps the spelling an action came
//! with, which its resolution repeats so that recorded games verify unchanged.

use serde::de::{Deserializer, Error as _};

use super::*;
use crate::commands_colors_ecw::resolve::{BattleRequest, Fighter};
use crate::interface::input;

/// One action of the rule set. Numbers are kept as given (`i64`) and checked against their
/// range where the rules read them, as before the typed reading.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// The game master deals: `hands` is `per-seat` (default) or `single-device`.
    Deal {
        #[serde(default, deserialize_with = "input::opt_text")]
        hands: Option<String>,
        #[serde(default, deserialize_with = "input::flag")]
        referee_sees_hands: bool,
    },
    #[serde(alias = "draw_chaunce")]
    DrawChaunce {},
    #[serde(alias = "resolve_chaunce")]
    ResolveChaunce {
        #[serde(default, deserialize_with = "input::ids")]
        candidates: Vec<String>,
        #[serde(default, deserialize_with = "input::ids")]
        target: Vec<String>,
        /// Fumblethumbs: the hexes the foot can retreat (0 to 12).
        #[serde(default, deserialize_with = "input::opt_number")]
        room: Option<i64>,
    },
    /// After a card that replaced the turn: discard `card` and draw another, or keep the hand.
    Swap {
        #[serde(default, deserialize_with = "input::opt_text")]
        card: Option<String>,
    },
    /// Scout: the card kept of the two.
    Keep {
        #[serde(deserialize_with = "input::text")]
        card: String,
    },
    Play {
        #[serde(deserialize_with = "input::text")]
        card: String,
        /// Hazzard a Chaunce: `order` or `present`.
        #[serde(default, deserialize_with = "input::opt_text")]
        mode: Option<String>,
    },
    Order {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        #[serde(default, deserialize_with = "input::opt_text")]
        section: Option<String>,
        #[serde(default, deserialize_with = "input::flag")]
        adjacent_enemy: bool,
    },
    Rally {
        #[serde(deserialize_with = "input::text")]
        unit: String,
    },
    Move {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        /// 0 to 6.
        #[serde(default, deserialize_with = "input::opt_number")]
        hexes: Option<i64>,
        #[serde(default, deserialize_with = "input::flag")]
        mount: bool,
        #[serde(default, deserialize_with = "input::flag")]
        dismount: bool,
        #[serde(default, deserialize_with = "input::flag")]
        leave_stand: bool,
        /// The unit ends its move in a wood or a built-up hex (town, village, church...): it may
        /// not battle this turn, unless it is dragoons (decision 64).
        #[serde(default, deserialize_with = "input::flag")]
        into_woods_or_town: bool,
        /// A leader's move: the unit he joins.
        #[serde(default, deserialize_with = "input::opt_text")]
        join: Option<String>,
    },
    Fire {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        #[serde(deserialize_with = "input::text")]
        target: String,
        /// 1 to 5.
        #[serde(default, deserialize_with = "input::opt_number")]
        range: Option<i64>,
        /// 0 to 3.
        #[serde(default, deserialize_with = "input::opt_number")]
        terrain: Option<i64>,
        /// 0 to 12; none: room enough.
        #[serde(default, deserialize_with = "input::opt_number")]
        target_room: Option<i64>,
        /// 0 to 2.
        #[serde(default, deserialize_with = "input::opt_number")]
        target_ignores: Option<i64>,
        #[serde(default, deserialize_with = "input::flag")]
        adjacent_enemy: bool,
    },
    /// In a game: `unit` attacks `target`. Stand-alone (no game): `attacker` against `defender`
    /// with the battle back (design 9), the fields of [`resolve::MeleeRequest`].
    Melee {
        #[serde(default, deserialize_with = "input::opt_text")]
        unit: Option<String>,
        #[serde(default, deserialize_with = "input::opt_text")]
        target: Option<String>,
        /// 0 to 3 in a game.
        #[serde(default, deserialize_with = "input::opt_number")]
        terrain: Option<i64>,
        /// 0 to 3 in a game.
        #[serde(default, deserialize_with = "input::opt_number")]
        battle_back_terrain: Option<i64>,
        #[serde(default, deserialize_with = "input::opt_number")]
        target_room: Option<i64>,
        #[serde(default, deserialize_with = "input::opt_number")]
        attacker_room: Option<i64>,
        #[serde(default, deserialize_with = "input::opt_number")]
        target_ignores: Option<i64>,
        #[serde(default)]
        attacker: Option<Fighter>,
        #[serde(default)]
        defender: Option<Fighter>,
        #[serde(default, deserialize_with = "input::flag")]
        stand_of_pikes: bool,
    },
    /// Stand-alone only: one battle roll (design 9).
    Battle(BattleRequest),
    /// The defender's answer to a melee: `evade`, `stand-of-pikes`, `retire` or `none` (default).
    Respond {
        #[serde(default, deserialize_with = "input::opt_text")]
        response: Option<String>,
    },
    Control {
        #[serde(deserialize_with = "input::text")]
        unit: String,
    },
    Stop {
        #[serde(default, deserialize_with = "input::flag")]
        no_target: bool,
    },
    #[serde(alias = "end_turn")]
    EndTurn {},
    /// The Dizziness: the position of the card picked, from 1.
    #[serde(alias = "dizzy_pick")]
    DizzyPick {
        #[serde(default, deserialize_with = "input::opt_number")]
        position: Option<i64>,
    },
    /// The game master's objective banner: `banners` -3 to 3, not 0 (default 1).
    Objective {
        #[serde(deserialize_with = "input::text")]
        side: String,
        #[serde(default, deserialize_with = "input::opt_number")]
        banners: Option<i64>,
        #[serde(default, deserialize_with = "input::opt_text")]
        hex: Option<String>,
    },
}

/// Every action's canonical name with the older spelling it also answers to.
pub const ACTION_NAMES: [(&str, Option<&str>); 18] = [
    ("deal", None),
    ("draw-chaunce", Some("draw_chaunce")),
    ("resolve-chaunce", Some("resolve_chaunce")),
    ("swap", None),
    ("keep", None),
    ("play", None),
    ("order", None),
    ("rally", None),
    ("move", None),
    ("fire", None),
    ("melee", None),
    ("battle", None),
    ("respond", None),
    ("control", None),
    ("stop", None),
    ("end-turn", Some("end_turn")),
    ("dizzy-pick", Some("dizzy_pick")),
    ("objective", None),
];

/// The canonical name of an action name as sent or recorded (an older spelling, or unknown as
/// it is).
pub fn canonical(name: &str) -> &str {
    ACTION_NAMES
        .iter()
        .find(|(c, old)| *c == name || *old == Some(name))
        .map_or(name, |(c, _)| c)
}

impl Action {
    /// The canonical name.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Deal { .. } => "deal",
            Action::DrawChaunce {} => "draw-chaunce",
            Action::ResolveChaunce { .. } => "resolve-chaunce",
            Action::Swap { .. } => "swap",
            Action::Keep { .. } => "keep",
            Action::Play { .. } => "play",
            Action::Order { .. } => "order",
            Action::Rally { .. } => "rally",
            Action::Move { .. } => "move",
            Action::Fire { .. } => "fire",
            Action::Melee { .. } => "melee",
            Action::Battle(_) => "battle",
            Action::Respond { .. } => "respond",
            Action::Control { .. } => "control",
            Action::Stop { .. } => "stop",
            Action::EndTurn {} => "end-turn",
            Action::DizzyPick { .. } => "dizzy-pick",
            Action::Objective { .. } => "objective",
        }
    }
}

/// An action with the name it was sent under: a recorded game's resolution repeats the spelling
/// it was played with (`end_turn`), so that verifying it gives the same resolution.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub name: String,
    pub action: Action,
}

impl From<Action> for Sent {
    fn from(action: Action) -> Self {
        Sent {
            name: action.name().to_string(),
            action,
        }
    }
}

impl<'de> Deserialize<'de> for Sent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        // serde's own message (unknown field, missing field...) is kept whole, for
        // `input::read_action` to name the field.
        let action = Action::deserialize(&v).map_err(D::Error::custom)?;
        let name = v
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or(action.name())
            .to_string();
        Ok(Sent { name, action })
    }
}

/// A field the rules require, absent: refused as the one reading refuses it.
pub fn required<T>(field: &str, v: Option<T>) -> Result<T, Rejection> {
    v.ok_or_else(|| {
        Rejection::new(
            "missing-field",
            Some(field),
            tercio_i18n::msg("input.missing-field", &[("field", field)]),
        )
    })
}

/// A number given, checked against its range (the one reading's refusal, naming the field).
pub fn ranged(field: &str, v: Option<i64>, lo: i64, hi: i64) -> Result<Option<i64>, Rejection> {
    v.map(|n| input::in_range(field, n, lo, hi)).transpose()
}

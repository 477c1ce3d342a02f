//! The shape of the charts shared by A Bloody Dismal Fight and El Gran Capitán.
//!
//! Both texts (seeds 002 and 000) describe one app-driven system: the same fields, actions, status
//! ladder and break points, with different troop types. Their charts are not published; Tercio's
//! design lives in each rule set's `tables.rs` as data of the types below, with a citation beside
//! every entry, and is documented in `docs/rules/<ruleset>.md`.

use serde::Serialize;

/// How a troop type behaves for ground, fire vulnerability and retiring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Knights, men-at-arms, gendarmes.
    HeavyMounted,
    /// Horsemen, light lancers, mounted crossbows.
    LightMounted,
    /// Pike blocks of every nationality.
    Pike,
    /// Dense close-fighting foot: dismounted knights, footmen, levy.
    FormedFoot,
    /// Dense missile foot: archers, crossbowmen, arquebusiers.
    MissileFoot,
    /// Loose-order foot: irregulars, skirmishers, forlorn hopes.
    Loose,
    Cannon,
}

impl Class {
    pub fn mounted(self) -> bool {
        matches!(self, Class::HeavyMounted | Class::LightMounted)
    }
}

/// Whom a troop type may charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChargeRule {
    Any,
    /// Cannon (both texts): never.
    Never,
    /// Irregulars / Skirmishers: not in the open, except against the same type or cannon.
    LooseOnly,
    /// EGC missile troops: only skirmishers or cannon, unless the target is already in an ongoing
    /// combat or is charged in flank or rear.
    MissileRestricted,
}

/// Who may pass through this troop type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Interpenetration {
    /// Friendly units pass freely in any direction.
    Freely,
    /// Friendly units pass straight through from front or rear when it is one base deep.
    WhenOneBaseDeep,
    No,
}

/// Missile capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FireProfile {
    /// Range in inches.
    pub range: u8,
    /// Fire chart modifier of the weapon.
    pub factor: i32,
    /// Extra modifier against heavy mounted targets (armour-piercing weapons).
    pub vs_heavy_mounted: i32,
    /// Extra modifier against pike blocks (deep targets for round shot).
    pub vs_pike: i32,
    /// May fire at a unit charging it frontally (defensive fire).
    pub defensive: bool,
    /// Only with this scenario flag (ABDF horsemen with missile weapons).
    pub needs_flag: Option<&'static str>,
}

/// One troop type with every number the engine uses.
#[derive(Debug, Clone, Serialize)]
pub struct TroopProfile {
    pub id: &'static str,
    /// The catalogue key of the type's name (`app_driven.troop.<rules>-<id>`); `name` is the
    /// English the charts are documented in.
    #[serde(skip)]
    pub key: &'static str,
    pub name: &'static str,
    pub class: Class,
    pub fire: Option<FireProfile>,
    pub may_evade: bool,
    pub charge: ChargeRule,
    pub interpenetration: Interpenetration,
    /// Melee factor against foot and cannon.
    pub melee_vs_foot: i32,
    /// Melee factor against mounted.
    pub melee_vs_mounted: i32,
    /// Added to the melee factor of an Actor that is charging.
    pub impact: i32,
    /// Added when attacking a target behind an obstacle or in a fortified position.
    pub vs_fixed_positions: i32,
    /// Fire chart modifier when this type is the target.
    pub fire_target: i32,
    /// Retire roll modifier (ease of breaking off).
    pub retire: i32,
    /// Movement allowances in base inches; `None` = cannot make that move.
    pub advance: Option<u8>,
    pub march: Option<u8>,
    pub charge_move: Option<u8>,
    pub retire_move: Option<u8>,
    /// Break points when destroyed.
    pub break_points: u8,
    /// Flags a scenario may set on this type.
    pub flags: &'static [&'static str],
    /// Where the entry comes from.
    pub cite: &'static str,
}

/// A row of the movement factors table ("available as reference").
#[derive(Debug, Clone, Serialize)]
pub struct TerrainRow {
    pub factor: &'static str,
    pub cost: &'static str,
    pub notes: &'static str,
}

/// Every chart of one app-driven rule set.
#[derive(Debug, Clone, Serialize)]
pub struct Charts {
    pub ruleset: &'static str,
    pub seed: &'static str,
    pub troops: Vec<TroopProfile>,
    pub terrain: Vec<TerrainRow>,
    pub leader_move: u8,
    pub command_radius: u8,
    /// Activations granted by a D6 (index face-1), before the leader's bonus.
    pub activations: [u8; 6],
    /// Fire: 2D6 + modifiers; at least `fire_one` loses one level, at least `fire_two` two.
    pub fire_one: i32,
    pub fire_two: i32,
    /// Regroup: D6 + modifiers; at least `regroup_one` regains one level, `regroup_two` two.
    pub regroup_one: i32,
    pub regroup_two: i32,
    /// Retire: D6 + modifiers; success at `retire_success` or more.
    pub retire_success: i32,
    /// Leader risk on 2D6 for a leader with the losing unit: captured or killed at or below
    /// `leader_risk`, at or below `leader_risk_destroyed` if the unit was destroyed. A 2 is killed.
    pub leader_risk: i32,
    pub leader_risk_destroyed: i32,
    /// Break points for leaders and camp.
    pub bp_army_commander: u8,
    pub bp_battle_commander: u8,
    pub bp_camp: u8,
    pub bp_demoralized: u8,
    /// EGC: Swiss ferocious charge range in inches (None in ABDF).
    pub ferocious_charge_range: Option<u8>,
}

impl TroopProfile {
    /// The type's name as a language-neutral message.
    pub fn title(&self) -> String {
        tercio_i18n::msg(self.key, &[])
    }
}

impl Charts {
    pub fn troop(&self, id: &str) -> Option<&TroopProfile> {
        self.troops.iter().find(|t| t.id == id)
    }
    pub fn troop_ids(&self) -> Vec<&'static str> {
        self.troops.iter().map(|t| t.id).collect()
    }
}

/// Named modifier values that are the same in both texts' designs (project design, documented in
/// both rule docs).
pub mod common {
    pub const LEADER_WITH_UNIT: i32 = 1;
    pub const DISORDERED: i32 = -1;
    pub const DEMORALIZED: i32 = -2;
    pub const IN_FLANK_OR_REAR: i32 = -2;
    pub const BADLY_OUTNUMBERED: i32 = -2;
    pub const OUTNUMBERED: i32 = -1;
    pub const OUTNUMBERS: i32 = 1;
    pub const BADLY_OUTNUMBERS: i32 = 2;
    pub const UPHILL: i32 = 1;
    pub const BEHIND_OBSTACLE: i32 = 1;
    pub const FORTIFIED: i32 = 2;
    pub const COVER: i32 = -1;
    pub const HARD_COVER: i32 = -2;
    pub const REGROUP_DEMORALIZED: i32 = -1;
    pub const UNDISCIPLINED: i32 = -1;
}

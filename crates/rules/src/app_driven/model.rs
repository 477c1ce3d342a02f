//! The app-driven system's vocabulary: unit status and its ladder, the action request (the app's
//! fields), the effects an outcome has on a game, and the game state they fold into.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tercio_i18n::{keys, msg};

use super::tables::TroopProfile;

/// Unit Status (both seeds, 'Unit Status'): OK, Disordered, Demoralized; further losses are bases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    #[default]
    Ok,
    Disordered,
    Demoralized,
}

impl Status {
    /// The status's name as a language-neutral message.
    pub fn title(self) -> String {
        msg(
            match self {
                Status::Ok => keys::APP_DRIVEN_STATUS_OK,
                Status::Disordered => keys::APP_DRIVEN_STATUS_DISORDERED,
                Status::Demoralized => keys::APP_DRIVEN_STATUS_DEMORALIZED,
            },
            &[],
        )
    }
}

/// A unit's condition: status, bases lost, destroyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    pub status: Status,
    pub lost: u8,
    pub destroyed: bool,
}

impl Condition {
    /// The condition as a language-neutral message.
    pub fn describe(&self, bases: u8) -> String {
        let (lost, bases) = (self.lost.to_string(), bases.to_string());
        if self.destroyed {
            msg(
                keys::APP_DRIVEN_COND_DESTROYED,
                &[("lost", &lost), ("bases", &bases)],
            )
        } else if self.lost > 0 {
            msg(
                keys::APP_DRIVEN_COND_LOST,
                &[
                    ("status", &self.status.title()),
                    ("count", &lost),
                    ("bases", &bases),
                ],
            )
        } else {
            self.status.title()
        }
    }
}

/// Destroyed when half or more of the starting bases are gone (both seeds, 'Destroyed'); in Bad
/// War (EGC) only when every base is gone.
pub fn is_destroyed(bases: u8, lost: u8, to_the_last: bool) -> bool {
    if to_the_last {
        lost >= bases
    } else {
        2 * u16::from(lost) >= u16::from(bases)
    }
}

/// Lose `levels` Status Levels: OK -> Disordered -> Demoralized -> one base per further level
/// (both seeds: 'When a Demoralized unit loses a Status Level, it loses a base').
pub fn lose_levels(c: Condition, bases: u8, levels: u8, to_the_last: bool) -> Condition {
    let mut c = c;
    for _ in 0..levels {
        if c.destroyed {
            break;
        }
        match c.status {
            Status::Ok => c.status = Status::Disordered,
            Status::Disordered => c.status = Status::Demoralized,
            Status::Demoralized => {
                c.lost += 1;
                if is_destroyed(bases, c.lost, to_the_last) {
                    c.destroyed = true;
                }
            }
        }
    }
    c
}

/// Gain `levels` Status Levels (Regroup); bases are never regained.
pub fn gain_levels(s: Status, levels: u8) -> Status {
    let mut s = s;
    for _ in 0..levels {
        s = match s {
            Status::Demoralized => Status::Disordered,
            _ => Status::Ok,
        };
    }
    s
}

/// Camp sacking (both seeds): OK -> Disordered, Disordered -> Demoralized, never a base.
pub fn sack_loot(s: Status) -> Status {
    match s {
        Status::Ok => Status::Disordered,
        _ => Status::Demoralized,
    }
}

/// The force ratio field ('Actor Badly Outnumbered' ... 'Actor Badly Outnumbers').
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Force {
    BadlyOutnumbered,
    Outnumbered,
    Even,
    Outnumbers,
    BadlyOutnumbers,
}

impl Force {
    /// Both seeds: "'Outnumbered' is any difference in size which is more than exactly equal in
    /// bases, but which is less than fully twice ('Badly Outnumbered')".
    pub fn from_bases(mine: u32, theirs: u32) -> Force {
        if mine == theirs {
            Force::Even
        } else if mine > theirs {
            if mine >= 2 * theirs {
                Force::BadlyOutnumbers
            } else {
                Force::Outnumbers
            }
        } else if theirs >= 2 * mine {
            Force::BadlyOutnumbered
        } else {
            Force::Outnumbered
        }
    }
    /// The force ratio as a language-neutral message.
    pub fn label(self) -> String {
        msg(
            match self {
                Force::BadlyOutnumbered => keys::APP_DRIVEN_FORCE_BADLY_OUTNUMBERED,
                Force::Outnumbered => keys::APP_DRIVEN_FORCE_OUTNUMBERED,
                Force::Even => keys::APP_DRIVEN_FORCE_EVEN,
                Force::Outnumbers => keys::APP_DRIVEN_FORCE_OUTNUMBERS,
                Force::BadlyOutnumbers => keys::APP_DRIVEN_FORCE_BADLY_OUTNUMBERS,
            },
            &[],
        )
    }
}

/// The Cover/Ground list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Ground {
    #[default]
    Open,
    /// Rough going without cover (water-logged fields, stakes).
    Rough,
    VeryRough,
    /// Rough going that also gives cover from fire (open woods, vineyards).
    RoughCover,
    /// Very rough going with cover (dense woods, marsh with reeds).
    VeryRoughCover,
    /// The target defends a linear obstacle (hedge, wall, ditch).
    Obstacle,
    /// The target holds a fortified position (field works, a town).
    Fortified,
    /// The Actor has the higher ground (e.g. charges downhill).
    ActorUphill,
    /// The Target has the higher ground.
    TargetUphill,
    /// The Actor defends a linear obstacle (its Melee from behind a hedge, wall or ditch).
    ActorObstacle,
    /// The Actor holds a fortified position (its Melee from field works or a town).
    ActorFortified,
}

impl Ground {
    pub const ALL: [&'static str; 11] = [
        "open",
        "rough",
        "very-rough",
        "rough-cover",
        "very-rough-cover",
        "obstacle",
        "fortified",
        "actor-uphill",
        "target-uphill",
        "actor-obstacle",
        "actor-fortified",
    ];
    /// The going as a result names it, a language-neutral message.
    pub fn label(self) -> String {
        msg(
            match self {
                Ground::Open => keys::APP_DRIVEN_GOING_OPEN,
                Ground::Rough => keys::APP_DRIVEN_GOING_ROUGH,
                Ground::VeryRough => keys::APP_DRIVEN_GOING_VERY_ROUGH,
                Ground::RoughCover => keys::APP_DRIVEN_GOING_ROUGH_COVER,
                Ground::VeryRoughCover => keys::APP_DRIVEN_GOING_VERY_ROUGH_COVER,
                Ground::Obstacle => keys::APP_DRIVEN_GOING_OBSTACLE,
                Ground::Fortified => keys::APP_DRIVEN_GOING_FORTIFIED,
                Ground::ActorUphill => keys::APP_DRIVEN_GOING_ACTOR_UPHILL,
                Ground::TargetUphill => keys::APP_DRIVEN_GOING_TARGET_UPHILL,
                Ground::ActorObstacle => keys::APP_DRIVEN_GOING_ACTOR_OBSTACLE,
                Ground::ActorFortified => keys::APP_DRIVEN_GOING_ACTOR_FORTIFIED,
            },
            &[],
        )
    }
    pub fn roughness(self) -> u8 {
        match self {
            Ground::Rough | Ground::RoughCover => 1,
            Ground::VeryRough | Ground::VeryRoughCover => 2,
            _ => 0,
        }
    }
}

/// A unit described inline in an action file (stand-alone `resolve` and `odds`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineUnit {
    #[serde(rename = "type")]
    pub troop: String,
    pub bases: u8,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub lost: u8,
    #[serde(default)]
    pub status: Status,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub nationality: Option<String>,
    #[serde(default)]
    pub in_combat: bool,
    #[serde(default)]
    pub acted: bool,
    #[serde(default)]
    pub march: bool,
    #[serde(default)]
    pub stakes_planted: bool,
}

/// A unit in an action: its id in a game, or described inline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UnitRef {
    Id(String),
    Inline(InlineUnit),
}

/// The 'Leader with Actor' box: a leader's id in a game, or true/false stand-alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LeaderField {
    Flag(bool),
    Id(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionKind {
    Initiative,
    Command,
    EndInitiatives,
    Rest,
    Regroup,
    Advance,
    March,
    Retire,
    Charge,
    Fire,
    Melee,
    Attach,
    AssignCommand,
    /// The game master takes a unit off the table, its loss not counted.
    Remove,
    EndFire,
    EndTurn,
}

impl ActionKind {
    pub fn uses_unit(self) -> bool {
        matches!(
            self,
            ActionKind::Rest
                | ActionKind::Regroup
                | ActionKind::Advance
                | ActionKind::March
                | ActionKind::Retire
                | ActionKind::Charge
                | ActionKind::Fire
                | ActionKind::Melee
        )
    }
}

/// A camp sacked at the end of the turn, and by whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CampSack {
    pub side: String,
    #[serde(default)]
    pub by: Vec<String>,
}

/// One action, as the app's fields. The same format serves `resolve`, `odds`, `game act` and the
/// HTTP API. Fields an action does not use are rejected by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    pub action: ActionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<UnitRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<UnitRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<Ground>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_with_actor: Option<LeaderField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_with_target: Option<LeaderField>,
    /// 'Actor is Disordered/Demoralized' (stand-alone; a game knows the status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_status: Option<Status>,
    /// The target's status (stand-alone: describes it; in a game: overrides the tracked status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_charging: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_in_flank: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_in_flank: Option<bool>,
    /// Melee: the units touch on the table though no combat is recorded between them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_contact: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<Force>,
    /// Fire: bases that can fire (default: all the actor's bases, less those firing at a second
    /// target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firing_bases: Option<u8>,
    /// Fire: a second target, fired at by other bases of the unit in the same action (both
    /// seeds, "If a Fire action has two Target units, then two calculations are performed"),
    /// with its own bases and cover.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_target: Option<UnitRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_firing_bases: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_ground: Option<Ground>,
    /// Melee: bases of Supporting units on each side, counted in the force ratio (as recorded
    /// games and stand-alone actions give them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supporting_actor_bases: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supporting_target_bases: Option<u8>,
    /// Melee in a game: the Supporting units on each side by id; their bases count in the force
    /// ratio, and they and their leaders have acted (both seeds, 'All units involved in the
    /// combat will be considered to have acted').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supporting_actor_units: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supporting_target_units: Option<Vec<String>>,
    /// Charge: is it against the target's front? (false: flank or rear)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontal: Option<bool>,
    /// Question: does the charger cross the target's arc of fire?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crosses_arc_of_fire: Option<bool>,
    /// Question: does the target evade?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_evades: Option<bool>,
    /// Question: after the evade, does the charger still reach the target?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_after_evade: Option<bool>,
    /// Charge: bases of the target able to fire at the charger (its front rank; default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defensive_firing_bases: Option<u8>,
    /// Retire: is the unit contacted on more than one face (front and flank, flank and rear...)?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contacted_on_several_faces: Option<bool>,
    /// End-fire (EGC): Swiss Pikemen that have not acted and have no eligible enemy within 9",
    /// as the game master confirms; the others must make their Ferocious Charge first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss_without_targets: Option<Vec<String>>,
    /// EGC: a Ferocious Swiss Charge (needs no activation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ferocious: Option<bool>,
    /// ABDF: archers plant their stakes with a Rest action (once per game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plant_stakes: Option<bool>,
    /// Command / Attach / Assign-command: the leader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
    /// Attach: the unit (null or absent: detach).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Assign-command: the surviving leader taking over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// End-fire: the simultaneous fire actions of units that have not acted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fires: Option<Vec<ActionRequest>>,
    /// End-turn: camps sacked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camps_sacked: Option<Vec<CampSack>>,
}

impl ActionRequest {
    /// An action of `kind` with none of its fields given.
    pub fn blank(kind: ActionKind) -> Self {
        ActionRequest {
            action: kind,
            actor: None,
            target: None,
            ground: None,
            leader_with_actor: None,
            leader_with_target: None,
            actor_status: None,
            target_status: None,
            actor_charging: None,
            actor_in_flank: None,
            target_in_flank: None,
            in_contact: None,
            force: None,
            firing_bases: None,
            second_target: None,
            second_firing_bases: None,
            second_ground: None,
            supporting_actor_bases: None,
            supporting_target_bases: None,
            supporting_actor_units: None,
            supporting_target_units: None,
            frontal: None,
            crosses_arc_of_fire: None,
            target_evades: None,
            contact_after_evade: None,
            defensive_firing_bases: None,
            contacted_on_several_faces: None,
            swiss_without_targets: None,
            ferocious: None,
            plant_stakes: None,
            leader: None,
            unit: None,
            to: None,
            fires: None,
            camps_sacked: None,
        }
    }
}

/// A resolved unit, as a resolution needs it.
#[derive(Debug, Clone)]
pub struct UnitSnap {
    pub id: String,
    pub name: String,
    pub side: String,
    pub troop: TroopProfile,
    pub bases: u8,
    pub cond: Condition,
    pub flags: Vec<String>,
    pub nationality: Option<String>,
    pub in_combat: bool,
    pub acted: bool,
    pub march: bool,
    pub stakes_planted: bool,
    /// The leader attached for this action, if any.
    pub leader: Option<LeaderSnap>,
}

impl UnitSnap {
    pub fn has_flag(&self, f: &str) -> bool {
        self.flags.iter().any(|x| x == f)
    }
    pub fn remaining(&self) -> u8 {
        self.bases - self.cond.lost
    }
    pub fn can_fire(&self) -> bool {
        self.troop.can_fire(&self.flags)
    }
}

impl TroopProfile {
    /// Whether a unit of this troop type with these scenario flags may fire: a troop type
    /// with a fire chart, equipped with missile weapons where the chart needs a flag.
    pub fn can_fire(&self, flags: &[String]) -> bool {
        match &self.fire {
            None => false,
            Some(f) => f
                .needs_flag
                .is_none_or(|flag| flags.iter().any(|x| x == flag)),
        }
    }
}

#[derive(Debug, Clone)]
pub struct LeaderSnap {
    pub id: String,
    pub name: String,
    pub army: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    Killed,
    Captured,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Initiatives and activations.
    Command,
    /// Ferocious charges (EGC), simultaneous end-of-turn fire, camps, break check.
    EndOfTurn,
    Over,
}

/// What an outcome does to a game. Effects carry absolute results ("now Disordered, 1 base
/// lost"), so folding them needs no dice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum Effect {
    Unit {
        unit: String,
        status: Status,
        lost: u8,
        destroyed: bool,
        #[serde(default)]
        uncounted: bool,
    },
    Acted {
        unit: String,
    },
    Formation {
        unit: String,
        march: bool,
    },
    StakesPlanted {
        unit: String,
    },
    CombatJoined {
        a: String,
        b: String,
    },
    CombatLeft {
        a: String,
        b: String,
    },
    LeaderFate {
        leader: String,
        fate: Fate,
    },
    LeaderAttached {
        leader: String,
        unit: Option<String>,
    },
    LeaderCaughtUp {
        leader: String,
    },
    /// A leader attached to a Supporting unit of a melee has acted: no initiative for him this
    /// turn, but he was not in the Melee with the Actor or the Target, so he may still move.
    LeaderActed {
        leader: String,
    },
    CommandAssigned {
        from: String,
        to: String,
    },
    Initiative {
        side: String,
    },
    Command {
        leader: String,
        activations: u8,
    },
    ActivationUsed {
        leader: String,
    },
    Phase {
        phase: Phase,
    },
    EndFireDone,
    CampSacked {
        side: String,
    },
    TurnEnded {
        broken: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitState {
    pub id: String,
    pub name: String,
    pub side: String,
    #[serde(rename = "type")]
    pub troop: String,
    pub bases: u8,
    pub commander: String,
    pub status: Status,
    pub lost: u8,
    pub destroyed: bool,
    /// EGC Bad War: removed below half after destroying its opponent; not counted as destroyed.
    #[serde(default)]
    pub uncounted: bool,
    pub acted: bool,
    pub march: bool,
    pub stakes_planted: bool,
    #[serde(default)]
    pub stakes_used: bool,
    pub in_combat_with: BTreeSet<String>,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub nationality: Option<String>,
}

/// The turn a scenario flag `<name>-<turn>` names (`arrives-3`, `leaves-2`).
fn flag_turn(flags: &[String], name: &str) -> Option<u32> {
    flags
        .iter()
        .find_map(|f| f.strip_prefix(name)?.strip_prefix('-')?.parse().ok())
}

impl UnitState {
    /// The turn a unit flagged `arrives-N` comes on (a scenario's late arrivals: it may not act
    /// or be a target before).
    pub fn arrives(&self) -> Option<u32> {
        flag_turn(&self.flags, "arrives")
    }
    /// The turn at whose start a unit flagged `leaves-N` leaves the battle, uncounted.
    pub fn leaves(&self) -> Option<u32> {
        flag_turn(&self.flags, "leaves")
    }
    /// On the table in `turn`: not destroyed, and arrived.
    pub fn on_table(&self, turn: u32) -> bool {
        !self.destroyed && self.arrives().is_none_or(|t| turn >= t)
    }
    pub fn cond(&self) -> Condition {
        Condition {
            status: self.status,
            lost: self.lost,
            destroyed: self.destroyed,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderState {
    pub id: String,
    pub name: String,
    pub side: String,
    pub army: bool,
    pub bonus: u8,
    pub fate: Option<Fate>,
    pub had_initiative: bool,
    pub caught_up: bool,
    /// Involved in a Melee this turn: may no longer move (attach or detach) this turn.
    #[serde(default)]
    pub fought: bool,
    pub attached_to: Option<String>,
    /// Leaders whose command passed to this one.
    pub inherited: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideState {
    pub id: String,
    pub name: String,
    pub attacker: bool,
    pub camp: bool,
    pub camp_sacked: bool,
    pub broken: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentCommand {
    pub leader: String,
    pub activations_left: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub turn: u32,
    pub phase: Phase,
    pub sides: Vec<SideState>,
    pub leaders: BTreeMap<std::sync::Arc<str>, std::sync::Arc<LeaderState>>,
    pub units: BTreeMap<std::sync::Arc<str>, std::sync::Arc<UnitState>>,
    pub initiative_side: Option<String>,
    pub last_initiative_side: Option<String>,
    pub current: Option<CurrentCommand>,
    /// Set when the game is over: the broken sides (both: a draw).
    pub broken: Vec<String>,
    /// The end-of-turn fire has been made this turn (it comes once, before the break check).
    #[serde(default)]
    pub end_fire_done: bool,
}

impl GameState {
    /// The unit `id`.
    pub fn unit(&self, id: &str) -> Option<&std::sync::Arc<UnitState>> {
        self.units.get(id)
    }
    /// The leader `id`.
    pub fn leader(&self, id: &str) -> Option<&std::sync::Arc<LeaderState>> {
        self.leaders.get(id)
    }
    /// The unit `id`, to change: copied first if the reading kept before a fold shares it.
    pub fn unit_mut(&mut self, id: &str) -> Option<&mut UnitState> {
        self.units.get_mut(id).map(std::sync::Arc::make_mut)
    }
    /// The leader `id`, to change: copied first if the reading kept before a fold shares it.
    pub fn leader_mut(&mut self, id: &str) -> Option<&mut LeaderState> {
        self.leaders.get_mut(id).map(std::sync::Arc::make_mut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: Condition = Condition {
        status: Status::Ok,
        lost: 0,
        destroyed: false,
    };

    #[test]
    fn ladder_matches_the_text() {
        // "an unit with an OK Status Level which goes down two levels will have a new Status Level
        // of Demoralized"
        assert_eq!(lose_levels(OK, 4, 2, false).status, Status::Demoralized);
        // "When a Demoralized unit loses two Status Levels, it loses two bases."
        let dem = Condition {
            status: Status::Demoralized,
            lost: 0,
            destroyed: false,
        };
        assert_eq!(lose_levels(dem, 6, 2, false).lost, 2);
        // Half or more gone: destroyed. 4 bases: the second base lost destroys it.
        let c = lose_levels(OK, 4, 4, false);
        assert!(c.destroyed);
        assert_eq!(c.lost, 2);
        // 5 bases: 3 lost destroys it.
        assert!(!lose_levels(OK, 5, 4, false).destroyed);
        assert!(lose_levels(OK, 5, 5, false).destroyed);
        // Bad War: fight to the last base.
        let c = lose_levels(OK, 4, 5, true);
        assert!(!c.destroyed);
        assert_eq!(c.lost, 3);
        assert!(lose_levels(OK, 4, 6, true).destroyed);
    }

    #[test]
    fn regroup_and_loot() {
        assert_eq!(gain_levels(Status::Demoralized, 1), Status::Disordered);
        assert_eq!(gain_levels(Status::Demoralized, 2), Status::Ok);
        assert_eq!(gain_levels(Status::Disordered, 2), Status::Ok);
        assert_eq!(sack_loot(Status::Ok), Status::Disordered);
        assert_eq!(sack_loot(Status::Disordered), Status::Demoralized);
        assert_eq!(sack_loot(Status::Demoralized), Status::Demoralized);
    }

    #[test]
    fn force_ratio_from_bases() {
        assert_eq!(Force::from_bases(4, 4), Force::Even);
        assert_eq!(Force::from_bases(5, 4), Force::Outnumbers);
        assert_eq!(Force::from_bases(8, 4), Force::BadlyOutnumbers);
        assert_eq!(Force::from_bases(3, 4), Force::Outnumbered);
        assert_eq!(Force::from_bases(2, 4), Force::BadlyOutnumbered);
    }
}

//! The battle die and the combat charts of the English Civil War variant, as data, each with its
//! source (design sections 2 and 6 of `docs/rules/commands-colors-ecw.md`).

use serde::{Deserialize, Serialize};
use tercio_core::FaceClasses;

/// The six faces of the base game's battle die, by face number (design 6.1; CCN: Infantry ×2,
/// Cavalry, Artillery, Crossed Sabres, Flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symbol {
    Infantry,
    Cavalry,
    Artillery,
    Sabre,
    Flag,
}

pub const FACES: [Symbol; 6] = [
    Symbol::Infantry,
    Symbol::Infantry,
    Symbol::Cavalry,
    Symbol::Artillery,
    Symbol::Sabre,
    Symbol::Flag,
];

pub fn symbol(face: u8) -> Symbol {
    FACES[usize::from(face.clamp(1, 6) - 1)]
}

/// The unit classes (design 2.1; 004, Foot, Horse, Dragoons, Artillery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Foot (`FT`), with pikes unless the scenario says otherwise.
    Foot,
    /// Clubmen (`CL`): militia with hand weapons.
    Clubmen,
    /// Cuirassiers (`CU`): not hit by sabres.
    Cuirassiers,
    /// Trotters (`TR`).
    Trotters,
    /// Gallopers (`GA`).
    Gallopers,
    /// Dragoons (`DR`), mounted or not: hit by cavalry symbols either way.
    Dragoons,
    /// Artillery (`AR`).
    Artillery,
}

impl Class {
    pub fn horse(self) -> bool {
        matches!(
            self,
            Class::Cuirassiers | Class::Trotters | Class::Gallopers
        )
    }
    /// The symbol that hits it (design 6.3): infantry for foot, cavalry for horse and dragoons
    /// ("anyone fighting dragoons is looking for Cavalry hits, whether the dragoons are mounted
    /// or not", 004, Dragoons), artillery for guns.
    pub fn hit_by(self) -> Symbol {
        match self {
            Class::Foot | Class::Clubmen => Symbol::Infantry,
            Class::Cuirassiers | Class::Trotters | Class::Gallopers | Class::Dragoons => {
                Symbol::Cavalry
            }
            Class::Artillery => Symbol::Artillery,
        }
    }
}

/// Training (design 2.2; 004, Sub-classifications).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Training {
    Veteran,
    Trained,
    Raw,
    Militia,
}

impl Training {
    /// "Veterans get extra dice in combat" (004).
    pub fn extra_dice(self) -> i32 {
        i32::from(self == Training::Veteran)
    }
    /// Raw units and militia "do not get to count Crossed-Sabres in melees" (004).
    pub fn scores_sabres(self) -> bool {
        matches!(self, Training::Veteran | Training::Trained)
    }
    /// Hexes per flag: raw "suffer double retreats", "militia get triple retreats" (004).
    pub fn hexes_per_flag(self) -> u32 {
        match self {
            Training::Raw => 2,
            Training::Militia => 3,
            _ => 1,
        }
    }
    /// Veterans "may ignore 1 retreat flag" (004).
    pub fn flags_ignored(self) -> u32 {
        u32::from(self == Training::Veteran)
    }
}

/// A battle: fire at range, a melee attack, or the defender's battle back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Ranged,
    Melee,
    BattleBack,
}

/// The classes of the die's faces for one battle: 0 a hit, 1 a flag, 2 a miss (design 6.3).
/// Sabres hit only in melee and battle back, only when the roller scores sabres, and never
/// cuirassiers (004, Horse: "Crossed-Sabres does not count as a hit against them"). A target that
/// Retires and Reforms is hit by cavalry symbols only and ignores flags (CCN tactics, design 6.11).
pub fn face_classes(target: Class, kind: Kind, sabres_scored: bool, retiring: bool) -> FaceClasses {
    let mut c = [2u8; 6];
    for (i, s) in FACES.iter().enumerate() {
        let hit = *s == target.hit_by()
            || (*s == Symbol::Sabre
                && kind != Kind::Ranged
                && sabres_scored
                && target != Class::Cuirassiers
                && !retiring);
        c[i] = if hit {
            0
        } else if *s == Symbol::Flag && !retiring {
            1
        } else {
            2
        };
    }
    FaceClasses::of(&c)
}

//! The Sword and the Flame, Renaissance adaptation: the numbers, as data, each with its source.
//! Seed `001_165c2c49ebcfd77c.txt`; every entry is explained in
//! `docs/rules/sword-and-flame-renaissance.md` (section numbers below refer to it).

use crate::interface::HouseRule;
use serde::{Deserialize, Serialize};

pub const SEED: &str = "001";

/// What a troop type is for movement, fire, evasion and close combat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Foot,
    HeavyHorse,
    MediumHorse,
    LightHorse,
    Gun,
    Train,
}

impl Kind {
    pub fn mounted(self) -> bool {
        matches!(
            self,
            Kind::HeavyHorse | Kind::MediumHorse | Kind::LightHorse
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    Closed,
    Open,
    Skirmish,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weapon {
    Arquebus,
    Pistol,
    Crossbow,
    HeavyCannon,
    LightCannon,
    Rifle,
}

/// One troop type of the text (design section 2.1).
#[derive(Debug, Clone, Serialize)]
pub struct Troop {
    pub id: &'static str,
    pub name: &'static str,
    pub kind: Kind,
    /// Weapon it fires, if any.
    pub weapon: Option<Weapon>,
    /// Figures in a full unit and in one company (0: not organised in companies).
    pub figures: u8,
    pub company: u8,
    /// Ranks that may shoot / fight (pikes fight 4 deep in closed order).
    pub shoot_ranks: u8,
    pub fight_ranks: u8,
    pub source: &'static str,
}

impl Troop {
    /// The type's name as a message argument (`@sword_and_flame.troop.<id>`), rendered in the
    /// reader's language.
    pub fn term(&self) -> String {
        format!("@sword_and_flame.troop.{}", self.id)
    }
}

pub const TROOPS: &[Troop] = &[
    Troop {
        id: "gendarmes",
        name: "Gendarmes",
        kind: Kind::HeavyHorse,
        weapon: None,
        figures: 12,
        company: 3,
        shoot_ranks: 0,
        fight_ranks: 2,
        source: "001, TROOP TYPES, GENDARMES",
    },
    Troop {
        id: "reiters",
        name: "Reiters",
        kind: Kind::MediumHorse,
        weapon: Some(Weapon::Pistol),
        figures: 12,
        company: 3,
        shoot_ranks: 4,
        fight_ranks: 2,
        source: "001, TROOP TYPES, REITERS",
    },
    Troop {
        id: "light-horse-arquebus",
        name: "Light Horse (arquebus)",
        kind: Kind::LightHorse,
        weapon: Some(Weapon::Arquebus),
        figures: 12,
        company: 3,
        shoot_ranks: 2,
        fight_ranks: 2,
        source: "001, TROOP TYPES, LIGHT HORSE",
    },
    Troop {
        id: "light-horse-crossbow",
        name: "Light Horse (crossbow)",
        kind: Kind::LightHorse,
        weapon: Some(Weapon::Crossbow),
        figures: 12,
        company: 3,
        shoot_ranks: 2,
        fight_ranks: 2,
        source: "001, TROOP TYPES, LIGHT HORSE",
    },
    Troop {
        id: "light-horse-spear",
        name: "Light Horse (spear)",
        kind: Kind::LightHorse,
        weapon: None,
        figures: 12,
        company: 3,
        shoot_ranks: 0,
        fight_ranks: 2,
        source: "001, TROOP TYPES, LIGHT HORSE",
    },
    Troop {
        id: "pikemen",
        name: "Pikemen",
        kind: Kind::Foot,
        weapon: None,
        figures: 20,
        company: 5,
        shoot_ranks: 0,
        fight_ranks: 4,
        source: "001, TROOP TYPES, PIKEMEN",
    },
    Troop {
        id: "arquebusiers",
        name: "Arquebusiers",
        kind: Kind::Foot,
        weapon: Some(Weapon::Arquebus),
        figures: 20,
        company: 5,
        shoot_ranks: 2,
        fight_ranks: 2,
        source: "001, TROOP TYPES, ARQUEBUSIERS",
    },
    Troop {
        id: "crossbowmen",
        name: "Crossbowmen",
        kind: Kind::Foot,
        weapon: Some(Weapon::Crossbow),
        figures: 20,
        company: 5,
        shoot_ranks: 2,
        fight_ranks: 2,
        source: "001, TROOP TYPES, CROSSBOWMEN",
    },
    Troop {
        id: "halberdiers",
        name: "Halberdiers",
        kind: Kind::Foot,
        weapon: None,
        figures: 20,
        company: 5,
        shoot_ranks: 0,
        fight_ranks: 2,
        source: "001, TROOP TYPES, HALBERDIERS",
    },
    Troop {
        id: "great-swordsmen",
        name: "Great-swordsmen",
        kind: Kind::Foot,
        weapon: None,
        figures: 5,
        company: 5,
        shoot_ranks: 0,
        fight_ranks: 2,
        source: "001, TROOP TYPES, GREAT-SWORDSMEN",
    },
    Troop {
        id: "sword-and-buckler",
        name: "Sword and Buckler Men",
        kind: Kind::Foot,
        weapon: None,
        figures: 5,
        company: 5,
        shoot_ranks: 0,
        fight_ranks: 2,
        source: "001, TROOP TYPES, SWORD AND BUCKLER MEN",
    },
    Troop {
        id: "riflemen",
        name: "Riflemen",
        kind: Kind::Foot,
        weapon: Some(Weapon::Rifle),
        figures: 1,
        company: 0,
        shoot_ranks: 1,
        fight_ranks: 0,
        source: "001, TROOP TYPES, RIFLEMEN",
    },
    Troop {
        id: "light-gun",
        name: "Light Cannon",
        kind: Kind::Gun,
        weapon: Some(Weapon::LightCannon),
        figures: 2,
        company: 0,
        shoot_ranks: 0,
        fight_ranks: 0,
        source: "001, FIRE, 'Roll 3 dice per gunner for Light gun (crew of 2)'",
    },
    Troop {
        id: "heavy-gun",
        name: "Heavy Cannon",
        kind: Kind::Gun,
        weapon: Some(Weapon::HeavyCannon),
        figures: 4,
        company: 0,
        shoot_ranks: 0,
        fight_ranks: 0,
        source: "001, FIRE, 'Roll 3 dice per gunner for heavy gun (crew of 4)'",
    },
    Troop {
        id: "wagon",
        name: "Supply Wagons",
        kind: Kind::Train,
        weapon: None,
        figures: 0,
        company: 0,
        shoot_ranks: 0,
        fight_ranks: 0,
        source: "001, MOVEMENT, 'Supply Wagons 2 D6'",
    },
];

pub fn troop(id: &str) -> Option<&'static Troop> {
    TROOPS.iter().find(|t| t.id == id)
}

/// Movement dice (D6) by troop type and order (design section 3.3; decision 17 for skirmishers).
/// 001, MOVEMENT: "Infantry 3 D6 open order, 2 D6 closed."; "Heavy Cavalry (Knights & Gendarmes)
/// 5 D6"; "Medium and light Cavalry 6 D6"; "Light guns 2 D6"; "Supply Wagons 2 D6"; heavy guns
/// "do not move without special permission of game master".
pub fn movement_dice(t: &Troop, order: Order) -> u8 {
    match t.kind {
        Kind::Foot => {
            if order == Order::Closed {
                2
            } else {
                3
            }
        }
        Kind::HeavyHorse => 5,
        Kind::MediumHorse | Kind::LightHorse => 6,
        Kind::Gun => {
            if t.id == "heavy-gun" {
                0
            } else {
                2
            }
        }
        Kind::Train => 2,
    }
}

/// A heavy gun the game master permits to move rolls 2D6, the light gun's rate (decision 57,
/// project design: 001, MOVEMENT, gives heavy guns no rate, "Heavy guns do not move without
/// special permission of game master").
pub const HEAVY_GUN_PERMITTED_MOVE_DICE: u8 = 2;

/// Field officers move 6D6 (decision 19, project design: they are mounted individual figures).
pub const FIELD_OFFICER_MOVE_DICE: u8 = 6;

/// Dice lost per terrain condition crossed (design section 3.3, 001 MOVEMENT "Movement
/// Penalties"): (uphill, downhill, obstacle, woods). Skirmishers lose nothing.
pub fn terrain_losses(t: &Troop, order: Order) -> [u8; 4] {
    if order == Order::Skirmish {
        return [0; 4];
    }
    match t.kind {
        // "Closed order Infantry- lose die uphill, down, across any obstacle, through woods."
        Kind::Foot => [1, 1, 1, 1],
        // "Heavy & Medium cavalry, Light guns, wagons lose two dice, uphill and across all
        // obstcles"; woods count as an obstacle for cavalry (decision 18); guns and wagons may
        // not enter woods except on roads (refused by the engine).
        Kind::HeavyHorse | Kind::MediumHorse | Kind::Gun | Kind::Train => [2, 0, 2, 2],
        // "Light cavalry loses one die, uphill and across all obstacles."
        Kind::LightHorse => [1, 0, 1, 1],
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Range {
    Short,
    Long,
}

/// Hit numbers on a D20 against classes I-IV, with the range in inches (design section 4.1;
/// 001, FIRE, the fire table as printed; rifles decision 34; the light gun's long range
/// decision 1).
pub struct FireLine {
    pub weapon: Weapon,
    pub range: Range,
    pub inches: u8,
    pub hits: [u8; 4],
    pub source: &'static str,
}

pub const FIRE_TABLE: &[FireLine] = &[
    FireLine { weapon: Weapon::Arquebus, range: Range::Short, inches: 12, hits: [7, 5, 4, 3], source: "001, FIRE, 'Arquebus - Short range - 12\" or less'" },
    FireLine { weapon: Weapon::Arquebus, range: Range::Long, inches: 18, hits: [5, 4, 3, 2], source: "001, FIRE, 'Arquebus - Long range - to 18\"'" },
    FireLine { weapon: Weapon::Pistol, range: Range::Short, inches: 4, hits: [7, 5, 3, 1], source: "001, FIRE, 'Pistol - To 4\"' (no long range)" },
    FireLine { weapon: Weapon::Crossbow, range: Range::Short, inches: 12, hits: [5, 3, 2, 1], source: "001, FIRE, 'Crossbow - to 12\"' (no short range: one band)" },
    FireLine { weapon: Weapon::HeavyCannon, range: Range::Short, inches: 18, hits: [6, 4, 4, 4], source: "001, FIRE, 'Heavy Cannon - Short Range - to 18\"' (Class IV as printed, decision 35)" },
    FireLine { weapon: Weapon::HeavyCannon, range: Range::Long, inches: 48, hits: [4, 3, 3, 3], source: "001, FIRE, 'Heavy Cannon - Long Range - to 48\"'" },
    FireLine { weapon: Weapon::LightCannon, range: Range::Short, inches: 12, hits: [5, 4, 3, 2], source: "001, FIRE, 'Light Cannon - Short Range - to 12\"'" },
    FireLine { weapon: Weapon::LightCannon, range: Range::Long, inches: 24, hits: [4, 2, 2, 1], source: "001, FIRE, 'Light Cannon - Long Range - to 24\"' (the ranges list says 36\": decision 1)" },
    FireLine { weapon: Weapon::Rifle, range: Range::Short, inches: 24, hits: [7, 5, 4, 3], source: "001, TROOP TYPES, RIFLEMEN, 'Range double that of an arquebus' (arquebus numbers, decision 34)" },
    FireLine { weapon: Weapon::Rifle, range: Range::Long, inches: 36, hits: [5, 4, 3, 2], source: "001, TROOP TYPES, RIFLEMEN (decision 34)" },
];

/// The line of the fire table for a weapon at a range band. Weapons with one band (pistol,
/// crossbow) use it at either.
pub fn fire_line(w: Weapon, r: Range) -> &'static FireLine {
    FIRE_TABLE
        .iter()
        .find(|l| l.weapon == w && l.range == r)
        .or_else(|| FIRE_TABLE.iter().find(|l| l.weapon == w))
        .unwrap_or(&FIRE_TABLE[0])
}

/// D20 per firing figure; three per gunner for both guns (001, FIRE, "Roll one D20 per man for
/// Arquebus, Pistol, Crossbow, Roll 3 dice per gunner").
pub fn dice_per_firer(w: Weapon) -> u8 {
    match w {
        Weapon::HeavyCannon | Weapon::LightCannon => 3,
        _ => 1,
    }
}

/// Fire modifiers, added to each die (001, FIRE, "Modifiers to above dice rolls").
pub const FIRE_SHAKEN: i32 = 1;
pub const FIRE_LIGHT_RAIN: i32 = 2;
pub const FIRE_SOURCE_SHAKEN: &str = "001, FIRE, '+1 to each die result if firing unit \"Shaken\"'";
pub const FIRE_SOURCE_RAIN: &str =
    "001, FIRE, '+2 to each die result if weather is \"light rain\"'";

/// Reload markers placed when a unit fires (decision 11: one, plus the weapon's reload turns).
pub fn reload_markers(w: Weapon) -> u8 {
    match w {
        // "does not take 1 turn to reload"; "Light guns may fire every turn that they do not
        // move"; reiters' single fire (the double fire empties the pistols instead).
        Weapon::Crossbow | Weapon::LightCannon | Weapon::Pistol => 1,
        // "Takes 1 turn to reload arquebus"; "1 turn to reload heavy guns".
        Weapon::Arquebus | Weapon::HeavyCannon => 2,
        // "Takes 2 turns to reload after firing."
        Weapon::Rifle => 3,
    }
}

/// The three morale tests of the text; the table itself is project design (section 5.2): 2D6 plus
/// the modifiers, passed at or above the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    ToClose,
    ToStand,
    StandAndFight,
}

impl Test {
    pub fn name(self) -> &'static str {
        match self {
            Test::ToClose => "To Close",
            Test::ToStand => "To Stand",
            Test::StandAndFight => "Stand and Fight",
        }
    }
    /// The test's name as a message argument (`@sword_and_flame.test.<id>`), rendered in the
    /// reader's language.
    pub fn term(self) -> String {
        let id = match self {
            Test::ToClose => "to-close",
            Test::ToStand => "to-stand",
            Test::StandAndFight => "stand-and-fight",
        };
        format!("@sword_and_flame.test.{id}")
    }
    /// Default thresholds (project design, section 5.2; `[house_rules]` `morale.*` override):
    /// the defaults of [`HOUSE_RULES`].
    pub fn threshold(self) -> i32 {
        HOUSE_RULES
            .iter()
            .find(|r| r.key == self.house_rule_key())
            .map_or(0, |r| r.default as i32)
    }
    pub fn house_rule_key(self) -> &'static str {
        match self {
            Test::ToClose => "morale.to_close",
            Test::ToStand => "morale.to_stand",
            Test::StandAndFight => "morale.stand_and_fight",
        }
    }
}

/// The house rules (design section 11: keys and defaults; the morale thresholds of 5.2). Ranges
/// are project design: a 2D6 total reaches 2 to 12, so 2 to 13 takes a test from "always passes"
/// to "never passes"; the options are switches, and `options.wounded` has three settings.
#[rustfmt::skip]
pub const HOUSE_RULES: &[HouseRule] = &[
    HouseRule::number("morale.to_close", 6, 2, 13, "§11, §5.2"),
    HouseRule::number("morale.to_stand", 5, 2, 13, "§11, §5.2"),
    HouseRule::number("morale.stand_and_fight", 7, 2, 13, "§11, §5.2"),
    HouseRule::flag("options.company_close_combat", false, "§11"),
    HouseRule::flag("options.quicker_movement", false, "§11"),
    HouseRule::flag("options.brigade_movement", false, "§11"),
    HouseRule::flag("options.dismounting", false, "§11"),
    HouseRule::number("options.wounded", 0, 0, 2, "§11"),
    HouseRule::flag("weather.light_rain", false, "§11"),
];

pub const MORALE_SOURCE: &str = "project design: 2D6 + modifiers, at or above the threshold (docs/rules/sword-and-flame-renaissance.md 5.2)";

/// Close combat: losses of the losing company by the winner's modified total (decision 23;
/// 001, CLOSE COMBAT - Modifed Version, "won with a "5" ... (this is after modifiers are figured
/// in)" one figure, "with a "6"" two).
pub fn company_losses(winner_total: i32) -> u8 {
    match winner_total {
        i32::MIN..=4 => 0,
        5 => 1,
        _ => 2,
    }
}

/// Figure version: the loser is killed when the winner's natural die is 5 or 6 (001, CLOSE
/// COMBAT - Original Version).
pub const KILL_ON_NATURAL: u8 = 5;

/// Bouts after which a unit may break off: 6 (figure version), 3 (company version) (001,
/// BREAKING OFF).
pub const BREAK_OFF_BOUTS_FIGURE: u32 = 6;
pub const BREAK_OFF_BOUTS_COMPANY: u32 = 3;

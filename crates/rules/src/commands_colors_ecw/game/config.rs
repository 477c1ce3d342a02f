//! Configuration: the house rules of design 13.4 and the scenario's hands and banners.

use super::*;
use crate::interface::HouseRule;

// ------------------------------------------------------------------------------------------------
// Configuration: the house rules of design 13.4 and the scenario's hands and banners.

/// The house rules (design 13.4: keys and defaults). Ranges are project design: a number's
/// range is never narrower than the values the engine honoured before ranges existed, so a game
/// recorded with one replays as it was played.
#[rustfmt::skip]
pub const HOUSE_RULES: &[HouseRule] = &[
    HouseRule::number("ecw.veteran_cap_pct", 25, 0, 100, "§13.4, decision 42"),
    HouseRule::number("ecw.rash_cap_pct", 25, 0, 100, "§13.4, decision 42"),
    HouseRule::number("ecw.breakthrough_limit", 0, 0, 30, "§13.4"),
    HouseRule::number("ecw.square_slots", 4, 0, 30, "§13.4"),
    HouseRule::number("ecw.raw_hexes_per_flag", 2, 1, 30, "§13.4"),
    HouseRule::number("ecw.militia_hexes_per_flag", 3, 1, 30, "§13.4"),
    HouseRule::flag("ecw.control_leader_sabre", true, "§13.4"),
    HouseRule::number("ecw.mounted_min_move", 1, 0, 30, "§13.4"),
    HouseRule::flag("ecw.chaunce", true, "§13.4"),
    HouseRule::number("ecw.false_alarums", 11, 0, 30, "§13.4"),
    HouseRule::flag("ecw.counter_attack_fallback", true, "§13.4"),
    // Off by default: the CCN player aid's square "bounce" die, for the Stand of Pikes (design
    // 7, decision 65).
    HouseRule::flag("ecw.bounce_die", false, "§7, decision 65"),
    // Per scenario (design 13.4, "Per-scenario fields"): the first side listed plays first.
    HouseRule::number("ecw.hand_first", 5, 1, 12, "§13.4"),
    HouseRule::number("ecw.hand_second", 5, 1, 12, "§13.4"),
    HouseRule::number("ecw.banners_first", 6, 1, 30, "§13.4"),
    HouseRule::number("ecw.banners_second", 6, 1, 30, "§13.4"),
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cfg {
    pub breakthrough_limit: u32,
    pub square_slots: usize,
    pub raw_per_flag: u32,
    pub militia_per_flag: u32,
    pub control_leader_sabre: bool,
    pub mounted_min_move: u32,
    pub chaunce: bool,
    pub false_alarums: u8,
    pub counter_attack_fallback: bool,
    /// The Stand of Pikes rolls a bounce die against horse (house rule `ecw.bounce_die`,
    /// decision 65). Left out while off, so a state recorded before it reads and writes back
    /// the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bounce_die: bool,
}

/// A house rule's value for this scenario (its own or the default of 13.4).
pub fn house(s: &Scenario, key: &str) -> i64 {
    crate::interface::house::value(HOUSE_RULES, &s.house_rules, key)
}

pub(super) fn cfg_of(s: &Scenario) -> Cfg {
    // The values are within their ranges (`house`), so the conversions below never fall back.
    let u = |k: &str| u32::try_from(house(s, k)).unwrap_or_default();
    Cfg {
        breakthrough_limit: u("ecw.breakthrough_limit"),
        square_slots: u("ecw.square_slots") as usize,
        raw_per_flag: u("ecw.raw_hexes_per_flag"),
        militia_per_flag: u("ecw.militia_hexes_per_flag"),
        control_leader_sabre: house(s, "ecw.control_leader_sabre") != 0,
        mounted_min_move: u("ecw.mounted_min_move"),
        chaunce: house(s, "ecw.chaunce") != 0,
        false_alarums: u8::try_from(house(s, "ecw.false_alarums")).unwrap_or_default(),
        counter_attack_fallback: house(s, "ecw.counter_attack_fallback") != 0,
        bounce_die: house(s, "ecw.bounce_die") != 0,
    }
}

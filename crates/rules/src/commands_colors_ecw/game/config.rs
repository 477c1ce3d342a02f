//! Configuration: the house rules of design 13.4 and the scenario's hands and banners.

use super::*;

// ------------------------------------------------------------------------------------------------
// Configuration: the house rules of design 13.4 and the scenario's hands and banners.

/// The house-rule keys (design 13.4), with their defaults.
pub const HOUSE_RULES: [(&str, i64); 15] = [
    ("ecw.veteran_cap_pct", 25),
    ("ecw.rash_cap_pct", 25),
    ("ecw.breakthrough_limit", 0),
    ("ecw.square_slots", 4),
    ("ecw.raw_hexes_per_flag", 2),
    ("ecw.militia_hexes_per_flag", 3),
    ("ecw.control_leader_sabre", 1),
    ("ecw.mounted_min_move", 1),
    ("ecw.chaunce", 1),
    ("ecw.false_alarums", 11),
    ("ecw.counter_attack_fallback", 1),
    // Per scenario (design 13.4, "Per-scenario fields"): the first side listed plays first.
    ("ecw.hand_first", 5),
    ("ecw.hand_second", 5),
    ("ecw.banners_first", 6),
    ("ecw.banners_second", 6),
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
}

pub fn house(s: &Scenario, key: &str) -> i64 {
    s.house_rules.get(key).copied().unwrap_or_else(|| {
        HOUSE_RULES
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, v)| *v)
    })
}

pub(super) fn cfg_of(s: &Scenario) -> Cfg {
    let u = |k: &str| u32::try_from(house(s, k).max(0)).unwrap_or(0);
    Cfg {
        breakthrough_limit: u("ecw.breakthrough_limit"),
        square_slots: u("ecw.square_slots") as usize,
        raw_per_flag: u("ecw.raw_hexes_per_flag").max(1),
        militia_per_flag: u("ecw.militia_hexes_per_flag").max(1),
        control_leader_sabre: house(s, "ecw.control_leader_sabre") != 0,
        mounted_min_move: u("ecw.mounted_min_move"),
        chaunce: house(s, "ecw.chaunce") != 0,
        false_alarums: u8::try_from(u("ecw.false_alarums").min(30)).unwrap_or(11),
        counter_attack_fallback: house(s, "ecw.counter_attack_fallback") != 0,
    }
}

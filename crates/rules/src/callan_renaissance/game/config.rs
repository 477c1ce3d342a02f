//! Configuration from the scenario's house rules (§14.4).

use super::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cfg {
    pub cm_per_bw: u32,
    pub fog: i64,
    pub orders: bool,
    pub niente_soldi: bool,
    pub mala_guerra: bool,
    pub victory_points: bool,
    pub victory_weighted: bool,
    pub threshold_pct: u32,
    pub turns: u32,
    pub half_hits_panic: bool,
    pub light_cavalry_charge_bonus: bool,
    pub javelin_hit: u8,
    pub retire_bw: u32,
    pub flight_counts_at_once: bool,
    pub points_veteran_cavalry: u32,
}

/// A house rule's value for this scenario (its own or the default of §14.4).
pub fn house(s: &Scenario, key: &str) -> i64 {
    crate::interface::house::value(tables::HOUSE_RULES, &s.house_rules, key)
}

pub(super) fn cfg_of(s: &Scenario) -> Cfg {
    // The values are within their ranges (`house`), so the conversions below never fall back.
    let u = |k: &str| u32::try_from(house(s, k)).unwrap_or_default();
    let b = |k: &str| house(s, k) != 0;
    Cfg {
        cm_per_bw: u("callan.cm_per_bw"),
        fog: house(s, "callan.fog"),
        orders: b("callan.orders"),
        niente_soldi: b("callan.niente_soldi"),
        mala_guerra: b("callan.mala_guerra"),
        victory_points: b("callan.victory"),
        victory_weighted: b("callan.victory_total"),
        threshold_pct: u("callan.threshold_pct"),
        turns: u("callan.turns"),
        half_hits_panic: b("callan.half_hits_panic"),
        light_cavalry_charge_bonus: b("callan.light_cavalry_charge_bonus"),
        javelin_hit: u8::try_from(house(s, "callan.javelin_hit")).unwrap_or_default(),
        retire_bw: u("callan.retire_bw"),
        flight_counts_at_once: b("callan.flight_counts_at_once"),
        points_veteran_cavalry: u("callan.points_veteran_cavalry"),
    }
}

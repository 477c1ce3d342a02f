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

pub fn house(s: &Scenario, key: &str) -> i64 {
    s.house_rules.get(key).copied().unwrap_or_else(|| {
        tables::HOUSE_RULES
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, v)| *v)
    })
}

pub(super) fn cfg_of(s: &Scenario) -> Cfg {
    let u = |k: &str| u32::try_from(house(s, k).max(0)).unwrap_or(0);
    let b = |k: &str| house(s, k) != 0;
    Cfg {
        cm_per_bw: if u("callan.cm_per_bw") == 3 { 3 } else { 4 },
        fog: house(s, "callan.fog").clamp(-1, 1),
        orders: b("callan.orders"),
        niente_soldi: b("callan.niente_soldi"),
        mala_guerra: b("callan.mala_guerra"),
        victory_points: b("callan.victory"),
        victory_weighted: b("callan.victory_total"),
        threshold_pct: u("callan.threshold_pct").clamp(1, 100),
        turns: u("callan.turns"),
        half_hits_panic: b("callan.half_hits_panic"),
        light_cavalry_charge_bonus: b("callan.light_cavalry_charge_bonus"),
        javelin_hit: if house(s, "callan.javelin_hit") == 5 {
            5
        } else {
            6
        },
        retire_bw: u("callan.retire_bw").max(1),
        flight_counts_at_once: b("callan.flight_counts_at_once"),
        points_veteran_cavalry: u("callan.points_veteran_cavalry").max(1),
    }
}

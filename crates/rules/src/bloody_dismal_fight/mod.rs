//! A Bloody Dismal Fight (A. Gregory, 2020), seed `002_db1595024faadc06.txt`.
//! Rules: `docs/rules/bloody-dismal-fight.md`.

pub mod tables;

use std::sync::LazyLock;

use crate::app_driven::tables::Charts;
use crate::app_driven::AppDriven;

pub static CHARTS: LazyLock<Charts> = LazyLock::new(tables::charts);

pub static RULESET: LazyLock<AppDriven> = LazyLock::new(|| AppDriven {
    id: "bloody-dismal-fight",
    alias: "abdf",
    name: "A Bloody Dismal Fight",
    seed: "002_db1595024faadc06.txt",
    charts: &CHARTS,
    egc: false,
    nationalities: &[],
    shared: std::sync::OnceLock::new(),
});

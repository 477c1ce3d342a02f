//! El Gran Capitán (A. Gregory, 2021), seed `000_f4416b09b3509f2d.txt`.
//! Rules: `docs/rules/el-gran-capitan.md`.

pub mod tables;

use std::sync::LazyLock;

use crate::app_driven::tables::Charts;
use crate::app_driven::AppDriven;

pub static CHARTS: LazyLock<Charts> = LazyLock::new(tables::charts);

pub static RULESET: LazyLock<AppDriven> = LazyLock::new(|| AppDriven {
    id: "el-gran-capitan",
    alias: "egc",
    name: "El Gran Capitán",
    seed: "000_f4416b09b3509f2d.txt",
    charts: &CHARTS,
    egc: true,
    // Bad War needs to know Landsknechts from Spaniards (000 'Bad War').
    nationalities: &[("spanish-landsknecht-pike", &["spanish", "landsknecht"])],
    shared: std::sync::OnceLock::new(),
});

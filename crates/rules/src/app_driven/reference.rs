//! The charts as tables, for the app's rules page: the troop types, the movement factors, and the
//! charts of fire, regroup, retire, command and leaders. Words come from the catalogue
//! (`app_driven.ref.*`, the troop types' names, whom they charge, who passes through them and the
//! movement factors' rows).

use tercio_i18n::{keys, msg};

use super::tables::Charts;
use crate::interface::BoardTable;

fn m(key: &str) -> String {
    msg(key, &[])
}

/// A serde name (`loose-only`), as the charts write it.
fn name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A movement allowance, `—` when the troop cannot make that move.
fn inches(v: Option<u8>) -> String {
    v.map_or("—".to_string(), |x| x.to_string())
}

/// Every table of the rules page.
pub fn tables(ch: &Charts) -> Vec<BoardTable> {
    let columns = [
        keys::APP_DRIVEN_REF_TROOP,
        keys::APP_DRIVEN_REF_VS_FOOT,
        keys::APP_DRIVEN_REF_VS_MOUNTED,
        keys::APP_DRIVEN_REF_IMPACT,
        keys::APP_DRIVEN_REF_FIRE,
        keys::APP_DRIVEN_REF_TARGET,
        keys::APP_DRIVEN_REF_ADVANCE,
        keys::APP_DRIVEN_REF_MARCH,
        keys::APP_DRIVEN_REF_CHARGE,
        keys::APP_DRIVEN_REF_RETIRE,
        keys::APP_DRIVEN_REF_EVADES,
        keys::APP_DRIVEN_REF_CHARGES,
        keys::APP_DRIVEN_REF_FRIENDS_PASS,
        keys::APP_DRIVEN_REF_BP,
    ]
    .map(m);
    let troops = ch
        .troops
        .iter()
        .map(|t| {
            vec![
                t.title(),
                t.melee_vs_foot.to_string(),
                t.melee_vs_mounted.to_string(),
                t.impact.to_string(),
                t.fire.map_or("—".to_string(), |f| {
                    format!("{}\" {:+}", f.range, f.factor)
                }),
                t.fire_target.to_string(),
                inches(t.advance),
                inches(t.march),
                inches(t.charge_move),
                inches(t.retire_move),
                m(if t.may_evade {
                    keys::APP_DRIVEN_REF_YES
                } else {
                    keys::APP_DRIVEN_REF_NO
                }),
                m(&format!("app_driven.charge-rule.{}", name(&t.charge))),
                m(&format!("app_driven.passes.{}", name(&t.interpenetration))),
                t.break_points.to_string(),
            ]
        })
        .collect();
    // Each row in the catalogue (`app_driven.terrain.<rules>.<row>.<column>`); the tables keep
    // the English the charts are documented in.
    let movement = (0..ch.terrain.len())
        .map(|i| {
            ["factor", "cost", "notes"]
                .iter()
                .map(|c| m(&format!("app_driven.terrain.{}.{i}.{c}", ch.ruleset)))
                .collect()
        })
        .collect();
    let n = |x: i32| x.to_string();
    let act: Vec<String> = ch.activations.iter().map(|a| a.to_string()).collect();
    let charts = vec![
        vec![
            m(keys::APP_DRIVEN_REF_MELEE),
            m(keys::APP_DRIVEN_REF_MELEE_CHART),
        ],
        vec![
            m(keys::APP_DRIVEN_REF_FIRE),
            msg(
                keys::APP_DRIVEN_REF_FIRE_CHART,
                &[("one", &n(ch.fire_one)), ("two", &n(ch.fire_two))],
            ),
        ],
        vec![
            m(keys::APP_DRIVEN_REF_REGROUP),
            msg(
                keys::APP_DRIVEN_REF_REGROUP_CHART,
                &[("one", &n(ch.regroup_one)), ("two", &n(ch.regroup_two))],
            ),
        ],
        vec![
            m(keys::APP_DRIVEN_REF_RETIRE),
            msg(
                keys::APP_DRIVEN_REF_RETIRE_CHART,
                &[("success", &n(ch.retire_success))],
            ),
        ],
        vec![
            m(keys::APP_DRIVEN_REF_COMMAND),
            msg(
                keys::APP_DRIVEN_REF_COMMAND_CHART,
                &[("activations", &act.join(", "))],
            ),
        ],
        vec![
            m(keys::APP_DRIVEN_REF_LEADERS),
            msg(
                keys::APP_DRIVEN_REF_LEADERS_CHART,
                &[
                    ("move", &ch.leader_move.to_string()),
                    ("radius", &ch.command_radius.to_string()),
                ],
            ),
        ],
    ];
    let cols = |ks: &[&str]| ks.iter().map(|k| m(k)).collect::<Vec<String>>();
    vec![
        BoardTable {
            title: m(keys::APP_DRIVEN_REF_TROOPS),
            columns: columns.to_vec(),
            rows: troops,
            reveal: None,
        },
        BoardTable {
            title: m(keys::APP_DRIVEN_REF_MOVEMENT),
            columns: cols(&[
                keys::APP_DRIVEN_REF_FACTOR,
                keys::APP_DRIVEN_REF_COST,
                keys::APP_DRIVEN_REF_NOTES,
            ]),
            rows: movement,
            reveal: None,
        },
        BoardTable {
            title: m(keys::APP_DRIVEN_REF_CHARTS),
            columns: cols(&[keys::APP_DRIVEN_REF_CHART, keys::APP_DRIVEN_REF_RULE]),
            rows: charts,
            reveal: None,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tercio_i18n::{localize, Lang};

    #[test]
    fn every_troop_type_has_its_row_and_the_charts_their_numbers() {
        let ch = crate::el_gran_capitan::CHARTS.clone();
        let t = tables(&ch);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].rows.len(), ch.troops.len());
        assert!(t[0].rows.iter().all(|r| r.len() == t[0].columns.len()));
        let fire = localize(Lang::En, &t[2].rows[1][1]);
        assert!(
            fire.contains(&format!("{}+ one level", ch.fire_one)),
            "{fire}"
        );
        assert_eq!(localize(Lang::It, &t[0].columns[0]), "Tipo di truppa");
    }
}

//! The morale tests (design section 5): each test's modifiers and the roll against its
//! threshold.

use super::*;

// ---- Morale ----

pub(super) fn morale(m: &MoraleRequest, th: &Thresholds) -> Plan<Outcome> {
    let test = m.test;
    let need = th.of(test);
    if m.artillerists && test == Test::ToStand {
        let step = Step {
            title: "To Stand: artillerists".into(),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: "fail: artillerists never stand (001, ADDITIONAL NOTES)".into(),
        };
        return Plan::Done(outcome(
            "morale",
            "To Stand: fails".into(),
            vec![step],
            vec![("passed", "no".into())],
        ));
    }
    let mut mods = Vec::new();
    let mut add = |on: bool, name: &str, v: i32, src: &str| {
        if on {
            mods.push(modifier("unit", name, v, src));
        }
    };
    let saf = test == Test::StandAndFight;
    // An attached field officer stands in for the unit's leaders (decision 7).
    add(
        m.leaderless && !m.field_officer,
        "without any leaders",
        -2,
        "001, MORALE NOTES, 'Units without any leaders -2'; decision 7",
    );
    add(
        m.spent,
        "spent",
        -2,
        "001, MORALE NOTES, '\"Spent\" units (less than 50% strength) -2'",
    );
    add(
        m.field_officer,
        "field officer attached",
        1,
        "001, MORALE NOTES, 'Field Officer attached to unit +1'",
    );
    add(
        m.gendarmes_vs_lighter_cavalry && test == Test::ToClose,
        "gendarmes against lighter cavalry",
        1,
        "001, MORALE NOTES, 'Gendarmes vs. lighter cavalry +1 ... \"to close\"'",
    );
    add(
        m.swiss_vs_pikes && test == Test::ToClose,
        "Swiss pikes against other pikes",
        1,
        "001, MORALE NOTES, 'Swiss pikes vs other pikes +1 ... \"to close\"'",
    );
    add(
        m.attacked_in_rear && saf,
        "attacked in rear",
        -2,
        "001, MORALE NOTES, 'Attacked in rear -2 to \"Stand and fight\"'",
    );
    add(
        m.shaken && saf,
        "shaken",
        -1,
        "001, MORALE NOTES, 'Shaken units are -1 to \"Stand and fight\"' (routed too: decision 5)",
    );
    add(
        m.infantry_breaking_off_from_cavalry && saf,
        "infantry breaking off from cavalry",
        -2,
        "001, BREAKING OFF, '-2 Infantry attempting to break off from melee with cavalry'",
    );
    let total_mod: i32 = mods.iter().map(|m| m.value).sum();
    let title = format!(
        "{}: 2D6 + modifiers; {need} or more passes [{}]",
        test.name(),
        tables::MORALE_SOURCE
    );
    throw(2, 6, "Morale die", Depends::Sum).map(move |f| {
        let total = i32::from(f[0]) + i32::from(f[1]) + total_mod;
        let pass = total >= need;
        let step = Step {
            title: title.clone(),
            dice: rolled(&labelled(2, 6, "Morale die"), &f),
            modifiers: mods.clone(),
            totals: vec![("total".into(), total), ("needed".into(), need)],
            result: if pass {
                "passed".into()
            } else {
                "failed".into()
            },
        };
        outcome(
            "morale",
            format!(
                "{}: {}",
                test.name(),
                if pass { "passed" } else { "failed" }
            ),
            vec![step],
            vec![("passed", if pass { "yes" } else { "no" }.into())],
        )
    })
}

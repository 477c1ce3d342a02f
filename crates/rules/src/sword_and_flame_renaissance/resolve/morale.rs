//! The morale tests (design section 5): each test's modifiers and the roll against its
//! threshold.

use super::*;

// ---- Morale ----

pub(super) fn morale(m: &MoraleRequest, th: &Thresholds) -> Plan<Outcome> {
    let test = m.test;
    let need = th.of(test);
    if m.artillerists && test == Test::ToStand {
        let step = Step {
            title: k("title.artillerists"),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: k("result.artillerists"),
        };
        return Plan::Done(outcome(
            "morale",
            msg("result.test-failed", &[("test", test.term())]),
            vec![step],
            vec![(facet("passed"), yes_no(false))],
        ));
    }
    let mut mods = Vec::new();
    let mut add = |on: bool, name: &str, v: i32, src: &str| {
        if on {
            mods.push(modifier(k("side.unit"), k(&format!("mod.{name}")), v, src));
        }
    };
    let saf = test == Test::StandAndFight;
    // An attached field officer stands in for the unit's leaders (decision 7).
    add(
        m.leaderless && !m.field_officer,
        "no-leaders",
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
        "field-officer",
        1,
        "001, MORALE NOTES, 'Field Officer attached to unit +1'",
    );
    add(
        m.gendarmes_vs_lighter_cavalry && test == Test::ToClose,
        "gendarmes-vs-lighter",
        1,
        "001, MORALE NOTES, 'Gendarmes vs. lighter cavalry +1 ... \"to close\"'",
    );
    add(
        m.swiss_vs_pikes && test == Test::ToClose,
        "swiss-vs-pikes",
        1,
        "001, MORALE NOTES, 'Swiss pikes vs other pikes +1 ... \"to close\"'",
    );
    add(
        m.attacked_in_rear && saf,
        "attacked-in-rear",
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
        "breaking-off-from-cavalry",
        -2,
        "001, BREAKING OFF, '-2 Infantry attempting to break off from melee with cavalry'",
    );
    let total_mod: i32 = mods.iter().map(|m| m.value).sum();
    let title = msg(
        "title.morale",
        &[
            ("test", test.term()),
            ("need", need.to_string()),
            // tables::MORALE_SOURCE, in the reader's language.
            ("source", k("source.morale")),
        ],
    );
    let label = k("die.morale");
    throw(2, 6, &label, Depends::Sum).map(move |f| {
        let total = i32::from(f[0]) + i32::from(f[1]) + total_mod;
        let pass = total >= need;
        let step = Step {
            title: title.clone(),
            dice: rolled(&labelled(2, 6, &label), &f),
            modifiers: mods.clone(),
            totals: vec![(facet("total"), total), (facet("needed"), need)],
            result: k(if pass {
                "result.passed"
            } else {
                "result.failed"
            }),
        };
        outcome(
            "morale",
            msg(
                if pass {
                    "result.test-passed"
                } else {
                    "result.test-failed"
                },
                &[("test", test.term())],
            ),
            vec![step],
            vec![(facet("passed"), yes_no(pass))],
        )
    })
}

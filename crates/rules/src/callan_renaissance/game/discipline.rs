//! Discipline: panic tests and wound checks as plans.

use super::*;

/// Why a unit tests.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    LostCombat,
    FriendsFleeing,
    RoutSeen,
    CommanderWounded,
    RawAttacked,
}

impl Trigger {
    fn id(self) -> &'static str {
        match self {
            Trigger::LostCombat => "lost-combat",
            Trigger::FriendsFleeing => "friends-fleeing",
            Trigger::RoutSeen => "rout-seen",
            Trigger::CommanderWounded => "commander-wounded",
            Trigger::RawAttacked => "raw-attacked",
        }
    }
}

/// A panic test (§8.2), then `then(res, fled)`. `enemy_bases`: the enemy unit's bases in the
/// combat that caused it (for "più grande"), `None` outside a combat (D46).
pub(super) fn panic_test(
    r: Res,
    site: &str,
    uid: &str,
    trigger: Trigger,
    enemy_bases: Option<u32>,
    melee: bool,
    then: Rc<dyn Fn(Res, bool) -> P>,
) -> P {
    let Some(u) = r.st.unit(uid).cloned() else {
        return then(r, false);
    };
    if u.never_panics() || u.panic_passed || !matches!(u.status, Status::Ok | Status::Retiring) {
        let mut r = r;
        let why = if u.never_panics() {
            "callan.panic.veteran"
        } else if u.panic_passed {
            "callan.panic.passed-already"
        } else {
            "callan.panic.not-needed"
        };
        r.step(k("callan.step.panic"), m(why, &[("unit", u.name.clone())]));
        return then(r, false);
    }
    let who = u.name.clone();
    let mods = panic_modifiers(
        &who,
        u.lost_bases(),
        u.open_order,
        melee && u.troop.is_shot(),
        enemy_bases.is_some_and(|e| u.bases > e),
    );
    let total: i32 = mods.iter().map(|x| x.value).sum();
    let commander = r.st.commander_of(uid).map(|c| c.id.clone());
    let uid = uid.to_string();
    let site = format!("{site}|panic|{uid}");
    let label = m("callan.die.panic", &[("unit", who.clone())]);
    let title = m(
        "callan.step.panic-test",
        &[
            ("unit", who.clone()),
            ("why", format!("@callan.trigger.{}", trigger.id())),
        ],
    );
    Plan::die(Die::d6(label.clone()), move |f| {
        let mut r = r.clone();
        let failed = panics(f, total);
        let result = m(
            if failed {
                "callan.panic.fails"
            } else {
                "callan.panic.passes"
            },
            &[("unit", who.clone())],
        );
        let mut step = die_step(title.clone(), &label, f, result.clone());
        step.modifiers = mods.clone();
        step.totals = vec![(k("callan.total"), i32::from(f) + total)];
        r.steps.push(step);
        r.facet(
            m("callan.facet.panic", &[("unit", who.clone())]),
            yes_no(failed),
        );
        r.say(result);
        let then = then.clone();
        let uid = uid.clone();
        let who = who.clone();
        let site = site.clone();
        let join = move |r: Res, fled: bool, site: &str| {
            let then = then.clone();
            merge(
                &format!("{site}|{fled}"),
                r,
                Rc::new(move |r| then(r, fled)),
            )
        };
        match (&commander, failed) {
            (_, false) => {
                if let Some(u) = r.st.unit_mut(&uid) {
                    u.panic_passed = true;
                }
                join(r, false, &site)
            }
            (None, true) => {
                flee(&mut r, &uid);
                join(r, true, &site)
            }
            (Some(c), true) => {
                // The commander's re-roll of a failed test (003, Comandanti b); D49).
                let c = c.clone();
                let label2 = m("callan.die.panic-commander", &[("unit", who.clone())]);
                Plan::die(Die::d6(label2.clone()), move |g| {
                    let mut r = r.clone();
                    let again = panics(g, total);
                    let result = m(
                        if again {
                            "callan.panic.commander-flees"
                        } else {
                            "callan.panic.rallied"
                        },
                        &[("unit", who.clone())],
                    );
                    let mut step =
                        die_step(k("callan.step.panic-reroll"), &label2, g, result.clone());
                    step.totals = vec![(k("callan.total"), i32::from(g) + total)];
                    r.steps.push(step);
                    r.facet(
                        m("callan.facet.panic-reroll", &[("unit", who.clone())]),
                        yes_no(again),
                    );
                    // The outcome is the re-roll's, not the first die's.
                    r.summary.pop();
                    r.say(result);
                    if again {
                        lose_commander(&mut r, &c, CommanderStatus::Fled);
                        flee(&mut r, &uid);
                    } else if let Some(u) = r.st.unit_mut(&uid) {
                        u.panic_passed = true;
                    }
                    join(r, again, &site)
                })
            }
        }
    })
}

/// A step of one D6 (a panic test, a wound check), its die labelled.
pub(super) fn die_step(title: String, label: &str, face: u8, result: String) -> Step {
    Step {
        title,
        dice: vec![tercio_core::RolledDie {
            label: label.to_string(),
            sides: 6,
            face,
        }],
        modifiers: Vec::new(),
        totals: Vec::new(),
        result,
    }
}

/// The wound check of a commander whose unit lost a base (D50), then his unit's panic test.
pub(super) fn wound_check(r: Res, site: &str, uid: &str, lost: u32, then: K) -> P {
    let Some(c) = r.st.commander_of(uid).cloned() else {
        return then(r);
    };
    if lost == 0 {
        return then(r);
    }
    let uid = uid.to_string();
    let site = format!("{site}|wound|{uid}");
    let label = m("callan.die.wound", &[("name", c.name.clone())]);
    Plan::die(Die::d6(label.clone()), move |f| {
        let mut r = r.clone();
        let hit = f == 1;
        r.steps.push(die_step(
            m("callan.step.wound", &[("name", c.name.clone())]),
            &label,
            f,
            k(if hit {
                "callan.wound.hit"
            } else {
                "callan.wound.safe"
            }),
        ));
        r.facet(
            m("callan.facet.wound", &[("name", c.name.clone())]),
            yes_no(hit),
        );
        if hit {
            lose_commander(&mut r, &c.id, CommanderStatus::Wounded);
            let then = then.clone();
            panic_test(
                r,
                &site,
                &uid,
                Trigger::CommanderWounded,
                None,
                false,
                Rc::new(move |r, _| then(r)),
            )
        } else {
            merge(&site, r, then.clone())
        }
    })
}

//! Movement, the spirit of the army, and a rout (design sections 7 and 8).

use super::*;

// ---- Movement, spirit, rout ----

pub(super) fn movement(m: &MoveRequest) -> Result<Plan<Outcome>, Rejection> {
    let t = troop_at(&m.troop, "type")?;
    let order = if matches!(t.kind, Kind::Gun | Kind::Train) {
        Order::Open
    } else {
        order_of(m.order, t, "order")?
    };
    let base = match tables::movement_dice(t, order) {
        0 if m.permitted && t.id == "heavy-gun" => tables::HEAVY_GUN_PERMITTED_MOVE_DICE,
        n => n,
    };
    if base == 0 {
        return Err(reject("does-not-move", "type", k("refuse.heavy-gun-still")));
    }
    if m.woods && matches!(t.kind, Kind::Gun | Kind::Train) {
        return Err(reject("no-woods", "woods", k("refuse.no-woods")));
    }
    if m.dismounting && !matches!(t.id, "light-horse-arquebus" | "light-horse-crossbow") {
        return Err(reject(
            "may-not-dismount",
            "dismounting",
            k("refuse.may-not-dismount"),
        ));
    }
    let loss = tables::terrain_losses(t, order);
    let mut lost = 0u8;
    let mut mods = Vec::new();
    for (on, name, l) in [
        (m.uphill, "field.uphill", loss[0]),
        (m.downhill, "field.downhill", loss[1]),
        (m.obstacle, "field.obstacle", loss[2]),
        (m.woods, "field.woods", loss[3]),
    ] {
        if on && l > 0 {
            lost += l;
            mods.push(modifier(
                k("side.dice"),
                k(name),
                -i32::from(l),
                "001, MOVEMENT, Movement Penalties; decision 18",
            ));
        }
    }
    if m.dismounting {
        lost += 1;
        mods.push(modifier(
            k("side.dice"),
            k("mod.dismounting"),
            -1,
            "001, OPTIONAL RULES, DISMOUNTING, 'Unit loses 1 D6'",
        ));
    }
    // Never below one die (decision 18).
    let n = base.saturating_sub(lost).max(1);
    let half = m.loading && t.kind == Kind::Foot && t.weapon == Some(Weapon::Arquebus);
    let title = msg(
        "title.move",
        &[
            ("troop", t.term()),
            ("order", order_name(order)),
            ("dice", base.to_string()),
            (
                "permitted",
                if t.id == "heavy-gun" {
                    k("move.permitted")
                } else {
                    String::new()
                },
            ),
            (
                "lost",
                if lost > 0 {
                    msg(
                        "move.lost",
                        &[
                            ("lost", lost.to_string()),
                            ("dice", n.to_string()),
                            (
                                "floor",
                                if base <= lost {
                                    k("move.floor")
                                } else {
                                    String::new()
                                },
                            ),
                        ],
                    )
                } else {
                    String::new()
                },
            ),
        ],
    );
    let label = k("die.move");
    Ok(
        throw(usize::from(n), 6, &label, Depends::Sum).map(move |f| {
            let rolled_total: u32 = f.iter().map(|&x| u32::from(x)).sum();
            let inches = if half {
                rolled_total / 2
            } else {
                rolled_total
            };
            let mut modifiers = mods.clone();
            if half {
                modifiers.push(modifier(
                    k("side.inches"),
                    k("mod.loading"),
                    0,
                    "001, FIRE, 'May not move more than 1/2 while loading arquebus on foot'; decision 13",
                ));
            }
            let step = Step {
                title: title.clone(),
                dice: rolled(&labelled(f.len(), 6, &label), &f),
                modifiers,
                totals: vec![(facet("inches"), inches as i32)],
                result: format!("{inches}\""),
            };
            outcome(
                "move",
                msg("result.moves-up-to", &[("inches", inches.to_string())]),
                vec![step],
                vec![(facet("inches"), inches.to_string())],
            )
        }),
    )
}

/// The number to roll at or under on a D10 (design 7.4, decision 3): ceil(5 (2F + W) / S), at
/// most 10.
pub fn spirit_target(fresh: u32, worn: u32, start: u32) -> u32 {
    if start == 0 {
        return 0;
    }
    (5 * (2 * fresh + worn)).div_ceil(start).min(10)
}

pub(super) fn spirit(s: &SpiritRequest) -> Result<Plan<Outcome>, Rejection> {
    if s.start == 0 {
        return Err(reject("bad-start", "start", k("refuse.bad-start")));
    }
    if s.fresh + s.worn > s.start {
        return Err(reject("bad-count", "fresh", k("refuse.bad-count")));
    }
    let target = spirit_target(s.fresh, s.worn, s.start);
    let (fresh, worn, start) = (s.fresh, s.worn, s.start);
    let label = k("die.spirit");
    Ok(Plan::die(Die::new(10, label.clone()), move |face| {
        let good = u32::from(face) <= target;
        let step = Step {
            title: msg(
                "title.spirit",
                &[
                    ("fresh", fresh.to_string()),
                    ("worn", worn.to_string()),
                    ("start", start.to_string()),
                    ("target", target.to_string()),
                ],
            ),
            dice: vec![RolledDie {
                label: label.clone(),
                sides: 10,
                face,
            }],
            modifiers: Vec::new(),
            totals: vec![(facet("needed"), target as i32)],
            result: k(if good {
                "spirit.good"
            } else {
                "result.spirit-poor"
            }),
        };
        Plan::Done(outcome(
            "spirit",
            msg("result.spirit", &[("spirit", spirit_term(good))]),
            vec![step],
            vec![(
                facet("spirit"),
                k(if good { "spirit.good" } else { "spirit.poor" }),
            )],
        ))
    }))
}

/// "good" or "poor", as a message argument.
pub fn spirit_term(good: bool) -> String {
    term(if good { "spirit.good" } else { "spirit.poor" })
}

pub(super) fn rout() -> Plan<Outcome> {
    let label = k("die.rout");
    Plan::die(Die::new(4, label.clone()), move |face| {
        let step = Step {
            title: k("title.rout"),
            dice: vec![RolledDie {
                label: label.clone(),
                sides: 4,
                face,
            }],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: msg("result.figures-lost", &[("count", face.to_string())]),
        };
        Plan::Done(outcome(
            "rout",
            msg("result.routs-losing", &[("count", face.to_string())]),
            vec![step],
            vec![(facet("figures-lost"), face.to_string())],
        ))
    })
}

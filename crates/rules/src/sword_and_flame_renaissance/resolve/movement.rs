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
        return Err(reject("does-not-move", "type", "heavy guns do not move without the game master's permission, but may pivot in place (001, MOVEMENT)"));
    }
    if m.woods && matches!(t.kind, Kind::Gun | Kind::Train) {
        return Err(reject(
            "no-woods",
            "woods",
            "guns and wagons cannot enter woods except on roads (001, MOVEMENT)",
        ));
    }
    if m.dismounting && !matches!(t.id, "light-horse-arquebus" | "light-horse-crossbow") {
        return Err(reject("may-not-dismount", "dismounting", "dismounting: only mounted crossbowmen or arquebusiers may dismount (001, OPTIONAL RULES, DISMOUNTING)"));
    }
    let loss = tables::terrain_losses(t, order);
    let mut lost = 0u8;
    let mut mods = Vec::new();
    for (on, name, l) in [
        (m.uphill, "uphill", loss[0]),
        (m.downhill, "downhill", loss[1]),
        (m.obstacle, "across an obstacle", loss[2]),
        (m.woods, "through woods", loss[3]),
    ] {
        if on && l > 0 {
            lost += l;
            mods.push(modifier(
                "dice",
                name,
                -i32::from(l),
                "001, MOVEMENT, Movement Penalties; decision 18",
            ));
        }
    }
    if m.dismounting {
        lost += 1;
        mods.push(modifier(
            "dice",
            "mounting or dismounting",
            -1,
            "001, OPTIONAL RULES, DISMOUNTING, 'Unit loses 1 D6'",
        ));
    }
    // Never below one die (decision 18).
    let n = base.saturating_sub(lost).max(1);
    let half = m.loading && t.kind == Kind::Foot && t.weapon == Some(Weapon::Arquebus);
    let title = format!(
        "Move: {} in {} order rolls {base}D6{}{}",
        t.name,
        order_name(order),
        if t.id == "heavy-gun" {
            " (the game master permits it, decision 57)"
        } else {
            ""
        },
        if lost > 0 {
            format!(
                ", {lost} lost{}: {n}D6",
                if base <= lost {
                    " (never fewer than one die, decision 18)"
                } else {
                    ""
                }
            )
        } else {
            String::new()
        }
    );
    Ok(
        throw(usize::from(n), 6, "Move die", Depends::Sum).map(move |f| {
            let rolled_total: u32 = f.iter().map(|&x| u32::from(x)).sum();
            let inches = if half {
                rolled_total / 2
            } else {
                rolled_total
            };
            let mut modifiers = mods.clone();
            if half {
                modifiers.push(modifier(
                    "inches",
                    "loading arquebus on foot: half, rounded down",
                    0,
                    "001, FIRE, 'May not move more than 1/2 while loading arquebus on foot'; decision 13",
                ));
            }
            let step = Step {
                title: title.clone(),
                dice: rolled(&labelled(f.len(), 6, "Move die"), &f),
                modifiers,
                totals: vec![("inches".into(), inches as i32)],
                result: format!("{inches}\""),
            };
            outcome(
                "move",
                format!("moves up to {inches}\""),
                vec![step],
                vec![("inches", inches.to_string())],
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
        return Err(reject(
            "bad-start",
            "start",
            "start: the units and guns of the army at the start of the game",
        ));
    }
    if s.fresh + s.worn > s.start {
        return Err(reject(
            "bad-count",
            "fresh",
            "fresh + worn cannot exceed the units and guns at the start",
        ));
    }
    let target = spirit_target(s.fresh, s.worn, s.start);
    let (fresh, worn, start) = (s.fresh, s.worn, s.start);
    Ok(Plan::die(Die::new(10, "Spirit D10"), move |face| {
        let good = u32::from(face) <= target;
        let step = Step {
            title: format!("Spirit of the army: {fresh} fresh and {worn} worn units and guns (worn count ½) over the {start} at the start, rounded up to tenths: roll {target} or less on a D10 [001, THE SPIRIT OF THE ARMY, second paragraph and its example; decision 3]"),
            dice: vec![RolledDie {
                label: "Spirit D10".into(),
                sides: 10,
                face,
            }],
            modifiers: Vec::new(),
            totals: vec![("needed".into(), target as i32)],
            result: if good {
                "good".into()
            } else {
                "poor: routed and spent units leave the field, shaken units rout".into()
            },
        };
        Plan::Done(outcome(
            "spirit",
            format!(
                "the spirit of the army is {}",
                if good { "good" } else { "poor" }
            ),
            vec![step],
            vec![("spirit", if good { "good" } else { "poor" }.into())],
        ))
    }))
}

pub(super) fn rout() -> Plan<Outcome> {
    Plan::die(Die::new(4, "Rout D4"), |face| {
        let step = Step {
            title: "Rout: a D4 of casualties, then a normal move to the rear [001, ROUTED UNITS; decision 29]".into(),
            dice: vec![RolledDie {
                label: "Rout D4".into(),
                sides: 4,
                face,
            }],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: format!("{face} figure(s) lost"),
        };
        Plan::Done(outcome(
            "rout",
            format!("routs, losing {face} figure(s)"),
            vec![step],
            vec![("figures lost", face.to_string())],
        ))
    })
}

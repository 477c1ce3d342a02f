//! Moves (design 2.1, 3 step 3).

use super::*;

// ------------------------------------------------------------------------------------------------
// Moves (design 2.1, 3 step 3).

/// How far a unit may move now, and whether it may still battle after moving `hexes`.
pub(super) fn allowance(st: &State, u: &UnitState, mount: bool, dismount: bool) -> u32 {
    let c = st.card.as_ref();
    let eff = c.map_or("", |c| c.effective.as_str());
    let base: u32 = match u.class {
        Class::Foot | Class::Clubmen => 1,
        Class::Cuirassiers => {
            if eff == "charge-of-horse" {
                3
            } else {
                2
            }
        }
        Class::Trotters | Class::Gallopers => 3,
        Class::Dragoons => {
            if u.mounted {
                if dismount {
                    2
                } else {
                    3
                }
            } else if mount {
                2
            } else {
                1
            }
        }
        Class::Artillery => {
            if eff == "bombard" {
                2
            } else {
                1
            }
        }
    };
    let riding = u.class.horse() || (u.class == Class::Dragoons && (u.mounted || mount));
    if riding {
        let cut = u32::from(st.sides[u.side].chickweed) + u32::from(st.soft_going);
        base.saturating_sub(cut)
            .max(st.cfg.mounted_min_move.min(base))
    } else {
        base
    }
}

/// A move's fields besides the unit.
pub(super) struct Movement<'a> {
    pub(super) hexes: Option<i64>,
    pub(super) mount: bool,
    pub(super) dismount: bool,
    pub(super) leave_stand: bool,
    pub(super) into_woods_or_town: bool,
    pub(super) join: Option<&'a str>,
}

pub(super) fn move_unit(st: &State, id: &str, a: &Movement) -> Result<P, Rejection> {
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, k("ecw.reject.no-card")).not_now())?;
    let eff = c.effective.as_str();
    if let Some(l) = st.leader(id) {
        if a.into_woods_or_town {
            // A leader alone never battles: the question is a unit's (decision 64).
            return Err(reject(
                "leader-terrain",
                Some("into_woods_or_town"),
                k("ecw.reject.leader-terrain"),
            ));
        }
        return move_leader(st, l, a);
    }
    let u = st.unit(id).ok_or_else(|| {
        reject(
            "no-such-unit",
            Some("unit"),
            m(
                "ecw.reject.no-unit-or-leader",
                &[("unit", crate::text::quoted(id))],
            ),
        )
    })?;
    if u.side != st.active || u.gone.is_some() || u.spare {
        return Err(reject(
            "not-yours",
            Some("unit"),
            m("ecw.reject.not-yours", &[("unit", crate::text::quoted(id))]),
        ));
    }
    if !u.ordered {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            m("ecw.reject.not-ordered", &[("unit", u.name.clone())]),
        )
        .not_now());
    }
    let hexes = ranged("hexes", a.hexes, 0, 6)?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("hexes"),
            k("ecw.reject.hexes-missing"),
        )
    })? as u32;
    let (mount, dismount, leave) = (a.mount, a.dismount, a.leave_stand);
    // Bold Dragooneers: a further complete move after firing (004).
    // Bold Dragooneers: one further complete move after firing (004), whatever came before.
    let second =
        eff == "bold-dragooneers" && u.class == Class::Dragoons && u.fired && !u.moved_after_fire;
    if c.combat && !second {
        return Err(reject("moves-closed", Some("unit"), k("ecw.reject.moves-closed")).not_now());
    }
    if u.moves > 0 && !second {
        return Err(reject(
            "already-moved",
            Some("unit"),
            m("ecw.reject.already-moved", &[("unit", u.name.clone())]),
        )
        .not_now());
    }
    if (mount || dismount) && u.class != Class::Dragoons {
        return Err(reject(
            "not-dragoons",
            Some("mount"),
            k("ecw.reject.not-dragoons"),
        ));
    }
    if mount && u.mounted {
        return Err(reject(
            "already-mounted",
            Some("mount"),
            k("ecw.reject.already-mounted"),
        ));
    }
    if dismount && !u.mounted {
        return Err(reject(
            "not-mounted",
            Some("dismount"),
            k("ecw.reject.not-mounted"),
        ));
    }
    if leave && !u.stand {
        return Err(reject(
            "not-in-stand",
            Some("leave_stand"),
            k("ecw.reject.not-in-stand"),
        ));
    }
    if u.stand && !leave && hexes > 0 {
        return Err(reject("in-stand", Some("hexes"), k("ecw.reject.in-stand")));
    }
    if leave && eff == "march-to-victorye" {
        return Err(reject(
            "march",
            Some("leave_stand"),
            m(
                "ecw.reject.march-stand",
                &[(
                    "card",
                    command_card("march-to-victorye").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    if hexes > 0 {
        if u.class == Class::Artillery && st.sides[u.side].artillery_horses {
            return Err(reject(
                "artillery-horses",
                Some("hexes"),
                m(
                    "ecw.reject.artillery-horses",
                    &[(
                        "card",
                        chaunce_card("artillery-horses").map_or(String::new(), |c| c.title()),
                    )],
                ),
            ));
        }
        if u.no_move_turns > 0 {
            return Err(reject(
                "cannot-move",
                Some("hexes"),
                m(
                    "ecw.reject.rabbits",
                    &[
                        ("unit", u.name.clone()),
                        (
                            "card",
                            chaunce_card("rabbits").map_or(String::new(), |c| c.title()),
                        ),
                    ],
                ),
            ));
        }
        if matches!(eff, "push" | "fire-and-hold") {
            return Err(reject(
                "no-move",
                Some("hexes"),
                m(
                    "ecw.reject.card-no-move",
                    &[(
                        "card",
                        command_card(eff).map_or(eff.to_string(), |k| k.title()),
                    )],
                ),
            ));
        }
        if eff == "bombard" && u.bombard.as_deref() == Some("fire") {
            return Err(reject(
                "bombard",
                Some("hexes"),
                m(
                    "ecw.reject.bombard-fired",
                    &[(
                        "card",
                        command_card("bombard").map_or(String::new(), |c| c.title()),
                    )],
                ),
            ));
        }
    }
    if a.into_woods_or_town && hexes == 0 {
        return Err(reject(
            "no-move",
            Some("into_woods_or_town"),
            m("ecw.reject.terrain-no-move", &[("unit", u.name.clone())]),
        ));
    }
    let max = allowance(st, u, mount, dismount);
    if hexes > max {
        return Err(reject(
            "too-far",
            Some("hexes"),
            m(
                "ecw.reject.too-far",
                &[
                    ("unit", u.name.clone()),
                    ("hexes", super::super::hexes(max)),
                ],
            ),
        ));
    }
    let mut r = Res::new(st);
    let name = u.name.clone();
    if leave {
        leave_stand(&mut r.st, id);
    }
    let bombard = eff == "bombard" && hexes > 0;
    if let Some(u) = r.st.unit_mut(id) {
        u.moved += hexes;
        u.moves += 1;
        if u.fired {
            u.moved_after_fire = true;
        }
        if mount {
            u.mounted = true;
        }
        if dismount {
            u.mounted = false;
        }
        if bombard {
            u.bombard = Some("move".into());
        }
        // CCN: "A unit may not battle the turn it moves onto a Forest hex" / "a Town/Windmill
        // hex"; 004, Dragoons: "Unlike Foot units, Dragoons can fight as soon as they arrive,
        // whatever the terrain." (decision 64)
        if a.into_woods_or_town && u.class != Class::Dragoons {
            u.entered_woods_or_town = true;
        }
    }
    if let Some(c) = r.st.card.as_mut() {
        c.moving = true;
    }
    let mut bits = vec![m(
        "ecw.move.moves",
        &[("unit", name), ("count", hexes.to_string())],
    )];
    if leave {
        bits.push(k("ecw.move.leaves-stand"));
    }
    if mount {
        bits.push(k("ecw.move.mounts"));
    }
    if dismount {
        bits.push(k("ecw.move.dismounts"));
    }
    if let Some(l) = st.leader_of(id) {
        bits.push(m("ecw.move.leader-with", &[("leader", l.name.clone())]));
    }
    if a.into_woods_or_town {
        bits.push(k(if u.class == Class::Dragoons {
            "ecw.move.into-cover-dragoons"
        } else {
            "ecw.move.into-cover"
        }));
    }
    let msg = join(&bits);
    r.step(k("ecw.step.move"), msg.clone());
    r.say(msg);
    Ok(done(r))
}

pub(super) fn move_leader(st: &State, l: &LeaderState, a: &Movement) -> Result<P, Rejection> {
    if l.side != st.active || l.gone.is_some() {
        return Err(reject(
            "not-yours",
            Some("unit"),
            m("ecw.reject.not-your-leader", &[("leader", l.name.clone())]),
        ));
    }
    if !l.ordered {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            m("ecw.reject.not-ordered", &[("unit", l.name.clone())]),
        )
        .not_now());
    }
    if st.card.as_ref().is_some_and(|c| c.combat) {
        return Err(reject("moves-closed", Some("unit"), k("ecw.reject.moves-closed")).not_now());
    }
    let join = a.join;
    if let Some(from) = &l.unit {
        if st.unit(from).is_some_and(|u| u.stand) {
            return Err(reject(
                "in-stand",
                Some("unit"),
                k("ecw.reject.leader-in-stand"),
            ));
        }
    }
    let mut r = Res::new(st);
    let mut msg = vec![];
    let leadership = st
        .card
        .as_ref()
        .is_some_and(|c| c.effective == "leadership");
    if let Some(from) = l.unit.clone() {
        if join != Some(from.as_str()) {
            msg.push(m(
                "ecw.move.detaches",
                &[
                    ("leader", l.name.clone()),
                    (
                        "unit",
                        st.unit(&from).map_or(String::new(), |u| u.name.clone()),
                    ),
                ],
            ));
            // Leadership orders the unit only while the leader stays with it (decision 54).
            if leadership {
                if let Some(u) = r.st.unit_mut(&from) {
                    if u.moves == 0 && !u.fired && u.meleed == 0 {
                        u.ordered = false;
                        u.card_bonus = 0;
                        msg.push(m("ecw.move.no-longer-ordered", &[("unit", u.name.clone())]));
                    }
                }
            }
        }
    }
    match join {
        Some(uid) => {
            let u = st
                .unit(uid)
                .filter(|u| u.side == l.side && u.gone.is_none() && !u.spare)
                .ok_or_else(|| {
                    reject(
                        "no-such-unit",
                        Some("join"),
                        m(
                            "ecw.reject.join-no-unit",
                            &[("unit", crate::text::quoted(uid))],
                        ),
                    )
                })?;
            if let Some(other) = st.leader_of(uid).filter(|x| x.id != l.id) {
                return Err(reject(
                    "has-leader",
                    Some("join"),
                    m(
                        "ecw.reject.has-leader",
                        &[("unit", u.name.clone()), ("leader", other.name.clone())],
                    ),
                ));
            }
            msg.push(m(
                "ecw.move.joins",
                &[("leader", l.name.clone()), ("unit", u.name.clone())],
            ));
            if let Some(x) = r.st.leader_mut(&l.id) {
                x.unit = Some(uid.to_string());
            }
            if let Some(x) = r.st.unit_mut(uid) {
                x.no_orders_until_leader = false;
            }
        }
        None => {
            if let Some(x) = r.st.leader_mut(&l.id) {
                x.unit = None;
            }
            msg.push(m("ecw.move.alone", &[("leader", l.name.clone())]));
        }
    }
    if let Some(c) = r.st.card.as_mut() {
        c.moving = true;
    }
    let said = super::super::join(&msg);
    r.step(k("ecw.step.leader-moves"), said.clone());
    r.say(said);
    Ok(done(r))
}

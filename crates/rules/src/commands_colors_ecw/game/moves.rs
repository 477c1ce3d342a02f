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
    pub(super) join: Option<&'a str>,
}

pub(super) fn move_unit(st: &State, id: &str, a: &Movement) -> Result<P, Rejection> {
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, "no card in play").not_now())?;
    let eff = c.effective.as_str();
    if let Some(l) = st.leader(id) {
        return move_leader(st, l, a);
    }
    let u = st.unit(id).ok_or_else(|| {
        reject(
            "no-such-unit",
            Some("unit"),
            format!("unit: no unit or leader \"{id}\""),
        )
    })?;
    if u.side != st.active || u.gone.is_some() || u.spare {
        return Err(reject(
            "not-yours",
            Some("unit"),
            format!("unit: {id} is not one of your units on the table"),
        ));
    }
    if !u.ordered {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            format!("unit: {} is not ordered this turn", u.name),
        )
        .not_now());
    }
    let hexes = ranged("hexes", a.hexes, 0, 6)?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("hexes"),
            "hexes: how many hexes it moved (0 to stay)",
        )
    })? as u32;
    let (mount, dismount, leave) = (a.mount, a.dismount, a.leave_stand);
    // Bold Dragooneers: a further complete move after firing (004).
    // Bold Dragooneers: one further complete move after firing (004), whatever came before.
    let second =
        eff == "bold-dragooneers" && u.class == Class::Dragoons && u.fired && !u.moved_after_fire;
    if c.combat && !second {
        return Err(reject(
            "moves-closed",
            Some("unit"),
            "unit: every move comes before the first battle (CCN sequence of play)",
        )
        .not_now());
    }
    if u.moves > 0 && !second {
        return Err(reject(
            "already-moved",
            Some("unit"),
            format!("unit: {} has moved this turn", u.name),
        )
        .not_now());
    }
    if (mount || dismount) && u.class != Class::Dragoons {
        return Err(reject(
            "not-dragoons",
            Some("mount"),
            "mount: only dragoons mount and dismount",
        ));
    }
    if mount && u.mounted {
        return Err(reject(
            "already-mounted",
            Some("mount"),
            "mount: the dragoons are already on horse",
        ));
    }
    if dismount && !u.mounted {
        return Err(reject(
            "not-mounted",
            Some("dismount"),
            "dismount: the dragoons are already on foot",
        ));
    }
    if leave && !u.stand {
        return Err(reject(
            "not-in-stand",
            Some("leave_stand"),
            "leave_stand: the unit is not in Stand of Pikes",
        ));
    }
    if u.stand && !leave && hexes > 0 {
        return Err(reject("in-stand", Some("hexes"), "hexes: a unit in Stand of Pikes may not move; it leaves the formation first (leave_stand)"));
    }
    if leave && eff == "march-to-victorye" {
        return Err(reject(
            "march",
            Some("leave_stand"),
            "leave_stand: under March to Victorye foot may not form or leave Stand of Pikes (004)",
        ));
    }
    if hexes > 0 {
        if u.class == Class::Artillery && st.sides[u.side].artillery_horses {
            return Err(reject("artillery-horses", Some("hexes"), "hexes: your artillery cannot move for the rest of the day (Artillery Horses; decision 52)"));
        }
        if u.no_move_turns > 0 {
            return Err(reject(
                "cannot-move",
                Some("hexes"),
                format!("hexes: {} cannot move this turn (Rabbits!)", u.name),
            ));
        }
        if matches!(eff, "push" | "fire-and-hold") {
            return Err(reject(
                "no-move",
                Some("hexes"),
                format!(
                    "hexes: under {} ordered units may not move",
                    command_card(eff).map_or(eff, |k| k.name)
                ),
            ));
        }
        if eff == "bombard" && u.bombard.as_deref() == Some("fire") {
            return Err(reject(
                "bombard",
                Some("hexes"),
                "hexes: a gun that fired under Bombard may not move (decision 51)",
            ));
        }
    }
    let max = allowance(st, u, mount, dismount);
    if hexes > max {
        return Err(reject(
            "too-far",
            Some("hexes"),
            format!("hexes: {} moves at most {max} hex(es) now", u.name),
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
    }
    if let Some(c) = r.st.card.as_mut() {
        c.moving = true;
    }
    let mut bits = vec![format!("{name} moves {hexes} hex(es)")];
    if leave {
        bits.push("leaves its Stand of Pikes; the track's card returns to the hand".into());
    }
    if mount {
        bits.push("mounts".into());
    }
    if dismount {
        bits.push("dismounts".into());
    }
    if let Some(l) = st.leader_of(id) {
        bits.push(format!("{} moves with it", l.name));
    }
    let msg = bits.join("; ");
    r.step("Move [004; design 2.1]", msg.clone());
    r.say(msg);
    Ok(done(r))
}

pub(super) fn move_leader(st: &State, l: &LeaderState, a: &Movement) -> Result<P, Rejection> {
    if l.side != st.active || l.gone.is_some() {
        return Err(reject(
            "not-yours",
            Some("unit"),
            format!("unit: {} is not one of your leaders on the table", l.name),
        ));
    }
    if !l.ordered {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            format!("unit: {} is not ordered this turn", l.name),
        )
        .not_now());
    }
    if st.card.as_ref().is_some_and(|c| c.combat) {
        return Err(reject(
            "moves-closed",
            Some("unit"),
            "unit: every move comes before the first battle (CCN sequence of play)",
        )
        .not_now());
    }
    let join = a.join;
    if let Some(from) = &l.unit {
        if st.unit(from).is_some_and(|u| u.stand) {
            return Err(reject(
                "in-stand",
                Some("unit"),
                "unit: a leader may not leave a unit in Stand of Pikes (CCN-sum)",
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
            msg.push(format!(
                "{} detaches from {}",
                l.name,
                st.unit(&from).map_or("", |u| u.name.as_str())
            ));
            // Leadership orders the unit only while the leader stays with it (decision 54).
            if leadership {
                if let Some(u) = r.st.unit_mut(&from) {
                    if u.moves == 0 && !u.fired && u.meleed == 0 {
                        u.ordered = false;
                        u.card_bonus = 0;
                        msg.push(format!("{} is no longer ordered (decision 54)", u.name));
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
                        format!("join: no unit \"{uid}\" of yours on the table"),
                    )
                })?;
            if let Some(other) = st.leader_of(uid).filter(|x| x.id != l.id) {
                return Err(reject(
                    "has-leader",
                    Some("join"),
                    format!("join: {} already has {} attached", u.name, other.name),
                ));
            }
            msg.push(format!("{} joins {}", l.name, u.name));
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
            msg.push(format!("{} moves alone", l.name));
        }
    }
    if let Some(c) = r.st.card.as_mut() {
        c.moving = true;
    }
    let m = msg.join("; ");
    r.step("Leader moves [004, Section Cards; CCN]", m.clone());
    r.say(m);
    Ok(done(r))
}

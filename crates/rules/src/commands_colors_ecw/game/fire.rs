//! Ranged combat (design 6).

use super::*;

/// Ranged combat's fields.
pub(super) struct Shot<'a> {
    pub(super) unit: &'a str,
    pub(super) target: &'a str,
    pub(super) range: Option<i64>,
    pub(super) terrain: Option<i64>,
    pub(super) target_room: Option<i64>,
    pub(super) target_ignores: Option<i64>,
    pub(super) adjacent_enemy: bool,
}

pub(super) fn fire(st: &State, a: &Shot) -> Result<P, Rejection> {
    let u = combat_common(st, a.unit, true)?;
    let eff = st.card.as_ref().map_or("", |c| c.effective.as_str());
    if st.leader(a.target).is_some() {
        return Err(reject(
            "lone-leader",
            Some("target"),
            "target: a lone leader may not be targeted in ranged combat (CCN-rem)",
        ));
    }
    let t = enemy(st, a.target, u.side)?;
    let range = ranged("range", a.range, 1, 5)?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("range"),
            "range: hexes to the target, 1 to 5",
        )
    })? as u32;
    let terrain = ranged("terrain", a.terrain, 0, 3)?.unwrap_or(0) as u8;
    let room = ranged("target_room", a.target_room, 0, 12)?.map(|x| x as u32);
    let ignores = ranged("target_ignores", a.target_ignores, 0, 2)?.unwrap_or(0) as u32;
    if st.rain > 0 {
        return Err(reject(
            "rain",
            Some("action"),
            "no ranged combat while St. Swithun's rain lasts (Chaunce card; decision 33)",
        ));
    }
    if eff == "push" {
        return Err(reject(
            "push",
            Some("action"),
            "under Push! ordered units may not engage in ranged combat (004)",
        ));
    }
    if u.no_fire || u.no_fire_turns > 0 {
        return Err(reject(
            "no-fire",
            Some("unit"),
            format!(
                "unit: {} may not fire{}",
                u.name,
                if u.no_fire {
                    " (scenario: no fire)"
                } else {
                    " this turn (Bad Powder)"
                }
            ),
        ));
    }
    match u.class {
        Class::Foot | Class::Artillery if u.moved > 0 => {
            return Err(reject(
                "moved",
                Some("unit"),
                format!(
                    "unit: {} moved this turn: only units that did not move fire (004)",
                    u.name
                ),
            ));
        }
        Class::Dragoons if u.mounted => {
            return Err(reject(
                "mounted",
                Some("unit"),
                "unit: dragoons may not fire when mounted (004, Dragoons)",
            ));
        }
        _ => {}
    }
    let (lo, hi) = if u.class == Class::Artillery {
        (2, 5)
    } else {
        (1, 2)
    };
    if !(lo..=hi).contains(&range) {
        return Err(reject(
            "out-of-range",
            Some("range"),
            format!(
                "range: {} fires at {lo} to {hi} hexes (004; decisions 20, 21)",
                u.name
            ),
        ));
    }
    if a.adjacent_enemy && range > 1 {
        return Err(reject(
            "adjacent",
            Some("range"),
            "range: a unit adjacent to an enemy fires only at an adjacent one (decision 21)",
        ));
    }
    let (n, mods) = dice_for(st, u, Kind::Ranged, Some(t), terrain, false, false)?;
    let mut r = Res::new(st);
    let (uid, tid) = (u.id.clone(), t.id.clone());
    if let Some(x) = r.st.unit_mut(&uid) {
        x.fired = true;
        if eff == "bombard" {
            x.bombard = Some("fire".into());
        }
    }
    if u.class == Class::Foot {
        r.st.last_foot_fired = Some(uid.clone());
    }
    if let Some(c) = r.st.card.as_mut() {
        c.combat = true;
    }
    Ok(hit_unit(
        r,
        Hit {
            roller: uid,
            target: tid,
            kind: Kind::Ranged,
            n,
            mods,
            room,
            ignores,
            retiring: false,
            label: "Ranged combat",
        },
        |mut r, _| {
            check_victory(&mut r);
            done(r)
        },
    ))
}

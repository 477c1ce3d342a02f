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
            k("ecw.reject.lone-leader-fire"),
        ));
    }
    let t = enemy(st, a.target, u.side)?;
    let range = ranged("range", a.range, 1, 5)?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("range"),
            k("ecw.reject.range-missing"),
        )
    })? as u32;
    let terrain = ranged("terrain", a.terrain, 0, 3)?.unwrap_or(0) as u8;
    let room = ranged("target_room", a.target_room, 0, 12)?.map(|x| x as u32);
    let ignores = ranged("target_ignores", a.target_ignores, 0, 2)?.unwrap_or(0) as u32;
    if st.rain > 0 {
        return Err(reject("rain", Some("action"), k("ecw.reject.rain")));
    }
    if eff == "push" {
        return Err(reject(
            "push",
            Some("action"),
            m(
                "ecw.reject.push-fire",
                &[(
                    "card",
                    command_card("push").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    if u.no_fire || u.no_fire_turns > 0 {
        return Err(reject(
            "no-fire",
            Some("unit"),
            m(
                if u.no_fire {
                    "ecw.reject.no-fire-scenario"
                } else {
                    "ecw.reject.no-fire-turn"
                },
                &[
                    ("unit", u.name.clone()),
                    (
                        "card",
                        chaunce_card("bad-powder").map_or(String::new(), |c| c.title()),
                    ),
                ],
            ),
        ));
    }
    match u.class {
        Class::Foot | Class::Artillery if u.moved > 0 => {
            return Err(reject(
                "moved",
                Some("unit"),
                m("ecw.reject.moved-fire", &[("unit", u.name.clone())]),
            ));
        }
        Class::Dragoons if u.mounted => {
            return Err(reject(
                "mounted",
                Some("unit"),
                k("ecw.reject.dragoons-mounted"),
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
            m(
                "ecw.reject.out-of-range",
                &[
                    ("unit", u.name.clone()),
                    ("lo", lo.to_string()),
                    ("hi", hi.to_string()),
                ],
            ),
        ));
    }
    if a.adjacent_enemy && range > 1 {
        return Err(reject(
            "adjacent",
            Some("range"),
            k("ecw.reject.adjacent-fire"),
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
            label: k("ecw.kind.ranged"),
        },
        |mut r, _| {
            check_victory(&mut r);
            done(r)
        },
    ))
}

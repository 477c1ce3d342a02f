//! Losses.

use super::*;

/// Count bases lost to the side (weighted and points), unless the unit's bases already count.
pub(super) fn count_loss(st: &mut State, uid: &str, n: u32) {
    let Some(u) = st.unit(uid) else { return };
    if u.counted || n == 0 {
        return;
    }
    let side = u.side;
    let halves = n * u.weight();
    let points = if u.troop.is_gun() {
        u.base_points(&st.cfg)
    } else {
        n * u.base_points(&st.cfg)
    };
    let weighted = st.cfg.victory_weighted;
    let s = &mut st.sides[side];
    s.lost += if weighted { halves } else { 2 * n };
    s.lost_points += points;
}

pub(super) fn lose_commander(r: &mut Res, cid: &str, status: CommanderStatus) {
    let weighted = r.st.cfg.victory_weighted;
    let Some(c) = r.st.commanders.iter_mut().find(|c| c.id == cid) else {
        return;
    };
    if c.status != CommanderStatus::Active {
        return;
    }
    c.status = status;
    c.unit = None;
    let side = c.side;
    let name = c.name.clone();
    if weighted {
        r.st.sides[side].lost += COMMANDER_LOSS_HALVES;
    }
    r.st.sides[side].lost_points += COMMANDER_POINTS;
    let msg = m(
        if status == CommanderStatus::Wounded {
            "callan.commander.wounded"
        } else {
            "callan.commander.fled"
        },
        &[("name", name)],
    );
    r.note(msg.clone());
    r.say(msg);
}

/// Add hits to a unit; every 2 (or 3) remove a base, the rest carried (D23). Returns bases lost.
pub(super) fn add_hits(r: &mut Res, uid: &str, hits: u32) -> u32 {
    let Some(u) = r.st.unit_mut(uid) else {
        return 0;
    };
    let per = u.troop.hits_per_base();
    u.hits += hits;
    let lost = (u.hits / per).min(u.bases);
    u.hits -= lost * per;
    remove_bases(u, lost);
    let gone = u.bases == 0;
    if gone {
        u.hits = 0;
    }
    count_loss(&mut r.st, uid, lost);
    if gone {
        destroyed(r, uid);
    }
    lost
}

/// Which bases a composite unit loses: the kind its owner chose first (`state`, `loses_first`),
/// otherwise its pike, then its shot, screen and attached bases (D5).
pub(super) fn remove_bases(u: &mut UnitState, n: u32) {
    for _ in 0..n {
        let chosen = match u.lose_first.as_deref() {
            Some("screen") if u.screen > 0 => {
                u.screen -= 1;
                true
            }
            Some("special") if u.special.is_some() => {
                u.special = None;
                true
            }
            Some("halberd") if u.halberd => {
                u.halberd = false;
                true
            }
            Some("shot") if u.shot > 0 => {
                u.shot -= 1;
                true
            }
            _ => false,
        };
        if chosen || u.pike_main() > 0 {
        } else if u.shot > 0 {
            u.shot -= 1;
        } else if u.screen > 0 {
            u.screen -= 1;
        } else if u.special.is_some() {
            u.special = None;
        } else if u.halberd {
            u.halberd = false;
        }
        u.bases = u.bases.saturating_sub(1);
    }
}

pub(super) fn destroyed(r: &mut Res, uid: &str) {
    let name = r.st.unit(uid).map(|u| u.name.clone()).unwrap_or_default();
    if let Some(u) = r.st.unit_mut(uid) {
        u.status = Status::Lost;
        u.counted = true;
    }
    r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
    // A commander with a destroyed unit is left alone (project design, as ECW's D).
    for c in r.st.commanders.iter_mut() {
        if c.unit.as_deref() == Some(uid) {
            c.unit = None;
        }
    }
    let msg = m("callan.unit.destroyed", &[("unit", name)]);
    r.note(msg.clone());
    r.say(msg);
}

/// A unit flees (D44) — pike retire and are removed instead (D45).
pub(super) fn flee(r: &mut Res, uid: &str) {
    let Some(u) = r.st.unit(uid) else { return };
    let name = u.name.clone();
    let pike = u.troop == Troop::Picchieri;
    let left = u.bases;
    if r.st.cfg.flight_counts_at_once || pike {
        count_loss(&mut r.st, uid, left);
        if let Some(u) = r.st.unit_mut(uid) {
            u.counted = true;
        }
    }
    if let Some(u) = r.st.unit_mut(uid) {
        u.status = if pike { Status::Lost } else { Status::Fleeing };
        u.activated = true;
    }
    if pike {
        for c in r.st.commanders.iter_mut() {
            if c.unit.as_deref() == Some(uid) {
                c.unit = None;
            }
        }
    }
    r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
    let bw = r.st.cfg.retire_bw;
    let msg = m(
        if pike {
            "callan.unit.pike-removed"
        } else {
            "callan.unit.flees"
        },
        &[
            ("unit", name.clone()),
            ("bw", bw.to_string()),
            ("cm", r.st.cm(bw).to_string()),
        ],
    );
    r.note(msg.clone());
    r.say(msg);
    // Friends that see it flee test (trigger b); pike retiring to be removed count as fleeing
    // (D45). The players say which units are within 4 BW.
    r.step(
        k("callan.step.panic"),
        m("callan.flee.friends-test", &[("unit", name)]),
    );
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum After {
    /// Fire, or a drawn round: exhausted units retire (D43).
    Retire,
    Won,
    Lost,
}

/// Heavy losses after a volley or a round (§8.1).
pub(super) fn heavy_losses(r: &mut Res, uid: &str, after: After) {
    let Some(u) = r.st.unit(uid) else { return };
    if !matches!(u.status, Status::Ok) || !u.exhausted() {
        if u.status == Status::Ok && u.half() && u.lost_bases() > 0 {
            let name = u.name.clone();
            r.step(
                k("callan.step.heavy"),
                m("callan.heavy.half", &[("unit", name)]),
            );
        }
        return;
    }
    let name = u.name.clone();
    match after {
        After::Won => r.step(
            k("callan.step.heavy"),
            m("callan.heavy.hold", &[("unit", name)]),
        ),
        After::Retire => {
            if let Some(u) = r.st.unit_mut(uid) {
                u.status = Status::Retiring;
            }
            r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
            let bw = r.st.cfg.retire_bw;
            let msg = m(
                "callan.heavy.retire",
                &[
                    ("unit", name),
                    ("bw", bw.to_string()),
                    ("cm", r.st.cm(bw).to_string()),
                ],
            );
            r.step(k("callan.step.heavy"), msg.clone());
            r.say(msg);
        }
        After::Lost => flee(r, uid),
    }
}

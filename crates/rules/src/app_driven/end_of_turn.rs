//! The end of the turn: the simultaneous fire of the units that have not acted (with the Swiss
//! Pikemen's Ferocious Charges before it, El Gran Capitán), camps sacked, and the army break check.

use std::collections::BTreeMap;
use std::sync::Arc;
use tercio_i18n::{clip, keys, msg, plain};

use tercio_core::Plan;

use super::action::FormFire;
use super::actions::{self, Ctx};
use super::fold::apply_effect;
use super::game::{break_points, not_now, rej, swiss_to_charge, unit_named};
use super::model::*;
use super::resolve::Acc;
use super::tables::Charts;
use crate::interface::Rejection;

pub(super) fn end_fire(
    ch: &Arc<Charts>,
    egc: bool,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    if st.phase != Phase::EndOfTurn {
        return Err(not_now(
            "wrong-phase",
            Some("action"),
            msg(
                keys::APP_DRIVEN_REJECT_END_INITIATIVES_FIRST,
                &[("end", "@app_driven.action.end-initiatives")],
            ),
        ));
    }
    if st.end_fire_done {
        return Err(rej(
            "end-fire-done",
            Some("action"),
            msg(
                keys::APP_DRIVEN_REJECT_FIRE_DONE,
                &[("end_turn", "@app_driven.action.end-turn")],
            ),
        ));
    }
    if !egc && req.swiss_without_targets.is_some() {
        return Err(rej(
            "field-not-used",
            Some("swiss_without_targets"),
            msg(keys::APP_DRIVEN_REJECT_EGC_ONLY, &[]),
        ));
    }
    if egc {
        let confirmed = req.swiss_without_targets.clone().unwrap_or_default();
        for (i, id) in confirmed.iter().enumerate() {
            if st.unit(id).is_none_or(|u| u.troop != "swiss-pike") {
                return Err(rej(
                    "not-swiss",
                    Some(&format!("swiss_without_targets[{i}]")),
                    msg(
                        keys::APP_DRIVEN_REJECT_NOT_SWISS_UNIT,
                        &[("id", plain(&clip(id)).as_ref())],
                    ),
                ));
            }
        }
        let pending: Vec<&str> = swiss_to_charge(st)
            .into_iter()
            .filter(|u| !confirmed.contains(&u.id))
            .map(|u| u.id.as_str())
            .collect();
        if !pending.is_empty() {
            return Err(rej(
                "ferocious-charges-pending",
                Some("swiss_without_targets"),
                msg(
                    keys::APP_DRIVEN_REJECT_SWISS_FIRST,
                    &[
                        ("units", &pending.join(", ")),
                        ("ferocious", "@app_driven.field.ferocious"),
                    ],
                ),
            ));
        }
    }
    let fires = req.fires.clone().unwrap_or_default();
    let ctx = Ctx {
        ch,
        egc,
        state: Some(st),
    };
    let mut plans = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut bases_used: BTreeMap<String, u32> = BTreeMap::new();
    for (i, f) in fires.iter().enumerate() {
        if f.action != ActionKind::Fire {
            return Err(rej(
                "not-fire",
                Some(&format!("fires[{i}].action")),
                msg(keys::APP_DRIVEN_REJECT_NOT_FIRE, &[]),
            ));
        }
        // A unit's second target is another fire of the list (or the form's `split.<unit>`).
        if f.second_target.is_some() {
            return Err(rej(
                "field-not-used",
                Some(&format!("fires[{i}].second_target")),
                msg(keys::APP_DRIVEN_REJECT_END_FIRE_SECOND_TARGET, &[]),
            ));
        }
        let Some(UnitRef::Id(id)) = &f.actor else {
            return Err(rej(
                "missing-field",
                Some(&format!("fires[{i}].actor")),
                msg(keys::APP_DRIVEN_REJECT_NAME_FIRING_UNIT, &[]),
            ));
        };
        let u = unit_named(st, &format!("fires[{i}].actor"), id)?;
        if u.acted {
            return Err(not_now(
                "already-acted",
                Some(&format!("fires[{i}].actor")),
                msg(keys::APP_DRIVEN_REJECT_ALREADY_ACTED, &[("unit", &u.name)]),
            ));
        }
        // A unit may split its fire between targets, base by base, but no base fires twice.
        // (A single fire's own bases, 1 to the unit's, are checked with the fire.)
        let left = u32::from(u.bases.saturating_sub(u.lost));
        let used = bases_used.entry(id.clone()).or_default();
        let firing = f.firing_bases.map_or(left, u32::from);
        if *used > 0 && *used + firing > left {
            return Err(rej(
                "bad-firing-bases",
                Some(&format!("fires[{i}].firing_bases")),
                msg(
                    keys::APP_DRIVEN_REJECT_FIRE_BASES_ONCE,
                    &[
                        ("unit", &u.name),
                        ("bases", &left.to_string()),
                        ("used", &used.to_string()),
                        ("firing", &firing.to_string()),
                    ],
                ),
            ));
        }
        *used += firing;
        if !seen.insert((id.clone(), format!("{:?}", f.target))) {
            return Err(rej(
                "duplicate-fire",
                Some(&format!("fires[{i}]")),
                msg(keys::APP_DRIVEN_REJECT_DUPLICATE_FIRE, &[]),
            ));
        }
        let p = actions::plan(&ctx, f).map_err(|mut r| {
            r.field = Some(format!("fires[{i}].{}", r.field.unwrap_or_default()));
            r
        })?;
        plans.push(p);
    }
    // Simultaneous: every fire is rolled against the units as they were; the levels each unit
    // loses are added up and applied once, afterwards (`combine_simultaneous`).
    let mut plan: Plan<Vec<Acc>> = Plan::Done(Vec::new());
    for p in plans {
        plan = plan.and_then(move |v| {
            p.clone().map(move |a| {
                let mut v = v.clone();
                v.push(a);
                v
            })
        });
    }
    let st = st.clone();
    Ok(plan.map(move |parts| combine_simultaneous(&st, parts)))
}

/// The end-of-turn form's fields, unit by unit, as a whole: a unit's bases and second target
/// need its first target, the second target is another unit and comes with its own bases, and
/// the second target's fields need it. Each refusal names the form's field.
pub(super) fn check_form(form: &[FormFire], st: &GameState) -> Result<(), Rejection> {
    for f in form {
        let name = st.unit(&f.unit).map_or_else(
            || tercio_i18n::plain(&f.unit).into_owned(),
            |u| u.name.clone(),
        );
        let field = |prefix: &str| format!("{prefix}.{}", f.unit);
        let not_used = |prefix: &str, key: &str| {
            Err(rej(
                "field-not-used",
                Some(&field(prefix)),
                msg(key, &[("unit", &name)]),
            ))
        };
        let Some(target) = &f.target else {
            if f.bases.is_some() {
                return not_used("bases", keys::APP_DRIVEN_REJECT_FIRE_NEEDS_TARGET);
            }
            if f.split.is_some() {
                return not_used("split", keys::APP_DRIVEN_REJECT_FIRE_NEEDS_TARGET);
            }
            continue;
        };
        match &f.split {
            Some(second) if second == target => {
                return Err(rej(
                    "duplicate-fire",
                    Some(&field("split")),
                    msg(
                        keys::APP_DRIVEN_REJECT_SPLIT_SAME_TARGET,
                        &[("unit", &name)],
                    ),
                ));
            }
            Some(_) if f.split_bases.is_none() => {
                return Err(rej(
                    "missing-field",
                    Some(&field("split-bases")),
                    msg(
                        keys::APP_DRIVEN_REJECT_SPLIT_NEEDS_BASES,
                        &[("unit", &name)],
                    ),
                ));
            }
            Some(_) => {}
            None if f.split_bases.is_some() => {
                return not_used("split-bases", keys::APP_DRIVEN_REJECT_SPLIT_NEEDS_TARGET);
            }
            None if f.split_ground.is_some() => {
                return not_used("split-ground", keys::APP_DRIVEN_REJECT_SPLIT_NEEDS_TARGET);
            }
            None => {}
        }
    }
    Ok(())
}

/// The rung of a unit on the status ladder: OK 0, Disordered 1, Demoralized 2, then one per base.
fn rung(status: Status, lost: u8) -> u8 {
    let s = match status {
        Status::Ok => 0,
        Status::Disordered => 1,
        Status::Demoralized => 2,
    };
    s + lost
}

/// Combine simultaneous fire: every fire was rolled against the units as they stood; the levels
/// that several fires take from one unit add up, and are applied to it once, at the end.
fn combine_simultaneous(st: &GameState, parts: Vec<Acc>) -> Acc {
    let mut acc = Acc::default();
    let mut levels: BTreeMap<String, u8> = BTreeMap::new();
    for p in parts {
        acc.steps.extend(p.steps);
        acc.summary.extend(p.summary);
        let _ = p.facets;
        for e in p.effects {
            match &e {
                Effect::Unit {
                    unit, status, lost, ..
                } => {
                    if let Some(u) = st.unit(unit) {
                        let lost_now = rung(*status, *lost).saturating_sub(rung(u.status, u.lost));
                        *levels.entry(unit.clone()).or_default() += lost_now;
                    }
                }
                _ => acc.effects.push(e),
            }
        }
    }
    if acc.steps.is_empty() {
        acc.steps.push(super::resolve::told(
            msg(keys::APP_DRIVEN_STEP_END_FIRE, &[]),
            msg(keys::APP_DRIVEN_RESULT_NO_UNIT_FIRES, &[]),
        ));
        acc.summary
            .push(msg(keys::APP_DRIVEN_SUMMARY_NO_END_FIRE, &[]));
    }
    let mut lines = Vec::new();
    for (unit, l) in levels {
        let Some(u) = st.unit(&unit) else {
            continue;
        };
        let c = lose_levels(u.cond(), u.bases, l, false);
        // The odds of simultaneous fire are per target, on the combined result.
        acc.facets.push((
            msg(keys::APP_DRIVEN_FACET_LEVELS_LOST, &[("unit", &u.name)]),
            l.to_string(),
        ));
        acc.facets.push((
            msg(keys::APP_DRIVEN_FACET_DESTROYED, &[("unit", &u.name)]),
            crate::app_driven::resolve::yes(c.destroyed),
        ));
        if l > 0 {
            lines.push(msg(
                keys::APP_DRIVEN_RESULT_LOSES_IN_ALL,
                &[
                    ("unit", &u.name),
                    ("count", &l.to_string()),
                    ("cond", &c.describe(u.bases)),
                ],
            ));
        }
        acc.effects.push(Effect::Unit {
            unit,
            status: c.status,
            lost: c.lost,
            destroyed: c.destroyed,
            uncounted: false,
        });
    }
    if !lines.is_empty() {
        let text = lines.join("; ");
        acc.steps.push(super::resolve::told(
            msg(keys::APP_DRIVEN_STEP_SIMULTANEOUS, &[]),
            text.clone(),
        ));
        acc.summary = vec![text];
    }
    acc.effects.push(Effect::EndFireDone);
    acc
}

pub(super) fn end_turn(
    ch: &Arc<Charts>,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    if st.phase != Phase::EndOfTurn {
        return Err(not_now(
            "wrong-phase",
            Some("action"),
            msg(
                keys::APP_DRIVEN_REJECT_END_INITIATIVES_FIRST,
                &[("end", "@app_driven.action.end-initiatives")],
            ),
        ));
    }
    if !st.end_fire_done {
        return Err(rej(
            "end-fire-first",
            Some("action"),
            msg(
                keys::APP_DRIVEN_REJECT_END_FIRE_FIRST,
                &[("end_fire", "@app_driven.action.end-fire")],
            ),
        ));
    }
    let mut acc = Acc::default();
    let mut after = st.clone();
    let sacked = req.camps_sacked.clone().unwrap_or_default();
    for (i, c) in sacked.iter().enumerate() {
        if sacked[..i].iter().any(|o| o.side == c.side) {
            return Err(rej(
                "duplicate-camp",
                Some(&format!("camps_sacked[{i}].side")),
                msg(keys::APP_DRIVEN_REJECT_CAMP_ONCE, &[]),
            ));
        }
    }
    for (i, c) in req
        .camps_sacked
        .clone()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let f = format!("camps_sacked[{i}]");
        let side = st.sides.iter().find(|s| s.id == c.side).ok_or_else(|| {
            rej(
                "unknown-side",
                Some(&format!("{f}.side")),
                msg(
                    keys::APP_DRIVEN_REJECT_NO_SIDE,
                    &[("id", plain(&clip(&c.side)).as_ref())],
                ),
            )
        })?;
        if !side.camp || side.camp_sacked {
            return Err(rej(
                "no-camp",
                Some(&format!("{f}.side")),
                msg(keys::APP_DRIVEN_REJECT_NO_CAMP, &[("side", &side.name)]),
            ));
        }
        if c.by.is_empty() {
            return Err(rej(
                "missing-field",
                Some(&format!("{f}.by")),
                msg(keys::APP_DRIVEN_REJECT_NAME_SACKERS, &[]),
            ));
        }
        let mut looters = Vec::new();
        for (j, uid) in c.by.iter().enumerate() {
            let u = unit_named(st, &format!("{f}.by[{j}]"), uid)?;
            if u.side == c.side || u.destroyed {
                return Err(rej(
                    "bad-looter",
                    Some(&format!("{f}.by[{j}]")),
                    msg(keys::APP_DRIVEN_REJECT_BAD_LOOTER, &[("unit", &u.name)]),
                ));
            }
            if !u.in_combat_with.is_empty() {
                return Err(rej(
                    "looter-in-combat",
                    Some(&format!("{f}.by[{j}]")),
                    msg(
                        keys::APP_DRIVEN_REJECT_LOOTER_IN_COMBAT,
                        &[("unit", &u.name)],
                    ),
                ));
            }
            let s = sack_loot(u.status);
            acc.effects.push(Effect::Unit {
                unit: uid.clone(),
                status: s,
                lost: u.lost,
                destroyed: false,
                uncounted: false,
            });
            looters.push(msg(
                keys::APP_DRIVEN_RESULT_LOOTER,
                &[("unit", &u.name), ("status", &s.title())],
            ));
        }
        acc.effects.push(Effect::CampSacked {
            side: c.side.clone(),
        });
        let text = msg(
            keys::APP_DRIVEN_RESULT_CAMP_SACKED,
            &[("side", &side.name), ("looters", &looters.join(", "))],
        );
        acc.steps.push(super::resolve::told(
            msg(keys::APP_DRIVEN_STEP_CAMP_SACKED, &[]),
            text.clone(),
        ));
        acc.summary.push(text);
    }
    for e in &acc.effects {
        apply_effect(&mut after, e);
    }
    let mut broken = Vec::new();
    let mut lines = Vec::new();
    for s in &st.sides {
        let (lost, bp) = break_points(ch, &after, &s.id);
        lines.push(msg(
            keys::APP_DRIVEN_RESULT_ARMY_LOST,
            &[
                ("side", &s.name),
                ("lost", &lost.to_string()),
                ("bp", &bp.to_string()),
            ],
        ));
        if lost >= bp {
            broken.push(s.id.clone());
        }
    }
    let verdict = match broken.len() {
        0 => msg(
            keys::APP_DRIVEN_RESULT_NO_BREAK,
            &[("turn", &(st.turn + 1).to_string())],
        ),
        1 => msg(
            keys::APP_DRIVEN_RESULT_BROKEN,
            &[(
                "side",
                st.sides
                    .iter()
                    .find(|s| s.id == broken[0])
                    .map_or("?", |s| s.name.as_str()),
            )],
        ),
        _ => msg(keys::APP_DRIVEN_RESULT_BOTH_BREAK, &[]),
    };
    acc.steps.push(super::resolve::told(
        msg(
            keys::APP_DRIVEN_STEP_BREAK_CHECK,
            &[("turn", &st.turn.to_string())],
        ),
        msg(
            keys::APP_DRIVEN_RESULT_BREAK_CHECK,
            &[("lines", &lines.join("; ")), ("verdict", &verdict)],
        ),
    ));
    // A scenario's units that leave at the start of the next turn (`leaves-N`), uncounted: said
    // before the verdict.
    if broken.is_empty() {
        let next = st.turn + 1;
        for u in after
            .units
            .values()
            .filter(|u| !u.destroyed && u.leaves() == Some(next))
        {
            let text = msg(
                keys::APP_DRIVEN_RESULT_LEAVES,
                &[("unit", &u.name), ("turn", &next.to_string())],
            );
            acc.steps.push(super::resolve::told(
                msg(keys::APP_DRIVEN_STEP_REMOVE, &[("unit", &u.name)]),
                text.clone(),
            ));
            acc.summary.push(text);
            acc.effects.extend(super::game::leave_uncounted(&after, u));
        }
    }
    acc.summary.push(verdict);
    acc.effects.push(Effect::TurnEnded { broken });
    Ok(Plan::Done(acc))
}

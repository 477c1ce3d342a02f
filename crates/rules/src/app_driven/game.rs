//! The game: initial state from a scenario, the turn sequence, activations, end-of-turn fire,
//! camps, break points, and the fold of effects into state.
//!
//! The turn sequence is reconstructed (the seeds' list is missing; see the rule docs):
//! 1. Command phase: an Initiative roll (a D6 each side, ties to the side that did not have the
//!    last one) decides which side gives the next initiative to one of its leaders who has not
//!    had one this turn; that leader rolls Command for activations (+ bonus) and activates units
//!    under command, once each. Repeat until no leader is left.
//! 2. When every leader has had an initiative (or the game master ends the phase): the end of
//!    the turn. EGC: Ferocious Swiss Charges by Swiss Pikemen that have not acted; then the
//!    simultaneous fire of units that have not acted; camps sacked; the army break check.

use std::sync::Arc;

use tercio_core::Plan;
use tercio_i18n::{clip, keys, msg, plain};

use super::actions::{self, Ctx};
use super::end_of_turn;
pub use super::fold::{apply_effect, render};
use super::model::*;
use super::resolve::{self, Acc};
use super::tables::Charts;
use crate::interface::scenario::{Rank, Role, Scenario};
use crate::interface::Rejection;

pub(super) fn rej(code: &str, field: Option<&str>, msg: impl Into<String>) -> Rejection {
    Rejection::new(code, field, msg)
}

/// The leader of the game with id `id`, named in `field`; refused as unknown otherwise.
pub(super) fn leader_named<'s>(
    st: &'s GameState,
    field: &str,
    id: &str,
) -> Result<&'s std::sync::Arc<LeaderState>, Rejection> {
    st.leader(id).ok_or_else(|| {
        rej(
            "unknown-leader",
            Some(field),
            msg(
                keys::APP_DRIVEN_REJECT_NO_LEADER,
                &[("id", plain(&clip(id)).as_ref())],
            ),
        )
    })
}

/// The unit of the game with id `id`, named in `field`; refused as unknown otherwise.
pub(super) fn unit_named<'s>(
    st: &'s GameState,
    field: &str,
    id: &str,
) -> Result<&'s std::sync::Arc<UnitState>, Rejection> {
    st.unit(id).ok_or_else(|| {
        rej(
            "unknown-unit",
            Some(field),
            msg(
                keys::APP_DRIVEN_REJECT_NO_UNIT,
                &[("id", plain(&clip(id)).as_ref())],
            ),
        )
    })
}

/// A refusal the turn will lift (another step, another leader's activation, a unit that has
/// acted): the action's odds can still be shown.
pub(super) fn not_now(code: &str, field: Option<&str>, msg: impl Into<String>) -> Rejection {
    Rejection::new(code, field, msg).not_now()
}

pub fn initial_state(sc: &Scenario) -> GameState {
    GameState {
        turn: 1,
        phase: Phase::Command,
        sides: sc
            .sides
            .iter()
            .map(|s| SideState {
                id: s.id.clone(),
                name: s.name.message().into_owned(),
                attacker: s.role == Role::Attacker,
                camp: s.camp,
                camp_sacked: false,
                broken: false,
            })
            .collect(),
        leaders: sc
            .leaders
            .iter()
            .map(|l| {
                (
                    l.id.as_str().into(),
                    Arc::new(LeaderState {
                        id: l.id.clone(),
                        name: l.name.message().into_owned(),
                        side: l.side.clone(),
                        army: l.rank == Rank::Army,
                        bonus: l.bonus,
                        fate: None,
                        had_initiative: false,
                        caught_up: false,
                        fought: false,
                        attached_to: None,
                        inherited: vec![],
                    }),
                )
            })
            .collect(),
        units: sc
            .units
            .iter()
            .map(|u| {
                (
                    u.id.as_str().into(),
                    Arc::new(UnitState {
                        id: u.id.clone(),
                        name: u.name.message().into_owned(),
                        side: u.side.clone(),
                        troop: u.troop.clone(),
                        bases: u.bases,
                        commander: u.leader.clone(),
                        status: Status::Ok,
                        lost: 0,
                        destroyed: false,
                        uncounted: false,
                        acted: false,
                        march: false,
                        stakes_planted: false,
                        stakes_used: false,
                        in_combat_with: Default::default(),
                        flags: u.flags.clone(),
                        nationality: u.nationality.clone(),
                    }),
                )
            })
            .collect(),
        initiative_side: None,
        last_initiative_side: None,
        current: None,
        broken: vec![],
        end_fire_done: false,
    }
}

/// Does leader `l` command unit `u` (directly, as army commander, or by inherited command)?
pub fn commands(st: &GameState, l: &LeaderState, u: &UnitState) -> bool {
    if l.fate.is_some() || l.side != u.side {
        return false;
    }
    covers(st, l, &u.commander, st.leaders.len())
}

/// Does `l`'s command cover the battle of `commander`: his own, the whole army, or, through
/// command passed from fallen leaders (and from theirs in turn), theirs?
fn covers(st: &GameState, l: &LeaderState, commander: &str, depth: usize) -> bool {
    if l.army || l.id == commander {
        return true;
    }
    depth > 0
        && l.inherited
            .iter()
            .filter_map(|x| st.leader(x))
            .any(|d| covers(st, d, commander, depth - 1))
}

/// Leaders that may still be given an initiative this turn.
pub fn eligible_leaders<'a>(st: &'a GameState, side: &str) -> Vec<&'a LeaderState> {
    st.leaders
        .values()
        .filter(|l| l.side == side && l.fate.is_none() && !l.had_initiative && !l.caught_up)
        .map(|l| &**l)
        .collect()
}

/// Swiss Pikemen that must still make their Ferocious Charge this turn (EGC): not destroyed, not
/// acted, not already in a combat.
pub fn swiss_to_charge(st: &GameState) -> Vec<&UnitState> {
    st.units
        .values()
        .map(|u| &**u)
        .filter(|u| {
            u.troop == "swiss-pike" && !u.destroyed && !u.acted && u.in_combat_with.is_empty()
        })
        .collect()
}

/// Break points of a side (both seeds, 'Break Point'): points lost and the break point.
pub fn break_points(ch: &Charts, st: &GameState, side: &str) -> (u32, u32) {
    let s = st.sides.iter().find(|x| x.id == side);
    let units = st.units.values().filter(|u| u.side == side);
    let bp = units.clone().count() as u32 + u32::from(s.is_some_and(|s| s.camp));
    let mut lost = 0u32;
    for u in units {
        if u.destroyed && !u.uncounted {
            lost += u32::from(ch.troop(&u.troop).map_or(0, |t| t.break_points));
        } else if !u.destroyed && u.status == Status::Demoralized {
            lost += u32::from(ch.bp_demoralized);
        }
    }
    for l in st
        .leaders
        .values()
        .filter(|l| l.side == side && l.fate.is_some())
    {
        lost += u32::from(if l.army {
            ch.bp_army_commander
        } else {
            ch.bp_battle_commander
        });
    }
    if s.is_some_and(|s| s.camp_sacked) {
        lost += u32::from(ch.bp_camp);
    }
    (lost, bp)
}

/// Plan any action against a game state: turn actions here, unit actions through `actions`,
/// wrapped with the activation they use.
pub fn plan(
    ch: &Arc<Charts>,
    egc: bool,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    actions::check_fields(req)?;
    if st.phase == Phase::Over {
        return Err(rej(
            "game-over",
            None,
            msg(keys::APP_DRIVEN_REJECT_GAME_OVER, &[]),
        ));
    }
    let acc = Acc::default();
    match req.action {
        ActionKind::Initiative => {
            if st.phase != Phase::Command {
                return Err(not_now(
                    "wrong-phase",
                    Some("action"),
                    msg(keys::APP_DRIVEN_REJECT_INITIATIVES_OVER, &[]),
                ));
            }
            if let (Some(side), None) = (&st.initiative_side, &st.current) {
                let name = st
                    .sides
                    .iter()
                    .find(|x| &x.id == side)
                    .map_or(side.as_str(), |x| x.name.as_str());
                return Err(rej(
                    "initiative-pending",
                    Some("action"),
                    msg(
                        keys::APP_DRIVEN_REJECT_INITIATIVE_PENDING,
                        &[("side", name), ("command", "@app_driven.action.command")],
                    ),
                ));
            }
            let att = st.sides.iter().find(|s| s.attacker).ok_or_else(|| {
                rej(
                    "no-attacker",
                    None,
                    msg(keys::APP_DRIVEN_REJECT_NO_ATTACKER, &[]),
                )
            })?;
            let def = st.sides.iter().find(|s| !s.attacker).ok_or_else(|| {
                rej(
                    "no-defender",
                    None,
                    msg(keys::APP_DRIVEN_REJECT_NO_DEFENDER, &[]),
                )
            })?;
            let a_ok = !eligible_leaders(st, &att.id).is_empty();
            let d_ok = !eligible_leaders(st, &def.id).is_empty();
            match (a_ok, d_ok) {
                (false, false) => Err(rej(
                    "no-leaders-left",
                    Some("action"),
                    msg(
                        keys::APP_DRIVEN_REJECT_NO_LEADERS_LEFT,
                        &[("end", "@app_driven.action.end-initiatives")],
                    ),
                )),
                (true, false) | (false, true) => {
                    let side = if a_ok { att } else { def };
                    let mut acc = acc;
                    let text = msg(
                        keys::APP_DRIVEN_RESULT_INITIATIVE_ALONE,
                        &[("side", &side.name)],
                    );
                    acc.steps.push(super::resolve::told(
                        msg(keys::APP_DRIVEN_ACTION_INITIATIVE, &[]),
                        text.clone(),
                    ));
                    acc.summary.push(text);
                    acc.effects.push(Effect::Initiative {
                        side: side.id.clone(),
                    });
                    Ok(Plan::Done(acc))
                }
                (true, true) => {
                    let tie_to = match &st.last_initiative_side {
                        Some(s) if s == &att.id => def.id.clone(),
                        Some(_) => att.id.clone(),
                        None => att.id.clone(),
                    };
                    Ok(resolve::initiative(
                        acc,
                        (att.id.clone(), att.name.clone()),
                        (def.id.clone(), def.name.clone()),
                        tie_to,
                    ))
                }
            }
        }
        ActionKind::Command => {
            let lid = req.leader.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_NAME_INITIATIVE_LEADER, &[]),
                )
            })?;
            let l = leader_named(st, "leader", &lid)?;
            let side = st.initiative_side.clone().ok_or_else(|| {
                rej(
                    "no-initiative",
                    Some("action"),
                    msg(keys::APP_DRIVEN_REJECT_NO_INITIATIVE, &[]),
                )
            })?;
            if st.current.is_some() {
                return Err(rej(
                    "initiative-used",
                    Some("action"),
                    msg(keys::APP_DRIVEN_REJECT_INITIATIVE_USED, &[]),
                ));
            }
            if l.side != side {
                return Err(rej(
                    "wrong-side",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_WRONG_SIDE, &[("leader", &l.name)]),
                ));
            }
            if l.fate.is_some() {
                return Err(rej(
                    "leader-lost",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_LEADER_LOST, &[("leader", &l.name)]),
                ));
            }
            if l.had_initiative {
                return Err(rej(
                    "leader-used",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_LEADER_USED, &[("leader", &l.name)]),
                ));
            }
            if l.caught_up {
                return Err(rej(
                    "leader-caught-up",
                    Some("leader"),
                    msg(
                        keys::APP_DRIVEN_REJECT_LEADER_CAUGHT_UP,
                        &[("leader", &l.name)],
                    ),
                ));
            }
            Ok(resolve::command(
                ch,
                acc,
                LeaderSnap {
                    id: l.id.clone(),
                    name: l.name.clone(),
                    army: l.army,
                },
                l.bonus,
            ))
        }
        ActionKind::EndInitiatives => {
            if st.phase != Phase::Command {
                return Err(not_now(
                    "wrong-phase",
                    Some("action"),
                    msg(keys::APP_DRIVEN_REJECT_ALREADY_END, &[]),
                ));
            }
            let mut acc = acc;
            let swiss: Vec<String> = if egc {
                swiss_to_charge(st).iter().map(|u| u.name.clone()).collect()
            } else {
                Vec::new()
            };
            let steps = [
                ("end_fire", "@app_driven.action.end-fire"),
                ("end_turn", "@app_driven.action.end-turn"),
            ];
            let text = if swiss.is_empty() {
                msg(keys::APP_DRIVEN_RESULT_END_INITIATIVES, &steps)
            } else {
                let units = swiss.join(", ");
                let mut args = steps.to_vec();
                args.push(("units", &units));
                args.push(("ferocious", "@app_driven.field.ferocious"));
                msg(keys::APP_DRIVEN_RESULT_END_INITIATIVES_SWISS, &args)
            };
            acc.steps.push(super::resolve::told(
                msg(keys::APP_DRIVEN_STEP_END_INITIATIVES, &[]),
                text.clone(),
            ));
            acc.summary.push(text);
            acc.effects.push(Effect::Phase {
                phase: Phase::EndOfTurn,
            });
            Ok(Plan::Done(acc))
        }
        ActionKind::Attach => {
            let lid = req.leader.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_NAME_LEADER, &[]),
                )
            })?;
            let l = leader_named(st, "leader", &lid)?;
            if l.fate.is_some() {
                return Err(rej(
                    "leader-lost",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_LEADER_LOST, &[("leader", &l.name)]),
                ));
            }
            leader_may_move(st, l, req.unit.as_deref())?;
            if let Some(uid) = &req.unit {
                let u = unit_named(st, "unit", uid)?;
                if u.side != l.side || u.destroyed {
                    return Err(rej(
                        "bad-attach",
                        Some("unit"),
                        msg(
                            keys::APP_DRIVEN_REJECT_BAD_ATTACH,
                            &[("leader", &l.name), ("unit", &u.name)],
                        ),
                    ));
                }
            }
            let mut acc = acc;
            let text = match &req.unit {
                Some(u) => msg(
                    keys::APP_DRIVEN_RESULT_JOINS,
                    &[("leader", &l.name), ("unit", &st.units[u.as_str()].name)],
                ),
                None => msg(keys::APP_DRIVEN_RESULT_DETACHES, &[("leader", &l.name)]),
            };
            acc.steps.push(super::resolve::told(
                msg(keys::APP_DRIVEN_STEP_LEADER, &[]),
                text.clone(),
            ));
            acc.summary.push(text);
            acc.effects.push(Effect::LeaderAttached {
                leader: lid,
                unit: req.unit.clone(),
            });
            Ok(Plan::Done(acc))
        }
        ActionKind::AssignCommand => {
            let from = req.leader.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_NAME_FALLEN, &[]),
                )
            })?;
            let to = req.to.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("to"),
                    msg(keys::APP_DRIVEN_REJECT_NAME_SUCCESSOR, &[]),
                )
            })?;
            let f = leader_named(st, "leader", &from)?;
            let t = leader_named(st, "to", &to)?;
            if f.fate.is_none() {
                return Err(rej(
                    "leader-alive",
                    Some("leader"),
                    msg(keys::APP_DRIVEN_REJECT_LEADER_ALIVE, &[("leader", &f.name)]),
                ));
            }
            if t.fate.is_some() || t.side != f.side {
                return Err(rej(
                    "bad-successor",
                    Some("to"),
                    msg(
                        keys::APP_DRIVEN_REJECT_BAD_SUCCESSOR,
                        &[("to", &t.name), ("from", &f.name)],
                    ),
                ));
            }
            if st.leaders.values().any(|l| l.inherited.contains(&from)) {
                return Err(rej(
                    "already-assigned",
                    Some("leader"),
                    msg(
                        keys::APP_DRIVEN_REJECT_ALREADY_ASSIGNED,
                        &[("leader", &f.name)],
                    ),
                ));
            }
            let mut acc = acc;
            let text = msg(
                keys::APP_DRIVEN_RESULT_COMMAND_PASSES,
                &[("to", &t.name), ("from", &f.name)],
            );
            acc.steps.push(super::resolve::told(
                msg(keys::APP_DRIVEN_STEP_COMMAND_PASSES, &[]),
                text.clone(),
            ));
            acc.summary.push(text);
            acc.effects.push(Effect::CommandAssigned { from, to });
            Ok(Plan::Done(acc))
        }
        ActionKind::EndFire => end_of_turn::end_fire(ch, egc, st, req),
        ActionKind::EndTurn => end_of_turn::end_turn(ch, st, req),
        ActionKind::Remove => {
            let uid = req.unit.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("unit"),
                    msg(keys::APP_DRIVEN_REJECT_NAME_UNIT, &[]),
                )
            })?;
            let u = st.unit(&uid).filter(|u| !u.destroyed).ok_or_else(|| {
                rej(
                    "unknown-unit",
                    Some("unit"),
                    msg(keys::APP_DRIVEN_REJECT_NOT_ON_TABLE, &[("unit", &uid)]),
                )
            })?;
            let mut acc = acc;
            let text = msg(keys::APP_DRIVEN_RESULT_REMOVED, &[("unit", &u.name)]);
            acc.steps.push(super::resolve::told(
                msg(keys::APP_DRIVEN_STEP_REMOVE, &[("unit", &u.name)]),
                text.clone(),
            ));
            acc.summary.push(text);
            acc.effects.extend(leave_uncounted(st, u));
            Ok(Plan::Done(acc))
        }
        _ => unit_action(ch, egc, st, req),
    }
}

/// May leader `l` move to `to` (a unit, or None to stand alone)? Not once involved in a Melee this
/// turn, nor away from a unit in an ongoing combat (both seeds, 'Leaders').
fn leader_may_move(st: &GameState, l: &LeaderState, to: Option<&str>) -> Result<(), Rejection> {
    if l.attached_to.as_deref() == to {
        return Ok(());
    }
    leader_may_leave(st, l)
}

/// May leader `l` leave where it stands now: not once involved in a Melee this turn, nor away
/// from a unit in an ongoing combat. The attach form offers only the leaders who may.
pub(super) fn leader_may_leave(st: &GameState, l: &LeaderState) -> Result<(), Rejection> {
    if l.fought {
        return Err(rej(
            "leader-fought",
            Some("leader"),
            msg(
                keys::APP_DRIVEN_REJECT_LEADER_FOUGHT,
                &[("leader", &l.name)],
            ),
        ));
    }
    if let Some(cur) = &l.attached_to {
        if st.unit(cur).is_some_and(|u| !u.in_combat_with.is_empty()) {
            return Err(rej(
                "leader-in-combat",
                Some("leader"),
                msg(
                    keys::APP_DRIVEN_REJECT_LEADER_IN_COMBAT,
                    &[("leader", &l.name)],
                ),
            ));
        }
    }
    Ok(())
}

/// The effects of a unit leaving the table uncounted (a `remove`, or a scenario's `leaves-N`):
/// gone, its break points not counted, out of its combats, its leaders standing alone.
pub(super) fn leave_uncounted(st: &GameState, u: &UnitState) -> Vec<Effect> {
    let mut out = vec![Effect::Unit {
        unit: u.id.clone(),
        status: u.status,
        lost: u.lost,
        destroyed: true,
        uncounted: true,
    }];
    out.extend(u.in_combat_with.iter().map(|b| Effect::CombatLeft {
        a: u.id.clone(),
        b: b.clone(),
    }));
    out.extend(
        st.leaders
            .values()
            .filter(|l| l.attached_to.as_deref() == Some(u.id.as_str()))
            .map(|l| Effect::LeaderAttached {
                leader: l.id.clone(),
                unit: None,
            }),
    );
    out
}

fn unit_action(
    ch: &Arc<Charts>,
    egc: bool,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    let actor_id = match &req.actor {
        Some(UnitRef::Id(id)) => id.clone(),
        Some(UnitRef::Inline(_)) => {
            return Err(rej(
                "inline-unit-in-game",
                Some("actor"),
                msg(keys::APP_DRIVEN_REJECT_UNIT_BY_ID, &[]),
            ))
        }
        None => {
            return Err(rej(
                "missing-field",
                Some("actor"),
                msg(keys::APP_DRIVEN_REJECT_REQUIRED, &[("field", "actor")]),
            ))
        }
    };
    let u = unit_named(st, "actor", &actor_id)?;
    if u.destroyed {
        return Err(rej(
            "unit-destroyed",
            Some("actor"),
            msg(keys::APP_DRIVEN_REJECT_DESTROYED, &[("unit", &u.name)]),
        ));
    }
    // A scenario's late arrival is not on the table yet, as actor or target.
    let named = |r: &Option<UnitRef>| match r {
        Some(UnitRef::Id(t)) => st.unit(t),
        _ => None,
    };
    for (field, x) in [
        ("actor", Some(u)),
        ("target", named(&req.target)),
        ("second_target", named(&req.second_target)),
    ] {
        if let Some(turn) = x.and_then(|x| x.arrives()).filter(|&t| st.turn < t) {
            let x = x.map_or("", |x| x.name.as_str());
            return Err(not_now(
                "not-arrived",
                Some(field),
                msg(
                    keys::APP_DRIVEN_REJECT_NOT_ARRIVED,
                    &[("unit", x), ("turn", &turn.to_string())],
                ),
            ));
        }
    }
    if u.acted {
        return Err(not_now(
            "already-acted",
            Some("actor"),
            msg(keys::APP_DRIVEN_REJECT_ALREADY_ACTED, &[("unit", &u.name)]),
        ));
    }
    let ferocious = req.ferocious == Some(true);
    let mut pre = Vec::new();
    match st.phase {
        Phase::Command => {
            if ferocious {
                return Err(not_now(
                    "wrong-phase",
                    Some("ferocious"),
                    msg(
                        keys::APP_DRIVEN_REJECT_FEROCIOUS_LATER,
                        &[("ferocious", "@app_driven.field.ferocious")],
                    ),
                ));
            }
            let cur = st.current.as_ref().ok_or_else(|| {
                not_now(
                    "no-activation",
                    Some("actor"),
                    msg(keys::APP_DRIVEN_REJECT_NO_ACTIVATION, &[]),
                )
            })?;
            let l = &st.leaders[cur.leader.as_str()];
            if !commands(st, l, u) {
                return Err(not_now(
                    "not-under-command",
                    Some("actor"),
                    msg(
                        keys::APP_DRIVEN_REJECT_NOT_UNDER_COMMAND,
                        &[("unit", &u.name), ("leader", &l.name)],
                    ),
                ));
            }
            if cur.activations_left == 0 {
                return Err(not_now(
                    "no-activations-left",
                    Some("actor"),
                    msg(
                        keys::APP_DRIVEN_REJECT_NO_ACTIVATIONS_LEFT,
                        &[("leader", &l.name)],
                    ),
                ));
            }
            pre.push(Effect::ActivationUsed {
                leader: l.id.clone(),
            });
        }
        Phase::EndOfTurn => {
            if st.end_fire_done {
                return Err(not_now(
                    "wrong-phase",
                    Some("action"),
                    msg(
                        keys::APP_DRIVEN_REJECT_FIRE_DONE,
                        &[("end_turn", "@app_driven.action.end-turn")],
                    ),
                ));
            }
            if !(ferocious && req.action == ActionKind::Charge) {
                return Err(not_now(
                    "wrong-phase",
                    Some("action"),
                    msg(
                        keys::APP_DRIVEN_REJECT_END_OF_TURN,
                        &[
                            ("ferocious", "@app_driven.field.ferocious"),
                            ("end_fire", "@app_driven.action.end-fire"),
                        ],
                    ),
                ));
            }
        }
        Phase::Over => unreachable!("checked by the caller"),
    }
    // A leader named in the action joins the unit.
    if let Some(LeaderField::Id(lid)) = &req.leader_with_actor {
        if let Some(l) = st
            .leader(lid)
            .filter(|l| l.attached_to.as_deref() != Some(&actor_id))
        {
            leader_may_move(st, l, Some(&actor_id)).map_err(|mut r| {
                r.field = Some("leader_with_actor".into());
                r
            })?;
            pre.push(Effect::LeaderAttached {
                leader: lid.clone(),
                unit: Some(actor_id.clone()),
            });
        }
    }
    let ctx = Ctx {
        ch,
        egc,
        state: Some(st),
    };
    let p = actions::plan(&ctx, req)?;
    Ok(p.map(move |mut acc| {
        let mut e = pre.clone();
        e.append(&mut acc.effects);
        acc.effects = e;
        acc
    }))
}

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

use std::collections::BTreeMap;

use tercio_core::{Plan, Step};

use super::actions::{self, Ctx};
use super::model::*;
use super::resolve::{self, Acc};
use super::tables::Charts;
use crate::interface::Rejection;
use crate::scenario::{Rank, Role, Scenario};

fn rej(code: &str, field: Option<&str>, msg: impl Into<String>) -> Rejection {
    Rejection::new(code, field, msg)
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
                name: s.name.clone(),
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
                    l.id.clone(),
                    LeaderState {
                        id: l.id.clone(),
                        name: l.name.clone(),
                        side: l.side.clone(),
                        army: l.rank == Rank::Army,
                        bonus: l.bonus,
                        fate: None,
                        had_initiative: false,
                        caught_up: false,
                        fought: false,
                        attached_to: None,
                        inherited: vec![],
                    },
                )
            })
            .collect(),
        units: sc
            .units
            .iter()
            .map(|u| {
                (
                    u.id.clone(),
                    UnitState {
                        id: u.id.clone(),
                        name: u.name.clone(),
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
                    },
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
            .filter_map(|x| st.leaders.get(x))
            .any(|d| covers(st, d, commander, depth - 1))
}

/// Leaders that may still be given an initiative this turn.
pub fn eligible_leaders<'a>(st: &'a GameState, side: &str) -> Vec<&'a LeaderState> {
    st.leaders
        .values()
        .filter(|l| l.side == side && l.fate.is_none() && !l.had_initiative && !l.caught_up)
        .collect()
}

/// Swiss Pikemen that must still make their Ferocious Charge this turn (EGC): not destroyed, not
/// acted, not already in a combat.
pub fn swiss_to_charge(st: &GameState) -> Vec<&UnitState> {
    st.units
        .values()
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
    ch: &'static Charts,
    egc: bool,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    actions::check_fields(req)?;
    if st.phase == Phase::Over {
        return Err(rej(
            "game-over",
            None,
            "the game is over: an army has broken",
        ));
    }
    let acc = Acc::default();
    match req.action {
        ActionKind::Initiative => {
            if st.phase != Phase::Command {
                return Err(rej(
                    "wrong-phase",
                    Some("action"),
                    "initiatives are over for this turn: end the turn",
                ));
            }
            if let (Some(side), None) = (&st.initiative_side, &st.current) {
                let name = st
                    .sides
                    .iter()
                    .find(|x| &x.id == side)
                    .map_or(side.as_str(), |x| x.name.as_str());
                return Err(rej("initiative-pending", Some("action"), format!("{name} holds the initiative: give it to one of its leaders (\"command\") before the next roll")));
            }
            let att = st
                .sides
                .iter()
                .find(|s| s.attacker)
                .ok_or_else(|| rej("no-attacker", None, "no attacker"))?;
            let def = st
                .sides
                .iter()
                .find(|s| !s.attacker)
                .ok_or_else(|| rej("no-defender", None, "no defender"))?;
            let a_ok = !eligible_leaders(st, &att.id).is_empty();
            let d_ok = !eligible_leaders(st, &def.id).is_empty();
            match (a_ok, d_ok) {
                (false, false) => Err(rej("no-leaders-left", Some("action"), "every leader has had the initiative this turn: end the initiatives (\"end-initiatives\")")),
                (true, false) | (false, true) => {
                    let side = if a_ok { att } else { def };
                    let mut acc = acc;
                    let text = format!("{} has the initiative (the other side has no leader left to take it)", side.name);
                    acc.steps.push(Step { title: "Initiative".into(), dice: vec![], modifiers: vec![], totals: vec![], result: text.clone() });
                    acc.summary.push(text);
                    acc.effects.push(Effect::Initiative { side: side.id.clone() });
                    Ok(Plan::Done(acc))
                }
                (true, true) => {
                    let tie_to = match &st.last_initiative_side {
                        Some(s) if s == &att.id => def.id.clone(),
                        Some(_) => att.id.clone(),
                        None => att.id.clone(),
                    };
                    Ok(resolve::initiative(acc, (att.id.clone(), att.name.clone()), (def.id.clone(), def.name.clone()), tie_to))
                }
            }
        }
        ActionKind::Command => {
            let lid = req.leader.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("leader"),
                    "name the leader given the initiative",
                )
            })?;
            let l = st.leaders.get(&lid).ok_or_else(|| {
                rej(
                    "unknown-leader",
                    Some("leader"),
                    format!("no leader \"{lid}\""),
                )
            })?;
            let side = st.initiative_side.clone().ok_or_else(|| {
                rej(
                    "no-initiative",
                    Some("action"),
                    "roll for the initiative first",
                )
            })?;
            if st.current.is_some() {
                return Err(rej(
                    "initiative-used",
                    Some("action"),
                    "this initiative already has its leader: roll the next initiative",
                ));
            }
            if l.side != side {
                return Err(rej(
                    "wrong-side",
                    Some("leader"),
                    format!("{} is not of the side holding the initiative", l.name),
                ));
            }
            if l.fate.is_some() {
                return Err(rej(
                    "leader-lost",
                    Some("leader"),
                    format!("{} has been killed or captured", l.name),
                ));
            }
            if l.had_initiative {
                return Err(rej(
                    "leader-used",
                    Some("leader"),
                    format!("{} has already had an initiative this turn", l.name),
                ));
            }
            if l.caught_up {
                return Err(rej(
                    "leader-caught-up",
                    Some("leader"),
                    format!(
                        "{} was caught up in a melee this turn and may not be given the initiative",
                        l.name
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
                return Err(rej(
                    "wrong-phase",
                    Some("action"),
                    "already at the end of the turn",
                ));
            }
            let mut acc = acc;
            let mut text = "End of the turn. ".to_string();
            if egc {
                let swiss: Vec<String> =
                    swiss_to_charge(st).iter().map(|u| u.name.clone()).collect();
                if !swiss.is_empty() {
                    text.push_str(&format!("Ferocious Swiss Charges: {} must charge any eligible enemy within 9\" (charge with \"ferocious\": true). ", swiss.join(", ")));
                }
            }
            text.push_str("Then the simultaneous fire of units that have not acted (\"end-fire\"), camps, and the break check (\"end-turn\").");
            acc.steps.push(Step {
                title: "End of initiatives".into(),
                dice: vec![],
                modifiers: vec![],
                totals: vec![],
                result: text.clone(),
            });
            acc.summary.push(text);
            acc.effects.push(Effect::Phase {
                phase: Phase::EndOfTurn,
            });
            Ok(Plan::Done(acc))
        }
        ActionKind::Attach => {
            let lid = req
                .leader
                .clone()
                .ok_or_else(|| rej("missing-field", Some("leader"), "name the leader"))?;
            let l = st.leaders.get(&lid).ok_or_else(|| {
                rej(
                    "unknown-leader",
                    Some("leader"),
                    format!("no leader \"{lid}\""),
                )
            })?;
            if l.fate.is_some() {
                return Err(rej(
                    "leader-lost",
                    Some("leader"),
                    format!("{} has been killed or captured", l.name),
                ));
            }
            leader_may_move(st, l, req.unit.as_deref())?;
            if let Some(uid) = &req.unit {
                let u = st.units.get(uid).ok_or_else(|| {
                    rej("unknown-unit", Some("unit"), format!("no unit \"{uid}\""))
                })?;
                if u.side != l.side || u.destroyed {
                    return Err(rej(
                        "bad-attach",
                        Some("unit"),
                        format!("{} cannot join {}", l.name, u.name),
                    ));
                }
            }
            let mut acc = acc;
            let text = match &req.unit {
                Some(u) => format!("{} joins {}", l.name, st.units[u].name),
                None => format!("{} detaches", l.name),
            };
            acc.steps.push(Step {
                title: "Leader".into(),
                dice: vec![],
                modifiers: vec![],
                totals: vec![],
                result: text.clone(),
            });
            acc.summary.push(text);
            acc.effects.push(Effect::LeaderAttached {
                leader: lid,
                unit: req.unit.clone(),
            });
            Ok(Plan::Done(acc))
        }
        ActionKind::AssignCommand => {
            let from = req
                .leader
                .clone()
                .ok_or_else(|| rej("missing-field", Some("leader"), "name the fallen leader"))?;
            let to = req.to.clone().ok_or_else(|| {
                rej(
                    "missing-field",
                    Some("to"),
                    "name the surviving leader who takes command",
                )
            })?;
            let f = st.leaders.get(&from).ok_or_else(|| {
                rej(
                    "unknown-leader",
                    Some("leader"),
                    format!("no leader \"{from}\""),
                )
            })?;
            let t = st
                .leaders
                .get(&to)
                .ok_or_else(|| rej("unknown-leader", Some("to"), format!("no leader \"{to}\"")))?;
            if f.fate.is_none() {
                return Err(rej(
                    "leader-alive",
                    Some("leader"),
                    format!("{} is still in command", f.name),
                ));
            }
            if t.fate.is_some() || t.side != f.side {
                return Err(rej(
                    "bad-successor",
                    Some("to"),
                    format!("{} cannot take over {}'s command", t.name, f.name),
                ));
            }
            if st.leaders.values().any(|l| l.inherited.contains(&from)) {
                return Err(rej(
                    "already-assigned",
                    Some("leader"),
                    format!("{}'s command has already been assigned", f.name),
                ));
            }
            let mut acc = acc;
            let text = format!("{} takes over the command of {}", t.name, f.name);
            acc.steps.push(Step {
                title: "Command passes".into(),
                dice: vec![],
                modifiers: vec![],
                totals: vec![],
                result: text.clone(),
            });
            acc.summary.push(text);
            acc.effects.push(Effect::CommandAssigned { from, to });
            Ok(Plan::Done(acc))
        }
        ActionKind::EndFire => end_fire(ch, egc, st, req),
        ActionKind::EndTurn => end_turn(ch, st, req),
        _ => unit_action(ch, egc, st, req),
    }
}

/// May leader `l` move to `to` (a unit, or None to stand alone)? Not once involved in a Melee this
/// turn, nor away from a unit in an ongoing combat (both seeds, 'Leaders').
fn leader_may_move(st: &GameState, l: &LeaderState, to: Option<&str>) -> Result<(), Rejection> {
    if l.attached_to.as_deref() == to {
        return Ok(());
    }
    if l.fought {
        return Err(rej(
            "leader-fought",
            Some("leader"),
            format!(
                "{} has been involved in a Melee this turn and may no longer move",
                l.name
            ),
        ));
    }
    if let Some(cur) = &l.attached_to {
        if st
            .units
            .get(cur)
            .is_some_and(|u| !u.in_combat_with.is_empty())
        {
            return Err(rej(
                "leader-in-combat",
                Some("leader"),
                format!(
                    "{} is with a unit in an ongoing combat and may not leave it",
                    l.name
                ),
            ));
        }
    }
    Ok(())
}

fn unit_action(
    ch: &'static Charts,
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
                "in a game, name units by their id",
            ))
        }
        None => {
            return Err(rej(
                "missing-field",
                Some("actor"),
                "the actor is required for this action",
            ))
        }
    };
    let u = st.units.get(&actor_id).ok_or_else(|| {
        rej(
            "unknown-unit",
            Some("actor"),
            format!("no unit \"{actor_id}\" in this game"),
        )
    })?;
    if u.destroyed {
        return Err(rej(
            "unit-destroyed",
            Some("actor"),
            format!("{} has been destroyed and can take no action", u.name),
        ));
    }
    if u.acted {
        return Err(rej(
            "already-acted",
            Some("actor"),
            format!("{} has already acted this turn", u.name),
        ));
    }
    let ferocious = req.ferocious == Some(true);
    let mut pre = Vec::new();
    match st.phase {
        Phase::Command => {
            if ferocious {
                return Err(rej(
                    "wrong-phase",
                    Some("ferocious"),
                    "Ferocious Swiss Charges come at the end of the turn, after the initiatives",
                ));
            }
            let cur = st.current.as_ref().ok_or_else(|| rej("no-activation", Some("actor"), "no leader holds an initiative: roll \"initiative\", then \"command\" for a leader"))?;
            let l = &st.leaders[&cur.leader];
            if !commands(st, l, u) {
                return Err(rej(
                    "not-under-command",
                    Some("actor"),
                    format!("{} is not under {}'s command", u.name, l.name),
                ));
            }
            if cur.activations_left == 0 {
                return Err(rej(
                    "no-activations-left",
                    Some("actor"),
                    format!(
                        "{} has no activations left: roll the next initiative",
                        l.name
                    ),
                ));
            }
            pre.push(Effect::ActivationUsed {
                leader: l.id.clone(),
            });
        }
        Phase::EndOfTurn => {
            if st.end_fire_done {
                return Err(rej("wrong-phase", Some("action"), "the end-of-turn fire has been made: only camps and the break check remain (\"end-turn\")"));
            }
            if !(ferocious && req.action == ActionKind::Charge) {
                return Err(rej("wrong-phase", Some("action"), "at the end of the turn only Ferocious Swiss Charges (\"charge\" with \"ferocious\": true) and the simultaneous fire (\"end-fire\") remain"));
            }
        }
        Phase::Over => unreachable!("checked by the caller"),
    }
    // A leader named in the action joins the unit.
    if let Some(LeaderField::Id(lid)) = &req.leader_with_actor {
        if let Some(l) = st
            .leaders
            .get(lid)
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

fn end_fire(
    ch: &'static Charts,
    egc: bool,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    if st.phase != Phase::EndOfTurn {
        return Err(rej(
            "wrong-phase",
            Some("action"),
            "end-of-turn fire comes after the initiatives (\"end-initiatives\")",
        ));
    }
    if st.end_fire_done {
        return Err(rej(
            "end-fire-done",
            Some("action"),
            "the end-of-turn fire has been made: sack camps and check the armies (\"end-turn\")",
        ));
    }
    if !egc && req.swiss_without_targets.is_some() {
        return Err(rej(
            "field-not-used",
            Some("swiss_without_targets"),
            "only El Gran Capitán has Ferocious Swiss Charges",
        ));
    }
    if egc {
        let confirmed = req.swiss_without_targets.clone().unwrap_or_default();
        for (i, id) in confirmed.iter().enumerate() {
            if st.units.get(id).is_none_or(|u| u.troop != "swiss-pike") {
                return Err(rej(
                    "not-swiss",
                    Some(&format!("swiss_without_targets[{i}]")),
                    format!("\"{id}\" is not a Swiss Pikemen unit"),
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
                format!(
                    "Ferocious Swiss Charges come first: {} must charge an eligible enemy within 9\" (\"charge\" with \"ferocious\": true), or list them in \"swiss_without_targets\" if none is in reach",
                    pending.join(", ")
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
                "only Fire actions belong in end-of-turn fire",
            ));
        }
        let Some(UnitRef::Id(id)) = &f.actor else {
            return Err(rej(
                "missing-field",
                Some(&format!("fires[{i}].actor")),
                "name the firing unit by id",
            ));
        };
        let u = st.units.get(id).ok_or_else(|| {
            rej(
                "unknown-unit",
                Some(&format!("fires[{i}].actor")),
                format!("no unit \"{id}\""),
            )
        })?;
        if u.acted {
            return Err(rej(
                "already-acted",
                Some(&format!("fires[{i}].actor")),
                format!("{} has already acted this turn", u.name),
            ));
        }
        // A unit may split its fire between targets, base by base, but no base fires twice.
        let used = bases_used.entry(id.clone()).or_default();
        *used += u32::from(f.firing_bases.unwrap_or(u.bases - u.lost));
        if *used > u32::from(u.bases - u.lost) {
            return Err(rej(
                "bad-firing-bases",
                Some(&format!("fires[{i}].firing_bases")),
                format!("{} has {} bases: its fires may use each base once (give firing_bases to split its fire)", u.name, u.bases - u.lost),
            ));
        }
        if !seen.insert((id.clone(), format!("{:?}", f.target))) {
            return Err(rej(
                "duplicate-fire",
                Some(&format!("fires[{i}]")),
                "all fire on one target in one action is one calculation",
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
                    if let Some(u) = st.units.get(unit) {
                        let lost_now = rung(*status, *lost).saturating_sub(rung(u.status, u.lost));
                        *levels.entry(unit.clone()).or_default() += lost_now;
                    }
                }
                _ => acc.effects.push(e),
            }
        }
    }
    if acc.steps.is_empty() {
        acc.steps.push(Step {
            title: "End-of-turn fire".into(),
            dice: vec![],
            modifiers: vec![],
            totals: vec![],
            result: "No unit fires".into(),
        });
        acc.summary.push("No end-of-turn fire".into());
    }
    let mut lines = Vec::new();
    for (unit, l) in levels {
        let Some(u) = st.units.get(&unit) else {
            continue;
        };
        let c = lose_levels(u.cond(), u.bases, l, false);
        // The odds of simultaneous fire are per target, on the combined result.
        acc.facets
            .push((format!("{}: levels lost", u.name), l.to_string()));
        acc.facets.push((
            format!("{}: destroyed", u.name),
            crate::app_driven::resolve::yes(c.destroyed).to_string(),
        ));
        if l > 0 {
            lines.push(format!(
                "{} loses {l} level{} in all: {}",
                u.name,
                if l == 1 { "" } else { "s" },
                c.describe(u.bases)
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
        acc.steps.push(Step {
            title: "Fire results applied together (simultaneous)".into(),
            dice: vec![],
            modifiers: vec![],
            totals: vec![],
            result: text.clone(),
        });
        acc.summary = vec![text];
    }
    acc.effects.push(Effect::EndFireDone);
    acc
}

fn end_turn(
    ch: &'static Charts,
    st: &GameState,
    req: &ActionRequest,
) -> Result<Plan<Acc>, Rejection> {
    if st.phase != Phase::EndOfTurn {
        return Err(rej(
            "wrong-phase",
            Some("action"),
            "end the initiatives first (\"end-initiatives\")",
        ));
    }
    if !st.end_fire_done {
        return Err(rej("end-fire-first", Some("action"), "the end-of-turn fire comes before the break check: make it first (\"end-fire\", even with no unit firing)"));
    }
    let mut acc = Acc::default();
    let mut after = st.clone();
    let sacked = req.camps_sacked.clone().unwrap_or_default();
    for (i, c) in sacked.iter().enumerate() {
        if sacked[..i].iter().any(|o| o.side == c.side) {
            return Err(rej(
                "duplicate-camp",
                Some(&format!("camps_sacked[{i}].side")),
                "each camp is sacked once",
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
                format!("no side \"{}\"", c.side),
            )
        })?;
        if !side.camp || side.camp_sacked {
            return Err(rej(
                "no-camp",
                Some(&format!("{f}.side")),
                format!("{} has no camp left to sack", side.name),
            ));
        }
        if c.by.is_empty() {
            return Err(rej(
                "missing-field",
                Some(&format!("{f}.by")),
                "name the units sacking the camp",
            ));
        }
        let mut looters = Vec::new();
        for (j, uid) in c.by.iter().enumerate() {
            let u = st.units.get(uid).ok_or_else(|| {
                rej(
                    "unknown-unit",
                    Some(&format!("{f}.by[{j}]")),
                    format!("no unit \"{uid}\""),
                )
            })?;
            if u.side == c.side || u.destroyed {
                return Err(rej(
                    "bad-looter",
                    Some(&format!("{f}.by[{j}]")),
                    format!("{} cannot sack that camp", u.name),
                ));
            }
            if !u.in_combat_with.is_empty() {
                return Err(rej(
                    "looter-in-combat",
                    Some(&format!("{f}.by[{j}]")),
                    format!(
                        "{} is itself in contact with an enemy and cannot sack the camp",
                        u.name
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
            looters.push(format!("{} ({})", u.name, s.label()));
        }
        acc.effects.push(Effect::CampSacked {
            side: c.side.clone(),
        });
        let text = format!(
            "The camp of {} is sacked; the looters break ranks: {}",
            side.name,
            looters.join(", ")
        );
        acc.steps.push(Step {
            title: "Camp sacked".into(),
            dice: vec![],
            modifiers: vec![],
            totals: vec![],
            result: text.clone(),
        });
        acc.summary.push(text);
    }
    for e in &acc.effects {
        apply_effect(&mut after, e);
    }
    let mut broken = Vec::new();
    let mut lines = Vec::new();
    for s in &st.sides {
        let (lost, bp) = break_points(ch, &after, &s.id);
        lines.push(format!("{}: {lost} of {bp}", s.name));
        if lost >= bp {
            broken.push(s.id.clone());
        }
    }
    let verdict = match broken.len() {
        0 => format!("No army breaks. Turn {} begins.", st.turn + 1),
        1 => format!(
            "{} is broken and has lost the battle.",
            st.sides
                .iter()
                .find(|s| s.id == broken[0])
                .map_or("?", |s| s.name.as_str())
        ),
        _ => "Both armies break in the same turn: a draw.".to_string(),
    };
    acc.steps.push(Step {
        title: format!("Army break check, end of turn {}", st.turn),
        dice: vec![],
        modifiers: vec![],
        totals: vec![],
        result: format!("{}. {verdict}", lines.join("; ")),
    });
    acc.summary.push(verdict);
    acc.effects.push(Effect::TurnEnded { broken });
    Ok(Plan::Done(acc))
}

/// Fold one effect into the state.
pub fn apply_effect(st: &mut GameState, e: &Effect) {
    match e {
        Effect::Unit {
            unit,
            status,
            lost,
            destroyed,
            uncounted,
        } => {
            if let Some(u) = st.units.get_mut(unit) {
                u.status = *status;
                u.lost = *lost;
                u.destroyed = *destroyed;
                u.uncounted = *uncounted;
                if *destroyed {
                    let partners: Vec<String> = u.in_combat_with.iter().cloned().collect();
                    u.in_combat_with.clear();
                    for p in partners {
                        if let Some(o) = st.units.get_mut(&p) {
                            o.in_combat_with.remove(unit);
                        }
                    }
                    for l in st.leaders.values_mut() {
                        if l.attached_to.as_deref() == Some(unit.as_str()) {
                            l.attached_to = None;
                        }
                    }
                }
            }
        }
        Effect::Acted { unit } => {
            if let Some(u) = st.units.get_mut(unit) {
                u.acted = true;
            }
        }
        Effect::Formation { unit, march } => {
            // A unit that moves leaves its planted stakes behind.
            if let Some(u) = st.units.get_mut(unit) {
                u.march = *march;
                u.stakes_planted = false;
            }
        }
        Effect::StakesPlanted { unit } => {
            if let Some(u) = st.units.get_mut(unit) {
                u.stakes_planted = true;
                u.stakes_used = true;
            }
        }
        Effect::CombatJoined { a, b } => {
            if st.units.get(a).is_some_and(|u| !u.destroyed)
                && st.units.get(b).is_some_and(|u| !u.destroyed)
            {
                if let Some(u) = st.units.get_mut(a) {
                    u.in_combat_with.insert(b.clone());
                }
                if let Some(u) = st.units.get_mut(b) {
                    u.in_combat_with.insert(a.clone());
                }
            }
        }
        Effect::CombatLeft { a, b } => {
            if let Some(u) = st.units.get_mut(a) {
                u.in_combat_with.remove(b);
            }
            if let Some(u) = st.units.get_mut(b) {
                u.in_combat_with.remove(a);
            }
        }
        Effect::LeaderFate { leader, fate } => {
            if let Some(l) = st.leaders.get_mut(leader) {
                l.fate = Some(*fate);
                l.attached_to = None;
            }
            if st.current.as_ref().is_some_and(|c| &c.leader == leader) {
                // The initiative dies with the leader who held it; the next one is rolled for.
                st.current = None;
                st.initiative_side = None;
            }
        }
        Effect::LeaderAttached { leader, unit } => {
            for l in st.leaders.values_mut() {
                if &l.id == leader {
                    l.attached_to = unit.clone();
                }
            }
        }
        Effect::LeaderCaughtUp { leader } => {
            let holding = st.current.as_ref().is_some_and(|c| &c.leader == leader);
            if let Some(l) = st.leaders.get_mut(leader) {
                l.fought = true;
                if !holding && !l.had_initiative {
                    l.caught_up = true;
                }
            }
        }
        Effect::CommandAssigned { from, to } => {
            if let Some(l) = st.leaders.get_mut(to) {
                l.inherited.push(from.clone());
            }
        }
        Effect::Initiative { side } => {
            st.initiative_side = Some(side.clone());
            st.last_initiative_side = Some(side.clone());
            st.current = None;
        }
        Effect::Command {
            leader,
            activations,
        } => {
            if let Some(l) = st.leaders.get_mut(leader) {
                l.had_initiative = true;
            }
            st.current = Some(CurrentCommand {
                leader: leader.clone(),
                activations_left: *activations,
            });
        }
        Effect::ActivationUsed { .. } => {
            if let Some(c) = st.current.as_mut() {
                c.activations_left = c.activations_left.saturating_sub(1);
            }
        }
        Effect::Phase { phase } => {
            st.phase = *phase;
            st.current = None;
            st.initiative_side = None;
        }
        Effect::EndFireDone => st.end_fire_done = true,
        Effect::CampSacked { side } => {
            for s in st.sides.iter_mut() {
                if &s.id == side {
                    s.camp_sacked = true;
                }
            }
        }
        Effect::TurnEnded { broken } => {
            for s in st.sides.iter_mut() {
                s.broken = broken.contains(&s.id);
            }
            if broken.is_empty() {
                st.turn += 1;
                st.phase = Phase::Command;
                for u in st.units.values_mut() {
                    u.acted = false;
                }
                for l in st.leaders.values_mut() {
                    l.had_initiative = false;
                    l.caught_up = false;
                    l.fought = false;
                }
                st.current = None;
                st.initiative_side = None;
                st.last_initiative_side = None;
                st.end_fire_done = false;
            } else {
                st.phase = Phase::Over;
                st.broken = broken.clone();
            }
        }
    }
}

/// A plain-text picture of the game for `tercio game show`.
pub fn render(ch: &Charts, st: &GameState) -> String {
    let mut s = String::new();
    let phase = match st.phase {
        Phase::Command => "initiatives and activations",
        Phase::EndOfTurn => "end of turn",
        Phase::Over => "game over",
    };
    s.push_str(&format!("Turn {} — {phase}\n", st.turn));
    if let Some(side) = &st.initiative_side {
        let name = st
            .sides
            .iter()
            .find(|x| &x.id == side)
            .map_or(side.as_str(), |x| x.name.as_str());
        match &st.current {
            Some(c) => s.push_str(&format!(
                "Initiative: {name}; {} has {} activation(s) left\n",
                st.leaders[&c.leader].name, c.activations_left
            )),
            None => s.push_str(&format!(
                "Initiative: {name}; choose a leader (\"command\")\n"
            )),
        }
    }
    if !st.broken.is_empty() {
        let names: Vec<&str> = st
            .sides
            .iter()
            .filter(|x| st.broken.contains(&x.id))
            .map(|x| x.name.as_str())
            .collect();
        s.push_str(&format!(
            "Broken: {}{}\n",
            names.join(" and "),
            if names.len() > 1 { " — a draw" } else { "" }
        ));
    }
    for side in &st.sides {
        let (lost, bp) = break_points(ch, st, &side.id);
        s.push_str(&format!(
            "\n{} ({}) — break points {lost} of {bp}{}{}\n",
            side.name,
            if side.attacker {
                "attacker"
            } else {
                "defender"
            },
            if side.camp {
                if side.camp_sacked {
                    ", camp sacked"
                } else {
                    ", camp"
                }
            } else {
                ""
            },
            if side.broken { " — BROKEN" } else { "" }
        ));
        for l in st.leaders.values().filter(|l| l.side == side.id) {
            let mut tags = vec![];
            if l.army {
                tags.push("army commander".to_string());
            }
            if l.bonus > 0 {
                tags.push(format!("+{}", l.bonus));
            }
            match l.fate {
                Some(Fate::Killed) => tags.push("KILLED".into()),
                Some(Fate::Captured) => tags.push("CAPTURED".into()),
                None => {}
            }
            if l.had_initiative {
                tags.push("had initiative".into());
            }
            if l.caught_up {
                tags.push("caught up in the struggle".into());
            }
            if let Some(u) = &l.attached_to {
                tags.push(format!(
                    "with {}",
                    st.units.get(u).map_or(u.as_str(), |x| x.name.as_str())
                ));
            }
            s.push_str(&format!("  leader {:<24} {}\n", l.name, tags.join(", ")));
        }
        for u in st.units.values().filter(|u| u.side == side.id) {
            let t = ch.troop(&u.troop).map_or(u.troop.as_str(), |t| t.name);
            let mut tags = vec![u.cond().describe(u.bases)];
            if u.acted && !u.destroyed {
                tags.push("acted".into());
            }
            if u.march {
                tags.push("march formation".into());
            }
            if u.stakes_planted {
                tags.push("stakes".into());
            }
            if !u.in_combat_with.is_empty() {
                let names: Vec<&str> = u
                    .in_combat_with
                    .iter()
                    .map(|x| st.units.get(x).map_or(x.as_str(), |y| y.name.as_str()))
                    .collect();
                tags.push(format!("in combat with {}", names.join(", ")));
            }
            s.push_str(&format!(
                "  {:<28} {:<24} {}b  {}\n",
                format!("{} [{}]", u.name, u.id),
                t,
                u.bases,
                tags.join("; ")
            ));
        }
    }
    s
}

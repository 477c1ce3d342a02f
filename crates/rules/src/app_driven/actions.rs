//! From the app's fields to a dice plan: validation (typed rejections with reasons), the
//! questions, and the chaining of fire, evasion, melee and leader risk.

use std::rc::Rc;
use std::sync::Arc;

use tercio_core::{Plan, Step};
use tercio_i18n::{clip, keys, msg, plain};

use super::model::*;
use super::resolve::{self, Acc, FireSetup, MeleeSetup, Supporting};
use super::tables::{ChargeRule, Charts, Class};
use crate::interface::input::or_none;
use crate::interface::Rejection;

fn rej(code: &str, field: Option<&str>, msg: impl Into<String>) -> Rejection {
    Rejection::new(code, field, msg)
}

/// An action's name in the reader's language, as a message's argument.
pub(super) fn action_name(kind: ActionKind) -> String {
    let id = serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    format!("@app_driven.action.{id}")
}

/// The rule set's context for one action.
pub struct Ctx<'a> {
    pub ch: &'a Arc<Charts>,
    /// EGC special rules (Bad War, Ferocious Swiss Charges).
    pub egc: bool,
    pub state: Option<&'a GameState>,
}

impl Ctx<'_> {
    /// The refusal of a troop type the charts do not have, in `field`.
    fn unknown_troop(&self, field: &str, troop: &str) -> Rejection {
        rej(
            "unknown-troop-type",
            Some(field),
            msg(
                keys::APP_DRIVEN_REJECT_UNKNOWN_TROOP,
                &[
                    ("troop", plain(&clip(troop)).as_ref()),
                    ("allowed", &self.ch.troop_ids().join(", ")),
                ],
            ),
        )
    }

    fn snap(
        &self,
        r: Option<&UnitRef>,
        field: &str,
        leader: Option<&LeaderField>,
    ) -> Result<UnitSnap, Rejection> {
        let r = r.ok_or_else(|| {
            rej(
                "missing-field",
                Some(field),
                msg(keys::APP_DRIVEN_REJECT_REQUIRED, &[("field", field)]),
            )
        })?;
        let lf = format!("leader_with_{field}");
        match (self.state, r) {
            (Some(st), UnitRef::Id(id)) => {
                let u = st.unit(id).ok_or_else(|| {
                    rej(
                        "unknown-unit",
                        Some(field),
                        msg(
                            keys::APP_DRIVEN_REJECT_NO_UNIT_OF,
                            &[
                                ("id", plain(&clip(id)).as_ref()),
                                (
                                    "allowed",
                                    &st.units.keys().cloned().collect::<Vec<_>>().join(", "),
                                ),
                            ],
                        ),
                    )
                })?;
                if u.destroyed {
                    return Err(rej(
                        "unit-destroyed",
                        Some(field),
                        msg(keys::APP_DRIVEN_REJECT_DESTROYED, &[("unit", &u.name)]),
                    ));
                }
                let troop = self
                    .ch
                    .troop(&u.troop)
                    .cloned()
                    .ok_or_else(|| self.unknown_troop(field, &u.troop))?;
                let attached = st
                    .leaders
                    .values()
                    .find(|l| l.attached_to.as_deref() == Some(id) && l.fate.is_none());
                let leader = match leader {
                    None => attached.map(|l| LeaderSnap {
                        id: l.id.clone(),
                        name: l.name.clone(),
                        army: l.army,
                    }),
                    Some(LeaderField::Flag(false)) => match attached {
                        Some(l) => {
                            return Err(rej(
                                "leader-attached",
                                Some(&lf),
                                msg(
                                    keys::APP_DRIVEN_REJECT_LEADER_ATTACHED,
                                    &[
                                        ("leader", &l.name),
                                        ("unit", &u.name),
                                        ("attach", "@app_driven.action.attach"),
                                    ],
                                ),
                            ))
                        }
                        None => None,
                    },
                    Some(LeaderField::Flag(true)) => match attached {
                        Some(l) => Some(LeaderSnap {
                            id: l.id.clone(),
                            name: l.name.clone(),
                            army: l.army,
                        }),
                        None => {
                            return Err(rej(
                                "no-leader-attached",
                                Some(&lf),
                                msg(
                                    keys::APP_DRIVEN_REJECT_NO_LEADER_ATTACHED,
                                    &[("unit", &u.name)],
                                ),
                            ))
                        }
                    },
                    Some(LeaderField::Id(lid)) => {
                        let l = super::game::leader_named(st, &lf, lid)?;
                        if l.fate.is_some() {
                            return Err(rej(
                                "leader-lost",
                                Some(&lf),
                                msg(keys::APP_DRIVEN_REJECT_LEADER_LOST, &[("leader", &l.name)]),
                            ));
                        }
                        if l.side != u.side {
                            return Err(rej(
                                "leader-wrong-side",
                                Some(&lf),
                                msg(
                                    keys::APP_DRIVEN_REJECT_LEADER_WRONG_SIDE,
                                    &[("leader", &l.name), ("unit", &u.name)],
                                ),
                            ));
                        }
                        // Only the actor's leader may join as part of the action; a target's
                        // leader fights with it only if already attached.
                        if field != "actor" && l.attached_to.as_deref() != Some(id.as_str()) {
                            return Err(rej(
                                "leader-not-with-unit",
                                Some(&lf),
                                msg(
                                    keys::APP_DRIVEN_REJECT_LEADER_NOT_WITH_UNIT,
                                    &[("leader", &l.name), ("unit", &u.name)],
                                ),
                            ));
                        }
                        Some(LeaderSnap {
                            id: l.id.clone(),
                            name: l.name.clone(),
                            army: l.army,
                        })
                    }
                };
                Ok(UnitSnap {
                    id: id.clone(),
                    name: u.name.clone(),
                    side: u.side.clone(),
                    troop,
                    bases: u.bases,
                    cond: u.cond(),
                    flags: u.flags.clone(),
                    nationality: u.nationality.clone(),
                    in_combat: !u.in_combat_with.is_empty(),
                    acted: u.acted,
                    march: u.march,
                    stakes_planted: u.stakes_planted,
                    leader,
                })
            }
            (Some(_), UnitRef::Inline(_)) => Err(rej(
                "inline-unit-in-game",
                Some(field),
                msg(keys::APP_DRIVEN_REJECT_UNIT_BY_ID, &[]),
            )),
            (None, UnitRef::Id(id)) => Err(rej(
                "unit-id-without-game",
                Some(field),
                msg(
                    keys::APP_DRIVEN_REJECT_UNIT_ID_WITHOUT_GAME,
                    &[
                        ("id", plain(&clip(id)).as_ref()),
                        ("example", r#"{"type": ..., "bases": ...}"#),
                        ("command", "`tercio game act`"),
                    ],
                ),
            )),
            (None, UnitRef::Inline(u)) => {
                let troop = self
                    .ch
                    .troop(&u.troop)
                    .cloned()
                    .ok_or_else(|| self.unknown_troop(&format!("{field}.type"), &u.troop))?;
                if !(1..=6).contains(&u.bases) {
                    return Err(rej(
                        "bad-bases",
                        Some(&format!("{field}.bases")),
                        msg(
                            keys::APP_DRIVEN_REJECT_BAD_BASES,
                            &[("bases", &u.bases.to_string())],
                        ),
                    ));
                }
                if u.stakes_planted && !troop.flags.contains(&"stakes") {
                    return Err(rej(
                        "no-stakes",
                        Some(&format!("{field}.stakes_planted")),
                        msg(
                            keys::APP_DRIVEN_REJECT_STAKES_TROOP,
                            &[("troop", &troop.title())],
                        ),
                    ));
                }
                if u.lost >= u.bases || resolve_destroyed(u.bases, u.lost) {
                    return Err(rej(
                        "unit-destroyed",
                        Some(&format!("{field}.lost")),
                        msg(
                            keys::APP_DRIVEN_REJECT_ALREADY_DESTROYED,
                            &[
                                ("lost", &u.lost.to_string()),
                                ("bases", &u.bases.to_string()),
                            ],
                        ),
                    ));
                }
                for f in &u.flags {
                    if !troop.flags.contains(&f.as_str()) {
                        return Err(rej(
                            "bad-flag",
                            Some(&format!("{field}.flags")),
                            msg(
                                keys::APP_DRIVEN_REJECT_BAD_FLAG,
                                &[
                                    ("flag", plain(&clip(f)).as_ref()),
                                    ("troop", &troop.title()),
                                    ("allowed", &or_none(troop.flags.join(", "))),
                                ],
                            ),
                        ));
                    }
                }
                let leader = match leader {
                    None | Some(LeaderField::Flag(false)) => None,
                    Some(LeaderField::Flag(true)) => Some(LeaderSnap {
                        id: format!("{field}-leader"),
                        // Named by the side it is with, in the reader's language.
                        name: msg(
                            if field == "target" {
                                keys::APP_DRIVEN_LEADER_WITH_TARGET
                            } else {
                                keys::APP_DRIVEN_LEADER_WITH_ACTOR
                            },
                            &[],
                        ),
                        army: false,
                    }),
                    Some(LeaderField::Id(n)) => Some(LeaderSnap {
                        id: format!("{field}-leader"),
                        name: n.clone(),
                        army: false,
                    }),
                };
                Ok(UnitSnap {
                    id: field.to_string(),
                    // Text the sender wrote: never read as a marker.
                    name: u.name.as_deref().map_or_else(
                        || format!("{} ({field})", troop.name),
                        |n| tercio_i18n::plain(n).into_owned(),
                    ),
                    side: if field == "actor" {
                        "actor's side".into()
                    } else {
                        "target's side".into()
                    },
                    troop,
                    bases: u.bases,
                    cond: Condition {
                        status: u.status,
                        lost: u.lost,
                        destroyed: false,
                    },
                    flags: u.flags.clone(),
                    nationality: u.nationality.clone(),
                    in_combat: u.in_combat,
                    acted: u.acted,
                    march: u.march,
                    stakes_planted: u.stakes_planted,
                    leader,
                })
            }
        }
    }
}

fn resolve_destroyed(bases: u8, lost: u8) -> bool {
    is_destroyed(bases, lost, false)
}

/// Fields each action may use; anything else set is rejected by name.
fn allowed_fields(k: ActionKind) -> &'static [&'static str] {
    use ActionKind::*;
    match k {
        Initiative | EndInitiatives => &[],
        Command => &["leader"],
        Rest | Regroup => &[
            "actor",
            "leader_with_actor",
            "plant_stakes",
            "target",
            "target_status",
            "ground",
            "leader_with_target",
            "actor_in_flank",
            "target_in_flank",
            "force",
            "supporting_actor_bases",
            "supporting_target_bases",
            "supporting_actor_units",
            "supporting_target_units",
            "actor_status",
        ],
        Advance | March => &["actor", "leader_with_actor"],
        Retire => &[
            "actor",
            "leader_with_actor",
            "target",
            "target_status",
            "ground",
            "leader_with_target",
            "actor_in_flank",
            "target_in_flank",
            "force",
            "supporting_actor_bases",
            "supporting_target_bases",
            "supporting_actor_units",
            "supporting_target_units",
            "actor_status",
            "contacted_on_several_faces",
        ],
        Charge => &[
            "defensive_firing_bases",
            "actor",
            "target",
            "target_status",
            "ground",
            "leader_with_actor",
            "leader_with_target",
            "actor_status",
            "frontal",
            "crosses_arc_of_fire",
            "target_evades",
            "contact_after_evade",
            "ferocious",
            "force",
            "supporting_actor_bases",
            "supporting_target_bases",
            "supporting_actor_units",
            "supporting_target_units",
            "actor_in_flank",
        ],
        Fire => &[
            "actor",
            "target",
            "target_status",
            "ground",
            "actor_status",
            "force",
            "firing_bases",
            "second_target",
            "second_firing_bases",
            "second_ground",
        ],
        Melee => &[
            "actor",
            "target",
            "target_status",
            "ground",
            "leader_with_actor",
            "leader_with_target",
            "actor_status",
            "actor_charging",
            "actor_in_flank",
            "target_in_flank",
            "in_contact",
            "force",
            "supporting_actor_bases",
            "supporting_target_bases",
            "supporting_actor_units",
            "supporting_target_units",
        ],
        Attach => &["leader", "unit"],
        AssignCommand => &["leader", "to"],
        Remove => &["unit"],
        EndFire => &["fires", "swiss_without_targets"],
        EndTurn => &["camps_sacked"],
    }
}

pub fn check_fields(req: &ActionRequest) -> Result<(), Rejection> {
    let v = serde_json::to_value(req).map_err(|e| rej("bad-action", None, e.to_string()))?;
    let allowed = allowed_fields(req.action);
    if let Some(obj) = v.as_object() {
        for k in obj.keys() {
            if k != "action" && !allowed.contains(&k.as_str()) {
                return Err(rej(
                    "field-not-used",
                    Some(k),
                    msg(
                        keys::APP_DRIVEN_REJECT_FIELD_NOT_USED,
                        &[
                            ("action", &action_name(req.action)),
                            (
                                "allowed",
                                &if allowed.is_empty() {
                                    format!("@{}", keys::APP_DRIVEN_REJECT_NO_OTHER_FIELD)
                                } else {
                                    allowed.join(", ")
                                },
                            ),
                        ],
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The answer the action gives to a question of the rules, or the question (a rejection of kind
/// [`crate::interface::RejectKind::Question`]: the table answers it and sends the action again).
fn need<T: Clone>(v: &Option<T>, field: &str, question: &str) -> Result<T, Rejection> {
    v.clone()
        .ok_or_else(|| rej("question", Some(field), question).question())
}

/// Apply the 'Actor is Disordered/Demoralized' box stand-alone; in a game it must agree.
/// The 'Actor is Disordered/Demoralized' box, and the target's status: stand-alone they describe
/// the units; in a game they are filled in from the state and the game master may override them
/// (a correction recorded with the action, so replay reproduces it).
fn actor_status(_ctx: &Ctx, req: &ActionRequest, u: &mut UnitSnap) -> Result<(), Rejection> {
    if let Some(s) = req.actor_status {
        u.cond.status = s;
    }
    Ok(())
}

fn target_status(req: &ActionRequest, u: &mut UnitSnap) {
    if let Some(s) = req.target_status {
        u.cond.status = s;
    }
}

fn melee_setup(
    ctx: &Ctx,
    req: &ActionRequest,
    actor: UnitSnap,
    target: UnitSnap,
    charging: bool,
    supporting: &Supporting,
) -> MeleeSetup {
    let force = req.force.unwrap_or_else(|| {
        Force::from_bases(
            u32::from(actor.remaining()) + supporting.actor_bases,
            u32::from(target.remaining()) + supporting.target_bases,
        )
    });
    let bad_war = ctx.egc && is_bad_war(&actor, &target);
    MeleeSetup {
        ground: req.ground.unwrap_or_default(),
        charging,
        actor_in_flank: req.actor_in_flank.unwrap_or(false),
        target_in_flank: req.target_in_flank.unwrap_or(false),
        force,
        bad_war,
        actor,
        target,
        supporting: supporting.clone(),
    }
}

/// The Supporting units of a melee between `a` and `t` on each side: named in a game
/// (`supporting_actor_units`, `supporting_target_units`: each on the table, on that side,
/// neither the Actor nor the Target, named once; their bases are those they have left), or
/// given as bases alone (`supporting_*_bases`, as recorded games and stand-alone actions give
/// them); both for one side is refused as ambiguous, at the bases. Units already acted may
/// support (both seeds, 'Units in the Melee on both sides which have already acted may
/// influence it as Supporting units').
fn supporting(
    ctx: &Ctx,
    req: &ActionRequest,
    a: &UnitSnap,
    t: &UnitSnap,
) -> Result<Supporting, Rejection> {
    let mut out = Supporting::default();
    let mut seen: Vec<&str> = Vec::new();
    for actor_side in [true, false] {
        let (units, bases, of, field, bases_field) = if actor_side {
            (
                &req.supporting_actor_units,
                req.supporting_actor_bases,
                a,
                "supporting_actor_units",
                "supporting_actor_bases",
            )
        } else {
            (
                &req.supporting_target_units,
                req.supporting_target_bases,
                t,
                "supporting_target_units",
                "supporting_target_bases",
            )
        };
        let Some(ids) = units.as_ref().filter(|u| !u.is_empty()) else {
            let n = u32::from(bases.unwrap_or(0));
            if actor_side {
                out.actor_bases = n;
            } else {
                out.target_bases = n;
            }
            continue;
        };
        if bases.is_some() {
            return Err(rej(
                "supporting-units-and-bases",
                Some(bases_field),
                msg(keys::APP_DRIVEN_REJECT_SUPPORTING_UNITS_AND_BASES, &[]),
            ));
        }
        let Some(st) = ctx.state else {
            return Err(rej(
                "unit-id-without-game",
                Some(field),
                msg(keys::APP_DRIVEN_REJECT_SUPPORTING_NEEDS_GAME, &[]),
            ));
        };
        for id in ids {
            let u = super::game::unit_named(st, field, id)?;
            let unit = [("unit", u.name.as_str())];
            if u.destroyed {
                return Err(rej(
                    "unit-destroyed",
                    Some(field),
                    msg(keys::APP_DRIVEN_REJECT_DESTROYED, &unit),
                ));
            }
            if let Some(turn) = u.arrives().filter(|&n| st.turn < n) {
                return Err(super::game::not_now(
                    "not-arrived",
                    Some(field),
                    msg(
                        keys::APP_DRIVEN_REJECT_NOT_ARRIVED,
                        &[("unit", &u.name), ("turn", &turn.to_string())],
                    ),
                ));
            }
            if *id == a.id || *id == t.id {
                return Err(rej(
                    "same-unit",
                    Some(field),
                    msg(keys::APP_DRIVEN_REJECT_SUPPORTING_IS_FIGHTING, &unit),
                ));
            }
            if u.side != of.side {
                return Err(rej(
                    "wrong-side",
                    Some(field),
                    msg(
                        keys::APP_DRIVEN_REJECT_SUPPORTING_WRONG_SIDE,
                        &[("unit", &u.name), ("of", &of.name)],
                    ),
                ));
            }
            if seen.contains(&id.as_str()) {
                return Err(rej(
                    "duplicate-unit",
                    Some(field),
                    msg(keys::APP_DRIVEN_REJECT_SUPPORTING_TWICE, &unit),
                ));
            }
            seen.push(id);
            let left = u32::from(u.bases.saturating_sub(u.lost));
            let named = (u.id.clone(), u.name.clone());
            if actor_side {
                out.actor_bases += left;
                out.actor_units.push(named);
            } else {
                out.target_bases += left;
                out.target_units.push(named);
            }
            out.leaders.extend(
                st.leaders
                    .values()
                    .filter(|l| l.fate.is_none() && l.attached_to.as_deref() == Some(id))
                    .map(|l| l.id.clone()),
            );
        }
    }
    Ok(out)
}

/// EGC Bad War: Swiss and Landsknecht pikemen in a melee fight to the last base.
pub fn is_bad_war(a: &UnitSnap, b: &UnitSnap) -> bool {
    let swiss = |u: &UnitSnap| u.troop.id == "swiss-pike";
    let lk = |u: &UnitSnap| {
        u.troop.id == "spanish-landsknecht-pike" && u.nationality.as_deref() == Some("landsknecht")
    };
    (swiss(a) && lk(b)) || (lk(a) && swiss(b))
}

fn same_side(ctx: &Ctx, a: &UnitSnap, b: &UnitSnap) -> Result<(), Rejection> {
    if ctx.state.is_some() && a.side == b.side {
        return Err(rej(
            "same-side",
            Some("target"),
            msg(
                keys::APP_DRIVEN_REJECT_SAME_SIDE,
                &[("actor", &a.name), ("target", &b.name)],
            ),
        ));
    }
    if ctx.state.is_some() && a.id == b.id {
        return Err(rej(
            "same-unit",
            Some("target"),
            msg(keys::APP_DRIVEN_REJECT_SAME_UNIT, &[]),
        ));
    }
    Ok(())
}

fn in_combat_rule(u: &UnitSnap, what: &str) -> Result<(), Rejection> {
    in_combat_rule_at(u, what, "action")
}

/// [`in_combat_rule`], the refusal naming `field` (the stakes' tick box, for planting them:
/// the field at fault, as the rules fuzzer asks).
fn in_combat_rule_at(u: &UnitSnap, what: &str, field: &str) -> Result<(), Rejection> {
    if u.in_combat {
        return Err(rej(
            "in-ongoing-combat",
            Some(field),
            msg(
                keys::APP_DRIVEN_REJECT_IN_ONGOING_COMBAT,
                &[("unit", &u.name), ("what", what)],
            ),
        ));
    }
    Ok(())
}

/// Whether `a` may charge at all, whatever the target.
fn charger_allowed(a: &UnitSnap) -> Result<(), Rejection> {
    if a.troop.charge_move.is_none() || a.troop.charge == ChargeRule::Never {
        return Err(rej(
            "cannot-charge",
            Some("actor"),
            msg(
                keys::APP_DRIVEN_REJECT_CANNOT_CHARGE,
                &[("troop", &a.troop.title())],
            ),
        ));
    }
    if a.march {
        return Err(rej(
            "march-formation-cannot-charge",
            Some("actor"),
            msg(
                keys::APP_DRIVEN_REJECT_MARCH_FORMATION,
                &[("unit", &a.name)],
            ),
        ));
    }
    in_combat_rule(a, "@app_driven.action.charge")
}

/// Whether `a` may charge `t` (the target-dependent rules; `charger_allowed` has the rest).
fn charge_target_allowed(req: &ActionRequest, a: &UnitSnap, t: &UnitSnap) -> Result<(), Rejection> {
    let frontal = req.frontal.unwrap_or(true);
    let ground = req.ground.unwrap_or_default();
    let loose_target = matches!(t.troop.id, "irregulars" | "skirmishers");
    match a.troop.charge {
        ChargeRule::LooseOnly
            if matches!(
                ground,
                Ground::Open | Ground::ActorUphill | Ground::TargetUphill
            ) && !loose_target
                && t.troop.class != Class::Cannon =>
        {
            Err(rej(
                "loose-troops-charge-in-open",
                Some("ground"),
                msg(
                    keys::APP_DRIVEN_REJECT_LOOSE_IN_OPEN,
                    &[("troop", &a.troop.title())],
                ),
            ))
        }
        ChargeRule::MissileRestricted
            if !loose_target && t.troop.class != Class::Cannon && !t.in_combat && frontal =>
        {
            Err(rej(
                "missile-troops-charge",
                Some("target"),
                msg(
                    keys::APP_DRIVEN_REJECT_MISSILE_CHARGE,
                    &[("troop", &a.troop.title()), ("target", &t.troop.title())],
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// Build the plan of one unit action or command action.
pub fn plan(ctx: &Ctx, req: &ActionRequest) -> Result<Plan<Acc>, Rejection> {
    check_fields(req)?;
    let ch = ctx.ch.clone();
    let acc = Acc::default();
    match req.action {
        ActionKind::Rest | ActionKind::Regroup => {
            let mut u = ctx.snap(req.actor.as_ref(), "actor", req.leader_with_actor.as_ref())?;
            actor_status(ctx, req, &mut u)?;
            if req.plant_stakes == Some(true) {
                if !u.has_flag("stakes") {
                    return Err(rej(
                        "no-stakes",
                        Some("plant_stakes"),
                        msg(keys::APP_DRIVEN_REJECT_NO_STAKES, &[("unit", &u.name)]),
                    ));
                }
                if u.stakes_planted
                    || ctx
                        .state
                        .is_some_and(|s| s.unit(&u.id).is_some_and(|x| x.stakes_used))
                {
                    return Err(rej(
                        "stakes-used",
                        Some("plant_stakes"),
                        msg(keys::APP_DRIVEN_REJECT_STAKES_USED, &[]),
                    ));
                }
                in_combat_rule_at(&u, "@app_driven.field.stakes", "plant_stakes")?;
                let mut acc = acc;
                let unit = [("unit", u.name.as_str())];
                acc.steps.push(super::resolve::told(
                    msg(keys::APP_DRIVEN_STEP_PLANTS_STAKES, &unit),
                    msg(keys::APP_DRIVEN_RESULT_STAKES_PLANTED, &[]),
                ));
                acc.summary
                    .push(msg(keys::APP_DRIVEN_SUMMARY_PLANTS_STAKES, &unit));
                acc.effects
                    .push(Effect::StakesPlanted { unit: u.id.clone() });
                acc.effects.push(Effect::Acted { unit: u.id.clone() });
                return Ok(Plan::Done(acc));
            }
            if u.in_combat && u.leader.is_none() {
                return Err(rej(
                    "regroup-in-combat-needs-leader",
                    Some("leader_with_actor"),
                    msg(
                        keys::APP_DRIVEN_REJECT_REGROUP_NEEDS_LEADER,
                        &[("unit", &u.name)],
                    ),
                ));
            }
            if u.cond.status == Status::Ok && !u.in_combat {
                let mut acc = acc;
                let unit = [("unit", u.name.as_str())];
                acc.steps.push(super::resolve::told(
                    msg(keys::APP_DRIVEN_STEP_REST, &unit),
                    msg(keys::APP_DRIVEN_RESULT_RESTS, &unit),
                ));
                acc.summary.push(msg(keys::APP_DRIVEN_SUMMARY_RESTS, &unit));
                acc.facet(
                    &msg(keys::APP_DRIVEN_FACET_REGROUP, &[]),
                    msg(keys::APP_DRIVEN_VALUE_LEVELS, &[("count", "0")]),
                );
                acc.effects.push(Effect::Acted { unit: u.id.clone() });
                return Ok(Plan::Done(acc));
            }
            let melee_next = if u.in_combat {
                let t = combat_target(ctx, req, &u)?;
                let sup = supporting(ctx, req, &u, &t)?;
                Some((t, sup))
            } else {
                None
            };
            let req2 = req.clone();
            let egc = ctx.egc;
            let state_free_ctx = (ch.clone(), egc);
            let u2 = u.clone();
            Ok(
                resolve::regroup(&ch, acc, u).and_then(move |(acc, after)| match &melee_next {
                    None => Plan::Done(acc),
                    Some((t, sup)) => {
                        let mut a = u2.clone();
                        a.cond.status = after;
                        let c = Ctx {
                            ch: &state_free_ctx.0,
                            egc: state_free_ctx.1,
                            state: None,
                        };
                        let s = melee_setup(&c, &req2, a, t.clone(), false, sup);
                        let mut acc = acc;
                        acc.summary
                            .push(msg(keys::APP_DRIVEN_SUMMARY_REGROUP_THEN_MELEE, &[]));
                        resolve::melee(&ch, acc, s)
                    }
                }),
            )
        }
        ActionKind::Advance | ActionKind::March => {
            let u = ctx.snap(req.actor.as_ref(), "actor", req.leader_with_actor.as_ref())?;
            in_combat_rule(
                &u,
                if req.action == ActionKind::March {
                    "@app_driven.action.march"
                } else {
                    "@app_driven.action.advance"
                },
            )?;
            let march = req.action == ActionKind::March;
            let allowance = if march {
                u.troop.march
            } else {
                u.troop.advance
            };
            let Some(inches) = allowance else {
                return Err(rej(
                    "cannot-move",
                    Some("actor"),
                    msg(
                        keys::APP_DRIVEN_REJECT_CANNOT_MOVE,
                        &[("troop", &u.troop.title())],
                    ),
                ));
            };
            let mut acc = acc;
            let n = inches.to_string();
            let args = [("unit", u.name.as_str()), ("inches", n.as_str())];
            let (text, title) = if march {
                (
                    msg(keys::APP_DRIVEN_RESULT_MARCHES, &args),
                    msg(keys::APP_DRIVEN_STEP_MARCH, &args),
                )
            } else {
                (
                    msg(keys::APP_DRIVEN_RESULT_ADVANCES, &args),
                    msg(keys::APP_DRIVEN_STEP_ADVANCE, &args),
                )
            };
            acc.steps.push(Step {
                title,
                dice: vec![],
                modifiers: vec![],
                totals: vec![(
                    msg(keys::APP_DRIVEN_TOTAL_BASE_INCHES, &[]),
                    i32::from(inches),
                )],
                result: text.clone(),
            });
            acc.summary.push(text);
            acc.facet(
                &msg(keys::APP_DRIVEN_FACET_MOVE, &[]),
                format!("{inches}\""),
            );
            acc.effects.push(Effect::Formation {
                unit: u.id.clone(),
                march,
            });
            acc.effects.push(Effect::Acted { unit: u.id.clone() });
            Ok(Plan::Done(acc))
        }
        ActionKind::Retire => {
            let mut u = ctx.snap(req.actor.as_ref(), "actor", req.leader_with_actor.as_ref())?;
            actor_status(ctx, req, &mut u)?;
            if u.troop.retire_move.is_none() {
                return Err(rej(
                    "cannot-move",
                    Some("actor"),
                    msg(
                        keys::APP_DRIVEN_REJECT_CANNOT_RETIRE,
                        &[("troop", &u.troop.title())],
                    ),
                ));
            }
            if !u.in_combat {
                let inches = u.troop.retire_move.unwrap_or(0);
                let mut acc = acc;
                let n = inches.to_string();
                let args = [("unit", u.name.as_str()), ("inches", n.as_str())];
                let text = msg(keys::APP_DRIVEN_RESULT_RETIRES_FREE, &args);
                acc.steps.push(super::resolve::told(
                    msg(keys::APP_DRIVEN_STEP_RETIRE_FREE, &args),
                    text.clone(),
                ));
                acc.summary.push(text);
                acc.facet(
                    &msg(keys::APP_DRIVEN_FACET_RETIRE, &[]),
                    msg(keys::APP_DRIVEN_VALUE_SUCCESS, &[]),
                );
                acc.effects.push(Effect::Formation {
                    unit: u.id.clone(),
                    march: false,
                });
                acc.effects.push(Effect::Acted { unit: u.id.clone() });
                return Ok(Plan::Done(acc));
            }
            if req.contacted_on_several_faces == Some(true) {
                return Err(rej(
                    "contacted-on-several-faces",
                    Some("contacted_on_several_faces"),
                    msg(keys::APP_DRIVEN_REJECT_SEVERAL_FACES, &[("unit", &u.name)]),
                ));
            }
            let t = combat_target(ctx, req, &u)?;
            let sup = supporting(ctx, req, &u, &t)?;
            let c = (ch.clone(), ctx.egc);
            let req2 = req.clone();
            let u2 = u.clone();
            let partners: Vec<String> = ctx
                .state
                .and_then(|s| s.unit(&u.id))
                .map(|x| x.in_combat_with.iter().cloned().collect())
                .unwrap_or_else(|| vec![t.id.clone()]);
            Ok(resolve::retire(&ch, acc, u).and_then(move |(mut acc, ok)| {
                if ok {
                    for p in &partners {
                        acc.effects.push(Effect::CombatLeft {
                            a: u2.id.clone(),
                            b: p.clone(),
                        });
                    }
                    acc.effects.push(Effect::Formation {
                        unit: u2.id.clone(),
                        march: false,
                    });
                    // Bad War keeps units below half fighting only while the fight lasts.
                    if c.1 && is_bad_war(&u2, &t) {
                        for x in [&u2, &t] {
                            if is_destroyed(x.bases, x.cond.lost, false) {
                                acc.effects.push(Effect::Unit {
                                    unit: x.id.clone(),
                                    status: x.cond.status,
                                    lost: x.cond.lost,
                                    destroyed: true,
                                    uncounted: false,
                                });
                                acc.summary.push(msg(
                                    keys::APP_DRIVEN_SUMMARY_BAD_WAR_ENDS,
                                    &[("unit", &x.name)],
                                ));
                            }
                        }
                    }
                    Plan::Done(acc)
                } else {
                    let cx = Ctx {
                        ch: &c.0,
                        egc: c.1,
                        state: None,
                    };
                    let s = melee_setup(&cx, &req2, u2.clone(), t.clone(), false, &sup);
                    resolve::melee(&ch, acc, s)
                }
            }))
        }
        ActionKind::Fire => {
            let mut a = ctx.snap(req.actor.as_ref(), "actor", None)?;
            actor_status(ctx, req, &mut a)?;
            if !a.can_fire() {
                let why = match a.troop.fire.and_then(|f| f.needs_flag) {
                    Some(flag) => msg(
                        keys::APP_DRIVEN_REJECT_NEEDS_FLAG,
                        &[("unit", &a.name), ("flag", flag)],
                    ),
                    None => msg(
                        keys::APP_DRIVEN_REJECT_CANNOT_FIRE,
                        &[("troop", &a.troop.title())],
                    ),
                };
                return Err(rej("cannot-fire", Some("actor"), why));
            }
            in_combat_rule(&a, "@app_driven.action.fire")?;
            let mut t = ctx.snap(req.target.as_ref(), "target", None)?;
            target_status(req, &mut t);
            same_side(ctx, &a, &t)?;
            let second = second_target(ctx, req, &a, &t)?;
            let left = a.remaining();
            // With a second target, the bases not firing at it fire at the first.
            let firing = u32::from(
                req.firing_bases
                    .unwrap_or(left.saturating_sub(second.as_ref().map_or(0, |s| s.1))),
            );
            if firing == 0 || firing > u32::from(a.remaining()) {
                return Err(rej(
                    "bad-firing-bases",
                    Some("firing_bases"),
                    msg(
                        keys::APP_DRIVEN_REJECT_BASES_ACTOR,
                        &[
                            ("firing", &firing.to_string()),
                            ("max", &(a.remaining()).to_string()),
                        ],
                    ),
                ));
            }
            let force = req
                .force
                .unwrap_or_else(|| Force::from_bases(firing, u32::from(t.remaining())));
            let Some((t2, n2)) = second else {
                let s = FireSetup {
                    actor: a,
                    target: t,
                    ground: req.ground.unwrap_or_default(),
                    force,
                    defensive: false,
                };
                return Ok(resolve::fire(&ch, acc, s).map(|(acc, _)| acc));
            };
            if firing + u32::from(n2) > u32::from(left) {
                return Err(rej(
                    "bad-firing-bases",
                    Some("second_firing_bases"),
                    msg(
                        keys::APP_DRIVEN_REJECT_FIRE_BASES_ONCE,
                        &[
                            ("unit", &a.name),
                            ("bases", &left.to_string()),
                            ("used", &firing.to_string()),
                            ("firing", &n2.to_string()),
                        ],
                    ),
                ));
            }
            // Two calculations, one per target (both seeds, "If a Fire action has two Target
            // units, then two calculations are performed with the app"), each named by its
            // target in the odds.
            let second = FireSetup {
                actor: a.clone(),
                force: Force::from_bases(u32::from(n2), u32::from(t2.remaining())),
                target: t2,
                ground: req.second_ground.unwrap_or_default(),
                defensive: false,
            };
            let first = FireSetup {
                actor: a,
                target: t,
                ground: req.ground.unwrap_or_default(),
                force,
                defensive: false,
            };
            let (ch2, first_name) = (ch.clone(), first.target.name.clone());
            Ok(
                resolve::fire(&ch, acc, first).and_then(move |(mut acc, _)| {
                    per_target(&mut acc, 0, &first_name);
                    let (facets, effects) = (acc.facets.len(), acc.effects.len());
                    let name = second.target.name.clone();
                    let actor = second.actor.id.clone();
                    resolve::fire(&ch2, acc, second.clone()).map(move |(mut acc, _)| {
                        per_target(&mut acc, facets, &name);
                        // The unit has acted once.
                        let mut i = 0;
                        acc.effects.retain(|e| {
                            i += 1;
                            i <= effects || !matches!(e, Effect::Acted { unit } if *unit == actor)
                        });
                        acc
                    })
                }),
            )
        }
        ActionKind::Melee => {
            let mut a = ctx.snap(req.actor.as_ref(), "actor", req.leader_with_actor.as_ref())?;
            actor_status(ctx, req, &mut a)?;
            let touching = req.in_contact == Some(true);
            if ctx.state.is_some() && !a.in_combat && !touching {
                // Beside the tick that would open a combat: any unit may melee one it touches.
                return Err(rej(
                    "not-in-combat",
                    Some("in_contact"),
                    msg(
                        keys::APP_DRIVEN_REJECT_MELEE_NOT_IN_COMBAT,
                        &[("unit", &a.name)],
                    ),
                ));
            }
            if req.target.is_none() && ctx.state.is_some() && !touching {
                // The only enemy in contact is the target (the page need not ask).
                let t = combat_target(ctx, req, &a)?;
                let sup = supporting(ctx, req, &a, &t)?;
                let s = melee_setup(ctx, req, a, t, req.actor_charging.unwrap_or(false), &sup);
                return Ok(resolve::melee(&ch, acc, s));
            }
            let mut t = ctx.snap(
                req.target.as_ref(),
                "target",
                req.leader_with_target.as_ref(),
            )?;
            target_status(req, &mut t);
            same_side(ctx, &a, &t)?;
            if let Some(st) = ctx.state {
                let in_contact = st
                    .unit(&a.id)
                    .is_some_and(|u| u.in_combat_with.contains(&t.id));
                if !in_contact && !touching {
                    return Err(rej(
                        "not-in-contact",
                        Some("target"),
                        msg(
                            keys::APP_DRIVEN_REJECT_MELEE_NOT_IN_CONTACT,
                            &[
                                ("unit", &a.name),
                                ("target", &t.name),
                                ("contact", "@app_driven.field.in-contact"),
                            ],
                        ),
                    ));
                }
            }
            let sup = supporting(ctx, req, &a, &t)?;
            let s = melee_setup(ctx, req, a, t, req.actor_charging.unwrap_or(false), &sup);
            Ok(resolve::melee(&ch, acc, s))
        }
        ActionKind::Charge => charge(ctx, req, acc),
        _ => Err(rej(
            "game-only",
            Some("action"),
            msg(
                keys::APP_DRIVEN_REJECT_TURN_ACTION,
                &[
                    ("action", &action_name(req.action)),
                    ("command", "`tercio game act`"),
                ],
            ),
        )),
    }
}

/// A Fire's second target (`second_target`) and the bases firing at it (`second_firing_bases`,
/// needed with it, at most the unit's bases less one): an enemy, not the first target (all the
/// fire at one target is one calculation). Without one, its bases and cover are refused.
fn second_target(
    ctx: &Ctx,
    req: &ActionRequest,
    a: &UnitSnap,
    t: &UnitSnap,
) -> Result<Option<(UnitSnap, u8)>, Rejection> {
    let unit = [("unit", a.name.as_str())];
    let Some(r) = req.second_target.as_ref() else {
        for (field, given) in [
            ("second_firing_bases", req.second_firing_bases.is_some()),
            ("second_ground", req.second_ground.is_some()),
        ] {
            if given {
                return Err(rej(
                    "field-not-used",
                    Some(field),
                    msg(keys::APP_DRIVEN_REJECT_SPLIT_NEEDS_TARGET, &unit),
                ));
            }
        }
        return Ok(None);
    };
    let t2 = ctx.snap(Some(r), "second_target", None)?;
    if ctx.state.is_some() && t2.side == a.side {
        return Err(rej(
            "same-side",
            Some("second_target"),
            msg(
                keys::APP_DRIVEN_REJECT_SAME_SIDE,
                &[("actor", &a.name), ("target", &t2.name)],
            ),
        ));
    }
    if ctx.state.is_some() && t2.id == t.id {
        return Err(rej(
            "duplicate-fire",
            Some("second_target"),
            msg(keys::APP_DRIVEN_REJECT_SPLIT_SAME_TARGET, &unit),
        ));
    }
    let n = req.second_firing_bases.ok_or_else(|| {
        rej(
            "missing-field",
            Some("second_firing_bases"),
            msg(keys::APP_DRIVEN_REJECT_SPLIT_NEEDS_BASES, &unit),
        )
    })?;
    let most = a.remaining().saturating_sub(1);
    if n == 0 || n > most {
        return Err(rej(
            "bad-firing-bases",
            Some("second_firing_bases"),
            msg(
                keys::APP_DRIVEN_REJECT_BASES_SECOND,
                &[("firing", &n.to_string()), ("max", &most.to_string())],
            ),
        ));
    }
    Ok(Some((t2, n)))
}

/// A fire's odds facets from `from` on, named by its target (`name: fire`, `name: destroyed`):
/// the two calculations of a Fire at two targets.
fn per_target(acc: &mut Acc, from: usize, name: &str) {
    let (fire, destroyed) = (
        msg(keys::APP_DRIVEN_FACET_FIRE, &[]),
        msg(keys::APP_DRIVEN_FACET_TARGET_DESTROYED, &[]),
    );
    for (k, _) in acc.facets.iter_mut().skip(from) {
        if *k == fire {
            *k = msg(keys::APP_DRIVEN_FACET_FIRE_AT, &[("unit", name)]);
        } else if *k == destroyed {
            *k = msg(keys::APP_DRIVEN_FACET_DESTROYED, &[("unit", name)]);
        }
    }
}

/// The enemy a unit in an ongoing combat fights: the `target` field, or its only opponent.
fn combat_target(ctx: &Ctx, req: &ActionRequest, u: &UnitSnap) -> Result<UnitSnap, Rejection> {
    if req.target.is_some() {
        let mut t = ctx.snap(
            req.target.as_ref(),
            "target",
            req.leader_with_target.as_ref(),
        )?;
        target_status(req, &mut t);
        if let Some(st) = ctx.state {
            if !st
                .unit(&u.id)
                .is_some_and(|x| x.in_combat_with.contains(&t.id))
            {
                return Err(rej(
                    "not-in-contact",
                    Some("target"),
                    msg(
                        keys::APP_DRIVEN_REJECT_NOT_IN_CONTACT,
                        &[("unit", &u.name), ("target", &t.name)],
                    ),
                ));
            }
        }
        return Ok(t);
    }
    if let Some(st) = ctx.state {
        let partners: Vec<&String> = st
            .unit(&u.id)
            .map(|x| x.in_combat_with.iter().collect())
            .unwrap_or_default();
        if partners.len() == 1 {
            let mut t = ctx.snap(
                Some(&UnitRef::Id(partners[0].clone())),
                "target",
                req.leader_with_target.as_ref(),
            )?;
            target_status(req, &mut t);
            return Ok(t);
        }
    }
    Err(rej(
        "missing-field",
        Some("target"),
        msg(keys::APP_DRIVEN_REJECT_NAME_ENEMY, &[("unit", &u.name)]),
    ))
}

fn charge(ctx: &Ctx, req: &ActionRequest, acc: Acc) -> Result<Plan<Acc>, Rejection> {
    let ch = ctx.ch.clone();
    let mut a = ctx.snap(req.actor.as_ref(), "actor", req.leader_with_actor.as_ref())?;
    actor_status(ctx, req, &mut a)?;
    charger_allowed(&a)?;
    // A charger leaves its obstacle or works: the ground of a Charge is the target's.
    if matches!(
        req.ground,
        Some(Ground::ActorObstacle | Ground::ActorFortified)
    ) {
        return Err(rej(
            "charger-leaves-position",
            Some("ground"),
            msg(keys::APP_DRIVEN_REJECT_CHARGER_LEAVES_POSITION, &[]),
        ));
    }
    let mut t = ctx.snap(
        req.target.as_ref(),
        "target",
        req.leader_with_target.as_ref(),
    )?;
    target_status(req, &mut t);
    same_side(ctx, &a, &t)?;
    charge_target_allowed(req, &a, &t)?;
    if req.ferocious == Some(true) && (!ctx.egc || a.troop.id != "swiss-pike") {
        return Err(rej(
            "not-ferocious",
            Some("ferocious"),
            msg(keys::APP_DRIVEN_REJECT_NOT_FEROCIOUS, &[]),
        ));
    }
    // 000 'Ferocious Swiss Charges': "any eligible enemy unit (Gendarmes, Pikemen of all types,
    // Footmen, Arquebusiers, Archers, Crossbowmen, Levy, Cannon, or Forlorn Hopes)".
    const FEROCIOUS_TARGETS: [&str; 13] = [
        "gendarmes",
        "french-italian-pike",
        "swiss-pike",
        "spanish-landsknecht-pike",
        "footmen",
        "arquebusiers",
        "archers",
        "crossbowmen",
        "levy",
        "light-cannon",
        "medium-cannon",
        "heavy-cannon",
        "forlorn-hope",
    ];
    if req.ferocious == Some(true) && !FEROCIOUS_TARGETS.contains(&t.troop.id) {
        return Err(rej(
            "not-ferocious-target",
            Some("target"),
            msg(
                keys::APP_DRIVEN_REJECT_NOT_FEROCIOUS_TARGET,
                &[("troop", &t.troop.title())],
            ),
        ));
    }
    if req.target_evades == Some(true) && (!t.troop.may_evade || t.in_combat) {
        let why = if t.in_combat {
            keys::APP_DRIVEN_REJECT_EVADE_IN_COMBAT
        } else {
            keys::APP_DRIVEN_REJECT_EVADE_TROOP
        };
        return Err(rej(
            "cannot-evade",
            Some("target_evades"),
            msg(why, &[("unit", &t.name)]),
        ));
    }
    let sup = supporting(ctx, req, &a, &t)?;
    let frontal = req.frontal.unwrap_or(true);
    let inches = a.troop.charge_move.unwrap_or(0);
    let mut acc = acc;
    let n = inches.to_string();
    acc.steps.push(Step {
        title: msg(
            if frontal {
                keys::APP_DRIVEN_STEP_CHARGE
            } else {
                keys::APP_DRIVEN_STEP_CHARGE_FLANK
            },
            &[("actor", &a.name), ("target", &t.name)],
        ),
        dice: vec![],
        modifiers: vec![],
        totals: vec![(
            msg(keys::APP_DRIVEN_TOTAL_CHARGE_MOVE, &[]),
            i32::from(inches),
        )],
        result: msg(
            keys::APP_DRIVEN_RESULT_CHARGE_MOVE,
            &[("unit", &a.name), ("inches", &n)],
        ),
    });
    let charge_facet = msg(keys::APP_DRIVEN_FACET_CHARGE, &[]);
    acc.effects.push(Effect::Formation {
        unit: a.id.clone(),
        march: false,
    });
    let mut melee_req = req.clone();
    if !frontal {
        melee_req.target_in_flank = Some(true);
    }
    // Charging into an ongoing combat: neither evasion nor defensive fire.
    if !t.in_combat && t.troop.may_evade {
        let evades = need(
            &req.target_evades,
            "target_evades",
            &msg(keys::APP_DRIVEN_QUESTION_EVADE, &[("unit", &t.name)]),
        )?;
        if evades {
            let ev = t.troop.advance.unwrap_or(0);
            let n = ev.to_string();
            acc.steps.push(Step {
                title: msg(keys::APP_DRIVEN_STEP_EVADE, &[("unit", &t.name)]),
                dice: vec![],
                modifiers: vec![],
                totals: vec![(msg(keys::APP_DRIVEN_TOTAL_EVADE_MOVE, &[]), i32::from(ev))],
                result: msg(
                    keys::APP_DRIVEN_RESULT_EVADES,
                    &[("unit", &t.name), ("inches", &n)],
                ),
            });
            acc.effects.push(Effect::Acted { unit: t.id.clone() });
            acc.effects.push(Effect::Formation {
                unit: t.id.clone(),
                march: false,
            });
            let contact = need(
                &req.contact_after_evade,
                "contact_after_evade",
                &msg(
                    keys::APP_DRIVEN_QUESTION_CONTACT_AFTER_EVADE,
                    &[("target", &t.name), ("actor", &a.name)],
                ),
            )?;
            if !contact {
                acc.summary
                    .push(msg(keys::APP_DRIVEN_SUMMARY_EVADES, &[("unit", &t.name)]));
                acc.facet(&charge_facet, msg(keys::APP_DRIVEN_VALUE_EVADED, &[]));
                acc.effects.push(Effect::Acted { unit: a.id.clone() });
                return Ok(Plan::Done(acc));
            }
            acc.facet(
                &charge_facet,
                msg(keys::APP_DRIVEN_VALUE_CAUGHT_EVADING, &[]),
            );
            acc.summary.push(msg(
                keys::APP_DRIVEN_SUMMARY_CAUGHT_EVADING,
                &[("unit", &t.name)],
            ));
            melee_req.target_in_flank = Some(true);
        }
    }
    let defensive = !t.in_combat
        && frontal
        && !t.acted
        && t.can_fire()
        && t.troop.fire.is_some_and(|f| f.defensive)
        && req.target_evades != Some(true);
    let setup_ctx = (ch.clone(), ctx.egc);
    let go_melee = Rc::new(move |acc: Acc, a: UnitSnap, t: UnitSnap| {
        let cx = Ctx {
            ch: &setup_ctx.0,
            egc: setup_ctx.1,
            state: None,
        };
        let s = melee_setup(&cx, &melee_req, a, t, true, &sup);
        resolve::melee(&setup_ctx.0, acc, s)
    });
    if defensive {
        let crosses = need(
            &req.crosses_arc_of_fire,
            "crosses_arc_of_fire",
            &msg(keys::APP_DRIVEN_QUESTION_ARC_OF_FIRE, &[("unit", &t.name)]),
        )?;
        if crosses {
            let firing = req.defensive_firing_bases.unwrap_or(t.remaining());
            if firing == 0 || firing > t.remaining() {
                return Err(rej(
                    "bad-firing-bases",
                    Some("defensive_firing_bases"),
                    msg(
                        keys::APP_DRIVEN_REJECT_BASES_TARGET,
                        &[
                            ("firing", &firing.to_string()),
                            ("max", &(t.remaining()).to_string()),
                        ],
                    ),
                ));
            }
            let fs = FireSetup {
                actor: t.clone(),
                target: a.clone(),
                ground: Ground::Open,
                force: Force::from_bases(u32::from(firing), u32::from(a.remaining())),
                defensive: true,
            };
            let a2 = a.clone();
            let t2 = t.clone();
            let charge_facet2 = charge_facet.clone();
            return Ok(
                resolve::fire(&ch, acc, fs).and_then(move |(mut acc, levels)| {
                    // The fire's result is the charger's new condition.
                    let mut a3 = a2.clone();
                    if let Some(Effect::Unit {
                        status,
                        lost,
                        destroyed,
                        ..
                    }) = acc
                        .effects
                        .iter()
                        .rev()
                        .find(|e| matches!(e, Effect::Unit { unit, .. } if *unit == a2.id))
                    {
                        a3.cond = Condition {
                            status: *status,
                            lost: *lost,
                            destroyed: *destroyed,
                        };
                    }
                    if levels >= 2 || a3.cond.destroyed {
                        let unit = [("unit", a2.name.as_str())];
                        acc.steps.push(super::resolve::told(
                            msg(keys::APP_DRIVEN_STEP_CHARGE_STOPPED, &[]),
                            msg(keys::APP_DRIVEN_RESULT_CHARGE_STOPPED, &unit),
                        ));
                        acc.summary
                            .push(msg(keys::APP_DRIVEN_SUMMARY_CHARGE_STOPPED, &unit));
                        acc.facet(
                            &charge_facet2,
                            msg(keys::APP_DRIVEN_VALUE_STOPPED_BY_FIRE, &[]),
                        );
                        acc.effects.push(Effect::Acted {
                            unit: a2.id.clone(),
                        });
                        Plan::Done(acc)
                    } else {
                        if !acc.facets.iter().any(|(k, _)| *k == charge_facet2) {
                            acc.facet(&charge_facet2, msg(keys::APP_DRIVEN_VALUE_CONTACT, &[]));
                        }
                        go_melee(acc, a3, t2.clone())
                    }
                }),
            );
        }
    }
    if !acc.facets.iter().any(|(k, _)| *k == charge_facet) {
        acc.facet(&charge_facet, msg(keys::APP_DRIVEN_VALUE_CONTACT, &[]));
    }
    Ok(go_melee(acc, a, t))
}

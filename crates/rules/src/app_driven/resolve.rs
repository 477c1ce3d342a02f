//! Dice plans for every action of the app-driven system. Each function declares its dice and its
//! modifiers; the same plan is rolled in play and enumerated for the odds.

use std::rc::Rc;
use std::sync::Arc;

use tercio_core::plan::{dice, throw};
use tercio_core::Depends;
use tercio_core::{Modifier, Plan, RolledDie, Step};

use super::model::{
    is_destroyed, lose_levels, Condition, Effect, Fate, Force, Ground, LeaderSnap, Status, UnitSnap,
};
use super::tables::{common as c, Charts, Class};
use tercio_i18n::{keys, msg};

/// A message without arguments.
fn t(key: &str) -> String {
    msg(key, &[])
}

/// The side a modifier counts for: "Actor" (the unit acting), "Target", "Firer" (a unit that
/// fires, its own or a defensive fire) or "Leader", as messages.
fn actor() -> String {
    t(keys::APP_DRIVEN_SIDE_ACTOR)
}
fn target() -> String {
    t(keys::APP_DRIVEN_SIDE_TARGET)
}
fn firer() -> String {
    t(keys::APP_DRIVEN_SIDE_FIRER)
}

/// Project design: the melee result chart. Difference = Actor total - Target total.
/// 0: both lose a level (the seeds' worked example: a tie throws both into disorder);
/// 1: the loser loses 1 level; 2-3: 2 levels; 4 or more: 3 levels.
pub fn melee_levels(diff: i32) -> (u8, u8) {
    let loser = match diff.abs() {
        0 => return (1, 1),
        1 => 1,
        2 | 3 => 2,
        _ => 3,
    };
    if diff > 0 {
        (0, loser)
    } else {
        (loser, 0)
    }
}

const DESIGN: &str = "project design";

/// Everything a resolution accumulates as it goes.
#[derive(Debug, Clone, Default)]
pub struct Acc {
    pub steps: Vec<Step>,
    pub effects: Vec<Effect>,
    pub facets: Vec<(String, String)>,
    pub summary: Vec<String>,
}

impl Acc {
    pub fn facet(&mut self, k: &str, v: impl Into<String>) {
        self.facets.push((k.to_string(), v.into()));
    }
}

/// A modifier. Its source is a seed's citation as written, or [`DESIGN`], recorded as a message
/// so that each reader sees "project design" in their language.
fn m(side: &str, name: impl Into<String>, value: i32, source: &str) -> Modifier {
    Modifier {
        side: side.to_owned(),
        name: name.into(),
        value,
        source: if source == DESIGN {
            t(keys::APP_DRIVEN_SOURCE_DESIGN)
        } else {
            source.to_string()
        },
    }
}

fn rolled(labels: &[String], faces: &[u8], sides: u8) -> Vec<RolledDie> {
    labels
        .iter()
        .zip(faces)
        .map(|(l, f)| RolledDie {
            label: l.clone(),
            sides,
            face: *f,
        })
        .collect()
}

fn sum(ms: &[Modifier], side: &str) -> i32 {
    ms.iter().filter(|x| x.side == side).map(|x| x.value).sum()
}

fn status_mod(side: &str, s: Status, out: &mut Vec<Modifier>) {
    match s {
        Status::Ok => {}
        Status::Disordered => out.push(m(side, s.title(), c::DISORDERED, DESIGN)),
        Status::Demoralized => out.push(m(side, s.title(), c::DEMORALIZED, DESIGN)),
    }
}

fn force_mod(f: Force) -> i32 {
    match f {
        Force::BadlyOutnumbered => c::BADLY_OUTNUMBERED,
        Force::Outnumbered => c::OUTNUMBERED,
        Force::Even => 0,
        Force::Outnumbers => c::OUTNUMBERS,
        Force::BadlyOutnumbers => c::BADLY_OUTNUMBERS,
    }
}

/// Melee ground effect by class (project design; see the rule docs).
pub fn ground_effect(class: Class, roughness: u8) -> i32 {
    match (roughness, class) {
        (0, _) => 0,
        (1, Class::HeavyMounted) => -2,
        (1, Class::LightMounted) | (1, Class::Pike) => -1,
        (1, Class::Loose) => 1,
        (1, _) => 0,
        (_, Class::HeavyMounted) => -3,
        (_, Class::LightMounted) | (_, Class::Pike) => -2,
        (_, Class::FormedFoot) | (_, Class::MissileFoot) => -1,
        (_, Class::Loose) => 1,
        (_, Class::Cannon) => 0,
    }
}

/// The fields of one melee.
#[derive(Debug, Clone)]
pub struct MeleeSetup {
    pub actor: UnitSnap,
    pub target: UnitSnap,
    pub ground: Ground,
    pub charging: bool,
    pub actor_in_flank: bool,
    pub target_in_flank: bool,
    pub force: Force,
    pub bad_war: bool,
    /// The Supporting units named, which have acted with the melee.
    pub supporting: Supporting,
}

/// The Supporting units of a melee (both seeds, 'Any unit involved in a combat which is neither
/// the Actor nor the Target is termed a "Supporting" unit'): their bases count in the force
/// ratio, and when named (in a game) they and the leaders attached to them have acted ('All
/// units involved in the combat will be considered to have acted').
#[derive(Debug, Clone, Default)]
pub struct Supporting {
    /// Bases on the Actor's side and on the Target's.
    pub actor_bases: u32,
    pub target_bases: u32,
    /// The units named on each side: id and name.
    pub actor_units: Vec<(String, String)>,
    pub target_units: Vec<(String, String)>,
    /// The leaders attached to them.
    pub leaders: Vec<String>,
}

/// Whether planted stakes count in this melee: a mounted unit charging the staked archers
/// frontally (ABDF 'Archer's stakes ... giving any mounted unit frontally charging their defenders
/// a setting of rough ground', for the consequent Melee action), whatever the ground field says.
pub fn stakes_count(s: &MeleeSetup) -> bool {
    s.charging && s.target.stakes_planted && s.actor.troop.class.mounted() && !s.target_in_flank
}

/// How rough the going is for this melee: the ground field's, and at least rough when the stakes
/// count. The stakes combine with the ground (decision "Stakes" of the design document): on a
/// slope, behind an obstacle or in a fortified position the defender keeps that advantage and the
/// stakes still break the charge, so better ground for the defender never helps the charger.
pub fn roughness(s: &MeleeSetup) -> u8 {
    if stakes_count(s) {
        s.ground.roughness().max(1)
    } else {
        s.ground.roughness()
    }
}

/// The going of this melee as the result line names it: the ground field's, or rough ground
/// when the stakes make level going rough.
pub fn ground_label(s: &MeleeSetup) -> String {
    if stakes_count(s) && s.ground.roughness() == 0 && s.ground != Ground::Open {
        t(keys::APP_DRIVEN_GOING_STAKES)
    } else if stakes_count(s) && s.ground == Ground::Open {
        Ground::Rough.label()
    } else {
        s.ground.label()
    }
}

/// The modifiers of a melee, each named, valued and sourced. Side "Actor" or "Target" (as
/// messages).
pub fn melee_modifiers(ch: &Charts, s: &MeleeSetup) -> Vec<Modifier> {
    let mut out = Vec::new();
    let ground = s.ground;
    let staked = stakes_count(s);
    let (actor, target) = (actor(), target());
    if staked {
        out.push(m(
            &target,
            t(keys::APP_DRIVEN_MOD_STAKES),
            0,
            "002 'Archer's stakes ... a setting of rough ground'",
        ));
    }
    for (side, me, other, flank) in [
        (&actor, &s.actor, &s.target, s.actor_in_flank),
        (&target, &s.target, &s.actor, s.target_in_flank),
    ] {
        let vs_mounted = other.troop.class.mounted();
        let f = if vs_mounted {
            me.troop.melee_vs_mounted
        } else {
            me.troop.melee_vs_foot
        };
        out.push(m(
            side,
            msg(
                if vs_mounted {
                    keys::APP_DRIVEN_TROOP_TERM_VS_MOUNTED
                } else {
                    keys::APP_DRIVEN_TROOP_TERM_VS_FOOT
                },
                &[("troop", &me.troop.title())],
            ),
            f,
            DESIGN,
        ));
        let g = ground_effect(me.troop.class, roughness(s));
        if g != 0 {
            out.push(m(side, ground_label(s), g, DESIGN));
        }
        if me.leader.is_some() {
            out.push(m(
                side,
                t(keys::APP_DRIVEN_MOD_LEADER_WITH_UNIT),
                c::LEADER_WITH_UNIT,
                "000/002 'Leaders ... can help with some actions (such as Melee and Rallying)'",
            ));
        }
        status_mod(side, me.cond.status, &mut out);
        if flank {
            out.push(m(
                side,
                t(keys::APP_DRIVEN_MOD_FLANK),
                c::IN_FLANK_OR_REAR,
                DESIGN,
            ));
        }
    }
    if s.charging && s.actor.troop.impact != 0 {
        if !staked && matches!(ground, Ground::Open | Ground::ActorUphill) {
            out.push(m(
                &actor,
                t(keys::APP_DRIVEN_MOD_IMPACT),
                s.actor.troop.impact,
                DESIGN,
            ));
        } else {
            out.push(m(
                &actor,
                msg(
                    keys::APP_DRIVEN_MOD_NO_IMPACT,
                    &[("ground", &ground_label(s))],
                ),
                0,
                DESIGN,
            ));
        }
    }
    // The side the ground favours: higher ground, or an obstacle or works it holds (the
    // Actor's own, issue 17, item 11, count as the target's do).
    let favoured = match ground {
        Ground::ActorUphill => Some((&actor, keys::APP_DRIVEN_MOD_HIGHER_GROUND, c::UPHILL)),
        Ground::TargetUphill => Some((&target, keys::APP_DRIVEN_MOD_HIGHER_GROUND, c::UPHILL)),
        Ground::Obstacle => Some((&target, keys::APP_DRIVEN_MOD_OBSTACLE, c::BEHIND_OBSTACLE)),
        Ground::Fortified => Some((&target, keys::APP_DRIVEN_MOD_FORTIFIED, c::FORTIFIED)),
        Ground::ActorObstacle => Some((&actor, keys::APP_DRIVEN_MOD_OBSTACLE, c::BEHIND_OBSTACLE)),
        Ground::ActorFortified => Some((&actor, keys::APP_DRIVEN_MOD_FORTIFIED, c::FORTIFIED)),
        _ => None,
    };
    if let Some((side, key, value)) = favoured {
        out.push(m(side, t(key), value, DESIGN));
    }
    // Troops good against fixed positions, attacking one: the Actor against the target's, the
    // Target against the Actor's.
    let attacker = match ground {
        Ground::Obstacle | Ground::Fortified => Some((&actor, &s.actor)),
        Ground::ActorObstacle | Ground::ActorFortified => Some((&target, &s.target)),
        _ => None,
    };
    if let Some((side, u)) = attacker.filter(|(_, u)| u.troop.vs_fixed_positions != 0) {
        out.push(m(
            side,
            t(keys::APP_DRIVEN_MOD_FIXED_POSITIONS),
            u.troop.vs_fixed_positions,
            "000 Forlorn Hope 'fight well ... especially against fixed positions'",
        ));
    }
    let fm = force_mod(s.force);
    if fm != 0 {
        out.push(m(&actor, s.force.label(), fm, DESIGN));
    }
    let _ = ch;
    out
}

/// The leader risk roll for a leader with a unit that lost a melee.
fn leader_risk(ch: &Charts, acc: Acc, leader: LeaderSnap, unit_destroyed: bool) -> Plan<Acc> {
    let limit = if unit_destroyed {
        ch.leader_risk_destroyed
    } else {
        ch.leader_risk
    };
    let leader = Rc::new(leader);
    let label = msg(keys::APP_DRIVEN_DIE_RISK, &[("leader", &leader.name)]);
    throw(2, 6, &label, Depends::Sum).map(move |f| {
        let mut acc = acc.clone();
        let total = i32::from(f[0]) + i32::from(f[1]);
        let fate = if total <= limit {
            Some(if total == 2 {
                Fate::Killed
            } else {
                Fate::Captured
            })
        } else {
            None
        };
        let result = msg(
            match fate {
                Some(Fate::Killed) => keys::APP_DRIVEN_RESULT_KILLED,
                Some(Fate::Captured) => keys::APP_DRIVEN_RESULT_CAPTURED,
                None => keys::APP_DRIVEN_RESULT_UNHARMED,
            },
            &[("leader", &leader.name)],
        );
        acc.steps.push(Step {
            title: msg(
                keys::APP_DRIVEN_STEP_LEADER_RISK,
                &[("leader", &leader.name), ("limit", &limit.to_string())],
            ),
            dice: rolled(&numbered(keys::APP_DRIVEN_DIE_RISK_N, 2), &f, 6),
            modifiers: vec![],
            totals: vec![("2D6".to_string(), total)],
            result: result.clone(),
        });
        acc.facet(
            &msg(keys::APP_DRIVEN_FACET_LEADER, &[("leader", &leader.name)]),
            t(match fate {
                Some(Fate::Killed) => keys::APP_DRIVEN_VALUE_KILLED,
                Some(Fate::Captured) => keys::APP_DRIVEN_VALUE_CAPTURED,
                None => keys::APP_DRIVEN_VALUE_SAFE,
            }),
        );
        if let Some(fate) = fate {
            acc.effects.push(Effect::LeaderFate {
                leader: leader.id.clone(),
                fate,
            });
            acc.summary.push(result);
        } else if unit_destroyed {
            acc.effects.push(Effect::LeaderAttached {
                leader: leader.id.clone(),
                unit: None,
            });
        }
        acc
    })
}

/// A step that rolls nothing: its title and what happened (a move, a leader, a turn's step).
pub fn told(title: String, result: String) -> Step {
    Step {
        title,
        dice: vec![],
        modifiers: vec![],
        totals: vec![],
        result,
    }
}

/// The labels of `n` dice numbered from 1 (`key` has an `{n}` placeholder).
fn numbered(key: &str, n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| msg(key, &[("n", &i.to_string())]))
        .collect()
}

/// Which side of a melee came out ahead.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ahead {
    Actor,
    Tie,
    Target,
}

fn unit_effect(u: &UnitSnap, c: Condition, uncounted: bool) -> Effect {
    Effect::Unit {
        unit: u.id.clone(),
        status: c.status,
        lost: c.lost,
        destroyed: c.destroyed,
        uncounted,
    }
}

/// A melee: each side rolls a D6 and adds its modifiers.
pub fn melee(ch: &Arc<Charts>, acc: Acc, s: MeleeSetup) -> Plan<Acc> {
    let ch = ch.clone();
    let mut acc = acc;
    acc.steps.extend(supporting_step(&s));
    let mods = melee_modifiers(&ch, &s);
    let a_mod = sum(&mods, &actor());
    let t_mod = sum(&mods, &target());
    let s = Rc::new(s);
    let mods = Rc::new(mods);
    throw(2, 6, &t(keys::APP_DRIVEN_DIE_MELEE), Depends::Difference).and_then(move |f| {
        let s = s.clone();
        let mut acc = acc.clone();
        let a_total = i32::from(f[0]) + a_mod;
        let t_total = i32::from(f[1]) + t_mod;
        let (al, tl) = melee_levels(a_total - t_total);
        let ac = lose_levels(s.actor.cond, s.actor.bases, al, s.bad_war);
        let tc = lose_levels(s.target.cond, s.target.bases, tl, s.bad_war);
        // Bad War: the survivor of a fight to the last, if below half, leaves the field uncounted.
        let a_gone_uncounted = s.bad_war
            && !ac.destroyed
            && tc.destroyed
            && is_destroyed(s.actor.bases, ac.lost, false);
        let t_gone_uncounted = s.bad_war
            && !tc.destroyed
            && ac.destroyed
            && is_destroyed(s.target.bases, tc.lost, false);
        let winner = match al.cmp(&tl) {
            std::cmp::Ordering::Less => Ahead::Actor,
            std::cmp::Ordering::Equal => Ahead::Tie,
            std::cmp::Ordering::Greater => Ahead::Target,
        };
        let mut lines = Vec::new();
        let describe = |u: &UnitSnap, l: u8, c: Condition, gone: bool| {
            let cond = c.describe(u.bases);
            let text = if l == 0 {
                msg(
                    keys::APP_DRIVEN_RESULT_HOLDS,
                    &[("unit", &u.name), ("cond", &cond)],
                )
            } else {
                msg(
                    keys::APP_DRIVEN_RESULT_LOSES,
                    &[
                        ("unit", &u.name),
                        ("count", &l.to_string()),
                        ("cond", &cond),
                    ],
                )
            };
            if gone {
                msg(keys::APP_DRIVEN_RESULT_LEAVES_FIELD, &[("text", &text)])
            } else {
                text
            }
        };
        lines.push(describe(&s.actor, al, ac, a_gone_uncounted));
        lines.push(describe(&s.target, tl, tc, t_gone_uncounted));
        let outcome = t(match winner {
            Ahead::Actor => keys::APP_DRIVEN_VALUE_ACTOR_AHEAD,
            Ahead::Tie => keys::APP_DRIVEN_VALUE_TIE,
            Ahead::Target => keys::APP_DRIVEN_VALUE_TARGET_AHEAD,
        });
        let result = match winner {
            Ahead::Tie => msg(keys::APP_DRIVEN_RESULT_TIE, &[("lines", &lines.join("; "))]),
            _ => msg(
                keys::APP_DRIVEN_RESULT_AHEAD,
                &[
                    (
                        "who",
                        &t(if winner == Ahead::Actor {
                            keys::APP_DRIVEN_RESULT_ACTOR_AHEAD
                        } else {
                            keys::APP_DRIVEN_RESULT_TARGET_AHEAD
                        }),
                    ),
                    ("ground", &ground_label(&s)),
                    ("lines", &lines.join("; ")),
                ],
            ),
        };
        let title = msg(
            if s.charging {
                keys::APP_DRIVEN_STEP_MELEE_CHARGING
            } else {
                keys::APP_DRIVEN_STEP_MELEE
            },
            &[("actor", &s.actor.name), ("target", &s.target.name)],
        );
        acc.steps.push(Step {
            title: if s.bad_war {
                msg(keys::APP_DRIVEN_STEP_BAD_WAR, &[("title", &title)])
            } else {
                title
            },
            dice: rolled(
                &[
                    t(keys::APP_DRIVEN_DIE_ACTOR),
                    t(keys::APP_DRIVEN_DIE_TARGET),
                ],
                &f,
                6,
            ),
            modifiers: (*mods).clone(),
            totals: vec![(actor(), a_total), (target(), t_total)],
            result,
        });
        acc.summary.push(lines.join("; "));
        acc.facet(&t(keys::APP_DRIVEN_FACET_MELEE), outcome);
        acc.facet(&t(keys::APP_DRIVEN_FACET_ACTOR_LEVELS), al.to_string());
        acc.facet(&t(keys::APP_DRIVEN_FACET_TARGET_LEVELS), tl.to_string());
        acc.facet(
            &t(keys::APP_DRIVEN_FACET_ACTOR_DESTROYED),
            yes(ac.destroyed),
        );
        acc.facet(
            &t(keys::APP_DRIVEN_FACET_TARGET_DESTROYED),
            yes(tc.destroyed),
        );
        let ac_final = if a_gone_uncounted {
            Condition {
                destroyed: true,
                ..ac
            }
        } else {
            ac
        };
        let tc_final = if t_gone_uncounted {
            Condition {
                destroyed: true,
                ..tc
            }
        } else {
            tc
        };
        acc.effects
            .push(unit_effect(&s.actor, ac_final, a_gone_uncounted));
        acc.effects
            .push(unit_effect(&s.target, tc_final, t_gone_uncounted));
        acc.effects.push(Effect::Acted {
            unit: s.actor.id.clone(),
        });
        acc.effects.push(Effect::Acted {
            unit: s.target.id.clone(),
        });
        for u in [&s.actor, &s.target] {
            if let Some(l) = &u.leader {
                acc.effects.push(Effect::LeaderCaughtUp {
                    leader: l.id.clone(),
                });
            }
        }
        let sup = &s.supporting;
        for (unit, _) in sup.actor_units.iter().chain(&sup.target_units) {
            acc.effects.push(Effect::Acted { unit: unit.clone() });
        }
        for leader in &sup.leaders {
            acc.effects.push(Effect::LeaderActed {
                leader: leader.clone(),
            });
        }
        if !ac_final.destroyed && !tc_final.destroyed {
            acc.effects.push(Effect::CombatJoined {
                a: s.actor.id.clone(),
                b: s.target.id.clone(),
            });
        }
        // The leader of the losing side risks death or capture.
        let risk = match winner {
            Ahead::Actor => s.target.leader.clone().map(|l| (l, tc.destroyed)),
            Ahead::Target => s.actor.leader.clone().map(|l| (l, ac.destroyed)),
            Ahead::Tie => None,
        };
        match risk {
            Some((l, destroyed)) => leader_risk(&ch, acc, l, destroyed),
            None => {
                // A leader whose unit is destroyed without losing (a tie) simply moves away.
                for (u, c) in [(&s.actor, ac_final), (&s.target, tc_final)] {
                    if let (true, Some(l)) = (c.destroyed, &u.leader) {
                        acc.effects.push(Effect::LeaderAttached {
                            leader: l.id.clone(),
                            unit: None,
                        });
                    }
                }
                Plan::Done(acc)
            }
        }
    })
}

/// The Supporting units named for a melee, side by side: a step that rolls nothing (none when
/// no unit is named).
fn supporting_step(s: &MeleeSetup) -> Option<Step> {
    let side = |units: &[(String, String)], of: &UnitSnap| {
        let names: Vec<&str> = units.iter().map(|(_, n)| n.as_str()).collect();
        (!names.is_empty()).then(|| {
            msg(
                keys::APP_DRIVEN_RESULT_SUPPORTING_SIDE,
                &[("units", &names.join(", ")), ("unit", &of.name)],
            )
        })
    };
    let sup = &s.supporting;
    let lines: Vec<String> = [
        side(&sup.actor_units, &s.actor),
        side(&sup.target_units, &s.target),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!lines.is_empty()).then(|| {
        told(
            t(keys::APP_DRIVEN_STEP_SUPPORTING),
            msg(
                keys::APP_DRIVEN_RESULT_SUPPORTING,
                &[("lines", &lines.join("; "))],
            ),
        )
    })
}

/// "yes" or "no", as a message.
pub fn yes(b: bool) -> String {
    t(if b {
        keys::APP_DRIVEN_VALUE_YES
    } else {
        keys::APP_DRIVEN_VALUE_NO
    })
}

#[derive(Debug, Clone)]
pub struct FireSetup {
    pub actor: UnitSnap,
    pub target: UnitSnap,
    pub ground: Ground,
    pub force: Force,
    pub defensive: bool,
}

pub fn fire_modifiers(s: &FireSetup) -> Vec<Modifier> {
    let mut out = Vec::new();
    let Some(w) = s.actor.troop.fire else {
        return out;
    };
    let (firer, target) = (firer(), target());
    out.push(m(
        &firer,
        msg(
            keys::APP_DRIVEN_TROOP_TERM_FIRE,
            &[("troop", &s.actor.troop.title())],
        ),
        w.factor,
        DESIGN,
    ));
    if w.vs_heavy_mounted != 0 && s.target.troop.class == Class::HeavyMounted {
        out.push(m(
            &firer,
            t(keys::APP_DRIVEN_MOD_ARMOUR_PIERCING),
            w.vs_heavy_mounted,
            DESIGN,
        ));
    }
    if w.vs_pike != 0 && s.target.troop.class == Class::Pike {
        out.push(m(
            &firer,
            t(keys::APP_DRIVEN_MOD_ROUND_SHOT),
            w.vs_pike,
            DESIGN,
        ));
    }
    if s.target.troop.fire_target != 0 {
        out.push(m(
            &target,
            msg(
                keys::APP_DRIVEN_TROOP_TERM_AS_TARGET,
                &[("troop", &s.target.troop.title())],
            ),
            s.target.troop.fire_target,
            DESIGN,
        ));
    }
    let fm = force_mod(s.force);
    if fm != 0 {
        out.push(m(&firer, s.force.label(), fm, DESIGN));
    }
    status_mod(&firer, s.actor.cond.status, &mut out);
    match s.ground {
        Ground::RoughCover | Ground::VeryRoughCover | Ground::Obstacle => {
            out.push(m(&target, t(keys::APP_DRIVEN_MOD_COVER), c::COVER, DESIGN))
        }
        Ground::Fortified => out.push(m(
            &target,
            t(keys::APP_DRIVEN_MOD_HARD_COVER),
            c::HARD_COVER,
            DESIGN,
        )),
        _ => {}
    }
    out
}

/// Fire: 2D6 plus modifiers against the fire chart.
pub fn fire(ch: &Arc<Charts>, acc: Acc, s: FireSetup) -> Plan<(Acc, u8)> {
    let ch = ch.clone();
    let mods = Rc::new(fire_modifiers(&s));
    let total_mod: i32 = mods.iter().map(|x| x.value).sum();
    let s = Rc::new(s);
    throw(2, 6, &t(keys::APP_DRIVEN_DIE_FIRE), Depends::Sum).map(move |f| {
        let mut acc = acc.clone();
        let total = i32::from(f[0]) + i32::from(f[1]) + total_mod;
        let levels: u8 = if total >= ch.fire_two {
            2
        } else if total >= ch.fire_one {
            1
        } else {
            0
        };
        let tc = lose_levels(s.target.cond, s.target.bases, levels, false);
        let cond = tc.describe(s.target.bases);
        let result = msg(
            match levels {
                0 => keys::APP_DRIVEN_RESULT_NO_EFFECT,
                1 => keys::APP_DRIVEN_RESULT_LOSES_LEVEL,
                _ => keys::APP_DRIVEN_RESULT_DEVASTATING,
            },
            &[("unit", &s.target.name), ("cond", &cond)],
        );
        let range = s.actor.troop.fire.map_or(0, |w| w.range);
        acc.steps.push(Step {
            title: msg(
                if s.defensive {
                    keys::APP_DRIVEN_STEP_DEFENSIVE_FIRE
                } else {
                    keys::APP_DRIVEN_STEP_FIRE
                },
                &[
                    ("actor", &s.actor.name),
                    ("target", &s.target.name),
                    ("range", &range.to_string()),
                    ("one", &ch.fire_one.to_string()),
                    ("below", &(ch.fire_two - 1).to_string()),
                    ("two", &ch.fire_two.to_string()),
                ],
            ),
            dice: rolled(&numbered(keys::APP_DRIVEN_DIE_FIRE_N, 2), &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![(t(keys::APP_DRIVEN_TOTAL_FIRE), total)],
            result: result.clone(),
        });
        acc.summary.push(result);
        let key = if s.defensive {
            keys::APP_DRIVEN_FACET_DEFENSIVE_FIRE
        } else {
            keys::APP_DRIVEN_FACET_FIRE
        };
        acc.facet(
            &t(key),
            t([
                keys::APP_DRIVEN_VALUE_NO_EFFECT,
                keys::APP_DRIVEN_VALUE_ONE_LEVEL,
                keys::APP_DRIVEN_VALUE_DEVASTATING,
            ][usize::from(levels)]),
        );
        acc.facet(
            &t(if s.defensive {
                keys::APP_DRIVEN_FACET_CHARGER_DESTROYED
            } else {
                keys::APP_DRIVEN_FACET_TARGET_DESTROYED
            }),
            yes(tc.destroyed),
        );
        acc.effects.push(unit_effect(&s.target, tc, false));
        acc.effects.push(Effect::Acted {
            unit: s.actor.id.clone(),
        });
        (acc, levels)
    })
}

/// Regroup: D6 + modifiers; regains 0, 1 or 2 levels.
pub fn regroup(ch: &Arc<Charts>, acc: Acc, u: UnitSnap) -> Plan<(Acc, Status)> {
    let ch = ch.clone();
    let mut mods = Vec::new();
    let actor = actor();
    if u.leader.is_some() {
        mods.push(m(
            &actor,
            t(keys::APP_DRIVEN_MOD_LEADER_WITH_ACTOR),
            c::LEADER_WITH_UNIT,
            "000/002 'Leaders ... can help with some actions (such as Melee and Rallying)'",
        ));
    }
    if u.cond.status == Status::Demoralized {
        mods.push(m(
            &actor,
            Status::Demoralized.title(),
            c::REGROUP_DEMORALIZED,
            DESIGN,
        ));
    }
    if u.has_flag("undisciplined") {
        mods.push(m(
            &actor,
            t(keys::APP_DRIVEN_MOD_UNDISCIPLINED),
            c::UNDISCIPLINED,
            "002 'undisciplined' (behaviour, not capabilities): project design",
        ));
    }
    let total_mod = sum(&mods, &actor);
    let u = Rc::new(u);
    let mods = Rc::new(mods);
    dice(1, 6, &t(keys::APP_DRIVEN_DIE_REGROUP)).map(move |f| {
        let mut acc = acc.clone();
        let total = i32::from(f[0]) + total_mod;
        let gained: u8 = if total >= ch.regroup_two {
            2
        } else if total >= ch.regroup_one {
            1
        } else {
            0
        };
        let after = super::model::gain_levels(u.cond.status, gained);
        let result = if after == u.cond.status {
            msg(
                keys::APP_DRIVEN_RESULT_REGROUP_FAILS,
                &[("unit", &u.name), ("status", &after.title())],
            )
        } else {
            msg(
                keys::APP_DRIVEN_RESULT_REGROUPS,
                &[
                    ("unit", &u.name),
                    ("from", &u.cond.status.title()),
                    ("to", &after.title()),
                ],
            )
        };
        acc.steps.push(Step {
            title: msg(
                keys::APP_DRIVEN_STEP_REGROUP,
                &[
                    ("unit", &u.name),
                    ("one", &ch.regroup_one.to_string()),
                    ("below", &(ch.regroup_two - 1).to_string()),
                    ("two", &ch.regroup_two.to_string()),
                ],
            ),
            dice: rolled(&[t(keys::APP_DRIVEN_DIE_REGROUP)], &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![(t(keys::APP_DRIVEN_TOTAL_REGROUP), total)],
            result: result.clone(),
        });
        acc.summary.push(result);
        let regained = match (u.cond.status, after) {
            (a, b) if a == b => 0,
            (Status::Demoralized, Status::Ok) => 2,
            _ => 1,
        };
        acc.facet(
            &t(keys::APP_DRIVEN_FACET_REGROUP),
            msg(
                keys::APP_DRIVEN_VALUE_LEVELS,
                &[("count", &regained.to_string())],
            ),
        );
        acc.facet(&t(keys::APP_DRIVEN_FACET_STATUS_AFTER), after.title());
        acc.effects.push(Effect::Unit {
            unit: u.id.clone(),
            status: after,
            lost: u.cond.lost,
            destroyed: false,
            uncounted: false,
        });
        acc.effects.push(Effect::Acted { unit: u.id.clone() });
        (acc, after)
    })
}

/// Retire from an ongoing combat: D6 + modifiers, success at `retire_success`.
pub fn retire(ch: &Arc<Charts>, acc: Acc, u: UnitSnap) -> Plan<(Acc, bool)> {
    let ch = ch.clone();
    let actor = actor();
    let mut mods = vec![m(
        &actor,
        msg(
            keys::APP_DRIVEN_TROOP_TERM_BREAKING_OFF,
            &[("troop", &u.troop.title())],
        ),
        u.troop.retire,
        DESIGN,
    )];
    if u.leader.is_some() {
        mods.push(m(
            &actor,
            t(keys::APP_DRIVEN_MOD_LEADER_WITH_ACTOR),
            c::LEADER_WITH_UNIT,
            DESIGN,
        ));
    }
    if u.has_flag("undisciplined") {
        mods.push(m(
            &actor,
            t(keys::APP_DRIVEN_MOD_UNDISCIPLINED),
            c::UNDISCIPLINED,
            "002 'undisciplined': project design",
        ));
    }
    let total_mod = sum(&mods, &actor);
    let u = Rc::new(u);
    let mods = Rc::new(mods);
    dice(1, 6, &t(keys::APP_DRIVEN_DIE_RETIRE)).map(move |f| {
        let mut acc = acc.clone();
        let total = i32::from(f[0]) + total_mod;
        let ok = total >= ch.retire_success;
        let inches = u.troop.retire_move.unwrap_or(0).to_string();
        let result = if ok {
            msg(
                keys::APP_DRIVEN_RESULT_RETIRES,
                &[("unit", &u.name), ("inches", &inches)],
            )
        } else {
            msg(keys::APP_DRIVEN_RESULT_RETIRE_FAILS, &[("unit", &u.name)])
        };
        acc.steps.push(Step {
            title: msg(
                keys::APP_DRIVEN_STEP_RETIRE,
                &[("unit", &u.name), ("n", &ch.retire_success.to_string())],
            ),
            dice: rolled(&[t(keys::APP_DRIVEN_DIE_RETIRE)], &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![(t(keys::APP_DRIVEN_TOTAL_RETIRE), total)],
            result: result.clone(),
        });
        acc.summary.push(result);
        acc.facet(
            &t(keys::APP_DRIVEN_FACET_RETIRE),
            t(if ok {
                keys::APP_DRIVEN_VALUE_SUCCESS
            } else {
                keys::APP_DRIVEN_VALUE_FAILED
            }),
        );
        acc.effects.push(Effect::Acted { unit: u.id.clone() });
        (acc, ok)
    })
}

/// Initiative: each side rolls a D6; the higher has the initiative; a tie goes to the side that did
/// not have the last one (the attacker at the start of a turn).
pub fn initiative(
    acc: Acc,
    attacker: (String, String),
    defender: (String, String),
    tie_to: String,
) -> Plan<Acc> {
    throw(
        2,
        6,
        &t(keys::APP_DRIVEN_DIE_INITIATIVE),
        Depends::Difference,
    )
    .map(move |f| {
        let mut acc = acc.clone();
        let (a, d) = (f[0], f[1]);
        let side = match a.cmp(&d) {
            std::cmp::Ordering::Greater => attacker.0.clone(),
            std::cmp::Ordering::Less => defender.0.clone(),
            std::cmp::Ordering::Equal => tie_to.clone(),
        };
        let name = if side == attacker.0 {
            &attacker.1
        } else {
            &defender.1
        };
        let result = msg(
            if a == d {
                keys::APP_DRIVEN_RESULT_INITIATIVE_TIE
            } else {
                keys::APP_DRIVEN_RESULT_INITIATIVE
            },
            &[("side", name)],
        );
        let role = |name: &str, role: &str| {
            msg(
                keys::APP_DRIVEN_SIDE_ROLE,
                &[("side", name), ("role", &format!("@{role}"))],
            )
        };
        acc.steps.push(Step {
            title: t(keys::APP_DRIVEN_ACTION_INITIATIVE),
            dice: vec![
                RolledDie {
                    label: role(&attacker.1, keys::APP_DRIVEN_BOARD_ATTACKER),
                    sides: 6,
                    face: a,
                },
                RolledDie {
                    label: role(&defender.1, keys::APP_DRIVEN_BOARD_DEFENDER),
                    sides: 6,
                    face: d,
                },
            ],
            modifiers: vec![],
            totals: vec![],
            result: result.clone(),
        });
        acc.summary.push(result);
        acc.facet(&t(keys::APP_DRIVEN_FACET_INITIATIVE), name.clone());
        acc.effects.push(Effect::Initiative { side });
        acc
    })
}

/// Command: a D6 on the activation chart, plus the leader's bonus.
pub fn command(ch: &Arc<Charts>, acc: Acc, leader: LeaderSnap, bonus: u8) -> Plan<Acc> {
    let ch = ch.clone();
    let leader = Rc::new(leader);
    dice(1, 6, &t(keys::APP_DRIVEN_DIE_COMMAND)).map(move |f| {
        let mut acc = acc.clone();
        let base = ch.activations[usize::from(f[0] - 1)];
        let n = base + bonus;
        let mut mods = vec![];
        if bonus > 0 {
            mods.push(m(
                &t(keys::APP_DRIVEN_SIDE_LEADER),
                t(keys::APP_DRIVEN_MOD_LEADER_BONUS),
                i32::from(bonus),
                "000/002 'bonus rating ... increase the number of activations'",
            ));
        }
        let result = msg(
            keys::APP_DRIVEN_RESULT_ACTIVATIONS,
            &[("leader", &leader.name), ("count", &n.to_string())],
        );
        acc.steps.push(Step {
            title: msg(keys::APP_DRIVEN_STEP_COMMAND, &[("leader", &leader.name)]),
            dice: rolled(&[t(keys::APP_DRIVEN_DIE_COMMAND)], &f, 6),
            modifiers: mods,
            totals: vec![(t(keys::APP_DRIVEN_TOTAL_ACTIVATIONS), i32::from(n))],
            result: result.clone(),
        });
        acc.summary.push(result);
        acc.facet(&t(keys::APP_DRIVEN_FACET_ACTIVATIONS), n.to_string());
        acc.effects.push(Effect::Command {
            leader: leader.id.clone(),
            activations: n,
        });
        acc
    })
}

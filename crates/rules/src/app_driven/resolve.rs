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

fn m(side: &str, name: impl Into<String>, value: i32, source: &str) -> Modifier {
    Modifier {
        side: side.to_string(),
        name: name.into(),
        value,
        source: source.to_string(),
    }
}

fn rolled(labels: &[&str], faces: &[u8], sides: u8) -> Vec<RolledDie> {
    labels
        .iter()
        .zip(faces)
        .map(|(l, f)| RolledDie {
            label: (*l).to_string(),
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
        Status::Disordered => out.push(m(side, "Disordered", c::DISORDERED, DESIGN)),
        Status::Demoralized => out.push(m(side, "Demoralized", c::DEMORALIZED, DESIGN)),
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
pub fn ground_label(s: &MeleeSetup) -> &'static str {
    if stakes_count(s) && s.ground.roughness() == 0 && s.ground != Ground::Open {
        "rough ground (stakes)"
    } else if stakes_count(s) && s.ground == Ground::Open {
        Ground::Rough.label()
    } else {
        s.ground.label()
    }
}

/// The modifiers of a melee, each named, valued and sourced. Side "Actor" or "Target".
pub fn melee_modifiers(ch: &Charts, s: &MeleeSetup) -> Vec<Modifier> {
    let mut out = Vec::new();
    let ground = s.ground;
    let staked = stakes_count(s);
    if staked {
        out.push(m(
            "Target",
            "Stakes: the mounted charge counts as rough ground",
            0,
            "002 'Archer's stakes ... a setting of rough ground'",
        ));
    }
    for (side, me, other) in [
        ("Actor", &s.actor, &s.target),
        ("Target", &s.target, &s.actor),
    ] {
        let vs_mounted = other.troop.class.mounted();
        let f = if vs_mounted {
            me.troop.melee_vs_mounted
        } else {
            me.troop.melee_vs_foot
        };
        out.push(m(
            side,
            format!(
                "{} against {}",
                me.troop.name,
                if vs_mounted { "mounted" } else { "foot" }
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
                "Leader with unit",
                c::LEADER_WITH_UNIT,
                "000/002 'Leaders ... can help with some actions (such as Melee and Rallying)'",
            ));
        }
        status_mod(side, me.cond.status, &mut out);
        let flank = if side == "Actor" {
            s.actor_in_flank
        } else {
            s.target_in_flank
        };
        if flank {
            out.push(m(side, "Taken in flank/rear", c::IN_FLANK_OR_REAR, DESIGN));
        }
    }
    if s.charging && s.actor.troop.impact != 0 {
        if !staked && matches!(ground, Ground::Open | Ground::ActorUphill) {
            out.push(m(
                "Actor",
                "Charging (impact)",
                s.actor.troop.impact,
                DESIGN,
            ));
        } else {
            out.push(m(
                "Actor",
                format!("Charging: no impact on {}", ground_label(s)),
                0,
                DESIGN,
            ));
        }
    }
    match ground {
        Ground::ActorUphill => out.push(m("Actor", "Higher ground", c::UPHILL, DESIGN)),
        Ground::TargetUphill => out.push(m("Target", "Higher ground", c::UPHILL, DESIGN)),
        Ground::Obstacle => out.push(m(
            "Target",
            "Defending an obstacle",
            c::BEHIND_OBSTACLE,
            DESIGN,
        )),
        Ground::Fortified => out.push(m("Target", "Fortified position", c::FORTIFIED, DESIGN)),
        _ => {}
    }
    if matches!(ground, Ground::Obstacle | Ground::Fortified)
        && s.actor.troop.vs_fixed_positions != 0
    {
        out.push(m(
            "Actor",
            "Good against fixed positions",
            s.actor.troop.vs_fixed_positions,
            "000 Forlorn Hope 'fight well ... especially against fixed positions'",
        ));
    }
    let fm = force_mod(s.force);
    if fm != 0 {
        out.push(m("Actor", s.force.label(), fm, DESIGN));
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
    throw(2, 6, &format!("{} risk die", leader.name), Depends::Sum).map(move |f| {
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
        let result = match fate {
            Some(Fate::Killed) => format!("{} is killed", leader.name),
            Some(Fate::Captured) => format!("{} is captured", leader.name),
            None => format!("{} comes through unharmed", leader.name),
        };
        acc.steps.push(Step {
            title: format!(
                "Leader risk: {} with the losing unit (killed on 2, captured on 3-{limit})",
                leader.name
            ),
            dice: rolled(&["Risk die 1", "Risk die 2"], &f, 6),
            modifiers: vec![],
            totals: vec![("2D6".to_string(), total)],
            result: result.clone(),
        });
        acc.facet(
            &format!("leader {}", leader.name),
            match fate {
                Some(Fate::Killed) => "killed",
                Some(Fate::Captured) => "captured",
                None => "safe",
            },
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
    let mods = melee_modifiers(&ch, &s);
    let a_mod = sum(&mods, "Actor");
    let t_mod = sum(&mods, "Target");
    let s = Rc::new(s);
    let mods = Rc::new(mods);
    throw(2, 6, "Melee die", Depends::Difference).and_then(move |f| {
        let s = s.clone();
        let mut acc = acc.clone();
        let a = i32::from(f[0]) + a_mod;
        let t = i32::from(f[1]) + t_mod;
        let (al, tl) = melee_levels(a - t);
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
            std::cmp::Ordering::Less => "actor ahead",
            std::cmp::Ordering::Equal => "tie",
            std::cmp::Ordering::Greater => "target ahead",
        };
        let mut lines = Vec::new();
        let describe = |u: &UnitSnap, l: u8, c: Condition, gone: bool| {
            let mut t = if l == 0 {
                format!("{} holds ({})", u.name, c.describe(u.bases))
            } else {
                format!(
                    "{} loses {} level{}: {}",
                    u.name,
                    l,
                    if l == 1 { "" } else { "s" },
                    c.describe(u.bases)
                )
            };
            if gone {
                t.push_str(", and leaves the field (Bad War: not counted as destroyed)");
            }
            t
        };
        lines.push(describe(&s.actor, al, ac, a_gone_uncounted));
        lines.push(describe(&s.target, tl, tc, t_gone_uncounted));
        let result = match winner {
            "tie" => format!(
                "Tie: both lose a level, the fight goes on. {}",
                lines.join("; ")
            ),
            w => format!(
                "{} ({}). {}",
                if w == "actor ahead" {
                    "Actor ahead"
                } else {
                    "Target ahead"
                },
                ground_label(&s),
                lines.join("; ")
            ),
        };
        acc.steps.push(Step {
            title: format!(
                "Melee: {} {} {}{}",
                s.actor.name,
                if s.charging { "charging" } else { "against" },
                s.target.name,
                if s.bad_war {
                    " (Bad War: to the last base)"
                } else {
                    ""
                }
            ),
            dice: rolled(&["Actor die", "Target die"], &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![("Actor".to_string(), a), ("Target".to_string(), t)],
            result,
        });
        acc.summary.push(lines.join("; "));
        acc.facet("melee", winner);
        acc.facet("actor levels lost", al.to_string());
        acc.facet("target levels lost", tl.to_string());
        acc.facet("actor destroyed", yes(ac.destroyed));
        acc.facet("target destroyed", yes(tc.destroyed));
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
        if !ac_final.destroyed && !tc_final.destroyed {
            acc.effects.push(Effect::CombatJoined {
                a: s.actor.id.clone(),
                b: s.target.id.clone(),
            });
        }
        // The leader of the losing side risks death or capture.
        let risk = match winner {
            "actor ahead" => s.target.leader.clone().map(|l| (l, tc.destroyed)),
            "target ahead" => s.actor.leader.clone().map(|l| (l, ac.destroyed)),
            _ => None,
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

pub fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
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
    out.push(m(
        "Actor",
        format!("{} fire", s.actor.troop.name),
        w.factor,
        DESIGN,
    ));
    if w.vs_heavy_mounted != 0 && s.target.troop.class == Class::HeavyMounted {
        out.push(m(
            "Actor",
            "Armour-piercing against heavy horse",
            w.vs_heavy_mounted,
            DESIGN,
        ));
    }
    if w.vs_pike != 0 && s.target.troop.class == Class::Pike {
        out.push(m(
            "Actor",
            "Round shot into a deep pike block",
            w.vs_pike,
            DESIGN,
        ));
    }
    if s.target.troop.fire_target != 0 {
        out.push(m(
            "Target",
            format!("{} as a target", s.target.troop.name),
            s.target.troop.fire_target,
            DESIGN,
        ));
    }
    let fm = force_mod(s.force);
    if fm != 0 {
        out.push(m("Actor", s.force.label(), fm, DESIGN));
    }
    status_mod("Actor", s.actor.cond.status, &mut out);
    match s.ground {
        Ground::RoughCover | Ground::VeryRoughCover | Ground::Obstacle => {
            out.push(m("Target", "Target in cover", c::COVER, DESIGN))
        }
        Ground::Fortified => out.push(m("Target", "Target in hard cover", c::HARD_COVER, DESIGN)),
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
    throw(2, 6, "Fire die", Depends::Sum).map(move |f| {
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
        let result = match levels {
            0 => format!("No effect on {}", s.target.name),
            1 => format!(
                "{} loses a level: {}",
                s.target.name,
                tc.describe(s.target.bases)
            ),
            _ => format!(
                "Devastating fire: {} loses 2 levels: {}",
                s.target.name,
                tc.describe(s.target.bases)
            ),
        };
        let range = s.actor.troop.fire.map_or(0, |w| w.range);
        acc.steps.push(Step {
            title: format!(
                "{}: {} at {} (range {range}\", {}-{} one level, {}+ devastating)",
                if s.defensive {
                    "Defensive fire"
                } else {
                    "Fire"
                },
                s.actor.name,
                s.target.name,
                ch.fire_one,
                ch.fire_two - 1,
                ch.fire_two
            ),
            dice: rolled(&["Fire die 1", "Fire die 2"], &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![("Fire".to_string(), total)],
            result: result.clone(),
        });
        acc.summary.push(result);
        let key = if s.defensive {
            "defensive fire"
        } else {
            "fire"
        };
        acc.facet(
            key,
            ["no effect", "one level", "devastating"][usize::from(levels)],
        );
        acc.facet(
            if s.defensive {
                "charger destroyed"
            } else {
                "target destroyed"
            },
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
    if u.leader.is_some() {
        mods.push(m(
            "Actor",
            "Leader with Actor",
            c::LEADER_WITH_UNIT,
            "000/002 'Leaders ... can help with some actions (such as Melee and Rallying)'",
        ));
    }
    if u.cond.status == Status::Demoralized {
        mods.push(m("Actor", "Demoralized", c::REGROUP_DEMORALIZED, DESIGN));
    }
    if u.has_flag("undisciplined") {
        mods.push(m(
            "Actor",
            "Undisciplined",
            c::UNDISCIPLINED,
            "002 'undisciplined' (behaviour, not capabilities): project design",
        ));
    }
    let total_mod = sum(&mods, "Actor");
    let u = Rc::new(u);
    let mods = Rc::new(mods);
    dice(1, 6, "Regroup die").map(move |f| {
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
            format!("{} fails to regroup and stays {}", u.name, after.label())
        } else {
            format!(
                "{} regroups: {} -> {}",
                u.name,
                u.cond.status.label(),
                after.label()
            )
        };
        acc.steps.push(Step {
            title: format!(
                "Regroup: {} ({}-{} one level, {}+ two)",
                u.name,
                ch.regroup_one,
                ch.regroup_two - 1,
                ch.regroup_two
            ),
            dice: rolled(&["Regroup die"], &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![("Regroup".to_string(), total)],
            result: result.clone(),
        });
        acc.summary.push(result);
        let regained = match (u.cond.status, after) {
            (a, b) if a == b => 0,
            (Status::Demoralized, Status::Ok) => 2,
            _ => 1,
        };
        acc.facet(
            "regroup",
            format!("{regained} level{}", if regained == 1 { "" } else { "s" }),
        );
        acc.facet("status after", after.label());
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
    let mut mods = vec![m(
        "Actor",
        format!("{} breaking off", u.troop.name),
        u.troop.retire,
        DESIGN,
    )];
    if u.leader.is_some() {
        mods.push(m("Actor", "Leader with Actor", c::LEADER_WITH_UNIT, DESIGN));
    }
    if u.has_flag("undisciplined") {
        mods.push(m(
            "Actor",
            "Undisciplined",
            c::UNDISCIPLINED,
            "002 'undisciplined': project design",
        ));
    }
    let total_mod = sum(&mods, "Actor");
    let u = Rc::new(u);
    let mods = Rc::new(mods);
    dice(1, 6, "Retire die").map(move |f| {
        let mut acc = acc.clone();
        let total = i32::from(f[0]) + total_mod;
        let ok = total >= ch.retire_success;
        let inches = u.troop.retire_move.unwrap_or(0);
        let result = if ok {
            format!("{} breaks off and retires up to {inches}\" (directly backward, up to 45 degrees, no wheels)", u.name)
        } else {
            format!("{} fails to break off: an immediate Melee follows", u.name)
        };
        acc.steps.push(Step {
            title: format!("Retire: {} (succeeds on {}+)", u.name, ch.retire_success),
            dice: rolled(&["Retire die"], &f, 6),
            modifiers: (*mods).clone(),
            totals: vec![("Retire".to_string(), total)],
            result: result.clone(),
        });
        acc.summary.push(result);
        acc.facet("retire", if ok { "success" } else { "failed" });
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
    throw(2, 6, "Initiative die", Depends::Difference).map(move |f| {
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
        let result = format!(
            "{name} has the initiative{}",
            if a == d { " (tie)" } else { "" }
        );
        acc.steps.push(Step {
            title: "Initiative".to_string(),
            dice: vec![
                RolledDie {
                    label: format!("{} (attacker)", attacker.1),
                    sides: 6,
                    face: a,
                },
                RolledDie {
                    label: format!("{} (defender)", defender.1),
                    sides: 6,
                    face: d,
                },
            ],
            modifiers: vec![],
            totals: vec![],
            result: result.clone(),
        });
        acc.summary.push(result);
        acc.facet("initiative", side.clone());
        acc.effects.push(Effect::Initiative { side });
        acc
    })
}

/// Command: a D6 on the activation chart, plus the leader's bonus.
pub fn command(ch: &Arc<Charts>, acc: Acc, leader: LeaderSnap, bonus: u8) -> Plan<Acc> {
    let ch = ch.clone();
    let leader = Rc::new(leader);
    dice(1, 6, "Command die").map(move |f| {
        let mut acc = acc.clone();
        let base = ch.activations[usize::from(f[0] - 1)];
        let n = base + bonus;
        let mut mods = vec![];
        if bonus > 0 {
            mods.push(m(
                "Leader",
                "Leader bonus",
                i32::from(bonus),
                "000/002 'bonus rating ... increase the number of activations'",
            ));
        }
        let result = format!(
            "{} has {n} activation{}",
            leader.name,
            if n == 1 { "" } else { "s" }
        );
        acc.steps.push(Step {
            title: format!("Command: {}", leader.name),
            dice: rolled(&["Command die"], &f, 6),
            modifiers: mods,
            totals: vec![("Activations".to_string(), i32::from(n))],
            result: result.clone(),
        });
        acc.summary.push(result);
        acc.facet("activations", n.to_string());
        acc.effects.push(Effect::Command {
            leader: leader.id.clone(),
            activations: n,
        });
        acc
    })
}

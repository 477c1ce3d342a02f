//! The balance sheets of A Bloody Dismal Fight and El Gran Capitán ([`Balance`]): the app's own
//! stand-alone Charge, Melee and Fire, between two units described inline, read as exchanges of
//! status levels; and the fight to the finish as the chain of Melees that follows.
//!
//! Project design, written down in each rule set's document (section "Balance"):
//! - both units fresh (status OK, nothing lost), on open ground, face to face, with no leader and
//!   no supports; a charged unit that could evade stands, and a target that can fire
//!   defensively does (the charger crosses its arc of fire);
//! - a type that needs a nationality takes the first one the rule set lists (El Gran Capitán's
//!   Spanish/Landsknecht pike are Spanish, so Bad War needs a scenario's Landsknechts);
//! - a fight to the finish opens with the chosen action and goes on with Melees, the two units
//!   taking the actor's part in turn (the opener's enemy first), until one is destroyed; the
//!   force ratio follows the bases each has left. No Regroup or Retire is taken: it is the
//!   fight that the two units would have if neither side's player broke it off. A Fire, which
//!   never closes, repeats until the target is destroyed.

use std::sync::Arc;

use tercio_core::Plan;
use tercio_i18n::{keys, msg};

use super::actions::{self, Ctx};
use super::model::{ActionKind, ActionRequest, Effect, Ground, InlineUnit, Status, UnitRef};
use super::resolve::Acc;
use super::tables::Charts;
use crate::interface::balance::{to_the_finish, Balance, End, Exchange, Finish, Named};
use crate::interface::Rejection;

/// The balance sheets of one app-driven rule set.
pub struct AppBalance {
    pub charts: Arc<Charts>,
    pub egc: bool,
    pub nationalities: &'static [(&'static str, &'static [&'static str])],
}

/// A unit's place on the status ladder: OK 0, Disordered 1, Demoralized 2, then one more per
/// base lost.
fn level(status: Status, lost: u8) -> u8 {
    (match status {
        Status::Ok => 0,
        Status::Disordered => 1,
        Status::Demoralized => 2,
    }) + lost
}

/// One unit's condition in a fight: its level, and whether it is destroyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Cond {
    status: u8,
    lost: u8,
    destroyed: bool,
}

impl Cond {
    const FRESH: Cond = Cond {
        status: 0,
        lost: 0,
        destroyed: false,
    };
    fn status(self) -> Status {
        match self.status {
            0 => Status::Ok,
            1 => Status::Disordered,
            _ => Status::Demoralized,
        }
    }
    fn level(self) -> u8 {
        level(self.status(), self.lost)
    }
}

/// Who rolls next in a fight to the finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// The opening action, by the actor.
    Open,
    /// A Melee with the actor in the actor's part.
    ActorActs,
    /// A Melee with the target in the actor's part.
    TargetActs,
    Over(End),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Fight {
    actor: Cond,
    target: Cond,
    step: Step,
}

impl AppBalance {
    fn unit(&self, troop: &str, bases: u8, c: Cond, in_combat: bool) -> UnitRef {
        let nationality = self
            .nationalities
            .iter()
            .find(|(t, _)| *t == troop)
            .and_then(|(_, n)| n.first())
            .map(|n| n.to_string());
        UnitRef::Inline(InlineUnit {
            troop: troop.to_string(),
            bases,
            name: None,
            lost: c.lost,
            status: c.status(),
            flags: Vec::new(),
            nationality,
            in_combat,
            acted: false,
            march: false,
            stakes_planted: false,
        })
    }

    /// The stand-alone request of `action` by `actor` (in condition `a`) against `target`.
    #[allow(clippy::too_many_arguments)]
    fn request(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        bases: u8,
        a: Cond,
        t: Cond,
        in_combat: bool,
    ) -> Result<ActionRequest, Rejection> {
        let kind = match action {
            "charge" => ActionKind::Charge,
            "melee" => ActionKind::Melee,
            "fire" => ActionKind::Fire,
            other => {
                return Err(Rejection::new(
                    "unknown-action",
                    Some("action"),
                    tercio_i18n::msg(
                        tercio_i18n::keys::INPUT_MATCHUP_ACTION,
                        &[("action", other), ("allowed", "charge, melee, fire")],
                    ),
                ))
            }
        };
        let mut req = ActionRequest::blank(kind);
        req.actor = Some(self.unit(actor, bases, a, in_combat));
        req.target = Some(self.unit(target, bases, t, in_combat));
        req.ground = Some(Ground::Open);
        if kind == ActionKind::Charge {
            let evades = self.charts.troop(target).is_some_and(|p| p.may_evade);
            req.target_evades = evades.then_some(false);
            req.crosses_arc_of_fire = Some(true);
        }
        if kind == ActionKind::Melee && !in_combat {
            // Two fresh units meeting without a Charge: the 'in contact' box.
            req.in_contact = Some(true);
        }
        Ok(req)
    }

    fn plan(&self, req: &ActionRequest) -> Result<Plan<Acc>, Rejection> {
        let ctx = Ctx {
            ch: &self.charts,
            egc: self.egc,
            state: None,
        };
        actions::plan(&ctx, req)
    }
}

/// The condition a unit's effect leaves it in, or `c` when the outcome leaves it alone.
fn after(acc: &Acc, id: &str, c: Cond) -> Cond {
    acc.effects
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Unit {
                unit,
                status,
                lost,
                destroyed,
                ..
            } if unit == id => Some(Cond {
                status: level(*status, 0),
                lost: *lost,
                destroyed: *destroyed,
            }),
            _ => None,
        })
        .unwrap_or(c)
}

fn in_combat(acc: &Acc) -> bool {
    acc.effects
        .iter()
        .any(|e| matches!(e, Effect::CombatJoined { .. }))
}

impl Balance for AppBalance {
    fn actions(&self) -> Vec<Named> {
        Named::keyed(&[
            ("charge", keys::APP_DRIVEN_ACTION_CHARGE),
            ("melee", keys::APP_DRIVEN_ACTION_MELEE),
            ("fire", keys::APP_DRIVEN_ACTION_FIRE),
        ])
    }

    fn fighters(&self) -> Vec<Named> {
        self.charts
            .troops
            .iter()
            .map(|t| Named {
                id: t.id,
                name: msg(t.key, &[]),
            })
            .collect()
    }

    fn default_size(&self) -> u8 {
        4
    }

    fn exchange(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        size: u8,
    ) -> Result<Plan<Exchange>, Rejection> {
        let req = self.request(action, actor, target, size, Cond::FRESH, Cond::FRESH, false)?;
        Ok(self.plan(&req)?.map(|acc| {
            let a = after(&acc, "actor", Cond::FRESH);
            let t = after(&acc, "target", Cond::FRESH);
            Exchange {
                actor_loss: a.level(),
                target_loss: t.level(),
                actor_destroyed: a.destroyed,
                target_destroyed: t.destroyed,
            }
        }))
    }

    fn finish(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        size: u8,
    ) -> Result<Finish, Rejection> {
        let fire = action == "fire";
        // The opening action is checked first, so a pair the rules forbid is refused as such.
        self.request(action, actor, target, size, Cond::FRESH, Cond::FRESH, false)
            .and_then(|r| self.plan(&r))?;
        let start = Fight {
            actor: Cond::FRESH,
            target: Cond::FRESH,
            step: Step::Open,
        };
        let end = |f: &Fight| match f.step {
            Step::Over(e) => Some(e),
            _ => None,
        };
        let round = |f: &Fight| -> Result<Plan<Fight>, Rejection> {
            let f = *f;
            // The unit in the actor's part, and the other.
            let (a, t, b, c, act, combat) = match f.step {
                Step::Open | Step::ActorActs if fire => {
                    (actor, target, f.actor, f.target, "fire", false)
                }
                Step::Open => (actor, target, f.actor, f.target, action, false),
                Step::ActorActs => (actor, target, f.actor, f.target, "melee", true),
                Step::TargetActs => (target, actor, f.target, f.actor, "melee", true),
                Step::Over(_) => unreachable!("an ended fight has no round"),
            };
            let swapped = f.step == Step::TargetActs;
            let req = self.request(act, a, t, size, b, c, combat)?;
            Ok(self.plan(&req)?.map(move |acc| {
                let (na, nt) = (after(&acc, "actor", b), after(&acc, "target", c));
                let (actor_c, target_c) = if swapped { (nt, na) } else { (na, nt) };
                let step = match (actor_c.destroyed, target_c.destroyed) {
                    (true, true) => Step::Over(End::BothDestroyed),
                    (true, false) => Step::Over(End::ActorDestroyed),
                    (false, true) => Step::Over(End::TargetDestroyed),
                    _ if fire => Step::ActorActs,
                    // A charge that did not close (the charger stopped, the target away).
                    _ if !in_combat(&acc) => Step::Over(End::ActorBack),
                    _ => match f.step {
                        Step::TargetActs => Step::ActorActs,
                        _ => Step::TargetActs,
                    },
                };
                Fight {
                    actor: actor_c,
                    target: target_c,
                    step,
                }
            }))
        };
        to_the_finish(start, end, round)
    }
}

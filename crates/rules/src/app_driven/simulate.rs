//! Automatic players for A Bloody Dismal Fight and El Gran Capitán ([`Simulator`]): whole
//! battles of a scenario, each action planned by the game's own `game::plan` against the game's
//! typed state, rolled from the battle's dice stream and folded by the game's own fold. No JSON,
//! no log: the same rules, without the record a table needs.
//!
//! Project design, written down in each rule set's document (section "Simulated battles"):
//! - Tercio keeps no table, so the players use a table of one dimension: the two armies deploy
//!   [`GAP`] inches apart (a 6 x 4 ft table, deployed across its long edges within 12 inches of
//!   them, as the shipped scenarios are), and each unit keeps how far it has come. Two units are
//!   apart by the gap less both units' way. A unit may charge an enemy within its charge move,
//!   shoot at one within its range; an Advance or a March brings it its allowance closer (never
//!   past the enemy line), a Retire takes it back its retire move; a charge that makes contact
//!   brings the charger to its target, an evader that gets away falls back its advance. There is
//!   no facing, flank or terrain: every action is on open ground, face to face, a charge crossing
//!   its target's arc of fire; whether a charger still reaches a target that evaded is a coin
//!   the players' stream tosses. Works and terrain in a scenario's notes are not played.
//! - The game master's steps are taken as the turn asks: the initiative, the command roll, the
//!   end of the initiatives when no leader is left, the simultaneous fire, the break check (no
//!   camp is sacked).
//! - Each side's player follows its policy, choosing with its own stream of numbers:
//!   - `aggressive`: the leader with the best bonus takes the initiative; every unit it commands
//!     fights: a unit in a combat melees, any other charges the weakest enemy it may (the one
//!     with the most status levels lost), or else shoots at it, or else advances; charged, it
//!     stands.
//!   - `cautious`: a unit Demoralized in a combat retires, one out of it regroups; a Disordered
//!     unit out of a combat regroups; a unit in good order melees in its combat, and charges only
//!     an enemy already shaken (Disordered or worse) or one that shoots; otherwise it shoots;
//!     otherwise, if its side attacks, it advances, and if it defends, it holds (rests); charged,
//!     it evades if it may.
//!   - `random`: each choice at random among what the rules allow.
//! - Every missile unit that has not acted shoots in the simultaneous fire, at the weakest enemy
//!   (`random`: at any).

use std::collections::BTreeMap;
use std::sync::Arc;

use tercio_core::DiceStream;
use tercio_i18n::keys;

use super::game::{self, apply_effect, break_points, commands, eligible_leaders};
use super::model::{ActionKind, ActionRequest, Effect, GameState, Ground, Phase, Status, UnitRef};
use super::resolve::Acc;
use super::tables::Charts;
use crate::interface::balance::Named;
use crate::interface::form_play::key_of;
use crate::interface::scenario::Scenario;
use crate::interface::simulate::{
    judge, policies_of, Battle, Ending, Policy, Simulator, TroopLosses,
};

/// How far apart the two armies deploy, in inches (project design: a 6 x 4 ft table, both sides
/// within 12 inches of their long edges).
pub const GAP: u32 = 24;

/// The charts of a scenario: its house rules applied to the rule set's.
pub type ChartsOf = Box<dyn Fn(&Scenario) -> Arc<Charts> + Send + Sync>;

/// The automatic players of one app-driven rule set.
pub struct AppSimulator {
    pub charts: ChartsOf,
    pub egc: bool,
}

/// One battle being played.
struct Play<'a> {
    ch: Arc<Charts>,
    egc: bool,
    st: GameState,
    dice: DiceStream,
    /// The players' own choices: never the dice's stream.
    choice: DiceStream,
    policies: BTreeMap<String, Policy>,
    actions: u32,
    usage: BTreeMap<String, u32>,
    actions_taken: BTreeMap<String, u32>,
    losses: BTreeMap<(String, String), TroopLosses>,
    lost_by_turn: Vec<Vec<u32>>,
    sides: &'a [String],
    /// How far each unit has come from its army's line, in inches.
    pos: BTreeMap<String, u32>,
    /// The actions taken, as JSON, when the battle is recorded.
    log: Option<Vec<serde_json::Value>>,
    attackers: Vec<String>,
}

fn unit_ref(id: &str) -> Option<UnitRef> {
    Some(UnitRef::Id(id.to_string()))
}

impl Play<'_> {
    fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            self.choice.below(n as u32) as usize
        }
    }

    fn policy(&self, side: &str) -> Policy {
        self.policies
            .get(side)
            .copied()
            .unwrap_or(Policy::Aggressive)
    }

    /// Plan `req` against the state; if the rules allow it, roll it, fold it and count it.
    fn try_act(&mut self, req: &ActionRequest) -> bool {
        let Ok(plan) = game::plan(&self.ch, self.egc, &self.st, req) else {
            return false;
        };
        let (acc, _) = plan.roll(&mut self.dice);
        if let Some(log) = &mut self.log {
            log.push(serde_json::to_value(req).unwrap_or_default());
        }
        self.fold(req, &acc);
        self.moved(req, &acc);
        true
    }

    /// Where an action leaves the units on the one-dimensional table.
    fn moved(&mut self, req: &ActionRequest, acc: &Acc) {
        let Some(UnitRef::Id(a)) = &req.actor else {
            return;
        };
        let Some(side) = self.st.unit(a).map(|u| u.side.clone()) else {
            return;
        };
        let t = match &req.target {
            Some(UnitRef::Id(t)) => Some(t.clone()),
            _ => None,
        };
        let profile = self.troop(a).cloned();
        let inches = |f: fn(&super::tables::TroopProfile) -> Option<u8>| {
            profile.as_ref().and_then(f).map_or(0, u32::from)
        };
        match req.action {
            ActionKind::Advance => self.step_forward(a, &side, inches(|p| p.advance)),
            ActionKind::March => self.step_forward(a, &side, inches(|p| p.march)),
            ActionKind::Retire => {
                let back = inches(|p| p.retire_move);
                let w = self.pos.entry(a.clone()).or_insert(0);
                *w = w.saturating_sub(back);
            }
            ActionKind::Charge => {
                let Some(t) = t else { return };
                let joined = acc
                    .effects
                    .iter()
                    .any(|e| matches!(e, Effect::CombatJoined { .. }));
                if joined {
                    let to = GAP.saturating_sub(self.way(&t));
                    self.pos.insert(a.clone(), to);
                } else if req.target_evades == Some(true) {
                    let back = self.troop(&t).and_then(|p| p.advance).map_or(0, u32::from);
                    self.step_forward(a, &side, inches(|p| p.charge_move));
                    let w = self.pos.entry(t).or_insert(0);
                    *w = w.saturating_sub(back);
                }
            }
            _ => {}
        }
    }

    fn fold(&mut self, req: &ActionRequest, acc: &Acc) {
        self.actions += 1;
        let action = serde_json::to_value(req.action)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        *self
            .actions_taken
            .entry(format!("app_driven.action.{action}"))
            .or_insert(0) += 1;
        for s in &acc.steps {
            *self.usage.entry(key_of(&s.title)).or_insert(0) += 1;
        }
        // Who fought whom: each loss is put down to the enemy the unit was fighting.
        let mut pairs: Vec<(String, String)> = Vec::new();
        let id = |u: &Option<UnitRef>| match u {
            Some(UnitRef::Id(i)) => Some(i.clone()),
            _ => None,
        };
        for r in std::iter::once(req).chain(req.fires.iter().flatten()) {
            if let (Some(a), Some(t)) = (id(&r.actor), id(&r.target)) {
                pairs.push((a, t));
            }
        }
        for e in &acc.effects {
            if let Effect::Unit {
                unit,
                lost,
                destroyed,
                uncounted,
                ..
            } = e
            {
                // A unit that leaves the battle uncounted (a scenario's departure) is no loss.
                if let Some(u) = self.st.unit(unit).filter(|_| !uncounted) {
                    let more = lost.saturating_sub(u.lost);
                    let fell = *destroyed && !u.destroyed;
                    let (side, troop) = (u.side.clone(), u.troop.clone());
                    let l = self.entry(&side, &troop);
                    l.lost += u32::from(more);
                    l.destroyed += u32::from(fell);
                    let by = pairs
                        .iter()
                        .find_map(|(a, t)| (a == unit).then_some(t).or((t == unit).then_some(a)));
                    if let Some(by) = by.and_then(|b| self.st.unit(b)) {
                        let (side, troop) = (by.side.clone(), by.troop.clone());
                        self.entry(&side, &troop).inflicted += u32::from(more);
                    }
                }
            }
        }
        for e in &acc.effects {
            apply_effect(&mut self.st, e);
        }
    }

    fn entry(&mut self, side: &str, troop: &str) -> &mut TroopLosses {
        self.losses
            .entry((side.to_string(), troop.to_string()))
            .or_insert_with(|| TroopLosses {
                side: side.to_string(),
                troop: troop.to_string(),
                ..TroopLosses::default()
            })
    }

    fn way(&self, id: &str) -> u32 {
        self.pos.get(id).copied().unwrap_or(0)
    }

    /// How far apart two units are.
    fn dist(&self, a: &str, b: &str) -> u32 {
        GAP.saturating_sub(self.way(a) + self.way(b))
    }

    /// The distance from `id` to the nearest enemy on the table.
    fn nearest(&self, id: &str, side: &str) -> u32 {
        self.enemies(side)
            .iter()
            .map(|e| self.dist(id, e))
            .min()
            .unwrap_or(GAP)
    }

    /// Move `id` `inches` towards the enemy (never past the nearest enemy), or back.
    fn step_forward(&mut self, id: &str, side: &str, inches: u32) {
        let room = self.nearest(id, side);
        *self.pos.entry(id.to_string()).or_insert(0) += inches.min(room);
    }

    fn troop(&self, id: &str) -> Option<&super::tables::TroopProfile> {
        self.st.unit(id).and_then(|u| self.ch.troop(&u.troop))
    }

    /// Whether `a` can reach `b` with a charge, or shoot at it.
    fn in_charge_reach(&self, a: &str, b: &str) -> bool {
        self.troop(a)
            .and_then(|t| t.charge_move)
            .is_some_and(|m| self.dist(a, b) <= u32::from(m))
    }

    fn in_range(&self, a: &str, b: &str) -> bool {
        self.troop(a)
            .and_then(|t| t.fire)
            .is_some_and(|f| self.dist(a, b) <= u32::from(f.range))
    }

    /// Enemies of `side` on the table now.
    fn enemies(&self, side: &str) -> Vec<String> {
        self.st
            .units
            .values()
            .filter(|u| u.side != side && u.on_table(self.st.turn))
            .map(|u| u.id.clone())
            .collect()
    }

    /// A unit's place on the status ladder (OK 0, then one per level and per base lost).
    fn level(&self, id: &str) -> u32 {
        self.st.unit(id).map_or(0, |u| {
            u32::from(u.lost)
                + match u.status {
                    Status::Ok => 0,
                    Status::Disordered => 1,
                    Status::Demoralized => 2,
                }
        })
    }

    /// `ids` in the order `policy` would try them: the weakest first (random: shuffled).
    fn order(&mut self, policy: Policy, mut ids: Vec<String>) -> Vec<String> {
        if policy == Policy::Random {
            for i in (1..ids.len()).rev() {
                let j = self.pick(i + 1);
                ids.swap(i, j);
            }
        } else {
            // Stable on the units' order, so equal levels keep the scenario's order.
            ids.sort_by_key(|i| std::cmp::Reverse(self.level(i)));
        }
        ids
    }

    fn request(&self, kind: ActionKind, actor: &str, target: Option<&str>) -> ActionRequest {
        let mut r = ActionRequest::blank(kind);
        r.actor = unit_ref(actor);
        if let Some(t) = target {
            r.target = unit_ref(t);
            r.ground = Some(Ground::Open);
        }
        r
    }

    /// A charge by `actor` at `target`, the target's player answering whether it evades.
    fn charge(&mut self, actor: &str, target: &str, ferocious: bool) -> bool {
        let mut r = self.request(ActionKind::Charge, actor, Some(target));
        r.crosses_arc_of_fire = Some(true);
        if ferocious {
            r.ferocious = Some(true);
        }
        let (may_evade, side) = match self.st.unit(target) {
            Some(t) => (
                t.in_combat_with.is_empty() && self.ch.troop(&t.troop).is_some_and(|p| p.may_evade),
                t.side.clone(),
            ),
            None => return false,
        };
        if may_evade {
            let evades = match self.policy(&side) {
                Policy::Aggressive => false,
                Policy::Cautious => true,
                Policy::Random => self.pick(2) == 0,
            };
            r.target_evades = Some(evades);
            if evades {
                r.contact_after_evade = Some(self.pick(2) == 0);
            }
        }
        self.try_act(&r)
    }

    /// One activation of unit `u` by its side's player; `false` if nothing it tried was allowed.
    fn activate(&mut self, id: &str) -> bool {
        let Some(u) = self.st.unit(id).cloned() else {
            return false;
        };
        let policy = self.policy(&u.side);
        let foes: Vec<String> = u.in_combat_with.iter().cloned().collect();
        let enemies = self.enemies(&u.side);
        let attacks = self.attackers.contains(&u.side);
        // What the unit may try, in the order its player would.
        let mut tries: Vec<(ActionKind, Option<String>)> = Vec::new();
        let weakest = self.order(policy, enemies.clone());
        let reach: Vec<String> = weakest
            .iter()
            .filter(|t| self.in_charge_reach(id, t))
            .cloned()
            .collect();
        let range: Vec<String> = weakest
            .iter()
            .filter(|t| self.in_range(id, t))
            .cloned()
            .collect();
        match policy {
            Policy::Aggressive => {
                for f in &foes {
                    tries.push((ActionKind::Melee, Some(f.clone())));
                }
                for t in &reach {
                    tries.push((ActionKind::Charge, Some(t.clone())));
                }
                for t in &range {
                    tries.push((ActionKind::Fire, Some(t.clone())));
                }
                if foes.is_empty() {
                    tries.push((ActionKind::Advance, None));
                }
                tries.push((ActionKind::Rest, None));
            }
            Policy::Cautious => {
                if !foes.is_empty() && u.status == Status::Demoralized {
                    tries.push((ActionKind::Retire, foes.first().cloned()));
                }
                if u.status != Status::Ok {
                    tries.push((ActionKind::Regroup, None));
                }
                for f in &foes {
                    tries.push((ActionKind::Melee, Some(f.clone())));
                }
                if u.status == Status::Ok {
                    for t in &reach {
                        let shaken = self.level(t) > 0;
                        let shoots = self
                            .st
                            .unit(t)
                            .and_then(|x| self.ch.troop(&x.troop))
                            .is_some_and(|p| p.fire.is_some());
                        if shaken || shoots {
                            tries.push((ActionKind::Charge, Some(t.clone())));
                        }
                    }
                }
                for t in &range {
                    tries.push((ActionKind::Fire, Some(t.clone())));
                }
                if attacks && foes.is_empty() {
                    tries.push((ActionKind::Advance, None));
                }
                tries.push((ActionKind::Rest, None));
            }
            Policy::Random => {
                let mut all: Vec<(ActionKind, Option<String>)> = Vec::new();
                for f in &foes {
                    all.push((ActionKind::Melee, Some(f.clone())));
                    all.push((ActionKind::Retire, Some(f.clone())));
                }
                for t in &reach {
                    all.push((ActionKind::Charge, Some(t.clone())));
                }
                for t in &range {
                    all.push((ActionKind::Fire, Some(t.clone())));
                }
                all.extend([
                    (ActionKind::Advance, None),
                    (ActionKind::March, None),
                    (ActionKind::Regroup, None),
                    (ActionKind::Rest, None),
                ]);
                for i in (1..all.len()).rev() {
                    let j = self.pick(i + 1);
                    all.swap(i, j);
                }
                tries = all;
            }
        }
        for (kind, target) in tries {
            let done = match kind {
                ActionKind::Charge => self.charge(id, target.as_deref().unwrap_or(""), false),
                ActionKind::Retire => {
                    let mut r = self.request(kind, id, target.as_deref());
                    r.contacted_on_several_faces = Some(u.in_combat_with.len() > 1);
                    self.try_act(&r)
                }
                _ => {
                    let r = self.request(kind, id, target.as_deref());
                    self.try_act(&r)
                }
            };
            if done {
                return true;
            }
        }
        false
    }

    /// The command phase: initiatives until no leader is left, each leader's activations used.
    fn command_phase(&mut self) {
        loop {
            if self.st.phase != Phase::Command {
                return;
            }
            if !self.try_act(&ActionRequest::blank(ActionKind::Initiative)) {
                self.try_act(&ActionRequest::blank(ActionKind::EndInitiatives));
                return;
            }
            let Some(side) = self.st.initiative_side.clone() else {
                continue;
            };
            let policy = self.policy(&side);
            let mut leaders: Vec<(String, u8, bool)> = eligible_leaders(&self.st, &side)
                .iter()
                .map(|l| (l.id.clone(), l.bonus, l.army))
                .collect();
            if policy == Policy::Random {
                let i = self.pick(leaders.len());
                leaders.rotate_left(i);
            } else {
                leaders.sort_by_key(|(_, bonus, army)| std::cmp::Reverse((*bonus, *army)));
            }
            let Some((leader, _, _)) = leaders.first().cloned() else {
                self.try_act(&ActionRequest::blank(ActionKind::EndInitiatives));
                return;
            };
            let mut cmd = ActionRequest::blank(ActionKind::Command);
            cmd.leader = Some(leader.clone());
            if !self.try_act(&cmd) {
                self.try_act(&ActionRequest::blank(ActionKind::EndInitiatives));
                return;
            }
            // Each activation: the first unit, in the player's order, that does something.
            while let Some(cur) = self.st.current.clone() {
                if cur.activations_left == 0 {
                    break;
                }
                let Some(l) = self.st.leader(&leader).cloned() else {
                    break;
                };
                let turn = self.st.turn;
                let mine: Vec<String> = self
                    .st
                    .units
                    .values()
                    .filter(|u| u.on_table(turn) && !u.acted && commands(&self.st, &l, u))
                    .map(|u| u.id.clone())
                    .collect();
                let mine = self.order(policy, mine);
                let before = self.actions;
                for u in mine {
                    if self.activate(&u) {
                        break;
                    }
                }
                if self.actions == before || self.st.phase != Phase::Command {
                    break;
                }
            }
        }
    }

    /// The end of the turn: Ferocious Swiss Charges, the simultaneous fire, the break check.
    fn end_of_turn(&mut self) {
        let mut without: Vec<String> = Vec::new();
        let mut tried: Vec<String> = Vec::new();
        // Each Swiss unit the rules still hold to a charge, until none is left: a charge that
        // destroys its target frees the units that were fighting it, and a Swiss unit so freed
        // that has not acted must charge in turn (taken once, the list left it pending and the
        // turn could not end: `tercio simulate el-gran-capitan/cerignola-1503 --seed 7 --policy
        // random`, battle 230). Each unit tries once.
        while let Some(s) = game::swiss_to_charge(&self.st)
            .iter()
            .map(|u| u.id.clone())
            .find(|id| !tried.contains(id))
        {
            tried.push(s.clone());
            let Some(side) = self.st.unit(&s).map(|u| u.side.clone()) else {
                continue;
            };
            let targets = {
                let p = self.policy(&side);
                let e = self.enemies(&side);
                self.order(p, e)
            };
            let targets: Vec<String> = targets
                .into_iter()
                .filter(|t| self.in_charge_reach(&s, t))
                .collect();
            if !targets.iter().any(|t| self.charge(&s, t, true)) {
                without.push(s);
            }
        }
        let turn = self.st.turn;
        let shooters: Vec<(String, String)> = self
            .st
            .units
            .values()
            .filter(|u| {
                u.on_table(turn)
                    && !u.acted
                    && u.in_combat_with.is_empty()
                    && self.ch.troop(&u.troop).is_some_and(|p| p.fire.is_some())
            })
            .map(|u| (u.id.clone(), u.side.clone()))
            .collect();
        let mut fires = Vec::new();
        for (id, side) in shooters {
            let targets = {
                let p = self.policy(&side);
                let e = self.enemies(&side);
                self.order(p, e)
            };
            // The first target in range the rules allow it to shoot at.
            if let Some(t) = targets.iter().filter(|t| self.in_range(&id, t)).find(|t| {
                let r = self.request(ActionKind::Fire, &id, Some(t));
                super::actions::plan(
                    &super::actions::Ctx {
                        ch: &self.ch,
                        egc: self.egc,
                        state: Some(&self.st),
                    },
                    &r,
                )
                .is_ok()
            }) {
                fires.push(self.request(ActionKind::Fire, &id, Some(t)));
            }
        }
        let mut end_fire = ActionRequest::blank(ActionKind::EndFire);
        end_fire.fires = Some(fires);
        if self.egc {
            end_fire.swiss_without_targets = Some(without);
        }
        if !self.try_act(&end_fire) {
            // A fire the whole refuses (two at one target the rules do not allow): none.
            end_fire.fires = Some(Vec::new());
            self.try_act(&end_fire);
        }
        self.try_act(&ActionRequest::blank(ActionKind::EndTurn));
        let lost = self
            .sides
            .iter()
            .map(|s| break_points(&self.ch, &self.st, s).0)
            .collect();
        self.lost_by_turn.push(lost);
    }
}

impl Simulator for AppSimulator {
    fn policies(&self) -> Vec<Named> {
        Named::keyed(&[
            ("aggressive", keys::APP_DRIVEN_POLICY_AGGRESSIVE),
            ("cautious", keys::APP_DRIVEN_POLICY_CAUTIOUS),
            ("random", keys::APP_DRIVEN_POLICY_RANDOM),
        ])
    }

    fn gap(&self) -> u32 {
        GAP
    }

    fn play(
        &self,
        scenario: &Scenario,
        seed: u64,
        policies: &[&str],
        max_turns: u32,
        record: bool,
    ) -> Result<Battle, String> {
        let sides: Vec<String> = scenario.sides.iter().map(|s| s.id.clone()).collect();
        let chosen: BTreeMap<String, Policy> = sides
            .iter()
            .cloned()
            .zip(policies_of(scenario, policies, |i| {
                self.default_policy(scenario, i)
            })?)
            .collect();
        let ch = (self.charts)(scenario);
        let mut p = Play {
            st: game::initial_state(scenario),
            ch,
            egc: self.egc,
            dice: DiceStream::from_seed(seed),
            choice: DiceStream::from_seed(seed ^ 0x5eed_0fc4_01ce_5eed),
            policies: chosen,
            actions: 0,
            usage: BTreeMap::new(),
            actions_taken: BTreeMap::new(),
            losses: BTreeMap::new(),
            lost_by_turn: Vec::new(),
            sides: &sides,
            pos: BTreeMap::new(),
            log: record.then(Vec::new),
            attackers: scenario
                .sides
                .iter()
                .filter(|s| s.role == crate::interface::scenario::Role::Attacker)
                .map(|s| s.id.clone())
                .collect(),
        };
        for u in scenario.units.iter() {
            p.entry(&u.side, &u.troop).units += 1;
        }
        while p.st.phase != Phase::Over && p.st.turn <= max_turns {
            let turn = p.st.turn;
            p.command_phase();
            if p.st.phase == Phase::EndOfTurn {
                p.end_of_turn();
            }
            if p.st.phase != Phase::Over && p.st.turn == turn {
                return Err(format!(
                    "turn {turn}: the automatic players could not end the turn (phase {:?})",
                    p.st.phase
                ));
            }
        }
        let break_points: Vec<(u32, u32)> = sides
            .iter()
            .map(|s| break_points(&p.ch, &p.st, s))
            .collect();
        let (winner, ending) = if p.st.phase == Phase::Over {
            match p.st.broken.as_slice() {
                [one] => (sides.iter().find(|s| *s != one).cloned(), Ending::Broken),
                _ => (None, Ending::BothBroken),
            }
        } else {
            let winner = judge(&sides, &break_points);
            (winner, Ending::TurnLimit)
        };
        Ok(Battle {
            winner,
            ending,
            turns: p.st.turn.min(max_turns),
            actions: p.actions,
            losses: p.losses.into_values().collect(),
            usage: p.usage,
            actions_taken: p.actions_taken,
            lost_by_turn: p.lost_by_turn,
            break_points: break_points.iter().map(|(_, t)| *t).collect(),
            log: p.log.unwrap_or_default(),
        })
    }
}

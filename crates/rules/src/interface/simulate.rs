//! Whole battles played by automatic players, for designers: who wins a scenario, how, and which
//! troop type decides it. A rule set that can play itself gives a [`Simulator`]
//! ([`super::RuleSet::simulator`]): it plays one battle of a scenario from a seed, with one
//! policy per side, through its own engine (the plans that roll the game, folded as the game
//! folds them), and says what happened ([`Battle`]). [`Summary`] adds battles up, in the order
//! given, so a summary is the same however many threads played them. Names no rule set.

use std::collections::BTreeMap;

use serde::Serialize;

use super::balance::Named;
use super::scenario::Scenario;

/// How a battle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// One army broke: the other won.
    Broken,
    /// Both broke at once: a draw.
    BothBroken,
    /// The turn limit came first: the side further from its break point (by the share of it
    /// lost) is counted the winner, as a table that stops at dusk would judge; equal shares are
    /// a draw.
    TurnLimit,
}

/// What one troop type of one side suffered and inflicted in a battle.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TroopLosses {
    pub side: String,
    pub troop: String,
    /// Units of this type the side fielded.
    pub units: u32,
    /// Bases (or figures, or blocks, as the rule set counts) they lost.
    pub lost: u32,
    /// Units of this type destroyed.
    pub destroyed: u32,
    /// Bases their actions took from the enemy.
    pub inflicted: u32,
}

/// One battle, played to its end or to the turn limit.
#[derive(Debug, Clone, Serialize)]
pub struct Battle {
    /// The winning side's id; `None`: a draw.
    pub winner: Option<String>,
    pub ending: Ending,
    /// The turn the battle ended in.
    pub turns: u32,
    /// Actions resolved (initiatives, activations, fires, end of turns...).
    pub actions: u32,
    pub losses: Vec<TroopLosses>,
    /// How often each action was taken, by the message key of its name.
    pub actions_taken: BTreeMap<String, u32>,
    /// How often each rule or chart was used: the message key of a resolution step's title.
    pub usage: BTreeMap<String, u32>,
    /// Each side's break points lost at the end of each turn, sides in the scenario's order.
    pub lost_by_turn: Vec<Vec<u32>>,
    /// Each side's break point, in the same order.
    pub break_points: Vec<u32>,
    /// Every action taken, as the game's JSON would record it, when asked for: the battle can
    /// be played again through a recorded game (the tests do).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<serde_json::Value>,
}

/// What an automatic player follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Aggressive = 0,
    Cautious = 1,
    Random = 2,
}

impl Policy {
    /// The policy of a name, or a refusal naming the allowed ones.
    pub fn of(name: &str) -> Result<Policy, String> {
        match name {
            "aggressive" => Ok(Policy::Aggressive),
            "cautious" => Ok(Policy::Cautious),
            "random" => Ok(Policy::Random),
            other => Err(format!(
                "policy: \"{other}\" is not a policy; allowed: aggressive, cautious, random"
            )),
        }
    }
}

/// Each side's policy, sides in the scenario's order: the one `names` gives it, or the one it
/// follows unless told (`default`).
pub fn policies_of(
    scenario: &Scenario,
    names: &[&str],
    default: impl Fn(usize) -> &'static str,
) -> Result<Vec<Policy>, String> {
    (0..scenario.sides.len())
        .map(|i| Policy::of(names.get(i).copied().unwrap_or_else(|| default(i))))
        .collect()
}

/// The attacker attacks; the defender is cautious (project design: the scenario's roles).
pub fn default_policy(scenario: &Scenario, side: usize) -> &'static str {
    match scenario.sides.get(side).map(|s| s.role) {
        Some(super::scenario::Role::Attacker) => "aggressive",
        _ => "cautious",
    }
}

/// The winner at a turn limit: the side that has lost the smallest share of its break point
/// (`scores`: each side's lost and break point, sides in order); equal shares are a draw.
pub fn judge(sides: &[String], scores: &[(u32, u32)]) -> Option<String> {
    let share: Vec<f64> = scores
        .iter()
        .map(|(l, t)| f64::from(*l) / f64::from((*t).max(1)))
        .collect();
    let best = share.iter().copied().fold(f64::INFINITY, f64::min);
    let at_best: Vec<usize> = (0..share.len()).filter(|&i| share[i] == best).collect();
    match at_best.as_slice() {
        [i] => sides.get(*i).cloned(),
        _ => None,
    }
}

/// A rule set that plays itself.
pub trait Simulator: Send + Sync {
    /// The policies its automatic players can follow (`aggressive`, `cautious`, `random`).
    fn policies(&self) -> Vec<Named>;
    /// How far apart the armies deploy, in inches, on the one line the players close along
    /// (Tercio keeps no table).
    fn gap(&self) -> u32;
    /// The turn after which a battle stops unless told: 20, or more where a turn is one side's
    /// card rather than both sides' moves.
    fn turn_limit(&self) -> u32 {
        20
    }
    /// The policy side number `side` (in the scenario's order) follows unless told: the
    /// attacker attacks, the defender is cautious ([`default_policy`]).
    fn default_policy(&self, scenario: &Scenario, side: usize) -> &'static str {
        default_policy(scenario, side)
    }
    /// Play one battle of `scenario` from `seed`: every die from the seed's stream, the players'
    /// choices from their own (so a policy's choice never moves a die). `policies` gives each
    /// side's, in the scenario's order (a side left out follows [`Simulator::default_policy`]).
    /// Ends when an army breaks or after `max_turns`. With `record`, the battle keeps its
    /// actions ([`Battle::log`]).
    fn play(
        &self,
        scenario: &Scenario,
        seed: u64,
        policies: &[&str],
        max_turns: u32,
        record: bool,
    ) -> Result<Battle, String>;
}

/// The seed of battle `i` of a run seeded with `seed` (SplitMix64 of the two): battles are
/// independent of each other and of the order they are played in.
pub fn battle_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed ^ i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A proportion with its 95% Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    pub count: u32,
    pub of: u32,
    pub p: f64,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    pub fn of(count: u32, of: u32) -> Rate {
        if of == 0 {
            return Rate {
                count,
                of,
                p: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let n = f64::from(of);
        let p = f64::from(count) / n;
        let z = 1.959_963_984_540_054_f64;
        let d = 1.0 + z * z / n;
        let c = (p + z * z / (2.0 * n)) / d;
        let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
        Rate {
            count,
            of,
            p,
            low: (c - h).max(0.0),
            high: (c + h).min(1.0),
        }
    }
}

/// Battles added up.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub battles: u32,
    /// Each side's wins, sides in the scenario's order.
    pub wins: Vec<(String, Rate)>,
    pub draws: Rate,
    /// Battles decided at the turn limit, not by an army breaking.
    pub at_turn_limit: Rate,
    pub turns_mean: f64,
    /// How many battles ended in each turn.
    pub turns: BTreeMap<u32, u32>,
    pub actions_mean: f64,
    /// Each side's and troop type's losses, added over every battle.
    pub losses: Vec<TroopLosses>,
    /// Each action, and how many times it was taken over every battle.
    pub actions_taken: BTreeMap<String, u32>,
    /// Each rule or chart, and how many times it was used over every battle.
    pub usage: BTreeMap<String, u32>,
    /// Each side's mean break points lost at the end of each turn (a battle that ended earlier
    /// counts with its final losses).
    pub lost_by_turn: Vec<Vec<f64>>,
    pub break_points: Vec<u32>,
    /// The first side's win rate after each battle, in order: how the estimate settles.
    pub first_side_win_rate: Vec<f64>,
}

impl Summary {
    /// Add up `battles`, in the order given; `sides` in the scenario's order.
    pub fn of(sides: &[String], battles: &[Battle]) -> Summary {
        let n = battles.len() as u32;
        let count = |f: &dyn Fn(&Battle) -> bool| battles.iter().filter(|b| f(b)).count() as u32;
        let wins = sides
            .iter()
            .map(|s| {
                (
                    s.clone(),
                    Rate::of(count(&|b| b.winner.as_ref() == Some(s)), n),
                )
            })
            .collect();
        let mut turns = BTreeMap::new();
        let mut usage = BTreeMap::new();
        let mut actions_taken = BTreeMap::new();
        let mut losses: Vec<TroopLosses> = Vec::new();
        let longest = battles.iter().map(|b| b.turns).max().unwrap_or(0) as usize;
        let mut by_turn = vec![vec![0.0; sides.len()]; longest];
        let mut first = Vec::with_capacity(battles.len());
        let mut first_wins = 0u32;
        for (i, b) in battles.iter().enumerate() {
            *turns.entry(b.turns).or_insert(0) += 1;
            for (k, v) in &b.usage {
                *usage.entry(k.clone()).or_insert(0) += v;
            }
            for (k, v) in &b.actions_taken {
                *actions_taken.entry(k.clone()).or_insert(0) += v;
            }
            for l in &b.losses {
                match losses
                    .iter_mut()
                    .find(|x| x.side == l.side && x.troop == l.troop)
                {
                    Some(x) => {
                        x.units += l.units;
                        x.lost += l.lost;
                        x.destroyed += l.destroyed;
                        x.inflicted += l.inflicted;
                    }
                    None => losses.push(l.clone()),
                }
            }
            for (t, row) in by_turn.iter_mut().enumerate() {
                let at = b
                    .lost_by_turn
                    .get(t)
                    .or(b.lost_by_turn.last())
                    .cloned()
                    .unwrap_or_default();
                for (x, v) in row.iter_mut().zip(at) {
                    *x += f64::from(v);
                }
            }
            if sides.first().is_some_and(|s| b.winner.as_ref() == Some(s)) {
                first_wins += 1;
            }
            first.push(f64::from(first_wins) / (i + 1) as f64);
        }
        for row in &mut by_turn {
            for x in row.iter_mut() {
                *x /= f64::from(n.max(1));
            }
        }
        let mean = |f: &dyn Fn(&Battle) -> u32| {
            battles.iter().map(|b| f64::from(f(b))).sum::<f64>() / f64::from(n.max(1))
        };
        Summary {
            battles: n,
            wins,
            draws: Rate::of(count(&|b| b.winner.is_none()), n),
            at_turn_limit: Rate::of(count(&|b| b.ending == Ending::TurnLimit), n),
            turns_mean: mean(&|b| b.turns),
            turns,
            actions_mean: mean(&|b| b.actions),
            losses,
            actions_taken,
            usage,
            lost_by_turn: by_turn,
            break_points: battles
                .first()
                .map(|b| b.break_points.clone())
                .unwrap_or_default(),
            first_side_win_rate: first,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wilson_interval_is_the_textbook_one() {
        // 50 of 100: 0.5, [0.4038, 0.5962].
        let r = Rate::of(50, 100);
        assert!(
            (r.low - 0.403_8).abs() < 1e-4 && (r.high - 0.596_2).abs() < 1e-4,
            "{r:?}"
        );
        // None of 10: [0, 0.2775].
        let r = Rate::of(0, 10);
        assert!(r.low == 0.0 && (r.high - 0.277_5).abs() < 1e-4, "{r:?}");
    }

    #[test]
    fn battle_seeds_differ_and_repeat() {
        let s: Vec<u64> = (0..1000).map(|i| battle_seed(7, i)).collect();
        let set: std::collections::BTreeSet<_> = s.iter().collect();
        assert_eq!(set.len(), 1000);
        assert_eq!(battle_seed(7, 3), s[3]);
        assert_ne!(battle_seed(8, 3), s[3]);
    }
}

//! The designers' balance sheets: troop type against troop type, computed exactly from the same
//! dice plans that roll the game's actions (no sampling, no second implementation of a chart).
//!
//! A rule set that offers them gives a [`Balance`] ([`super::RuleSet::balance`]): its fighters
//! (troop types), the actions a matchup may pit, the [`Exchange`] one action makes between two
//! fresh units, and a fight to the finish as a round of dice from a state of the two units. This
//! module turns those into the heatmap's [`Cell`]s and, for the fight to the finish, solves the
//! Markov chain over the two units' states ([`to_the_finish`]). It names no rule set.

use std::collections::BTreeMap;

use serde::Serialize;
use tercio_core::Plan;

use super::Rejection;

/// A troop type a matchup can field, or an action it can pit: an id and a name.
#[derive(Debug, Clone, Serialize)]
pub struct Named {
    pub id: &'static str,
    /// Its name, as a language-neutral message.
    pub name: String,
}

impl Named {
    /// Each id named by its catalogue key (a message with no arguments).
    pub fn keyed(list: &[(&'static str, &str)]) -> Vec<Named> {
        list.iter()
            .map(|(id, key)| Named {
                id,
                name: tercio_i18n::msg(key, &[]),
            })
            .collect()
    }
}

/// What one action did to the two units: the status levels each lost (a base lost counts as a
/// level, as on the app-driven ladder) and whether each was destroyed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Exchange {
    pub actor_loss: u8,
    pub target_loss: u8,
    pub actor_destroyed: bool,
    pub target_destroyed: bool,
}

impl Exchange {
    /// Who came out ahead: the side that lost fewer levels (`Less`: the actor).
    pub fn ahead(&self) -> std::cmp::Ordering {
        self.actor_loss.cmp(&self.target_loss)
    }
}

/// One cell of a matchup: an action of `actor` against `target`, both fresh, tabulated exactly.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub actor: &'static str,
    pub target: &'static str,
    /// The probability that the actor loses fewer levels than the target.
    pub actor_ahead: f64,
    /// ... as many (a tie, or no effect on either).
    pub tie: f64,
    /// ... more.
    pub target_ahead: f64,
    /// Expected levels lost by each.
    pub actor_loss: f64,
    pub target_loss: f64,
    /// The probability that each is destroyed by this one action.
    pub actor_destroyed: f64,
    pub target_destroyed: f64,
}

impl Cell {
    /// The cell of one action's exact distribution of exchanges.
    pub fn of(actor: &'static str, target: &'static str, plan: &Plan<Exchange>) -> Cell {
        let d = plan.exact(|e| *e);
        // `+ 0.0`: an empty sum is -0.0, which would print as "-0.00%".
        let p = |f: &dyn Fn(&Exchange) -> bool| d.p(|e| f(e)) + 0.0;
        let mean = |f: &dyn Fn(&Exchange) -> u8| {
            d.outcomes
                .iter()
                .map(|(e, q)| f64::from(f(e)) * q)
                .sum::<f64>()
        };
        Cell {
            actor,
            target,
            actor_ahead: p(&|e| e.ahead().is_lt()),
            tie: p(&|e| e.ahead().is_eq()),
            target_ahead: p(&|e| e.ahead().is_gt()),
            actor_loss: mean(&|e| e.actor_loss),
            target_loss: mean(&|e| e.target_loss),
            actor_destroyed: p(&|e| e.actor_destroyed),
            target_destroyed: p(&|e| e.target_destroyed),
        }
    }
}

/// How a fight to the finish ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// The target is destroyed and the actor stands.
    TargetDestroyed,
    /// The actor is destroyed and the target stands.
    ActorDestroyed,
    /// Both are destroyed by the same round.
    BothDestroyed,
    /// The target is forced back, or gets away (it evaded, it broke off).
    TargetBack,
    /// The actor is forced back, or never reached the target.
    ActorBack,
}

impl End {
    pub const ALL: [End; 5] = [
        End::TargetDestroyed,
        End::ActorDestroyed,
        End::BothDestroyed,
        End::TargetBack,
        End::ActorBack,
    ];
}

/// The exact result of a fight to the finish.
#[derive(Debug, Clone, Serialize)]
pub struct Finish {
    /// Each way the fight can end, with its probability (they sum to 1).
    pub ends: Vec<(End, f64)>,
    /// The expected number of rounds (actions rolled), the opening one included.
    pub rounds: f64,
    /// How many states of the two units the chain has.
    pub states: usize,
}

impl Finish {
    pub fn p(&self, end: End) -> f64 {
        self.ends
            .iter()
            .find(|(e, _)| *e == end)
            .map_or(0.0, |(_, p)| *p)
    }
}

/// A rule set's balance sheets.
pub trait Balance: Send + Sync {
    /// The actions a matchup can pit (`charge`, `melee`, `fire`), the first the default.
    fn actions(&self) -> Vec<Named>;
    /// The troop types, in the rule set's order.
    fn fighters(&self) -> Vec<Named>;
    /// The size of the units a matchup fields unless told (bases, figures or blocks, as the
    /// rule set counts them: [`super::RuleSet::unit_size`]).
    fn default_size(&self) -> u8;
    /// The exchanges of one `action` by a fresh `actor` against a fresh `target`, each of
    /// `size`, as a plan: the same plan the game rolls, its outcomes read as exchanges. A
    /// refusal when the rules forbid it (cannon do not charge).
    fn exchange(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        size: u8,
    ) -> Result<Plan<Exchange>, Rejection>;
    /// The fight to the finish opened by `action`: the exact chances of each [`End`], and the
    /// expected number of rounds.
    fn finish(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        size: u8,
    ) -> Result<Finish, Rejection>;
}

/// Whether `action` is one of `actions`; a refusal naming the field and the allowed ones if not.
fn known(actions: &[Named], action: &str) -> Result<(), Rejection> {
    if actions.iter().any(|a| a.id == action) {
        return Ok(());
    }
    let ids: Vec<&str> = actions.iter().map(|a| a.id).collect();
    Err(Rejection::new(
        "unknown-action",
        Some("action"),
        tercio_i18n::msg(
            tercio_i18n::keys::INPUT_MATCHUP_ACTION,
            &[
                (
                    "action",
                    tercio_i18n::plain(&tercio_i18n::clip(action)).as_ref(),
                ),
                ("allowed", &ids.join(", ")),
            ],
        ),
    ))
}

/// Every cell of a matchup of `action`, actor by row and target by column; a pair the rules
/// forbid is `None`. A refusal other than the rules forbidding the pair (an unknown action) is
/// returned.
pub fn matchup(
    b: &dyn Balance,
    action: &str,
    size: u8,
) -> Result<Vec<Vec<Option<Cell>>>, Rejection> {
    known(&b.actions(), action)?;
    let fighters = b.fighters();
    Ok(fighters
        .iter()
        .map(|a| {
            fighters
                .iter()
                .map(|t| {
                    b.exchange(action, a.id, t.id, size)
                        .ok()
                        .map(|plan| Cell::of(a.id, t.id, &plan))
                })
                .collect()
        })
        .collect())
}

/// A rule set's whole balance sheet for one action: each pair's exchange and fight to the
/// finish, actor by row and target by column (`None`: the rules forbid the pair).
#[derive(Debug, Clone, Serialize)]
pub struct Sheet {
    pub ruleset: &'static str,
    pub action: String,
    pub size: u8,
    pub fighters: Vec<Named>,
    pub cells: Vec<Vec<Option<Cell>>>,
    pub finish: Vec<Vec<Option<Finish>>>,
}

/// The [`Sheet`] of `action` between units of `size`.
pub fn sheet(
    ruleset: &'static str,
    b: &dyn Balance,
    action: &str,
    size: u8,
) -> Result<Sheet, Rejection> {
    let cells = matchup(b, action, size)?;
    let fighters = b.fighters();
    let finish = fighters
        .iter()
        .zip(&cells)
        .map(|(a, row)| {
            fighters
                .iter()
                .zip(row)
                .map(|(t, cell)| {
                    cell.as_ref()
                        .and_then(|_| b.finish(action, a.id, t.id, size).ok())
                })
                .collect()
        })
        .collect();
    Ok(Sheet {
        ruleset,
        action: action.to_string(),
        size,
        fighters,
        cells,
        finish,
    })
}

/// The states one round leads to, with their probabilities.
type Next<S> = Vec<(S, f64)>;

/// What a state of the chain leads to.
enum Node<S> {
    End(End),
    /// The next states and their probabilities, itself left out; and the probability of
    /// staying (a round that changes nothing).
    Round(Vec<(S, f64)>, f64),
}

/// The exact fight to the finish from `start`: `end` says whether a state ends the fight and
/// how, `round` gives the dice of the next round from a state that does not, as a plan whose
/// outcomes are the next states. The chain is explored from `start`; each state's chances are
/// then found by sweeping the states children-first until nothing changes (one sweep when the
/// fight never returns to an earlier state, as when losses are never regained).
pub fn to_the_finish<S: Ord + Clone + 'static>(
    start: S,
    end: impl Fn(&S) -> Option<End>,
    round: impl Fn(&S) -> Result<Plan<S>, Rejection>,
) -> Result<Finish, Rejection> {
    // Explore, numbering states in the order they are finished (children first).
    let mut index: BTreeMap<S, usize> = BTreeMap::new();
    let mut nodes: Vec<Option<Node<usize>>> = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    let mut stack: Vec<(usize, Next<S>, usize)> = Vec::new();
    let visit = |s: S,
                 index: &mut BTreeMap<S, usize>,
                 nodes: &mut Vec<Option<Node<usize>>>|
     -> Result<(usize, Option<Next<S>>), Rejection> {
        if let Some(&i) = index.get(&s) {
            return Ok((i, None));
        }
        let i = nodes.len();
        index.insert(s.clone(), i);
        if let Some(e) = end(&s) {
            nodes.push(Some(Node::End(e)));
            return Ok((i, Some(Vec::new())));
        }
        nodes.push(None);
        let next = round(&s)?
            .exact(|n| n.clone())
            .outcomes
            .into_iter()
            .collect();
        Ok((i, Some(next)))
    };
    let (i0, next) = visit(start, &mut index, &mut nodes)?;
    if let Some(next) = next {
        stack.push((i0, next, 0));
    }
    while let Some((i, next, at)) = stack.last_mut() {
        if *at < next.len() {
            let s = next[*at].0.clone();
            *at += 1;
            let (j, more) = visit(s, &mut index, &mut nodes)?;
            if let Some(more) = more {
                stack.push((j, more, 0));
            }
            continue;
        }
        let i = *i;
        if nodes[i].is_none() {
            let mut stay = 0.0;
            let mut to = Vec::new();
            for (s, p) in next.iter() {
                let j = index[s];
                if j == i {
                    stay += p;
                } else {
                    to.push((j, *p));
                }
            }
            nodes[i] = Some(Node::Round(to, stay));
        }
        order.push(i);
        stack.pop();
    }
    let nodes: Vec<Node<usize>> = nodes.into_iter().map(|n| n.expect("explored")).collect();
    // Each state's chance of each end, and its expected rounds to the end.
    let k = End::ALL.len();
    let mut value = vec![vec![0.0; k + 1]; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let Node::End(e) = n {
            value[i][End::ALL.iter().position(|x| x == e).unwrap_or(0)] = 1.0;
        }
    }
    for sweep in 0.. {
        let mut change: f64 = 0.0;
        for &i in &order {
            let Node::Round(to, stay) = &nodes[i] else {
                continue;
            };
            if *stay >= 1.0 - 1e-12 {
                return Err(Rejection::new(
                    "endless-fight",
                    None,
                    tercio_i18n::msg(tercio_i18n::keys::INPUT_ENDLESS_FIGHT, &[]),
                ));
            }
            let mut v = vec![0.0; k + 1];
            for (j, p) in to {
                for (x, y) in v.iter_mut().zip(&value[*j]) {
                    *x += p * y;
                }
            }
            v[k] += 1.0;
            for (x, old) in v.iter_mut().zip(value[i].iter()) {
                *x /= 1.0 - stay;
                change = change.max((*x - old).abs());
            }
            value[i] = v;
        }
        if change < 1e-13 || sweep > 100_000 {
            break;
        }
    }
    let v = &value[i0];
    Ok(Finish {
        ends: End::ALL.iter().copied().zip(v.iter().copied()).collect(),
        rounds: v[k],
        states: nodes.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tercio_core::{plan::dice, Plan};

    /// A duel of two units of `n` hit points: each round both roll a D6, the lower loses a
    /// point, a tie changes nothing. Symmetric, so each side destroys the other half the time,
    /// and the expected number of rounds is known in closed form for n = 1: 6/5 rounds (a tie,
    /// 1/6, repeats the round).
    fn duel(n: u8) -> Result<Finish, Rejection> {
        to_the_finish(
            (n, n),
            |&(a, b)| match (a, b) {
                (0, _) => Some(End::ActorDestroyed),
                (_, 0) => Some(End::TargetDestroyed),
                _ => None,
            },
            |&(a, b)| {
                Ok(dice(2, 6, "d").and_then(move |f| {
                    Plan::done(match f[0].cmp(&f[1]) {
                        std::cmp::Ordering::Greater => (a, b - 1),
                        std::cmp::Ordering::Less => (a - 1, b),
                        std::cmp::Ordering::Equal => (a, b),
                    })
                }))
            },
        )
    }

    #[test]
    fn a_symmetric_duel_is_even_and_its_length_is_exact() {
        let f = duel(1).unwrap();
        assert!((f.p(End::TargetDestroyed) - 0.5).abs() < 1e-12, "{f:?}");
        assert!((f.p(End::ActorDestroyed) - 0.5).abs() < 1e-12, "{f:?}");
        assert!((f.rounds - 6.0 / 5.0).abs() < 1e-12, "{f:?}");
        // Best of three points: 2 decisive rounds at least, 3 at most, each 6/5 rounds long;
        // the third is needed half the time.
        let f = duel(2).unwrap();
        assert!((f.p(End::TargetDestroyed) - 0.5).abs() < 1e-12);
        assert!((f.rounds - 2.5 * 6.0 / 5.0).abs() < 1e-12, "{f:?}");
        assert_eq!(f.states, 9 - 1, "(0,0) is never reached");
    }

    #[test]
    fn a_fight_that_can_never_change_is_refused() {
        let r = to_the_finish(0u8, |_| None, |&s| Ok(Plan::done(s)));
        assert_eq!(r.unwrap_err().code, "endless-fight");
    }

    #[test]
    fn a_fight_that_returns_to_an_earlier_state_still_converges() {
        // A random walk on 0..=4 from 2, absorbed at both ends: P(reach 4) = 1/2, E[steps] = 4.
        let f = to_the_finish(
            2i8,
            |&s| match s {
                0 => Some(End::ActorDestroyed),
                4 => Some(End::TargetDestroyed),
                _ => None,
            },
            |&s| Ok(dice(1, 6, "d").map(move |f| if f[0] <= 3 { s + 1 } else { s - 1 })),
        )
        .unwrap();
        assert!((f.p(End::TargetDestroyed) - 0.5).abs() < 1e-9, "{f:?}");
        assert!((f.rounds - 4.0).abs() < 1e-9, "{f:?}");
    }
}

/// What one round of a stand-alone action did to the two units, read from its outcome's
/// facets: the strength (bases, figures, blocks) each lost, and whether each was forced back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Round {
    pub actor_loss: u8,
    pub target_loss: u8,
    pub actor_back: bool,
    pub target_back: bool,
}

/// The balance sheets of a rule set read from its stand-alone actions (the requests `tercio
/// odds` plans, units described inline) and the facets of their outcomes: the same plans the
/// game rolls. A unit's condition is its strength left; a fight to the finish repeats the
/// action between what the two units have left until one is destroyed or forced back (an
/// action that is a whole fight by itself is one round).
pub struct StandAlone {
    /// The rule set whose engine plans the requests.
    pub rules: &'static dyn super::RuleSet,
    pub actions: Vec<Named>,
    pub fighters: Vec<Named>,
    pub size: u8,
    /// The request of `action` by `actor` with `a` left against `target` with `t` left.
    pub request: fn(action: &str, actor: &str, target: &str, a: u8, t: u8) -> serde_json::Value,
    /// An outcome of `action` read as a round.
    pub read: fn(action: &str, facets: &[(String, String)]) -> Round,
    /// The actions that are a whole fight by themselves (a close combat fought to its winner).
    pub whole: &'static [&'static str],
}

impl StandAlone {
    fn plan(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        a: u8,
        t: u8,
    ) -> Result<Plan<Round>, Rejection> {
        let engine = self
            .rules
            .engine(None)
            .map_err(|e| Rejection::new("no-engine", None, e))?;
        let plan = engine.plan(None, &(self.request)(action, actor, target, a, t))?;
        let read = self.read;
        let action = action.to_string();
        Ok(plan.map(move |o| read(&action, &o.facets)))
    }
}

/// A state of a fight between two units read from stand-alone rounds: each one's strength
/// left, and who was forced back (0 nobody, 1 the target, 2 the actor).
type Standing = (u8, u8, u8);

impl Balance for StandAlone {
    fn actions(&self) -> Vec<Named> {
        self.actions.clone()
    }

    fn fighters(&self) -> Vec<Named> {
        self.fighters.clone()
    }

    fn default_size(&self) -> u8 {
        self.size
    }

    fn exchange(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        size: u8,
    ) -> Result<Plan<Exchange>, Rejection> {
        known(&self.actions, action)?;
        Ok(self
            .plan(action, actor, target, size, size)?
            .map(move |r| Exchange {
                actor_loss: r.actor_loss.min(size),
                target_loss: r.target_loss.min(size),
                actor_destroyed: r.actor_loss >= size,
                target_destroyed: r.target_loss >= size,
            }))
    }

    fn finish(
        &self,
        action: &str,
        actor: &str,
        target: &str,
        size: u8,
    ) -> Result<Finish, Rejection> {
        known(&self.actions, action)?;
        let whole = self.whole.contains(&action);
        if whole {
            // One action is the whole fight: its ends straight from its outcomes, enumerated
            // once. What names no loser leaves the target holding its ground.
            let d = self.plan(action, actor, target, size, size)?.exact(|r| {
                match (r.actor_loss >= size, r.target_loss >= size) {
                    (true, true) => End::BothDestroyed,
                    (false, true) => End::TargetDestroyed,
                    (true, false) => End::ActorDestroyed,
                    _ if r.target_back => End::TargetBack,
                    _ => End::ActorBack,
                }
            });
            return Ok(Finish {
                ends: End::ALL
                    .iter()
                    .map(|e| (*e, d.p(|x| x == e) + 0.0))
                    .collect(),
                rounds: 1.0,
                states: 1 + d.outcomes.len(),
            });
        }
        to_the_finish(
            (size, size, 0),
            |&(a, t, back): &Standing| match (a, t, back) {
                (0, 0, _) => Some(End::BothDestroyed),
                (_, 0, _) => Some(End::TargetDestroyed),
                (0, _, _) => Some(End::ActorDestroyed),
                (_, _, 1) => Some(End::TargetBack),
                (_, _, 2) => Some(End::ActorBack),
                _ => None,
            },
            |&(a, t, _): &Standing| {
                Ok(self.plan(action, actor, target, a, t)?.map(move |r| {
                    let back = match (r.target_back, r.actor_back) {
                        (true, _) => 1,
                        (_, true) => 2,
                        _ => 0,
                    };
                    (
                        a.saturating_sub(r.actor_loss),
                        t.saturating_sub(r.target_loss),
                        back,
                    )
                }))
            },
        )
    }
}

/// The number a facet gives, 0 when it is missing or not one.
pub fn facet_number(facets: &[(String, String)], key: &str) -> u8 {
    facets
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// Whether a facet has the value `value`.
pub fn facet_is(facets: &[(String, String)], key: &str, value: &str) -> bool {
    facets.iter().any(|(k, v)| k == key && v == value)
}

//! Declared dice plans.
//!
//! A [`Plan`] is a tree: either a finished value, or "roll this die, then continue with a
//! function of its face". The same tree is
//! * **rolled** with [`Plan::roll`], drawing faces from a [`DiceStream`] and recording them, or
//! * **enumerated** with [`Plan::exact`], weighting each face `1/sides`, which gives the exact
//!   distribution of outcomes.
//!
//! Because both walk the very same continuations, the odds shown before an action and the dice
//! rolled for it can never disagree.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::dice::{DiceStream, Die, Draw};

type Cont<T> = Rc<dyn Fn(u8) -> Plan<T>>;

/// A declared dice plan yielding a `T`.
pub enum Plan<T> {
    Done(T),
    Roll(Die, Cont<T>),
}

impl<T: Clone> Clone for Plan<T> {
    fn clone(&self) -> Self {
        match self {
            Plan::Done(t) => Plan::Done(t.clone()),
            Plan::Roll(d, k) => Plan::Roll(d.clone(), k.clone()),
        }
    }
}

impl<T: 'static> Plan<T> {
    pub fn done(value: T) -> Self {
        Plan::Done(value)
    }

    /// Roll `die`, then continue with `then(face)`.
    pub fn die(die: Die, then: impl Fn(u8) -> Plan<T> + 'static) -> Self {
        Plan::Roll(die, Rc::new(then))
    }

    /// Chain: when this plan finishes with `t`, continue with `f(t)`.
    pub fn and_then<U: 'static>(self, f: impl Fn(T) -> Plan<U> + 'static) -> Plan<U> {
        self.and_then_rc(Rc::new(f))
    }

    fn and_then_rc<U: 'static>(self, f: Rc<dyn Fn(T) -> Plan<U>>) -> Plan<U> {
        match self {
            Plan::Done(t) => f(t),
            Plan::Roll(die, k) => {
                Plan::Roll(die, Rc::new(move |face| k(face).and_then_rc(f.clone())))
            }
        }
    }

    pub fn map<U: 'static>(self, f: impl Fn(T) -> U + 'static) -> Plan<U> {
        let f = Rc::new(f);
        self.and_then(move |t| Plan::Done(f(t)))
    }

    /// Roll the plan: draws faces from `stream` and returns the outcome with every draw made.
    pub fn roll(self, stream: &mut DiceStream) -> (T, Vec<Draw>) {
        let mut draws = Vec::new();
        let mut plan = self;
        loop {
            match plan {
                Plan::Done(t) => return (t, draws),
                Plan::Roll(die, k) => {
                    let d = stream.roll(&die);
                    let face = d.face;
                    draws.push(d);
                    plan = k(face);
                }
            }
        }
    }

    /// Roll the plan with faces given in advance (physical dice, or a replay check). Fails if the
    /// faces run out, one is out of range, or some are left over.
    pub fn roll_with(self, faces: &[u8]) -> Result<(T, Vec<Draw>), FaceError> {
        let mut draws = Vec::new();
        let mut plan = self;
        let mut i = 0;
        loop {
            match plan {
                Plan::Done(t) => {
                    if i != faces.len() {
                        return Err(FaceError::TooMany {
                            needed: i,
                            given: faces.len(),
                        });
                    }
                    return Ok((t, draws));
                }
                Plan::Roll(die, k) => {
                    let Some(&face) = faces.get(i) else {
                        return Err(FaceError::TooFew {
                            label: die.label,
                            index: i,
                        });
                    };
                    if face == 0 || face > die.sides {
                        return Err(FaceError::OutOfRange {
                            label: die.label,
                            index: i,
                            face,
                            sides: die.sides,
                        });
                    }
                    draws.push(Draw {
                        sides: die.sides,
                        label: die.label,
                        face,
                    });
                    i += 1;
                    plan = k(face);
                }
            }
        }
    }

    /// Every leaf of the plan with its exact probability. Probabilities sum to 1.
    pub fn leaves(&self) -> Vec<(T, f64)>
    where
        T: Clone,
    {
        let mut out = Vec::new();
        self.walk(1.0, &mut |t, p| out.push((t.clone(), p)));
        out
    }

    fn walk(&self, p: f64, visit: &mut dyn FnMut(&T, f64)) {
        match self {
            Plan::Done(t) => visit(t, p),
            Plan::Roll(die, k) => {
                let q = p / f64::from(die.sides);
                for face in 1..=die.sides {
                    k(face).walk(q, visit);
                }
            }
        }
    }

    /// The exact distribution of `key(outcome)`.
    pub fn exact<K: Ord + Clone>(&self, key: impl Fn(&T) -> K) -> Distribution<K> {
        let mut map: BTreeMap<K, f64> = BTreeMap::new();
        self.walk(1.0, &mut |t, p| *map.entry(key(t)).or_insert(0.0) += p);
        Distribution { outcomes: map }
    }
}

/// Why given faces do not fit a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaceError {
    TooFew {
        label: String,
        index: usize,
    },
    TooMany {
        needed: usize,
        given: usize,
    },
    OutOfRange {
        label: String,
        index: usize,
        face: u8,
        sides: u8,
    },
}

impl std::fmt::Display for FaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FaceError::TooFew { label, index } => {
                write!(f, "faces[{index}]: missing, a face is needed for '{label}'")
            }
            FaceError::TooMany { needed, given } => {
                write!(f, "faces: {given} given but this resolution uses {needed}")
            }
            FaceError::OutOfRange {
                label,
                index,
                face,
                sides,
            } => write!(
                f,
                "faces[{index}]: {face} is not a face of '{label}' (allowed: 1 to {sides})"
            ),
        }
    }
}

/// An exact probability distribution over outcome keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution<K: Ord> {
    pub outcomes: BTreeMap<K, f64>,
}

impl<K: Ord> Distribution<K> {
    pub fn total(&self) -> f64 {
        self.outcomes.values().sum()
    }
    pub fn p(&self, pred: impl Fn(&K) -> bool) -> f64 {
        self.outcomes
            .iter()
            .filter(|(k, _)| pred(k))
            .map(|(_, p)| p)
            .sum()
    }
}

/// Roll `n` dice of `sides` sides, labelled `label 1`, `label 2`, ..., collecting the faces.
pub fn dice(n: usize, sides: u8, label: &str) -> Plan<Vec<u8>> {
    fn go(n: usize, i: usize, sides: u8, label: Rc<str>, acc: Vec<u8>) -> Plan<Vec<u8>> {
        if i == n {
            return Plan::Done(acc);
        }
        let name = if n == 1 {
            label.to_string()
        } else {
            format!("{label} {}", i + 1)
        };
        Plan::die(Die::new(sides, name), move |face| {
            let mut next = acc.clone();
            next.push(face);
            go(n, i + 1, sides, label.clone(), next)
        })
    }
    go(n, 0, sides, Rc::from(label), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_d6_sum() -> Plan<u32> {
        dice(2, 6, "2D6").map(|f| f.iter().map(|&x| u32::from(x)).sum())
    }

    #[test]
    fn exact_two_d6() {
        let d = two_d6_sum().exact(|s| *s);
        assert!((d.total() - 1.0).abs() < 1e-12);
        assert!((d.outcomes[&7] - 6.0 / 36.0).abs() < 1e-12);
        assert!((d.outcomes[&2] - 1.0 / 36.0).abs() < 1e-12);
        assert_eq!(d.outcomes.len(), 11);
    }

    #[test]
    fn conditional_plan_odds_match_frequencies() {
        // Roll a D6; on 4+ roll a second and add it. Exact odds vs 200k rolls.
        let make = || {
            Plan::die(Die::d6("first"), |a| {
                if a >= 4 {
                    Plan::die(Die::d6("second"), move |b| Plan::Done(u32::from(a + b)))
                } else {
                    Plan::Done(u32::from(a))
                }
            })
        };
        let exact = make().exact(|s| *s);
        let mut s = DiceStream::from_seed(9);
        let n = 200_000;
        let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
        for _ in 0..n {
            let (v, draws) = make().roll(&mut s);
            assert_eq!(draws.len(), if draws[0].face >= 4 { 2 } else { 1 });
            *counts.entry(v).or_default() += 1;
        }
        for (k, p) in &exact.outcomes {
            let f = f64::from(*counts.get(k).unwrap_or(&0)) / f64::from(n);
            let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
            assert!(
                (f - p).abs() < 5.0 * sigma + 1e-4,
                "{k}: exact {p}, seen {f}"
            );
        }
    }

    #[test]
    fn roll_with_checks_faces() {
        assert_eq!(two_d6_sum().roll_with(&[3, 4]).map(|r| r.0), Ok(7));
        assert!(matches!(
            two_d6_sum().roll_with(&[3]),
            Err(FaceError::TooFew { .. })
        ));
        assert!(matches!(
            two_d6_sum().roll_with(&[3, 7]),
            Err(FaceError::OutOfRange { .. })
        ));
        assert!(matches!(
            two_d6_sum().roll_with(&[3, 4, 5]),
            Err(FaceError::TooMany { .. })
        ));
    }
}

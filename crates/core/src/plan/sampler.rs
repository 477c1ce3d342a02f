//! A plan compiled for sampling: the same tree of dice the plan declares, walked once ahead of
//! time into nodes that hold only what a throw needs (its dice and where each class of faces
//! leads) and leaves that hold an outcome key. Sampling then throws real dice from a
//! [`DiceStream`], in the order and with the draws [`Plan::roll`] makes (the same stream gives
//! the same outcome), but builds no explanation and calls no continuation: a designer's
//! simulation samples millions of actions a second.
//!
//! It is not drawn from the exact distribution: it throws dice, so a χ² test of its frequencies
//! against [`Plan::exact`] compares two different walks of the plan.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::rc::Rc;

use super::{accepted, class_of, classes, Accept, Classify, Depends, Pick, Plan};
use crate::dice::DiceStream;

/// A plan compiled for sampling outcome keys of type `K`.
pub struct Sampler<K> {
    keys: Vec<K>,
    root: Rc<Node>,
}

/// Where a class of faces leads: classes numbered by their signature.
type Branches = HashMap<i64, Rc<Node>>;

enum Node {
    /// The outcome key's number.
    Leaf(u32),
    /// One die: the node each face leads to.
    Roll(u8, Vec<Rc<Node>>),
    /// Several dice at once, and what the outcome depends on.
    Throw(Vec<u8>, Depends, Branches),
    /// Dice thrown until accepted, then classed.
    Rethrow(Vec<u8>, Accept, Option<Classify>, Branches),
    /// A card from those left, by its class.
    Card(Rc<Pick>, HashMap<u8, Rc<Node>>),
}

/// A class of faces as one number (the faces' class under `dep`, folded).
fn signature(dep: Depends, faces: &[u8]) -> i64 {
    match dep {
        Depends::Sum => faces.iter().map(|&f| i64::from(f)).sum(),
        Depends::Difference => i64::from(faces[0]) - i64::from(faces.get(1).copied().unwrap_or(0)),
        Depends::CountAtMost(k) => faces.iter().filter(|&&f| f <= k).count() as i64,
        Depends::Nothing => 0,
        _ => fold(&class_of(dep, faces)),
    }
}

fn fold(v: &[i32]) -> i64 {
    v.iter().fold(17i64, |h, &x| {
        h.wrapping_mul(131).wrapping_add(i64::from(x))
    })
}

struct Compiler<'a, T, K> {
    key: &'a dyn Fn(&T) -> K,
    ids: HashMap<K, u32>,
    keys: Vec<K>,
    memo: HashMap<Rc<str>, Rc<Node>>,
    /// Nodes made so far, against a plan too large to compile.
    nodes: usize,
    budget: usize,
}

impl<T: 'static, K: Clone + Eq + std::hash::Hash> Compiler<'_, T, K> {
    fn node(&mut self, plan: &Plan<T>) -> Result<Rc<Node>, String> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(format!(
                "the plan has more than {} branches to compile",
                self.budget
            ));
        }
        Ok(match plan {
            Plan::Done(t) => {
                let k = (self.key)(t);
                let id = match self.ids.get(&k) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
                        self.ids.insert(k.clone(), id);
                        self.keys.push(k);
                        id
                    }
                };
                Rc::new(Node::Leaf(id))
            }
            Plan::Roll(die, k) => {
                let next = (1..=die.sides)
                    .map(|f| self.node(&k(f)))
                    .collect::<Result<_, _>>()?;
                Rc::new(Node::Roll(die.sides, next))
            }
            Plan::Throw(dice, dep, k) => {
                let mut branches = HashMap::new();
                for (faces, _) in classes(dice, *dep) {
                    let sig = signature(*dep, &faces);
                    if let Entry::Vacant(e) = branches.entry(sig) {
                        e.insert(self.node(&k(&faces))?);
                    }
                }
                Rc::new(Node::Throw(
                    dice.iter().map(|d| d.sides).collect(),
                    *dep,
                    branches,
                ))
            }
            Plan::Rethrow(dice, accept, class, k) => {
                let mut branches = HashMap::new();
                for (faces, _) in accepted(dice, accept, class.as_ref()).0 {
                    let sig = match class {
                        Some(c) => i64::from(c(&faces)),
                        None => signature(Depends::Faces, &faces),
                    };
                    if let Entry::Vacant(e) = branches.entry(sig) {
                        e.insert(self.node(&k(&faces))?);
                    }
                }
                Rc::new(Node::Rethrow(
                    dice.iter().map(|d| d.sides).collect(),
                    accept.clone(),
                    class.clone(),
                    branches,
                ))
            }
            Plan::Memo(key, inner) => {
                if let Some(n) = self.memo.get(key) {
                    return Ok(n.clone());
                }
                let n = self.node(&inner())?;
                self.memo.insert(key.clone(), n.clone());
                n
            }
            Plan::Card(pick, k) => {
                let mut by = HashMap::new();
                for (card, _) in pick.classes() {
                    let n = self.node(&k(card))?;
                    by.insert((pick.class)(card), n);
                }
                Rc::new(Node::Card(pick.clone(), by))
            }
        })
    }
}

impl<T: 'static> Plan<T> {
    /// Compile the plan for sampling `key(outcome)` ([`Sampler`]). Refused when the plan has more
    /// than `budget` branches (a plan of many dice whose outcome depends on every face).
    pub fn compile<K: Clone + Eq + std::hash::Hash>(
        &self,
        key: impl Fn(&T) -> K,
        budget: usize,
    ) -> Result<Sampler<K>, String> {
        let mut c = Compiler {
            key: &key,
            ids: HashMap::new(),
            keys: Vec::new(),
            memo: HashMap::new(),
            nodes: 0,
            budget,
        };
        let root = c.node(self)?;
        Ok(Sampler { keys: c.keys, root })
    }
}

impl<K> Sampler<K> {
    /// The outcome keys, in the order their numbers give.
    pub fn keys(&self) -> &[K] {
        &self.keys
    }

    /// Throw the dice and give the outcome key's number ([`Sampler::keys`]).
    pub fn sample_index(&self, stream: &mut DiceStream) -> usize {
        let mut node = &self.root;
        let mut faces: Vec<u8> = Vec::new();
        loop {
            match &**node {
                Node::Leaf(id) => return *id as usize,
                Node::Roll(sides, next) => {
                    let f = stream.face(*sides);
                    node = &next[usize::from(f - 1)];
                }
                Node::Throw(sides, dep, branches) => {
                    faces.clear();
                    faces.extend(sides.iter().map(|&s| stream.face(s)));
                    match branches.get(&signature(*dep, &faces)) {
                        Some(n) => node = n,
                        None => unreachable!("every class of faces was compiled"),
                    }
                }
                Node::Rethrow(sides, accept, class, branches) => {
                    loop {
                        faces.clear();
                        faces.extend(sides.iter().map(|&s| stream.face(s)));
                        if accept(&faces) {
                            break;
                        }
                    }
                    let sig = match class {
                        Some(c) => i64::from(c(&faces)),
                        None => signature(Depends::Faces, &faces),
                    };
                    match branches.get(&sig) {
                        Some(n) => node = n,
                        None => unreachable!("every accepted class was compiled"),
                    }
                }
                Node::Card(pick, by) => {
                    let n = u32::try_from(pick.left.len()).unwrap_or(u32::MAX).max(1);
                    let card = pick
                        .left
                        .get(stream.below(n) as usize)
                        .copied()
                        .unwrap_or(1);
                    match by.get(&(pick.class)(card)) {
                        Some(next) => node = next,
                        None => unreachable!("every class of card was compiled"),
                    }
                }
            }
        }
    }

    /// Throw the dice and give the outcome key.
    pub fn sample(&self, stream: &mut DiceStream) -> &K {
        &self.keys[self.sample_index(stream)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{dice, throw};
    use crate::Die;

    /// A plan with every kind of node: a roll, a throw by sum, a rethrow of ties, a memo, a card.
    fn mixed() -> Plan<(u8, i32)> {
        Plan::die(Die::d6("first"), |a| {
            throw(2, 6, "sum", Depends::Sum).and_then(move |f| {
                let s = i32::from(f[0] + f[1]);
                Plan::rethrow_until(
                    vec![Die::d6("x"), Die::d6("y")],
                    |f| f[0] != f[1],
                    move |g| {
                        let hi = g[0] > g[1];
                        // A memo's outcome keys depend only on its key.
                        Plan::memo(format!("m{hi}{a}{s}"), move || {
                            Plan::card(
                                "c",
                                10,
                                vec![1, 2, 3, 9],
                                |c| u8::from(c > 5),
                                move |c| {
                                    Plan::done((a.min(3), s / 4 + i32::from(hi) + i32::from(c > 5)))
                                },
                            )
                        })
                    },
                )
            })
        })
    }

    #[test]
    fn a_sample_is_the_roll_of_the_same_stream() {
        let plan = mixed();
        let s = plan.compile(|o| *o, 100_000).expect("compile");
        for seed in 0..2000 {
            let mut a = DiceStream::from_seed(seed);
            let mut b = DiceStream::from_seed(seed);
            let rolled = mixed().roll(&mut a).0;
            assert_eq!(*s.sample(&mut b), rolled, "seed {seed}");
            assert_eq!(a.word_pos(), b.word_pos(), "seed {seed}: the same draws");
        }
    }

    #[test]
    fn sampled_frequencies_agree_with_the_exact_odds() {
        // χ² of 200,000 samples against the exact distribution, at a fixed seed.
        let plan = mixed();
        let exact = plan.exact(|o| *o);
        let s = plan.compile(|o| *o, 100_000).expect("compile");
        let n = 200_000u32;
        let mut counts = vec![0u32; s.keys().len()];
        let mut stream = DiceStream::from_seed(20261203);
        for _ in 0..n {
            counts[s.sample_index(&mut stream)] += 1;
        }
        let mut chi2 = 0.0;
        for (k, c) in s.keys().iter().zip(&counts) {
            let e = exact.outcomes[k] * f64::from(n);
            chi2 += (f64::from(*c) - e).powi(2) / e;
        }
        let df = (exact.outcomes.len() - 1) as f64;
        // The 0.999 quantile of χ² with df degrees of freedom (Wilson–Hilferty).
        let z = 3.090_232;
        let crit = df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3);
        assert!(
            chi2 < crit,
            "χ² {chi2} over {crit} ({df} degrees of freedom)"
        );
        assert_eq!(s.keys().len(), exact.outcomes.len());
    }

    #[test]
    fn a_plan_too_large_is_refused() {
        let plan = dice(8, 6, "d").map(|f| f.iter().map(|&x| u32::from(x)).sum::<u32>());
        assert!(plan.compile(|o| *o, 10_000).is_err());
        let plan =
            throw(8, 6, "d", Depends::Sum).map(|f| f.iter().map(|&x| u32::from(x)).sum::<u32>());
        assert!(plan.compile(|o| *o, 10_000).is_ok(), "by sum, 41 classes");
    }
}

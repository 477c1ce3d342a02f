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
//!
//! ```
//! use tercio_core::{plan::throw, Depends, DiceStream};
//!
//! // 2D6 on a chart: 7 or more hits.
//! let fire = throw(2, 6, "Fire die", Depends::Sum).map(|f| f[0] + f[1] >= 7);
//! let odds = fire.exact(|hit| *hit);
//! assert!((odds.outcomes[&true] - 21.0 / 36.0).abs() < 1e-12);
//! let (_hit, draws) = fire.roll(&mut DiceStream::from_seed(1));
//! assert_eq!(draws.len(), 2);
//! ```

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::dice::{DiceStream, Die, Draw};

type Cont<T> = Rc<dyn Fn(u8) -> Plan<T>>;
type ContMany<T> = Rc<dyn Fn(&[u8]) -> Plan<T>>;

/// What an outcome depends on, for a roll of several dice at once. Declaring it lets the exact
/// enumeration visit one representative throw per class (weighted by the class's size) instead
/// of every throw; rolling is unaffected. The continuation's outcome *key* (what odds tabulate)
/// must depend on the faces only through this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depends {
    /// Every face matters.
    Faces,
    /// Only the sum of the faces matters (2D6 on a chart).
    Sum,
    /// Only the first face minus the second matters (opposed D6s).
    Difference,
    /// Only how many faces are at most `at_most` matters: dice that hit on a number or less (a
    /// D20 per figure hitting on 1-7). The continuation must count faces `<= at_most` and nothing
    /// else: the exact walk hands it representative faces (1 for a hit, the top face for a miss).
    /// Dice of equal sides are enumerated in closed form, n + 1 classes however many dice.
    CountAtMost(u8),
    /// Nothing that follows depends on the faces (a distance the players move, shown but not
    /// tracked): the exact walk takes one class of probability 1 with representative faces (all
    /// 1s), so explanations built from them on that walk are placeholders.
    Nothing,
    /// Only how many faces fall in each class matters: `FaceClasses` maps every face to a class
    /// (a symbol die's hit / flag / miss for one target). The continuation must use the faces
    /// only through their classes: the exact walk hands it one representative face per class.
    /// Dice of equal sides are enumerated in closed form, one multinomial class per split of the
    /// dice among the classes.
    Classes(FaceClasses),
}

/// The class of each face of a die (faces 1 to 20; faces above the die's sides are unused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaceClasses(pub [u8; 20]);

impl FaceClasses {
    /// Classes for the faces 1, 2, 3... of a die, in order.
    pub fn of(classes: &[u8]) -> Self {
        let mut c = [0u8; 20];
        for (i, &k) in classes.iter().take(20).enumerate() {
            c[i] = k;
        }
        FaceClasses(c)
    }
    pub fn class(&self, face: u8) -> u8 {
        self.0[usize::from(face.clamp(1, 20) - 1)]
    }
    fn count(&self, sides: u8) -> usize {
        (1..=sides)
            .map(|f| usize::from(self.class(f)))
            .max()
            .unwrap_or(0)
            + 1
    }
}

/// A declared dice plan yielding a `T`.
pub enum Plan<T> {
    Done(T),
    Roll(Die, Cont<T>),
    Throw(Vec<Die>, Depends, ContMany<T>),
    /// Throw the dice again until `accept` takes the faces (ties thrown again), then continue.
    /// Every throw is recorded; the exact walk weighs the accepted throws by their conditional
    /// probability, so it stays finite. With a [`Classify`], the exact walk visits one accepted
    /// throw per class (see [`Plan::rethrow_classed`]); without, every accepted throw.
    Rethrow(Vec<Die>, Accept, Option<Classify>, ContMany<T>),
    /// A sub-plan whose outcome keys depend only on `key` (a state of a long chain: who is left
    /// to fight in a close combat). Rolling simply continues into it; the exact enumeration works
    /// out each key's distribution once and reuses it, so a chain of many throws stays small.
    Memo(Rc<str>, Rc<dyn Fn() -> Plan<T>>),
    /// Draw one card from the cards left in a deck; the continuation gets its number. The odds
    /// depend only on the card's class (an ace or not; its colour).
    Card(Rc<Pick>, Cont<T>),
}

/// A card to draw: from which cards (their numbers in the deck, 1 to `deck`), and what the odds
/// depend on.
pub struct Pick {
    pub label: String,
    pub deck: u8,
    pub left: Vec<u8>,
    class: Rc<dyn Fn(u8) -> u8>,
}

impl Pick {
    /// The cards left grouped by class: (a card of the class, its probability).
    fn classes(&self) -> Vec<(u8, f64)> {
        let mut by: BTreeMap<u8, (u8, usize)> = BTreeMap::new();
        for &c in &self.left {
            by.entry((self.class)(c)).or_insert((c, 0)).1 += 1;
        }
        let n = self.left.len() as f64;
        by.into_values().map(|(c, k)| (c, k as f64 / n)).collect()
    }
    fn die(&self) -> Die {
        Die::new(
            self.deck.max(2),
            format!("{} (a card, by its number 1-{})", self.label, self.deck),
        )
    }
}

type Accept = Rc<dyn Fn(&[u8]) -> bool>;

/// What the outcome of a throw depends on, as a number: throws of equal numbers lead to the same
/// outcome keys (the [`Depends`] of a rethrow).
pub type Classify = Rc<dyn Fn(&[u8]) -> u32>;

impl<T: Clone> Clone for Plan<T> {
    fn clone(&self) -> Self {
        match self {
            Plan::Done(t) => Plan::Done(t.clone()),
            Plan::Roll(d, k) => Plan::Roll(d.clone(), k.clone()),
            Plan::Throw(d, dep, k) => Plan::Throw(d.clone(), *dep, k.clone()),
            Plan::Rethrow(d, a, c, k) => Plan::Rethrow(d.clone(), a.clone(), c.clone(), k.clone()),
            Plan::Memo(key, f) => Plan::Memo(key.clone(), f.clone()),
            Plan::Card(p, k) => Plan::Card(p.clone(), k.clone()),
        }
    }
}

fn class_of(dep: Depends, faces: &[u8]) -> Vec<i32> {
    match dep {
        Depends::CountAtMost(k) => vec![faces.iter().filter(|&&f| f <= k).count() as i32],
        Depends::Faces => faces.iter().map(|&f| i32::from(f)).collect(),
        Depends::Sum => vec![faces.iter().map(|&f| i32::from(f)).sum()],
        Depends::Difference => {
            vec![i32::from(faces[0]) - i32::from(faces.get(1).copied().unwrap_or(0))]
        }
        Depends::Nothing => Vec::new(),
        Depends::Classes(c) => {
            let mut counts = vec![0i32; 20];
            for &f in faces {
                counts[usize::from(c.class(f))] += 1;
            }
            counts
        }
    }
}

/// Every throw of `dice`, grouped by class: (representative faces, probability of the class).
fn classes(dice: &[Die], dep: Depends) -> Vec<(Vec<u8>, f64)> {
    if let Depends::CountAtMost(k) = dep {
        if dice.windows(2).all(|w| w[0].sides == w[1].sides) {
            return count_classes(dice, k);
        }
    }
    if dep == Depends::Faces {
        return every_throw(dice);
    }
    if dep == Depends::Nothing {
        return vec![(dice.iter().map(|_| 1).collect(), 1.0)];
    }
    if let Depends::Classes(c) = dep {
        if dice.windows(2).all(|w| w[0].sides == w[1].sides) {
            return multinomial_classes(dice, c);
        }
    }
    let total: f64 = dice.iter().map(|d| f64::from(d.sides)).product();
    let mut map: BTreeMap<Vec<i32>, (Vec<u8>, u64)> = BTreeMap::new();
    let mut faces: Vec<u8> = dice.iter().map(|_| 1).collect();
    loop {
        let e = map
            .entry(class_of(dep, &faces))
            .or_insert_with(|| (faces.clone(), 0));
        e.1 += 1;
        // Next throw, odometer style.
        let mut i = 0;
        loop {
            if i == dice.len() {
                return map
                    .into_values()
                    .map(|(f, n)| (f, n as f64 / total))
                    .collect();
            }
            if faces[i] < dice[i].sides {
                faces[i] += 1;
                break;
            }
            faces[i] = 1;
            i += 1;
        }
    }
}

/// Every throw of `dice`, each its own class, in the order of their faces (the first die's face
/// first, as [`classes`] orders its classes).
fn every_throw(dice: &[Die]) -> Vec<(Vec<u8>, f64)> {
    let total: f64 = dice.iter().map(|d| f64::from(d.sides)).product();
    let q = 1.0 / total;
    let n = dice
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(usize::from(d.sides)))
        .unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(n.min(1 << 16));
    let mut faces: Vec<u8> = dice.iter().map(|_| 1).collect();
    loop {
        out.push((faces.clone(), q));
        // Next throw, odometer style, the last die turning fastest.
        let mut i = dice.len();
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if faces[i] < dice[i].sides {
                faces[i] += 1;
                break;
            }
            faces[i] = 1;
        }
    }
}

/// The throws a rethrow accepts: one per class when it has a [`Classify`] (the first of its class
/// in the order of faces, weighing the whole class), else every accepted throw. Returns each with
/// its probability, and the probability that a throw is accepted: divided by it, the odds given
/// acceptance.
fn accepted(dice: &[Die], accept: &Accept, class: Option<&Classify>) -> (Vec<(Vec<u8>, f64)>, f64) {
    let kept: Vec<(Vec<u8>, f64)> = classes(dice, Depends::Faces)
        .into_iter()
        .filter(|(f, _)| accept(f))
        .collect();
    let mass: f64 = kept.iter().map(|(_, q)| q).sum();
    // A throw nothing accepts could never end; it has no outcomes to weigh.
    if mass <= 0.0 {
        return (Vec::new(), mass);
    }
    let grouped = match class {
        None => kept,
        Some(c) => {
            let mut by: Vec<(u32, Vec<u8>, f64)> = Vec::new();
            for (faces, q) in kept {
                let k = c(&faces);
                match by.iter_mut().find(|(x, _, _)| *x == k) {
                    Some(e) => e.2 += q,
                    None => by.push((k, faces, q)),
                }
            }
            by.into_iter().map(|(_, f, q)| (f, q)).collect()
        }
    };
    (grouped, mass)
}

/// The classes of "how many of these dice show `k` or less": binomial, with representative
/// faces 1 (at most `k`) and the die's top face (more than `k`).
fn count_classes(dice: &[Die], k: u8) -> Vec<(Vec<u8>, f64)> {
    let n = dice.len();
    let sides = dice.first().map_or(1, |d| d.sides);
    debug_assert!(
        dice.iter().all(|d| d.sides == sides),
        "CountAtMost needs equal dice"
    );
    let q = f64::from(k.min(sides)) / f64::from(sides);
    let mut out = Vec::with_capacity(n + 1);
    let mut choose = 1.0f64; // C(n, j)
    for j in 0..=n {
        if j > 0 {
            choose = choose * (n + 1 - j) as f64 / j as f64;
        }
        let p = choose * q.powi(j as i32) * (1.0 - q).powi((n - j) as i32);
        if p > 0.0 {
            let mut faces = vec![1u8; j];
            faces.extend(std::iter::repeat_n(sides, n - j));
            out.push((faces, p));
        }
    }
    out
}

/// Every split of `n` equal dice among the classes of their faces, with its multinomial
/// probability and representative faces (the lowest face of each class, dice sorted by class).
fn multinomial_classes(dice: &[Die], c: FaceClasses) -> Vec<(Vec<u8>, f64)> {
    let n = dice.len();
    let sides = dice.first().map_or(1, |d| d.sides);
    let k = c.count(sides);
    let mut rep = vec![0u8; k];
    let mut share = vec![0f64; k];
    for f in (1..=sides).rev() {
        let i = usize::from(c.class(f));
        rep[i] = f;
        share[i] += 1.0 / f64::from(sides);
    }
    let ln_fact = |m: usize| (1..=m).map(|x| (x as f64).ln()).sum::<f64>();
    let mut out = Vec::new();
    for counts in splits(n, k) {
        if counts.iter().zip(&share).any(|(&m, &q)| m > 0 && q == 0.0) {
            continue;
        }
        let mut ln_p = ln_fact(n);
        for (&m, &q) in counts.iter().zip(&share) {
            ln_p -= ln_fact(m);
            if m > 0 {
                ln_p += m as f64 * q.ln();
            }
        }
        let mut faces = Vec::with_capacity(n);
        for (i, &m) in counts.iter().enumerate() {
            faces.extend(std::iter::repeat_n(rep[i], m));
        }
        out.push((faces, ln_p.exp()));
    }
    out
}

/// Every way of splitting `n` among `k` parts, in order.
fn splits(n: usize, k: usize) -> Vec<Vec<usize>> {
    if k <= 1 {
        return vec![vec![n]];
    }
    let mut out = Vec::new();
    for first in 0..=n {
        for rest in splits(n - first, k - 1) {
            let mut v = Vec::with_capacity(k);
            v.push(first);
            v.extend(rest);
            out.push(v);
        }
    }
    out
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
            Plan::Throw(dice, dep, k) => Plan::Throw(
                dice,
                dep,
                Rc::new(move |faces: &[u8]| k(faces).and_then_rc(f.clone())),
            ),
            Plan::Rethrow(dice, accept, class, k) => Plan::Rethrow(
                dice,
                accept,
                class,
                Rc::new(move |faces: &[u8]| k(faces).and_then_rc(f.clone())),
            ),
            // The same continuation reaches every memoised node below, so naming it in the key
            // keeps keys of different continuations apart and equal ones together.
            Plan::Memo(key, inner) => Plan::Memo(
                Rc::from(format!("{key}|{:p}", Rc::as_ptr(&f))),
                Rc::new(move || inner().and_then_rc(f.clone())),
            ),
            Plan::Card(p, k) => Plan::Card(p, Rc::new(move |c| k(c).and_then_rc(f.clone()))),
        }
    }

    /// Draw a card from `left` (card numbers of a deck of `deck` cards), then continue with
    /// `then(card)`. `class` names what the odds depend on; the continuation must depend on the
    /// card only through it for the exact odds (the walk hands it one card of each class).
    pub fn card(
        label: impl Into<String>,
        deck: u8,
        left: Vec<u8>,
        class: impl Fn(u8) -> u8 + 'static,
        then: impl Fn(u8) -> Plan<T> + 'static,
    ) -> Self {
        Plan::Card(
            Rc::new(Pick {
                label: label.into(),
                deck,
                left,
                class: Rc::new(class),
            }),
            Rc::new(then),
        )
    }

    /// A memoised sub-plan (see [`Plan::Memo`]). The caller promises that the outcome keys of
    /// `plan()` depend only on `key`; the exact odds are then computed once per key.
    pub fn memo(key: impl Into<String>, plan: impl Fn() -> Plan<T> + 'static) -> Self {
        Plan::Memo(Rc::from(key.into()), Rc::new(plan))
    }

    /// Throw `dice` until `accept` takes the faces, then continue with `then(faces)`: a tie
    /// thrown again, as the rules say, with odds conditional on the throw being accepted. Some
    /// throw must be accepted (a plan accepting none would be thrown for ever).
    pub fn rethrow_until(
        dice: Vec<Die>,
        accept: impl Fn(&[u8]) -> bool + 'static,
        then: impl Fn(&[u8]) -> Plan<T> + 'static,
    ) -> Self {
        Plan::Rethrow(dice, Rc::new(accept), None, Rc::new(then))
    }

    /// [`Plan::rethrow_until`] whose outcome keys depend on the accepted faces only through
    /// `class` (who won a bout and what the loser lost, not the faces themselves): the exact walk
    /// then continues once per class instead of once per accepted throw. Rolling, entered faces
    /// and the recorded throws are the same as [`Plan::rethrow_until`]'s.
    pub fn rethrow_classed(
        dice: Vec<Die>,
        accept: impl Fn(&[u8]) -> bool + 'static,
        class: impl Fn(&[u8]) -> u32 + 'static,
        then: impl Fn(&[u8]) -> Plan<T> + 'static,
    ) -> Self {
        Plan::Rethrow(dice, Rc::new(accept), Some(Rc::new(class)), Rc::new(then))
    }

    /// A rethrow as an ordinary throw whose rejected faces lead to the same throw again (for
    /// rolling and entered faces, which follow the throws one by one).
    fn rethrow_step(dice: Vec<Die>, accept: Accept, k: ContMany<T>) -> Plan<T> {
        let again = (dice.clone(), accept.clone(), k.clone());
        Plan::Throw(
            dice,
            Depends::Faces,
            Rc::new(move |faces: &[u8]| {
                if (again.1)(faces) {
                    (again.2)(faces)
                } else {
                    Plan::rethrow_step(again.0.clone(), again.1.clone(), again.2.clone())
                }
            }),
        )
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
                Plan::Throw(dice, _, k) => {
                    let faces: Vec<u8> = dice
                        .iter()
                        .map(|die| {
                            let d = stream.roll(die);
                            let f = d.face;
                            draws.push(d);
                            f
                        })
                        .collect();
                    plan = k(&faces);
                }
                Plan::Rethrow(dice, accept, _, k) => plan = Plan::rethrow_step(dice, accept, k),
                Plan::Memo(_, inner) => plan = inner(),
                Plan::Card(p, k) => {
                    let n = u32::try_from(p.left.len()).unwrap_or(u32::MAX).max(1);
                    let card = p.left.get(stream.below(n) as usize).copied().unwrap_or(1);
                    draws.push(Draw {
                        sides: p.deck,
                        label: p.label.clone(),
                        face: card,
                        card: true,
                    });
                    plan = k(card);
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
                        card: false,
                    });
                    i += 1;
                    plan = k(face);
                }
                Plan::Card(p, k) => {
                    let Some(&card) = faces.get(i) else {
                        return Err(FaceError::TooFew {
                            label: p.label.clone(),
                            index: i,
                        });
                    };
                    if !p.left.contains(&card) {
                        return Err(FaceError::NotInDeck {
                            label: p.label.clone(),
                            index: i,
                            card,
                        });
                    }
                    draws.push(Draw {
                        sides: p.deck,
                        label: p.label.clone(),
                        face: card,
                        card: true,
                    });
                    i += 1;
                    plan = k(card);
                }
                Plan::Throw(dice, _, k) => {
                    // Unfold into single rolls so every face is checked the same way.
                    plan = unfold(Rc::from(dice), 0, Vec::new(), k);
                }
                Plan::Rethrow(dice, accept, _, k) => plan = Plan::rethrow_step(dice, accept, k),
                Plan::Memo(_, inner) => plan = inner(),
            }
        }
    }

    /// The dice still to be thrown after `faces` (physical dice entered at the table): `None` when
    /// the faces complete the plan, else the next throw's dice (all of them, or those of a throw
    /// not yet complete). The faces given are checked as [`Plan::roll_with`] checks them.
    pub fn needed(self, faces: &[u8]) -> Result<Option<Vec<Die>>, FaceError> {
        let mut plan = self;
        let mut i = 0;
        let check = |die: &Die, i: usize| -> Result<u8, FaceError> {
            let face = faces[i];
            if face == 0 || face > die.sides {
                return Err(FaceError::OutOfRange {
                    label: die.label.clone(),
                    index: i,
                    face,
                    sides: die.sides,
                });
            }
            Ok(face)
        };
        loop {
            match plan {
                Plan::Done(_) => {
                    if i != faces.len() {
                        return Err(FaceError::TooMany {
                            needed: i,
                            given: faces.len(),
                        });
                    }
                    return Ok(None);
                }
                Plan::Roll(die, k) => {
                    if i == faces.len() {
                        return Ok(Some(vec![die]));
                    }
                    let face = check(&die, i)?;
                    i += 1;
                    plan = k(face);
                }
                Plan::Throw(dice, _, k) => {
                    let have = faces.len() - i;
                    for (j, die) in dice.iter().enumerate().take(have) {
                        check(die, i + j)?;
                    }
                    if have < dice.len() {
                        return Ok(Some(dice[have..].to_vec()));
                    }
                    let thrown = &faces[i..i + dice.len()];
                    i += dice.len();
                    plan = k(thrown);
                }
                Plan::Rethrow(dice, accept, _, k) => plan = Plan::rethrow_step(dice, accept, k),
                Plan::Memo(_, inner) => plan = inner(),
                Plan::Card(p, k) => {
                    if i == faces.len() {
                        return Ok(Some(vec![p.die()]));
                    }
                    let card = faces[i];
                    if !p.left.contains(&card) {
                        return Err(FaceError::NotInDeck {
                            label: p.label.clone(),
                            index: i,
                            card,
                        });
                    }
                    i += 1;
                    plan = k(card);
                }
            }
        }
    }

    /// Whether the exact enumeration visits at most `budget` leaves; stops counting as soon as it
    /// is over, so asking is cheap even for a plan too large to enumerate.
    pub fn within(&self, budget: usize) -> bool {
        fn count<T: 'static>(
            p: &Plan<T>,
            left: &mut usize,
            seen: &mut std::collections::HashSet<Rc<str>>,
        ) -> bool {
            match p {
                // A memoised node is enumerated once, however often it is reached.
                Plan::Memo(key, inner) => !seen.insert(key.clone()) || count(&inner(), left, seen),
                Plan::Done(_) => {
                    if *left == 0 {
                        return false;
                    }
                    *left -= 1;
                    true
                }
                Plan::Roll(die, k) => (1..=die.sides).all(|f| count(&k(f), left, seen)),
                Plan::Card(p, k) => p.classes().iter().all(|(c, _)| count(&k(*c), left, seen)),
                Plan::Throw(dice, dep, k) => {
                    // Enumerating the classes visits every throw: refuse before doing so when
                    // the throws alone, or the classes they fall into, exceed what is left.
                    let throws = dice
                        .iter()
                        .try_fold(1usize, |n, d| n.checked_mul(usize::from(d.sides)));
                    let sides = dice.iter().map(|d| usize::from(d.sides));
                    let classes_n = match dep {
                        Depends::Faces => throws,
                        Depends::Sum => Some(sides.sum::<usize>() + 1 - dice.len()),
                        Depends::Difference => Some(sides.take(2).sum::<usize>().saturating_sub(1)),
                        Depends::CountAtMost(_) => Some(dice.len() + 1),
                        Depends::Nothing => Some(1),
                        Depends::Classes(c) => {
                            let k = dice.first().map_or(1, |d| c.count(d.sides));
                            // C(n + k - 1, k - 1) splits.
                            (1..k).try_fold(1usize, |acc, i| {
                                acc.checked_mul(dice.len() + i).map(|x| x / i)
                            })
                        }
                    };
                    // Counted classes are built in closed form, whatever the number of throws.
                    let equal = dice.windows(2).all(|w| w[0].sides == w[1].sides);
                    let throws = match dep {
                        Depends::CountAtMost(_) | Depends::Nothing => Some(0),
                        Depends::Classes(_) if equal => Some(0),
                        _ => throws,
                    };
                    match (throws, classes_n) {
                        (Some(t), Some(c)) if c <= *left && t <= left.saturating_mul(64) => {
                            classes(dice, *dep)
                                .iter()
                                .all(|(f, _)| count(&k(f), left, seen))
                        }
                        _ => false,
                    }
                }
                Plan::Rethrow(dice, accept, class, k) => {
                    let throws = dice
                        .iter()
                        .try_fold(1usize, |n, d| n.checked_mul(usize::from(d.sides)));
                    match throws {
                        Some(t) if t <= left.saturating_mul(64) => {
                            accepted(dice, accept, class.as_ref())
                                .0
                                .iter()
                                .all(|(f, _)| count(&k(f), left, seen))
                        }
                        _ => false,
                    }
                }
            }
        }
        let mut left = budget;
        count(self, &mut left, &mut std::collections::HashSet::new())
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
            Plan::Throw(dice, dep, k) => {
                for (faces, q) in classes(dice, *dep) {
                    k(&faces).walk(p * q, visit);
                }
            }
            Plan::Rethrow(dice, accept, class, k) => {
                let (kept, mass) = accepted(dice, accept, class.as_ref());
                for (faces, q) in kept {
                    k(&faces).walk(p * q / mass, visit);
                }
            }
            Plan::Memo(_, inner) => inner().walk(p, visit),
            Plan::Card(pick, k) => {
                for (c, q) in pick.classes() {
                    k(c).walk(p * q, visit);
                }
            }
        }
    }

    /// The exact distribution of `key(outcome)`.
    pub fn exact<K: Ord + Clone>(&self, key: impl Fn(&T) -> K) -> Distribution<K> {
        let mut walk = Exact {
            key: &key,
            ids: BTreeMap::new(),
            memo: HashMap::new(),
        };
        let mut acc = BTreeMap::new();
        self.keyed(1.0, &mut walk, &mut acc);
        let mut keys: Vec<Option<K>> = (0..walk.ids.len()).map(|_| None).collect();
        for (k, id) in walk.ids {
            keys[id as usize] = Some(k);
        }
        let outcomes = acc
            .into_iter()
            .filter_map(|(id, p)| Some((keys[id as usize].take()?, p)))
            .collect();
        Distribution { outcomes }
    }

    /// The walk of [`Plan::exact`], adding each outcome key's probability into `acc` (by the key's
    /// number, see [`Exact`]); a memoised node's distribution is computed once and scaled
    /// wherever it is reached again.
    fn keyed<K: Ord + Clone>(
        &self,
        p: f64,
        ex: &mut Exact<'_, T, K>,
        acc: &mut BTreeMap<u32, f64>,
    ) {
        match self {
            Plan::Memo(k, inner) => {
                if !ex.memo.contains_key(k) {
                    let mut sub = BTreeMap::new();
                    inner().keyed(1.0, ex, &mut sub);
                    ex.memo.insert(k.clone(), sub.into_iter().collect());
                }
                if let Some(sub) = ex.memo.get(k) {
                    for &(x, q) in sub {
                        *acc.entry(x).or_insert(0.0) += p * q;
                    }
                }
            }
            Plan::Done(t) => {
                let id = ex.id(t);
                *acc.entry(id).or_insert(0.0) += p;
            }
            Plan::Card(pick, k) => {
                for (c, q) in pick.classes() {
                    k(c).keyed(p * q, ex, acc);
                }
            }
            Plan::Roll(die, k) => {
                let q = p / f64::from(die.sides);
                for face in 1..=die.sides {
                    k(face).keyed(q, ex, acc);
                }
            }
            Plan::Throw(dice, dep, k) => {
                for (faces, q) in classes(dice, *dep) {
                    k(&faces).keyed(p * q, ex, acc);
                }
            }
            Plan::Rethrow(dice, accept, class, k) => {
                let (kept, mass) = accepted(dice, accept, class.as_ref());
                for (faces, q) in kept {
                    k(&faces).keyed(p * q / mass, ex, acc);
                }
            }
        }
    }
}

/// The state of one exact walk. Outcome keys are numbered as they are first reached, so that the
/// memoised distributions, merged over and over in a long chain, add up numbers indexed by small
/// integers instead of comparing and cloning keys.
struct Exact<'a, T, K> {
    key: &'a dyn Fn(&T) -> K,
    ids: BTreeMap<K, u32>,
    /// Each memoised node's distribution, by key number.
    memo: HashMap<Rc<str>, Vec<(u32, f64)>>,
}

impl<T, K: Ord> Exact<'_, T, K> {
    fn id(&mut self, t: &T) -> u32 {
        let k = (self.key)(t);
        if let Some(&id) = self.ids.get(&k) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(k, id);
        id
    }
}

/// A throw of several dice as a chain of single rolls.
fn unfold<T: 'static>(dice: Rc<[Die]>, i: usize, acc: Vec<u8>, k: ContMany<T>) -> Plan<T> {
    if i == dice.len() {
        return k(&acc);
    }
    let die = dice[i].clone();
    Plan::Roll(
        die,
        Rc::new(move |face| {
            let mut next = acc.clone();
            next.push(face);
            unfold(dice.clone(), i + 1, next, k.clone())
        }),
    )
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
    NotInDeck {
        label: String,
        index: usize,
        card: u8,
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
            FaceError::NotInDeck { label, index, card } => write!(
                f,
                "faces[{index}]: card {card} is not among the cards left for '{label}'"
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

/// Throw `n` dice of `sides` sides, labelled `label 1`, `label 2`, ..., collecting the faces.
pub fn dice(n: usize, sides: u8, label: &str) -> Plan<Vec<u8>> {
    throw(n, sides, label, Depends::Faces)
}

/// Throw `n` dice whose outcome depends only as `dep` says (see [`Depends`]).
pub fn throw(n: usize, sides: u8, label: &str, dep: Depends) -> Plan<Vec<u8>> {
    let dice: Vec<Die> = (0..n)
        .map(|i| {
            Die::new(
                sides,
                if n == 1 {
                    label.to_string()
                } else {
                    format!("{label} {}", i + 1)
                },
            )
        })
        .collect();
    Plan::Throw(
        dice,
        dep,
        Rc::new(|faces: &[u8]| Plan::Done(faces.to_vec())),
    )
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
    fn declared_dependence_gives_the_same_odds() {
        for dep in [Depends::Faces, Depends::Sum] {
            let d = throw(3, 6, "3D6", dep)
                .map(|f| f.iter().map(|&x| u32::from(x)).sum::<u32>())
                .exact(|s| *s);
            assert!((d.outcomes[&10] - 27.0 / 216.0).abs() < 1e-12);
            assert!((d.total() - 1.0).abs() < 1e-12);
        }
        let diff = |dep| {
            throw(2, 6, "opposed", dep)
                .map(|f| i32::from(f[0]) - i32::from(f[1]))
                .exact(|d| d.signum())
        };
        assert_eq!(diff(Depends::Faces).outcomes.len(), 3);
        for (k, p) in &diff(Depends::Faces).outcomes {
            assert!((p - diff(Depends::Difference).outcomes[k]).abs() < 1e-12);
        }
        // Rolling records every face whatever was declared.
        let (_, draws) = throw(2, 6, "2D6", Depends::Sum).roll(&mut DiceStream::from_seed(3));
        assert_eq!(draws.len(), 2);
        assert_eq!(draws[0].label, "2D6 1");
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

    #[test]
    fn needed_asks_for_the_next_throw_then_the_conditional_die() {
        // 2D6; on a sum of 10+ a third die.
        let make = || {
            throw(2, 6, "Fire", Depends::Sum).and_then(|f| {
                if f[0] + f[1] >= 10 {
                    Plan::die(Die::d6("Extra"), |x| Plan::Done(u32::from(x)))
                } else {
                    Plan::Done(0)
                }
            })
        };
        let labels = |v: Option<Vec<Die>>| -> Vec<String> {
            v.unwrap_or_default().into_iter().map(|d| d.label).collect()
        };
        assert_eq!(
            labels(make().needed(&[]).expect("ok")),
            ["Fire 1", "Fire 2"]
        );
        assert_eq!(labels(make().needed(&[5]).expect("ok")), ["Fire 2"]);
        assert_eq!(make().needed(&[5, 4]).expect("ok"), None);
        assert_eq!(labels(make().needed(&[5, 6]).expect("ok")), ["Extra"]);
        assert_eq!(make().needed(&[5, 6, 2]).expect("ok"), None);
        assert!(matches!(
            make().needed(&[5, 9]),
            Err(FaceError::OutOfRange { index: 1, .. })
        ));
        assert!(matches!(
            make().needed(&[1, 1, 1]),
            Err(FaceError::TooMany { .. })
        ));
    }

    #[test]
    fn within_counts_leaves_and_stops_early() {
        assert!(two_d6_sum().within(36));
        assert!(!two_d6_sum().within(35));
        assert!(throw(2, 6, "2D6", Depends::Sum).within(11));
        assert!(!dice(12, 6, "many").within(1000));
    }

    #[test]
    fn counted_dice_enumerate_in_closed_form_and_agree_with_every_face() {
        // Three D20 hitting on 7 or less: the same odds as enumerating all 8000 throws.
        let hits = |dep| {
            throw(3, 20, "D20", dep)
                .map(|f| f.iter().filter(|&&x| x <= 7).count())
                .exact(|h| *h)
        };
        let (fast, slow) = (hits(Depends::CountAtMost(7)), hits(Depends::Faces));
        assert_eq!(fast.outcomes.len(), 4);
        for (k, p) in &slow.outcomes {
            assert!((p - fast.outcomes[k]).abs() < 1e-12, "{k} hits");
        }
        assert!((fast.outcomes[&3] - 0.35f64.powi(3)).abs() < 1e-12);
        // Thirty D20 at once: 31 classes, no 20^30 walk.
        let many = throw(30, 20, "D20", Depends::CountAtMost(5))
            .map(|f| f.iter().filter(|&&x| x <= 5).count());
        assert!(many.within(31));
        let d = many.exact(|h| *h);
        assert!((d.total() - 1.0).abs() < 1e-9);
        let mean: f64 = d.outcomes.iter().map(|(h, p)| *h as f64 * p).sum();
        assert!((mean - 7.5).abs() < 1e-9, "mean {mean}");
    }

    #[test]
    fn rethrown_ties_have_conditional_odds_and_every_throw_is_recorded() {
        // Opposed D6, ties thrown again: each side wins half the time, exactly.
        let make = || {
            Plan::rethrow_until(
                vec![Die::d6("A"), Die::d6("B")],
                |f| f[0] != f[1],
                |f| Plan::Done(f[0] > f[1]),
            )
        };
        let d = make().exact(|a| *a);
        assert!((d.outcomes[&true] - 0.5).abs() < 1e-12);
        assert!((d.total() - 1.0).abs() < 1e-12);
        // Faces entered at the table: a tie, then a decided throw.
        let (a_wins, draws) = make().roll_with(&[3, 3, 5, 2]).expect("faces");
        assert!(a_wins);
        assert_eq!(draws.len(), 4);
        assert_eq!(
            make().needed(&[3, 3]).expect("ok").map(|d| d.len()),
            Some(2)
        );
        assert_eq!(make().needed(&[3, 3, 5, 2]).expect("ok"), None);
        // Rolled: the faces recorded end with the accepted throw, all before it ties.
        let mut s = DiceStream::from_seed(4);
        for _ in 0..50 {
            let (_, draws) = make().roll(&mut s);
            let pairs: Vec<_> = draws.chunks(2).collect();
            let (last, before) = pairs.split_last().expect("a throw");
            assert_ne!(last[0].face, last[1].face);
            assert!(before.iter().all(|p| p[0].face == p[1].face));
        }
        assert!(make().within(30) && !make().within(29));
    }

    #[test]
    fn classed_rethrows_visit_one_throw_per_class_with_the_same_odds() {
        // Opposed D6 + 1 against D6, ties thrown again; the winner kills on a natural 5 or 6.
        fn make(classed: bool) -> Plan<(bool, bool)> {
            let dice = vec![Die::d6("A"), Die::d6("B")];
            let accept = |f: &[u8]| f[0] + 1 != f[1];
            let decide = |f: &[u8]| {
                let a = f[0] + 1 > f[1];
                (a, if a { f[0] } else { f[1] } >= 5)
            };
            let then = move |f: &[u8]| Plan::Done(decide(f));
            if classed {
                Plan::rethrow_classed(
                    dice,
                    accept,
                    move |f| {
                        let (a, kill) = decide(f);
                        u32::from(a) * 2 + u32::from(kill)
                    },
                    then,
                )
            } else {
                Plan::rethrow_until(dice, accept, then)
            }
        }
        let (fast, slow) = (make(true).exact(|o| *o), make(false).exact(|o| *o));
        assert_eq!(fast.outcomes.len(), 4);
        for (k, p) in &slow.outcomes {
            assert!((p - fast.outcomes[k]).abs() < 1e-15, "{k:?}");
        }
        // 31 throws are accepted (B one above A ties: 5 throws); A wins 21 (B at or below A's
        // face), killing in 11 (a 5 beats B's 1-5, a 6 B's 1-6).
        assert!((fast.p(|o| o.0) - 21.0 / 31.0).abs() < 1e-15);
        assert!((fast.outcomes[&(true, true)] - 11.0 / 31.0).abs() < 1e-15);
        assert!((fast.total() - 1.0).abs() < 1e-15);
        assert!(make(true).within(4) && !make(true).within(3));
        assert!(make(false).within(31) && !make(false).within(30));
        assert_eq!(make(true).leaves().len(), 4);
        // Rolled and entered faces are the same throws, ties recorded.
        for seed in 0..20 {
            let (a, da) = make(true).roll(&mut DiceStream::from_seed(seed));
            let (b, db) = make(false).roll(&mut DiceStream::from_seed(seed));
            assert_eq!((a, da), (b, db));
        }
        let faces = [2, 3, 6, 2];
        assert_eq!(
            make(true).roll_with(&faces).map(|r| r.0),
            make(false).roll_with(&faces).map(|r| r.0)
        );
        assert_eq!(
            make(true).needed(&[2, 3]).expect("ok").map(|d| d.len()),
            Some(2)
        );
    }

    #[test]
    fn memoised_chains_give_the_same_odds_as_the_full_tree() {
        // First to three wins of a fair coin (a D2), with the state (a, b) as the memo key.
        fn race(a: u8, b: u8) -> Plan<(bool, u8)> {
            if a == 3 || b == 3 {
                return Plan::Done((a == 3, a + b));
            }
            Plan::memo(format!("{a}:{b}"), move || {
                Plan::die(Die::new(2, "coin"), move |f| {
                    if f == 1 {
                        race(a + 1, b)
                    } else {
                        race(a, b + 1)
                    }
                })
            })
        }
        let plan = race(0, 0).map(|(a, _)| a);
        let d = plan.exact(|a| *a);
        assert!((d.outcomes[&true] - 0.5).abs() < 1e-12);
        // The number of throws: 3 with probability 1/4, 4 with 3/8, 5 with 3/8.
        let n = race(0, 0).exact(|(_, n)| *n);
        assert!((n.outcomes[&3] - 0.25).abs() < 1e-12 && (n.outcomes[&5] - 0.375).abs() < 1e-12);
        // The same as the unmemoised walk.
        let leaves = race(0, 0).leaves();
        let five: f64 = leaves
            .iter()
            .filter(|((_, n), _)| *n == 5)
            .map(|(_, p)| p)
            .sum();
        assert!((five - 0.375).abs() < 1e-12);
        // Rolled and entered faces pass straight through.
        let ((won, throws), draws) = race(0, 0).roll_with(&[1, 2, 1, 1]).expect("faces");
        assert!(won && throws == 4 && draws.len() == 4);
        assert!(race(0, 0).within(20));
    }

    #[test]
    fn cards_are_drawn_from_those_left_with_odds_by_class() {
        // Two cards from a 52-card deck numbered aces first (1-4): how many aces?
        fn draw(left: Vec<u8>, n: u8, aces: u8) -> Plan<u8> {
            if n == 0 {
                return Plan::Done(aces);
            }
            let rest = left.clone();
            Plan::card(
                "Card",
                52,
                left,
                |c| u8::from(c <= 4),
                move |c| {
                    let next: Vec<u8> = rest.iter().copied().filter(|&x| x != c).collect();
                    draw(next, n - 1, aces + u8::from(c <= 4))
                },
            )
        }
        let d = draw((1..=52).collect(), 2, 0).exact(|a| *a);
        assert!((d.outcomes[&2] - (4.0 / 52.0) * (3.0 / 51.0)).abs() < 1e-12);
        assert!((d.total() - 1.0).abs() < 1e-12);
        assert!(draw((1..=52).collect(), 2, 0).within(4));
        // Rolled: two different cards, recorded as cards.
        let (_, draws) = draw((1..=52).collect(), 2, 0).roll(&mut DiceStream::from_seed(5));
        assert!(draws.iter().all(|d| d.card && (1..=52).contains(&d.face)));
        assert_ne!(draws[0].face, draws[1].face);
        // Entered: a card not in the deck is refused; the same card twice too.
        assert!(matches!(
            draw((1..=52).collect(), 2, 0).roll_with(&[3, 3]),
            Err(FaceError::NotInDeck { index: 1, .. })
        ));
        assert_eq!(
            draw((1..=52).collect(), 2, 0)
                .roll_with(&[1, 2])
                .map(|r| r.0),
            Ok(2)
        );
        assert_eq!(
            draw((1..=52).collect(), 2, 0)
                .needed(&[7])
                .expect("ok")
                .map(|d| d.len()),
            Some(1)
        );
    }

    #[test]
    fn dice_nothing_depends_on_are_one_outcome_for_the_odds_and_real_when_rolled() {
        let p = throw(6, 6, "Fall back", Depends::Nothing)
            .map(|f| f.iter().map(|&x| u32::from(x)).sum::<u32>());
        let e = p.exact(|_| 0u8);
        assert_eq!(e.outcomes.len(), 1);
        assert!((e.outcomes[&0] - 1.0).abs() < 1e-15);
        let (sum, draws) = p.roll(&mut DiceStream::from_seed(9));
        assert_eq!(draws.len(), 6);
        assert_eq!(sum, draws.iter().map(|d| u32::from(d.face)).sum::<u32>());
    }

    #[test]
    fn symbol_dice_by_class_match_every_face() {
        // A battle die: infantry 1-2, cavalry 3, artillery 4, sabre 5, flag 6; against foot in
        // melee with sabres: hit (0) on 1, 2, 5; flag (1) on 6; miss (2) on 3, 4.
        let c = FaceClasses::of(&[0, 0, 2, 2, 0, 1]);
        let count = |dep: Depends| {
            throw(5, 6, "Battle", dep)
                .map(move |f| {
                    let hits = f.iter().filter(|&&x| c.class(x) == 0).count();
                    let flags = f.iter().filter(|&&x| c.class(x) == 1).count();
                    (hits, flags)
                })
                .exact(|o| *o)
        };
        let (fast, slow) = (count(Depends::Classes(c)), count(Depends::Faces));
        assert_eq!(fast.outcomes.len(), 21, "(5+1)(5+2)/2 splits");
        assert_eq!(fast.outcomes.len(), slow.outcomes.len());
        for (k, p) in &slow.outcomes {
            assert!((p - fast.outcomes[k]).abs() < 1e-12, "{k:?}");
        }
        // Four or more hits of five at 1/2: 6/32.
        let four: f64 = fast
            .outcomes
            .iter()
            .filter(|((h, _), _)| *h >= 4)
            .map(|(_, p)| p)
            .sum();
        assert!((four - 6.0 / 32.0).abs() < 1e-12);
        // Rolling still records the real faces.
        let (_, draws) =
            throw(5, 6, "Battle", Depends::Classes(c)).roll(&mut DiceStream::from_seed(2));
        assert_eq!(draws.len(), 5);
        assert!(throw(30, 6, "Battle", Depends::Classes(c)).within(600));
    }
}

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

pub mod sampler;
pub use sampler::Sampler;

#[cfg(test)]
mod tests;

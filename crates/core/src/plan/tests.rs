//! Tests of dice plans and their exact odds (`plan.rs`).

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
    let (_, draws) = throw(5, 6, "Battle", Depends::Classes(c)).roll(&mut DiceStream::from_seed(2));
    assert_eq!(draws.len(), 5);
    assert!(throw(30, 6, "Battle", Depends::Classes(c)).within(600));
}

//! The designers' balance sheets (`interface::balance`): each cell is a distribution, agrees with
//! the odds the app shows for the same action sent as JSON, refuses exactly the pairs the app
//! refuses; and each fight to the finish agrees with fights rolled one action at a time through
//! the app's public engine, a loop written here and not in the crate.

use serde_json::{json, Value};
use tercio_core::DiceStream;
use tercio_rules::interface::balance::{self, End};
use tercio_rules::{odds, registry, Engine, RuleSet};

/// The app-driven rule sets (their stand-alone requests share one form).
fn with_balance() -> Vec<&'static dyn RuleSet> {
    registry::all()
        .iter()
        .copied()
        .filter(|r| r.balance().is_some())
        .filter(|r| matches!(r.id(), "bloody-dismal-fight" | "el-gran-capitan"))
        .collect()
}

/// The stand-alone JSON of `action` between two fresh units of `size`, as a user would write it
/// for `tercio odds` (the app-driven fields).
fn request(r: &dyn RuleSet, action: &str, a: &str, t: &str, size: u8) -> Value {
    let unit = |troop: &str| {
        let mut u = json!({"type": troop, "bases": size});
        if let Some(n) = r.required_nationality(troop) {
            u["nationality"] = json!(n[0]);
        }
        u
    };
    let mut v = json!({"action": action, "actor": unit(a), "target": unit(t), "ground": "open"});
    if action == "charge" {
        v["crosses_arc_of_fire"] = json!(true);
        // Asked only of a target that may evade: it stands.
        let engine = r.engine(None).expect("engine");
        if let Err(e) = engine.plan(None, &v) {
            if e.field.as_deref() == Some("target_evades") {
                v["target_evades"] = json!(false);
            }
        }
    }
    if action == "melee" {
        v["in_contact"] = json!(true);
    }
    v
}

#[test]
fn every_rule_set_has_balance_sheets() {
    let without: Vec<&str> = registry::all()
        .iter()
        .filter(|r| r.available() && r.balance().is_none())
        .map(|r| r.id())
        .collect();
    assert!(without.is_empty(), "no balance sheets: {without:?}");
}

/// A card rule set's stand-alone request, as a user would write it for `tercio odds`, between
/// a unit `a` of `sa` and a unit `t` of `st`; and the English name of the facet that gives
/// what the target lost.
fn card_request(
    rules: &str,
    action: &str,
    a: &str,
    t: &str,
    sa: u8,
    st: u8,
) -> (Value, &'static str) {
    match (rules, action) {
        ("commands-colors-ecw", "melee") => (
            json!({"action": "melee",
                   "attacker": {"class": a, "blocks": sa, "training": "trained"},
                   "defender": {"class": t, "blocks": st, "training": "trained"}}),
            "defender blocks lost",
        ),
        ("commands-colors-ecw", _) => (
            json!({"action": "battle", "kind": "ranged",
                   "roller": {"class": a, "blocks": sa, "training": "trained"},
                   "target": {"class": t, "blocks": st, "training": "trained"}}),
            "blocks lost",
        ),
        ("callan-renaissance", "attack") => {
            let (af, df) = (sa.min(3), st.min(3));
            (
                json!({"action": "attack",
                       "attacker": {"type": a, "bases": sa, "name": "A"},
                       "defender": {"type": t, "bases": st, "name": "B"},
                       "attacker_front": af, "attacker_rear": (sa - af).min(3),
                       "defender_front": df, "defender_rear": (st - df).min(3)}),
                "bases lost by B",
            )
        }
        ("callan-renaissance", _) => (
            json!({"action": "fire",
                   "unit": {"type": a, "bases": sa, "name": "A"},
                   "target": {"type": t, "bases": st, "name": "B"}, "short_bases": sa}),
            "bases lost",
        ),
        _ => (
            json!({"action": "close-combat", "version": "company",
                   "a": {"type": a, "figures": sa}, "b": {"type": t, "figures": st}}),
            "B figures lost",
        ),
    }
}

#[test]
fn the_card_rule_sets_sheets_agree_with_the_odds_the_app_shows() {
    for id in [
        "commands-colors-ecw",
        "callan-renaissance",
        "sword-and-flame-renaissance",
    ] {
        let r = registry::lookup(id).expect("rule set");
        let b = r.balance().expect("balance");
        let engine = r.engine(None).expect("engine");
        let size = b.default_size();
        for action in b.actions() {
            let cells = balance::matchup(&*b, action.id, size).expect("matchup");
            let mut allowed = 0;
            for (i, a) in b.fighters().iter().enumerate() {
                for (j, t) in b.fighters().iter().enumerate() {
                    let at = format!("{id} {} {} v {}", action.id, a.id, t.id);
                    let (req, lost) = card_request(id, action.id, a.id, t.id, size, size);
                    let app = engine.plan(None, &req);
                    let cell = &cells[i][j];
                    assert_eq!(cell.is_some(), app.is_ok(), "{at}: {:?}", app.err());
                    let (Some(c), Ok(plan)) = (cell, app) else {
                        continue;
                    };
                    allowed += 1;
                    let sum = c.actor_ahead + c.tie + c.target_ahead;
                    assert!((sum - 1.0).abs() < 1e-9, "{at}: {c:?}");
                    let o = odds::odds(&plan);
                    // An attack on a gun is never fought: its crew flees and it is lost.
                    if o.facets.is_empty() {
                        assert_eq!(o.outcomes, 1, "{at}");
                        assert_eq!(c.target_destroyed, 1.0, "{at}: {c:?}");
                        continue;
                    }
                    let mean = o
                        .facets
                        .iter()
                        .find(|f| tercio_i18n::localize(tercio_i18n::Lang::En, &f.facet) == lost)
                        .map(|f| {
                            // Over every outcome: one where it is not reached (the target fled
                            // at the charge) lost nothing.
                            f.values
                                .iter()
                                .filter_map(|(v, p)| v.parse::<f64>().ok().map(|v| v * p))
                                .sum::<f64>()
                        })
                        .unwrap_or_else(|| panic!("{at}: no facet {lost}"));
                    assert!(
                        (mean - c.target_loss).abs() < 1e-9,
                        "{at}: the app shows {mean} {lost}, the sheet {}",
                        c.target_loss
                    );
                }
            }
            assert!(allowed > 0, "{id} {}: no pair allowed", action.id);
        }
        let e = balance::matchup(&*b, "parley", size).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("action"), "{e:?}");
    }
}

/// What the target lost and whether it or the actor was forced back, read here from the
/// English names of an outcome's facets.
fn card_round(rules: &str, action: &str, facets: &[(String, String)]) -> (u8, u8, bool, bool) {
    let en = |s: &str| tercio_i18n::localize(tercio_i18n::Lang::En, s);
    let get = |name: &str| {
        facets
            .iter()
            .find(|(k, _)| en(k) == name)
            .map(|(_, v)| en(v))
    };
    let n = |name: &str| get(name).and_then(|v| v.parse::<u8>().ok()).unwrap_or(0);
    match (rules, action) {
        ("commands-colors-ecw", _) => (
            n("attacker blocks lost"),
            n("defender blocks lost"),
            n("attacker retreat hexes") > 0,
            n("defender retreat hexes") > 0,
        ),
        ("callan-renaissance", _) => {
            if get("round won by").is_none() {
                // Not fought: the target panicked and flees, or a gun's crew fled.
                return if get("B: panic").as_deref() == Some("yes") {
                    (0, 0, false, true)
                } else {
                    (0, u8::MAX, false, false)
                };
            }
            let out = matches!(
                get("the loser").as_deref(),
                Some("flees" | "retires and is removed (pike never flee)")
            );
            let winner = get("round won by").unwrap_or_default();
            (
                n("bases lost by A"),
                n("bases lost by B"),
                get("A: must withdraw").as_deref() == Some("yes") || (out && winner == "B"),
                out && winner == "A",
            )
        }
        _ => {
            let winner = get("winner").unwrap_or_default();
            (
                n("A figures lost"),
                n("B figures lost"),
                winner != "A",
                winner == "A",
            )
        }
    }
}

/// The rule set `rules` and its fight to the finish of `a` against `t`, each of `size`, its
/// ends' chances summing to one.
fn finish(
    rules: &str,
    action: &str,
    a: &str,
    t: &str,
    size: u8,
) -> (&'static dyn RuleSet, balance::Finish) {
    let r = registry::lookup(rules).expect("rule set");
    let f = r
        .balance()
        .expect("balance")
        .finish(action, a, t, size)
        .expect("finish");
    let sum: f64 = f.ends.iter().map(|(_, p)| p).sum();
    assert!((sum - 1.0).abs() < 1e-9, "{f:?}");
    (r, f)
}

#[test]
fn a_card_rule_sets_fight_to_the_finish_agrees_with_fights_rolled_through_the_app() {
    let n = 3000;
    for (rules, action, a, t, size) in [
        ("commands-colors-ecw", "melee", "gallopers", "foot", 3),
        ("callan-renaissance", "attack", "gendarmi", "picchieri", 4),
        (
            "sword-and-flame-renaissance",
            "close-combat",
            "pikemen",
            "halberdiers",
            12,
        ),
    ] {
        let (r, f) = finish(rules, action, a, t, size);
        let engine = r.engine(None).expect("engine");
        let mut stream = DiceStream::from_seed(20261203);
        let (mut carried, mut rounds) = (0u32, 0u64);
        for _ in 0..n {
            let (mut sa, mut st) = (size, size);
            loop {
                let (req, _) = card_request(rules, action, a, t, sa, st);
                let (o, _) = engine.plan(None, &req).expect("plan").roll(&mut stream);
                rounds += 1;
                let (al, tl, ab, tb) = card_round(rules, action, &o.facets);
                sa = sa.saturating_sub(al);
                st = st.saturating_sub(tl);
                if st == 0 && sa > 0 || (st > 0 && sa > 0 && tb) {
                    carried += 1;
                    break;
                }
                if sa == 0 || st == 0 || ab || tb || action == "close-combat" {
                    break;
                }
            }
        }
        // The actor carried the field: the target destroyed or forced back, the actor standing.
        let p = f.p(End::TargetDestroyed) + f.p(End::TargetBack);
        let at = format!("{rules} {action} {a} v {t}");
        agrees(&at, p, carried, n, f.rounds, rounds);
    }
}

#[test]
fn every_cell_is_a_distribution_and_agrees_with_the_app() {
    for r in with_balance() {
        let b = r.balance().expect("balance");
        let engine: Box<dyn Engine> = r.engine(None).expect("engine");
        let size = b.default_size();
        for action in b.actions() {
            let cells = balance::matchup(&*b, action.id, size).expect("matchup");
            let fighters = b.fighters();
            let mut allowed = 0;
            for (i, a) in fighters.iter().enumerate() {
                for (j, t) in fighters.iter().enumerate() {
                    let at = format!("{} {} {} v {}", r.id(), action.id, a.id, t.id);
                    let req = request(r, action.id, a.id, t.id, size);
                    let app = engine.plan(None, &req);
                    let cell = &cells[i][j];
                    assert_eq!(
                        cell.is_some(),
                        app.is_ok(),
                        "{at}: the sheet and the app disagree on whether it is allowed: {:?}",
                        app.err()
                    );
                    let (Some(c), Ok(plan)) = (cell, app) else {
                        continue;
                    };
                    allowed += 1;
                    let sum = c.actor_ahead + c.tie + c.target_ahead;
                    assert!((sum - 1.0).abs() < 1e-9, "{at}: {c:?}");
                    assert!(c.actor_destroyed <= c.actor_ahead + c.tie + c.target_ahead);
                    // A melee's "actor ahead" is the odds the app shows for the same request.
                    if action.id == "melee" {
                        let o = odds::odds(&plan);
                        let shown = o.p("melee", "actor ahead");
                        assert!(
                            (shown - c.actor_ahead).abs() < 1e-9,
                            "{at}: the app shows {shown}, the sheet {}",
                            c.actor_ahead
                        );
                        assert!((o.p("melee", "tie") - c.tie).abs() < 1e-9, "{at}");
                    }
                    if action.id == "fire" {
                        assert_eq!(c.actor_loss, 0.0, "{at}: a fire costs the firer nothing");
                    }
                }
            }
            assert!(allowed > 0, "{} {}: no pair allowed", r.id(), action.id);
        }
        // An action the sheet cannot pit is refused by name.
        let e = balance::matchup(&*b, "parley", size).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("action"), "{e:?}");
    }
}

/// The condition the JSON effects leave a unit in: (status, lost, destroyed).
fn condition(effects: &Value, unit: &str, before: (String, u64, bool)) -> (String, u64, bool) {
    effects
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|e| e["effect"] == "unit" && e["unit"] == unit)
        .map_or(before, |e| {
            (
                e["status"].as_str().unwrap_or("ok").to_string(),
                e["lost"].as_u64().unwrap_or(0),
                e["destroyed"].as_bool().unwrap_or(false),
            )
        })
}

/// Roll `n` fights to the finish through the app's engine, one stand-alone action at a time:
/// the opening `action`, then melees with the two units taking the actor's part in turn.
/// Returns how many the actor won (the target destroyed, the actor standing) and the rounds
/// rolled.
fn roll_fights(r: &dyn RuleSet, action: &str, a: &str, t: &str, size: u8, n: u32) -> (u32, u64) {
    let engine = r.engine(None).expect("engine");
    let mut stream = DiceStream::from_seed(20261203);
    let (mut won, mut rounds) = (0, 0u64);
    for _ in 0..n {
        let fresh = ("ok".to_string(), 0, false);
        let (mut ca, mut ct) = (fresh.clone(), fresh);
        let mut opening = true;
        let mut actor_acts = true;
        loop {
            let (me, them, mt, tt) = if actor_acts {
                (&ca, &ct, a, t)
            } else {
                (&ct, &ca, t, a)
            };
            // A fire is fired again; anything else goes on as melees in an ongoing combat.
            let next = if opening || action == "fire" {
                action
            } else {
                "melee"
            };
            let mut req = request(r, next, mt, tt, size);
            if !opening {
                req.as_object_mut().expect("object").remove("in_contact");
                for (k, c) in [("actor", me), ("target", them)] {
                    req[k]["status"] = json!(c.0);
                    req[k]["lost"] = json!(c.1);
                    req[k]["in_combat"] = json!(next == "melee");
                }
            }
            let (outcome, _) = engine.plan(None, &req).expect("plan").roll(&mut stream);
            rounds += 1;
            let na = condition(&outcome.effects, "actor", me.clone());
            let nt = condition(&outcome.effects, "target", them.clone());
            let joined = outcome
                .effects
                .as_array()
                .is_some_and(|v| v.iter().any(|e| e["effect"] == "combat-joined"));
            if actor_acts {
                (ca, ct) = (na, nt);
            } else {
                (ct, ca) = (na, nt);
            }
            if ca.2 || ct.2 {
                if ct.2 && !ca.2 {
                    won += 1;
                }
                break;
            }
            if action != "fire" {
                if !joined {
                    // A charge stopped short (its charger shaken by defensive fire).
                    assert!(opening, "a melee that leaves both standing goes on");
                    break;
                }
                actor_acts = !actor_acts;
            }
            opening = false;
        }
    }
    (won, rounds)
}

/// `hits` of `n` rolled fights agree with the exact chance `p` (within 4.5 standard deviations),
/// and their `rounds` with the exact expected rounds (within 8%).
fn agrees(at: &str, p: f64, hits: u32, n: u32, exact_rounds: f64, rounds: u64) {
    let rolled = f64::from(hits) / f64::from(n);
    let sd = (p * (1.0 - p) / f64::from(n)).sqrt().max(1e-3);
    assert!(
        (rolled - p).abs() < 4.5 * sd,
        "{at}: exact {p}, rolled {rolled} (sd {sd})"
    );
    let mean = rounds as f64 / f64::from(n);
    assert!(
        (mean - exact_rounds).abs() < 0.08 * exact_rounds,
        "{at}: exact {exact_rounds} rounds, rolled {mean}"
    );
}

#[test]
fn a_fight_to_the_finish_agrees_with_fights_rolled_through_the_app() {
    let n = 4000;
    for (rules, action, a, t, size) in [
        ("egc", "charge", "swiss-pike", "gendarmes", 4),
        ("egc", "charge", "gendarmes", "arquebusiers", 4),
        ("abdf", "melee", "dismounted-knights", "footmen", 6),
        ("abdf", "fire", "archers", "mounted-knights", 4),
    ] {
        let (r, f) = finish(rules, action, a, t, size);
        let (won, rounds) = roll_fights(r, action, a, t, size, n);
        let at = format!("{rules} {action} {a} v {t}");
        agrees(&at, f.p(End::TargetDestroyed), won, n, f.rounds, rounds);
    }
}

#[test]
fn a_pair_the_rules_forbid_has_no_fight_and_says_why() {
    let b = registry::lookup("egc")
        .expect("egc")
        .balance()
        .expect("balance");
    let e = b
        .finish("charge", "heavy-cannon", "gendarmes", 4)
        .unwrap_err();
    assert_eq!(e.code, "cannot-charge", "{e:?}");
    let e = b.finish("charge", "gendarmes", "hussars", 4).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("target.type"), "{e:?}");
}

#[test]
fn a_six_base_fight_is_exact_and_the_stronger_unit_wins_more() {
    let b = registry::lookup("egc")
        .expect("egc")
        .balance()
        .expect("balance");
    let f = b.finish("charge", "swiss-pike", "levy", 6).expect("finish");
    let g = b.finish("charge", "levy", "swiss-pike", 6).expect("finish");
    assert!(f.p(End::TargetDestroyed) > 0.9, "{f:?}");
    assert!(g.p(End::TargetDestroyed) < 0.1, "{g:?}");
    // A 6-base unit falls at 3 bases lost: more rounds than a 4-base fight, never fewer.
    let four = b.finish("charge", "swiss-pike", "levy", 4).expect("finish");
    assert!(f.rounds >= four.rounds, "{f:?} {four:?}");
    assert!(f.states > four.states);
}

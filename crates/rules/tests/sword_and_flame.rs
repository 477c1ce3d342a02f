//! The Sword and the Flame, Renaissance: every dice resolution against the figures worked out in
//! docs/rules/sword-and-flame-renaissance.md, rolling against the exact odds, and the refusals.

use serde_json::{json, Value};
use tercio_core::DiceStream;
use tercio_i18n::{localize, Lang};
use tercio_rules::odds::odds;
use tercio_rules::sword_and_flame_renaissance::resolve::spirit_target;

/// A text of the engine (a language-neutral message) as an English reader sees it.
fn en(s: &str) -> String {
    localize(Lang::En, s)
}

/// A stand-alone action's plan, its outcomes' texts rendered in English: the assertions below
/// read what an English-speaking player reads.
fn plan(
    action: &Value,
) -> Result<tercio_core::Plan<tercio_rules::Outcome>, tercio_rules::Rejection> {
    Ok(tercio_rules::sword_and_flame_renaissance::plan(action)?.map(english))
}

fn english(mut o: tercio_rules::Outcome) -> tercio_rules::Outcome {
    let r = &mut o.resolution;
    r.summary = en(&r.summary);
    for st in &mut r.steps {
        st.title = en(&st.title);
        st.result = en(&st.result);
        for d in &mut st.dice {
            d.label = en(&d.label);
        }
        for m in &mut st.modifiers {
            m.side = en(&m.side);
            m.name = en(&m.name);
        }
        for t in &mut st.totals {
            t.0 = en(&t.0);
        }
    }
    for f in &mut o.facets {
        *f = (en(&f.0), en(&f.1));
    }
    o
}

fn p(action: Value, facet: &str, pred: impl Fn(&str) -> bool) -> f64 {
    let r = odds(&plan(&action).unwrap_or_else(|e| panic!("{action}: {e}")));
    r.facets.iter().find(|f| f.facet == facet).map_or(0.0, |f| {
        f.values
            .iter()
            .filter(|(v, _)| pred(v))
            .map(|(_, p)| p)
            .sum()
    })
}

fn close(got: f64, want_percent: f64) {
    assert!(
        (got * 100.0 - want_percent).abs() < 0.006,
        "got {:.4}%, want {want_percent}%",
        got * 100.0
    );
}

fn at_least(n: u32) -> impl Fn(&str) -> bool {
    move |v| v.parse::<u32>().is_ok_and(|x| x >= n)
}

#[test]
fn fire_hits_follow_the_table_and_its_modifiers() {
    let arq = json!({"action": "fire", "weapon": "arquebus", "range": "short", "target_class": 1, "firers": 10});
    close(p(arq.clone(), "hits", at_least(1)), 98.65);
    close(p(arq.clone(), "hits", at_least(3)), 73.84);
    close(p(arq.clone(), "hits", at_least(5)), 24.85);
    let mut shaken = arq.clone();
    shaken["shaken"] = json!(true);
    close(p(shaken, "hits", at_least(3)), 61.72);
    let mut rain = arq.clone();
    rain["light_rain"] = json!(true);
    close(p(rain, "hits", at_least(3)), 47.44);
    let long = json!({"action": "fire", "weapon": "arquebus", "range": "long", "target_class": 2, "firers": 10});
    close(p(long, "hits", at_least(3)), 32.22);
    let gun = json!({"action": "fire", "weapon": "heavy-cannon", "range": "short", "target_class": 1, "firers": 4});
    close(p(gun, "hits", at_least(3)), 74.72);
    let reiters = json!({"action": "fire", "weapon": "pistol", "target_class": 2, "firers": 8, "double": true});
    close(p(reiters, "hits", at_least(5)), 36.98);
    // Decision 36: no automatic hits. A crossbow at Class IV in light rain cannot hit.
    let hopeless = json!({"action": "fire", "weapon": "crossbow", "target_class": 4, "firers": 10, "light_rain": true});
    close(p(hopeless, "hits", at_least(1)), 0.0);
}

#[test]
fn casualty_cards_put_an_ace_on_an_officer_one_time_in_thirteen() {
    // Given exactly 3 hits, at least one ace: 1 - C(48,3)/C(52,3) = 21.74%.
    let action = json!({"action": "fire", "weapon": "arquebus", "target_class": 1, "firers": 3});
    let joint = plan(&action).expect("plan").exact(|o| {
        let get = |k: &str| {
            o.facets
                .iter()
                .find(|(f, _)| f == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        (get("hits"), get("officers hit"))
    });
    let three = joint.p(|(h, _)| h == "3");
    let with_ace = joint.p(|(h, o)| h == "3" && o != "0");
    close(with_ace / three, 21.74);
    // A roll draws one card per hit, each named.
    let mut s = DiceStream::from_seed(12);
    for _ in 0..30 {
        let (o, draws) = plan(&action).expect("plan").roll(&mut s);
        let hits: usize = o
            .facets
            .iter()
            .find(|(f, _)| f == "hits")
            .and_then(|(_, v)| v.parse().ok())
            .expect("hits");
        assert_eq!(
            draws
                .iter()
                .filter(|d| en(&d.label).starts_with("Casualty card")
                    && d.card
                    && (1..=52).contains(&d.face))
                .count(),
            hits
        );
        if hits > 0 {
            assert!(
                o.resolution.steps[1].result.starts_with("cards "),
                "{:?}",
                o.resolution
            );
        }
    }
}

#[test]
fn the_morale_table_passes_as_designed() {
    let m = |test: &str, extra: Value| {
        let mut a = json!({"action": "morale", "test": test});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            a[k] = v;
        }
        p(a, "passed", |v| v == "yes")
    };
    close(m("to-close", json!({})), 72.22);
    close(m("to-stand", json!({})), 83.33);
    close(m("stand-and-fight", json!({})), 58.33);
    close(m("stand-and-fight", json!({"shaken": true})), 41.67);
    // Decision 2: a spent unit at the start of a turn, Stand and Fight at −2.
    close(m("stand-and-fight", json!({"spent": true})), 27.78);
    // Decision 7: leaderless −2 on every test; an attached field officer stands in and adds +1.
    close(m("stand-and-fight", json!({"leaderless": true})), 27.78);
    close(
        m(
            "stand-and-fight",
            json!({"leaderless": true, "field_officer": true}),
        ),
        72.22,
    );
    close(
        m(
            "to-close",
            json!({"swiss_vs_pikes": true, "field_officer": true}),
        ),
        91.67,
    );
    // The to-close bonuses do not apply to other tests.
    close(m("to-stand", json!({"swiss_vs_pikes": true})), 83.33);
    close(
        m("stand-and-fight", json!({"attacked_in_rear": true})),
        27.78,
    );
    close(
        m(
            "stand-and-fight",
            json!({"infantry_breaking_off_from_cavalry": true}),
        ),
        27.78,
    );
    close(m("to-stand", json!({"artillerists": true})), 0.0);
}

fn bout(version: &str, a: Value, b: Value) -> Value {
    json!({"action": "bout", "version": version, "a": a, "b": b})
}

#[test]
fn close_combat_bouts_match_the_worked_odds() {
    // Without an order a fighter has its type's own: gendarmes open, pikes closed.
    let gendarmes = json!({"type": "gendarmes", "lance": true});
    let pike = json!({"type": "pikemen"});
    // Gendarmes (open order) with lances against closed pike to its front: +2 +1 −2 −1 = 0 with
    // win ties, against +2 with win ties; equal totals are thrown again.
    let b = bout("figure", gendarmes.clone(), pike.clone());
    close(p(b.clone(), "winner", |v| v == "A"), 18.75);
    let killed = |b: &Value, winner: &'static str| {
        let joint = plan(b).expect("plan").exact(|o| o.facets.clone());
        joint.p(|f| {
            f.iter().any(|(k, v)| k == "winner" && v == winner)
                && f.iter().any(|(k, v)| k == "loser killed" && v == "yes")
        })
    };
    close(killed(&b, "A"), 15.62);
    close(killed(&b, "B"), 37.50);
    let c = bout("company", gendarmes.clone(), pike.clone());
    let lost = |b: &Value, winner: &'static str, n: &'static str| {
        let joint = plan(b).expect("plan").exact(|o| o.facets.clone());
        joint.p(|f| {
            f.iter().any(|(k, v)| k == "winner" && v == winner)
                && f.iter().any(|(k, v)| k == "figures lost" && v == n)
        })
    };
    close(lost(&c, "A", "0"), 3.12);
    close(lost(&c, "A", "1"), 6.25);
    close(lost(&c, "A", "2"), 9.38);
    close(lost(&c, "B", "0"), 15.62);
    close(lost(&c, "B", "1"), 12.50);
    close(lost(&c, "B", "2"), 53.12);
    // Their lances spent: −1 with win ties against +2: 3 of the 33 decided throws.
    let spent = bout(
        "figure",
        json!({"type": "gendarmes", "order": "open"}),
        pike.clone(),
    );
    close(p(spent, "winner", |v| v == "A"), 9.09);
    // Swiss against Landsknecht pike, fronts: even.
    let swiss = bout(
        "company",
        json!({"type": "pikemen"}),
        json!({"type": "pikemen"}),
    );
    close(p(swiss.clone(), "winner", |v| v == "A"), 50.0);
    close(lost(&swiss, "A", "2"), 40.0);
    // Open-order arquebusiers against closed pike: never win a bout.
    let arq = bout(
        "company",
        json!({"type": "arquebusiers", "order": "open"}),
        pike.clone(),
    );
    close(p(arq.clone(), "winner", |v| v == "A"), 0.0);
    close(lost(&arq, "B", "2"), 50.0);
    // Halberdiers against pike in broken ground (decision 25): the pike has the bare die.
    let hal = bout(
        "figure",
        json!({"type": "halberdiers", "order": "open"}),
        json!({"type": "pikemen", "broken_ground": true}),
    );
    close(p(hal.clone(), "winner", |v| v == "A"), 72.22);
    close(killed(&hal, "A"), 33.33);
    close(killed(&hal, "B"), 19.44);
    // Gendarmes with lances against reiters (reiters' +1 does not count against gendarmes).
    close(
        p(
            bout(
                "figure",
                gendarmes,
                json!({"type": "reiters", "order": "open"}),
            ),
            "winner",
            |v| v == "A",
        ),
        91.67,
    );
}

#[test]
fn rolled_bouts_agree_with_their_exact_odds() {
    let b = bout(
        "figure",
        json!({"type": "gendarmes", "order": "open", "lance": true}),
        json!({"type": "pikemen"}),
    );
    let exact = p(b.clone(), "winner", |v| v == "A");
    let mut s = DiceStream::from_seed(77);
    let n = 20_000;
    let mut wins = 0;
    for _ in 0..n {
        let (o, draws) = plan(&b).expect("plan").roll(&mut s);
        // Both win ties (+2 and +2 with the open-order −1 and lance): every throw before the
        // last had equal totals, A's die two below B's... i.e. a + 0 == b + 2.
        let pairs: Vec<_> = draws.chunks(2).collect();
        let (last, before) = pairs.split_last().expect("a throw");
        assert!(
            before
                .iter()
                .all(|p| i32::from(p[0].face) == i32::from(p[1].face) + 2),
            "{draws:?}"
        );
        assert_ne!(i32::from(last[0].face), i32::from(last[1].face) + 2);
        if o.facets.iter().any(|(k, v)| k == "winner" && v == "A") {
            wins += 1;
        }
    }
    let f = f64::from(wins) / f64::from(n);
    let sigma = (exact * (1.0 - exact) / f64::from(n)).sqrt();
    assert!((f - exact).abs() < 5.0 * sigma, "rolled {f}, exact {exact}");
}

#[test]
fn the_spirit_of_the_army_follows_the_worked_example() {
    // 10 units and 6 guns. Turn 1: 6 fresh units, 4 worn, 6 fresh guns → 14 points → 9.
    assert_eq!(spirit_target(6 + 6, 4, 16), 9);
    // Turn 2: 5 fresh, 4 worn, 1 spent, 4 fresh guns, 2 worn guns → 12 points → 8.
    assert_eq!(spirit_target(5 + 4, 4 + 2, 16), 8);
    assert_eq!(spirit_target(16, 0, 16), 10);
    close(
        p(
            json!({"action": "spirit", "fresh": 12, "worn": 4, "start": 16}),
            "spirit",
            |v| v == "good",
        ),
        90.0,
    );
}

#[test]
fn movement_dice_lose_for_the_ground_but_never_below_one() {
    let dice = |a: Value| {
        let (_, draws) = plan(&a).expect("plan").roll(&mut DiceStream::from_seed(1));
        draws.len()
    };
    assert_eq!(
        dice(json!({"action": "move", "type": "pikemen", "order": "closed"})),
        2
    );
    assert_eq!(
        dice(
            json!({"action": "move", "type": "pikemen", "order": "closed", "uphill": true, "woods": true})
        ),
        1
    );
    assert_eq!(
        dice(json!({"action": "move", "type": "gendarmes", "order": "open", "woods": true})),
        3
    );
    assert_eq!(
        dice(
            json!({"action": "move", "type": "arquebusiers", "order": "skirmish", "uphill": true, "obstacle": true})
        ),
        3
    );
    assert_eq!(
        dice(
            json!({"action": "move", "type": "light-horse-spear", "order": "open", "uphill": true})
        ),
        5
    );
    // Loading arquebusiers on foot move half, rounded down.
    let (o, draws) =
        plan(&json!({"action": "move", "type": "arquebusiers", "order": "open", "loading": true}))
            .expect("plan")
            .roll(&mut DiceStream::from_seed(3));
    let rolled: u32 = draws.iter().map(|d| u32::from(d.face)).sum();
    assert!(o
        .facets
        .contains(&("inches".to_string(), (rolled / 2).to_string())));
}

#[test]
fn impossible_requests_are_refused_naming_the_field() {
    for (a, field) in [
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 5, "firers": 3}),
            "target_class",
        ),
        (
            json!({"action": "fire", "weapon": "crossbow", "target_class": 2, "firers": 3, "double": true}),
            "double",
        ),
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 2, "firers": 0}),
            "firers",
        ),
        (
            json!({"action": "fire", "weapon": "musket", "target_class": 2, "firers": 3}),
            "weapon",
        ),
        (
            bout(
                "figure",
                json!({"type": "arquebusiers", "order": "skirmish"}),
                json!({"type": "pikemen"}),
            ),
            "a.order",
        ),
        (
            bout(
                "figure",
                json!({"type": "gendarmes", "order": "closed"}),
                json!({"type": "pikemen"}),
            ),
            "a.order",
        ),
        (
            bout(
                "figure",
                json!({"type": "reiters", "lance": true}),
                json!({"type": "pikemen"}),
            ),
            "a.lance",
        ),
        (
            bout(
                "figure",
                json!({"type": "gendarmes"}),
                json!({"type": "pikemen", "square": true, "attacked_in_rear": true}),
            ),
            "b.attacked_in_rear",
        ),
        (
            bout(
                "figure",
                json!({"type": "gendarmes", "square": true}),
                json!({"type": "pikemen"}),
            ),
            "a.square",
        ),
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 2, "firers": 21}),
            "firers",
        ),
        (
            json!({"action": "fire", "weapon": "pistol", "range": "long", "target_class": 2, "firers": 4}),
            "range",
        ),
        (
            json!({"action": "move", "type": "gendarmes", "dismounting": true}),
            "dismounting",
        ),
        (
            bout(
                "figure",
                json!({"type": "pikemen"}),
                json!({"type": "heavy-gun"}),
            ),
            "b.type",
        ),
        (
            bout(
                "company",
                json!({"type": "pikemen", "missing": 5}),
                json!({"type": "pikemen"}),
            ),
            "a.missing",
        ),
        (json!({"action": "move", "type": "heavy-gun"}), "type"),
        (
            json!({"action": "move", "type": "light-gun", "woods": true}),
            "woods",
        ),
        (
            json!({"action": "spirit", "fresh": 10, "worn": 10, "start": 16}),
            "fresh",
        ),
        (
            json!({"action": "morale", "test": "to-close", "bogus": true}),
            "bogus",
        ),
    ] {
        match plan(&a) {
            Err(r) => assert_eq!(r.field.as_deref(), Some(field), "{a}: {r}"),
            Ok(_) => panic!("{a} should be refused"),
        }
    }
}

#[test]
fn whole_close_combats_come_out_as_the_design_computed() {
    let combat = |a: Value, b: Value| json!({"action": "close-combat", "version": "company", "a": a, "b": b});
    // Swiss pike (two leaders, each in one of the last companies) against Landsknecht pike (one).
    let swiss = combat(
        json!({"type": "pikemen", "figures": 20, "leaders": 2}),
        json!({"type": "pikemen", "figures": 20, "leaders": 1}),
    );
    close(p(swiss.clone(), "winner", |v| v == "A"), 60.11);
    // Open-order halberdiers against closed pike to its front.
    let hal = combat(
        json!({"type": "halberdiers", "order": "open", "figures": 20}),
        json!({"type": "pikemen", "figures": 20}),
    );
    close(p(hal, "winner", |v| v == "A"), 0.26);
    // Rolled: one side's queue is empty at the end, and the losses add up from the bouts.
    let mut s = DiceStream::from_seed(8);
    for _ in 0..20 {
        let (o, _) = plan_of(&swiss).roll(&mut s);
        let lost: u32 = o
            .resolution
            .steps
            .iter()
            .filter_map(|st| st.result.split("losing ").nth(1))
            .filter_map(|x| x.split(' ').next()?.parse::<u32>().ok())
            .sum();
        let total: u32 = ["A figures lost", "B figures lost"]
            .iter()
            .map(|k| {
                o.facets
                    .iter()
                    .find(|(f, _)| f == k)
                    .and_then(|(_, v)| v.parse::<u32>().ok())
                    .unwrap_or(0)
            })
            .sum();
        assert_eq!(lost, total, "{}", o.resolution.render());
    }
}

fn plan_of(a: &Value) -> tercio_core::Plan<tercio_rules::Outcome> {
    plan(a).expect("plan")
}

#[test]
fn refusals_inside_a_fighter_name_the_fighter() {
    for (a, field) in [
        (
            json!({"action": "bout", "a": {"type": "gendarmes", "lances": true}, "b": {"type": "pikemen"}}),
            "a.lances",
        ),
        (
            json!({"action": "bout", "a": {"type": "gendarmes"}, "b": {"type": "pikemen", "order": "diagonal"}}),
            "b.order",
        ),
        (
            json!({"action": "fire", "weapon": "arquebus", "target_class": 2, "firers": 300}),
            "firers",
        ),
    ] {
        match plan(&a) {
            Err(r) => assert_eq!(r.field.as_deref(), Some(field), "{a}: {r}"),
            Ok(_) => panic!("{a} should be refused"),
        }
    }
}

// ---- Whole close combats against a plain chain of single bouts ----

/// One bout's exact odds from the `bout` action: ((A wins, figures the loser loses), p).
fn bout_odds(version: &str, a: &Value, b: &Value) -> Vec<((bool, u32), f64)> {
    let d = plan_of(&bout(version, a.clone(), b.clone())).exact(|o| o.facets.clone());
    d.outcomes
        .iter()
        .map(|(f, p)| {
            let get = |k: &str| {
                f.iter()
                    .find(|(x, _)| x == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            let lost = match version {
                "figure" => u32::from(get("loser killed") == "yes"),
                _ => get("figures lost").parse().expect("figures lost"),
            };
            ((get("winner") == "A", lost), *p)
        })
        .collect()
}

/// A side's queue as `bout` fighters (design 6.1; decision 24): figures, the leaders last; or
/// full companies after one short company, the leaders' companies last.
fn fighters(version: &str, side: &Value, company: u8) -> Vec<Value> {
    let n = side["figures"].as_u64().expect("figures") as u8;
    let leaders = side["leaders"].as_u64().unwrap_or(1) as u8;
    let base = |officer: bool, missing: u8| {
        let mut f = side.clone();
        let o = f.as_object_mut().expect("object");
        o.remove("figures");
        o.remove("leaders");
        o.insert("officer".into(), json!(officer));
        if version == "company" {
            o.insert("missing".into(), json!(missing));
        }
        f
    };
    if version == "figure" {
        return (0..n).map(|i| base(i >= n - leaders, 0)).collect();
    }
    let mut sizes = Vec::new();
    if !n.is_multiple_of(company) {
        sizes.push(n % company);
    }
    sizes.extend(std::iter::repeat_n(company, usize::from(n / company)));
    let k = sizes.len();
    sizes
        .iter()
        .enumerate()
        .map(|(i, &men)| base(i >= k - usize::from(leaders).min(k), company - men))
        .collect()
}

type Ends = std::collections::BTreeMap<(bool, u32, u32), f64>;

/// The combat as a chain over (A's fighter, B's fighter): the distribution of (A wins, figures
/// A loses, figures B loses) from each pair on, the losses counted from there.
fn chain(version: &str, qa: &[Value], qb: &[Value]) -> Ends {
    fn from(
        at: (usize, usize),
        version: &str,
        q: (&[Value], &[Value]),
        memo: &mut std::collections::HashMap<(usize, usize), Ends>,
    ) -> Ends {
        let (ia, ib) = at;
        if ia == q.0.len() || ib == q.1.len() {
            return [((ib == q.1.len(), 0, 0), 1.0)].into_iter().collect();
        }
        if let Some(d) = memo.get(&at) {
            return d.clone();
        }
        let mut out = Ends::new();
        for ((a_wins, lost), p) in bout_odds(version, &q.0[ia], &q.1[ib]) {
            let (next, la, lb) = if a_wins {
                ((ia, ib + 1), 0, lost)
            } else {
                ((ia + 1, ib), lost, 0)
            };
            for ((w, x, y), r) in from(next, version, q, memo) {
                *out.entry((w, x + la, y + lb)).or_insert(0.0) += p * r;
            }
        }
        memo.insert(at, out.clone());
        out
    }
    from(
        (0, 0),
        version,
        (qa, qb),
        &mut std::collections::HashMap::new(),
    )
}

fn combat_ends(action: &Value) -> Ends {
    let d = plan_of(action).exact(|o| o.facets.clone());
    let mut out = Ends::new();
    for (f, p) in &d.outcomes {
        let get = |k: &str| {
            f.iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let n = |k: &str| get(k).parse::<u32>().expect("a count");
        *out.entry((
            get("winner") == "A",
            n("A figures lost"),
            n("B figures lost"),
        ))
        .or_insert(0.0) += p;
    }
    out
}

#[test]
fn whole_close_combats_are_chains_of_their_bouts() {
    // (version, A, B, company size of A, of B): figures and companies, leaders, a field officer,
    // win ties on one side, both and neither (ties thrown again).
    let cases = [
        (
            "figure",
            json!({"type": "gendarmes", "figures": 3, "lance": true}),
            json!({"type": "pikemen", "figures": 4}),
        ),
        (
            "figure",
            json!({"type": "halberdiers", "order": "open", "figures": 4}),
            json!({"type": "pikemen", "figures": 3, "broken_ground": true}),
        ),
        (
            "figure",
            json!({"type": "reiters", "figures": 2}),
            json!({"type": "light-horse-spear", "figures": 3, "shaken": true, "leaders": 0}),
        ),
        (
            "company",
            json!({"type": "pikemen", "figures": 7, "leaders": 2}),
            json!({"type": "pikemen", "figures": 8}),
        ),
        (
            "company",
            json!({"type": "gendarmes", "figures": 7, "lance": true}),
            json!({"type": "halberdiers", "figures": 9, "attacked_in_rear": true}),
        ),
    ];
    for (version, a, b) in cases {
        let size = |s: &Value| {
            tercio_rules::sword_and_flame_renaissance::tables::troop(
                s["type"].as_str().expect("type"),
            )
            .expect("troop")
            .company
        };
        let (qa, qb) = (
            fighters(version, &a, size(&a)),
            fighters(version, &b, size(&b)),
        );
        let want = chain(version, &qa, &qb);
        let got =
            combat_ends(&json!({"action": "close-combat", "version": version, "a": a, "b": b}));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{version} {a} {b}"
        );
        for (k, p) in &want {
            assert!(
                (got[k] - p).abs() < 1e-12,
                "{version} {a} {b} {k:?}: {} against {p}",
                got[k]
            );
        }
        assert!((got.values().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn whole_close_combat_odds_are_those_of_the_walk_over_every_throw() {
    // Worked out by the earlier walk, which visited every accepted throw of every bout: who wins,
    // and each side's expected losses.
    for (a, b, version, a_wins, a_lost, b_lost) in [
        (
            json!({"type": "gendarmes", "figures": 8, "lance": true}),
            json!({"type": "pikemen", "figures": 12}),
            "figure",
            5.917506982736024e-05,
            3.7545255642969324,
            1.6794277301842375,
        ),
        (
            json!({"type": "gendarmes", "figures": 3, "lance": true}),
            json!({"type": "pikemen", "figures": 4}),
            "figure",
            0.01956120964794332,
            1.4289828818591308,
            0.6980455131509868,
        ),
        (
            json!({"type": "pikemen", "figures": 20, "leaders": 2}),
            json!({"type": "pikemen", "figures": 20}),
            "company",
            0.6010970513935239,
            5.146802802354595,
            5.940559387207564,
        ),
    ] {
        let ends =
            combat_ends(&json!({"action": "close-combat", "version": version, "a": a, "b": b}));
        let sum = |f: &dyn Fn(&(bool, u32, u32)) -> f64| -> f64 {
            ends.iter().map(|(k, p)| f(k) * p).sum()
        };
        let got = (
            sum(&|k| f64::from(u8::from(k.0))),
            sum(&|k| f64::from(k.1)),
            sum(&|k| f64::from(k.2)),
        );
        for (g, w) in [(got.0, a_wins), (got.1, a_lost), (got.2, b_lost)] {
            assert!(
                (g - w).abs() < 1e-12 * w.max(1.0),
                "{a} {b}: {g} against {w}"
            );
        }
    }
}

// ---- Breaking off ----

fn facet(o: &tercio_rules::Outcome, k: &str) -> String {
    o.facets
        .iter()
        .find(|(f, _)| f == k)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

#[test]
fn a_combat_still_undecided_after_three_company_bouts_breaks_off() {
    // Pike of two companies against pike of three: the combat may last four bouts.
    let a = json!({"type": "pikemen", "figures": 10});
    let b = json!({"type": "pikemen", "figures": 15});
    let plain = json!({"action": "close-combat", "version": "company", "a": a, "b": b});
    let mut breaking = plain.clone();
    breaking["break_off"] = json!({"side": "a", "after": 3});
    // Without breaking off, every path of the combat with its own bouts (no memoised states):
    // the combat goes past 3 bouts, and the losses in the first 3 bouts.
    let losses = |o: &tercio_rules::Outcome, bouts: usize| -> (u32, u32) {
        let mut l = (0, 0);
        for st in o.resolution.steps.iter().take(bouts) {
            let n: u32 = st
                .result
                .split("losing ")
                .nth(1)
                .and_then(|x| x.split(' ').next())
                .and_then(|x| x.parse().ok())
                .expect("a company bout's losses");
            if st.result.starts_with("A wins") {
                l.1 += n;
            } else {
                l.0 += n;
            }
        }
        l
    };
    let mut past_three = 0.0;
    let mut want = std::collections::BTreeMap::<(String, u32, u32), f64>::new();
    for (o, p) in plan_of(&plain).leaves() {
        let n = o.resolution.steps.len();
        let key = if n > 3 {
            past_three += p;
            let (la, lb) = losses(&o, 3);
            ("broke off".to_string(), la, lb)
        } else {
            let (la, lb) = losses(&o, n);
            (facet(&o, "winner"), la, lb)
        };
        *want.entry(key).or_insert(0.0) += p;
    }
    assert!(past_three > 0.1 && past_three < 0.9, "{past_three}");
    // With breaking off, from the memoised plan.
    let joint = plan_of(&breaking).exact(|o| o.facets.clone());
    assert!((joint.total() - 1.0).abs() < 1e-12);
    let broke = joint.p(|f| f.iter().any(|(k, v)| k == "winner" && v == "broke off"));
    assert!(
        (broke - past_three).abs() < 1e-12,
        "{broke} against {past_three}"
    );
    close(
        p(breaking.clone(), "winner", |v| v == "broke off"),
        past_three * 100.0,
    );
    let mut got = std::collections::BTreeMap::<(String, u32, u32), f64>::new();
    for (f, p) in &joint.outcomes {
        let get = |k: &str| {
            f.iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let n = |k: &str| get(k).parse::<u32>().expect("a count");
        *got.entry((get("winner"), n("A figures lost"), n("B figures lost")))
            .or_insert(0.0) += p;
    }
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, p) in &want {
        assert!((got[k] - p).abs() < 1e-12, "{k:?}: {} against {p}", got[k]);
    }
    // The test is Stand and Fight, whatever the losses: pike against pike passes 58.33% (design
    // 5.2), so the unit retires shaken in that share of the break-offs and routs in the rest.
    let retires = joint.p(|f| {
        f.iter()
            .any(|(k, v)| k == "break off" && v == "retires shaken")
    });
    let routs = joint.p(|f| f.iter().any(|(k, v)| k == "break off" && v == "routs"));
    close(retires / broke, 58.33);
    assert!((retires + routs - broke).abs() < 1e-12);
    // Rolled: the breaker's test follows the third bout.
    let mut s = DiceStream::from_seed(21);
    let mut seen = 0;
    for _ in 0..40 {
        let (o, draws) = plan_of(&breaking).roll(&mut s);
        if facet(&o, "winner") != "broke off" {
            assert!(o.resolution.steps.len() <= 3);
            assert_eq!(facet(&o, "break off"), "");
            continue;
        }
        seen += 1;
        let steps = &o.resolution.steps;
        assert_eq!(steps.len(), 5, "{}", o.resolution.render());
        assert!(steps[3]
            .title
            .starts_with("Breaking off: A has fought 3 bout(s)"));
        assert!(steps[4].title.starts_with("Stand and Fight"));
        let pass = steps[4].result == "passed";
        assert_eq!(
            facet(&o, "break off"),
            if pass { "retires shaken" } else { "routs" }
        );
        let last: Vec<u8> = draws.iter().rev().take(2).map(|d| d.face).collect();
        assert!(draws
            .iter()
            .rev()
            .take(2)
            .all(|d| en(&d.label).starts_with("Morale die")));
        assert_eq!(
            steps[4].totals[0].1,
            i32::from(last[0]) + i32::from(last[1]),
            "no modifiers"
        );
    }
    assert!(seen > 0);
}

#[test]
fn breaking_off_takes_the_breakers_situation_into_its_test() {
    // Figure version, by default after 6 bouts: 7 figures of pike against 7 gendarmes always
    // last that long. Infantry breaking off from cavalry, −2: 27.78% (design 5.3).
    let foot = json!({"action": "close-combat", "version": "figure",
        "a": {"type": "gendarmes", "figures": 7},
        "b": {"type": "pikemen", "figures": 7},
        "break_off": {"side": "b"}});
    close(p(foot.clone(), "winner", |v| v == "broke off"), 100.0);
    close(p(foot, "break off", |v| v == "retires shaken"), 27.78);
    // The gendarmes breaking off from the pike: no −2, but shaken −1 (design 5.3): 41.67%.
    let horse = json!({"action": "close-combat", "version": "figure",
        "a": {"type": "gendarmes", "figures": 7, "shaken": true},
        "b": {"type": "pikemen", "figures": 7},
        "break_off": {"side": "a", "after": 6}});
    close(p(horse, "break off", |v| v == "retires shaken"), 41.67);
    // Leaderless −2, with a field officer attached +1 instead (decision 7); spent −2.
    let side = |extra: Value| {
        let mut s = json!({"type": "pikemen", "figures": 10});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            s[k] = v;
        }
        json!({"action": "close-combat", "version": "company", "a": s,
            "b": {"type": "pikemen", "figures": 20}, "break_off": {"side": "a"}})
    };
    let retires = |a: Value| {
        let r = odds(&plan_of(&a));
        r.p("break off", "retires shaken") / r.p("winner", "broke off")
    };
    close(retires(side(json!({"leaders": 0}))), 27.78);
    close(
        retires(side(json!({"leaders": 0, "field_officer": true}))),
        72.22,
    );
    close(retires(side(json!({"spent": true}))), 27.78);
    // Too soon: fewer bouts than the text allows, naming the field.
    for (version, after) in [("company", 2), ("figure", 5)] {
        let a = json!({"action": "close-combat", "version": version,
            "a": {"type": "pikemen", "figures": 10}, "b": {"type": "pikemen", "figures": 10},
            "break_off": {"side": "a", "after": after}});
        match plan(&a) {
            Err(r) => assert_eq!(r.field.as_deref(), Some("break_off.after"), "{r}"),
            Ok(_) => panic!("{a} should be refused"),
        }
    }
}

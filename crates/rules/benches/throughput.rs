//! Resolve and odds throughput (`cargo bench -p tercio-rules`). Prints figures; asserts nothing.
//! `-- --quick` measures for 0.2 s instead of 1.5 s; any other argument keeps only the entries
//! whose name contains it (`-- --quick "figure version"`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tercio_core::DiceStream;
use tercio_rules::odds::odds;
use tercio_rules::{lookup, Engine};

/// Run `f` for `budget` and print its rate; the rate, or 0 when filtered out.
fn measure(name: &str, budget: Duration, mut f: impl FnMut()) -> f64 {
    if !FILTERS.with(|fs| fs.iter().all(|x| name.contains(x.as_str()))) {
        return 0.0;
    }
    // Warm up: 50 runs, or a quarter of the budget for slow entries.
    let warm = Instant::now();
    for _ in 0..50 {
        f();
        if warm.elapsed() > budget / 4 {
            break;
        }
    }
    // Batches of growing size up to 100, so a slow entry runs a few times, not a hundred.
    let start = Instant::now();
    let mut n = 0u64;
    let mut batch = 1u64;
    while start.elapsed() < budget {
        for _ in 0..batch {
            f();
        }
        n += batch;
        batch = (batch * 2).min(100);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name:<58} {:>10.0} /s  ({:>8.2} µs each)",
        n as f64 / secs,
        secs * 1e6 / n as f64
    );
    n as f64 / secs
}

thread_local! {
    static FILTERS: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
}

fn main() {
    let budget = Duration::from_millis(if std::env::args().any(|a| a == "--quick") {
        200
    } else {
        1500
    });
    let actions: [(&str, &str, Value); 7] = [
        (
            "egc",
            "melee, gendarmes vs gendarmes, leaders both sides",
            json!({"action":"melee","actor":{"type":"gendarmes","bases":4,"in_combat":true},"target":{"type":"gendarmes","bases":4,"in_combat":true},"ground":"open","leader_with_actor":true,"leader_with_target":true}),
        ),
        (
            "egc",
            "charge through defensive fire into melee",
            json!({"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"arquebusiers","bases":4},"ground":"open","crosses_arc_of_fire":true,"leader_with_actor":true}),
        ),
        (
            "egc",
            "fire, arquebusiers at Swiss pike",
            json!({"action":"fire","actor":{"type":"arquebusiers","bases":4},"target":{"type":"swiss-pike","bases":4},"ground":"open"}),
        ),
        (
            "callan",
            "round, the worked example: 3 gendarmi v 6 Landsknecht pike",
            json!({"action":"attack","attacker":{"type":"gendarmi","bases":3},"defender":{"type":"picchieri","bases":6,"nationality":"lanzichenecchi"},"attacker_front":3,"defender_front":3,"defender_rear":3}),
        ),
        (
            "callan",
            "round, worst case: German gendarmi 6 v raw 4x4 pike, commanders",
            json!({"action":"attack","attacker":{"type":"gendarmi","bases":6,"nationality":"tedeschi","commander":true},"defender":{"type":"picchieri","bases":16,"flags":["reclute","schermo-4"],"commander":true},"attacker_front":3,"attacker_rear":3,"defender_front":4,"defender_rear":12,"charge":true}),
        ),
        (
            "callan",
            "fire, heavy gun at a dense block",
            json!({"action":"fire","unit":{"type":"artiglieria-pesante","bases":1},"target":{"type":"picchieri","bases":16},"long_bases":1,"dense":true}),
        ),
        (
            "abdf",
            "charge, knights at archers behind stakes",
            json!({"action":"charge","actor":{"type":"mounted-knights","bases":4},"target":{"type":"archers","bases":4,"stakes_planted":true},"ground":"open","crosses_arc_of_fire":true,"leader_with_actor":true}),
        ),
    ];
    println!("Tercio rules throughput (one core)\n");
    for (rules, name, action) in &actions {
        let engine: Box<dyn Engine> = lookup(rules)
            .expect("rule set")
            .engine(None)
            .expect("engine");
        let mut stream = DiceStream::from_seed(1);
        let resolved = measure(&format!("resolve  {rules}: {name}"), budget, || {
            let plan = engine.plan(None, action).expect("plan");
            black_box(plan.roll(&mut stream));
        });
        // The designers' sampling path: the same plan compiled once, its dice thrown.
        let sampler = engine
            .plan(None, action)
            .expect("plan")
            .compile(|o| o.facets.clone(), 1_000_000)
            .expect("compile");
        let sampled = measure(&format!("sampled  {rules}: {name}"), budget, || {
            black_box(sampler.sample_index(&mut stream));
        });
        if resolved > 0.0 && sampled > 0.0 {
            println!(
                "{:<58} {:>10.1} x",
                "  sampled / resolved",
                sampled / resolved
            );
        }
        measure(&format!("odds     {rules}: {name}"), budget, || {
            let plan = engine.plan(None, action).expect("plan");
            black_box(odds(&plan));
        });
    }

    // The Sword and the Flame, Renaissance (stand-alone plans, not yet a listed rule set).
    let tsatf: [(&str, Value); 5] = [
        (
            "fire, 20 arquebusiers at pike, casualty cards",
            json!({"action":"fire","weapon":"arquebus","target_class":1,"firers":20}),
        ),
        (
            "close combat, company version, Swiss v Landsknecht pike",
            json!({"action":"close-combat","version":"company","a":{"type":"pikemen","figures":20,"leaders":2},"b":{"type":"pikemen","figures":20}}),
        ),
        (
            "close combat, figure version, 8 gendarmes v 12 pike",
            json!({"action":"close-combat","version":"figure","a":{"type":"gendarmes","figures":8,"lance":true},"b":{"type":"pikemen","figures":12}}),
        ),
        (
            "close combat, figure version, 6 pike breaking off from 8 reiters",
            json!({"action":"close-combat","version":"figure","a":{"type":"reiters","figures":8},"b":{"type":"pikemen","figures":6},"break_off":{"side":"b"}}),
        ),
        (
            "morale, Stand and Fight, shaken and spent",
            json!({"action":"morale","test":"stand-and-fight","shaken":true,"spent":true}),
        ),
    ];
    for (name, action) in &tsatf {
        let mut stream = DiceStream::from_seed(1);
        measure(&format!("resolve  tsatf: {name}"), budget, || {
            let plan = tercio_rules::sword_and_flame_renaissance::plan(action).expect("plan");
            black_box(plan.roll(&mut stream));
        });
        measure(&format!("odds     tsatf: {name}"), budget, || {
            let plan = tercio_rules::sword_and_flame_renaissance::plan(action).expect("plan");
            black_box(odds(&plan));
        });
    }

    // Whole battles by the automatic players (`tercio simulate`), one core.
    for (id, file) in [
        ("egc", "el-gran-capitan/cerignola-1503.toml"),
        ("abdf", "bloody-dismal-fight/agincourt-1415.toml"),
        ("tsatf", "sword-and-flame-renaissance/bicocca-1522.toml"),
        ("callan", "callan-renaissance/pavia-1525.toml"),
        ("ecw", "commands-colors-ecw/tibbermore-1644.toml"),
    ] {
        let path = format!("{}/../../scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(&path).expect("scenario");
        let sc = tercio_rules::scenario::parse(&path, &src).expect("scenario");
        let sim = lookup(id).expect("rules").simulator().expect("simulator");
        let mut i = 0u64;
        measure(
            &format!("battle   {id}: {}, default policies", sc.title.en()),
            budget,
            || {
                i += 1;
                black_box(
                    sim.play(&sc, i, &[], sim.turn_limit(), false)
                        .expect("battle"),
                );
            },
        );
    }

    // The designers' balance sheets: an exact fight to the finish between two units (6 bases
    // for the app-driven rule sets, the sheet's own size for the others), and a whole sheet
    // (every troop type against every other, the first action and its fight).
    for r in tercio_rules::registry::all() {
        let Some(b) = r.balance() else { continue };
        let f = b.fighters();
        let (unit, _, most) = r.unit_size();
        let size = if most == 6 { 6 } else { b.default_size() };
        for action in b.actions().iter().take(2) {
            let action = action.id;
            // The first pair the rules allow, from the second quarter of the list on (not
            // every type shoots).
            let Some((a, t)) = f
                .iter()
                .flat_map(|a| f[f.len() / 4..].iter().map(move |t| (a.id, t.id)))
                .find(|(a, t)| b.exchange(action, a, t, size).is_ok())
            else {
                continue;
            };
            measure(
                &format!("finish   {}: {action}, {a} v {t}, {size} {unit}", r.alias()),
                budget,
                || {
                    black_box(b.finish(action, a, t, size).expect("finish"));
                },
            );
        }
        let first = b.actions()[0].id;
        let size = b.default_size();
        measure(
            &format!("sheet    {}: {first}, every pair, {size} {unit}", r.alias()),
            budget,
            || {
                black_box(
                    tercio_rules::interface::balance::sheet(r.id(), &*b, first, size)
                        .expect("sheet"),
                );
            },
        );
    }
}

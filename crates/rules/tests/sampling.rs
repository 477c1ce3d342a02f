//! The designers' sampling path (`Plan::compile`) on every rule set's real plans: for every
//! stand-alone example action, the compiled sampler gives what rolling the plan gives from the
//! same stream, and its frequencies agree with the exact odds (χ², fixed seed).

use std::path::PathBuf;

use tercio_core::DiceStream;

fn examples() -> Vec<(String, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("examples").flatten() {
        if !dir.path().is_dir() {
            continue;
        }
        let rules = dir.file_name().to_string_lossy().to_string();
        for f in std::fs::read_dir(dir.path()).expect("dir").flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if name.ends_with(".json") && !name.ends_with(".expect.json") {
                out.push((rules.clone(), f.path()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_example_samples_as_it_rolls_and_as_its_odds_say() {
    let mut checked = 0;
    let mut rule_sets = std::collections::BTreeSet::new();
    for (rules, file) in examples() {
        let r = tercio_rules::lookup(&rules).expect("rule set");
        let engine = r.engine(None).expect("engine");
        let action: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        let Ok(plan) = engine.plan(None, &action) else {
            continue; // a refused example: nothing to sample
        };
        let at = file.display().to_string();
        let key = |o: &tercio_rules::Outcome| o.facets.clone();
        let sampler = plan.compile(key, 1_000_000).expect("compile");
        for seed in 0..200 {
            let mut a = DiceStream::from_seed(seed);
            let mut b = DiceStream::from_seed(seed);
            let rolled = engine
                .plan(None, &action)
                .expect("plan")
                .roll(&mut a)
                .0
                .facets;
            assert_eq!(sampler.sample(&mut b), &rolled, "{at}: seed {seed}");
            assert_eq!(a.word_pos(), b.word_pos(), "{at}: seed {seed}");
        }
        let exact = plan.exact(key);
        let n = 20_000u32;
        let mut counts = vec![0u32; sampler.keys().len()];
        let mut stream = DiceStream::from_seed(7);
        for _ in 0..n {
            counts[sampler.sample_index(&mut stream)] += 1;
        }
        // Outcomes rarer than 5 expected samples are pooled, as a χ² test asks.
        let (mut chi2, mut df, mut pooled_o, mut pooled_e) = (0.0, 0.0f64, 0.0, 0.0);
        for (k, c) in sampler.keys().iter().zip(&counts) {
            let e = exact.outcomes[k] * f64::from(n);
            if e < 5.0 {
                pooled_o += f64::from(*c);
                pooled_e += e;
                continue;
            }
            chi2 += (f64::from(*c) - e).powi(2) / e;
            df += 1.0;
        }
        if pooled_e > 0.0 {
            chi2 += (pooled_o - pooled_e).powi(2) / pooled_e.max(1e-9);
            df += 1.0;
        }
        let df = (df - 1.0).max(1.0);
        // The 1 - 1e-5 quantile: about fifty examples are tested, and all must pass together
        // (a family-wise chance of a false alarm of 5e-4; the seed is fixed, so it is either
        // always or never).
        let z = 4.264_891;
        let crit = df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3);
        assert!(
            chi2 < crit,
            "{at}: χ² {chi2} over {crit} ({df} degrees of freedom)"
        );
        checked += 1;
        rule_sets.insert(rules);
    }
    assert!(checked >= 40, "only {checked} examples sampled");
    assert_eq!(rule_sets.len(), 5, "{rule_sets:?}");
}

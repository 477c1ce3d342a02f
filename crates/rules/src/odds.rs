//! Exact odds of an action, tabulated from the same dice plan that rolls it.

use std::collections::BTreeMap;

use serde::Serialize;
use tercio_core::Plan;

use crate::interface::Outcome;

#[derive(Debug, Clone, Serialize)]
pub struct FacetOdds {
    pub facet: String,
    /// Each value with its exact probability, in order of first appearance in the enumeration.
    pub values: Vec<(String, f64)>,
    /// For a facet whose values are numbers (hits, blocks lost): its expected value, over the
    /// outcomes where it is reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
}

/// The expected value of numeric facet values (those not reached left out), or `None` when a
/// value is not a number.
fn mean_of(values: &[(String, f64)]) -> Option<f64> {
    let mut sum = 0.0;
    let mut mass = 0.0;
    for (v, p) in values {
        if v == NOT_REACHED {
            continue;
        }
        let x: f64 = v.parse().ok()?;
        sum += x * p;
        mass += p;
    }
    (mass > 0.0).then(|| sum / mass)
}

/// The value of a facet on the branches that never reach it: a message, "(not reached)" in
/// English, "(non raggiunto)" in Italian.
pub const NOT_REACHED: &str = "\u{27e6}odds.not-reached\u{27e7}";

#[derive(Debug, Clone, Serialize)]
pub struct OddsReport {
    /// Total probability (1 within rounding).
    pub total: f64,
    /// Number of distinct joint outcomes.
    pub outcomes: usize,
    pub facets: Vec<FacetOdds>,
}

impl OddsReport {
    /// The probability that `facet` has `value` (0 if never).
    /// The probability of `value` in `facet`, each named as recorded or as it reads in English
    /// (a facet recorded as a language-neutral message is found by its English text too).
    pub fn p(&self, facet: &str, value: &str) -> f64 {
        let is = |recorded: &str, name: &str| {
            recorded == name || tercio_i18n::localize(tercio_i18n::Lang::En, recorded) == name
        };
        self.facets
            .iter()
            .find(|f| is(&f.facet, facet))
            .and_then(|f| f.values.iter().find(|(v, _)| is(v, value)))
            .map_or(0.0, |(_, p)| *p)
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        for f in &self.facets {
            match f.mean {
                Some(m) => s.push_str(&format!("  {} (expected {m:.3})\n", f.facet)),
                None => s.push_str(&format!("  {}\n", f.facet)),
            }
            for (v, p) in &f.values {
                s.push_str(&format!("    {:<24} {:>7.2}%\n", v, p * 100.0));
            }
        }
        s.push_str(&format!(
            "  ({} distinct outcomes; probabilities sum to {:.12})\n",
            self.outcomes, self.total
        ));
        s
    }
}

/// Joint distribution of the facets, then each facet's marginal.
pub fn odds(plan: &Plan<Outcome>) -> OddsReport {
    report_of(&plan.exact(|o| o.facets.clone()))
}

fn natural(s: &str) -> (u8, i64, String) {
    // A value recorded as a message ranks by its key's last part ("⟦app_driven.value.tie⟧": "tie").
    let plain = s
        .strip_prefix(tercio_i18n::OPEN)
        .and_then(|m| m.split([tercio_i18n::CLOSE, '|']).next())
        .and_then(|key| key.rsplit('.').next())
        .map(|last| last.replace('-', " "));
    let rank = match plain.as_deref().unwrap_or(s) {
        "actor ahead" | "no effect" | "success" | "safe" | "no" | "contact" => 0,
        "tie" | "one level" | "captured" => 1,
        "target ahead" | "devastating" | "killed" | "yes" => 2,
        _ => 3,
    };
    let num = s
        .split(|c: char| !c.is_ascii_digit())
        .find(|x| !x.is_empty())
        .and_then(|x| x.parse().ok())
        .unwrap_or(-1);
    (rank, num, s.to_string())
}

/// The final outcome of an action at a glance (issue 43, item 3): its joint outcomes told by
/// the facets that decide it (the rule set's [`crate::Engine::headline_facets`]: a charge's
/// contact and its melee's result, a round's winner and what befalls the loser), each with its
/// probability and what else is expected on it (levels or bases lost). Tabulated from the same
/// joint enumeration as [`odds`], so a chained action (a charge through defensive fire into a
/// melee) is told by its last stage, never by its first.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Final {
    /// The outcomes, in the order of their headline values (most likely last merged into
    /// `other` when there are more than [`Final::MOST`]).
    pub groups: Vec<FinalGroup>,
    /// The probability of the outcomes not told one by one (0 when every one is).
    pub other: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FinalGroup {
    /// Its probability.
    pub p: f64,
    /// The headline facets' values on it, each as (facet, value); facets not reached left out.
    pub values: Vec<(String, String)>,
    /// Every other facet whose values are numbers (of them the losses, when the rule set names
    /// them) and that is not certain, as (facet, its expected value on this outcome, where it is
    /// reached); left out where it is about nothing (below 0.05: nothing lost).
    pub expected: Vec<(String, f64)>,
    /// Every other facet whose values are not numbers and that varies, as (facet, value, its
    /// probability on this outcome): the values other than its usual one and "no" (a leader
    /// killed, a gun blown up), so that a rare mishap stays visible.
    pub chances: Vec<(String, String, f64)>,
}

impl Final {
    /// The most outcomes told one by one: a phone's bar and list stay readable.
    pub const MOST: usize = 6;
    /// An outcome less likely than this is counted among the others (no bar shows it).
    pub const RARE: f64 = 0.005;
    /// The most headline facets that tell outcomes apart (a charge's contact and its melee).
    pub const HEADS: usize = 2;
}

impl Final {
    /// The final outcome as text (the command line's): a line per outcome, its probability and
    /// its deciding values, then what is expected on it; messages are left for the caller to
    /// render in its language (`loc`).
    pub fn render(&self, loc: &dyn Fn(&str) -> String) -> String {
        let mut s = String::new();
        for g in &self.groups {
            let words: Vec<String> = g
                .values
                .iter()
                .filter(|(_, v)| v != NOT_REACHED)
                .map(|(f, v)| format!("{}: {}", loc(f), loc(v)))
                .collect();
            s.push_str(&format!("  {:>7.2}%  {}\n", g.p * 100.0, words.join(", ")));
            let mut more: Vec<String> = g
                .expected
                .iter()
                .map(|(f, m)| format!("{} {m:.2}", loc(f)))
                .collect();
            more.extend(
                g.chances
                    .iter()
                    .map(|(f, v, p)| format!("{}: {} {:.1}%", loc(f), loc(v), p * 100.0)),
            );
            if !more.is_empty() {
                s.push_str(&format!("            ({})\n", more.join("; ")));
            }
        }
        if self.other > 0.0 {
            s.push_str(&format!(
                "  {:>7.2}%  {}\n",
                self.other * 100.0,
                loc("\u{27e6}odds.other\u{27e7}")
            ));
        }
        s
    }
}

/// The odds of `action` as a seat is shown them, against `state`: every independent part (each
/// target of a split fire) with its own final outcome, beside every facet's marginals over all
/// of them. The web's odds answer and `tercio odds` / `tercio game odds` alike.
pub fn of_action(
    engine: &dyn crate::interface::Engine,
    state: Option<&serde_json::Value>,
    action: &serde_json::Value,
) -> Result<(OddsReport, Vec<Final>), crate::interface::Rejection> {
    let mut plans = engine.preview_parts(state, action)?;
    if plans.is_empty() {
        plans.push(engine.preview(state, action)?);
    }
    Ok(of_plans(engine, &plans))
}

/// [`of_action`]'s tabulation, for plans already made.
pub fn of_plans(
    engine: &dyn crate::interface::Engine,
    plans: &[Plan<Outcome>],
) -> (OddsReport, Vec<Final>) {
    let (headline, losses) = (engine.headline_facets(), engine.loss_facets());
    let mut report = OddsReport {
        total: 1.0,
        outcomes: 0,
        facets: Vec::new(),
    };
    let mut finals = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let (r, f) = odds_and_final(p, headline, losses);
        if i == 0 {
            report.total = r.total;
        }
        report.outcomes += r.outcomes;
        report.facets.extend(r.facets);
        finals.push(f);
    }
    (report, finals)
}

/// Whether `facet` is the facet named by message key `key` (`⟦key⟧`, `⟦key|…⟧`, or nested as
/// `@key` in another message: ECW's "Melee: blocks lost").
pub fn facet_is(facet: &str, key: &str) -> bool {
    if facet == key {
        return true;
    }
    let open = format!("{}{key}", tercio_i18n::OPEN);
    let nested = format!("@{key}");
    [open, nested].iter().any(|m| {
        facet.match_indices(m.as_str()).any(|(i, _)| {
            matches!(
                facet[i + m.len()..].chars().next(),
                Some('|') | Some(tercio_i18n::CLOSE) | None
            )
        })
    })
}

fn numeric(v: &str) -> Option<f64> {
    v.parse().ok()
}

/// [`odds`] and the [`Final`] outcome of the same plan, from one enumeration. `headline`: the
/// message keys of the facets that decide an outcome, in the rule set's order; of them, those
/// that vary and are reached at least half the time (the first [`Final::HEADS`]) tell the outcomes apart. When none does,
/// the first facet that varies does (a morale test named by its unit).
///
/// `losses`: the message keys of the facets whose expected values are told on each outcome
/// (levels, bases, figures or blocks lost); none: every facet whose values are numbers.
pub fn odds_and_final(
    plan: &Plan<Outcome>,
    headline: &[&str],
    losses: &[&str],
) -> (OddsReport, Final) {
    let joint = plan.exact(|o| o.facets.clone());
    let report = report_of(&joint);
    let fin = final_of(&joint, &report, headline, losses);
    (report, fin)
}

fn report_of(joint: &tercio_core::plan::Distribution<Vec<(String, String)>>) -> OddsReport {
    let mut order: Vec<String> = Vec::new();
    let mut marg: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for (facets, p) in &joint.outcomes {
        for (k, v) in facets {
            if !order.contains(k) {
                order.push(k.clone());
            }
            let e = marg.entry(k.clone()).or_default();
            match e.iter_mut().find(|(x, _)| x == v) {
                Some((_, q)) => *q += p,
                None => e.push((v.clone(), *p)),
            }
        }
    }
    let facets = order
        .into_iter()
        .map(|k| {
            let mut values = marg.remove(&k).unwrap_or_default();
            values.sort_by_key(|a| natural(&a.0));
            // A facet that appears only on some branches: the rest of the mass is "n/a".
            let covered: f64 = values.iter().map(|(_, p)| p).sum();
            if covered < 1.0 - 1e-12 {
                values.push((NOT_REACHED.to_string(), 1.0 - covered));
            }
            let mean = mean_of(&values);
            FacetOdds {
                facet: k,
                values,
                mean,
            }
        })
        .collect();
    OddsReport {
        total: joint.total(),
        outcomes: joint.outcomes.len(),
        facets,
    }
}

fn final_of(
    joint: &tercio_core::plan::Distribution<Vec<(String, String)>>,
    report: &OddsReport,
    headline: &[&str],
    losses: &[&str],
) -> Final {
    let varies = |f: &FacetOdds| f.values.len() > 1;
    let reached = |f: &FacetOdds| {
        1.0 - f
            .values
            .iter()
            .find(|(v, _)| v == NOT_REACHED)
            .map_or(0.0, |(_, p)| *p)
    };
    // The deciding facets, in the rule set's order of keys, then the report's.
    let mut heads: Vec<&str> = Vec::new();
    for key in headline {
        for f in &report.facets {
            if facet_is(&f.facet, key)
                && varies(f)
                && reached(f) >= 0.5
                && !heads.contains(&f.facet.as_str())
            {
                heads.push(&f.facet);
            }
        }
    }
    heads.truncate(Final::HEADS);
    if heads.is_empty() {
        if let Some(f) = report.facets.iter().find(|f| varies(f)) {
            heads.push(&f.facet);
        }
    }
    let rank = |facet: &str, value: &str| {
        report
            .facets
            .iter()
            .find(|f| f.facet == facet)
            .and_then(|f| f.values.iter().position(|(v, _)| v == value))
            .unwrap_or(usize::MAX)
    };
    // Group the joint outcomes by their headline values.
    struct Acc {
        key: Vec<usize>,
        p: f64,
        values: Vec<(String, String)>,
        outcomes: Vec<(Vec<(String, String)>, f64)>,
    }
    let mut groups: Vec<Acc> = Vec::new();
    for (facets, p) in &joint.outcomes {
        let values: Vec<(String, String)> = heads
            .iter()
            .filter_map(|h| {
                facets
                    .iter()
                    .find(|(k, _)| k == h)
                    .map(|(k, v)| (k.clone(), v.clone()))
            })
            .collect();
        let key: Vec<usize> = heads
            .iter()
            .map(|h| {
                values
                    .iter()
                    .find(|(k, _)| k == h)
                    .map_or(usize::MAX, |(k, v)| rank(k, v))
            })
            .collect();
        let i = match groups.iter().position(|g| g.key == key) {
            Some(i) => i,
            None => {
                groups.push(Acc {
                    key,
                    p: 0.0,
                    values,
                    outcomes: Vec::new(),
                });
                groups.len() - 1
            }
        };
        groups[i].p += p;
        groups[i].outcomes.push((facets.clone(), *p));
    }
    groups.sort_by(|a, b| a.key.cmp(&b.key));
    // The least likely beyond the most told one by one, and those too rare to see on a bar,
    // go to `other`.
    let mut other = 0.0;
    if groups.len() > 1 {
        let mut ps: Vec<f64> = groups.iter().map(|g| g.p).collect();
        ps.sort_by(|a, b| b.total_cmp(a));
        let floor = ps[ps.len().min(Final::MOST) - 1].max(Final::RARE);
        let mut kept = 0;
        groups.retain(|g| {
            let keep = g.p >= floor && kept < Final::MOST;
            if keep {
                kept += 1;
            } else {
                other += g.p;
            }
            keep
        });
    }
    let rest: Vec<&FacetOdds> = report
        .facets
        .iter()
        .filter(|f| varies(f) && !heads.contains(&f.facet.as_str()))
        .filter(|f| {
            f.mean.is_none() || losses.is_empty() || losses.iter().any(|k| facet_is(&f.facet, k))
        })
        .collect();
    let groups = groups
        .into_iter()
        .map(|g| {
            let mut expected = Vec::new();
            let mut chances = Vec::new();
            for f in &rest {
                let on: Vec<(&str, f64)> = g
                    .outcomes
                    .iter()
                    .filter_map(|(fs, p)| {
                        fs.iter()
                            .find(|(k, _)| *k == f.facet)
                            .map(|(_, v)| (v.as_str(), *p))
                    })
                    .collect();
                let mass: f64 = on.iter().map(|(_, p)| p).sum();
                if mass <= 0.0 {
                    continue;
                }
                if f.mean.is_some() {
                    let sum: f64 = on.iter().map(|(v, p)| numeric(v).unwrap_or(0.0) * p).sum();
                    // Nothing lost on this outcome goes without saying.
                    if sum / mass >= 0.05 {
                        expected.push((f.facet.clone(), sum / mass));
                    }
                } else {
                    // The usual value (a leader safe, a gun that holds) goes without saying.
                    let usual = f
                        .values
                        .iter()
                        .filter(|(v, _)| v != NOT_REACHED)
                        .max_by(|a, b| a.1.total_cmp(&b.1))
                        .map(|(v, _)| v.as_str());
                    for (v, _) in &f.values {
                        let no = tercio_i18n::localize(tercio_i18n::Lang::En, v) == "no";
                        if v == NOT_REACHED || no || Some(v.as_str()) == usual {
                            continue;
                        }
                        let q: f64 = on.iter().filter(|(x, _)| x == v).map(|(_, p)| p).sum();
                        if q > 0.0 {
                            chances.push((f.facet.clone(), v.clone(), q / g.p));
                        }
                    }
                }
            }
            FinalGroup {
                p: g.p,
                values: g.values,
                expected,
                chances,
            }
        })
        .collect();
    Final { groups, other }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A facet is found by its key however it is written: alone, with arguments, or nested in
    /// another message; never by a key that only starts the same.
    #[test]
    fn a_facet_is_found_by_its_key() {
        assert!(facet_is("\u{27e6}a.facet.melee\u{27e7}", "a.facet.melee"));
        assert!(facet_is(
            "\u{27e6}a.facet.leader|leader=X\u{27e7}",
            "a.facet.leader"
        ));
        assert!(facet_is(
            "\u{27e6}e.facet.of|label=@e.melee|what=@e.facet.blocks-lost\u{27e7}",
            "e.facet.blocks-lost"
        ));
        assert!(!facet_is(
            "\u{27e6}e.facet.blocks-lost-more\u{27e7}",
            "e.facet.blocks-lost"
        ));
        assert!(!facet_is("melee", "a.facet.melee"));
    }

    /// A charge through a fire into a melee: told by the melee, the certain contact left out,
    /// the levels lost expected on each outcome, the rare outcome in `other`.
    #[test]
    fn a_chained_action_is_told_by_its_last_stage() {
        let out = |melee: &str, lost: &str| Outcome {
            resolution: tercio_core::Resolution {
                action: String::new(),
                summary: String::new(),
                steps: Vec::new(),
            },
            effects: serde_json::Value::Null,
            facets: vec![
                ("charge".into(), "contact".into()),
                ("melee".into(), melee.into()),
                ("lost".into(), lost.into()),
            ],
        };
        let plan = Plan::die(tercio_core::Die::d6("melee"), move |f| {
            Plan::Done(match f {
                1 | 2 => out("behind", "2"),
                3 => out("tie", "1"),
                _ => out("ahead", "0"),
            })
        });
        let (report, fin) = odds_and_final(&plan, &["charge", "melee"], &["lost"]);
        assert_eq!(report.facets.len(), 3);
        let told: Vec<(&str, f64)> = fin
            .groups
            .iter()
            .map(|g| (g.values[0].1.as_str(), g.p))
            .collect();
        assert_eq!(told.len(), 3, "{told:?}");
        for (v, p) in [("ahead", 0.5), ("tie", 1.0 / 6.0), ("behind", 1.0 / 3.0)] {
            let got = told.iter().find(|(x, _)| *x == v).map_or(0.0, |(_, p)| *p);
            assert!((got - p).abs() < 1e-12, "{v}: {got}");
        }
        let behind = fin.groups.iter().find(|g| g.values[0].1 == "behind");
        assert_eq!(
            behind.map(|g| g.expected.clone()),
            Some(vec![("lost".to_string(), 2.0)])
        );
        assert_eq!(fin.other, 0.0);
    }
}

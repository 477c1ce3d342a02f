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
    let joint = plan.exact(|o| o.facets.clone());
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

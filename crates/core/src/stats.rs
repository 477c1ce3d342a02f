//! Small statistics for the dice report: how far observed counts stray from the expected ones.
//!
//! Pearson's chi-square statistic and its p-value (the upper tail of the chi-square distribution,
//! through the regularized incomplete gamma function), so "the dice are rigged" can be answered
//! with a figure.

/// Pearson's chi-square statistic of `observed` counts against `expected` counts (same length;
/// cells expecting nothing are skipped).
pub fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
    observed
        .iter()
        .zip(expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&o, &e)| {
            let d = o as f64 - e;
            d * d / e
        })
        .sum()
}

/// The probability that a chi-square variable with `df` degrees of freedom is at least `x`: the
/// chance that fair dice stray at least this far from the expected counts.
pub fn chi_square_p(x: f64, df: u32) -> f64 {
    if df == 0 || !x.is_finite() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    upper_gamma_regularized(f64::from(df) / 2.0, x / 2.0)
}

/// Q(a, x) = Γ(a, x) / Γ(a), by the series for x < a + 1 and the continued fraction otherwise
/// (the classic Numerical Recipes split).
fn upper_gamma_regularized(a: f64, x: f64) -> f64 {
    if x < a + 1.0 {
        1.0 - lower_series(a, x)
    } else {
        upper_fraction(a, x)
    }
}

fn lower_series(a: f64, x: f64) -> f64 {
    let mut sum = 1.0 / a;
    let mut term = sum;
    let mut n = a;
    for _ in 0..1000 {
        n += 1.0;
        term *= x / n;
        sum += term;
        if term.abs() < sum.abs() * 1e-15 {
            break;
        }
    }
    (sum.ln() - x + a * x.ln() - ln_gamma(a)).exp()
}

fn upper_fraction(a: f64, x: f64) -> f64 {
    let tiny = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / tiny;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..1000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < tiny {
            d = tiny;
        }
        c = b + an / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    (-x + a * x.ln() - ln_gamma(a)).exp() * h
}

/// ln Γ(z) for z > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(z: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if z < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * z).sin()).ln() - ln_gamma(1.0 - z);
    }
    let z = z - 1.0;
    let mut x = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        x += g / (z + i as f64);
    }
    let t = z + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (z + 0.5) * t.ln() - t + x.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_p_matches_published_critical_values() {
        // Upper 5% and 1% points of the chi-square distribution (standard tables).
        for (x, df, p) in [
            (3.841, 1, 0.05),
            (11.070, 5, 0.05),
            (15.086, 5, 0.01),
            (30.144, 19, 0.05),
            (36.191, 19, 0.01),
            (18.307, 10, 0.05),
        ] {
            let got = chi_square_p(x, df);
            assert!((got - p).abs() < 2e-4, "df {df}, x {x}: {got} not {p}");
        }
        assert!((chi_square_p(2.0, 2) - (-1.0f64).exp()).abs() < 1e-12);
        assert_eq!(chi_square_p(0.0, 5), 1.0);
    }

    #[test]
    fn chi_square_of_fair_and_loaded_counts() {
        let fair = chi_square(&[10, 10, 10, 10, 10, 10], &[10.0; 6]);
        assert_eq!(fair, 0.0);
        let loaded = chi_square(&[0, 0, 0, 0, 0, 60], &[10.0; 6]);
        assert!((loaded - 300.0).abs() < 1e-9);
        assert!(chi_square_p(loaded, 5) < 1e-50);
    }
}

//! Reference CDFs and test statistics for the random tests (host code, float64).

pub fn ks(mut x: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    x.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = x.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &v) in x.iter().enumerate() {
        let f = cdf(v);
        d = d
            .max((f - i as f64 / n).abs())
            .max(((i + 1) as f64 / n - f).abs());
    }
    d
}

pub fn erfc(x: f64) -> f64 {
    // Numerical Recipes' erfcc (Chebyshev fit, |error| < 1.2e-7).
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

pub fn norm_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

pub fn ln_gamma(x: f64) -> f64 {
    // Lanczos (g = 7, n = 9).
    let c = [
        0.999_999_999_999_809_9,
        676.5203681218851,
        -1259.1392167224028,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507343278686905,
        -0.13857109526572012,
        9.984_369_578_019_572e-6,
        1.5056327351493116e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = c[0];
    let t = x + 7.5;
    for (i, &ci) in c.iter().enumerate().skip(1) {
        a += ci / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized lower incomplete gamma P(a, x) (series / continued fraction).
pub fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let lg = ln_gamma(a);
    if x < a + 1.0 {
        let (mut sum, mut del, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        sum * (-x + a * x.ln() - lg).exp()
    } else {
        let mut b = x + 1.0 - a;
        let mut c = 1e300;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < 1e-300 {
                d = 1e-300;
            }
            c = b + an / c;
            if c.abs() < 1e-300 {
                c = 1e-300;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        1.0 - (-x + a * x.ln() - lg).exp() * h
    }
}

/// Wilson-Hilferty's 1 - 10^-4 quantile of chi-square with `k` degrees of freedom.
pub fn chi2_crit(k: f64) -> f64 {
    let z = 3.719;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// Chi-square of integer samples against `pmf` over values `lo..=hi` (bins with expected
/// count below 5 merged into the ends).
pub fn chi2(x: &[i64], lo: i64, hi: i64, pmf: impl Fn(i64) -> f64) -> (f64, f64) {
    let n = x.len() as f64;
    let mut counts = vec![0f64; (hi - lo + 1) as usize];
    for &v in x {
        let k = (v.clamp(lo, hi) - lo) as usize;
        counts[k] += 1.0;
    }
    let mut exp: Vec<f64> = (lo..=hi).map(|k| pmf(k) * n).collect();
    // The end bins take the tails (values outside lo..=hi are clamped into them): the mass
    // outside goes to the nearer end, estimated from the pmf just outside.
    let outside: f64 = 1.0 - (lo..=hi).map(&pmf).sum::<f64>();
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let (left, right) = (finite(pmf(lo - 1)), finite(pmf(hi + 1)));
    let last = exp.len() - 1;
    if left + right > 0.0 {
        exp[0] += outside.max(0.0) * n * left / (left + right);
        exp[last] += outside.max(0.0) * n * right / (left + right);
    } else {
        exp[last] += outside.max(0.0) * n;
    }
    let (mut stat, mut dof) = (0.0, -1.0);
    let (mut oc, mut ec) = (0.0, 0.0);
    for (o, e) in counts.iter().zip(&exp) {
        oc += o;
        ec += e;
        if ec >= 5.0 {
            stat += (oc - ec) * (oc - ec) / ec;
            dof += 1.0;
            oc = 0.0;
            ec = 0.0;
        }
    }
    if ec > 0.0 {
        stat += (oc - ec) * (oc - ec) / ec;
    }
    (stat, dof)
}

pub fn ln_choose(n: f64, k: f64) -> f64 {
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
}

//! The samplers' distributions at fixed seeds: Kolmogorov-Smirnov for the continuous ones,
//! moments, chi-square for the discrete ones (thresholds in the parent module's docs).

use super::*;

#[test]
fn continuous_distributions_pass_kolmogorov_smirnov() {
    let n = 1usize << 16;
    let crit = 1.95 / (n as f64).sqrt();
    type Case = (&'static str, Sampler, Box<dyn Fn(f64) -> f64>);
    let cases: Vec<Case> = vec![
        (
            "random",
            |g, t| g.random_with(&[1 << 16], t),
            Box::new(|x: f64| x.clamp(0.0, 1.0)),
        ),
        (
            "uniform",
            |g, t| g.uniform(-2.0, 5.0, &[1 << 16], t),
            Box::new(|x: f64| ((x + 2.0) / 7.0).clamp(0.0, 1.0)),
        ),
        (
            "standard_normal",
            |g, t| g.standard_normal_with(&[1 << 16], t),
            Box::new(norm_cdf),
        ),
        (
            "normal",
            |g, t| g.normal(1.0, 3.0, &[1 << 16], t),
            Box::new(|x: f64| norm_cdf((x - 1.0) / 3.0)),
        ),
        (
            "lognormal",
            |g, t| g.lognormal(0.5, 0.7, &[1 << 16], t),
            Box::new(|x: f64| {
                if x <= 0.0 {
                    0.0
                } else {
                    norm_cdf((x.ln() - 0.5) / 0.7)
                }
            }),
        ),
        (
            "standard_exponential",
            |g, t| g.standard_exponential_with(&[1 << 16], t),
            Box::new(|x: f64| 1.0 - (-x.max(0.0)).exp()),
        ),
        (
            "exponential",
            |g, t| g.exponential(2.0, &[1 << 16], t),
            Box::new(|x: f64| 1.0 - (-x.max(0.0) / 2.0).exp()),
        ),
        (
            "laplace",
            |g, t| g.laplace(0.0, 1.5, &[1 << 16], t),
            Box::new(|x: f64| {
                if x < 0.0 {
                    0.5 * (x / 1.5).exp()
                } else {
                    1.0 - 0.5 * (-x / 1.5).exp()
                }
            }),
        ),
        (
            "logistic",
            |g, t| g.logistic(1.0, 2.0, &[1 << 16], t),
            Box::new(|x: f64| 1.0 / (1.0 + (-(x - 1.0) / 2.0).exp())),
        ),
        (
            "gumbel",
            |g, t| g.gumbel(0.0, 1.0, &[1 << 16], t),
            Box::new(|x: f64| (-(-x).exp()).exp()),
        ),
        (
            "weibull",
            |g, t| g.weibull(1.7, &[1 << 16], t),
            Box::new(|x: f64| 1.0 - (-x.max(0.0).powf(1.7)).exp()),
        ),
        (
            "pareto",
            |g, t| g.pareto(3.0, &[1 << 16], t),
            Box::new(|x: f64| 1.0 - (1.0 + x.max(0.0)).powf(-3.0)),
        ),
        (
            "standard_gamma 0.4",
            |g, t| g.standard_gamma(0.4, &[1 << 16], t),
            Box::new(|x: f64| gamma_p(0.4, x)),
        ),
        (
            "gamma 3.5",
            |g, t| g.gamma(3.5, 2.0, &[1 << 16], t),
            Box::new(|x: f64| gamma_p(3.5, x / 2.0)),
        ),
        (
            "chisquare 5",
            |g, t| g.chisquare(5.0, &[1 << 16], t),
            Box::new(|x: f64| gamma_p(2.5, x / 2.0)),
        ),
    ];
    on_first(|| {
        for (name, f, cdf) in &cases {
            for t in [DType::Float32, DType::Float64] {
                let mut g = default_rng(12345);
                let x = floats(f(&mut g, t).unwrap());
                assert_eq!(x.len(), n);
                let d = ks(x, cdf);
                assert!(d < crit, "{name} {t}: KS D = {d:.5} >= {crit:.5}");
            }
        }
    });
}

#[test]
fn beta_moments() {
    on_first(|| {
        let mut g = default_rng(5);
        let x = floats(g.beta(2.0, 5.0, &[1 << 16], DType::Float64).unwrap());
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let (mu, var) = (2.0 / 7.0, 10.0 / (49.0 * 8.0));
        assert!(
            (m - mu).abs() < 5.0 * (var / n).sqrt(),
            "beta mean {m} vs {mu}"
        );
        let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
        assert!((v - var).abs() < 0.05 * var, "beta var {v} vs {var}");
        assert!(x.iter().all(|&v| (0.0..=1.0).contains(&v)));
    });
}

#[test]
fn discrete_distributions_pass_chi_square() {
    on_first(|| {
        let n = 1usize << 16;
        let mut g = default_rng(99);
        let ints = |a: Array| a.to_vec::<i64>().unwrap();
        type Check = (&'static str, Vec<i64>, i64, i64, Box<dyn Fn(i64) -> f64>);
        let checks: Vec<Check> = vec![
            (
                "integers 0..10",
                ints(g.integers(0, 10, &[n]).unwrap()),
                0,
                9,
                Box::new(|_| 0.1),
            ),
            (
                "integers -3..=3",
                ints(
                    g.integers_with(
                        -3,
                        3,
                        &[n],
                        Integers {
                            endpoint: true,
                            ..Default::default()
                        },
                    )
                    .unwrap(),
                ),
                -3,
                3,
                Box::new(|_| 1.0 / 7.0),
            ),
            (
                "poisson 3.5",
                ints(g.poisson(3.5, &[n]).unwrap()),
                0,
                20,
                Box::new(|k| (k as f64 * 3.5f64.ln() - 3.5 - ln_gamma(k as f64 + 1.0)).exp()),
            ),
            (
                "poisson 250",
                ints(g.poisson(250.0, &[n]).unwrap()),
                180,
                320,
                Box::new(|k| (k as f64 * 250f64.ln() - 250.0 - ln_gamma(k as f64 + 1.0)).exp()),
            ),
            (
                "binomial 20 0.3",
                ints(g.binomial(20, 0.3, &[n]).unwrap()),
                0,
                20,
                Box::new(|k| {
                    (ln_choose(20.0, k as f64)
                        + k as f64 * 0.3f64.ln()
                        + (20 - k) as f64 * 0.7f64.ln())
                    .exp()
                }),
            ),
            (
                "binomial 1000 0.7",
                ints(g.binomial(1000, 0.7, &[n]).unwrap()),
                630,
                770,
                Box::new(|k| {
                    (ln_choose(1000.0, k as f64)
                        + k as f64 * 0.7f64.ln()
                        + (1000 - k) as f64 * 0.3f64.ln())
                    .exp()
                }),
            ),
            (
                "geometric 0.2",
                ints(g.geometric(0.2, &[n]).unwrap()),
                1,
                40,
                Box::new(|k| {
                    if k < 1 {
                        0.0
                    } else {
                        0.8f64.powi(k as i32 - 1) * 0.2
                    }
                }),
            ),
        ];
        for (name, x, lo, hi, pmf) in checks {
            let (stat, dof) = chi2(&x, lo, hi, &pmf);
            let crit = chi2_crit(dof);
            assert!(
                stat < crit,
                "{name}: chi2 {stat:.1} >= {crit:.1} ({dof} dof)"
            );
        }
    });
}

/// `beta` with shapes below 1 (review of 2026-12-08): `u^(1/a)` underflowed to 0 in both
/// gammas, so `0 / 0` gave NaN for 24% of `beta(0.001, 0.001)` and 17% of float32 `beta(0.01,
/// 0.01)` draws (NumPy never gives NaN there). The moments are Beta's, on every backend.
#[test]
fn beta_with_small_shapes_gives_no_nan() {
    let cases = [
        (1e-3, 1e-3, DType::Float64),
        (1e-2, 1e-2, DType::Float32),
        (0.3, 2.0, DType::Float64),
        (2.0, 0.3, DType::Float32),
        (1e-300, 1e-300, DType::Float32),
    ];
    for dev in common::backends() {
        with_device(&dev, || {
            for (a, b, t) in cases {
                let x = floats(default_rng(1).beta(a, b, &[1 << 16], t).unwrap());
                assert!(
                    x.iter().all(|v| (0.0..=1.0).contains(v)),
                    "{} beta({a}, {b}) {t}: a value outside [0, 1] (NaN?)",
                    dev.label()
                );
                let n = x.len() as f64;
                let mean = x.iter().sum::<f64>() / n;
                let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
                let m = a / (a + b);
                let v = m * (1.0 - m) / (a + b + 1.0);
                // 5 standard errors of the mean
                assert!(
                    (mean - m).abs() < 5.0 * (v / n).sqrt(),
                    "{} beta({a}, {b}) {t}: mean {mean} against {m}",
                    dev.label()
                );
                assert!(
                    (var - v).abs() < 0.05 * v + 1e-12,
                    "{} beta({a}, {b}) {t}: var {var} against {v}",
                    dev.label()
                );
            }
        });
    }
}

/// `multinomial` takes NumPy's `pvals`: the last entry is the remainder, so only the others
/// must sum to at most 1 (`[0.5, 0.5, 0.5]` draws nothing from the last category; it was
/// refused), each entry in `[0, 1]`.
#[test]
fn multinomial_ignores_the_last_pval() {
    for dev in common::backends() {
        with_device(&dev, || {
            let mut g = default_rng(5);
            let x = g.multinomial(10, &[0.5, 0.5, 0.5], &[50]).unwrap();
            let v = x.to_vec::<i64>().unwrap();
            assert!(v.chunks(3).all(|r| r[2] == 0 && r[0] + r[1] == 10), "{v:?}");
            let e = g.multinomial(10, &[0.6, 0.6, 0.1], &[2]).unwrap_err();
            assert!(e.to_string().contains("pvals[:-1]"), "{e}");
            assert!(g.multinomial(10, &[0.5, 1.5], &[2]).is_err());
            assert!(g.multinomial(10, &[0.5, -0.5], &[2]).is_err());
            assert!(g.multinomial(10, &[0.5, f64::NAN], &[2]).is_err());
        });
    }
}

#[test]
fn float32_uniform_refuses_a_range_past_float32() {
    // float32 samples compute low + (high - low) u in float32: a range finite in float64 but not
    // in float32 gave every sample inf (found by the review of 2026-12-07).
    for dev in common::backends() {
        with_device(&dev, || {
            let mut g = default_rng(1);
            let e = g
                .uniform(-1e38, 3e38, &[3], cupy::DType::Float32)
                .unwrap_err();
            assert!(e.to_string().contains("float32"), "{dev}: {e}");
            let v = g
                .uniform(-1e38, 2e38, &[64], cupy::DType::Float32)
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            assert!(
                v.iter().all(|x| x.is_finite() && (-1e38..2e38).contains(x)),
                "{dev}: {v:?}"
            );
            assert!(g.uniform(-1e38, 3e38, &[3], cupy::DType::Float64).is_ok());
        });
    }
}

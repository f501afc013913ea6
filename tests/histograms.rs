//! Histograms, `bincount` and the correlations against NumPy goldens (group `histograms`).

use crate::common::{self, dtype_of, Golden, Operand, Tol};
use cupy::{Array, Bincount, Bins, Corrcoef, Cov, Device, Error, Histogram, Histogram2d, Result};
use serde_json::Value;

fn flag(k: &Value, name: &str) -> bool {
    k[name].as_bool() == Some(true)
}

fn pair(v: &Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// The next operand when the case has `weights`.
fn weights(k: &Value, rest: &mut impl Iterator<Item = Array>) -> Option<Array> {
    if flag(k, "weights") {
        rest.next()
    } else {
        None
    }
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let a = ops[0].array();
    let mut rest = ops[1..].iter().map(|o| o.array().clone());
    let out = k["out_index"].as_u64().unwrap_or(0) as usize;
    match case["op"].as_str().unwrap() {
        "histogram" => {
            let bins = if flag(k, "edges") {
                Bins::Edges(rest.next().unwrap())
            } else if let Some(name) = k["bins"].as_str() {
                Bins::Estimator(cupy::BinEstimator::from_name(name).expect("an estimator"))
            } else {
                Bins::Count(k["bins"].as_u64().unwrap_or(10) as usize)
            };
            let (h, e) = cupy::histogram_with(
                a,
                Histogram {
                    bins,
                    range: k.get("range").map(pair),
                    density: flag(k, "density"),
                    weights: weights(k, &mut rest),
                },
            )?;
            Ok(if out == 0 { h } else { e })
        }
        "histogram2d" => {
            let y = rest.next().unwrap();
            let bins = if flag(k, "edges") {
                [
                    Bins::Edges(rest.next().unwrap()),
                    Bins::Edges(rest.next().unwrap()),
                ]
            } else {
                let b = |i: usize| Bins::Count(k["bins"][i].as_u64().unwrap_or(10) as usize);
                [b(0), b(1)]
            };
            let (h, xe, ye) = cupy::histogram2d_with(
                a,
                &y,
                Histogram2d {
                    bins,
                    range: k.get("range").map(|r| [pair(&r[0]), pair(&r[1])]),
                    density: flag(k, "density"),
                    weights: weights(k, &mut rest),
                },
            )?;
            Ok([h, xe, ye].into_iter().nth(out).unwrap())
        }
        "histogramdd" => {
            let d = a.shape()[1];
            let bins = match k.get("bins") {
                Some(b) => (0..d)
                    .map(|i| Bins::Count(b[i].as_u64().unwrap() as usize))
                    .collect(),
                None => vec![Bins::Count(10)],
            };
            let (h, edges) = cupy::histogramdd_with(
                a,
                cupy::HistogramDd {
                    bins,
                    range: k
                        .get("range")
                        .map(|r| r.as_array().unwrap().iter().map(pair).collect()),
                    density: flag(k, "density"),
                    weights: weights(k, &mut rest),
                },
            )?;
            Ok(if out == 0 { h } else { edges[out - 1].clone() })
        }
        "bincount" => cupy::bincount_with(
            a,
            Bincount {
                weights: weights(k, &mut rest),
                minlength: k["minlength"].as_u64().unwrap_or(0) as usize,
            },
        ),
        "cov" => cupy::cov_with(
            a,
            Cov {
                y: if flag(k, "y") { rest.next() } else { None },
                rowvar: k["rowvar"].as_bool().unwrap_or(true),
                bias: flag(k, "bias"),
                ddof: k["ddof"].as_i64(),
                fweights: if flag(k, "fweights") {
                    rest.next()
                } else {
                    None
                },
                aweights: if flag(k, "aweights") {
                    rest.next()
                } else {
                    None
                },
                dtype: k.get("dtype").map(dtype_of),
            },
        ),
        "corrcoef" => cupy::corrcoef_with(
            a,
            Corrcoef {
                y: if flag(k, "y") { rest.next() } else { None },
                rowvar: k["rowvar"].as_bool().unwrap_or(true),
                dtype: None,
            },
        ),
        op => panic!("histograms op {op}"),
    }
}

#[test]
fn histograms_match_numpy() {
    common::run_group(
        "histograms",
        exec,
        |g, case, _| {
            if case.get("scale").is_some() || case.get("scale_max").is_some() {
                return common::scaled_tol(g, case);
            }
            match case["op"].as_str().unwrap() {
                // edges: the host linspace, rounded as NumPy's
                "histogram" | "histogram2d" => Tol::Ulps(1),
                _ => Tol::EXACT,
            }
        },
        |case, e| match case["error"].as_str().unwrap_or("") {
            "ValueError" => matches!(e, Error::InvalidArgument { .. }),
            _ => common::generic_error_match(case, e),
        },
    );
}

/// A bin count whose edges cannot be held is an `Err` (the review of 2026-12-07: `1 << 40` bins
/// aborted the process when the host edge vector failed to allocate, `usize::MAX` overflowed
/// `bins + 1`, and `usize::MAX / 2` panicked with a capacity overflow).
#[test]
fn absurd_bin_counts_are_errors() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[1.0f64, 2.0], &[2]).unwrap();
        for bins in [usize::MAX, usize::MAX / 2, 1 << 40] {
            let e = cupy::histogram_with(&a, bins).unwrap_err();
            assert!(e.to_string().contains("histogram"), "{dev:?} {bins}: {e}");
            let h2 = Histogram2d {
                bins: [Bins::Count(bins), Bins::Count(2)],
                ..Default::default()
            };
            assert!(
                cupy::histogram2d_with(&a, &a, h2).is_err(),
                "{dev:?} {bins}"
            );
        }
        assert_eq!(a.to_vec::<f64>().unwrap(), [1.0, 2.0]);
    }
}

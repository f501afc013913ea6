//! `cupyx.scipy.special` against SciPy 1.17.1 goldens (`tests/golden/gen/special.py`): the
//! convenience and information-theory ufuncs and the error-function and gamma families over
//! their special points, SciPy's loop dtypes for every input class, views and broadcasting;
//! `logsumexp`, `softmax` and `log_softmax`. The basic functions (`cbrt` ... `round`), the
//! Box-Cox transforms and the beta family likewise.
//!
//! Tolerances: the ufuncs within 4 ulps of SciPy in float64 and 8 in float32 (computed in
//! float32 here, in float64 and rounded by SciPy for most of them); `round` bit-exact; float64
//! `beta`, `betaln` and the Box-Cox transforms scaled per element (see `tol`); the softmax
//! family within 16 ulps (float32: 64) or `40 eps` absolutely (the log of a sum of up to 20
//! terms near 1, summed in another order than NumPy's).

use crate::common::{self, dtype_of, Golden, Operand, Tol};
use cupy::scipy::special;
use cupy::{Array, DType, Device, Error, Result};
use serde_json::Value;

fn axes(v: &Value) -> cupy::Axes {
    match v {
        Value::Null => cupy::Axes::All,
        Value::Array(a) => {
            cupy::Axes::Some(a.iter().map(|x| x.as_i64().unwrap() as isize).collect())
        }
        x => cupy::Axes::Some(vec![x.as_i64().unwrap() as isize]),
    }
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let op = case["op"].as_str().unwrap();
    match op {
        "softmax" => special::softmax(ops[0].array(), axes(&k["axis"])),
        "log_softmax" => special::log_softmax(ops[0].array(), axes(&k["axis"])),
        "logsumexp" => {
            let o = special::LogSumExp {
                axis: axes(&k["axis"]),
                b: ops.get(1).map(|b| b.array().clone()),
                keepdims: k["keepdims"].as_bool().unwrap_or(false),
                return_sign: k["return_sign"].as_bool().unwrap_or(false),
            };
            let (r, sign) = special::logsumexp_with(ops[0].array(), o)?;
            match k["piece"].as_u64() {
                Some(1) => Ok(sign.expect("a sign")),
                _ => Ok(r),
            }
        }
        name => {
            let u = special::ufunc(name).unwrap_or_else(|| panic!("no special ufunc {name}"));
            let args: Vec<cupy::Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
            cupy::apply(u, &args, None)
        }
    }
}

fn tol(g: &Golden, case: &Value) -> Tol {
    let f32 = dtype_of(&case["dtype"]) == DType::Float32;
    if case.get("scale").is_some() {
        // float64 beta/betaln and the Box-Cox transforms: |d| <= 2 n eps scale + 1 ulp, the
        // scale per element from the generator (special.py's beta_scale, boxcox_scale): the
        // terms that cancel (lgam past MAXGAM) or the factor that amplifies a rounding (an
        // exp or expm1 of a log or log1p quotient). Measured on cpu and wgpu llvmpipe: beta
        // n = 1.47 (gamma-ratio path, three gammas; the case allows 4), betaln 0.89, the
        // transforms 0.46 (the cases allow 1).
        return common::scaled_tol(g, case);
    }
    match case["op"].as_str().unwrap() {
        // Exact in any float dtype (floor and one comparison), the sign of zero included.
        "round" => Tol::EXACT,
        // Sums of up to 20 terms: the log of a sum near 1 is off by ~ n eps absolutely.
        "softmax" | "log_softmax" | "logsumexp" => {
            let eps = if f32 {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
            Tol::UlpsOrAbs(if f32 { 64 } else { 16 }, 40.0 * eps)
        }
        // erfcx: Cephes' P/Q and R/S (erfc(x) exp(x^2)) against SciPy's Faddeeva Chebyshev
        // fits, and exp(x^2)(1 - erf(x)) below 1 (cancellation near 1). Measured: 7 ulps on the
        // golden points (cpu and wgpu), up to 14 in a 600,000-point NumPy model of [0.5, 1).
        "erfcx" if !f32 => Tol::Ulps(16),
        // log|gamma| near its zeros at 1 and 2: log(1/x) and the rational term cancel (measured
        // 8 ulps, 0.5 eps absolutely, at x = 1.68 on cpu and wgpu); computed in float64 for
        // float32, as SciPy, so float32 keeps the default.
        "gammaln" | "loggamma" if !f32 => Tol::UlpsOrAbs(4, f64::EPSILON),
        // digamma near its zeros: the reflection -pi / tan(pi x) cancels against psi(1 - x)
        // (measured 512 ulps, 2 eps absolutely, at x = -22.75), and SciPy's Taylor series
        // about the negative root -0.504 is not here (measured 8 ulps, 16 eps absolutely, at
        // x = -0.25); cpu and wgpu alike.
        "digamma" | "psi" if !f32 => Tol::UlpsOrAbs(4, 16.0 * f64::EPSILON),
        // Bessel J and Y: Cephes' algorithms as SciPy's, but exp, log, sin and cos are ours
        // (within an ulp, not glibc's bits); near a zero the result is a cancellation (Cephes'
        // accuracy is absolute there), so those differences become large relative ones.
        // Measured on the goldens: at most 3 ulps away from the zeros, 0.07 eps absolutely
        // near them; in a 240,000-point random sample of [-10, 1e8], 5 ulps (j1 at 7.02 on wgpu) and
        // 0.75 eps absolutely (y1 at 2.20); cpu and wgpu alike. float32 is computed in float64.
        "j0" | "j1" | "y0" | "y1" if !f32 => Tol::UlpsOrAbs(4, f64::EPSILON),
        // K0 on (0, 2]: Cephes' series minus log(x/2) I0(x), terms up to 3.5 times the result,
        // so the ulp differences of log and exp grow. Measured on the goldens: 4 ulps (cpu), 6
        // (wgpu); in the 240,000-point sample 7 (cpu) and 10 (wgpu, k0e at 1.478).
        "k0" | "k0e" if !f32 => Tol::Ulps(16),
        // betaln's unscaled cases (views, integer and float16 inputs): the log of a gamma
        // ratio near 1 is off absolutely (measured 4 ulps, 0.9 eps, at betaln(8.33, 0.5)).
        "betaln" if !f32 => Tol::UlpsOrAbs(4, 2.0 * f64::EPSILON),
        _ => Tol::Ulps(if f32 { 8 } else { 4 }),
    }
}

fn expect_err(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap() {
        "ValueError" => matches!(e, Error::InvalidArgument { .. }),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn special_functions_match_scipy() {
    common::run_group("special", exec, |g, case, _| tol(g, case), expect_err);
}

/// The free functions are the ufunc objects, and `fuse` takes them.
#[test]
fn special_functions_and_their_ufuncs_agree() {
    let mut t = common::Tally::new("special_functions");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let x = Array::from_slice_on(&dev, &[-2.0f64, -0.5, 0.0, 0.5, 3.0], &[5])?;
            let f = special::expit(&x)?;
            let u = cupy::apply(&special::ufuncs::expit, &[cupy::Arg::Array(&x)], None)?;
            if f.to_bytes()? != u.to_bytes()? || f.dtype() != DType::Float64 {
                return Err("expit: the function differs from its ufunc"
                    .to_string()
                    .into());
            }
            // expit(0) is exactly 1/2; logit(1/2) exactly 0.
            let v = f.to_vec::<f64>()?;
            if v[2] != 0.5 || special::logit(&f)?.to_vec::<f64>()?[2] != 0.0 {
                return Err(format!("expit/logit at 0: {v:?}").into());
            }
            let k = cupy::fuse(|a: cupy::Sym| a.expit().xlogy(2.0));
            let fused = k.call(&[cupy::Arg::Array(&x)])?;
            let direct = special::xlogy(&f, 2.0)?;
            let (p, q) = (fused.to_vec::<f64>()?, direct.to_vec::<f64>()?);
            for (a, b) in p.iter().zip(&q) {
                if (a - b).abs() > 4.0 * f64::EPSILON * b.abs() {
                    return Err(format!("fused expit/xlogy {p:?} against {q:?}").into());
                }
            }
            Ok(())
        })();
        t.check(&dev, "expit_logit_fuse", r);
    }
    t.finish();
}

/// A `b` that does not broadcast with `a` is refused naming logsumexp (it was multiply's
/// error), before anything runs.
#[test]
fn logsumexp_refuses_a_b_of_another_shape_naming_it() {
    let mut t = common::Tally::new("special_errors");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
            let b = Array::from_slice_on(&dev, &[1.0f64, 2.0], &[2])?;
            let o = special::LogSumExp {
                axis: 1.into(),
                b: Some(b),
                ..Default::default()
            };
            match special::logsumexp_with(&a, o) {
                Err(Error::ShapeMismatch { op, .. }) if op == "logsumexp" => Ok(()),
                other => Err(format!("logsumexp with b of shape [2]: {other:?}").into()),
            }
        })();
        t.check(&dev, "logsumexp_b_shape", r);
    }
    t.finish();
}

//! complex64/complex128 against NumPy goldens (the `complex` group): arithmetic and comparisons
//! (every pair of values with signed zeros, NaN and infinite parts, all view recipes), the math
//! functions with C99 special values, casts to and from real dtypes, weak scalars and
//! promotion, sum/prod/mean over axes, matmul (2-D, transposed, batched, mixed dtypes), and
//! the ops NumPy has no complex loop for (TypeError). On wgpu the complex128 functions run on the
//! emitter's software float64 library; everything passes there.
//!
//! Tolerances: `+ - *` (NumPy's fused multiply), `/` (Smith's method), `**` with small integer
//! exponents, comparisons, maximum/minimum, predicates and casts are bit-exact on cpu, CUDA and
//! HIP (the same algorithms as NumPy's loops). `absolute sqrt exp log sin cos tan tanh` and
//! `power` with other exponents call the math library: [`Tol::Complex`] with 8 ulps on the cpu
//! backend (measured within 5 of NumPy: Kahan's tan/tanh formula over glibc's real functions)
//! and 16 on CUDA/HIP, whose device libraries round the real functions less tightly (tanf,
//! sinhf up to 4 ulps). wgpu (complex64: the WGSL emitter's software float32 functions) is held
//! to the cpu's 8 and passes on llvmpipe.
//! Reductions and matmul: the summation-order bound ([`Tol::Scaled`]).

use crate::common::{self, axes, Golden, Operand, Tol};
use cupy::{Array, BackendKind, DType, Device, Error, Result};
use serde_json::Value;

fn exec(g: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let op = case["op"].as_str().unwrap();
    let k = &case["kwargs"];
    if let Some(r) = cupy::reduction(op) {
        return cupy::reduce(
            r,
            ops[0].array(),
            &cupy::Reduce {
                axis: axes(&k["axis"]),
                keepdims: k["keepdims"].as_bool().unwrap(),
                ..Default::default()
            },
        );
    }
    match op {
        "astype" => ops[0].array().astype(common::dtype_of(&k["dtype"])),
        "matmul" => cupy::matmul(ops[0].array(), ops[1].array()),
        _ => crate::ufuncs::exec(g, case, ops, dev),
    }
}

fn tol(g: &Golden, case: &Value, dev: &Device) -> Tol {
    let gpu = matches!(dev.kind(), BackendKind::Cuda | BackendKind::Hip);
    match case["op"].as_str().unwrap() {
        "sum" | "prod" | "mean" | "matmul" => common::scaled_tol(g, case),
        "absolute" | "sqrt" | "exp" | "log" | "sin" | "cos" | "tan" | "tanh" | "power" => {
            Tol::Complex(if gpu { 16 } else { 8 })
        }
        _ => Tol::EXACT,
    }
}

#[test]
fn complex_matches_numpy() {
    common::run_group("complex", exec, tol, common::generic_error_match);
}

/// max/min/ptp of complex arrays order lexicographically (real part, then imaginary part), as
/// NumPy's.
#[test]
fn complex_max_min_lexicographic() {
    use cupy::num_complex::Complex;
    let mut t = common::Tally::new("complex_max_min");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let v = [
                Complex::new(1.0f32, 2.0),
                Complex::new(1.0, 3.0),
                Complex::new(-2.0, 9.0),
                Complex::new(1.0, -5.0),
            ];
            let a = match Array::from_slice_on(&dev, &v, &[4]) {
                Ok(a) => a,
                Err(e @ Error::DTypeNotSupported { .. }) => return Err(e.into()),
                Err(e) => return Err(format!("upload: {e}").into()),
            };
            // NumPy orders complex lexicographically: max 1+3j, min -2+9j, ptp 3-6j
            let one = |x: Array| x.to_vec::<Complex<f32>>().map(|v| v[0]);
            let (mx, mn, p) = (one(a.max()?)?, one(a.min()?)?, one(a.ptp()?)?);
            if mx != v[1] || mn != v[2] || p != Complex::new(3.0, -6.0) {
                return Err(format!("max {mx}, min {mn}, ptp {p}").into());
            }
            // The ufunc maximum is defined (NumPy's lexicographic rule).
            let m = cupy::apply(&cupy::ufuncs::maximum, &[(&a).into(), (&a).into()], None)?;
            if m.dtype() != DType::Complex64 {
                return Err(format!("maximum dtype {}", m.dtype()).into());
            }
            Ok(())
        })();
        t.check(&dev, "max/min", r);
    }
    t.finish();
}

/// `absolute` of complex values with huge, tiny and subnormal parts never overflows or
/// underflows where the result is finite (a scaled hypot; CUDA's `hypot` gave `inf` for
/// `|1 + 1.797e308j|`), and an infinite part beats a NaN one. NumPy 2.4 values, within 1 ulp.
#[test]
fn complex_abs_extreme_parts() {
    use cupy::num_complex::Complex;
    let z64 = [
        (1.0, 1.797e308),
        (1.797e308, 1.0),
        (3e-320, 4e-320),
        (1e-310, 1e-310),
        (f64::INFINITY, f64::NAN),
        (f64::NAN, f64::INFINITY),
        (f64::NAN, 1.0),
        (1e300, 1e300),
        (1.2e308, 1.2e308),
        (-3.0, -4.0),
        (1.7e308, 1.7e308),
    ];
    let want64 = [
        1.797e308,
        1.797e308,
        5e-320,
        1.4142135623731e-310,
        f64::INFINITY,
        f64::INFINITY,
        f64::NAN,
        1.4142135623730952e300,
        1.697056274847714e308,
        5.0,
        f64::INFINITY,
    ];
    let z32 = [
        (1.0f32, 3.4e38f32),
        (1e-45, 0.0),
        (1e-40, 1e-40),
        (3e38, 3e38),
        (1e30, 1e30),
        (3.0, 4.0),
        (2e19, 2e19),
        (1e-25, 1e-25),
    ];
    let want32 = [
        3.4e38f32,
        1e-45,
        1.4142e-40,
        f32::INFINITY,
        1.4142135e30,
        5.0,
        2.828427e19,
        1.4142136e-25,
    ];
    let mut t = common::Tally::new("complex_abs_extreme");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let v: Vec<Complex<f64>> = z64.iter().map(|&(a, b)| Complex::new(a, b)).collect();
            let a = Array::from_slice_on(&dev, &v, &[v.len()])?;
            let got = cupy::apply(&cupy::ufuncs::absolute, &[(&a).into()], None)?;
            if got.dtype() != DType::Float64 {
                return Err(format!("complex128 abs dtype {}", got.dtype()).into());
            }
            for (k, (g, w)) in got.to_vec::<f64>()?.iter().zip(want64).enumerate() {
                let ok = if w.is_nan() {
                    g.is_nan()
                } else {
                    g.to_bits().abs_diff(w.to_bits()) <= 1
                };
                if !ok {
                    return Err(format!("|{:?}| = {g:e}, want {w:e}", z64[k]).into());
                }
            }
            let v: Vec<Complex<f32>> = z32.iter().map(|&(a, b)| Complex::new(a, b)).collect();
            let a = Array::from_slice_on(&dev, &v, &[v.len()])?;
            let got = cupy::apply(&cupy::ufuncs::absolute, &[(&a).into()], None)?;
            // A device that flushes float32 subnormals (NVIDIA's Vulkan driver) cannot return
            // the subnormal results; those cases are skipped there (docs/differences.md).
            let flush = common::flushes_f32_subnormals(&dev);
            for (k, (g, w)) in got.to_vec::<f32>()?.iter().zip(want32).enumerate() {
                if flush && w != 0.0 && w.abs() < f32::MIN_POSITIVE {
                    continue;
                }
                if g.to_bits().abs_diff(w.to_bits()) > 1 {
                    return Err(format!("|{:?}| = {g:e}, want {w:e}", z32[k]).into());
                }
            }
            Ok(())
        })();
        t.check(&dev, "abs", r);
    }
    t.finish();
}

//! complex64/complex128 against NumPy goldens (the `complex` group): arithmetic and comparisons
//! (every pair of values with signed zeros, NaN and infinite parts, all view recipes), the math
//! functions with C99 special values, casts to and from real dtypes, weak scalars and
//! promotion, sum/prod/mean over axes, matmul (2-D, transposed, batched, mixed dtypes), and
//! the ops NumPy has no complex loop for (TypeError). wgpu refuses complex (a skip).
//!
//! Tolerances: `+ - *` (NumPy's fused multiply), `/` (Smith's method), `**` with small integer
//! exponents, comparisons, maximum/minimum, predicates and casts are bit-exact on cpu, CUDA and
//! HIP (the same algorithms as NumPy's loops). `absolute sqrt exp log sin cos tan tanh` and
//! `power` with other exponents call the math library: [`Tol::Complex`] with 8 ulps on the cpu
//! backend (measured within 5 of NumPy: Kahan's tan/tanh formula over glibc's real functions)
//! and 16 on CUDA/HIP, whose device libraries round the real functions less tightly (tanf,
//! sinhf up to 4 ulps).
//! Reductions and matmul: the summation-order bound ([`Tol::Scaled`]).

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Axes, BackendKind, DType, Device, Error, Reduction, Result};
use serde_json::Value;

fn axes(v: &Value) -> Axes {
    match v {
        Value::Null => Axes::All,
        Value::Number(n) => Axes::Some(vec![n.as_i64().unwrap() as isize]),
        Value::Array(a) => Axes::Some(a.iter().map(|x| x.as_i64().unwrap() as isize).collect()),
        other => panic!("axis {other}"),
    }
}

fn exec(g: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let op = case["op"].as_str().unwrap();
    let k = &case["kwargs"];
    if let Some(r) = Reduction::ALL.into_iter().find(|r| r.name() == op) {
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

/// max/min of complex arrays (NumPy orders lexicographically) are refused on every backend
/// with a TypeError naming the reduction (docs/differences.md).
#[test]
fn complex_max_min_refused() {
    let mut t = common::Tally::new("complex_max_min");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = match Array::zeros_on(&dev, &[3], DType::Complex64) {
                Ok(a) => a,
                Err(e @ Error::DTypeNotSupported { .. }) => return Err(e.into()),
                Err(e) => return Err(format!("zeros: {e}").into()),
            };
            for r in [Reduction::Max, Reduction::Min] {
                match cupy::reduce(r, &a, &Default::default()) {
                    Err(Error::TypeError { .. }) => {}
                    other => {
                        return Err(format!("{}: want TypeError, got {other:?}", r.name()).into())
                    }
                }
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

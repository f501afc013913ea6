//! matmul/dot against NumPy goldens (2-D, transposed and strided operands, 1-D promotion,
//! batched broadcasting, odd sizes, k = 0, mixed dtypes), and the unique outputs of the
//! factorizations (det, slogdet, inv, solve, cholesky, eigvalsh, sorted eigvals, svdvals, pinv,
//! matrix_rank, lstsq) with their errors. Non-unique factors are checked by reconstruction in
//! `linalg_decomp.rs`.

use crate::common::{self, Golden, Operand};
use cupy::linalg as la;
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

/// Eigenvalues in the goldens' order: by (real part to 4 decimals, imaginary part), so the
/// order of a conjugate pair does not hinge on last bits.
fn esort(w: &Array) -> Result<Array> {
    let dev = w.device().clone();
    if !w.dtype().is_complex() {
        return cupy::sort(w);
    }
    let v: Vec<cupy::num_complex::Complex<f64>> = w.astype(cupy::DType::Complex128)?.to_vec()?;
    let mut idx: Vec<usize> = (0..v.len()).collect();
    let key = |c: &cupy::num_complex::Complex<f64>| ((c.re * 1e4).round(), c.im);
    idx.sort_by(|&i, &j| key(&v[i]).partial_cmp(&key(&v[j])).unwrap());
    let sorted: Vec<cupy::num_complex::Complex<f64>> = idx.iter().map(|&i| v[i]).collect();
    Array::from_slice_on(&dev, &sorted, &[sorted.len()])?.astype(w.dtype())
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let a = ops[0].array();
    let b = || ops[1].array();

    match case["op"].as_str().unwrap() {
        "matmul" => cupy::matmul(a, b()),
        "dot" => cupy::dot(a, b()),
        "det" => la::det(a),
        "slogdet_sign" => Ok(la::slogdet(a)?.0),
        "slogdet_logabs" => Ok(la::slogdet(a)?.1),
        "inv" => la::inv(a),
        "solve" => la::solve(a, b()),
        "cholesky" => la::cholesky(a),
        "cholesky_upper" => la::cholesky_with(a, true),
        "eigvalsh" => la::eigvalsh(a),
        "eigvalsh_U" => la::eigvalsh_with(a, "U"),
        "eigvals_sorted" => esort(&la::eigvals(a)?),
        "svdvals" => la::svdvals(a),
        "pinv" => la::pinv(a),
        "matrix_rank" => la::matrix_rank(a),
        "lstsq_x" => Ok(la::lstsq(a, b())?.x),
        "qr_raw_h" => Ok(la::qr_mode(a, "raw")?.remove(0)),
        "qr_raw_tau" => Ok(la::qr_mode(a, "raw")?.remove(1)),
        _ => exec_composed(case, ops),
    }
}

/// A norm order from the goldens' JSON: null, a number, "fro", "nuc", "inf", "-inf".
fn ord(v: &Value) -> Option<la::NormOrd> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(match s.as_str() {
            "fro" => la::NormOrd::Fro,
            "nuc" => la::NormOrd::Nuc,
            "inf" => la::NormOrd::P(f64::INFINITY),
            "-inf" => la::NormOrd::P(f64::NEG_INFINITY),
            o => panic!("ord {o}"),
        }),
        v => Some(la::NormOrd::P(v.as_f64().unwrap())),
    }
}

fn exec_composed(case: &Value, ops: &[Operand]) -> Result<Array> {
    let a = ops[0].array();
    let b = || ops[1].array();
    let kw = &case["kwargs"];
    let axes = || kw.get("axis").map(common::isizes);
    match case["op"].as_str().unwrap() {
        "vdot" => cupy::vdot(a, b()),
        "inner" => cupy::inner(a, b()),
        "outer" => cupy::outer(a, b()),
        "tensordot" => {
            let ax = &kw["axes"];
            if let Some(n) = ax.as_u64() {
                cupy::tensordot(a, b(), n as usize)
            } else {
                let p = cupy::TensorAxes::Pairs(common::isizes(&ax[0]), common::isizes(&ax[1]));
                cupy::tensordot(a, b(), p)
            }
        }
        "kron" => cupy::kron(a, b()),
        "cross" => cupy::cross(a, b()),
        "trace" => cupy::trace(a, kw["offset"].as_i64().unwrap() as isize, 0, 1),
        "matrix_power" => la::matrix_power(a, kw["n"].as_i64().unwrap()),
        "multi_dot" => {
            let v: Vec<&Array> = ops.iter().map(|o| o.array()).collect();
            la::multi_dot(&v)
        }
        "vecdot" => la::vecdot(a, b(), -1),
        "matrix_transpose" => la::matrix_transpose(a),
        "diagonal" => la::diagonal(a, kw["offset"].as_i64().unwrap() as isize),
        "norm" => la::norm_with(
            a,
            la::Norm {
                ord: ord(kw.get("ord").unwrap_or(&Value::Null)),
                axis: axes(),
                keepdims: kw.get("keepdims").and_then(Value::as_bool).unwrap_or(false),
            },
        ),
        "vector_norm" => la::vector_norm(a, axes().as_deref(), false, kw["ord"].as_f64().unwrap()),
        "matrix_norm" => la::matrix_norm(a, false, ord(&kw["ord"]).unwrap()),
        "cond" => la::cond_with(a, ord(kw.get("p").unwrap_or(&Value::Null))),
        "einsum" => {
            let v: Vec<&Array> = ops.iter().map(|o| o.array()).collect();
            cupy::einsum(kw["subscripts"].as_str().unwrap(), &v)
        }
        op => panic!("linalg op {op}"),
    }
}

/// On wgpu with the native factorizations forced on (llvmpipe's default is the host hybrid),
/// checked to have run there.
#[test]
fn linalg_matches_numpy() {
    common::with_native_wgpu_linalg(linalg_matches_numpy_body);
}

fn linalg_matches_numpy_body() {
    common::run_group(
        "linalg",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        |case, e| match case["error"].as_str().unwrap() {
            // NumPy: ValueError "matmul: Input operand 1 has a mismatch in its core dimension";
            // einsum's and cross's argument errors.
            "ValueError" => matches!(
                e,
                Error::ShapeMismatch { .. } | Error::InvalidArgument { .. }
            ),
            // LinAlgError: the same kind, with NumPy's message.
            "LinAlgError" => {
                matches!(e, Error::LinAlgError { reason, .. } if case["message"] == reason.as_str())
            }
            "TypeError" => {
                matches!(e, Error::TypeError { msg, .. } if case["message"] == msg.as_str())
            }
            _ => false,
        },
    );
}

/// The method forms and `@`-style chaining.
#[test]
fn matmul_methods() {
    let mut t = common::Tally::new("matmul_methods");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
            let i = Array::eye_on(&dev, 2, None, 0, cupy::DType::Float32)?;
            let p = a.matmul(&i)?.dot(&a.t())?;
            let got = p.to_vec::<f32>()?;
            if got != vec![5.0, 11.0, 11.0, 25.0] {
                return Err(format!("a @ I @ a.T: {got:?}").into());
            }
            Ok(())
        })();
        t.check(&dev, "methods", r);
    }
    t.finish();
}

/// An output label repeated in the output is einsum's own error, with NumPy's message (the
/// review of 2026-12-07: `i->ii` came back as an error from `transpose`).
#[test]
fn einsum_repeated_output_label_is_named() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[1.0f64, 2.0], &[2]).unwrap();
        let b = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        for (s, ops) in [("i->ii", vec![&a]), ("ij->jij", vec![&b])] {
            let e = cupy::einsum(s, &ops).unwrap_err().to_string();
            assert!(
                e.contains("einsum") && e.contains("multiple times"),
                "{dev:?} {s}: {e}"
            );
        }
    }
}

/// Norms of empty inputs (the review of 2026-12-07): NumPy 2 takes its maxima with
/// `initial=0`, so the inf-norm of an empty vector and the 1-, 2- and inf-norms of a 0x0 matrix
/// are 0; the minima (`-inf`, `-1`, `-2`) stay errors.
#[test]
fn norms_of_empty_inputs() {
    for dev in common::backends() {
        let v = Array::zeros_on(&dev, &[0], cupy::DType::Float64).unwrap();
        let m = Array::zeros_on(&dev, &[0, 0], cupy::DType::Float64).unwrap();
        let norm = |x: &Array, ord: la::NormOrd| {
            la::norm_with(
                x,
                la::Norm {
                    ord: Some(ord),
                    ..Default::default()
                },
            )
        };
        let inf = f64::INFINITY;
        for (x, ord) in [
            (&v, la::NormOrd::P(inf)),
            (&v, la::NormOrd::P(1.0)),
            (&v, la::NormOrd::P(3.0)),
            (&m, la::NormOrd::P(inf)),
            (&m, la::NormOrd::P(1.0)),
            (&m, la::NormOrd::P(2.0)),
            (&m, la::NormOrd::Fro),
            (&m, la::NormOrd::Nuc),
        ] {
            let r = norm(x, ord).unwrap_or_else(|e| panic!("{dev:?} {ord:?}: {e}"));
            assert_eq!(r.to_vec::<f64>().unwrap(), [0.0], "{dev:?} {ord:?}");
        }
        for (x, ord) in [
            (&v, la::NormOrd::P(-inf)),
            (&m, la::NormOrd::P(-1.0)),
            (&m, la::NormOrd::P(-2.0)),
        ] {
            assert!(norm(x, ord).is_err(), "{dev:?} {ord:?}");
        }
    }
}

/// `lstsq` of an `m x 0` `a` (no unknowns, `m > 0`) returns every column's `sum |b|^2` as its
/// residual, as NumPy 2.2 does (it returned none; review of 2026-12-08).
#[test]
fn lstsq_without_unknowns_returns_the_residuals() {
    use cupy::DType;
    for dev in common::backends() {
        let l = dev.label();
        let a = Array::zeros_on(&dev, &[3, 0], DType::Float64).unwrap();
        let b = Array::from_slice_on(&dev, &[1.0f64, 2.0, -2.0, 0.0, 3.0, 1.0], &[3, 2]).unwrap();
        let r = la::lstsq(&a, &b).unwrap();
        assert_eq!(r.x.shape(), &[0, 2], "{l}");
        assert_eq!(r.residuals.to_vec::<f64>().unwrap(), [14.0, 5.0], "{l}");
        let r = la::lstsq(&a, &b.slice(&cupy::s![.., 0]).unwrap()).unwrap();
        assert_eq!(r.residuals.to_vec::<f64>().unwrap(), [14.0], "{l}");
        // m <= n: no residuals
        let z = Array::zeros_on(&dev, &[0, 0], DType::Float64).unwrap();
        let r = la::lstsq(&z, &b.slice(&cupy::s![0..0, 0]).unwrap()).unwrap();
        assert_eq!(r.residuals.shape(), &[0], "{l}");
    }
}

/// `cond` of an empty *batch* of non-empty matrices is an empty result; only empty matrices
/// are refused (NumPy's `_is_empty_2d`; review of 2026-12-08).
#[test]
fn cond_of_an_empty_batch_is_empty() {
    use cupy::DType;
    for dev in common::backends() {
        let l = dev.label();
        let batch = Array::zeros_on(&dev, &[0, 3, 2], DType::Float64).unwrap();
        let c = la::cond(&batch).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_eq!(
            (c.shape(), c.dtype()),
            (&[0usize][..], DType::Float64),
            "{l}"
        );
        let sq = Array::zeros_on(&dev, &[0, 2, 2], DType::Float64).unwrap();
        let c = la::cond_with(&sq, Some(la::NormOrd::P(1.0))).unwrap();
        assert_eq!(c.shape(), &[0], "{l}");
        let e = la::cond(&Array::zeros_on(&dev, &[2, 0, 0], DType::Float64).unwrap());
        assert!(matches!(e, Err(Error::LinAlgError { .. })), "{l}");
    }
}

/// `cholesky` of a complex matrix reads the real part of the diagonal only, as LAPACK's
/// `potrf` (NumPy, cuSOLVER): `L`'s diagonal is real. The cpu backend (and wgpu's host path)
/// carried an imaginary diagonal into `L` (review of 2026-12-08).
#[test]
fn complex_cholesky_reads_the_real_diagonal() {
    use cupy::num_complex::Complex;
    use cupy::DType;
    let h = [
        Complex::new(4.0f64, 1.0),
        Complex::new(1.0, -1.0),
        Complex::new(1.0, 1.0),
        Complex::new(3.0, -2.0),
    ];
    for dev in common::backends() {
        let l = dev.label();
        for t in [DType::Complex128, DType::Complex64] {
            let a = Array::from_slice_on(&dev, &h, &[2, 2])
                .unwrap()
                .astype(t)
                .unwrap();
            for upper in [false, true] {
                let f = la::cholesky_with(&a, upper).unwrap();
                let v: Vec<Complex<f64>> = f.astype(DType::Complex128).unwrap().to_vec().unwrap();
                // NumPy: [[2, 0], [0.5+0.5j, sqrt(2.5)]] (upper: its conjugate transpose)
                let (off, sign) = if upper { (1, -1.0) } else { (2, 1.0) };
                let ok = (v[0].re - 2.0).abs() < 1e-6
                    && v[0].im == 0.0
                    && (v[3].re - 2.5f64.sqrt()).abs() < 1e-6
                    && v[3].im == 0.0
                    && (v[off] - Complex::new(0.5, sign * 0.5)).norm() < 1e-6;
                assert!(ok, "{l} {t} upper={upper}: {v:?}");
            }
        }
    }
}

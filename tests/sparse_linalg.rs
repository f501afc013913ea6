//! `cupyx.scipy.sparse.linalg`, the routines past the Krylov solvers, against SciPy 1.17.1
//! goldens (tests/golden/gen/sparse_linalg2.py) on each backend: `lsqr`, `lsmr`, `onenormest`,
//! `expm_multiply`, `eigsh`, `svds`, `splu`, `spsolve`; the solvers' `callback`.

use crate::common::{self, Golden, Operand};
use cupy::scipy::sparse::linalg as sla;
use cupy::scipy::sparse::{self as sp, CsrMatrix, SparseMatrix};
use cupy::{Array, DType, Error, Result};
use serde_json::Value;

fn csr_of(k: &Value, ops: &[Operand]) -> Result<CsrMatrix> {
    let s = common::usizes(&k["shape"]);
    let a = |i: usize| ops[i].array();
    sp::coo_matrix((a(0), (a(1), a(2))), Some((s[0], s[1])))?.tocsr()
}

/// `||a - b|| / max(||b||, floor)`.
fn reldiff(a: &Array, b: &Array, floor: f64) -> Result<f64> {
    let d = cupy::linalg::norm(&(a - &b.astype(a.dtype())?)?)?
        .item()?
        .to_f64();
    let s = cupy::linalg::norm(b)?.item()?.to_f64();
    Ok(d / s.max(floor))
}

/// lsqr and lsmr: SciPy's `istop`; `itn` within one (exact at an iteration limit); `x`
/// within 1e-6 relative; and, where the iteration counts agree, every norm of the result
/// tuple within 1e-6 relative (absolute for norms below 1).
#[test]
fn lsqr_lsmr_match_scipy() {
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/lsq");
    for dev in common::backends() {
        for case in &g.cases {
            let op = case["op"].as_str().unwrap();
            if op != "lsqr" && op != "lsmr" {
                continue;
            }
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = csr_of(k, &ops)?;
                let b = ops[3].array();
                let x0 = (k["x0"].as_bool() == Some(true)).then(|| ops[4].array().clone());
                let f = |name: &str, d: f64| k[name].as_f64().unwrap_or(d);
                let (x, istop, itn, norms) = if op == "lsqr" {
                    let r = sla::lsqr(
                        &a,
                        b,
                        sla::Lsqr {
                            damp: f("damp", 0.0),
                            atol: f("atol", 1e-6),
                            btol: f("btol", 1e-6),
                            conlim: f("conlim", 1e8),
                            iter_lim: k["iter_lim"].as_u64().map(|v| v as usize),
                            calc_var: k["calc_var"].as_bool() == Some(true),
                            x0,
                        },
                    )?;
                    if k["calc_var"].as_bool() == Some(true) {
                        let want = g.array(case["var"].as_str().unwrap()).upload(&dev)?;
                        let d = reldiff(&r.var, &want, 1e-300)?;
                        if d > 1e-6 {
                            return Err(format!("var differs by {d:e}").into());
                        }
                    }
                    let n = vec![r.r1norm, r.r2norm, r.anorm, r.acond, r.arnorm, r.xnorm];
                    (r.x, r.istop, r.itn, n)
                } else {
                    let r = sla::lsmr(
                        &a,
                        b,
                        sla::Lsmr {
                            damp: f("damp", 0.0),
                            atol: f("atol", 1e-6),
                            btol: f("btol", 1e-6),
                            conlim: f("conlim", 1e8),
                            maxiter: k["maxiter"].as_u64().map(|v| v as usize),
                            x0,
                        },
                    )?;
                    let n = vec![r.normr, r.normar, r.norma, r.conda, r.normx];
                    (r.x, r.istop, r.itn, n)
                };
                let want_istop = case["istop"].as_i64().unwrap();
                let want_itn = case["itn"].as_u64().unwrap() as usize;
                if istop != want_istop {
                    return Err(format!("istop {istop}, SciPy {want_istop}").into());
                }
                let itn_ok = if istop == 7 {
                    itn == want_itn
                } else {
                    itn.abs_diff(want_itn) <= 1
                };
                if !itn_ok {
                    return Err(format!("itn {itn}, SciPy {want_itn}").into());
                }
                if x.dtype() != common::dtype_of(&case["dtype"]) {
                    return Err(format!("dtype {}, SciPy {}", x.dtype(), case["dtype"]).into());
                }
                let want = g.array(case["expected"].as_str().unwrap()).upload(&dev)?;
                let d = reldiff(&x, &want, 1e-300)?;
                if d > 1e-6 {
                    return Err(format!("x differs from SciPy's by {d:e} (relative)").into());
                }
                if itn == want_itn {
                    for (i, (got, w)) in norms
                        .iter()
                        .zip(case["norms"].as_array().unwrap())
                        .enumerate()
                    {
                        let w = w.as_f64().unwrap();
                        if (got - w).abs() > 1e-6 * w.abs().max(1.0) {
                            return Err(format!("norm {i}: {got:e}, SciPy {w:e}").into());
                        }
                    }
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        // Bad input: b of another length names the op and both shapes.
        let a = sp::csr_matrix(
            &Array::ones_on(&dev, &[4, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let b = Array::ones_on(&dev, &[3], DType::Float64).unwrap();
        let e = sla::lsqr(&a, &b, sla::Lsqr::default()).unwrap_err();
        assert!(
            e.to_string().contains("lsqr") && e.to_string().contains("(4, 3)"),
            "{e}"
        );
        let e = sla::lsmr(&a, &b, sla::Lsmr::default()).unwrap_err();
        assert!(
            e.to_string().contains("lsmr") && e.to_string().contains("(3,)"),
            "{e}"
        );
    }
    t.finish();
}

/// `callback(xk)` is called once per iteration with the iterate (cg, bicgstab, cgs, minres;
/// gmres once per restart cycle), and its last call sees the returned `x`.
#[test]
fn solver_callbacks() {
    use std::sync::{Arc, Mutex};
    for dev in common::backends() {
        // 1-D Poisson, n = 12: cg converges in at most 6 iterations (symmetric spectrum pairs).
        let n = 12;
        let main = Array::full_on(&dev, &[n], 2.0, DType::Float64).unwrap();
        let off = Array::full_on(&dev, &[n - 1], -1.0, DType::Float64).unwrap();
        let a = sp::diags(&[&off, &main, &off], &[-1, 0, 1])
            .unwrap()
            .tocsr()
            .unwrap();
        let b = Array::arange_on(&dev, 1.0, (n + 1) as f64, 1.0, DType::Float64).unwrap();
        type Solver = fn(&CsrMatrix, &Array, sla::Solve) -> Result<(Array, i64)>;
        let solvers: [(&str, Solver); 5] = [
            ("cg", |a, b, o| sla::cg(a, b, o)),
            ("bicgstab", |a, b, o| sla::bicgstab(a, b, o)),
            ("cgs", |a, b, o| sla::cgs(a, b, o)),
            ("minres", |a, b, o| sla::minres(a, b, o)),
            ("gmres", |a, b, o| sla::gmres(a, b, o)),
        ];
        for (name, f) in solvers {
            let seen: Arc<Mutex<Vec<Vec<f64>>>> = Arc::default();
            let s2 = seen.clone();
            let x0 = Array::full_on(&dev, &[n], 0.5, DType::Float64).unwrap();
            let opts = sla::Solve {
                x0: Some(x0.clone()),
                rtol: 1e-10,
                maxiter: Some(if name == "gmres" { 5 } else { 4 }),
                restart: Some(3),
                callback: Some(Arc::new(move |x: &Array| {
                    s2.lock().unwrap().push(x.to_vec::<f64>().unwrap());
                })),
                ..Default::default()
            };
            let (x, info) = f(&a, &b, opts).unwrap();
            let seen = seen.lock().unwrap();
            // maxiter stops every solver before convergence: info > 0 and one call per
            // iteration (or restart cycle).
            assert!(info > 0, "{name}: info {info}");
            let calls = if name == "gmres" { 5 } else { 4 };
            assert_eq!(seen.len(), calls, "{name}: callback calls");
            assert_eq!(seen.last().unwrap(), &x.to_vec::<f64>().unwrap(), "{name}");
            assert_ne!(seen[0], seen[1], "{name}: iterates change");
            // The solvers update their own copies: the caller's x0 and b are unchanged.
            assert_eq!(
                x0.to_vec::<f64>().unwrap(),
                vec![0.5; n],
                "{name}: x0 written"
            );
            let b_after = b.to_vec::<f64>().unwrap();
            assert_eq!(
                b_after,
                (1..=n).map(|v| v as f64).collect::<Vec<_>>(),
                "{name}: b written"
            );
        }
    }
}

/// cg's edge cases from the break-it review, against SciPy 1.17: an exact solution with an
/// `atol` whose square underflows float32 (SciPy: info 0, x = 0.5), and convergence on the last
/// allowed iteration (SciPy returns `info = maxiter` there).
#[test]
fn cg_underflowing_tolerance_and_last_iteration() {
    for dev in common::backends() {
        let two = |n: usize, t: DType| {
            let d = Array::full_on(&dev, &[n], 2.0, t).unwrap();
            sp::diags(&[&d], &[0]).unwrap().tocsr().unwrap()
        };
        let b = Array::ones_on(&dev, &[4], DType::Float32).unwrap();
        let opts = sla::Solve {
            rtol: 1e-25,
            ..Default::default()
        };
        let (x, info) = sla::cg(two(4, DType::Float32), &b, opts).unwrap();
        assert_eq!((info, x.to_vec::<f32>().unwrap()), (0, vec![0.5; 4]));
        let b1 = Array::ones_on(&dev, &[1], DType::Float64).unwrap();
        let opts = sla::Solve {
            maxiter: Some(1),
            ..Default::default()
        };
        let (x, info) = sla::cg(two(1, DType::Float64), &b1, opts).unwrap();
        assert_eq!((info, x.to_vec::<f64>().unwrap()), (1, vec![0.5]));
        let d = Array::arange_on(&dev, 1.0, 17.0, 1.0, DType::Float64).unwrap();
        let a = sp::diags(&[&d], &[0]).unwrap().tocsr().unwrap();
        let b16 = Array::ones_on(&dev, &[16], DType::Float64).unwrap();
        let opts = sla::Solve {
            rtol: 1e-12,
            maxiter: Some(16),
            ..Default::default()
        };
        assert_eq!(sla::cg(&a, &b16, opts).unwrap().1, 16, "SciPy's info");
    }
}

/// onenormest: a lower bound of the exact 1-norm within a factor 3 (the estimator's usual
/// bound; every case here is within it), equal to it where the estimator is exact (`t >= n`,
/// nonnegative matrices); `w = A v` with `||w||_1 = est` and `v` a unit vector.
#[test]
fn onenormest_bounds() {
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/onenormest");
    for dev in common::backends() {
        for case in g.cases.iter().filter(|c| c["op"] == "onenormest") {
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = csr_of(k, &ops)?;
                let r = sla::onenormest_with(&a, sla::OneNormEst::default())?;
                let est = sla::onenormest(&a)?;
                let exact = case["true"].as_f64().unwrap();
                if est != r.est {
                    return Err(format!("onenormest {est} vs onenormest_with {}", r.est).into());
                }
                if est > exact * (1.0 + 1e-12) || est < exact / 3.0 {
                    return Err(format!("estimate {est}, exact {exact}").into());
                }
                if k["exact"].as_bool().unwrap() && (est - exact).abs() > 1e-12 * exact {
                    return Err(format!("estimate {est}, exact {exact} (must be exact)").into());
                }
                let l1 =
                    |x: &Array| -> Result<f64> { Ok(cupy::absolute(x)?.sum()?.item()?.to_f64()) };
                if (l1(&r.v)? - 1.0).abs() > 1e-15 || (l1(&r.w)? - est).abs() > 1e-12 * est {
                    return Err("v is not a unit vector or ||w||_1 != est"
                        .to_string()
                        .into());
                }
                let av = a.dot(&r.v.astype(a.dtype())?)?;
                if reldiff(&r.w, &av, 1e-300)? > 1e-14 {
                    return Err("w != A v".to_string().into());
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        let a = sp::csr_matrix(
            &Array::ones_on(&dev, &[2, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::onenormest(&a).unwrap_err();
        assert!(
            e.to_string().contains("onenormest") && e.to_string().contains("(2, 3)"),
            "{e}"
        );
    }
    t.finish();
}

/// expm_multiply against SciPy's (itself checked against dense `expm(A) @ B` by the
/// generator): 1e-12 relative (1e-5 for float32), SciPy's dtype.
#[test]
fn expm_multiply_matches_scipy() {
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/expm_multiply");
    for dev in common::backends() {
        for case in g.cases.iter().filter(|c| c["op"] == "expm_multiply") {
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = csr_of(k, &ops)?;
                let grid = &k["grid"];
                let x = if grid.is_object() {
                    let o = sla::ExpmMultiply {
                        start: grid["start"].as_f64(),
                        stop: grid["stop"].as_f64(),
                        num: grid["num"].as_u64().map(|v| v as usize),
                        endpoint: grid["endpoint"].as_bool(),
                    };
                    sla::expm_multiply_with(&a, ops[3].array(), o)?
                } else {
                    sla::expm_multiply(&a, ops[3].array())?
                };
                let dt = common::dtype_of(&case["dtype"]);
                if x.dtype() != dt || x.shape() != common::usizes(&case["shape"]).as_slice() {
                    return Err(format!(
                        "{} {:?}, SciPy {dt} {}",
                        x.dtype(),
                        x.shape(),
                        case["shape"]
                    )
                    .into());
                }
                let want = g.array(case["expected"].as_str().unwrap()).upload(&dev)?;
                // The grid's later times come by steps of exp(hA) (SciPy's interval algorithm
                // picks its degrees per span): agreement to 1e-11.
                let tol = match (dt, grid.is_object()) {
                    (DType::Float32, _) => 1e-5,
                    (_, true) => 1e-11,
                    _ => 1e-12,
                };
                let d = reldiff(&x.astype(want.dtype())?, &want, 1e-300)?;
                if d > tol {
                    return Err(format!("differs from SciPy's by {d:e} (relative)").into());
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        let a = sp::csr_matrix(
            &Array::eye_on(&dev, 3, None, 0, DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let b = Array::ones_on(&dev, &[4], DType::Float64).unwrap();
        let e = sla::expm_multiply(&a, &b).unwrap_err();
        assert!(
            e.to_string().contains("expm_multiply") && e.to_string().contains("(4,)"),
            "{e}"
        );
        // A grid running backwards (SciPy 1.17's interval code returns wrong values there, so
        // no golden): exp(t D) 1 of a diagonal D is exp(t d_i) exactly.
        let d = sp::csr_matrix(
            &Array::from_slice_on(&dev, &[1.0f64, 0., 0., 0., 2., 0., 0., 0., -0.5], &[3, 3])
                .unwrap(),
            None,
        )
        .unwrap();
        let b3 = Array::ones_on(&dev, &[3], DType::Float64).unwrap();
        let back = sla::ExpmMultiply {
            start: Some(1.0),
            stop: Some(-1.0),
            num: Some(3),
            endpoint: None,
        };
        let x = sla::expm_multiply_with(&d, &b3, back).unwrap();
        assert_eq!(x.shape(), [3, 3]);
        let got = x.to_vec::<f64>().unwrap();
        for (k, tk) in [1.0f64, 0.0, -1.0].iter().enumerate() {
            for (i, di) in [1.0f64, 2.0, -0.5].iter().enumerate() {
                let want = (tk * di).exp();
                assert!((got[3 * k + i] - want).abs() <= 1e-13 * want, "{got:?}");
            }
        }
        for o in [
            sla::ExpmMultiply {
                start: Some(0.0),
                stop: Some(1.0),
                num: Some(1),
                endpoint: None,
            },
            sla::ExpmMultiply {
                num: Some(4),
                ..Default::default()
            },
        ] {
            let e = sla::expm_multiply_with(&a, &b3, o).unwrap_err();
            assert!(matches!(e, cupy::Error::InvalidArgument { .. }), "{e}");
        }
    }
    t.finish();
}

pub(crate) fn which_of(k: &Value) -> sla::Which {
    match k["which"].as_str().unwrap_or("LM") {
        "LM" => sla::Which::LM,
        "SM" => sla::Which::SM,
        "LA" => sla::Which::LA,
        "SA" => sla::Which::SA,
        w => panic!("which {w}"),
    }
}

/// Column `j` of a 2-d array.
pub(crate) fn col(a: &Array, j: usize) -> Result<Array> {
    a.slice(&cupy::s![.., j as isize])?.copy()
}

/// `||V^H V - I||_max` of the columns of `v`.
fn orthonormality(v: &Array) -> Result<f64> {
    let g = cupy::matmul(&cupy::conj(&v.t())?, v)?;
    let k = v.shape()[1];
    let i = Array::eye_on(v.device(), k, None, 0, g.dtype())?;
    Ok(cupy::absolute(&(&g - &i)?)?.max()?.item()?.to_f64())
}

/// eigsh: SciPy's (ARPACK's) eigenvalues within 1e-9 of the largest magnitude (1e-4 for
/// float32), ascending; the vectors orthonormal with residuals `||A v - w v||` below 1e-7
/// of it. svds: SciPy's singular values, ascending, within 1e-9 relative to the largest; `u`
/// and `vh` orthonormal with `||A v_i - s_i u_i||` small.
#[test]
fn eigsh_svds_match_scipy() {
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/eigsh_svds");
    for dev in common::backends() {
        for case in g
            .cases
            .iter()
            .filter(|c| c["op"] == "eigsh" || c["op"] == "svds")
        {
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = csr_of(k, &ops)?;
                let want = g.array(case["expected"].as_str().unwrap());
                let wv = want.f64s();
                let kk = k["k"].as_u64().unwrap() as usize;
                let f32 = case["dtype"] == "float32";
                let scale = wv.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let tol = if f32 { 1e-4 } else { 1e-9 } * scale;
                let rtol = if f32 { 1e-3 } else { 1e-7 } * scale;
                let close = |got: &[f64]| -> std::result::Result<(), common::CaseError> {
                    for (x, y) in got.iter().zip(&wv) {
                        if (x - y).abs() > tol {
                            return Err(format!("values {got:?}, SciPy {wv:?}").into());
                        }
                    }
                    Ok(())
                };
                if case["op"] == "eigsh" {
                    let vecs = k["return_eigenvectors"].as_bool() != Some(false);
                    let (w, v) = sla::eigsh(
                        &a,
                        kk,
                        sla::Eigsh {
                            which: which_of(k),
                            ncv: k["ncv"].as_u64().map(|v| v as usize),
                            return_eigenvectors: vecs,
                            sigma: k["sigma"].as_f64(),
                            ..Default::default()
                        },
                    )?;
                    if w.dtype() != common::dtype_of(&case["dtype"]) {
                        return Err(format!("dtype {}, SciPy {}", w.dtype(), case["dtype"]).into());
                    }
                    let got = w.astype(DType::Float64)?.to_vec::<f64>()?;
                    close(&got)?;
                    if vecs != v.is_some() {
                        return Err("eigenvectors returned iff asked for".to_string().into());
                    }
                    if let Some(v) = v {
                        if v.shape() != [a.shape().0, kk] {
                            return Err(format!("vectors of shape {:?}", v.shape()).into());
                        }
                        if orthonormality(&v)? > rtol / scale {
                            return Err("eigenvectors not orthonormal".to_string().into());
                        }
                        for (j, lam) in got.iter().enumerate() {
                            let vj = col(&v, j)?;
                            let rj = (&a.dot(&vj)? - &(&vj * *lam)?)?;
                            let rn = cupy::linalg::norm(&rj)?.item()?.to_f64();
                            if rn > rtol {
                                return Err(format!("residual {rn:e} of pair {j}").into());
                            }
                        }
                    }
                } else {
                    let vecs = k["return_singular_vectors"].as_bool() != Some(false);
                    let r = sla::svds(
                        &a,
                        kk,
                        sla::Svds {
                            which: which_of(k),
                            return_singular_vectors: vecs,
                            ..Default::default()
                        },
                    )?;
                    let got = r.s.astype(DType::Float64)?.to_vec::<f64>()?;
                    close(&got)?;
                    if let (Some(u), Some(vh)) = (&r.u, &r.vh) {
                        let (m, n) = a.shape();
                        if u.shape() != [m, kk] || vh.shape() != [kk, n] {
                            return Err(format!("u {:?}, vh {:?}", u.shape(), vh.shape()).into());
                        }
                        let v = cupy::conj(&vh.t())?;
                        if orthonormality(u)? > 1e-8 || orthonormality(&v)? > 1e-8 {
                            return Err("singular vectors not orthonormal".to_string().into());
                        }
                        for (j, s) in got.iter().enumerate() {
                            let rj = (&a.dot(&col(&v, j)?)? - &(&col(u, j)? * *s)?)?;
                            let rn = cupy::linalg::norm(&rj)?.item()?.to_f64();
                            if rn > rtol {
                                return Err(format!("residual {rn:e} of triplet {j}").into());
                            }
                        }
                    } else if vecs {
                        return Err("no singular vectors".to_string().into());
                    }
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        // Bad input: k >= n, a non-square matrix, k >= min(m, n) for svds.
        let a = sp::csr_matrix(
            &Array::eye_on(&dev, 4, None, 0, DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::eigsh(&a, 4, sla::Eigsh::default()).unwrap_err();
        assert!(
            e.to_string().contains("eigsh") && e.to_string().contains("k=4"),
            "{e}"
        );
        let r = sp::csr_matrix(
            &Array::ones_on(&dev, &[3, 5], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::eigsh(&r, 1, sla::Eigsh::default()).unwrap_err();
        assert!(
            e.to_string().contains("eigsh") && e.to_string().contains("(3, 5)"),
            "{e}"
        );
        let e = sla::svds(&r, 3, sla::Svds::default()).unwrap_err();
        assert!(
            e.to_string().contains("svds") && e.to_string().contains("3x5"),
            "{e}"
        );
    }
    t.finish();
}

/// splu: SciPy's `splu(A).solve(b, trans)` within 1e-12 relative (N, T, H; pivoting; complex;
/// several right-hand sides), factorized the same; spilu with no dropping is the exact solve,
/// and with its defaults a preconditioner that makes gmres converge in fewer iterations; a
/// singular matrix is refused.
#[test]
fn splu_spilu_factorized() {
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/splu");
    for dev in common::backends() {
        for case in g.cases.iter().filter(|c| c["op"] == "splu") {
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = csr_of(k, &ops)?;
                let b = ops[3].array();
                let trans = match k["trans"].as_str().unwrap() {
                    "N" => sla::Trans::N,
                    "T" => sla::Trans::T,
                    _ => sla::Trans::H,
                };
                let lu = sla::splu(&a)?;
                let x = lu.solve_with(b, trans)?;
                let want = g.array(case["expected"].as_str().unwrap()).upload(&dev)?;
                if x.dtype() != want.dtype() || x.shape() != want.shape() {
                    return Err(format!(
                        "{} {:?}, SciPy {} {:?}",
                        x.dtype(),
                        x.shape(),
                        want.dtype(),
                        want.shape()
                    )
                    .into());
                }
                let d = reldiff(&x, &want, 1e-300)?;
                if d > 1e-12 {
                    return Err(format!("splu differs from SciPy's by {d:e}").into());
                }
                if trans == sla::Trans::N {
                    let f = sla::factorized(&a)?;
                    if reldiff(&f(b)?, &want, 1e-300)? > 1e-12 {
                        return Err("factorized differs".to_string().into());
                    }
                    if !id.contains("pivot") {
                        // ILUT without dropping = exact LU (these need no pivoting).
                        let ilu = sla::spilu(
                            &a,
                            sla::Spilu {
                                drop_tol: 0.0,
                                fill_factor: 1e9,
                            },
                        )?;
                        let d = reldiff(&ilu.solve(b)?, &want, 1e-300)?;
                        if d > 1e-10 {
                            return Err(format!("spilu(drop_tol=0) differs by {d:e}").into());
                        }
                    }
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        // spilu as gmres's preconditioner on a convection-diffusion matrix.
        let n = 200;
        let main = Array::full_on(&dev, &[n], 4.0, DType::Float64).unwrap();
        let lo = Array::full_on(&dev, &[n - 1], -1.6, DType::Float64).unwrap();
        let hi = Array::full_on(&dev, &[n - 1], -0.4, DType::Float64).unwrap();
        let far = Array::full_on(&dev, &[n - 10], -1.0, DType::Float64).unwrap();
        let a = sp::diags(&[&far, &lo, &main, &hi, &far], &[-10, -1, 0, 1, 10])
            .unwrap()
            .tocsr()
            .unwrap();
        let b = Array::ones_on(&dev, &[n], DType::Float64).unwrap();
        // Restart cycles to convergence (the callback runs once a cycle).
        let cycles = |m: Option<sla::LinearOperator>| {
            let c = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let c2 = c.clone();
            let (x, info) = sla::gmres(
                &a,
                &b,
                sla::Solve {
                    rtol: 1e-10,
                    restart: Some(10),
                    maxiter: Some(100),
                    m,
                    callback: Some(std::sync::Arc::new(move |_: &Array| {
                        c2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    })),
                    ..Default::default()
                },
            )
            .unwrap();
            let res = cupy::linalg::norm(&(&b - &a.dot(&x).unwrap()).unwrap())
                .unwrap()
                .item()
                .unwrap()
                .to_f64();
            (info, res, c.load(std::sync::atomic::Ordering::SeqCst))
        };
        let ilu = sla::spilu(&a, sla::Spilu::default()).unwrap();
        let m = sla::LinearOperator::new((n, n), DType::Float64, move |x| ilu.solve(x));
        let (info, res, with) = cycles(Some(m));
        let (_, _, without) = cycles(None);
        assert_eq!(info, 0, "gmres with the spilu preconditioner converges");
        assert!(res < 1e-8, "{res}");
        assert!(
            with < without,
            "{with} cycles with spilu, {without} without"
        );
        // Singular and non-square input.
        let z = sp::csr_matrix(
            &Array::zeros_on(&dev, &[3, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::splu(&z).unwrap_err();
        assert!(
            e.to_string().contains("splu") && e.to_string().contains("singular"),
            "{e}"
        );
        let r = sp::csr_matrix(
            &Array::ones_on(&dev, &[2, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::splu(&r).unwrap_err();
        assert!(
            e.to_string().contains("splu") && e.to_string().contains("(2, 3)"),
            "{e}"
        );
        let e = sla::spilu(&r, sla::Spilu::default()).unwrap_err();
        assert!(e.to_string().contains("spilu"), "{e}");
    }
    t.finish();
}

/// spsolve: SciPy's `spsolve(A, b)` within 1e-12 relative (pivoting, complex, float32 within
/// 1e-5, duplicates, several right-hand sides, an `[n, 1]` `b` giving a 1-d `x`); a singular
/// matrix and bad shapes are refused.
#[test]
fn spsolve_sparse_lu() {
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/spsolve");
    for dev in common::backends() {
        for case in g.cases.iter().filter(|c| c["op"] == "spsolve") {
            let id = case["id"].as_str().unwrap();
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = csr_of(&case["kwargs"], &ops)?;
                let x = sla::spsolve(&a, ops[3].array())?;
                let want = g.array(case["expected"].as_str().unwrap()).upload(&dev)?;
                if x.dtype() != want.dtype() || x.shape() != want.shape() {
                    return Err(format!(
                        "{} {:?}, SciPy {} {:?}",
                        x.dtype(),
                        x.shape(),
                        want.dtype(),
                        want.shape()
                    )
                    .into());
                }
                let tol = if x.dtype() == DType::Float32 {
                    1e-5
                } else {
                    1e-12
                };
                let d = reldiff(&x, &want, 1e-300)?;
                if d > tol {
                    return Err(format!("spsolve differs from SciPy's by {d:e}").into());
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        // Singular (numerically: two equal rows; structurally: an empty column), non-square,
        // and a b of the wrong length.
        let s = Array::from_slice_on(
            &dev,
            &[1.0f64, 2.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 3.0],
            &[3, 3],
        )
        .unwrap();
        let z = Array::from_slice_on(
            &dev,
            &[1.0f64, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0],
            &[3, 3],
        )
        .unwrap();
        let b = Array::ones_on(&dev, &[3], DType::Float64).unwrap();
        for m in [&s, &z] {
            let e = sla::spsolve(&sp::csr_matrix(m, None).unwrap(), &b).unwrap_err();
            assert!(
                matches!(e, Error::LinAlgError { .. })
                    && e.to_string().contains("spsolve")
                    && e.to_string().contains("singular"),
                "{e}"
            );
        }
        let r = sp::csr_matrix(
            &Array::ones_on(&dev, &[2, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::spsolve(&r, &b).unwrap_err();
        assert!(
            e.to_string().contains("spsolve") && e.to_string().contains("(2, 3)"),
            "{e}"
        );
        let a = sp::csr_matrix(&z, None).unwrap();
        let b4 = Array::ones_on(&dev, &[4], DType::Float64).unwrap();
        let e = sla::spsolve(&a, &b4).unwrap_err();
        assert!(e.to_string().contains("(4,)"), "{e}");
    }
    t.finish();
}

//! `cupyx.scipy.sparse` against SciPy 1.17.1 goldens (tests/golden/gen/sparse.py): every
//! format's construction, conversions, canonical form, SpMV/SpMM, arithmetic, reductions and
//! construction functions, on each backend; validation errors; solver residuals.

use crate::common::{self, Golden, Operand};
use cupy::scipy::sparse::{
    self as sp, CooMatrix, CscMatrix, CsrMatrix, Format, Sparse, SparseMatrix,
};
use cupy::{Array, DType, Device, Error, Result};
use serde_json::Value;

fn shape_of(k: &Value) -> (usize, usize) {
    let s = common::usizes(&k["shape"]);
    (s[0], s[1])
}

/// The case's matrix, as built from its operands (not yet converted).
fn build(k: &Value, ops: &[Operand]) -> Result<Sparse> {
    let shape = Some(shape_of(k));
    let a = |i: usize| ops[i].array();
    Ok(match k["build"].as_str().unwrap() {
        "coo" => Sparse::Coo(sp::coo_matrix((a(0), (a(1), a(2))), shape)?),
        "dense" => Sparse::Csr(sp::csr_matrix(a(0), shape)?),
        "csr" => Sparse::Csr(sp::csr_matrix((a(0), a(1), a(2)), shape)?),
        "csc" => Sparse::Csc(sp::csc_matrix((a(0), a(1), a(2)), shape)?),
        b => panic!("build {b}"),
    })
}

/// SciPy's `A.asformat(fmt)` (a matrix already in `fmt` is kept as built).
fn convert(m: Sparse, fmt: &str) -> Result<Sparse> {
    let f: Format = fmt.parse()?;
    if m.format() == f {
        return Ok(m);
    }
    m.asformat(f)
}

fn parts(c: &CsrMatrix) -> Result<Array> {
    let p = cupy::concatenate(
        &[
            &c.indptr().astype(DType::Int64)?,
            &c.indices().astype(DType::Int64)?,
        ],
        0,
    )?;
    Ok(p)
}

fn scalar_i64(dev: &Device, v: i64) -> Result<Array> {
    Array::from_slice_on(dev, &[v], &[])
}

fn axis(k: &Value) -> Option<isize> {
    k["axis"].as_i64().map(|a| a as isize)
}

fn fmt_of(m: &Sparse) -> Format {
    m.format()
}

/// The dense `(M, B)` operands of the binary cases: the sparse `B` from its dense form.
fn other(ops: &[Operand], nops: usize) -> Result<CsrMatrix> {
    sp::csr_matrix(ops[nops].array(), None)
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let op = case["op"].as_str().unwrap();
    match op {
        "eye" => {
            let m = k["m"].as_u64().unwrap() as usize;
            let e = sp::eye_with(
                m,
                sp::SpEye {
                    n: Some(k["n"].as_u64().unwrap() as usize),
                    k: k["k"].as_i64().unwrap() as isize,
                    format: k["format"].as_str().unwrap().parse()?,
                    device: Some(dev.clone()),
                    ..Default::default()
                },
            )?;
            return e.toarray();
        }
        "diags" => {
            let d: Vec<&Array> = ops.iter().map(|o| o.array()).collect();
            let shape = k.get("shape").map(|s| {
                let s = common::usizes(s);
                (s[0], s[1])
            });
            return sp::diags_with(
                &d,
                sp::Diags {
                    offsets: common::isizes(&k["offsets"]),
                    shape,
                    ..Default::default()
                },
            )?
            .toarray();
        }
        "spdiags" => {
            let m = k["m"].as_u64().unwrap() as usize;
            let n = k["n"].as_u64().unwrap() as usize;
            return sp::spdiags(ops[0].array(), &common::isizes(&k["diags"]), m, n)?.toarray();
        }
        "dia_matrix" => {
            return sp::dia_matrix(ops[0].array(), ops[1].array(), shape_of(k))?.toarray();
        }
        "poisson" => {
            let n = k["n"].as_u64().unwrap() as usize;
            return poisson(dev, n)?.toarray();
        }
        "poisson_aa" => {
            let p = poisson(dev, k["n"].as_u64().unwrap() as usize)?;
            return p.matmul(&p)?.toarray();
        }
        "load_npz" => {
            let path = common::data_path(&format!(
                "golden/sparse_npz/{}",
                k["file"].as_str().unwrap()
            ));
            let m = cupy::with_device(dev, || sp::load_npz(&path))?;
            assert_eq!(m.format().name(), k["format"].as_str().unwrap());
            // Round trip through save_npz.
            let tmp = std::env::temp_dir().join(format!(
                "cupy_sparse_{}_{}_{}.npz",
                std::process::id(),
                dev.kind().name(),
                k["file"].as_str().unwrap()
            ));
            sp::save_npz(&tmp, &m, true)?;
            let back = cupy::with_device(dev, || sp::load_npz(&tmp))?;
            let _ = std::fs::remove_file(&tmp);
            assert_eq!(back.format(), m.format());
            assert_eq!(back.shape(), m.shape());
            return back.toarray();
        }
        "csr_matrix" => {
            let a = |i: usize| ops[i].array();
            return sp::csr_matrix((a(0), a(1), a(2)), Some(shape_of(k)))?.toarray();
        }
        "coo_matrix" => {
            let a = |i: usize| ops[i].array();
            return sp::coo_matrix((a(0), (a(1), a(2))), Some(shape_of(k)))?.toarray();
        }
        _ => {}
    }
    let nops = k["nops"].as_u64().unwrap() as usize;
    let built = build(k, ops)?;
    match op {
        "raw_has_canonical" => {
            let Sparse::Csr(c) = &built else { panic!() };
            return Array::from_slice_on(dev, &[c.has_canonical_format()?], &[]);
        }
        "sort_indices" | "sum_duplicates" => {
            let Sparse::Csr(mut c) = built else { panic!() };
            if op == "sort_indices" {
                c.sort_indices()?;
            } else {
                c.sum_duplicates()?;
            }
            return parts(&c);
        }
        "has_canonical" => {
            let v = match &built {
                Sparse::Csr(c) if k["build"] == "csr" => c.has_canonical_format()?,
                m => m.tocsr()?.has_canonical_format()?,
            };
            return Array::from_slice_on(dev, &[v], &[]);
        }
        _ => {}
    }
    let m = convert(built, k["fmt"].as_str().unwrap())?;
    let csr = || m.tocsr();
    match op {
        "toarray" => {
            assert_eq!(fmt_of(&m).name(), k["fmt"].as_str().unwrap());
            m.toarray()
        }
        "canonical_parts" => parts(&csr()?),
        "canonical_data" => Ok(csr()?.data().clone()),
        "T" => match &m {
            Sparse::Csr(c) => c.T().toarray(),
            Sparse::Csc(c) => c.T().toarray(),
            Sparse::Coo(c) => c.T().toarray(),
            Sparse::Dia(c) => c.transpose()?.toarray(),
            _ => unreachable!("the sparse goldens use csr, csc, coo and dia"),
        },
        "conj" => match &m {
            Sparse::Csr(c) => c.conj()?.toarray(),
            Sparse::Csc(c) => c.conj()?.toarray(),
            Sparse::Coo(c) => c.conj()?.toarray(),
            Sparse::Dia(c) => c.tocoo()?.conj()?.toarray(),
            _ => unreachable!("the sparse goldens use csr, csc, coo and dia"),
        },
        "nnz" => scalar_i64(dev, m.nnz() as i64),
        "count_nonzero" => scalar_i64(dev, csr()?.count_nonzero()? as i64),
        "eliminate_zeros" => {
            let mut c = csr()?;
            c.eliminate_zeros()?;
            c.toarray()
        }
        "spmv" | "spmm" => {
            let x = ops[nops].array();
            match &m {
                Sparse::Csr(c) => c.dot(x),
                Sparse::Csc(c) => c.dot(x),
                Sparse::Coo(c) => c.dot(x),
                Sparse::Dia(c) => c.dot(x),
                _ => unreachable!("the sparse goldens use csr, csc, coo and dia"),
            }
        }
        "add" => csr()?.add(&other(ops, nops)?)?.toarray(),
        "sub" => csr()?.sub(&other(ops, nops)?)?.toarray(),
        "sub_self" => scalar_i64(dev, csr()?.sub(&csr()?)?.nnz() as i64),
        "add_dense" => csr()?.add_dense(ops[nops].array()),
        "multiply" => csr()?.multiply(&other(ops, nops)?)?.toarray(),
        "multiply_dense" => csr()?.multiply_dense(ops[nops].array())?.toarray(),
        "mul_scalar" => csr()?.mul_scalar(k["s"].as_f64().unwrap())?.toarray(),
        "div_scalar" => csr()?.div_scalar(k["s"].as_f64().unwrap())?.toarray(),
        "power" => csr()?.power(k["p"].as_i64().unwrap())?.toarray(),
        "neg" => csr()?.neg()?.toarray(),
        "sum" => csr()?.sum(axis(k)),
        "mean" => csr()?.mean(axis(k)),
        "max" => csr()?.max(axis(k)),
        "min" => csr()?.min(axis(k)),
        "diagonal" => csr()?.diagonal(k["k"].as_i64().unwrap() as isize),
        "tril" => sp::tril(&m, k["k"].as_i64().unwrap() as isize, Format::Coo)?.toarray(),
        "triu" => sp::triu(&m, k["k"].as_i64().unwrap() as isize, Format::Coo)?.toarray(),
        "find" => {
            let (r, c, d) = sp::find(&m)?;
            let d = if d.dtype().is_complex() {
                cupy::real(&d)?
            } else {
                d
            };
            cupy::concatenate(
                &[
                    &r.astype(DType::Float64)?,
                    &c.astype(DType::Float64)?,
                    &d.astype(DType::Float64)?,
                ],
                0,
            )
        }
        "hstack" | "vstack" => {
            let b = other(ops, nops)?;
            let blocks: [&dyn SparseMatrix; 2] = [&m, &b];
            let s = if op == "hstack" {
                sp::hstack(&blocks, Format::Coo)?
            } else {
                sp::vstack(&blocks, Format::Csr)?
            };
            s.toarray()
        }
        "spgemm" => csr()?.matmul(&other(ops, nops)?)?.toarray(),
        "kron" => sp::kron(&m, &other(ops, nops)?)?.toarray(),
        other => panic!("sparse golden op {other}"),
    }
}

/// The 2-D 5-point Poisson matrix of an `n x n` grid: `kron(I, T) + kron(T, I)`.
pub fn poisson(dev: &Device, n: usize) -> Result<CsrMatrix> {
    let _ = dev;
    let t = cupy::with_device(dev, || -> Result<Sparse> {
        let off = Array::full_on(dev, &[n - 1], -1.0, DType::Float64)?;
        let mid = Array::full_on(dev, &[n], 2.0, DType::Float64)?;
        sp::diags(&[&off, &mid, &off], &[-1, 0, 1])
    })?;
    let i = cupy::with_device(dev, || sp::eye(n))?;
    sp::kron(&i, &t)?.tocsr()?.add(&sp::kron(&t, &i)?)
}

fn error_matches(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "ValueError" => matches!(
            e,
            Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }
        ),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn sparse_matches_scipy() {
    common::run_group(
        "sparse",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        error_matches,
    );
}

#[test]
fn errors_name_the_op_and_shapes() {
    for dev in common::backends() {
        let f = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0], &[3]).unwrap();
        let idx = Array::from_slice_on(&dev, &[0i32, 5, 1], &[3]).unwrap();
        let ptr = Array::from_slice_on(&dev, &[0i32, 2, 3], &[3]).unwrap();
        let e = sp::csr_matrix((&f, &idx, &ptr), Some((2, 3))).unwrap_err();
        let s = e.to_string();
        assert!(s.contains("csr_matrix") && s.contains("5"), "{s}");
        let a = sp::csr_matrix(
            &Array::eye_on(&dev, 3, None, 0, DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let x = Array::ones_on(&dev, &[4], DType::Float64).unwrap();
        let e = a.dot(&x).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        assert!(
            e.to_string().contains("(3, 3)") && e.to_string().contains("(4,)"),
            "{e}"
        );
        let c: CooMatrix = a.tocoo().unwrap();
        let b: CscMatrix = c.tocsc().unwrap();
        assert_eq!(b.shape(), (3, 3));
    }
}

/// The solver goldens (tests/golden/gen/sparse_linalg.py): SciPy's info, and a residual as
/// good as SciPy's (converged: within 10x of the requested `rtol` or of SciPy's own; stopped
/// early: within 1.5x of SciPy's, 10x on the ill-conditioned system), and for the well-conditioned systems the same `x` within
/// 1e-6 relative.
#[test]
fn solvers_match_scipy() {
    use cupy::scipy::sparse::linalg::{self as sla, LinearOperator, Solve};
    let g = Golden::load("sparse_linalg");
    let mut t = common::Tally::new("sparse_linalg");
    for dev in common::backends() {
        for case in &g.cases {
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let a = |i: usize| ops[i].array();
                let m = sp::coo_matrix((a(0), (a(1), a(2))), Some(shape_of(k)))?.tocsr()?;
                let b = a(3);
                let pre = if k["precond"].as_bool().unwrap() {
                    let inv = m.diagonal(0)?.reciprocal()?;
                    let n = inv.size();
                    Some(LinearOperator::new((n, n), inv.dtype(), move |x| x * &inv))
                } else {
                    None
                };
                let opts = Solve {
                    x0: (k["x0"].as_bool() == Some(true)).then(|| a(4).clone()),
                    rtol: k["rtol"].as_f64().unwrap(),
                    maxiter: k["maxiter"].as_u64().map(|v| v as usize),
                    restart: k["restart"].as_u64().map(|v| v as usize),
                    m: pre,
                    ..Default::default()
                };
                let (x, info) = match k["solver"].as_str().unwrap() {
                    "cg" => sla::cg(&m, b, opts)?,
                    "gmres" => sla::gmres(&m, b, opts)?,
                    "bicgstab" => sla::bicgstab(&m, b, opts)?,
                    "minres" => sla::minres(&m, b, opts)?,
                    "cgs" => sla::cgs(&m, b, opts)?,
                    s => panic!("solver {s}"),
                };
                let want_info = case["info"].as_i64().unwrap();
                if info != want_info {
                    return Err(format!("info {info}, SciPy {want_info}").into());
                }
                let nb = cupy::linalg::norm(b)?.item()?.to_f64();
                let res = cupy::linalg::norm(&(b - &m.dot(&x)?)?)?.item()?.to_f64() / nb;
                let theirs = case["relres"].as_f64().unwrap();
                let rtol = k["rtol"].as_f64().unwrap();
                let bound = if info == 0 {
                    (10.0 * rtol).max(10.0 * theirs)
                } else if id.contains("/ill/") {
                    // Unconverged on a condition-1e6 system: the rounding path (the order of
                    // the dot products' sums) changes which iterate is reached; same magnitude.
                    10.0 * theirs
                } else {
                    1.5 * theirs + 1e-12
                };
                if res > bound {
                    return Err(format!("relative residual {res:e}, SciPy {theirs:e}").into());
                }
                if !id.contains("/ill/") {
                    let want = g.array(case["expected"].as_str().unwrap()).upload(&dev)?;
                    let want = want.astype(x.dtype())?;
                    let d = cupy::linalg::norm(&(&x - &want)?)?.item()?.to_f64();
                    let s = cupy::linalg::norm(&want)?.item()?.to_f64();
                    let tol = if info == 0 {
                        10.0 * rtol.max(theirs) * 1e3
                    } else {
                        1e-6
                    };
                    if d > tol * s {
                        return Err(
                            format!("x differs from SciPy's by {:e} (relative)", d / s).into()
                        );
                    }
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        // Bad input: a non-square matrix names cg and both shapes.
        let a = sp::csr_matrix(
            &Array::ones_on(&dev, &[2, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let b = Array::ones_on(&dev, &[2], DType::Float64).unwrap();
        let e = sla::cg(&a, &b, Solve::default()).unwrap_err();
        assert!(
            e.to_string().contains("cg") && e.to_string().contains("(2, 3)"),
            "{e}"
        );
    }
    t.finish();
}

#[test]
fn spsolve_norm_and_operators() {
    use cupy::scipy::sparse::linalg::{self as sla, SparseNorm};
    for dev in common::backends() {
        let a = poisson(&dev, 3).unwrap();
        let x = Array::from_slice_on(
            &dev,
            &[1.0f64, -2.0, 3.0, 0.5, 0.0, 1.0, -1.0, 2.0, 4.0],
            &[9],
        )
        .unwrap();
        let b = a.dot(&x).unwrap();
        let got = sla::spsolve(&a, &b).unwrap().to_vec::<f64>().unwrap();
        let want = x.to_vec::<f64>().unwrap();
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
        }
        // Poisson 3x3 grid: 9 rows, diagonal 4, 24 off-diagonal -1s: ||A||_F = sqrt(9*16 + 24).
        let f = sla::norm(&a, SparseNorm::Fro)
            .unwrap()
            .item()
            .unwrap()
            .to_f64();
        assert!((f - (9.0f64 * 16.0 + 24.0).sqrt()).abs() < 1e-12, "{f}");
        let one = sla::norm(&a, SparseNorm::One)
            .unwrap()
            .item()
            .unwrap()
            .to_f64();
        assert_eq!(one, 8.0);
        let op = sla::aslinearoperator(&a);
        assert_eq!(op.shape(), (9, 9));
        let y = op.matvec(&x).unwrap().to_vec::<f64>().unwrap();
        let r = op.rmatvec(&x).unwrap().to_vec::<f64>().unwrap();
        assert_eq!(y, r, "symmetric: A x == A^H x");
        assert_eq!(y, b.to_vec::<f64>().unwrap());
    }
}

/// Every value dtype with int32 and int64 indices: SpMV, SpMM, toarray and the row reductions
/// run on each backend and equal the dense computation (a 7x5 matrix with an empty row and a
/// duplicate entry).
#[test]
fn every_dtype_and_index_width() {
    let rows = [0i64, 0, 2, 2, 3, 5, 6, 6, 0];
    let cols = [1i64, 4, 0, 3, 2, 2, 0, 4, 1];
    let vals = [1.5f64, -2.0, 0.25, 3.0, -1.0, 2.0, 0.5, -0.75, 0.5];
    for dev in common::backends() {
        for t in [
            DType::Float32,
            DType::Float64,
            DType::Complex64,
            DType::Complex128,
        ] {
            for it in [DType::Int32, DType::Int64] {
                let r = Array::from_slice_on(&dev, &rows, &[9])
                    .unwrap()
                    .astype(it)
                    .unwrap();
                let c = Array::from_slice_on(&dev, &cols, &[9])
                    .unwrap()
                    .astype(it)
                    .unwrap();
                let mut d = Array::from_slice_on(&dev, &vals, &[9])
                    .unwrap()
                    .astype(t)
                    .unwrap();
                if t.is_complex() {
                    let im = Array::from_slice_on(&dev, &vals, &[9]).unwrap();
                    d = (&d
                        + &im
                            .multiply(cupy::num_complex::Complex::new(0.0, 0.5))
                            .unwrap())
                        .unwrap()
                        .astype(t)
                        .unwrap();
                }
                let a = sp::coo_matrix((&d, (&r, &c)), Some((7, 5)))
                    .unwrap()
                    .tocsr()
                    .unwrap();
                assert_eq!(a.indices().dtype(), it, "{t} {it}");
                let dense = a.toarray().unwrap();
                let x = Array::arange_on(&dev, 1.0, 6.0, 1.0, t).unwrap();
                let xm = Array::arange_on(&dev, 0.0, 15.0, 1.0, t)
                    .unwrap()
                    .reshape(&[5, 3])
                    .unwrap();
                let close = |got: &Array, want: &Array, what: &str| {
                    let g = got.astype(DType::Complex128).unwrap();
                    let w = want.astype(DType::Complex128).unwrap();
                    let diff = cupy::linalg::norm(&(&g - &w).unwrap())
                        .unwrap()
                        .item()
                        .unwrap()
                        .to_f64();
                    assert!(
                        diff < 1e-4,
                        "{what} {t} {it} on {}: off by {diff}",
                        dev.label()
                    );
                };
                close(&a.dot(&x).unwrap(), &dense.matmul(&x).unwrap(), "spmv");
                close(&a.dot(&xm).unwrap(), &dense.matmul(&xm).unwrap(), "spmm");
                close(
                    &a.sum(Some(1)).unwrap(),
                    &dense.sum_axis(1).unwrap(),
                    "sum axis 1",
                );
                close(
                    &a.sum(Some(0)).unwrap(),
                    &dense.sum_axis(0).unwrap(),
                    "sum axis 0",
                );
                let p = a.matmul(&a.T()).unwrap().toarray().unwrap();
                close(&p, &dense.matmul(&dense.t()).unwrap(), "spgemm");
                if !t.is_complex() {
                    close(
                        &a.max(Some(1)).unwrap(),
                        &dense.max_axis(1).unwrap(),
                        "max axis 1",
                    );
                    close(
                        &a.min(Some(0)).unwrap(),
                        &dense.min_axis(0).unwrap(),
                        "min axis 0",
                    );
                }
            }
        }
    }
}

/// Every sparse kernel, emitted as HIP C++, compiles with hipRTC (gfx90a); the CUDA flavour
/// is emitted too. `CUPY_REQUIRE_HIP=1` turns a missing hipRTC into a failure.
#[test]
fn sparse_kernels_compile_with_hiprtc() {
    common::elementwise_kernels_compile_with_hiprtc("sparse_kernels", &sp::sparse_kernels());
}

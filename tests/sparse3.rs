//! `cupyx.scipy.sparse`, third group, against SciPy 1.17.1 goldens
//! (tests/golden/gen/sparse3.py): the structure of SpGEMM results (canonical CSR without
//! exact-zero sums) from both native algorithms (row-wise merge, expand-sort-compress), SpMV,
//! SpMM and spsolve_triangular, each under `Library::Native` and `Library::Vendor` (the vendor
//! library on cuda/hip where it loads, the native kernels elsewhere), on each backend; and the
//! selector's fallback.

use crate::common::{self, Golden, Operand};
use cupy::scipy::sparse::{self as sp, CsrMatrix, Library, SparseMatrix};
use cupy::{Array, DType, Device, Error, Result};
use serde_json::Value;

/// Matrix `i` of the case (operands `3i..3i+3`: CSR data, indices, indptr), shape `key`.
fn csr(k: &Value, ops: &[Operand], i: usize, key: &str) -> Result<CsrMatrix> {
    let s = common::usizes(&k[key]);
    let a = |j: usize| ops[3 * i + j].array();
    sp::csr_matrix((a(0), a(1), a(2)), Some((s[0], s[1])))
}

fn exec(g: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let lib: Library = case["kwargs"]["library"].as_str().unwrap().parse()?;
    sp::with_library(lib, || run(g, case, ops, dev))
}

fn run(_: &Golden, case: &Value, ops: &[Operand], _dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let a = || csr(k, ops, 0, "sa");
    match case["op"].as_str().unwrap() {
        "spgemm" => {
            let b = csr(k, ops, 1, "sb")?;
            let c = a()?.matmul(&b)?;
            match k["part"].as_str().unwrap() {
                "parts" => cupy::concatenate(
                    &[
                        &c.indptr().astype(DType::Int64)?,
                        &c.indices().astype(DType::Int64)?,
                    ],
                    0,
                ),
                "data" => Ok(c.data().clone()),
                _ => c.toarray(),
            }
        }
        "spmv" | "spmm" => a()?.dot(ops[3].array()),
        "spsolve_triangular" => sp::linalg::spsolve_triangular(
            &a()?,
            ops[3].array(),
            k["lower"].as_bool().unwrap(),
            k["unit"].as_bool().unwrap(),
        ),
        "bsr_dense" => {
            let bs = k["blocksize"].as_array().map(|v| {
                (
                    v[0].as_u64().unwrap() as usize,
                    v[1].as_u64().unwrap() as usize,
                )
            });
            let b = sp::bsr_matrix(ops[0].array(), None, bs)?;
            match k["part"].as_str().unwrap() {
                "parts" => {
                    let (r, c) = b.blocksize();
                    let rc = Array::from_slice_on(_dev, &[r as i64, c as i64], &[2])?;
                    cupy::concatenate(
                        &[
                            &b.indptr().astype(DType::Int64)?,
                            &b.indices().astype(DType::Int64)?,
                            &rc,
                        ],
                        0,
                    )
                }
                "data" => Ok(b.data().clone()),
                "spmv" => b.dot(ops[1].array()),
                _ => b.toarray(),
            }
        }
        "bsr_parts" => {
            let s = common::usizes(&k["shape"]);
            let b = sp::bsr_matrix(
                (ops[0].array(), ops[1].array(), ops[2].array()),
                Some((s[0], s[1])),
                None,
            )?;
            match k["part"].as_str().unwrap() {
                "nnz" => Array::from_slice_on(_dev, &[b.nnz() as i64], &[]),
                _ => b.toarray(),
            }
        }
        "lil" | "dok" => host_builder(case["op"].as_str().unwrap(), k, ops, _dev),
        other => panic!("sparse3 golden op {other}"),
    }
}

/// A LIL or DOK matrix from the dense operand, `sets` applied, then the part asked for.
fn host_builder(kind: &str, k: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let pairs = |key: &str| -> Vec<Vec<f64>> {
        k[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect()
    };
    let (sets, gets) = (pairs("sets"), pairs("gets"));
    let dense = ops[0].array();
    let mut lil = (kind == "lil")
        .then(|| sp::lil_matrix(dense, None))
        .transpose()?;
    let mut dok = (kind == "dok")
        .then(|| sp::dok_matrix(dense, None))
        .transpose()?;
    for s in &sets {
        let (i, j, v) = (s[0] as isize, s[1] as isize, s[2]);
        match (&mut lil, &mut dok) {
            (Some(l), _) => l.set(i, j, v)?,
            (_, Some(d)) => d.set(i, j, v)?,
            _ => unreachable!(),
        }
    }
    let m: &dyn SparseMatrix = match (&lil, &dok) {
        (Some(l), _) => l,
        (_, Some(d)) => d,
        _ => unreachable!(),
    };
    match k["part"].as_str().unwrap() {
        "gets" => {
            let mut v = vec![];
            for g in &gets {
                let (i, j) = (g[0] as isize, g[1] as isize);
                let x = match (&lil, &dok) {
                    (Some(l), _) => l.get(i, j)?,
                    (_, Some(d)) => d.get(i, j)?,
                    _ => unreachable!(),
                };
                v.push(x.to_f64());
            }
            Array::from_slice_on(dev, &v, &[v.len()])
        }
        "nnz" => Array::from_slice_on(dev, &[m.nnz() as i64], &[]),
        "csr" => {
            let c = m.tocsr()?;
            cupy::concatenate(
                &[
                    &c.indptr().astype(DType::Int64)?,
                    &c.indices().astype(DType::Int64)?,
                ],
                0,
            )
        }
        "rows" => {
            let l = lil.as_ref().unwrap();
            let mut v: Vec<i64> = l.rows().iter().map(|r| r.len() as i64).collect();
            v.extend(l.rows().iter().flatten().map(|&j| j as i64));
            Array::from_slice_on(dev, &v, &[v.len()])
        }
        "index" => {
            let spec = k["index"].as_array().unwrap();
            let opt = |v: &Value| v.as_i64().map(|x| x as isize);
            let sl = |v: &[Value]| (opt(&v[0]), opt(&v[1]), opt(&v[2]).unwrap_or(1));
            let at = |i: usize| spec[i].as_i64().unwrap() as isize;
            match (&lil, &dok, spec[0].as_str().unwrap()) {
                (Some(l), _, "row") => l.row(at(1))?.toarray(),
                (Some(l), _, "rows") => {
                    let (a, b, s) = sl(&spec[1..]);
                    l.row_slice(a, b, s)?.toarray()
                }
                (Some(l), _, "col") => l.col(at(1))?.toarray(),
                (Some(l), _, "cols") => {
                    let (a, b, s) = sl(&spec[1..]);
                    l.col_slice(a, b, s)?.toarray()
                }
                (Some(l), _, _) => l
                    .slice(
                        sl(spec[1].as_array().unwrap()),
                        sl(spec[2].as_array().unwrap()),
                    )?
                    .toarray(),
                (_, Some(d), "row") => d.row(at(1))?.toarray(),
                (_, Some(d), "rows") => {
                    let (a, b, s) = sl(&spec[1..]);
                    d.row_slice(a, b, s)?.toarray()
                }
                (_, Some(d), "col") => d.col(at(1))?.toarray(),
                (_, Some(d), "cols") => {
                    let (a, b, s) = sl(&spec[1..]);
                    d.col_slice(a, b, s)?.toarray()
                }
                (_, Some(d), _) => d
                    .slice(
                        sl(spec[1].as_array().unwrap()),
                        sl(spec[2].as_array().unwrap()),
                    )?
                    .toarray(),
                _ => unreachable!(),
            }
        }
        _ => m.toarray(),
    }
}

fn error_matches(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "ValueError" => matches!(e, Error::InvalidArgument { .. }),
        "IndexError" => matches!(e, Error::IndexOutOfBounds { .. }),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn sparse3_matches_scipy() {
    common::run_group(
        "sparse3",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        error_matches,
    );
}

/// `CUPY_SPARSE_LIBRARY`'s values parse (and a bad one names the variable); `vendor` falls back
/// to the native kernels where the device has no vendor library (wgpu, cpu: no vendor call is
/// counted) and runs the vendor library on cuda (cuSPARSE must load there).
#[test]
fn sparse_library_selector_falls_back() {
    assert_eq!("vendor".parse::<Library>().unwrap(), Library::Vendor);
    assert_eq!("Native".parse::<Library>().unwrap(), Library::Native);
    assert_eq!("".parse::<Library>().unwrap(), Library::Auto);
    let e = "cusparse".parse::<Library>().unwrap_err().to_string();
    assert!(
        e.contains("CUPY_SPARSE_LIBRARY") && e.contains("cusparse"),
        "{e}"
    );
    assert_eq!(
        sp::with_library(Library::Native, sp::library).unwrap(),
        Library::Native
    );
    for dev in common::backends() {
        let d = Array::from_slice_on(&dev, &[4.0f64, -1.0, -1.0, 4.0, -1.0, 4.0], &[6]).unwrap();
        let ix = Array::from_slice_on(&dev, &[0i32, 1, 0, 1, 1, 2], &[6]).unwrap();
        let p = Array::from_slice_on(&dev, &[0i32, 2, 4, 6], &[4]).unwrap();
        let a = sp::csr_matrix((&d, &ix, &p), Some((3, 3))).unwrap();
        let x = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0], &[3]).unwrap();
        let before = sp::vendor_calls();
        let x2 = Array::from_slice_on(&dev, &[1.0f64, 1.0, 2.0, 4.0, 3.0, 9.0], &[3, 2]).unwrap();
        let (y, c, s, s2) = sp::with_library(Library::Vendor, || {
            let y = a.dot(&x)?.to_vec::<f64>()?;
            let c = a.matmul(&a)?.toarray()?.to_vec::<f64>()?;
            let s = sp::linalg::spsolve_triangular(&a, &x, true, false)?.to_vec::<f64>()?;
            let s2 = sp::linalg::spsolve_triangular(&a, &x2, true, false)?.to_vec::<f64>()?;
            Ok::<_, cupy::Error>((y, c, s, s2))
        })
        .unwrap();
        let calls = sp::vendor_calls() - before;
        assert_eq!(y, vec![2.0, 7.0, 10.0], "spmv on {}", dev.label());
        assert_eq!(
            c,
            vec![17.0, -8.0, 0.0, -8.0, 17.0, 0.0, 1.0, -8.0, 16.0],
            "spgemm on {}",
            dev.label()
        );
        let want = [0.25, 0.5625, 0.890625];
        for (g, w) in s.iter().zip(want) {
            assert!(
                (g - w).abs() < 1e-12,
                "spsolve_triangular on {}: {s:?}",
                dev.label()
            );
        }
        // two right-hand sides [1, 2, 3] and [1, 4, 9] (SpSM)
        let want2 = [0.25, 0.25, 0.5625, 1.0625, 0.890625, 2.515625];
        for (g, w) in s2.iter().zip(want2) {
            assert!(
                (g - w).abs() < 1e-12,
                "spsolve_triangular (2-d b) on {}: {s2:?}",
                dev.label()
            );
        }
        match dev.kind() {
            cupy::BackendKind::Cuda => assert_eq!(
                calls,
                4,
                "cuda: SpMV, SpGEMM, SpSV and SpSM should run in cuSPARSE ({:?})",
                dev.backend().sparse_library().map(|l| l.check(
                    cupy::core::backend::sparse::SparseRoutine::SpMv,
                    DType::Float64,
                    DType::Int32
                ))
            ),
            cupy::BackendKind::Hip => {}
            _ => assert_eq!(calls, 0, "no vendor library on {}", dev.label()),
        }
    }
}

/// BSR, LIL and DOK convert among the formats (`asformat`, `Sparse`), BSR survives
/// `save_npz`/`load_npz`, and LIL/DOK are refused by `save_npz` with a clear error.
#[test]
fn bsr_lil_dok_convert_and_save() {
    use cupy::scipy::sparse::Format;
    for dev in common::backends() {
        let d = Array::from_slice_on(
            &dev,
            &[
                1.0f64, 2.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0,
            ],
            &[3, 4],
        )
        .unwrap();
        let want = d.to_vec::<f64>().unwrap();
        let a = sp::csr_matrix(&d, None).unwrap();
        for f in ["bsr", "lil", "dok", "csr", "coo"] {
            let fmt: Format = f.parse().unwrap();
            let m = a.asformat(fmt).unwrap();
            assert_eq!(m.format(), fmt);
            assert_eq!(
                m.nnz(),
                5,
                "{f} nnz (bsr: blocksize (1, 1), as SciPy estimates it)"
            );
            let back = m.asformat(Format::Csc).unwrap().toarray().unwrap();
            assert_eq!(
                back.to_vec::<f64>().unwrap(),
                want,
                "{f} on {}",
                dev.label()
            );
        }
        let b = a.tobsr(Some((1, 2))).unwrap();
        assert_eq!((b.blocksize(), b.nnz()), ((1, 2), 6));
        let dir = std::env::temp_dir();
        let path = dir.join(format!(
            "cupy_bsr_{}_{}.npz",
            std::process::id(),
            dev.kind().name()
        ));
        cupy::with_device(&dev, || sp::save_npz(&path, &b, true)).unwrap();
        let l = cupy::with_device(&dev, || sp::load_npz(&path)).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(l.format(), Format::Bsr);
        assert_eq!(l.toarray().unwrap().to_vec::<f64>().unwrap(), want);
        let lil = a.tolil().unwrap();
        let e = sp::save_npz(&path, &lil, true).unwrap_err().to_string();
        assert!(e.contains("save_npz") && e.contains("lil"), "{e}");
        let mut dok = a.todok().unwrap();
        dok.set(0, 0, 0.0).unwrap();
        assert_eq!(dok.nnz(), 4);
        let e = dok.set(
            0,
            0,
            cupy::Scalar::Complex128(cupy::num_complex::Complex::new(1.0, 2.0)),
        );
        assert!(matches!(e, Err(Error::TypeError { .. })), "{e:?}");
        let e = lil.get(0, 4).unwrap_err().to_string();
        assert!(e.contains("lil_matrix[i, j]"), "{e}");
    }
}

/// eigsh with `M` (`A x = lambda M x`) against SciPy 1.17.1 (sparse_linalg2 `eigsh_m` cases):
/// mode 2 (no sigma; once with M factored, once with `Minv`) and mode 3 (sigma); eigenvalues
/// within 1e-9 of the largest, vectors M-orthonormal with `||A v - lambda M v||` below 1e-7
/// of it; `Minv` without `M` or with `sigma` is refused.
#[test]
fn eigsh_generalized_matches_scipy() {
    use crate::sparse_linalg::{col, which_of};
    use cupy::scipy::sparse::linalg as sla;
    let g = Golden::load("sparse_linalg2");
    let mut t = common::Tally::new("sparse_linalg2/eigsh_m");
    for dev in common::backends() {
        for case in g.cases.iter().filter(|c| c["op"] == "eigsh_m") {
            let id = case["id"].as_str().unwrap();
            let k = &case["kwargs"];
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let ops = common::operands(&g, case, &dev)?;
                let s = common::usizes(&k["shape"]);
                let coo = |i: usize| {
                    let a = |j: usize| ops[i + j].array();
                    sp::coo_matrix((a(0), (a(1), a(2))), Some((s[0], s[1])))?.tocsr()
                };
                let (a, m) = (coo(0)?, coo(3)?);
                let wv = g.array(case["expected"].as_str().unwrap()).f64s();
                let kk = k["k"].as_u64().unwrap() as usize;
                let scale = wv.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let sigma = k["sigma"].as_f64();
                let lu = sla::splu(&m)?;
                let minv = sla::LinearOperator::new((s[0], s[0]), m.dtype(), move |x| lu.solve(x))
                    .with_device(&dev);
                let variants: Vec<Option<sla::LinearOperator>> = if sigma.is_none() {
                    vec![None, Some(minv)]
                } else {
                    vec![None]
                };
                for mi in variants {
                    let with_minv = mi.is_some();
                    let (w, v) = sla::eigsh(
                        &a,
                        kk,
                        sla::Eigsh {
                            which: which_of(k),
                            sigma,
                            m: Some((&m).into()),
                            minv: mi,
                            ..Default::default()
                        },
                    )?;
                    let got = w.astype(DType::Float64)?.to_vec::<f64>()?;
                    for (x, y) in got.iter().zip(&wv) {
                        if (x - y).abs() > 1e-9 * scale {
                            return Err(format!(
                                "values {got:?}, SciPy {wv:?} (Minv: {with_minv})"
                            )
                            .into());
                        }
                    }
                    let v = v.expect("vectors");
                    let mv = m.dot(&v)?;
                    let gram = cupy::matmul(&cupy::conj(&v.t())?, &mv)?;
                    let eye = Array::eye_on(&dev, kk, None, 0, gram.dtype())?;
                    let off = cupy::absolute(&(&gram - &eye)?)?.max()?.item()?.to_f64();
                    if off > 1e-8 {
                        return Err(format!("V^H M V - I = {off:e}").into());
                    }
                    for (j, lam) in got.iter().enumerate() {
                        let rj = (&a.dot(&col(&v, j)?)? - &(&col(&mv, j)? * *lam)?)?;
                        let rn = cupy::linalg::norm(&rj)?.item()?.to_f64();
                        if rn > 1e-7 * scale {
                            return Err(format!("residual {rn:e} of pair {j}").into());
                        }
                    }
                }
                Ok(())
            })();
            t.check(&dev, id, r);
        }
        let a = sp::csr_matrix(
            &Array::eye_on(&dev, 6, None, 0, DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let minv = sla::LinearOperator::identity(6, DType::Float64);
        let e = sla::eigsh(
            &a,
            2,
            sla::Eigsh {
                minv: Some(minv.clone()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("Minv should not be specified with M = None"),
            "{e}"
        );
        let e = sla::eigsh(
            &a,
            2,
            sla::Eigsh {
                m: Some((&a).into()),
                minv: Some(minv),
                sigma: Some(0.5),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("when sigma is"), "{e}");
        // An indefinite M (SciPy's ARPACK runs on and returns numbers): no convergence in the
        // M inner product, and the error says why M matters.
        let d = Array::arange_on(&dev, 1.0, 21.0, 1.0, DType::Float64).unwrap();
        let a20 = sp::diags(&[&d], &[0]).unwrap().tocsr().unwrap();
        let mut md = vec![1.0f64; 20];
        md[19] = -1.0;
        let md = Array::from_slice_on(&dev, &md, &[20]).unwrap();
        let mi = sp::diags(&[&md], &[0]).unwrap().tocsr().unwrap();
        let e = sla::eigsh(
            &a20,
            2,
            sla::Eigsh {
                m: Some((&mi).into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("positive definite"), "{e}");
        let m5 = sp::csr_matrix(
            &Array::eye_on(&dev, 5, None, 0, DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sla::eigsh(
            &a,
            2,
            sla::Eigsh {
                m: Some((&m5).into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("(5, 5)"), "{e}");
    }
    t.finish();
}

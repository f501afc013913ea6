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
        },
        "conj" => match &m {
            Sparse::Csr(c) => c.conj()?.toarray(),
            Sparse::Csc(c) => c.conj()?.toarray(),
            Sparse::Coo(c) => c.conj()?.toarray(),
            Sparse::Dia(c) => c.tocoo()?.conj()?.toarray(),
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
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
        assert!(
            e.to_string().contains("[3, 3]") && e.to_string().contains("[4]"),
            "{e}"
        );
        let c: CooMatrix = a.tocoo().unwrap();
        let b: CscMatrix = c.tocsc().unwrap();
        assert_eq!(b.shape(), (3, 3));
    }
}

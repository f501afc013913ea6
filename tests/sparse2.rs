//! `cupyx.scipy.sparse`, second group, against SciPy 1.17.1 goldens
//! (tests/golden/gen/sparse2.py): setdiag, argmax/argmin, maximum/minimum, bmat, block_diag,
//! kronsum, and the structure of random/rand, on each backend.

use crate::common::{self, Golden, Operand};
use cupy::scipy::sparse::{self as sp, Format, Sparse, SparseMatrix};
use cupy::{Array, DType, Device, Error, Result};
use serde_json::Value;

/// Matrix `i` of the case (operands `3i..3i+3` as COO triplets), converted to `fmt`.
fn mat(k: &Value, ops: &[Operand], i: usize) -> Result<Sparse> {
    let s = common::usizes(&k["shapes"][i]);
    let a = |j: usize| ops[3 * i + j].array();
    let m = Sparse::Coo(sp::coo_matrix((a(0), (a(1), a(2))), Some((s[0], s[1])))?);
    let f: Format = k["fmt"].as_str().unwrap().parse()?;
    if f == Format::Coo {
        return Ok(m);
    }
    m.asformat(f)
}

fn nmats(k: &Value) -> usize {
    k["shapes"].as_array().unwrap().len()
}

fn axis(k: &Value) -> Option<isize> {
    k["axis"].as_i64().map(|a| a as isize)
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let op = case["op"].as_str().unwrap();
    if op == "random" {
        let (m, n) = (
            k["m"].as_u64().unwrap() as usize,
            k["n"].as_u64().unwrap() as usize,
        );
        let format: Format = k["format"].as_str().unwrap().parse()?;
        let dtype = DType::from_name(k["dtype"].as_str().unwrap()).unwrap();
        let r = sp::random_with(
            m,
            n,
            sp::SpRandom {
                density: k["density"].as_f64().unwrap(),
                format,
                dtype,
                seed: Some(7),
                device: Some(dev.clone()),
            },
        )?;
        check_random(&r, format, dtype, (m, n))?;
        return Array::from_slice_on(
            dev,
            &[r.nnz() as i64, r.shape().0 as i64, r.shape().1 as i64],
            &[3],
        );
    }
    if case["id"].as_str().unwrap().ends_with("argmax/empty") {
        let e = sp::CsrMatrix::empty(dev, (0, 3), DType::Float64)?;
        return e.argmax(None);
    }
    let extra = &ops[3 * nmats(k)..];
    let m0 = mat(k, ops, 0)?;
    let csr = || m0.tocsr();
    match op {
        "setdiag" => {
            let v = extra[0].array();
            let kk = k["k"].as_i64().unwrap() as isize;
            match m0 {
                Sparse::Csr(mut c) => {
                    c.setdiag(v, kk)?;
                    c.toarray()
                }
                Sparse::Csc(mut c) => {
                    c.setdiag(v, kk)?;
                    c.toarray()
                }
                Sparse::Coo(mut c) => {
                    c.setdiag(v, kk)?;
                    c.toarray()
                }
                _ => unreachable!(),
            }
        }
        "argmax" => csr()?.argmax(axis(k)),
        "argmin" => csr()?.argmin(axis(k)),
        "maximum" => csr()?.maximum(&mat(k, ops, 1)?)?.toarray(),
        "minimum" => csr()?.minimum(&mat(k, ops, 1)?)?.toarray(),
        "maximum_nnz" => {
            let r = csr()?.maximum(&mat(k, ops, 1)?)?;
            Array::from_slice_on(dev, &[r.nnz() as i64], &[])
        }
        "maximum_scalar" => csr()?.maximum_scalar(k["s"].as_f64().unwrap())?.toarray(),
        "minimum_scalar" => csr()?.minimum_scalar(k["s"].as_f64().unwrap())?.toarray(),
        "maximum_dense" => csr()?.maximum_dense(extra[0].array()),
        "minimum_dense" => csr()?.minimum_dense(extra[0].array()),
        "bmat2" => {
            let ms: Vec<Sparse> = (0..nmats(k))
                .map(|i| mat(k, ops, i))
                .collect::<Result<_>>()?;
            let grid: Vec<Vec<Option<&dyn SparseMatrix>>> = k["grid"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| {
                    row.as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c.as_u64().map(|i| &ms[i as usize] as &dyn SparseMatrix))
                        .collect()
                })
                .collect();
            sp::bmat(&grid, Format::Coo)?.toarray()
        }
        "block_diag" => {
            let ms: Vec<Sparse> = (0..nmats(k))
                .map(|i| mat(k, ops, i))
                .collect::<Result<_>>()?;
            let refs: Vec<&dyn SparseMatrix> = ms.iter().map(|m| m as &dyn SparseMatrix).collect();
            sp::block_diag(&refs, Format::Csr)?.toarray()
        }
        "row" | "col" | "row_slice" | "col_slice" | "rows" | "cols" | "get" => {
            index_op(op, k, &m0, extra)
        }
        "spsolve_triangular" => cupy::scipy::sparse::linalg::spsolve_triangular(
            &m0,
            extra[0].array(),
            k["lower"].as_bool().unwrap(),
            k["unit"].as_bool().unwrap(),
        ),
        "kronsum" => sp::kronsum(&m0, &mat(k, ops, 1)?, Format::Csr)?.toarray(),
        other => panic!("sparse2 golden op {other}"),
    }
}

fn opt(v: &Value) -> Option<isize> {
    v.as_i64().map(|x| x as isize)
}

/// The indexing ops on CSR or CSC (the result toarray, or the element).
fn index_op(op: &str, k: &Value, m: &Sparse, extra: &[Operand]) -> Result<Array> {
    let i = || k["i"].as_i64().unwrap() as isize;
    let j = || k["j"].as_i64().unwrap() as isize;
    let (a, b, st) = (
        opt(&k["start"]),
        opt(&k["stop"]),
        k["step"].as_i64().unwrap_or(1) as isize,
    );
    match m {
        Sparse::Csr(c) => match op {
            "row" => c.row(i())?.toarray(),
            "col" => c.col(j())?.toarray(),
            "row_slice" => c.row_slice(a, b, st)?.toarray(),
            "col_slice" => c.col_slice(a, b, st)?.toarray(),
            "rows" => c.rows(extra[0].array())?.toarray(),
            "cols" => c.cols(extra[0].array())?.toarray(),
            _ => c.get(i(), j()),
        },
        Sparse::Csc(c) => match op {
            "row" => c.row(i())?.toarray(),
            "col" => c.col(j())?.toarray(),
            "row_slice" => c.row_slice(a, b, st)?.toarray(),
            "col_slice" => c.col_slice(a, b, st)?.toarray(),
            "rows" => c.rows(extra[0].array())?.toarray(),
            "cols" => c.cols(extra[0].array())?.toarray(),
            _ => c.get(i(), j()),
        },
        _ => panic!("indexing case on {:?}", m.format()),
    }
}

/// The structure of a random matrix: format, dtype, shape, distinct in-range positions and
/// values in [0, 1) (real and imaginary parts).
fn check_random(r: &Sparse, format: Format, dtype: DType, shape: (usize, usize)) -> Result<()> {
    assert_eq!(r.format(), format);
    assert_eq!(r.dtype(), dtype);
    assert_eq!(r.shape(), shape);
    let c = r.tocoo()?;
    let rows = c.row().astype(DType::Int64)?.to_vec::<i64>()?;
    let cols = c.col().astype(DType::Int64)?.to_vec::<i64>()?;
    let mut keys: Vec<(i64, i64)> = rows.iter().copied().zip(cols.iter().copied()).collect();
    for &(i, j) in &keys {
        assert!(i >= 0 && (i as usize) < shape.0 && j >= 0 && (j as usize) < shape.1);
    }
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), c.nnz(), "random: positions must be distinct");
    let parts = if dtype.is_complex() {
        vec![cupy::real(c.data())?, cupy::imag(c.data())?]
    } else {
        vec![c.data().clone()]
    };
    for p in parts {
        for v in p.astype(DType::Float64)?.to_vec::<f64>()? {
            assert!((0.0..1.0).contains(&v), "random value {v}");
        }
    }
    Ok(())
}

fn error_matches(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "ValueError" => matches!(
            e,
            Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }
        ),
        "LinAlgError" => matches!(e, Error::LinAlgError { .. }),
        "IndexError" => matches!(e, Error::IndexOutOfBounds { .. }),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn sparse2_matches_scipy() {
    common::run_group(
        "sparse2",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        error_matches,
    );
}

/// The same seed gives the same matrix on every backend (Philox), and errors name the op.
#[test]
fn sparse_random_is_reproducible_and_errors_name_the_op() {
    let mut first: Option<(Vec<i64>, Vec<f64>)> = None;
    for dev in common::backends() {
        let opts = sp::SpRandom {
            density: 0.05,
            seed: Some(42),
            device: Some(dev.clone()),
            ..Default::default()
        };
        let r = sp::random_with(30, 20, opts.clone())
            .unwrap()
            .tocsr()
            .unwrap();
        let again = sp::random_with(30, 20, opts).unwrap().tocsr().unwrap();
        assert_eq!(r.nnz(), 30);
        let idx = r
            .indices()
            .astype(DType::Int64)
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        let vals = r.data().to_vec::<f64>().unwrap();
        assert_eq!(
            idx,
            again
                .indices()
                .astype(DType::Int64)
                .unwrap()
                .to_vec::<i64>()
                .unwrap()
        );
        match &first {
            None => first = Some((idx, vals)),
            Some((i0, v0)) => {
                assert_eq!(&idx, i0, "positions differ on {}", dev.label());
                for (a, b) in vals.iter().zip(v0) {
                    assert!((a - b).abs() < 1e-12, "values differ on {}", dev.label());
                }
            }
        }
        let a = sp::csr_matrix(
            &Array::ones_on(&dev, &[2, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = sp::kronsum(&a, &a, Format::Csr).unwrap_err().to_string();
        assert!(e.contains("kronsum") && e.contains("(2, 3)"), "{e}");
        let b = sp::csr_matrix(
            &Array::ones_on(&dev, &[3, 3], DType::Float64).unwrap(),
            None,
        )
        .unwrap();
        let e = a.maximum(&b).unwrap_err().to_string();
        assert!(
            e.contains("maximum") && e.contains("(2, 3)") && e.contains("(3, 3)"),
            "{e}"
        );
        let mut c = a.clone();
        let v = Array::from_slice_on(&dev, &[1.0f64], &[]).unwrap();
        let e = c.setdiag(&v, 5).unwrap_err().to_string();
        assert!(e.contains("setdiag") && e.contains("(2, 3)"), "{e}");
    }
}

/// NumPy's `argmax`/`argmin` of the dense matrix with NaN values: the first NaN (the NaN
/// extreme matched no stored value, so every axis answered 0 or an implicit zero's index).
#[test]
fn argmax_argmin_with_nan_pick_the_first_nan() {
    for dev in common::backends() {
        let nan = f64::NAN;
        let d = [1., 0., 2., 0., 0., 0., 3., nan, -4., 0., 0., 5.];
        let dense = Array::from_slice_on(&dev, &d, &[3, 4]).unwrap();
        let a = sp::csr_matrix(&dense, None).unwrap();
        let ints = |r: Result<Array>| r.unwrap().to_vec::<i64>().unwrap();
        // numpy: argmax() == argmin() == 7; argmax(0) == [0, 0, 1, 1]; argmin(0) ==
        // [2, 0, 2, 1]; argmax(1) == [2, 3, 3]; argmin(1) == [1, 3, 0].
        assert_eq!(ints(a.argmax(None)), [7], "on {dev}");
        assert_eq!(ints(a.argmin(None)), [7], "on {dev}");
        assert_eq!(ints(a.argmax(Some(0))), [0, 0, 1, 1], "on {dev}");
        assert_eq!(ints(a.argmin(Some(0))), [2, 0, 2, 1], "on {dev}");
        assert_eq!(ints(a.argmax(Some(1))), [2, 3, 3], "on {dev}");
        assert_eq!(ints(a.argmin(Some(-1))), [1, 3, 0], "on {dev}");
    }
}

/// An axis whose lines are empty gives an empty result (NumPy's `zeros((0, 5)).argmax(1)`,
/// SciPy's too); only a reduced axis of length 0 is an error.
#[test]
fn argmax_along_an_axis_of_an_empty_matrix() {
    for dev in common::backends() {
        for (shape, ok_axis, bad_axis) in [((0, 5), 1, 0), ((4, 0), 0, 1)] {
            let z = sp::csr_matrix(
                &Array::zeros_on(&dev, &[shape.0, shape.1], DType::Float64).unwrap(),
                None,
            )
            .unwrap();
            for r in [z.argmax(Some(ok_axis)), z.argmin(Some(ok_axis - 2))] {
                let r = r.unwrap();
                assert_eq!((r.shape(), r.dtype()), (&[0][..], DType::Int64), "on {dev}");
            }
            let e = z.argmax(Some(bad_axis)).unwrap_err().to_string();
            assert!(
                e.contains("argmax") && e.contains("zero-sized"),
                "{e} on {dev}"
            );
        }
    }
}

/// `A.power(0)` is SciPy's NotImplementedError (the result would be dense), and the scalar
/// ops refuse an array that is not 0-d (it paired elementwise with the stored values).
#[test]
fn power_zero_and_non_scalar_operands_are_refused() {
    for dev in common::backends() {
        let d = [1., 0., 2., 0., 0., 3.];
        let a = sp::csr_matrix(&Array::from_slice_on(&dev, &d, &[2, 3]).unwrap(), None).unwrap();
        for r in [a.power(0), a.power(0.0), a.power(false)] {
            let e = r.unwrap_err().to_string();
            assert!(
                e.contains("power") && e.contains("zero power"),
                "{e} on {dev}"
            );
        }
        let zero = Array::zeros_on(&dev, &[], DType::Float64).unwrap();
        assert!(a.power(&zero).is_err(), "on {dev}");
        // A length-nnz array broadcast against the stored values before.
        let v = Array::from_slice_on(&dev, &[2.0, 3.0, 4.0], &[3]).unwrap();
        for e in [
            a.power(&v).unwrap_err(),
            a.mul_scalar(&v).unwrap_err(),
            a.div_scalar(&v).unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(e.contains("sparse") && e.contains("(3,)"), "{e} on {dev}");
        }
        // Scalars and 0-d arrays still work.
        let two = Array::from_slice_on(&dev, &[2.0], &[]).unwrap();
        let p = a
            .power(&two)
            .unwrap()
            .toarray()
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(p, [1., 0., 4., 0., 0., 9.], "on {dev}");
        let m = a
            .mul_scalar(&two)
            .unwrap()
            .toarray()
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(m, [2., 0., 4., 0., 0., 6.], "on {dev}");
        assert_eq!(a.power(-1).unwrap().nnz(), 3, "on {dev}");
    }
}

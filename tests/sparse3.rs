//! `cupyx.scipy.sparse`, third group, against SciPy 1.17.1 goldens
//! (tests/golden/gen/sparse3.py): the structure of SpGEMM results (canonical CSR without
//! exact-zero sums) from both native algorithms (row-wise merge, expand-sort-compress), SpMV,
//! SpMM and spsolve_triangular, each under `Library::Native` and `Library::Vendor` (the vendor
//! library on cuda/hip where it loads, the native kernels elsewhere), on each backend; and the
//! selector's fallback.

use crate::common::{self, Golden, Operand};
use cupy::scipy::sparse::{self as sp, CsrMatrix, Library, SparseMatrix};
use cupy::{Array, DType, Device, Result};
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
        other => panic!("sparse3 golden op {other}"),
    }
}

#[test]
fn sparse3_matches_scipy() {
    common::run_group(
        "sparse3",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        common::generic_error_match,
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
        let (y, c, s) = sp::with_library(Library::Vendor, || {
            let y = a.dot(&x)?.to_vec::<f64>()?;
            let c = a.matmul(&a)?.toarray()?.to_vec::<f64>()?;
            let s = sp::linalg::spsolve_triangular(&a, &x, true, false)?.to_vec::<f64>()?;
            Ok::<_, cupy::Error>((y, c, s))
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
        match dev.kind() {
            cupy::BackendKind::Cuda => assert_eq!(
                calls,
                3,
                "cuda: SpMV, SpGEMM and SpSV should run in cuSPARSE ({:?})",
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

//! The sparse cases of `bench/sparse_baseline.py` (issue 18), on the 2-D 5-point Poisson
//! matrix of a `g x g` grid (`g^2` rows, about `5 g^2` entries, float64, int32 indices), built
//! on the host in CSR order and uploaded:
//! - `sparse_spmv_f64_poisson_{g}`: `A @ x` (g = 4000: 16 M rows);
//! - `sparse_spgemm_f64_poisson_{g}`: `A @ A` (g = 4000);
//! - `sparse_cg_{g}_{it}it`: `cg(A, b)` for exactly `it` iterations (`rtol=0`, g = 1000,
//!   it = 500), the whole call timed.
//!
//! `--sparse-grid G` changes the SpMV/SpGEMM grid. `CUPY_SPARSE_LIBRARY=vendor` times
//! cuSPARSE/rocSPARSE's SpMV and SpGEMM instead of the native kernels (`native`, and `auto` for
//! these two cases); the native SpGEMM of the 4000^2 grid is the row-wise path (A's rows hold
//! at most 5 entries), whose memory is C (about 208 M entries) plus two counts per row.

use super::Bench;
use cupy as cp;
use cupy::scipy::sparse::{self as sp, CsrMatrix};
use cupy::{Array, DType, Device};

/// The Poisson matrix of a `g x g` grid (`kron(I, T) + kron(T, I)`, `T = tridiag(-1, 2, -1)`).
fn poisson(dev: &Device, g: usize) -> cp::Result<CsrMatrix> {
    let n = g * g;
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::with_capacity(5 * n);
    let mut data = Vec::with_capacity(5 * n);
    indptr.push(0i32);
    for i in 0..g {
        for j in 0..g {
            let r = (i * g + j) as i32;
            let g = g as i32;
            let mut push = |c: i32, v: f64| {
                indices.push(c);
                data.push(v);
            };
            if i > 0 {
                push(r - g, -1.0);
            }
            if j > 0 {
                push(r - 1, -1.0);
            }
            push(r, 4.0);
            if (j as i32) < g - 1 {
                push(r + 1, -1.0);
            }
            if (i as i32) < g - 1 {
                push(r + g, -1.0);
            }
            indptr.push(indices.len() as i32);
        }
    }
    let nnz = indices.len();
    let d = Array::from_slice_on(dev, &data, &[nnz])?;
    let ix = Array::from_slice_on(dev, &indices, &[nnz])?;
    let p = Array::from_slice_on(dev, &indptr, &[n + 1])?;
    sp::csr_matrix((&d, &ix, &p), Some((n, n)))
}

pub(super) fn sparse_cases(b: &Bench, dev: &Device, quick: bool, grid: Option<usize>) {
    let g = grid.unwrap_or(if quick { 200 } else { 4000 });
    let spmv = format!("sparse_spmv_f64_poisson_{g}");
    let spgemm = format!("sparse_spgemm_f64_poisson_{g}");
    if b.want(&spmv) || b.want(&spgemm) {
        match poisson(dev, g) {
            Ok(a) => {
                if b.want(&spmv) {
                    let r = (|| {
                        let x = Array::ones_on(dev, &[g * g], DType::Float64)?;
                        b.time(3, 20, || a.dot(&x).map(|_| ()))
                    })();
                    let nnz = a.data().size() as f64;
                    let rows = (g * g) as f64;
                    // data + indices + indptr + x gathered + y written
                    let bytes = nnz * 12.0 + rows * 4.0 + rows * 16.0;
                    b.report(&spmv, r, |ms| vec![("GBps", bytes / ms / 1e6)]);
                }
                if b.want(&spgemm) {
                    let r = b.time(1, 3, || a.matmul(&a).map(|_| ()));
                    b.report(&spgemm, r, |_| vec![]);
                }
            }
            Err(e) => b.report(&spmv, Err(e), |_| vec![]),
        }
    }
    let (g, it) = if quick { (100, 50) } else { (1000, 500) };
    let case = format!("sparse_cg_{g}_{it}it");
    if b.want(&case) {
        let r = (|| {
            let a = poisson(dev, g)?;
            let rhs = Array::ones_on(dev, &[g * g], DType::Float64)?;
            let opts = sp::linalg::Solve {
                rtol: 0.0,
                maxiter: Some(it),
                ..Default::default()
            };
            b.time(1, 3, || {
                let (_, info) = sp::linalg::cg(&a, &rhs, opts.clone())?;
                assert_eq!(info, it as i64, "cg stopped early");
                Ok(())
            })
        })();
        b.report(&case, r, |ms| vec![("ms_per_it", ms / it as f64)]);
    }
}

//! SciPy's `spsolve_triangular`: forward or back substitution on the CSR rows, one IR kernel
//! (`kernels::trisolve`) on every backend. Each right-hand side is one invocation walking the
//! rows in order, so the solve is exact and serial per column (level scheduling, as cuSPARSE's
//! SpSV does, is not done yet: docs/backends.md). On cuda/hip a 1-d `b` goes to the vendor SpSV
//! and a 2-d one to the vendor SpSM (cuSPARSE, rocSPARSE: every right-hand side in one call)
//! under `CUPY_SPARSE_LIBRARY=auto` (the default) or `vendor`, with the chosen triangle alone.

use super::super::base::{cast, SparseMatrix};
use super::super::kernels::{self, Which};
use super::super::{not_square, shapes_error};
use crate::array::Array;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;

/// SciPy's `spsolve_triangular(A, b, lower=True, unit_diagonal=False)`: `x` with `A x = b` for
/// a triangular `A` (only the entries of the chosen triangle are used; duplicates summed).
/// `b` is 1-d or 2-d (`[n, k]`, `k` right-hand sides); the result has `b`'s shape and the
/// dtype `promote(A, b, float32)`, as SciPy's.
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square `A`, a `b` of other length (both shapes named)
/// or of other than 1 or 2 dimensions; [`Error::LinAlgError`]
/// for a zero on the diagonal ("A is singular: zero entry on diagonal", unless
/// `unit_diagonal`).
pub fn spsolve_triangular(
    a: &dyn SparseMatrix,
    b: &Array,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Array> {
    let op = "spsolve_triangular";
    let (m, n) = a.shape();
    if m != n {
        return Err(not_square(op, "A", (m, n)));
    }
    if b.ndim() != 1 && b.ndim() != 2 {
        return Err(Error::invalid(
            op,
            format!("b must have 1 or 2 dims but its shape is {:?}", b.shape()),
        ));
    }
    if b.shape()[0] != m {
        return Err(shapes_error(
            op,
            ("A", &[m, n]),
            ("b", b.shape()),
            format!("b's first dimension must be {m}"),
        ));
    }
    let t = cupy_core::promote::promote_types(
        cupy_core::promote::promote_types(a.dtype(), DType::Float32),
        b.dtype(),
    );
    let t = super::super::base::value_dtype(op, t)?;
    let csr = a.tocsr()?.canonical()?;
    if !unit_diagonal && n > 0 {
        let d = csr.diagonal(0)?;
        let zero = d.equal(0i64)?.any()?;
        if super::super::base::read_i64s(&[&zero])?[0] != 0 {
            return Err(Error::linalg(op, "A is singular: zero entry on diagonal."));
        }
    }
    if let Some(x) = super::super::library::spsv(&csr.c, &cast(b, t)?, t, lower, unit_diagonal)? {
        return Ok(x);
    }
    let k = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    let x = cast(b, t)?.copy()?;
    if n == 0 || k == 0 {
        return Ok(x);
    }
    let data = cast(csr.data(), t)?;
    let (kern, dtypes) = kernels::cached(Which::TriSolve, t, csr.indices().dtype())?;
    Elementwise {
        op,
        kernel: &kern,
        inputs: &[],
        raws: &[csr.indptr(), csr.indices(), &data, &x],
        params: vec![
            Scalar::Int64(csr.c.max_len()? as i64),
            Scalar::Int64(n as i64),
            Scalar::Int64(k as i64),
            Scalar::Int64(if lower { 0 } else { 1 }),
            Scalar::Int64(unit_diagonal as i64),
        ],
        outs: vec![],
        device: Some(csr.device()),
        shape: Some(&[k]),
    }
    .run_validated(&dtypes)?;
    Ok(x)
}
routine!(spsolve_triangular as "cupyx.scipy.sparse.linalg.spsolve_triangular", Sparse, probe: super::super::probe, notes: "substitution kernel, one invocation per right-hand side (serial per column); cuSPARSE/rocSPARSE SpSV (1-d b) or SpSM (2-d b) where loaded");

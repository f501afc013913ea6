//! SciPy's sparse direct factorizations [`splu`], [`spilu`] and [`factorized`], **on the
//! host** on every backend (docs/backends.md): the matrix is read back once (CSR), factored
//! there (faer's sparse LU with partial pivoting for `splu`; an incomplete LU with threshold
//! dropping, Saad's ILUT, for `spilu`), and each `solve` reads `b` back, solves on the host and
//! uploads `x` to `A`'s device. No GPU sparse direct solver is wired yet (cuDSS / rocSOLVER's
//! sparse routines), so this is the path of all four backends.

use super::super::base::{value_dtype, SparseMatrix};
use super::super::{not_square, shapes_error};
use crate::array::Array;
use crate::device::Device;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use faer::linalg::solvers::Solve as _;
use faer::sparse::linalg::solvers::Lu;
use faer::sparse::{SparseColMat, Triplet};
use num_complex::Complex;

type C64 = Complex<f64>;

/// The host factors: faer's sparse LU, or the ILUT factors (CSR rows of `L` without its unit
/// diagonal, and of `U`).
#[derive(Clone)]
enum Factors {
    LuReal(Lu<usize, f64>),
    LuComplex(Lu<usize, C64>),
    Ilu(Box<Ilu>),
}

/// `L` (strictly lower, unit diagonal implied) and `U` (diagonal first in each row), as rows
/// of `(column, value)`.
#[derive(Clone)]
struct Ilu {
    l: Vec<Vec<(usize, C64)>>,
    u: Vec<Vec<(usize, C64)>>,
}

/// Which system [`SuperLU::solve_with`] solves (SciPy's `trans=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trans {
    /// `A x = b` (`'N'`, the default).
    #[default]
    N,
    /// `A^T x = b` (`'T'`).
    T,
    /// `A^H x = b` (`'H'`).
    H,
}

/// SciPy's `SuperLU` object, what [`splu`] and [`spilu`] return: `solve(b)` for the factored
/// matrix (host factors; docs/backends.md).
#[derive(Clone)]
pub struct SuperLU {
    shape: (usize, usize),
    dtype: DType,
    device: Device,
    f: Factors,
}

impl std::fmt::Debug for SuperLU {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<SuperLU {}x{} {} (host factors)>",
            self.shape.0, self.shape.1, self.dtype
        )
    }
}

/// The CSR arrays of `a` on the host (values as complex128), after checking it is square.
#[allow(clippy::type_complexity)]
fn host_csr(
    op: &str,
    a: &dyn SparseMatrix,
) -> Result<(usize, Vec<i64>, Vec<i64>, Vec<C64>, DType)> {
    let (m, n) = a.shape();
    if m != n {
        return Err(not_square(op, "A", (m, n)));
    }
    let t = value_dtype(
        op,
        cupy_core::promote::promote_types(a.dtype(), DType::Float32),
    )?;
    let c = a.tocsr()?.canonical()?;
    let indptr = c.indptr().astype(DType::Int64)?.to_vec::<i64>()?;
    let indices = c.indices().astype(DType::Int64)?.to_vec::<i64>()?;
    let data = c.data().astype(DType::Complex128)?.to_vec::<C64>()?;
    Ok((n, indptr, indices, data, t))
}

fn singular(op: &str) -> Error {
    Error::linalg(op, "Factor is exactly singular")
}

/// SciPy's `splu(A)`: the LU factorization with partial pivoting of a square sparse matrix,
/// computed on the host by faer's sparse LU (column approximate minimum degree ordering),
/// whatever `A`'s device. `solve` results have `A`'s dtype promoted with `b`'s (SciPy's
/// SuperLU keeps single precision; here the factors are float64/complex128 and results are
/// cast back).
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square `A`; [`Error::LinAlgError`] "Factor is exactly
/// singular" for a structurally or numerically singular matrix.
pub fn splu(a: &dyn SparseMatrix) -> Result<SuperLU> {
    lu_of("splu", a)
}
routine!(splu as "cupyx.scipy.sparse.linalg.splu / factorized", Sparse, probe: super::super::probe, notes: "host: faer's sparse LU on every backend (docs/backends.md)");

/// SciPy's `spsolve(A, b)`: `x` with `A x = b` by a sparse direct solve, **on the host** on
/// every backend (docs/backends.md): `A`'s CSR is read back once and factored by faer's sparse
/// LU with partial pivoting (column approximate minimum degree ordering), `b` read back, and
/// `x` uploaded to `A`'s device. `b` is `[n]` or `[n, k]` (all `k` right-hand sides in one
/// solve); an `[n, 1]` `b` gives a 1-d `x`, as SciPy's. The result dtype is `promote(A, b)`
/// (at least float32; the factors are float64/complex128 and the result is cast back).
///
/// A singular matrix is an error, as NumPy's `linalg.solve` (SciPy warns
/// `MatrixRankWarning` and returns NaNs; docs/differences.md).
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square `A`, or a `b` of other than `n` rows or of more
/// than 2 dimensions (both shapes named); [`Error::LinAlgError`] "spsolve: Matrix is exactly
/// singular" for a structurally or numerically singular `A`.
pub fn spsolve(a: &dyn SparseMatrix, b: &Array) -> Result<Array> {
    let (m, n) = a.shape();
    if m != n {
        return Err(not_square("spsolve", "A", (m, n)));
    }
    if b.ndim() == 0 || b.ndim() > 2 || b.shape()[0] != m {
        return Err(shapes_error(
            "spsolve",
            ("A", &[m, n]),
            ("b", b.shape()),
            format!("b must have shape ({m},) or ({m}, k)"),
        ));
    }
    let lu = lu_of("spsolve", a).map_err(|e| match e {
        Error::LinAlgError { ref reason, .. } if reason.contains("singular") => {
            Error::linalg("spsolve", "Matrix is exactly singular")
        }
        e => e,
    })?;
    let x = lu.solve(b)?;
    if b.ndim() == 2 && b.shape()[1] == 1 {
        return x.reshape(&[n as isize]);
    }
    Ok(x)
}
routine!(spsolve as "cupyx.scipy.sparse.linalg.spsolve", Sparse, probe: super::super::probe, notes: "host: faer's sparse LU on every backend (docs/backends.md); several right-hand sides");

/// The sparse LU of `a` on the host (see [`splu`]), errors naming `op`.
fn lu_of(op: &str, a: &dyn SparseMatrix) -> Result<SuperLU> {
    let (n, indptr, indices, data, t) = host_csr(op, a)?;
    let complex = t.is_complex();
    let mut re = vec![];
    let mut cx = vec![];
    for r in 0..n {
        for p in indptr[r] as usize..indptr[r + 1] as usize {
            let c = indices[p] as usize;
            if complex {
                cx.push(Triplet::new(r, c, data[p]));
            } else {
                re.push(Triplet::new(r, c, data[p].re));
            }
        }
    }
    let err = |e: String| Error::linalg(op, e);
    let f = if complex {
        let m = SparseColMat::<usize, C64>::try_new_from_triplets(n, n, &cx)
            .map_err(|e| err(format!("{e:?}")))?;
        Factors::LuComplex(m.sp_lu().map_err(|_| singular(op))?)
    } else {
        let m = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &re)
            .map_err(|e| err(format!("{e:?}")))?;
        Factors::LuReal(m.sp_lu().map_err(|_| singular(op))?)
    };
    let lu = SuperLU {
        shape: (n, n),
        dtype: t,
        device: a.device().clone(),
        f,
    };
    // faer reports structural singularity only; a zero pivot shows as a non-finite solve.
    if n > 0 {
        let probe: Vec<C64> = (0..n)
            .map(|i| C64::new(1.0 + i as f64 / n as f64, 0.0))
            .collect();
        if lu
            .solve_host(&probe, 1, Trans::N)
            .iter()
            .any(|z| !z.re.is_finite() || !z.im.is_finite())
        {
            return Err(singular(op));
        }
    }
    Ok(lu)
}

/// The keywords of [`spilu`] (SciPy's `drop_tol=None` (1e-4), `fill_factor=None` (10)).
#[derive(Clone, Copy, Debug)]
pub struct Spilu {
    /// Entries below `drop_tol` times the norm of their row of `A` are dropped.
    pub drop_tol: f64,
    /// Each row of `L` and of `U` keeps at most `fill_factor` times the row's nonzeros of `A`.
    pub fill_factor: f64,
}

impl Default for Spilu {
    fn default() -> Spilu {
        Spilu {
            drop_tol: 1e-4,
            fill_factor: 10.0,
        }
    }
}

/// SciPy's `spilu(A, drop_tol, fill_factor)`: an incomplete LU factorization for
/// preconditioning (`M = LinearOperator(A.shape, ilu.solve)`), computed on the host by Saad's
/// ILUT (threshold dropping relative to each row's 2-norm, at most `fill_factor * nnz(row)`
/// entries kept per row of `L` and `U`, no pivoting). SciPy's SuperLU ILUTP pivots and drops
/// by other rules, so the factors differ from SciPy's; with `drop_tol = 0` and enough fill it
/// is the exact LU (without pivoting).
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square `A`; [`Error::LinAlgError`] for a zero pivot.
pub fn spilu(a: &dyn SparseMatrix, o: Spilu) -> Result<SuperLU> {
    let op = "spilu";
    let (n, indptr, indices, data, t) = host_csr(op, a)?;
    let mut l: Vec<Vec<(usize, C64)>> = Vec::with_capacity(n);
    let mut u: Vec<Vec<(usize, C64)>> = Vec::with_capacity(n);
    let mut w = vec![C64::new(0.0, 0.0); n];
    let mut nz = vec![false; n];
    for i in 0..n {
        let (s, e) = (indptr[i] as usize, indptr[i + 1] as usize);
        let mut pattern: Vec<usize> = vec![];
        let mut rnorm = 0.0f64;
        for p in s..e {
            let c = indices[p] as usize;
            w[c] = data[p];
            rnorm += data[p].norm_sqr();
            if !nz[c] {
                nz[c] = true;
                pattern.push(c);
            }
        }
        let tau = o.drop_tol * rnorm.sqrt() / ((e - s).max(1) as f64).sqrt();
        let keep = ((o.fill_factor * (e - s) as f64).ceil() as usize).max(1);
        // Eliminate the lower part in increasing column order (the pattern grows).
        let mut k = 0;
        loop {
            let next = pattern
                .iter()
                .filter(|&&c| c < i && c >= k && nz[c])
                .min()
                .copied();
            let Some(c) = next else { break };
            k = c + 1;
            let piv = u[c][0].1;
            let f = w[c] / piv;
            if f.norm() < tau {
                w[c] = C64::new(0.0, 0.0);
                continue;
            }
            w[c] = f;
            for &(j, v) in &u[c][1..] {
                if !nz[j] {
                    nz[j] = true;
                    pattern.push(j);
                    w[j] = C64::new(0.0, 0.0);
                }
                w[j] -= f * v;
            }
        }
        let mut lrow: Vec<(usize, C64)> = vec![];
        let mut urow: Vec<(usize, C64)> = vec![];
        let mut diag = C64::new(0.0, 0.0);
        for &c in &pattern {
            let v = w[c];
            if c == i {
                diag = v;
            } else if v.norm() >= tau && v.norm() > 0.0 {
                if c < i {
                    lrow.push((c, v));
                } else {
                    urow.push((c, v));
                }
            }
            w[c] = C64::new(0.0, 0.0);
            nz[c] = false;
        }
        for row in [&mut lrow, &mut urow] {
            row.sort_by(|a, b| b.1.norm().total_cmp(&a.1.norm()));
            row.truncate(keep);
            row.sort_by_key(|e| e.0);
        }
        if diag == C64::new(0.0, 0.0) {
            return Err(Error::linalg(op, format!("zero pivot in row {i}")));
        }
        urow.insert(0, (i, diag));
        l.push(lrow);
        u.push(urow);
    }
    Ok(SuperLU {
        shape: (n, n),
        dtype: t,
        device: a.device().clone(),
        f: Factors::Ilu(Box::new(Ilu { l, u })),
    })
}
routine!(spilu as "cupyx.scipy.sparse.linalg.spilu", Sparse, probe: super::super::probe, notes: "host ILUT (threshold dropping, no pivoting) on every backend");

impl SuperLU {
    /// `(rows, columns)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The dtype of the factored matrix.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// `lu.solve(b)`: `x` with `A x = b` for `b` of shape `[n]` or `[n, k]`.
    ///
    /// # Errors
    /// As [`SuperLU::solve_with`].
    pub fn solve(&self, b: &Array) -> Result<Array> {
        self.solve_with(b, Trans::N)
    }

    /// `lu.solve(b, trans)`: `A x = b`, `A^T x = b` or `A^H x = b`. `b` is read back, solved
    /// on the host, and `x` uploaded to `A`'s device with `promote(A, b)`'s dtype.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `b` whose first axis is not `n` or of more than 2
    /// dimensions (both shapes named).
    pub fn solve_with(&self, b: &Array, trans: Trans) -> Result<Array> {
        let n = self.shape.0;
        if b.ndim() == 0 || b.ndim() > 2 || b.shape()[0] != n {
            return Err(shapes_error(
                "SuperLU.solve",
                ("A", &[n, n]),
                ("b", b.shape()),
                format!("b must have shape ({n},) or ({n}, k)"),
            ));
        }
        let k = if b.ndim() == 2 { b.shape()[1] } else { 1 };
        let t = cupy_core::promote::promote_types(self.dtype, b.dtype());
        let t = value_dtype("SuperLU.solve", t)?;
        // Column-major host copy of b.
        let bh = b.astype(DType::Complex128)?.to_vec::<C64>()?;
        let mut cols = vec![C64::new(0.0, 0.0); n * k];
        for i in 0..n {
            for j in 0..k {
                cols[j * n + i] = bh[i * k + j];
            }
        }
        let x = self.solve_host(&cols, k, trans);
        let mut out = vec![C64::new(0.0, 0.0); n * k];
        for i in 0..n {
            for j in 0..k {
                out[i * k + j] = x[j * n + i];
            }
        }
        let x = Array::from_slice_on(&self.device, &out, b.shape())?;
        if t == DType::Complex128 {
            Ok(x)
        } else if t.is_complex() {
            x.astype(t)
        } else {
            crate::math::complex::real(&x)?.astype(t)
        }
    }

    /// Solves for `k` column-major right-hand sides on the host.
    fn solve_host(&self, b: &[C64], k: usize, trans: Trans) -> Vec<C64> {
        let n = self.shape.0;
        match &self.f {
            Factors::LuReal(lu) => {
                let mut re = faer::Mat::<f64>::from_fn(n, 2 * k, |i, j| {
                    let z = b[(j / 2) * n + i];
                    if j % 2 == 0 {
                        z.re
                    } else {
                        z.im
                    }
                });
                match trans {
                    Trans::N => lu.solve_in_place(re.as_mut()),
                    Trans::T | Trans::H => lu.solve_transpose_in_place(re.as_mut()),
                }
                (0..k)
                    .flat_map(|j| (0..n).map(move |i| (i, j)))
                    .map(|(i, j)| C64::new(re[(i, 2 * j)], re[(i, 2 * j + 1)]))
                    .collect()
            }
            Factors::LuComplex(lu) => {
                let mut m = faer::Mat::<C64>::from_fn(n, k, |i, j| b[j * n + i]);
                match trans {
                    Trans::N => lu.solve_in_place(m.as_mut()),
                    Trans::T => lu.solve_transpose_in_place(m.as_mut()),
                    Trans::H => lu.solve_adjoint_in_place(m.as_mut()),
                }
                (0..k)
                    .flat_map(|j| (0..n).map(move |i| (i, j)))
                    .map(|(i, j)| m[(i, j)])
                    .collect()
            }
            Factors::Ilu(f) => {
                let mut x = b.to_vec();
                for j in 0..k {
                    f.solve(&mut x[j * n..(j + 1) * n], trans);
                }
                x
            }
        }
    }
}

impl Ilu {
    /// `(L U) x = b`, `(L U)^T x = b` or `(L U)^H x = b` in place.
    fn solve(&self, x: &mut [C64], trans: Trans) {
        let n = x.len();
        let cj = |v: C64| if trans == Trans::H { v.conj() } else { v };
        match trans {
            Trans::N => {
                for i in 0..n {
                    let mut s = x[i];
                    for &(c, v) in &self.l[i] {
                        s -= v * x[c];
                    }
                    x[i] = s;
                }
                for i in (0..n).rev() {
                    let mut s = x[i];
                    for &(c, v) in &self.u[i][1..] {
                        s -= v * x[c];
                    }
                    x[i] = s / self.u[i][0].1;
                }
            }
            Trans::T | Trans::H => {
                // U^T y = b (forward, column-oriented), then L^T x = y (backward).
                for i in 0..n {
                    x[i] /= cj(self.u[i][0].1);
                    let xi = x[i];
                    for &(c, v) in &self.u[i][1..] {
                        x[c] -= cj(v) * xi;
                    }
                }
                for i in (0..n).rev() {
                    let xi = x[i];
                    for &(c, v) in &self.l[i] {
                        x[c] -= cj(v) * xi;
                    }
                }
            }
        }
    }
}

/// SciPy's `factorized(A)`: [`splu`] once, returning `solve` as a function.
///
/// # Errors
/// As [`splu`].
pub fn factorized(a: &dyn SparseMatrix) -> Result<impl Fn(&Array) -> Result<Array> + Send + Sync> {
    let lu = splu(a)?;
    Ok(move |b: &Array| lu.solve(b))
}

//! The dense linear algebra call of [`super::Backend::linalg`]: [`LinalgOp`], [`QrMode`] and
//! [`LinalgCall`].

use super::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// The `numpy.linalg.qr` modes the primitive computes (`"r"` is `Reduced` with `q` dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QrMode {
    /// `q` is `[m, k]`, `r` is `[k, n]`, `k = min(m, n)`.
    Reduced,
    /// `q` is `[m, m]`, `r` is `[m, n]`.
    Complete,
    /// LAPACK's `geqrf` output as NumPy's `mode="raw"` returns it: `h` is `[n, m]` (the
    /// Householder reflectors below the diagonal and `r` on and above it, transposed: the
    /// Fortran-order matrix read in C order) and `tau` is `[k]`.
    Raw,
}

/// One dense factorization or solver of [`super::Backend::linalg`]. `T` is the call's dtype, `R` its
/// real dtype (float32 for complex64), `C` its complex dtype (complex64 for float32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinalgOp {
    /// `x = solve(a, b)` by LU with partial pivoting (getrf + getrs): inputs `a [n, n]`,
    /// `b [n, k]`; output `x [n, k]` (T). Info: `i + 1` when `U[i, i]` is exactly zero.
    Solve,
    /// `inv(a)` (getrf + getri/getrs on the identity): output `[n, n]` (T). Info as `Solve`.
    Inv,
    /// `det(a)` as the product of LU's diagonal and the permutation's sign: output `[]` (T).
    Det,
    /// `slogdet(a)`: outputs `sign []` (T) and `logabsdet []` (R).
    Slogdet,
    /// Cholesky (potrf): output the lower factor `L` (`upper == false`, reading `a`'s lower
    /// triangle) or the upper factor `L^H` (reading the upper triangle), zeros elsewhere.
    /// Info: `i + 1` for the first non-positive pivot.
    Cholesky {
        /// NumPy's `upper=`.
        upper: bool,
    },
    /// Householder QR (geqrf + orgqr/ungqr) of `a [m, n]`: outputs by [`QrMode`].
    Qr {
        /// The mode.
        mode: QrMode,
    },
    /// Hermitian eigendecomposition (syevd/heevd) reading one triangle: outputs `w [n]` (R,
    /// ascending) and, if `vectors`, `v [n, n]` (T, eigenvectors in columns). Info: non-zero
    /// when the iteration did not converge (or, as documented, the input is not finite).
    Eigh {
        /// NumPy's `UPLO="U"`.
        upper: bool,
        /// Whether `v` is computed (`eigh`) or not (`eigvalsh`).
        vectors: bool,
    },
    /// General eigendecomposition (geev): outputs `w [n]` (C) and, if `vectors`, `v [n, n]`
    /// (C, unit-norm right eigenvectors in columns). Info: non-zero for no convergence or a
    /// non-finite input (NumPy's "Array must not contain infs or NaNs").
    Eig {
        /// Whether `v` is computed.
        vectors: bool,
    },
    /// SVD (gesvd/gesdd) of `a [m, n]`, `k = min(m, n)`: output `s [k]` (R, descending) and,
    /// if `vectors`, `u [m, m or k]` and `vh [n or k, n]` (T, `full` choosing the first).
    Svd {
        /// NumPy's `full_matrices=`.
        full: bool,
        /// NumPy's `compute_uv=`.
        vectors: bool,
    },
}

impl LinalgOp {
    /// The dtype of each output, in order, for a matrix of dtype `t` (the `T`, `R` and `C` of
    /// the variants' docs); backends check their output buffers against them.
    pub fn out_dtypes(&self, t: DType) -> Vec<DType> {
        let r = t.real_dtype();
        match self {
            LinalgOp::Solve | LinalgOp::Inv | LinalgOp::Det | LinalgOp::Cholesky { .. } => vec![t],
            LinalgOp::Slogdet => vec![t, r],
            LinalgOp::Qr { .. } => vec![t, t],
            LinalgOp::Eigh { .. } => vec![r, t],
            LinalgOp::Eig { .. } => vec![crate::kernel::ir::complex_of(r); 2],
            LinalgOp::Svd { .. } => vec![r, t, t],
        }
    }

    /// The NumPy routine name used in errors.
    pub fn name(&self) -> &'static str {
        match self {
            LinalgOp::Solve => "solve",
            LinalgOp::Inv => "inv",
            LinalgOp::Det => "det",
            LinalgOp::Slogdet => "slogdet",
            LinalgOp::Cholesky { .. } => "cholesky",
            LinalgOp::Qr { .. } => "qr",
            LinalgOp::Eigh { .. } => "eigh",
            LinalgOp::Eig { .. } => "eig",
            LinalgOp::Svd { .. } => "svd",
        }
    }
}

/// One batched call of [`super::Backend::linalg`]: `batch` matrices of `m x n` (row-major, C order),
/// each buffer C-contiguous from element 0 with the shape [`LinalgOp`] documents, preceded by
/// the batch axis. Inputs are not modified. `info` is an `int32 [batch]` buffer written on the
/// device (0: success; otherwise the op's failure code), so the caller checks a whole batch with
/// one read.
#[derive(Clone, Debug)]
pub struct LinalgCall<'a> {
    /// The routine.
    pub op: LinalgOp,
    /// The dtype `T` of the matrix (float32, float64, complex64 or complex128).
    pub dtype: DType,
    /// Number of matrices (at least 1).
    pub batch: usize,
    /// Rows of each matrix.
    pub m: usize,
    /// Columns of each matrix (`n == m` for every op but `Qr` and `Svd`).
    pub n: usize,
    /// Right-hand sides per matrix (`Solve`); 0 otherwise.
    pub nrhs: usize,
    /// `[a]`, or `[a, b]` for `Solve`.
    pub inputs: Vec<&'a Buffer>,
    /// The op's outputs, in the order [`LinalgOp`] lists them.
    pub outputs: Vec<&'a Buffer>,
    /// `int32 [batch]` status per matrix.
    pub info: &'a Buffer,
}

impl LinalgCall<'_> {
    /// [`LinalgCall::lens`], after checking that the call has as many input and output
    /// buffers as its op takes.
    ///
    /// # Errors
    /// `InvalidArgument` naming the op and both counts.
    pub fn checked_lens(&self) -> Result<(Vec<usize>, Vec<usize>)> {
        let (ins, outs) = self.lens();
        if self.inputs.len() != ins.len() || self.outputs.len() != outs.len() {
            return Err(Error::invalid(
                self.op.name(),
                format!(
                    "linalg call needs {} inputs and {} outputs, got {} and {}",
                    ins.len(),
                    outs.len(),
                    self.inputs.len(),
                    self.outputs.len()
                ),
            ));
        }
        Ok((ins, outs))
    }

    /// Element counts of the call's inputs and outputs, in order (the shapes [`LinalgOp`]
    /// documents, times the batch); backends check their buffers against them.
    pub fn lens(&self) -> (Vec<usize>, Vec<usize>) {
        let (b, m, n, r) = (self.batch, self.m, self.n, self.nrhs);
        let k = m.min(n);
        let ins = match self.op {
            LinalgOp::Solve => vec![b * n * n, b * n * r],
            _ => vec![b * m * n],
        };
        let outs = match self.op {
            LinalgOp::Solve => vec![b * n * r],
            LinalgOp::Inv | LinalgOp::Cholesky { .. } => vec![b * n * n],
            LinalgOp::Det => vec![b],
            LinalgOp::Slogdet => vec![b, b],
            LinalgOp::Qr { mode } => match mode {
                QrMode::Reduced => vec![b * m * k, b * k * n],
                QrMode::Complete => vec![b * m * m, b * m * n],
                QrMode::Raw => vec![b * n * m, b * k],
            },
            LinalgOp::Eigh { vectors, .. } | LinalgOp::Eig { vectors } => {
                if vectors {
                    vec![b * n, b * n * n]
                } else {
                    vec![b * n]
                }
            }
            LinalgOp::Svd { full, vectors } => {
                if !vectors {
                    vec![b * k]
                } else if full {
                    vec![b * k, b * m * m, b * n * n]
                } else {
                    vec![b * k, b * m * k, b * k * n]
                }
            }
        };
        (ins, outs)
    }
}

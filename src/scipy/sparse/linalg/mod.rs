//! `cupyx.scipy.sparse.linalg`: [`LinearOperator`] / [`aslinearoperator`], the iterative
//! solvers [`cg`], [`gmres`], [`bicgstab`], [`minres`], [`cgs`] (SciPy 1.17's algorithms,
//! arguments `x0 rtol atol maxiter M callback` in [`Solve`], and info codes: 0 converged, `> 0`
//! the iterations run without converging, `< 0` a breakdown), the least-squares solvers
//! [`lsqr`] and [`lsmr`], [`onenormest`], [`expm_multiply`], the eigensolvers [`eigsh`] and
//! [`svds`], the host factorizations [`splu`], [`spilu`] and [`factorized`], [`norm`], and
//! [`spsolve`] (the host sparse LU, as `splu`) and [`spsolve_triangular`].
//!
//! Vectors stay on the device; the scalars each iteration needs to decide (a residual norm, the
//! Hessenberg entries of GMRES, the Lanczos coefficients of MINRES and `eigsh`) are read back,
//! one small read per iteration where the algorithm allows (CG: the residual norm only; its
//! `alpha` and `beta` stay 0-d device arrays).

mod eigen;
mod expm;
mod iterative;
mod lsqr;
mod lu;
mod triangular;

pub use eigen::{eigsh, svds, Eigsh, Svds, SvdsResult, Which};
pub use expm::{
    expm_multiply, expm_multiply_with, onenormest, onenormest_with, ExpmMultiply, OneNormEst,
    OneNormEstimate,
};
pub use iterative::{bicgstab, cg, cgs, gmres, minres, Callback, Solve};
pub use lsqr::{lsmr, lsqr, Lsmr, LsmrResult, Lsqr, LsqrResult};
pub use lu::{factorized, spilu, splu, spsolve, Spilu, SuperLU, Trans};
pub use triangular::spsolve_triangular;

use super::base::{Sparse, SparseMatrix};
use super::shapes_error;
use super::{CooMatrix, CscMatrix, CsrMatrix, DiaMatrix};
use crate::array::Array;
use crate::device::Device;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use std::sync::Arc;

type MatVec = Arc<dyn Fn(&Array) -> Result<Array> + Send + Sync>;

/// SciPy's `LinearOperator`: a shape, a dtype and `y = A x` (and optionally `y = A^H x`).
#[derive(Clone)]
pub struct LinearOperator {
    shape: (usize, usize),
    dtype: DType,
    matvec: MatVec,
    rmatvec: Option<MatVec>,
    device: Option<Device>,
    /// The sparse matrix an operator was made from (for `eigsh`'s shift-invert).
    matrix: Option<CsrMatrix>,
}

impl std::fmt::Debug for LinearOperator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<{}x{} LinearOperator with dtype={}>",
            self.shape.0, self.shape.1, self.dtype
        )
    }
}

impl LinearOperator {
    /// `LinearOperator(shape, matvec, dtype=dtype)`.
    pub fn new(
        shape: (usize, usize),
        dtype: DType,
        matvec: impl Fn(&Array) -> Result<Array> + Send + Sync + 'static,
    ) -> LinearOperator {
        LinearOperator {
            shape,
            dtype,
            matvec: Arc::new(matvec),
            rmatvec: None,
            device: None,
            matrix: None,
        }
    }

    /// The sparse matrix the operator was made from, if any.
    pub(crate) fn matrix(&self) -> Option<&CsrMatrix> {
        self.matrix.as_ref()
    }

    /// The same operator, with the device its vectors live on (the routines that make their
    /// own vectors, [`onenormest`] and [`eigsh`], make them there; without one, on the
    /// current device). Operators made from matrices carry theirs.
    pub fn with_device(mut self, device: &Device) -> LinearOperator {
        self.device = Some(device.clone());
        self
    }

    /// The device of [`LinearOperator::with_device`], if given.
    pub fn device(&self) -> Option<&Device> {
        self.device.as_ref()
    }

    /// The device the routines make vectors on: the operator's, else the current one.
    pub(crate) fn work_device(&self) -> Result<Device> {
        match &self.device {
            Some(d) => Ok(d.clone()),
            None => Device::current(),
        }
    }

    /// The same operator with `rmatvec` (`y = A^H x`).
    pub fn with_rmatvec(
        mut self,
        rmatvec: impl Fn(&Array) -> Result<Array> + Send + Sync + 'static,
    ) -> LinearOperator {
        self.rmatvec = Some(Arc::new(rmatvec));
        self
    }

    /// `(rows, columns)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// `A.matvec(x)` for a 1-d `x` of length `columns`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the shapes; what the function returns.
    pub fn matvec(&self, x: &Array) -> Result<Array> {
        if x.ndim() != 1 || x.shape()[0] != self.shape.1 {
            return Err(shapes_error(
                "LinearOperator.matvec",
                ("A", &[self.shape.0, self.shape.1]),
                ("x", x.shape()),
                format!("x must have shape ({},)", self.shape.1),
            ));
        }
        (self.matvec)(x)
    }

    /// `A.rmatvec(x)` (`A^H x`).
    ///
    /// # Errors
    /// [`Error::Unsupported`]-style [`Error::InvalidArgument`] when no `rmatvec` was given;
    /// as [`LinearOperator::matvec`].
    pub fn rmatvec(&self, x: &Array) -> Result<Array> {
        let Some(f) = &self.rmatvec else {
            return Err(Error::invalid(
                "LinearOperator.rmatvec",
                "this LinearOperator has no rmatvec",
            ));
        };
        if x.ndim() != 1 || x.shape()[0] != self.shape.0 {
            return Err(shapes_error(
                "LinearOperator.rmatvec",
                ("A", &[self.shape.0, self.shape.1]),
                ("x", x.shape()),
                format!("x must have shape ({},)", self.shape.0),
            ));
        }
        f(x)
    }

    /// The identity of size `n`.
    pub fn identity(n: usize, dtype: DType) -> LinearOperator {
        LinearOperator::new((n, n), dtype, |x| Ok(x.clone())).with_rmatvec(|x| Ok(x.clone()))
    }
}

fn from_csr(a: CsrMatrix) -> LinearOperator {
    let shape = a.shape();
    let dtype = a.dtype();
    let at = a.clone();
    let dev = a.device().clone();
    let kept = a.clone();
    let mut op = LinearOperator::new(shape, dtype, move |x| a.dot(x))
        .with_device(&dev)
        .with_rmatvec(move |x| {
            // A^H x = conj(A^T conj(x)): the transpose is a CSC view; convert once per call.
            let xc = crate::math::complex::conj(x)?;
            crate::math::complex::conj(&at.T().dot(&xc)?)
        });
    op.matrix = Some(kept);
    op
}

impl From<CsrMatrix> for LinearOperator {
    fn from(a: CsrMatrix) -> Self {
        from_csr(a)
    }
}
impl From<&CsrMatrix> for LinearOperator {
    fn from(a: &CsrMatrix) -> Self {
        from_csr(a.clone())
    }
}
macro_rules! op_via_csr {
    ($($t:ty),*) => {$(
        impl From<&$t> for LinearOperator {
            /// Converted to CSR once (conversion errors surface at the first `matvec`).
            fn from(a: &$t) -> Self {
                match a.tocsr() {
                    Ok(c) => from_csr(c),
                    Err(e) => {
                        let msg = e.to_string();
                        LinearOperator::new(a.shape(), a.dtype(), move |_| {
                            Err(Error::invalid("aslinearoperator", msg.clone()))
                        })
                    }
                }
            }
        }
    )*};
}
op_via_csr!(CscMatrix, CooMatrix, DiaMatrix, Sparse);

impl From<&Array> for LinearOperator {
    /// A dense 2-d matrix (`matmul`); the shape of a non-2-d array is `(0, 0)` and every
    /// `matvec` fails.
    fn from(a: &Array) -> Self {
        let shape = if a.ndim() == 2 {
            (a.shape()[0], a.shape()[1])
        } else {
            (0, 0)
        };
        let m = a.clone();
        let mh = a.clone();
        LinearOperator::new(shape, a.dtype(), move |x| crate::linalg::matmul(&m, x))
            .with_device(a.device())
            .with_rmatvec(move |x| {
                let h = crate::math::complex::conj(&mh.t())?;
                crate::linalg::matmul(&h, x)
            })
    }
}
impl From<&LinearOperator> for LinearOperator {
    fn from(a: &LinearOperator) -> Self {
        a.clone()
    }
}

/// SciPy's `aslinearoperator(A)`: a sparse matrix (through CSR), a dense 2-d array, or a
/// `LinearOperator`.
pub fn aslinearoperator(a: impl Into<LinearOperator>) -> LinearOperator {
    a.into()
}
routine!(aslinearoperator as "cupyx.scipy.sparse.linalg.aslinearoperator / LinearOperator", Sparse, probe: super::probe);

/// The matrix norms of [`norm`] (SciPy's `ord=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SparseNorm {
    /// Frobenius (`None`, `'fro'`), the default.
    #[default]
    Fro,
    /// The largest column sum of `|A|` (`ord=1`).
    One,
    /// The largest row sum of `|A|` (`ord=inf`).
    Inf,
}

/// SciPy's `sparse.linalg.norm(A, ord)`: a 0-d real array (duplicates summed first).
///
/// # Errors
/// Device errors.
pub fn norm(a: &dyn SparseMatrix, ord: SparseNorm) -> Result<Array> {
    let c = a.tocsr()?.canonical()?;
    let abs = crate::math::misc::absolute(c.data())?;
    let t = abs.dtype();
    if c.nnz() == 0 {
        return Array::zeros_on(a.device(), &[], t);
    }
    match ord {
        SparseNorm::Fro => crate::math::misc::sqrt(&(&abs * &abs)?.sum()?),
        SparseNorm::One | SparseNorm::Inf => {
            let m = CsrMatrix {
                c: super::map_data(&c.c, |_| Ok(abs.clone()))?,
            };
            let s = m.sum(Some(if ord == SparseNorm::One { 0 } else { 1 }))?;
            s.max()
        }
    }
}
routine!(norm as "cupyx.scipy.sparse.linalg.norm", Sparse, probe: super::probe, notes: "fro, 1, inf");

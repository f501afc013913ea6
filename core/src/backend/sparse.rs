//! Vendor sparse libraries (cuSPARSE on cuda, rocSPARSE on hip): the backend-facing half of the
//! sparse frontend's vendor path (`cupy::scipy::sparse`, selected by `CUPY_SPARSE_LIBRARY`).
//!
//! A backend whose vendor has a sparse library returns a [`SparseLibrary`] from
//! [`super::Backend::sparse_library`]; backends without one (wgpu, the cpu) return `None` and the
//! frontend runs its own IR kernels. The library is loaded on first use: every method answers
//! [`Error::Unsupported`] (naming the library and why) when it cannot be loaded, or when the
//! dtype or index type is one the routine does not take, and the frontend then runs its native
//! kernels. Calls are queued on the thread's current stream. The C++ GPU backends get this trait
//! from the shared plans of [`crate::gpu::sparse`] by implementing its `SparseDriver` (their
//! library's FFI calls only).
//!
//! Matrices are CSR ([`CsrRef`]): zero-based, `indptr` and `indices` of one index dtype (int32 or
//! int64), values float32, float64, complex64 or complex128; every buffer contiguous from its
//! element 0. Dense operands are C-ordered (row-major) and of the matrix's value dtype.

use super::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// The routines of a [`SparseLibrary`] (for [`SparseLibrary::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SparseRoutine {
    /// [`SparseLibrary::spmv`] with a vector (SpMV) or a dense matrix (SpMM).
    SpMv,
    /// [`SparseLibrary::spgemm`].
    SpGemm,
    /// [`SparseLibrary::spsv`].
    SpSv,
    /// [`SparseLibrary::spsm`].
    SpSm,
}

impl SparseRoutine {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            SparseRoutine::SpMv => "SpMV",
            SparseRoutine::SpGemm => "SpGEMM",
            SparseRoutine::SpSv => "SpSV",
            SparseRoutine::SpSm => "SpSM",
        }
    }
}

/// A CSR matrix on the device (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct CsrRef<'a> {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Stored entries (`indptr[rows]`).
    pub nnz: usize,
    /// Row starts, `rows + 1` elements.
    pub indptr: &'a Buffer,
    /// Column indices, `nnz` elements (the dtype of `indptr`).
    pub indices: &'a Buffer,
    /// Values, `nnz` elements.
    pub data: &'a Buffer,
}

impl CsrRef<'_> {
    /// The index dtype (int32 or int64).
    pub fn index_dtype(&self) -> DType {
        self.indices.dtype()
    }

    /// The value dtype.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// Checks the buffers against the sizes and dtypes the module docs state.
    ///
    /// # Errors
    /// `InvalidArgument` naming `op` and the offending buffer.
    pub fn check(&self, op: &str) -> Result<()> {
        let it = self.index_dtype();
        let bad = |what: &str, b: &Buffer, len: usize, dt: DType| -> Result<()> {
            if b.len() < len || b.dtype() != dt {
                return Err(Error::invalid(
                    op,
                    format!(
                        "CSR {what}: needs {len} x {dt}, got {} x {}",
                        b.len(),
                        b.dtype()
                    ),
                ));
            }
            Ok(())
        };
        if !matches!(it, DType::Int32 | DType::Int64) {
            return Err(Error::invalid(
                op,
                format!("CSR indices must be int32 or int64, not {it}"),
            ));
        }
        bad("indptr", self.indptr, self.rows + 1, it)?;
        bad("indices", self.indices, self.nnz, it)?;
        bad("data", self.data, self.nnz, self.dtype())
    }
}

/// `y = A @ x` ([`SparseLibrary::spmv`]): `x` is `[A.cols, k]` row-major (a vector when
/// `k == 1` and `vector`), `y` is `[A.rows, k]`, both of `A`'s value dtype. `y` is overwritten.
#[derive(Clone, Copy, Debug)]
pub struct SpMvCall<'a> {
    /// The matrix.
    pub a: CsrRef<'a>,
    /// The dense operand.
    pub x: &'a Buffer,
    /// The result.
    pub y: &'a Buffer,
    /// Columns of `x` and `y`.
    pub k: usize,
    /// `x` and `y` are vectors (SpMV) rather than `k`-column matrices (SpMM).
    pub vector: bool,
}

/// `C = A @ B` ([`SparseLibrary::spgemm`]): `A` and `B` of one value and index dtype, each
/// with sorted column indices and no duplicates in a row. `c_indptr` (`A.rows + 1` elements of
/// the index dtype) receives `C`'s row starts.
#[derive(Clone, Copy, Debug)]
pub struct SpGemmCall<'a> {
    /// The left matrix.
    pub a: CsrRef<'a>,
    /// The right matrix (`A.cols` rows).
    pub b: CsrRef<'a>,
    /// `C`'s row starts (written).
    pub c_indptr: &'a Buffer,
}

/// Solves `A x = b` for a triangular `A` ([`SparseLibrary::spsv`]): only `A`'s entries in the
/// chosen triangle take part (the caller passes that triangle alone); with `unit_diagonal`
/// the diagonal is taken as ones and no diagonal entry is stored. `b` and `x` are vectors of
/// `A.rows` elements of `A`'s value dtype; `x` is overwritten (`b` is not).
#[derive(Clone, Copy, Debug)]
pub struct SpSvCall<'a> {
    /// The square triangular matrix.
    pub a: CsrRef<'a>,
    /// Lower (forward substitution) or upper (back substitution).
    pub lower: bool,
    /// Unit diagonal, not stored.
    pub unit_diagonal: bool,
    /// The right-hand side.
    pub b: &'a Buffer,
    /// The solution.
    pub x: &'a Buffer,
}

/// Solves `A X = B` for a triangular `A` and `k` right-hand sides ([`SparseLibrary::spsm`]):
/// as [`SpSvCall`], with `b` and `x` `[A.rows, k]` row-major matrices of `A`'s value dtype;
/// `x` is overwritten (`b` is not).
#[derive(Clone, Copy, Debug)]
pub struct SpSmCall<'a> {
    /// The square triangular matrix.
    pub a: CsrRef<'a>,
    /// Lower (forward substitution) or upper (back substitution).
    pub lower: bool,
    /// Unit diagonal, not stored.
    pub unit_diagonal: bool,
    /// The right-hand sides, `[A.rows, k]` row-major.
    pub b: &'a Buffer,
    /// The solutions, `[A.rows, k]` row-major.
    pub x: &'a Buffer,
    /// Right-hand sides (columns of `b` and `x`).
    pub k: usize,
}

/// The output buffers of an SpGEMM, allocated by the caller once `C`'s number of entries is
/// known: `(indices, data)` of `nnz` elements each (the index and value dtypes of the call).
pub type CsrAlloc<'a> = dyn FnMut(usize) -> Result<(Buffer, Buffer)> + 'a;

/// A vendor sparse library (see the module docs). Errors of a loaded library are
/// [`Error::Backend`] naming the function and its status; the routines the library cannot run
/// are [`Error::Unsupported`] and leave every buffer untouched.
pub trait SparseLibrary: Send + Sync {
    /// The library's name (`"cuSPARSE"`, `"rocSPARSE"`).
    fn library(&self) -> &'static str;

    /// Whether `routine` runs here for values of `dtype` and indices of `index` (loading the
    /// library on first use); `Err` says why not. The other methods answer `Unsupported` with
    /// the same reason.
    fn check(
        &self,
        routine: SparseRoutine,
        dtype: DType,
        index: DType,
    ) -> std::result::Result<(), String>;

    /// Queues `y = A @ x` ([`SpMvCall`]).
    ///
    /// # Errors
    /// As the trait docs say.
    fn spmv(&self, call: &SpMvCall<'_>) -> Result<()>;

    /// Computes `C = A @ B` ([`SpGemmCall`]): writes `c_indptr`, asks `alloc` for the entries'
    /// buffers once their number is known (a wait for the device), fills them and returns that
    /// number. `C` has sorted column indices; exact-zero sums are kept.
    ///
    /// # Errors
    /// As the trait docs say.
    fn spgemm(&self, call: &SpGemmCall<'_>, alloc: &mut CsrAlloc<'_>) -> Result<usize>;

    /// Queues the triangular solve ([`SpSvCall`]).
    ///
    /// # Errors
    /// As the trait docs say.
    fn spsv(&self, call: &SpSvCall<'_>) -> Result<()>;

    /// Queues the triangular solve with several right-hand sides ([`SpSmCall`]).
    ///
    /// # Errors
    /// As the trait docs say.
    fn spsm(&self, call: &SpSmCall<'_>) -> Result<()>;
}

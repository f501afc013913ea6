//! The vendor sparse calls of the C++ GPU backends ([`SparseLibrary`]), written once: which
//! descriptors each routine needs and their arguments ([`Csr`], [`Dense`]: sizes, device
//! addresses and the library's type codes, [`SparseDriver::VALUES`]/[`SparseDriver::INDICES`]),
//! the order of the library calls, the checks (the dtypes both libraries take, then the
//! driver's own limits), the workspace sizing and flow, when to wait for the stream, what is
//! destroyed on every path (also on errors), and how a failed status becomes an error
//! ([`library_error`]). A backend implements [`SparseDriver`] (cuSPARSE on CUDA, rocSPARSE on
//! HIP: one FFI call per method) and gets [`SparseLibrary`] from the blanket implementation here.
//!
//! Plans (each call holds the driver's [`SparseSession`], which serializes calls on the
//! library handle and binds it to the thread's current stream):
//!
//! - SpMV / SpMM / SpSV / SpSM ([`Apply`]): a CSR descriptor of `A` (with its fill mode and
//!   diagonal type for the triangular solves), dense vector or row-major matrix descriptors of
//!   the operands, the routine's own descriptor where the library has one; then the stages
//!   [`Stage::Size`] (the workspace query), [`Stage::Prepare`] (analysis/preprocess) and
//!   [`Stage::Run`], with one workspace from the backend's pool. Where the descriptors hold
//!   device state ([`SparseSession::holds_state`]) the call waits for the stream before they
//!   are destroyed.
//! - SpGEMM ([`GemmStep`]): CSR descriptors of `A`, `B`, `C` (over the caller's `indptr`, no
//!   entries yet) and, for libraries that take one, an empty `D`; two two-phase steps
//!   (size query, then the call with its workspace), a wait, `C`'s entry count, the caller's
//!   buffers for the entries, then the final step and a wait.
//!
//! A panic inside the driver (cudarc panics for a symbol missing from an older library) is
//! turned into `Unsupported`, so the frontend runs its own kernels.

use crate::backend::sparse::{
    CsrAlloc, CsrRef, SpGemmCall, SpMvCall, SpSmCall, SpSvCall, SparseLibrary, SparseRoutine,
};
use crate::backend::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::launch::GpuDriver;
use std::ffi::c_void;

/// An opaque library object (a descriptor), or null.
pub type Raw = *mut c_void;

/// What a descriptor describes (to destroy it with the matching call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescrKind {
    /// A sparse matrix (CSR).
    Sparse,
    /// A dense vector.
    Vector,
    /// A dense row-major matrix.
    Matrix,
    /// A routine's own descriptor (cuSPARSE's SpSV, SpSM and SpGEMM descriptors).
    Routine(SparseRoutine),
}

/// A stage of SpMV, SpMM, SpSV or SpSM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The workspace size query (`buffer` is null; the size is written to `bytes`).
    Size,
    /// Analysis / preprocessing with the workspace (a no-op where the library has none).
    Prepare,
    /// The computation with the workspace.
    Run,
}

/// The routines of the [`Stage`] plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyKind {
    /// `y = A x`, vectors.
    SpMv,
    /// `Y = A X`, row-major matrices.
    SpMm,
    /// `A x = b` for a triangular `A`, vectors.
    SpSv,
    /// `A X = B` for a triangular `A`, row-major matrices.
    SpSm,
}

/// One stage's operands: descriptors made by the plan (`V`: the library's value-type code).
#[derive(Clone, Copy, Debug)]
pub struct Apply<V> {
    /// The routine.
    pub kind: ApplyKind,
    /// `A`'s CSR descriptor.
    pub a: Raw,
    /// The input operand (`x`, `X`, `b`, `B`).
    pub x: Raw,
    /// The output operand (`y`, `Y`, `x`, `X`).
    pub y: Raw,
    /// The routine's own descriptor (null where the library has none).
    pub op: Raw,
    /// The library's code of the value (and compute) dtype.
    pub value: V,
    /// Host scalars 1 (`alpha`) and 0 (`beta`) of `dtype`.
    pub alpha: *const c_void,
    /// See `alpha`.
    pub beta: *const c_void,
}

/// A step of the SpGEMM plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmStep {
    /// The symbolic step (cuSPARSE: `workEstimation`; rocSPARSE: the size query is
    /// `stage_buffer_size`, the call `stage_nnz`).
    Estimate,
    /// The numeric step before `C`'s size is read (cuSPARSE: `compute`; rocSPARSE: none, the
    /// size query answers 0 and the call does nothing).
    Compute,
    /// The final step once `C`'s buffers are set (cuSPARSE: `copy`; rocSPARSE:
    /// `stage_compute` with the [`GemmStep::Estimate`] workspace).
    Finish,
}

/// One SpGEMM step's operands (`V`: the library's value-type code).
#[derive(Clone, Copy, Debug)]
pub struct Gemm<V> {
    /// `A`'s descriptor (`B`, `C`, and `D`, null unless [`SparseDriver::SPGEMM_D`], follow).
    pub a: Raw,
    /// `B`.
    pub b: Raw,
    /// `C` (written).
    pub c: Raw,
    /// `D` (an empty 0 x 0 matrix: `beta` is 0).
    pub d: Raw,
    /// The routine's own descriptor (null where the library has none).
    pub op: Raw,
    /// The library's code of the value dtype.
    pub value: V,
    /// Host scalars 1 (`alpha`) and 0 (`beta`) of `dtype`.
    pub alpha: *const c_void,
    /// See `alpha`.
    pub beta: *const c_void,
}

/// A CSR operand as the libraries' descriptor constructors take it (`cusparseCreateCsr` and
/// `rocsparse_create_csr_descr` take these, in this order, with the index code twice, for the
/// row offsets and the column indices, and the zero index base before the value code): built
/// once by the plan from the checked operand, in the library's own types.
#[derive(Clone, Copy, Debug)]
pub struct Csr<V, I> {
    /// Rows.
    pub rows: i64,
    /// Columns.
    pub cols: i64,
    /// Stored entries.
    pub nnz: i64,
    /// Device address of `indptr` (null where not set yet).
    pub indptr: Raw,
    /// Device address of `indices` (null where not set yet).
    pub indices: Raw,
    /// Device address of `data` (null where not set yet).
    pub data: Raw,
    /// The library's code of the index dtype (of `indptr` and `indices`).
    pub index: I,
    /// The library's code of the value dtype.
    pub value: V,
}

/// A dense operand: a vector of `rows` elements (`cols` is 1), or a row-major `rows x cols`
/// matrix with leading dimension `cols`, at a device address, in the library's types.
#[derive(Clone, Copy, Debug)]
pub struct Dense<V> {
    /// Rows (a vector's length).
    pub rows: i64,
    /// Columns (and the leading dimension of a row-major matrix).
    pub cols: i64,
    /// Device address of the first element.
    pub ptr: Raw,
    /// The library's code of the value dtype.
    pub value: V,
}

/// The value dtypes both libraries take, in the order of [`SparseDriver::VALUES`].
pub const VALUE_DTYPES: [DType; 4] = [
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// The library's code of a value dtype (`None` for one it does not take).
pub fn value_code<D: SparseDriver>(dt: DType) -> Option<D::Value> {
    let i = VALUE_DTYPES.iter().position(|&d| d == dt)?;
    Some(D::VALUES[i])
}

/// The library's code of an index dtype (`None` for one it does not take).
pub fn index_code<D: SparseDriver>(dt: DType) -> Option<D::Index> {
    match dt {
        DType::Int32 => Some(D::INDICES[0]),
        DType::Int64 => Some(D::INDICES[1]),
        _ => None,
    }
}

/// A library's failed status as an error: `refused` (the library does not do this request:
/// cuSPARSE's `NOT_SUPPORTED`, rocSPARSE's `not_implemented`) is [`Error::Unsupported`], so
/// the frontend runs its kernels; any other failure is [`Error::Backend`] naming the library.
pub fn library_error<D: SparseDriver>(be: &D, refused: bool, msg: String) -> Error {
    if refused {
        Error::Unsupported {
            op: D::LIBRARY.into(),
            backend: be.info().label(),
            reason: msg,
        }
    } else {
        Error::Backend {
            backend: be.info().label(),
            msg: format!("{}: {msg}", D::LIBRARY),
        }
    }
}

/// One library call sequence in progress (see the module docs): the vendor's FFI calls. Errors
/// are the library's status as [`Error::Backend`], or [`Error::Unsupported`] where the library
/// refuses the request (the frontend then runs its kernels).
pub trait SparseSession {
    /// The library's value-type code ([`SparseDriver::Value`]).
    type Value: Copy;
    /// The library's index-type code ([`SparseDriver::Index`]).
    type Index: Copy;

    /// Whether `routine`'s descriptors hold device state (analysis data), so the plan waits for
    /// the stream before destroying them.
    fn holds_state(&self, routine: SparseRoutine) -> bool;

    /// A CSR descriptor.
    fn csr(&self, m: &Csr<Self::Value, Self::Index>) -> Result<Raw>;
    /// A dense vector descriptor of `v.rows` elements.
    fn vector(&self, v: &Dense<Self::Value>) -> Result<Raw>;
    /// A dense row-major `rows x cols` matrix descriptor (leading dimension `cols`).
    fn matrix(&self, m: &Dense<Self::Value>) -> Result<Raw>;
    /// The routine's own descriptor, or null where the library has none.
    fn routine_descr(&self, routine: SparseRoutine) -> Result<Raw>;
    /// Destroys a descriptor made by this session (errors ignored).
    fn destroy(&self, kind: DescrKind, d: Raw);
    /// Marks `a` as the lower or upper triangle, unit or stored diagonal.
    fn triangle(&self, a: Raw, lower: bool, unit_diagonal: bool) -> Result<()>;
    /// One stage of SpMV/SpMM/SpSV/SpSM.
    fn apply(
        &self,
        call: &Apply<Self::Value>,
        stage: Stage,
        bytes: &mut usize,
        buffer: Raw,
    ) -> Result<()>;
    /// One SpGEMM step; `query`: the size query (`buffer` null).
    fn spgemm(
        &self,
        call: &Gemm<Self::Value>,
        step: GemmStep,
        query: bool,
        bytes: &mut usize,
        buffer: Raw,
    ) -> Result<()>;
    /// The stored entries of a CSR descriptor (`C` after the symbolic steps).
    fn nnz(&self, a: Raw) -> Result<usize>;
    /// Points a CSR descriptor at `indptr`, `indices`, `data`.
    fn set_pointers(&self, a: Raw, ptrs: [Raw; 3]) -> Result<()>;
}

/// The library half of a backend's sparse support (see the module docs).
pub trait SparseDriver: GpuDriver + Send + Sync {
    /// The library's value-type code (`cudaDataType`, `rocsparse_datatype`).
    type Value: Copy + std::fmt::Debug;
    /// The library's index-type code (`cusparseIndexType_t`, `rocsparse_indextype`).
    type Index: Copy + std::fmt::Debug;
    /// The codes of [`VALUE_DTYPES`] (float32, float64, complex64, complex128).
    const VALUES: [Self::Value; 4];
    /// The codes of int32 and int64 indices.
    const INDICES: [Self::Index; 2];

    /// The session type.
    type Session<'a>: SparseSession<Value = Self::Value, Index = Self::Index>
    where
        Self: 'a;

    /// The library's name (`"cuSPARSE"`, `"rocSPARSE"`).
    const LIBRARY: &'static str;

    /// Whether SpGEMM takes a `D` matrix (rocSPARSE).
    const SPGEMM_D: bool;

    /// Whether the library takes `routine` for `dtype` values and `index` indices beyond the
    /// rules both libraries share (values of [`VALUE_DTYPES`], int32 or int64 indices, checked
    /// by the plan first), loading it on first use; `Err` says why not.
    fn sparse_types(
        &self,
        routine: SparseRoutine,
        dtype: DType,
        index: DType,
    ) -> std::result::Result<(), String>;

    /// Serializes calls on the library handle, makes the device current, orders the call after
    /// other streams' library calls and binds the handle to the current stream.
    ///
    /// # Errors
    /// `Unsupported` when the library is unavailable; the driver's errors.
    fn begin_sparse(&self, routine: SparseRoutine) -> Result<Self::Session<'_>>;

    /// Waits for the thread's current stream.
    ///
    /// # Errors
    /// The driver's error.
    fn sparse_sync(&self) -> Result<()>;
}

/// The bytes of the scalar `v` (imaginary part 0) in `dt`, for `alpha`/`beta` (host memory).
pub fn scalar(dt: DType, v: f64) -> [u8; 16] {
    let mut b = [0u8; 16];
    match dt {
        DType::Float32 | DType::Complex64 => b[..4].copy_from_slice(&(v as f32).to_ne_bytes()),
        _ => b[..8].copy_from_slice(&v.to_ne_bytes()),
    }
    b
}

/// The descriptors of one call, destroyed in reverse order on drop (every path).
struct Descrs<'s, S: SparseSession> {
    s: &'s S,
    made: Vec<(DescrKind, Raw)>,
}

impl<S: SparseSession> Descrs<'_, S> {
    fn keep(&mut self, kind: DescrKind, d: Result<Raw>) -> Result<Raw> {
        let d = d?;
        if !d.is_null() {
            self.made.push((kind, d));
        }
        Ok(d)
    }
}

impl<S: SparseSession> Drop for Descrs<'_, S> {
    fn drop(&mut self) {
        for &(kind, d) in self.made.iter().rev() {
            self.s.destroy(kind, d);
        }
    }
}

/// `routine` of `D`'s library is unavailable or refused, for `reason`.
pub fn unsupported<D: SparseDriver>(be: &D, routine: SparseRoutine, reason: String) -> Error {
    Error::Unsupported {
        op: format!("{} {}", D::LIBRARY, routine.name()),
        backend: be.info().label(),
        reason,
    }
}

fn addr<D: SparseDriver>(be: &D, b: &Buffer, op: &str) -> Result<Raw> {
    Ok(be.dev_buf(b, op)?.ptr as Raw)
}

/// Whether `D`'s library takes `routine` for `dtype` values and `index` indices: the shared
/// rules, then the driver's own ([`SparseDriver::sparse_types`]).
fn types<D: SparseDriver>(
    be: &D,
    routine: SparseRoutine,
    dtype: DType,
    index: DType,
) -> std::result::Result<(), String> {
    if !VALUE_DTYPES.contains(&dtype) {
        return Err(format!(
            "{} takes float32, float64, complex64 and complex128 values, not {dtype}",
            D::LIBRARY
        ));
    }
    if !matches!(index, DType::Int32 | DType::Int64) {
        return Err(format!(
            "{} takes int32 or int64 indices, not {index}",
            D::LIBRARY
        ));
    }
    be.sparse_types(routine, dtype, index)
}

/// The codes of a value and an index dtype that [`types`] accepted.
fn codes<D: SparseDriver>(op: &str, dtype: DType, index: DType) -> Result<(D::Value, D::Index)> {
    value_code::<D>(dtype)
        .zip(index_code::<D>(index))
        .ok_or_else(|| Error::invalid(op, format!("{dtype} values with {index} indices")))
}

/// `a`'s CSR descriptor arguments.
fn csr_of<D: SparseDriver>(be: &D, a: &CsrRef<'_>, op: &str) -> Result<Csr<D::Value, D::Index>> {
    let (value, index) = codes::<D>(op, a.dtype(), a.index_dtype())?;
    Ok(Csr {
        rows: a.rows as i64,
        cols: a.cols as i64,
        nnz: a.nnz as i64,
        indptr: addr(be, a.indptr, op)?,
        indices: addr(be, a.indices, op)?,
        data: addr(be, a.data, op)?,
        index,
        value,
    })
}

/// A device workspace of `bytes` (at least 1) from the pool, which reuses it only for work
/// queued after ours on this stream.
fn workspace<D: SparseDriver>(be: &D, bytes: usize) -> Result<(Buffer, Raw)> {
    let b = be.alloc(DType::UInt8, bytes.max(1))?;
    let p = addr(be, &b, "sparse library workspace")?;
    Ok((b, p))
}

/// Runs `f`, turning a panic into `Unsupported`.
fn guard<D: SparseDriver, T>(be: &D, r: SparseRoutine, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => Err(unsupported(be, r, crate::gpu::support::panic_message(&*p))),
    }
}

/// The operands of an [`Apply`] plan.
struct ApplyCall<'a> {
    routine: SparseRoutine,
    kind: ApplyKind,
    a: CsrRef<'a>,
    x: &'a Buffer,
    y: &'a Buffer,
    k: usize,
    triangle: Option<(bool, bool)>,
}

/// SpMV, SpMM, SpSV, SpSM (see the module docs).
fn apply<D: SparseDriver>(be: &D, c: &ApplyCall<'_>) -> Result<()> {
    let op = format!("{} {}", D::LIBRARY, c.routine.name());
    let a = &c.a;
    a.check(&op)?;
    let dt = a.dtype();
    if c.x.dtype() != dt || c.y.dtype() != dt {
        return Err(Error::invalid(
            &op,
            "the dense operands must have A's dtype",
        ));
    }
    let vector = matches!(c.kind, ApplyKind::SpMv | ApplyKind::SpSv);
    let (xn, yn) = (a.cols * c.k, a.rows * c.k);
    if c.x.len() < xn || c.y.len() < yn || (vector && c.k != 1) {
        return Err(Error::invalid(
            &op,
            format!(
                "operands of {} and {} elements for A {}x{} and {} columns",
                c.x.len(),
                c.y.len(),
                a.rows,
                a.cols,
                c.k
            ),
        ));
    }
    if c.triangle.is_some() && a.rows != a.cols {
        return Err(Error::invalid(&op, "A must be square"));
    }
    types(be, c.routine, dt, a.index_dtype()).map_err(|e| unsupported(be, c.routine, e))?;
    let csr = csr_of(be, a, &op)?;
    let dense = |rows, b| -> Result<Dense<D::Value>> {
        Ok(Dense {
            rows: rows as i64,
            cols: c.k as i64,
            ptr: addr(be, b, &op)?,
            value: csr.value,
        })
    };
    let (dx, dy) = (dense(a.cols, c.x)?, dense(a.rows, c.y)?);
    let s = be.begin_sparse(c.routine)?;
    let mut d = Descrs {
        s: &s,
        made: vec![],
    };
    let ma = d.keep(DescrKind::Sparse, s.csr(&csr))?;
    if let Some((lower, unit)) = c.triangle {
        s.triangle(ma, lower, unit)?;
    }
    let (x, y) = if vector {
        (
            d.keep(DescrKind::Vector, s.vector(&dx))?,
            d.keep(DescrKind::Vector, s.vector(&dy))?,
        )
    } else {
        (
            d.keep(DescrKind::Matrix, s.matrix(&dx))?,
            d.keep(DescrKind::Matrix, s.matrix(&dy))?,
        )
    };
    let od = d.keep(DescrKind::Routine(c.routine), s.routine_descr(c.routine))?;
    let (one, zero) = (scalar(dt, 1.0), scalar(dt, 0.0));
    let call = Apply {
        kind: c.kind,
        a: ma,
        x,
        y,
        op: od,
        value: csr.value,
        alpha: one.as_ptr() as *const c_void,
        beta: zero.as_ptr() as *const c_void,
    };
    let mut bytes = 0usize;
    s.apply(&call, Stage::Size, &mut bytes, std::ptr::null_mut())?;
    let (_w, wp) = workspace(be, bytes)?;
    s.apply(&call, Stage::Prepare, &mut bytes, wp)?;
    s.apply(&call, Stage::Run, &mut bytes, wp)?;
    if s.holds_state(c.routine) {
        be.sparse_sync()?;
    }
    Ok(())
}

/// SpGEMM (see the module docs).
fn spgemm<D: SparseDriver>(
    be: &D,
    call: &SpGemmCall<'_>,
    alloc: &mut CsrAlloc<'_>,
) -> Result<usize> {
    let r = SparseRoutine::SpGemm;
    let op = format!("{} SpGEMM", D::LIBRARY);
    let (a, b) = (&call.a, &call.b);
    a.check(&op)?;
    b.check(&op)?;
    let (dt, it) = (a.dtype(), a.index_dtype());
    if b.dtype() != dt
        || b.index_dtype() != it
        || call.c_indptr.dtype() != it
        || call.c_indptr.len() < a.rows + 1
        || a.cols != b.rows
    {
        return Err(Error::invalid(
            &op,
            "A, B and C's indptr must share dtypes, A.cols == B.rows",
        ));
    }
    types(be, r, dt, it).map_err(|e| unsupported(be, r, e))?;
    let (ca, cb) = (csr_of(be, a, &op)?, csr_of(be, b, &op)?);
    let null = std::ptr::null_mut();
    let c_indptr = addr(be, call.c_indptr, &op)?;
    // C over the caller's indptr, no entries yet; D an empty 0 x 0 matrix.
    let empty = |rows: usize, cols: usize, indptr| Csr {
        rows: rows as i64,
        cols: cols as i64,
        nnz: 0,
        indptr,
        indices: null,
        data: null,
        ..ca
    };
    let s = be.begin_sparse(r)?;
    let mut d = Descrs {
        s: &s,
        made: vec![],
    };
    let ma = d.keep(DescrKind::Sparse, s.csr(&ca))?;
    let mb = d.keep(DescrKind::Sparse, s.csr(&cb))?;
    let mc = d.keep(DescrKind::Sparse, s.csr(&empty(a.rows, b.cols, c_indptr)))?;
    let md = if D::SPGEMM_D {
        d.keep(DescrKind::Sparse, s.csr(&empty(0, 0, null)))?
    } else {
        null
    };
    let od = d.keep(DescrKind::Routine(r), s.routine_descr(r))?;
    let (one, zero) = (scalar(dt, 1.0), scalar(dt, 0.0));
    let g = Gemm {
        a: ma,
        b: mb,
        c: mc,
        d: md,
        op: od,
        value: ca.value,
        alpha: one.as_ptr() as *const c_void,
        beta: zero.as_ptr() as *const c_void,
    };
    // Two-phase steps: the size query, then the call with a workspace of that size (kept
    // until the stream has run the work queued with it).
    let two_phase = |step| -> Result<(Buffer, Raw, usize)> {
        let mut bytes = 0usize;
        s.spgemm(&g, step, true, &mut bytes, null)?;
        let (w, wp) = workspace(be, bytes)?;
        s.spgemm(&g, step, false, &mut bytes, wp)?;
        Ok((w, wp, bytes))
    };
    let (_w1, wp1, mut bytes1) = two_phase(GemmStep::Estimate)?;
    let _w2 = two_phase(GemmStep::Compute)?;
    be.sparse_sync()?;
    let nnz = s.nnz(mc)?;
    let (ci, cd) = alloc(nnz)?;
    if ci.len() < nnz || cd.len() < nnz || ci.dtype() != it || cd.dtype() != dt {
        return Err(Error::invalid(
            &op,
            "the C buffers do not match C's size and dtypes",
        ));
    }
    s.set_pointers(mc, [c_indptr, addr(be, &ci, &op)?, addr(be, &cd, &op)?])?;
    s.spgemm(&g, GemmStep::Finish, false, &mut bytes1, wp1)?;
    // The descriptors' device state and the workspaces must outlive the queued work.
    be.sparse_sync()?;
    Ok(nnz)
}

/// Every backend with a [`SparseDriver`] is a [`SparseLibrary`] through the plans above.
impl<D: SparseDriver> SparseLibrary for D {
    fn library(&self) -> &'static str {
        D::LIBRARY
    }

    fn check(
        &self,
        routine: SparseRoutine,
        dtype: DType,
        index: DType,
    ) -> std::result::Result<(), String> {
        types(self, routine, dtype, index)
    }

    fn spmv(&self, call: &SpMvCall<'_>) -> Result<()> {
        let r = SparseRoutine::SpMv;
        guard(self, r, || {
            apply(
                self,
                &ApplyCall {
                    routine: r,
                    kind: if call.vector {
                        ApplyKind::SpMv
                    } else {
                        ApplyKind::SpMm
                    },
                    a: call.a,
                    x: call.x,
                    y: call.y,
                    k: call.k,
                    triangle: None,
                },
            )
        })
    }

    fn spgemm(&self, call: &SpGemmCall<'_>, alloc: &mut CsrAlloc<'_>) -> Result<usize> {
        guard(self, SparseRoutine::SpGemm, || spgemm(self, call, alloc))
    }

    fn spsv(&self, call: &SpSvCall<'_>) -> Result<()> {
        let r = SparseRoutine::SpSv;
        guard(self, r, || {
            apply(
                self,
                &ApplyCall {
                    routine: r,
                    kind: ApplyKind::SpSv,
                    a: call.a,
                    x: call.b,
                    y: call.x,
                    k: 1,
                    triangle: Some((call.lower, call.unit_diagonal)),
                },
            )
        })
    }

    fn spsm(&self, call: &SpSmCall<'_>) -> Result<()> {
        let r = SparseRoutine::SpSm;
        guard(self, r, || {
            apply(
                self,
                &ApplyCall {
                    routine: r,
                    kind: ApplyKind::SpSm,
                    a: call.a,
                    x: call.b,
                    y: call.x,
                    k: call.k,
                    triangle: Some((call.lower, call.unit_diagonal)),
                },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_host_bytes_of_the_dtype() {
        assert_eq!(
            scalar(DType::Complex64, 1.0)[..8],
            [0, 0, 128, 63, 0, 0, 0, 0]
        );
        assert_eq!(scalar(DType::Float64, 1.0)[..8], 1.0f64.to_ne_bytes());
        assert_eq!(scalar(DType::Complex128, 0.0), [0u8; 16]);
    }
}

//! The vendor sparse calls of the C++ GPU backends ([`SparseLibrary`]), written once: which
//! descriptors each routine needs, the order of the library calls, the checks, the workspace
//! sizing and flow, when to wait for the stream, and what is destroyed on every path (also on
//! errors). A backend implements [`SparseDriver`] (cuSPARSE on CUDA, rocSPARSE on HIP: one FFI
//! call per method) and gets [`SparseLibrary`] from the blanket implementation here.
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

/// One stage's operands: descriptors made by the plan.
#[derive(Clone, Copy, Debug)]
pub struct Apply {
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
    /// The value (and compute) dtype.
    pub dtype: DType,
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

/// One SpGEMM step's operands.
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
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
    /// The value dtype.
    pub dtype: DType,
    /// Host scalars 1 (`alpha`) and 0 (`beta`) of `dtype`.
    pub alpha: *const c_void,
    /// See `alpha`.
    pub beta: *const c_void,
}

/// A CSR matrix's raw parts for [`SparseSession::csr`].
#[derive(Clone, Copy, Debug)]
pub struct CsrParts {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Stored entries.
    pub nnz: usize,
    /// Device addresses of `indptr`, `indices`, `data` (null where not set yet).
    pub ptrs: [Raw; 3],
    /// The index dtype.
    pub index: DType,
    /// The value dtype.
    pub dtype: DType,
}

/// One library call sequence in progress (see the module docs): the vendor's FFI calls. Errors
/// are the library's status as [`Error::Backend`], or [`Error::Unsupported`] where the library
/// refuses the request (the frontend then runs its kernels).
pub trait SparseSession {
    /// Whether `routine`'s descriptors hold device state (analysis data), so the plan waits for
    /// the stream before destroying them.
    fn holds_state(&self, routine: SparseRoutine) -> bool;

    /// A CSR descriptor.
    fn csr(&self, p: &CsrParts) -> Result<Raw>;
    /// A dense vector descriptor of `n` elements at `ptr`.
    fn vector(&self, n: usize, ptr: Raw, dtype: DType) -> Result<Raw>;
    /// A dense row-major `rows x cols` matrix descriptor at `ptr` (leading dimension `cols`).
    fn matrix(&self, rows: usize, cols: usize, ptr: Raw, dtype: DType) -> Result<Raw>;
    /// The routine's own descriptor, or null where the library has none.
    fn routine_descr(&self, routine: SparseRoutine) -> Result<Raw>;
    /// Destroys a descriptor made by this session (errors ignored).
    fn destroy(&self, kind: DescrKind, d: Raw);
    /// Marks `a` as the lower or upper triangle, unit or stored diagonal.
    fn triangle(&self, a: Raw, lower: bool, unit_diagonal: bool) -> Result<()>;
    /// One stage of SpMV/SpMM/SpSV/SpSM.
    fn apply(&self, call: &Apply, stage: Stage, bytes: &mut usize, buffer: Raw) -> Result<()>;
    /// One SpGEMM step; `query`: the size query (`buffer` null).
    fn spgemm(
        &self,
        call: &Gemm,
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
    /// The session type.
    type Session<'a>: SparseSession
    where
        Self: 'a;

    /// The library's name (`"cuSPARSE"`, `"rocSPARSE"`).
    const LIBRARY: &'static str;

    /// Whether SpGEMM takes a `D` matrix (rocSPARSE).
    const SPGEMM_D: bool;

    /// Whether the library takes `routine` for `dtype` values and `index` indices (loading it on
    /// first use); `Err` says why not.
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

fn unsupported<D: SparseDriver>(be: &D, routine: SparseRoutine, reason: String) -> Error {
    Error::Unsupported {
        op: format!("{} {}", D::LIBRARY, routine.name()),
        backend: be.info().label(),
        reason,
    }
}

fn addr<D: SparseDriver>(be: &D, b: &Buffer, op: &str) -> Result<Raw> {
    Ok(be.dev_buf(b, op)?.ptr as Raw)
}

fn parts<D: SparseDriver>(be: &D, a: &CsrRef<'_>, op: &str) -> Result<CsrParts> {
    Ok(CsrParts {
        rows: a.rows,
        cols: a.cols,
        nnz: a.nnz,
        ptrs: [
            addr(be, a.indptr, op)?,
            addr(be, a.indices, op)?,
            addr(be, a.data, op)?,
        ],
        index: a.index_dtype(),
        dtype: a.dtype(),
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
    be.sparse_types(c.routine, dt, a.index_dtype())
        .map_err(|e| unsupported(be, c.routine, e))?;
    let s = be.begin_sparse(c.routine)?;
    let mut d = Descrs {
        s: &s,
        made: vec![],
    };
    let ma = d.keep(DescrKind::Sparse, s.csr(&parts(be, a, &op)?))?;
    if let Some((lower, unit)) = c.triangle {
        s.triangle(ma, lower, unit)?;
    }
    let (px, py) = (addr(be, c.x, &op)?, addr(be, c.y, &op)?);
    let (x, y) = if vector {
        (
            d.keep(DescrKind::Vector, s.vector(a.cols, px, dt))?,
            d.keep(DescrKind::Vector, s.vector(a.rows, py, dt))?,
        )
    } else {
        (
            d.keep(DescrKind::Matrix, s.matrix(a.cols, c.k, px, dt))?,
            d.keep(DescrKind::Matrix, s.matrix(a.rows, c.k, py, dt))?,
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
        dtype: dt,
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
    be.sparse_types(r, dt, it)
        .map_err(|e| unsupported(be, r, e))?;
    let s = be.begin_sparse(r)?;
    let mut d = Descrs {
        s: &s,
        made: vec![],
    };
    let ma = d.keep(DescrKind::Sparse, s.csr(&parts(be, a, &op)?))?;
    let mb = d.keep(DescrKind::Sparse, s.csr(&parts(be, b, &op)?))?;
    let null = std::ptr::null_mut();
    let c_indptr = addr(be, call.c_indptr, &op)?;
    let empty = |rows, cols, ptrs| CsrParts {
        rows,
        cols,
        nnz: 0,
        ptrs,
        index: it,
        dtype: dt,
    };
    let mc = d.keep(
        DescrKind::Sparse,
        s.csr(&empty(a.rows, b.cols, [c_indptr, null, null])),
    )?;
    let md = if D::SPGEMM_D {
        d.keep(DescrKind::Sparse, s.csr(&empty(0, 0, [null; 3])))?
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
        dtype: dt,
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
        self.sparse_types(routine, dtype, index)
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

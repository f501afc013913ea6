//! Dense linear algebra of the C++ GPU backends (`Backend::linalg`), written once: the per-op
//! plans (which library calls on which copies, in what order), the row-major/column-major
//! reasoning, dtype checks, info handling, the workspace flow and the helper kernels
//! (`hip-kernels/solver.cu`, [`kernels`]). A backend implements [`SolverDriver`] (the library
//! calls: cuSOLVER on CUDA, rocSOLVER on HIP) and forwards `Backend::linalg` to [`linalg`].
//! Every call is queued on the backend's stream with no synchronization (except where a
//! library needs a host workspace); `info` is written on the device.
//!
//! Layouts: our matrices are row-major (C order), LAPACK's column-major. A row-major buffer
//! read column-major is the transpose, so each op either works on that transpose directly or
//! first copies the matrix transposed on the device (an elementwise IR kernel through the
//! shared launch code):
//!
//! - `solve`, `inv`, `det`, `slogdet`: `A` is copied transposed, so `getrf` factors `A` itself
//!   with LAPACK's (and NumPy's) pivots; `solve` transposes `b` in and `x` out (no copy for one
//!   right-hand side) and calls `getrs(N)`; `inv` calls `getrs(T)` (the plain transpose, for
//!   complex too) on the identity, whose column-major result `A^-T` is `A^-1` in row-major.
//!   `det`/`slogdet` come from the factors by a small kernel ([`kernels`]), which reads the
//!   pivots at the library's width ([`SolverDriver::PIVOT`]).
//! - `cholesky` (potrf) runs on the plain copy (`A^T = conj(A)` for Hermitian `A`): the lower
//!   factor of `A` is the transposed upper factor of `A^T`, so `potrf(UPPER)` on the copy leaves
//!   `L` in row-major order; the other triangle is then zeroed.
//! - `eigh` (syevd/heevd) also runs on the plain copy with the other triangle; its vectors are
//!   those of `conj(A)`, copied out conjugate-transposed. A matrix holding NaN or infinity gives
//!   NaN outputs with info 0 (as the cpu backend), and the solver sees zeros instead.
//! - `svd` (gesvd, called with rows >= cols): for `m <= n` the plain copy is the `n x m`
//!   column-major `A^T = conj(V) S U^T`, so gesvd's `U` is our `vh` and its `VT` our `u`, both
//!   written in place; for `m > n`, `A` is copied transposed and `U`/`VT` are transposed out.
//!   Non-finite input: NaN outputs and info 1 (NumPy's "SVD did not converge"). Square
//!   matrices of order 64 and more take gesvdp (polar decomposition, then an eigensolver)
//!   where the library has it ([`SolverDriver::HAS_GESVDP`]), several times faster.
//! - `qr` (geqrf + orgqr/ungqr): on the transposed copy, whose geqrf result read row-major is
//!   exactly NumPy's `mode="raw"` `h`; `R` and `Q` are extracted by kernels.
//! - `eig`: a driver may refuse it ([`SolverDriver::refusal`]); the frontend then runs it on
//!   the host. A native `geev` (cuSOLVER's `Xgeev`) would be one more [`Lapack`] variant and
//!   plan in `ops.rs`.
//!
//! Batches: each [`LapackCall`] covers the whole batch (matrices contiguous, one stride
//! apart); a driver loops the single-matrix calls on its stream (cuSOLVER) or makes one
//! `_strided_batched` call (rocSOLVER). Workspace: [`SolverDriver::workspace`] sizes it (the
//! library's `_bufferSize` query, or 0 where the library allocates internally), the plan takes
//! it from the backend's pool, and waits for the stream only when a host workspace was used.
//! A library that cannot be loaded makes the call `Unsupported`, naming it and why.
//!
//! Files: this one (the trait, the call descriptors, the entry point and its checks), `ctx.rs`
//! (one call's state: scratch, workspace flow, transposes, copies, kernel wrappers), `ops.rs`
//! (the per-op plans), [`kernels`] (the helper kernels).

use crate::backend::{Backend, LinalgCall, LinalgOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::launch::{DevBuf, GpuDriver};

mod ctx;
pub mod kernels;
mod ops;
#[cfg(test)]
mod tests;

use ctx::{Bufs, Ctx};

/// `op` argument of `getrs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trans {
    /// `A X = B`.
    N,
    /// `A^T X = B` (plain transpose, for complex too).
    T,
}

/// Which triangle a call reads (`uplo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The upper triangle.
    Upper,
    /// The lower triangle.
    Lower,
}

/// Which singular vectors `gesvd` computes (the same for `U` and `VT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvdJob {
    /// None (`'N'`).
    None,
    /// The first `min(rows, cols)` (`'S'`).
    Some,
    /// All (`'A'`).
    All,
}

/// One library call over a batch of column-major matrices, each at `stride` elements from the
/// previous (the strides are the dense ones each variant documents; leading dimensions are the
/// row counts). Addresses are device addresses of the call's dtype unless noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lapack {
    /// LU with partial pivoting of the `n x n` matrices at `a` (stride `n * n`), in place;
    /// 1-based pivots `[batch, n]` of [`SolverDriver::PIVOT`] at `ipiv`; `info` `int32 [batch]`
    /// (`i + 1` when `U[i, i]` is exactly zero).
    Getrf {
        /// Order.
        n: usize,
        /// Matrices.
        a: u64,
        /// Pivots.
        ipiv: u64,
        /// Status per matrix.
        info: u64,
    },
    /// Solves with the factors of [`Lapack::Getrf`] for `nrhs` right-hand sides at `b`
    /// (`n x nrhs`, stride `n * nrhs`), in place. `info` is scratch (`int32 [batch]`): getrs
    /// reports argument errors only, and some libraries write none.
    Getrs {
        /// `A X = B` or `A^T X = B`.
        trans: Trans,
        /// Order.
        n: usize,
        /// Right-hand sides.
        nrhs: usize,
        /// The factors.
        a: u64,
        /// The pivots.
        ipiv: u64,
        /// Right-hand sides in, solutions out.
        b: u64,
        /// Scratch status.
        info: u64,
    },
    /// Cholesky factor of the `n x n` matrices at `a` (stride `n * n`), triangle `uplo`, in
    /// place; `info` `i > 0` when the leading minor of order `i` is not positive definite.
    Potrf {
        /// Triangle read and written.
        uplo: Fill,
        /// Order.
        n: usize,
        /// Matrices.
        a: u64,
        /// Status per matrix.
        info: u64,
    },
    /// Householder QR of the `m x n` matrices at `a` (stride `m * n`), in place; scalars at
    /// `tau` (stride `min(m, n)`). Writes 0 to `info` (the driver zeros it when the library
    /// has no info argument).
    Geqrf {
        /// Rows.
        m: usize,
        /// Columns.
        n: usize,
        /// Matrices.
        a: u64,
        /// Householder scalars.
        tau: u64,
        /// Status per matrix.
        info: u64,
    },
    /// orgqr/ungqr: the `m x n` matrices `Q` (stride `m * n`) from the first `k` reflectors in
    /// their columns and the scalars at `tau` (stride `k`), in place. `info` is scratch.
    Orgqr {
        /// Rows.
        m: usize,
        /// Columns of `Q`.
        n: usize,
        /// Reflectors.
        k: usize,
        /// Reflectors in, `Q` out.
        a: u64,
        /// Householder scalars.
        tau: u64,
        /// Scratch status.
        info: u64,
    },
    /// syevd/heevd of the Hermitian `n x n` matrices at `a` (stride `n * n`, triangle `uplo`):
    /// ascending eigenvalues at `w` (real dtype, stride `n`), eigenvectors over `a` when
    /// `vectors`; `info > 0` when it did not converge.
    Syevd {
        /// Eigenvectors too.
        vectors: bool,
        /// Triangle read.
        uplo: Fill,
        /// Order.
        n: usize,
        /// Matrices in, eigenvectors out.
        a: u64,
        /// Eigenvalues (real dtype).
        w: u64,
        /// Status per matrix.
        info: u64,
    },
    /// geev of the general `n x n` matrices at `a` (stride `n * n`; destroyed): eigenvalues at
    /// `w` (the complex dtype of the matrices', stride `n`), right eigenvectors at `vr` (the
    /// matrices' dtype, `n x n`, stride `n * n`; for a real matrix a conjugate pair `w[j]`,
    /// `w[j + 1]` is packed as LAPACK's `VR[:, j] +- i VR[:, j + 1]`), `vr` 0 without
    /// `vectors`. `info > 0` when the QR algorithm did not converge.
    Geev {
        /// Right eigenvectors too.
        vectors: bool,
        /// Order.
        n: usize,
        /// Matrices (destroyed).
        a: u64,
        /// Eigenvalues (complex).
        w: u64,
        /// Right eigenvectors, or 0.
        vr: u64,
        /// Status per matrix.
        info: u64,
    },
    /// gesvdp (polar decomposition, then an eigensolver) of the square `n x n` matrices at `a`
    /// (stride `n * n`; destroyed): singular values at `s` (real dtype, stride `n`), `U` at `u`
    /// and `V` (not `V^H`) at `v` (`n x n`, stride `n * n`; both 0 without `vectors`). Only
    /// libraries with [`SolverDriver::HAS_GESVDP`] take it. `info > 0` when it did not converge.
    Gesvdp {
        /// Vectors computed.
        vectors: bool,
        /// Order.
        n: usize,
        /// Matrices (destroyed).
        a: u64,
        /// Singular values (real dtype).
        s: u64,
        /// Left vectors, or 0.
        u: u64,
        /// Right vectors (not transposed), or 0.
        v: u64,
        /// Status per matrix.
        info: u64,
    },
    /// gesvd of the `rows x cols` matrices at `a` (stride `rows * cols`, `rows >= cols`;
    /// destroyed): singular values at `s` (real dtype, stride `cols`), `U` at `u` (`rows x
    /// ucols`, `ucols` = `rows` for [`SvdJob::All`], else `cols`) and `VT` at `vt` (`cols x
    /// cols`); `u`/`vt` are 0 for [`SvdJob::None`]. `info > 0` when it did not converge.
    Gesvd {
        /// Vectors computed.
        job: SvdJob,
        /// Rows (>= cols).
        rows: usize,
        /// Columns.
        cols: usize,
        /// Matrices (destroyed).
        a: u64,
        /// Singular values (real dtype).
        s: u64,
        /// Left vectors, or 0.
        u: u64,
        /// Right vectors (transposed), or 0.
        vt: u64,
        /// Status per matrix.
        info: u64,
    },
}

impl Lapack {
    /// Columns of gesvd's `U` for `job` on a `rows x cols` matrix.
    pub fn gesvd_ucols(job: SvdJob, rows: usize, cols: usize) -> usize {
        if job == SvdJob::All {
            rows
        } else {
            cols
        }
    }
}

/// A [`Lapack`] call for `batch` matrices of `dtype` (float32, float64, complex64 or
/// complex128).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LapackCall {
    /// The matrices' dtype.
    pub dtype: DType,
    /// Number of matrices (at least 1).
    pub batch: usize,
    /// The call.
    pub op: Lapack,
}

/// Workspace sizes of one [`LapackCall`] (bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkSize {
    /// Device bytes.
    pub device: usize,
    /// Host bytes (the plan waits for the stream before releasing them).
    pub host: usize,
}

/// The workspace given to [`SolverDriver::lapack`], as [`SolverDriver::workspace`] sized it.
#[derive(Debug)]
pub struct Work<'a> {
    /// Device address of the device workspace (a live buffer of at least one byte).
    pub device: u64,
    /// Its size in bytes (as queried).
    pub device_bytes: usize,
    /// The host workspace (empty when none was asked for).
    pub host: &'a mut [u8],
}

/// The dense-solver library calls of a C++ GPU backend (cuSOLVER, rocSOLVER); the plans that
/// use them are shared ([`linalg`]). Errors of [`Self::workspace`] and [`Self::lapack`] are
/// the failing library function and its status, as text ("cusolverDnXgetrf failed:
/// CUSOLVER_STATUS_INVALID_VALUE"); the plan adds the op, dtype and shape.
pub trait SolverDriver: GpuDriver {
    /// The library's name in messages (`"cuSOLVER"`, `"rocSOLVER"`).
    const LIBRARY: &'static str;

    /// The dtype of the LU pivots the library writes (`Int64` for cuSOLVER's 64-bit API,
    /// `Int32` for rocSOLVER's `rocblas_int`).
    const PIVOT: DType;

    /// Whether the library has [`Lapack::Gesvdp`] (cuSOLVER does). The plans use it for square
    /// `svd` of order 64 and more (`CUPY_CUSOLVER_SVD=gesvd` or `gesvdp` forces one), falling
    /// back to gesvd when the call fails: it took svd_f64_2048 from 612 to 73 ms on the H200
    /// (CuPy 436), and failed with `CUSOLVER_STATUS_INTERNAL_ERROR` on a 3x3 there.
    const HAS_GESVDP: bool = false;

    /// Why this backend does not run `op` natively (an environment switch, an op the library
    /// lacks), checked before anything else; the call is then `Unsupported` with that reason.
    fn refusal(&self, op: LinalgOp) -> Option<String>;

    /// Loads the library and creates its handle on the backend's stream, once; `Err` says why
    /// it is unavailable (the library and the paths tried).
    fn open_solver(&self) -> std::result::Result<(), String>;

    /// The workspace `call` needs (0 where the library manages its own memory).
    fn workspace(&self, call: &LapackCall) -> std::result::Result<WorkSize, String>;

    /// Queues `call` on the backend's stream.
    ///
    /// # Safety
    /// Every address in `call` is a live device buffer covering what the variant documents
    /// for `call.batch` matrices, and `work` is as [`Self::workspace`] sized it.
    unsafe fn lapack(&self, call: &LapackCall, work: Work<'_>) -> std::result::Result<(), String>;

    /// Queues a device-to-device copy of `bytes` bytes on the backend's stream.
    ///
    /// # Safety
    /// Both ranges lie in live device buffers.
    ///
    /// # Errors
    /// The driver's error.
    unsafe fn copy_device(&self, dst: u64, src: u64, bytes: usize) -> Result<()>;

    /// Queues setting `bytes` bytes at `dst` to zero on the backend's stream.
    ///
    /// # Safety
    /// The range lies in a live device buffer.
    ///
    /// # Errors
    /// The driver's error.
    unsafe fn zero_device(&self, dst: u64, bytes: usize) -> Result<()>;
}

/// `Unsupported` naming `op`, the backend and `reason`.
pub fn unsupported<B: Backend + ?Sized>(be: &B, op: &str, reason: impl Into<String>) -> Error {
    Error::Unsupported {
        op: op.into(),
        backend: be.info().label(),
        reason: reason.into(),
    }
}

fn check<D: GpuDriver>(be: &D, call: &LinalgCall<'_>) -> Result<Bufs> {
    let op = call.op.name();
    let (ins, outs) = call.checked_lens()?;
    let odt = call.op.out_dtypes(call.dtype);
    let get = |what: &str, i: usize, b: &crate::backend::Buffer, len: usize, dt: DType| {
        let cb = be.dev_buf(b, op)?;
        if cb.len < len || cb.dtype != dt {
            return Err(Error::invalid(
                op,
                format!(
                    "linalg {what} {i}: needs {len} x {dt}, got {} x {}",
                    cb.len, cb.dtype
                ),
            ));
        }
        Ok(cb)
    };
    let mut bi: Vec<DevBuf> = Vec::new();
    for (i, (b, &l)) in call.inputs.iter().zip(&ins).enumerate() {
        bi.push(get("input", i, b, l, call.dtype)?);
    }
    let mut bo: Vec<DevBuf> = Vec::new();
    for (i, (b, &l)) in call.outputs.iter().zip(&outs).enumerate() {
        bo.push(get("output", i, b, l, odt[i])?);
    }
    let info = get("info", 0, call.info, call.batch, DType::Int32)?;
    Ok(Bufs {
        ins: bi,
        outs: bo,
        info,
    })
}

/// `Backend::linalg` of a C++ GPU backend: checks the call (dtype, operand counts and sizes,
/// 32-bit dimensions), opens the library, then runs the op's plan on the stream.
///
/// # Errors
/// `Unsupported` (a dtype the solver does not take, [`SolverDriver::refusal`], the library not
/// loadable, dimensions beyond 2^31-1), `InvalidArgument` (operands), the library's and the
/// driver's errors.
pub fn linalg<D: SolverDriver>(be: &D, call: &LinalgCall<'_>) -> Result<()> {
    let op = call.op.name();
    if !kernels::is_solver_dtype(call.dtype) {
        return Err(unsupported(
            be,
            op,
            format!(
                "{} is used for float32, float64, complex64 and complex128, not {}",
                D::LIBRARY,
                call.dtype
            ),
        ));
    }
    if let Some(reason) = be.refusal(call.op) {
        return Err(unsupported(be, op, reason));
    }
    let big = [call.m, call.n, call.nrhs, call.batch]
        .iter()
        .any(|&v| v > i32::MAX as usize);
    if big {
        return Err(unsupported(be, op, "matrix dimensions beyond 2^31-1"));
    }
    let bufs = check(be, call)?;
    if call.batch == 0 {
        return Ok(());
    }
    be.activate()?;
    if let Err(reason) = be.open_solver() {
        return Err(unsupported(be, op, reason));
    }
    let ctx = Ctx {
        be,
        call,
        dt: call.dtype,
        bufs,
    };
    // One plan at a time: a library handle (cuSOLVER's, rocSOLVER's) is not thread-safe, and
    // the plans share it (and the pinned host workspaces) across calls.
    static PLAN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _plan = PLAN.lock().unwrap_or_else(|e| e.into_inner());
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.run())) {
        Ok(r) => r,
        Err(p) => {
            let msg = crate::gpu::support::panic_message(&*p);
            Err(unsupported(be, op, format!("{}: {msg}", D::LIBRARY)))
        }
    }
}

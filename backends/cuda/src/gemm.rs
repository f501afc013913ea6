//! GEMM through cuBLAS: `cublasGemmStridedBatchedEx` for float16/bfloat16/float32/float64,
//! `cublasCgemmStridedBatched`/`cublasZgemmStridedBatched` for complex64/complex128 (plain
//! products, `op = T` for transposed views: NumPy's `matmul` never conjugates).
//!
//! Our operands are row-major-ish strided views; cuBLAS is column-major. A row-major `X` with
//! row stride `ld` *is* a column-major `X^T` with leading dimension `ld`, so `C = A B` is computed
//! as `C^T = B^T A^T` with no copy. A transposed view (unit row stride) is a column-major `X`,
//! passed with `op = T`. Layouts that are neither (negative or non-unit inner strides) are first
//! copied to a contiguous buffer by an elementwise copy kernel; an output that cannot be written
//! directly is computed into a temporary and copied out. TF32 tensor cores are used for float32
//! only when `CUPY_TF32=1`.

use crate::provider::CUBLAS;
use crate::{CudaBackend, CudaBuffer};
use cudarc::cublas::sys as cb;
use cupy_core::backend::{dtype_unsupported, Backend, Buffer, GemmCall};
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Result, Scalar};
use std::ffi::c_void;

pub(crate) struct Blas {
    handle: cb::cublasHandle_t,
    /// Held from `cublasSetStream` to the end of the call, so two threads on two streams do not
    /// swap the handle's stream under each other.
    lock: std::sync::Mutex<()>,
    /// The workspace bound for calls on a capturing stream (`cublasSetWorkspace`; made on the
    /// first captured call, freed with the handle): a graph replays its GEMMs with it, so it
    /// must outlive every graph, which the handle's default workspace pool does not promise.
    capture_ws: std::sync::OnceLock<std::result::Result<u64, String>>,
}

/// Bytes of the capture workspace (NVIDIA's recommendation for Hopper, more than enough
/// before it).
const CAPTURE_WS_BYTES: usize = 32 << 20;

// SAFETY: the handle is used under `lock`, with its stream set to the caller's current stream
// for each call.
unsafe impl Send for Blas {}
// SAFETY: as above.
unsafe impl Sync for Blas {}

impl Drop for Blas {
    fn drop(&mut self) {
        // SAFETY: created by cublasCreate_v2, destroyed once.
        let _ = std::panic::catch_unwind(|| unsafe { cb::cublasDestroy_v2(self.handle) });
        if let Some(Ok(ws)) = self.capture_ws.get() {
            // SAFETY: allocated by cuMemAlloc below, freed once, after the handle; graphs that
            // used it are gone with the backend.
            let _ = unsafe { cudarc::driver::result::free_sync(*ws) };
        }
    }
}

fn create(be: &CudaBackend) -> Result<Blas> {
    CUBLAS.open(crate::provider::unavailable, || -> Result<Blas> {
        let mut handle = std::ptr::null_mut();
        // SAFETY: out-parameter; the context is bound by the caller.
        let s = unsafe { cb::cublasCreate_v2(&mut handle) };
        if s != cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return Err(be.err(format!("cublasCreate failed: {s:?}")));
        }
        Ok(Blas {
            handle,
            lock: std::sync::Mutex::new(()),
            capture_ws: std::sync::OnceLock::new(),
        })
    })
}

/// How one `[batch, rows, cols]` operand is seen by cuBLAS.
#[derive(Debug, Clone, Copy)]
struct MatView {
    /// True: row-major (col-major view is X^T, op N on our side of the swap); false: col-major.
    row_major: bool,
    ld: i64,
    batch_stride: i64,
}

fn view(l: &Layout) -> Option<MatView> {
    let (r, c) = (l.shape[1] as isize, l.shape[2] as isize);
    let (sr, sc) = (l.strides[1], l.strides[2]);
    let bs = if l.shape[0] <= 1 { 0 } else { l.strides[0] };
    if bs < 0 {
        return None;
    }
    if (c == 1 || sc == 1) && (r == 1 || sr >= c.max(1)) {
        let ld = if r == 1 { c.max(1) } else { sr };
        return Some(MatView {
            row_major: true,
            ld: ld as i64,
            batch_stride: bs as i64,
        });
    }
    if (r == 1 || sr == 1) && (c == 1 || sc >= r.max(1)) {
        let ld = if c == 1 { r.max(1) } else { sc };
        return Some(MatView {
            row_major: false,
            ld: ld as i64,
            batch_stride: bs as i64,
        });
    }
    None
}

fn data_type(d: DType) -> Option<(cb::cudaDataType, cb::cublasComputeType_t)> {
    let tf32 = std::env::var("CUPY_TF32")
        .map(|v| v == "1")
        .unwrap_or(false);
    Some(match d {
        DType::Float16 => (
            cb::cudaDataType::CUDA_R_16F,
            cb::cublasComputeType_t::CUBLAS_COMPUTE_32F,
        ),
        DType::BFloat16 => (
            cb::cudaDataType::CUDA_R_16BF,
            cb::cublasComputeType_t::CUBLAS_COMPUTE_32F,
        ),
        DType::Float32 => (
            cb::cudaDataType::CUDA_R_32F,
            if tf32 {
                cb::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
            } else {
                cb::cublasComputeType_t::CUBLAS_COMPUTE_32F
            },
        ),
        DType::Float64 => (
            cb::cudaDataType::CUDA_R_64F,
            cb::cublasComputeType_t::CUBLAS_COMPUTE_64F,
        ),
        _ => return None,
    })
}

pub(crate) fn gemm(be: &CudaBackend, call: &GemmCall<'_>) -> Result<()> {
    let ab = be.buf(call.a.buffer, "matmul")?;
    let bb = be.buf(call.b.buffer, "matmul")?;
    let cbuf = be.buf(call.c.buffer, "matmul")?;
    let dt = ab.dtype;
    let real = data_type(dt);
    if real.is_none() && !dt.is_complex() {
        return Err(dtype_unsupported(
            "matmul",
            dt,
            be.info(),
            "cuBLAS GEMM is used for float16, bfloat16, float32, float64, complex64 and complex128 only",
        ));
    }
    if bb.dtype != dt || cbuf.dtype != dt {
        return Err(Error::invalid(
            "matmul",
            format!("dtypes differ: {} @ {} -> {}", dt, bb.dtype, cbuf.dtype),
        ));
    }
    let (la, lb, lc) = (&call.a.layout, &call.b.layout, &call.c.layout);
    if la.ndim() != 3 || lb.ndim() != 3 || lc.ndim() != 3 {
        return Err(Error::invalid(
            "matmul",
            "gemm operands must be [batch, rows, cols]",
        ));
    }
    let (batch, m, k, n) = (lc.shape[0], la.shape[1], la.shape[2], lb.shape[2]);
    if la.shape[0] != batch
        || lb.shape[0] != batch
        || lb.shape[1] != k
        || lc.shape[1] != m
        || lc.shape[2] != n
    {
        return Err(Error::ShapeMismatch {
            op: "matmul".into(),
            lhs: la.shape.clone(),
            rhs: lb.shape.clone(),
        });
    }
    let a_op = be.operand("matmul", &call.a, dt)?;
    let b_op = be.operand("matmul", &call.b, dt)?;
    let c_op = be.operand("matmul", &call.c, dt)?;
    if batch == 0 || m == 0 || n == 0 {
        return Ok(());
    }
    be.bind()?;
    if k == 0 {
        let zero = Kernel::map("zeros", vec![], vec![], Expr::constant(Scalar::zero(dt)));
        return be.run_elementwise(&zero, &lc.shape, &[], &[(c_op, lc)], &[], &[]);
    }
    // Operands cuBLAS can read directly, or contiguous copies.
    let mut keep: Vec<Buffer> = vec![];
    let mut prep = |b: &CudaBuffer, l: &Layout| -> Result<(u64, MatView)> {
        if let Some(v) = view(l) {
            return Ok((CudaBackend::ptr_at(b, l.offset), v));
        }
        let tmp = be.contiguous_copy(b, l)?;
        let p = be.buf(&tmp, "matmul")?.ptr;
        keep.push(tmp);
        let cl = Layout::contiguous(&l.shape);
        Ok((
            p,
            view(&cl).expect("contiguous layouts are row-major views"),
        ))
    };
    let (pa, va) = prep(a_op, la)?;
    let (pb, vb) = prep(b_op, lb)?;
    let direct_c = view(lc).filter(|v| v.row_major && (lc.shape[0] <= 1 || lc.strides[0] > 0));
    let (pc, vc, tmp_c) = match direct_c {
        Some(v) => (CudaBackend::ptr_at(c_op, lc.offset), v, None),
        None => {
            let t = be.alloc(dt, batch * m * n)?;
            let p = be.buf(&t, "matmul")?.ptr;
            let cl = Layout::contiguous(&lc.shape);
            (p, view(&cl).expect("contiguous"), Some(t))
        }
    };
    let blas = be.blas.get_or_init(|| create(be));
    let blas = match blas {
        Ok(b) => b,
        Err(e) => return Err(e.clone()),
    };
    let _held = blas.lock.lock().unwrap_or_else(|e| e.into_inner());
    be.order_library().map_err(|e| be.err(e))?;
    // SAFETY: valid handle; the current stream of the bound context.
    let s = unsafe { cb::cublasSetStream_v2(blas.handle, be.stream_ptr() as cb::cudaStream_t) };
    if s != cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Err(be.err(format!("cublasSetStream failed: {s:?}")));
    }
    // (`cublasSetStream` put the default workspace back for the calls outside a capture.)
    if be.current_capturing() {
        let ws = blas.capture_ws.get_or_init(|| {
            // SAFETY: a plain allocation in the bound context (allowed in a relaxed capture).
            unsafe { cudarc::driver::result::malloc_sync(CAPTURE_WS_BYTES) }
                .map_err(|e| format!("cuMemAlloc of cuBLAS's capture workspace: {e:?}"))
        });
        let ws = ws.clone().map_err(|e| be.err(e))?;
        // SAFETY: valid handle; a live device allocation of CAPTURE_WS_BYTES bytes.
        let s =
            unsafe { cb::cublasSetWorkspace_v2(blas.handle, ws as *mut c_void, CAPTURE_WS_BYTES) };
        if s != cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return Err(be.err(format!("cublasSetWorkspace failed: {s:?}")));
        }
    }
    // C^T (n x m) = op(B^T) (n x k) * op(A^T) (k x m)
    let op = |row_major: bool| {
        if row_major {
            cb::cublasOperation_t::CUBLAS_OP_N
        } else {
            cb::cublasOperation_t::CUBLAS_OP_T
        }
    };
    let (alpha32, beta32) = (1.0f32, 0.0f32);
    let (alpha64, beta64) = (1.0f64, 0.0f64);
    let (alpha, beta): (*const c_void, *const c_void) = if dt == DType::Float64 {
        (
            &alpha64 as *const f64 as *const c_void,
            &beta64 as *const f64 as *const c_void,
        )
    } else {
        (
            &alpha32 as *const f32 as *const c_void,
            &beta32 as *const f32 as *const c_void,
        )
    };
    let sc = if batch <= 1 {
        (m * n) as i64
    } else {
        vc.batch_stride
    };
    let fits = |v: i64| v <= i32::MAX as i64;
    let small = [
        m as i64,
        n as i64,
        k as i64,
        va.ld,
        vb.ld,
        vc.ld,
        batch as i64,
    ]
    .iter()
    .all(|&v| fits(v));
    let (c32_1, c32_0) = (
        cb::cuComplex { x: 1.0, y: 0.0 },
        cb::cuComplex { x: 0.0, y: 0.0 },
    );
    let (c64_1, c64_0) = (
        cb::cuDoubleComplex { x: 1.0, y: 0.0 },
        cb::cuDoubleComplex { x: 0.0, y: 0.0 },
    );
    let (ta, tb) = (op(va.row_major), op(vb.row_major));
    let status = std::panic::catch_unwind(|| {
        // SAFETY: pointers are live device allocations covering every addressed element (checked
        // by `operand`), leading dimensions satisfy cuBLAS's bounds by construction in `view`;
        // complex buffers hold NumPy's (re, im) pairs, cuComplex/cuDoubleComplex's layout.
        unsafe {
            match (dt, small) {
                (DType::Complex64, true) => cb::cublasCgemmStridedBatched(
                    blas.handle,
                    tb,
                    ta,
                    n as i32,
                    m as i32,
                    k as i32,
                    &c32_1,
                    pb as *const cb::cuComplex,
                    vb.ld as i32,
                    vb.batch_stride,
                    pa as *const cb::cuComplex,
                    va.ld as i32,
                    va.batch_stride,
                    &c32_0,
                    pc as *mut cb::cuComplex,
                    vc.ld as i32,
                    sc,
                    batch as i32,
                ),
                (DType::Complex64, false) => cb::cublasCgemmStridedBatched_64(
                    blas.handle,
                    tb,
                    ta,
                    n as i64,
                    m as i64,
                    k as i64,
                    &c32_1,
                    pb as *const cb::cuComplex,
                    vb.ld,
                    vb.batch_stride,
                    pa as *const cb::cuComplex,
                    va.ld,
                    va.batch_stride,
                    &c32_0,
                    pc as *mut cb::cuComplex,
                    vc.ld,
                    sc,
                    batch as i64,
                ),
                (DType::Complex128, true) => cb::cublasZgemmStridedBatched(
                    blas.handle,
                    tb,
                    ta,
                    n as i32,
                    m as i32,
                    k as i32,
                    &c64_1,
                    pb as *const cb::cuDoubleComplex,
                    vb.ld as i32,
                    vb.batch_stride,
                    pa as *const cb::cuDoubleComplex,
                    va.ld as i32,
                    va.batch_stride,
                    &c64_0,
                    pc as *mut cb::cuDoubleComplex,
                    vc.ld as i32,
                    sc,
                    batch as i32,
                ),
                (DType::Complex128, false) => cb::cublasZgemmStridedBatched_64(
                    blas.handle,
                    tb,
                    ta,
                    n as i64,
                    m as i64,
                    k as i64,
                    &c64_1,
                    pb as *const cb::cuDoubleComplex,
                    vb.ld,
                    vb.batch_stride,
                    pa as *const cb::cuDoubleComplex,
                    va.ld,
                    va.batch_stride,
                    &c64_0,
                    pc as *mut cb::cuDoubleComplex,
                    vc.ld,
                    sc,
                    batch as i64,
                ),
                (_, true) => {
                    let (cuda_t, compute) = real.expect("real GEMM dtype checked above");
                    cb::cublasGemmStridedBatchedEx(
                        blas.handle,
                        tb,
                        ta,
                        n as i32,
                        m as i32,
                        k as i32,
                        alpha,
                        pb as *const c_void,
                        cuda_t,
                        vb.ld as i32,
                        vb.batch_stride,
                        pa as *const c_void,
                        cuda_t,
                        va.ld as i32,
                        va.batch_stride,
                        beta,
                        pc as *mut c_void,
                        cuda_t,
                        vc.ld as i32,
                        sc,
                        batch as i32,
                        compute,
                        cb::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                }
                (_, false) => {
                    let (cuda_t, compute) = real.expect("real GEMM dtype checked above");
                    cb::cublasGemmStridedBatchedEx_64(
                        blas.handle,
                        tb,
                        ta,
                        n as i64,
                        m as i64,
                        k as i64,
                        alpha,
                        pb as *const c_void,
                        cuda_t,
                        vb.ld,
                        vb.batch_stride,
                        pa as *const c_void,
                        cuda_t,
                        va.ld,
                        va.batch_stride,
                        beta,
                        pc as *mut c_void,
                        cuda_t,
                        vc.ld,
                        sc,
                        batch as i64,
                        compute,
                        cb::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                }
            }
        }
    })
    .map_err(|_| CUBLAS.unavailable())?;
    if status != cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Err(be.err(format!(
            "cuBLAS strided batched GEMM ({dt}, batch {batch}, {m}x{k} @ {k}x{n}) failed: {status:?}"
        )));
    }
    if let Some(t) = tmp_c {
        let tb = be.buf(&t, "matmul")?;
        let copy = Kernel::map("copy", vec![dt], vec![], Expr::input(0, dt));
        let tl = Layout::contiguous(&lc.shape);
        be.run_elementwise(&copy, &lc.shape, &[(tb, &tl)], &[(c_op, lc)], &[], &[])?;
    }
    drop(keep);
    Ok(())
}

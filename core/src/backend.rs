//! The object-safe [`Backend`] trait every device implements, and the [`BackendProvider`] that
//! discovery uses to find devices.
//!
//! The frontend never matches on vendors: it builds kernels in the IR ([`crate::kernel`]),
//! simplifies their iteration space ([`crate::layout::merge_axes`]) and hands them to a backend.
//!
//! # Contract for implementors
//! - Work may be queued and run later (asynchrony); `read` and `synchronize` wait for everything
//!   queued before them. Ops are executed in the order they are submitted.
//! - Layouts handed to a backend are checked by the caller: every element they address lies
//!   inside its buffer, and output layouts address each element at most once (no zero strides).
//!   Inputs may alias outputs only element-for-element (same layout).
//! - A backend refuses a dtype it cannot store or compute with (`supports_dtype`, or a kernel that
//!   uses it) with [`Error::DTypeNotSupported`] before queueing any work, so nothing the user owns
//!   is modified by a failed call.
//! - Buffers store one element per index, whatever representation the device uses internally
//!   (wgpu widens 8/16-bit integers to 32-bit words); `write`/`read` speak NumPy's byte format.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::pool::PoolStats;
use crate::kernel::ir::{Kernel, ReduceKernel};
use crate::layout::Layout;
use crate::scalar::Scalar;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// The four backend families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BackendKind {
    /// NVIDIA, through the CUDA driver, NVRTC and cuBLAS.
    Cuda,
    /// AMD, through the HIP runtime, hipRTC and rocBLAS.
    Hip,
    /// Any Vulkan/Metal/DX12 GPU through wgpu and WGSL.
    Wgpu,
    /// The host CPU.
    Cpu,
}

impl BackendKind {
    /// Discovery order: CUDA, HIP, wgpu, CPU.
    pub const ALL: [BackendKind; 4] = [
        BackendKind::Cuda,
        BackendKind::Hip,
        BackendKind::Wgpu,
        BackendKind::Cpu,
    ];

    /// Lower-case name as used by `CUPY_BACKEND`.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cuda => "cuda",
            BackendKind::Hip => "hip",
            BackendKind::Wgpu => "wgpu",
            BackendKind::Cpu => "cpu",
        }
    }

    /// Parses a `CUPY_BACKEND` value (case-insensitive); `auto` gives `None`.
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for anything else.
    pub fn parse(value: &str) -> Result<Option<BackendKind>> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "cuda" => Ok(Some(BackendKind::Cuda)),
            "hip" | "rocm" => Ok(Some(BackendKind::Hip)),
            "wgpu" | "vulkan" => Ok(Some(BackendKind::Wgpu)),
            "cpu" | "host" => Ok(Some(BackendKind::Cpu)),
            _ => Err(Error::UnknownBackend {
                value: value.into(),
            }),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a device is.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Backend family.
    pub kind: BackendKind,
    /// Index among that backend's devices.
    pub index: usize,
    /// Device name (e.g. `"NVIDIA H200"`, `"llvmpipe (LLVM 15.0.6, 256 bits)"`).
    pub name: String,
    /// Free text: driver, API, device type, compute capability.
    pub details: String,
    /// True for a software rasterizer (llvmpipe, SwiftShader), used only when asked for.
    pub software: bool,
    /// Total device memory in bytes, if known.
    pub total_memory: Option<u64>,
}

impl DeviceInfo {
    /// `"wgpu:0 (NVIDIA H200)"`.
    pub fn label(&self) -> String {
        format!("{}:{} ({})", self.kind, self.index, self.name)
    }
}

/// A device allocation holding `len` elements of `dtype`. Backends downcast through `as_any`.
pub trait DeviceBuffer: Any + Send + Sync + fmt::Debug {
    /// Element count.
    fn len(&self) -> usize;
    /// True if it holds no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element dtype.
    fn dtype(&self) -> DType;
    /// For downcasting to the backend's concrete type.
    fn as_any(&self) -> &dyn Any;
    /// The address of element 0 in the device's address space (a CUDA/HIP device pointer, a
    /// host pointer on the cpu), for zero-copy exchange (DLPack); `None` where buffers have no
    /// address a foreign library could use (wgpu).
    fn address(&self) -> Option<u64> {
        None
    }
}

/// `Ok` when `address` is aligned to `dtype`'s component size (what every backend's kernels
/// need of a [`Backend::wrap_external`] address: a complex number's part, else the element).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the address, dtype and alignment.
pub fn check_external_alignment(address: u64, dtype: DType) -> Result<()> {
    let align = match dtype {
        DType::Complex64 => 4,
        DType::Complex128 => 8,
        d => d.itemsize().max(1),
    } as u64;
    if !address.is_multiple_of(align) {
        return Err(Error::invalid(
            "from_dlpack",
            format!("address {address:#x} of {dtype} data is not aligned to {align} bytes"),
        ));
    }
    Ok(())
}

/// What keeps foreign memory alive while a [`Buffer`] made by [`Backend::wrap_external`] uses
/// it: dropped (once) when the buffer drops, e.g. calling a DLPack deleter.
pub type KeepAlive = Box<dyn Any + Send + Sync>;

/// A shared handle to a device allocation (views of one array share it).
pub type Buffer = Arc<dyn DeviceBuffer>;

/// A strided operand of a kernel: a buffer and a layout over the launch's iteration shape.
#[derive(Clone, Debug)]
pub struct Operand<'a> {
    /// The buffer.
    pub buffer: &'a Buffer,
    /// Shape (the iteration shape), element strides and offset into `buffer`.
    pub layout: Layout,
}

/// A raw operand: `len` contiguous elements of `buffer` starting at element `offset`, indexed by
/// [`crate::kernel::ir::ExprKind::Load`].
#[derive(Clone, Debug)]
pub struct RawOperand<'a> {
    /// The buffer.
    pub buffer: &'a Buffer,
    /// First element.
    pub offset: usize,
    /// Number of elements addressable.
    pub len: usize,
}

/// One elementwise launch: run `kernel` once per element of `shape`.
#[derive(Clone, Debug)]
pub struct ElementwiseCall<'a> {
    /// The kernel (validated).
    pub kernel: &'a Kernel,
    /// Iteration shape (already simplified by `merge_axes`; at least 1-D).
    pub shape: Vec<usize>,
    /// Elementwise inputs (dtypes match `kernel.inputs`), layouts of shape `shape`.
    pub inputs: Vec<Operand<'a>>,
    /// Outputs (dtypes match `kernel.outputs`), layouts of shape `shape`.
    pub outputs: Vec<Operand<'a>>,
    /// Raw operands (dtypes match `kernel.raws`).
    pub raws: Vec<RawOperand<'a>>,
    /// Parameter values (dtypes match `kernel.params`).
    pub params: Vec<Scalar>,
}

/// One reduction launch: for each index `o` of `out_shape`, fold `kernel` over `reduce_shape`.
#[derive(Clone, Debug)]
pub struct ReductionCall<'a> {
    /// The kernel.
    pub kernel: &'a ReduceKernel,
    /// Shape of the output (may be empty for a full reduction).
    pub out_shape: Vec<usize>,
    /// Shape of the reduced axes (may be empty: then `post(map(x))` per element; its product may
    /// be 0: then `post(identity)`).
    pub reduce_shape: Vec<usize>,
    /// Inputs, layouts of shape `out_shape ++ reduce_shape`.
    pub inputs: Vec<Operand<'a>>,
    /// The output, layout of shape `out_shape`.
    pub output: Operand<'a>,
    /// Parameter values.
    pub params: Vec<Scalar>,
}

/// A (batched) matrix product `c[b] = a[b] @ b[b]`, overwriting `c`.
#[derive(Clone, Debug)]
pub struct GemmCall<'a> {
    /// Left operand, layout shape `[batch, m, k]` (any strides, batch stride may be 0).
    pub a: Operand<'a>,
    /// Right operand, layout shape `[batch, k, n]`.
    pub b: Operand<'a>,
    /// Result, layout shape `[batch, m, n]`.
    pub c: Operand<'a>,
}

/// The source language of a backend's native (raw) kernels, as `RawKernel` takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NativeLanguage {
    /// CUDA C++ compiled by NVRTC.
    Cuda,
    /// HIP C++ compiled by hipRTC.
    Hip,
    /// WGSL compiled by wgpu (naga).
    Wgsl,
}

/// An argument of a native kernel launch.
#[derive(Clone, Debug)]
pub enum RawArg<'a> {
    /// A device pointer to element `offset` of `buffer` (CUDA/HIP), or the storage buffer bound
    /// from that element (wgpu).
    Buffer {
        /// The buffer.
        buffer: &'a Buffer,
        /// First element.
        offset: usize,
    },
    /// A scalar passed by value.
    Scalar(Scalar),
}

/// One launch of a backend-native kernel (CuPy's `RawKernel`/`RawModule`).
///
/// On CUDA/HIP the arguments are the kernel's parameters in order: a [`RawArg::Buffer`] is the
/// device address of its element `offset`, a [`RawArg::Scalar`] the value at its C size (bool 1
/// byte, float16/bfloat16 2, complex two floats). WGSL has no parameters, so on wgpu the `k`-th
/// buffer argument binds to `@group(0) @binding(k)` as a storage buffer (from element `offset`
/// to the buffer's end; the byte offset must meet `min_storage_buffer_offset_alignment`), and all
/// scalars, in order, are packed into one uniform struct at `@group(0) @binding(n_buffers)`
/// (each member aligned to its size, size rounded up to 16; small types widened to 32-bit words
/// as wgpu stores them); `block` must equal the entry point's `@workgroup_size` and `grid` is the
/// workgroup count. See `cupy::custom::raw` for the full convention.
#[derive(Clone, Debug)]
pub struct RawLaunch<'a> {
    /// Module source in the backend's [`NativeLanguage`].
    pub source: &'a str,
    /// Entry point (the `extern "C" __global__` function, or the WGSL `@compute` entry point).
    pub name: &'a str,
    /// Compiler options (NVRTC/hipRTC flags; ignored by wgpu).
    pub options: &'a [String],
    /// Grid size in blocks (workgroups dispatched on wgpu).
    pub grid: [u32; 3],
    /// Block size in threads (must equal the WGSL `@workgroup_size` on wgpu).
    pub block: [u32; 3],
    /// Dynamic shared memory bytes (CUDA/HIP only).
    pub shared_mem: u32,
    /// Arguments in the kernel's parameter order.
    pub args: &'a [RawArg<'a>],
}

/// The scans cupy-rs implements (`numpy.cumsum`, `numpy.cumprod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    /// Running sum.
    Sum,
    /// Running product.
    Prod,
}

/// An inclusive scan along the last axis: `output[b, j] = op(input[b, 0..=j])`, computed in the
/// output's dtype (the caller casts the input first when NumPy's rules ask for it).
#[derive(Clone, Debug)]
pub struct ScanCall<'a> {
    /// The op.
    pub op: ScanOp,
    /// Input, layout shape `[batch, n]` (any strides), dtype equal to the output's.
    pub input: Operand<'a>,
    /// Output, C-contiguous layout shape `[batch, n]`; may be the input's buffer and layout.
    pub output: Operand<'a>,
}

/// An in-place sort along the last axis (NumPy order: ascending, NaN last), optionally carrying
/// `int64` indices (for `argsort`), stable.
#[derive(Clone, Debug)]
pub struct SortCall<'a> {
    /// Keys, C-contiguous layout shape `[batch, n]`, sorted in place.
    pub keys: Operand<'a>,
    /// Values moved with the keys (`int64`, same layout), if any.
    pub values: Option<Operand<'a>>,
    /// The caller's promise that `values` hold each element's position in its row
    /// (`0..n`, argsort): a backend may write the sorted positions instead of moving them.
    pub values_are_positions: bool,
}

/// Order statistics along the last axis without a full sort: `out[b, j]` = element `kth[j]` of
/// row `b` sorted in NumPy order (ascending, NaN last; which of several equal elements, e.g.
/// `-0.0` or `0.0`, or which NaN, is unspecified). The keys are not modified.
#[derive(Clone, Debug)]
pub struct SelectCall<'a> {
    /// Keys, C-contiguous layout shape `[batch, n]`.
    pub keys: Operand<'a>,
    /// The ranks, each `< n`.
    pub kth: &'a [usize],
    /// Output, C-contiguous layout shape `[batch, kth.len()]`, the keys' dtype.
    pub out: Operand<'a>,
}

// ---- dense linear algebra (Backend::linalg) ----

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

/// One dense factorization or solver of [`Backend::linalg`]. `T` is the call's dtype, `R` its
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

/// One batched call of [`Backend::linalg`]: `batch` matrices of `m x n` (row-major, C order),
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

// ---- end of dense linear algebra ----

/// A device. Object safe; shared as `Arc<dyn Backend>`. See the module docs for the contract.
pub trait Backend: Send + Sync + fmt::Debug {
    /// What the device is.
    fn info(&self) -> &DeviceInfo;

    /// `Ok(())` if the device can store and compute with `dtype`, else the reason.
    fn supports_dtype(&self, dtype: DType) -> std::result::Result<(), String>;

    /// Allocates `len` elements of `dtype` (contents unspecified).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] with the pool's state; [`Error::DTypeNotSupported`].
    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer>;

    /// Writes `data` (NumPy bytes of `data.len() / itemsize` elements) starting at element `offset`.
    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()>;

    /// Reads `len` elements from element `offset` as NumPy bytes, after all queued work.
    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>>;

    /// Queues an elementwise kernel.
    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()>;

    /// Queues an elementwise kernel launched with blocks (workgroups) of `block_size` threads,
    /// a power of two from 1 to 1024 (CuPy's `block_size=` of a user kernel). Backends without
    /// blocks ignore it: the default runs [`Backend::elementwise`] (the cpu backend). GPU
    /// backends launch with that block size or refuse it with `InvalidArgument` naming the
    /// limit it passes (the adapter's workgroup limits on wgpu, the kernel's resources on
    /// CUDA/HIP); results never depend on it.
    ///
    /// # Errors
    /// As [`Backend::elementwise`]; `InvalidArgument` for a block size the device or kernel
    /// cannot launch.
    fn elementwise_block(&self, call: &ElementwiseCall<'_>, block_size: u32) -> Result<()> {
        let _ = block_size;
        self.elementwise(call)
    }

    /// Queues a user kernel (`ElementwiseKernel`) with CuPy's `options=` compiler flags and
    /// an optional block size. Backends that compile C++ (cuda, hip) pass the flags their
    /// compiler takes to NVRTC/hipRTC; the default ignores them (the cpu backend evaluates the
    /// IR and wgpu compiles generated WGSL, which have no such flags; `-D` macros were applied
    /// to the kernel's text before it became IR, on every backend).
    ///
    /// # Errors
    /// As [`Backend::elementwise_block`]; compile errors for flags the compiler rejects.
    fn elementwise_opts(
        &self,
        call: &ElementwiseCall<'_>,
        block_size: Option<u32>,
        options: &[String],
    ) -> Result<()> {
        let _ = options;
        match block_size {
            Some(b) => self.elementwise_block(call, b),
            None => self.elementwise(call),
        }
    }

    /// Queues a reduction.
    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()>;

    /// [`Backend::reduce`] compiled with a user kernel's compiler options (a
    /// `ReductionKernel`'s `options=`, as [`Backend::elementwise_opts`]). The C++ backends pass
    /// them to NVRTC/hipRTC; the default ignores them (the cpu backend evaluates the IR and
    /// WGSL has no such switches).
    ///
    /// # Errors
    /// As [`Backend::reduce`].
    fn reduce_opts(&self, call: &ReductionCall<'_>, options: &[String]) -> Result<()> {
        let _ = options;
        self.reduce(call)
    }

    /// Queues a matrix product.
    fn gemm(&self, call: &GemmCall<'_>) -> Result<()>;

    /// Waits for all queued work.
    fn synchronize(&self) -> Result<()>;

    /// The memory pool's counters (CuPy's `MemoryPool`); a backend without a pool reports
    /// zeros.
    fn pool_stats(&self) -> PoolStats {
        PoolStats::default()
    }

    /// Wraps memory allocated elsewhere (another library's tensor) as a buffer of `len`
    /// elements of `dtype` without copying; `keep_alive` drops when the buffer does.
    ///
    /// # Safety
    /// `address` must point to at least `len * dtype.itemsize()` bytes that this device can
    /// read and write (device memory of its context for CUDA/HIP, host memory for the cpu),
    /// aligned to the element's component size, valid until `keep_alive` drops, and not
    /// written by anyone else while the array is in use.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where buffers have no address ([`DeviceBuffer::address`]);
    /// a misaligned address.
    unsafe fn wrap_external(
        &self,
        address: u64,
        dtype: DType,
        len: usize,
        keep_alive: KeepAlive,
    ) -> Result<Buffer> {
        let _ = (address, dtype, len, keep_alive);
        Err(Error::Unsupported {
            op: "from_dlpack".into(),
            backend: self.info().label(),
            reason: "this backend's buffers cannot wrap foreign memory".into(),
        })
    }

    /// Frees every cached block of the pool (`MemoryPool.free_all_blocks`); returns the bytes
    /// released. A backend without a pool has none.
    ///
    /// # Errors
    /// Device errors while synchronizing.
    fn pool_free_all_blocks(&self) -> Result<usize> {
        Ok(0)
    }

    /// Limits the bytes the pool may hold (`MemoryPool.set_limit`); `None` removes the limit.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where the backend has no pool.
    fn pool_set_limit(&self, limit: Option<usize>) -> Result<()> {
        let _ = limit;
        Err(Error::Unsupported {
            op: "MemoryPool.set_limit".into(),
            backend: self.info().label(),
            reason: "this backend has no memory pool".into(),
        })
    }

    /// Reads `dst.len() / itemsize` elements from element `offset` into `dst` as NumPy bytes,
    /// after all queued work. The default goes through [`Backend::read`]; backends override it
    /// to copy once.
    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let item = src.dtype().itemsize();
        let v = self.read(src, offset, dst.len() / item.max(1))?;
        dst.copy_from_slice(&v);
        Ok(())
    }

    /// Device-side timing: queues a start marker, calls `work` (which queues device work),
    /// queues an end marker, waits, and returns the elapsed device time in seconds (CUDA/HIP
    /// events). `None` where the device has no timer; the caller then times on the host.
    fn time_device(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        work()?;
        Ok(None)
    }

    /// The language of native kernels ([`Backend::raw_launch`]), if the device takes any.
    fn native_language(&self) -> Option<NativeLanguage> {
        None
    }

    /// Compiles (and caches) a native module without launching it, so compile errors surface
    /// early. [`Error::Compile`] carries the compiler log.
    fn raw_compile(&self, source: &str, options: &[String]) -> Result<()> {
        let _ = (source, options);
        Err(Error::Unsupported {
            op: "RawModule".into(),
            backend: self.info().label(),
            reason: "this backend takes no native kernel source".into(),
        })
    }

    /// Queues a native kernel launch (compiling and caching the module on first use).
    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        Err(Error::Unsupported {
            op: format!("RawKernel {}", call.name),
            backend: self.info().label(),
            reason: "this backend takes no native kernel source".into(),
        })
    }

    /// Queues an inclusive scan ([`ScanCall`]).
    fn scan(&self, call: &ScanCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "scan".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Queues a sort ([`SortCall`]).
    fn sort(&self, call: &SortCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "sort".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Queues a batched 1-D FFT ([`crate::fft::FftCall`]).
    fn fft(&self, call: &crate::fft::FftCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: format!("fft ({})", call.kind.name()),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Queues a selection ([`SelectCall`]). Callers fall back to [`Backend::sort`] on
    /// [`Error::Unsupported`] (the default).
    fn select(&self, call: &SelectCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "select".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Controls the device's FFT plan cache (keyed by length, batch, kind, precision; the
    /// device is the backend). The default: a backend without one reports an empty cache.
    fn fft_plan_cache(&self, op: crate::fft::PlanCacheOp) -> Result<crate::fft::PlanCacheInfo> {
        let _ = op;
        Ok(crate::fft::PlanCacheInfo::default())
    }

    /// Queues a batched dense factorization ([`LinalgCall`]). The default is `Unsupported`;
    /// the frontend then runs the cpu backend's faer implementation through a host round trip
    /// (documented in `docs/backends.md`).
    fn linalg(&self, call: &LinalgCall<'_>) -> Result<()> {
        Err(Error::Unsupported {
            op: call.op.name().into(),
            backend: self.info().label(),
            reason: "no native dense linear algebra on this backend".into(),
        })
    }
}

/// A backend primitive that is not an IR kernel, for capability queries
/// ([`BackendProvider::check_primitive`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// [`Backend::gemm`] of a float or complex dtype.
    Gemm,
    /// [`Backend::sort`] (sort and argsort).
    Sort,
    /// [`Backend::scan`] (cumsum, cumprod).
    Scan,
    /// [`Backend::raw_launch`] of backend-native source (the dtype is ignored).
    RawKernel,
    /// [`Backend::fft`] of a complex dtype (complex64, complex128: the precision).
    Fft,
    /// [`Backend::linalg`] of a float32/float64/complex64/complex128 matrix.
    Linalg,
    /// Zero-copy exchange (DLPack): [`DeviceBuffer::address`] and [`Backend::wrap_external`].
    ExternalMemory,
}

/// Finds and opens the devices of one backend family. Probing never panics: a missing library or
/// driver is an `Err` with the reason, kept for `show_config()`.
pub trait BackendProvider: Send + Sync {
    /// The family.
    fn kind(&self) -> BackendKind;
    /// Lists devices, or says why there are none.
    fn probe(&self) -> std::result::Result<Vec<DeviceInfo>, String>;
    /// Opens device `index` of the list `probe` returned.
    fn open(&self, index: usize) -> Result<Arc<dyn Backend>>;
    /// Whether this backend's code generation accepts an elementwise `kernel`, for a device with
    /// every optional feature the backend can use (no device is opened; e.g. wgpu assumes
    /// `SHADER_F64` and `SHADER_INT64`). `Err` says why not. `docs/api-coverage.md` is made from
    /// these answers.
    fn check_kernel(&self, kernel: &Kernel) -> std::result::Result<(), String> {
        kernel.validate().map_err(|e| e.to_string())
    }
    /// As [`BackendProvider::check_kernel`], for a reduction kernel.
    fn check_reduction(&self, kernel: &ReduceKernel) -> std::result::Result<(), String> {
        let _ = kernel;
        Ok(())
    }
    /// Whether this backend implements `primitive` for `dtype` (no device is opened; the same
    /// rule the backend applies when called). The default: not implemented.
    fn check_primitive(
        &self,
        primitive: Primitive,
        dtype: DType,
    ) -> std::result::Result<(), String> {
        let _ = dtype;
        Err(format!("{primitive:?} is not implemented by this backend"))
    }
}

/// Helper for backends: the standard refusal of a dtype.
pub fn dtype_unsupported(
    op: &str,
    dtype: DType,
    info: &DeviceInfo,
    reason: impl Into<String>,
) -> Error {
    Error::DTypeNotSupported {
        op: op.into(),
        dtype,
        device: info.label(),
        reason: reason.into(),
    }
}

//! The call types of the [`super::Backend`] launches: strided operands, elementwise,
//! reduction, GEMM, native (raw) kernels, scan, sort and select.

use super::Buffer;
use crate::error::{Error, Result};
use crate::kernel::ir::{Kernel, ReduceKernel};
use crate::layout::Layout;
use crate::scalar::Scalar;

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
    /// Outputs `1..` of a kernel with [`ReduceKernel::extra_posts`] (one per extra post, of
    /// its dtype), layouts of shape `out_shape`; empty for one output.
    pub extra_outputs: Vec<Operand<'a>>,
    /// Parameter values.
    pub params: Vec<Scalar>,
}

impl<'a> ReductionCall<'a> {
    /// Output `j` (`output` for 0).
    pub fn output_of(&self, j: usize) -> &Operand<'a> {
        if j == 0 {
            &self.output
        } else {
            &self.extra_outputs[j - 1]
        }
    }

    /// Checks that the call has one output operand per output of its kernel.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the kernel and both counts.
    pub fn check_outputs(&self) -> Result<()> {
        let k = self.kernel;
        if self.extra_outputs.len() != k.extra_posts.len() {
            return Err(Error::invalid(
                &k.name,
                format!(
                    "the reduction has {} outputs but the call passes {}",
                    k.n_outputs(),
                    1 + self.extra_outputs.len()
                ),
            ));
        }
        Ok(())
    }
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
    /// Name expressions the module is compiled with (CUDA/HIP C++, see
    /// [`super::Backend::raw_compile`]); when `name` is one of them, the kernel is its lowered
    /// (mangled) name. Empty for most modules; wgpu refuses any.
    pub name_expressions: &'a [String],
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
    /// Argsort: the backend writes each element's position in its row (`0..n`, moved with
    /// the keys) into `values`, whose contents on entry are ignored (the caller need not
    /// initialise them). `false`: the values are moved with the keys.
    pub values_are_positions: bool,
    /// Out of place: the keys are read from here (same dtype and shape, C-contiguous, another
    /// buffer; never written) and `keys`, whose contents on entry are then ignored, receives
    /// them sorted. Only for backends whose [`Backend::sort_reads_source`] is true; the
    /// frontend otherwise copies the keys first.
    ///
    /// [`Backend::sort_reads_source`]: crate::Backend::sort_reads_source
    pub source: Option<Operand<'a>>,
    /// Argsort wanting the values alone: a backend may leave `keys` unwritten (their contents
    /// afterwards are unspecified), sparing the write of the sorted keys. Only with `values`.
    pub discard_keys: bool,
}

/// A stream compaction (`numpy.compress`, `a[mask]`): the elements of each source where a
/// bool mask is true, in order, written densely to that source's output.
#[derive(Clone, Debug)]
pub struct CompressCall<'a> {
    /// The mask: bool, C-contiguous 1-D of `n` elements.
    pub mask: Operand<'a>,
    /// Up to four sources, each C-contiguous 1-D of `n` elements of any dtype, or `None` for
    /// the element's position (`0..n`, written as int64).
    pub sources: &'a [Option<Operand<'a>>],
    /// One output per source, C-contiguous 1-D of `count` elements (the source's dtype; int64
    /// for a position).
    pub outputs: &'a [Operand<'a>],
    /// The number of true elements of the mask, counted by the caller (the outputs' length).
    pub count: usize,
}

impl CompressCall<'_> {
    /// The shape checks every backend makes: a C-contiguous 1-D mask, one output per source,
    /// each source C-contiguous 1-D of the mask's length, each output C-contiguous 1-D of
    /// `count` elements of its source's dtype (int64 for a position). Returns the mask's length.
    ///
    /// # Errors
    /// `InvalidArgument` naming `compress` and the offending shapes or dtypes.
    pub fn check_shapes(&self) -> crate::Result<usize> {
        let op = "compress";
        let flat = |l: &crate::Layout| l.shape.len() == 1 && l.is_c_contiguous();
        let ml = &self.mask.layout;
        if !flat(ml) || self.mask.buffer.dtype() != crate::DType::Bool {
            return Err(crate::Error::invalid(
                op,
                format!(
                    "the mask must be C-contiguous 1-D bool (got {:?})",
                    ml.shape
                ),
            ));
        }
        if self.sources.len() != self.outputs.len() {
            return Err(crate::Error::invalid(
                op,
                format!(
                    "one output per source ({} and {})",
                    self.sources.len(),
                    self.outputs.len()
                ),
            ));
        }
        let n = ml.shape[0];
        for (s, o) in self.sources.iter().zip(self.outputs) {
            let dt = match s {
                Some(s) if !flat(&s.layout) || s.layout.shape[0] != n => {
                    return Err(crate::Error::invalid(
                        op,
                        format!("a source {:?} for a mask of {n}", s.layout.shape),
                    ))
                }
                Some(s) => s.buffer.dtype(),
                None => crate::DType::Int64,
            };
            if !flat(&o.layout) || o.layout.shape[0] != self.count || o.buffer.dtype() != dt {
                return Err(crate::Error::invalid(
                    op,
                    format!(
                        "an output {:?} of {} for {} kept {dt} elements",
                        o.layout.shape,
                        o.buffer.dtype(),
                        self.count
                    ),
                ));
            }
        }
        Ok(n)
    }
}

/// The refusal of a [`SortCall::source`] by a backend that sorts in place only
/// ([`Backend::sort_reads_source`] false): `Ok` when the call has none.
///
/// [`Backend::sort_reads_source`]: crate::Backend::sort_reads_source
pub fn refuse_sort_source(be: &dyn crate::Backend, call: &SortCall<'_>) -> crate::Result<()> {
    match call.source {
        None => Ok(()),
        Some(_) => Err(crate::Error::Unsupported {
            op: "sort".into(),
            backend: be.info().label(),
            reason: "an out-of-place sort (SortCall::source): this backend sorts in place; \
                     copy the keys into `keys` first"
                .into(),
        }),
    }
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

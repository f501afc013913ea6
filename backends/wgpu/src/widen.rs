//! Widening copies around the hand-written shaders that take one 32-bit word per element
//! (`shaders/scan.wgsl`, `shaders/sort.wgsl`, `shaders/gemm.wgsl`): a packed operand
//! (bool/int8/uint8/int16/uint16 -> `int32`/`uint32`, float16/bfloat16 -> `float32`) is cast
//! into a temporary by an IR elementwise kernel, the shader runs on that, and the result is
//! cast back (a contiguous cast, so its stores own whole words; float16/bfloat16 round once
//! there). The temporary costs 4 bytes per element while the shader runs.

use crate::{WgpuBackend, WgpuBuffer};
use cupy_core::backend::{Buffer, ElementwiseCall, Operand};
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::kernel::wgsl;
use cupy_core::{DType, Layout, Result};
use std::sync::Arc;

/// The 32-bit dtype a packed dtype is sorted and scanned in (`None`: not packed).
pub(crate) fn wide_of(d: DType) -> Option<DType> {
    wgsl::packed_bits(d)?;
    Some(if d.is_float() {
        DType::Float32
    } else if d.is_signed_integer() {
        DType::Int32
    } else {
        DType::UInt32
    })
}

impl WgpuBackend {
    /// Queues `dst[dl] = src[sl]` cast to `dst`'s dtype (an IR elementwise kernel).
    pub(crate) fn cast_into(
        &self,
        src: &Buffer,
        sl: &Layout,
        dst: &Buffer,
        dl: &Layout,
    ) -> Result<()> {
        let (from, to) = (src.dtype(), dst.dtype());
        let k = Kernel::map("widen", vec![from], vec![], Expr::input(0, from).cast(to));
        let shape = if sl.shape.is_empty() {
            vec![1]
        } else {
            sl.shape.clone()
        };
        self.run_elementwise(&ElementwiseCall {
            kernel: &k,
            shape,
            inputs: vec![Operand {
                buffer: src,
                layout: sl.clone(),
            }],
            outputs: vec![Operand {
                buffer: dst,
                layout: dl.clone(),
            }],
            raws: vec![],
            params: vec![],
        })
    }

    /// A new buffer of `len` elements of dtype `d`, as a [`Buffer`].
    pub(crate) fn temp(&self, d: DType, len: usize) -> Result<Buffer> {
        let b: WgpuBuffer = self.alloc_words(d, len)?;
        Ok(Arc::new(b))
    }
}

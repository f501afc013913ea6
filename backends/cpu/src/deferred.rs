//! Kernels that write raw operands, run on several threads: each block logs its raw stores
//! ([`DeferredSink`]) and the logs are written in block order, so the writes are those of one
//! sequential run, in the same order (bit-identical results, the last write wins as there).
//! Taken only for kernels whose raw writes are plain stores to raw operands they never read,
//! in buffers no other operand of the launch uses (checked in `lib.rs`): then no block can
//! observe another's writes. Blocks run in waves of a few per thread so the logs stay small.

use crate::column::Col;
use crate::compact::KernelVarUse;
use crate::eval::{BlockSink, Env, Sink};
use crate::mem::{RawView, View};
use crate::CpuBackend;
use cupy_core::error::Result;
use cupy_core::kernel::ir::Kernel;
use cupy_core::DType;
use rayon::prelude::*;

/// One logged `StoreRaw` (see [`DeferredSink`]).
pub(crate) struct RawWrite {
    raw: usize,
    idx: Col<'static>,
    val: Col<'static>,
    mask: Option<Vec<u8>>,
    n: usize,
}

/// A block's outputs, its raw stores logged rather than written: blocks of a kernel that
/// writes raw operands (and never reads them back) run on several threads, and their logs are
/// then written in block order ([`apply_raw_writes`]), the writes of one sequential run in
/// the same order.
pub(crate) struct DeferredSink<'v> {
    /// The block's outputs.
    pub inner: BlockSink<'v>,
    /// The block's raw stores, in the order it made them.
    pub log: std::cell::RefCell<Vec<RawWrite>>,
}

impl Sink for DeferredSink<'_> {
    fn store(&self, k: usize, value: &Col<'_>, mask: Option<&[u8]>) -> Result<(), String> {
        self.inner.store(k, value, mask)
    }
    fn direct(&self, k: usize, dtype: DType) -> Option<*mut u8> {
        self.inner.direct(k, dtype)
    }
    fn raw_store(
        &self,
        raw: usize,
        idx: &Col<'_>,
        val: &Col<'_>,
        mask: Option<&[u8]>,
        n: usize,
    ) -> Result<bool, String> {
        self.log.borrow_mut().push(RawWrite {
            raw,
            idx: idx.clone().owned(),
            val: val.clone().owned(),
            mask: mask.map(|m| m[..n].to_vec()),
            n,
        });
        Ok(true)
    }
}

/// Writes logged raw stores (see [`DeferredSink`]) in their order.
///
/// # Safety
/// No other thread may access the raw operands' memory during the call.
pub(crate) unsafe fn apply_raw_writes(raws: &[RawView], log: &[RawWrite]) -> Result<(), String> {
    for w in log {
        let r = raws
            .get(w.raw)
            .ok_or_else(|| format!("missing raw operand {}", w.raw))?;
        // SAFETY: the caller owns the raw operands' memory.
        unsafe { r.store(&w.idx, &w.val, w.mask.as_deref(), w.n)? };
    }
    Ok(())
}

impl CpuBackend {
    /// Runs the `size` lanes of `k` in blocks of `block` on several threads, raw stores
    /// deferred (see the module docs).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_deferred(
        &self,
        op: &str,
        k: &Kernel,
        ins: &[View],
        outs: &[View],
        raws: &[RawView],
        params: &[Col<'static>],
        var_use: &KernelVarUse,
        size: usize,
        block: usize,
    ) -> Result<()> {
        let nblocks = size.div_ceil(block);
        let run = |b: usize| -> Result<Vec<RawWrite>> {
            let start = b * block;
            let n = block.min(size - start);
            // SAFETY: layouts checked; start + n <= size.
            let mut env = unsafe { Env::block(k, ins, params, var_use, raws, start, n) };
            let sink = DeferredSink {
                inner: BlockSink { outs, start, n },
                log: Default::default(),
            };
            env.exec(&k.body, None, &sink)
                .map_err(|m| self.err(op, m))?;
            Ok(sink.log.into_inner())
        };
        let wave = 4 * rayon::current_num_threads().max(1);
        let mut first = 0;
        while first < nblocks {
            let last = (first + wave).min(nblocks);
            let logs: Vec<Result<Vec<RawWrite>>> = (first..last).into_par_iter().map(run).collect();
            for log in logs {
                // SAFETY: the wave's blocks are done; this thread alone writes the raws now.
                unsafe { apply_raw_writes(raws, &log?) }.map_err(|m| self.err(op, m))?;
            }
            first = last;
        }
        Ok(())
    }
}

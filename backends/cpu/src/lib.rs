//! cupy-rs CPU backend: the kernel IR evaluated on blocks of elements, rayon across blocks,
//! faer for matrix products.
//!
//! - Elementwise kernels run over blocks of up to [`BLOCK`] elements: each input's block is
//!   gathered through its layout into a typed column (contiguous inputs are borrowed in place,
//!   broadcast scalars stay uniform), every IR node is one tight loop over the block, and stores
//!   scatter to the outputs. Large launches split blocks across rayon's pool; small ones stay on
//!   the calling thread.
//! - Execution is synchronous: every call has finished when it returns.
//! - Buffers are 16-byte aligned host allocations in NumPy's byte format. See [`mem`] for the
//!   safety argument of sharing them between threads.

#![warn(missing_docs)]

mod cmath;
mod column;
mod compact;
mod cse;
mod deferred;
mod eval;
mod fft;
mod gemm;
pub mod linalg;
pub mod mem;
mod reduce;
mod sortscan;
#[cfg(test)]
mod tests;
pub mod vmath;

use column::Col;
use cupy_core::backend::{
    dtype_unsupported, ElementwiseCall, GemmCall, Operand, RawOperand, ReductionCall, ScanCall,
    SortCall,
};
use cupy_core::{
    Backend, BackendKind, BackendProvider, Buffer, DType, DeviceInfo, Error, Layout, Result, Scalar,
};
use eval::{BlockSink, Env, NullSink};
use mem::{check_layout, CpuBuffer, RawView, View};
use rayon::prelude::*;
use std::sync::Arc;

/// Elements per block of the interpreter.
pub const BLOCK: usize = 4096;
/// Side of the square tiles used for 2-D launches with a transposed operand.
pub const TILE: usize = 64;
/// Launches with fewer elements than this run on the calling thread.
pub const PAR_MIN: usize = 1 << 15;

/// The host device.
#[derive(Debug)]
pub struct CpuBackend {
    info: DeviceInfo,
    usage: Arc<mem::Usage>,
}

/// Discovery of the host device (always exactly one).
#[derive(Debug, Default, Clone, Copy)]
pub struct CpuProvider;

/// How many cpu devices to expose: `CUPY_CPU_DEVICES` (default 1). Each is its own backend
/// instance over the same host memory and threads, so multi-device code (`with_device`,
/// `to_device`, the device-mismatch errors, `cupy::distributed` with several ranks) runs and is
/// tested without GPUs.
///
/// # Errors
/// A value that is not an integer from 1 to 64.
pub fn device_count() -> std::result::Result<usize, String> {
    match std::env::var("CUPY_CPU_DEVICES") {
        Err(_) => Ok(1),
        Ok(v) if v.trim().is_empty() => Ok(1),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=64).contains(&n) => Ok(n),
            _ => Err(format!(
                "CUPY_CPU_DEVICES={v:?}: expected a number of devices from 1 to 64"
            )),
        },
    }
}

fn device_info() -> DeviceInfo {
    let threads = rayon::current_num_threads();
    let arch = std::env::consts::ARCH;
    let total_memory = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    DeviceInfo {
        kind: BackendKind::Cpu,
        index: 0,
        name: format!("cpu ({threads} threads, {arch})"),
        details: format!(
            "host backend: block IR interpreter, rayon ({threads} threads), faer GEMM, vector \
             math: {}; {}",
            vmath::Isa::current().name(),
            std::env::consts::OS
        ),
        software: false,
        total_memory,
    }
}

impl BackendProvider for CpuProvider {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn probe(&self) -> std::result::Result<Vec<DeviceInfo>, String> {
        let n = device_count()?;
        Ok((0..n)
            .map(|index| DeviceInfo {
                index,
                ..device_info()
            })
            .collect())
    }
    fn open(&self, index: usize) -> Result<Arc<dyn Backend>> {
        let n = device_count().map_err(|e| Error::invalid("open", e))?;
        if index >= n {
            return Err(Error::invalid(
                "open",
                format!("the cpu backend has {n} device(s) (CUPY_CPU_DEVICES), asked for {index}"),
            ));
        }
        Ok(Arc::new(CpuBackend::with_index(index)))
    }

    fn check_primitive(
        &self,
        primitive: cupy_core::backend::Primitive,
        _dtype: DType,
    ) -> std::result::Result<(), String> {
        match primitive {
            // faer (floats, complex) and exact integer loops; sorts and scans of every dtype.
            cupy_core::backend::Primitive::Gemm
            | cupy_core::backend::Primitive::Linalg
            | cupy_core::backend::Primitive::Sort
            | cupy_core::backend::Primitive::Scan
            | cupy_core::backend::Primitive::ExternalMemory => Ok(()),
            cupy_core::backend::Primitive::RawKernel => {
                Err("the cpu backend has no native kernel language".into())
            }
            cupy_core::backend::Primitive::Fft => cupy_core::gpu::support::fft_precision(_dtype),
        }
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl CpuBackend {
    /// The host device.
    pub fn new() -> CpuBackend {
        CpuBackend::with_index(0)
    }

    /// A backend for cpu device `index` (`CUPY_CPU_DEVICES`): the same host, its own
    /// device identity and memory counters.
    pub fn with_index(index: usize) -> CpuBackend {
        // CUPY_GPU_MEMORY_LIMIT applies to every device's pool; a value that does not parse
        // makes every allocation fail with the reason.
        let info = DeviceInfo {
            index,
            ..device_info()
        };
        let total = info.total_memory.map(|t| t as usize);
        let usage = mem::Usage::default();
        *usage.limit.lock().unwrap_or_else(|e| e.into_inner()) =
            cupy_core::gpu::pool::PoolLimit::from_env(total);
        CpuBackend {
            info,
            usage: Arc::new(usage),
        }
    }

    fn label(&self) -> String {
        self.info.label()
    }

    /// Downcasts a buffer and checks its dtype.
    pub(crate) fn buf<'b>(
        &self,
        op: &str,
        what: &str,
        b: &'b Buffer,
        dtype: Option<DType>,
    ) -> Result<&'b CpuBuffer> {
        let cb = b.as_any().downcast_ref::<CpuBuffer>().ok_or_else(|| {
            Error::invalid(op, format!("{what}: buffer {b:?} is not a cpu buffer"))
        })?;
        if let Some(d) = dtype {
            if cb_dtype(cb) != d {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{what}: buffer holds {} but the kernel expects {d}",
                        cb_dtype(cb)
                    ),
                ));
            }
        }
        Ok(cb)
    }

    pub(crate) fn err(&self, op: &str, msg: String) -> Error {
        Error::Backend {
            backend: self.label(),
            msg: format!("{op}: {msg}"),
        }
    }

    pub(crate) fn unsupported(&self, op: &str, msg: String) -> Error {
        Error::Unsupported {
            op: op.into(),
            backend: self.label(),
            reason: msg,
        }
    }

    /// Parameter columns, cast to the kernel's declared dtypes.
    pub(crate) fn params(
        &self,
        op: &str,
        decl: &[DType],
        vals: &[Scalar],
    ) -> Result<Vec<Col<'static>>> {
        if decl.len() != vals.len() {
            return Err(Error::invalid(
                op,
                format!("kernel takes {} params, {} given", decl.len(), vals.len()),
            ));
        }
        Ok(decl
            .iter()
            .zip(vals)
            .map(|(d, v)| column::scalar_col(v.cast(*d)))
            .collect())
    }

    /// Checked views of the inputs/outputs of a launch over `shape`.
    pub(crate) fn views(
        &self,
        op: &str,
        shape: &[usize],
        inputs: &[&Operand<'_>],
        in_types: &[DType],
        outputs: &[&Operand<'_>],
        out_types: &[DType],
    ) -> Result<(Vec<View>, Vec<View>, bool)> {
        if inputs.len() != in_types.len() || outputs.len() != out_types.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "kernel has {} inputs and {} outputs, call has {} and {}",
                    in_types.len(),
                    out_types.len(),
                    inputs.len(),
                    outputs.len()
                ),
            ));
        }
        let mut out_bufs = vec![];
        for (k, (o, d)) in outputs.iter().zip(out_types).enumerate() {
            let what = format!("output {k}");
            let b = self.buf(op, &what, o.buffer, Some(*d))?;
            check_layout(op, &what, &o.layout, shape, b.len_elems())?;
            out_bufs.push(b.ptr());
        }
        let mut ins = vec![];
        for (k, (o, d)) in inputs.iter().zip(in_types).enumerate() {
            let what = format!("input {k}");
            let b = self.buf(op, &what, o.buffer, Some(*d))?;
            check_layout(op, &what, &o.layout, shape, b.len_elems())?;
            let written = out_bufs.contains(&b.ptr()) && b.bytes() > 0;
            ins.push(View::new(b, o.layout.clone(), !written));
        }
        let mut outs = vec![];
        for o in outputs {
            let b = self.buf(op, "output", o.buffer, None)?;
            outs.push(View::new(b, o.layout.clone(), false));
        }
        // Parallel only if no thread can touch another's elements.
        let mut par_ok = outs.iter().all(|o| mem::non_overlapping(&o.layout));
        for (i, o) in outs.iter().enumerate() {
            for p in &outs[i + 1..] {
                if p.ptr == o.ptr && !mem::disjoint(&p.layout, &o.layout) {
                    par_ok = false;
                }
            }
            for v in &ins {
                if v.ptr == o.ptr && v.layout != o.layout && !mem::disjoint(&v.layout, &o.layout) {
                    par_ok = false;
                }
            }
        }
        Ok((ins, outs, par_ok))
    }

    fn raws(&self, op: &str, raws: &[RawOperand<'_>], types: &[DType]) -> Result<Vec<RawView>> {
        if raws.len() != types.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "kernel has {} raw operands, call has {}",
                    types.len(),
                    raws.len()
                ),
            ));
        }
        raws.iter()
            .zip(types)
            .enumerate()
            .map(|(k, (r, d))| {
                let what = format!("raw operand {k}");
                let b = self.buf(op, &what, r.buffer, Some(*d))?;
                if r.offset
                    .checked_add(r.len)
                    .is_none_or(|e| e > b.len_elems())
                {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "{what}: elements {}..{}+{} outside its buffer of {}",
                            r.offset,
                            r.offset,
                            r.len,
                            b.len_elems()
                        ),
                    ));
                }
                Ok(RawView {
                    // SAFETY: offset <= len checked above.
                    ptr: unsafe { b.ptr().add(r.offset * d.itemsize()) },
                    dtype: *d,
                    len: r.len,
                })
            })
            .collect()
    }

    /// Checks the dtypes of a kernel are all usable.
    fn check_dtypes(&self, op: &str, dtypes: &[DType]) -> Result<()> {
        for &d in dtypes {
            if let Err(r) = self.supports_dtype(d) {
                return Err(dtype_unsupported(op, d, &self.info, r));
            }
        }
        Ok(())
    }
}

fn cb_dtype(b: &CpuBuffer) -> DType {
    cupy_core::DeviceBuffer::dtype(b)
}

impl CpuBuffer {
    pub(crate) fn len_elems(&self) -> usize {
        cupy_core::DeviceBuffer::len(self)
    }
}

impl Backend for CpuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn supports_dtype(&self, _dtype: DType) -> std::result::Result<(), String> {
        Ok(())
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer> {
        {
            let limit = self.usage.limit.lock().unwrap_or_else(|e| e.into_inner());
            limit.env_ok().map_err(|e| Error::invalid("alloc", e))?;
            let used = self.usage.used.load(std::sync::atomic::Ordering::SeqCst);
            let bytes = len.saturating_mul(dtype.itemsize());
            if limit.exceeded_by(used.saturating_add(bytes)) {
                // Nothing is cached on the host, so nothing was released.
                return Err(Error::OutOfMemory {
                    device: self.label(),
                    requested: bytes,
                    detail: limit.refusal(used, 0),
                });
            }
        }
        match CpuBuffer::new(dtype, len) {
            Ok(b) => Ok(Arc::new(b.counted(&self.usage))),
            Err(bytes) => Err(Error::OutOfMemory {
                device: self.label(),
                requested: bytes,
                detail: format!("host allocator refused {len} x {dtype}"),
            }),
        }
    }

    unsafe fn wrap_external(
        &self,
        address: u64,
        dtype: DType,
        len: usize,
        keep_alive: cupy_core::KeepAlive,
    ) -> Result<Buffer> {
        // SAFETY: the caller's contract (a host address of `len` elements).
        let b = unsafe { CpuBuffer::external(address as *mut u8, dtype, len, keep_alive)? };
        Ok(Arc::new(b))
    }

    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let b = self.buf("write", "destination", dst, None)?;
        let isz = cb_dtype(b).itemsize();
        if !data.len().is_multiple_of(isz) {
            return Err(Error::invalid(
                "write",
                format!(
                    "{} bytes is not a whole number of {}",
                    data.len(),
                    cb_dtype(b)
                ),
            ));
        }
        let n = data.len() / isz;
        if offset.checked_add(n).is_none_or(|e| e > b.len_elems()) {
            return Err(Error::invalid(
                "write",
                format!(
                    "elements {offset}..{offset}+{n} outside a buffer of {}",
                    b.len_elems()
                ),
            ));
        }
        // SAFETY: range checked; `data` cannot alias our allocation mutably.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), b.ptr().add(offset * isz), data.len())
        };
        Ok(())
    }

    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let b = self.buf("read", "source", src, None)?;
        let isz = cb_dtype(b).itemsize();
        if offset.checked_add(len).is_none_or(|e| e > b.len_elems()) {
            return Err(Error::invalid(
                "read",
                format!(
                    "elements {offset}..{offset}+{len} outside a buffer of {}",
                    b.len_elems()
                ),
            ));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(len * isz)
            .map_err(|_| Error::OutOfMemory {
                device: "host".into(),
                requested: len * isz,
                detail: "reading a buffer back".into(),
            })?;
        // SAFETY: range checked; the allocation is initialised (zeroed at allocation).
        unsafe {
            std::ptr::copy_nonoverlapping(b.ptr().add(offset * isz), out.as_mut_ptr(), len * isz);
            out.set_len(len * isz);
        }
        Ok(out)
    }

    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let b = self.buf("read", "source", src, None)?;
        let isz = cb_dtype(b).itemsize();
        let len = dst.len() / isz;
        if !dst.len().is_multiple_of(isz)
            || offset.checked_add(len).is_none_or(|e| e > b.len_elems())
        {
            return Err(Error::invalid(
                "read",
                format!(
                    "{} bytes at element {offset} do not fit a buffer of {} x {}",
                    dst.len(),
                    b.len_elems(),
                    cb_dtype(b)
                ),
            ));
        }
        // SAFETY: range checked; `dst` is a distinct host slice.
        unsafe {
            std::ptr::copy_nonoverlapping(b.ptr().add(offset * isz), dst.as_mut_ptr(), dst.len())
        };
        Ok(())
    }

    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        let k = call.kernel;
        let op = k.name.as_str();
        k.validate()?;
        self.check_dtypes(op, &k.dtypes())?;
        let shape: &[usize] = &call.shape;
        let size = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::invalid(op, format!("shape {shape:?} overflows")))?;
        let inputs: Vec<&Operand<'_>> = call.inputs.iter().collect();
        let outputs: Vec<&Operand<'_>> = call.outputs.iter().collect();
        let (ins, outs, mut par_ok) =
            self.views(op, shape, &inputs, &k.inputs, &outputs, &k.outputs)?;
        let raws = self.raws(op, &call.raws, &k.raws)?;
        for r in &call.raws {
            if call.outputs.iter().any(|o| Arc::ptr_eq(o.buffer, r.buffer)) {
                par_ok = false;
            }
        }
        // A kernel that writes raw operands runs on one thread in element order (so racing
        // writes resolve as NumPy's sequential loops do: the last element wins), and inputs in
        // a written buffer are never borrowed as slices.
        //
        // Unless the raw writes can be deferred: a kernel whose only raw writes are plain
        // stores (no atomics) to raw operands it never loads, in buffers no other operand
        // uses, has its blocks run on several threads, each logging its stores, and the logs
        // written in block order (`run_deferred`): the same writes in the same order.
        let writes_raws = k.writes_raws();
        let mut ins = ins;
        let mut deferred = writes_raws;
        if writes_raws {
            let mut atomic_or_reread = false;
            cupy_core::kernel::ir::Stmt::visit_all(&k.body, &mut |s| {
                if matches!(s, cupy_core::kernel::ir::Stmt::AtomicRaw { .. }) {
                    atomic_or_reread = true;
                }
                for e in s.exprs() {
                    e.visit(&mut |n| {
                        if let cupy_core::kernel::ir::ExprKind::Load { raw, .. } = n.kind {
                            if k.writes_raw(raw) {
                                atomic_or_reread = true;
                            }
                        }
                    });
                }
            });
            deferred &= !atomic_or_reread;
            for (j, r) in call.raws.iter().enumerate() {
                if k.writes_raw(j) {
                    let p = self.buf(op, "raw operand", r.buffer, None)?.ptr();
                    for v in ins.iter_mut().filter(|v| v.ptr == p) {
                        v.borrow_ok = false;
                        deferred = false;
                    }
                    let shared = call
                        .raws
                        .iter()
                        .enumerate()
                        .any(|(i, o)| i != j && Arc::ptr_eq(o.buffer, r.buffer));
                    if shared {
                        deferred = false;
                    }
                }
            }
            deferred &= par_ok;
            par_ok = false;
        }
        let params = self.params(op, &k.params, &call.params)?;
        // Type-check every node before touching memory.
        {
            let mut env = Env {
                n: 1,
                inputs: k.inputs.iter().map(|d| column::zero_col(*d)).collect(),
                params: &params,
                vars: vec![None; k.locals.len()],
                var_types: &k.locals,
                index: (0, 1),
                index_lanes: None,
                var_use: None,
                raws: &raws,
                dry: true,
            };
            env.exec(&k.body, None, &NullSink)
                .map_err(|m| self.unsupported(op, m))?;
        }
        if size == 0 {
            return Ok(());
        }
        let var_use = compact::KernelVarUse::of(&k.body, k.locals.len());
        let mut has_loop = false;
        cupy_core::kernel::ir::Stmt::visit_all(&k.body, &mut |s| {
            if matches!(s, cupy_core::kernel::ir::Stmt::For { .. }) {
                has_loop = true
            }
        });
        let block = if has_loop { 1024 } else { BLOCK };
        // 2-D launches where an operand runs against the iteration order (a transpose): walk
        // square tiles so both the row-major and the column-major operand stay in cache/TLB.
        let mut uses_index = false;
        cupy_core::kernel::ir::Stmt::visit_all(&k.body, &mut |s| {
            for e in s.exprs() {
                e.visit(&mut |n| {
                    if matches!(n.kind, cupy_core::kernel::ir::ExprKind::Index) {
                        uses_index = true
                    }
                });
            }
        });
        let transposed = |v: &View| {
            let s = &v.layout.strides;
            s[0] != 0 && s[0].unsigned_abs() < s[1].unsigned_abs()
        };
        if !uses_index
            && !has_loop
            && !writes_raws
            && shape.len() == 2
            && shape[0] >= 2 * TILE
            && shape[1] >= 2 * TILE
            && ins.iter().chain(&outs).any(transposed)
        {
            let (d0, d1) = (shape[0], shape[1]);
            let nt1 = d1.div_ceil(TILE);
            let ntiles = d0.div_ceil(TILE) * nt1;
            let run_tile = |t: usize| -> Result<()> {
                let (i0, j0) = ((t / nt1) * TILE, (t % nt1) * TILE);
                let (h, w) = (TILE.min(d0 - i0), TILE.min(d1 - j0));
                let sub = |v: &View| {
                    let l = &v.layout;
                    let off =
                        l.offset as isize + i0 as isize * l.strides[0] + j0 as isize * l.strides[1];
                    v.with_layout(Layout {
                        shape: vec![h, w],
                        strides: l.strides.clone(),
                        offset: off as usize,
                    })
                };
                let sub_ins: Vec<View> = ins.iter().map(sub).collect();
                let sub_outs: Vec<View> = outs.iter().map(sub).collect();
                let n = h * w;
                let mut env = Env {
                    n,
                    // SAFETY: the tile lies inside the checked layouts.
                    inputs: sub_ins.iter().map(|v| unsafe { v.gather(0, n) }).collect(),
                    params: &params,
                    vars: vec![None; k.locals.len()],
                    var_types: &k.locals,
                    index: (0, 1),
                    index_lanes: None,
                    var_use: Some(&var_use),
                    raws: &raws,
                    dry: false,
                };
                let sink = BlockSink {
                    outs: &sub_outs,
                    start: 0,
                    n,
                };
                env.exec(&k.body, None, &sink).map_err(|m| self.err(op, m))
            };
            return if par_ok && size >= PAR_MIN {
                (0..ntiles).into_par_iter().try_for_each(run_tile)
            } else {
                (0..ntiles).try_for_each(run_tile)
            };
        }
        let nblocks = size.div_ceil(block);
        if deferred && nblocks > 1 && (size >= PAR_MIN || has_loop) {
            return self.run_deferred(op, k, &ins, &outs, &raws, &params, &var_use, size, block);
        }
        let run = |b: usize| -> Result<()> {
            let start = b * block;
            let n = block.min(size - start);
            // SAFETY: layouts checked; start + n <= size.
            let mut env = unsafe { Env::block(k, &ins, &params, &var_use, &raws, start, n) };
            let sink = BlockSink {
                outs: &outs,
                start,
                n,
            };
            env.exec(&k.body, None, &sink).map_err(|m| self.err(op, m))
        };
        let parallel = par_ok && nblocks > 1 && (size >= PAR_MIN || has_loop);
        if parallel {
            (0..nblocks).into_par_iter().try_for_each(run)
        } else {
            (0..nblocks).try_for_each(run)
        }
    }

    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        reduce::reduce(self, call)
    }

    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        gemm::gemm(self, call)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn pool_stats(&self) -> cupy_core::gpu::pool::PoolStats {
        let used = self.usage.used.load(std::sync::atomic::Ordering::SeqCst);
        cupy_core::gpu::pool::PoolStats {
            used_bytes: used,
            total_bytes: used,
            n_free_blocks: 0,
            limit: self
                .usage
                .limit
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(),
        }
    }

    fn pool_set_limit(&self, limit: Option<usize>) -> Result<()> {
        self.usage
            .limit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .set(limit);
        Ok(())
    }

    fn scan(&self, call: &ScanCall<'_>) -> Result<()> {
        sortscan::scan(self, call)
    }

    fn sort(&self, call: &SortCall<'_>) -> Result<()> {
        cupy_core::backend::refuse_sort_source(self, call)?;
        sortscan::sort(self, call)
    }

    fn fft(&self, call: &cupy_core::fft::FftCall<'_>) -> Result<()> {
        fft::fft(self, call)
    }

    fn select(&self, call: &cupy_core::backend::SelectCall<'_>) -> Result<()> {
        sortscan::select(self, call)
    }

    fn compresses(&self) -> bool {
        true
    }

    fn compress(&self, call: &cupy_core::backend::CompressCall<'_>) -> Result<()> {
        sortscan::compress(self, call)
    }

    fn linalg(&self, call: &cupy_core::backend::LinalgCall<'_>) -> Result<()> {
        linalg::via_host(self, call)
    }
}

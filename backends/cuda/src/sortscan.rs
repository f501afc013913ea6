//! `Backend::scan` and `Backend::sort` on CUDA: the hand-written kernels of `hip-kernels/`
//! (shared with the HIP backend), compiled by NVRTC for the device (warp size 32) through the
//! module cache, launched on the backend's stream with temporaries from its pool.

#[path = "../../../hip-kernels/sources.rs"]
#[allow(dead_code)]
pub(crate) mod hk;

use crate::CudaBackend;
use cupy_core::backend::{Operand, ScanCall, ScanOp, SortCall};
use cupy_core::{Buffer, DType, Error, Layout, Result};
use hk::{HkModule, Launcher};

/// NVIDIA's warp size.
pub const WARP: u32 = 32;

impl Launcher for CudaBackend {
    fn temp(&self, dtype: DType, len: usize) -> Result<(Buffer, u64)> {
        let b = cupy_core::Backend::alloc(self, dtype, len)?;
        let addr = self.buf(&b, "sort")?.ptr;
        Ok((b, addr))
    }

    fn run(&self, module: HkModule, entry: &str, grid: (u32, u32), args: &[u8]) -> Result<()> {
        let src = hk::assemble(module.file(), WARP);
        let m = self
            .compiler
            .module(module.name(), &src, &module.entries())?;
        let f = m
            .func(entry)
            .ok_or_else(|| self.err(format!("{}: no entry {entry}", module.name())))?;
        let mut a = args.to_vec();
        self.launch(f, (grid.0, grid.1, 1), (hk::BLOCK, 1, 1), &mut a, entry)
    }
}

fn two_d(op: &str, what: &str, l: &Layout) -> Result<()> {
    if l.shape.len() != 2 || l.strides.len() != 2 {
        return Err(Error::invalid(
            op,
            format!("{what}: expected a [batch, n] layout, got {l:?}"),
        ));
    }
    Ok(())
}

pub(crate) fn scan(be: &CudaBackend, call: &ScanCall<'_>) -> Result<()> {
    let op = match call.op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let d = call.output.buffer.dtype();
    be.check_dtypes(op, &[d])?;
    no_complex(be, op, d)?;
    two_d(op, "input", &call.input.layout)?;
    two_d(op, "output", &call.output.layout)?;
    let x = be.operand(op, &call.input, d)?;
    let y = be.operand(op, &call.output, d)?;
    let (il, ol) = (&call.input.layout, &call.output.layout);
    if il.shape != ol.shape || !ol.is_c_contiguous() {
        return Err(Error::invalid(
            op,
            "the output must be C-contiguous of the input's shape",
        ));
    }
    if x.ptr == y.ptr && il != ol && il.size() > 0 {
        return Err(Error::invalid(
            op,
            "input and output share a buffer with different layouts",
        ));
    }
    let (batch, n) = (il.shape[0], il.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    be.bind()?;
    hk::launch_scan(
        be,
        call.op == ScanOp::Prod,
        d,
        CudaBackend::ptr_at(x, il.offset),
        CudaBackend::ptr_at(y, ol.offset),
        batch,
        n,
        il.strides[0],
        il.strides[1],
    )
}

pub(crate) fn sort(be: &CudaBackend, call: &SortCall<'_>) -> Result<()> {
    let op = "sort";
    let d = call.keys.buffer.dtype();
    be.check_dtypes(op, &[d])?;
    no_complex(be, op, d)?;
    let kl = &call.keys.layout;
    two_d(op, "keys", kl)?;
    let k = be.operand(op, &call.keys, d)?;
    if !kl.is_c_contiguous() {
        return Err(Error::invalid(op, "the keys must be C-contiguous"));
    }
    let vals = match &call.values {
        None => None,
        Some(v) => {
            if be.buf(v.buffer, op)?.ptr == k.ptr && k.len > 0 {
                return Err(Error::invalid(op, "keys and values share a buffer"));
            }
            Some(check_values(be, v, kl)?)
        }
    };
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    be.bind()?;
    hk::launch_sort(be, d, CudaBackend::ptr_at(k, kl.offset), vals, batch, n)
}

fn check_values(be: &CudaBackend, v: &Operand<'_>, kl: &Layout) -> Result<u64> {
    let vb = be.operand("sort", v, DType::Int64)?;
    if v.layout != *kl {
        return Err(Error::invalid(
            "sort",
            "the values must have the keys' (C-contiguous) layout",
        ));
    }
    Ok(CudaBackend::ptr_at(vb, v.layout.offset))
}

/// The hip-kernels/ scan and radix sort have no complex instantiations: refused by dtype.
fn no_complex(be: &dyn cupy_core::Backend, op: &str, d: DType) -> Result<()> {
    if d.is_complex() {
        return Err(cupy_core::backend::dtype_unsupported(
            op,
            d,
            be.info(),
            "the GPU scan and sort kernels (hip-kernels/) have no complex instantiation",
        ));
    }
    Ok(())
}

//! `Backend::scan` and `Backend::sort` on HIP: the hand-written kernels of `hip-kernels/`
//! (shared with the CUDA backend), compiled by hipRTC for the device's gfx target with its
//! wavefront size (64 on CDNA/GCN, 32 on RDNA), cached per module, launched on the backend's
//! stream with temporaries from its pool.

#[path = "../../../../hip-kernels/sources.rs"]
#[allow(dead_code)]
pub(crate) mod hk;

use super::{HipBackend, HkLoaded};
use cupy_core::backend::{Backend, Operand, ScanCall, ScanOp, SortCall};
use cupy_core::{Buffer, DType, Error, Layout, Result};
use hk::{HkModule, Launcher};
use std::sync::Arc;

/// The wavefront size hipRTC compiles for on `arch` (gfx10/gfx11 default to wave32).
pub fn warp_size(arch: &str) -> u32 {
    if arch.starts_with("gfx10") || arch.starts_with("gfx11") || arch.starts_with("gfx12") {
        32
    } else {
        64
    }
}

impl HipBackend {
    fn hk_module(&self, m: HkModule) -> Result<Arc<HkLoaded>> {
        if let Some(h) = self
            .hk_modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(m.name())
        {
            return Ok(h.clone());
        }
        let entries = m.entries();
        let src = hk::assemble(m.file(), warp_size(&self.arch));
        let funcs = self.build(m.name(), &src, &entries)?;
        let h = Arc::new((entries, funcs));
        self.hk_modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(m.name(), h.clone());
        Ok(h)
    }
}

impl Launcher for HipBackend {
    fn temp(&self, dtype: DType, len: usize) -> Result<(Buffer, u64)> {
        let b = self.alloc(dtype, len)?;
        let addr = self.buf("sort", &b)?.addr(0);
        Ok((b, addr))
    }

    fn run(&self, module: HkModule, entry: &str, grid: (u32, u32), args: &[u8]) -> Result<()> {
        let m = self.hk_module(module)?;
        let i =
            m.0.iter()
                .position(|e| e == entry)
                .ok_or_else(|| self.err(format!("{}: no entry {entry}", module.name())))?;
        let mut a = args.to_vec();
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        self.launch(m.1[i], grid, (hk::BLOCK, 1), &mut a)
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

/// Checks an operand is ours, of `dtype`, with every addressed element inside its buffer.
fn operand<'a>(
    be: &HipBackend,
    op: &str,
    o: &Operand<'a>,
    dtype: DType,
) -> Result<&'a super::HipBuffer> {
    let b = be.buf(op, o.buffer)?;
    if b.dtype != dtype {
        return Err(Error::invalid(
            op,
            format!("buffer holds {} but {dtype} is expected", b.dtype),
        ));
    }
    let (lo, hi) = o.layout.extent();
    if o.layout.size() > 0 && (lo < 0 || hi as usize > b.len) {
        return Err(Error::invalid(
            op,
            format!(
                "layout {:?} addresses elements outside a buffer of {}",
                o.layout, b.len
            ),
        ));
    }
    Ok(b)
}

pub(crate) fn scan(be: &HipBackend, call: &ScanCall<'_>) -> Result<()> {
    let op = match call.op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let d = call.output.buffer.dtype();
    be.check_dtypes(op, &[d])?;
    no_complex(be, op, d)?;
    two_d(op, "input", &call.input.layout)?;
    two_d(op, "output", &call.output.layout)?;
    let x = operand(be, op, &call.input, d)?;
    let y = operand(be, op, &call.output, d)?;
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
    be.current()?;
    hk::launch_scan(
        be,
        call.op == ScanOp::Prod,
        d,
        x.addr(il.offset),
        y.addr(ol.offset),
        batch,
        n,
        il.strides[0],
        il.strides[1],
    )
}

pub(crate) fn sort(be: &HipBackend, call: &SortCall<'_>) -> Result<()> {
    let op = "sort";
    let d = call.keys.buffer.dtype();
    be.check_dtypes(op, &[d])?;
    no_complex(be, op, d)?;
    let kl = &call.keys.layout;
    two_d(op, "keys", kl)?;
    let k = operand(be, op, &call.keys, d)?;
    if !kl.is_c_contiguous() {
        return Err(Error::invalid(op, "the keys must be C-contiguous"));
    }
    let vals = match &call.values {
        None => None,
        Some(v) => {
            let vb = operand(be, op, v, DType::Int64)?;
            if v.layout != *kl {
                return Err(Error::invalid(
                    op,
                    "the values must have the keys' (C-contiguous) layout",
                ));
            }
            if vb.ptr == k.ptr && k.bytes > 0 {
                return Err(Error::invalid(op, "keys and values share a buffer"));
            }
            Some(vb.addr(v.layout.offset))
        }
    };
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    be.current()?;
    hk::launch_sort(be, d, k.addr(kl.offset), vals, batch, n)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wavefront_sizes() {
        assert_eq!(warp_size("gfx90a:sramecc+:xnack-"), 64);
        assert_eq!(warp_size("gfx942"), 64);
        assert_eq!(warp_size("gfx1030"), 32);
        assert_eq!(warp_size("gfx1100"), 32);
    }

    #[test]
    fn assembled_sources_instantiate_every_dtype() {
        let scan = hk::assemble(hk::SCAN_CU, 64);
        let sort = hk::assemble(hk::RADIX_SORT_CU, 32);
        for src in [&scan, &sort] {
            assert!(src.starts_with("#define HK_WARP_SIZE "));
            assert!(
                !src.lines().any(|l| l.trim_start().starts_with("#include")),
                "a header is still included"
            );
        }
        for d in hk::DTYPES {
            assert!(scan.contains(&format!("HK_SCAN_ENTRIES({d})")), "scan {d}");
            assert!(sort.contains(&format!("HK_SORT_DT({d},")), "sort {d}");
        }
        assert!(sort.contains("HK_SORT_K(u32)") && sort.contains("HK_SORT_K(u64)"));
        assert_eq!(hk::ScanArgs::default().bytes().len(), 8 * 8);
        assert_eq!(hk::SortArgs::default().bytes().len(), 13 * 8);
    }
}

//! Sorts past one storage binding (window.rs): rows that fit are sorted in groups of rows
//! copied into temporaries; a row too long for one sort is cut into blocks, each block sorted,
//! then the blocks put in order by a block odd-even transposition sort whose step sorts two
//! neighbouring blocks together (a *merge-split*: the lower block keeps the smaller half).
//! With P blocks, P rounds of merge-splits sort the row; every step is the stable bitonic sort
//! of `sortscan.rs` on neighbouring blocks, so equal keys keep their order and argsort's
//! positions (moved as values) stay NumPy's.

use crate::buffer::word_bytes;
use crate::sortscan::sort;
use crate::{WgpuBackend, WgpuBuffer};
use cupy_core::backend::{Buffer, Operand, SortCall};
use cupy_core::{DType, Layout, Result};

/// Bytes one sort of `batch` rows of `n` keys of `wb` bytes (values: int64) binds at most.
pub(crate) fn sort_bytes(batch: usize, n: usize, wb: usize, values: bool) -> u64 {
    let flat = (batch * n.next_power_of_two()) as u64;
    let per = (wb.max(4) as u64).max(if values { 8 } else { 4 });
    flat * per.max(4)
}

impl WgpuBackend {
    /// Copies `n` elements (of `wb` bytes, a multiple of 4) between buffers, queued in order.
    fn copy_elems(
        &self,
        src: &WgpuBuffer,
        s0: usize,
        dst: &WgpuBuffer,
        d0: usize,
        n: usize,
    ) -> Result<()> {
        let wb = word_bytes(src.dtype) as u64;
        let mut p = self.lock_pending()?;
        let enc = p.encoder(&self.device);
        enc.copy_buffer_to_buffer(
            &src.buf,
            s0 as u64 * wb,
            &dst.buf,
            d0 as u64 * wb,
            n as u64 * wb,
        );
        p.count += 1;
        Ok(())
    }

    /// Sorts `len` elements of one row, in several pieces `(start, len)` of the keys (and
    /// values) gathered into temporaries, sorted together as one row and scattered back.
    fn sort_gathered(
        &self,
        keys: (&WgpuBuffer, usize),
        vals: Option<(&WgpuBuffer, usize)>,
        parts: &[(usize, usize)],
        rows: usize,
    ) -> Result<()> {
        let len: usize = parts.iter().map(|p| p.1).sum();
        let tk: Buffer = self.temp(keys.0.dtype, len)?;
        let tkb = self.buf(&tk, "sort")?;
        let tv: Option<Buffer> = vals.map(|_| self.temp(DType::Int64, len)).transpose()?;
        let mut at = 0;
        for &(s, n) in parts {
            self.copy_elems(keys.0, keys.1 + s, tkb, at, n)?;
            if let (Some((v, voff)), Some(t)) = (vals, &tv) {
                self.copy_elems(v, voff + s, self.buf(t, "sort")?, at, n)?;
            }
            at += n;
        }
        let l = Layout::contiguous(&[rows, len / rows]);
        sort(
            self,
            &SortCall {
                keys: Operand {
                    buffer: &tk,
                    layout: l.clone(),
                },
                values: tv.as_ref().map(|t| Operand {
                    buffer: t,
                    layout: l.clone(),
                }),
                values_are_positions: false,
                source: None,
                discard_keys: false,
            },
        )?;
        let mut at = 0;
        for &(s, n) in parts {
            self.copy_elems(tkb, at, keys.0, keys.1 + s, n)?;
            if let (Some((v, voff)), Some(t)) = (vals, &tv) {
                self.copy_elems(self.buf(t, "sort")?, at, v, voff + s, n)?;
            }
            at += n;
        }
        Ok(())
    }
}

/// A sort whose operands or temporaries pass one storage binding (see the module docs).
/// `keys` are C-contiguous `[batch, n]` of a 32/64-bit or complex dtype.
pub(crate) fn sort_big(
    be: &WgpuBackend,
    keys: &WgpuBuffer,
    kl: &Layout,
    vals: Option<(&WgpuBuffer, usize)>,
) -> Result<()> {
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    let wb = word_bytes(keys.dtype);
    let cap = be.binding_cap;
    let fits = |rows: usize, len: usize| {
        sort_bytes(rows, len, wb, vals.is_some()) <= cap
            && (rows * len * wb) as u64 <= cap
            && (rows * len) < (1 << 30)
    };
    let k0 = kl.offset;
    if fits(1, n) {
        // Groups of whole rows.
        let mut rows = 1;
        while rows < batch && fits(rows * 2, n) {
            rows *= 2;
        }
        let mut r = 0;
        while r < batch {
            let m = rows.min(batch - r);
            be.sort_gathered((keys, k0), vals, &[(r * n, m * n)], m)?;
            r += m;
        }
        return Ok(());
    }
    // One row is too long: blocks of `b` keys, two of which sort together in one binding.
    let mut b = 1usize << 30;
    while b > 1 && !fits(1, 2 * b) {
        b /= 2;
    }
    for row in 0..batch {
        let r0 = row * n;
        let blocks: Vec<(usize, usize)> = (0..n.div_ceil(b))
            .map(|i| (r0 + i * b, b.min(n - i * b)))
            .collect();
        for &blk in &blocks {
            be.sort_gathered((keys, k0), vals, &[blk], 1)?;
        }
        let p = blocks.len();
        for round in 0..p {
            let mut i = round % 2;
            while i + 1 < p {
                be.sort_gathered((keys, k0), vals, &[blocks[i], blocks[i + 1]], 1)?;
                i += 2;
            }
        }
    }
    Ok(())
}

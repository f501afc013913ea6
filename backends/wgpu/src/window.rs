//! Arrays past one storage binding: a buffer may be larger than
//! `max_storage_buffer_binding_size` (up to `max_buffer_size`); a kernel then binds *windows*
//! of it (byte ranges at offsets aligned to [`WIN_ALIGN`], each at most the binding cap) and
//! runs once per *piece* of its iteration space, a box whose operands' element ranges each fit
//! one window. Offsets in the meta words are relative to the window's first element, so every
//! kernel keeps its 32-bit index arithmetic whatever the array's size.
//!
//! The cap is the adapter's `min(max_storage_buffer_binding_size, max_buffer_size)`, lowered
//! (never raised) by `CUPY_WGPU_BINDING_LIMIT` (bytes; for tests of the split paths on small
//! arrays).

use cupy_core::layout::Layout;

/// Alignment of a window's byte offset: a multiple of every adapter's
/// `min_storage_buffer_offset_alignment` (a power of two, at most 256).
pub(crate) const WIN_ALIGN: u64 = 256;

/// Most pieces one launch may be split into.
const MAX_PIECES: usize = 1 << 20;

/// The binding cap of an adapter with these limits (see the module docs).
pub(crate) fn binding_cap(limits: &wgpu::Limits) -> u64 {
    let hw = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let env = std::env::var("CUPY_WGPU_BINDING_LIMIT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    let cap = env.map_or(hw, |e| e.min(hw)).max(4 * WIN_ALIGN);
    cap / WIN_ALIGN * WIN_ALIGN
}

/// A byte range of a buffer bound as one storage binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Win {
    /// Byte offset (a multiple of [`WIN_ALIGN`]).
    pub start: u64,
    /// Bytes bound.
    pub size: u64,
    /// The element at `start` (`start / bytes per element`).
    pub elem0: usize,
}

/// The window covering elements `lo..hi` of a buffer of `bytes` bytes with `wb` bytes per
/// element (a divisor of [`WIN_ALIGN`]), or `None` when it is larger than `cap`. The end is
/// rounded up to [`WIN_ALIGN`] (within the buffer) so `vec4` loads of the last group stay inside.
pub(crate) fn window(lo: usize, hi: usize, wb: usize, bytes: u64, cap: u64) -> Option<Win> {
    let start = (lo * wb) as u64 / WIN_ALIGN * WIN_ALIGN;
    let end = ((hi.max(lo + 1) * wb) as u64)
        .div_ceil(WIN_ALIGN)
        .saturating_mul(WIN_ALIGN)
        .min(bytes);
    let size = end.checked_sub(start)?;
    (size <= cap && size > 0).then_some(Win {
        start,
        size,
        elem0: start as usize / wb,
    })
}

/// A box of an iteration shape: its first coordinate and extent on every axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub start: Vec<usize>,
    pub shape: Vec<usize>,
}

impl Piece {
    /// `l` restricted to this box (same strides, shifted offset, the box's shape).
    pub(crate) fn sub(&self, l: &Layout) -> Layout {
        let off = l.offset as isize
            + self
                .start
                .iter()
                .zip(&l.strides)
                .map(|(&s, &st)| s as isize * st)
                .sum::<isize>();
        Layout {
            shape: self.shape.clone(),
            strides: l.strides.clone(),
            offset: off as usize,
        }
    }

    /// The flat C-order index of the box's first element in `full` (the whole shape).
    pub(crate) fn flat_start(&self, full: &[usize]) -> usize {
        let mut f = 0usize;
        for (s, n) in self.start.iter().zip(full) {
            f = f * n + s;
        }
        f
    }

    pub(crate) fn size(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The windows of `binds` (per binding: bytes per element, buffer bytes) covering the operands
/// `ops` (layout over the piece, binding) of one piece; `None` if one does not fit `cap`.
pub(crate) fn piece_windows(
    ops: &[(Layout, usize)],
    binds: &[(usize, u64)],
    cap: u64,
) -> Option<Vec<Option<Win>>> {
    let mut ext: Vec<Option<(isize, isize)>> = vec![None; binds.len()];
    for (l, b) in ops {
        let (lo, hi) = l.extent();
        ext[*b] = Some(match ext[*b] {
            None => (lo, hi),
            Some((a, z)) => (a.min(lo), z.max(hi)),
        });
    }
    ext.iter()
        .zip(binds)
        .map(|(e, &(wb, bytes))| match e {
            None => Some(None),
            Some((lo, hi)) if *lo >= 0 => {
                window(*lo as usize, *hi as usize, wb, bytes, cap).map(Some)
            }
            Some(_) => None,
        })
        .collect()
}

/// Splits `shape` into pieces whose operands (`ops`: layout over `shape`, binding) each fit one
/// window of their binding (`binds`) and which have at most `max_elems` elements. `flat`: every
/// piece is a range of flat C-order indices (needed by kernels that read their element's index);
/// else the axis that spans most bytes is split first. Pieces along the last axis are multiples
/// of 1024 elements where possible (keeps `vec4` offsets and packed words aligned).
///
/// # Errors
/// The reason, when an element alone does not fit or the split needs too many pieces.
pub(crate) fn split_boxes(
    shape: &[usize],
    ops: &[(&Layout, usize)],
    binds: &[(usize, u64)],
    cap: u64,
    flat: bool,
    max_elems: usize,
) -> Result<Vec<Piece>, String> {
    let mut out = vec![];
    let mut stack = vec![Piece {
        start: vec![0; shape.len()],
        shape: shape.to_vec(),
    }];
    while let Some(p) = stack.pop() {
        let subs: Vec<(Layout, usize)> = ops.iter().map(|(l, b)| (p.sub(l), *b)).collect();
        let fits = piece_windows(&subs, binds, cap).is_some();
        if fits && p.size() <= max_elems {
            out.push(p);
            if out.len() > MAX_PIECES {
                return Err(format!("more than {MAX_PIECES} pieces"));
            }
            continue;
        }
        // Bytes each axis spans in the operands (the largest over operands).
        let span = |ax: usize| -> u64 {
            subs.iter()
                .map(|(l, b)| {
                    (l.shape[ax].saturating_sub(1) as u64)
                        * l.strides[ax].unsigned_abs() as u64
                        * binds[*b].0 as u64
                })
                .max()
                .unwrap_or(0)
        };
        let ax = if flat {
            p.shape.iter().position(|&n| n > 1)
        } else {
            (0..p.shape.len())
                .filter(|&a| p.shape[a] > 1)
                .max_by_key(|&a| (span(a), p.shape[a]))
        };
        let Some(ax) = ax else {
            return Err(format!(
                "one element does not fit a storage binding of {cap} bytes"
            ));
        };
        let n = p.shape[ax];
        let by_bytes = span(ax).div_ceil((cap / 2).max(1)) as usize;
        let by_elems = p.size().div_ceil(max_elems);
        let parts = by_bytes.max(by_elems).clamp(2, n);
        let mut len = n.div_ceil(parts);
        if ax + 1 == p.shape.len() && len > 1024 {
            len = len.div_ceil(1024) * 1024;
        }
        let mut s = 0;
        let mut pieces = vec![];
        while s < n {
            let l = len.min(n - s);
            let mut q = p.clone();
            q.start[ax] += s;
            q.shape[ax] = l;
            pieces.push(q);
            s += l;
        }
        // Popped in order: first piece first.
        stack.extend(pieces.into_iter().rev());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_aligned_and_capped() {
        let w = window(100, 300, 4, 1 << 20, 4096).unwrap();
        assert_eq!(w.start, 256);
        assert_eq!(w.elem0, 64);
        assert_eq!(w.start + w.size, 1280);
        assert!(window(0, 2000, 4, 1 << 20, 4096).is_none());
        // The end never passes the buffer.
        let w = window(10, 12, 4, 48, 4096).unwrap();
        assert_eq!((w.start, w.size), (0, 48));
    }

    #[test]
    fn contiguous_split_covers_everything_in_order() {
        let l = Layout::contiguous(&[10_000]);
        let p = split_boxes(
            &[10_000],
            &[(&l, 0), (&l, 1)],
            &[(4, 40_000), (4, 40_000)],
            8192,
            true,
            usize::MAX,
        )
        .unwrap();
        assert!(p.len() >= 5);
        let mut next = 0;
        for q in &p {
            assert_eq!(q.start[0], next);
            next += q.shape[0];
            let s = q.sub(&l);
            assert!(piece_windows(&[(s, 0)], &[(4, 40_000)], 8192).is_some());
        }
        assert_eq!(next, 10_000);
    }

    #[test]
    fn transposed_split_picks_the_wide_axis() {
        // A transposed (F-order) 100 x 1000 view: axis 0 has stride 1, axis 1 stride 100.
        let t = Layout {
            shape: vec![100, 1000],
            strides: vec![1, 100],
            offset: 0,
        };
        let p = split_boxes(
            &[100, 1000],
            &[(&t, 0)],
            &[(4, 400_000)],
            65536,
            false,
            usize::MAX,
        )
        .unwrap();
        assert!(p.iter().all(|q| q.shape[0] == 100), "{p:?}");
        assert_eq!(p.iter().map(Piece::size).sum::<usize>(), 100_000);
        assert!(p.len() < 20);
    }
}

//! Host buffers, layout checks, and gathering/scattering blocks of elements through layouts.
//!
//! # Safety argument
//! A [`CpuBuffer`] owns a 16-byte aligned heap allocation and hands out raw pointers; kernels read
//! and write through them concurrently from rayon workers. This is sound because:
//! - every layout and raw operand is checked against its buffer's length (and dtype) before any
//!   access ([`check_layout`] and the raw-operand check in `lib.rs`), with overflow-checked arithmetic, so no access can
//!   leave the allocation;
//! - work is only split across threads when the outputs cannot overlap each other or any other
//!   operand except element-for-element (same layout), which the launch checks
//!   ([`non_overlapping`], [`disjoint`]); otherwise the launch runs on one thread;
//! - slices (`&[T]`) into a buffer are only formed for inputs whose buffer is not written by the
//!   launch, so no shared reference ever covers memory that is being written.
//!
//! The one thing the backend cannot check is a *caller* racing two calls on the same buffer from
//! different threads (e.g. `write` while a kernel reads it); the frontend serializes calls per
//! device as the `Backend` contract says.

use crate::column::{Col, C32, C64, D};
use cupy_core::kernel::ir::AtomicOp;
use cupy_core::{DType, DeviceBuffer, Error, Layout, Result};
use half::{bf16, f16};
use std::alloc::{alloc_zeroed, dealloc, Layout as AllocLayout};
use std::any::Any;
use std::borrow::Cow;
use std::ptr::NonNull;

mod raw;
pub use raw::RawView;

/// Alignment of every allocation (the widest element, complex128).
pub const ALIGN: usize = 16;

/// A host allocation of `len` elements of `dtype`, in NumPy's byte format.
pub struct CpuBuffer {
    ptr: NonNull<u8>,
    bytes: usize,
    len: usize,
    dtype: DType,
    /// The backend's byte count this allocation is part of (arrays; not internal temporaries).
    usage: Option<std::sync::Arc<Usage>>,
    /// Foreign memory ([`CpuBuffer::external`]): not ours to free; this drops instead.
    external: Option<cupy_core::KeepAlive>,
}

/// Bytes held by the cpu backend's arrays, and the limit `MemoryPool.set_limit` put on them
/// (the host has no cache: `total_bytes == used_bytes`, no free blocks).
#[derive(Debug, Default)]
pub struct Usage {
    /// Bytes of live allocations.
    pub used: std::sync::atomic::AtomicUsize,
    /// The limit (`set_limit`, `CUPY_GPU_MEMORY_LIMIT`).
    pub limit: std::sync::Mutex<cupy_core::gpu::pool::PoolLimit>,
}

// SAFETY: the buffer is plain memory; concurrent access is coordinated by the launches (see the
// module docs).
unsafe impl Send for CpuBuffer {}
unsafe impl Sync for CpuBuffer {}

impl std::fmt::Debug for CpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuBuffer({} x {})", self.len, self.dtype)
    }
}

impl CpuBuffer {
    /// Allocates zeroed memory; `Err(bytes)` if the allocator refuses.
    pub fn new(dtype: DType, len: usize) -> std::result::Result<CpuBuffer, usize> {
        let bytes = len.checked_mul(dtype.itemsize()).ok_or(usize::MAX)?;
        if bytes == 0 {
            return Ok(CpuBuffer {
                ptr: NonNull::<u128>::dangling().cast(),
                bytes: 0,
                len,
                dtype,
                usage: None,
                external: None,
            });
        }
        let layout = AllocLayout::from_size_align(bytes, ALIGN).map_err(|_| bytes)?;
        // SAFETY: non-zero size.
        let p = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(p).ok_or(bytes)?;
        Ok(CpuBuffer {
            ptr,
            bytes,
            len,
            dtype,
            usage: None,
            external: None,
        })
    }

    /// Foreign host memory of `len` elements of `dtype` at `ptr`, used in place (DLPack).
    ///
    /// # Safety
    /// As [`cupy_core::Backend::wrap_external`]: `ptr` holds `len` elements, aligned, valid
    /// until `keep_alive` drops.
    pub unsafe fn external(
        ptr: *mut u8,
        dtype: DType,
        len: usize,
        keep_alive: cupy_core::KeepAlive,
    ) -> Result<CpuBuffer> {
        cupy_core::backend::check_external_alignment(ptr as u64, dtype)?;
        let bytes = len
            .checked_mul(dtype.itemsize())
            .ok_or_else(|| Error::invalid("from_dlpack", format!("{len} x {dtype} overflows")))?;
        let ptr = match NonNull::new(ptr) {
            Some(p) => p,
            None if bytes == 0 => NonNull::<u128>::dangling().cast(),
            None => return Err(Error::invalid("from_dlpack", "null data pointer")),
        };
        Ok(CpuBuffer {
            ptr,
            bytes,
            len,
            dtype,
            usage: None,
            external: Some(keep_alive),
        })
    }

    /// Counts this allocation in `usage` until it drops.
    pub fn counted(mut self, usage: &std::sync::Arc<Usage>) -> CpuBuffer {
        usage
            .used
            .fetch_add(self.bytes, std::sync::atomic::Ordering::SeqCst);
        self.usage = Some(usage.clone());
        self
    }
    /// Base pointer.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for CpuBuffer {
    fn drop(&mut self) {
        if let Some(u) = &self.usage {
            u.used
                .fetch_sub(self.bytes, std::sync::atomic::Ordering::SeqCst);
        }
        if self.external.is_some() {
            // Foreign memory: its owner frees it when `external` drops.
            return;
        }
        if self.bytes > 0 {
            // SAFETY: allocated in `new` with this layout.
            unsafe {
                dealloc(
                    self.ptr.as_ptr(),
                    AllocLayout::from_size_align_unchecked(self.bytes, ALIGN),
                )
            }
        }
    }
}

impl DeviceBuffer for CpuBuffer {
    fn len(&self) -> usize {
        self.len
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn address(&self) -> Option<u64> {
        Some(self.ptr.as_ptr() as u64)
    }
}

/// Overflow-checked extent of a layout: `(lo, hi)` element indices touched, `None` on overflow.
/// Empty layouts touch nothing (`(offset, offset)`).
pub fn extent(l: &Layout) -> Option<(i128, i128)> {
    let mut size: u128 = 1;
    for &d in &l.shape {
        size = size.checked_mul(d as u128)?;
    }
    let off = l.offset as i128;
    if size == 0 {
        return Some((off, off));
    }
    let (mut lo, mut hi) = (off, off);
    for (&d, &s) in l.shape.iter().zip(&l.strides) {
        let span = (d as i128 - 1).checked_mul(s as i128)?;
        if span < 0 {
            lo = lo.checked_add(span)?;
        } else {
            hi = hi.checked_add(span)?;
        }
    }
    Some((lo, hi + 1))
}

/// Checks `l` has `shape` and stays inside a buffer of `len` elements.
pub fn check_layout(op: &str, what: &str, l: &Layout, shape: &[usize], len: usize) -> Result<()> {
    if l.shape != shape || l.strides.len() != l.shape.len() {
        return Err(Error::invalid(
            op,
            format!(
                "{what}: layout shape {:?} (strides {:?}) does not match the launch shape {shape:?}",
                l.shape, l.strides
            ),
        ));
    }
    match extent(l) {
        Some((lo, hi)) if lo >= 0 && (hi as u128) <= len as u128 || (lo == hi) => Ok(()),
        _ => Err(Error::invalid(
            op,
            format!(
                "{what}: layout {:?}/{:?}+{} addresses elements outside its buffer of {len}",
                l.shape, l.strides, l.offset
            ),
        )),
    }
}

/// A sufficient test that a layout addresses each element at most once: sorted by |stride|,
/// each axis steps over everything the smaller axes span.
pub fn non_overlapping(l: &Layout) -> bool {
    if l.shape.contains(&0) {
        return true;
    }
    let mut axes: Vec<(usize, usize)> = l
        .shape
        .iter()
        .zip(&l.strides)
        .filter(|(d, _)| **d > 1)
        .map(|(&d, &s)| (s.unsigned_abs(), d))
        .collect();
    axes.sort_unstable();
    let mut span: u128 = 1; // one past the largest offset reached by the smaller axes
    for (s, d) in axes {
        if (s as u128) < span {
            return false;
        }
        span += (s as u128) * (d as u128 - 1);
    }
    true
}

/// True if two layouts' extents do not intersect.
pub fn disjoint(a: &Layout, b: &Layout) -> bool {
    match (extent(a), extent(b)) {
        (Some((alo, ahi)), Some((blo, bhi))) => {
            alo == ahi || blo == bhi || ahi <= blo || bhi <= alo
        }
        _ => false,
    }
}

/// Calls `f(offset, stride, len)` for each innermost run of the flat (C-order) range
/// `start..start + n` of `l`'s index space.
#[inline]
pub fn runs(l: &Layout, start: usize, n: usize, f: impl FnMut(isize, isize, usize)) {
    runs_at(l, l.offset as isize, start, n, f)
}

/// [`runs`] with the layout's offset replaced by `base`.
#[inline]
pub fn runs_at(
    l: &Layout,
    base: isize,
    start: usize,
    n: usize,
    mut f: impl FnMut(isize, isize, usize),
) {
    let nd = l.shape.len();
    if n == 0 {
        return;
    }
    if nd == 0 {
        f(base, 0, n);
        return;
    }
    let mut idx = [0usize; 32];
    let mut idx_v;
    let idx: &mut [usize] = if nd <= 32 {
        &mut idx[..nd]
    } else {
        idx_v = vec![0usize; nd];
        &mut idx_v
    };
    let mut rem = start;
    let mut off = base;
    for d in (0..nd).rev() {
        idx[d] = rem % l.shape[d];
        rem /= l.shape[d];
        off += idx[d] as isize * l.strides[d];
    }
    let last = nd - 1;
    let (dl, sl) = (l.shape[last], l.strides[last]);
    let mut left = n;
    loop {
        let run = (dl - idx[last]).min(left);
        f(off, sl, run);
        left -= run;
        if left == 0 {
            return;
        }
        off += run as isize * sl;
        idx[last] += run;
        let mut d = last;
        while idx[d] == l.shape[d] && d > 0 {
            off -= l.shape[d] as isize * l.strides[d];
            idx[d] = 0;
            d -= 1;
            idx[d] += 1;
            off += l.strides[d];
        }
    }
}

/// A strided operand ready for block access.
#[derive(Clone, Debug)]
pub struct View {
    /// Buffer base pointer.
    pub ptr: *mut u8,
    /// Element dtype.
    pub dtype: DType,
    /// Layout over the launch's index space.
    pub layout: Layout,
    /// C-contiguous: element of flat index `i` is at `offset + i`.
    pub contig: bool,
    /// Every element is the same one (all strides zero).
    pub uniform: bool,
    /// The buffer is not written by this launch, so slices into it may be formed.
    pub borrow_ok: bool,
}

// SAFETY: see the module docs.
unsafe impl Send for View {}
unsafe impl Sync for View {}

impl View {
    /// A view of `buf` (already checked) with `layout`.
    pub fn new(buf: &CpuBuffer, layout: Layout, borrow_ok: bool) -> View {
        let contig = layout.is_c_contiguous();
        let uniform = layout
            .shape
            .iter()
            .zip(&layout.strides)
            .all(|(&d, &s)| s == 0 || d == 1);
        View {
            ptr: buf.ptr(),
            dtype: buf.dtype(),
            layout,
            contig,
            uniform,
            borrow_ok,
        }
    }

    /// The same operand with another layout (inside the checked one).
    pub fn with_layout(&self, layout: Layout) -> View {
        let contig = layout.is_c_contiguous();
        let uniform = layout
            .shape
            .iter()
            .zip(&layout.strides)
            .all(|(&d, &s)| s == 0 || d == 1);
        View {
            layout,
            contig,
            uniform,
            ..self.clone()
        }
    }

    /// Reads flat indices `start..start + n` into a column.
    ///
    /// # Safety
    /// The layout was checked against the buffer; `start + n` is within the layout's size.
    pub unsafe fn gather(&self, start: usize, n: usize) -> Col<'_> {
        self.gather_at(0, start, n)
    }

    /// [`View::gather`] with the layout's offset moved by `delta` elements.
    ///
    /// # Safety
    /// As [`View::gather`], for the shifted layout.
    pub unsafe fn gather_at(&self, delta: isize, start: usize, n: usize) -> Col<'_> {
        unsafe fn g<S: Copy, T: Copy + 'static>(
            v: &View,
            delta: isize,
            start: usize,
            n: usize,
            f: impl Fn(S) -> T,
            native: bool,
        ) -> D<'_, T> {
            let p = v.ptr as *const S;
            let off0 = v.layout.offset as isize + delta;
            if v.uniform {
                return D::U(f(*p.offset(off0)));
            }
            if v.contig {
                let base = p.offset(off0 + start as isize);
                if native && v.borrow_ok {
                    // SAFETY: S == T here (native), and the range lies in the unwritten buffer.
                    return D::V(Cow::Borrowed(std::slice::from_raw_parts(
                        base as *const T,
                        n,
                    )));
                }
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    out.push(f(std::ptr::read(base.add(i))));
                }
                return D::V(Cow::Owned(out));
            }
            let mut out: Vec<T> = Vec::with_capacity(n);
            runs_at(&v.layout, off0, start, n, |off, stride, len| {
                let q = p.offset(off);
                if stride == 1 {
                    for i in 0..len {
                        out.push(f(std::ptr::read(q.add(i))));
                    }
                } else if stride == 0 {
                    let x = f(std::ptr::read(q));
                    out.extend(std::iter::repeat_n(x, len));
                } else {
                    for i in 0..len as isize {
                        out.push(f(std::ptr::read(q.offset(i * stride))));
                    }
                }
            });
            D::V(Cow::Owned(out))
        }
        match self.dtype {
            DType::Bool => Col::B(g(self, delta, start, n, |x: u8| (x != 0) as u8, false)),
            DType::Int8 => Col::I8(g(self, delta, start, n, |x: i8| x, true)),
            DType::Int16 => Col::I16(g(self, delta, start, n, |x: i16| x, true)),
            DType::Int32 => Col::I32(g(self, delta, start, n, |x: i32| x, true)),
            DType::Int64 => Col::I64(g(self, delta, start, n, |x: i64| x, true)),
            DType::UInt8 => Col::U8(g(self, delta, start, n, |x: u8| x, true)),
            DType::UInt16 => Col::U16(g(self, delta, start, n, |x: u16| x, true)),
            DType::UInt32 => Col::U32(g(self, delta, start, n, |x: u32| x, true)),
            DType::UInt64 => Col::U64(g(self, delta, start, n, |x: u64| x, true)),
            DType::Float16 => Col::F32(g(
                self,
                delta,
                start,
                n,
                |x: u16| f16::from_bits(x).to_f32(),
                false,
            )),
            DType::BFloat16 => Col::F32(g(
                self,
                delta,
                start,
                n,
                |x: u16| bf16::from_bits(x).to_f32(),
                false,
            )),
            DType::Float32 => Col::F32(g(self, delta, start, n, |x: f32| x, true)),
            DType::Float64 => Col::F64(g(self, delta, start, n, |x: f64| x, true)),
            DType::Complex64 => Col::C32(g(self, delta, start, n, |x: C32| x, true)),
            DType::Complex128 => Col::C64(g(self, delta, start, n, |x: C64| x, true)),
        }
    }

    /// Writes `c` (of this view's logical dtype) to flat indices `start..start + n`, only lanes
    /// whose `mask` byte is non-zero if a mask is given.
    ///
    /// # Safety
    /// As [`View::gather`]; no other thread accesses these elements.
    pub unsafe fn scatter(
        &self,
        start: usize,
        n: usize,
        c: &Col<'_>,
        mask: Option<&[u8]>,
    ) -> std::result::Result<(), String> {
        unsafe fn s<S: Copy, T: Copy + 'static>(
            v: &View,
            start: usize,
            n: usize,
            d: &D<'_, T>,
            mask: Option<&[u8]>,
            f: impl Fn(T) -> S,
        ) {
            let p = v.ptr as *mut S;
            if let (true, None) = (v.contig, mask) {
                let base = p.add(v.layout.offset + start);
                match d {
                    D::U(x) => {
                        let x = f(*x);
                        for i in 0..n {
                            std::ptr::write(base.add(i), x);
                        }
                    }
                    D::V(vals) => {
                        for (i, &x) in vals[..n].iter().enumerate() {
                            std::ptr::write(base.add(i), f(x));
                        }
                    }
                }
                return;
            }
            let mut lane = 0usize;
            runs(&v.layout, start, n, |off, stride, len| {
                let q = p.offset(off);
                for i in 0..len {
                    let l = lane + i;
                    if mask.is_none_or(|m| m[l] != 0) {
                        std::ptr::write(q.offset(i as isize * stride), f(d.get(l)));
                    }
                }
                lane += len;
            });
        }
        match (self.dtype, c) {
            (DType::Bool, Col::B(d)) => s(self, start, n, d, mask, |x: u8| x),
            (DType::Int8, Col::I8(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Int16, Col::I16(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Int32, Col::I32(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Int64, Col::I64(d)) => s(self, start, n, d, mask, |x| x),
            (DType::UInt8, Col::U8(d)) => s(self, start, n, d, mask, |x| x),
            (DType::UInt16, Col::U16(d)) => s(self, start, n, d, mask, |x| x),
            (DType::UInt32, Col::U32(d)) => s(self, start, n, d, mask, |x| x),
            (DType::UInt64, Col::U64(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Float16, Col::F32(d)) => {
                s(self, start, n, d, mask, |x| f16::from_f32(x).to_bits())
            }
            (DType::BFloat16, Col::F32(d)) => {
                s(self, start, n, d, mask, |x| bf16::from_f32(x).to_bits())
            }
            (DType::Float32, Col::F32(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Float64, Col::F64(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Complex64, Col::C32(d)) => s(self, start, n, d, mask, |x| x),
            (DType::Complex128, Col::C64(d)) => s(self, start, n, d, mask, |x| x),
            (dt, _) => return Err(format!("value of the wrong type stored to a {dt} output")),
        }
        Ok(())
    }
}

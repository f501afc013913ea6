//! Scans (`cumsum`/`cumprod`) and stable sorts along the last axis of a `[batch, n]` layout,
//! rayon across rows.
//!
//! - Scans run sequentially along each row in the output dtype with the IR's semantics: integers
//!   wrap around, bool is `or`/`and`, float16/bfloat16 are computed in float32 and rounded after
//!   every step (as NumPy's float16 `add.accumulate` does).
//! - Sorts are Rust's stable merge sort with NumPy's total order: ascending, NaN last, `-0.0 ==
//!   0.0` (so they keep their order); complex numbers lexicographically (real, then imaginary)
//!   with NaNs last as NumPy orders them (`R+Rj < R+nanj < nan+Rj < nan+nanj`).
//!
//! Rows are gathered through the input layout into a row vector and written to the C-contiguous
//! output, so an output that is the input (same buffer and layout) is fine, and so is any other
//! layout of the same buffer (then the whole input is gathered first, on one thread).

use crate::mem::{check_layout, disjoint, CpuBuffer};
use crate::CpuBackend;
use cupy_core::backend::{CompressCall, ScanCall, ScanOp, SelectCall, SortCall};
use cupy_core::{DType, Error, Layout, Result};
use half::{bf16, f16};
use num_complex::Complex;
use rayon::prelude::*;
use std::cmp::Ordering;

/// Rows with fewer elements in total than this run on the calling thread.
const PAR_MIN: usize = 1 << 14;

trait ScanElem: Copy + Send + Sync + 'static {
    fn add(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
}

macro_rules! scan_int {
    ($($t:ty),*) => {$(
        impl ScanElem for $t {
            #[inline]
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline]
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
        }
    )*};
}
scan_int!(i8, i16, i32, i64, u16, u32, u64);

/// bool, held as a byte 0/1.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct B8(u8);
impl ScanElem for B8 {
    fn add(a: Self, b: Self) -> Self {
        B8(((a.0 != 0) | (b.0 != 0)) as u8)
    }
    fn mul(a: Self, b: Self) -> Self {
        B8(((a.0 != 0) & (b.0 != 0)) as u8)
    }
}
impl ScanElem for u8 {
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    fn mul(a: Self, b: Self) -> Self {
        a.wrapping_mul(b)
    }
}

macro_rules! scan_float {
    ($($t:ty),*) => {$(
        impl ScanElem for $t {
            #[inline]
            fn add(a: Self, b: Self) -> Self { a + b }
            #[inline]
            fn mul(a: Self, b: Self) -> Self { a * b }
        }
    )*};
}
scan_float!(f32, f64, Complex<f32>, Complex<f64>);

macro_rules! scan_narrow {
    ($($t:ty),*) => {$(
        impl ScanElem for $t {
            #[inline]
            fn add(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() + b.to_f32()) }
            #[inline]
            fn mul(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() * b.to_f32()) }
        }
    )*};
}
scan_narrow!(f16, bf16);

/// A raw base pointer that may cross threads (accesses are checked by the callers).
#[derive(Clone, Copy)]
struct Ptr(*mut u8);
// SAFETY: see the module docs of `mem`: layouts are checked, rows written by one thread each.
unsafe impl Send for Ptr {}
unsafe impl Sync for Ptr {}
impl Ptr {
    /// The pointer (a method, so closures capture the whole `Ptr`, which is `Sync`).
    #[inline]
    fn get(self) -> *mut u8 {
        self.0
    }
}

/// Gathers row `b` of `l` (shape `[batch, n]`) of a buffer of `T`.
///
/// # Safety
/// `l` lies inside the buffer at `p` (checked with `check_layout`).
unsafe fn gather_row<T: Copy>(p: Ptr, l: &Layout, b: usize, out: &mut Vec<T>) {
    out.clear();
    let n = l.shape[1];
    let base = l.offset as isize + b as isize * l.strides[0];
    let s = l.strides[1];
    let p = p.get() as *const T;
    for j in 0..n {
        out.push(unsafe { p.offset(base + j as isize * s).read() });
    }
}

fn scan_rows<T: ScanElem>(
    op: ScanOp,
    src: Ptr,
    sl: &Layout,
    dst: Ptr,
    gather_all: bool,
) -> Result<()> {
    let (batch, n) = (sl.shape[0], sl.shape[1]);
    let f: fn(T, T) -> T = match op {
        ScanOp::Sum => T::add,
        ScanOp::Prod => T::mul,
    };
    let scan = |row: &mut [T]| {
        for j in 1..row.len() {
            row[j] = f(row[j - 1], row[j]);
        }
    };
    if gather_all {
        // The output overlaps the input in another layout: read everything first.
        let mut all: Vec<T> = Vec::with_capacity(batch * n);
        let mut row = vec![];
        for b in 0..batch {
            // SAFETY: the layout was checked against the buffer.
            unsafe { gather_row(src, sl, b, &mut row) };
            all.extend_from_slice(&row);
        }
        for r in all.chunks_mut(n) {
            scan(r);
        }
        // SAFETY: the output is C-contiguous [batch, n] inside its buffer (checked).
        unsafe {
            std::ptr::copy_nonoverlapping(all.as_ptr(), dst.0 as *mut T, all.len());
        }
        return Ok(());
    }
    let run = |b: usize, row: &mut Vec<T>| {
        // SAFETY: layouts checked; row b of the output is written by this call only, and the
        // input either does not overlap the output or is it element for element.
        unsafe {
            gather_row(src, sl, b, row);
            scan(row);
            std::ptr::copy_nonoverlapping(row.as_ptr(), (dst.get() as *mut T).add(b * n), n);
        }
    };
    if batch > 1 && batch * n >= PAR_MIN {
        (0..batch)
            .into_par_iter()
            .for_each_init(Vec::new, |row, b| run(b, row));
    } else {
        let mut row = Vec::with_capacity(n);
        for b in 0..batch {
            run(b, &mut row);
        }
    }
    Ok(())
}

/// NumPy's float order: NaN last, `-0.0 == 0.0`.
#[inline]
fn cmp_float<T: PartialOrd + Copy>(a: T, b: T) -> Ordering {
    #[allow(clippy::eq_op)]
    let (an, bn) = (a != a, b != b);
    match (an, bn) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

trait SortElem: Copy + Send + Sync + 'static {
    fn cmp(a: &Self, b: &Self) -> Ordering;
}
macro_rules! sort_ord {
    ($($t:ty),*) => {$( impl SortElem for $t { #[inline] fn cmp(a: &Self, b: &Self) -> Ordering { Ord::cmp(a, b) } } )*};
}
sort_ord!(u8, i8, i16, i32, i64, u16, u32, u64);
macro_rules! sort_float {
    ($($t:ty),*) => {$( impl SortElem for $t { #[inline] fn cmp(a: &Self, b: &Self) -> Ordering { cmp_float(*a, *b) } } )*};
}
sort_float!(f16, bf16, f32, f64);
impl<F: PartialOrd + Copy + Send + Sync + 'static> SortElem for Complex<F> {
    fn cmp(a: &Self, b: &Self) -> Ordering {
        // NumPy's classes: R+Rj < R+nanj < nan+Rj < nan+nanj; within a class by the parts
        // that are not NaN (real first).
        #[allow(clippy::eq_op)]
        let class = |z: &Self| 2 * u8::from(z.re != z.re) + u8::from(z.im != z.im);
        class(a)
            .cmp(&class(b))
            .then_with(|| cmp_float(a.re, b.re))
            .then_with(|| cmp_float(a.im, b.im))
    }
}

fn sort_rows<T: SortElem>(keys: Ptr, values: Option<Ptr>, offset: usize, batch: usize, n: usize) {
    // SAFETY: the layouts were checked: `batch * n` elements from `offset` in each buffer, and the
    // key and value buffers are distinct.
    let k: &mut [T] =
        unsafe { std::slice::from_raw_parts_mut((keys.0 as *mut T).add(offset), batch * n) };
    let par = batch > 1 && batch * n >= PAR_MIN;
    match values {
        None => {
            if par {
                k.par_chunks_mut(n).for_each(|r| r.sort_by(T::cmp));
            } else {
                k.chunks_mut(n).for_each(|r| r.sort_by(T::cmp));
            }
        }
        Some(v) => {
            // SAFETY: as above.
            let v: &mut [i64] =
                unsafe { std::slice::from_raw_parts_mut((v.0 as *mut i64).add(offset), batch * n) };
            let one = |(kr, vr): (&mut [T], &mut [i64])| {
                let mut pairs: Vec<(T, i64)> = kr.iter().copied().zip(vr.iter().copied()).collect();
                pairs.sort_by(|a, b| T::cmp(&a.0, &b.0));
                for (j, (a, b)) in pairs.into_iter().enumerate() {
                    kr[j] = a;
                    vr[j] = b;
                }
            };
            if par {
                k.par_chunks_mut(n).zip(v.par_chunks_mut(n)).for_each(one);
            } else {
                k.chunks_mut(n).zip(v.chunks_mut(n)).for_each(one);
            }
        }
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

pub(crate) fn scan(be: &CpuBackend, call: &ScanCall<'_>) -> Result<()> {
    let op = match call.op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let dt = call.output.buffer.dtype();
    let ib = be.buf(op, "input", call.input.buffer, Some(dt))?;
    let ob = be.buf(op, "output", call.output.buffer, Some(dt))?;
    two_d(op, "input", &call.input.layout)?;
    let shape = call.input.layout.shape.clone();
    check_layout(op, "input", &call.input.layout, &shape, ib.len_elems())?;
    check_layout(op, "output", &call.output.layout, &shape, ob.len_elems())?;
    if !call.output.layout.is_c_contiguous() {
        return Err(Error::invalid(op, "the output must be C-contiguous"));
    }
    if shape[0] * shape[1] == 0 {
        return Ok(());
    }
    let same = ib.ptr() == ob.ptr();
    let gather_all = same
        && call.input.layout != call.output.layout
        && !disjoint(&call.input.layout, &call.output.layout);
    let src = Ptr(ib.ptr());
    // SAFETY: offset lies inside the checked layout.
    let dst = Ptr(unsafe { ob.ptr().add(call.output.layout.offset * dt.itemsize()) });
    let sl = &call.input.layout;
    let o = call.op;
    match dt {
        DType::Bool => scan_rows::<B8>(o, src, sl, dst, gather_all),
        DType::Int8 => scan_rows::<i8>(o, src, sl, dst, gather_all),
        DType::Int16 => scan_rows::<i16>(o, src, sl, dst, gather_all),
        DType::Int32 => scan_rows::<i32>(o, src, sl, dst, gather_all),
        DType::Int64 => scan_rows::<i64>(o, src, sl, dst, gather_all),
        DType::UInt8 => scan_rows::<u8>(o, src, sl, dst, gather_all),
        DType::UInt16 => scan_rows::<u16>(o, src, sl, dst, gather_all),
        DType::UInt32 => scan_rows::<u32>(o, src, sl, dst, gather_all),
        DType::UInt64 => scan_rows::<u64>(o, src, sl, dst, gather_all),
        DType::Float16 => scan_rows::<f16>(o, src, sl, dst, gather_all),
        DType::BFloat16 => scan_rows::<bf16>(o, src, sl, dst, gather_all),
        DType::Float32 => scan_rows::<f32>(o, src, sl, dst, gather_all),
        DType::Float64 => scan_rows::<f64>(o, src, sl, dst, gather_all),
        DType::Complex64 => scan_rows::<Complex<f32>>(o, src, sl, dst, gather_all),
        DType::Complex128 => scan_rows::<Complex<f64>>(o, src, sl, dst, gather_all),
    }
}

pub(crate) fn sort(be: &CpuBackend, call: &SortCall<'_>) -> Result<()> {
    let op = "sort";
    let dt = call.keys.buffer.dtype();
    let kb: &CpuBuffer = be.buf(op, "keys", call.keys.buffer, None)?;
    let kl = &call.keys.layout;
    two_d(op, "keys", kl)?;
    check_layout(op, "keys", kl, &kl.shape, kb.len_elems())?;
    if !kl.is_c_contiguous() {
        return Err(Error::invalid(op, "the keys must be C-contiguous"));
    }
    let vals = match &call.values {
        None => None,
        Some(v) => {
            let vb = be.buf(op, "values", v.buffer, Some(DType::Int64))?;
            check_layout(op, "values", &v.layout, &kl.shape, vb.len_elems())?;
            if v.layout != *kl {
                return Err(Error::invalid(
                    op,
                    "the values must have the keys' (C-contiguous) layout",
                ));
            }
            if vb.ptr() == kb.ptr() && vb.bytes() > 0 {
                return Err(Error::invalid(op, "keys and values share a buffer"));
            }
            Some(Ptr(vb.ptr()))
        }
    };
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    if let (true, Some(v)) = (call.values_are_positions, &vals) {
        // argsort: the values' contents are ignored; they start as the row positions
        // SAFETY: the values' layout was checked: `batch * n` elements from its offset.
        let vs: &mut [i64] =
            unsafe { std::slice::from_raw_parts_mut((v.0 as *mut i64).add(kl.offset), batch * n) };
        for (i, x) in vs.iter_mut().enumerate() {
            *x = (i % n) as i64;
        }
    }
    let (k, off) = (Ptr(kb.ptr()), kl.offset);
    match dt {
        DType::Bool | DType::UInt8 => sort_rows::<u8>(k, vals, off, batch, n),
        DType::Int8 => sort_rows::<i8>(k, vals, off, batch, n),
        DType::Int16 => sort_rows::<i16>(k, vals, off, batch, n),
        DType::Int32 => sort_rows::<i32>(k, vals, off, batch, n),
        DType::Int64 => sort_rows::<i64>(k, vals, off, batch, n),
        DType::UInt16 => sort_rows::<u16>(k, vals, off, batch, n),
        DType::UInt32 => sort_rows::<u32>(k, vals, off, batch, n),
        DType::UInt64 => sort_rows::<u64>(k, vals, off, batch, n),
        DType::Float16 => sort_rows::<f16>(k, vals, off, batch, n),
        DType::BFloat16 => sort_rows::<bf16>(k, vals, off, batch, n),
        DType::Float32 => sort_rows::<f32>(k, vals, off, batch, n),
        DType::Float64 => sort_rows::<f64>(k, vals, off, batch, n),
        DType::Complex64 => sort_rows::<Complex<f32>>(k, vals, off, batch, n),
        DType::Complex128 => sort_rows::<Complex<f64>>(k, vals, off, batch, n),
    }
    Ok(())
}

/// `out[b, j]` = element `kth[j]` of row `b` of `keys` in sort order, by `select_nth_unstable`
/// on a copy of the row (largest rank first, each later one within the part before it).
fn select_rows<T: SortElem>(
    keys: Ptr,
    koff: usize,
    out: Ptr,
    ooff: usize,
    batch: usize,
    n: usize,
    kth: &[usize],
) {
    let m = kth.len();
    // SAFETY: the layouts were checked: `batch * n` keys from `koff`, `batch * m` outputs from
    // `ooff`, distinct buffers (the output is written, the keys only read).
    let k: &[T] = unsafe { std::slice::from_raw_parts((keys.0 as *const T).add(koff), batch * n) };
    let o: &mut [T] =
        unsafe { std::slice::from_raw_parts_mut((out.0 as *mut T).add(ooff), batch * m) };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| kth[b].cmp(&kth[a]));
    let one = |(kr, or): (&[T], &mut [T])| {
        let mut row = kr.to_vec();
        let mut upper = n;
        for &j in &order {
            let r = kth[j];
            if r < upper {
                row[..upper].select_nth_unstable_by(r, T::cmp);
                upper = r;
            }
            or[j] = row[r];
        }
    };
    if batch > 1 && batch * n >= PAR_MIN {
        k.par_chunks(n).zip(o.par_chunks_mut(m)).for_each(one);
    } else {
        k.chunks(n).zip(o.chunks_mut(m)).for_each(one);
    }
}

pub(crate) fn select(be: &CpuBackend, call: &SelectCall<'_>) -> Result<()> {
    let op = "select";
    let dt = call.keys.buffer.dtype();
    let kb: &CpuBuffer = be.buf(op, "keys", call.keys.buffer, None)?;
    let ob: &CpuBuffer = be.buf(op, "out", call.out.buffer, Some(dt))?;
    let (kl, ol) = (&call.keys.layout, &call.out.layout);
    two_d(op, "keys", kl)?;
    two_d(op, "out", ol)?;
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    let m = call.kth.len();
    check_layout(op, "keys", kl, &kl.shape, kb.len_elems())?;
    check_layout(op, "out", ol, &[batch, m], ob.len_elems())?;
    if !kl.is_c_contiguous() || !ol.is_c_contiguous() {
        return Err(Error::invalid(op, "keys and out must be C-contiguous"));
    }
    if let Some(&bad) = call.kth.iter().find(|&&k| k >= n) {
        return Err(Error::invalid(
            op,
            format!("rank {bad} out of range for rows of {n}"),
        ));
    }
    if ob.ptr() == kb.ptr() && ob.bytes() > 0 {
        return Err(Error::invalid(op, "keys and out share a buffer"));
    }
    if batch * m == 0 {
        return Ok(());
    }
    let (k, ko, o, oo) = (Ptr(kb.ptr()), kl.offset, Ptr(ob.ptr()), ol.offset);
    let kth = call.kth;
    match dt {
        DType::Bool | DType::UInt8 => select_rows::<u8>(k, ko, o, oo, batch, n, kth),
        DType::Int8 => select_rows::<i8>(k, ko, o, oo, batch, n, kth),
        DType::Int16 => select_rows::<i16>(k, ko, o, oo, batch, n, kth),
        DType::Int32 => select_rows::<i32>(k, ko, o, oo, batch, n, kth),
        DType::Int64 => select_rows::<i64>(k, ko, o, oo, batch, n, kth),
        DType::UInt16 => select_rows::<u16>(k, ko, o, oo, batch, n, kth),
        DType::UInt32 => select_rows::<u32>(k, ko, o, oo, batch, n, kth),
        DType::UInt64 => select_rows::<u64>(k, ko, o, oo, batch, n, kth),
        DType::Float16 => select_rows::<f16>(k, ko, o, oo, batch, n, kth),
        DType::BFloat16 => select_rows::<bf16>(k, ko, o, oo, batch, n, kth),
        DType::Float32 => select_rows::<f32>(k, ko, o, oo, batch, n, kth),
        DType::Float64 => select_rows::<f64>(k, ko, o, oo, batch, n, kth),
        DType::Complex64 => select_rows::<Complex<f32>>(k, ko, o, oo, batch, n, kth),
        DType::Complex128 => select_rows::<Complex<f64>>(k, ko, o, oo, batch, n, kth),
    }
    Ok(())
}

/// `Backend::compress`: the elements of each source where the mask is true, copied in order
/// (at most `count` of them), the positions written as int64.
///
/// # Errors
/// `InvalidArgument` naming `compress` for a mask that is not bool, 1-D and C-contiguous,
/// sources or outputs of other lengths, dtypes or layouts, or foreign buffers.
pub(crate) fn compress(be: &CpuBackend, call: &CompressCall<'_>) -> Result<()> {
    let op = "compress";
    let n = call.check_shapes()?;
    let ml = &call.mask.layout;
    let mb = be.buf(op, "mask", call.mask.buffer, Some(DType::Bool))?;
    check_layout(op, "mask", ml, &[n], mb.len_elems())?;
    // (source address or None for the positions, output address, bytes per element)
    let mut plan: Vec<(Option<*const u8>, *mut u8, usize)> = vec![];
    for (s, o) in call.sources.iter().zip(call.outputs) {
        let (src, dt) = match s {
            Some(s) => {
                let dt = s.buffer.dtype();
                let sb = be.buf(op, "source", s.buffer, Some(dt))?;
                check_layout(op, "source", &s.layout, &[n], sb.len_elems())?;
                // SAFETY: the layout was checked to lie inside the buffer.
                let at = unsafe { sb.ptr().add(s.layout.offset * dt.itemsize()) };
                (Some(at as *const u8), dt)
            }
            None => (None, DType::Int64),
        };
        let ob = be.buf(op, "output", o.buffer, Some(dt))?;
        check_layout(op, "output", &o.layout, &[call.count], ob.len_elems())?;
        // SAFETY: as above.
        let at = unsafe { ob.ptr().add(o.layout.offset * dt.itemsize()) };
        plan.push((src, at, dt.itemsize()));
    }
    // SAFETY: the mask's layout was checked: n bytes from its offset lie inside its buffer.
    let mask = unsafe { std::slice::from_raw_parts(mb.ptr().add(ml.offset) as *const u8, n) };
    let kept = mask.iter().enumerate().filter(|(_, &m)| m != 0);
    for (at, (i, _)) in kept.take(call.count).enumerate() {
        for &(src, dst, w) in &plan {
            // SAFETY: i < n and at < count, inside the checked layouts; copies of whole
            // elements, byte-wise (no alignment assumed).
            unsafe {
                match src {
                    Some(p) => std::ptr::copy(p.add(i * w), dst.add(at * w), w),
                    None => {
                        let b = (i as i64).to_ne_bytes();
                        std::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(at * 8), 8)
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NumPy 2.2.6: `np.sort([3, nan+0j, 1+nanj, 1+2j, 1-5j, -0+0j, 0-0j], kind='stable')` is
    /// `[-0, 0, 1-5j, 1+2j, 3, 1+nanj, nan+0j]`, and `[1+2j, -0+nanj, inf-1j, 3]` sorts to
    /// `[1+2j, 3, inf-1j, -0+nanj]`.
    #[test]
    fn complex_order_is_numpys() {
        let c = Complex::new;
        let nan = f64::NAN;
        let mut v: Vec<(usize, Complex<f64>)> = [
            c(3.0, 0.0),
            c(nan, 0.0),
            c(1.0, nan),
            c(1.0, 2.0),
            c(1.0, -5.0),
            c(-0.0, 0.0),
            c(0.0, -0.0),
        ]
        .into_iter()
        .enumerate()
        .collect();
        v.sort_by(|a, b| SortElem::cmp(&a.1, &b.1));
        let order: Vec<usize> = v.iter().map(|p| p.0).collect();
        assert_eq!(order, [5, 6, 4, 3, 0, 2, 1]);
        let mut w = [
            c(1.0, 2.0),
            c(-0.0, nan),
            c(f64::INFINITY, -1.0),
            c(3.0, 0.0),
        ];
        w.sort_by(SortElem::cmp);
        assert_eq!(w[1], c(3.0, 0.0));
        assert_eq!(w[2], c(f64::INFINITY, -1.0));
        assert!(w[3].im.is_nan());
    }
}

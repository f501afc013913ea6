//! Batched strided matrix products: faer for float32/float64/complex, float16/bfloat16 through
//! float32 (as NumPy accumulates them), integers and bool with a plain loop (NumPy's wrap-around;
//! bool is OR of ANDs).

use crate::mem::{self, check_layout};
use crate::CpuBackend;
use cupy_core::backend::GemmCall;
use cupy_core::{DType, Error, Layout, Result};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use half::{bf16, f16};
use num_complex::Complex;
use rayon::prelude::*;

/// Copies a strided layout (C order over its shape) into a vector, converting with `f`.
///
/// # Safety
/// `l` was checked against the buffer behind `ptr` (element type `S`).
unsafe fn materialize<S: Copy, T>(ptr: *const S, l: &Layout, f: impl Fn(S) -> T) -> Vec<T> {
    let n = l.size();
    let mut out = Vec::with_capacity(n);
    mem::runs(l, 0, n, |off, stride, len| {
        for i in 0..len as isize {
            out.push(f(std::ptr::read(ptr.offset(off + i * stride))));
        }
    });
    out
}

/// Writes `data` (C order over `l.shape`) through a strided layout.
///
/// # Safety
/// `l` was checked against the buffer behind `ptr` and addresses no element twice.
unsafe fn write_back<S: Copy, T: Copy>(ptr: *mut S, l: &Layout, data: &[T], f: impl Fn(T) -> S) {
    let mut k = 0;
    mem::runs(l, 0, data.len(), |off, stride, len| {
        for i in 0..len {
            std::ptr::write(ptr.offset(off + i as isize * stride), f(data[k + i]));
        }
        k += len;
    });
}

#[derive(Clone, Copy)]
struct Mat {
    addr: usize,
    off: isize,
    s: [isize; 3],
}

impl Mat {
    fn of(ptr: *mut u8, l: &Layout) -> Mat {
        Mat {
            addr: ptr as usize,
            off: l.offset as isize,
            s: [l.strides[0], l.strides[1], l.strides[2]],
        }
    }
    fn contiguous(ptr: *mut u8, shape: &[usize]) -> Mat {
        let l = Layout::contiguous(shape);
        Mat::of(ptr, &l)
    }
    /// Pointer to matrix `b`'s first element.
    fn ptr<T>(&self, b: usize) -> *mut T {
        // SAFETY (of later use): the layout was checked, so this is inside the allocation.
        (self.addr as *mut T).wrapping_offset(self.off + b as isize * self.s[0])
    }
}

/// faer product over every batch.
///
/// # Safety
/// The matrices were checked against their buffers; `c` does not overlap itself, `a` or `b`.
unsafe fn faer_gemm<T: faer::traits::ComplexField + Copy>(
    a: Mat,
    b: Mat,
    c: Mat,
    dims: [usize; 4],
    one: T,
) {
    let [batch, m, k, n] = dims;
    let work = m.saturating_mul(n).saturating_mul(k);
    let threads = rayon::current_num_threads();
    let one_batch = |i: usize, par: Par| {
        let am = MatRef::<T>::from_raw_parts(a.ptr::<T>(i), m, k, a.s[1], a.s[2]);
        let bm = MatRef::<T>::from_raw_parts(b.ptr::<T>(i), k, n, b.s[1], b.s[2]);
        let cm = MatMut::<T>::from_raw_parts_mut(c.ptr::<T>(i), m, n, c.s[1], c.s[2]);
        matmul(cm, Accum::Replace, am, bm, one, par);
    };
    if work >= 48 * 48 * 48 && threads > 1 {
        for i in 0..batch {
            one_batch(i, Par::rayon(threads));
        }
    } else if batch > 1 && work.saturating_mul(batch) >= 1 << 16 {
        (0..batch)
            .into_par_iter()
            .for_each(|i| one_batch(i, Par::Seq));
    } else {
        for i in 0..batch {
            one_batch(i, Par::Seq);
        }
    }
}

/// `c = a @ b` on contiguous vectors with a plain i-k-j loop.
fn int_gemm<T: Copy + Send + Sync>(
    a: &[T],
    b: &[T],
    dims: [usize; 4],
    zero: T,
    mul: impl Fn(T, T) -> T + Sync,
    add: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    let [batch, m, k, n] = dims;
    let mut c = vec![zero; batch * m * n];
    let rows = |(r, crow): (usize, &mut [T])| {
        let (bi, i) = (r / m, r % m);
        let arow = &a[(bi * m + i) * k..(bi * m + i + 1) * k];
        let bm = &b[bi * k * n..(bi + 1) * k * n];
        for (p, &av) in arow.iter().enumerate() {
            let brow = &bm[p * n..(p + 1) * n];
            for (cv, &bv) in crow.iter_mut().zip(brow) {
                *cv = add(*cv, mul(av, bv));
            }
        }
    };
    if n == 0 {
        return c;
    }
    if batch * m * n * k >= 1 << 16 {
        c.par_chunks_mut(n).enumerate().for_each(rows);
    } else {
        c.chunks_mut(n).enumerate().for_each(rows);
    }
    c
}

pub(crate) fn gemm(be: &CpuBackend, call: &GemmCall<'_>) -> Result<()> {
    let op = "matmul";
    let ab = be.buf(op, "a", call.a.buffer, None)?;
    let dt = cupy_core::DeviceBuffer::dtype(ab);
    let bb = be.buf(op, "b", call.b.buffer, Some(dt))?;
    let cb = be.buf(op, "c", call.c.buffer, Some(dt))?;
    let (al, bl, cl) = (&call.a.layout, &call.b.layout, &call.c.layout);
    if al.ndim() != 3 || bl.ndim() != 3 || cl.ndim() != 3 {
        return Err(Error::invalid(
            op,
            "gemm layouts must be [batch, rows, cols]",
        ));
    }
    let (batch, m, k, n) = (al.shape[0], al.shape[1], al.shape[2], bl.shape[2]);
    check_layout(op, "a", al, &[batch, m, k], ab.len_elems())?;
    check_layout(op, "b", bl, &[batch, k, n], bb.len_elems())?;
    check_layout(op, "c", cl, &[batch, m, n], cb.len_elems())?;
    if !mem::non_overlapping(cl) {
        return Err(Error::invalid(
            op,
            format!("output layout {cl:?} addresses an element twice"),
        ));
    }
    if batch == 0 || m == 0 || n == 0 {
        return Ok(());
    }
    let dims = [batch, m, k, n];
    // Inputs that share c's buffer are copied first (faer must not see aliasing views), and so
    // are broadcast (zero-stride) matrices.
    let aliased = |p: *mut u8| p == cb.ptr();
    macro_rules! via_faer {
        ($t:ty, $one:expr) => {{
            // SAFETY: layouts checked above; copies are made where c aliases an input.
            unsafe {
                let mut tmp_a: Vec<$t> = vec![];
                let mut tmp_b: Vec<$t> = vec![];
                let a = if aliased(ab.ptr()) || al.strides[1] == 0 || al.strides[2] == 0 {
                    tmp_a = materialize(ab.ptr() as *const $t, al, |x| x);
                    Mat::contiguous(tmp_a.as_mut_ptr() as *mut u8, &[batch, m, k])
                } else {
                    Mat::of(ab.ptr(), al)
                };
                let b = if aliased(bb.ptr()) || bl.strides[1] == 0 || bl.strides[2] == 0 {
                    tmp_b = materialize(bb.ptr() as *const $t, bl, |x| x);
                    Mat::contiguous(tmp_b.as_mut_ptr() as *mut u8, &[batch, k, n])
                } else {
                    Mat::of(bb.ptr(), bl)
                };
                if k == 0 {
                    let z = vec![<$t>::from($one) - <$t>::from($one); batch * m * n];
                    write_back(cb.ptr() as *mut $t, cl, &z, |x| x);
                } else {
                    faer_gemm::<$t>(a, b, Mat::of(cb.ptr(), cl), dims, $one);
                }
                drop(tmp_a);
                drop(tmp_b);
            }
        }};
    }
    macro_rules! narrow {
        ($t:ty) => {{
            // SAFETY: layouts checked above.
            unsafe {
                let mut a =
                    materialize(ab.ptr() as *const u16, al, |x| <$t>::from_bits(x).to_f32());
                let mut b =
                    materialize(bb.ptr() as *const u16, bl, |x| <$t>::from_bits(x).to_f32());
                let mut c = vec![0f32; batch * m * n];
                if k > 0 {
                    faer_gemm::<f32>(
                        Mat::contiguous(a.as_mut_ptr() as *mut u8, &[batch, m, k]),
                        Mat::contiguous(b.as_mut_ptr() as *mut u8, &[batch, k, n]),
                        Mat::contiguous(c.as_mut_ptr() as *mut u8, &[batch, m, n]),
                        dims,
                        1.0,
                    );
                }
                write_back(cb.ptr() as *mut u16, cl, &c, |x| {
                    <$t>::from_f32(x).to_bits()
                });
            }
        }};
    }
    macro_rules! int {
        ($t:ty) => {{
            // SAFETY: layouts checked above; inputs are copied before c is written.
            unsafe {
                let a = materialize(ab.ptr() as *const $t, al, |x| x);
                let b = materialize(bb.ptr() as *const $t, bl, |x| x);
                let c = int_gemm(
                    &a,
                    &b,
                    dims,
                    0 as $t,
                    <$t>::wrapping_mul,
                    <$t>::wrapping_add,
                );
                write_back(cb.ptr() as *mut $t, cl, &c, |x| x);
            }
        }};
    }
    match dt {
        DType::Float32 => via_faer!(f32, 1.0f32),
        DType::Float64 => via_faer!(f64, 1.0f64),
        DType::Complex64 => via_faer!(Complex<f32>, Complex::new(1.0f32, 0.0)),
        DType::Complex128 => via_faer!(Complex<f64>, Complex::new(1.0f64, 0.0)),
        DType::Float16 => narrow!(f16),
        DType::BFloat16 => narrow!(bf16),
        DType::Int8 => int!(i8),
        DType::Int16 => int!(i16),
        DType::Int32 => int!(i32),
        DType::Int64 => int!(i64),
        DType::UInt8 => int!(u8),
        DType::UInt16 => int!(u16),
        DType::UInt32 => int!(u32),
        DType::UInt64 => int!(u64),
        DType::Bool => unsafe {
            // SAFETY: as above.
            let a = materialize(ab.ptr() as *const u8, al, |x| (x != 0) as u8);
            let b = materialize(bb.ptr() as *const u8, bl, |x| (x != 0) as u8);
            let c = int_gemm(&a, &b, dims, 0u8, |x, y| x & y, |x, y| x | y);
            write_back(cb.ptr(), cl, &c, |x| x);
        },
    }
    Ok(())
}

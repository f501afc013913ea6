//! The FFT primitive on the host: rustfft (complex) and realfft (real input/output), rayon
//! across rows. Plans come from one planner per precision kept for the process (the planners
//! cache every plan they made, so a length is planned once: the cpu backend's plan cache).

use crate::CpuBackend;
use cupy_core::fft::{FftCall, FftKind};
use cupy_core::{DType, Result};
use num_complex::Complex;
use rayon::prelude::*;
use realfft::RealFftPlanner;
use rustfft::{FftNum, FftPlanner};
use std::sync::{Mutex, OnceLock};

/// Work (elements) below which a call runs on the calling thread.
const PAR_MIN: usize = 1 << 15;

/// The planners of one precision (rustfft's and realfft's), behind a lock.
struct Planners<T: FftNum> {
    complex: FftPlanner<T>,
    real: RealFftPlanner<T>,
}

trait Planned: FftNum {
    fn planners() -> &'static Mutex<Planners<Self>>;
}

macro_rules! planned {
    ($t:ty) => {
        impl Planned for $t {
            fn planners() -> &'static Mutex<Planners<$t>> {
                static P: OnceLock<Mutex<Planners<$t>>> = OnceLock::new();
                P.get_or_init(|| {
                    Mutex::new(Planners {
                        complex: FftPlanner::new(),
                        real: RealFftPlanner::new(),
                    })
                })
            }
        }
    };
}
planned!(f32);
planned!(f64);

/// A pointer that may cross to rayon's threads (the rows it addresses are disjoint).
#[derive(Clone, Copy)]
struct Ptr(*mut u8);
// SAFETY: used only to address disjoint rows of buffers that outlive the call.
unsafe impl Send for Ptr {}
unsafe impl Sync for Ptr {}

/// How many rows one task takes: all of them when the work is small, else about four tasks
/// per thread.
fn rows_per_task(batch: usize, n: usize) -> usize {
    if batch * n < PAR_MIN || batch == 1 {
        return batch.max(1);
    }
    let tasks = rayon::current_num_threads() * 4;
    batch.div_ceil(tasks).max(1)
}

fn run<T: Planned>(kind: FftKind, n: usize, batch: usize, src: Ptr, dst: Ptr) {
    let (li, lo) = kind.row_lens(n);
    let per = rows_per_task(batch, n);
    // SAFETY (both slices): the call was validated: `batch * li` input elements and
    // `batch * lo` output elements from the given pointers (offsets applied), distinct buffers.
    match kind {
        FftKind::C2C { inverse } => {
            let plan = {
                let mut p = T::planners().lock().unwrap_or_else(|e| e.into_inner());
                if inverse {
                    p.complex.plan_fft_inverse(n)
                } else {
                    p.complex.plan_fft_forward(n)
                }
            };
            let input: &[Complex<T>] =
                unsafe { std::slice::from_raw_parts(src.0 as *const Complex<T>, batch * li) };
            let output: &mut [Complex<T>] =
                unsafe { std::slice::from_raw_parts_mut(dst.0 as *mut Complex<T>, batch * lo) };
            let one = |(o, i): (&mut [Complex<T>], &[Complex<T>])| {
                o.copy_from_slice(i);
                let mut scratch =
                    vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
                plan.process_with_scratch(o, &mut scratch);
            };
            if per < batch {
                output
                    .par_chunks_mut(per * n)
                    .zip(input.par_chunks(per * n))
                    .for_each(one);
            } else {
                one((output, input));
            }
        }
        FftKind::R2C => {
            let plan = {
                let mut p = T::planners().lock().unwrap_or_else(|e| e.into_inner());
                p.real.plan_fft_forward(n)
            };
            let input: &[T] = unsafe { std::slice::from_raw_parts(src.0 as *const T, batch * li) };
            let output: &mut [Complex<T>] =
                unsafe { std::slice::from_raw_parts_mut(dst.0 as *mut Complex<T>, batch * lo) };
            let one = |(o, i): (&mut [Complex<T>], &[T])| {
                let mut row = vec![T::zero(); n];
                let mut scratch = plan.make_scratch_vec();
                for (o, i) in o.chunks_mut(lo).zip(i.chunks(li)) {
                    row.copy_from_slice(i);
                    // Lengths match the plan, so this cannot fail.
                    let _ = plan.process_with_scratch(&mut row, o, &mut scratch);
                }
            };
            if per < batch {
                output
                    .par_chunks_mut(per * lo)
                    .zip(input.par_chunks(per * li))
                    .for_each(one);
            } else {
                one((output, input));
            }
        }
        FftKind::C2R => {
            let plan = {
                let mut p = T::planners().lock().unwrap_or_else(|e| e.into_inner());
                p.real.plan_fft_inverse(n)
            };
            let input: &[Complex<T>] =
                unsafe { std::slice::from_raw_parts(src.0 as *const Complex<T>, batch * li) };
            let output: &mut [T] =
                unsafe { std::slice::from_raw_parts_mut(dst.0 as *mut T, batch * lo) };
            let one = |(o, i): (&mut [T], &[Complex<T>])| {
                let mut row = vec![Complex::new(T::zero(), T::zero()); li];
                let mut scratch = plan.make_scratch_vec();
                for (o, i) in o.chunks_mut(lo).zip(i.chunks(li)) {
                    row.copy_from_slice(i);
                    // NumPy (pocketfft) ignores these imaginary parts; realfft wants them zero.
                    row[0].im = T::zero();
                    if n.is_multiple_of(2) {
                        row[li - 1].im = T::zero();
                    }
                    let _ = plan.process_with_scratch(&mut row, o, &mut scratch);
                }
            };
            if per < batch {
                output
                    .par_chunks_mut(per * lo)
                    .zip(input.par_chunks(per * li))
                    .for_each(one);
            } else {
                one((output, input));
            }
        }
    }
}

/// [`cupy_core::Backend::fft`] on the host.
pub(crate) fn fft(be: &CpuBackend, call: &FftCall<'_>) -> Result<()> {
    call.validate()?;
    let op = "fft";
    let ib = be.buf(op, "input", call.input.buffer, None)?;
    let ob = be.buf(op, "output", call.output.buffer, None)?;
    let batch = call.batch();
    if batch == 0 {
        return Ok(());
    }
    let (ti, to) = call.kind.dtypes(call.complex);
    // SAFETY: the offsets are inside the buffers (validated).
    let src = Ptr(unsafe { ib.ptr().add(call.input.layout.offset * ti.itemsize()) });
    let dst = Ptr(unsafe { ob.ptr().add(call.output.layout.offset * to.itemsize()) });
    if ib.ptr() == ob.ptr() {
        return Err(cupy_core::Error::invalid(
            op,
            "the input and output share a buffer",
        ));
    }
    if call.complex == DType::Complex64 {
        run::<f32>(call.kind, call.n, batch, src, dst);
    } else {
        run::<f64>(call.kind, call.n, batch, src, dst);
    }
    Ok(())
}

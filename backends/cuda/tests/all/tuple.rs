//! Tuple-accumulator reductions (argmax/argmin: value and index; var/std: count, mean, M2) on a
//! real CUDA device against the cpu backend (each GPU test skips with a notice without one):
//! every catalogue tuple kernel over a long 1-D input (split reduction: the partial buffer of
//! one segment per accumulator, then the finish entry), a contiguous inner axis (vectorized
//! entry), a transposed outer axis, two reduced axes of a strided 3-D view, and an empty
//! reduction. Indices must be equal; variances within a few ulps of the result dtype.

use crate::catalogue;
use cupy_core::backend::{Backend, BackendProvider, Operand, ReductionCall};
use cupy_core::kernel::ir::ReduceKernel;
use cupy_core::{DType, Layout, Scalar};
use cupy_cuda::{CudaBackend, CudaProvider};
use num_complex::Complex;

fn backend() -> Option<CudaBackend> {
    match CudaProvider.probe() {
        Ok(_) => Some(CudaBackend::open(0).expect("open cuda:0")),
        Err(why) => {
            eprintln!("NOTICE: no CUDA device ({why}); skipping GPU test");
            None
        }
    }
}

#[test]
fn tuple_reductions_match_the_cpu_backend() {
    let Some(be) = backend() else { return };
    tuple_vs_cpu(&be, (1 << 22) + 77);
}

/// The test's plumbing, run with the cpu backend against itself (no GPU needed).
#[test]
fn tuple_reductions_plumbing_on_the_cpu_backend() {
    tuple_vs_cpu(&cupy_cpu::CpuBackend::new(), 5000);
}

/// Element `i` of an input of dtype `d`: many ties for the arg-reductions (values from a small
/// set, the extremes repeated), NaNs late in the array for floats (so the first one must win
/// across blocks and splits); moderate spread for the moments.
fn value(k: &ReduceKernel, i: usize, n: usize) -> Scalar {
    let d = k.inputs[0];
    let arg = k.name.starts_with("arg");
    let h = (i.wrapping_mul(7919) ^ (i >> 7)) % 1009;
    let x = if arg {
        (h % 13) as f64 - 6.0
    } else {
        h as f64 / 100.0 - 3.0
    };
    let nan = arg && (i == n - n / 7 || i == n - 3 || i == n / 2 + 1);
    match d {
        DType::Bool => Scalar::Bool(h.is_multiple_of(3)),
        DType::Complex64 | DType::Complex128 => {
            let im = ((h * 31) % 7) as f64 - 3.0;
            let z = if nan {
                Complex::new(if i.is_multiple_of(2) { f64::NAN } else { 1.0 }, f64::NAN)
            } else {
                Complex::new(x, im)
            };
            Scalar::Complex128(z).cast(d)
        }
        d if d.is_float() && nan => Scalar::Float64(f64::NAN).cast(d),
        d if d.is_float() => Scalar::Float64(x).cast(d),
        d if d.is_integer() && !arg => Scalar::Float64((h as f64 - 500.0).abs()).cast(d),
        d => Scalar::Float64(x.abs() * 9.0).cast(d),
    }
}

/// (what, input length, layout, out shape, reduced shape).
type Case = (&'static str, usize, Layout, Vec<usize>, Vec<usize>);

fn tuple_vs_cpu(be: &dyn Backend, n: usize) {
    let cpu = cupy_cpu::CpuBackend::new();
    let (r, c) = (300usize, 1000usize);
    let mut fails = vec![];
    let mut runs = 0;
    for k in catalogue::tuple_reductions() {
        let d = k.inputs[0];
        // (what, input length, layout, out shape, reduced shape)
        let cases: Vec<Case> = vec![
            ("all (split)", n, Layout::contiguous(&[n]), vec![], vec![n]),
            (
                "axis 1",
                r * c,
                Layout::contiguous(&[r, c]),
                vec![r],
                vec![c],
            ),
            (
                "axis 0 (outer)",
                r * c,
                Layout {
                    shape: vec![c, r],
                    strides: vec![1, c as isize],
                    offset: 0,
                },
                vec![c],
                vec![r],
            ),
            (
                "axes (0, 2) of a strided view",
                6 * 10 * 40,
                // [6, 10, 40] with its last axis reversed and the middle one stepped by 2:
                // logical [6, 5, 40] -> output axis 1 (5), reduced axes 0 and 2.
                Layout {
                    shape: vec![5, 6, 40],
                    strides: vec![80, 400, -1],
                    offset: 39,
                },
                vec![5],
                vec![6, 40],
            ),
            ("empty", 4, Layout::contiguous(&[4, 0]), vec![4], vec![0]),
        ];
        for (what, len, lay, out_shape, red_shape) in cases {
            let mut bytes = vec![0u8; len * d.itemsize()];
            for i in 0..len {
                value(&k, i, len)
                    .write_le_bytes(&mut bytes[i * d.itemsize()..(i + 1) * d.itemsize()]);
            }
            let ddof = Scalar::Float64(1.0);
            let params: Vec<Scalar> = k.params.iter().map(|p| ddof.cast(*p)).collect();
            // Every output, in order, one after the other.
            let run = |b: &dyn Backend| -> Result<Vec<(DType, Scalar)>, String> {
                let x = b.alloc(d, len.max(1)).map_err(|e| e.to_string())?;
                b.write(&x, 0, &bytes).map_err(|e| e.to_string())?;
                let no = out_shape.iter().product::<usize>();
                let mut os = vec![];
                for j in 0..k.n_outputs() {
                    os.push(b.alloc(k.output_of(j), no).map_err(|e| e.to_string())?);
                }
                let operand = |o| Operand {
                    buffer: o,
                    layout: Layout::contiguous(&out_shape),
                };
                b.reduce(&ReductionCall {
                    kernel: &k,
                    out_shape: out_shape.clone(),
                    reduce_shape: red_shape.clone(),
                    inputs: vec![Operand {
                        buffer: &x,
                        layout: lay.clone(),
                    }],
                    output: operand(&os[0]),
                    extra_outputs: os[1..].iter().map(operand).collect(),
                    params: params.clone(),
                })
                .map_err(|e| e.to_string())?;
                let mut vals = vec![];
                for (j, o) in os.iter().enumerate() {
                    let raw = b.read(o, 0, no).map_err(|e| e.to_string())?;
                    let t = k.output_of(j);
                    vals.extend(
                        raw.chunks_exact(t.itemsize())
                            .map(|c| (t, Scalar::from_le_bytes(t, c))),
                    );
                }
                Ok(vals)
            };
            runs += 1;
            let (g, w) = match (run(be), run(&cpu)) {
                (Ok(g), Ok(w)) => (g, w),
                (g, w) => {
                    fails.push(format!("{} {what}: device {g:?}, cpu {w:?}", k.name));
                    continue;
                }
            };
            for (i, ((t, a), (_, b))) in g.iter().zip(&w).enumerate() {
                // Relative tolerance of the result dtype (variance sums regrouped).
                let tol = match t {
                    DType::Float16 => 4e-3,
                    DType::Float32 => 2e-5,
                    _ => 1e-12,
                };
                let ok = if !t.is_float() {
                    a == b
                } else {
                    let (x, y) = (a.to_f64(), b.to_f64());
                    (x.is_nan() && y.is_nan())
                        || x == y
                        || (x - y).abs() <= tol * y.abs().max(f64::MIN_POSITIVE)
                };
                if !ok {
                    fails.push(format!("{} {what}: [{i}] device {a:?}, cpu {b:?}", k.name));
                    break;
                }
            }
        }
    }
    assert!(
        fails.is_empty(),
        "{} of {runs} tuple reductions differ from the cpu backend:\n{}",
        fails.len(),
        fails.join("\n")
    );
    eprintln!("{runs} tuple reductions equal the cpu backend's");
}

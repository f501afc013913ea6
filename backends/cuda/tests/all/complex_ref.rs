//! Complex kernels checked against the cpu backend's evaluation of the same IR: inputs (a grid
//! of real and imaginary parts with zeros of both signs, infinities, NaN, tiny and huge values),
//! the cpu reference, and the comparison. Shared by the CUDA GPU test and the hip crate's host
//! emulation of the emitted C++ (which must agree bit for bit: same algorithms, same libm).

use cupy_core::backend::{Backend, ElementwiseCall, Operand};
use cupy_core::kernel::ir::{BinaryOp, Expr, ExprKind, Kernel, Stmt, UnaryOp};
use cupy_core::{DType, Layout, Scalar};

/// Real and imaginary parts of the complex inputs (every pair is used).
pub const PARTS: [f64; 29] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.75,
    1e-3,
    100.0,
    -7.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    0.75,
    1e-30,
    1e30,
    2.0,
    -0.1,
    0.6,
    0.8,
    1.0000001,
    0.99999,
    30.0,
    -30.0,
    800.0,
    -800.0,
    90.0,
    1e-310,
    1e300,
];

/// Values of the real inputs of casts (cast from float64 to the input's dtype).
pub const REALS: [f64; 22] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.75,
    100.0,
    -7.0,
    1e10,
    -1e10,
    3e38,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    65504.0,
    1e-8,
    255.0,
    256.0,
    -129.0,
    9007199254740993.0,
    0.1,
];

/// Elements per launch: every pair of [`PARTS`].
pub const N: usize = PARTS.len() * PARTS.len();

/// Input `j` of dtype `d`, element `i`.
pub fn value(d: DType, i: usize, j: usize) -> Scalar {
    if d.is_complex() {
        // Input 0 walks the grid in order, input 1 a permutation of it.
        let g = (i * (1 + 36 * j) + 11 * j) % N;
        let z = num_complex::Complex::new(PARTS[g / PARTS.len()], PARTS[g % PARTS.len()]);
        Scalar::Complex128(z).cast(d)
    } else {
        Scalar::Float64(REALS[(i * 7 + 3 * j) % REALS.len()]).cast(d)
    }
}

/// Parameter values (the catalogue's fill and ramp kernels take one complex parameter).
pub fn params(k: &Kernel) -> Vec<Scalar> {
    k.params
        .iter()
        .map(|d| Scalar::Complex128(num_complex::Complex::new(1.5, -0.25)).cast(*d))
        .collect()
}

/// Little-endian bytes of every input of `k` (`N` elements each).
pub fn input_bytes(k: &Kernel) -> Vec<Vec<u8>> {
    k.inputs
        .iter()
        .enumerate()
        .map(|(j, d)| {
            let mut b = vec![0u8; N * d.itemsize()];
            for i in 0..N {
                value(*d, i, j).write_le_bytes(&mut b[i * d.itemsize()..(i + 1) * d.itemsize()]);
            }
            b
        })
        .collect()
}

/// Runs `k` over `N` contiguous elements on `be`, returning each output's bytes.
pub fn run_on(be: &dyn Backend, k: &Kernel) -> Vec<Vec<u8>> {
    run_layout(be, k, false)
}

/// As [`run_on`]; `transposed`: a `[29, 29]` launch whose inputs are transposed views (the
/// strided and tiled launch classes) and whose outputs are C-contiguous.
pub fn run_layout(be: &dyn Backend, k: &Kernel, transposed: bool) -> Vec<Vec<u8>> {
    let r = PARTS.len();
    let (shape, li, lo) = if transposed {
        (
            vec![r, r],
            Layout {
                shape: vec![r, r],
                strides: vec![1, r as isize],
                offset: 0,
            },
            Layout::contiguous(&[r, r]),
        )
    } else {
        (vec![N], Layout::contiguous(&[N]), Layout::contiguous(&[N]))
    };
    let ins: Vec<_> = k
        .inputs
        .iter()
        .zip(input_bytes(k))
        .map(|(d, bytes)| {
            let b = be.alloc(*d, N).unwrap();
            be.write(&b, 0, &bytes).unwrap();
            b
        })
        .collect();
    let outs: Vec<_> = k.outputs.iter().map(|d| be.alloc(*d, N).unwrap()).collect();
    be.elementwise(&ElementwiseCall {
        kernel: k,
        shape,
        inputs: ins
            .iter()
            .map(|buffer| Operand {
                buffer,
                layout: li.clone(),
            })
            .collect(),
        outputs: outs
            .iter()
            .map(|buffer| Operand {
                buffer,
                layout: lo.clone(),
            })
            .collect(),
        raws: vec![],
        params: params(k),
    })
    .unwrap_or_else(|e| panic!("{} on {}: {e}", k.name, be.info().label()));
    outs.iter().map(|b| be.read(b, 0, N).unwrap()).collect()
}

/// The cpu backend's outputs of `k`.
pub fn cpu_outputs(k: &Kernel) -> Vec<Vec<u8>> {
    run_on(&cupy_cpu::CpuBackend::new(), k)
}

/// The cpu backend's outputs of `k` over the transposed layout of [`run_layout`].
#[allow(dead_code)]
pub fn cpu_outputs_transposed(k: &Kernel) -> Vec<Vec<u8>> {
    run_layout(&cupy_cpu::CpuBackend::new(), k, true)
}

/// True when the kernel computes a math function (libm-dependent rounding): `sqrt exp log sin
/// cos tan tanh`, `abs` (hypot) or `power` (exp(w log z) for non-integer exponents).
#[allow(dead_code)]
pub fn uses_libm(k: &Kernel) -> bool {
    let mut m = false;
    Stmt::visit_all(&k.body, &mut |s| {
        for e in s.exprs() {
            e.visit(&mut |n: &Expr| match &n.kind {
                ExprKind::Unary(op, _) => {
                    m |= op.is_transcendental() || matches!(op, UnaryOp::Sqrt | UnaryOp::Abs)
                }
                ExprKind::Binary(BinaryOp::Pow, ..) => m = true,
                _ => {}
            });
        }
    });
    m
}

fn key(bits: u64, size: usize) -> i128 {
    let sign = 1u64 << (size * 8 - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 {
        -mag
    } else {
        mag
    }
}

/// Compares two outputs of dtype `d`: NaN matches NaN (any payload); otherwise bit-exact when
/// `ulps == 0`, else infinities equal and each part within `ulps` units in the last place, or
/// the complex value within `ulps` ulps of its largest part (normwise).
pub fn compare(d: DType, got: &[u8], want: &[u8], ulps: u64) -> Result<(), String> {
    compare_with(d, got, want, ulps, false)
}

/// [`compare`] for `pow` when `any_sign_inf`: an infinite part only has to be infinite in both
/// (the sign of an overflowed part follows cos/sin of a huge phase, where libms differ), and
/// the normwise bound is `ulps * (4 + |ln |want||)`.
pub fn compare_with(
    d: DType,
    got: &[u8],
    want: &[u8],
    ulps: u64,
    any_sign_inf: bool,
) -> Result<(), String> {
    let (part, n) = if d.is_complex() {
        (d.real_dtype(), 2)
    } else {
        (d, 1)
    };
    let w = part.itemsize();
    let val = |b: &[u8], i: usize| -> (u64, f64) {
        let s = Scalar::from_le_bytes(part, &b[i * w..(i + 1) * w]);
        let mut raw = [0u8; 8];
        raw[..w].copy_from_slice(&b[i * w..(i + 1) * w]);
        (u64::from_le_bytes(raw), s.to_f64())
    };
    let mut bad = vec![];
    for e in 0..got.len() / (w * n) {
        let mut ok = true;
        let mut scale = 0f64;
        let mut err = 0f64;
        for p in 0..n {
            let (gb, g) = val(got, e * n + p);
            let (wb, x) = val(want, e * n + p);
            if !part.is_float() {
                ok &= gb == wb;
                continue;
            }
            if g.is_nan() || x.is_nan() {
                ok &= g.is_nan() && x.is_nan();
            } else if ulps == 0 {
                ok &= gb == wb;
            } else if g.is_infinite() || x.is_infinite() {
                ok &= if any_sign_inf {
                    g.is_infinite() && x.is_infinite()
                } else {
                    g == x
                };
            } else if (key(gb, w) - key(wb, w)).unsigned_abs() > ulps as u128 {
                // Judged normwise below (a part near zero next to a large one).
                err = err.max((g - x).abs());
            }
            if x.is_finite() {
                scale = scale.max(x.abs());
            }
        }
        if ok && err > 0.0 {
            let eps = if part == DType::Float32 {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
            // pow (`any_sign_inf`): exp(b log a) turns an absolute error in b log a into a
            // relative one in the result, so the bound grows with |ln |result|| (and with the
            // phase, which the result does not show: 4x the base bound).
            let allowed = if any_sign_inf {
                ulps as f64 * (4.0 + scale.ln().abs())
            } else {
                ulps as f64
            };
            ok = err <= allowed * eps * scale;
        }
        if !ok {
            bad.push(e);
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    let show = |b: &[u8], e: usize| {
        (0..n)
            .map(|p| format!("{:e}", val(b, e * n + p).1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "{} of {} elements differ, first: {}",
        bad.len(),
        got.len() / (w * n),
        bad.iter()
            .take(4)
            .map(|&e| format!("[{e}] got ({}) want ({})", show(got, e), show(want, e)))
            .collect::<Vec<_>>()
            .join("; ")
    ))
}

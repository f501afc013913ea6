//! Checks of every declared reduction's kernels without a device: each validates, every
//! backend's code generator takes it or refuses it with a dtype error, and the C++ of all of
//! them compiles with AMD's hipRTC (with `CUPY_REQUIRE_HIP=1`, as CI sets it), with and without
//! the `where=`/`initial=` rewrites.

use super::keywords::{masked, with_initial};
use cupy_core::dtype::DType;
use cupy_core::kernel::cpp::{emit_reduce, prelude, Flavor, ReduceSpec};
use cupy_core::kernel::ir::{Kernel, ReduceKernel};
use cupy_core::scalar::Scalar;

/// Every kernel the declared reductions build: each reduction, each dtype it takes, plain and
/// with a `where=` mask (and `initial=` where it takes one).
pub(crate) fn every_reduction_kernel() -> Vec<ReduceKernel> {
    let mut v = vec![];
    for r in super::all_reductions() {
        for &t in DType::ALL.iter() {
            let Ok((k, _)) = r.kernel(t, 8) else {
                continue;
            };
            k.validate()
                .unwrap_or_else(|e| panic!("{} of {t}: {e}", r.name()));
            if r.takes("where") {
                let m = masked(k.clone());
                m.validate()
                    .unwrap_or_else(|e| panic!("{} of {t} with where=: {e}", r.name()));
                v.push(m);
            }
            if r.takes("initial") {
                let i = with_initial(k.clone(), Scalar::Int64(3).cast(k.output))
                    .unwrap_or_else(|e| panic!("{} of {t} with initial=: {e}", r.name()));
                i.validate()
                    .unwrap_or_else(|e| panic!("{} of {t} with initial=: {e}", r.name()));
                v.push(i);
            }
            v.push(k);
        }
    }
    v
}

#[test]
fn reduction_kernels_emit_cpp() {
    let ks = every_reduction_kernel();
    assert!(ks.len() > 300, "{} kernels", ks.len());
    for (j, k) in ks.iter().enumerate() {
        let spec = ReduceSpec {
            out_ndim: 1 + j % 3,
            red_ndim: 1 + j % 2,
            index64: j % 2 == 0,
        };
        emit_reduce(k, &spec, Flavor::Cuda).unwrap_or_else(|e| panic!("{}: {e}", k.name));
    }
}

/// Every elementwise kernel of the statistics (the order statistics' gathers, ...).
pub(crate) fn every_statistics_kernel() -> Vec<Kernel> {
    let mut v = super::quantile::every_gather_kernel();
    v.extend(super::correlation::every_kernel());
    v.extend(super::histogram::every_kernel());
    let mut seen = std::collections::HashSet::new();
    v.retain(|k| seen.insert(k.clone()));
    for k in &v {
        k.validate().unwrap_or_else(|e| panic!("{}: {e}", k.name));
    }
    v
}

/// The C++ of the statistics' elementwise kernels (their launch class rotating), without the
/// prelude.
fn elementwise_sources(flavor: Flavor) -> Vec<String> {
    crate::testing::elementwise_cpp_sources(every_statistics_kernel(), flavor)
}

#[test]
fn statistics_kernels_emit_cpp() {
    assert!(!elementwise_sources(Flavor::Cuda).is_empty());
}

/// The dtypes the hipRTC check compiles, one per class as the HIP backend's own kernel test.
const HIP_DTYPES: [DType; 8] = [
    DType::Bool,
    DType::Int8,
    DType::Int64,
    DType::UInt8,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Complex128,
];

#[test]
fn hiprtc_compiles_every_statistics_kernel() {
    // Minutes of hipRTC time on a small machine: run where HIP is required (CI), skip elsewhere.
    if std::env::var_os("CUPY_REQUIRE_HIP").is_none() {
        eprintln!(
            "NOTICE: CUPY_REQUIRE_HIP is not set; reduction kernels not compiled with hipRTC"
        );
        return;
    }
    let rtc = cupy_hip::result::Rtc::get()
        .unwrap_or_else(|e| panic!("CUPY_REQUIRE_HIP is set but hipRTC is not loadable: {e}"));
    let pre = prelude(Flavor::Hip);
    let opts = cupy_hip::kernels::compile_options("gfx90a");
    // each distinct kernel once (nansum of an integer is sum's kernel, ...)
    let mut seen = std::collections::HashSet::new();
    let ks: Vec<ReduceKernel> = every_reduction_kernel()
        .into_iter()
        .filter(|k| HIP_DTYPES.contains(&k.inputs[0]))
        .filter(|k| {
            seen.insert(ReduceKernel {
                name: String::new(),
                ..k.clone()
            })
        })
        .collect();
    let sources: Vec<String> = ks
        .iter()
        .enumerate()
        .map(|(j, k)| {
            let mut k = k.clone();
            k.name = format!("{}_{j}", k.name);
            let spec = ReduceSpec {
                out_ndim: 1 + j % 3,
                red_ndim: 1 + j % 2,
                index64: j % 2 == 0,
            };
            let e =
                emit_reduce(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            e.source[pre.len()..].to_string()
        })
        .collect();
    let mut sources = sources;
    sources.extend(elementwise_sources(Flavor::Hip));
    // modules of a few dozen kernels keep each compile's memory and time small
    for (n, chunk) in sources.chunks(48).enumerate() {
        let src = format!("{pre}{}", chunk.concat());
        let t0 = std::time::Instant::now();
        if let Err(e) = rtc.compile(&src, &format!("reductions_{n}.hip"), &opts) {
            panic!("hipRTC refused statistics module {n}: {}", e.text);
        }
        eprintln!(
            "hipRTC gfx90a: statistics module {n} ({} kernels) in {:.1?}",
            chunk.len(),
            t0.elapsed()
        );
    }
}

/// A reduction's result as the real and imaginary parts of each element (float64), so results
/// of any dtype compare part by part.
fn result_parts(o: &crate::array::Array) -> cupy_core::error::Result<Vec<f64>> {
    let v = o
        .astype(DType::Complex128)?
        .to_vec::<num_complex::Complex<f64>>()?;
    Ok(v.iter().flat_map(|z| [z.re, z.im]).collect())
}

/// A kernel's `fold` (what the C++ backends run in each thread's loop, and the cpu and wgpu
/// never do) must give what `combine` gives when `b` is one mapped element: the cpu backend
/// runs each kernel with `combine` replaced by its `fold` over three elements (below eight it
/// folds them in order, each into the running value) and the result must equal the plain
/// kernel's, for values with NaN, infinities, signed zeros and ties. (The fold of `nanvar` once
/// counted its NaN elements, which map to the identity, as elements: CUDA alone gave NaN.)
#[test]
fn folds_agree_with_combines_on_one_element() {
    use crate::array::Array;
    use crate::statistics::reduction::{reduce_with, Axes};
    use cupy_core::BackendKind;
    let dev = crate::Device::get(BackendKind::Cpu, 0).expect("the cpu device");
    let triples = [
        [1.5, f64::NAN, 2.0],
        [f64::NAN, 2.0, -3.0],
        [f64::NAN, f64::NAN, f64::NAN],
        [-0.0, 0.0, -0.0],
        [3.0, 3.0, 1.0],
        [f64::NEG_INFINITY, 7.0, 1.0],
        [1.0, 1.0, f64::INFINITY],
        [2.0, -1.0, 0.25],
    ];
    let mut checked = 0;
    let mut failures = vec![];
    for r in super::all_reductions() {
        for &t in DType::ALL.iter() {
            let Ok((k, params)) = r.kernel(t, 2) else {
                continue;
            };
            let mut variants = vec![(k.clone(), false)];
            if r.takes("where") {
                variants.push((masked(k.clone()), true));
            }
            for (k, with_mask) in variants {
                if k.fold.is_empty() {
                    continue;
                }
                let tol = match k.output {
                    DType::Float16 | DType::BFloat16 | DType::Complex64 | DType::Float32 => 1e-3,
                    _ => 1e-12,
                };
                let mut by_fold = k.clone();
                by_fold.combine = k.fold.clone();
                by_fold.fold.clear();
                for host in &triples {
                    let a = Array::from_slice_on(&dev, host, &[3])
                        .and_then(|a| a.astype(t))
                        .expect("input");
                    let keep = [true, !host[1].is_nan(), true];
                    let m = Array::from_slice_on(&dev, &keep, &[3]).expect("mask");
                    let ins: Vec<&Array> = if with_mask { vec![&a, &m] } else { vec![&a] };
                    let run = |k: &ReduceKernel| {
                        reduce_with(r.name(), k, params.clone(), &ins, &Axes::All, false)
                    };
                    let (Ok(want), Ok(got)) = (run(&k), run(&by_fold)) else {
                        continue;
                    };
                    // bit for bit, or part by part both NaN or within a few roundings (Welford's
                    // update and Chan's merge round differently)
                    let parts = |o: &Array| result_parts(o).expect("read the result");
                    let same = want.to_bytes().ok() == got.to_bytes().ok()
                        || parts(&want).iter().zip(parts(&got)).all(|(a, b)| {
                            a == &b
                                || (a.is_nan() && b.is_nan())
                                || (a - b).abs() <= tol * a.abs().max(b.abs())
                        });
                    if !same {
                        failures.push(format!(
                            "{} of {t}{}: fold and combine differ on {host:?}: {:?} and {:?}",
                            r.name(),
                            if with_mask { " with where=" } else { "" },
                            parts(&want),
                            parts(&got)
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 50, "only {checked} fold checks ran");
}

/// The identity is an identity on both sides: with `where=` masking one of two elements out
/// (it maps to the identity), `[masked, x]` and `[x, masked]` reduce to the same value on the
/// cpu, whose loop starts from the first element. The GPU backends start from the identity, so
/// an identity that wins over an element (complex `nanmax` once returned its `nan+nanj` for an
/// all-NaN slice, where NumPy gives the slice's `nan+0j`) differs only there. Index results
/// (`argmax`, ...) are left out: they name the position.
#[test]
fn identities_pass_over_on_both_sides() {
    use crate::array::Array;
    use crate::statistics::reduction::{reduce_with, Axes};
    use cupy_core::BackendKind;
    let dev = crate::Device::get(BackendKind::Cpu, 0).expect("the cpu device");
    let values = [f64::NAN, -0.0, 2.5, f64::INFINITY, -7.0];
    let (mut checked, mut failures) = (0, vec![]);
    for r in super::all_reductions() {
        if !r.takes("where") || r.name().contains("arg") {
            continue;
        }
        for &t in DType::ALL.iter() {
            let Ok((k, params)) = r.kernel(t, 2) else {
                continue;
            };
            let k = masked(k);
            for &x in &values {
                let run = |host: [f64; 2], keep: [bool; 2]| -> cupy_core::error::Result<Vec<f64>> {
                    let a = Array::from_slice_on(&dev, &host, &[2])?.astype(t)?;
                    let m = Array::from_slice_on(&dev, &keep, &[2])?;
                    let o =
                        reduce_with(r.name(), &k, params.clone(), &[&a, &m], &Axes::All, false)?;
                    result_parts(&o)
                };
                let (Ok(left), Ok(right)) =
                    (run([1.0, x], [false, true]), run([x, 1.0], [true, false]))
                else {
                    continue;
                };
                let same = left
                    .iter()
                    .zip(&right)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
                if !same {
                    failures.push(format!(
                        "{} of {t}: [masked, {x}] gives {left:?}, [{x}, masked] {right:?}",
                        r.name()
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 100, "only {checked} identity checks ran");
}

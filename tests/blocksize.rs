//! `ElementwiseKernel`'s `block_size=` (issue 19): a power of two from 1 to 1024 that sets the
//! launch's block (cuda/hip) or workgroup (wgpu) size; the cpu backend ignores it. Results are
//! the same for every block size (checked exactly against values computed here); other values
//! are refused. The kernels compiled for blocks above 256 threads compile with hipRTC.

use crate::userkernel::{ensure, on_each};
use cupy::{Array, ElementwiseArgs, ElementwiseKernel};

const SIZES: [u32; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// The adapter may allow fewer than 1024 invocations per workgroup: then the refusal must name
/// the limit.
fn ok_or_limit(
    r: cupy::Result<Vec<Array>>,
    b: u32,
) -> std::result::Result<Option<Vec<Array>>, crate::common::CaseError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if b > 256 && e.to_string().contains("max_compute_") => {
            eprintln!("NOTICE: block_size {b} refused by the adapter's limit: {e}");
            Ok(None)
        }
        Err(e) => Err(format!("block_size {b}: {e}").into()),
    }
}

#[test]
fn block_size_sets_the_launch() {
    on_each("block_size_launch", |dev| {
        let kw = |b| ElementwiseArgs {
            block_size: Some(b),
            ..Default::default()
        };
        // Contiguous (and vectorizable) float32, 5003 elements: many blocks and a tail.
        let n = 5003usize;
        let xs: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.5 - 7.0).collect();
        let x = Array::from_slice_on(dev, &xs, &[n])?;
        let fma = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + 1", "bs_fma")?;
        let want: Vec<f32> = xs.iter().map(|&v| v * 3.0 + 1.0).collect();
        // A transposed (64, 80) view: strided (the tiled class on cuda/hip without block_size).
        let (r, c) = (64usize, 80usize);
        let ms: Vec<i32> = (0..r * c).map(|i| (i as i32 * 7) % 1001 - 500).collect();
        let m = Array::from_slice_on(dev, &ms, &[r, c])?;
        let mt = m.t();
        let neg = ElementwiseKernel::new("T x", "T y", "y = -x * 2", "bs_neg")?;
        let want_t: Vec<i32> = (0..c)
            .flat_map(|j| (0..r).map(move |i| (i, j)))
            .map(|(i, j)| -ms[i * c + j] * 2)
            .collect();
        // int8 outputs (packed four to a word on wgpu) and a raw scatter (reverse).
        let small = ElementwiseKernel::new("T x", "int8 y", "y = (signed char)(x % 100)", "bs_i8")?;
        let want8: Vec<i8> = ms.iter().map(|&v| (v % 100) as i8).collect();
        let rev = ElementwiseKernel::new(
            "raw T x",
            "raw T y",
            "y[_ind.size() - 1 - i] = x[i]",
            "bs_rev",
        )?;
        let mut want_rev = xs.clone();
        want_rev.reverse();
        // A counted loop per element.
        let lp = ElementwiseKernel::new(
            "T x",
            "T y",
            "T s = 0; for (int j = 0; j < 5; j++) { s += x; } y = s",
            "bs_loop",
        )?;
        let want5: Vec<f32> = xs.iter().map(|&v| v * 5.0).collect();
        for b in SIZES {
            let Some(z) = ok_or_limit(fma.call_args(&[(&x).into(), 3.0f32.into()], kw(b)), b)?
            else {
                continue;
            };
            ensure(z[0].to_vec::<f32>()? == want, format!("fma, block {b}"))?;
            let y = neg.call_args(&[(&mt).into()], kw(b))?;
            ensure(
                y[0].shape() == [c, r] && y[0].to_vec::<i32>()? == want_t,
                format!("transposed, block {b}"),
            )?;
            let y = small.call_args(&[(&m).into()], kw(b))?;
            ensure(y[0].to_vec::<i8>()? == want8, format!("int8, block {b}"))?;
            let y = rev.call_args(
                &[(&x).into()],
                ElementwiseArgs {
                    size: Some(n),
                    block_size: Some(b),
                    ..Default::default()
                },
            )?;
            ensure(
                y[0].to_vec::<f32>()? == want_rev,
                format!("reverse, block {b}"),
            )?;
            let y = lp.call_args(&[(&x).into()], kw(b))?;
            ensure(y[0].to_vec::<f32>()? == want5, format!("loop, block {b}"))?;
        }
        // More workgroups of one invocation than one grid dimension holds (65,535).
        let big = Array::from_slice_on(dev, &vec![2.0f32; 70_000], &[70_000])?;
        let z = fma.call_args(&[(&big).into(), 3.0f32.into()], kw(1))?;
        ensure(
            z[0].to_vec::<f32>()?.iter().all(|&v| v == 7.0),
            "70,000 blocks of 1",
        )?;
        // Not a power of two from 1 to 1024: refused, naming the rule.
        for b in [0u32, 3, 100, 768, 2048, u32::MAX] {
            match fma.call_args(&[(&x).into(), 3.0f32.into()], kw(b)) {
                Err(e) if e.to_string().contains("power of two from 1 to 1024") => {}
                Err(e) => return Err(format!("block_size {b}: {e}").into()),
                Ok(_) => return Err(format!("block_size {b} accepted").into()),
            }
        }
        Ok(())
    });
}

/// Kernels emitted for blocks of 512 and 1024 threads (`__launch_bounds__`) compile with
/// hipRTC for gfx90a, in each layout class a user's block size can run.
#[test]
fn block_size_kernels_compile_with_hiprtc() {
    use cupy::core::kernel::cpp::{
        emit_elementwise_bounded, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
    };
    let cpu = cupy::Device::get(cupy::BackendKind::Cpu, 0).expect("cpu");
    let x = Array::from_slice_on(&cpu, &[1.0f32, 2.0], &[2]).unwrap();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + 1", "bs_hip")
        .unwrap()
        .ir(&[(&x).into(), 3.0f32.into()], &[])
        .unwrap();
    let specs = [
        (1, ElementwiseClass::Contiguous),
        (1, ElementwiseClass::Vectorized),
        (2, ElementwiseClass::Strided),
    ];
    for (nd, class) in specs {
        for bound in [512usize, 1024] {
            let spec = ElementwiseSpec {
                ndim: nd,
                class,
                index64: false,
            };
            let e = emit_elementwise_bounded(&k, &spec, Flavor::Cuda, bound).unwrap();
            assert!(e.source.contains(&format!("__launch_bounds__({bound})")));
        }
    }
    assert!(emit_elementwise_bounded(
        &k,
        &ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Contiguous,
            index64: false,
        },
        Flavor::Cuda,
        2048
    )
    .is_err());
    let Some(rtc) = crate::common::hiprtc_or_skip() else {
        return;
    };
    let pre = prelude(Flavor::Hip);
    let mut body = String::new();
    let mut n = 0;
    for (nd, class) in specs {
        for bound in [512usize, 1024] {
            let mut k = k.clone();
            k.name = format!("bs_hip_{n}");
            n += 1;
            let spec = ElementwiseSpec {
                ndim: nd,
                class,
                index64: false,
            };
            let e = emit_elementwise_bounded(&k, &spec, Flavor::Hip, bound).unwrap();
            body.push_str(&e.source[pre.len()..]);
        }
    }
    let opts = cupy_hip::kernels::compile_options("gfx90a");
    if let Err(e) = rtc.compile(&format!("{pre}{body}"), "block_size.hip", &opts) {
        let log: Vec<&str> = e.log.lines().take(60).collect();
        panic!("hipRTC failed: {}\n{}", e.text, log.join("\n"));
    }
}

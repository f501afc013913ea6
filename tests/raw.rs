//! `RawKernel` / `RawModule`: backend-native kernels (WGSL on wgpu, CUDA C++ on cuda, HIP C++ on
//! hip) launched with explicit grid/block on every listed backend; the cpu refuses clearly.

use crate::common;
use cupy::Arg;
use cupy::{Array, BackendKind, DType, Device, Error, KernelArg, RawKernel, RawModule, SliceItem};

const SAXPY_WGSL: &str = r#"
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn saxpy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.n) {
        y[i] = p.a * x[i] + y[i];
    }
}

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.n) {
        y[i] = p.a * y[i];
    }
}
"#;

/// The same two kernels in CUDA/HIP C++ (the common subset).
const SAXPY_CPP: &str = r#"
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void scale(const float* x, float* y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * y[i];
}
"#;

/// The saxpy module in `dev`'s native language (`None` for the cpu).
fn source(dev: &Device) -> Option<&'static str> {
    match dev.kind() {
        BackendKind::Wgpu => Some(SAXPY_WGSL),
        BackendKind::Cuda | BackendKind::Hip => Some(SAXPY_CPP),
        BackendKind::Cpu => None,
    }
}

fn block(dev: &Device) -> u32 {
    if dev.kind() == BackendKind::Wgpu {
        64
    } else {
        128
    }
}

#[test]
fn saxpy_runs_on_every_gpu_backend() {
    for dev in common::backends() {
        let Some(src) = source(&dev) else { continue };
        let n = 1000usize;
        let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let ys: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let x = Array::from_slice_on(&dev, &xs, &[n]).unwrap();
        let y = Array::from_slice_on(&dev, &ys, &[n]).unwrap();
        let k = RawKernel::new(src, "saxpy");
        k.compile(&dev).unwrap();
        let b = block(&dev);
        let g = (n as u32).div_ceil(b);
        k.launch(
            g,
            b,
            &[(&x).into(), (&y).into(), 2.0f32.into(), (n as u32).into()],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", dev.label()));
        let got = y.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(got[i], 2.0 * xs[i] + ys[i], "{}: element {i}", dev.label());
        }
        // A module with two kernels; the second one through get_function and launch_with.
        let m = RawModule::new(src);
        m.compile(&dev).unwrap();
        let scale = m.get_function("scale").unwrap();
        scale
            .launch_with(
                &dev,
                (g, 1),
                (b, 1, 1),
                0,
                &[(&x).into(), (&y).into(), 0.5f32.into(), (n as u32).into()],
            )
            .unwrap();
        let got2 = y.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(got2[i], 0.5 * got[i], "{}: element {i}", dev.label());
        }
        // A contiguous view with an offset (64 float32 = 256 bytes, aligned for wgpu too):
        // the kernel sees the view's first element.
        let tail = y
            .slice(&[SliceItem::Slice {
                start: Some(64),
                stop: None,
                step: 1,
            }])
            .unwrap();
        let m = (n - 64) as u32;
        scale
            .launch(
                m.div_ceil(b),
                b,
                &[(&x).into(), (&tail).into(), 2.0f32.into(), m.into()],
            )
            .unwrap_or_else(|e| panic!("{}: {e}", dev.label()));
        let got3 = y.to_vec::<f32>().unwrap();
        for i in 0..n {
            let want = if i < 64 { got2[i] } else { 2.0 * got2[i] };
            assert_eq!(got3[i], want, "{}: element {i}", dev.label());
        }
        println!("RawKernel saxpy ran on {}", dev.label());
    }
}

#[test]
fn compile_errors_carry_the_log_and_position() {
    for dev in common::backends() {
        let (src, want) = match dev.kind() {
            BackendKind::Wgpu => (
                "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n\
                 @compute @workgroup_size(1)\nfn main() {\n    v[0] = undeclared;\n}\n",
                "wgsl:4:",
            ),
            BackendKind::Cuda | BackendKind::Hip => (
                "extern \"C\" __global__ void main_k(float* v) {\n  v[0] = undeclared;\n}\n",
                "undeclared",
            ),
            BackendKind::Cpu => continue,
        };
        let k = RawKernel::new(src, "main");
        let e = k.compile(&dev).unwrap_err();
        match &e {
            Error::Compile {
                log, source_code, ..
            } => {
                assert!(log.contains(want), "{}: {log}", dev.label());
                assert_eq!(source_code, src);
            }
            other => panic!("{}: expected a compile error, got {other}", dev.label()),
        }
        // The message shows the log and the source.
        let m = e.to_string();
        assert!(
            m.contains("undeclared") && m.contains("--- source ---"),
            "{m}"
        );
        // Launching reports the same error.
        let v = Array::zeros_on(&dev, &[4], DType::Float32).unwrap();
        let e = k.launch(1, 1, &[(&v).into()]).unwrap_err();
        assert!(matches!(e, Error::Compile { .. }), "{}: {e}", dev.label());
    }
}

#[test]
fn bad_grid_and_block_are_refused() {
    for dev in common::backends() {
        let Some(src) = source(&dev) else { continue };
        let x = Array::zeros_on(&dev, &[64], DType::Float32).unwrap();
        let y = Array::zeros_on(&dev, &[64], DType::Float32).unwrap();
        let k = RawKernel::new(src, "saxpy");
        let args: [KernelArg; 4] = [(&x).into(), (&y).into(), 1.0f32.into(), 64u32.into()];
        let e = k.launch(0, block(&dev), &args).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. }),
            "{}: {e}",
            dev.label()
        );
        // wgpu: block must be the @workgroup_size; CUDA/HIP: at most 1024 threads.
        let bad = if dev.kind() == BackendKind::Wgpu {
            32
        } else {
            2048
        };
        let e = k.launch(1, bad, &args).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("RawKernel saxpy"),
            "{}: {e}",
            dev.label()
        );
        println!("{}: {e}", dev.label());
    }
}

#[test]
fn arrays_must_be_contiguous_and_on_one_device() {
    for dev in common::backends() {
        let a = Array::zeros_on(&dev, &[4, 4], DType::Float32).unwrap();
        let t = a.t();
        let k = RawKernel::new("whatever", "k");
        let e = k.launch(1, 1, &[(&t).into()]).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("C-contiguous"),
            "{}: {e}",
            dev.label()
        );
        let s = a
            .slice(&[SliceItem::Slice {
                start: None,
                stop: None,
                step: 2,
            }])
            .unwrap();
        assert!(k.launch(1, 1, &[(&s).into()]).is_err());
    }
    let Some((d0, d1)) = common::backend_pair() else {
        println!("device mismatch: skipped (needs two backends, e.g. CUPY_TEST_BACKENDS=cpu,wgpu)");
        return;
    };
    let a = Array::zeros_on(&d0, &[4], DType::Float32).unwrap();
    let b = Array::zeros_on(&d1, &[4], DType::Float32).unwrap();
    let k = RawKernel::new("whatever", "k");
    let e = k.launch(1, 1, &[(&a).into(), (&b).into()]).unwrap_err();
    match &e {
        Error::DeviceMismatch { op, lhs, rhs } => {
            assert_eq!(op, "RawKernel k");
            assert_eq!((lhs, rhs), (&d0.label(), &d1.label()));
        }
        other => panic!("expected DeviceMismatch, got {other}"),
    }
    let e = k.launch_with(&d0, 1, 1, 0, &[(&b).into()]).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
}

#[test]
fn cpu_refuses_raw_kernels_clearly() {
    for dev in common::backends() {
        if dev.kind() != BackendKind::Cpu {
            continue;
        }
        let x = Array::zeros_on(&dev, &[4], DType::Float32).unwrap();
        let k = RawKernel::new(SAXPY_CPP, "saxpy");
        let e = k.launch(1, 4, &[(&x).into(), 1.0f32.into()]).unwrap_err();
        let m = e.to_string();
        assert!(
            matches!(e, Error::Unsupported { .. })
                && m.contains("RawKernel saxpy")
                && m.contains("GPU backend")
                && m.contains("ElementwiseKernel"),
            "{m}"
        );
        let e = RawModule::new(SAXPY_CPP).compile(&dev).unwrap_err();
        assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    }
}

#[test]
fn scalars_are_typed() {
    // Typed Rust values keep their dtype; weak ufunc Args take CuPy's Python-scalar dtypes.
    let s = |a: KernelArg| match a {
        KernelArg::Scalar(s) => s.dtype(),
        KernelArg::Weak(w) => match w {
            cupy::WeakScalar::Int(_) => DType::Int64,
            cupy::WeakScalar::Float(_) => DType::Float64,
            cupy::WeakScalar::Bool(_) => DType::Bool,
            cupy::WeakScalar::Complex(_) => DType::Complex128,
        },
        KernelArg::Array(a) => a.dtype(),
    };
    assert_eq!(s(5i32.into()), DType::Int32);
    assert_eq!(s(5u8.into()), DType::UInt8);
    assert_eq!(s(2.0f32.into()), DType::Float32);
    assert_eq!(s(2.0f64.into()), DType::Float64);
    assert_eq!(s(true.into()), DType::Bool);
    assert_eq!(s(Arg::from(5i32).into()), DType::Int64);
    assert_eq!(s(Arg::from(2.0f32).into()), DType::Float64);
    assert!(RawModule::new("").get_function("not a name").is_err());
    // On wgpu a scalar of the wrong type is refused with the struct it was packed as.
    for dev in common::backends() {
        if dev.kind() != BackendKind::Wgpu {
            continue;
        }
        let x = Array::zeros_on(&dev, &[64], DType::Float32).unwrap();
        let y = Array::zeros_on(&dev, &[64], DType::Float32).unwrap();
        let k = RawKernel::new(SAXPY_WGSL, "saxpy");
        let e = k
            .launch(
                1,
                64,
                &[
                    (&x).into(),
                    (&y).into(),
                    1.0f32.into(),
                    Arg::from(64).into(),
                ],
            )
            .unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. })
                && e.to_string().contains("a1: i64")
                && e.to_string().contains("u32"),
            "{e}"
        );
    }
}

/// CuPy's `RawModule(code, name_expressions=["my_sqrt<int>", ...])`: a `__global__` function
/// template instantiated by NVRTC/hipRTC for each expression, and `get_function` taking the
/// expression (the kernel is its lowered name). Runs on cuda and hip when listed in
/// `CUPY_TEST_BACKENDS`; wgpu refuses name expressions (WGSL has no templates).
#[test]
fn name_expressions_select_template_instances() {
    const TMPL: &str = r#"
template<typename T> __global__ void twice_plus(T* x, T c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * (T)2 + c;
}
"#;
    for dev in common::backends() {
        let m =
            RawModule::new(TMPL).with_name_expressions(&["twice_plus<int>", "twice_plus<float>"]);
        assert!(
            m.get_function("twice_plus<double>").is_err(),
            "not a listed expression"
        );
        match dev.kind() {
            BackendKind::Cuda | BackendKind::Hip => {}
            BackendKind::Wgpu => {
                let e = m.compile(&dev).unwrap_err();
                assert!(
                    matches!(e, Error::Unsupported { .. })
                        && e.to_string().contains("name_expressions"),
                    "{e}"
                );
                continue;
            }
            BackendKind::Cpu => continue,
        }
        m.compile(&dev)
            .unwrap_or_else(|e| panic!("{}: {e}", dev.label()));
        let n = 300usize;
        let xi = Array::from_slice_on(&dev, &(0..n as i32).collect::<Vec<_>>(), &[n]).unwrap();
        let xf: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
        let xf_dev = Array::from_slice_on(&dev, &xf, &[n]).unwrap();
        let ki = m.get_function("twice_plus<int>").unwrap();
        let kf = m.get_function("twice_plus<float>").unwrap();
        let g = (n as u32).div_ceil(128);
        ki.launch(g, 128, &[(&xi).into(), 5i32.into(), (n as i32).into()])
            .unwrap_or_else(|e| panic!("{}: {e}", dev.label()));
        kf.launch(
            g,
            128,
            &[(&xf_dev).into(), 0.5f32.into(), (n as i32).into()],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", dev.label()));
        let gi = xi.to_vec::<i32>().unwrap();
        let gf = xf_dev.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(gi[i], 2 * i as i32 + 5, "{}: int element {i}", dev.label());
            assert_eq!(
                gf[i],
                xf[i] * 2.0 + 0.5,
                "{}: float element {i}",
                dev.label()
            );
        }
        // A name that is neither an expression of the module nor an extern "C" kernel.
        let e = m
            .get_function("twice_plus")
            .unwrap()
            .launch(1, 1, &[(&xi).into(), 1i32.into(), 1i32.into()])
            .unwrap_err();
        assert!(matches!(e, Error::Compile { .. }), "{}: {e}", dev.label());
        println!("RawModule name_expressions ran on {}", dev.label());
    }
}

//! Raw CUDA C++ kernels (`RawKernel` / `RawModule`): launch limits and options without a GPU,
//! NVRTC compilation, by-value scalars of every size, offsets and errors on a GPU (skipping
//! with a notice when there is none).

use cupy_core::backend::{Backend, BackendProvider, Buffer, NativeLanguage, RawArg, RawLaunch};
use cupy_core::{DType, Error, Scalar};
use cupy_cuda::compile::raw_options;
use cupy_cuda::{check_raw_dims, CudaBackend, CudaProvider};
use half::{bf16, f16};
use num_complex::Complex;
use std::sync::atomic::Ordering;

fn backend() -> Option<CudaBackend> {
    match CudaProvider.probe() {
        Ok(_) => Some(CudaBackend::open(0).expect("open cuda:0")),
        Err(why) => {
            eprintln!("NOTICE: no CUDA device ({why}); skipping GPU test");
            None
        }
    }
}

fn up_f32(be: &CudaBackend, v: &[f32]) -> Buffer {
    let b = be.alloc(DType::Float32, v.len()).unwrap();
    be.write(&b, 0, bytemuck::cast_slice(v)).unwrap();
    b
}

fn launch(
    be: &CudaBackend,
    src: &str,
    name: &str,
    options: &[String],
    grid: [u32; 3],
    block: [u32; 3],
    args: &[RawArg<'_>],
) -> cupy_core::Result<()> {
    be.raw_launch(&RawLaunch {
        source: src,
        name,
        options,
        grid,
        block,
        shared_mem: 0,
        args,
        name_expressions: &[],
    })
}

#[test]
fn raw_launch_limits_are_checked_before_the_driver() {
    assert!(check_raw_dims("k", [1, 1, 1], [1024, 1, 1]).is_ok());
    assert!(check_raw_dims("k", [1 << 20, 65535, 2], [32, 32, 1]).is_ok());
    for (g, b) in [
        ([0, 1, 1], [32, 1, 1]),
        ([1, 1, 1], [0, 1, 1]),
        ([1, 1, 1], [2048, 1, 1]),
        ([1, 1, 1], [64, 32, 1]),
        ([1, 1, 1], [1, 1, 128]),
        ([1, 65536, 1], [1, 1, 1]),
    ] {
        let e = check_raw_dims("RawKernel k", g, b).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("RawKernel k"),
            "{g:?} {b:?}: {e}"
        );
    }
}

#[test]
fn raw_options_add_arch_unless_given() {
    let o = raw_options("sm_90", &["-DN=4".into()]);
    assert_eq!(o, vec!["--gpu-architecture=sm_90", "-std=c++17", "-DN=4"]);
    let o = raw_options("sm_90", &["-arch=compute_80".into(), "--std=c++14".into()]);
    assert_eq!(o, vec!["-arch=compute_80", "--std=c++14"]);
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

#[test]
fn raw_saxpy_with_offsets_and_cache() {
    let Some(be) = backend() else { return };
    assert_eq!(be.native_language(), Some(NativeLanguage::Cuda));
    let n = 1000usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let (x, y) = (up_f32(&be, &xs), up_f32(&be, &ys));
    let m = 900u32; // y[i + 100] += 2 * x[i] for i < 900: offset on y
    let args = [
        RawArg::Buffer {
            buffer: &x,
            offset: 0,
        },
        RawArg::Buffer {
            buffer: &y,
            offset: 100,
        },
        RawArg::Scalar(Scalar::Float32(2.0)),
        RawArg::Scalar(Scalar::UInt32(m)),
    ];
    launch(&be, SAXPY, "saxpy", &[], [4, 1, 1], [256, 1, 1], &args).unwrap();
    let compiles = be.compile_stats().compiles.load(Ordering::Relaxed);
    launch(&be, SAXPY, "saxpy", &[], [4, 1, 1], [256, 1, 1], &args).unwrap();
    assert_eq!(
        be.compile_stats().compiles.load(Ordering::Relaxed),
        compiles,
        "second launch hits the module cache"
    );
    let got: Vec<f32> = bytemuck::cast_slice(&be.read(&y, 0, n).unwrap()).to_vec();
    for i in 0..n {
        let want = if i >= 100 {
            ys[i] + 4.0 * (i - 100) as f32
        } else {
            ys[i]
        };
        assert_eq!(got[i], want, "element {i}");
    }
    // Options are part of the key: -D changes the module.
    let src = "extern \"C\" __global__ void setv(float* y) { y[threadIdx.x] = VALUE; }";
    for v in ["1.5f", "2.5f"] {
        let opt = vec![format!("-DVALUE={v}")];
        launch(
            &be,
            src,
            "setv",
            &opt,
            [1, 1, 1],
            [4, 1, 1],
            &[RawArg::Buffer {
                buffer: &y,
                offset: 0,
            }],
        )
        .unwrap();
        let got: Vec<f32> = bytemuck::cast_slice(&be.read(&y, 0, 4).unwrap()).to_vec();
        assert_eq!(
            got,
            vec![v.trim_end_matches('f').parse::<f32>().unwrap(); 4]
        );
    }
}

#[test]
fn raw_scalars_have_their_c_sizes() {
    let Some(be) = backend() else { return };
    let src = r#"
struct c64 { float re, im; };
struct c128 { double re, im; };
extern "C" __global__ void scalars(bool b, signed char i8, unsigned short h, unsigned short bh,
                                   short i16, long long i64, c64 z, double d, c128 w, float f,
                                   double* out) {
    out[0] = b ? 1.0 : 0.0;
    out[1] = i8;
    out[2] = h;
    out[3] = bh;
    out[4] = i16;
    out[5] = (double)i64;
    out[6] = z.re; out[7] = z.im;
    out[8] = d;
    out[9] = w.re; out[10] = w.im;
    out[11] = f;
}
"#;
    let out = be.alloc(DType::Float64, 12).unwrap();
    let h = f16::from_f32(1.5);
    let bh = bf16::from_f32(-2.0);
    let args = [
        RawArg::Scalar(Scalar::Bool(true)),
        RawArg::Scalar(Scalar::Int8(-7)),
        RawArg::Scalar(Scalar::Float16(h)),
        RawArg::Scalar(Scalar::BFloat16(bh)),
        RawArg::Scalar(Scalar::Int16(-300)),
        RawArg::Scalar(Scalar::Int64(1 << 40)),
        RawArg::Scalar(Scalar::Complex64(Complex::new(0.5, -0.25))),
        RawArg::Scalar(Scalar::Float64(3.25)),
        RawArg::Scalar(Scalar::Complex128(Complex::new(1e300, -1e-300))),
        RawArg::Scalar(Scalar::Float32(6.5)),
        RawArg::Buffer {
            buffer: &out,
            offset: 0,
        },
    ];
    launch(&be, src, "scalars", &[], [1, 1, 1], [1, 1, 1], &args).unwrap();
    let got: Vec<f64> = bytemuck::cast_slice(&be.read(&out, 0, 12).unwrap()).to_vec();
    assert_eq!(
        got,
        vec![
            1.0,
            -7.0,
            h.to_bits() as f64,
            bh.to_bits() as f64,
            -300.0,
            (1u64 << 40) as f64,
            0.5,
            -0.25,
            3.25,
            1e300,
            -1e-300,
            6.5
        ]
    );
}

#[test]
fn raw_errors_name_the_kernel() {
    let Some(be) = backend() else { return };
    // Compile error: NVRTC's log (with a line number) and the source.
    let src = "extern \"C\" __global__ void bad(float* y) {\n  y[0] = undeclared;\n}\n";
    let e = be.raw_compile(src, &[], &[]).unwrap_err();
    let Error::Compile {
        log, source_code, ..
    } = &e
    else {
        panic!("{e}")
    };
    assert!(log.contains("undeclared") && log.contains("(2)"), "{log}");
    assert_eq!(source_code, src);
    // Unknown (or mangled) kernel name.
    let y = up_f32(&be, &[0.0; 4]);
    let args = [RawArg::Buffer {
        buffer: &y,
        offset: 0,
    }];
    let e = launch(&be, SAXPY, "nope", &[], [1, 1, 1], [1, 1, 1], &args).unwrap_err();
    assert!(
        matches!(e, Error::Compile { .. }) && e.to_string().contains("nope"),
        "{e}"
    );
    // Bad block and offsets are refused before the driver.
    let e = launch(&be, SAXPY, "saxpy", &[], [1, 1, 1], [2048, 1, 1], &args).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let past = [RawArg::Buffer {
        buffer: &y,
        offset: 5,
    }];
    let e = launch(&be, SAXPY, "saxpy", &[], [1, 1, 1], [1, 1, 1], &past).unwrap_err();
    assert!(e.to_string().contains("past the end"), "{e}");
    // Too much dynamic shared memory: a clear error, not a crash.
    let e = be
        .raw_launch(&RawLaunch {
            source: SAXPY,
            name: "saxpy",
            options: &[],
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_mem: 64 << 20,
            args: &args,
            name_expressions: &[],
        })
        .unwrap_err();
    assert!(e.to_string().contains("saxpy"), "{e}");
    be.synchronize().unwrap();
}

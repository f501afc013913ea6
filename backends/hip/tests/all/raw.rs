//! Raw HIP C++ modules (`RawKernel` / `RawModule` on the HIP backend) without an AMD GPU:
//! compiled by hipRTC for AMD targets through the backend's own raw compile path (options,
//! disk cache), and compile errors reported as `Error::Compile` with hipRTC's positioned log.

use cupy_core::Error;
use cupy_hip::raw::compile_raw;
use cupy_hip::result::Rtc;

const SAXPY: &str = r#"
struct c64 { float re, im; };
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] + VALUE;
}
extern "C" __global__ void scalars(bool b, signed char c, unsigned short h, long long q, c64 z,
                                   double d, double* out) {
    __shared__ double tile[64];
    tile[threadIdx.x] = (b ? 1.0 : 0.0) + c + h + (double)q + z.re + z.im + d;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = tile[63];
}
"#;

#[test]
fn raw_hip_modules_compile_for_amd_targets_and_errors_carry_the_log() {
    if let Err(e) = Rtc::get() {
        let _ = crate::skip(&format!("hipRTC not loadable: {e}"));
        return;
    }
    // A private disk cache for this test (no other test in this binary uses the cache).
    let dir = std::env::temp_dir().join(format!("cupy-hip-raw-{}", std::process::id()));
    std::env::set_var("CUPY_CACHE_DIR", &dir);
    let opts = vec!["-DVALUE=0.5f".to_string()];
    for arch in ["gfx90a", "gfx1030", "gfx90a:sramecc+:xnack-"] {
        let code = compile_raw("hip:test", "saxpy", SAXPY, arch, &opts)
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert!(code.len() > 1000, "{arch}: {} bytes", code.len());
        // The second compile is served by the disk cache: same bytes.
        let again = compile_raw("hip:test", "saxpy", SAXPY, arch, &opts).unwrap();
        assert_eq!(code, again);
        eprintln!("hipRTC {arch}: raw module of {} bytes", code.len());
    }
    let cached = std::fs::read_dir(dir.join("hip"))
        .map(|r| r.count())
        .unwrap_or(0);
    assert_eq!(cached, 3, "one cached code object per target");
    // Without -DVALUE the source does not compile: Error::Compile with the positioned log.
    let e = compile_raw("hip:test", "saxpy", SAXPY, "gfx90a", &[]).unwrap_err();
    match &e {
        Error::Compile {
            backend,
            kernel,
            log,
            source_code,
        } => {
            assert_eq!(kernel, "saxpy");
            assert!(backend.contains("gfx90a"), "{backend}");
            assert!(
                log.contains("VALUE") && log.contains(":5:41: error"),
                "{log}"
            );
            assert_eq!(source_code, SAXPY);
        }
        other => panic!("expected a compile error, got {other}"),
    }
    eprintln!("{e}");
    name_expressions_are_lowered(&dir);
    std::env::remove_var("CUPY_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
}

/// CuPy's `RawModule(code, name_expressions=[...])` on HIP: hipRTC instantiates the template for
/// each expression (`hiprtcAddNameExpression`) and gives its lowered (mangled) name
/// (`hiprtcGetLoweredName`), which the disk cache keeps with the code object; an expression
/// that names no kernel is a compile error naming it. Run by the test above, after its count
/// of cached objects (the two share its private cache directory).
fn name_expressions_are_lowered(dir: &std::path::Path) {
    use cupy_hip::raw::compile_raw_named;
    let before = std::fs::read_dir(dir.join("hip")).map_or(0, |r| r.count());
    const TMPL: &str = r#"
template<typename T> __global__ void my_sqrt(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (T)sqrt((double)x[i]);
}
extern "C" __global__ void plain(float* x) { x[0] = 1.0f; }
"#;
    let names: Vec<String> = ["my_sqrt<int>", "my_sqrt<float>", "plain"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (code, lowered) =
        compile_raw_named("hip:test", "tmpl", TMPL, "gfx90a", &[], &names).unwrap();
    assert!(code.len() > 1000, "{} bytes", code.len());
    let want = [
        ("my_sqrt<int>", "_Z7my_sqrtIiEvPT_i"),
        ("my_sqrt<float>", "_Z7my_sqrtIfEvPT_i"),
        ("plain", "plain"),
    ];
    let got: Vec<(&str, &str)> = lowered
        .iter()
        .map(|(e, l)| (e.as_str(), l.as_str()))
        .collect();
    assert_eq!(got, want);
    // Served again by the disk cache (one more entry, the names stored with the code).
    let after = std::fs::read_dir(dir.join("hip")).map_or(0, |r| r.count());
    assert_eq!(after, before + 1);
    let (code2, again) =
        compile_raw_named("hip:test", "tmpl", TMPL, "gfx90a", &[], &names).unwrap();
    assert_eq!((code2, again), (code, lowered));
    let bad = compile_raw_named(
        "hip:test",
        "tmpl",
        TMPL,
        "gfx90a",
        &[],
        &["no_such_kernel<int>".to_string()],
    )
    .unwrap_err();
    assert!(
        matches!(&bad, Error::Compile { .. }) && bad.to_string().contains("no_such_kernel"),
        "{bad}"
    );
}

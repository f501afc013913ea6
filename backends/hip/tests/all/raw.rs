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
    std::env::remove_var("CUPY_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
}

//! The C++ prelude's `cp_r_hypot` and `cp_cabs` compiled for the host with g++ and run on edge
//! cases (huge, tiny and subnormal parts, infinities beside NaNs), checked against the C
//! library's `hypot` as Rust calls it (glibc's, which NumPy calls): once over the host's
//! `hypot`, and once over a naive `sqrt(fma(x, x, y*y))` standing in for a device library that
//! overflows at the extremes (CUDA's gave `|1 + 1.797e308j| = inf`), which the prelude's
//! scaling must protect. The prelude is device code in the CUDA/HIP subset; a few shims
//! (`__device__`, the bit casts) make it host C++. Skipped with a notice when no `g++` is on
//! PATH.

use cupy_core::kernel::cpp::COMMON_PRELUDE;
use std::process::Command;

const SHIMS: &str = r#"
#include <math.h>
#include <stdio.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
#define __shared__
#define CP_WARP 32
#define CP_SHFL_DOWN(v, off) (v)
static inline float __uint_as_float(unsigned int u) { float f; memcpy(&f, &u, 4); return f; }
static inline unsigned int __float_as_uint(float f) { unsigned int u; memcpy(&u, &f, 4); return u; }
static inline double __longlong_as_double(long long u) { double f; memcpy(&f, &u, 8); return f; }
static inline long long __double_as_longlong(double f) { long long u; memcpy(&u, &f, 8); return u; }
"#;

/// A device library whose `hypot` squares without scaling (overflows past sqrt(max), loses
/// bits below sqrt(min)).
const NAIVE_HYPOT: &str = r#"
static inline double cp_naive_hypot(double x, double y) { return sqrt(fma(x, x, y * y)); }
static inline float cp_naive_hypotf(float x, float y) { return sqrtf(fmaf(x, x, y * y)); }
#define hypot cp_naive_hypot
#define hypotf cp_naive_hypotf
"#;

/// Operand pairs (as f64; the float32 run converts them).
const CASES: &[(f64, f64)] = &[
    (1.0, 1.797e308),
    (1.797e308, 1.0),
    (1.797e308, 1.797e308),
    (1.2e308, 1.2e308),
    (1e300, 1e300),
    (1e200, 1e-200),
    (3.0, 4.0),
    (-3.0, -4.0),
    (0.0, 0.0),
    (-0.0, 0.0),
    (1.0, 0.0),
    (1.0, 1e-20),
    (1e-300, 1e-300),
    (5e-324, 0.0),
    (5e-324, 5e-324),
    (1e-310, 3e-310),
    (2.2250738585072014e-308, 1e-320),
    (3.4e38, 1.0),
    (3.4e38, 3.4e38),
    (2.5e38, 2.5e38),
    (1e30, 1e30),
    (1e-45, 0.0),
    (1e-40, 3e-40),
    (1.1754944e-38, 1e-40),
    (1e-30, 1e-30),
    (0.1, 0.2),
    (123456.789, 0.000123),
    (f64::INFINITY, f64::NAN),
    (f64::NAN, f64::NEG_INFINITY),
    (f64::NAN, 1.0),
    (2.0, f64::NAN),
    (f64::NEG_INFINITY, 1.0),
];

fn program(naive: bool) -> String {
    let mut s = String::new();
    s.push_str(SHIMS);
    if naive {
        s.push_str(NAIVE_HYPOT);
    }
    s.push_str(COMMON_PRELUDE);
    s.push_str("\nint main() {\n");
    for &(x, y) in CASES {
        let (xb, yb) = (x.to_bits(), y.to_bits());
        let (xf, yf) = ((x as f32).to_bits(), (y as f32).to_bits());
        s.push_str(&format!(
            "  {{ double x = __longlong_as_double({xb}ll), y = __longlong_as_double({yb}ll);\n\
             \x20   float xf = __uint_as_float({xf}u), yf = __uint_as_float({yf}u);\n\
             \x20   printf(\"%llu %llu %u %u\\n\", (unsigned long long)__double_as_longlong(cp_r_hypot(x, y)),\n\
             \x20     (unsigned long long)__double_as_longlong(cp_cabs(cp_cmake(x, y))),\n\
             \x20     __float_as_uint(cp_r_hypot(xf, yf)), __float_as_uint(cp_cabs(cp_cmake(xf, yf)))); }}\n"
        ));
    }
    s.push_str("  return 0;\n}\n");
    s
}

/// Distance in ulps between two finite-or-infinite values of one sign class (NaN: both NaN).
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
}
fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
}

#[test]
fn prelude_hypot_never_overflows_for_finite_parts() {
    if Command::new("g++").arg("--version").output().is_err() {
        println!("notice: g++ not found; the prelude's host check is skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cupy_prelude_gxx_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for naive in [false, true] {
        check(&dir, naive);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn check(dir: &std::path::Path, naive: bool) {
    let src = dir.join(format!("hypot{}.cpp", naive as u8));
    let exe = dir.join(format!("hypot{}", naive as u8));
    std::fs::write(&src, program(naive)).unwrap();
    let out = Command::new("g++")
        .args(["-std=c++17", "-O2", "-ffp-contract=off", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "g++ failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), CASES.len());
    let mut bad = vec![];
    for (&(x, y), line) in CASES.iter().zip(&lines) {
        let v: Vec<u64> = line.split(' ').map(|t| t.parse().unwrap()).collect();
        let want = x.hypot(y);
        let (xf, yf) = (x as f32, y as f32);
        let wantf = xf.hypot(yf);
        for (what, got) in [("cp_r_hypot", v[0]), ("cp_cabs", v[1])] {
            let got = f64::from_bits(got);
            if ulps64(got, want) > 1 {
                bad.push(format!(
                    "{what}({x:e}, {y:e}) = {got:e}, want {want:e} (naive {naive})"
                ));
            }
        }
        for (what, got) in [("cp_r_hypot<float>", v[2]), ("cp_cabs<float>", v[3])] {
            let got = f32::from_bits(got as u32);
            if ulps32(got, wantf) > 1 {
                bad.push(format!(
                    "{what}({xf:e}, {yf:e}) = {got:e}, want {wantf:e} (naive {naive})"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The case of the report: |1 + 1.797e308j| is 1.797e308, not inf.
    let first: Vec<u64> = lines[0].split(' ').map(|t| t.parse().unwrap()).collect();
    assert_eq!(f64::from_bits(first[1]), 1.797e308);
}

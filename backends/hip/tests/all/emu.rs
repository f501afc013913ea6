//! Runs the hand-written kernels of `hip-kernels/` on the CPU through a small emulation of the
//! CUDA subset they use (`hip-kernels/emu/`), for warp sizes 32 and 64, and checks scans, sorts
//! (block path, radix path at tile and sub-tile boundaries, every key dtype, keys-only and
//! argsort, skipped passes; NaN, -0.0, ties) and the radix select against host results. No GPU needed: this checks the kernels' logic, hipRTC/NVRTC check that they compile.

use crate::hk_sources;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn hip_kernels_logic_under_cpu_emulation() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../hip-kernels/emu");
    let dir = std::env::temp_dir().join(format!("cupy-hk-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["emu.h", "emu_main.cpp"] {
        std::fs::copy(root.join(f), dir.join(f)).unwrap();
    }
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    // (warp size, extra define): both warp sizes with the defaults, and the sort passes'
    // other ranking (HK_SORT_RANK_STORES=0, the default until the twelfth session) at 32.
    for (warp, define) in [(32u32, ""), (64, ""), (32, "-DHK_SORT_RANK_STORES=0")] {
        for (file, text) in [
            ("scan_emu.h", hk_sources::SCAN_CU),
            ("radix_sort_emu.h", hk_sources::RADIX_SORT_CU),
        ] {
            let src = hk_sources::assemble(text, warp).replace("extern \"C\" ", "");
            std::fs::write(dir.join(file), src).unwrap();
        }
        let exe = dir.join(format!("emu{warp}{}", define.len()));
        let out = match Command::new(&compiler)
            .current_dir(&dir)
            .args(["-std=c++20", "-O1", "-w", "-pthread"])
            .arg(format!("-DHK_WARP_SIZE={warp}"))
            .args((!define.is_empty()).then_some(define))
            .arg("emu_main.cpp")
            .arg("-o")
            .arg(&exe)
            .output()
        {
            Ok(o) => o,
            Err(e) => {
                eprintln!("NOTICE: C++ compiler {compiler:?} could not run ({e}); skipped");
                return;
            }
        };
        assert!(
            out.status.success(),
            "building the emulation failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Every case at both warp sizes: seconds, with the emulation's threads as fibers.
        let run = Command::new(&exe).output().unwrap();
        let log = String::from_utf8_lossy(&run.stdout);
        eprintln!("warp {warp} {define}:\n{log}");
        assert!(
            run.status.success(),
            "emulated kernels failed (warp {warp} {define}):\n{log}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hip-kernels/solver.cu` (the helpers of the shared solver plans) under the same emulation:
/// det/slogdet with 32- and 64-bit pivots, fills, the non-finite chain and QR's set-up, against
/// values worked out by hand (`hip-kernels/emu/solver_emu_main.cpp`).
#[test]
fn solver_kernels_logic_under_cpu_emulation() {
    use cupy_core::gpu::solver::kernels::SOLVER_CU;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../hip-kernels/emu");
    let dir = std::env::temp_dir().join(format!("cupy-hk-solver-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["emu.h", "solver_emu_main.cpp"] {
        std::fs::copy(root.join(f), dir.join(f)).unwrap();
    }
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let warp = 32u32;
    let src = hk_sources::assemble(SOLVER_CU, warp).replace("extern \"C\" ", "");
    std::fs::write(dir.join("solver_emu.h"), src).unwrap();
    let exe = dir.join("solver_emu");
    let out = match Command::new(&compiler)
        .current_dir(&dir)
        .args(["-std=c++20", "-O1", "-w", "-pthread"])
        .arg(format!("-DHK_WARP_SIZE={warp}"))
        .arg("solver_emu_main.cpp")
        .arg("-o")
        .arg(&exe)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("NOTICE: C++ compiler {compiler:?} could not run ({e}); skipped");
            return;
        }
    };
    assert!(
        out.status.success(),
        "building the solver emulation failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let log = String::from_utf8_lossy(&run.stdout);
    eprintln!("{log}");
    assert!(
        run.status.success(),
        "emulated solver kernels failed:\n{log}"
    );
    assert!(log.contains("checks passed"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! The real HIP runtime without an AMD GPU: probing fails with a clear reason, opening the
//! backend fails with `BackendUnavailable`, and a missing library is reported with its paths.

use cupy_core::{BackendKind, BackendProvider, Error};
use cupy_hip::result::{version_string, Hip};
use cupy_hip::HipProvider;

#[test]
fn missing_library_names_the_paths_tried() {
    let e = cupy_hip::sys::open_first("libnothing", &["libcupy-definitely-missing.so.9"], None)
        .unwrap_err();
    assert!(e.contains("libnothing not found"), "{e}");
    assert!(e.contains("libcupy-definitely-missing.so.9"), "{e}");
    assert!(e.contains("/opt/rocm/lib"), "{e}");
}

#[test]
fn probe_without_gpu_explains_why() {
    let hip = match Hip::get() {
        Ok(h) => h,
        Err(e) => {
            // Without ROCm the probe's reason is the loader's.
            let r = HipProvider.probe().unwrap_err();
            assert!(r.contains("libamdhip64"), "{r}");
            let _ = crate::skip(&format!("HIP runtime not loadable: {e}"));
            return;
        }
    };
    let v = hip
        .runtime_version()
        .expect("hipRuntimeGetVersion works without a GPU");
    eprintln!("HIP runtime {} from {}", version_string(v), hip.lib.path);
    match HipProvider.probe() {
        Ok(devs) => {
            // A machine with an AMD GPU: nothing to check here beyond a sane listing.
            assert!(!devs.is_empty());
            for d in devs {
                eprintln!("HIP device: {} -- {}", d.label(), d.details);
            }
        }
        Err(reason) => {
            eprintln!("probe: {reason}");
            assert!(
                reason.contains(&format!("HIP runtime {}", version_string(v))),
                "{reason}"
            );
            assert!(reason.contains("hipErrorNoDevice (100)"), "{reason}");
            assert!(reason.contains("no AMD GPU found"), "{reason}");
        }
    }
}

#[test]
fn selecting_hip_without_gpu_is_backend_unavailable() {
    assert_eq!(BackendKind::parse("hip").unwrap(), Some(BackendKind::Hip));
    assert_eq!(HipProvider.kind(), BackendKind::Hip);
    if HipProvider.probe().is_ok() {
        eprintln!("NOTICE: an AMD GPU is present; the no-device path is not exercised");
        return;
    }
    let e = HipProvider.open(0).unwrap_err();
    match &e {
        Error::BackendUnavailable { backend, reason } => {
            assert_eq!(backend, "hip");
            assert!(
                reason.contains("no AMD GPU found") || reason.contains("libamdhip64"),
                "{reason}"
            );
        }
        other => panic!("expected BackendUnavailable, got {other:?}"),
    }
    let text = e.to_string();
    eprintln!("{text}");
    assert!(text.starts_with("backend hip is unavailable: "), "{text}");
}

//! Devices: opening, identity, current device, configuration text.

use crate::common;
use cupy::{BackendKind, Device, Error};

#[test]
fn devices_open_and_report() {
    for dev in common::backends() {
        let again = Device::get(dev.kind(), dev.id()).expect("reopen");
        assert_eq!(again, dev, "Device::get returns the same device");
        assert!(!dev.label().is_empty());
        assert!(
            dev.label().starts_with(dev.kind().name()),
            "{}",
            dev.label()
        );
        dev.synchronize().expect("synchronize");
        cupy::with_device(&dev, || {
            assert_eq!(Device::current().expect("current"), dev);
            let a = cupy::arange(3).unwrap();
            assert_eq!(a.device(), &dev);
        });
        assert!(Device::count(dev.kind()) >= 1);
    }
    let cfg = cupy::config_string();
    for kind in BackendKind::ALL {
        assert!(
            cfg.contains(kind.name()),
            "config_string lacks {}: {cfg}",
            kind.name()
        );
    }
    println!("{cfg}");
}

#[test]
fn nested_with_device() {
    let b = common::backends();
    let (d0, d1) = (b[0].clone(), b.last().unwrap().clone());
    cupy::with_device(&d0, || {
        cupy::with_device(&d1, || assert_eq!(Device::current().unwrap(), d1));
        assert_eq!(Device::current().unwrap(), d0);
    });
}

#[test]
fn device_index_error_names_the_backend_and_count() {
    let n = Device::count(BackendKind::Cpu);
    assert_eq!(n, 1, "the cpu backend has one device");
    match Device::get(BackendKind::Cpu, 1) {
        Err(e @ Error::InvalidArgument { .. }) => {
            let m = e.to_string();
            assert!(
                m.contains("the cpu backend has 1 device (index 1 requested)"),
                "{m}"
            );
            if std::env::var_os("CUPY_DEVICE").is_none() {
                assert!(!m.contains("CUPY_DEVICE"), "{m}");
            }
        }
        other => panic!("Device::get(cpu, 1): {other:?}"),
    }
}

/// The registry seen from a program that links cupy as a library (this test binary): every
/// `routine!` row declared in the family files is there, once, with the table's support (the
/// rows are gathered at link time, so a dropped object file would lose rows here).
#[test]
fn registry_rows_survive_linking() {
    let rows = cupy::registry::routines();
    let want =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/api-coverage.md"))
            .expect("docs/api-coverage.md");
    let table_rows = want.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(
        rows.len(),
        table_rows,
        "rows in routines() vs docs/api-coverage.md"
    );
    assert_eq!(cupy::registry::coverage_markdown(), want);
    for name in [
        "cupy.arange",
        "cupy.swapaxes",
        "ndarray.fill",
        "cupyx.scipy.signal.convolve2d",
    ] {
        assert!(rows.iter().any(|r| r.name == name), "{name} is missing");
    }
}

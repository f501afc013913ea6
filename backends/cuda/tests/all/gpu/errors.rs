//! Failures on a real CUDA device: compile-cache hits and compile errors, out of memory,
//! dtype refusals before any work.

use super::*;

#[test]
fn compile_cache_hits_disk_and_reports_errors() {
    let Some(be) = backend() else { return };
    let dir = std::env::temp_dir().join(format!("cupy-rs-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("CUPY_CACHE_DIR", &dir);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let k = Kernel::map(
        "cache_probe",
        vec![DType::UInt64],
        vec![],
        Expr::binary(
            BinaryOp::Xor,
            Expr::input(0, DType::UInt64),
            Expr::constant(Scalar::UInt64(stamp)),
        ),
    );
    let x = upload(&be, &[Scalar::UInt64(1)], DType::UInt64);
    let y = be.alloc(DType::UInt64, 1).unwrap();
    let l = Layout::contiguous(&[1]);
    run_ew(
        &be,
        &k,
        &[1],
        vec![(&x, l.clone())],
        vec![(&y, l.clone())],
        vec![],
    );
    assert_eq!(download(&be, &y)[0], Scalar::UInt64(1 ^ stamp));
    let s = be.compile_stats();
    assert_eq!(s.compiles.load(std::sync::atomic::Ordering::Relaxed), 1);
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert!(files >= 1, "a cubin was written to {dir:?}");
    // a second backend has an empty memory cache: the module comes from disk
    let be2 = CudaBackend::open(0).unwrap();
    let x2 = upload(&be2, &[Scalar::UInt64(2)], DType::UInt64);
    let y2 = be2.alloc(DType::UInt64, 1).unwrap();
    run_ew(
        &be2,
        &k,
        &[1],
        vec![(&x2, l.clone())],
        vec![(&y2, l)],
        vec![],
    );
    assert_eq!(download(&be2, &y2)[0], Scalar::UInt64(2 ^ stamp));
    let s2 = be2.compile_stats();
    assert_eq!(s2.disk_hits.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(s2.compiles.load(std::sync::atomic::Ordering::Relaxed), 0);
    // compile errors carry the log and the source
    let e = be
        .compile_raw(
            "broken",
            "extern \"C\" __global__ void broken() { this is not C++; }",
            &["broken".into()],
        )
        .unwrap_err();
    match e {
        Error::Compile {
            log,
            source_code,
            kernel,
            ..
        } => {
            assert_eq!(kernel, "broken");
            assert!(log.contains("error"), "{log}");
            assert!(source_code.contains("this is not C++"));
        }
        e => panic!("expected a compile error, got {e}"),
    }
    std::env::remove_var("CUPY_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn out_of_memory_is_an_error_and_keeps_other_buffers() {
    let Some(be) = backend() else { return };
    let keep = upload(
        &be,
        &(0..1000).map(|i| Scalar::Int32(i)).collect::<Vec<_>>(),
        DType::Int32,
    );
    // a cached block exists too
    drop(be.alloc(DType::Float32, 1 << 20).unwrap());
    let e = be.alloc(DType::UInt8, 1usize << 50).unwrap_err();
    match &e {
        Error::OutOfMemory {
            requested, detail, ..
        } => {
            assert_eq!(*requested, 1usize << 50);
            assert!(detail.contains("in use"), "{detail}");
            eprintln!("OOM message: {e}");
        }
        e => panic!("expected OutOfMemory, got {e}"),
    }
    let got = download(&be, &keep);
    assert_eq!(got, (0..1000).map(|i| Scalar::Int32(i)).collect::<Vec<_>>());
    // the device still works
    let k = catalogue::binary(BinaryOp::Add, DType::Int32);
    let c = be.alloc(DType::Int32, 1000).unwrap();
    let l = Layout::contiguous(&[1000]);
    run_ew(
        &be,
        &k,
        &[1000],
        vec![(&keep, l.clone()), (&keep, l.clone())],
        vec![(&c, l)],
        vec![],
    );
    assert_eq!(download(&be, &c)[999], Scalar::Int32(1998));
}

#[test]
fn dtype_refusal_before_work() {
    let Some(be) = backend() else { return };
    // Complex buffers exist; the radix sort has no complex instantiation and refuses it by
    // dtype, before any work is queued. The scans take complex (short and multi-tile rows).
    let b = be.alloc(DType::Complex64, 4).unwrap();
    let l = Layout::contiguous(&[1, 4]);
    let op = || Operand {
        buffer: &b,
        layout: l.clone(),
    };
    let sort = be.sort(&cupy_core::backend::SortCall {
        keys: op(),
        values: None,
        values_are_positions: false,
        source: None,
        discard_keys: false,
    });
    let e = sort.unwrap_err();
    assert!(
        matches!(
            e,
            Error::DTypeNotSupported {
                dtype: DType::Complex64,
                ..
            }
        ),
        "{e}"
    );
    for d in [DType::Complex64, DType::Complex128] {
        for n in [5usize, 20000] {
            let x: Vec<Scalar> = (0..n)
                .map(|i| {
                    let z = num_complex::Complex::new(
                        ((i * 7 % 5) as f64 - 2.0) * 0.25,
                        ((i * 3 % 4) as f64 - 1.5) * 0.5,
                    );
                    Scalar::Complex128(z).cast(d)
                })
                .collect();
            for sop in [
                cupy_core::backend::ScanOp::Sum,
                cupy_core::backend::ScanOp::Prod,
            ] {
                // products of unit-modulus values stay finite over a long row
                let x: Vec<Scalar> = if sop == cupy_core::backend::ScanOp::Prod {
                    (0..n)
                        .map(|i| {
                            let t = i as f64 * 0.37;
                            Scalar::Complex128(num_complex::Complex::new(t.cos(), t.sin())).cast(d)
                        })
                        .collect()
                } else {
                    x.clone()
                };
                let xb = upload(&be, &x, d);
                let yb = be.alloc(d, n).unwrap();
                let l = Layout::contiguous(&[1, n]);
                be.scan(&cupy_core::backend::ScanCall {
                    op: sop,
                    input: Operand {
                        buffer: &xb,
                        layout: l.clone(),
                    },
                    output: Operand {
                        buffer: &yb,
                        layout: l,
                    },
                })
                .unwrap();
                let got = download(&be, &yb);
                let mut acc = if sop == cupy_core::backend::ScanOp::Sum {
                    num_complex::Complex::new(0.0, 0.0)
                } else {
                    num_complex::Complex::new(1.0, 0.0)
                };
                let tol = if d == DType::Complex64 { 1e-3 } else { 1e-9 };
                for j in 0..n {
                    let v = x[j].to_c128();
                    acc = if sop == cupy_core::backend::ScanOp::Sum {
                        acc + v
                    } else {
                        acc * v
                    };
                    let g = got[j].to_c128();
                    assert!(
                        (g - acc).norm() <= tol * acc.norm().max(1.0),
                        "{d} {sop:?} n={n} [{j}]: got {g}, want {acc}"
                    );
                }
            }
        }
    }
}

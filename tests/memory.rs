//! The memory pool (`cupy.get_default_memory_pool()`): counters return to their baseline after
//! arrays drop, over 10,000 mixed-size alloc/free cycles; the cache is reused and freed; a limit
//! refuses an allocation cleanly (the next fitting one works). Each backend is tested on a
//! private instance of its device, so the counters are not shared with tests running beside.

use crate::common;
use cupy::{BackendKind, BackendProvider, Device, Error};

/// A second instance of `kind`'s device 0, so its pool counters are not shared with tests
/// running beside.
pub(crate) fn private(kind: BackendKind) -> Device {
    let b = match kind {
        BackendKind::Cpu => cupy_cpu::CpuProvider.open(0),
        BackendKind::Wgpu => cupy_wgpu::WgpuProvider.open(0),
        BackendKind::Cuda => cupy_cuda::CudaProvider.open(0),
        BackendKind::Hip => cupy_hip::HipProvider.open(0),
    };
    Device::from_backend(b.unwrap_or_else(|e| panic!("a second {kind} device: {e}")))
}

#[test]
fn pool_counters_reuse_and_limit() {
    for shared in common::backends() {
        let dev = private(shared.kind());
        let label = dev.label();
        cupy::with_device(&dev, || {
            let pool = cupy::get_default_memory_pool().unwrap();
            assert_eq!(pool.device().label(), label);
            let base = pool.used_bytes();
            let caches = shared.kind() != BackendKind::Cpu;
            // Mixed sizes, alive together, then dropped: used returns to the baseline.
            let sizes = [1usize, 100, 1000, 4096, 70_000, 3, 250_000];
            let arrays: Vec<_> = sizes.iter().map(|&n| cupy::zeros(&[n]).unwrap()).collect();
            let held = pool.used_bytes() - base;
            let want: usize = sizes.iter().map(|n| n * 8).sum();
            assert!(
                held >= want && held <= want * 2 + 512 * sizes.len(),
                "{label}: {held} bytes for {want}"
            );
            assert!(pool.total_bytes() >= pool.used_bytes());
            drop(arrays);
            assert_eq!(pool.used_bytes(), base, "{label}: used after drop");
            if caches {
                assert!(
                    pool.n_free_blocks() >= sizes.len(),
                    "{label}: freed blocks are cached"
                );
                assert!(pool.free_bytes() >= want);
            } else {
                assert_eq!(
                    (pool.n_free_blocks(), pool.free_bytes()),
                    (0, 0),
                    "{label}: cpu caches nothing"
                );
            }
            // 10,000 cycles of mixed sizes: no growth past the first round's blocks.
            for i in 0..10_000usize {
                let a = cupy::empty_with(&[sizes[i % sizes.len()]], cupy::DType::Float32).unwrap();
                drop(a);
            }
            assert_eq!(pool.used_bytes(), base, "{label}: used after 10,000 cycles");
            let total_after = pool.total_bytes();
            assert!(
                total_after <= base + 2 * want + 512 * sizes.len() * 2,
                "{label}: the cache grew to {total_after}"
            );
            // free_all_blocks empties the cache.
            let freed = pool.free_all_blocks().unwrap();
            assert_eq!(pool.n_free_blocks(), 0);
            assert_eq!(pool.total_bytes(), pool.used_bytes());
            assert!(!caches || freed > 0, "{label}: freed {freed}");
            // A limit: 1 MiB. 100,000 float64 (800 KB) fit; a second does not, cleanly.
            pool.set_limit(1 << 20).unwrap();
            assert_eq!(pool.get_limit(), 1 << 20);
            let x = cupy::full(&[100_000], 2.5).unwrap();
            let e = cupy::zeros(&[100_000]).unwrap_err();
            match &e {
                Error::OutOfMemory { detail, .. } => {
                    assert!(detail.contains("limit is 1048576"), "{label}: {e}")
                }
                other => panic!("{label}: over the limit gave {other}"),
            }
            assert_eq!(
                x.to_vec::<f64>().unwrap()[99_999],
                2.5,
                "{label}: the array in use is intact"
            );
            let small = cupy::zeros(&[1000]).unwrap();
            assert_eq!(small.to_vec::<f64>().unwrap(), vec![0.0; 1000]);
            drop((x, small));
            pool.set_limit(0).unwrap();
            assert_eq!(pool.get_limit(), 0);
            let y = cupy::zeros(&[300_000]).unwrap();
            assert_eq!(y.size(), 300_000);
        });
    }
}

/// CuPy's issue 7678: under a limit, a freed block that is cached must not make a later, larger
/// allocation fail (the cache is released first). Then an allocation no device can hold (1 TiB)
/// is a clean `OutOfMemory` naming the request, and the next op works.
#[test]
fn limit_releases_the_cache_and_huge_requests_fail_cleanly() {
    for shared in common::backends() {
        let dev = private(shared.kind());
        let label = dev.label();
        cupy::with_device(&dev, || {
            let pool = cupy::get_default_memory_pool().unwrap();
            pool.set_limit(1 << 20).unwrap();
            let first = cupy::ones_with(&[128 * 1024], cupy::DType::Float32).unwrap(); // 512 KiB
            drop(first);
            // 512 KiB cached + 768 KiB > 1 MiB: the cache goes, then it fits.
            let second = cupy::ones_with(&[192 * 1024], cupy::DType::Float32).unwrap();
            assert_eq!(
                second.sum().unwrap().item().unwrap().to_f64(),
                (192 * 1024) as f64,
                "{label}: the second array after the cache was released"
            );
            assert!(pool.used_bytes() >= 768 * 1024, "{label}");
            drop(second);
            pool.set_limit(0).unwrap();

            let huge = 1usize << 38; // 2^38 float32: 1 TiB
            match cupy::empty_with(&[huge], cupy::DType::Float32) {
                Err(Error::OutOfMemory { requested, .. }) => {
                    assert!(requested >= huge * 4, "{label}: requested {requested}")
                }
                // wgpu: past the adapter's max_buffer_size, before any allocation is tried.
                Err(Error::Unsupported { reason, .. })
                    if shared.kind() == BackendKind::Wgpu && reason.contains("max_buffer_size") => {
                }
                Err(other) => panic!("{label}: 1 TiB gave {other}"),
                Ok(_) => panic!("{label}: 1 TiB was allocated"),
            }
            let after = cupy::arange(10).unwrap();
            assert_eq!(
                after.sum().unwrap().item().unwrap().to_f64(),
                45.0,
                "{label}"
            );
        });
    }
}

/// Pinned host arrays (`cupyx.empty_pinned`) and asynchronous copies through them on the
/// current stream (`a.set(pinned)`, `a.get(out=pinned)`), their pool's counters, and refusals.
#[test]
fn pinned_transfers_and_pool() {
    use cupy::cuda::{with_stream, Stream};
    use cupy::DType;
    for shared in common::backends() {
        let dev = private(shared.kind());
        let label = dev.label();
        cupy::with_device(&dev, || {
            let pool = cupy::get_default_pinned_memory_pool().unwrap();
            assert_eq!(pool.used_bytes(), 0, "{label}");
            let n = 3000usize;
            let mut src = cupy::empty_pinned(&[3, 1000], DType::Float32).unwrap();
            assert!(pool.used_bytes() >= n * 4, "{label}");
            for (i, v) in src.as_mut_slice::<f32>().unwrap().iter_mut().enumerate() {
                *v = i as f32;
            }
            let (s1, s2) = (Stream::new().unwrap(), Stream::new_non_blocking().unwrap());
            let a = cupy::empty_with(&[3, 1000], DType::Float32).unwrap();
            with_stream(&s1, || a.set_from_pinned(&src)).unwrap();
            // Changing `src` now waits for the upload, so `a` keeps the first values.
            src.as_mut_slice::<f32>().unwrap().fill(-5.0);
            let b = with_stream(&s2, || (&a * 2.0f32).unwrap()); // ordered after the upload
            let mut out = cupy::zeros_pinned(&[3, 1000], DType::Float32).unwrap();
            with_stream(&s2, || b.get_into_pinned(&mut out)).unwrap();
            let got = out.to_vec::<f32>().unwrap();
            assert_eq!(got.len(), n);
            assert!(
                got.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32),
                "{label}: {:?}",
                &got[..4]
            );
            a.set_from_pinned(&src).unwrap();
            assert!(
                a.to_vec::<f32>().unwrap().iter().all(|&v| v == -5.0),
                "{label}"
            );
            // Refusals name the op; the arrays are unchanged.
            let e = a.set_from_pinned(&cupy::zeros_pinned(&[3000], DType::Float32).unwrap());
            assert!(
                matches!(&e, Err(Error::InvalidArgument { op, .. }) if op == "set_from_pinned"),
                "{label}"
            );
            let wrong = cupy::zeros_pinned(&[3, 1000], DType::Float64).unwrap();
            assert!(a.set_from_pinned(&wrong).is_err(), "{label}: dtype");
            assert!(
                out.as_slice::<f64>().is_err(),
                "{label}: read as another type"
            );
            let t = cupy::zeros_with(&[1000, 3], DType::Float32).unwrap().t();
            let e = t.get_into_pinned(&mut out).unwrap_err();
            assert!(e.to_string().contains("C-contiguous"), "{label}: {e}");
            assert!(
                out.as_slice::<f32>().unwrap()[5] == 10.0,
                "{label}: out unchanged"
            );
            // Blocks return to the pool, are reused, and free_all_blocks releases them.
            drop((src, out, wrong));
            assert_eq!(pool.used_bytes(), 0, "{label}");
            assert!(pool.n_free_blocks() >= 2, "{label}");
            let again = cupy::empty_pinned(&[3, 1000], DType::Float32).unwrap();
            assert!(pool.n_free_blocks() >= 1, "{label}");
            drop(again);
            assert!(pool.free_all_blocks() > 0, "{label}");
            assert_eq!(
                (pool.total_bytes(), pool.n_free_blocks()),
                (0, 0),
                "{label}"
            );
        });
    }
}

/// `CUPY_GPU_MEMORY_LIMIT=0` (and `0%`) means no limit, as CuPy's `set_limit(size=0)` that the
/// variable goes through; it made every allocation fail with "the pool's limit is 0 bytes"
/// while `get_limit()` said 0 (no limit). The variable is read when a device opens: a child
/// process runs `memory_limit_zero_child` with it set.
#[test]
fn memory_limit_zero_means_no_limit() {
    for value in ["0", "0%"] {
        common::run_ignored_child(
            "memory::memory_limit_zero_child",
            &[("CUPY_GPU_MEMORY_LIMIT", value)],
        );
    }
}

#[test]
#[ignore = "run by memory_limit_zero_means_no_limit with CUPY_GPU_MEMORY_LIMIT=0"]
fn memory_limit_zero_child() {
    for shared in common::backends() {
        let dev = private(shared.kind());
        let label = dev.label();
        cupy::with_device(&dev, || {
            let pool = cupy::get_default_memory_pool().unwrap();
            assert_eq!(pool.get_limit(), 0, "{label}");
            let a = cupy::full(&[1000], 2.0)
                .unwrap_or_else(|e| panic!("{label}: CUPY_GPU_MEMORY_LIMIT=0 refused: {e}"));
            assert_eq!(a.sum().unwrap().item().unwrap().to_f64(), 2000.0, "{label}");
        });
    }
}

/// A bool pinned array never hands out bytes other than 0 and 1 as `bool`s (undefined
/// behaviour in Rust: 8 elements counted 383 true and 389 false): `empty_pinned` of bool zeroes
/// the reused block (it held a float32 array's bytes), and `as_slice::<bool>` of a download of
/// bytes that are not bools (`from_bytes_on`) is an error naming the op, while `to_vec` reads
/// them as NumPy does (non-zero is true).
#[test]
fn pinned_bool_arrays_hold_only_bools() {
    use cupy::{Array, DType};
    for shared in common::backends() {
        let dev = private(shared.kind());
        let label = dev.label();
        cupy::with_device(&dev, || {
            let mut f = cupy::empty_pinned(&[4], DType::Float32).unwrap();
            f.as_mut_slice::<f32>()
                .unwrap()
                .copy_from_slice(&[1.0, -2.0, 3.0, 4.0]);
            drop(f);
            let p = cupy::empty_pinned(&[16], DType::Bool).unwrap();
            // SAFETY: the block holds 16 bytes; no copy is pending.
            let bytes = unsafe { std::slice::from_raw_parts(p.data_ptr() as *const u8, 16) };
            assert!(bytes.iter().all(|&b| b <= 1), "{label}: {bytes:?}");
            assert_eq!(p.to_vec::<bool>().unwrap(), vec![false; 16], "{label}");

            let a = Array::from_bytes_on(&dev, &[0, 1, 2, 0], &[4], DType::Bool).unwrap();
            let mut out = cupy::zeros_pinned(&[4], DType::Bool).unwrap();
            a.get_into_pinned(&mut out).unwrap();
            // The download is asynchronous on cuda: wait for it before reading the bytes raw
            // (this read raced the copy under parallel tests on the H100, 2026-12-07).
            out.synchronize().unwrap();
            // SAFETY: as above (no copy is pending after the wait).
            let raw = unsafe { std::slice::from_raw_parts(out.data_ptr() as *const u8, 4) };
            let invalid = raw.iter().any(|&b| b > 1); // wgpu's bool buffers hold 0 or 1
            match out.as_slice::<bool>() {
                Err(cupy::Error::InvalidArgument { op, msg }) if invalid => {
                    assert_eq!(op, "PinnedArray::as_slice", "{label}");
                    assert!(msg.contains("byte 2"), "{label}: {msg}");
                }
                Ok(s) if !invalid => assert_eq!(s, [false, true, true, false], "{label}"),
                other => panic!("{label}: {raw:?} read as bool gave {:?}", other.is_ok()),
            }
            assert_eq!(out.as_mut_slice::<bool>().is_err(), invalid, "{label}");
            assert_eq!(
                out.to_vec::<bool>().unwrap(),
                vec![false, true, true, false],
                "{label}"
            );
        });
    }
}

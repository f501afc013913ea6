//! The memory pool (`cupy.get_default_memory_pool()`): counters return to their baseline after
//! arrays drop, over 10,000 mixed-size alloc/free cycles; the cache is reused and freed; a limit
//! refuses an allocation cleanly (the next fitting one works). Each backend is tested on a
//! private instance of its device, so the counters are not shared with tests running beside.

use crate::common;
use cupy::{BackendKind, BackendProvider, Device, Error};

fn private(kind: BackendKind) -> Device {
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

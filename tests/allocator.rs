//! A user allocator (`cupy.cuda.set_allocator` / `using_allocator`), memory wrapped by address
//! (`UnownedMemory`, `a.data.ptr`), and arrays shared by threads (`Array: Send + Sync`).

use crate::common;
use cupy::cuda::{get_allocator, set_allocator, using_allocator, Allocator};
use cupy::{Array, BackendKind, DType, Device, Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Held by the tests that set the process-wide allocator or assert that none is set: the
/// process allocator is seen by every test thread, so `get_allocator().is_none()` after a
/// `using_allocator` block raced with `process_allocator_and_thread_override` (it failed with
/// `CUPY_TEST_BACKENDS=cpu` alone, where the tests run closer together).
static PROCESS_ALLOCATOR: Mutex<()> = Mutex::new(());

fn process_allocator_lock() -> std::sync::MutexGuard<'static, ()> {
    PROCESS_ALLOCATOR.lock().unwrap_or_else(|e| e.into_inner())
}

/// Hands out blocks of one backing array (allocated from the pool before the allocator is used),
/// 256-byte aligned, and logs every call.
struct Arena {
    backing: Array,
    base: u64,
    next: Mutex<u64>,
    live: Mutex<Vec<(u64, usize)>>,
    mallocs: AtomicUsize,
    frees: AtomicUsize,
}

impl Arena {
    fn new(dev: &Device, bytes: usize) -> Result<Arena> {
        let backing = Array::empty_on(dev, &[bytes + 256], DType::UInt8)?;
        let base = backing.data_ptr()?.next_multiple_of(256);
        Ok(Arena {
            backing,
            base,
            next: Mutex::new(0),
            live: Mutex::new(Vec::new()),
            mallocs: AtomicUsize::new(0),
            frees: AtomicUsize::new(0),
        })
    }
}

impl Allocator for Arena {
    fn malloc(&self, device: &Device, bytes: usize) -> Result<Option<u64>> {
        assert_eq!(
            device,
            self.backing.device(),
            "the allocator is asked for its device"
        );
        let mut next = self.next.lock().unwrap();
        let at = *next;
        if at as usize + bytes > self.backing.size() - 256 {
            return Err(Error::OutOfMemory {
                device: device.label(),
                requested: bytes,
                detail: "the test arena is full".into(),
            });
        }
        *next = (at + bytes as u64).next_multiple_of(256);
        self.mallocs.fetch_add(1, Ordering::SeqCst);
        self.live.lock().unwrap().push((self.base + at, bytes));
        Ok(Some(self.base + at))
    }

    fn free(&self, _device: &Device, address: u64, bytes: usize) {
        let mut live = self.live.lock().unwrap();
        let i = live
            .iter()
            .position(|&b| b == (address, bytes))
            .unwrap_or_else(|| panic!("free of a block never given: {address:#x} {bytes}"));
        live.swap_remove(i);
        self.frees.fetch_add(1, Ordering::SeqCst);
    }
}

/// Serves no device: every request goes to the pool.
struct Decline(AtomicUsize);

impl Allocator for Decline {
    fn malloc(&self, _: &Device, _: usize) -> Result<Option<u64>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(None)
    }
    fn free(&self, _: &Device, _: u64, _: usize) {
        panic!("nothing was allocated");
    }
}

#[test]
fn user_allocator_serves_arrays_and_gets_every_block_back() {
    let _serial = process_allocator_lock();
    for shared in common::backends() {
        // A private instance: the pool counters checked below are not shared with other tests.
        let dev = crate::memory::private(shared.kind());
        let label = dev.label();
        cupy::with_device(&dev, || {
            if dev.kind() == BackendKind::Wgpu {
                // No addresses on wgpu: data_ptr and an allocator that answers are refused.
                let x = cupy::arange(4).unwrap();
                assert!(
                    matches!(x.data_ptr(), Err(Error::Unsupported { .. })),
                    "{label}"
                );
                let one = Arc::new(Decline(AtomicUsize::new(0)));
                let y = using_allocator(Some(one.clone()), || cupy::arange(5)).unwrap();
                assert_eq!(one.0.load(Ordering::SeqCst), 1, "{label}: asked once");
                assert_eq!(
                    y.sum().unwrap().item().unwrap().to_f64(),
                    10.0,
                    "{label}: pool served"
                );
                struct Answer;
                impl Allocator for Answer {
                    fn malloc(&self, _: &Device, _: usize) -> Result<Option<u64>> {
                        Ok(Some(4096))
                    }
                    fn free(&self, _: &Device, _: u64, _: usize) {}
                }
                let e = using_allocator(Some(Arc::new(Answer)), || cupy::arange(5)).unwrap_err();
                assert!(
                    matches!(&e, Error::Unsupported { op, .. } if op == "set_allocator"),
                    "{label}: {e}"
                );
                return;
            }
            let arena = Arc::new(Arena::new(&dev, 1 << 20).unwrap());
            let used_before = cupy::get_default_memory_pool().unwrap().used_bytes();
            let (sum, kept) = using_allocator(Some(arena.clone()), || {
                let x = cupy::arange(1000).unwrap(); // 1000 int32
                let y = ((&x * 2.0).unwrap() + 1.0).unwrap();
                let addr = y.data_ptr().unwrap();
                assert!(
                    addr >= arena.base && addr < arena.base + (1 << 20),
                    "{label}: the result lives in the arena"
                );
                (y.sum().unwrap().item().unwrap().to_f64(), x)
            });
            assert_eq!(sum, 1_000_000.0, "{label}: sum of 2i + 1 for i < 1000");
            assert!(arena.mallocs.load(Ordering::SeqCst) >= 3, "{label}");
            assert!(get_allocator().is_none(), "{label}: restored");
            // Arrays made inside keep their blocks; the temporaries came back.
            let live = arena.live.lock().unwrap().len();
            assert_eq!(live, 1, "{label}: only `kept` is live");
            assert_eq!(kept.to_vec::<i32>().unwrap()[999], 999, "{label}");
            drop(kept);
            assert_eq!(
                arena.frees.load(Ordering::SeqCst),
                arena.mallocs.load(Ordering::SeqCst),
                "{label}: every block given back"
            );
            assert_eq!(
                cupy::get_default_memory_pool().unwrap().used_bytes(),
                used_before,
                "{label}: the pool served nothing"
            );
            // A full arena: the op fails with the allocator's error, the inputs are unchanged.
            let a = cupy::arange_with(0.0, 300_000.0, 1.0, DType::Float64).unwrap();
            let e = using_allocator(Some(arena.clone()), || &a + 1.0).unwrap_err();
            assert!(matches!(&e, Error::OutOfMemory { detail, .. } if detail.contains("arena")));
            assert_eq!(a.to_vec::<f64>().unwrap()[299_999], 299_999.0, "{label}");
        });
    }
}

/// The process-wide allocator is seen by every thread and overridden by `using_allocator`.
/// (A declining allocator, so tests running beside this one still get pool memory.)
#[test]
fn process_allocator_and_thread_override() {
    let _serial = process_allocator_lock();
    let decline = Arc::new(Decline(AtomicUsize::new(0)));
    let as_dyn: Arc<dyn Allocator> = decline.clone();
    set_allocator(Some(as_dyn.clone()));
    let seen =
        std::thread::spawn(|| get_allocator().map(|a| Arc::as_ptr(&a) as *const u8 as usize))
            .join()
            .unwrap();
    assert_eq!(seen, Some(Arc::as_ptr(&as_dyn) as *const u8 as usize));
    let x = cupy::arange(3).unwrap();
    assert!(
        decline.0.load(Ordering::SeqCst) >= 1,
        "asked for this thread's array"
    );
    using_allocator(None, || assert!(get_allocator().is_none()));
    set_allocator(None);
    assert!(get_allocator().is_none());
    assert_eq!(x.sum().unwrap().item().unwrap().to_f64(), 3.0);
}

#[test]
fn external_memory_is_wrapped_without_a_copy() {
    for dev in common::backends() {
        let label = dev.label();
        if dev.kind() == BackendKind::Wgpu {
            let e = unsafe { Array::from_external(&dev, 4096, &[4], DType::Float32, ()) };
            assert!(matches!(e, Err(Error::Unsupported { .. })), "{label}");
            continue;
        }
        cupy::with_device(&dev, || {
            // An alias of another array's memory: writes through one are seen by the other.
            let base = cupy::arange_with(0.0, 12.0, 1.0, DType::Float32).unwrap();
            let alias = unsafe {
                Array::from_external(
                    &dev,
                    base.data_ptr().unwrap() + 16,
                    &[2, 4],
                    DType::Float32,
                    base.clone(),
                )
            }
            .unwrap();
            assert_eq!(
                alias.to_vec::<f32>().unwrap(),
                (4..12).map(|i| i as f32).collect::<Vec<_>>(),
                "{label}"
            );
            alias.fill(-1.0f32).unwrap();
            let seen = base.to_vec::<f32>().unwrap();
            assert_eq!(&seen[..4], &[0.0, 1.0, 2.0, 3.0], "{label}");
            assert!(seen[4..].iter().all(|&v| v == -1.0), "{label}: {seen:?}");
            // The owner lives as long as the array (or a view of it).
            let dropped = Arc::new(AtomicUsize::new(0));
            struct Owner(Arc<AtomicUsize>, #[allow(dead_code)] Array);
            impl Drop for Owner {
                fn drop(&mut self) {
                    self.0.fetch_add(1, Ordering::SeqCst);
                }
            }
            let owner = Owner(dropped.clone(), base.clone());
            let wrapped = unsafe {
                Array::from_external(&dev, base.data_ptr().unwrap(), &[12], DType::Float32, owner)
            }
            .unwrap();
            let view = wrapped.reshape(&[3, 4]).unwrap();
            drop(wrapped);
            assert_eq!(
                dropped.load(Ordering::SeqCst),
                0,
                "{label}: the view keeps it"
            );
            assert_eq!(
                view.sum().unwrap().item().unwrap().to_f64(),
                6.0 - 8.0,
                "{label}"
            );
            drop(view);
            assert_eq!(dropped.load(Ordering::SeqCst), 1, "{label}: dropped once");
            // Bad addresses.
            let e = unsafe { Array::from_external(&dev, 0, &[4], DType::Float32, ()) };
            assert!(
                matches!(e, Err(Error::InvalidArgument { .. })),
                "{label}: null"
            );
            let odd = base.data_ptr().unwrap() + 2;
            let e = unsafe { Array::from_external(&dev, odd, &[2], DType::Float32, ()) };
            assert!(
                matches!(&e, Err(Error::InvalidArgument { op, .. }) if op == "from_external"),
                "{label}: misaligned"
            );
            // A zero-size shape whose other dimensions overflow is refused, as NumPy does.
            let e = unsafe {
                Array::from_external(&dev, 4096, &[1 << 40, 1 << 40, 0], DType::Float32, ())
            };
            assert!(
                matches!(e, Err(Error::InvalidArgument { .. })),
                "{label}: too big"
            );
            assert!(cupy::empty_pinned(&[1 << 40, 1 << 40, 0], DType::Float32).is_err());
            assert_eq!(
                cupy::empty_pinned(&[3, 0], DType::Float32).unwrap().size(),
                0
            );
            // A null block from an allocator is refused naming set_allocator.
            struct Null;
            impl Allocator for Null {
                fn malloc(&self, _: &Device, _: usize) -> Result<Option<u64>> {
                    Ok(Some(0))
                }
                fn free(&self, _: &Device, _: u64, _: usize) {}
            }
            let e = using_allocator(Some(Arc::new(Null)), || cupy::zeros(&[4])).unwrap_err();
            assert!(
                matches!(&e, Error::InvalidArgument { op, .. } if op == "set_allocator"),
                "{label}: {e}"
            );
        });
    }
}

fn assert_send_sync<T: Send + Sync>() {}

/// Eight threads share arrays (read-only) and each writes its own: results equal NumPy's
/// closed forms, whatever the interleaving.
#[test]
fn eight_threads_share_arrays() {
    assert_send_sync::<Array>();
    assert_send_sync::<Device>();
    for dev in common::backends() {
        let label = dev.label();
        let (x, w) = cupy::with_device(&dev, || {
            let x = cupy::arange_with(0.0, 4096.0, 1.0, DType::Float32).unwrap();
            let w = cupy::ones_with(&[64, 64], DType::Float32).unwrap();
            (Arc::new(x), Arc::new(w))
        });
        std::thread::scope(|s| {
            for t in 0..8u32 {
                let (x, w, dev, label) = (x.clone(), w.clone(), dev.clone(), label.clone());
                s.spawn(move || {
                    cupy::with_device(&dev, || {
                        let own = cupy::full(&[4096], t as f32).unwrap();
                        for round in 0..6 {
                            // sum(x + t) = 4095 * 4096 / 2 + 4096 t
                            let y = (&*x + &own).unwrap();
                            let want = 4095.0 * 4096.0 / 2.0 + 4096.0 * t as f64;
                            assert_eq!(
                                y.sum().unwrap().item().unwrap().to_f64(),
                                want,
                                "{label} t{t} r{round}"
                            );
                            // (x reshaped 64x64) @ ones: row i sums 64 i*64 + 0..64
                            let m = x.reshape(&[64, 64]).unwrap().matmul(&w).unwrap();
                            let r = m.to_vec::<f32>().unwrap();
                            let i = (t as usize * 7 + round) % 64;
                            let row = (64 * i * 64 + 63 * 64 / 2) as f32;
                            assert_eq!(r[i * 64], row, "{label} t{t}");
                            own.fill((t + 1) as f32).unwrap();
                            own.fill(t as f32).unwrap();
                        }
                        let sorted = cupy::sort(&(&*x * -1.0).unwrap()).unwrap();
                        assert_eq!(sorted.to_vec::<f32>().unwrap()[0], -4095.0, "{label}");
                    })
                });
            }
        });
        assert_eq!(
            x.to_vec::<f32>().unwrap()[4095],
            4095.0,
            "{label}: shared input unchanged"
        );
    }
}

/// `Array::from_ndarray_owned` moves an ndarray without a copy on the cpu (copies elsewhere);
/// `as_ndarray_view` views cpu memory in place, reversed and transposed views included.
#[test]
fn ndarray_moves_and_views() {
    for dev in common::backends() {
        let label = dev.label();
        let host = ndarray::Array::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as f64);
        let at = host.as_ptr() as u64;
        let a = Array::from_ndarray_owned(&dev, host).unwrap();
        assert_eq!(a.shape(), &[3, 4], "{label}");
        assert_eq!(a.to_vec::<f64>().unwrap()[5], 11.0, "{label}");
        if dev.kind() != BackendKind::Cpu {
            let e = unsafe { a.as_ndarray_view::<f64>() };
            assert!(matches!(e, Err(Error::Unsupported { .. })), "{label}");
            continue;
        }
        assert_eq!(
            a.data_ptr().unwrap(),
            at,
            "{label}: the ndarray's buffer, not a copy"
        );
        let r = a.get(&cupy::s![..;-1, 1..;2]).unwrap().t();
        let v = unsafe { r.as_ndarray_view::<f64>() }.unwrap();
        let want = ndarray::array![[21.0, 11.0, 1.0], [23.0, 13.0, 3.0]].into_dyn();
        assert_eq!(v, want, "{label}");
        assert!(
            unsafe { r.as_ndarray_view::<f32>() }.is_err(),
            "{label}: wrong type"
        );
        // A non-standard layout is copied.
        let f = ndarray::Array::from_shape_fn((2, 3), |(i, j)| (i + 3 * j) as f32).reversed_axes();
        let b = Array::from_ndarray_owned(&dev, f).unwrap();
        assert_eq!(
            b.to_vec::<f32>().unwrap(),
            vec![0.0, 1.0, 3.0, 4.0, 6.0, 7.0],
            "{label}"
        );
    }
}

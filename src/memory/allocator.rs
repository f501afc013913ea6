//! A user-supplied allocator for arrays' memory, as CuPy's `cupy.cuda.set_allocator` and
//! `cupy.cuda.using_allocator`.
//!
//! While an [`Allocator`] is set, every array allocation (`empty`, `zeros`, the results of ops,
//! the frontend's temporaries) asks it first: it returns the address of a block (a device
//! address on cuda and hip, a host address on the cpu), or `None` to let the device's own
//! pool serve the request. The block is wrapped without a copy ([`Backend::wrap_external`]) and
//! given back to [`Allocator::free`] when the last array using it drops, after the device has
//! finished the queued work (the backends synchronize before releasing foreign memory).
//! Scratch memory that a backend allocates inside one op (library workspaces, sort and scan
//! scratch, staging buffers) still comes from the device's pool. wgpu buffers have no address,
//! so an allocator that returns a block for a wgpu device gives an [`Error::Unsupported`].
//!
//! [`Backend::wrap_external`]: cupy_core::Backend::wrap_external

use crate::{Device, Error, Result};
use cupy_core::{Buffer, DType};
use std::cell::RefCell;
use std::sync::{Arc, RwLock};

/// An allocator for arrays' memory ([`set_allocator`], [`using_allocator`]).
///
/// `malloc` is called with the device and the byte count (never 0) and returns `Ok(Some(address))`
/// for a block of at least that many bytes, aligned to 256 bytes (at least the element size),
/// that the device can read and write: device memory of the backend's context on cuda and hip
/// (e.g. from `cuMemAlloc`, `cuMemAllocManaged`, another library's pool), host memory on the
/// cpu. `Ok(None)` lets the device's pool allocate instead; an `Err` fails the allocation with
/// that error (the op that needed the memory fails, the user's arrays are unchanged).
pub trait Allocator: Send + Sync {
    /// A block of `bytes` bytes on `device`, or `None` for the device's pool.
    ///
    /// # Errors
    /// Whatever the allocator reports; it reaches the caller of the op unchanged.
    fn malloc(&self, device: &Device, bytes: usize) -> Result<Option<u64>>;

    /// Gives back a block `malloc` returned, with the same `bytes`. Called once per block, after
    /// the device finished every queued use of it.
    fn free(&self, device: &Device, address: u64, bytes: usize);
}

routine!(
    set_allocator as "cupy.cuda.set_allocator",
    Devices,
    probe: crate::dlpack::probe,
    notes: "Allocator trait (malloc/free by address); get_allocator; the pool when None; not on wgpu"
);
routine!(
    using_allocator as "cupy.cuda.using_allocator",
    Devices,
    probe: crate::dlpack::probe,
    notes: "thread-local, nests"
);

static PROCESS: RwLock<Option<Arc<dyn Allocator>>> = RwLock::new(None);

thread_local! {
    static SCOPED: RefCell<Vec<Option<Arc<dyn Allocator>>>> = const { RefCell::new(Vec::new()) };
}

/// Sets the process-wide allocator for arrays' memory (`cupy.cuda.set_allocator`); `None`
/// goes back to each device's memory pool (CuPy's `set_allocator(None)` means plain
/// `cudaMalloc`: here the pool's `free_all_blocks`/`set_limit` serve that need).
/// [`using_allocator`] overrides it on one thread.
pub fn set_allocator(allocator: Option<Arc<dyn Allocator>>) {
    *PROCESS.write().unwrap_or_else(|e| e.into_inner()) = allocator;
}

/// The allocator in effect on this thread: the innermost [`using_allocator`], else the one
/// [`set_allocator`] set (`None`: the device pools).
pub fn get_allocator() -> Option<Arc<dyn Allocator>> {
    if let Some(scoped) = SCOPED.with(|s| s.borrow().last().cloned()) {
        return scoped;
    }
    PROCESS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Runs `f` with `allocator` as this thread's allocator (`with cupy.cuda.using_allocator(a):`);
/// `None` uses the device pools inside `f` whatever the process-wide one is. Nests, and
/// restores the previous one when `f` returns or panics.
pub fn using_allocator<R>(allocator: Option<Arc<dyn Allocator>>, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            SCOPED.with(|s| s.borrow_mut().pop());
        }
    }
    SCOPED.with(|s| s.borrow_mut().push(allocator));
    let _pop = Pop;
    f()
}

/// Gives a block back to its allocator when the buffer wrapping it drops.
struct Block {
    allocator: Arc<dyn Allocator>,
    device: Device,
    address: u64,
    bytes: usize,
}

impl Drop for Block {
    fn drop(&mut self) {
        self.allocator.free(&self.device, self.address, self.bytes);
    }
}

/// A buffer of `len` elements from the user's allocator, if one is set and serves `device`;
/// `None` for the device's pool.
pub(crate) fn allocate(device: &Device, dtype: DType, len: usize) -> Result<Option<Buffer>> {
    let bytes = len * dtype.itemsize();
    if bytes == 0 {
        return Ok(None);
    }
    let Some(allocator) = get_allocator() else {
        return Ok(None);
    };
    let Some(address) = allocator.malloc(device, bytes)? else {
        return Ok(None);
    };
    let block = Block {
        allocator,
        device: device.clone(),
        address,
        bytes,
    };
    if address == 0 || cupy_core::backend::check_external_alignment(address, dtype).is_err() {
        return Err(Error::invalid(
            "set_allocator",
            format!(
                "the allocator gave address {address:#x} for {bytes} bytes of {dtype} on \
                 {device}: null or not aligned to the element"
            ),
        ));
    }
    // SAFETY: the allocator's contract ([`Allocator`]): `bytes` bytes this device can use,
    // valid until `block` drops (which calls `free` once, after the backend drained its work).
    let wrapped = unsafe {
        device
            .backend()
            .wrap_external(address, dtype, len, Box::new(block))
    };
    match wrapped {
        Ok(buffer) => Ok(Some(buffer)),
        // The block went back to the allocator when `wrap_external` dropped it.
        Err(Error::Unsupported { backend, .. }) => Err(Error::Unsupported {
            op: "set_allocator".into(),
            backend,
            reason: "this backend's buffers have no address (wgpu): an allocator cannot serve \
                     this device; return None from malloc for it"
                .into(),
        }),
        Err(e) => Err(e),
    }
}

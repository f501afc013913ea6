//! Pinned (page-locked) host memory, as CuPy's `cupy.cuda.PinnedMemoryPool`,
//! `cupy.get_default_pinned_memory_pool()` and `cupyx.empty_pinned`/`zeros_pinned`, with
//! asynchronous copies between it and device arrays on the current stream
//! (`ndarray.set(pinned, stream)` and `ndarray.get(stream, out=pinned)` in CuPy).
//!
//! On cuda and hip the blocks are `cuMemHostAlloc`/`hipHostMalloc` memory, cached by size
//! class per device ([`cupy_core::gpu::pool::CachingPool`]): a copy from or to them is queued on
//! the current stream and returns at once, so a transfer on one stream overlaps kernels on
//! another (`examples/overlap.rs`). On wgpu and the cpu they are ordinary page-aligned host
//! memory, cached the same way, and the copies complete before returning.
//!
//! Safety without `unsafe`: a [`PinnedArray`] remembers the last copy queued on it (an event),
//! and every host access ([`PinnedArray::as_slice`], [`PinnedArray::as_mut_slice`]) and its drop
//! first wait for that copy, so the host never sees a half-written block nor changes one the
//! device is still reading.

use crate::cuda::Event;
use crate::{Array, Device, Error, Result};
use cupy_core::gpu::pool::{size_class, AllocFailure, CachingPool, PoolDriver, PoolStats};
use cupy_core::{DType, Element};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Why a capturing stream refuses the pinned copies: the pinned array's completion event and its
/// host-side waits are not part of a graph.
const PINNED_CAPTURE: &str = "pinned copies are not captured into graphs (the copy's completion \
                              event would belong to the capture); copy before or after it";

/// Host blocks are aligned to a page (what `cuMemHostAlloc` gives, and enough for every dtype).
const HOST_ALIGN: usize = 4096;

/// The allocation calls of a device's pinned pool.
struct PinnedDriver {
    device: Device,
    /// Blocks from the global allocator (devices without pinned memory), by address: their size.
    host: Mutex<HashMap<u64, usize>>,
}

impl PoolDriver for PinnedDriver {
    fn malloc(&self, bytes: usize) -> std::result::Result<u64, AllocFailure> {
        let fail = |message: String| AllocFailure {
            out_of_memory: true,
            message,
        };
        match self.device.backend().pinned_alloc(bytes) {
            Ok(Some(p)) => return Ok(p),
            Ok(None) => {}
            Err(e) => return Err(fail(e.to_string())),
        }
        let layout = std::alloc::Layout::from_size_align(bytes.max(1), HOST_ALIGN)
            .map_err(|e| fail(format!("host memory of {bytes} bytes: {e}")))?;
        // SAFETY: a non-zero size.
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            return Err(fail(format!(
                "host memory of {bytes} bytes: allocation failed"
            )));
        }
        let p = p as u64;
        self.host
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(p, bytes.max(1));
        Ok(p)
    }

    unsafe fn free(&self, ptr: u64) {
        let host = self
            .host
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&ptr);
        match host {
            Some(bytes) => {
                // SAFETY: allocated above with this layout, freed once (the pool's contract).
                unsafe {
                    std::alloc::dealloc(
                        ptr as *mut u8,
                        std::alloc::Layout::from_size_align_unchecked(bytes, HOST_ALIGN),
                    )
                }
            }
            // SAFETY: the backend's block, unused (blocks return only after their copies).
            None => unsafe { self.device.backend().pinned_free(ptr) },
        }
    }

    fn synchronize(&self) {
        // Blocks come back to the pool only after their last copy finished.
    }

    fn mem_info(&self) -> Option<(usize, usize)> {
        None
    }
}

/// One device's pool of pinned host blocks (`cupy.cuda.PinnedMemoryPool`); a handle, cheap to
/// clone ([`get_default_pinned_memory_pool`], [`Device::pinned_memory_pool`]).
#[derive(Clone)]
pub struct PinnedMemoryPool {
    device: Device,
    pool: Arc<CachingPool<PinnedDriver>>,
}

impl std::fmt::Debug for PinnedMemoryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PinnedMemoryPool({}, {:?})",
            self.device,
            self.pool.stats()
        )
    }
}

type Pools = Mutex<Vec<(Device, Arc<CachingPool<PinnedDriver>>)>>;

fn pools() -> &'static Pools {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    POOLS.get_or_init(|| Mutex::new(Vec::new()))
}

impl Device {
    /// This device's pinned host memory pool ([`PinnedMemoryPool`]).
    pub fn pinned_memory_pool(&self) -> PinnedMemoryPool {
        let mut all = pools().lock().unwrap_or_else(|e| e.into_inner());
        let pool = match all.iter().find(|(d, _)| d == self) {
            Some((_, p)) => p.clone(),
            None => {
                let p = Arc::new(CachingPool::new(PinnedDriver {
                    device: self.clone(),
                    host: Mutex::new(HashMap::new()),
                }));
                // CUPY_GPU_MEMORY_LIMIT is for device memory: the pinned pool has no limit.
                p.set_limit(None);
                all.push((self.clone(), p.clone()));
                p
            }
        };
        PinnedMemoryPool {
            device: self.clone(),
            pool,
        }
    }
}

/// `cupy.get_default_pinned_memory_pool()`: the pinned pool of the current device.
///
/// # Errors
/// Device discovery errors.
pub fn get_default_pinned_memory_pool() -> Result<PinnedMemoryPool> {
    Ok(Device::current()?.pinned_memory_pool())
}
routine!(
    get_default_pinned_memory_pool as "cupy.get_default_pinned_memory_pool / cupy.cuda.PinnedMemoryPool",
    Devices,
    notes: "used_bytes total_bytes free_bytes n_free_blocks free_all_blocks; page-locked on cuda/hip, page-aligned host memory on wgpu/cpu"
);

impl PinnedMemoryPool {
    fn stats(&self) -> PoolStats {
        self.pool.stats()
    }
    /// The device whose transfers the blocks serve.
    pub fn device(&self) -> &Device {
        &self.device
    }
    /// Bytes of blocks held by [`PinnedArray`]s.
    pub fn used_bytes(&self) -> usize {
        self.stats().used_bytes
    }
    /// Bytes the pool holds (in use plus cached).
    pub fn total_bytes(&self) -> usize {
        self.stats().total_bytes
    }
    /// Cached bytes, ready for reuse.
    pub fn free_bytes(&self) -> usize {
        self.stats().free_bytes()
    }
    /// Cached blocks (`n_free_blocks()`).
    pub fn n_free_blocks(&self) -> usize {
        self.stats().n_free_blocks
    }
    /// Gives every cached block back to the system (`free_all_blocks()`); returns the bytes
    /// released.
    pub fn free_all_blocks(&self) -> usize {
        self.pool.trim()
    }
}

/// A host array in pinned memory (`cupyx.empty_pinned`), C-contiguous, for fast and
/// asynchronous transfers ([`Array::set_from_pinned`], [`Array::get_into_pinned`]). Its block
/// returns to the pool when it drops, after the last copy queued on it finished.
pub struct PinnedArray {
    pool: PinnedMemoryPool,
    address: u64,
    class: usize,
    shape: Vec<usize>,
    dtype: DType,
    /// The last copy queued on the block.
    pending: Mutex<Option<Event>>,
}

// SAFETY: the block is plain host memory owned by this value; host access goes through
// `&self`/`&mut self` after waiting for the device (`pending`).
unsafe impl Send for PinnedArray {}
// SAFETY: as above; shared access only reads.
unsafe impl Sync for PinnedArray {}

impl std::fmt::Debug for PinnedArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PinnedArray({:?} {} at {:#x} for {})",
            self.shape, self.dtype, self.address, self.pool.device
        )
    }
}

/// `cupyx.empty_pinned(shape, dtype)`: an uninitialized pinned host array for the current
/// device's transfers (its contents are unspecified until written).
///
/// # Errors
/// [`Error::OutOfMemory`] when the system refuses the block; a size that overflows.
pub fn empty_pinned(shape: &[usize], dtype: DType) -> Result<PinnedArray> {
    let pool = get_default_pinned_memory_pool()?;
    let bytes = cupy_core::layout::checked_size("empty_pinned", shape, dtype.itemsize())?
        * dtype.itemsize();
    let class = size_class(bytes.max(1));
    let address = pool.pool.take(class).map_err(|e| Error::OutOfMemory {
        device: format!("{} (pinned host memory)", pool.device),
        requested: bytes,
        detail: e.detail,
    })?;
    let mut a = PinnedArray {
        pool,
        address,
        class,
        shape: shape.to_vec(),
        dtype,
        pending: Mutex::new(None),
    };
    if dtype == DType::Bool {
        // A reused block holds another array's bytes, and a byte other than 0 or 1 is no
        // `bool`: `as_slice::<bool>` would hand out invalid values.
        a.bytes_mut()?.fill(0);
    }
    Ok(a)
}
routine!(empty_pinned as "cupyx.empty_pinned", Creation, notes: "PinnedArray: as_slice, as_mut_slice, to_vec");

/// `cupyx.zeros_pinned(shape, dtype)`: a pinned host array of zeros.
///
/// # Errors
/// As [`empty_pinned`].
pub fn zeros_pinned(shape: &[usize], dtype: DType) -> Result<PinnedArray> {
    let mut a = empty_pinned(shape, dtype)?;
    a.bytes_mut()?.fill(0);
    Ok(a)
}
routine!(zeros_pinned as "cupyx.zeros_pinned", Creation);

impl PinnedArray {
    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }
    /// Bytes of the elements.
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.itemsize()
    }
    /// The host address of element 0.
    pub fn data_ptr(&self) -> u64 {
        self.address
    }

    /// Waits until the last copy queued on this array finished.
    ///
    /// # Errors
    /// Device errors while waiting.
    pub fn synchronize(&self) -> Result<()> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match pending {
            Some(e) => e.synchronize(),
            None => Ok(()),
        }
    }

    fn check_type<T: Element>(&self, op: &str) -> Result<()> {
        if T::DTYPE != self.dtype {
            return Err(Error::invalid(
                op,
                format!("a {} pinned array read as {}", self.dtype, T::DTYPE),
            ));
        }
        Ok(())
    }

    /// For a bool array: `Err` naming `op` unless every byte is 0 or 1 (a copy of bytes that
    /// are not bools, e.g. from `Array::from_bytes_on`, would give invalid `bool`s).
    fn check_bools(&self, op: &str) -> Result<()> {
        if self.dtype != DType::Bool {
            return Ok(());
        }
        let bytes = self.bytes()?;
        match bytes.iter().position(|&b| b > 1) {
            None => Ok(()),
            Some(i) => Err(Error::invalid(
                op,
                format!(
                    "element {i} of the bool pinned array {:?} holds byte {}, not a bool (0 or \
                     1); to_vec reads it as true",
                    self.shape, bytes[i]
                ),
            )),
        }
    }

    /// The elements, after the last queued copy finished.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `T` is not the dtype; device errors while waiting.
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        self.check_type::<T>("PinnedArray::as_slice")?;
        self.synchronize()?;
        self.check_bools("PinnedArray::as_slice")?;
        // SAFETY: the block holds `size` elements of `T` (page-aligned), no copy is pending.
        Ok(unsafe { std::slice::from_raw_parts(self.address as *const T, self.size()) })
    }

    /// The elements, writable, after the last queued copy finished.
    ///
    /// # Errors
    /// As [`PinnedArray::as_slice`].
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        self.check_type::<T>("PinnedArray::as_mut_slice")?;
        self.synchronize()?;
        self.check_bools("PinnedArray::as_mut_slice")?;
        // SAFETY: as in `as_slice`, and `&mut self` excludes every other access.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.address as *mut T, self.size()) })
    }

    /// A copy of the elements.
    ///
    /// # Errors
    /// As [`PinnedArray::as_slice`].
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE == DType::Bool {
            // Any byte but 0 is true (NumPy's view of a bool byte), as `Array::to_vec` reads.
            self.check_type::<T>("PinnedArray::to_vec")?;
            return Ok(T::vec_from_bytes(self.bytes()?));
        }
        Ok(self.as_slice::<T>()?.to_vec())
    }

    /// The block's bytes, after the last queued copy finished.
    fn bytes(&self) -> Result<&[u8]> {
        self.synchronize()?;
        // SAFETY: the block holds `nbytes` bytes and no copy is pending.
        Ok(unsafe { std::slice::from_raw_parts(self.address as *const u8, self.nbytes()) })
    }

    fn bytes_mut(&mut self) -> Result<&mut [u8]> {
        self.synchronize()?;
        let n = self.nbytes();
        // SAFETY: the block holds `nbytes` bytes; `&mut self` excludes other access.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.address as *mut u8, n) })
    }

    /// Checks a transfer between this and `a`, and that `a` is on this array's device.
    fn check_pair(&self, op: &str, a: &Array) -> Result<()> {
        if a.device() != &self.pool.device {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: a.device().label(),
                rhs: format!("{} (the pinned array's device)", self.pool.device),
            });
        }
        if a.shape() != self.shape.as_slice() || a.dtype() != self.dtype {
            return Err(Error::invalid(
                op,
                format!(
                    "array {:?} {} and pinned array {:?} {} differ",
                    a.shape(),
                    a.dtype(),
                    self.shape,
                    self.dtype
                ),
            ));
        }
        if !a.is_c_contiguous() {
            return Err(Error::invalid(
                op,
                format!(
                    "the array {:?} is not C-contiguous (copy it first)",
                    a.shape()
                ),
            ));
        }
        Ok(())
    }

    /// Records the end of a copy just queued on the current stream.
    fn mark_pending(&self) -> Result<()> {
        let e = Event::new_on(&self.pool.device, true)?;
        e.record_current()?;
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
        Ok(())
    }
}

impl Drop for PinnedArray {
    fn drop(&mut self) {
        // The block may return to the pool only once no copy uses it.
        let _ = self.synchronize();
        self.pool.pool.give(self.address, self.class);
    }
}

impl Array {
    /// Queues a copy of `src` into this array on the current stream and returns without
    /// waiting on cuda and hip (CuPy's `a.set(pinned, stream=...)`); on wgpu and the cpu the
    /// copy completes first. `src` may be dropped or changed at once: it waits for the copy.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the shapes or dtypes differ or this array is not
    /// C-contiguous; [`Error::DeviceMismatch`] when `src` belongs to another device's pool.
    pub fn set_from_pinned(&self, src: &PinnedArray) -> Result<()> {
        src.check_pair("set_from_pinned", self)?;
        crate::cuda::graph::refuse(self.device(), "set_from_pinned", PINNED_CAPTURE)?;
        // An earlier download into `src` must land before it is read.
        src.synchronize()?;
        let device = self.device();
        crate::cuda::order::order(device, &[], &[self.buffer()])?;
        // SAFETY: `src` holds `nbytes` bytes and stays unchanged until the copy is done: its
        // host access and drop wait for the event recorded next.
        unsafe {
            device.backend().write_async(
                self.buffer(),
                self.layout().offset,
                src.address as *const u8,
                src.nbytes(),
            )?
        };
        src.mark_pending()
    }

    /// Queues a copy of this array into `out` on the current stream and returns without
    /// waiting on cuda and hip (CuPy's `a.get(stream=..., out=pinned)`); reading `out`
    /// ([`PinnedArray::as_slice`]) waits for the copy.
    ///
    /// # Errors
    /// As [`Array::set_from_pinned`].
    pub fn get_into_pinned(&self, out: &mut PinnedArray) -> Result<()> {
        out.check_pair("get_into_pinned", self)?;
        crate::cuda::graph::refuse(self.device(), "get_into_pinned", PINNED_CAPTURE)?;
        out.synchronize()?;
        let device = self.device();
        crate::cuda::order::order(device, &[self.buffer()], &[])?;
        // SAFETY: `out` holds `nbytes` bytes; `&mut` keeps the host away from it now, and its
        // later host access and drop wait for the event recorded next.
        unsafe {
            device.backend().read_async(
                self.buffer(),
                self.layout().offset,
                out.address as *mut u8,
                out.nbytes(),
            )?
        };
        out.mark_pending()
    }
}
routine!("cupy.ndarray.set / ndarray.get(out=pinned)", Transfer, notes: "Array::set_from_pinned, get_into_pinned: asynchronous on the current stream (cuda, hip)");

//! Prepared kernels and their in-memory cache (keyed by kernel and specialisation).

use super::{backend_err, check_dtypes, lock, relabel, GpuDriver};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::kernel::cpp::{
    emit_elementwise_bounded, emit_reduce, ArgsLayout, ElementwiseSpec, ReduceSpec, BLOCK,
};
use crate::kernel::ir::{Kernel, ReduceKernel};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// An emitted, compiled kernel ready to launch.
pub struct Prepared<F> {
    /// The emitter's entries, resolved in order (elementwise: 1; reduction:
    /// `[inner, outer, finish, inner_vec]`).
    pub funcs: Vec<F>,
    /// The argument struct every entry takes.
    pub args: ArgsLayout,
    /// Elements per thread iteration of the vectorized class (1 otherwise).
    pub vector: usize,
    /// Resident blocks per SM/CU of the `inner_vec` reduction entry (queried once).
    pub(super) occupancy: OnceLock<usize>,
}

impl<F: Copy> Prepared<F> {
    pub(super) fn func<B: Backend + ?Sized>(&self, be: &B, i: usize) -> Result<F> {
        self.funcs
            .get(i)
            .copied()
            .ok_or_else(|| backend_err(be, "missing entry"))
    }
}

/// A fast, non-cryptographic hasher (FxHash's multiply-rotate) for the launch caches.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64)
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64)
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64)
    }
}

/// The part of a kernel hashed for the launch caches: its name and signature, not its body
/// (hashing a whole IR tree on every launch costs more than comparing it once on a hit).
trait QuickKey {
    fn quick_hash(&self, h: &mut FxHasher);
}

impl QuickKey for Kernel {
    fn quick_hash(&self, h: &mut FxHasher) {
        self.name.hash(h);
        self.inputs.hash(h);
        self.outputs.hash(h);
        self.raws.hash(h);
        self.params.hash(h);
        self.locals.hash(h);
        self.body.len().hash(h);
    }
}

impl QuickKey for ReduceKernel {
    fn quick_hash(&self, h: &mut FxHasher) {
        self.name.hash(h);
        self.inputs.hash(h);
        self.params.hash(h);
        self.acc.hash(h);
        self.fold.len().hash(h);
        self.output.hash(h);
        self.extra_posts.len().hash(h);
    }
}

/// Prepared kernels keyed by (kernel IR, specialisation), looked up by a hash of the borrowed
/// key's signature so that a hit neither clones nor allocates (the full IR is compared).
/// One cache entry: the kernel, its specialisation and what was prepared for them.
type Entry<K, S, F> = (K, S, Arc<Prepared<F>>);

struct LaunchCache<K, S, F>(HashMap<u64, Vec<Entry<K, S, F>>>);

impl<K, S, F> Default for LaunchCache<K, S, F> {
    fn default() -> Self {
        LaunchCache(HashMap::new())
    }
}

impl<K: QuickKey + Eq + Clone, S: Hash + Eq + Copy, F> LaunchCache<K, S, F> {
    fn hash(k: &K, s: &S) -> u64 {
        let mut h = FxHasher::default();
        k.quick_hash(&mut h);
        s.hash(&mut h);
        h.finish()
    }
    fn get(&self, h: u64, k: &K, s: &S) -> Option<Arc<Prepared<F>>> {
        self.0
            .get(&h)?
            .iter()
            .find(|e| e.1 == *s && e.0 == *k)
            .map(|e| e.2.clone())
    }
    fn insert(&mut self, h: u64, k: &K, s: S, p: Arc<Prepared<F>>) {
        let v = self.0.entry(h).or_default();
        if !v.iter().any(|e| e.1 == s && e.0 == *k) {
            v.push((k.clone(), s, p));
        }
    }
}

/// A module loaded once per backend by name (the `hip-kernels/` files): its entries and their
/// functions, in the same order.
pub struct NamedModule<F> {
    /// Entry names.
    pub entries: Vec<String>,
    /// Their functions.
    pub funcs: Vec<F>,
}

impl<F: Copy> NamedModule<F> {
    /// The function of `entry`.
    pub fn func(&self, entry: &str) -> Option<F> {
        self.entries
            .iter()
            .position(|e| e == entry)
            .map(|i| self.funcs[i])
    }
}

/// A backend's in-memory kernel caches (one per device).
pub struct KernelCaches<F> {
    /// Keyed by the specialisation, the launch bound (threads per block) and a hash of the
    /// user's compiler options (0: none).
    elementwise: Mutex<LaunchCache<Kernel, (ElementwiseSpec, u32, u64), F>>,
    /// Keyed by the specialisation and a hash of the user's compiler options (0: none).
    reduce: Mutex<LaunchCache<ReduceKernel, (ReduceSpec, u64), F>>,
    named: Mutex<HashMap<&'static str, Arc<NamedModule<F>>>>,
}

impl<F> Default for KernelCaches<F> {
    fn default() -> Self {
        KernelCaches {
            elementwise: Default::default(),
            reduce: Default::default(),
            named: Default::default(),
        }
    }
}

/// The elementwise kernel `k` specialised as `spec`, emitted, compiled and loaded on first use.
///
/// # Errors
/// `DTypeNotSupported` (the full check, body casts included, runs once per kernel), emitter
/// and compile errors.
pub fn prepare_elementwise<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    spec: ElementwiseSpec,
) -> Result<Arc<Prepared<D::Func>>> {
    prepare_elementwise_bounded(be, k, spec, BLOCK as u32)
}

/// [`prepare_elementwise`] for launches of up to `max_threads` threads per block (the entry's
/// `__launch_bounds__`, see [`emit_elementwise_bounded`]); cached apart per bound.
///
/// # Errors
/// As [`prepare_elementwise`].
pub fn prepare_elementwise_bounded<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    spec: ElementwiseSpec,
    max_threads: u32,
) -> Result<Arc<Prepared<D::Func>>> {
    prepare_elementwise_opts(be, k, spec, max_threads, &[])
}

/// [`prepare_elementwise_bounded`] compiled with a user kernel's compiler `options` (see
/// [`GpuDriver::load_module_opts`]); cached apart per option list.
///
/// # Errors
/// As [`prepare_elementwise`]; the driver's refusal of an option.
pub fn prepare_elementwise_opts<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    spec: ElementwiseSpec,
    max_threads: u32,
    options: &[String],
) -> Result<Arc<Prepared<D::Func>>> {
    let caches = be.kernel_caches();
    // The options by their hash (0: none), which keeps the key `Copy`.
    let key = (spec, max_threads, options_hash(options));
    let h = LaunchCache::<Kernel, (ElementwiseSpec, u32, u64), D::Func>::hash(k, &key);
    if let Some(p) = lock(&caches.elementwise).get(h, k, &key) {
        return Ok(p);
    }
    check_dtypes(be, &k.name, &k.dtypes())?;
    let flavor = be.flavor();
    let e = crate::gpu::on_big_stack(|| {
        emit_elementwise_bounded(k, &spec, flavor, max_threads as usize)
    })
    .ok_or_else(|| Error::invalid(&k.name, "the C++ emitter panicked"))?
    .map_err(|e| relabel(be, e))?;
    let funcs = be.load_module_opts(&k.name, &e.source, &e.entries, options)?;
    let p = Arc::new(Prepared {
        funcs,
        args: e.args,
        vector: e.vector,
        occupancy: OnceLock::new(),
    });
    lock(&caches.elementwise).insert(h, k, key, p.clone());
    Ok(p)
}

/// The reduction `k` specialised as `spec`, emitted, compiled and loaded on first use.
///
/// # Errors
/// Emitter and compile errors.
pub fn prepare_reduce<D: GpuDriver>(
    be: &D,
    k: &ReduceKernel,
    spec: ReduceSpec,
) -> Result<Arc<Prepared<D::Func>>> {
    prepare_reduce_opts(be, k, spec, &[])
}

/// The options by their hash (0: none), which keeps cache keys `Copy`.
fn options_hash(options: &[String]) -> u64 {
    if options.is_empty() {
        0
    } else {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        options.hash(&mut h);
        h.finish() | 1
    }
}

/// [`prepare_reduce`] compiled with a user kernel's compiler `options` (a `ReductionKernel`'s
/// `options=`, see [`GpuDriver::load_module_opts`]); cached apart per option list.
///
/// # Errors
/// As [`prepare_reduce`]; the driver's refusal of an option.
pub fn prepare_reduce_opts<D: GpuDriver>(
    be: &D,
    k: &ReduceKernel,
    spec: ReduceSpec,
    options: &[String],
) -> Result<Arc<Prepared<D::Func>>> {
    let caches = be.kernel_caches();
    let key = (spec, options_hash(options));
    let h = LaunchCache::<ReduceKernel, (ReduceSpec, u64), D::Func>::hash(k, &key);
    if let Some(p) = lock(&caches.reduce).get(h, k, &key) {
        return Ok(p);
    }
    let e = emit_reduce(k, &spec, be.flavor()).map_err(|e| relabel(be, e))?;
    let funcs = be.load_module_opts(&k.name, &e.source, &e.entries, options)?;
    let p = Arc::new(Prepared {
        funcs,
        args: e.args,
        vector: 1,
        occupancy: OnceLock::new(),
    });
    lock(&caches.reduce).insert(h, k, key, p.clone());
    Ok(p)
}

/// The module called `name`, loaded on first use from `make()`'s (source, entries).
///
/// # Errors
/// As [`GpuDriver::load_module`].
pub fn named_module<D: GpuDriver>(
    be: &D,
    name: &'static str,
    make: impl FnOnce() -> (String, Vec<String>),
) -> Result<Arc<NamedModule<D::Func>>> {
    let caches = be.kernel_caches();
    if let Some(m) = lock(&caches.named).get(name) {
        return Ok(m.clone());
    }
    let (source, entries) = make();
    let funcs = be.load_module(name, &source, &entries)?;
    let m = Arc::new(NamedModule { entries, funcs });
    lock(&caches.named).insert(name, m.clone());
    Ok(m)
}

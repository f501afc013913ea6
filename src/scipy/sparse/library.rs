//! Which implementation the sparse routines use: the vendor library of the device (cuSPARSE on
//! cuda, rocSPARSE on hip, loaded at run time: `cupy_core::backend::sparse`) or cupy-rs's own
//! IR kernels (every backend). `CUPY_SPARSE_LIBRARY=auto|vendor|native` sets it for the
//! process (read once; default `auto`), [`with_library`] for the calls of a closure on this
//! thread.
//!
//! - `native`: the IR kernels always.
//! - `vendor`: the vendor routine wherever the device has one for the dtype and index type
//!   (SpMV/SpMM, SpGEMM, the triangular solve: SpSV for a 1-d `b`, SpSM for a 2-d one);
//!   elsewhere, and on wgpu and the cpu, the IR kernels (no error).
//! - `auto`: the vendor routine only where it is expected to win: the triangular solve (the
//!   native kernel is serial per right-hand side, the libraries schedule by levels). SpMV/SpMM
//!   and SpGEMM stay native (SpMV: 0.38 ms against cuSPARSE's 0.57 on the H200, through CuPy).
//!
//! The vendor path is not taken while the device's stream is capturing a graph (the IR kernels
//! are captured instead). Exact-zero sums of a vendor SpGEMM are removed afterwards (the
//! native semantics, SciPy's `csr_matmat`).

use crate::array::Array;
use crate::device::Device;
use cupy_core::backend::sparse::{SparseLibrary as Vendor, SparseRoutine};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use std::cell::Cell;
use std::sync::OnceLock;

/// The sparse implementation choice (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Library {
    /// The vendor routine where it is expected to win (the triangular solve), else native.
    Auto,
    /// The vendor routine wherever the device has one, else native.
    Vendor,
    /// cupy-rs's IR kernels.
    Native,
}

impl std::str::FromStr for Library {
    type Err = Error;
    fn from_str(s: &str) -> Result<Library> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(Library::Auto),
            "vendor" => Ok(Library::Vendor),
            "native" => Ok(Library::Native),
            other => Err(Error::invalid(
                "CUPY_SPARSE_LIBRARY",
                format!("{other:?} is not one of auto, vendor, native"),
            )),
        }
    }
}

thread_local! {
    static OVERRIDE: Cell<Option<Library>> = const { Cell::new(None) };
    static VENDOR_CALLS: Cell<usize> = const { Cell::new(0) };
}

/// The choice in effect on this thread: [`with_library`]'s, else `CUPY_SPARSE_LIBRARY`'s.
///
/// # Errors
/// [`Error::InvalidArgument`] when `CUPY_SPARSE_LIBRARY` holds another value.
pub fn library() -> Result<Library> {
    if let Some(l) = OVERRIDE.with(|o| o.get()) {
        return Ok(l);
    }
    static ENV: OnceLock<Result<Library>> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var("CUPY_SPARSE_LIBRARY") {
        Ok(v) => v.parse(),
        Err(_) => Ok(Library::Auto),
    })
    .clone()
}

/// Runs `f` with the sparse routines of this thread using `lib` (then restores the previous
/// choice, also when `f` panics).
pub fn with_library<R>(lib: Library, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Library>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|o| o.replace(Some(lib))));
    f()
}

/// How many sparse routines the vendor libraries have run on this thread (for tests that
/// check which path was taken).
#[doc(hidden)]
pub fn vendor_calls() -> usize {
    VENDOR_CALLS.with(|c| c.get())
}

/// Counts one vendor call that succeeded.
pub(crate) fn count_vendor_call() {
    VENDOR_CALLS.with(|c| c.set(c.get() + 1));
}

/// The device's vendor library when the choice asks for it for `routine` and the library takes
/// `dtype` values and `index` indices (it is loaded on this first question); `None` means the
/// native kernels run.
///
/// # Errors
/// A bad `CUPY_SPARSE_LIBRARY`.
pub(crate) fn vendor(
    dev: &Device,
    routine: SparseRoutine,
    dtype: DType,
    index: DType,
) -> Result<Option<&dyn Vendor>> {
    let wanted = match library()? {
        Library::Native => false,
        Library::Vendor => true,
        Library::Auto => matches!(routine, SparseRoutine::SpSv | SparseRoutine::SpSm),
    };
    if !wanted || crate::cuda::graph::current(dev).is_some() {
        return Ok(None);
    }
    let Some(lib) = dev.backend().sparse_library() else {
        return Ok(None);
    };
    Ok(lib.check(routine, dtype, index).ok().map(|_| lib))
}

/// `a` as a contiguous 1-d or 2-d array from element 0 of its own buffer (a copy otherwise),
/// as the vendor libraries read their operands.
pub(crate) fn dense(a: &Array) -> Result<Array> {
    if a.is_c_contiguous() && a.layout.offset == 0 {
        Ok(a.clone())
    } else {
        a.copy()
    }
}

/// Whether a vendor call's error means "run the native kernels instead" (the library refused
/// the call before doing anything).
pub(crate) fn refused(e: &Error) -> bool {
    matches!(e, Error::Unsupported { .. })
}

/// The CSR view of `c` for a vendor call: `c`'s arrays made [`dense`], `data` as `t`.
struct Csr {
    indptr: Array,
    indices: Array,
    data: Array,
    rows: usize,
    cols: usize,
}

impl Csr {
    fn of(c: &super::compressed::Compressed, t: DType) -> Result<Csr> {
        Ok(Csr {
            indptr: dense(&c.indptr)?,
            indices: dense(&c.indices)?,
            data: dense(&super::base::cast(&c.data, t)?)?,
            rows: c.major,
            cols: c.minor,
        })
    }
    fn r(&self) -> cupy_core::backend::sparse::CsrRef<'_> {
        cupy_core::backend::sparse::CsrRef {
            rows: self.rows,
            cols: self.cols,
            nnz: self.data.size(),
            indptr: &self.indptr.buffer,
            indices: &self.indices.buffer,
            data: &self.data.buffer,
        }
    }
    fn buffers(&self) -> [&cupy_core::backend::Buffer; 3] {
        [&self.indptr.buffer, &self.indices.buffer, &self.data.buffer]
    }
}

/// `c @ x` (SpMV for a 1-d `x`, SpMM for a 2-d one, `x` already of dtype `t`) by the vendor
/// library when [`vendor`] picks it; `None`: run the native kernel.
pub(crate) fn spmv(
    c: &super::compressed::Compressed,
    x: &Array,
    t: DType,
) -> Result<Option<Array>> {
    let dev = c.device();
    if c.nnz() == 0 || c.major == 0 || x.size() == 0 {
        return Ok(None);
    }
    let Some(lib) = vendor(dev, SparseRoutine::SpMv, t, c.index_dtype())? else {
        return Ok(None);
    };
    // Sorted columns without duplicates, as the libraries document their CSR input.
    let a = Csr::of(&c.canonicalized()?, t)?;
    let x = dense(x)?;
    let vector = x.ndim() == 1;
    let k = if vector { 1 } else { x.shape()[1] };
    let shape: Vec<usize> = if vector {
        vec![c.major]
    } else {
        vec![c.major, k]
    };
    let y = Array::zeros_on(dev, &shape, t)?;
    let mut reads = a.buffers().to_vec();
    reads.push(&x.buffer);
    crate::cuda::order::order(dev, &reads, &[&y.buffer])?;
    let call = cupy_core::backend::sparse::SpMvCall {
        a: a.r(),
        x: &x.buffer,
        y: &y.buffer,
        k,
        vector,
    };
    match lib.spmv(&call) {
        Ok(()) => {
            count_vendor_call();
            Ok(Some(y))
        }
        Err(e) if refused(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `a @ b` (both canonical, of value dtype `t` once cast) by the vendor library when
/// [`vendor`] picks it, exact-zero sums removed; `None`: run the native algorithms.
pub(crate) fn spgemm(
    a: &super::compressed::Compressed,
    b: &super::compressed::Compressed,
    t: DType,
    it: DType,
) -> Result<Option<super::compressed::Compressed>> {
    use super::compressed::Compressed;
    let dev = a.device().clone();
    let Some(lib) = vendor(&dev, SparseRoutine::SpGemm, t, it)? else {
        return Ok(None);
    };
    let cast_index = |c: &Compressed| -> Result<Compressed> {
        let mut c = c.canonicalized()?;
        c.indptr = super::base::cast(&c.indptr, it)?;
        c.indices = super::base::cast(&c.indices, it)?;
        Ok(c)
    };
    let (ca, cb) = (Csr::of(&cast_index(a)?, t)?, Csr::of(&cast_index(b)?, t)?);
    let indptr = Array::empty_on(&dev, &[a.major + 1], it)?;
    let mut kept: Vec<Array> = vec![];
    let mut reads = ca.buffers().to_vec();
    reads.extend(cb.buffers());
    crate::cuda::order::order(&dev, &reads, &[&indptr.buffer])?;
    let call = cupy_core::backend::sparse::SpGemmCall {
        a: ca.r(),
        b: cb.r(),
        c_indptr: &indptr.buffer,
    };
    let mut alloc =
        |nnz: usize| -> Result<(cupy_core::backend::Buffer, cupy_core::backend::Buffer)> {
            let ind = Array::empty_on(&dev, &[nnz], it)?;
            let val = Array::empty_on(&dev, &[nnz], t)?;
            crate::cuda::order::order(&dev, &[], &[&ind.buffer, &val.buffer])?;
            let bufs = (ind.buffer.clone(), val.buffer.clone());
            kept.push(ind);
            kept.push(val);
            Ok(bufs)
        };
    let nnz = match lib.spgemm(&call, &mut alloc) {
        Ok(n) => n,
        Err(e) if refused(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    count_vendor_call();
    if kept.len() != 2 {
        return Err(Error::invalid(
            "sparse @ sparse",
            format!(
                "{} asked for C's buffers {} times, not once",
                lib.library(),
                kept.len() / 2
            ),
        ));
    }
    let (indices, data) = (kept.remove(0), kept.remove(0));
    let c = Compressed::new_unchecked(
        super::base::sub(&data, 0, nnz),
        super::base::sub(&indices, 0, nnz),
        indptr,
        a.major,
        b.minor,
        None,
    );
    // Sorted columns without duplicates (cuSPARSE and rocSPARSE write them so; checked once),
    // then without the exact-zero sums.
    Ok(Some(c.canonicalized()?.without_zeros()?))
}

/// Solves `A x = b` for the triangle of `csr` (canonical, square) by the vendor library when
/// [`vendor`] picks it (`b` already of dtype `t`; 1-d: SpSV, 2-d `[n, k]`: SpSM); `None`: run
/// the native kernel.
pub(crate) fn spsv(
    csr: &super::compressed::Compressed,
    b: &Array,
    t: DType,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Option<Array>> {
    let dev = csr.device();
    if csr.major == 0 || b.size() == 0 {
        return Ok(None);
    }
    let vector = b.ndim() == 1;
    let routine = if vector {
        SparseRoutine::SpSv
    } else {
        SparseRoutine::SpSm
    };
    let Some(lib) = vendor(dev, routine, t, csr.index_dtype())? else {
        return Ok(None);
    };
    // Only the chosen triangle (and the diagonal unless it is taken as ones) is handed over.
    let tri = csr.triangle(lower, !unit_diagonal)?;
    let a = Csr::of(&tri, t)?;
    let b = dense(b)?;
    let x = Array::empty_on(dev, b.shape(), t)?;
    let mut reads = a.buffers().to_vec();
    reads.push(&b.buffer);
    crate::cuda::order::order(dev, &reads, &[&x.buffer])?;
    let res = if vector {
        lib.spsv(&cupy_core::backend::sparse::SpSvCall {
            a: a.r(),
            lower,
            unit_diagonal,
            b: &b.buffer,
            x: &x.buffer,
        })
    } else {
        lib.spsm(&cupy_core::backend::sparse::SpSmCall {
            a: a.r(),
            lower,
            unit_diagonal,
            b: &b.buffer,
            x: &x.buffer,
            k: b.shape()[1],
        })
    };
    match res {
        Ok(()) => {
            count_vendor_call();
            Ok(Some(x))
        }
        Err(e) if refused(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

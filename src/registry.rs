//! The routine registry: every NumPy/CuPy routine cupy-rs implements, with the backends that run
//! it. `docs/api-coverage.md` is generated from it ([`coverage_markdown`]); a test fails when the
//! committed file is stale (regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`).

use crate::math::ufunc::{kernel_with_lets, Ufunc};
use crate::statistics::reduction::Reduction;
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::kernel::math::Lets;
use cupy_core::{BackendKind, BackendProvider, DType};

/// How a routine is provided on one backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// Runs on the device.
    Yes,
    /// Runs on the device, with the restriction noted in the routine's notes.
    Partial,
    /// Not available.
    No,
    /// Computed from the backend's own answer ([`cupy_core::BackendProvider::check_kernel`]):
    /// runs every dtype NumPy has a loop for except these.
    Refuses(Vec<DType>),
}

/// One routine of the registry.
#[derive(Clone, Debug)]
pub struct Routine {
    /// NumPy/CuPy name, e.g. `"cupy.add"`.
    pub name: String,
    /// Category for the table.
    pub category: &'static str,
    /// Support on cpu, wgpu, cuda, hip (in that order).
    pub support: [Support; 4],
    /// Restrictions, or the family.
    pub notes: &'static str,
}

/// The backends' positions in [`Routine::support`].
const COLUMNS: [BackendKind; 4] = [
    BackendKind::Cpu,
    BackendKind::Wgpu,
    BackendKind::Cuda,
    BackendKind::Hip,
];

/// The elementwise kernel of `u` on operands of dtype `t` (as [`crate::apply`] builds it), or
/// `None` where NumPy has no loop.
fn ufunc_kernel(u: &Ufunc, t: DType) -> Option<Kernel> {
    let strong = vec![t; u.nin()];
    let (_, c, o) = u.loop_types(&strong, &[]).ok()?;
    let args = (0..u.nin()).map(|k| Expr::input(k, t).cast(c)).collect();
    let mut lets = Lets::default();
    let body = u.body(&mut lets, c, args).cast(o);
    Some(kernel_with_lets(u.name(), strong, vec![], lets, body))
}

/// Support of `u` per column, from each backend's verdict on the kernel of every dtype.
fn ufunc_support(u: &Ufunc) -> [Support; 4] {
    let kernels: Vec<(DType, Kernel)> = DType::ALL
        .iter()
        .filter_map(|&t| ufunc_kernel(u, t).map(|k| (t, k)))
        .collect();
    support_from(|p| {
        kernels
            .iter()
            .filter(|(_, k)| p.check_kernel(k).is_err())
            .map(|(t, _)| *t)
            .collect()
    })
}

/// Support of a reduction per column, from each backend's verdict on its kernel for every dtype
/// (complex max/min have no loop: NumPy orders complex, cupy-rs refuses them as TypeError).
fn reduction_support(r: Reduction) -> [Support; 4] {
    let kernels: Vec<(DType, cupy_core::kernel::ir::ReduceKernel)> = DType::ALL
        .iter()
        .filter_map(|&t| r.kernel(t, 8).ok().map(|(k, _)| (t, k)))
        .collect();
    support_from(|p| {
        kernels
            .iter()
            .filter(|(_, k)| p.check_reduction(k).is_err())
            .map(|(t, _)| *t)
            .collect()
    })
}

/// Support per column from `refused(provider)`, the dtypes a backend refuses.
fn support_from(refused: impl Fn(&dyn BackendProvider) -> Vec<DType>) -> [Support; 4] {
    let providers = crate::backends::providers();
    COLUMNS.map(|kind| match providers.iter().find(|p| p.kind() == kind) {
        Some(p) => Support::Refuses(refused(p.as_ref())),
        None => Support::No,
    })
}

/// Support of the scans and sorts (`src/ops/sorting.rs`) on cpu, wgpu, cuda, hip.
/// cuda: hand-written kernels of hip-kernels/ (NVRTC); hip: the same kernels, compiled by hipRTC
/// in CI, never run on AMD hardware.
const SORTING_SUPPORT: [Support; 4] = [
    Support::Yes,
    Support::Partial,
    Support::Partial,
    Support::Partial,
];
const SORTING_NOTES: &str = "axis None/int; sorts are stable (argsort = kind='stable'), NaN last; \
     complex only on cpu; cuda/hip: hip-kernels/ radix sort and block scan";

/// Every routine, in table order.
pub fn routines() -> Vec<Routine> {
    use Support::*;
    // cuda: run on the H200; hip: compiled by hipRTC in CI, never run on AMD hardware (Partial).
    let all = [Yes, Yes, Yes, Partial];
    let mut v = vec![];
    let mut add =
        |name: &str, category: &'static str, support: [Support; 4], notes: &'static str| {
            v.push(Routine {
                name: name.into(),
                category,
                support,
                notes,
            });
        };
    for n in [
        "array",
        "asarray",
        "empty",
        "zeros",
        "ones",
        "full",
        "empty_like",
        "zeros_like",
        "ones_like",
        "full_like",
        "arange",
        "linspace",
        "eye",
        "identity",
    ] {
        add(
            &format!("cupy.{n}"),
            "creation",
            all.clone(),
            if n == "linspace" {
                "values computed in float64 (NumPy's rule): the device needs float64"
            } else {
                ""
            },
        );
    }
    add(
        "cupy.asnumpy / ndarray.get",
        "transfer",
        all.clone(),
        "to_vec, to_ndarray, to_bytes",
    );
    add("ndarray.astype", "conversion", all.clone(), "");
    add("ndarray.copy", "conversion", all.clone(), "");
    add("cupy.copyto", "conversion", all.clone(), "Array::copy_from");
    add("ndarray.fill", "conversion", all.clone(), "");
    for n in [
        "reshape",
        "ravel",
        "transpose",
        "swapaxes",
        "expand_dims",
        "squeeze",
        "broadcast_to",
    ] {
        add(
            &format!("cupy.{n}"),
            "manipulation",
            all.clone(),
            "views where NumPy makes views",
        );
    }
    add(
        "ndarray.__getitem__ (basic)",
        "indexing",
        all.clone(),
        "s![] with Python slice semantics",
    );
    add(
        "cupy.take / ndarray.take",
        "indexing",
        all.clone(),
        "gather as one IR kernel; bounds checked first (one synchronisation), negative indices wrap",
    );
    add(
        "cupy.put / ndarray.put",
        "indexing",
        all.clone(),
        "scatter (raw stores) as one IR kernel; mode='raise' only; repeated indices: cpu keeps the last value, GPUs one of them",
    );
    add(
        "numpy.add.at / maximum.at / minimum.at (integer-array index, axis 0)",
        "indexing",
        [Yes, Partial, Yes, Partial],
        "atomic read-modify-write kernel; wgpu: no float64 atomics, no int64/uint64 max/min (WGSL has 32-bit atomics only; int64 add is split with carry)",
    );
    add(
        "cupyx.scatter_add / scatter_max / scatter_min (integer-array index along one axis)",
        "indexing",
        [Yes, Partial, Yes, Partial],
        "atomic read-modify-write kernel; float order of repeated indices unspecified; wgpu: no float64, no 64-bit integer max/min",
    );
    for u in crate::math::all_ufuncs() {
        add(
            &format!("cupy.{}", u.name()),
            "ufunc",
            ufunc_support(u),
            u.family(),
        );
    }
    for r in Reduction::ALL {
        add(
            &format!("cupy.{}", r.name()),
            "reduction",
            reduction_support(r),
            "axis, keepdims",
        );
    }
    add(
        "cupy.matmul",
        "linalg",
        [Yes, Partial, Yes, Partial],
        "BLAS for floats (wgpu: float32/float64; cuda: float16/bfloat16/float32/float64); integer and bool: one IR kernel with NumPy's wrap-around on every backend; complex on cpu, cuda and hip (cuBLAS/rocBLAS C/Z GEMM), refused on wgpu",
    );
    add(
        "cupy.dot",
        "linalg",
        [Yes, Partial, Yes, Partial],
        "1-D and 2-D operands; dtypes as matmul",
    );
    for n in ["cumsum", "cumprod", "sort", "argsort"] {
        add(
            &format!("cupy.{n}"),
            "sorting",
            SORTING_SUPPORT,
            SORTING_NOTES,
        );
    }
    add(
        "ndarray.sort",
        "sorting",
        SORTING_SUPPORT,
        "in place; stable",
    );
    add(
        "cupyx.scipy.signal.convolve2d",
        "signal",
        all.clone(),
        "boundary='fill', fillvalue=0",
    );
    add(
        "cupy.ElementwiseKernel",
        "custom kernels",
        all.clone(),
        "CuPy's strings parsed to the IR; raw outputs and scatter writes (bounds-checked); complex<T> math on cpu only",
    );
    add(
        "cupy.ReductionKernel",
        "custom kernels",
        all.clone(),
        "identity=None folds from the first element (NumPy's rule); reduce_type defaults to the output type",
    );
    add(
        "cupy.fuse",
        "custom kernels",
        all.clone(),
        "closures over Sym; a reduction only as the last step",
    );
    add(
        "cupy.RawKernel / cupy.RawModule",
        "custom kernels",
        [No, Yes, Yes, Partial],
        "backend-native source: CUDA C++ (NVRTC), HIP C++ (hipRTC), WGSL (bindings by position); cpu refuses",
    );
    add("cupy.show_config", "devices", all.clone(), "");
    v
}

/// The markdown of `docs/api-coverage.md`.
pub fn coverage_markdown() -> String {
    let mark = |s: &Support| match s {
        Support::Yes => "yes".to_string(),
        Support::Partial => "partial".to_string(),
        Support::No => "-".to_string(),
        Support::Refuses(d) if d.is_empty() => "yes".to_string(),
        Support::Refuses(d) => format!(
            "no {}",
            d.iter().map(|t| t.name()).collect::<Vec<_>>().join(" ")
        ),
    };
    let mut s = String::from(
        "# API coverage\n\nGenerated from the routine registry (`src/registry.rs`); a test fails when this file is stale.\n\
         `partial` under hip: compiled for AMD GPUs by hipRTC in CI, never run on AMD hardware.\n\
         Regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`.\n\n\
         | routine | category | cpu | wgpu | cuda | hip | notes |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in routines() {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            r.name,
            r.category,
            mark(&r.support[0]),
            mark(&r.support[1]),
            mark(&r.support[2]),
            mark(&r.support[3]),
            r.notes
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn coverage_doc_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/api-coverage.md");
        let want = super::coverage_markdown();
        if std::env::var_os("CUPY_BLESS").is_some() {
            std::fs::write(&path, &want).expect("write docs/api-coverage.md");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/api-coverage.md is stale: regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`"
        );
    }
}

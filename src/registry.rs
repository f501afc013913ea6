//! The routine registry: every NumPy/CuPy routine cupy-rs implements, with the backends that run
//! it. `docs/api-coverage.md` is generated from it ([`coverage_markdown`]); a test fails when the
//! committed file is stale (regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`).

use crate::math::ufunc::Ufunc;
use crate::statistics::reduction::Reduction;

/// How a routine is provided on one backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Runs on the device.
    Yes,
    /// Runs on the device, with the restriction noted in the routine's notes.
    Partial,
    /// Not available.
    No,
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
    /// Restrictions.
    pub notes: &'static str,
}

const WGPU_F64_MATH: &str =
    "wgpu: float64 transcendentals are refused (Vulkan has none); complex dtypes not yet";

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

/// Support of the tuple-accumulator reductions (argmax/argmin, var/std) on cpu, wgpu, cuda, hip:
/// wgpu lacks complex; cuda's kernels await their first run on the GPU machine
/// (backends/cuda/tests/all/tuple.rs); hip's are compiled by hipRTC in CI.
const TUPLE_SUPPORT: [Support; 4] = [
    Support::Yes,
    Support::Partial,
    Support::Partial,
    Support::Partial,
];

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
            all,
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
        all,
        "to_vec, to_ndarray, to_bytes",
    );
    add("ndarray.astype", "conversion", all, "");
    add("ndarray.copy", "conversion", all, "");
    add("cupy.copyto", "conversion", all, "Array::copy_from");
    add("ndarray.fill", "conversion", all, "");
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
            all,
            "views where NumPy makes views",
        );
    }
    add(
        "ndarray.__getitem__ (basic)",
        "indexing",
        all,
        "s![] with Python slice semantics",
    );
    add(
        "cupy.take / ndarray.take",
        "indexing",
        all,
        "gather as one IR kernel; bounds checked first (one synchronisation), negative indices wrap",
    );
    add(
        "cupy.put / ndarray.put",
        "indexing",
        all,
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
    for u in Ufunc::ALL {
        let transcendental = matches!(
            u,
            Ufunc::Exp
                | Ufunc::Log
                | Ufunc::Sin
                | Ufunc::Cos
                | Ufunc::Tan
                | Ufunc::Tanh
                | Ufunc::Power
                | Ufunc::Arctan2
        );
        add(
            &format!("cupy.{}", u.name()),
            "ufunc",
            if transcendental {
                [Yes, Partial, Yes, Partial]
            } else {
                all
            },
            if transcendental { WGPU_F64_MATH } else { "" },
        );
    }
    for r in Reduction::ALL {
        add(
            &format!("cupy.{}", r.name()),
            "reduction",
            all,
            "axis, keepdims",
        );
    }
    // Tuple-accumulator reductions (src/sorting/search.rs, src/statistics/moments.rs).
    for n in ["argmax", "argmin"] {
        add(
            &format!("cupy.{n}"),
            "sorting",
            TUPLE_SUPPORT,
            "axis None/int, keepdims; first occurrence, first NaN wins; complex lexicographic (not on wgpu)",
        );
    }
    for n in ["var", "std"] {
        add(
            &format!("cupy.{n}"),
            "reduction",
            TUPLE_SUPPORT,
            "axis, ddof, keepdims; Chan's parallel combine; float16 accumulates in float32; complex gives the real variance (not on wgpu)",
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
        all,
        "boundary='fill', fillvalue=0",
    );
    add(
        "cupy.ElementwiseKernel",
        "custom kernels",
        all,
        "CuPy's strings parsed to the IR; raw outputs and scatter writes (bounds-checked); complex<T> math on cpu only",
    );
    add(
        "cupy.ReductionKernel",
        "custom kernels",
        all,
        "identity=None folds from the first element (NumPy's rule); reduce_type defaults to the output type",
    );
    add(
        "cupy.fuse",
        "custom kernels",
        all,
        "closures over Sym; a reduction only as the last step",
    );
    add(
        "cupy.RawKernel / cupy.RawModule",
        "custom kernels",
        [No, Yes, Yes, Partial],
        "backend-native source: CUDA C++ (NVRTC), HIP C++ (hipRTC), WGSL (bindings by position); cpu refuses",
    );
    add("cupy.show_config", "devices", all, "");
    v
}

/// The markdown of `docs/api-coverage.md`.
pub fn coverage_markdown() -> String {
    let mark = |s: Support| match s {
        Support::Yes => "yes",
        Support::Partial => "partial",
        Support::No => "-",
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
            mark(r.support[0]),
            mark(r.support[1]),
            mark(r.support[2]),
            mark(r.support[3]),
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

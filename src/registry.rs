//! The routine registry: every NumPy/CuPy routine cupy-rs implements, with the backends that run
//! it. `docs/api-coverage.md` is generated from it ([`coverage_markdown`]); a test fails when the
//! committed file is stale (regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`).

use crate::math::ufunc::{kernel_with_lets, Ufunc};
use crate::statistics::reduction::Reduction;
use cupy_core::backend::Primitive;
use cupy_core::kernel::ir::{AtomicOp, Expr, Kernel, ReduceKernel, Stmt};
use cupy_core::kernel::math::Lets;
use cupy_core::{BackendKind, BackendProvider, DType};

/// How a routine is provided on one backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// Not available (the backend is not in this build).
    No,
    /// Computed from the backend's own answer ([`cupy_core::BackendProvider::check_kernel`]):
    /// of the `of` dtypes NumPy has a loop for, the backend refuses these.
    Refuses {
        /// The refused dtypes.
        refused: Vec<DType>,
        /// How many dtypes were asked.
        of: usize,
    },
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
    needs_support(
        DType::ALL
            .iter()
            .filter_map(|&t| ufunc_kernel(u, t).map(|k| (t, Need::Kernel(k))))
            .collect(),
    )
}

/// Support of a reduction per column, from each backend's verdict on its kernel for every dtype
/// (complex max/min have no loop: NumPy orders complex, cupy-rs refuses them as TypeError).
fn reduction_support(r: &Reduction) -> [Support; 4] {
    needs_support(
        DType::ALL
            .iter()
            .filter_map(|&t| r.kernel(t, 8).ok().map(|(k, _)| (t, Need::Reduction(k))))
            .collect(),
    )
}

/// Support per column from `refused(provider)`, the dtypes (of `of` asked) a backend refuses.
fn support_from(of: usize, refused: impl Fn(&dyn BackendProvider) -> Vec<DType>) -> [Support; 4] {
    let providers = crate::backends::providers();
    COLUMNS.map(|kind| match providers.iter().find(|p| p.kind() == kind) {
        Some(p) => Support::Refuses {
            refused: refused(p.as_ref()),
            of,
        },
        None => Support::No,
    })
}

/// What a routine needs from a backend for one dtype (the registry's capability probe).
pub enum Need {
    /// Storing the dtype (a `fill` kernel): views, copies, transfers, host-computed creation.
    Store,
    /// This elementwise kernel.
    Kernel(Kernel),
    /// This reduction kernel.
    Reduction(ReduceKernel),
    /// A backend primitive.
    Primitive(Primitive),
}

/// A routine's probe: what it needs for operands of a dtype (`None`: NumPy has no loop).
type Probe = fn(DType) -> Option<Need>;

fn store(_: DType) -> Option<Need> {
    Some(Need::Store)
}

fn fill_kernel(t: DType) -> Kernel {
    Kernel::map("fill", vec![], vec![t], Expr::param(0, t))
}

/// The gather of `take`: a raw load at an integer index.
fn gather(t: DType) -> Option<Need> {
    let mut k = Kernel::map(
        "take",
        vec![DType::Int64],
        vec![],
        Expr::load(0, t, Expr::input(0, DType::Int64)),
    );
    k.raws = vec![t];
    Some(Need::Kernel(k))
}

/// A raw write at an integer index (`put`), or an atomic update (`add.at`, `scatter_*`).
fn scatter(t: DType, op: Option<AtomicOp>) -> Need {
    let (index, value) = (Expr::input(0, DType::Int64), Expr::input(1, t));
    let stmt = match op {
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index,
            value,
        },
        None => Stmt::StoreRaw {
            raw: 0,
            index,
            value,
        },
    };
    Need::Kernel(Kernel {
        name: "scatter".into(),
        inputs: vec![DType::Int64, t],
        outputs: vec![],
        raws: vec![t],
        params: vec![],
        locals: vec![],
        body: vec![stmt],
    })
}

/// `matmul`/`dot`: integers and bool by the IR kernel, floats and complex by the GEMM.
fn gemm(t: DType) -> Option<Need> {
    Some(if t.is_integer() || t.is_bool() {
        Need::Kernel(crate::linalg::gemm_ir_kernel(t))
    } else {
        Need::Primitive(Primitive::Gemm)
    })
}

/// Every routine that is not a ufunc or a reduction: (name, category, probe, notes).
const ROUTINES: &[(&str, &str, Probe, &str)] = &[
    ("cupy.array", "creation", store, ""),
    ("cupy.asarray", "creation", store, ""),
    ("cupy.empty", "creation", store, ""),
    ("cupy.zeros", "creation", store, ""),
    ("cupy.ones", "creation", store, ""),
    ("cupy.full", "creation", store, ""),
    ("cupy.empty_like", "creation", store, ""),
    ("cupy.zeros_like", "creation", store, ""),
    ("cupy.ones_like", "creation", store, ""),
    ("cupy.full_like", "creation", store, ""),
    ("cupy.arange", "creation", store, "int64/float64 arithmetic (int32/float32 on a device without them, when the values allow)"),
    ("cupy.linspace", "creation", store, "values computed on the host in float64 (NumPy's rule), then uploaded"),
    ("cupy.eye", "creation", store, ""),
    ("cupy.identity", "creation", store, ""),
    ("cupy.asnumpy / ndarray.get", "transfer", store, "to_vec, to_ndarray, to_bytes"),
    ("ndarray.astype", "conversion", store, ""),
    ("ndarray.copy", "conversion", store, ""),
    ("cupy.copyto", "conversion", store, "Array::copy_from"),
    ("ndarray.fill", "conversion", store, ""),
    ("cupy.reshape", "manipulation", store, "views where NumPy makes views"),
    ("cupy.ravel", "manipulation", store, "views where NumPy makes views"),
    ("cupy.transpose", "manipulation", store, "views"),
    ("cupy.swapaxes", "manipulation", store, "views"),
    ("cupy.expand_dims", "manipulation", store, "views"),
    ("cupy.squeeze", "manipulation", store, "views"),
    ("cupy.broadcast_to", "manipulation", store, "views"),
    ("ndarray.__getitem__ (basic)", "indexing", store, "s![] with Python slice semantics"),
    ("cupy.take / ndarray.take", "indexing", gather, "gather as one IR kernel; bounds checked first (one synchronisation), negative indices wrap"),
    ("cupy.put / ndarray.put", "indexing", |t| Some(scatter(t, None)), "scatter (raw stores) as one IR kernel; mode='raise' only; repeated indices: cpu keeps the last value, GPUs one of them"),
    ("numpy.add.at (integer-array index, axis 0)", "indexing", |t| Some(scatter(t, Some(AtomicOp::Add))), "atomic read-modify-write kernel (WGSL has 32-bit atomics only; int64 add is split with carry)"),
    ("numpy.maximum.at / minimum.at (integer-array index, axis 0)", "indexing", |t| Some(scatter(t, Some(AtomicOp::Max))), "atomic read-modify-write kernel"),
    ("cupyx.scatter_add (integer-array index along one axis)", "indexing", |t| Some(scatter(t, Some(AtomicOp::Add))), "atomic kernel; float order of repeated indices unspecified"),
    ("cupyx.scatter_max / scatter_min", "indexing", |t| Some(scatter(t, Some(AtomicOp::Max))), "atomic kernel"),
    ("numpy.ufunc.reduce (reorderable: add, multiply, maximum, minimum, fmax, fmin, logical and bitwise ops, hypot, logaddexp)", "ufunc method", |t| crate::math::methods::probe("reduce", t), "one reduction kernel, the ufunc's body as combine; axis int/tuple/None, dtype, out, keepdims, initial, where (cells: add)"),
    ("numpy.ufunc.reduce (in order: subtract, divide, power, arctan2, ...)", "ufunc method", |t| crate::math::methods::probe("reduce_ordered", t), "one thread per output folds in order; one axis, as NumPy (cells: subtract)"),
    ("numpy.ufunc.accumulate", "ufunc method", |t| crate::math::methods::probe("accumulate", t), "add/multiply: the scan primitive; the others an in-order fold per row (cells: maximum)"),
    ("numpy.ufunc.reduceat", "ufunc method", |t| crate::math::methods::probe("reduceat", t), "in-order fold per segment; indices checked on the host (cells: add)"),
    ("numpy.ufunc.outer", "ufunc method", |t| crate::math::methods::probe("outer", t), "the ufunc call on a reshaped operand, with out, dtype, where, casting (cells: add)"),
    ("numpy.ufunc.at (integer-array index, axis 0)", "ufunc method", |t| crate::math::methods::probe("at", t), "add/maximum/minimum: atomics where the loop is the target's dtype; the rest in index order, parallel over a.shape[1:] (cells: multiply)"),
    ("cupy.matmul", "linalg", gemm, "BLAS for floats and complex; integer and bool: one IR kernel with NumPy's wrap-around"),
    ("cupy.dot", "linalg", gemm, "1-D and 2-D operands; dtypes as matmul"),
    ("cupy.cumsum", "sorting", |_| Some(Need::Primitive(Primitive::Scan)), "axis None/int, dtype= (cumsum_with); cuda/hip: hip-kernels/ block scan"),
    ("cupy.cumprod", "sorting", |_| Some(Need::Primitive(Primitive::Scan)), "axis None/int"),
    ("cupy.sort", "sorting", |_| Some(Need::Primitive(Primitive::Sort)), "stable, NaN last (complex: NumPy's NaN classes); cuda/hip: hip-kernels/ radix sort"),
    ("cupy.argsort", "sorting", |_| Some(Need::Primitive(Primitive::Sort)), "kind='stable'"),
    ("ndarray.sort", "sorting", |_| Some(Need::Primitive(Primitive::Sort)), "in place; stable"),
    ("cupyx.scipy.signal.convolve2d", "signal", |t| (t.is_integer() || t.is_float()).then(|| Need::Kernel(crate::scipy::signal::kernel(t))), "mode 'full' by default (convolve2d_with for 'same'/'valid'); boundary='fill', fillvalue=0"),
    ("cupy.ElementwiseKernel", "custom kernels", store, "CuPy's strings parsed to the IR; raw outputs and scatter writes (bounds-checked); complex<T> math on cpu only"),
    ("cupy.ReductionKernel", "custom kernels", store, "identity=None folds from the first element (NumPy's rule); reduce_type defaults to the output type"),
    ("cupy.fuse", "custom kernels", store, "closures over Sym; a reduction only as the last step"),
    ("cupy.RawKernel / cupy.RawModule", "custom kernels", |t| (t == DType::Float32).then_some(Need::Primitive(Primitive::RawKernel)), "backend-native source: CUDA C++ (NVRTC), HIP C++ (hipRTC), WGSL (bindings by position); cpu refuses"),
    ("cupy.show_config", "devices", |t| (t == DType::Float32).then_some(Need::Store), ""),
];

/// Support of a probed routine per column.
fn probe_support(probe: Probe) -> [Support; 4] {
    needs_support(
        DType::ALL
            .iter()
            .filter_map(|&t| probe(t).map(|n| (t, n)))
            .collect(),
    )
}

/// Support per column from each backend's answer to every `(dtype, need)`.
fn needs_support(needs: Vec<(DType, Need)>) -> [Support; 4] {
    support_from(needs.len(), |p| {
        needs
            .iter()
            .filter(|(t, n)| {
                let r = match n {
                    Need::Store => p.check_kernel(&fill_kernel(*t)),
                    Need::Kernel(k) => p.check_kernel(k),
                    Need::Reduction(k) => p.check_reduction(k),
                    Need::Primitive(prim) => p.check_primitive(*prim, *t),
                };
                r.is_err()
            })
            .map(|(t, _)| *t)
            .collect()
    })
}

/// Every routine, in table order.
pub fn routines() -> Vec<Routine> {
    let mut v = vec![];
    let row = |name: String, category: &'static str, support: [Support; 4], notes: &'static str| {
        Routine {
            name,
            category,
            support,
            notes,
        }
    };
    let (first, rest) =
        ROUTINES.split_at(ROUTINES.iter().position(|r| r.1 == "linalg").unwrap_or(0));
    for &(name, category, probe, notes) in first {
        v.push(row(name.into(), category, probe_support(probe), notes));
    }
    for u in crate::math::all_ufuncs() {
        v.push(row(
            format!("cupy.{}", u.name()),
            "ufunc",
            ufunc_support(u),
            u.family(),
        ));
    }
    for r in crate::statistics::all_reductions() {
        v.push(row(
            format!("cupy.{}", r.name()),
            "reduction",
            reduction_support(r),
            "axis, keepdims",
        ));
    }
    for &(name, category, probe, notes) in rest {
        v.push(row(name.into(), category, probe_support(probe), notes));
    }
    v
}

/// The markdown of `docs/api-coverage.md`.
pub fn coverage_markdown() -> String {
    let mark = |s: &Support| match s {
        Support::No => "-".to_string(),
        Support::Refuses { refused, .. } if refused.is_empty() => "yes".to_string(),
        Support::Refuses { refused, of } if refused.len() == *of => "-".to_string(),
        Support::Refuses { refused, .. } => format!(
            "no {}",
            refused
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    let mut s = String::from(
        "# API coverage\n\nGenerated from the routine registry (`src/registry.rs`); a test fails when this file is stale.\n\
         Each backend cell is that backend's own answer (`BackendProvider::check_kernel`, \
         `check_reduction`, `check_primitive`: its code generator's verdict, no device opened) for \
         every dtype NumPy has a loop for: `yes`, `no <dtypes>` (refused dtypes), `-` (none). wgpu \
         assumes an adapter with SHADER_F64 and SHADER_INT64. hip: compiled for AMD GPUs by hipRTC \
         in CI, never run on AMD hardware.\n\
         Regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`. What is not listed is not \
         here yet: [What is not here yet](../README.md#what-is-not-here-yet) lists it in one place.\n\n\
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

//! The routine registry: every NumPy/CuPy routine cupy-rs implements, with the backends that run
//! it. `docs/api-coverage.md` is generated from it ([`coverage_markdown`]); a test fails when the
//! committed file is stale (regenerate with `CUPY_BLESS=1 cargo test -p cupy --lib coverage`).
//!
//! This file is the machinery only; no routine is listed here. The rows come from the
//! declarations: `ufuncs!` (src/math/), `reductions!` (src/statistics/, src/sorting/search.rs)
//! and, for every other routine, one `routine!` line beside its function in its family's file
//! ([`Declared`]).

use crate::math::ufunc::Ufunc;
use crate::statistics::reduction::Reduction;
use cupy_core::backend::Primitive;
use cupy_core::kernel::ir::{Expr, Kernel, ReduceKernel};
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
pub(crate) fn ufunc_kernel(u: &Ufunc, t: DType) -> Option<Kernel> {
    u.kernel(&vec![t; u.nin()], u.name()).ok()
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

/// A routine's capability probe: what it needs for operands of a dtype (`None`: NumPy has no
/// loop for that dtype, so the dtype is not asked).
pub type Probe = fn(DType) -> Option<Need>;

/// The default probe: storing the dtype is all the routine needs (views, copies, transfers,
/// creation computed on the host).
pub fn store(_: DType) -> Option<Need> {
    Some(Need::Store)
}

fn fill_kernel(t: DType) -> Kernel {
    Kernel::map("fill", vec![], vec![t], Expr::param(0, t))
}

/// The categories of the coverage table, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// `cupy.zeros`, `cupy.arange`, `cupy.array`, ...
    Creation,
    /// Device to host (`cupy.asnumpy`).
    Transfer,
    /// Dtype conversion and copies (`ndarray.astype`, `cupy.copyto`).
    Conversion,
    /// Shapes and views (`cupy.reshape`, `cupy.transpose`, ...).
    Manipulation,
    /// Basic and integer-array indexing, scatters.
    Indexing,
    /// The ufuncs (rows from [`crate::math::all_ufuncs`]).
    Ufunc,
    /// Math routines built on ufunc kernels that are not ufuncs (`clip`, `where`, `round`).
    Math,
    /// The methods of the ufunc objects (`ufuncs::add.reduce`, `accumulate`, `outer`, `at`,
    /// `reduceat`).
    UfuncMethod,
    /// The reductions (rows from [`crate::statistics::all_reductions`]).
    Reduction,
    /// Statistics that are not one reduction (`cupy.average`, `cupy.median`, `cupy.cov`,
    /// `cupy.histogram`, ...).
    Statistics,
    /// `cupy.matmul`, `cupy.dot`, ...
    Linalg,
    /// `cupy.fft` and `cupyx.scipy.fft`.
    Fft,
    /// Scans and sorts.
    Sorting,
    /// `cupyx.scipy.signal`.
    Signal,
    /// `cupyx.scipy.special` (its ufunc rows from [`crate::scipy::special::all_ufuncs`]).
    Special,
    /// `cupyx.scipy.sparse` and `cupyx.scipy.sparse.linalg`.
    Sparse,
    /// `cupy.random`: generators, distributions, permutations.
    Random,
    /// User kernels: `ElementwiseKernel`, `ReductionKernel`, `fuse`, `RawKernel`.
    CustomKernels,
    /// Devices and configuration.
    Devices,
    /// Input and output (`cupy.save`, `cupy.load`, `cupy.savez`).
    Io,
}

impl Category {
    /// Every category, in table order.
    pub const ALL: [Category; 20] = [
        Category::Creation,
        Category::Transfer,
        Category::Conversion,
        Category::Manipulation,
        Category::Indexing,
        Category::Ufunc,
        Category::Math,
        Category::UfuncMethod,
        Category::Reduction,
        Category::Statistics,
        Category::Linalg,
        Category::Fft,
        Category::Sorting,
        Category::Signal,
        Category::Special,
        Category::Sparse,
        Category::Random,
        Category::CustomKernels,
        Category::Devices,
        Category::Io,
    ];

    /// The name in the table's `category` column.
    pub fn name(self) -> &'static str {
        match self {
            Category::Creation => "creation",
            Category::Transfer => "transfer",
            Category::Conversion => "conversion",
            Category::Manipulation => "manipulation",
            Category::Indexing => "indexing",
            Category::Ufunc => "ufunc",
            Category::Math => "math",
            Category::UfuncMethod => "ufunc method",
            Category::Reduction => "reduction",
            Category::Statistics => "statistics",
            Category::Linalg => "linalg",
            Category::Fft => "fft",
            Category::Sorting => "sorting",
            Category::Signal => "signal",
            Category::Special => "special",
            Category::Sparse => "sparse",
            Category::Random => "random",
            Category::CustomKernels => "custom kernels",
            Category::Devices => "devices",
            Category::Io => "io",
        }
    }
}

/// The registry row of one routine that is neither a ufunc nor a reduction, as `routine!`
/// declares it beside the routine's function (the rows are gathered with `inventory`, so no
/// file lists them).
pub struct Declared {
    /// The name(s) as CuPy spells them: `"cupy.zeros"`, `"cupy.take / ndarray.take"`.
    pub name: &'static str,
    /// The table's category.
    pub category: Category,
    /// What the routine needs from a backend, per dtype.
    pub probe: Probe,
    /// Restrictions and remarks for the table.
    pub notes: &'static str,
    /// Where it is declared (`module_path!()`, `line!()`): the order of the rows within a
    /// category.
    pub site: (&'static str, u32),
}

inventory::collect!(Declared);

/// Every `routine!` declaration, sorted by category, then by where it is declared (module path
/// and line), so the table's order is deterministic and follows the family files.
pub fn declared() -> Vec<&'static Declared> {
    let mut v: Vec<&'static Declared> = inventory::iter::<Declared>.into_iter().collect();
    v.sort_by_key(|d| (d.category, d.site));
    v
}

/// Declares the registry row of a routine that is neither a ufunc nor a reduction, beside its
/// function (the one place a routine is listed; `docs/api-coverage.md` is generated from it):
///
/// ```text
/// routine!(reshape, Manipulation, notes: "views where NumPy makes views");
/// routine!(take as "cupy.take / ndarray.take", Indexing, probe: gather, notes: "...");
/// routine!("ndarray.astype", Conversion);
/// ```
///
/// The first word names the public function (or type) of the row, which must exist in the
/// module: its CuPy name is `cupy.<ident>` unless `as "<name>"` spells it (other names,
/// `cupyx.`, `numpy.`); a string alone names a routine with no free function (a method such
/// as `ndarray.astype`). Then the [`Category`] variant, then optionally `probe:` (a
/// [`Probe`]; default [`store`]: storing the dtype is all it needs) and `notes:` (a string
/// literal).
macro_rules! routine {
    ($f:ident as $name:literal, $category:ident $(, $key:ident : $value:expr)* $(,)?) => {
        #[allow(unused_imports)]
        use self::$f as _;
        routine!(@row $name, $category $(, $key: $value)*);
    };
    ($f:ident, $category:ident $(, $key:ident : $value:expr)* $(,)?) => {
        #[allow(unused_imports)]
        use self::$f as _;
        routine!(@row concat!("cupy.", stringify!($f)), $category $(, $key: $value)*);
    };
    ($name:literal, $category:ident $(, $key:ident : $value:expr)* $(,)?) => {
        routine!(@row $name, $category $(, $key: $value)*);
    };
    (@row $name:expr, $category:ident $(, probe: $probe:expr)? $(, notes: $notes:expr)?) => {
        ::inventory::submit! {
            $crate::registry::Declared {
                name: $name,
                category: $crate::registry::Category::$category,
                probe: routine!(@or $($probe)?, $crate::registry::store),
                notes: routine!(@or $($notes)?, ""),
                site: (module_path!(), line!()),
            }
        }
    };
    (@or , $default:expr) => { $default };
    (@or $given:expr, $default:expr) => { $given };
}

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

/// Every routine, in table order: by [`Category`]; within one, the ufuncs and reductions in
/// their families' order and the `routine!` rows as [`declared`] sorts them.
pub fn routines() -> Vec<Routine> {
    let declared = declared();
    let mut v = vec![];
    for category in Category::ALL {
        let row = |name: String, support: [Support; 4], notes: &'static str| Routine {
            name,
            category: category.name(),
            support,
            notes,
        };
        for d in declared.iter().filter(|d| d.category == category) {
            v.push(row(d.name.into(), probe_support(d.probe), d.notes));
        }
        match category {
            Category::Ufunc => {
                for u in crate::math::all_ufuncs() {
                    v.push(row(
                        format!("cupy.{}", u.name()),
                        ufunc_support(u),
                        u.family(),
                    ));
                }
            }
            Category::Special => {
                for u in crate::scipy::special::all_ufuncs() {
                    v.push(row(
                        format!("{}.{}", u.module(), u.name()),
                        ufunc_support(u),
                        u.family(),
                    ));
                }
            }
            Category::Reduction => {
                for r in crate::statistics::all_reductions() {
                    let name = format!("cupy.{}", r.name());
                    v.push(row(name, reduction_support(r), r.notes()));
                }
            }
            _ => {}
        }
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
        "# API coverage\n\nGenerated from the routine registry (`src/registry.rs`: the `ufuncs!`, `reductions!` and \
         `routine!` declarations in the family files); a test fails when this file is stale.\n\
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
    /// No routine is declared twice, and every `routine!` row was collected (one per family
    /// checked by name).
    #[test]
    fn every_routine_is_listed_once() {
        let rows = super::routines();
        let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a routine is declared twice");
        for want in [
            "cupy.zeros",
            "cupy.asarray",
            "cupy.asnumpy / ndarray.get",
            "ndarray.astype",
            "cupy.reshape",
            "cupy.swapaxes",
            "cupy.broadcast_to",
            "ndarray.__getitem__ (basic)",
            "cupy.take / ndarray.take",
            "cupy.add",
            "cupy.sum",
            "cupy.matmul",
            "ndarray.sort",
            "cupyx.scipy.signal.convolve2d",
            "cupy.RawKernel / cupy.RawModule",
            "cupy.show_config",
        ] {
            assert!(names.binary_search(&want).is_ok(), "{want} is missing");
        }
        let declared = super::declared();
        assert!(declared.windows(2).all(|w| w[0].category <= w[1].category));
        assert!(declared.iter().all(|d| !matches!(
            d.category,
            super::Category::Ufunc | super::Category::Reduction
        )));
    }

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

//! Sorting: `sort`, `argsort`, `lexsort`, `sort_complex` (NumPy's API), on the backend's
//! [`Backend::sort`](cupy_core::Backend::sort) primitive over `[batch, n]` rows (see
//! [`super`]).

use super::kernels::gather_rows;
use super::{at_least_1d, back, rows};
use crate::array::Array;
use crate::registry::Need;
use cupy_core::backend::{Operand, Primitive, SortCall};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, UnaryOp};
use cupy_core::layout::Layout;

/// Keyword arguments of [`sort_with`] and [`argsort_with`] (and the methods): NumPy's `axis=`,
/// default `Some(-1)` (the last axis); `None` sorts the flattened array. Sorts are always
/// stable (`kind='stable'`). An axis converts into it: `cp::sort_with(&a, 0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    /// The axis to sort along (`axis=`); `None`: the flattened array.
    pub axis: Option<isize>,
}

impl Default for Sort {
    fn default() -> Sort {
        Sort { axis: Some(-1) }
    }
}
axis_options!(Sort);

/// True if the device's own sort primitive takes `dtype` (its capability answer); otherwise a
/// complex sort is composed from real ones ([`sort_rows`]).
fn native_sort(device: &crate::device::Device, dtype: DType) -> bool {
    crate::backends::providers()
        .iter()
        .find(|p| p.kind() == device.kind())
        .is_some_and(|p| p.check_primitive(Primitive::Sort, dtype).is_ok())
}

/// The backend sort of fresh C-contiguous `[batch, n]` rows `c` (layout `l`) in place,
/// carrying int64 indices (`0..n` per row, returned with `c`'s layout) when asked.
fn primitive_sort(c: &Array, l: &Layout, with_indices: bool) -> Result<Option<Array>> {
    primitive_sort_from(c, None, l, with_indices, false)
}

/// [`primitive_sort`], reading the keys from `source` (C-contiguous, `c`'s shape and dtype, not
/// written) when given: `c` then receives them sorted (the backend's out-of-place sort,
/// [`cupy_core::Backend::sort_reads_source`]). `discard_keys` (with indices): the caller wants
/// the indices alone, so the backend may leave `c` unwritten ([`SortCall::discard_keys`]).
fn primitive_sort_from(
    c: &Array,
    source: Option<&Array>,
    l: &Layout,
    with_indices: bool,
    discard_keys: bool,
) -> Result<Option<Array>> {
    // argsort: the backend writes the positions itself (`values_are_positions`: the values'
    // contents are ignored), so they are not initialised here
    let idx = if with_indices {
        Some(Array::empty_on(&c.device, c.shape(), DType::Int64)?.with_layout(c.layout.clone()))
    } else {
        None
    };
    if c.size() > 0 {
        let mut writes = vec![&c.buffer];
        writes.extend(idx.as_ref().map(|v| &v.buffer));
        let reads: Vec<_> = source.iter().map(|s| &s.buffer).collect();
        crate::cuda::order::order(&c.device, &reads, &writes)?;
        let call = SortCall {
            keys: Operand {
                buffer: &c.buffer,
                layout: l.clone(),
            },
            values: idx.as_ref().map(|v| Operand {
                buffer: &v.buffer,
                layout: l.clone(),
            }),
            values_are_positions: true,
            source: source.map(|s| Operand {
                buffer: &s.buffer,
                layout: Layout {
                    offset: s.layout.offset,
                    ..l.clone()
                },
            }),
            discard_keys,
        };
        crate::cuda::record::submit(&c.device, crate::cuda::record::Call::Sort(&call))?;
    }
    Ok(idx)
}

/// The stable argsort of fresh C-contiguous rows `c` (sorted in place as a side effect).
fn argsort_rows(c: &Array, l: &Layout) -> Result<Array> {
    primitive_sort(c, l, true)?.ok_or_else(|| Error::invalid("argsort", "no indices"))
}

/// Refines the row permutation `p` by the stable order of `key` (rows of `p`'s layout):
/// `p[argsort(key[p])]`, one step of a least-significant-key-first lexicographic sort.
fn refine(op: &str, p: &Array, key: &Array, l: &Layout) -> Result<Array> {
    let k = gather_rows(op, key, p)?;
    let q = argsort_rows(&k, l)?;
    gather_rows(op, p, &q)
}

/// The stable complex sort composed from real ones (for backends whose sort primitive has no
/// complex keys): NumPy's order is lexicographic on (NaN class, real part, imaginary part),
/// class `2 * isnan(re) + isnan(im)`, so three stable argsorts, least significant key first
/// (imaginary part, real part, class), each followed by a gather, give the permutation.
pub(crate) fn composed_complex_argsort(op: &str, c: &Array, l: &Layout) -> Result<Array> {
    let part = |k: &Kernel| -> Result<Array> {
        let out = Array::empty_on(c.device(), c.shape(), k.outputs[0])?;
        crate::launch::Elementwise {
            op,
            kernel: k,
            inputs: &[c],
            raws: &[],
            params: vec![],
            outs: vec![Some(&out)],
            device: None,
            shape: None,
        }
        .run()?;
        Ok(out)
    };
    let [kre, kim, kcls] = complex_key_kernels(c.dtype());
    let (re, im, cls) = (part(&kre)?, part(&kim)?, part(&kcls)?);
    let p = argsort_rows(&im, l)?;
    let p = refine(op, &p, &re, l)?;
    refine(op, &p, &cls, l)
}

/// The kernels of [`composed_complex_argsort`]'s keys of complex dtype `t`: real part,
/// imaginary part, and the NaN class `2 * isnan(re) + isnan(im)` (uint8).
pub(crate) fn complex_key_kernels(t: DType) -> [Kernel; 3] {
    let x = Expr::input(0, t);
    let nan = |e: Expr| Expr::unary(UnaryOp::IsNan, e).cast(DType::UInt8);
    let class = Expr::binary(
        BinaryOp::Add,
        Expr::binary(
            BinaryOp::Mul,
            nan(Expr::unary(UnaryOp::Real, x.clone())),
            Expr::constant(cupy_core::Scalar::UInt8(2)),
        ),
        nan(Expr::unary(UnaryOp::Imag, x.clone())),
    );
    [
        Kernel::map(
            "sort_real",
            vec![t],
            vec![],
            Expr::unary(UnaryOp::Real, x.clone()),
        ),
        Kernel::map("sort_imag", vec![t], vec![], Expr::unary(UnaryOp::Imag, x)),
        Kernel::map("sort_class", vec![t], vec![], class),
    ]
}

/// Sorts fresh C-contiguous `[batch, n]` rows `c` (layout `l`) in place, stably, returning the
/// permutation (with `c`'s layout) when asked: the backend's primitive, or for complex keys it
/// lacks, [`composed_complex_argsort`] and a gather.
pub(crate) fn sort_rows(
    op: &str,
    c: &Array,
    l: &Layout,
    with_indices: bool,
) -> Result<Option<Array>> {
    let t = c.dtype();
    if !t.is_complex() || native_sort(c.device(), t) || c.size() == 0 {
        return primitive_sort(c, l, with_indices);
    }
    let p = composed_complex_argsort(op, c, l)?;
    let sorted = gather_rows(op, c, &p)?;
    c.copy_from(&sorted)?;
    Ok(with_indices.then_some(p))
}

/// What a caller of [`sort_impl`] keeps: the sorted keys, the indices that sort, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    /// The sorted keys alone (`sort`).
    Keys,
    /// The indices alone (`argsort`): the sorted keys returned beside them are unspecified.
    Indices,
    /// Both (`sort` with the permutation).
    Both,
}

/// Sorted copy of `a` along `axis` (`None`: flattened) and, if asked, the stable argsort.
pub(crate) fn sort_impl(
    a: &Array,
    axis: Option<isize>,
    want: Want,
) -> Result<(Array, Option<Array>)> {
    let with_indices = want != Want::Keys;
    let name = if with_indices { "argsort" } else { "sort" };
    if let Some((c, l)) = out_of_place(a, axis)? {
        // the rows are `a` itself: sorted into a new array, without a copy first (and for
        // `Want::Indices`, the backend may leave that array unwritten)
        let discard = want == Want::Indices;
        let idx = primitive_sort_from(&c, Some(a), &l, with_indices, discard)?;
        return Ok((c, idx));
    }
    let (c, inv, l) = rows(a, name, axis, a.dtype())?;
    let idx = sort_rows(name, &c, &l, with_indices)?;
    let idx = match idx {
        Some(v) => Some(back(v, inv.clone())?),
        None => None,
    };
    Ok((back(c, inv)?, idx))
}

/// `a` flattened and sorted stably (a new array), with the permutation when asked: out of
/// place where the backend allows ([`out_of_place`]), else a flattened copy sorted in place.
pub(crate) fn sorted_flat(
    op: &str,
    a: &Array,
    with_indices: bool,
) -> Result<(Array, Option<Array>)> {
    if let Some((c, l)) = out_of_place(a, None)? {
        let idx = primitive_sort_from(&c, Some(a), &l, with_indices, false)?;
        return Ok((c, idx));
    }
    let flat = a.flatten()?;
    let l = Layout::contiguous(&[1, flat.size()]);
    let idx = sort_rows(op, &flat, &l, with_indices)?;
    Ok((flat, idx))
}

/// The output and `[batch, n]` layout of an out-of-place sort of `a` along `axis`, where the
/// rows are `a`'s own memory (C-contiguous, sorted along the last axis or flattened), the
/// backend's sort primitive takes the dtype natively and reads a source
/// ([`cupy_core::Backend::sort_reads_source`]); `None` otherwise.
fn out_of_place(a: &Array, axis: Option<isize>) -> Result<Option<(Array, Layout)>> {
    let nd = a.ndim();
    let last = match axis {
        None => true,
        Some(ax) => ax == -1 || ax == nd as isize - 1,
    };
    // (native_sort answers false for complex keys: the GPU radix sort has none)
    if !last
        || nd == 0
        || a.size() == 0
        || !a.is_c_contiguous()
        || !a.device.backend().sort_reads_source()
        || !native_sort(&a.device, a.dtype())
    {
        return Ok(None);
    }
    let n = if axis.is_none() {
        a.size()
    } else {
        a.shape()[nd - 1]
    };
    let batch = a.size() / n;
    let shape = if axis.is_none() {
        vec![n]
    } else {
        a.shape().to_vec()
    };
    let c = Array::empty_on(&a.device, &shape, a.dtype())?;
    Ok(Some((c, Layout::contiguous(&[batch, n]))))
}

/// `numpy.sort(a)`: a sorted copy along the last axis. Ascending, NaN last, stable.
///
/// # Errors
/// [`Error::AxisOutOfRange`] (a 0-d array has no axis -1, as in NumPy); dtype refusals
/// ([`Error::DTypeNotSupported`] where the backend stores no such dtype, e.g. complex on wgpu);
/// device errors.
pub fn sort(a: &Array) -> Result<Array> {
    sort_with(a, Sort::default())
}

/// `numpy.sort(a, axis=...)`: `cp::sort_with(&a, 0)`, or `None` for the flattened array.
///
/// # Errors
/// As [`sort`].
pub fn sort_with(a: &Array, opts: impl Into<Sort>) -> Result<Array> {
    Ok(sort_impl(a, opts.into().axis, Want::Keys)?.0)
}
routine!(
    sort,
    Sorting,
    probe: sort_probe,
    notes: "stable, NaN last (complex: NumPy's NaN classes); cuda/hip: hip-kernels/ radix sort, complex as three stable real sorts"
);

/// `numpy.argsort(a, kind='stable')`: int64 indices that sort `a` along the last axis. Always
/// stable, so the result equals NumPy's with `kind='stable'` (NumPy's default quicksort may
/// order ties differently).
///
/// # Errors
/// As [`sort`].
pub fn argsort(a: &Array) -> Result<Array> {
    argsort_with(a, Sort::default())
}

/// `numpy.argsort(a, axis=..., kind='stable')` (`None`: indices into the flattened array).
///
/// # Errors
/// As [`sort`].
pub fn argsort_with(a: &Array, opts: impl Into<Sort>) -> Result<Array> {
    // NumPy treats a 0-d array as 1-d here: `argsort(array(5))` is `array([0])`.
    let idx = sort_impl(&at_least_1d(a)?, opts.into().axis, Want::Indices)?.1;
    idx.ok_or_else(|| Error::invalid("argsort", "no indices"))
}
routine!(argsort, Sorting, probe: sort_probe, notes: "kind='stable'");

/// Keyword arguments of [`lexsort_with`]: NumPy's `axis=` (default -1). An axis converts into
/// it: `cp::lexsort_with(&[&b, &a], 0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lexsort {
    /// The axis to sort along (`axis=`).
    pub axis: isize,
}

impl Default for Lexsort {
    fn default() -> Lexsort {
        Lexsort { axis: -1 }
    }
}
impl From<isize> for Lexsort {
    fn from(axis: isize) -> Lexsort {
        Lexsort { axis }
    }
}
impl From<i32> for Lexsort {
    fn from(axis: i32) -> Lexsort {
        Lexsort {
            axis: axis as isize,
        }
    }
}

/// `numpy.lexsort(keys)`: the int64 indices that sort by several keys along the last axis, the
/// **last** key primary (NumPy's order: `lexsort((b, a))` sorts by `a`, then `b`). Stable; each
/// key in NumPy's sort order (NaN last, complex with its NaN classes), keys may differ in dtype.
///
/// # Errors
/// As [`lexsort_with`].
pub fn lexsort(keys: &[&Array]) -> Result<Array> {
    lexsort_with(keys, Lexsort::default())
}

/// `numpy.lexsort(keys, axis=...)`. A 0-d key gives a 0-d `0`, as NumPy's.
///
/// # Errors
/// [`Error::TypeError`] for no keys (NumPy: "need sequence of keys with len > 0 in lexsort");
/// [`Error::InvalidArgument`] for keys of different shapes (NumPy's ValueError "all keys need
/// to be the same shape"); [`Error::AxisOutOfRange`]; [`Error::DeviceMismatch`]; dtype and
/// device errors.
pub fn lexsort_with(keys: &[&Array], opts: impl Into<Lexsort>) -> Result<Array> {
    let op = "lexsort";
    let axis = opts.into().axis;
    let Some(first) = keys.first() else {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![],
            msg: "need sequence of keys with len > 0 in lexsort".into(),
        });
    };
    crate::array::same_device(op, keys.iter().copied())?;
    for k in keys {
        if k.shape() != first.shape() {
            return Err(Error::invalid(
                op,
                format!(
                    "all keys need to be the same shape, got {:?} and {:?}",
                    first.shape(),
                    k.shape()
                ),
            ));
        }
    }
    if first.ndim() == 0 {
        return Array::zeros_on(first.device(), &[], DType::Int64);
    }
    let mut p: Option<(Array, Option<Vec<isize>>, Layout)> = None;
    for k in keys {
        let (c, inv, l) = rows(k, op, Some(axis), k.dtype())?;
        p = Some(match p {
            None => {
                let q =
                    sort_rows(op, &c, &l, true)?.ok_or_else(|| Error::invalid(op, "no indices"))?;
                (q, inv, l)
            }
            Some((p, inv, l)) if c.size() > 0 => {
                let kp = gather_rows(op, &c, &p)?;
                let q = sort_rows(op, &kp, &l, true)?
                    .ok_or_else(|| Error::invalid(op, "no indices"))?;
                (gather_rows(op, &p, &q)?, inv, l)
            }
            Some(done) => done,
        });
    }
    let (p, inv, _) = p.ok_or_else(|| Error::invalid(op, "no keys"))?;
    back(p, inv)
}
/// `numpy.lexsort(keys)` for keys given as one array: its slices along axis 0 are the keys
/// (the last one primary), sorted along `axis` of each (NumPy's `(k, m, n, ...)` form).
///
/// # Errors
/// As [`lexsort_with`]; a 0-d `keys` is NumPy's TypeError.
pub fn lexsort_array(keys: &Array, opts: impl Into<Lexsort>) -> Result<Array> {
    if keys.ndim() == 0 {
        return Err(Error::TypeError {
            op: "lexsort".into(),
            dtypes: vec![keys.dtype()],
            msg: "need sequence of keys with len > 0 in lexsort".into(),
        });
    }
    let rows: Vec<Array> = (0..keys.shape()[0])
        .map(|i| keys.slice(&crate::s![i]))
        .collect::<Result<_>>()?;
    let refs: Vec<&Array> = rows.iter().collect();
    lexsort_with(&refs, opts)
}

routine!(
    lexsort,
    Sorting,
    probe: sort_probe,
    notes: "one stable argsort and gather per key (least significant first); axis="
);

/// `numpy.sort_complex(a)`: `a` sorted along its last axis, as complex: complex input keeps its
/// dtype; int8/16 and uint8/16 become complex64, every other real dtype (bool included)
/// complex128 (NumPy's rule, by type character `bhBH`).
///
/// # Errors
/// [`Error::AxisOutOfRange`] naming `sort_complex` for a 0-d array; otherwise as [`sort`].
pub fn sort_complex(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        return Err(Error::AxisOutOfRange {
            op: "sort_complex".into(),
            axis: -1,
            ndim: 0,
        });
    }
    let s = sort(a)?;
    let t = s.dtype();
    if t.is_complex() {
        return Ok(s);
    }
    let to = match t {
        DType::Int8 | DType::Int16 | DType::UInt8 | DType::UInt16 => DType::Complex64,
        _ => DType::Complex128,
    };
    s.astype(to)
}
routine!(sort_complex, Sorting, probe: sort_probe, notes: "sort, then NumPy's complex dtype");

impl Array {
    /// `a.sort()`: sorts in place along the last axis (NumPy's `ndarray.sort`), stable, NaN
    /// last. Views of the same data see the change. [`sort`] returns a sorted copy instead.
    ///
    /// # Errors
    /// As [`sort`].
    pub fn sort(&self) -> Result<()> {
        self.sort_with(Sort::default())
    }

    /// `a.sort(axis=...)` in place.
    ///
    /// # Errors
    /// As [`sort`]; [`Error::InvalidArgument`] for `axis: None` (an in-place sort keeps the
    /// shape; use [`sort_with`] for a flattened sorted copy).
    pub fn sort_with(&self, opts: impl Into<Sort>) -> Result<()> {
        let opts = opts.into();
        if opts.axis.is_none() {
            return Err(Error::invalid(
                "sort",
                "an in-place sort needs an axis (cupy.sort(a, axis=None) returns a flattened copy)",
            ));
        }
        let s = sort_with(self, opts)?;
        self.copy_from(&s)
    }

    /// `a.argsort()`: see [`argsort`].
    ///
    /// # Errors
    /// As [`argsort`].
    pub fn argsort(&self) -> Result<Array> {
        argsort(self)
    }

    /// `a.argsort(axis=...)`: see [`argsort_with`].
    ///
    /// # Errors
    /// As [`argsort`].
    pub fn argsort_with(&self, opts: impl Into<Sort>) -> Result<Array> {
        argsort_with(self, opts)
    }
}
routine!("ndarray.sort", Sorting, probe: sort_probe, notes: "in place; stable");

/// The registry probe of the sorts: the backend's sort primitive; for complex keys the
/// gather of the composed sort (the parts sort as reals).
pub(crate) fn sort_probe(t: DType) -> Option<Need> {
    if !t.is_complex() {
        return Some(Need::Primitive(Primitive::Sort));
    }
    let mut k = Kernel::map(
        "sort_gather",
        vec![DType::Int64],
        vec![],
        Expr::load(0, t, Expr::input(0, DType::Int64)),
    );
    k.raws = vec![t];
    Some(Need::Kernel(k))
}

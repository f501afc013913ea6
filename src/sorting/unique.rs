//! `unique` (with `return_index`, `return_inverse`, `return_counts`, `axis`, `equal_nan`) and
//! NumPy 2's `unique_values`, `unique_counts`, `unique_inverse`, `unique_all`.
//!
//! NumPy's algorithm on the device: a stable sort (with the permutation when indices or the
//! inverse are asked), a kernel marking where each run of equal values starts, a scan of the
//! marks, and one compaction kernel that writes the unique values directly from the sorted
//! copy (and the first indices; the run starts only when the counts need them, as differences
//! of run starts), the inverse one scatter. The result's length is
//! data-dependent, so reading it costs one synchronisation. With `axis`, rows (the slices along
//! the axis) sort lexicographically, one stable argsort per column, and compare elementwise
//! (NaN rows never equal, as NumPy's structured comparison).

use super::kernels::{compress, contiguous, gather_rows, generate, generate_with, run_starts, Src};
use super::sort::{sort_probe, sort_rows};
use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::{normalize_axis, Layout};
use cupy_core::scalar::Scalar;

/// Keyword arguments of [`unique_with`]: NumPy's `return_index`, `return_inverse`,
/// `return_counts`, `axis` (default `None`: the flattened array) and `equal_nan` (default
/// true: all NaNs count as one value; only for `axis=None`, as in NumPy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unique {
    /// Also return the index of each value's first occurrence.
    pub return_index: bool,
    /// Also return the indices that rebuild the input from the values.
    pub return_inverse: bool,
    /// Also return how often each value occurs.
    pub return_counts: bool,
    /// The axis whose slices are the elements (`None`: the flattened array).
    pub axis: Option<isize>,
    /// NaNs (complex: values with a NaN part) are one value.
    pub equal_nan: bool,
}

impl Default for Unique {
    fn default() -> Unique {
        Unique {
            return_index: false,
            return_inverse: false,
            return_counts: false,
            axis: None,
            equal_nan: true,
        }
    }
}
axis_options!(Unique);

/// What [`unique_with`] returns: the sorted unique values and the optional arrays asked for
/// (int64), in NumPy's tuple order.
#[derive(Clone, Debug)]
pub struct UniqueResult {
    /// The sorted unique values (slices along `axis` when one is given).
    pub values: Array,
    /// `return_index`: the first occurrence of each value in the (flattened) input.
    pub indices: Option<Array>,
    /// `return_inverse`: `values[inverse]` rebuilds the input (input's shape for `axis=None`,
    /// 1-d along the axis otherwise, as NumPy 2.2).
    pub inverse: Option<Array>,
    /// `return_counts`: occurrences of each value.
    pub counts: Option<Array>,
}

/// `numpy.unique(ar)`: the sorted unique elements of the flattened array (NaNs counted as one).
///
/// # Errors
/// As [`unique_with`].
pub fn unique(a: &Array) -> Result<Array> {
    Ok(unique_with(a, Unique::default())?.values)
}

/// `numpy.unique(ar, return_index=..., return_inverse=..., return_counts=..., axis=...,
/// equal_nan=...)`.
///
/// # Errors
/// [`cupy_core::Error::AxisOutOfRange`]; dtype refusals (as [`crate::sort()`]); device errors.
pub fn unique_with(a: &Array, opts: impl Into<Unique>) -> Result<UniqueResult> {
    let o = opts.into();
    match o.axis {
        None => unique_flat(a, &o),
        // NumPy: a 1-d array along its axis is the flattened case (NaNs merge under
        // `equal_nan`); rows of two or more dimensions never compare NaNs equal.
        Some(ax) if a.ndim() == 1 => {
            normalize_axis("unique", ax, 1)?;
            unique_flat(a, &o)
        }
        Some(ax) => unique_axis(a, ax, &o),
    }
}
routine!(
    unique,
    Sorting,
    probe: sort_probe,
    notes: "sort + run marks + scan + one compaction kernel writing the values; return_index/inverse/counts, axis, equal_nan"
);

/// Counts from the run starts: `starts[j + 1] - starts[j]` (the last run ends at `n`).
fn run_counts(starts: &Array, n: usize) -> Result<Array> {
    let count = starts.size();
    let i = Expr::index();
    let p = |k: usize| Expr::param(k, DType::Int64);
    let next_at = Expr::binary(
        BinaryOp::Min,
        Expr::binary(BinaryOp::Add, i.clone(), Expr::constant(Scalar::Int64(1))),
        Expr::binary(BinaryOp::Sub, p(0), Expr::constant(Scalar::Int64(1))),
    );
    let is_last = Expr::binary(
        BinaryOp::Eq,
        i.clone(),
        Expr::binary(BinaryOp::Sub, p(0), Expr::constant(Scalar::Int64(1))),
    );
    let end = Expr::select(is_last, p(1), Expr::load(0, DType::Int64, next_at));
    let value = Expr::binary(BinaryOp::Sub, end, Expr::load(0, DType::Int64, i));
    generate(
        "unique",
        starts.device(),
        count,
        value,
        &[starts],
        vec![Scalar::Int64(count as i64), Scalar::Int64(n as i64)],
    )
}

/// The inverse: `inv[perm[i]] = pos[i] - 1` (one scatter), for 1-D `perm` and `pos`.
fn inverse_of(perm: &Array, pos: &Array) -> Result<Array> {
    let n = perm.size();
    let inv = Array::empty_on(perm.device(), &[n], DType::Int64)?;
    if n == 0 {
        return Ok(inv);
    }
    let k = Kernel {
        name: "unique_inverse".into(),
        inputs: vec![DType::Int64, pos.dtype()],
        outputs: vec![],
        raws: vec![DType::Int64],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::StoreRaw {
            raw: 0,
            index: Expr::input(0, DType::Int64),
            value: Expr::binary(
                BinaryOp::Sub,
                Expr::input(1, pos.dtype()).cast(DType::Int64),
                Expr::constant(Scalar::Int64(1)),
            ),
        }],
    };
    let perm = contiguous(perm)?;
    crate::launch::Elementwise {
        op: "unique",
        kernel: &k,
        inputs: &[&perm, pos],
        raws: &[&inv],
        params: vec![],
        outs: vec![],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(inv)
}

/// Where [`finish`] gets the unique values.
enum Values<'a, F> {
    /// `axis=None`: the sorted keys, which the compaction writes at the run starts itself (no
    /// run starts array and no gather unless the counts need the starts).
    Flat(&'a Array),
    /// With `axis`: picks the unique rows from the sorted data given their run starts.
    Rows(F),
}

/// First indices, inverse and counts from a sorted sequence's run marks, and the values
/// ([`Values`]).
fn finish(
    mask: &Array,
    perm: Option<&Array>,
    o: &Unique,
    values: Values<impl FnOnce(&Array) -> Result<Array>>,
) -> Result<UniqueResult> {
    let n = mask.size();
    let mut srcs = vec![];
    if let Values::Flat(f) = &values {
        srcs.push(Src::Array(f));
    }
    let need_starts = matches!(values, Values::Rows(_)) || o.return_counts;
    if need_starts {
        srcs.push(Src::Index);
    }
    if let (true, Some(p)) = (o.return_index, perm) {
        srcs.push(Src::Array(p));
    }
    let need_pos = o.return_inverse && perm.is_some();
    let (pos, _, mut outs) = compress("unique", mask, &srcs, need_pos)?;
    let indices = if o.return_index { outs.pop() } else { None };
    let starts = if need_starts { outs.pop() } else { None };
    let counts = match (o.return_counts, &starts) {
        (true, Some(s)) => Some(run_counts(s, n)?),
        _ => None,
    };
    let inverse = match (o.return_inverse, perm, &pos) {
        (true, Some(p), Some(pos)) => Some(inverse_of(p, pos)?),
        _ => None,
    };
    let values = match values {
        Values::Flat(_) => outs.pop().ok_or_else(missing)?,
        Values::Rows(take) => take(starts.as_ref().ok_or_else(missing)?)?,
    };
    Ok(UniqueResult {
        values,
        indices,
        inverse,
        counts,
    })
}

fn unique_flat(a: &Array, o: &Unique) -> Result<UniqueResult> {
    // The sorted keys: read from `a` by an out-of-place sort where the backend has one, else
    // a flattened copy (also for non-contiguous input) sorted in place.
    let need_perm = o.return_index || o.return_inverse;
    let (flat, perm) = super::sort::sorted_flat("unique", a, need_perm)?;
    let mask = run_starts("unique", &flat, o.equal_nan)?;
    let flat_values = Values::<fn(&Array) -> Result<Array>>::Flat(&flat);
    let mut r = finish(&mask, perm.as_ref(), o, flat_values)?;
    if let Some(inv) = r.inverse.take() {
        // NumPy 2.2: the inverse has the input's shape for axis=None.
        let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
        r.inverse = Some(inv.reshape(&shape)?);
    }
    Ok(r)
}

fn unique_axis(a: &Array, axis: isize, o: &Unique) -> Result<UniqueResult> {
    let op = "unique";
    let ax = normalize_axis(op, axis, a.ndim())?;
    let moved = a.moveaxis(&[ax as isize], &[0])?;
    let n = moved.shape()[0];
    let rest: Vec<usize> = moved.shape()[1..].to_vec();
    let m: usize = rest.iter().product();
    let rows2 = moved.reshape(&[n as isize, m as isize])?.copy()?;
    // Lexicographic row order: one stable argsort per column, last column first.
    let l = Layout::contiguous(&[1, n]);
    let mut perm = Array::arange_on(a.device(), 0.0, n as f64, 1.0, DType::Int64)?;
    if n > 0 {
        for c in (0..m).rev() {
            let col = rows2.slice(&crate::s![.., c])?.copy()?;
            let p2 = perm.reshape(&[1, n as isize])?;
            let k = gather_rows(op, &col, &p2)?;
            let q = sort_rows(op, &k, &l, true)?
                .ok_or_else(|| cupy_core::Error::invalid(op, "no indices"))?;
            perm = gather_rows(op, &p2, &q)?.reshape(&[-1])?;
        }
    }
    let sorted = if n > 0 {
        super::kernels::take_rows(op, &rows2, &perm)?
    } else {
        rows2.clone()
    };
    // A row starts a run unless every element equals the one above (NaN never equal).
    let mask = if n == 0 {
        Array::zeros_on(a.device(), &[0], DType::Bool)?
    } else {
        let first_row = Array::zeros_on(a.device(), &[n], DType::Bool)?;
        first_row
            .slice(&crate::s![0..1])?
            .fill(Scalar::Bool(true))?;
        if m == 0 {
            first_row
        } else {
            let k = super::kernels::row_differs_kernel(sorted.dtype());
            let d = generate_with(
                op,
                a.device(),
                n * m,
                &k,
                &[&sorted],
                vec![Scalar::Int64(m as i64)],
            )?;
            let any = d.reshape(&[n as isize, m as isize])?.any_axis(1)?;
            crate::logical_or(&any, &first_row)?
        }
    };
    let mut r = finish(
        &mask,
        Some(&perm),
        o,
        Values::Rows(|starts: &Array| {
            if starts.size() == 0 {
                return Ok(sorted.clone());
            }
            super::kernels::take_rows(op, &sorted, starts)
        }),
    )?;
    let mut shape: Vec<isize> = vec![r.values.shape()[0] as isize];
    shape.extend(rest.iter().map(|&d| d as isize));
    r.values = r.values.reshape(&shape)?.moveaxis(&[0], &[ax as isize])?;
    Ok(r)
}

/// NumPy 2's `unique_counts` result.
#[derive(Clone, Debug)]
pub struct UniqueCounts {
    /// The sorted unique values.
    pub values: Array,
    /// Their counts (int64).
    pub counts: Array,
}

/// NumPy 2's `unique_inverse` result.
#[derive(Clone, Debug)]
pub struct UniqueInverse {
    /// The sorted unique values.
    pub values: Array,
    /// `values[inverse_indices]` rebuilds the input (input's shape).
    pub inverse_indices: Array,
}

/// NumPy 2's `unique_all` result.
#[derive(Clone, Debug)]
pub struct UniqueAll {
    /// The sorted unique values.
    pub values: Array,
    /// First occurrences in the flattened input.
    pub indices: Array,
    /// `values[inverse_indices]` rebuilds the input (input's shape).
    pub inverse_indices: Array,
    /// Counts.
    pub counts: Array,
}

fn array_api(a: &Array, index: bool, inverse: bool, counts: bool) -> Result<UniqueResult> {
    unique_with(
        a,
        Unique {
            return_index: index,
            return_inverse: inverse,
            return_counts: counts,
            axis: None,
            equal_nan: false,
        },
    )
}

fn missing() -> cupy_core::Error {
    cupy_core::Error::invalid("unique", "internal: a requested result is missing")
}

/// `numpy.unique_values(x)` (NumPy 2, array API): the sorted unique elements, NaNs distinct.
///
/// # Errors
/// As [`unique_with`].
pub fn unique_values(x: &Array) -> Result<Array> {
    Ok(array_api(x, false, false, false)?.values)
}
routine!(unique_values, Sorting, probe: sort_probe, notes: "equal_nan=False");

/// `numpy.unique_counts(x)` (NumPy 2): values and counts, NaNs distinct.
///
/// # Errors
/// As [`unique_with`].
pub fn unique_counts(x: &Array) -> Result<UniqueCounts> {
    let r = array_api(x, false, false, true)?;
    Ok(UniqueCounts {
        values: r.values,
        counts: r.counts.ok_or_else(missing)?,
    })
}
routine!(unique_counts, Sorting, probe: sort_probe, notes: "equal_nan=False");

/// `numpy.unique_inverse(x)` (NumPy 2): values and the inverse (of `x`'s shape), NaNs distinct.
///
/// # Errors
/// As [`unique_with`].
pub fn unique_inverse(x: &Array) -> Result<UniqueInverse> {
    let r = array_api(x, false, true, false)?;
    Ok(UniqueInverse {
        values: r.values,
        inverse_indices: r.inverse.ok_or_else(missing)?,
    })
}
routine!(unique_inverse, Sorting, probe: sort_probe, notes: "equal_nan=False");

/// `numpy.unique_all(x)` (NumPy 2): values, first indices, inverse and counts, NaNs distinct.
///
/// # Errors
/// As [`unique_with`].
pub fn unique_all(x: &Array) -> Result<UniqueAll> {
    let r = array_api(x, true, true, true)?;
    Ok(UniqueAll {
        values: r.values,
        indices: r.indices.ok_or_else(missing)?,
        inverse_indices: r.inverse.ok_or_else(missing)?,
        counts: r.counts.ok_or_else(missing)?,
    })
}
routine!(unique_all, Sorting, probe: sort_probe, notes: "equal_nan=False");

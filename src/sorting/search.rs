//! Searching: `argmax`, `argmin` (NumPy's "sorting, searching, and counting" family), declared
//! as reductions ([`crate::statistics`]); `searchsorted` (one binary-search IR kernel) and
//! `digitize` on it.
//!
//! Both are one tuple-accumulator reduction (value and index,
//! [`cupy_core::kernel::reductions::arg_extreme`]) with NumPy's rules: the first occurrence of
//! the extreme wins ties, a NaN is extreme (the first NaN wins: `argmax([1, nan, 3, nan])` is
//! 1), `-0.0` and `0.0` tie, complex values compare lexicographically (real part, then
//! imaginary part; a NaN in either part wins). The result is `int64`, the index into the
//! flattened array for `axis=None`. An empty axis is NumPy's error ("attempt to get argmax of
//! an empty sequence"); `axis` takes one axis or None, and `dtype=` is refused.

use super::kernels::{search, Find};
use crate::array::Array;
use crate::registry::Need;
use crate::statistics::reduction::{no_dtype, Axes, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, ReduceKernel};
use cupy_core::kernel::reductions::{arg_extreme, Extreme};
use cupy_core::scalar::Scalar;

fn arg(which: Extreme, t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    let op = which.name();
    no_dtype(op, opts)?;
    if let Axes::Some(axes) = &opts.axis {
        if axes.len() > 1 {
            return Err(Error::invalid(
                op,
                format!("axis must be one axis or None, got {axes:?} (numpy.{op} takes no tuple)"),
            ));
        }
    }
    Ok((arg_extreme(t, which), vec![]))
}

reductions! {
    family: "search";
    /// The index of the (first) maximum (`numpy.argmax`), int64; NaN counts as the maximum.
    argmax / argmax_axis / argmax_with, empty "attempt to get argmax of an empty sequence"
        => |t, opts, _| arg(Extreme::Max, t, opts);
    /// The index of the (first) minimum (`numpy.argmin`), int64; NaN counts as the minimum.
    argmin / argmin_axis / argmin_with, empty "attempt to get argmin of an empty sequence"
        => |t, opts, _| arg(Extreme::Min, t, opts);
}

/// Which insertion point [`searchsorted_with`] returns (NumPy's `side=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    /// The first position where the value could be inserted (`a[i-1] < v <= a[i]`).
    #[default]
    Left,
    /// The last such position (`a[i-1] <= v < a[i]`).
    Right,
}

/// Keyword arguments of [`searchsorted_with`]: `side=` and `sorter=` (int indices that sort
/// `a`, as `argsort` returns). A [`Side`] converts into it.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchSorted<'a> {
    /// `side=` (default left).
    pub side: Side,
    /// `sorter=`: `a[sorter]` is the sorted array searched.
    pub sorter: Option<&'a Array>,
}

impl From<Side> for SearchSorted<'_> {
    fn from(side: Side) -> Self {
        SearchSorted { side, sorter: None }
    }
}

/// The comparison dtype of two operands (NumPy casts both to their common dtype).
fn common(a: &Array, b: &Array) -> DType {
    cupy_core::promote::promote_types(a.dtype(), b.dtype())
}

/// `a` cast to `t` (itself when it already has it).
pub(crate) fn cast_to(a: &Array, t: DType) -> Result<Array> {
    if a.dtype() == t {
        Ok(a.clone())
    } else {
        a.astype(t)
    }
}

/// NumPy's `min_scalar_type` of an integer: the smallest unsigned dtype holding a
/// non-negative value, the smallest signed one for a negative value (float64 past 64 bits).
fn min_int_dtype(i: i128) -> DType {
    let fits = |d: DType| {
        let (lo, hi): (i128, i128) = match d {
            DType::UInt8 => (0, u8::MAX as i128),
            DType::UInt16 => (0, u16::MAX as i128),
            DType::UInt32 => (0, u32::MAX as i128),
            DType::UInt64 => (0, u64::MAX as i128),
            DType::Int8 => (i8::MIN as i128, i8::MAX as i128),
            DType::Int16 => (i16::MIN as i128, i16::MAX as i128),
            DType::Int32 => (i32::MIN as i128, i32::MAX as i128),
            _ => (i64::MIN as i128, i64::MAX as i128),
        };
        lo <= i && i <= hi
    };
    let order: &[DType] = if i >= 0 {
        &[DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64]
    } else {
        &[DType::Int8, DType::Int16, DType::Int32, DType::Int64]
    };
    order
        .iter()
        .copied()
        .find(|&d| fits(d))
        .unwrap_or(DType::Float64)
}

/// A 1-D operand, or NumPy's ValueError.
fn one_d(op: &str, what: &str, a: &Array) -> Result<()> {
    if a.ndim() != 1 {
        return Err(Error::invalid(
            op,
            format!(
                "{what} must be 1-d, got shape {:?} (NumPy: object {} for desired array)",
                a.shape(),
                if a.ndim() > 1 {
                    "too deep"
                } else {
                    "of too small depth"
                }
            ),
        ));
    }
    Ok(())
}

/// `numpy.searchsorted(a, v)` (`side='left'`): for each element of `v`, the int64 index where
/// it would be inserted into the sorted 1-D `a` to keep it sorted; the result has `v`'s shape.
/// `v` is an array, or a Rust scalar (weak, as a Python scalar in NumPy 2: a 0-d result).
///
/// # Errors
/// As [`searchsorted_with`].
pub fn searchsorted<'v>(a: &Array, v: impl Into<crate::Arg<'v>>) -> Result<Array> {
    searchsorted_with(a, v, SearchSorted::default())
}

/// `numpy.searchsorted(a, v, side=..., sorter=...)`. Both are compared in their common dtype
/// (NumPy's promotion), in NumPy's sort order (NaN last; complex lexicographic with its NaN
/// classes). One binary-search kernel (each element of `v` takes `ceil(log2(len(a) + 1))`
/// halving steps); with `sorter`, `a[sorter]` is gathered first.
///
/// # Errors
/// [`Error::InvalidArgument`] for an `a` that is not 1-d, or a `sorter` of another size or not
/// 1-d (NumPy's ValueErrors); [`Error::TypeError`] for a non-integer `sorter`;
/// [`Error::IndexOutOfBounds`] for a `sorter` index outside `0..len(a)` (NumPy reads such
/// indices unchecked; checked here, one synchronisation); [`Error::DeviceMismatch`]; dtype and
/// device errors.
pub fn searchsorted_with<'a, 'v>(
    a: &Array,
    v: impl Into<crate::Arg<'v>>,
    opts: impl Into<SearchSorted<'a>>,
) -> Result<Array> {
    let op = "searchsorted";
    let opts = opts.into();
    // A Rust scalar `v` is weak (NEP 50), except that an integer outside `a`'s integer dtype
    // widens it as NumPy's searchsorted does (`searchsorted(uint8_array, 300)` compares in
    // uint16), instead of NEP 50's overflow error.
    let v_own;
    let v = match v.into() {
        crate::Arg::Array(v) => v,
        crate::Arg::Weak(w) => {
            let mut t = cupy_core::promote::result_type(op, &[a.dtype()], &[w])?;
            if let cupy_core::promote::WeakScalar::Int(i) = w {
                if t.is_integer() && w.to_scalar(op, t).is_err() {
                    t = cupy_core::promote::promote_types(t, min_int_dtype(i));
                }
            }
            v_own = Array::full_on(a.device(), &[], w.to_scalar(op, t)?, t)?;
            &v_own
        }
        crate::Arg::Typed(x) => {
            v_own = Array::full_on(a.device(), &[], x, x.dtype())?;
            &v_own
        }
    };
    crate::array::same_device(op, [a, v].into_iter().chain(opts.sorter))?;
    one_d(op, "a", a)?;
    let t = common(a, v);
    let sorted = match opts.sorter {
        None => a.clone(),
        Some(s) => {
            if !(s.dtype().is_integer() || s.dtype().is_bool()) {
                return Err(Error::TypeError {
                    op: op.into(),
                    dtypes: vec![s.dtype()],
                    msg: "sorter must only contain integers".into(),
                });
            }
            if s.ndim() != 1 || s.size() != a.size() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "sorter.size must equal a.size (sorter shape {:?}, a shape {:?})",
                        s.shape(),
                        a.shape()
                    ),
                ));
            }
            if s.size() > 0 {
                let lo = s.min()?.item()?.cast(DType::Float64);
                let hi = s.max()?.item()?.cast(DType::Float64);
                for x in [lo, hi] {
                    let x = x.to_f64();
                    if x < 0.0 || x >= a.size() as f64 {
                        return Err(Error::IndexOutOfBounds {
                            op: format!("{op} (sorter index out of range)"),
                            index: x as isize,
                            axis: 0,
                            size: a.size(),
                        });
                    }
                }
            }
            super::kernels::take_flat(op, a, &cast_to(s, DType::Int64)?)?
        }
    };
    let find = Find::Position {
        right: opts.side == Side::Right,
    };
    search(op, &cast_to(&sorted, t)?, &cast_to(v, t)?, find)
}
routine!(
    searchsorted,
    Sorting,
    probe: search_probe,
    notes: "binary search as one IR kernel (uniform loop); side=, sorter=; NaN and complex in NumPy's order"
);

impl Array {
    /// `a.searchsorted(v)` (NumPy's `ndarray.searchsorted`); see [`searchsorted`].
    ///
    /// # Errors
    /// As [`searchsorted_with`].
    pub fn searchsorted<'v>(&self, v: impl Into<crate::Arg<'v>>) -> Result<Array> {
        searchsorted(self, v)
    }

    /// `a.searchsorted(v, side=..., sorter=...)`; see [`searchsorted_with`].
    ///
    /// # Errors
    /// As [`searchsorted_with`].
    pub fn searchsorted_with<'a, 'v>(
        &self,
        v: impl Into<crate::Arg<'v>>,
        opts: impl Into<SearchSorted<'a>>,
    ) -> Result<Array> {
        searchsorted_with(self, v, opts)
    }
}
routine!("ndarray.searchsorted", Sorting, probe: search_probe, notes: "as cupy.searchsorted");

/// Keyword arguments of [`digitize_with`]: NumPy's `right=` (default false: `bins[i-1] <= x <
/// bins[i]` for increasing bins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Digitize {
    /// `right=`: the intervals include their right edge instead.
    pub right: bool,
}

/// `numpy.digitize(x, bins)`: for each element of `x`, the int64 index of the bin it falls
/// in (`right=False`).
///
/// # Errors
/// As [`digitize_with`].
pub fn digitize(x: &Array, bins: &Array) -> Result<Array> {
    digitize_with(x, bins, Digitize::default())
}

/// `numpy.digitize(x, bins, right=...)`: bins increasing or decreasing (checked: two
/// reductions and a synchronisation), then `searchsorted` with the side NumPy uses (for
/// decreasing bins, `len(bins) - searchsorted(bins[::-1], x)`).
///
/// # Errors
/// [`Error::TypeError`] for complex `x` ("x may not be complex") or complex bins;
/// [`Error::InvalidArgument`] for bins that are not 1-d or not monotonic (NumPy's ValueError
/// "bins must be monotonically increasing or decreasing"); as [`searchsorted_with`].
pub fn digitize_with(x: &Array, bins: &Array, opts: impl Into<Digitize>) -> Result<Array> {
    let op = "digitize";
    let right = opts.into().right;
    crate::array::same_device(op, [x, bins])?;
    for (what, a) in [("x", x), ("bins", bins)] {
        if a.dtype().is_complex() {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![a.dtype()],
                msg: format!("{what} may not be complex"),
            });
        }
    }
    one_d(op, "bins", bins)?;
    let n = bins.size();
    let mut decreasing = false;
    if n > 1 {
        // NumPy's monotonicity check: the first pair of unequal neighbours (NaN is unequal to
        // everything) decides the direction, rising only where it rises (so a NaN there makes
        // the bins decreasing, as in NumPy), and no later pair may go the other way.
        let t = bins.dtype();
        let i = Expr::index();
        let next = Expr::binary(BinaryOp::Add, i.clone(), Expr::constant(Scalar::Int64(1)));
        let b = super::kernels::contiguous(bins)?;
        let pairs = |cmp: BinaryOp| {
            let flag = Expr::binary(
                cmp,
                Expr::load(0, t, i.clone()),
                Expr::load(0, t, next.clone()),
            );
            super::kernels::generate(op, bins.device(), n - 1, flag, &[&b], vec![])
        };
        let any = |m: &Array| Ok::<bool, Error>(matches!(m.any()?.item()?, Scalar::Bool(true)));
        let unequal = pairs(BinaryOp::Ne)?;
        let first = match unequal.argmax()?.item()? {
            Scalar::Int64(j) => j as usize,
            _ => 0,
        };
        let flag_at = |m: &Array, j: usize| {
            Ok::<bool, Error>(matches!(
                m.slice(&crate::s![j..j + 1])?.reshape(&[])?.item()?,
                Scalar::Bool(true)
            ))
        };
        let rises = pairs(BinaryOp::Lt)?;
        decreasing = flag_at(&unequal, first)? && !flag_at(&rises, first)?;
        let against = if decreasing {
            rises
        } else {
            pairs(BinaryOp::Gt)?
        };
        if any(&against)? {
            return Err(Error::invalid(
                op,
                "bins must be monotonically increasing or decreasing",
            ));
        }
    }
    // The sides are swapped: digitize's `right` is searchsorted's left.
    let side = if right { Side::Left } else { Side::Right };
    if !decreasing {
        return searchsorted_with(bins, x, side);
    }
    let rev = bins.slice(&crate::s![..;-1])?;
    let r = searchsorted_with(&rev, x, side)?;
    let k = Kernel::map(
        "digitize_flip",
        vec![DType::Int64],
        vec![DType::Int64],
        Expr::binary(
            BinaryOp::Sub,
            Expr::param(0, DType::Int64),
            Expr::input(0, DType::Int64),
        ),
    );
    crate::launch::Elementwise {
        op,
        kernel: &k,
        inputs: &[&r],
        raws: &[],
        params: vec![Scalar::Int64(n as i64)],
        outs: vec![None],
        device: None,
        shape: None,
    }
    .run_one()
}
routine!(
    digitize,
    Sorting,
    probe: search_probe,
    notes: "monotonicity check (two reductions), then searchsorted; right="
);

/// The registry probe of the binary searches: the search kernel for the dtype.
fn search_probe(t: DType) -> Option<Need> {
    let mut k = Kernel::map(
        "searchsorted",
        vec![t],
        vec![],
        super::kernels::sort_less(Expr::load(0, t, Expr::index()), Expr::input(0, t)),
    );
    k.raws = vec![t];
    Some(Need::Kernel(k))
}

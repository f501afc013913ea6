//! Set routines on 1-D data: `isin`, `in1d`, `intersect1d`, `union1d`, `setdiff1d`,
//! `setxor1d` (NumPy's API, results and dtypes).
//!
//! Membership is one binary-search kernel per element over the sorted second operand
//! (one IR kernel), so `isin` costs a sort of the test elements plus
//! `O(len(element) * log(len(test)))` work; the others compose `unique`, the sort, membership
//! and compaction. Operands are compared in their common dtype (NumPy's promotion, as its
//! `concatenate`); NaN is never equal to NaN (so never a member, as NumPy's `isin`).

use super::kernels::{compress, contiguous, generate_with, search, Find, Src};
use super::search::cast_to;
use super::sort::sort_probe;
use super::unique::{unique_with, Unique};
use crate::array::{same_device, Array};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::scalar::Scalar;

/// Keyword arguments of [`isin_with`] and [`in1d_with`]: NumPy's `assume_unique` (accepted;
/// the result is the same either way here) and `invert`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IsIn {
    /// `assume_unique=`: both inputs are known to hold distinct values.
    pub assume_unique: bool,
    /// `invert=`: return `not isin`.
    pub invert: bool,
}

/// Keyword arguments of [`setdiff1d_with`] and [`setxor1d_with`]: NumPy's `assume_unique`
/// (the inputs hold distinct values: the `unique` calls are skipped, and `setdiff1d` keeps
/// `ar1`'s order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetOpts {
    /// `assume_unique=`.
    pub assume_unique: bool,
}

/// Keyword arguments of [`intersect1d_with`]: NumPy's `assume_unique` and `return_indices`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Intersect1d {
    /// `assume_unique=`: both inputs hold distinct values (then the indices are into them).
    pub assume_unique: bool,
    /// `return_indices=`: also the indices of the common values in the flattened inputs
    /// (first occurrences).
    pub return_indices: bool,
}

/// What [`intersect1d_with`] returns.
#[derive(Clone, Debug)]
pub struct Intersection {
    /// The sorted common values.
    pub values: Array,
    /// `return_indices`: where they are in the flattened `ar1` (int64).
    pub indices1: Option<Array>,
    /// `return_indices`: where they are in the flattened `ar2` (int64).
    pub indices2: Option<Array>,
}

fn common(a: &Array, b: &Array) -> DType {
    cupy_core::promote::promote_types(a.dtype(), b.dtype())
}

/// `numpy.isin(element, test_elements)`: a bool array of `element`'s shape, true where the
/// element equals some element of `test_elements` (any shape).
///
/// # Errors
/// As [`isin_with`].
pub fn isin(element: &Array, test_elements: &Array) -> Result<Array> {
    isin_with(element, test_elements, IsIn::default())
}

/// `numpy.isin(element, test_elements, assume_unique=..., invert=...)`: the test elements
/// sorted once, then one binary search per element.
///
/// # Errors
/// [`cupy_core::Error::DeviceMismatch`]; dtype refusals; device errors.
pub fn isin_with(element: &Array, test_elements: &Array, opts: impl Into<IsIn>) -> Result<Array> {
    let op = "isin";
    let invert = opts.into().invert;
    same_device(op, [element, test_elements])?;
    let t = common(element, test_elements);
    let sorted = crate::sort_with(&cast_to(test_elements, t)?, None)?;
    search(op, &sorted, &cast_to(element, t)?, Find::Member { invert })
}
routine!(
    isin,
    Sorting,
    probe: sort_probe,
    notes: "sort of test_elements + one binary-search kernel; invert=, assume_unique="
);

/// `numpy.in1d(ar1, ar2)` (deprecated in NumPy 2, kept): [`isin`] of the flattened `ar1`, 1-d.
///
/// # Errors
/// As [`isin_with`].
pub fn in1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    in1d_with(ar1, ar2, IsIn::default())
}

/// `numpy.in1d(ar1, ar2, assume_unique=..., invert=...)`.
///
/// # Errors
/// As [`isin_with`].
pub fn in1d_with(ar1: &Array, ar2: &Array, opts: impl Into<IsIn>) -> Result<Array> {
    isin_with(&ar1.reshape(&[-1])?, ar2, opts)
}
routine!(in1d, Sorting, probe: sort_probe, notes: "isin of the flattened ar1");

/// `numpy.intersect1d(ar1, ar2)`: the sorted unique values in both (flattened) inputs.
///
/// # Errors
/// As [`intersect1d_with`].
pub fn intersect1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    Ok(intersect1d_with(ar1, ar2, Intersect1d::default())?.values)
}

/// `numpy.intersect1d(ar1, ar2, assume_unique=..., return_indices=...)`: the values of
/// `unique(ar1)` found in `unique(ar2)` (membership by binary search), in their common dtype.
///
/// # Errors
/// [`cupy_core::Error::DeviceMismatch`]; dtype refusals; device errors.
pub fn intersect1d_with(
    ar1: &Array,
    ar2: &Array,
    opts: impl Into<Intersect1d>,
) -> Result<Intersection> {
    let op = "intersect1d";
    let o = opts.into();
    same_device(op, [ar1, ar2])?;
    let t = common(ar1, ar2);
    let (a1, a2) = (
        cast_to(&ar1.reshape(&[-1])?, t)?,
        cast_to(&ar2.reshape(&[-1])?, t)?,
    );
    // Sorted distinct values of each side, with their indices into the input.
    let sorted_unique = |a: &Array| -> Result<(Array, Option<Array>)> {
        if o.assume_unique {
            if o.return_indices {
                let (s, p) = super::sort::sort_impl(a, Some(0), super::sort::Want::Both)?;
                Ok((s, p))
            } else {
                Ok((crate::sort(a)?, None))
            }
        } else {
            let r = unique_with(
                a,
                Unique {
                    return_index: o.return_indices,
                    ..Default::default()
                },
            )?;
            Ok((r.values, r.indices))
        }
    };
    let (u1, i1) = sorted_unique(&a1)?;
    let (u2, i2) = sorted_unique(&a2)?;
    let mask = search(op, &u2, &u1, Find::Member { invert: false })?;
    let mut srcs = vec![Src::Array(&u1)];
    if let Some(i1) = &i1 {
        srcs.push(Src::Array(i1));
    }
    let (_, _, mut outs) = compress(op, &mask, &srcs, false)?;
    let values = outs.remove(0);
    let (indices1, indices2) = match (i1, i2) {
        (Some(_), Some(i2)) => {
            let at = search(op, &u2, &values, Find::Position { right: false })?;
            (outs.pop(), Some(super::kernels::take_flat(op, &i2, &at)?))
        }
        _ => (None, None),
    };
    Ok(Intersection {
        values,
        indices1,
        indices2,
    })
}
routine!(
    intersect1d,
    Sorting,
    probe: sort_probe,
    notes: "unique + membership kernel + compaction; assume_unique, return_indices"
);

/// `numpy.union1d(ar1, ar2)`: the sorted unique values of both flattened inputs (one NaN).
///
/// # Errors
/// [`cupy_core::Error::DeviceMismatch`]; dtype refusals; device errors.
pub fn union1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    same_device("union1d", [ar1, ar2])?;
    let both = crate::concatenate(&[ar1, ar2], None)?;
    super::unique::unique(&both)
}
routine!(union1d, Sorting, probe: sort_probe, notes: "unique of the concatenation");

/// `numpy.setdiff1d(ar1, ar2)`: the sorted unique values of `ar1` not in `ar2`, in `ar1`'s
/// dtype.
///
/// # Errors
/// As [`setdiff1d_with`].
pub fn setdiff1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    setdiff1d_with(ar1, ar2, SetOpts::default())
}

/// `numpy.setdiff1d(ar1, ar2, assume_unique=...)` (with `assume_unique`, `ar1`'s values in
/// their order, unsorted).
///
/// # Errors
/// [`cupy_core::Error::DeviceMismatch`]; dtype refusals; device errors.
pub fn setdiff1d_with(ar1: &Array, ar2: &Array, opts: impl Into<SetOpts>) -> Result<Array> {
    let op = "setdiff1d";
    same_device(op, [ar1, ar2])?;
    let a1 = if opts.into().assume_unique {
        contiguous(&ar1.reshape(&[-1])?)?
    } else {
        super::unique::unique(ar1)?
    };
    let keep = isin_with(
        &a1,
        ar2,
        IsIn {
            assume_unique: true,
            invert: true,
        },
    )?;
    Ok(compress(op, &keep, &[Src::Array(&a1)], false)?.2.remove(0))
}
routine!(setdiff1d, Sorting, probe: sort_probe, notes: "unique + inverted membership + compaction");

/// `numpy.setxor1d(ar1, ar2)`: the sorted values in exactly one of the inputs.
///
/// # Errors
/// As [`setxor1d_with`].
pub fn setxor1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    setxor1d_with(ar1, ar2, SetOpts::default())
}

/// `numpy.setxor1d(ar1, ar2, assume_unique=...)`: the sorted concatenation of the unique values
/// of each, keeping the values that occur once (NaN never equals NaN, as NumPy's).
///
/// # Errors
/// [`cupy_core::Error::DeviceMismatch`]; dtype refusals; device errors.
pub fn setxor1d_with(ar1: &Array, ar2: &Array, opts: impl Into<SetOpts>) -> Result<Array> {
    let op = "setxor1d";
    same_device(op, [ar1, ar2])?;
    let (u1, u2) = if opts.into().assume_unique {
        (ar1.clone(), ar2.clone())
    } else {
        (super::unique::unique(ar1)?, super::unique::unique(ar2)?)
    };
    let aux = crate::sort_with(&crate::concatenate(&[&u1, &u2], None)?, None)?;
    let n = aux.size();
    if n == 0 {
        return Ok(aux);
    }
    let k = super::kernels::singletons_kernel(aux.dtype());
    let mask = generate_with(
        op,
        aux.device(),
        n,
        &k,
        &[&aux],
        vec![Scalar::Int64(n as i64)],
    )?;
    Ok(compress(op, &mask, &[Src::Array(&aux)], false)?.2.remove(0))
}
routine!(setxor1d, Sorting, probe: sort_probe, notes: "sort + keep-singletons kernel + compaction");

//! Splitting arrays (CuPy's `cupy/_manipulation/split.py`): `split`, `array_split`, `hsplit`,
//! `vsplit`, `dsplit`. Every piece is a view of the input. Each routine's registry row is the
//! `routine!` line after it.

use super::narrow;
use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::{normalize_axis, Layout};

/// How to split (`indices_or_sections`): into a number of sections, or at these indices along
/// the axis (Python slice semantics: negative counts from the end, out-of-range clamps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sections {
    /// `N` sections (equal for `split`; `array_split` makes the first `len % N` one longer).
    Count(usize),
    /// Split before each of these indices.
    Indices(Vec<isize>),
}

impl From<usize> for Sections {
    fn from(n: usize) -> Sections {
        Sections::Count(n)
    }
}
impl From<i32> for Sections {
    fn from(n: i32) -> Sections {
        Sections::Count(n.max(0) as usize)
    }
}
impl From<&[isize]> for Sections {
    fn from(v: &[isize]) -> Sections {
        Sections::Indices(v.to_vec())
    }
}
impl<const N: usize> From<[isize; N]> for Sections {
    fn from(v: [isize; N]) -> Sections {
        Sections::Indices(v.to_vec())
    }
}
impl From<Vec<isize>> for Sections {
    fn from(v: Vec<isize>) -> Sections {
        Sections::Indices(v)
    }
}

/// Python's clamped slice bound `i` on an axis of length `n`.
fn clamp_bound(i: isize, n: usize) -> usize {
    let n = n as isize;
    (if i < 0 { i + n } else { i }).clamp(0, n) as usize
}

fn split_impl(
    op: &str,
    a: &Array,
    sections: Sections,
    axis: isize,
    equal: bool,
) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::AxisOutOfRange {
            op: op.into(),
            axis,
            ndim: 0,
        });
    }
    let ax = normalize_axis(op, axis, a.ndim())?;
    let n = a.shape()[ax];
    let bounds: Vec<(usize, usize)> = match sections {
        Sections::Count(0) => {
            return Err(Error::invalid(op, "number sections must be larger than 0."))
        }
        Sections::Count(k) => {
            if equal && !n.is_multiple_of(k) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "array split does not result in an equal division: axis {ax} of length \
                         {n} (shape {:?}) into {k} sections",
                        a.shape()
                    ),
                ));
            }
            // One view per section (more sections than elements give empty ones, as in
            // NumPy): a count whose views can't fit in the machine's memory is refused before
            // any is made (cupy_core::host: an overcommitting machine grants any reservation).
            let mut out: Vec<Array> = Vec::new();
            let per_piece = std::mem::size_of::<Array>() + 2 * a.ndim() * 8;
            let fits = k.checked_mul(per_piece).is_some_and(cupy_core::host::fits);
            if !fits || out.try_reserve_exact(k).is_err() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{k} sections of axis {ax} (shape {:?}): too many pieces to allocate",
                        a.shape()
                    ),
                ));
            }
            let (each, extra) = (n / k, n % k);
            let mut at = 0;
            for i in 0..k {
                let len = each + usize::from(i < extra);
                out.push(narrow(a, ax, at, len, 1));
                at += len;
            }
            return Ok(out);
        }
        Sections::Indices(idx) => {
            let starts = std::iter::once(0).chain(idx.iter().map(|&i| clamp_bound(i, n)));
            let ends = idx
                .iter()
                .map(|&i| clamp_bound(i, n))
                .chain(std::iter::once(n));
            starts.zip(ends).map(|(s, e)| (s, e.max(s))).collect()
        }
    };
    Ok(bounds
        .into_iter()
        .map(|(s, e)| narrow(a, ax, s, e - s, 1))
        .collect())
}

/// `cupy.array_split(a, indices_or_sections, axis)`: views of `a` split along `axis`; a count
/// need not divide the axis (the first `len % N` pieces are one longer).
///
/// # Errors
/// [`Error::InvalidArgument`] for 0 sections; [`Error::AxisOutOfRange`].
pub fn array_split(a: &Array, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
    split_impl("array_split", a, sections.into(), axis, false)
}
routine!(array_split, Manipulation, notes: "views");

/// `cupy.split(a, indices_or_sections, axis)`: as [`array_split`], but a count must divide the
/// axis.
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's "array split does not result in an equal division");
/// as [`array_split`].
pub fn split(a: &Array, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
    split_impl("split", a, sections.into(), axis, true)
}
routine!(split, Manipulation, notes: "views");

/// `cupy.hsplit(a, indices_or_sections)`: [`split`] along axis 1 (axis 0 for 1-D arrays).
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d array; as [`split`].
pub fn hsplit(a: &Array, sections: impl Into<Sections>) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "hsplit",
            "hsplit only works on arrays of 1 or more dimensions",
        ));
    }
    let axis = if a.ndim() > 1 { 1 } else { 0 };
    split_impl("hsplit", a, sections.into(), axis, true)
}
routine!(hsplit, Manipulation, notes: "views");

/// `cupy.vsplit(a, indices_or_sections)`: [`split`] along axis 0 of an array of 2 or more
/// dimensions.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than 2 dimensions; as [`split`].
pub fn vsplit(a: &Array, sections: impl Into<Sections>) -> Result<Vec<Array>> {
    if a.ndim() < 2 {
        return Err(Error::invalid(
            "vsplit",
            format!(
                "vsplit only works on arrays of 2 or more dimensions (shape {:?})",
                a.shape()
            ),
        ));
    }
    split_impl("vsplit", a, sections.into(), 0, true)
}
routine!(vsplit, Manipulation, notes: "views");

/// `cupy.dsplit(a, indices_or_sections)`: [`split`] along axis 2 of an array of 3 or more
/// dimensions.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than 3 dimensions; as [`split`].
pub fn dsplit(a: &Array, sections: impl Into<Sections>) -> Result<Vec<Array>> {
    if a.ndim() < 3 {
        return Err(Error::invalid(
            "dsplit",
            format!(
                "dsplit only works on arrays of 3 or more dimensions (shape {:?})",
                a.shape()
            ),
        ));
    }
    split_impl("dsplit", a, sections.into(), 2, true)
}
routine!(dsplit, Manipulation, notes: "views");

/// `numpy.unstack(x, axis=0)` (NumPy 2.1): the `x.shape[axis]` sub-arrays along `axis`, each a
/// view without that axis (the inverse of [`crate::stack`]).
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d array (NumPy's ValueError); [`Error::AxisOutOfRange`].
pub fn unstack(x: &Array, axis: isize) -> Result<Vec<Array>> {
    let op = "unstack";
    if x.ndim() == 0 {
        return Err(Error::invalid(op, "Input array must be at least 1-d."));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let l = x.layout();
    let mut shape = l.shape.clone();
    let mut strides = l.strides.clone();
    shape.remove(ax);
    strides.remove(ax);
    Ok((0..l.shape[ax])
        .map(|i| {
            x.with_layout(Layout {
                shape: shape.clone(),
                strides: strides.clone(),
                offset: (l.offset as isize + i as isize * l.strides[ax]) as usize,
            })
        })
        .collect())
}
routine!(unstack, Manipulation, notes: "views");

//! Shapes, strides and views: how an array's elements sit in its buffer.
//!
//! Strides are in elements (not bytes, unlike NumPy) and may be negative (reversed views) or zero
//! (broadcast views). `offset` is the element index of `arr[0, 0, ...]` in the buffer.

use crate::error::{Error, Result};

/// Shape, element strides and element offset of a view into a buffer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Extent of each axis.
    pub shape: Vec<usize>,
    /// Element stride of each axis (may be negative or zero).
    pub strides: Vec<isize>,
    /// Element offset of the first element.
    pub offset: usize,
}

/// One item of a basic index (`arr[1, 2:10:3, ::-1, None, ...]`), as built by the `s![]` macro.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceItem {
    /// An integer index (negative counts from the end); removes the axis.
    Index(isize),
    /// `start:stop:step` with Python's semantics (negative bounds count from the end; omitted
    /// bounds depend on the step's sign; step must not be 0).
    Slice {
        /// Start, or `None` for the step-dependent default.
        start: Option<isize>,
        /// Stop (exclusive), or `None` for the step-dependent default.
        stop: Option<isize>,
        /// Step (non-zero).
        step: isize,
    },
    /// `None`/`newaxis`: inserts an axis of length 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

/// C-order (row-major) strides of a contiguous array of `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1) as isize;
    }
    strides
}

/// Number of elements of `shape` (1 for a 0-d shape); saturates at `usize::MAX` instead of
/// overflowing, so a too-big shape is caught by the allocation checks ([`checked_size`]).
pub fn shape_size(shape: &[usize]) -> usize {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .unwrap_or(if shape.contains(&0) { 0 } else { usize::MAX })
}

/// The most dimensions an array may have: NumPy's and CuPy's `NPY_MAXDIMS` (64).
pub const MAX_NDIM: usize = 64;

/// Refuses more than [`MAX_NDIM`] dimensions, with NumPy's message ("maximum supported
/// dimension for an ndarray is 64, found 65").
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's `ValueError`) naming `op`.
pub fn check_ndim(op: &str, ndim: usize) -> Result<()> {
    if ndim > MAX_NDIM {
        return Err(Error::invalid(
            op,
            format!("maximum supported dimension for an ndarray is {MAX_NDIM}, found {ndim}"),
        ));
    }
    Ok(())
}

/// Number of elements of `shape`, or an error when the element count or byte size does not fit
/// the address space (NumPy's "array is too big") or the shape has more than [`MAX_NDIM`]
/// dimensions.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` and the shape.
pub fn checked_size(op: &str, shape: &[usize], itemsize: usize) -> Result<usize> {
    check_ndim(op, shape.len())?;
    // As NumPy: the product of the nonzero dimensions must fit, even when a zero makes the
    // array empty (strides and sizes are computed from the other dimensions).
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |a, &d| a.checked_mul(d));
    match nonzero {
        Some(n) if n.checked_mul(itemsize.max(1)).is_some_and(|b| b <= isize::MAX as usize) => {
            Ok(if shape.contains(&0) { 0 } else { n })
        }
        _ => Err(Error::invalid(op, format!("array is too big: shape {shape:?} of {itemsize}-byte elements does not fit in memory"))),
    }
}

/// NumPy's broadcasting of two shapes (`numpy.broadcast_shapes`).
///
/// # Errors
/// [`Error::ShapeMismatch`] naming `op` and both shapes when an axis pair is neither equal nor 1.
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.to_vec(),
                rhs: b.to_vec(),
            });
        };
    }
    Ok(out)
}

/// Normalizes a possibly negative axis against `ndim` (NumPy's `normalize_axis_index`).
///
/// # Errors
/// [`Error::AxisOutOfRange`] when `axis` is outside `[-ndim, ndim)`.
pub fn normalize_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::AxisOutOfRange {
            op: op.into(),
            axis,
            ndim,
        });
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

impl Layout {
    /// A C-contiguous layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        shape_size(&self.shape)
    }

    /// True if elements are laid out in C order without gaps (size-1 axes' strides ignored).
    pub fn is_c_contiguous(&self) -> bool {
        if self.size() == 0 {
            return true;
        }
        let mut acc = 1isize;
        for i in (0..self.ndim()).rev() {
            if self.shape[i] != 1 {
                if self.strides[i] != acc {
                    return false;
                }
                acc *= self.shape[i] as isize;
            }
        }
        true
    }

    /// Smallest and one-past-largest element index this view touches (`(offset, offset)` if
    /// empty). Used to check a view stays inside its buffer.
    pub fn extent(&self) -> (isize, isize) {
        if self.size() == 0 {
            return (self.offset as isize, self.offset as isize);
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let span = (d as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        (lo, hi + 1)
    }

    /// Broadcasts to `shape` (a view with zero strides on stretched axes), or `None` if the
    /// shapes are incompatible.
    pub fn broadcast_to(&self, shape: &[usize]) -> Option<Layout> {
        if shape.len() < self.ndim() {
            return None;
        }
        let lead = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for i in 0..self.ndim() {
            let (d, t) = (self.shape[i], shape[lead + i]);
            strides[lead + i] = if d == t {
                self.strides[i]
            } else if d == 1 {
                0
            } else {
                return None;
            };
        }
        Some(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// Reorders axes: axis `i` of the result is axis `axes[i]` of `self`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `axes` is a permutation of `0..ndim` (negative axes allowed).
    pub fn permute(&self, axes: &[isize]) -> Result<Layout> {
        let n = self.ndim();
        if axes.len() != n {
            return Err(Error::invalid(
                "transpose",
                format!("axes {axes:?} don't match array of dimension {n}"),
            ));
        }
        let mut seen = vec![false; n];
        let mut out = Layout {
            shape: vec![0; n],
            strides: vec![0; n],
            offset: self.offset,
        };
        for (i, &a) in axes.iter().enumerate() {
            let a = normalize_axis("transpose", a, n)?;
            if seen[a] {
                return Err(Error::invalid(
                    "transpose",
                    format!("repeated axis in transpose: {axes:?}"),
                ));
            }
            seen[a] = true;
            out.shape[i] = self.shape[a];
            out.strides[i] = self.strides[a];
        }
        Ok(out)
    }

    /// Reverses the axes (`arr.T`).
    pub fn transposed(&self) -> Layout {
        let mut l = self.clone();
        l.shape.reverse();
        l.strides.reverse();
        l
    }

    /// Applies a basic index (integers, slices, new axes, one ellipsis) and returns the view.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] for an integer index outside its axis; [`Error::InvalidArgument`]
    /// for a zero step, two ellipses, or more indices than axes.
    pub fn slice(&self, items: &[SliceItem]) -> Result<Layout> {
        let n_ell = items
            .iter()
            .filter(|i| matches!(i, SliceItem::Ellipsis))
            .count();
        if n_ell > 1 {
            return Err(Error::invalid(
                "slice",
                "an index can only have a single ellipsis ('...')",
            ));
        }
        let consumed = items
            .iter()
            .filter(|i| matches!(i, SliceItem::Index(_) | SliceItem::Slice { .. }))
            .count();
        if consumed > self.ndim() {
            return Err(Error::invalid(
                "slice",
                format!("too many indices for array: array is {}-dimensional, but {consumed} were indexed", self.ndim()),
            ));
        }
        let mut expanded: Vec<SliceItem> = Vec::with_capacity(items.len() + self.ndim());
        for it in items {
            if let SliceItem::Ellipsis = it {
                for _ in 0..self.ndim() - consumed {
                    expanded.push(SliceItem::Slice {
                        start: None,
                        stop: None,
                        step: 1,
                    });
                }
            } else {
                expanded.push(*it);
            }
        }
        let used = expanded
            .iter()
            .filter(|i| !matches!(i, SliceItem::NewAxis))
            .count();
        for _ in used..self.ndim() {
            expanded.push(SliceItem::Slice {
                start: None,
                stop: None,
                step: 1,
            });
        }
        let mut out = Layout {
            shape: vec![],
            strides: vec![],
            offset: self.offset,
        };
        let mut off = self.offset as isize;
        let mut ax = 0usize;
        for it in expanded {
            match it {
                SliceItem::NewAxis => {
                    out.shape.push(1);
                    out.strides.push(0);
                }
                SliceItem::Index(i) => {
                    let d = self.shape[ax] as isize;
                    let j = if i < 0 { i + d } else { i };
                    if j < 0 || j >= d {
                        return Err(Error::IndexOutOfBounds {
                            op: "index".into(),
                            index: i,
                            axis: ax,
                            size: d as usize,
                        });
                    }
                    off += j * self.strides[ax];
                    ax += 1;
                }
                SliceItem::Slice { start, stop, step } => {
                    if step == 0 {
                        return Err(Error::invalid("slice", "slice step cannot be zero"));
                    }
                    // isize::MIN would overflow on negation; no axis is that long anyway.
                    let step = step.max(-isize::MAX);
                    let d = self.shape[ax] as isize;
                    let (start, len) = slice_indices(start, stop, step, d);
                    if len > 0 {
                        off += start * self.strides[ax];
                    }
                    out.shape.push(len as usize);
                    out.strides.push(self.strides[ax] * step);
                    ax += 1;
                }
                SliceItem::Ellipsis => unreachable!("expanded above"),
            }
        }
        out.offset = off as usize;
        Ok(out)
    }

    /// A view of this layout with `new_shape` if the elements can be re-indexed without a copy
    /// (NumPy's `_attempt_nocopy_reshape`); `None` if a copy is needed.
    pub fn reshape_view(&self, new_shape: &[usize]) -> Option<Layout> {
        if shape_size(new_shape) != self.size() {
            return None;
        }
        if self.is_c_contiguous() {
            return Some(Layout {
                shape: new_shape.to_vec(),
                strides: contiguous_strides(new_shape),
                offset: self.offset,
            });
        }
        // Squeeze size-1 axes, then match groups of old axes to groups of new axes.
        let (olds, oldst): (Vec<usize>, Vec<isize>) = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(d, _)| **d != 1)
            .map(|(d, s)| (*d, *s))
            .unzip();
        let mut newst = vec![0isize; new_shape.len()];
        let (mut oi, mut oj, mut ni, mut nj) = (0usize, 1usize, 0usize, 1usize);
        let (on, nn) = (olds.len(), new_shape.len());
        while ni < nn && oi < on {
            let mut np = new_shape[ni];
            let mut op = olds[oi];
            while np != op {
                if np < op {
                    np *= new_shape[nj];
                    nj += 1;
                } else {
                    op *= olds[oj];
                    oj += 1;
                }
            }
            for ok in oi..oj - 1 {
                if oldst[ok] != olds[ok + 1] as isize * oldst[ok + 1] {
                    return None;
                }
            }
            newst[nj - 1] = oldst[oj - 1];
            for nk in (ni + 1..nj).rev() {
                newst[nk - 1] = newst[nk] * new_shape[nk] as isize;
            }
            ni = nj;
            nj += 1;
            oi = oj;
            oj += 1;
        }
        // Trailing size-1 axes of the new shape.
        for s in newst.iter_mut().skip(ni) {
            *s = 1;
        }
        Some(Layout {
            shape: new_shape.to_vec(),
            strides: newst,
            offset: self.offset,
        })
    }
}

/// Python's `slice.indices` for one axis: returns (first index, length).
fn slice_indices(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    d: isize,
) -> (isize, isize) {
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let norm = |v: isize| if v < 0 { v + d } else { v };
    let (start, stop) = if step > 0 {
        (
            start.map_or(0, |s| clamp(norm(s), 0, d)),
            stop.map_or(d, |s| clamp(norm(s), 0, d)),
        )
    } else {
        (
            start.map_or(d - 1, |s| clamp(norm(s), -1, d - 1)),
            stop.map_or(-1, |s| clamp(norm(s), -1, d - 1)),
        )
    };
    let len = if step > 0 {
        if stop > start {
            (stop - start - 1) / step + 1
        } else {
            0
        }
    } else if start > stop {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    (start, len)
}

/// Simplifies the iteration space shared by several operands before a kernel launch (CuPy's
/// `_reduce_dims`): drops size-1 axes and merges neighbouring axes that are contiguous with each
/// other in every operand. `shape` is the common iteration shape; every layout has that shape.
/// Returns the reduced shape and layouts (a size-0 or 0-d space becomes 1-D).
pub fn merge_axes(shape: &[usize], layouts: &[Layout]) -> (Vec<usize>, Vec<Layout>) {
    let size = shape_size(shape);
    if size == 0 || shape.is_empty() {
        let s = vec![size];
        let ls = layouts
            .iter()
            .map(|l| Layout {
                shape: s.clone(),
                strides: vec![1],
                offset: l.offset,
            })
            .collect();
        return (s, ls);
    }
    let keep: Vec<usize> = (0..shape.len()).filter(|&i| shape[i] != 1).collect();
    if keep.is_empty() {
        let ls = layouts
            .iter()
            .map(|l| Layout {
                shape: vec![1],
                strides: vec![1],
                offset: l.offset,
            })
            .collect();
        return (vec![1], ls);
    }
    let mut out_shape: Vec<usize> = vec![shape[keep[0]]];
    let mut out_strides: Vec<Vec<isize>> =
        layouts.iter().map(|l| vec![l.strides[keep[0]]]).collect();
    for &ax in &keep[1..] {
        let d = shape[ax];
        let last = out_shape.len() - 1;
        let mergeable = layouts
            .iter()
            .enumerate()
            .all(|(k, l)| out_strides[k][last] == l.strides[ax] * d as isize);
        if mergeable {
            out_shape[last] *= d;
            for (k, l) in layouts.iter().enumerate() {
                out_strides[k][last] = l.strides[ax];
            }
        } else {
            out_shape.push(d);
            for (k, l) in layouts.iter().enumerate() {
                out_strides[k].push(l.strides[ax]);
            }
        }
    }
    let ls = layouts
        .iter()
        .zip(out_strides)
        .map(|(l, st)| Layout {
            shape: out_shape.clone(),
            strides: st,
            offset: l.offset,
        })
        .collect();
    (out_shape, ls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes("add", &[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes("add", &[], &[2, 2]).unwrap(), vec![2, 2]);
        let e = broadcast_shapes("add", &[3], &[4]).unwrap_err().to_string();
        assert!(
            e.contains("add") && e.contains("[3]") && e.contains("[4]"),
            "{e}"
        );
    }

    #[test]
    fn slicing_matches_python() {
        let l = Layout::contiguous(&[10]);
        let s = l
            .slice(&[SliceItem::Slice {
                start: None,
                stop: None,
                step: -1,
            }])
            .unwrap();
        assert_eq!((s.shape[0], s.strides[0], s.offset), (10, -1, 9));
        let s = l
            .slice(&[SliceItem::Slice {
                start: Some(1),
                stop: Some(8),
                step: 3,
            }])
            .unwrap();
        assert_eq!((s.shape[0], s.strides[0], s.offset), (3, 3, 1));
        let s = l
            .slice(&[SliceItem::Slice {
                start: Some(-2),
                stop: None,
                step: 1,
            }])
            .unwrap();
        assert_eq!((s.shape[0], s.offset), (2, 8));
        let s = l
            .slice(&[SliceItem::Slice {
                start: Some(8),
                stop: Some(2),
                step: -2,
            }])
            .unwrap();
        assert_eq!((s.shape[0], s.strides[0], s.offset), (3, -2, 8));
        assert!(l.slice(&[SliceItem::Index(10)]).is_err());
        let m = Layout::contiguous(&[2, 3, 4]);
        let s = m
            .slice(&[SliceItem::Ellipsis, SliceItem::Index(-1)])
            .unwrap();
        assert_eq!(s.shape, vec![2, 3]);
        assert_eq!(s.offset, 3);
        let s = m.slice(&[SliceItem::NewAxis, SliceItem::Index(1)]).unwrap();
        assert_eq!(s.shape, vec![1, 3, 4]);
    }

    #[test]
    fn reshape_views() {
        let l = Layout::contiguous(&[4, 6]);
        let t = l.transposed();
        assert!(t.reshape_view(&[24]).is_none());
        assert_eq!(t.reshape_view(&[6, 2, 2]).unwrap().strides, vec![1, 12, 6]);
        let s = l
            .slice(&[
                SliceItem::Slice {
                    start: None,
                    stop: None,
                    step: 1,
                },
                SliceItem::Slice {
                    start: None,
                    stop: None,
                    step: 2,
                },
            ])
            .unwrap();
        assert_eq!(s.reshape_view(&[2, 2, 3]).unwrap().strides, vec![12, 6, 2]);
    }

    #[test]
    fn merging() {
        let a = Layout::contiguous(&[2, 3, 4]);
        let (s, ls) = merge_axes(&[2, 3, 4], &[a.clone(), a.clone()]);
        assert_eq!(s, vec![24]);
        assert_eq!(ls[0].strides, vec![1]);
        let b = a.broadcast_to(&[2, 3, 4]).unwrap();
        let c = Layout::contiguous(&[4]).broadcast_to(&[2, 3, 4]).unwrap();
        let (s, ls) = merge_axes(&[2, 3, 4], &[b, c]);
        assert_eq!(s, vec![6, 4]);
        assert_eq!(ls[1].strides, vec![0, 1]);
    }
}

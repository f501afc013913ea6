//! The `s![]` macro: NumPy basic indexing with Python's slice semantics.
//!
//! `a.slice(&s![1, 2..8;2, ..;-1, NewAxis, Ellipsis])` is NumPy's `a[1, 2:8:2, ::-1, None, ...]`.
//! Unlike ndarray's `s!`, a negative step walks from `start` downwards exactly as Python does:
//! `s![7..2;-2]` is `a[7:2:-2]`. Negative indices and bounds count from the end.
//! [`Array::slice`] applies one.

use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::SliceItem;
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// `numpy.newaxis` for `s![]`.
pub const NEW_AXIS: SliceItem = SliceItem::NewAxis;
/// `...` for `s![]`.
pub const ELLIPSIS: SliceItem = SliceItem::Ellipsis;

/// Something usable as one item of `s![]`: an integer, a range, [`SliceItem`].
pub trait SliceArg {
    /// The item with step 1 (for ranges).
    fn into_item(self) -> SliceItem;
    /// The item with a step (`range;step` in `s![]`).
    fn with_step(self, step: isize) -> SliceItem
    where
        Self: Sized,
    {
        match self.into_item() {
            SliceItem::Slice { start, stop, .. } => SliceItem::Slice { start, stop, step },
            other => other,
        }
    }
}

impl SliceArg for SliceItem {
    fn into_item(self) -> SliceItem {
        self
    }
}

macro_rules! int_slice_arg {
    ($($t:ty),*) => {$(
        impl SliceArg for $t {
            fn into_item(self) -> SliceItem {
                SliceItem::Index(self as isize)
            }
        }
        impl SliceArg for Range<$t> {
            fn into_item(self) -> SliceItem {
                SliceItem::Slice { start: Some(self.start as isize), stop: Some(self.end as isize), step: 1 }
            }
        }
        impl SliceArg for RangeFrom<$t> {
            fn into_item(self) -> SliceItem {
                SliceItem::Slice { start: Some(self.start as isize), stop: None, step: 1 }
            }
        }
        impl SliceArg for RangeTo<$t> {
            fn into_item(self) -> SliceItem {
                SliceItem::Slice { start: None, stop: Some(self.end as isize), step: 1 }
            }
        }
        impl SliceArg for RangeInclusive<$t> {
            fn into_item(self) -> SliceItem {
                let e = *self.end() as isize;
                // Inclusive end: `a..=-1` runs to the last element.
                SliceItem::Slice { start: Some(*self.start() as isize), stop: if e == -1 { None } else { Some(e + 1) }, step: 1 }
            }
        }
        impl SliceArg for RangeToInclusive<$t> {
            fn into_item(self) -> SliceItem {
                let e = self.end as isize;
                SliceItem::Slice { start: None, stop: if e == -1 { None } else { Some(e + 1) }, step: 1 }
            }
        }
    )*};
}
int_slice_arg!(i32, i64, isize, u32);

/// A `usize` beyond `isize::MAX` becomes `isize::MAX`, which is out of bounds for every axis
/// (so `s![usize::MAX]` is an `IndexOutOfBounds` error, never a wrapped negative index).
fn usize_index(v: usize) -> isize {
    isize::try_from(v).unwrap_or(isize::MAX)
}

impl SliceArg for usize {
    fn into_item(self) -> SliceItem {
        SliceItem::Index(usize_index(self))
    }
}
impl SliceArg for Range<usize> {
    fn into_item(self) -> SliceItem {
        SliceItem::Slice {
            start: Some(usize_index(self.start)),
            stop: Some(usize_index(self.end)),
            step: 1,
        }
    }
}
impl SliceArg for RangeFrom<usize> {
    fn into_item(self) -> SliceItem {
        SliceItem::Slice {
            start: Some(usize_index(self.start)),
            stop: None,
            step: 1,
        }
    }
}
impl SliceArg for RangeTo<usize> {
    fn into_item(self) -> SliceItem {
        SliceItem::Slice {
            start: None,
            stop: Some(usize_index(self.end)),
            step: 1,
        }
    }
}

impl SliceArg for RangeFull {
    fn into_item(self) -> SliceItem {
        SliceItem::Slice {
            start: None,
            stop: None,
            step: 1,
        }
    }
}

/// Builds a basic index for [`crate::Array::slice`]: `s![1, 2..8;2, ..;-1, NEW_AXIS, ELLIPSIS]`.
/// Each item is an integer, a range (optionally `;step`), `NEW_AXIS` or `ELLIPSIS`.
#[macro_export]
macro_rules! s {
    (@acc [$($acc:expr,)*]) => { [$($acc,)*] };
    (@acc [$($acc:expr,)*] $e:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($acc,)* $crate::index::SliceArg::with_step($e, $step as isize),] $($rest)*)
    };
    (@acc [$($acc:expr,)*] $e:expr ; $step:expr) => {
        $crate::s!(@acc [$($acc,)* $crate::index::SliceArg::with_step($e, $step as isize),])
    };
    (@acc [$($acc:expr,)*] $e:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($acc,)* $crate::index::SliceArg::into_item($e),] $($rest)*)
    };
    (@acc [$($acc:expr,)*] $e:expr) => {
        $crate::s!(@acc [$($acc,)* $crate::index::SliceArg::into_item($e),])
    };
    ($($t:tt)*) => { $crate::s!(@acc [] $($t)*) };
}

/// Basic indexing on an array (its registry row follows).
impl Array {
    /// Basic indexing (`a[1, 2:8:2, ::-1, None, ...]`): a view. Build `items` with [`crate::s!`].
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`], [`Error::InvalidArgument`] (zero step, too many indices,
    /// a result of more than 64 dimensions).
    pub fn slice(&self, items: &[SliceItem]) -> Result<Array> {
        let l = self.layout.slice(items)?;
        if l.ndim() > cupy_core::layout::MAX_NDIM {
            return Err(Error::invalid(
                "index",
                format!(
                    "number of dimensions must be within [0, {}], indexing result would have {}",
                    cupy_core::layout::MAX_NDIM,
                    l.ndim()
                ),
            ));
        }
        Ok(self.with_layout(l))
    }
}
routine!(
    "ndarray.__getitem__ (basic)",
    Indexing,
    notes: "s![] with Python slice semantics"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::reversed_empty_ranges)]
    fn macro_builds_python_slices() {
        let v = s![1, 2..8;2, ..;-1, NEW_AXIS, ELLIPSIS, -1..];
        assert_eq!(v[0], SliceItem::Index(1));
        assert_eq!(
            v[1],
            SliceItem::Slice {
                start: Some(2),
                stop: Some(8),
                step: 2
            }
        );
        assert_eq!(
            v[2],
            SliceItem::Slice {
                start: None,
                stop: None,
                step: -1
            }
        );
        assert_eq!(v[3], SliceItem::NewAxis);
        assert_eq!(v[4], SliceItem::Ellipsis);
        assert_eq!(
            v[5],
            SliceItem::Slice {
                start: Some(-1),
                stop: None,
                step: 1
            }
        );
        let w = s![7..2;-2];
        assert_eq!(
            w[0],
            SliceItem::Slice {
                start: Some(7),
                stop: Some(2),
                step: -2
            }
        );
    }
}

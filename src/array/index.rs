//! NumPy's index: the `s![]` macro and [`IndexItem`].
//!
//! `a.slice(&s![1, 2..8;2, ..;-1, NEW_AXIS, ELLIPSIS])` is NumPy's `a[1, 2:8:2, ::-1, None, ...]`.
//! Unlike ndarray's `s!`, a negative step walks from `start` downwards exactly as Python does:
//! `s![7..2;-2]` is `a[7:2:-2]`. Negative indices and bounds count from the end.
//! [`Array::slice`] applies a basic index (a view). An item may also be an integer or boolean
//! array (`&idx`) or a boolean scalar (`true`): `a.get(&s![&rows, 1.., NEW_AXIS])` is NumPy's
//! `a[rows, 1:, None]`, with NumPy's advanced-indexing rules ([`Array::get`], [`Array::set`]).

use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::SliceItem;
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// `numpy.newaxis` for `s![]`.
pub const NEW_AXIS: SliceItem = SliceItem::NewAxis;
/// `...` for `s![]`.
pub const ELLIPSIS: SliceItem = SliceItem::Ellipsis;

/// One item of a NumPy index (`a[1, 2:8:2, None, ..., idx, mask, True]`): a basic item, an
/// integer or boolean array, or a boolean scalar. `s![]` builds a list of them.
#[derive(Clone, Debug)]
pub enum IndexItem {
    /// An integer, a slice, `newaxis` or `...`.
    Basic(SliceItem),
    /// An integer array (any integer dtype; negative entries count from the end) or a boolean
    /// array (selects where true, consuming as many axes as it has).
    Array(Array),
    /// A boolean scalar: a new axis of length 1 (`true`) or 0 (`false`).
    Bool(bool),
}

impl From<SliceItem> for IndexItem {
    fn from(s: SliceItem) -> IndexItem {
        IndexItem::Basic(s)
    }
}

impl PartialEq<SliceItem> for IndexItem {
    fn eq(&self, other: &SliceItem) -> bool {
        matches!(self, IndexItem::Basic(s) if s == other)
    }
}

/// Anything a list of which is an index: [`SliceItem`] (a basic index) or [`IndexItem`].
pub trait AsIndexItem {
    /// The item.
    fn to_index_item(&self) -> IndexItem;
}

impl AsIndexItem for SliceItem {
    fn to_index_item(&self) -> IndexItem {
        IndexItem::Basic(*self)
    }
}

impl AsIndexItem for IndexItem {
    fn to_index_item(&self) -> IndexItem {
        self.clone()
    }
}

/// Something usable as one item of `s![]`: an integer, a range, [`SliceItem`], an array
/// (`&Array` or `Array`: an integer or boolean index array) or a `bool`.
pub trait SliceArg {
    /// The item with step 1 (for ranges).
    fn into_item(self) -> IndexItem;
    /// The item with a step (`range;step` in `s![]`).
    fn with_step(self, step: isize) -> IndexItem
    where
        Self: Sized,
    {
        match self.into_item() {
            IndexItem::Basic(SliceItem::Slice { start, stop, .. }) => {
                IndexItem::Basic(SliceItem::Slice { start, stop, step })
            }
            other => other,
        }
    }
}

impl BasicArg for SliceItem {
    fn basic(self) -> SliceItem {
        self
    }
}

impl SliceArg for IndexItem {
    fn into_item(self) -> IndexItem {
        self
    }
}

impl SliceArg for &Array {
    fn into_item(self) -> IndexItem {
        IndexItem::Array(self.clone())
    }
}

impl SliceArg for Array {
    fn into_item(self) -> IndexItem {
        IndexItem::Array(self)
    }
}

impl SliceArg for bool {
    fn into_item(self) -> IndexItem {
        IndexItem::Bool(self)
    }
}

/// The basic items of `s![]` (integers and ranges), which become [`IndexItem::Basic`].
pub trait BasicArg {
    /// The item with step 1.
    fn basic(self) -> SliceItem;
}

impl<T: BasicArg> SliceArg for T {
    fn into_item(self) -> IndexItem {
        IndexItem::Basic(self.basic())
    }
}

macro_rules! int_slice_arg {
    ($($t:ty),*) => {$(
        impl BasicArg for $t {
            fn basic(self) -> SliceItem {
                SliceItem::Index(self as isize)
            }
        }
        impl BasicArg for Range<$t> {
            fn basic(self) -> SliceItem {
                SliceItem::Slice { start: Some(self.start as isize), stop: Some(self.end as isize), step: 1 }
            }
        }
        impl BasicArg for RangeFrom<$t> {
            fn basic(self) -> SliceItem {
                SliceItem::Slice { start: Some(self.start as isize), stop: None, step: 1 }
            }
        }
        impl BasicArg for RangeTo<$t> {
            fn basic(self) -> SliceItem {
                SliceItem::Slice { start: None, stop: Some(self.end as isize), step: 1 }
            }
        }
        impl BasicArg for RangeInclusive<$t> {
            fn basic(self) -> SliceItem {
                let e = *self.end() as isize;
                // Inclusive end: `a..=-1` runs to the last element.
                SliceItem::Slice { start: Some(*self.start() as isize), stop: if e == -1 { None } else { Some(e + 1) }, step: 1 }
            }
        }
        impl BasicArg for RangeToInclusive<$t> {
            fn basic(self) -> SliceItem {
                let e = self.end as isize;
                SliceItem::Slice { start: None, stop: if e == -1 { None } else { Some(e + 1) }, step: 1 }
            }
        }
    )*};
}
int_slice_arg!(i8, i16, i32, i64, isize, u8, u16, u32);

/// A `usize` or `u64` beyond `isize::MAX` becomes `isize::MAX`, which is out of bounds for
/// every axis (so `s![usize::MAX]` is an `IndexOutOfBounds` error, never a wrapped negative
/// index).
fn wide_index<T: TryInto<isize>>(v: T) -> isize {
    v.try_into().unwrap_or(isize::MAX)
}

macro_rules! unsigned_wide_slice_arg {
    ($($t:ty),*) => {$(
        impl BasicArg for $t {
            fn basic(self) -> SliceItem {
                SliceItem::Index(wide_index(self))
            }
        }
        impl BasicArg for Range<$t> {
            fn basic(self) -> SliceItem {
                SliceItem::Slice { start: Some(wide_index(self.start)), stop: Some(wide_index(self.end)), step: 1 }
            }
        }
        impl BasicArg for RangeFrom<$t> {
            fn basic(self) -> SliceItem {
                SliceItem::Slice { start: Some(wide_index(self.start)), stop: None, step: 1 }
            }
        }
        impl BasicArg for RangeTo<$t> {
            fn basic(self) -> SliceItem {
                SliceItem::Slice { start: None, stop: Some(wide_index(self.end)), step: 1 }
            }
        }
    )*};
}
unsigned_wide_slice_arg!(usize, u64);

impl BasicArg for RangeFull {
    fn basic(self) -> SliceItem {
        SliceItem::Slice {
            start: None,
            stop: None,
            step: 1,
        }
    }
}

/// Builds an index (an array of [`IndexItem`]) for [`crate::Array::slice`] (basic items only)
/// and [`crate::Array::get`]/[`crate::Array::set`]: `s![1, 2..8;2, ..;-1, NEW_AXIS, ELLIPSIS]`.
/// Each item is an integer (of any Rust integer type up to 64 bits but `i128`/`u128`; an
/// unsigned one past `isize::MAX` is out of bounds), a range of them (optionally `;step`),
/// `NEW_AXIS`, `ELLIPSIS`, an integer or boolean array (`&idx`), or a `bool`.
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
    /// a result of more than 64 dimensions, an array or boolean item: use [`Array::get`]).
    pub fn slice<I: AsIndexItem>(&self, items: &[I]) -> Result<Array> {
        let mut basic = Vec::with_capacity(items.len());
        for it in items {
            match it.to_index_item() {
                IndexItem::Basic(b) => basic.push(b),
                _ => {
                    return Err(Error::invalid(
                        "slice",
                        "an array or boolean index is advanced indexing: use Array::get",
                    ))
                }
            }
        }
        let l = self.layout.slice(&basic)?;
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

//! Resolving a NumPy index ([`IndexItem`]s) against an array: the basic part becomes a view,
//! the advanced part (integer arrays, boolean arrays turned into integer arrays by `nonzero`,
//! boolean scalars) a list of index arrays broadcast together, placed as NumPy places them.

use crate::array::index::{AsIndexItem, IndexItem};
use crate::array::Array;
use crate::launch::broadcast_all;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::layout::{Layout, SliceItem};

/// An index resolved against an array.
pub(crate) enum Resolved {
    /// Only basic items: a view (NumPy returns a view too).
    Basic(Array),
    /// Some advanced items.
    Advanced(Plan),
}

/// The advanced part of an index: `view` (the basic part applied, every advanced axis kept at
/// full length) indexed along `adv[k].0` by `adv[k].1`, the index arrays broadcast to
/// `bshape`, whose axes land at position `insert` of the result.
pub(crate) struct Plan {
    /// The basic view.
    pub view: Array,
    /// (axis of `view`, integer index array) for each advanced axis, in order.
    pub adv: Vec<(usize, Array)>,
    /// The broadcast shape of the index arrays.
    pub bshape: Vec<usize>,
    /// Where the broadcast axes go among the result's axes.
    pub insert: usize,
    /// The result shape.
    pub shape: Vec<usize>,
    /// `(k, n, axis)`: index array `adv[k]` (along an axis of `n` elements, axis `axis` of the
    /// indexed array) is not checked yet; the gather checks it ([`super::checked_position`]).
    pub unchecked: Vec<(usize, usize, usize)>,
}

impl Plan {
    /// The axes of `view` that are not advanced, in order.
    pub fn rest_axes(&self) -> Vec<usize> {
        (0..self.view.ndim())
            .filter(|d| !self.adv.iter().any(|(a, _)| a == d))
            .collect()
    }

    /// Index array `k` as a view over the result shape (zero strides on the other axes).
    pub fn index_over_result(&self, k: usize) -> Result<Array> {
        let b = self.adv[k].1.broadcast_to(&self.bshape)?;
        let nrest_before = self.insert;
        let nrest = self.shape.len() - self.bshape.len();
        let mut strides = vec![0isize; nrest_before];
        strides.extend(b.layout.strides.iter().copied());
        strides.extend(vec![0isize; nrest - nrest_before]);
        Ok(b.with_layout(Layout {
            shape: self.shape.clone(),
            strides,
            offset: b.layout.offset,
        }))
    }
}

pub(super) fn index_error(op: &str, msg: impl Into<String>) -> Error {
    Error::IndexError {
        op: op.into(),
        msg: msg.into(),
    }
}

const VALID: &str = "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices";

/// Resolves `items` against `a` (NumPy's `a[items]`): checks the index, turns boolean arrays
/// into integer arrays (`nonzero`, one small read of the count), checks integer arrays against
/// their axes (one read of their min and max), and broadcasts them together.
///
/// `defer`: integer arrays along non-empty axes are left unchecked (`Plan::unchecked`) for a
/// gather that checks them itself ([`super::get::gather_plan`]); never for writes, which must
/// not start before the check.
pub(crate) fn resolve<I: AsIndexItem>(
    op: &str,
    a: &Array,
    items: &[I],
    defer: bool,
) -> Result<Resolved> {
    let items: Vec<IndexItem> = items.iter().map(|i| i.to_index_item()).collect();
    let n_ell = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Basic(SliceItem::Ellipsis)))
        .count();
    if n_ell > 1 {
        return Err(index_error(
            op,
            "an index can only have a single ellipsis ('...')",
        ));
    }
    let mut consumed = 0usize;
    for it in &items {
        consumed += match it {
            IndexItem::Basic(SliceItem::Index(_) | SliceItem::Slice { .. }) => 1,
            IndexItem::Array(x) if x.dtype() == DType::Bool => x.ndim(),
            IndexItem::Array(x) if x.dtype().is_integer() => 1,
            IndexItem::Array(x) => {
                return Err(index_error(
                    op,
                    format!("{VALID} (got an array of {})", x.dtype()),
                ))
            }
            _ => 0,
        };
    }
    if consumed > a.ndim() {
        return Err(index_error(
            op,
            format!(
                "too many indices for array: array is {}-dimensional, but {consumed} were indexed",
                a.ndim()
            ),
        ));
    }
    let has_adv = items
        .iter()
        .any(|i| matches!(i, IndexItem::Array(_) | IndexItem::Bool(_)));
    if !has_adv {
        let basic: Vec<SliceItem> = items
            .iter()
            .map(|i| match i {
                IndexItem::Basic(b) => *b,
                _ => unreachable!("no advanced items"),
            })
            .collect();
        return Ok(Resolved::Basic(a.slice(&basic)?));
    }
    let device = a.device().clone();
    let full = SliceItem::Slice {
        start: None,
        stop: None,
        step: 1,
    };
    let mut basic: Vec<SliceItem> = Vec::with_capacity(items.len() + a.ndim());
    // (axis of the view, array, axis of `a` it indexes or None for a boolean scalar's axis)
    let mut adv: Vec<(usize, Array, Option<usize>)> = vec![];
    let mut adv_pos: Vec<usize> = vec![];
    let mut first_vax: Option<usize> = None;
    let (mut vax, mut iax) = (0usize, 0usize);
    for (pos, it) in items.iter().enumerate() {
        let mut mark = |vax: usize, first: &mut Option<usize>| {
            adv_pos.push(pos);
            first.get_or_insert(vax);
        };
        match it {
            IndexItem::Basic(SliceItem::Ellipsis) => {
                for _ in 0..a.ndim() - consumed {
                    basic.push(full);
                    vax += 1;
                    iax += 1;
                }
            }
            IndexItem::Basic(SliceItem::NewAxis) => {
                basic.push(SliceItem::NewAxis);
                vax += 1;
            }
            IndexItem::Basic(s @ SliceItem::Slice { .. }) => {
                basic.push(*s);
                vax += 1;
                iax += 1;
            }
            IndexItem::Basic(SliceItem::Index(i)) => {
                // With advanced items present, an integer is an advanced index (a 0-d array):
                // it takes part in placing the broadcast axes.
                mark(vax, &mut first_vax);
                basic.push(SliceItem::Index(*i));
                iax += 1;
            }
            IndexItem::Bool(b) => {
                mark(vax, &mut first_vax);
                basic.push(SliceItem::NewAxis);
                let idx = Array::from_slice_on(
                    &device,
                    if *b { &[0i64][..] } else { &[] },
                    &[usize::from(*b)],
                )?;
                adv.push((vax, idx, None));
                vax += 1;
            }
            IndexItem::Array(x) if x.dtype() == DType::Bool => {
                mark(vax, &mut first_vax);
                if x.ndim() == 0 {
                    let b = x.item()?.is_nonzero();
                    basic.push(SliceItem::NewAxis);
                    let idx = Array::from_slice_on(
                        &device,
                        if b { &[0i64][..] } else { &[] },
                        &[usize::from(b)],
                    )?;
                    adv.push((vax, idx, None));
                    vax += 1;
                    continue;
                }
                // NumPy accepts a mask axis of length 0 against an axis of any length (it
                // selects nothing); any other length must match.
                for d in 0..x.ndim() {
                    if x.shape()[d] != 0 && x.shape()[d] != a.shape()[iax + d] {
                        return Err(index_error(
                            op,
                            format!(
                                "boolean index did not match indexed array along axis {}; size of axis is {} but size of corresponding boolean axis is {}",
                                iax + d,
                                a.shape()[iax + d],
                                x.shape()[d]
                            ),
                        ));
                    }
                }
                let rows = super::nonzero::nonzero_rows(op, x)?;
                for r in rows {
                    basic.push(full);
                    adv.push((vax, r, None));
                    vax += 1;
                    iax += 1;
                }
            }
            IndexItem::Array(x) => {
                mark(vax, &mut first_vax);
                basic.push(full);
                adv.push((vax, x.clone(), Some(iax)));
                vax += 1;
                iax += 1;
            }
        }
    }
    let view = a.slice(&basic)?;
    let mut unchecked = vec![];
    for (k, (vax, x, ax)) in adv.iter().enumerate() {
        if let Some(ax) = ax {
            let n = view.shape()[*vax];
            if defer && super::foldable_check(x, n) {
                unchecked.push((k, n, *ax));
            } else {
                super::check_bounds(op, x, n, *ax)?;
            }
        }
    }
    let arrays: Vec<&Array> = adv.iter().map(|(_, x, _)| x).collect();
    let bshape = match broadcast_all(op, &arrays) {
        Ok(b) => b,
        Err(_) => {
            // the bounds error first, as when every array is checked up front
            for &(k, n, ax) in &unchecked {
                super::check_bounds(op, arrays[k], n, ax)?;
            }
            let shapes: Vec<String> = arrays.iter().map(|x| format!("{:?}", x.shape())).collect();
            return Err(index_error(
                op,
                format!(
                    "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
                    shapes.join(" ")
                ),
            ));
        }
    };
    let adjacent = adv_pos.windows(2).all(|w| w[1] == w[0] + 1);
    let adv: Vec<(usize, Array)> = adv.into_iter().map(|(v, x, _)| (v, x)).collect();
    // Rest axes before the first advanced one, when the advanced items are adjacent.
    let insert = if adjacent {
        let first = first_vax.unwrap_or(0);
        (0..first)
            .filter(|d| !adv.iter().any(|(a, _)| a == d))
            .count()
    } else {
        0
    };
    let rest: Vec<usize> = (0..view.ndim())
        .filter(|d| !adv.iter().any(|(a, _)| a == d))
        .map(|d| view.shape()[d])
        .collect();
    let mut shape = rest[..insert].to_vec();
    shape.extend(&bshape);
    shape.extend(&rest[insert..]);
    cupy_core::layout::check_ndim(op, shape.len())?;
    Ok(Resolved::Advanced(Plan {
        view,
        adv,
        bshape,
        insert,
        shape,
        unchecked,
    }))
}

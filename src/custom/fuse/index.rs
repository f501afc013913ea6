//! Indexing inside a fused function: `x.slice(&s![...])` on a [`Sym`].
//!
//! An argument, or a reduction's result, is indexed as an array is (any basic index: a view,
//! read by the kernels that use it). A computed value takes any basic index too, pushed down
//! to the inputs of its expression: `(x * 2.0).slice(&s![.., NEW_AXIS])` reads every input
//! through that index, padded to the expression's rank first (NumPy's broadcasting rule);
//! `(x + y).slice(&s![1, 1..3])` reads every input broadcast to the expression's shape, then
//! indexed. Elementwise work commutes with indexing, so either way it stays one kernel, which
//! computes only the elements the index keeps.

use super::plan::{Source, View};
use super::{with_trace, Sym, Trace, Val};
use crate::array::index::{AsIndexItem, IndexItem};
use cupy_core::error::Error;
use cupy_core::kernel::ir::{Expr, ExprKind, Stmt};
use cupy_core::kernel::math::Bind;
use cupy_core::layout::SliceItem;
use std::collections::HashMap;

impl Sym {
    /// NumPy's basic indexing of the value: `x.slice(&s![.., NEW_AXIS])` is CuPy's
    /// `x[:, None]` in a fused function, `(x * y).slice(&s![0, 1..])` its `(x * y)[0, 1:]`.
    /// Any value takes any basic index (integers, slices, `NEW_AXIS`, `ELLIPSIS`): an array
    /// argument or a reduction's result as a view, a computed value through its inputs (see
    /// the module docs). Index arrays make the fused function return an `InvalidArgument`
    /// error; an index that does not fit the shape is an error when the function runs, as
    /// for arrays.
    pub fn slice<I: AsIndexItem>(self, items: &[I]) -> Sym {
        let items: Result<Vec<SliceItem>, Error> = items
            .iter()
            .map(|i| match i.to_index_item() {
                IndexItem::Basic(b) => Ok(b),
                _ => Err(Error::invalid(
                    "fuse",
                    "a Sym takes basic indices (integers, slices, NEW_AXIS, ELLIPSIS), not index arrays",
                )),
            })
            .collect();
        with_trace(|t| {
            let v = match (self.get(t), items) {
                (Val::Failed(e), _) | (_, Err(e)) => Val::Failed(e),
                (Val::Weak(..), _) => Val::Failed(Error::invalid(
                    "fuse",
                    "a scalar cannot be indexed; index an array",
                )),
                (Val::Strong(e), Ok(items)) => match e.kind {
                    ExprKind::Input(k) => {
                        let view = Source::View(View {
                            base: k,
                            pad_of: None,
                            items,
                            full: false,
                        });
                        Val::Strong(t.push_source(view, e.ty))
                    }
                    _ => {
                        let full = !items.iter().all(moves_axes_only);
                        match index_expression(t, &e, items, full) {
                            Some(x) => Val::Strong(x),
                            None => Val::Failed(Error::invalid(
                                "fuse",
                                "a constant cannot be indexed with integers or slices; index an array",
                            )),
                        }
                    }
                },
            };
            Sym::push(t, v)
        })
        .unwrap_or(Sym { trace: 0, id: 0 })
    }
}

/// True for the index items that keep every element (they only add or keep axes).
fn moves_axes_only(i: &SliceItem) -> bool {
    matches!(
        i,
        SliceItem::NewAxis
            | SliceItem::Ellipsis
            | SliceItem::Slice {
                start: None,
                stop: None,
                step: 1
            }
    )
}

/// `e[items]`: every input `e` reaches (through the trace's locals) is replaced by a view of
/// it padded to `e`'s rank (or with `full`, broadcast to `e`'s shape) and indexed with
/// `items`; the locals on the way are bound anew. `None` for items that pick elements of a
/// value that reads no input (a constant has no shape to index).
fn index_expression(t: &mut Trace, e: &Expr, items: Vec<SliceItem>, full: bool) -> Option<Expr> {
    let mut reach = HashMap::new();
    let mut inputs = vec![];
    reaches(t, e, &mut reach, &mut inputs);
    if full && inputs.is_empty() {
        return None;
    }
    let mut map = HashMap::new();
    for &k in &inputs {
        let view = Source::View(View {
            base: k,
            pad_of: Some(inputs.clone()),
            items: items.clone(),
            full,
        });
        t.sources.push(view);
        map.insert(k, t.n_arrays + t.sources.len() - 1);
    }
    let mut memo = HashMap::new();
    Some(retarget(t, e, &map, &reach, &mut memo))
}

/// The locals of the trace: the value of local `v`, if `v` is one.
fn local(t: &Trace, v: usize) -> Option<Expr> {
    let first = t.lets.first_local;
    match t.lets.stmts.get(v.checked_sub(first)?) {
        Some(Stmt::Let { value, .. }) => Some(value.clone()),
        _ => None,
    }
}

/// Whether `e` reads an input; collects the inputs it reads (and records, per local, whether
/// it reads one).
pub(super) fn reaches(
    t: &Trace,
    e: &Expr,
    memo: &mut HashMap<usize, bool>,
    inputs: &mut Vec<usize>,
) -> bool {
    let mut any = false;
    let mut vars = vec![];
    e.visit(&mut |n| match n.kind {
        ExprKind::Input(k) => {
            any = true;
            if !inputs.contains(&k) {
                inputs.push(k);
            }
        }
        ExprKind::Var(v) => vars.push(v),
        _ => {}
    });
    for v in vars {
        let r = match memo.get(&v) {
            Some(&r) => r,
            None => {
                let r = match local(t, v) {
                    Some(value) => reaches(t, &value, memo, inputs),
                    None => false,
                };
                memo.insert(v, r);
                r
            }
        };
        any |= r;
    }
    any
}

/// `e` with inputs renumbered by `map` and the locals that read inputs bound anew.
fn retarget(
    t: &mut Trace,
    e: &Expr,
    map: &HashMap<usize, usize>,
    reach: &HashMap<usize, bool>,
    memo: &mut HashMap<usize, Expr>,
) -> Expr {
    e.rewrite(&mut |n| match n.kind {
        ExprKind::Input(k) => map.get(&k).map(|&j| Expr::input(j, n.ty)),
        ExprKind::Var(v) if reach.get(&v) == Some(&true) => {
            if let Some(x) = memo.get(&v) {
                return Some(x.clone());
            }
            let value = local(t, v).expect("a local that reads an input");
            let new = retarget(t, &value, map, reach, memo);
            let b = t.lets.bind(new);
            memo.insert(v, b.clone());
            Some(b)
        }
        _ => None,
    })
}

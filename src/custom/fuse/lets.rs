//! The shared values of a trace as kernel code: the locals a kernel needs ([`compact`]) and a
//! reduction map with its locals inlined ([`inline`]).

use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{Expr, ExprKind, Stmt};
use cupy_core::kernel::math::Lets;
use std::collections::HashMap;

/// The `Let`s of `lets` that `roots` reach, renumbered from local 0 in their order, the roots
/// rewritten to them, and the inputs they read (ascending; rewritten to `0..`).
pub(crate) fn compact(
    lets: &Lets,
    roots: &[Expr],
) -> (Vec<DType>, Vec<Stmt>, Vec<Expr>, Vec<usize>) {
    let first = lets.first_local;
    let values: Vec<&Expr> = lets
        .stmts
        .iter()
        .map(|s| match s {
            Stmt::Let { value, .. } => value,
            _ => unreachable!("Lets holds Let statements"),
        })
        .collect();
    let mut need = vec![false; values.len()];
    let mut inputs: Vec<usize> = vec![];
    let mark = |e: &Expr, need: &mut Vec<bool>, inputs: &mut Vec<usize>| {
        e.visit(&mut |n| match n.kind {
            ExprKind::Var(k) if k >= first && k - first < need.len() => need[k - first] = true,
            ExprKind::Input(k) if !inputs.contains(&k) => inputs.push(k),
            _ => {}
        })
    };
    for r in roots {
        mark(r, &mut need, &mut inputs);
    }
    for j in (0..values.len()).rev() {
        if need[j] {
            mark(values[j], &mut need, &mut inputs);
        }
    }
    inputs.sort_unstable();
    let mut new_var = vec![usize::MAX; values.len()];
    let mut locals = vec![];
    for (j, n) in need.iter().enumerate() {
        if *n {
            new_var[j] = locals.len();
            locals.push(lets.locals[j]);
        }
    }
    let fix = |e: &Expr| {
        e.rewrite(&mut |n| match n.kind {
            ExprKind::Var(k) if k >= first && k - first < new_var.len() => {
                Some(Expr::var(new_var[k - first], n.ty))
            }
            ExprKind::Input(k) => Some(Expr::input(
                inputs.binary_search(&k).expect("input collected"),
                n.ty,
            )),
            _ => None,
        })
    };
    let stmts = (0..values.len())
        .filter(|&j| need[j])
        .map(|j| Stmt::Let {
            var: new_var[j],
            value: fix(values[j]),
        })
        .collect();
    let roots = roots.iter().map(fix).collect();
    (locals, stmts, roots, inputs)
}

/// `root` with the locals of `stmts` (numbered from 0) replaced by their values, or `None` when
/// that expression would have more than `limit` nodes (shared values repeat when inlined).
pub(crate) fn inline(stmts: &[Stmt], root: &Expr, limit: usize) -> Option<Expr> {
    let size_of = |e: &Expr, sizes: &[usize]| {
        let mut n = 0usize;
        e.visit(&mut |x| {
            n = n.saturating_add(match x.kind {
                ExprKind::Var(k) if k < sizes.len() => sizes[k],
                _ => 1,
            })
        });
        n
    };
    let mut sizes = Vec::with_capacity(stmts.len());
    for s in stmts {
        if let Stmt::Let { value, .. } = s {
            let n = size_of(value, &sizes);
            sizes.push(n);
        }
    }
    if size_of(root, &sizes) > limit {
        return None;
    }
    let mut done: HashMap<usize, Expr> = HashMap::new();
    fn sub(e: &Expr, stmts: &[Stmt], done: &mut HashMap<usize, Expr>) -> Expr {
        e.rewrite(&mut |n| match n.kind {
            ExprKind::Var(k) if k < stmts.len() => {
                if let Some(v) = done.get(&k) {
                    return Some(v.clone());
                }
                let Stmt::Let { value, .. } = &stmts[k] else {
                    unreachable!("Let statements")
                };
                let v = sub(value, stmts, done);
                done.insert(k, v.clone());
                Some(v)
            }
            _ => None,
        })
    }
    Some(sub(root, stmts, &mut done))
}

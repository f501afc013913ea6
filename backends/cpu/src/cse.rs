//! Common subexpressions of a tuple reduction's combine, evaluated once per block.
//!
//! A tuple combine repeats subtrees across its members (argmax's "b wins" test is in both the
//! value and the index; Chan's `n_b / n` and `mean_b - mean_a` in the mean and in M2). The
//! block interpreter evaluates every node as one loop over the lanes, so a repeated subtree
//! costs a loop per copy: hoisting each into a local evaluated first removes the copies.

use cupy_core::kernel::ir::{Expr, ExprKind};
use std::collections::HashMap;

/// `exprs` rewritten over hoisted locals: `lets[k]` (which may read earlier lets) is local
/// `first_var + k`; `outs[j]` computes `exprs[j]` from the inputs and those locals.
pub struct Hoisted {
    /// The shared subexpressions, in evaluation order.
    pub lets: Vec<Expr>,
    /// The rewritten expressions.
    pub outs: Vec<Expr>,
}

fn trivial(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Const(_)
            | ExprKind::Var(_)
            | ExprKind::Param(_)
            | ExprKind::Input(_)
            | ExprKind::Index
    )
}

/// Hoists every non-trivial subtree that occurs more than once in `exprs` (counting
/// occurrences inside other repeated subtrees too) into a local numbered from `first_var`.
pub fn hoist(exprs: &[Expr], first_var: usize) -> Hoisted {
    let mut counts: HashMap<Expr, usize> = HashMap::new();
    for e in exprs {
        e.visit(&mut |n| {
            if !trivial(n) {
                *counts.entry(n.clone()).or_default() += 1;
            }
        });
    }
    let mut st = State {
        counts,
        memo: HashMap::new(),
        lets: vec![],
        base: first_var,
    };
    let outs = exprs.iter().map(|e| st.go(e)).collect();
    Hoisted {
        lets: st.lets,
        outs,
    }
}

struct State {
    counts: HashMap<Expr, usize>,
    memo: HashMap<Expr, usize>,
    lets: Vec<Expr>,
    base: usize,
}

impl State {
    fn go(&mut self, e: &Expr) -> Expr {
        if trivial(e) {
            return e.clone();
        }
        if let Some(&k) = self.memo.get(e) {
            return Expr::var(self.base + k, e.ty);
        }
        // Rebuild the children (hoisting theirs first), then this node.
        let root = e as *const Expr;
        let rebuilt = e.rewrite(&mut |n| {
            if std::ptr::eq(n, root) {
                None
            } else {
                Some(self.go(n))
            }
        });
        if self.counts.get(e).copied().unwrap_or(0) >= 2 {
            self.lets.push(rebuilt);
            let k = self.lets.len() - 1;
            self.memo.insert(e.clone(), k);
            Expr::var(self.base + k, e.ty)
        } else {
            rebuilt
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cupy_core::kernel::ir::BinaryOp as B;
    use cupy_core::DType;

    #[test]
    fn shared_subtrees_become_locals() {
        let f = DType::Float32;
        let (a, b) = (Expr::var(0, f), Expr::var(1, f));
        let d = Expr::binary(B::Sub, b.clone(), a.clone());
        let d2 = Expr::binary(B::Mul, d.clone(), d.clone());
        let x = Expr::binary(B::Add, a.clone(), d.clone());
        let y = Expr::binary(B::Add, d2.clone(), Expr::binary(B::Mul, d2, b));
        let h = hoist(&[x, y], 2);
        // d (4 uses) and d*d (2 uses) are hoisted, d first.
        assert_eq!(h.lets.len(), 2);
        assert_eq!(h.lets[0], d);
        assert_eq!(
            h.lets[1],
            Expr::binary(B::Mul, Expr::var(2, f), Expr::var(2, f))
        );
        assert_eq!(h.outs[0], Expr::binary(B::Add, a, Expr::var(2, f)));
        // nothing shared: unchanged
        let e = Expr::binary(B::Add, Expr::var(0, f), Expr::var(1, f));
        let h = hoist(std::slice::from_ref(&e), 2);
        assert!(h.lets.is_empty() && h.outs == [e]);
    }
}

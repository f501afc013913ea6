//! `eigh`/`eigvalsh` by cyclic Jacobi, every rotation unrolled.

use super::{bin, i64c, sel, un, Ctx};
use crate::random::builder::{add, div, mul, sub, Builder};
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Stmt, UnaryOp as U};

/// Row-cyclic Jacobi sweeps run for an `n x n` matrix (`double`: float64), fixed so that the
/// kernel has no data-dependent loop.
///
/// Cyclic Jacobi converges quadratically once the off-diagonal part is small (GVL section
/// 8.5.5), so a sweep roughly squares the relative off-diagonal norm `off(A) / ||A||_F`. The
/// counts were measured on 3,000 matrices per class (random symmetric, clustered eigenvalues
/// `1, 1 + 1e-7, 2`, graded eigenvalues `10^[-6, 6]` of random signs, nearly diagonal, small
/// integers, rank one), emulating this kernel's arithmetic in the dtype: the worst case reached
/// `off(A) <= eps ||A||_F` after 1 sweep at `n = 2` (one rotation is exact), 4 at `n = 3` (both
/// dtypes), 5 at `n = 4` (both); one more sweep is added as margin at `n >= 3` (two for float64,
/// whose last sweeps square a norm that is still far above its `eps`), and a rotation whose
/// off-diagonal element is already negligible costs nothing in accuracy. Beyond `n = 4` (not
/// used while `SMALL_MAX_N` is 4) the same measurement gave 5/5/6 (float32) and 6/7/8
/// (float64) at `n = 5/6/8`; the counts below add the same margin.
pub const fn jacobi_sweeps(n: usize, double: bool) -> usize {
    match (n, double) {
        (0 | 1, _) => 0,
        (2, _) => 1,
        (3, false) => 5,
        (3, true) => 6,
        (4, false) => 6,
        (4, true) => 7,
        (5 | 6, false) => 6,
        (5, true) => 8,
        (6, true) => 9,
        (_, false) => 7,
        (_, true) => 10,
    }
}

/// One Jacobi rotation in the `(p, q)` plane (GVL Algorithm 8.5.1): zeroes `s[p][q]` of the
/// symmetric `s` (both triangles kept) and, with `v`, accumulates `V = V J`.
fn rotate(
    b: &mut Builder,
    k: &Ctx,
    s: &mut [Vec<Expr>],
    v: Option<&mut Vec<Vec<Expr>>>,
    p: usize,
    q: usize,
) {
    let (app, aqq, apq) = (s[p][p].clone(), s[q][q].clone(), s[p][q].clone());
    let (one, zero) = (k.c(1.0), k.c(0.0));
    // theta = (aqq - app) / (2 apq); t = sign(theta) / (|theta| + sqrt(theta^2 + 1)) is the
    // smaller root of t^2 + 2 theta t - 1 = 0. An overflowing theta^2 gives t = 0 (the rotation
    // is negligible); apq == 0 gives theta = +-inf (t = 0) or NaN (0 / 0), caught by |t| <= 1.
    let theta = b.let_(div(
        sub(aqq.clone(), app.clone()),
        mul(k.c(2.0), apq.clone()),
    ));
    let sign = sel(
        bin(B::Ge, theta.clone(), zero.clone()),
        one.clone(),
        k.c(-1.0),
    );
    let root = un(U::Sqrt, add(mul(theta.clone(), theta.clone()), one.clone()));
    let t = b.let_(div(sign, add(un(U::Abs, theta), root)));
    let t = b.let_(sel(
        bin(B::Le, un(U::Abs, t.clone()), one.clone()),
        t,
        zero.clone(),
    ));
    let c = b.let_(div(
        one.clone(),
        un(U::Sqrt, add(mul(t.clone(), t.clone()), one)),
    ));
    let sn = b.let_(mul(t.clone(), c.clone()));
    s[p][p] = b.let_(sub(app, mul(t.clone(), apq.clone())));
    s[q][q] = b.let_(add(aqq, mul(t, apq)));
    s[p][q] = zero.clone();
    s[q][p] = zero;
    let n = s.len();
    for r in (0..n).filter(|&r| r != p && r != q) {
        let (srp, srq) = (s[r][p].clone(), s[r][q].clone());
        let nrp = b.let_(sub(
            mul(c.clone(), srp.clone()),
            mul(sn.clone(), srq.clone()),
        ));
        let nrq = b.let_(add(mul(sn.clone(), srp), mul(c.clone(), srq)));
        s[r][p] = nrp.clone();
        s[p][r] = nrp;
        s[r][q] = nrq.clone();
        s[q][r] = nrq;
    }
    if let Some(v) = v {
        for row in v.iter_mut() {
            let (vp, vq) = (row[p].clone(), row[q].clone());
            row[p] = b.let_(sub(mul(c.clone(), vp.clone()), mul(sn.clone(), vq.clone())));
            row[q] = b.let_(add(mul(sn.clone(), vp), mul(c.clone(), vq)));
        }
    }
}

/// `eigh` (raws `a, w, v`) or `eigvalsh` (raws `a, w`), reading the lower triangle or
/// (`upper`) the upper one.
pub(super) fn eigh(b: &mut Builder, k: &Ctx, a: Vec<Vec<Expr>>, upper: bool, vectors: bool) {
    let n = k.n;
    // A matrix holding NaN or inf anywhere gives NaN (the cpu backend's rule).
    let mut finite = Expr::constant(cupy_core::scalar::Scalar::Bool(true));
    for x in a.iter().flatten() {
        finite = b.let_(bin(B::And, finite, un(U::IsFinite, x.clone())));
    }
    let mut s: Vec<Vec<Expr>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let (lo, hi) = (i.min(j), i.max(j));
                    if upper {
                        a[lo][hi].clone()
                    } else {
                        a[hi][lo].clone()
                    }
                })
                .collect()
        })
        .collect();
    let mut v: Vec<Vec<Expr>> = (0..n)
        .map(|i| (0..n).map(|j| k.c((i == j) as u8 as f64)).collect())
        .collect();
    for _ in 0..jacobi_sweeps(n, k.t == DType::Float64) {
        for p in 0..n.saturating_sub(1) {
            for q in p + 1..n {
                rotate(b, k, &mut s, vectors.then_some(&mut v), p, q);
            }
        }
    }
    let mut w: Vec<Expr> = (0..n).map(|i| s[i][i].clone()).collect();
    // Ascending order: a bubble network of compare-exchanges carrying V's columns (`>`: NaN
    // stays in place).
    for pass in 0..n {
        for i in 0..n.saturating_sub(1 + pass) {
            let swap = b.let_(bin(B::Gt, w[i].clone(), w[i + 1].clone()));
            let (lo, hi) = (w[i].clone(), w[i + 1].clone());
            w[i] = b.let_(sel(swap.clone(), hi.clone(), lo.clone()));
            w[i + 1] = b.let_(sel(swap.clone(), lo, hi));
            if vectors {
                for row in v.iter_mut() {
                    let (x, y) = (row[i].clone(), row[i + 1].clone());
                    row[i] = b.let_(sel(swap.clone(), y.clone(), x.clone()));
                    row[i + 1] = b.let_(sel(swap.clone(), x, y));
                }
            }
        }
    }
    let nan = |e: Expr| sel(finite.clone(), e, k.c(f64::NAN));
    let wbase = b.let_(mul(Expr::index(), i64c(n as i64)));
    for (i, wi) in w.into_iter().enumerate() {
        b.push_stmt(Stmt::StoreRaw {
            raw: 1,
            index: add(wbase.clone(), i64c(i as i64)),
            value: nan(wi),
        });
    }
    if vectors {
        let v: Vec<Vec<Expr>> = v
            .into_iter()
            .map(|row| row.into_iter().map(nan).collect())
            .collect();
        k.store_matrix(b, 2, &v);
    }
}

//! LU with partial pivoting (`solve`, `inv`, `det`, `slogdet`) and Cholesky, unrolled over `n`.

use super::{bin, first_failure, i32c, i64c, sel, un, Ctx};
use crate::random::builder::{add, div, mul, sub, Builder};
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

/// The factors of one matrix, in locals.
struct Lu {
    /// `L` (unit diagonal, not stored) below the diagonal and `U` on and above, with the rows
    /// interchanged as LAPACK's `getrf` leaves them.
    m: Vec<Vec<Expr>>,
    /// `swaps[s][r - s - 1]`: step `s` interchanged rows `s` and `r > s` (`Bool` locals; at
    /// most one true per step).
    swaps: Vec<Vec<Expr>>,
    /// `1 / U[s][s]`.
    recip: Vec<Expr>,
    /// `U[s][s] == 0` (`Bool` locals).
    zero: Vec<Expr>,
    /// `i + 1` for the first zero pivot, else 0 (`Int32`).
    info: Expr,
    /// The interchanges' sign, `+-1` of the dtype.
    sign: Expr,
}

/// Gaussian elimination with partial pivoting of `a` (see the module docs of `small`).
fn factor(b: &mut Builder, k: &Ctx, a: Vec<Vec<Expr>>) -> Lu {
    let n = k.n;
    let mut m = a;
    let mut lu = Lu {
        m: vec![],
        swaps: vec![],
        recip: vec![],
        zero: vec![],
        info: i32c(0),
        sign: k.c(1.0),
    };
    for s in 0..n {
        // The first entry of largest magnitude (`>`: ties and NaNs keep the earlier row).
        let mut best = b.let_(un(U::Abs, m[s][s].clone()));
        let mut p = i32c(s as i32);
        for row in m.iter().skip(s + 1).enumerate() {
            let (off, row) = row;
            let ar = b.let_(un(U::Abs, row[s].clone()));
            let take = b.let_(bin(B::Gt, ar.clone(), best.clone()));
            best = b.let_(sel(take.clone(), ar, best));
            p = b.let_(sel(take, i32c((s + 1 + off) as i32), p));
        }
        let sw: Vec<Expr> = (s + 1..n)
            .map(|r| b.let_(bin(B::Eq, p.clone(), i32c(r as i32))))
            .collect();
        if !sw.is_empty() {
            for j in 0..n {
                let old = m[s][j].clone();
                let mut new = old.clone();
                for (q, r) in (s + 1..n).enumerate() {
                    new = sel(sw[q].clone(), m[r][j].clone(), new);
                    m[r][j] = b.let_(sel(sw[q].clone(), old.clone(), m[r][j].clone()));
                }
                m[s][j] = b.let_(new);
            }
            let swapped = b.let_(bin(B::Ne, p, i32c(s as i32)));
            lu.sign = b.let_(sel(swapped, un(U::Neg, lu.sign.clone()), lu.sign.clone()));
        }
        lu.swaps.push(sw);
        let piv = m[s][s].clone();
        let zero = b.let_(bin(B::Eq, piv.clone(), k.c(0.0)));
        lu.info = first_failure(b, lu.info.clone(), zero.clone(), s as i32 + 1);
        let rc = b.let_(div(k.c(1.0), piv));
        for r in s + 1..n {
            // A zero pivot leaves its column unscaled (LAPACK's getf2).
            let l = b.let_(sel(
                zero.clone(),
                m[r][s].clone(),
                mul(m[r][s].clone(), rc.clone()),
            ));
            m[r][s] = l.clone();
            for j in s + 1..n {
                m[r][j] = b.let_(sub(m[r][j].clone(), mul(l.clone(), m[s][j].clone())));
            }
        }
        lu.recip.push(rc);
        lu.zero.push(zero);
    }
    lu.m = m;
    lu
}

/// `x = U^-1 L^-1 P x` for one right-hand side `x` (locals).
fn substitute(b: &mut Builder, lu: &Lu, mut x: Vec<Expr>) -> Vec<Expr> {
    let n = x.len();
    for (s, sw) in lu.swaps.iter().enumerate() {
        for (q, r) in (s + 1..n).enumerate() {
            let (xs, xr) = (x[s].clone(), x[r].clone());
            x[s] = b.let_(sel(sw[q].clone(), xr.clone(), xs.clone()));
            x[r] = b.let_(sel(sw[q].clone(), xs, xr));
        }
    }
    for i in 1..n {
        let mut acc = x[i].clone();
        for j in 0..i {
            acc = sub(acc, mul(lu.m[i][j].clone(), x[j].clone()));
        }
        x[i] = b.let_(acc);
    }
    for i in (0..n).rev() {
        let mut acc = x[i].clone();
        for j in i + 1..n {
            acc = sub(acc, mul(lu.m[i][j].clone(), x[j].clone()));
        }
        x[i] = b.let_(mul(acc, lu.recip[i].clone()));
    }
    x
}

/// NaN where `failed`, else `v` (the cpu backend's output for a failed matrix).
fn nan_if(k: &Ctx, failed: &Expr, v: Expr) -> Expr {
    sel(failed.clone(), k.c(f64::NAN), v)
}

/// `solve`: raws `a, b [n, k], x [n, k], failure`; parameter 0 is `k`.
pub(super) fn solve(b: &mut Builder, k: &Ctx, a: Vec<Vec<Expr>>) {
    let lu = factor(b, k, a);
    let n = k.n;
    let failed = b.let_(bin(B::Ne, lu.info.clone(), i32c(0)));
    let nrhs = Expr::param(0, DType::Int64);
    let base = b.let_(mul(Expr::index(), mul(i64c(n as i64), nrhs.clone())));
    b.for_param(nrhs.clone(), |b, col| {
        let at: Vec<Expr> = (0..n)
            .map(|r| {
                b.let_(add(
                    base.clone(),
                    add(mul(i64c(r as i64), nrhs.clone()), col.clone()),
                ))
            })
            .collect();
        let x: Vec<Expr> = at
            .iter()
            .map(|i| b.let_(Expr::load(1, k.t, i.clone())))
            .collect();
        let x = substitute(b, &lu, x);
        for (i, v) in at.into_iter().zip(x) {
            b.push_stmt(cupy_core::kernel::ir::Stmt::StoreRaw {
                raw: 2,
                index: i,
                value: nan_if(k, &failed, v),
            });
        }
    });
    k.report(b, 3, lu.info);
}

/// `inv`: raws `a, inv, failure`; the identity's columns solved as right-hand sides.
pub(super) fn inv(b: &mut Builder, k: &Ctx, a: Vec<Vec<Expr>>) {
    let lu = factor(b, k, a);
    let n = k.n;
    let failed = b.let_(bin(B::Ne, lu.info.clone(), i32c(0)));
    let mut out = vec![vec![k.c(0.0); n]; n];
    for j in 0..n {
        let e: Vec<Expr> = (0..n)
            .map(|r| k.c(if r == j { 1.0 } else { 0.0 }))
            .collect();
        for (r, v) in substitute(b, &lu, e).into_iter().enumerate() {
            out[r][j] = nan_if(k, &failed, v);
        }
    }
    k.store_matrix(b, 1, &out);
    k.report(b, 2, lu.info);
}

/// `det` (raws `a, det`) or `slogdet` (raws `a, sign, logabsdet`).
pub(super) fn det(b: &mut Builder, k: &Ctx, a: Vec<Vec<Expr>>, slog: bool) {
    let lu = factor(b, k, a);
    let n = k.n;
    if !slog {
        let mut d = lu.sign.clone();
        for s in 0..n {
            d = b.let_(mul(d, lu.m[s][s].clone()));
        }
        k.store_scalar(b, 1, d);
        return;
    }
    let (mut sign, mut logabs, mut any_zero) = (
        lu.sign.clone(),
        k.c(0.0),
        Expr::constant(cupy_core::scalar::Scalar::Bool(false)),
    );
    for s in 0..n {
        let u = lu.m[s][s].clone();
        let au = b.let_(un(U::Abs, u.clone()));
        // The sign by selects, not `u / |u|`: a division through an approximate reciprocal
        // (NVIDIA's Vulkan driver) gave 0.99999994. NaN stays NaN.
        let flipped = sel(
            bin(B::Lt, u.clone(), k.c(0.0)),
            un(U::Neg, sign.clone()),
            sign,
        );
        sign = b.let_(sel(un(U::IsNan, u.clone()), u, flipped));
        logabs = b.let_(add(logabs, un(U::Log, au)));
        any_zero = b.let_(bin(B::Or, any_zero, lu.zero[s].clone()));
    }
    let sign = sel(any_zero.clone(), k.c(0.0), sign);
    let logabs = sel(any_zero, k.c(f64::NEG_INFINITY), logabs);
    k.store_scalar(b, 1, sign);
    k.store_scalar(b, 2, logabs);
}

/// `cholesky`: raws `a, factor, failure`. Reads the lower triangle, or the upper one (`upper`,
/// as `L^T` of its transpose) and writes `L` or `L^T` with zeros in the other triangle.
pub(super) fn cholesky(b: &mut Builder, k: &Ctx, a: Vec<Vec<Expr>>, upper: bool) {
    let n = k.n;
    let s = |i: usize, j: usize| {
        if upper {
            a[j][i].clone()
        } else {
            a[i][j].clone()
        }
    };
    let mut l = vec![vec![k.c(0.0); n]; n];
    let mut info = i32c(0);
    for j in 0..n {
        let mut d = s(j, j);
        for p in 0..j {
            d = sub(d, mul(l[j][p].clone(), l[j][p].clone()));
        }
        let d = b.let_(d);
        // Not positive, NaN included (LAPACK's potrf: `ajj <= 0 or isnan(ajj)`).
        let bad = b.let_(un(U::Not, bin(B::Gt, d.clone(), k.c(0.0))));
        info = first_failure(b, info, bad, j as i32 + 1);
        let ljj = b.let_(un(U::Sqrt, d));
        let r = b.let_(div(k.c(1.0), ljj.clone()));
        l[j][j] = ljj;
        for i in j + 1..n {
            let mut acc = s(i, j);
            for p in 0..j {
                acc = sub(acc, mul(l[i][p].clone(), l[j][p].clone()));
            }
            l[i][j] = b.let_(mul(acc, r.clone()));
        }
    }
    let failed = b.let_(bin(B::Ne, info.clone(), i32c(0)));
    let out: Vec<Vec<Expr>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let v = if upper {
                        l[j][i].clone()
                    } else {
                        l[i][j].clone()
                    };
                    nan_if(k, &failed, v)
                })
                .collect()
        })
        .collect();
    k.store_matrix(b, 1, &out);
    k.report(b, 2, info);
}

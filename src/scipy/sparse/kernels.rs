//! The IR kernels of the sparse formats: one declaration each, run by every backend (cpu through
//! the IR evaluator, wgpu through WGSL, cuda/hip through the C++ emitter).
//!
//! All are *row per invocation* over a compressed matrix (CSR rows, or CSC columns): invocation
//! `r` walks `ptr[r]..ptr[r+1]`. The IR's loops have uniform trip counts ([`Stmt::For`]), so the
//! walk is `for k in 0..max_len { j = ptr[r] + k; if j < ptr[r+1] { ... } }` with `max_len` the
//! longest row (a parameter; the matrix reads it back once and caches it). The cost is
//! `rows * max_len` steps: ideal for the banded and stencil matrices iterative solvers see,
//! wasteful when one row is much longer than the others (documented in docs/backends.md).
//!
//! - [`spmv`]: `y[r] = sum_j data[j] * x[indices[j]]` (output `y`, one element per row).
//! - [`spmm`]: `Y[r, c] = sum_j data[j] * X[indices[j], c]` (output `Y` row-major, one element
//!   per `(r, c)`), `X` row-major `[minor, k]`.
//! - [`todense`]: `out[r * ncols + indices[j]] += data[j]` into a zeroed raw `out`; each
//!   invocation owns its row of `out`, so duplicates sum without atomics.
//! - [`spgemm`]: row `r` of `C = A @ B` as the sorted union of the rows of `B` that `A`'s row
//!   picks, merged with one cursor per entry of `A`'s row (a symbolic pass counting, a numeric
//!   pass writing).
//! - [`segment`]: `sum`, `max` or `min` of `data[ptr[r]..ptr[r+1]]`; `max`/`min` count the
//!   implicit zeros of a row holding fewer than `minor` entries (SciPy's rule).

use crate::random::builder::{add, lt, mul, Builder};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Which kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Which {
    Spmv,
    Spmm,
    Todense,
    Segment(Seg),
    TriSolve,
    /// Row-wise SpGEMM ([`spgemm`]): the symbolic (`numeric: false`) or numeric pass for
    /// `slots` entries per row of `A` at most.
    Spgemm {
        numeric: bool,
        slots: usize,
    },
}

/// The reduction of [`segment`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    Sum,
    Max,
    Min,
}

/// A validated kernel and its dtypes.
pub(crate) type Cached = (Arc<Kernel>, Arc<Vec<DType>>);

/// The kernel `which` for values of `t` and indices of `it`, built and validated once.
pub(crate) fn cached(which: Which, t: DType, it: DType) -> Result<Cached> {
    type Cache = HashMap<(Which, DType, DType), Cached>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let lock = || {
        CACHE
            .get_or_init(|| Mutex::new(HashMap::new()))
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    };
    if let Some(k) = lock().get(&(which, t, it)) {
        return Ok(k.clone());
    }
    let k = match which {
        Which::Spmv => spmv(t, it),
        Which::Spmm => spmm(t, it),
        Which::Todense => todense(t, it),
        Which::Segment(s) => segment(s, t, it),
        Which::TriSolve => trisolve(t, it),
        Which::Spgemm { numeric, slots } => spgemm(numeric, slots, t, it),
    };
    k.validate()?;
    let entry = (Arc::new(k.clone()), Arc::new(k.dtypes()));
    lock().insert((which, t, it), entry.clone());
    Ok(entry)
}

fn i64c(v: i64) -> Expr {
    Expr::constant(Scalar::Int64(v))
}

fn zero(t: DType) -> Expr {
    Expr::constant(Scalar::zero(t))
}

/// `for k in 0..max_len { j = ptr[r] + k; if j < ptr[r+1] { body(j) } }` (`ptr` is raw 0 of
/// dtype `it`, `max_len` the Int64 parameter 0).
fn row_walk(b: &mut Builder, it: DType, r: Expr, body: impl Fn(&mut Builder, Expr)) -> Expr {
    let s = b.let_(Expr::load(0, it, r.clone()).cast(DType::Int64));
    let e = b.let_(Expr::load(0, it, add(r, i64c(1))).cast(DType::Int64));
    b.for_param(Expr::param(0, DType::Int64), |b, k| {
        let j = b.let_(add(s.clone(), k));
        b.if_(lt(j.clone(), e.clone()), |b| body(b, j));
    });
    Expr::binary(BinaryOp::Sub, e, s)
}

/// CSR SpMV: raws `indptr, indices (it), data, x (t)`, param `max_len`; output `y` (t) over
/// `[rows]`.
pub(crate) fn spmv(t: DType, it: DType) -> Kernel {
    let mut b = Builder::new();
    let acc = b.var(zero(t));
    row_walk(&mut b, it, Expr::index(), |b, j| {
        let c = Expr::load(1, it, j.clone()).cast(DType::Int64);
        let v = mul(Expr::load(2, t, j), Expr::load(3, t, c));
        b.assign(&acc, add(acc.clone(), v));
    });
    b.store(acc);
    b.finish(
        &format!("sparse_csr_spmv_{}_{}", t.name(), it.name()),
        t,
        vec![DType::Int64],
        vec![it, it, t, t],
    )
}

/// CSR SpMM: raws `indptr, indices (it), data, X (t, row-major [minor, k])`, params `max_len,
/// k`; output `Y` (t, row-major `[rows, k]`) over `[rows * k]`.
pub(crate) fn spmm(t: DType, it: DType) -> Kernel {
    let mut b = Builder::new();
    let kc = Expr::param(1, DType::Int64);
    let r = b.let_(Expr::binary(BinaryOp::Div, Expr::index(), kc.clone()));
    let c = b.let_(Expr::binary(
        BinaryOp::Sub,
        Expr::index(),
        mul(r.clone(), kc.clone()),
    ));
    let acc = b.var(zero(t));
    row_walk(&mut b, it, r, |b, j| {
        let col = Expr::load(1, it, j.clone()).cast(DType::Int64);
        let x = Expr::load(3, t, add(mul(col, kc.clone()), c.clone()));
        let v = mul(Expr::load(2, t, j), x);
        b.assign(&acc, add(acc.clone(), v));
    });
    b.store(acc);
    b.finish(
        &format!("sparse_csr_spmm_{}_{}", t.name(), it.name()),
        t,
        vec![DType::Int64, DType::Int64],
        vec![it, it, t, t],
    )
}

/// CSR to dense: raws `indptr, indices (it), data (t), out (t, zeroed, row-major [rows,
/// ncols])`, params `max_len, ncols`; iteration `[rows]`, no outputs.
pub(crate) fn todense(t: DType, it: DType) -> Kernel {
    let mut b = Builder::new();
    let base = b.let_(mul(Expr::index(), Expr::param(1, DType::Int64)));
    row_walk(&mut b, it, Expr::index(), |b, j| {
        let col = Expr::load(1, it, j.clone()).cast(DType::Int64);
        let at = b.let_(add(base.clone(), col));
        let v = add(Expr::load(3, t, at.clone()), Expr::load(2, t, j));
        b.push_stmt(Stmt::StoreRaw {
            raw: 3,
            index: at,
            value: v,
        });
    });
    b.finish_raw(
        &format!("sparse_csr_todense_{}_{}", t.name(), it.name()),
        vec![DType::Int64, DType::Int64],
        vec![it, it, t, t],
    )
}

/// A reduction of each compressed row's stored values: raws `ptr (it), data (t)`, params
/// `max_len, minor`; output (t) over `[rows]`. `Sum` adds the values (0 for an empty row);
/// `Max`/`Min` take NumPy's `maximum`/`minimum` (NaN propagates) of the values and, when the
/// row stores fewer than `minor` values, of an implicit 0.
pub(crate) fn segment(s: Seg, t: DType, it: DType) -> Kernel {
    let mut b = Builder::new();
    let (init, op) = match s {
        Seg::Sum => (zero(t), BinaryOp::Add),
        Seg::Max => (
            Expr::constant(Scalar::Float64(f64::NEG_INFINITY).cast(t)),
            BinaryOp::Max,
        ),
        Seg::Min => (
            Expr::constant(Scalar::Float64(f64::INFINITY).cast(t)),
            BinaryOp::Min,
        ),
    };
    let acc = b.var(init);
    let len = row_walk(&mut b, it, Expr::index(), |b, j| {
        let v = Expr::load(1, t, j);
        b.assign(&acc, Expr::binary(op, acc.clone(), v));
    });
    if s != Seg::Sum {
        let sparse_row = lt(len, Expr::param(1, DType::Int64));
        let with_zero = Expr::binary(op, acc.clone(), zero(t));
        b.assign(&acc, Expr::select(sparse_row, with_zero, acc.clone()));
    }
    b.store(acc);
    let name = match s {
        Seg::Sum => "sum",
        Seg::Max => "max",
        Seg::Min => "min",
    };
    b.finish(
        &format!("sparse_segment_{name}_{}_{}", t.name(), it.name()),
        t,
        vec![DType::Int64, DType::Int64],
        vec![it, t],
    )
}

/// Sparse triangular solve by substitution, one invocation per right-hand side (each walks
/// the rows in order, serially: exact, `rows * max_len` steps per column, no parallelism
/// within a column): raws `indptr, indices (it), data (t), x (t, row-major [n, k], b on entry,
/// the solution on exit)`, params `max_len, n, k, upper, unit` (0/1). Only the entries of the
/// chosen triangle take part; the diagonal (duplicates summed) divides unless `unit`.
pub(crate) fn trisolve(t: DType, it: DType) -> Kernel {
    let i64t = DType::Int64;
    let mut b = Builder::new();
    let n = Expr::param(1, i64t);
    let kc = Expr::param(2, i64t);
    let upper = b.let_(Expr::binary(BinaryOp::Eq, Expr::param(3, i64t), i64c(1)));
    let unit = b.let_(Expr::binary(BinaryOp::Eq, Expr::param(4, i64t), i64c(1)));
    let col = b.let_(Expr::index());
    b.for_param(n.clone(), |b, i| {
        let back = Expr::binary(
            BinaryOp::Sub,
            Expr::binary(BinaryOp::Sub, n.clone(), i64c(1)),
            i.clone(),
        );
        let r = b.let_(Expr::select(upper.clone(), back, i));
        let at = b.let_(add(mul(r.clone(), kc.clone()), col.clone()));
        let acc = b.var(Expr::load(3, t, at.clone()));
        let diag = b.var(zero(t));
        row_walk(b, it, r.clone(), |b, j| {
            let c = b.let_(Expr::load(1, it, j.clone()).cast(i64t));
            let v = b.let_(Expr::load(2, t, j));
            let on = Expr::binary(BinaryOp::Eq, c.clone(), r.clone());
            b.if_(on, |b| b.assign(&diag, add(diag.clone(), v.clone())));
            let inside = Expr::select(
                upper.clone(),
                Expr::binary(BinaryOp::Gt, c.clone(), r.clone()),
                lt(c.clone(), r.clone()),
            );
            b.if_(inside, |b| {
                let xc = Expr::load(3, t, add(mul(c.clone(), kc.clone()), col.clone()));
                b.assign(
                    &acc,
                    Expr::binary(BinaryOp::Sub, acc.clone(), mul(v.clone(), xc)),
                );
            });
        });
        let one = Expr::constant(Scalar::Float64(1.0).cast(t));
        let d = Expr::select(unit.clone(), one, diag.clone());
        b.push_stmt(Stmt::StoreRaw {
            raw: 3,
            index: at,
            value: Expr::binary(BinaryOp::Div, acc.clone(), d),
        });
    });
    b.finish_raw(
        &format!("sparse_csr_trisolve_{}_{}", t.name(), it.name()),
        vec![i64t; 5],
        vec![it, it, t, t],
    )
}

/// The most entries a row of `A` may hold for the row-wise SpGEMM ([`spgemm`]): each is a
/// cursor (four locals) and a term of every merge step. Longer rows take the ESC path.
pub(crate) const SPGEMM_SLOTS: usize = 32;

/// Row-wise SpGEMM `C = A @ B`, one invocation per row `r` of `A`; `B` must hold sorted column
/// indices without duplicates in every row (canonical), `A` need not. Entry `s` of `A`'s row
/// (column `j_s`, value `a_s`) opens a cursor on row `j_s` of `B`; each step takes the smallest
/// column `c` under the cursors, sums `a_s * B[j_s, c]` over the slots whose cursor shows `c`
/// (from 0, in slot order: the order the ESC path sums in), advances those cursors, and emits
/// `(c, sum)` unless the sum is exactly zero (the existing semantics: SciPy's csr_matmat drops
/// those too). No buffer: the only bound is `slots`; a row of `A` holding more entries is
/// left out (no entries, no steps), for the caller to compute otherwise. The work per row is
/// `steps * slots`.
///
/// Raws `A.indptr, A.indices (it), A.data (t), B.indptr, B.indices (it), B.data (t)`; params
/// `steps` (the uniform loop bound: at least the distinct columns of any row of `C`) and
/// `ncols` (B's columns, the end sentinel).
/// - symbolic (`numeric: false`): two Int64 outputs over `[rows]`, the entries kept and the
///   steps taken (the distinct columns of the row);
/// - numeric: three more raws `C.indptr (Int64), C.indices (it), C.data (t)`; row `r` is
///   written from `C.indptr[r]` on; no outputs.
pub(crate) fn spgemm(numeric: bool, slots: usize, t: DType, it: DType) -> Kernel {
    let i64t = DType::Int64;
    let mut b = Builder::new();
    let r = Expr::index();
    let sa = b.let_(Expr::load(0, it, r.clone()).cast(i64t));
    let ea = Expr::load(0, it, add(r.clone(), i64c(1))).cast(i64t);
    let len = b.let_(Expr::binary(BinaryOp::Sub, ea, sa.clone()));
    // A row longer than the slots is left out (no entries, no steps): the caller computes it
    // another way.
    let active = b.let_(Expr::binary(BinaryOp::Le, len.clone(), i64c(slots as i64)));
    let sent = Expr::param(1, i64t);
    // Per slot: the cursor, its row's end, A's value and the column under the cursor (the
    // sentinel once the row is done): each B entry is read once.
    let (mut cur, mut end, mut av, mut col) = (vec![], vec![], vec![], vec![]);
    for s in 0..slots {
        let c = b.var(i64c(0));
        let e = b.var(i64c(0));
        let a = b.var(zero(t));
        let cs = b.var(sent.clone());
        let used = Expr::binary(
            BinaryOp::And,
            lt(i64c(s as i64), len.clone()),
            active.clone(),
        );
        b.if_(used, |b| {
            let at = b.let_(add(sa.clone(), i64c(s as i64)));
            let j = b.let_(Expr::load(1, it, at.clone()).cast(i64t));
            b.assign(&c, Expr::load(3, it, j.clone()).cast(i64t));
            b.assign(&e, Expr::load(3, it, add(j, i64c(1))).cast(i64t));
            b.assign(&a, Expr::load(2, t, at));
            b.if_(lt(c.clone(), e.clone()), |b| {
                b.assign(&cs, Expr::load(4, it, c.clone()).cast(i64t));
            });
        });
        cur.push(c);
        end.push(e);
        av.push(a);
        col.push(cs);
    }
    let kept = b.var(i64c(0));
    let steps = b.var(i64c(0));
    let pos = if numeric {
        b.var(Expr::load(6, i64t, r))
    } else {
        i64c(0)
    };
    b.for_param(Expr::param(0, i64t), |b, _| {
        let mut mn = col[0].clone();
        for c in &col[1..] {
            mn = Expr::binary(BinaryOp::Min, mn, c.clone());
        }
        let mn = b.let_(mn);
        b.if_(lt(mn.clone(), sent.clone()), |b| {
            let acc = b.var(zero(t));
            for s in 0..slots {
                let hit = Expr::binary(BinaryOp::Eq, col[s].clone(), mn.clone());
                b.if_(hit, |b| {
                    let v = mul(av[s].clone(), Expr::load(5, t, cur[s].clone()));
                    b.assign(&acc, add(acc.clone(), v));
                    b.assign(&cur[s], add(cur[s].clone(), i64c(1)));
                    b.assign(&col[s], sent.clone());
                    b.if_(lt(cur[s].clone(), end[s].clone()), |b| {
                        b.assign(&col[s], Expr::load(4, it, cur[s].clone()).cast(i64t));
                    });
                });
            }
            b.assign(&steps, add(steps.clone(), i64c(1)));
            let nonzero = Expr::binary(BinaryOp::Ne, acc.clone(), zero(t));
            b.if_(nonzero, |b| {
                if numeric {
                    b.push_stmt(Stmt::StoreRaw {
                        raw: 7,
                        index: pos.clone(),
                        value: mn.clone().cast(it),
                    });
                    b.push_stmt(Stmt::StoreRaw {
                        raw: 8,
                        index: pos.clone(),
                        value: acc.clone(),
                    });
                    b.assign(&pos, add(pos.clone(), i64c(1)));
                } else {
                    b.assign(&kept, add(kept.clone(), i64c(1)));
                }
            });
        });
    });
    let name = format!(
        "sparse_csr_spgemm_{}_{slots}_{}_{}",
        if numeric { "numeric" } else { "symbolic" },
        t.name(),
        it.name()
    );
    let params = vec![i64t, i64t];
    let mut raws = vec![it, it, t, it, it, t];
    if numeric {
        raws.extend([i64t, it, t]);
        b.finish_raw(&name, params, raws)
    } else {
        b.push_stmt(Stmt::Store {
            output: 1,
            value: steps,
        });
        b.store(kept);
        let mut k = b.finish(&name, i64t, params, raws);
        k.outputs.push(i64t);
        k
    }
}

/// Every kernel of the module for each value and index dtype (emitter tests: naga, hipRTC).
pub fn sparse_kernels() -> Vec<Kernel> {
    let mut v = vec![];
    for t in [
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        for it in [DType::Int32, DType::Int64] {
            v.push(spmv(t, it));
            v.push(spmm(t, it));
            v.push(todense(t, it));
            v.push(trisolve(t, it));
            for numeric in [false, true] {
                for slots in [2, SPGEMM_SLOTS] {
                    v.push(spgemm(numeric, slots, t, it));
                }
            }
            if !t.is_complex() {
                for s in [Seg::Sum, Seg::Max, Seg::Min] {
                    v.push(segment(s, t, it));
                }
            } else {
                v.push(segment(Seg::Sum, t, it));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kernel_validates() {
        for k in super::sparse_kernels() {
            k.validate().unwrap_or_else(|e| panic!("{}: {e}", k.name));
        }
    }
}

//! Reductions (`ReductionCall`): CuPy's `ReductionKernel` model on blocks.
//!
//! Two strategies:
//! - **inner** (the reduced elements of one output are read together): per output, the reduce
//!   range is mapped block by block and each block is folded pairwise (NumPy's pairwise sum for
//!   native combines, a halving tree for any other combine); block partials are folded pairwise
//!   again. A single output (full reduction) splits its blocks across threads.
//! - **outer** (outputs are the fast axis, e.g. `sum(axis=0)`): a block of outputs is the vector;
//!   the reduce range is walked one row at a time, combining in place (as NumPy adds row by
//!   row). Blocks of outputs go to different threads.

use crate::column::{self as col, Col, C32, C64, D};
use crate::eval::Env;
use crate::mem::{self, check_layout, View};
use crate::{CpuBackend, BLOCK, PAR_MIN};
use cupy_core::backend::{Operand, ReductionCall};
use cupy_core::kernel::ir::{BinaryOp, Expr, ExprKind};
use cupy_core::layout::merge_axes;
use cupy_core::{DType, Error, Layout, Result};
use num_traits::Float;
use rayon::prelude::*;
use std::borrow::Cow;

/// Elements per block of a reduction.
const RBLOCK: usize = 16384;

/// A combine of accumulator `j` of `n` that is one native binary op of `Var(j)` and
/// `Var(n + j)`.
fn native_op(combine: &Expr, acc: DType, j: usize, n: usize) -> Option<BinaryOp> {
    if matches!(acc, DType::Float16 | DType::BFloat16) {
        return None;
    }
    if let ExprKind::Binary(op, a, b) = &combine.kind {
        let vars = matches!(
            (&a.kind, &b.kind),
            (ExprKind::Var(x), ExprKind::Var(y)) if (*x, *y) == (j, n + j) || (*x, *y) == (n + j, j)
        );
        let ok = match op {
            BinaryOp::Add | BinaryOp::Mul => true,
            BinaryOp::Max | BinaryOp::Min | BinaryOp::FMax | BinaryOp::FMin => !acc.is_complex(),
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => acc.is_integer() || acc.is_bool(),
            _ => false,
        };
        if vars && ok && a.ty == acc && b.ty == acc {
            return Some(*op);
        }
    }
    None
}

/// NumPy's pairwise fold (8 accumulators, 128-element leaves).
fn pairwise<T: Copy>(a: &[T], f: &impl Fn(T, T) -> T) -> T {
    let n = a.len();
    if n < 8 {
        let mut r = a[0];
        for &x in &a[1..] {
            r = f(r, x);
        }
        r
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i + 8 <= n {
            let c = &a[i..i + 8];
            for j in 0..8 {
                r[j] = f(r[j], c[j]);
            }
            i += 8;
        }
        let mut res = f(
            f(f(r[0], r[1]), f(r[2], r[3])),
            f(f(r[4], r[5]), f(r[6], r[7])),
        );
        while i < n {
            res = f(res, a[i]);
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        f(pairwise(&a[..n2], f), pairwise(&a[n2..], f))
    }
}

fn fold_float<T: Float + Copy>(op: BinaryOp, v: &[T]) -> T {
    match op {
        BinaryOp::Add => pairwise(v, &|a, b| a + b),
        BinaryOp::Mul => pairwise(v, &|a, b| a * b),
        BinaryOp::Max => pairwise(v, &col::np_max),
        BinaryOp::Min => pairwise(v, &col::np_min),
        BinaryOp::FMax => pairwise(v, &col::np_fmax),
        _ => pairwise(v, &col::np_fmin),
    }
}

fn fold_int<T: col::IntOps>(op: BinaryOp, v: &[T]) -> T {
    let f: fn(T, T) -> T = match op {
        BinaryOp::Add => T::w_add,
        BinaryOp::Mul => T::w_mul,
        BinaryOp::Max | BinaryOp::FMax => |a, b| a.max(b),
        BinaryOp::Min | BinaryOp::FMin => |a, b| a.min(b),
        BinaryOp::And => T::and,
        BinaryOp::Or => T::or,
        _ => T::xor,
    };
    pairwise(v, &f)
}

fn fold_bool(op: BinaryOp, v: &[u8]) -> u8 {
    match op {
        BinaryOp::Add | BinaryOp::Or | BinaryOp::Max | BinaryOp::FMax => {
            v.iter().any(|&x| x != 0) as u8
        }
        BinaryOp::Xor => v.iter().fold(0, |a, &x| a ^ x),
        _ => v.iter().all(|&x| x != 0) as u8,
    }
}

fn fold_complex<T: Float>(op: BinaryOp, v: &[num_complex::Complex<T>]) -> num_complex::Complex<T> {
    match op {
        BinaryOp::Add => pairwise(v, &|a, b| a + b),
        _ => pairwise(v, &|a, b| crate::cmath::mul(a, b)),
    }
}

/// Folds a vector column to one uniform value with a native op.
fn fold_native(op: BinaryOp, c: &Col<'_>) -> Col<'static> {
    macro_rules! v {
        ($d:expr) => {
            match $d {
                D::U(x) => return_uniform(*x),
                D::V(v) => &v[..],
            }
        };
    }
    fn return_uniform<T>(_: T) -> ! {
        unreachable!("fold of a uniform column")
    }
    match c {
        Col::B(d) => Col::B(D::U(fold_bool(op, v!(d)))),
        Col::I8(d) => Col::I8(D::U(fold_int(op, v!(d)))),
        Col::I16(d) => Col::I16(D::U(fold_int(op, v!(d)))),
        Col::I32(d) => Col::I32(D::U(fold_int(op, v!(d)))),
        Col::I64(d) => Col::I64(D::U(fold_int(op, v!(d)))),
        Col::U8(d) => Col::U8(D::U(fold_int(op, v!(d)))),
        Col::U16(d) => Col::U16(D::U(fold_int(op, v!(d)))),
        Col::U32(d) => Col::U32(D::U(fold_int(op, v!(d)))),
        Col::U64(d) => Col::U64(D::U(fold_int(op, v!(d)))),
        Col::F32(d) => Col::F32(D::U(fold_float(op, v!(d)))),
        Col::F64(d) => Col::F64(D::U(fold_float(op, v!(d)))),
        Col::C32(d) => Col::C32(D::U(fold_complex::<f32>(op, v!(d)))),
        Col::C64(d) => Col::C64(D::U(fold_complex::<f64>(op, v!(d)))),
    }
}

/// `acc = combine(acc, x)` in place for native ops (acc is an owned vector column).
fn combine_inplace(op: BinaryOp, acc: &mut Col<'static>, x: &Col<'_>) -> bool {
    fn go<T: Copy + 'static>(a: &mut D<'static, T>, x: &D<'_, T>, f: impl Fn(T, T) -> T) {
        let D::V(a) = a else { unreachable!() };
        let a = a.to_mut();
        match x {
            D::U(x) => a.iter_mut().for_each(|v| *v = f(*v, *x)),
            D::V(x) => a.iter_mut().zip(x.iter()).for_each(|(v, &x)| *v = f(*v, x)),
        }
    }
    macro_rules! int {
        ($a:expr, $x:expr, $t:ty) => {{
            let f: fn($t, $t) -> $t = match op {
                BinaryOp::Add => <$t>::wrapping_add,
                BinaryOp::Mul => <$t>::wrapping_mul,
                BinaryOp::Max | BinaryOp::FMax => |a, b| a.max(b),
                BinaryOp::Min | BinaryOp::FMin => |a, b| a.min(b),
                BinaryOp::And => |a, b| a & b,
                BinaryOp::Or => |a, b| a | b,
                _ => |a, b| a ^ b,
            };
            go($a, $x, f)
        }};
    }
    macro_rules! flt {
        ($a:expr, $x:expr, $t:ty) => {{
            match op {
                BinaryOp::Add => go($a, $x, |a: $t, b| a + b),
                BinaryOp::Mul => go($a, $x, |a: $t, b| a * b),
                BinaryOp::Max => go($a, $x, col::np_max::<$t>),
                BinaryOp::Min => go($a, $x, col::np_min::<$t>),
                BinaryOp::FMax => go($a, $x, col::np_fmax::<$t>),
                _ => go($a, $x, col::np_fmin::<$t>),
            }
        }};
    }
    match (acc, x) {
        (Col::I8(a), Col::I8(x)) => int!(a, x, i8),
        (Col::I16(a), Col::I16(x)) => int!(a, x, i16),
        (Col::I32(a), Col::I32(x)) => int!(a, x, i32),
        (Col::I64(a), Col::I64(x)) => int!(a, x, i64),
        (Col::U8(a), Col::U8(x)) => int!(a, x, u8),
        (Col::U16(a), Col::U16(x)) => int!(a, x, u16),
        (Col::U32(a), Col::U32(x)) => int!(a, x, u32),
        (Col::U64(a), Col::U64(x)) => int!(a, x, u64),
        (Col::F32(a), Col::F32(x)) => flt!(a, x, f32),
        (Col::F64(a), Col::F64(x)) => flt!(a, x, f64),
        (Col::C32(a), Col::C32(x)) => match op {
            BinaryOp::Add => go(a, x, |a: C32, b| a + b),
            _ => go(a, x, crate::cmath::mul::<f32>),
        },
        (Col::C64(a), Col::C64(x)) => match op {
            BinaryOp::Add => go(a, x, |a: C64, b| a + b),
            _ => go(a, x, crate::cmath::mul::<f64>),
        },
        _ => return false,
    }
    true
}

/// A tuple of accumulator columns (one per accumulator of the kernel).
type Tuple = Vec<Col<'static>>;

/// A column as an owned vector column of `n` lanes.
fn lanes(c: Col<'_>, n: usize) -> Col<'static> {
    if c.is_uniform() {
        c.expand(n)
    } else {
        c.owned()
    }
}

/// What every block needs.
struct Ctx<'a> {
    k: &'a cupy_core::kernel::ir::ReduceKernel,
    /// `k.combine` with its shared subtrees hoisted into locals `2n..`.
    combine: crate::cse::Hoisted,
    params: &'a [Col<'static>],
    /// Per accumulator, its combine as a native op when no other accumulator's combine reads
    /// it: such an accumulator is folded on its own, as a plain reduction of it would be (so a
    /// merged kernel's sum is NumPy's pairwise sum, as the sum's own kernel's).
    native: Vec<Option<BinaryOp>>,
    no_vars: [DType; 0],
}

impl Ctx<'_> {
    /// An environment of `n` lanes whose `Index` (the reduced index) of lane `j` is
    /// `index.0 + j * index.1`.
    fn env<'e>(&'e self, n: usize, inputs: Vec<Col<'e>>, index: (i64, i64)) -> Env<'e> {
        Env {
            n,
            inputs,
            params: self.params,
            vars: vec![],
            var_types: &self.no_vars,
            index,
            index_lanes: None,
            var_use: None,
            raws: &[],
            dry: false,
        }
    }

    /// The mapped tuple of the lanes of `env`.
    fn map<'s>(&self, env: &'s Env<'_>) -> std::result::Result<Vec<Col<'s>>, String> {
        self.k.map.iter().map(|e| env.eval(e)).collect()
    }

    /// `combine(a, b)` lane by lane (`a` and `b` are tuples of `n` lanes, or uniform).
    fn combine(
        &self,
        a: &[Col<'_>],
        b: &[Col<'_>],
        n: usize,
    ) -> std::result::Result<Tuple, String> {
        let mut env = self.env(n, vec![], (0, 1));
        env.vars = a.iter().chain(b).map(|c| Some(c.view())).collect();
        for l in &self.combine.lets {
            let c = env.eval(l)?.owned();
            env.vars.push(Some(c));
        }
        self.combine
            .outs
            .iter()
            .map(|e| Ok(env.eval(e)?.owned()))
            .collect()
    }

    /// Folds a tuple of `n` lanes to one uniform tuple.
    fn fold(&self, c: Vec<Col<'_>>, n: usize) -> std::result::Result<Tuple, String> {
        if n == 1 {
            return Ok(c.iter().map(|c| c.slice(0, 1).owned().uniform0()).collect());
        }
        let native = |op: BinaryOp, c: &Col<'_>| {
            if c.is_uniform() {
                fold_native(op, &c.expand(n))
            } else {
                fold_native(op, c)
            }
        };
        if self.native.iter().all(|o| o.is_some()) {
            return Ok(self
                .native
                .iter()
                .zip(&c)
                .map(|(op, c)| native(op.expect("native"), c))
                .collect());
        }
        // The native accumulators on their own; the rest (the whole tuple, whose other members
        // do not read the native ones) by a halving tree with the interpreted combine.
        let own: Vec<Option<Col<'static>>> = self
            .native
            .iter()
            .zip(&c)
            .map(|(op, c)| op.map(|op| native(op, c)))
            .collect();
        let mut c: Tuple = c.into_iter().map(|c| lanes(c, n)).collect();
        let mut len = n;
        while len > 1 {
            let h = len / 2;
            let lo: Vec<Col<'_>> = c.iter().map(|x| x.slice(0, h)).collect();
            let hi: Vec<Col<'_>> = c.iter().map(|x| x.slice(h, 2 * h)).collect();
            let r = self.combine(&lo, &hi, h)?.into_iter().map(|r| lanes(r, h));
            c = if len % 2 == 1 {
                r.zip(&c)
                    .map(|(r, x)| col::concat(&[r, x.slice(len - 1, len)], &[h, 1]))
                    .collect()
            } else {
                r.collect()
            };
            len = h + len % 2;
        }
        Ok(c.iter()
            .zip(own)
            .map(|(c, own)| own.unwrap_or_else(|| c.uniform0()))
            .collect())
    }

    /// Folds `parts` (uniform tuples, in order) to one uniform tuple.
    fn fold_parts(&self, parts: Vec<Tuple>) -> std::result::Result<Tuple, String> {
        let n = parts.len();
        if n == 1 {
            return Ok(parts.into_iter().next().expect("one part"));
        }
        let cols = (0..self.k.acc.len())
            .map(|j| {
                let c: Vec<Col<'_>> = parts.iter().map(|p| p[j].view()).collect();
                col::concat(&c, &vec![1; n])
            })
            .collect();
        self.fold(cols, n)
    }

    /// Output `j` of the tuples `acc` (`n` lanes).
    fn post(
        &self,
        j: usize,
        acc: &[Col<'_>],
        n: usize,
    ) -> std::result::Result<Col<'static>, String> {
        let mut env = self.env(n, vec![], (0, 1));
        env.vars = acc.iter().map(|c| Some(c.view())).collect();
        Ok(env.eval(self.k.post_of(j))?.owned())
    }
}

impl Col<'_> {
    /// Lane 0 as a uniform column.
    fn uniform0(&self) -> Col<'static> {
        col::map_col!(self, d => D::U(d.get(0)))
    }
}

fn split(l: &Layout, no: usize) -> (Layout, Layout) {
    (
        Layout {
            shape: l.shape[..no].to_vec(),
            strides: l.strides[..no].to_vec(),
            offset: l.offset,
        },
        Layout {
            shape: l.shape[no..].to_vec(),
            strides: l.strides[no..].to_vec(),
            offset: 0,
        },
    )
}

/// Element offset (relative to the layout's offset) of flat index `i`.
fn rel_offset(l: &Layout, mut i: usize) -> isize {
    let mut off = 0isize;
    for d in (0..l.shape.len()).rev() {
        let dim = l.shape[d].max(1);
        off += (i % dim) as isize * l.strides[d];
        i /= dim;
    }
    off
}

pub(crate) fn reduce(be: &CpuBackend, call: &ReductionCall<'_>) -> Result<()> {
    let k = call.kernel;
    let op = k.name.as_str();
    for d in k.dtypes() {
        if let Err(r) = cupy_core::Backend::supports_dtype(be, d) {
            return Err(cupy_core::backend::dtype_unsupported(
                op,
                d,
                cupy_core::Backend::info(be),
                r,
            ));
        }
    }
    k.validate()?;
    let no = call.out_shape.len();
    let full: Vec<usize> = call
        .out_shape
        .iter()
        .chain(&call.reduce_shape)
        .copied()
        .collect();
    let prod = |s: &[usize]| s.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let (Some(n_out), Some(n_red), Some(_)) =
        (prod(&call.out_shape), prod(&call.reduce_shape), prod(&full))
    else {
        return Err(Error::invalid(op, "shape overflows"));
    };
    let inputs: Vec<&Operand<'_>> = call.inputs.iter().collect();
    let (mut ins, _, _) = be.views(op, &full, &inputs, &k.inputs, &[], &[])?;
    call.check_outputs()?;
    let n_outs = k.n_outputs();
    let mut obs = Vec::with_capacity(n_outs);
    let mut par_ok = true;
    for j in 0..n_outs {
        let o = call.output_of(j);
        let ob = be.buf(op, "output", o.buffer, Some(k.output_of(j)))?;
        check_layout(op, "output", &o.layout, &call.out_shape, ob.len_elems())?;
        par_ok &= mem::non_overlapping(&o.layout);
        for v in ins.iter_mut() {
            if v.ptr == ob.ptr() && ob.bytes() > 0 {
                v.borrow_ok = false;
                par_ok = false;
            }
        }
        obs.push(ob);
    }
    let params = be.params(op, &k.params, &call.params)?;
    let ctx = Ctx {
        k,
        combine: crate::cse::hoist(&k.combine, 2 * k.acc.len()),
        params: &params,
        native: {
            let n = k.acc.len();
            let read_by_others = |j: usize| {
                let mut read = false;
                for (_, e) in k.combine.iter().enumerate().filter(|(i, _)| *i != j) {
                    e.visit(&mut |x| {
                        read |= matches!(x.kind, ExprKind::Var(v) if v == j || v == n + j)
                    });
                }
                read
            };
            (0..n)
                .map(|j| native_op(&k.combine[j], k.acc[j], j, n).filter(|_| !read_by_others(j)))
                .collect()
        },
        no_vars: [],
    };
    // Type-check map, combine and post before touching memory.
    {
        let unsup = |m: String| be.unsupported(op, m);
        let mut env = ctx.env(
            1,
            k.inputs.iter().map(|d| col::zero_col(*d)).collect(),
            (0, 1),
        );
        env.dry = true;
        ctx.map(&env).map_err(unsup)?;
        let z: Tuple = k.identity.iter().map(|s| col::scalar_col(*s)).collect();
        ctx.combine(&z, &z, 1).map_err(unsup)?;
        for j in 0..n_outs {
            ctx.post(j, &z, 1).map_err(unsup)?;
        }
    }
    if n_out == 0 {
        return Ok(());
    }
    let err = |m: String| be.err(op, m);

    // Simplify both halves of the index space.
    let (outs_l, reds_l): (Vec<Layout>, Vec<Layout>) =
        ins.iter().map(|v| split(&v.layout, no)).unzip();
    let mut out_all = outs_l.clone();
    out_all.extend((0..n_outs).map(|j| call.output_of(j).layout.clone()));
    let (oshape, mut out_all) = merge_axes(&call.out_shape, &out_all);
    let out_layouts = out_all.split_off(out_all.len() - n_outs);
    let (rshape, reds) = merge_axes(&call.reduce_shape, &reds_l);
    let out_views: Vec<View> = obs
        .into_iter()
        .zip(out_layouts)
        .map(|(ob, l)| View::new(ob, l, false))
        .collect();
    let threads = rayon::current_num_threads().max(1);

    let store = |o0: usize, n: usize, acc: &[Col<'_>]| -> Result<()> {
        for (j, out_view) in out_views.iter().enumerate() {
            let v = ctx.post(j, acc, n).map_err(err)?;
            // SAFETY: output layout checked; each output block is written by one thread.
            unsafe { out_view.scatter(o0, n, &v, None) }.map_err(err)?;
        }
        Ok(())
    };

    if n_red == 0 {
        let id: Tuple = k.identity.iter().map(|s| col::scalar_col(*s)).collect();
        let nb = n_out.div_ceil(BLOCK);
        return (0..nb).try_for_each(|b| {
            let o0 = b * BLOCK;
            store(o0, BLOCK.min(n_out - o0), &id)
        });
    }

    // Views over the reduce space (offset moved per output) and the output space (per row).
    let red_views: Vec<View> = ins
        .iter()
        .zip(&reds)
        .map(|(v, r)| View {
            layout: Layout {
                offset: v.layout.offset,
                ..r.clone()
            },
            contig: r.is_c_contiguous(),
            uniform: r
                .strides
                .iter()
                .zip(&r.shape)
                .all(|(&s, &d)| s == 0 || d == 1),
            ..v.clone()
        })
        .collect();
    let in_out_views: Vec<View> = ins
        .iter()
        .zip(&out_all)
        .map(|(v, o)| View {
            layout: o.clone(),
            contig: o.is_c_contiguous(),
            uniform: o
                .strides
                .iter()
                .zip(&o.shape)
                .all(|(&s, &d)| s == 0 || d == 1),
            ..v.clone()
        })
        .collect();

    let abs_last = |l: &Layout| l.strides.last().map_or(1, |s| s.unsigned_abs());
    let (red_inner, out_inner) = match (reds.first(), out_all.first()) {
        (Some(r), Some(o)) => (abs_last(r), abs_last(o)),
        _ => (1, usize::MAX),
    };
    let inner =
        n_red > 1 && (n_out == 1 || (n_red >= 32 && (n_out < 32 || red_inner <= out_inner)));

    if inner {
        // Per output: fold the reduce range block by block.
        let nblk = n_red.div_ceil(RBLOCK);
        let one = |o: usize, par: bool| -> std::result::Result<Tuple, String> {
            let deltas: Vec<isize> = out_all.iter().map(|l| rel_offset(l, o)).collect();
            let blk = |b: usize| -> std::result::Result<Tuple, String> {
                let r0 = b * RBLOCK;
                let n = RBLOCK.min(n_red - r0);
                let cols = red_views
                    .iter()
                    .zip(&deltas)
                    // SAFETY: the shifted layout addresses elements of the checked full layout.
                    .map(|(v, &d)| unsafe { v.gather_at(d, r0, n) })
                    .collect();
                let env = ctx.env(n, cols, (r0 as i64, 1));
                let m = ctx.map(&env)?;
                ctx.fold(m, n)
            };
            let parts: Vec<Tuple> = if par && nblk > 1 {
                (0..nblk)
                    .into_par_iter()
                    .map(blk)
                    .collect::<std::result::Result<_, _>>()?
            } else {
                (0..nblk).map(blk).collect::<std::result::Result<_, _>>()?
            };
            ctx.fold_parts(parts)
        };
        let group = |o0: usize, g: usize, par: bool| -> Result<()> {
            let accs: Vec<Tuple> = (o0..o0 + g)
                .map(|o| one(o, par))
                .collect::<std::result::Result<_, _>>()
                .map_err(err)?;
            let acc: Tuple = (0..k.acc.len())
                .map(|j| {
                    let c: Vec<Col<'_>> = accs.iter().map(|t| t[j].view()).collect();
                    col::concat(&c, &vec![1; g])
                })
                .collect();
            store(o0, g, &acc)
        };
        let total = n_out.saturating_mul(n_red);
        if par_ok && n_out >= 2 * threads && total >= PAR_MIN {
            let g = (n_out / (threads * 8)).clamp(1, 256);
            let ng = n_out.div_ceil(g);
            (0..ng).into_par_iter().try_for_each(|i| {
                let o0 = i * g;
                group(o0, g.min(n_out - o0), false)
            })
        } else {
            let g = 256;
            let par = n_red >= PAR_MIN;
            (0..n_out.div_ceil(g)).try_for_each(|i| {
                let o0 = i * g;
                group(o0, g.min(n_out - o0), par)
            })
        }
    } else {
        // Outputs are the vector; walk the reduce range row by row.
        let row_offsets: Vec<Vec<isize>> = reds
            .iter()
            .map(|r| {
                let mut v = Vec::with_capacity(n_red);
                mem::runs_at(r, 0, 0, n_red, |off, stride, len| {
                    v.extend((0..len as isize).map(|i| off + i * stride))
                });
                v
            })
            .collect();
        let w_block = |o0: usize, w: usize| -> Result<()> {
            let mut acc: Option<Tuple> = None;
            for r in 0..n_red {
                let cols = in_out_views
                    .iter()
                    .zip(&row_offsets)
                    // SAFETY: shifted layouts address elements of the checked full layout.
                    .map(|(v, offs)| unsafe { v.gather_at(offs[r], o0, w) })
                    .collect();
                let env = ctx.env(w, cols, (r as i64, 0));
                let m = ctx.map(&env).map_err(err)?;
                acc = Some(match acc.take() {
                    None => m.into_iter().map(|m| lanes(m, w)).collect(),
                    Some(mut a) => {
                        // In place for every accumulator or none (bool has no in-place op).
                        let native =
                            ctx.native.iter().all(|o| o.is_some())
                                && k.acc.iter().all(|d| *d != DType::Bool)
                                && ctx.native.iter().zip(a.iter_mut()).zip(&m).fold(
                                    true,
                                    |ok, ((op, a), m)| {
                                        combine_inplace(op.expect("native"), a, m) && ok
                                    },
                                );
                        if native {
                            a
                        } else {
                            let c = ctx.combine(&a, &m, w).map_err(err)?;
                            c.into_iter().map(|c| lanes(c, w)).collect()
                        }
                    }
                });
            }
            store(o0, w, &acc.expect("n_red >= 1"))
        };
        let total = n_out.saturating_mul(n_red);
        let _ = &oshape;
        let _ = &rshape;
        if par_ok && total >= PAR_MIN && n_out >= 128 {
            let w = (n_out / (threads * 2)).clamp(256, BLOCK);
            (0..n_out.div_ceil(w)).into_par_iter().try_for_each(|i| {
                let o0 = i * w;
                w_block(o0, w.min(n_out - o0))
            })
        } else {
            (0..n_out.div_ceil(BLOCK)).try_for_each(|i| {
                let o0 = i * BLOCK;
                w_block(o0, BLOCK.min(n_out - o0))
            })
        }
    }
}

#[allow(dead_code)]
fn _unused(_: Cow<'_, [u8]>) {}

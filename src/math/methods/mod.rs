//! The methods of the binary ufuncs, as NumPy's: [`Ufunc::reduce`], [`Ufunc::accumulate`],
//! [`Ufunc::reduceat`], [`Ufunc::outer`] and [`Ufunc::at`] (`cupy::ufuncs::add.reduce(&a)` is
//! `numpy.add.reduce(a)`). Every method is built from the ufunc's own declaration (its body is
//! the combine), so each binary ufunc has them all.
//!
//! ```no_run
//! use cupy as cp;
//! use cp::{ufuncs, Axes, DType, UfuncReduce};
//! # fn main() -> cp::Result<()> {
//! let a = cp::arange(12i64)?.reshape(&[3, 4])?;
//! let cols = ufuncs::add.reduce(&a)?; // axis 0, as NumPy
//! let top = ufuncs::maximum.reduce_with(&a, Axes::All)?;
//! let masked = ufuncs::add.reduce_with(
//!     &a,
//!     UfuncReduce { axis: 1.into(), where_: Some(cp::greater(&a, 3)?), ..Default::default() },
//! )?;
//! let steps = ufuncs::subtract.accumulate_with(&a, 1)?;
//! let table = ufuncs::multiply.outer(&cols, &cols)?;
//! let idx = cp::asarray(&[0i64, 0, 2][..])?;
//! ufuncs::add.at(&a, &idx, Some(1.into()))?; // a[0] += 2, a[2] += 1
//! # Ok(()) }
//! ```
//!
//! - `reduce`: a ufunc NumPy calls *reorderable* (add, multiply, the logical and bitwise ops,
//!   maximum/minimum/fmax/fmin, hypot, logaddexp, gcd) runs as one [`ReduceKernel`] with the
//!   body as combine and its identity (or a neutral seed, `-inf` for maximum, NaN for fmax) as
//!   the seed, over any set of axes. The others (subtract, divide, power, arctan2, comparisons
//!   of bools, ...) fold each output's elements in order, one GPU thread per output, over at
//!   most one axis (NumPy's "not reorderable" rule).
//! - `accumulate`: add and multiply on the backend's scan primitive (`cumsum`/`cumprod`), every
//!   other ufunc (and dtypes the scan refuses) as an in-order fold per row.
//! - `reduceat`: an in-order fold per (row, segment); the segments come from the indices on
//!   the host (they are checked there anyway).
//! - `outer`: the ufunc call on `a` reshaped to `a.shape + (1,) * b.ndim`.
//! - `at`: add, maximum and minimum as atomic updates where the loop is the target's dtype;
//!   every other ufunc (and those loops) unbuffered in index order, parallel over the elements
//!   one index addresses (`a.shape[1:]`).
//!
//! Type resolution is NumPy's for reduce-like methods: add and multiply of bool and integers
//! narrower than 64 bits accumulate in (u)int64 unless `dtype=` or `out=` is given; with
//! `out=` the loop is chosen for `(out.dtype, a.dtype)`; the loop must map `T, T -> T`
//! (comparisons reduce only bools); the input and the result are cast with `casting='unsafe'`,
//! as NumPy does for these methods.

mod accumulate;
mod at;
mod reduce;
mod reduceat;

pub use accumulate::UfuncAccumulate;
pub use reduce::UfuncReduce;

use super::options::{apply_with, compute_of, no_loop, Loop, UfuncOptions};
use super::ufunc::{Arg, Rule, Ufunc};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::registry::Need;
use crate::statistics::reduction::widen;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::kernel::math::Inline;
use cupy_core::layout::normalize_axis;
use cupy_core::promote::promote_types;

use cupy_core::kernel::ir::ReduceKernel;
use cupy_core::scalar::Scalar;

/// NumPy's "{method} only supported for binary functions".
pub(crate) fn check_binary(u: &Ufunc, method: &str) -> Result<()> {
    if u.nout() != 1 {
        // NumPy: "reduce only supported for functions returning a single value".
        return Err(Error::invalid(
            format!("{}.{method}", u.name()),
            format!("{method} only supported for functions returning a single value"),
        ));
    }
    if u.nin() == 2 {
        return Ok(());
    }
    let what = if method == "outer" {
        "outer product".to_string()
    } else {
        method.to_string()
    };
    Err(Error::invalid(
        format!("{}.{method}", u.name()),
        format!("{what} only supported for binary functions"),
    ))
}

/// The loop of a reduce-like method (`method`: `reduce`, `accumulate`, `reduceat`, named in
/// its errors) of `u` over an input of dtype `t`, with `dtype=` and `out=`'s dtype (module docs).
///
/// # Errors
/// [`Error::TypeError`] where NumPy has no `T, T -> T` loop.
pub(crate) fn reduce_loop(
    u: &Ufunc,
    method: &str,
    t: DType,
    dtype: Option<DType>,
    out: Option<DType>,
) -> Result<Loop> {
    let lp = reduce_loop_of(u, t, dtype, out)?;
    check_inlinable(u, method, &lp)?;
    Ok(lp)
}

/// The methods' kernels inline the ufunc's body (a combine or fold step is one expression):
/// refuses the bodies too large for that ([`Ufunc::inline_body`]) before any kernel is built.
pub(crate) fn check_inlinable(u: &Ufunc, method: &str, lp: &Loop) -> Result<()> {
    let c = lp.compute;
    let args = (0..u.nin()).map(|k| Expr::var(k, c)).collect();
    u.inline_body(&format!("{}.{method}", u.name()), c, args)
        .map(|_| ())
}

fn reduce_loop_of(u: &Ufunc, t: DType, dtype: Option<DType>, out: Option<DType>) -> Result<Loop> {
    let t0 = match (dtype, out) {
        (Some(d), _) => d,
        (None, Some(o)) => promote_types(o, t),
        (None, None) if matches!(u.name(), "add" | "multiply") => widen(t),
        (None, None) => t,
    };
    if u.rule() == Rule::Logical {
        return match dtype {
            Some(d) if d != DType::Bool => Err(no_loop(u, vec![t, d])),
            _ => Ok(Loop {
                input: DType::Bool,
                compute: DType::Bool,
                output: DType::Bool,
            }),
        };
    }
    let (c, o) = u.resolve(t0).map_err(|_| no_loop(u, vec![t0]))?;
    if c != o || dtype.is_some_and(|d| d != o) {
        return Err(no_loop(u, vec![t0]));
    }
    Ok(Loop {
        input: c,
        compute: compute_of(c),
        output: o,
    })
}

/// One step of an in-order fold in the loop's dtype: `u(acc, x)` computed in the compute
/// dtype and rounded to the loop's (NumPy's accumulator is the output array).
pub(crate) fn fold_step(u: &Ufunc, lp: &Loop, acc: Expr, x: Expr) -> Expr {
    let c = lp.compute;
    u.body(&mut Inline, c, vec![acc.cast(c), x.cast(c)])
        .cast(lp.output)
}

/// `a` with `axis` moved last, as a fresh C-contiguous array of `dtype`: `[rows, n]` in C order,
/// and the permutation that moves the axis back.
pub(crate) fn axis_last(a: &Array, axis: usize, dtype: DType) -> Result<(Array, Vec<isize>)> {
    let nd = a.ndim();
    let perm: Vec<isize> = (0..nd)
        .filter(|&i| i != axis)
        .chain([axis])
        .map(|i| i as isize)
        .collect();
    let x = a.transpose(&perm)?.astype(dtype)?;
    let mut inv = vec![0isize; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as isize;
    }
    Ok((x, inv))
}

/// Writes `src` into `out` with `casting='unsafe'` (the reduce-like methods' output cast),
/// checking the shape; returns `out`.
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's `ValueError`) when the shapes differ; device errors.
pub(crate) fn write_out(op: &str, src: &Array, out: &Array) -> Result<Array> {
    if out.shape() != src.shape() {
        return Err(Error::invalid(
            op,
            format!(
                "output parameter has shape {:?}, the result has shape {:?}",
                out.shape(),
                src.shape()
            ),
        ));
    }
    let kernel = Kernel::map(
        "copyto",
        vec![src.dtype()],
        vec![],
        Expr::input(0, src.dtype()).cast(out.dtype()),
    );
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &[src],
        raws: &[],
        params: vec![],
        outs: vec![Some(out)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(out.clone())
}

/// The normalized axis of `accumulate`/`reduceat`.
fn one_axis(op: &str, axis: isize, a: &Array) -> Result<usize> {
    normalize_axis(op, axis, a.ndim())
}

impl Ufunc {
    /// The IR kernels the methods of this binary ufunc run for an input of dtype `t` (NumPy's
    /// default loop): elementwise kernels (the in-order reduction, plain and masked, accumulate,
    /// reduceat and `at`) and reduction kernels (the one-kernel reduction of a reorderable
    /// ufunc, plain, masked and with `initial`). For inspection: the registry asks the backends
    /// about them and the hipRTC test compiles them.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ufunc that is not binary; [`Error::TypeError`] where
    /// NumPy has no `T, T -> T` loop for `t`.
    pub fn method_kernels(&self, t: DType) -> Result<(Vec<Kernel>, Vec<ReduceKernel>)> {
        check_binary(self, "reduce")?;
        let lp = reduce_loop(self, "reduce", t, None, None)?;
        let id = reduce::identity_of(self.name());
        let mut reds = vec![];
        if let Some(s) = reduce::seed(self.name(), id, lp.compute).filter(|_| id.reorderable()) {
            for (initial, masked) in [(None, false), (None, true), (Some(s), false)] {
                reds.extend(reduce::seeded_kernel(self, t, &lp, s, initial, masked));
            }
        }
        let start = id.value(lp.input).unwrap_or_else(|| Scalar::zero(lp.input));
        let mut ks = vec![
            reduce::ordered_kernel(self, &lp, None, false),
            reduce::ordered_kernel(self, &lp, Some(start), true),
            accumulate::accumulate_kernel(self, &lp),
            reduceat::reduceat_kernel(self, &lp),
        ];
        if let Ok((tt, _, _)) = self.loop_types(&[t, t], &[]) {
            let alp = super::options::loop_of(self, tt)?;
            ks.push(at::at_kernel(self, t, DType::Int64, Some(t), &alp));
        }
        Ok((ks, reds))
    }

    /// `numpy.<ufunc>.outer(a, b)`: the ufunc of every pair, shape `a.shape + b.shape`.
    ///
    /// # Errors
    /// As [`Ufunc::outer_with`].
    pub fn outer<'a>(&self, a: impl Into<Arg<'a>>, b: impl Into<Arg<'a>>) -> Result<Array> {
        self.outer_with(a, b, UfuncOptions::default())
    }

    /// `numpy.<ufunc>.outer(a, b, out=..., dtype=..., where=..., casting=...)`: the call's
    /// keywords ([`UfuncOptions`]) apply to the `a.shape + b.shape` result. A Rust scalar
    /// operand is an array of its default dtype (int64, float64), as NumPy's `outer` converts
    /// it (`add.outer(int8_array, 2)` is int64).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ufunc that is not binary; as [`apply_with`].
    pub fn outer_with<'a>(
        &self,
        a: impl Into<Arg<'a>>,
        b: impl Into<Arg<'a>>,
        opts: impl Into<UfuncOptions>,
    ) -> Result<Array> {
        check_binary(self, "outer")?;
        // NumPy's outer converts its operands to arrays: a Rust scalar is strong there.
        let strong = |x: Arg<'a>| match x {
            Arg::Weak(w) => w.to_scalar(self.name(), w.default_dtype()).map(Arg::Typed),
            x => Ok(x),
        };
        let (a, b) = (strong(a.into())?, strong(b.into())?);
        // Two scalars are two 0-d arrays there (`add.outer(2, 3.5)` is `array(5.5)`); a call
        // needs an array operand, so the first becomes one, on the current device.
        let scalar_a;
        let a = match (a, &b) {
            (Arg::Typed(s), Arg::Typed(_)) => {
                scalar_a = Array::empty_on(&crate::Device::current()?, &[], s.dtype())?;
                scalar_a.fill(s)?;
                Arg::Array(&scalar_a)
            }
            (a, _) => a,
        };
        let b_nd = match &b {
            Arg::Array(x) => x.ndim(),
            _ => 0,
        };
        let expanded;
        let a = match a {
            Arg::Array(x) => {
                let mut shape: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
                shape.extend(std::iter::repeat_n(1, b_nd));
                expanded = x.reshape(&shape)?;
                Arg::Array(&expanded)
            }
            other => other,
        };
        apply_with(self, &[a, b], &opts.into())
    }
}

/// The registry's probe of a method (`crate::registry`): what it needs from a backend for
/// operands of dtype `t`, with one ufunc standing for all (named in the registry's notes).
pub(crate) fn probe(method: &str, t: DType) -> Option<Need> {
    let u = |name: &str| crate::math::ufunc(name).expect("declared ufunc");
    let first = |name: &str, reduction: bool| -> Option<Need> {
        let (ks, reds) = u(name).method_kernels(t).ok()?;
        if reduction {
            reds.into_iter().next().map(Need::Reduction)
        } else {
            ks.into_iter().next().map(Need::Kernel)
        }
    };
    let kernel_named = |name: &str, suffix: &str| -> Option<Need> {
        let (ks, _) = u(name).method_kernels(t).ok()?;
        ks.into_iter()
            .find(|k| k.name.ends_with(suffix))
            .map(Need::Kernel)
    };
    match method {
        "reduce" => first("add", true),
        "reduce_ordered" => first("subtract", false),
        "accumulate" => kernel_named("maximum", "_accumulate"),
        "reduceat" => kernel_named("add", "_reduceat"),
        "at" => kernel_named("multiply", "_at"),
        "outer" => {
            let add = u("add");
            let (_, c, o) = add.loop_types(&[t, t], &[]).ok()?;
            let args = (0..2).map(|k| Expr::input(k, t).cast(c)).collect();
            let mut lets = cupy_core::kernel::math::Lets::default();
            let body = add.body(&mut lets, c, args).cast(o);
            Some(Need::Kernel(super::ufunc::kernel_with_lets(
                "add_outer",
                vec![t, t],
                vec![],
                lets,
                body,
            )))
        }
        _ => None,
    }
}

// The registry rows of the methods (each probed on a representative ufunc).
routine!("numpy.ufunc.reduce (reorderable: add, multiply, maximum, minimum, fmax, fmin, logical and bitwise ops, hypot, logaddexp)", UfuncMethod, probe: |t| probe("reduce", t), notes: "one reduction kernel, the ufunc's body as combine; axis int/tuple/None, dtype, out, keepdims, initial, where (cells: add)");
routine!("numpy.ufunc.reduce (in order: subtract, divide, power, arctan2, ...)", UfuncMethod, probe: |t| probe("reduce_ordered", t), notes: "one thread per output folds in order; one axis, as NumPy (cells: subtract)");
routine!("numpy.ufunc.accumulate", UfuncMethod, probe: |t| probe("accumulate", t), notes: "add/multiply: the scan primitive; the others an in-order fold per row (cells: maximum)");
routine!("numpy.ufunc.reduceat", UfuncMethod, probe: |t| probe("reduceat", t), notes: "in-order fold per segment; indices checked on the host (cells: add)");
routine!("numpy.ufunc.outer", UfuncMethod, probe: |t| probe("outer", t), notes: "the ufunc call on a reshaped operand, with out, dtype, where, casting (cells: add)");
routine!("numpy.ufunc.at (integer-array index, axis 0)", UfuncMethod, probe: |t| probe("at", t), notes: "add/maximum/minimum: atomics where the loop is the target's dtype; the rest in index order, parallel over a.shape[1:] (cells: multiply)");

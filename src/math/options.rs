//! NumPy's keyword arguments of a ufunc call (`out=`, `dtype=`, `where=`, `casting=`), in one
//! options struct with `Default`, as [`Reduce`](crate::Reduce) is for the reductions:
//!
//! ```no_run
//! use cupy as cp;
//! use cp::{ufuncs, Casting, DType, UfuncOptions};
//! # fn main() -> cp::Result<()> {
//! let a = cp::arange(5)?.astype(DType::Int8)?;
//! // numpy.add(a, a, dtype=float32): the loop (and the result) in float32
//! let f = ufuncs::add.call_with(&[(&a).into(), (&a).into()], DType::Float32)?;
//! // numpy.add(a, 1, out=out, where=mask): masked-out elements keep out's values
//! let out = cp::full_with(&[5], 9, DType::Int8)?;
//! let mask = cp::greater(&a, 1)?;
//! ufuncs::add.call_with(
//!     &[(&a).into(), 1.into()],
//!     UfuncOptions { out: Some(out.clone()), where_: Some(mask), ..Default::default() },
//! )?;
//! // numpy.sqrt(a, casting='no') is a TypeError: int8 is not float16
//! assert!(ufuncs::sqrt.call_with(&[(&a).into()], Casting::No).is_err());
//! # Ok(()) }
//! ```

use super::ufunc::{apply, kernel_with_lets, Arg, Rule, Ufunc};
use crate::array::{same_device, Array};
use crate::launch::{broadcast_all, Elementwise};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::Expr;
use cupy_core::kernel::math::Lets;
use cupy_core::promote::{can_cast, can_cast_weak, Casting, WeakScalar};

/// Keyword arguments of a ufunc call (`numpy.add(x, y, out=..., dtype=..., where=...,
/// casting=...)`), passed to [`apply_with`] / [`Ufunc::call_with`]. A [`DType`] or a
/// [`Casting`] converts into it.
#[derive(Clone, Debug, Default)]
pub struct UfuncOptions {
    /// The array to write the result into (`out=`); returned. Its shape must be the broadcast
    /// shape of the operands (they broadcast to it), and the loop's result must cast to its
    /// dtype under `casting`.
    pub out: Option<Array>,
    /// The loop's dtype (`dtype=`, NumPy's `signature=(None, ..., dtype)`): the operands are cast
    /// to it under `casting` (weak scalars are converted to it) and the result has it. A ufunc
    /// whose result is bool (comparisons, logical ops, `isnan`, ...) only takes `Bool`; one
    /// without a `dtype -> dtype` loop (`sqrt` with `Int32`, `power` with `Bool`) is a
    /// [`Error::TypeError`] ("No loop matching the specified signature"). `absolute` of complex
    /// input with a real `dtype` uses the complex loop of that precision. float16/bfloat16
    /// loops compute in float32 and round the result, as NumPy's.
    pub dtype: Option<DType>,
    /// A bool mask broadcast with the operands (`where=`): where it is true the result is
    /// computed, where false the output keeps its value. With `out`, that is `out`'s value.
    /// Without `out` the result is a fresh array whose masked-out elements are unspecified,
    /// as NumPy leaves them uninitialised (cupy-rs does not zero them either): read them only
    /// where the mask is true, or pass `out`.
    pub where_: Option<Array>,
    /// The casting rule (`casting=`, default [`Casting::SameKind`]) for the operands to the
    /// loop's dtype and for the result to `out`'s dtype.
    pub casting: Casting,
}

impl From<DType> for UfuncOptions {
    /// `dtype=` alone.
    fn from(dtype: DType) -> UfuncOptions {
        UfuncOptions {
            dtype: Some(dtype),
            ..Default::default()
        }
    }
}

impl From<Casting> for UfuncOptions {
    /// `casting=` alone.
    fn from(casting: Casting) -> UfuncOptions {
        UfuncOptions {
            casting,
            ..Default::default()
        }
    }
}

/// The dtypes of a ufunc loop: what the operands are cast to, what it computes in, what it
/// returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loop {
    /// The loop's input dtype (NumPy's `types` entry before `->`): operands are cast to it.
    pub input: DType,
    /// The dtype the body computes in (float16/bfloat16 loops compute in float32).
    pub compute: DType,
    /// The loop's output dtype.
    pub output: DType,
}

/// NumPy's "No loop matching the specified signature and casting was found" for `u`.
pub(crate) fn no_loop(u: &Ufunc, dtypes: Vec<DType>) -> Error {
    Error::TypeError {
        op: u.name().into(),
        dtypes,
        msg: format!(
            "No loop matching the specified signature and casting was found for ufunc {}",
            u.name()
        ),
    }
}

/// The compute dtype of a loop input dtype: float16/bfloat16 compute in float32.
pub(crate) fn compute_of(d: DType) -> DType {
    match d {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        d => d,
    }
}

/// The loop of `u` for a promoted operand dtype `t` (no `dtype=`).
///
/// # Errors
/// [`Error::TypeError`] where NumPy has no loop.
pub(crate) fn loop_of(u: &Ufunc, t: DType) -> Result<Loop> {
    let (c, o) = u.resolve(t)?;
    // The logical ufuncs have loops for every dtype (`ii->?`): the operands stay, the body
    // sees them as bool.
    let input = if u.rule() == Rule::Logical { t } else { c };
    Ok(Loop {
        input,
        compute: compute_of(c),
        output: o,
    })
}

/// The loop of `u` with `dtype=d`, for a promoted operand dtype `t`.
///
/// # Errors
/// [`Error::TypeError`] ("No loop matching the specified signature ...") where NumPy has no
/// loop whose output is `d`.
pub(crate) fn loop_for_dtype(u: &Ufunc, t: DType, d: DType) -> Result<Loop> {
    match u.rule() {
        Rule::Compare | Rule::Logical | Rule::Predicate | Rule::PredicateReal => {
            // The result is bool whatever the operands: only dtype=bool names a loop.
            if d != DType::Bool {
                return Err(no_loop(u, vec![t, d]));
            }
            loop_of(u, t)
        }
        // bitwise_count's loops all give uint8 (`b->B` ... `Q->B`): dtype=uint8 keeps the
        // operand's loop (the count of `|x|`, not of `x` cast to uint8).
        Rule::BitCount => {
            if d != DType::UInt8 {
                return Err(no_loop(u, vec![t, d]));
            }
            loop_of(u, t)
        }
        Rule::Magnitude if t.is_complex() && magnitude_loop(t, d).is_some() => {
            let input = magnitude_loop(t, d).expect("checked");
            Ok(Loop {
                input,
                compute: input,
                output: d,
            })
        }
        _ => match u.resolve(d) {
            Ok((c, o)) if o == d && c == d => Ok(Loop {
                input: d,
                compute: compute_of(d),
                output: d,
            }),
            _ => Err(no_loop(u, vec![t, d])),
        },
    }
}

/// The complex loop of `absolute` whose output is the real `d` (`F->f`, `D->d`), when the
/// complex operand dtype `t` casts to its input safely (NumPy's loop search; otherwise the real
/// loop `d->d` is chosen and the casting rule decides).
fn magnitude_loop(t: DType, d: DType) -> Option<DType> {
    let c = match d {
        DType::Float32 => DType::Complex64,
        DType::Float64 => DType::Complex128,
        _ => return None,
    };
    can_cast(t, c, Casting::Safe).then_some(c)
}

/// The strong dtypes and the weak scalars of `args`.
pub(crate) fn split_args(args: &[Arg<'_>]) -> (Vec<DType>, Vec<WeakScalar>) {
    let mut strong = vec![];
    let mut weak = vec![];
    for a in args {
        match a {
            Arg::Array(x) => strong.push(x.dtype()),
            Arg::Typed(s) => strong.push(s.dtype()),
            Arg::Weak(w) => weak.push(*w),
        }
    }
    (strong, weak)
}

/// NumPy's error for an operand that `casting` does not allow to become the loop's dtype.
fn input_cast_error(u: &Ufunc, k: usize, from: DType, to: DType, casting: Casting) -> Error {
    let which = if u.nin() == 1 {
        "input".to_string()
    } else {
        format!("input {k}")
    };
    Error::TypeError {
        op: u.name().into(),
        dtypes: vec![from, to],
        msg: format!(
            "Cannot cast ufunc '{}' {which} from {from} to {to} with casting rule '{casting}'",
            u.name()
        ),
    }
}

/// NumPy's error for a result that `casting` does not allow into `out`.
pub(crate) fn output_cast_error(u: &Ufunc, from: DType, to: DType, casting: Casting) -> Error {
    Error::TypeError {
        op: u.name().into(),
        dtypes: vec![from, to],
        msg: format!(
            "Cannot cast ufunc '{}' output from {from} to {to} with casting rule '{casting}'",
            u.name()
        ),
    }
}

/// A `where=` mask must be bool (NumPy: "Cannot cast array data from int64 to bool according
/// to the rule 'safe'").
pub(crate) fn check_mask(op: &str, mask: &Array) -> Result<()> {
    if mask.dtype() == DType::Bool {
        return Ok(());
    }
    Err(Error::TypeError {
        op: op.into(),
        dtypes: vec![mask.dtype(), DType::Bool],
        msg: format!(
            "where= must be a bool array: cannot cast array data from {} to bool according to the rule 'safe'",
            mask.dtype()
        ),
    })
}

/// Applies a ufunc with NumPy's keyword arguments ([`UfuncOptions`]): `numpy.add(x, y,
/// out=..., dtype=..., where=..., casting=...)`. Without options it is [`apply`].
///
/// # Errors
/// As [`apply`]; [`Error::TypeError`] for an operand or result the casting rule refuses
/// ("Cannot cast ufunc 'add' input 0 from int8 to int16 with casting rule 'no'"), for a
/// `dtype=` without a loop, or a non-bool `where=`; [`Error::ShapeMismatch`] when the mask
/// does not broadcast.
pub fn apply_with(u: &Ufunc, args: &[Arg<'_>], opts: &UfuncOptions) -> Result<Array> {
    if u.nout() != 1 {
        return Err(Error::invalid(
            u.name(),
            format!(
                "has {} outputs: call it through apply_outs (UfuncOptions takes one out=)",
                u.nout()
            ),
        ));
    }
    // A comparison's only loops give bool, so `dtype=bool` changes nothing: the plain path
    // keeps NumPy 2's exact answers against out-of-range Rust integers (`int8 < 300`).
    let dtype = match opts.dtype {
        Some(DType::Bool) if u.rule() == Rule::Compare => None,
        d => d,
    };
    if dtype.is_none() && opts.where_.is_none() && opts.casting == Casting::SameKind {
        return apply(u, args, opts.out.as_ref());
    }
    let op = u.name();
    if args.len() != u.nin() {
        return Err(Error::invalid(
            op,
            format!("takes {} operands, got {}", u.nin(), args.len()),
        ));
    }
    if !args.iter().any(|a| matches!(a, Arg::Array(_))) {
        // With dtype=, NumPy converts the Python scalars to the loop's input dtype (range
        // checked: `np.add(300, 2, dtype=np.int8)` is an OverflowError, not a wrapped 46).
        let into = match dtype {
            None => None,
            Some(d) => {
                let (strong, weak) = split_args(args);
                let t = cupy_core::promote::result_type(op, &strong, &weak)?;
                let input = loop_for_dtype(u, t, d)?.input;
                for (k, a) in args.iter().enumerate() {
                    if let Arg::Weak(w) = a {
                        if u.rule() != Rule::Logical && !can_cast_weak(*w, input, opts.casting) {
                            return Err(input_cast_error(
                                u,
                                k,
                                w.default_dtype(),
                                input,
                                opts.casting,
                            ));
                        }
                    }
                }
                Some(input)
            }
        };
        let (k, first) = super::ufunc::scalar_operand(op, args, opts.out.as_ref(), into)?;
        let mut with_array = args.to_vec();
        with_array[k] = Arg::Array(&first);
        return apply_with(u, &with_array, opts);
    }
    let (strong, weak) = split_args(args);
    let (t, lp) = match dtype {
        None => {
            let (t, _, _) = u.loop_types(&strong, &weak)?;
            (t, loop_of(u, t)?)
        }
        Some(d) => {
            // The promoted dtype only picks among the loops whose output is `d` (comparisons'
            // widening for out-of-range Rust integers included); weak scalars convert to the
            // loop's input dtype.
            let t = match u.loop_types(&strong, &weak) {
                Ok((t, _, _)) => t,
                Err(_) => cupy_core::promote::result_type(op, &strong, &weak)?,
            };
            let lp = loop_for_dtype(u, t, d)?;
            (lp.input, lp)
        }
    };
    let casting = opts.casting;
    // The logical ufuncs take operands of any dtypes under every rule (NumPy's promoter
    // reads them as bool).
    let free = u.rule() == Rule::Logical;
    let mut inputs: Vec<&Array> = vec![];
    let mut in_dtypes = vec![];
    let mut params = vec![];
    let mut param_dtypes = vec![];
    let mut exprs = vec![];
    for (k, a) in args.iter().enumerate() {
        match a {
            Arg::Array(x) => {
                if !free && !can_cast(x.dtype(), lp.input, casting) {
                    return Err(input_cast_error(u, k, x.dtype(), lp.input, casting));
                }
                exprs.push(
                    Expr::input(inputs.len(), x.dtype())
                        .cast(lp.input)
                        .cast(lp.compute),
                );
                in_dtypes.push(x.dtype());
                inputs.push(*x);
            }
            Arg::Weak(w) => {
                // Converted to the promoted dtype (or dtype=), range-checked, then to the loop's.
                if !free && !can_cast_weak(*w, lp.input, casting) {
                    return Err(input_cast_error(u, k, w.default_dtype(), lp.input, casting));
                }
                let s = w.to_scalar(op, t)?;
                exprs.push(Expr::param(params.len(), t).cast(lp.input).cast(lp.compute));
                param_dtypes.push(t);
                params.push(s);
            }
            Arg::Typed(s) => {
                if !free && !can_cast(s.dtype(), lp.input, casting) {
                    return Err(input_cast_error(u, k, s.dtype(), lp.input, casting));
                }
                exprs.push(
                    Expr::param(params.len(), s.dtype())
                        .cast(lp.input)
                        .cast(lp.compute),
                );
                param_dtypes.push(s.dtype());
                params.push(*s);
            }
        }
    }
    let out_dtype = opts.out.as_ref().map_or(lp.output, |a| a.dtype());
    if !can_cast(lp.output, out_dtype, casting) {
        return Err(output_cast_error(u, lp.output, out_dtype, casting));
    }
    let mut lets = Lets::default();
    let mut value = u
        .body(&mut lets, lp.compute, exprs)
        .cast(lp.output)
        .cast(out_dtype);
    // where=: the mask and the old output are inputs; the store keeps the old value where the
    // mask is false.
    let fresh;
    let old = match &opts.where_ {
        None => opts.out.as_ref(),
        Some(mask) => {
            check_mask(op, mask)?;
            let old = match &opts.out {
                Some(o) => o,
                None => {
                    let mut all = inputs.clone();
                    all.push(mask);
                    let device = same_device(op, all.iter().copied())?;
                    let shape = broadcast_all(op, &all)?;
                    fresh = Array::empty_on(&device, &shape, out_dtype)?;
                    &fresh
                }
            };
            let m = Expr::input(inputs.len(), DType::Bool);
            let prev = Expr::input(inputs.len() + 1, out_dtype);
            value = Expr::select(m, value, prev);
            in_dtypes.extend([DType::Bool, out_dtype]);
            inputs.push(mask);
            inputs.push(old);
            Some(old)
        }
    };
    let kernel = kernel_with_lets(op, in_dtypes, param_dtypes, lets, value);
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &inputs,
        raws: &[],
        params,
        outs: vec![old],
        device: None,
        shape: None,
    }
    .run_one()
}

impl Ufunc {
    /// Calls the ufunc (`numpy.add(x, y)`): [`apply`] without `out`.
    ///
    /// # Errors
    /// As [`apply`].
    pub fn call(&self, args: &[Arg<'_>]) -> Result<Array> {
        apply(self, args, None)
    }

    /// Calls the ufunc with NumPy's keyword arguments: [`apply_with`]; a [`DType`] or a
    /// [`Casting`] converts into the options.
    ///
    /// # Errors
    /// As [`apply_with`].
    pub fn call_with(&self, args: &[Arg<'_>], opts: impl Into<UfuncOptions>) -> Result<Array> {
        apply_with(self, args, &opts.into())
    }
}

//! NumPy's elementwise routines that are functions, not ufuncs, built on the ufunc machinery
//! with NumPy's signatures: `clip`, `where`, `round`/`around`, `nan_to_num`. Each has an
//! internal [`Ufunc`] (its loop rule and IR; not in [`crate::all_ufuncs`]) and the function.

use super::ufunc::{apply, apply_out, Arg, Rule, Ufunc};
use crate::array::Array;
use crate::custom::fuse::{Operand, Sym};
use crate::registry::{ufunc_kernel, Need};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use cupy_core::kernel::math::{self, Bind, FloatFormat};
use cupy_core::promote::{int_range, WeakScalar};
use cupy_core::scalar::Scalar;
use num_complex::Complex;

/// The elementwise cores of these routines (not NumPy ufuncs: not in [`crate::all_ufuncs`]),
/// for code that walks every kernel the frontend can build (compile checks).
pub const CORES: &[Ufunc] = &[CLIP, WHERE, NAN_TO_NUM, ROUND_UP, ROUND_DOWN];

fn three(args: Vec<Expr>) -> (Expr, Expr, Expr) {
    let mut it = args.into_iter();
    let mut next = || it.next().expect("operand");
    (next(), next(), next())
}

/// `clip`'s elementwise core (`numpy._core.umath.clip`): `minimum(maximum(x, lo), hi)`, NaN
/// propagating from any operand.
pub(crate) const CLIP: Ufunc = Ufunc {
    name: "clip",
    nin: 3,
    nout: 1,
    rule: Rule::Same,
    body: |m, c, args| {
        let (x, lo, hi) = three(args);
        if c.is_bool() {
            Expr::binary(B::And, Expr::binary(B::Or, x, lo), hi)
        } else if c.is_complex() {
            let x = complex_clip_step(m, x, lo, B::Gt);
            complex_clip_step(m, x, hi, B::Lt)
        } else {
            Expr::binary(B::Min, Expr::binary(B::Max, x, lo), hi)
        }
    },
    bodies: None,
    family: "misc",
    module: "cupy",
    doc: "Clips x to [lo, hi] (numpy._core.umath.clip).\n",
};

/// One step of NumPy's complex clip (`_NPY_MAX`/`_NPY_MIN` of `clip.cpp`): `a` when it has a
/// NaN part or is lexicographically beyond `b` (`op` is `Gt` for the lower bound, `Lt` for the
/// upper), else `b`; unlike `maximum`, a NaN in `b` is not propagated when `a` compares.
fn complex_clip_step(m: &mut dyn Bind, a: Expr, b: Expr, op: B) -> Expr {
    let a = m.bind(a);
    let b = m.bind(b);
    let part = |m: &mut dyn Bind, u: U, e: &Expr| m.bind(Expr::unary(u, e.clone()));
    let (ar, ai) = (part(m, U::Real, &a), part(m, U::Imag, &a));
    let (br, bi) = (part(m, U::Real, &b), part(m, U::Imag, &b));
    let beyond = Expr::binary(
        B::Or,
        Expr::binary(op, ar.clone(), br.clone()),
        Expr::binary(
            B::And,
            Expr::binary(B::Eq, ar.clone(), br),
            Expr::binary(op, ai.clone(), bi),
        ),
    );
    let nan = Expr::binary(B::Or, Expr::unary(U::IsNan, ar), Expr::unary(U::IsNan, ai));
    Expr::select(Expr::binary(B::Or, nan, beyond), a, b)
}

/// `where(condition, x, y)`'s elementwise core: `condition ? x : y`.
pub(crate) const WHERE: Ufunc = Ufunc {
    name: "where",
    nin: 3,
    nout: 1,
    rule: Rule::Where,
    body: |_, _, args| {
        let (cond, x, y) = three(args);
        Expr::select(cond, x, y)
    },
    bodies: None,
    family: "logic",
    module: "cupy",
    doc: "condition ? x : y (numpy.where with three arguments).\n",
};

/// `nan_to_num`'s elementwise core: `(x, nan, posinf, neginf)`, complex part by part.
pub(crate) const NAN_TO_NUM: Ufunc = Ufunc {
    name: "nan_to_num",
    nin: 4,
    nout: 1,
    rule: Rule::Same,
    body: |m, c, args| {
        let mut it = args.into_iter();
        let mut next = || it.next().expect("operand");
        let (x, nan, pinf, ninf) = (next(), next(), next(), next());
        if c.is_complex() {
            let x = m.bind(x);
            let real = |e: Expr| Expr::unary(U::Real, e);
            let (nan, pinf, ninf) = (m.bind(real(nan)), m.bind(real(pinf)), m.bind(real(ninf)));
            let re = replace(m, real(x.clone()), &nan, &pinf, &ninf);
            let im = replace(m, Expr::unary(U::Imag, x), &nan, &pinf, &ninf);
            Expr::complex(re, im)
        } else if c.is_float() {
            replace(m, x, &nan, &pinf, &ninf)
        } else {
            x
        }
    },
    bodies: None,
    family: "misc",
    module: "cupy",
    doc: "x with NaN and infinities replaced (numpy.nan_to_num).\n",
};

fn replace(m: &mut dyn Bind, v: Expr, nan: &Expr, pinf: &Expr, ninf: &Expr) -> Expr {
    let t = v.ty;
    let v = m.bind(v);
    Expr::select(
        Expr::unary(U::IsNan, v.clone()),
        nan.clone(),
        Expr::select(
            Expr::binary(B::Eq, v.clone(), math::fconst(t, f64::INFINITY)),
            pinf.clone(),
            Expr::select(
                Expr::binary(B::Eq, v.clone(), math::fconst(t, f64::NEG_INFINITY)),
                ninf.clone(),
                v,
            ),
        ),
    )
}

/// `round` for `decimals >= 0`: `rint(x * 10^d) / 10^d`, each step rounded to the dtype.
pub(crate) const ROUND_UP: Ufunc = round_ufunc(true);
/// `round` for `decimals < 0`: `rint(x / 10^-d) * 10^-d`.
pub(crate) const ROUND_DOWN: Ufunc = round_ufunc(false);

const fn round_ufunc(up: bool) -> Ufunc {
    Ufunc {
        name: "round",
        nin: 2,
        nout: 1,
        rule: Rule::Round,
        body: if up {
            |m, c, args| round_body(m, c, args, true)
        } else {
            |m, c, args| round_body(m, c, args, false)
        },
        bodies: None,
        family: "rounding",
        module: "cupy",
        doc: "Rounds to a number of decimals (numpy.round).\n",
    }
}

fn round_body(m: &mut dyn Bind, c: DType, args: Vec<Expr>, up: bool) -> Expr {
    let mut it = args.into_iter();
    let (x, f) = (it.next().expect("x"), it.next().expect("factor"));
    let steps = |m: &mut dyn Bind, x: Expr, f: Expr| {
        let t = x.ty;
        let w = if t == DType::Float64 {
            t
        } else {
            DType::Float32
        };
        let f = m.bind(f.cast(w));
        let (op1, op2) = if up {
            (B::Mul, B::Div)
        } else {
            (B::Div, B::Mul)
        };
        let y = Expr::binary(op1, x.cast(w), f.clone()).cast(t).cast(w);
        let r = math::rint(m, y);
        Expr::binary(op2, r, f).cast(t)
    };
    if c.is_complex() {
        let x = m.bind(x);
        let f = m.bind(Expr::unary(U::Real, f));
        let re = steps(m, Expr::unary(U::Real, x.clone()), f.clone());
        let im = steps(m, Expr::unary(U::Imag, x), f);
        Expr::complex(re, im)
    } else {
        steps(m, x, f)
    }
}

/// One side of [`clip`]: an array, a scalar, or `None` (no bound on that side; a plain `None`
/// is accepted, as `Option<f64>`).
#[derive(Clone, Debug)]
pub enum Bound<'a> {
    /// No bound.
    None,
    /// An array or scalar bound.
    Arg(Arg<'a>),
}

impl<'a> From<Option<f64>> for Bound<'a> {
    fn from(v: Option<f64>) -> Bound<'a> {
        v.map_or(Bound::None, |v| Bound::Arg(v.into()))
    }
}
impl<'a> From<&'a Array> for Bound<'a> {
    fn from(a: &'a Array) -> Bound<'a> {
        Bound::Arg(Arg::Array(a))
    }
}
impl<'a> From<Arg<'a>> for Bound<'a> {
    fn from(a: Arg<'a>) -> Bound<'a> {
        Bound::Arg(a)
    }
}
macro_rules! bound_from {
    ($($t:ty),*) => {$(
        impl<'a> From<$t> for Bound<'a> {
            fn from(v: $t) -> Bound<'a> {
                Bound::Arg(v.into())
            }
        }
    )*};
}
bound_from!(
    bool,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    Scalar,
    Complex<f64>
);

/// `numpy.clip(a, a_min, a_max)`: `a` limited to `[a_min, a_max]`, either side `None`; the
/// bounds are arrays or scalars, promoted with `a` (NEP 50). As NumPy 2, a Rust integer bound
/// beyond an integer array's range on its side is no bound (`clip(uint8_array, -1, 300)` is a
/// copy); both `None` is `positive(a)`.
///
/// # Errors
/// As [`apply`] (e.g. [`Error::ScalarOverflow`] for `a_min` above an integer dtype's range, as
/// NumPy's `OverflowError`).
pub fn clip<'a>(
    a: &'a Array,
    a_min: impl Into<Bound<'a>>,
    a_max: impl Into<Bound<'a>>,
) -> Result<Array> {
    clip_with(a, a_min, a_max, None)
}

/// `numpy.clip(a, a_min, a_max, out=out)`: [`clip`] written into `out` (returned) when given,
/// the result cast to `out`'s dtype under `same_kind` as NumPy's ufunc output.
///
/// # Errors
/// As [`clip`]; [`Error::TypeError`] when the result does not cast to `out`'s dtype
/// (`same_kind`), [`Error::ShapeMismatch`] when `out` is not the broadcast shape.
pub fn clip_with<'a>(
    a: &'a Array,
    a_min: impl Into<Bound<'a>>,
    a_max: impl Into<Bound<'a>>,
    out: Option<&Array>,
) -> Result<Array> {
    let t = a.dtype();
    let open = |b: Bound<'a>, low: bool| match b {
        Bound::Arg(Arg::Weak(WeakScalar::Int(i))) if t.is_integer() => {
            let (lo, hi) = int_range(t);
            if (low && i <= lo) || (!low && i >= hi) {
                Bound::None
            } else {
                b
            }
        }
        b => b,
    };
    let (lo, hi) = (open(a_min.into(), true), open(a_max.into(), false));
    let x = Arg::Array(a);
    match (lo, hi) {
        (Bound::None, Bound::None) => apply(&super::ufuncs::positive, &[x], out),
        (Bound::None, Bound::Arg(h)) => apply(&super::ufuncs::minimum, &[x, h], out),
        (Bound::Arg(l), Bound::None) => apply(&super::ufuncs::maximum, &[x, l], out),
        (Bound::Arg(l), Bound::Arg(h)) => apply(&CLIP, &[x, l, h], out),
    }
}
routine!(clip, Math, probe: |t| ufunc_kernel(&CLIP, t).map(Need::Kernel), notes: "a_min/a_max arrays, scalars or None; out-of-range Rust integers are no bound (NumPy 2); out= (clip_with)");

/// The condition of [`where_`]: an array (the result is an array) or a [`Sym`] inside a
/// [`fuse`](crate::fuse) closure (the result is a symbol).
pub trait WhereCondition<'a, X, Y> {
    /// What `where_` returns.
    type Output;
    /// `condition ? x : y`.
    fn select(self, x: X, y: Y) -> Self::Output;
}

impl<'a, X: Into<Arg<'a>>, Y: Into<Arg<'a>>> WhereCondition<'a, X, Y> for &'a Array {
    type Output = Result<Array>;
    fn select(self, x: X, y: Y) -> Result<Array> {
        where_arrays(self, x.into(), y.into())
    }
}

impl<'a, X: Into<Operand>, Y: Into<Operand>> WhereCondition<'a, X, Y> for Sym {
    type Output = Sym;
    fn select(self, x: X, y: Y) -> Sym {
        crate::custom::fuse::where_sym(self, x, y)
    }
}

/// `numpy.where(condition, x, y)`: `x` where `condition` is true, else `y`, broadcast together;
/// `x` and `y` promoted together (NEP 50), `condition` taken as bool. A Rust integer outside
/// the result dtype's range wraps, as NumPy 2.2 casts it (`where(c, int8_array, 1000)` holds
/// -24). On a [`Sym`] condition it is the `fuse` select. The one-argument form
/// is [`crate::nonzero`].
///
/// # Errors
/// As [`apply`].
pub fn where_<'a, C: WhereCondition<'a, X, Y>, X, Y>(condition: C, x: X, y: Y) -> C::Output {
    condition.select(x, y)
}
routine!(where_ as "cupy.where (3 arguments)", Math, probe: |t| ufunc_kernel(&WHERE, t).map(Need::Kernel), notes: "where_(cond, x, y); the 1-argument form is cupy::nonzero");

fn where_arrays<'a>(cond: &'a Array, x: Arg<'a>, y: Arg<'a>) -> Result<Array> {
    let kinds: Vec<_> = [Arg::Array(cond), x.clone(), y.clone()]
        .iter()
        .map(|a| match a {
            Arg::Array(a) => super::resolve::LoopOperand::Strong(a.dtype()),
            Arg::Typed(s) => super::resolve::LoopOperand::Strong(s.dtype()),
            Arg::Weak(w) => super::resolve::LoopOperand::Weak(*w),
        })
        .collect();
    let t = WHERE.loop_for(&kinds)?.outputs[0];
    let wrap = |a: Arg<'a>| -> Result<Arg<'a>> {
        Ok(match a {
            Arg::Weak(WeakScalar::Int(i)) if t.is_integer() => {
                let (lo, hi) = int_range(t);
                if i >= lo && i <= hi {
                    a
                } else if i >= i64::MIN as i128 && i <= u64::MAX as i128 {
                    let s = if i <= i64::MAX as i128 {
                        Scalar::Int64(i as i64)
                    } else {
                        Scalar::UInt64(i as u64)
                    };
                    Arg::Typed(s.cast(t))
                } else {
                    return Err(Error::ScalarOverflow {
                        op: "where".into(),
                        value: i.to_string(),
                        dtype: t,
                    });
                }
            }
            a => a,
        })
    };
    apply(&WHERE, &[Arg::Array(cond), wrap(x)?, wrap(y)?], None)
}

/// The options of [`round_with`]: NumPy's `decimals` and `out`. A number of decimals converts
/// into it: `round_with(&a, 2)`.
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// Decimal places (negative: to tens, hundreds, ...).
    pub decimals: i32,
    /// An array to write the result into (`out=`), returned; see [`round_with`] for its shape
    /// and dtype rules.
    pub out: Option<Array>,
}

impl From<i32> for Round {
    fn from(decimals: i32) -> Round {
        Round {
            decimals,
            out: None,
        }
    }
}

/// `numpy.round(a)`: to the nearest integer, half to even (see [`round_with`]).
///
/// # Errors
/// As [`round_with`].
pub fn round(a: &Array) -> Result<Array> {
    round_with(a, 0)
}
routine!(round as "cupy.round / around", Math, probe: |t| ufunc_kernel(&ROUND_UP, if t.is_integer() { DType::Float64 } else { t }).map(Need::Kernel), notes: "round_with(a, Round { decimals, out }): NumPy's scale, rint, unscale; integers with decimals < 0 in float64; out= with NumPy's steps in out's dtype");

/// `numpy.around(a)`: another name of [`round`].
///
/// # Errors
/// As [`round_with`].
pub fn around(a: &Array) -> Result<Array> {
    round_with(a, 0)
}

/// NumPy's `10**n` for `round` (`power_of_ten`: a table to 1e8, then products by 10).
fn power_of_ten(n: u32) -> f64 {
    const P10: [f64; 9] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];
    if n < 9 {
        return P10[n as usize];
    }
    let mut r = 1e9;
    for _ in 9..n {
        r *= 10.0;
    }
    r
}

/// `numpy.round(a, decimals, out=None)` (`around`): NumPy's algorithm, `rint(a *
/// 10**decimals) / 10**decimals` with each step rounded to `a`'s dtype (divide first for
/// negative `decimals`), so `round(2.675, 2)` is 2.68 as there (the product 267.49999999999997
/// rounds to 267.5; Python's `round` gives 2.67); complex part by part; integers
/// are copied for `decimals >= 0` and rounded in float64 then cast back otherwise; bool rounds
/// to float16 (NumPy's `rint`) for `decimals == 0`.
///
/// With `out` (NumPy's `PyArray_Round`): the result is written into `out`, which is returned.
/// `out` holds `a.size()` elements and has `a`'s shape, or that shape with leading length-1
/// axes (NumPy's ufunc broadcast; integer `decimals >= 0` and complex input, which NumPy
/// assigns, also take `a` with leading length-1 axes `out` lacks). The steps run as NumPy's
/// ufunc calls with `out=`: the first (`a * 10**d`, `a / 10**-d`, or `rint(a)` for `decimals
/// == 0`) in `a`'s dtype (float64 for integers, float16 for `rint` of bool), its result cast
/// to `out`'s dtype (`same_kind`), the others in `out`'s dtype; so `round(1234.5678, 2)` into
/// a float16 `out` is inf (the scaled 123456.78 overflows float16), float32 data rounded into
/// a float64 `out` ends in float64's 2.68 (not float32's, widened), as NumPy, and bool data
/// with `decimals != 0` rounds into a float `out`. Integers with
/// `decimals >= 0` are copied (`same_kind`); complex input is rounded, then cast into a
/// complex `out`.
///
/// # Errors
/// [`Error::TypeError`] for bool with `decimals != 0` and no `out` (NumPy cannot write the
/// float steps into bool), for an `out` dtype the first step's result does not cast to under
/// `same_kind` (float data into an integer or bool `out`, integers into bool), and for a real
/// `out` of complex input (NumPy: "array does not have imaginary part to set");
/// [`Error::ShapeMismatch`] for an `out` of another size or shape (NumPy's ValueError); all
/// name `round` and leave `out` unchanged. Device errors.
pub fn round_with(a: &Array, options: impl Into<Round>) -> Result<Array> {
    let Round { decimals: d, out } = options.into();
    match out {
        Some(out) => round_into(a, d, &out),
        None => round_new(a, d),
    }
}

/// [`round_with`] without `out`: a new array.
fn round_new(a: &Array, d: i32) -> Result<Array> {
    let t = a.dtype();
    if t.is_bool() {
        if d == 0 {
            return super::rounding::rint(a);
        }
        return Err(Error::TypeError {
            op: "round".into(),
            dtypes: vec![t],
            msg: "cannot cast ufunc 'multiply' output from float64 to bool (decimals != 0 on \
                  a bool array)"
                .into(),
        });
    }
    if t.is_integer() {
        if d >= 0 {
            return a.copy();
        }
        return round_new(&a.astype(DType::Float64)?, d)?.astype(t);
    }
    let f = Scalar::Float64(power_of_ten(d.unsigned_abs())).cast(t.real_dtype());
    let u = if d >= 0 { &ROUND_UP } else { &ROUND_DOWN };
    apply(u, &[Arg::Array(a), Arg::Typed(f)], None)
}

/// [`round_with`] into `out`: NumPy's `PyArray_Round` with an output, its checks made first.
fn round_into(a: &Array, d: i32, out: &Array) -> Result<Array> {
    let (t, o) = (a.dtype(), out.dtype());
    // integers (decimals >= 0) are copied and complex parts assigned: NumPy's array assignment,
    // which drops leading length-1 axes of the source; the rest are ufunc calls with `out=`
    let assign = t.is_complex() || (t.is_integer() && d >= 0);
    let strip = |s: &[usize]| s[s.iter().take_while(|&&n| n == 1).count()..].to_vec();
    let lead = out.ndim().checked_sub(a.ndim());
    let shape_ok = if assign {
        strip(a.shape()) == strip(out.shape())
    } else {
        lead.is_some_and(|k| {
            out.shape()[k..] == *a.shape() && out.shape()[..k].iter().all(|&n| n == 1)
        })
    };
    if out.size() != a.size() || !shape_ok {
        return Err(Error::ShapeMismatch {
            op: "round".into(),
            lhs: a.shape().to_vec(),
            rhs: out.shape().to_vec(),
        });
    }
    // the dtype of the first step's result (the copy's source for integers)
    let first = match t {
        _ if assign => t,
        _ if t.is_float() => t,
        DType::Bool if d == 0 => DType::Float16,
        _ => DType::Float64,
    };
    let refuse = |msg: String| Error::TypeError {
        op: "round".into(),
        dtypes: vec![t, o],
        msg,
    };
    if t.is_complex() && !o.is_complex() {
        return Err(refuse(format!(
            "cannot write complex {t} into a real out ({o}): array does not have imaginary part to set"
        )));
    }
    if !cupy_core::promote::can_cast_same_kind(first, o) {
        return Err(refuse(format!(
            "cannot cast the {first} result to out's {o} with casting rule 'same_kind'"
        )));
    }
    let dims: Vec<isize> = out.shape().iter().map(|&n| n as isize).collect();
    let a = a.reshape(&dims)?;
    if assign {
        let r = if t.is_complex() { round_new(&a, d)? } else { a };
        out.copy_from(&r)?;
        return Ok(out.clone());
    }
    if d == 0 {
        return apply(&super::ufuncs::rint, &[Arg::Array(&a)], Some(out));
    }
    let a = if first == t { a } else { a.astype(first)? };
    let f = power_of_ten(d.unsigned_abs());
    if o == first {
        let u = if d >= 0 { &ROUND_UP } else { &ROUND_DOWN };
        let fs = Scalar::Float64(f).cast(first);
        return apply(u, &[Arg::Array(&a), Arg::Typed(fs)], Some(out));
    }
    // NumPy's three calls: the scaling into `out`, then rint and the unscaling in its dtype
    use super::ufuncs::{multiply, rint, true_divide};
    let (op1, op2) = if d >= 0 {
        (&multiply, &true_divide)
    } else {
        (&true_divide, &multiply)
    };
    let w = Arg::Weak(WeakScalar::Float(f));
    apply(op1, &[Arg::Array(&a), w.clone()], Some(out))?;
    apply(&rint, &[Arg::Array(out)], Some(out))?;
    apply(op2, &[Arg::Array(out), w], Some(out))
}

/// The options of [`nan_to_num_with`]: NumPy's keywords.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NanToNum {
    /// Return a new array (`false`: replace in place and return `x`).
    pub copy: bool,
    /// The value for NaN.
    pub nan: f64,
    /// The value for `+inf` (default: the dtype's largest finite value).
    pub posinf: Option<f64>,
    /// The value for `-inf` (default: the dtype's most negative finite value).
    pub neginf: Option<f64>,
}

impl Default for NanToNum {
    fn default() -> NanToNum {
        NanToNum {
            copy: true,
            nan: 0.0,
            posinf: None,
            neginf: None,
        }
    }
}

/// `numpy.nan_to_num(x)`: NaN to 0, infinities to the dtype's largest finite values (see
/// [`nan_to_num_with`]).
///
/// # Errors
/// As [`nan_to_num_with`].
pub fn nan_to_num(x: &Array) -> Result<Array> {
    nan_to_num_with(x, NanToNum::default())
}
routine!(nan_to_num, Math, probe: |t| ufunc_kernel(&NAN_TO_NUM, t).map(Need::Kernel), notes: "nan_to_num_with: copy, nan, posinf, neginf");

/// `numpy.nan_to_num(x, copy, nan, posinf, neginf)`: the replacement values are cast to `x`'s
/// (real) dtype first (`posinf=1e10` on float16 is `inf`, as NumPy); complex part by part;
/// integer and bool arrays are returned as they are (copied when `copy`).
///
/// # Errors
/// Device errors.
pub fn nan_to_num_with(x: &Array, options: NanToNum) -> Result<Array> {
    let t = x.dtype();
    if !t.is_inexact() {
        return if options.copy {
            x.copy()
        } else {
            Ok(x.clone())
        };
    }
    let rt = t.real_dtype();
    let max = FloatFormat::of(rt).max();
    let v = |f: f64| Arg::Typed(Scalar::Float64(f).cast(rt));
    let args = [
        Arg::Array(x),
        v(options.nan),
        v(options.posinf.unwrap_or(max)),
        v(options.neginf.unwrap_or(-max)),
    ];
    if options.copy {
        apply(&NAN_TO_NUM, &args, None)
    } else {
        apply_out(&NAN_TO_NUM, &args, x)
    }
}

impl Array {
    /// `a.clip(a_min, a_max)`: see [`clip`].
    ///
    /// # Errors
    /// As [`clip`].
    pub fn clip<'a>(
        &'a self,
        a_min: impl Into<Bound<'a>>,
        a_max: impl Into<Bound<'a>>,
    ) -> Result<Array> {
        clip(self, a_min, a_max)
    }

    /// `a.round()`: see [`round`].
    ///
    /// # Errors
    /// As [`round_with`].
    pub fn round(&self) -> Result<Array> {
        round(self)
    }

    /// `a.round(decimals)`: see [`round_with`].
    ///
    /// # Errors
    /// As [`round_with`].
    pub fn round_with(&self, options: impl Into<Round>) -> Result<Array> {
        round_with(self, options)
    }
}

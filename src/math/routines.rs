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

/// The options of [`round_with`]: NumPy's `decimals`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// Decimal places (negative: to tens, hundreds, ...).
    pub decimals: i32,
}

impl From<i32> for Round {
    fn from(decimals: i32) -> Round {
        Round { decimals }
    }
}

/// `numpy.round(a)`: to the nearest integer, half to even (see [`round_with`]).
///
/// # Errors
/// As [`round_with`].
pub fn round(a: &Array) -> Result<Array> {
    round_with(a, 0)
}
routine!(round as "cupy.round / around", Math, probe: |t| ufunc_kernel(&ROUND_UP, if t.is_integer() { DType::Float64 } else { t }).map(Need::Kernel), notes: "round_with(a, decimals): NumPy's scale, rint, unscale; integers with decimals < 0 in float64");

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

/// `numpy.round(a, decimals)` (`around`): NumPy's algorithm, `rint(a * 10**decimals) /
/// 10**decimals` with each step rounded to `a`'s dtype (divide first for negative
/// `decimals`), so `round(2.675, 2)` is 2.67 as there; complex part by part; integers are
/// copied for `decimals >= 0` and rounded in float64 then cast back otherwise; bool rounds
/// to float16 (NumPy's `rint`) for `decimals == 0`.
///
/// # Errors
/// [`Error::TypeError`] for bool with `decimals != 0` (NumPy cannot write the float steps
/// into bool); device errors.
pub fn round_with(a: &Array, options: impl Into<Round>) -> Result<Array> {
    let d = options.into().decimals;
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
        return round_with(&a.astype(DType::Float64)?, d)?.astype(t);
    }
    let f = Scalar::Float64(power_of_ten(d.unsigned_abs())).cast(t.real_dtype());
    let u = if d >= 0 { &ROUND_UP } else { &ROUND_DOWN };
    apply(u, &[Arg::Array(a), Arg::Typed(f)], None)
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

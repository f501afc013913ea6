//! The math library: IR compositions of the functions the IR has no node for (`sinh`,
//! `arcsinh`, `log1p`, `expm1`, `rint`, `hypot`, the complex `log10`/`sinh`/`cosh`, ...).
//!
//! One definition serves the ufuncs (`cupy::sinh`), `fuse` and user kernels
//! (`ElementwiseKernel` strings lowered by [`crate::kernel::lang`]), so every backend computes
//! them with the same algorithm. Each function takes its operands already converted to the
//! float (or complex) dtype it computes in and returns an expression of that dtype.
//!
//! A subexpression used more than once is passed through [`Bind::bind`] first: in a kernel
//! built from statements ([`Lets`]) it becomes a local evaluated once; in expression slots
//! ([`Inline`], e.g. a reduction's `map`) it is repeated.
//!
//! Algorithms (sources):
//! - `log1p`/`expm1`: Kahan's tricks (W. Kahan, "Mathematics written in sand", 1983; Goldberg,
//!   "What every computer scientist should know about floating-point arithmetic", thm. 4):
//!   `log1p(x) = x * log(u) / (u - 1)` with `u = 1 + x`, `expm1(x) = (u - 1) * x / log(u)` with
//!   `u = exp(x)`.
//! - `sinh` from `expm1` (`(e + e / (e + 1)) / 2`, `e = expm1(|x|)`, no cancellation), as fdlibm.
//! - `arcsinh`/`arccosh`/`arctanh` as fdlibm's `s_asinh.c`/`e_acosh.c`/`e_atanh.c` formulas
//!   (log1p forms, `log(2|x|)` past 2^28).
//! - `arcsin`/`arccos` as `atan2(x, sqrt((1 - x)(1 + x)))` (no cancellation near |x| = 1).
//! - `rint` (half to even) and `round` (half away from zero) exactly, from `floor`.
//! - `hypot` by scaling with the larger magnitude (`m * sqrt(1 + (n/m)^2)`), infinity beating NaN
//!   (C99 F.9.4.3).

use crate::dtype::DType;
use crate::kernel::ir::{BinaryOp as B, Expr, ExprKind, Stmt, UnaryOp as U};
use crate::scalar::Scalar;

mod arith;
mod bits;
mod cinv;
pub mod special;
pub use arith::{cbrt, complex_reciprocal, complex_sign, gcd, heaviside, lcm, modf, sign};
pub use bits::{frexp, ldexp, nextafter, spacing, FloatFormat};
pub use cinv::{
    complex_arccos, complex_arccosh, complex_arcsin, complex_arcsinh, complex_arctan,
    complex_arctanh, complex_exp2, complex_expm1, complex_log1p, complex_log2,
};

/// Where a composition puts a value it reads more than once.
pub trait Bind {
    /// Returns an expression that evaluates `e` (once, where the implementation can).
    fn bind(&mut self, e: Expr) -> Expr;
}

/// Binds nothing: every use repeats the expression (for single-expression IR slots).
#[derive(Clone, Copy, Debug, Default)]
pub struct Inline;

impl Bind for Inline {
    fn bind(&mut self, e: Expr) -> Expr {
        e
    }
}

/// Binds to placeholders and records how many nodes each bound value would have if inlined, so
/// a caller that must inline (a single-expression IR slot: a reduction's combine, a fold step)
/// can refuse a body whose inlined tree would explode instead of exhausting memory (`gcd`'s
/// unrolled Euclid steps reuse each value; inlined, the tree doubles per step).
#[derive(Clone, Debug, Default)]
pub struct Measure {
    sizes: Vec<u128>,
}

/// Where [`Measure`]'s placeholders start among `Var` numbers (far above any real local).
const MEASURE_BASE: usize = 1 << 40;

impl Bind for Measure {
    fn bind(&mut self, e: Expr) -> Expr {
        if is_leaf(&e) {
            return e;
        }
        let size = self.size(&e);
        self.sizes.push(size);
        Expr::var(MEASURE_BASE + self.sizes.len() - 1, e.ty)
    }
}

impl Measure {
    /// The node count of `e` with every placeholder counted as the value it stands for
    /// (saturating).
    pub fn size(&self, e: &Expr) -> u128 {
        let mut n: u128 = 0;
        e.visit(&mut |x| {
            let add = match x.kind {
                ExprKind::Var(v) if v >= MEASURE_BASE => self.sizes[v - MEASURE_BASE],
                _ => 1,
            };
            n = n.saturating_add(add);
        });
        n
    }
}

/// Binds to kernel locals: each bound value becomes a [`Stmt::Let`] of a new local, numbered
/// from `first_local`.
#[derive(Clone, Debug, Default)]
pub struct Lets {
    /// Number of the first local this binder creates.
    pub first_local: usize,
    /// The dtypes of the locals created, in order.
    pub locals: Vec<DType>,
    /// The `Let` statements, in evaluation order.
    pub stmts: Vec<Stmt>,
}

impl Bind for Lets {
    fn bind(&mut self, e: Expr) -> Expr {
        if is_leaf(&e) {
            return e;
        }
        let var = self.first_local + self.locals.len();
        let ty = e.ty;
        self.locals.push(ty);
        self.stmts.push(Stmt::Let { var, value: e });
        Expr::var(var, ty)
    }
}

impl Lets {
    /// Replaces every local this binder created in `e` by its value (for an expression slot).
    pub fn inline_into(&self, e: &Expr) -> Expr {
        let mut values: Vec<Expr> = Vec::with_capacity(self.stmts.len());
        for s in &self.stmts {
            if let Stmt::Let { value, .. } = s {
                let v = substitute(value, self.first_local, &values);
                values.push(v);
            }
        }
        substitute(e, self.first_local, &values)
    }
}

fn substitute(e: &Expr, first: usize, values: &[Expr]) -> Expr {
    e.rewrite(&mut |n| match n.kind {
        ExprKind::Var(k) if k >= first && k - first < values.len() => {
            Some(values[k - first].clone())
        }
        _ => None,
    })
}

/// True for nodes that cost nothing to repeat.
fn is_leaf(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Const(_)
            | ExprKind::Var(_)
            | ExprKind::Param(_)
            | ExprKind::Input(_)
            | ExprKind::Index
    )
}

fn bin(op: B, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn un(op: U, a: Expr) -> Expr {
    Expr::unary(op, a)
}
/// The constant `v` in float dtype `t`.
pub fn fconst(t: DType, v: f64) -> Expr {
    Expr::constant(Scalar::Float64(v).cast(t))
}

/// True where `x` has its sign bit set (also for `-0.0`; false for NaN of either sign, which
/// the IR cannot inspect).
pub fn signbit(x: Expr) -> Expr {
    let t = x.ty;
    bin(
        B::Or,
        bin(B::Lt, x.clone(), fconst(t, 0.0)),
        bin(
            B::And,
            bin(B::Eq, x.clone(), fconst(t, 0.0)),
            bin(B::Lt, bin(B::Div, fconst(t, 1.0), x), fconst(t, 0.0)),
        ),
    )
}

/// Rounds toward zero.
pub fn trunc(x: Expr) -> Expr {
    let t = x.ty;
    Expr::select(
        bin(B::Lt, x.clone(), fconst(t, 0.0)),
        un(U::Ceil, x.clone()),
        un(U::Floor, x),
    )
}

/// `log(1 + x)`, accurate near 0 (Kahan).
pub fn log1p(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let u = b.bind(bin(B::Add, fconst(t, 1.0), x.clone()));
    let r = bin(
        B::Div,
        bin(B::Mul, un(U::Log, u.clone()), x.clone()),
        bin(B::Sub, u.clone(), fconst(t, 1.0)),
    );
    let r = Expr::select(un(U::IsInf, u.clone()), u.clone(), r);
    let r = Expr::select(bin(B::Eq, u.clone(), fconst(t, 1.0)), x.clone(), r);
    // Kahan's correction matters only near 0; away from it (where `log(u) * x` could overflow)
    // `log(u)` has no cancellation.
    Expr::select(bin(B::Gt, un(U::Abs, x), fconst(t, 0.5)), un(U::Log, u), r)
}

/// `exp(x) - 1`, accurate near 0 (Kahan).
pub fn expm1(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let u = b.bind(un(U::Exp, x.clone()));
    let um1 = b.bind(bin(B::Sub, u.clone(), fconst(t, 1.0)));
    let r = bin(
        B::Div,
        bin(B::Mul, um1.clone(), x.clone()),
        un(U::Log, u.clone()),
    );
    let r = Expr::select(un(U::IsInf, u.clone()), u.clone(), r);
    let r = Expr::select(bin(B::Eq, um1.clone(), fconst(t, -1.0)), fconst(t, -1.0), r);
    let r = Expr::select(bin(B::Eq, u, fconst(t, 1.0)), x.clone(), r);
    // Away from 0 (where `(u - 1) * x` could overflow) `u - 1` has no cancellation.
    Expr::select(bin(B::Gt, un(U::Abs, x), fconst(t, 0.5)), um1, r)
}

/// `2^x`.
pub fn exp2(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Pow, fconst(t, 2.0), x)
}

/// `10^x`.
pub fn exp10(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Pow, fconst(t, 10.0), x)
}

/// `log2(x)` as `log(x) * log2(e)`.
pub fn log2(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Mul, un(U::Log, x), fconst(t, std::f64::consts::LOG2_E))
}

/// `log10(x)` as `log(x) * log10(e)`.
pub fn log10(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Mul, un(U::Log, x), fconst(t, std::f64::consts::LOG10_E))
}

/// `1 / sqrt(x)`.
pub fn rsqrt(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Div, fconst(t, 1.0), un(U::Sqrt, x))
}

/// Hyperbolic sine, from [`expm1`] (no cancellation for small or negative `x`).
pub fn sinh(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    // sinh|x| = (em1 + em1 / (em1 + 1)) / 2 with em1 = expm1(|x|) >= 0; the sign is x's.
    let ax = b.bind(un(U::Abs, x.clone()));
    let e = expm1(b, ax.clone());
    let e = b.bind(e);
    let r = bin(
        B::Mul,
        bin(
            B::Add,
            e.clone(),
            bin(B::Div, e.clone(), bin(B::Add, e.clone(), fconst(t, 1.0))),
        ),
        fconst(t, 0.5),
    );
    let r = Expr::select(un(U::IsInf, e.clone()), e, r);
    // Past |x| = 20, sinh|x| = e^|x| / 2 = (e^(|x|/2) / 2) e^(|x|/2): no overflow until the
    // result overflows (exp(|x|) alone would at 709.8 for float64, 88.7 for float32).
    let big = half_exp_squared(b, ax.clone());
    let r = b.bind(Expr::select(bin(B::Gt, ax, fconst(t, 20.0)), big, r));
    let sb = signbit(x);
    Expr::select(sb, un(U::Neg, r.clone()), r)
}

/// `e^a / 2` as `(e^(a/2) / 2) e^(a/2)`, finite wherever the result is.
fn half_exp_squared(b: &mut dyn Bind, a: Expr) -> Expr {
    let t = a.ty;
    let h = b.bind(un(U::Exp, bin(B::Mul, a, fconst(t, 0.5))));
    bin(B::Mul, bin(B::Mul, h.clone(), fconst(t, 0.5)), h)
}

/// Hyperbolic cosine, `(e^|x| + 1/e^|x|) / 2`, and `e^|x| / 2` past 20 (no early overflow).
pub fn cosh(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let ax = b.bind(un(U::Abs, x));
    let ex = b.bind(un(U::Exp, ax.clone()));
    let r = bin(
        B::Mul,
        bin(B::Add, ex.clone(), bin(B::Div, fconst(t, 1.0), ex)),
        fconst(t, 0.5),
    );
    // Past |x| = 20 the `1/e^|x|` term is below an ulp: `e^|x| / 2` without overflow.
    let big = half_exp_squared(b, ax.clone());
    Expr::select(bin(B::Gt, ax, fconst(t, 20.0)), big, r)
}

/// Inverse tangent, `atan2(x, 1)`.
pub fn arctan(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Atan2, x, fconst(t, 1.0))
}

/// Inverse sine, `atan2(x, sqrt((1 - x)(1 + x)))`.
pub fn arcsin(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let r = one_minus_square_root(x.clone());
    bin(B::Atan2, x, r)
}

/// Inverse cosine, `atan2(sqrt((1 - x)(1 + x)), x)`.
pub fn arccos(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let r = one_minus_square_root(x.clone());
    bin(B::Atan2, r, x)
}

fn one_minus_square_root(x: Expr) -> Expr {
    let t = x.ty;
    un(
        U::Sqrt,
        bin(
            B::Mul,
            bin(B::Sub, fconst(t, 1.0), x.clone()),
            bin(B::Add, fconst(t, 1.0), x),
        ),
    )
}

/// Inverse hyperbolic sine: `sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`, and
/// `log(|x|) + ln 2` past 2^28 (where `x^2` could overflow).
pub fn arcsinh(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let ax = b.bind(un(U::Abs, x.clone()));
    let x2 = b.bind(bin(B::Mul, ax.clone(), ax.clone()));
    let inner = bin(
        B::Add,
        ax.clone(),
        bin(
            B::Div,
            x2.clone(),
            bin(
                B::Add,
                fconst(t, 1.0),
                un(U::Sqrt, bin(B::Add, fconst(t, 1.0), x2)),
            ),
        ),
    );
    let inner = b.bind(inner);
    let l = log1p(b, inner);
    let big = bin(B::Gt, ax.clone(), fconst(t, 268435456.0));
    let l = Expr::select(
        big,
        bin(B::Add, un(U::Log, ax), fconst(t, std::f64::consts::LN_2)),
        l,
    );
    let l = b.bind(l);
    // The sign bit, so `arcsinh(-0.0)` is `-0.0`.
    Expr::select(signbit(x), un(U::Neg, l.clone()), l)
}

/// Inverse hyperbolic cosine: `log(x + sqrt((x - 1)(x + 1)))`, `log(x) + ln 2` past 2^28.
pub fn arccosh(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let r = un(
        U::Log,
        bin(
            B::Add,
            x.clone(),
            un(
                U::Sqrt,
                bin(
                    B::Mul,
                    bin(B::Sub, x.clone(), fconst(t, 1.0)),
                    bin(B::Add, x.clone(), fconst(t, 1.0)),
                ),
            ),
        ),
    );
    Expr::select(
        bin(B::Gt, x.clone(), fconst(t, 268435456.0)),
        bin(B::Add, un(U::Log, x), fconst(t, std::f64::consts::LN_2)),
        r,
    )
}

/// Inverse hyperbolic tangent: `0.5 * log1p(2x / (1 - x))`.
pub fn arctanh(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let q = bin(
        B::Div,
        bin(B::Mul, fconst(t, 2.0), x.clone()),
        bin(B::Sub, fconst(t, 1.0), x),
    );
    let q = b.bind(q);
    bin(B::Mul, fconst(t, 0.5), log1p(b, q))
}

/// Rounds half away from zero (C's `round`), exactly.
pub fn round_half_away(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let tr = b.bind(trunc(x.clone()));
    let d = un(U::Abs, bin(B::Sub, x.clone(), tr.clone()));
    let sign = Expr::select(
        bin(B::Lt, x, fconst(t, 0.0)),
        fconst(t, -1.0),
        fconst(t, 1.0),
    );
    Expr::select(
        bin(B::Ge, d, fconst(t, 0.5)),
        bin(B::Add, tr.clone(), sign),
        tr,
    )
}

/// Rounds half to even (`numpy.rint`, C's `rint` in the default rounding mode), exactly.
pub fn rint(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    // f = floor(x), d = x - f in [0, 1).
    let f = b.bind(un(U::Floor, x.clone()));
    let d = b.bind(bin(B::Sub, x.clone(), f.clone()));
    let f1 = bin(B::Add, f.clone(), fconst(t, 1.0));
    let odd = bin(
        B::Ne,
        bin(
            B::Sub,
            f.clone(),
            bin(
                B::Mul,
                fconst(t, 2.0),
                un(U::Floor, bin(B::Mul, f.clone(), fconst(t, 0.5))),
            ),
        ),
        fconst(t, 0.0),
    );
    let tie = Expr::select(odd, f1.clone(), f.clone());
    let r = b.bind(Expr::select(
        bin(B::Gt, d.clone(), fconst(t, 0.5)),
        f1,
        Expr::select(bin(B::Lt, d, fconst(t, 0.5)), f, tie),
    ));
    // A zero result keeps the sign of `x` (`rint(-0.5)` is `-0.0`): `x * 0` has it.
    Expr::select(
        bin(B::Eq, r.clone(), fconst(t, 0.0)),
        bin(B::Mul, x, fconst(t, 0.0)),
        r,
    )
}

/// C's `fmod` (`numpy.fmod` on floats): the remainder with the sign of `x`.
pub fn fmod(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    let x = b.bind(x);
    // IR float Mod is NumPy's remainder (computed from C fmod): on |x|, |y| the two agree
    // exactly; C's fmod takes the sign of x.
    let r = b.bind(bin(B::Mod, un(U::Abs, x.clone()), un(U::Abs, y)));
    Expr::select(signbit(x), un(U::Neg, r.clone()), r)
}

/// `sqrt(x^2 + y^2)` without overflow or underflow; infinity beats NaN.
pub fn hypot(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    let t = x.ty;
    let ax = b.bind(un(U::Abs, x));
    let ay = b.bind(un(U::Abs, y));
    let any_inf = bin(B::Or, un(U::IsInf, ax.clone()), un(U::IsInf, ay.clone()));
    let m = b.bind(bin(B::Max, ax.clone(), ay.clone()));
    let n = bin(B::Min, ax, ay);
    let q = b.bind(bin(B::Div, n, m.clone()));
    let r = bin(
        B::Mul,
        m.clone(),
        un(
            U::Sqrt,
            bin(B::Add, fconst(t, 1.0), bin(B::Mul, q.clone(), q)),
        ),
    );
    Expr::select(
        any_inf,
        fconst(t, f64::INFINITY),
        Expr::select(bin(B::Eq, m.clone(), fconst(t, 0.0)), m, r),
    )
}

/// `|x|` with the sign of `y` (C's `copysign`, for non-NaN `y`).
pub fn copysign(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    let y = b.bind(y);
    let ax = b.bind(un(U::Abs, x));
    Expr::select(signbit(y), un(U::Neg, ax.clone()), ax)
}

/// `log(exp(x) + exp(y))` without overflow, as NumPy's `npy_logaddexp`: equal arguments give
/// `x + ln 2` (so two infinities of one sign stay infinite), otherwise
/// `max + log1p(exp(-|x - y|))`; NaN propagates. With `base2`, `log2(2^x + 2^y)`
/// (`npy_logaddexp2`: `max + log2(1 + 2^-|x - y|)`).
pub fn logaddexp(b: &mut dyn Bind, x: Expr, y: Expr, base2: bool) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let y = b.bind(y);
    let d = b.bind(bin(B::Sub, x.clone(), y.clone()));
    let m = bin(B::Max, x.clone(), y.clone());
    let e = un(U::Neg, un(U::Abs, d.clone()));
    let tail = if base2 {
        // log2(1 + 2^e) = log1p(2^e) / ln 2.
        let p = b.bind(exp2(e));
        bin(B::Mul, log1p(b, p), fconst(t, std::f64::consts::LOG2_E))
    } else {
        let p = b.bind(un(U::Exp, e));
        log1p(b, p)
    };
    let same = bin(
        B::Add,
        x.clone(),
        fconst(t, if base2 { 1.0 } else { std::f64::consts::LN_2 }),
    );
    Expr::select(
        bin(B::Eq, x, y),
        same,
        Expr::select(un(U::IsNan, d.clone()), d, bin(B::Add, m, tail)),
    )
}

/// Degrees to radians, `x * (pi / 180)`.
pub fn deg2rad(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Mul, x, fconst(t, std::f64::consts::PI / 180.0))
}

/// Radians to degrees, `x * (180 / pi)`.
pub fn rad2deg(x: Expr) -> Expr {
    let t = x.ty;
    bin(B::Mul, x, fconst(t, 180.0 / std::f64::consts::PI))
}

/// Complex `log10(z) = log(z) * log10(e)`, part by part.
pub fn complex_log10(b: &mut dyn Bind, z: Expr) -> Expr {
    let l = b.bind(un(U::Log, z));
    let rt = l.ty.real_dtype();
    let k = fconst(rt, std::f64::consts::LOG10_E);
    Expr::complex(
        bin(B::Mul, un(U::Real, l.clone()), k.clone()),
        bin(B::Mul, un(U::Imag, l), k),
    )
}

/// Complex `sinh(x + iy) = sinh x cos y + i cosh x sin y`.
pub fn complex_sinh(b: &mut dyn Bind, z: Expr) -> Expr {
    complex_hyperbolic(b, z, true)
}

/// Complex `cosh(x + iy) = cosh x cos y + i sinh x sin y`.
pub fn complex_cosh(b: &mut dyn Bind, z: Expr) -> Expr {
    complex_hyperbolic(b, z, false)
}

fn complex_hyperbolic(b: &mut dyn Bind, z: Expr, is_sinh: bool) -> Expr {
    let z = b.bind(z);
    let x = b.bind(un(U::Real, z.clone()));
    let y = b.bind(un(U::Imag, z));
    let sh = sinh(b, x.clone());
    let sh = b.bind(sh);
    let ch = cosh(b, x);
    let ch = b.bind(ch);
    let (p, q) = if is_sinh { (sh, ch) } else { (ch, sh) };
    Expr::complex(
        bin(B::Mul, p, un(U::Cos, y.clone())),
        bin(B::Mul, q, un(U::Sin, y)),
    )
}

/// The argument (phase angle) of a complex `z`: `atan2(imag, real)`.
pub fn complex_angle(b: &mut dyn Bind, z: Expr) -> Expr {
    let z = b.bind(z);
    bin(B::Atan2, un(U::Imag, z.clone()), un(U::Real, z))
}

/// The squared magnitude of a complex `z` (C++'s `std::norm`): `re^2 + im^2`.
pub fn complex_norm(b: &mut dyn Bind, z: Expr) -> Expr {
    let z = b.bind(z);
    let re = b.bind(un(U::Real, z.clone()));
    let im = b.bind(un(U::Imag, z));
    bin(
        B::Add,
        bin(B::Mul, re.clone(), re),
        bin(B::Mul, im.clone(), im),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lets_bind_once_and_inline_back() {
        let x = Expr::input(0, DType::Float64);
        let mut lets = Lets {
            first_local: 2,
            ..Lets::default()
        };
        let e = sinh(&mut lets, x.clone());
        assert!(!lets.stmts.is_empty());
        assert_eq!(lets.locals.len(), lets.stmts.len());
        // Locals are numbered from first_local.
        assert!(matches!(lets.stmts[0], Stmt::Let { var: 2, .. }));
        let inlined = lets.inline_into(&e);
        let mut vars = 0;
        inlined.visit(&mut |n| {
            if matches!(n.kind, ExprKind::Var(_)) {
                vars += 1;
            }
        });
        assert_eq!(vars, 0);
        // The same composition without binding equals the inlined one.
        assert_eq!(inlined, sinh(&mut Inline, x));
    }
}

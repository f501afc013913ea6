//! Modified Bessel functions of orders 0 and 1 (`i0`, `i0e`, `i1`, `i1e`, `k0`, `k0e`, `k1`,
//! `k1e`), as SciPy's `xsf` library computes them with Cephes (`xsf/cephes/i0.h`, `i1.h`,
//! `k0.h`, `k1.h`; Cephes' `i0.c`, `i1.c`, `k0.c`, `k1.c`), in the version SciPy 1.17 carries:
//! the same Chebyshev series ([`chbevl`]), the same branch points (8 for `I`, 2 for `K`) and
//! special values. Each lane computes both sides of a branch and `select`s.
//!
//! `I`: on `[0, 8]` a series for `exp(-x) I(x)` (over `x` for order 1) in `x/2 - 2`; above, one
//! for `exp(-x) sqrt(x) I(x)` in `32/x - 2`. `K`: on `(0, 2]` a series in `x^2 - 2` for
//! `K0(x) + log(x/2) I0(x)` (`x (K1(x) - log(x/2) I1(x))`); above, one for
//! `exp(x) sqrt(x) K(x)` in `8/x - 2`. The scaled forms (`*e`) leave out the exponential.
//!
//! Written for float64 (the coefficients are Cephes' double ones); SciPy's float32 loops
//! compute in float64 and round, and so do the ufuncs declared from these.

// The coefficients as Cephes prints them (they round to the same doubles).
#![allow(clippy::excessive_precision)]

use super::super::{bin, fconst, un, Bind};
use super::{add, chbevl, div, mul, sub};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

fn lt(a: &Expr, v: f64) -> Expr {
    bin(B::Lt, a.clone(), fconst(a.ty, v))
}
fn le(a: &Expr, v: f64) -> Expr {
    bin(B::Le, a.clone(), fconst(a.ty, v))
}

const I0_A: [f64; 30] = [
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
];
const I0_B: [f64; 25] = [
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
];
const I1_A: [f64; 29] = [
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
];
const I1_B: [f64; 25] = [
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
];
const K0_A: [f64; 10] = [
    1.37446543561352307156e-16,
    4.25981614279661018399e-14,
    1.03496952576338420167e-11,
    1.90451637722020886025e-9,
    2.53479107902614945675e-7,
    2.28621210311945178607e-5,
    1.26461541144692592338e-3,
    3.59799365153615016266e-2,
    3.44289899924628486886e-1,
    -5.35327393233902768720e-1,
];
const K0_B: [f64; 25] = [
    5.30043377268626276149e-18,
    -1.64758043015242134646e-17,
    5.21039150503902756861e-17,
    -1.67823109680541210385e-16,
    5.51205597852431940784e-16,
    -1.84859337734377901440e-15,
    6.34007647740507060557e-15,
    -2.22751332699166985548e-14,
    8.03289077536357521100e-14,
    -2.98009692317273043925e-13,
    1.14034058820847496303e-12,
    -4.51459788337394416547e-12,
    1.85594911495471785253e-11,
    -7.95748924447710747776e-11,
    3.57739728140030116597e-10,
    -1.69753450938905987466e-9,
    8.57403401741422608519e-9,
    -4.66048989768794782956e-8,
    2.76681363944501510342e-7,
    -1.83175552271911948767e-6,
    1.39498137188764993662e-5,
    -1.28495495816278026384e-4,
    1.56988388573005337491e-3,
    -3.14481013119645005427e-2,
    2.44030308206595545468e0,
];
const K1_A: [f64; 11] = [
    -7.02386347938628759343e-18,
    -2.42744985051936593393e-15,
    -6.66690169419932900609e-13,
    -1.41148839263352776110e-10,
    -2.21338763073472585583e-8,
    -2.43340614156596823496e-6,
    -1.73028895751305206302e-4,
    -6.97572385963986435018e-3,
    -1.22611180822657148235e-1,
    -3.53155960776544875667e-1,
    1.52530022733894777053e0,
];
const K1_B: [f64; 25] = [
    -5.75674448366501715755e-18,
    1.79405087314755922667e-17,
    -5.68946255844285935196e-17,
    1.83809354436663880070e-16,
    -6.05704724837331885336e-16,
    2.03870316562433424052e-15,
    -7.01983709041831346144e-15,
    2.47715442448130437068e-14,
    -8.97670518232499435011e-14,
    3.34841966607842919884e-13,
    -1.28917396095102890680e-12,
    5.13963967348173025100e-12,
    -2.12996783842756842877e-11,
    9.21831518760500529508e-11,
    -4.19035475934189648750e-10,
    2.01504975519703286596e-9,
    -1.03457624656780970260e-8,
    5.74108412545004946722e-8,
    -3.50196060308781257119e-7,
    2.40648494783721712015e-6,
    -1.93619797416608296024e-5,
    1.95215518471351631108e-4,
    -2.85781685962277938680e-3,
    1.03923736576817238437e-1,
    2.72062619048444266945e0,
];

/// The Chebyshev series `chbevl(y, coef)` at `y = s x + c` (bound).
fn series(b: &mut dyn Bind, y: Expr, coef: &[f64]) -> Expr {
    let y = b.bind(y);
    chbevl(b, &y, coef)
}

/// `exp(-x) I0(x)` on `[0, 8]` (Cephes' `chbevl(x/2 - 2, A, 30)`).
fn i0e_small(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let y = sub(div(x.clone(), fconst(t, 2.0)), fconst(t, 2.0));
    series(b, y, &I0_A)
}

/// `exp(-x) sqrt(x) I0(x)` above 8 (Cephes' `chbevl(32/x - 2, B, 25)`).
fn i0e_large(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let y = sub(div(fconst(t, 32.0), x.clone()), fconst(t, 2.0));
    series(b, y, &I0_B)
}

/// `exp(-x) I1(x) / x` on `[0, 8]` (Cephes' `chbevl(x/2 - 2, A, 29)`).
fn i1e_small(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let y = sub(div(x.clone(), fconst(t, 2.0)), fconst(t, 2.0));
    series(b, y, &I1_A)
}

/// `exp(-x) sqrt(x) I1(x)` above 8 (Cephes' `chbevl(32/x - 2, B, 25)`).
fn i1e_large(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let y = sub(div(fconst(t, 32.0), x.clone()), fconst(t, 2.0));
    series(b, y, &I1_B)
}

/// The modified Bessel function of the first kind of order 0 (`scipy.special.i0`, Cephes'
/// `i0.c` as in SciPy's `xsf`): even; `exp(x)` times a Chebyshev series on `[0, 8]` and
/// `exp(x) / sqrt(x)` times another above. `i0(0) = 1`; `inf` from `|x| > 709.78` (where
/// `exp` overflows), NaN at `+-inf` (SciPy 1.17's Cephes forms `inf / inf`) and for NaN.
pub fn i0(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(un(U::Abs, x));
    let e = b.bind(un(U::Exp, x.clone()));
    let small = mul(e.clone(), i0e_small(b, &x));
    let large = div(mul(e, i0e_large(b, &x)), un(U::Sqrt, x.clone()));
    Expr::select(le(&x, 8.0), small, large)
}

/// The exponentially scaled modified Bessel function of order 0, `exp(-|x|) I0(x)`
/// (`scipy.special.i0e`, Cephes' `i0e` of `i0.c` as in SciPy's `xsf`): even; 1 at 0, 0 at
/// `+-inf`, NaN for NaN.
pub fn i0e(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(un(U::Abs, x));
    let small = i0e_small(b, &x);
    let large = div(i0e_large(b, &x), un(U::Sqrt, x.clone()));
    Expr::select(le(&x, 8.0), small, large)
}

/// The modified Bessel function of the first kind of order 1 (`scipy.special.i1`, Cephes'
/// `i1.c` as in SciPy's `xsf`): odd (`-i1(|x|)` for `x < 0`; `+0` at `-0`); `x exp(x)` times a
/// Chebyshev series on `[0, 8]`, `exp(x) / sqrt(x)` times another above. `+-inf` from
/// `|x| > 709.78`, NaN at `+-inf` (SciPy 1.17's Cephes forms `inf / inf`) and for NaN.
pub fn i1(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let z = b.bind(un(U::Abs, x.clone()));
    let e = b.bind(un(U::Exp, z.clone()));
    let small = mul(mul(i1e_small(b, &z), z.clone()), e.clone());
    let large = div(mul(e, i1e_large(b, &z)), un(U::Sqrt, z.clone()));
    let r = b.bind(Expr::select(le(&z, 8.0), small, large));
    Expr::select(lt(&x, 0.0), un(U::Neg, r.clone()), r)
}

/// The exponentially scaled modified Bessel function of order 1, `exp(-|x|) I1(x)`
/// (`scipy.special.i1e`, Cephes' `i1e` of `i1.c` as in SciPy's `xsf`): odd (`+0` at `-0`);
/// `+-0` at `+-inf`, NaN for NaN.
pub fn i1e(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let z = b.bind(un(U::Abs, x.clone()));
    let small = mul(i1e_small(b, &z), z.clone());
    let large = div(i1e_large(b, &z), un(U::Sqrt, z.clone()));
    let r = b.bind(Expr::select(le(&z, 8.0), small, large));
    Expr::select(lt(&x, 0.0), un(U::Neg, r.clone()), r)
}

/// Cephes' `K`-function domain: `inf` at `+-0`, NaN below 0, `r` elsewhere (NaN stays NaN).
fn k_domain(x: &Expr, r: Expr) -> Expr {
    let t = x.ty;
    Expr::select(
        bin(B::Eq, x.clone(), fconst(t, 0.0)),
        fconst(t, f64::INFINITY),
        Expr::select(lt(x, 0.0), fconst(t, f64::NAN), r),
    )
}

/// `K0(x)` on `(0, 2]`: `chbevl(x^2 - 2, A, 10) - log(x/2) I0(x)` (Cephes' `i0` there is its
/// `[0, 8]` branch).
fn k0_small(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let s = series(b, sub(mul(x.clone(), x.clone()), fconst(t, 2.0)), &K0_A);
    let i0 = mul(un(U::Exp, x.clone()), i0e_small(b, x));
    sub(s, mul(un(U::Log, mul(fconst(t, 0.5), x.clone())), i0))
}

/// `exp(x) sqrt(x) K0(x)` above 2 (Cephes' `chbevl(8/x - 2, B, 25)`).
fn k0e_large(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    series(
        b,
        sub(div(fconst(t, 8.0), x.clone()), fconst(t, 2.0)),
        &K0_B,
    )
}

/// The modified Bessel function of the second kind of order 0 (`scipy.special.k0`, Cephes'
/// `k0.c` as in SciPy's `xsf`): a Chebyshev series minus `log(x/2) I0(x)` on `(0, 2]`,
/// `exp(-x) / sqrt(x)` times another above. `inf` at `+-0`, NaN for `x < 0` and NaN, 0 at
/// `inf`.
pub fn k0(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let small = k0_small(b, &x);
    let large = div(
        mul(un(U::Exp, un(U::Neg, x.clone())), k0e_large(b, &x)),
        un(U::Sqrt, x.clone()),
    );
    k_domain(&x, Expr::select(le(&x, 2.0), small, large))
}

/// The exponentially scaled modified Bessel function of order 0, `exp(x) K0(x)`
/// (`scipy.special.k0e`, Cephes' `k0e` of `k0.c` as in SciPy's `xsf`): `inf` at `+-0`, NaN
/// for `x < 0` and NaN, 0 at `inf`.
pub fn k0e(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let small = mul(k0_small(b, &x), un(U::Exp, x.clone()));
    let large = div(k0e_large(b, &x), un(U::Sqrt, x.clone()));
    k_domain(&x, Expr::select(le(&x, 2.0), small, large))
}

/// `K1(x)` on `(0, 2]`: `log(x/2) I1(x) + chbevl(x^2 - 2, A, 11) / x` (Cephes' `i1` there is
/// its `[0, 8]` branch).
fn k1_small(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let i1 = mul(mul(i1e_small(b, x), x.clone()), un(U::Exp, x.clone()));
    let s = series(b, sub(mul(x.clone(), x.clone()), fconst(t, 2.0)), &K1_A);
    add(
        mul(un(U::Log, mul(fconst(t, 0.5), x.clone())), i1),
        div(s, x.clone()),
    )
}

/// `exp(x) sqrt(x) K1(x)` above 2 (Cephes' `chbevl(8/x - 2, B, 25)`).
fn k1e_large(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    series(
        b,
        sub(div(fconst(t, 8.0), x.clone()), fconst(t, 2.0)),
        &K1_B,
    )
}

/// The modified Bessel function of the second kind of order 1 (`scipy.special.k1`, Cephes'
/// `k1.c` as in SciPy's `xsf`): `log(x/2) I1(x)` plus a Chebyshev series over `x` on `(0, 2]`,
/// `exp(-x) / sqrt(x)` times another above. `inf` at `+-0`, NaN for `x < 0` and NaN, 0 at
/// `inf`.
pub fn k1(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let small = k1_small(b, &x);
    let large = div(
        mul(un(U::Exp, un(U::Neg, x.clone())), k1e_large(b, &x)),
        un(U::Sqrt, x.clone()),
    );
    k_domain(&x, Expr::select(le(&x, 2.0), small, large))
}

/// The exponentially scaled modified Bessel function of order 1, `exp(x) K1(x)`
/// (`scipy.special.k1e`, Cephes' `k1e` of `k1.c` as in SciPy's `xsf`): `inf` at `+-0`, NaN
/// for `x < 0` and NaN, 0 at `inf`.
pub fn k1e(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let small = mul(k1_small(b, &x), un(U::Exp, x.clone()));
    let large = div(k1e_large(b, &x), un(U::Sqrt, x.clone()));
    k_domain(&x, Expr::select(le(&x, 2.0), small, large))
}

//! SciPy's convenience and information-theory functions (`expit`, `logit`, `xlogy`, `entr`,
//! `huber`, ...), one declaration each; the formulas are in
//! [`cupy_core::kernel::math::special`].

use super::via_double;
use cupy_core::kernel::math::special as sp;

special_ufuncs! {
    family: "special: convenience";
    /// The logistic sigmoid `1 / (1 + exp(-x))` (`cupyx.scipy.special.expit`).
    expit(x): SpecialDoubleFirst => |_, _| sp::expit(x);
    /// The logit `log(x / (1 - x))`, the inverse of `expit` (`cupyx.scipy.special.logit`);
    /// `-inf` at 0, `inf` at 1, NaN outside `[0, 1]`.
    logit(x): SpecialDoubleFirst => |m, _| sp::logit(m, x);
    /// `log(expit(x))` without overflow (`cupyx.scipy.special.log_expit`).
    log_expit(x): SpecialDoubleFirst => |m, _| sp::log_expit(m, x);
    /// `x * log(y)`, 0 where `x == 0` unless `y` is NaN (`cupyx.scipy.special.xlogy`).
    xlogy(x, y): SpecialDoubleFirst => |m, _| sp::xlogy(m, x, y);
    /// `x * log1p(y)`, 0 where `x == 0` unless `y` is NaN (`cupyx.scipy.special.xlog1py`).
    xlog1py(x, y): SpecialDoubleFirst => |m, _| sp::xlog1py(m, x, y);
    /// The elementwise entropy `-x log(x)` (`cupyx.scipy.special.entr`): 0 at 0, `-inf`
    /// below.
    entr(x): SpecialFloatFirst => |m, _| sp::entr(m, x);
    /// The relative entropy term `x log(x / y)` (`cupyx.scipy.special.rel_entr`): 0 where
    /// `x == 0 <= y`, `inf` where `x < 0` or `y <= 0 < x`.
    rel_entr(x, y): SpecialFloatFirst => |m, _| sp::rel_entr(m, x, y, false);
    /// The Kullback-Leibler term `x log(x / y) - x + y` (`cupyx.scipy.special.kl_div`): `y`
    /// where `x == 0 <= y`, `inf` where `x < 0` or `y <= 0 < x`.
    /// float32 is computed in float64 and rounded, as SciPy does: the terms cancel where
    /// `x` is near `y`.
    kl_div(x, y): SpecialFloatFirst => |m, c| via_double(c, |t| sp::kl_div(m, x.cast(t), y.cast(t)));
    /// Huber's loss (`cupyx.scipy.special.huber(delta, r)`): `r^2 / 2` for `|r| <= delta`,
    /// else `delta (|r| - delta / 2)`; `inf` for `delta < 0`.
    huber(delta, r): SpecialFloatFirst => |m, _| sp::huber(m, delta, r);
    /// The pseudo-Huber loss `delta^2 (sqrt(1 + (r / delta)^2) - 1)`
    /// (`cupyx.scipy.special.pseudo_huber(delta, r)`); `inf` for `delta < 0`.
    pseudo_huber(delta, r): SpecialFloatFirst => |m, _| sp::pseudo_huber(m, delta, r);
}

"""cupyx.scipy.special goldens (SciPy 1.17.1): the convenience and information-theory ufuncs
(expit, logit, log_expit, xlogy, xlog1py, entr, rel_entr, kl_div, huber, pseudo_huber) over
their special points, every input dtype class (SciPy's f->f / d->d loops: bool and small
integers give float32, int32/int64 float64, float16 float32, complex raises TypeError), views
and broadcasting; logsumexp (axis, b=, keepdims, return_sign), softmax and log_softmax."""

from .common import *  # noqa: F401,F403
import scipy.special as sc


def gen_special():
    g = Group("special")

    def case(cid, op, ops, fn, **kw):
        record_pieces(g, cid, op, ops, fn, **kw)

    pts = np.array([-np.inf, -800.0, -100.0, -20.0, -3.5, -1.0, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.1, 0.25,
                    0.3, 0.31, 0.5, 0.64, 0.66, 0.7, 0.9, 0.999, 1.0, 1.5, 20.0, 100.0, 800.0, np.inf, np.nan])
    unit = np.concatenate([np.linspace(0.0, 1.0, 41), [1e-30, 1e-8, 1 - 1e-8, 0.29999, 0.65001]])
    ints = np.array([-3, -1, 0, 1, 2, 5, 100])
    unary = {"expit": sc.expit, "logit": sc.logit, "log_expit": sc.log_expit, "entr": sc.entr}
    for name, fn in unary.items():
        for dt in ("float32", "float64"):
            case(f"{name}/{dt}", name, [operand(g, pts.astype(dt))], fn)
            if name == "logit":
                case(f"{name}/{dt}/unit", name, [operand(g, unit.astype(dt))], fn)
        for dt in ("bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16"):
            base = (ints % 2 == 0) if dt == "bool" else ints.astype(dt) if dt != "float16" else (pts[4:20].astype(dt))
            case(f"{name}/{dt}", name, [operand(g, base)], fn)
        case(f"{name}/complex64", name, [operand(g, np.array([1 + 1j, 0.5], np.complex64))], fn)
        m = np.linspace(-4, 4, 24).reshape(4, 6)
        case(f"{name}/float64/T", name, [operand(g, m, [T()])], fn)
        case(f"{name}/float32/empty", name, [operand(g, np.zeros((0, 3), np.float32))], fn)
        case(f"{name}/float64/0d", name, [operand(g, np.array(0.75))], fn)

    xs = np.array([0.0, -0.0, 1e-300, 0.5, 1.0, 2.0, -1.0, np.inf, np.nan, 3.0])
    ys = np.array([0.0, 0.5, 2.0, -1.0, np.inf, np.nan, 1e-300, -0.5, 1e5, 0.999])
    binary = {"xlogy": sc.xlogy, "xlog1py": sc.xlog1py, "rel_entr": sc.rel_entr, "kl_div": sc.kl_div,
              "huber": sc.huber, "pseudo_huber": sc.pseudo_huber}
    for name, fn in binary.items():
        for dt in ("float32", "float64"):
            # every pair of special points: x as a column, y as a row
            case(f"{name}/{dt}/grid", name,
                 [operand(g, xs.astype(dt).reshape(-1, 1)), operand(g, ys.astype(dt))], fn)
        case(f"{name}/int32_float32", name, [operand(g, np.array([0, 1, 2, -3], np.int32)),
                                             operand(g, np.array([0.5, 0.0, 3.0, 1.5], np.float32))], fn)
        case(f"{name}/int8_int8", name, [operand(g, np.array([0, 1, 2, -3], np.int8)),
                                         operand(g, np.array([1, 0, 3, 2], np.int8))], fn)
        case(f"{name}/weak", name, [operand(g, np.linspace(-2, 3, 11).astype(np.float32)), weak(0.75)], fn)
        case(f"{name}/T", name, [operand(g, np.linspace(-3, 3, 12).reshape(3, 4), [T()]),
                                 operand(g, np.linspace(0.1, 2, 3))], fn)

    # ---- the error function family ----
    ef_pts = np.array([-np.inf, -1e300, -40.0, -38.0, -27.0, -26.0, -10.0, -6.0, -3.0, -1.5, -1.0, -0.999, -0.7,
                       -0.5, -1e-5, -1e-300, -0.0, 0.0, 5e-324, 1e-300, 1e-8, 0.1, 0.5, 0.7071, 0.99, 1.0, 1.01,
                       2.0, 5.0, 7.99, 8.0, 8.01, 20.0, 26.5, 27.0, 30.0, 38.0, 40.0, 49.9, 50.0, 60.0, 1e4, 1e8,
                       1e300, np.inf, np.nan])
    dense = np.linspace(-10.0, 10.0, 801)
    wide = np.concatenate([np.linspace(-40.0, 40.0, 401), -np.geomspace(40, 1e10, 40), np.geomspace(40, 1e10, 40)])
    prob = np.concatenate([[0.0, 5e-324, 1e-300, 1e-100, 1e-20, 1e-14, 1.2e-14, 1e-10, 1e-5, 0.01, 0.1, 0.1353, 0.1354,
                            0.25, 0.5 - 1e-12, 0.5, 0.5 + 1e-12, 0.75, 0.8646, 0.8647, 0.9, 0.99, 1 - 1e-10,
                            1 - 2**-53, 1.0, -0.0, -1e-10, 1.0 + 1e-15, 2.0, -np.inf, np.inf, np.nan],
                           np.linspace(0.0, 1.0, 401)])
    unitpm = np.concatenate([[-1.0, 1.0, -0.0, 0.0, 1e-300, -1e-300, 1e-10, -1e-7, 1e-6, 0.4999, 0.5, -0.5, 0.9,
                              -0.999999, 1 - 1e-12, 1 - 2**-53, -(1 - 2**-53), 1.0 + 1e-15, -1.5, 2.0, np.inf,
                              -np.inf, np.nan], np.linspace(-1.0, 1.0, 401)])
    two = np.concatenate([[0.0, 5e-324, 1e-300, 1e-20, 1e-10, 0.5, 1.0, 1.5, 2 - 1e-10, 2.0, -1e-10, 2.5, -0.0,
                           np.inf, -np.inf, np.nan], np.linspace(0.0, 2.0, 401)])
    efam = {"erf": (sc.erf, [ef_pts, dense]), "erfc": (sc.erfc, [ef_pts, dense, wide]),
            "erfcx": (sc.erfcx, [ef_pts, dense, wide]), "ndtr": (sc.ndtr, [ef_pts, dense, wide]),
            "log_ndtr": (sc.log_ndtr, [ef_pts, dense, wide]), "erfinv": (sc.erfinv, [unitpm]),
            "erfcinv": (sc.erfcinv, [two]), "ndtri": (sc.ndtri, [prob])}
    for name, (fn, sets) in efam.items():
        for dt in ("float32", "float64"):
            for k, s in enumerate(sets):
                case(f"{name}/{dt}/{k}", name, [operand(g, s.astype(dt))], fn)
        small = np.array([0.0, 0.25, 0.5, 1.0, 0.75, 0.125]) if name in ("erfinv", "ndtri", "erfcinv") else \
            np.array([-3, -1, 0, 1, 2, 5])
        for dt in ("bool", "int8", "uint8", "int32", "int64", "float16"):
            base = (np.arange(6) % 2 == 0) if dt == "bool" else small.astype(dt)
            case(f"{name}/{dt}", name, [operand(g, base)], fn)
        case(f"{name}/float64/T", name, [operand(g, np.linspace(-0.9, 0.9, 24).reshape(4, 6), [T()])], fn)
        if name in ("erfinv", "erfcinv", "ndtri"):  # no complex loops: TypeError
            case(f"{name}/complex128", name, [operand(g, np.array([0.5 + 1j], np.complex128))], fn)

    # ---- logsumexp, softmax, log_softmax ----
    rng = np.random.default_rng(7)
    a = rng.normal(size=(4, 5)) * 30
    a32 = a.astype(np.float32)
    big = np.array([[1000.0, 1000.0, -np.inf], [-np.inf, -np.inf, -np.inf], [1.0, np.inf, 2.0]])
    for op, fn in (("softmax", sc.softmax), ("log_softmax", sc.log_softmax)):
        for axis in (None, 0, 1, -1):
            case(f"{op}/float64/axis{axis}", op, [operand(g, a)], lambda x, f=fn, ax=axis: f(x, axis=ax), axis=axis)
            case(f"{op}/float32/axis{axis}", op, [operand(g, a32)], lambda x, f=fn, ax=axis: f(x, axis=ax), axis=axis)
        case(f"{op}/float64/T", op, [operand(g, a, [T()])], lambda x, f=fn: f(x, axis=1), axis=1)
        case(f"{op}/int32", op, [operand(g, np.array([[1, 2, 3], [4, 5, 7]], np.int32))],
             lambda x, f=fn: f(x, axis=1), axis=1)
        case(f"{op}/big", op, [operand(g, big[:1])], lambda x, f=fn: f(x, axis=1), axis=1)
        # softmax subtracts an infinite maximum as it is (NaN); log_softmax shifts by 0 there
        case(f"{op}/inf", op, [operand(g, big[2:])], lambda x, f=fn: f(x, axis=1), axis=1)
        # an empty array whose reduced axis is not empty: an empty result
        case(f"{op}/empty", op, [operand(g, np.zeros((0, 3)))], lambda x, f=fn: f(x, axis=1), axis=1)
    for axis in (None, 0, 1, -1, (0, 1)):
        tag = "01" if isinstance(axis, tuple) else axis
        for keepdims in (False, True):
            kw = dict(axis=axis, keepdims=keepdims)
            case(f"logsumexp/float64/axis{tag}/k{int(keepdims)}", "logsumexp", [operand(g, a)],
                 lambda x, kw=kw: sc.logsumexp(x, **kw), **kw)
        case(f"logsumexp/float32/axis{tag}", "logsumexp", [operand(g, a32)],
             lambda x, ax=axis: sc.logsumexp(x, axis=ax), axis=axis, keepdims=False)
    case("logsumexp/big", "logsumexp", [operand(g, big)], lambda x: sc.logsumexp(x, axis=1), axis=1, keepdims=False)
    case("logsumexp/int64", "logsumexp", [operand(g, np.array([1, 2, 3, 1000], np.int64))],
         lambda x: sc.logsumexp(x), axis=None, keepdims=False)
    bw = np.array([1.0, -2.0, 0.5, 3.0, -1.0])
    case("logsumexp/b", "logsumexp", [operand(g, a), operand(g, np.abs(bw))],
         lambda x, b: sc.logsumexp(x, axis=1, b=b), axis=1, keepdims=False)
    # SciPy takes a as -inf where b is 0 (a large zero-weighted term neither shifts nor adds),
    # broadcasts a against b (b may add axes), promotes a and b to one float dtype first,
    # counts a 0-d a as 1-d and sums an empty a to 0 (-inf).
    bz = np.array([[1000.0, 1.0, 2.0], [np.inf, 1.0, 0.0], [-np.inf, 3.0, -1.0]])
    case("logsumexp/b_zero", "logsumexp", [operand(g, bz), operand(g, np.array([[0.0, 1, 1], [0, 1, 2], [1, 1, 0]]))],
         lambda x, b: sc.logsumexp(x, axis=1, b=b), axis=1, keepdims=False)
    case("logsumexp/b_broadcast", "logsumexp", [operand(g, a[:2, :3]), operand(g, np.linspace(0.5, 2, 24).reshape(4, 2, 3))],
         lambda x, b: sc.logsumexp(x, axis=1, b=b), axis=1, keepdims=False)
    case("logsumexp/float32_b_float64", "logsumexp", [operand(g, a32), operand(g, np.abs(bw))],
         lambda x, b: sc.logsumexp(x, axis=1, b=b), axis=1, keepdims=False)
    case("logsumexp/0d_axis0", "logsumexp", [operand(g, np.array(3.0))], lambda x: sc.logsumexp(x, axis=0),
         axis=0, keepdims=False)
    # (SciPy 1.17.1 raises IndexError for axis=None on an empty array of 2 or more axes, its
    # `shape[axis] = 1` indexing a 1-d shape array with a tuple; 1-d it gives -inf.)
    case("logsumexp/empty/1d", "logsumexp", [operand(g, np.zeros(0))], lambda x: sc.logsumexp(x),
         axis=None, keepdims=False)
    for axis in (0, 1):
        case(f"logsumexp/empty/axis{axis}", "logsumexp", [operand(g, np.zeros((0, 3)))],
             lambda x, ax=axis: sc.logsumexp(x, axis=ax), axis=axis, keepdims=False)
    for piece in (0, 1):
        c = {"id": f"logsumexp/empty_sign/{piece}", "op": "logsumexp", "inputs": [operand(g, np.zeros((0, 3), np.float32))[0]],
             "kwargs": dict(axis=0, keepdims=True, return_sign=True, piece=piece)}
        r = np.asarray(sc.logsumexp(np.zeros((0, 3), np.float32), axis=0, keepdims=True, return_sign=True)[piece])
        c.update(expected=g.arr(r), dtype=r.dtype.name, shape=list(r.shape))
        g.case(**c)
    for piece in (0, 1):
        c = {"id": f"logsumexp/b_sign/{piece}", "op": "logsumexp", "inputs": [operand(g, a)[0], operand(g, bw)[0]],
             "kwargs": dict(axis=1, keepdims=False, return_sign=True, piece=piece)}
        r = np.asarray(sc.logsumexp(a, axis=1, b=bw, return_sign=True)[piece])
        c.update(expected=g.arr(r), dtype=r.dtype.name, shape=list(r.shape))
        g.case(**c)
    # an empty reduced axis: softmax and log_softmax raise (NumPy's maximum has no identity)
    e0 = np.zeros((0, 3))
    case("softmax/empty_axis0", "softmax", [operand(g, e0)], lambda x: sc.softmax(x, axis=0), axis=0)
    case("log_softmax/empty_axis0", "log_softmax", [operand(g, e0)], lambda x: sc.log_softmax(x, axis=0), axis=0)
    case("logsumexp/empty/rows", "logsumexp", [operand(g, e0)], lambda x: sc.logsumexp(x, axis=1, keepdims=True),
         axis=1, keepdims=True)
    gen_gamma_cases(g, case)
    gen_bessel_cases(g, case)
    gen_basic_beta_cases(g, case)
    g.write()


def gen_gamma_cases(g, case):
    """The gamma family (gamma, rgamma, gammaln, loggamma, digamma, psi; all d->d first):
    poles, +-0, +-inf, NaN, tiny and huge arguments, the Cephes branch edges (13, 33, 34, 1000),
    negative non-integers, a dense grid, every input dtype class and a view."""
    pts = np.array([-np.inf, -1e300, -200.5, -180.5, -171.3, -50.0, -40.25, -34.5, -34.0, -33.7, -33.0, -20.5,
                    -10.0, -3.0, -2.5, -2.0, -1.5, -1.0, -0.75, -0.6, -0.5, -0.3, -1e-5, -1e-10, -1e-300, -0.0,
                    0.0, 1e-300, 1e-10, 1e-5, 0.3, 0.5, 1.0, 1.0 + 1e-8, 1.4616321449683623, 1.5, 2.0,
                    2.0 - 1e-8, 2.5, 3.0, 3.3, 5.0, 7.5, 9.99, 10.0, 10.5, 12.999, 13.0, 13.5, 20.0, 32.9, 33.0,
                    33.1, 34.5, 50.0, 100.5, 143.0, 143.5, 170.5, 171.6, 171.7, 999.0, 1000.0, 1e5, 1e9,
                    1e17, 1e20, 1e300, np.inf, np.nan])
    grid = np.concatenate([np.linspace(-35, 35, 281), np.linspace(0.01, 3, 60), np.linspace(35, 180, 30)])
    ints = np.array([-3, -1, 0, 1, 2, 5, 100])
    fns = {"gamma": sc.gamma, "rgamma": sc.rgamma, "gammaln": sc.gammaln, "loggamma": sc.loggamma,
           "digamma": sc.digamma, "psi": sc.psi}
    for name, fn in fns.items():
        for dt in ("float32", "float64"):
            case(f"{name}/{dt}", name, [operand(g, pts.astype(dt))], fn)
            case(f"{name}/{dt}/grid", name, [operand(g, grid.astype(dt))], fn)
        for dt in ("bool", "int8", "int32", "int64", "uint8", "float16"):
            base = (ints % 2 == 0) if dt == "bool" else ints.astype(dt) if dt != "float16" else pts[12:50].astype(dt)
            case(f"{name}/{dt}", name, [operand(g, base)], fn)
        if name == "gammaln":  # the others have complex loops in SciPy (not here yet)
            case(f"{name}/complex64", name, [operand(g, np.array([1 + 1j, 0.5], np.complex64))], fn)
        m = np.linspace(-4.3, 4.3, 24).reshape(4, 6)
        case(f"{name}/float64/T", name, [operand(g, m, [T()])], fn)


def gen_bessel_cases(g, case):
    """Bessel functions of orders 0 and 1 (j0, j1, y0, y1, i0, i0e, i1, i1e, k0, k0e, k1, k1e;
    d->d first, the float32 loop computed in float64): +-0, tiny, both sides of every Cephes
    branch point (1e-5 for j0, 2 for K, 5 for J/Y, 8 for I) and of exp's overflow (709.78),
    large and huge arguments, +-inf, NaN, negatives, grids (dense on (0, 12]), points at and
    near the first zeros of J and Y, every input dtype class, a view and a complex input (no
    complex loop: TypeError)."""
    pos = np.array([0.0, 5e-324, 1e-300, 1e-20, 1e-10, 1.49e-8, 9.99e-6, 1e-5, 1.0001e-5, 1e-3, 0.1, 0.5, 1.0,
                    1.5, 2.0 - 1e-12, 2.0, 2.0 + 1e-12, 2.0001, 2.5, 3.0, 4.0, 4.9999, 5.0, 5.0001, 6.0, 7.5,
                    7.9999, 8.0, 8.0001, 9.0, 9.9999, 10.0, 10.0001, 12.5, 20.0, 30.0, 50.0, 100.0, 500.0, 700.0,
                    709.0, 709.7, 709.8, 710.0, 713.0, 745.0, 800.0, 1e3, 1e4, 1e5, 1e8, 1e10, 1e15, 1e20, 1e100,
                    1e300, np.inf])
    pts = np.concatenate([pos, -pos[1:], [-0.0, np.nan]])
    grid = np.concatenate([np.linspace(-20.0, 20.0, 401), np.geomspace(20.0, 1e6, 60),
                           -np.geomspace(20.0, 1e6, 60)])
    # (0, 12] densely: the K series' cancellation against log(x/2) I(x) below 2, the J/Y
    # branch at 5 and the I branch at 8, several zeros of J and Y
    dense = np.concatenate([np.linspace(0.004, 2.0, 250), np.linspace(2.02, 12.0, 350)])
    # the first ten zeros of j0, j1, y0, y1, their neighbours and points 1e-12 .. 1e-2 off
    z = np.concatenate([sc.jn_zeros(0, 10), sc.jn_zeros(1, 10), sc.yn_zeros(0, 10), sc.yn_zeros(1, 10)])
    near = np.concatenate([z + d for d in (0.0, 1e-12, -1e-9, 1e-6, -1e-4, 1e-2)]
                          + [np.nextafter(z, np.inf), np.nextafter(z, -np.inf)])
    ints = np.array([-3, -1, 0, 1, 2, 5, 100])
    names = ("j0", "j1", "y0", "y1", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e")
    for name in names:
        fn = getattr(sc, name)
        for dt in ("float32", "float64"):
            case(f"{name}/{dt}", name, [operand(g, pts.astype(dt))], fn)
            case(f"{name}/{dt}/grid", name, [operand(g, grid.astype(dt))], fn)
            case(f"{name}/{dt}/zeros", name, [operand(g, near.astype(dt))], fn)
        case(f"{name}/float64/dense", name, [operand(g, dense)], fn)
        for dt in ("bool", "int8", "int32", "int64", "uint8", "float16"):
            base = (ints % 2 == 0) if dt == "bool" else ints.astype(dt) if dt != "float16" else pts[:40].astype(dt)
            case(f"{name}/{dt}", name, [operand(g, base)], fn)
        case(f"{name}/complex64", name, [operand(g, np.array([1 + 1j, 0.5], np.complex64))], fn)
        m = np.linspace(-9.3, 9.3, 24).reshape(4, 6)
        case(f"{name}/float64/T", name, [operand(g, m, [T()])], fn)
def gen_basic_beta_cases(g, case):
    """The basic functions (cbrt exp2 exp10 radian cosdg sindg tandg cotdg cosm1 round, d->d first
    but round; boxcox boxcox1p inv_boxcox inv_boxcox1p, f->f first) and the beta family (beta
    betaln, d->d first): both sides of every Cephes branch point, +-0, +-inf, NaN, subnormals,
    the poles and the negative-integer rules of beta, its asymptotic and log-gamma forms, every
    input dtype class, a view and broadcasting."""
    rng = np.random.default_rng(15)
    tiny = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, -1e-300, np.inf, -np.inf, np.nan]
    ints = np.array([-3, -1, 0, 1, 2, 5, 100])
    pow2 = np.ldexp(1.0, np.arange(-12, 13))
    signed_logs = np.concatenate([np.geomspace(1e-300, 1e300, 121), -np.geomspace(1e-300, 1e300, 121)])
    sets = {
        "cbrt": [np.array(tiny + [8.0, -27.0, 0.001, 1e300, -1e300, 1.7976931348623157e308, 3.0, 0.5, 0.75]),
                 np.concatenate([pow2, -pow2 * 1.5, pow2 * 0.7]), signed_logs],
        "exp2": [np.array(tiny + [0.5, -0.5, 0.49999999999999994, 1.5, 1023.0, 1023.5, 1023.99, 1024.0, 1024.0000000001,
                                  1025.0, -1021.5, -1022.0, -1022.5, -1023.7, -1024.0, -1024.0000000001, -1074.0,
                                  1e-20, -1e-20, 3.0, 10.25]),
                 np.linspace(-1030.0, 1030.0, 413), np.linspace(-5.0, 5.0, 101)],
        "exp10": [np.array(tiny + [0.5, -0.5, 1.0, 2.0, -1.0, 0.15051499783199057, 308.0, 308.25, 308.2547155599167,
                                   308.25471555991675, 308.26, -307.0, -307.65, -308.0, -308.2547155599167,
                                   -308.25471555991675, -308.26, -323.3, -400.0, 1e-20, -1e-20]),
                  np.linspace(-310.0, 310.0, 417), np.linspace(-3.0, 3.0, 121)],
        "cosm1": [np.array(tiny + [0.7853981633974483, 0.7853981633974484, 0.7853981633974482, -0.7853981633974483,
                                   -0.7853981633974484, 1e-8, -1e-8, 1e-4, 0.5, 1.0, -2.0, 3.14159, 10.0, 1e10, 1e300]),
                  np.linspace(-4.0, 4.0, 401), np.geomspace(1e-12, 0.78, 60)],
        "round": [np.array(tiny + [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.49999999999999994, -0.49999999999999994,
                                   0.3, -0.3, 0.7, -0.7, 4503599627370495.5, -4503599627370495.5, 4503599627370497.0,
                                   1e300, -1e300, 2.5000000000000004, 1e15 + 0.5]),
                  np.linspace(-10.0, 10.0, 161)],
    }
    deg = np.concatenate([np.arange(-1080.0, 1081.0, 45.0), np.arange(-720.0, 721.0, 30.0), [-0.0]])
    deg_edges = np.array(tiny + [22.5, -22.5, 1e-10, 89.99999999999999, 90.00000000000001, 44.99999999999999,
                                 45.00000000000001, 1e14, -1e14, 1.0000000000000002e14, -1.0000000000000002e14, 1e15,
                                 123456789.123, 1e13 + 45.0, 1e13 + 90.0, 1e13 + 0.5, 359.9999999999999])
    deg_grid = np.concatenate([np.linspace(-720.0, 720.0, 577), rng.uniform(-1e6, 1e6, 100)])
    for name in ("sindg", "cosdg", "tandg", "cotdg"):
        sets[name] = [deg, deg_edges, deg_grid]
    unary = {n: getattr(sc, n) for n in sets}
    for name, fn in unary.items():
        for dt in ("float32", "float64"):
            for k, s in enumerate(sets[name]):
                case(f"{name}/{dt}/{k}", name, [operand(g, s.astype(dt))], fn)
        for dt in ("bool", "int8", "int16", "uint8", "int32", "int64", "float16"):
            base = (ints % 2 == 0) if dt == "bool" else ints.astype(dt) if dt != "float16" else \
                np.array([-3.5, -2.5, -0.5, 0.0, 0.5, 1.5, 2.25, 45.0, 90.0, 300.0]).astype(dt)
            case(f"{name}/{dt}", name, [operand(g, base)], fn)
        case(f"{name}/float64/T", name, [operand(g, np.linspace(-4.3, 4.3, 24).reshape(4, 6), [T()])], fn)
        case(f"{name}/complex128", name, [operand(g, np.array([0.5 + 1j], np.complex128))], fn)

    # radian(d, m, s): every triple of the points, d a column block, m a column, s a row
    d = np.array([-360.0, -1.0, -0.0, 0.0, 1.0, 30.0, 90.0, 180.0, 1e5, 1e300, np.inf, np.nan]).reshape(-1, 1, 1)
    m = np.array([0.0, 30.0, -15.0, 59.99, np.inf]).reshape(-1, 1)
    s = np.array([0.0, 30.5, -1.0, 59.9, -np.inf, 1e-300])
    for dt in ("float32", "float64"):
        case(f"radian/{dt}/grid", "radian", [operand(g, d.astype(dt)), operand(g, m.astype(dt)), operand(g, s.astype(dt))],
             sc.radian)
    case("radian/int8", "radian", [operand(g, np.array([1, -2, 90], np.int8)), operand(g, np.array([0, 30, 15], np.int8)),
                                   operand(g, np.array([1, 2, 3], np.int8))], sc.radian)
    case("radian/int32_float32", "radian", [operand(g, np.array([1, -2, 90], np.int32)),
                                            operand(g, np.array([0.5, 30, 15], np.float32)), weak(2.5)], sc.radian)
    case("radian/weak", "radian", [operand(g, np.linspace(-180, 180, 7).astype(np.float32)), weak(30), weak(0.5)], sc.radian)
    case("radian/T", "radian", [operand(g, np.linspace(-90, 90, 12).reshape(3, 4), [T()]),
                                operand(g, np.linspace(0, 59, 3)), operand(g, np.array(30.0))], sc.radian)

    # boxcox family: every pair of the points, x a column and lmbda a row
    lm = np.array([0.0, -0.0, 1e-20, -1e-20, 1e-19, -1e-19, 2e-19, 1e-10, 0.25, 0.5, 1.0, 2.0, -1.0, -2.0, -0.5,
                   100.0, 1000.0, -1000.0, 1e273, 1e274, -1e274, np.inf, -np.inf, np.nan])
    bc = {"boxcox": np.array([0.0, -0.0, 1e-300, 1e-10, 0.5, 1.0, 2.0, 10.0, 1e10, 1e300, np.inf, -1.0, np.nan]),
          "boxcox1p": np.array([-1.0, -0.5, -1e-300, -0.0, 0.0, 5e-324, 1e-290, 1e-289, 1e-200, 1e-10, 0.5, 1.0, 1e10,
                                1e300, np.inf, -2.0, np.nan]),
          "inv_boxcox": np.array([-1e300, -10.0, -1.0, -0.5, -0.0, 0.0, 1e-160, 0.5, 1.0, 2.0, 10.0, 700.0, 1e300,
                                  np.inf, -np.inf, np.nan]),
          "inv_boxcox1p": np.array([-1e300, -10.0, -1.0, -0.5, -0.0, 0.0, 1e-300, 1e-160, 1e-150, 0.5, 1.0, 2.0, 10.0,
                                    700.0, 1e300, np.inf, -np.inf, np.nan])}
    for name, xs in bc.items():
        fn = getattr(sc, name)
        scale = boxcox_scale(name)
        case(f"{name}/float32/grid", name, [operand(g, xs.astype(np.float32).reshape(-1, 1)),
                                            operand(g, lm.astype(np.float32))], fn)
        xr = rng.uniform(0.01, 20.0, 200) if name in ("boxcox", "boxcox1p") else rng.uniform(-0.9, 5.0, 200)
        lr = rng.uniform(-3.0, 3.0, 200)
        scaled_case(g, f"{name}/float64/grid", name, [xs.reshape(-1, 1), lm], fn, scale, 1)
        scaled_case(g, f"{name}/float64/random", name, [xr, lr], fn, scale, 1)
        case(f"{name}/float32/random", name, [operand(g, xr.astype(np.float32)),
                                              operand(g, rng.uniform(-3.0, 3.0, 200).astype(np.float32))], fn)
        case(f"{name}/int32_float32", name, [operand(g, np.array([0, 1, 2, 3], np.int32)),
                                             operand(g, np.array([0.5, 0.0, 3.0, -1.5], np.float32))], fn)
        case(f"{name}/int8_int8", name, [operand(g, np.array([0, 1, 2, 3], np.int8)),
                                         operand(g, np.array([1, 0, 3, -2], np.int8))], fn)
        case(f"{name}/float16", name, [operand(g, np.array([0.5, 1.0, 2.0, 3.0], np.float16)),
                                       operand(g, np.array([0.5, 0.0, 2.0, -1.0], np.float16))], fn)
        case(f"{name}/weak", name, [operand(g, np.linspace(0.1, 3, 11).astype(np.float32)), weak(0.75)], fn)
        case(f"{name}/weak0", name, [operand(g, np.linspace(0.1, 3, 11)), weak(0)], fn)
        case(f"{name}/T", name, [operand(g, np.linspace(0.2, 3, 12).reshape(3, 4), [T()]),
                                 operand(g, np.linspace(-1, 2, 3))], fn)

    # beta, betaln: every pair of the points (poles, the int range of Cephes' negative-integer
    # rule, the MAXGAM and asymptotic switches), random pairs on both sides of zero
    bp = np.array([-np.inf, -1e300, -2.0**31 - 1, -2.0**31, -2.0**31 + 1, -2.0**31 + 2, -1e6 - 0.5, -200.5, -171.5,
                   -100.5, -35.5, -5.0, -3.0, -2.5, -2.0, -1.0, -0.5, -1e-10, -0.0, 0.0, 1e-300, 1e-10, 0.5, 1.0, 1.5,
                   2.0, 3.0, 5.0, 10.5, 100.0, 170.0, 171.5, 200.0, 1e6, 1e6 + 1, 1e7, 1e20, 1e300, 2.0**31, np.inf,
                   np.nan])
    pos_a = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 300))
    pos_b = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 300))
    neg_a = rng.uniform(-60.0, 60.0, 300)
    neg_b = rng.uniform(-60.0, 60.0, 300)
    # the asymptotic form and its neighbours: a > 1e6 max(|b|, 1)
    asy_a = np.array([1e7, 1e7, 1e7, 1e7, 2e6, 2e6, 2e6, 1e6 + 1, 1.5e6, 1e9, 1e12, 1e30, 1e7, 3e6])
    asy_b = np.array([0.5, -0.5, 3.0, 9.99, 1.999, 2.001, -1.999, 1.0, 1.0, 200.5, -30.25, 5.0, -170.5, 2.9])
    for name in ("beta", "betaln"):
        fn = getattr(sc, name)
        pairs = {"grid": (bp.reshape(-1, 1), bp), "pos": (pos_a, pos_b), "signed": (neg_a, neg_b),
                 "asymp": (asy_a, asy_b), "asymp_swapped": (asy_b, asy_a)}
        for k, (a, b) in pairs.items():
            case(f"{name}/float32/{k}", name, [operand(g, a.astype(np.float32)), operand(g, b.astype(np.float32))], fn)
            scaled_case(g, f"{name}/float64/{k}", name, [a, b], fn, beta_scale(name == "betaln"), 4)
        case(f"{name}/int_grid", name, [operand(g, np.arange(-6, 7, dtype=np.int64).reshape(-1, 1)),
                                        operand(g, np.arange(-6, 7, dtype=np.int64))], fn)
        case(f"{name}/int8_int8", name, [operand(g, np.array([1, 2, -3, 5], np.int8)),
                                         operand(g, np.array([1, 3, 2, -2], np.int8))], fn)
        case(f"{name}/int32_float32", name, [operand(g, np.array([1, 2, -3, 5], np.int32)),
                                             operand(g, np.array([0.5, 3.0, 2.0, -1.5], np.float32))], fn)
        case(f"{name}/float16", name, [operand(g, np.array([0.5, 1.0, 2.0, 3.0], np.float16)),
                                       operand(g, np.array([0.5, 4.0, 2.0, -1.5], np.float16))], fn)
        case(f"{name}/weak", name, [operand(g, np.linspace(0.1, 30, 11).astype(np.float32)), weak(2.5)], fn)
        case(f"{name}/T", name, [operand(g, np.linspace(0.2, 30, 12).reshape(3, 4), [T()]),
                                 operand(g, np.linspace(0.5, 2, 3))], fn)
        case(f"{name}/complex128", name, [operand(g, np.array([0.5 + 1j])), operand(g, np.array([1.0]))], fn)


def scaled_case(g, cid, op, arrays, fn, scale, n):
    """A float64 case whose tolerance is scaled per element (tests/common's Tol::Scaled: |d| <=
    2 n eps scale + 1 ulp): `scale(arrays, result)` is the size of the terms the result is
    computed from where they cancel (or amplify a rounding), so a one-ulp difference in a
    library function (log, lgam) is allowed where it moves the result by more."""
    arrays = [np.asarray(a, np.float64) for a in arrays]
    with np.errstate(all="ignore"):
        r = np.asarray(fn(*arrays))
        sc_ = np.asarray(scale(arrays, r), np.float64)
    sc_ = np.where(np.isfinite(sc_), sc_, 0.0)
    g.case(id=cid, op=op, inputs=[operand(g, a)[0] for a in arrays], kwargs={}, expected=g.arr(r),
           dtype=r.dtype.name, shape=list(r.shape), scale=g.arr(np.broadcast_to(sc_, r.shape)), n=n)


def beta_scale(log):
    """beta/betaln: the general case's arguments (Cephes' negative-integer rule mapped in); in the
    log-gamma form (an argument or the sum past MAXGAM) |lgam a| + |lgam b| + |lgam(a + b)|, in
    the asymptotic form |lgam b| + |b log a|, else 1; betaln's error is absolute (at least
    |betaln|), beta's relative."""
    def scale(arrays, r):
        a, b = np.broadcast_arrays(*arrays)
        a_np = (a <= 0) & (np.floor(a) == a)
        b_np = ~a_np & (b <= 0) & (np.floor(b) == b)
        a, b = np.where(a_np, 1 - a - b, np.where(b_np, 1 - b - a, a)), np.where(a_np, b, np.where(b_np, a, b))
        sw = np.abs(a) < np.abs(b)
        a, b = np.where(sw, b, a), np.where(sw, a, b)
        lg = lambda x: np.abs(sc.gammaln(x))
        maxgam = 171.624376956302725
        big = (np.abs(a + b) > maxgam) | (np.abs(a) > maxgam) | (np.abs(b) > maxgam)
        asym = (np.abs(a) > 1e6 * np.abs(b)) & (a > 1e6)
        s = np.where(asym, lg(b) + np.abs(b * np.log(np.abs(a))), np.where(big, lg(a) + lg(b) + lg(a + b), 1.0))
        s = np.where(np.isfinite(s), np.maximum(s, 1.0), 1.0)
        return np.maximum(s, np.abs(r)) if log else np.abs(r) * s
    return scale


def boxcox_scale(name):
    """The Box-Cox transforms: boxcox = expm1(l lg) / l with lg = log(x) (log1p(x)), whose
    relative error moves the result by |lg| exp(l lg) = |lg| |1 + l y| times it (at least |y|);
    inv_boxcox = exp(a), inv_boxcox1p = expm1(a), a = log1p(l x) / l, whose relative error moves
    the result by |a| exp(a) times it (|y| max(1, |log y|); for expm1 (1 + y) |log1p y|)."""
    def scale(arrays, y):
        x, lm = np.broadcast_arrays(*arrays)
        if name in ("boxcox", "boxcox1p"):
            lg = np.log(x) if name == "boxcox" else np.log1p(x)
            return np.maximum(np.abs(y), np.abs(lg) * np.abs(1 + lm * y))
        if name == "inv_boxcox":
            return np.abs(y) * np.maximum(1.0, np.abs(np.log(y)))
        return np.maximum(np.abs(y), (1 + y) * np.abs(np.log1p(y)))
    return scale

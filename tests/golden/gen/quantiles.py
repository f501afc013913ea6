"""Goldens of the sorted-row order statistics: median, quantile, percentile and their nan*
forms, with NumPy's 13 methods, scalar and array q (the result dtype follows q), axis tuples,
keepdims, NaN (propagating, and ignored by the nan* forms, all-NaN slices), empty axes (NaN, or
IndexError for quantile), q out of range (ValueError), complex input (median only); weights=
(method inverted_cdf) of quantile and percentile, with its refusals.

kwargs: axis (null, int or list), keepdims, method, q (a number: NumPy's Python scalar; or a
list: an array of q), weights and out (the index of their operand, when given)."""

import warnings

from .common import *  # noqa: F401,F403

NAN = float("nan")
DTS = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64"]
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "nearest", "midpoint"]


def vals(dt, shape, seed, nan_frac=0.0):
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if d.kind == "b":
        v = rng.random(n) < 0.5
    elif d.kind == "i":
        v = rng.integers(-50, 50, n)
    elif d.kind == "u":
        v = rng.integers(0, 100, n)
    elif d.kind == "c":
        v = np.round(rng.uniform(-2, 2, n), 1) + 1j * np.round(rng.uniform(-2, 2, n), 1)
    else:
        v = np.round(rng.uniform(-4, 4, n), 3)
        v[::11] = v[0]  # ties
    v = v.astype(dt)
    if nan_frac and d.kind in "fc":
        v[rng.random(n) < nan_frac] = NAN
    return v.reshape(shape)


def gen_quantiles():
    g = Group("quantiles")

    def case(cid, op, a, axis=None, keepdims=False, q=None, method=None, steps=()):
        ia, av = operand(g, a, steps)
        f = getattr(np, op)
        kwargs = {"axis": list(axis) if isinstance(axis, tuple) else axis, "keepdims": keepdims}
        call = {"axis": axis, "keepdims": keepdims}
        args = [av]
        if q is not None:
            kwargs["q"] = q
            args.append(q)
        if method is not None:
            kwargs["method"] = method
            call["method"] = method

        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return f(*args, **call)

        record(g, cid, op, [ia], run, kwargs)

    for dt in DTS:
        a3 = vals(dt, (3, 4, 5), 1)
        odd = vals(dt, (5, 7), 2)
        for op in ["median", "nanmedian"]:
            for ax in [None, 0, 1, -1, (0, 2)]:
                case(f"{op}/{dt}/3d/axis{ax}", op, a3, ax)
            case(f"{op}/{dt}/3d/axis(0,2)/keepdims", op, a3, (0, 2), True)
            case(f"{op}/{dt}/3d/axisNone/keepdims", op, a3, None, True)
            for ax in [None, 0, 1]:
                case(f"{op}/{dt}/odd/axis{ax}", op, odd, ax)
            case(f"{op}/{dt}/odd/T/axis1", op, odd, 1, steps=[T()])
            case(f"{op}/{dt}/0d", op, vals(dt, (), 3), None)
            e = np.zeros((0, 3), dt)
            for ax in [None, 0, 1]:
                case(f"{op}/{dt}/empty/axis{ax}", op, e, ax)
        for op, scale in [("quantile", 1.0), ("percentile", 100.0), ("nanquantile", 1.0),
                          ("nanpercentile", 100.0)]:
            for m in METHODS:
                if dt == "bool" and m not in ("lower", "higher", "nearest", "inverted_cdf", "closest_observation"):
                    case(f"{op}/{dt}/{m}/bool", op, a3, None, q=0.3 * scale, method=m)
                    continue
                for q in [0.0, 0.25, 0.5, 0.7, 1.0]:
                    case(f"{op}/{dt}/{m}/q{q}/axis1", op, odd, 1, q=q * scale, method=m)
                case(f"{op}/{dt}/{m}/qlist/axisNone", op, a3, None,
                     q=[x * scale for x in [0.0, 0.1, 0.33, 0.5, 0.9, 1.0]], method=m)
                if not op.startswith("nan"):  # NumPy's nan* misplace a 2-d q's axes with axis=
                    case(f"{op}/{dt}/{m}/q2d/axis(0,2)", op, a3, (0, 2),
                         q=[[0.2 * scale, 0.4 * scale], [0.6 * scale, 0.95 * scale]], method=m)
            case(f"{op}/{dt}/linear/keepdims", op, a3, 1, True, q=0.4 * scale)
            case(f"{op}/{dt}/linear/qlist/keepdims", op, a3, (0, 2), True, q=[0.4 * scale, 0.6 * scale])
            case(f"{op}/{dt}/T/axis0", op, odd, 0, q=0.55 * scale, steps=[T()])
            case(f"{op}/{dt}/out_of_range", op, a3, None, q=1.5 * scale)
            case(f"{op}/{dt}/negative", op, a3, None, q=[-0.1 * scale, 0.5])
            e = np.zeros((0, 3), dt)
            for ax in [None, 0, 1]:
                case(f"{op}/{dt}/empty/axis{ax}", op, e, ax, q=0.5 * scale)
                case(f"{op}/{dt}/empty/qlist/axis{ax}", op, e, ax, q=[0.5 * scale, 0.2 * scale])
    for dt in ["float16", "float32", "float64"]:
        v = vals(dt, (4, 9), 5, 0.2)
        v[1, :] = NAN
        v[2, :] = vals(dt, (9,), 6)
        v[3, 0] = NAN
        for op, q in [("median", None), ("nanmedian", None), ("quantile", 0.3),
                      ("nanquantile", 0.3), ("percentile", [10.0, 55.0]),
                      ("nanpercentile", [10.0, 55.0])]:
            for ax in [None, 0, 1]:
                case(f"{op}/{dt}/nan/axis{ax}", op, v, ax, q=q)
                if q is not None:
                    for m in ["lower", "nearest", "midpoint", "hazen"]:
                        case(f"{op}/{dt}/nan/{m}/axis{ax}", op, v, ax, q=q, method=m)
        case(f"nanmedian/{dt}/allnan", "nanmedian", np.full((3,), NAN, dt), None)
        inf = np.array([1.0, np.inf, -np.inf, 2.0, np.inf], dt)
        for op, q in [("median", None), ("quantile", 0.9), ("quantile", 1.0), ("quantile", 0.0)]:
            case(f"{op}/{dt}/inf/q{q}", op, inf, None, q=q)
    for dt in ["complex64", "complex128"]:
        z = vals(dt, (4, 5), 7)
        for ax in [None, 0, 1]:
            case(f"median/{dt}/axis{ax}", "median", z, ax)
        case(f"quantile/{dt}/refused", "quantile", z, None, q=0.5)
        case(f"percentile/{dt}/refused", "percentile", z, None, q=50.0)
    # a long row: pairs of neighbours far apart
    case("quantile/float64/long", "quantile", vals("float64", (2049,), 8), None,
         q=[0.001, 0.5, 0.999])
    case("percentile/float32/long", "percentile", vals("float32", (3, 1000), 9), 1, q=99.9)
    weighted(g)
    g.write()


def weights_of(kind, shape, seed):
    """Weights with ties and zeros: small integers (exact sums), dyadic floats, or bools."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 4, shape)
    if kind == "float64":
        return w * 0.25 + (rng.random(shape) < 0.3) * 0.5
    if kind == "bool":
        return w > 0
    return w.astype(kind)


def merged(f, a, q, w, axis, keepdims):
    """f(a, q, axis=axis, weights=w, keepdims=keepdims) for several axes as NumPy 2.3 computes it
    (numpy#30069, fixed by numpy#30070: NumPy 2.2 merges the reduced axes of `a` but not of the
    weights, pairing the values with the wrong weights): the weights laid out as
    `_weights_are_valid` lays them, both arrays' kept axes moved first and the reduced ones
    merged, then the quantiles along that one axis."""
    w = np.asarray(w)
    axes = [ax % a.ndim for ax in axis]
    if w.shape != a.shape:
        w = w.transpose(np.argsort(axes)).reshape([s if i in axes else 1 for i, s in enumerate(a.shape)])
    w = np.broadcast_to(w, a.shape)
    keep = [i for i in range(a.ndim) if i not in axes]
    perm = keep + sorted(axes)
    kept = [a.shape[i] for i in keep]
    am = a.transpose(perm).reshape(kept + [-1])
    wm = w.transpose(perm).reshape(kept + [-1])
    r = f(am, q, axis=-1, method="inverted_cdf", weights=wm)
    if keepdims:
        r = r.reshape(np.shape(q) + tuple(1 if i in axes else s for i, s in enumerate(a.shape)))
    return r


def weighted(g):
    """quantile/percentile with weights= (NumPy 2.0: method='inverted_cdf' only)."""

    def wcase(cid, op, a, w, q, axis=None, keepdims=False, method="inverted_cdf", out=None):
        ia, av = operand(g, a)
        iw, wv = operand(g, np.asarray(w))
        inputs = [ia, iw]
        kwargs = {"axis": list(axis) if isinstance(axis, tuple) else axis, "keepdims": keepdims,
                  "q": q, "method": method, "weights": 1}
        if out is not None:
            io, _ = operand(g, out)
            kwargs["out"] = 2
            inputs.append(io)

        def run():
            call = {"axis": axis, "keepdims": keepdims, "method": method, "weights": wv}
            if isinstance(axis, tuple) and len(axis) > 1:
                getattr(np, op)(av, q, **call)  # NumPy's checks (its values: see merged)
                return merged(getattr(np, op), av, q, wv, axis, keepdims)
            if out is not None:
                call["out"] = out.copy()
                r = getattr(np, op)(av, q, **call)
                assert r is call["out"]
                return r
            return getattr(np, op)(av, q, **call)

        record(g, f"{op}/weights/{cid.split('/', 1)[1]}", op, inputs, run, kwargs)

    qs = [0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0]
    for dt in ["float64", "float32", "float16", "int32", "int8", "uint8", "bool"]:
        a3 = vals(dt, (3, 4, 5), 11)
        odd = vals(dt, (5, 7), 12)
        for op, scale in [("quantile", 1.0), ("percentile", 100.0)]:
            sq = [x * scale for x in qs]
            for wk in ["int64", "float64", "bool", "float32"]:
                w3 = weights_of(wk, a3.shape, 13)
                wcase(f"{op}/{dt}/w_{wk}/axisNone", op, a3, w3, sq)
                wcase(f"{op}/{dt}/w_{wk}/axis1", op, a3, w3, sq, 1)
            w3 = weights_of("int64", a3.shape, 14)
            for q in [0.0, 0.3, 0.5, 1.0]:
                wcase(f"{op}/{dt}/scalar_q{q}/axis-1", op, a3, w3, q * scale, -1)
            wcase(f"{op}/{dt}/axis(0,2)", op, a3, w3, sq, (0, 2))
            wcase(f"{op}/{dt}/axis(0,2)/keepdims", op, a3, w3, [0.3 * scale, 0.6 * scale], (0, 2), True)
            wcase(f"{op}/{dt}/axisNone/keepdims", op, a3, w3, 0.4 * scale, None, True)
            wcase(f"{op}/{dt}/axis(0,2)/w2d", op, a3, weights_of("int64", (3, 5), 15), sq, (0, 2))
            wcase(f"{op}/{dt}/axis(2,0)/w2d", op, a3, weights_of("int64", (5, 3), 16), sq, (2, 0))
            wcase(f"{op}/{dt}/axis1/w1d", op, odd, weights_of("int64", (7,), 17), sq, 1)
            wcase(f"{op}/{dt}/axis0/w1d", op, odd, weights_of("float64", (5,), 18), sq, 0)
            wcase(f"{op}/{dt}/q2d", op, odd, weights_of("int64", odd.shape, 19),
                  [[0.2 * scale, 0.4 * scale], [0.6 * scale, 0.95 * scale]], 0)
    # ties in the data, zero weights (leading, trailing, all), exact cdf boundaries
    ties = np.array([[3.0, 1.0, 2.0, 1.0, 3.0, 2.0], [5.0, 5.0, 5.0, 4.0, 4.0, 6.0],
                     [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [-0.0, 0.0, -1.0, 1.0, 0.0, -0.0]])
    tw = np.array([[1, 1, 1, 1, 0, 0], [0, 2, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0], [1, 0, 2, 0, 1, 0]])
    for dt in ["float64", "float32", "int64"]:
        a = ties.astype(dt)
        for op, scale in [("quantile", 1.0), ("percentile", 100.0)]:
            sq = [x * scale for x in [0.0, 1 / 6, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0]]
            wcase(f"{op}/{dt}/ties/axis1", op, a, tw, sq, 1)
            wcase(f"{op}/{dt}/ties/axis0", op, a, tw, sq, 0)
            wcase(f"{op}/{dt}/ties/axisNone", op, a, tw, sq)
            wcase(f"{op}/{dt}/ties/zero_weights_first", op, a[2], [0, 0, 1, 1, 0, 3], sq)
    # NaN: a row holding one gives NaN, whatever its weight
    for dt in ["float64", "float32", "float16"]:
        v = vals(dt, (4, 9), 20, 0.15)
        v[1, :] = NAN
        v[2, :] = vals(dt, (9,), 21)
        w = weights_of("int64", v.shape, 22)
        for op, scale in [("quantile", 1.0), ("percentile", 100.0)]:
            for ax in [None, 0, 1]:
                wcase(f"{op}/{dt}/nan/axis{ax}", op, v, w, [0.0, 0.5 * scale, 1.0 * scale], ax)
    a = vals("float64", (3, 4), 23)
    w = weights_of("int64", (3, 4), 24)
    # out= (exact shape; NumPy's item assignment casts unsafely)
    wcase("quantile/out/float64", "quantile", a, w, [0.3, 0.8], 1, out=np.zeros((2, 3)))
    wcase("quantile/out/float32", "quantile", a, w, 0.5, 0, out=np.zeros(4, np.float32))
    wcase("quantile/out/int8", "quantile", a, w, 0.5, 0, out=np.zeros(4, np.int8))
    wcase("quantile/out/keepdims", "quantile", a, w, 0.5, 1, True, out=np.zeros((3, 1)))
    wcase("quantile/out/bad_shape", "quantile", a, w, 0.5, 1, out=np.zeros((1, 3)))
    anan = a.copy()
    anan[1, 2] = NAN
    wcase("quantile/out/nan_into_int", "quantile", anan, w, 0.5, 1, out=np.zeros(3, np.int32))
    wcase("quantile/out/nan_into_float32", "quantile", anan, w, 0.5, 1, out=np.zeros(3, np.float32))
    # refusals
    for m in ["linear", "lower", "closest_observation", "averaged_inverted_cdf"]:
        wcase(f"quantile/method_{m}", "quantile", a, w, 0.5, None, method=m)
        wcase(f"percentile/method_{m}", "percentile", a, w, 50.0, 1, method=m)
    neg = w.astype(np.float64)
    neg[2, 1] = -0.5
    wcase("quantile/negative", "quantile", a, neg, 0.5)
    wcase("percentile/negative/axis0", "percentile", a, neg, 50.0, 0)
    wcase("quantile/negative_zero", "quantile", a, -np.zeros((3, 4)), 0.5, 1)
    wcase("quantile/shape_without_axis", "quantile", a, np.ones(4), 0.5)
    wcase("quantile/shape_1d_wrong_length", "quantile", a, np.ones(3), 0.5, 1)
    wcase("quantile/shape_broadcastable", "quantile", a, np.ones((1, 4)), 0.5, 1)
    wcase("quantile/shape_2d_axis_order", "quantile", vals("float64", (2, 3, 4), 25), np.ones((2, 4)), 0.5, (2, 0))
    wcase("quantile/q_out_of_range", "quantile", a, w, 1.5)
    wcase("quantile/empty/axisNone", "quantile", np.zeros((0, 3)), np.zeros((0, 3)), 0.5)
    wcase("quantile/empty/axis0", "quantile", np.zeros((0, 3)), np.zeros((0, 3)), 0.5, 0)
    wcase("quantile/empty/batch", "quantile", np.zeros((3, 0)), np.zeros((3, 0)), [0.5, 0.1], 0)
    wcase("quantile/0d", "quantile", np.array(3.5), np.array(2.0), [0.0, 1.0])
    wcase("quantile/zero_total/axis1", "quantile", a, np.zeros((3, 4)), [0.0, 0.5, 1.0], 1)
    wcase("quantile/inf_weight", "quantile", np.array([3.0, 1.0, 2.0]), [1.0, np.inf, 1.0], [0.0, 0.5, 1.0])
    wcase("quantile/nan_weight", "quantile", np.array([3.0, 1.0, 2.0]), [1.0, np.nan, 1.0], [0.0, 0.5, 1.0])

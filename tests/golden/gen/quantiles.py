"""Goldens of the sorted-row order statistics: median, quantile, percentile and their nan*
forms, with NumPy's 13 methods, scalar and array q (the result dtype follows q), axis tuples,
keepdims, NaN (propagating, and ignored by the nan* forms, all-NaN slices), empty axes (NaN, or
IndexError for quantile), q out of range (ValueError), complex input (median only).

kwargs: axis (null, int or list), keepdims, method, q (a number: NumPy's Python scalar; or a
list: an array of q)."""

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
    g.write()

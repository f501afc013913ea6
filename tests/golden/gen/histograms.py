"""Goldens of the histograms, bincount and the correlations: histogram (bin counts and edges,
range, density, weights, NaN/out-of-range values, float32/float16 edges, empty input; one case
per output, kwargs "out_index"), histogram2d, bincount (weights, minlength, errors), cov
(rowvar, bias, ddof, fweights, aweights, y, dtype, complex) and corrcoef.

inputs: [a] and, by kwargs flags, further arrays in the order named by "arrays"."""

import warnings

from .common import *  # noqa: F401,F403

NAN = float("nan")


def vals(dt, shape, seed, lo=-3.0, hi=3.0):
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if d.kind == "b":
        v = rng.random(n) < 0.5
    elif d.kind in "iu":
        v = rng.integers(0 if d.kind == "u" else -9, 10, n)
    elif d.kind == "c":
        v = np.round(rng.uniform(lo, hi, n), 2) + 1j * np.round(rng.uniform(lo, hi, n), 2)
    else:
        v = np.round(rng.uniform(lo, hi, n), 3)
    return v.astype(dt).reshape(shape)


def gen_histograms():
    g = Group("histograms")

    def case(cid, op, arrays, kwargs, fn, extra=None):
        inputs = [operand(g, a)[0] for a in arrays]

        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                try:
                    return fn()
                except RuntimeError as e:  # cov's RuntimeError for weights of the wrong shape
                    raise ValueError(f"RuntimeError: {e}")

        record(g, cid, op, inputs, run, kwargs, extra)

    # histogram
    for dt in ["bool", "int8", "int64", "uint8", "float16", "float32", "float64"]:
        a = vals(dt, (200,), 1)
        if dt.startswith("float"):
            a[::17] = 2.5  # on an edge
        w = vals("float64", (200,), 2, 0.0, 2.0)
        wi = vals("int32", (200,), 3)
        specs = [
            ("default", [a], {}, lambda a=a: np.histogram(a)),
            ("bins7", [a], {"bins": 7}, lambda a=a: np.histogram(a, bins=7)),
            ("range", [a], {"bins": 5, "range": [-1.0, 2.5]}, lambda a=a: np.histogram(a, 5, range=(-1.0, 2.5))),
            ("density", [a], {"bins": 6, "density": True}, lambda a=a: np.histogram(a, 6, density=True)),
            ("weights", [a, w], {"bins": 8, "weights": True}, lambda a=a: np.histogram(a, 8, weights=w)),
            ("iweights", [a, wi], {"bins": 8, "weights": True}, lambda a=a: np.histogram(a, 8, weights=wi)),
            ("wdensity", [a, w], {"bins": 4, "weights": True, "density": True},
             lambda a=a: np.histogram(a, 4, weights=w, density=True)),
            ("edges", [a, np.array([-2.0, -0.5, 0.0, 0.25, 2.5, 2.5, 4.0])], {"edges": True},
             lambda a=a: np.histogram(a, np.array([-2.0, -0.5, 0.0, 0.25, 2.5, 2.5, 4.0]))),
            ("int_edges", [a, np.array([-5, 0, 1, 3, 9])], {"edges": True},
             lambda a=a: np.histogram(a, np.array([-5, 0, 1, 3, 9]))),
            ("const", [np.full((9,), 3, dt)], {"bins": 4}, lambda: np.histogram(np.full((9,), 3, dt), 4)),
            ("empty", [np.zeros((0,), dt)], {"bins": 3}, lambda: np.histogram(np.zeros((0,), dt), 3)),
            ("2d", [a.reshape(10, 20)], {"bins": 5}, lambda a=a: np.histogram(a.reshape(10, 20), 5)),
            ("zero_bins", [a], {"bins": 0}, lambda a=a: np.histogram(a, 0)),
            ("bad_range", [a], {"bins": 3, "range": [2.0, 1.0]}, lambda a=a: np.histogram(a, 3, range=(2.0, 1.0))),
            ("decreasing", [a, np.array([1.0, 0.0, 2.0])], {"edges": True},
             lambda a=a: np.histogram(a, np.array([1.0, 0.0, 2.0]))),
        ]
        for name, arrs, kw, fn in specs:
            for i in range(2):
                case(f"histogram/{dt}/{name}/out{i}", "histogram", arrs, {**kw, "out_index": i},
                     lambda fn=fn, i=i: fn()[i], tol_hist(g, kw))
    f = vals("float64", (50,), 4)
    f[[3, 9]] = NAN
    for i in range(2):
        case(f"histogram/float64/nan_range/out{i}", "histogram", [f], {"bins": 4, "range": [-1.0, 1.0], "out_index": i},
             lambda i=i: np.histogram(f, 4, range=(-1.0, 1.0))[i])
        case(f"histogram/float64/nan_auto/out{i}", "histogram", [f], {"bins": 4, "out_index": i},
             lambda i=i: np.histogram(f, 4)[i])
    # histogram with NumPy's bin-width estimators (bins="auto", "fd", ...)
    skew = np.round(np.random.default_rng(9).exponential(1.0, 300), 3)
    for dt in ["int8", "int64", "float32", "float64"]:
        a = vals(dt, (200,), 8)
        for est in ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]:
            for i in range(2):
                case(f"histogram/{dt}/est_{est}/out{i}", "histogram", [a], {"bins": est, "out_index": i},
                     lambda a=a, est=est, i=i: np.histogram(a, est)[i])
    for name, arr, kw in [("skew_doane", skew, {"bins": "doane"}), ("skew_auto", skew, {"bins": "auto"}),
                          ("range_auto", vals("float64", (200,), 10), {"bins": "auto", "range": [-1.0, 1.5]}),
                          ("range_stone", vals("float64", (200,), 10), {"bins": "stone", "range": [-1.0, 1.5]}),
                          ("const_fd", np.full((9,), 3.0), {"bins": "fd"}),
                          ("empty_auto", np.zeros((0,)), {"bins": "auto"}),
                          ("two_doane", np.array([1.0, 2.0]), {"bins": "doane"})]:
        for i in range(2):
            r = tuple(kw["range"]) if "range" in kw else None
            case(f"histogram/float64/{name}/out{i}", "histogram", [arr], {**kw, "out_index": i},
                 lambda arr=arr, kw=kw, r=r, i=i: np.histogram(arr, kw["bins"], range=r)[i])
    # histogram2d
    for dt in ["int32", "float32", "float64"]:
        x = vals(dt, (300,), 5)
        y = vals(dt, (300,), 6, -1.0, 5.0)
        w = vals("float64", (300,), 7, 0.0, 1.0)
        specs = [
            ("default", [x, y], {}, lambda: np.histogram2d(x, y)),
            ("bins", [x, y], {"bins": [4, 6]}, lambda: np.histogram2d(x, y, bins=[4, 6])),
            ("range", [x, y], {"bins": [3, 3], "range": [[-1.0, 1.0], [0.0, 4.0]]},
             lambda: np.histogram2d(x, y, bins=3, range=[[-1.0, 1.0], [0.0, 4.0]])),
            ("edges", [x, y, np.array([-3.0, 0.0, 1.0, 3.0]), np.array([-1.0, 2.0, 5.0])], {"edges": True},
             lambda: np.histogram2d(x, y, bins=[np.array([-3.0, 0.0, 1.0, 3.0]), np.array([-1.0, 2.0, 5.0])])),
            ("weights", [x, y, w], {"bins": [5, 5], "weights": True}, lambda: np.histogram2d(x, y, bins=5, weights=w)),
            ("density", [x, y], {"bins": [4, 4], "density": True}, lambda: np.histogram2d(x, y, bins=4, density=True)),
        ]
        for name, arrs, kw, fn in specs:
            for i in range(3):
                case(f"histogram2d/{dt}/{name}/out{i}", "histogram2d", arrs, {**kw, "out_index": i},
                     lambda fn=fn, i=i: fn()[i], tol_hist(g, kw))
    case("histogram2d/float64/lengths", "histogram2d", [np.zeros(3), np.zeros(4)], {"out_index": 0},
         lambda: np.histogram2d(np.zeros(3), np.zeros(4))[0])
    # histogramdd: an (N, 3) sample; the counts (out0) and each dimension's edges
    sm = np.stack([vals("float64", (250,), 11), vals("float64", (250,), 12, 0.0, 4.0),
                   vals("float64", (250,), 13, -2.0, 2.0)], axis=1)
    sw = vals("float64", (250,), 14, 0.0, 1.0)
    si = vals("int32", (250, 2), 15)
    dd_specs = [
        ("default", [sm], {}, lambda: np.histogramdd(sm)),
        ("bins", [sm], {"bins": [2, 3, 4]}, lambda: np.histogramdd(sm, bins=[2, 3, 4])),
        ("range", [sm], {"bins": [3, 3, 3], "range": [[-1.0, 1.0], [0.0, 2.0], [-2.0, 0.0]]},
         lambda: np.histogramdd(sm, bins=3, range=[(-1.0, 1.0), (0.0, 2.0), (-2.0, 0.0)])),
        ("weights", [sm, sw], {"bins": [4, 4, 4], "weights": True}, lambda: np.histogramdd(sm, bins=4, weights=sw)),
        ("density", [sm], {"bins": [3, 4, 5], "density": True}, lambda: np.histogramdd(sm, bins=[3, 4, 5], density=True)),
        ("int32", [si], {"bins": [5, 6]}, lambda: np.histogramdd(si, bins=[5, 6])),
    ]
    for name, arrs, kw, fn in dd_specs:
        for i in range(len(fn()[1]) + 1):
            case(f"histogramdd/{name}/out{i}", "histogramdd", arrs, {**kw, "out_index": i},
                 lambda fn=fn, i=i: fn()[0] if i == 0 else fn()[1][i - 1], tol_hist(g, kw))
    # bincount
    for dt in ["bool", "int8", "int32", "int64", "uint8", "uint32"]:
        x = np.abs(vals(dt, (60,), 8)).astype(dt)
        w = vals("float64", (60,), 9)
        case(f"bincount/{dt}", "bincount", [x], {}, lambda x=x: np.bincount(x))
        case(f"bincount/{dt}/minlength", "bincount", [x], {"minlength": 25}, lambda x=x: np.bincount(x, minlength=25))
        case(f"bincount/{dt}/weights", "bincount", [x, w], {"weights": True}, lambda x=x: np.bincount(x, weights=w),
             {"scale_max": float(np.sum(np.abs(w))), "n": 60})
        case(f"bincount/{dt}/iweights", "bincount", [x, vals("int16", (60,), 10)], {"weights": True},
             lambda x=x: np.bincount(x, weights=vals("int16", (60,), 10)))
    case("bincount/int64/empty", "bincount", [np.zeros(0, np.int64)], {"minlength": 3},
         lambda: np.bincount(np.zeros(0, np.int64), minlength=3))
    case("bincount/int64/negative", "bincount", [np.array([1, -1, 2])], {}, lambda: np.bincount(np.array([1, -1, 2])))
    case("bincount/float64", "bincount", [np.array([1.0, 2.0])], {}, lambda: np.bincount(np.array([1.0, 2.0])))
    case("bincount/uint64", "bincount", [np.array([1, 2], np.uint64)], {}, lambda: np.bincount(np.array([1, 2], np.uint64)))
    case("bincount/int64/2d", "bincount", [np.zeros((2, 2), np.int64)], {}, lambda: np.bincount(np.zeros((2, 2), np.int64)))
    case("bincount/int64/wlen", "bincount", [np.array([1, 2]), np.ones(3)], {"weights": True},
         lambda: np.bincount(np.array([1, 2]), weights=np.ones(3)))
    # cov / corrcoef
    for dt in ["int32", "float32", "float64", "complex128"]:
        m = vals(dt, (3, 7), 11)
        y = vals(dt, (2, 7), 12)
        fw = np.array([1, 2, 1, 3, 1, 1, 2])
        aw = np.array([0.5, 1.0, 2.0, 1.0, 0.25, 1.0, 1.5])
        specs = [
            ("default", [m], {}, lambda m=m: np.cov(m)),
            ("rowvar", [m.T.copy()], {"rowvar": False}, lambda m=m: np.cov(m.T.copy(), rowvar=False)),
            ("bias", [m], {"bias": True}, lambda m=m: np.cov(m, bias=True)),
            ("ddof3", [m], {"ddof": 3}, lambda m=m: np.cov(m, ddof=3)),
            ("ddof7", [m], {"ddof": 7}, lambda m=m: np.cov(m, ddof=7)),
            ("y", [m, y], {"y": True}, lambda m=m, y=y: np.cov(m, y)),
            ("1d", [m[0].copy()], {}, lambda m=m: np.cov(m[0].copy())),
            ("1d_y", [m[0].copy(), m[1].copy()], {"y": True}, lambda m=m: np.cov(m[0].copy(), m[1].copy())),
            ("fweights", [m, fw], {"fweights": True}, lambda m=m: np.cov(m, fweights=fw)),
            ("aweights", [m, aw], {"aweights": True}, lambda m=m: np.cov(m, aweights=aw)),
            ("both", [m, fw, aw], {"fweights": True, "aweights": True}, lambda m=m: np.cov(m, fweights=fw, aweights=aw)),
            ("both_ddof0", [m, fw, aw], {"fweights": True, "aweights": True, "ddof": 0},
             lambda m=m: np.cov(m, fweights=fw, aweights=aw, ddof=0)),
            ("dtype32", [m], {"dtype": "float32"}, lambda m=m: np.cov(m, dtype=np.float32)),
            ("dtype_int", [m], {"dtype": "int64"}, lambda m=m: np.cov(m, dtype=np.int64)),
            ("bad_fw", [m, np.array([1.5] * 7)], {"fweights": True}, lambda m=m: np.cov(m, fweights=np.array([1.5] * 7))),
            ("neg_aw", [m, -aw], {"aweights": True}, lambda m=m: np.cov(m, aweights=-aw)),
            ("short_fw", [m, fw[:3]], {"fweights": True}, lambda m=m: np.cov(m, fweights=fw[:3])),
            ("3d", [vals(dt, (2, 2, 2), 13)], {}, lambda: np.cov(vals(dt, (2, 2, 2), 13))),
        ]
        for name, arrs, kw, fn in specs:
            if name == "ddof7" and dt.startswith("complex"):
                continue  # 1/0 times the rounding noise of the diagonal's imaginary part
            case(f"cov/{dt}/{name}", "cov", arrs, kw, fn, tol_cov(g, arrs[0]))
        for name, arrs, kw, fn in [
            ("default", [m], {}, lambda m=m: np.corrcoef(m)),
            ("rowvar", [m.T.copy()], {"rowvar": False}, lambda m=m: np.corrcoef(m.T.copy(), rowvar=False)),
            ("y", [m, y], {"y": True}, lambda m=m, y=y: np.corrcoef(m, y)),
            ("1d", [m[0].copy()], {}, lambda m=m: np.corrcoef(m[0].copy())),
            ("const", [np.ones((2, 5), dt)], {}, lambda: np.corrcoef(np.ones((2, 5), dt))),
        ]:
            case(f"corrcoef/{dt}/{name}", "corrcoef", arrs, kw, fn, {"scale_max": 1.0, "n": 64})
    g.write()


def tol_hist(g, kw):
    """Counts are exact; weighted sums and densities within a few ulps of their magnitude."""
    def extra(r):
        if r.dtype.kind in "f" and ("weights" in kw or kw.get("density")):
            return {"scale_max": float(np.nanmax(np.abs(r))) if r.size else 0.0, "n": 64}
        return {}
    return extra


def tol_cov(g, m):
    def extra(r):
        if r.dtype.kind not in "fc" or r.size == 0:
            return {}
        x = np.abs(m.astype(np.complex128 if m.dtype.kind == "c" else np.float64))
        s = float(np.max(x)) ** 2 * 4
        return {"scale_max": s, "n": 16}
    return extra

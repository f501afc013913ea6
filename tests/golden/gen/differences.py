"""Goldens of the scans and differences: cumsum/cumprod (complex included), nancumsum,
nancumprod, diff (n, axis, prepend/append, bool, integer wrap), ediff1d (to_begin/to_end),
gradient (uniform and coordinate spacing, edge_order 1 and 2, integer input; one case per
output array, kwargs "out_index"), trapezoid (dx, 1-d and n-d x, integer y).

inputs: [a] and, by kwargs flags, further arrays (prepend/append, to_begin/to_end, x, the
coordinates of gradient in axis order)."""

import warnings

from .common import *  # noqa: F401,F403

NAN = float("nan")
SCAN_DTS = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64",
            "complex64", "complex128"]


def vals(dt, shape, seed, nan_frac=0.0, lo=-3, hi=3):
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
        v = np.round(rng.uniform(lo, hi, n), 2)
    v = v.astype(dt)
    if nan_frac and d.kind in "fc":
        v[rng.random(n) < nan_frac] = NAN
    return v.reshape(shape)


def gen_differences():
    g = Group("differences")

    def case(cid, op, arrays, kwargs, fn, extra=None):
        inputs = [operand(g, a)[0] for a in arrays]

        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return fn()

        record(g, cid, op, inputs, run, kwargs, extra)

    def scan_scale(op, a, axis):
        def extra(r):
            if a.dtype.kind not in "fc":
                return {}
            x = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
            x = np.where(np.isnan(x), 0.0 if "sum" in op else 1.0, x)
            f = np.cumsum if "sum" in op else np.cumprod
            s = f(x, axis=axis)
            n = a.size if axis is None else a.shape[axis]
            return {"scale": g.arr(np.nan_to_num(s, posinf=0.0)), "n": max(n, 1)}
        return extra

    for dt in SCAN_DTS:
        nanf = 0.2 if dt.startswith(("float", "complex")) else 0.0
        a = vals(dt, (3, 5), 1, nanf, -1.5, 1.5)
        for op in ["cumsum", "cumprod", "nancumsum", "nancumprod"]:
            f = getattr(np, op)
            for ax in [None, 0, 1, -1]:
                case(f"{op}/{dt}/axis{ax}", op, [a], {"axis": ax}, lambda f=f, ax=ax: f(a, axis=ax),
                     scan_scale(op, a, ax))
            # a row past two scan tiles (8192) for the GPU's multi-block path, where it is cheap
            wide = (op, dt) in (("cumsum", "float32"), ("nancumsum", "float32"))
            shape = (1, 17000) if wide else (2, 300)
            long = vals(dt, shape, 2, nanf / 10, -1.0, 1.0)
            if op.endswith("prod") and dt.startswith(("float", "complex")):
                with np.errstate(all="ignore"):  # unit modulus
                    long = (long / np.abs(np.where(long == 0, 1, long))).astype(dt)
            case(f"{op}/{dt}/long/axis1", op, [long], {"axis": 1},
                 lambda f=f, long=long: f(long, axis=1), scan_scale(op, long, 1))
            for want in ["int8", "float32", "float64"]:
                if dt.startswith("complex"):
                    continue
                case(f"{op}/{dt}/dtype_{want}", op, [a], {"axis": 1, "dtype": want},
                     lambda f=f, want=want: f(a, axis=1, dtype=want), scan_scale(op, a, 1))
            case(f"{op}/{dt}/empty", op, [np.zeros((0, 3), dt)], {"axis": 0},
                 lambda f=f: f(np.zeros((0, 3), dt), axis=0))
            case(f"{op}/{dt}/0d", op, [vals(dt, (), 3)], {"axis": None},
                 lambda f=f: f(vals(dt, (), 3)))

    DIFF_DTS = ["bool", "int8", "int64", "uint8", "float16", "float32", "float64", "complex128"]
    for dt in DIFF_DTS:
        a = vals(dt, (4, 6), 4)
        for n in [1, 2, 3]:
            for ax in [-1, 0]:
                case(f"diff/{dt}/n{n}/axis{ax}", "diff", [a], {"n": n, "axis": ax},
                     lambda n=n, ax=ax: np.diff(a, n=n, axis=ax))
        case(f"diff/{dt}/n0", "diff", [a], {"n": 0, "axis": -1}, lambda: np.diff(a, n=0))
        case(f"diff/{dt}/n7", "diff", [a], {"n": 7, "axis": -1}, lambda: np.diff(a, n=7))
        p = vals(dt, (), 5)
        q = vals(dt, (4, 2), 6)
        case(f"diff/{dt}/prepend0d", "diff", [a, p], {"n": 1, "axis": 1, "prepend": True},
             lambda: np.diff(a, axis=1, prepend=p))
        case(f"diff/{dt}/append2d", "diff", [a, q], {"n": 2, "axis": 1, "append": True},
             lambda: np.diff(a, n=2, axis=1, append=q))
        case(f"diff/{dt}/both", "diff", [a, p, q], {"n": 1, "axis": 1, "prepend": True, "append": True},
             lambda: np.diff(a, axis=1, prepend=p, append=q))
        case(f"diff/{dt}/T", "diff", [a.T.copy()], {"n": 1, "axis": 0}, lambda: np.diff(a.T.copy(), axis=0))
        case(f"diff/{dt}/0d", "diff", [p], {"n": 1, "axis": -1}, lambda: np.diff(p))
        v = a.ravel()
        case(f"ediff1d/{dt}", "ediff1d", [a], {}, lambda: np.ediff1d(a))
        b = vals(dt, (2,), 7)
        e = vals(dt, (3,), 8)
        case(f"ediff1d/{dt}/begin_end", "ediff1d", [v, b, e], {"to_begin": True, "to_end": True},
             lambda: np.ediff1d(v, to_begin=b, to_end=e))
        case(f"ediff1d/{dt}/f64_end", "ediff1d", [v, np.array([0.5, 2.0])], {"to_end": True},
             lambda: np.ediff1d(v, to_end=np.array([0.5, 2.0])))
        case(f"ediff1d/{dt}/one", "ediff1d", [v[:1].copy(), b], {"to_begin": True},
             lambda: np.ediff1d(v[:1].copy(), to_begin=b))
    # gradient
    GRAD_DTS = ["int32", "uint8", "float16", "float32", "float64", "complex128"]
    for dt in GRAD_DTS:
        f2 = vals(dt, (5, 7), 9)
        x0 = np.array([0.0, 0.5, 1.5, 1.75, 3.0])
        x1 = np.arange(7) * 0.25 + 1.0  # uniform coordinates: NumPy reduces them to a step
        x1i = np.array([0, 1, 3, 6, 10, 15, 21])
        specs = [
            ("unit", [], {}),
            ("scalar", [], {"spacing": [0.5]}),
            ("per_axis", [], {"spacing": [0.5, 2.0]}),
            ("coords", [x0, x1], {"spacing": ["x", "x"]}),
            ("coords_int", [x0, x1i], {"spacing": ["x", "x"]}),
            ("mixed", [x0], {"spacing": ["x", 3.0]}),
        ]
        for name, xs, kw in specs:
            for eo in [1, 2]:
                def call(xs=xs, kw=kw, eo=eo):
                    args = []
                    it = iter(xs)
                    for s in kw.get("spacing", []):
                        args.append(next(it) if s == "x" else s)
                    r = np.gradient(f2, *args, edge_order=eo)
                    return r
                try:
                    with np.errstate(all="ignore"):
                        res = call()
                except ValueError:
                    res = None
                k = {"edge_order": eo, "axis": None, **kw}
                for i in range(2):
                    case(f"gradient/{dt}/{name}/eo{eo}/out{i}", "gradient", [f2] + xs, {**k, "out_index": i},
                         lambda call=call, i=i: call()[i])
        f1 = vals(dt, (6,), 10)
        case(f"gradient/{dt}/1d/axis0", "gradient", [f1, np.array([0.0, 1.0, 1.5, 3.5, 4.0, 7.0])],
             {"edge_order": 2, "axis": [0], "spacing": ["x"], "out_index": 0},
             lambda: np.gradient(f1, np.array([0.0, 1.0, 1.5, 3.5, 4.0, 7.0]), axis=0, edge_order=2))
        case(f"gradient/{dt}/axis1only", "gradient", [f2], {"edge_order": 1, "axis": [1], "spacing": [0.1], "out_index": 0},
             lambda: np.gradient(f2, 0.1, axis=1))
        case(f"gradient/{dt}/too_small", "gradient", [vals(dt, (2, 5), 11)],
             {"edge_order": 2, "axis": None, "out_index": 0},
             lambda: np.gradient(vals(dt, (2, 5), 11), edge_order=2)[0])
    # trapezoid
    for dt in ["int32", "float16", "float32", "float64", "complex128"]:
        y = vals(dt, (4, 6), 12)
        xs = np.array([0.0, 0.3, 0.9, 1.0, 2.5, 3.0])

        def ts(y, axis, d=1.0):
            def extra(r):
                yy = np.abs(y.astype(np.complex128 if y.dtype.kind == "c" else np.float64))
                sl1 = [slice(None)] * 2
                sl2 = [slice(None)] * 2
                sl1[axis] = slice(1, None)
                sl2[axis] = slice(None, -1)
                t = np.abs(d) * (yy[tuple(sl1)] + yy[tuple(sl2)]) / 2
                return {"scale": g.arr(np.sum(t, axis=axis)), "n": y.shape[axis]}
            return extra
        case(f"trapezoid/{dt}/unit", "trapezoid", [y], {"axis": -1}, lambda y=y: np.trapezoid(y), ts(y, 1))
        case(f"trapezoid/{dt}/dx", "trapezoid", [y], {"axis": 0, "dx": 0.5},
             lambda y=y: np.trapezoid(y, dx=0.5, axis=0), ts(y, 0, 0.5))
        case(f"trapezoid/{dt}/x1d", "trapezoid", [y, xs], {"axis": -1, "x": True},
             lambda y=y: np.trapezoid(y, x=xs), ts(y, 1, np.diff(xs).reshape(1, -1)))
        x2 = np.cumsum(vals("float64", (4, 6), 13, 0, 0.1, 1.0), axis=1)
        case(f"trapezoid/{dt}/x2d", "trapezoid", [y, x2], {"axis": 1, "x": True},
             lambda y=y: np.trapezoid(y, x=x2, axis=1), ts(y, 1, np.diff(x2, axis=1)))
    g.write()

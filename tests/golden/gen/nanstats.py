"""Goldens of the reductions' keywords and the NaN-aware and counting reductions: initial= and
where= (broadcast masks, all-false slices, max/min without initial), dtype=, ddof; nansum
nanprod nanmax nanmin nanmean nanvar nanstd nanargmax nanargmin (all-NaN slices, empty axes),
ptp, count_nonzero, any, all, complex max/min, and average (weights, returned).

A case's op is the NumPy function; inputs are [a] or [a, mask] (kwargs "where": true) or
[a, weights] (average); kwargs: axis (null, int or list), keepdims, ddof, dtype (a name),
initial (a weak scalar object as gen.py's inputs). "scale"/"n" as gen.py describes."""

import warnings

from .common import *  # noqa: F401,F403

DTS = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64",
       "complex64", "complex128"]
NAN = float("nan")

# reduction -> the keywords NumPy takes beyond axis/keepdims
KW = {
    "sum": "initial where dtype", "prod": "initial where dtype",
    "max": "initial where", "min": "initial where",
    "mean": "where dtype", "var": "where ddof dtype", "std": "where ddof dtype",
    "any": "where", "all": "where", "ptp": "", "count_nonzero": "",
    "nansum": "initial where dtype", "nanprod": "initial where dtype",
    "nanmax": "initial where", "nanmin": "initial where",
    "nanmean": "where dtype", "nanvar": "where ddof dtype", "nanstd": "where ddof dtype",
    "nanargmax": "", "nanargmin": "",
}
NO_TUPLE = {"nanargmax", "nanargmin"}
NO_BOOL = {"ptp"}


def vals(dt, shape, seed, nan_frac=0.0):
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if d.kind == "b":
        v = rng.random(n) < 0.5
    elif d.kind == "i":
        v = rng.integers(-9, 10, n)
        v[::7] = 0
    elif d.kind == "u":
        v = rng.integers(0, 10, n)
        v[::7] = 0
    elif d.kind == "c":
        v = np.round(rng.uniform(-2, 2, n), 2) + 1j * np.round(rng.uniform(-2, 2, n), 2)
        v[::5] = np.round(v[::5].real)  # ties of the real part
    else:
        v = np.round(rng.uniform(-2, 2, n), 2)
        v[::9] = 0.0
    v = v.astype(dt)
    if nan_frac and d.kind in "fc":
        m = rng.random(n) < nan_frac
        v[m] = complex(NAN, NAN) if d.kind == "c" else NAN
    return v.reshape(shape)


def weak_json(v):
    return weak(v)[0]


def gen_nanstats():
    g = Group("nanstats")

    def case(cid, op, a, axis=None, keepdims=False, mask=None, **kw):
        f = getattr(np, op)
        inputs = [operand(g, a)[0]]
        kwargs = {"axis": list(axis) if isinstance(axis, tuple) else axis, "keepdims": keepdims}
        call = {"axis": axis, "keepdims": keepdims}
        if mask is not None:
            inputs.append(operand(g, mask)[0])
            kwargs["where"] = True
            call["where"] = mask
        for k, v in kw.items():
            call[k] = v
            if k == "initial":
                kwargs[k] = weak_json(v)
            elif k == "dtype":
                kwargs[k] = np.dtype(v).name
            else:
                kwargs[k] = v

        def extra(r):
            return tolerance(g, op, a, call)

        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return f(a, **call)

        record(g, cid, op, inputs, run, kwargs, extra)

    for op, kws in KW.items():
        for dt in DTS:
            if op in NO_BOOL and dt == "bool":
                continue
            nanf = 0.15 if op.startswith("nan") or op in ("max", "min", "ptp") else 0.0
            a3 = vals(dt, (3, 4, 5), 1, nanf)
            if op in ("nanargmax", "nanargmin"):
                a3 = vals(dt, (3, 4, 5), 1, 0.1)
                if dt.startswith("float") or dt.startswith("complex"):
                    # keep at least one number in every slice of every axis (else all-NaN)
                    a3[:, :, 0] = a3[:, :, 0] if dt == "bool" else np.array(1.5, dt)
                    a3[0, :, :] = np.array(-0.5, dt)
                    a3[:, 0, :] = np.array(0.25, dt)
            axes = [None, 0, -1] + ([] if op in NO_TUPLE else [(0, 2)])
            for ax in axes:
                case(f"{op}/{dt}/3d/axis{ax}", op, a3, ax)
            case(f"{op}/{dt}/3d/axis1/keepdims", op, a3, 1, True)
            case(f"{op}/{dt}/2d/T/axis1", op, vals(dt, (6, 5), 2, nanf).T, 1)
            e = np.zeros((0, 3), dt)
            for ax in [None, 0, 1]:
                case(f"{op}/{dt}/empty/axis{ax}", op, e, ax)
            if dt in ("float32", "float64", "complex128") and op.startswith("nan"):
                v = vals(dt, (3, 4), 3, 0.2)
                v[1, :] = NAN
                v[2, 1] = NAN
                for ax in [None, 0, 1]:
                    case(f"{op}/{dt}/allnan_row/axis{ax}", op, v, ax)
                case(f"{op}/{dt}/allnan", op, np.full((4,), NAN, dt), None)
            if "where" in kws:
                m = np.random.default_rng(4).random((4, 5)) < 0.6
                m[2, :] = False
                need_init = op in ("max", "min", "nanmax", "nanmin")
                if need_init:
                    init = True if dt == "bool" else 1
                    case(f"{op}/{dt}/where/axis1", op, a3, 1, mask=m, initial=init)
                    case(f"{op}/{dt}/where/axisNone", op, a3, None, mask=m, initial=init)
                    case(f"{op}/{dt}/where/noinitial", op, a3, 1, mask=m)
                else:
                    case(f"{op}/{dt}/where/axis1", op, a3, 1, mask=m)
                    case(f"{op}/{dt}/where/axis(0,2)", op, a3, (0, 2), mask=m)
                    case(f"{op}/{dt}/where/axisNone/keepdims", op, a3, None, True, mask=m)
                    m2 = np.array([True, False, True, True, False])
                    case(f"{op}/{dt}/where_row/axis-1", op, a3, -1, mask=m2)
                if "ddof" in kws:
                    case(f"{op}/{dt}/where/axis1/ddof1", op, a3, 1, mask=m, ddof=1)
            if "initial" in kws and dt != "bool":
                init = 3 if dt != "uint8" else 250
                case(f"{op}/{dt}/initial/axis0", op, a3, 0, initial=init)
                case(f"{op}/{dt}/initial/empty", op, e, 0, initial=init)
                if dt.startswith("float"):
                    case(f"{op}/{dt}/initial_float/axis1", op, a3, 1, initial=-0.75)
                if dt == "int8":
                    case(f"{op}/{dt}/initial_overflow", op, a3, 0, initial=300, dtype="int8")
            if "ddof" in kws:
                for ddof in [1, 2]:
                    case(f"{op}/{dt}/3d/axis1/ddof{ddof}", op, a3, 1, ddof=ddof)
                case(f"{op}/{dt}/dof_neg/axis0", op, vals(dt, (2, 3), 5, 0.2 if nanf else 0), 0, ddof=3)
            if "dtype" in kws:
                for want in ["float32", "float64", "complex128"] + (["int8", "int64"] if op in ("sum", "prod", "nansum", "nanprod") else []):
                    if np.dtype(dt).kind == "c" and np.dtype(want).kind != "c":
                        continue
                    case(f"{op}/{dt}/dtype_{want}/axis1", op, a3, 1, dtype=want)
    # complex ordering (lexicographic) and a partial NaN
    for dt in ["complex64", "complex128"]:
        z = np.array([1 + 2j, 1 + 3j, 1 - 5j, -2 + 9j, 1 + 3j, 0.5 + 0j], dt)
        for op in ["max", "min", "ptp", "nanmax", "nanmin", "nanargmax", "nanargmin"]:
            case(f"{op}/{dt}/lexicographic", op, z, None)
        zn = z.copy()
        zn[3] = complex(0.0, NAN)
        for op in ["max", "min", "nanmax", "nanmin", "nansum", "nanmean", "nanargmax"]:
            case(f"{op}/{dt}/partial_nan", op, zn, None)
    # integer wrap in ptp and prod, int64 accumulation of sum
    i8 = np.array([[-128, 127, 5], [100, 100, 100]], np.int8)
    for op in ["ptp", "sum", "prod", "nansum"]:
        for ax in [None, 1]:
            case(f"{op}/int8/wrap/axis{ax}", op, i8, ax)
    u8 = np.array([0, 255, 3], np.uint8)
    case("ptp/uint8/wrap", "ptp", u8, None)

    # average
    def avg(cid, a, axis=None, w=None, keepdims=False, returned=False):
        inputs = [operand(g, a)[0]]
        kwargs = {"axis": list(axis) if isinstance(axis, tuple) else axis, "keepdims": keepdims,
                  "returned": returned}
        if w is not None:
            inputs.append(operand(g, w)[0])

        def run():
            r = np.average(a, axis=axis, weights=w, keepdims=keepdims, returned=returned)
            return r[1] if returned else r

        def extra(r):
            x = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
            ww = np.ones(a.shape) if w is None else np.abs(np.asarray(w, np.float64))
            if w is not None and ww.shape != a.shape:
                ax = axis if isinstance(axis, tuple) else (axis,)
                ww = ww.transpose(np.argsort(ax)).reshape([s if i in [q % a.ndim for q in ax] else 1 for i, s in enumerate(a.shape)])
            with np.errstate(all="ignore"):
                num = np.sum(x * ww, axis=axis, keepdims=keepdims)
                den = np.abs(np.sum(np.broadcast_to(np.asarray(w if w is not None else ww, np.float64).reshape(ww.shape), a.shape), axis=axis, keepdims=keepdims))
                s = np.nan_to_num(num / np.maximum(den, 1e-300), nan=0.0, posinf=0.0)
            n = a.size if axis is None else int(np.prod([a.shape[i] for i in (axis if isinstance(axis, tuple) else (axis,))]))
            return {"scale": g.arr(np.asarray(s, np.float64)), "n": max(n, 1) * 2}

        def call():
            try:
                return run()
            except ZeroDivisionError as e:
                raise ValueError(f"ZeroDivisionError: {e}")

        record(g, cid, "average_returned" if returned else "average", inputs, call, kwargs, extra)

    for dt in ["int32", "float32", "float64", "complex128", "bool"]:
        a = vals(dt, (3, 4), 6)
        avg(f"average/{dt}/noweights", a)
        avg(f"average/{dt}/noweights/axis1", a, 1)
        avg(f"average/{dt}/noweights/returned", a, 0, returned=True)
        w_full = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
        avg(f"average/{dt}/full/axisNone", a, None, w_full)
        avg(f"average/{dt}/full/axis0/keepdims", a, 0, w_full, True)
        avg(f"average/{dt}/1d/axis1", a, 1, np.array([1, 2, 3, 4], np.int32))
        avg(f"average/{dt}/1d/axis1/returned", a, 1, np.array([1.0, 0.5, 2.0, 4.0]), returned=True)
        avg(f"average/{dt}/1d/axis0/returned", a, 0, np.array([1.0, 0.5, 2.0], np.float32), returned=True)
        avg(f"average/{dt}/2d/axis(1,0)", vals(dt, (2, 3, 4), 7), (2, 0), np.arange(8.0).reshape(4, 2) + 1)
        avg(f"average/{dt}/shape_mismatch", a, 1, np.ones(3))
        avg(f"average/{dt}/no_axis", a, None, np.ones(4))
        avg(f"average/{dt}/zero_sum", a, 1, np.array([1.0, -1.0, 2.0, -2.0]))
    avg("average/float32/f16weights", vals("float32", (3, 4), 8), 1, np.array([1, 2, 3, 4], np.float16))
    g.write()


def tolerance(g, op, a, call):
    """The condition scale of `op` at `a` (an absolute-value version of the op in float64, NaN
    and masked-out elements left out), and n the reduction length."""
    axis = call.get("axis")
    keepdims = call.get("keepdims", False)
    ax = axis if isinstance(axis, tuple) else ((axis,) if axis is not None else tuple(range(a.ndim)))
    n = int(np.prod([a.shape[i] for i in ax])) if a.ndim else 1
    if op in ("max", "min", "ptp", "nanmax", "nanmin", "nanargmax", "nanargmin", "any", "all",
              "count_nonzero"):
        return {}
    if a.dtype.kind not in "fc" and op not in ("mean", "var", "std", "nanmean", "nanvar", "nanstd") and call.get("dtype") is None:
        return {}
    x = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)).astype(np.float64)
    keep = ~np.isnan(x)
    if "where" in call:
        keep = keep & np.broadcast_to(call["where"], a.shape)
    with np.errstate(all="ignore"):
        base = op[3:] if op.startswith("nan") else op
        if base in ("sum", "mean"):
            s = np.sum(np.where(keep, x, 0.0), axis=axis, keepdims=keepdims)
            if "initial" in call:
                s = s + abs(float(call["initial"]))
            if base == "mean":
                s = s / np.maximum(np.sum(keep, axis=axis, keepdims=keepdims), 1)
        elif base == "prod":
            s = np.prod(np.where(keep, x, 1.0), axis=axis, keepdims=keepdims)
            if "initial" in call:
                s = s * abs(float(call["initial"]))
        else:  # var, std
            ddof = call.get("ddof", 0)
            cnt = np.sum(keep, axis=axis, keepdims=keepdims)
            m2 = np.sum(np.where(keep, x * x, 0.0), axis=axis, keepdims=keepdims) / np.maximum(cnt - ddof, 1)
            if base == "std":
                xs = np.where(keep, a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), 0)
                mu = np.sum(xs, axis=axis, keepdims=True) / np.maximum(np.sum(keep, axis=axis, keepdims=True), 1)
                d2 = np.sum(np.where(keep, np.abs(xs - mu) ** 2, 0), axis=axis, keepdims=keepdims)
                sd = np.sqrt(d2 / np.maximum(cnt - ddof, 1))
                s = np.where(sd > 0, m2 / np.maximum(2 * sd, 1e-300), np.sqrt(m2))
            else:
                s = m2
    s = np.nan_to_num(np.asarray(s, dtype=np.float64), nan=0.0, posinf=0.0)
    want = call.get("dtype")
    if op in ("nanvar", "nanstd") and want is not None and a.dtype.kind in "fc":
        # NumPy's nanvar rounds the deviations to the input's dtype whatever dtype= says
        e_in = np.finfo(a.dtype).eps
        e_out = np.finfo(np.dtype(want)).eps
        s = s * max(e_in / e_out, 1.0)
    return {"scale": g.arr(s), "n": max(n, 1)}



"""Statistics goldens of the tuple-accumulator reductions: argmax/argmin (first occurrence, the
first NaN wins, -0.0 ties 0.0, complex lexicographic) and var/std (ddof, axis tuples, keepdims,
integer and float16 inputs, n - ddof <= 0, empty axes, a long float32 array with mean 1e4)."""

import warnings

from .common import *  # noqa: F401,F403

ARG_DTYPES = DTYPES + ["complex64", "complex128"]
MOMENT_DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32",
                 "float64", "complex64", "complex128"]
NAN = float("nan")
INF = float("inf")

# The long case: x_i = float32(10000 + (i % 1000) * 0.001), built the same way on the Rust side
# (float64 arithmetic, then one rounding to float32), so only the result is stored.
LONG_N = 1 << 20


def long_values():
    return (10000.0 + (np.arange(LONG_N) % 1000) * 0.001).astype(np.float32)


def tie_values(dt, shape, shift=0):
    """Few distinct values (many ties), the dtype's extremes, and for floats -0.0/0.0 and infs."""
    d = np.dtype(dt)
    if d.kind == "b":
        vals = [False, True, True, False, False]
    elif d.kind == "i":
        info = np.iinfo(d)
        vals = [3, -1, 4, 1, -5, 9, 2, 9, -5, info.min, info.max, info.max, info.min, 0]
    elif d.kind == "u":
        info = np.iinfo(d)
        vals = [3, 1, 4, 1, 5, 9, 2, 9, 5, 0, info.max, info.max, 0]
    elif d.kind == "f":
        vals = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, 9.0, -5.0, 0.0, -0.0, INF, -INF, INF, -INF]
    else:
        vals = [1 + 2j, 1 + 3j, 1 + 3j, 2 - 1j, 2 - 1j, -1 + 0j, 2 - 2j, complex(-INF, 5),
                complex(INF, -1), complex(INF, -1), complex(-INF, -INF), 0j, complex(-0.0, 0.0)]
    return cyc(vals, shape, dt, shift)


def moment_values(dt, shape, seed):
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if d.kind == "b":
        v = rng.random(n) < 0.6
    elif d.kind == "i":
        lo = -100 if d.itemsize == 1 else -1000
        v = rng.integers(lo, -lo, n)
    elif d.kind == "u":
        v = rng.integers(0, 200, n)
    elif d.kind == "c":
        v = rng.uniform(-3, 5, n) + 1j * rng.uniform(-2, 2, n)
    else:
        v = rng.uniform(-3, 5, n)
    return v.astype(dt).reshape(shape)


def gen_stats():
    g = Group("stats")

    def arg(cid, op, base, steps, axis, keepdims=False):
        ia, a = operand(g, base, steps)
        f = getattr(np, op)
        record(g, cid, op, [ia], lambda: f(a, axis=axis, keepdims=keepdims),
               {"axis": axis, "keepdims": keepdims})

    for dt in ARG_DTYPES:
        for op in ["argmax", "argmin"]:
            b3 = tie_values(dt, (3, 4, 5), 1)
            for axis in [None, 0, 1, -1]:
                arg(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis)
            arg(f"{op}/{dt}/3d/axis1/keepdims", op, b3, [], 1, True)
            arg(f"{op}/{dt}/3d/none/keepdims", op, b3, [], None, True)
            b2 = tie_values(dt, (5, 7), 2)
            for axis in [None, 0, 1]:
                arg(f"{op}/{dt}/2d/axis{axis}", op, b2, [], axis)
                arg(f"{op}/{dt}/2d/T/axis{axis}", op, b2, [T()], axis)
            arg(f"{op}/{dt}/2d/reverse/axis1", op, b2, [sl([None, None, -1], [None, None, -1])], 1)
            arg(f"{op}/{dt}/2d/reverse/axisNone", op, b2, [sl([None, None, -1], [None, None, -2])], None)
            arg(f"{op}/{dt}/2d/step/axis0", op, tie_values(dt, (6, 8), 3), [sl([1, None, 2], [None, None, 3])], 0)
            arg(f"{op}/{dt}/2d/bcast/axis0", op, tie_values(dt, (1, 7), 4), [bcast((5, 7))], 0)
            arg(f"{op}/{dt}/3d/transpose/axisNone", op, b3, [{"op": "transpose", "axes": [2, 0, 1]}], None)
            arg(f"{op}/{dt}/1d/long", op, tie_values(dt, (1031,), 5), [], None)
            arg(f"{op}/{dt}/0d", op, tie_values(dt, (), 6), [], None)
            e = np.zeros((0, 3), dt)
            for axis in [None, 0, 1]:
                arg(f"{op}/{dt}/empty/axis{axis}", op, e, [], axis)
            arg(f"{op}/{dt}/empty30/axis0", op, np.zeros((3, 0), dt), [], 0)
    for dt in ["float16", "float32", "float64"]:
        for op in ["argmax", "argmin"]:
            arg(f"{op}/{dt}/first_nan", op, np.array([1, NAN, 3, NAN], dt), [], None)
            arg(f"{op}/{dt}/all_nan", op, np.full((5,), NAN, dt), [], None)
            arg(f"{op}/{dt}/zeros", op, np.array([-0.0, 0.0, -0.0], dt), [], None)
            arg(f"{op}/{dt}/zeros2", op, np.array([0.0, -0.0, 0.0], dt), [], None)
            arg(f"{op}/{dt}/inf", op, np.array([1.0, INF, -INF, INF, -INF, 2.0], dt), [], None)
            v = tie_values(dt, (4, 6), 7)
            v[1, 2] = NAN
            v[1, 4] = NAN
            v[3, 0] = NAN
            v[2, :] = NAN
            for axis in [None, 0, 1]:
                arg(f"{op}/{dt}/nan2d/axis{axis}", op, v, [], axis)
            arg(f"{op}/{dt}/nan2d/T/axis1", op, v, [T()], 1)
            w = np.arange(3000, dtype=dt) % 7
            w[1777] = NAN
            w[2500] = NAN
            arg(f"{op}/{dt}/nan_long", op, w, [], None)
    for dt in ["complex64", "complex128"]:
        for op in ["argmax", "argmin"]:
            arg(f"{op}/{dt}/nan_re_im", op,
                np.array([1 + 1j, 5 + 0j, complex(0, NAN), complex(NAN, 0), 9 + 9j], dt), [], None)
            arg(f"{op}/{dt}/lexicographic", op,
                np.array([1 + 1j, 2 - 5j, 2 + 3j, 2 + 3j, -1 + 9j, 2 - 5j], dt), [], None)

    def moment(cid, op, base, steps, axis, ddof=0, keepdims=False):
        ia, a = operand(g, base, steps)
        f = getattr(np, op)
        kw = {"axis": axis if not isinstance(axis, tuple) else list(axis), "ddof": ddof,
              "keepdims": keepdims}

        def extra(r):
            # Condition scale: the second raw moment over the reduced axes, per degree of
            # freedom (var), divided by 2 std (std); "n" the reduction length.
            ax = axis
            n = a.size if ax is None else int(np.prod([a.shape[i] for i in (ax if isinstance(ax, tuple) else (ax,))]))
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                x = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                m2 = np.sum(np.abs(x) ** 2, axis=ax, keepdims=keepdims) / max(n - ddof, 1)
                if op == "std":
                    sd = np.sqrt(np.var(x, axis=ax, keepdims=keepdims, ddof=ddof))
                    s = np.where(sd > 0, m2 / np.maximum(2 * sd, 1e-300), np.sqrt(m2))
                else:
                    s = m2
            s = np.nan_to_num(np.asarray(s, dtype=np.float64), nan=0.0, posinf=0.0)
            return {"scale": g.arr(s), "n": max(n, 1)}

        def run():
            with warnings.catch_warnings():  # "Degrees of freedom <= 0 for slice"
                warnings.simplefilter("ignore", RuntimeWarning)
                return f(a, axis=axis, ddof=ddof, keepdims=keepdims)

        record(g, cid, op, [ia], run, kw, extra)

    for dt in MOMENT_DTYPES:
        for op in ["var", "std"]:
            b3 = moment_values(dt, (3, 4, 5), 1)
            for axis in [None, 0, 1, -1, (0, 2)]:
                moment(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis)
            for ddof in [1, 2]:
                moment(f"{op}/{dt}/3d/axis1/ddof{ddof}", op, b3, [], 1, ddof)
                moment(f"{op}/{dt}/3d/axisNone/ddof{ddof}", op, b3, [], None, ddof)
            moment(f"{op}/{dt}/3d/axis(0,2)/keepdims", op, b3, [], (0, 2), 1, True)
            moment(f"{op}/{dt}/3d/none/keepdims", op, b3, [], None, 0, True)
            b2 = moment_values(dt, (5, 7), 2)
            moment(f"{op}/{dt}/2d/T/axis1", op, b2, [T()], 1)
            moment(f"{op}/{dt}/2d/reverse/axis0", op, b2, [sl([None, None, -1], [None, None, -2])], 0, 1)
            moment(f"{op}/{dt}/2d/bcast/axis0", op, moment_values(dt, (1, 7), 3), [bcast((5, 7))], 0)
            moment(f"{op}/{dt}/1d/long", op, moment_values(dt, (1031,), 4), [], None, 1)
            moment(f"{op}/{dt}/0d", op, moment_values(dt, (), 5), [], None)
            # n - ddof <= 0: 0/0 is NaN, M2/0 inf (NumPy warns and gives these)
            moment(f"{op}/{dt}/dof0/axis0", op, moment_values(dt, (1, 4), 6), [], 0, 1)
            moment(f"{op}/{dt}/dof_neg/axis0", op, moment_values(dt, (2, 4), 7), [], 0, 3)
            e = np.zeros((0, 3), dt)
            for axis in [None, 0, 1]:
                moment(f"{op}/{dt}/empty/axis{axis}", op, e, [], axis)
    for dt in ["float32", "float64"]:
        v = moment_values(dt, (3, 4), 8)
        v[1, 2] = NAN
        v[2, 0] = INF
        for op in ["var", "std"]:
            moment(f"{op}/{dt}/nan_inf/axis1", op, v, [], 1)
            moment(f"{op}/{dt}/const", op, np.full((9,), 7.25, dt), [], None)
    # The long float32 array (mean 1e4, variance ~0.083): E[x^2] - E[x]^2 in float32 loses every
    # digit here; Welford/Chan and NumPy's two passes do not. Inputs built on the Rust side.
    x = long_values()
    for op in ["var", "std"]:
        for ddof in [0, 1]:
            r = getattr(np, op)(x, ddof=ddof)
            g.case(id=f"{op}/float32/long_mean1e4/ddof{ddof}", op=f"{op}_long", inputs=[],
                   kwargs={"n": LONG_N, "ddof": ddof}, expected=g.arr(r), dtype=r.dtype.name,
                   shape=list(np.shape(r)), exact_f64=float(getattr(np, op)(x.astype(np.float64), ddof=ddof)))
    g.write()

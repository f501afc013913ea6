"""Ufunc keyword and method goldens: dtype=/where=/casting=/out= on ufunc calls, and the methods
reduce, accumulate, reduceat, outer and at.

Case ops:
    call        kwargs: ufunc, dtype (name or null), casting, where (index of the mask among the
                inputs) and out (index of the out array, whose initial content is given; the
                expected value is out after the call)
    reduce      kwargs: ufunc, axis (int, list or null), keepdims, dtype, initial ({"weak":..}),
                where (input index), out (input index)
    accumulate  kwargs: ufunc, axis, dtype, out
    reduceat    kwargs: ufunc, axis, dtype, out; inputs [array, indices]
    outer       kwargs: ufunc, dtype; inputs [a, b]
    at          kwargs: ufunc; inputs [a, indices] or [a, indices, b] (b may be a weak scalar);
                the expected value is a after the call
"""

import functools

from .common import *  # noqa: F401,F403

KW_DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"]


def kw_values(dt, shape, shift=0):
    """Small non-negative values: every cast between the dtypes here is defined (no NaN, no
    negative float to unsigned)."""
    return cyc([0, 1, 2, 3, 4, 5, 6, 7, 9, 12], shape, dt, shift)


def kw_rhs(dt, shape):
    return cyc([1, 2, 3, 1, 2, 5, 4, 3, 2, 7], shape, dt, 3)


def gen_call(g):
    def call(cid, name, arrays, dtype=None, casting="same_kind", where=None, out=None, weak_args=None):
        f = getattr(np, name)
        inputs, vals = [], []
        for a in arrays:
            if isinstance(a, tuple) and a[0] == "weak":
                i, v = weak(a[1])
            else:
                i, v = operand(g, a)
            inputs.append(i)
            vals.append(v)
        kw = {"ufunc": name, "dtype": dtype, "casting": casting}
        call_kw = {"casting": casting}
        if dtype is not None:
            call_kw["dtype"] = np.dtype(dtype)
        if where is not None:
            iw, w = operand(g, where)
            kw["where"] = len(inputs)
            inputs.append(iw)
            call_kw["where"] = w
        if out is not None:
            io, _ = operand(g, out)
            kw["out"] = len(inputs)
            inputs.append(io)
            o = out.copy()
            call_kw["out"] = o
        record(g, cid, "call", inputs, lambda: f(*vals, **call_kw), kw)

    binary = ["add", "subtract", "multiply", "true_divide", "floor_divide", "power", "maximum",
              "arctan2", "less", "logical_and", "bitwise_and"]
    unary = ["negative", "sqrt", "exp", "absolute", "floor", "isnan", "logical_not"]
    # dtype=: every (input dtype, dtype) pair, same_kind and unsafe.
    for name in binary + unary:
        for it in KW_DTYPES:
            for d in KW_DTYPES:
                for casting in ["same_kind", "unsafe"]:
                    a = kw_values(it, (2, 5))
                    arrs = [a] if name in unary else [a, kw_rhs(it, (2, 5))]
                    call(f"call/{name}/{it}/dtype={d}/{casting}", name, arrs, dtype=d, casting=casting)
    # absolute of complex with a real dtype= (the complex loop of that precision).
    for d in ["float32", "float64", "complex128", "int8"]:
        call(f"call/absolute/complex128/dtype={d}", "absolute",
             [np.array([3 + 4j, -1 + 0j, 0j, 2 - 2j], np.complex128)], dtype=d)
    # casting= for inputs and out.
    pairs = [("int8", "int8"), ("int8", "int16"), ("int8", "float32"), ("float64", "float32"),
             ("uint8", "int8"), ("bool", "bool")]
    outs = [None, "int16", "float32", "int8", "float64", "bool"]
    for name in ["add", "true_divide", "logical_and", "less", "sqrt", "absolute", "maximum"]:
        for (x, y) in pairs:
            for casting in ["no", "equiv", "safe", "same_kind", "unsafe"]:
                for od in outs:
                    arrs = [kw_values(x, (5,))] if name in ("sqrt", "absolute") else [kw_values(x, (5,)), kw_rhs(y, (5,))]
                    if name in ("sqrt", "absolute") and y != x:
                        continue
                    out = None if od is None else np.full((5,), 1, od)
                    call(f"call/{name}/{x},{y}/casting={casting}/out={od}", name, arrs, casting=casting, out=out)
    # Weak scalars under casting= and dtype=.
    i8 = kw_values("int8", (5,))
    f32 = kw_values("float32", (5,))
    for (cid, arrs, kw) in [
        ("i8+1/no", [i8, ("weak", 1)], {"casting": "no"}),
        ("i8+1.5/no", [i8, ("weak", 1.5)], {"casting": "no"}),
        ("i8+1.5/same_kind", [i8, ("weak", 1.5)], {}),
        ("i8+300/dtype=int16", [i8, ("weak", 300)], {"dtype": "int16"}),
        ("i8+300/dtype=int8", [i8, ("weak", 300)], {"dtype": "int8"}),
        ("i8+1.5/dtype=int8", [i8, ("weak", 1.5)], {"dtype": "int8"}),
        ("i8+1.5/dtype=int8/unsafe", [i8, ("weak", 1.5)], {"dtype": "int8", "casting": "unsafe"}),
        ("i8+True/no", [i8, ("weak", True)], {"casting": "no"}),
        ("f32+2.5/no", [f32, ("weak", 2.5)], {"casting": "no"}),
        ("f32+2.5/dtype=float16", [f32, ("weak", 2.5)], {"dtype": "float16"}),
        ("i8<300/dtype=bool", [i8, ("weak", 300)], {"dtype": "bool"}),
    ]:
        name = "less" if "<" in cid else "add"
        call(f"call/weak/{cid}", name, arrs, **kw)
    # where= with out: mask shapes that broadcast, and out larger than the operands.
    masks = {
        "full": cyc([True, False, False, True, True, False, True], (3, 5), "bool"),
        "row": np.array([True, False, True, True, False]),
        "col": np.array([[False], [True], [True]]),
        "true0d": np.array(True),
        "false0d": np.array(False),
    }
    for name in ["add", "multiply", "sqrt", "maximum", "less", "negative", "true_divide"]:
        for dt in ["bool", "int8", "float32", "float64", "uint16"]:
            for mname, m in masks.items():
                a = kw_values(dt, (3, 5))
                arrs = [a] if name in ("sqrt", "negative") else [a, kw_rhs(dt, (5,))]
                probe = np.errstate(all="ignore")
                with probe:
                    try:
                        rdt = getattr(np, name)(*arrs).dtype
                    except TypeError:
                        rdt = np.dtype(dt)
                out = np.full((3, 5), 9 if rdt.kind != "b" else True, rdt)
                call(f"call/{name}/{dt}/where={mname}/out", name, arrs, where=m, out=out)
    # where= together with dtype= and an out of another dtype; a mask that does not broadcast;
    # a non-bool mask.
    a = kw_values("int8", (3, 5))
    call("call/add/int8/where/dtype=float32/out=float64", "add", [a, a], dtype="float32",
         where=masks["full"], out=np.full((3, 5), -1.0))
    call("call/add/int8/where=bad_shape", "add", [a, a], where=np.array([True, False]),
         out=np.zeros((3, 5), np.int8))
    call("call/add/int8/where=int", "add", [a, a], where=np.array([1, 0, 1, 1, 0]),
         out=np.zeros((3, 5), np.int8))
    # out broadcasts the operands to its shape.
    call("call/add/out_bigger", "add", [kw_values("float32", (5,)), ("weak", 1.0)],
         out=np.zeros((3, 5), np.float32), where=masks["row"])


REORDERABLE = ["add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
               "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "hypot", "logaddexp"]
ORDERED = ["subtract", "true_divide", "floor_divide", "remainder", "fmod", "power", "arctan2",
           "copysign", "left_shift", "equal", "less"]


def method_values(name, dt, shape, seed):
    """Operands of a reduce-like method: products and powers stay small, divisors non-zero."""
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if name in ("multiply", "power") or (name == "true_divide" and d.kind in "iub"):
        if d.kind == "b":
            v = rng.random(n) < 0.8
        elif d.kind in "iu":
            v = rng.integers(1, 4, n)
        else:
            v = rng.uniform(0.5, 1.5, n)
        return np.asarray(v).astype(dt).reshape(shape)
    if name in ("left_shift",) and d.kind in "iu":
        return rng.integers(0, 3, n).astype(dt).reshape(shape)
    if name in ("true_divide", "floor_divide", "remainder", "fmod") and d.kind == "f":
        v = rng.uniform(0.5, 4, n) * rng.choice([-1, 1], n)
        return v.astype(dt).reshape(shape)
    return red_values(dt, shape, seed)


def weak_json(v):
    return weak(v)[0]


def gen_reduce(g):
    def red(cid, name, base, axis=0, keepdims=False, dtype=None, initial=None, where=None, out=None, steps=()):
        f = getattr(np, name).reduce
        ia, a = operand(g, base, steps)
        inputs = [ia]
        kw = {"ufunc": name, "axis": list(axis) if isinstance(axis, tuple) else axis, "keepdims": keepdims,
              "dtype": dtype, "initial": None if initial is None else weak_json(initial)}
        call_kw = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            call_kw["dtype"] = np.dtype(dtype)
        if initial is not None:
            call_kw["initial"] = initial
        if where is not None:
            iw, w = operand(g, where)
            kw["where"] = len(inputs)
            inputs.append(iw)
            call_kw["where"] = w
        if out is not None:
            io, _ = operand(g, out)
            kw["out"] = len(inputs)
            inputs.append(io)
            call_kw["out"] = out.copy()

        def extra(r):
            if r.dtype.kind not in "fc":
                return {}
            ax = axis if isinstance(axis, tuple) else (tuple(range(a.ndim)) if axis is None else (axis,))
            n = int(np.prod([a.shape[i] for i in ax])) if a.ndim else 1
            with np.errstate(all="ignore"):
                absa = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
                wk = {} if where is None else {"where": np.broadcast_to(where, a.shape)}
                if name in ("add", "subtract", "logaddexp"):
                    s = np.add.reduce(absa, axis=axis, keepdims=keepdims, **wk)
                    if initial is not None:
                        s = s + abs(initial)
                    if name == "logaddexp":
                        s = s + 1
                else:
                    s = np.abs(r.astype(np.complex128 if r.dtype.kind == "c" else np.float64))
            return {"scale": g.arr(np.asarray(s, dtype=np.float64)), "n": max(n + 1, 1)}

        def run():
            if (name in ("power", "arctan2") and isinstance(axis, int) and where is None and initial is None
                    and dtype is None and out is None and a.ndim > 0 and a.shape[axis] > 0
                    and f.__self__(a.ravel()[:1], a.ravel()[:1]).dtype in (np.float32, np.float64)):
                # NumPy 2.2's float32/float64 power and arctan2 loops (integers too, which loop in
                # float64) give f(x[0], x[-1]) when
                # the reduced axis is the contiguous inner one (the SIMD loop does not see the
                # accumulator change); every other layout folds in order. The reference here is
                # that in-order fold.
                r = functools.reduce(f.__self__, np.moveaxis(a, axis, 0))
                return np.expand_dims(r, axis) if keepdims else r
            return f(a, **call_kw)

        record(g, cid, "reduce", inputs, run, kw, extra)

    for name in REORDERABLE + ORDERED:
        for dt in DTYPES:
            b3 = method_values(name, dt, (2, 3, 4), 1)
            axes = [0, 1, -1, None, (0, 2), ()] if name in REORDERABLE else [0, 1, -1, ()]
            for axis in axes:
                red(f"reduce/{name}/{dt}/axis{axis}", name, b3, axis=axis)
            red(f"reduce/{name}/{dt}/axis1/keepdims", name, b3, axis=1, keepdims=True)
            red(f"reduce/{name}/{dt}/T/axis0", name, method_values(name, dt, (5, 3), 2), axis=0, steps=[T()])
            red(f"reduce/{name}/{dt}/1d", name, method_values(name, dt, (37,), 3))
            e = np.zeros((0, 3), dt)
            red(f"reduce/{name}/{dt}/empty/axis0", name, e, axis=0)
            red(f"reduce/{name}/{dt}/empty/axis1", name, e, axis=1)
            red(f"reduce/{name}/{dt}/0d", name, method_values(name, dt, (), 4))
        if name in ORDERED:
            # not reorderable: several axes (and axis=None of a 3-D array) are a ValueError
            b3 = method_values(name, "float64", (2, 3, 4), 1)
            red(f"reduce/{name}/float64/axisNone", name, b3, axis=None)
            red(f"reduce/{name}/float64/axis(0,2)", name, b3, axis=(0, 2))
    for dt in FLOATS:
        v = red_values(dt, (3, 4), 6)
        v[1, 2] = np.nan
        for name in ["add", "maximum", "minimum", "fmax", "fmin", "subtract"]:
            red(f"reduce/{name}/{dt}/nan/axis0", name, v, axis=0)
            red(f"reduce/{name}/{dt}/nan/axis1", name, v, axis=1)
        allnan = np.full((2, 3), np.nan, dt)
        red(f"reduce/fmax/{dt}/allnan", "fmax", allnan, axis=1)
    # initial=
    for dt in ["int8", "int64", "uint8", "float32", "float64", "bool"]:
        b = red_values(dt, (3, 4), 7)
        e = np.zeros((0, 4), dt)
        for name, init in [("add", 5), ("maximum", 3), ("minimum", -3 if dt[0] != "u" and dt != "bool" else 3),
                           ("subtract", 100 if dt != "bool" else True), ("multiply", 2), ("bitwise_and", 6),
                           ("logical_or", True), ("add", 1.5)]:
            if dt == "bool" and name in ("subtract",):
                continue
            if isinstance(init, float) and dt[0] in "iub":
                init_v = init
            else:
                init_v = init
            red(f"reduce/{name}/{dt}/initial={init}/axis1", name, b, axis=1, initial=init_v)
            red(f"reduce/{name}/{dt}/initial={init}/empty", name, e, axis=0, initial=init_v)
    red("reduce/add/int8/dtype=int8/initial=300", "add", red_values("int8", (3,), 1), dtype="int8", initial=300)
    red("reduce/add/int8/initial=300", "add", red_values("int8", (3,), 1), initial=300)
    # where=
    b = red_values("float64", (2, 3, 4), 8)
    bi = red_values("int32", (2, 3, 4), 8)
    row = np.array([True, False, True, True])
    full = cyc([True, False, True, False, False, True, True], (2, 3, 4), "bool")
    for dt, base in [("float64", b), ("int32", bi), ("float32", b.astype(np.float32))]:
        for name in ["add", "multiply", "maximum", "minimum", "subtract", "logical_or", "bitwise_or", "fmax"]:
            if dt != "int32" and name == "bitwise_or":
                continue
            for mname, m in [("row", row), ("full", full), ("false", np.array(False))]:
                for axis in ([1, None, (0, 2)] if name != "subtract" else [1]):
                    red(f"reduce/{name}/{dt}/where={mname}/axis{axis}", name, base, axis=axis, where=m, keepdims=True)
                    red(f"reduce/{name}/{dt}/where={mname}/axis{axis}/initial=2", name, base, axis=axis, where=m, initial=2)
    red("reduce/add/float64/where=badshape", "add", b, axis=1, where=np.array([True, False]))
    red("reduce/add/float64/where=int", "add", b, axis=1, where=np.array([1, 0, 1, 1]))
    # dtype= and out=
    i8 = red_values("int8", (3, 40), 9)
    f64 = red_values("float64", (3, 5), 10)
    for cid, name, a, kw in [
        ("add/int8/dtype=int8", "add", i8, {"dtype": "int8", "axis": 1}),
        ("add/int8/dtype=float32", "add", i8, {"dtype": "float32", "axis": 1}),
        ("add/float64/dtype=int32", "add", f64, {"dtype": "int32", "axis": 1}),
        ("add/float64/dtype=bool", "add", f64, {"dtype": "bool", "axis": 1}),
        ("multiply/int8/dtype=int8", "multiply", i8, {"dtype": "int8", "axis": 1}),
        ("less/int8", "less", i8, {"axis": 1}),
        ("less/int8/dtype=bool", "less", i8, {"dtype": "bool", "axis": 1}),
        ("logical_and/float64", "logical_and", f64, {"axis": 1}),
        ("logical_xor/int8/dtype=int8", "logical_xor", i8, {"dtype": "int8", "axis": 1}),
        ("true_divide/int8", "true_divide", method_values("true_divide", "int8", (3, 4), 1), {"axis": 1}),
        ("subtract/bool", "subtract", red_values("bool", (3, 4), 1), {"axis": 1}),
        ("sqrt", "sqrt", f64, {"axis": 1}),
        ("add/int8/out=int8", "add", i8, {"axis": 1, "out": np.zeros(3, np.int8)}),
        ("add/int8/out=float32", "add", i8, {"axis": 1, "out": np.zeros(3, np.float32)}),
        ("add/float64/out=int64", "add", f64, {"axis": 1, "out": np.zeros(3, np.int64)}),
        ("add/float64/out=keepdims", "add", f64, {"axis": 1, "keepdims": True, "out": np.zeros((3, 1))}),
        ("add/float64/out=badshape", "add", f64, {"axis": 1, "out": np.zeros((3, 1))}),
        ("maximum/int8/out=int16", "maximum", i8, {"axis": 0, "out": np.zeros(40, np.int16)}),
        ("subtract/int8/out=int8/dtype=int16", "subtract", i8, {"axis": 1, "dtype": "int16", "out": np.zeros(3, np.int8)}),
        ("add/axis5", "add", f64, {"axis": 5}),
        ("add/axis-3", "add", f64, {"axis": -3}),
        ("add/axis(0,0)", "add", f64, {"axis": (0, 0)}),
        ("add/axis(-1,0)", "add", f64, {"axis": (-1, 0)}),
        ("add/0d/axisNone", "add", np.array(5), {"axis": None}),
        ("add/0d/axis-1", "add", np.array(5), {"axis": -1}),
        ("add/0d/axis1", "add", np.array(5), {"axis": 1}),
        ("add/0d/keepdims", "add", np.array(5.5), {"axis": 0, "keepdims": True}),
        ("maximum/empty00", "maximum", np.zeros((0, 0)), {"axis": 0}),
        ("maximum/empty30/axis0", "maximum", np.zeros((3, 0)), {"axis": 0}),
        ("maximum/empty30/axis1", "maximum", np.zeros((3, 0)), {"axis": 1}),
        ("maximum/empty03/axisNone", "maximum", np.zeros((0, 3)), {"axis": None}),
        ("logaddexp/empty", "logaddexp", np.zeros(0), {}),
        ("bitwise_and/uint8/empty", "bitwise_and", np.zeros(0, np.uint8), {}),
        ("bitwise_and/bool/empty", "bitwise_and", np.zeros(0, bool), {}),
    ]:
        red("reduce/kw/" + cid, name, a, **kw)
    # complex: add, multiply, maximum (ordered fold), subtract
    c = (red_values("float64", (3, 4), 11) + 1j * red_values("float64", (3, 4), 12)).astype(np.complex128)
    for name in ["add", "multiply", "maximum", "minimum", "subtract", "logical_or"]:
        for dt in ["complex64", "complex128"]:
            for axis in [0, 1, None] if name != "subtract" else [0, 1]:
                red(f"reduce/{name}/{dt}/axis{axis}", name, c.astype(dt), axis=axis)


def method_case(g):
    """A recorder of accumulate/reduceat cases (inputs [array, (indices), (out)])."""
    def acc(cid, op, name, base, axis=0, dtype=None, out=None, indices=None, steps=()):
        m = getattr(getattr(np, name), op)
        ia, a = operand(g, base, steps)
        inputs = [ia]
        kw = {"ufunc": name, "axis": axis, "dtype": dtype}
        call_kw = {"axis": axis}
        if dtype is not None:
            call_kw["dtype"] = np.dtype(dtype)
        args = [a]
        if indices is not None:
            ii, iv = operand(g, np.asarray(indices, dtype=np.int64))
            inputs.append(ii)
            args.append(iv)
        if out is not None:
            io, _ = operand(g, out)
            kw["out"] = len(inputs)
            inputs.append(io)
            call_kw["out"] = out.copy()

        def extra(r):
            if r.dtype.kind not in "fc" or a.ndim == 0:
                return {}
            with np.errstate(all="ignore"):
                absa = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
                if name in ("add", "subtract"):
                    s = getattr(np.add, op)(absa, *args[1:], axis=axis)
                else:
                    s = np.abs(r.astype(np.complex128 if r.dtype.kind == "c" else np.float64))
            return {"scale": g.arr(np.asarray(s, dtype=np.float64)), "n": a.shape[axis] + 1}

        record(g, cid, op, inputs, lambda: m(*args, **call_kw), kw, extra)

    return acc


def gen_accumulate(g):
    acc = method_case(g)
    for name in ["add", "multiply", "maximum", "minimum", "fmax", "subtract", "true_divide", "logical_and",
                 "logical_or", "bitwise_xor", "less", "hypot", "power"]:
        for dt in DTYPES:
            b2 = method_values(name, dt, (3, 6), 1)
            for axis in [0, 1, -1]:
                acc(f"accumulate/{name}/{dt}/axis{axis}", "accumulate", name, b2, axis=axis)
            acc(f"accumulate/{name}/{dt}/1d/reverse", "accumulate", name, method_values(name, dt, (9,), 2),
                steps=[sl([None, None, -1])])
            acc(f"accumulate/{name}/{dt}/empty", "accumulate", name, np.zeros((0, 3), dt))
    for dt in FLOATS:
        v = red_values(dt, (3, 4), 6)
        v[1, 1] = np.nan
        for name in ["add", "maximum", "fmax"]:
            acc(f"accumulate/{name}/{dt}/nan", "accumulate", name, v, axis=1)
    i8 = red_values("int8", (2, 40), 9)
    f64 = red_values("float64", (2, 5), 10)
    for cid, name, a, kw in [
        ("add/int8/dtype=int8", "add", i8, {"dtype": "int8", "axis": 1}),
        ("add/int8/dtype=float32", "add", i8, {"dtype": "float32", "axis": 1}),
        ("add/float64/dtype=int32", "add", f64, {"dtype": "int32", "axis": 1}),
        ("add/bool/dtype=bool", "add", red_values("bool", (2, 5), 1), {"dtype": "bool", "axis": 1}),
        ("add/int8/out=int8", "add", i8, {"axis": 1, "out": np.zeros((2, 40), np.int8)}),
        ("add/float64/out=int32", "add", f64, {"axis": 1, "out": np.zeros((2, 5), np.int32)}),
        ("add/float64/out=badshape", "add", f64, {"axis": 1, "out": np.zeros((2, 4))}),
        ("logical_and/float64", "logical_and", f64, {"axis": 1}),
        ("less/int8", "less", i8, {"axis": 1}),
        ("add/axis2", "add", f64, {"axis": 2}),
        ("add/0d", "add", np.array(5), {}),
        ("sqrt", "sqrt", f64, {}),
    ]:
        acc("accumulate/kw/" + cid, "accumulate", name, a, **kw)
    c = (red_values("float64", (3, 4), 11) + 1j * red_values("float64", (3, 4), 12))
    for dt in ["complex64", "complex128"]:
        for name in ["add", "multiply", "subtract", "maximum"]:
            acc(f"accumulate/{name}/{dt}/axis1", "accumulate", name, c.astype(dt), axis=1)


def gen_reduceat(g):
    acc = method_case(g)
    for name in ["add", "multiply", "maximum", "minimum", "subtract"]:
        for dt in DTYPES:
            a1 = method_values(name, dt, (8,), 3)
            for ix in [[0, 4, 1, 5], [0, 4, 1, 5, 7], [3, 1], [7], [0], [2, 2, 5]]:
                acc(f"reduceat/{name}/{dt}/1d/{ix}", "reduceat", name, a1, indices=ix)
            a2 = method_values(name, dt, (3, 8), 4)
            acc(f"reduceat/{name}/{dt}/2d/axis1", "reduceat", name, a2, axis=1, indices=[0, 3, 5])
            acc(f"reduceat/{name}/{dt}/2d/axis-2", "reduceat", name, a2, axis=-2, indices=[1, 0])
            acc(f"reduceat/{name}/{dt}/2d/T", "reduceat", name, a2, axis=0, indices=[0, 2, 6], steps=[T()])
    a1 = red_values("int64", (8,), 3)
    for cid, kw in [
        ("oob", {"indices": [0, 8]}),
        ("negative", {"indices": [-1]}),
        ("empty", {"indices": []}),
        ("int8/default", {"indices": [0, 4]}),
        ("dtype=float32", {"indices": [0, 4], "dtype": "float32"}),
        ("out=int8", {"indices": [0, 4], "out": np.zeros(2, np.int8)}),
        ("empty_array", {"indices": [0]}),
    ]:
        base = a1.astype(np.int8) if "int8" in cid else (np.zeros(0) if cid == "empty_array" else a1)
        acc("reduceat/kw/" + cid, "reduceat", "add", base, **kw)
    acc("reduceat/kw/0d", "reduceat", "add", np.array(5), indices=[0])


def gen_outer(g):
    def outer(cid, name, a, b, dtype=None):
        f = getattr(np, name).outer
        ia, av = operand(g, a)
        if isinstance(b, (int, float)):
            ib, bv = weak(b)
        else:
            ib, bv = operand(g, b)
        kw = {"ufunc": name, "dtype": dtype}
        call_kw = {} if dtype is None else {"dtype": np.dtype(dtype)}
        record(g, cid, "outer", [ia, ib], lambda: f(av, bv, **call_kw), kw)

    for name in ["add", "subtract", "multiply", "maximum", "less", "power", "arctan2", "logical_and",
                 "true_divide"]:
        for dt in ["bool", "int8", "int32", "uint16", "float16", "float32", "float64"]:
            a = method_values(name, dt, (3,), 1)
            b = method_values(name, dt, (4,), 2)
            outer(f"outer/{name}/{dt}/1dx1d", name, a, b)
            outer(f"outer/{name}/{dt}/2dx1d", name, method_values(name, dt, (2, 3), 3), b)
    outer("outer/add/int8/scalar", "add", red_values("int8", (3,), 1), 2)
    outer("outer/add/int8/dtype=float32", "add", red_values("int8", (3,), 1), red_values("int8", (2,), 2), "float32")
    outer("outer/sqrt", "sqrt", red_values("float64", (3,), 1), red_values("float64", (2,), 2))


def gen_at(g):
    def at(cid, name, a, idx, b=None, steps=()):
        f = getattr(np, name).at
        ia, av = operand(g, a, steps)
        ii, iv = operand(g, np.asarray(idx, dtype=np.int64))
        inputs = [ia, ii]
        args = [iv]
        if b is not None:
            if isinstance(b, (bool, int, float)):
                ib, bv = weak(b)
            else:
                ib, bv = operand(g, b)
            inputs.append(ib)
            args.append(bv)
        target = av.copy()

        def run():
            f(target, *args)
            return target

        record(g, cid, "at", inputs, run, {"ufunc": name})

    idx = [0, 2, 0, 4, 2, 0, -1]
    for name in ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "logical_or", "bitwise_xor",
                 "true_divide", "power", "negative"]:
        for dt in ["bool", "int8", "int32", "int64", "uint8", "float16", "float32", "float64"]:
            def vals(shape, seed):
                v = method_values(name, dt, shape, seed)
                if np.dtype(dt).kind == "f" and name in ("add", "subtract"):
                    v = np.round(v)  # exact sums in any order (atomics)
                return v
            unary = name == "negative"
            a1 = vals((5,), 1)
            at(f"at/{name}/{dt}/1d", name, a1, idx, None if unary else vals((len(idx),), 2))
            a2 = vals((5, 3), 3)
            at(f"at/{name}/{dt}/2d/row", name, a2, idx, None if unary else vals((3,), 4))
            at(f"at/{name}/{dt}/2d/full", name, a2, [1, 1, 3], None if unary else vals((3, 3), 5))
            at(f"at/{name}/{dt}/2d/T", name, vals((3, 5), 6), [0, 2, 0], None if unary else vals((3,), 7), steps=[T()])
            if not unary:
                at(f"at/{name}/{dt}/1d/scalar", name, a1, idx, 2 if dt != "bool" else True)
    at("at/add/int8/scalar300", "add", np.zeros(3, np.int8), [0, 0], 300)
    at("at/add/float32/scalar_f64", "add", np.ones(3, np.float32), [0], 2.0**-24 + 2.0**-50)
    at("at/add/int64/int8_values", "add", np.zeros(3, np.int64), [0, 0, 1], np.array([100, 100, 7], np.int8))
    at("at/add/int8/int16_values", "add", np.zeros(3, np.int8), [0, 0, 1], np.array([200, 100, 7], np.int16))
    at("at/add/oob", "add", np.zeros(3), [5], 1.0)
    at("at/add/missing_b", "add", np.zeros(3), [0])
    at("at/negative/extra_b", "negative", np.zeros(3), [0], 1.0)
    at("at/add/bad_b", "add", np.zeros(3), [0, 1], np.array([1.0, 2.0, 3.0]))
    at("at/add/empty_idx", "add", np.zeros(3), [], 1.0)


def gen_ufunc_methods():
    g = Group("ufunc_methods")
    gen_call(g)
    gen_reduce(g)
    gen_accumulate(g)
    gen_outer(g)
    gen_at(g)
    gen_reduceat(g)
    g.write()

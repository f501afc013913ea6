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


def gen_ufunc_methods():
    g = Group("ufunc_methods")
    gen_call(g)
    g.write()

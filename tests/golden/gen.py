#!/usr/bin/env python3
"""Golden generator for cupy-rs's integration tests (NumPy/SciPy are the oracle).

Pinned versions (checked at start; regenerate with the same ones, or bump both the pins and the
goldens in one commit):
    numpy 2.2.6
    scipy 1.17.1

Run from anywhere:  python3 tests/golden/gen.py
Writes, per group G (creation, astype, ufuncs, reductions, linalg, signal, views, printing,
sorting, custom, indexing, complex); `gen.py G...` regenerates only the named groups:
    tests/golden/G.npys   every array of the group, each a complete .npy file (format 1.0),
                          concatenated; deduplicated by content
    tests/golden/G.json   {"numpy":..., "scipy":..., "arrays": {name: [offset, length]},
                           "cases": [...]}

A case is a JSON object:
    id        unique, human readable ("add/float32/T")
    op        the routine ("add", "sum", "matmul", "convolve2d", "arange", ...)
    inputs    list of operands, each {"array": name, "view": [steps]} or a weak (Python) scalar
              {"weak": "int"|"float"|"bool", "value": v} (floats: a number or "nan"/"inf"/"-inf")
    kwargs    op arguments (axis, keepdims, mode, dtype, start/stop/step, ...)
    expected  array name of NumPy's result (C order), absent when an error is expected
    dtype     NumPy's result dtype name
    shape     NumPy's result shape
    error     NumPy's exception class name when the call raises (TypeError, OverflowError,
              ValueError); the Rust side maps it to the error variant it expects
    scale     (reductions, matmul, convolutions) array name of the same op applied to |inputs|
              (the condition scale the float tolerance is relative to), and "n" the reduction length

A view step (applied on the device to the uploaded base array, and here to build the expected
result) is one of:
    {"op": "T"}                        a.T
    {"op": "transpose", "axes": [...]}
    {"op": "slice", "items": [...]}    basic indexing; an item is an int, [start, stop, step] with
                                       nulls, "newaxis" or "..."
    {"op": "broadcast_to", "shape": [...]}
    {"op": "reshape", "shape": [...]}
    {"op": "swapaxes", "a": i, "b": j}
    {"op": "expand_dims", "axis": i}
    {"op": "squeeze"}
"""

import hashlib
import io
import json
import os
import sys

import numpy as np
import scipy
import scipy.signal

PINNED = {"numpy": "2.2.6", "scipy": "1.17.1"}
if np.__version__ != PINNED["numpy"] or scipy.__version__ != PINNED["scipy"]:
    sys.exit(
        f"gen.py is pinned to numpy {PINNED['numpy']} / scipy {PINNED['scipy']}, "
        f"found {np.__version__} / {scipy.__version__}"
    )

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
]
FLOATS = ["float16", "float32", "float64"]


class Group:
    def __init__(self, name):
        self.name = name
        self.blobs = []
        self.offset = 0
        self.index = {}
        self.keys = {}
        self.cases = []
        self.ids = set()

    def arr(self, a):
        a = np.asarray(a).copy(order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
        buf = io.BytesIO()
        np.lib.format.write_array(buf, a, version=(1, 0), allow_pickle=False)
        b = buf.getvalue()
        key = hashlib.sha1(b).hexdigest()
        if key not in self.keys:
            self.keys[key] = f"a{len(self.keys)}"
            self.index[self.keys[key]] = [self.offset, len(b)]
            self.blobs.append(b)
            self.offset += len(b)
        return self.keys[key]

    def case(self, **kw):
        assert kw["id"] not in self.ids, kw["id"]
        self.ids.add(kw["id"])
        self.cases.append(kw)

    def write(self):
        with open(os.path.join(HERE, f"{self.name}.npys"), "wb") as f:
            for b in self.blobs:
                f.write(b)
        man = {
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "arrays": self.index,
            "cases": self.cases,
        }
        # One case per line keeps diffs of regenerated goldens readable.
        with open(os.path.join(HERE, f"{self.name}.json"), "w") as f:
            c = (",", ":")
            f.write('{"numpy":%s,"scipy":%s,\n"arrays":%s,\n"cases":[\n' % (
                json.dumps(man["numpy"]), json.dumps(man["scipy"]), json.dumps(man["arrays"], separators=c)))
            f.write(",\n".join(json.dumps(x, separators=c) for x in self.cases))
            f.write("\n]}\n")
        print(f"{self.name}: {len(self.cases)} cases, {len(self.index)} arrays, {self.offset} bytes")


# ---------- views ----------

def apply_view(a, steps):
    for s in steps:
        op = s["op"]
        if op == "T":
            a = a.T
        elif op == "transpose":
            a = a.transpose(s["axes"])
        elif op == "slice":
            items = []
            for it in s["items"]:
                if isinstance(it, int):
                    items.append(it)
                elif it == "newaxis":
                    items.append(None)
                elif it == "...":
                    items.append(Ellipsis)
                else:
                    items.append(slice(*it))
            a = a[tuple(items)]
        elif op == "broadcast_to":
            a = np.broadcast_to(a, s["shape"])
        elif op == "reshape":
            a = a.reshape(s["shape"])
        elif op == "swapaxes":
            a = a.swapaxes(s["a"], s["b"])
        elif op == "expand_dims":
            a = np.expand_dims(a, s["axis"])
        elif op == "squeeze":
            a = a.squeeze()
        else:
            raise ValueError(op)
    return a


def T():
    return {"op": "T"}


def sl(*items):
    return {"op": "slice", "items": list(items)}


def bcast(shape):
    return {"op": "broadcast_to", "shape": list(shape)}


def operand(g, base, steps=()):
    steps = list(steps)
    return {"array": g.arr(base), "view": steps}, apply_view(base, steps)


def weak(v):
    if isinstance(v, bool):
        return {"weak": "bool", "value": v}, v
    if isinstance(v, int):
        return {"weak": "int", "value": v}, v
    if np.isnan(v):
        return {"weak": "float", "value": "nan"}, v
    if np.isinf(v):
        return {"weak": "float", "value": "inf" if v > 0 else "-inf"}, v
    return {"weak": "float", "value": v}, v


def record(g, cid, op, inputs, fn, kwargs=None, extra=None):
    """Runs fn() under errstate(all='ignore') and records the result or the exception."""
    c = {"id": cid, "op": op, "inputs": inputs, "kwargs": kwargs or {}}
    try:
        with np.errstate(all="ignore"):
            r = fn()
    except (TypeError, OverflowError, ValueError, IndexError) as e:
        c["error"] = type(e).__name__ if not isinstance(e, TypeError) else "TypeError"
        c["message"] = str(e)
        g.case(**c)
        return None
    r = np.asarray(r)
    c["expected"] = g.arr(r)
    c["dtype"] = r.dtype.name
    c["shape"] = list(r.shape)
    if extra:
        c.update(extra(r) if callable(extra) else extra)
    g.case(**c)
    return r


# ---------- values ----------

RNG = np.random.default_rng(20261129)


def cyc(vals, shape, dtype, shift=0):
    n = int(np.prod(shape))
    vals = list(vals)
    out = [vals[(i * 7 + shift) % len(vals)] for i in range(n)]
    return np.array(out, dtype=dtype).reshape(shape)


def lhs_values(dt):
    """First operands: specials for floats, extremes and negatives for integers."""
    d = np.dtype(dt)
    if d.kind == "b":
        return [True, False, True, True, False]
    if d.kind == "i":
        info = np.iinfo(d)
        return [0, 1, -1, 7, -7, 13, -13, 100 % (info.max + 1), -100 if info.bits > 8 else -100,
                info.min, info.max, 3, -4, 42, 5, -9, 27]
    if d.kind == "u":
        info = np.iinfo(d)
        return [0, 1, 7, 13, 100, info.max, info.max - 1, 3, 42, 5, 27, 128, 200]
    return [0.0, -0.0, 1.0, -2.5, 3.75, 0.1, 1e-3, 100.0, -7.0, np.nan, np.inf, -np.inf,
            0.5, 2.0, -0.75, 10.0, 1.0, -1.0]


def rhs_values(dt):
    """Second operands: zero divisors, -1, negatives, specials."""
    d = np.dtype(dt)
    if d.kind == "b":
        return [True, True, False, True, False, False, True]
    if d.kind == "i":
        info = np.iinfo(d)
        return [3, 0, -1, 2, -3, 5, 1, -7, info.max, info.min, 4, -2, 9]
    if d.kind == "u":
        info = np.iinfo(d)
        return [3, 0, 1, 2, 5, 7, info.max, 4, 9, 250 % (info.max + 1)]
    return [3.0, 0.0, -0.0, 0.1, -1.5, 2.0, np.inf, -np.inf, np.nan, 0.25, -3.0, 1.0, 7.5, 1e-3,
            -0.5]


def power_rhs(dt):
    d = np.dtype(dt)
    if d.kind == "b":
        return [True, False, True]
    if d.kind in "iu":
        return [0, 1, 2, 3, 5, 7, 2]
    return [2.0, 0.5, -1.0, 0.0, 3.0, -0.5, 1.5, np.nan, np.inf, -2.0]


def shift_rhs(dt):
    d = np.dtype(dt)
    if d.kind == "b":
        return [True, False]
    bits = d.itemsize * 8
    return [0, 1, 3, bits - 1, 2, 5]


def trans_values(dt):
    """Transcendental inputs: moderate magnitudes (|x| <= 10) plus specials."""
    d = np.dtype(dt)
    if d.kind == "b":
        return [True, False, True]
    if d.kind == "i":
        return [0, 1, -1, 2, 5, -5, 9, -9, 10, 3, 7]
    if d.kind == "u":
        return [0, 1, 2, 5, 9, 10, 3, 7]
    return [0.0, -0.0, 0.5, -0.5, 1.0, 2.0, -2.0, 3.14159, -3.14159, 6.0, -6.0, 9.5, -9.5, 0.01,
            np.nan, np.inf, -np.inf, 1e-3, 4.25, -1.0]


# ---------- ufuncs ----------

BINARY_MAIN = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
               "maximum", "minimum", "equal", "less", "greater"]
UNARY_MAIN = ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos"]
BINARY_EXTRA = ["not_equal", "less_equal", "greater_equal", "fmax", "fmin", "logical_and",
                "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
                "left_shift", "right_shift", "arctan2"]
UNARY_EXTRA = ["positive", "square", "tan", "tanh", "floor", "ceil", "logical_not", "invert",
               "isnan", "isinf", "isfinite"]
TRANSCENDENTAL = {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "arctan2"}


def lhs_for(op, dt):
    return trans_values(dt) if op in TRANSCENDENTAL else lhs_values(dt)


def rhs_for(op, dt):
    if op == "power":
        return power_rhs(dt)
    if op in ("left_shift", "right_shift"):
        return shift_rhs(dt)
    if op == "arctan2":
        return trans_values(dt)
    return rhs_values(dt)


BINARY_VIEWS = {
    # name: (lhs base shape, lhs steps, rhs base shape, rhs steps)
    "contig": ((3, 5), [], (3, 5), []),
    "T": ((5, 3), [T()], (3, 5), []),
    "step": ((6, 5), [sl([None, None, 2])], (3, 10), [sl([None, None, None], [1, None, 2])]),
    "reverse": ((3, 5), [sl([None, None, -1], [None, None, -1])], (3, 5), [sl([None, None, None], [None, None, -1])]),
    "broadcast": ((3, 5), [], (5,), []),
    "bcast_view": ((1, 5), [bcast((3, 5))], (3, 1), [bcast((3, 5))]),
    "outer": ((3, 1), [], (1, 5), []),
    "size0": ((0, 5), [], (5,), []),
    "0d": ((), [], (), []),
    "0d_bcast": ((3, 5), [sl([None, None, -1])], (), []),
}
UNARY_VIEWS = {
    "contig": ((3, 5), []),
    "T": ((5, 3), [T()]),
    "step": ((3, 10), [sl([None, None, None], [None, None, 2])]),
    "reverse": ((3, 5), [sl([None, None, -1], [None, None, -1])]),
    "broadcast": ((5,), [bcast((3, 5))]),
    "size0": ((3, 0), []),
    "0d": ((), []),
}


def gen_ufuncs():
    g = Group("ufuncs")
    for dt in DTYPES:
        for op in BINARY_MAIN + BINARY_EXTRA:
            views = BINARY_VIEWS if op in BINARY_MAIN else {k: BINARY_VIEWS[k] for k in ("contig", "T")}
            for vname, (sa, sta, sb, stb) in views.items():
                base_a = cyc(lhs_for(op, dt), sa, dt)
                base_b = cyc(rhs_for(op, dt), sb, dt, shift=3)
                ia, a = operand(g, base_a, sta)
                ib, b = operand(g, base_b, stb)
                f = getattr(np, op)
                record(g, f"{op}/{dt}/{vname}", op, [ia, ib], lambda: f(a, b))
        for op in UNARY_MAIN + UNARY_EXTRA:
            views = UNARY_VIEWS if op in UNARY_MAIN else {k: UNARY_VIEWS[k] for k in ("contig", "reverse")}
            for vname, (sa, sta) in views.items():
                base_a = cyc(lhs_for(op, dt), sa, dt)
                ia, a = operand(g, base_a, sta)
                f = getattr(np, op)
                record(g, f"{op}/{dt}/{vname}", op, [ia], lambda: f(a))
    # Specific integer division edge cases (INT_MIN // -1, negative operands, zero divisors).
    for dt in ["int8", "int16", "int32", "int64"]:
        info = np.iinfo(dt)
        a = np.array([7, -7, 7, -7, info.min, info.min, 0, 5, -5, info.max], dtype=dt)
        b = np.array([2, 2, -2, -2, -1, 1, 0, 0, 0, -1], dtype=dt)
        ia, _ = operand(g, a)
        ib, _ = operand(g, b)
        for op in ["floor_divide", "remainder"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/edges", op, [ia, ib], lambda: f(a, b))
    # Float floor_divide/remainder edge cases (1 // 0.1 == 9 in NumPy).
    for dt in FLOATS:
        a = np.array([1.0, -1.0, 1.0, 5.5, -5.5, 0.0, -0.0, np.inf, 3.0, 1.0], dtype=dt)
        b = np.array([0.1, 0.1, -0.1, 2.0, 2.0, -3.0, 3.0, 3.0, np.inf, -np.inf], dtype=dt)
        ia, _ = operand(g, a)
        ib, _ = operand(g, b)
        for op in ["floor_divide", "remainder"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/edges", op, [ia, ib], lambda: f(a, b))

    # NEP 50 promotion: array-array across kinds, array-weak scalar.
    pairs = [("uint8", "int8"), ("int32", "float32"), ("int64", "uint64"), ("float16", "int16"),
             ("uint16", "float16"), ("int8", "float16"), ("uint32", "int32"), ("bool", "int8"),
             ("bool", "float32"), ("float32", "float64"), ("uint8", "uint16"), ("int16", "uint32"),
             ("float16", "float32"), ("uint64", "float32")]
    for x, y in pairs:
        for op in ["add", "multiply", "true_divide", "less"]:
            base_a = cyc([1, 2, 3, 0, 5, 7], (2, 3), x)
            base_b = cyc([3, 1, 2, 4, 1, 6], (2, 3), y)
            ia, a = operand(g, base_a)
            ib, b = operand(g, base_b)
            f = getattr(np, op)
            record(g, f"promote/{op}/{x}+{y}", op, [ia, ib], lambda: f(a, b))
    scalars = [("int8", "add", 1), ("int8", "add", 1000), ("int8", "add", -128), ("int8", "add", 127),
               ("uint8", "add", 300), ("uint8", "add", -1), ("uint8", "add", 255),
               ("float32", "multiply", 2.5), ("float32", "multiply", 3), ("float16", "add", 1e5),
               ("float16", "multiply", 0.1), ("int32", "add", 1.5), ("int32", "true_divide", 2),
               ("bool", "add", 1), ("bool", "add", 2.5), ("bool", "add", True),
               ("int64", "multiply", True), ("uint64", "add", 2**63), ("uint16", "subtract", 1),
               ("int16", "floor_divide", -3), ("int32", "remainder", 4), ("float64", "power", 2),
               ("uint8", "less", 3), ("uint8", "less", -1), ("int8", "greater", 200),
               ("float32", "maximum", float("nan")), ("float32", "add", float("inf")),
               ("uint32", "power", 2)]
    for dt, op, s in scalars:
        base = cyc(lhs_values(dt)[:6] if dt != "float16" else [1.0, 2.0, -3.5, 0.0], (2, 3), dt)
        if np.dtype(dt).kind == "u" and op == "subtract":
            base = cyc([1, 2, 3, 10], (2, 3), dt)
        ia, a = operand(g, base)
        isc, sv = weak(s)
        f = getattr(np, op)
        record(g, f"weak/{op}/{dt}/{s!r}", op, [ia, isc], lambda: f(a, sv))
        # Scalar on the left too.
        record(g, f"weak_left/{op}/{dt}/{s!r}", op, [isc, ia], lambda: f(sv, a))
    g.write()


# ---------- creation and astype ----------

def gen_creation():
    g = Group("creation")
    for dt in DTYPES:
        record(g, f"zeros/{dt}", "zeros", [], lambda: np.zeros((2, 3), dt), {"shape": [2, 3], "dtype": dt})
        record(g, f"ones/{dt}", "ones", [], lambda: np.ones((3, 1, 2), dt), {"shape": [3, 1, 2], "dtype": dt})
        fv = 7 if dt != "bool" else 1
        record(g, f"full/{dt}", "full", [], lambda: np.full((4,), fv, dt), {"shape": [4], "value": fv, "dtype": dt})
        record(g, f"zeros0d/{dt}", "zeros", [], lambda: np.zeros((), dt), {"shape": [], "dtype": dt})
        record(g, f"ones_empty/{dt}", "ones", [], lambda: np.ones((0, 3), dt), {"shape": [0, 3], "dtype": dt})
        record(g, f"eye/{dt}", "eye", [], lambda: np.eye(3, dtype=dt), {"n": 3, "m": None, "k": 0, "dtype": dt})
    record(g, "full/float32/frac", "full", [], lambda: np.full((2, 2), 0.1, np.float32), {"shape": [2, 2], "value": 0.1, "dtype": "float32"})
    record(g, "full/float64/nan", "full", [], lambda: np.full((3,), np.nan), {"shape": [3], "value": "nan", "dtype": "float64"})
    record(g, "full/int32/from_float", "full", [], lambda: np.full((2,), 7.9).astype(np.int32), {"shape": [2], "value": 7.9, "dtype": "int32"})
    aranges = [
        (0, 10, 1, "int32"), (0, 10, 1, "int64"), (3, 20, 4, "int64"), (10, 0, -3, "int32"),
        (-5, 5, 2, "int16"), (0, 1, 0.1, "float64"), (0, 1, 0.1, "float32"), (-1.5, 2.2, 0.5, "float32"),
        (2.5, -1.0, -0.5, "float64"), (1, 1, 1, "float64"), (5, 0, 1, "int64"), (0, 300, 1, "uint8"),
        (0, 5, 1, "float16"), (0.5, 4, 1, "int32"), (-3, 3, 1, "uint8"),
        # NumPy's integer fill: int(start), int(start + step), then wrap-around steps.
        (4, 1, -1.2, "int64"), (0, 1000, 100.7, "int8"), (3, -3, -1, "uint8"),
        (1e16, 1e16 + 100, 3.3, "float64"), (0, 2, 1, "bool"), (0, 5, 1, "bool"),
    ]
    for start, stop, step, dt in aranges:
        def fn(start=start, stop=stop, step=step, dt=dt):
            # NumPy itself (arange(-3, 3, 1, uint8) is its OverflowError; bool aranges of more
            # than two values its TypeError).
            return np.arange(start, stop, step, dtype=dt)
        record(g, f"arange/{start}:{stop}:{step}/{dt}", "arange", [], fn,
               {"start": start, "stop": stop, "step": step, "dtype": dt})
    linspaces = [(0, 1, 5, True, "float64"), (0, 1, 5, False, "float64"), (-1, 1, 7, True, "float32"),
                 (2, 3, 1, True, "float64"), (2, 3, 0, True, "float64"), (0, 10, 4, False, "float32"),
                 (-5, 5, 7, True, "int32"), (0, 10, 6, True, "int64"), (1, 0, 11, True, "float64"),
                 (0, 1, 3, True, "float16")]
    for start, stop, num, ep, dt in linspaces:
        record(g, f"linspace/{start}:{stop}:{num}:{ep}/{dt}", "linspace", [],
               lambda: np.linspace(start, stop, num, endpoint=ep, dtype=dt),
               {"start": start, "stop": stop, "num": num, "endpoint": ep, "dtype": dt})
    eyes = [(4, 5, 1, "float32"), (3, None, -1, "int64"), (4, None, 5, "float64"), (2, 4, -3, "bool"),
            (5, 3, 2, "uint8"), (1, None, 0, "float16"), (0, None, 0, "float64")]
    for n, m, k, dt in eyes:
        record(g, f"eye/{n}x{m}/k{k}/{dt}", "eye", [], lambda: np.eye(n, m, k, dtype=dt),
               {"n": n, "m": m, "k": k, "dtype": dt})
    g.write()


def astype_values(src):
    d = np.dtype(src)
    if d.kind == "b":
        return [True, False, True]
    if d.kind == "i":
        info = np.iinfo(d)
        vals = [0, 1, -1, 100, -100 if d.itemsize > 1 else -128, info.max, info.min, 77, -2]
        if d.itemsize >= 2:
            vals += [300, -300, 255, 256]
        if d.itemsize >= 4:
            vals += [70000, -70000, 2**24 + 1]
        if d.itemsize >= 8:
            vals += [2**53 + 1, -(2**40)]
        return vals
    if d.kind == "u":
        info = np.iinfo(d)
        vals = [0, 1, 100, 200, info.max, 128, 127]
        if d.itemsize >= 2:
            vals += [300, 256, 65535]
        if d.itemsize >= 4:
            vals += [70000, 2**24 + 1, 2**31]
        if d.itemsize >= 8:
            vals += [2**63, 2**53 + 1]
        return vals
    # Floats: values whose conversion to every dtype is defined (no negatives: float -> unsigned
    # of a negative value is undefined in C; no NaN/inf: float -> int is undefined).
    return [0.0, -0.0, 1.5, 2.7, 100.9, 127.0, 0.25, 3.0, 99.99, 1.0]


def gen_astype():
    g = Group("astype")
    for src in DTYPES:
        base = np.array(astype_values(src), dtype=src)
        ia, a = operand(g, base)
        for dst in DTYPES:
            record(g, f"astype/{src}->{dst}", "astype", [ia], lambda: a.astype(dst), {"dtype": dst})
        # Strided/reversed source.
        ib, b = operand(g, np.stack([base, base[::-1]]), [sl([None, None, -1], [None, None, 2])])
        for dst in ["float64", "int64", "bool"]:
            record(g, f"astype/{src}->{dst}/reverse_step", "astype", [ib], lambda: b.astype(dst), {"dtype": dst})
    # Float -> signed int: truncation toward zero of negatives; float specials to floats.
    for src in FLOATS:
        base = np.array([-2.7, -0.5, -127.9, 2.7, -1.0, 0.9], dtype=src)
        ia, a = operand(g, base)
        for dst in ["int8", "int16", "int32", "int64"]:
            record(g, f"astype/{src}->{dst}/negative", "astype", [ia], lambda: a.astype(dst), {"dtype": dst})
        spec = np.array([np.nan, np.inf, -np.inf, -0.0, 65504.0, 1e-8, 0.1], dtype=src)
        ib, b = operand(g, spec)
        for dst in FLOATS + ["bool"]:
            record(g, f"astype/{src}->{dst}/special", "astype", [ib], lambda: b.astype(dst), {"dtype": dst})
    big = np.array([1e5, -1e5, 65519.0, 65520.0, 1.0 + 2**-11, 1.0 + 3 * 2**-11, 2**-24, 1e-30], dtype=np.float64)
    for src in ["float32", "float64"]:
        ia, a = operand(g, big.astype(src))
        record(g, f"astype/{src}->float16/rounding", "astype", [ia], lambda: a.astype(np.float16), {"dtype": "float16"})
    ia, a = operand(g, np.array([1.0 + 2**-24, 1.0 + 3 * 2**-24, 1e39, -1e39, 1e-46, 0.1], dtype=np.float64))
    record(g, "astype/float64->float32/rounding", "astype", [ia], lambda: a.astype(np.float32), {"dtype": "float32"})
    g.write()


# ---------- reductions ----------

def red_values(dt, shape, seed):
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if d.kind == "b":
        v = rng.random(n) < 0.6
    elif d.kind == "i":
        v = rng.integers(-50, 50, n)
    elif d.kind == "u":
        v = rng.integers(0, 100, n)
    else:
        v = rng.uniform(-4, 4, n)
    return v.astype(dt).reshape(shape)


def prod_values(dt, shape, seed):
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if d.kind == "b":
        v = rng.random(n) < 0.8
    elif d.kind in "iu":
        v = rng.integers(1, 4, n) * (1 if d.kind == "u" else rng.choice([-1, 1], n))
    else:
        v = rng.uniform(0.5, 1.5, n) * rng.choice([-1, 1], n)
    return v.astype(dt).reshape(shape)


REDUCTIONS = ["sum", "prod", "max", "min", "mean"]


def gen_reductions():
    g = Group("reductions")

    def add(cid, op, base, steps, axis, keepdims):
        ia, a = operand(g, base, steps)
        f = getattr(np, op)
        kw = {"axis": axis if not isinstance(axis, tuple) else list(axis), "keepdims": keepdims}

        def extra(r):
            if r.dtype.kind not in "fc":
                return {}
            # Condition scale: the same reduction over |x| (mean: mean of |x|), and the length.
            ax = axis
            n = a.size if ax is None else int(np.prod([a.shape[i] for i in (ax if isinstance(ax, tuple) else (ax,))]))
            with np.errstate(all="ignore"):
                absa = np.abs(a.astype(np.float64))
                if op == "prod":
                    s = np.abs(r.astype(np.float64))
                elif op in ("max", "min"):
                    s = np.zeros(r.shape)
                else:
                    s = getattr(np, op)(absa, axis=ax, keepdims=keepdims)
            return {"scale": g.arr(np.asarray(s, dtype=np.float64)), "n": max(n, 1)}

        record(g, cid, op, [ia], lambda: f(a, axis=axis, keepdims=keepdims), kw, extra)

    for dt in DTYPES:
        for op in REDUCTIONS:
            mk = prod_values if op == "prod" else red_values
            b3 = mk(dt, (2, 3, 4), 1)
            for axis in [None, 0, 1, -1, (0, 2)]:
                add(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis, False)
            add(f"{op}/{dt}/3d/axis1/keepdims", op, b3, [], 1, True)
            add(f"{op}/{dt}/3d/none/keepdims", op, b3, [], None, True)
            b1 = mk(dt, (37,), 2)
            add(f"{op}/{dt}/1d/axisNone", op, b1, [], None, False)
            add(f"{op}/{dt}/1d/reverse", op, b1, [sl([None, None, -2])], None, False)
            b2 = mk(dt, (5, 7), 3)
            add(f"{op}/{dt}/2d/T/axis0", op, b2, [T()], 0, False)
            add(f"{op}/{dt}/2d/reverse/axis1", op, b2, [sl([None, None, -1], [None, None, -1])], 1, False)
            add(f"{op}/{dt}/3d/transpose/axis(0,2)", op, b3, [{"op": "transpose", "axes": [2, 0, 1]}], (0, 2), True)
            add(f"{op}/{dt}/2d/bcast/axis0", op, mk(dt, (1, 7), 4), [bcast((5, 7))], 0, False)
            e = np.zeros((0, 3), dt)
            add(f"{op}/{dt}/empty/axis0", op, e, [], 0, False)
            add(f"{op}/{dt}/empty/axis1", op, e, [], 1, False)
            add(f"{op}/{dt}/empty/axisNone", op, e, [], None, False)
            add(f"{op}/{dt}/empty00/axis0", op, np.zeros((0, 0), dt), [], 0, False)
            add(f"{op}/{dt}/0d", op, mk(dt, (), 5), [], None, False)
    for dt in FLOATS:
        v = red_values(dt, (3, 4), 6)
        v[1, 2] = np.nan
        for op in REDUCTIONS:
            add(f"{op}/{dt}/nan/axis0", op, v, [], 0, False)
            add(f"{op}/{dt}/nan/axisNone", op, v, [], None, False)
    # A longer float32 sum (accuracy vs length).
    add("sum/float32/long", "sum", np.random.default_rng(7).uniform(0, 1, 4099).astype(np.float32), [], None, False)
    add("mean/float32/long_axis1", "mean", np.random.default_rng(8).uniform(-1, 1, (3, 1000)).astype(np.float32), [], 1, False)
    g.write()


# ---------- sorting and scans ----------

def gen_sorting():
    g = Group("sorting")

    def add(cid, op, base, steps, axis):
        ia, a = operand(g, base, steps)
        kw = {"axis": axis}
        # Stable kinds: our sorts are stable, so ties (and -0.0 vs 0.0) keep their input order.
        if op == "argsort":
            fn = lambda: np.argsort(a, axis=axis, kind="stable")
        elif op == "sort":
            fn = lambda: np.sort(a, axis=axis, kind="stable")
        else:
            fn = lambda: getattr(np, op)(a, axis=axis)

        def extra(r):
            if op not in ("cumsum", "cumprod") or r.dtype.kind not in "fc":
                return {}
            # Condition scale: the same scan over |x| in float64 (cumprod: |result|), and the
            # scan length: the bound of any evaluation order (tests/common Tol::Scaled).
            n = a.size if axis is None or a.ndim == 0 else a.shape[axis]
            with np.errstate(all="ignore"):
                if op == "cumprod":
                    sc = np.abs(r.astype(np.float64))
                else:
                    sc = np.cumsum(np.abs(a.astype(np.float64)), axis=axis)
            return {"scale": g.arr(np.asarray(sc, dtype=np.float64).reshape(r.shape)), "n": max(int(n), 1)}

        record(g, cid, op, [ia], fn, kw, extra)

    def tie_values(dt, shape, seed):
        """Few distinct values (many ties) for stability checks."""
        d = np.dtype(dt)
        rng = np.random.default_rng(seed)
        n = int(np.prod(shape))
        if d.kind == "b":
            v = rng.random(n) < 0.5
        elif d.kind == "u":
            v = rng.integers(0, 4, n)
        elif d.kind == "i":
            v = rng.integers(-2, 3, n)
        else:
            v = rng.integers(-2, 3, n) * 0.5
        return v.astype(dt).reshape(shape)

    for dt in DTYPES:
        for op in ["cumsum", "cumprod", "sort", "argsort"]:
            mk = {"cumprod": prod_values, "cumsum": red_values}.get(op, red_values)
            if op == "argsort":
                mk = tie_values
            b3 = mk(dt, (2, 3, 4), 1)
            for axis in [None, 0, 1, -1]:
                add(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis)
            b2 = mk(dt, (5, 7), 3)
            add(f"{op}/{dt}/2d/T/axis1", op, b2, [T()], 1)
            b1 = mk(dt, (37,), 2)
            add(f"{op}/{dt}/1d/reverse", op, b1, [sl([None, None, -2])], -1)
            add(f"{op}/{dt}/2d/bcast/axis0", op, mk(dt, (1, 7), 4), [bcast((5, 7))], 0)
            e = np.zeros((0, 3), dt)
            for axis in [0, 1, None]:
                add(f"{op}/{dt}/empty/axis{axis}", op, e, [], axis)
            z = mk(dt, (), 5)
            add(f"{op}/{dt}/0d/axisNone", op, z, [], None)
            add(f"{op}/{dt}/0d/axis-1", op, z, [], -1)
            add(f"{op}/{dt}/0d/axis1", op, z, [], 1)
            add(f"{op}/{dt}/3d/axis3", op, b3, [], 3)
        # Many short rows, and one row longer than a block/workgroup.
        add(f"sort/{dt}/rows300x7", "sort", red_values(dt, (300, 7), 6), [], -1)
        add(f"argsort/{dt}/rows300x7", "argsort", tie_values(dt, (300, 7), 6), [], -1)
        if dt in ("int8", "int16", "int64", "float16", "float32"):
            add(f"sort/{dt}/long5000", "sort", red_values(dt, (5000,), 7), [], -1)
            add(f"argsort/{dt}/long5000", "argsort", tie_values(dt, (5000,), 7), [], -1)
        if dt in ("int32", "float16", "float32"):
            add(f"cumsum/{dt}/long3000", "cumsum", red_values(dt, (1, 3000), 8), [], -1)
        add(f"cumsum/{dt}/rows300x7", "cumsum", red_values(dt, (300, 7), 9), [], 1)
    for dt in FLOATS:
        sp = np.array([0.0, -0.0, np.nan, 1.0, -np.inf, np.inf, -1.0, np.nan, -0.0, 0.0, 2.5, -2.5,
                       np.nan, 1.0, 0.0, -0.0], dtype=dt)
        for op in ["sort", "argsort", "cumsum", "cumprod"]:
            add(f"{op}/{dt}/specials", op, sp, [], -1)
            add(f"{op}/{dt}/specials2d/axis0", op, sp.reshape(4, 4), [], 0)
        big = np.random.default_rng(12).uniform(-1e3, 1e3, 5000 if dt != "float64" else 1500).astype(dt)
        big[::97] = np.nan
        big[::89] = -0.0
        big[::83] = 0.0
        add(f"sort/{dt}/long{big.size}nan", "sort", big, [], -1)
        add(f"argsort/{dt}/long{big.size}nan", "argsort", big, [], -1)
    # Integer extremes (the sign-bit flip of a radix sort).
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        v = cyc(lhs_values(dt), (41,), dt)
        add(f"sort/{dt}/extremes", "sort", v, [], -1)
        add(f"argsort/{dt}/extremes", "argsort", v, [], -1)
        add(f"cumsum/{dt}/wrap", "cumsum", v, [], -1)
    g.write()


# ---------- linalg ----------

def gen_linalg():
    g = Group("linalg")
    rng = np.random.default_rng(11)

    def add(cid, op, a_base, a_steps, b_base, b_steps):
        ia, a = operand(g, a_base, a_steps)
        ib, b = operand(g, b_base, b_steps)
        f = getattr(np, op)

        def extra(r):
            if r.dtype.kind != "f":
                return {}
            s = f(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
            k = a.shape[-1] if a.ndim >= 1 else 1
            # One condition scale per case: the largest |a|@|b| entry.
            return {"scale_max": float(np.max(s, initial=0.0)), "n": max(int(k), 1)}

        record(g, cid, op, [ia, ib], lambda: f(a, b), {}, extra)

    def r(*shape, dt):
        if np.dtype(dt).kind in "iu":
            return rng.integers(-5, 6, shape).astype(dt)
        return rng.uniform(-1, 1, shape).astype(dt)

    for dt in ["float32", "float64"]:
        add(f"matmul/{dt}/2d", "matmul", r(5, 7, dt=dt), [], r(7, 3, dt=dt), [])
        add(f"matmul/{dt}/aT", "matmul", r(7, 5, dt=dt), [T()], r(7, 3, dt=dt), [])
        add(f"matmul/{dt}/bT", "matmul", r(5, 7, dt=dt), [], r(3, 7, dt=dt), [T()])
        add(f"matmul/{dt}/aTbT", "matmul", r(7, 5, dt=dt), [T()], r(3, 7, dt=dt), [T()])
        add(f"matmul/{dt}/1d@2d", "matmul", r(7, dt=dt), [], r(7, 4, dt=dt), [])
        add(f"matmul/{dt}/2d@1d", "matmul", r(4, 7, dt=dt), [], r(7, dt=dt), [])
        add(f"matmul/{dt}/1d@1d", "matmul", r(9, dt=dt), [], r(9, dt=dt), [])
        add(f"matmul/{dt}/batched_bcast", "matmul", r(2, 1, 4, 5, dt=dt), [], r(3, 5, 2, dt=dt), [])
        add(f"matmul/{dt}/batched_2d", "matmul", r(3, 4, 5, dt=dt), [], r(5, 6, dt=dt), [])
        add(f"matmul/{dt}/17x33@33x9", "matmul", r(17, 33, dt=dt), [], r(33, 9, dt=dt), [])
        add(f"matmul/{dt}/33x64@64x34", "matmul", r(33, 64, dt=dt), [], r(64, 34, dt=dt), [])
        add(f"matmul/{dt}/k0", "matmul", r(4, 0, dt=dt), [], r(0, 3, dt=dt), [])
        add(f"matmul/{dt}/strided", "matmul", r(10, 7, dt=dt), [sl([None, None, 2])], r(7, 6, dt=dt), [sl([None, None, None], [None, None, -2])])
        add(f"matmul/{dt}/mismatch", "matmul", r(4, 5, dt=dt), [], r(6, 3, dt=dt), [])
        add(f"dot/{dt}/2d", "dot", r(6, 4, dt=dt), [], r(4, 5, dt=dt), [])
        add(f"dot/{dt}/1d@1d", "dot", r(8, dt=dt), [], r(8, dt=dt), [])
        add(f"dot/{dt}/2d@1d_T", "dot", r(4, 6, dt=dt), [T()], r(4, dt=dt), [])
    add("matmul/float32@float64", "matmul", r(3, 4, dt="float32"), [], r(4, 2, dt="float64"), [])
    add("matmul/int32/2d", "matmul", r(3, 4, dt="int32"), [], r(4, 5, dt="int32"), [])
    # Integer and boolean matmul: NumPy's loop accumulates in the dtype with wrap-around.
    big8 = rng.integers(60, 120, (3, 16)).astype(np.int8)
    add("matmul/int8/wraps", "matmul", big8, [], big8.T.copy(), [])
    add("matmul/uint8/wraps", "matmul", big8.astype(np.uint8), [], big8.T.astype(np.uint8), [])
    add("matmul/int64/batched_bcast_T", "matmul", r(2, 1, 5, 4, dt="int64"), [sl("...", [None, None, None], [None, None, None])], r(3, 5, 6, dt="int64"), [])
    add("matmul/int16/aT_strided", "matmul", r(9, 5, dt="int16"), [T()], r(9, 8, dt="int16"), [sl([None, None, 3], [None, None, -1])])
    add("matmul/uint32/1d@2d", "matmul", r(6, dt="int32").astype(np.uint32), [], r(6, 3, dt="int32").astype(np.uint32), [])
    bools = rng.integers(0, 2, (4, 7)).astype(bool)
    add("matmul/bool/2d", "matmul", bools, [], bools.T.copy(), [])
    add("matmul/bool@int32", "matmul", bools, [], r(7, 2, dt="int32"), [])
    g.write()


# ---------- signal ----------

def load_camera():
    """Decodes tests/data/camera.png (8-bit greyscale, non-interlaced) with zlib alone."""
    import struct
    import zlib
    d = open(os.path.join(HERE, "..", "data", "camera.png"), "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat = 8, b""
    while i < len(d):
        (n,) = struct.unpack(">I", d[i:i + 4])
        t = d[i + 4:i + 8]
        if t == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", d[i + 8:i + 21])
            assert (depth, color, interlace) == (8, 0, 0)
        elif t == b"IDAT":
            idat += d[i + 8:i + 8 + n]
        i += 12 + n
    raw = zlib.decompress(idat)
    img = np.zeros((h, w), np.uint8)
    prev = np.zeros(w, np.int32)
    for y in range(h):
        f = raw[y * (w + 1)]
        line = np.frombuffer(raw, np.uint8, w, y * (w + 1) + 1).astype(np.int32)
        out = np.zeros(w, np.int32)
        for x in range(w):
            a = out[x - 1] if x > 0 else 0
            b = prev[x]
            c = prev[x - 1] if x > 0 else 0
            if f == 0:
                pr = 0
            elif f == 1:
                pr = a
            elif f == 2:
                pr = b
            elif f == 3:
                pr = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[x] = (line[x] + pr) & 0xFF
        img[y] = out
        prev = out
    return img


def gen_signal():
    g = Group("signal")
    rng = np.random.default_rng(13)

    def add(cid, a_base, b_base, mode, a_steps=(), b_steps=()):
        ia, a = operand(g, a_base, a_steps)
        ib, b = operand(g, b_base, b_steps)

        def extra(r):
            if r.dtype.kind != "f":
                return {}
            s = scipy.signal.convolve2d(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)), mode)
            return {"scale_max": float(np.max(s, initial=0.0)), "n": int(min(a.size, b.size))}

        record(g, cid, "convolve2d", [ia, ib], lambda: scipy.signal.convolve2d(a, b, mode), {"mode": mode}, extra)

    for dt in ["float32", "float64"]:
        a = rng.uniform(-1, 1, (6, 7)).astype(dt)
        for kshape in [(3, 3), (2, 4), (4, 4), (1, 1), (5, 2)]:
            k = rng.uniform(-1, 1, kshape).astype(dt)
            for mode in ["full", "same", "valid"]:
                add(f"convolve2d/{dt}/6x7*{kshape[0]}x{kshape[1]}/{mode}", a, k, mode)
        small = rng.uniform(-1, 1, (3, 2)).astype(dt)
        for mode in ["full", "same", "valid"]:
            add(f"convolve2d/{dt}/swap_3x2*6x7/{mode}", small, a, mode)
        add(f"convolve2d/{dt}/views/same", rng.uniform(-1, 1, (7, 12)).astype(dt), rng.uniform(-1, 1, (3, 3)).astype(dt), "same",
            [T(), sl([None, None, -1], [None, None, 2])], [sl([None, None, -1])])
    a = rng.integers(-5, 6, (5, 6)).astype(np.int32)
    k = rng.integers(-2, 3, (3, 2)).astype(np.int32)
    for mode in ["full", "same", "valid"]:
        add(f"convolve2d/int32/5x6*3x2/{mode}", a, k, mode)
    add("convolve2d/mixed/f32*f64/same", rng.uniform(-1, 1, (5, 5)).astype(np.float32), rng.uniform(-1, 1, (3, 3)), "same")
    add("convolve2d/bad_valid/3x5*5x3", rng.uniform(-1, 1, (3, 5)), rng.uniform(-1, 1, (5, 3)), "valid")

    cam = load_camera()
    crop = cam[200:264, 200:264]
    x = np.arange(-2, 3)
    gk = np.exp(-(x[:, None] ** 2 + x[None, :] ** 2) / (2 * 1.2 ** 2))
    gk /= gk.sum()
    for dt in ["float32", "float64"]:
        img = (crop.astype(np.float64) / 255.0).astype(dt)
        for mode in ["same", "full", "valid"]:
            add(f"convolve2d/camera64/{dt}/gauss5/{mode}", img, gk.astype(dt), mode)
    g.write()


# ---------- views ----------

def gen_views():
    g = Group("views")
    base3 = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
    base2 = np.arange(6 * 7, dtype=np.float32).reshape(6, 7) * 0.5 - 3
    recipes = {
        "slice_1:3_step2": (base2, [sl([1, 3], [None, None, 2])]),
        "reverse_rows": (base2, [sl([None, None, -1])]),
        "reverse_both": (base2, [sl([None, None, -1], [None, None, -1])]),
        "index_last": (base2, [sl(-1)]),
        "index_col": (base2, [sl("...", 2)]),
        "neg_step_bounds": (base2, [sl([-2, 0, -1], [5, 1, -2])]),
        "step_gt_len": (base2, [sl([None, None, 10], [None, None, 3])]),
        "empty_slice": (base2, [sl([5, 2])]),
        "clamped": (base2, [sl([-100, 100], [3, 100])]),
        "newaxis": (base2, [sl("newaxis", [None, None, 2], "...", "newaxis")]),
        "T": (base2, [T()]),
        "T_then_slice": (base2, [T(), sl([None, None, -2], [1, None])]),
        "transpose3": (base3, [{"op": "transpose", "axes": [2, 0, 1]}]),
        "transpose3_neg": (base3, [{"op": "transpose", "axes": [-1, -3, -2]}]),
        "swapaxes": (base3, [{"op": "swapaxes", "a": 0, "b": 2}]),
        "reshape_contig": (base3, [{"op": "reshape", "shape": [4, -1]}]),
        "reshape_of_T": (base2, [T(), {"op": "reshape", "shape": [-1]}]),
        "reshape_of_slice": (base3, [sl("...", [None, None, 2]), {"op": "reshape", "shape": [3, 4]}]),
        "broadcast": (np.arange(4, dtype=np.int64), [bcast((3, 4))]),
        "broadcast_then_slice": (np.arange(4, dtype=np.int64), [bcast((3, 2, 4)), sl([None, None, -1], 1, [1, 3])]),
        "expand_dims": (base2, [{"op": "expand_dims", "axis": 1}]),
        "squeeze": (np.arange(3, dtype=np.uint8).reshape(1, 3, 1), [{"op": "squeeze"}]),
        "int_index_3d": (base3, [sl(1, -1)]),
        "bool_reverse": (np.array([True, False, False, True, True]), [sl([None, None, -1])]),
        "f16_step": (np.arange(10, dtype=np.float16) / 4, [sl([1, None, 3])]),
        "i8_T": (np.arange(-6, 6, dtype=np.int8).reshape(3, 4), [T()]),
        "u16_rev_step": (np.arange(20, dtype=np.uint16).reshape(4, 5) * 1000, [sl([None, None, -1], [None, None, -2])]),
        "f64_0d_from_index": (np.arange(6, dtype=np.float64).reshape(2, 3), [sl(1, 2)]),
    }
    for name, (base, steps) in recipes.items():
        ia, a = operand(g, base, steps)
        record(g, f"view/{name}", "copy", [ia], lambda: a.copy())
    # Errors NumPy raises for views.
    for name, (base, steps) in {
        "index_oob": (base2, [sl(6)]),
        "index_oob_neg": (base2, [sl(0, -8)]),
        "zero_step": (base2, [sl([None, None, 0])]),
        "too_many": (base2, [sl(0, 0, 0)]),
        "reshape_bad": (base3, [{"op": "reshape", "shape": [5, -1]}]),
        "broadcast_bad": (base2, [bcast((6, 3))]),
    }.items():
        c = {"id": f"view_error/{name}", "op": "copy", "inputs": [{"array": g.arr(base), "view": steps}], "kwargs": {}}
        try:
            apply_view(base, steps)
            raise AssertionError(name)
        except (IndexError, ValueError, TypeError) as e:
            c["error"] = type(e).__name__
            c["message"] = str(e)
        g.case(**c)
    g.write()


# ---------- printing ----------

def gen_printing():
    g = Group("printing")
    arrays = {
        "int64_1d": np.arange(10),
        "int32_1d": np.arange(10, dtype=np.int32),
        "float64_2d": np.array([[1.0, 2.5, -3.0], [0.125, 10.0, 6.0]]),
        "float32_2d": np.array([[1.0, 2.5], [3.0, 4.0]], dtype=np.float32),
        "float64_int_valued": np.array([[0.0, 1.0], [2.0, 3.0]]),
        "int32_2d_neg": np.array([[1, -20, 3], [400, 5, -6]], dtype=np.int32),
        "bool_1d": np.array([True, False, True]),
        "float64_special": np.array([np.nan, np.inf, -1.5, 0.0]),
        "float64_small": np.array([1e-5, 1.0, 2.0]),
        "int64_3d": np.arange(8).reshape(2, 2, 2),
        "uint8_1d": np.array([0, 255, 7], dtype=np.uint8),
        "float64_big": np.arange(2000, dtype=np.float64),
    }
    for name, a in arrays.items():
        ia, _ = operand(g, a)
        g.case(id=f"print/{name}", op="print", inputs=[ia], kwargs={}, str=str(a), repr=repr(a))
    g.write()


# ---------- custom kernels (ElementwiseKernel / ReductionKernel / fuse) ----------

def gen_custom():
    """Kernels drawn from CuPy's documentation and user-guide patterns, with NumPy references
    written to the kernel language's C semantics (C's truncating `/` and `%` on integers,
    float32 arithmetic on float32 operands, weak literals)."""
    g = Group("custom")
    f32 = np.float32
    xs = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4)
    ys = np.linspace(0.5, 3.0, 4, dtype=np.float32)
    pos = np.linspace(0.05, 0.95, 10, dtype=np.float32)
    i32a = np.array([7, -7, 13, -13, 100, -1, 0, 5], dtype=np.int32)
    i32b = np.array([2, 2, -4, -4, 7, 3, 9, -5], dtype=np.int32)

    def ew(cid, in_params, out_params, operation, inputs, ref, preamble="", out=None, size=None, ulps=0, abs_tol=0.0):
        ins = [operand(g, a)[0] if isinstance(a, np.ndarray) else weak(a)[0] for a in inputs]
        kw = {"in_params": in_params, "out_params": out_params, "operation": operation,
              "name": cid.split("/")[-1], "preamble": preamble, "ulps": ulps, "abs": abs_tol}
        if out is not None:
            kw["out"] = [g.arr(o) for o in out]
        if size is not None:
            kw["size"] = size
        refs = ref()
        if not isinstance(refs, tuple):
            refs = (refs,)
        for k, r in enumerate(refs):
            r = np.asarray(r)
            c = {"id": f"{cid}/{k}" if len(refs) > 1 else cid, "op": "elementwise", "inputs": ins,
                 "kwargs": dict(kw, output=k), "expected": g.arr(r), "dtype": r.dtype.name,
                 "shape": list(r.shape)}
            g.case(**c)

    def red(cid, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, inputs, ref,
            axis=None, keepdims=False, ulps=0, reduce_type=None):
        ins = [operand(g, a)[0] if isinstance(a, np.ndarray) else weak(a)[0] for a in inputs]
        kw = {"in_params": in_params, "out_params": out_params, "map_expr": map_expr,
              "reduce_expr": reduce_expr, "post_map_expr": post_map_expr, "identity": identity,
              "name": cid.split("/")[-1], "axis": axis, "keepdims": keepdims, "ulps": ulps}
        if reduce_type:
            kw["reduce_type"] = reduce_type
        r = np.asarray(ref())
        g.case(id=cid, op="reduction", inputs=ins, kwargs=kw, expected=g.arr(r), dtype=r.dtype.name,
               shape=list(r.shape))

    def fz(cid, inputs, ref, ulps=0, abs_tol=0.0):
        ins = [operand(g, a)[0] if isinstance(a, np.ndarray) else weak(a)[0] for a in inputs]
        r = np.asarray(ref())
        g.case(id=cid, op="fuse", inputs=ins, kwargs={"ulps": ulps, "abs": abs_tol}, expected=g.arr(r),
               dtype=r.dtype.name, shape=list(r.shape))

    # CuPy user guide: squared_diff and its generic forms.
    ew("ew/squared_diff", "float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)",
       [xs, ys], lambda: (xs - ys) * (xs - ys))
    ew("ew/squared_diff_generic", "T x, T y", "T z", "z = (x - y) * (x - y)",
       [i32a, i32b], lambda: (i32a - i32b) * (i32a - i32b))
    xd = xs.astype(np.float64)
    ew("ew/squared_diff_generic_f64", "T x, T y", "T z", "z = (x - y) * (x - y)",
       [xd, xd[::-1].copy()], lambda: (xd - xd[::-1]) * (xd - xd[::-1]))
    ew("ew/squared_diff_super_generic", "X x, Y y", "Z z", "z = (x - y) * (x - y)",
       [xs, np.arange(4, dtype=np.int32)], lambda: ((xs - np.arange(4).astype(f32)) ** 2).astype(f32),
       out=[np.zeros((3, 4), dtype=np.float32)])
    ew("ew/add_reverse", "T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
       [pos, pos * 2], lambda: pos + (pos * 2)[::-1])
    ew("ew/saxpy_scalar", "float32 a, float32 x, float32 y", "float32 z", "z = a * x + y",
       [2.5, pos, pos[::-1].copy()], lambda: f32(2.5) * pos + pos[::-1])
    ew("ew/relu", "T x", "T y", "y = x > 0 ? x : 0", [xs], lambda: np.where(xs > 0, xs, f32(0)))
    ew("ew/clamp_if_else", "T x, T lo, T hi", "T y",
       "if (x < lo) {\n  y = lo;\n} else if (x > hi) {\n  y = hi;\n} else {\n  y = x;\n}",
       [xs, -1.0, 0.75], lambda: np.clip(xs, f32(-1.0), f32(0.75)))
    ew("ew/sigmoid", "float32 x", "float32 y", "y = 1.0f / (1.0f + expf(-x))", [xs],
       lambda: f32(1) / (f32(1) + np.exp(-xs)), ulps=4)
    ew("ew/softplus", "T x", "T y", "y = log(1 + exp(x))", [xs],
       lambda: np.log(f32(1) + np.exp(xs)), ulps=4, abs_tol=2e-6)
    ew("ew/logit", "T x", "T y", "y = log(x / (1 - x))", [pos],
       lambda: np.log(pos / (f32(1) - pos)), ulps=8, abs_tol=2e-6)
    coeffs = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)

    def horner():
        acc = np.zeros_like(pos)
        for c in coeffs:
            acc = acc * pos + c
        return acc
    ew("ew/horner_for_raw", "T x, raw T c, int32 n", "T y",
       "T acc = 0;\nfor (int k = 0; k < n; k++) {\n  acc = acc * x + c[k];\n}\ny = acc;",
       [pos, coeffs, 4], horner, ulps=2)
    ew("ew/c_remainder", "int32 x, int32 y", "int32 z", "z = x % y", [i32a, i32b],
       lambda: np.fmod(i32a, i32b))
    ew("ew/c_division", "int32 x, int32 y", "int32 z", "z = x / y", [i32a, i32b],
       lambda: (np.sign(i32a) * np.sign(i32b) * (np.abs(i32a) // np.abs(i32b))).astype(np.int32))
    u = np.array([0, 1, 0xff, 0x1234, 0xdeadbeef, 0xffffffff], dtype=np.uint32)
    ew("ew/bit_tricks", "uint32 x", "uint32 y", "y = ((x << 3) ^ (x >> 2)) | (x & 0xff)", [u],
       lambda: ((u << np.uint32(3)) ^ (u >> np.uint32(2))) | (u & np.uint32(0xff)))
    ew("ew/popcount_loop", "uint32 x", "int32 n",
       "n = 0;\nfor (int b = 0; b < 32; b++) {\n  n += (x >> b) & 1;\n}", [u],
       lambda: np.array([bin(int(v)).count("1") for v in u], dtype=np.int32))
    ew("ew/weak_literals_f32", "float32 x", "float32 y", "y = x * 0.1 + 2.0", [xs],
       lambda: xs * f32(0.1) + f32(2.0))
    ew("ew/cast_truncates", "float32 x", "int32 y", "y = (int)(x * 10.0f)", [xs],
       lambda: np.trunc(xs * f32(10)).astype(np.int32))
    nanx = np.array([1.0, np.nan, -2.0, np.inf, np.nan], dtype=np.float32)
    ew("ew/nan_to_zero", "T x", "T y", "y = isnan(x) ? (T)0 : x", [nanx],
       lambda: np.where(np.isnan(nanx), f32(0), nanx))
    y0 = np.full((3, 4), 10.0, dtype=np.float32)
    ew("ew/output_read_accumulate", "float32 x", "float32 y", "y += x", [xs], lambda: y0 + xs, out=[y0])
    ew("ew/two_outputs_sincos", "float32 x", "float32 s, float32 c", "s = sin(x);\nc = cos(x);", [xs],
       lambda: (np.sin(xs), np.cos(xs)), ulps=4, abs_tol=2e-6)
    ew("ew/preamble_function", "T x", "T y", "y = sq(x) + sq(x + 1)", [xs],
       lambda: xs * xs + (xs + f32(1)) * (xs + f32(1)), preamble="__device__ T sq(T v) { return v * v; }")
    sig = np.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0], dtype=np.float32)

    def movsum():
        n = len(sig)
        return np.array([sum(sig[j] for j in (i - 1, i, i + 1) if 0 <= j < n) for i in range(n)], dtype=np.float32)
    ew("ew/moving_sum_raw_only", "raw float32 x, int32 n", "float32 y",
       "float s = 0;\nfor (int k = -1; k <= 1; k++) {\n  int j = i + k;\n  if (j >= 0 && j < n) {\n    s += x[j];\n  }\n}\ny = s;",
       [sig, len(sig)], movsum, out=None, size=len(sig))
    ew("ew/index_squares", "", "int64 y", "y = i * i", [], lambda: np.arange(9, dtype=np.int64) ** 2, size=9)
    ew("ew/distance", "float32 x1, float32 y1, float32 x2, float32 y2", "float32 d",
       "d = sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2))", [xs, xs[::-1].copy(), ys, ys[::-1].copy()],
       lambda: np.sqrt((xs - ys) ** 2 + (xs[::-1] - ys[::-1]) ** 2), ulps=2)
    ew("ew/fmax_fmin", "float32 x", "float32 y", "y = fmax(x, 0.5f) + fmin(x, -0.5f)", [xs],
       lambda: np.fmax(xs, f32(0.5)) + np.fmin(xs, f32(-0.5)))
    ew("ew/bool_range_test", "T x, T lo", "bool y", "y = x >= lo && x < lo + 10", [i32a, -5],
       lambda: (i32a >= -5) & (i32a < 5))
    u8a = np.array([250, 3, 128, 255], dtype=np.uint8)
    u8b = np.array([10, 4, 128, 1], dtype=np.uint8)
    ew("ew/uint8_wraps_on_store", "uint8 x, uint8 y", "uint8 z", "z = x + y", [u8a, u8b], lambda: u8a + u8b)
    i64 = np.array([1 << 40, -(1 << 35), 3, 0], dtype=np.int64)
    ew("ew/int64_affine", "int64 x", "int64 y", "y = x * 3 - 7", [i64], lambda: i64 * 3 - 7)
    ew("ew/compound_assignments", "int32 x", "int32 y",
       "int t = x;\nt *= 3;\nt -= 1;\nt <<= 2;\nt ^= 5;\ny = t;", [i32a],
       lambda: (((i32a * 3 - 1) << 2) ^ 5).astype(np.int32))
    ew("ew/pow_fabs", "float32 x", "float32 y", "y = pow(fabs(x), 1.5f)", [xs],
       lambda: np.power(np.abs(xs), f32(1.5)), ulps=8, abs_tol=2e-6)
    ew("ew/float64_rational", "float64 x, float64 y", "float64 z", "z = x * y + 1.0 / (1.0 + x * x)",
       [xd, xd[::-1].copy()], lambda: xd * xd[::-1] + 1.0 / (1.0 + xd * xd), ulps=2)
    ew("ew/static_cast_scalar", "int32 n, float32 x", "float32 y", "y = static_cast<float>(n) * x",
       [3, xs], lambda: f32(3) * xs)
    ew("ew/broadcast_column", "float32 x, float32 y", "float32 z", "z = x - y",
       [xs, np.array([[1.0], [2.0], [3.0]], dtype=np.float32)], lambda: xs - np.array([[1.0], [2.0], [3.0]], dtype=np.float32))

    # ReductionKernel (CuPy user guide: l2norm; the seed's sum_kernel).
    big = np.linspace(-1.0, 1.0, 40, dtype=np.float32).reshape(5, 8)
    bigp = big + np.float32(2.0)  # positive: no cancellation, so ulps are meaningful
    red("red/sum_kernel", "T x", "T y", "x", "a + b", "y = a", "0", [bigp], lambda: bigp.sum(dtype=np.float32),
        ulps=64)
    red("red/l2norm_axis1", "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", [big],
        lambda: np.sqrt((big * big).sum(axis=1)), axis=1, ulps=16)
    red("red/max_identity_neg_inf", "T x", "T y", "x", "max(a, b)", "y = a", "-INFINITY", [big],
        lambda: big.max(axis=0), axis=0)
    red("red/dot_broadcast", "T x, T y", "T z", "x * y", "a + b", "z = a", "0", [bigp, bigp[0].copy()],
        lambda: (bigp * bigp[0]).sum(), ulps=64)
    red("red/mean_in_out_sizes", "T x", "T y", "x", "a + b", "y = a / (_in_ind.size() / _out_ind.size())", "0",
        [big], lambda: big.sum(axis=0) / f32(5), axis=0, ulps=16)
    red("red/count_nonzero_int", "T x", "int64 y", "x != 0 ? 1 : 0", "a + b", "y = a", "0", [i32a],
        lambda: np.int64(np.count_nonzero(i32a)))
    i2 = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 11
    red("red/int_sum_keepdims", "T x", "T y", "x", "a + b", "y = a", "0", [i2],
        lambda: i2.sum(axis=(0, 2), keepdims=True, dtype=np.int32), axis=[0, 2], keepdims=True)
    red("red/min_abs", "T x", "T y", "fabs(x)", "min(a, b)", "y = a", "INFINITY", [big],
        lambda: np.abs(big).min(axis=1), axis=1)
    red("red/sum_sq_float64_acc", "float32 x", "float32 y", "x * x", "a + b", "y = a", "0", [big],
        lambda: (big.astype(np.float64) ** 2).sum().astype(np.float32), reduce_type="float64", ulps=2)

    # fuse (the closures live in tests/custom.rs, keyed by id).
    fz("fuse/squared_diff_plus_sin", [xs, ys], lambda: (xs - ys) * (xs - ys) + np.sin(xs), ulps=4, abs_tol=2e-6)
    fz("fuse/sum_of_squares", [xs, ys], lambda: ((xs - ys) * (xs - ys)).sum(dtype=np.float32), ulps=64)
    fz("fuse/axpy_weak_arg", [xs, 2.0, ys], lambda: xs * f32(2.0) + ys)
    fz("fuse/int_chain", [i32a, i32b], lambda: (i32a + 3) * i32b)
    fz("fuse/where_relu", [xs], lambda: np.where(xs > 0, xs, f32(0.0)))
    fz("fuse/mean_axis0", [xs], lambda: (xs * f32(2.0)).mean(axis=0), ulps=8)
    fz("fuse/promote_int_float", [i32a, pos[:8].copy()], lambda: i32a * pos[:8] - 1, ulps=0)

    # ---- later additions (appended so the cases above keep their array names and bytes) ----

    def ew2(cid, in_params, out_params, operation, inputs, ref, out=None, size=None, result=0,
            ulps=0, abs_tol=0.0):
        """As ew, with operands that may be views ((array, steps)) and a result that is output
        `result` or, for ("input", k), input k after the call (raw arrays written in place)."""
        ins = []
        for a in inputs:
            if isinstance(a, tuple):
                ins.append(operand(g, a[0], a[1])[0])
            elif isinstance(a, np.ndarray):
                ins.append(operand(g, a)[0])
            else:
                ins.append(weak(a)[0])
        kw = {"in_params": in_params, "out_params": out_params, "operation": operation,
              "name": cid.split("/")[-1], "preamble": "", "ulps": ulps, "abs": abs_tol,
              "output": result if isinstance(result, int) else 0}
        if not isinstance(result, int):
            kw["result_input"] = result[1]
        if out is not None:
            kw["out"] = [g.arr(o) for o in out]
        if size is not None:
            kw["size"] = size
        r = np.asarray(ref())
        g.case(id=cid, op="elementwise", inputs=ins, kwargs=kw, expected=g.arr(r), dtype=r.dtype.name,
               shape=list(r.shape))

    # Raw outputs and raw writes (CuPy's scatter-style kernels).
    ew2("ew/raw_out_reverse", "raw T x", "raw T y", "y[_ind.size() - 1 - i] = x[i]", [pos],
        lambda: pos[::-1], size=len(pos))
    ew2("ew/raw_out_from_elementwise_input", "T x", "raw T y", "y[_ind.size() - 1 - i] = x", [xs],
        lambda: xs.ravel()[::-1].reshape(3, 4))
    idx = np.array([3, -1, 0, 6, 5, 100, 1], dtype=np.int32)
    vals = np.array([1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5], dtype=np.float32)

    def scatter():
        y = np.full(6, -1.0, dtype=np.float32)
        for j, v in zip(idx, vals):
            if 0 <= j < 6:  # out-of-range writes are dropped
                y[j] = v
        return y
    ew2("ew/raw_out_scatter_drops_out_of_range", "int32 j, float32 v", "raw float32 y", "y[j] = v",
        [idx, vals], scatter, out=[np.full(6, -1.0, dtype=np.float32)])
    y6 = np.arange(8, dtype=np.int64) * 10
    ew2("ew/raw_out_compound_add", "T x", "raw T y", "y[_ind.size() - 1 - i] += x * 2",
        [np.arange(8, dtype=np.int64)], lambda: y6 + 2 * np.arange(8, dtype=np.int64)[::-1], out=[y6])
    base10 = np.arange(10, dtype=np.float32) - 4.5
    ew2("ew/raw_inout_strided_view", "raw T x, T s", "T y", "x[i] = x[i] * s;\ny = x[i] + 1",
        [(base10, [{"op": "slice", "items": [[None, None, 2]]}]), 3.0], lambda: base10[::2] * f32(3),
        size=5, result=("input", 0))
    ew2("ew/raw_inout_strided_view_output", "raw T x, T s", "T y", "x[i] = x[i] * s;\ny = x[i] + 1",
        [(base10, [{"op": "slice", "items": [[None, None, 2]]}]), 3.0],
        lambda: base10[::2] * f32(3) + f32(1), size=5)
    ew2("ew/raw_size_method", "raw T x", "T y",
        "T s = 0;\nfor (int j = 0; j < x.size(); j++) {\n  s += x[j];\n}\ny = s * i", [coeffs],
        lambda: coeffs.sum(dtype=np.float32) * np.arange(3, dtype=np.float32), size=3)

    # ReductionKernel without identity (identity=None): folds from the first element.
    def red2(cid, in_params, out_params, map_expr, reduce_expr, post_map_expr, inputs, ref,
             axis=None, keepdims=False, ulps=0):
        ins = [operand(g, a)[0] for a in inputs]
        kw = {"in_params": in_params, "out_params": out_params, "map_expr": map_expr,
              "reduce_expr": reduce_expr, "post_map_expr": post_map_expr, "identity": None,
              "name": cid.split("/")[-1], "axis": axis, "keepdims": keepdims, "ulps": ulps}
        record(g, cid, "reduction", ins, ref, kw)

    neg = -(np.arange(1, 13, dtype=np.float32).reshape(3, 4) * f32(0.75))
    red2("red/noid_max_negative", "T x", "T y", "x", "max(a, b)", "y = a", [neg], lambda: neg.max())
    red2("red/noid_max_axis1_keepdims", "T x", "T y", "x", "max(a, b)", "y = a", [big],
         lambda: big.max(axis=1, keepdims=True), axis=1, keepdims=True)
    long_i = ((np.arange(2200, dtype=np.int64).reshape(1100, 2) * 7919) % 1000 - 500).astype(np.int32)
    red2("red/noid_sum_three_passes", "T x", "T y", "x", "a + b", "y = a", [long_i],
         lambda: long_i.sum(axis=0, dtype=np.int32), axis=0)
    red2("red/noid_min_abs_post", "T x", "T y", "abs(x)", "min(a, b)", "y = a * 2", [i2],
         lambda: np.abs(i2).min(axis=(0, 2)) * 2, axis=[0, 2])
    red2("red/noid_empty_reduction", "T x", "T y", "x", "max(a, b)", "y = a",
         [np.zeros((0, 3), dtype=np.float32)], lambda: np.maximum.reduce(np.zeros((0, 3), dtype=np.float32), axis=0),
         axis=0)
    red2("red/noid_empty_output", "T x", "T y", "x", "max(a, b)", "y = a",
         [np.zeros((3, 0), dtype=np.float32)], lambda: np.maximum.reduce(np.zeros((3, 0), dtype=np.float32), axis=0),
         axis=0)

    # Complex kernels (complex<float>, thrust-style functions); wgpu has no complex: a skip.
    c64 = np.complex64
    za = (np.linspace(-1.5, 2.0, 6) + 1j * np.linspace(0.5, -2.5, 6)).astype(c64)
    zb = (np.linspace(0.25, 3.0, 6) + 1j * np.linspace(-1.0, 1.5, 6)).astype(c64)
    ew("ew/complex_mul_conj", "complex<float> z, complex<float> w", "complex<float> y",
       "y = z * conj(w) + 1.5f", [za, zb], lambda: za * np.conj(zb) + c64(1.5), ulps=2)
    re6 = np.linspace(-2.0, 2.0, 6, dtype=np.float32)
    im6 = np.linspace(3.0, -1.0, 6, dtype=np.float32)
    ew("ew/complex_from_parts", "float32 re, float32 im", "complex64 z", "z = complex<float>(re, im)",
       [re6, im6], lambda: (re6 + 1j * im6).astype(c64))
    ew("ew/complex_parts", "T z", "float32 r, float32 m", "r = real(z) - z.imag();\nm = imag(z)",
       [za], lambda: (za.real - za.imag, za.imag))
    zd = za.astype(np.complex128)
    ew("ew/complex_abs_arg_norm", "T z", "float64 y", "y = abs(z) + 10 * arg(z) + norm(z)", [zd],
       lambda: np.abs(zd) + 10 * np.angle(zd) + (zd.real ** 2 + zd.imag ** 2), ulps=4)
    ew("ew/complex_exp_log_sqrt", "T z", "T w", "w = exp(z) + log(z) * sqrt(z)", [zd],
       lambda: np.exp(zd) + np.log(zd) * np.sqrt(zd), ulps=16, abs_tol=1e-14)
    rr = np.linspace(0.5, 3.0, 6)
    th = np.linspace(-3.0, 3.0, 6)
    ew("ew/complex_polar", "float64 r, float64 t", "complex128 z", "z = polar(r, t)", [rr, th],
       lambda: rr * np.cos(th) + 1j * (rr * np.sin(th)), ulps=2, abs_tol=1e-15)
    ew("ew/complex_weak_scalars_and_ctor", "T z, float32 s", "T w", "w = z * 2.0 + T(s, 1) - s",
       [za, 0.5], lambda: za * c64(2.0) + c64(0.5 + 1j) - c64(0.5), ulps=2)
    red("red/complex_sum_of_squares", "T x", "T y", "x * x", "a + b", "y = a", "0", [za],
        lambda: (za * za).sum(), ulps=8)
    red2("red/complex_max_abs_noid", "complex<double> z", "float64 y", "abs(z)", "max(a, b)", "y = a",
         [zd], lambda: np.abs(zd).max())
    g.write()


# ---------- integer-array indexing (take) ----------

def gen_indexing():
    g = Group("indexing")
    rng = np.random.default_rng(5)
    a3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

    def add(cid, base, steps, idx, axis):
        ia, a = operand(g, base, steps)
        ii, i = operand(g, idx)
        record(g, cid, "take", [ia, ii], lambda: np.take(a, i, axis=axis), {"axis": axis})

    add("take/flat", a3, [], np.array([0, 59, 7, -1, -60], dtype=np.int64), None)
    add("take/axis0", a3, [], np.array([2, 0, -1], dtype=np.int32), 0)
    add("take/axis1_2d_indices", a3, [], np.array([[3, 0], [1, 1]], dtype=np.int64), 1)
    add("take/axis_last_neg", a3, [], np.array([4, -5, 2], dtype=np.int16), -1)
    add("take/transposed_src", a3, [T()], np.array([1, 0, 1], dtype=np.int64), 1)
    add("take/uint8_idx_int8_src", (np.arange(20) - 10).astype(np.int8), [], np.array([0, 19, 5], dtype=np.uint8), 0)
    add("take/bool_idx", np.array([10, 20], dtype=np.int64), [], np.array([True, False, True]), 0)
    add("take/empty_idx", a3, [], np.zeros((0,), dtype=np.int64), 1)
    add("take/scalar_idx", a3, [], np.array(2, dtype=np.int64), 2)
    add("take/float64", rng.uniform(-1, 1, (6, 3)), [], rng.integers(-6, 6, (4, 2)), 0)
    add("take/out_of_bounds", a3, [], np.array([0, 3], dtype=np.int64), 0)
    add("take/out_of_bounds_neg", a3, [], np.array([-6], dtype=np.int64), 1)
    add("take/float_indices", a3, [], np.array([0.0, 1.0]), 0)

    # put / ufunc.at / cupyx.scatter_*: the result is the target array after the in-place op.
    def put_case(cid, base, steps, idx, vals):
        ia, a = operand(g, base, steps)
        ii, i = operand(g, idx)
        iv, v = operand(g, vals)

        def run():
            b = a.copy()
            np.put(b, i, v)
            return b

        record(g, cid, "put", [ia, ii, iv], run)

    put_case("put/unique_f32", np.zeros(10, np.float32), [], np.array([0, 3, -1, 5]), np.array([1, 2, 3, 4], np.float32))
    put_case("put/cycled_values_cast", np.arange(8, dtype=np.int32), [], np.array([0, 1, 2, 3, 4], np.int16), np.array([9, -8]))
    put_case("put/transposed_target", np.arange(12, dtype=np.float32).reshape(3, 4), [T()], np.array([0, 5, 11, -11]), np.array([-1, -2, -3, -4], np.float32))  # unique after wrapping: GPUs order repeated writes freely
    put_case("put/float_values_into_int8", np.arange(6, dtype=np.int8), [], np.array([1, 2]), np.array([1.5, -2.7]))
    put_case("put/2d_indices_scalar_value", np.arange(20, dtype=np.int64).reshape(4, 5), [], np.array([[0, 19], [7, 8]]), np.array(42))
    put_case("put/bool_target", np.zeros(4, np.bool_), [], np.array([0, 2], np.uint8), np.array([True]))
    put_case("put/repeated_same_value", np.zeros(5, np.float32), [], np.array([1, 1, 3, 1]), np.array([7, 7, 2, 7], np.float32))
    put_case("put/float16", np.zeros(5, np.float16), [], np.array([4, 0]), np.array([0.1, 65504], np.float16))
    put_case("put/empty_indices", np.ones(3, np.float32), [], np.zeros(0, np.int64), np.array([5], np.float32))
    put_case("put/out_of_bounds", np.zeros(5, np.float32), [], np.array([0, 5]), np.array([1], np.float32))
    put_case("put/out_of_bounds_neg", np.zeros(5, np.float32), [], np.array([-6, 1]), np.array([1], np.float32))
    put_case("put/float_indices", np.zeros(5, np.float32), [], np.array([1.0]), np.array([1], np.float32))

    def at_case(cid, uf, base, steps, idx, vals, axis=0, tol=False):
        ia, a = operand(g, base, steps)
        ii, i = operand(g, idx)
        iv, v = operand(g, vals)

        def run():
            b = a.copy()
            if axis is None:
                uf.at(b.reshape(-1), i, v)
            else:
                uf.at(b, (slice(None),) * axis + (i,), v)
            return b

        extra = None
        if tol:
            extra = {"n": int(np.size(i)) + 1, "scale_max": float(np.abs(a).max() + np.abs(v).sum())}
        record(g, cid, uf.__name__ + ".at", [ia, ii, iv], run, {"axis": axis}, extra)

    idx200 = rng.integers(-6, 6, 200)
    at_case("add_at/int32_repeated", np.add, np.zeros(5, np.int32), [], np.array([0, 1, 0, 4, 0, -1]), np.array([1, 2, 3, 4, 5, 6], np.int32))
    at_case("add_at/float32_repeated", np.add, rng.uniform(-1, 1, 6).astype(np.float32), [], idx200, rng.uniform(-1, 1, 200).astype(np.float32), tol=True)
    at_case("add_at/int8_wrap", np.add, np.zeros(3, np.int8), [], np.array([0] * 200 + [1, 2]), np.array(100, np.int8))
    at_case("add_at/uint8_wrap", np.add, np.zeros(3, np.uint8), [], np.array([2] * 7), np.array(200, np.uint8))
    at_case("add_at/int16_neg", np.add, np.full(3, 5, np.int16), [], np.array([1] * 9), np.array(-4000, np.int16))
    at_case("add_at/rows_f32", np.add, np.zeros((4, 3), np.float32), [], np.array([0, 2, 0]), np.arange(9, dtype=np.float32).reshape(3, 3))
    at_case("add_at/broadcast_row", np.add, np.zeros((4, 3), np.int32), [], np.array([1, 1, 3]), np.array([1, 10, 100], np.int32))
    at_case("add_at/bool_or", np.add, np.zeros(3, np.bool_), [], np.array([1, 1]), np.array(True))
    at_case("add_at/float16_same_values", np.add, np.zeros(2, np.float16), [], np.array([0] * 5), np.array(0.1, np.float16))
    at_case("add_at/int64_histogram", np.add, np.zeros(8, np.int64), [], rng.integers(0, 8, 300), np.array(1, np.int64))
    at_case("add_at/float64", np.add, np.zeros(3), [], np.array([0, 2, 2]), np.array([0.5, 0.25, 0.125]))
    at_case("add_at/transposed_target", np.add, np.zeros((3, 4), np.float32), [T()], np.array([3, 0, 3]), np.float32(1.5) * np.ones(3, np.float32))
    at_case("add_at/uint32_idx_value_cast", np.add, np.zeros(4, np.int32), [], np.array([3, 3], np.uint32), np.array([1.5, 2.5], np.float32))
    at_case("add_at/not_broadcastable", np.add, np.zeros((3, 2), np.float32), [], np.array([0, 1]), np.ones(3, np.float32))
    at_case("add_at/out_of_bounds", np.add, np.zeros(3, np.float32), [], np.array([0, 3]), np.float32(1) * np.ones(2, np.float32))
    at_case("add_at/out_of_bounds_neg", np.add, np.zeros(3, np.int32), [], np.array([-4]), np.array(1, np.int32))
    at_case("add_at/float_indices", np.add, np.zeros(3, np.int32), [], np.array([1.0]), np.array(1, np.int32))
    at_case("maximum_at/float32_nan", np.maximum, np.zeros(3, np.float32), [], np.array([0, 0, 1, 2]), np.array([np.nan, 1, 2, -1], np.float32))
    at_case("maximum_at/int32", np.maximum, np.array([5, -5, 0], np.int32), [], rng.integers(0, 3, 50), rng.integers(-100, 100, 50).astype(np.int32))
    at_case("maximum_at/uint8", np.maximum, np.array([5, 250, 0], np.uint8), [], np.array([0, 1, 1, 2]), np.array([4, 255, 3, 9], np.uint8))
    at_case("minimum_at/int16", np.minimum, np.array([5, -5, 0], np.int16), [], rng.integers(0, 3, 50), rng.integers(-100, 100, 50).astype(np.int16))
    at_case("minimum_at/float32", np.minimum, np.zeros(3, np.float32), [], np.array([0, 1, 1, 2, 2]), np.array([1, -1, -3, np.inf, -np.inf], np.float32))
    at_case("minimum_at/float16_nan", np.minimum, np.zeros(2, np.float16), [], np.array([1, 1]), np.array([np.nan, -1], np.float16))
    at_case("scatter_add/axis1", np.add, np.zeros((2, 4, 3), np.float32), [], np.array([3, 0, 3]), np.float32(1) * np.ones((2, 3, 3), np.float32), axis=1)
    at_case("scatter_add/axis_last_2d_idx", np.add, np.zeros((2, 5), np.int32), [], np.array([[4, 4], [0, -1]]), np.array(3, np.int32), axis=1)
    at_case("scatter_add/flat", np.add, np.zeros((2, 3), np.int32), [], np.array([5, 5, 0]), np.array([1, 2, 3], np.int32), axis=None)
    at_case("scatter_max/flat_int32", np.maximum, np.zeros((2, 3), np.int32), [], np.array([5, 5, 0, 1]), np.array([1, 7, -3, 4], np.int32), axis=None)
    at_case("scatter_min/axis0_f32", np.minimum, np.ones((3, 2), np.float32), [], np.array([2, 2]), np.array([[0.5, 3], [2, -1]], np.float32), axis=0)
    g.write()


# ---------- complex64 / complex128 ----------

COMPLEX = ["complex64", "complex128"]
C_NAN, C_INF = float("nan"), float("inf")


def c_lhs():
    """First operands: signed zeros, every quadrant, tiny/huge parts, NaN and infinite parts."""
    return [0j, complex(-0.0, -0.0), 1 + 2j, -2.5 + 0.5j, 3.75 - 1j, 1e-3j, 100 + 0j, -7 - 7j,
            complex(C_NAN, 0), complex(0, C_NAN), complex(1, C_NAN), complex(C_INF, 0),
            complex(0, -C_INF), complex(C_INF, C_INF), 0.5 + 0.5j, 2 - 3j, -0.75 + 0.25j, 1 + 1j,
            complex(-C_INF, 1), 1e30 + 1e30j, 0.1 - 0.1j]


def c_rhs():
    """Second operands: zero divisors (both signs), equal values, specials."""
    return [3 - 1j, 0j, complex(-0.0, 0.0), 0.1 + 2j, -1.5 + 0j, 2 + 2j, complex(C_INF, 0),
            complex(0, C_NAN), 0.25 - 0.25j, 1 + 1j, -3j, 7.5 + 1e-3j, complex(C_NAN, C_NAN),
            -0.5 - 0.5j, 1e-30 + 0j, 1 + 2j]


def c_trans():
    """Function inputs: moderate magnitudes in every quadrant, the unit circle, axes, specials."""
    return [0j, complex(-0.0, 0.0), complex(0.0, -0.0), 0.5 + 0.5j, -0.5 + 2j, 1 + 0j, -1 + 0j, 1j,
            -1j, 2 - 3j, -3.14159 + 1j, 6 + 0.25j, -6 - 9.5j, 0.01 + 0.01j, 0.6 + 0.8j,
            0.99999 + 0.001j, 1.0000001 + 0.001j, 9.5 + 0.5j, -0.75 - 4.25j, 30 + 1j, 1 - 30j,
            complex(C_INF, 0), complex(0, C_INF), complex(C_NAN, 0), complex(0, C_NAN),
            complex(C_INF, C_INF), complex(-C_INF, 2), complex(2, -C_INF), complex(C_NAN, C_NAN),
            complex(-C_INF, C_NAN), 800 + 1j, -1 + 800j]


def c_power_lhs():
    # Finite bases (glibc's cpow special cases for infinite/NaN bases differ between its single
    # and double precision versions): zeros, the unit circle, every quadrant.
    return [0j, 1 + 2j, -2.5 + 0.5j, 3.75 - 1j, 0.5 + 0.5j, -1 + 0j, 1j, 2 - 3j, -0.75 + 0.25j,
            1 + 1j, 0.6 + 0.8j, -7 - 7j, 1e-3 + 0j]


def c_power_rhs():
    # 0, small integers (NumPy's repeated products, negative ones then 1/...), non-integer and
    # complex exponents (exp(w log z)), a zero base with re(w) <= 0 (NaN).
    return [2 + 0j, 3 + 0j, 0j, -1 + 0j, 0.5 + 0j, 1j, 1 + 1j, -2 + 0j, 2.5 - 0.5j, 5 + 0j,
            1 + 0j, -0.5 + 0j, 7 + 0j]


C_BINARY_MAIN = ["add", "subtract", "multiply", "true_divide", "power", "maximum", "less", "equal"]
C_BINARY_EXTRA = ["minimum", "fmax", "fmin", "not_equal", "less_equal", "greater",
                  "greater_equal", "logical_and", "logical_or"]
C_UNARY_MAIN = ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "square"]
C_UNARY_EXTRA = ["positive", "isnan", "isinf", "isfinite", "logical_not"]
C_TRANS = {"absolute", "sqrt", "exp", "log", "sin", "cos", "tan", "tanh"}
# NumPy has no complex loop for these: TypeError.
C_NO_LOOP_BINARY = ["floor_divide", "remainder", "arctan2", "bitwise_and", "left_shift"]
C_NO_LOOP_UNARY = ["floor", "ceil", "invert"]


def c_arr(vals, shape, dt, shift=0):
    n = int(np.prod(shape))
    out = [vals[(i * 7 + shift) % len(vals)] for i in range(n)]
    return np.array(out, dtype=dt).reshape(shape)


def gen_complex():
    g = Group("complex")
    for dt in COMPLEX:
        for op in C_BINARY_MAIN + C_BINARY_EXTRA:
            views = BINARY_VIEWS if op in C_BINARY_MAIN else {k: BINARY_VIEWS[k] for k in ("contig", "T")}
            lhs, rhs = (c_power_lhs(), c_power_rhs()) if op == "power" else (c_lhs(), c_rhs())
            for vname, (sa, sta, sb, stb) in views.items():
                ia, a = operand(g, c_arr(lhs, sa, dt), sta)
                ib, b = operand(g, c_arr(rhs, sb, dt, shift=3), stb)
                f = getattr(np, op)
                record(g, f"{op}/{dt}/{vname}", op, [ia, ib], lambda: f(a, b))
        # Every pair of lhs and rhs values once (division by signed zeros, NaN ordering rules).
        lhs, rhs = c_lhs(), c_rhs()
        a_all = np.array([x for x in lhs for _ in rhs], dtype=dt)
        b_all = np.array([y for _ in lhs for y in rhs], dtype=dt)
        ia, a = operand(g, a_all)
        ib, b = operand(g, b_all)
        for op in ["multiply", "true_divide", "maximum", "minimum", "fmax", "fmin", "less",
                   "less_equal", "greater", "greater_equal", "equal", "not_equal"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/all_pairs", op, [ia, ib], lambda: f(a, b))
        for op in C_UNARY_MAIN + C_UNARY_EXTRA:
            views = UNARY_VIEWS if op in C_UNARY_MAIN else {k: UNARY_VIEWS[k] for k in ("contig", "reverse")}
            vals = c_trans() if op in C_TRANS else c_lhs()
            for vname, (sa, sta) in views.items():
                ia, a = operand(g, c_arr(vals, sa, dt), sta)
                f = getattr(np, op)
                record(g, f"{op}/{dt}/{vname}", op, [ia], lambda: f(a))
            # Every input value once.
            ia, a = operand(g, np.array(vals, dtype=dt))
            record(g, f"{op}/{dt}/all_values", op, [ia], lambda: f(a))
        for op in C_NO_LOOP_BINARY:
            ia, a = operand(g, c_arr(c_lhs(), (2, 3), dt))
            ib, b = operand(g, c_arr(c_rhs(), (2, 3), dt))
            f = getattr(np, op)
            record(g, f"{op}/{dt}/no_loop", op, [ia, ib], lambda: f(a, b))
        for op in C_NO_LOOP_UNARY:
            ia, a = operand(g, c_arr(c_lhs(), (2, 3), dt))
            f = getattr(np, op)
            record(g, f"{op}/{dt}/no_loop", op, [ia], lambda: f(a))
        # Weak Python scalars keep the complex dtype (NEP 50).
        for op, sv in [("multiply", 2.5), ("add", -1), ("true_divide", 0.0), ("subtract", True),
                       ("power", 2), ("less", 1.0)]:
            ia, a = operand(g, c_arr(c_lhs()[:8], (2, 4), dt))
            isc, v = weak(sv)
            f = getattr(np, op)
            record(g, f"weak/{op}/{dt}/{sv!r}", op, [ia, isc], lambda: f(a, v))
            record(g, f"weak_left/{op}/{dt}/{sv!r}", op, [isc, ia], lambda: f(v, a))

    # Promotion between complex and real arrays.
    for x, y in [("complex64", "float32"), ("complex64", "float64"), ("complex64", "int8"),
                 ("complex64", "int32"), ("complex64", "float16"), ("complex128", "float32"),
                 ("complex64", "complex128"), ("bool", "complex64"), ("uint64", "complex64")]:
        for op in ["add", "multiply", "true_divide", "less"]:
            base_a = c_arr([1 + 2j, -3 + 0.5j, 0j, 2 - 1j], (2, 3), x) if np.dtype(x).kind == "c" else cyc([1, 2, 3, 0, 5, 7], (2, 3), x)
            base_b = c_arr([3 + 1j, 1 - 1j, 2 + 0j, 0.5j], (2, 3), y) if np.dtype(y).kind == "c" else cyc([3, 1, 2, 4, 1, 6], (2, 3), y)
            ia, a = operand(g, base_a)
            ib, b = operand(g, base_b)
            f = getattr(np, op)
            record(g, f"promote/{op}/{x}+{y}", op, [ia, ib], lambda: f(a, b))

    # astype: complex -> every kind (real part; bool is re != 0 or im != 0), real -> complex.
    c_to_int = [0j, 1 + 5j, 2.7 - 1j, 100.9 + 3j, 127 + 0j, 0.25j, 3 - 0j, 99.99 + 1e30j]
    c_to_float = c_to_int + [complex(C_NAN, 1), complex(C_INF, C_NAN), complex(-C_INF, 0),
                             complex(-0.0, 2), 65504 + 1j, 1e-8 + 0j, 0.1 + 0.2j, 1e39 + 1j]
    c_to_bool = [0j, complex(-0.0, -0.0), complex(0, 1e-30), complex(C_NAN, 0), 1 + 0j,
                 complex(0, C_INF)]
    for src in COMPLEX:
        for dst, vals in [("bool", c_to_bool), ("int8", c_to_int), ("int32", c_to_int),
                          ("int64", c_to_int), ("uint8", c_to_int), ("uint64", c_to_int),
                          ("float16", c_to_float), ("float32", c_to_float),
                          ("float64", c_to_float), ("complex64", c_to_float),
                          ("complex128", c_to_float)]:
            if dst == src:
                continue
            ia, a = operand(g, np.array(vals, dtype=src))
            record(g, f"astype/{src}->{dst}", "astype", [ia], lambda: a.astype(dst), {"dtype": dst})
        ib, b = operand(g, np.array(c_to_float, dtype=src).reshape(4, 4), [T(), sl([None, None, -1])])
        record(g, f"astype/{src}->complex/T_reverse", "astype", [ib],
               lambda: b.astype("complex128" if src == "complex64" else "complex64"), {"dtype": "complex128" if src == "complex64" else "complex64"})
    for src in ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64"]:
        vals = astype_values(src)
        if np.dtype(src).kind == "f":
            vals = vals + [-2.5, float("nan"), float("inf"), -float("inf")]
        ia, a = operand(g, np.array(vals, dtype=src))
        for dst in COMPLEX:
            record(g, f"astype/{src}->{dst}", "astype", [ia], lambda: a.astype(dst), {"dtype": dst})

    # Reductions: sum, prod, mean over axes (scale: the same reduction of |x|, as float64).
    def red(cid, op, base, steps, axis, keepdims):
        ia, a = operand(g, base, steps)
        f = getattr(np, op)
        kw = {"axis": axis if not isinstance(axis, tuple) else list(axis), "keepdims": keepdims}

        def extra(r):
            ax = axis
            n = a.size if ax is None else int(np.prod([a.shape[i] for i in (ax if isinstance(ax, tuple) else (ax,))]))
            # NaN parts count as 0: the other part of a NaN-carrying element keeps its scale.
            absa = np.abs(np.nan_to_num(a.astype(np.complex128), nan=0.0))
            s = getattr(np, op)(absa, axis=ax, keepdims=keepdims)
            return {"scale": g.arr(np.asarray(s, dtype=np.float64)), "n": max(n, 1)}

        record(g, cid, op, [ia], lambda: f(a, axis=axis, keepdims=keepdims), kw, extra)

    rng = np.random.default_rng(20261130)
    for dt in COMPLEX:
        for op in ["sum", "prod", "mean"]:
            def vals(shape, seed):
                r = np.random.default_rng(seed)
                n = int(np.prod(shape))
                if op == "prod":
                    z = r.uniform(0.5, 1.5, n) * np.exp(1j * r.uniform(-np.pi, np.pi, n))
                else:
                    z = r.uniform(-4, 4, n) + 1j * r.uniform(-4, 4, n)
                return z.astype(dt).reshape(shape)
            b3 = vals((2, 3, 4), 1)
            for axis in [None, 0, 1, -1, (0, 2)]:
                red(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis, False)
            red(f"{op}/{dt}/3d/axis1/keepdims", op, b3, [], 1, True)
            b2 = vals((5, 7), 3)
            red(f"{op}/{dt}/2d/T/axis0", op, b2, [T()], 0, False)
            red(f"{op}/{dt}/2d/reverse/axis1", op, b2, [sl([None, None, -1], [None, None, -1])], 1, False)
            red(f"{op}/{dt}/1d/long", op, vals((1031,), 4), [], None, False)
            red(f"{op}/{dt}/empty/axis0", op, np.zeros((0, 3), dt), [], 0, False)
            red(f"{op}/{dt}/0d", op, vals((), 5), [], None, False)
            v = vals((3, 4), 6)
            v[1, 2] = complex(C_NAN, 1)
            red(f"{op}/{dt}/nan/axis0", op, v, [], 0, False)

    # matmul: 2-D, transposed operands, batched with broadcasting, 1-D promotion, mixed dtypes.
    def mm(cid, a_base, a_steps, b_base, b_steps):
        ia, a = operand(g, a_base, a_steps)
        ib, b = operand(g, b_base, b_steps)

        def extra(r):
            s = np.matmul(np.abs(a.astype(np.complex128)), np.abs(b.astype(np.complex128)))
            k = a.shape[-1] if a.ndim >= 1 else 1
            return {"scale_max": float(np.max(s, initial=0.0)), "n": max(int(k), 1)}

        record(g, cid, "matmul", [ia, ib], lambda: np.matmul(a, b), {}, extra)

    def cr(*shape, dt):
        return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dt)

    for dt in COMPLEX:
        mm(f"matmul/{dt}/2d", cr(5, 7, dt=dt), [], cr(7, 3, dt=dt), [])
        mm(f"matmul/{dt}/aT", cr(7, 5, dt=dt), [T()], cr(7, 3, dt=dt), [])
        mm(f"matmul/{dt}/bT", cr(5, 7, dt=dt), [], cr(3, 7, dt=dt), [T()])
        mm(f"matmul/{dt}/aTbT", cr(7, 5, dt=dt), [T()], cr(3, 7, dt=dt), [T()])
        mm(f"matmul/{dt}/1d@2d", cr(7, dt=dt), [], cr(7, 4, dt=dt), [])
        mm(f"matmul/{dt}/2d@1d", cr(4, 7, dt=dt), [], cr(7, dt=dt), [])
        mm(f"matmul/{dt}/batched_bcast", cr(2, 1, 4, 5, dt=dt), [], cr(3, 5, 2, dt=dt), [])
        mm(f"matmul/{dt}/batched_T", cr(3, 5, 4, dt=dt), [{"op": "swapaxes", "a": 1, "b": 2}], cr(3, 5, 6, dt=dt), [])
        mm(f"matmul/{dt}/33x64@64x34", cr(33, 64, dt=dt), [], cr(64, 34, dt=dt), [])
        mm(f"matmul/{dt}/strided", cr(10, 7, dt=dt), [sl([None, None, 2])], cr(7, 6, dt=dt), [sl([None, None, None], [None, None, -2])])
        mm(f"matmul/{dt}/k0", cr(4, 0, dt=dt), [], cr(0, 3, dt=dt), [])
    mm("matmul/complex64@float32", cr(3, 4, dt="complex64"), [], rng.uniform(-1, 1, (4, 2)).astype(np.float32), [])
    mm("matmul/float64@complex64", rng.uniform(-1, 1, (3, 4)), [], cr(4, 2, dt="complex64"), [])
    g.write()


if __name__ == "__main__":
    only = sys.argv[1:]
    if only:  # python3 tests/golden/gen.py sorting  -- regenerate named groups only
        for name in only:
            globals()[f"gen_{name}"]()
        sys.exit(0)
    gen_creation()
    gen_astype()
    gen_ufuncs()
    gen_reductions()
    gen_linalg()
    gen_signal()
    gen_views()
    gen_printing()
    gen_custom()
    gen_indexing()
    gen_sorting()
    gen_complex()
    total = sum(os.path.getsize(os.path.join(HERE, f)) for f in os.listdir(HERE) if f.endswith((".npys", ".json")))
    print(f"total {total} bytes")

"""Shared helpers of the golden generators (see ../gen.py for the file format): the version pin,
`Group` (one .npys/.json pair), view recipes, `record`, and the operand values several groups use.
Every group module does `from .common import *`."""

import hashlib
import io
import json
import os
import sys

import numpy as np
import scipy
import scipy.signal

PINNED = {"numpy": "2.2.6", "scipy": "1.17.1"}  # keep in step with ../gen.py's header
if np.__version__ != PINNED["numpy"] or scipy.__version__ != PINNED["scipy"]:
    sys.exit(
        f"gen.py is pinned to numpy {PINNED['numpy']} / scipy {PINNED['scipy']}, "
        f"found {np.__version__} / {scipy.__version__}"
    )

# tests/golden/: where the goldens are written (this file is in tests/golden/gen/).
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def record_pieces(g, cid, op, ops, fn, **kw):
    """Records fn(*arrays of ops) as one case, or, for a list/tuple result, one case per piece
    (kwargs "piece", the case's "pieces"; an empty result is one case with piece -1), or the
    exception NumPy raises (TypeError, ValueError, IndexError, OverflowError). ops: (input, array) pairs as
    operand() returns them; kw: the op's arguments as NumPy spells them."""
    c = {"id": cid, "op": op, "inputs": [o[0] for o in ops], "kwargs": kw}
    try:
        with np.errstate(all="ignore"):
            r = fn(*[o[1] for o in ops])
    except (TypeError, ValueError, IndexError, OverflowError) as e:
        c["error"] = type(e).__name__
        c["message"] = str(e)
        g.case(**c)
        return
    if isinstance(r, (list, tuple)):
        for i, p in enumerate(r):
            p = np.asarray(p)
            g.case(**dict(c, id=f"{cid}/{i}", kwargs=dict(kw, piece=i), pieces=len(r),
                          expected=g.arr(p), dtype=p.dtype.name, shape=list(p.shape)))
        if not r:
            g.case(**dict(c, pieces=0, kwargs=dict(kw, piece=-1)))
        return
    r = np.asarray(r)
    g.case(**dict(c, expected=g.arr(r), dtype=r.dtype.name, shape=list(r.shape)))


# ---------- values ----------


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



# ---------- views shared by ufuncs and complex ----------

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



# ---------- values shared by astype and complex ----------

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



# ---------- values shared by reductions and sorting ----------

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


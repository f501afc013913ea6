"""Goldens of the ufuncs and routines of issue 11 (item 1): fabs sign heaviside reciprocal cbrt
float_power ldexp frexp modf divmod nextafter spacing gcd lcm fix isposinf isneginf real imag angle
over every dtype (complex where NumPy has the loop, TypeError where it has none), the two outputs of
frexp/modf/divmod (one case per output, kwargs.out), and the routines clip, where, round,
nan_to_num, angle(deg=True). Inputs: signed zeros, subnormals, the largest finite values,
infinities, NaN, integer extremes, zero divisors, negative operands."""

from .common import *  # noqa: F401,F403
from .complex import c_lhs, c_trans, c_arr

COMPLEX = ["complex64", "complex128"]
ALL = DTYPES + COMPLEX


def bits_values(dt):
    """Float specials for the exact float routines: zeros, subnormals, powers of two, max."""
    d = np.dtype(dt)
    if d.kind != "f":
        return trans_values(dt)
    fi = np.finfo(d)
    sub, tiny, big = float(fi.smallest_subnormal), float(fi.tiny), float(fi.max)
    return [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -0.75, 1.5, sub, -sub, 3 * sub, tiny, -tiny,
            tiny * 0.5, big, -big, big * 0.5, np.inf, -np.inf, np.nan, 0.1, -1e-3, 1000.0, 65504.0
            if dt == "float16" else 1e30, 7.0, float(fi.eps), 1.0 - float(fi.epsneg)]


def dt_arr(vals, shape, dt, shift=0):
    if np.dtype(dt).kind == "c":
        return c_arr(vals, shape, dt, shift)
    return cyc(vals, shape, dt, shift)


def record_outs(g, cid, op, inputs, fn, nout=2):
    for k in range(nout):
        record(g, f"{cid}/out{k}", op, inputs, lambda: fn()[k], kwargs={"out": k})


def gen_ufuncs2():
    g = Group("ufuncs2")
    unary = {
        "fabs": lhs_values, "sign": lhs_values, "reciprocal": rhs_values, "cbrt": trans_values,
        "fix": lhs_values, "isposinf": lhs_values, "isneginf": lhs_values, "real": lhs_values,
        "imag": lhs_values, "angle": lhs_values, "spacing": bits_values,
    }
    complex_unary = {"sign": c_lhs, "reciprocal": c_lhs, "real": c_lhs, "imag": c_lhs,
                     "angle": c_trans, "fabs": c_lhs, "cbrt": c_trans, "fix": c_lhs,
                     "isposinf": c_lhs, "isneginf": c_lhs, "spacing": c_lhs}
    for dt in ALL:
        cplx = np.dtype(dt).kind == "c"
        for op, vals in unary.items():
            v = complex_unary[op]() if cplx else vals(dt)
            for vname, steps in (("contig", ()), ("reverse", (sl([None, None, -1]),))):
                ia, a = operand(g, dt_arr(v, (29,), dt), steps)
                f = getattr(np, op)
                record(g, f"{op}/{dt}/{vname}", op, [ia], lambda: f(a))
        for op in ["frexp", "modf"]:
            v = c_lhs() if cplx else bits_values(dt)
            ia, a = operand(g, dt_arr(v, (29,), dt))
            f = getattr(np, op)
            record_outs(g, f"{op}/{dt}/contig", op, [ia], lambda: f(a))
        # Binary: contig and a transposed/broadcast pair.
        binary = {
            "heaviside": (trans_values, rhs_values), "float_power": (trans_values, power_rhs),
            "nextafter": (bits_values, bits_values), "gcd": (lhs_values, rhs_values),
            "lcm": (lhs_values, rhs_values), "divmod": (lhs_values, rhs_values),
        }
        for op, (lv, rv) in binary.items():
            if cplx:
                lvals, rvals = c_lhs(), c_lhs()[3:]
                if op == "float_power":
                    from .complex import c_power_lhs, c_power_rhs
                    lvals, rvals = c_power_lhs(), c_power_rhs()
            else:
                lvals, rvals = lv(dt), rv(dt)
            f = getattr(np, op)
            for vname, (sa, sta, sb, stb) in {k: BINARY_VIEWS[k] for k in ("contig", "T", "broadcast")}.items():
                ia, a = operand(g, dt_arr(lvals, sa, dt), sta)
                ib, b = operand(g, dt_arr(rvals, sb, dt, shift=3), stb)
                if op == "divmod":
                    record_outs(g, f"{op}/{dt}/{vname}", op, [ia, ib], lambda: f(a, b))
                else:
                    record(g, f"{op}/{dt}/{vname}", op, [ia, ib], lambda: f(a, b))
        # Every pair of special values once for nextafter (both orders, equal values).
        if np.dtype(dt).kind == "f":
            v = bits_values(dt)
            ia, a = operand(g, np.array([x for x in v for _ in v], dtype=dt))
            ib, b = operand(g, np.array([y for _ in v for y in v], dtype=dt))
            record(g, f"nextafter/{dt}/pairs", "nextafter", [ia, ib], lambda: np.nextafter(a, b))
            record(g, f"heaviside/{dt}/pairs", "heaviside", [ia, ib], lambda: np.heaviside(a, b))
    # Integer edges: gcd/lcm of extremes and zeros, divmod of INT_MIN by -1, reciprocal of 0.
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint64"]:
        info = np.iinfo(dt)
        s = np.dtype(dt).kind == "i"
        a = np.array([info.min, info.min, info.max, 0, 0, 12, -12 if s else 12, 100, 97, info.max,
                      7, 2**5 * 3 % (info.max + 1)], dtype=dt)
        b = np.array([info.min, -1 if s else 1, info.max, 0, 5, 18, 18, -75 if s else 75, 89,
                      info.max - 1, 0, 2**3 * 3**2], dtype=dt)
        ia, _ = operand(g, a)
        ib, _ = operand(g, b)
        for op in ["gcd", "lcm"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/edges", op, [ia, ib], lambda: f(a, b))
        record_outs(g, f"divmod/{dt}/edges", "divmod", [ia, ib], lambda: np.divmod(a, b))
    # Fibonacci neighbours: Euclid's longest runs.
    fib = [1, 2]
    while fib[-1] < 2**63:
        fib.append(fib[-1] + fib[-2])
    for dt in ["uint8", "uint16", "int32", "uint32", "int64", "uint64"]:
        hi = np.iinfo(dt).max
        pairs = [(x, y) for x, y in zip(fib[1:], fib[:-1]) if x <= hi][-4:]
        a = np.array([p[0] for p in pairs] + [p[1] for p in pairs], dtype=dt)
        b = np.array([p[1] for p in pairs] + [p[0] for p in pairs], dtype=dt)
        ia, _ = operand(g, a)
        ib, _ = operand(g, b)
        record(g, f"gcd/{dt}/fibonacci", "gcd", [ia, ib], lambda: np.gcd(a, b))
    # ldexp: exponent dtypes (fi/fl loops, TypeError for uint64/float), weak exponents.
    for xdt in ["float16", "float32", "float64", "int8", "int32", "uint64", "bool", "complex64"]:
        xv = bits_values(xdt) if np.dtype(xdt).kind == "f" else trans_values(xdt) if xdt != "complex64" else c_lhs()
        for ndt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
                    "float32"]:
            nv = {"b": [True, False]}.get(np.dtype(ndt).kind, [0, 1, -1, 3, -3, 10, -10, 30, -30, 100,
                                                             -100, 127, -128])
            if np.dtype(ndt).kind == "u":
                nv = [0, 1, 3, 10, 30, 100, 127]
            if np.dtype(ndt).itemsize >= 2 and np.dtype(ndt).kind in "iu":
                nv = nv + ([-1000, -1074, -1100, 1023, 1024, 2000, -5000, 30000] if np.dtype(ndt).kind == "i"
                           else [1023, 1024, 2000, 30000])
            if np.dtype(ndt).itemsize >= 4 and np.dtype(ndt).kind == "i":
                nv = nv + [2**31 - 1, -2**31]
            if ndt in ("int64",):
                nv = nv + [2**40, -2**40, 2**63 - 1, -2**63]
            ia, a = operand(g, dt_arr(xv, (31,), xdt))
            ib, b = operand(g, cyc(nv, (31,), ndt, shift=2))
            record(g, f"ldexp/{xdt}/{ndt}", "ldexp", [ia, ib], lambda: np.ldexp(a, b))
    for xdt in ["float32", "float16"]:
        ia, a = operand(g, cyc([1.0, 3.0, -0.5, 0.0, np.inf], (5,), xdt))
        for s in [3, -3, 100, 2**31 - 1, 2**40, 3.0, True]:
            isc, sv = weak(s)
            record(g, f"ldexp/{xdt}/weak/{s!r}", "ldexp", [ia, isc], lambda: np.ldexp(a, sv))
    # frexp / spacing / nextafter of every finite float16 (a whole format, exhaustively).
    h = np.arange(0, 2**16, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)][::7]
    ih, hh = operand(g, h)
    record(g, "spacing/float16/sweep", "spacing", [ih], lambda: np.spacing(hh))
    record_outs(g, "frexp/float16/sweep", "frexp", [ih], lambda: np.frexp(hh))
    record(g, "nextafter/float16/sweep_up", "nextafter", [ih, weak(np.inf)[0]], lambda: np.nextafter(hh, np.inf))
    record(g, "nextafter/float16/sweep_down", "nextafter", [ih, weak(-np.inf)[0]], lambda: np.nextafter(hh, -np.inf))
    rng = np.random.default_rng(11)
    for dt, bits in [("float32", np.uint32), ("float64", np.uint64)]:
        r = rng.integers(0, np.iinfo(bits).max, 4000, dtype=bits, endpoint=True).view(dt)
        r = r[np.isfinite(r)]
        ir, rr = operand(g, r)
        record(g, f"spacing/{dt}/random_bits", "spacing", [ir], lambda: np.spacing(rr))
        record_outs(g, f"frexp/{dt}/random_bits", "frexp", [ir], lambda: np.frexp(rr))
        record(g, f"nextafter/{dt}/random_bits", "nextafter", [ir, weak(0.0)[0]], lambda: np.nextafter(rr, 0.0))
        e = rng.integers(-1200 if dt == "float64" else -300, 1200 if dt == "float64" else 300, r.size).astype(np.int32)
        ie, ee = operand(g, e)
        record(g, f"ldexp/{dt}/random_bits", "ldexp", [ir, ie], lambda: np.ldexp(rr, ee))
    # float_power / heaviside with weak scalars; sign/reciprocal of weak-typed results.
    for dt in ["int8", "float16", "float32", "complex64"]:
        ia, a = operand(g, dt_arr(c_lhs() if dt == "complex64" else trans_values(dt), (7,), dt))
        for s in [2, 0.5, -1]:
            isc, sv = weak(s)
            record(g, f"float_power/{dt}/weak/{s!r}", "float_power", [ia, isc], lambda: np.float_power(a, sv))
            if dt != "complex64":
                record(g, f"heaviside/{dt}/weak/{s!r}", "heaviside", [ia, isc], lambda: np.heaviside(a, sv))
    gen_complex_loops(g)
    gen_routines(g)
    gen_round_out(g)
    g.write()


COMPLEX_LOOPS = ["exp2", "expm1", "log2", "log1p", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
                 "arctanh"]


def gen_complex_loops(g):
    """The complex loops of exp2 expm1 log2 log1p and the inverse trigonometric and hyperbolic
    functions: moderate values in every quadrant, the branch cuts on both sides (signed zeros),
    huge and tiny parts, and every pair of special parts."""
    for dt in COMPLEX:
        big = 1e30 if dt == "complex64" else 1e200
        cuts = [complex(x, s) for x in [-3.0, -1.0, -0.5, 0.5, 1.0, 1.5, 3.0] for s in [0.0, -0.0]]
        cuts += [complex(s, y) for y in [-3.0, -1.0, -0.5, 0.5, 1.0, 2.0] for s in [0.0, -0.0]]
        extra = [complex(big, 1), complex(-big, big), complex(1, -big), complex(1e-20, 1e-20),
                 complex(-1e-20, 3e-25), complex(0.999, 1e-7), complex(-1.0000001, -1e-7)]
        vals = c_trans() + cuts + extra
        ia, a = operand(g, np.array(vals, dtype=dt))
        sp = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, np.inf, -np.inf, np.nan]
        grid = np.array([complex(x, y) for x in sp for y in sp], dtype=dt)
        ig, gg = operand(g, grid)
        for op in COMPLEX_LOOPS:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/values", op, [ia], lambda: f(a))
            record(g, f"{op}/{dt}/specials", op, [ig], lambda: f(gg))


def gen_routines(g):
    # clip: scalar and array bounds, None on one side, out-of-range Python ints, NaN bounds,
    # reversed bounds, promotion (int8 with 0.5).
    for dt in ALL:
        cplx = np.dtype(dt).kind == "c"
        v = c_lhs() if cplx else lhs_values(dt)
        ia, a = operand(g, dt_arr(v, (3, 7), dt))
        lo_v, hi_v = {"b": (False, True), "i": (-7, 42), "u": (3, 100), "f": (-1.0, 2.5),
                      "c": (0.5, 2.0)}[np.dtype(dt).kind]
        for name, lo, hi in [("both", lo_v, hi_v), ("min_only", lo_v, None), ("max_only", None, hi_v),
                             ("none", None, None), ("reversed", hi_v, lo_v)]:
            ins = [ia] + [weak(x)[0] for x in (lo, hi) if x is not None]
            record(g, f"clip/{dt}/{name}", "clip", ins, lambda: np.clip(a, lo, hi),
                   kwargs={"min": lo is not None, "max": hi is not None})
        il, lo_a = operand(g, dt_arr(v, (7,), dt, shift=2))
        ih, hi_a = operand(g, dt_arr(v, (3, 1), dt, shift=5))
        record(g, f"clip/{dt}/arrays", "clip", [ia, il, ih], lambda: np.clip(a, lo_a, hi_a),
               kwargs={"min": True, "max": True})
    for dt, lo, hi in [("int8", -1000, 50), ("int8", 0, 300), ("uint8", -1, 50), ("uint8", -1, 300),
                       ("int64", -2**70, 2**64), ("uint64", -5, 2**64 - 1), ("int16", 0.5, 50),
                       ("float32", float("nan"), 2.0), ("uint8", 300, None), ("int32", 2**40, None)]:
        ia, a = operand(g, cyc(lhs_values(dt), (9,), dt))
        ins = [ia] + [weak(x)[0] for x in (lo, hi) if x is not None]
        record(g, f"clip/{dt}/range/{lo!r}/{hi!r}", "clip", ins, lambda: np.clip(a, lo, hi),
               kwargs={"min": lo is not None, "max": hi is not None})
    # where: every dtype pair class, weak scalars (out of range wraps in NumPy 2.2), broadcasting.
    cond = np.array([[True, False, True, True, False], [False, False, True, False, True],
                     [True, True, False, False, True]])
    ic, cc = operand(g, cond)
    for dt in ALL:
        v = c_lhs() if np.dtype(dt).kind == "c" else lhs_values(dt)
        ix, x = operand(g, dt_arr(v, (3, 5), dt))
        iy, y = operand(g, dt_arr(v, (5,), dt, shift=3))
        record(g, f"where/{dt}/arrays", "where", [ic, ix, iy], lambda: np.where(cc, x, y))
        for s in [1, -1, 2.5, True, 1000]:
            isc, sv = weak(s)
            record(g, f"where/{dt}/weak/{s!r}", "where", [ic, ix, isc], lambda: np.where(cc, x, sv))
    for cdt in ["int32", "float64", "uint8", "complex64"]:
        ic2, c2 = operand(g, dt_arr(c_lhs() if cdt == "complex64" else lhs_values(cdt), (5,), cdt))
        ix, x = operand(g, cyc([1.5, -2.0, 3.25], (3, 1), "float32"))
        record(g, f"where/cond_{cdt}", "where", [ic2, ix, weak(0)[0]], lambda: np.where(c2, x, 0))
    for x, y in [("int8", "uint8"), ("int64", "float16"), ("bool", "int16"), ("float32", "complex128"),
                 ("uint64", "int64")]:
        ix, xa = operand(g, cyc(lhs_values(x)[:5], (5,), x))
        iy, ya = operand(g, cyc(lhs_values(y)[:5], (5,), y, shift=1))
        record(g, f"where/{x}+{y}", "where", [ic, ix, iy], lambda: np.where(cc, xa, ya))
    record(g, "where/weak_both", "where", [ic, weak(1)[0], weak(2.5)[0]], lambda: np.where(cc, 1, 2.5))
    record(g, "where/weak_ints", "where", [ic, weak(1)[0], weak(-2)[0]], lambda: np.where(cc, 1, -2))
    # round: decimals -3..3 (and 10, 300 on floats), every dtype, NumPy's half-even after scaling.
    rvals = [0.5, 1.5, 2.5, -0.5, -2.5, 1.234567, -1.234567, 2.675, 0.125, 0.375, 1234.5, -98765.4321,
             1e-8, 123456789.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 0.045, 1.005, 15.0, 25.0, -35.0]
    for dt in ALL:
        k = np.dtype(dt).kind
        if k == "c":
            v = [complex(x, y) for x, y in zip(rvals, rvals[5:] + rvals[:5])]
        elif k == "f":
            v = [x for x in rvals if dt != "float16" or not np.isfinite(x) or abs(x) < 60000]
        else:
            # Without the extremes: their rounded values overflow, and C's float -> int cast of
            # those is undefined (NumPy on x86 wraps, cupy-rs saturates).
            top = np.iinfo(dt).max // 2 if k in "iu" else 2
            v = [x for x in lhs_values(dt) if abs(x) < top] + (
                [15, 25, -15, -25, 115, -125] if k == "i" else [15, 25, 115, 125])
        ia, a = operand(g, dt_arr(v, (len(v),), dt))
        for d in [0, 1, 2, 3, -1, -2, -3] + ([10, 300, -12] if k in "fc" else []):
            record(g, f"round/{dt}/{d}", "round", [ia], lambda: np.round(a, d), kwargs={"decimals": d})
    # nan_to_num: defaults, every keyword, float16 overflow of posinf, complex, integers.
    nvals = [np.nan, np.inf, -np.inf, 1.0, -0.0, 2.5, -3.0, np.nan]
    for dt in ALL:
        k = np.dtype(dt).kind
        if k == "c":
            v = [complex(x, y) for x, y in zip(nvals, nvals[3:] + nvals[:3])]
        elif k == "f":
            v = nvals
        else:
            v = lhs_values(dt)[:6]
        ia, a = operand(g, dt_arr(v, (len(v),), dt))
        for name, kw in [("default", {}), ("nan", {"nan": 5.0}), ("all", {"nan": -1.0, "posinf": 1e10, "neginf": -7.5}),
                         ("posinf", {"posinf": 33.0})]:
            record(g, f"nan_to_num/{dt}/{name}", "nan_to_num", [ia], lambda: np.nan_to_num(a, **kw), kwargs=kw)
    # angle in degrees.
    for dt in ["float16", "float32", "float64", "int8", "bool", "complex64", "complex128"]:
        v = c_trans() if np.dtype(dt).kind == "c" else lhs_values(dt)
        ia, a = operand(g, dt_arr(v, (len(v),), dt))
        record(g, f"angle_deg/{dt}", "angle", [ia], lambda: np.angle(a, deg=True), kwargs={"deg": True})


def gen_round_out(g):
    # round(out=): NumPy's PyArray_Round with an output: the first step (scale, or rint) in the
    # input's loop dtype cast to out (same_kind), rint and the unscaling in out's dtype; integers
    # copied, complex parts assigned; shapes (out may add leading 1s; integers and complex also
    # drop them) and refused casts. kwargs: decimals, out_operand (the index of out's operand).
    ovals = [2.675, -1.5, 0.5, 1234.5678, 0.125, -2.5, 1.005, 15.0, -25.0, 0.045]
    odts = ["float64", "float32", "float16", "int64", "int16", "uint8", "complex128", "complex64", "bool"]

    def round_out(cid, base, d, out, steps=()):
        ia, a = operand(g, base)
        io, _ = operand(g, out, steps)

        def run():
            o = apply_view(out.copy(), steps)
            r = np.round(a, d, out=o)
            assert r is o
            return o

        record(g, f"round/out/{cid}", "round", [ia, io], run, kwargs={"decimals": d, "out_operand": 1})

    for dt in ["float64", "float32", "float16", "int32", "uint8", "bool", "complex128", "complex64"]:
        k = np.dtype(dt).kind
        if k == "c":
            v = [complex(x, y) for x, y in zip(ovals, ovals[3:] + ovals[:3])]
        elif k == "f":
            v = ovals
        elif k == "b":
            v = [True, False, True, True, False, False, True, False, True, True]
        else:
            v = [15, 25, 115, 125, 3, 0, 1, 99, 250 if k == "u" else -125, 7]
        base = dt_arr(v, (2, 5), dt)
        for d in [0, 2, -1]:
            for odt in odts:
                round_out(f"{dt}/{d}/{odt}", base, d, np.full((2, 5), 7, odt))
    f = dt_arr(ovals, (2, 5), "float64")
    i = dt_arr([15, 25, -35, 7, 104], (2, 5), "int32")
    z = dt_arr([complex(x, -x) for x in ovals], (2, 5), "complex128")
    round_out("leading_ones", f, 1, np.zeros((1, 2, 5)))
    round_out("strided", f, 2, np.zeros((2, 10), np.float32), [sl([None, None, None], [None, None, 2])])
    round_out("transposed", f, -1, np.zeros((5, 2)), [T()])
    round_out("float_keeps_ones", f.reshape(1, 10), 1, np.zeros((10,)))
    round_out("int_drops_ones", i.reshape(1, 10), 0, np.zeros((10,), np.int64))
    round_out("int_negative_drops_ones", i.reshape(1, 10), -1, np.zeros((10,)))
    round_out("complex_drops_ones", z.reshape(1, 10), 1, np.zeros((10,), np.complex64))
    round_out("other_size", f, 1, np.zeros((11,)))
    round_out("same_size_other_shape", f, 1, np.zeros((5, 2)))
    round_out("flat", f, 0, np.zeros((10,)))
    round_out("int_other_shape", i, 0, np.zeros((5, 2), np.int32))

"""Ufunc goldens: every binary and unary ufunc over every dtype and view kind, with weak scalars."""

from .common import *  # noqa: F401,F403


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

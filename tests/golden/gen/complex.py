"""complex64 / complex128 goldens: ufuncs (and those with no complex loop), casts, weak scalars,
reductions, matmul."""

from .common import *  # noqa: F401,F403


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

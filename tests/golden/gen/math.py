"""Goldens of the math-library ufuncs (compositions in cupy_core::kernel::math): hyperbolic and
inverse trigonometric functions, exp2/expm1/log2/log10/log1p, hypot, deg2rad/rad2deg, trunc, rint,
signbit, copysign, fmod, conjugate; every real dtype, contiguous and reversed operands, special
values, and complex inputs where NumPy has the loop (TypeError cases where it does not)."""

from .common import *  # noqa: F401,F403

UNARY = ["sinh", "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "exp2",
         "expm1", "log2", "log10", "log1p", "deg2rad", "rad2deg", "trunc", "rint", "signbit",
         "conjugate"]
BINARY = ["hypot", "copysign", "fmod", "logaddexp", "logaddexp2"]
# Values inside each function's domain plus its edges and specials (outside values give NaN,
# which is tested too through the specials).
FLOAT_VALUES = {
    "arcsin": [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 0.999, -0.25, 0.1, 1e-3, np.nan, 2.0],
    "arccos": [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 0.999, -0.25, 0.1, 1e-3, np.nan, 2.0],
    "arctanh": [0.0, -0.0, 0.5, -0.5, 0.9, -0.9, 0.25, 0.1, 1e-3, 1.0, -1.0, np.nan],
    "arccosh": [1.0, 1.5, 2.0, 10.0, 100.0, 3.5, 1e5, np.inf, 0.5, np.nan],
    "log1p": [0.0, -0.0, 1e-3, -1e-3, 0.5, -0.5, 1.0, 9.5, 100.0, -1.0, np.inf, np.nan, 1e-6],
    "rint": [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.4, 0.6, -0.6, 3.0, -0.0, 1e10 + 0.5, np.inf, np.nan],
    "trunc": [0.5, 1.5, -0.5, -1.5, 2.7, -2.7, -0.0, 0.0, 1e10 + 0.5, np.inf, -np.inf, np.nan],
    "signbit": [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5, -2.5, 1e-30],
}


def values(op, dt):
    d = np.dtype(dt)
    if d.kind == "f" and op in FLOAT_VALUES:
        return FLOAT_VALUES[op]
    if d.kind == "i" and op in ("arcsin", "arccos", "arctanh"):
        return [0, 1, -1, 0, 1]
    if d.kind == "u" and op in ("arcsin", "arccos", "arctanh"):
        return [0, 1, 0, 1]
    if d.kind == "i" and op == "arccosh":
        return [1, 2, 3, 5, 9]
    if d.kind in "iu" and op == "log1p":
        return [0, 1, 2, 5, 9, 7]
    return trans_values(dt)


def gen_math():
    g = Group("math")
    for dt in DTYPES:
        for op in UNARY:
            for vname, steps in (("contig", ()), ("reverse", (sl([None, None, -1]),))):
                base = cyc(values(op, dt), (23,), dt)
                ia, a = operand(g, base, steps)
                f = getattr(np, op)
                record(g, f"{op}/{dt}/{vname}", op, [ia], lambda: f(a))
        for op in BINARY:
            base_a = cyc(trans_values(dt), (23,), dt)
            base_b = cyc(trans_values(dt), (23,), dt, shift=3)
            ia, a = operand(g, base_a)
            ib, b = operand(g, base_b)
            f = getattr(np, op)
            record(g, f"{op}/{dt}/contig", op, [ia, ib], lambda: f(a, b))
    # Large and tiny magnitudes where naive formulas overflow or cancel.
    for dt in ["float32", "float64"]:
        big = np.array([1e30, -1e30, 3e38 if dt == "float32" else 1e300, 1e-30, -1e-30, 20.0, -20.0,
                        5e-8, -5e-8, 88.0 if dt == "float32" else 700.0], dtype=dt)
        ia, a = operand(g, big)
        for op in ["sinh", "cosh", "arcsinh", "expm1", "log1p", "arctan"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/magnitudes", op, [ia], lambda: f(a))
        hx = np.array([3e38 if dt == "float32" else 1e308, 1e-38 if dt == "float32" else 1e-308, 3.0,
                       0.0, np.inf, np.nan, -np.inf, 1e20], dtype=dt)
        hy = np.array([3e38 if dt == "float32" else 1e308, 1e-38 if dt == "float32" else 1e-308, 4.0,
                       -0.0, np.nan, np.inf, 2.0, 1e-20], dtype=dt)
        ix, x = operand(g, hx)
        iy, y = operand(g, hy)
        record(g, f"hypot/{dt}/magnitudes", "hypot", [ix, iy], lambda: np.hypot(x, y))
        record(g, f"fmod/{dt}/signs", "fmod", [ix, iy], lambda: np.fmod(x, y))
        for op in ["logaddexp", "logaddexp2"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/magnitudes", op, [ix, iy], lambda: f(x, y))
        # Near the overflow threshold of exp (sinh/cosh overflow only later), and signed zeros.
        edge = np.array([709.0, 710.0, -710.4, 89.0, -89.3, 30.0, -0.0, 0.0] if dt == "float64"
                        else [88.0, 89.0, -89.3, 30.0, -30.0, 21.0, -0.0, 0.0], dtype=dt)
        ie, e = operand(g, edge)
        for op in ["sinh", "cosh", "arcsinh"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/edges", op, [ie], lambda: f(e))
    # Integer fmod: signs and zero divisors.
    for dt in ["int8", "int32", "int64", "uint8"]:
        s = np.dtype(dt).kind == "i"
        a = np.array([7, -7 if s else 250, 7, -7 if s else 3, 0, 5, 9], dtype=dt)
        b = np.array([2, 2, -2 if s else 4, -2 if s else 5, 3, 0, 0], dtype=dt)
        ia, _ = operand(g, a)
        ib, _ = operand(g, b)
        record(g, f"fmod/{dt}/edges", "fmod", [ia, ib], lambda: np.fmod(a, b))
    # Complex: sinh cosh log10 rint conjugate (the complex loops of exp2 expm1 log2 log1p and the
    # inverse functions are in the ufuncs2 group).
    for dt in ["complex64", "complex128"]:
        z = np.array([1 + 1j, -0.5 + 2j, 0.25 - 0.75j, -3 - 1j, 2.5 + 0.5j, 0j, 1.5 - 2.5j], dtype=dt)
        iz, zz = operand(g, z)
        for op in ["sinh", "cosh", "log10", "rint", "conjugate"]:
            f = getattr(np, op)
            record(g, f"{op}/{dt}/contig", op, [iz], lambda: f(zz))
    g.write()

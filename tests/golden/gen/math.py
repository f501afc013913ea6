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
    # The hard ranges of the transcendentals (wgpu's software float64 library, CUDA/HIP/cpu
    # libm): trig at huge arguments (Payne-Hanek reduction; the float64 closest to a multiple of
    # pi/2, 6381956970095103 2^797, is in tests/accuracy64.rs: glibc and NumPy miss it by 8-14
    # ulps), exp near overflow and underflow (subnormal results), log
    # of subnormals and near 1, tanh's branch points, and pow's C99 Annex F special cases.
    trig = np.array([1e6, -1e6, 1647099.0, 1e15, 1e22, -1e22, 1e300, 2.0 ** 1000, 1.5707963267948966,
                     3.141592653589793, 1e-300, -0.0, 7.0e5 + 0.1,
                     2.0 ** 60, 4.0e9 + 0.5], dtype="float64")
    it, t = operand(g, trig)
    for op in ["sin", "cos", "tan"]:
        f = getattr(np, op)
        record(g, f"{op}/float64/huge", op, [it], lambda: f(t))
    t32 = np.array([1e6, -1e6, 8192.0, 1e15, 1e22, -1e22, 3e38, 1.5707964, 3.1415927, 12345.678],
                   dtype="float32")
    it32, tt32 = operand(g, t32)
    for op in ["sin", "cos"]:
        f = getattr(np, op)
        record(g, f"{op}/float32/huge", op, [it32], lambda: f(tt32))
    ex = np.array([709.78, 709.782712893383973096, 709.79, -708.39, -708.4, -740.0, -745.13, -745.2,
                   1e-300, -1e-20, 0.34657359027997264, 1.0397207708399179, 300.5, -300.5],
                  dtype="float64")
    iex, eex = operand(g, ex)
    record(g, "exp/float64/edges", "exp", [iex], lambda: np.exp(eex))
    lg = np.array([5e-324, 1e-310, 2.2250738585072014e-308, 2.225073858507201e-308, 1.0000000000000002,
                   0.9999999999999999, 1.7976931348623157e308, 0.7071067811865476, 1.4142135623730951,
                   np.inf, 0.0, -0.0, -1.0], dtype="float64")
    ilg, llg = operand(g, lg)
    record(g, "log/float64/edges", "log", [ilg], lambda: np.log(llg))
    th = np.array([22.0, 21.99, -22.5, 1.0, 0.99999, 1e-17, -1e-17, 0.5493061443340549, 1e-9, -3.0, 1e300,
                   -np.inf], dtype="float64")
    ith, tth = operand(g, th)
    record(g, "tanh/float64/edges", "tanh", [ith], lambda: np.tanh(tth))
    sp = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, np.inf, -np.inf, np.nan, 1e300, 1e-300,
          2.0 ** 53 + 2.0, 0.9999999999999999, 1.0000000000000002]
    px = np.array([a for a in sp for _ in sp], dtype="float64")
    py = np.array([b for _ in sp for b in sp], dtype="float64")
    ipx, ppx = operand(g, px)
    ipy, ppy = operand(g, py)
    with np.errstate(all="ignore"):
        record(g, "power/float64/annex_f", "power", [ipx, ipy], lambda: np.power(ppx, ppy))
        record(g, "arctan2/float64/annex_f", "arctan2", [ipx, ipy], lambda: np.arctan2(ppx, ppy))
    pw = np.array([2.0, 10.0, 0.5, 1.5, 7.25, 1e-5, 123.456, 0.999, 1.001], dtype="float64")
    pe = np.array([1023.5, -307.3, -1074.0, 1749.2, 356.0, 64.5, 147.0, 7.0e5, -7.0e5], dtype="float64")
    ipw, ppw = operand(g, pw)
    ipe, ppe = operand(g, pe)
    record(g, "power/float64/ranges", "power", [ipw, ipe], lambda: np.power(ppw, ppe))
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

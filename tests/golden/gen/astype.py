"""astype goldens: every dtype pair, plus float64 -> float32 rounding."""

from .common import *  # noqa: F401,F403


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

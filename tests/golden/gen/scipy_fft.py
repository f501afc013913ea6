"""scipy.fft goldens: dct/idct/dst/idst types 1-4 with norm None and "ortho" over lengths
1..97, float32/int/complex inputs, n= padding, axis=, the invalid-type error; next_fast_len.
Tolerance metadata as in fft.py."""

import math

import scipy.fft as sfft

from .common import *  # noqa: F401,F403


def gen_scipy_fft():
    g = Group("scipy_fft")
    rng = np.random.default_rng(15)

    def tol_extra(size):
        def extra(r):
            if r.dtype.kind not in "fc" or r.size == 0:
                return {}
            rms = float(np.sqrt(np.mean(np.abs(r.astype(np.complex128)) ** 2)))
            logn = math.ceil(math.log2(max(size, 2)))
            return {"scale_max": rms, "n": 4 * (logn + 2)}
        return extra

    def data(shape, dt):
        dt = np.dtype(dt)
        if dt.kind == "c":
            return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dt)
        if dt.kind in "iu":
            return rng.integers(-5, 6, shape).astype(dt)
        return rng.uniform(-1, 1, shape).astype(dt)

    # ---- scipy.fft: dct/idct/dst/idst types 1-4, norm None/"ortho"; next_fast_len
    for op in ["dct", "idct", "dst", "idst"]:
        f = getattr(sfft, op)
        for t in [1, 2, 3, 4]:
            for n in [1, 2, 3, 4, 5, 8, 13, 16, 31, 64, 97]:
                if t == 1 and n == 1 and op in ("dct", "idct"):
                    continue  # "zero-length FFT requested": recorded below as an error
                for norm in [None, "ortho"]:
                    ia, a = operand(g, data((n,), "float64"))
                    kw = {"type": t} if norm is None else {"type": t, "norm": norm}
                    record(g, f"{op}/t{t}/n{n}/{norm}", op, [ia], lambda: f(a, **kw), kw, tol_extra(2 * n))
            ia, a = operand(g, data((3, 6), "float32"))
            record(g, f"{op}/t{t}/f32_axis0", op, [ia], lambda: f(a, type=t, axis=0), {"type": t, "axis": 0}, tol_extra(6))
            ia, a = operand(g, data((7,), "int32"))
            record(g, f"{op}/t{t}/int32", op, [ia], lambda: f(a, type=t), {"type": t}, tol_extra(14))
            ia, a = operand(g, data((6,), "complex128"))
            record(g, f"{op}/t{t}/c128", op, [ia], lambda: f(a, type=t), {"type": t}, tol_extra(12))
            ia, a = operand(g, data((5,), "float64"))
            record(g, f"{op}/t{t}/n8_pad", op, [ia], lambda: f(a, type=t, n=8), {"type": t, "n": 8}, tol_extra(16))
        ia, a = operand(g, data((4,), "float64"))
        record(g, f"{op}/err/type5", op, [ia], lambda: f(a, type=5), {"type": 5})
    for n in [1, 2, 7, 11, 97, 1009, 4097, 10007]:
        for real in [False, True]:
            record(g, f"next_fast_len/{n}/{real}", "next_fast_len", [], lambda: np.array(sfft.next_fast_len(n, real=real), np.int64), {"n": n, "real": real})
    g.write()

"""numpy.fft goldens for the mixed-radix paths of the wgpu FFT (backends/wgpu/src/fft_plan.rs):
lengths made of 2, 3, 5 and 7 (one-pass rows, rows past a workgroup's memory in several passes),
batches of rows, strided and transposed axes, fft2 of smooth shapes, real transforms, and
Bluestein lengths (primes and other non-7-smooth lengths, whose inner length is then 7-smooth),
in complex128 and complex64. Sizes stay small (CI runs them on llvmpipe).

Tolerance metadata as in gen/fft.py: |got - want| <= 2 * n * eps * rms(want) + 1 ulp with
n = 4 * (ceil(log2(N)) + 2), N the transformed size, eps of the result dtype."""

import math

from .common import *  # noqa: F401,F403


def gen_fft_radix():
    g = Group("fft_radix")
    rng = np.random.default_rng(1402)

    def extra_for(size):
        def extra(r):
            rms = float(np.sqrt(np.mean(np.abs(r.astype(np.complex128)) ** 2)))
            return {"scale_max": rms, "n": 4 * (math.ceil(math.log2(max(size, 2))) + 2)}
        return extra

    def data(shape, dt):
        dt = np.dtype(dt)
        if dt.kind == "c":
            return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dt)
        return rng.uniform(-1, 1, shape).astype(dt)

    def one(cid, op, base, steps=(), size=None, **kw):
        ia, a = operand(g, base, steps)
        f = getattr(np.fft, op)
        n = size if size is not None else a.shape[-1]
        record(g, cid, op, [ia], lambda: f(a, **kw), dict(kw), extra_for(n))

    # 7-smooth lengths: one pass (n <= 1024 in complex128, 2048 in complex64 on llvmpipe's 32 KiB
    # of workgroup memory) and several (3072; tests/fft.rs checks longer rows at sampled bins).
    smooth = [3, 5, 7, 9, 15, 21, 25, 35, 49, 60, 81, 105, 120, 125, 243, 343, 360, 1000,
              210, 840, 1260, 3072]
    for n in smooth:
        one(f"fft/c128/n{n}", "fft", data((n,), "complex128"))
        if n <= 360:
            one(f"ifft/c128/n{n}", "ifft", data((n,), "complex128"))
    for n in [3, 7, 25, 49, 120, 343, 1000, 1260, 3072]:
        one(f"fft/c64/n{n}", "fft", data((n,), "complex64"))
        if n <= 343:
            one(f"ifft/c64/n{n}", "ifft", data((n,), "complex64"))
    # Bluestein: primes and lengths with a prime factor above 7 (inner lengths 7-smooth).
    for n in [11, 13, 22, 101, 211, 1031, 2049]:
        one(f"fft/c128/bluestein_n{n}", "fft", data((n,), "complex128"))
        one(f"ifft/c64/bluestein_n{n}", "ifft", data((n,), "complex64"))
    # Real transforms through the same paths.
    for n in [15, 60, 343, 1000]:
        one(f"rfft/f64/n{n}", "rfft", data((n,), "float64"))
        one(f"irfft/c128/n{n}", "irfft", data((n // 2 + 1,), "complex128"), n=n)
        one(f"rfft/f32/n{n}", "rfft", data((n,), "float32"))
    # Batches of rows, strided and transposed axes.
    one("fft/batch/6x105", "fft", data((6, 105), "complex128"))
    one("fft/batch/40x9_c64", "fft", data((40, 9), "complex64"))
    one("ifft/batch/3x5x49", "ifft", data((3, 5, 49), "complex128"))
    one("fft/batch/2x3072_c64", "fft", data((2, 3072), "complex64"))
    one("fft/axis0/105x6", "fft", data((105, 6), "complex128"), axis=0, size=105)
    one("fft/axis1/4x25x3", "fft", data((4, 25, 3), "complex64"), axis=1, size=25)
    one("fft/T/6x81", "fft", data((6, 81), "complex128"), [T()], axis=0, size=6)
    one("fft/T/81x6", "fft", data((81, 6), "complex128"), [T()], size=81)
    one("fft/step/3x250", "fft", data((3, 250), "complex128"), [sl([None, None, 2], [None, None, 2])], size=125)
    one("rfft/axis0/60x5", "rfft", data((60, 5), "float64"), axis=0, size=60)

    def nd(cid, op, base, **kw):
        ia, a = operand(g, base)
        f = getattr(np.fft, op)
        record(g, cid, op, [ia], lambda: f(a, **kw), dict(kw), extra_for(a.size))

    nd("fft2/30x35", "fft2", data((30, 35), "complex128"))
    nd("fft2/21x40_c64", "fft2", data((21, 40), "complex64"))
    nd("ifft2/27x25", "ifft2", data((27, 25), "complex128"))
    nd("rfft2/36x42", "rfft2", data((36, 42), "float64"))
    nd("fftn/9x7x5", "fftn", data((9, 7, 5), "complex128"))
    g.write()

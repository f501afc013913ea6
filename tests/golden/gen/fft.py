"""numpy.fft and scipy.fft goldens: every transform over lengths 1..64, primes, 2^k + 1, norm
modes, irfft/hfft length rules, dtypes (NumPy 2 precision rules), axes and views, s/axes of the
multi-axis forms, frequencies and shifts, DCT/DST types 1-4, and the errors NumPy raises.

Tolerance metadata per float case: "scale_max" is the root mean square of |result| (for an FFT
the error of every output is about eps * log2(N) * that, N the transformed size: Parseval) and
"n" is 4 * (ceil(log2(N)) + 2); the Rust side checks |got - want| <= 2 * n * eps * scale_max +
1 ulp (tests/common/compare.rs, Tol::Scaled), eps of the result dtype."""

import math

import scipy.fft as sfft

from .common import *  # noqa: F401,F403


def gen_fft():
    g = Group("fft")
    rng = np.random.default_rng(14)

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
        if dt.kind == "b":
            return rng.integers(0, 2, shape).astype(bool)
        if dt.kind in "iu":
            return rng.integers(-5, 6, shape).astype(dt)
        return rng.uniform(-1, 1, shape).astype(dt)

    def one(cid, op, base, steps=(), size=None, **kw):
        ia, a = operand(g, base, steps)
        f = getattr(np.fft, op)
        fkw = {k: v for k, v in kw.items() if k != "out"}
        out = kw.get("out")

        def call():
            if out is not None:
                o = np.empty(out["shape"], out["dtype"])
                return f(a, out=o, **fkw)
            return f(a, **fkw)

        kwargs = dict(kw)
        n = size if size is not None else max(int(np.prod(a.shape)) if a.ndim else 1, 1)
        record(g, cid, op, [ia], call, kwargs, tol_extra(n))

    # ---- lengths 0..64, primes, 2^k + 1, 2^12: complex128 c2c, float64 r2c/c2r
    for n in list(range(0, 65)) + [97, 127, 257, 1009, 1025, 4096]:
        x = data((n,), "complex128")
        one(f"fft/c128/n{n}", "fft", x, size=n)
        one(f"ifft/c128/n{n}", "ifft", x, size=n)
        xr = data((n,), "float64")
        one(f"rfft/f64/n{n}", "rfft", xr, size=n)
        xh = data((n // 2 + 1,), "complex128")
        one(f"irfft/c128/n{n}", "irfft", xh, size=n, n=n if n > 0 else None)
    # single precision at the same lengths (a subset)
    for n in [1, 2, 3, 5, 7, 8, 16, 17, 31, 64, 97, 1009, 1025, 4096]:
        one(f"fft/c64/n{n}", "fft", data((n,), "complex64"), size=n)
        one(f"ifft/c64/n{n}", "ifft", data((n,), "complex64"), size=n)
        one(f"rfft/f32/n{n}", "rfft", data((n,), "float32"), size=n)
        one(f"irfft/c64/n{n}", "irfft", data((n // 2 + 1,), "complex64"), size=n, n=n)
    # dtypes: NumPy 2 promotion (float16/float32 stay single, ints/bool go double)
    for dt in ["bool", "int8", "int32", "int64", "uint16", "float16", "float32", "float64", "complex64", "complex128"]:
        x = data((12,), dt)
        one(f"fft/dtype/{dt}", "fft", x)
        if np.dtype(dt).kind != "c":
            one(f"rfft/dtype/{dt}", "rfft", x)
            one(f"ihfft/dtype/{dt}", "ihfft", x)
        one(f"irfft/dtype/{dt}", "irfft", x, size=22)
        one(f"hfft/dtype/{dt}", "hfft", x, size=22)
    one("rfft/complex_input", "rfft", data((8,), "complex128"))
    # n: crop and zero-pad; irfft/hfft output-length rules
    x = data((6,), "complex128")
    for n in [1, 4, 6, 9, 16]:
        one(f"fft/n{n}_of6", "fft", x, n=n, size=n)
        one(f"ifft/n{n}_of6", "ifft", x, n=n, size=n)
        one(f"rfft/n{n}_of6", "rfft", x.real.copy(), n=n, size=n)
    h = data((5,), "complex128")
    for n in [None, 1, 2, 3, 7, 8, 9, 12]:
        one(f"irfft/m5/n{n}", "irfft", h, n=n, size=n or 8)
        one(f"hfft/m5/n{n}", "hfft", h, n=n, size=n or 8)
    for n in [None, 3, 5, 8]:
        one(f"ihfft/m6/n{n}", "ihfft", x.real.copy(), n=n, size=n or 6)
    # norm modes
    for norm in ["backward", "ortho", "forward"]:
        for op in ["fft", "ifft", "irfft", "hfft"]:
            one(f"{op}/norm_{norm}/c128", op, data((10,), "complex128"), norm=norm, size=18)
            one(f"{op}/norm_{norm}/c64", op, data((10,), "complex64"), norm=norm, size=18)
        for op in ["rfft", "ihfft"]:
            one(f"{op}/norm_{norm}/f64", op, data((10,), "float64"), norm=norm)
            one(f"{op}/norm_{norm}/f32", op, data((10,), "float32"), norm=norm)
            one(f"{op}/norm_{norm}/f16", op, data((10,), "float16"), norm=norm)
        one(f"fft/norm_{norm}/f16", "fft", data((10,), "float16"), norm=norm)
        one(f"irfft/norm_{norm}/f16", "irfft", data((6,), "float16"), norm=norm, size=10)
    # axes and views
    a = data((5, 6), "complex128")
    for op in ["fft", "ifft"]:
        one(f"{op}/2d/axis0", op, a, axis=0, size=5)
        one(f"{op}/2d/axis-1", op, a, size=6)
        one(f"{op}/2d/T", op, data((6, 5), "complex128"), [T()], size=5)
        one(f"{op}/2d/T_axis0", op, data((6, 5), "complex128"), [T()], axis=0, size=6)
        one(f"{op}/2d/step", op, data((5, 12), "complex128"), [sl([None, None, None], [None, None, 2])], size=6)
        one(f"{op}/2d/reverse", op, a, [sl([None, None, -1], [None, None, -1])], size=6)
        one(f"{op}/3d/axis1_n7", op, data((3, 4, 5), "complex128"), axis=1, n=7, size=7)
        one(f"{op}/2d/empty_batch", op, data((0, 4), "complex128"), size=4)
    one("rfft/2d/axis0", "rfft", data((7, 3), "float64"), axis=0, size=7)
    one("rfft/2d/T_f32", "rfft", data((6, 5), "float32"), [T()], size=5)
    one("irfft/2d/axis0_n8", "irfft", data((5, 3), "complex128"), axis=0, n=8, size=8)
    one("irfft/3d/axis1", "irfft", data((2, 4, 3), "complex64"), axis=1, size=6)
    one("hfft/2d/axis0", "hfft", data((4, 3), "complex128"), axis=0, size=6)
    one("ihfft/2d/step", "ihfft", data((3, 10), "float64"), [sl([None, None, None], [None, None, 3])], size=4)
    # out=
    one("fft/out/c128", "fft", data((8,), "float64"), out={"shape": [8], "dtype": "complex128"})
    one("fft/out/c64_from_f64", "fft", data((8,), "float64"), out={"shape": [8], "dtype": "complex64"})
    one("irfft/out/f32", "irfft", data((5,), "complex128"), out={"shape": [8], "dtype": "float32"})
    one("fft/out/wrong_shape", "fft", data((8,), "float64"), out={"shape": [9], "dtype": "complex128"})
    one("fft/out/real", "fft", data((8,), "float64"), out={"shape": [8], "dtype": "float64"})
    one("irfft/out/complex", "irfft", data((5,), "complex128"), out={"shape": [8], "dtype": "complex128"})
    # errors
    one("fft/err/n0", "fft", data((4,), "complex128"), n=0)
    one("fft/err/n-2", "fft", data((4,), "complex128"), n=-2)
    one("fft/err/axis2", "fft", data((3, 4), "complex128"), axis=2)
    one("fft/err/axis-3", "fft", data((3, 4), "complex128"), axis=-3)
    one("irfft/err/m1", "irfft", data((1,), "complex128"))
    one("rfft/err/empty", "rfft", data((0,), "float64"))

    # ---- multi-axis
    def nd(cid, op, base, steps=(), **kw):
        ia, a = operand(g, base, steps)
        f = getattr(np.fft, op)
        record(g, cid, op, [ia], lambda: f(a, **kw), dict(kw), tol_extra(max(a.size, 1) * 2))

    b = data((4, 6), "complex128")
    b3 = data((3, 4, 5), "complex128")
    for op in ["fft2", "ifft2", "fftn", "ifftn"]:
        nd(f"{op}/4x6", op, b)
        nd(f"{op}/4x6_s3x8", op, b, s=[3, 8])
        nd(f"{op}/4x6_axes10", op, b, axes=[1, 0])
        nd(f"{op}/3d", op, b3)
        nd(f"{op}/3d_axes02", op, b3, axes=[0, 2])
        nd(f"{op}/3d_T", op, b3, [T()])
        nd(f"{op}/4x6_ortho", op, b, norm="ortho")
        nd(f"{op}/4x6_forward_c64", op, b.astype(np.complex64), norm="forward")
    nd("fftn/4x6_axes00", "fftn", b, axes=[0, 0])
    nd("fftn/4x6_axes_empty", "fftn", b.real.copy(), axes=[])
    nd("fftn/4x6_s-1_5", "fftn", b, s=[-1, 5])
    nd("fftn/4x6_s_only1", "fftn", b, s=[3])
    nd("fftn/err/s_axes_len", "fftn", b, s=[3, 3], axes=[0])
    nd("fftn/err/axis", "fftn", b, axes=[2])
    nd("fftn/err/s0", "fftn", b, s=[0, 2])
    nd("fft2/err/1d", "fft2", data((5,), "complex128"))
    nd("fftn/f32", "fftn", data((4, 6), "float32"))
    nd("fftn/int16", "fftn", data((4, 6), "int16"))
    r2 = data((4, 6), "float64")
    r3 = data((3, 4, 5), "float32")
    for op in ["rfft2", "rfftn"]:
        nd(f"{op}/4x6", op, r2)
        nd(f"{op}/4x6_s5x9", op, r2, s=[5, 9])
        nd(f"{op}/4x6_axes10", op, r2, axes=[1, 0])
        nd(f"{op}/3d_f32", op, r3)
        nd(f"{op}/4x6_ortho", op, r2, norm="ortho")
    for op in ["irfft2", "irfftn"]:
        nd(f"{op}/4x4", op, data((4, 4), "complex128"))
        nd(f"{op}/4x4_s5x7", op, data((4, 4), "complex128"), s=[5, 7])
        nd(f"{op}/4x4_axes10", op, data((4, 4), "complex128"), axes=[1, 0])
        nd(f"{op}/3d_c64", op, data((3, 4, 3), "complex64"))
        nd(f"{op}/4x4_forward", op, data((4, 4), "complex128"), norm="forward")
    nd("rfftn/err/axes_empty", "rfftn", r2, axes=[])

    # ---- frequencies and shifts
    for n in [1, 2, 5, 8, 9]:
        for d in [1.0, 0.1]:
            record(g, f"fftfreq/n{n}/d{d}", "fftfreq", [], lambda: np.fft.fftfreq(n, d), {"n": n, "d": d})
            record(g, f"rfftfreq/n{n}/d{d}", "rfftfreq", [], lambda: np.fft.rfftfreq(n, d), {"n": n, "d": d})
    for op in ["fftshift", "ifftshift"]:
        f = getattr(np.fft, op)
        for shape in [(1,), (5,), (8,), (4, 5), (3, 0)]:
            ia, a = operand(g, np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape))
            record(g, f"{op}/{'x'.join(map(str, shape))}", op, [ia], lambda: f(a), {})
        ia, a = operand(g, np.arange(20, dtype=np.int32).reshape(4, 5))
        record(g, f"{op}/4x5/axes1", op, [ia], lambda: f(a, axes=[1]), {"axes": [1]})
        record(g, f"{op}/4x5/axes-2", op, [ia], lambda: f(a, axes=[-2]), {"axes": [-2]})

    g.write()

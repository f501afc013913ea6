"""Custom kernel goldens: ElementwiseKernel, ReductionKernel and fuse."""

from .common import *  # noqa: F401,F403


def gen_custom():
    """Kernels drawn from CuPy's documentation and user-guide patterns, with NumPy references
    written to the kernel language's C semantics (C's truncating `/` and `%` on integers,
    float32 arithmetic on float32 operands, weak literals)."""
    g = Group("custom")
    f32 = np.float32
    xs = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4)
    ys = np.linspace(0.5, 3.0, 4, dtype=np.float32)
    pos = np.linspace(0.05, 0.95, 10, dtype=np.float32)
    i32a = np.array([7, -7, 13, -13, 100, -1, 0, 5], dtype=np.int32)
    i32b = np.array([2, 2, -4, -4, 7, 3, 9, -5], dtype=np.int32)

    def ew(cid, in_params, out_params, operation, inputs, ref, preamble="", out=None, size=None, ulps=0, abs_tol=0.0):
        ins = [operand(g, a)[0] if isinstance(a, np.ndarray) else weak(a)[0] for a in inputs]
        kw = {"in_params": in_params, "out_params": out_params, "operation": operation,
              "name": cid.split("/")[-1], "preamble": preamble, "ulps": ulps, "abs": abs_tol}
        if out is not None:
            kw["out"] = [g.arr(o) for o in out]
        if size is not None:
            kw["size"] = size
        refs = ref()
        if not isinstance(refs, tuple):
            refs = (refs,)
        for k, r in enumerate(refs):
            r = np.asarray(r)
            c = {"id": f"{cid}/{k}" if len(refs) > 1 else cid, "op": "elementwise", "inputs": ins,
                 "kwargs": dict(kw, output=k), "expected": g.arr(r), "dtype": r.dtype.name,
                 "shape": list(r.shape)}
            g.case(**c)

    def red(cid, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, inputs, ref,
            axis=None, keepdims=False, ulps=0, reduce_type=None):
        ins = [operand(g, a)[0] if isinstance(a, np.ndarray) else weak(a)[0] for a in inputs]
        kw = {"in_params": in_params, "out_params": out_params, "map_expr": map_expr,
              "reduce_expr": reduce_expr, "post_map_expr": post_map_expr, "identity": identity,
              "name": cid.split("/")[-1], "axis": axis, "keepdims": keepdims, "ulps": ulps}
        if reduce_type:
            kw["reduce_type"] = reduce_type
        r = np.asarray(ref())
        g.case(id=cid, op="reduction", inputs=ins, kwargs=kw, expected=g.arr(r), dtype=r.dtype.name,
               shape=list(r.shape))

    def fz(cid, inputs, ref, ulps=0, abs_tol=0.0):
        ins = [operand(g, a)[0] if isinstance(a, np.ndarray) else weak(a)[0] for a in inputs]
        r = np.asarray(ref())
        g.case(id=cid, op="fuse", inputs=ins, kwargs={"ulps": ulps, "abs": abs_tol}, expected=g.arr(r),
               dtype=r.dtype.name, shape=list(r.shape))

    # CuPy user guide: squared_diff and its generic forms.
    ew("ew/squared_diff", "float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)",
       [xs, ys], lambda: (xs - ys) * (xs - ys))
    ew("ew/squared_diff_generic", "T x, T y", "T z", "z = (x - y) * (x - y)",
       [i32a, i32b], lambda: (i32a - i32b) * (i32a - i32b))
    xd = xs.astype(np.float64)
    ew("ew/squared_diff_generic_f64", "T x, T y", "T z", "z = (x - y) * (x - y)",
       [xd, xd[::-1].copy()], lambda: (xd - xd[::-1]) * (xd - xd[::-1]))
    ew("ew/squared_diff_super_generic", "X x, Y y", "Z z", "z = (x - y) * (x - y)",
       [xs, np.arange(4, dtype=np.int32)], lambda: ((xs - np.arange(4).astype(f32)) ** 2).astype(f32),
       out=[np.zeros((3, 4), dtype=np.float32)])
    ew("ew/add_reverse", "T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
       [pos, pos * 2], lambda: pos + (pos * 2)[::-1])
    ew("ew/saxpy_scalar", "float32 a, float32 x, float32 y", "float32 z", "z = a * x + y",
       [2.5, pos, pos[::-1].copy()], lambda: f32(2.5) * pos + pos[::-1])
    ew("ew/relu", "T x", "T y", "y = x > 0 ? x : 0", [xs], lambda: np.where(xs > 0, xs, f32(0)))
    ew("ew/clamp_if_else", "T x, T lo, T hi", "T y",
       "if (x < lo) {\n  y = lo;\n} else if (x > hi) {\n  y = hi;\n} else {\n  y = x;\n}",
       [xs, -1.0, 0.75], lambda: np.clip(xs, f32(-1.0), f32(0.75)))
    ew("ew/sigmoid", "float32 x", "float32 y", "y = 1.0f / (1.0f + expf(-x))", [xs],
       lambda: f32(1) / (f32(1) + np.exp(-xs)), ulps=4)
    ew("ew/softplus", "T x", "T y", "y = log(1 + exp(x))", [xs],
       lambda: np.log(f32(1) + np.exp(xs)), ulps=4, abs_tol=2e-6)
    ew("ew/logit", "T x", "T y", "y = log(x / (1 - x))", [pos],
       lambda: np.log(pos / (f32(1) - pos)), ulps=8, abs_tol=2e-6)
    coeffs = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)

    def horner():
        acc = np.zeros_like(pos)
        for c in coeffs:
            acc = acc * pos + c
        return acc
    ew("ew/horner_for_raw", "T x, raw T c, int32 n", "T y",
       "T acc = 0;\nfor (int k = 0; k < n; k++) {\n  acc = acc * x + c[k];\n}\ny = acc;",
       [pos, coeffs, 4], horner, ulps=2)
    ew("ew/c_remainder", "int32 x, int32 y", "int32 z", "z = x % y", [i32a, i32b],
       lambda: np.fmod(i32a, i32b))
    ew("ew/c_division", "int32 x, int32 y", "int32 z", "z = x / y", [i32a, i32b],
       lambda: (np.sign(i32a) * np.sign(i32b) * (np.abs(i32a) // np.abs(i32b))).astype(np.int32))
    u = np.array([0, 1, 0xff, 0x1234, 0xdeadbeef, 0xffffffff], dtype=np.uint32)
    ew("ew/bit_tricks", "uint32 x", "uint32 y", "y = ((x << 3) ^ (x >> 2)) | (x & 0xff)", [u],
       lambda: ((u << np.uint32(3)) ^ (u >> np.uint32(2))) | (u & np.uint32(0xff)))
    ew("ew/popcount_loop", "uint32 x", "int32 n",
       "n = 0;\nfor (int b = 0; b < 32; b++) {\n  n += (x >> b) & 1;\n}", [u],
       lambda: np.array([bin(int(v)).count("1") for v in u], dtype=np.int32))
    ew("ew/weak_literals_f32", "float32 x", "float32 y", "y = x * 0.1 + 2.0", [xs],
       lambda: xs * f32(0.1) + f32(2.0))
    ew("ew/cast_truncates", "float32 x", "int32 y", "y = (int)(x * 10.0f)", [xs],
       lambda: np.trunc(xs * f32(10)).astype(np.int32))
    nanx = np.array([1.0, np.nan, -2.0, np.inf, np.nan], dtype=np.float32)
    ew("ew/nan_to_zero", "T x", "T y", "y = isnan(x) ? (T)0 : x", [nanx],
       lambda: np.where(np.isnan(nanx), f32(0), nanx))
    y0 = np.full((3, 4), 10.0, dtype=np.float32)
    ew("ew/output_read_accumulate", "float32 x", "float32 y", "y += x", [xs], lambda: y0 + xs, out=[y0])
    ew("ew/two_outputs_sincos", "float32 x", "float32 s, float32 c", "s = sin(x);\nc = cos(x);", [xs],
       lambda: (np.sin(xs), np.cos(xs)), ulps=4, abs_tol=2e-6)
    ew("ew/preamble_function", "T x", "T y", "y = sq(x) + sq(x + 1)", [xs],
       lambda: xs * xs + (xs + f32(1)) * (xs + f32(1)), preamble="__device__ T sq(T v) { return v * v; }")
    sig = np.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0], dtype=np.float32)

    def movsum():
        n = len(sig)
        return np.array([sum(sig[j] for j in (i - 1, i, i + 1) if 0 <= j < n) for i in range(n)], dtype=np.float32)
    ew("ew/moving_sum_raw_only", "raw float32 x, int32 n", "float32 y",
       "float s = 0;\nfor (int k = -1; k <= 1; k++) {\n  int j = i + k;\n  if (j >= 0 && j < n) {\n    s += x[j];\n  }\n}\ny = s;",
       [sig, len(sig)], movsum, out=None, size=len(sig))
    ew("ew/index_squares", "", "int64 y", "y = i * i", [], lambda: np.arange(9, dtype=np.int64) ** 2, size=9)
    ew("ew/distance", "float32 x1, float32 y1, float32 x2, float32 y2", "float32 d",
       "d = sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2))", [xs, xs[::-1].copy(), ys, ys[::-1].copy()],
       lambda: np.sqrt((xs - ys) ** 2 + (xs[::-1] - ys[::-1]) ** 2), ulps=2)
    ew("ew/fmax_fmin", "float32 x", "float32 y", "y = fmax(x, 0.5f) + fmin(x, -0.5f)", [xs],
       lambda: np.fmax(xs, f32(0.5)) + np.fmin(xs, f32(-0.5)))
    ew("ew/bool_range_test", "T x, T lo", "bool y", "y = x >= lo && x < lo + 10", [i32a, -5],
       lambda: (i32a >= -5) & (i32a < 5))
    u8a = np.array([250, 3, 128, 255], dtype=np.uint8)
    u8b = np.array([10, 4, 128, 1], dtype=np.uint8)
    ew("ew/uint8_wraps_on_store", "uint8 x, uint8 y", "uint8 z", "z = x + y", [u8a, u8b], lambda: u8a + u8b)
    i64 = np.array([1 << 40, -(1 << 35), 3, 0], dtype=np.int64)
    ew("ew/int64_affine", "int64 x", "int64 y", "y = x * 3 - 7", [i64], lambda: i64 * 3 - 7)
    ew("ew/compound_assignments", "int32 x", "int32 y",
       "int t = x;\nt *= 3;\nt -= 1;\nt <<= 2;\nt ^= 5;\ny = t;", [i32a],
       lambda: (((i32a * 3 - 1) << 2) ^ 5).astype(np.int32))
    ew("ew/pow_fabs", "float32 x", "float32 y", "y = pow(fabs(x), 1.5f)", [xs],
       lambda: np.power(np.abs(xs), f32(1.5)), ulps=8, abs_tol=2e-6)
    ew("ew/float64_rational", "float64 x, float64 y", "float64 z", "z = x * y + 1.0 / (1.0 + x * x)",
       [xd, xd[::-1].copy()], lambda: xd * xd[::-1] + 1.0 / (1.0 + xd * xd), ulps=2)
    ew("ew/static_cast_scalar", "int32 n, float32 x", "float32 y", "y = static_cast<float>(n) * x",
       [3, xs], lambda: f32(3) * xs)
    ew("ew/broadcast_column", "float32 x, float32 y", "float32 z", "z = x - y",
       [xs, np.array([[1.0], [2.0], [3.0]], dtype=np.float32)], lambda: xs - np.array([[1.0], [2.0], [3.0]], dtype=np.float32))

    # ReductionKernel (CuPy user guide: l2norm; the seed's sum_kernel).
    big = np.linspace(-1.0, 1.0, 40, dtype=np.float32).reshape(5, 8)
    bigp = big + np.float32(2.0)  # positive: no cancellation, so ulps are meaningful
    red("red/sum_kernel", "T x", "T y", "x", "a + b", "y = a", "0", [bigp], lambda: bigp.sum(dtype=np.float32),
        ulps=64)
    red("red/l2norm_axis1", "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", [big],
        lambda: np.sqrt((big * big).sum(axis=1)), axis=1, ulps=16)
    red("red/max_identity_neg_inf", "T x", "T y", "x", "max(a, b)", "y = a", "-INFINITY", [big],
        lambda: big.max(axis=0), axis=0)
    red("red/dot_broadcast", "T x, T y", "T z", "x * y", "a + b", "z = a", "0", [bigp, bigp[0].copy()],
        lambda: (bigp * bigp[0]).sum(), ulps=64)
    red("red/mean_in_out_sizes", "T x", "T y", "x", "a + b", "y = a / (_in_ind.size() / _out_ind.size())", "0",
        [big], lambda: big.sum(axis=0) / f32(5), axis=0, ulps=16)
    red("red/count_nonzero_int", "T x", "int64 y", "x != 0 ? 1 : 0", "a + b", "y = a", "0", [i32a],
        lambda: np.int64(np.count_nonzero(i32a)))
    i2 = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 11
    red("red/int_sum_keepdims", "T x", "T y", "x", "a + b", "y = a", "0", [i2],
        lambda: i2.sum(axis=(0, 2), keepdims=True, dtype=np.int32), axis=[0, 2], keepdims=True)
    red("red/min_abs", "T x", "T y", "fabs(x)", "min(a, b)", "y = a", "INFINITY", [big],
        lambda: np.abs(big).min(axis=1), axis=1)
    red("red/sum_sq_float64_acc", "float32 x", "float32 y", "x * x", "a + b", "y = a", "0", [big],
        lambda: (big.astype(np.float64) ** 2).sum().astype(np.float32), reduce_type="float64", ulps=2)

    # fuse (the closures live in tests/custom.rs, keyed by id).
    fz("fuse/squared_diff_plus_sin", [xs, ys], lambda: (xs - ys) * (xs - ys) + np.sin(xs), ulps=4, abs_tol=2e-6)
    fz("fuse/sum_of_squares", [xs, ys], lambda: ((xs - ys) * (xs - ys)).sum(dtype=np.float32), ulps=64)
    fz("fuse/axpy_weak_arg", [xs, 2.0, ys], lambda: xs * f32(2.0) + ys)
    fz("fuse/int_chain", [i32a, i32b], lambda: (i32a + 3) * i32b)
    fz("fuse/where_relu", [xs], lambda: np.where(xs > 0, xs, f32(0.0)))
    fz("fuse/mean_axis0", [xs], lambda: (xs * f32(2.0)).mean(axis=0), ulps=8)
    fz("fuse/promote_int_float", [i32a, pos[:8].copy()], lambda: i32a * pos[:8] - 1, ulps=0)

    # ---- later additions (appended so the cases above keep their array names and bytes) ----

    def ew2(cid, in_params, out_params, operation, inputs, ref, out=None, size=None, result=0,
            ulps=0, abs_tol=0.0):
        """As ew, with operands that may be views ((array, steps)) and a result that is output
        `result` or, for ("input", k), input k after the call (raw arrays written in place)."""
        ins = []
        for a in inputs:
            if isinstance(a, tuple):
                ins.append(operand(g, a[0], a[1])[0])
            elif isinstance(a, np.ndarray):
                ins.append(operand(g, a)[0])
            else:
                ins.append(weak(a)[0])
        kw = {"in_params": in_params, "out_params": out_params, "operation": operation,
              "name": cid.split("/")[-1], "preamble": "", "ulps": ulps, "abs": abs_tol,
              "output": result if isinstance(result, int) else 0}
        if not isinstance(result, int):
            kw["result_input"] = result[1]
        if out is not None:
            kw["out"] = [g.arr(o) for o in out]
        if size is not None:
            kw["size"] = size
        r = np.asarray(ref())
        g.case(id=cid, op="elementwise", inputs=ins, kwargs=kw, expected=g.arr(r), dtype=r.dtype.name,
               shape=list(r.shape))

    # Raw outputs and raw writes (CuPy's scatter-style kernels).
    ew2("ew/raw_out_reverse", "raw T x", "raw T y", "y[_ind.size() - 1 - i] = x[i]", [pos],
        lambda: pos[::-1], size=len(pos))
    ew2("ew/raw_out_from_elementwise_input", "T x", "raw T y", "y[_ind.size() - 1 - i] = x", [xs],
        lambda: xs.ravel()[::-1].reshape(3, 4))
    idx = np.array([3, -1, 0, 6, 5, 100, 1], dtype=np.int32)
    vals = np.array([1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5], dtype=np.float32)

    def scatter():
        y = np.full(6, -1.0, dtype=np.float32)
        for j, v in zip(idx, vals):
            if 0 <= j < 6:  # out-of-range writes are dropped
                y[j] = v
        return y
    ew2("ew/raw_out_scatter_drops_out_of_range", "int32 j, float32 v", "raw float32 y", "y[j] = v",
        [idx, vals], scatter, out=[np.full(6, -1.0, dtype=np.float32)])
    y6 = np.arange(8, dtype=np.int64) * 10
    ew2("ew/raw_out_compound_add", "T x", "raw T y", "y[_ind.size() - 1 - i] += x * 2",
        [np.arange(8, dtype=np.int64)], lambda: y6 + 2 * np.arange(8, dtype=np.int64)[::-1], out=[y6])
    base10 = np.arange(10, dtype=np.float32) - 4.5
    ew2("ew/raw_inout_strided_view", "raw T x, T s", "T y", "x[i] = x[i] * s;\ny = x[i] + 1",
        [(base10, [{"op": "slice", "items": [[None, None, 2]]}]), 3.0], lambda: base10[::2] * f32(3),
        size=5, result=("input", 0))
    ew2("ew/raw_inout_strided_view_output", "raw T x, T s", "T y", "x[i] = x[i] * s;\ny = x[i] + 1",
        [(base10, [{"op": "slice", "items": [[None, None, 2]]}]), 3.0],
        lambda: base10[::2] * f32(3) + f32(1), size=5)
    ew2("ew/raw_size_method", "raw T x", "T y",
        "T s = 0;\nfor (int j = 0; j < x.size(); j++) {\n  s += x[j];\n}\ny = s * i", [coeffs],
        lambda: coeffs.sum(dtype=np.float32) * np.arange(3, dtype=np.float32), size=3)

    # ReductionKernel without identity (identity=None): folds from the first element.
    def red2(cid, in_params, out_params, map_expr, reduce_expr, post_map_expr, inputs, ref,
             axis=None, keepdims=False, ulps=0):
        ins = [operand(g, a)[0] for a in inputs]
        kw = {"in_params": in_params, "out_params": out_params, "map_expr": map_expr,
              "reduce_expr": reduce_expr, "post_map_expr": post_map_expr, "identity": None,
              "name": cid.split("/")[-1], "axis": axis, "keepdims": keepdims, "ulps": ulps}
        record(g, cid, "reduction", ins, ref, kw)

    neg = -(np.arange(1, 13, dtype=np.float32).reshape(3, 4) * f32(0.75))
    red2("red/noid_max_negative", "T x", "T y", "x", "max(a, b)", "y = a", [neg], lambda: neg.max())
    red2("red/noid_max_axis1_keepdims", "T x", "T y", "x", "max(a, b)", "y = a", [big],
         lambda: big.max(axis=1, keepdims=True), axis=1, keepdims=True)
    long_i = ((np.arange(2200, dtype=np.int64).reshape(1100, 2) * 7919) % 1000 - 500).astype(np.int32)
    red2("red/noid_sum_three_passes", "T x", "T y", "x", "a + b", "y = a", [long_i],
         lambda: long_i.sum(axis=0, dtype=np.int32), axis=0)
    red2("red/noid_min_abs_post", "T x", "T y", "abs(x)", "min(a, b)", "y = a * 2", [i2],
         lambda: np.abs(i2).min(axis=(0, 2)) * 2, axis=[0, 2])
    red2("red/noid_empty_reduction", "T x", "T y", "x", "max(a, b)", "y = a",
         [np.zeros((0, 3), dtype=np.float32)], lambda: np.maximum.reduce(np.zeros((0, 3), dtype=np.float32), axis=0),
         axis=0)
    red2("red/noid_empty_output", "T x", "T y", "x", "max(a, b)", "y = a",
         [np.zeros((3, 0), dtype=np.float32)], lambda: np.maximum.reduce(np.zeros((3, 0), dtype=np.float32), axis=0),
         axis=0)

    # Complex kernels (complex<float>, thrust-style functions); wgpu has no complex: a skip.
    c64 = np.complex64
    za = (np.linspace(-1.5, 2.0, 6) + 1j * np.linspace(0.5, -2.5, 6)).astype(c64)
    zb = (np.linspace(0.25, 3.0, 6) + 1j * np.linspace(-1.0, 1.5, 6)).astype(c64)
    ew("ew/complex_mul_conj", "complex<float> z, complex<float> w", "complex<float> y",
       "y = z * conj(w) + 1.5f", [za, zb], lambda: za * np.conj(zb) + c64(1.5), ulps=2)
    re6 = np.linspace(-2.0, 2.0, 6, dtype=np.float32)
    im6 = np.linspace(3.0, -1.0, 6, dtype=np.float32)
    ew("ew/complex_from_parts", "float32 re, float32 im", "complex64 z", "z = complex<float>(re, im)",
       [re6, im6], lambda: (re6 + 1j * im6).astype(c64))
    ew("ew/complex_parts", "T z", "float32 r, float32 m", "r = real(z) - z.imag();\nm = imag(z)",
       [za], lambda: (za.real - za.imag, za.imag))
    zd = za.astype(np.complex128)
    ew("ew/complex_abs_arg_norm", "T z", "float64 y", "y = abs(z) + 10 * arg(z) + norm(z)", [zd],
       lambda: np.abs(zd) + 10 * np.angle(zd) + (zd.real ** 2 + zd.imag ** 2), ulps=4)
    ew("ew/complex_exp_log_sqrt", "T z", "T w", "w = exp(z) + log(z) * sqrt(z)", [zd],
       lambda: np.exp(zd) + np.log(zd) * np.sqrt(zd), ulps=16, abs_tol=1e-14)
    rr = np.linspace(0.5, 3.0, 6)
    th = np.linspace(-3.0, 3.0, 6)
    ew("ew/complex_polar", "float64 r, float64 t", "complex128 z", "z = polar(r, t)", [rr, th],
       lambda: rr * np.cos(th) + 1j * (rr * np.sin(th)), ulps=2, abs_tol=1e-15)
    ew("ew/complex_weak_scalars_and_ctor", "T z, float32 s", "T w", "w = z * 2.0 + T(s, 1) - s",
       [za, 0.5], lambda: za * c64(2.0) + c64(0.5 + 1j) - c64(0.5), ulps=2)
    red("red/complex_sum_of_squares", "T x", "T y", "x * x", "a + b", "y = a", "0", [za],
        lambda: (za * za).sum(), ulps=8)
    red2("red/complex_max_abs_noid", "complex<double> z", "float64 y", "abs(z)", "max(a, b)", "y = a",
         [zd], lambda: np.abs(zd).max())

    # Preambles beyond function templates and plain structs (issue 19): template structs,
    # arrays of structs, member functions and operators, constant-expression template
    # arguments and array lengths, forward declarations. References in float32, in the
    # kernels' operation order.
    ew("ew/pre_template_struct", "T x, T y", "T z",
       "P<T> p = {x, y};\nP<T> q = {y, x};\nz = dot(p, q) + dot(p, p)", [xs, ys],
       lambda: (xs * ys + ys * xs) + (xs * xs + ys * ys),
       preamble="template<typename T> struct P { T a; T b; };\n"
                "template<typename T> __device__ T dot(const P<T>& p, const P<T>& q) "
                "{ return p.a * q.a + p.b * q.b; }", ulps=2)

    def horner():
        s_ = np.zeros_like(xs)
        for c_ in (f32(0.5), f32(-2.0), f32(1.5)):
            s_ = s_ * xs + c_
        return s_
    ew("ew/pre_struct_array", "float32 x", "float32 z",
       "Term t[3] = {1.5, 0, -2.0, 1, 0.5, 2};\nfloat s = 0;\n"
       "for (int k = 0; k < 3; k++) { s = s * x + t[2 - k].c; }\nz = s", [xs], horner,
       preamble="struct Term { float c; int e; };", ulps=2)
    jj = np.arange(12, dtype=np.int64) % 3

    def oob():
        # ps[j] for j = 0, 1, 2 of a 2-element array: j = 2 reads the last element and its
        # write is dropped.
        base = np.array([10.0, 20.0], dtype=np.float32)
        read = base[np.minimum(jj, 1)]
        y_after = np.where(jj < 2, f32(5), f32(0))
        return (read + y_after).reshape(3, 4) + xs
    ew("ew/pre_struct_array_out_of_range", "float32 x", "float32 z",
       "Pt ps[2] = {10, 0, 20, 0};\nint j = i % 3;\nps[j].y = 5;\n"
       "z = ps[j].x + ps[0].y * (j == 0) + ps[1].y * (j == 1) + x", [xs], oob,
       preamble="struct Pt { float x; float y; };")

    def members():
        a0, a1 = xs * f32(2), ys * f32(2)
        b0, b1 = ys, np.ones_like(ys)
        c0, c1 = a0 + b0 * f32(3), a1 + b1 * f32(3)
        return (c0 * a0 + c1 * a1) - (c0 * c0 + c1 * c1)
    ew("ew/pre_member_operators", "float32 x, float32 y", "float32 z",
       "V2 a = {x, y};\nV2 b = {y, 1};\na.scale(2);\nV2 c = a + b * 3;\nz = c.dot(a) - c.norm2()",
       [xs, ys], members,
       preamble="struct V2 {\n  float x, y;\n"
                "  __device__ float dot(const V2& o) const { return x * o.x + y * o.y; }\n"
                "  __device__ float norm2() const { return dot(*this); }\n"
                "  __device__ void scale(float s) { x *= s; y *= s; }\n"
                "  __device__ V2 operator+(const V2& o) const { V2 r = {x + o.x, y + o.y}; return r; }\n"
                "  __device__ V2 operator*(float s) const { V2 r = {x * s, y * s}; return r; }\n"
                "};", ulps=4, abs_tol=1e-5)

    def powers():
        cube = xs * xs * xs
        sq = xs * xs
        return cube + (f32(1) + xs + sq)
    ew("ew/pre_template_expression_args", "T x", "T z", "z = powi<1 + 2>(x) + psum<N_TERMS>(x)",
       [xs], powers,
       preamble="#define N_TERMS 3\n"
                "template<int N> __device__ float powi(float v) { float r = 1; for (int k = 0; k < N; k++) { r *= v; } return r; }\n"
                "template<int N> __device__ float psum(float v) {\n"
                "  float b[N];\n  for (int k = 0; k < N; k++) { b[k] = powi<N - 1>(v) * 0 + (k == 0 ? 1 : b[k - (k > 0)] * v); }\n"
                "  float s = 0;\n  for (int k = 0; k < N; k++) { s += b[k]; }\n  return s;\n}", ulps=2)
    ew("ew/pre_forward_declaration", "float32 x", "float32 z", "z = f(x)", [xs],
       lambda: (xs + f32(1)) * f32(2),
       preamble="__device__ float g(float);\n__device__ float f(float v) { return g(v) * 2; }\n"
                "__device__ float g(float v) { return v + 1; }")

    # fuse: independent reductions merged into one reduction kernel of several outputs
    # (tests/fusion4.rs counts the kernels). The id's last part is the output's index in the
    # closure's tuple (tests/custom.rs).
    def fzm(cid, inputs, refs, ulps=0, abs_tol=0.0):
        for k, r in enumerate(refs()):
            fz(f"{cid}/{k}", inputs, lambda r=r: r, ulps=ulps, abs_tol=abs_tol)

    ax02 = (0, 2)
    fzm("fuse/merged_sum_max_min", [i2],
        lambda: (i2.sum(axis=ax02), i2.max(axis=ax02), i2.min(axis=ax02)))
    fzm("fuse/merged_moments", [xs],
        lambda: (xs.mean(axis=0), (xs * xs).mean(axis=0)), ulps=4)
    fzm("fuse/merged_var_weighted_sum", [xs, ys],
        lambda: (xs.var(axis=1, ddof=1), (xs * ys).sum(axis=1, keepdims=True)), ulps=16, abs_tol=1e-6)

    def bn_one_pass():
        m = xs.mean(axis=0)
        v = (xs * xs).mean(axis=0) - m * m
        return (xs - m) / np.sqrt(v + f32(1e-5))
    fz("fuse/merged_batchnorm_one_pass", [xs], bn_one_pass, ulps=64, abs_tol=1e-5)
    g.write()

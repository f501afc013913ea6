"""Linear algebra goldens: matmul and dot over dtypes, batches, broadcasts and views."""

from .common import *  # noqa: F401,F403
from .linalg_fact import add_composed, add_factorizations


def gen_linalg():
    g = Group("linalg")
    rng = np.random.default_rng(11)

    def add(cid, op, a_base, a_steps, b_base, b_steps):
        ia, a = operand(g, a_base, a_steps)
        ib, b = operand(g, b_base, b_steps)
        f = getattr(np, op)

        def extra(r):
            if r.dtype.kind != "f":
                return {}
            s = f(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
            k = a.shape[-1] if a.ndim >= 1 else 1
            # One condition scale per case: the largest |a|@|b| entry.
            return {"scale_max": float(np.max(s, initial=0.0)), "n": max(int(k), 1)}

        record(g, cid, op, [ia, ib], lambda: f(a, b), {}, extra)

    def r(*shape, dt):
        if np.dtype(dt).kind in "iu":
            return rng.integers(-5, 6, shape).astype(dt)
        return rng.uniform(-1, 1, shape).astype(dt)

    for dt in ["float32", "float64"]:
        add(f"matmul/{dt}/2d", "matmul", r(5, 7, dt=dt), [], r(7, 3, dt=dt), [])
        add(f"matmul/{dt}/aT", "matmul", r(7, 5, dt=dt), [T()], r(7, 3, dt=dt), [])
        add(f"matmul/{dt}/bT", "matmul", r(5, 7, dt=dt), [], r(3, 7, dt=dt), [T()])
        add(f"matmul/{dt}/aTbT", "matmul", r(7, 5, dt=dt), [T()], r(3, 7, dt=dt), [T()])
        add(f"matmul/{dt}/1d@2d", "matmul", r(7, dt=dt), [], r(7, 4, dt=dt), [])
        add(f"matmul/{dt}/2d@1d", "matmul", r(4, 7, dt=dt), [], r(7, dt=dt), [])
        add(f"matmul/{dt}/1d@1d", "matmul", r(9, dt=dt), [], r(9, dt=dt), [])
        add(f"matmul/{dt}/batched_bcast", "matmul", r(2, 1, 4, 5, dt=dt), [], r(3, 5, 2, dt=dt), [])
        add(f"matmul/{dt}/batched_2d", "matmul", r(3, 4, 5, dt=dt), [], r(5, 6, dt=dt), [])
        add(f"matmul/{dt}/17x33@33x9", "matmul", r(17, 33, dt=dt), [], r(33, 9, dt=dt), [])
        add(f"matmul/{dt}/33x64@64x34", "matmul", r(33, 64, dt=dt), [], r(64, 34, dt=dt), [])
        add(f"matmul/{dt}/k0", "matmul", r(4, 0, dt=dt), [], r(0, 3, dt=dt), [])
        add(f"matmul/{dt}/strided", "matmul", r(10, 7, dt=dt), [sl([None, None, 2])], r(7, 6, dt=dt), [sl([None, None, None], [None, None, -2])])
        add(f"matmul/{dt}/mismatch", "matmul", r(4, 5, dt=dt), [], r(6, 3, dt=dt), [])
        add(f"dot/{dt}/2d", "dot", r(6, 4, dt=dt), [], r(4, 5, dt=dt), [])
        add(f"dot/{dt}/1d@1d", "dot", r(8, dt=dt), [], r(8, dt=dt), [])
        add(f"dot/{dt}/2d@1d_T", "dot", r(4, 6, dt=dt), [T()], r(4, dt=dt), [])
    add("matmul/float32@float64", "matmul", r(3, 4, dt="float32"), [], r(4, 2, dt="float64"), [])
    add("matmul/int32/2d", "matmul", r(3, 4, dt="int32"), [], r(4, 5, dt="int32"), [])
    # Integer and boolean matmul: NumPy's loop accumulates in the dtype with wrap-around.
    big8 = rng.integers(60, 120, (3, 16)).astype(np.int8)
    add("matmul/int8/wraps", "matmul", big8, [], big8.T.copy(), [])
    add("matmul/uint8/wraps", "matmul", big8.astype(np.uint8), [], big8.T.astype(np.uint8), [])
    add("matmul/int64/batched_bcast_T", "matmul", r(2, 1, 5, 4, dt="int64"), [sl("...", [None, None, None], [None, None, None])], r(3, 5, 6, dt="int64"), [])
    add("matmul/int16/aT_strided", "matmul", r(9, 5, dt="int16"), [T()], r(9, 8, dt="int16"), [sl([None, None, 3], [None, None, -1])])
    add("matmul/uint32/1d@2d", "matmul", r(6, dt="int32").astype(np.uint32), [], r(6, 3, dt="int32").astype(np.uint32), [])
    bools = rng.integers(0, 2, (4, 7)).astype(bool)
    add("matmul/bool/2d", "matmul", bools, [], bools.T.copy(), [])
    add("matmul/bool@int32", "matmul", bools, [], r(7, 2, dt="int32"), [])
    add_factorizations(g)
    add_composed(g)
    g.write()

"""Reduction goldens: sum, prod, max, min, mean over axes, views and keepdims."""

from .common import *  # noqa: F401,F403


REDUCTIONS = ["sum", "prod", "max", "min", "mean"]


def gen_reductions():
    g = Group("reductions")

    def add(cid, op, base, steps, axis, keepdims):
        ia, a = operand(g, base, steps)
        f = getattr(np, op)
        kw = {"axis": axis if not isinstance(axis, tuple) else list(axis), "keepdims": keepdims}

        def extra(r):
            if r.dtype.kind not in "fc":
                return {}
            # Condition scale: the same reduction over |x| (mean: mean of |x|), and the length.
            ax = axis
            n = a.size if ax is None else int(np.prod([a.shape[i] for i in (ax if isinstance(ax, tuple) else (ax,))]))
            with np.errstate(all="ignore"):
                absa = np.abs(a.astype(np.float64))
                if op == "prod":
                    s = np.abs(r.astype(np.float64))
                elif op in ("max", "min"):
                    s = np.zeros(r.shape)
                else:
                    s = getattr(np, op)(absa, axis=ax, keepdims=keepdims)
            return {"scale": g.arr(np.asarray(s, dtype=np.float64)), "n": max(n, 1)}

        record(g, cid, op, [ia], lambda: f(a, axis=axis, keepdims=keepdims), kw, extra)

    for dt in DTYPES:
        for op in REDUCTIONS:
            mk = prod_values if op == "prod" else red_values
            b3 = mk(dt, (2, 3, 4), 1)
            for axis in [None, 0, 1, -1, (0, 2)]:
                add(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis, False)
            add(f"{op}/{dt}/3d/axis1/keepdims", op, b3, [], 1, True)
            add(f"{op}/{dt}/3d/none/keepdims", op, b3, [], None, True)
            b1 = mk(dt, (37,), 2)
            add(f"{op}/{dt}/1d/axisNone", op, b1, [], None, False)
            add(f"{op}/{dt}/1d/reverse", op, b1, [sl([None, None, -2])], None, False)
            b2 = mk(dt, (5, 7), 3)
            add(f"{op}/{dt}/2d/T/axis0", op, b2, [T()], 0, False)
            add(f"{op}/{dt}/2d/reverse/axis1", op, b2, [sl([None, None, -1], [None, None, -1])], 1, False)
            add(f"{op}/{dt}/3d/transpose/axis(0,2)", op, b3, [{"op": "transpose", "axes": [2, 0, 1]}], (0, 2), True)
            add(f"{op}/{dt}/2d/bcast/axis0", op, mk(dt, (1, 7), 4), [bcast((5, 7))], 0, False)
            e = np.zeros((0, 3), dt)
            add(f"{op}/{dt}/empty/axis0", op, e, [], 0, False)
            add(f"{op}/{dt}/empty/axis1", op, e, [], 1, False)
            add(f"{op}/{dt}/empty/axisNone", op, e, [], None, False)
            add(f"{op}/{dt}/empty00/axis0", op, np.zeros((0, 0), dt), [], 0, False)
            add(f"{op}/{dt}/0d", op, mk(dt, (), 5), [], None, False)
    for dt in FLOATS:
        v = red_values(dt, (3, 4), 6)
        v[1, 2] = np.nan
        for op in REDUCTIONS:
            add(f"{op}/{dt}/nan/axis0", op, v, [], 0, False)
            add(f"{op}/{dt}/nan/axisNone", op, v, [], None, False)
    # A longer float32 sum (accuracy vs length).
    add("sum/float32/long", "sum", np.random.default_rng(7).uniform(0, 1, 4099).astype(np.float32), [], None, False)
    add("mean/float32/long_axis1", "mean", np.random.default_rng(8).uniform(-1, 1, (3, 1000)).astype(np.float32), [], 1, False)
    g.write()

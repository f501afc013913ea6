"""Sorting and scan goldens: sort, argsort (stable), cumsum, cumprod over axes and views."""

from .common import *  # noqa: F401,F403


def gen_sorting():
    g = Group("sorting")

    def add(cid, op, base, steps, axis):
        ia, a = operand(g, base, steps)
        kw = {"axis": axis}
        # Stable kinds: our sorts are stable, so ties (and -0.0 vs 0.0) keep their input order.
        if op == "argsort":
            fn = lambda: np.argsort(a, axis=axis, kind="stable")
        elif op == "sort":
            fn = lambda: np.sort(a, axis=axis, kind="stable")
        else:
            fn = lambda: getattr(np, op)(a, axis=axis)

        def extra(r):
            if op not in ("cumsum", "cumprod") or r.dtype.kind not in "fc":
                return {}
            # Condition scale: the same scan over |x| in float64 (cumprod: |result|), and the
            # scan length: the bound of any evaluation order (tests/common Tol::Scaled).
            n = a.size if axis is None or a.ndim == 0 else a.shape[axis]
            with np.errstate(all="ignore"):
                if op == "cumprod":
                    sc = np.abs(r.astype(np.float64))
                else:
                    sc = np.cumsum(np.abs(a.astype(np.float64)), axis=axis)
            return {"scale": g.arr(np.asarray(sc, dtype=np.float64).reshape(r.shape)), "n": max(int(n), 1)}

        record(g, cid, op, [ia], fn, kw, extra)

    def tie_values(dt, shape, seed):
        """Few distinct values (many ties) for stability checks."""
        d = np.dtype(dt)
        rng = np.random.default_rng(seed)
        n = int(np.prod(shape))
        if d.kind == "b":
            v = rng.random(n) < 0.5
        elif d.kind == "u":
            v = rng.integers(0, 4, n)
        elif d.kind == "i":
            v = rng.integers(-2, 3, n)
        else:
            v = rng.integers(-2, 3, n) * 0.5
        return v.astype(dt).reshape(shape)

    for dt in DTYPES:
        for op in ["cumsum", "cumprod", "sort", "argsort"]:
            mk = {"cumprod": prod_values, "cumsum": red_values}.get(op, red_values)
            if op == "argsort":
                mk = tie_values
            b3 = mk(dt, (2, 3, 4), 1)
            for axis in [None, 0, 1, -1]:
                add(f"{op}/{dt}/3d/axis{axis}", op, b3, [], axis)
            b2 = mk(dt, (5, 7), 3)
            add(f"{op}/{dt}/2d/T/axis1", op, b2, [T()], 1)
            b1 = mk(dt, (37,), 2)
            add(f"{op}/{dt}/1d/reverse", op, b1, [sl([None, None, -2])], -1)
            add(f"{op}/{dt}/2d/bcast/axis0", op, mk(dt, (1, 7), 4), [bcast((5, 7))], 0)
            e = np.zeros((0, 3), dt)
            for axis in [0, 1, None]:
                add(f"{op}/{dt}/empty/axis{axis}", op, e, [], axis)
            z = mk(dt, (), 5)
            add(f"{op}/{dt}/0d/axisNone", op, z, [], None)
            add(f"{op}/{dt}/0d/axis-1", op, z, [], -1)
            add(f"{op}/{dt}/0d/axis1", op, z, [], 1)
            add(f"{op}/{dt}/3d/axis3", op, b3, [], 3)
        # Many short rows, and one row longer than a block/workgroup.
        add(f"sort/{dt}/rows300x7", "sort", red_values(dt, (300, 7), 6), [], -1)
        add(f"argsort/{dt}/rows300x7", "argsort", tie_values(dt, (300, 7), 6), [], -1)
        if dt in ("int8", "int16", "int64", "float16", "float32"):
            add(f"sort/{dt}/long5000", "sort", red_values(dt, (5000,), 7), [], -1)
            add(f"argsort/{dt}/long5000", "argsort", tie_values(dt, (5000,), 7), [], -1)
        if dt in ("int32", "float16", "float32"):
            add(f"cumsum/{dt}/long3000", "cumsum", red_values(dt, (1, 3000), 8), [], -1)
        add(f"cumsum/{dt}/rows300x7", "cumsum", red_values(dt, (300, 7), 9), [], 1)
    for dt in FLOATS:
        sp = np.array([0.0, -0.0, np.nan, 1.0, -np.inf, np.inf, -1.0, np.nan, -0.0, 0.0, 2.5, -2.5,
                       np.nan, 1.0, 0.0, -0.0], dtype=dt)
        for op in ["sort", "argsort", "cumsum", "cumprod"]:
            add(f"{op}/{dt}/specials", op, sp, [], -1)
            add(f"{op}/{dt}/specials2d/axis0", op, sp.reshape(4, 4), [], 0)
        big = np.random.default_rng(12).uniform(-1e3, 1e3, 5000 if dt != "float64" else 1500).astype(dt)
        big[::97] = np.nan
        big[::89] = -0.0
        big[::83] = 0.0
        add(f"sort/{dt}/long{big.size}nan", "sort", big, [], -1)
        add(f"argsort/{dt}/long{big.size}nan", "argsort", big, [], -1)
    # Integer extremes (the sign-bit flip of a radix sort).
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        v = cyc(lhs_values(dt), (41,), dt)
        add(f"sort/{dt}/extremes", "sort", v, [], -1)
        add(f"argsort/{dt}/extremes", "argsort", v, [], -1)
        add(f"cumsum/{dt}/wrap", "cumsum", v, [], -1)
    g.write()

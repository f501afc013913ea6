"""Searching and set goldens: searchsorted, digitize, lexsort, partition/argpartition,
sort_complex, complex sort/argsort (NaN classes), unique (every return_* part, axis, equal_nan),
unique_values/counts/inverse/all, isin, in1d, intersect1d, union1d, setdiff1d, setxor1d.

A multi-output routine is one case per output: kwargs "part" names it (values, indices,
inverse, counts; intersect1d: values, indices1, indices2). partition and argpartition record
the sorted array: the Rust side checks NumPy's guarantee on the result (kth values in place,
nothing larger before them, nothing smaller after; argpartition: on a[indices], the indices a
permutation of each row), then sorts it and compares with the recorded sort."""

import warnings

from .common import *  # noqa: F401,F403

CDTYPES = DTYPES + ["complex64", "complex128"]
C_NAN = float("nan")
C_INF = float("inf")


def vals(dt, n, seed, lo=-6, hi=6):
    """Few distinct values (ties), NaN and ±0 for floats, NaN classes for complex."""
    d = np.dtype(dt)
    rng = np.random.default_rng(seed)
    if d.kind == "b":
        return rng.random(n) < 0.5
    if d.kind == "u":
        return rng.integers(0, hi, n).astype(dt)
    if d.kind == "i":
        return rng.integers(lo, hi, n).astype(dt)
    v = (rng.integers(lo, hi, n) * 0.5).astype(dt)
    if d.kind == "f":
        if n >= 5:
            v[rng.integers(0, n, max(1, n // 7))] = np.nan
            v[rng.integers(0, n, max(1, n // 9))] = -0.0
        return v
    im = (rng.integers(-2, 3, n) * 0.5)
    v = (v.real + 1j * im).astype(dt)
    if n >= 5:
        for k, c in enumerate([complex(C_NAN, 1.0), complex(1.0, C_NAN), complex(C_NAN, C_NAN),
                               complex(C_NAN, -1.0), complex(-2.0, C_NAN)]):
            v[(k * 5 + 3) % n] = c
    return v


def gen_sets():
    g = Group("sets")

    def add(cid, op, operands, fn, kw=None):
        ins = []
        for base, steps in operands:
            ia, _ = operand(g, base, steps)
            ins.append(ia)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record(g, cid, op, ins, fn, kw or {})

    def view(base, steps):
        return apply_view(base, steps)

    # ---- complex sort / argsort: NaN classes, ties, views, axes ----
    for dt in ["complex64", "complex128"]:
        sp = np.array([complex(C_NAN, C_NAN), 1 + 2j, complex(1, C_NAN), complex(C_NAN, 1), 1 + 1j,
                       complex(C_NAN, -1), -1 + 5j, complex(-3, C_NAN), complex(C_INF, 0), 1 + 1j,
                       complex(-C_INF, 2), complex(0.0, -0.0), complex(-0.0, 0.0), complex(C_NAN, C_NAN),
                       complex(1, C_NAN), 2 - 1j], dtype=dt)
        for op in ["sort", "argsort"]:
            fn = (lambda a, axis: np.sort(a, axis=axis, kind="stable")) if op == "sort" else \
                (lambda a, axis: np.argsort(a, axis=axis, kind="stable"))
            add(f"{op}/{dt}/specials", op, [(sp, [])], lambda fn=fn: fn(sp, -1), {"axis": -1})
            b = vals(dt, 60, 3).reshape(3, 4, 5)
            for axis in [None, 0, 1, -1]:
                add(f"{op}/{dt}/3d/axis{axis}", op, [(b, [])], lambda fn=fn, axis=axis: fn(b, axis),
                    {"axis": axis})
            b2 = vals(dt, 35, 4).reshape(5, 7)
            add(f"{op}/{dt}/T", op, [(b2, [T()])], lambda fn=fn: fn(b2.T, -1), {"axis": -1})
            b1 = vals(dt, 41, 5)
            add(f"{op}/{dt}/reverse", op, [(b1, [sl([None, None, -2])])],
                lambda fn=fn: fn(b1[::-2], -1), {"axis": -1})
            big = vals(dt, 3000, 6)
            add(f"{op}/{dt}/long", op, [(big, [])], lambda fn=fn: fn(big, -1), {"axis": -1})
            e = np.zeros((0, 3), dt)
            add(f"{op}/{dt}/empty", op, [(e, [])], lambda fn=fn: fn(e, 0), {"axis": 0})

    # ---- sort_complex ----
    for dt in CDTYPES:
        b = vals(dt, 12, 7).reshape(3, 4)
        add(f"sort_complex/{dt}", "sort_complex", [(b, [])], lambda b=b: np.sort_complex(b))

    # ---- lexsort ----
    for dt in CDTYPES:
        k1 = vals(dt, 40, 8, -2, 2).reshape(4, 10)
        k2 = vals(dt, 40, 9, -2, 2).reshape(4, 10)
        k3 = vals("int8", 40, 10, -1, 1).reshape(4, 10)
        for axis in [-1, 0]:
            add(f"lexsort/{dt}/3keys/axis{axis}", "lexsort", [(k1, []), (k2, []), (k3, [])],
                lambda axis=axis, k1=k1, k2=k2: np.lexsort((k1, k2, k3), axis=axis), {"axis": axis})
        add(f"lexsort/{dt}/1key", "lexsort", [(k1, [])], lambda k1=k1: np.lexsort((k1,)), {"axis": -1})
        add(f"lexsort/{dt}/T", "lexsort", [(k1, [T()]), (k2, [T()])],
            lambda k1=k1, k2=k2: np.lexsort((k1.T, k2.T)), {"axis": -1})
    a0 = np.array(3.0)
    add("lexsort/0d", "lexsort", [(a0, [])], lambda: np.lexsort((a0,)), {"axis": -1})
    ea = np.zeros((2, 0), "int32")
    add("lexsort/empty", "lexsort", [(ea, []), (ea, [])], lambda: np.lexsort((ea, ea)), {"axis": -1})
    x3, x4 = np.arange(3), np.arange(4)
    add("lexsort/shapes", "lexsort", [(x3, []), (x4, [])], lambda: np.lexsort((x3, x4)), {"axis": -1})
    add("lexsort/axis2", "lexsort", [(k1, [])], lambda: np.lexsort((k1,), axis=2), {"axis": 2})

    # ---- partition / argpartition (expected: the stable sort) ----
    for dt in DTYPES:
        b = vals(dt, 60, 11).reshape(6, 10)
        for op in ["partition", "argpartition"]:
            # argpartition: the sorted values a[indices] must equal (checked after a sort).
            ref = lambda a, axis: np.sort(a, axis=axis, kind="stable")
            for kth, axis in [(3, -1), (0, 0), (-1, 1), ([1, 5, 8], -1), ([0, 2], 0), (7, None)]:
                def fn(op=op, kth=kth, axis=axis, b=b, ref=ref):
                    getattr(np, op)(b, kth, axis=axis)  # raises where NumPy raises
                    return ref(b, axis)
                add(f"{op}/{dt}/kth{kth}/axis{axis}", op, [(b, [])], fn, {"kth": kth, "axis": axis})
            add(f"{op}/{dt}/T", op, [(b, [T()])], lambda ref=ref, b=b: ref(b.T, -1), {"kth": 2, "axis": -1})
            add(f"{op}/{dt}/kth_oob", op, [(b, [])], lambda op=op, b=b: getattr(np, op)(b, 10), {"kth": 10, "axis": -1})
            add(f"{op}/{dt}/kth_neg_oob", op, [(b, [])], lambda op=op, b=b: getattr(np, op)(b, -11), {"kth": -11, "axis": -1})
    z = np.array(2.0)
    add("partition/0d", "partition", [(z, [])], lambda: np.partition(z, 0), {"kth": 0, "axis": -1})
    add("argpartition/0d", "argpartition", [(z, [])], lambda: (np.argpartition(z, 0), np.sort(z.reshape(1)))[1], {"kth": 0, "axis": -1})
    add("partition/axis2", "partition", [(b, [])], lambda: np.partition(b, 0, axis=2), {"kth": 0, "axis": 2})

    # ---- searchsorted ----
    for dt in CDTYPES:
        a = np.sort(vals(dt, 30, 12), kind="stable")
        v = vals(dt, 24, 13, -8, 8).reshape(4, 6)
        for side in ["left", "right"]:
            add(f"searchsorted/{dt}/{side}", "searchsorted", [(a, []), (v, [])],
                lambda a=a, v=v, side=side: np.searchsorted(a, v, side=side), {"side": side})
            add(f"searchsorted/{dt}/{side}/vT", "searchsorted", [(a, []), (v, [T()])],
                lambda a=a, v=v, side=side: np.searchsorted(a, v.T, side=side), {"side": side})
            perm = np.random.default_rng(14).permutation(30)
            un = a[np.argsort(perm, kind="stable")]  # un[perm] == a
            add(f"searchsorted/{dt}/{side}/sorter", "searchsorted", [(un, []), (v, []), (perm, [])],
                lambda un=un, v=v, side=side, perm=perm: np.searchsorted(un, v, side=side, sorter=perm),
                {"side": side})
        rev = np.sort(vals(dt, 30, 12))[::-1].copy()
        add(f"searchsorted/{dt}/revview", "searchsorted", [(rev, [sl([None, None, -1])]), (v, [])],
            lambda rev=rev, v=v: np.searchsorted(rev[::-1], v), {"side": "left"})
        s0 = v[0, 0]
        add(f"searchsorted/{dt}/0d", "searchsorted", [(a, []), (np.array(s0), [])],
            lambda a=a, s0=s0: np.searchsorted(a, np.array(s0)), {"side": "left"})
        e = np.zeros(0, dt)
        add(f"searchsorted/{dt}/empty_a", "searchsorted", [(e, []), (v, [])],
            lambda e=e, v=v: np.searchsorted(e, v), {"side": "right"})
        add(f"searchsorted/{dt}/empty_v", "searchsorted", [(a, []), (e, [])],
            lambda a=a, e=e: np.searchsorted(a, e), {"side": "left"})
    # Mixed dtypes compare in the common dtype.
    ai = np.array([1, 2, 3, 5, 8], "int64")
    vf = np.array([0.5, 1.0, 2.5, 8.0, 9.0, np.nan], "float32")
    add("searchsorted/mixed/int64_float32", "searchsorted", [(ai, []), (vf, [])],
        lambda: np.searchsorted(ai, vf), {"side": "left"})
    au = np.array([0, 3, 200, 255], "uint8")
    vi = np.array([-1, 3, 254, 300], "int16")
    add("searchsorted/mixed/uint8_int16", "searchsorted", [(au, []), (vi, [])],
        lambda: np.searchsorted(au, vi, side="right"), {"side": "right"})
    a2 = np.zeros((2, 3))
    add("searchsorted/2d_a", "searchsorted", [(a2, []), (ai, [])], lambda: np.searchsorted(a2, ai), {"side": "left"})
    add("searchsorted/sorter_len", "searchsorted", [(ai, []), (ai, []), (np.arange(4), [])],
        lambda: np.searchsorted(ai, ai, sorter=np.arange(4)), {"side": "left"})
    big = np.sort(np.random.default_rng(15).integers(-1000, 1000, 5000)).astype("float32")
    q = np.random.default_rng(16).integers(-1100, 1100, 3000).astype("float32")
    add("searchsorted/float32/long", "searchsorted", [(big, []), (q, [])],
        lambda: np.searchsorted(big, q, side="right"), {"side": "right"})

    # ---- digitize ----
    for dt in DTYPES:
        if dt == "bool":
            continue
        x = vals(dt, 20, 17, -8, 8)
        inc = np.array([-4, -1, 0, 2, 2, 5], dtype="int64").astype(dt) if dt[0] != "u" else \
            np.array([0, 1, 2, 2, 5], dt)
        dec = inc[::-1].copy()
        for right in [False, True]:
            add(f"digitize/{dt}/inc/right{right}", "digitize", [(x, []), (inc, [])],
                lambda x=x, inc=inc, right=right: np.digitize(x, inc, right=right), {"right": right})
            add(f"digitize/{dt}/dec/right{right}", "digitize", [(x, []), (dec, [])],
                lambda x=x, dec=dec, right=right: np.digitize(x, dec, right=right), {"right": right})
    xf = np.array([[0.5, 2.0], [np.nan, -1.0]])
    bad = np.array([1.0, 3.0, 2.0])
    add("digitize/nonmonotonic", "digitize", [(xf, []), (bad, [])], lambda: np.digitize(xf, bad), {"right": False})
    xc = np.array([1j, 2])
    add("digitize/complex", "digitize", [(xc, []), (np.array([1.0, 2.0]), [])],
        lambda: np.digitize(xc, np.array([1.0, 2.0])), {"right": False})
    one = np.array([2.0])
    add("digitize/one_bin", "digitize", [(xf, []), (one, [])], lambda: np.digitize(xf, one), {"right": False})
    flat = np.array([2.0, 2.0, 2.0])
    add("digitize/flat_bins", "digitize", [(xf, []), (flat, [])], lambda: np.digitize(xf, flat, right=True), {"right": True})

    # ---- unique ----
    parts = ["values", "indices", "inverse", "counts"]

    def uniq(cid, base, steps, axis=None, equal_nan=True):
        a = view(base, steps)
        for part in parts:
            def fn(a=a, part=part):
                r = np.unique(a, return_index=True, return_inverse=True, return_counts=True,
                              axis=axis, equal_nan=equal_nan)
                return r[parts.index(part)]
            add(f"{cid}/{part}", "unique", [(base, steps)], fn,
                {"part": part, "axis": axis, "equal_nan": equal_nan})

    for dt in CDTYPES:
        b = vals(dt, 40, 18).reshape(5, 8)
        uniq(f"unique/{dt}/2d", b, [])
        uniq(f"unique/{dt}/T", b, [T()])
        if dt[0] in "fc":
            uniq(f"unique/{dt}/no_equal_nan", b, [], equal_nan=False)
        uniq(f"unique/{dt}/0d", np.array(b[0, 0]), [])
        uniq(f"unique/{dt}/empty", np.zeros((0, 3), dt), [])
        r = vals(dt, 24, 19, -1, 1).reshape(6, 4)
        if dt == "float16":
            # NumPy's structured (row) comparison orders float16 NaN first (its half compare),
            # every other float NaN last; cupy-rs puts NaN last for all (docs/differences.md).
            r = np.nan_to_num(r, nan=3.0)
        r[3] = r[1]
        r[5] = r[1]
        for axis in [0, 1, -1]:
            uniq(f"unique/{dt}/rows/axis{axis}", r, [], axis=axis)
        uniq(f"unique/{dt}/rows/reverse/axis0", r, [sl([None, None, -1])], axis=0)
        for fn_name in ["unique_values", "unique_counts", "unique_inverse", "unique_all"]:
            fnp = getattr(np, fn_name)
            n_out = {"unique_values": 1, "unique_counts": 2, "unique_inverse": 2, "unique_all": 4}[fn_name]
            for k in range(n_out):
                def fn(b=b, fnp=fnp, k=k, n_out=n_out, fn_name=fn_name):
                    r = fnp(b)
                    # Without return_index NumPy sorts with its unstable quicksort, so which of
                    # -0.0/0.0 stands for zero, and the inverse of distinct NaNs, are arbitrary:
                    # the expected parts come from NumPy's stable path (return_index=True).
                    st = np.unique(b, return_index=True, return_inverse=True, return_counts=True,
                                   equal_nan=False)
                    want = {"unique_values": [st[0]], "unique_counts": [st[0], st[3]],
                            "unique_inverse": [st[0], st[2].reshape(b.shape)],
                            "unique_all": [st[0], st[1], st[2].reshape(b.shape), st[3]]}[fn_name]
                    assert len([r] if n_out == 1 else list(r)) == len(want)
                    return want[k]
                add(f"{fn_name}/{dt}/{k}", fn_name, [(b, [])], fn, {"part": k})
    r3 = vals("float32", 24, 20, -1, 1).reshape(2, 3, 4)
    r3[:, 2] = r3[:, 0]
    uniq("unique/float32/3d/axis1", r3, [], axis=1)
    uniq("unique/int8/rows0", np.zeros((3, 0), "int8"), [], axis=0)
    uniq("unique/int8/norows", np.zeros((0, 3), "int8"), [], axis=0)
    add("unique/axis_oob", "unique", [(r3, [])], lambda: np.unique(r3, axis=3), {"part": "values", "axis": 3, "equal_nan": True})
    lb = vals("int16", 5000, 21, -300, 300)
    uniq("unique/int16/long", lb, [])

    # ---- isin / in1d ----
    for dt in CDTYPES:
        el = vals(dt, 30, 22, -5, 5).reshape(5, 6)
        te = vals(dt, 11, 23, -3, 4)
        for invert in [False, True]:
            add(f"isin/{dt}/invert{invert}", "isin", [(el, []), (te, [])],
                lambda el=el, te=te, invert=invert: np.isin(el, te, invert=invert), {"invert": invert})
        add(f"isin/{dt}/T", "isin", [(el, [T()]), (te, [sl([None, None, -1])])],
            lambda el=el, te=te: np.isin(el.T, te[::-1]), {"invert": False})
        add(f"in1d/{dt}", "in1d", [(el, []), (te, [])], lambda el=el, te=te: np.in1d(el, te), {"invert": False})
        add(f"isin/{dt}/empty_test", "isin", [(el, []), (np.zeros(0, dt), [])],
            lambda el=el, dt=dt: np.isin(el, np.zeros(0, dt)), {"invert": False})
        add(f"isin/{dt}/0d", "isin", [(np.array(el[0, 0]), []), (te, [])],
            lambda el=el, te=te: np.isin(np.array(el[0, 0]), te), {"invert": False})
    ei = np.array([1, 2, 3, 4], "int32")
    tf = np.array([2.0, 3.5, 4.0], "float64")
    add("isin/mixed", "isin", [(ei, []), (tf, [])], lambda: np.isin(ei, tf), {"invert": False})

    # ---- intersect1d / union1d / setdiff1d / setxor1d ----
    for dt in CDTYPES:
        x = vals(dt, 30, 24, -5, 5).reshape(5, 6)
        y = vals(dt, 20, 25, -3, 7)
        for part in ["values", "indices1", "indices2"]:
            add(f"intersect1d/{dt}/{part}", "intersect1d", [(x, []), (y, [])],
                lambda x=x, y=y, part=part: np.intersect1d(x, y, return_indices=True)[
                    ["values", "indices1", "indices2"].index(part)],
                {"part": part, "assume_unique": False})
        ux = np.unique(x)[::-1].copy()
        uy = np.unique(y)
        for part in ["values", "indices1", "indices2"]:
            add(f"intersect1d/{dt}/assume_unique/{part}", "intersect1d", [(ux, []), (uy, [])],
                lambda ux=ux, uy=uy, part=part: np.intersect1d(ux, uy, assume_unique=True, return_indices=True)[
                    ["values", "indices1", "indices2"].index(part)],
                {"part": part, "assume_unique": True})
        # union1d: NumPy's quicksort picks an arbitrary one of -0.0/0.0; the stable choice.
        def union(x, y):
            want = np.unique(np.concatenate((x, y), axis=None), return_index=True)[0]
            assert np.union1d(x, y).shape == want.shape
            return want
        add(f"union1d/{dt}", "union1d", [(x, []), (y, [])], lambda x=x, y=y: union(x, y))
        add(f"union1d/{dt}/T", "union1d", [(x, [T()]), (y, [sl([None, None, -1])])],
            lambda x=x, y=y: union(x.T, y[::-1]))
        for au in [False, True]:
            xx, yy = (ux, uy) if au else (x, y)
            add(f"setdiff1d/{dt}/assume_unique{au}", "setdiff1d", [(xx, []), (yy, [])],
                lambda xx=xx, yy=yy, au=au: np.setdiff1d(xx, yy, assume_unique=au), {"assume_unique": au})
            add(f"setxor1d/{dt}/assume_unique{au}", "setxor1d", [(xx, []), (yy, [])],
                lambda xx=xx, yy=yy, au=au: np.setxor1d(xx, yy, assume_unique=au), {"assume_unique": au})
        e = np.zeros(0, dt)
        for op in ["union1d", "setdiff1d", "setxor1d"]:
            add(f"{op}/{dt}/empty", op, [(e, []), (e, [])], lambda op=op, e=e: getattr(np, op)(e, e),
                {"assume_unique": False})
        add(f"intersect1d/{dt}/empty/values", "intersect1d", [(e, []), (y, [])],
            lambda e=e, y=y: np.intersect1d(e, y), {"part": "values", "assume_unique": False})
    xi = np.array([5, 1, 3, 3], "int8")
    yf = np.array([3.0, 5.0, 7.0], "float32")
    for op in ["intersect1d", "union1d", "setdiff1d", "setxor1d"]:
        add(f"{op}/mixed", op, [(xi, []), (yf, [])], lambda op=op: getattr(np, op)(xi, yf),
            {"part": "values", "assume_unique": False})
    g.write()

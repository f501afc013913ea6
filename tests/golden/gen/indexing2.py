"""NumPy indexing goldens: a[index] reading and writing (mixed basic/advanced indices),
a[idx] += v against add.at, take/put modes, the along-axis, mask, diagonal and grid routines.

An index is kwargs["index"]: a list of items, each an int, [start, stop, step] (nulls allowed),
"newaxis", "...", true/false, or {"arr": k} (operand k, an integer or boolean array).
"""

from .common import *  # noqa: F401,F403

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def build_index(items, ops):
    out = []
    for it in items:
        if isinstance(it, bool):
            out.append(it)
        elif isinstance(it, int):
            out.append(it)
        elif it == "newaxis":
            out.append(np.newaxis)
        elif it == "...":
            out.append(Ellipsis)
        elif isinstance(it, list):
            out.append(slice(*it))
        else:
            out.append(ops[it["arr"]])
    return tuple(out)


def gen_indexing2():
    g = Group("indexing2")
    a3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    a2 = np.arange(12, dtype=np.int32).reshape(3, 4)

    def get(cid, base, steps, index, arrays=()):
        ia, a = operand(g, base, steps)
        ins = [ia]
        ops = []
        for x in arrays:
            ix, x = operand(g, x)
            ins.append(ix)
            ops.append(x)
        record(g, cid, "getitem", ins, lambda: a[build_index(index, ops)], {"index": index})

    A = lambda k: {"arr": k}  # noqa: E731
    get("get/basic", a3, [], [1, [None, None, -1], "newaxis", [1, 4, 2]])
    get("get/ellipsis", a3, [], ["...", 2])
    get("get/int_array", a3, [], [A(0)], [np.array([2, 0, -1])])
    get("get/int_array_axis1", a3, [], [[None, None, None], A(0)], [np.array([[3, 0], [1, -4]])])
    get("get/two_arrays_adjacent", a3, [], [[None, None, None], A(0), A(1)], [np.array([0, 3]), np.array([[4], [1]])])
    get("get/two_arrays_separated", a3, [], [A(0), [None, None, None], A(1)], [np.array([0, 2]), np.array([4, 1])])
    get("get/int_and_array_separated", a3, [], [0, [None, None, None], A(0)], [np.array([1, 2, 3])])
    get("get/int_and_array_adjacent", a3, [], [[None, None, None], 1, A(0)], [np.array([1, 2])])
    get("get/array_newaxis_slice", a3, [], [A(0), "newaxis", [1, None, 2]], [np.array([[1], [2]])])
    get("get/array_then_ellipsis", a3, [], [A(0), "..."], [np.array([-1, 0])])
    get("get/ellipsis_then_array", a3, [], ["...", A(0)], [np.array([4, 0, 4])])
    for dt in INT_DTYPES:
        get(f"get/idx_{dt}", a2, [], [A(0)], [np.array([2, 0, 1, 2], dtype=dt)])
    get("get/idx_neg_int8", a2, [], [[None, None, None], A(0)], [np.array([-1, -4, 0], dtype=np.int8)])
    get("get/mask_1d", a3, [], [A(0)], [np.array([True, False, True])])
    get("get/mask_2d", a3, [], [A(0)], [(a3[:, :, 0] % 3 == 0)])
    get("get/mask_full", a3, [], [A(0)], [(a3 % 7 == 1)])
    get("get/mask_after_slice", a3, [], [[None, None, None], A(0)], [np.array([True, False, False, True])])
    get("get/mask_empty", a3, [], [A(0)], [np.zeros(3, bool)])
    # a mask axis of length 0 matches an axis of any length (NumPy selects nothing)
    get("get/mask_len0", a3, [], [A(0)], [np.zeros(0, bool)])
    get("get/mask_len0_2d", a3, [], [A(0)], [np.zeros((0, 4), bool)])
    get("get/mask_len0_trailing", a3, [], [[None, None, None], A(0)], [np.zeros((4, 0), bool)])
    get("get/mask_len0_other_axis_wrong", a3, [], [A(0)], [np.zeros((0, 5), bool)])
    get("get/mask_and_array", a3, [], [A(0), [None, None, None], A(1)], [np.array([True, False, True]), np.array([1, 3])])
    get("get/bool_true", a2, [], [True])
    get("get/bool_false", a2, [], [False])
    get("get/bool_true_slice", a2, [], [[None, 2, None], True])
    get("get/zero_d", np.array(5.5), [], [True])
    get("get/zero_d_ellipsis", np.array(7, np.int16), [], ["..."])
    get("get/size0", np.zeros((0, 3), np.float32), [], [A(0)], [np.zeros(0, np.int64)])
    get("get/size0_axis1", np.zeros((2, 0), np.float32), [], [[None, None, None], A(0)], [np.zeros((2, 2), np.int64)])
    get("get/transposed", a3, [T()], [A(0), 1], [np.array([4, 0, 2])])
    get("get/reversed", a2, [sl([None, None, -1], [None, None, -2])], [A(0), A(1)], [np.array([0, 2]), np.array([1, 0])])
    get("get/float64_src", np.linspace(-1, 1, 20).reshape(4, 5), [], [A(0), [1, None]], [np.array([3, 3, 0])])
    get("get/complex_src", (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex64), [], [A(0)], [np.array([5, 0])])
    get("get/bool_src", np.array([True, False, True, True]), [], [A(0)], [np.array([1, 0, 3])])
    get("get/arrays_around_ellipsis", a3, [], [A(0), "...", A(1)], [np.array([0, 2]), np.array([1, 4])])
    get("get/newaxis_then_arrays", a3, [], ["newaxis", A(0), A(1)], [np.array([0, 1]), np.array([1, 2])])
    get("get/arrays_around_newaxis", a3, [], [A(0), "newaxis", A(1)], [np.array([0, 1]), np.array([1, 2])])
    get("get/ellipsis_then_two_arrays", a3, [], ["...", A(0), A(1)], [np.array([0, 1]), np.array([1, 2])])
    get("get/int_first_adjacent", a3, [], [0, A(0), [None, None, None]], [np.array([1, 2])])
    get("get/array_slice_int", a3, [], [A(0), [None, None, None], 0], [np.array([1])])
    get("get/zero_d_int_array", a3, [], [A(0)], [np.array(1)])
    get("get/zero_d_bool_array", a3, [], [A(0), 1], [np.array(True)])
    get("get/zero_d_bool_false", a2, [], [A(0)], [np.array(False)])
    get("get/mask_then_slice_step", a2, [], [A(0), [None, None, -2]], [np.array([True, False, True])])
    get("get/two_masks", a2, [], [A(0), A(1)], [np.array([True, False, True]), np.array([False, True, False, True])])
    get("get/bool_false_and_array", a2, [], [False, A(0)], [np.array([0, 1])])
    get("get/uint64_big_stride", np.arange(40, dtype=np.int16).reshape(2, 4, 5), [sl([None, None, -1], [None, None, 2])], [[None, None, None], A(0), A(1)], [np.array([1, 0], np.uint64), np.array([[4], [0]], np.int8)])
    # errors
    get("get/oob", a3, [], [A(0)], [np.array([0, 3])])
    get("get/oob_neg", a3, [], [[None, None, None], A(0)], [np.array([-5])])
    get("get/oob_int", a3, [], [5])
    get("get/too_many", a2, [], [0, 1, 2])
    get("get/mask_wrong_shape", a3, [], [A(0)], [np.array([True, False])])
    get("get/no_broadcast", a3, [], [A(0), A(1)], [np.array([0, 1]), np.array([0, 1, 2])])
    get("get/float_index", a3, [], [A(0)], [np.array([0.0])])

    # setitem: the result is the target after a[index] = value (value last operand).
    def put_case(op, cid, base, steps, index, arrays, value):
        ia, a = operand(g, base, steps)
        ins = [ia]
        ops = []
        for x in arrays:
            ix, x = operand(g, x)
            ins.append(ix)
            ops.append(x)
        if isinstance(value, np.ndarray):
            iv, v = operand(g, value)
        else:
            iv, v = weak(value)
        ins.append(iv)

        def run():
            b = a.copy()
            idx = build_index(index, ops)
            if op == "setitem":
                b[idx] = v
            elif op == "iadd":
                b[idx] += v
            elif op == "isub":
                b[idx] -= v
            elif op == "imul":
                b[idx] *= v
            elif op == "add.at":
                np.add.at(b, idx, v)
            return b

        record(g, cid, op, ins, run, {"index": index})

    S = lambda *a: put_case("setitem", *a)  # noqa: E731
    S("set/basic_scalar", a3, [], [1, [None, None, 2]], [], 7.5)
    S("set/basic_broadcast", a2, [], [[None, None, None], [1, 3]], [], np.array([100, 200], np.int32))
    S("set/mask_len0", a2, [], [A(0)], [np.zeros(0, bool)], np.array([1, 2, 3, 4], np.int32))
    S("set/int_array", a3, [], [A(0)], [np.array([2, 0])], -1.0)
    S("set/int_array_values", a2, [], [A(0), A(1)], [np.array([0, 2, 1]), np.array([3, 0, -1])], np.array([7, 8, 9], np.int32))
    S("set/separated", a3, [], [A(0), [None, None, None], A(1)], [np.array([0, 2]), np.array([4, 1])], np.arange(8, dtype=np.float32).reshape(2, 4))
    S("set/mask_scalar", a3, [], [A(0)], [(a3 % 4 == 1)], 0.0)
    S("set/mask_rows_broadcast", a3, [], [A(0)], [np.array([True, False, True])], np.arange(5, dtype=np.float32))
    S("set/mask_values", a2, [], [A(0)], [np.array([[True, False, False, True]] * 3)], np.arange(6, dtype=np.int32))
    S("set/mask_empty", a2, [], [A(0)], [np.zeros((3, 4), bool)], np.zeros(0, np.int32))
    S("set/mask_after_slice", a2, [], [[None, None, None], A(0)], [np.array([False, True, True, False])], 5)
    S("set/float_into_int", a2, [], [A(0)], [np.array([1])], np.array([1.75, -2.5, 3.9, 4.0]))
    S("set/leading_one_value", a2, [], [A(0)], [np.array([0, 2])], np.ones((1, 2, 4), np.int32))
    S("set/transposed", a2, [T()], [A(0), 0], [np.array([3, 1])], np.array([-5, -6], np.int32))
    S("set/reversed", a2, [sl([None, None, -1])], [A(0)], [np.array([0])], 42)
    S("set/bool_true", a2, [], [True, 1], [], 99)
    S("set/zero_d", np.array(3.0, np.float32), [], ["..."], [], 8.0)
    for dt in ["int8", "uint16", "int64", "uint64"]:
        S(f"set/idx_{dt}", np.zeros(6, np.float32), [], [A(0)], [np.array([5, 0, 3], dtype=dt)], np.array([1, 2, 3], np.float32))
    S("set/oob", a2, [], [A(0)], [np.array([0, 3])], 1)
    S("set/value_shape", a2, [], [A(0)], [np.array([0, 1])], np.arange(3, dtype=np.int32))
    S("set/mask_wrong_shape", a2, [], [A(0)], [np.array([True, False])], 1)
    S("set/too_many", a2, [], [0, 0, 0], [], 1)
    # a[idx] += v (repeated indices once) against add.at (every occurrence)
    rep = np.array([0, 1, 0, 3, 0])
    put_case("iadd", "iadd/repeated", np.zeros(5, np.int32), [], [A(0)], [rep], 1)
    put_case("add.at", "add_at/repeated", np.zeros(5, np.int32), [], [A(0)], [rep], np.array(1, np.int32))
    put_case("iadd", "iadd/mask", a3, [], [A(0)], [(a3 % 5 == 0)], 0.5)
    put_case("iadd", "iadd/basic", a2, [], [[1, None, None]], [], np.array([1, 2, 3, 4], np.int32))
    put_case("iadd", "iadd/2d_arrays", a2, [], [A(0), A(1)], [np.array([[0], [2]]), np.array([1, 1, 3])], 10)
    put_case("isub", "isub/array", a3, [], [[None, None, None], A(0)], [np.array([1, 1])], 1.0)
    put_case("imul", "imul/array", a2, [], [A(0)], [np.array([2, -1])], 3)
    put_case("iadd", "iadd/int_plus_float", a2, [], [A(0)], [np.array([0])], 1.5)

    # take / put with modes
    def take_case(cid, base, idx, axis, mode):
        ia, a = operand(g, base)
        ii, i = operand(g, idx)
        record(g, cid, "take", [ia, ii], lambda: np.take(a, i, axis=axis, mode=mode), {"axis": axis, "mode": mode})

    for mode in ["raise", "wrap", "clip"]:
        take_case(f"take/{mode}", a3, np.array([0, 2, -1, 7, -9], np.int64), 1, mode)
        take_case(f"take/{mode}_flat_int8", a2, np.array([-13, 11, 12, 0], np.int8), None, mode)
        take_case(f"take/{mode}_uint16", a2, np.array([3, 4, 9], np.uint16), 1, mode)
        take_case(f"take/{mode}_empty_axis", np.zeros((2, 0), np.float32), np.array([0]), 1, mode)

    def put_mode(cid, base, idx, vals, mode):
        ia, a = operand(g, base)
        ii, i = operand(g, idx)
        iv, v = operand(g, vals)

        def run():
            b = a.copy()
            np.put(b, i, v, mode=mode)
            return b

        record(g, cid, "put", [ia, ii, iv], run, {"mode": mode})

    for mode in ["raise", "wrap", "clip"]:
        put_mode(f"put/{mode}", np.zeros(6, np.float32), np.array([1, 8, -8]), np.array([1, 2, 3], np.float32), mode)
        put_mode(f"put/{mode}_int16", np.zeros((2, 3), np.int32), np.array([-1, 2], np.int16), np.array([5], np.int32), mode)

    # take_along_axis / put_along_axis
    def along(cid, base, idx, axis, vals=None):
        ia, a = operand(g, base)
        ii, i = operand(g, idx)
        if vals is None:
            record(g, cid, "take_along_axis", [ia, ii], lambda: np.take_along_axis(a, i, axis), {"axis": axis})
        else:
            iv, v = operand(g, vals)

            def run():
                b = a.copy()
                np.put_along_axis(b, i, v, axis)
                return b

            record(g, cid, "put_along_axis", [ia, ii, iv], run, {"axis": axis})

    r = np.random.default_rng(3).uniform(0, 1, (3, 4)).astype(np.float32)
    along("tal/argsort_axis1", r, np.argsort(r, axis=1), 1)
    along("tal/argsort_axis0", r, np.argsort(r, axis=0), 0)
    along("tal/broadcast", a3, np.array([[[0], [4]]]), 2)
    along("tal/flat", a2, np.array([11, 0, -1]), None)
    along("tal/neg", a2, np.array([[-1], [0], [-2]]), 1)
    along("tal/ndim_mismatch", a2, np.array([0]), 1)
    along("pal/axis1", a2, np.array([[0], [3], [1]]), 1, np.array([[-1], [-2], [-3]], np.int32))
    along("pal/broadcast_value", r, np.argmax(r, axis=0)[None, :], 0, np.array(9, np.float32))

    # nonzero / argwhere / flatnonzero
    def nz(cid, base, steps=()):
        ia, a = operand(g, base, steps)
        record(g, cid + "/nonzero", "nonzero", [ia], lambda: np.array(np.nonzero(a)).reshape(a.ndim, -1))
        record(g, cid + "/argwhere", "argwhere", [ia], lambda: np.argwhere(a))
        record(g, cid + "/flatnonzero", "flatnonzero", [ia], lambda: np.flatnonzero(a))

    nz("nz/int_2d", np.array([[0, 3, 0], [4, 0, 5]], np.int32))
    nz("nz/float_nan", np.array([0.0, np.nan, -0.0, 1.0]))
    nz("nz/bool_3d", a3 % 6 == 0)
    nz("nz/empty_result", np.zeros((2, 3), np.uint8))
    nz("nz/size0", np.zeros((0, 2), np.float32))
    nz("nz/transposed", a2 % 3 == 1, [T()])
    nz("nz/complex", np.array([0, 1j, 0, 2 + 0j], np.complex64))
    ia, a = operand(g, np.array(3.0))
    record(g, "nz/zero_d/argwhere", "argwhere", [ia], lambda: np.argwhere(a))
    record(g, "nz/zero_d/nonzero", "nonzero", [ia], lambda: np.nonzero(a))

    # diagonals and triangles
    def one(cid, op, base, fn, kwargs, steps=()):
        ia, a = operand(g, base, steps)
        record(g, cid, op, [ia], lambda: fn(a), kwargs)

    sq = np.arange(20, dtype=np.float32).reshape(4, 5)
    for k in [0, 2, -1, 7]:
        one(f"diagonal/k{k}", "diagonal", sq, lambda a, k=k: np.diagonal(a, k), {"offset": k, "axis1": 0, "axis2": 1})
    one("diagonal/3d_axes", "diagonal", a3, lambda a: np.diagonal(a, 1, 2, 0), {"offset": 1, "axis1": 2, "axis2": 0})
    one("diagonal/transposed", "diagonal", sq, lambda a: np.diagonal(a, -1), {"offset": -1, "axis1": 0, "axis2": 1}, [T()])
    one("diagonal/1d", "diagonal", np.arange(3), lambda a: np.diagonal(a), {"offset": 0, "axis1": 0, "axis2": 1})
    for k in [0, 1, -2]:
        one(f"diag/1d_k{k}", "diag", np.array([1, 2, 3], np.int16), lambda a, k=k: np.diag(a, k), {"k": k})
        one(f"diag/2d_k{k}", "diag", sq, lambda a, k=k: np.diag(a, k), {"k": k})
    one("diag/reversed", "diag", np.arange(4.0), lambda a: np.diag(a), {"k": 0}, [sl([None, None, -1])])
    one("diagflat/2d", "diagflat", np.array([[1, 2], [3, 4]], np.int32), lambda a: np.diagflat(a, 1), {"k": 1})
    for k in [0, 1, -1, -5]:
        one(f"tril/k{k}", "tril", sq, lambda a, k=k: np.tril(a, k), {"k": k})
        one(f"triu/k{k}", "triu", sq, lambda a, k=k: np.triu(a, k), {"k": k})
    one("tril/3d", "tril", a3, lambda a: np.tril(a), {"k": 0})
    one("triu/bool", "triu", np.ones((3, 3), bool), lambda a: np.triu(a, 1), {"k": 1})
    one("tril/1d", "tril", np.array([1, 2, 3], np.int8), lambda a: np.tril(a), {"k": 0})
    one("triu/transposed", "triu", sq, lambda a: np.triu(a), {"k": 0}, [T()])
    for (n, k, m) in [(4, 0, None), (3, 1, 5), (4, -2, 2), (0, 0, None)]:
        record(g, f"tril_indices/{n}_{k}_{m}", "tril_indices", [], lambda n=n, k=k, m=m: np.array(np.tril_indices(n, k, m)).reshape(2, -1), {"n": n, "k": k, "m": m})
        record(g, f"triu_indices/{n}_{k}_{m}", "triu_indices", [], lambda n=n, k=k, m=m: np.array(np.triu_indices(n, k, m)).reshape(2, -1), {"n": n, "k": k, "m": m})

    def fill(cid, base, val, wrap, steps=()):
        ia, a = operand(g, base, steps)
        if isinstance(val, np.ndarray):
            iv, v = operand(g, val)
        else:
            iv, v = weak(val)

        def run():
            b = a.copy()
            np.fill_diagonal(b, v, wrap=wrap)
            return b

        record(g, cid, "fill_diagonal", [ia, iv], run, {"wrap": wrap})

    fill("fill_diagonal/square", np.zeros((3, 3), np.float32), 5.0, False)
    fill("fill_diagonal/tall", np.zeros((7, 3), np.int32), 1, False)
    fill("fill_diagonal/tall_wrap", np.zeros((7, 3), np.int32), 1, True)
    fill("fill_diagonal/wide", np.zeros((3, 5), np.int32), np.array([1, 2], np.int32), False)
    fill("fill_diagonal/3d", np.zeros((2, 2, 2), np.float64), np.array([7.0, 8.0]), False)
    fill("fill_diagonal/transposed", np.zeros((3, 4), np.float32), 2.0, False, [T()])

    # putmask / place / compress / extract / choose / select
    def inplace(cid, op, fn, bases):
        ins, vals = [], []
        for b in bases:
            i, v = operand(g, b)
            ins.append(i)
            vals.append(v)

        def run():
            t = vals[0].copy()
            fn(t, *vals[1:])
            return t

        record(g, cid, op, ins, run)

    m34 = (a2 % 3 == 0)
    inplace("putmask/cycled", "putmask", np.putmask, [a2, m34, np.array([-1, -2, -3], np.int32)])
    inplace("putmask/float_values", "putmask", np.putmask, [a2, m34, np.array([0.5, 9.9])])
    inplace("putmask/int_mask", "putmask", np.putmask, [np.arange(5.0), np.array([0, 2, 0, 1, 0]), np.array([100.0])])
    inplace("putmask/size_mismatch", "putmask", np.putmask, [a2, np.array([True, False]), np.array([1], np.int32)])
    inplace("place/cycled", "place", np.place, [a2, m34, np.array([-1, -2, -3], np.int32)])
    inplace("place/none_true_empty_vals", "place", np.place, [a2, np.zeros((3, 4), bool), np.zeros(0, np.int32)])
    inplace("place/empty_vals", "place", np.place, [a2, m34, np.zeros(0, np.int32)])
    inplace("place/float_into_int", "place", np.place, [np.arange(6, dtype=np.int16), np.array([1, 0, 1, 0, 1, 0], bool), np.array([2.7, -3.2])])

    def comp(cid, cond, base, axis, steps=()):
        ic, c = operand(g, cond)
        ia, a = operand(g, base, steps)
        record(g, cid, "compress", [ic, ia], lambda: np.compress(c, a, axis=axis), {"axis": axis})

    comp("compress/axis0", np.array([True, False, True]), a3, 0)
    comp("compress/axis1_short", np.array([False, True]), a3, 1)
    comp("compress/flat", np.array([1, 0, 0, 1, 1], np.int8), a2, None)
    comp("compress/axis_last_transposed", np.array([True, True, False]), a2, -1, [T()])
    comp("compress/too_long", np.array([False, False, False, True]), a3, 0)
    comp("compress/none", np.zeros(3, bool), a3, 0)
    # a 0-d `a` counts as 1-d when an axis is given
    comp("compress/zero_d_axis0", np.array([True, False]), np.array(3.5), 0)
    comp("compress/zero_d_axis_neg", np.array([True]), np.array(2, np.int16), -1)
    comp("compress/zero_d_axis1", np.array([True]), np.array(3.5), 1)

    def ext(cid, cond, base):
        ic, c = operand(g, cond)
        ia, a = operand(g, base)
        record(g, cid, "extract", [ic, ia], lambda: np.extract(c, a))

    ext("extract/mask", a3 % 5 == 2, a3)
    ext("extract/int_cond", np.array([[0, 1], [2, 0]]), np.array([[1.5, 2.5], [3.5, 4.5]]))

    def choose(cid, idx, choices, mode):
        ii, i = operand(g, idx)
        ins, cs = [ii], []
        for c in choices:
            ic, c = operand(g, c)
            ins.append(ic)
            cs.append(c)
        record(g, cid, "choose", ins, lambda: np.choose(i, cs, mode=mode), {"mode": mode})

    ch = [np.arange(4, dtype=np.int32), np.full(4, 10, np.int32), np.array([[-1], [-2]], np.int8)]
    for mode in ["raise", "wrap", "clip"]:
        choose(f"choose/{mode}", np.array([0, 1, 2, 1], np.int64), ch, mode)
        choose(f"choose/{mode}_oob", np.array([[3, -1, 0, 5]], np.int16), ch, mode)
    choose("choose/promote", np.array([1, 0], np.uint8), [np.array([1, 2], np.int8), np.array([0.5, 1.5], np.float32)], "raise")

    def select(cid, conds, choices, default):
        ins, cs, vs = [], [], []
        for c in conds:
            i, c = operand(g, c)
            ins.append(i)
            cs.append(c)
        for v in choices:
            i, v = operand(g, v)
            ins.append(i)
            vs.append(v)
        if isinstance(default, np.ndarray):
            idf, d = operand(g, default)
        else:
            idf, d = weak(default)
        ins.append(idf)
        record(g, cid, "select", ins, lambda: np.select(cs, vs, d), {"n": len(conds)})

    x = np.arange(10, dtype=np.int32)
    select("select/first_true_wins", [x < 3, x > 5, x < 8], [x, x ** 2, -x], 0)
    select("select/default_array", [x % 2 == 0], [x * 10], np.full(10, -7, np.int32))
    select("select/float_choice", [x < 5], [x.astype(np.float32) / 2], 1)
    select("select/broadcast", [np.array([[True], [False]])], [np.arange(3, dtype=np.int64)], 9)
    select("select/int8_weak", [x < 5], [x.astype(np.int8)], 100)
    select("select/non_bool", [x], [x], 0)

    # grids
    for dims in [(2, 3), (4,), (2, 0, 3)]:
        record(g, f"indices/{dims}", "indices", [], lambda dims=dims: np.indices(dims), {"dims": list(dims)})
    ia, a = operand(g, np.array([0, 2], np.int64))
    ib, b = operand(g, np.array([True, False, True, True]))
    ic, c = operand(g, np.array([4, 0], np.int8))
    record(g, "ix_/get", "ix_get", [operand(g, a3)[0], ia, ib, ic], lambda: a3[np.ix_(a, b, c)], {})

    def rmi(cid, coords, dims, mode, order="C"):
        ins, cs = [], []
        for c in coords:
            i, c = operand(g, c)
            ins.append(i)
            cs.append(c)
        record(g, cid, "ravel_multi_index", ins, lambda: np.ravel_multi_index(tuple(cs), dims, mode=mode, order=order), {"dims": list(dims), "mode": mode, "order": order})

    rmi("rmi/raise", [np.array([0, 1, 2]), np.array([[3], [0]], np.int32)], (3, 4), "raise")
    rmi("rmi/F", [np.array([0, 1, 2]), np.array([3, 0, 1], np.int32)], (3, 4), "raise", "F")
    rmi("rmi/wrap", [np.array([-1, 5]), np.array([7, -2])], (3, 4), "wrap")
    rmi("rmi/clip", [np.array([-1, 5]), np.array([7, -2])], (3, 4), "clip")
    rmi("rmi/invalid", [np.array([3]), np.array([0])], (3, 4), "raise")
    rmi("rmi/uint8", [np.array([1, 2], np.uint8), np.array([0, 1], np.uint8), np.array([4, 0], np.uint8)], (3, 2, 5), "raise")

    def unr(cid, idx, shape, order="C"):
        ii, i = operand(g, idx)
        record(g, cid, "unravel_index", [ii], lambda: np.array(np.unravel_index(i, shape, order=order)).reshape((len(shape),) + np.shape(i)), {"shape": list(shape), "order": order})

    unr("unravel/C", np.array([0, 7, 11, 5]), (3, 4))
    unr("unravel/F", np.array([[0, 7], [11, 5]], np.int32), (3, 4), "F")
    unr("unravel/3d_uint16", np.array([59, 0, 33], np.uint16), (3, 4, 5))
    unr("unravel/oob", np.array([12]), (3, 4))
    unr("unravel/neg", np.array([-1]), (3, 4))

    # take(out=): NumPy 2.2 gathers into a buffer of a's dtype (out's dtype must cast to it
    # safely) and writes it back into out unsafely; out needs the result's exact shape
    def take_out(cid, base, idx, axis, mode, out, steps=()):
        ia, a = operand(g, base)
        ii, i = operand(g, idx)
        io, _ = operand(g, out, steps)

        def run():
            o = apply_view(out.copy(), steps)
            r = np.take(a, i, axis=axis, mode=mode, out=o)
            assert r is o
            return o

        record(g, cid, "take", [ia, ii, io], run, {"axis": axis, "mode": mode, "out": 2})

    i3 = np.array([0, 2, -1, 7, -9], np.int64)
    f3 = (a3 - 30.25).astype(np.float64)
    for mode in ["raise", "wrap", "clip"]:
        for odt in ["float64", "float32", "float16", "int64", "int8", "bool", "complex128"]:
            take_out(f"take/out/{mode}/float64->{odt}", f3, i3 if mode != "raise" else i3[:3], 1, mode,
                     np.full((3, 5 if mode != "raise" else 3, 5), 7, odt))
        for odt in ["int32", "int16", "uint8", "int64", "float32", "uint32"]:
            take_out(f"take/out/{mode}/int32->{odt}", a2 * 41 - 200, np.array([-13 if mode != "raise" else -12, 11, 0], np.int8), None,
                     mode, np.full((3,), 7, odt))
    take_out("take/out/strided", f3, np.array([1, 0]), 2, "raise", np.full((3, 4, 4), 7.0), [sl([None, None, None], [None, None, None], [None, None, 2])])
    take_out("take/out/transposed", f3, np.array([[1, 0, 2]]), 0, "raise", np.full((5, 4, 3, 1), 7.0), [T()])
    take_out("take/out/0d", f3, np.array(4), None, "raise", np.full((), 7.0))
    take_out("take/out/empty_float32", f3, np.zeros((0,), np.int64), 1, "raise", np.full((3, 0, 5), 7, np.float32))
    take_out("take/out/bad_shape", f3, np.array([0, 1]), 1, "raise", np.full((3, 2), 7.0))
    take_out("take/out/bad_ndim", f3, np.array([0, 1]), 1, "raise", np.full((3, 2, 5, 1), 7.0))
    take_out("take/out/broadcastable", f3, np.array([0, 1]), 1, "clip", np.full((1, 2, 5), 7.0))
    take_out("take/out/out_of_bounds", f3, np.array([0, 4]), 1, "raise", np.full((3, 2, 5), 7.0))

    g.write()

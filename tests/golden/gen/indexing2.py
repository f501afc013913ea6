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

    g.write()

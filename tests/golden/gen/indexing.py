"""Integer-array indexing goldens: take, put and the ufunc .at forms (add, maximum, minimum)."""

from .common import *  # noqa: F401,F403


def gen_indexing():
    g = Group("indexing")
    rng = np.random.default_rng(5)
    a3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

    def add(cid, base, steps, idx, axis):
        ia, a = operand(g, base, steps)
        ii, i = operand(g, idx)
        record(g, cid, "take", [ia, ii], lambda: np.take(a, i, axis=axis), {"axis": axis})

    add("take/flat", a3, [], np.array([0, 59, 7, -1, -60], dtype=np.int64), None)
    add("take/axis0", a3, [], np.array([2, 0, -1], dtype=np.int32), 0)
    add("take/axis1_2d_indices", a3, [], np.array([[3, 0], [1, 1]], dtype=np.int64), 1)
    add("take/axis_last_neg", a3, [], np.array([4, -5, 2], dtype=np.int16), -1)
    add("take/transposed_src", a3, [T()], np.array([1, 0, 1], dtype=np.int64), 1)
    add("take/uint8_idx_int8_src", (np.arange(20) - 10).astype(np.int8), [], np.array([0, 19, 5], dtype=np.uint8), 0)
    add("take/bool_idx", np.array([10, 20], dtype=np.int64), [], np.array([True, False, True]), 0)
    add("take/empty_idx", a3, [], np.zeros((0,), dtype=np.int64), 1)
    add("take/scalar_idx", a3, [], np.array(2, dtype=np.int64), 2)
    add("take/float64", rng.uniform(-1, 1, (6, 3)), [], rng.integers(-6, 6, (4, 2)), 0)
    add("take/out_of_bounds", a3, [], np.array([0, 3], dtype=np.int64), 0)
    add("take/out_of_bounds_neg", a3, [], np.array([-6], dtype=np.int64), 1)
    add("take/float_indices", a3, [], np.array([0.0, 1.0]), 0)

    # put / ufunc.at / cupyx.scatter_*: the result is the target array after the in-place op.
    def put_case(cid, base, steps, idx, vals):
        ia, a = operand(g, base, steps)
        ii, i = operand(g, idx)
        iv, v = operand(g, vals)

        def run():
            b = a.copy()
            np.put(b, i, v)
            return b

        record(g, cid, "put", [ia, ii, iv], run)

    put_case("put/unique_f32", np.zeros(10, np.float32), [], np.array([0, 3, -1, 5]), np.array([1, 2, 3, 4], np.float32))
    put_case("put/cycled_values_cast", np.arange(8, dtype=np.int32), [], np.array([0, 1, 2, 3, 4], np.int16), np.array([9, -8]))
    put_case("put/transposed_target", np.arange(12, dtype=np.float32).reshape(3, 4), [T()], np.array([0, 5, 11, -11]), np.array([-1, -2, -3, -4], np.float32))  # unique after wrapping: GPUs order repeated writes freely
    put_case("put/float_values_into_int8", np.arange(6, dtype=np.int8), [], np.array([1, 2]), np.array([1.5, -2.7]))
    put_case("put/2d_indices_scalar_value", np.arange(20, dtype=np.int64).reshape(4, 5), [], np.array([[0, 19], [7, 8]]), np.array(42))
    put_case("put/bool_target", np.zeros(4, np.bool_), [], np.array([0, 2], np.uint8), np.array([True]))
    put_case("put/repeated_same_value", np.zeros(5, np.float32), [], np.array([1, 1, 3, 1]), np.array([7, 7, 2, 7], np.float32))
    put_case("put/float16", np.zeros(5, np.float16), [], np.array([4, 0]), np.array([0.1, 65504], np.float16))
    put_case("put/empty_indices", np.ones(3, np.float32), [], np.zeros(0, np.int64), np.array([5], np.float32))
    put_case("put/out_of_bounds", np.zeros(5, np.float32), [], np.array([0, 5]), np.array([1], np.float32))
    put_case("put/out_of_bounds_neg", np.zeros(5, np.float32), [], np.array([-6, 1]), np.array([1], np.float32))
    put_case("put/float_indices", np.zeros(5, np.float32), [], np.array([1.0]), np.array([1], np.float32))

    def at_case(cid, uf, base, steps, idx, vals, axis=0, tol=False):
        ia, a = operand(g, base, steps)
        ii, i = operand(g, idx)
        iv, v = operand(g, vals)

        def run():
            b = a.copy()
            if axis is None:
                uf.at(b.reshape(-1), i, v)
            else:
                uf.at(b, (slice(None),) * axis + (i,), v)
            return b

        extra = None
        if tol:
            extra = {"n": int(np.size(i)) + 1, "scale_max": float(np.abs(a).max() + np.abs(v).sum())}
        record(g, cid, uf.__name__ + ".at", [ia, ii, iv], run, {"axis": axis}, extra)

    idx200 = rng.integers(-6, 6, 200)
    at_case("add_at/int32_repeated", np.add, np.zeros(5, np.int32), [], np.array([0, 1, 0, 4, 0, -1]), np.array([1, 2, 3, 4, 5, 6], np.int32))
    at_case("add_at/float32_repeated", np.add, rng.uniform(-1, 1, 6).astype(np.float32), [], idx200, rng.uniform(-1, 1, 200).astype(np.float32), tol=True)
    at_case("add_at/int8_wrap", np.add, np.zeros(3, np.int8), [], np.array([0] * 200 + [1, 2]), np.array(100, np.int8))
    at_case("add_at/uint8_wrap", np.add, np.zeros(3, np.uint8), [], np.array([2] * 7), np.array(200, np.uint8))
    at_case("add_at/int16_neg", np.add, np.full(3, 5, np.int16), [], np.array([1] * 9), np.array(-4000, np.int16))
    at_case("add_at/rows_f32", np.add, np.zeros((4, 3), np.float32), [], np.array([0, 2, 0]), np.arange(9, dtype=np.float32).reshape(3, 3))
    at_case("add_at/broadcast_row", np.add, np.zeros((4, 3), np.int32), [], np.array([1, 1, 3]), np.array([1, 10, 100], np.int32))
    at_case("add_at/bool_or", np.add, np.zeros(3, np.bool_), [], np.array([1, 1]), np.array(True))
    at_case("add_at/float16_same_values", np.add, np.zeros(2, np.float16), [], np.array([0] * 5), np.array(0.1, np.float16))
    at_case("add_at/int64_histogram", np.add, np.zeros(8, np.int64), [], rng.integers(0, 8, 300), np.array(1, np.int64))
    at_case("add_at/float64", np.add, np.zeros(3), [], np.array([0, 2, 2]), np.array([0.5, 0.25, 0.125]))
    at_case("add_at/transposed_target", np.add, np.zeros((3, 4), np.float32), [T()], np.array([3, 0, 3]), np.float32(1.5) * np.ones(3, np.float32))
    at_case("add_at/uint32_idx_value_cast", np.add, np.zeros(4, np.int32), [], np.array([3, 3], np.uint32), np.array([1.5, 2.5], np.float32))
    at_case("add_at/not_broadcastable", np.add, np.zeros((3, 2), np.float32), [], np.array([0, 1]), np.ones(3, np.float32))
    at_case("add_at/out_of_bounds", np.add, np.zeros(3, np.float32), [], np.array([0, 3]), np.float32(1) * np.ones(2, np.float32))
    at_case("add_at/out_of_bounds_neg", np.add, np.zeros(3, np.int32), [], np.array([-4]), np.array(1, np.int32))
    at_case("add_at/float_indices", np.add, np.zeros(3, np.int32), [], np.array([1.0]), np.array(1, np.int32))
    at_case("maximum_at/float32_nan", np.maximum, np.zeros(3, np.float32), [], np.array([0, 0, 1, 2]), np.array([np.nan, 1, 2, -1], np.float32))
    at_case("maximum_at/int32", np.maximum, np.array([5, -5, 0], np.int32), [], rng.integers(0, 3, 50), rng.integers(-100, 100, 50).astype(np.int32))
    at_case("maximum_at/uint8", np.maximum, np.array([5, 250, 0], np.uint8), [], np.array([0, 1, 1, 2]), np.array([4, 255, 3, 9], np.uint8))
    at_case("minimum_at/int16", np.minimum, np.array([5, -5, 0], np.int16), [], rng.integers(0, 3, 50), rng.integers(-100, 100, 50).astype(np.int16))
    at_case("minimum_at/float32", np.minimum, np.zeros(3, np.float32), [], np.array([0, 1, 1, 2, 2]), np.array([1, -1, -3, np.inf, -np.inf], np.float32))
    at_case("minimum_at/float16_nan", np.minimum, np.zeros(2, np.float16), [], np.array([1, 1]), np.array([np.nan, -1], np.float16))
    at_case("scatter_add/axis1", np.add, np.zeros((2, 4, 3), np.float32), [], np.array([3, 0, 3]), np.float32(1) * np.ones((2, 3, 3), np.float32), axis=1)
    at_case("scatter_add/axis_last_2d_idx", np.add, np.zeros((2, 5), np.int32), [], np.array([[4, 4], [0, -1]]), np.array(3, np.int32), axis=1)
    at_case("scatter_add/flat", np.add, np.zeros((2, 3), np.int32), [], np.array([5, 5, 0]), np.array([1, 2, 3], np.int32), axis=None)
    at_case("scatter_max/flat_int32", np.maximum, np.zeros((2, 3), np.int32), [], np.array([5, 5, 0, 1]), np.array([1, 7, -3, 4], np.int32), axis=None)
    at_case("scatter_min/axis0_f32", np.minimum, np.ones((3, 2), np.float32), [], np.array([2, 2]), np.array([[0.5, 3], [2, -1]], np.float32), axis=0)
    g.write()

"""Goldens of NumPy 2's array-API names: bitwise_count (every dtype, the extremes of each
integer, views), concat, permute_dims, unstack, cumulative_sum and cumulative_prod (axis,
dtype=, include_initial=, 0-d and size-0 arrays), and the errors NumPy raises. The ufunc aliases
(acos, pow, bitwise_left_shift, ...) are checked against their originals in tests/array_api.rs.
Ufuncs called with Python scalars only ("scalars/...") give NumPy's 0-d results.

An op returning several arrays (unstack) is recorded once per piece with kwargs "piece" and the
case's "pieces"."""

from .common import *  # noqa: F401,F403


def gen_array_api():
    g = Group("array_api")

    def case(cid, op, ops, fn, **kw):
        record_pieces(g, cid, op, ops, fn, **kw)

    # ---- bitwise_count: every dtype (floats raise TypeError), extremes, views ----
    for dt in DTYPES:
        d = np.dtype(dt)
        if d.kind == "b":
            base = np.array([True, False, True, True, False, False])
        elif d.kind in "iu":
            info = np.iinfo(d)
            vals = [0, 1, 2, 3, 7, info.max, info.min, info.max - 1, 0x55 & info.max, 100 % (info.max + 1)]
            if d.kind == "i":
                vals += [-1, -2, -3, -100 % (-info.min), info.min + 1]
            base = np.array(vals, dtype=object).astype(dt)
        else:
            base = np.array([0.0, 1.0, -2.5], dtype=dt)
        case(f"bitwise_count/{dt}", "bitwise_count", [operand(g, base)], np.bitwise_count)
        if d.kind in "iu":
            case(f"bitwise_count/{dt}/reverse", "bitwise_count", [operand(g, base, [sl([None, None, -1])])],
                 np.bitwise_count)
    m = (np.arange(24, dtype=np.int64).reshape(4, 6) * 0x0123456789ABCDEF) - (1 << 62)
    case("bitwise_count/int64/T", "bitwise_count", [operand(g, m, [T()])], np.bitwise_count)
    u = np.arange(20, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    case("bitwise_count/uint64/spread", "bitwise_count", [operand(g, u)], np.bitwise_count)
    case("bitwise_count/int32/empty", "bitwise_count", [operand(g, np.zeros((0, 3), np.int32))], np.bitwise_count)
    case("bitwise_count/int16/0d", "bitwise_count", [operand(g, np.array(-32768, np.int16))], np.bitwise_count)

    # ---- concat ----
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    case("concat/axis0", "concat", [operand(g, a), operand(g, b)], lambda x, y: np.concat([x, y]), axis=0)
    bt = np.arange(6, dtype=np.float32).reshape(3, 2) + 10
    case("concat/axis1_T", "concat", [operand(g, a), operand(g, bt, [T()])],
         lambda x, y: np.concat([x, y], axis=1), axis=1)
    c = np.arange(8, dtype=np.int32).reshape(2, 4)
    case("concat/none", "concat", [operand(g, a), operand(g, c)], lambda x, y: np.concat([x, y], axis=None), axis=None)
    case("concat/mismatch", "concat", [operand(g, a), operand(g, c)], lambda x, y: np.concat([x, y], axis=0), axis=0)
    case("concat/axis_oob", "concat", [operand(g, a), operand(g, a)], lambda x, y: np.concat([x, y], axis=2), axis=2)

    # ---- permute_dims ----
    x3 = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    for axes in ([2, 0, 1], [-1, -3, -2], [0, 1, 2]):
        case(f"permute_dims/{axes}", "permute_dims", [operand(g, x3)], lambda x, ax=axes: np.permute_dims(x, ax), axes=axes)
    case("permute_dims/reversed_view", "permute_dims", [operand(g, x3, [sl([None, None, -1])])],
         lambda x: np.permute_dims(x, (1, 2, 0)), axes=[1, 2, 0])
    case("permute_dims/repeated", "permute_dims", [operand(g, x3)], lambda x: np.permute_dims(x, (0, 0, 1)), axes=[0, 0, 1])
    case("permute_dims/short", "permute_dims", [operand(g, x3)], lambda x: np.permute_dims(x, (0, 1)), axes=[0, 1])

    # ---- unstack ----
    f3 = np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 0.25
    case("unstack/axis0", "unstack", [operand(g, f3)], lambda x: np.unstack(x), axis=0)
    case("unstack/axis-1", "unstack", [operand(g, f3)], lambda x: np.unstack(x, axis=-1), axis=-1)
    case("unstack/T_axis1", "unstack", [operand(g, f3, [T()])], lambda x: np.unstack(x, axis=1), axis=1)
    case("unstack/1d_bool", "unstack", [operand(g, np.array([True, False, True]))], lambda x: np.unstack(x), axis=0)
    case("unstack/0d", "unstack", [operand(g, np.array(3.0))], lambda x: np.unstack(x), axis=0)
    case("unstack/axis_oob", "unstack", [operand(g, f3)], lambda x: np.unstack(x, axis=3), axis=3)

    # ---- cumulative_sum / cumulative_prod ----
    i8 = (np.arange(12, dtype=np.int8).reshape(3, 4) * 37 - 50).astype(np.int8)
    f2 = (np.arange(12, dtype=np.float32).reshape(3, 4) % 5 - 2) * 0.5
    for op, fn in (("cumulative_sum", np.cumulative_sum), ("cumulative_prod", np.cumulative_prod)):
        case(f"{op}/1d", op, [operand(g, np.array([1, 2, 3, 4, 5], np.int32))], lambda x, f=fn: f(x))
        case(f"{op}/1d_initial", op, [operand(g, np.array([1, 2, 3, 4, 5], np.int32))],
             lambda x, f=fn: f(x, include_initial=True), include_initial=True)
        case(f"{op}/int8_axis1", op, [operand(g, i8)], lambda x, f=fn: f(x, axis=1), axis=1)
        case(f"{op}/int8_axis0_initial", op, [operand(g, i8)], lambda x, f=fn: f(x, axis=0, include_initial=True),
             axis=0, include_initial=True)
        case(f"{op}/f32_T_axis-1_initial", op, [operand(g, f2, [T()])],
             lambda x, f=fn: f(x, axis=-1, include_initial=True), axis=-1, include_initial=True)
        case(f"{op}/dtype_f64", op, [operand(g, i8)], lambda x, f=fn: f(x, axis=1, dtype=np.float64),
             axis=1, dtype="float64")
        case(f"{op}/bool_initial", op, [operand(g, np.array([True, False, True, True]))],
             lambda x, f=fn: f(x, include_initial=True), include_initial=True)
        case(f"{op}/0d", op, [operand(g, np.array(5, np.int64))], lambda x, f=fn: f(x))
        case(f"{op}/0d_initial", op, [operand(g, np.array(5, np.int64))], lambda x, f=fn: f(x, include_initial=True),
             include_initial=True)
        case(f"{op}/empty_initial", op, [operand(g, np.zeros((2, 0), np.float64))],
             lambda x, f=fn: f(x, axis=1, include_initial=True), axis=1, include_initial=True)
        case(f"{op}/2d_no_axis", op, [operand(g, i8)], lambda x, f=fn: f(x))
        case(f"{op}/axis_oob", op, [operand(g, i8)], lambda x, f=fn: f(x, axis=2), axis=2)

    # ---- ufuncs called with Python scalars only: NumPy converts them (a 0-d result) ----
    scalar_calls = [
        ("add", (1, 2)), ("add", (1, 2.5)), ("add", (True, True)), ("add", (True, 2)),
        ("multiply", (2 ** 62, 4)), ("true_divide", (1, 3)), ("floor_divide", (-7, 2)),
        ("power", (2, 10)), ("power", (2.0, -1)), ("subtract", (1.5, float("inf"))),
        ("left_shift", (1, 40)), ("equal", (1, 1.0)), ("sqrt", (2,)), ("negative", (5,)),
        ("arctan2", (1.0, -1)), ("bitwise_count", (-1,)), ("logical_not", (0,)),
        ("multiply", (1, 2 ** 64)), ("sqrt", (float("nan"),)),
    ]
    for i, (name, vals) in enumerate(scalar_calls):
        ins = [weak(v) for v in vals]
        record(g, f"scalars/{name}/{i}", name, [w[0] for w in ins],
               lambda f=getattr(np, name), v=vals: f(*v))
    g.write()

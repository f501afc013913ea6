"""Manipulation goldens (issue 15 item 2): concatenate and the stack family, the split family,
flip/roll/rot90, moveaxis/rollaxis/transpose(axes)/atleast_*, broadcast_arrays, ravel/reshape
orders and flatten, tile/repeat/resize, append/insert/delete; views (reversed, transposed,
broadcast) as inputs, 0-d and size-0 arrays, negative axes, and the errors NumPy raises.

kwargs name the op's arguments as NumPy spells them; an op returning several arrays (split,
broadcast_arrays) is recorded once per piece with kwargs "piece" and the case's "pieces"."""

from .common import *  # noqa: F401,F403

MDTYPES = ["bool", "int8", "int32", "int64", "uint16", "float16", "float32", "float64",
           "complex64", "complex128"]


def vals(dt, shape, shift=0):
    n = int(np.prod(shape))
    d = np.dtype(dt)
    if d.kind == "b":
        return ((np.arange(n) * 7 + shift) % 3 == 0).reshape(shape)
    x = (np.arange(n) * 5 + shift) % 23 - (11 if d.kind in "ifc" else 0)
    if d.kind == "c":
        return (x + 1j * ((np.arange(n) * 3 + shift) % 7 - 3)).astype(dt).reshape(shape)
    if d.kind == "f":
        return (x * 0.5).astype(dt).reshape(shape)
    return x.astype(dt).reshape(shape)


REV = [sl([None, None, -1])]
REV2 = [sl([None, None, -1], [None, None, -1])]


def gen_manipulation():
    g = Group("manipulation")

    def case(cid, op, ops, fn, **kw):
        record_pieces(g, cid, op, ops, fn, **kw)

    def op_(dt, shape, steps=(), shift=0):
        base = vals(dt, shape, shift)
        return operand(g, base, steps)

    # ---- concatenate / stack family, every dtype ----
    for dt in MDTYPES:
        a, b = op_(dt, (2, 3)), op_(dt, (4, 3), [], 1)
        case(f"concatenate/{dt}/axis0", "concatenate", [a, b], lambda x, y: np.concatenate([x, y]), axis=0)
        bt = op_(dt, (3, 2), [T()], 2)
        case(f"concatenate/{dt}/axis1_T", "concatenate", [a, bt], lambda x, y: np.concatenate([x, y], axis=1), axis=1)
        r = op_(dt, (2, 3), REV2, 3)
        case(f"stack/{dt}/neg", "stack", [a, r], lambda x, y: np.stack([x, y], axis=-1), axis=-1)
        case(f"vstack/{dt}", "vstack", [a, op_(dt, (3,), REV, 4)], lambda x, y: np.vstack([x, y]))
        case(f"hstack/{dt}", "hstack", [a, op_(dt, (2, 1), [], 5)], lambda x, y: np.hstack([x, y]))
    for dt in ["int32", "float64", "complex64"]:
        a = op_(dt, (4,))
        case(f"column_stack/{dt}", "column_stack", [a, op_(dt, (4, 2), [], 1), op_(dt, (4,), REV, 2)],
             lambda x, y, z: np.column_stack([x, y, z]))
        case(f"dstack/{dt}", "dstack", [op_(dt, (2, 3)), op_(dt, (2, 3), [T(), T()], 3)], lambda x, y: np.dstack([x, y]))
        case(f"dstack1d/{dt}", "dstack", [a, op_(dt, (4,), [], 1)], lambda x, y: np.dstack([x, y]))
        case(f"hstack1d/{dt}", "hstack", [a, op_(dt, (3,), [], 1)], lambda x, y: np.hstack([x, y]))
        case(f"hstack0d/{dt}", "hstack", [op_(dt, ()), op_(dt, (), [], 1)], lambda x, y: np.hstack([x, y]))
        case(f"vstack0d/{dt}", "vstack", [op_(dt, ()), op_(dt, (), [], 1)], lambda x, y: np.vstack([x, y]))
        case(f"stack1d/{dt}/axis1", "stack", [a, op_(dt, (4,), REV, 1)], lambda x, y: np.stack([x, y], axis=1), axis=1)
        case(f"stack0d/{dt}", "stack", [op_(dt, ()), op_(dt, (), [], 1)], lambda x, y: np.stack([x, y]), axis=0)
    # Promotion, axis=None, broadcast inputs, size 0, 3-D.
    i8, f4, u16, bl = op_("int8", (2, 2)), op_("float32", (2, 2), [], 1), op_("uint16", (1, 2), [], 2), op_("bool", (2, 2), [], 1)
    case("concatenate/promote_i8_f32", "concatenate", [i8, f4], lambda x, y: np.concatenate([x, y]), axis=0)
    case("concatenate/promote_i8_u16_bool", "concatenate", [i8, u16, bl], lambda x, y, z: np.concatenate([x, y, z]), axis=0)
    case("concatenate/axis_none", "concatenate", [op_("int32", (2, 3), [T()]), op_("int32", (4,), REV, 1)],
         lambda x, y: np.concatenate([x, y], axis=None), axis=None)
    case("concatenate/dtype_f64", "concatenate", [i8, u16], lambda x, y: np.concatenate([x, y], dtype=np.float64), axis=0, dtype="float64")
    case("concatenate/broadcast_in", "concatenate", [op_("int64", (3,), [bcast((2, 3))]), op_("int64", (1, 3), [], 1)],
         lambda x, y: np.concatenate([x, y]), axis=0)
    case("concatenate/size0", "concatenate", [op_("float32", (0, 3)), op_("float32", (2, 3)), op_("float32", (0, 3))],
         lambda x, y, z: np.concatenate([x, y, z]), axis=0)
    case("concatenate/size0_other_axis", "concatenate", [op_("float32", (0, 3)), op_("float32", (0, 2))],
         lambda x, y: np.concatenate([x, y], axis=1), axis=1)
    case("concatenate/3d_axis1", "concatenate", [op_("int16", (2, 3, 4)), op_("int16", (2, 1, 4), [], 1)],
         lambda x, y: np.concatenate([x, y], axis=-2), axis=-2)
    case("concatenate/one", "concatenate", [op_("int32", (3,), REV)], lambda x: np.concatenate([x]), axis=0)
    case("append/none", "append", [op_("int32", (2, 2)), op_("float32", (3,), [], 1)], lambda x, y: np.append(x, y), axis=None)
    case("append/axis0", "append", [op_("float64", (2, 2)), op_("float64", (1, 2), [], 1)], lambda x, y: np.append(x, y, axis=0), axis=0)
    # Errors.
    case("concatenate_err/ndim", "concatenate", [op_("int32", (2, 2)), op_("int32", (2,))], lambda x, y: np.concatenate([x, y]), axis=0)
    case("concatenate_err/shape", "concatenate", [op_("int32", (2, 3)), op_("int32", (2, 2))], lambda x, y: np.concatenate([x, y]), axis=0)
    case("concatenate_err/axis", "concatenate", [op_("int32", (2, 3)), op_("int32", (2, 3))], lambda x, y: np.concatenate([x, y], axis=2), axis=2)
    case("concatenate_err/0d", "concatenate", [op_("int32", ()), op_("int32", ())], lambda x, y: np.concatenate([x, y]), axis=0)
    case("concatenate_err/empty", "concatenate", [], lambda: np.concatenate([]), axis=0)
    case("concatenate_err/cast", "concatenate", [op_("float32", (2,)), op_("float32", (2,))],
         lambda x, y: np.concatenate([x, y], dtype=np.int32), axis=0, dtype="int32")
    case("stack_err/shape", "stack", [op_("int32", (2, 3)), op_("int32", (3, 2))], lambda x, y: np.stack([x, y]), axis=0)
    case("stack_err/axis", "stack", [op_("int32", (2, 3)), op_("int32", (2, 3))], lambda x, y: np.stack([x, y], axis=3), axis=3)
    case("vstack_err/shape", "vstack", [op_("int32", (2, 3)), op_("int32", (2,))], lambda x, y: np.vstack([x, y]))

    # ---- split family ----
    for dt in ["bool", "int32", "float16", "complex128"]:
        a = op_(dt, (6, 4))
        case(f"split/{dt}/3", "split", [a], lambda x: np.split(x, 3), sections=3, axis=0)
        case(f"array_split/{dt}/4_axis1_T", "array_split", [op_(dt, (5, 6), [T()])], lambda x: np.array_split(x, 4, axis=1),
             sections=4, axis=1)
    a = op_("int64", (7, 3))
    case("array_split/5of7", "array_split", [a], lambda x: np.array_split(x, 5), sections=5, axis=0)
    case("array_split/9of7", "array_split", [a], lambda x: np.array_split(x, 9), sections=9, axis=0)
    case("split/indices", "split", [a], lambda x: np.split(x, [2, 5]), indices=[2, 5], axis=0)
    case("split/indices_neg_clamp", "split", [a], lambda x: np.split(x, [-2, 1, 10]), indices=[-2, 1, 10], axis=0)
    case("split/indices_unsorted", "split", [a], lambda x: np.split(x, [4, 2]), indices=[4, 2], axis=0)
    case("split/indices_axis_neg", "split", [op_("float32", (3, 5), REV2)], lambda x: np.split(x, [1, 3], axis=-1),
         indices=[1, 3], axis=-1)
    case("split/size0", "split", [op_("float32", (0, 4))], lambda x: np.split(x, 2, axis=1), sections=2, axis=1)
    case("split/size0_axis", "array_split", [op_("float32", (0, 4))], lambda x: np.array_split(x, 3), sections=3, axis=0)
    case("hsplit/2d", "hsplit", [op_("int32", (2, 6))], lambda x: np.hsplit(x, 3), sections=3)
    case("hsplit/1d", "hsplit", [op_("int32", (6,), REV)], lambda x: np.hsplit(x, [1, 4]), indices=[1, 4])
    case("vsplit/2d", "vsplit", [op_("int32", (4, 3), [T(), T()])], lambda x: np.vsplit(x, 2), sections=2)
    case("dsplit/3d", "dsplit", [op_("float64", (2, 2, 4))], lambda x: np.dsplit(x, [3]), indices=[3])
    case("split_err/unequal", "split", [a], lambda x: np.split(x, 2), sections=2, axis=0)
    case("split_err/zero", "array_split", [a], lambda x: np.array_split(x, 0), sections=0, axis=0)
    case("split_err/axis", "split", [a], lambda x: np.split(x, 1, axis=2), sections=1, axis=2)
    case("hsplit_err/0d", "hsplit", [op_("int32", ())], lambda x: np.hsplit(x, 1), sections=1)
    case("vsplit_err/1d", "vsplit", [op_("int32", (4,))], lambda x: np.vsplit(x, 2), sections=2)
    case("dsplit_err/2d", "dsplit", [op_("int32", (4, 2))], lambda x: np.dsplit(x, 2), sections=2)

    # ---- flip / roll / rot90 ----
    for dt in MDTYPES:
        a = op_(dt, (3, 4), [T()])
        case(f"flip/{dt}/all", "flip", [a], lambda x: np.flip(x), axis=None)
        case(f"roll/{dt}/axis1", "roll", [op_(dt, (3, 4), REV)], lambda x: np.roll(x, 3, axis=1), shift=3, axis=1)
        case(f"rot90/{dt}", "rot90", [a], lambda x: np.rot90(x), k=1, axes=[0, 1])
    b = op_("int32", (2, 3, 4))
    case("flip/axis0", "flip", [b], lambda x: np.flip(x, 0), axis=[0])
    case("flip/axes_neg", "flip", [b], lambda x: np.flip(x, (-1, 1)), axis=[-1, 1])
    case("flip/0d", "flip", [op_("float32", ())], lambda x: np.flip(x), axis=None)
    case("flip/size0", "flip", [op_("float32", (0, 3))], lambda x: np.flip(x), axis=None)
    case("fliplr", "fliplr", [b], lambda x: np.fliplr(x))
    case("flipud", "flipud", [op_("int32", (5,), REV)], lambda x: np.flipud(x))
    case("flip_err/axis", "flip", [b], lambda x: np.flip(x, 3), axis=[3])
    case("fliplr_err/1d", "fliplr", [op_("int32", (5,))], lambda x: np.fliplr(x))
    case("flipud_err/0d", "flipud", [op_("int32", ())], lambda x: np.flipud(x))
    for sh in [0, 1, -1, 5, -7, 100, 24]:
        case(f"roll/none/{sh}", "roll", [b], lambda x: np.roll(x, sh), shift=sh, axis=None)
    case("roll/axis_neg", "roll", [b], lambda x: np.roll(x, -2, axis=-1), shift=-2, axis=-1)
    case("roll/axes", "roll", [b], lambda x: np.roll(x, (1, -1, 2), axis=(0, 1, 2)), shift=[1, -1, 2], axis=[0, 1, 2])
    case("roll/axes_repeat", "roll", [b], lambda x: np.roll(x, (1, 2), axis=(2, 2)), shift=[1, 2], axis=[2, 2])
    case("roll/axes_bcast", "roll", [b], lambda x: np.roll(x, 1, axis=(0, 2)), shift=[1], axis=[0, 2])
    case("roll/0d", "roll", [op_("int32", ())], lambda x: np.roll(x, 3), shift=3, axis=None)
    case("roll/size0", "roll", [op_("int32", (0, 3))], lambda x: np.roll(x, 1, axis=1), shift=1, axis=1)
    case("roll_err/axis", "roll", [b], lambda x: np.roll(x, 1, axis=3), shift=1, axis=3)
    case("roll_err/mismatch", "roll", [b], lambda x: np.roll(x, (1, 2), axis=(0, 1, 2)), shift=[1, 2], axis=[0, 1, 2])
    for k in [-1, 0, 1, 2, 3, 6]:
        case(f"rot90/k{k}", "rot90", [b], lambda x: np.rot90(x, k), k=k, axes=[0, 1])
    case("rot90/axes_neg", "rot90", [b], lambda x: np.rot90(x, 1, axes=(-1, 0)), k=1, axes=[-1, 0])
    case("rot90_err/same", "rot90", [b], lambda x: np.rot90(x, 1, axes=(1, 1)), k=1, axes=[1, 1])
    case("rot90_err/range", "rot90", [b], lambda x: np.rot90(x, 1, axes=(0, 3)), k=1, axes=[0, 3])
    case("rot90_err/1d", "rot90", [op_("int32", (4,))], lambda x: np.rot90(x), k=1, axes=[0, 1])

    # ---- moveaxis / rollaxis / transpose(axes) / atleast ----
    c = op_("float32", (2, 3, 4, 5))
    case("moveaxis/0_-1", "moveaxis", [c], lambda x: np.moveaxis(x, 0, -1), source=[0], destination=[-1])
    case("moveaxis/multi", "moveaxis", [c], lambda x: np.moveaxis(x, [0, 1], [-1, -2]), source=[0, 1], destination=[-1, -2])
    case("moveaxis/multi2", "moveaxis", [c], lambda x: np.moveaxis(x, [3, 0], [0, 2]), source=[3, 0], destination=[0, 2])
    case("moveaxis_err/len", "moveaxis", [c], lambda x: np.moveaxis(x, [0, 1], [0]), source=[0, 1], destination=[0])
    case("moveaxis_err/repeat", "moveaxis", [c], lambda x: np.moveaxis(x, [0, 0], [1, 2]), source=[0, 0], destination=[1, 2])
    case("moveaxis_err/axis", "moveaxis", [c], lambda x: np.moveaxis(x, 4, 0), source=[4], destination=[0])
    for ax, st in [(3, 1), (1, 4), (-1, 0), (2, -2), (0, 0), (1, 2)]:
        case(f"rollaxis/{ax}_{st}", "rollaxis", [c], lambda x: np.rollaxis(x, ax, st), axis=ax, start=st)
    case("rollaxis_err/axis", "rollaxis", [c], lambda x: np.rollaxis(x, 4), axis=4, start=0)
    case("rollaxis_err/start", "rollaxis", [c], lambda x: np.rollaxis(x, 0, 5), axis=0, start=5)
    case("transpose/axes", "transpose", [c], lambda x: np.transpose(x, (1, -1, 0, 2)), axes=[1, -1, 0, 2])
    case("transpose_err/axes", "transpose", [c], lambda x: np.transpose(x, (1, 1, 0, 2)), axes=[1, 1, 0, 2])
    for n in (1, 2, 3):
        for shape in [(), (4,), (2, 3), (2, 3, 4)]:
            fn = getattr(np, f"atleast_{n}d")
            case(f"atleast_{n}d/{len(shape)}d", f"atleast_{n}d", [op_("int16", shape, REV if shape else [])], fn)
    # ---- broadcast_arrays ----
    case("broadcast_arrays", "broadcast_arrays", [op_("int32", (3, 1)), op_("float32", (4,), REV), op_("bool", ())],
         lambda x, y, z: np.broadcast_arrays(x, y, z))
    case("broadcast_arrays_err", "broadcast_arrays", [op_("int32", (3, 2)), op_("int32", (3,))],
         lambda x, y: np.broadcast_arrays(x, y))

    # ---- ravel / reshape orders, flatten ----
    views = {"contig": ((3, 4), []), "T": ((4, 3), [T()]), "rev": ((3, 4), REV2),
             "Trev": ((4, 3), [T(), sl([None, None, -1])]), "step": ((3, 8), [sl([None, None, None], [None, None, 2])]),
             "3d": ((2, 3, 4), [{"op": "transpose", "axes": [2, 0, 1]}]), "0d": ((), []), "size0": ((0, 3), [T()])}
    for vn, (shape, steps) in views.items():
        for order in "CFAK":
            case(f"ravel/{vn}/{order}", "ravel", [op_("int32", shape, steps)], lambda x: np.ravel(x, order=order), order=order)
            case(f"flatten/{vn}/{order}", "flatten", [op_("complex64", shape, steps)], lambda x: x.flatten(order=order), order=order)
        for order in "CFA":
            case(f"reshape/{vn}/{order}", "reshape", [op_("float64", shape, steps)],
                 lambda x: np.reshape(x, (-1, 1) if x.size else (0, 1), order=order), shape=[-1, 1], order=order)
    case("reshape/F_3d", "reshape", [op_("int8", (2, 3, 4))], lambda x: x.reshape((4, 6), order="F"), shape=[4, 6], order="F")
    case("reshape_err/K", "reshape", [op_("int8", (2, 3))], lambda x: x.reshape((6,), order="K"), shape=[6], order="K")
    case("reshape_err/F_size", "reshape", [op_("int8", (2, 3))], lambda x: x.reshape((4,), order="F"), shape=[4], order="F")

    # ---- tile / repeat / resize ----
    for dt in ["bool", "int32", "float32", "complex128"]:
        a = op_(dt, (2, 3), [T()])
        case(f"tile/{dt}", "tile", [a], lambda x: np.tile(x, (2, 1, 2)), reps=[2, 1, 2])
        case(f"repeat/{dt}/scalar", "repeat", [a], lambda x: np.repeat(x, 2, axis=1), repeats=[2], axis=1)
        case(f"repeat/{dt}/counts", "repeat", [a], lambda x: np.repeat(x, [1, 0, 3], axis=0), repeats=[1, 0, 3], axis=0)
    b = op_("int64", (2, 3), REV)
    case("tile/short_reps", "tile", [b], lambda x: np.tile(x, 2), reps=[2])
    case("tile/zero", "tile", [b], lambda x: np.tile(x, (0, 2)), reps=[0, 2])
    case("tile/0d", "tile", [op_("float32", ())], lambda x: np.tile(x, (2, 3)), reps=[2, 3])
    case("tile/empty_reps", "tile", [b], lambda x: np.tile(x, ()), reps=[])
    case("repeat/none", "repeat", [b], lambda x: np.repeat(x, 2), repeats=[2], axis=None)
    case("repeat/none_counts", "repeat", [b], lambda x: np.repeat(x, [1, 2, 0, 1, 1, 3]), repeats=[1, 2, 0, 1, 1, 3], axis=None)
    case("repeat/neg_axis", "repeat", [b], lambda x: np.repeat(x, 3, axis=-1), repeats=[3], axis=-1)
    case("repeat/zero", "repeat", [b], lambda x: np.repeat(x, 0, axis=0), repeats=[0], axis=0)
    case("repeat/0d", "repeat", [op_("int32", ())], lambda x: np.repeat(x, 3), repeats=[3], axis=None)
    case("repeat_err/len", "repeat", [b], lambda x: np.repeat(x, [1, 2], axis=1), repeats=[1, 2], axis=1)
    case("repeat_err/axis", "repeat", [b], lambda x: np.repeat(x, 2, axis=2), repeats=[2], axis=2)
    for shape in [(3, 3), (2,), (4, 5), (0,), ()]:
        case(f"resize/{'x'.join(map(str, shape)) or '0d'}", "resize", [b], lambda x: np.resize(x, shape), new_shape=list(shape))
    case("resize/empty_in", "resize", [op_("float32", (0, 2))], lambda x: np.resize(x, (2, 2)), new_shape=[2, 2])

    # ---- delete / insert ----
    d = op_("float32", (3, 4), [T()])
    case("delete/none", "delete", [d], lambda x: np.delete(x, [0, -1, 5]), obj=[0, -1, 5], axis=None)
    case("delete/axis1", "delete", [d], lambda x: np.delete(x, [1, 1], axis=1), obj=[1, 1], axis=1)
    case("delete/axis0_neg", "delete", [d], lambda x: np.delete(x, [-4, 2], axis=0), obj=[-4, 2], axis=0)
    case("delete/nothing", "delete", [d], lambda x: np.delete(x, np.array([], dtype=np.intp), axis=0), obj=[], axis=0)
    case("delete/all", "delete", [d], lambda x: np.delete(x, [0, 1, 2], axis=1), obj=[0, 1, 2], axis=1)
    case("delete_mask/axis1", "delete_mask", [d], lambda x: np.delete(x, np.array([True, False, True]), axis=1),
         mask=[True, False, True], axis=1)
    case("delete_mask/none", "delete_mask", [d], lambda x: np.delete(x, np.arange(12) % 5 == 0), mask=[bool(i % 5 == 0) for i in range(12)], axis=None)
    case("delete_mask_err/len", "delete_mask", [d], lambda x: np.delete(x, np.array([True, False]), axis=1), mask=[True, False], axis=1)
    for st in [[1, None, 2], [None, None, -2], [-2, None, None], [5, 1, -1], [10, 20, None]]:
        case(f"delete_slice/{st}", "delete_slice", [d], lambda x: np.delete(x, slice(*st), axis=0), start=st[0], stop=st[1],
             step=st[2] or 1, axis=0)
    case("delete_slice_err/step0", "delete_slice", [d], lambda x: np.delete(x, slice(None, None, 0), axis=0), start=None, stop=None, step=0, axis=0)
    case("delete_err/oob", "delete", [d], lambda x: np.delete(x, [4], axis=0), obj=[4], axis=0)
    case("delete_err/axis", "delete", [d], lambda x: np.delete(x, [0], axis=2), obj=[0], axis=2)
    e = op_("int32", (2, 3), REV)
    case("insert/none", "insert", [e, op_("int32", (2,), [], 1)], lambda x, v: np.insert(x, [1, 6], v), obj=[1, 6], axis=None)
    case("insert/axis1_bcast", "insert", [e, op_("int32", (), [], 1)], lambda x, v: np.insert(x, [0, 2, 2], v, axis=1),
         obj=[0, 2, 2], axis=1)
    case("insert/axis0_rows", "insert", [e, op_("int32", (1, 3), [], 1)], lambda x, v: np.insert(x, [-1], v, axis=0), obj=[-1], axis=0)
    case("insert/unsorted", "insert", [e, op_("int32", (3,), [], 2)], lambda x, v: np.insert(x, [3, 0, 3], v, axis=1),
         obj=[3, 0, 3], axis=1)
    case("insert/cast", "insert", [e, op_("float64", (2,), [], 2)], lambda x, v: np.insert(x, [1, 1], v), obj=[1, 1], axis=None)
    case("insert_err/oob", "insert", [e, op_("int32", (), [], 1)], lambda x, v: np.insert(x, [4], v, axis=1), obj=[4], axis=1)
    case("insert_err/shape", "insert", [e, op_("int32", (4,), [], 1)], lambda x, v: np.insert(x, [1, 2], v, axis=1),
         obj=[1, 2], axis=1)

    # ---- pad ----
    modes = ["constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean", "median"]
    for dt in ["int32", "uint8", "float32", "float64", "complex64", "bool"]:
        for mode in modes:
            if dt == "bool" and mode in ("mean", "median"):
                continue
            if dt.startswith("complex") and mode in ("maximum", "minimum", "mean", "median"):
                continue
            case(f"pad/{dt}/{mode}", "pad", [op_(dt, (3, 4), [T()])],
                 lambda x: np.pad(x, ((2, 1), (0, 3)), mode=mode), pad_width=[[2, 1], [0, 3]], mode=mode)
    p1 = op_("int64", (4,), REV)
    for mode in ["reflect", "symmetric", "wrap"]:
        for w in [(9, 11), (3, 0), (0, 7)]:
            case(f"pad/long/{mode}/{w[0]}_{w[1]}", "pad", [p1], lambda x: np.pad(x, [w], mode=mode), pad_width=[list(w)], mode=mode)
        case(f"pad/len1/{mode}", "pad", [op_("float32", (1, 2))], lambda x: np.pad(x, 3, mode=mode), pad_width=[[3, 3]], mode=mode)
        case(f"pad/len2/{mode}", "pad", [op_("float32", (2,))], lambda x: np.pad(x, (5, 4), mode=mode), pad_width=[[5, 4]], mode=mode)
    case("pad/constant_value", "pad", [op_("float32", (2, 2))], lambda x: np.pad(x, 1, constant_values=-2.5),
         pad_width=[[1, 1]], mode="constant", value=-2.5)
    case("pad/constant_int_value", "pad", [op_("int16", (2, 3), REV2)], lambda x: np.pad(x, ((1, 0), (2, 2)), constant_values=7),
         pad_width=[[1, 0], [2, 2]], mode="constant", value=7)
    case("pad/constant_0d", "pad", [op_("int16", ())], lambda x: np.pad(x, 2), pad_width=[[2, 2]], mode="constant")
    case("pad/constant_empty_axis", "pad", [op_("float32", (0, 2))], lambda x: np.pad(x, 1), pad_width=[[1, 1]], mode="constant")
    for mode in ["maximum", "minimum", "mean", "median"]:
        case(f"pad/stat3/{mode}", "pad", [op_("int32", (3, 5), REV2, 4)], lambda x: np.pad(x, ((2, 2), (1, 2)), mode=mode, stat_length=3),
             pad_width=[[2, 2], [1, 2]], mode=mode, stat_length=3)
        case(f"pad/stat2/{mode}", "pad", [op_("int32", (3, 5))], lambda x: np.pad(x, ((1, 2), (3, 1)), mode=mode, stat_length=2),
             pad_width=[[1, 2], [3, 1]], mode=mode, stat_length=2)
        case(f"pad/stat_f16/{mode}", "pad", [op_("float16", (2, 5), REV2)], lambda x: np.pad(x, 2, mode=mode),
             pad_width=[[2, 2]], mode=mode)
    for dt in ["int32", "uint8", "int8", "float16", "float32", "float64"]:
        for end in [0, 5, -3.5]:
            if dt == "uint8" and end < 0:
                continue
            case(f"pad/linear_ramp/{dt}/{end}", "pad", [op_(dt, (3, 4), [T()], 1)],
                 lambda x: np.pad(x, ((3, 2), (1, 4)), mode="linear_ramp", end_values=end),
                 pad_width=[[3, 2], [1, 4]], mode="linear_ramp", end_values=end)
    case("pad/3d_reflect", "pad", [op_("int8", (2, 3, 4), [{"op": "transpose", "axes": [2, 0, 1]}])],
         lambda x: np.pad(x, ((1, 1), (2, 0), (0, 5)), mode="reflect"), pad_width=[[1, 1], [2, 0], [0, 5]], mode="reflect")
    # Per-side and per-axis constant_values / stat_length / end_values: a (before, after) pair
    # for every axis, one pair per axis (a single pair broadcast), asymmetric widths, a
    # stat_length past the axis, integers mixed with floats (one float64 array in NumPy).
    T3 = [{"op": "transpose", "axes": [2, 0, 1]}]  # (2, 3, 4) -> (4, 2, 3)
    w2, w3 = [[2, 1], [0, 3]], [[1, 2], [0, 1], [3, 0]]
    for dt, v in [("int16", [-3, 5]), ("float32", [1.5, -2]), ("uint8", [0, 255]), ("bool", [0, 1]),
                  ("complex64", [2.5, -1])]:
        case(f"pad/side/constant/pair/{dt}", "pad", [op_(dt, (3, 4), [T()])],
             lambda x: np.pad(x, w2, constant_values=v), pad_width=w2, mode="constant", value=v)
    for dt, v in [("int32", [[1, 2], [3, 4], [5, 6]]), ("float64", [[-1.5, 2], [0.25, 4], [5, -6]]),
                  ("int8", [[1, 2.7], [-3, 4], [-128, 127.9]]), ("uint16", [[7, 8]])]:
        case(f"pad/side/constant/axes/{dt}", "pad", [op_(dt, (2, 3, 4), T3)],
             lambda x: np.pad(x, w3, constant_values=v), pad_width=w3, mode="constant", value=v)
    case("pad/side/constant/axes_2d", "pad", [op_("float16", (3, 4), REV2)],
         lambda x: np.pad(x, ((1, 0), (2, 2)), constant_values=((9, -9), (0.5, 3))),
         pad_width=[[1, 0], [2, 2]], mode="constant", value=[[9, -9], [0.5, 3]])
    for mode in ["maximum", "minimum", "mean", "median"]:
        for dt in ["int32", "float32"]:
            case(f"pad/side/{mode}/pair/{dt}", "pad", [op_(dt, (3, 5), REV2, 4)],
                 lambda x: np.pad(x, ((2, 1), (1, 3)), mode=mode, stat_length=(1, 3)),
                 pad_width=[[2, 1], [1, 3]], mode=mode, stat_length=[1, 3])
            case(f"pad/side/{mode}/long/{dt}", "pad", [op_(dt, (3, 5), [], 2)],
                 lambda x: np.pad(x, ((2, 2), (3, 1)), mode=mode, stat_length=(2, 8)),
                 pad_width=[[2, 2], [3, 1]], mode=mode, stat_length=[2, 8])
        for dt in ["int16", "uint8", "float64"]:
            st = [[1, 2], [3, 1], [2, 9]]
            case(f"pad/side/{mode}/axes/{dt}", "pad", [op_(dt, (4, 5, 6), [], 1)],
                 lambda x: np.pad(x, ((1, 2), (2, 0), (1, 3)), mode=mode, stat_length=st),
                 pad_width=[[1, 2], [2, 0], [1, 3]], mode=mode, stat_length=st)
        case(f"pad/side/{mode}/axes_T", "pad", [op_("int64", (2, 3, 4), T3, 3)],
             lambda x: np.pad(x, w3, mode=mode, stat_length=((4, 1), (2, 2), (1, 7))),
             pad_width=w3, mode=mode, stat_length=[[4, 1], [2, 2], [1, 7]])
        case(f"pad/side/{mode}/axes_one", "pad", [op_("float64", (3, 4), [T()], 5)],
             lambda x: np.pad(x, ((2, 1), (1, 2)), mode=mode, stat_length=((2, 1),)),
             pad_width=[[2, 1], [1, 2]], mode=mode, stat_length=[[2, 1]])
    # bool: NumPy's linspace floors integer dtypes only, so a fractional ramp value is true
    for dt, ends in [("int32", [5, -3.5]), ("float32", [-2.5, 7]), ("uint8", [0, 9]), ("float64", [[0, 5], [-2.5, 7]]),
                     ("bool", [0, 1])]:
        case(f"pad/side/linear_ramp/2d/{dt}", "pad", [op_(dt, (3, 4), [T()], 1)],
             lambda x: np.pad(x, ((3, 2), (1, 4)), mode="linear_ramp", end_values=ends),
             pad_width=[[3, 2], [1, 4]], mode="linear_ramp", end_values=ends)
    # One pair per axis reaches linspace as Python floats (weak): float16/float32/complex64
    # arrays ramp in their own precision; a value or a pair is a float64 NumPy scalar.
    for dt in ["int8", "uint16", "float16", "float32", "complex64", "float64"]:
        for tag, ends in [("exact", [[1, -4], [0, 2.5], [-3, 6]]), ("inexact", [[0.1, 4.3], [1 / 3, 2.5], [3, 6.7]])]:
            case(f"pad/side/linear_ramp/3d/{dt}/{tag}", "pad", [op_(dt, (2, 3, 4), T3, 2)],
                 lambda x: np.pad(x, w3, mode="linear_ramp", end_values=ends),
                 pad_width=w3, mode="linear_ramp", end_values=ends)
        if dt != "float64":
            case(f"pad/side/linear_ramp/pair/{dt}", "pad", [op_(dt, (2, 3, 4), T3, 2)],
                 lambda x: np.pad(x, w3, mode="linear_ramp", end_values=(0.1, 6.7)),
                 pad_width=w3, mode="linear_ramp", end_values=[0.1, 6.7])
    # NumPy does not read the values of a non-constant mode for an empty array; a 0-d array has
    # no side for a stat_length of 0.
    case("pad/side/empty_unread", "pad", [op_("float32", (0, 3))],
         lambda x: np.pad(x, ((0, 0), (1, 1)), mode="maximum", stat_length=((1, 1), (1, 1), (1, 1))),
         pad_width=[[0, 0], [1, 1]], mode="maximum", stat_length=[[1, 1], [1, 1], [1, 1]])
    case("pad/side/empty_stat0", "pad", [op_("float32", (0, 3))],
         lambda x: np.pad(x, ((0, 0), (1, 1)), mode="minimum", stat_length=0),
         pad_width=[[0, 0], [1, 1]], mode="minimum", stat_length=0)
    case("pad/side/0d_stat0", "pad", [op_("int32", ())], lambda x: np.pad(x, 2, mode="maximum", stat_length=0),
         pad_width=[[2, 2]], mode="maximum", stat_length=0)
    for name, kw in [("constant", {"constant_values": [[1, 2], [3, 4], [5, 6]]}),
                     ("constant_none", {"constant_values": []}),
                     ("mean", {"mode": "mean", "stat_length": [[1, 2], [3, 4], [5, 6]]}),
                     ("linear_ramp", {"mode": "linear_ramp", "end_values": [[1, 2], [3, 4], [5, 6]]}),
                     ("stat0_side", {"mode": "maximum", "stat_length": [[2, 1], [0, 3]]}),
                     ("stat0_unpadded", {"mode": "minimum", "stat_length": [[1, 0], [2, 2]]}),
                     ("overflow", {"constant_values": [[1, 300], [0, 0]]}),
                     ("overflow_unpadded", {"constant_values": [[1, 1], [-200, 0]]}),
                     ("float_overflow", {"constant_values": [[1, 2], [3, 300.5]]})]:
        wid = [[1, 1], [0, 1]] if name == "stat0_unpadded" else [[1, 1], [1, 0]]
        args = {"pad_width": wid, "mode": kw.get("mode", "constant")}
        if "constant_values" in kw:
            args["value"] = kw["constant_values"]
        if "stat_length" in kw:
            args["stat_length"] = kw["stat_length"]
        if "end_values" in kw:
            args["end_values"] = kw["end_values"]
        case(f"pad_err/side/{name}", "pad", [op_("int8", (2, 2))], lambda x: np.pad(x, wid, **kw), **args)
    case("pad_err/empty_axis", "pad", [op_("float32", (0, 2))], lambda x: np.pad(x, 1, mode="edge"), pad_width=[[1, 1]], mode="edge")
    case("pad_err/width", "pad", [op_("float32", (2, 2, 2))], lambda x: np.pad(x, ((1, 1), (1, 1))), pad_width=[[1, 1], [1, 1]], mode="constant")
    case("pad_err/stat0", "pad", [op_("float32", (2, 2))], lambda x: np.pad(x, 1, mode="maximum", stat_length=0),
         pad_width=[[1, 1]], mode="maximum", stat_length=0)

    # ---- copyto(where=), ascontiguousarray, asfortranarray ----
    def copyto_where(d, s, m):
        d = d.copy()
        np.copyto(d, s, where=m)
        return d
    for dt in ["int32", "float32", "complex128"]:
        case(f"copyto_where/{dt}", "copyto_where", [op_(dt, (3, 4)), op_(dt, (4,), REV, 3), op_("bool", (3, 1), [], 1)],
             copyto_where)
    case("copyto_where/cast_T", "copyto_where", [op_("float64", (4, 3), [T()]), op_("int16", (3, 4), [], 1), op_("bool", (3, 4), REV2, 2)],
         copyto_where)
    case("copyto_where_err/cast", "copyto_where", [op_("int32", (2,)), op_("float32", (2,)), op_("bool", (2,))], copyto_where)
    case("copyto_where_err/shape", "copyto_where", [op_("int32", (2, 3)), op_("int32", (2,)), op_("bool", (3,))], copyto_where)
    for vn, (shape, steps) in views.items():
        case(f"ascontiguousarray/{vn}", "ascontiguousarray", [op_("uint16", shape, steps)], np.ascontiguousarray)
        case(f"asfortranarray/{vn}", "asfortranarray", [op_("uint16", shape, steps)], np.asfortranarray)

    # ---- insert with a scalar index, trim_zeros, block ----
    e2 = op_("int32", (2, 3), REV)
    case("insert_at/axis1_list", "insert_at", [e2, op_("int32", (2,), [], 1)], lambda x, v: np.insert(x, 1, v, axis=1), index=1, axis=1)
    case("insert_at/axis1_col", "insert_at", [e2, op_("int32", (2, 1), [], 1)], lambda x, v: np.insert(x, 1, v, axis=1), index=1, axis=1)
    case("insert_at/axis0_end", "insert_at", [e2, op_("float32", (), [], 1)], lambda x, v: np.insert(x, 2, v, axis=0), index=2, axis=0)
    case("insert_at/neg_none", "insert_at", [e2, op_("int32", (3,), [], 2)], lambda x, v: np.insert(x, -2, v), index=-2, axis=None)
    case("insert_at_err/oob", "insert_at", [e2, op_("int32", (), [], 1)], lambda x, v: np.insert(x, -4, v, axis=1), index=-4, axis=1)
    for trim in ["fb", "f", "b"]:
        case(f"trim_zeros/{trim}", "trim_zeros", [operand(g, np.array([0, 0, 3, 0, 5, 0, 0], dtype=np.int16))],
             lambda x: np.trim_zeros(x, trim), trim=trim)
    case("trim_zeros/all_zero", "trim_zeros", [operand(g, np.zeros(4, dtype=np.float32))], lambda x: np.trim_zeros(x), trim="fb")
    case("trim_zeros/none", "trim_zeros", [operand(g, np.array([1.5, 0, -2], dtype=np.float64))], lambda x: np.trim_zeros(x), trim="fb")
    case("trim_zeros/bool_rev", "trim_zeros", [operand(g, np.array([False, True, False, True, False, False]), REV)],
         lambda x: np.trim_zeros(x), trim="fb")
    case("trim_zeros/size0", "trim_zeros", [operand(g, np.zeros(0, dtype=np.int32))], lambda x: np.trim_zeros(x), trim="fb")
    z2 = np.zeros((4, 5), dtype=np.float32)
    z2[1, 2], z2[2, 3] = 1.5, -2
    for trim in ["fb", "f", "B"]:
        for axis in [None, 0, -1]:
            case(f"trim_zeros/2d/{trim}/{axis}", "trim_zeros", [operand(g, z2, [T()])],
                 lambda x: np.trim_zeros(x, trim, axis=axis), trim=trim, axis=axis)
    case("trim_zeros/2d_all_zero", "trim_zeros", [operand(g, np.zeros((2, 3), dtype=np.int8))], lambda x: np.trim_zeros(x), trim="fb")
    case("trim_zeros/2d_all_zero_axis", "trim_zeros", [operand(g, np.zeros((2, 3), dtype=np.int8))], lambda x: np.trim_zeros(x, axis=1),
         trim="fb", axis=1)
    case("trim_zeros/2d_size0", "trim_zeros", [operand(g, np.zeros((0, 3), dtype=np.int8))], lambda x: np.trim_zeros(x), trim="fb")
    case("trim_zeros/complex", "trim_zeros", [operand(g, np.array([0, 1j, 0, 2], dtype=np.complex64))], lambda x: np.trim_zeros(x), trim="fb")
    case("trim_zeros_err/trim", "trim_zeros", [operand(g, np.array([0, 1], dtype=np.int8))], lambda x: np.trim_zeros(x, "x"), trim="x")
    case("trim_zeros_err/axis", "trim_zeros", [operand(g, z2)], lambda x: np.trim_zeros(x, axis=2), trim="fb", axis=2)
    # block: "structure" nests input indices as the lists.
    def blk(structure, ops):
        def build(arrs):
            def rec(s):
                return [rec(t) for t in s] if isinstance(s, list) else arrs[s]
            return np.block(rec(structure))
        return ops, build
    for name, structure, ops in [
        ("2x2", [[0, 1], [2, 3]], [op_("int32", (2, 2)), op_("int32", (2, 3), [], 1), op_("int32", (1, 2), [], 2), op_("int32", (1, 3), [], 3)]),
        ("1d", [0, 1, 2], [op_("float32", (3,), REV), op_("float32", (2,), [], 1), op_("float32", (), [], 2)]),
        ("promote_lift", [[0], [1]], [op_("int8", (3,)), op_("float64", (2, 3), [T(), T()], 1)]),
        ("3d", [[[0, 1]], [[2, 3]]], [op_("int16", (2, 1, 2)), op_("int16", (2, 1, 1), [], 1), op_("int16", (1, 1, 1), [], 2), op_("int16", (1, 1, 2), [], 3)]),
        ("scalars2d", [[0, 1], [2, 3]], [op_("int64", ()), op_("int64", (), [], 1), op_("int64", (), [], 2), op_("int64", (), [], 3)]),
        ("err_depth", [[0, 1], 2], [op_("int32", (2,)), op_("int32", (2,)), op_("int32", (2,))]),
        ("err_shape", [[0, 1], [2]], [op_("int32", (2, 2)), op_("int32", (2, 2)), op_("int32", (3, 3))]),
        ("err_empty", [[0], []], [op_("int32", (2,))]),
    ]:
        ops_, fn = blk(structure, ops)
        case(f"block/{name}", "block", ops_, lambda *xs: fn(xs), structure=structure)
    g.write()

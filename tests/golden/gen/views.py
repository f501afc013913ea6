"""View goldens: view recipes (transpose, slices, broadcast, reshape, ...) copied, and the
recipes NumPy refuses."""

from .common import *  # noqa: F401,F403


def gen_views():
    g = Group("views")
    base3 = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
    base2 = np.arange(6 * 7, dtype=np.float32).reshape(6, 7) * 0.5 - 3
    recipes = {
        "slice_1:3_step2": (base2, [sl([1, 3], [None, None, 2])]),
        "reverse_rows": (base2, [sl([None, None, -1])]),
        "reverse_both": (base2, [sl([None, None, -1], [None, None, -1])]),
        "index_last": (base2, [sl(-1)]),
        "index_col": (base2, [sl("...", 2)]),
        "neg_step_bounds": (base2, [sl([-2, 0, -1], [5, 1, -2])]),
        "step_gt_len": (base2, [sl([None, None, 10], [None, None, 3])]),
        "empty_slice": (base2, [sl([5, 2])]),
        "clamped": (base2, [sl([-100, 100], [3, 100])]),
        "newaxis": (base2, [sl("newaxis", [None, None, 2], "...", "newaxis")]),
        "T": (base2, [T()]),
        "T_then_slice": (base2, [T(), sl([None, None, -2], [1, None])]),
        "transpose3": (base3, [{"op": "transpose", "axes": [2, 0, 1]}]),
        "transpose3_neg": (base3, [{"op": "transpose", "axes": [-1, -3, -2]}]),
        "swapaxes": (base3, [{"op": "swapaxes", "a": 0, "b": 2}]),
        "reshape_contig": (base3, [{"op": "reshape", "shape": [4, -1]}]),
        "reshape_of_T": (base2, [T(), {"op": "reshape", "shape": [-1]}]),
        "reshape_of_slice": (base3, [sl("...", [None, None, 2]), {"op": "reshape", "shape": [3, 4]}]),
        "broadcast": (np.arange(4, dtype=np.int64), [bcast((3, 4))]),
        "broadcast_then_slice": (np.arange(4, dtype=np.int64), [bcast((3, 2, 4)), sl([None, None, -1], 1, [1, 3])]),
        "expand_dims": (base2, [{"op": "expand_dims", "axis": 1}]),
        "squeeze": (np.arange(3, dtype=np.uint8).reshape(1, 3, 1), [{"op": "squeeze"}]),
        "int_index_3d": (base3, [sl(1, -1)]),
        "bool_reverse": (np.array([True, False, False, True, True]), [sl([None, None, -1])]),
        "f16_step": (np.arange(10, dtype=np.float16) / 4, [sl([1, None, 3])]),
        "i8_T": (np.arange(-6, 6, dtype=np.int8).reshape(3, 4), [T()]),
        "u16_rev_step": (np.arange(20, dtype=np.uint16).reshape(4, 5) * 1000, [sl([None, None, -1], [None, None, -2])]),
        "f64_0d_from_index": (np.arange(6, dtype=np.float64).reshape(2, 3), [sl(1, 2)]),
    }
    for name, (base, steps) in recipes.items():
        ia, a = operand(g, base, steps)
        record(g, f"view/{name}", "copy", [ia], lambda: a.copy())
    # Errors NumPy raises for views.
    for name, (base, steps) in {
        "index_oob": (base2, [sl(6)]),
        "index_oob_neg": (base2, [sl(0, -8)]),
        "zero_step": (base2, [sl([None, None, 0])]),
        "too_many": (base2, [sl(0, 0, 0)]),
        "reshape_bad": (base3, [{"op": "reshape", "shape": [5, -1]}]),
        "broadcast_bad": (base2, [bcast((6, 3))]),
    }.items():
        c = {"id": f"view_error/{name}", "op": "copy", "inputs": [{"array": g.arr(base), "view": steps}], "kwargs": {}}
        try:
            apply_view(base, steps)
            raise AssertionError(name)
        except (IndexError, ValueError, TypeError) as e:
            c["error"] = type(e).__name__
            c["message"] = str(e)
        g.case(**c)
    g.write()

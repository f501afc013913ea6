"""Creation goldens: zeros, ones, full, eye, arange, linspace per dtype."""

from .common import *  # noqa: F401,F403


def gen_creation():
    g = Group("creation")
    for dt in DTYPES:
        record(g, f"zeros/{dt}", "zeros", [], lambda: np.zeros((2, 3), dt), {"shape": [2, 3], "dtype": dt})
        record(g, f"ones/{dt}", "ones", [], lambda: np.ones((3, 1, 2), dt), {"shape": [3, 1, 2], "dtype": dt})
        fv = 7 if dt != "bool" else 1
        record(g, f"full/{dt}", "full", [], lambda: np.full((4,), fv, dt), {"shape": [4], "value": fv, "dtype": dt})
        record(g, f"zeros0d/{dt}", "zeros", [], lambda: np.zeros((), dt), {"shape": [], "dtype": dt})
        record(g, f"ones_empty/{dt}", "ones", [], lambda: np.ones((0, 3), dt), {"shape": [0, 3], "dtype": dt})
        record(g, f"eye/{dt}", "eye", [], lambda: np.eye(3, dtype=dt), {"n": 3, "m": None, "k": 0, "dtype": dt})
    record(g, "full/float32/frac", "full", [], lambda: np.full((2, 2), 0.1, np.float32), {"shape": [2, 2], "value": 0.1, "dtype": "float32"})
    record(g, "full/float64/nan", "full", [], lambda: np.full((3,), np.nan), {"shape": [3], "value": "nan", "dtype": "float64"})
    record(g, "full/int32/from_float", "full", [], lambda: np.full((2,), 7.9).astype(np.int32), {"shape": [2], "value": 7.9, "dtype": "int32"})
    aranges = [
        (0, 10, 1, "int32"), (0, 10, 1, "int64"), (3, 20, 4, "int64"), (10, 0, -3, "int32"),
        (-5, 5, 2, "int16"), (0, 1, 0.1, "float64"), (0, 1, 0.1, "float32"), (-1.5, 2.2, 0.5, "float32"),
        (2.5, -1.0, -0.5, "float64"), (1, 1, 1, "float64"), (5, 0, 1, "int64"), (0, 300, 1, "uint8"),
        (0, 5, 1, "float16"), (0.5, 4, 1, "int32"), (-3, 3, 1, "uint8"),
    ]
    for start, stop, step, dt in aranges:
        def fn(start=start, stop=stop, step=step, dt=dt):
            if np.dtype(dt).kind in "iu" and any(isinstance(v, float) for v in (start, stop, step)):
                # Rust's arange_on takes f64 bounds; NumPy with integer dtype and float bounds.
                return np.arange(start, stop, step, dtype=dt)
            if np.dtype(dt).kind in "iu":
                with np.errstate(all="ignore"):
                    return np.arange(start, stop, step, dtype=np.int64).astype(dt)
            return np.arange(start, stop, step, dtype=dt)
        record(g, f"arange/{start}:{stop}:{step}/{dt}", "arange", [], fn,
               {"start": start, "stop": stop, "step": step, "dtype": dt})
    linspaces = [(0, 1, 5, True, "float64"), (0, 1, 5, False, "float64"), (-1, 1, 7, True, "float32"),
                 (2, 3, 1, True, "float64"), (2, 3, 0, True, "float64"), (0, 10, 4, False, "float32"),
                 (-5, 5, 7, True, "int32"), (0, 10, 6, True, "int64"), (1, 0, 11, True, "float64"),
                 (0, 1, 3, True, "float16")]
    for start, stop, num, ep, dt in linspaces:
        record(g, f"linspace/{start}:{stop}:{num}:{ep}/{dt}", "linspace", [],
               lambda: np.linspace(start, stop, num, endpoint=ep, dtype=dt),
               {"start": start, "stop": stop, "num": num, "endpoint": ep, "dtype": dt})
    eyes = [(4, 5, 1, "float32"), (3, None, -1, "int64"), (4, None, 5, "float64"), (2, 4, -3, "bool"),
            (5, 3, 2, "uint8"), (1, None, 0, "float16"), (0, None, 0, "float64")]
    for n, m, k, dt in eyes:
        record(g, f"eye/{n}x{m}/k{k}/{dt}", "eye", [], lambda: np.eye(n, m, k, dtype=dt),
               {"n": n, "m": m, "k": k, "dtype": dt})
    g.write()

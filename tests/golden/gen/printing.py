"""Printing goldens: NumPy's str and repr of arrays."""

from .common import *  # noqa: F401,F403


def _wide_middle():
    a = np.linspace(-5.0, 7.25, 3000).reshape(30, 100)
    a[15, 50] = 1.0e12
    a[3, 3] = -123456.5
    return a


def gen_printing():
    g = Group("printing")
    arrays = {
        "int64_1d": np.arange(10),
        "int32_1d": np.arange(10, dtype=np.int32),
        "float64_2d": np.array([[1.0, 2.5, -3.0], [0.125, 10.0, 6.0]]),
        "float32_2d": np.array([[1.0, 2.5], [3.0, 4.0]], dtype=np.float32),
        "float64_int_valued": np.array([[0.0, 1.0], [2.0, 3.0]]),
        "int32_2d_neg": np.array([[1, -20, 3], [400, 5, -6]], dtype=np.int32),
        "bool_1d": np.array([True, False, True]),
        "float64_special": np.array([np.nan, np.inf, -1.5, 0.0]),
        "float64_small": np.array([1e-5, 1.0, 2.0]),
        "int64_3d": np.arange(8).reshape(2, 2, 2),
        "uint8_1d": np.array([0, 255, 7], dtype=np.uint8),
        "float64_big": np.arange(2000, dtype=np.float64),
        # Summarised (more than 1000 elements): only the edges are printed, and only they set
        # the column width (the wide values in the middle must not).
        "float64_summary_2d": _wide_middle(),
        "int64_summary_3d": np.arange(5 * 4 * 100).reshape(5, 4, 100) - 1000,
        "float32_summary_1d": np.arange(1001, dtype=np.float32) * np.float32(0.1),
        "bool_summary_2d": (np.arange(1500) % 3 == 0).reshape(30, 50),
        "int32_summary_tall": np.arange(4000, dtype=np.int32).reshape(2000, 2),
    }
    for name, a in arrays.items():
        ia, _ = operand(g, a)
        g.case(id=f"print/{name}", op="print", inputs=[ia], kwargs={}, str=str(a), repr=repr(a))
    g.write()

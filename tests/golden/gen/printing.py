"""Printing goldens: NumPy's str and repr of arrays."""

from .common import *  # noqa: F401,F403


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
    }
    for name, a in arrays.items():
        ia, _ = operand(g, a)
        g.case(id=f"print/{name}", op="print", inputs=[ia], kwargs={}, str=str(a), repr=repr(a))
    g.write()

#!/usr/bin/env python3
"""Golden generator for cupy-rs's integration tests (NumPy/SciPy are the oracle).

Pinned versions (checked at start; regenerate with the same ones, or bump both the pins and the
goldens in one commit):
    numpy 2.2.6
    scipy 1.17.1

Run from anywhere:  python3 tests/golden/gen.py
Each group G (creation, astype, ufuncs, ufuncs2, reductions, linalg, signal, views, printing, sorting,
custom, indexing, complex, math, stats, ufunc_methods, manipulation, nanstats, quantiles, differences,
histograms, indexing2, sets, fft, fft_radix, scipy_fft, sparse, sparse_linalg, sparse2, sparse_linalg2, sparse3, array_api, special) has its generator in gen/G.py (a function gen_G), sharing the helpers
of gen/common.py (the pin check, Group, view recipes, record, shared operand values).
`gen.py G...` regenerates only the named groups. Writes, per group:
    tests/golden/G.npys   every array of the group, each a complete .npy file (format 1.0),
                          concatenated; deduplicated by content
    tests/golden/G.json   {"numpy":..., "scipy":..., "arrays": {name: [offset, length]},
                           "cases": [...]}

A case is a JSON object:
    id        unique, human readable ("add/float32/T")
    op        the routine ("add", "sum", "matmul", "convolve2d", "arange", ...)
    inputs    list of operands, each {"array": name, "view": [steps]} or a weak (Python) scalar
              {"weak": "int"|"float"|"bool", "value": v} (floats: a number or "nan"/"inf"/"-inf")
    kwargs    op arguments (axis, keepdims, mode, dtype, start/stop/step, ...)
    expected  array name of NumPy's result (C order), absent when an error is expected
    dtype     NumPy's result dtype name
    shape     NumPy's result shape
    error     NumPy's exception class name when the call raises (TypeError, OverflowError,
              ValueError); the Rust side maps it to the error variant it expects
    scale     (reductions, matmul, convolutions) array name of the same op applied to |inputs|
              (the condition scale the float tolerance is relative to), and "n" the reduction length

A view step (applied on the device to the uploaded base array, and here to build the expected
result) is one of:
    {"op": "T"}                        a.T
    {"op": "transpose", "axes": [...]}
    {"op": "slice", "items": [...]}    basic indexing; an item is an int, [start, stop, step] with
                                       nulls, "newaxis" or "..."
    {"op": "broadcast_to", "shape": [...]}
    {"op": "reshape", "shape": [...]}
    {"op": "swapaxes", "a": i, "b": j}
    {"op": "expand_dims", "axis": i}
    {"op": "squeeze"}
"""

import importlib
import os
import sys

# The groups, in the order a full run writes them.
GROUPS = ["creation", "astype", "ufuncs", "ufuncs2", "reductions", "linalg", "signal", "views", "printing",
          "custom", "indexing", "sorting", "complex", "math", "stats", "ufunc_methods", "manipulation",
          "nanstats", "quantiles", "differences", "histograms", "indexing2", "sets", "fft", "fft_radix", "scipy_fft", "sparse", "sparse_linalg", "sparse2", "sparse_linalg2", "sparse3", "array_api", "special"]


def run(name):
    """Runs the generator of one group (gen/<name>.py's gen_<name>)."""
    if name not in GROUPS:
        sys.exit(f"unknown golden group {name!r}; groups: {' '.join(GROUPS)}")
    getattr(importlib.import_module(f"gen.{name}"), f"gen_{name}")()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    only = sys.argv[1:]
    if only:  # python3 tests/golden/gen.py sorting  -- regenerate named groups only
        for name in only:
            run(name)
        sys.exit(0)
    for name in GROUPS:
        run(name)
    from gen.common import HERE
    total = sum(os.path.getsize(os.path.join(HERE, f)) for f in os.listdir(HERE) if f.endswith((".npys", ".json")))
    print(f"total {total} bytes")

#!/usr/bin/env python3
"""Writes tests/data/streams.npz, the NumPy results of tests/streams.rs's two-stream pipeline
(numpy 2.2.6). Every value is a small integer in float32, so the comparison is exact.

Run from anywhere: python3 tests/data/streams.py
"""
import os

import numpy as np

assert np.__version__ == "2.2.6", np.__version__

a = ((np.arange(64 * 64) % 7) - 3).astype(np.float32).reshape(64, 64)
b = a * 2 + 1                 # stream 1
c = b @ a.T                   # stream 2 (reads b written on stream 1)
d = c.sum(axis=0)             # stream 1 (reads c written on stream 2)
e = b - 1                     # stream 1
b[...] = 3                    # stream 2 (writes b after stream 1 read it)
f = b + d                     # stream 1 (reads b written on stream 2)
g = np.cumsum(d)              # stream 2
h = np.sort(-g)               # stream 1
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "streams.npz")
np.savez(out, a=a, c=c, d=d, e=e, f=f, g=g, h=h)
print("wrote", out)

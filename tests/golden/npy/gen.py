#!/usr/bin/env python3
"""Writes the .npy/.npz goldens of tests/io.rs with NumPy (pinned as tests/golden/gen.py pins it).

Run from anywhere:  python3 tests/golden/npy/gen.py
Writes, beside this script, files NumPy itself wrote (np.save, np.lib.format.write_array with
versions 1.0-3.0, np.savez, np.savez_compressed) and manifest.json:
    {"numpy": version, "files": {file: {"dtype", "shape", "fortran", "c_bytes"}},
     "npz": {file: {member: {"dtype", "shape", "c_bytes"}}}, "refused": {file: reason}}
where c_bytes is the hex of the array's elements in C order, little-endian (what cupy-rs's
to_bytes returns). The test loads every file on every backend and compares bytes exactly, and
saves each C-order little-endian array back and compares the whole file with NumPy's.
"""
import io, json, os, sys
import numpy as np

assert np.__version__ == "2.2.6", f"numpy {np.__version__}: pinned 2.2.6"
here = os.path.dirname(os.path.abspath(__file__))
for f in os.listdir(here):
    if f.endswith((".npy", ".npz")):
        os.remove(os.path.join(here, f))
rng = np.random.default_rng(20261201)
files, npz, refused = {}, {}, {}

def c_bytes(a):
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes().hex()

def values(dtype, shape):
    n = int(np.prod(shape))
    if dtype == np.bool_:
        v = rng.integers(0, 2, n).astype(np.bool_)
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        v[:2] = [info.min, info.max][: min(2, n)] if n >= 2 else v[:2]
    else:
        real = np.finfo(dtype).dtype
        v = (rng.standard_normal(n) * 100).astype(real)
        specials = np.array([np.nan, -0.0, np.inf, -np.inf, np.finfo(real).tiny / 4], dtype=real)
        v[: min(n, 5)] = specials[: min(n, 5)]
        if np.issubdtype(dtype, np.complexfloating):
            v = v + 1j * (rng.standard_normal(n) * 10).astype(real)
            v = v.astype(dtype)
    return v.reshape(shape)

def save(name, a, **kw):
    path = os.path.join(here, name)
    if kw:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, a, **kw)
    else:
        np.save(path, a)
    files[name] = {"dtype": a.dtype.name if a.dtype.byteorder in "=<|" else a.dtype.newbyteorder("=").name,
                   "shape": list(a.shape), "fortran": bool(a.flags.f_contiguous and not a.flags.c_contiguous),
                   "c_bytes": c_bytes(a)}

dtypes = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
for dt in dtypes:
    save(f"{np.dtype(dt).name}.npy", values(dt, (2, 3)))
save("float32_0d.npy", np.array(np.float32(3.5)))
save("int64_1d.npy", np.arange(7, dtype=np.int64))
save("float64_empty.npy", np.zeros((0, 3)))
save("uint8_3d.npy", values(np.uint8, (2, 3, 4)))
for dt in [">f8", ">i4", ">c8", ">u2", ">f2"]:
    a = values(np.dtype(dt).newbyteorder("="), (3, 2)).astype(dt)
    save(f"big_{np.dtype(dt).newbyteorder('=').name}.npy", a)
save("fortran_float32.npy", np.asfortranarray(values(np.float32, (3, 4))))
save("fortran_complex128_3d.npy", np.asfortranarray(values(np.complex128, (2, 3, 2))))
save("version2_int16.npy", values(np.int16, (4, 2)), version=(2, 0))
save("version3_float64.npy", values(np.float64, (5,)), version=(3, 0))

np.save(os.path.join(here, "refused_object.npy"), np.array([1, "a", None], dtype=object), allow_pickle=True)
refused["refused_object.npy"] = "pickle"
np.save(os.path.join(here, "refused_unicode.npy"), np.array(["ab", "c"]))
refused["refused_unicode.npy"] = "strings"
np.save(os.path.join(here, "refused_record.npy"), np.zeros(2, dtype=[("x", "<f4"), ("y", "<i4")]))
refused["refused_record.npy"] = "structured"
np.save(os.path.join(here, "refused_datetime.npy"), np.array(["2026-12-01"], dtype="datetime64[D]"))
refused["refused_datetime.npy"] = "datetimes"

members = {"a": values(np.float32, (3, 3)), "b": np.arange(5, dtype=np.int32),
           "flags": values(np.bool_, (4,)), "z": values(np.complex64, (2,))}
np.savez(os.path.join(here, "stored.npz"), **members)
np.savez_compressed(os.path.join(here, "deflated.npz"), **members)
np.savez(os.path.join(here, "positional.npz"), np.arange(3.0), np.ones((2, 2), np.int8))
member_info = {k: {"dtype": v.dtype.name, "shape": list(v.shape), "c_bytes": c_bytes(v)} for k, v in members.items()}
npz["stored.npz"] = member_info
npz["deflated.npz"] = member_info
npz["positional.npz"] = {
    "arr_0": {"dtype": "float64", "shape": [3], "c_bytes": c_bytes(np.arange(3.0))},
    "arr_1": {"dtype": "int8", "shape": [2, 2], "c_bytes": c_bytes(np.ones((2, 2), np.int8))},
}
with open(os.path.join(here, "manifest.json"), "w") as f:
    json.dump({"numpy": np.__version__, "files": files, "npz": npz, "refused": refused}, f, indent=1, sort_keys=True)
print(f"wrote {len(files)} .npy, {len(npz)} .npz, {len(refused)} refused files to {here}")

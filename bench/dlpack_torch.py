"""cupy-rs <-> PyTorch through DLPack without a copy (issue 16): loads the cdylib example
`dlpack_torch` with ctypes, hands a cupy-rs array to torch.utils.dlpack.from_dlpack and a torch
tensor to cupy-rs, and checks that the data pointer is the same and the values agree.

    CUPY_BACKEND=cuda python3 bench/dlpack_torch.py path/to/libdlpack_torch.so
"""
import ctypes
import json
import sys

import torch
import torch.utils.dlpack as tdl

lib = ctypes.CDLL(sys.argv[1])
lib.cupy_rs_export_arange.restype = ctypes.c_void_p
lib.cupy_rs_export_arange.argtypes = [ctypes.c_int64, ctypes.c_float, ctypes.POINTER(ctypes.c_uint64)]
lib.cupy_rs_import_sum.restype = ctypes.c_double
lib.cupy_rs_import_sum.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)]
lib.cupy_rs_last_error.restype = ctypes.c_char_p
lib.cupy_rs_device_label.restype = ctypes.c_char_p
capi = ctypes.pythonapi
capi.PyCapsule_New.restype = ctypes.py_object
capi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capi.PyCapsule_GetPointer.restype = ctypes.c_void_p
capi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capi.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

out = {"device": lib.cupy_rs_device_label().decode()}
n = 1 << 20
addr = ctypes.c_uint64(0)
p = lib.cupy_rs_export_arange(n, 0.5, ctypes.byref(addr))
if not p:
    sys.exit("export failed: %s" % lib.cupy_rs_last_error())
t = tdl.from_dlpack(capi.PyCapsule_New(p, b"dltensor", None))
out["to_torch_device"] = str(t.device)
out["to_torch_same_pointer"] = t.data_ptr() == addr.value
out["to_torch_values_ok"] = bool(torch.equal(t.cpu(), torch.arange(n, dtype=torch.float32) * 0.5))

dev = "cuda" if out["to_torch_device"].startswith("cuda") else "cpu"
x = (torch.arange(3 * 1000, dtype=torch.float32, device=dev).reshape(3, 1000) * 2.0)[:, ::3]
if dev == "cuda":
    torch.cuda.synchronize()
cap = tdl.to_dlpack(x)
ptr = capi.PyCapsule_GetPointer(cap, b"dltensor")
got = lib.cupy_rs_import_sum(ptr, ctypes.byref(addr))
if got != got:
    sys.exit("import failed: %s" % lib.cupy_rs_last_error())
capi.PyCapsule_SetName(cap, b"used_dltensor")  # consumed: torch must not delete it again
out["from_torch_same_pointer"] = x.data_ptr() == addr.value
out["from_torch_sum"] = got
out["from_torch_sum_ok"] = got == float(x.double().sum())
del t, x, cap
if dev == "cuda":
    torch.cuda.synchronize()
print(json.dumps(out))
ok = all(v for k, v in out.items() if k.endswith("_ok") or k.endswith("_pointer"))
print("dlpack torch round trip:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)

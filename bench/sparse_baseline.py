"""CuPy/PyTorch anchors of the sparse cases of examples/bench (issue 18), timed with CUDA events,
one JSON line per case (the names `examples/bench` prints):
  sparse_spmv_f64_poisson_4000   A @ x, A the 2-D 5-point Poisson matrix of a 4000^2 grid
  sparse_spgemm_f64_poisson_4000 A @ A
  sparse_cg_1000_500it           cg(A, b) on the 1000^2 grid, exactly 500 iterations
`--quick` uses the bench's quick sizes (200, 200, 100 with 50 iterations)."""
import json, sys
import numpy as np
import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cspl

quick = "--quick" in sys.argv


def bench(fn, reps=10, warm=3):
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort()
    return ts[len(ts) // 2]


def out(name, lib, ms, **kw):
    print(json.dumps(dict(case=name, lib=lib, ms=round(ms, 4), **kw)), flush=True)


def poisson(g):
    T = csp.diags([cp.full(g - 1, -1.0), cp.full(g, 2.0), cp.full(g - 1, -1.0)], [-1, 0, 1], format="csr")
    I = csp.identity(g, format="csr")
    A = (csp.kron(I, T) + csp.kron(T, I)).tocsr()
    A.sum_duplicates()
    return A


print(json.dumps(dict(cupy=cp.__version__, numpy=np.__version__, device=cp.cuda.runtime.getDeviceProperties(0)["name"].decode())), flush=True)
g = 200 if quick else 4000
A = poisson(g)
x = cp.ones(g * g)
rows, nnz = g * g, A.nnz
ms = bench(lambda: A @ x, reps=20)
out(f"sparse_spmv_f64_poisson_{g}", "cupy", ms, GBps=(nnz * 12 + rows * 20) / ms / 1e6)
ms = bench(lambda: A @ A, reps=3, warm=1)
out(f"sparse_spgemm_f64_poisson_{g}", "cupy", ms)
try:
    import torch
    At = torch.sparse_csr_tensor(torch.as_tensor(A.indptr.get()), torch.as_tensor(A.indices.get()),
                                 torch.as_tensor(A.data.get()), size=A.shape, device="cuda")
    xt = torch.ones(rows, dtype=torch.float64, device="cuda")
    for _ in range(3):
        At @ xt
    torch.cuda.synchronize()
    ts = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); At @ xt; e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    out(f"sparse_spmv_f64_poisson_{g}", "torch", ts[len(ts) // 2], GBps=(nnz * 12 + rows * 20) / ts[len(ts) // 2] / 1e6)
    del At, xt
except Exception as e:  # noqa: BLE001
    print(json.dumps(dict(case=f"sparse_spmv_f64_poisson_{g}", lib="torch", ms=-1, error=str(e)[:200])), flush=True)
del A, x
cp.get_default_memory_pool().free_all_blocks()

g, it = (100, 50) if quick else (1000, 500)
A = poisson(g)
b = cp.ones(g * g)


def run_cg():
    try:
        x, info = cspl.cg(A, b, rtol=0.0, atol=0.0, maxiter=it)
    except TypeError:  # older CuPy: tol=
        x, info = cspl.cg(A, b, tol=0.0, atol=0.0, maxiter=it)
    assert info == it, info


ms = bench(run_cg, reps=3, warm=1)
out(f"sparse_cg_{g}_{it}it", "cupy", ms, ms_per_it=ms / it)

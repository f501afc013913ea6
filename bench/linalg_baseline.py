"""The linalg cases of cupy_baseline.py and peers_baseline.py (issue 13) alone, CuPy and PyTorch
side by side, for a short device call: one JSON line per case and library (median ms, CUDA
events). `python3 bench/linalg_baseline.py [substring ...]` runs the cases whose name contains
one of the substrings (all without arguments)."""
import json, sys
import cupy as cp
import torch

want = sys.argv[1:]
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False


def wanted(name):
    return not want or any(w in name for w in want)


def bench_cp(fn, reps, warm=1):
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return sorted(ts)[len(ts) // 2]


def bench_t(fn, reps, warm=1):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    return sorted(ts)[len(ts) // 2]


def out(case, lib, fn, reps=3):
    if not wanted(case):
        return
    try:
        ms = fn(reps)
        print(json.dumps(dict(case=case, lib=lib, ms=round(ms, 4))), flush=True)
    except Exception as e:
        print(json.dumps(dict(case=case, lib=lib, ms=-1, error=repr(e)[:200])), flush=True)


for n in (4096, 10000):
    a = cp.random.randn(n, n); at = torch.as_tensor(a, device=dev)
    out(f"inv_f64_{n}", "cupy", lambda r: bench_cp(lambda: cp.linalg.inv(a), r))
    out(f"inv_f64_{n}", "torch", lambda r: bench_t(lambda: torch.linalg.inv(at), r))
    out(f"solve_f64_{n}_k16", "cupy", lambda r: bench_cp(lambda: cp.linalg.solve(a, a[:, :16]), r))
    out(f"solve_f64_{n}_k16", "torch", lambda r: bench_t(lambda: torch.linalg.solve(at, at[:, :16]), r))
    del a, at
for n in (1024, 2048):
    ab = cp.random.randn(n, n) @ cp.random.randn(n, n); abt = torch.as_tensor(ab, device=dev)
    out(f"eig_f64_{n}", "cupy", lambda r: bench_cp(lambda: cp.linalg.eig(ab), r))
    out(f"eig_f64_{n}", "torch", lambda r: bench_t(lambda: torch.linalg.eig(abt), r))
    s = ab + ab.T; st = torch.as_tensor(s, device=dev)
    out(f"eigh_f64_{n}", "cupy", lambda r: bench_cp(lambda: cp.linalg.eigh(s), r))
    out(f"eigh_f64_{n}", "torch", lambda r: bench_t(lambda: torch.linalg.eigh(st), r))
    out(f"svd_f64_{n}", "cupy", lambda r: bench_cp(lambda: cp.linalg.svd(ab), r))
    out(f"svd_f64_{n}", "torch", lambda r: bench_t(lambda: torch.linalg.svd(abt), r))
    del ab, abt, s, st
ab = cp.random.rand(100000, 3, 3, dtype=cp.float32) + 3 * cp.eye(3, dtype=cp.float32)
bt = torch.as_tensor(ab, device=dev)
rb = cp.random.rand(100000, 3, 1, dtype=cp.float32); rt = torch.as_tensor(rb, device=dev)
sb = ab + ab.transpose(0, 2, 1); st = torch.as_tensor(sb, device=dev)
out("inv_f32_100000x3x3", "cupy", lambda r: bench_cp(lambda: cp.linalg.inv(ab), r, 3), 10)
out("inv_f32_100000x3x3", "torch", lambda r: bench_t(lambda: torch.linalg.inv(bt), r, 3), 10)
out("solve_f32_100000x3x3", "cupy", lambda r: bench_cp(lambda: cp.linalg.solve(ab, rb), r, 3), 10)
out("solve_f32_100000x3x3", "torch", lambda r: bench_t(lambda: torch.linalg.solve(bt, rt), r, 3), 10)
out("eigh_f32_100000x3x3", "cupy", lambda r: bench_cp(lambda: cp.linalg.eigh(sb), r, 3), 10)
out("eigh_f32_100000x3x3", "torch", lambda r: bench_t(lambda: torch.linalg.eigh(st), r, 3), 10)

"""PyTorch beside CuPy on the GPU machine (CUDA events, median ms) for the cases that exist in
examples/bench.rs: random, sort/argsort/unique (issue 15), argmax/var/median (issue 11), mask assignment and gather
(issue 15). A trimmed copy of ../shared/bench/peers_baseline.py; extend it (fft, linalg, sparse) as those land.
One JSON line per case and library."""
import json, time
import numpy as np, cupy as cp, torch

def bench_cp(fn, reps=7, warm=2):
    for _ in range(warm): fn()
    cp.cuda.Device().synchronize(); ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event(); s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort(); return ts[len(ts) // 2]

def bench_t(fn, reps=7, warm=2):
    for _ in range(warm): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts) // 2]

def out(case, lib, ms, **kw):
    print(json.dumps(dict(case=case, lib=lib, ms=round(ms, 4), **kw)), flush=True)

print(json.dumps(dict(torch=torch.__version__, cupy=cp.__version__, tf32=torch.backends.cuda.matmul.allow_tf32)), flush=True)
dev = "cuda"
N = 1 << 28
xt = torch.rand(N, device=dev); out("randn_f32_2^28", "torch", bench_t(lambda: torch.randn(N, device=dev)))
out("rand_f32_2^28", "torch", bench_t(lambda: torch.rand(N, device=dev)))
out("rand_f32_2^28", "cupy", bench_cp(lambda: cp.random.random(N, dtype=cp.float32)))
g = cp.random.default_rng(1)
out("randn_f32_2^28_generator", "cupy", bench_cp(lambda: g.standard_normal(N, dtype=cp.float32)))
x2 = xt.view(1 << 14, 1 << 14)
out("transpose_copy_f32_16384^2", "torch", bench_t(lambda: x2.t().contiguous()))
out("sum_axis0_f32_16384^2", "torch", bench_t(lambda: x2.sum(0)))
xs = xt[: 1 << 26].clone()
out("sort_f32_2^26", "torch", bench_t(lambda: torch.sort(xs)))
out("argsort_f32_2^26", "torch", bench_t(lambda: torch.argsort(xs)))
xc = cp.random.rand(1 << 26, dtype=cp.float32)
out("argsort_f32_2^26", "cupy", bench_cp(lambda: cp.argsort(xc)))
out("unique_f32_2^26", "cupy", bench_cp(lambda: cp.unique(xc), reps=3))
out("unique_f32_2^26", "torch", bench_t(lambda: torch.unique(xs), reps=3))
xa = cp.random.rand(N, dtype=cp.float32)
out("argmax_f32_2^28", "cupy", bench_cp(lambda: xa.argmax())); out("argmax_f32_2^28", "torch", bench_t(lambda: xt.argmax()))
out("var_f32_2^28", "cupy", bench_cp(lambda: xa.var())); out("var_f32_2^28", "torch", bench_t(lambda: xt.var()))
out("median_f32_2^28", "cupy", bench_cp(lambda: cp.median(xa), reps=3)); out("median_f32_2^28", "torch", bench_t(lambda: xt.median(), reps=3))
m = xa > 0.5
out("mask_assign_f32_2^28", "cupy", bench_cp(lambda: xa.__setitem__(m, 0)))
mt = xt > 0.5
out("mask_assign_f32_2^28", "torch", bench_t(lambda: xt.__setitem__(mt, 0)))
idx = cp.random.randint(0, N, 1 << 26, dtype=cp.int64); idt = torch.randint(0, N, (1 << 26,), device=dev)
out("gather_f32_2^26_of_2^28", "cupy", bench_cp(lambda: xa[idx])); out("gather_f32_2^26_of_2^28", "torch", bench_t(lambda: xt[idt]))
del xt, x2, xs, xc, xa, m, mt, idx, idt
# FFTs (issue 14): the cases of examples/bench.rs, PyTorch's torch.fft beside CuPy's cupy.fft.
nf = 1 << 24
ct = torch.complex(torch.rand(nf, device=dev), torch.rand(nf, device=dev))
out("fft_c64_2^24", "torch", bench_t(lambda: torch.fft.fft(ct)))
rt = torch.rand(nf, device=dev)
out("rfft_f32_2^24", "torch", bench_t(lambda: torch.fft.rfft(rt)))
c2t = torch.complex(torch.rand(4096, 4096, device=dev, dtype=torch.float64), torch.rand(4096, 4096, device=dev, dtype=torch.float64))
out("fft2_c128_4096^2", "torch", bench_t(lambda: torch.fft.fft2(c2t)))
pt = torch.complex(torch.rand((1 << 20) + 7, device=dev), torch.rand((1 << 20) + 7, device=dev))
out("fft_c64_prime_2^20+7", "torch", bench_t(lambda: torch.fft.fft(pt)))
cc = (cp.random.rand((1 << 20) + 7) + 1j * cp.random.rand((1 << 20) + 7)).astype(cp.complex64)
out("fft_c64_prime_2^20+7", "cupy", bench_cp(lambda: cp.fft.fft(cc)))
del ct, rt, c2t, pt, cc
# linalg (issue 13): PyTorch's side of cupy_baseline.py's linalg cases, same names.
torch.backends.cuda.matmul.allow_tf32 = False
for n in (4096, 10000):
    at = torch.randn(n, n, device=dev, dtype=torch.float64)
    out(f"inv_f64_{n}", "torch", bench_t(lambda: torch.linalg.inv(at), reps=3))
    out(f"solve_f64_{n}_k16", "torch", bench_t(lambda: torch.linalg.solve(at, at[:, :16]), reps=3))
    del at
for n in (1024, 2048):
    at = torch.randn(n, n, device=dev, dtype=torch.float64) @ torch.randn(n, n, device=dev, dtype=torch.float64)
    out(f"eig_f64_{n}", "torch", bench_t(lambda: torch.linalg.eig(at), reps=3))
    st = at + at.T
    out(f"eigh_f64_{n}", "torch", bench_t(lambda: torch.linalg.eigh(st), reps=3))
    out(f"svd_f64_{n}", "torch", bench_t(lambda: torch.linalg.svd(at), reps=3))
    del at, st
bt = torch.rand(100000, 3, 3, device=dev) + 3 * torch.eye(3, device=dev)
out("inv_f32_100000x3x3", "torch", bench_t(lambda: torch.linalg.inv(bt)))
out("solve_f32_100000x3x3", "torch", bench_t(lambda: torch.linalg.solve(bt, torch.rand(100000, 3, 1, device=dev))))
try:
    out("eigh_f32_100000x3x3", "torch", bench_t(lambda: torch.linalg.eigh(bt + bt.transpose(1, 2))))
except Exception as e:  # cuSOLVER's syevBatched failed here before (issue 13)
    out("eigh_f32_100000x3x3", "torch", -1, error=repr(e)[:200])
del bt
# Fused batch-norm over axis 0 of a (8192, 4096) float32 array (issue 19): PyTorch eager, and
# torch.compile where it works on this machine.
xbt = torch.rand(8192, 4096, device=dev)
def bn_t(x):
    m = x.mean(0)
    d = x - m
    return d / torch.sqrt((d * d).mean(0) + 1e-5)
ms = bench_t(lambda: bn_t(xbt)); out("fuse_batchnorm_8192x4096_f32", "torch", ms, GBps=16 * xbt.numel() / ms / 1e6)
try:
    bn_c = torch.compile(bn_t)
    out("fuse_batchnorm_8192x4096_f32", "torch-compile", bench_t(lambda: bn_c(xbt), warm=3))
except Exception as e:
    out("fuse_batchnorm_8192x4096_f32", "torch-compile", -1, error=repr(e)[:200])
def bn1p_t(x):
    m = x.mean(0)
    return (x - m) / torch.sqrt((x * x).mean(0) - m * m + 1e-5)
ms = bench_t(lambda: bn1p_t(xbt)); out("fuse_batchnorm1p_8192x4096_f32", "torch", ms, GBps=12 * xbt.numel() / ms / 1e6)
try:
    bn1p_c = torch.compile(bn1p_t)
    out("fuse_batchnorm1p_8192x4096_f32", "torch-compile", bench_t(lambda: bn1p_c(xbt), warm=3))
except Exception as e:
    out("fuse_batchnorm1p_8192x4096_f32", "torch-compile", -1, error=repr(e)[:200])
del xbt

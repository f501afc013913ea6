# The first part of bench/peers_baseline.py (random, transpose, sort/argsort/unique, reductions, mask, gather)
# plus CuPy's sort and sum, in one process.
src = open("bench/peers_baseline.py").read()
head = src[:src.index("# FFTs (issue 14)")]
head = head.replace('out("argsort_f32_2^26", "cupy"', 'out("sort_f32_2^26", "cupy", bench_cp(lambda: cp.sort(xc)))\nout("argsort_f32_2^26", "cupy"', 1)
head = head.replace('m = xa > 0.5', 'out("sum_f32_2^28", "cupy", bench_cp(lambda: xa.sum()))\nm = xa > 0.5', 1)
exec(compile(head, "peers_head", "exec"))

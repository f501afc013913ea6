"""scipy.sparse.linalg goldens, second group: lsqr and lsmr (over- and underdetermined, square
nonsymmetric, damped, x0, an iteration limit, complex, b = 0). Each case records SciPy's whole
result tuple; tests/sparse_linalg.rs checks istop, itn and the norms, and x."""

import scipy.sparse as sp
import scipy.sparse.linalg as sla

from .common import *  # noqa: F401,F403


def coo_inputs(g, A, extra=()):
    A = sp.coo_matrix(A)
    arrs = [A.data, A.row.astype(np.int32), A.col.astype(np.int32), *extra]
    return [{"array": g.arr(a), "view": []} for a in arrs]


def lsq_mats(rng):
    def rnd(m, n, density, dtype=float):
        A = sp.random(m, n, density=density, random_state=rng, format="coo")
        if dtype == complex:
            A = A + 1j * sp.random(m, n, density=density, random_state=rng, format="coo")
        k = min(m, n)
        return (A + sp.eye(m, n, k=0) * 2.0).tocoo()
    n = 16
    T = sp.diags([np.full(n - 1, -1.0), np.full(n, 2.0), np.full(n - 1, -1.0)], [-1, 0, 1])
    N = (T + sp.diags([np.full(n - 1, -0.4), np.full(n - 1, 0.4)], [-1, 1])).tocoo()
    return {
        "over": rnd(30, 12, 0.3),
        "under": rnd(12, 30, 0.3),
        "square": N,
        "complex": rnd(20, 10, 0.3, complex),
    }


def gen_lsq(g, rng):
    mats = lsq_mats(rng)
    for mname, A in mats.items():
        m, n = A.shape
        b = rng.uniform(-1, 1, m)
        if mname == "complex":
            b = b + 1j * rng.uniform(-1, 1, m)
        x0 = rng.uniform(-1, 1, n)
        if mname == "complex":  # (SciPy's lsmr keeps x0's dtype: a real x0 fails there)
            x0 = x0 + 0.5j
        variants = [("default", {}), ("damp", {"damp": 0.5}), ("x0", {"x0": True}),
                    ("limit3", {"lim": 3}), ("tight", {"atol": 1e-10, "btol": 1e-10})]
        if mname == "over":
            variants += [("zero_b", {"zero_b": True}), ("conlim", {"conlim": 3.0})]
        for tag, kw in variants:
            bb = np.zeros(m) if kw.get("zero_b") else b
            args = {k: v for k, v in kw.items() if k in ("damp", "atol", "btol", "conlim")}
            if kw.get("x0"):
                args["x0"] = x0
            extra = [bb] + ([x0] if kw.get("x0") else [])
            # lsqr
            la = dict(args, iter_lim=kw["lim"]) if "lim" in kw else dict(args)
            if tag == "default" and mname == "over":
                la["calc_var"] = True
            r = sla.lsqr(A.tocsr(), bb, **la)
            x, istop, itn, r1, r2, an, ac, arn, xn, var = r
            k = {kk: vv for kk, vv in la.items() if kk != "x0"}
            k.update(x0=bool(kw.get("x0")), shape=list(A.shape))
            g.case(id=f"lsqr/{mname}/{tag}", op="lsqr", inputs=coo_inputs(g, A, extra), kwargs=k,
                   expected=g.arr(x), dtype=x.dtype.name, shape=list(x.shape), istop=int(istop),
                   itn=int(itn), norms=[float(v) for v in (r1, r2, an, ac, arn, xn)],
                   var=g.arr(var))
            # lsmr
            lm = dict(args, maxiter=kw["lim"]) if "lim" in kw else dict(args)
            if tag == "tight":  # (the default min(m, n) ends square/tight on its last step)
                lm["maxiter"] = 2 * min(m, n)
            x, istop, itn, nr, nar, na, ca, nx = sla.lsmr(A.tocsr(), bb, **lm)
            k = {kk: vv for kk, vv in lm.items() if kk != "x0"}
            k.update(x0=bool(kw.get("x0")), shape=list(A.shape))
            g.case(id=f"lsmr/{mname}/{tag}", op="lsmr", inputs=coo_inputs(g, A, extra), kwargs=k,
                   expected=g.arr(x), dtype=x.dtype.name, shape=list(x.shape), istop=int(istop),
                   itn=int(itn), norms=[float(v) for v in (nr, nar, na, ca, nx)])


def gen_onenormest(g, rng):
    """onenormest: SciPy's estimate (np.random.seed(0)) and the exact norm; `exact` marks the
    matrices where the estimator must find the norm (t >= n, nonnegative entries)."""
    def rnd(n, density, nonneg=False, cplx=False):
        A = sp.random(n, n, density=density, random_state=rng, format="coo")
        if not nonneg:
            A.data = A.data * 2 - 1
        if cplx:
            A = A + 1j * sp.random(n, n, density=density, random_state=rng, format="coo")
        return A.tocoo()
    n = 8
    T = sp.diags([np.full(n - 1, -1.0), np.full(n, 2.0), np.full(n - 1, -1.0)], [-1, 0, 1])
    P = (sp.kron(sp.eye(n), T) + sp.kron(T, sp.eye(n))).tocoo()
    cases = {
        "nonneg40": (rnd(40, 0.15, nonneg=True), True),
        "signed50": (rnd(50, 0.1), False),
        "signed200": (rnd(200, 0.03), False),
        "tiny2": (sp.coo_matrix(np.array([[1.0, -7.0], [2.0, 3.0]])), True),
        "small3": (sp.coo_matrix(np.array([[0.0, -4.0, 1.0], [2.0, 0.0, 0.0], [1.0, 0.5, -3.0]])), False),
        "poisson64": (P, False),
        "complex30": (rnd(30, 0.2, cplx=True), False),
    }
    for name, (A, exact) in cases.items():
        np.random.seed(0)
        est = float(sla.onenormest(A.tocsr()))
        true = float(abs(A.toarray()).sum(axis=0).max())
        g.case(id=f"onenormest/{name}", op="onenormest", inputs=coo_inputs(g, A),
               kwargs={"shape": list(A.shape), "exact": exact}, scipy_est=est, true=true)


def gen_expm_multiply(g, rng):
    """expm_multiply: SciPy's result (checked here against dense expm(A) @ B)."""
    import scipy.linalg
    def rnd(n, density, scale, cplx=False):
        A = sp.random(n, n, density=density, random_state=rng, format="coo")
        A.data = (A.data * 2 - 1) * scale
        if cplx:
            B = sp.random(n, n, density=density, random_state=rng, format="coo")
            A = A + 1j * scale * B
        return A.tocoo()
    n = 30
    T = sp.diags([np.full(n - 1, 1.0), np.full(n, -2.0), np.full(n - 1, 1.0)], [-1, 0, 1]).tocoo()
    shifted = (rnd(25, 0.2, 1.0) + sp.diags(np.full(25, 6.0))).tocoo()
    cases = [
        ("heat30/vector", T, rng.uniform(-1, 1, n)),
        ("nonsym20/vector", rnd(20, 0.25, 1.0), rng.uniform(-1, 1, 20)),
        ("big_norm20/matrix", rnd(20, 0.3, 6.0), rng.uniform(-1, 1, (20, 3))),
        ("trace_shift25/vector", shifted, rng.uniform(-1, 1, 25)),
        ("complex15/vector", rnd(15, 0.3, 1.0, cplx=True), rng.uniform(-1, 1, 15) + 0j),
        ("zero6/vector", sp.coo_matrix((6, 6)), rng.uniform(-1, 1, 6)),
        ("float32_16/vector", rnd(16, 0.3, 1.0).astype(np.float32), rng.uniform(-1, 1, 16).astype(np.float32)),
    ]
    for name, A, B in cases:
        X = sla.expm_multiply(A.tocsr(), B)
        D = scipy.linalg.expm(A.toarray().astype(np.complex128 if np.iscomplexobj(A.data) else np.float64)) @ B
        assert np.linalg.norm(X - D) <= 1e-5 * np.linalg.norm(D), name
        g.case(id=f"expm_multiply/{name}", op="expm_multiply", inputs=coo_inputs(g, A, [B]),
               kwargs={"shape": list(A.shape)}, expected=g.arr(X), dtype=X.dtype.name, shape=list(X.shape))


def gen_eigsh_svds(g, rng):
    """eigsh and svds: SciPy's eigen/singular values (ARPACK) on matrices with distinct
    eigenvalues; the Rust side checks the values and the residuals of its own vectors."""
    def sym(n, density, cplx=False, dtype=np.float64):
        A = sp.random(n, n, density=density, random_state=rng, format="coo")
        A.data = A.data * 2 - 1
        if cplx:
            B = sp.random(n, n, density=density, random_state=rng, format="coo")
            A = A + 1j * B
        return ((A + A.getH()) * 0.5).tocoo().astype(np.complex128 if cplx else dtype)
    def rect(m, n, density, cplx=False):
        A = sp.random(m, n, density=density, random_state=rng, format="coo")
        if cplx:
            A = A + 1j * sp.random(m, n, density=density, random_state=rng, format="coo")
        return A.tocoo()
    def lap(n):
        return sp.diags([np.full(n - 1, -1.0), np.full(n, 2.0), np.full(n - 1, -1.0)], [-1, 0, 1]).tocoo()
    R = sym(80, 0.08)
    cases = [
        ("lap100/LM", lap(100), dict(k=4, which="LM")),
        ("lap100/LA", lap(100), dict(k=3, which="LA")),
        ("lap40/SM", lap(40), dict(k=3, which="SM")),
        ("lap40/SA", lap(40), dict(k=2, which="SA")),
        ("sym80/LM", R, dict(k=5, which="LM")),
        ("sym80/LA", R, dict(k=4, which="LA")),
        ("sym80/SA/novec", R, dict(k=4, which="SA", return_eigenvectors=False)),
        ("sym80/LM/ncv12", R, dict(k=3, which="LM", ncv=12)),
        ("herm50/LM", sym(50, 0.1, cplx=True), dict(k=3, which="LM")),
        ("sym60_f32/LA", sym(60, 0.1, dtype=np.float32), dict(k=3, which="LA")),
        ("diag60/LM", sp.diags(np.linspace(-3.0, 5.0, 60)).tocoo(), dict(k=3, which="LM")),
    ]
    for name, A, kw in cases:
        w = sla.eigsh(A.tocsr(), **dict(kw, return_eigenvectors=False))
        w = np.sort(w)
        g.case(id=f"eigsh/{name}", op="eigsh", inputs=coo_inputs(g, A),
               kwargs=dict(kw, shape=list(A.shape)), expected=g.arr(w), dtype=w.dtype.name,
               shape=list(w.shape))
    scases = [
        ("tall60x30/LM", rect(60, 30, 0.15), dict(k=4)),
        ("wide25x50/LM", rect(25, 50, 0.15), dict(k=3)),
        ("tall40x20/SM", rect(40, 20, 0.3) + sp.eye(40, 20), dict(k=2, which="SM")),
        ("complex30x20/LM", rect(30, 20, 0.2, cplx=True), dict(k=3)),
        ("tall60x30/novec", rect(60, 30, 0.15), dict(k=2, return_singular_vectors=False)),
    ]
    for name, A, kw in scases:
        A = sp.coo_matrix(A)
        s = sla.svds(A.tocsr(), **dict(kw, return_singular_vectors=False), rng=np.random.default_rng(0))
        s = np.sort(s)
        g.case(id=f"svds/{name}", op="svds", inputs=coo_inputs(g, A),
               kwargs=dict(kw, shape=list(A.shape)), expected=g.arr(s), dtype=s.dtype.name,
               shape=list(s.shape))


def gen_splu(g, rng):
    """splu(A).solve(b, trans): nonsymmetric, one needing row pivoting (zero diagonal),
    complex, several right-hand sides."""
    n = 30
    T = sp.diags([np.full(n - 1, -1.0), np.full(n, 2.5), np.full(n - 1, -0.7)], [-1, 0, 1])
    R = (sp.random(n, n, density=0.1, random_state=rng) + T).tocoo()
    perm = sp.coo_matrix((np.arange(1.0, 9.0), (np.arange(8), (np.arange(8) + 3) % 8)), shape=(8, 8))
    P = (perm + sp.random(8, 8, density=0.15, random_state=rng) * 0.1).tocoo()
    C = (R + 1j * sp.random(n, n, density=0.1, random_state=rng)).tocoo()
    cases = [("nonsym30", R, rng.uniform(-1, 1, n)), ("pivot8", P, rng.uniform(-1, 1, 8)),
             ("complex30", C, rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)),
             ("nonsym30/matrix", R, rng.uniform(-1, 1, (n, 3)))]
    for name, A, b in cases:
        for trans in ["N", "T", "H"]:
            x = sla.splu(A.tocsc()).solve(b, trans=trans)
            g.case(id=f"splu/{name}/{trans}", op="splu", inputs=coo_inputs(g, A, [b]),
                   kwargs={"shape": list(A.shape), "trans": trans}, expected=g.arr(x),
                   dtype=x.dtype.name, shape=list(x.shape))


def gen_spsolve(g, rng):
    """spsolve(A, b): nonsymmetric, row pivoting, complex, float32, several right-hand sides
    (b [n, k]; b [n, 1] comes back 1-d, as SciPy's), duplicates in the COO input."""
    n = 40
    T = sp.diags([np.full(n - 1, -1.0), np.full(n, 3.0), np.full(n - 1, -0.6)], [-1, 0, 1])
    R = (sp.random(n, n, density=0.08, random_state=rng) + T).tocoo()
    perm = sp.coo_matrix((np.arange(1.0, 9.0), (np.arange(8), (np.arange(8) + 5) % 8)), shape=(8, 8))
    P = (perm + sp.random(8, 8, density=0.2, random_state=rng) * 0.1).tocoo()
    C = (R + 1j * sp.random(n, n, density=0.08, random_state=rng)).tocoo()
    D = sp.coo_matrix((np.concatenate([R.data, [0.5, -0.25]]),
                       (np.concatenate([R.row, [3, 3]]), np.concatenate([R.col, [3, 7]]))), shape=(n, n))
    cases = [("nonsym40", R, rng.uniform(-1, 1, n)), ("pivot8", P, rng.uniform(-1, 1, 8)),
             ("complex40", C, rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)),
             ("real_complex_b", R, rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)),
             ("float32", R.astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)),
             ("dups40", D, rng.uniform(-1, 1, n)),
             ("matrix", R, rng.uniform(-1, 1, (n, 4))), ("column", R, rng.uniform(-1, 1, (n, 1))),
             ("complex_matrix", C, rng.uniform(-1, 1, (n, 3)))]
    for name, A, b in cases:
        x = sla.spsolve(A.tocsr(), b)
        g.case(id=f"spsolve/{name}", op="spsolve", inputs=coo_inputs(g, A, [b]),
               kwargs={"shape": list(A.shape)}, expected=g.arr(x), dtype=x.dtype.name,
               shape=list(x.shape))


def gen_expm_grid(g, rng):
    """expm_multiply with SciPy's time grid (start, stop, num, endpoint)."""
    n = 20
    T = sp.diags([np.full(n - 1, 1.0), np.full(n, -2.0), np.full(n - 1, 1.0)], [-1, 0, 1]).tocoo()
    R = sp.random(n, n, density=0.25, random_state=rng, format="coo")
    R.data = R.data * 2 - 1
    R = (R + sp.diags(np.full(n, 1.5))).tocoo()
    C = (R + 1j * sp.random(n, n, density=0.2, random_state=rng, format="coo")).tocoo()
    cases = [
        ("heat/vector", T, rng.uniform(-1, 1, n), dict(start=0.0, stop=1.0, num=5, endpoint=True)),
        ("nonsym/matrix/open", R, rng.uniform(-1, 1, (n, 3)), dict(start=0.5, stop=2.0, num=4, endpoint=False)),
        ("nonsym/default_num", R, rng.uniform(-1, 1, n), dict(start=0.0, stop=0.5)),
        ("complex/vector", C, rng.uniform(-1, 1, n) + 0j, dict(start=0.0, stop=1.0, num=3)),
    ]
    for name, A, B, kw in cases:
        X = sla.expm_multiply(A.tocsr(), B, **kw)
        g.case(id=f"expm_multiply/grid/{name}", op="expm_multiply", inputs=coo_inputs(g, A, [B]),
               kwargs={"shape": list(A.shape), "grid": kw}, expected=g.arr(X), dtype=X.dtype.name,
               shape=list(X.shape))


def gen_eigsh_sigma(g, rng):
    """eigsh with sigma (shift-invert, mode 'normal'): the eigenvalues nearest sigma (LM) and
    other `which` of the transformed ones."""
    def lap(n):
        return sp.diags([np.full(n - 1, -1.0), np.full(n, 2.0), np.full(n - 1, -1.0)], [-1, 0, 1]).tocoo()
    A = sp.random(50, 50, density=0.1, random_state=rng, format="coo")
    A.data = A.data * 2 - 1
    S = ((A + A.T) * 0.5 + sp.diags(np.linspace(-2.0, 2.0, 50))).tocoo()
    H = (S + 1j * (lambda B: (B - B.T) * 0.5)(sp.random(50, 50, density=0.1, random_state=rng))).tocoo()
    cases = [
        ("lap60/sigma0", lap(60), dict(k=3, sigma=0.0)),
        ("lap60/sigma1", lap(60), dict(k=4, sigma=1.0)),
        ("sym50/sigma0.3", S, dict(k=3, sigma=0.3)),
        ("sym50/sigma-1/LA", S, dict(k=2, sigma=-1.0, which="LA")),
        ("herm50/sigma0.5", H, dict(k=2, sigma=0.5)),
    ]
    for name, A, kw in cases:
        w = sla.eigsh(A.tocsc(), **dict(kw, return_eigenvectors=False))
        w = np.sort(w)
        g.case(id=f"eigsh/{name}", op="eigsh", inputs=coo_inputs(g, A),
               kwargs=dict(kw, shape=list(A.shape)), expected=g.arr(w), dtype=w.dtype.name,
               shape=list(w.shape))


def gen_eigsh_m(g, rng):
    """eigsh with M (the generalized problem A x = lambda M x, M Hermitian positive definite):
    sigma None (mode 2; the Rust side also passes Minv) and sigma (mode 3). Inputs: A's COO
    parts, then M's."""
    n = 40
    A = sp.random(n, n, density=0.1, random_state=rng, format="coo")
    A.data = A.data * 2 - 1
    S = ((A + A.T) * 0.5 + sp.diags(np.linspace(-2.0, 2.0, n))).tocoo()
    M = sp.diags([np.full(n - 1, -0.3), rng.uniform(1.5, 2.5, n), np.full(n - 1, -0.3)], [-1, 0, 1]).tocoo()
    B = sp.random(n, n, density=0.1, random_state=rng)
    H = (S + 1j * (B - B.T) * 0.5).tocoo()
    MC = (M + 1j * sp.diags([np.full(n - 1, 0.1), np.full(n - 1, -0.1)], [-1, 1])).tocoo()
    cases = [
        ("sym40/M/LM", S, M, dict(k=3, which="LM")),
        ("sym40/M/SA", S, M, dict(k=2, which="SA")),
        ("sym40/M/sigma0.3", S, M, dict(k=3, sigma=0.3)),
        ("herm40/Mc/sigma-0.5", H, MC, dict(k=2, sigma=-0.5)),
    ]
    for name, A, Mm, kw in cases:
        w = sla.eigsh(A.tocsc(), M=Mm.tocsc(), **dict(kw, return_eigenvectors=False))
        w = np.sort(w)
        g.case(id=f"eigsh_m/{name}", op="eigsh_m", inputs=coo_inputs(g, A) + coo_inputs(g, Mm),
               kwargs=dict(kw, shape=list(A.shape)), expected=g.arr(w), dtype=w.dtype.name,
               shape=list(w.shape))


def gen_sparse_linalg2():
    g = Group("sparse_linalg2")
    rng = np.random.default_rng(23)
    gen_lsq(g, rng)
    gen_onenormest(g, rng)
    gen_expm_multiply(g, rng)
    gen_eigsh_svds(g, rng)
    gen_splu(g, rng)
    gen_spsolve(g, np.random.default_rng(231))
    gen_expm_grid(g, np.random.default_rng(232))
    gen_eigsh_sigma(g, np.random.default_rng(233))
    gen_eigsh_m(g, np.random.default_rng(234))
    g.write()

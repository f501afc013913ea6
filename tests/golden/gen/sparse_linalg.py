"""scipy.sparse.linalg goldens: cg, gmres (restart), bicgstab and minres on an SPD system (the 2-D
5-point Poisson matrix), a nonsymmetric one (convection-diffusion) and an ill-conditioned SPD
one (Poisson with a wide diagonal scaling), with and without a Jacobi preconditioner, and a
maxiter that stops early. Each case records SciPy's x, its info and its relative residual;
the Rust side checks info and that its own residual meets the same bound (tests/sparse.rs).
Also spsolve (dense fallback) and norm."""

import scipy.sparse as sp
import scipy.sparse.linalg as sla

from .common import *  # noqa: F401,F403


def gen_sparse_linalg():
    g = Group("sparse_linalg")
    rng = np.random.default_rng(19)

    def poisson(n):
        T = sp.diags([np.full(n - 1, -1.0), np.full(n, 2.0), np.full(n - 1, -1.0)], [-1, 0, 1])
        return (sp.kron(sp.eye(n), T) + sp.kron(T, sp.eye(n))).tocoo()

    P = poisson(8)
    n = P.shape[0]
    # nonsymmetric: Poisson plus a first-order convection term
    C = sp.diags([np.full(n - 1, -0.4), np.full(n - 1, 0.4)], [-1, 1])
    N = (P + C).tocoo()
    # ill-conditioned SPD: D P D with D spanning 1e-2..1e2 (condition ~ 1e6)
    d = np.logspace(-2, 2, n)
    D = sp.diags(d)
    ILL = (D @ P @ D).tocoo()
    mats = {"spd": P, "nonsym": N, "ill": ILL}

    def ops_of(A, b):
        A = A.tocoo()
        return [g.arr(A.data), g.arr(A.row.astype(np.int32)), g.arr(A.col.astype(np.int32)), g.arr(b)]

    solvers = {
        "cg": sla.cg, "gmres": sla.gmres, "bicgstab": sla.bicgstab, "minres": sla.minres,
    }
    for mname, A in mats.items():
        b = rng.uniform(-1, 1, A.shape[0])
        for sname, f in solvers.items():
            if mname == "nonsym" and sname in ("cg", "minres"):
                continue
            for pre in [False, True]:
                for (tag, kw) in [("default", {"rtol": 1e-8}), ("maxiter3", {"rtol": 1e-10, "maxiter": 3})]:
                    if mname == "ill" and not pre and tag == "default":
                        # does not converge: stop after 60 iterations (6 gmres cycles)
                        kw = dict(kw, maxiter=6 if sname == "gmres" else 60)
                    if sname == "gmres":
                        kw = dict(kw, restart=10)
                    M = sp.diags(1.0 / A.diagonal()) if pre else None
                    x, info = f(A.tocsr(), b, M=M, **kw)
                    rel = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
                    inputs = [{"array": a, "view": []} for a in ops_of(A, b)]
                    k = dict(kw, solver=sname, precond=pre, shape=list(A.shape))
                    g.case(id=f"{sname}/{mname}/{tag}/{'jacobi' if pre else 'none'}", op="solve", inputs=inputs,
                           kwargs=k, expected=g.arr(x), dtype=x.dtype.name, shape=list(x.shape),
                           info=int(info), relres=rel)
    # x0 given; complex Hermitian positive definite system for cg/gmres/bicgstab
    b = rng.uniform(-1, 1, n)
    x0 = rng.uniform(-1, 1, n)
    x, info = sla.cg(P.tocsr(), b, x0=x0, rtol=1e-8)
    inputs = [{"array": a, "view": []} for a in ops_of(P, b)] + [{"array": g.arr(x0), "view": []}]
    g.case(id="cg/spd/x0", op="solve", inputs=inputs, kwargs={"solver": "cg", "rtol": 1e-8, "precond": False, "shape": list(P.shape), "x0": True},
           expected=g.arr(x), dtype=x.dtype.name, shape=list(x.shape), info=int(info),
           relres=float(np.linalg.norm(b - P @ x) / np.linalg.norm(b)))
    H = (P + 1j * sp.diags([np.full(n - 1, 0.3), np.full(n - 1, -0.3)], [-1, 1])).tocoo()
    bz = (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n))
    for sname in ["cg", "gmres", "bicgstab"]:
        x, info = solvers[sname](H.tocsr(), bz, rtol=1e-8)
        g.case(id=f"{sname}/hpd_c128", op="solve", inputs=[{"array": a, "view": []} for a in ops_of(H, bz)],
               kwargs={"solver": sname, "rtol": 1e-8, "precond": False, "shape": list(H.shape)},
               expected=g.arr(x), dtype=x.dtype.name, shape=list(x.shape), info=int(info),
               relres=float(np.linalg.norm(bz - H @ x) / np.linalg.norm(bz)))
    # cgs (added after the others so their random draws stay as they were)
    for mname, A in mats.items():
        b = rng.uniform(-1, 1, A.shape[0])
        for pre in [False, True]:
            for (tag, kw) in [("default", {"rtol": 1e-8}), ("maxiter3", {"rtol": 1e-10, "maxiter": 3})]:
                if mname == "ill" and not pre and tag == "default":
                    kw = dict(kw, maxiter=60)
                M = sp.diags(1.0 / A.diagonal()) if pre else None
                x, info = sla.cgs(A.tocsr(), b, M=M, **kw)
                rel = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
                inputs = [{"array": a, "view": []} for a in ops_of(A, b)]
                k = dict(kw, solver="cgs", precond=pre, shape=list(A.shape))
                g.case(id=f"cgs/{mname}/{tag}/{'jacobi' if pre else 'none'}", op="solve", inputs=inputs,
                       kwargs=k, expected=g.arr(x), dtype=x.dtype.name, shape=list(x.shape),
                       info=int(info), relres=rel)
    g.write()

"""scipy.sparse goldens, second group: setdiag, argmax/argmin (axis None/0/1), maximum/minimum
(sparse with sparse, with scalars, with dense), random/rand (structure only: nnz, shape, format,
dtype; the values come from cupy-rs's Philox generator), bmat, block_diag, kronsum; errors.

Matrices are given as COO triplets: operands [data, row, col] and kwargs "shape" (as the
`sparse` group's "coo" build) and "fmt", the format converted to before the op; "nops" says how
many operands belong to the matrix, further matrices follow (3 operands each, "shapes" lists
their shapes). Expected results are dense arrays."""

import scipy.sparse as sp
import scipy.sparse.linalg as sla

from .common import *  # noqa: F401,F403


def gen_sparse2():
    g = Group("sparse2")
    rng = np.random.default_rng(22)

    mats = {}

    def coo(name, data, row, col, shape):
        mats[name] = (np.asarray(data), np.asarray(row, np.int32), np.asarray(col, np.int32), shape)

    def from_dense(name, d):
        A = sp.coo_matrix(d)
        coo(name, A.data, A.row, A.col, d.shape)

    # duplicates, unsorted, empty rows (1 and 4), rectangular
    coo("dups", rng.uniform(-1, 1, 8), [3, 0, 2, 0, 3, 2, 0, 5], [1, 4, 0, 0, 1, 6, 2, 3], (6, 7))
    d = rng.uniform(-1, 1, (9, 13))
    d[rng.uniform(0, 1, d.shape) < 0.7] = 0
    d[4] = 0
    from_dense("dense9x13", d)
    from_dense("pos5x4", np.abs(rng.uniform(0.1, 1, (5, 4))) * (rng.uniform(0, 1, (5, 4)) < 0.6))
    from_dense("neg4x6", -np.abs(rng.uniform(0.1, 1, (4, 6))) * (rng.uniform(0, 1, (4, 6)) < 0.5))
    from_dense("full3x3", rng.uniform(-1, 1, (3, 3)))
    from_dense("fullpos3x4", rng.uniform(0.5, 1, (3, 4)))
    coo("nnz0_4x3", np.zeros(0), np.zeros(0, np.int32), np.zeros(0, np.int32), (4, 3))
    coo("f32", rng.uniform(-1, 1, 6).astype(np.float32), [0, 1, 1, 3, 2, 0], [0, 2, 1, 3, 3, 3], (4, 4))
    # an explicit stored zero next to positive entries
    coo("expl_zero", np.array([0.0, 0.5, -0.25, 0.0]), [0, 0, 1, 2], [0, 2, 1, 2], (3, 3))

    def mat(name):
        data, row, col, shape = mats[name]
        return sp.coo_matrix((data, (row, col)), shape=shape)

    def ops_of(name):
        data, row, col, shape = mats[name]
        return [operand(g, data)[0], operand(g, row)[0], operand(g, col)[0]]

    def case(cid, names, op, fn, kw=None, extra_ops=(), fmt="csr", tol=None):
        ops = []
        for nm in names:
            ops += ops_of(nm)
        k = {"shape": list(mats[names[0]][3]), "fmt": fmt, "nops": 3,
             "shapes": [list(mats[nm][3]) for nm in names]}
        k.update(kw or {})
        xs = [operand(g, x)[0] for x in extra_ops]
        Ms = [mat(nm).asformat(fmt) for nm in names]
        record(g, f"{'+'.join(names)}/{cid}", op, ops + xs, lambda: fn(*Ms), k,
               tol or {"scale_max": 4.0, "n": 8})

    # ---- setdiag
    for name in ["dups", "dense9x13", "full3x3", "nnz0_4x3", "f32"]:
        shape = mats[name][3]
        for fmt in ["csr", "csc", "coo"]:
            for (cid, vals, k) in [("scalar/k0", np.array(2.5), 0),
                                   ("arr/k1", np.array([1.0, 0.0, -3.0]), 1),
                                   ("long/km2", np.arange(1.0, 20.0), -2),
                                   ("zero/k0", np.array(0.0), 0)]:
                if (k > 0 and k >= shape[1]) or (k < 0 and -k >= shape[0]):
                    continue
                def f(M, vals=vals, k=k):
                    # SciPy upcasts float32 data when setdiag inserts entries through COO (the
                    # concatenation with the float64 values); cupy-rs keeps the matrix dtype.
                    t = M.dtype
                    M = M.copy()
                    M.setdiag(vals, k)
                    return M.toarray().astype(t)
                case(f"setdiag/{cid}/{fmt}", [name], "setdiag", f, {"k": k}, extra_ops=[vals], fmt=fmt)
    vals = np.array(1.0)
    case("setdiag/k_out", ["full3x3"], "setdiag",
         lambda M: (M.setdiag(vals, 3), M.toarray())[1], {"k": 3}, extra_ops=[vals])

    # ---- argmax / argmin: SciPy's answer where it agrees with NumPy's argmax of the dense
    # matrix (cupy-rs's documented rule); SciPy 1.17 compares a data position with an index
    # when a stored zero is the extreme ("expl_zero" keeps the cases where both agree).
    disagree = 0
    for name in ["dups", "dense9x13", "pos5x4", "neg4x6", "full3x3", "fullpos3x4", "nnz0_4x3",
                 "f32", "expl_zero"]:
        for fmt in ["csr", "csc"]:
            for red in ["argmax", "argmin"]:
                for ax in [None, 0, 1]:
                    def f(M, red=red, ax=ax):
                        r = getattr(M, red)(axis=ax)
                        return np.asarray(r).reshape(-1).astype(np.int64) if ax is not None else np.array(r, np.int64)
                    M = mat(name).asformat(fmt)
                    dense = M.toarray()
                    want = getattr(np, red)(dense, axis=ax)
                    if not np.array_equal(f(M), np.asarray(want).reshape(-1) if ax is not None else want):
                        disagree += 1
                        continue
                    case(f"{red}/{ax}/{fmt}", [name], red, f, {"axis": ax}, fmt=fmt)
    print(f"sparse2: {disagree} argmax/argmin cases where SciPy differs from NumPy's dense rule (left out)")
    case("argmax/empty", ["nnz0_4x3"], "argmax", lambda M: sp.csr_matrix((0, 3)).argmax(), {"axis": None})

    # ---- maximum / minimum
    for name in ["dups", "dense9x13", "neg4x6", "f32", "nnz0_4x3"]:
        shape = mats[name][3]
        B = sp.random(shape[0], shape[1], density=0.4, random_state=3, format="coo")
        B.data = B.data * 2 - 1
        mats[f"B_{name}"] = (B.data, B.row.astype(np.int32), B.col.astype(np.int32), shape)
        for red in ["maximum", "minimum"]:
            case(f"{red}/sparse", [name, f"B_{name}"], red,
                 lambda M, N, red=red: getattr(M, red)(N).toarray())
            for s in [0.3, -0.3, 0.0]:
                case(f"{red}/scalar/{s}", [name], f"{red}_scalar",
                     lambda M, red=red, s=s: getattr(M, red)(s).toarray(), {"s": s})
            Bd = B.toarray()
            case(f"{red}/dense", [name], f"{red}_dense",
                 lambda M, red=red, Bd=Bd: np.asarray(getattr(M, red)(Bd)), extra_ops=[Bd])
        # SciPy drops the zeros of the result: nnz of the canonical result
        case("maximum/sparse/nnz", [name, f"B_{name}"], "maximum_nnz",
             lambda M, N: np.array(M.maximum(N).nnz, np.int64))
    case("maximum/shape_mismatch", ["dups", "full3x3"], "maximum", lambda M, N: M.maximum(N).toarray())

    # ---- bmat, block_diag, kronsum
    case("bmat/diag", ["full3x3", "dups"], "bmat2", lambda A, B: sp.bmat([[A, None], [None, B]]).toarray(),
         {"grid": [[0, None], [None, 1]]})
    case("bmat/row", ["full3x3", "fullpos3x4"], "bmat2", lambda A, B: sp.bmat([[A, B]]).toarray(),
         {"grid": [[0, 1]]})
    case("bmat/col", ["full3x3", "f32"], "bmat2", lambda A, B: sp.bmat([[A, None], [None, B], [A, None]]).toarray(),
         {"grid": [[0, None], [None, 1], [0, None]]})
    case("bmat/mismatch", ["full3x3", "dups"], "bmat2", lambda A, B: sp.bmat([[A, B]]).toarray(),
         {"grid": [[0, 1]]})
    case("block_diag/3", ["full3x3", "dups", "nnz0_4x3"], "block_diag",
         lambda A, B, C: sp.block_diag([A, B, C]).toarray())
    case("block_diag/f32", ["f32", "pos5x4"], "block_diag", lambda A, B: sp.block_diag([A, B]).toarray())
    case("kronsum/3_4", ["full3x3", "f32"], "kronsum", lambda A, B: sp.kronsum(A, B).toarray())
    case("kronsum/not_square", ["dups", "f32"], "kronsum", lambda A, B: sp.kronsum(A, B).toarray())

    # ---- random / rand: structure (nnz, shape) per SciPy's rounding of density * m * n
    for (m, n, dens, fmt, dt) in [(10, 20, 0.1, "coo", "float64"), (7, 3, 0.5, "csr", "float32"),
                                  (40, 40, 0.013, "csc", "float64"), (5, 5, 1.0, "csr", "complex128"),
                                  (6, 9, 0.0, "coo", "float64"), (3000, 2000, 0.0005, "csr", "float64"),
                                  (0, 4, 0.5, "coo", "float64")]:
        A = sp.random(m, n, density=dens, format=fmt, dtype=dt, rng=1)
        record(g, f"random/{m}x{n}/{dens}/{fmt}/{dt}", "random", [],
               lambda A=A: np.array([A.nnz, A.shape[0], A.shape[1]], np.int64),
               {"m": m, "n": n, "density": dens, "format": A.format, "dtype": A.dtype.name})
    record(g, "random/bad_density", "random", [], lambda: sp.random(3, 3, density=1.5).toarray(),
           {"m": 3, "n": 3, "density": 1.5, "format": "coo", "dtype": "float64"})
    # ---- indexing: A[i], A[a:b:s], A[:, a:b:s], A[[...]], A[:, [...]], A[i, j] (csr, csc)
    coo("unsorted_dups", np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), [2, 0, 2, 1, 3, 2], [3, 1, 0, 2, 3, 3], (5, 4))
    for name in ["dups", "dense9x13", "unsorted_dups", "nnz0_4x3"]:
        shape = mats[name][3]
        for fmt in ["csr", "csc"]:
            for i in [0, -1, 1, shape[0] - 2]:
                case(f"row/{i}/{fmt}", [name], "row", lambda M, i=i: M[i].toarray().reshape(1, -1), {"i": i}, fmt=fmt)
            for j in [0, -1, 2]:
                case(f"col/{j}/{fmt}", [name], "col", lambda M, j=j: M[:, [j]].toarray(), {"j": j}, fmt=fmt)
            for sl_ in [(1, 5, 1), (None, None, 2), (5, 1, -2), (None, None, -1), (-3, None, 1), (4, 4, 1), (1, 100, 3)]:
                a, b, st = sl_
                case(f"row_slice/{a}:{b}:{st}/{fmt}", [name], "row_slice",
                     lambda M, a=a, b=b, st=st: M[a:b:st].toarray(), {"start": a, "stop": b, "step": st}, fmt=fmt)
                case(f"col_slice/{a}:{b}:{st}/{fmt}", [name], "col_slice",
                     lambda M, a=a, b=b, st=st: M[:, a:b:st].toarray(), {"start": a, "stop": b, "step": st}, fmt=fmt)
            idx = np.array([min(3, shape[0] - 1), 1, 1, -1, 0], np.int64)
            case(f"rows/{fmt}", [name], "rows", lambda M, idx=idx: M[idx].toarray(), extra_ops=[idx], fmt=fmt)
            cidx = np.array([2, 0, -1, 2], np.int64)
            case(f"cols/{fmt}", [name], "cols", lambda M, cidx=cidx: M[:, cidx].toarray(), extra_ops=[cidx], fmt=fmt)
            for (i, j) in [(0, 0), (2, 3), (-1, -1), (3, 1)]:
                if i >= shape[0] or j >= shape[1]:
                    continue
                case(f"get/{i},{j}/{fmt}", [name], "get", lambda M, i=i, j=j: np.array(M[i, j]), {"i": i, "j": j}, fmt=fmt)
        case("row/out_of_range", [name], "row", lambda M: M[shape[0]].toarray(), {"i": shape[0]})
        bad = np.array([0, shape[0]], np.int64)
        case("rows/out_of_range", [name], "rows", lambda M, bad=bad: M[bad].toarray(), extra_ops=[bad])
        case("get/out_of_range", [name], "get", lambda M: np.array(M[0, shape[1]]), {"i": 0, "j": shape[1]})
    # ---- spsolve_triangular (lower/upper, unit_diagonal, 1-d and 2-d b, duplicates)
    n = 12
    L = np.tril(rng.uniform(-1, 1, (n, n))) * (rng.uniform(0, 1, (n, n)) < 0.4)
    np.fill_diagonal(L, rng.uniform(1, 2, n))
    from_dense("lower12", L)
    from_dense("upper12", L.T.copy())
    coo("lower_dups", np.array([2.0, 1.0, 0.5, -1.0, 3.0, 0.25]), [0, 1, 1, 2, 2, 2], [0, 1, 1, 0, 2, 1], (3, 3))
    from_dense("lower_zero_diag", np.array([[1.0, 0, 0], [2.0, 0, 0], [1.0, 1.0, 1.0]]))
    b1 = rng.uniform(-1, 1, n)
    b2 = rng.uniform(-1, 1, (n, 3))
    b3 = rng.uniform(-1, 1, 3)
    for (name, lower, bb) in [("lower12", True, b1), ("upper12", False, b1), ("lower12", True, b2),
                              ("upper12", False, b2), ("lower_dups", True, b3)]:
        for unit in [False, True]:
            for fmt in ["csr", "csc"]:
                case(f"spsolve_triangular/{'lower' if lower else 'upper'}/{bb.ndim}d/unit{int(unit)}/{fmt}", [name],
                     "spsolve_triangular",
                     lambda M, lower=lower, unit=unit, bb=bb: sla.spsolve_triangular(M, bb, lower=lower, unit_diagonal=unit),
                     {"lower": lower, "unit": unit}, extra_ops=[bb], fmt=fmt, tol={"scale_max": 1e3, "n": 16})
    case("spsolve_triangular/singular", ["lower_zero_diag"], "spsolve_triangular",
         lambda M: sla.spsolve_triangular(M, b3), {"lower": True, "unit": False}, extra_ops=[b3])
    case("spsolve_triangular/not_square", ["dups"], "spsolve_triangular",
         lambda M: sla.spsolve_triangular(M, np.ones(6)), {"lower": True, "unit": False}, extra_ops=[np.ones(6)])
    g.write()

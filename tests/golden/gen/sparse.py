"""scipy.sparse goldens: CSR/CSC/COO/DIA construction (dense, (data, (row, col)), (data, indices,
indptr)), conversions, canonical form, SpMV/SpMM, arithmetic, reductions and the construction
functions, over matrices with empty rows, duplicate entries, unsorted indices, int64 indices,
rectangular and 0xN shapes, float32/float64/complex64/complex128 values; validation errors.

A case's kwargs: "build" (how the operands make the matrix: "coo" = [data, row, col], "dense" =
[a], "csr"/"csc" = [data, indices, indptr]), "shape", "fmt" (the format it is converted to before
the op), and the op's own arguments. Extra operands (x, B) follow the matrix's operands; "nops"
says how many belong to the matrix. Expected results are dense arrays (or the canonical parts).
Float tolerance: scale_max (the largest |A| @ |x| or |entry| sum) and n (the longest row)."""

import scipy.sparse as sp

from .common import *  # noqa: F401,F403


def gen_sparse():
    g = Group("sparse")
    rng = np.random.default_rng(18)

    def vals(n, dt):
        dt = np.dtype(dt)
        if dt.kind == "c":
            return (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dt)
        return rng.uniform(-1, 1, n).astype(dt)

    # ---- the matrices: name -> (build, operand arrays, shape, scipy csr)
    mats = {}

    def coo(name, data, row, col, shape):
        A = sp.coo_matrix((data, (row, col)), shape=shape)
        mats[name] = ("coo", [data, row, col], shape, A)

    def dense(name, a):
        mats[name] = ("dense", [a], a.shape, sp.coo_matrix(a))

    def csr(name, data, indices, indptr, shape):
        A = sp.csr_matrix((data, indices, indptr), shape=shape)
        mats[name] = ("csr", [data, indices, indptr], shape, A)

    def cscb(name, data, indices, indptr, shape):
        A = sp.csc_matrix((data, indices, indptr), shape=shape)
        mats[name] = ("csc", [data, indices, indptr], shape, A)

    # duplicates, unsorted, empty rows (row 1 and 4 empty), rectangular
    r = np.array([3, 0, 2, 0, 3, 2, 0, 5], np.int32)
    c = np.array([1, 4, 0, 0, 1, 6, 2, 3], np.int32)
    coo("dups_f64", vals(8, "float64"), r, c, (6, 7))
    coo("dups_f32", vals(8, "float32"), r, c, (6, 7))
    coo("dups_c128", vals(8, "complex128"), r, c, (6, 7))
    coo("dups_c64", vals(8, "complex64"), r, c, (6, 7))
    coo("dups_i64", vals(8, "float64"), r.astype(np.int64), c.astype(np.int64), (6, 7))
    # unsorted CSR with a duplicate and an empty row, int64 indices
    csr("csr_unsorted_i64", vals(6, "float64"), np.array([2, 0, 2, 1, 3, 0], np.int64),
        np.array([0, 3, 3, 5, 6], np.int64), (4, 4))
    csr("csr_unsorted_c128", vals(6, "complex128"), np.array([2, 0, 2, 1, 3, 0], np.int32),
        np.array([0, 3, 3, 5, 6], np.int32), (4, 4))
    cscb("csc_basic", vals(5, "float64"), np.array([1, 0, 2, 1, 2], np.int32),
         np.array([0, 2, 2, 5], np.int32), (3, 3))
    # random dense with explicit zeros pattern
    d = rng.uniform(-1, 1, (9, 13))
    d[rng.uniform(0, 1, d.shape) < 0.7] = 0
    d[4] = 0
    dense("dense9x13", d)
    dense("dense9x13_f32", d.astype(np.float32))
    dz = (rng.uniform(-1, 1, (5, 5)) + 1j * rng.uniform(-1, 1, (5, 5)))
    dz[rng.uniform(0, 1, dz.shape) < 0.5] = 0
    dense("dense5_c128", dz)
    # degenerate shapes
    coo("empty0x3", np.zeros(0), np.zeros(0, np.int32), np.zeros(0, np.int32), (0, 3))
    coo("empty3x0", np.zeros(0), np.zeros(0, np.int32), np.zeros(0, np.int32), (3, 0))
    coo("nnz0_4x3", np.zeros(0), np.zeros(0, np.int32), np.zeros(0, np.int32), (4, 3))
    # a larger random one, with a long row (max_len far above the mean)
    A = sp.random(40, 30, density=0.1, random_state=5, format="coo")
    rr = np.concatenate([A.row, np.full(30, 7)]).astype(np.int32)
    cc = np.concatenate([A.col, np.arange(30)]).astype(np.int32)
    coo("rand40x30", np.concatenate([A.data, vals(30, "float64")]), rr, cc, (40, 30))

    def inputs(name):
        build, arrs, shape, A = mats[name]
        ops = [operand(g, a)[0] for a in arrs]
        return build, ops, shape, A

    def tol(A, x=None):
        # (copies: SciPy's in-place sum_duplicates would reorder index arrays A shares)
        absA = abs(sp.csr_matrix(A.copy()))
        if x is None:
            s = float(absA.sum(axis=1).max()) if absA.nnz else 0.0
        else:
            s = float(np.max(absA @ np.abs(x), initial=0.0))
        n = int(np.max(np.diff(sp.csr_matrix(A.copy()).indptr), initial=1)) + 2
        return {"scale_max": s, "n": n}

    def case(cid, name, op, fn, kw=None, extra_ops=(), t=None, fmt="csr"):
        build, ops, shape, A = inputs(name)
        k = {"build": build, "shape": list(shape), "fmt": fmt, "nops": len(ops)}
        k.update(kw or {})
        xs = [operand(g, x)[0] for x in extra_ops]
        record(g, f"{name}/{cid}", op, ops + xs, lambda: fn(A.copy().asformat(fmt)), k,
               t if t is not None else tol(A))

    for name, (build, arrs, shape, A) in mats.items():
        t = A.dtype
        for fmt in ["csr", "csc", "coo", "dia"]:
            case(f"toarray/{fmt}", name, "toarray", lambda M: M.toarray(), fmt=fmt)
        case("canonical_parts", name, "canonical_parts",
             lambda M: (lambda C: np.concatenate([C.indptr, C.indices]).astype(np.int64))(M.tocsr()))
        case("canonical_data", name, "canonical_data", lambda M: M.tocsr().data)
        case("T", name, "T", lambda M: M.T.toarray())
        case("conj", name, "conj", lambda M: M.conj().toarray())
        case("nnz_coo", name, "nnz", lambda M: np.array(M.nnz, np.int64), fmt="coo")
        case("count_nonzero", name, "count_nonzero", lambda M: np.array(M.count_nonzero(), np.int64))
        case("eliminate_zeros", name, "eliminate_zeros",
             lambda M: (lambda C: (C.eliminate_zeros(), C.toarray())[1])(M.tocsr()))
        # products
        x = vals(shape[1], t)
        case("spmv", name, "spmv", lambda M: M @ x, extra_ops=[x], t=tol(A, x))
        case("spmv_csc", name, "spmv", lambda M: M @ x, extra_ops=[x], t=tol(A, x), fmt="csc")
        X = vals(shape[1] * 3, t).reshape(shape[1], 3)
        case("spmm", name, "spmm", lambda M: M @ X, extra_ops=[X], t=tol(A, X))
        Bm = sp.random(shape[1], 4, density=0.4, random_state=9, format="csr").astype(t)
        case("spgemm", name, "spgemm", lambda M: (M @ Bm).toarray(), extra_ops=[Bm.toarray()], t=tol(A, np.abs(Bm.toarray())))
        if t.kind == "f" and t == np.float32:
            x64 = vals(shape[1], "float64")
            case("spmv_promote", name, "spmv", lambda M: M @ x64, extra_ops=[x64], t=tol(A, x64))
        # arithmetic
        B = sp.random(shape[0], shape[1], density=0.3, random_state=7, format="csr").astype(t)
        Bd = B.toarray()
        case("add", name, "add", lambda M: (M + B).toarray(), extra_ops=[Bd])
        case("sub", name, "sub", lambda M: (M - B).toarray(), extra_ops=[Bd])
        case("sub_self", name, "sub_self", lambda M: np.array((M.tocsr() - M.tocsr()).nnz, np.int64))
        case("add_dense", name, "add_dense", lambda M: np.asarray(M + Bd), extra_ops=[Bd])
        case("multiply", name, "multiply", lambda M: M.multiply(B).toarray(), extra_ops=[Bd])
        case("multiply_dense", name, "multiply_dense", lambda M: M.multiply(Bd).toarray(), extra_ops=[Bd])
        case("mul_scalar", name, "mul_scalar", lambda M: (M * 2.5).toarray(), {"s": 2.5})
        # SciPy divides by a float64 0-d array (float32 data give float64); cupy-rs keeps NEP 50's
        # weak scalar (docs/differences.md), so the expected dtype is the data's.
        case("div_scalar", name, "div_scalar", lambda M: (M / 4.0).toarray().astype(M.dtype), {"s": 4.0})
        case("power2", name, "power", lambda M: M.power(2).toarray(), {"p": 2})
        case("neg", name, "neg", lambda M: (-M).toarray())
        # reductions
        for ax in [None, 0, 1]:
            case(f"sum/{ax}", name, "sum", lambda M: np.asarray(M.sum(axis=ax)).reshape(-1) if ax is not None else np.asarray(M.sum()), {"axis": ax})
            if shape[0] * shape[1] > 0:
                case(f"mean/{ax}", name, "mean", lambda M: np.asarray(M.mean(axis=ax)).reshape(-1) if ax is not None else np.asarray(M.mean()), {"axis": ax})
            if t.kind != "c":
                for red in ["max", "min"]:
                    def f(M, red=red, ax=ax):
                        r = getattr(M, red)(axis=ax)
                        return np.asarray(r.toarray() if hasattr(r, "toarray") else r).reshape(-1) if ax is not None else np.asarray(r)
                    case(f"{red}/{ax}", name, red, f, {"axis": ax})
        for k in [0, 1, -2]:
            case(f"diagonal/{k}", name, "diagonal", lambda M: M.diagonal(k), {"k": k})
        for k in [0, -1, 2]:
            case(f"tril/{k}", name, "tril", lambda M: sp.tril(M, k).toarray(), {"k": k})
            case(f"triu/{k}", name, "triu", lambda M: sp.triu(M, k).toarray(), {"k": k})
        case("find", name, "find", lambda M: (lambda f: np.concatenate([f[0].astype(np.float64), f[1].astype(np.float64), f[2].real.astype(np.float64)]))(sp.find(M)))
        case("hstack", name, "hstack", lambda M: sp.hstack([M, B]).toarray(), extra_ops=[Bd])
        case("vstack", name, "vstack", lambda M: sp.vstack([M, B]).toarray(), extra_ops=[Bd])
        if shape[0] * shape[1] <= 100:
            C = sp.csr_matrix(np.array([[1.0, 0, 2], [0, -1, 0]], t))
            case("kron", name, "kron", lambda M: sp.kron(M, C).toarray(), extra_ops=[C.toarray()])
        case("has_canonical", name, "has_canonical",
             lambda M: np.array(sp.csr_matrix(M.tocsr() if build == "dense" else M).has_canonical_format))

    # has_canonical_format on the raw inputs; sort_indices keeps duplicates
    for name in ["csr_unsorted_i64", "csr_unsorted_c128"]:
        build, ops, shape, A = inputs(name)
        k = {"build": build, "shape": list(shape), "fmt": "csr", "nops": len(ops)}
        record(g, f"{name}/raw_has_canonical", "raw_has_canonical", ops, lambda: np.array(A.has_canonical_format), k)
        def si(A=A):
            C = A.copy()
            C.sort_indices()
            return np.concatenate([C.indptr, C.indices]).astype(np.int64)
        record(g, f"{name}/sort_indices", "sort_indices", ops, si, k)
        def sd(A=A):
            C = A.copy()
            C.sum_duplicates()
            return np.concatenate([C.indptr, C.indices]).astype(np.int64)
        record(g, f"{name}/sum_duplicates", "sum_duplicates", ops, sd, k)

    # ---- construction functions
    for (m, n, kk) in [(4, 4, 0), (3, 5, 1), (5, 3, -2), (4, 4, 7), (0, 3, 0)]:
        for fmt in ["dia", "csr"]:
            record(g, f"eye/{m}x{n}/k{kk}/{fmt}", "eye", [], lambda: sp.eye(m, n, k=kk, format=fmt).toarray(),
                   {"m": m, "n": n, "k": kk, "format": fmt})
    d0, d1, d2 = vals(5, "float64"), vals(4, "float64"), vals(3, "float64")
    i0, i1, i2 = [operand(g, x)[0] for x in (d0, d1, d2)]
    record(g, "diags/tri", "diags", [i0, i1, i2], lambda: sp.diags([d0, d1, d2], [0, 1, -2]).toarray(), {"offsets": [0, 1, -2]})
    record(g, "diags/rect", "diags", [i1], lambda: sp.diags([d1], [1], shape=(4, 6)).toarray(), {"offsets": [1], "shape": [4, 6]})
    s1 = np.array([3.0])
    ia = operand(g, s1)[0]
    record(g, "diags/scalar", "diags", [ia], lambda: sp.diags([s1], [-1], shape=(4, 4)).toarray(), {"offsets": [-1], "shape": [4, 4]})
    record(g, "diags/cut", "diags", [i1], lambda: sp.diags([d1], [0], shape=(3, 3)).toarray(), {"offsets": [0], "shape": [3, 3]})
    record(g, "diags/short", "diags", [i2], lambda: sp.diags([d2], [0], shape=(5, 5)).toarray(), {"offsets": [0], "shape": [5, 5]})
    record(g, "diags/offset_out", "diags", [i2], lambda: sp.diags([d2], [6], shape=(5, 5)).toarray(), {"offsets": [6], "shape": [5, 5]})
    sd_ = vals(12, "float64").reshape(3, 4)
    ia = operand(g, sd_)[0]
    record(g, "spdiags/3x4", "spdiags", [ia], lambda: sp.spdiags(sd_, [0, -1, 2], 4, 4).toarray(), {"diags": [0, -1, 2], "m": 4, "n": 4})
    record(g, "spdiags/rect", "spdiags", [ia], lambda: sp.spdiags(sd_, [0, -1, 2], 3, 5).toarray(), {"diags": [0, -1, 2], "m": 3, "n": 5})
    dd = vals(6, "float64").reshape(2, 3)
    ia = operand(g, dd)[0]
    io = operand(g, np.array([0, 1], np.int32))[0]
    record(g, "dia_matrix/2x3", "dia_matrix", [ia, io], lambda: sp.dia_matrix((dd, np.array([0, 1])), shape=(3, 4)).toarray(), {"shape": [3, 4]})
    iod = operand(g, np.array([1, 1], np.int32))[0]
    record(g, "dia_matrix/dup_offsets", "dia_matrix", [ia, iod], lambda: sp.dia_matrix((dd, np.array([1, 1])), shape=(3, 4)).toarray(), {"shape": [3, 4]})
    # a 2-D Poisson matrix from kron sums, as the solver tests build it
    T4 = sp.diags([np.full(3, -1.0), np.full(4, 2.0), np.full(3, -1.0)], [-1, 0, 1])
    P = sp.kron(sp.eye(4), T4) + sp.kron(T4, sp.eye(4))
    record(g, "poisson/4", "poisson", [], lambda: P.toarray(), {"n": 4})
    record(g, "poisson/4/AA", "poisson_aa", [], lambda: (P @ P).toarray(), {"n": 4})

    # ---- SciPy's save_npz files, read by load_npz (tests/golden/sparse_npz/)
    npz_dir = os.path.join(HERE, "sparse_npz")
    os.makedirs(npz_dir, exist_ok=True)
    _, _, _, Am = mats["dups_c128"]
    for fmt in ["csr", "csc", "coo", "dia"]:
        for compressed in [True, False]:
            fname = f"{fmt}_{'z' if compressed else 'raw'}.npz"
            M = Am.copy().asformat(fmt)
            sp.save_npz(os.path.join(npz_dir, fname), M, compressed=compressed)
            record(g, f"load_npz/{fname}", "load_npz", [], lambda: M.toarray(), {"file": fname, "format": fmt})
    Ai = sp.csr_matrix(mats["csr_unsorted_i64"][3].copy())
    Ai.indices = Ai.indices.astype(np.int64)
    Ai.indptr = Ai.indptr.astype(np.int64)
    sp.save_npz(os.path.join(npz_dir, "csr_i64_array.npz"), sp.csr_array(Ai))
    record(g, "load_npz/csr_i64_array.npz", "load_npz", [], lambda: Ai.toarray(), {"file": "csr_i64_array.npz", "format": "csr"})

    # ---- validation errors
    def err(cid, op, arrs, kw):
        ops = [operand(g, a)[0] for a in arrs]
        def fn():
            if op == "csr_matrix":
                # SciPy's constructor checks lengths only; check_format(full_check=True) is the
                # validation cupy-rs runs (bounds, monotone indptr).
                M = sp.csr_matrix(tuple(arrs), shape=tuple(kw["shape"]))
                M.check_format(full_check=True)
                return M.toarray()
            if op == "coo_matrix":
                return sp.coo_matrix((arrs[0], (arrs[1], arrs[2])), shape=tuple(kw["shape"])).toarray()
            raise AssertionError(op)
        record(g, f"error/{cid}", op, ops, fn, kw)

    f3 = np.array([1.0, 2.0, 3.0])
    err("csr_index_out_of_range", "csr_matrix", [f3, np.array([0, 3, 1], np.int32), np.array([0, 2, 3], np.int32)], {"shape": [2, 3]})
    err("csr_negative_index", "csr_matrix", [f3, np.array([0, -1, 1], np.int32), np.array([0, 2, 3], np.int32)], {"shape": [2, 3]})
    err("csr_indptr_not_monotone", "csr_matrix", [f3, np.array([0, 1, 1], np.int32), np.array([0, 3, 2, 3], np.int32)], {"shape": [3, 3]})
    err("csr_indptr_length", "csr_matrix", [f3, np.array([0, 1, 1], np.int32), np.array([0, 3], np.int32)], {"shape": [3, 3]})
    err("csr_data_length", "csr_matrix", [f3[:2], np.array([0, 1, 1], np.int32), np.array([0, 2, 3], np.int32)], {"shape": [2, 3]})
    err("coo_row_out_of_range", "coo_matrix", [f3, np.array([0, 4, 1], np.int32), np.array([0, 1, 1], np.int32)], {"shape": [3, 3]})
    err("coo_negative_col", "coo_matrix", [f3, np.array([0, 1, 1], np.int32), np.array([0, -1, 1], np.int32)], {"shape": [3, 3]})
    err("coo_length", "coo_matrix", [f3, np.array([0, 1], np.int32), np.array([0, 1, 1], np.int32)], {"shape": [3, 3]})
    Aq = sp.csr_matrix(np.eye(3))
    xq = np.ones(4)
    ia = operand(g, np.eye(3))[0]
    ix = operand(g, xq)[0]
    def mism():
        return Aq @ xq
    record(g, "error/spmv_shape", "spmv", [ia, ix], mism, {"build": "dense", "shape": [3, 3], "fmt": "csr", "nops": 1})
    g.write()

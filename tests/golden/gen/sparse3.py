"""scipy.sparse goldens, third group: the structure of SpGEMM results (`A @ B` as canonical CSR:
indptr, indices and data, after SciPy's `sort_indices`; SciPy's csr_matmat drops exact-zero
sums, as cupy-rs does) on matrices that take both of cupy-rs's algorithms (row-wise merge for
rows of A up to 32 entries, expand-sort-compress beyond); SpMV, SpMM and spsolve_triangular
(1-d and 2-d b). Every case is recorded twice, kwargs "library" "native" and "vendor" (`CUPY_SPARSE_LIBRARY`'s
values: the vendor library where the device has one, cuSPARSE on cuda; elsewhere the native
kernels, so the same goldens check the fallback).

A case's operands are A (and B) as CSR parts [data, indices, indptr] (A's first), then the
dense operand; kwargs "sa", "sb" (shapes), for spgemm "part": "parts" (int64 [indptr, indices]
of the result), "data" or "dense"; for spsolve_triangular "lower", "unit". spsolve_triangular
uses only the chosen triangle (cupy-rs's documented rule; SciPy's SuperLU path reads every
entry), so its non-triangular case's expected value is NumPy's solve of that triangle.

BSR, LIL and DOK cases (library "native" only): "bsr_dense" (operand: a dense matrix, kwargs
"blocksize" [R, C] or null for SciPy's estimate, "part": "parts" (int64 [indptr, indices,
R, C] after `sort_indices`), "data", "dense", "spmv" with a second operand), "bsr_parts"
(operands data [nb, R, C], indices, indptr; "shape"; "part": "dense" or "nnz"); "lil"/"dok"
(operand: a dense matrix; kwargs "sets" [[i, j, v], ...] applied in order, "gets" [[i, j]],
"part": "dense", "gets" (the values read after the sets), "csr" (int64 [indptr, indices] of
tocsr) or "rows" (lil: int64 [row lengths..., columns...]))."""

import scipy.sparse as sp

from .common import *  # noqa: F401,F403


def gen_sparse3():
    g = Group("sparse3")
    rng = np.random.default_rng(33)
    mats = {}

    def csr(name, data, indices, indptr, shape, it=np.int32):
        mats[name] = (np.asarray(data), np.asarray(indices, it), np.asarray(indptr, it), shape)

    def from_dense(name, d, it=np.int32, shuffle=False):
        A = sp.csr_matrix(d)
        data, ind, ptr = A.data.copy(), A.indices.copy(), A.indptr.copy()
        if shuffle:  # unsorted columns within each row
            for r in range(A.shape[0]):
                s, e = ptr[r], ptr[r + 1]
                p = rng.permutation(e - s) + s
                data[s:e], ind[s:e] = data[p], ind[p]
        csr(name, data, ind, ptr, d.shape, it)

    def sparse_dense(m, n, density, dtype=np.float64):
        d = rng.uniform(-1, 1, (m, n))
        if np.dtype(dtype).kind == "c":
            d = d + 1j * rng.uniform(-1, 1, (m, n))
        d[rng.uniform(0, 1, (m, n)) > density] = 0
        return d.astype(dtype)

    # the 2-D 5-point Poisson matrix of a 5 x 5 grid
    T = sp.diags([-np.ones(4), 2 * np.ones(5), -np.ones(4)], [-1, 0, 1])
    I = sp.identity(5)
    P = (sp.kron(I, T) + sp.kron(T, I)).tocsr()
    P.sum_duplicates()
    from_dense("poisson5", P.toarray())
    # duplicates and unsorted columns in A's and B's rows, empty rows in both
    csr("dupsA", rng.uniform(-1, 1, 9), [3, 0, 3, 6, 1, 1, 5, 0, 2], [0, 3, 3, 6, 9, 9, 9], (6, 7))
    csr("dupsB", rng.uniform(-1, 1, 10), [4, 1, 1, 0, 2, 2, 3, 4, 0, 1], [0, 3, 3, 5, 8, 8, 9, 10], (7, 5))
    # exact cancellation: row 0 of C sums to 0 in column 0 (dropped), row 1 keeps its entries
    csr("cancelA", np.array([1.0, 1.0, 2.0, -1.0]), [0, 1, 0, 1], [0, 2, 4], (2, 2))
    csr("cancelB", np.array([1.0, 3.0, -1.0, 5.0]), [0, 1, 0, 1], [0, 2, 4], (2, 2))
    # rectangular, shuffled columns, int64 indices
    from_dense("rect9x13", sparse_dense(9, 13, 0.35), shuffle=True)
    from_dense("rect13x6", sparse_dense(13, 6, 0.4), it=np.int64)
    # complex128 and float32
    from_dense("c9x9", sparse_dense(9, 9, 0.3, np.complex128))
    from_dense("f32_8x8", sparse_dense(8, 8, 0.4, np.float32))
    # A's rows past 32 entries (the ESC path), exactly 32 (the row-wise path's limit)
    wide = sparse_dense(4, 50, 0.0)
    wide[0, :40] = rng.uniform(0.5, 1, 40)
    wide[2, 5:37] = rng.uniform(0.5, 1, 32)
    wide[3, 7] = 1.5
    from_dense("wide40", wide)
    from_dense("wide32", wide[[1, 2, 3]])
    from_dense("tall50x7", sparse_dense(50, 7, 0.6))
    # long rows (1 and 4) among short and empty ones: ESC for those, row-wise for the rest;
    # and every row long (ESC alone)
    mixed = sparse_dense(8, 50, 0.1)
    mixed[1, 3:43] = rng.uniform(-1, 1, 40)
    mixed[4, 10:45] = rng.uniform(-1, 1, 35)
    mixed[6] = 0
    from_dense("mixed8x50", mixed, shuffle=True)
    from_dense("alllong3x50", rng.uniform(-1, 1, (3, 50)))
    # many products per row (30 x 40: the exact step bound)
    many = np.zeros((3, 60))
    many[:, :30] = rng.uniform(0.5, 1, (3, 30))
    from_dense("many3x60", many)
    from_dense("dense60x45", sparse_dense(60, 45, 0.9))

    pairs = [("poisson5", "poisson5"), ("dupsA", "dupsB"), ("cancelA", "cancelB"),
             ("rect9x13", "rect13x6"), ("c9x9", "c9x9"), ("f32_8x8", "f32_8x8"),
             ("f32_8x8", "rect13x6_8"), ("wide40", "tall50x7"), ("wide32", "tall50x7"), ("mixed8x50", "tall50x7"),
             ("alllong3x50", "tall50x7"),
             ("many3x60", "dense60x45")]
    # float32 @ float64 (promotion): B is the first 8 rows of rect13x6
    d, i, p, s = mats["rect13x6"]
    csr("rect13x6_8", d[:p[8]], i[:p[8]], p[:9], (8, 6), np.int64)

    def mat(name):
        data, ind, ptr, shape = mats[name]
        return sp.csr_matrix((data, ind, ptr), shape=shape)

    def ops_of(name):
        data, ind, ptr, _ = mats[name]
        return [operand(g, data)[0], operand(g, ind)[0], operand(g, ptr)[0]]

    def lib_record(cid, op, ops, fn, k, extra=None):
        for lib in ["native", "vendor"]:
            record(g, f"{cid}/{lib}", op, ops, fn, dict(k, library=lib), extra)

    for a, b in pairs:
        A, B = mat(a), mat(b)
        k = {"sa": list(A.shape), "sb": list(B.shape)}
        C = A @ B
        C.sort_indices()
        assert C.has_canonical_format
        parts = lambda C=C: np.concatenate([C.indptr, C.indices]).astype(np.int64)
        scale = abs(A) @ abs(B)
        scale.sort_indices()
        n = max(1, int(np.diff(A.indptr).max()))
        tol = {"scale": g.arr(np.abs(scale.data)), "n": n}
        ops = ops_of(a) + ops_of(b)
        lib_record(f"{a}@{b}/parts", "spgemm", ops, parts, dict(k, part="parts"))
        if C.nnz == scale.nnz:
            lib_record(f"{a}@{b}/data", "spgemm", ops, lambda C=C: C.data, dict(k, part="data"), tol)
        lib_record(f"{a}@{b}/dense", "spgemm", ops, lambda C=C: C.toarray(), dict(k, part="dense"),
                   {"scale": g.arr((abs(A) @ abs(B)).toarray()), "n": n})

    # SpMV and SpMM (duplicates and unsorted columns, int64 indices, complex, float32)
    for name in ["poisson5", "dupsA", "rect9x13", "rect13x6", "c9x9", "f32_8x8", "wide40"]:
        A = mat(name)
        t = A.dtype
        x = rng.uniform(-1, 1, A.shape[1]).astype(t)
        X = rng.uniform(-1, 1, (A.shape[1], 3)).astype(t)
        n = max(1, int(np.diff(A.indptr).max()))
        k = {"sa": list(A.shape)}
        lib_record(f"{name}/spmv", "spmv", ops_of(name) + [operand(g, x)[0]], lambda A=A, x=x: A @ x, k,
                   {"scale": g.arr(abs(A) @ np.abs(x)), "n": n})
        lib_record(f"{name}/spmm", "spmm", ops_of(name) + [operand(g, X)[0]], lambda A=A, X=X: A @ X, k,
                   {"scale": g.arr(abs(A) @ np.abs(X)), "n": n})

    # spsolve_triangular with a 1-d b (the vendor SpSV), on triangular matrices and on a full
    # one (only the chosen triangle is used)
    def tri(name, d, it=np.int32):
        from_dense(name, d, it)
    base = rng.uniform(-1, 1, (12, 12)) * (rng.uniform(0, 1, (12, 12)) < 0.4) + 3 * np.eye(12)
    tri("low12", np.tril(base))
    tri("up12", np.triu(base), np.int64)
    tri("full12", base)
    cbase = (base + 1j * rng.uniform(-1, 1, (12, 12)) * (base != 0)).astype(np.complex128)
    tri("clow12", np.tril(cbase))
    tri("flow12", np.tril(base).astype(np.float32))
    for name, lower, unit in [("low12", True, False), ("low12", True, True), ("up12", False, False),
                              ("up12", False, True), ("full12", True, False), ("full12", False, True),
                              ("clow12", True, False), ("flow12", True, False)]:
        d = mats[name][0]
        A = mat(name).toarray()
        T = np.tril(A) if lower else np.triu(A)
        if unit:
            T = T - np.diag(np.diag(T)) + np.eye(12)
        b = rng.uniform(-1, 1, 12).astype(A.dtype)
        x = np.linalg.solve(T, b).astype(np.result_type(A.dtype, np.float32))
        lib_record(f"{name}/spsolve_triangular/lower={lower}/unit={unit}", "spsolve_triangular",
                   ops_of(name) + [operand(g, b)[0]], lambda x=x: x,
                   {"sa": [12, 12], "lower": lower, "unit": unit},
                   {"scale": g.arr(np.abs(x) + 1.0), "n": 64})
    # spsolve_triangular with a 2-d b (k right-hand sides: the vendor SpSM), from their own
    # generator so the cases above and below keep their values
    rng2 = np.random.default_rng(331)
    for name, lower, unit, k in [("low12", True, False, 3), ("up12", False, True, 2),
                                 ("full12", False, False, 4), ("clow12", True, False, 2),
                                 ("flow12", True, True, 3)]:
        A = mat(name).toarray()
        T = np.tril(A) if lower else np.triu(A)
        if unit:
            T = T - np.diag(np.diag(T)) + np.eye(12)
        b = rng2.uniform(-1, 1, (12, k)).astype(A.dtype)
        x = np.linalg.solve(T, b).astype(np.result_type(A.dtype, np.float32))
        lib_record(f"{name}/spsolve_triangular2d/k={k}/lower={lower}/unit={unit}", "spsolve_triangular",
                   ops_of(name) + [operand(g, b)[0]], lambda x=x: x,
                   {"sa": [12, 12], "lower": lower, "unit": unit},
                   {"scale": g.arr(np.abs(x) + 1.0), "n": 64})
    # ---- BSR
    def bsr_case(cid, d, bs, part, extra_ops=(), fn=None, tol=None):
        ops = [operand(g, d)[0]] + [operand(g, x)[0] for x in extra_ops]
        k = {"blocksize": list(bs) if bs else None, "part": part, "library": "native"}
        record(g, f"bsr/{cid}/{part}", "bsr_dense", ops, fn, k, tol)

    blocky = np.kron(sparse_dense(3, 4, 0.5), np.ones((2, 2))) * rng.uniform(0.5, 1, (6, 8))
    six = np.kron(sparse_dense(2, 2, 0.8), rng.uniform(0.5, 1, (6, 6)))
    loose = sparse_dense(6, 9, 0.2)
    for cid, d, bs in [("blocky22", blocky, (2, 2)), ("blocky_est", blocky, None),
                       ("blocky32", blocky, (3, 2)), ("six_est", six, None), ("loose13", loose, (1, 3)),
                       ("loose_est", loose, None), ("c_blocky22", (blocky * (1 + 1j)).astype(np.complex128), (2, 2))]:
        B = sp.bsr_matrix(d, blocksize=bs)
        B.sort_indices()
        R, C = B.blocksize
        parts = np.concatenate([B.indptr, B.indices, [R, C]]).astype(np.int64)
        bsr_case(cid, d, bs, "parts", fn=lambda parts=parts: parts)
        bsr_case(cid, d, bs, "data", fn=lambda B=B: B.data)
        bsr_case(cid, d, bs, "dense", fn=lambda B=B: B.toarray())
        x = rng.uniform(-1, 1, d.shape[1]).astype(d.dtype)
        bsr_case(cid, d, bs, "spmv", extra_ops=[x], fn=lambda B=B, x=x: B @ x,
                 tol={"scale": g.arr(abs(B) @ np.abs(x)), "n": 16})
    bsr_case("bad", loose, (4, 3), "dense", fn=lambda: sp.bsr_matrix(loose, blocksize=(4, 3)).toarray())
    # (data, indices, indptr) with unsorted and repeated blocks in a block row
    bdata = rng.uniform(-1, 1, (4, 2, 3))
    bind = np.array([2, 0, 1, 1], np.int32)
    bptr = np.array([0, 2, 2, 4], np.int32)
    Bp = sp.bsr_matrix((bdata, bind, bptr), shape=(6, 9))
    for part, fn in [("dense", lambda: Bp.toarray()), ("nnz", lambda: np.array(Bp.nnz, np.int64))]:
        record(g, f"bsr/parts/{part}", "bsr_parts",
               [operand(g, bdata)[0], operand(g, bind)[0], operand(g, bptr)[0]], fn,
               {"shape": [6, 9], "part": part, "library": "native"})

    # ---- LIL and DOK
    base = sparse_dense(5, 6, 0.3)
    sets = [[0, 0, 2.5], [4, 5, -1.0], [-1, 0, 3.0], [1, 2, 0.0], [0, 0, 0.0], [2, -1, 7.0]]
    nz = np.flatnonzero(base)
    sets.append([int(nz[0] // 6), int(nz[0] % 6), 0.0])  # removes a stored entry
    gets = [[0, 0], [4, 5], [-1, -1], [3, 3], [2, 5]]
    for kind, cls in [("lil", sp.lil_matrix), ("dok", sp.dok_matrix)]:
        M = cls(base)
        for i, j, v in sets:
            M[i, j] = v
        got = np.array([M[i, j] for i, j in gets])
        C = M.tocsr()
        C.sort_indices()
        k = {"sets": sets, "gets": gets, "library": "native"}
        ops = [operand(g, base)[0]]
        record(g, f"{kind}/dense", kind, ops, lambda M=M: M.toarray(), dict(k, part="dense"))
        record(g, f"{kind}/gets", kind, ops, lambda got=got: got, dict(k, part="gets"))
        record(g, f"{kind}/nnz", kind, ops, lambda M=M: np.array(M.nnz, np.int64), dict(k, part="nnz"))
        record(g, f"{kind}/csr", kind, ops,
               lambda C=C: np.concatenate([C.indptr, C.indices]).astype(np.int64), dict(k, part="csr"))
        if kind == "lil":
            rows = np.concatenate([[len(r) for r in M.rows], np.concatenate(M.rows)]).astype(np.int64)
            record(g, "lil/rows", kind, ops, lambda rows=rows: rows, dict(k, part="rows"))
        # indexing (SciPy's lil/dok return their own format; bsr has none)
        for spec in [["row", -2], ["row", 0], ["rows", 1, None, 2], ["rows", None, None, -1],
                     ["rows", 4, 1, -2], ["col", 3], ["col", -1], ["cols", 1, 5, 1],
                     ["cols", None, None, -2], ["both", [1, 4, 1], [5, 0, -2]], ["rows", 3, 3, 1]]:
            if spec[0] == "row":
                key = spec[1]
            elif spec[0] == "rows":
                key = slice(spec[1], spec[2], spec[3])
            elif spec[0] == "col":
                key = (slice(None), spec[1])
            elif spec[0] == "cols":
                key = (slice(None), slice(spec[1], spec[2], spec[3]))
            else:
                key = (slice(*spec[1]), slice(*spec[2]))
            R = M[key]
            assert isinstance(R, cls)
            record(g, f"{kind}/index/{spec}", kind, ops, lambda R=R: R.toarray(),
                   dict(k, part="index", index=spec))
        def oob(cls=cls):
            M = cls(base)
            M[5, 0] = 1.0
        record(g, f"{kind}/oob", kind, ops, oob, {"sets": [[5, 0, 1.0]], "gets": [], "part": "dense",
                                                  "library": "native"})

    # ---- SpGEMM past 1,024 rows (the cpu backend runs such launches' blocks on several
    # threads, their raw stores logged and written in order); its own generator, so the cases
    # above keep their values
    brng = np.random.default_rng(331)
    B = sp.random(1100, 1100, density=0.0025, format="csr", random_state=brng, dtype=np.float64)
    B.data = brng.uniform(-1, 1, B.nnz)
    B.sort_indices()
    csr("big1100", B.data, B.indices, B.indptr, B.shape)
    A = mat("big1100")
    C = A @ A
    C.sort_indices()
    scale = abs(A) @ abs(A)
    scale.sort_indices()
    assert C.nnz == scale.nnz
    k = {"sa": list(A.shape), "sb": list(A.shape)}
    ops = ops_of("big1100") * 2
    lib_record("big1100@big1100/parts", "spgemm", ops,
               lambda C=C: np.concatenate([C.indptr, C.indices]).astype(np.int64), dict(k, part="parts"))
    lib_record("big1100@big1100/data", "spgemm", ops, lambda C=C: C.data, dict(k, part="data"),
               {"scale": g.arr(np.abs(scale.data)), "n": max(1, int(np.diff(A.indptr).max()))})
    g.write()

//! IR pieces shared by the sorting, searching and set routines: NumPy's sort order as an
//! expression ([`sort_less`]), equality with `equal_nan` ([`same`]), the per-row gather that
//! composes stable sorts ([`gather_rows`]), the binary search of `searchsorted`/`isin`
//! ([`search`]) and the stream compaction behind `unique` and the set routines ([`compress`]).
//!
//! Each is one elementwise IR kernel, so it runs on every backend that stores the dtypes.

use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt, UnaryOp};
use cupy_core::scalar::Scalar;

fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn isnan(e: Expr) -> Expr {
    Expr::unary(UnaryOp::IsNan, e)
}
fn not(e: Expr) -> Expr {
    Expr::unary(UnaryOp::Not, e)
}
fn and(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::And, a, b)
}
fn or(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Or, a, b)
}
fn i64c(v: i64) -> Expr {
    Expr::constant(Scalar::Int64(v))
}

/// NumPy's sort order `a < b` (the order of `sort`, `searchsorted`, `unique`): integers and
/// bools by value; floats with NaN after everything (`a < b || (isnan(b) && !isnan(a))`);
/// complex lexicographically with NumPy's NaN classes (`R + Rj`, `R + nanj`, `nan + Rj`,
/// `nan + nanj`, each class ordered by its non-NaN parts), as NumPy's `CLT`. `a` and `b` should
/// be cheap (locals or inputs): they are repeated.
pub(crate) fn sort_less(a: Expr, b: Expr) -> Expr {
    let t = a.ty;
    if t.is_bool() {
        return bin(BinaryOp::Lt, a.cast(DType::UInt8), b.cast(DType::UInt8));
    }
    if t.is_complex() {
        let (ar, ai) = (
            Expr::unary(UnaryOp::Real, a.clone()),
            Expr::unary(UnaryOp::Imag, a),
        );
        let (br, bi) = (
            Expr::unary(UnaryOp::Real, b.clone()),
            Expr::unary(UnaryOp::Imag, b),
        );
        let lt = bin(BinaryOp::Lt, ar.clone(), br.clone());
        let gt = bin(BinaryOp::Gt, ar.clone(), br.clone());
        let eq = or(
            bin(BinaryOp::Eq, ar.clone(), br.clone()),
            and(isnan(ar), isnan(br.clone())),
        );
        let imag_less = or(
            bin(BinaryOp::Lt, ai.clone(), bi.clone()),
            and(isnan(bi.clone()), not(isnan(ai.clone()))),
        );
        return Expr::select(
            lt,
            or(not(isnan(ai.clone())), isnan(bi.clone())),
            Expr::select(
                gt,
                and(isnan(bi), not(isnan(ai))),
                Expr::select(eq, imag_less, isnan(br)),
            ),
        );
    }
    if t.is_float() {
        return or(
            bin(BinaryOp::Lt, a.clone(), b.clone()),
            and(isnan(b), not(isnan(a))),
        );
    }
    bin(BinaryOp::Lt, a, b)
}

/// `a == b`, and with `equal_nan` also true when both have a NaN (for complex: a NaN in either
/// part, NumPy's `unique(equal_nan=True)` rule for values sorted next to each other).
pub(crate) fn same(a: Expr, b: Expr, equal_nan: bool) -> Expr {
    let t = a.ty;
    if t.is_bool() {
        return bin(BinaryOp::Eq, a.cast(DType::UInt8), b.cast(DType::UInt8));
    }
    let eq = bin(BinaryOp::Eq, a.clone(), b.clone());
    if equal_nan && (t.is_float() || t.is_complex()) {
        or(eq, and(isnan(a), isnan(b)))
    } else {
        eq
    }
}

/// A C-contiguous copy of `a` (itself when it already is one).
pub(crate) fn contiguous(a: &Array) -> Result<Array> {
    if a.is_c_contiguous() {
        Ok(a.clone())
    } else {
        a.copy()
    }
}

/// `out[b, j] = src[b, idx[b, j]]` for C-contiguous `[batch, n]` arrays (`idx` int64, each in
/// `0..n`): `take_along_axis` on the last axis, the step that composes stable sorts.
pub(crate) fn gather_rows(op: &str, src: &Array, idx: &Array) -> Result<Array> {
    let n = *idx.shape().last().unwrap_or(&1) as i64;
    let t = src.dtype();
    let k = gather_kernel(t);
    let out = Array::empty_on(src.device(), idx.shape(), t)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let idx = contiguous(idx)?;
    Elementwise {
        op,
        kernel: &k,
        inputs: &[&idx],
        raws: &[src],
        params: vec![Scalar::Int64(n.max(1))],
        outs: vec![Some(&out)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(out)
}

/// The kernel of [`gather_rows`] for dtype `t` (param: the row length).
pub(crate) fn gather_kernel(t: DType) -> Kernel {
    let p = Expr::param(0, DType::Int64);
    let row = bin(
        BinaryOp::Mul,
        bin(BinaryOp::Div, Expr::index(), p.clone()),
        p,
    );
    let at = bin(BinaryOp::Add, row, Expr::input(0, DType::Int64));
    let mut k = Kernel::map(
        "sort_gather",
        vec![DType::Int64],
        vec![DType::Int64],
        Expr::load(0, t, at),
    );
    k.raws = vec![t];
    k
}

/// What [`search`] computes per value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Find {
    /// The insertion index (`searchsorted`): `left` finds the first position whose element is
    /// not less than the value, `right` the first whose element is greater.
    Position {
        /// `side='right'`.
        right: bool,
    },
    /// Whether the value is present (`isin`), XOR `invert`. NaN is never present (NumPy).
    Member {
        /// `invert=True`.
        invert: bool,
    },
}

/// A binary search of every element of `v` (any shape) in the sorted 1-D `sorted` (NumPy's
/// order, [`sort_less`]), both already of the comparison dtype: int64 positions, or bools for
/// [`Find::Member`]. One IR kernel: `ceil(log2(n + 1))` halving steps (a uniform loop bound).
pub(crate) fn search(op: &str, sorted: &Array, v: &Array, find: Find) -> Result<Array> {
    let t = sorted.dtype();
    if v.dtype() != t {
        return Err(Error::invalid(
            op,
            "internal: search operands of different dtypes",
        ));
    }
    let n = sorted.size() as i64;
    let out_t = match find {
        Find::Position { .. } => DType::Int64,
        Find::Member { .. } => DType::Bool,
    };
    if let (Find::Member { invert }, 0) = (find, n) {
        return Array::full_on(v.device(), v.shape(), Scalar::Bool(invert), DType::Bool);
    }
    let out = Array::empty_on(v.device(), v.shape(), out_t)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let steps = 64 - (n as u64).leading_zeros() as i64;
    let k = search_kernel(t, find);
    let sorted = contiguous(sorted)?;
    Elementwise {
        op,
        kernel: &k,
        inputs: &[v],
        raws: &[&sorted],
        params: vec![Scalar::Int64(n), Scalar::Int64(steps)],
        outs: vec![Some(&out)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(out)
}

/// The kernel of [`search`] for comparison dtype `t` (params: the length, the step count).
pub(crate) fn search_kernel(t: DType, find: Find) -> Kernel {
    let out_t = match find {
        Find::Position { .. } => DType::Int64,
        Find::Member { .. } => DType::Bool,
    };
    // locals: 0 lo, 1 hi, 2 loop, 3 mid, 4 x (element), 5 v (value)
    let var = |k: usize| {
        let ty = if k >= 4 { t } else { DType::Int64 };
        Expr::var(k, ty)
    };
    let np = Expr::param(0, DType::Int64);
    let go_right = match find {
        Find::Position { right: true } => not(sort_less(var(5), var(4))),
        _ => sort_less(var(4), var(5)),
    };
    let step = Stmt::If {
        cond: bin(BinaryOp::Lt, var(0), var(1)),
        then_body: vec![
            Stmt::Assign {
                var: 3,
                value: bin(BinaryOp::Div, bin(BinaryOp::Add, var(0), var(1)), i64c(2)),
            },
            Stmt::Assign {
                var: 4,
                value: Expr::load(0, t, var(3)),
            },
            Stmt::If {
                cond: go_right,
                then_body: vec![Stmt::Assign {
                    var: 0,
                    value: bin(BinaryOp::Add, var(3), i64c(1)),
                }],
                else_body: vec![Stmt::Assign {
                    var: 1,
                    value: var(3),
                }],
            },
        ],
        else_body: vec![],
    };
    let result = match find {
        Find::Position { .. } => var(0),
        Find::Member { invert } => {
            let last = bin(BinaryOp::Sub, np.clone(), i64c(1));
            let at = bin(BinaryOp::Min, var(0), last);
            let hit = and(
                bin(BinaryOp::Lt, var(0), np.clone()),
                same(Expr::load(0, t, at), var(5), false),
            );
            if invert {
                not(hit)
            } else {
                hit
            }
        }
    };
    Kernel {
        name: match find {
            Find::Position { right: false } => "searchsorted_left",
            Find::Position { right: true } => "searchsorted_right",
            Find::Member { .. } => "isin_search",
        }
        .into(),
        inputs: vec![t],
        outputs: vec![out_t],
        raws: vec![t],
        params: vec![DType::Int64, DType::Int64],
        locals: vec![DType::Int64, DType::Int64, DType::Int64, DType::Int64, t, t],
        body: vec![
            Stmt::Let {
                var: 5,
                value: Expr::input(0, t),
            },
            Stmt::Let {
                var: 0,
                value: i64c(0),
            },
            Stmt::Let { var: 1, value: np },
            Stmt::Let {
                var: 3,
                value: i64c(0),
            },
            Stmt::Let {
                var: 4,
                value: var(5),
            },
            Stmt::For {
                var: 2,
                start: i64c(0),
                end: Expr::param(1, DType::Int64),
                body: vec![step],
            },
            Stmt::Store {
                output: 0,
                value: result,
            },
        ],
    }
}

/// A source of [`compress`]: an array of the mask's length, or the element's own index.
pub(crate) enum Src<'a> {
    /// Elements of this 1-D array.
    Array(&'a Array),
    /// The position in the mask (int64).
    Index,
}

/// Stream compaction: for a 1-D bool `mask`, the inclusive running count `pos` of its true
/// elements (int32 below 2^31 elements, else int64; from [`crate::cumsum`]), the number of them, and for each source the
/// elements where the mask is true, in order (`src[mask]`). One scan, one read of the count
/// (a synchronisation: the result's length is data-dependent), one scatter kernel, which reads
/// the mask whole and the running counts and sources only where the mask is true.
///
/// With `need_pos` false, where [`backend_compacts`] (cuda and hip: per-tile counts, their scan
/// and one scatter; the cpu, one loop), the true elements are counted by a reduction instead and
/// no running counts are made (`None`).
pub(crate) fn compress(
    op: &str,
    mask: &Array,
    srcs: &[Src<'_>],
    need_pos: bool,
) -> Result<(Option<Array>, usize, Vec<Array>)> {
    if !need_pos {
        if let Some(r) = backend_compress(mask, srcs)? {
            return Ok((None, r.0, r.1));
        }
    }
    let (pos, count, outs) = scan_compress(op, mask, srcs)?;
    Ok((Some(pos), count, outs))
}

/// Whether [`compress`] of `mask` with `sources` sources takes the backend's own compaction
/// ([`cupy_core::Backend::compresses`]): not for more than four sources, nor while a CUDA
/// graph is recorded (the count is read back).
pub(crate) fn backend_compacts(mask: &Array, sources: usize) -> bool {
    let dev = mask.device();
    dev.backend().compresses()
        && sources <= cupy_core::gpu::sortscan::COMPRESS_SOURCES
        && crate::cuda::graph::recording(dev).is_none()
}

/// [`compress`] by the backend's own compaction, where [`backend_compacts`] (`None` otherwise).
fn backend_compress(mask: &Array, srcs: &[Src<'_>]) -> Result<Option<(usize, Vec<Array>)>> {
    use cupy_core::backend::{CompressCall, Operand};
    if !backend_compacts(mask, srcs.len()) {
        return Ok(None);
    }
    let dev = mask.device().clone();
    let mask = contiguous(&mask.reshape(&[-1])?)?;
    let count = match crate::count_nonzero(&mask)?.item()? {
        Scalar::Int64(c) => c as usize,
        _ => return Ok(None),
    };
    let src_c: Vec<Option<Array>> = srcs
        .iter()
        .map(|s| match s {
            Src::Array(a) => contiguous(&a.reshape(&[-1])?).map(Some),
            Src::Index => Ok(None),
        })
        .collect::<Result<_>>()?;
    let outs: Vec<Array> = src_c
        .iter()
        .map(|s| {
            Array::empty_on(
                &dev,
                &[count],
                s.as_ref().map_or(DType::Int64, |a| a.dtype()),
            )
        })
        .collect::<Result<_>>()?;
    if count == 0 {
        return Ok(Some((0, outs)));
    }
    fn operand(a: &Array) -> Operand<'_> {
        Operand {
            buffer: &a.buffer,
            layout: a.layout.clone(),
        }
    }
    let sources: Vec<Option<Operand<'_>>> = src_c.iter().map(|s| s.as_ref().map(operand)).collect();
    let outputs: Vec<Operand<'_>> = outs.iter().map(operand).collect();
    let mut reads = vec![&mask.buffer];
    reads.extend(src_c.iter().flatten().map(|a| &a.buffer));
    let writes: Vec<_> = outs.iter().map(|o| &o.buffer).collect();
    crate::cuda::order::order(&dev, &reads, &writes)?;
    dev.backend().compress(&CompressCall {
        mask: operand(&mask),
        sources: &sources,
        outputs: &outputs,
        count,
    })?;
    Ok(Some((count, outs)))
}

/// [`compress`] through a scan of the mask (the running counts) and an elementwise scatter.
fn scan_compress(op: &str, mask: &Array, srcs: &[Src<'_>]) -> Result<(Array, usize, Vec<Array>)> {
    let dev = mask.device().clone();
    let n = mask.size();
    // int32 running counts while they fit (half the bytes of int64).
    let pos_t = if n < i32::MAX as usize {
        DType::Int32
    } else {
        DType::Int64
    };
    let pos = crate::cumsum_with(
        mask,
        crate::Scan {
            axis: None,
            dtype: Some(pos_t),
        },
    )?;
    let count = if n == 0 {
        0
    } else {
        match pos.slice(&crate::s![n - 1])?.item()?.cast(DType::Int64) {
            Scalar::Int64(c) => c as usize,
            _ => 0,
        }
    };
    let outs: Vec<Array> = srcs
        .iter()
        .map(|s| match s {
            Src::Array(a) => Array::empty_on(&dev, &[count], a.dtype()),
            Src::Index => Array::empty_on(&dev, &[count], DType::Int64),
        })
        .collect::<Result<_>>()?;
    if count == 0 {
        return Ok((pos, 0, outs));
    }
    // The running counts and the sources are raw operands loaded only where the mask is true
    // (a run start of `unique`, a kept element), so their sectors are read only there.
    let pos_c = contiguous(&pos)?;
    let src_c: Vec<Option<Array>> = srcs
        .iter()
        .map(|s| match s {
            Src::Array(a) => contiguous(a).map(Some),
            Src::Index => Ok(None),
        })
        .collect::<Result<_>>()?;
    let pos_raw = outs.len();
    let mut loaded: Vec<&Array> = vec![&pos_c];
    let mut body = vec![];
    let at = bin(
        BinaryOp::Sub,
        Expr::load(pos_raw, pos_t, Expr::index()).cast(DType::Int64),
        i64c(1),
    );
    let mut raw_dtypes: Vec<DType> = outs.iter().map(|o| o.dtype()).collect();
    raw_dtypes.push(pos_t);
    for (k, s) in src_c.iter().enumerate() {
        let value = match s {
            Some(a) => {
                loaded.push(a);
                raw_dtypes.push(a.dtype());
                Expr::load(outs.len() + loaded.len() - 1, a.dtype(), Expr::index())
            }
            None => Expr::index(),
        };
        body.push(Stmt::StoreRaw {
            raw: k,
            index: at.clone(),
            value,
        });
    }
    let k = Kernel {
        name: "compress".into(),
        inputs: vec![DType::Bool],
        outputs: vec![],
        raws: raw_dtypes,
        params: vec![],
        locals: vec![],
        body: vec![Stmt::If {
            cond: Expr::input(0, DType::Bool),
            then_body: body,
            else_body: vec![],
        }],
    };
    let inputs: Vec<&Array> = vec![mask];
    let mut raws: Vec<&Array> = outs.iter().collect();
    raws.extend(loaded);
    Elementwise {
        op,
        kernel: &k,
        inputs: &inputs,
        raws: &raws,
        params: vec![],
        outs: vec![],
        device: Some(&dev),
        shape: None,
    }
    .run()?;
    Ok((pos, count, outs))
}

/// A 1-D int64 or bool array of `len` elements computed from the element index `i` by `value`
/// (which may load the `raws`), on `device`.
pub(crate) fn generate(
    op: &str,
    device: &Device,
    len: usize,
    value: Expr,
    raws: &[&Array],
    params: Vec<Scalar>,
) -> Result<Array> {
    let k = generator(
        op,
        value,
        raws.iter().map(|r| r.dtype()).collect(),
        params.iter().map(|p| p.dtype()).collect(),
    );
    generate_with(op, device, len, &k, raws, params)
}

/// The kernel of [`generate`]: `out[i] = value` with these raw and parameter dtypes.
pub(crate) fn generator(name: &str, value: Expr, raws: Vec<DType>, params: Vec<DType>) -> Kernel {
    let mut k = Kernel::map(name, vec![], params, value);
    k.raws = raws;
    k
}

/// Runs a [`generator`] kernel over `0..len`.
pub(crate) fn generate_with(
    op: &str,
    device: &Device,
    len: usize,
    k: &Kernel,
    raws: &[&Array],
    params: Vec<Scalar>,
) -> Result<Array> {
    let out = Array::empty_on(device, &[len], k.outputs[0])?;
    if len == 0 {
        return Ok(out);
    }
    Elementwise {
        op,
        kernel: k,
        inputs: &[],
        raws,
        params,
        outs: vec![Some(&out)],
        device: Some(device),
        shape: Some(&[len]),
    }
    .run()?;
    Ok(out)
}

/// The 1-D bool "starts a new run" mask of a sorted 1-D array: `i == 0 || !same(s[i], s[i-1])`.
pub(crate) fn run_starts(op: &str, sorted: &Array, equal_nan: bool) -> Result<Array> {
    let k = run_starts_kernel(sorted.dtype(), equal_nan);
    generate_with(op, sorted.device(), sorted.size(), &k, &[sorted], vec![])
}

/// The kernel of [`run_starts`].
pub(crate) fn run_starts_kernel(t: DType, equal_nan: bool) -> Kernel {
    let i = Expr::index();
    let prev = bin(
        BinaryOp::Max,
        bin(BinaryOp::Sub, i.clone(), i64c(1)),
        i64c(0),
    );
    let value = or(
        bin(BinaryOp::Eq, i.clone(), i64c(0)),
        not(same(Expr::load(0, t, i), Expr::load(0, t, prev), equal_nan)),
    );
    generator("unique_runs", value, vec![t], vec![])
}

/// `setxor1d`'s mask over a sorted 1-D array: elements equal to neither neighbour (param: the
/// length).
pub(crate) fn singletons_kernel(t: DType) -> Kernel {
    let i = Expr::index();
    let one = i64c(1);
    let last = bin(BinaryOp::Sub, Expr::param(0, DType::Int64), one.clone());
    let prev = bin(
        BinaryOp::Max,
        bin(BinaryOp::Sub, i.clone(), one.clone()),
        i64c(0),
    );
    let next = bin(
        BinaryOp::Min,
        bin(BinaryOp::Add, i.clone(), one),
        last.clone(),
    );
    let x = Expr::load(0, t, i.clone());
    let differs = |j: Expr| not(same(x.clone(), Expr::load(0, t, j), false));
    let first = bin(BinaryOp::Eq, i.clone(), i64c(0));
    let is_last = bin(BinaryOp::Eq, i, last);
    let keep = and(or(first, differs(prev)), or(is_last, differs(next)));
    generator("setxor_keep", keep, vec![t], vec![DType::Int64])
}

/// `unique(axis=...)`'s per-element "differs from the row above" over sorted `[n, m]` rows
/// (param: `m`; row 0 never differs).
pub(crate) fn row_differs_kernel(t: DType) -> Kernel {
    let i = Expr::index();
    let pm = Expr::param(0, DType::Int64);
    let row = bin(BinaryOp::Div, i.clone(), pm.clone());
    let up = bin(BinaryOp::Max, bin(BinaryOp::Sub, i.clone(), pm), i64c(0));
    let differs = not(same(Expr::load(0, t, i), Expr::load(0, t, up), false));
    let value = and(differs, bin(BinaryOp::Gt, row, i64c(0)));
    generator("unique_rows", value, vec![t], vec![DType::Int64])
}

/// `src[idx]` for a 1-D `src` and int64 `idx` (any shape) known to be in `0..len(src)`: the
/// gather of [`crate::take`] without its bounds check (no synchronisation).
pub(crate) fn take_flat(op: &str, src: &Array, idx: &Array) -> Result<Array> {
    let shape: Vec<isize> = idx.shape().iter().map(|&d| d as isize).collect();
    take_rows(op, &src.reshape(&[-1, 1])?, idx)?.reshape(&shape)
}

/// Rows `src[idx[i], :]` of a 2-D `src` for int64 `idx` (any shape; result
/// `idx.shape + [m]`), the indices known to be valid.
pub(crate) fn take_rows(op: &str, src: &Array, idx: &Array) -> Result<Array> {
    let m = src.shape()[1];
    let k = take_rows_kernel(src.dtype());
    let mut shape = idx.shape().to_vec();
    shape.push(m);
    let out = Array::empty_on(src.device(), &shape, src.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let idx = contiguous(idx)?;
    // The indices viewed over [len, m] with a zero stride along the row.
    let len = idx.size();
    let view = Array::from_parts(
        idx.device().clone(),
        idx.buffer().clone(),
        cupy_core::layout::Layout {
            shape: vec![len, m],
            strides: vec![1, 0],
            offset: idx.layout().offset,
        },
    )?;
    let src = contiguous(src)?;
    let flat_out = out.reshape(&[len as isize, m as isize])?;
    Elementwise {
        op,
        kernel: &k,
        inputs: &[&view],
        raws: &[&src],
        params: vec![Scalar::Int64(m as i64)],
        outs: vec![Some(&flat_out)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(out)
}

/// The kernel of [`take_rows`] (param: the row length `m`).
pub(crate) fn take_rows_kernel(t: DType) -> Kernel {
    let m = Expr::param(0, DType::Int64);
    let at = bin(
        BinaryOp::Add,
        bin(BinaryOp::Mul, Expr::input(0, DType::Int64), m.clone()),
        bin(BinaryOp::Mod, Expr::index(), m),
    );
    let mut k = Kernel::map(
        "sort_take_rows",
        vec![DType::Int64],
        vec![DType::Int64],
        Expr::load(0, t, at),
    );
    k.raws = vec![t];
    k
}

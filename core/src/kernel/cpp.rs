//! IR -> C++ (the common CUDA/HIP subset): elementwise and reduction kernels.
//!
//! One emitter serves NVRTC (CUDA) and hipRTC (HIP); the flavours differ only in
//! [`prelude`] (warp size and shuffle spelling). Emission is a pure function of the kernel and a
//! *specialisation* (ndim of the merged iteration space, contiguity class, index width), never of
//! concrete sizes: shapes, strides, pointers and parameters travel in one argument struct passed
//! by value, whose layout [`ArgsLayout`] describes so a backend can pack it.
//!
//! Semantics (see [`super::ir`]): integers wrap and divide by zero to 0; floor division and
//! remainder follow NumPy; float16/bfloat16 are computed in float and rounded to their type after
//! every arithmetic node, cast and store (which equals NumPy's op-by-op evaluation); casts
//! follow [`crate::Scalar::cast`] (float -> int truncates and saturates, NaN -> 0).
//!
//! Complex64/complex128 are `cp_c64`/`cp_c128` (the prelude's `{re, im}` aggregates, aligned to
//! their size) in memory and in registers, in every launch class. Their arithmetic is NumPy's
//! on x86-64: `*` fused as NumPy's SIMD loop, `/` Smith's method, comparisons lexicographic with
//! NumPy's NaN rules, `**` NumPy's `nc_pow`; the math functions (`sqrt exp log sin cos tan tanh`,
//! `abs` as `hypot`) follow C99 Annex G special values (glibc's, which NumPy calls). Ops NumPy
//! has no complex loop for (`floor_divide`, `remainder`, bitwise, shifts, `arctan2`, `floor`,
//! `ceil`, bitwise not) and atomic updates of complex elements are refused with
//! [`Error::DTypeNotSupported`] naming the op.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{AtomicOp, BinaryOp, Expr, ExprKind, Kernel, ReduceKernel, Stmt, UnaryOp};
use crate::scalar::Scalar;
use std::fmt::Write as _;

/// The C++ dialect: which runtime compiler the source is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// NVIDIA NVRTC.
    Cuda,
    /// AMD hipRTC.
    Hip,
}

/// The common prelude (types, integer/float helpers, float16/bfloat16 conversions).
pub const COMMON_PRELUDE: &str = include_str!("cpp_prelude.h");

/// The full prelude of a flavour: the CUDA/HIP differences, then [`COMMON_PRELUDE`].
pub fn prelude(flavor: Flavor) -> String {
    let head = match flavor {
        Flavor::Cuda => {
            "// cupy-rs prelude: CUDA flavour (NVRTC)\n\
             #define CP_WARP 32\n\
             #define CP_SHFL_DOWN(v, off) __shfl_down_sync(0xffffffffu, (v), (off))\n"
        }
        Flavor::Hip => {
            "// cupy-rs prelude: HIP flavour (hipRTC)\n\
             #define CP_WARP warpSize\n\
             #define CP_SHFL_DOWN(v, off) __shfl_down((v), (off))\n"
        }
    };
    format!("{head}{COMMON_PRELUDE}")
}

/// Threads per block every emitted kernel is written for (`__launch_bounds__`).
pub const BLOCK: usize = 256;
/// Block shape of the outer-axis reduction kernel (x across output columns, y along the
/// reduced axis).
pub const OUTER_BLOCK: (usize, usize) = (32, 8);

/// How the operands of an elementwise launch are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementwiseClass {
    /// Any strides (per operand, per axis).
    Strided,
    /// Every operand is 1-D with stride 1.
    Contiguous,
    /// As `Contiguous`, and every operand pointer is aligned to [`vector_width`] elements:
    /// vector loads/stores plus a scalar tail.
    Vectorized,
    /// Two axes (`ndim` 2), any strides, walked in 32x32 tiles staged through shared memory so
    /// that operands whose fast axis is axis 0 (a transposed view) are read and written
    /// coalesced too. Launch with blocks of [`TILE_BLOCK`] threads (the grid strides over
    /// tiles). Only for kernels where [`tiled_fits`] holds.
    Tiled,
}

/// Block shape of the [`ElementwiseClass::Tiled`] kernel: 32 x 8 threads over a 32 x 32 tile.
pub const TILE_BLOCK: (usize, usize) = (32, 8);

/// Whether a kernel's operand tiles fit the shared memory the tiled class uses (32 x 33
/// elements per input and output, at most 40 KiB together).
pub fn tiled_fits(k: &Kernel) -> bool {
    let bytes: usize = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .map(|d| 32 * 33 * d.itemsize())
        .sum();
    bytes <= 40 * 1024
}

/// The specialisation of an elementwise kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementwiseSpec {
    /// Number of axes of the merged iteration shape (1 for the contiguous classes).
    pub ndim: usize,
    /// Layout class.
    pub class: ElementwiseClass,
    /// 64-bit index arithmetic (else 32-bit; valid while every operand has < 2^31 elements).
    pub index64: bool,
}

/// The specialisation of a reduction module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReduceSpec {
    /// Axes of the (merged) output shape, at least 1.
    pub out_ndim: usize,
    /// Axes of the (merged) reduced shape, at least 1.
    pub red_ndim: usize,
    /// 64-bit index arithmetic.
    pub index64: bool,
}

/// Which operand a pointer or stride belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandRef {
    /// Elementwise/reduction input `k`.
    Input(usize),
    /// Output `k` (reductions have one, `Output(0)`).
    Output(usize),
    /// Raw operand `k`.
    Raw(usize),
    /// The reduction's partial-accumulator buffer (`acc` dtype, `out_size * splits` elements).
    Partial,
}

/// One field of the argument struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Number of elements of the iteration space (elementwise).
    Size,
    /// Number of output elements (reduction).
    OutSize,
    /// Number of reduced elements per output (reduction).
    RedSize,
    /// Number of partial accumulators per output (reduction; 1 = write the output directly).
    Splits,
    /// Extent of axis `d` of the iteration (or output) shape.
    Shape(usize),
    /// Extent of reduced axis `d`.
    RedShape(usize),
    /// Device pointer of an operand, already advanced to its first element.
    Ptr(OperandRef),
    /// Element stride of an operand along axis `d` (output axes for reductions).
    Stride(OperandRef, usize),
    /// Element stride of a reduction input along reduced axis `d`.
    RedStride(OperandRef, usize),
    /// Parameter `k` (stored as its dtype's NumPy bytes).
    Param(usize),
}

/// A field's place in the struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgField {
    /// What it holds.
    pub slot: Slot,
    /// Byte offset.
    pub offset: usize,
    /// Byte size.
    pub size: usize,
}

/// A value to pack into a [`Slot`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgValue {
    /// An index-typed value (32 or 64 bits according to the spec).
    Int(i64),
    /// A device address.
    Ptr(u64),
    /// A parameter value (cast to the parameter's dtype).
    Scalar(Scalar),
}

/// The C layout of the argument struct (natural alignment, as NVRTC and hipRTC lay it out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgsLayout {
    /// Fields in declaration order.
    pub fields: Vec<ArgField>,
    /// `sizeof` the struct.
    pub size: usize,
    /// Parameter dtypes (for packing [`Slot::Param`]).
    pub params: Vec<DType>,
}

impl ArgsLayout {
    /// Packs the struct's bytes, asking `value` for each field.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if a value does not fit its field (an index past 32 bits in a
    /// 32-bit kernel) or has the wrong kind.
    pub fn pack(&self, mut value: impl FnMut(Slot) -> ArgValue) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.size];
        for f in &self.fields {
            let dst = &mut out[f.offset..f.offset + f.size];
            match (value(f.slot), f.slot) {
                (ArgValue::Scalar(s), Slot::Param(k)) => {
                    s.cast(self.params[k]).write_le_bytes(dst);
                }
                (ArgValue::Ptr(p), Slot::Ptr(_)) => dst.copy_from_slice(&p.to_le_bytes()),
                (ArgValue::Int(v), _) if f.size == 8 => dst.copy_from_slice(&v.to_le_bytes()),
                (ArgValue::Int(v), _) => {
                    let v32 = i32::try_from(v).map_err(|_| {
                        Error::invalid("kernel arguments", format!("{v} does not fit 32-bit index"))
                    })?;
                    dst.copy_from_slice(&v32.to_le_bytes())
                }
                (v, s) => {
                    return Err(Error::invalid(
                        "kernel arguments",
                        format!("value {v:?} given for field {s:?}"),
                    ))
                }
            }
        }
        Ok(out)
    }
}

/// An emitted module: source and entry points.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// Full source (prelude included).
    pub source: String,
    /// Entry points (`extern "C" __global__` names). Elementwise: one. Reduction:
    /// `[inner, outer, finish, inner_vec]`.
    pub entries: Vec<String>,
    /// The argument struct every entry takes by value.
    pub args: ArgsLayout,
    /// Elements per thread iteration of the vectorized class (1 otherwise).
    pub vector: usize,
}

/// The refusal of an op NumPy defines no complex loop for.
fn complex_unsupported(op: impl std::fmt::Debug, d: DType) -> Error {
    Error::DTypeNotSupported {
        op: format!("{op:?}"),
        dtype: d,
        device: "C++ emitter".into(),
        reason: format!("{op:?} is not defined for complex numbers"),
    }
}

/// Storage (in-memory) C type of a dtype.
pub fn storage_type(d: DType) -> &'static str {
    match d {
        DType::Bool | DType::UInt8 => "cp_u8",
        DType::Int8 => "cp_i8",
        DType::Int16 => "cp_i16",
        DType::Int32 => "cp_i32",
        DType::Int64 => "cp_i64",
        DType::UInt16 | DType::Float16 | DType::BFloat16 => "cp_u16",
        DType::UInt32 => "cp_u32",
        DType::UInt64 => "cp_u64",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Complex64 => "cp_c64",
        DType::Complex128 => "cp_c128",
    }
}

/// Compute (register) C type of a dtype.
pub fn compute_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Float16 | DType::BFloat16 | DType::Float32 => "float",
        d => storage_type(d),
    }
}

fn is_f32ish(d: DType) -> bool {
    matches!(d, DType::Float16 | DType::BFloat16 | DType::Float32)
}

/// Converts a storage value to its compute value.
fn load_conv(d: DType, s: &str) -> String {
    match d {
        DType::Bool => format!("(({s}) != 0)"),
        DType::Float16 => format!("cp_h2f({s})"),
        DType::BFloat16 => format!("cp_bf2f({s})"),
        _ => s.to_string(),
    }
}

/// Converts a compute value to its storage value.
fn store_conv(d: DType, s: &str) -> String {
    match d {
        DType::Bool => format!("((cp_u8)({s}))"),
        DType::Float16 => format!("cp_f2h({s})"),
        DType::BFloat16 => format!("cp_f2bf({s})"),
        _ => s.to_string(),
    }
}

/// Rounds an arithmetic result of a float16/bfloat16 node.
fn round_to(d: DType, s: String) -> String {
    match d {
        DType::Float16 => format!("cp_rh({s})"),
        DType::BFloat16 => format!("cp_rbf({s})"),
        _ => s,
    }
}

fn float_lit(v: f64, single: bool) -> String {
    if v.is_finite() {
        let mut s = if single {
            format!("{:?}", v as f32)
        } else {
            format!("{v:?}")
        };
        if !s.contains(['.', 'e', 'E']) {
            s.push_str(".0");
        }
        if single {
            s.push('f');
        }
        format!("({s})")
    } else if single {
        format!("__uint_as_float(0x{:08x}u)", (v as f32).to_bits())
    } else {
        format!("__longlong_as_double(0x{:016x}ll)", v.to_bits())
    }
}

/// A C++ literal of the compute type of `s`.
fn literal(s: Scalar) -> String {
    match s {
        Scalar::Bool(b) => (if b { "true" } else { "false" }).into(),
        Scalar::Int8(v) => format!("((cp_i8){v})"),
        Scalar::Int16(v) => format!("((cp_i16){v})"),
        Scalar::Int32(v) => format!("((cp_i32){}ll)", v),
        Scalar::Int64(v) if v == i64::MIN => "((cp_i64)(-9223372036854775807ll - 1))".into(),
        Scalar::Int64(v) => format!("((cp_i64){v}ll)"),
        Scalar::UInt8(v) => format!("((cp_u8){v}u)"),
        Scalar::UInt16(v) => format!("((cp_u16){v}u)"),
        Scalar::UInt32(v) => format!("((cp_u32){v}u)"),
        Scalar::UInt64(v) => format!("((cp_u64){v}ull)"),
        Scalar::Float16(v) => float_lit(v.to_f64(), true),
        Scalar::BFloat16(v) => float_lit(v.to_f64(), true),
        Scalar::Float32(v) => float_lit(v as f64, true),
        Scalar::Float64(v) => float_lit(v, false),
        Scalar::Complex64(c) => format!(
            "cp_cmake({}, {})",
            float_lit(c.re as f64, true),
            float_lit(c.im as f64, true)
        ),
        Scalar::Complex128(c) => format!(
            "cp_cmake({}, {})",
            float_lit(c.re, false),
            float_lit(c.im, false)
        ),
    }
}

/// A C++ zero of the compute type of `d` (complex: both parts +0).
fn zero_value(d: DType) -> String {
    match d {
        DType::Complex64 => "cp_cmake(0.0f, 0.0f)".into(),
        DType::Complex128 => "cp_cmake(0.0, 0.0)".into(),
        d => format!("({})0", compute_type(d)),
    }
}

/// Casts from or to a complex dtype ([`crate::Scalar::cast`]: complex -> real takes the real
/// part, complex -> bool is `re != 0 || im != 0`, real -> complex has a +0 imaginary part).
fn complex_cast(from: DType, to: DType, e: &str) -> String {
    match (from, to) {
        (DType::Complex128, DType::Complex64) => format!("cp_to_c64({e})"),
        (DType::Complex64, DType::Complex128) => format!("cp_to_c128({e})"),
        (f, DType::Bool) if f.is_complex() => format!("cp_cnonzero({e})"),
        (f, t) if f.is_complex() => cast_expr(f.real_dtype(), t, &format!("({e}).re")),
        (f, t) => {
            let r = t.real_dtype();
            format!("cp_cmake({}, ({})0)", cast_expr(f, r, e), compute_type(r))
        }
    }
}

/// C++ for casting compute value `e` of dtype `from` to dtype `to` (Scalar::cast semantics).
fn cast_expr(from: DType, to: DType, e: &str) -> String {
    if from == to {
        return e.to_string();
    }
    if from.is_complex() || to.is_complex() {
        return complex_cast(from, to, e);
    }
    if to == DType::Bool {
        return format!("(({e}) != 0)");
    }
    let from_float = from.is_float();
    match to {
        DType::Float16 => {
            if from == DType::Float32 || from == DType::BFloat16 {
                format!("cp_rh({e})")
            } else {
                format!("cp_h2f(cp_d2h((double)({e})))")
            }
        }
        DType::BFloat16 => {
            if from == DType::Float32 || from == DType::Float16 {
                format!("cp_rbf({e})")
            } else {
                format!("cp_bf2f(cp_d2bf((double)({e})))")
            }
        }
        DType::Float32 => format!("((float)({e}))"),
        DType::Float64 => format!("((double)({e}))"),
        t if t.is_integer() && from_float => {
            let f = match t {
                DType::Int8 => "cp_d2i8",
                DType::Int16 => "cp_d2i16",
                DType::Int32 => "cp_d2i32",
                DType::Int64 => "cp_d2i64",
                DType::UInt8 => "cp_d2u8",
                DType::UInt16 => "cp_d2u16",
                DType::UInt32 => "cp_d2u32",
                _ => "cp_d2u64",
            };
            format!("{f}((double)({e}))")
        }
        t => format!("(({})({e}))", compute_type(t)),
    }
}

/// How names of the things an expression reads are spelled at the emission point.
struct Names<'a> {
    /// Compute-typed inputs.
    inputs: &'a dyn Fn(usize) -> String,
    /// The flat index (an expression convertible to cp_i64).
    index: String,
    /// The kernel's entry name (prefix of its atomic helpers).
    entry: String,
}

/// Name of the helper doing an atomic `op` on one element of dtype `d`.
fn atomic_name(entry: &str, d: DType, op: AtomicOp) -> String {
    format!(
        "{entry}_atomic_{}_{}",
        format!("{op:?}").to_lowercase(),
        d.name()
    )
}

/// The helper `CP_DEV void NAME(storage* p, compute v)` doing `*p = op(*p, v)` atomically:
/// native atomics where CUDA and HIP both have them, else a compare-and-swap loop on the bit
/// pattern (on the containing 32-bit word for 8/16-bit types).
fn atomic_helper(entry: &str, d: DType, op: AtomicOp) -> Result<String> {
    if d.is_complex() {
        return Err(Error::DTypeNotSupported {
            op: format!("{entry} (atomic {op:?})"),
            dtype: d,
            device: "C++ emitter".into(),
            reason: "atomic updates of complex elements are not implemented".into(),
        });
    }
    let name = atomic_name(entry, d, op);
    let st = storage_type(d);
    let ct = compute_type(d);
    let head = format!("CP_DEV void {name}({st}* p, {ct} v) {{");
    let native = |f: &str, t: &str| format!("{head} {f}(({t}*)p, ({t})v); }}\n");
    match (op, d) {
        (AtomicOp::Add, DType::Int32) => return Ok(native("atomicAdd", "int")),
        (AtomicOp::Add, DType::UInt32) => return Ok(native("atomicAdd", "unsigned int")),
        (AtomicOp::Add, DType::Int64 | DType::UInt64) => {
            return Ok(native("atomicAdd", "unsigned long long"))
        }
        (AtomicOp::Add, DType::Float32) => return Ok(native("atomicAdd", "float")),
        (AtomicOp::Add, DType::Float64) => return Ok(native("atomicAdd", "double")),
        (AtomicOp::Max, DType::Int32) => return Ok(native("atomicMax", "int")),
        (AtomicOp::Min, DType::Int32) => return Ok(native("atomicMin", "int")),
        (AtomicOp::Max, DType::UInt32) => return Ok(native("atomicMax", "unsigned int")),
        (AtomicOp::Min, DType::UInt32) => return Ok(native("atomicMin", "unsigned int")),
        (AtomicOp::Max, DType::UInt64) => return Ok(native("atomicMax", "unsigned long long")),
        (AtomicOp::Min, DType::UInt64) => return Ok(native("atomicMin", "unsigned long long")),
        _ => {}
    }
    let apply = |cur: &str| -> String {
        match (op, d) {
            (AtomicOp::Add, DType::Bool) | (AtomicOp::Max, DType::Bool) => {
                format!("({cur} || v)")
            }
            (AtomicOp::Min, DType::Bool) => format!("({cur} && v)"),
            (AtomicOp::Add, _) if d.is_integer() => format!("cp_wadd({cur}, v)"),
            (AtomicOp::Add, _) => round_to(d, format!("({cur} + v)")),
            (AtomicOp::Max, _) => format!("cp_max({cur}, v)"),
            (AtomicOp::Min, _) => format!("cp_min({cur}, v)"),
        }
    };
    let r = apply("cur");
    Ok(match d.itemsize() {
        1 | 2 => {
            let mask = if d.itemsize() == 1 {
                "0xffu"
            } else {
                "0xffffu"
            };
            format!(
                "{head}
  const cp_u64 addr = (cp_u64)p;
  cp_u32* w = (cp_u32*)(addr & ~3ull);
  const cp_u32 sh = (cp_u32)(addr & 3ull) * 8u;
  const cp_u32 mask = {mask} << sh;
  cp_u32 old = *(volatile cp_u32*)w;
  while (true) {{
    const {st} cur_s = ({st})((old >> sh) & {mask});
    const {ct} cur = {load};
    const {ct} r = {r};
    const cp_u32 nw = (old & ~mask) | ((((cp_u32){store}) & {mask}) << sh);
    if (nw == old) return;
    const cp_u32 prev = atomicCAS(w, old, nw);
    if (prev == old) return;
    old = prev;
  }}
}}
",
                load = load_conv(d, "cur_s"),
                store = store_conv(d, "r"),
            )
        }
        _ => {
            let (wt, from, to) = match d {
                DType::Float32 => ("unsigned int", "__uint_as_float(old)", "__float_as_uint(r)"),
                DType::Float64 => (
                    "unsigned long long",
                    "__longlong_as_double((long long)old)",
                    "(unsigned long long)__double_as_longlong(r)",
                ),
                DType::Int64 => ("unsigned long long", "(cp_i64)old", "(unsigned long long)r"),
                _ => {
                    return Err(Error::invalid(
                        format!("kernel {entry}"),
                        format!("no atomic {op:?} for {d}"),
                    ))
                }
            };
            format!(
                "{head}
  {wt}* w = ({wt}*)p;
  {wt} old = *(volatile {wt}*)w;
  while (true) {{
    const {ct} cur = {from};
    const {ct} r = {r};
    const {wt} nb = {to};
    if (nb == old) return;
    const {wt} prev = atomicCAS(w, old, nb);
    if (prev == old) return;
    old = prev;
  }}
}}
"
            )
        }
    })
}

fn math1(op: UnaryOp, d: DType) -> &'static str {
    let f = is_f32ish(d);
    match (op, f) {
        (UnaryOp::Sqrt, true) => "sqrtf",
        (UnaryOp::Sqrt, false) => "sqrt",
        (UnaryOp::Exp, true) => "expf",
        (UnaryOp::Exp, false) => "exp",
        (UnaryOp::Log, true) => "logf",
        (UnaryOp::Log, false) => "log",
        (UnaryOp::Sin, true) => "sinf",
        (UnaryOp::Sin, false) => "sin",
        (UnaryOp::Cos, true) => "cosf",
        (UnaryOp::Cos, false) => "cos",
        (UnaryOp::Tan, true) => "tanf",
        (UnaryOp::Tan, false) => "tan",
        (UnaryOp::Tanh, true) => "tanhf",
        (UnaryOp::Tanh, false) => "tanh",
        (UnaryOp::Floor, true) => "floorf",
        (UnaryOp::Floor, false) => "floor",
        (UnaryOp::Ceil, true) => "ceilf",
        (UnaryOp::Ceil, false) => "ceil",
        (UnaryOp::Abs, true) => "fabsf",
        (_, _) => "fabs",
    }
}

fn expr(e: &Expr, n: &Names<'_>) -> Result<String> {
    let d = e.ty;
    Ok(match &e.kind {
        ExprKind::Const(s) => literal(*s),
        ExprKind::Input(k) => (n.inputs)(*k),
        ExprKind::Param(k) => format!("p{k}"),
        ExprKind::Var(k) => format!("v{k}"),
        ExprKind::Index => format!("((cp_i64)({}))", n.index),
        ExprKind::Load { raw, index } => {
            let i = expr(index, n)?;
            load_conv(d, &format!("a.r{raw}[{i}]"))
        }
        ExprKind::Cast(a) => cast_expr(a.ty, d, &expr(a, n)?),
        ExprKind::Select(c, a, b) => {
            format!(
                "(({}) ? ({}) : ({}))",
                expr(c, n)?,
                expr(a, n)?,
                expr(b, n)?
            )
        }
        ExprKind::Unary(op, a) => unary(*op, d, a, n)?,
        ExprKind::Binary(op, a, b) => binary(*op, d, a, b, n)?,
    })
}

/// A unary op on a complex operand; `res` is the node's dtype (`Abs` may give the real dtype).
fn unary_complex(op: UnaryOp, res: DType, t: DType, x: &str) -> Result<String> {
    let f = |name: &str| format!("{name}({x})");
    Ok(match op {
        UnaryOp::Neg => f("cp_cneg"),
        UnaryOp::Conj => f("cp_cconj"),
        UnaryOp::Real => format!("(({x}).re)"),
        UnaryOp::Imag => format!("(({x}).im)"),
        UnaryOp::Abs if res.is_complex() => {
            let r = compute_type(t.real_dtype());
            format!("cp_cmake(cp_cabs({x}), ({r})0)")
        }
        UnaryOp::Abs => cast_expr(t.real_dtype(), res, &f("cp_cabs")),
        UnaryOp::Not => format!("(!cp_cnonzero({x}))"),
        UnaryOp::Sqrt => f("cp_csqrt"),
        UnaryOp::Exp => f("cp_cexp"),
        UnaryOp::Log => f("cp_clog"),
        UnaryOp::Sin => f("cp_csin"),
        UnaryOp::Cos => f("cp_ccos"),
        UnaryOp::Tan => f("cp_ctan"),
        UnaryOp::Tanh => f("cp_ctanh"),
        UnaryOp::IsNan => f("cp_cnan"),
        UnaryOp::IsInf => f("cp_cisinf"),
        UnaryOp::IsFinite => f("cp_cisfinite"),
        UnaryOp::BitNot | UnaryOp::Floor | UnaryOp::Ceil => return Err(complex_unsupported(op, t)),
    })
}

fn unary(op: UnaryOp, res: DType, a: &Expr, n: &Names<'_>) -> Result<String> {
    let t = a.ty;
    let x = expr(a, n)?;
    if t.is_complex() {
        return unary_complex(op, res, t, &x);
    }
    let ct = compute_type(t);
    Ok(match op {
        UnaryOp::Not => {
            if t == DType::Bool {
                format!("(!({x}))")
            } else {
                format!("(({x}) == 0)")
            }
        }
        UnaryOp::IsNan if t.is_float() => format!("(({x}) != ({x}))"),
        UnaryOp::IsInf if t.is_float() => {
            format!("(fabs((double)({x})) == __longlong_as_double(0x7ff0000000000000ll))")
        }
        UnaryOp::IsFinite if t.is_float() => {
            format!("(fabs((double)({x})) < __longlong_as_double(0x7ff0000000000000ll))")
        }
        UnaryOp::IsNan | UnaryOp::IsInf => "false".into(),
        UnaryOp::IsFinite => "true".into(),
        UnaryOp::BitNot if t == DType::Bool => format!("(!({x}))"),
        _ if t == DType::Bool => x,
        UnaryOp::Neg if t.is_integer() => format!("cp_wneg<{ct}>({x})"),
        UnaryOp::Abs if t.is_integer() => format!("cp_iabs<{ct}>({x})"),
        UnaryOp::BitNot if t.is_integer() => format!("(({ct})(~({x})))"),
        UnaryOp::Floor | UnaryOp::Ceil if t.is_integer() => x,
        UnaryOp::BitNot => {
            return Err(Error::invalid("C++ emitter", format!("bitwise not of {t}")))
        }
        _ if t.is_integer() => {
            // math function of an integer: in double, cast back (as Scalar::cast).
            let m = math1(op, DType::Float64);
            cast_expr(DType::Float64, t, &format!("{m}((double)({x}))"))
        }
        UnaryOp::Neg => round_to(t, format!("(-({x}))")),
        _ => round_to(t, format!("{}({x})", math1(op, t))),
    })
}

/// A binary op on complex operands (NumPy's loops, see the prelude).
fn binary_complex(op: BinaryOp, t: DType, x: &str, y: &str) -> Result<String> {
    let f = |name: &str| format!("{name}({x}, {y})");
    Ok(match op {
        BinaryOp::Add => f("cp_cadd"),
        BinaryOp::Sub => f("cp_csub"),
        BinaryOp::Mul => f("cp_cmul"),
        BinaryOp::Div => f("cp_cdiv"),
        BinaryOp::Pow => f("cp_cpow"),
        BinaryOp::Max => f("cp_cmax"),
        BinaryOp::Min => f("cp_cmin"),
        BinaryOp::FMax => f("cp_cfmax"),
        BinaryOp::FMin => f("cp_cfmin"),
        BinaryOp::Eq => f("cp_ceq"),
        BinaryOp::Ne => f("cp_cne"),
        BinaryOp::Lt => f("cp_clt"),
        BinaryOp::Le => f("cp_cle"),
        BinaryOp::Gt => format!("cp_clt({y}, {x})"),
        BinaryOp::Ge => format!("cp_cle({y}, {x})"),
        BinaryOp::FloorDiv
        | BinaryOp::Mod
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::Shl
        | BinaryOp::Shr
        | BinaryOp::Atan2
        | BinaryOp::Complex => return Err(complex_unsupported(op, t)),
    })
}

fn binary(op: BinaryOp, d: DType, a: &Expr, b: &Expr, n: &Names<'_>) -> Result<String> {
    let t = a.ty;
    let x = expr(a, n)?;
    let y = expr(b, n)?;
    if op == BinaryOp::Complex {
        // Two float32/float64 parts -> complex64/complex128 (exact).
        let r = compute_type(d.real_dtype());
        return Ok(format!("cp_cmake(({r})({x}), ({r})({y}))"));
    }
    if t.is_complex() || b.ty.is_complex() {
        if a.ty != b.ty {
            return Err(Error::invalid(
                "C++ emitter",
                format!("{op:?} of {} and {}", a.ty, b.ty),
            ));
        }
        return binary_complex(op, t, &x, &y);
    }
    let ct = compute_type(t);
    if op.is_comparison() {
        let o = match op {
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            _ => ">=",
        };
        return Ok(format!("(({x}) {o} ({y}))"));
    }
    if t == DType::Bool {
        return Ok(match op {
            BinaryOp::Add | BinaryOp::Or | BinaryOp::Max | BinaryOp::FMax => {
                format!("(({x}) || ({y}))")
            }
            BinaryOp::Mul | BinaryOp::And | BinaryOp::Min | BinaryOp::FMin => {
                format!("(({x}) && ({y}))")
            }
            BinaryOp::Xor | BinaryOp::Sub => format!("(({x}) != ({y}))"),
            _ => {
                let r = binary_int(
                    op,
                    DType::UInt8,
                    &format!("((cp_u8)({x}))"),
                    &format!("((cp_u8)({y}))"),
                    DType::UInt8,
                )?;
                format!("(({r}) != 0)")
            }
        });
    }
    if t.is_integer() {
        return binary_int(op, t, &x, &y, b.ty);
    }
    let f = is_f32ish(t);
    let fl = if f { "cp_f32" } else { "cp_f64" };
    let r = match op {
        BinaryOp::Add => format!("(({x}) + ({y}))"),
        BinaryOp::Sub => format!("(({x}) - ({y}))"),
        BinaryOp::Mul => format!("(({x}) * ({y}))"),
        BinaryOp::Div => format!("(({x}) / ({y}))"),
        BinaryOp::FloorDiv => format!("{fl}_floordiv({x}, {y})"),
        BinaryOp::Mod => format!("{fl}_mod({x}, {y})"),
        BinaryOp::Pow => format!("{}({x}, {y})", if f { "powf" } else { "pow" }),
        BinaryOp::Atan2 => format!("{}({x}, {y})", if f { "atan2f" } else { "atan2" }),
        BinaryOp::Max => format!("cp_max<{ct}>({x}, {y})"),
        BinaryOp::Min => format!("cp_min<{ct}>({x}, {y})"),
        BinaryOp::FMax => format!("cp_fmax<{ct}>({x}, {y})"),
        BinaryOp::FMin => format!("cp_fmin<{ct}>({x}, {y})"),
        other => {
            return Err(Error::invalid(
                "C++ emitter",
                format!("{other:?} is not defined for {t}"),
            ))
        }
    };
    Ok(round_to(d, r))
}

fn binary_int(op: BinaryOp, t: DType, x: &str, y: &str, yt: DType) -> Result<String> {
    let ct = compute_type(t);
    Ok(match op {
        BinaryOp::Add => format!("cp_wadd<{ct}>({x}, {y})"),
        BinaryOp::Sub => format!("cp_wsub<{ct}>({x}, {y})"),
        BinaryOp::Mul => format!("cp_wmul<{ct}>({x}, {y})"),
        BinaryOp::Div => format!("cp_idiv<{ct}>({x}, {y})"),
        BinaryOp::FloorDiv => format!("cp_ifloordiv<{ct}>({x}, {y})"),
        BinaryOp::Mod => format!("cp_imod<{ct}>({x}, {y})"),
        BinaryOp::Pow => format!("cp_ipow<{ct}>({x}, {y})"),
        BinaryOp::Max | BinaryOp::FMax => format!("cp_max<{ct}>({x}, {y})"),
        BinaryOp::Min | BinaryOp::FMin => format!("cp_min<{ct}>({x}, {y})"),
        BinaryOp::And => format!("(({ct})(({x}) & ({y})))"),
        BinaryOp::Or => format!("(({ct})(({x}) | ({y})))"),
        BinaryOp::Xor => format!("(({ct})(({x}) ^ ({y})))"),
        BinaryOp::Shl => format!("cp_shl<{ct}, {}>({x}, {y})", compute_type(yt)),
        BinaryOp::Shr => format!("cp_shr<{ct}, {}>({x}, {y})", compute_type(yt)),
        BinaryOp::Atan2 => cast_expr(
            DType::Float64,
            t,
            &format!("atan2((double)({x}), (double)({y}))"),
        ),
        _ => unreachable!("comparisons handled by the caller"),
    })
}

fn stmts(
    body: &[Stmt],
    n: &Names<'_>,
    outs: &dyn Fn(usize) -> String,
    ind: usize,
    s: &mut String,
) -> Result<()> {
    let pad = "  ".repeat(ind);
    for st in body {
        match st {
            Stmt::StoreRaw { raw, index, value } => {
                let _ = writeln!(
                    s,
                    "{pad}a.r{raw}[{}] = {};",
                    expr(index, n)?,
                    store_conv(value.ty, &expr(value, n)?)
                );
            }
            Stmt::AtomicRaw {
                raw,
                op,
                index,
                value,
            } => {
                let _ = writeln!(
                    s,
                    "{pad}{}(&a.r{raw}[{}], {});",
                    atomic_name(&n.entry, value.ty, *op),
                    expr(index, n)?,
                    expr(value, n)?
                );
            }
            Stmt::Let { var, value } | Stmt::Assign { var, value } => {
                let _ = writeln!(s, "{pad}v{var} = {};", expr(value, n)?);
            }
            Stmt::Store { output, value } => {
                let _ = writeln!(s, "{pad}{} = {};", outs(*output), expr(value, n)?);
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                let _ = writeln!(s, "{pad}if ({}) {{", expr(cond, n)?);
                stmts(then_body, n, outs, ind + 1, s)?;
                if else_body.is_empty() {
                    let _ = writeln!(s, "{pad}}}");
                } else {
                    let _ = writeln!(s, "{pad}}} else {{");
                    stmts(else_body, n, outs, ind + 1, s)?;
                    let _ = writeln!(s, "{pad}}}");
                }
            }
            Stmt::For {
                var,
                start,
                end,
                body,
            } => {
                let _ = writeln!(s, "{pad}{{");
                let _ = writeln!(s, "{pad}  const cp_i64 e{var} = {};", expr(end, n)?);
                let _ = writeln!(
                    s,
                    "{pad}  for (v{var} = {}; v{var} < e{var}; ++v{var}) {{",
                    expr(start, n)?
                );
                stmts(body, n, outs, ind + 2, s)?;
                let _ = writeln!(s, "{pad}  }}");
                let _ = writeln!(s, "{pad}}}");
            }
        }
    }
    Ok(())
}

/// Outputs stored by a top-level (unconditional) `Store`.
fn definitely_stored(k: &Kernel) -> Vec<bool> {
    let mut v = vec![false; k.outputs.len()];
    for s in &k.body {
        if let Stmt::Store { output, .. } = s {
            if *output < v.len() {
                v[*output] = true;
            }
        }
    }
    v
}

/// Vector loads in flight per thread in the `inner_vec` reduction.
const RED_UNROLL: usize = 4;

/// Elements per vector load of the `<name>_inner_vec` reduction entry: 16 bytes of the widest
/// input (at least 1). The launcher may use that entry only when every input's reduced axis is
/// one merged axis of stride 1 and every row start is aligned to this many elements.
pub fn reduce_vector_width(k: &ReduceKernel) -> usize {
    let widest = k.inputs.iter().map(|d| d.itemsize()).max().unwrap_or(1);
    (16 / widest).max(1)
}

/// Elements per vector iteration: 16 bytes of the widest operand (at least 1); 1 when the body
/// has a `for` loop. Such a body is compute-bound, and NVRTC unrolls the vector loop around each
/// inlined copy of it: on the H200 an int8 GEMM-like body (a `for` over K) took over 90 s to
/// compile with 16 lanes and 0.8 s without.
pub fn vector_width(k: &Kernel) -> usize {
    let mut looped = false;
    Stmt::visit_all(&k.body, &mut |s| looped |= matches!(s, Stmt::For { .. }));
    if looped {
        return 1;
    }
    let widest = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .map(|d| d.itemsize())
        .max()
        .unwrap_or(1);
    (16 / widest).max(1)
}

/// A sanitized C identifier for a kernel name.
pub fn entry_name(name: &str) -> String {
    let mut s = String::from("cupy_");
    for c in name.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    s
}

struct StructBuilder {
    decl: String,
    fields: Vec<ArgField>,
    off: usize,
    align: usize,
}

impl StructBuilder {
    fn new() -> Self {
        StructBuilder {
            decl: String::new(),
            fields: vec![],
            off: 0,
            align: 1,
        }
    }
    fn add(&mut self, slot: Slot, cdecl: &str, size: usize) {
        self.off = self.off.div_ceil(size) * size;
        self.align = self.align.max(size);
        self.fields.push(ArgField {
            slot,
            offset: self.off,
            size,
        });
        self.off += size;
        let _ = writeln!(self.decl, "  {cdecl};");
    }
    fn finish(self, name: &str, params: Vec<DType>) -> (String, ArgsLayout) {
        let size = self.off.div_ceil(self.align) * self.align;
        (
            format!("struct {name} {{\n{}}};\n", self.decl),
            ArgsLayout {
                fields: self.fields,
                size: size.max(1),
                params,
            },
        )
    }
}

fn param_fields(sb: &mut StructBuilder, params: &[DType]) {
    for (k, d) in params.iter().enumerate() {
        sb.add(
            Slot::Param(k),
            &format!("{} p{k}", storage_type(*d)),
            d.itemsize(),
        );
    }
}

fn param_loads(params: &[DType]) -> String {
    let mut s = String::new();
    for (k, d) in params.iter().enumerate() {
        let _ = writeln!(
            s,
            "  const {} p{k} = {};",
            compute_type(*d),
            load_conv(*d, &format!("a.p{k}"))
        );
    }
    s
}

/// Emits an elementwise kernel (see the module docs).
///
/// # Errors
/// [`Error::DTypeNotSupported`] for an op NumPy defines no complex loop for (and atomic
/// updates of complex elements); [`Error::InvalidArgument`] for an op the dtype lacks or a
/// malformed kernel.
pub fn emit_elementwise(k: &Kernel, spec: &ElementwiseSpec, flavor: Flavor) -> Result<Emitted> {
    k.validate()?;
    let nd = match spec.class {
        ElementwiseClass::Strided => spec.ndim.max(1),
        ElementwiseClass::Tiled => 2,
        _ => 1,
    };
    if spec.class == ElementwiseClass::Tiled && (spec.ndim != 2 || !tiled_fits(k)) {
        return Err(Error::invalid(
            format!("kernel {}", k.name),
            "the tiled class needs two axes and operand tiles within 40 KiB",
        ));
    }
    let entry = entry_name(&k.name);
    let (it, ut, isz) = if spec.index64 {
        ("cp_i64", "cp_u64", 8)
    } else {
        ("cp_i32", "cp_u32", 4)
    };
    let strided = matches!(
        spec.class,
        ElementwiseClass::Strided | ElementwiseClass::Tiled
    );
    let vec = if spec.class == ElementwiseClass::Vectorized {
        vector_width(k)
    } else {
        1
    };

    let mut sb = StructBuilder::new();
    sb.add(Slot::Size, &format!("{it} size"), isz);
    if strided {
        for d in 0..nd {
            sb.add(Slot::Shape(d), &format!("{it} shape{d}"), isz);
        }
    }
    let ops: Vec<(OperandRef, DType, String, bool)> = k
        .inputs
        .iter()
        .enumerate()
        .map(|(i, d)| (OperandRef::Input(i), *d, format!("in{i}"), true))
        .chain(
            k.outputs
                .iter()
                .enumerate()
                .map(|(i, d)| (OperandRef::Output(i), *d, format!("out{i}"), false)),
        )
        .collect();
    for (r, d, name, is_in) in &ops {
        let c = if *is_in { "const " } else { "" };
        sb.add(
            Slot::Ptr(*r),
            &format!("{c}{}* {name}", storage_type(*d)),
            8,
        );
        if strided {
            for ax in 0..nd {
                sb.add(Slot::Stride(*r, ax), &format!("{it} st_{name}_{ax}"), isz);
            }
        }
    }
    for (i, d) in k.raws.iter().enumerate() {
        sb.add(
            Slot::Ptr(OperandRef::Raw(i)),
            &format!("{}* r{i}", storage_type(*d)),
            8,
        );
    }
    param_fields(&mut sb, &k.params);
    let sname = format!("{entry}_args");
    let (sdecl, args) = sb.finish(&sname, k.params.clone());

    let mut src = prelude(flavor);
    let _ = writeln!(
        src,
        "// kernel {} | ndim {nd} | {:?} | {}-bit index | vector {vec}",
        k.name,
        spec.class,
        isz * 8
    );
    src.push_str(&sdecl);

    // Atomic helpers, one per (raw dtype, op) the body uses.
    let mut atomics: Vec<(DType, AtomicOp)> = vec![];
    Stmt::visit_all(&k.body, &mut |st| {
        if let Stmt::AtomicRaw { raw, op, .. } = st {
            let key = (k.raws[*raw], *op);
            if !atomics.contains(&key) {
                atomics.push(key);
            }
        }
    });
    for (d, op) in atomics {
        src.push_str(&atomic_helper(&entry, d, op)?);
    }
    // The per-element body: compute-typed inputs by value, outputs by reference.
    let mut sig = vec![format!("const {sname}& a"), "cp_i64 idx".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        sig.push(format!("const {} x{i}", compute_type(*d)));
    }
    for (i, d) in k.outputs.iter().enumerate() {
        sig.push(format!("{}& y{i}", compute_type(*d)));
    }
    let _ = writeln!(src, "CP_DEV void {entry}_body({}) {{", sig.join(", "));
    src.push_str(&param_loads(&k.params));
    for (v, d) in k.locals.iter().enumerate() {
        let _ = writeln!(src, "  {} v{v} = {};", compute_type(*d), zero_value(*d));
    }
    let inputs = |i: usize| format!("x{i}");
    let names = Names {
        inputs: &inputs,
        index: "idx".into(),
        entry: entry.clone(),
    };
    stmts(&k.body, &names, &|o| format!("y{o}"), 1, &mut src)?;
    src.push_str("}\n");

    let stored = definitely_stored(k);
    // Emits the per-element code given each operand's element expression (pointer + offset).
    let element = |offs: &dyn Fn(&str) -> String, idx: &str, pad: &str| -> String {
        let mut s = String::new();
        let mut call = vec!["a".to_string(), format!("(cp_i64)({idx})")];
        for (i, d) in k.inputs.iter().enumerate() {
            call.push(load_conv(
                *d,
                &format!("a.in{i}[{}]", offs(&format!("in{i}"))),
            ));
        }
        for (i, d) in k.outputs.iter().enumerate() {
            let init = if stored[i] {
                zero_value(*d)
            } else {
                load_conv(*d, &format!("a.out{i}[{}]", offs(&format!("out{i}"))))
            };
            let _ = writeln!(s, "{pad}{} y{i} = {init};", compute_type(*d));
            call.push(format!("y{i}"));
        }
        let _ = writeln!(s, "{pad}{entry}_body({});", call.join(", "));
        for (i, d) in k.outputs.iter().enumerate() {
            let _ = writeln!(
                s,
                "{pad}a.out{i}[{}] = {};",
                offs(&format!("out{i}")),
                store_conv(*d, &format!("y{i}"))
            );
        }
        s
    };

    if spec.class == ElementwiseClass::Tiled {
        emit_tiled(k, &entry, &sname, it, ut, &stored, &mut src);
        return Ok(Emitted {
            source: src,
            entries: vec![entry],
            args,
            vector: 1,
        });
    }
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}(const {sname} a) {{"
    );
    let _ = writeln!(src, "  const {ut} n = ({ut})a.size;");
    let _ = writeln!(
        src,
        "  const {ut} step = ({ut})gridDim.x * ({ut})blockDim.x;"
    );
    let _ = writeln!(
        src,
        "  const {ut} tid = ({ut})blockIdx.x * ({ut})blockDim.x + ({ut})threadIdx.x;"
    );
    match spec.class {
        ElementwiseClass::Strided => {
            let _ = writeln!(src, "  for ({ut} i = tid; i < n; i += step) {{");
            let names: Vec<&String> = ops.iter().map(|o| &o.2).collect();
            for nm in &names {
                let _ = writeln!(src, "    {it} o_{nm} = 0;");
            }
            let _ = writeln!(src, "    {ut} rem = i;");
            for d in (1..nd).rev() {
                let _ = writeln!(
                    src,
                    "    {{ const {ut} c = rem % ({ut})a.shape{d}; rem /= ({ut})a.shape{d};"
                );
                for nm in &names {
                    let _ = writeln!(src, "      o_{nm} += ({it})c * a.st_{nm}_{d};");
                }
                let _ = writeln!(src, "    }}");
            }
            for nm in &names {
                let _ = writeln!(src, "    o_{nm} += ({it})rem * a.st_{nm}_0;");
            }
            src.push_str(&element(&|nm| format!("o_{nm}"), "i", "    "));
            src.push_str("  }\n");
        }
        ElementwiseClass::Tiled => unreachable!("emitted above"),
        ElementwiseClass::Contiguous => {
            let _ = writeln!(src, "  for ({ut} i = tid; i < n; i += step) {{");
            src.push_str(&element(&|_| "i".to_string(), "i", "    "));
            src.push_str("  }\n");
        }
        ElementwiseClass::Vectorized => {
            let _ = writeln!(src, "  const {ut} nv = n / {vec}u;");
            let _ = writeln!(src, "  for ({ut} v = tid; v < nv; v += step) {{");
            let _ = writeln!(src, "    const {ut} base = v * {vec}u;");
            for (i, d) in k.inputs.iter().enumerate() {
                let st = storage_type(*d);
                let _ = writeln!(src, "    const cp_vec<{st}, {vec}> vx{i} = *(const cp_vec<{st}, {vec}>*)(a.in{i} + base);");
            }
            for (i, d) in k.outputs.iter().enumerate() {
                let st = storage_type(*d);
                if stored[i] {
                    let _ = writeln!(src, "    cp_vec<{st}, {vec}> vy{i};");
                } else {
                    let _ = writeln!(
                        src,
                        "    cp_vec<{st}, {vec}> vy{i} = *(cp_vec<{st}, {vec}>*)(a.out{i} + base);"
                    );
                }
            }
            let _ = writeln!(
                src,
                "#pragma unroll\n    for (int j = 0; j < {vec}; ++j) {{"
            );
            let mut call = vec!["a".to_string(), "(cp_i64)(base + j)".to_string()];
            for (i, d) in k.inputs.iter().enumerate() {
                call.push(load_conv(*d, &format!("vx{i}.v[j]")));
            }
            for (i, d) in k.outputs.iter().enumerate() {
                let init = if stored[i] {
                    zero_value(*d)
                } else {
                    load_conv(*d, &format!("vy{i}.v[j]"))
                };
                let _ = writeln!(src, "      {} y{i} = {init};", compute_type(*d));
                call.push(format!("y{i}"));
            }
            let _ = writeln!(src, "      {entry}_body({});", call.join(", "));
            for (i, d) in k.outputs.iter().enumerate() {
                let _ = writeln!(
                    src,
                    "      vy{i}.v[j] = {};",
                    store_conv(*d, &format!("y{i}"))
                );
            }
            src.push_str("    }\n");
            for (i, d) in k.outputs.iter().enumerate() {
                let st = storage_type(*d);
                let _ = writeln!(src, "    *(cp_vec<{st}, {vec}>*)(a.out{i} + base) = vy{i};");
            }
            src.push_str("  }\n");
            let _ = writeln!(
                src,
                "  for ({ut} i = nv * {vec}u + tid; i < n; i += step) {{"
            );
            src.push_str(&element(&|_| "i".to_string(), "i", "    "));
            src.push_str("  }\n");
        }
    }
    src.push_str("}\n");
    Ok(Emitted {
        source: src,
        entries: vec![entry],
        args,
        vector: vec,
    })
}

/// The body of the [`ElementwiseClass::Tiled`] kernel: per 32x32 tile, every input (and every
/// output not stored unconditionally) is loaded into a padded shared tile along whichever axis is
/// its fast one, the body runs per element out of shared memory, and outputs are written back
/// from their tiles along their own fast axis.
fn emit_tiled(
    k: &Kernel,
    entry: &str,
    sname: &str,
    it: &str,
    ut: &str,
    stored: &[bool],
    src: &mut String,
) {
    let (tx, ty) = TILE_BLOCK;
    let ops: Vec<(String, DType, bool)> = k
        .inputs
        .iter()
        .enumerate()
        .map(|(i, d)| (format!("in{i}"), *d, true))
        .chain(
            k.outputs
                .iter()
                .enumerate()
                .map(|(i, d)| (format!("out{i}"), *d, !stored[i])),
        )
        .collect();
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}(const {sname} a) {{"
    );
    for (nm, d, _) in &ops {
        let _ = writeln!(
            src,
            "  __shared__ {} t_{nm}[{tx}][{}];",
            storage_type(*d),
            tx + 1
        );
    }
    let _ = writeln!(
        src,
        "  const {ut} s0 = ({ut})a.shape0, s1 = ({ut})a.shape1;
  const {ut} nt1 = (s1 + {tx}u - 1) / {tx}u, nt = ((s0 + {tx}u - 1) / {tx}u) * nt1;
  const {ut} tx = threadIdx.x, ty = threadIdx.y;"
    );
    // Per operand: is axis 0 its fast axis?
    for (nm, _, _) in &ops {
        let _ = writeln!(
            src,
            "  const bool col_{nm} = cp_iabs<{it}>(a.st_{nm}_0) < cp_iabs<{it}>(a.st_{nm}_1);"
        );
    }
    let _ = writeln!(
        src,
        "  for ({ut} t = blockIdx.x; t < nt; t += gridDim.x) {{
    const {ut} b0 = (t / nt1) * {tx}u, b1 = (t % nt1) * {tx}u;"
    );
    let mapped = |nm: &str, body: &str| -> String {
        format!(
            "#pragma unroll\n    for (int k = 0; k < {tx}; k += {ty}) {{
      const {ut} l0 = col_{nm} ? tx : ty + k, l1 = col_{nm} ? ty + k : tx;
      const {ut} g0 = b0 + l0, g1 = b1 + l1;
      if (g0 < s0 && g1 < s1) {body}
    }}\n"
        )
    };
    for (nm, _, load) in &ops {
        if *load {
            src.push_str(&mapped(
                nm,
                &format!(
                    "t_{nm}[l0][l1] = a.{nm}[({it})g0 * a.st_{nm}_0 + ({it})g1 * a.st_{nm}_1];"
                ),
            ));
        }
    }
    src.push_str("    __syncthreads();\n");
    let _ = writeln!(
        src,
        "#pragma unroll\n    for (int k = 0; k < {tx}; k += {ty}) {{
      const {ut} l0 = ty + k, l1 = tx, g0 = b0 + l0, g1 = b1 + l1;
      if (g0 < s0 && g1 < s1) {{"
    );
    let mut call = vec!["a".to_string(), "(cp_i64)(g0 * s1 + g1)".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        call.push(load_conv(*d, &format!("t_in{i}[l0][l1]")));
    }
    for (i, d) in k.outputs.iter().enumerate() {
        let init = if stored[i] {
            zero_value(*d)
        } else {
            load_conv(*d, &format!("t_out{i}[l0][l1]"))
        };
        let _ = writeln!(src, "        {} y{i} = {init};", compute_type(*d));
        call.push(format!("y{i}"));
    }
    let _ = writeln!(src, "        {entry}_body({});", call.join(", "));
    for (i, d) in k.outputs.iter().enumerate() {
        let _ = writeln!(
            src,
            "        t_out{i}[l0][l1] = {};",
            store_conv(*d, &format!("y{i}"))
        );
    }
    src.push_str("      }\n    }\n    __syncthreads();\n");
    for i in 0..k.outputs.len() {
        let nm = format!("out{i}");
        src.push_str(&mapped(
            &nm,
            &format!("a.{nm}[({it})g0 * a.st_{nm}_0 + ({it})g1 * a.st_{nm}_1] = t_{nm}[l0][l1];"),
        ));
    }
    src.push_str("    __syncthreads();\n  }\n}\n");
}

/// Emits a reduction module with three entries sharing one argument struct:
/// - `<name>_inner`: one block per output (grid-stride), `gridDim.y` splits of the reduced
///   range; threads stride over the reduced index, then a warp-shuffle + shared-memory block
///   reduction. With `Splits == 1` it writes `post(acc)` to the output, else `acc` to the partial
///   buffer at `o * splits + blockIdx.y`.
/// - `<name>_outer`: blocks of [`OUTER_BLOCK`] threads, x across consecutive outputs (coalesced
///   when outputs are contiguous in the input), y along the reduced index; same split scheme.
/// - `<name>_finish`: one block per output folds the partials and writes `post(acc)`.
///
/// `map` may read `Index` as the flat reduced index.
///
/// # Errors
/// As [`emit_elementwise`].
pub fn emit_reduce(k: &ReduceKernel, spec: &ReduceSpec, flavor: Flavor) -> Result<Emitted> {
    k.validate()?;
    if k.is_tuple() {
        return Err(k.tuple_unsupported(&format!("{flavor:?}").to_lowercase()));
    }
    for (what, e, want) in [
        ("map", &k.map[0], k.acc[0]),
        ("combine", &k.combine[0], k.acc[0]),
        ("post", &k.post, k.output),
    ] {
        if e.ty != want {
            return Err(Error::invalid(
                format!("reduction {}", k.name),
                format!("{what} has dtype {} (expected {want})", e.ty),
            ));
        }
    }
    if k.identity[0].dtype() != k.acc[0] {
        return Err(Error::invalid(
            format!("reduction {}", k.name),
            format!(
                "identity {:?} is not of the accumulator dtype {}",
                k.identity[0], k.acc[0]
            ),
        ));
    }
    let ond = spec.out_ndim.max(1);
    let rnd = spec.red_ndim.max(1);
    let entry = entry_name(&k.name);
    let (it, ut, isz) = if spec.index64 {
        ("cp_i64", "cp_u64", 8)
    } else {
        ("cp_i32", "cp_u32", 4)
    };
    let mut sb = StructBuilder::new();
    sb.add(Slot::OutSize, &format!("{it} out_size"), isz);
    sb.add(Slot::RedSize, &format!("{it} red_size"), isz);
    sb.add(Slot::Splits, &format!("{it} splits"), isz);
    for d in 0..ond {
        sb.add(Slot::Shape(d), &format!("{it} shape{d}"), isz);
    }
    for d in 0..rnd {
        sb.add(Slot::RedShape(d), &format!("{it} rshape{d}"), isz);
    }
    for (i, d) in k.inputs.iter().enumerate() {
        let r = OperandRef::Input(i);
        sb.add(
            Slot::Ptr(r),
            &format!("const {}* in{i}", storage_type(*d)),
            8,
        );
        for ax in 0..ond {
            sb.add(Slot::Stride(r, ax), &format!("{it} st_in{i}_{ax}"), isz);
        }
        for ax in 0..rnd {
            sb.add(Slot::RedStride(r, ax), &format!("{it} rst_in{i}_{ax}"), isz);
        }
    }
    let o = OperandRef::Output(0);
    sb.add(
        Slot::Ptr(o),
        &format!("{}* out0", storage_type(k.output)),
        8,
    );
    for ax in 0..ond {
        sb.add(Slot::Stride(o, ax), &format!("{it} st_out0_{ax}"), isz);
    }
    sb.add(
        Slot::Ptr(OperandRef::Partial),
        &format!("{}* partial", storage_type(k.acc[0])),
        8,
    );
    param_fields(&mut sb, &k.params);
    let sname = format!("{entry}_args");
    let (sdecl, args) = sb.finish(&sname, k.params.clone());

    let acc = compute_type(k.acc[0]);
    let mut src = prelude(flavor);
    let _ = writeln!(
        src,
        "// reduction {} | out ndim {ond} | reduced ndim {rnd} | {}-bit index",
        k.name,
        isz * 8
    );
    src.push_str(&sdecl);
    let ident = literal(k.identity[0]);
    let _ = writeln!(src, "#define {entry}_IDENT ({ident})");

    // map(a, ridx, inputs...)
    let mut sig = vec![format!("const {sname}& a"), "cp_i64 ridx".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        sig.push(format!("const {} x{i}", compute_type(*d)));
    }
    let inputs = |i: usize| format!("x{i}");
    let names = Names {
        inputs: &inputs,
        index: "ridx".into(),
        entry: entry.clone(),
    };
    let _ = writeln!(src, "CP_DEV {acc} {entry}_map({}) {{", sig.join(", "));
    src.push_str(&param_loads(&k.params));
    let _ = writeln!(src, "  return {};\n}}", expr(&k.map[0], &names)?);
    let _ = writeln!(src, "CP_DEV {acc} {entry}_combine({acc} v0, {acc} v1) {{");
    let _ = writeln!(src, "  return {};\n}}", expr(&k.combine[0], &names)?);
    let _ = writeln!(
        src,
        "CP_DEV {} {entry}_post(const {sname}& a, {acc} v0) {{",
        compute_type(k.output)
    );
    src.push_str(&param_loads(&k.params));
    let _ = writeln!(src, "  return {};\n}}", expr(&k.post, &names)?);

    // Block reduction: result in thread 0 (blockDim.x a multiple of the warp size, <= BLOCK).
    let _ = writeln!(
        src,
        "CP_DEV {acc} {entry}_block({acc} v, {acc}* sm) {{
  for (int off = CP_WARP / 2; off > 0; off >>= 1) v = {entry}_combine(v, cp_shfl_down(v, off));
  const int lane = threadIdx.x % CP_WARP, wid = threadIdx.x / CP_WARP, nw = blockDim.x / CP_WARP;
  __syncthreads();
  if (lane == 0) sm[wid] = v;
  __syncthreads();
  if (wid == 0) {{
    v = lane < nw ? sm[lane] : {entry}_IDENT;
    for (int off = CP_WARP / 2; off > 0; off >>= 1) v = {entry}_combine(v, cp_shfl_down(v, off));
  }}
  return v;
}}"
    );
    // Offsets of output index o (per input and the output), and of reduced index r.
    let mut out_off = String::new();
    let _ = writeln!(out_off, "    {ut} orem = o;");
    for i in 0..k.inputs.len() {
        let _ = writeln!(out_off, "    {it} oi{i} = 0;");
    }
    let _ = writeln!(out_off, "    {it} oo = 0;");
    for d in (0..ond).rev() {
        if d > 0 {
            let _ = writeln!(
                out_off,
                "    {{ const {ut} c = orem % ({ut})a.shape{d}; orem /= ({ut})a.shape{d};"
            );
        } else {
            let _ = writeln!(out_off, "    {{ const {ut} c = orem;");
        }
        for i in 0..k.inputs.len() {
            let _ = writeln!(out_off, "      oi{i} += ({it})c * a.st_in{i}_{d};");
        }
        let _ = writeln!(out_off, "      oo += ({it})c * a.st_out0_{d}; }}");
    }
    let mut red_val = String::new();
    let _ = writeln!(red_val, "      {ut} rrem = r;");
    for i in 0..k.inputs.len() {
        let _ = writeln!(red_val, "      {it} ri{i} = oi{i};");
    }
    for d in (0..rnd).rev() {
        if d > 0 {
            let _ = writeln!(
                red_val,
                "      {{ const {ut} c = rrem % ({ut})a.rshape{d}; rrem /= ({ut})a.rshape{d};"
            );
        } else {
            let _ = writeln!(red_val, "      {{ const {ut} c = rrem;");
        }
        for i in 0..k.inputs.len() {
            let _ = writeln!(red_val, "        ri{i} += ({it})c * a.rst_in{i}_{d};");
        }
        let _ = writeln!(red_val, "      }}");
    }
    let mut margs = vec!["a".to_string(), "(cp_i64)r".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        margs.push(load_conv(*d, &format!("a.in{i}[ri{i}]")));
    }
    let _ = writeln!(
        red_val,
        "      acc = {entry}_combine(acc, {entry}_map({}));",
        margs.join(", ")
    );
    let write = |pad: &str, split: &str| {
        format!(
            "{pad}if (a.splits == 1) a.out0[oo] = {};\n{pad}else a.partial[({ut})o * ({ut})a.splits + {split}] = {};\n",
            store_conv(k.output, &format!("{entry}_post(a, acc)")),
            store_conv(k.acc[0], "acc")
        )
    };
    let range = format!(
        "  const {ut} nred = ({ut})a.red_size, ns = ({ut})a.splits;
  const {ut} chunk = (nred + ns - 1) / ns;
  const {ut} r0 = ({ut})blockIdx.y * chunk;
  const {ut} r1 = r0 >= nred ? r0 : ((nred - r0 < chunk) ? nred : r0 + chunk);
"
    );
    // inner
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_inner(const {sname} a) {{"
    );
    let _ = writeln!(src, "  __shared__ {acc} sm[{}];", BLOCK / 32);
    src.push_str(&range);
    let _ = writeln!(
        src,
        "  for ({ut} o = blockIdx.x; o < ({ut})a.out_size; o += gridDim.x) {{"
    );
    src.push_str(&out_off);
    let _ = writeln!(src, "    {acc} acc = {entry}_IDENT;");
    let _ = writeln!(
        src,
        "    for ({ut} r = r0 + threadIdx.x; r < r1; r += blockDim.x) {{"
    );
    src.push_str(&red_val);
    src.push_str("    }\n");
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    src.push_str("    if (threadIdx.x == 0) {\n");
    src.push_str(&write("      ", "blockIdx.y"));
    src.push_str("    }\n  }\n}\n");
    // outer
    let (bx, by) = OUTER_BLOCK;
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_outer(const {sname} a) {{"
    );
    let _ = writeln!(src, "  __shared__ {acc} sm[{by}][{}];", bx + 1);
    src.push_str(&range);
    let _ = writeln!(src, "  for ({ut} ob = ({ut})blockIdx.x * {bx}u; ob < ({ut})a.out_size; ob += ({ut})gridDim.x * {bx}u) {{");
    let _ = writeln!(src, "    const {ut} o = ob + threadIdx.x;");
    let _ = writeln!(src, "    {acc} acc = {entry}_IDENT;");
    let _ = writeln!(src, "    if (o < ({ut})a.out_size) {{");
    src.push_str(
        &out_off
            .replace("\n    ", "\n      ")
            .replacen("    ", "      ", 1),
    );
    let _ = writeln!(
        src,
        "      for ({ut} r = r0 + threadIdx.y; r < r1; r += {by}u) {{"
    );
    src.push_str(&red_val);
    src.push_str("      }\n    }\n");
    let _ = writeln!(src, "    sm[threadIdx.y][threadIdx.x] = acc;");
    src.push_str("    __syncthreads();\n");
    let _ = writeln!(src, "    if (threadIdx.y == 0 && o < ({ut})a.out_size) {{");
    let _ = writeln!(
        src,
        "      for (int y = 1; y < {by}; ++y) acc = {entry}_combine(acc, sm[y][threadIdx.x]);"
    );
    src.push_str(
        &out_off
            .replace("\n    ", "\n      ")
            .replacen("    ", "      ", 1),
    );
    src.push_str(&write("      ", "blockIdx.y"));
    src.push_str("    }\n    __syncthreads();\n  }\n}\n");
    // inner_vec: as inner, for one merged reduced axis of stride 1 in every input, with each
    // input row aligned to its vector (the launcher checks): 16-byte loads, unrolled.
    let rv = reduce_vector_width(k);
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_inner_vec(const {sname} a) {{"
    );
    let _ = writeln!(src, "  __shared__ {acc} sm[{}];", BLOCK / 32);
    let _ = writeln!(
        src,
        "  const {ut} nred = ({ut})a.red_size, ns = ({ut})a.splits;
  const {ut} chunk = ((nred + ns - 1) / ns + {rv}u - 1) / {rv}u * {rv}u;
  const {ut} r0 = ({ut})blockIdx.y * chunk;
  const {ut} r1 = r0 >= nred ? r0 : ((nred - r0 < chunk) ? nred : r0 + chunk);
  const {ut} nv = (r1 - r0) / {rv}u;
  const {ut} bs = ({ut})blockDim.x;"
    );
    let _ = writeln!(
        src,
        "  for ({ut} o = blockIdx.x; o < ({ut})a.out_size; o += gridDim.x) {{"
    );
    src.push_str(&out_off);
    for u in 0..RED_UNROLL {
        let _ = writeln!(src, "    {acc} acc{u} = {entry}_IDENT;");
    }
    let _ = writeln!(
        src,
        "    for ({ut} v = threadIdx.x; v < nv; v += {RED_UNROLL}u * bs) {{"
    );
    for (i, d) in k.inputs.iter().enumerate() {
        let st = storage_type(*d);
        for u in 0..RED_UNROLL {
            let _ = writeln!(src, "      cp_vec<{st}, {rv}> x{i}_{u};");
        }
    }
    for u in 0..RED_UNROLL {
        let _ = writeln!(src, "      if (v + {u}u * bs < nv) {{");
        for (i, d) in k.inputs.iter().enumerate() {
            let st = storage_type(*d);
            let _ = writeln!(
                src,
                "        x{i}_{u} = *(const cp_vec<{st}, {rv}>*)(a.in{i} + oi{i} + r0 + (v + {u}u * bs) * {rv}u);"
            );
        }
        src.push_str(
            "      }
",
        );
    }
    for u in 0..RED_UNROLL {
        let _ = writeln!(src, "      if (v + {u}u * bs < nv) {{");
        let _ = writeln!(
            src,
            "#pragma unroll
        for (int j = 0; j < {rv}; ++j) {{"
        );
        let mut margs = vec![
            "a".to_string(),
            format!("(cp_i64)(r0 + (v + {u}u * bs) * {rv}u + j)"),
        ];
        for (i, d) in k.inputs.iter().enumerate() {
            margs.push(load_conv(*d, &format!("x{i}_{u}.v[j]")));
        }
        let _ = writeln!(
            src,
            "          acc{u} = {entry}_combine(acc{u}, {entry}_map({}));",
            margs.join(", ")
        );
        src.push_str(
            "        }
      }
",
        );
    }
    src.push_str(
        "    }
",
    );
    let mut margs = vec!["a".to_string(), "(cp_i64)r".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        margs.push(load_conv(*d, &format!("a.in{i}[oi{i} + r]")));
    }
    let _ = writeln!(
        src,
        "    for ({ut} r = r0 + nv * {rv}u + threadIdx.x; r < r1; r += bs) acc0 = {entry}_combine(acc0, {entry}_map({}));",
        margs.join(", ")
    );
    let _ = writeln!(src, "    {acc} acc = acc0;");
    for u in 1..RED_UNROLL {
        let _ = writeln!(src, "    acc = {entry}_combine(acc, acc{u});");
    }
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    src.push_str("    if (threadIdx.x == 0) {\n");
    src.push_str(&write("      ", "blockIdx.y"));
    src.push_str("    }\n  }\n}\n");
    // finish
    let _ = writeln!(src, "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_finish(const {sname} a) {{");
    let _ = writeln!(src, "  __shared__ {acc} sm[{}];", BLOCK / 32);
    let _ = writeln!(src, "  const {ut} ns = ({ut})a.splits;");
    let _ = writeln!(
        src,
        "  for ({ut} o = blockIdx.x; o < ({ut})a.out_size; o += gridDim.x) {{"
    );
    src.push_str(&out_off);
    let _ = writeln!(src, "    {acc} acc = {entry}_IDENT;");
    let _ = writeln!(
        src,
        "    for ({ut} s = threadIdx.x; s < ns; s += blockDim.x) acc = {entry}_combine(acc, {});",
        load_conv(k.acc[0], "a.partial[o * ns + s]")
    );
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    let _ = writeln!(
        src,
        "    if (threadIdx.x == 0) a.out0[oo] = {};",
        store_conv(k.output, &format!("{entry}_post(a, acc)"))
    );
    src.push_str("  }\n}\n");
    Ok(Emitted {
        source: src,
        entries: vec![
            format!("{entry}_inner"),
            format!("{entry}_outer"),
            format!("{entry}_finish"),
            format!("{entry}_inner_vec"),
        ],
        args,
        vector: 1,
    })
}

#[cfg(test)]
mod tests;

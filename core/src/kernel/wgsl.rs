//! The IR -> WGSL emitter (a pure function; used by the wgpu backend, unit-tested with naga).
//!
//! # Storage representation on wgpu
//! One element per storage word (so invocations never race on packed bytes):
//!
//! | dtype | storage word | value type in WGSL |
//! | --- | --- | --- |
//! | bool | `u32` (0 or 1) | `bool` |
//! | int8, int16, int32 | `i32` (sign-extended) | `i32` (wrapped to the type after every op) |
//! | uint8, uint16, uint32 | `u32` (zero-extended) | `u32` (masked after every op) |
//! | int64 / uint64 | `i64` / `u64` (needs `SHADER_INT64`) | same |
//! | float16, bfloat16 | `f32` holding a value of the type | `f32`, rounded on every cast and store |
//! | float32 | `f32` | `f32` |
//! | float64 | `f64` (needs `SHADER_F64`) | `f64` |
//! | complex64/128 | refused (`DTypeNotSupported`) | |
//!
//! `Int64`/`UInt64` *expressions* of a kernel whose operands (inputs, outputs, raws) are not
//! 64-bit integers are index arithmetic (`Index`, loop variables, `Load` indices): they are
//! emitted as 32-bit (`i32`/`u32`) unless [`ElementwiseSpec::wide_int64`] is set (the backend sets
//! it when an `Int64` parameter does not fit in 32 bits) or a constant does not fit. This is both
//! faster (64-bit division is emulated on GPUs) and works on adapters without `SHADER_INT64`.
//!
//! Float64 transcendental functions (`exp`, `log`, `sin`, `cos`, `tan`, `tanh`, `pow`, `atan2`)
//! are never emitted as WGSL builtins: Vulkan's GLSL.std.450 defines them for 16/32-bit floats
//! only and drivers return garbage for f64. They are refused with `DTypeNotSupported`.
//!
//! # Scatter (raw operands written)
//! A raw operand the kernel writes ([`Kernel::writes_raw`]) must have a read-write binding
//! ([`BindingPlan::mark_raw_writes`]). A binding updated by `AtomicRaw` is declared
//! `array<atomic<i32>>` (signed 8/16/32-bit) or `array<atomic<u32>>` (everything else, floats
//! as bit patterns; int64/uint64 as pairs of words, low word first), and every access to it,
//! loads and plain stores included, is atomic; it must not also serve an elementwise operand.
//! Native `atomicAdd/Max/Min/Or/And` where the word type allows; 8/16-bit integer `Add` (which
//! must re-wrap) and every float op run a compare-and-swap loop on the bit pattern; int64/uint64
//! `Add` is two 32-bit atomic adds with the low word's carry. Float64 atomics and 64-bit
//! integer `Max`/`Min` are refused with `DTypeNotSupported`.
//!
//! # Launch interface
//! Binding 0 is a uniform `Meta` struct: the kernel's parameters (`p0`, `p1`, ...) followed by
//! `w`, an array of `u32` words holding sizes, shapes, strides (as `i32` bit patterns) and
//! element offsets. Bindings 1.. are the storage buffers of a [`BindingPlan`]. Shapes, strides and
//! offsets are never baked into the source, so one pipeline serves every size. All index
//! arithmetic is 32-bit: the backend refuses buffers of 2^31 elements or more. The workgroup size
//! is 256; the dispatch grid is 2-D (`x` at most 65535) and the global thread index is
//! `(wid.y * nwg.x + wid.x) * 256 + lid`.
//!
//! # Loop budgets
//! Mesa's llvmpipe stops all loops of an invocation after 65,535 passes in all and goes on with
//! wrong values ([`loops`] has the measured behaviour and the cost model). [`LoopMode`] emits
//! kernels for such drivers: every loop checked after it ends (the *loop guard*), and elementwise
//! kernels split into windows of top-level statements and loop iterations, one dispatch each
//! ([`loops::plan_elementwise`] plans them). The default mode emits the plain kernel.
//!
//! # Deep expressions
//! Subtrees deeper than 16 IR nodes are bound to `let` temporaries before the statement that
//! uses them (and operands the emitted code repeats, e.g. `sqrt`'s, are bound once), so any
//! depth passes naga's parser (which stops at 200 nested levels) and the source stays linear in
//! the IR's size. Hoisting is safe: IR expressions have no side effects and WGSL's `select`
//! evaluates both arms anyway; a hoisted loop bound is evaluated once, which is the same value
//! because bounds are uniform.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{AtomicOp, BinaryOp, Expr, ExprKind, Kernel, ReduceKernel, Stmt, UnaryOp};
use crate::layout::Layout;
use crate::scalar::Scalar;
use std::fmt::Write;

/// Workgroup size of every emitted kernel.
pub const WORKGROUP_SIZE: u32 = 256;

/// What the adapter can do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WgslOptions {
    /// `SHADER_F64` is enabled on the device.
    pub shader_f64: bool,
    /// `SHADER_INT64` is enabled on the device.
    pub shader_int64: bool,
    /// Device label for error messages (e.g. `"wgpu:0 (llvmpipe)"`).
    pub device: String,
}

/// The storage bindings of a launch: distinct buffers get distinct bindings; an input that is
/// the same buffer as an output shares the output's read-write binding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BindingPlan {
    /// One entry per binding (binding number `1 + i`): buffer dtype and read-write access.
    pub buffers: Vec<(DType, bool)>,
    /// Binding index (into `buffers`) of each elementwise input.
    pub inputs: Vec<usize>,
    /// Binding index of each output.
    pub outputs: Vec<usize>,
    /// Binding index of each raw operand.
    pub raws: Vec<usize>,
}

impl BindingPlan {
    /// Builds a plan from buffer identities (any `Eq` key, e.g. the buffer's address) and dtypes.
    pub fn new<K: PartialEq + Copy>(
        inputs: &[(K, DType)],
        outputs: &[(K, DType)],
        raws: &[(K, DType)],
    ) -> BindingPlan {
        let mut keys: Vec<K> = vec![];
        let mut plan = BindingPlan {
            buffers: vec![],
            inputs: vec![],
            outputs: vec![],
            raws: vec![],
        };
        let slot = |keys: &mut Vec<K>, plan: &mut BindingPlan, k: K, d: DType, rw: bool| {
            if let Some(i) = keys.iter().position(|x| *x == k) {
                plan.buffers[i].1 |= rw;
                i
            } else {
                keys.push(k);
                plan.buffers.push((d, rw));
                keys.len() - 1
            }
        };
        // Outputs first so that aliased inputs see the read-write binding.
        let outs: Vec<usize> = outputs
            .iter()
            .map(|&(k, d)| slot(&mut keys, &mut plan, k, d, true))
            .collect();
        let ins: Vec<usize> = inputs
            .iter()
            .map(|&(k, d)| slot(&mut keys, &mut plan, k, d, false))
            .collect();
        let rs: Vec<usize> = raws
            .iter()
            .map(|&(k, d)| slot(&mut keys, &mut plan, k, d, false))
            .collect();
        plan.inputs = ins;
        plan.outputs = outs;
        plan.raws = rs;
        plan
    }

    /// Marks the bindings of the raw operands `k` writes (see [`Kernel::writes_raw`])
    /// read-write; a backend calls it on every plan of an elementwise launch.
    pub fn mark_raw_writes(&mut self, k: &Kernel) {
        for (j, &b) in self.raws.iter().enumerate() {
            if k.writes_raw(j) {
                self.buffers[b].1 = true;
            }
        }
    }

    /// A plan where every operand has its own binding.
    pub fn distinct(inputs: &[DType], outputs: &[DType], raws: &[DType]) -> BindingPlan {
        let tag = |v: &[DType], base: usize| -> Vec<(usize, DType)> {
            v.iter().enumerate().map(|(i, &d)| (base + i, d)).collect()
        };
        BindingPlan::new(
            &tag(inputs, 0),
            &tag(outputs, inputs.len()),
            &tag(raws, inputs.len() + outputs.len()),
        )
    }

    /// As [`BindingPlan::distinct`], with the raw operands `k` writes marked read-write.
    pub fn distinct_for(k: &Kernel) -> BindingPlan {
        let mut p = BindingPlan::distinct(&k.inputs, &k.outputs, &k.raws);
        p.mark_raw_writes(k);
        p
    }
}

/// Specialisation of an elementwise launch (the pipeline cache key, with the kernel).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElementwiseSpec {
    /// Number of axes of the (merged) iteration shape (ignored when `contiguous`).
    pub ndim: usize,
    /// Every input and output is C-contiguous over the iteration shape.
    pub contiguous: bool,
    /// Four elements per invocation with `vec4` loads/stores (needs `contiguous`, 32-bit storage,
    /// offsets that are multiples of 4, buffers allocated in multiples of 4 words, and
    /// [`vec4_eligible`]).
    pub vec4: bool,
    /// Emit index-like `Int64` arithmetic as 64-bit (see the module docs).
    pub wide_int64: bool,
    /// Buffer bindings.
    pub bindings: BindingPlan,
}

/// How a reduction maps work to invocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceMode {
    /// One invocation per (output, chunk), looping over the chunk.
    ThreadPerOutput,
    /// One workgroup per (output, chunk): a strided loop, then a tree in workgroup memory.
    GroupPerOutput,
}

/// Specialisation of a reduction launch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReduceSpec {
    /// Axes of `out_shape`.
    pub out_ndim: usize,
    /// Axes of `reduce_shape`.
    pub red_ndim: usize,
    /// Work mapping.
    pub mode: ReduceMode,
    /// Write the raw accumulator (no `post`) to a contiguous partial buffer of the accumulator
    /// dtype at index `chunk * n_out + out`, instead of the output.
    pub partial: bool,
    /// See [`ElementwiseSpec::wide_int64`].
    pub wide_int64: bool,
    /// Buffer bindings (`outputs` has one entry: the output or the partial buffer).
    pub bindings: BindingPlan,
}

/// WGSL value type of a uniform parameter slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamRepr {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `i64`
    I64,
    /// `u64`
    U64,
}

/// Layout of the uniform `Meta` struct (binding 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaLayout {
    /// Byte offset and representation of each parameter.
    pub params: Vec<(usize, ParamRepr)>,
    /// Byte offset of the `w` word array.
    pub words_offset: usize,
    /// Number of `u32` words (a multiple of 4).
    pub n_words: usize,
}

impl MetaLayout {
    fn new(params: &[ParamRepr], n_words: usize) -> MetaLayout {
        let mut off = 0usize;
        let mut out = vec![];
        for &p in params {
            let sz = match p {
                ParamRepr::F64 | ParamRepr::I64 | ParamRepr::U64 => 8,
                _ => 4,
            };
            off = off.div_ceil(sz) * sz;
            out.push((off, p));
            off += sz;
        }
        let words_offset = off.div_ceil(16) * 16;
        MetaLayout {
            params: out,
            words_offset,
            n_words: n_words.max(1).div_ceil(4) * 4,
        }
    }

    /// Total size in bytes (a multiple of 16).
    pub fn size(&self) -> usize {
        self.words_offset + self.n_words * 4
    }

    /// The uniform buffer's bytes for these parameter values and words.
    pub fn pack(&self, params: &[Scalar], words: &[u32]) -> Vec<u8> {
        let mut out = vec![0u8; self.size()];
        for (&(off, repr), &p) in self.params.iter().zip(params) {
            let mut put = |b: &[u8]| out[off..off + b.len()].copy_from_slice(b);
            match repr {
                ParamRepr::U32 => put(&(p.to_i128() as u32).to_le_bytes()),
                ParamRepr::I32 => put(&(p.to_i128() as i32).to_le_bytes()),
                ParamRepr::F32 => put(&(p.to_f64() as f32).to_le_bytes()),
                ParamRepr::F64 => put(&p.to_f64().to_le_bytes()),
                ParamRepr::I64 => put(&(p.to_i128() as i64).to_le_bytes()),
                ParamRepr::U64 => put(&(p.to_i128() as u64).to_le_bytes()),
            }
        }
        for (i, w) in words.iter().enumerate().take(self.n_words) {
            let o = self.words_offset + 4 * i;
            out[o..o + 4].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// An emitted compute shader.
#[derive(Clone, Debug)]
pub struct WgslShader {
    /// WGSL source (entry point `main`).
    pub source: String,
    /// Layout of the uniform at binding 0.
    pub meta: MetaLayout,
}

/// How an emitted kernel copes with drivers that cap shader loops (Mesa's llvmpipe: see
/// [`loops`]). The default (both off) is the plain kernel.
///
/// - `guard`: after every loop (the kernel's [`Stmt::For`]s, the reduction loops, the helper
///   functions' loops) a check that the loop's condition is really false; a loop the driver cut
///   short writes the launch's *guard word* (the last meta word) to element 0 of the guard
///   buffer, an extra read-write `array<u32>` binding after the plan's buffers. The backend
///   reads that buffer back and reports an error instead of wrong numbers.
/// - `window` (elementwise only): the kernel runs in windows, one dispatch each (see
///   [`loops::plan_elementwise`]): six more meta words before the guard word,
///   `lo, hi, it_lo, it_hi, flags, base` ([`loops::Window::words`]): top-level statements
///   `lo..=hi` run, a top-level loop at `lo` starts at its iteration `it_lo`, one at `hi` stops
///   before its iteration `it_hi` (`u32::MAX`: its end); flag bit 0 restores the locals from the
///   scratch buffer first, bit 1 saves them at the end; the launch covers elements
///   `base..base + total` (`i = gid + base`). The scratch buffer (an `array<u32>` binding after
///   the guard's, or after the plan's buffers) holds [`scratch_words`] words per element at
///   `word * total + gid`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LoopMode {
    /// Check every loop and report loops cut short.
    pub guard: bool,
    /// Windowed elementwise launch.
    pub window: bool,
}

impl LoopMode {
    /// Meta words after the launch's own.
    pub fn extra_words(&self) -> usize {
        usize::from(self.guard) + 6 * usize::from(self.window)
    }

    /// Bindings after the plan's buffers (the guard buffer, then the scratch buffer).
    pub fn extra_bindings(&self) -> usize {
        usize::from(self.guard) + usize::from(self.window)
    }

    fn bindings_decl(&self, first: usize) -> String {
        let mut s = String::new();
        let mut b = first;
        if self.guard {
            let _ = writeln!(
                s,
                "@group(0) @binding({b}) var<storage, read_write> lg: array<u32>;"
            );
            b += 1;
        }
        if self.window {
            let _ = writeln!(
                s,
                "@group(0) @binding({b}) var<storage, read_write> sc: array<u32>;"
            );
        }
        s
    }
}

/// Scratch words per element of a windowed launch of `k` (two per 64-bit local, else one).
pub fn scratch_words(k: &Kernel, wide_int64: bool) -> usize {
    let narrow = elementwise_narrow(k, wide_int64);
    k.locals
        .iter()
        .map(|d| match d {
            DType::Int64 | DType::UInt64 if narrow => 1,
            DType::Int64 | DType::UInt64 | DType::Float64 => 2,
            _ => 1,
        })
        .sum()
}

/// True when an elementwise kernel can run four elements per invocation: every operand has a
/// 32-bit storage word, there are no raw operands, and every output is stored exactly once,
/// unconditionally, at top level.
pub fn vec4_eligible(k: &Kernel) -> bool {
    if !k.raws.is_empty() {
        return false;
    }
    let narrow = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .all(|d| storage_bytes(*d) == Some(4));
    if !narrow {
        return false;
    }
    let mut counts = vec![0usize; k.outputs.len()];
    for s in &k.body {
        if let Stmt::Store { output, .. } = s {
            if let Some(c) = counts.get_mut(*output) {
                *c += 1;
            }
        }
    }
    let mut nested = false;
    for s in &k.body {
        if let Stmt::If {
            then_body,
            else_body,
            ..
        } = s
        {
            Stmt::visit_all(then_body, &mut |x| {
                nested |= matches!(x, Stmt::Store { .. })
            });
            Stmt::visit_all(else_body, &mut |x| {
                nested |= matches!(x, Stmt::Store { .. })
            });
        }
        if let Stmt::For { body, .. } = s {
            Stmt::visit_all(body, &mut |x| nested |= matches!(x, Stmt::Store { .. }));
        }
    }
    !nested && counts.iter().all(|&c| c == 1)
}

/// Bytes of the storage word of `dtype` on wgpu (`None` for complex).
pub fn storage_bytes(dtype: DType) -> Option<usize> {
    match dtype {
        DType::Complex64 | DType::Complex128 => None,
        DType::Int64 | DType::UInt64 | DType::Float64 => Some(8),
        _ => Some(4),
    }
}

/// Why the device cannot store `dtype`, if it cannot (the exact refusal the backend reports).
pub fn storage_refusal(dtype: DType, shader_f64: bool, shader_int64: bool) -> Option<String> {
    match dtype {
        DType::Float64 if !shader_f64 => {
            Some("float64 on a wgpu adapter without SHADER_F64".into())
        }
        DType::Int64 | DType::UInt64 if !shader_int64 => {
            Some(format!("{dtype} on a wgpu adapter without SHADER_INT64"))
        }
        DType::Complex64 | DType::Complex128 => Some(format!(
            "{dtype} is not implemented on the wgpu backend yet"
        )),
        _ => None,
    }
}

fn word(i: usize) -> String {
    format!("mt.w[{}][{}]", i / 4, i % 4)
}

fn iword(i: usize) -> String {
    format!("bitcast<i32>({})", word(i))
}

fn i32lit(v: i64) -> String {
    if v == i32::MIN as i64 {
        "(-2147483647i - 1i)".into()
    } else if v < 0 {
        format!("(-{}i)", -v)
    } else {
        format!("{v}i")
    }
}

fn i64lit(v: i64) -> String {
    if v == i64::MIN {
        "(-9223372036854775807li - 1li)".into()
    } else if v < 0 {
        format!("(-{}li)", -(v as i128))
    } else {
        format!("{v}li")
    }
}

fn f32lit(x: f32) -> String {
    if x.is_nan() {
        "bitcast<f32>(0x7fc00000u)".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "bitcast<f32>(0x7f800000u)".into()
        } else {
            "bitcast<f32>(0xff800000u)".into()
        }
    } else if x != 0.0 && !x.is_normal() {
        format!("bitcast<f32>({:#x}u)", x.to_bits())
    } else if x.is_sign_negative() {
        format!("(-{:?}f)", -x)
    } else {
        format!("{x:?}f")
    }
}

fn f64lit(x: f64) -> String {
    if x.is_nan() || x.is_infinite() {
        format!("f64({})", f32lit(x as f32))
    } else if x.is_sign_negative() {
        format!("(-{:e}lf)", -x)
    } else {
        format!("{x:e}lf")
    }
}

struct Ctx {
    inputs: Vec<String>,
    params: Vec<String>,
    vars: Vec<String>,
    index: String,
    /// Per raw operand.
    raws: Vec<RawCtx>,
}

/// How a raw operand is reached.
#[derive(Clone)]
struct RawCtx {
    /// Binding number (into the plan's buffers): the array is `b{binding}`.
    binding: usize,
    /// Offset expression (elements).
    off: String,
    /// The binding is declared `array<atomic<..>>`: every access is atomic.
    atomic: bool,
}

/// The WGSL atomic word of a dtype held in a 32-bit word.
fn atomic_word(d: DType) -> &'static str {
    match d {
        // int64/uint64: pairs of u32 words (low word first), see `Em::atomic_helper`.
        DType::Int8 | DType::Int16 | DType::Int32 => "i32",
        _ => "u32",
    }
}

struct Em {
    opts: WgslOptions,
    /// Index-like 64-bit integers are emitted as 32-bit.
    narrow: bool,
    helpers: Vec<(String, String)>,
    kname: String,
    /// `let` temporaries of deep expressions, written before the statement that uses them.
    pre: Vec<String>,
    /// Next temporary's number.
    tmp: usize,
    /// The statement run when a loop ended early (see [`LoopMode::guard`]).
    guard: Option<String>,
}

/// Deepest expression (in IR nodes) emitted inline; deeper subtrees go through `let`
/// temporaries, so naga's parser (recursion limit 200) accepts any depth.
const INLINE_DEPTH: u32 = 16;

const ROUND_F16: &str = "fn round_f16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let a = b & 0x7fffffffu;
  let s = b & 0x80000000u;
  if (a > 0x7f800000u) { return x; }
  if (a >= 0x477ff000u) { return bitcast<f32>(s | 0x7f800000u); }
  if (a < 0x38800000u) {
    let v = round(bitcast<f32>(a) * 16777216.0f) * bitcast<f32>(0x33800000u);
    return bitcast<f32>(s | bitcast<u32>(v));
  }
  return bitcast<f32>(s | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u));
}
";

const ROUND_BF16: &str = "fn round_bf16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return x; }
  return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}
";

const ISNAN_F32: &str =
    "fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
";

impl Em {
    fn new(opts: &WgslOptions, narrow: bool, kname: &str) -> Em {
        Em {
            opts: opts.clone(),
            narrow,
            helpers: vec![],
            kname: kname.into(),
            pre: vec![],
            tmp: 0,
            guard: None,
        }
    }

    /// Writes the pending `let` temporaries at indentation `pad`.
    fn flush_pre(&mut self, pad: &str, out: &mut String) {
        for l in self.pre.drain(..) {
            let _ = writeln!(out, "{pad}{l}");
        }
    }

    /// The guard statement after a loop whose condition `cond` must be false when it ends.
    fn guard_after(&self, cond: &str, pad: &str, out: &mut String) {
        if let Some(g) = &self.guard {
            let _ = writeln!(out, "{pad}if ({cond}) {{ {g} }}");
        }
    }

    /// `guard` as one line to splice into helper code (empty without a guard).
    fn guard_line(&self, cond: &str) -> String {
        match &self.guard {
            Some(g) => format!("  if ({cond}) {{ {g} }}\n"),
            None => String::new(),
        }
    }

    fn helper(&mut self, name: &str, code: impl FnOnce() -> String) -> String {
        if !self.helpers.iter().any(|(n, _)| n == name) {
            let c = code();
            self.helpers.push((name.into(), c));
        }
        name.into()
    }

    fn unsupported(&self, op: &str, dtype: DType, reason: &str) -> Error {
        Error::DTypeNotSupported {
            op: if op == self.kname {
                op.to_string()
            } else {
                format!("{} ({op})", self.kname)
            },
            dtype,
            device: self.opts.device.clone(),
            reason: reason.into(),
        }
    }

    fn check(&self, d: DType) -> Result<()> {
        if let Some(r) = storage_refusal(d, self.opts.shader_f64, true) {
            return Err(self.unsupported(&self.kname, d, &r));
        }
        if matches!(d, DType::Int64 | DType::UInt64) && !self.narrow && !self.opts.shader_int64 {
            return Err(self.unsupported(
                &self.kname,
                d,
                &format!("{d} on a wgpu adapter without SHADER_INT64"),
            ));
        }
        Ok(())
    }

    /// WGSL value type.
    fn vty(&self, d: DType) -> &'static str {
        match d {
            DType::Bool => "bool",
            DType::Int8 | DType::Int16 | DType::Int32 => "i32",
            DType::UInt8 | DType::UInt16 | DType::UInt32 => "u32",
            DType::Int64 => {
                if self.narrow {
                    "i32"
                } else {
                    "i64"
                }
            }
            DType::UInt64 => {
                if self.narrow {
                    "u32"
                } else {
                    "u64"
                }
            }
            DType::Float16 | DType::BFloat16 | DType::Float32 => "f32",
            DType::Float64 => "f64",
            DType::Complex64 => "vec2<f32>",
            DType::Complex128 => "vec2<f64>",
        }
    }

    /// WGSL storage word type.
    fn sty(&self, d: DType) -> &'static str {
        match d {
            DType::Bool => "u32",
            DType::Int64 => "i64",
            DType::UInt64 => "u64",
            _ => self.vty(d),
        }
    }

    fn param_repr(&self, d: DType) -> ParamRepr {
        match self.vty(d) {
            "bool" | "u32" => ParamRepr::U32,
            "i32" => ParamRepr::I32,
            "f32" => ParamRepr::F32,
            "f64" => ParamRepr::F64,
            "i64" => ParamRepr::I64,
            _ => ParamRepr::U64,
        }
    }

    fn param_expr(&self, k: usize, d: DType) -> String {
        if d == DType::Bool {
            format!("(mt.p{k} != 0u)")
        } else {
            format!("mt.p{k}")
        }
    }

    fn zero(&self, d: DType) -> String {
        self.lit(Scalar::zero(d))
    }

    fn lit(&self, v: Scalar) -> String {
        match v {
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int8(x) => i32lit(x as i64),
            Scalar::Int16(x) => i32lit(x as i64),
            Scalar::Int32(x) => i32lit(x as i64),
            Scalar::UInt8(x) => format!("{x}u"),
            Scalar::UInt16(x) => format!("{x}u"),
            Scalar::UInt32(x) => format!("{x}u"),
            Scalar::Int64(x) => {
                if self.narrow {
                    i32lit(x)
                } else {
                    i64lit(x)
                }
            }
            Scalar::UInt64(x) => {
                if self.narrow {
                    format!("{x}u")
                } else {
                    format!("{x}lu")
                }
            }
            Scalar::Float16(x) => f32lit(x.to_f32()),
            Scalar::BFloat16(x) => f32lit(x.to_f32()),
            Scalar::Float32(x) => f32lit(x),
            Scalar::Float64(x) => f64lit(x),
            Scalar::Complex64(_) | Scalar::Complex128(_) => "0".into(),
        }
    }

    /// Literal of `v` in dtype `d` (for helper code).
    fn ilit(&self, d: DType, v: i64) -> String {
        self.lit(Scalar::Int64(v).cast(d))
    }

    fn load_conv(&self, d: DType, s: String) -> String {
        if d == DType::Bool {
            format!("({s} != 0u)")
        } else {
            s
        }
    }

    fn store_conv(&mut self, d: DType, v: String) -> String {
        match d {
            DType::Bool => format!("select(0u, 1u, {v})"),
            DType::Float16 => format!("{}({v})", self.helper("round_f16", || ROUND_F16.into())),
            DType::BFloat16 => format!("{}({v})", self.helper("round_bf16", || ROUND_BF16.into())),
            _ => v,
        }
    }

    /// Wraps an integer value of dtype `d` (held in a 32-bit word) to its range.
    fn wrap(&self, d: DType, s: String) -> String {
        match d {
            DType::Int8 => format!("(({s} << 24u) >> 24u)"),
            DType::Int16 => format!("(({s} << 16u) >> 16u)"),
            DType::UInt8 => format!("({s} & 0xffu)"),
            DType::UInt16 => format!("({s} & 0xffffu)"),
            _ => s,
        }
    }

    /// NumPy's `npy_divmod` (floor quotient in `.x`, remainder with the divisor's sign in `.y`)
    /// over an exact `fmod`: WGSL's float `%` is `a - b * trunc(a / b)`, which loses the
    /// remainder when the quotient rounds (`1 % 0.1`), so the remainder is found by binary long
    /// division: subtracting `|b| * 2^k` for falling `k` (each subtraction exact by Sterbenz's
    /// lemma, each halving exact).
    fn float_divmod(&mut self, d: DType) -> String {
        let t = self.vty(d);
        let f64_ = d == DType::Float64;
        let lit = |x: f64| if f64_ { f64lit(x) } else { f32lit(x as f32) };
        let (z, one, half, nan, inf, negz) = (
            lit(0.0),
            lit(1.0),
            lit(0.5),
            lit(f64::NAN),
            lit(f64::INFINITY),
            lit(-0.0),
        );
        let nx = self.isnan(d, "x");
        let ny = self.isnan(d, "y");
        let g1 = self.guard_line(&format!("s <= r * {half}"));
        let g2 = self.guard_line("s != ay");
        let fmod = format!("fmod_{t}");
        self.helper(&fmod, || {
            format!(
                "fn {fmod}(x: {t}, y: {t}) -> {t} {{
  if ({nx} || {ny} || abs(x) == {inf} || y == {z}) {{ return {nan}; }}
  if (abs(y) == {inf}) {{ return x; }}
  var r = abs(x);
  let ay = abs(y);
  var s = ay;
  while (s <= r * {half}) {{ s = s * 2.0; }}
{g1}  loop {{
    if (r >= s) {{ r = r - s; }}
    if (s == ay) {{ break; }}
    s = s * {half};
  }}
{g2}  return select(r, -r, x < {z});
}}
"
            )
        });
        // Signed zeros through bits on f32: NVIDIA's Vulkan compiler folds `select(0.0, -0.0, c)`
        // as if zeros had no sign (seen on the H200).
        let signed_zero = |cond: &str| {
            if f64_ {
                format!("select({z}, {negz}, {cond})")
            } else {
                format!("bitcast<f32>(select(0u, 0x80000000u, {cond}))")
            }
        };
        let zero_b = signed_zero(&format!("b < {z}"));
        let na = self.isnan(d, "a");
        let bneg = if f64_ {
            format!("({one} / b < {z})")
        } else {
            "((bitcast<u32>(b) & 0x80000000u) != 0u)".to_string()
        };
        let zero_q = signed_zero(&format!("q < {z} || (q == {z} && {one} / q < {z})"));
        let name = format!("divmod_{t}");
        self.helper(&name, || {
            format!(
                "fn {name}(a: {t}, b: {t}) -> vec2<{t}> {{
  let m0 = {fmod}(a, b);
  // Division by zero is spelled out: a driver may fold `a / 0` as if infinities did not exist
  // (llvmpipe returned 0 for a uniform 0.0 divisor).
  if (b == {z}) {{
    if (a == {z} || {na}) {{ return vec2<{t}>({nan}, m0); }}
    return vec2<{t}>(select({inf}, -{inf}, (a < {z}) != {bneg}), m0);
  }}
  let q0 = a / b;
  var div = (a - m0) / b;
  var m = m0;
  if (!(m == {z})) {{
    if ((b < {z}) != (m < {z})) {{ m = m + b; div = div - {one}; }}
  }} else {{
    m = {zero_b};
  }}
  var fl: {t};
  if (!(div == {z})) {{
    fl = floor(div);
    if (div - fl > {half}) {{ fl = fl + {one}; }}
  }} else {{
    let q = q0;
    fl = {zero_q};
  }}
  return vec2<{t}>(fl, m);
}}
"
            )
        })
    }

    fn isnan(&mut self, d: DType, s: &str) -> String {
        match d {
            DType::Float64 => format!("(!({s} == {s}))"),
            _ => format!("{}({s})", self.helper("isnan_f32", || ISNAN_F32.into())),
        }
    }

    /// Value of dtype `d` from its atomic word `w` (see [`atomic_word`]).
    fn word_value(&self, d: DType, w: String) -> String {
        match d {
            DType::Bool => format!("({w} != 0u)"),
            DType::Float16 | DType::BFloat16 | DType::Float32 => format!("bitcast<f32>({w})"),
            _ => w,
        }
    }

    /// The atomic word of a value of dtype `d` (rounded as a store rounds it).
    fn value_word(&mut self, d: DType, v: String) -> String {
        let sv = self.store_conv(d, v);
        match d {
            DType::Float16 | DType::BFloat16 | DType::Float32 => format!("bitcast<u32>({sv})"),
            _ => sv,
        }
    }

    /// The helper `fn NAME(i: u32, v: T)` doing `b{binding}[i] = op(b{binding}[i], v)`
    /// atomically: a native atomic where one fits, else a compare-and-swap loop.
    /// Load/store helpers `b{binding}_pair_ld(i) -> u64` / `_st(i, u64)` of a 64-bit integer
    /// raw operand held as pairs of atomic u32 words (low word first); returns the prefix.
    fn pair_helpers(&mut self, binding: usize) -> String {
        let name = format!("b{binding}_pair");
        let arr = format!("b{binding}");
        self.helper(&format!("{name}_ld"), || {
            format!(
                "fn {name}_ld(i: u32) -> u64 {{ return u64(atomicLoad(&{arr}[2u * i])) | (u64(atomicLoad(&{arr}[2u * i + 1u])) << 32u); }}\n\
                 fn {name}_st(i: u32, v: u64) {{ atomicStore(&{arr}[2u * i], u32(v & 0xfffffffflu)); atomicStore(&{arr}[2u * i + 1u], u32(v >> 32u)); }}\n"
            )
        });
        name
    }

    fn atomic_helper(&mut self, binding: usize, d: DType, op: AtomicOp) -> Result<String> {
        if matches!(d, DType::Int64 | DType::UInt64) && op == AtomicOp::Add {
            // Two 32-bit atomic adds with the carry of the low word: every update is an add,
            // so the final pair is the exact wrapped sum whatever the order (readers racing
            // with the updates may see a torn value, as the module docs allow).
            let name = format!("atomic_add_{}_b{binding}", d.name());
            let vt = self.vty(d);
            let arr = format!("b{binding}");
            self.helper(&name, || {
                format!(
                    "fn {name}(i: u32, v: {vt}) {{
  let u = bitcast<u64>(v);
  let lo = u32(u & 0xfffffffflu);
  let hi = u32(u >> 32u);
  let old = atomicAdd(&{arr}[2u * i], lo);
  let carry = select(0u, 1u, old + lo < old);
  if (hi + carry != 0u) {{ atomicAdd(&{arr}[2u * i + 1u], hi + carry); }}
}}
"
                )
            });
            return Ok(name);
        }
        if storage_bytes(d) != Some(4) {
            return Err(self.unsupported(
                &self.kname,
                d,
                &format!(
                    "atomic {op:?} on {d}: WGSL has only 32-bit atomics (atomic<i32>/atomic<u32>)"
                ),
            ));
        }
        let name = format!(
            "atomic_{}_{}_b{binding}",
            format!("{op:?}").to_lowercase(),
            d.name()
        );
        if self.helpers.iter().any(|(n, _)| *n == name) {
            return Ok(name);
        }
        let vt = self.vty(d);
        let arr = format!("b{binding}");
        let native =
            |f: &str, v: &str| format!("fn {name}(i: u32, v: {vt}) {{ {f}(&{arr}[i], {v}); }}\n");
        let code = match (op, d) {
            (AtomicOp::Add | AtomicOp::Max, DType::Bool) => native("atomicOr", "select(0u, 1u, v)"),
            (AtomicOp::Min, DType::Bool) => native("atomicAnd", "select(0u, 1u, v)"),
            (AtomicOp::Add, DType::Int32 | DType::UInt32) => native("atomicAdd", "v"),
            (AtomicOp::Max, _) if d.is_integer() => native("atomicMax", "v"),
            (AtomicOp::Min, _) if d.is_integer() => native("atomicMin", "v"),
            _ => {
                let cur = self.word_value(d, "old".into());
                let r = self.binary(op.binary(), d, d, "cur".into(), "v".into())?;
                let nw = self.value_word(d, r);
                // With a loop guard, `done` tells a finished update from one cut short.
                let (dv, dn, g) = if self.guard.is_some() {
                    (
                        "  var done = false;\n",
                        "done = true; ",
                        self.guard_line("!done"),
                    )
                } else {
                    ("", "", String::new())
                };
                format!(
                    "fn {name}(i: u32, v: {vt}) {{
  var old = atomicLoad(&{arr}[i]);
{dv}  loop {{
    let cur = {cur};
    let nw = {nw};
    if (nw == old) {{ {dn}break; }}
    let x = atomicCompareExchangeWeak(&{arr}[i], old, nw);
    if (x.exchanged) {{ {dn}break; }}
    old = x.old_value;
  }}
{g}}}
"
                )
            }
        };
        self.helpers.push((name.clone(), code));
        Ok(name)
    }

    fn expr(&mut self, e: &Expr, c: &Ctx) -> Result<String> {
        Ok(self.expr_d(e, c)?.0)
    }

    /// An expression and its nesting depth; subtrees deeper than [`INLINE_DEPTH`] are bound to
    /// `let` temporaries (in [`Em::pre`]) first.
    fn expr_d(&mut self, e: &Expr, c: &Ctx) -> Result<(String, u32)> {
        let (s, d) = self.expr_node(e, c)?;
        if d > INLINE_DEPTH {
            let name = format!("t{}", self.tmp);
            self.tmp += 1;
            self.pre.push(format!("let {name} = {s};"));
            return Ok((name, 1));
        }
        Ok((s, d))
    }

    /// `s` itself when it is a name, literal or element access, else a `let` temporary
    /// holding it (for operands the emitted code repeats).
    fn bind(&mut self, s: String) -> String {
        let simple = s.len() <= 48
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c));
        if simple {
            return s;
        }
        let name = format!("t{}", self.tmp);
        self.tmp += 1;
        self.pre.push(format!("let {name} = {s};"));
        name
    }

    fn expr_node(&mut self, e: &Expr, c: &Ctx) -> Result<(String, u32)> {
        self.check(e.ty)?;
        let mut depth = 0u32;
        let mut sub = |em: &mut Em, x: &Expr| -> Result<String> {
            let (s, d) = em.expr_d(x, c)?;
            depth = depth.max(d);
            Ok(s)
        };
        let s = match &e.kind {
            ExprKind::Const(v) => self.lit(*v),
            ExprKind::Input(k) => c.inputs[*k].clone(),
            ExprKind::Param(k) => c.params[*k].clone(),
            ExprKind::Var(k) => c.vars[*k].clone(),
            ExprKind::Index => format!("{}({})", self.vty(DType::Int64), c.index),
            ExprKind::Load { raw, index } => {
                let ix = sub(self, index)?;
                let r = &c.raws[*raw];
                let slot = format!("b{}[{} + u32({ix})]", r.binding, r.off);
                if r.atomic && storage_bytes(e.ty) == Some(8) {
                    let h = self.pair_helpers(r.binding);
                    let v = format!("{h}_ld({} + u32({ix}))", r.off);
                    if e.ty == DType::Int64 {
                        format!("bitcast<i64>({v})")
                    } else {
                        v
                    }
                } else if r.atomic {
                    self.word_value(e.ty, format!("atomicLoad(&{slot})"))
                } else {
                    self.load_conv(e.ty, slot)
                }
            }
            ExprKind::Unary(op, a) => {
                let mut s = sub(self, a)?;
                if matches!(op, UnaryOp::Sqrt | UnaryOp::Log) {
                    // Emitted twice: bind a compound operand once.
                    s = self.bind(s);
                }
                self.unary(*op, a.ty, s)?
            }
            ExprKind::Binary(op, a, b) => {
                let x = sub(self, a)?;
                let mut y = sub(self, b)?;
                if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                    y = self.bind(y);
                }
                self.binary(*op, a.ty, b.ty, x, y)?
            }
            ExprKind::Cast(a) => {
                let s = sub(self, a)?;
                self.cast(s, a.ty, e.ty)
            }
            ExprKind::Select(cond, a, b) => {
                let cs = sub(self, cond)?;
                let x = sub(self, a)?;
                let y = sub(self, b)?;
                format!("select({y}, {x}, {cs})")
            }
        };
        Ok((s, depth + 1))
    }

    fn f64_refusal(&self, op: &str) -> Error {
        self.unsupported(
            op,
            DType::Float64,
            &format!(
                "{op} on float64: Vulkan's GLSL.std.450 {op} is defined for 16/32-bit floats only \
                 (drivers return garbage for f64) and a software float64 {op} is not implemented yet"
            ),
        )
    }

    fn unary(&mut self, op: UnaryOp, d: DType, a: String) -> Result<String> {
        let t = self.vty(d);
        let float = d.is_float();
        let f64_ = d == DType::Float64;
        Ok(match op {
            UnaryOp::Neg => match d {
                DType::Bool => a,
                _ if float => format!("(-{a})"),
                _ if d.is_signed_integer() => self.wrap(d, format!("(-{a})")),
                _ => self.wrap(d, format!("({} - {a})", self.zero(d))),
            },
            UnaryOp::Abs => {
                match d {
                    _ if float => format!("abs({a})"),
                    _ if d.is_signed_integer() => {
                        let z = self.zero(d);
                        let name = format!("abs_{t}");
                        let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}) -> {t} {{ return select(a, {z} - a, a < {z}); }}\n")
                    });
                        self.wrap(d, format!("{h}({a})"))
                    }
                    _ => a,
                }
            }
            UnaryOp::Real | UnaryOp::Imag | UnaryOp::Conj => {
                let name = format!("{op:?}").to_lowercase();
                return Err(self.unsupported(&name, d, "complex numbers are not supported"));
            }
            UnaryOp::Not => self.truthy(d, &a, true),
            UnaryOp::BitNot => match d {
                DType::Bool => format!("(!{a})"),
                _ if d.is_integer() => self.wrap(d, format!("(~{a})")),
                _ => return Err(self.unsupported("invert", d, "bitwise not needs an integer")),
            },
            UnaryOp::Sqrt
            | UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Tanh => {
                let name = format!("{op:?}").to_lowercase();
                if !float {
                    return Err(self.unsupported(&name, d, "needs a float operand"));
                }
                if f64_ && op != UnaryOp::Sqrt {
                    return Err(self.f64_refusal(&name));
                }
                let nan = if f64_ {
                    f64lit(f64::NAN)
                } else {
                    f32lit(f32::NAN)
                };
                let z = self.zero(d);
                match op {
                    UnaryOp::Sqrt => format!("select(sqrt({a}), {nan}, {a} < {z})"),
                    UnaryOp::Log => format!("select(log({a}), {nan}, {a} < {z})"),
                    UnaryOp::Tanh => {
                        let h = self.helper("tanh_f32", || {
                            "fn tanh_f32(x: f32) -> f32 { return select(tanh(clamp(x, -15.0f, 15.0f)), x, !(x == x)); }\n".into()
                        });
                        format!("{h}({a})")
                    }
                    _ => format!("{name}({a})"),
                }
            }
            UnaryOp::Floor | UnaryOp::Ceil => {
                if float {
                    format!("{}({a})", format!("{op:?}").to_lowercase())
                } else {
                    a
                }
            }
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite => {
                if !float {
                    return Ok(if op == UnaryOp::IsFinite {
                        "true".into()
                    } else {
                        "false".into()
                    });
                }
                if f64_ {
                    let inf = f64lit(f64::INFINITY);
                    match op {
                        UnaryOp::IsNan => format!("(!({a} == {a}))"),
                        UnaryOp::IsInf => format!("(abs({a}) == {inf})"),
                        _ => format!("(abs({a}) < {inf})"),
                    }
                } else {
                    let bits = format!("(bitcast<u32>({a}) & 0x7fffffffu)");
                    match op {
                        UnaryOp::IsNan => format!("({bits} > 0x7f800000u)"),
                        UnaryOp::IsInf => format!("({bits} == 0x7f800000u)"),
                        _ => format!("({bits} < 0x7f800000u)"),
                    }
                }
            }
        })
    }

    /// `a != 0` as a bool (`negate`: `a == 0`).
    fn truthy(&self, d: DType, a: &str, negate: bool) -> String {
        if d == DType::Bool {
            return if negate { format!("(!{a})") } else { a.into() };
        }
        let z = self.zero(d);
        if negate {
            format!("({a} == {z})")
        } else {
            format!("(!({a} == {z}))")
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        d: DType,
        db: DType,
        a: String,
        b: String,
    ) -> Result<String> {
        use BinaryOp as B;
        let t = self.vty(d);
        let float = d.is_float();
        let f64_ = d == DType::Float64;
        let int = d.is_integer();
        let signed = d.is_signed_integer();
        let opname = format!("{op:?}").to_lowercase();
        if d == DType::Bool {
            return Ok(match op {
                B::Add | B::Or | B::Max | B::FMax => format!("({a} | {b})"),
                B::Mul | B::And | B::Min | B::FMin => format!("({a} & {b})"),
                B::Xor | B::Sub | B::Ne => format!("({a} != {b})"),
                B::Eq => format!("({a} == {b})"),
                B::Lt | B::Le | B::Gt | B::Ge => {
                    let sym = match op {
                        B::Lt => "<",
                        B::Le => "<=",
                        B::Gt => ">",
                        _ => ">=",
                    };
                    format!("(select(0u, 1u, {a}) {sym} select(0u, 1u, {b}))")
                }
                _ => {
                    return Err(self.unsupported(&opname, d, "not defined for bool operands"));
                }
            });
        }
        let z = self.zero(d);
        Ok(match op {
            B::Complex => {
                return Err(self.unsupported("complex", d, "complex numbers are not supported"))
            }
            B::Add | B::Sub | B::Mul => {
                let sym = match op {
                    B::Add => "+",
                    B::Sub => "-",
                    _ => "*",
                };
                self.wrap(d, format!("({a} {sym} {b})"))
            }
            B::Div => {
                if float {
                    format!("({a} / {b})")
                } else {
                    let name = format!("div_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ if (b == {z}) {{ return {z}; }} return a / b; }}\n")
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                }
            }
            B::FloorDiv => {
                if float {
                    let h = self.float_divmod(d);
                    format!("{h}({a}, {b}).x")
                } else if signed {
                    let name = format!("floordiv_{t}");
                    let one = self.ilit(d, 1);
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
  if (b == {z}) {{ return {z}; }}
  let q = a / b;
  let r = a % b;
  if (r != {z} && ((r < {z}) != (b < {z}))) {{ return q - {one}; }}
  return q;
}}
"
                        )
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                } else {
                    let name = format!("div_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ if (b == {z}) {{ return {z}; }} return a / b; }}\n")
                    });
                    format!("{h}({a}, {b})")
                }
            }
            B::Mod => {
                if float {
                    let h = self.float_divmod(d);
                    format!("{h}({a}, {b}).y")
                } else if signed {
                    let name = format!("mod_{t}");
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
  if (b == {z}) {{ return {z}; }}
  let r = a % b;
  if (r != {z} && ((r < {z}) != (b < {z}))) {{ return r + b; }}
  return r;
}}
"
                        )
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                } else {
                    let name = format!("mod_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ if (b == {z}) {{ return {z}; }} return a % b; }}\n")
                    });
                    format!("{h}({a}, {b})")
                }
            }
            B::Pow => {
                if f64_ {
                    return Err(self.f64_refusal("pow"));
                }
                if float {
                    let h = self.helper("pow_f32", || POW_F32.into());
                    format!("{h}({a}, {b})")
                } else {
                    let name = format!("pow_{t}");
                    let one = self.ilit(d, 1);
                    let neg = if signed {
                        let m1 = self.ilit(d, -1);
                        format!(
                            "  if (b < {z}) {{
    if (a == {one}) {{ return {one}; }}
    if (a == {m1}) {{ return select({one}, {m1}, (b & {one}) != {z}); }}
    return {z};
  }}
"
                        )
                    } else {
                        String::new()
                    };
                    let g = self.guard_line(&format!("e != {z}"));
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
{neg}  var r = {one};
  var x = a;
  var e = b;
  while (e != {z}) {{
    if ((e & {one}) != {z}) {{ r = r * x; }}
    x = x * x;
    e = e >> 1u;
  }}
{g}  return r;
}}
"
                        )
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                }
            }
            B::Max | B::Min | B::FMax | B::FMin => {
                let gt = if matches!(op, B::Max | B::FMax) {
                    ">"
                } else {
                    "<"
                };
                if float {
                    let name = format!("{opname}_{t}");
                    let na = self.isnan(d, "a");
                    let nb = self.isnan(d, "b");
                    let prop = matches!(op, B::Max | B::Min);
                    let (ra, rb) = if prop { ("a", "b") } else { ("b", "a") };
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
  if ({na}) {{ return {ra}; }}
  if ({nb}) {{ return {rb}; }}
  return select(b, a, a {gt} b);
}}
"
                        )
                    });
                    format!("{h}({a}, {b})")
                } else {
                    let name = format!("{opname}_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ return select(b, a, a {gt} b); }}\n")
                    });
                    format!("{h}({a}, {b})")
                }
            }
            B::Eq => format!("({a} == {b})"),
            B::Ne => {
                if float {
                    format!("(!({a} == {b}))")
                } else {
                    format!("({a} != {b})")
                }
            }
            B::Lt => format!("({a} < {b})"),
            B::Le => format!("({a} <= {b})"),
            B::Gt => format!("({a} > {b})"),
            B::Ge => format!("({a} >= {b})"),
            B::And | B::Or | B::Xor => {
                if !int {
                    return Err(self.unsupported(&opname, d, "bitwise ops need integers"));
                }
                let sym = match op {
                    B::And => "&",
                    B::Or => "|",
                    _ => "^",
                };
                format!("({a} {sym} {b})")
            }
            B::Shl | B::Shr => {
                if !int {
                    return Err(self.unsupported(&opname, d, "shifts need integers"));
                }
                let amount = self.shift_amount(db, &b);
                let wbits = if t.ends_with("64") { 64 } else { 32 };
                let bits = if self.narrow && matches!(d, DType::Int64 | DType::UInt64) {
                    32
                } else {
                    d.bits()
                };
                if op == B::Shl {
                    let s = format!("({a} << min({amount}, {}u))", wbits - 1);
                    format!("select({}, {z}, {amount} >= {bits}u)", self.wrap(d, s))
                } else if signed {
                    format!("({a} >> min({amount}, {}u))", wbits - 1)
                } else {
                    format!(
                        "select(({a} >> min({amount}, {}u)), {z}, {amount} >= {wbits}u)",
                        wbits - 1
                    )
                }
            }
            B::Atan2 => {
                if f64_ {
                    return Err(self.f64_refusal("atan2"));
                }
                if !float {
                    return Err(self.unsupported("atan2", d, "needs a float operand"));
                }
                let h = self.helper("atan2_f32", || ATAN2_F32.into());
                format!("{h}({a}, {b})")
            }
        })
    }

    /// A shift amount as u32 (negative amounts become 255: "too large").
    fn shift_amount(&self, db: DType, b: &str) -> String {
        let bt = self.vty(db);
        match bt {
            "bool" => format!("select(0u, 1u, {b})"),
            "u32" => format!("min({b}, 255u)"),
            "u64" => format!("u32(min({b}, 255lu))"),
            "i32" => format!("select(u32(min({b}, 255i)), 255u, {b} < 0i)"),
            "i64" => format!("select(u32(min({b}, 255li)), 255u, {b} < 0li)"),
            _ => "255u".into(),
        }
    }

    fn cast(&mut self, s: String, from: DType, to: DType) -> String {
        if from == to {
            return s;
        }
        let (ft, tt) = (self.vty(from), self.vty(to));
        if to == DType::Bool {
            return self.truthy(from, &s, false);
        }
        if from == DType::Bool {
            let (one, zero) = (self.lit(Scalar::one(to)), self.lit(Scalar::zero(to)));
            return format!("select({zero}, {one}, {s})");
        }
        let round = |em: &mut Em, v: String| -> String {
            match to {
                DType::Float16 => em.store_conv(DType::Float16, v),
                DType::BFloat16 => em.store_conv(DType::BFloat16, v),
                _ => v,
            }
        };
        if from.is_integer() && to.is_integer() {
            let v = match (ft, tt) {
                (a, b) if a == b => s,
                ("i32", "u32") | ("u32", "i32") | ("i64", "u64") | ("u64", "i64") => {
                    format!("bitcast<{tt}>({s})")
                }
                ("u32", "i64") => format!("bitcast<i64>(u64({s}))"),
                ("i32", "u64") => format!("bitcast<u64>(i64({s}))"),
                _ => format!("{tt}({s})"),
            };
            return self.wrap(to, v);
        }
        if from.is_integer() && to.is_float() {
            let v = format!("{tt}({s})");
            return round(self, v);
        }
        if from.is_float() && to.is_float() {
            let v = if ft == tt { s } else { format!("{tt}({s})") };
            return round(self, v);
        }
        // float -> integer: truncate toward zero, saturate (NaN -> 0), as `Scalar::cast`.
        let name = format!("cast_{ft}_{}", to.name());
        let h = self.helper(&name, || float_to_int(&name, ft, tt, to));
        format!("{h}({s})")
    }

    #[allow(clippy::too_many_arguments)]
    fn stmts(
        &mut self,
        body: &[Stmt],
        c: &Ctx,
        store: &dyn Fn(&mut Em, usize, DType, String) -> String,
        outputs: &[DType],
        ind: usize,
        out: &mut String,
    ) -> Result<()> {
        let pad = "  ".repeat(ind);
        for s in body {
            match s {
                Stmt::Let { var, value } | Stmt::Assign { var, value } => {
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let _ = writeln!(out, "{pad}{} = {v};", c.vars[*var]);
                }
                Stmt::StoreRaw { raw, index, value } => {
                    let ix = self.expr(index, c)?;
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let r = &c.raws[*raw];
                    let slot = format!("b{}[{} + u32({ix})]", r.binding, r.off);
                    if r.atomic && storage_bytes(value.ty) == Some(8) {
                        let h = self.pair_helpers(r.binding);
                        let _ = writeln!(
                            out,
                            "{pad}{h}_st({} + u32({ix}), bitcast<u64>({v}));",
                            r.off
                        );
                    } else if r.atomic {
                        let w = self.value_word(value.ty, v);
                        let _ = writeln!(out, "{pad}atomicStore(&{slot}, {w});");
                    } else {
                        let sv = self.store_conv(value.ty, v);
                        let _ = writeln!(out, "{pad}{slot} = {sv};");
                    }
                }
                Stmt::AtomicRaw {
                    raw,
                    op,
                    index,
                    value,
                } => {
                    let ix = self.expr(index, c)?;
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let r = &c.raws[*raw];
                    let h = self.atomic_helper(r.binding, value.ty, *op)?;
                    let _ = writeln!(out, "{pad}{h}({} + u32({ix}), {v});", r.off);
                }
                Stmt::Store { output, value } => {
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let line = store(self, *output, outputs[*output], v);
                    let _ = writeln!(out, "{pad}{line}");
                }
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let cs = self.expr(cond, c)?;
                    self.flush_pre(&pad, out);
                    let _ = writeln!(out, "{pad}if ({cs}) {{");
                    self.stmts(then_body, c, store, outputs, ind + 1, out)?;
                    if else_body.is_empty() {
                        let _ = writeln!(out, "{pad}}}");
                    } else {
                        let _ = writeln!(out, "{pad}}} else {{");
                        self.stmts(else_body, c, store, outputs, ind + 1, out)?;
                        let _ = writeln!(out, "{pad}}}");
                    }
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let st = self.expr(start, c)?;
                    let en = self.expr(end, c)?;
                    self.flush_pre(&pad, out);
                    let v = &c.vars[*var];
                    let one = self.ilit(DType::Int64, 1);
                    let _ = writeln!(
                        out,
                        "{pad}for ({v} = {st}; {v} < {en}; {v} = {v} + {one}) {{"
                    );
                    self.stmts(body, c, store, outputs, ind + 1, out)?;
                    let _ = writeln!(out, "{pad}}}");
                    self.guard_after(&format!("{v} < {en}"), &pad, out);
                }
            }
        }
        Ok(())
    }

    /// The statements restoring (from `sc`) and saving (to `sc`) the locals of a windowed
    /// launch; see [`LoopMode`].
    fn scratch_io(&self, locals: &[DType]) -> Result<(String, String)> {
        let (mut rs, mut sv) = (String::new(), String::new());
        let mut w = 0usize;
        for (j, &d) in locals.iter().enumerate() {
            let at = |w: usize| format!("sc[{w}u * total + gid]");
            let l = format!("l{j}");
            let t = self.vty(d);
            match t {
                "bool" => {
                    let _ = writeln!(rs, "      {l} = {} != 0u;", at(w));
                    let _ = writeln!(sv, "      {} = select(0u, 1u, {l});", at(w));
                }
                "u32" => {
                    let _ = writeln!(rs, "      {l} = {};", at(w));
                    let _ = writeln!(sv, "      {} = {l};", at(w));
                }
                "i32" | "f32" => {
                    let _ = writeln!(rs, "      {l} = bitcast<{t}>({});", at(w));
                    let _ = writeln!(sv, "      {} = bitcast<u32>({l});", at(w));
                }
                "i64" | "u64" | "f64" => {
                    if !self.opts.shader_int64 {
                        return Err(self.unsupported(
                            &self.kname,
                            d,
                            "a kernel split across dispatches (a loop past the driver's loop \
                             limit) with a 64-bit local needs SHADER_INT64",
                        ));
                    }
                    let q = if t == "u64" {
                        l.clone()
                    } else {
                        format!("bitcast<u64>({l})")
                    };
                    let r = format!("(u64({}) | (u64({}) << 32u))", at(w), at(w + 1));
                    let r = if t == "u64" {
                        r
                    } else {
                        format!("bitcast<{t}>({r})")
                    };
                    let _ = writeln!(rs, "      {l} = {r};");
                    let _ = writeln!(
                        sv,
                        "      {} = u32({q} & 0xfffffffflu);\n      {} = u32({q} >> 32u);",
                        at(w),
                        at(w + 1)
                    );
                    w += 1;
                }
                _ => return Err(self.unsupported(&self.kname, d, "not storable in a window")),
            }
            w += 1;
        }
        Ok((rs, sv))
    }

    /// The top-level statements of a windowed launch (see [`LoopMode`]); window words from
    /// meta word `wb`.
    fn stmts_windowed(
        &mut self,
        body: &[Stmt],
        c: &Ctx,
        store: &dyn Fn(&mut Em, usize, DType, String) -> String,
        outputs: &[DType],
        wb: usize,
        out: &mut String,
    ) -> Result<()> {
        let (lo, hi, itlo, ithi) = (word(wb), word(wb + 1), word(wb + 2), word(wb + 3));
        let pad = "      ";
        for (idx, s) in body.iter().enumerate() {
            let _ = writeln!(out, "    if ({idx}u >= {lo} && {idx}u <= {hi}) {{");
            match s {
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let st = self.expr(start, c)?;
                    let en = self.expr(end, c)?;
                    self.flush_pre(pad, out);
                    let v = &c.vars[*var];
                    let one = self.ilit(DType::Int64, 1);
                    let t = self.vty(DType::Int64);
                    let cond = format!(
                        "{v} < {en} && ({idx}u != {hi} || {ithi} == 0xffffffffu || {v} < {st} + {t}({ithi}))"
                    );
                    let _ = writeln!(
                        out,
                        "{pad}{v} = {st};\n{pad}if ({idx}u == {lo}) {{ {v} = {st} + {t}({itlo}); }}\n{pad}for (; {cond}; {v} = {v} + {one}) {{"
                    );
                    self.stmts(body, c, store, outputs, 4, out)?;
                    let _ = writeln!(out, "{pad}}}");
                    self.guard_after(&cond, pad, out);
                }
                _ => self.stmts(std::slice::from_ref(s), c, store, outputs, 3, out)?,
            }
            out.push_str("    }\n");
        }
        Ok(())
    }

    fn finish(&self, decls: &str, main: &str) -> String {
        let mut src = String::new();
        src.push_str(decls);
        for (_, h) in &self.helpers {
            src.push_str(h);
        }
        src.push_str(main);
        src
    }
}

const POW_F32: &str = "fn pow_f32(x: f32, y: f32) -> f32 {
  if (y == 0.0f || x == 1.0f) { return 1.0f; }
  if (x == -1.0f && abs(y) == bitcast<f32>(0x7f800000u)) { return 1.0f; }
  if (!(x == x) || !(y == y)) { return x + y; }
  if (y == 1.0f) { return x; }
  if (y == 2.0f) { return x * x; }
  let ax = abs(x);
  var r: f32;
  if (ax == 0.0f) {
    r = select(bitcast<f32>(0x7f800000u), 0.0f, y > 0.0f);
  } else if (y == 0.5f) {
    r = sqrt(ax);
  } else if (y == -1.0f) {
    r = 1.0f / ax;
  } else {
    r = pow(ax, y);
  }
  if ((bitcast<u32>(x) & 0x80000000u) != 0u) {
    let yint = floor(y) == y;
    if (!yint && ax != 0.0f) { return bitcast<f32>(0x7fc00000u); }
    if (yint && abs(y) < 16777216.0f && fract(y * 0.5f) != 0.0f) { r = -r; }
  }
  return r;
}
";

const ATAN2_F32: &str = "fn atan2_f32(y: f32, x: f32) -> f32 {
  if (!(x == x) || !(y == y)) { return x + y; }
  if (y == 0.0f && x == 0.0f) {
    var r = 0.0f;
    if ((bitcast<u32>(x) & 0x80000000u) != 0u) { r = 3.14159265358979f; }
    return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(y) & 0x80000000u));
  }
  return atan2(y, x);
}
";

/// A float -> integer conversion helper with `Scalar::cast` semantics.
fn float_to_int(name: &str, ft: &str, tt: &str, to: DType) -> String {
    let fl = |x: f64| -> String {
        if ft == "f64" {
            f64lit(x)
        } else {
            f32lit(x as f32)
        }
    };
    let zero = if tt.ends_with("64") {
        format!("0{}", if tt == "i64" { "li" } else { "lu" })
    } else if tt == "i32" {
        "0i".into()
    } else {
        "0u".into()
    };
    let body = match to {
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 if tt.starts_with('i') => {
            let bits = if tt == "i64" && to == DType::Int64 {
                64
            } else {
                to.bits().min(32) as i32
            };
            let lim = fl(2f64.powi(bits - 1));
            let nlim = fl(-(2f64.powi(bits - 1)));
            let (max, min) = if bits == 64 {
                (i64lit(i64::MAX), i64lit(i64::MIN))
            } else {
                let m = (1i64 << (bits - 1)) - 1;
                (i32lit(m), i32lit(-m - 1))
            };
            format!(
                "  if (!(x == x)) {{ return {zero}; }}\n  if (x >= {lim}) {{ return {max}; }}\n  if (x <= {nlim}) {{ return {min}; }}\n  return {tt}(x);\n"
            )
        }
        DType::UInt64 if tt == "u64" => {
            let lim = fl(2f64.powi(64));
            format!(
                "  if (!(x == x) || x <= {}) {{ return 0lu; }}\n  if (x >= {lim}) {{ return 18446744073709551615lu; }}\n  return u64(x);\n",
                fl(0.0)
            )
        }
        _ => {
            // `f as i64 as uN` (also narrow-mode Int64/UInt64 as 32-bit): saturate at the i64
            // range, then keep the low bits.
            let mask = match to {
                DType::UInt8 => "0xffu",
                DType::UInt16 => "0xffffu",
                _ => "0xffffffffu",
            };
            format!(
                "  if (!(x == x)) {{ return {zero}; }}
  let t = trunc(x);
  var m: u32;
  if (t >= {p63}) {{ m = {mask}; }}
  else if (t <= {n63}) {{ m = 0u; }}
  else if (abs(t) < {p31}) {{ m = bitcast<u32>(i32(t)) & {mask}; }}
  else {{
    let q = t - floor(t / {p32}) * {p32};
    m = u32(q) & {mask};
  }}
  return m;
",
                p63 = fl(2f64.powi(63)),
                n63 = fl(-(2f64.powi(63))),
                p32 = fl(2f64.powi(32)),
                p31 = fl(2f64.powi(31)),
            )
        }
    };
    format!("fn {name}(x: {ft}) -> {tt} {{\n{body}}}\n")
}

fn kernel_narrow(operands: &[DType], consts: &[Scalar], wide: bool) -> bool {
    if wide {
        return false;
    }
    if operands
        .iter()
        .any(|d| matches!(d, DType::Int64 | DType::UInt64))
    {
        return false;
    }
    consts.iter().all(|c| match c {
        Scalar::Int64(v) => i32::try_from(*v).is_ok(),
        Scalar::UInt64(v) => u32::try_from(*v).is_ok(),
        _ => true,
    })
}

fn consts_of(exprs: &[&Expr]) -> Vec<Scalar> {
    let mut out = vec![];
    for e in exprs {
        e.visit(&mut |n| {
            if let ExprKind::Const(v) = n.kind {
                out.push(v)
            }
        });
    }
    out
}

/// True when the kernel's index-like `Int64` values are emitted as 32-bit integers for this
/// spec (see the module docs); the backend checks `Int64` parameter values against it.
pub fn elementwise_narrow(k: &Kernel, wide_int64: bool) -> bool {
    let mut consts = vec![];
    Stmt::visit_all(&k.body, &mut |s| {
        for e in s.exprs() {
            consts.extend(consts_of(&[e]));
        }
    });
    let ops: Vec<DType> = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .chain(&k.raws)
        .copied()
        .collect();
    kernel_narrow(&ops, &consts, wide_int64)
}

/// True when a reduction's index-like `Int64` values are emitted as 32-bit integers.
pub fn reduce_narrow(k: &ReduceKernel, wide_int64: bool) -> bool {
    let mut ops = k.inputs.clone();
    ops.extend(&k.acc);
    ops.push(k.output);
    let parts: Vec<&Expr> = k.map.iter().chain(&k.combine).chain([&k.post]).collect();
    let consts = consts_of(&parts);
    let mut c = consts;
    c.extend(&k.identity);
    kernel_narrow(&ops, &c, wide_int64)
}

fn bindings_decl(em: &Em, plan: &BindingPlan, vec4: bool, atomic: &[bool]) -> String {
    let mut s = String::new();
    for (i, &(d, rw)) in plan.buffers.iter().enumerate() {
        let st = em.sty(d);
        let ty = if atomic.get(i).copied().unwrap_or(false) {
            format!("atomic<{}>", atomic_word(d))
        } else if vec4 {
            format!("vec4<{st}>")
        } else {
            st.to_string()
        };
        let acc = if rw { "read_write" } else { "read" };
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, {acc}> b{i}: array<{ty}>;",
            i + 1
        );
    }
    s
}

fn meta_decl(em: &Em, params: &[DType], n_words: usize) -> (String, MetaLayout) {
    let reprs: Vec<ParamRepr> = params.iter().map(|d| em.param_repr(*d)).collect();
    let layout = MetaLayout::new(&reprs, n_words);
    let mut s = String::new();
    s.push_str("struct Meta {\n");
    for (k, r) in reprs.iter().enumerate() {
        let t = match r {
            ParamRepr::U32 => "u32",
            ParamRepr::I32 => "i32",
            ParamRepr::F32 => "f32",
            ParamRepr::F64 => "f64",
            ParamRepr::I64 => "i64",
            ParamRepr::U64 => "u64",
        };
        let _ = writeln!(s, "  p{k}: {t},");
    }
    let _ = writeln!(s, "  w: array<vec4<u32>, {}>,", layout.n_words / 4);
    s.push_str("}\n@group(0) @binding(0) var<uniform> mt: Meta;\n");
    (s, layout)
}

const MAIN_SIG: &str = "@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
";

/// Number of meta words of an elementwise launch (see [`elementwise_words`]).
fn elementwise_n_words(k: &Kernel, spec: &ElementwiseSpec) -> usize {
    let nops = k.inputs.len() + k.outputs.len();
    let per = if spec.contiguous { 1 } else { spec.ndim + 1 };
    let shape = if spec.contiguous { 0 } else { spec.ndim };
    1 + shape + nops * per + k.raws.len()
}

/// Emits the WGSL compute shader of an elementwise launch.
///
/// # Errors
/// [`Error::DTypeNotSupported`] for a dtype or op the adapter cannot do (complex; float64
/// without `SHADER_F64`; 64-bit integer operands without `SHADER_INT64`; float64
/// transcendental functions), [`Error::InvalidArgument`] for an invalid kernel.
pub fn emit_elementwise(
    k: &Kernel,
    spec: &ElementwiseSpec,
    opts: &WgslOptions,
) -> Result<WgslShader> {
    emit_elementwise_with(k, spec, opts, LoopMode::default())
}

/// Emits an elementwise launch with a [`LoopMode`] (see the module docs, "Loop budgets").
///
/// # Errors
/// As [`emit_elementwise`]; a windowed `vec4` launch, or a windowed kernel with a 64-bit local on
/// an adapter without `SHADER_INT64`, is refused.
pub fn emit_elementwise_with(
    k: &Kernel,
    spec: &ElementwiseSpec,
    opts: &WgslOptions,
    mode: LoopMode,
) -> Result<WgslShader> {
    k.validate()?;
    let narrow = elementwise_narrow(k, spec.wide_int64);
    let mut em = Em::new(opts, narrow, &k.name);
    for d in k.dtypes() {
        em.check(d)?;
    }
    if spec.vec4 && !(spec.contiguous && vec4_eligible(k)) {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            "vec4 launch of a kernel that is not vec4-eligible or not contiguous",
        ));
    }
    if spec.vec4 && mode.window {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            "a windowed launch cannot be vec4",
        ));
    }
    let base_words = elementwise_n_words(k, spec);
    let n_words = base_words + mode.extra_words();
    let (meta, layout) = meta_decl(&em, &k.params, n_words);
    let wb = base_words; // first window word
    let guard_word = base_words + if mode.window { 6 } else { 0 };
    let extra_binding = spec.bindings.buffers.len() + 1;
    if mode.guard {
        em.guard = Some(format!("lg[0] = {};", word(guard_word)));
    }
    let nd = spec.ndim.max(1);
    let nin = k.inputs.len();
    let nops = nin + k.outputs.len();
    let mut decls = meta;
    // Raw operands written: their bindings must be read-write; a binding updated atomically is
    // declared `array<atomic<..>>` and must not also serve an elementwise operand.
    let mut atomic = vec![false; spec.bindings.buffers.len()];
    for (j, &b) in spec.bindings.raws.iter().enumerate() {
        if k.writes_raw(j) && !spec.bindings.buffers[b].1 {
            return Err(Error::invalid(
                format!("wgsl:{}", k.name),
                format!(
                    "raw operand {j} is written but its binding is read-only \
                     (BindingPlan::mark_raw_writes)"
                ),
            ));
        }
        if k.atomic_raw(j) {
            let d = k.raws[j];
            let mut bad: Option<AtomicOp> = None;
            Stmt::visit_all(&k.body, &mut |st| {
                if let Stmt::AtomicRaw { raw, op, .. } = st {
                    let pair_add =
                        matches!(d, DType::Int64 | DType::UInt64) && *op == AtomicOp::Add;
                    if *raw == j && storage_bytes(d) != Some(4) && !pair_add {
                        bad = Some(*op);
                    }
                }
            });
            if let Some(op) = bad {
                return Err(em.unsupported(
                    &k.name,
                    d,
                    &format!(
                        "atomic {op:?} of {d}: WGSL has only 32-bit atomics \
                         (atomic<i32>/atomic<u32>); only int64/uint64 Add is split into two \
                         32-bit atomic adds"
                    ),
                ));
            }
            atomic[b] = true;
        }
    }
    if spec
        .bindings
        .inputs
        .iter()
        .chain(&spec.bindings.outputs)
        .any(|b| atomic[*b])
    {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            "a raw operand updated atomically shares its buffer with an elementwise operand",
        ));
    }
    decls.push_str(&bindings_decl(&em, &spec.bindings, spec.vec4, &atomic));
    decls.push_str(&mode.bindings_decl(extra_binding));
    let params: Vec<String> = k
        .params
        .iter()
        .enumerate()
        .map(|(i, d)| em.param_expr(i, *d))
        .collect();
    let vars: Vec<String> = (0..k.locals.len()).map(|i| format!("l{i}")).collect();
    let raw_base = base_words - k.raws.len();
    let raws: Vec<RawCtx> = spec
        .bindings
        .raws
        .iter()
        .enumerate()
        .map(|(j, &b)| RawCtx {
            binding: b,
            off: word(raw_base + j),
            atomic: atomic[b],
        })
        .collect();
    let op_binding = |i: usize| -> usize {
        if i < nin {
            spec.bindings.inputs[i]
        } else {
            spec.bindings.outputs[i - nin]
        }
    };
    let locals_decl = |em: &Em| -> String {
        let mut s = String::new();
        for (i, d) in k.locals.iter().enumerate() {
            let _ = writeln!(s, "    var l{i}: {};", em.vty(*d));
        }
        s
    };
    let mut main = String::from(MAIN_SIG);
    main.push_str("  let gid = (wid.y * nwg.x + wid.x) * 256u + lid;\n");
    let _ = writeln!(main, "  let total = {};", word(0));
    if !spec.vec4 {
        if mode.window {
            let _ = writeln!(
                main,
                "  if (gid >= total) {{ return; }}\n  let i = gid + {};",
                word(wb + 5)
            );
        } else {
            main.push_str("  if (gid >= total) { return; }\n  let i = gid;\n");
        }
        if spec.contiguous {
            for o in 0..nops {
                let _ = writeln!(main, "  let a{o} = {} + i;", word(1 + o));
            }
        } else {
            main.push_str("  var rem = i;\n");
            for ax in (0..nd).rev() {
                if ax == 0 {
                    main.push_str("  let c0 = rem;\n");
                } else {
                    let sh = word(1 + ax);
                    let _ = writeln!(main, "  let c{ax} = rem % {sh};\n  rem = rem / {sh};");
                }
            }
            for o in 0..nops {
                let base = 1 + nd + o * (nd + 1);
                let mut e = format!("bitcast<i32>({})", word(base));
                for ax in 0..nd {
                    let _ = write!(e, " + i32(c{ax}) * {}", iword(base + 1 + ax));
                }
                let _ = writeln!(main, "  let a{o} = u32({e});");
            }
        }
        let inputs: Vec<String> = (0..nin)
            .map(|i| em.load_conv(k.inputs[i], format!("b{}[a{i}]", op_binding(i))))
            .collect();
        let ctx = Ctx {
            inputs,
            params: params.clone(),
            vars: vars.clone(),
            index: "i".into(),
            raws: raws.clone(),
        };
        main.push_str("  {\n");
        main.push_str(&locals_decl(&em));
        let store = |em: &mut Em, o: usize, d: DType, v: String| -> String {
            let sv = em.store_conv(d, v);
            format!("b{}[a{}] = {sv};", op_binding(nin + o), nin + o)
        };
        if mode.window {
            let (restore, save) = em.scratch_io(&k.locals)?;
            let _ = writeln!(
                main,
                "    if (({} & 1u) != 0u) {{\n{restore}    }}",
                word(wb + 4)
            );
            em.stmts_windowed(&k.body, &ctx, &store, &k.outputs, wb, &mut main)?;
            let _ = writeln!(
                main,
                "    if (({} & 2u) != 0u) {{\n{save}    }}",
                word(wb + 4)
            );
        } else {
            em.stmts(&k.body, &ctx, &store, &k.outputs, 2, &mut main)?;
        }
        main.push_str("  }\n}\n");
    } else {
        main.push_str(
            "  let n4 = total / 4u;\n  let rem4 = total % 4u;\n  if (gid > n4 || (gid == n4 && rem4 == 0u)) { return; }\n",
        );
        for o in 0..nops {
            let _ = writeln!(main, "  let a{o} = {} + gid;", word(1 + o));
        }
        for i in 0..nin {
            let _ = writeln!(main, "  let v{i} = b{}[a{i}];", op_binding(i));
        }
        for tail in [false, true] {
            if tail {
                main.push_str("  } else {\n");
                for o in 0..k.outputs.len() {
                    let _ = writeln!(
                        main,
                        "    var r{o} = b{}[a{}];",
                        op_binding(nin + o),
                        nin + o
                    );
                }
            } else {
                main.push_str("  if (gid < n4) {\n");
                for (o, d) in k.outputs.iter().enumerate() {
                    let _ = writeln!(main, "    var r{o}: vec4<{}>;", em.sty(*d));
                }
            }
            for lane in 0..4 {
                if tail {
                    let _ = writeln!(main, "    if ({lane}u < rem4) {{");
                } else {
                    main.push_str("    {\n");
                }
                let _ = writeln!(main, "    let i = gid * 4u + {lane}u;");
                let inputs: Vec<String> = (0..nin)
                    .map(|i| em.load_conv(k.inputs[i], format!("v{i}[{lane}]")))
                    .collect();
                let ctx = Ctx {
                    inputs,
                    params: params.clone(),
                    vars: vars.clone(),
                    index: "i".into(),
                    raws: raws.clone(),
                };
                main.push_str(&locals_decl(&em));
                let store = move |em: &mut Em, o: usize, d: DType, v: String| -> String {
                    let sv = em.store_conv(d, v);
                    format!("r{o}[{lane}] = {sv};")
                };
                em.stmts(&k.body, &ctx, &store, &k.outputs, 3, &mut main)?;
                main.push_str("    }\n");
            }
            for o in 0..k.outputs.len() {
                let _ = writeln!(main, "    b{}[a{}] = r{o};", op_binding(nin + o), nin + o);
            }
        }
        main.push_str("  }\n}\n");
    }
    Ok(WgslShader {
        source: em.finish(&decls, &main),
        meta: layout,
    })
}

/// The meta words of an elementwise launch: total, then (strided) the shape, then per operand
/// (inputs, then outputs) its offset and (strided) strides, then the raw operands' offsets.
/// For a `vec4` launch offsets are in units of four elements.
pub fn elementwise_words(
    spec: &ElementwiseSpec,
    shape: &[usize],
    operands: &[&Layout],
    raw_offsets: &[usize],
) -> Vec<u32> {
    let total: usize = shape.iter().product();
    let mut w = vec![total as u32];
    let nd = spec.ndim.max(1);
    if spec.contiguous {
        for l in operands {
            let off = if spec.vec4 { l.offset / 4 } else { l.offset };
            w.push(off as u32);
        }
    } else {
        let mut sh = shape.to_vec();
        while sh.len() < nd {
            sh.insert(0, 1);
        }
        w.extend(sh.iter().map(|&x| x as u32));
        for l in operands {
            w.push(l.offset as u32);
            let mut st = l.strides.clone();
            while st.len() < nd {
                st.insert(0, 0);
            }
            w.extend(st.iter().map(|&x| x as i32 as u32));
        }
    }
    w.extend(raw_offsets.iter().map(|&x| x as u32));
    w
}

/// The reduction's combine as a WGSL function `combine(a, b)`.
fn emit_combine(em: &mut Em, k: &ReduceKernel, params: &[String]) -> Result<String> {
    let ctx = Ctx {
        inputs: vec![],
        params: params.to_vec(),
        vars: vec!["a".into(), "b".into()],
        index: "0u".into(),
        raws: vec![],
    };
    let body = em.expr(&k.combine[0], &ctx)?;
    let mut lets = String::new();
    em.flush_pre("  ", &mut lets);
    let t = em.vty(k.acc[0]);
    Ok(format!(
        "fn combine(a: {t}, b: {t}) -> {t} {{\n{lets}  return {body};\n}}\n"
    ))
}

/// Number of meta words of a reduction launch.
fn reduce_n_words(k: &ReduceKernel, spec: &ReduceSpec) -> usize {
    let (o, r) = (spec.out_ndim, spec.red_ndim);
    4 + o + r + k.inputs.len() * (1 + o + r) + (1 + o)
}

/// Emits the WGSL compute shader of a reduction launch (see [`ReduceSpec`]).
///
/// # Errors
/// As [`emit_elementwise`].
pub fn emit_reduction(
    k: &ReduceKernel,
    spec: &ReduceSpec,
    opts: &WgslOptions,
) -> Result<WgslShader> {
    emit_reduction_with(k, spec, opts, LoopMode::default())
}

/// Emits a reduction launch with a [`LoopMode`] (only `guard` applies to reductions).
///
/// # Errors
/// As [`emit_reduction`].
pub fn emit_reduction_with(
    k: &ReduceKernel,
    spec: &ReduceSpec,
    opts: &WgslOptions,
    mode: LoopMode,
) -> Result<WgslShader> {
    let mode = LoopMode {
        window: false,
        ..mode
    };
    let narrow = reduce_narrow(k, spec.wide_int64);
    let mut em = Em::new(opts, narrow, &k.name);
    for d in k.dtypes() {
        em.check(d)?;
    }
    k.validate()?;
    if k.is_tuple() {
        return Err(k.tuple_unsupported("wgpu"));
    }
    let (o_nd, r_nd) = (spec.out_ndim, spec.red_ndim);
    let n_words = reduce_n_words(k, spec);
    let (meta, layout) = meta_decl(&em, &k.params, n_words + mode.extra_words());
    if mode.guard {
        em.guard = Some(format!("lg[0] = {};", word(n_words)));
    }
    let mut decls = meta;
    decls.push_str(&bindings_decl(&em, &spec.bindings, false, &[]));
    decls.push_str(&mode.bindings_decl(spec.bindings.buffers.len() + 1));
    let params: Vec<String> = k
        .params
        .iter()
        .enumerate()
        .map(|(i, d)| em.param_expr(i, *d))
        .collect();
    let combine = emit_combine(&mut em, k, &params)?;
    let acc_t = em.vty(k.acc[0]);
    let group = spec.mode == ReduceMode::GroupPerOutput;
    if group {
        let _ = writeln!(decls, "var<workgroup> sh: array<{acc_t}, 256>;");
    }
    let nin = k.inputs.len();
    // word positions
    let w_oshape = 4;
    let w_rshape = 4 + o_nd;
    let w_in = |i: usize| 4 + o_nd + r_nd + i * (1 + o_nd + r_nd);
    let w_out = 4 + o_nd + r_nd + nin * (1 + o_nd + r_nd);
    let mut m = String::from(MAIN_SIG);
    let _ = writeln!(
        m,
        "  let n_out = {};\n  let n_red = {};\n  let chunks = {};\n  let clen = {};",
        word(0),
        word(1),
        word(2),
        word(3)
    );
    if group {
        m.push_str("  let t = wid.y * nwg.x + wid.x;\n");
    } else {
        m.push_str("  let t = (wid.y * nwg.x + wid.x) * 256u + lid;\n");
    }
    m.push_str(
        "  if (t >= n_out * chunks) { return; }\n  let o = t % n_out;\n  let ch = t / n_out;\n",
    );
    m.push_str("  var orem = o;\n");
    for ax in (0..o_nd).rev() {
        if ax == 0 {
            m.push_str("  let co0 = orem;\n");
        } else {
            let sh = word(w_oshape + ax);
            let _ = writeln!(m, "  let co{ax} = orem % {sh};\n  orem = orem / {sh};");
        }
    }
    for i in 0..nin {
        let base = w_in(i);
        let mut e = format!("bitcast<i32>({})", word(base));
        for ax in 0..o_nd {
            let _ = write!(e, " + i32(co{ax}) * {}", iword(base + 1 + ax));
        }
        let _ = writeln!(m, "  let base{i} = {e};");
    }
    let ident = em.lit(k.identity[0]);
    let _ = writeln!(m, "  var acc: {acc_t} = {ident};");
    m.push_str("  let r0 = ch * clen;\n  let r1 = min(r0 + clen, n_red);\n");
    if group {
        m.push_str("  var r = r0 + lid;\n  for (; r < r1; r = r + 256u) {\n");
    } else {
        m.push_str("  var r = r0;\n  for (; r < r1; r = r + 1u) {\n");
    }
    if r_nd >= 2 {
        m.push_str("    var rrem = r;\n");
        for ax in (0..r_nd).rev() {
            if ax == 0 {
                m.push_str("    let cr0 = rrem;\n");
            } else {
                let sh = word(w_rshape + ax);
                let _ = writeln!(m, "    let cr{ax} = rrem % {sh};\n    rrem = rrem / {sh};");
            }
        }
    }
    for i in 0..nin {
        let base = w_in(i);
        let mut e = format!("base{i}");
        if r_nd == 1 {
            let _ = write!(e, " + i32(r) * {}", iword(base + 1 + o_nd));
        } else {
            for ax in 0..r_nd {
                let _ = write!(e, " + i32(cr{ax}) * {}", iword(base + 1 + o_nd + ax));
            }
        }
        let _ = writeln!(m, "    let a{i} = u32({e});");
    }
    let inputs: Vec<String> = (0..nin)
        .map(|i| em.load_conv(k.inputs[i], format!("b{}[a{i}]", spec.bindings.inputs[i])))
        .collect();
    let ctx = Ctx {
        inputs,
        params: params.clone(),
        vars: vec![],
        index: "(o * n_red + r)".into(),
        raws: vec![],
    };
    let mv = em.expr(&k.map[0], &ctx)?;
    em.flush_pre("    ", &mut m);
    let _ = writeln!(m, "    acc = combine(acc, {mv});\n  }}");
    em.guard_after("r < r1", "  ", &mut m);
    if group {
        m.push_str(
            "  sh[lid] = acc;\n  workgroupBarrier();\n  var s = 128u;\n  for (; s > 0u; s = s >> 1u) {\n    if (lid < s) { sh[lid] = combine(sh[lid], sh[lid + s]); }\n    workgroupBarrier();\n  }\n",
        );
        em.guard_after("s > 0u", "  ", &mut m);
        m.push_str("  if (lid != 0u) { return; }\n  acc = sh[0];\n");
    }
    let ob = spec.bindings.outputs[0];
    if spec.partial {
        let sv = em.store_conv(k.acc[0], "acc".into());
        let _ = writeln!(m, "  b{ob}[t] = {sv};");
    } else {
        let mut e = format!("bitcast<i32>({})", word(w_out));
        for ax in 0..o_nd {
            let _ = write!(e, " + i32(co{ax}) * {}", iword(w_out + 1 + ax));
        }
        let pctx = Ctx {
            inputs: vec![],
            params: params.clone(),
            vars: vec!["acc".into()],
            index: "o".into(),
            raws: vec![],
        };
        let pv = em.expr(&k.post, &pctx)?;
        em.flush_pre("  ", &mut m);
        let sv = em.store_conv(k.output, pv);
        let _ = writeln!(m, "  b{ob}[u32({e})] = {sv};");
    }
    m.push_str("}\n");
    let mut all = combine;
    all.push_str(&m);
    Ok(WgslShader {
        source: em.finish(&decls, &all),
        meta: layout,
    })
}

/// The meta words of a reduction launch: `n_out, n_red, chunks, chunk_len`, the out shape, the
/// reduce shape, per input its offset and strides (out axes then reduce axes), then the output's
/// offset and strides (ignored for a partial launch).
#[allow(clippy::too_many_arguments)]
pub fn reduction_words(
    out_shape: &[usize],
    reduce_shape: &[usize],
    chunks: usize,
    chunk_len: usize,
    inputs: &[&Layout],
    output: Option<&Layout>,
) -> Vec<u32> {
    let n_out: usize = out_shape.iter().product();
    let n_red: usize = reduce_shape.iter().product();
    let mut w = vec![n_out as u32, n_red as u32, chunks as u32, chunk_len as u32];
    w.extend(out_shape.iter().map(|&x| x as u32));
    w.extend(reduce_shape.iter().map(|&x| x as u32));
    for l in inputs {
        w.push(l.offset as u32);
        w.extend(l.strides.iter().map(|&x| x as i32 as u32));
    }
    match output {
        Some(l) => {
            w.push(l.offset as u32);
            w.extend(l.strides.iter().map(|&x| x as i32 as u32));
        }
        None => w.extend(std::iter::repeat_n(0, 1 + out_shape.len())),
    }
    w
}

pub mod loops;

#[cfg(test)]
pub(crate) mod tests;

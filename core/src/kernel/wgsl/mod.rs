//! The IR -> WGSL emitter (a pure function; used by the wgpu backend, unit-tested with naga).
//!
//! # Storage representation on wgpu
//!
//! | dtype | storage | value type in WGSL |
//! | --- | --- | --- |
//! | bool | 1 byte (0 or 1), packed in `u32` words | `bool` (byte != 0) |
//! | int8, uint8 | 1 byte, packed in `u32` words | `i32` / `u32` (wrapped to the type after every op) |
//! | int16, uint16 | 2 bytes, packed in `u32` words | `i32` / `u32` (wrapped) |
//! | int32, uint32 | `i32` / `u32` | same |
//! | int64 / uint64 | `i64` / `u64` (needs `SHADER_INT64`) | same |
//! | float16, bfloat16 | 2 bytes (their bit patterns), packed in `u32` words | `f32`, rounded on every cast and store |
//! | float32 | `f32` | `f32` |
//! | float64 | `f64` (needs `SHADER_F64`) | `f64` |
//! | complex64 | `vec2<f32>` (re, im) | `vec2<f32>` |
//! | complex128 | `vec2<f64>` (needs `SHADER_F64`) | `vec2<f64>` |
//!
//! # Packed small types
//! bool, int8, uint8 (4 per word) and int16, uint16, float16, bfloat16 (2 per word) are
//! NumPy's bytes in little-endian `u32` words ([`storage_bytes`], [`packed_bits`]): element address `a` (in
//! elements, view offsets included, so any offset and stride works) is bits `(a & 3) * 8 ..`
//! of word `a >> 2` (16-bit: `(a & 1) * 16 ..` of word `a >> 1`). A load is a helper
//! `ld_b{k}(a)`: `extractBits` of the word, on `i32` for the signed types (so it
//! sign-extends), `!= 0` for bool; float16 bits become a float32 by bit arithmetic (`f16_f32`),
//! bfloat16 bits are the top half of a float32. Stores round float16/bfloat16 as before and
//! take the bits back (`f32_f16`; WGSL's `pack2x16float`/`unpack2x16float` leave infinities
//! open, so they are not used). WGSL has no byte stores, so writes must never race with
//! neighbouring invocations writing other bytes of the same word:
//! - *Owned words* (the fast path, [`packed_lead`]): an elementwise launch (not windowed)
//!   whose first packed output (the *lead*) is C-contiguous over the iteration shape runs one
//!   invocation per word of the lead (a strided launch whose inputs are views learns it from
//!   a flag word, [`packed_flag_word`], and then reads and writes the word with
//!   `atomicLoad`/`atomicStore` since its binding is declared atomic for the other case): invocation `g` owns word `offset / per + g` and computes the
//!   elements of the launch that word holds (`g * per - offset % per ..`, `per` = 4 or 2),
//!   inserting each into the word read at the start (so the bytes of elements outside the
//!   launch, before a view's first or after its last element, are kept), and writes the word
//!   once. No two invocations share a word (in a contiguous launch the binding stays a plain
//!   `array<u32>`).
//!   Allocations are padded to whole words, so the last word always exists.
//! - *Atomic* (everything else: strided or windowed elementwise outputs, further packed
//!   outputs of a launch, reduction outputs and partials, written raw operands): the binding
//!   is `array<atomic<u32>>` and a store `st_b{k}(a, v)` is `atomicAnd(word, ~mask)` then
//!   `atomicOr(word, v << shift)`: each lane only touches its own element's bits, so the
//!   order of neighbours' updates does not matter. Every access to such a binding (loads of an
//!   input sharing the buffer included) is atomic. `AtomicRaw` updates of packed elements
//!   (`add.at`, `maximum.at`, scatter) are compare-and-swap loops on the word that change only
//!   the element's bits (bool `or`/`and` are one `atomicOr`/`atomicAnd`).
//!
//! `Int64`/`UInt64` *expressions* of a kernel whose operands (inputs, outputs, raws) are not
//! 64-bit integers are index arithmetic (`Index`, loop variables, `Load` indices): they are
//! emitted as 32-bit (`i32`/`u32`) unless [`ElementwiseSpec::wide_int64`] is set (the backend sets
//! it when an `Int64` parameter does not fit in 32 bits) or a constant does not fit. This is both
//! faster (64-bit division is emulated on GPUs) and works on adapters without `SHADER_INT64`.
//!
//! Float64 transcendental functions (`exp`, `log`, `sin`, `cos`, `tan`, `tanh`, `pow`, `atan2`)
//! are never emitted as WGSL builtins: Vulkan's GLSL.std.450 defines them for 16/32-bit floats
//! only and drivers return garbage for f64. They are software (`real_lib64.rs`: fdlibm's
//! algorithms on `u64` bits, so they need `SHADER_INT64` too; refused with `DTypeNotSupported`
//! without it), as are the complex128 functions built on them. Float32 `exp`, `log`, `sin`,
//! `cos`, `tan` and `atan2` are software too (`real_lib.rs`): llvmpipe's builtins were tens of
//! ulps off.
//!
//! # Scatter (raw operands written)
//! A raw operand the kernel writes ([`Kernel::writes_raw`]) must have a read-write binding
//! ([`BindingPlan::mark_raw_writes`]). A binding updated by `AtomicRaw` is declared
//! `array<atomic<i32>>` (int32) or `array<atomic<u32>>` (everything else: packed words, floats
//! as bit patterns; int64/uint64 as pairs of words, low word first), and every access to it,
//! loads and plain stores included, is atomic; it must not also serve an elementwise operand.
//! Native `atomicAdd/Max/Min/Or/And` where the word type allows; packed 8/16-bit updates (see
//! "Packed small types") and every float op run a compare-and-swap loop on the bit pattern.
//! int64/uint64/float64 use `atomic<i64>`/`atomic<u64>` words with
//! [`WgslOptions::int64_atomics`]; without it, pairs of u32 words: int64/uint64 `Add` is two
//! 32-bit atomic adds with the low word's carry, the other 64-bit updates take a spin lock in
//! a lock buffer bound after the plan's buffers ([`atomic_lock`]; the design and its limits
//! are in `atomic.rs`). Complex atomics are refused with `DTypeNotSupported`.
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
//!
//! # Files
//! This module holds the options, binding plans, launch specialisations and the meta layout;
//! `emitter.rs` the emitter's state (`WgslEmitter`: value types, literals, conversions),
//! `expr.rs`, `binary.rs`, `cast.rs` and `stmt.rs` the body, `atomic.rs` atomic updates,
//! `interface.rs` the index width and binding/meta declarations, `elementwise.rs` and
//! `reduce.rs` the two launch kinds (`tiled.rs`: elementwise launches staged through
//! workgroup-memory tiles, for transposes), [`loops`] the loop budgets of llvmpipe; `complex.rs` the
//! complex operators and casts over the WGSL helper libraries `complex_lib.rs` (NumPy's complex
//! loops, C99 Annex G functions) and `real_lib.rs` (software float32 `exp log sin cos tan atan2`,
//! an fma that is one rounding, guards against llvmpipe's fast-math folds), each helper
//! emitted only when a kernel uses it.
//!
//! # Complex
//! complex64/complex128 are `vec2<f32>`/`vec2<f64>` (re, im), NumPy's bytes. Every complex op
//! of the IR is emitted with the C++ prelude's algorithms (see `complex_lib.rs`); complex128
//! functions use the software float64 library (`real_lib64.rs`). [`complex_helpers`] hands the
//! library to hand-written shaders (the backend's scan and sort).
//!
//! # llvmpipe's fast math
//! Mesa's llvmpipe compiles shaders as if no NaNs, infinities or signed zeros existed and
//! reassociates: it folds `y - y` to 0, `x * 0` to +0, `0 - x` to `-x` next to a literal zero,
//! `(1 + x) - 1` to `x`, and splits `fma` into a multiply and an add. The emitter spells those
//! out: NaN tests and signs from the bits, `x * ±0` from the sign bits, nonzero constants of
//! sums and the +0 parts of complex literals and casts hidden behind a runtime zero (the sign
//! bit of meta word 0, below 2^31), fma through float64 (float32) or Dekker's product (float64).
//!
//! # NVIDIA's contraction and reassociation
//! NVIDIA's Vulkan driver fuses a product and a following sum into an fma (naga emits no
//! `NoContraction`) and reassociates chains of float sums (`(1 + x) - 1` to `x`): every float
//! product, sum and difference of an IR expression XORs the same runtime zero into its bits, so
//! each stays IEEE's rounded operation (float64 only with SHADER_INT64). The helper libraries
//! guard their own error terms by hand (`r_pq`); not every product there is covered.

use crate::dtype::DType;
use crate::kernel::ir::{Kernel, Stmt};
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
    /// `SHADER_INT64_ATOMIC_ALL_OPS` is enabled on the device: int64/uint64/float64 atomic
    /// updates are 64-bit atomics (without it, pairs of 32-bit words: see "Scatter").
    pub int64_atomics: bool,
    /// The adapter's `fma` builtin is one rounding (hardware GPUs). Software rasterizers
    /// (llvmpipe, lavapipe, SwiftShader) lower it to a multiply and an add; there float64
    /// `r_fma` is Dekker's exact product instead (see `real_lib::bit_helper`).
    pub fused_fma: bool,
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
    /// Write the raw accumulators (no `post`) to contiguous partial buffers (one per
    /// accumulator, of its dtype) at index `chunk * n_out + out`, instead of the output.
    pub partial: bool,
    /// See [`ElementwiseSpec::wide_int64`].
    pub wide_int64: bool,
    /// `vec4` loads of the inputs ([`GroupPerOutput`](ReduceMode::GroupPerOutput) only): every
    /// input is 32-bit, one reduced axis of unit stride, every output's first element at a
    /// multiple of 4, chunks of a multiple of 4 elements, and the map does not read `Index`
    /// ([`reduce_vec4_eligible`] checks the kernel; the backend the layouts).
    pub vec4: bool,
    /// The workgroup's partial accumulators are combined by subgroup shuffles
    /// ([`GroupPerOutput`](ReduceMode::GroupPerOutput) only; the adapter's
    /// `Features::SUBGROUP`; [`reduce_subgroup_eligible`]), then one per subgroup.
    pub subgroup: bool,
    /// Buffer bindings (`outputs`: the output, or one partial buffer per accumulator).
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
    /// `vec2<f32>` (complex64: re, im)
    C64,
    /// `vec2<f64>` (complex128: re, im)
    C128,
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
                ParamRepr::F64 | ParamRepr::I64 | ParamRepr::U64 | ParamRepr::C64 => 8,
                ParamRepr::C128 => 16,
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
            let b: Vec<u8> = match repr {
                ParamRepr::U32 => (p.to_i128() as u32).to_le_bytes().to_vec(),
                ParamRepr::I32 => (p.to_i128() as i32).to_le_bytes().to_vec(),
                ParamRepr::F32 => (p.to_f64() as f32).to_le_bytes().to_vec(),
                ParamRepr::F64 => p.to_f64().to_le_bytes().to_vec(),
                ParamRepr::I64 => (p.to_i128() as i64).to_le_bytes().to_vec(),
                ParamRepr::U64 => (p.to_i128() as u64).to_le_bytes().to_vec(),
                ParamRepr::C64 => {
                    let c = p.to_c128();
                    [(c.re as f32).to_le_bytes(), (c.im as f32).to_le_bytes()].concat()
                }
                ParamRepr::C128 => {
                    let c = p.to_c128();
                    [c.re.to_le_bytes(), c.im.to_le_bytes()].concat()
                }
            };
            out[off..off + b.len()].copy_from_slice(&b);
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
            DType::Int64 | DType::UInt64 | DType::Float64 | DType::Complex64 => 2,
            DType::Complex128 => 4,
            _ => 1,
        })
        .sum()
}

/// The largest body (IR nodes, each bound value counted once) that [`vec4_eligible`] accepts.
/// Four copies of a long body cost the shader compiler much more than four times one (llvmpipe,
/// a cold cache: a contiguous float32 `gamma`, 920 nodes, took 6.2 s to compile as `vec4` and
/// 0.3 s as one element per invocation; `beta`, then 5300 nodes, 85 to 170 s as `vec4` against
/// 3.5 s for its float64 form), and gain nothing where arithmetic, not memory traffic, bounds
/// the kernel, as it does long before this size.
pub const VEC4_MAX_NODES: usize = 512;

/// True when an elementwise kernel can run four elements per invocation: every operand has a
/// 32-bit storage word, there are no raw operands, every output is stored exactly once,
/// unconditionally, at top level, and the body has at most [`VEC4_MAX_NODES`] IR nodes.
pub fn vec4_eligible(k: &Kernel) -> bool {
    if !k.raws.is_empty() {
        return false;
    }
    let mut nodes = 0usize;
    Stmt::visit_all(&k.body, &mut |s| {
        for e in s.exprs() {
            e.visit(&mut |_| nodes += 1);
        }
    });
    if nodes > VEC4_MAX_NODES {
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

/// Bytes per element of `dtype` in wgpu storage: NumPy's itemsize for every dtype but
/// float16/bfloat16 (held as float32 words, 4). bool, int8 and uint8 take 1 byte and
/// int16/uint16 2, packed in `u32` words (see "Packed small types" in the module docs).
pub fn storage_bytes(dtype: DType) -> Option<usize> {
    match dtype {
        DType::Complex128 => Some(16),
        DType::Int64 | DType::UInt64 | DType::Float64 | DType::Complex64 => Some(8),
        DType::Bool | DType::Int8 | DType::UInt8 => Some(1),
        DType::Int16 | DType::UInt16 | DType::Float16 | DType::BFloat16 => Some(2),
        _ => Some(4),
    }
}

/// Bits of a packed element (bool, int8, uint8: 8; int16, uint16: 16), `None` for dtypes held
/// in whole words.
pub fn packed_bits(dtype: DType) -> Option<u32> {
    match dtype {
        DType::Bool | DType::Int8 | DType::UInt8 => Some(8),
        DType::Int16 | DType::UInt16 | DType::Float16 | DType::BFloat16 => Some(16),
        _ => None,
    }
}

/// The WGSL function `round_f16(x: f32) -> f32` (float16) or `round_bf16` (bfloat16) that
/// rounds a float32 to the nearest value of the type, ties to even, as every store of those
/// dtypes does (they are held as float32 words); `None` for other dtypes.
pub fn round_helper(dtype: DType) -> Option<(&'static str, &'static str)> {
    match dtype {
        DType::Float16 => Some(("round_f16", emitter::ROUND_F16)),
        DType::BFloat16 => Some(("round_bf16", emitter::ROUND_BF16)),
        _ => None,
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
        DType::Complex128 if !shader_f64 => {
            Some("complex128 on a wgpu adapter without SHADER_F64".into())
        }
        _ => None,
    }
}

mod atomic;
mod binary;
mod cast;
mod complex;
mod complex_lib;
mod elementwise;
mod emitter;
mod expr;
mod interface;
mod real_lib;
mod real_lib64;
mod reduce;
mod stmt;
mod tiled;

pub use atomic::{atomic_lock, lock_binding, ATOMIC_LOCK_WORDS};
pub use complex::complex_helpers;
pub use elementwise::{
    elementwise_words, emit_elementwise, emit_elementwise_sized, emit_elementwise_with,
    packed_flag_word, packed_lead,
};
pub use interface::{elementwise_narrow, reduce_narrow};
pub use reduce::{
    emit_reduction, emit_reduction_with, reduce_subgroup_eligible, reduce_vec4_eligible,
    reduction_words,
};
pub use tiled::{emit_tiled, tiled_bytes, tiled_eligible, tiled_words, TiledSpec};

pub mod loops;

#[cfg(test)]
pub(crate) mod tests;

//! Atomic updates of raw operands (`AtomicRaw`): atomic words, 64-bit words or pairs of 32-bit
//! words, native atomics, compare-and-swap loops and the lock of the 32-bit-pair path.
//!
//! # 64-bit dtypes (int64, uint64, float64)
//! With [`WgslOptions::int64_atomics`](super::WgslOptions::int64_atomics) (the adapter's
//! `SHADER_INT64_ATOMIC_ALL_OPS`) the binding is `array<atomic<i64>>` (int64) or
//! `array<atomic<u64>>`: native `atomicAdd/Max/Min` for the integers, a compare-and-swap loop on
//! the bit pattern for float64, as for 32-bit floats. Every update is one atomic on one 64-bit
//! word, so it is exact under any contention.
//!
//! Without it the binding is `array<atomic<u32>>`, element `i` in words `2i` (low) and `2i + 1`
//! (high). A 64-bit compare-and-swap cannot be built from independent 32-bit ones, so:
//! - int64/uint64 `Add` is lock-free: `atomicAdd` of the low word, the carry read from the old
//!   low word, `atomicAdd` of the high word plus the carry. Two's complement addition is
//!   word-wise with carry, so the final pair is the exact wrapped sum in any order.
//! - everything else (float64 `Add/Max/Min`, int64/uint64 `Max/Min`) takes a spin lock: the
//!   lock buffer [`ATOMIC_LOCK_WORDS`] words (binding [`lock_binding`], zero between launches),
//!   word `i % ATOMIC_LOCK_WORDS` for element `i`. Each invocation loops
//!   `if (try_lock) { read pair; write op(pair, v); unlock; done = true; } if (done) { break; }`:
//!   the holder finishes and releases in the pass it took the lock, so lanes of one subgroup
//!   spinning on the same lock never wait on a lane that cannot run (the pattern that avoids the
//!   SIMT deadlock of `while (!try_lock) {}; ...; unlock`). The pair itself is read and written
//!   with 32-bit atomics. WGSL atomics are relaxed (naga emits device scope, no ordering
//!   semantics), so the lock relies on the device performing one invocation's atomics on one
//!   buffer in program order, which the Vulkan drivers seen here do; adapters with 64-bit
//!   atomics (llvmpipe, NVIDIA, AMD, Intel Vulkan drivers) never take this path.

use super::emitter::WgslEmitter;
use super::{packed_bits, storage_bytes};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::{AtomicOp, Kernel, Stmt};

/// Words of the lock buffer of the 32-bit-pair atomics (see the module docs).
pub const ATOMIC_LOCK_WORDS: u32 = 4096;

/// A dtype whose atomic updates go through 64-bit words or pairs of 32-bit words.
pub(super) fn wide_atomic(d: DType) -> bool {
    matches!(d, DType::Int64 | DType::UInt64 | DType::Float64)
}

/// Why the emitter cannot update dtype `d` atomically, if it cannot (complex elements).
pub(super) fn atomic_refusal(d: DType, op: AtomicOp) -> Option<String> {
    (storage_bytes(d).is_some_and(|b| b > 4) && !wide_atomic(d)).then(|| {
        format!(
            "atomic {op:?} of {d}: atomic updates of complex elements are not implemented \
             (WGSL atomics are 32- and 64-bit integer words)"
        )
    })
}

/// True when kernel `k` updates a raw operand through the lock buffer (64-bit updates other
/// than integer adds, on an adapter without 64-bit atomics: `int64_atomics` false); the launch
/// then binds the lock buffer
/// ([`ATOMIC_LOCK_WORDS`] `u32` words, zero-initialised, left zero by every launch) at the
/// binding after the plan's buffers, before the [`LoopMode`](super::LoopMode) buffers.
pub fn atomic_lock(k: &Kernel, int64_atomics: bool) -> bool {
    if int64_atomics {
        return false;
    }
    let mut l = false;
    Stmt::visit_all(&k.body, &mut |s| {
        if let Stmt::AtomicRaw { raw, op, .. } = s {
            let d = k.raws[*raw];
            l |= locked(d, *op);
        }
    });
    l
}

/// The pair path's updates that take the lock.
fn locked(d: DType, op: AtomicOp) -> bool {
    wide_atomic(d) && !(d.is_integer() && op == AtomicOp::Add)
}

/// Binding number of the lock buffer of a launch with `n_buffers` plan buffers.
pub fn lock_binding(n_buffers: usize) -> usize {
    n_buffers + 1
}

/// The WGSL atomic word of dtype `d` (`int64_atomics`: the adapter has 64-bit atomics).
pub(super) fn atomic_word(d: DType, int64_atomics: bool) -> &'static str {
    match d {
        DType::Int64 if int64_atomics => "i64",
        DType::UInt64 | DType::Float64 if int64_atomics => "u64",
        // Without 64-bit atomics: pairs of u32 words (low word first), see the module docs.
        // Packed 8/16-bit elements share `u32` words (see `packed_atomic_helper`).
        DType::Int32 => "i32",
        _ => "u32",
    }
}

impl WgslEmitter {
    /// A 64-bit dtype held as two atomic u32 words (no 64-bit atomics on the adapter).
    pub(super) fn pair_atomic(&self, d: DType) -> bool {
        wide_atomic(d) && !self.opts.int64_atomics
    }

    /// Value of dtype `d` from its atomic word `w` (see [`atomic_word`]).
    pub(super) fn word_value(&self, d: DType, w: String) -> String {
        match d {
            DType::Bool => format!("({w} != 0u)"),
            DType::Float16 | DType::BFloat16 | DType::Float32 => format!("bitcast<f32>({w})"),
            DType::Float64 => format!("bitcast<f64>({w})"),
            _ => w,
        }
    }

    /// Value of 64-bit dtype `d` from its bits `u` (a `u64`).
    pub(super) fn bits_value(&self, d: DType, u: String) -> String {
        match d {
            DType::Int64 => format!("bitcast<i64>({u})"),
            DType::Float64 => format!("bitcast<f64>({u})"),
            _ => u,
        }
    }

    /// The atomic word of a value of dtype `d` (rounded as a store rounds it).
    pub(super) fn value_word(&mut self, d: DType, v: String) -> String {
        let sv = self.store_conv(d, v);
        match d {
            DType::Float16 | DType::BFloat16 | DType::Float32 => format!("bitcast<u32>({sv})"),
            DType::Float64 => format!("bitcast<u64>({sv})"),
            _ => sv,
        }
    }

    /// Load/store helpers `b{binding}_pair_ld(i) -> u64` / `_st(i, u64)` of a 64-bit raw
    /// operand held as pairs of atomic u32 words (low word first); returns the prefix.
    pub(super) fn pair_helpers(&mut self, binding: usize) -> String {
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

    /// The helper `fn NAME(i: u32, v: T)` doing `b{binding}[i] = op(b{binding}[i], v)`
    /// atomically: a native atomic where one fits, else a compare-and-swap loop, or for 64-bit
    /// dtypes without 64-bit atomics the carry add or the lock (see the module docs).
    pub(super) fn atomic_helper(
        &mut self,
        binding: usize,
        d: DType,
        op: AtomicOp,
    ) -> Result<String> {
        if let Some(r) = atomic_refusal(d, op) {
            return Err(self.unsupported(&self.kname, d, &r));
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
        if self.pair_atomic(d) {
            let code = if d.is_integer() && op == AtomicOp::Add {
                // Two 32-bit atomic adds with the carry of the low word: every update is an
                // add, so the final pair is the exact wrapped sum whatever the order (readers
                // racing with the updates may see a torn value, as the module docs allow).
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
            } else {
                self.locked_helper(&name, binding, d, op)?
            };
            self.helpers.push((name.clone(), code));
            return Ok(name);
        }
        if let Some(bits) = packed_bits(d) {
            let code = self.packed_atomic_helper(&name, &arr, d, bits, op)?;
            self.helpers.push((name.clone(), code));
            return Ok(name);
        }
        let native =
            |f: &str, v: &str| format!("fn {name}(i: u32, v: {vt}) {{ {f}(&{arr}[i], {v}); }}\n");
        let code = match (op, d) {
            (AtomicOp::Add | AtomicOp::Max, DType::Bool) => native("atomicOr", "select(0u, 1u, v)"),
            (AtomicOp::Min, DType::Bool) => native("atomicAnd", "select(0u, 1u, v)"),
            (AtomicOp::Add, DType::Int32 | DType::UInt32 | DType::Int64 | DType::UInt64) => {
                native("atomicAdd", "v")
            }
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

    /// The update of a packed 8/16-bit element (bool, int8, uint8, int16, uint16): bool
    /// `Add`/`Max` is an `atomicOr` of its bit, `Min` an `atomicAnd` clearing its byte when `v`
    /// is false; every other update a compare-and-swap loop on the element's word that changes
    /// only the element's bits (so updates of neighbours sharing the word retry, never clobber).
    fn packed_atomic_helper(
        &mut self,
        name: &str,
        arr: &str,
        d: DType,
        bits: u32,
        op: AtomicOp,
    ) -> Result<String> {
        let vt = self.vty(d);
        let (q, r) = if bits == 8 {
            ("2u", "3u")
        } else {
            ("1u", "1u")
        };
        let head = format!(
            "fn {name}(i: u32, v: {vt}) {{\n  let wi = i >> {q};\n  let sh = (i & {r}) * {bits}u;\n"
        );
        match (op, d) {
            (AtomicOp::Add | AtomicOp::Max, DType::Bool) => {
                return Ok(format!(
                    "{head}  if (v) {{ atomicOr(&{arr}[wi], 1u << sh); }}\n}}\n"
                ))
            }
            (AtomicOp::Min, DType::Bool) => {
                return Ok(format!(
                    "{head}  if (!v) {{ atomicAnd(&{arr}[wi], ~(0xffu << sh)); }}\n}}\n"
                ))
            }
            _ => {}
        }
        let cur = match d {
            DType::Int8 | DType::Int16 => format!("extractBits(bitcast<i32>(old), sh, {bits}u)"),
            DType::Float16 => {
                let f = self.helper("f16_f32", || super::emitter::F16_F32.into());
                format!("{f}(extractBits(old, sh, 16u))")
            }
            DType::BFloat16 => "bitcast<f32>(extractBits(old, sh, 16u) << 16u)".to_string(),
            _ => format!("extractBits(old, sh, {bits}u)"),
        };
        let r = self.binary(op.binary(), d, d, "cur".into(), "v".into())?;
        let r = self.wrap(d, r);
        let pv = self.packed_value(d, r);
        let (dv, dn, g) = if self.guard.is_some() {
            (
                "  var done = false;\n",
                "done = true; ",
                self.guard_line("!done"),
            )
        } else {
            ("", "", String::new())
        };
        Ok(format!(
            "{head}  var old = atomicLoad(&{arr}[wi]);
{dv}  loop {{
    let cur = {cur};
    let nw = insertBits(old, {pv}, sh, {bits}u);
    if (nw == old) {{ {dn}break; }}
    let x = atomicCompareExchangeWeak(&{arr}[wi], old, nw);
    if (x.exchanged) {{ {dn}break; }}
    old = x.old_value;
  }}
{g}}}
"
        ))
    }

    /// The lock-protected update of a 64-bit element held as a pair of u32 words (module docs).
    fn locked_helper(
        &mut self,
        name: &str,
        binding: usize,
        d: DType,
        op: AtomicOp,
    ) -> Result<String> {
        let vt = self.vty(d);
        let h = self.pair_helpers(binding);
        let cur = self.bits_value(d, format!("{h}_ld(i)"));
        let r = self.binary(op.binary(), d, d, "cur".into(), "v".into())?;
        let r = self.store_conv(d, r);
        let g = self.guard_line("!done");
        Ok(format!(
            "fn {name}(i: u32, v: {vt}) {{
  let lk = i % {ATOMIC_LOCK_WORDS}u;
  var done = false;
  loop {{
    if (atomicCompareExchangeWeak(&alk[lk], 0u, 1u).exchanged) {{
      let cur = {cur};
      {h}_st(i, bitcast<u64>({r}));
      atomicStore(&alk[lk], 0u);
      done = true;
    }}
    if (done) {{ break; }}
  }}
{g}}}
"
        ))
    }
}

//! Atomic updates of raw operands (`AtomicRaw`): atomic words, 64-bit pairs, native atomics and
//! compare-and-swap loops.

use super::emitter::WgslEmitter;
use super::storage_bytes;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::AtomicOp;

/// The WGSL atomic word of a dtype held in a 32-bit word.
pub(super) fn atomic_word(d: DType) -> &'static str {
    match d {
        // int64/uint64: pairs of u32 words (low word first), see `WgslEmitter::atomic_helper`.
        DType::Int8 | DType::Int16 | DType::Int32 => "i32",
        _ => "u32",
    }
}

impl WgslEmitter {
    /// Value of dtype `d` from its atomic word `w` (see [`atomic_word`]).
    pub(super) fn word_value(&self, d: DType, w: String) -> String {
        match d {
            DType::Bool => format!("({w} != 0u)"),
            DType::Float16 | DType::BFloat16 | DType::Float32 => format!("bitcast<f32>({w})"),
            _ => w,
        }
    }

    /// The atomic word of a value of dtype `d` (rounded as a store rounds it).
    pub(super) fn value_word(&mut self, d: DType, v: String) -> String {
        let sv = self.store_conv(d, v);
        match d {
            DType::Float16 | DType::BFloat16 | DType::Float32 => format!("bitcast<u32>({sv})"),
            _ => sv,
        }
    }

    /// Load/store helpers `b{binding}_pair_ld(i) -> u64` / `_st(i, u64)` of a 64-bit integer
    /// raw operand held as pairs of atomic u32 words (low word first); returns the prefix.
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
    /// atomically: a native atomic where one fits, else a compare-and-swap loop.
    pub(super) fn atomic_helper(
        &mut self,
        binding: usize,
        d: DType,
        op: AtomicOp,
    ) -> Result<String> {
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
}

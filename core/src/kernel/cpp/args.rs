//! The argument struct every kernel of a module takes by value: its fields ([`ArgsLayout`],
//! [`Slot`]), how a backend packs it, and how the emitter declares it.

use super::types::{compute_type, load_conv, storage_type};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use std::fmt::Write as _;

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

pub(super) struct StructBuilder {
    decl: String,
    fields: Vec<ArgField>,
    off: usize,
    align: usize,
}

impl StructBuilder {
    pub(super) fn new() -> Self {
        StructBuilder {
            decl: String::new(),
            fields: vec![],
            off: 0,
            align: 1,
        }
    }
    pub(super) fn add(&mut self, slot: Slot, cdecl: &str, size: usize) {
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
    pub(super) fn finish(self, name: &str, params: Vec<DType>) -> (String, ArgsLayout) {
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

pub(super) fn param_fields(sb: &mut StructBuilder, params: &[DType]) {
    for (k, d) in params.iter().enumerate() {
        sb.add(
            Slot::Param(k),
            &format!("{} p{k}", storage_type(*d)),
            d.itemsize(),
        );
    }
}

pub(super) fn param_loads(params: &[DType]) -> String {
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

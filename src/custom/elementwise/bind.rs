//! Binding a call's arguments to the kernel's names, and lowering a binding to the IR.

use super::ElementwiseKernel;
use crate::array::Array;
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::lang::{
    lower_elementwise, Binding, ElementwiseSource, LoweredElementwise, Name,
};
use cupy_core::scalar::Scalar;
use std::sync::Arc;

use crate::custom::params::*;

/// Where a raw operand comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum RawSrc {
    /// Input argument `k`.
    Arg(usize),
    /// `out_params` entry `k`.
    Out(usize),
}

/// One call's binding of names (see `ElementwiseKernel::bind`).
pub(super) struct Bound {
    pub(super) names: Vec<Name>,
    pub(super) types: Vec<(String, DType)>,
    pub(super) input_idx: Vec<usize>,
    /// Raw operands in `Binding::Raw` order.
    pub(super) raw_src: Vec<RawSrc>,
    pub(super) params: Vec<Scalar>,
    /// Per `out_params` entry: its dtype and whether it is `raw`.
    pub(super) outs: Vec<(DType, bool)>,
}

/// What a lowering depends on: the bound names and the placeholder values.
pub(super) type LoweringKey = (Vec<Name>, Vec<(String, DType)>);

impl ElementwiseKernel {
    /// Binds the arguments: resolves placeholders, assigns each name its dtype and binding,
    /// converts scalar arguments to parameters. Arrays are not touched.
    pub(super) fn bind(&self, args: &[Arg<'_>], out: &[&Array]) -> Result<Bound> {
        let op = self.name.as_str();
        check_arg_count(op, self.ins.len(), args.len())?;
        if !out.is_empty() && out.len() != self.outs.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "takes {} out arrays (or none), got {}",
                    self.outs.len(),
                    out.len()
                ),
            ));
        }
        let types = resolve_types(op, &self.ins, args, &self.outs, out)?;
        let mut b = Bound {
            names: Vec::with_capacity(self.ins.len() + self.outs.len()),
            types: vec![],
            input_idx: vec![],
            raw_src: vec![],
            params: vec![],
            outs: vec![],
        };
        for (k, (p, a)) in self.ins.iter().zip(args).enumerate() {
            let dtype = type_of(op, p, &types)?;
            let binding = match a {
                Arg::Array(_) if p.raw => {
                    b.raw_src.push(RawSrc::Arg(k));
                    Binding::Raw(b.raw_src.len() - 1)
                }
                Arg::Array(_) => {
                    b.input_idx.push(k);
                    Binding::Input(b.input_idx.len() - 1)
                }
                _ if p.raw => {
                    return Err(Error::invalid(
                        op,
                        format!("raw parameter {} needs an array, got a scalar", p.name),
                    ))
                }
                a => {
                    b.params.push(scalar_value(op, a, dtype)?);
                    Binding::Param(b.params.len() - 1)
                }
            };
            b.names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        for (k, p) in self.outs.iter().enumerate() {
            let dtype = type_of(op, p, &types)?;
            if let Some(o) = out.get(k) {
                if o.dtype() != dtype {
                    return Err(Error::TypeError {
                        op: op.into(),
                        dtypes: vec![dtype, o.dtype()],
                        msg: format!(
                            "out array for {} is {} but the kernel writes {dtype}",
                            p.name,
                            o.dtype()
                        ),
                    });
                }
            }
            let binding = if p.raw {
                b.raw_src.push(RawSrc::Out(k));
                Binding::Raw(b.raw_src.len() - 1)
            } else {
                Binding::Output(b.outs.iter().filter(|o| !o.1).count())
            };
            b.outs.push((dtype, p.raw));
            b.names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        b.types = types;
        Ok(b)
    }

    /// Lowers a binding to the IR (cached per names and placeholder values).
    pub(super) fn lowered(&self, b: &Bound) -> Result<Arc<LoweredElementwise>> {
        let key = (b.names.clone(), b.types.clone());
        if let Some(l) = self.cache.lock().expect("kernel cache").get(&key) {
            return Ok(l.clone());
        }
        let l = Arc::new(
            lower_elementwise(&ElementwiseSource {
                name: &self.name,
                operation: &self.source_text(),
                preamble: &self.preamble_text(),
                names: &b.names,
                types: &b.types,
                size_param: Some(b.params.len()),
            })
            .map_err(|e| self.remap(e))?,
        );
        self.cache
            .lock()
            .expect("kernel cache")
            .insert(key, l.clone());
        Ok(l)
    }
}

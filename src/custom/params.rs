//! Binding the arguments of a user kernel to its typed parameters: type placeholders resolved
//! from the arrays and scalars passed (CuPy's rules), shared by `ElementwiseKernel` and
//! `ReductionKernel`.

use crate::array::Array;
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::lang::{ParamSpec, TypeSpec};
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

/// Checks the number of input arguments.
pub(super) fn check_arg_count(op: &str, want: usize, got: usize) -> Result<()> {
    if want == got {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("takes {want} input arguments, got {got}"),
        ))
    }
}

/// The dtype a weak scalar takes when it alone decides a placeholder.
pub(super) fn weak_default(w: &WeakScalar) -> DType {
    w.default_dtype()
}

/// Resolves placeholders from the arguments, CuPy's order: arrays, then `out` arrays, then
/// scalars.
pub(super) fn resolve_types(
    kernel: &str,
    ins: &[ParamSpec],
    args: &[Arg<'_>],
    outs: &[ParamSpec],
    out_arrays: &[&Array],
) -> Result<Vec<(String, DType)>> {
    for (p, a) in ins.iter().zip(args) {
        if let (TypeSpec::DType(d), Arg::Array(x)) = (&p.ty, a) {
            if x.dtype() != *d {
                return Err(Error::TypeError {
                    op: kernel.into(),
                    dtypes: vec![*d, x.dtype()],
                    msg: format!(
                        "type is mismatched: parameter {} is {d} but the array passed is {} \
                         (cast it with astype)",
                        p.name,
                        x.dtype()
                    ),
                });
            }
        }
    }
    let mut types: Vec<(String, DType)> = vec![];
    let mut bind = |name: &str, d: DType, strict: bool| -> Result<()> {
        match types.iter().find(|(n, _)| n == name) {
            Some((_, have)) if *have != d && strict => Err(Error::TypeError {
                op: kernel.into(),
                dtypes: vec![*have, d],
                msg: format!("type is mismatched: placeholder {name} is {have} and {d}"),
            }),
            Some(_) => Ok(()),
            None => {
                types.push((name.to_string(), d));
                Ok(())
            }
        }
    };
    for (p, a) in ins.iter().zip(args) {
        if let (TypeSpec::Placeholder(t), Arg::Array(x)) = (&p.ty, a) {
            bind(t, x.dtype(), true)?;
        }
    }
    for (p, o) in outs.iter().zip(out_arrays) {
        if let TypeSpec::Placeholder(t) = &p.ty {
            bind(t, o.dtype(), true)?;
        }
    }
    for (p, a) in ins.iter().zip(args) {
        if let TypeSpec::Placeholder(t) = &p.ty {
            match a {
                Arg::Typed(s) => bind(t, s.dtype(), false)?,
                Arg::Weak(w) => bind(t, weak_default(w), false)?,
                Arg::Array(_) => {}
            }
        }
    }
    Ok(types)
}

pub(super) fn type_of(kernel: &str, p: &ParamSpec, types: &[(String, DType)]) -> Result<DType> {
    match &p.ty {
        TypeSpec::DType(d) => Ok(*d),
        TypeSpec::Placeholder(t) => types
            .iter()
            .find(|(n, _)| n == t)
            .map(|(_, d)| *d)
            .ok_or_else(|| {
                Error::invalid(
                    kernel,
                    format!(
                        "cannot determine the type of {} (placeholder {t}): no argument binds it",
                        p.name
                    ),
                )
            }),
    }
}

/// The value of a scalar argument as a parameter of dtype `d`.
pub(super) fn scalar_value(kernel: &str, a: &Arg<'_>, d: DType) -> Result<Scalar> {
    match a {
        Arg::Typed(s) => Ok(s.cast(d)),
        Arg::Weak(w) => w.to_scalar(kernel, d),
        Arg::Array(_) => unreachable!("scalars only"),
    }
}

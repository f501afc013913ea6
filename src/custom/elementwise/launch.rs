//! Running an `ElementwiseKernel`: the iteration shape, outputs, raw operands and the launch.

use super::bind::{Bound, RawSrc};
use super::ElementwiseKernel;
use crate::array::{same_device, Array};
use crate::device::Device;
use crate::launch::{broadcast_all, Elementwise};
use crate::math::ufunc::Arg;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::lang::RawMeta;
use cupy_core::layout::broadcast_shapes;
use cupy_core::scalar::Scalar;

impl ElementwiseKernel {
    /// Runs the kernel: `args` are the inputs (one per `in_params` entry), `out` is empty (new
    /// outputs are allocated) or one array per `out_params` entry (written in place and
    /// returned), `size` sets the iteration size when no non-raw array decides it. Every output
    /// is returned, `raw` ones included, in `out_params` order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a wrong argument count, a scalar passed as `raw`, an
    /// undecidable size or placeholder; [`Error::TypeError`] for conflicting placeholder
    /// bindings, or an array argument or `out` array whose dtype is not its parameter's
    /// declared type; [`Error::ShapeMismatch`] when arrays do not broadcast;
    /// [`Error::Parse`] for type errors in the operation; dtype and device errors.
    pub fn call_with(
        &self,
        args: &[Arg<'_>],
        out: &[&Array],
        size: Option<usize>,
    ) -> Result<Vec<Array>> {
        self.launch(args, out, size, None)
    }

    /// [`ElementwiseKernel::call_with`] with a block size (see
    /// [`ElementwiseKernel::call_args`]).
    pub(super) fn launch(
        &self,
        args: &[Arg<'_>],
        out: &[&Array],
        size: Option<usize>,
        block: Option<u32>,
    ) -> Result<Vec<Array>> {
        let op = self.name.as_str();
        let bound = self.bind(args, out)?;
        let lowered = self.lowered(&bound)?;
        let Bound {
            input_idx,
            raw_src,
            mut params,
            outs: out_specs,
            ..
        } = bound;
        let kernel = &lowered.kernel;
        let writes = |r: usize| kernel.writes_raw(r);
        // Array dtypes are the declared ones (checked in `resolve_types`).
        let arrays: Vec<Option<&Array>> = args
            .iter()
            .map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            })
            .collect();
        let inputs: Vec<&Array> = input_idx
            .iter()
            .map(|&k| arrays[k].expect("array"))
            .collect();
        let raw_args: Vec<&Array> = raw_src
            .iter()
            .filter_map(|s| match s {
                RawSrc::Arg(k) => Some(arrays[*k].expect("array")),
                RawSrc::Out(_) => None,
            })
            .collect();
        // Device and iteration shape (raw arrays do not broadcast).
        let all: Vec<&Array> = inputs
            .iter()
            .chain(&raw_args)
            .copied()
            .chain(out.iter().copied())
            .collect();
        let device = if all.is_empty() {
            Device::current()?
        } else {
            same_device(op, all.iter().copied())?
        };
        let shaped: Vec<&Array> = inputs
            .iter()
            .copied()
            .chain(
                out.iter()
                    .zip(&out_specs)
                    .filter(|(_, s)| !s.1)
                    .map(|(o, _)| *o),
            )
            .collect();
        let shape = if shaped.is_empty() {
            match size {
                Some(n) => vec![n],
                None => {
                    return Err(Error::invalid(
                        op,
                        "loop size is undecided: no non-raw array argument; pass size",
                    ))
                }
            }
        } else if size.is_some() {
            // CuPy's rule: the loop size comes from the arrays, so `size` is refused (even an
            // agreeing one).
            return Err(Error::invalid(
                op,
                "Specified 'size' can be used only if all of the ndarray are 'raw'",
            ));
        } else {
            broadcast_all(op, &shaped)?
        };
        for (o, spec) in out.iter().zip(&out_specs) {
            if !spec.1 && o.shape() != shape.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: format!("{op} (out)"),
                    lhs: shape.clone(),
                    rhs: o.shape().to_vec(),
                });
            }
        }
        for x in &inputs {
            broadcast_shapes(op, x.shape(), &shape)?;
        }
        // Outputs: the given ones, or new (zeros when the operation reads them, and for raw
        // outputs, which the kernel may write only in part).
        let mut outputs: Vec<Array> = Vec::with_capacity(self.outs.len());
        let mut elem_out = 0;
        for (k, &(dt, raw)) in out_specs.iter().enumerate() {
            outputs.push(match out.get(k) {
                Some(o) => (*o).clone(),
                None if raw || lowered.output_reads.contains(&elem_out) => {
                    Array::zeros_on(&device, &shape, dt)?
                }
                None => Array::empty_on(&device, &shape, dt)?,
            });
            if !raw {
                elem_out += 1;
            }
        }
        // Raw operands in kernel order; written ones become contiguous targets (copied back
        // after the launch when they are not the array itself).
        let mut targets: Vec<Array> = Vec::with_capacity(raw_src.len());
        let mut write_back: Vec<(Array, usize)> = vec![];
        for (r, src) in raw_src.iter().enumerate() {
            let a = match src {
                RawSrc::Arg(k) => arrays[*k].expect("array").clone(),
                RawSrc::Out(k) => outputs[*k].clone(),
            };
            if writes(r) && !a.is_c_contiguous() {
                targets.push(a.copy()?);
                write_back.push((a, r));
            } else {
                targets.push(a);
            }
        }
        let written: Vec<&Array> = targets
            .iter()
            .enumerate()
            .filter(|(r, _)| writes(*r))
            .map(|(_, a)| a)
            .collect();
        let aliases = |a: &Array| written.iter().any(|w| w.shares_memory_with(a));
        // Any other operand that shares memory with a written raw array reads a copy.
        let mut detached: Vec<Option<Array>> = Vec::with_capacity(targets.len());
        for (r, t) in targets.iter().enumerate() {
            detached.push(if !writes(r) && aliases(t) {
                Some(t.copy()?)
            } else {
                None
            });
        }
        let raws: Vec<&Array> = targets
            .iter()
            .zip(&detached)
            .map(|(t, d)| d.as_ref().unwrap_or(t))
            .collect();
        let mut owned_inputs: Vec<Array> = Vec::with_capacity(inputs.len());
        for x in &inputs {
            owned_inputs.push(if aliases(x) { x.copy()? } else { (*x).clone() });
        }
        let elem_outs: Vec<&Array> = outputs
            .iter()
            .zip(&out_specs)
            .filter(|(_, s)| !s.1)
            .map(|(o, _)| o)
            .collect();
        let mut kernel_inputs: Vec<&Array> = owned_inputs.iter().collect();
        for &k in &lowered.output_reads {
            kernel_inputs.push(elem_outs[k]);
        }
        // Params: the scalar arguments, `_ind.size()`, then the raw lengths the kernel asks for.
        params.push(Scalar::Int64(shape.iter().product::<usize>() as i64));
        for &(r, what) in &lowered.raw_lens {
            let a = raws[r];
            let dim = |d: usize, what: &str| {
                if d < a.ndim() {
                    Ok(d)
                } else {
                    Err(Error::invalid(
                        op,
                        format!(
                            "{what}()[{d}] of a raw array of {} dimensions (shape {:?})",
                            a.ndim(),
                            a.shape()
                        ),
                    ))
                }
            };
            params.push(Scalar::Int64(match what {
                RawMeta::Size => a.size() as i64,
                RawMeta::Shape(d) => a.shape()[dim(d, "shape")?] as i64,
                // The kernel reads a C-contiguous array (a copy when the argument is not).
                RawMeta::Stride(d) => {
                    let d = dim(d, "strides")?;
                    (a.shape()[d + 1..].iter().product::<usize>() * a.dtype().itemsize()) as i64
                }
                RawMeta::Rank(n) if n == a.ndim() => n as i64,
                RawMeta::Rank(n) => {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "a raw array of {} dimensions (shape {:?}) is indexed with {n} indices",
                            a.ndim(),
                            a.shape()
                        ),
                    ))
                }
            }));
        }
        if params.len() != kernel.params.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "internal error: {} parameters for a kernel of {}; please report",
                    params.len(),
                    kernel.params.len()
                ),
            ));
        }
        Elementwise {
            op,
            kernel,
            inputs: &kernel_inputs,
            raws: &raws,
            params,
            outs: elem_outs.iter().map(|o| Some(*o)).collect(),
            device: Some(&device),
            shape: Some(&shape),
        }
        .run_opts(block, &self.options)?;
        for (a, r) in &write_back {
            a.copy_from(&targets[*r])?;
        }
        Ok(if self.no_return { vec![] } else { outputs })
    }
}

//! Shared launch path of elementwise kernels: device and dtype checks, broadcasting, output
//! allocation or validation, aliasing, and iteration-space simplification.

use crate::array::{check_dtype, same_device, Array};
use crate::device::Device;
use cupy_core::backend::{Buffer, ElementwiseCall, Operand, RawOperand};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::Kernel;
use cupy_core::layout::{broadcast_shapes, merge_axes, Layout};
use cupy_core::scalar::Scalar;

/// Everything one elementwise launch needs.
pub(crate) struct Elementwise<'a> {
    /// The op name for errors.
    pub op: &'a str,
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Elementwise inputs (broadcast together).
    pub inputs: &'a [&'a Array],
    /// Raw operands (made contiguous here if needed).
    pub raws: &'a [&'a Array],
    /// Parameter values.
    pub params: Vec<Scalar>,
    /// Existing outputs (`out=`), one slot per kernel output.
    pub outs: Vec<Option<&'a Array>>,
    /// The device, when there are no array operands (creation routines).
    pub device: Option<&'a Device>,
    /// The iteration shape, when there are no inputs to broadcast (creation routines).
    pub shape: Option<&'a [usize]>,
}

/// Checks a dtype for every distinct dtype the kernel uses.
pub(crate) fn check_kernel_dtypes(device: &Device, op: &str, dtypes: &[DType]) -> Result<()> {
    for &d in dtypes {
        check_dtype(device, op, d)?;
    }
    Ok(())
}

/// Broadcasts the shapes of `arrays` (NumPy rules), naming `op` on failure.
pub(crate) fn broadcast_all(op: &str, arrays: &[&Array]) -> Result<Vec<usize>> {
    if let Some(first) = arrays.first() {
        if arrays.iter().all(|a| a.shape() == first.shape()) {
            return Ok(first.shape().to_vec());
        }
    }
    let mut shape: Vec<usize> = vec![];
    for a in arrays {
        shape = broadcast_shapes(op, &shape, a.shape()).map_err(|_| Error::ShapeMismatch {
            op: op.into(),
            lhs: if shape.is_empty() {
                arrays[0].shape().to_vec()
            } else {
                shape.clone()
            },
            rhs: a.shape().to_vec(),
        })?;
    }
    Ok(shape)
}

impl Elementwise<'_> {
    /// Runs a one-output launch and returns that output.
    pub(crate) fn run_one(self) -> Result<Array> {
        Ok(self.run()?.remove(0))
    }

    /// Runs the launch; returns the outputs (the given `out` arrays or new contiguous ones).
    pub(crate) fn run(self) -> Result<Vec<Array>> {
        self.kernel.validate()?;
        let dtypes = self.kernel.dtypes();
        self.run_validated(&dtypes)
    }

    /// [`Elementwise::run`] for a kernel already validated, whose [`Kernel::dtypes`] are `dtypes`
    /// (kernels the frontend caches).
    pub(crate) fn run_validated(self, dtypes: &[DType]) -> Result<Vec<Array>> {
        self.run_validated_block(dtypes, None, &[])
    }

    /// [`Elementwise::run`] with blocks (workgroups) of `block` threads on the GPU backends
    /// (`None`: the backend's own; the cpu backend ignores it) and a user kernel's compiler
    /// `options` (`Backend::elementwise_opts`: passed to NVRTC/hipRTC, ignored by cpu and
    /// wgpu).
    pub(crate) fn run_opts(self, block: Option<u32>, options: &[String]) -> Result<Vec<Array>> {
        self.kernel.validate()?;
        let dtypes = self.kernel.dtypes();
        self.run_validated_block(&dtypes, block, options)
    }

    fn run_validated_block(
        self,
        dtypes: &[DType],
        block: Option<u32>,
        options: &[String],
    ) -> Result<Vec<Array>> {
        let op = self.op;
        let launch = |device: &Device, call: &ElementwiseCall<'_>| {
            if crate::cuda::order::needed() {
                let reads: Vec<&Buffer> = call.inputs.iter().map(|o| o.buffer).collect();
                let writes: Vec<&Buffer> = (call.outputs.iter().map(|o| o.buffer))
                    .chain(call.raws.iter().map(|r| r.buffer))
                    .collect();
                crate::cuda::order::order(device, &reads, &writes)?;
            }
            crate::cuda::record::submit(
                device,
                crate::cuda::record::Call::Elementwise(call, block, options),
            )
        };
        let all: Vec<&Array> = self
            .inputs
            .iter()
            .chain(self.raws.iter())
            .copied()
            .chain(self.outs.iter().flatten().copied())
            .collect();
        let device = match self.device {
            Some(d) => {
                if let Some(a) = all.iter().find(|a| &a.device != d) {
                    return Err(Error::DeviceMismatch {
                        op: op.into(),
                        lhs: d.label(),
                        rhs: a.device.label(),
                    });
                }
                d.clone()
            }
            None => same_device(op, all.iter().copied())?,
        };
        let mut shape = match self.shape {
            Some(s) => s.to_vec(),
            None => broadcast_all(op, self.inputs)?,
        };
        // NumPy broadcasts the inputs to a larger `out` (`add(x, 1, out=zeros((2, 3)))`).
        if let Some(o) = self.outs.iter().flatten().next() {
            if o.shape() == shape.as_slice() {
                // Nothing to broadcast.
            } else if let Ok(s) = broadcast_shapes(op, &shape, o.shape()) {
                if s == o.shape() {
                    shape = s;
                }
            }
        }
        let itemsize = self.kernel.outputs.iter().map(|d| d.itemsize()).max();
        cupy_core::layout::checked_size(op, &shape, itemsize.unwrap_or(1))?;
        check_kernel_dtypes(&device, op, dtypes)?;

        let mut outputs = Vec::with_capacity(self.kernel.outputs.len());
        for (k, &dt) in self.kernel.outputs.iter().enumerate() {
            match self.outs.get(k).copied().flatten() {
                Some(o) => {
                    if o.shape() != shape.as_slice() {
                        return Err(Error::ShapeMismatch {
                            op: format!("{op} (out=)"),
                            lhs: shape.clone(),
                            rhs: o.shape().to_vec(),
                        });
                    }
                    if o.dtype != dt {
                        return Err(Error::TypeError {
                            op: op.into(),
                            dtypes: vec![dt, o.dtype],
                            msg: format!(
                                "cannot write a {dt} result into an out array of {}",
                                o.dtype
                            ),
                        });
                    }
                    if o.layout
                        .shape
                        .iter()
                        .zip(&o.layout.strides)
                        .any(|(&d, &s)| d > 1 && s == 0)
                    {
                        return Err(Error::invalid(
                            op,
                            "out array has zero strides (a broadcast view) and cannot be written",
                        ));
                    }
                    outputs.push(o.clone());
                }
                None => outputs.push(Array::empty_on(&device, &shape, dt)?),
            }
        }
        let size = shape.iter().product::<usize>();
        if size == 0 {
            return Ok(outputs);
        }
        // Fast path: every operand C-contiguous with the iteration shape (no broadcast, no raws)
        // and no input overlapping an output at another offset: one flat axis, no merging, no
        // copies of the arrays.
        if self.raws.is_empty()
            && self
                .inputs
                .iter()
                .all(|a| a.shape() == shape.as_slice() && a.is_c_contiguous())
            && outputs.iter().all(|o| o.is_c_contiguous())
            && !self.inputs.iter().any(|a| {
                outputs
                    .iter()
                    .any(|o| o.shares_memory_with(a) && o.layout.offset != a.layout.offset)
            })
        {
            let flat = |a: &Array| Layout {
                shape: vec![size],
                strides: vec![1],
                offset: a.layout.offset,
            };
            let call = ElementwiseCall {
                kernel: self.kernel,
                shape: vec![size],
                inputs: self
                    .inputs
                    .iter()
                    .map(|a| Operand {
                        buffer: &a.buffer,
                        layout: flat(a),
                    })
                    .collect(),
                outputs: outputs
                    .iter()
                    .map(|a| Operand {
                        buffer: &a.buffer,
                        layout: flat(a),
                    })
                    .collect(),
                raws: vec![],
                params: self.params,
            };
            launch(&device, &call)?;
            return Ok(outputs);
        }
        // An input that shares memory with an output through a different layout is copied first,
        // so no element is overwritten before it is read.
        let mut owned_inputs: Vec<Array> = Vec::with_capacity(self.inputs.len());
        for a in self.inputs {
            let clash = outputs.iter().any(|o| {
                o.shares_memory_with(a)
                    && a.layout.broadcast_to(&shape).is_none_or(|l| l != o.layout)
            });
            owned_inputs.push(if clash { a.copy()? } else { (*a).clone() });
        }
        let mut raw_arrays: Vec<Array> = Vec::with_capacity(self.raws.len());
        for a in self.raws {
            raw_arrays.push(if a.is_c_contiguous() {
                (*a).clone()
            } else {
                a.copy()?
            });
        }
        let mut layouts: Vec<Layout> = owned_inputs
            .iter()
            .map(|a| {
                a.layout
                    .broadcast_to(&shape)
                    .expect("broadcast shape was computed from these inputs")
            })
            .collect();
        layouts.extend(outputs.iter().map(|o| o.layout.clone()));
        let (mshape, mlayouts) = merge_axes(&shape, &layouts);
        let n_in = owned_inputs.len();
        let call = ElementwiseCall {
            kernel: self.kernel,
            shape: mshape,
            inputs: owned_inputs
                .iter()
                .zip(&mlayouts[..n_in])
                .map(|(a, l)| Operand {
                    buffer: &a.buffer,
                    layout: l.clone(),
                })
                .collect(),
            outputs: outputs
                .iter()
                .zip(&mlayouts[n_in..])
                .map(|(a, l)| Operand {
                    buffer: &a.buffer,
                    layout: l.clone(),
                })
                .collect(),
            raws: raw_arrays
                .iter()
                .map(|a| RawOperand {
                    buffer: &a.buffer,
                    offset: a.layout.offset,
                    len: a.size(),
                })
                .collect(),
            params: self.params,
        };
        launch(&device, &call)?;
        Ok(outputs)
    }
}

/// Runs an IR kernel elementwise over `inputs` (broadcast together) with `raws` as indexable
/// operands and `params` as uniform values, returning new output arrays (one per kernel output).
/// This is the engine under every ufunc, and the entry point for kernels built by hand in the IR.
///
/// # Errors
/// [`Error::ShapeMismatch`] if the inputs do not broadcast; [`Error::InvalidArgument`] if the
/// kernel is malformed or the operand dtypes/counts do not match it; dtype and device errors.
pub fn elementwise(
    kernel: &Kernel,
    inputs: &[&Array],
    raws: &[&Array],
    params: Vec<Scalar>,
) -> Result<Vec<Array>> {
    let op = kernel.name.as_str();
    let in_dt: Vec<DType> = inputs.iter().map(|a| a.dtype()).collect();
    let raw_dt: Vec<DType> = raws.iter().map(|a| a.dtype()).collect();
    let par_dt: Vec<DType> = params.iter().map(|p| p.dtype()).collect();
    if in_dt != kernel.inputs || raw_dt != kernel.raws || par_dt != kernel.params {
        return Err(Error::invalid(
            op,
            format!(
                "operands do not match the kernel: inputs {in_dt:?} vs {:?}, raws {raw_dt:?} vs {:?}, params {par_dt:?} vs {:?}",
                kernel.inputs, kernel.raws, kernel.params
            ),
        ));
    }
    if inputs.is_empty() {
        return Err(Error::invalid(
            op,
            "a kernel launched without elementwise inputs needs an explicit shape and device",
        ));
    }
    Elementwise {
        op,
        kernel,
        inputs,
        raws,
        params,
        outs: vec![None; kernel.outputs.len()],
        device: None,
        shape: None,
    }
    .run()
}

//! The backend calls of a graph capture on a device without native graphs (wgpu, the cpu).
//!
//! Every op queues its work through [`submit`]. Outside a capture (or on cuda and hip, whose
//! drivers capture the stream themselves) the call goes straight to the backend. While the
//! current stream is capturing on a backend without [`cupy_core::GraphCapture`], the call is
//! recorded instead, as an owned copy ([`Recorded`]: the kernel, the buffers as `Arc`s, the
//! layouts and launch parameters), and not run: as on CUDA, captured work runs only when the
//! graph is launched, and each launch issues the recorded calls again, in order, on the same
//! buffers.

use crate::device::Device;
use cupy_core::backend::{
    Backend, Buffer, ElementwiseCall, GemmCall, Operand, Primitive, RawArg, RawLaunch, RawOperand,
    ReductionCall, ScanCall, ScanOp, SortCall,
};
use cupy_core::fft::{FftCall, FftKind};
use cupy_core::kernel::ir::{Kernel, ReduceKernel};
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Result, Scalar};

/// A backend call about to be queued (borrowed from the op that makes it).
pub(crate) enum Call<'c, 'a> {
    /// [`Backend::elementwise`] (with a block size and compiler options: `elementwise_opts`).
    Elementwise(&'c ElementwiseCall<'a>, Option<u32>, &'c [String]),
    /// [`Backend::reduce`] (with compiler options: `reduce_opts`).
    Reduce(&'c ReductionCall<'a>, &'c [String]),
    /// [`Backend::gemm`].
    Gemm(&'c GemmCall<'a>),
    /// [`Backend::scan`].
    Scan(&'c ScanCall<'a>),
    /// [`Backend::sort`].
    Sort(&'c SortCall<'a>),
    /// [`Backend::fft`].
    Fft(&'c FftCall<'a>),
    /// [`Backend::raw_launch`].
    Raw(&'c RawLaunch<'a>),
}

impl Call<'_, '_> {
    fn issue(&self, be: &dyn Backend) -> Result<()> {
        match *self {
            Call::Elementwise(c, block, options) => match (block, options) {
                (Some(b), []) => be.elementwise_block(c, b),
                (None, []) => be.elementwise(c),
                (b, o) => be.elementwise_opts(c, b, o),
            },
            Call::Reduce(c, []) => be.reduce(c),
            Call::Reduce(c, o) => be.reduce_opts(c, o),
            Call::Gemm(c) => be.gemm(c),
            Call::Scan(c) => be.scan(c),
            Call::Sort(c) => be.sort(c),
            Call::Fft(c) => be.fft(c),
            Call::Raw(c) => be.raw_launch(c),
        }
    }

    /// The primitive the call needs and its dtype, for the capability check made before a
    /// call is recorded (a recorded call is not run, so its backend cannot refuse it then).
    fn primitive(&self) -> Option<(Primitive, DType)> {
        match *self {
            Call::Gemm(c) => Some((Primitive::Gemm, c.c.buffer.dtype())),
            Call::Scan(c) => Some((Primitive::Scan, c.output.buffer.dtype())),
            Call::Sort(c) => Some((Primitive::Sort, c.keys.buffer.dtype())),
            Call::Fft(c) => Some((Primitive::Fft, c.complex)),
            _ => None,
        }
    }

    fn to_owned(&self) -> Recorded {
        match *self {
            Call::Elementwise(c, block, options) => Recorded::Elementwise {
                kernel: c.kernel.clone(),
                shape: c.shape.clone(),
                inputs: c.inputs.iter().map(own).collect(),
                outputs: c.outputs.iter().map(own).collect(),
                raws: (c.raws.iter())
                    .map(|r| (r.buffer.clone(), r.offset, r.len))
                    .collect(),
                params: c.params.clone(),
                block,
                options: options.to_vec(),
            },
            Call::Reduce(c, options) => Recorded::Reduce {
                kernel: c.kernel.clone(),
                out_shape: c.out_shape.clone(),
                reduce_shape: c.reduce_shape.clone(),
                inputs: c.inputs.iter().map(own).collect(),
                output: own(&c.output),
                extra_outputs: c.extra_outputs.iter().map(own).collect(),
                params: c.params.clone(),
                options: options.to_vec(),
            },
            Call::Gemm(c) => Recorded::Gemm {
                a: own(&c.a),
                b: own(&c.b),
                c: own(&c.c),
            },
            Call::Scan(c) => Recorded::Scan {
                op: c.op,
                input: own(&c.input),
                output: own(&c.output),
            },
            Call::Sort(c) => Recorded::Sort {
                keys: own(&c.keys),
                values: c.values.as_ref().map(own),
                positions: c.values_are_positions,
                source: c.source.as_ref().map(own),
                discard_keys: c.discard_keys,
            },
            Call::Fft(c) => Recorded::Fft {
                kind: c.kind,
                n: c.n,
                complex: c.complex,
                input: own(&c.input),
                output: own(&c.output),
            },
            Call::Raw(c) => Recorded::Raw {
                source: c.source.to_string(),
                name: c.name.to_string(),
                options: c.options.to_vec(),
                name_expressions: c.name_expressions.to_vec(),
                grid: c.grid,
                block: c.block,
                shared_mem: c.shared_mem,
                args: (c.args.iter())
                    .map(|a| match a {
                        RawArg::Buffer { buffer, offset } => {
                            OwnedArg::Buffer((*buffer).clone(), *offset)
                        }
                        RawArg::Scalar(s) => OwnedArg::Scalar(*s),
                    })
                    .collect(),
            },
        }
    }
}

fn own(o: &Operand<'_>) -> (Buffer, Layout) {
    (o.buffer.clone(), o.layout.clone())
}

fn op((buffer, layout): &(Buffer, Layout)) -> Operand<'_> {
    Operand {
        buffer,
        layout: layout.clone(),
    }
}

/// A raw kernel argument kept by a recording.
pub(crate) enum OwnedArg {
    Buffer(Buffer, usize),
    Scalar(Scalar),
}

/// An owned copy of a [`Call`], kept by a recorded graph and issued again at each launch.
pub(crate) enum Recorded {
    Elementwise {
        kernel: Kernel,
        shape: Vec<usize>,
        inputs: Vec<(Buffer, Layout)>,
        outputs: Vec<(Buffer, Layout)>,
        raws: Vec<(Buffer, usize, usize)>,
        params: Vec<Scalar>,
        block: Option<u32>,
        options: Vec<String>,
    },
    Reduce {
        kernel: ReduceKernel,
        out_shape: Vec<usize>,
        reduce_shape: Vec<usize>,
        inputs: Vec<(Buffer, Layout)>,
        output: (Buffer, Layout),
        extra_outputs: Vec<(Buffer, Layout)>,
        params: Vec<Scalar>,
        options: Vec<String>,
    },
    Gemm {
        a: (Buffer, Layout),
        b: (Buffer, Layout),
        c: (Buffer, Layout),
    },
    Scan {
        op: ScanOp,
        input: (Buffer, Layout),
        output: (Buffer, Layout),
    },
    Sort {
        keys: (Buffer, Layout),
        values: Option<(Buffer, Layout)>,
        positions: bool,
        source: Option<(Buffer, Layout)>,
        discard_keys: bool,
    },
    Fft {
        kind: FftKind,
        n: usize,
        complex: DType,
        input: (Buffer, Layout),
        output: (Buffer, Layout),
    },
    Raw {
        source: String,
        name: String,
        options: Vec<String>,
        name_expressions: Vec<String>,
        grid: [u32; 3],
        block: [u32; 3],
        shared_mem: u32,
        args: Vec<OwnedArg>,
    },
}

impl Recorded {
    /// Queues the call again on the backend (the current stream).
    pub(crate) fn issue(&self, be: &dyn Backend) -> Result<()> {
        match self {
            Recorded::Elementwise {
                kernel,
                shape,
                inputs,
                outputs,
                raws,
                params,
                block,
                options,
            } => {
                let c = ElementwiseCall {
                    kernel,
                    shape: shape.clone(),
                    inputs: inputs.iter().map(op).collect(),
                    outputs: outputs.iter().map(op).collect(),
                    raws: (raws.iter())
                        .map(|(buffer, offset, len)| RawOperand {
                            buffer,
                            offset: *offset,
                            len: *len,
                        })
                        .collect(),
                    params: params.clone(),
                };
                Call::Elementwise(&c, *block, options).issue(be)
            }
            Recorded::Reduce {
                kernel,
                out_shape,
                reduce_shape,
                inputs,
                output,
                extra_outputs,
                params,
                options,
            } => {
                let c = ReductionCall {
                    kernel,
                    out_shape: out_shape.clone(),
                    reduce_shape: reduce_shape.clone(),
                    inputs: inputs.iter().map(op).collect(),
                    output: op(output),
                    extra_outputs: extra_outputs.iter().map(op).collect(),
                    params: params.clone(),
                };
                Call::Reduce(&c, options).issue(be)
            }
            Recorded::Gemm { a, b, c } => be.gemm(&GemmCall {
                a: op(a),
                b: op(b),
                c: op(c),
            }),
            Recorded::Scan {
                op: o,
                input,
                output,
            } => be.scan(&ScanCall {
                op: *o,
                input: op(input),
                output: op(output),
            }),
            Recorded::Sort {
                keys,
                values,
                positions,
                source,
                discard_keys,
            } => be.sort(&SortCall {
                keys: op(keys),
                values: values.as_ref().map(op),
                values_are_positions: *positions,
                source: source.as_ref().map(op),
                discard_keys: *discard_keys,
            }),
            Recorded::Fft {
                kind,
                n,
                complex,
                input,
                output,
            } => be.fft(&FftCall {
                kind: *kind,
                n: *n,
                complex: *complex,
                input: op(input),
                output: op(output),
            }),
            Recorded::Raw {
                source,
                name,
                options,
                name_expressions,
                grid,
                block,
                shared_mem,
                args,
            } => {
                let args: Vec<RawArg<'_>> = (args.iter())
                    .map(|a| match a {
                        OwnedArg::Buffer(buffer, offset) => RawArg::Buffer {
                            buffer,
                            offset: *offset,
                        },
                        OwnedArg::Scalar(s) => RawArg::Scalar(*s),
                    })
                    .collect();
                be.raw_launch(&RawLaunch {
                    source,
                    name,
                    options,
                    name_expressions,
                    grid: *grid,
                    block: *block,
                    shared_mem: *shared_mem,
                    args: &args,
                })
            }
        }
    }
}

/// Queues `call` on `device`'s current stream, or records it when that stream is capturing a
/// graph on a backend without native graphs (see the module docs).
///
/// # Errors
/// The backend's errors; while recording, `Unsupported` for a primitive the backend does not
/// implement for the dtype (its capability answer), so the caller's fallback runs as it would
/// outside a capture.
pub(crate) fn submit(device: &Device, call: Call<'_, '_>) -> Result<()> {
    if let Some(cap) = super::graph::recording(device) {
        if let Some((p, dt)) = call.primitive() {
            let verdict = crate::backends::providers()
                .iter()
                .find(|pr| pr.kind() == device.kind())
                .map(|pr| pr.check_primitive(p, dt));
            if let Some(Err(reason)) = verdict {
                return Err(Error::Unsupported {
                    op: format!("{p:?}"),
                    backend: device.label(),
                    reason,
                });
            }
        }
        cap.record(call.to_owned());
        return Ok(());
    }
    call.issue(&**device.backend())
}

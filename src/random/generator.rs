//! [`Generator`] (`numpy.random.Generator` / `cupy.random.Generator`): a Philox4x32-10 key and a
//! call counter; every sampling call launches one kernel whose element `i` reads the Philox
//! blocks of counter `(i, k, call_lo, call_hi)`, or, for the packed samplers (`packed.rs`),
//! shares the blocks of its item with the other lanes of the item.

use super::builder::Builder;
use super::philox::Stream;
use super::seed::SeedSequence;
use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::Kernel;
use cupy_core::scalar::Scalar;

/// Keyword arguments shared by the samplers: NumPy's `dtype=` (float32 or float64 for the
/// continuous distributions, default float64; an integer dtype for `integers`) and `out=`
/// (an existing array to fill; its shape replaces the `size` argument).
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// The element type (`dtype=`; `None`: the routine's default).
    pub dtype: Option<DType>,
    /// The array to fill (`out=`).
    pub out: Option<Array>,
}

impl From<DType> for Sample {
    fn from(d: DType) -> Sample {
        Sample {
            dtype: Some(d),
            out: None,
        }
    }
}

impl From<&Array> for Sample {
    fn from(a: &Array) -> Sample {
        Sample {
            dtype: Some(a.dtype()),
            out: Some(a.clone()),
        }
    }
}

/// A random generator over Philox4x32-10 (`numpy.random.default_rng(seed)`).
///
/// The same seed, call sequence, shape and dtype give bit-identical arrays on every backend
/// (cpu, wgpu, CUDA, HIP): see the [module docs](super).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generator {
    key: [u32; 2],
    calls: u64,
    seq: SeedSequence,
}

/// `numpy.random.default_rng(seed)`: a [`Generator`] keyed from `seed` through a
/// [`SeedSequence`].
pub fn default_rng(seed: u64) -> Generator {
    Generator::from_seed_sequence(SeedSequence::new(seed))
}
routine!(
    default_rng as "cupy.random.default_rng",
    Random,
    notes: "Philox4x32-10 keyed by a SeedSequence-style hash; bit-identical on every backend"
);

impl Generator {
    /// A generator keyed by `seq` (`Generator(Philox(seed_seq))`).
    pub fn from_seed_sequence(seq: SeedSequence) -> Generator {
        Generator {
            key: seq.key(),
            calls: 0,
            seq,
        }
    }
    /// The Philox key (two 32-bit words).
    pub fn key(&self) -> [u32; 2] {
        self.key
    }
    /// How many sampling calls this generator has made (each launch takes one counter value).
    pub fn calls(&self) -> u64 {
        self.calls
    }
    /// `Generator.spawn(n)`: `n` generators with independent streams (their keys come from
    /// the spawned children of this generator's seed sequence).
    pub fn spawn(&mut self, n: usize) -> Vec<Generator> {
        self.seq
            .spawn(n)
            .into_iter()
            .map(Generator::from_seed_sequence)
            .collect()
    }

    /// The four stream parameters of the next call (and advances the call counter).
    pub(crate) fn next_call(&mut self) -> Vec<Scalar> {
        let c = self.calls;
        self.calls = self.calls.wrapping_add(1);
        vec![
            Scalar::UInt32(self.key[0]),
            Scalar::UInt32(self.key[1]),
            Scalar::UInt32(c as u32),
            Scalar::UInt32((c >> 32) as u32),
        ]
    }

    /// The device, shape and element count of a sampling call for `shape` (or `out`'s shape,
    /// when `shape` is empty: NumPy's `size=None`), checked: `out`'s shape must match, and one
    /// call samples fewer than 2^32 elements.
    pub(crate) fn target(
        op: &str,
        shape: &[usize],
        out: Option<&Array>,
    ) -> Result<(Device, Vec<usize>, usize)> {
        let device = match out {
            Some(o) => o.device().clone(),
            None if super::kernels::collecting() => {
                Device::get(cupy_core::backend::BackendKind::Cpu, 0)?
            }
            None => Device::current()?,
        };
        // `shape` empty with `out=` is NumPy's `size=None`: out's shape.
        let shape = match out {
            Some(o) if shape.is_empty() => o.shape(),
            _ => shape,
        };
        if let Some(o) = out {
            if o.shape() != shape {
                return Err(Error::invalid(
                    op,
                    format!(
                        "size {shape:?} must match out.shape {:?} when used together",
                        o.shape()
                    ),
                ));
            }
        }
        let shape: Vec<usize> = shape.to_vec();
        let n = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX);
        if n as u64 >= 1u64 << 32 {
            return Err(Error::invalid(
                op,
                format!("{n} elements: one call samples fewer than 2^32 (Philox's per-element counter word)"),
            ));
        }
        Ok((device, shape, n))
    }

    /// Runs a sampler kernel built by `build` for `shape` (or `opts.out`'s shape), with
    /// `extra` parameters after the stream's and raw operands `raws` (device arrays).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch(
        &mut self,
        op: &str,
        shape: &[usize],
        dtype: DType,
        out: Option<&Array>,
        extra_params: Vec<(DType, Scalar)>,
        raws: &dyn Fn(&Device) -> Result<Vec<Array>>,
        build: &dyn Fn(&mut Builder, &Stream) -> Result<()>,
    ) -> Result<Array> {
        let (device, shape, _) = Self::target(op, shape, out)?;
        let raw_arrays = raws(&device)?;
        let mut b = Builder::new();
        let s = Stream::new(&mut b);
        build(&mut b, &s)?;
        let mut params = Stream::params();
        params.extend(extra_params.iter().map(|(d, _)| *d));
        let raw_types: Vec<DType> = raw_arrays.iter().map(|a| a.dtype()).collect();
        let kernel: Kernel = b.finish(op, dtype, params, raw_types);
        if super::kernels::collect(&kernel) {
            return Err(Error::invalid(op, "kernel collected, not launched"));
        }
        let mut values = self.next_call();
        values.extend(extra_params.into_iter().map(|(_, v)| v));
        let raw_refs: Vec<&Array> = raw_arrays.iter().collect();
        Elementwise {
            op,
            kernel: &kernel,
            inputs: &[],
            raws: &raw_refs,
            params: values,
            outs: vec![out],
            device: Some(&device),
            shape: Some(&shape),
        }
        .run_one()
    }
}

/// No raw operands.
pub(crate) fn no_raws(_: &Device) -> Result<Vec<Array>> {
    Ok(vec![])
}

/// The float dtype of a continuous sampler: `opts.dtype` (float32 or float64), else float64.
pub(crate) fn float_dtype(op: &str, opts: &Sample) -> Result<DType> {
    let d = opts.dtype.unwrap_or(DType::Float64);
    match d {
        DType::Float32 | DType::Float64 => {
            if let Some(o) = &opts.out {
                if o.dtype() != d {
                    return Err(Error::TypeError {
                        op: op.into(),
                        dtypes: vec![d, o.dtype()],
                        msg: "out= must have the requested dtype".into(),
                    });
                }
            }
            Ok(d)
        }
        _ => Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![d],
            msg: "dtype must be float32 or float64".into(),
        }),
    }
}

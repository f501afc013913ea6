//! The helper kernels of the solver plans: `hip-kernels/solver.cu` (embedded), its entry
//! points and their launch. One source for both vendors: NVRTC compiles it for CUDA, hipRTC
//! for HIP, through [`GpuDriver::load_module`] (memory and disk caches included), and every
//! entry takes one [`SolverArgs`] struct of eight 64-bit slots.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::launch::{named_module, GpuDriver};
use crate::gpu::sortscan::{assemble, BLOCK};

/// `solver.cu`: determinant/slogdet from the LU factors, identity and triangle fills, QR's `R`
/// and `Q` set-up, the non-finite checks (`cupy_solver_<family>_<dtype>`).
pub const SOLVER_CU: &str = include_str!("../../../../hip-kernels/solver.cu");

/// The kernel families of [`SOLVER_CU`] (each instantiated for the four [`DTYPES`]).
pub const FAMILIES: [&str; 9] = [
    "det", "slogdet", "eye", "tri_zero", "nf_flag", "nf_zero", "nf_nan", "qr_r", "qr_q",
];

/// The kernel families of [`SOLVER_CU`] instantiated for float32 and float64 only (`geev_vr`:
/// a real matrix's packed eigenvectors as complex columns).
pub const REAL_FAMILIES: [&str; 1] = ["geev_vr"];

/// The dtypes the solver paths take (NumPy names, the entries' suffixes).
pub const DTYPES: [&str; 4] = ["float32", "float64", "complex64", "complex128"];

/// The dtype-less entry (`info[m] = value` for flagged matrices).
pub const NF_INFO: &str = "cupy_solver_nf_info";

/// Arguments of every solver.cu entry (`struct SolverArgs`): eight 64-bit slots, in the order
/// each kernel documents.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverArgs {
    /// The slots (device addresses and counts); unused ones are 0.
    pub s: [u64; 8],
}

impl SolverArgs {
    /// Slots from `args` (at most eight).
    ///
    /// # Errors
    /// `InvalidArgument` for more than eight.
    pub fn new(args: &[u64]) -> Result<SolverArgs> {
        if args.len() > 8 {
            return Err(Error::invalid(
                "solver kernel",
                format!("{} arguments, at most 8", args.len()),
            ));
        }
        let mut s = [0u64; 8];
        s[..args.len()].copy_from_slice(args);
        Ok(SolverArgs { s })
    }

    /// The struct's bytes, as the kernels read them.
    pub fn bytes(&self) -> Vec<u8> {
        self.s.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }
}

/// Whether `dt` is one of the solver dtypes.
pub fn is_solver_dtype(dt: DType) -> bool {
    DTYPES.contains(&dt.name())
}

/// Every `extern "C"` entry point of [`SOLVER_CU`].
pub fn entries() -> Vec<String> {
    let mut v: Vec<String> = FAMILIES
        .iter()
        .flat_map(|f| DTYPES.map(|d| format!("cupy_solver_{f}_{d}")))
        .collect();
    for f in REAL_FAMILIES {
        v.extend(["float32", "float64"].map(|d| format!("cupy_solver_{f}_{d}")));
    }
    v.push(NF_INFO.into());
    v
}

/// The entry of `family` for dtype `dt` (`nf_info` has no dtype).
///
/// # Errors
/// `InvalidArgument` for a dtype the solver does not take.
pub fn entry(family: &str, dt: DType) -> Result<String> {
    if family == "nf_info" {
        return Ok(NF_INFO.into());
    }
    if !is_solver_dtype(dt) || (REAL_FAMILIES.contains(&family) && dt.is_complex()) {
        return Err(Error::invalid(family, format!("no solver kernel for {dt}")));
    }
    Ok(format!("cupy_solver_{family}_{}", dt.name()))
}

/// Launches solver kernel `family` for dtype `dt` over `threads` threads ([`BLOCK`] per
/// block) with the 64-bit arguments `args`, on the backend's stream.
///
/// # Safety
/// `args` are the slots the kernel documents: live device addresses covering what the kernel
/// touches for `threads` threads, and counts.
///
/// # Errors
/// Compile, load and launch errors; a grid beyond 2^31-1 blocks.
pub unsafe fn launch<D: GpuDriver>(
    be: &D,
    family: &str,
    dt: DType,
    threads: usize,
    args: &[u64],
) -> Result<()> {
    if threads == 0 {
        return Ok(());
    }
    let name = entry(family, dt)?;
    let warp = be.warp_size();
    let module = named_module(be, "solver", || (assemble(SOLVER_CU, warp), entries()))?;
    let f = module.func(&name).ok_or_else(|| Error::Backend {
        backend: be.info().label(),
        msg: format!("missing solver kernel {name}"),
    })?;
    let blocks = threads.div_ceil(BLOCK as usize);
    if blocks > i32::MAX as usize {
        return Err(Error::Backend {
            backend: be.info().label(),
            msg: format!("{name}: {threads} threads exceed the grid limit"),
        });
    }
    let mut bytes = SolverArgs::new(args)?.bytes();
    // SAFETY: every entry takes one SolverArgs (the caller's slots, documented per kernel).
    unsafe { be.launch(f, [blocks as u32, 1, 1], [BLOCK, 1, 1], &mut bytes, &name) }
}

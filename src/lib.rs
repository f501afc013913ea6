//! # cupy-rs
//!
//! NumPy/CuPy-compatible n-dimensional arrays for Rust that run the same program on NVIDIA
//! (CUDA), AMD (HIP), any Vulkan/Metal/DX12 GPU (wgpu) and the CPU, chosen at run time by
//! device discovery or `CUPY_BACKEND=cuda|hip|wgpu|cpu`.
//!
//! ```no_run
//! use cupy as cp;
//! # fn main() -> cp::Result<()> {
//! let x = cp::arange(10)?;                    // int32 here: Rust's integer literal type
//! println!("{x}");                            // [0 1 2 3 4 5 6 7 8 9]
//! let z = cp::zeros(&[3, 3])?;                // float64, as NumPy
//! let a = cp::linspace(0.0, 1.0, 5)?;         // float64
//! let b = ((&a * 2.0)? + &a)?;               // operators return Result; scalars are weak
//! let m = a.reshape(&[5, 1])?.matmul(&b.reshape(&[1, 5])?)?;
//! println!("{:.3} {}", m.sum()?.item()?, m.max_axis(0)?);
//! let h = cp::asarray(&cp::ndarray::array![[1.0f32, 2.0], [3.0, 4.0]])?; // from an ndarray
//! let s = h.sum_with(cp::Reduce { axis: 1.into(), keepdims: true, ..Default::default() })?;
//! # Ok(()) }
//! ```
//!
//! Names and semantics follow NumPy 2 (NEP 50 promotion, broadcasting, `axis`/`keepdims`).
//! NumPy's keyword arguments live in one options struct per routine (or family) with
//! `Default`, passed to a `_with` form: [`zeros_with`] takes a [`Creation`] (or just a
//! [`DType`]), the reductions a [`Reduce`], `convolve2d_with` a
//! [`scipy::signal::Convolve2d`] (or a [`scipy::signal::Mode`]). Differences from NumPy are
//! listed in `docs/differences.md`; what is not here yet, in the README.
#![warn(missing_docs)]

/// `From<isize>`, `From<i32>` and `From<Option<isize>>` for an options struct whose one
/// positional-style keyword is `axis: Option<isize>`, so `a.cumsum_with(1)` reads as NumPy's
/// `a.cumsum(axis=1)`.
macro_rules! axis_options {
    ($t:ty) => {
        impl From<Option<isize>> for $t {
            #[allow(clippy::needless_update)] // some options structs have only `axis`
            fn from(axis: Option<isize>) -> $t {
                Self {
                    axis,
                    ..Default::default()
                }
            }
        }
        impl From<isize> for $t {
            fn from(axis: isize) -> $t {
                Some(axis).into()
            }
        }
        impl From<i32> for $t {
            fn from(axis: i32) -> $t {
                Some(axis as isize).into()
            }
        }
    };
}

// First: the `routine!` declarations in every family file use its macro.
#[macro_use]
pub mod registry;
pub mod array;
mod backends;
pub mod creation;
pub mod cuda;
pub mod custom;
pub mod device;
pub mod distributed;
pub mod dlpack;
pub mod fft;
pub mod indexing;
pub mod io;
pub mod launch;
pub mod linalg;
pub mod manipulation;
// Before `scipy`: `scipy::special` declares its ufuncs with `special_ufuncs!`.
#[macro_use]
pub mod math;
pub mod memory;
pub mod random;
pub mod scipy;
// Before `sorting`: its `reductions!` declarations (argmax, argmin) use the macro.
#[macro_use]
pub mod statistics;
pub mod sorting;
#[cfg(test)]
mod testing;

pub use array::index;

pub use array::Array;
pub use creation::basic::{
    arange, arange_with, empty, empty_like, empty_like_with, empty_with, eye, eye_with, full,
    full_like, full_like_with, full_with, identity, identity_with, linspace, linspace_with, ones,
    ones_like, ones_like_with, ones_with, zeros, zeros_like, zeros_like_with, zeros_with, Creation,
    Eye, Full, Like, Linspace,
};
pub use creation::from_data::{
    array, asarray, asnumpy, from_ndarray, from_slice, AsArray, IntoHostArray,
};
pub use cupy_core::{
    Backend, BackendKind, BackendProvider, Casting, DType, DeviceInfo, Element, Error, Kind,
    Layout, Result, Scalar, SliceItem, WeakScalar,
};
pub use custom::elementwise::{ElementwiseArgs, ElementwiseKernel, ElementwiseOptions};
pub use custom::fuse::{fuse, FuseOutput, Fused, FusedKernel, Operand, Sym};
pub use custom::raw::{Dim3, KernelArg, RawKernel, RawModule};
pub use custom::reduction::{ReductionArgs, ReductionKernel};
pub use device::{config_string, set_default_device, show_config, with_device, Device};
pub use index::{AsIndexItem, BasicArg, IndexItem, SliceArg, ELLIPSIS, NEW_AXIS};
pub use indexing::*;
pub use io::{load, load_npz, save, savez, savez_compressed, NpzFile};
pub use linalg::products::{cross, inner, kron, outer, tensordot, trace, vdot, TensorAxes};
pub use linalg::{dot, einsum, matmul};
pub use manipulation::basic::{
    ascontiguousarray, asfortranarray, copy, copy_with, copyto, copyto_where,
};
pub use manipulation::dims::{
    atleast_1d, atleast_2d, atleast_3d, broadcast_arrays, broadcast_to, expand_dims, squeeze,
};
pub use manipulation::join::{
    append, block, column_stack, concat, concatenate, dstack, hstack, stack, vstack, Block, Concat,
};
pub use manipulation::pad::{pad, PadMode, PerSide};
pub use manipulation::rearrange::{flip, fliplr, flipud, roll, roll_axes, rot90};
pub use manipulation::shape::{ravel, ravel_with, reshape, reshape_with, Order};
pub use manipulation::split::{array_split, dsplit, hsplit, split, unstack, vsplit, Sections};
pub use manipulation::tiling::{
    delete, delete_mask, delete_slice, insert, insert_at, repeat, resize, tile, trim_zeros,
};
pub use manipulation::transpose::{
    moveaxis, permute_dims, rollaxis, swapaxes, transpose, transpose_axes,
};
#[allow(ambiguous_glob_reexports)]
pub use math::arithmetic::*;
pub use math::bitwise::*;
pub use math::complex::*;
pub use math::exp_log::*;
pub use math::floating::*;
pub use math::hyperbolic::*;
pub use math::logic::*;
pub use math::methods::{UfuncAccumulate, UfuncReduce};
pub use math::misc::*;
pub use math::options::{apply_with, UfuncOptions};
pub use math::resolve::{Loop, LoopOperand};
pub use math::rounding::*;
pub use math::routines::{
    around, clip, clip_with, nan_to_num, nan_to_num_with, round, round_with, where_, Bound,
    NanToNum, Round, WhereCondition,
};
pub use math::sumprod::{
    diff, diff_with, ediff1d, ediff1d_with, gradient, gradient_with, nancumprod, nancumprod_with,
    nancumsum, nancumsum_with, trapezoid, trapezoid_with, Diff, Ediff1d, Gradient, Spacing,
    Trapezoid,
};
pub use math::trig::*;
pub use math::ufunc::{apply, apply_out, apply_outs, Arg, Rule, Ufunc};
pub use math::{all_ufuncs, ufunc, ufuncs};
pub use memory::{
    empty_pinned, get_default_memory_pool, get_default_pinned_memory_pool, zeros_pinned,
    MemoryPool, PinnedArray, PinnedMemoryPool,
};
pub use sorting::search::{argmax, argmax_with, argmin, argmin_with};
pub use sorting::{
    argpartition, argpartition_with, argsort, argsort_with, cumprod, cumprod_with, cumsum,
    cumsum_with, cumulative_prod, cumulative_sum, digitize, digitize_with, in1d, in1d_with,
    intersect1d, intersect1d_with, isin, isin_with, lexsort, lexsort_array, lexsort_with,
    partition, partition_with, searchsorted, searchsorted_with, setdiff1d, setdiff1d_with,
    setxor1d, setxor1d_with, sort, sort_complex, sort_with, union1d, unique, unique_all,
    unique_counts, unique_inverse, unique_values, unique_with, Cumulative, Digitize, Intersect1d,
    Intersection, IsIn, Kth, Lexsort, Scan, SearchSorted, SetOpts, Side, Sort, Unique, UniqueAll,
    UniqueCounts, UniqueInverse, UniqueResult,
};
#[allow(ambiguous_glob_reexports)]
pub use statistics::averages::*;
pub use statistics::correlation::{corrcoef, corrcoef_with, cov, cov_with, Corrcoef, Cov};
pub use statistics::counting::*;
pub use statistics::histogram::{histogram, histogram_with, BinEstimator, Bins, Histogram};
pub use statistics::histogramdd::{
    histogram2d, histogram2d_with, histogramdd, histogramdd_with, Histogram2d, HistogramDd,
};
pub use statistics::nan::*;
pub use statistics::order::*;
pub use statistics::quantile::{
    median, median_with, nanmedian, nanmedian_with, nanpercentile, nanpercentile_with, nanquantile,
    nanquantile_with, percentile, percentile_with, quantile, quantile_with, Median, Probabilities,
    Quantile, QuantileMethod,
};
pub use statistics::reduction::{reduce, Axes, Reduce, Reduction};
pub use statistics::sums::*;
pub use statistics::truth::*;
pub use statistics::{all_reductions, reduction, reductions};

/// Re-export of the vendor-neutral core (IR, layouts, Backend trait) for backend authors.
pub use cupy_core as core;
/// The `half` crate, for `f16`/`bf16` host data (`cupy::half::f16`).
pub use half;
/// The `ndarray` crate, for host arrays ([`asarray`] takes them; [`Array::to_ndarray`] gives
/// them back): `cupy::ndarray::array![[1.0, 2.0], [3.0, 4.0]]`.
pub use ndarray;
/// The `num-complex` crate, for complex host data (`cupy::num_complex::Complex<f32>`).
pub use num_complex;
